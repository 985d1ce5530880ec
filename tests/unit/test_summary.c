/* test_summary.c -- the run summary (simcore/summary.c, issue 29) against
 * a brute-force reference: on small random traces (times below 300 ns),
 * every union, idle time and overlap is counted nanosecond by nanosecond,
 * and every percentile is found by its definition (the smallest value v
 * with at least p % of the values <= v), sharing no code with the sweep
 * and sort of summary.c. Plus the numbers of one hand-worked trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../simcore/summary.h"

#define T_MAX 300

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33) % n;
}

static const char *const NAMES[] = { "gemm", "void ncclKernel_AllReduce", "ncclDevKernel_Send", "relu" };
static const char *const PROCS[] = { "rank0 gpu0", "rank1 gpu1" };
static const char *const STREAMS[] = { "7", "13", "40" };

static void random_trace(trace *t) {
    trace_init(t);
    int nk = 1 + (int)rnd(25), nc = (int)rnd(8);
    for (int i = 0; i < nk; i++) {
        trace_kernel *k = trace_add_kernel(t);
        k->name = trace_intern(t, NAMES[rnd(4)]);
        k->process = trace_intern(t, PROCS[rnd(2)]);
        k->stream = trace_intern(t, STREAMS[rnd(3)]);
        k->first_block = rnd(T_MAX - 60);
        k->end = k->first_block + rnd(60);
        if (rnd(4)) k->issue = k->first_block - (int64_t)rnd(20);
    }
    for (int i = 0; i < nc; i++) {
        trace_copy *c = trace_add_copy(t);
        c->process = trace_intern(t, PROCS[rnd(2)]);
        c->stream = trace_intern(t, STREAMS[rnd(3)]);
        c->start = rnd(T_MAX - 60);
        c->end = c->start + rnd(60);
    }
    assert_false(t->oom);
}

/* class of record i (kernels first, then copies): 1 compute, 2 comm, 4 copy */
static int cls(const trace *t, size_t i) {
    if (i >= t->kernels.n) return 4;
    const char *n = trace_str_get(t, t->kernels.v[i].name);
    if (!strncmp(n, "void ", 5)) n += 5;
    return strncmp(n, "nccl", 4) == 0 ? 2 : 1;
}

static void rec(const trace *t, size_t i, trace_str *p, trace_str *s, int64_t *a, int64_t *b) {
    if (i < t->kernels.n) {
        const trace_kernel *k = &t->kernels.v[i];
        *p = k->process; *s = k->stream; *a = k->first_block; *b = k->end;
    } else {
        const trace_copy *c = &t->copies.v[i - t->kernels.n];
        *p = c->process; *s = c->stream; *a = c->start; *b = c->end;
    }
}

/* The reference of one lane: stream 0 = the whole device. */
static void brute_lane(const trace *t, trace_str proc, trace_str stream, tsum_lane *o) {
    memset(o, 0, sizeof *o);
    size_t n = t->kernels.n + t->copies.n;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        trace_str p, s;
        int64_t a, b;
        rec(t, i, &p, &s, &a, &b);
        if (p != proc) continue;
        if (a < lo) lo = a;
        if (b > hi) hi = b;
    }
    o->window = hi - lo;
    for (int64_t tick = 0; tick < T_MAX; tick++) {
        int flags = 0, dflags = 0;
        for (size_t i = 0; i < n; i++) {
            trace_str p, s;
            int64_t a, b;
            rec(t, i, &p, &s, &a, &b);
            if (p != proc || tick < a || tick >= b) continue;
            dflags |= cls(t, i);
            if (!stream || s == stream) flags |= cls(t, i);
        }
        o->busy += flags != 0;
        o->compute += (flags & 1) != 0;
        o->comm += (flags & 2) != 0;
        o->copy += (flags & 4) != 0;
        o->comm_overlapped += (dflags & 3) == 3;
    }
    o->idle = o->window - o->busy;
}

/* nearest rank by definition */
static int64_t brute_pct(const int64_t *v, size_t n, int p) {
    int64_t best = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t le = 0;
        for (size_t j = 0; j < n; j++) le += v[j] <= v[i];
        if (100 * le >= (size_t)p * n && v[i] < best) best = v[i];
    }
    return best;
}

