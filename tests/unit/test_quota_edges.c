/* test_quota_edges.c -- the QoS manager of ISCA'17's quota schemes
 * (simcore/quota.c) where kernels come and go: an SM a kernel has left, a
 * kernel that joins an SM within an epoch or joins the GPU between two
 * boundaries, a kernel re-executed, the last QoS kernel's end. Each case
 * is worked out by hand below from §3.4-§3.5 (test_quota.c has the
 * schemes on the paper's own Fig. 4); every warp instruction is 32 thread
 * instructions, T_epoch 50 cycles, a QoS kernel's IPC_goal 2 (eq. 1:
 * Quota = 2 x 50 = 100) unless said. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../simcore/quota.h"

extern const warp_policy warp_quota_naive, warp_quota_history, warp_quota_elastic,
    warp_quota_rollover, warp_quota_rollover_time;

/* n warp instructions of kernel k complete on SM s at cycle c */
static void charge(quota_state *q, int32_t s, int32_t k, int n, int64_t c) {
    for (int i = 0; i < n; i++) quota_charge(q, s, k, 32, c);
}

/* nk kernels on nsms SMs under `wp`, T_epoch 50; kernel 0 a QoS kernel
 * with IPC_goal 2, the others non-QoS */
static void setup(quota_state *q, const warp_policy *wp, int32_t nk, int32_t nsms) {
    assert_int_equal(quota_init(q, wp->quota, nk, nsms, 50), 0);
    quota_kernel_set(q, 0, 2.0, 32);
    for (int32_t k = 1; k < nk; k++) quota_kernel_set(q, k, 0, 32);
}

/* setup's two kernels, one warp each on the one SM from cycle 0, and the
 * manager's first boundary there: K0's counter 100, K1's 50 (§3.5's
 * first quota, 1 x 50) */
static void pair_one_sm(quota_state *q, const warp_policy *wp) {
    setup(q, wp, 2, 1);
    quota_join(q, 0, 0, 1, 0);
    quota_join(q, 0, 1, 1, 0);
    quota_epoch(q, 0);
}

/* §3.5 throttles the non-QoS kernels to protect the QoS kernels' goals,
 * so with no QoS kernel running nothing is throttled (quota.c: "nothing
 * to protect while no QoS kernel runs"). Naive, one SM: the QoS
 * kernel K0 ends at cycle 10; at the boundary at 50 neither K0 (ended) nor
 * the non-QoS K1 is throttled, and K1 may issue. */
static void test_no_qos_kernel_left(void **state) {
    (void)state;
    quota_state q;
    pair_one_sm(&q, &warp_quota_naive);
    assert_int_equal(quota_counter(&q, 0, 1), 50);     /* throttled while K0 runs */
    quota_leave(&q, 0, 0, 10);
    quota_done(&q, 0, 10);
    quota_epoch(&q, 50);
    assert_int_equal(quota_counter(&q, 0, 0), QUOTA_FREE);
    assert_int_equal(quota_counter(&q, 0, 1), QUOTA_FREE);
    assert_false(quota_held(&q, 0));
    quota_free(&q);
}

/* An SM the QoS kernel has left carries nothing into the next epoch, and
 * keeps nothing for §3.5's product. Rollover, two SMs: K0 one warp on
 * each (50 a counter, split by warps, §3.4.1), the non-QoS K1 one warp on
 * SM 0 (§3.5's first quota, 1 x 50).
 *   - K0 uses 32 on SM 0 (18 left) and its warp leaves SM 1 with its 50
 *     unused; K1 issues 10 instructions (320) on SM 0;
 *   - boundary at 50: K0's IPC_history = IPC_epoch = 32 / 50 = 0.64,
 *     alpha = 2 / 0.64 = 3.125, Quota = 3.125 x 2 x 50 = 312.5, all on SM
 *     0 (its one warp): Rollover adds the 18 left there, 330. SM 1 holds
 *     none of K0's warps: 0, its 50 neither renewed nor kept;
 *   - K1 (§3.5): IPC_epoch 320 / 50 = 6.4, times K0's 0.64 / (3.125 x 2
 *     + 18 / 50), the 18 being what Rollover keeps of K0's counters (SM
 *     1's 50 is not kept): 6.4 x 0.096823 x 50 = 30.98 -> 30;
 *   - K0's warp joins SM 1 again at 60: it brings its share of the
 *     312.5 split over the one warp K0 had at the boundary, 312, to a
 *     counter at 0; the SM's sleeping sub-cores are told (raised). */
