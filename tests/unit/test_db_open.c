/* test_db_open.c -- what db_open and db_open_readonly refuse, and in which
 * words (db/db.c, db.h): a schema newer or older than this build's, a
 * folder, a file that is no database, a folder that does not exist; a
 * check that leaves no file behind; lookups of a slug that is not there;
 * and, last (both are for good in a process), writes refused after a full
 * disk and every lock wait given up at a stopping server's deadline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../db/db.h"
#include "test_db_util.h"

/* t's database (closed) at user_version v, written with SQLite alone */
static void set_version(tdb *t, int v) {
    db_close(t->d);
    t->d = NULL;
    sqlite3 *h;
    assert_int_equal(sqlite3_open(t->path, &h), SQLITE_OK);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
    assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
}

static void expect_open(const char *path, bool readonly, int rc, const char *want) {
    char err[4096] = "";
    db *d = NULL;
    int got = readonly ? db_open_readonly(path, &d, err, sizeof err)
                       : db_open(path, &d, err, sizeof err);
    if (got == 0) db_close(d);
    assert_int_equal(got, rc);
    assert_null(d);
    if (strcmp(err, want) != 0) fail_msg("\"%s\"\n  not \"%s\"", err, want);
}

static void test_schema_versions(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "open"), 0);
    char want[4096];
    set_version(&t, DB_SCHEMA_VERSION + 1);
    snprintf(want, sizeof want, "%s: schema version %d is newer than this schedlab's (%d); use a "
             "newer schedlab or another --db", t.path, DB_SCHEMA_VERSION + 1, DB_SCHEMA_VERSION);
    expect_open(t.path, false, -1, want);
    snprintf(want, sizeof want, "%s: schema version %d, this schedlab reads %d; use a newer "
             "schedlab", t.path, DB_SCHEMA_VERSION + 1, DB_SCHEMA_VERSION);
    expect_open(t.path, true, -1, want);
    /* an older one is refused by the read-only open (only db_open migrates) */
    set_version(&t, DB_SCHEMA_VERSION - 1);
    snprintf(want, sizeof want, "%s: schema version %d, this schedlab reads %d (open it once with "
             "`schedlab serve` or `import` to migrate it)", t.path, DB_SCHEMA_VERSION - 1,
             DB_SCHEMA_VERSION);
    expect_open(t.path, true, -1, want);
    tdb_close(&t);
}

static void test_not_a_database(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "open"), 0);
    char want[4096], path[1100];
    /* a folder */
    snprintf(want, sizeof want, "%s: a folder, not a database file (--db or SCHEDLAB_DB names "
             "the database file)", t.dir);
    expect_open(t.dir, false, DB_NOT_A_DATABASE, want);
    expect_open(t.dir, true, DB_NOT_A_DATABASE, want);
    /* a text file */
    snprintf(path, sizeof path, "%s/notes.txt", t.dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("these are notes, not a database; SQLite reads the first 100 bytes as a header "
          "and finds no \"SQLite format 3\" there at all\n", f);
    fclose(f);
    snprintf(want, sizeof want, "%s: not a database: the file does not start with \"SQLite "
             "format 3\" (--db or SCHEDLAB_DB names the database file)", path);
    expect_open(path, false, DB_NOT_A_DATABASE, want);
    expect_open(path, true, DB_NOT_A_DATABASE, want);
    unlink(path);
    /* a folder that is not there: said so, nothing made */
    snprintf(path, sizeof path, "%s/no-such-folder/t.db", t.dir);
    snprintf(want, sizeof want, "%s: the database cannot be written here: its folder "
             "%s/no-such-folder does not exist (serve, import and replay --store write to it, "
             "and to %s-wal and %s-shm beside it)", path, t.dir, path, path);
    expect_open(path, false, -1, want);
    tdb_close(&t);
}

/* db_check_writable opens (and so makes) a missing file, and removes it
 * with its -wal and -shm: a check leaves nothing behind */
