/* test_imp_stream_gt.c -- a globaltimer CSV (block traces) imported in
 * bounded memory (issue 9): the importer reads the file twice (kernel
 * summaries, then blocks) and hands the kernels over first and the blocks
 * in batches (importers.h imp_stream), which the store writes into the
 * block pages as they come (server/app/store.c, db_run_add_blocks). The run is
 * the one the file parsed whole and stored with db_store_run gives: the
 * same export byte for byte, the same summary and pyramid, also when the
 * earliest block is near the end of the file. Bad files get the whole-file
 * message (duplicates named by kernel, then block index, as before) and
 * leave nothing stored. */
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

#define KERNELS 300
#define BLOCKS 100
#define ROWS (KERNELS * BLOCKS)      /* 30000: four of the store's 8192-row batches */
#define T0 INT64_C(1000000000000)

/* Row r (line r + 3) is block r / KERNELS of kernel r % KERNELS: every
 * kernel's blocks are spread over the whole file. Kernel 5 has a mangled
 * label. A change: row `row` gets block index `block` (>= 0) and/or start
 * and end texts (non-NULL). */
typedef struct change {
    int row, block;
    const char *start, *end;
} change;

static char *make_gt(const change *ch, size_t nch, int earliest, size_t *len) {
    size_t cap = (size_t)ROWS * 64 + 256, n = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    n += (size_t)snprintf(s + n, cap - n, "# generated\nkernel,block,sm,start_ns,end_ns,stream,threads\n");
    for (int r = 0; r < ROWS; r++) {
        int k = r % KERNELS, b = r / KERNELS;
        int64_t start = T0 + (int64_t)k * 1000 + b * 10;
        if (r == earliest) start = T0 - 7;
        char st[40];
        snprintf(st, sizeof st, "%lld", (long long)start);
        char en[40];
        snprintf(en, sizeof en, "%lld", (long long)(start + 100 + (r % 13) * 10));
        const char *stt = st, *ent = en;
        for (size_t i = 0; i < nch; i++)
            if (ch[i].row == r) {
                if (ch[i].block >= 0) b = ch[i].block;
                if (ch[i].start) stt = ch[i].start;
                if (ch[i].end) ent = ch[i].end;
            }
        char label[32];
        if (k == 5) snprintf(label, sizeof label, "_Z6scalePfi");
        else snprintf(label, sizeof label, "K%d", k);
        assert_true(cap - n > 128);
        n += (size_t)snprintf(s + n, cap - n, "%s,%d,%d,%s,%s,s%d,128\n", label, b, r % 80, stt,
                              ent, k % 3);
    }
    *len = n;
    return s;
}

/* `table` with its run in column `run`: kernels' rows are a range of each
 * run's (db/row_ranges.h), given their run and id here */
static const char *rows_src(const char *table) {
    return strcmp(table, "kernels") ? table
                                    : "(SELECT r.id AS run, k.rowid - r.kernel_base AS id, k.* "
                                      "FROM kernels k JOIN runs r ON k.rowid BETWEEN "
                                      "r.kernel_base AND r.kernel_base + r.n_kernels - 1)";
}

/* Rows of `table` (its run in column `run`) that the two runs do not
 * share, every other column compared. */
