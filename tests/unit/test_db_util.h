/* test_db_util.h -- a throw-away database for the store's tests (test_db.c,
 * test_versions.c, the pyramid and block-page tests). Include after
 * <cmocka.h>; static inline, so each test binary carries only what it uses.
 *
 * Each test gets a fresh file in its own mkdtemp() folder, so tests never
 * see each other's rows and a crashed run leaves only a /tmp folder behind;
 * tdb_close() removes the file with its WAL and shared-memory companions. */
#ifndef TEST_DB_UTIL_H
#define TEST_DB_UTIL_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../db/db.h"

typedef struct tdb {
    char dir[64];
    char path[96];
    db *d;
} tdb;

/* Opens (creates, migrates) /tmp/schedlab-test-TAG-XXXXXX/t.db. 0 or -1,
 * with the reason on stderr. */
static inline int tdb_open(tdb *t, const char *tag) {
    snprintf(t->dir, sizeof t->dir, "/tmp/schedlab-test-%s-XXXXXX", tag);
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

static inline int tdb_exp_teardown(void **state) {
    tdb_exp *f = *state;
    tdb_close(&f->t);
    free(f);
    return 0;
}

#endif
