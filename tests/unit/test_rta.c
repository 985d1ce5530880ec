/* test_rta.c -- the GCAPS response-time analysis (simcore/rta.c): the
 * paper's Example 2 / Table 2 with and without separate GPU priorities,
 * and small hand-computed cases, one per lemma, with exact bounds. Times
 * are written in ms (MS) so each case reads like the paper. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../simcore/rta.h"

#define MS INT64_C(1000000)
#define US INT64_C(1000)

/* A task with up to 3 GPU segments, written inline. */
typedef struct tdef {
    int cpu, prio, gprio;
    int64_t T, C;
    int nseg;
    int64_t misc[3], exec[3];
    int be;
} tdef;

typedef struct tset {
    rta_task t[16];
    size_t n;
    rta_taskset ts;
} tset;

static void build(tset *s, const tdef *d, size_t n, int cpus, int64_t eps, int64_t theta,
                  int64_t L, rta_semantics sem) {
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < n; i++) {
        static char names[16][8];
        snprintf(names[i], sizeof names[i], "t%zu", i + 1);
        s->t[i] = (rta_task){.name = names[i], .cpu = d[i].cpu, .priority = d[i].prio,
                             .gpu_priority = d[i].gprio, .has_gpu_priority = d[i].gprio != 0,
                             .best_effort = d[i].be != 0, .period = d[i].T, .deadline = d[i].T,
                             .cpu_total = d[i].C, .cpu_segments = d[i].nseg + 1,
                             .gpu_segments = d[i].nseg, .misc = d[i].misc, .exec = d[i].exec};
    }
    s->n = n;
    s->ts = (rta_taskset){.tasks = s->t, .n = n, .cpus = cpus, .epsilon = eps, .theta = theta,
                          .time_slice = L, .semantics = sem};
}

static bool run(const tset *s, rta_approach a, int64_t *wcrt, int32_t *gp) {
    char err[256];
    if (rta_check(&s->ts, err, sizeof err) != 0)
        fail_msg("rta_check: %s", err);
    rta_result r = {.wcrt = wcrt, .gpu_priority = gp};
    rta_analyse(&s->ts, a, &r);
    return r.schedulable;
}

/* ---- Example 2 / Table 2 (§5.3), self-suspension, ε = 1 ------------------- */

static const tdef table2[] = {
    {0, 4, 0, 80 * MS, 9 * MS, 2, {2 * MS, 2 * MS}, {4 * MS, 2 * MS}, 0},
    {0, 3, 0, 150 * MS, 40 * MS, 0, {0}, {0}, 0},
    {1, 2, 0, 190 * MS, 34 * MS, 1, {5 * MS}, {80 * MS}, 0},
    {0, 1, 0, 200 * MS, 18 * MS, 1, {2 * MS}, {10 * MS}, 0},
};

static void test_table2_default_priorities_fail(void **state) {
    (void)state;
    tset s;
    build(&s, table2, 4, 2, 1 * MS, 200 * US, 1 * MS, RTA_PRINTED);
    int64_t w[4];
    assert_false(run(&s, RTA_GCAPS_SUSPEND, w, NULL));
    /* gcaps-analysis.md §5, case (a): 26, 58, 153, > 200 */
    assert_int_equal(w[0], 26 * MS);
    assert_int_equal(w[1], 58 * MS);
    assert_int_equal(w[2], 153 * MS);
    assert_int_equal(w[3], RTA_FAILED);
}

static void test_table2_given_gpu_priorities_pass(void **state) {
    (void)state;
    tdef d[4];
    memcpy(d, table2, sizeof d);
    /* GPU priority τ1 > τ2 > τ4 > τ3 */
    d[0].gprio = 40; d[1].gprio = 30; d[2].gprio = 10; d[3].gprio = 20;
    tset s;
    build(&s, d, 4, 2, 1 * MS, 200 * US, 1 * MS, RTA_PRINTED);
    int64_t w[4];
    assert_true(run(&s, RTA_GCAPS_SUSPEND, w, NULL));
    /* case (b), D-based jitter (§6.4): 26, 75, 187, 143 */
    assert_int_equal(w[0], 26 * MS);
    assert_int_equal(w[1], 75 * MS);
    assert_int_equal(w[2], 187 * MS);
    assert_int_equal(w[3], 143 * MS);
    /* ε = 0.5 gives the same verdicts */
    build(&s, d, 4, 2, 500 * US, 200 * US, 1 * MS, RTA_PRINTED);
    assert_true(run(&s, RTA_GCAPS_SUSPEND, w, NULL));
    build(&s, table2, 4, 2, 500 * US, 200 * US, 1 * MS, RTA_PRINTED);
    assert_false(run(&s, RTA_GCAPS_SUSPEND, w, NULL));
}

