/* test_imp_stream_sql.c -- the SQLite exports (nvprof, Nsight Systems)
 * imported in bounded memory (issue 9): the rows are read ordered by start,
 * the tables merged, with launch times from an indexed temporary table,
 * and handed over in batches (importers/sqlite_util.h). The stored run is
 * the one the file parsed whole gives -- the same export byte for byte, the
 * same string texts -- on generated exports whose rowids are not in start
 * order, with equal starts across and within tables, rows without
 * timestamps, launches found only in the DRIVER table and launches recorded
 * twice. A bad row with a late rowid but the earliest start, and a bad row
 * after a good one, get the whole-file message, and nothing is stored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../importers/importers.h"
#include "../../importers/trace_check.h"
#include "../../server/app/store.h"
#include "../../server/formats/trace_json.h"
#include "test_db_util.h"
#include "test_imp_util.h"

#define N 30000              /* concurrent kernels: four of the store's 8192-row batches */

/* An nvprof export: CONCURRENT_KERNEL row i (rowid i + 1) starts at
 * T0 + (i * 7919 mod N) / 2 us -- a permutation, two rows per start; every
 * 1000th has no timestamps; KERNEL repeats 50 of those starts (ties go to
 * CONCURRENT_KERNEL); RUNTIME holds launches for i mod 5 != 0 (twice, the
 * earlier counting, for i mod 7 == 0), DRIVER for i mod 3 != 0 (so i mod
 * 105 == 0 have none, i mod 5 == 0 the DRIVER's); MEMCPY and MEMSET
 * share starts. bad >= 0: that row's gridX is text and its start the
 * earliest; bad2 >= 0: that row's gridX is text. */
static const char *const nvprof_sql =
    "CREATE TABLE Version(version INTEGER); INSERT INTO Version VALUES (18);"
    "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);"
    "INSERT INTO StringTable VALUES (0, '-- null --'), (1, 'GeForce RTX 2080 Ti'),"
    " (2, '_Z6vecAddPdS_S_i'), (3, 'reduce'), (4, '_Z4gemmIfLi128EEvPT_i'), (5, 'scan');"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE(_id_ INTEGER PRIMARY KEY, numMultiprocessors INT,"
    " numThreadsPerWarp INT, maxWarpsPerMultiprocessor INT, coreClockRate INT,"
    " numMemcpyEngines INT, id INT, name INT);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE VALUES (1, 68, 32, 32, 1545000, 3, 0, 1);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_STREAM(_id_ INTEGER PRIMARY KEY, contextId INT, streamId INT,"
    " priority INT);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_STREAM VALUES (1, 1, 7, 0), (2, 1, 13, -1), (3, 1, 14, -2);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY,"
    " registersPerThread INT, start INT, end INT, deviceId INT, contextId INT, streamId INT,"
    " gridX, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, staticSharedMemory INT,"
    " dynamicSharedMemory INT, correlationId INT, name INT);"
    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d - 1)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL SELECT i + 1, 16 + i %% 3 * 8,"
    " CASE WHEN i = %d THEN 1699999999000000000 WHEN i %% 1000 = 999 THEN 0"
    "  ELSE 1700000000000000000 + (i * 7919 %% %d) / 2 * 1000 END,"
    " CASE WHEN i %% 1000 = 999 THEN 0 ELSE 1700000000000000000 + (i * 7919 %% %d) / 2 * 1000"
    "  + 500 + i %% 9 * 100 END, 0, 1, 7 + (i %% 3 > 0) * (12 + i %% 2),"
    " CASE WHEN i IN (%d, %d) THEN 'abc' ELSE 1 + i %% 40 END, 1, 1, 128, 1, 1, 0, i %% 4 * 256,"
    " 100 + i, 2 + i %% 4 FROM n;"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"
    " WHERE _id_ %% 600 = 7 AND _id_ <> %d + 1;"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY, start INT, end INT,"
    " correlationId INT);"
    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d - 1)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId)"
    " SELECT 1699999990000000000 + i * 100, 0, 100 + i FROM n WHERE i %% 5 <> 0"
    " UNION ALL SELECT 1699999980000000000 + i * 100, 0, 100 + i FROM n WHERE i %% 7 = 0;"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER(_id_ INTEGER PRIMARY KEY, start INT, end INT,"
    " correlationId INT);"
    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d - 1)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER(start, end, correlationId)"
    " SELECT 1699999970000000000 + i * 100, 0, 100 + i FROM n WHERE i %% 3 <> 0;"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY KEY, copyKind INT, srcKind INT,"
    " dstKind INT, bytes INT, start INT, end INT, deviceId INT, contextId INT, streamId INT,"
    " correlationId INT);"
    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT i + 1, 1 + i %% 2, 1, 3, 4096 * (1 + i %% 8),"
    " 1700000000000000000 + (i * 3001 %% 10000) * 1500, 1700000000000000000"
    " + (i * 3001 %% 10000) * 1500 + 700, 0, 1, 7, 50000 + i FROM n;"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(_id_ INTEGER PRIMARY KEY, value INT, bytes INT,"
    " start INT, end INT, deviceId INT, contextId INT, streamId INT, memoryKind INT,"
    " correlationId INT);"
    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 4999)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET SELECT i + 1, 0, 1024,"
    " 1700000000000000000 + (i * 2 * 3001 %% 10000) * 1500, 1700000000000000000"
    " + (i * 2 * 3001 %% 10000) * 1500 + 300, 0, 1, 13, 3, 90000 + i FROM n;";

