/* test_pyramid.c -- the occupancy pyramid (db/pyramid.h, issue 9): every
 * bin of every level, arbitrary ranges, window bins cut at from/to, their
 * totals and the "surely in the window" lower bound must equal the same
 * numbers computed from the run's raw blocks, exactly (they are integers).
 * Runs: a synthetic trace with long, zero-length, negative-time and
 * out-of-range blocks (stored whole and streamed in batches), a simulated
 * H100 run of many kernels on 132 SMs, the GCAPS case study (time-slice
 * contexts: paused blocks), imported fixtures (block-level and kernel-level
 * only), and a run whose pyramid is built lazily on first read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../db/db.h"
#include "test_db_util.h"
#include "../../db/pyramid.h"
#include "../../importers/importers.h"
#include "../../server/formats/scenario.h"
#include "../../simcore/sim.h"
#include "test_imp_util.h"
#include "test_pyr_util.h"
#include "test_sanitizer.h"

typedef tdb_exp fixture;

/* ---- the reference: straight from the blocks ---------------------------------------- */

typedef pyr_ref ref;   /* test_pyr_util.h: the cells straight from the blocks */

/* ---- checks ------------------------------------------------------------------------------ */

static void load_ref(fixture *f, const char *slug, ref *x) {
    char err[256];
    *x = (ref){.bits = NULL};   /* every kernel */
    trace_init(&x->t);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_KERNELS | DB_LOAD_BLOCKS, &x->t, err, sizeof err), 0);
    pyr_run r;
    assert_int_equal(db_pyramid_run(f->d, slug, &r, err, sizeof err), 0);
    x->sms = r.sms;
}

static void expect_cells(const pyr_cell *got, const pyr_cell *want, size_t n, const char *what,
                         int z) {
    for (size_t i = 0; i < n; i++)
        if (got[i].thr != want[i].thr || got[i].blk != want[i].blk ||
            got[i].starts != want[i].starts || got[i].live != want[i].live)
            fail_msg("%s level %d cell %zu: pyramid {%lld %lld %lld %lld} != blocks {%lld %lld %lld %lld}",
                     what, z, i, (long long)got[i].thr, (long long)got[i].blk,
                     (long long)got[i].starts, (long long)got[i].live, (long long)want[i].thr,
                     (long long)want[i].blk, (long long)want[i].starts, (long long)want[i].live);
}

