/* test_spart_climb.c -- placement "spart-climb" (simcore/spart.c: the
 * run-time Spart of ISCA'17 §2.3, §4.1, after Aguilera et al. [3]) where
 * the partitions are not test_quota.c's two in a row from rank 0:
 * partitions configured out of rank order or after unused ranks, a stream
 * without a partition beside them, two streams without goals of one size,
 * a QoS stream of one SM, a QoS kernel that has ended, and a QoS stream
 * of two launches under policy.spart_trial.
 *
 * Every case is the ISCA'17 device cut down to a few SMs (sm_order
 * ascending), 1,000-cycle epochs, and kernels of blocks of 128 threads
 * running 8 ALU instructions 4 times, as test_quota.c's climb_pair: a
 * kernel alone issues at its isolated IPC, so a goal of 1 is never met
 * while another kernel shares the GPU (Q asks for an SM at every boundary)
 * and 0.05 is met on one SM (Q gives SMs back, by prediction: IPC x (n -
 * 1) / n >= IPC_goal). The first boundary with instructions (cycle 1,000)
 * decides nothing; the first move is at cycle 2,000, and the block
 * scheduler places by the new partitions from cycle 2,001. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../server/formats/scenario.h"
#include "../../simcore/sim.h"
#include "../../simcore/trace.h"

/* One block of a run: its kernel's name, its SM, its start in cycles. */
typedef struct cblock {
    char kernel[8];
    int32_t sm;
    double start;
} cblock;

typedef struct crun {
    cblock *v;
    size_t n;
} crun;

/* A kernel op of `blocks` blocks on `stream` (goal 0: none), after the
 * stream's earlier ops, its program run `repeat` times (4 but where said). */
static int op_r(char *out, size_t n, const char *kernel, const char *stream, int blocks,
                double goal, int repeat) {
    char g[48] = "";
    if (goal > 0) snprintf(g, sizeof g, ",\"qos_goal\":%g", goal);
    return snprintf(out, n,
                    "{\"kernel\":\"%s\",\"stream\":\"%s\",\"blocks\":%d,\"threads\":128%s,"
                    "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":8}],\"repeat\":%d}}",
                    kernel, stream, blocks, g, repeat);
}

/* op_r appended to the ops of `ops` (a comma before it but for the first) */
static void add_op_r(char *ops, size_t n, const char *kernel, const char *stream, int blocks,
                     double goal, int repeat) {
    size_t len = strlen(ops);
    if (len && len + 1 < n) ops[len++] = ',';
    int w = op_r(ops + len, n - len, kernel, stream, blocks, goal, repeat);
    assert_true(w > 0 && (size_t)w < n - len);
}

static void add_op(char *ops, size_t n, const char *kernel, const char *stream, int blocks,
                   double goal) {
    add_op_r(ops, n, kernel, stream, blocks, goal, 4);
}

/* QOS on ranks 0-1, BE on ranks 2-3 */
#define PAIR_STREAMS                                                                  \
    "{\"name\":\"QOS\",\"process\":\"P0\",\"sms\":{\"first\":0,\"count\":2}},"        \
    "{\"name\":\"BE\",\"process\":\"P1\",\"sms\":{\"first\":2,\"count\":2}}"

/* Run `sms` SMs under spart-climb (more policy keys in `policy`: ",..."
 * or ""), the streams and ops given as JSON array bodies. */
