/* test_tb_adjust.c -- ISCA'17 §3.6's run-time TB adjustment
 * (simcore/tb_adjust.c), the decision on hand-made SMs:
 *
 *   - a QoS kernel behind its goal with at most one idle TB gets one TB
 *     more, without a victim where the SM has room;
 *   - with two idle TBs, its goal reached, or nothing left to place, none;
 *   - without room, n TBs of a victim: a non-QoS kernel first; a QoS kernel
 *     only with n + 1 idle TBs or IPC_history x (1 - n/N) > IPC_goal; n the
 *     fewest whose resources hold the QoS kernel's TB;
 *   - no swap on an SM whose port is still saving;
 *
 * and, simulated, a QoS kernel held to half an SM by §3.6's equal share
 * gains TBs there, swapped in for the other kernel's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../server/formats/scenario.h"
#include "../../simcore/sim.h"
#include "../../simcore/tb_adjust.h"
#include "../../simcore/trace.h"

/* An SM of the ISCA'17 device (Table 1: 2048 threads, 64 warps, 32 TBs,
 * 256 KB of registers, 96 KB of shared memory) with `threads` of its
 * threads free (warps in proportion), everything else free. */
static sim_sm_free sm_with(int32_t threads) {
    return (sim_sm_free){ .threads = threads, .warps = threads / 32, .blocks = 16,
                          .regs = 65536, .smem = 96 * 1024 };
}

static tba_kernel kern(bool qos, double hist, double goal, int32_t threads, int64_t tbs) {
    return (tba_kernel){ .live = true, .qos = qos, .waiting = true, .ipc_history = hist,
                         .goal = goal, .need = { .threads = threads, .warps = threads / 32 },
                         .tbs = tbs };
}

/* k 0 is the QoS kernel (256 threads: 8 warps a TB), k 1 the other. */
static size_t decide(const tba_kernel *ks, const double *iw, const int32_t *res,
                     const sim_sm_free *f, bool swap, tba_move *out) {
    bool ok[1] = { swap };
    return tba_decide(ks, 2, 1, iw, res, f, ok, out, 4);
}

static void test_grant_with_room(void **state) {
    (void)state;
    tba_kernel ks[2] = { kern(true, 10, 20, 256, 8), kern(false, 0, 0, 128, 8) };
    double iw[2] = { 15.9, 0 };          /* 1.99 idle TBs of 8 warps: one */
    int32_t res[2] = { 4, 8 };
    sim_sm_free f = sm_with(256);
    tba_move m[4];
    assert_int_equal(decide(ks, iw, res, &f, true, m), 1);
    assert_int_equal(m[0].k, 0);
    assert_int_equal(m[0].sm, 0);
    assert_int_equal(m[0].victim, -1);
    assert_int_equal(m[0].n, 0);
    /* two idle TBs: its TLP is not what holds it back */
    iw[0] = 16;
    assert_int_equal(decide(ks, iw, res, &f, true, m), 0);
    /* its goal reached (IPC_history >= IPC_goal) */
    iw[0] = 0;
    ks[0].ipc_history = 20;
    assert_int_equal(decide(ks, iw, res, &f, true, m), 0);
    /* nothing of it left to place */
    ks[0].ipc_history = 10;
    ks[0].waiting = false;
    assert_int_equal(decide(ks, iw, res, &f, true, m), 0);
    /* a non-QoS kernel never asks */
    ks[0].waiting = true;
    ks[0].qos = false;
    assert_int_equal(decide(ks, iw, res, &f, true, m), 0);
}

static void test_victim_non_qos(void **state) {
    (void)state;
    /* 64 threads free; the QoS TB needs 256: 2 of the other's 128-thread
     * TBs make 64 + 256 = 320 >= 256 (1 would make 192) */
    tba_kernel ks[2] = { kern(true, 10, 20, 256, 8), kern(false, 0, 0, 128, 8) };
    double iw[2] = { 0, 0 };
    int32_t res[2] = { 4, 8 };
    sim_sm_free f = sm_with(64);
    tba_move m[4];
    assert_int_equal(decide(ks, iw, res, &f, true, m), 1);
    assert_int_equal(m[0].victim, 1);
    assert_int_equal(m[0].n, 2);
    /* not while the SM's port is still saving */
    assert_int_equal(decide(ks, iw, res, &f, false, m), 0);
    /* the victim has only one TB here: not enough */
    res[1] = 1;
    assert_int_equal(decide(ks, iw, res, &f, true, m), 0);
}

