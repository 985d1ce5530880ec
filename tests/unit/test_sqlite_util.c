/* test_sqlite_util.c -- the helpers the two SQLite importers share
 * (importers/sqlite_util.h), each against the source of its rule: the
 * SQLite file format (sqlite.org/fileformat2.html §1.3: the 16-byte magic
 * with its NUL, the page size at offset 16 where 1 means 65536, the size in
 * pages at 28, the read version at 19 that is 2 in WAL mode), CUPTI's
 * CUpti_ActivityMemcpyKind and CUpti_ActivityMemoryKind (cupti_activity.h;
 * Nsight's ENUM_CUDA_MEMCPY_OPER adds 11-13, the unified-memory kinds), and
 * the header's own contracts (which tables count, what a lookup map
 * answers, what a missing column costs). The importers' tests
 * (test_imp_sqlite.c) reach these helpers through whole exports; here each
 * rule is checked on a database built for it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../../importers/sqlite_util.h"
#include "test_imp_util.h"

/* ---- helpers -------------------------------------------------------------- */

/* A database of `sql` opened as the importers open an upload, with the
 * bytes it reads and the buffer its messages go to. */
typedef struct sqldb {
    imp_sql s;
    imp_file f;
    unsigned char *bytes;
    char err[512];
} sqldb;

static void sqldb_open(sqldb *o, const char *sql) {
    size_t len;
    o->bytes = test_sql_bytes(sql, &len);
    o->f = (imp_file){ "t.sqlite", o->bytes, len };
    if (imp_sql_open(&o->s, &o->f, o->err, sizeof o->err) != 0) fail_msg("%s", o->err);
}

static void sqldb_close(sqldb *o) {
    imp_sql_close(&o->s);
    sqlite3_free(o->bytes);
}

/* imp_sql_open's answer for `len` bytes of `d`: 0, or -1 with err. */
static int open_bytes(const unsigned char *d, size_t len, char *err, size_t errlen) {
    imp_file f = { "t.sqlite", d, len };
    imp_sql s;
    int rc = imp_sql_open(&s, &f, err, errlen);
    if (rc == 0) imp_sql_close(&s);
    return rc;
}

/* ---- the file header (fileformat2 §1.3) ---------------------------------- */

static void test_magic(void **state) {
    (void)state;
    /* the magic is 16 bytes: "SQLite format 3" and its NUL */
    const unsigned char good[16] = "SQLite format 3";
    unsigned char other[16];
    memcpy(other, good, 16);
    other[15] = 'X';
    assert_true(imp_sql_is_sqlite(good, 16));
    assert_false(imp_sql_is_sqlite(good, 15));
    assert_false(imp_sql_is_sqlite(other, 16));
    assert_false(imp_sql_is_sqlite(NULL, 16));
}

/* A file shorter than its header says is "cut short", whatever its
 * length beyond the 100-byte header; a page size of 65536 is written 1. */
static void test_cut_short(void **state) {
    (void)state;
    char err[512];
    size_t len;
    unsigned char *d =
        test_sql_bytes("PRAGMA page_size=4096; CREATE TABLE a(x); CREATE TABLE b(y);", &len);
    assert_int_equal(len, 3 * 4096);
    /* 200 bytes: past the header, short of a page */
    assert_int_equal(open_bytes(d, 200, err, sizeof err), -1);
    assert_string_equal(err, "t.sqlite: the SQLite database is cut short: its header says 3 pages "
                             "of 4096 bytes (12288 bytes), the file has 200 (a copy or download "
                             "that did not finish?)");
    sqlite3_free(d);

    d = test_sql_bytes("PRAGMA page_size=65536; CREATE TABLE a(x);", &len);
    assert_int_equal(d[16], 0);
    assert_int_equal(d[17], 1);   /* 65536, as the format writes it */
    assert_int_equal(len, 2 * 65536);
    assert_int_equal(open_bytes(d, 65536 + 100, err, sizeof err), -1);
    assert_string_equal(err, "t.sqlite: the SQLite database is cut short: its header says 2 pages "
                             "of 65536 bytes (131072 bytes), the file has 65636 (a copy or "
                             "download that did not finish?)");
    assert_int_equal(open_bytes(d, len, err, sizeof err), 0);
    sqlite3_free(d);
}

