/* test_kpyramid.c -- the per-kernel occupancy pyramid (db/kpyramid.sql,
 * db_pyramid_cells_k and db_pyramid_bins_k of db/pyramid.h, issue 9 for
 * issue 15's legend): every bin of every level, for sets of kernels (one,
 * a few, all but a few: both the "shown kernels' cells" and the "all minus
 * the hidden kernels' cells" paths, none, all), and window bins cut at
 * from/to at several zooms must equal the same numbers computed from those
 * kernels' raw blocks, exactly. Also: the same kernel tiles whether a run is
 * stored whole, streamed, or built lazily; a kernel's tiles exist only where
 * it runs; the kernel tiles stay within a small factor of the per-SM ones. */
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
#include "test_db_util.h"
#include "test_pyr_util.h"
#include "test_sanitizer.h"
#include "../../db/pyramid.h"
#include "../../server/formats/scenario.h"
#include "../../simcore/sim.h"

typedef tdb_exp fixture;

/* ---- the reference: straight from the blocks of the set's kernels ----------------- */

typedef pyr_ref ref;   /* test_pyr_util.h: the cells straight from the blocks of a kernel set */

/* ---- the check ------------------------------------------------------------------------- */

/* Every level's cells and windows' bins of the kernel set `bits` (nbits)
 * against the raw blocks. */
