/* sweep.c -- sweep results as experiments. See sweep.h. */
#include "sweep.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sqlfail(db *d, const char *what, char *err, size_t errlen) {
    snprintf(err, errlen, "%s: %s: %s", db_path(d), what, sqlite3_errmsg(db_handle(d)));
    return -1;
}

static int exec(db *d, const char *sql, char *err, size_t errlen) {
    if (sqlite3_exec(db_handle(d), sql, NULL, NULL, NULL) != SQLITE_OK)
        return sqlfail(d, sql, err, errlen);
    return 0;
}

int db_sweep_store(db *d, const char *name, const char *description, const char *result,
                   char slug[DB_SLUG_SIZE], char *err, size_t errlen) {
    return db_sweep_store_file(d, name, description, result, NULL, slug, err, errlen);
}

int db_sweep_store_file(db *d, const char *name, const char *description, const char *result,
                        const char *file, char slug[DB_SLUG_SIZE], char *err, size_t errlen) {
    /* a savepoint nests in the caller's transaction, or is one by itself */
    if (exec(d, "SAVEPOINT sweep_store", err, errlen))
        return -1;
    sqlite3_stmt *st = NULL;
    if (db_create_experiment(d, name, description, "sweep", file, NULL, slug, err, errlen))
        goto fail;
    if (sqlite3_prepare_v2(db_handle(d),
                           "INSERT INTO sweeps(experiment, result) "
                           "SELECT id, ?1 FROM experiments WHERE slug = ?2",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlfail(d, "preparing the sweep insert", err, errlen);
        goto fail;
    }
    sqlite3_bind_text(st, 1, result, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, slug, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE || sqlite3_changes(db_handle(d)) != 1) {
        sqlfail(d, "sweeps", err, errlen);
        goto fail;
    }
    sqlite3_finalize(st);
    return exec(d, "RELEASE sweep_store", err, errlen);
fail:
    sqlite3_finalize(st);
    sqlite3_exec(db_handle(d), "ROLLBACK TO sweep_store; RELEASE sweep_store", NULL, NULL, NULL);
    return -1;
}

int db_sweep_result(db *d, const char *slug, char **result, char *err, size_t errlen) {
    *result = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db_handle(d),
                           "SELECT s.result FROM sweeps s JOIN experiments e ON e.id = s.experiment "
                           "WHERE e.slug = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return sqlfail(d, "preparing the sweep query", err, errlen);
    sqlite3_bind_text(st, 1, slug, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        *result = strdup(t ? t : "");
        rc = *result ? 0 : -1;
        if (rc)
            snprintf(err, errlen, "%s: out of memory", db_path(d));
    } else if (rc == SQLITE_DONE) {
        rc = DB_NOT_FOUND;
    } else {
        rc = sqlfail(d, "sweeps", err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}