static void test_victim_qos(void **state) {
    (void)state;
    /* the other is a QoS kernel too (goal 20): n = 2 of its TBs */
    tba_kernel ks[2] = { kern(true, 10, 20, 256, 8), kern(true, 21, 20, 128, 8) };
    double iw[2] = { 0, 0 };
    int32_t res[2] = { 4, 8 };
    sim_sm_free f = sm_with(64);
    tba_move m[4];
    /* IPC_history x (1 - 2/8) = 15.75, not above 20, and no idle TB: kept */
    assert_int_equal(decide(ks, iw, res, &f, true, m), 0);
    /* n + 1 = 3 idle TBs (its 4 warps each): 12 idle warps */
    iw[1] = 12;
    assert_int_equal(decide(ks, iw, res, &f, true, m), 1);
    assert_int_equal(m[0].victim, 1);
    assert_int_equal(m[0].n, 2);
    /* 2 idle TBs are not n + 1 */
    iw[1] = 11.9;
    assert_int_equal(decide(ks, iw, res, &f, true, m), 0);
    /* an IPC margin to lose: 28 x (1 - 2/8) = 21 > 20 */
    ks[1].ipc_history = 28;
    assert_int_equal(decide(ks, iw, res, &f, true, m), 1);
    assert_int_equal(m[0].victim, 1);
    /* ... 26 x 0.75 = 19.5 is not */
    ks[1].ipc_history = 26;
    assert_int_equal(decide(ks, iw, res, &f, true, m), 0);
}

/* A non-QoS victim before a QoS one, whichever has more TBs there. */
static void test_victim_order(void **state) {
    (void)state;
    tba_kernel ks[3] = { kern(true, 10, 20, 256, 8), kern(true, 40, 20, 128, 8),
                         kern(false, 0, 0, 128, 8) };
    double iw[3] = { 0, 0, 0 };
    int32_t res[3] = { 4, 10, 3 };
    sim_sm_free f = sm_with(64);
    tba_move m[4];
    bool ok[1] = { true };
    assert_int_equal(tba_decide(ks, 3, 1, iw, res, &f, ok, m, 4), 1);
    assert_int_equal(m[0].victim, 2);
    assert_int_equal(m[0].n, 2);
}

/* Simulated: Q (QoS, goal 0.9) and A share 4 SMs of the ISCA'17 device
 * under Rollover; §3.6's equal share holds each to half an SM (4 TBs of
 * 256 threads), and Q's 64 TBs need more: its warps are latency-bound
 * (one SFU instruction of 100 cycles after each 2 ALU), so no TB of it is
 * idle. With tb_adjust Q holds more than 4 TBs on some SM (8 when this
 * was written: one more per SM and epoch while behind), A's TBs there are
 * swapped out (a second record each) and every instruction of both runs;
 * without it Q never holds more than 4. */
static void run(bool adjust, trace *t) {
    char text[2048];
    snprintf(text, sizeof text,
             "{\"schema\":\"schedlab-scenario/1\",\"name\":\"tba\",\"device\":{\"preset\":"
             "\"isca17-gpgpusim\",\"sms\":4},\"policy\":{\"warp\":\"quota-rollover\","
             "\"quota_epoch\":1000%s},\"streams\":[{\"name\":\"Q\",\"process\":\"P0\"},"
             "{\"name\":\"A\",\"process\":\"P1\"}],\"ops\":["
             "{\"kernel\":\"Q\",\"stream\":\"Q\",\"blocks\":64,\"threads\":256,\"qos_goal\":0.9,"
             "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":2},{\"op\":\"sfu\"}],\"repeat\":30}},"
             "{\"kernel\":\"A\",\"stream\":\"A\",\"blocks\":64,\"threads\":256,"
             "\"program\":{\"body\":[{\"op\":\"alu\",\"count\":8}],\"repeat\":40}}]}",
             adjust ? ",\"tb_adjust\":true,\"sm_preempt\":\"400cycles\"" : "");
    char err[512] = "";
    scn_scenario *s = NULL;
    sim_config cfg;
    if (scn_parse(text, strlen(text), "tba.json", &s, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    trace_init(t);
    if (sim_run(&cfg, t, err, sizeof err) != 0) fail_msg("%s", err);
    scn_free(s);
}

static void test_simulated(void **state) {
    (void)state;
    for (int adjust = 0; adjust < 2; adjust++) {
        trace t;
        run(adjust, &t);
        assert_int_equal(t.kernels.n, 2);
        /* the most TBs of Q at once on one SM, and A's records per index */
        int most = 0, twice = 0, arec[64] = {0};
        for (size_t i = 0; i < t.blocks.n; i++) {
            const trace_block *b = &t.blocks.v[i];
            if (b->kernel == 1) {
                twice += ++arec[b->index] == 2;
                continue;
            }
            int n = 0;
            for (size_t j = 0; j < t.blocks.n; j++) {
                const trace_block *c = &t.blocks.v[j];
                n += c->kernel == 0 && c->sm == b->sm && c->start <= b->start && c->end > b->start;
            }
            if (n > most) most = n;
        }
        assert_int_equal(t.kernels.v[0].instructions, 64 * 8 * 3 * 30);
        assert_int_equal(t.kernels.v[1].instructions, 64 * 8 * 8 * 40);
        if (!adjust) {
            assert_int_equal(most, 4);
            assert_int_equal(twice, 0);
        } else if (most <= 4 || twice == 0) {
            fail_msg("with tb_adjust Q holds at most %d TBs on an SM and %d of A's TBs were "
                     "swapped out", most, twice);
        }
        trace_free(&t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grant_with_room),
        cmocka_unit_test(test_victim_non_qos),
        cmocka_unit_test(test_victim_qos),
        cmocka_unit_test(test_victim_order),
        cmocka_unit_test(test_simulated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
