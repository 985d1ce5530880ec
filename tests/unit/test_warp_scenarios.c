/* test_warp_scenarios.c -- the shipped warp-level scenarios (scenarios/qaws-*
 * and most-room-table1-*), from their files through scn_parse_file and
 * sim_run, with exact outcomes:
 *
 *   qaws-fig3                    QAWS paper Fig. 3, every cycle the text names
 *   qaws-v-homogeneous-compute   QAWS §V, a compute-intensive homogeneous pair
 *   qaws-v-homogeneous-latency   QAWS §V, a latency-bound homogeneous pair
 *   most-room-table1-compute     most-room Table 1, compute-intensive (fp32 pipes)
 *   most-room-table1-memory      ... and memory-intensive (the memory system),
 *                                against the paper's slowdowns (issue 25)
 *   most-room-table1-l1          ... and L1-cache-dependent (the L1)
 *   most-room-table1-transfer    ... and transfer-bound (unified memory)
 *
 * Scenarios are found under $SCHEDLAB_ROOT/scenarios, or ./scenarios. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_scn_util.h"

static int64_t rt(const trace *t, const char *name) {
    const trace_kernel *k = kern(t, name);
    return k->end - k->issue;
}

static int64_t exec_time(const trace *t, const char *name) {
    const trace_kernel *k = kern(t, name);
    return k->end - k->first_block;
}

/* ---- QAWS Fig. 3 ------------------------------------------------------------
 * The program and its derivation are in test_warp.c; here the shipped file
 * must give the same four panels. The issue strings give, per cycle, the
 * warp that issued (w0, w1: K1; w2, w3: K2). */
static void fig3(const char *run, const char *want, int64_t end1, int64_t end2) {
    trace t;
    scn_simulate("qaws-fig3.json", run, &t);
    char got[64];
    memset(got, '.', sizeof got);
    int64_t last = 0;
    for (size_t i = 0; i < t.warp_issues.n; i++) {
        const trace_warp_issue *w = &t.warp_issues.v[i];
        assert_true(w->cycle < 63);
        got[w->cycle] = (char)('0' + w->warp);
        if (w->cycle > last) last = w->cycle;
    }
    got[last + 1] = '\0';
    assert_string_equal(got, want);
    assert_int_equal(kern(&t, "K1")->end, end1);
    assert_int_equal(kern(&t, "K2")->end, end2);
    assert_int_equal(kern(&t, "K1")->instructions, 18);
    assert_int_equal(kern(&t, "K2")->instructions, 18);
    assert_string_equal(trace_get_meta(&t, "execution"), "warp");
    trace_free(&t);
}

static void test_fig3(void **state) {
    (void)state;
    /* Fig. 3c, budgets K1 = 1, K2 = 4: w0 at 0, stalled at 1; w1 at 1; from
     * the stall at 2 K2 until cycle 12; w3 stalled at 22, again at 26 */
    fig3("qaws-k2-budget-4", "0123223322220011223333000033111100..11", 38, 28);
    /* Fig. 3d, K2's budget 6: K2 until cycle 18; average (38 + 24) / 2 = 31 */
    fig3("qaws-k2-budget-6", "0123223322223333220011330000111100..11", 38, 24);
    /* Fig. 3a, GTO: K1 first; average (20 + 38) / 2 = 29 */
    fig3("gto", "0100110000111100231122332222333322..33", 20, 38);
    /* Fig. 3b, LRR: both late */
    fig3("lrr", "012300112233000011112222333300112233", 32, 36);
}

/* ---- QAWS §V, homogeneous pairs on titanv-gpgpusim ---------------------------
 * Persistent threads: one 768-thread block of each kernel per SM (80 SMs),
 * 6 warps of each per sub-core; K2 launched 8 cycles after K1. Response
 * times in ns (end - issue), exact. */
typedef struct pair_rt {
    const char *run;
    int64_t k1, k2;
} pair_rt;

static void pair(const char *file, const pair_rt *want, size_t n) {
    for (size_t i = 0; i < n; i++) {
        trace t;
        scn_simulate(file, want[i].run, &t);
        if (rt(&t, "K1") != want[i].k1 || rt(&t, "K2") != want[i].k2)
            fail_msg("%s [%s]: K1 %lld K2 %lld, want %lld %lld", file, want[i].run,
                     (long long)rt(&t, "K1"), (long long)rt(&t, "K2"), (long long)want[i].k1,
                     (long long)want[i].k2);
        /* the same work under every policy */
        assert_int_equal(kern(&t, "K1")->instructions, kern(&t, "K2")->instructions);
        assert_int_equal(kern(&t, "K1")->blocks, 80);
        trace_free(&t);
    }
}