/* Returns the number of levels checked. */
static int check_run(fixture *f, const char *slug, const char *what) {
    char err[256];
    ref x;
    load_ref(f, slug, &x);
    pyr_run r;
    assert_int_equal(db_pyramid_run(f->d, slug, &r, err, sizeof err), 0);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t nb = 0;
    for (size_t i = 0; i < x.t.blocks.n; i++) {
        const trace_block *b = &x.t.blocks.v[i];
        if (!ref_counted(&x, b)) continue;
        nb++;
        if (b->start < lo) lo = b->start;
        if (b->end > hi) hi = b->end;
    }
    if (!nb) {
        assert_true(r.z0 > r.ztop);   /* no levels */
        trace_free(&x.t);
        return 0;
    }
    assert_true(r.z0 <= r.ztop);
    int levels = 0;
    /* every level stored, and two above it (summed from the top one) */
    for (int z = r.z0; z <= r.ztop + 2 && z <= PYR_MAX_Z; z++, levels++) {
        int64_t k0 = floordiv(lo, (int64_t)1 << z) - 1, k1 = floordiv(hi, (int64_t)1 << z) + 2;
        size_t n = (size_t)(k1 - k0) * (size_t)x.sms;
        pyr_cell *got = calloc(n, sizeof *got), *want = calloc(n, sizeof *want);
        assert_int_equal(db_pyramid_cells(f->d, &r, z, k0, k1, got, err, sizeof err), 0);
        ref_cells(&x, z, k0, k1, want);
        expect_cells(got, want, n, what, z);
        free(got);
        free(want);
    }
    /* arbitrary ranges and windows: edges, single ns, the whole run, random */
    uint64_t seed = 0x9e3779b97f4a7c15u;
    pyr_cell *got = calloc((size_t)x.sms, sizeof *got), *want = calloc((size_t)x.sms, sizeof *want);
    for (int i = 0; i < 60; i++) {
        int64_t span = hi - lo + 1, a, b;
        if (i == 0) { a = lo; b = hi; }
        else if (i == 1) { a = lo - 5; b = hi + 5; }
        else if (i == 2) { a = lo + span / 3; b = a + 1; }
        else {
            a = lo - 3 + (int64_t)(rng_next(&seed) % (uint64_t)(span + 6));
            b = a + 1 + (int64_t)(rng_next(&seed) % (uint64_t)(i % 2 ? span : span / 50 + 1));
        }
        memset(got, 0, (size_t)x.sms * sizeof *got);
        assert_int_equal(db_pyramid_range(f->d, &r, a, b, got, err, sizeof err), 0);
        ref_range(&x, a, b, want);
        for (int32_t sm = 0; sm < x.sms; sm++)
            if (got[sm].thr != want[sm].thr || got[sm].blk != want[sm].blk)
                fail_msg("%s range [%lld, %lld) sm %d: %lld/%lld != %lld/%lld", what, (long long)a,
                         (long long)b, sm, (long long)got[sm].thr, (long long)got[sm].blk,
                         (long long)want[sm].thr, (long long)want[sm].blk);
        /* the window's bins at several zooms, cut at a and b */
        const int64_t wants[] = {1, 3, 64, 1000};
        for (size_t wi = 0; wi < 4; wi++) {
            pyr_bins pb;
            assert_int_equal(db_pyramid_bins(f->d, &r, a, b, wants[wi], &pb, err, sizeof err), 0);
            assert_true(pb.bin_ns == ((int64_t)1 << pb.z));
            assert_true(pb.z >= r.z0);
            assert_true(pb.k0 * pb.bin_ns <= a && a < (pb.k0 + 1) * pb.bin_ns);
            assert_true((pb.k0 + (int64_t)pb.nbins - 1) * pb.bin_ns < b);
            assert_true((pb.k0 + (int64_t)pb.nbins) * pb.bin_ns >= b);
            /* as fine as asked (or the finest level), never much coarser */
            if (pb.z > r.z0) assert_true(((int64_t)1 << (pb.z - 1)) * wants[wi] < b - a);
            /* and as coarse (pyramid.h: 2^z at least (to - from) / want) */
            if (pb.z > r.z0) assert_true(((int64_t)1 << pb.z) * wants[wi] >= b - a);
            int64_t A = pb.k0 * pb.bin_ns, B = (pb.k0 + (int64_t)pb.nbins) * pb.bin_ns, total = 0;
            for (size_t k = 0; k < x.t.blocks.n; k++) {
                const trace_block *bl = &x.t.blocks.v[k];
                if (!ref_counted(&x, bl)) continue;
                total += (bl->start < A && bl->end > A) || (bl->start >= A && bl->start < B);
            }
            assert_int_equal(pb.total, total);
            pyr_cell *bins = calloc(pb.nbins * (size_t)x.sms, sizeof *bins);
            ref_window_bins(&x, A, pb.bin_ns, pb.nbins, a, b, bins);
            for (size_t k = 0; k < pb.nbins; k++) {
                const pyr_cell *want_k = &bins[k * (size_t)x.sms];
                /* the one-pass reference against the per-bin one, at both
                 * ends and one bin between (a check of this test) */
                if (k == 0 || k == pb.nbins - 1 || k == pb.nbins / 2) {
                    int64_t t = (pb.k0 + (int64_t)k) * pb.bin_ns;
                    ref_range(&x, t > a ? t : a, t + pb.bin_ns < b ? t + pb.bin_ns : b, want);
                    assert_memory_equal(want, want_k, (size_t)x.sms * sizeof *want);
                }
                for (int32_t sm = 0; sm < x.sms; sm++) {
                    const pyr_cell *c = &pb.cells[k * (size_t)x.sms + (size_t)sm];
                    if (c->thr != want_k[sm].thr || c->blk != want_k[sm].blk)
                        fail_msg("%s bins [%lld, %lld) want %lld: bin %zu sm %d: %lld/%lld != %lld/%lld",
                                 what, (long long)a, (long long)b, (long long)wants[wi], k, sm,
                                 (long long)c->thr, (long long)c->blk, (long long)want_k[sm].thr,
                                 (long long)want_k[sm].blk);
                }
            }
            free(bins);
            pyr_bins_free(&pb);
        }
        /* the lower bound: blocks starting in whole finest bins inside (a, b) */
        int64_t n, w0 = (int64_t)1 << r.z0, ca = (floordiv(a, w0) + 1) * w0, cb = floordiv(b, w0) * w0;
        int64_t expect = 0, overlapping = 0;
        for (size_t k = 0; k < x.t.blocks.n; k++) {
            const trace_block *bl = &x.t.blocks.v[k];
            if (!ref_counted(&x, bl)) continue;
            expect += bl->start >= ca && bl->start < cb;
            overlapping += bl->start < b && bl->end > a;
        }
        assert_int_equal(db_pyramid_starts_within(f->d, &r, a, b, &n, err, sizeof err), 0);
        assert_int_equal(n, expect);
        assert_true(n <= overlapping);
    }
    free(got);
    free(want);
    trace_free(&x.t);
    return levels;
}