static void check_one(const trace *t) {
    trace_summary s;
    assert_int_equal(trace_summarize(t, &s), 0);
    size_t nd = 0;
    for (size_t d = 0; d < s.ndevices; d++) {
        tsum_lane want;
        brute_lane(t, s.devices[d].process, 0, &want);
        assert_int_equal(s.devices[d].window, want.window);
        assert_int_equal(s.devices[d].busy, want.busy);
        assert_int_equal(s.devices[d].compute, want.compute);
        assert_int_equal(s.devices[d].comm, want.comm);
        assert_int_equal(s.devices[d].copy, want.copy);
        assert_int_equal(s.devices[d].idle, want.idle);
        assert_int_equal(s.devices[d].comm_overlapped, want.comm_overlapped);
        nd++;
    }
    /* every process present is a device row */
    for (size_t p = 0; p < 2; p++) {
        trace_str id = trace_intern((trace *)t, PROCS[p]);
        bool used = false, listed = false;
        for (size_t i = 0; i < t->kernels.n; i++) used |= t->kernels.v[i].process == id;
        for (size_t i = 0; i < t->copies.n; i++) used |= t->copies.v[i].process == id;
        for (size_t d = 0; d < s.ndevices; d++) listed |= s.devices[d].process == id;
        assert_int_equal(used, listed);
    }
    size_t records = 0;
    for (size_t i = 0; i < s.nstreams; i++) {
        tsum_lane want;
        brute_lane(t, s.streams[i].process, s.streams[i].stream, &want);
        assert_int_equal(s.streams[i].window, want.window);
        assert_int_equal(s.streams[i].busy, want.busy);
        assert_int_equal(s.streams[i].compute, want.compute);
        assert_int_equal(s.streams[i].comm, want.comm);
        assert_int_equal(s.streams[i].copy, want.copy);
        assert_int_equal(s.streams[i].idle, want.idle);
        /* its records, communication kernels among the kernels (mutant:
         * sum-copy-count) */
        size_t nk = 0, nc = 0;
        for (size_t j = 0; j < t->kernels.n + t->copies.n; j++) {
            trace_str p, st;
            int64_t a, b;
            rec(t, j, &p, &st, &a, &b);
            if (p == s.streams[i].process && st == s.streams[i].stream) {
                if (cls(t, j) == 4) nc++;
                else nk++;
            }
        }
        assert_int_equal(s.streams[i].kernels, nk);
        assert_int_equal(s.streams[i].copies, nc);
        records += s.streams[i].kernels + s.streams[i].copies;
    }
    assert_int_equal(records, t->kernels.n + t->copies.n);
    /* kernels by name */
    int64_t all = 0;
    for (size_t i = 0; i < t->kernels.n; i++) all += t->kernels.v[i].end - t->kernels.v[i].first_block;
    assert_int_equal(s.kernel_time, all);
    size_t named = 0;
    for (size_t m = 0; m < s.nnames; m++) {
        int64_t d[64], total = 0, mn = INT64_MAX, mx = INT64_MIN;
        size_t n = 0;
        for (size_t i = 0; i < t->kernels.n; i++)
            if (t->kernels.v[i].name == s.names[m].name) {
                d[n++] = t->kernels.v[i].end - t->kernels.v[i].first_block;
                total += d[n - 1];
                if (d[n - 1] < mn) mn = d[n - 1];
                if (d[n - 1] > mx) mx = d[n - 1];
            }
        assert_int_equal(s.names[m].count, n);
        assert_int_equal(s.names[m].total, total);
        assert_int_equal(s.names[m].min, mn);
        assert_int_equal(s.names[m].max, mx);   /* (mutant: sum-name-max) */
        assert_int_equal(s.names[m].p50, brute_pct(d, n, 50));
        assert_int_equal(s.names[m].p95, brute_pct(d, n, 95));
        assert_true(fabs(s.names[m].mean - (double)total / (double)n) < 1e-9);
        if (all) assert_true(fabs(s.names[m].share - (double)total / (double)all) < 1e-12);
        if (m) assert_true(s.names[m - 1].total >= s.names[m].total);
        named += n;
    }
    assert_int_equal(named, t->kernels.n);
    /* launch delay */
    int64_t d[64];
    size_t n = 0;
    for (size_t i = 0; i < t->kernels.n; i++)
        if (t->kernels.v[i].issue != TRACE_NONE) d[n++] = t->kernels.v[i].first_block - t->kernels.v[i].issue;
    assert_int_equal(s.launch.count, n);
    if (n) {
        assert_int_equal(s.launch.p50, brute_pct(d, n, 50));
        assert_int_equal(s.launch.p95, brute_pct(d, n, 95));
        assert_int_equal(s.launch.p99, brute_pct(d, n, 99));
        int64_t mn = INT64_MAX, mx = INT64_MIN;
        for (size_t i = 0; i < n; i++) {
            if (d[i] < mn) mn = d[i];
            if (d[i] > mx) mx = d[i];
        }
        assert_int_equal(s.launch.min, mn);
        assert_int_equal(s.launch.max, mx);
    }
    int64_t comm = 0, over = 0;
    for (size_t i = 0; i < s.ndevices; i++) {
        comm += s.devices[i].comm;
        over += s.devices[i].comm_overlapped;
    }
    assert_int_equal(s.comm, comm);
    assert_int_equal(s.comm_overlapped, over);
    (void)nd;
    trace_summary_free(&s);
}

