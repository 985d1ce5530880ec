/* test_spyramid.c -- the per-stream pyramid of kernel-level traces
 * (db/spyramid.h, issue 9): every level's bins of random runs (overlapping
 * kernels in one stream, zero-length kernels, kernels without an end or
 * with only an issue time, windows cut at bin edges and off them, levels
 * above the stored top and windows finer than z0) equal the same bins
 * computed by brute force from the kernels themselves, for every name
 * shown and for random subsets of names; a window's kernels equal the
 * kernels overlapping it; hand-made exact numbers; the pyramid is built on
 * the first read, not by the store. */
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

/* ---- the reference: straight from the trace's kernels --------------------------------- */

static int64_t kstart(const trace_kernel *k) {
    return k->first_block != TRACE_NONE ? k->first_block : k->issue;
}

static bool timed(const trace_kernel *k) {
    return kstart(k) != TRACE_NONE && k->end != TRACE_NONE && k->end >= kstart(k);
}

/* the lane of each kernel: its (process, stream) among the trace's, in
 * order of first kernel; the name index likewise (lane[i], name[i]) */
static void lanes_names(const trace *t, size_t *lane, size_t *name) {
    size_t nl = 0, nn = 0;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        lane[i] = name[i] = SIZE_MAX;
        for (size_t j = 0; j < i; j++) {
            if (lane[i] == SIZE_MAX && t->kernels.v[j].process == k->process &&
                t->kernels.v[j].stream == k->stream)
                lane[i] = lane[j];
            if (name[i] == SIZE_MAX && t->kernels.v[j].name == k->name) name[i] = name[j];
        }
        if (lane[i] == SIZE_MAX) lane[i] = nl++;
        if (name[i] == SIZE_MAX) name[i] = nn++;
    }
}

typedef struct rk {
    int64_t s, e, thr;
    size_t lane, name;
} rk;

static size_t ref_kernels(const trace *t, const size_t *lane, const size_t *name, rk *out) {
    size_t n = 0;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        if (!timed(k)) continue;
        out[n++] = (rk){kstart(k), k->end, (int64_t)k->threads * k->blocks, lane[i], name[i]};
    }
    return n;
}

/* integrals over [a, b) and maxima at any instant of [a, b) of lane's
 * kernels whose name passes `shown` (NULL: all); the count only rises at a
 * start, so the instants to look at are a and the starts inside */
static void ref_bin(const rk *ks, size_t n, size_t lane, const uint8_t *shown, int64_t a, int64_t b,
                    int64_t out[4]) {
    memset(out, 0, 4 * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        const rk *k = &ks[i];
        if (k->lane != lane || (shown && !(shown[k->name >> 3] >> (k->name & 7) & 1))) continue;
        int64_t lo = k->s > a ? k->s : a, hi = k->e < b ? k->e : b;
        if (hi > lo) out[0] += hi - lo, out[1] += (hi - lo) * k->thr;
    }
    for (size_t c = 0; c <= n; c++) {
        int64_t T = c == n ? a : ks[c].s;
        if (T < a || T >= b) continue;
        int64_t nk = 0, nt = 0;
        for (size_t i = 0; i < n; i++) {
            const rk *k = &ks[i];
            if (k->lane != lane || (shown && !(shown[k->name >> 3] >> (k->name & 7) & 1))) continue;
            if (k->s <= T && T < k->e) nk++, nt += k->thr;
        }
        if (nk > out[2]) out[2] = nk;
        if (nt > out[3]) out[3] = nt;
    }
}

/* A random kernel-level run: nl streams (two processes sometimes), 3
 * names, n kernels over [0, span): overlapping kernels in a stream,
 * zero-length ones, some with only an issue time, some without an end. */
static void random_trace(trace *t, uint64_t *s, size_t nl, size_t n, int64_t span) {
    trace_init(t);
    trace_str names[3] = {trace_intern(t, "gemm"), trace_intern(t, "axpy<float>"), trace_intern(t, "k")};
    trace_str procs[2] = {trace_intern(t, "P0"), trace_intern(t, "P1")};
    char buf[16];
    trace_str streams[8];
    for (size_t i = 0; i < 8; i++) snprintf(buf, sizeof buf, "%zu", 7 + i), streams[i] = trace_intern(t, buf);
    for (size_t i = 0; i < n; i++) {
        trace_kernel *k = trace_add_kernel(t);
        k->name = names[rng_next(s) % 3];
        size_t l = rng_next(s) % nl;
        k->stream = streams[l % 8];
        k->process = procs[l / 8 % 2 ? 1 : (rng_next(s) % 7 == 0)];
        k->threads = (int32_t)(32 * (1 + rng_next(s) % 8));
        k->blocks = (int64_t)(1 + rng_next(s) % 100);
        int64_t st = (int64_t)(rng_next(s) % (uint64_t)span);
        int64_t len = rng_next(s) % 6 == 0 ? 0 : (int64_t)(rng_next(s) % (uint64_t)(span / 10 + 2));
        k->issue = st;
        if (rng_next(s) % 5) k->first_block = st;
        if (rng_next(s) % 23) k->end = st + len;
    }
}

