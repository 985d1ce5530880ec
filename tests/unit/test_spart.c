/* test_spart.c -- spatial partitioning of the SMs (placement "spart",
 * simcore/spart.c; ISCA'17 §2.3, §4.1's Spart) and its partition search
 * (qos_hill_climb, server/app/qos_sweep.c):
 *
 *   - blocks land only on their stream's SMs, each to the SM of its
 *     partition with the most room, ties to the lowest rank (exact SMs and
 *     start times, worked out by hand below);
 *   - a stream without a partition places exactly as most-room;
 *   - a partition off the device is refused with a message naming it;
 *   - the hill-climbing search finds the exact SM count on a hand-checked
 *     objective, and the evaluations it makes are exactly those the
 *     paper's procedure needs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../server/app/qos_sweep.h"
#include "../../simcore/sim.h"
#include "test_sim_util.h"

/* The ISCA'17 device cut down to 4 SMs (2048 threads each, ascending SM
 * order), under spart. */
static void spart_tb(tb *b) {
    tb_init(b, "isca17-gpgpusim");
    b->cfg.device.sms = 4;
    b->cfg.policy.placement = sim_placement_find("spart");
    assert_true(b->cfg.policy.placement >= 0);
}

/* K1 (stream S1, SMs of ranks 0..1) has 6 blocks of 1024 threads: 2 fit per
 * SM, so 4 start at 0 alternating SM 0, 1 (most room, ties to the lowest
 * rank: 0, 1, 0, 1) and the last 2 wait for K1's own blocks (not for SMs
 * 2 and 3, which are free). K2 (S2, ranks 2..3) has 3 blocks of 512
 * threads: 2, 3, 2. */
static void test_blocks_on_their_partition(void **state) {
    (void)state;
    tb b;
    spart_tb(&b);
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P1", SIM_PRIO_NONE);
    b.streams[s1].sm_first = 0;
    b.streams[s1].sm_count = 2;
    b.streams[s2].sm_first = 2;
    b.streams[s2].sm_count = 2;
    tb_kernel(&b, "K1", s1, 0, 6, 1024, 0, 10 * MS);
    tb_kernel(&b, "K2", s2, 0, 3, 512, 0, 10 * MS);
    trace t;
    tb_run(&b, &t);
    int32_t k1 = kid(&t, "K1"), k2 = kid(&t, "K2");
    static const int32_t k1_sm[6] = {0, 1, 0, 1, 0, 1};
    static const int64_t k1_start[6] = {0, 0, 0, 0, 10 * MS, 10 * MS};
    static const int32_t k2_sm[3] = {2, 3, 2};
    size_t n1 = 0, n2 = 0;
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *bl = &t.blocks.v[i];
        if (bl->kernel == k1) {
            assert_int_equal(bl->sm, k1_sm[bl->index]);
            assert_int_equal(bl->start, k1_start[bl->index]);
            n1++;
        } else {
            assert_int_equal(bl->kernel, k2);
            assert_int_equal(bl->sm, k2_sm[bl->index]);
            assert_int_equal(bl->start, 0);
            n2++;
        }
    }
    assert_int_equal(n1, 6);
    assert_int_equal(n2, 3);
    assert_int_equal(t.kernels.v[k1].end, 20 * MS);
    assert_int_equal(t.kernels.v[k2].end, 10 * MS);
    trace_free(&t);
}

/* Without partitions spart is most-room: the same blocks on the same SMs. */
static void test_no_partition_is_most_room(void **state) {
    (void)state;
    trace t[2];
    for (int run = 0; run < 2; run++) {
        tb b;
        spart_tb(&b);
        if (run) b.cfg.policy.placement = sim_placement_find("most-room");
        int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
        int32_t s2 = tb_stream(&b, "S2", "P1", SIM_PRIO_NONE);
        tb_kernel(&b, "K1", s1, 0, 7, 768, 0, 3 * MS);
        tb_kernel(&b, "K2", s2, MS, 9, 256, 16 * KIB, 2 * MS);
        tb_run(&b, &t[run]);
    }
    /* so a replay, which has no partitions, makes no spart variant */
    assert_true(sim_placement_partitioned(sim_placement_find("spart")));
    assert_false(sim_placement_partitioned(sim_placement_find("most-room")));
    assert_false(sim_placement_partitioned(sim_placement_find("round-robin")));
    assert_int_equal(t[0].blocks.n, t[1].blocks.n);
    for (size_t i = 0; i < t[0].blocks.n; i++) {
        assert_int_equal(t[0].blocks.v[i].sm, t[1].blocks.v[i].sm);
        assert_int_equal(t[0].blocks.v[i].start, t[1].blocks.v[i].start);
        assert_int_equal(t[0].blocks.v[i].kernel, t[1].blocks.v[i].kernel);
    }
    trace_free(&t[0]);
    trace_free(&t[1]);
}