static void test_qaws_v_compute(void **state) {
    (void)state;
    static const pair_rt want[] = {
        { "qaws-k2-budget-4", 16463, 11557 },
        { "gto", 11105, 16404 },
        { "lrr", 12750, 13445 },
        { "qaws-k2-budget-2", 16125, 14224 },
        { "qaws-k2-budget-8", 16169, 12229 },
    };
    pair("qaws-v-homogeneous-compute.json", want, 5);
    const pair_rt *q = &want[0], *gto = &want[1], *lrr = &want[2];
    /* GTO's priority inversion: the older K1 first, K2 last */
    assert_true(gto->k2 > gto->k1);
    /* QAWS cuts K2's response time: -29.5% against GTO, -14.0% against LRR
     * (the paper: -22% on average over its homogeneous pairs) */
    assert_true(q->k2 * 1000 < gto->k2 * 706 && q->k2 * 1000 > gto->k2 * 704);
    assert_true(q->k2 * 1000 < lrr->k2 * 860 && q->k2 * 1000 > lrr->k2 * 859);
    /* budget 4 is the best of 2, 4 and 8 for K2 */
    assert_true(q->k2 < want[3].k2 && q->k2 < want[4].k2);
    /* and the average execution time stays within 2% of GTO's (+1.9%) */
    assert_true((q->k1 + q->k2) * 100 < (gto->k1 + gto->k2) * 102);
}

static void test_qaws_v_latency(void **state) {
    (void)state;
    static const pair_rt want[] = {
        { "qaws-k2-budget-4", 96603, 96523 },
        { "gto", 96274, 96593 },
        { "lrr", 96282, 96601 },
        { "qaws-k2-budget-2", 96465, 96595 },
        { "qaws-k2-budget-8", 96605, 96525 },
    };
    pair("qaws-v-homogeneous-latency.json", want, 5);
    /* latency-bound: QAWS changes K2 by less than 0.1% (the paper's atax
     * and his: "very little improvement") */
    const pair_rt *q = &want[0], *gto = &want[1], *lrr = &want[2];
    assert_true(q->k2 <= gto->k2 && (gto->k2 - q->k2) * 1000 < gto->k2);
    assert_true(q->k2 <= lrr->k2 && (lrr->k2 - q->k2) * 1000 < lrr->k2);
}

/* ---- most-room Table 1, direction -------------------------------------------
 * Phases: serial (A then B on one stream), colocated (B's 32-thread blocks on
 * SM 67, then 0, 2, ..., 12 beside A's), isolated (B's 33-thread blocks all
 * on SM 67). Execution times (end - first block) in ns. */
typedef struct table1 {
    int64_t a_serial, b_serial, a_coloc, b_coloc, a_iso, b_iso;
} table1;

static void table1_run(const char *file, table1 *r) {
    trace t;
    scn_simulate(file, "default", &t);
    r->a_serial = exec_time(&t, "A-serial");
    r->b_serial = exec_time(&t, "B-serial");
    r->a_coloc = exec_time(&t, "A-colocated");
    r->b_coloc = exec_time(&t, "B-colocated");
    r->a_iso = exec_time(&t, "A-isolated");
    r->b_iso = exec_time(&t, "B-isolated");
    /* the placements of most-room §5.1 */
    int32_t kb = (int32_t)(kern(&t, "B-colocated") - t.kernels.v);
    int32_t ki = (int32_t)(kern(&t, "B-isolated") - t.kernels.v);
    int32_t ks = (int32_t)(kern(&t, "B-serial") - t.kernels.v);
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *b = &t.blocks.v[i];
        if (b->kernel == kb) assert_int_equal(b->sm, b->index == 0 ? 67 : 2 * (b->index - 1));
        if (b->kernel == ki) assert_int_equal(b->sm, 67);
        if (b->kernel == ks) assert_int_equal(b->sm, 2 * b->index);
    }
    /* the phases do not overlap */
    assert_true(kern(&t, "B-serial")->end < kern(&t, "A-colocated")->issue);
    assert_true(kern(&t, "B-colocated")->end < kern(&t, "A-isolated")->issue);
    trace_free(&t);
}

/* most-room Table 1 (Turing): the paper's slowdowns over the serial case,
 * and a check that the model's is within a factor `tol` of it. */
typedef struct t1_row {
    const char *what;
    double paper;            /* the paper's x serial */
    double got;              /* the model's */
} t1_row;

static bool within(const t1_row *r, double tol) {
    printf("  %-34s paper %6.2fx  model %6.2fx  (%s factor %.1f)\n", r->what, r->paper, r->got,
           r->got <= r->paper * tol && r->got >= r->paper / tol ? "within" : "NOT within", tol);
    return r->got <= r->paper * tol && r->got >= r->paper / tol;
}

static double x(int64_t a, int64_t b) {
    return (double)a / (double)b;
}

/* Compute-intensive (§5.3): isolated B 1.45x, colocated B 1.85x, A 1.01x
 * both; every concurrent slowdown within a factor 1.5 (issue 25), and
 * isolated < colocated for B, as in the paper. */
static void test_table1_compute(void **state) {
    (void)state;
    table1 c;
    table1_run("most-room-table1-compute.json", &c);
    const t1_row rows[] = {
        { "compute A isolated", 527.0 / 523, x(c.a_iso, c.a_serial) },
        { "compute B isolated", 1.45, x(c.b_iso, c.b_serial) },
        { "compute A colocated", 530.0 / 523, x(c.a_coloc, c.a_serial) },
        { "compute B colocated", 1.85, x(c.b_coloc, c.b_serial) },
    };
    for (size_t i = 0; i < 4; i++) assert_true(within(&rows[i], 1.5));
    assert_true(c.b_iso < c.b_coloc);
    assert_true(c.a_iso <= c.b_coloc && c.a_coloc <= c.b_coloc);
}