/* ---- runs ----------------------------------------------------------------------------------- */

/* 40 SMs (and blocks on SM 45, outside the device), 300 kernels of varied
 * threads, 20000 blocks: short, long (thousands of finest bins: the
 * difference path), zero-length, before time 0, without an end. */
static void synthetic(trace *t) {
    tdb_h100_trace(t, "synthetic", 40);
    for (int k = 0; k < 300; k++) {
        ref_synthetic_kernel(t, k);
    }
    uint64_t s = 12345;
    for (int i = 0; i < 20000; i++) {
        trace_block *b = trace_add_block(t);
        b->kernel = (int32_t)(rng_next(&s) % 300);
        b->index = i;
        b->sm = i % 997 == 0 ? 45 : (int32_t)(rng_next(&s) % 40);
        b->start = (int64_t)(rng_next(&s) % 5000000) - 100000;
        uint64_t kind = rng_next(&s) % 100;
        int64_t dur = kind < 2 ? 0 : kind < 5 ? (int64_t)(rng_next(&s) % 3000000)
                                              : 1 + (int64_t)(rng_next(&s) % 20000);
        b->end = i % 1499 == 0 ? TRACE_NONE : b->start + dur;
    }
}

static void test_synthetic_whole(void **state) {
    fixture *f = *state;
    trace t;
    synthetic(&t);
    char slug[DB_SLUG_SIZE], err[256];
    assert_int_equal(db_store_run(f->d, f->exp, NULL, &t, slug, err, sizeof err), 0);
    trace_free(&t);
    int levels = check_run(f, slug, "synthetic");
    assert_true(levels >= 10);   /* 2^z0 .. the whole 5.1 ms: many levels */
}

/* the run's tiles, concatenated in order, as hex */
#define TILES_SQL                                                                                  \
    "SELECT group_concat(z || '/' || tile || ':' || hex(cells), ' ') FROM "                        \
    "(SELECT z, tile, cells FROM pyramid_tiles WHERE run = (SELECT id FROM runs WHERE slug = ?1) " \
    "ORDER BY z, tile)"

static char *tiles_of(fixture *f, const char *slug) {
    return pyr_rows_text(f->d, TILES_SQL, slug);
}