static void test_partition_off_device(void **state) {
    (void)state;
    tb b;
    spart_tb(&b);
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    b.streams[s1].sm_first = 3;
    b.streams[s1].sm_count = 2;
    tb_kernel(&b, "K1", s1, 0, 1, 32, 0, MS);
    trace t;
    trace_init(&t);
    char err[256];
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "streams[0].sms: ranks 3..4 of sm_order are not on the device's "
                             "4 SMs");
    /* a first rank or a count below 0 (the scenario reader refuses them;
     * a sim_config built by hand is checked again) */
    b.streams[s1].sm_first = -1;
    b.streams[s1].sm_count = 2;
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "streams[0].sms: ranks -1..0 of sm_order are not on the device's "
                             "4 SMs");
    b.streams[s1].sm_first = 2;
    b.streams[s1].sm_count = -1;
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "streams[0].sms: ranks 2..0 of sm_order are not on the device's "
                             "4 SMs");
    trace_free(&t);
}

/* ---- the hill-climbing search ------------------------------------------------
 * A made-up pair on 16 SMs: the QoS goal is met from 6 SMs up; the non-QoS
 * throughput with m SMs for the QoS kernel is (16 - m) / 16 except at 7,
 * where a dip stops the descent. */
typedef struct fake {
    int32_t met_from;
    int32_t dip;
    int calls[17];
    int ncalls;
    int32_t order[64];
} fake;

static int fake_eval(void *ctx, int32_t m, int *met, double *thr) {
    fake *f = ctx;
    f->calls[m]++;
    f->order[f->ncalls++] = m;
    *met = m >= f->met_from;
    *thr = m == f->dip ? 0.01 : (16.0 - m) / 16.0;
    return 0;
}

static void test_hill_climb_down(void **state) {
    (void)state;
    /* met at the even split 8: hand SMs back while met and better: 7, 6
     * are met and better, 5 misses the goal: stop at 6 */
    fake f = {.met_from = 6, .dip = -1};
    int met;
    double thr;
    assert_int_equal(qos_hill_climb(16, fake_eval, &f, &met, &thr), 6);
    assert_true(met);
    assert_true(thr == 10.0 / 16.0);
    static const int32_t want[] = {8, 7, 6, 5};
    assert_int_equal(f.ncalls, 4);
    for (int i = 0; i < 4; i++) assert_int_equal(f.order[i], want[i]);
}

static void test_hill_climb_up_and_dip(void **state) {
    (void)state;
    /* missed at 8: climb to 11 (met from 11); going down, 10 misses: 11 */
    fake f = {.met_from = 11, .dip = -1};
    int met;
    double thr;
    assert_int_equal(qos_hill_climb(16, fake_eval, &f, &met, &thr), 11);
    assert_true(met);
    static const int32_t want[] = {8, 9, 10, 11, 10};
    assert_int_equal(f.ncalls, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(f.order[i], want[i]);
    /* met at 8 but 7 is worse for the non-QoS kernel: stay at 8 */
    fake g = {.met_from = 2, .dip = 7};
    assert_int_equal(qos_hill_climb(16, fake_eval, &g, &met, &thr), 8);
    assert_true(thr == 0.5);
    /* never met: the QoS kernel ends with all SMs but one, goal missed */
    fake h = {.met_from = 99, .dip = -1};
    assert_int_equal(qos_hill_climb(16, fake_eval, &h, &met, &thr), 15);
    assert_false(met);
    assert_int_equal(h.ncalls, 8);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks_on_their_partition),
        cmocka_unit_test(test_no_partition_is_most_room),
        cmocka_unit_test(test_partition_off_device),
        cmocka_unit_test(test_hill_climb_down),
        cmocka_unit_test(test_hill_climb_up_and_dip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