static crun run(int sms, const char *policy, const char *streams, const char *ops) {
    char text[8192], order[128] = "";
    for (int i = 0; i < sms; i++)
        snprintf(order + strlen(order), sizeof order - strlen(order), "%s%d", i ? "," : "", i);
    int len = snprintf(text, sizeof text,
                       "{\"schema\":\"schedlab-scenario/1\",\"name\":\"climb\",\"device\":{"
                       "\"preset\":\"isca17-gpgpusim\",\"sms\":%d,\"sm_order\":[%s]},"
                       "\"policy\":{\"warp\":\"gto\",\"placement\":\"spart-climb\","
                       "\"quota_epoch\":1000%s},\"streams\":[%s],\"ops\":[%s]}",
                       sms, order, policy, streams, ops);
    assert_true(len > 0 && (size_t)len < sizeof text);
    char err[512] = "";
    scn_scenario *s = NULL;
    if (scn_parse(text, strlen(text), "climb.json", &s, err, sizeof err) != 0) fail_msg("%s", err);
    sim_config cfg;
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    trace t;
    trace_init(&t);
    if (sim_run(&cfg, &t, err, sizeof err) != 0) fail_msg("%s", err);
    double hz = (double)cfg.device.clock_hz;
    crun r = { malloc((t.blocks.n ? t.blocks.n : 1) * sizeof *r.v), t.blocks.n };
    assert_non_null(r.v);
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *b = &t.blocks.v[i];
        snprintf(r.v[i].kernel, sizeof r.v[i].kernel, "%s",
                 trace_str_get(&t, t.kernels.v[b->kernel].name));
        r.v[i].sm = b->sm;
        r.v[i].start = (double)b->start * hz / 1e9;
    }
    trace_free(&t);
    scn_free(s);
    return r;
}

/* Blocks of `kernel` that started on `sm` in cycles [from, to). */
static int count(const crun *r, const char *kernel, int32_t sm, double from, double to) {
    int n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += !strcmp(r->v[i].kernel, kernel) && r->v[i].sm == sm && r->v[i].start >= from &&
             r->v[i].start < to;
    return n;
}

#define LATE (2001.0 - 1e-6)   /* from the first move on */
#define NEXT (3001.0 - 1e-6)   /* from the second on */
#define EVER 1e12

/* Partitions are laid out by their configured first ranks, not by the
 * order the streams are listed in, and from the first configured rank,
 * not from rank 0 (spart.c: "contiguous and in the order of their
 * configured first ranks"). 6 SMs: QOS (listed first) on ranks 4-5, BE
 * on ranks 2-3, ranks 0-1 in no partition. Q below goal 1 takes one SM at
 * 2,000: BE keeps rank 2, QOS holds 3-5. SMs 0 and 1 never run a block. */
static void test_partitions_out_of_order(void **state) {
    (void)state;
    char ops[1024] = "";
    add_op(ops, sizeof ops, "Q", "QOS", 400, 1);
    add_op(ops, sizeof ops, "A", "BE", 400, 0);
    crun r = run(6, "",
                 "{\"name\":\"QOS\",\"process\":\"P0\",\"sms\":{\"first\":4,\"count\":2}},"
                 "{\"name\":\"BE\",\"process\":\"P1\",\"sms\":{\"first\":2,\"count\":2}}",
                 ops);
    for (int32_t sm = 0; sm < 2; sm++) {
        assert_int_equal(count(&r, "Q", sm, 0, EVER), 0);
        assert_int_equal(count(&r, "A", sm, 0, EVER), 0);
    }
    assert_true(count(&r, "A", 3, 0, LATE) > 0);
    assert_int_equal(count(&r, "A", 3, LATE, EVER), 0);
    assert_true(count(&r, "Q", 3, LATE, EVER) > 0);
    assert_true(count(&r, "A", 2, LATE, EVER) > 0);
    free(r.v);
}

/* A stream given no SMs runs on every SM and takes no part in the climb:
 * an SM given back goes to a partitioned stream without goals. 4 SMs:
 * QOS 0-1, BE 2-3, and H with no partition and one short kernel. Q at
 * goal 0.05 gives one SM back at 2,000: QOS keeps rank 0, BE holds 1-3. */
static void test_unpartitioned_stream(void **state) {
    (void)state;
    char ops[2048] = "";
    add_op(ops, sizeof ops, "Q", "QOS", 400, 0.05);
    add_op(ops, sizeof ops, "A", "BE", 400, 0);
    add_op(ops, sizeof ops, "H", "H", 1, 0);
    crun r = run(4, "",
                 "{\"name\":\"QOS\",\"process\":\"P0\",\"sms\":{\"first\":0,\"count\":2}},"
                 "{\"name\":\"BE\",\"process\":\"P1\",\"sms\":{\"first\":2,\"count\":2}},"
                 "{\"name\":\"H\",\"process\":\"P2\"}",
                 ops);
    assert_true(count(&r, "Q", 0, LATE, EVER) > 0);
    assert_int_equal(count(&r, "Q", 1, LATE, EVER), 0);
    assert_true(count(&r, "A", 1, LATE, EVER) > 0);
    free(r.v);
}