/* An Nsight Systems export of the same shape, the pid in globalPid/Tid. */
static const char *const nsys_sql =
    "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);"
    "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2');"
    "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO StringIds VALUES (1, 'vecAdd(double *)'), (2, '_Z6vecAddPd'), (3, 'reduce'),"
    " (4, 'scan');"
    "CREATE TABLE TARGET_INFO_GPU(vmId INTEGER, id INTEGER, name TEXT, smCount INTEGER);"
    "INSERT INTO TARGET_INFO_GPU VALUES (1, 0, 'NVIDIA A100', 108);"
    "CREATE TABLE TARGET_INFO_CUDA_STREAM(streamId INTEGER, processId INTEGER, contextId INTEGER,"
    " priority INTEGER);"
    "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (13, 36554, 1, 4294967295), (14, 36554, 1, 0);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
    " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
    " demangledName INTEGER, mangledName INTEGER, registersPerThread INTEGER, gridX INTEGER,"
    " gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER,"
    " staticSharedMemory INTEGER, dynamicSharedMemory INTEGER);"
    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d - 1)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1000000 + (i * 7919 %% %d) / 2 * 1000,"
    " 1000000 + (i * 7919 %% %d) / 2 * 1000 + 400, 0, 1, 13 + i %% 2, 10 + i,"
    " (36554 + i %% 2) * 16777216, CASE WHEN i %% 3 = 0 THEN 1 ELSE 3 + i %% 2 END,"
    " CASE WHEN i %% 3 = 0 THEN 2 END, 32, 1 + i %% 50, 1, 1, 256, 1, 1, 0, 0 FROM n;"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, globalTid INTEGER,"
    " correlationId INTEGER);"
    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d - 1)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 500000 + i * 10, 0,"
    " (36554 + i %% 2) * 16777216 + 3, 10 + i FROM n WHERE i %% 4 <> 0;"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER,"
    " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
    " bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);"
    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 4999)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 1000000 + (i * 3001 %% 5000) * 3000,"
    " 1000000 + (i * 3001 %% 5000) * 3000 + 900, 0, 1, 13, 80000 + i, 36554 * 16777216,"
    " 8192, 1 + i %% 2, 0, 2 FROM n;"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER, end INTEGER, deviceId INTEGER,"
    " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
    " bytes INTEGER, memKind INTEGER);"
    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET SELECT 1000000 + (i * 5 %% 5000) * 3000,"
    " 1000000 + (i * 5 %% 5000) * 3000 + 100, 0, 1, 14, 90000 + i, 36554 * 16777216, 64, 2"
    " FROM n;";