static void test_table2_audsley_finds_an_order(void **state) {
    (void)state;
    tset s;
    build(&s, table2, 4, 2, 1 * MS, 200 * US, 1 * MS, RTA_PRINTED);
    int64_t w[4];
    int32_t gp[4];
    assert_true(run(&s, RTA_GCAPS_SUSPEND_GPRIO, w, gp));
    /* Lowest level first, lowest CPU priority first: τ4 cannot be lowest
     * (143 only with τ3 below it), τ3 can: 187; then τ4 (its core's
     * lowest), τ2, τ1. The order is the paper's τ1 > τ2 > τ4 > τ3. */
    assert_int_equal(gp[2], 1);
    assert_int_equal(gp[3], 2);
    assert_int_equal(gp[1], 3);
    assert_int_equal(gp[0], 4);
    assert_int_equal(w[0], 26 * MS);
    assert_int_equal(w[1], 75 * MS);
    assert_int_equal(w[2], 187 * MS);
    assert_int_equal(w[3], 143 * MS);
    /* The released code's search (gcaps.py, can_take_lowest_prio) takes the
     * same-core G^e_h jitter from the R_h the failed plain test left in
     * tasks[h].WR: τ1's 26, not T_h = 80. τ4 at level 2: 34 + τ2's 40 +
     * τ1's 3 x (C + G^m + 2εη^g = 17) (J = T - C - G^m = 67) + τ1's
     * 2 x G^e 6 (J = 26 - 6 = 20): 57, 114, 137, 137 (143 with J = 74) */
    build(&s, table2, 4, 2, 1 * MS, 200 * US, 1 * MS, RTA_RELEASED_CODE);
    assert_true(run(&s, RTA_GCAPS_SUSPEND_GPRIO, w, gp));
    assert_int_equal(gp[2], 1);
    assert_int_equal(gp[3], 2);
    assert_int_equal(w[2], 187 * MS);
    assert_int_equal(w[3], 137 * MS);
}

static void test_same_core_inversion_is_infeasible(void **state) {
    (void)state;
    tdef d[4];
    memcpy(d, table2, sizeof d);
    /* τ4 above τ1 on the GPU while both are on core 0 (§5.3) */
    d[0].gprio = 10; d[1].gprio = 30; d[2].gprio = 20; d[3].gprio = 40;
    tset s;
    build(&s, d, 4, 2, 1 * MS, 200 * US, 1 * MS, RTA_PRINTED);
    int64_t w[4];
    rta_result r = {.wcrt = w};
    rta_analyse(&s.ts, RTA_GCAPS_SUSPEND, &r);
    assert_false(r.schedulable);
    assert_true(r.order_inverted);
    assert_int_equal(w[0], RTA_FAILED);
}


/* ---- Lemmas 1-3 (default driver, interleaving; best-effort contenders) -- */

static void test_lemma1_interleaving_counts_best_effort(void **state) {
    (void)state;
    /* L = 1 ms, θ = 0.5 ms: each slice costs 1.5 ms per contender. τa has
     * two contenders (τb and the best-effort task): 1.5 * 2 * ceil(5/1). */
    const tdef d[] = {
        {0, 2, 0, 100 * MS, 10 * MS, 1, {2 * MS}, {5 * MS}, 0},
        {1, 1, 0, 200 * MS, 20 * MS, 1, {1 * MS}, {3500 * US}, 0},
        {1, 0, 0, 50 * MS, 5 * MS, 1, {1 * MS}, {30 * MS}, 1},
    };
    tset s;
    build(&s, d, 3, 2, 1 * MS, 500 * US, 1 * MS, RTA_PRINTED);
    int64_t w[3];
    for (int a = RTA_TSG_RR_BUSY; a <= RTA_TSG_RR_SUSPEND; a++) {
        assert_true(run(&s, a, w, NULL));
        assert_int_equal(w[0], 32 * MS);            /* 10 + 7 + 15 */
        assert_int_equal(w[1], 36500 * US);         /* 20 + 4.5 + 1.5*2*ceil(3.5) */
        assert_int_equal(w[2], RTA_NOT_ANALYSED);   /* M2 */
    }
}

/* Case B: core 0 holds τh (prio 3, GPU) and τi (prio 1, GPU); core 1 τr
 * (prio 4, GPU). L = 1 ms, θ = 0. R_r = 8, R_h = 18. */
static const tdef caseB[] = {
    {0, 3, 0, 50 * MS, 5 * MS, 1, {1 * MS}, {4 * MS}, 0},
    {0, 1, 0, 200 * MS, 10 * MS, 1, {2 * MS}, {3 * MS}, 0},
    {1, 4, 0, 100 * MS, 1 * MS, 1, {1 * MS}, {2 * MS}, 0},
};

static void test_lemma4_5_busy(void **state) {
    (void)state;
    tset s;
    build(&s, caseB, 3, 2, 1 * MS, 0, 1 * MS, RTA_PRINTED);
    int64_t w[3];
    assert_true(run(&s, RTA_TSG_RR_BUSY, w, NULL));
    assert_int_equal(w[2], 8 * MS);
    assert_int_equal(w[0], 18 * MS);
    /* base 10 + 5 + 1*2*3 = 21; τh per job: C_h + G^m_h = 6 (Lemma 5) plus
     * its 4 slices with |{τi, τr} ∪ {τh}| = 3 contenders (Lemma 4, M4):
     * 21 + 18 = 39 */
    assert_int_equal(w[1], 39 * MS);
}

static void test_lemma6_7_suspend(void **state) {
    (void)state;
    tset s;
    build(&s, caseB, 3, 2, 1 * MS, 0, 1 * MS, RTA_PRINTED);
    int64_t w[3];
    assert_true(run(&s, RTA_TSG_RR_SUSPEND, w, NULL));
    /* Lemma 7: ceil((R + J)/50) * 6 with J = R_h - 6 = 12: 21 + 6 = 27 */
    assert_int_equal(w[1], 27 * MS);
}