static void check_set(fixture *f, const char *slug, const trace *t, const uint8_t *bits,
                      int64_t nbits, const char *what) {
    char err[256];
    pyr_run r;
    assert_int_equal(db_pyramid_run_k(f->d, slug, &r, err, sizeof err), 0);
    assert_true(r.kpyr);
    ref x = {*t, r.sms, bits, nbits};
    int64_t lo = INT64_MAX, hi = INT64_MIN, all_lo = INT64_MAX, all_hi = INT64_MIN;
    for (size_t i = 0; i < t->blocks.n; i++) {
        const trace_block *b = &t->blocks.v[i];
        if (b->start == TRACE_NONE || b->end == TRACE_NONE) continue;
        if (b->start < all_lo) all_lo = b->start;
        if (b->end > all_hi) all_hi = b->end;
        if (!ref_counted(&x, b)) continue;
        if (b->start < lo) lo = b->start;
        if (b->end > hi) hi = b->end;
    }
    if (lo > hi) {   /* the set has no blocks: look at the whole run */
        lo = all_lo;
        hi = all_hi;
    }
    pyr_kset ks = {bits, nbits, false};
    for (int z = r.z0; z <= r.ztop + 2 && z <= PYR_MAX_Z; z++) {
        int64_t k0 = floordiv(lo, (int64_t)1 << z) - 1, k1 = floordiv(hi, (int64_t)1 << z) + 2;
        size_t n = (size_t)(k1 - k0) * (size_t)x.sms;
        pyr_cell *got = calloc(n, sizeof *got), *want = calloc(n, sizeof *want);
        assert_int_equal(db_pyramid_cells_k(f->d, &r, z, k0, k1, &ks, got, err, sizeof err), 0);
        ref_cells(&x, z, k0, k1, want);
        for (size_t i = 0; i < n; i++)
            if (memcmp(&got[i], &want[i], sizeof got[i]))
                fail_msg("%s level %d bin %lld sm %zu: pyramid {%lld %lld %lld %lld} != blocks "
                         "{%lld %lld %lld %lld}", what, z, (long long)(k0 + (int64_t)(i / (size_t)x.sms)),
                         i % (size_t)x.sms, (long long)got[i].thr, (long long)got[i].blk,
                         (long long)got[i].starts, (long long)got[i].live, (long long)want[i].thr,
                         (long long)want[i].blk, (long long)want[i].starts, (long long)want[i].live);
        free(got);
        free(want);
    }
    /* windows' bins at several zooms, cut at a and b: thread-ns and
     * block-ns per bin and SM, and the total */
    uint64_t seed = 0x2545f4914f6cdd1du;
    pyr_cell *want = calloc((size_t)x.sms, sizeof *want);
    for (int i = 0; i < 12; i++) {
        int64_t span = all_hi - all_lo + 1, a, b;
        if (i == 0) { a = all_lo; b = all_hi; }
        else if (i == 1) { a = lo - 7; b = hi + 7; }
        else {
            a = all_lo - 3 + (int64_t)(rng_next(&seed) % (uint64_t)(span + 6));
            b = a + 1 + (int64_t)(rng_next(&seed) % (uint64_t)(i % 2 ? span : span / 40 + 1));
        }
        const int64_t wants[] = {1, 7, 100, 1000};
        for (size_t wi = 0; wi < 4; wi++) {
            pyr_bins pb;
            assert_int_equal(db_pyramid_bins_k(f->d, &r, a, b, wants[wi], bits, nbits, &pb, err,
                                               sizeof err), 0);
            int64_t A = pb.k0 * pb.bin_ns, B = (pb.k0 + (int64_t)pb.nbins) * pb.bin_ns, total = 0;
            for (size_t k = 0; k < t->blocks.n; k++) {
                const trace_block *bl = &t->blocks.v[k];
                if (!ref_counted(&x, bl)) continue;
                total += (bl->start < A && bl->end > A) || (bl->start >= A && bl->start < B);
            }
            if (pb.total != total)
                fail_msg("%s window [%lld, %lld) want %lld: total %lld != %lld", what, (long long)a,
                         (long long)b, (long long)wants[wi], (long long)pb.total, (long long)total);
            pyr_cell *bins = calloc(pb.nbins * (size_t)x.sms, sizeof *bins);
            ref_window_bins(&x, A, pb.bin_ns, pb.nbins, a, b, bins);
            for (size_t k = 0; k < pb.nbins; k++) {
                const pyr_cell *want_k = &bins[k * (size_t)x.sms];
                /* the one-pass reference against the per-bin one, at both
                 * ends and one bin between (a check of this test) */
                if (k == 0 || k == pb.nbins - 1 || k == pb.nbins / 2) {
                    int64_t t0 = (pb.k0 + (int64_t)k) * pb.bin_ns;
                    ref_range(&x, t0 > a ? t0 : a, t0 + pb.bin_ns < b ? t0 + pb.bin_ns : b, want);
                    assert_memory_equal(want, want_k, (size_t)x.sms * sizeof *want);
                }
                for (int32_t sm = 0; sm < x.sms; sm++) {
                    const pyr_cell *c = &pb.cells[k * (size_t)x.sms + (size_t)sm];
                    if (c->thr != want_k[sm].thr || c->blk != want_k[sm].blk)
                        fail_msg("%s window [%lld, %lld) want %lld: bin %zu sm %d: %lld/%lld != %lld/%lld",
                                 what, (long long)a, (long long)b, (long long)wants[wi], k, sm,
                                 (long long)c->thr, (long long)c->blk, (long long)want_k[sm].thr,
                                 (long long)want_k[sm].blk);
                }
            }
            free(bins);
            pyr_bins_free(&pb);
        }
    }
    free(want);
}

/* The sets every run is checked with: one kernel, every 9th, all but
 * three (the subtraction path), none, all. */
static void check_run(fixture *f, const char *slug, const char *what) {
    char err[256];
    trace t;
    trace_init(&t);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_KERNELS | DB_LOAD_BLOCKS, &t, err, sizeof err), 0);
    int64_t nk = (int64_t)t.kernels.n;
    assert_true(nk >= 4);
    size_t nbytes = (size_t)(nk + 7) / 8;
    uint8_t *bits = calloc(nbytes, 1);
    char name[128];
    for (int s = 0; s < 5; s++) {
        memset(bits, 0, nbytes);
        for (int64_t k = 0; k < nk; k++) {
            bool on = s == 0 ? k == nk / 2 : s == 1 ? k % 9 == 2 : s == 2 ? (k != 1 && k != nk / 3 && k != nk - 1)
                    : s == 3 ? false : true;
            if (on) bits[k >> 3] |= (uint8_t)(1 << (k & 7));
        }
        snprintf(name, sizeof name, "%s, set %d", what, s);
        check_set(f, slug, &t, bits, nk, name);
    }
    free(bits);
    trace_free(&t);
}

