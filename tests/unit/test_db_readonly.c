/* test_db_readonly.c -- db_open_readonly (db/db.h), what `schedlab export`
 * and `schedlab replay` open: it never creates a missing file, never
 * migrates, and refuses writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../db/db.h"

static void temp_path(char *buf, size_t n, const char *name) {
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, n, "%s/schedlab-ro-%ld-%s", tmp && *tmp ? tmp : "/tmp", (long)getpid(), name);
}

static void remove_db(const char *path) {
    char side[1100];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

static void test_missing_is_not_created(void **state) {
    (void)state;
    char path[1024];
    temp_path(path, sizeof path, "missing.db");
    remove_db(path);
    db *d = (db *)1;
    char err[512] = "";
    assert_int_equal(db_open_readonly(path, &d, err, sizeof err), -1);
    assert_null(d);
    char want[1200];
    snprintf(want, sizeof want, "%s: cannot open the database: unable to open database file", path);
    assert_string_equal(err, want);
    assert_int_equal(access(path, F_OK), -1);   /* not created */
}

static void test_reads_but_never_writes(void **state) {
    (void)state;
    char path[1024];
    temp_path(path, sizeof path, "existing.db");
    remove_db(path);
    char err[512] = "";
    db *w;
    assert_int_equal(db_open(path, &w, err, sizeof err), 0);   /* creates and migrates */
    db_close(w);

    db *r;
    assert_int_equal(db_open_readonly(path, &r, err, sizeof err), 0);
    int v = -1;
    assert_int_equal(db_user_version(r, &v, err, sizeof err), 0);
    assert_int_equal(v, DB_SCHEMA_VERSION);
    assert_int_equal(sqlite3_exec(db_handle(r), "CREATE TABLE x(y)", NULL, NULL, NULL), SQLITE_READONLY);
    db_close(r);

    /* another schema version is refused, not migrated */
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, "PRAGMA user_version = 0", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    r = (db *)1;
    assert_int_equal(db_open_readonly(path, &r, err, sizeof err), -1);
    assert_null(r);
    char want[1400];
    snprintf(want, sizeof want,
             "%s: schema version 0, this schedlab reads %d (open it once with `schedlab serve` "
             "or `import` to migrate it)", path, DB_SCHEMA_VERSION);
    assert_string_equal(err, want);
    remove_db(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_is_not_created),
        cmocka_unit_test(test_reads_but_never_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
