/* test_cohort_view.c -- a run simulated with cohorts (issue 28) shows the
 * blocks it stands for: its occupancy pyramids (db/pyramid.c, from the
 * cohorts in closed form, db/cohort_window.h) and its block windows
 * (server/http/window_cohorts.c) answer what a block-by-block run of the
 * same scenario answers.
 *
 * The random scenarios of test_cohort_props.c (cohorts exact there) run
 * both ways and are stored; at several zoom levels the bins of random
 * windows, the tiles of every level, the bins of random kernel sets and
 * the /blocks answers of windows under `max` must be the same, cell for
 * cell and byte for byte. Past `max` blocks, a cohort run may answer the
 * cohorts' waves as counted entries: their counts must add up to the
 * window's blocks, which the block run counts one by one. The closed forms
 * themselves are checked against the expanded blocks of random cohorts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "../../db/cohort_window.h"
#include "../../db/level.h"
#include "../../db/pyramid.h"
#include "../../server/http/window.h"
#include "test_db_util.h"
#include "test_sim_util.h"
#include "test_cohort_util.h"
#include "test_sanitizer.h"

/* ---- the closed forms against the blocks ---------------------------------------- */

static void test_closed_forms(void **state) {
    (void)state;
    uint64_t s = 7;
    for (int it = 0; it < 3000; it++) {
        trace_cohort c = {0};
        c.kernel = 1;
        c.sm = 0;
        c.index = (int32_t)tb_rng_range(&s, 0, 50);
        c.stride = (int32_t)tb_rng_range(&s, 1, 9);
        c.count = tb_rng_range(&s, 1, 60);
        c.per_wave = tb_rng_range(&s, 1, c.count);
        c.start = tb_rng_range(&s, -50, 200);
        int64_t d = tb_rng_range(&s, 0, 5) == 0 ? 0 : tb_rng_range(&s, 1, 40);
        c.end = c.start + d;
        switch (tb_rng_range(&s, 0, 3)) {
        case 0: c.period = 0; break;
        case 1: c.period = tb_rng_range(&s, 1, 60); break;
        default: c.period = d; break;   /* what simcore/cohort.c records */
        }
        int64_t lo = tb_rng_range(&s, -100, 2500), hi = lo + tb_rng_range(&s, 1, 400);
        int64_t n = 0, ns = 0, waves = 0, started = 0;
        int64_t seen_wave = -1;
        for (int64_t j = 0; j < c.count; j++) {
            trace_block b = trace_cohort_block(&c, j);
            int64_t ov = (b.end < hi ? b.end : hi) - (b.start > lo ? b.start : lo);
            if (ov > 0) ns += ov;
            if (b.start < hi && b.end > lo) {
                n++;
                int64_t w = c.period > 0 ? j / c.per_wave : 0;
                if (w != seen_wave) waves++, seen_wave = w;
            }
            started += b.start <= lo;
        }
        int64_t w0, w1;
        cw_overlap(&c, lo, hi, &w0, &w1);
        assert_int_equal(cw_blocks(&c, w0, w1), n);
        assert_int_equal(w1 - w0, waves);
        assert_int_equal(cw_block_ns(&c, lo, hi), ns);
        /* waves started by lo, in blocks */
        int64_t nw = cw_waves(&c), sb = 0;
        for (int64_t w = 0; w < nw; w++)
            if (cw_wave_start(&c, w) <= lo) sb += cw_wave_blocks(&c, w);
        assert_int_equal(sb, started);
    }
}

/* ---- runs both ways ------------------------------------------------------------- */