static void test_left_sm_keeps_nothing(void **state) {
    (void)state;
    quota_state q;
    setup(&q, &warp_quota_rollover, 2, 2);
    quota_join(&q, 0, 0, 1, 0);
    quota_join(&q, 1, 0, 1, 0);
    quota_join(&q, 0, 1, 1, 0);
    quota_epoch(&q, 0);
    assert_int_equal(quota_counter(&q, 0, 0), 50);
    assert_int_equal(quota_counter(&q, 1, 0), 50);
    assert_int_equal(quota_counter(&q, 0, 1), 50);
    charge(&q, 0, 0, 1, 1);
    quota_leave(&q, 1, 0, 2);
    charge(&q, 0, 1, 10, 3);
    quota_epoch(&q, 50);
    assert_true(q.k[0].alpha == 3.125);
    assert_int_equal(quota_counter(&q, 0, 0), 312 + 18);
    assert_int_equal(quota_alloc(&q, 1, 0), 0);
    assert_int_equal(quota_counter(&q, 1, 0), 0);
    assert_int_equal(quota_alloc(&q, 0, 1), 30);
    memset(q.raised, 0, (size_t)q.nsms);
    quota_join(&q, 1, 0, 1, 60);
    assert_int_equal(quota_counter(&q, 1, 0), 312);
    assert_int_equal(q.raised[1], 1);
    assert_int_equal(q.raised[0], 0);
    quota_free(&q);
}

/* Warps that join an SM within an epoch (§3.4.1's split is "proportionally
 * to the TBs hosted by each SM", at the boundary) bring a share only to
 * an SM that had none of the kernel's warps at the boundary.
 *   - Naive, one SM: K0's warp leaves at 5 with its 100 unused and another
 *     joins at 8: the SM's share of this epoch was given at the boundary
 *     and its counter still holds it, 100 (not 200);
 *   - Naive, two SMs, K0 alone, one warp on each (50 each): the warp on
 *     SM 1 leaves at 5; at the boundary at 50 SM 1 is renewed to 0 and SM 0
 *     gets the whole 100. At 55 an instruction of the warp that left
 *     completes (charged at completion, §3.4.1, as a scoreboarded warp's
 *     last ones are: exec_warp.c chq): SM 1's counter -32. A warp joining
 *     SM 1 at 60 starts from its share, 100 (the split over the one warp K0
 *     had at the boundary): an SM the kernel had left carries no counter
 *     into an epoch, as quota_epoch renews it to 0 (not 68). */
static void test_join_within_epoch(void **state) {
    (void)state;
    quota_state q;
    pair_one_sm(&q, &warp_quota_naive);
    quota_leave(&q, 0, 0, 5);
    quota_join(&q, 0, 0, 1, 8);
    assert_int_equal(quota_counter(&q, 0, 0), 100);
    quota_free(&q);

    setup(&q, &warp_quota_naive, 1, 2);
    quota_join(&q, 0, 0, 1, 0);
    quota_join(&q, 1, 0, 1, 0);
    quota_epoch(&q, 0);
    quota_leave(&q, 1, 0, 5);
    quota_epoch(&q, 50);
    assert_int_equal(quota_counter(&q, 0, 0), 100);
    assert_int_equal(quota_counter(&q, 1, 0), 0);
    charge(&q, 1, 0, 1, 55);
    assert_int_equal(quota_counter(&q, 1, 0), -32);
    quota_join(&q, 1, 0, 1, 60);
    assert_int_equal(quota_counter(&q, 1, 0), 100);
    quota_free(&q);
}

