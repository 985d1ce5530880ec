/* test_spyramid_copies.c -- the copy lanes of kernel-level traces
 * (db/spyramid.h, issue 9: a 1M-row nvprof trace is mostly copies): every
 * level's bins of random runs (copies on several engines and none,
 * overlapping copies on one engine, zero-length ones, copies without a
 * start or an end or ending before they start, windows on bin edges and off
 * them, levels above the stored top, windows finer than z0) equal the same
 * bins computed by brute force from the copies, per engine and per
 * direction; a window's copies equal the copies overlapping it, by id; a
 * hand-made run's exact numbers; the pyramid is built on the first read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "../../db/db.h"
#include "../../db/spyramid.h"
#include "../../simcore/trace.h"
#include "test_db_util.h"
#include "test_pyr_util.h"

typedef tdb_exp fixture;

static bool timed(const trace_copy *c) {
    return c->start != TRACE_NONE && c->end != TRACE_NONE && c->end >= c->start;
}

/* the lane's engine as the timeline draws it: none is engine 0 */
static int64_t engine_of(const trace_copy *c) {
    return c->engine < 0 ? 0 : c->engine;
}

/* brute force over [a, b): copy-ns and the most copies at once of engine
 * e (dir -1: every direction), the count rising only at starts */
static void ref_bin(const trace *t, int64_t e, int dir, int64_t a, int64_t b, int64_t *sum,
                    int64_t *mx) {
    *sum = 0, *mx = 0;
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        if (!timed(c) || engine_of(c) != e || (dir >= 0 && c->direction != dir)) continue;
        int64_t lo = c->start > a ? c->start : a, hi = c->end < b ? c->end : b;
        if (hi > lo) *sum += hi - lo;
    }
    for (size_t j = 0; j <= t->copies.n; j++) {
        int64_t T = j == t->copies.n ? a : t->copies.v[j].start;
        if (j < t->copies.n && !timed(&t->copies.v[j])) continue;
        if (T < a || T >= b) continue;
        int64_t on = 0;
        for (size_t i = 0; i < t->copies.n; i++) {
            const trace_copy *c = &t->copies.v[i];
            if (timed(c) && engine_of(c) == e && (dir < 0 || c->direction == dir) && c->start <= T &&
                T < c->end)
                on++;
        }
        if (on > *mx) *mx = on;
    }
}

static void random_trace(trace *t, uint64_t *s, size_t n, int64_t span) {
    static const int32_t engines[] = {-1, 0, 1, 3};
    trace_init(t);
    trace_str nm[3] = {trace_intern(t, "[CUDA memcpy HtoD]"), trace_intern(t, "[CUDA memcpy DtoH]"),
                       trace_intern(t, "[CUDA memset]")};
    trace_str st = trace_intern(t, "7");
    for (size_t i = 0; i < n; i++) {
        trace_copy *c = trace_add_copy(t);
        c->name = nm[rng_next(s) % 3];
        c->stream = st;
        c->direction = (int32_t)(rng_next(s) % SPYR_COPY_DIRS);
        c->engine = engines[rng_next(s) % 4];
        c->bytes = (int64_t)(rng_next(s) % 100000);
        c->issue = (int64_t)(rng_next(s) % (uint64_t)span);
        c->start = c->issue + (int64_t)(rng_next(s) % 7);
        uint64_t k = rng_next(s) % 20;
        c->end = k == 0 ? c->start : c->start + 1 + (int64_t)(rng_next(s) % (uint64_t)(span / 8 + 1));
        if (k == 1) c->start = TRACE_NONE;
        if (k == 2) c->end = TRACE_NONE;
        if (k == 3) c->end = c->start - 1;
    }
}