/* Streamed in batches: with the kernels known (the accumulator takes each
 * batch as it comes) and without (finish reads the blocks back). Both give
 * the same tiles as the whole store. */
static void test_synthetic_streamed(void **state) {
    fixture *f = *state;
    char slugs[3][DB_SLUG_SIZE];
    pyr_store_three(f->d, f->exp, synthetic, 1000, slugs);
    /* (under the sanitizers the tiles alone: the same as the whole store's,
     * which test_synthetic_whole checks; test_sanitizer.h) */
    if (!TEST_UNDER_ASAN) {
        check_run(f, slugs[1], "streamed");
        check_run(f, slugs[2], "streamed, kernels known");
    }
    pyr_expect_same_tiles(f->d, TILES_SQL, slugs);
}

/* a scenario simulated and stored as `schedlab serve` stores it: its runs
 * from the first, until `until` says stop (NULL: all of them) */
static int simulate_store_until(fixture *f, const char *text, const char *file,
                                char slugs[][DB_SLUG_SIZE], int max,
                                bool (*until)(fixture *, const char *)) {
    scn_scenario *s = NULL;
    char err[512];
    if (text ? scn_parse(text, strlen(text), file, &s, err, sizeof err)
             : scn_parse_file(file, &s, err, sizeof err))
        fail_msg("%s", err);
    int n = (int)scn_run_count(s);
    assert_true(n <= max);
    for (int i = 0; i < n; i++) {
        sim_config cfg;
        assert_int_equal(scn_config(s, (size_t)i, &cfg, err, sizeof err), 0);
        trace t;
        trace_init(&t);
        if (sim_run(&cfg, &t, err, sizeof err)) fail_msg("%s", err);
        assert_int_equal(db_store_run(f->d, f->exp, scn_run_name(s, i), &t, slugs[i], err, sizeof err), 0);
        trace_free(&t);
        if (until && until(f, slugs[i])) {
            n = i + 1;
            break;
        }
    }
    scn_free(s);
    return n;
}

static int simulate_store(fixture *f, const char *text, const char *file, char slugs[][DB_SLUG_SIZE],
                          int max) {
    return simulate_store_until(f, text, file, slugs, max, NULL);
}