/* A second warp joining an SM that already holds the kernel's warps brings
 * nothing and refills nothing. Naive, one SM: K0 (QoS) and K1 (non-QoS),
 * one warp each. K1 issues 4 (50 -> -78: no refill while K0 has quota);
 * K0's warp leaves at 5 with its 100 unused (it has more blocks: it has
 * not ended): the kernels left on the SM are all out, and K1 gets its 50
 * (§3.4.1's refill; test_quota.c test_leave_refills): -28. At the
 * boundary at 50 K0 has no warp on the GPU: its quota splits over none, a
 * share of 0 (quota.c share). K0's IPC_epoch 0 makes §3.5's product 0, so
 * K1's quota is 0 and its share the floor, 1: -28 + 1 = -27, and as every
 * kernel on the SM is still out, the refill at once: -26. K0's warp joins
 * at 60 with its share of 0: every kernel on the SM is out, K1 gets its 1:
 * -25. A second warp of K0 at 61: still -25. */
static void test_second_warp_joins(void **state) {
    (void)state;
    quota_state q;
    pair_one_sm(&q, &warp_quota_naive);
    charge(&q, 0, 1, 4, 1);
    assert_int_equal(quota_counter(&q, 0, 1), -78);
    quota_leave(&q, 0, 0, 5);
    assert_int_equal(quota_counter(&q, 0, 1), -28);
    quota_epoch(&q, 50);
    assert_int_equal(quota_alloc(&q, 0, 0), 0);
    assert_int_equal(quota_alloc(&q, 0, 1), 1);
    assert_int_equal(quota_counter(&q, 0, 1), -26);
    quota_join(&q, 0, 0, 1, 60);
    assert_int_equal(quota_counter(&q, 0, 0), 0);
    assert_int_equal(quota_counter(&q, 0, 1), -25);
    quota_join(&q, 0, 0, 1, 61);
    assert_int_equal(quota_counter(&q, 0, 0), 0);
    assert_int_equal(quota_counter(&q, 0, 1), -25);
    quota_free(&q);
}

/* §3.4.1's refill comes when every kernel on the SM has used its quota; a
 * kernel leaving with its quota used changes nothing. Naive, one SM: K1
 * issues 6 (50 -> -142) while K0 has quota; K0 issues 4 (100 -> -28):
 * every kernel is out and K1 gets its 50, -92 (its debt is more than the
 * refill). K0's warp leaves at 3 with -28: K1 stays at -92. */
static void test_leave_used(void **state) {
    (void)state;
    quota_state q;
    pair_one_sm(&q, &warp_quota_naive);
    charge(&q, 0, 1, 6, 1);
    charge(&q, 0, 0, 4, 2);
    assert_int_equal(quota_counter(&q, 0, 0), -28);
    assert_int_equal(quota_counter(&q, 0, 1), -92);
    quota_leave(&q, 0, 0, 3);
    assert_int_equal(quota_counter(&q, 0, 1), -92);
    quota_free(&q);
}

/* A re-executed kernel is the same kernel (§4.1; quota_join): its history
 * goes on. History, one SM, K0 alone: 3 instructions (96) by cycle 40,
 * when it ends; at the boundary at 50 it is not running (not throttled);
 * it runs again from 60, which starts an epoch there: IPC_history = 96 /
 * (60 - 0) = 1.6 below its goal 2, alpha = 2 / 1.6 = 1.25, Quota = 1.25 x
 * 2 x 50 = 125 (a history begun at 60 would have none yet: 100). */
static void test_reexecution_keeps_history(void **state) {
    (void)state;
    quota_state q;
    setup(&q, &warp_quota_history, 1, 1);
    quota_join(&q, 0, 0, 1, 0);
    quota_epoch(&q, 0);
    charge(&q, 0, 0, 3, 10);
    quota_leave(&q, 0, 0, 40);
    quota_done(&q, 0, 40);
    quota_epoch(&q, 50);
    assert_int_equal(quota_counter(&q, 0, 0), QUOTA_FREE);
    quota_join(&q, 0, 0, 1, 60);
    assert_int_equal(q.next_boundary, 60);
    quota_epoch(&q, 60);
    assert_true(q.k[0].alpha == 1.25);
    assert_int_equal(quota_counter(&q, 0, 0), 125);
    quota_free(&q);
}

/* The QoS window (quota.h: first QoS start, last QoS end), over which the
 * non-QoS kernels' shared IPC is measured: two QoS kernels end at 100
 * and 200, the window ends at 200; a non-QoS kernel's end does not move
 * it. */