static void test_check_leaves_nothing(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "open"), 0);
    char path[1100], side[1110], err[512];
    snprintf(path, sizeof path, "%s/checked.db", t.dir);
    assert_int_equal(db_check_writable(path, err, sizeof err), 0);
    assert_int_not_equal(access(path, F_OK), 0);
    snprintf(side, sizeof side, "%s-wal", path);
    assert_int_not_equal(access(side, F_OK), 0);
    snprintf(side, sizeof side, "%s-shm", path);
    assert_int_not_equal(access(side, F_OK), 0);
    /* an existing one stays */
    assert_int_equal(db_check_writable(t.path, err, sizeof err), 0);
    assert_int_equal(access(t.path, F_OK), 0);
    tdb_close(&t);
}

static int on_exp(void *ctx, const db_experiment *e) {
    snprintf(ctx, 64, "[%s]", e->name);
    return 0;
}

/* a slug that names nothing, in the words of its table; an experiment
 * without a name is stored with an empty one */
static void test_lookups(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "open"), 0);
    char err[512], want[1200], slug[DB_SLUG_SIZE], name[64] = "";
    trace tr;
    trace_init(&tr);
    assert_int_equal(db_store_run(t.d, "nosuchexp0", "x", &tr, slug, err, sizeof err),
                     DB_NOT_FOUND);
    trace_free(&tr);
    snprintf(want, sizeof want, "%s: no experiment named \"nosuchexp0\"", t.path);
    assert_string_equal(err, want);
    err[0] = '\0';   /* a lookup that finds nothing words it as the store did (db.h) */
    assert_int_equal(db_get_experiment(t.d, "nosuchexp0", on_exp, name, err, sizeof err),
                     DB_NOT_FOUND);
    assert_string_equal(err, want);
    if (db_create_experiment(t.d, NULL, NULL, "import", NULL, NULL, slug, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(strlen(slug), DB_SLUG_LEN);
    assert_int_equal(db_get_experiment(t.d, slug, on_exp, name, err, sizeof err), 0);
    assert_string_equal(name, "[]");
    tdb_close(&t);
}

static void test_disk_full_words(void **state) {
    (void)state;
    assert_true(db_error_full("database or disk is full"));
    assert_true(db_error_full(strerror(ENOSPC)));
    assert_false(db_error_full("database is locked"));
    assert_false(db_error_full(NULL));
}

/* Last: for good in this process. A stopping server's deadline: every
 * wait for another connection's lock gives up then (the earliest deadline
 * given stays), not after DB_BUSY_TIMEOUT_MS (30 s). Writes refused (a
 * full disk): every later transaction says the first reason. */
static void test_for_good(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "open"), 0);
    char err[512];
    db *other;
    assert_int_equal(db_open(t.path, &other, err, sizeof err), 0);
    assert_int_equal(db_begin(t.d, err, sizeof err), 0);
    db_give_up_waits_after(0);
    db_give_up_waits_after(DB_BUSY_TIMEOUT_MS * 10);
    time_t t0 = time(NULL);
    assert_int_equal(db_begin(other, err, sizeof err), -1);
    assert_non_null(strstr(err, "database is locked"));
    long long waited = (long long)(time(NULL) - t0);
    if (waited > DB_BUSY_TIMEOUT_MS / 1000 / 3) fail_msg("waited %lld s", waited);
    db_rollback(t.d);

    db_refuse_writes("the disk is full (first)");
    db_refuse_writes("second");
    char want[1200];
    snprintf(want, sizeof want, "%s: the disk is full (first)", t.path);
    assert_int_equal(db_begin(other, err, sizeof err), -1);
    assert_string_equal(err, want);
    db_close(other);
    tdb_close(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_versions),
        cmocka_unit_test(test_not_a_database),
        cmocka_unit_test(test_check_leaves_nothing),
        cmocka_unit_test(test_lookups),
        cmocka_unit_test(test_disk_full_words),
        cmocka_unit_test(test_for_good),   /* last: see above */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
