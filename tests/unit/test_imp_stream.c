/* test_imp_stream.c -- streaming imports (issue 9): an nvprof CSV handed
 * over in batches while it is read (importers.h imp_stream) and stored
 * batch by batch (server/app/store.c, db_run_add_kernels/_copies) gives the
 * same run as the file parsed whole and stored with db_store_run: the same
 * export, byte for byte, the same summary, the same string ids. Also when a
 * later row is earlier than the whole first batch (the origin found late,
 * the stored rows shifted), when a row of a later batch is bad (the
 * importer's message, nothing stored), when a time is out of range in a
 * batch or only over the whole file (the whole-file message of issue 16,
 * nothing stored), when the work is cancelled (the store thread stops,
 * nothing stored) and with --experiment. Files are generated here, with
 * many batches. */
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

/* ---- generated nvprof --print-gpu-trace --csv logs ------------------------------ */

#define ROWS 20000           /* 3 batches of the store's 8192 rows */

typedef struct gen {
    char *s;
    size_t len, cap;
} gen;

static void put(gen *g, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        size_t room = g->cap - g->len;
        va_start(ap, fmt);
        int n = vsnprintf(g->s ? g->s + g->len : NULL, g->s ? room : 0, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (g->s && (size_t)n < room) {
            g->len += (size_t)n;
            return;
        }
        g->cap = (g->cap + (size_t)n + 1) * 2;
        g->s = realloc(g->s, g->cap);
        assert_non_null(g->s);
    }
}

/* Row i starts at 1 s + 10 us * i: every third a copy, the rest kernels of
 * four names (one mangled, one with a comma) on two streams. early >= 0:
 * that row starts at 0.5 s, before every row of the first batch. bad >= 0:
 * that row's Duration is "abc". huge >= 0: that kernel starts at 5e9 s,
 * 2^62 ns past the others. apart: rows 9001 and 12001 start at -4e9 s and
 * +4e9 s, each within 2^62 ns of the first batch's times but 8e18 ns
 * apart. */
static char *make_csv_apart(int early, int bad, int huge, bool apart, size_t *len) {
    gen g = {0};
    put(&g, "==7== NVPROF is profiling process 7, command: ./app\n"
            "==7== Profiling application: ./app\n"
            "==7== Profiling result:\n"
            "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\","
            "\"Block Z\",\"Registers Per Thread\",\"Static SMem\",\"Dynamic SMem\",\"Size\","
            "\"Throughput\",\"Device\",\"Context\",\"Stream\",\"Name\"\n"
            "s,us,,,,,,,,KB,B,KB,MB/s,,,,\n");
    static const char *const names[] = {
        "_Z9vectorAddPKfS0_Pfi", "void gemm<float, 128>(float*, int)", "reduce_kernel",
        "_Z6scalePfi",
    };
    for (int i = 0; i < ROWS; i++) {
        char start[32], dur[32];
        if (i == early) snprintf(start, sizeof start, "0.500000");
        else if (apart && i == 9001) snprintf(start, sizeof start, "-4000000000.000000");
        else if (apart && i == 12001) snprintf(start, sizeof start, "4000000000.000000");
        else if (i == huge) snprintf(start, sizeof start, "5000000000.000000");
        else snprintf(start, sizeof start, "%d.%06d", 1 + i / 100000, (i % 100000) * 10);
        if (i == bad) snprintf(dur, sizeof dur, "abc");
        else snprintf(dur, sizeof dur, "%d.%03d", 3 + i % 7, (i * 37) % 1000);
        if (i % 3 == 0)
            put(&g, "%s,%s,,,,,,,,,,%d.000000,75.8,\"GeForce GTX 1080 Ti (0)\",\"1\",\"7\","
                    "\"[CUDA memcpy %s]\"\n", start, dur, 1 + i % 64, i % 2 ? "HtoD" : "DtoH");
        else
            put(&g, "%s,%s,%d,1,1,128,1,1,%d,0.500000,0,,,\"GeForce GTX 1080 Ti (0)\",\"1\","
                    "\"%d\",\"%s\"\n", start, dur, 1 + i % 40, 16 + i % 3 * 8, 13 + i % 2,
                names[i % 4]);
    }
    *len = g.len;
    return g.s;
}