static void test_window_last_qos_end(void **state) {
    (void)state;
    quota_state q;
    setup(&q, &warp_quota_naive, 3, 1);
    quota_kernel_set(&q, 1, 1.0, 32);
    quota_join(&q, 0, 0, 1, 0);
    quota_join(&q, 0, 2, 1, 0);
    quota_join(&q, 0, 1, 1, 10);
    assert_int_equal(q.win_start, 0);
    quota_done(&q, 0, 100);
    assert_int_equal(q.win_end, -1);
    quota_done(&q, 1, 200);
    assert_int_equal(q.win_end, 200);
    quota_done(&q, 2, 300);
    assert_int_equal(q.win_end, 200);
    quota_free(&q);
}

/* Elastic Epoch (§3.4.3) on an SM a kernel has left: the SM's epochs are
 * those of the kernels on it. One SM: K0 (QoS, 100), K1 and K2 (non-QoS,
 * 50 each). K2 issues 1 (18 left) and its warp leaves. K0 issues 4 (-28),
 * K1 2 (-14): the kernels on the SM have used their quota, a new epoch
 * starts at once, adding the quotas: K0 72, K1 36; K2, not on the SM,
 * keeps its 18 (not 68). That epoch times out at 4 + 1 + 50 = 55: K0
 * and K1 renewed to their quotas (leftovers discarded), K2 to 0 (as an SM
 * without the kernel's warps is at a fixed boundary, not 50). */
static void test_elastic_left_sm(void **state) {
    (void)state;
    quota_state q;
    setup(&q, &warp_quota_elastic, 3, 1);
    for (int32_t k = 0; k < 3; k++) quota_join(&q, 0, k, 1, 0);
    quota_epoch(&q, 0);
    charge(&q, 0, 2, 1, 1);
    quota_leave(&q, 0, 2, 2);
    charge(&q, 0, 0, 4, 3);
    charge(&q, 0, 1, 2, 4);
    assert_int_equal(quota_counter(&q, 0, 0), 72);
    assert_int_equal(quota_counter(&q, 0, 1), 36);
    assert_int_equal(quota_counter(&q, 0, 2), 18);
    assert_int_equal(q.ends[0], 55);
    quota_begin(&q, 0, 55);
    assert_int_equal(quota_counter(&q, 0, 0), 100);
    assert_int_equal(quota_counter(&q, 0, 1), 50);
    assert_int_equal(quota_counter(&q, 0, 2), 0);
    assert_int_equal(q.ends[0], 105);
    quota_free(&q);
}

/* Under Elastic Epoch an SM's epoch ends when its kernels *consume* their
 * quota (§3.4.3), by instructions; a kernel that joins it with a share of
 * nothing (it had no warp on the GPU at the boundary: quota.c share) has
 * consumed nothing, and the SM's epoch goes on to its time-out. Two SMs,
 * K0 alone: its warp on SM 0 leaves at 5 (more blocks to come); at the
 * boundary at 50 its quota splits over no warp; one joins SM 1 at 60 with 0:
 * SM 1's epoch still ends at 50 (its first, from the boundary at 0), the
 * time-out at its next look (60) renews it to 110. And quota_wake, "the
 * first cycle after c at which SM s can get quota", is after c even where
 * that end has passed. */
static void test_elastic_join_nothing(void **state) {
    (void)state;
    quota_state q;
    setup(&q, &warp_quota_elastic, 1, 2);
    quota_join(&q, 0, 0, 1, 0);
    quota_epoch(&q, 0);
    assert_int_equal(q.ends[1], 50);
    quota_leave(&q, 0, 0, 5);
    quota_epoch(&q, 50);
    assert_int_equal(quota_alloc(&q, 1, 0), 0);
    quota_join(&q, 1, 0, 1, 60);
    assert_int_equal(quota_counter(&q, 1, 0), 0);
    assert_int_equal(q.ends[1], 50);
    assert_true(quota_wake(&q, 1, 60) > 60);
    quota_begin(&q, 1, 60);
    assert_int_equal(q.ends[1], 110);
    quota_free(&q);
}