static void test_released_code_default_driver(void **state) {
    (void)state;
    tset s;
    build(&s, caseB, 3, 2, 1 * MS, 0, 1 * MS, RTA_RELEASED_CODE);
    int64_t w[3];
    assert_true(run(&s, RTA_TSG_RR_BUSY, w, NULL));
    /* N_id = 1 (τr in hp \ hpp) + 0 (its lp_set is positions 0..-1): per
     * job of τh 1*1*4 + G_h 5 + C_h + G^m_h 6 = 15: 21 + 15 = 36 */
    assert_int_equal(w[1], 36 * MS);
    assert_true(run(&s, RTA_TSG_RR_SUSPEND, w, NULL));
    /* J = T_h - 6 = 44: 21 + 2 * 6 = 33 */
    assert_int_equal(w[1], 33 * MS);
}

/* ---- Lemmas 8-15 (GCAPS): case B plus a CPU-only τc (prio 2) on core 0,
 * ε = 1 ms. R_r = 1 + 3 + 4ε = 8; R_h = 14 + one job of τr's
 * G^{e*} = 4 (jitter 8 - 2) = 18. */
static const tdef caseC[] = {
    {0, 3, 0, 50 * MS, 5 * MS, 1, {1 * MS}, {4 * MS}, 0},
    {0, 1, 0, 200 * MS, 10 * MS, 1, {2 * MS}, {3 * MS}, 0},
    {1, 4, 0, 100 * MS, 1 * MS, 1, {1 * MS}, {2 * MS}, 0},
    {0, 2, 0, 100 * MS, 10 * MS, 0, {0}, {0}, 0},
};

static void test_lemma8_to_12_busy(void **state) {
    (void)state;
    tset s;
    build(&s, caseC, 4, 2, 1 * MS, 0, 1 * MS, RTA_PRINTED);
    int64_t w[4];
    assert_true(run(&s, RTA_GCAPS_BUSY, w, NULL));
    assert_int_equal(w[2], 8 * MS);
    assert_int_equal(w[0], 18 * MS);
    /* τc: C + B^C = 11 (Lemma 8: (0 + 1)ε even CPU-only), Lemma 12: τh's
     * C_h + G^m_h = 6, Lemma 11: τr's G^{e*} = 4 (M5): 11 + 6 + 4 = 21 */
    assert_int_equal(w[3], 21 * MS);
    /* τi: 10 + 5 + 4ε = 19; τh: 6 + G^{e*}_h 6 (Lemma 10, first sum);
     * τc: 10; τr: 4: 19 + 12 + 10 + 4 = 45 */
    assert_int_equal(w[1], 45 * MS);
}

static void test_lemma13_to_15_suspend(void **state) {
    (void)state;
    tset s;
    build(&s, caseC, 4, 2, 1 * MS, 0, 1 * MS, RTA_PRINTED);
    int64_t w[4];
    assert_true(run(&s, RTA_GCAPS_SUSPEND, w, NULL));
    /* τc: 11 + ceil((R + 12)/50) * (6 + 2ε) (Lemma 15) = 19 */
    assert_int_equal(w[3], 19 * MS);
    /* τi: 19 + Lemma 15 (J 12, W 8) + Lemma 13 same core (J 14, W 4) +
     * τc 10 + Lemma 13 remote (J 6, W 4): 35, 45, then 57 */
    assert_int_equal(w[1], 57 * MS);
}

static void test_released_code_gcaps_busy_cpu_only(void **state) {
    (void)state;
    tset s;
    build(&s, caseC, 4, 2, 1 * MS, 0, 1 * MS, RTA_RELEASED_CODE);
    int64_t w[4];
    assert_true(run(&s, RTA_GCAPS_BUSY, w, NULL));
    /* the released code charges τc for τh's busy-wait: C_h + G_h + 2ε = 12 */
    assert_int_equal(w[3], 27 * MS);
    assert_int_equal(w[1], 45 * MS);    /* a GPU-using τi: the same as printed */
    assert_true(run(&s, RTA_GCAPS_SUSPEND, w, NULL));
    assert_int_equal(w[3], 19 * MS);
    assert_int_equal(w[1], 57 * MS);
}

/* ---- GPU segments of length 0 (Fig. 8(e) at G/C = 0: the generator gives
 * every GPU task 1..3 segments and G = 0), ε = 1 ms: τh on core 1 (η^g 1),
 * τs above τi on core 0 (η^g 2), τi (η^g 1), every segment 0 ms long. The
 * printed lemmas count a task with η^g > 0 as a GPU task everywhere; the
 * released gcaps.py skips a task of another core whose G is 0 (`if
 * tasks[h].G_hi == 0: continue`) and keeps η^g on τi's own core. */
static const tdef zeroG[] = {
    {1, 5, 0, 20 * MS, 2 * MS, 1, {0}, {0}, 0},
    {0, 4, 0, 50 * MS, 5 * MS, 2, {0, 0}, {0, 0}, 0},
    {0, 2, 0, 100 * MS, 10 * MS, 1, {0}, {0}, 0},
};

/* The bounds of τh, τs, τi in ms, per semantics and approach:
 * printed, busy: τh C + (3η^g + 1)ε = 6; τs 5 + 7ε = 12 plus τh's G^{e*} =
 *   2ε (jitter R_h - G^e_h = 6): 14; τi 10 + 4ε = 14, τs's C + G^{e*} =
 *   5 + 4ε = 9 (Lemmas 12 and 10), τh's 2 (jitter 6): 16, 27, 27.
 * printed, suspend: τi 14 + τs's C + G^{m*} = 9 (jitter R_s - C_s = 9) + its
 *   G^e 0 + τh's 2 (jitter 6): 25, 27, 27.
 * released, busy: τh is skipped by τs and τi: τs 12; τi 14 + τs's
 *   C_h + G_h + 2εη^g_h = 9: 23.
 * released, suspend: τi 14 + τs's 9 (J = WR_s - C_s - G^m_s = 7): 23. */
