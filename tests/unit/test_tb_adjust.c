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
 * gains TBs there, swapped in for the other kernel's, unless its warps
 * wait in the memory queue (idle: a full pipeline); and on random pairs
 * and trios under both users of preemption (spart-climb with sm_preempt,
 * a quota scheme with tb_adjust) no work is lost or done twice. */
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
#include "../../simcore/tb_adjust.h"
#include "../../simcore/trace.h"
#include "test_sanitizer.h"

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

/* A TB fits where the SM has each of its resources free: a block slot,
 * threads, warps, registers and shared memory, each alone enough to
 * refuse it (no victim allowed here: swap false). */
static void test_room_each_resource(void **state) {
    (void)state;
    tba_kernel ks[2] = { kern(true, 10, 20, 256, 8), kern(false, 0, 0, 128, 8) };
    ks[0].need.regs = 8192;
    ks[0].need.smem = 4096;
    double iw[2] = { 0, 0 };
    int32_t res[2] = { 4, 8 };
    tba_move m[4];
    sim_sm_free f = sm_with(256);
    assert_int_equal(decide(ks, iw, res, &f, false, m), 1);
    f.blocks = 0;
    assert_int_equal(decide(ks, iw, res, &f, false, m), 0);
    f = sm_with(256);
    f.threads = 255;
    assert_int_equal(decide(ks, iw, res, &f, false, m), 0);
    f = sm_with(256);
    f.warps = 7;
    assert_int_equal(decide(ks, iw, res, &f, false, m), 0);
    f = sm_with(256);
    f.regs = 8191;
    assert_int_equal(decide(ks, iw, res, &f, false, m), 0);
    f = sm_with(256);
    f.smem = 4095;
    assert_int_equal(decide(ks, iw, res, &f, false, m), 0);
}

/* Two QoS kernels behind their goals on one SM: each TB granted takes its
 * resources from what the next sees. Room for one TB by registers (or by
 * shared memory) alone: the first kernel gets it, the second none. */
static void test_grants_share_the_room(void **state) {
    (void)state;
    tba_kernel ks[2] = { kern(true, 10, 20, 256, 8), kern(true, 10, 20, 256, 8) };
    double iw[2] = { 0, 0 };
    int32_t res[2] = { 4, 4 };
    tba_move m[4];
    sim_sm_free f = sm_with(2048);
    assert_int_equal(decide(ks, iw, res, &f, false, m), 2);
    ks[0].need.regs = ks[1].need.regs = 32768;
    f.regs = 40000;
    assert_int_equal(decide(ks, iw, res, &f, false, m), 1);
    assert_int_equal(m[0].k, 0);
    ks[0].need.regs = ks[1].need.regs = 0;
    ks[0].need.smem = ks[1].need.smem = 48 * 1024;
    f = sm_with(2048);
    f.smem = 64 * 1024;
    assert_int_equal(decide(ks, iw, res, &f, false, m), 1);
    assert_int_equal(m[0].k, 0);
}

/* A swap credits what the victim's TBs free: 64 threads free, QoS K0's
 * 256-thread TB takes 2 of non-QoS K2's 128-thread TBs (64 + 256 - 256 =
 * 64 left), and QoS K1's 64-thread TB then fits in what is left, with no
 * victim. */
static void test_swap_frees_room(void **state) {
    (void)state;
    tba_kernel ks[3] = { kern(true, 10, 20, 256, 8), kern(true, 10, 20, 64, 8),
                         kern(false, 0, 0, 128, 8) };
    double iw[3] = { 0, 0, 0 };
    int32_t res[3] = { 4, 4, 8 };
    sim_sm_free f = sm_with(64);
    tba_move m[4];
    bool ok[1] = { true };
    assert_int_equal(tba_decide(ks, 3, 1, iw, res, &f, ok, m, 4), 2);
    assert_int_equal(m[0].k, 0);
    assert_int_equal(m[0].victim, 2);
    assert_int_equal(m[0].n, 2);
    assert_int_equal(m[1].k, 1);
    assert_int_equal(m[1].victim, -1);
}

/* n may be every TB the victim has on the SM: 64 threads free, 2 TBs of
 * 128 threads there make the 256 needed. */
static void test_victim_gives_all(void **state) {
    (void)state;
    tba_kernel ks[2] = { kern(true, 10, 20, 256, 8), kern(false, 0, 0, 128, 8) };
    double iw[2] = { 0, 0 };
    int32_t res[2] = { 4, 2 };
    sim_sm_free f = sm_with(64);
    tba_move m[4];
    assert_int_equal(decide(ks, iw, res, &f, true, m), 1);
    assert_int_equal(m[0].victim, 1);
    assert_int_equal(m[0].n, 2);
}