/* IPC_epoch (§3.5) is over the part of the epoch a kernel ran. In a run
 * the manager's boundary comes at the joining kernel's first cycle
 * (quota_join sets it); where no SM runs a cycle until later, the
 * boundary runs then, and the joiner's rate is still its own. Naive, one
 * SM: K0 (QoS) from 0, 2 instructions; K1 (non-QoS) joins at 30 and issues
 * 2 (its counter free: it was not running at the boundary at 0); the
 * boundary runs at 50. K0: IPC_epoch 64 / 50 = 1.28, the product 1.28 /
 * 2 = 0.64; K1: IPC_epoch 64 / (50 - 30) = 3.2 (not 64 / 50),
 * Quota = 3.2 x 0.64 x 50 = 102.4 -> 102. */
static void test_ipc_over_part_of_epoch(void **state) {
    (void)state;
    quota_state q;
    setup(&q, &warp_quota_naive, 2, 1);
    quota_join(&q, 0, 0, 1, 0);
    quota_epoch(&q, 0);
    charge(&q, 0, 0, 2, 10);
    quota_join(&q, 0, 1, 1, 30);
    assert_int_equal(q.next_boundary, 30);
    assert_int_equal(quota_counter(&q, 0, 1), QUOTA_FREE);
    charge(&q, 0, 1, 2, 40);
    quota_epoch(&q, 50);
    assert_true(fabs(q.k[1].ipc_epoch - 3.2) < 1e-12);
    assert_int_equal(quota_alloc(&q, 0, 1), 102);
    quota_free(&q);
}

/* Rollover-Time's non-QoS kernel carries its debt too (§3.4.1: "C_k is
 * decremented by the number of instructions that are actually executed",
 * quota.h quota_debt): an instruction issued before a boundary completes
 * after it. One SM: K0 (QoS) uses its 100 by cycle 2 (-28), so K1 gets
 * its quota (the refill, §4.5) and issues; at the boundary at 50 K1's
 * counter goes back to 0 (blocked behind K0's new 72), and an
 * instruction K1 had in flight completes at 51: -32, no refill while K0
 * has quota. At the boundary at 100 K1 keeps the -32 (not 0), and when K0
 * has used its quota K1's refill is its new quota less that debt. */
static void test_rollover_time_debt(void **state) {
    (void)state;
    quota_state q;
    pair_one_sm(&q, &warp_quota_rollover_time);
    assert_int_equal(quota_counter(&q, 0, 1), 0);
    charge(&q, 0, 0, 4, 2);
    assert_int_equal(quota_counter(&q, 0, 0), -28);
    assert_int_equal(quota_counter(&q, 0, 1), 50);
    charge(&q, 0, 1, 1, 3);
    quota_epoch(&q, 50);
    assert_int_equal(quota_counter(&q, 0, 0), 72);
    assert_int_equal(quota_counter(&q, 0, 1), 0);
    charge(&q, 0, 1, 1, 51);
    assert_int_equal(quota_counter(&q, 0, 1), -32);
    quota_epoch(&q, 100);
    assert_int_equal(quota_counter(&q, 0, 1), -32);
    int64_t k0 = quota_counter(&q, 0, 0), k1 = quota_alloc(&q, 0, 1);
    assert_true(k0 > 72);                  /* 72 rolled over, a new quota added */
    assert_true(k1 > 0);
    charge(&q, 0, 0, (int)(k0 / 32) + 1, 101);
    assert_int_equal(quota_counter(&q, 0, 1), k1 - 32);
    quota_free(&q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_qos_kernel_left),
        cmocka_unit_test(test_left_sm_keeps_nothing),
        cmocka_unit_test(test_join_within_epoch),
        cmocka_unit_test(test_second_warp_joins),
        cmocka_unit_test(test_leave_used),
        cmocka_unit_test(test_reexecution_keeps_history),
        cmocka_unit_test(test_window_last_qos_end),
        cmocka_unit_test(test_elastic_left_sm),
        cmocka_unit_test(test_elastic_join_nothing),
        cmocka_unit_test(test_ipc_over_part_of_epoch),
        cmocka_unit_test(test_rollover_time_debt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