static void same_bins(const pyr_bins *a, const pyr_bins *b, uint64_t seed, const char *what) {
    if (a->z != b->z || a->k0 != b->k0 || a->nbins != b->nbins || a->sms != b->sms ||
        a->total != b->total)
        fail_msg("seed %llu, %s: level %d bins %lld+%zu total %lld, cohorts level %d bins "
                 "%lld+%zu total %lld", (unsigned long long)seed, what, a->z, (long long)a->k0,
                 a->nbins, (long long)a->total, b->z, (long long)b->k0, b->nbins,
                 (long long)b->total);
    for (size_t i = 0; i < a->nbins * (size_t)a->sms; i++) {
        const pyr_cell *x = &a->cells[i], *y = &b->cells[i];
        if (x->thr != y->thr || x->blk != y->blk || x->starts != y->starts || x->live != y->live)
            fail_msg("seed %llu, %s: cell %zu: %lld/%lld/%lld/%lld, cohorts %lld/%lld/%lld/%lld",
                     (unsigned long long)seed, what, i, (long long)x->thr, (long long)x->blk,
                     (long long)x->starts, (long long)x->live, (long long)y->thr,
                     (long long)y->blk, (long long)y->starts, (long long)y->live);
    }
}

/* Every level's tiles over the run, of a block run (a) and a cohort run (c)
 * of the same blocks, cell for cell (levels of at most 4096 bins). */
static void same_tiles(db *d, const pyr_run *a, const pyr_run *c, uint64_t seed) {
    char err[512];
    int64_t t0 = a->t_min, t1 = a->t_max + 1;
    for (int z = a->z0; z <= a->ztop + 1; z++) {
        int64_t k0 = lvl_bin(t0, z), k1 = lvl_bin(t1, z) + 1;
        if (k1 - k0 > 4096) continue;
        pyr_bins x = {.z = z, .k0 = k0, .nbins = (size_t)(k1 - k0), .sms = a->sms};
        pyr_bins y = x;
        x.cells = calloc(x.nbins * (size_t)a->sms, sizeof *x.cells);
        y.cells = calloc(y.nbins * (size_t)a->sms, sizeof *y.cells);
        assert_int_equal(db_pyramid_cells(d, a, z, k0, k1, x.cells, err, sizeof err), 0);
        assert_int_equal(db_pyramid_cells(d, c, z, k0, k1, y.cells, err, sizeof err), 0);
        same_bins(&x, &y, seed, "tiles");
        free(x.cells);
        free(y.cells);
    }
}

/* The body of GET /blocks of a window (a handler called directly). */
static char *blocks_answer(db *d, const char *run, int64_t from, int64_t to, int64_t max) {
    http_request req;
    memset(&req, 0, sizeof req);
    http_response res;
    memset(&res, 0, sizeof res);
    window_blocks(d, &req, run, from, true, to, true, max, &res);
    assert_int_equal(res.status, 200);
    const char *body = res.body ? res.body : res.shared;
    assert_non_null(body);
    char *copy = strdup(body);
    free(res.body);
    if (res.release) res.release(res.release_cls);
    return copy;
}

/* In a counted answer (entries with "count"), the blocks in all. */
static int64_t counted_blocks(const char *body) {
    int64_t n = 0;
    for (const char *p = strstr(body, "{\"kernel\":"); p; p = strstr(p + 1, "{\"kernel\":")) {
        const char *end = strchr(p, '}');
        const char *c = strstr(p, "\"count\":");
        n += c && c < end ? strtoll(c + 8, NULL, 10) : 1;
    }
    return n;
}

static int count_cb(void *ctx, const trace_block *b) {
    (void)b;
    (*(int64_t *)ctx)++;
    return 0;
}

typedef struct totals { size_t cohorts, windows, same, listed, counted; } totals;