/* ---- runs ---------------------------------------------------------------------------- */

/* 24 SMs (and blocks on SM 30, outside the device), 60 kernels each living
 * in its own stretch of time (as kernels do), 6000 blocks: short, long
 * (many finest bins), zero-length, before time 0, without an end. */
static void synthetic(trace *t) {
    tdb_h100_trace(t, "synthetic", 24);
    for (int k = 0; k < 60; k++) {
        ref_synthetic_kernel(t, k);
    }
    uint64_t s = 777;
    for (int i = 0; i < 6000; i++) {
        trace_block *b = trace_add_block(t);
        int32_t k = (int32_t)(rng_next(&s) % 60);
        b->kernel = k;
        b->index = i;
        b->sm = i % 499 == 0 ? 30 : (int32_t)(rng_next(&s) % 24);
        /* kernel k runs around k * 40 us, overlapping its neighbours */
        b->start = (int64_t)k * 40000 - 50000 + (int64_t)(rng_next(&s) % 90000);
        uint64_t kind = rng_next(&s) % 100;
        int64_t dur = kind < 2 ? 0 : kind < 5 ? (int64_t)(rng_next(&s) % 600000)
                                              : 1 + (int64_t)(rng_next(&s) % 9000);
        b->end = i % 1499 == 0 ? TRACE_NONE : b->start + dur;
    }
}

/* the run's kernel tiles, concatenated in key order, as hex */
#define KTILES_SQL                                                                              \
    "SELECT group_concat(z || '/' || tile || '/' || kernel || ':' || hex(cells), ' ') "          \
    "FROM (SELECT z, tile, kernel, cells FROM kernel_tiles WHERE run = "                         \
    "(SELECT id FROM runs WHERE slug = ?1) ORDER BY z, tile, kernel)"

static char *ktiles_of(fixture *f, const char *slug) {
    return pyr_rows_text(f->d, KTILES_SQL, slug);
}

static void test_synthetic(void **state) {
    fixture *f = *state;
    trace t;
    synthetic(&t);
    char slug[DB_SLUG_SIZE], err[256];
    assert_int_equal(db_store_run(f->d, f->exp, NULL, &t, slug, err, sizeof err), 0);
    trace_free(&t);
    check_run(f, slug, "synthetic");
    /* sparse: a kernel's tiles of the finest level lie where it runs (its
     * blocks within [k*40us - 50us, k*40us + 40us + 600us)), never beyond */
    pyr_run r;
    assert_int_equal(db_pyramid_run_k(f->d, slug, &r, err, sizeof err), 0);
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM kernel_tiles WHERE run = (SELECT id FROM runs WHERE slug = ?1) "
             "AND z = %d AND ((tile + 1) * 64 << z <= kernel * 40000 - 50000 - (64 << z) "
             "OR tile * 64 << z >= kernel * 40000 + 40000 + 600000)", r.z0);
    assert_int_equal(tdb_scalar_slug(f->d, sql, slug), 0);
    assert_true(tdb_scalar_slug(f->d, "SELECT count(*) FROM kernel_tiles WHERE run = (SELECT id FROM runs WHERE slug = ?1)",
                     slug) > 60);
    /* one row per run says the kernel tiles are there */
    assert_int_equal(tdb_scalar_slug(f->d, "SELECT count(*) FROM kernel_pyramids WHERE run = (SELECT id FROM runs WHERE slug = ?1)",
                          slug), 1);
}