/* Among victims of one kind, the one with the most TBs on the SM, then the
 * lowest index (tb_adjust.h). Two non-QoS kernels of 128 threads: 3 and 5
 * TBs there: the second; 5 and 5: the first. And §3.6's margin is strict
 * ("IPChistory x (1 - n/N) > IPCgoal"): a QoS victim at 28 x (1 - 2/8) =
 * 21 with a goal of 21 is kept. */
static void test_victim_most_tbs(void **state) {
    (void)state;
    tba_kernel ks[3] = { kern(true, 10, 20, 256, 8), kern(false, 0, 0, 128, 8),
                         kern(false, 0, 0, 128, 8) };
    double iw[3] = { 0, 0, 0 };
    int32_t res[3] = { 4, 3, 5 };
    sim_sm_free f = sm_with(64);
    tba_move m[4];
    bool ok[1] = { true };
    assert_int_equal(tba_decide(ks, 3, 1, iw, res, &f, ok, m, 4), 1);
    assert_int_equal(m[0].victim, 2);
    res[1] = 5;
    assert_int_equal(tba_decide(ks, 3, 1, iw, res, &f, ok, m, 4), 1);
    assert_int_equal(m[0].victim, 1);

    tba_kernel kq[2] = { kern(true, 10, 20, 256, 8), kern(true, 28, 21, 128, 8) };
    int32_t rq[2] = { 4, 8 };
    assert_int_equal(decide(kq, iw, rq, &f, true, m), 0);
    kq[1].goal = 20.9;
    assert_int_equal(decide(kq, iw, rq, &f, true, m), 1);
}

/* A QoS kernel the manager does not see running (none of its TBs resident
 * or swapped out: exec_warp.c's `live`, between two of its waves) has no
 * idle warps sampled and asks for nothing, though it has TBs to place. */
static void test_not_running_asks_nothing(void **state) {
    (void)state;
    tba_kernel ks[2] = { kern(true, 10, 20, 256, 8), kern(false, 0, 0, 128, 8) };
    ks[0].live = false;
    double iw[2] = { 0, 0 };
    int32_t res[2] = { 0, 8 };
    sim_sm_free f = sm_with(256);
    tba_move m[4];
    assert_int_equal(decide(ks, iw, res, &f, true, m), 0);
}

/* Simulated: Q (QoS, goal 0.9) and A share 4 SMs of the ISCA'17 device
 * under Rollover; §3.6's equal share holds each to half an SM (4 TBs of
 * 256 threads), and Q's 64 TBs need more: its warps are latency-bound
 * (one SFU instruction of 100 cycles after each 2 ALU), so no TB of it is
 * idle. With tb_adjust Q holds more than 4 TBs on some SM (8 when this
 * was written: one more per SM and epoch while behind), A's TBs there are
 * swapped out (a second record each) and every instruction of both runs;
 * without it Q never holds more than 4. */
static const char a_compute[] = "{\"body\":[{\"op\":\"alu\",\"count\":8}],\"repeat\":40}";
static const char q_latency[] =
    "{\"body\":[{\"op\":\"alu\",\"count\":2},{\"op\":\"sfu\"}],\"repeat\":30}";

/* Q memory-bound instead: each warp's load (32 requests of 128 bytes)
 * waits in the device's one memory queue (isca17-gpgpusim: 1.44 requests
 * a cycle for the GPU, first come first served), behind the other warps'
 * loads, before its 260 cycles: Q's 128 warps ask some 15 requests a
 * cycle. Such a warp is one GPGPU-Sim holds at issue, its memory
 * instruction ready but the LD/ST pipeline full: an idle warp (§3.6: "IWs
 * have ready instructions but are not scheduled to execute due to a full
 * pipeline, which typically indicates that a kernel has excessive TLP").
 * Q is behind its goal, yet with most of its warps idle it gets no TB. */
static const char q_memory[] =
    "{\"body\":[{\"op\":\"mem\"},{\"op\":\"alu\",\"count\":2}],\"repeat\":30,"
    "\"mem_requests\":32}";