static void check_seed(db *d, uint64_t seed, totals *tt) {
    static tb b;
    scenario(&b, seed, 4 + (size_t)(seed % 30));
    trace plain, coh;
    b.cfg.cohorts = false;
    tb_run(&b, &plain);
    b.cfg.cohorts = true;
    tb_run(&b, &coh);
    tt->cohorts += coh.cohorts.n;
    char rp[DB_SLUG_SIZE], rc[DB_SLUG_SIZE], err[512];
    tdb_store_whole(d, &plain, "plain.json", rp);
    tdb_store_whole(d, &coh, "cohorts.json", rc);
    pyr_run a, c;
    assert_int_equal(db_pyramid_run_k(d, rp, &a, err, sizeof err), 0);
    assert_int_equal(db_pyramid_run_k(d, rc, &c, err, sizeof err), 0);
    assert_int_equal(a.n_blocks, c.n_blocks);
    assert_int_equal(a.max_block_dur, c.max_block_dur);
    assert_int_equal(a.t_min, c.t_min);
    assert_int_equal(a.t_max, c.t_max);
    if (a.z0 != c.z0 || a.ztop != c.ztop)
        fail_msg("seed %llu: levels %d..%d, cohorts %d..%d", (unsigned long long)seed, a.z0,
                 a.ztop, c.z0, c.ztop);
    assert_true(coh.cohorts.n == 0 || c.cspan >= 0);
    if (a.z0 > a.ztop || a.t_min == TRACE_NONE) goto out;
    uint64_t s = seed * 7919;
    int64_t t0 = a.t_min, t1 = a.t_max + 1;
    same_tiles(d, &a, &c, seed);
    static const int64_t wants[] = {1, 5, 40, 300, 2000};
    uint8_t bits[8];
    for (int w = 0; w < 12; w++) {
        int64_t from = t0 - 5 + tb_rng_range(&s, 0, t1 - t0);
        int64_t to = from + 1 + tb_rng_range(&s, 0, w < 4 ? (t1 - t0) / 50 + 1 : t1 - t0);
        int64_t want = wants[w % 5];
        pyr_bins x, y;
        assert_int_equal(db_pyramid_bins(d, &a, from, to, want, &x, err, sizeof err), 0);
        assert_int_equal(db_pyramid_bins(d, &c, from, to, want, &y, err, sizeof err), 0);
        same_bins(&x, &y, seed, "bins");
        pyr_bins_free(&x);
        pyr_bins_free(&y);
        /* a kernel set: a few shown, or all but a few */
        for (size_t i = 0; i < sizeof bits; i++) bits[i] = (uint8_t)tb_rng_range(&s, 0, 255);
        if (w % 2) for (size_t i = 0; i < sizeof bits; i++) bits[i] |= (uint8_t)tb_rng_range(&s, 0, 255);
        assert_int_equal(db_pyramid_bins_k(d, &a, from, to, want, bits, 64, &x, err, sizeof err), 0);
        assert_int_equal(db_pyramid_bins_k(d, &c, from, to, want, bits, 64, &y, err, sizeof err), 0);
        same_bins(&x, &y, seed, "kernel bins");
        pyr_bins_free(&x);
        pyr_bins_free(&y);
        /* the blocks of the window: identical under max; past it bins, or
         * the cohorts' waves counted */
        static const int64_t maxes[] = {200000, 40, 400, 4000};
        int64_t max = maxes[w % 4];
        char *pa = blocks_answer(d, rp, from, to, max), *pc = blocks_answer(d, rc, from, to, max);
        tt->windows++;
        if (strstr(pa, "\"mode\":\"blocks\"") || !strstr(pc, "\"mode\":\"blocks\"")) {
            if (strcmp(pa, pc) != 0)
                fail_msg("seed %llu, /blocks %lld..%lld max %lld:\nblocks  %.600s\ncohorts %.600s",
                         (unsigned long long)seed, (long long)from, (long long)to,
                         (long long)max, pa, pc);
            tt->same++;
            tt->listed += strstr(pa, "\"mode\":\"blocks\"") != NULL;
        } else {
            int64_t n = 0, got = 0;
            assert_int_equal(db_window_blocks(d, &a, from, to, -1, count_cb, &n, &got, err,
                                              sizeof err), 0);
            assert_int_equal(counted_blocks(pc), n);
            assert_non_null(strstr(pc, "\"count\":"));
            tt->counted++;
        }
        free(pa);
        free(pc);
    }
out:
    trace_free(&plain);
    trace_free(&coh);
}

