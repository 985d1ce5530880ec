/* versions.c -- versions of an experiment, and deleting one. See versions.h. */
#include "versions.h"

#include <string.h>

#include "db_int.h"
#include "row_ranges.h"

int db_version_latest(db *d, const char *experiment, int64_t *version, char *err, size_t errlen) {
    int64_t id;
    int rc = dbi_lookup_id(d, "experiments", experiment, &id, err, errlen);
    if (rc) return rc;
    sqlite3_stmt *st;
    if (prepare(d,
                "SELECT max(coalesce((SELECT max(version) FROM runs WHERE experiment = ?1), 1), "
                "coalesce((SELECT max(version) FROM experiment_versions WHERE experiment = ?1), 1))",
                &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *version = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : sqlfail(d, "experiment_versions", err, errlen);
}

static int step_done(db *d, sqlite3_stmt *st, const char *what, char *err, size_t errlen) {
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sqlfail(d, what, err, errlen);
}

int db_version_add(db *d, const char *experiment, int64_t version, const char *scenario_json,
                   char *err, size_t errlen) {
    int64_t id;
    int rc = dbi_lookup_id(d, "experiments", experiment, &id, err, errlen);
    if (rc) return rc;
    sqlite3_stmt *st;
    /* version 1's text, dated with the experiment, before it is replaced */
    if (prepare(d,
                "INSERT OR IGNORE INTO experiment_versions(experiment, version, scenario_json, "
                "created) SELECT id, 1, scenario_json, created FROM experiments "
                "WHERE id = ?1 AND scenario_json IS NOT NULL",
                &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    if (step_done(d, st, "experiment_versions", err, errlen)) return -1;
    if (prepare(d,
                "INSERT INTO experiment_versions(experiment, version, scenario_json) "
                "VALUES (?1, ?2, ?3)",
                &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, version);
    bind_s(st, 3, scenario_json);
    if (step_done(d, st, "experiment_versions", err, errlen)) return -1;
    if (prepare(d, "UPDATE experiments SET scenario_json = ?2 WHERE id = ?1", &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    bind_s(st, 2, scenario_json);
    return step_done(d, st, "experiments", err, errlen);
}

int db_run_set_version(db *d, const char *run, int64_t version, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "UPDATE runs SET version = ?2 WHERE slug = ?1", &st, err, errlen)) return -1;
    bind_s(st, 1, run);
    sqlite3_bind_int64(st, 2, version);
    if (step_done(d, st, "runs", err, errlen)) return -1;
    if (sqlite3_changes(d->h) != 1) {
        seterr(err, errlen, "%s: no run named \"%s\"", d->path, run);
        return DB_NOT_FOUND;
    }
    return 0;
}

int db_list_versions(db *d, const char *experiment, db_version_cb cb, void *ctx, char *err,
                     size_t errlen) {
    int64_t id;
    int rc = dbi_lookup_id(d, "experiments", experiment, &id, err, errlen);
    if (rc) return rc;
    sqlite3_stmt *st;
    /* version 1, every experiment's first (an import's, a sweep's: neither
     * is ever edited; a sweep has no runs, and listed no version, where
     * db_version_latest says 1), versions with runs, and recorded versions
     * (a version whose runs were all deleted still has its text) */
    if (prepare(d,
                "WITH v(version) AS (SELECT 1 UNION SELECT version FROM runs WHERE experiment = ?1 "
                "UNION SELECT version FROM experiment_versions WHERE experiment = ?1) "
                "SELECT v.version, (SELECT created FROM experiment_versions x WHERE "
                "x.experiment = ?1 AND x.version = v.version), (SELECT count(*) FROM runs r "
                "WHERE r.experiment = ?1 AND r.version = v.version) FROM v ORDER BY v.version",
                &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    rc = 0;
    int s = SQLITE_DONE;
    while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW)
        rc = cb(ctx, sqlite3_column_int64(st, 0), col_s(st, 1), sqlite3_column_int64(st, 2));
    if (rc == 0 && s != SQLITE_DONE) rc = sqlfail(d, "experiment_versions", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

int db_list_run_versions(db *d, const char *experiment, db_run_version_cb cb, void *ctx,
                         char *err, size_t errlen) {
    int64_t id;
    int rc = dbi_lookup_id(d, "experiments", experiment, &id, err, errlen);
    if (rc) return rc;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT slug, version FROM runs WHERE experiment = ?1 ORDER BY id", &st, err,
                errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    rc = 0;
    int s = SQLITE_DONE;
    while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW)
        rc = cb(ctx, col_s(st, 0), sqlite3_column_int64(st, 1));
    if (rc == 0 && s != SQLITE_DONE) rc = sqlfail(d, "runs", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

/* DELETE FROM `table` WHERE `col` IN (the experiment's runs). */
static int delete_rows(db *d, const char *table, const char *col, int64_t id, char *err,
                       size_t errlen) {
    char sql[320];
    /* the names come from sqlite_schema, never from a request; quoted anyway */
    snprintf(sql, sizeof sql,
             "DELETE FROM \"%.63s\" WHERE \"%.63s\" IN (SELECT id FROM runs WHERE experiment = ?1)",
             table, col);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK)
        return sqlfail(d, "preparing a delete", err, errlen);
    sqlite3_bind_int64(st, 1, id);
    return step_done(d, st, table, err, errlen);
}

int db_delete_experiment(db *d, const char *experiment, int64_t *runs, char *err,
                         size_t errlen) {
    int64_t id;
    int rc = dbi_lookup_id(d, "experiments", experiment, &id, err, errlen);
    if (rc) return rc;
    /* every table (but runs) with a column naming a run: `run`, and the
     * fidelity table's `measured` (a replay of a run being deleted) */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->h,
                           "SELECT m.name, p.name FROM sqlite_schema m, pragma_table_info(m.name) p "
                           "WHERE m.type = 'table' AND m.name <> 'runs' AND "
                           "(p.name = 'run' OR (m.name = 'fidelity' AND p.name = 'measured'))",
                           -1, &st, NULL) != SQLITE_OK)
        return sqlfail(d, "listing tables", err, errlen);
    char tables[64][2][64];
    size_t n = 0, most = sizeof tables / sizeof *tables;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW && n < most) {
        snprintf(tables[n][0], sizeof tables[n][0], "%s", col_s(st, 0));
        snprintf(tables[n][1], sizeof tables[n][1], "%s", col_s(st, 1));
        n++;
    }
    sqlite3_finalize(st);
    /* a table past the list would keep the deleted runs' rows: refused
     * before anything is deleted (the schema has about half that many) */
    if (s == SQLITE_ROW) {
        seterr(err, errlen, "%s: more than %zu tables name a run; deleting an experiment "
               "lists at most %zu (db/versions.c)", d->path, most, most);
        return -1;
    }
    if (s != SQLITE_DONE) return sqlfail(d, "listing tables", err, errlen);
    for (size_t i = 0; i < n; i++)
        if (delete_rows(d, tables[i][0], tables[i][1], id, err, errlen)) return -1;
    /* kernels and copies have no run column: their rows are the runs' ranges */
    if (dbi_row_ranges_delete(d, id, err, errlen)) return -1;
    if (prepare(d, "DELETE FROM runs WHERE experiment = ?1", &st, err, errlen)) return -1;
    sqlite3_bind_int64(st, 1, id);
    if (step_done(d, st, "runs", err, errlen)) return -1;
    if (runs) *runs = sqlite3_changes(d->h);
    /* experiment_versions and sweeps go with it (ON DELETE CASCADE), and are
     * cleared explicitly too in case foreign keys are off */
    const char *by_exp[] = {"DELETE FROM experiment_versions WHERE experiment = ?1",
                            "DELETE FROM sweeps WHERE experiment = ?1",
                            "DELETE FROM experiments WHERE id = ?1"};
    for (size_t i = 0; i < sizeof by_exp / sizeof *by_exp; i++) {
        if (prepare(d, by_exp[i], &st, err, errlen)) return -1;
        sqlite3_bind_int64(st, 1, id);
        if (step_done(d, st, "experiments", err, errlen)) return -1;
    }
    return 0;
}