/* Memory-intensive (§5.4): isolated B 22.4x, colocated B 96.1x, A about
 * 1.0x; colocated, B ends with A (961 ms against 955) */
static void test_table1_memory(void **state) {
    (void)state;
    table1 m;
    table1_run("most-room-table1-memory.json", &m);
    const t1_row rows[] = {
        { "memory A isolated", 951.0 / 949, x(m.a_iso, m.a_serial) },
        { "memory A colocated", 955.0 / 949, x(m.a_coloc, m.a_serial) },
        { "memory B colocated", 96.1, x(m.b_coloc, m.b_serial) },
    };
    for (size_t i = 0; i < 3; i++) assert_true(within(&rows[i], 1.5));
    assert_true(m.b_iso < m.b_coloc);
    /* B colocated ends within 2% of A, as the paper's 961 ms and 955 ms */
    assert_true(m.b_coloc * 100 > m.a_coloc * 98 && m.b_coloc * 100 < m.a_coloc * 102);
}

/* L1-cache-dependent (§5.2): isolated as serial (85/85, 79/79 ms),
 * colocated A 1.24x, B 1.33x; the L1 holds each kernel's data alone but
 * not both (the model's hit rate alone is over 99%; the paper's 75-95%). */
static void test_table1_l1(void **state) {
    (void)state;
    table1 l;
    table1_run("most-room-table1-l1.json", &l);
    const t1_row rows[] = {
        { "L1 A isolated", 1.0, x(l.a_iso, l.a_serial) },
        { "L1 B isolated", 1.0, x(l.b_iso, l.b_serial) },
        { "L1 A colocated", 1.24, x(l.a_coloc, l.a_serial) },
        { "L1 B colocated", 1.33, x(l.b_coloc, l.b_serial) },
    };
    for (size_t i = 0; i < 4; i++) assert_true(within(&rows[i], 1.5));
    /* the paper's order: colocated slower than isolated, both kernels */
    assert_true(l.a_iso < l.a_coloc && l.b_iso < l.b_coloc);
}

/* Transfer-bandwidth-dependent (§5.5, unified memory): A 1.04x isolated,
 * 1.05x colocated; B 2.73x, 3.58x. The model has no per-SM TLB (the
 * paper's guess for colocated > isolated): B colocated is only just slower
 * than isolated. */
static void test_table1_transfer(void **state) {
    (void)state;
    table1 u;
    table1_run("most-room-table1-transfer.json", &u);
    const t1_row rows[] = {
        { "transfer A isolated", 1.04, x(u.a_iso, u.a_serial) },
        { "transfer B isolated", 2.73, x(u.b_iso, u.b_serial) },
        { "transfer A colocated", 1.05, x(u.a_coloc, u.a_serial) },
        { "transfer B colocated", 3.58, x(u.b_coloc, u.b_serial) },
    };
    for (size_t i = 0; i < 4; i++) assert_true(within(&rows[i], 1.5));
    assert_true(u.b_iso < u.b_coloc);
}

/* todo (issue 25): isolated memory-intensive B, paper 22.4x; the model's
 * SM 67 gets its equal 1/68 share of DRAM, so B's 8 full warps (and 8
 * one-thread warps) run 45.0x as long as on eight SMs, a factor 2.0 over
 * the paper's (the tolerance is 1.5). The paper's own numbers say the
 * hardware gives SM 67 2.18 times an A SM's rate (Volta's Table 4: 2.04,
 * Pascal's Table 3 with four A SMs: 1.16). Measured candidates: the per-SM
 * window (sm_mem_queue 128-1024) leaves it at 45.1-45.4x; B outside the
 * DRAM share altogether gives 8.3x; DRAM row buffers under FR-FCFS give B
 * no advantage over A (both arrays share every bank): docs/memory.md,
 * "What moved the gap". This test passes while the gap stays; when it
 * closes, it fails and becomes an assertion. */
static void test_table1_memory_isolated_todo(void **state) {
    (void)state;
    table1 m;
    table1_run("most-room-table1-memory.json", &m);
    t1_row r = { "memory B isolated (todo)", 22.4, x(m.b_iso, m.b_serial) };
    bool ok = within(&r, 1.5);
    if (ok) fail_msg("memory B isolated is now within a factor 1.5 of 22.4x (%.2fx): make it an "
                     "assertion in test_table1_memory", r.got);
    /* the gap as measured: 45.0x, a factor 2.0 */
    assert_true(r.got > 22.4 * 1.5 && r.got < 22.4 * 2.5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig3),
        cmocka_unit_test(test_qaws_v_compute),
        cmocka_unit_test(test_qaws_v_latency),
        cmocka_unit_test(test_table1_compute),
        cmocka_unit_test(test_table1_memory),
        cmocka_unit_test(test_table1_memory_isolated_todo),
        cmocka_unit_test(test_table1_l1),
        cmocka_unit_test(test_table1_transfer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