static char *make_csv(int early, int bad, int huge, size_t *len) {
    return make_csv_apart(early, bad, huge, false, len);
}

/* The CSV line of row i: five lines before the first row. */
#define LINE_OF(i) ((i) + 6)
/* Rows 3j are copies, 3j+1 and 3j+2 kernels 2j and 2j+1. */
#define ROW_OF_KERNEL(k) (3 * ((k) / 2) + 1 + (k) % 2)
#define START_NS(row) (1000000000 + (int64_t)(row) * 10000)

/* ---- the two ways of storing a file ---------------------------------------------- */

/* As before issue 9: parsed whole, checked, stored with db_store_run
 * (imp_store_whole, test_imp_util.h); streamed with store_import. */

/* Stream and whole store of the same file give the same run. */
static void same_run(int early, int64_t origin) {
    tdb t;
    assert_int_equal(tdb_open(&t, "stream"), 0);
    size_t len;
    char *csv = make_csv(early, -1, -1, &len);
    imp_file f = {"run.csv", (const unsigned char *)csv, len};
    char a[DB_SLUG_SIZE], b[DB_SLUG_SIZE], exp[DB_SLUG_SIZE], err[512];
    imp_store_whole(t.d, IMP_NVPROF_CSV, &f, a);
    assert_int_equal(store_import(t.d, &f, 1, "nvprof-csv", NULL, NULL, b, exp, err, sizeof err),
                     0);
    static const char *const cols[] = {
        "origin", "n_kernels", "n_copies", "n_blocks", "t_min", "t_max", "sms", "max_block_dur",
    };
    tdb_same_runs(t.d, a, b, cols, sizeof cols / sizeof *cols);
    /* row 0 is a copy at 1 s; rows 1, 2, 4, 5 ... kernels: 13333 of them */
    assert_int_equal(tdb_run_int(t.d, b, "origin"), origin);
    assert_int_equal(tdb_run_int(t.d, b, "n_kernels"), 13333);
    assert_int_equal(tdb_run_int(t.d, b, "n_copies"), 6667);
    /* kernel 7 is row 11, 1 s + 110 us; kernel 5461 is row 8192, the
     * first of the second batch, 1 s + 81.92 ms; both re-based */
    assert_int_equal(ROW_OF_KERNEL(7), 11);
    assert_int_equal(ROW_OF_KERNEL(5461), 8192);
    char sql[320];
    snprintf(sql, sizeof sql, "SELECT first_block FROM kernels k JOIN runs r "
             "ON k.rowid = r.kernel_base + %d WHERE r.slug = '%s'", 7, b);
    assert_int_equal(tdb_scalar(t.d, sql), 1000110000 - origin);
    snprintf(sql, sizeof sql, "SELECT first_block FROM kernels k JOIN runs r "
             "ON k.rowid = r.kernel_base + %d WHERE r.slug = '%s'", 5461, b);
    assert_int_equal(tdb_scalar(t.d, sql), 1081920000 - origin);
    /* the same string table: ids and texts */
    snprintf(sql, sizeof sql, "SELECT count(*) FROM strings s JOIN runs r ON r.id = s.run "
             "WHERE r.slug = '%s'", b);
    int64_t nstr = tdb_scalar(t.d, sql);
    /* 4 kernel names, 2 raw (mangled) names, streams 13, 14 and 7, the
     * process dev0:ctx1, 2 copy names */
    assert_int_equal(nstr, 12);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM strings x JOIN strings y ON x.id = y.id AND "
             "x.text = y.text WHERE x.run = (SELECT id FROM runs WHERE slug = '%s') AND "
             "y.run = (SELECT id FROM runs WHERE slug = '%s')", a, b);
    assert_int_equal(tdb_scalar(t.d, sql), nstr);
    free(csv);
    tdb_close(&t);
}

static void stream_equals_whole(void **state) {
    (void)state;
    same_run(-1, 1000000000);
}

/* Row 10000 (in the second batch) is the earliest: the stored rows are
 * shifted by 0.5 s at the end. */
static void stream_late_origin(void **state) {
    (void)state;
    same_run(10000, 500000000);
}

/* ---- the importer's batches ------------------------------------------------------ */