static void test_random_views(void **state) {
    (void)state;
    tdb x;
    assert_int_equal(tdb_open(&x, "cohortview"), 0);
    totals tt = {0, 0, 0, 0, 0};
    /* (8 of the 80 scenarios under the sanitizers: test_sanitizer.h) */
    size_t n = TEST_UNDER_ASAN ? 8 : 80;
    for (uint64_t seed = 1; seed <= n; seed++) check_seed(x.d, seed, &tt);
    printf("  %zu scenarios: %zu cohort records; %zu windows, %zu answered alike (%zu of them "
           "listing blocks), %zu as counted waves\n", n, tt.cohorts, tt.windows, tt.same,
           tt.listed, tt.counted);
    /* the cohort path was taken, and both kinds of answer were compared */
    assert_true(tt.cohorts > 1000 * n / 80);
    assert_true(tt.same > 200 * n / 80 && tt.listed > 200 * n / 80);
    assert_true(tt.counted > 10 * n / 80);
    tdb_close(&x);
}

/* Cohorts as a trace may hold them and the simulator's scenarios above
 * seldom do: a last wave with fewer blocks than the others (count not a
 * multiple of per_wave), many short waves in one bin (the closed forms of
 * acc_add_waves), waves that start exactly on a bin's first ns t (not
 * running at its start: live counts start < t < end, pyramid.h),
 * zero-length waves.
 * The pyramid of a run of them against that of the same blocks one by one
 * (trace_cohort_block), every level's tiles and random windows' bins, cell
 * for cell (mutants: pyr-cohort-last, pyr-waves-live). */
static void random_cohorts(trace *t, uint64_t seed, bool as_blocks) {
    uint64_t s = seed;
    tdb_h100_trace(t, "cohorts", 8);
    for (int k = 0; k < 6; k++) {
        trace_kernel *kk = trace_add_kernel(t);
        kk->threads = 64 * (k + 1);
        kk->blocks = 1;
        kk->priority = TRACE_PRIO_NONE;
        kk->issue = kk->first_block = kk->fully_dispatched = kk->end = TRACE_NONE;
        kk->smem = TRACE_NONE;
    }
    for (int i = 0; i < 40; i++) {
        trace_cohort c = {0};
        c.kernel = (int32_t)tb_rng_range(&s, 0, 5);
        c.sm = (int32_t)tb_rng_range(&s, 0, 7);
        c.index = 1000 * i;
        c.stride = 1;
        c.count = tb_rng_range(&s, 1, 300);
        c.per_wave = tb_rng_range(&s, 1, 7);
        if (c.per_wave > c.count) c.per_wave = c.count;
        int64_t kind = tb_rng_range(&s, 0, 9);
        int64_t d = kind == 0 ? 0 : kind < 6 ? (int64_t)1 << tb_rng_range(&s, 3, 6)
                                               : tb_rng_range(&s, 1, 5000);
        /* on a multiple of 2^16 ns: with a power-of-two length every bin's
         * first ns up to 2^16 wide inside the cohort is a wave's start */
        c.start = kind < 6 ? tb_rng_range(&s, 0, 30) << 16 : tb_rng_range(&s, 0, 2000000);
        c.end = c.start + d;
        c.period = d;   /* what simcore/cohort.c records */
        if (!as_blocks) {
            *trace_add_cohort(t) = c;
            continue;
        }
        for (int64_t j = 0; j < c.count; j++) *trace_add_block(t) = trace_cohort_block(&c, j);
    }
    assert_false(t->oom);
}

