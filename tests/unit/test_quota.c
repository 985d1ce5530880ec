/* test_quota.c -- the quota-based QoS warp policies of ISCA'17 (Wang et
 * al., "Quality of Service Support for Fine-Grained Sharing on GPUs"):
 * simcore/quota.c and warp_quota_{naive,history,elastic,rollover,rollover_time}.c, the
 * isolated IPC (simcore/qos.c) and the QoS records.
 *
 *   - the counters of each scheme, on the paper's Fig. 4 example (one
 *     SM, T_epoch = 50 cycles, a QoS kernel K0 whose quota is 100
 *     thread instructions and a non-QoS K1 whose first quota is 50, every
 *     warp instruction 32 threads), computed by hand below from §3.4-§3.5;
 *   - which warps may issue (the EWS pick) as counters run out;
 *   - the split of a quota over SMs (one counter per kernel per SM, shared
 *     by its sub-cores, §3.4.1), and warps that join later;
 *   - the shipped pair (scenarios/isca17-quota-pair.json): the QoS kernel
 *     misses its goal under naive, history and elastic, reaches it under
 *     rollover;
 *   - the looks of a throttled sub-core that the run skips change no
 *     trace (sim_config.every_quota_look: every look, the same bytes);
 *   - isolated IPCs cached per kernel shape; determinism; bad goals. */
#include <malloc.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../server/formats/scenario.h"
#include "../../server/formats/trace_json.h"
#include "../../importers/schedlab_trace.h"
#include "../../simcore/quota.h"
#include "../../simcore/sim.h"
#include "test_sim_util.h"

extern const warp_policy warp_quota_naive, warp_quota_history, warp_quota_elastic,
    warp_quota_rollover, warp_quota_rollover_time;

/* ---- Fig. 4 on one sub-core ----------------------------------------------------
 * K0 (QoS): IPC_goal 2 thread instructions per cycle, T_epoch 50, so eq. (1)
 * gives Quota_K0 = 2 x 50 = 100. K1 (non-QoS): §3.5 with IPC_epoch
 * initially 1 and no QoS epoch measured yet: 1 x 50 = 50. One warp of each
 * (K0's older), both joined at cycle 0, the first boundary at cycle 0. */
typedef struct fig4 {
    quota_state q;
    warp_sub sub;
    warp_gto_state gto;      /* the EWS's greedy warp (GTO's state, warp.h) */
    int64_t ready[2];
    warp_info info[2];
} fig4;

static void fig4_setup(fig4 *f, const warp_policy *wp) {
    memset(f, 0, sizeof *f);
    assert_non_null(wp->quota);
    assert_int_equal(quota_init(&f->q, wp->quota, 2, 1, 50), 0);
    quota_kernel_set(&f->q, 0, 2.0, 32);
    quota_kernel_set(&f->q, 1, 0, 32);
    quota_join(&f->q, 0, 0, 1, 0);
    quota_join(&f->q, 0, 1, 1, 0);
    quota_epoch(&f->q, 0);
    f->sub.n = 2;
    f->gto.greedy = -1;
    f->sub.ready = f->ready;
    f->sub.info = f->info;
    f->info[0] = (warp_info){ .kernel = 0, .budget = 1, .wid = 0 };
    f->info[1] = (warp_info){ .kernel = 1, .budget = 1, .wid = 1 };
    f->sub.quota_cnt = f->q.cnt;
}

static void charge(fig4 *f, int32_t k, int n, int64_t c) {
    for (int i = 0; i < n; i++) quota_charge(&f->q, 0, k, 32, c);
}

static void test_naive_fig4a(void **state) {
    (void)state;
    fig4 f;
    fig4_setup(&f, &warp_quota_naive);
    assert_int_equal(quota_alloc(&f.q, 0, 0), 100);
    assert_int_equal(quota_alloc(&f.q, 0, 1), 50);
    assert_int_equal(quota_counter(&f.q, 0, 0), 100);
    assert_int_equal(quota_counter(&f.q, 0, 1), 50);
    /* both have quota: GTO picks the oldest ready warp, K0's */
    assert_int_equal(quota_pick(&f.gto, &f.sub, 1), 0);
    /* K1 runs out first (50 -> 18 -> -14): no refill while K0 has quota */
    charge(&f, 1, 2, 1);
    assert_int_equal(quota_counter(&f.q, 0, 1), -14);
    f.gto.greedy = 1;                       /* even as the greedy warp, K1 is held */
    assert_int_equal(quota_pick(&f.gto, &f.sub, 2), 0);
    /* K0: 100 -> 68 -> 36 -> 4, still positive */
    charge(&f, 0, 3, 2);
    assert_int_equal(quota_counter(&f.q, 0, 0), 4);
    assert_int_equal(quota_counter(&f.q, 0, 1), -14);
    /* K0 goes to -28: every QoS kernel is out, so K1 gets quota_K1 again
     * (Fig. 4a: "C_k1 is then reallocated by adding 50, but C_k0 is not") */
    charge(&f, 0, 1, 3);
    assert_int_equal(quota_counter(&f.q, 0, 0), -28);
    assert_int_equal(quota_counter(&f.q, 0, 1), 36);
    f.gto.greedy = 0;
    assert_int_equal(quota_pick(&f.gto, &f.sub, 4), 1);   /* K0's warp may not issue */
    charge(&f, 1, 1, 4);
    assert_int_equal(quota_counter(&f.q, 0, 1), 4);
    /* no ready warp of a kernel with quota: none issues */
    f.ready[1] = 100;
    assert_int_equal(quota_pick(&f.gto, &f.sub, 5), -1);
    assert_int_equal(quota_wake(&f.q, 0, 5), 50);
    /* the boundary at 50: K0's new quota is added to its -28, the 28
     * instructions it completed past its quota (quota.h quota_debt:
     * §3.4.1 charges at completion, §3.4.2 "the resulting IPC of each epoch
     * is never above IPCgoal"): 72. K1's unused 4 is discarded; its quota
     * (§3.5): IPC_epoch = 96 / 50 = 1.92, K0's IPC_epoch = 128 / 50 = 2.56
     * against alpha x goal = 2: 1.92 x 1.28 x 50 = 122.88 -> 122 */
    quota_epoch(&f.q, 50);
    assert_int_equal(quota_counter(&f.q, 0, 0), 100 - 28);
    assert_int_equal(quota_alloc(&f.q, 0, 1), 122);
    assert_int_equal(quota_counter(&f.q, 0, 1), 122);
    assert_true(f.q.k[0].alpha == 1.0);          /* naive: no history */
    assert_int_equal(f.q.next_boundary, 100);
    quota_free(&f.q);
}

/* §3.4.1's refill with two non-QoS kernels on the SM: "The naïve scheme
 * checks if C_ks for all ks in the SM are zero or negative, to ensure all
 * QoS kernels have exhausted their quotas. If so, some quantity, e.g.,
 * quota_k, is added to C_k for all non-QoS kernels". Fig. 4a's K0 (QoS,
 * 100) and two non-QoS kernels K1 and K2 (§3.5's first quota, 1 x 50
 * each), one SM, 32 thread instructions a charge: K0 and K1 use theirs
 * (-28, -14) while K2 has 18 left: no refill, K1 waits; K2 runs out (-14):
 * every counter is out, both non-QoS kernels get their 50 (36, 36), K0
 * none. */
static void test_naive_refill_waits_for_every_kernel(void **state) {
    (void)state;
    quota_state q;
    assert_int_equal(quota_init(&q, warp_quota_naive.quota, 3, 1, 50), 0);
    quota_kernel_set(&q, 0, 2.0, 32);
    quota_kernel_set(&q, 1, 0, 32);
    quota_kernel_set(&q, 2, 0, 32);
    for (int32_t k = 0; k < 3; k++) quota_join(&q, 0, k, 1, 0);
    quota_epoch(&q, 0);
    assert_int_equal(quota_counter(&q, 0, 0), 100);
    assert_int_equal(quota_counter(&q, 0, 1), 50);
    assert_int_equal(quota_counter(&q, 0, 2), 50);
    quota_charge(&q, 0, 2, 32, 1);
    for (int i = 0; i < 2; i++) quota_charge(&q, 0, 1, 32, 2);
    for (int i = 0; i < 4; i++) quota_charge(&q, 0, 0, 32, 3);
    assert_int_equal(quota_counter(&q, 0, 0), -28);
    assert_int_equal(quota_counter(&q, 0, 1), -14);
    assert_int_equal(quota_counter(&q, 0, 2), 18);
    quota_charge(&q, 0, 2, 32, 4);
    assert_int_equal(quota_counter(&q, 0, 0), -28);
    assert_int_equal(quota_counter(&q, 0, 1), 36);
    assert_int_equal(quota_counter(&q, 0, 2), 36);
    quota_free(&q);
}

/* History (§3.4.2): K0 issues one warp instruction (32) in the first
 * epoch, so IPC_history = 32 / 50 = 0.64 and alpha = 2 / 0.64 = 3.125:
 * Quota = 3.125 x 2 x 50 = 312.5 -> 312. K1 issued nothing: IPC_epoch 0,
 * floored at the initial 1; the product is 0.64 / (3.125 x 2) = 0.1024:
 * 1 x 0.1024 x 50 = 5.12 -> 5. */
static void test_history_alpha(void **state) {
    (void)state;
    fig4 f;
    fig4_setup(&f, &warp_quota_history);
    charge(&f, 0, 1, 1);
    assert_int_equal(quota_counter(&f.q, 0, 0), 68);
    quota_epoch(&f.q, 50);
    assert_true(f.q.k[0].alpha == 3.125);
    assert_int_equal(quota_alloc(&f.q, 0, 0), 312);
    assert_int_equal(quota_counter(&f.q, 0, 0), 312);    /* the unused 68 discarded */
    assert_int_equal(quota_alloc(&f.q, 0, 1), 5);
    assert_int_equal(quota_counter(&f.q, 0, 1), 5);
    quota_free(&f.q);
}

/* Rollover (§3.4.4), the same epoch: K0's unused 68 is added to its new
 * 312; K1's unused 50 is discarded (Fig. 4c). K1's quota (§3.5) weighs
 * K0's IPC_epoch against K0's whole quota per cycle, the 68 kept included:
 * 0.64 / (3.125 x 2 + 68 / 50) = 0.0841 -> 1 x 0.0841 x 50 = 4.2 -> 4
 * (History: 5). Then K0 over-uses its quota: a negative counter carries
 * its debt, as under every scheme (quota.h quota_debt). */
static void test_rollover_carries(void **state) {
    (void)state;
    fig4 f;
    fig4_setup(&f, &warp_quota_rollover);
    charge(&f, 0, 1, 1);
    quota_epoch(&f.q, 50);
    assert_int_equal(quota_counter(&f.q, 0, 0), 312 + 68);
    assert_int_equal(quota_counter(&f.q, 0, 1), 4);
    /* 380 = 11 x 32 + 28: twelve instructions take it to -4 */
    charge(&f, 0, 12, 60);
    assert_int_equal(quota_counter(&f.q, 0, 0), -4);
    /* epoch 2: IPC_history = 13 x 32 / 100 = 4.16 >= 2: alpha = 1, quota
     * 100, less the 4 over-used */
    quota_epoch(&f.q, 100);
    assert_true(f.q.k[0].alpha == 1.0);
    assert_int_equal(quota_counter(&f.q, 0, 0), 100 - 4);
    quota_free(&f.q);
}

/* Rollover-Time (§4.5: "a time-multiplexed warp scheduling for Rollover
 * ... that blocks non-QoS kernels until the QoS kernels finish their
 * quotas"), on Fig. 4's example, worked out by hand:
 *   - epoch 1 (cycle 0): K0 gets Rollover's quota, 100 (eq. 1); K1's §3.5
 *     quota is 50 (as under Rollover) but its counter starts at 0: K1 may
 *     not issue, even when K0 has no ready warp (Rollover would let it);
 *   - K0 uses 100 in 4 warp instructions (100 -> 68 -> 36 -> 4 -> -28):
 *     every QoS kernel on the SM is out, K1 gets its 50 (§3.4.1's refill),
 *     and again when it runs out (50 -> 18 -> -14 -> 36);
 *   - epoch 2 (cycle 50): K0's IPC_history 128 / 50 = 2.56 >= 2: alpha 1,
 *     quota 100 added to its -28 (its debt, quota.h quota_debt): 72. K1:
 *     IPC_epoch 64 / 50 = 1.28, K0's 2.56 / 2: 1.28 x 1.28 x 50 = 81.92
 *     -> 81, its counter back to 0 (its unused 36 discarded);
 *   - K0 uses 64 (72 -> 8) and the epoch ends with K1 still blocked;
 *   - epoch 3 (cycle 100): K0's IPC_history (128 + 64) / 100 = 1.92:
 *     alpha = 2 / 1.92, quota 104.17 -> 104, plus the 8 rolled over: 112.
 *     K1 issued nothing: IPC_epoch 0, floored at 1; K0's term 1.28 /
 *     (2 / 1.92 x 2 + 8 / 50) = 0.5706: 1 x 0.5706 x 50 = 28.5 -> 28, its
 *     counter 0;
 *   - K0's last warp leaves the SM with 112 unused: the kernels left are
 *     all out of quota, K1 gets its 28 at once. */