/* The export as the bytes of a database file (owned by the caller). */
static unsigned char *make_db(bool nsys, int bad, int bad2, size_t *len) {
    sqlite3 *mem_db;
    assert_int_equal(sqlite3_open(":memory:", &mem_db), SQLITE_OK);
    char *sql = nsys ? sqlite3_mprintf(nsys_sql, N, N, N, N)
                     : sqlite3_mprintf(nvprof_sql, N, bad, N, N, bad, bad2, bad, N, N);
    assert_non_null(sql);
    char *err = NULL;
    int rc = sqlite3_exec(mem_db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, SQLITE_OK);
    sqlite3_free(sql);
    sqlite3_int64 n;
    unsigned char *mem = sqlite3_serialize(mem_db, "main", &n, 0);
    assert_non_null(mem);
    unsigned char *out = malloc((size_t)n);
    assert_non_null(out);
    memcpy(out, mem, (size_t)n);
    sqlite3_free(mem);
    sqlite3_close(mem_db);
    *len = (size_t)n;
    return out;
}

/* Stored whole (db_store_run) and streamed (store_import): the same run. */
static void same_run(bool nsys, int64_t kernels, int64_t copies, const char *skipped) {
    tdb t;
    assert_int_equal(tdb_open(&t, "stream-sql"), 0);
    size_t len;
    unsigned char *bytes = make_db(nsys, -1, -1, &len);
    imp_file f = {"run.sqlite", bytes, len};
    imp_format fmt = nsys ? IMP_NSYS_SQLITE : IMP_NVPROF_SQLITE;
    trace w;
    trace_init(&w);
    char err[512], a[DB_SLUG_SIZE], b[DB_SLUG_SIZE], exp[DB_SLUG_SIZE];
    assert_int_equal(imp_import(fmt, &f, 1, &w, err, sizeof err), 0);
    assert_int_equal(imp_check_trace(&w, f.name, err, sizeof err), 0);
    /* the generated file has what the test is about: rowids out of start
     * order, launches both found and not */
    assert_int_equal((int64_t)w.kernels.n, kernels);
    assert_int_equal((int64_t)w.copies.n, copies);
    size_t noissue = 0;
    for (size_t i = 0; i < w.kernels.n; i++) noissue += w.kernels.v[i].issue == TRACE_NONE;
    assert_true(noissue > 0 && noissue < w.kernels.n / 2);
    if (skipped) assert_string_equal(trace_get_meta(&w, "skipped_records"), skipped);
    tdb_store_whole(t.d, &w, "run.sqlite", a);
    trace_free(&w);
    assert_int_equal(store_import(t.d, &f, 1, imp_format_name(fmt), NULL, NULL, b, exp, err,
                                  sizeof err), 0);
    static const char *const cols[] = {
        "origin", "n_kernels", "n_copies", "t_min", "t_max", "sms",
    };
    tdb_same_runs(t.d, a, b, cols, sizeof cols / sizeof *cols);
    assert_int_equal(tdb_run_int(t.d, b, "n_kernels"), kernels);
    assert_int_equal(tdb_run_int(t.d, b, "n_copies"), copies);
    char sql[400];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM strings s JOIN runs r ON r.id = s.run "
             "WHERE r.slug = '%s'", b);
    int64_t nstr = tdb_scalar(t.d, sql);
    /* the same texts; their ids follow the order they were met in (rowid
     * order whole, start order streamed) */
    assert_true(nstr > 5);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM strings WHERE run = (SELECT id FROM runs "
             "WHERE slug = '%s')", a);
    assert_int_equal(tdb_scalar(t.d, sql), nstr);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM (SELECT text FROM strings WHERE run = "
             "(SELECT id FROM runs WHERE slug = '%s') EXCEPT SELECT text FROM strings WHERE "
             "run = (SELECT id FROM runs WHERE slug = '%s'))", a, b);
    assert_int_equal(tdb_scalar(t.d, sql), 0);
    free(bytes);
    tdb_close(&t);
}

/* 30000 concurrent kernels less 30 without timestamps, plus 50 from KERNEL;
 * 10000 copies and 5000 memsets. */
static void nvprof_stream_equals_whole(void **state) {
    (void)state;
    same_run(false, N - 30 + 50, 15000, "30");
}

static void nsys_stream_equals_whole(void **state) {
    (void)state;
    same_run(true, N, 6000, NULL);
}

/* ---- the importer's batches ------------------------------------------------------ */

typedef struct collect {
    size_t calls, kernels, copies;
    int64_t last_kernel, last_copy;   /* starts never go back within each */
    bool ordered;
} collect;