/* Two streams without goals of one size: the first (by rank) gives the SM
 * a QoS kernel takes, and gets the one it gives back (spart.c climb_peer:
 * "ties to the first"). 6 SMs: QOS 0-1, BE1 2-3, BE2 4-5.
 *   - goal 1: Q takes an SM from BE1 at 2,000: QOS 0-2, BE1 3, BE2 4-5
 *     (at 3,000, still below, it takes one from BE2, the one stream left
 *     with more than the SM each keeps: QOS 0-3, BE1 4, BE2 5);
 *   - goal 0.05: Q gives one to BE1 at 2,000: QOS 0, BE1 1-3, BE2 4-5. */
static void test_peers_of_one_size(void **state) {
    (void)state;
    static const char streams[] =
        "{\"name\":\"QOS\",\"process\":\"P0\",\"sms\":{\"first\":0,\"count\":2}},"
        "{\"name\":\"BE1\",\"process\":\"P1\",\"sms\":{\"first\":2,\"count\":2}},"
        "{\"name\":\"BE2\",\"process\":\"P2\",\"sms\":{\"first\":4,\"count\":2}}";
    for (int give = 0; give <= 1; give++) {
        char ops[2048] = "";
        add_op(ops, sizeof ops, "Q", "QOS", 400, give ? 0.05 : 1);
        add_op(ops, sizeof ops, "A", "BE1", 400, 0);
        add_op(ops, sizeof ops, "B", "BE2", 400, 0);
        crun r = run(6, "", streams, ops);
        if (!give) {
            assert_true(count(&r, "Q", 2, LATE, EVER) > 0);
            assert_true(count(&r, "A", 3, LATE, NEXT) > 0);
            assert_int_equal(count(&r, "A", 4, 0, NEXT), 0);
            assert_true(count(&r, "B", 4, LATE, NEXT) > 0);
            assert_true(count(&r, "Q", 3, NEXT, EVER) > 0);
            assert_true(count(&r, "A", 4, NEXT, EVER) > 0);
            assert_int_equal(count(&r, "B", 4, NEXT, EVER), 0);
        } else {
            assert_true(count(&r, "A", 1, LATE, EVER) > 0);
            assert_true(count(&r, "A", 3, LATE, EVER) > 0);
            assert_int_equal(count(&r, "B", 3, 0, EVER), 0);
        }
        free(r.v);
    }
}

/* Under policy.spart_trial a QoS stream gives an SM back on trial only
 * while it keeps one: Q on one SM at goal 0.05 (met there) keeps SM 0;
 * A, on ranks 1-3, never places a block on it. */
static void test_trial_keeps_one(void **state) {
    (void)state;
    char ops[1024] = "";
    add_op(ops, sizeof ops, "Q", "QOS", 200, 0.05);
    add_op(ops, sizeof ops, "A", "BE", 400, 0);
    crun r = run(4, ",\"spart_trial\":true",
                 "{\"name\":\"QOS\",\"process\":\"P0\",\"sms\":{\"first\":0,\"count\":1}},"
                 "{\"name\":\"BE\",\"process\":\"P1\",\"sms\":{\"first\":1,\"count\":3}}",
                 ops);
    assert_true(count(&r, "Q", 0, LATE, EVER) > 0);
    assert_int_equal(count(&r, "A", 0, 0, EVER), 0);
    free(r.v);
}

/* The climb follows a QoS kernel while its blocks run: once it has ended
 * the stream asks for nothing (no IPC to measure against a goal). 4 SMs:
 * QOS 0-1 with a short Q (8 blocks, over long before cycle 2,000) at goal
 * 1, BE 2-3: at 2,000 nothing moves, and A keeps placing on both its SMs
 * (SM 2 included) after it. */
static void test_ended_qos_kernel(void **state) {
    (void)state;
    char ops[1024] = "";
    add_op(ops, sizeof ops, "Q", "QOS", 8, 1);
    add_op(ops, sizeof ops, "A", "BE", 400, 0);
    crun r = run(4, "",
                 PAIR_STREAMS, ops);
    assert_int_equal(count(&r, "Q", 0, 1000, EVER) + count(&r, "Q", 1, 1000, EVER), 0);
    assert_true(count(&r, "A", 2, LATE, EVER) > 0);
    assert_true(count(&r, "A", 3, LATE, EVER) > 0);
    free(r.v);
}