static void test_rollover_time(void **state) {
    (void)state;
    fig4 f;
    fig4_setup(&f, &warp_quota_rollover_time);
    assert_int_equal(quota_alloc(&f.q, 0, 0), 100);
    assert_int_equal(quota_counter(&f.q, 0, 0), 100);
    assert_int_equal(quota_alloc(&f.q, 0, 1), 50);
    assert_int_equal(quota_counter(&f.q, 0, 1), 0);
    f.gto.greedy = 1;
    assert_int_equal(quota_pick(&f.gto, &f.sub, 1), 0);       /* K1's greedy warp is held */
    f.ready[0] = 100;
    assert_int_equal(quota_pick(&f.gto, &f.sub, 1), -1);      /* K0 not ready: still none */
    f.ready[0] = 0;
    charge(&f, 0, 3, 2);
    assert_int_equal(quota_counter(&f.q, 0, 0), 4);
    assert_int_equal(quota_counter(&f.q, 0, 1), 0);
    charge(&f, 0, 1, 3);
    assert_int_equal(quota_counter(&f.q, 0, 0), -28);
    assert_int_equal(quota_counter(&f.q, 0, 1), 50);
    assert_int_equal(quota_pick(&f.gto, &f.sub, 4), 1);
    charge(&f, 1, 2, 4);
    assert_int_equal(quota_counter(&f.q, 0, 1), -14 + 50);
    quota_epoch(&f.q, 50);
    assert_true(f.q.k[0].alpha == 1.0);
    assert_int_equal(quota_counter(&f.q, 0, 0), 100 - 28);
    assert_int_equal(quota_alloc(&f.q, 0, 1), 81);
    assert_int_equal(quota_counter(&f.q, 0, 1), 0);
    charge(&f, 0, 2, 60);
    assert_int_equal(quota_counter(&f.q, 0, 0), 8);
    assert_int_equal(quota_counter(&f.q, 0, 1), 0);
    quota_epoch(&f.q, 100);
    assert_true(fabs(f.q.k[0].alpha - 2 / 1.92) < 1e-12);
    assert_int_equal(quota_alloc(&f.q, 0, 0), 104);
    assert_int_equal(quota_counter(&f.q, 0, 0), 104 + 8);
    assert_int_equal(quota_alloc(&f.q, 0, 1), 28);
    assert_int_equal(quota_counter(&f.q, 0, 1), 0);
    quota_leave(&f.q, 0, 0, 110);
    assert_int_equal(quota_counter(&f.q, 0, 1), 28);
    quota_free(&f.q);

    /* Rollover itself, the same first steps: K1 starts with its 50 */
    fig4_setup(&f, &warp_quota_rollover);
    assert_int_equal(quota_counter(&f.q, 0, 1), 50);
    f.ready[0] = 100;
    assert_int_equal(quota_pick(&f.gto, &f.sub, 1), 1);
    quota_free(&f.q);
}

/* Rollover-Time blocks a non-QoS kernel only where a QoS kernel has quota:
 * on an SM without one it runs from the epoch's start, and warps that join
 * an SM later are held or not by the QoS kernels there. Two SMs; K0 (QoS,
 * goal 2, T 50: quota 100) on SM 0 only, K1 (non-QoS, 50) on both. */
static void test_rollover_time_per_sm(void **state) {
    (void)state;
    quota_state q;
    assert_int_equal(quota_init(&q, warp_quota_rollover_time.quota, 2, 3, 50), 0);
    quota_kernel_set(&q, 0, 2.0, 32);
    quota_kernel_set(&q, 1, 0, 32);
    quota_join(&q, 0, 0, 1, 0);
    quota_join(&q, 0, 1, 1, 0);
    quota_join(&q, 1, 1, 1, 0);
    quota_epoch(&q, 0);
    assert_int_equal(quota_counter(&q, 0, 0), 100);
    assert_int_equal(quota_counter(&q, 0, 1), 0);     /* held behind K0 */
    assert_int_equal(quota_counter(&q, 1, 1), 25);    /* 50 x 1 / 2: no QoS kernel here */
    /* K1 joins SM 2 (no QoS kernel): its share at once, 50 x 1 / 2 */
    quota_join(&q, 2, 1, 1, 5);
    assert_int_equal(quota_counter(&q, 2, 1), 25);
    /* K0 joins SM 2 too: a QoS kernel now holds quota there, but what
     * K1 was given stays (only the next boundary renews it) */
    quota_join(&q, 2, 0, 1, 6);
    assert_int_equal(quota_counter(&q, 2, 0), 100);
    assert_int_equal(quota_counter(&q, 2, 1), 25);
    quota_free(&q);
}

/* Elastic Epoch (§3.4.3, Fig. 4b): when every kernel has used its quota
 * a new epoch starts at once, the counters' (negative) values added to
 * the new quotas; an epoch that runs T_epoch cycles discards leftovers. */
static void test_elastic_epoch(void **state) {
    (void)state;
    fig4 f;
    fig4_setup(&f, &warp_quota_elastic);
    assert_int_equal(f.q.ends[0], 50);
    charge(&f, 0, 4, 10);                 /* K0: -28; K1 still has 50 */
    assert_int_equal(quota_counter(&f.q, 0, 0), -28);
    assert_int_equal(quota_counter(&f.q, 0, 1), 50);
    assert_int_equal(quota_pick(&f.gto, &f.sub, 11), 1);
    charge(&f, 1, 1, 11);                 /* K1: 18 */
    assert_int_equal(quota_counter(&f.q, 0, 1), 18);
    charge(&f, 1, 1, 12);                 /* K1: -14, all used: new epoch */
    assert_int_equal(quota_counter(&f.q, 0, 0), -28 + 100);
    assert_int_equal(quota_counter(&f.q, 0, 1), -14 + 50);
    assert_int_equal(f.q.ends[0], 12 + 1 + 50);
    /* the global boundary at 50 recomputes quotas but leaves the counters */
    quota_epoch(&f.q, 50);
    assert_int_equal(quota_counter(&f.q, 0, 0), 72);
    assert_int_equal(quota_counter(&f.q, 0, 1), 36);
    /* the sub-core's epoch times out at 63: renewed, leftovers discarded;
     * K0: IPC_history = 128 / 50 = 2.56 >= 2, quota 100; K1: IPC_epoch
     * 64 / 50 = 1.28, K0's 2.56 / 2: 1.28 x 1.28 x 50 = 81.92 -> 81 */
    quota_begin(&f.q, 0, 62);
    assert_int_equal(quota_counter(&f.q, 0, 0), 72);
    quota_begin(&f.q, 0, 63);
    assert_int_equal(quota_counter(&f.q, 0, 0), 100);
    assert_int_equal(quota_counter(&f.q, 0, 1), 81);
    assert_int_equal(f.q.ends[0], 113);
    quota_free(&f.q);
}

/* A QoS kernel whose last warp leaves the sub-core with quota unused
 * leaves the others as the kernels "in the SM" whose quota is used up:
 * under Naive (§3.4.1) the non-QoS kernel that is out gets quota_k again
 * at once, under Elastic Epoch (§3.4.3) a new epoch starts at once, not
 * at the boundary or the time-out. A non-QoS kernel that still has quota
 * is left as it is. */
static void test_leave_refills(void **state) {
    (void)state;
    fig4 f;
    fig4_setup(&f, &warp_quota_naive);
    charge(&f, 1, 1, 1);                  /* K1: 18, K0 still 100 */
    quota_leave(&f.q, 0, 0, 2);           /* K0 leaves with 100 */
    assert_int_equal(quota_counter(&f.q, 0, 1), 18);
    quota_free(&f.q);

    fig4_setup(&f, &warp_quota_naive);
    charge(&f, 1, 2, 1);                  /* K1: -14 */
    charge(&f, 0, 2, 2);                  /* K0: 36 */
    assert_int_equal(quota_counter(&f.q, 0, 1), -14);
    quota_leave(&f.q, 0, 0, 3);           /* K0 leaves with 36 unused */
    assert_int_equal(quota_counter(&f.q, 0, 1), -14 + 50);
    assert_int_equal(quota_counter(&f.q, 0, 0), 36);
    quota_free(&f.q);

    fig4_setup(&f, &warp_quota_elastic);
    charge(&f, 1, 2, 1);                  /* K1: -14: K0 has 100, no new epoch */
    assert_int_equal(quota_counter(&f.q, 0, 1), -14);
    assert_int_equal(f.q.ends[0], 50);
    quota_leave(&f.q, 0, 0, 7);
    assert_int_equal(quota_counter(&f.q, 0, 1), -14 + 50);
    assert_int_equal(f.q.ends[0], 7 + 1 + 50);
    quota_free(&f.q);
}

/* §3.4.1: a kernel's quota is split by the blocks (here warps) each SM
 * hosts; warps that join an SM later bring their share. */
static void test_split_over_subcores(void **state) {
    (void)state;
    quota_state q;
    assert_int_equal(quota_init(&q, warp_quota_naive.quota, 1, 3, 50), 0);
    quota_kernel_set(&q, 0, 2.0, 32);
    quota_join(&q, 0, 0, 3, 0);
    quota_join(&q, 1, 0, 1, 0);
    quota_epoch(&q, 0);
    assert_int_equal(quota_alloc(&q, 0, 0), 75);
    assert_int_equal(quota_alloc(&q, 1, 0), 25);
    assert_int_equal(quota_counter(&q, 2, 0), 0);
    quota_join(&q, 2, 0, 2, 7);           /* 100 x 2 / 4 */
    assert_int_equal(quota_counter(&q, 2, 0), 50);
    /* at the next boundary the split is over the 6 warps now resident */
    quota_epoch(&q, 50);
    assert_int_equal(quota_alloc(&q, 0, 0), 50);
    assert_int_equal(quota_alloc(&q, 1, 0), 16);
    assert_int_equal(quota_alloc(&q, 2, 0), 33);
    quota_free(&q);
}

/* ISCA'17 §4.6 (Figs. 12-13): "we simulate a GPU with 56 SMs, each SM
 * having two warp schedulers. Other simulation parameters are the same as
 * the ones in Table 1": the isca17-gpgpusim-56 preset is isca17-gpgpusim
 * with those two fields (and its SM order over 56 SMs) changed. */
static void test_preset_56(void **state) {
    (void)state;
    const sim_device *a = sim_preset_find("isca17-gpgpusim");
    const sim_device *b = sim_preset_find("isca17-gpgpusim-56");
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(b->sms, 56);
    assert_int_equal(b->schedulers_per_sm, 2);
    sim_device x;
    memcpy(&x, b, sizeof x);
    memcpy(x.name, a->name, sizeof x.name);
    x.sms = a->sms;
    x.schedulers_per_sm = a->schedulers_per_sm;
    memcpy(x.sm_order, a->sm_order, sizeof x.sm_order);
    assert_memory_equal(&x, a, sizeof x);
    for (int32_t i = 0; i < 56; i++) assert_int_equal(b->sm_order[i], i);
}

/* ---- the shipped pair ----------------------------------------------------------- */

typedef struct pair_result {
    double ipc_q, iso_q, ipc_c, iso_c, shared_c;
    bool met;
    int64_t end_q, end_c;
} pair_result;

/* policy.quota_history as the run gets it: -1 absent (the scheme's own),
 * 0 off, 1 on */
static void run_pair_history(const char *variant, int history, sim_ipc_cache *cache, trace *t) {
    char path[1024], err[512] = "";
    const char *root = getenv("SCHEDLAB_ROOT");
    snprintf(path, sizeof path, "%s%sscenarios/isca17-quota-pair.json", root ? root : "",
             root ? "/" : "");
    scn_scenario *s = NULL;
    if (scn_parse_file(path, &s, err, sizeof err) != 0) fail_msg("%s", err);
    int run = scn_find_run(s, variant);
    assert_true(run >= 0);
    sim_config cfg;
    assert_int_equal(scn_config(s, (size_t)run, &cfg, err, sizeof err), 0);
    cfg.ipc_cache = cache;
    if (history >= 0) {
        cfg.policy.has_quota_history = true;
        cfg.policy.quota_history = history;
    }
    trace_init(t);
    if (sim_run(&cfg, t, err, sizeof err) != 0) fail_msg("%s", err);
    scn_free(s);
}

static void run_pair(const char *variant, sim_ipc_cache *cache, trace *t) {
    run_pair_history(variant, -1, cache, t);
}

static void pair(const char *variant, pair_result *r) {
    trace t;
    run_pair(variant, NULL, &t);
    assert_int_equal(t.kernels.n, 2);
    const trace_kernel *c = &t.kernels.v[0], *q = &t.kernels.v[1];
    assert_string_equal(trace_str_get(&t, q->name), "Q");
    assert_true(q->qos_goal == 0.6);
    assert_true(c->qos_goal == 0);
    r->ipc_q = q->ipc;
    r->iso_q = q->ipc_isolated;
    r->ipc_c = c->ipc;
    r->iso_c = c->ipc_isolated;
    r->shared_c = c->ipc_shared;
    r->met = q->qos_met;
    r->end_q = q->end;
    r->end_c = c->end;
    assert_true(r->met == (q->ipc >= 0.6 * q->ipc_isolated));
    trace_free(&t);
}

#define NEAR(a, b) assert_float_equal((a), (b), 1e-9)

static void test_pair_rollover_meets_naive_misses(void **state) {
    (void)state;
    pair_result n, h, e, r;
    pair("quota-naive", &n);
    pair("quota-history", &h);
    pair("quota-elastic", &e);
    pair("quota-rollover", &r);
    /* the same kernels alone: Q 15.62 (latency-bound: 4 warps per
     * sub-core, each waiting 20 x 4 ALU cycles and a 260-cycle access per
     * 21 instructions), C 1.797 (bandwidth-bound: 1.44 requests per cycle,
     * 4 per access, 5 instructions per access: 1.8) */
    NEAR(n.iso_q, 15.617918772877811);
    NEAR(n.iso_c, 1.7970360137248627);
    NEAR(r.iso_q, n.iso_q);
    /* goal 0.6 x 15.62 = 9.374 */
    assert_false(n.met);
    assert_false(h.met);
    assert_false(e.met);
    assert_true(r.met);
    /* the paper's order (§4.2): Rollover > Elastic > Naive; History, on
     * the way from Naive to Elastic, between them */
    assert_true(r.ipc_q > e.ipc_q && e.ipc_q > h.ipc_q && h.ipc_q > n.ipc_q);
    /* what it costs the non-QoS kernel while Q runs (Fig. 8's measure):
     * most under Rollover, whose QoS kernel issues the most */
    assert_true(r.shared_c < n.shared_c && r.shared_c < h.shared_c && r.shared_c < e.shared_c);
    assert_true(r.end_q < n.end_q);
}