static int64_t differing(db *d, const char *table, const char *a, const char *b) {
    char sql[4096], cols[1024];
    snprintf(sql, sizeof sql, "SELECT group_concat('\"' || name || '\"') FROM "
             "pragma_table_info('%s') WHERE name <> 'run'", table);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(cols, sizeof cols, "%s%s", strcmp(table, "kernels") ? "" : "id,",
             (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT %s FROM %s WHERE run = (SELECT id FROM runs WHERE "
             "slug = '%s') EXCEPT SELECT %s FROM %s WHERE run = (SELECT id FROM runs WHERE "
             "slug = '%s'))", cols, rows_src(table), a, cols, rows_src(table), b);
    return tdb_scalar(d, sql);
}

static int64_t rows_of(db *d, const char *table, const char *run) {
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE run = (SELECT id FROM runs WHERE "
             "slug = '%s')", rows_src(table), run);
    return tdb_scalar(d, sql);
}

static void same_run(int earliest, int64_t origin) {
    tdb t;
    assert_int_equal(tdb_open(&t, "stream-gt"), 0);
    size_t len;
    char *csv = make_gt(NULL, 0, earliest, &len);
    imp_file f = {"run.csv", (const unsigned char *)csv, len};
    char a[DB_SLUG_SIZE], b[DB_SLUG_SIZE], exp[DB_SLUG_SIZE], err[512];
    imp_store_whole(t.d, IMP_GLOBALTIMER_CSV, &f, a);
    assert_int_equal(store_import(t.d, &f, 1, "globaltimer-csv", NULL, NULL, b, exp, err,
                                  sizeof err), 0);
    static const char *const cols[] = {
        "origin", "n_kernels", "n_blocks", "t_min", "t_max", "sms", "max_block_dur",
    };
    tdb_same_runs(t.d, a, b, cols, sizeof cols / sizeof *cols);
    assert_int_equal(tdb_run_int(t.d, b, "origin"), origin);
    assert_int_equal(tdb_run_int(t.d, b, "n_kernels"), KERNELS);
    assert_int_equal(tdb_run_int(t.d, b, "n_blocks"), ROWS);
    /* the block pages, the occupancy pyramid and the kernel cells: the same
     * rows (the streamed run's pyramid is built from the stored blocks) */
    static const char *const tables[] = {
        "block_pages", "block_spans", "pyramids", "pyramid_tiles", "kernel_tiles",
        "kernel_pyramids", "strings", "kernels",
    };
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        assert_true(rows_of(t.d, tables[i], b) > 0);
        assert_int_equal(rows_of(t.d, tables[i], a), rows_of(t.d, tables[i], b));
        assert_int_equal(differing(t.d, tables[i], a, b), 0);
    }
    /* kernel 7: first block at row 7 (T0 + 7 us), re-based; last block
     * (index 99) starts 990 ns later */
    char sql[320];
    snprintf(sql, sizeof sql, "SELECT first_block || ',' || fully_dispatched || ',' || blocks "
             "FROM kernels k JOIN runs r ON k.rowid = r.kernel_base + 7 WHERE r.slug = '%s'", b);
    char want[96];
    snprintf(want, sizeof want, "%lld,%lld,100", (long long)(T0 + 7000 - origin),
             (long long)(T0 + 7990 - origin));
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(t.d), sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), want);
    sqlite3_finalize(st);
    free(csv);
    tdb_close(&t);
}

static void stream_equals_whole(void **state) {
    (void)state;
    same_run(-1, T0);
}

/* Row 25000 (kernel 100's block 83, in the fourth batch of blocks) is the
 * earliest: the first pass finds it, so nothing stored is shifted. */
static void earliest_block_late(void **state) {
    (void)state;
    same_run(25000, T0 - 7);
}

/* ---- the importer's batches ------------------------------------------------------ */

typedef struct collect {
    size_t calls, kernels, blocks, max_blocks;
    size_t first_kernels, first_blocks;
    int64_t min_start;
} collect;

static int on_batch(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                    size_t errlen) {
    (void)err, (void)errlen;
    collect *c = user;
    assert_int_equal(kernels, c->kernels);
    assert_int_equal(copies, 0);
    if (c->calls == 0) {
        c->first_kernels = t->kernels.n;
        c->first_blocks = t->blocks.n;
    } else {
        assert_int_equal(t->kernels.n, 0);   /* every kernel came first */
    }
    for (size_t i = 0; i < t->blocks.n; i++) {
        assert_true(t->blocks.v[i].kernel >= 0 && t->blocks.v[i].kernel < KERNELS);
        if (t->blocks.v[i].start < c->min_start) c->min_start = t->blocks.v[i].start;
    }
    if (t->blocks.n > c->max_blocks) c->max_blocks = t->blocks.n;
    c->calls++;
    c->kernels += t->kernels.n;
    c->blocks += t->blocks.n;
    return 0;
}