static void run(bool adjust, const char *qprog, const char *aprog, trace *t) {
    char text[2048];
    snprintf(text, sizeof text,
             "{\"schema\":\"schedlab-scenario/1\",\"name\":\"tba\",\"device\":{\"preset\":"
             "\"isca17-gpgpusim\",\"sms\":4},\"policy\":{\"warp\":\"quota-rollover\","
             "\"quota_epoch\":1000%s},\"streams\":[{\"name\":\"Q\",\"process\":\"P0\"},"
             "{\"name\":\"A\",\"process\":\"P1\"}],\"ops\":["
             "{\"kernel\":\"Q\",\"stream\":\"Q\",\"blocks\":64,\"threads\":256,\"qos_goal\":0.9,"
             "\"program\":%s},"
             "{\"kernel\":\"A\",\"stream\":\"A\",\"blocks\":64,\"threads\":256,"
             "\"program\":%s}]}",
             adjust ? ",\"tb_adjust\":true,\"sm_preempt\":\"400cycles\"" : "", qprog, aprog);
    char err[512] = "";
    scn_scenario *s = NULL;
    sim_config cfg;
    if (scn_parse(text, strlen(text), "tba.json", &s, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    trace_init(t);
    if (sim_run(&cfg, t, err, sizeof err) != 0) fail_msg("%s", err);
    scn_free(s);
}

/* The most TBs of Q (kernel 0) at once on one SM, and how many of A's
 * block indices have a second record (swapped out and resumed). */
static void q_most(const trace *t, int *most, int *twice) {
    int arec[64] = {0};
    *most = *twice = 0;
    for (size_t i = 0; i < t->blocks.n; i++) {
        const trace_block *b = &t->blocks.v[i];
        if (b->kernel == 1) {
            *twice += ++arec[b->index] == 2;
            continue;
        }
        int n = 0;
        for (size_t j = 0; j < t->blocks.n; j++) {
            const trace_block *c = &t->blocks.v[j];
            n += c->kernel == 0 && c->sm == b->sm && c->start <= b->start && c->end > b->start;
        }
        if (n > *most) *most = n;
    }
}

static void test_simulated(void **state) {
    (void)state;
    for (int adjust = 0; adjust < 2; adjust++) {
        trace t;
        run(adjust, q_latency, a_compute, &t);
        assert_int_equal(t.kernels.n, 2);
        int most, twice;
        q_most(&t, &most, &twice);
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

static void test_simulated_memory_bound(void **state) {
    (void)state;
    trace t;
    run(true, q_memory, a_compute, &t);
    int most, twice;
    q_most(&t, &most, &twice);
    assert_int_equal(t.kernels.v[0].instructions, 64 * 8 * 3 * 30);
    assert_int_equal(t.kernels.v[1].instructions, 64 * 8 * 8 * 40);
    /* Q's first epochs are behind its goal (IPC_history 1.5 and 1.9
     * against 2.16 when this was written: the first loads' latency), with
     * 26 and 22 of its 32 warps an SM held at the memory queue (3 and 2
     * idle TBs); counted as not idle, as they were before, Q took 8 of A's
     * TBs there. Q holds more than 4 TBs on an SM only once A has ended
     * (then nothing is shared, as without tb_adjust). */
    if (twice != 0)
        fail_msg("a memory-bound Q, its warps waiting in the memory queue, had %d of A's TBs "
                 "swapped out for it (want none)", twice);
    trace_free(&t);
}

/* ---- random configurations ---------------------------------------------------
 * Preemption moves blocks' work between SMs; whatever it does, every
 * kernel ends with exactly its instructions (blocks x warps x body x
 * repeat), every block index has its records one after another (each
 * record starts no earlier than the last one of that index ended, a block
 * preempted k times has k + 1 records; a resumed one starts no earlier than
 * the dispatch latency after it was saved), and the run ends. TBA_DUMP=N in
 * the environment prints seed N's scenario, to run it with `schedlab
 * simulate`. */
static uint64_t rnd(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void test_random_preemption(void **state) {
    (void)state;
    /* the runs past `seeds` add a dispatch latency; the first ones keep
     * none, so their configurations (the ones that found the resume-before-
     * save bug, a6c3379) stay as they were */
    int seeds = TEST_UNDER_ASAN ? 40 : 200, runs = seeds + seeds / 2, preempted = 0;
    for (uint64_t seed = 1; seed <= (uint64_t)runs; seed++) {
        uint64_t x = seed * 0x9E3779B97F4A7C15ULL;
        bool climb = seed % 2;           /* spart-climb, else Rollover + tb_adjust */
        int nk = 2 + (int)(rnd(&x) % 2);
        char ops[2048] = "", streams[512] = "", text[4096];
        size_t no = 0, ns = 0;
        int64_t want[3];
        for (int k = 0; k < nk; k++) {
            int blocks = 8 + (int)(rnd(&x) % 40), threads = 32 * (1 + (int)(rnd(&x) % 8));
            int count = 1 + (int)(rnd(&x) % 6), repeat = 1 + (int)(rnd(&x) % 20);
            const char *op = rnd(&x) % 3 ? "alu" : "sfu";
            /* climb: 4 SMs split 2 / 1 / 1 or 2 / 2 */
            int first = k == 0 ? 0 : nk == 2 ? 2 : 1 + k, cnt = k == 0 ? 2 : nk == 2 ? 2 : 1;
            char sms[64] = "";
            if (climb) snprintf(sms, sizeof sms, ",\"sms\":{\"first\":%d,\"count\":%d}", first, cnt);
            ns += (size_t)snprintf(streams + ns, sizeof streams - ns,
                                   "%s{\"name\":\"S%d\",\"process\":\"P%d\"%s}", k ? "," : "", k, k,
                                   sms);
            char goal[32] = "";
            if (k == 0 || (k == 1 && nk == 3 && !climb))
                snprintf(goal, sizeof goal, ",\"qos_goal\":%.2f", 0.3 + 0.1 * (double)(rnd(&x) % 7));
            no += (size_t)snprintf(ops + no, sizeof ops - no,
                                   "%s{\"kernel\":\"K%d\",\"stream\":\"S%d\",\"blocks\":%d,"
                                   "\"threads\":%d%s,\"program\":{\"body\":[{\"op\":\"%s\","
                                   "\"count\":%d},{\"op\":\"alu\"}],\"repeat\":%d}}",
                                   k ? "," : "", k, k, blocks, threads, goal, op, count, repeat);
            want[k] = (int64_t)blocks * (threads / 32) * (count + 1) * repeat;
        }
        int epoch = 200 + (int)(rnd(&x) % 800), cost = (int)(rnd(&x) % 3000);
        int lat = seed > (uint64_t)seeds ? 50 * (1 + (int)(rnd(&x) % 8)) : 0;   /* ns */
        snprintf(text, sizeof text,
                 "{\"schema\":\"schedlab-scenario/1\",\"name\":\"r\",\"device\":{\"preset\":"
                 "\"isca17-gpgpusim\",\"sms\":4},\"policy\":{\"warp\":\"%s\",%s"
                 "\"quota_epoch\":%d,\"sm_preempt\":\"%dcycles\",\"dispatch_latency\":\"%dns\"},"
                 "\"streams\":[%s],\"ops\":[%s]}",
                 climb ? "gto" : "quota-rollover",
                 climb ? "\"placement\":\"spart-climb\"," : "\"tb_adjust\":true,", epoch, cost,
                 lat, streams, ops);
        if (getenv("TBA_DUMP") && atoi(getenv("TBA_DUMP")) == (int)seed) puts(text);
        char err[512] = "";
        scn_scenario *s = NULL;
        sim_config cfg;
        if (scn_parse(text, strlen(text), "r.json", &s, err, sizeof err) != 0)
            fail_msg("seed %d: %s", (int)seed, err);
        assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
        trace t;
        trace_init(&t);
        if (sim_run(&cfg, &t, err, sizeof err) != 0) fail_msg("seed %d: %s", (int)seed, err);
        assert_int_equal((int)t.kernels.n, nk);
        for (int k = 0; k < nk; k++) {
            if (t.kernels.v[k].instructions != want[k])
                fail_msg("seed %d: kernel %d issued %lld instructions, its program has %lld",
                         (int)seed, k, (long long)t.kernels.v[k].instructions,
                         (long long)want[k]);
            /* its records, index by index, in trace order: each after the
             * one before it ended */
            int64_t blocks = t.kernels.v[k].blocks;
            for (int64_t idx = 0; idx < blocks; idx++) {
                int64_t last = -1;
                int recs = 0;
                for (size_t i = 0; i < t.blocks.n; i++) {
                    const trace_block *b = &t.blocks.v[i];
                    if (b->kernel != k || b->index != idx) continue;
                    assert_true(b->end != TRACE_NONE && b->end >= b->start);
                    /* a resumed block is assigned again: it starts the
                     * dispatch latency after (docs/scenario-format.md) */
                    if (last >= 0 && b->start < last + lat)
                        fail_msg("seed %d: kernel %d block %lld resumes at %lld, before its "
                                 "context was saved at %lld plus the dispatch latency %d",
                                 (int)seed, k, (long long)idx, (long long)b->start,
                                 (long long)last, lat);
                    last = b->end;
                    recs++;
                }
                assert_true(recs >= 1);
                preempted += recs - 1;
            }
        }
        trace_free(&t);
        scn_free(s);
    }
    /* the configurations exercise what they are for */
    printf("  %d random runs, %d preemptions\n", runs, preempted);
    assert_true(preempted >= runs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grant_with_room),
        cmocka_unit_test(test_victim_non_qos),
        cmocka_unit_test(test_victim_qos),
        cmocka_unit_test(test_victim_order),
        cmocka_unit_test(test_room_each_resource),
        cmocka_unit_test(test_grants_share_the_room),
        cmocka_unit_test(test_swap_frees_room),
        cmocka_unit_test(test_victim_gives_all),
        cmocka_unit_test(test_victim_most_tbs),
        cmocka_unit_test(test_not_running_asks_nothing),
        cmocka_unit_test(test_simulated),
        cmocka_unit_test(test_simulated_memory_bound),
        cmocka_unit_test(test_random_preemption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