/* policy.quota_history (§4.8's ablation: "When disabling history-based quota
 * adjustment, QoSreach drops significantly") turns §3.4.2's alpha_k on or
 * off under any quota scheme and changes nothing else: History is Naive
 * with it (§3.4.2 "Naive Allocation with History-based Adjustment"), so
 * Naive with it on runs as History to the cycle, History with it off as
 * Naive; Rollover without it reaches less of its goal on the shipped pair
 * (the history's alpha is what lifts it past 0.6 there). */
static void same_run(const trace *a, const trace *b) {
    assert_int_equal(a->kernels.n, b->kernels.n);
    for (size_t i = 0; i < a->kernels.n; i++) {
        const trace_kernel *x = &a->kernels.v[i], *y = &b->kernels.v[i];
        assert_int_equal(x->end, y->end);
        assert_int_equal(x->instructions, y->instructions);
        assert_true(x->ipc == y->ipc);
        assert_true(x->ipc_shared == y->ipc_shared);
        assert_true(x->qos_met == y->qos_met);
    }
}

static void test_quota_history_setting(void **state) {
    (void)state;
    trace n, h, n_on, h_off, r, r_off;
    run_pair_history("quota-naive", -1, NULL, &n);
    run_pair_history("quota-history", -1, NULL, &h);
    run_pair_history("quota-naive", 1, NULL, &n_on);
    run_pair_history("quota-history", 0, NULL, &h_off);
    same_run(&n_on, &h);
    same_run(&h_off, &n);
    /* and the two differ, so the setting did something */
    assert_true(n.kernels.v[1].ipc != h.kernels.v[1].ipc);
    run_pair_history("quota-rollover", -1, NULL, &r);
    run_pair_history("quota-rollover", 0, NULL, &r_off);
    assert_string_equal(trace_str_get(&r, r.kernels.v[1].name), "Q");
    assert_true(r.kernels.v[1].qos_met);
    assert_true(r_off.kernels.v[1].ipc < r.kernels.v[1].ipc);
    assert_false(r_off.kernels.v[1].qos_met);   /* §4.8's direction: a goal met with it is missed */
    trace_free(&n);
    trace_free(&h);
    trace_free(&n_on);
    trace_free(&h_off);
    trace_free(&r);
    trace_free(&r_off);
}

/* ---- isolated IPC ---------------------------------------------------------------- */

static const sim_instr mem_body[] = { { SIM_ICLASS_ALU, 3 }, { SIM_ICLASS_MEM, 1 } };
static const sim_instr alu_body[] = { { SIM_ICLASS_ALU, 8 } };

static void build_three(tb *b, const sim_program *pm, const sim_program *pa, const char *warp) {
    tb_init(b, "isca17-gpgpusim");
    b->cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    b->cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, warp);
    b->cfg.policy.warp_issue_limit = -1;
    int32_t s1 = tb_stream(b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(b, "S2", "P0", SIM_PRIO_NONE);
    int32_t s3 = tb_stream(b, "S3", "P0", SIM_PRIO_NONE);
    sim_op *a = tb_op(b, SIM_OP_KERNEL, "A", s1, 0);
    sim_op *a2 = tb_op(b, SIM_OP_KERNEL, "A2", s2, 5);
    sim_op *c = tb_op(b, SIM_OP_KERNEL, "C", s3, 0);
    a->blocks = a2->blocks = 16;
    c->blocks = 32;
    a->threads = a2->threads = c->threads = 256;
    a->program = a2->program = pm;
    c->program = pa;
    a->qos_goal = 0.5;
    a2->qos_goal = 0.6;                   /* the goal is no part of the shape */
    tb_config(b);
}

static void test_isolated_cached_per_shape(void **state) {
    (void)state;
    static const sim_program pm = { .body = mem_body, .nbody = 2, .repeat = 20 };
    static const sim_program pa = { .body = alu_body, .nbody = 1, .repeat = 10 };
    tb b;
    build_three(&b, &pm, &pa, "quota-rollover");
    sim_ipc_cache cache;
    sim_ipc_cache_init(&cache);
    b.cfg.ipc_cache = &cache;
    trace t;
    trace_init(&t);
    char err[256];
    if (sim_run(&b.cfg, &t, err, sizeof err) != 0) fail_msg("%s", err);
    /* A and A2 have one shape: two isolated runs, not three */
    assert_int_equal(cache.runs, 2);
    assert_int_equal(cache.n, 2);
    const trace_kernel *a = &t.kernels.v[0], *a2 = &t.kernels.v[1], *c = &t.kernels.v[2];
    assert_true(a->ipc_isolated > 0);
    assert_true(a->ipc_isolated == a2->ipc_isolated);
    assert_true(c->ipc_isolated > a->ipc_isolated);
    /* ... and it is the IPC of A simulated alone under GTO */
    double iso;
    assert_int_equal(sim_ipc_isolated(&b.cfg, 0, NULL, &iso, err, sizeof err), 0);
    assert_true(iso == a->ipc_isolated);
    tb alone;
    tb_init(&alone, "isca17-gpgpusim");
    alone.cfg.policy.execution = b.cfg.policy.execution;
    alone.cfg.policy.warp_issue_limit = -1;
    int32_t s = tb_stream(&alone, "S1", "P0", SIM_PRIO_NONE);
    sim_op *o = tb_op(&alone, SIM_OP_KERNEL, "A", s, 0);
    o->blocks = 16;
    o->threads = 256;
    o->program = &pm;
    tb_config(&alone);
    trace ta;
    trace_init(&ta);
    if (sim_run(&alone.cfg, &ta, err, sizeof err) != 0) fail_msg("%s", err);
    assert_true(ta.kernels.v[0].ipc == iso);
    trace_free(&ta);
    /* a second run with the same cache simulates nothing alone */
    trace t2;
    trace_init(&t2);
    if (sim_run(&b.cfg, &t2, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(cache.runs, 2);
    assert_true(t2.kernels.v[0].ipc_isolated == a->ipc_isolated);
    /* a non-program op has none */
    assert_int_equal(sim_ipc_isolated(&b.cfg, 7, &cache, &iso, err, sizeof err), -1);
    assert_string_equal(err, "ops[7]: not a kernel with a program; only those have an isolated "
                             "IPC");
    assert_int_equal(sim_ipc_cache_put(&cache, &b.cfg, 7, 1.0), -1);
    /* IPC_isolated told to the cache (the QoS sweep's, over its window:
     * §3.2 has one IPC_isolated) is what A and A2 get, for their goal too:
     * no simulation alone, the entry replaced rather than added */
    assert_int_equal(sim_ipc_cache_put(&cache, &b.cfg, 1, 3.5), 0);
    assert_int_equal(cache.n, 2);
    assert_int_equal(sim_ipc_isolated(&b.cfg, 0, &cache, &iso, err, sizeof err), 0);
    assert_true(iso == 3.5);
    trace t3;
    trace_init(&t3);
    if (sim_run(&b.cfg, &t3, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(cache.runs, 2);
    assert_true(t3.kernels.v[0].ipc_isolated == 3.5 && t3.kernels.v[1].ipc_isolated == 3.5);
    assert_true(t3.kernels.v[2].ipc_isolated == c->ipc_isolated);
    /* A's goal, 0.5 x 3.5 warp instructions per cycle, is the one judged
     * (this short run ends before its quota binds: the sweep's pair in
     * tests/api/qos.test.mjs shows the goal pursued) */
    assert_true(t3.kernels.v[0].qos_met == (t3.kernels.v[0].ipc >= 0.5 * 3.5));
    trace_free(&t3);
    trace_free(&t2);
    trace_free(&t);
    sim_ipc_cache_free(&cache);
}

/* The cache key is every value the isolated run depends on (qos.c, "the
 * device's fields, the policies, the kernel's shape"; the blocks and the
 * repeat, test_isolated_key_is_the_shape): a kernel that
 * differs from a cached one in any of them -- its threads, an instruction
 * count, a memory access's sectors, a latency, the warp policy, a device
 * field, the SM order -- is simulated alone anew, not given the other's
 * entry; one that differs only in its goal or its launch time is the same
 * shape (ISCA'17 §3.2: one IPC_isolated per kernel). */
static void test_isolated_key_fields(void **state) {
    (void)state;
    sim_instr body[2] = {{SIM_ICLASS_ALU, 3}, {SIM_ICLASS_MEM, 1}};
    sim_access acc[2] = {{0}, {.sectors = 4}};
    sim_program pm = {.body = body, .nbody = 2, .repeat = 5, .access = acc};
    tb b;
    tb_init(&b, "isca17-gpgpusim");
    b.cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    b.cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, "gto");
    b.cfg.policy.warp_issue_limit = -1;
    sim_op *a = tb_op(&b, SIM_OP_KERNEL, "A", tb_stream(&b, "S1", "P0", SIM_PRIO_NONE), 0);
    a->blocks = 16;
    a->threads = 256;
    a->program = &pm;
    tb_config(&b);
    sim_ipc_cache cache;
    sim_ipc_cache_init(&cache);
    assert_int_equal(sim_ipc_cache_put(&cache, &b.cfg, 0, 1.25), 0);
    char err[256];
    double iso;
    /* the same shape: the cached entry, whatever the goal and launch time */
    a->qos_goal = 0.7;
    a->at = 1000;
    assert_int_equal(sim_ipc_isolated(&b.cfg, 0, &cache, &iso, err, sizeof err), 0);
    assert_true(iso == 1.25);
    assert_int_equal(cache.runs, 0);
    int runs = 0;
#define MISS(what, change, undo)                                                               \
    do {                                                                                       \
        change;                                                                                \
        if (sim_ipc_isolated(&b.cfg, 0, &cache, &iso, err, sizeof err)) fail_msg("%s", err); \
        if (cache.runs != ++runs) fail_msg("%s: the cached entry was read", what);             \
        undo;                                                                                  \
    } while (0)
    MISS("threads", a->threads = 128, a->threads = 256);
    MISS("an instruction count", body[0].count = 4, body[0].count = 3);
    MISS("a mem access's sectors", acc[1].sectors = 8, acc[1].sectors = 4);
    MISS("a latency", pm.latency[SIM_ICLASS_MEM] = 300, pm.latency[SIM_ICLASS_MEM] = 0);
    MISS("the warp policy", b.cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, "lrr"),
         b.cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, "gto"));
    MISS("a device field", b.cfg.device.latency_mem += 40, b.cfg.device.latency_mem -= 40);
    MISS("the SM order", (b.cfg.device.sm_order[0] = 1, b.cfg.device.sm_order[1] = 0),
         (b.cfg.device.sm_order[0] = 0, b.cfg.device.sm_order[1] = 1));
#undef MISS
    /* and each is cached under its own key: the first shape still reads 1.25 */
    assert_int_equal(sim_ipc_isolated(&b.cfg, 0, &cache, &iso, err, sizeof err), 0);
    assert_true(iso == 1.25);
    assert_int_equal(cache.runs, runs);
    /* every other value of the key, without a run each: an entry told to
     * the cache for a shape that differs in it (sim_ipc_cache_put) is its
     * own, and leaves the first shape's 1.25 where it was (a key without
     * the value would have replaced it) */
    sim_dep dep[2] = {{0}, {.n = 1, .on = {1}}};
    const sim_sm_order_kind kind0 = b.cfg.device.sm_order_kind;
    const sim_policy pol0 = b.cfg.policy;
    double want = 1.25;
#define APART(what, change, undo)                                                              \
    do {                                                                                       \
        change;                                                                                \
        assert_int_equal(sim_ipc_cache_put(&cache, &b.cfg, 0, 9.5), 0);                       \
        undo;                                                                                  \
        if (sim_ipc_isolated(&b.cfg, 0, &cache, &iso, err, sizeof err)) fail_msg("%s", err); \
        if (iso != want) fail_msg("%s: the other shape's entry was read", what);              \
    } while (0)
    APART("the SM order's kind",
          b.cfg.device.sm_order_kind = kind0 == SIM_SM_ORDER_EVENS_THEN_ODDS
                                           ? SIM_SM_ORDER_ASCENDING : SIM_SM_ORDER_EVENS_THEN_ODDS,
          b.cfg.device.sm_order_kind = kind0);
    assert_true(sim_policy_find(SIM_TABLE_PLACEMENT, "spart") != pol0.placement);
    assert_true(sim_policy_find(SIM_TABLE_EXECUTION, "fixed") != pol0.execution);
    APART("the placement", b.cfg.policy.placement = sim_policy_find(SIM_TABLE_PLACEMENT, "spart"),
          b.cfg.policy = pol0);
    APART("the execution", b.cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "fixed"),
          b.cfg.policy = pol0);
    APART("the driver", b.cfg.policy.driver = pol0.driver + 1, b.cfg.policy = pol0);
    APART("the launch latency", b.cfg.policy.launch_latency = 5000, b.cfg.policy = pol0);
    APART("the dispatch latency", b.cfg.policy.dispatch_latency = 7, b.cfg.policy = pol0);
    APART("shared memory", a->smem = 4096, a->smem = 0);
    APART("registers", a->regs = 64, a->regs = 0);
    APART("the QAWS budget", a->budget = 4, a->budget = 0);
    APART("the body's length", pm.nbody = 1, pm.nbody = 2);
    APART("an instruction's class", body[0].iclass = SIM_ICLASS_SFU,
          body[0].iclass = SIM_ICLASS_ALU);
    APART("a store", acc[1].store = 1, acc[1].store = 0);
    APART("fp32", acc[0].fp32 = 1, acc[0].fp32 = 0);
    APART("a working set's scope", acc[1].scope = SIM_SCOPE_KERNEL, acc[1].scope = SIM_SCOPE_WARP);
    APART("a working set's footprint", acc[1].footprint = 1 << 20, acc[1].footprint = 0);
    APART("unified memory", acc[1].managed = 1, acc[1].managed = 0);
    APART("a scoreboard", pm.dep = dep, pm.dep = NULL);
    pm.dep = dep;
    assert_int_equal(sim_ipc_cache_put(&cache, &b.cfg, 0, 2.5), 0);   /* that shape's own */
    want = 2.5;
    APART("a scoreboard's reads", dep[1].n = 0, dep[1].n = 1);
    APART("a scoreboard's distance", dep[1].on[0] = 2, dep[1].on[0] = 1);
    pm.dep = NULL;
    want = 1.25;
    APART("the memory requests", pm.mem_requests = 8, pm.mem_requests = 0);
    APART("persistent threads", pm.persistent = 1, pm.persistent = 0);
#undef APART
    /* only a kernel has an isolated IPC, a program or not: a copy given
     * one by hand is refused both ways */
    a->kind = SIM_OP_COPY;
    assert_int_equal(sim_ipc_cache_put(&cache, &b.cfg, 0, 9.5), -1);
    assert_int_equal(sim_ipc_isolated(&b.cfg, 0, &cache, &iso, err, sizeof err), -1);
    a->kind = SIM_OP_KERNEL;
    sim_ipc_cache_free(&cache);
}