static const struct {
    rta_semantics sem;
    rta_approach a;
    int64_t ms[3];
} zeroG_bounds[] = {
    {RTA_PRINTED, RTA_GCAPS_BUSY, {6, 14, 27}},
    {RTA_PRINTED, RTA_GCAPS_SUSPEND, {6, 14, 27}},
    {RTA_RELEASED_CODE, RTA_GCAPS_BUSY, {6, 12, 23}},
    {RTA_RELEASED_CODE, RTA_GCAPS_SUSPEND, {6, 12, 23}},
};

static void test_zero_length_gpu_segments(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof zeroG_bounds / sizeof zeroG_bounds[0]; k++) {
        tset s;
        int64_t w[3];
        build(&s, zeroG, 3, 2, 1 * MS, 0, 1 * MS, zeroG_bounds[k].sem);
        assert_true(run(&s, zeroG_bounds[k].a, w, NULL));
        for (int i = 0; i < 3; i++)
            if (w[i] != zeroG_bounds[k].ms[i] * MS)
                fail_msg("row %zu, task %d: %lld ns, expected %lld ms", k, i, (long long)w[i],
                         (long long)zeroG_bounds[k].ms[i]);
    }
}

static void test_first_failure_fails_the_rest(void **state) {
    (void)state;
    tdef d[4];
    memcpy(d, caseC, sizeof d);
    tset s;
    build(&s, d, 4, 2, 1 * MS, 0, 1 * MS, RTA_PRINTED);
    s.t[0].deadline = 17 * MS;          /* R_h = 18 */
    int64_t w[4];
    assert_false(run(&s, RTA_GCAPS_BUSY, w, NULL));
    assert_int_equal(w[2], 8 * MS);
    assert_int_equal(w[0], RTA_FAILED);
    assert_int_equal(w[3], RTA_FAILED);  /* M7: not analysed further */
    assert_int_equal(w[1], RTA_FAILED);
}

static void test_check_messages(void **state) {
    (void)state;
    tdef d[4];
    memcpy(d, table2, sizeof d);
    d[3].prio = 4;
    tset s;
    build(&s, d, 4, 2, 1 * MS, 0, 1 * MS, RTA_PRINTED);
    char err[256];
    assert_int_equal(rta_check(&s.ts, err, sizeof err), -1);
    assert_string_equal(err, "tasks[3].priority: 4 is also tasks[0]'s priority (the analysis "
                             "needs distinct priorities)");
    build(&s, table2, 4, 1, 1 * MS, 0, 1 * MS, RTA_PRINTED);
    assert_int_equal(rta_check(&s.ts, err, sizeof err), -1);
    assert_string_equal(err, "tasks[2].cpu: 1 is not a core of 1 (cores are 0..cpus-1)");
    assert_int_equal(rta_approach_parse("gcaps_busy_gprio"), RTA_GCAPS_BUSY_GPRIO);
    assert_int_equal(rta_approach_parse("fmlp"), -1);
}


/* ---- the case study: Table 4 (§7.2) with a stated split ------------------
 * Table 4 gives C_i and G_i only; the authors' code has one GPU segment per
 * job (η^g = 1). With G^m = 2 ms of each G_i, ε = 1 ms, θ = 200 us,
 * L = 1024 us and task 7 (graphics, best effort) on core 4, the verdicts
 * are Table 5's: tsg_rr_busy fails at task 5, every other analysis passes,
 * and task 1's tsg_rr bound is Table 5's 60 ms (59.96). The other printed
 * bounds are not reproducible from Table 4 (see the closing note). */
static const tdef table4[] = {
    {1, 70, 0, 100 * MS, 1 * MS, 1, {2 * MS}, {8 * MS}, 0},
    {2, 69, 0, 150 * MS, 2 * MS, 1, {2 * MS}, {10 * MS}, 0},
    {2, 68, 0, 200 * MS, 67 * MS, 0, {0}, {0}, 0},
    {1, 67, 0, 300 * MS, 12 * MS, 1, {2 * MS}, {13 * MS}, 0},
    {1, 66, 0, 400 * MS, 2 * MS, 1, {2 * MS}, {14 * MS}, 0},
    {4, 0, 0, 200 * MS, 4 * MS, 1, {2 * MS}, {42 * MS}, 1},
    {4, 0, 0, 67 * MS, 4 * MS, 1, {2 * MS}, {25 * MS}, 1},
};

static void test_table4_case_study_verdicts(void **state) {
    (void)state;
    tset s;
    build(&s, table4, 7, 6, 1 * MS, 200 * US, 1024 * US, RTA_PRINTED);
    int64_t w[7];
    assert_false(run(&s, RTA_TSG_RR_BUSY, w, NULL));
    assert_int_equal(w[0], 59960 * US);     /* 11 + 1.224 * 5 others * ceil(8/1.024) */
    assert_int_equal(w[1], 75200 * US);
    assert_int_equal(w[2], 144440 * US);
    assert_int_equal(w[3], 291816 * US);
    assert_int_equal(w[4], RTA_FAILED);     /* "Failed" at task 5, as Table 5 */
    assert_int_equal(w[5], RTA_NOT_ANALYSED);
    static const int64_t want[][5] = {
        {59960, 75200, 71000, 112560, 123680},       /* tsg_rr_suspend */
        {15000, 28000, 82000, 56000, 76000},         /* gcaps_busy */
        {15000, 28000, 74000, 56000, 76000},         /* gcaps_suspend */
    };
    for (int a = RTA_TSG_RR_SUSPEND; a <= RTA_GCAPS_SUSPEND_GPRIO; a++) {
        assert_true(run(&s, a, w, NULL));
        const int64_t *x = want[a == RTA_TSG_RR_SUSPEND ? 0 : (a - RTA_GCAPS_BUSY) % 2 + 1];
        for (int i = 0; i < 5; i++)
            assert_int_equal(w[i], x[i] * US);
    }
}