/* WAL mode is the read version (byte 19) at 2 (fileformat2 §1.3.3; SQLite
 * opens the WAL when it is 2, whatever byte 18 says): such a file is read
 * as a rollback-journal database, and so is one whose write version alone
 * is 2. */
static void test_wal_bytes(void **state) {
    (void)state;
    char err[512];
    size_t len;
    unsigned char *d = test_sql_bytes("CREATE TABLE a(x); INSERT INTO a VALUES (1);", &len);
    for (int which = 18; which <= 19; which++) {
        d[18] = d[19] = 1;
        d[which] = 2;
        imp_file f = { "t.sqlite", d, len };
        imp_sql s;
        if (imp_sql_open(&s, &f, err, sizeof err) != 0) fail_msg("byte %d = 2: %s", which, err);
        assert_int_equal(imp_sql_has_table(&s, "a"), 1);
        char v[16];
        assert_int_equal(imp_sql_text1(&s, "a", "SELECT x FROM a", v, sizeof v), 0);
        assert_string_equal(v, "1");
        imp_sql_close(&s);
        assert_int_equal(d[which], 2);   /* the caller's bytes are not written */
    }
    sqlite3_free(d);
}

/* One value may not be longer than 64 MiB (IMP_SQL_MAX_VALUE): a crafted
 * file cannot make SQLite allocate more for it. */
static void test_value_limit(void **state) {
    (void)state;
    char v[8];
    sqldb o;
    sqldb_open(&o, "CREATE TABLE big(v); INSERT INTO big VALUES (zeroblob(64 * 1024 * 1024 + 1));"
                   "CREATE TABLE small(v); INSERT INTO small VALUES (zeroblob(1024));");
    assert_int_equal(imp_sql_text1(&o.s, "small", "SELECT length(v) FROM small", v, sizeof v), 0);
    assert_string_equal(v, "1024");
    assert_int_equal(imp_sql_text1(&o.s, "big", "SELECT v FROM big", v, sizeof v), -1);
    assert_string_equal(o.err, "t.sqlite: table big: cannot be read: string or blob too big");
    sqldb_close(&o);
}

/* ---- schema questions ----------------------------------------------------- */

static void test_tables(void **state) {
    (void)state;
    sqldb o;
    sqldb_open(&o, "CREATE TABLE StringTable(_id_ INTEGER, value TEXT);"
                   "CREATE VIEW Version AS SELECT 12 AS version;"
                   "CREATE VIRTUAL TABLE CUPTI_ACTIVITY_KIND_KERNEL USING fts5(start);");
    /* SQLite's names are case-insensitive: a query of STRINGTABLE reads it */
    assert_int_equal(imp_sql_has_table(&o.s, "StringTable"), 1);
    assert_int_equal(imp_sql_has_table(&o.s, "STRINGTABLE"), 1);
    /* views and virtual tables do not count (sqlite_util.h) */
    assert_int_equal(imp_sql_has_table(&o.s, "Version"), 0);
    assert_int_equal(imp_sql_has_table(&o.s, "CUPTI_ACTIVITY_KIND_KERNEL"), 0);
    assert_int_equal(imp_sql_has_table(&o.s, "nothing"), 0);
    /* every column named, or 0 */
    const char *const both[] = { "_id_", "value", NULL };
    const char *const one_more[] = { "_id_", "name", NULL };
    const char *const first_absent[] = { "name", "value", NULL };
    assert_int_equal(imp_sql_table_has(&o.s, "StringTable", both), 1);
    assert_int_equal(imp_sql_table_has(&o.s, "StringTable", one_more), 0);
    assert_int_equal(imp_sql_table_has(&o.s, "StringTable", first_absent), 0);
    assert_int_equal(imp_sql_table_has(&o.s, "nothing", both), 0);
    sqldb_close(&o);
}