/* ---- determinism and records ----------------------------------------------------- */

static void test_deterministic(void **state) {
    (void)state;
    trace t1, t2;
    run_pair("quota-rollover", NULL, &t1);
    sim_ipc_cache cache;
    sim_ipc_cache_init(&cache);
    run_pair("quota-rollover", &cache, &t2);
    assert_int_equal(t1.kernels.n, t2.kernels.n);
    for (size_t i = 0; i < t1.kernels.n; i++) {
        const trace_kernel *a = &t1.kernels.v[i], *b = &t2.kernels.v[i];
        assert_int_equal(a->end, b->end);
        assert_int_equal(a->instructions, b->instructions);
        assert_true(a->ipc == b->ipc && a->ipc_isolated == b->ipc_isolated &&
                    a->ipc_shared == b->ipc_shared && a->qos_met == b->qos_met);
    }
    assert_int_equal(t1.warp_epochs.n, t2.warp_epochs.n);
    assert_memory_equal(t1.warp_epochs.v, t2.warp_epochs.v,
                        t1.warp_epochs.n * sizeof *t1.warp_epochs.v);
    assert_string_equal(trace_get_meta(&t1, "warp"), "quota-rollover");
    trace_free(&t1);
    trace_free(&t2);
    sim_ipc_cache_free(&cache);
}

/* The QoS fields go out to trace JSON and come back exactly; a run
 * without goals writes none of them; bad values are refused by name. */
static void test_trace_json_both_ways(void **state) {
    (void)state;
    trace t;
    run_pair("quota-rollover", NULL, &t);
    tj_buf b = { 0 };
    assert_int_equal(tj_write_trace(&t, &b), 0);
    assert_non_null(strstr(b.s, "\"qos_goal\":0.59999999999999998,\"ipc_isolated\":"
                                "15.617918772877811,\"qos_met\":true}"));
    /* the non-QoS kernel's shared IPC, to its 17 digits */
    char want[128];
    snprintf(want, sizeof want, ",\"ipc_isolated\":1.7970360137248627,\"ipc_shared\":%.17g}",
             t.kernels.v[0].ipc_shared);
    assert_non_null(strstr(b.s, want));
    trace u;
    trace_init(&u);
    char err[256];
    assert_int_equal(imp_trace_json_parse(b.s, b.len, "t.json", &u, err, sizeof err), 0);
    for (size_t i = 0; i < 2; i++) {
        const trace_kernel *x = &t.kernels.v[i], *y = &u.kernels.v[i];
        assert_true(x->qos_goal == y->qos_goal && x->ipc_isolated == y->ipc_isolated &&
                    x->ipc_shared == y->ipc_shared && x->qos_met == y->qos_met);
    }
    /* bad values, named */
    char *bad = strdup(b.s);
    char *at = strstr(bad, "\"qos_goal\":0.5");
    memcpy(at, "\"qos_goal\":1.5", 14);
    trace v;
    trace_init(&v);
    assert_int_equal(imp_trace_json_parse(bad, b.len, "t.json", &v, err, sizeof err), -1);
    assert_string_equal(err, "t.json: kernels[1].qos_goal: expected a number in (0, 1]");
    trace_free(&v);
    free(bad);
    trace_free(&u);
    tj_buf_free(&b);
    trace_free(&t);
    /* no goals: no QoS keys (golden traces stay as they were) */
    static const sim_program pa = { .body = alu_body, .nbody = 1, .repeat = 2 };
    tb g;
    tb_init(&g, "isca17-gpgpusim");
    g.cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    g.cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, "quota-rollover");
    sim_op *o = tb_op(&g, SIM_OP_KERNEL, "K", tb_stream(&g, "S1", "P0", SIM_PRIO_NONE), 0);
    o->blocks = 2;
    o->threads = 64;
    o->program = &pa;
    tb_config(&g);
    trace w;
    trace_init(&w);
    if (sim_run(&g.cfg, &w, err, sizeof err) != 0) fail_msg("%s", err);
    tj_buf wb = { 0 };
    assert_int_equal(tj_write_trace(&w, &wb), 0);
    assert_null(strstr(wb.s, "qos"));
    assert_null(strstr(wb.s, "ipc_isolated"));
    tj_buf_free(&wb);
    trace_free(&w);
}

/* ---- the looks a throttled sub-core skips -------------------------------------------
 * Under the quota rule a sub-core whose ready warps are all throttled looks
 * again every cycle while another sub-core of its SM holds warps
 * (quota.h); the run skips the looks that would change nothing
 * (exec_warp.c, run_subcore_quota) and wakes the sub-core where one would.
 * sim_config.every_quota_look makes every look: the trace must be the
 * same, byte for byte. */

/* Scenario text -> its first run's configuration and trace (`what` names it
 * in a failure); the scenario is the caller's to free after cfg. */
static scn_scenario *run_text(const char *text, const char *what, sim_config *cfg, trace *t) {
    char err[512] = "";
    scn_scenario *s = NULL;
    if (scn_parse(text, strlen(text), "run.json", &s, err, sizeof err) != 0)
        fail_msg("%s: %s", what, err);
    assert_int_equal(scn_config(s, 0, cfg, err, sizeof err), 0);
    trace_init(t);
    if (sim_run(cfg, t, err, sizeof err) != 0) fail_msg("%s: %s", what, err);
    return s;
}

/* The scenario `text` parses and configures, and its run fails with `want`. */
static void run_refused(const char *text, const char *want) {
    char err[512] = "";
    scn_scenario *sc = NULL;
    sim_config cfg;
    assert_int_equal(scn_parse(text, strlen(text), "run.json", &sc, err, sizeof err), 0);
    assert_int_equal(scn_config(sc, 0, &cfg, err, sizeof err), 0);
    trace t;
    trace_init(&t);
    assert_int_equal(sim_run(&cfg, &t, err, sizeof err), -1);
    assert_string_equal(err, want);
    trace_free(&t);
    scn_free(sc);
}

/* cfg (every_quota_look set) gives the trace `t` its run without it gave. */
static void same_with_every_look(const sim_config *cfg, const trace *t, const char *what) {
    trace u;
    trace_init(&u);
    char err[256];
    if (sim_run(cfg, &u, err, sizeof err) != 0) fail_msg("%s: %s", what, err);
    tj_buf a = { 0 }, b = { 0 };
    assert_int_equal(tj_write_trace(t, &a), 0);
    assert_int_equal(tj_write_trace(&u, &b), 0);
    if (a.len != b.len || memcmp(a.s, b.s, a.len) != 0) {
        size_t i = 0;
        while (i < a.len && i < b.len && a.s[i] == b.s[i]) i++;
        size_t at = i > 200 ? i - 200 : 0;
        fail_msg("%s: the trace differs from the one with every look, at byte %zu:\n"
                 "skipped: %.300s\nevery:   %.300s", what, i, a.s + at, b.s + at);
    }
    tj_buf_free(&a);
    tj_buf_free(&b);
    trace_free(&u);
}

/* The QoSreach sweep's pair (sweeps/isca17-pair.json, shortened): a compute
 * QoS kernel and a memory-bound one, each launched four times on its own
 * stream (§4.1's re-execution: a kernel's blocks join the SMs again while
 * the other's sub-cores are throttled), on the paper's GPGPU-Sim GPU cut
 * to 4 SMs, with its front end and memory system (every scheme); without
 * the front end (a throttled sub-core alone on its SM then waits for its
 * charges); with the QoS kernel's ALU work on a half-rate fp32 pipe
 * (fp_hold moves its warps). */
static void test_skipped_looks(void **state) {
    (void)state;
    static const struct {
        const char *warp, *device, *fu;
    } cases[] = {
#define FE "{\"preset\":\"isca17-gpgpusim\",\"sms\":4,\"sm_order\":[0,1,2,3]"
#define LDST ",\"dram_sectors\":1.44,\"sm_port_sectors\":1,\"sm_mem_queue\":256," \
    "\"l1_smem_kb\":96,\"l1_assoc\":4,\"latency_l1\":20,\"l1_sectors\":1,\"ldst_queue\":2}"
        { "quota-naive", FE "}", "" },
        { "quota-history", FE "}", "" },
        { "quota-elastic", FE "}", "" },
        { "quota-rollover", FE "}", "" },
        { "quota-rollover-time", FE "}", "" },
        { "quota-naive", FE ",\"fetch_warps\":0,\"ibuffer\":0}", "" },
        { "quota-elastic", FE ",\"fetch_warps\":0,\"ibuffer\":0}", "" },
        { "quota-rollover", FE ",\"fetch_warps\":0,\"ibuffer\":0}", "" },
        { "quota-naive", FE ",\"fp32_rate\":0.5}", ",\"fu\":\"fp32\"" },
        { "quota-rollover", FE ",\"fp32_rate\":0.5}", ",\"fu\":\"fp32\"" },
        /* the memory system with the L1 and its LD/ST queue, the QoS
         * kernel's shared accesses passing the unit too (a sub-core whose
         * slots are all held sleeps until one frees, or to charge) */
        { "quota-naive", FE LDST, "},{\"op\":\"shared\",\"count\":4" },
        { "quota-rollover", FE LDST, "},{\"op\":\"shared\",\"count\":4" },
#undef FE
#undef LDST
    };
    /* and, after them, a trio under Rollover-Time (whose non-QoS counters
     * start at 0 where a kernel joins an SM): a second non-QoS kernel, C,
     * on fewer SMs than there are, its first launch later */
    for (size_t ci = 0; ci <= sizeof cases / sizeof *cases; ci++) {
        bool trio = ci == sizeof cases / sizeof *cases;
        const char *warp = trio ? "quota-rollover-time" : cases[ci].warp;
        const char *device = trio ? cases[0].device : cases[ci].device;
        const char *fu = trio ? "" : cases[ci].fu;
        char text[4096], ops[2048] = "";
        size_t n = 0;
        for (int run = 0; run < 4; run++) {
            n += (size_t)snprintf(ops + n, sizeof ops - n,
                                  "%s{\"kernel\":\"Q\",\"stream\":\"QOS\",\"blocks\":16,"
                                  "\"threads\":256,\"qos_goal\":0.6,\"program\":{\"body\":"
                                  "[{\"op\":\"alu\",\"count\":16%s}],\"repeat\":12}}",
                                  n ? "," : "", fu);
            n += (size_t)snprintf(ops + n, sizeof ops - n,
                                  ",{\"kernel\":\"M\",\"stream\":\"BE\",\"blocks\":16,"
                                  "\"threads\":256,\"program\":{\"body\":[{\"op\":\"alu\","
                                  "\"count\":2},{\"op\":\"mem\"}],\"repeat\":6}}");
            if (trio)
                n += (size_t)snprintf(ops + n, sizeof ops - n,
                                      ",{\"kernel\":\"C\",\"stream\":\"BE2\",\"at\":%d,"
                                      "\"blocks\":3,\"threads\":128,\"program\":{\"body\":"
                                      "[{\"op\":\"alu\",\"count\":4}],\"repeat\":40}}",
                                      run ? 0 : 3000);
        }
        snprintf(text, sizeof text,
                 "{\"schema\":\"schedlab-scenario/1\",\"name\":\"pair\",\"device\":%s,"
                 "\"policy\":{\"warp\":\"%s\",\"quota_epoch\":1000},"
                 "\"streams\":[{\"name\":\"QOS\",\"process\":\"P0\"},"
                 "{\"name\":\"BE\",\"process\":\"P1\"},"
                 "{\"name\":\"BE2\",\"process\":\"P2\"}],\"ops\":[%s]}",
                 device, warp, ops);
        sim_config cfg;
        trace t;
        scn_scenario *s = run_text(text, warp, &cfg, &t);
        assert_int_equal(t.kernels.n, trio ? 12 : 8);
        cfg.every_quota_look = true;
        char what[256];
        snprintf(what, sizeof what, "%s%s on %s", warp, trio ? ", trio" : "", device);
        same_with_every_look(&cfg, &t, what);
        trace_free(&t);
        scn_free(s);
    }
}

/* §4.1's re-execution as the sweep's template writes it ("runs", which
 * server/app/qos_sweep.c expands: each kernel's launches one after another
 * in the ops): the QoS manager's kernels are Q and M, numbered densely, and
 * what M reached while Q ran (Fig. 8's measure, ipc_shared) is recorded on
 * M's first launch -- the third kernel of the trace, not the second. */
#define Q_OP "{\"kernel\":\"Q\",\"stream\":\"QOS\",\"blocks\":16,\"threads\":256," \
    "\"qos_goal\":0.6,\"program\":{\"body\":[{\"op\":\"alu\",\"count\":16}],\"repeat\":12}}"