/* ---- two more tasksets worked out by hand (an audit against the paper) ----
 *
 * Set H: L = 1.024 ms, θ = 0.2 ms (one slot L + θ = 1.224), ε = 1 ms.
 *   core 0: A (prio 10, T 50, C 2, one segment G^m 1, G^e 2.5)
 *           C (prio 7, T 30, C 4, CPU only)
 *           B (prio 5, T 100, C 3, one segment G^m 1, G^e 1.5)
 *   core 1: X (prio 8, T 40, C 1, one segment G^m 0.5, G^e 3)
 *           Z (best effort, T 200, C 1, one segment G^m 1, G^e 10)
 * Four GPU tasks (Z counts, M2). Slices: A ⌈2.5/1.024⌉ = 3, B ⌈1.5/1.024⌉
 * = 2, X ⌈3/1.024⌉ = 3 (the ceilings are not multiples of L).
 * tsg_rr, Lemma 1 (ν = 3 others): A 2 + 3.5 + 1.224·3·3 = 16.516;
 *   X 1 + 3.5 + 11.016 = 15.516; B's own 3 + 2.5 + 1.224·3·2 = 12.844.
 * tsg_rr_suspend, Lemma 7 (J = R_h − C_h − G^m_h):
 *   C = 4 + ⌈(R + 13.516)/50⌉·3 = 7;
 *   B = 12.844 + ⌈(R + 13.516)/50⌉·3 + ⌈(R + 3)/30⌉·4 = 19.844.
 * tsg_rr_busy, Lemmas 4-5: A's term per job C_A + G^m_A = 3 plus its 3
 *   slices with |{τ_k ∉ hpp : η^g_k > 0} ∪ {A}| = |{B, X, Z, A}| = 4
 *   contenders: 3 + 1.224·4·3 = 17.688 (the same for C and B: hpp(C) and
 *   hpp(B) hold one GPU task, A).
 *   C = 4 + ⌈R/50⌉·17.688 = 21.688;
 *   B = 12.844 + ⌈R/50⌉·17.688 + ⌈R/30⌉·4: 12.844, 34.532, 38.532 (two
 *   jobs of C), 38.532.
 * gcaps (base C + G + (3η^g + 1)ε): A 2 + 3.5 + 4 = 9.5; X 8.5 + A's
 *   G^{e*} 4.5 (jitter 9.5 − 2.5 = 7; Lemmas 10/13 second sum) = 13.
 * gcaps_suspend: C (CPU-only, no GPU terms, Lemma 8: one ε) = 5 +
 *   ⌈(R + 6.5)/50⌉·(3 + 2ε) = 10 (Lemma 15, J = 9.5 − 3);
 *   B = 9.5 + A's Lemma 15 5 (J 6.5) + A's Lemma 13 same core G^e 2.5
 *   (J 9.5 − 2.5 = 7) + C's 4 + X's G^{e*} 5 (J 13 − 3 = 10, T 40):
 *   9.5, 22, 26, 26.
 * gcaps_busy: C = 5 + A's C + G^m 3 (Lemma 12; no G^{e*}: C is CPU-only,
 *   printed) + X's 5 (Lemma 11, J 10): 5, 10, 13, 13;
 *   B = 9.5 + A's 3 + 4.5 (Lemmas 12, 10) + C's 4 + X's 5: 14.5, 26, 26.
 * Released code (its default_driver.py and gcaps.py, run on this set, give
 * the same numbers):
 *   tsg_rr_busy: a CPU-only hpp task is skipped, contenders N_id = GPU
 *   tasks of hp \ hpp (X) + the first n − pos − 1 positions of the sorted
 *   list A0 X1 C2 B3 Z4: C: 1 + 2 = 3, per job of A 1.224·3·3 + G_A 3.5
 *   + 3 = 17.516, C = 21.516; B: 1 + 1 = 2, 7.344 + 6.5 = 13.844, B =
 *   12.844 + 13.844 = 26.688.
 *   tsg_rr_suspend (J = T_h − C_h − G^m_h): C = 4 + ⌈(R + 47)/50⌉·3 = 10;
 *   B = 12.844 + ⌈(R + 47)/50⌉·3 + ⌈(R + 26)/30⌉·4 = 26.844.
 *   gcaps_busy: C is charged A's C + G + 2ε = 7.5: 5 + 5, 17.5, 17.5. */
static const tdef setH[] = {
    {0, 10, 0, 50 * MS, 2 * MS, 1, {1 * MS}, {2500 * US}, 0},   /* A */
    {0, 7, 0, 30 * MS, 4 * MS, 0, {0}, {0}, 0},                 /* C */
    {0, 5, 0, 100 * MS, 3 * MS, 1, {1 * MS}, {1500 * US}, 0},   /* B */
    {1, 8, 0, 40 * MS, 1 * MS, 1, {500 * US}, {3 * MS}, 0},     /* X */
    {1, 0, 0, 200 * MS, 1 * MS, 1, {1 * MS}, {10 * MS}, 1},     /* Z */
};

