/* fidelity_db.c -- the fidelity reports of replays. See fidelity_db.h. */
#include "fidelity_db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(db *d, const char *what, char *err, size_t errlen) {
    snprintf(err, errlen, "%s: %s: %s", db_path(d), what, sqlite3_errmsg(db_handle(d)));
    return -1;
}

int db_fidelity_store(db *d, const char *run, const char *measured, const char *report,
                      char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db_handle(d),
                           "INSERT OR REPLACE INTO fidelity(run, measured, report) "
                           "SELECT r.id, m.id, ?3 FROM runs r, runs m "
                           "WHERE r.slug = ?1 AND m.slug = ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(d, "preparing the fidelity insert", err, errlen);
    sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, measured, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, report, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int changed = sqlite3_changes(db_handle(d));
    rc = rc != SQLITE_DONE ? fail(d, "fidelity", err, errlen) : 0;
    sqlite3_finalize(st);
    if (rc == 0 && changed < 1) {
        snprintf(err, errlen, "%s: no run named \"%s\" or \"%s\"", db_path(d), run, measured);
        return DB_NOT_FOUND;
    }
    return rc;
}

int db_fidelity_get(db *d, const char *run, char **report, char **measured, char *err,
                    size_t errlen) {
    *report = *measured = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db_handle(d),
                           "SELECT f.report, m.slug FROM fidelity f JOIN runs r ON r.id = f.run "
                           "JOIN runs m ON m.id = f.measured WHERE r.slug = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(d, "preparing the fidelity query", err, errlen);
    sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(st, 0);
        const char *m = (const char *)sqlite3_column_text(st, 1);
        *report = strdup(r ? r : "{}");
        *measured = strdup(m ? m : "");
        rc = 0;
        if (!*report || !*measured) {
            free(*report);
            free(*measured);
            *report = *measured = NULL;
            snprintf(err, errlen, "%s: out of memory", db_path(d));
            rc = -1;
        }
    } else if (rc == SQLITE_DONE) {
        snprintf(err, errlen, "run \"%s\" has no fidelity report (it is not a replay)", run);
        rc = DB_NOT_FOUND;
    } else {
        rc = fail(d, "fidelity", err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}