static void test_random_against_brute_force(void **state) {
    (void)state;
    rng_state = 29;
    for (int i = 0; i < 300; i++) {
        trace t;
        random_trace(&t);
        check_one(&t);
        trace_free(&t);
    }
}

/* By hand: gpu0 stream 7: gemm [0,100), gemm [50,150); stream 40: nccl
 * [120,220); a copy on stream 7 [300,310). Window 0..310 = 310; busy
 * [0,220) + [300,310) = 230; compute 150; comm 100; copy 10; idle 80;
 * overlap of comm with compute [120,150) = 30, share 0.3. Kernel time
 * 100 + 100 + 100 = 300: gemm 200 (2/3), nccl 100 (1/3). Launch delays
 * 10 and 30 (the nccl kernel has none): p50 10, p95 30. */
static void test_by_hand(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    int64_t ks[3][3] = { { 0, 100, 10 }, { 50, 150, 30 }, { 120, 220, -1 } };
    for (int i = 0; i < 3; i++) {
        trace_kernel *k = trace_add_kernel(&t);
        k->name = trace_intern(&t, i < 2 ? "gemm" : "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        k->process = trace_intern(&t, "gpu0");
        k->stream = trace_intern(&t, i < 2 ? "7" : "40");
        k->first_block = ks[i][0];
        k->end = ks[i][1];
        if (ks[i][2] >= 0) k->issue = ks[i][0] - ks[i][2];
    }
    trace_copy *c = trace_add_copy(&t);
    c->process = trace_intern(&t, "gpu0");
    c->stream = trace_intern(&t, "7");
    c->start = 300;
    c->end = 310;
    trace_summary s;
    assert_int_equal(trace_summarize(&t, &s), 0);
    assert_int_equal(s.ndevices, 1);
    assert_int_equal(s.devices[0].window, 310);
    assert_int_equal(s.devices[0].busy, 230);
    assert_int_equal(s.devices[0].compute, 150);
    assert_int_equal(s.devices[0].comm, 100);
    assert_int_equal(s.devices[0].copy, 10);
    assert_int_equal(s.devices[0].idle, 80);
    assert_int_equal(s.devices[0].comm_overlapped, 30);
    assert_int_equal(s.nstreams, 2);
    assert_int_equal(s.kernel_time, 300);
    assert_int_equal(s.nnames, 2);
    assert_string_equal(trace_str_get(&t, s.names[0].name), "gemm");
    assert_int_equal(s.names[0].total, 200);
    assert_true(fabs(s.names[0].share - 2.0 / 3.0) < 1e-12);
    assert_int_equal(s.launch.count, 2);
    assert_int_equal(s.launch.p50, 10);
    assert_int_equal(s.launch.p95, 30);
    assert_true(trace_is_comm_kernel("void ncclKernel_SendRecv"));
    assert_false(trace_is_comm_kernel("gemm_nccl"));
    trace_summary_free(&s);
    trace_free(&t);
}

/* An nvprof or Nsight export keeps a kernel's mangled name as its raw name
 * and the demangled one as its name (the blinkplus NCCL trace of the real
 * traces: "ncclAllReduceTreeLLKernel_sum_i32(ncclColl)", raw
 * "_Z32ncclAllReduceTreeLLKernel_sum_i328ncclColl"): it is communication
 * (docs/api.md: NCCL kernels, `nccl…` after an optional `void `). The raw
 * name alone was read, and every kernel of that trace counted as compute
 * (communication 0 s). A raw name that is the NCCL one counts too: a
 * kernel shown by a label of its own, its symbol NCCL's (the fourth;
 * mutant: sum-raw-name). */
static void test_nccl_by_either_name(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    static const char *const names[4][2] = {
        { "ncclAllReduceTreeLLKernel_sum_i32(ncclColl)", "_Z32ncclAllReduceTreeLLKernel_sum_i328ncclColl" },
        { "ncclKernel_AllReduce_RING_LL_Sum_float", "void ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)" },
        { "gemm(float*)", "_Z4gemmPf" },
        { "AllReduce_Sum_f32", "ncclDevKernel_AllReduce_Sum_f32_RING_LL" },
    };
    for (int i = 0; i < 4; i++) {
        trace_kernel *k = trace_add_kernel(&t);
        k->name = trace_intern(&t, names[i][0]);
        k->raw_name = trace_intern(&t, names[i][1]);
        k->process = trace_intern(&t, "gpu0");
        k->stream = trace_intern(&t, "7");
        k->first_block = 100 * i;
        k->end = 100 * i + 50;
    }
    trace_summary s;
    assert_int_equal(trace_summarize(&t, &s), 0);
    assert_int_equal(s.ndevices, 1);
    assert_int_equal(s.devices[0].comm, 150);
    assert_int_equal(s.devices[0].compute, 50);
    trace_summary_free(&s);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nccl_by_either_name),
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_random_against_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