typedef struct collect {
    size_t calls, max_rows, kernels, copies;
    int64_t first_kernel_start[8];   /* of the first kernel of each batch */
    char source[32], name[32];       /* the trace's, as the first batch sees them */
} collect;

static int on_batch(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                    size_t errlen) {
    (void)err, (void)errlen;
    collect *c = user;
    assert_int_equal(kernels, c->kernels);
    assert_int_equal(copies, c->copies);
    size_t n = t->kernels.n + t->copies.n;
    if (n > c->max_rows) c->max_rows = n;
    if (c->calls < 8 && t->kernels.n) c->first_kernel_start[c->calls] = t->kernels.v[0].first_block;
    if (c->calls == 0) {
        snprintf(c->source, sizeof c->source, "%s", t->source ? t->source : "(none)");
        snprintf(c->name, sizeof c->name, "%s", t->name ? t->name : "(none)");
    }
    c->calls++;
    c->kernels += t->kernels.n;
    c->copies += t->copies.n;
    return 0;
}

/* Batches of at most `rows`, numbered on; times relative to the first
 * batch's earliest; the origin and shift at the end. */
static void batches(void **state) {
    (void)state;
    size_t len;
    char *csv = make_csv(10000, -1, -1, &len);
    imp_file f = {"profiles/run.csv", (const unsigned char *)csv, len};
    collect c = {0};
    imp_stream st = {.batch = on_batch, .user = &c, .rows = 3000};
    trace t;
    imp_stream_file(IMP_NVPROF_CSV, &f, &st, &t);
    assert_int_equal(c.calls, 7);             /* 20000 rows by 3000 */
    assert_int_equal(c.max_rows, 3000);
    /* the receiver of the first batch (the store, which names the run
     * then) sees the name and source the trace ends with (importers.c) */
    assert_string_equal(c.source, "nvprof-csv");
    assert_string_equal(c.name, "run.csv");
    assert_string_equal(t.source, "nvprof-csv");
    assert_string_equal(t.name, "run.csv");
    assert_int_equal(c.kernels, 13333);
    assert_int_equal(c.copies, 6667);
    assert_int_equal(st.kernels, 13333);
    assert_int_equal(st.copies, 6667);
    assert_int_equal(t.kernels.n, 0);          /* nothing left behind */
    assert_int_equal(t.copies.n, 0);
    assert_int_equal(st.base, 1000000000);     /* row 0, the first batch's earliest */
    assert_int_equal(t.origin, 500000000);     /* row 10000 */
    assert_int_equal(st.shift, 500000000);
    assert_true(st.range_ok);
    assert_string_equal(trace_get_meta(&t, "origin_ns"), "500000000");
    /* kernel 0 is row 1 (1 s + 10 us); batch 2 starts at row 6000, a copy,
     * then kernel 4000, row 6001 */
    assert_int_equal(c.first_kernel_start[0], START_NS(ROW_OF_KERNEL(0)) - 1000000000);
    assert_int_equal(ROW_OF_KERNEL(4000), 6001);
    assert_int_equal(c.first_kernel_start[2], START_NS(6001) - 1000000000);
    trace_free(&t);
    free(csv);
}

/* ---- bad files: the old messages, nothing stored ------------------------------------ */

/* The tables a bad file must leave empty. */
static void expect_nothing_stored(db *d) {
    static const char *const tables[] = {"runs", "experiments", "kernels", "copies", "strings"};
    tdb_expect_empty(d, tables, sizeof tables / sizeof *tables);
}

static void bad_file(int bad, int huge, bool apart, const char *want) {
    tdb t;
    assert_int_equal(tdb_open(&t, "stream-bad"), 0);
    size_t len;
    char *csv = make_csv_apart(-1, bad, huge, apart, &len);
    imp_file f = {"run.csv", (const unsigned char *)csv, len};
    /* the message the file gets parsed whole, streamed */
    imp_expect_refused(t.d, IMP_NVPROF_CSV, &f, false, want);
    expect_nothing_stored(t.d);
    free(csv);
    tdb_close(&t);
}