/* The kernels in the first batch, then the blocks at most `rows` at a time,
 * already relative to the origin: base is the origin, shift 0. */
static void batches(void **state) {
    (void)state;
    size_t len;
    char *csv = make_gt(NULL, 0, 25000, &len);
    imp_file f = {"run.csv", (const unsigned char *)csv, len};
    collect c = {.min_start = INT64_MAX};
    imp_stream st = {.batch = on_batch, .user = &c, .rows = 4000};
    trace t;
    imp_stream_file(IMP_GLOBALTIMER_CSV, &f, &st, &t);
    assert_int_equal(c.first_kernels, KERNELS);
    assert_int_equal(c.first_blocks, 0);
    assert_int_equal(c.calls, 1 + 8);         /* 30000 blocks by 4000 */
    assert_int_equal(c.max_blocks, 4000);
    assert_int_equal(c.blocks, ROWS);
    assert_int_equal(st.blocks, ROWS);
    assert_int_equal(st.kernels, KERNELS);
    assert_int_equal(c.min_start, 0);         /* row 25000, re-based */
    assert_int_equal(t.kernels.n, 0);
    assert_int_equal(t.blocks.n, 0);
    assert_int_equal(st.base, T0 - 7);
    assert_int_equal(st.shift, 0);
    assert_int_equal(t.origin, T0 - 7);
    assert_true(st.range_ok);
    assert_string_equal(trace_get_meta(&t, "origin_ns"), "999999999993");
    trace_free(&t);
    free(csv);
}

/* ---- bad files: the whole-file message, nothing stored ------------------------------ */

static void bad_file(const change *ch, size_t nch, const char *want) {
    tdb t;
    assert_int_equal(tdb_open(&t, "stream-gt-bad"), 0);
    size_t len;
    char *csv = make_gt(ch, nch, -1, &len);
    imp_file f = {"run.csv", (const unsigned char *)csv, len};
    imp_expect_refused(t.d, IMP_GLOBALTIMER_CSV, &f, false, want);
    static const char *const tables[] = {"runs", "experiments", "kernels", "block_pages",
                                         "strings"};
    tdb_expect_empty(t.d, tables, sizeof tables / sizeof *tables);
    free(csv);
    tdb_close(&t);
}

/* Three duplicates: kernel 200's block 3 (second at line 9203), kernel
 * 50's block 7 (line 19853) and block 4 (line 24953). The message names the
 * first by kernel, then block index, as the whole-file check does: kernel
 * 50 block 4, first seen at row 4 * 300 + 50 (line 1253). */
static void duplicate_blocks(void **state) {
    (void)state;
    const change ch[] = {{9200, 3, NULL, NULL}, {19850, 7, NULL, NULL}, {24950, 4, NULL, NULL}};
    bad_file(ch, 3, "run.csv:24953: kernel \"K50\" block 4 appears twice (first at line 1253)");
}

/* A bad number in the fourth batch of blocks' part of the file. */
static void bad_number(void **state) {
    (void)state;
    const change ch[] = {{25000, -1, "12x", NULL}};
    bad_file(ch, 1, "run.csv:25003: column \"start_ns\": expected an integer in [0, "
                    "9223372036854775807], got \"12x\"");
}

/* Kernel 0's block 50 starts 2^62 ns after the origin: the range check of
 * issue 16 names the kernel's latest start as it did for the whole file. */
static void time_out_of_range(void **state) {
    (void)state;
    const change ch[] = {{15000, -1, "4611687018427387904", "4611687018427387999"}};
    bad_file(ch, 1, "run.csv: kernels[0].fully_dispatched: 4611686018427387904 ns is out of "
                    "range (times must be within +-2^62 ns of the trace's origin)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stream_equals_whole),
        cmocka_unit_test(earliest_block_late),
        cmocka_unit_test(batches),
        cmocka_unit_test(duplicate_blocks),
        cmocka_unit_test(bad_number),
        cmocka_unit_test(time_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
