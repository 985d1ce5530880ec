/* test_db_util.h -- a throw-away database for the store's tests (test_db.c,
 * test_versions.c, test_pyramid.c). Include after <cmocka.h>; static
 * inline, so each test binary carries only what it uses.
 *
 * Each test gets a fresh file in its own mkdtemp() folder, so tests never
 * see each other's rows and a crashed run leaves only a /tmp folder behind;
 * tdb_close() removes the file with its WAL and shared-memory companions. */
#ifndef TEST_DB_UTIL_H
#define TEST_DB_UTIL_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
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

#endif