static const struct {
    rta_semantics sem;
    rta_approach a;
    int64_t us[4];                      /* A, C, B, X */
} setH_bounds[] = {
    {RTA_PRINTED, RTA_TSG_RR_SUSPEND, {16516, 7000, 19844, 15516}},
    {RTA_PRINTED, RTA_TSG_RR_BUSY, {16516, 21688, 38532, 15516}},
    {RTA_PRINTED, RTA_GCAPS_SUSPEND, {9500, 10000, 26000, 13000}},
    {RTA_PRINTED, RTA_GCAPS_BUSY, {9500, 13000, 26000, 13000}},
    {RTA_PRINTED, RTA_GCAPS_SUSPEND_GPRIO, {9500, 10000, 26000, 13000}},
    {RTA_RELEASED_CODE, RTA_TSG_RR_SUSPEND, {16516, 10000, 26844, 15516}},
    {RTA_RELEASED_CODE, RTA_TSG_RR_BUSY, {16516, 21516, 26688, 15516}},
    {RTA_RELEASED_CODE, RTA_GCAPS_SUSPEND, {9500, 10000, 26000, 13000}},
    {RTA_RELEASED_CODE, RTA_GCAPS_BUSY, {9500, 17500, 26000, 13000}},
};

static void test_hand_set_h(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof setH_bounds / sizeof setH_bounds[0]; k++) {
        tset s;
        int64_t w[5];
        build(&s, setH, 5, 2, 1 * MS, 200 * US, 1024 * US, setH_bounds[k].sem);
        assert_true(run(&s, setH_bounds[k].a, w, NULL));
        for (int i = 0; i < 4; i++)
            if (w[i] != setH_bounds[k].us[i] * US)
                fail_msg("row %zu, task %d: %lld ns, by hand %lld us", k, i, (long long)w[i],
                         (long long)setH_bounds[k].us[i]);
        assert_int_equal(w[4], RTA_NOT_ANALYSED);
    }
}

/* Set E, the edges: one core, L = 1 ms, θ = ε = 0.5 ms.
 *   P (prio 2, T 20, C 2, one segment G^m 1, G^e 2: exactly 2 slices)
 *   Q (prio 1, T = D = 20, C 14, CPU only)
 * tsg_rr_busy: P = 5 (ν = 0); Q = 14 + ⌈R/20⌉·(3 + 1.5·1·2) = 14, 20, and
 *   ⌈20/20⌉ = 1: 20 = D passes (a floor + 1 would give 26).
 * tsg_rr_suspend: Q = 14 + ⌈(R + 2)/20⌉·3 = 17.
 * gcaps: P = 5 + 4ε = 7. Busy, printed: Q = 14 + ε + ⌈R/20⌉·3 = 17.5;
 *   released: ⌈R/20⌉·(3 + 2 + 2ε) = 6: 20.5 > 20 fails. Suspend: Q =
 *   14.5 + ⌈(R + 4)/20⌉·(3 + 2ε): 18.5, then ⌈22.5/20⌉ = 2: 22.5 fails;
 *   with GPU priorities (D-based jitter 17) the same; P cannot take the
 *   lowest GPU level above its core's Q (§5.3), so _gprio fails too.
 * Released tsg_rr_suspend: J = T − 3 = 17: 17, then ⌈34/20⌉ = 2: 20. */
static const tdef setE[] = {
    {0, 2, 0, 20 * MS, 2 * MS, 1, {1 * MS}, {2 * MS}, 0},
    {0, 1, 0, 20 * MS, 14 * MS, 0, {0}, {0}, 0},
};

static void test_hand_set_e(void **state) {
    (void)state;
    tset s;
    int64_t w[2];
    build(&s, setE, 2, 1, 500 * US, 500 * US, 1 * MS, RTA_PRINTED);
    assert_true(run(&s, RTA_TSG_RR_BUSY, w, NULL));
    assert_int_equal(w[0], 5 * MS);
    assert_int_equal(w[1], 20 * MS);
    assert_true(run(&s, RTA_TSG_RR_SUSPEND, w, NULL));
    assert_int_equal(w[1], 17 * MS);
    assert_true(run(&s, RTA_GCAPS_BUSY, w, NULL));
    assert_int_equal(w[0], 7 * MS);
    assert_int_equal(w[1], 17500 * US);
    assert_false(run(&s, RTA_GCAPS_SUSPEND, w, NULL));
    assert_int_equal(w[0], 7 * MS);
    assert_int_equal(w[1], RTA_FAILED);
    assert_false(run(&s, RTA_GCAPS_SUSPEND_GPRIO, w, NULL));
    build(&s, setE, 2, 1, 500 * US, 500 * US, 1 * MS, RTA_RELEASED_CODE);
    assert_false(run(&s, RTA_GCAPS_BUSY, w, NULL));
    assert_int_equal(w[1], RTA_FAILED);
    assert_true(run(&s, RTA_TSG_RR_SUSPEND, w, NULL));
    assert_int_equal(w[1], 20 * MS);
}