#define M_OP "{\"kernel\":\"M\",\"stream\":\"BE\",\"blocks\":16,\"threads\":256," \
    "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":2},{\"op\":\"mem\"}],\"repeat\":6}}"
static void test_reexecuted_pair_records(void **state) {
    (void)state;
    const char *text =
        "{\"schema\":\"schedlab-scenario/1\",\"name\":\"runs\","
        "\"device\":{\"preset\":\"isca17-gpgpusim\",\"sms\":4},"
        "\"policy\":{\"warp\":\"quota-rollover\",\"quota_epoch\":1000},"
        "\"streams\":[{\"name\":\"QOS\",\"process\":\"P0\"},{\"name\":\"BE\",\"process\":\"P1\"}],"
        "\"ops\":[" Q_OP "," Q_OP "," M_OP "," M_OP "]}";
    sim_config cfg;
    trace t;
    scn_scenario *s = run_text(text, "re-executed pair", &cfg, &t);
    assert_int_equal(t.kernels.n, 4);
    for (size_t k = 0; k < 4; k++) {
        const trace_kernel *K = &t.kernels.v[k];
        assert_string_equal(trace_str_get(&t, K->name), k < 2 ? "Q" : "M");
        if (k == 2) assert_true(K->ipc_shared > 0);
        else assert_true(K->ipc_shared == 0);
    }
    trace_free(&t);
    scn_free(s);
}
#undef Q_OP
#undef M_OP

/* ISCA'17 §3.6, "Symmetric TB allocation": "consider one QoS kernel and two
 * non-QoS kernels on a GPU with 16 SMs. The QoS kernel will run on 16 SMs
 * and each non-QoS kernel will run on 8 SMs. Within each SM, an equal
 * number of threads are assigned to the kernels on that SM." The same on 4
 * SMs of 2048 threads: Q (QoS) on every SM, A on SMs 0-1 and B on 2-3
 * (placement spart, the streams' partitions), 16 blocks of 256 threads
 * each. Two kernels on each SM: 1024 threads, 4 blocks of each at most, Q
 * 4 on every SM, A and B never off their halves. Without partitions all
 * three share every SM: 682 threads, 2 blocks. (The most blocks a kernel
 * holds at once on each SM, from the trace.) */
static void test_equal_share_trio(void **state) {
    (void)state;
    for (int part = 1; part >= 0; part--) {
        char text[4096];
        snprintf(text, sizeof text,
                 "{\"schema\":\"schedlab-scenario/1\",\"name\":\"trio\",\"device\":{\"preset\":"
                 "\"isca17-gpgpusim\",\"sms\":4,\"sm_order\":[0,1,2,3]},\"policy\":{\"warp\":"
                 "\"quota-rollover\",\"quota_epoch\":1000%s},\"streams\":["
                 "{\"name\":\"QOS\",\"process\":\"P0\"},"
                 "{\"name\":\"BE\",\"process\":\"P1\"%s},"
                 "{\"name\":\"BE2\",\"process\":\"P2\"%s}],\"ops\":["
                 "{\"kernel\":\"Q\",\"stream\":\"QOS\",\"blocks\":16,\"threads\":256,"
                 "\"qos_goal\":0.6,\"program\":{\"body\":[{\"op\":\"alu\",\"count\":16}],"
                 "\"repeat\":12}},"
                 "{\"kernel\":\"A\",\"stream\":\"BE\",\"blocks\":16,\"threads\":256,"
                 "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":2},{\"op\":\"mem\"}],"
                 "\"repeat\":6}},"
                 "{\"kernel\":\"B\",\"stream\":\"BE2\",\"blocks\":16,\"threads\":256,"
                 "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":2},{\"op\":\"mem\"}],"
                 "\"repeat\":6}}]}",
                 part ? ",\"placement\":\"spart\"" : "",
                 part ? ",\"sms\":{\"first\":0,\"count\":2}" : "",
                 part ? ",\"sms\":{\"first\":2,\"count\":2}" : "");
        sim_config cfg;
        trace t;
        scn_scenario *sc = run_text(text, "trio", &cfg, &t);
        assert_int_equal(t.kernels.n, 3);
        /* the most blocks of kernel k at once on SM m: at each block's
         * start, the blocks of k on m that started by then and end later */
        int most[3][4] = {{0}};
        for (size_t i = 0; i < t.blocks.n; i++) {
            const trace_block *b = &t.blocks.v[i];
            int n = 0;
            for (size_t j = 0; j < t.blocks.n; j++) {
                const trace_block *c = &t.blocks.v[j];
                n += c->kernel == b->kernel && c->sm == b->sm && c->start <= b->start &&
                     c->end > b->start;
            }
            if (n > most[b->kernel][b->sm]) most[b->kernel][b->sm] = n;
        }
        static const int with_parts[3][4] = {{4, 4, 4, 4}, {4, 4, 0, 0}, {0, 0, 4, 4}};
        static const int without[3][4] = {{2, 2, 2, 2}, {2, 2, 2, 2}, {2, 2, 2, 2}};
        const int (*want)[4] = part ? with_parts : without;
        for (int k = 0; k < 3; k++)
            for (int m = 0; m < 4; m++)
                if (most[k][m] != want[k][m])
                    fail_msg("%s partitions: kernel %c holds at most %d blocks on SM %d, "
                             "§3.6 says %d", part ? "with" : "without", "QAB"[k],
                             most[k][m], m, want[k][m]);
        trace_free(&t);
        scn_free(sc);
    }
}

/* ISCA'17 §3.4.1 charges a quota "when a warp instruction of k is
 * completed", and with a scoreboard (program.dep; GPGPU-Sim scoreboard.cc)
 * a warp issues while its earlier instructions are in flight, so what it
 * issues past its quota is what was in flight when the counter ran out.
 * Worked by hand: one warp of Q alone on one sub-core without a front
 * end, each of its instructions reading nothing (dep 0): sfu, alu, alu,
 * alu, repeated; latencies 100 and 4 (isca17-gpgpusim: GPGPU-Sim's).
 * IPC_isolated told 5/512 warp instructions a cycle and goal 0.5, so
 * Quota = 0.5 x 5/512 x 32 lanes x 1024 cycles = 160 lanes, five
 * instructions an epoch. From Q's first cycle c0 one issues every cycle
 * (each turn charges the completed ones first, then picks):
 *   c0    I1 sfu (done c0+100)      c0+5  I2 charged (128), I6 alu
 *   c0+1  I2 alu (done c0+5)        c0+6  I3 charged (96),  I7 alu
 *   c0+2  I3 alu (done c0+6)        c0+7  I4 charged (64),  I8 alu
 *   c0+3  I4 alu (done c0+7)        c0+8  nothing done,     I9 sfu
 *   c0+4  I5 sfu (done c0+104)      c0+9  I6 charged (32),  I10 alu
 *   c0+10 I7 charged: 0, Q holds.
 * Ten issued, 320 lanes: the counter ends the epoch at 160 - 320 = -160
 * once I8, I10, I1, I5 and I9 complete (by c0+108), carried (quota.h: the
 * debt); Naive's boundary at c0+1024 adds 160 (0: still held), the one at
 * c0+2048 160 more, and I11 issues then. Charged when the warp may issue
 * again, as without a scoreboard, I1 would be charged at c0+1 and the
 * fifth charge, at c0+5, would hold Q after six issues. */
static void test_charge_at_completion_scoreboard(void **state) {
    (void)state;
    static const sim_instr body[] = { { .iclass = SIM_ICLASS_SFU, .count = 1 },
                                      { .iclass = SIM_ICLASS_ALU, .count = 3 } };
    static const sim_dep none[] = { { .n = 0 }, { .n = 0 } };
    static const sim_program prog = { .body = body, .nbody = 2, .repeat = 8, .dep = none };
    for (int naive = 1; naive >= 0; naive--) {
        tb b;
        tb_init(&b, "isca17-gpgpusim");
        b.cfg.device.sms = 1;
        b.cfg.device.schedulers_per_sm = 1;
        b.cfg.device.fetch_warps = 0;
        b.cfg.device.ibuffer = 0;
        b.cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
        /* History's alpha is 1 at every boundary here (320 lanes by c0+108:
         * IPC_history at least the goal's 0.15625 lanes a cycle until
         * c0+2048), so it issues as Naive does */
        b.cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, naive ? "quota-naive" : "quota-history");
        b.cfg.policy.quota_epoch = 1024;
        int32_t st = tb_stream(&b, "QOS", "P0", SIM_PRIO_NONE);
        sim_op *o = tb_op(&b, SIM_OP_KERNEL, "Q", st, 0);
        o->blocks = 1;
        o->threads = 32;
        o->program = &prog;
        o->qos_goal = 0.5;
        tb_config(&b);
        sim_ipc_cache cache;
        sim_ipc_cache_init(&cache);
        assert_int_equal(sim_ipc_cache_put(&cache, &b.cfg, 0, 5.0 / 512), 0);
        b.cfg.ipc_cache = &cache;
        trace t;
        tb_run(&b, &t);
        assert_true(t.warp_issues.n >= 11);
        int64_t c0 = t.warp_issues.v[0].cycle;
        for (size_t i = 0; i < 10; i++)
            if (t.warp_issues.v[i].cycle != c0 + (int64_t)i)
                fail_msg("%s: instruction %zu issued at c0 + %lld, §3.4.1 at c0 + %zu",
                         naive ? "naive" : "history", i + 1,
                         (long long)(t.warp_issues.v[i].cycle - c0), i);
        if (t.warp_issues.v[10].cycle != c0 + 2048)
            fail_msg("%s: instruction 11 issued at c0 + %lld; the debt of the ten in flight "
                     "holds Q until c0 + 2048", naive ? "naive" : "history",
                     (long long)(t.warp_issues.v[10].cycle - c0));
        /* the looks a run skips change nothing, with charges in flight */
        b.cfg.every_quota_look = true;
        same_with_every_look(&b.cfg, &t, "charges in flight");
        trace_free(&t);
        sim_ipc_cache_free(&cache);
    }
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* ISCA'17 §3.6's equal share, "an equal number of threads are assigned to
 * the kernels on that SM", counts as live on an SM every kernel with blocks
 * resident or at the head of an EE queue now (simcore/ee.c, share_live),
 * a head that could not place a block in the block scheduler's last round
 * too: a kernel waiting for room is still one of the kernels the SM is
 * shared by. On one SM of 2048 threads: X (no goal) fills it alone with 8
 * blocks of 256 threads (no QoS kernel yet, so no share); N (no goal, one
 * block of 1024) arrives at 1 us and finds no room; Q (goal 0.6,
 * 256-thread blocks) arrives at 2 us. Three kernels are then live, 682
 * threads each: Q holds at most 2 blocks while X and N are live, and takes
 * them as the first two of X's blocks end; N's block needs 1024 threads,
 * which are free once four more of X's have ended (X's sixth end). Until
 * 2026-12-03 the heads were read from the round (st->cand, -1 for a
 * process that found no room), N dropped out of the count and Q held 4
 * (half the SM); docs/qos.md, "A waiting head drops out of the equal
 * share", has what the fix moved in the shipped sweeps. */
static void test_equal_share_waiting_head(void **state) {
    (void)state;
    const char *text =
        "{\"schema\":\"schedlab-scenario/1\",\"name\":\"head\",\"device\":{\"preset\":"
        "\"isca17-gpgpusim\",\"sms\":1},\"policy\":{\"warp\":\"quota-rollover\","
        "\"quota_epoch\":1000},\"streams\":[{\"name\":\"X\",\"process\":\"P0\"},"
        "{\"name\":\"N\",\"process\":\"P1\"},{\"name\":\"Q\",\"process\":\"P2\"}],"
        "\"ops\":[{\"kernel\":\"X\",\"stream\":\"X\",\"blocks\":8,\"threads\":256,"
        "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":16}],\"repeat\":200}},"
        "{\"kernel\":\"N\",\"stream\":\"N\",\"at\":\"1us\",\"blocks\":1,\"threads\":1024,"
        "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":16}],\"repeat\":20}},"
        "{\"kernel\":\"Q\",\"stream\":\"Q\",\"at\":\"2us\",\"blocks\":64,\"threads\":256,"
        "\"qos_goal\":0.6,\"program\":{\"body\":[{\"op\":\"alu\",\"count\":16}],"
        "\"repeat\":20}}]}";
    sim_config cfg;
    trace t;
    scn_scenario *sc = run_text(text, "waiting head", &cfg, &t);
    assert_int_equal(t.kernels.n, 3);
    int64_t n_start = -1, n_end = -1, x_end[8];
    size_t nx = 0;
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *b = &t.blocks.v[i];
        if (b->kernel == 1) {
            n_start = b->start;
            n_end = b->end;
        }
        if (b->kernel == 0) {
            assert_true(nx < 8);
            x_end[nx++] = b->end;
        }
    }
    assert_int_equal(nx, 8);
    qsort(x_end, nx, sizeof x_end[0], cmp_i64);
    assert_true(n_start > 2000);   /* N waited: X filled the SM */
    assert_true(n_end > x_end[0]);
    /* the most blocks of Q at once while X and N are both live, and Q's
     * first two blocks */
    int64_t both = n_end < x_end[7] ? n_end : x_end[7];
    int most = 0;
    int64_t q_first[2] = {INT64_MAX, INT64_MAX};
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *b = &t.blocks.v[i];
        if (b->kernel != 2) continue;
        if (b->start < q_first[0]) {
            q_first[1] = q_first[0];
            q_first[0] = b->start;
        } else if (b->start < q_first[1]) q_first[1] = b->start;
        if (b->start >= both) continue;
        int n = 0;
        for (size_t j = 0; j < t.blocks.n; j++) {
            const trace_block *c = &t.blocks.v[j];
            n += c->kernel == 2 && c->start <= b->start && c->end > b->start;
        }
        if (n > most) most = n;
    }
    assert_int_equal(most, 2);   /* a third of 2048 threads: two blocks of 256 */
    assert_int_equal(q_first[0], x_end[0]);
    assert_int_equal(q_first[1], x_end[1]);
    assert_int_equal(n_start, x_end[5]);   /* 1024 threads free: X's sixth end */
    trace_free(&t);
    scn_free(sc);
}