/* Row 15000 is in the second batch: the first is stored by then. */
static void bad_row_in_later_batch(void **state) {
    (void)state;
    char want[200];
    snprintf(want, sizeof want, "run.csv:%d: column \"Duration\": expected a number, got \"abc\"",
             LINE_OF(15000));
    bad_file(15000, -1, false, want);
}

/* Row 12001 (kernel 8000) starts 2^62 ns past row 0: the range check of
 * issue 16 names it as it did for the file parsed whole. */
static void time_out_of_range(void **state) {
    (void)state;
    bad_file(-1, 12001, false, "run.csv: kernels[8000].first_block: 4999999999000000000 ns is "
                               "out of range (times must be within +-2^62 ns of the trace's "
                               "origin)");
}

/* Every batch is in range of the first one's times, the whole file is not:
 * the origin is row 9001's -4e9 s, and row 12001 (kernel 8000) is 8e18 ns
 * past it. Found at the end (imp_stream.range_ok), named as before. */
static void range_fails_at_end(void **state) {
    (void)state;
    assert_int_equal(ROW_OF_KERNEL(8000), 12001);
    bad_file(-1, -1, true, "run.csv: kernels[8000].first_block: 8000000000000000000 ns is out of "
                           "range (times must be within +-2^62 ns of the trace's origin)");
}

/* The store thread stops at its first batch when the work is cancelled (a
 * server stopping): STORE_ABORTED with its message, nothing stored. */
static void cancelled_mid_stream(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "stream-cancel"), 0);
    size_t len;
    char *csv = make_csv(-1, -1, -1, &len);
    imp_file f = {"run.csv", (const unsigned char *)csv, len};
    atomic_bool cancel = true;
    store_ctl ctl = {.cancel = &cancel, .lock_ms = -1};
    char err[512] = "", run[DB_SLUG_SIZE], exp[DB_SLUG_SIZE];
    assert_int_equal(store_import_ctl(t.d, &f, 1, "nvprof-csv", NULL, NULL, &ctl, run, exp, err,
                                      sizeof err), STORE_ABORTED);
    assert_string_equal(err, "aborted: the server is stopping; nothing was stored");
    assert_string_equal(run, "");
    expect_nothing_stored(t.d);
    free(csv);
    tdb_close(&t);
}

/* --experiment: the run goes into an import experiment; a scenario's
 * experiment is refused before the file is read. */
static void into_experiment(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "stream-exp"), 0);
    size_t len;
    char *csv = make_csv(-1, -1, -1, &len);
    imp_file f = {"run.csv", (const unsigned char *)csv, len};
    char err[512] = "", run[DB_SLUG_SIZE], exp[DB_SLUG_SIZE], imp[DB_SLUG_SIZE],
         scn[DB_SLUG_SIZE];
    assert_int_equal(db_create_experiment(t.d, "mine", "d", "import", NULL, NULL, imp, err,
                                          sizeof err), 0);
    assert_int_equal(db_create_experiment(t.d, "sim", "d", "scenario", "x.json", "{}", scn, err,
                                          sizeof err), 0);
    assert_int_equal(store_import(t.d, &f, 1, "nvprof-csv", imp, "named", run, exp, err,
                                  sizeof err), 0);
    assert_string_equal(exp, imp);
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs r JOIN experiments e ON e.id = "
             "r.experiment WHERE e.slug = '%s' AND r.slug = '%s' AND r.name = 'named'", imp, run);
    assert_int_equal(tdb_scalar(t.d, sql), 1);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM experiments"), 2);
    assert_int_equal(store_import(t.d, &f, 1, "nvprof-csv", scn, NULL, run, exp, err,
                                  sizeof err), STORE_FORBIDDEN);
    char want[200];
    snprintf(want, sizeof want, "experiment: \"%s\" holds the runs of a scenario; imports may "
             "only add to experiments made by imports", scn);
    assert_string_equal(err, want);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM runs"), 1);
    free(csv);
    tdb_close(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stream_equals_whole),
        cmocka_unit_test(stream_late_origin),
        cmocka_unit_test(batches),
        cmocka_unit_test(bad_row_in_later_batch),
        cmocka_unit_test(time_out_of_range),
        cmocka_unit_test(range_fails_at_end),
        cmocka_unit_test(cancelled_mid_stream),
        cmocka_unit_test(into_experiment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