/* K5 (corrected): a lower-priority owner handed the runlist lock asleep
 * waits for its core's tasks above τ_i, δ_c (the least fixed point of
 * δ = Σ ⌈(δ + ε + R_h − W_h)/T_h⌉ W_h). When that wait alone passes D_i,
 * τ_i cannot meet its deadline; the iteration stopped there and kept the
 * iterate before it, δ = 0, which made the bound optimistic.
 * Counterexample E (scenarios/gcaps-counterexample-e.json) with hc's CPU
 * segment 50 ms, tau's deadline 30 ms and w, x of period 1 s; ε = 1 ms,
 * θ = 0. The simulator (gcaps, suspend) gives tau a response of 54.4 ms
 * (a deadline miss): w is handed the lock at 1 ms while hc holds core 1
 * until 50.9 ms, and tau waits for w's update.
 *   hc: C 50 + one blocking ε at its start (w, lower, on its core): 51.
 *   tau, printed: G 2 + (3η^g + 1)ε = 6.
 *   tau, corrected: δ_1 = ⌈(0 + 1 + 51 − 50)/100⌉·50 = 50, a fixed point
 *   (⌈52/100⌉·50 = 50), past D = 30; each blocking ε + δ = 51, three of
 *   them (release, Begin, End): 2 + 2ε + 153 = 157 > 30: fails. Before the
 *   fix: δ = 0, 2 + 2 + 3 = 7, "schedulable". */
static const tdef handoff[] = {
    {0, 50, 0, 100 * MS, 0, 1, {0}, {2 * MS}, 0},           /* tau, D = 30 ms */
    {1, 60, 0, 100 * MS, 50 * MS, 0, {0}, {0}, 0},          /* hc, CPU only */
    {1, 1, 0, 1000 * MS, 0, 1, {0}, {1 * MS}, 0},           /* w */
    {2, 2, 0, 1000 * MS, 0, 1, {0}, {1 * MS}, 0},           /* x */
};

static void test_corrected_handoff_wait_past_the_deadline(void **state) {
    (void)state;
    tset s;
    int64_t w[4];
    build(&s, handoff, 4, 3, 1 * MS, 0, 1024 * US, RTA_PRINTED);
    s.t[0].deadline = 30 * MS;
    assert_true(run(&s, RTA_GCAPS_SUSPEND, w, NULL));
    assert_int_equal(w[0], 6 * MS);
    build(&s, handoff, 4, 3, 1 * MS, 0, 1024 * US, RTA_CORRECTED);
    s.t[0].deadline = 30 * MS;
    for (int a = RTA_GCAPS_BUSY; a <= RTA_GCAPS_SUSPEND_GPRIO; a++) {
        assert_false(run(&s, a, w, NULL));
        assert_int_equal(w[1], 51 * MS);
        assert_int_equal(w[0], RTA_FAILED);
    }
}

/* K1 (corrected, Eq. (3)): between two slices of τ_i the GPU switches into
 * each of the ν other TSGs and back, ν (L + θ) + θ a slice (docs/rta.md,
 * counterexample A). Two GPU tasks on two cores, L = 1 ms, θ = 0.2 ms, no
 * CPU work: a (G^e 2 ms, 2 slices) printed 2 + 2 × 1.2 = 4.4 ms, corrected
 * 2 + 2 × 1.4 = 4.8; b (1 ms, 1 slice) 2.2 and 2.4. */
static const tdef k1_pair[] = {
    {0, 2, 0, 100 * MS, 0, 1, {0}, {2 * MS}, 0},
    {1, 1, 0, 100 * MS, 0, 1, {0}, {1 * MS}, 0},
};

static void test_corrected_switch_back_per_slice(void **state) {
    (void)state;
    tset s;
    int64_t w[2];
    for (int a = RTA_TSG_RR_BUSY; a <= RTA_TSG_RR_SUSPEND; a++) {
        build(&s, k1_pair, 2, 2, 1 * MS, 200 * US, 1 * MS, RTA_PRINTED);
        assert_true(run(&s, a, w, NULL));
        assert_int_equal(w[0], 4400 * US);
        assert_int_equal(w[1], 2200 * US);
        build(&s, k1_pair, 2, 2, 1 * MS, 200 * US, 1 * MS, RTA_CORRECTED);
        assert_true(run(&s, a, w, NULL));
        assert_int_equal(w[0], 4800 * US);
        assert_int_equal(w[1], 2400 * US);
    }
}

/* K5 (corrected) counts the hand-off wait on the cores other than τ_i's:
 * on τ_i's own core the tasks above it are its P^C already (docs/rta.md,
 * K5). tau (core 0, priority 50, G^e 2 ms) shares its core with hc
 * (priority 60, CPU only, 50 ms); the lower-priority GPU task w is on core
 * 1, where nothing is above tau: δ_1 = 0, each of tau's 2η^g + 1 = 3
 * blockings is ε = 1 ms. tau = G 2 + 2εη^g 2 + 3 + hc's ⌈R/100⌉ · 50 = 57
 * ms (printed: 2 + (3η^g + 1)ε 4 + 50 = 56). Counting core 0 as well
 * would charge hc's 50 ms again in every blocking (3 × 51 ms) and fail tau.
 * hc = C 50 + one blocking ε at its start (tau, lower, on its core) = 51. */
static const tdef own_core[] = {
    {0, 50, 0, 100 * MS, 0, 1, {0}, {2 * MS}, 0},           /* tau */
    {0, 60, 0, 100 * MS, 50 * MS, 0, {0}, {0}, 0},          /* hc, CPU only */
    {1, 1, 0, 1000 * MS, 0, 1, {0}, {1 * MS}, 0},           /* w */
};

static void test_corrected_handoff_not_on_own_core(void **state) {
    (void)state;
    tset s;
    int64_t w[3];
    build(&s, own_core, 3, 2, 1 * MS, 0, 1 * MS, RTA_PRINTED);
    assert_true(run(&s, RTA_GCAPS_SUSPEND, w, NULL));
    assert_int_equal(w[0], 56 * MS);
    build(&s, own_core, 3, 2, 1 * MS, 0, 1 * MS, RTA_CORRECTED);
    for (int a = RTA_GCAPS_BUSY; a <= RTA_GCAPS_SUSPEND; a++) {
        assert_true(run(&s, a, w, NULL));
        assert_int_equal(w[0], 57 * MS);
        assert_int_equal(w[1], 51 * MS);
    }
}