static void test_random_cohorts(void **state) {
    (void)state;
    tdb x;
    assert_int_equal(tdb_open(&x, "cohortpyr"), 0);
    char err[512];
    int64_t partial = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        trace plain, coh;
        random_cohorts(&plain, seed, true);
        random_cohorts(&coh, seed, false);
        for (size_t i = 0; i < coh.cohorts.n; i++)
            partial += coh.cohorts.v[i].count % coh.cohorts.v[i].per_wave != 0;
        char rp[DB_SLUG_SIZE], rc[DB_SLUG_SIZE];
        tdb_store_whole(x.d, &plain, "plain.json", rp);
        tdb_store_whole(x.d, &coh, "cohorts.json", rc);
        pyr_run a, c;
        assert_int_equal(db_pyramid_run_k(x.d, rp, &a, err, sizeof err), 0);
        assert_int_equal(db_pyramid_run_k(x.d, rc, &c, err, sizeof err), 0);
        assert_int_equal(a.n_blocks, c.n_blocks);
        assert_int_equal(a.z0, c.z0);
        assert_int_equal(a.ztop, c.ztop);
        same_tiles(x.d, &a, &c, seed);
        uint64_t s = seed * 104729;
        static const int64_t wants[] = {1, 7, 64, 900};
        for (int w = 0; w < 16; w++) {
            int64_t from = a.t_min - 5 + tb_rng_range(&s, 0, a.t_max - a.t_min);
            int64_t to = from + 1 + tb_rng_range(&s, 0, (a.t_max - a.t_min) / (w % 2 ? 1 : 40));
            pyr_bins p, q;
            assert_int_equal(db_pyramid_bins(x.d, &a, from, to, wants[w % 4], &p, err, sizeof err), 0);
            assert_int_equal(db_pyramid_bins(x.d, &c, from, to, wants[w % 4], &q, err, sizeof err), 0);
            same_bins(&p, &q, seed, "bins");
            pyr_bins_free(&p);
            pyr_bins_free(&q);
        }
        trace_free(&plain);
        trace_free(&coh);
    }
    assert_true(partial > 100);   /* the partial last waves were there */
    tdb_close(&x);
}

/* db_window_cohorts and db_scan_cohorts (db/cohort_window.c) by hand: three
 * cohorts stored in this order (seq 0, 1, 2) --
 *   A: kernel 0 on SM 0, waves of 2 at 1000 and 1100, 100 ns each (to 1200)
 *   B: kernel 1 on SM 1, one block at 500 (to 600)
 *   C: kernel 0 on SM 2, one block at 1150, 50 ns (to 1200)
 * A window [from, to) gets the cohorts with a wave overlapping it, by
 * first start; a wave ending at `from` is not in it; a callback's nonzero
 * answer stops the scan and is returned; the whole scan goes by seq. */
typedef struct seen {
    int n, stop_at;
    int32_t sms[8];
} seen;

static int seen_cb(void *ctx, const trace_cohort *c, int64_t seq) {
    seen *s = ctx;
    (void)seq;
    if (s->n < 8) s->sms[s->n] = c->sm;
    return ++s->n == s->stop_at ? 7 : 0;
}