static void test_simulated_h100(void **state) {
    fixture *f = *state;
    /* 24 kernels on 6 streams, 132 SMs, block times cycling 3..40 us */
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text,
                                  "{\"schema\":\"schedlab-scenario/1\",\"name\":\"many\",\"device\":\"h100\","
                                  "\"streams\":[{\"name\":\"S0\"},{\"name\":\"S1\"},{\"name\":\"S2\"},"
                                  "{\"name\":\"S3\"},{\"name\":\"S4\"},{\"name\":\"S5\"}],\"ops\":[");
    for (int k = 0; k < 24; k++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "%s{\"kernel\":\"K%d\",\"stream\":\"S%d\",\"at\":\"%dus\",\"blocks\":%d,"
                                "\"threads\":%d,\"block_time\":[\"3us\",\"17us\",\"40us\",\"9us\"]}",
                                k ? "," : "", k, k % 6, k * 7, 300 + 97 * k, 64 * (1 + k % 8));
    snprintf(text + len, sizeof text - len, "]}");
    char slugs[1][DB_SLUG_SIZE];
    simulate_store(f, text, "many.json", slugs, 1);
    ref x;
    load_ref(f, slugs[0], &x);
    assert_int_equal(x.sms, 132);
    assert_true(x.t.blocks.n > 10000);
    trace_free(&x.t);
    check_run(f, slugs[0], "h100");
    /* the same simulation streamed from the simulator's block sink while
     * its trace (and its kernels) are still being built, as bench_sim and
     * `serve` store big runs: the same tiles */
    scn_scenario *s = NULL;
    char err[512], slug[DB_SLUG_SIZE];
    assert_int_equal(scn_parse(text, strlen(text), "many.json", &s, err, sizeof err), 0);
    sim_config cfg;
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    db_run_writer *w;
    assert_int_equal(db_run_begin(f->d, f->exp, "default", slug, &w, err, sizeof err), 0);
    trace t;
    trace_init(&t);
    db_run_kernels(w, &t);
    sim_block_sink sink = {.ctx = w, .emit = ref_sink_emit, .batch = 700};
    cfg.block_sink = &sink;
    assert_int_equal(sim_run(&cfg, &t, err, sizeof err), 0);
    assert_int_equal(db_run_finish(w, &t, err, sizeof err), 0);
    trace_free(&t);
    scn_free(s);
    char *a = tiles_of(f, slugs[0]), *b = tiles_of(f, slug);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static int64_t pauses_of(fixture *f, const char *slug) {
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(f->d),
                                        "SELECT count(*) FROM pauses p JOIN runs r ON r.id = p.run "
                                        "WHERE r.slug = ?1", -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, slug, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* under the sanitizers: stop at the first run with pauses */
static bool has_pauses(fixture *f, const char *slug) {
    return TEST_UNDER_ASAN && pauses_of(f, slug) > 0;
}

static void test_contexts_pauses(void **state) {
    fixture *f = *state;
    char path[1024];
    const char *root = getenv("SCHEDLAB_ROOT");
    snprintf(path, sizeof path, "%s%sscenarios/gcaps-case-study.json", root ? root : "",
             root ? "/" : "");
    char slugs[8][DB_SLUG_SIZE];
    /* (under the sanitizers the runs up to the first with pauses, and that
     * one checked: test_sanitizer.h) */
    int n = simulate_store_until(f, NULL, path, slugs, 8, has_pauses);
    int64_t paused = 0;
    for (int i = 0; i < n; i++) {
        /* the pauses are what makes this run interesting: blocks resident
         * but switched out still hold their SM (counted as resident) */
        int64_t p = pauses_of(f, slugs[i]);
        paused += p;
        if (TEST_UNDER_ASAN && p == 0) continue;
        check_run(f, slugs[i], "gcaps");
    }
    assert_true(paused > 0);
}

static void import_store(fixture *f, const char *name, char slug[DB_SLUG_SIZE]) {
    size_t len;
    unsigned char *data = read_fixture(name, &len);
    imp_file file = {name, data, len};
    trace t;
    trace_init(&t);
    char err[512];
    if (imp_import(IMP_UNKNOWN, &file, 1, &t, err, sizeof err)) fail_msg("%s: %s", name, err);
    free(data);
    assert_int_equal(db_store_run(f->d, f->exp, name, &t, slug, err, sizeof err), 0);
    trace_free(&t);
}

static void test_imported(void **state) {
    fixture *f = *state;
    char slug[DB_SLUG_SIZE], err[256];
    import_store(f, "globaltimer.csv", slug);
    assert_true(check_run(f, slug, "globaltimer.csv") > 0);
    /* kernel-level only: no blocks, no levels; bins are all zero */
    import_store(f, "nvprof.csv", slug);
    assert_int_equal(check_run(f, slug, "nvprof.csv"), 0);
    pyr_run r;
    assert_int_equal(db_pyramid_run(f->d, slug, &r, err, sizeof err), 0);
    pyr_bins pb;
    assert_int_equal(db_pyramid_bins(f->d, &r, 0, 1000, 10, &pb, err, sizeof err), 0);
    assert_int_equal(pb.total, 0);
    assert_int_equal(pb.bin_ns, 128);   /* 1000 / 10 -> the next power of two */
    assert_int_equal(pb.nbins, 8);
    for (size_t i = 0; i < pb.nbins * (size_t)pb.sms; i++) assert_int_equal(pb.cells[i].blk, 0);
    pyr_bins_free(&pb);
    /* 1281 / 10 = 128.1 ns a bin: 128 is less, so 256 (pyramid.h: 2^z at
     * least (to - from) / want), 6 bins, not 11 (mutant: pyr-bins-need) */
    assert_int_equal(db_pyramid_bins(f->d, &r, 0, 1281, 10, &pb, err, sizeof err), 0);
    assert_int_equal(pb.bin_ns, 256);
    assert_int_equal(pb.nbins, 6);
    pyr_bins_free(&pb);
}

/* a run stored before pyramids existed gets one the first time it is read */
static void test_lazy_build(void **state) {
    fixture *f = *state;
    trace t;
    synthetic(&t);
    char slug[DB_SLUG_SIZE], err[256];
    assert_int_equal(db_store_run(f->d, f->exp, NULL, &t, slug, err, sizeof err), 0);
    trace_free(&t);
    const char *tiles = "SELECT count(*) FROM pyramid_tiles WHERE run = (SELECT id FROM runs WHERE slug = ?1)";
    const char *head = "SELECT count(*) FROM pyramids WHERE run = (SELECT id FROM runs WHERE slug = ?1)";
    int64_t stored = tdb_scalar_slug(f->d, tiles, slug);
    assert_true(stored > 0);
    char *before = tiles_of(f, slug);
    assert_int_equal(tdb_scalar_slug(f->d, head, slug), 1);
    assert_int_equal(sqlite3_exec(db_handle(f->d),
                                  "DELETE FROM pyramid_tiles; DELETE FROM pyramids", NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(tdb_scalar_slug(f->d, head, slug), 0);
    check_run(f, slug, "lazy");
    assert_int_equal(tdb_scalar_slug(f->d, head, slug), 1);
    assert_int_equal(tdb_scalar_slug(f->d, tiles, slug), stored);   /* the same tiles as at store time */
    char *again = tiles_of(f, slug);
    assert_string_equal(before, again);
    free(before);
    free(again);
    /* an unknown run */
    pyr_run r;
    assert_int_equal(db_pyramid_run(f->d, "nosuchrun0", &r, err, sizeof err), DB_NOT_FOUND);
    assert_non_null(strstr(err, "nosuchrun0"));
}

static int count_cb(void *ctx, const trace_block *b) {
    int64_t *last = ctx;
    if (last && b->start < *last) fail_msg("window out of start order: %lld after %lld",
                                           (long long)b->start, (long long)*last);
    if (last) *last = b->start;
    return 0;
}

/* the window scan stops at its limit, in start order */
static void test_window_limit(void **state) {
    fixture *f = *state;
    trace t;
    synthetic(&t);
    char slug[DB_SLUG_SIZE], err[256];
    assert_int_equal(db_store_run(f->d, f->exp, NULL, &t, slug, err, sizeof err), 0);
    trace_free(&t);
    pyr_run r;
    assert_int_equal(db_pyramid_run(f->d, slug, &r, err, sizeof err), 0);
    int64_t all = 0, n;
    ref x;
    load_ref(f, slug, &x);
    for (size_t i = 0; i < x.t.blocks.n; i++) {
        const trace_block *b = &x.t.blocks.v[i];
        all += b->start != TRACE_NONE && b->end != TRACE_NONE && b->start < 200000 && b->end > 100000;
    }
    trace_free(&x.t);
    assert_true(all > 300);
    assert_int_equal(db_window_blocks(f->d, &r, 100000, 200000, 1000000, count_cb, &(int64_t){INT64_MIN}, &n, err, sizeof err), 0);
    assert_int_equal(n, all);
    assert_int_equal(db_window_blocks(f->d, &r, 100000, 200000, 301, count_cb, NULL, &n, err, sizeof err), 0);
    assert_int_equal(n, 301);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_synthetic_whole, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_synthetic_streamed, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_simulated_h100, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_contexts_pauses, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_imported, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_lazy_build, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_window_limit, tdb_exp_setup, tdb_exp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