/* ISCA'17 §3.6 shares an SM "when a QoS kernel is running": once the QoS
 * kernel has ended, the other kernels are placed as without goals. One SM
 * of 2048 threads, three processes: Q (goal 0.6, one block of 256, short)
 * and A and B (no goal, 24 blocks of 256 each, A's far longer), all at 0.
 * While Q runs, three kernels share the SM: 682 threads, two blocks each.
 * Once Q has ended nothing is shared: A, the earliest in the EE order,
 * takes the room each of B's short blocks gives back, and while B is still
 * live holds more than the half of the SM that a share between A and B
 * would leave it (4 blocks of 256 threads). (The most blocks of A at once
 * on the SM, at a start of one of A's blocks after Q's end and before B's.) */
static void test_equal_share_needs_qos(void **state) {
    (void)state;
    const char *text =
        "{\"schema\":\"schedlab-scenario/1\",\"name\":\"after\",\"device\":{\"preset\":"
        "\"isca17-gpgpusim\",\"sms\":1},\"policy\":{\"warp\":\"quota-rollover\","
        "\"quota_epoch\":1000},\"streams\":[{\"name\":\"Q\",\"process\":\"P0\"},"
        "{\"name\":\"A\",\"process\":\"P1\"},{\"name\":\"B\",\"process\":\"P2\"}],"
        "\"ops\":[{\"kernel\":\"Q\",\"stream\":\"Q\",\"blocks\":1,\"threads\":256,"
        "\"qos_goal\":0.6,\"program\":{\"body\":[{\"op\":\"alu\",\"count\":4}],\"repeat\":5}},"
        "{\"kernel\":\"A\",\"stream\":\"A\",\"blocks\":24,\"threads\":256,"
        "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":16}],\"repeat\":100}},"
        "{\"kernel\":\"B\",\"stream\":\"B\",\"blocks\":24,\"threads\":256,"
        "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":4}],\"repeat\":5}}]}";
    sim_config cfg;
    trace t;
    scn_scenario *sc = run_text(text, "after the QoS kernel", &cfg, &t);
    assert_int_equal(t.kernels.n, 3);
    int64_t q_end = t.kernels.v[0].end, b_end = t.kernels.v[2].end;
    int during = 0, after = 0;
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *b = &t.blocks.v[i];
        if (b->kernel != 1) continue;
        int n = 0;
        for (size_t j = 0; j < t.blocks.n; j++) {
            const trace_block *c = &t.blocks.v[j];
            n += c->kernel == 1 && c->start <= b->start && c->end > b->start;
        }
        if (b->start < q_end && n > during) during = n;
        if (b->start >= q_end && b->start < b_end && n > after) after = n;
    }
    if (during != 2)
        fail_msg("while Q runs A holds at most %d blocks; §3.6's third of the SM is 2", during);
    if (after <= 4)
        fail_msg("after Q ended A holds at most %d blocks at once: the SM is still shared "
                 "(§3.6 shares it while a QoS kernel runs)", after);
    trace_free(&t);
    scn_free(sc);
}

/* IPC_isolated is cached by the kernel's shape (qos.c): a kernel that
 * differs in its block count or its program's repeat is another shape, and
 * gets the IPC it has alone, not the cached one of a kernel like it. A and
 * A2 as in test_isolated_cached_per_shape, A2 with 2 blocks (on 16 SMs a
 * far lower IPC alone), then with 16 blocks and its program repeated 2
 * times instead of 20 (its first loads' latency weighs more). */
static void test_isolated_key_is_the_shape(void **state) {
    (void)state;
    static const sim_program pm = { .body = mem_body, .nbody = 2, .repeat = 20 };
    static const sim_program pm2 = { .body = mem_body, .nbody = 2, .repeat = 2 };
    static const sim_program pa = { .body = alu_body, .nbody = 1, .repeat = 10 };
    for (int which = 0; which < 2; which++) {
        tb b;
        build_three(&b, &pm, &pa, "quota-rollover");
        if (which == 0) b.ops[1].blocks = 2;
        else b.ops[1].program = &pm2;
        tb_config(&b);
        char err[256];
        double a, a2;
        assert_int_equal(sim_ipc_isolated(&b.cfg, 0, NULL, &a, err, sizeof err), 0);
        assert_int_equal(sim_ipc_isolated(&b.cfg, 1, NULL, &a2, err, sizeof err), 0);
        assert_true(a2 < a);   /* the two shapes differ alone */
        sim_ipc_cache cache;
        sim_ipc_cache_init(&cache);
        b.cfg.ipc_cache = &cache;
        trace t;
        trace_init(&t);
        if (sim_run(&b.cfg, &t, err, sizeof err) != 0) fail_msg("%s", err);
        assert_int_equal(cache.runs, 3);
        if (t.kernels.v[1].ipc_isolated != a2)
            fail_msg("A2 with %s got IPC_isolated %.4f from the cache, %.4f alone",
                     which ? "repeat 2" : "2 blocks", t.kernels.v[1].ipc_isolated, a2);
        assert_true(t.kernels.v[0].ipc_isolated == a);
        trace_free(&t);
        sim_ipc_cache_free(&cache);
    }
}

/* ---- the run-time Spart (placement spart-climb, simcore/spart.c) ---------------------
 * Q (QoS, stream QOS) and A (stream BE) on 4 SMs of the ISCA'17 device,
 * ranks 0-1 and 2-3 to begin with, epochs of 1,000 cycles; both kernels
 * have many short blocks, so an SM that changes hands drains within a few
 * hundred cycles. spart.c's rule, one SM a step: at the boundary of 1,000
 * Q's first epoch with instructions decides nothing; at 2,000 Q below its
 * goal (goal 1: its IPC alone, out of reach on half the SMs) takes rank 2
 * from A, which keeps rank 3 and gives nothing more; Q far above its goal
 * (0.05: its IPC on one SM of two is still above it) gives rank 1 to A at
 * 2,000 and keeps rank 0 (a stream keeps one SM). The block scheduler
 * looks again at the next cycle, 2,001. Each case: the SMs each kernel's
 * blocks start on before and after that, from the trace. */
static void test_spart_climb(void **state) {
    (void)state;
    static const struct {
        double goal;
        int moved;              /* the SM that changes hands */
        const char *to;         /* its new owner */
    } cases[] = { {1.0, 2, "Q"}, {0.05, 1, "A"} };
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "{\"schema\":\"schedlab-scenario/1\",\"name\":\"climb\",\"device\":{\"preset\":"
                 "\"isca17-gpgpusim\",\"sms\":4,\"sm_order\":[0,1,2,3]},\"policy\":{\"warp\":"
                 "\"gto\",\"placement\":\"spart-climb\",\"quota_epoch\":1000},\"streams\":["
                 "{\"name\":\"QOS\",\"process\":\"P0\",\"sms\":{\"first\":0,\"count\":2}},"
                 "{\"name\":\"BE\",\"process\":\"P1\",\"sms\":{\"first\":2,\"count\":2}}],"
                 "\"ops\":[{\"kernel\":\"Q\",\"stream\":\"QOS\",\"blocks\":400,\"threads\":128,"
                 "\"qos_goal\":%g,\"program\":{\"body\":[{\"op\":\"alu\",\"count\":8}],"
                 "\"repeat\":4}},"
                 "{\"kernel\":\"A\",\"stream\":\"BE\",\"blocks\":400,\"threads\":128,"
                 "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":8}],\"repeat\":4}}]}",
                 cases[ci].goal);
        sim_config cfg;
        trace t;
        scn_scenario *sc = run_text(text, "spart-climb", &cfg, &t);
        double hz = (double)cfg.device.clock_hz;
        /* on[k][sm][after]: blocks of kernel k (0 Q, 1 A) started on sm
         * before cycle 2,001 (0) or from it (1) */
        int on[2][4][2] = {{{0}}};
        int64_t last_end = 0;
        for (size_t i = 0; i < t.blocks.n; i++) {
            const trace_block *b = &t.blocks.v[i];
            int k = strcmp(trace_str_get(&t, t.kernels.v[b->kernel].name), "Q") != 0;
            double cyc = (double)b->start * hz / 1e9;
            on[k][b->sm][cyc >= 2001 - 1e-6]++;
            if (b->end > last_end) last_end = b->end;
        }
        /* the run lasts well past the move, so that both sides place
         * blocks after it */
        assert_true((double)last_end * hz / 1e9 > 4000);
        int m = cases[ci].moved;
        for (int sm = 0; sm < 4; sm++) {
            int first_q = sm < 2;   /* the configured partition */
            int now_q = sm == m ? !strcmp(cases[ci].to, "Q") : first_q;
            if ((on[0][sm][0] > 0) != first_q || (on[1][sm][0] > 0) != !first_q)
                fail_msg("goal %g: before cycle 2,001 SM %d has %d blocks of Q and %d of A; "
                         "its owner is %s", cases[ci].goal, sm, on[0][sm][0], on[1][sm][0],
                         first_q ? "Q" : "A");
            if ((on[0][sm][1] > 0) != now_q || (on[1][sm][1] > 0) != !now_q)
                fail_msg("goal %g: from cycle 2,001 SM %d has %d blocks of Q and %d of A; "
                         "its owner is %s", cases[ci].goal, sm, on[0][sm][1], on[1][sm][1],
                         now_q ? "Q" : "A");
        }
        trace_free(&t);
        scn_free(sc);
    }
    /* The moved SM may already have room: A's 2 short blocks are over
     * long before cycle 2,000, Q's 64 blocks (16 on each of its 2 SMs at
     * once, about 3,000 cycles each) wait for room. Q, below goal 1, takes
     * rank 2 at 2,000 and 16 of its waiting blocks start there at cycle
     * 2,001 exactly, when the block scheduler looks again: no block of Q
     * ends before then to make it look. Rank 3 stays A's (it keeps one). */
    {
        const char *wake = "{\"schema\":\"schedlab-scenario/1\",\"name\":\"climb\",\"device\":"
                           "{\"preset\":\"isca17-gpgpusim\",\"sms\":4,\"sm_order\":[0,1,2,3]},"
                           "\"policy\":{\"warp\":\"gto\",\"placement\":\"spart-climb\","
                           "\"quota_epoch\":1000},\"streams\":[{\"name\":\"QOS\",\"process\":"
                           "\"P0\",\"sms\":{\"first\":0,\"count\":2}},{\"name\":\"BE\","
                           "\"process\":\"P1\",\"sms\":{\"first\":2,\"count\":2}}],\"ops\":["
                           "{\"kernel\":\"Q\",\"stream\":\"QOS\",\"blocks\":64,\"threads\":128,"
                           "\"qos_goal\":1,\"program\":{\"body\":[{\"op\":\"alu\",\"count\":8}],"
                           "\"repeat\":12}},{\"kernel\":\"A\",\"stream\":\"BE\",\"blocks\":2,"
                           "\"threads\":32,\"program\":{\"body\":[{\"op\":\"alu\"}]}}]}";
        sim_config cfg;
        trace t;
        scn_scenario *sc = run_text(wake, "spart-climb wake", &cfg, &t);
        double hz = (double)cfg.device.clock_hz;
        int64_t at2001 = (int64_t)((2001.0 * 1e9 + hz - 1) / hz);   /* ns of cycle 2,001 */
        int q2 = 0, early = 0;
        for (size_t i = 0; i < t.blocks.n; i++) {
            const trace_block *b = &t.blocks.v[i];
            if (strcmp(trace_str_get(&t, t.kernels.v[b->kernel].name), "Q") != 0) continue;
            assert_true(b->sm != 3);
            if (b->sm == 2) q2 += b->start == at2001;
            if (b->sm == 2 && b->start < at2001) early++;
            if (b->sm < 2 && b->index < 32) assert_true(b->end > at2001);
        }
        assert_int_equal(early, 0);
        assert_int_equal(q2, 16);
        trace_free(&t);
        scn_free(sc);
    }
    /* partitions that overlap cannot move one SM at a time: refused when
     * the run starts, naming the stream */
    const char *text = "{\"schema\":\"schedlab-scenario/1\",\"name\":\"climb\",\"device\":"
                       "{\"preset\":\"isca17-gpgpusim\",\"sms\":4},\"policy\":{\"placement\":"
                       "\"spart-climb\"},\"streams\":[{\"name\":\"A\",\"sms\":{\"first\":0,"
                       "\"count\":2}},{\"name\":\"B\",\"process\":\"P1\",\"sms\":{\"first\":1,"
                       "\"count\":3}}],\"ops\":[{\"kernel\":\"K\",\"stream\":\"A\",\"blocks\":1,"
                       "\"threads\":32,\"qos_goal\":0.5,\"program\":{\"body\":[{\"op\":\"alu\"}]}}]}";
    run_refused(text, "streams[1].sms: ranks 1..3 overlap streams[0]'s; spart-climb moves SMs "
                      "between partitions that do not");
}

/* Two streams of 400 blocks of 8 ALU instructions x 4 on 4 SMs, 2 each:
 * Q (a QoS kernel at `goal`) and A, under spart-climb with 1,000-cycle
 * epochs; `policy` more policy keys (",\"key\":value" or ""). */
static void climb_pair(char *text, size_t n, const char *goal, const char *policy) {
    snprintf(text, n,
             "{\"schema\":\"schedlab-scenario/1\",\"name\":\"climb\",\"device\":{\"preset\":"
             "\"isca17-gpgpusim\",\"sms\":4,\"sm_order\":[0,1,2,3]},\"policy\":{\"warp\":"
             "\"gto\",\"placement\":\"spart-climb\",\"quota_epoch\":1000%s},\"streams\":["
             "{\"name\":\"QOS\",\"process\":\"P0\",\"sms\":{\"first\":0,\"count\":2}},"
             "{\"name\":\"BE\",\"process\":\"P1\",\"sms\":{\"first\":2,\"count\":2}}],"
             "\"ops\":[{\"kernel\":\"Q\",\"stream\":\"QOS\",\"blocks\":400,\"threads\":128,"
             "\"qos_goal\":%s,\"program\":{\"body\":[{\"op\":\"alu\",\"count\":8}],"
             "\"repeat\":4}},"
             "{\"kernel\":\"A\",\"stream\":\"BE\",\"blocks\":400,\"threads\":128,"
             "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":8}],\"repeat\":4}}]}",
             policy, goal);
}