static void test_window_by_hand(void **state) {
    (void)state;
    tdb x;
    assert_int_equal(tdb_open(&x, "cohortwin"), 0);
    trace t;
    tdb_h100_trace(&t, "cohorts", 4);
    for (int k = 0; k < 2; k++) {
        trace_kernel *kk = trace_add_kernel(&t);
        kk->threads = 64;
        kk->blocks = k ? 1 : 5;
        kk->priority = TRACE_PRIO_NONE;
        kk->issue = kk->first_block = kk->fully_dispatched = kk->end = TRACE_NONE;
        kk->smem = TRACE_NONE;
    }
    static const trace_cohort cs[] = {
        { .kernel = 0, .sm = 0, .index = 0, .stride = 1, .count = 4, .per_wave = 2,
          .start = 1000, .end = 1100, .period = 100 },
        { .kernel = 1, .sm = 1, .index = 0, .stride = 1, .count = 1, .per_wave = 1,
          .start = 500, .end = 600, .period = 100 },
        { .kernel = 0, .sm = 2, .index = 4, .stride = 1, .count = 1, .per_wave = 1,
          .start = 1150, .end = 1200, .period = 50 },
    };
    for (size_t i = 0; i < 3; i++) *trace_add_cohort(&t) = cs[i];
    char slug[DB_SLUG_SIZE], err[512];
    tdb_store_whole(x.d, &t, "win.json", slug);
    trace_free(&t);
    pyr_run r;
    assert_int_equal(db_pyramid_run_k(x.d, slug, &r, err, sizeof err), 0);
    seen s = {0};
    assert_int_equal(db_window_cohorts(x.d, &r, 1200, 2000, seen_cb, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 0);                           /* A and C end at 1200 */
    s = (seen){0};
    assert_int_equal(db_window_cohorts(x.d, &r, 550, 1150, seen_cb, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.sms[0], 1);                      /* B (500) before A (1000) */
    assert_int_equal(s.sms[1], 0);
    s = (seen){0};
    assert_int_equal(db_window_cohorts(x.d, &r, 1199, 1200, seen_cb, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 2);                           /* A's second wave, C */
    s = (seen){ .stop_at = 1 };
    assert_int_equal(db_window_cohorts(x.d, &r, 0, 2000, seen_cb, &s, err, sizeof err), 7);
    assert_int_equal(s.n, 1);
    s = (seen){0};
    assert_int_equal(db_scan_cohorts(x.d, r.id, seen_cb, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.sms[0], 0);                      /* by seq: A, B, C */
    assert_int_equal(s.sms[1], 1);
    assert_int_equal(s.sms[2], 2);
    s = (seen){ .stop_at = 2 };
    assert_int_equal(db_scan_cohorts(x.d, r.id, seen_cb, &s, err, sizeof err), 7);
    tdb_close(&x);
}

/* The Chrome export of a cohort run: one slice per wave of a cohort on its
 * SM, args.count its blocks. 10 waves of 4 blocks per SM on a TX2 (2 SMs,
 * 4 blocks of 512 threads each; test_cohort_props.c's waves by hand): 20
 * slices of 4 blocks, 1000 ns each, starting every 1000 ns; written in
 * small steps, the same bytes. */
static void test_chrome(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 80, 512, 0, 1000);
    b.cfg.cohorts = true;
    trace t;
    tb_run(&b, &t);
    assert_true(t.cohorts.n > 0 && t.blocks.n == 0);
    tj_buf whole = {0}, steps = {0};
    assert_int_equal(tj_write_chrome(&t, &whole), 0);
    tj_chrome c;
    assert_int_equal(tj_chrome_init(&c, &t), 0);
    int rc;
    while ((rc = tj_chrome_step(&c, &steps, steps.len + 64)) == 1) {}
    assert_int_equal(rc, 0);
    tj_chrome_free(&c);
    assert_string_equal(whole.s, steps.s);
    json_error_t je;
    json_t *root = json_loads(whole.s, 0, &je);
    assert_non_null(root);
    json_t *ev = json_object_get(root, "traceEvents");
    int64_t slices = 0, blocks = 0, starts[10] = {0};
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0 ||
            json_integer_value(json_object_get(e, "pid")) != 1)
            continue;
        json_t *args = json_object_get(e, "args");
        int64_t n = json_integer_value(json_object_get(args, "count"));
        assert_int_equal(n, 4);
        assert_int_equal(json_integer_value(json_object_get(args, "stride")), 2);
        assert_true(json_real_value(json_object_get(e, "dur")) == 1.0);   /* us */
        double ts = json_real_value(json_object_get(e, "ts"));
        int w = (int)ts;
        assert_true(w >= 0 && w < 10 && ts == (double)w);
        /* wave w's first block on SM s: index 8w + (its rank) */
        assert_int_equal(json_integer_value(json_object_get(args, "index")) / 8, w);
        starts[w]++;
        slices++;
        blocks += n;
    }
    assert_int_equal(slices, 20);
    assert_int_equal(blocks, 80);
    for (int w = 0; w < 10; w++) assert_int_equal(starts[w], 2);
    json_decref(root);
    jw_free(&whole);
    jw_free(&steps);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_window_by_hand),
        cmocka_unit_test(test_random_views),
        cmocka_unit_test(test_random_cohorts),
        cmocka_unit_test(test_chrome),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