/* streamed in batches, with the kernels known and without (finish reads
 * the blocks back): the same kernel tiles as the whole store */
static void test_streamed(void **state) {
    fixture *f = *state;
    char slugs[3][DB_SLUG_SIZE];
    pyr_store_three(f->d, f->exp, synthetic, 500, slugs);
    pyr_expect_same_tiles(f->d, KTILES_SQL, slugs);
    check_run(f, slugs[2], "streamed");
}

/* A simulated H100 run of 48 kernels on 132 SMs, streamed from the
 * simulator's block sink as `serve` stores it; and the size of its kernel
 * tiles against the per-SM tiles'. */
static void test_simulated_h100(void **state) {
    fixture *f = *state;
    char text[16384];
    size_t len = (size_t)snprintf(text, sizeof text,
                                  "{\"schema\":\"schedlab-scenario/1\",\"name\":\"many\",\"device\":\"h100\","
                                  "\"streams\":[{\"name\":\"S0\"},{\"name\":\"S1\"},{\"name\":\"S2\"},"
                                  "{\"name\":\"S3\"}],\"ops\":[");
    /* (under the sanitizers the first 16 kernels, ~10K blocks instead of
     * ~78K: the same paths, test_sanitizer.h) */
    int nk = TEST_UNDER_ASAN ? 16 : 48;
    for (int k = 0; k < nk; k++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "%s{\"kernel\":\"K%d\",\"stream\":\"S%d\",\"at\":\"%dus\",\"blocks\":%d,"
                                "\"threads\":%d,\"block_time\":[\"3us\",\"17us\",\"40us\",\"9us\"]}",
                                k ? "," : "", k, k % 4, k * 5, 200 + 61 * k, 64 * (1 + k % 8));
    snprintf(text + len, sizeof text - len, "]}");
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
    check_run(f, slug, "h100");
    int64_t kbytes = tdb_scalar_slug(f->d, "SELECT sum(length(cells)) FROM kernel_tiles WHERE run = (SELECT id FROM runs WHERE slug = ?1)", slug);
    int64_t sbytes = tdb_scalar_slug(f->d, "SELECT sum(length(cells)) FROM pyramid_tiles WHERE run = (SELECT id FROM runs WHERE slug = ?1)", slug);
    /* proportional to the per-SM pyramid, not nk times it */
    if (kbytes > 4 * sbytes) fail_msg("kernel tiles %lld bytes, per-SM tiles %lld", (long long)kbytes, (long long)sbytes);
}

/* a run stored before kernel pyramids: db_pyramid_run leaves it be,
 * db_pyramid_run_k builds it (the same tiles as at store time) */
static void test_lazy(void **state) {
    fixture *f = *state;
    trace t;
    synthetic(&t);
    char slug[DB_SLUG_SIZE], err[256];
    assert_int_equal(db_store_run(f->d, f->exp, NULL, &t, slug, err, sizeof err), 0);
    trace_free(&t);
    char *before = ktiles_of(f, slug);
    assert_int_equal(sqlite3_exec(db_handle(f->d), "DELETE FROM kernel_tiles; DELETE FROM kernel_pyramids",
                                  NULL, NULL, NULL), SQLITE_OK);
    pyr_run r;
    assert_int_equal(db_pyramid_run(f->d, slug, &r, err, sizeof err), 0);
    assert_false(r.kpyr);
    uint8_t bits[8] = {0xff};
    pyr_bins pb;
    assert_int_equal(db_pyramid_bins_k(f->d, &r, 0, 1000, 10, bits, 8, &pb, err, sizeof err), -1);
    assert_non_null(strstr(err, "no kernel pyramid"));
    assert_int_equal(db_pyramid_run_k(f->d, slug, &r, err, sizeof err), 0);
    assert_true(r.kpyr);
    char *again = ktiles_of(f, slug);
    assert_string_equal(before, again);
    free(before);
    free(again);
    check_run(f, slug, "lazy");
    assert_int_equal(db_pyramid_run_k(f->d, "nosuchrun0", &r, err, sizeof err), DB_NOT_FOUND);
}