/* A block of a climb_run: Q's or A's, its SM, its start and end (cycles). */
typedef struct climb_block {
    bool q;
    int32_t sm;
    double start, end;
} climb_block;

/* climb_pair's scenario run at `goal` with `policy`: its policy into *pol,
 * its blocks into *v (the count returned; free it). */
static size_t climb_run(const char *goal, const char *policy, sim_policy *pol, climb_block **v) {
    char text[2048];
    climb_pair(text, sizeof text, goal, policy);
    sim_config cfg;
    trace t;
    scn_scenario *sc = run_text(text, "spart-climb", &cfg, &t);
    *pol = cfg.policy;
    double hz = (double)cfg.device.clock_hz;
    size_t n = t.blocks.n;
    *v = malloc((n ? n : 1) * sizeof **v);
    assert_non_null(*v);
    for (size_t i = 0; i < n; i++) {
        const trace_block *b = &t.blocks.v[i];
        (*v)[i] = (climb_block){
            .q = !strcmp(trace_str_get(&t, t.kernels.v[b->kernel].name), "Q"),
            .sm = b->sm, .start = (double)b->start * hz / 1e9, .end = (double)b->end * hz / 1e9};
    }
    trace_free(&t);
    scn_free(sc);
    return n;
}

/* spart-climb with policy.spart_take_last (docs/qos.md, "Spart's floor";
 * ISCA'17 §4.2: "For C+C kernels, Spart and Rollover meet QoS goals in all
 * cases", which an issue-bound kernel at goal 0.95 meets only on every SM).
 * The first case of test_spart_climb, Q below goal 1: Q takes rank 2 at
 * cycle 2,000 and, still below its goal, A's last SM, rank 3, at 3,000
 * (without the option A keeps it). From then A starts no block while Q has
 * blocks to run; once Q's last block has ended, A's partition, empty, is
 * every SM (spart.c sim_part_span), and all of A's 400 blocks run: the run
 * does not end with blocks that can go nowhere. */
static void test_spart_climb_take_last(void **state) {
    (void)state;
    for (int take = 0; take <= 1; take++) {
        sim_policy pol;
        climb_block *v;
        size_t n = climb_run("1", take ? ",\"spart_take_last\":true" : "", &pol, &v);
        assert_int_equal(pol.spart_take_last, take);
        double q_end = 0;
        for (size_t i = 0; i < n; i++)
            if (v[i].q && v[i].end > q_end) q_end = v[i].end;
        assert_true(q_end > 4000);   /* Q runs well past the move */
        /* blocks started on SM 3 from cycle 3,001 until Q's end, by kernel;
         * A's blocks in all, and after Q's end */
        int q3 = 0, a_during = 0, a_all = 0, a_after = 0;
        for (size_t i = 0; i < n; i++) {
            const climb_block *b = &v[i];
            if (b->q) {
                q3 += b->sm == 3 && b->start >= 3001 - 1e-6;
                continue;
            }
            a_all++;
            if (b->start >= 3001 - 1e-6 && b->start < q_end) a_during++;
            if (b->start >= q_end) a_after++;
        }
        assert_int_equal(a_all, 400);
        if (take) {
            if (q3 == 0) fail_msg("Q took no block to SM 3 after cycle 3,001");
            assert_int_equal(a_during, 0);
            assert_true(a_after > 0);
        } else {
            assert_int_equal(q3, 0);        /* A keeps rank 3 */
            assert_true(a_during > 0);
        }
        free(v);
    }
    /* the option belongs to spart-climb: refused elsewhere, naming it */
    const char *text = "{\"schema\":\"schedlab-scenario/1\",\"name\":\"x\",\"device\":"
                       "\"isca17-gpgpusim\",\"policy\":{\"placement\":\"spart\","
                       "\"spart_take_last\":true},\"ops\":[{\"kernel\":\"K\",\"blocks\":1,"
                       "\"threads\":32,\"program\":{\"body\":[{\"op\":\"alu\"}]}}]}";
    run_refused(text, "policy.spart_take_last: only placement \"spart-climb\" moves SMs between "
                      "partitions (here \"spart\")");
}

/* spart-climb with policy.spart_take_only (docs/qos.md, "Spart's
 * give-back"; ISCA'17 §4.4: "Spart exceeds the given goal by 11.6% on
 * average ... because the QoS kernel uses more resources than it actually
 * needs"). Q at goal 0.1 on 2 of 4 SMs would meet it on one: at cycle
 * 2,000 (the first boundary decides nothing) the climb gives rank 1 back
 * to A, whose waiting blocks take its room as Q's blocks there end (it
 * drains). With the option Q keeps both: A never runs on SMs 0-1. */
static void test_spart_climb_take_only(void **state) {
    (void)state;
    for (int only = 0; only <= 1; only++) {
        sim_policy pol;
        climb_block *v;
        size_t n = climb_run("0.1", only ? ",\"spart_take_only\":true" : "", &pol, &v);
        assert_int_equal(pol.spart_take_only, only);
        /* blocks by kernel and SM; A's on SM 1, and Q's there started
         * after the boundary at 2,000 */
        int a01 = 0, a1 = 0, q0 = 0, q1_late = 0, q_late = 0;
        for (size_t i = 0; i < n; i++) {
            const climb_block *b = &v[i];
            if (b->q) {
                assert_true(b->sm < 2);   /* A keeps ranks 2-3 either way */
                q0 += b->sm == 0;
                q1_late += b->sm == 1 && b->start > 2001;
                q_late += b->start > 2001;
            } else {
                a01 += b->sm < 2;
                a1 += b->sm == 1;
            }
        }
        /* Q runs long past the boundary, so that the rule has its say */
        assert_true(q_late > 100);
        assert_true(q0 > 0);
        if (only) {
            assert_int_equal(a01, 0);
            if (q1_late == 0) fail_msg("Q placed no block on SM 1 after cycle 2,001");
        } else {
            if (a1 == 0) fail_msg("A placed no block on SM 1, which Q gave back at cycle 2,000");
            assert_int_equal(q1_late, 0);   /* the SM is A's from the boundary */
            assert_int_equal(a01, a1);      /* and SM 0 stays Q's */
        }
        free(v);
    }
    /* the option belongs to spart-climb: refused elsewhere, naming it */
    const char *text = "{\"schema\":\"schedlab-scenario/1\",\"name\":\"x\",\"device\":"
                       "\"isca17-gpgpusim\",\"policy\":{\"placement\":\"most-room\","
                       "\"spart_take_only\":true},\"ops\":[{\"kernel\":\"K\",\"blocks\":1,"
                       "\"threads\":32,\"program\":{\"body\":[{\"op\":\"alu\"}]}}]}";
    run_refused(text, "policy.spart_take_only: only placement \"spart-climb\" moves SMs between "
                      "partitions (here \"most-room\")");
}

/* spart-climb with policy.spart_trial (docs/qos.md, "Spart's give-back":
 * hill climbing by trial and error). Q at goal 0.45 on 2 of 4 SMs issues
 * about half its isolated IPC (the 4 SMs'): the prediction (one SM fewer,
 * a quarter) says keep both, so without the option A never runs on SMs
 * 0-1. On trial Q gives rank 1 back at cycle 2,000 (the first boundary
 * decides nothing), misses its goal over the next epoch, takes the SM
 * back at 3,000 and, its floor now 2, never tries again: A's blocks start
 * on SM 1 only between the two boundaries, and Q's there again after. */
static void test_spart_climb_trial(void **state) {
    (void)state;
    for (int trial = 0; trial <= 1; trial++) {
        sim_policy pol;
        climb_block *v;
        size_t n = climb_run("0.45", trial ? ",\"spart_trial\":true" : "", &pol, &v);
        assert_int_equal(pol.spart_trial, trial);
        /* A's blocks on SMs 0-1, on SM 1 within the trial's epoch and
         * after it; Q's on SM 1 after the take-back, and late in the run */
        int a01 = 0, a1_trial = 0, a1_after = 0, q1_after = 0, q_late = 0;
        for (size_t i = 0; i < n; i++) {
            const climb_block *b = &v[i];
            if (b->q) {
                assert_true(b->sm < 2);   /* A keeps ranks 2-3 either way */
                q1_after += b->sm == 1 && b->start > 3001;
                q_late += b->start > 6000;
            } else {
                a01 += b->sm < 2;
                a1_trial += b->sm == 1 && b->start > 2000 && b->start <= 3001;
                a1_after += b->sm == 1 && b->start > 3001;
            }
        }
        /* Q runs long past the take-back, so that a second trial would show */
        assert_true(q_late > 50);
        if (trial) {
            if (a1_trial == 0) fail_msg("A placed no block on SM 1, which Q gave back on trial "
                                        "at cycle 2,000");
            assert_int_equal(a1_after, 0);   /* Q took it back at 3,000, for good */
            assert_int_equal(a01, a1_trial); /* SM 0 stays Q's */
            if (q1_after == 0) fail_msg("Q placed no block on SM 1 after it took it back");
        } else {
            assert_int_equal(a01, 0);        /* predicted: Q needs both */
        }
        free(v);
    }
    /* the option belongs to spart-climb, and contradicts spart_take_only */
    const char *text = "{\"schema\":\"schedlab-scenario/1\",\"name\":\"x\",\"device\":"
                       "\"isca17-gpgpusim\",\"policy\":{\"placement\":\"spart\","
                       "\"spart_trial\":true},\"ops\":[{\"kernel\":\"K\",\"blocks\":1,"
                       "\"threads\":32,\"program\":{\"body\":[{\"op\":\"alu\"}]}}]}";
    run_refused(text, "policy.spart_trial: only placement \"spart-climb\" moves SMs between "
                      "partitions (here \"spart\")");
    char both[2048];
    climb_pair(both, sizeof both, "0.45", ",\"spart_trial\":true,\"spart_take_only\":true");
    run_refused(both, "policy.spart_trial: the climb gives SMs back by trial, and spart_take_only "
                      "says it gives none back; give one of the two");
}

/* spart-climb with policy.sm_preempt (ISCA'17 §2.3: an SM changes hands
 * by "saving context of a running kernel one SM at a time [31, 37]"):
 * A's blocks are long (1,024 threads, 2 per SM, about 15K cycles each),
 * so its SMs would not drain for long. Q below goal 1 takes rank 2 at
 * cycle 2,000; A's 2 blocks there are preempted: once their instructions in
 * flight are done (ALU latency 4: by cycle 2,004) their contexts go out
 * one after the other through the SM's port, each half of the SM's
 * (sm_preempt 200 cycles for a whole SM: 100 each), so the records end by
 * 2,104 and 100 cycles later; Q's blocks start there once the first is
 * saved (its room is free); the 2 resume on A's SM 3 before any of A's unplaced blocks
 * (indices 4-7), each as a second record of the same index starting no
 * earlier than its first ended, and A's instructions come out exactly. */
#define PREEMPT_TEXT(DEP) "{\"schema\":\"schedlab-scenario/1\",\"name\":\"preempt\",\"device\":{" \
                       "\"preset\":\"isca17-gpgpusim\",\"sms\":4,\"sm_order\":[0,1,2,3]}," \
                       "\"policy\":{\"warp\":\"gto\",\"placement\":\"spart-climb\"," \
                       "\"quota_epoch\":1000,\"sm_preempt\":\"200cycles\"},\"streams\":[" \
                       "{\"name\":\"QOS\",\"process\":\"P0\",\"sms\":{\"first\":0,\"count\":2}}," \
                       "{\"name\":\"BE\",\"process\":\"P1\",\"sms\":{\"first\":2,\"count\":2}}]," \
                       "\"ops\":[{\"kernel\":\"Q\",\"stream\":\"QOS\",\"blocks\":64,\"threads\":128," \
                       "\"qos_goal\":1,\"program\":{\"body\":[{\"op\":\"alu\",\"count\":8" DEP "}]," \
                       "\"repeat\":40}},{\"kernel\":\"A\",\"stream\":\"BE\",\"blocks\":8," \
                       "\"threads\":1024,\"program\":{\"body\":[{\"op\":\"alu\",\"count\":8}]," \
                       "\"repeat\":60}}]}"
static void check_climb_preempt(const char *text, const char *what) {
    sim_config cfg;
    trace t;
    scn_scenario *sc = run_text(text, what, &cfg, &t);
    double hz = (double)cfg.device.clock_hz;
#define CYC(ns) ((double)(ns) * hz / 1e9)
    int32_t qk = -1, ak = -1;
    for (size_t k = 0; k < t.kernels.n; k++) {
        if (!strcmp(trace_str_get(&t, t.kernels.v[k].name), "Q")) qk = (int32_t)k;
        else ak = (int32_t)k;
    }
    /* A's records by index: how many, the first one's SM and end, the
     * second one's SM and start */
    int nrec[8] = {0}, sm1[8], sm2[8];
    double end1[8], start2[8], saved = 1e18, saved2 = 0, first_new_after = 1e18, last_resume = 0;
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *b = &t.blocks.v[i];
        if (b->kernel != ak) continue;
        assert_true(b->index >= 0 && b->index < 8);
        int x = b->index;
        if (nrec[x]++ == 0) {
            sm1[x] = b->sm;
            end1[x] = CYC(b->end);
            if (x >= 4 && CYC(b->start) < first_new_after) first_new_after = CYC(b->start);
        } else {
            sm2[x] = b->sm;
            start2[x] = CYC(b->start);
        }
    }
    for (int x = 0; x < 8; x++) {
        if (x < 4 && sm1[x] == 2) {
            /* preempted: saved from 2,000 + 100, resumed on SM 3 */
            if (nrec[x] != 2 || end1[x] < 2100 || end1[x] > 2205 || sm2[x] != 3 ||
                start2[x] < end1[x])
                fail_msg("%s: A block %d on SM 2: %d records, the first ending at cycle %.0f, the "
                         "second on SM %d from %.0f", what, x, nrec[x], end1[x], nrec[x] == 2 ? sm2[x] : -1,
                         nrec[x] == 2 ? start2[x] : -1.0);
            if (end1[x] < saved) saved = end1[x];
            if (end1[x] > saved2) saved2 = end1[x];
            if (start2[x] > last_resume) last_resume = start2[x];
        } else {
            assert_int_equal(nrec[x], 1);
            assert_int_equal(sm1[x], 3);
        }
    }
    /* the first saved by 2,104 but after 2,100 (instructions issued just
     * before 2,000 complete first), the second 100 cycles after it */
    assert_true(saved > 2100.5 && saved <= 2104.5);
    assert_true(fabs(saved2 - saved - 100) < 1);
    assert_true(last_resume <= first_new_after);   /* resumed before any new block */
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *b = &t.blocks.v[i];
        if (b->kernel == qk && b->sm == 2) assert_true(CYC(b->start) >= saved - 1);
        assert_true(b->sm != 3 || b->kernel == ak);
    }
    /* every instruction of A ran once: 8 blocks x 32 warps x 8 x 60 */
    assert_int_equal(t.kernels.v[ak].instructions, 8 * 32 * 8 * 60);