/* Under policy.spart_trial the floor a missed trial sets is the launch's:
 * "a new launch on the stream climbs afresh" (spart.c). test_quota.c's
 * test_spart_climb_trial at goal 0.45 (Q gives SM 1 back on trial at
 * 2,000, misses, takes it back at 3,000 and never tries again), with Q's
 * work in two launches, Q1 then Q2 on the same stream: Q2 tries one SM
 * fewer again, so A places blocks on SM 1 after Q2 has begun, and
 * within Q1's run only in the one trial epoch. */
static void test_trial_floor_per_launch(void **state) {
    (void)state;
    char ops[2048] = "";
    add_op(ops, sizeof ops, "Q1", "QOS", 400, 0.45);
    add_op(ops, sizeof ops, "Q2", "QOS", 400, 0.45);
    add_op(ops, sizeof ops, "A", "BE", 1600, 0);
    crun r = run(4, ",\"spart_trial\":true",
                 PAIR_STREAMS, ops);
    double q2 = EVER;   /* Q2's first block */
    for (size_t i = 0; i < r.n; i++)
        if (!strcmp(r.v[i].kernel, "Q2") && r.v[i].start < q2) q2 = r.v[i].start;
    assert_true(q2 < EVER);
    assert_true(q2 > 4000);   /* Q1 outlasts its trial and the take-back */
    assert_true(count(&r, "A", 1, LATE, NEXT) > 0);
    assert_int_equal(count(&r, "A", 1, NEXT, q2), 0);
    if (count(&r, "A", 1, q2, EVER) == 0)
        fail_msg("A placed no block on SM 1 after Q2 began at cycle %.0f: Q2 kept Q1's floor",
                 q2);
    free(r.v);
}

/* A trial's miss is the launch's that tried: where the launch that gave an
 * SM back on trial ends within the next epoch and a new one has begun, the
 * new launch missing its goal there sets no floor (spart.c: "a new launch
 * on the stream climbs afresh"). The same pair, Q1 short (300 blocks that
 * run their program once: it gives SM 1 back on trial at 2,000, its last
 * block starts after that and Q2's first before 3,000), Q2 after it:
 * Q2, below its goal at 3,000 on the one SM, takes SM 1 back, meets its
 * goal on two at 4,000 and tries one fewer again: A places blocks on SM 1
 * after cycle 3,001. */
static void test_trial_new_launch_after_trial(void **state) {
    (void)state;
    char ops[2048] = "";
    add_op_r(ops, sizeof ops, "Q1", "QOS", 300, 0.45, 1);
    add_op(ops, sizeof ops, "Q2", "QOS", 400, 0.45);
    add_op(ops, sizeof ops, "A", "BE", 1600, 0);
    crun r = run(4, ",\"spart_trial\":true",
                 PAIR_STREAMS, ops);
    double q1 = 0, q2 = EVER;   /* Q1's last block's start, Q2's first */
    for (size_t i = 0; i < r.n; i++) {
        if (!strcmp(r.v[i].kernel, "Q1") && r.v[i].start > q1) q1 = r.v[i].start;
        if (!strcmp(r.v[i].kernel, "Q2") && r.v[i].start < q2) q2 = r.v[i].start;
    }
    printf("  Q1's last block starts at cycle %.0f, Q2's first at %.0f\n", q1, q2);
    assert_true(q1 > 2000 && q2 < 3000);
    assert_true(count(&r, "A", 1, LATE, NEXT) > 0);
    if (count(&r, "A", 1, NEXT, EVER) == 0)
        fail_msg("A placed no block on SM 1 after cycle 3,001: Q2 took Q1's trial as its own");
    free(r.v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partitions_out_of_order),
        cmocka_unit_test(test_unpartitioned_stream),
        cmocka_unit_test(test_peers_of_one_size),
        cmocka_unit_test(test_trial_keeps_one),
        cmocka_unit_test(test_ended_qos_kernel),
        cmocka_unit_test(test_trial_floor_per_launch),
        cmocka_unit_test(test_trial_new_launch_after_trial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