static void check_window(fixture *f, const spyr_info *in, const rk *ks, size_t n, int64_t from,
                         int64_t to, int64_t want, const uint8_t *shown, int expect_z) {
    spyr_bins b;
    char err[256];
    if (db_spyramid_bins(f->t.d, in, from, to, want, shown, &b, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(b.z, expect_z);
    assert_int_equal(b.bin_ns, (int64_t)1 << expect_z);
    /* the whole bins covering [from, to) */
    assert_true(b.k0 * b.bin_ns <= from && (b.k0 + 1) * b.bin_ns > from);
    assert_true((b.k0 + (int64_t)b.nbins) * b.bin_ns >= to && (b.k0 + (int64_t)b.nbins - 1) * b.bin_ns < to);
    assert_int_equal(b.nlanes, in->nlanes);
    for (size_t l = 0; l < b.nlanes; l++) {
        /* a lane with only some names shown: its maxima are the sum of the
         * shown names' capped by the whole lane's (spyramid.h) */
        bool partial = false;
        if (shown) {
            bool some = false, all = true;
            for (size_t i = 0; i < n; i++) {
                if (ks[i].lane != l) continue;
                bool on = shown[ks[i].name >> 3] >> (ks[i].name & 7) & 1;
                some |= on, all &= on;
            }
            partial = some && !all;
        }
        for (size_t i = 0; i < b.nbins; i++) {
            int64_t a = (b.k0 + (int64_t)i) * b.bin_ns, v[4];
            ref_bin(ks, n, l, shown, a, a + b.bin_ns, v);
            if (partial) {
                int64_t whole[4], sk = 0, sth = 0;
                ref_bin(ks, n, l, NULL, a, a + b.bin_ns, whole);
                for (size_t nm = 0; nm < in->nnames; nm++) {
                    if (!(shown[nm >> 3] >> (nm & 7) & 1)) continue;
                    uint8_t one[8] = {0};
                    one[nm >> 3] = (uint8_t)(1u << (nm & 7));
                    int64_t x[4];
                    ref_bin(ks, n, l, one, a, a + b.bin_ns, x);
                    sk += x[2], sth += x[3];
                }
                v[2] = sk < whole[2] ? sk : whole[2];
                v[3] = sth < whole[3] ? sth : whole[3];
            }
            size_t o = l * b.nbins + i;
            if (b.kernel_ns[o] != v[0] || b.thread_ns[o] != v[1] || b.max_kernels[o] != v[2] ||
                b.max_threads[o] != v[3])
                fail_msg("z=%d lane %zu bin %lld: pyramid (%lld, %lld, %lld, %lld), kernels (%lld, %lld, "
                         "%lld, %lld)",
                         b.z, l, (long long)(b.k0 + (int64_t)i), (long long)b.kernel_ns[o],
                         (long long)b.thread_ns[o], (long long)b.max_kernels[o],
                         (long long)b.max_threads[o], (long long)v[0], (long long)v[1],
                         (long long)v[2], (long long)v[3]);
        }
    }
    spyr_bins_free(&b);
}

/* The window [from, to) read with at most max kernels: n rows, the first
 * nids of them kernels ids[]. */
static void expect_kernels(fixture *f, const spyr_info *in, int64_t from, int64_t to, int64_t max,
                           size_t want_n, const int64_t *want_ids, size_t nids) {
    trace w;
    int64_t *ids;
    size_t n;
    char err[256];
    trace_init(&w);
    assert_int_equal(db_spyramid_kernels(f->t.d, in, from, to, max, &w, &ids, &n, err, sizeof err),
                     0);
    assert_int_equal(n, want_n);
    for (size_t i = 0; i < nids; i++) assert_int_equal(ids[i], want_ids[i]);
    free(ids);
    trace_free(&w);
}

/* the window's kernels against the trace's: ids in order, at most max + 1 */
static void check_kernels(fixture *f, const spyr_info *in, const trace *t, int64_t from, int64_t to,
                          int64_t max) {
    trace w;
    trace_init(&w);
    int64_t *ids;
    size_t n;
    char err[256];
    if (db_spyramid_kernels(f->t.d, in, from, to, max, &w, &ids, &n, err, sizeof err)) fail_msg("%s", err);
    size_t want = 0;
    for (size_t i = 0; i < t->kernels.n; i++)
        want += timed(&t->kernels.v[i]) && kstart(&t->kernels.v[i]) < to && t->kernels.v[i].end > from;
    if ((int64_t)want > max) {
        /* more than max: that is all it says (rows may not be read) */
        assert_int_equal(n, (size_t)max + 1);
        free(ids);
        trace_free(&w);
        return;
    }
    size_t j = 0;
    for (size_t i = 0; i < t->kernels.n && (int64_t)j <= max; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        if (!timed(k) || !(kstart(k) < to && k->end > from)) continue;
        assert_true(j < n);
        assert_int_equal(ids[j], (int64_t)i);
        assert_int_equal(w.kernels.v[j].end, k->end);
        assert_int_equal(w.kernels.v[j].issue, k->issue);
        assert_string_equal(trace_str_get(&w, w.kernels.v[j].name), trace_str_get(t, k->name));
        j++;
    }
    assert_int_equal(n, j);
    free(ids);
    trace_free(&w);
}

static void test_random_runs(void **state) {
    fixture *f = *state;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    /* spans from a few ns (z0 = 0) to 2^30 ns */
    static const int64_t spans[] = {40, 5000, 300000, (int64_t)1 << 30};
    rk *ks = malloc(3000 * sizeof *ks);
    for (int r = 0; r < 8; r++) {
        trace t;
        size_t nk = 30 + (size_t)(rng_next(&s) % 300);
        /* run 3: 800 kernels in 2 lanes over 2^30 ns: z0 above 0 */
        if (r == 3) nk = 800;
        random_trace(&t, &s, r == 3 ? 2 : 1 + (size_t)(rng_next(&s) % 10), nk, spans[r % 4]);
        char slug[DB_SLUG_SIZE], err[256], name[16];
        snprintf(name, sizeof name, "r%d", r);
        tdb_exp_store(f, name, &t, slug);
        /* built by the first read, not by the store */
        assert_int_equal(tdb_run_rows(f->t.d, "stream_pyramids", slug), 0);
        spyr_info in;
        if (db_spyramid_info(f->t.d, slug, &in, err, sizeof err)) fail_msg("%s", err);
        assert_int_equal(tdb_run_rows(f->t.d, "stream_pyramids", slug), 1);
        size_t *lane = malloc(t.kernels.n * sizeof *lane), *nm = malloc(t.kernels.n * sizeof *nm);
        lanes_names(&t, lane, nm);
        size_t n = ref_kernels(&t, lane, nm, ks);
        assert_int_equal(in.nkernels, (int64_t)n);
        assert_int_equal(in.total_kernels, (int64_t)t.kernels.n);
        /* lanes and names in order of first appearance */
        size_t nl = 0;
        for (size_t i = 0; i < t.kernels.n; i++)
            if (lane[i] + 1 > nl) nl = lane[i] + 1;
        assert_int_equal(in.nlanes, nl);
        for (size_t i = 0; i < t.kernels.n; i++) {
            const trace_kernel *k = &t.kernels.v[i];
            assert_string_equal(in.names[nm[i]], trace_str_get(&t, k->name));
            assert_string_equal(in.stream[lane[i]], trace_str_get(&t, k->stream));
            assert_string_equal(in.process[lane[i]], trace_str_get(&t, k->process));
        }
        free(lane);
        free(nm);
        assert_true(in.z0 <= in.ztop);
        if (r == 3) assert_true(in.z0 > 0);
        int64_t t1 = in.t_max;
        for (int z = in.z0; z <= in.ztop + 2; z++)
            for (int k = 0; k < 3; k++) {
                /* on a bin edge, or off it */
                int64_t want, from = pyr_random_window(&s, t1, z, k == 0, &want);
                int64_t to = from + want * ((int64_t)1 << z);
                uint8_t shown[1] = {(uint8_t)(rng_next(&s) & 7)};
                check_window(f, &in, ks, n, from, to, want, NULL, z);
                check_window(f, &in, ks, n, from, to, want, shown, z);
            }
        /* a window finer than z0 is answered at z0 */
        check_window(f, &in, ks, n, t1 / 3, t1 / 3 + 1, 100, NULL, in.z0);
        for (int k = 0; k < 6; k++) {
            int64_t a = (int64_t)(rng_next(&s) % (uint64_t)(t1 + 1)), w = 1 + (int64_t)(rng_next(&s) % (uint64_t)(t1 / 4 + 1));
            check_kernels(f, &in, &t, a, a + w, k % 2 ? 5 : 100000);
        }
        check_kernels(f, &in, &t, -100, t1 + 1, 100000);
        /* the whole run past max: answered from the chunk index alone */
        check_kernels(f, &in, &t, -100, t1 + 1, 5);
        spyr_info_free(&in);
        trace_free(&t);
    }
    free(ks);
}

/* a hand-made run: exact numbers */
static void test_exact(void **state) {
    fixture *f = *state;
    trace t;
    trace_init(&t);
    trace_str a = trace_intern(&t, "a"), b = trace_intern(&t, "b"), s7 = trace_intern(&t, "7"),
              s9 = trace_intern(&t, "9"), p = trace_intern(&t, "P0");
    struct { trace_str name, stream; int64_t s, e; int32_t thr; } kk[] = {
        {a, s7, 2, 6, 32},    /* stream 7: a on [2,6) */
        {b, s7, 4, 10, 64},   /* overlapping b on [4,10) */
        {a, s9, 5, 5, 32},    /* stream 9: zero-length: never runs */
        {a, s9, 12, 14, 32},
    };
    for (size_t i = 0; i < 4; i++) {
        trace_kernel *k = trace_add_kernel(&t);
        k->name = kk[i].name, k->stream = kk[i].stream, k->process = p;
        k->threads = kk[i].thr, k->blocks = 2;
        k->issue = k->first_block = kk[i].s, k->end = kk[i].e;
    }
    char slug[DB_SLUG_SIZE], err[256];
    tdb_exp_store(f, "x", &t, slug);
    trace_free(&t);
    spyr_info in;
    if (db_spyramid_info(f->t.d, slug, &in, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(in.nlanes, 2);
    assert_int_equal(in.nnames, 2);
    assert_string_equal(in.stream[0], "7");
    assert_string_equal(in.names[1], "b");
    assert_int_equal(in.t_min, 2);
    assert_int_equal(in.t_max, 14);
    /* ztop: the first level whose one bin holds [2, 14]: 2^4 (2 >> 4 == 14 >> 4) */
    assert_int_equal(in.ztop, 4);
    /* [0, 16) in 4 bins of 4 ns, stream 7: [0,4): a 2 ns; [4,8): a 2 + b 4
     * = 6 kernel-ns, max 2 kernels, 2*(2*32*2... threads: a 64, b 128 */
    spyr_bins sb;
    if (db_spyramid_bins(f->t.d, &in, 0, 16, 4, NULL, &sb, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(sb.z, 2);
    assert_int_equal(sb.nbins, 4);
    int64_t k7[] = {2, 6, 2, 0}, t7[] = {128, 2 * 64 + 4 * 128, 2 * 128, 0}, m7[] = {1, 2, 1, 0},
            mt7[] = {64, 192, 128, 0};
    int64_t k9[] = {0, 0, 0, 2}, m9[] = {0, 0, 0, 1};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(sb.kernel_ns[i], k7[i]);
        assert_int_equal(sb.thread_ns[i], t7[i]);
        assert_int_equal(sb.max_kernels[i], m7[i]);
        assert_int_equal(sb.max_threads[i], mt7[i]);
        assert_int_equal(sb.kernel_ns[4 + i], k9[i]);
        assert_int_equal(sb.max_kernels[4 + i], m9[i]);
    }
    assert_true(sb.max_exact);
    spyr_bins_free(&sb);
    /* only b shown: stream 7 keeps b's [4,10), stream 9 nothing; maxima
     * of a partly shown lane are bounds, and say so */
    uint8_t onlyb[1] = {2};
    if (db_spyramid_bins(f->t.d, &in, 0, 16, 4, onlyb, &sb, err, sizeof err)) fail_msg("%s", err);
    int64_t kb[] = {0, 4, 2, 0};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(sb.kernel_ns[i], kb[i]);
        assert_int_equal(sb.kernel_ns[4 + i], 0);
    }
    assert_int_equal(sb.max_kernels[1], 1);
    assert_false(sb.max_exact);
    spyr_bins_free(&sb);
    /* a level above the top: one bin of 2^5 holds everything */
    if (db_spyramid_bins(f->t.d, &in, 0, 32, 1, NULL, &sb, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(sb.nbins, 1);
    assert_int_equal(sb.kernel_ns[0], 10);
    assert_int_equal(sb.max_kernels[0], 2);
    assert_int_equal(sb.kernel_ns[1], 2);
    spyr_bins_free(&sb);
    /* the window [5, 6): a and b; [6, 12): b only; [10, 12): none */
    static const int64_t ab[] = {0, 1};
    expect_kernels(f, &in, 5, 6, 10, 2, ab, 2);
    expect_kernels(f, &in, 10, 12, 10, 0, NULL, 0);
    /* max 1: stops at 2 (more than max) */
    expect_kernels(f, &in, 0, 16, 1, 2, NULL, 0);
    spyr_info_free(&in);
    /* built once; gone rows are built again identically */
    assert_int_equal(tdb_run_rows(f->t.d, "stream_pyramids", slug), 1);
    int64_t cells = tdb_run_rows(f->t.d, "stream_bins", slug);
    assert_true(cells > 0);
    char sql[160];
    snprintf(sql, sizeof sql, "DELETE FROM stream_pyramids WHERE run = (SELECT id FROM runs WHERE slug = '%s')", slug);
    assert_int_equal(sqlite3_exec(db_handle(f->t.d), sql, NULL, NULL, NULL), SQLITE_OK);
    if (db_spyramid_info(f->t.d, slug, &in, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(tdb_run_rows(f->t.d, "stream_bins", slug), cells);
    spyr_info_free(&in);
    assert_int_equal(db_spyramid_info(f->t.d, "nosuchrun0", &in, err, sizeof err), DB_NOT_FOUND);
}

/* kernels without an end are in no bin and no window */
static void test_untimed(void **state) {
    fixture *f = *state;
    trace t;
    trace_init(&t);
    for (int i = 0; i < 2; i++) {
        trace_kernel *k = trace_add_kernel(&t);
        k->name = trace_intern(&t, "k"), k->stream = trace_intern(&t, "1");
        k->issue = 10 * i;
    }
    char slug[DB_SLUG_SIZE], err[256];
    tdb_exp_store(f, "u", &t, slug);
    trace_free(&t);
    spyr_info in;
    if (db_spyramid_info(f->t.d, slug, &in, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(in.nkernels, 0);
    assert_int_equal(in.total_kernels, 2);
    assert_int_equal(in.nlanes, 1);
    assert_true(in.z0 > in.ztop);
    assert_true(in.t_min == TRACE_NONE);
    spyr_bins sb;
    if (db_spyramid_bins(f->t.d, &in, 0, 64, 8, NULL, &sb, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(sb.nbins, 8);
    for (size_t i = 0; i < 8; i++) assert_int_equal(sb.kernel_ns[i] + sb.max_kernels[i], 0);
    spyr_bins_free(&sb);
    expect_kernels(f, &in, 0, 100, 10, 0, NULL, 0);
    spyr_info_free(&in);

    /* the timed ones' bounds whatever their order: [40, 50) before [10, 20),
     * and one without times */
    trace_init(&t);
    static const int64_t se[3][2] = {{40, 50}, {10, 20}, {TRACE_NONE, TRACE_NONE}};
    for (int i = 0; i < 3; i++) {
        trace_kernel *k = trace_add_kernel(&t);
        k->name = trace_intern(&t, "k"), k->stream = trace_intern(&t, "1");
        k->threads = 32, k->blocks = 1;
        k->issue = k->first_block = se[i][0], k->end = se[i][1];
    }
    tdb_exp_store(f, "v", &t, slug);
    trace_free(&t);
    if (db_spyramid_info(f->t.d, slug, &in, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(in.nkernels, 2);
    assert_int_equal(in.total_kernels, 3);
    assert_int_equal(in.t_min, 10);
    assert_int_equal(in.t_max, 50);
    assert_int_equal(in.ztop, 6);   /* 10 >> 6 == 50 >> 6 == 0; at 2^5, 0 and 1 */
    spyr_info_free(&in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_exact, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_random_runs, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_untimed, tdb_exp_setup, tdb_exp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