/* M8: Audsley's search offers the lowest free GPU level only to a task
 * with no unassigned task of lower CPU priority on its core, so no order it
 * returns puts a task below a lower-CPU-priority task of its core on the
 * GPU (§5.3: such an order can deadlock, test_same_core_inversion_is_
 * infeasible). ε = θ = 0, one segment each (µs):
 *   a  core 0, priority 3, T 1000, C 10, G^e 100
 *   c  core 1, priority 2, T  230, C 10, G^e 100
 *   b  core 0, priority 1, T  200, C 10, G^e 10
 * Busy (self-suspending, the same tasks fail): the plain test fails b (C
 * 10 + G 10, a on its core 110, and c's G^e 100 twice, jitter R_c − G^e =
 * 110: 330 > 200). With the search's jitters D − G^e, lowest level, lowest CPU
 * priority first: b fails as before; c with a and b above it: 110 + 2 ×
 * 100 (J = 900) + 2 × 10 (J = 190) = 330 > 230; a is not offered (b is
 * free on its core). No order with a above b passes (b lowest and c lowest
 * both fail as above), so the taskset is not schedulable. Offered a, the
 * search would pass it at the lowest level (450 ≤ 1000), then c (130) and
 * b (130), and return a below b on core 0. The corrected semantics only add
 * to the bounds, and agree. */
static const tdef m8[] = {
    {0, 3, 0, 1000 * US, 10 * US, 1, {0}, {100 * US}, 0},   /* a */
    {1, 2, 0, 230 * US, 10 * US, 1, {0}, {100 * US}, 0},    /* c */
    {0, 1, 0, 200 * US, 10 * US, 1, {0}, {10 * US}, 0},     /* b */
};

static void test_audsley_keeps_same_core_order(void **state) {
    (void)state;
    tset s;
    int64_t w[3];
    int32_t gp[3];
    static const rta_semantics sems[] = {RTA_PRINTED, RTA_CORRECTED};
    for (size_t k = 0; k < 2; k++) {
        build(&s, m8, 3, 2, 0, 0, 1 * MS, sems[k]);
        for (int a = RTA_GCAPS_BUSY_GPRIO; a <= RTA_GCAPS_SUSPEND_GPRIO; a++) {
            rta_result r = {.wcrt = w, .gpu_priority = gp};
            rta_analyse(&s.ts, (rta_approach)a, &r);
            assert_false(r.schedulable);
            assert_false(r.gpu_assigned);
            assert_int_equal(w[2], RTA_FAILED);
        }
    }
}

/* M9: a taskset built to converge slowly (a higher-priority task using all
 * but 1 ppm of the core, long deadlines below it) stops at the work budget
 * with the open bounds failed, instead of holding the caller for hours. */
static void test_work_budget(void **state) {
    (void)state;
    static rta_task t[40];
    static const int64_t none[1] = {0};
    for (int i = 0; i < 40; i++)
        t[i] = (rta_task){.name = "x", .cpu = 0, .priority = 100 - i, .period = INT64_C(1000000000000000),
                          .deadline = INT64_C(1000000000000000), .cpu_total = 1000000,
                          .cpu_segments = 1, .misc = none, .exec = none};
    t[0].period = t[0].deadline = 1000000;
    t[0].cpu_total = 999999;
    rta_taskset ts = {.tasks = t, .n = 40, .cpus = 1, .time_slice = 1000000};
    char err[256];
    assert_int_equal(rta_check(&ts, err, sizeof err), 0);
    int64_t w[40];
    rta_result r = {.wcrt = w};
    rta_analyse(&ts, RTA_GCAPS_SUSPEND, &r);
    assert_true(r.budget_exhausted);
    assert_false(r.schedulable);
    assert_int_equal(w[0], 999999);
    assert_int_equal(w[39], RTA_FAILED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table2_default_priorities_fail),
        cmocka_unit_test(test_table2_given_gpu_priorities_pass),
        cmocka_unit_test(test_table2_audsley_finds_an_order),
        cmocka_unit_test(test_same_core_inversion_is_infeasible),
        cmocka_unit_test(test_lemma1_interleaving_counts_best_effort),
        cmocka_unit_test(test_lemma4_5_busy),
        cmocka_unit_test(test_lemma6_7_suspend),
        cmocka_unit_test(test_released_code_default_driver),
        cmocka_unit_test(test_lemma8_to_12_busy),
        cmocka_unit_test(test_lemma13_to_15_suspend),
        cmocka_unit_test(test_released_code_gcaps_busy_cpu_only),
        cmocka_unit_test(test_zero_length_gpu_segments),
        cmocka_unit_test(test_first_failure_fails_the_rest),
        cmocka_unit_test(test_check_messages),
        cmocka_unit_test(test_table4_case_study_verdicts),
        cmocka_unit_test(test_work_budget),
        cmocka_unit_test(test_corrected_handoff_wait_past_the_deadline),
        cmocka_unit_test(test_corrected_switch_back_per_slice),
        cmocka_unit_test(test_corrected_handoff_not_on_own_core),
        cmocka_unit_test(test_audsley_keeps_same_core_order),
        cmocka_unit_test(test_hand_set_h),
        cmocka_unit_test(test_hand_set_e),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