static void test_columns(void **state) {
    (void)state;
    char sel[64];
    sqldb o;
    sqldb_open(&o, "CREATE TABLE K(start INT, gridX INT);");
    /* present: alias."name"; absent: NULL; a placeholder (no name): NULL */
    imp_sql_col cols[] = { { "start", true, false }, { "blockX", false, false },
                           { NULL, false, false }, { "gridX", false, false } };
    strcpy(sel, "x");
    assert_int_equal(imp_sql_columns(&o.s, "K", "k", cols, 4, sel, sizeof sel), 0);
    assert_string_equal(sel, "x, k.\"start\", NULL, NULL, k.\"gridX\"");
    assert_true(cols[0].present && !cols[1].present && !cols[2].present && cols[3].present);
    /* a select list that does not fit */
    char small[16] = "x";
    assert_int_equal(imp_sql_columns(&o.s, "K", "k", cols, 4, small, sizeof small), -1);
    assert_string_equal(o.err, "t.sqlite: table K: query too long");
    /* a required column missing */
    imp_sql_col need[] = { { "end", true, false } };
    sel[0] = '\0';
    assert_int_equal(imp_sql_columns(&o.s, "K", "k", need, 1, sel, sizeof sel), -1);
    assert_string_equal(o.err, "t.sqlite: table K: column \"end\" missing");
    sqldb_close(&o);
}

/* A kernel table without any one of gridX, gridY, gridZ is refused
 * (docs/trace-format.md, "Columns an export lacks"). */
static void test_absent_grid(void **state) {
    (void)state;
    static const char *const axes[3] = { "gridX", "gridY", "gridZ" };
    char err[512];
    imp_sql s = { .file = "t.sqlite", .err = err, .errlen = sizeof err };
    trace t;
    for (int a = 0; a < 3; a++) {
        imp_sql_col cols[3];
        for (int i = 0; i < 3; i++) cols[i] = (imp_sql_col){ axes[i], false, i != a };
        trace_init(&t);
        assert_int_equal(imp_sql_absent_cols(&s, &t, "K", cols, 3), -1);
        char want[256];
        snprintf(want, sizeof want, "t.sqlite: table K: column \"%s\" missing (a kernel's grid "
                 "gives its blocks: without it the run has none to schedule)", axes[a]);
        assert_string_equal(err, want);
        trace_free(&t);
    }
}

/* ---- values --------------------------------------------------------------- */