/* Every block of one kernel (the others have none): no kernel tile is
 * stored, the per-SM cells are that kernel's; the sets still equal the raw
 * blocks. Then a second kernel's blocks streamed after the first's: the
 * first's cells are made from the per-SM ones at that moment. */
static void test_sole_kernel(void **state) {
    fixture *f = *state;
    trace t;
    synthetic(&t);
    for (size_t i = 0; i < t.blocks.n; i++) t.blocks.v[i].kernel = 5;
    char slug[DB_SLUG_SIZE], err[256];
    assert_int_equal(db_store_run(f->d, f->exp, "sole", &t, slug, err, sizeof err), 0);
    pyr_run r;
    assert_int_equal(db_pyramid_run_k(f->d, slug, &r, err, sizeof err), 0);
    assert_int_equal(r.ksole, 5);
    assert_int_equal(tdb_scalar_slug(f->d, "SELECT count(*) FROM kernel_tiles WHERE run = (SELECT id FROM runs WHERE slug = ?1)", slug), 0);
    check_run(f, slug, "sole");
    /* streamed: kernel 5's blocks, then a batch with kernel 9's among them */
    for (size_t i = t.blocks.n / 2; i < t.blocks.n; i++) t.blocks.v[i].kernel = (int32_t)(i % 3 ? 5 : 9);
    db_run_writer *w;
    assert_int_equal(db_run_begin(f->d, f->exp, "late", slug, &w, err, sizeof err), 0);
    db_run_kernels(w, &t);
    for (size_t i = 0; i < t.blocks.n; i += 500)
        assert_int_equal(db_run_add_blocks(w, t.blocks.v + i, t.blocks.n - i < 500 ? t.blocks.n - i : 500,
                                           err, sizeof err), 0);
    t.blocks.n = 0;
    assert_int_equal(db_run_finish(w, &t, err, sizeof err), 0);
    trace_free(&t);
    assert_int_equal(db_pyramid_run_k(f->d, slug, &r, err, sizeof err), 0);
    assert_int_equal(r.ksole, -1);
    check_run(f, slug, "late second kernel");
}

/* The GCAPS case study (time-slice and gcaps contexts): 1,273 kernels,
 * blocks resident while paused, so long that a block spans most of the
 * accumulator's bins (the spans' path). Every variant, every set. */
static void test_gcaps(void **state) {
    fixture *f = *state;
    char path[1024], err[512];
    const char *root = getenv("SCHEDLAB_ROOT");
    snprintf(path, sizeof path, "%s%sscenarios/gcaps-case-study.json", root ? root : "", root ? "/" : "");
    scn_scenario *s = NULL;
    if (scn_parse_file(path, &s, err, sizeof err)) fail_msg("%s", err);
    size_t n = scn_run_count(s);
    assert_true(n >= 2);
    /* (under the sanitizers its first run: the pyramid's code is the same
     * for each, test_sanitizer.h) */
    if (TEST_UNDER_ASAN) n = 1;
    for (size_t i = 0; i < n; i++) {
        sim_config cfg;
        assert_int_equal(scn_config(s, i, &cfg, err, sizeof err), 0);
        trace t;
        trace_init(&t);
        if (sim_run(&cfg, &t, err, sizeof err)) fail_msg("%s", err);
        char slug[DB_SLUG_SIZE];
        assert_int_equal(db_store_run(f->d, f->exp, scn_run_name(s, i), &t, slug, err, sizeof err), 0);
        trace_free(&t);
        check_run(f, slug, scn_run_name(s, i));
    }
    scn_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_synthetic, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_streamed, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_simulated_h100, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_lazy, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_sole_kernel, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_gcaps, tdb_exp_setup, tdb_exp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