#undef CYC
    trace_free(&t);
    scn_free(sc);
}

/* The same with Q scoreboarded ("dep": 1 reads the instruction before, as
 * without a scoreboard: the same run) and malloc's memory filled with a
 * byte (glibc's M_PERTURB; ASan's allocator ignores it): A's warps have no
 * scoreboard, and the engine's record of a warp's last result, kept for
 * every place once one kernel has a scoreboard, must not be read as found
 * (until 2026-12-03 a preempted block of A waited on whatever the memory
 * held, and its SM never changed hands). */
static void test_spart_climb_preempt(void **state) {
    (void)state;
    static const char *const text = PREEMPT_TEXT("");
    check_climb_preempt(text, "spart-climb preempt");
    static const char *const dep = PREEMPT_TEXT(",\"dep\":1");
#ifdef M_PERTURB
    mallopt(M_PERTURB, 0xa5);
#endif
    check_climb_preempt(dep, "spart-climb preempt, Q scoreboarded, malloc's memory filled");
#ifdef M_PERTURB
    mallopt(M_PERTURB, 0);
#endif
}

/* ---- random configurations ------------------------------------------------------------
 * Whatever the quotas, every kernel runs to its end and issues exactly its
 * instructions (throttling never loses or stalls work for good), and the
 * records follow their definitions. Short epochs exercise the boundaries. */
static uint64_t rnd(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void test_random_configs(void **state) {
    (void)state;
    static const char *const pols[] = { "quota-naive", "quota-history", "quota-elastic",
                                        "quota-rollover" };
    sim_ipc_cache cache;
    sim_ipc_cache_init(&cache);
    for (uint64_t seed = 1; seed <= 90; seed++) {
        uint64_t x = seed * 0x9E3779B97F4A7C15ULL;
        sim_instr body[3][3];
        sim_dep dep[3][3];
        sim_program prog[3];
        tb b;
        tb_init(&b, "isca17-gpgpusim");
        b.cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
        b.cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, pols[rnd(&x) % 4]);
        b.cfg.policy.warp_issue_limit = -1;
        b.cfg.policy.quota_epoch = 20 + (int64_t)(rnd(&x) % 400);
        b.cfg.device.sms = 1 + (int32_t)(rnd(&x) % 3);
        b.cfg.device.schedulers_per_sm = 1 + (int32_t)(rnd(&x) % 4);
        b.cfg.ipc_cache = seed % 2 ? &cache : NULL;
        int nk = 2 + (int)(rnd(&x) % 2);
        int64_t expect[3];
        for (int k = 0; k < nk; k++) {
            int n = 1 + (int)(rnd(&x) % 3);
            int64_t len = 0;
            for (int j = 0; j < n; j++) {
                body[k][j].iclass = (int32_t)(rnd(&x) % SIM_NICLASS);
                /* a barrier is not modelled with the front end: the
                 * configurations with one run without it */
                if (body[k][j].iclass == SIM_ICLASS_BARRIER) {
                    b.cfg.device.fetch_warps = 0;
                    b.cfg.device.ibuffer = 0;
                }
                body[k][j].count = 1 + (int32_t)(rnd(&x) % 4);
                len += body[k][j].count;
            }
            prog[k] = (sim_program){ .body = body[k], .nbody = (size_t)n,
                                     .repeat = 1 + (int64_t)(rnd(&x) % 6) };
            /* every third configuration's kernels have a scoreboard: each
             * instruction reads none, or one or two results up to 4 back
             * (their charges then wait for completions in any order) */
            if (seed % 3 == 0) {
                for (int j = 0; j < n; j++) {
                    dep[k][j] = (sim_dep){ .n = (int32_t)(rnd(&x) % 3) };
                    for (int32_t d = 0; d < dep[k][j].n; d++)
                        dep[k][j].on[d] = 1 + (int32_t)(rnd(&x) % 4);
                }
                prog[k].dep = dep[k];
            }
            int32_t s = tb_stream(&b, k == 0 ? "S0" : k == 1 ? "S1" : "S2", "P0", SIM_PRIO_NONE);
            sim_op *o = tb_op(&b, SIM_OP_KERNEL, k == 0 ? "K0" : k == 1 ? "K1" : "K2", s,
                              (int64_t)(rnd(&x) % 3000));
            o->blocks = 1 + (int64_t)(rnd(&x) % 6);
            o->threads = 32 * (1 + (int32_t)(rnd(&x) % 8)) - (int32_t)(rnd(&x) % 2) * 7;
            o->program = &prog[k];
            if (k == 0 || rnd(&x) % 2) o->qos_goal = 0.05 * (double)(1 + rnd(&x) % 20);
            int64_t warps = (o->threads + 31) / 32;
            expect[k] = o->blocks * warps * len * prog[k].repeat;
        }
        tb_config(&b);
        trace t;
        trace_init(&t);
        char err[256];
        if (sim_run(&b.cfg, &t, err, sizeof err) != 0) fail_msg("seed %llu: %s",
                                                                (unsigned long long)seed, err);
        /* the looks the run skips change nothing (every_quota_look) */
        b.cfg.every_quota_look = true;
        same_with_every_look(&b.cfg, &t, "random configuration");
        for (int k = 0; k < nk; k++) {
            const trace_kernel *K = &t.kernels.v[k];
            assert_int_equal(K->instructions, expect[k]);
            assert_true(K->end != TRACE_NONE);
            assert_true(K->ipc_isolated > 0);
            assert_true(K->qos_goal == b.ops[k].qos_goal);
            assert_true(K->qos_met == (K->qos_goal > 0 && K->ipc >= K->qos_goal * K->ipc_isolated));
            if (K->qos_goal > 0) assert_true(K->ipc_shared == 0);
        }
        trace_free(&t);
    }
    sim_ipc_cache_free(&cache);
}

/* ---- bad goals -------------------------------------------------------------------- */

static void expect_error(tb *b, const char *msg) {
    trace t;
    trace_init(&t);
    char err[512] = "";
    assert_int_equal(sim_run(&b->cfg, &t, err, sizeof err), -1);
    assert_string_equal(err, msg);
    trace_free(&t);
}

static void test_goal_errors(void **state) {
    (void)state;
    static const sim_program pm = { .body = mem_body, .nbody = 2, .repeat = 2 };
    static const sim_program pa = { .body = alu_body, .nbody = 1, .repeat = 2 };
    tb b;
    build_three(&b, &pm, &pa, "quota-naive");
    b.ops[1].qos_goal = 1.5;
    expect_error(&b, "ops[1].qos_goal: 1.5 is outside (0, 1] (a fraction of the IPC the kernel "
                     "reaches alone)");
    b.ops[1].qos_goal = -0.2;
    expect_error(&b, "ops[1].qos_goal: -0.2 is outside (0, 1] (a fraction of the IPC the kernel "
                     "reaches alone)");
    b.ops[1].qos_goal = 0.6;
    b.cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, "gto");
    expect_error(&b, "ops[0].qos_goal: policy.warp has no quotas; QoS goals need a quota warp "
                     "policy (policy.warp quota-naive, quota-history, quota-elastic, "
                     "quota-rollover or quota-rollover-time) or placement spart-climb");
    /* §3.4.2's adjustment belongs to the quota schemes */
    b.ops[0].qos_goal = b.ops[1].qos_goal = 0;
    b.cfg.policy.has_quota_history = true;
    expect_error(&b, "policy.quota_history: ISCA'17 §3.4.2's history-based adjustment is the "
                     "quota schemes' (execution \"warp\", policy.warp quota-*)");
    /* a goal on a block_time kernel */
    tb f;
    tb_init(&f, "isca17-gpgpusim");
    int32_t s = tb_stream(&f, "S1", "P0", SIM_PRIO_NONE);
    sim_op *k = tb_kernel(&f, "K", s, 0, 4, 256, 0, 1000);
    k->qos_goal = 0.5;
    tb_config(&f);
    expect_error(&f, "ops[0].qos_goal: kernel K runs for a fixed block_time; a QoS goal needs a "
                     "program (execution \"warp\")");
}

static void test_scenario_goal_errors(void **state) {
    (void)state;
    static const char *const bad[][2] = {
        {"\"qos_goal\": 0", "ops[0].qos_goal: 0 is outside (0, 1] (a fraction of the IPC the "
                            "kernel reaches alone on the device)"},
        {"\"qos_goal\": \"80%\"", "ops[0].qos_goal: must be a number in (0, 1], not a string"},
    };
    char text[2048], err[512];
    for (size_t i = 0; i < 2; i++) {
        snprintf(text, sizeof text,
                 "{\"schema\":\"schedlab-scenario/1\",\"name\":\"x\",\"device\":\"isca17-gpgpusim\","
                 "\"policy\":{\"warp\":\"quota-naive\"},\"ops\":[{\"kernel\":\"K\",\"blocks\":1,"
                 "\"threads\":32,%s,\"program\":{\"body\":[{\"op\":\"alu\"}]}}]}",
                 bad[i][0]);
        scn_scenario *s = NULL;
        assert_int_equal(scn_parse(text, strlen(text), "x.json", &s, err, sizeof err), -1);
        assert_non_null(strstr(err, bad[i][1]));
    }
    /* a goal with a non-quota policy, in a variant */
    snprintf(text, sizeof text,
             "{\"schema\":\"schedlab-scenario/1\",\"name\":\"x\",\"device\":\"isca17-gpgpusim\","
             "\"policy\":{\"warp\":\"quota-naive\"},\"ops\":[{\"kernel\":\"K\",\"blocks\":1,"
             "\"threads\":32,\"qos_goal\":0.5,\"program\":{\"body\":[{\"op\":\"alu\"}]}}],"
             "\"variants\":[{\"name\":\"g\",\"policy\":{\"warp\":\"gto\"}}]}");
    scn_scenario *s = NULL;
    assert_int_equal(scn_parse(text, strlen(text), "x.json", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "ops[0].qos_goal: needs a quota warp policy (policy.warp "
                                "quota-naive, quota-history, quota-elastic, quota-rollover or "
                                "quota-rollover-time), "
                                "not \"gto\", or placement spart-climb"));
    /* policy.quota_history is true or false */
    snprintf(text, sizeof text,
             "{\"schema\":\"schedlab-scenario/1\",\"name\":\"x\",\"device\":\"isca17-gpgpusim\","
             "\"policy\":{\"warp\":\"quota-rollover\",\"quota_history\":\"off\"},\"ops\":[{"
             "\"kernel\":\"K\",\"blocks\":1,\"threads\":32,\"qos_goal\":0.5,\"program\":{"
             "\"body\":[{\"op\":\"alu\"}]}}]}");
    assert_int_equal(scn_parse(text, strlen(text), "x.json", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "policy.quota_history: must be true or false, not a string"));
    /* a goal on a block_time kernel */
    snprintf(text, sizeof text,
             "{\"schema\":\"schedlab-scenario/1\",\"name\":\"x\",\"device\":\"isca17-gpgpusim\","
             "\"policy\":{\"warp\":\"quota-naive\"},\"ops\":[{\"kernel\":\"K\",\"blocks\":1,"
             "\"threads\":32,\"qos_goal\":0.5,\"block_time\":\"1us\"}]}");
    assert_int_equal(scn_parse(text, strlen(text), "x.json", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "ops[0].qos_goal: kernel \"K\" runs for a fixed block_time"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_naive_fig4a),
        cmocka_unit_test(test_history_alpha),
        cmocka_unit_test(test_rollover_carries),
        cmocka_unit_test(test_elastic_epoch),
        cmocka_unit_test(test_rollover_time),
        cmocka_unit_test(test_rollover_time_per_sm),
        cmocka_unit_test(test_preset_56),
        cmocka_unit_test(test_leave_refills),
        cmocka_unit_test(test_naive_refill_waits_for_every_kernel),
        cmocka_unit_test(test_split_over_subcores),
        cmocka_unit_test(test_pair_rollover_meets_naive_misses),
        cmocka_unit_test(test_quota_history_setting),
        cmocka_unit_test(test_isolated_cached_per_shape),
        cmocka_unit_test(test_isolated_key_fields),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_random_configs),
        cmocka_unit_test(test_skipped_looks),
        cmocka_unit_test(test_reexecuted_pair_records),
        cmocka_unit_test(test_equal_share_trio),
        cmocka_unit_test(test_equal_share_waiting_head),
        cmocka_unit_test(test_equal_share_needs_qos),
        cmocka_unit_test(test_isolated_key_is_the_shape),
        cmocka_unit_test(test_charge_at_completion_scoreboard),
        cmocka_unit_test(test_spart_climb),
        cmocka_unit_test(test_spart_climb_preempt),
        cmocka_unit_test(test_spart_climb_take_last),
        cmocka_unit_test(test_spart_climb_take_only),
        cmocka_unit_test(test_spart_climb_trial),
        cmocka_unit_test(test_trace_json_both_ways),
        cmocka_unit_test(test_goal_errors),
        cmocka_unit_test(test_scenario_goal_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