static void test_ints(void **state) {
    (void)state;
    sqldb o;
    sqldb_open(&o, "CREATE TABLE v(x);"
                   "INSERT INTO v VALUES (3.0), (1.5), (NULL), ('7'), (10), (9), (11);");
    sqlite3_stmt *st;
    assert_int_equal(imp_sql_prepare(&o.s, "v", "SELECT x FROM v ORDER BY rowid", &st), 0);
    int64_t v;
    /* a real with an exact integer value is an integer */
    assert_int_equal(imp_sql_step(&o.s, "v", st), SQLITE_ROW);
    assert_int_equal(imp_sql_int(&o.s, st, 0, "v", 1, "x", &v), 0);
    assert_int_equal(v, 3);
    /* one with a fraction is not */
    assert_int_equal(imp_sql_step(&o.s, "v", st), SQLITE_ROW);
    assert_int_equal(imp_sql_int(&o.s, st, 0, "v", 2, "x", &v), -1);
    assert_string_equal(o.err, "t.sqlite: table v: row 2: column \"x\": expected an integer, got a "
                             "real number");
    /* NULL: 1 from imp_sql_int, an error from imp_sql_int_range */
    assert_int_equal(imp_sql_step(&o.s, "v", st), SQLITE_ROW);
    v = 5;
    assert_int_equal(imp_sql_int(&o.s, st, 0, "v", 3, "x", &v), 1);
    assert_int_equal(v, 0);
    assert_int_equal(imp_sql_int_range(&o.s, st, 0, "v", 3, "x", 0, 10, &v), -1);
    assert_string_equal(o.err,
                        "t.sqlite: table v: row 3: column \"x\": expected an integer, got NULL");
    assert_int_equal(imp_sql_step(&o.s, "v", st), SQLITE_ROW);
    assert_int_equal(imp_sql_int(&o.s, st, 0, "v", 4, "x", &v), -1);
    assert_string_equal(o.err,
                        "t.sqlite: table v: row 4: column \"x\": expected an integer, got text");
    /* [lo, hi] holds both ends */
    assert_int_equal(imp_sql_step(&o.s, "v", st), SQLITE_ROW);
    assert_int_equal(imp_sql_int_range(&o.s, st, 0, "v", 5, "x", 0, 10, &v), 0);
    assert_int_equal(v, 10);
    assert_int_equal(imp_sql_step(&o.s, "v", st), SQLITE_ROW);
    assert_int_equal(imp_sql_int_range(&o.s, st, 0, "v", 6, "x", 9, 10, &v), 0);
    assert_int_equal(v, 9);
    assert_int_equal(imp_sql_int_range(&o.s, st, 0, "v", 6, "x", 10, 20, &v), -1);
    assert_string_equal(o.err,
                        "t.sqlite: table v: row 6: column \"x\": 9 is out of range [10, 20]");
    assert_int_equal(imp_sql_step(&o.s, "v", st), SQLITE_ROW);
    assert_int_equal(imp_sql_int_range(&o.s, st, 0, "v", 7, "x", 0, 10, &v), -1);
    assert_string_equal(o.err,
                        "t.sqlite: table v: row 7: column \"x\": 11 is out of range [0, 10]");
    assert_int_equal(imp_sql_step(&o.s, "v", st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqldb_close(&o);
}

/* ---- CUPTI's enums -------------------------------------------------------- */

static void test_copy_direction(void **state) {
    (void)state;
    /* CUpti_ActivityMemcpyKind: 1 HTOD, 2 DTOH, 3 HTOA, 4 ATOH, 5 ATOA,
     * 6 ATOD, 7 DTOA, 8 DTOD, 9 HTOH, 10 PTOP; Nsight's 11-13 the unified
     * kinds. Arrays are device memory. The memory kinds do not override a
     * known copy kind. */
    static const struct { int64_t kind; int dir; } by_kind[] = {
        { 1, TRACE_COPY_H2D }, { 2, TRACE_COPY_D2H }, { 3, TRACE_COPY_H2D },
        { 4, TRACE_COPY_D2H }, { 5, TRACE_COPY_D2D }, { 6, TRACE_COPY_D2D },
        { 7, TRACE_COPY_D2D }, { 8, TRACE_COPY_D2D }, { 9, TRACE_COPY_H2H },
        { 10, TRACE_COPY_P2P }, { 11, TRACE_COPY_UVM_H2D }, { 12, TRACE_COPY_UVM_D2H },
        { 13, TRACE_COPY_UVM_D2D },
    };
    for (size_t i = 0; i < sizeof by_kind / sizeof *by_kind; i++)
        assert_int_equal(imp_sql_copy_direction(by_kind[i].kind, IMP_SQL_MEM_UNKNOWN,
                                                IMP_SQL_MEM_UNKNOWN), by_kind[i].dir);
    /* copy kind 0 (unknown): from CUpti_ActivityMemoryKind, host = pageable
     * or pinned, device = device, array or device-static */
    enum { U = IMP_SQL_MEM_UNKNOWN, PG = IMP_SQL_MEM_PAGEABLE, PN = IMP_SQL_MEM_PINNED,
           DV = IMP_SQL_MEM_DEVICE, AR = IMP_SQL_MEM_ARRAY, MG = IMP_SQL_MEM_MANAGED,
           DS = IMP_SQL_MEM_DEVICE_STATIC };
    static const struct { int src, dst, dir; } by_mem[] = {
        { PG, DV, TRACE_COPY_H2D }, { PN, AR, TRACE_COPY_H2D }, { PN, DS, TRACE_COPY_H2D },
        { DV, PG, TRACE_COPY_D2H }, { AR, PN, TRACE_COPY_D2H }, { DS, PG, TRACE_COPY_D2H },
        { DV, DV, TRACE_COPY_D2D }, { AR, DS, TRACE_COPY_D2D }, { DS, AR, TRACE_COPY_D2D },
        { PG, PN, TRACE_COPY_H2H }, { PN, PN, TRACE_COPY_H2H },
        { MG, DV, TRACE_COPY_OTHER }, { U, DV, TRACE_COPY_OTHER }, { PG, U, TRACE_COPY_OTHER },
    };
    for (size_t i = 0; i < sizeof by_mem / sizeof *by_mem; i++)
        assert_int_equal(imp_sql_copy_direction(0, by_mem[i].src, by_mem[i].dst), by_mem[i].dir);
    assert_int_equal(imp_sql_copy_direction(1, DV, PG), TRACE_COPY_H2D);
}

/* nvprof's CSV spelling of each copy kind (profiler-trace-formats.md §1) */
static void test_copy_name(void **state) {
    (void)state;
    assert_string_equal(imp_sql_copy_name(0), "[CUDA memcpy Unknown]");
    assert_string_equal(imp_sql_copy_name(1), "[CUDA memcpy HtoD]");
    assert_string_equal(imp_sql_copy_name(8), "[CUDA memcpy DtoD]");
    assert_string_equal(imp_sql_copy_name(9), "[CUDA memcpy HtoH]");
    assert_string_equal(imp_sql_copy_name(10), "[CUDA memcpy PtoP]");
    assert_string_equal(imp_sql_copy_name(11), "[Unified Memory Memcpy HtoD]");
    assert_string_equal(imp_sql_copy_name(13), "[Unified Memory Memcpy DtoD]");
    assert_string_equal(imp_sql_copy_name(14), "[CUDA memcpy Unknown]");
    assert_string_equal(imp_sql_copy_name(-1), "[CUDA memcpy Unknown]");
}

/* ---- lookup maps ---------------------------------------------------------- */

static void test_map(void **state) {
    (void)state;
    sqldb o;
    /* rows in order but the last; one with a text key, left out */
    sqldb_open(&o, "CREATE TABLE m(a, b, c, v);"
                   "INSERT INTO m VALUES (5, 0, 0, 20), (5, 0, 0, 21), (6, 0, 0, 30),"
                   " (7, 'x', 0, 1), (8, 0, 0, 40), (1, 0, 0, 10);");
    imp_sql_map m = { 0 };
    assert_int_equal(imp_sql_map_load(&o.s, &m, "m", "SELECT a, b, c, v FROM m ORDER BY rowid"), 0);
    assert_int_equal(m.n, 5);
    imp_sql_map_sort(&m);
    int64_t v, k[1];
    k[0] = 1;
    assert_true(imp_sql_map_find(&m, k, 1, &v));   /* the row that came last */
    assert_int_equal(v, 10);
    k[0] = 7;
    assert_false(imp_sql_map_find(&m, k, 1, &v));
    /* the smallest v among equal keys, asked twice (the second time the
     * hint stands on the second of the two) */
    k[0] = 5;
    assert_true(imp_sql_map_find(&m, k, 1, &v));
    assert_int_equal(v, 20);
    assert_true(imp_sql_map_find(&m, k, 1, &v));
    assert_int_equal(v, 20);
    k[0] = 8;
    assert_true(imp_sql_map_find(&m, k, 1, &v));
    assert_int_equal(v, 40);
    imp_sql_map_free(&m);
    assert_null(m.v);
    sqldb_close(&o);
}

/* The streaming import's launch-time table keeps what the map keeps: a
 * row whose key is not an integer is left out, even text that the table's
 * INTEGER column would turn into one. */
static void test_api_temp(void **state) {
    (void)state;
    sqldb o;
    sqldb_open(&o, "CREATE TABLE r(corr, pid, part, t);"
                   "INSERT INTO r VALUES ('1', 2, 3, 5), (1, '2', 3, 6), (1, 2, '3', 4),"
                   " (1, 2, 3, 7);");
    sqlite3_stmt *q;
    assert_int_equal(imp_sql_api_index(&o.s, &q), 0);
    assert_null(q);   /* no table yet */
    assert_int_equal(imp_sql_api_temp(&o.s, "r", "SELECT corr, pid, part, t FROM r"), 0);
    assert_int_equal(imp_sql_api_index(&o.s, &q), 0);
    assert_non_null(q);
    sqlite3_bind_int64(q, 1, 1);
    sqlite3_bind_int64(q, 2, 2);
    sqlite3_bind_int64(q, 3, 3);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int64(q, 0), 7);
    sqlite3_finalize(q);
    sqldb_close(&o);
}

/* The device most records ran on; the smaller ordinal on a tie; the
 * copies' only when no kernel named one. */
static void test_main_device(void **state) {
    (void)state;
    imp_sql_src src = { 0 };
    int64_t id = -1;
    assert_int_equal(imp_sql_main_device(&src, &id), 0);
    src.copy_devs.used = true;
    src.copy_devs.n[3] = 9;
    assert_int_equal(imp_sql_main_device(&src, &id), 1);
    assert_int_equal(id, 3);
    src.kernel_devs.used = true;
    src.kernel_devs.n[1] = 4;
    src.kernel_devs.n[2] = 4;
    assert_int_equal(imp_sql_main_device(&src, &id), 1);
    assert_int_equal(id, 1);
}

/* ---- detection ------------------------------------------------------------ */

static int kind_of(const char *sql) {
    size_t len;
    unsigned char *d = test_sql_bytes(sql, &len);
    int k = imp_sqlite_kind(d, len);
    sqlite3_free(d);
    return k;
}

/* profiler-trace-formats.md §6: Version and StringTable make nvprof;
 * StringIds and any of META_DATA_EXPORT, EXPORT_META_DATA (the older
 * exports' name) or CUPTI_ACTIVITY_KIND_KERNEL make Nsight Systems. */
static void test_kind(void **state) {
    (void)state;
    assert_int_equal(kind_of("CREATE TABLE Version(v); CREATE TABLE StringTable(s);"),
                     IMP_NVPROF_SQLITE);
    assert_int_equal(kind_of("CREATE TABLE StringTable(s);"), IMP_UNKNOWN);
    assert_int_equal(kind_of("CREATE TABLE StringIds(s); CREATE TABLE META_DATA_EXPORT(m);"),
                     IMP_NSYS_SQLITE);
    assert_int_equal(kind_of("CREATE TABLE StringIds(s); CREATE TABLE EXPORT_META_DATA(m);"),
                     IMP_NSYS_SQLITE);
    assert_int_equal(kind_of("CREATE TABLE StringIds(s);"
                             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(k);"), IMP_NSYS_SQLITE);
    assert_int_equal(kind_of("CREATE TABLE StringIds(s);"), IMP_UNKNOWN);
}

/* Why no format took an SQLite file: a WAL file whose tables are all in
 * its -wal file, or a database of other tables, with a WAL note when it
 * was last written so. */
static void test_unknown(void **state) {
    (void)state;
    char err[1024];
    size_t len;
    unsigned char *d = test_sql_bytes("CREATE TABLE a(x); DROP TABLE a;", &len);
    imp_file f = { "t.sqlite", d, len };
    assert_int_equal(imp_sqlite_unknown(&f, err, sizeof err), -1);
    assert_string_equal(err, "t.sqlite: an SQLite database of 0 tables that is neither an nvprof "
                             "export (tables Version, StringTable) nor an Nsight Systems export "
                             "(StringIds and META_DATA_EXPORT or EXPORT_META_DATA)");
    d[18] = d[19] = 2;
    assert_int_equal(imp_sqlite_unknown(&f, err, sizeof err), -1);
    assert_string_equal(err, "t.sqlite: an SQLite database last written in WAL mode with no table "
                             "in the file itself: its tables are still in its -wal file, which was "
                             "not imported; checkpoint it beside its -wal file (sqlite3 FILE "
                             "'PRAGMA wal_checkpoint(TRUNCATE)') and import it again");
    sqlite3_free(d);
    d = test_sql_bytes("CREATE TABLE a(x);", &len);
    d[18] = d[19] = 2;
    f = (imp_file){ "t.sqlite", d, len };
    assert_int_equal(imp_sqlite_unknown(&f, err, sizeof err), -1);
    assert_string_equal(err, "t.sqlite: an SQLite database of 1 table that is neither an nvprof "
                             "export (tables Version, StringTable) nor an Nsight Systems export "
                             "(StringIds and META_DATA_EXPORT or EXPORT_META_DATA); it was last "
                             "written in WAL mode, so tables still in its -wal file are missing: "
                             "checkpoint it (sqlite3 FILE 'PRAGMA wal_checkpoint(TRUNCATE)') and "
                             "import it again");
    sqlite3_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_magic),
        cmocka_unit_test(test_cut_short),
        cmocka_unit_test(test_wal_bytes),
        cmocka_unit_test(test_value_limit),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_absent_grid),
        cmocka_unit_test(test_ints),
        cmocka_unit_test(test_copy_direction),
        cmocka_unit_test(test_copy_name),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_api_temp),
        cmocka_unit_test(test_main_device),
        cmocka_unit_test(test_kind),
        cmocka_unit_test(test_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