static int on_batch(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                    size_t errlen) {
    (void)err, (void)errlen;
    collect *c = user;
    assert_int_equal(kernels, c->kernels);
    assert_int_equal(copies, c->copies);
    assert_true(t->kernels.n + t->copies.n <= 4000);
    for (size_t i = 0; i < t->kernels.n; i++) {
        if (t->kernels.v[i].first_block < c->last_kernel) c->ordered = false;
        c->last_kernel = t->kernels.v[i].first_block;
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        if (t->copies.v[i].start < c->last_copy) c->ordered = false;
        c->last_copy = t->copies.v[i].start;
    }
    c->calls++;
    c->kernels += t->kernels.n;
    c->copies += t->copies.n;
    return 0;
}

static void nvprof_batches(void **state) {
    (void)state;
    size_t len;
    unsigned char *bytes = make_db(false, -1, -1, &len);
    imp_file f = {"run.sqlite", bytes, len};
    collect c = {.last_kernel = INT64_MIN, .last_copy = INT64_MIN, .ordered = true};
    imp_stream st = {.batch = on_batch, .user = &c, .rows = 4000};
    trace t;
    imp_stream_file(IMP_NVPROF_SQLITE, &f, &st, &t);
    assert_true(c.ordered);
    /* 30020 kernels and 15000 copies by 4000: the last batch has 1020 */
    assert_int_equal(c.calls, 12);
    assert_int_equal(st.kernels, N - 30 + 50);
    assert_int_equal(st.copies, 15000);
    assert_int_equal(t.kernels.n, 0);
    assert_int_equal(t.copies.n, 0);
    /* the earliest time is a launch found in DRIVER only: kernel 5's
     * (correlation 105) at 1699999970 s + 500 ns; kernel 0 has a RUNTIME
     * row (i mod 7 == 0) and takes that */
    assert_int_equal(t.origin, INT64_C(1699999970000000500));
    /* launches are not in start order: a later batch holds an earlier
     * one than the whole first batch, so the stored rows are shifted at
     * the end (db_run_shift_times) */
    assert_int_equal(st.shift, 7500);
    assert_int_equal(st.base - st.shift, t.origin);
    assert_int_equal(t.device.sms, 68);
    assert_string_equal(trace_get_meta(&t, "skipped_records"), "30");
    trace_free(&t);
    free(bytes);
}

/* ---- a bad row: the whole-file message, nothing stored ---------------------------- */

static void bad_rows(int bad, int bad2, const char *want) {
    tdb t;
    assert_int_equal(tdb_open(&t, "stream-sql-bad"), 0);
    size_t len;
    unsigned char *bytes = make_db(false, bad, bad2, &len);
    imp_file f = {"run.sqlite", bytes, len};
    imp_expect_refused(t.d, IMP_NVPROF_SQLITE, &f, true, want);
    static const char *const tables[] = {"runs", "experiments", "kernels", "strings"};
    tdb_expect_empty(t.d, tables, sizeof tables / sizeof *tables);
    free(bytes);
    tdb_close(&t);
}

/* Row 25000 (rowid 25001) has a text gridX and the earliest start: the
 * first row met by start, one of the last by rowid. */
static void nvprof_bad_row(void **state) {
    (void)state;
    bad_rows(25000, -1, "run.sqlite: table CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: row 25001: "
                        "column \"gridX\": expected an integer, got text");
}

/* Row 100 (rowid 101) starts 5.95 ms in, about row 11900 by start: met
 * after the first batch was stored, which is rolled back. */
static void nvprof_bad_row_later_batch(void **state) {
    (void)state;
    bad_rows(-1, 100, "run.sqlite: table CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: row 101: "
                      "column \"gridX\": expected an integer, got text");
}

/* Both: rowid 25001 is met first by start, but the message names rowid
 * 101, the first by rowid, as the file parsed whole does. */
static void nvprof_bad_rows_named_by_rowid(void **state) {
    (void)state;
    bad_rows(25000, 100, "run.sqlite: table CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: row 101: "
                         "column \"gridX\": expected an integer, got text");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nvprof_stream_equals_whole),
        cmocka_unit_test(nsys_stream_equals_whole),
        cmocka_unit_test(nvprof_batches),
        cmocka_unit_test(nvprof_bad_row),
        cmocka_unit_test(nvprof_bad_row_later_batch),
        cmocka_unit_test(nvprof_bad_rows_named_by_rowid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
