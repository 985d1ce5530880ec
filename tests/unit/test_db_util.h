/* test_db_util.h -- a throw-away database for the store's tests (test_db.c,
 * test_versions.c, the pyramid and block-page tests). Include after
 * <cmocka.h>; static inline, so each test binary carries only what it uses.
 *
 * Each test gets a fresh file in its own mkdtemp() folder, so tests never
 * see each other's rows and a crashed run leaves only a temporary folder
 * behind; tdb_close() removes the file with its WAL and shared-memory
 * companions. The folder is under $TMPDIR (else /tmp): `make test` points
 * it at a tmpfs where there is one, so the tests do not wait on fsync. */
#ifndef TEST_DB_UTIL_H
#define TEST_DB_UTIL_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../db/db.h"
#include "../../server/formats/trace_json.h"
#include "../../simcore/device.h"

typedef struct tdb {
    char dir[64];
    char path[96];
    db *d;
} tdb;

/* $TMPDIR, else /tmp (also when $TMPDIR is too long for tdb's paths):
 * where the tests' throw-away files go. */
static inline const char *tdb_tmpdir(void) {
    const char *t = getenv("TMPDIR");
    return t && *t && strlen(t) <= 24 ? t : "/tmp";
}

/* Opens (creates, migrates) $TMPDIR/schedlab-test-TAG-XXXXXX/t.db. 0 or -1,
 * with the reason on stderr. */
static inline int tdb_open(tdb *t, const char *tag) {
    snprintf(t->dir, sizeof t->dir, "%s/schedlab-test-%s-XXXXXX", tdb_tmpdir(), tag);
    if (!mkdtemp(t->dir)) { perror(t->dir); return -1; }
    snprintf(t->path, sizeof t->path, "%s/t.db", t->dir);
    char err[256];
    if (db_open(t->path, &t->d, err, sizeof err)) { fprintf(stderr, "%s\n", err); return -1; }
    return 0;
}

static inline void tdb_close(tdb *t) {
    db_close(t->d);
    t->d = NULL;
    static const char *const suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s%s", t->path, suffix[i]);
        unlink(p);
    }
    rmdir(t->dir);
}

/* The one integer a query answers (count(*), a column of one row). */
static inline int64_t tdb_scalar(db *d, const char *sql) {
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The same with the run's slug bound to ?1. */
static inline int64_t tdb_scalar_slug(db *d, const char *sql, const char *slug) {
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, slug, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* How many rows of `table` (its run in column run) are run slug's. */
static inline int64_t tdb_run_rows(db *d, const char *table, const char *slug) {
    char sql[160];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM %s WHERE run = (SELECT id FROM runs WHERE slug = ?1)", table);
    return tdb_scalar_slug(d, sql, slug);
}

/* Column `col` of the run's row in runs (origin, n_kernels, t_max ...). */
static inline int64_t tdb_run_int(db *d, const char *run, const char *col) {
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT %s FROM runs WHERE slug = '%s'", col, run);
    return tdb_scalar(d, sql);
}

/* The run loaded whole (DB_LOAD_ALL) and written as trace JSON, appended
 * to b: the bytes the tests compare two stores of a run by. */
static inline void tdb_export_to(db *d, const char *run, tj_buf *b) {
    trace t;
    trace_init(&t);
    char err[512];
    assert_int_equal(db_load_run(d, run, DB_LOAD_ALL, &t, err, sizeof err), 0);
    assert_int_equal(tj_write_trace(&t, b), 0);
    trace_free(&t);
}

/* The same as a string of its own; the caller frees it. */
static inline char *tdb_export(db *d, const char *run) {
    tj_buf b = {0};
    tdb_export_to(d, run, &b);
    return b.s;
}

/* Runs a and b are the same run: the same export, byte for byte, and the
 * same value in each of the runs columns `cols`. */
static inline void tdb_same_runs(db *d, const char *a, const char *b, const char *const *cols,
                                 size_t ncols) {
    char *ea = tdb_export(d, a), *eb = tdb_export(d, b);
    assert_string_equal(ea, eb);
    free(ea);
    free(eb);
    for (size_t i = 0; i < ncols; i++)
        assert_int_equal(tdb_run_int(d, a, cols[i]), tdb_run_int(d, b, cols[i]));
}

/* An empty trace named `name` (source "test") on an H100 cut to `sms`
 * SMs: the device of the synthetic runs the pyramid tests store. */
static inline void tdb_h100_trace(trace *t, const char *name, int32_t sms) {
    trace_init(t);
    trace_set_name(t, name);
    trace_set_source(t, "test");
    t->has_device = true;
    const sim_device *h100 = sim_preset_find("h100");
    assert_non_null(h100);
    t->device = *h100;
    t->device.sms = sms;
}

/* Trace t stored whole with db_store_run, as every run was before issue 9,
 * as file `file` of a new import experiment named after the trace. */
static inline void tdb_store_whole(db *d, const trace *t, const char *file,
                                   char run[DB_SLUG_SIZE]) {
    char err[512], exp[DB_SLUG_SIZE];
    assert_int_equal(db_create_experiment(d, t->name, "whole", "import", NULL, NULL, exp, err,
                                          sizeof err), 0);
    assert_int_equal(db_store_run(d, exp, file, t, run, err, sizeof err), 0);
}

/* Nothing stored: each of `tables` is empty. */
static inline void tdb_expect_empty(db *d, const char *const *tables, size_t ntables) {
    for (size_t i = 0; i < ntables; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[i]);
        int64_t rows = tdb_scalar(d, sql);
        if (rows != 0) fail_msg("%s holds %lld rows, expected none", tables[i], (long long)rows);
    }
}

/* The fixture of the tests that store runs: a fresh database holding one
 * empty import experiment, whose slug the runs are stored under. Use as
 * cmocka_unit_test_setup_teardown(test, tdb_exp_setup, tdb_exp_teardown);
 * the test's state is a tdb_exp. */
typedef struct tdb_exp {
    tdb t;                      /* the throw-away database */
    db *d;                      /* = t.d */
    char exp[DB_SLUG_SIZE];
} tdb_exp;

static inline int tdb_exp_setup(void **state) {
    tdb_exp *f = calloc(1, sizeof *f);
    if (!f) return -1;
    char err[256];
    if (tdb_open(&f->t, "exp")) { free(f); return -1; }
    f->d = f->t.d;
    if (db_create_experiment(f->d, "exp", NULL, "import", NULL, NULL, f->exp, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        tdb_close(&f->t);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

/* Trace t stored as run `name` of the fixture's experiment, its slug in
 * slug; a store that fails fails the test with the store's message. */
static inline void tdb_exp_store(tdb_exp *f, const char *name, const trace *t,
                                 char slug[DB_SLUG_SIZE]) {
    char err[256];
    if (db_store_run(f->d, f->exp, name, t, slug, err, sizeof err)) fail_msg("%s", err);
}

static inline int tdb_exp_teardown(void **state) {
    tdb_exp *f = *state;
    tdb_close(&f->t);
    free(f);
    return 0;
}

#endif