static void check_window(fixture *f, const cpyr_info *in, const trace *t, int64_t from, int64_t to,
                         int64_t want, int zwant) {
    cpyr_bins b;
    char err[256];
    if (db_spyramid_copy_bins(f->t.d, in, from, to, want, &b, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(b.z, zwant);
    assert_int_equal(b.bin_ns, (int64_t)1 << zwant);
    assert_true(b.k0 * b.bin_ns <= from && (b.k0 + 1) * b.bin_ns > from);
    assert_true((b.k0 + (int64_t)b.nbins) * b.bin_ns >= to);
    assert_int_equal(b.nlanes, in->nengines);
    for (size_t l = 0; l < b.nlanes; l++)
        for (size_t i = 0; i < b.nbins; i++) {
            int64_t a = (b.k0 + (int64_t)i) * b.bin_ns, sum, mx;
            ref_bin(t, in->engines[l], -1, a, a + b.bin_ns, &sum, &mx);
            if (b.copy_ns[l * b.nbins + i] != sum || b.max_copies[l * b.nbins + i] != mx)
                fail_msg("engine %lld bin %zu at z %d: %lld/%lld, want %lld/%lld",
                         (long long)in->engines[l], i, b.z, (long long)b.copy_ns[l * b.nbins + i],
                         (long long)b.max_copies[l * b.nbins + i], (long long)sum, (long long)mx);
            for (int dir = 0; dir < SPYR_COPY_DIRS; dir++) {
                ref_bin(t, in->engines[l], dir, a, a + b.bin_ns, &sum, &mx);
                assert_int_equal(b.dir_ns[(l * SPYR_COPY_DIRS + (size_t)dir) * b.nbins + i], sum);
            }
        }
    cpyr_bins_free(&b);
}

static void check_copies(fixture *f, const cpyr_info *in, const trace *t, int64_t from, int64_t to,
                         int64_t max) {
    trace out;
    trace_init(&out);
    int64_t *ids;
    size_t n;
    char err[256];
    if (db_spyramid_copies(f->t.d, in, from, to, max, &out, &ids, &n, err, sizeof err))
        fail_msg("%s", err);
    size_t want = 0;
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        if (!timed(c) || !(c->start < to && c->end > from)) continue;
        /* past max the answer is only "more": ids may hold none */
        if ((int64_t)n <= max && want < n) {
            assert_int_equal(ids[want], (int64_t)i);
            const trace_copy *o = &out.copies.v[want];
            assert_int_equal(o->start, c->start);
            assert_int_equal(o->end, c->end);
            assert_int_equal(o->issue, c->issue);
            assert_int_equal(o->bytes, c->bytes);
            assert_int_equal(o->engine, c->engine);
            assert_int_equal(o->direction, c->direction);
            assert_string_equal(trace_str_get(&out, o->name), trace_str_get(t, c->name));
        }
        want++;
    }
    if ((int64_t)want <= max) assert_int_equal(n, want);
    else assert_int_equal(n, (size_t)max + 1);   /* past max: "more", no rows needed */
    free(ids);
    trace_free(&out);
}

static void test_random_runs(void **state) {
    fixture *f = *state;
    uint64_t s = 0x2545f4914f6cdd1dull;
    static const int64_t spans[] = {40, 5000, 300000, (int64_t)1 << 30};
    for (int r = 0; r < 8; r++) {
        trace t;
        size_t n = r == 3 ? 1500 : 20 + (size_t)(rng_next(&s) % 250);
        random_trace(&t, &s, n, spans[r % 4]);
        char slug[DB_SLUG_SIZE], err[256], name[16];
        snprintf(name, sizeof name, "c%d", r);
        tdb_exp_store(f, name, &t, slug);
        assert_int_equal(tdb_run_rows(f->t.d, "copy_pyramids", slug), 0);
        cpyr_info in;
        if (db_spyramid_copy_info(f->t.d, slug, &in, err, sizeof err)) fail_msg("%s", err);
        assert_int_equal(tdb_run_rows(f->t.d, "copy_pyramids", slug), 1);
        assert_int_equal(in.total_copies, (int64_t)t.copies.n);
        /* the engines of timed copies, ascending, none as 0 */
        bool has[4] = {false};
        int64_t ntimed = 0;
        for (size_t i = 0; i < t.copies.n; i++)
            if (timed(&t.copies.v[i])) has[engine_of(&t.copies.v[i])] = true, ntimed++;
        assert_int_equal(in.ncopies, ntimed);
        size_t ne = 0;
        for (int64_t e = 0; e < 4; e++)
            if (has[e]) {
                assert_true(ne < in.nengines);
                assert_int_equal(in.engines[ne++], e);
            }
        assert_int_equal(in.nengines, ne);
        assert_true(in.z0 <= in.ztop);
        if (r == 3) assert_true(in.z0 > 0);
        int64_t t1 = in.t_max;
        for (int z = in.z0; z <= in.ztop + 2; z++)
            for (int k = 0; k < 3; k++) {
                int64_t want, from = pyr_random_window(&s, t1, z, k == 0, &want);
                check_window(f, &in, &t, from, from + want * ((int64_t)1 << z), want, z);
            }
        check_window(f, &in, &t, t1 / 3, t1 / 3 + 1, 100, in.z0);
        for (int k = 0; k < 6; k++) {
            int64_t a = (int64_t)(rng_next(&s) % (uint64_t)(t1 + 1)),
                    w = 1 + (int64_t)(rng_next(&s) % (uint64_t)(t1 / 4 + 1));
            check_copies(f, &in, &t, a, a + w, k % 2 ? 5 : 100000);
        }
        check_copies(f, &in, &t, -100, t1 + 1, 100000);
        check_copies(f, &in, &t, -100, t1 + 1, 5);
        cpyr_info_free(&in);
        trace_free(&t);
    }
}

/* a hand-made run: exact numbers. Engine 1: an H2D copy [0, 8) and a D2H
 * copy [4, 12); a copy without an engine [2, 3) (lane 0); a memset of no
 * length at 5 on engine 1. Level 2 (bins of 4 ns) from 0: engine 1's bins
 * [0,4) 4 ns, max 1; [4,8) 8 ns, max 2; [8,12) 4 ns, max 1. */
static void test_exact(void **state) {
    fixture *f = *state;
    trace t;
    trace_init(&t);
    static const struct { int32_t engine, dir; int64_t start, end; } cs[] = {
        {1, TRACE_COPY_H2D, 0, 8},
        {1, TRACE_COPY_D2H, 4, 12},
        {-1, TRACE_COPY_H2D, 2, 3},
        {1, TRACE_COPY_MEMSET, 5, 5},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        trace_copy *c = trace_add_copy(&t);
        c->engine = cs[i].engine;
        c->direction = cs[i].dir;
        c->issue = c->start = cs[i].start;
        c->end = cs[i].end;
        c->bytes = 64;
    }
    char slug[DB_SLUG_SIZE], err[256];
    tdb_exp_store(f, "x", &t, slug);
    cpyr_info in;
    if (db_spyramid_copy_info(f->t.d, slug, &in, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(in.nengines, 2);
    assert_int_equal(in.engines[0], 0);
    assert_int_equal(in.engines[1], 1);
    assert_int_equal(in.t_min, 0);
    assert_int_equal(in.t_max, 12);
    assert_int_equal(in.ncopies, 4);
    cpyr_bins b;
    /* 12 ns over 3 bins: bins of 4 ns at least (z 2), unless z0 is coarser */
    if (db_spyramid_copy_bins(f->t.d, &in, 0, 12, 3, &b, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(b.z, 2);
    assert_int_equal(b.nbins, 3);
    assert_int_equal(b.k0, 0);
    static const int64_t ns1[] = {4, 8, 4}, mx1[] = {1, 2, 1}, h2d1[] = {4, 4, 0}, d2h1[] = {0, 4, 4};
    static const int64_t ns0[] = {1, 0, 0}, mx0[] = {1, 0, 0};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(b.copy_ns[3 + i], ns1[i]);
        assert_int_equal(b.max_copies[3 + i], mx1[i]);
        assert_int_equal(b.dir_ns[(1 * SPYR_COPY_DIRS + TRACE_COPY_H2D) * 3 + i], h2d1[i]);
        assert_int_equal(b.dir_ns[(1 * SPYR_COPY_DIRS + TRACE_COPY_D2H) * 3 + i], d2h1[i]);
        assert_int_equal(b.dir_ns[(1 * SPYR_COPY_DIRS + TRACE_COPY_MEMSET) * 3 + i], 0);
        assert_int_equal(b.copy_ns[i], ns0[i]);
        assert_int_equal(b.max_copies[i], mx0[i]);
    }
    cpyr_bins_free(&b);
    /* the window [4, 6): the two copies of engine 1 and the memset at 5 */
    trace out;
    trace_init(&out);
    int64_t *ids;
    size_t n;
    if (db_spyramid_copies(f->t.d, &in, 4, 6, 10, &out, &ids, &n, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(n, 3);
    assert_int_equal(ids[0], 0);
    assert_int_equal(ids[1], 1);
    assert_int_equal(ids[2], 3);
    free(ids);
    trace_free(&out);
    cpyr_info_free(&in);
    trace_free(&t);
}

/* a run without copies: no lane, empty bins, no window rows */
static void test_none(void **state) {
    fixture *f = *state;
    trace t;
    trace_init(&t);
    trace_copy *c = trace_add_copy(&t);
    c->engine = 0;
    c->start = c->end = TRACE_NONE;
    char slug[DB_SLUG_SIZE], err[256];
    tdb_exp_store(f, "n", &t, slug);
    cpyr_info in;
    if (db_spyramid_copy_info(f->t.d, slug, &in, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(in.nengines, 0);
    assert_int_equal(in.total_copies, 1);
    assert_true(in.z0 > in.ztop);
    cpyr_bins b;
    if (db_spyramid_copy_bins(f->t.d, &in, 0, 100, 10, &b, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(b.nlanes, 0);
    cpyr_bins_free(&b);
    check_copies(f, &in, &t, 0, 100, 10);
    cpyr_info_free(&in);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_exact, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_random_runs, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_none, tdb_exp_setup, tdb_exp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
