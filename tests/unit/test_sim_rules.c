/* test_sim_rules.c -- the simulator against the papers' experiments, with
 * exact start times, SMs and orders derived by hand from the rules (each
 * derivation is written next to its test).
 *
 * TX2 paper (tx2-gpu-scheduling-rules-rtss17.txt): Table 1 / Fig. 3 (basic
 * rules), Table 2 / Fig. 5 (NULL stream), Tables 3-5 / Figs. 6-8 (stream
 * priorities). Most-room paper: §4.1, §4.2 (Pascal), §5.1 (Turing), and the
 * same workloads under round-robin. Plus copy engines, host syncs,
 * latencies, presets and configuration errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "test_sim_util.h"

/* ---- TX2 Table 1 / Fig. 3 --------------------------------------------------
 *
 * One address space (two tasks), streams S1 (task 0), S2 and S3 (task 1),
 * every block spins 1 s, copies of 256MB take 0.2 s (test_sim_util.h).
 * Derivation (most-room on 2 SMs, ascending tie order):
 *  t=0    K1 heads S1 -> EE. 768 threads: 2 per SM fit (R2), blocks 0,2 on
 *         SM0 and 1,3 on SM1; blocks 4,5 wait. K2, C2o, C3i, K3, C3o queue
 *         behind K1 in S1 (G1).
 *  t=0.2  K4 -> EE behind K1; X1 keeps it off the SMs.
 *  t=0.4  K5 -> EE behind K4; C5o behind K5 in S3.
 *  t=1    K1's first four end: blocks 4 (SM0), 5 (SM1) start; K1 fully
 *         dispatched, leaves EE (G3). K4 (32KB each): 2 per SM by shared
 *         memory, blocks 0..3 on SM0,SM1,SM0,SM1. K5 blocked by smem (R3).
 *  t=2    K1 and K4 end. K1 leaves S1 (G4), K2 -> EE behind K5. K5 starts
 *         (SM0, SM1), then K2 (SM0, SM1).
 *  t=2.8  K6 issued, S2 empty, EE empty: starts at once on SM0, SM1.
 *  t=3    K5 ends first (its blocks were scheduled first): C5o -> CE and
 *         starts (C1-C3); then K2 ends: C2o waits in the CE queue.
 *  t=3.2  C5o done; C2o starts.   t=3.4 C2o done; C3i starts.
 *  t=3.6  C3i done: K3 -> EE, starts on SM0, SM1 (beside K6's blocks).
 *  t=3.8  K6 ends; C6o heads S2 and starts on the idle CE (3.8-4.0).
 *  t=4.6  K3 ends; C3o 4.6-4.8.
 * Fig. 4's insets are at 1.1, 2.1, 3.0, 3.32 and 4.0 s on Fig. 3's axis,
 * TX2_FIG3_D later than these times (test_sim_util.h). */
static void test_tx2_fig3(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_fig3(&b);
    tb_run(&b, &t);
    assert_int_equal(t.blocks.n, 18);
    assert_int_equal(t.copies.n, 5);
    assert_string_equal(t.source, "simulation");
    assert_true(t.has_device);
    assert_int_equal(t.device.sms, 2);

    /* R2: four K1 blocks at 0 (two per SM), two at 1 s */
    static const int k1_sm[6] = { 0, 1, 0, 1, 0, 1 };
    for (int i = 0; i < 6; i++) {
        assert_int_equal(blk(&t, "K1", i)->start, i < 4 ? 0 : SEC);
        assert_int_equal(blk(&t, "K1", i)->sm, k1_sm[i]);
    }
    assert_int_equal(kern(&t, "K1")->fully_dispatched, SEC);
    assert_int_equal(kern(&t, "K1")->end, 2 * SEC);

    /* X1: no K4 block before K1 is fully dispatched, though it would fit */
    assert_int_equal(kern(&t, "K4")->first_block, kern(&t, "K1")->fully_dispatched);
    static const int k4_sm[4] = { 0, 1, 0, 1 };
    for (int i = 0; i < 4; i++) assert_int_equal(blk(&t, "K4", i)->sm, k4_sm[i]);

    /* R3: K5 needs K4's shared memory back: it starts when K4 ends, at 2 s */
    assert_int_equal(kern(&t, "K4")->end, 2 * SEC);
    assert_int_equal(kern(&t, "K5")->first_block, 2 * SEC);
    assert_int_equal(kern(&t, "K2")->first_block, 2 * SEC);
    assert_int_equal(kern(&t, "K6")->first_block, 2800 * MS);

    /* copies: C5o first, then C2o, C3i, C6o, C3o, one at a time */
    const trace_copy *c5o = copy_named(&t, "C5o"), *c2o = copy_named(&t, "C2o");
    const trace_copy *c3i = copy_named(&t, "C3i"), *c6o = copy_named(&t, "C6o");
    const trace_copy *c3o = copy_named(&t, "C3o");
    assert_int_equal(c5o->start, 3 * SEC);
    assert_int_equal(c5o->end, 3200 * MS);
    assert_int_equal(c2o->start, 3200 * MS);
    assert_int_equal(c3i->start, 3400 * MS);
    assert_int_equal(c6o->issue, 2800 * MS);
    assert_int_equal(c6o->start, 3800 * MS);
    assert_int_equal(c3o->start, 4600 * MS);
    assert_int_equal(c3o->end, 4800 * MS);
    assert_true(c5o->start < c2o->start);
    for (size_t i = 0; i < t.copies.n; i++) {
        assert_int_equal(t.copies.v[i].engine, 0);
        assert_int_equal(t.copies.v[i].end - t.copies.v[i].start, 200 * MS);
        for (size_t j = 0; j < t.copies.n; j++) {
            if (i == j) continue;
            const trace_copy *x = &t.copies.v[i], *y = &t.copies.v[j];
            assert_true(x->end <= y->start || y->end <= x->start);
        }
    }

    /* K3 only after C2o and C3i (stream FIFO) */
    assert_int_equal(kern(&t, "K3")->first_block, 3600 * MS);
    assert_true(kern(&t, "K3")->first_block >= c2o->end);
    assert_true(kern(&t, "K3")->first_block >= c3i->end);
    assert_int_equal(blk(&t, "K3", 0)->sm, 0);
    assert_int_equal(blk(&t, "K3", 1)->sm, 1);

    /* threads <= 2048, smem <= 64KB (and every other limit) at all times */
    assert_int_equal(check_sm_limits(&t), 18);

    /* queues rebuilt from the queue events, at Fig. 4's instants */
    const int64_t D = TX2_FIG3_D;
    char q[256];
    queue_at(&t, "ee:P0:low", 1100 * MS - D, q, sizeof q);   /* (a): K1 not yet fully dispatched */
    assert_string_equal(q, "K1 K4 K5");
    queue_at(&t, "ee:P0:low", 2100 * MS - D, q, sizeof q);   /* (b): K1 and K4 left */
    assert_string_equal(q, "K5");
    queue_at(&t, "stream:P0/S1", 2100 * MS - D, q, sizeof q);
    assert_string_equal(q, "K1 K2 C2o C3i K3 C3o");
    queue_at(&t, "ce", 3320 * MS - D, q, sizeof q);          /* (d): C5o on the CE, C2o waits */
    assert_string_equal(q, "C2o");
    queue_at(&t, "stream:P0/S3", 3320 * MS - D, q, sizeof q);
    assert_string_equal(q, "C5o");
    queue_at(&t, "ce", 4000 * MS - D, q, sizeof q);          /* (e): CE queue empty */
    assert_string_equal(q, "");
    queue_at(&t, "ee:P0:low", 4000 * MS - D, q, sizeof q);
    assert_string_equal(q, "");
    queue_at(&t, "stream:P0/S2", 4000 * MS - D, q, sizeof q); /* (e): C6o blocked behind K6 */
    assert_string_equal(q, "K6 C6o");
    queue_at(&t, "stream:P0/S1", 6 * SEC, q, sizeof q);
    assert_string_equal(q, "");
    trace_free(&t);
}

/* ---- TX2 Table 2 / Fig. 5: the NULL stream ------------------------------------
 *  t=0    K1 (S1): blocks 0-3 start, 4,5 at 1 s; K1 ends at 2 s.
 *  t=0.2  K2 (NULL): N1 holds it, S1's head K1 was launched before it.
 *         K3 (S2, issued after K2 at the same time): N2 holds it.
 *  t=2    K1 done: K2 -> EE, runs 2-3 s (one 1024-thread block, SM0).
 *  t=3    K2 done; NULL head is now K5 (launched 0.6 s): K3 (0.2 s) may go
 *         (N2), runs 3-4; K6 (0.8 s) may not; K5 may not (N1: S2's head
 *         K3 is older).
 *  t=4    K3 done: K4 (0.4 s, older than K5) goes, 4-5.
 *  t=5    S2 empty, S3's head K6 is younger: K5 goes (N1), 5-6.
 *  t=6    K5 done: K6 goes, 6-7. */
static void test_tx2_fig5_null_stream(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t nul = tb_stream(&b, "null", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    int32_t s3 = tb_stream(&b, "S3", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 6, 768, 0, SEC);
    tb_kernel(&b, "K2", nul, 200 * MS, 1, 1024, 0, SEC);
    tb_kernel(&b, "K3", s2, 200 * MS, 4, 256, 0, SEC);
    tb_kernel(&b, "K4", s2, 400 * MS, 4, 256, 0, SEC);
    tb_kernel(&b, "K5", nul, 600 * MS, 1, 1024, 0, SEC);
    tb_kernel(&b, "K6", s3, 800 * MS, 2, 256, 0, SEC);
    tb_run(&b, &t);
    static const char *names[6] = { "K1", "K2", "K3", "K4", "K5", "K6" };
    static const int64_t start[6] = { 0, 2 * SEC, 3 * SEC, 4 * SEC, 5 * SEC, 6 * SEC };
    for (int i = 0; i < 6; i++) {
        assert_int_equal(kern(&t, names[i])->first_block, start[i]);
        assert_int_equal(kern(&t, names[i])->end, i == 0 ? 2 * SEC : start[i] + SEC);
    }
    assert_int_equal(blk(&t, "K1", 4)->start, SEC);
    assert_int_equal(blk(&t, "K2", 0)->sm, 0);
    assert_int_equal(kern(&t, "K6")->issue, 800 * MS);
    /* the NULL-stream kernels reach the EE queue only when their turn comes */
    char q[64];
    queue_at(&t, "ee:P0:low", 2500 * MS, q, sizeof q);
    assert_string_equal(q, "");
    queue_at(&t, "stream:P0/null", 2500 * MS, q, sizeof q);
    assert_string_equal(q, "K2 K5");
    assert_string_equal(queue_of(&t, "K2", "ee:"), "ee:P0:low");
    check_sm_limits(&t);
    trace_free(&t);
}

/* ---- TX2 Table 3 / Fig. 6: a high-priority stream starves a low one -------
 * 1024-thread blocks: 2 per SM, 4 on the GPU at a time.
 *  t=0    K1 (low): blocks 0-3 start.
 *  t=0.2  K2 (high) -> ee:P0:high; A2 now stops K1's head.
 *  t=0.5  K1's blocks end; K3 (high) issued behind K2. K2 takes all 4
 *         slots at 0.5, 1.0, 1.5, 2.0 (fully dispatched at 2.0).
 *  t=2.5  K3 the same: 2.5, 3.0, 3.5, 4.0; ee:P0:high empty at 4.0 but the
 *         SMs are full.
 *  t=4.5  K1's blocks 4-7 at last; K1 ends at 5.0. */
static void test_tx2_fig6_priority_starvation(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", 0);
    int32_t s2 = tb_stream(&b, "S2", "P0", -1);
    int32_t s3 = tb_stream(&b, "S3", "P0", -1);
    tb_kernel(&b, "K1", s1, 0, 8, 1024, 0, 500 * MS);
    tb_kernel(&b, "K2", s2, 200 * MS, 16, 1024, 0, 500 * MS);
    tb_kernel(&b, "K3", s3, 500 * MS, 16, 1024, 0, 500 * MS);
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "K1")->first_block, 0);
    assert_int_equal(kern(&t, "K2")->first_block, 500 * MS);
    assert_int_equal(kern(&t, "K2")->fully_dispatched, 2000 * MS);
    assert_int_equal(kern(&t, "K2")->end, 2500 * MS);
    assert_int_equal(kern(&t, "K3")->first_block, 2500 * MS);
    assert_int_equal(kern(&t, "K3")->fully_dispatched, 4000 * MS);
    assert_int_equal(kern(&t, "K3")->end, 4500 * MS);
    for (int i = 0; i < 8; i++) assert_int_equal(blk(&t, "K1", i)->start, i < 4 ? 0 : 4500 * MS);
    assert_int_equal(kern(&t, "K1")->end, 5000 * MS);
    assert_string_equal(queue_of(&t, "K2", "ee:"), "ee:P0:high");
    assert_string_equal(queue_of(&t, "K1", "ee:"), "ee:P0:low");
    trace_free(&t);
}

/* ---- TX2 Table 4 / Fig. 7: none shares the low level -----------------------
 * none and low are one EE queue, in issue order (§4.2).
 *  t=0    K1 (low): blocks 0-3, 0-0.5.   t=0.2 K2 (none) -> ee low behind K1.
 *  t=0.3  K3 (high) -> ee high.
 *  t=0.5  K3 takes the SMs (A2): 0.5 and 1.0; ee high empty at 1.0.
 *  t=1.2  K4 (low) -> ee low behind K1, K2.
 *  t=1.5  K3 done; K1 resumes (blocks 4-7), not K2: same level, K1 is the
 *         head (X1). K1 ends 2.0.
 *  t=2.0  K2 (2.0, 2.5), then K4 (3.0, 3.5): launch order. */
static void test_tx2_fig7_none_is_low(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", 0);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    int32_t s3 = tb_stream(&b, "S3", "P0", -1);
    int32_t s4 = tb_stream(&b, "S4", "P0", 0);
    tb_kernel(&b, "K1", s1, 0, 8, 1024, 0, 500 * MS);
    tb_kernel(&b, "K2", s2, 200 * MS, 8, 1024, 0, 500 * MS);
    tb_kernel(&b, "K3", s3, 300 * MS, 8, 1024, 0, 500 * MS);
    tb_kernel(&b, "K4", s4, 1200 * MS, 8, 1024, 0, 500 * MS);
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "K1")->first_block, 0);
    assert_int_equal(kern(&t, "K3")->first_block, 500 * MS);
    assert_int_equal(kern(&t, "K3")->end, 1500 * MS);
    assert_int_equal(blk(&t, "K1", 4)->start, 1500 * MS);
    assert_int_equal(kern(&t, "K1")->end, 2000 * MS);
    assert_int_equal(kern(&t, "K2")->first_block, 2000 * MS);
    assert_int_equal(kern(&t, "K2")->fully_dispatched, 2500 * MS);
    assert_int_equal(kern(&t, "K4")->first_block, 3000 * MS);
    assert_int_equal(kern(&t, "K4")->end, 4000 * MS);
    assert_string_equal(queue_of(&t, "K2", "ee:"), "ee:P0:low");
    assert_string_equal(queue_of(&t, "K4", "ee:"), "ee:P0:low");
    assert_string_equal(queue_of(&t, "K3", "ee:"), "ee:P0:high");
    assert_int_equal(kern(&t, "K2")->priority, SIM_PRIO_NONE);
    char q[64];
    queue_at(&t, "ee:P0:low", 1300 * MS, q, sizeof q);
    assert_string_equal(q, "K1 K2 K4");
    trace_free(&t);
}

/* ---- TX2 Table 5 / Fig. 8: priorities under resource blocking --------------
 * 512-thread blocks, most-room on 2 SMs:
 *  K1..K7 at 0, 0.1, ..., 0.6 go to SM 0,1,0,1,0,1,0 (the SM with more room,
 *  SM0 on ties): SM0 full, SM1 has 512 threads free.
 *  t=0.65 K8 (high, 1024 threads) fits nowhere.   t=0.7 K9 (low, 512) would
 *         fit SM1 but A2 holds it behind the non-empty high queue.
 *  t=1.0  K1 ends: 512 free on each SM; K8 still fits nowhere (a block runs on
 *         one SM); K9 still held.
 *  t=1.1  K2 ends: 1024 free on SM1: K8 -> SM1, then K9 -> SM0. */
static void test_tx2_fig8_priority_blocking(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    static const char *sn[9] = { "S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9" };
    static const char *kn[9] = { "K1", "K2", "K3", "K4", "K5", "K6", "K7", "K8", "K9" };
    int32_t s[9];
    for (int i = 0; i < 9; i++) s[i] = tb_stream(&b, sn[i], "P0", i == 7 ? -1 : 0);
    for (int i = 0; i < 7; i++) tb_kernel(&b, kn[i], s[i], i * 100 * MS, 1, 512, 0, SEC);
    tb_kernel(&b, "K8", s[7], 650 * MS, 1, 1024, 0, 500 * MS);
    tb_kernel(&b, "K9", s[8], 700 * MS, 1, 512, 0, SEC);
    tb_run(&b, &t);
    static const int sm[7] = { 0, 1, 0, 1, 0, 1, 0 };
    for (int i = 0; i < 7; i++) {
        assert_int_equal(kern(&t, kn[i])->first_block, i * 100 * MS);
        assert_int_equal(blk(&t, kn[i], 0)->sm, sm[i]);
    }
    assert_int_equal(kern(&t, "K8")->first_block, 1100 * MS);
    assert_int_equal(blk(&t, "K8", 0)->sm, 1);
    assert_int_equal(kern(&t, "K9")->first_block, 1100 * MS);
    assert_int_equal(blk(&t, "K9", 0)->sm, 0);
    check_sm_limits(&t);
    trace_free(&t);
}

/* ---- TX2 §4.2: only two priority levels -----------------------------------
 * "On the TX2, [cudaDeviceGetStreamPriorityRange] returns only two priority
 * values: -1 (priority-high) and 0 (priority-low)"; a priority outside that
 * range "is automatically clamped" to its nearer end (CUDA Runtime API,
 * cudaDeviceGetStreamPriorityRange / cudaStreamCreateWithPriority). So on
 * the TX2 -2 is -1 and 5 is 0, and kernels of those streams share an EE
 * queue (A1) in issue order. 1024-thread blocks, 4 per kernel: one kernel
 * fills the TX2.
 *  t=0    K0 (low) fills the GPU until 1 s.
 *  t=0.1  K1 (-1), 0.2 K2 (-2 = -1): ee high, K1 then K2.
 *  t=0.3  K3 (5 = 0), 0.4 K4 (0): ee low behind K0, K3 then K4.
 *  t=1    K1 (A2: high before low; X1: K1 heads the high queue), 2 K2,
 *         3 K3, 4 K4. Unclamped, -2 would be a third, higher level (K2
 *         before K1) and 5 a lower one than 0 (K4 before K3). */
static void test_tx2_priorities_clamped(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    int32_t s0 = tb_stream(&b, "S0", "P0", 0);
    int32_t s1 = tb_stream(&b, "S1", "P0", -1);
    int32_t s2 = tb_stream(&b, "S2", "P0", -2);
    int32_t s3 = tb_stream(&b, "S3", "P0", 5);
    int32_t s4 = tb_stream(&b, "S4", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K0", s0, 0, 4, 1024, 0, SEC);
    tb_kernel(&b, "K1", s1, 100 * MS, 4, 1024, 0, SEC);
    tb_kernel(&b, "K2", s2, 200 * MS, 4, 1024, 0, SEC);
    tb_kernel(&b, "K3", s3, 300 * MS, 4, 1024, 0, SEC);
    tb_kernel(&b, "K4", s4, 400 * MS, 4, 1024, 0, SEC);
    tb_run(&b, &t);
    static const char *names[5] = { "K0", "K1", "K2", "K3", "K4" };
    for (int i = 0; i < 5; i++) assert_int_equal(kern(&t, names[i])->first_block, i * SEC);
    assert_string_equal(queue_of(&t, "K2", "ee:"), "ee:P0:high");
    assert_string_equal(queue_of(&t, "K3", "ee:"), "ee:P0:low");
    assert_string_equal(queue_of(&t, "K4", "ee:"), "ee:P0:low");
    /* the stream's priority as the hardware reports it (cudaStreamGetPriority
     * returns the clamped value); none stays none */
    assert_int_equal(kern(&t, "K2")->priority, -1);
    assert_int_equal(kern(&t, "K3")->priority, 0);
    assert_int_equal(kern(&t, "K4")->priority, SIM_PRIO_NONE);
    trace_free(&t);

    /* a device of unknown priority range (greatest_priority 0) takes the
     * priorities as given: -2 above -1, 5 below 0 (and none with 5) */
    tb_init(&b, "tx2");
    b.cfg.device.greatest_priority = 0;
    s0 = tb_stream(&b, "S0", "P0", 0);
    s1 = tb_stream(&b, "S1", "P0", -1);
    s2 = tb_stream(&b, "S2", "P0", -2);
    s3 = tb_stream(&b, "S3", "P0", 5);
    tb_kernel(&b, "K0", s0, 0, 4, 1024, 0, SEC);
    tb_kernel(&b, "K1", s1, 100 * MS, 4, 1024, 0, SEC);
    tb_kernel(&b, "K2", s2, 200 * MS, 4, 1024, 0, SEC);
    tb_kernel(&b, "K3", s3, 300 * MS, 4, 1024, 0, SEC);
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "K2")->first_block, SEC);
    assert_int_equal(kern(&t, "K1")->first_block, 2 * SEC);
    assert_int_equal(kern(&t, "K3")->first_block, 3 * SEC);
    trace_free(&t);
}

/* ---- the H100's six priority levels -------------------------------------
 * cudaDeviceGetStreamPriorityRange on the H100 SXM5 (and the H200) we
 * recorded: "least 0 greatest -5" (tests/fixtures/h100/probe.txt,
 * tests/fixtures/h200/probe.txt, schedlab-play --probe), and CUDA clamps a
 * priority outside it to the nearer end (cudaStreamCreateWithPriority).
 * 264 blocks of 1024 threads fill the 132 SMs (two per SM, 2048 threads).
 *  t=0    K0 (0) fills the GPU until 1 s.
 *  t=0.1  K1 (-5), 0.2 K2 (-7 = -5): one level, K1 then K2 (X1);
 *  t=0.3  K3 (-4), a level below theirs.
 *  t=1    K1, 2 K2, 3 K3 (A2: the highest level first). Unclamped, -7
 *         would be a level above -5: K2 at 1 s, K1 at 2 s. */
static void test_h100_priorities_clamped(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "h100");
    int32_t s0 = tb_stream(&b, "S0", "P0", 0);
    int32_t s1 = tb_stream(&b, "S1", "P0", -5);
    int32_t s2 = tb_stream(&b, "S2", "P0", -7);
    int32_t s3 = tb_stream(&b, "S3", "P0", -4);
    tb_kernel(&b, "K0", s0, 0, 264, 1024, 0, SEC);
    tb_kernel(&b, "K1", s1, 100 * MS, 264, 1024, 0, SEC);
    tb_kernel(&b, "K2", s2, 200 * MS, 264, 1024, 0, SEC);
    tb_kernel(&b, "K3", s3, 300 * MS, 264, 1024, 0, SEC);
    tb_run(&b, &t);
    static const char *names[4] = { "K0", "K1", "K2", "K3" };
    for (int i = 0; i < 4; i++) assert_int_equal(kern(&t, names[i])->first_block, i * SEC);
    assert_int_equal(kern(&t, "K2")->priority, -5);
    assert_int_equal(kern(&t, "K3")->priority, -4);
    trace_free(&t);
}

/* ---- most-room paper §4.1 / §4.2 (Pascal, 5 SMs) ------------------------------
 * Kernel X: one block per SM, X0 on SM0 ends first (1 s), the others later;
 * Y is issued at 1.5 s when SM0 is empty and SMs 1-4 hold one X block. */
static void mr_pascal(trace *t, int32_t x_threads, int32_t y_threads, const char *policy) {
    tb b;
    tb_init(&b, "pascal-gilman");
    b.cfg.policy.placement = sim_placement_find(policy);
    int32_t sx = tb_stream(&b, "SX", "P0", SIM_PRIO_NONE);
    int32_t sy = tb_stream(&b, "SY", "P0", SIM_PRIO_NONE);
    sim_op *x = tb_kernel(&b, "X", sx, 0, 5, x_threads, 0, SEC);
    static const int64_t xt[5] = { 1 * SEC, 2 * SEC, 3 * SEC, 4 * SEC, 5 * SEC };
    tb_times(&b, x, xt, 5);
    tb_kernel(&b, "Y", sy, 1500 * MS, 3, y_threads, 0, SEC);
    tb_run(&b, t);
    for (int i = 0; i < 5; i++) assert_int_equal(blk(t, "X", i)->sm, i);
    for (int i = 0; i < 3; i++) assert_int_equal(blk(t, "Y", i)->start, 1500 * MS);
}

static void assert_y_sms(const trace *t, int a, int b, int c) {
    assert_int_equal(blk(t, "Y", 0)->sm, a);
    assert_int_equal(blk(t, "Y", 1)->sm, b);
    assert_int_equal(blk(t, "Y", 2)->sm, c);
}

/* §4.1: 160-thread Y. SM0 fits 12 (2048/160), the others 11 (1792/160):
 * Y0 -> SM0; SM0 then fits 11 (1888/160), a tie won by SM0; then 10
 * (1728/160) < 11: Y2 -> SM1. Round-robin continues after SM4: 0, 1, 2. */
static void test_most_room_4_1(void **state) {
    (void)state;
    trace t;
    mr_pascal(&t, 256, 160, "most-room");
    assert_y_sms(&t, 0, 0, 1);
    trace_free(&t);
    mr_pascal(&t, 256, 160, "round-robin");
    assert_y_sms(&t, 0, 1, 2);
    trace_free(&t);
}

/* §4.2: X has 1024 threads. 32-thread Y: limited by blocks per SM (32 on
 * SM0, 31 elsewhere): 0, 0, 1. 33-thread Y takes 2 warps: SM0 fits 32, the
 * others 16 (32 free warps / 2): 0, 0, 0. Round-robin: 0, 1, 2 both times. */
static void test_most_room_4_2(void **state) {
    (void)state;
    trace t;
    mr_pascal(&t, 1024, 32, "most-room");
    assert_y_sms(&t, 0, 0, 1);
    trace_free(&t);
    mr_pascal(&t, 1024, 33, "most-room");
    assert_y_sms(&t, 0, 0, 0);
    trace_free(&t);
    mr_pascal(&t, 1024, 33, "round-robin");
    assert_y_sms(&t, 0, 1, 2);
    trace_free(&t);
}

/* ---- most-room paper §5.1 (Turing RTX 2080 Ti, evens-then-odds) ---------------
 * Kernel A: 67 blocks of 512 threads, one per SM in the order 0, 2, ..., 66,
 * 1, ..., 65 (each SM fits 2, so the next goes to the next emptiest), SM67
 * left empty. Kernel B issued at 1 s. */
static void mr_turing(trace *t, int64_t b_blocks, int32_t b_threads, const char *policy) {
    tb b;
    tb_init(&b, "rtx2080ti");
    b.cfg.policy.placement = sim_placement_find(policy);
    int32_t sa = tb_stream(&b, "SA", "P0", SIM_PRIO_NONE);
    int32_t sb = tb_stream(&b, "SB", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "A", sa, 0, 67, 512, 0, 10 * SEC);
    tb_kernel(&b, "B", sb, SEC, b_blocks, b_threads, 0, SEC);
    tb_run(&b, t);
    for (int i = 0; i < 67; i++) assert_int_equal(blk(t, "A", i)->sm, i < 34 ? 2 * i : 2 * (i - 34) + 1);
}

/* B = 8 x 33: SM67 fits 16 (32 warps / 2), the others 8 (16 warps / 2):
 * all eight blocks on SM67 (16..9 > 8). */
static void test_most_room_5_1_isolated(void **state) {
    (void)state;
    trace t;
    mr_turing(&t, 8, 33, "most-room");
    for (int i = 0; i < 8; i++) assert_int_equal(blk(&t, "B", i)->sm, 67);
    trace_free(&t);
}

/* B = 8 x 32: SM67 fits 16 (blocks per SM), the others 15: B0 -> SM67,
 * then every SM ties at 15: evens-then-odds order 0, 2, 4, ... */
static void test_most_room_5_1_colocated(void **state) {
    (void)state;
    trace t;
    mr_turing(&t, 8, 32, "most-room");
    static const int sm[8] = { 67, 0, 2, 4, 6, 8, 10, 12 };
    for (int i = 0; i < 8; i++) assert_int_equal(blk(&t, "B", i)->sm, sm[i]);
    trace_free(&t);
}

/* B = 9 x 33: after eight on SM67 it fits 8, as do the others: the ninth
 * goes to the first in order, SM0. */
static void test_most_room_5_1_nine(void **state) {
    (void)state;
    trace t;
    mr_turing(&t, 9, 33, "most-room");
    int off = 0;
    for (int i = 0; i < 9; i++)
        if (blk(&t, "B", i)->sm != 67) {
            off++;
            assert_int_equal(i, 8);
            assert_int_equal(blk(&t, "B", i)->sm, 0);
        }
    assert_int_equal(off, 1);
    trace_free(&t);
}

/* Round-robin on the same workload: A ends its turn on rank 66 (SM65), so
 * B goes to SM67, then wraps to 0, 2, 4, ...: it never isolates B. */
static void test_round_robin_5_1(void **state) {
    (void)state;
    trace t;
    mr_turing(&t, 8, 33, "round-robin");
    static const int sm[8] = { 67, 0, 2, 4, 6, 8, 10, 12 };
    for (int i = 0; i < 8; i++) assert_int_equal(blk(&t, "B", i)->sm, sm[i]);
    trace_free(&t);
}

/* ---- copy engines, host syncs, latencies ----------------------------------- */

/* Two engines: h2d and d2h overlap, two h2d copies queue on engine 0. */
static void test_two_copy_engines(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "pascal-gilman");
    b.cfg.device.copy_bandwidth = 1e9;   /* 1 byte per ns */
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    int32_t s3 = tb_stream(&b, "S3", "P0", SIM_PRIO_NONE);
    tb_copy(&b, "A", s1, 0, 1000, TRACE_COPY_H2D);
    tb_copy(&b, "B", s2, 0, 500, TRACE_COPY_D2H);
    tb_copy(&b, "C", s3, 10, 300, TRACE_COPY_H2D);
    tb_run(&b, &t);
    const trace_copy *a = copy_named(&t, "A"), *bb = copy_named(&t, "B"), *c = copy_named(&t, "C");
    assert_int_equal(a->engine, 0);
    assert_int_equal(a->start, 0);
    assert_int_equal(a->end, 1000);
    assert_int_equal(bb->engine, 1);
    assert_int_equal(bb->start, 0);
    assert_int_equal(bb->end, 500);
    assert_int_equal(c->engine, 0);
    assert_int_equal(c->start, 1000);
    assert_int_equal(c->end, 1300);
    assert_string_equal(queue_of(&t, "B", "ce"), "ce:1");
    assert_string_equal(queue_of(&t, "C", "ce"), "ce:0");
    trace_free(&t);
}

/* Copies an engine runs at once (ce.c in_flight_max): one by default (TX2
 * paper §2.2), device.copies_in_flight for pageable staging (the GTX 950
 * trace: three 19.07 MB HtoD copies at once); here 1, then 2: three copies
 * one after another, then two at once and the third when the shorter of
 * them ends. A host-to-host copy (or a memset) is no engine copy: it holds
 * its stream for its measured duration and waits behind no copy. */
static void test_copies_in_flight(void **state) {
    (void)state;
    for (int32_t fl = 1; fl <= 2; fl++) {
        tb b;
        trace t;
        tb_init(&b, "pascal-gilman");
        b.cfg.device.copy_bandwidth = 1e9;   /* 1 byte per ns */
        b.cfg.device.copies_in_flight = fl;
        int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
        int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
        int32_t s3 = tb_stream(&b, "S3", "P0", SIM_PRIO_NONE);
        int32_t s4 = tb_stream(&b, "S4", "P0", SIM_PRIO_NONE);
        tb_copy(&b, "A", s1, 0, 1000, TRACE_COPY_H2D);
        tb_copy(&b, "B", s2, 0, 500, TRACE_COPY_H2D);
        tb_copy(&b, "C", s3, 0, 300, TRACE_COPY_H2D);
        tb_copy(&b, "H", s4, 0, 0, TRACE_COPY_H2H)->duration = 700;
        tb_run(&b, &t);
        const trace_copy *a = copy_named(&t, "A"), *bb = copy_named(&t, "B"),
                         *c = copy_named(&t, "C"), *h = copy_named(&t, "H");
        assert_int_equal(a->start, 0);
        assert_int_equal(bb->start, fl == 1 ? 1000 : 0);
        assert_int_equal(c->start, fl == 1 ? 1500 : 500);
        assert_int_equal(c->end, fl == 1 ? 1800 : 800);
        assert_int_equal(h->engine, -1);
        assert_int_equal(h->start, 0);
        assert_int_equal(h->end, 700);
        trace_free(&t);
    }
}

/* EE queue names (qnames.c): "high"/"low" where the priorities are the
 * TX2's two levels (0 and -1), else the priority's number (the
 * device's range clamps it first: sim.c stream_priority); a process name
 * longer than the stack buffer is kept whole. */
static void test_queue_names(void **state) {
    (void)state;
    char longp[3001];
    memset(longp, 'p', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    tb b;
    trace t;
    tb_init(&b, "tx2");
    b.cfg.device.greatest_priority = -5;   /* -5..0: no longer the TX2's two levels */
    int32_t s1 = tb_stream(&b, "S1", "P0", -2);
    int32_t s2 = tb_stream(&b, "S2", longp, SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 1, 256, 0, MS);
    tb_kernel(&b, "K2", s2, 0, 1, 256, 0, MS);
    tb_run(&b, &t);
    assert_string_equal(queue_of(&t, "K1", "ee"), "ee:P0:-2");
    char want[3100];
    snprintf(want, sizeof want, "stream:%s/S2", longp);
    assert_string_equal(queue_of(&t, "K2", "stream"), want);
    trace_free(&t);
}

/* H100-W1 (sms.h; the H200 probes, test_h200_probes.c): a grid smaller
 * than the GPU goes to the first n SMs of the device's wave order, one
 * block each. Most-room places such a kernel block by block even where
 * cohorts are asked for (most_room.c: a preferred wave is no fixed
 * visiting order), so the run with cohorts puts every block where the
 * run without them does. */
static void test_wave_order_with_cohorts(void **state) {
    (void)state;
    for (int co = 0; co <= 1; co++) {
        tb b;
        trace t;
        tb_init(&b, "h100");
        b.cfg.cohorts = co;
        b.cfg.device.nsmem_carveouts = 0;   /* H100-C1's carveouts rule cohorts out (cohort.c) */
        int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
        tb_kernel(&b, "K", s1, 0, 44, 1024, 0, MS);
        assert_true(sim_cohorts_apply(tb_config(&b)) == co);
        tb_run(&b, &t);
        const sim_device *d = &b.cfg.device;
        assert_true(d->nwave_order == 132);
        assert_int_equal(t.blocks.n, 44);
        for (size_t i = 0; i < t.blocks.n; i++) {
            int32_t sm = t.blocks.v[i].sm, w = 0;
            while (w < 44 && d->wave_order[w] != sm) w++;
            if (w == 44) fail_msg("cohorts %d: block %zu on SM %d, outside the wave's first 44", co,
                                  i, (int)sm);
        }
        trace_free(&t);
    }
}

/* A sync holds the host's later ops of its stream until the stream's earlier
 * work is done; other streams are not held. */
static void test_host_sync(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 1, 256, 0, SEC);
    tb_op(&b, SIM_OP_SYNC, "sync1", s1, 100 * MS);
    tb_kernel(&b, "K2", s1, 500 * MS, 1, 256, 0, SEC);
    tb_kernel(&b, "K3", s2, 500 * MS, 1, 256, 0, SEC);
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "K2")->issue, SEC);
    assert_int_equal(kern(&t, "K2")->first_block, SEC);
    assert_int_equal(kern(&t, "K3")->issue, 500 * MS);
    assert_int_equal(kern(&t, "K3")->first_block, 500 * MS);
    char q[64];
    queue_at(&t, "stream:P0/S1", 600 * MS, q, sizeof q);
    assert_string_equal(q, "K1 sync1");
    queue_at(&t, "stream:P0/S1", SEC, q, sizeof q);
    assert_string_equal(q, "K2");
    trace_free(&t);
}

static void test_latencies(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    b.cfg.policy.launch_latency = 5000;
    b.cfg.policy.dispatch_latency = 100;
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 3, 256, 0, 1000);
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "K1")->issue, 0);
    assert_int_equal(blk(&t, "K1", 0)->start, 5100);
    assert_int_equal(blk(&t, "K1", 1)->start, 5200);
    assert_int_equal(blk(&t, "K1", 2)->start, 5300);
    assert_int_equal(kern(&t, "K1")->fully_dispatched, 5300);
    assert_int_equal(kern(&t, "K1")->end, 6300);
    trace_free(&t);
}

/* An op's own launch_latency (docs/scenario-format.md, ops: "for this op
 * alone, default the policy's"; what a replay writes for work issued
 * before its trace's start) replaces the policy's for that op only: with
 * a policy latency of 5 us, K1 (its own) enters its stream at 1 us, K3
 * (its own 8 us) at 8 us, K2 (none) at 5 us. No dispatch latency: each
 * one's block starts as it arrives (three streams, room for all). */
static void test_op_own_latency(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    b.cfg.policy.launch_latency = 5000;
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    int32_t s3 = tb_stream(&b, "S3", "P0", SIM_PRIO_NONE);
    sim_op *k1 = tb_kernel(&b, "K1", s1, 0, 1, 256, 0, 1000);
    k1->own_latency = true;
    k1->launch_latency = 1000;
    tb_kernel(&b, "K2", s2, 0, 1, 256, 0, 1000);
    sim_op *k3 = tb_kernel(&b, "K3", s3, 0, 1, 256, 0, 1000);
    k3->own_latency = true;
    k3->launch_latency = 8000;
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "K1")->issue, 0);
    assert_int_equal(kern(&t, "K1")->first_block, 1000);
    assert_int_equal(kern(&t, "K2")->first_block, 5000);
    assert_int_equal(kern(&t, "K3")->first_block, 8000);
    trace_free(&t);
}

/* Block times cycle by block index. */
static void test_block_time_cycle(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "h100");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    sim_op *k = tb_kernel(&b, "K", s1, 0, 5, 128, 0, 0);
    static const int64_t bt[2] = { 10, 30 };
    tb_times(&b, k, bt, 2);
    tb_run(&b, &t);
    static const int64_t end[5] = { 10, 30, 10, 30, 10 };
    /* empty SMs in the h100 preset's measured order (presets.c) */
    static const int32_t sm[5] = { 124, 125, 126, 127, 128 };
    for (int i = 0; i < 5; i++) {
        assert_int_equal(blk(&t, "K", i)->start, 0);
        assert_int_equal(blk(&t, "K", i)->end, end[i]);
        assert_int_equal(blk(&t, "K", i)->sm, sm[i]);
    }
    trace_free(&t);
}

/* ---- pinned before the seams refactor (issue 7) ------------------------------
 * Each test below is one that a mutant of tests/mutation/mutants.txt breaks
 * (named next to it); the unit tests let those mutants through before. */

/* N2 variant of Fig. 5: one NULL-stream kernel holds three streams, which
 * the config lists in the opposite order to their launches (S1, S2, S3 vs
 * K4, K3, K2). Every kernel fills the TX2 (4 x 1024 threads, 2 per SM).
 *  t=0    K1 (NULL) -> EE, runs 0-1 s.
 *  t=0.1  K2 (S3), 0.2 K3 (S2), 0.3 K4 (S1): N2 holds each in its stream.
 *  t=1    K1 done: all three heads may move at once; they reach ee:P0:low
 *         in launch order K2, K3, K4 (not config order), so they run
 *         1-2, 2-3, 3-4 s.
 * Mutants: settle-config-order, settle-latest-first. */
static void test_tx2_n2_release_in_launch_order(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    int32_t s3 = tb_stream(&b, "S3", "P0", SIM_PRIO_NONE);
    int32_t nul = tb_stream(&b, "null", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", nul, 0, 4, 1024, 0, SEC);
    tb_kernel(&b, "K2", s3, 100 * MS, 4, 1024, 0, SEC);
    tb_kernel(&b, "K3", s2, 200 * MS, 4, 1024, 0, SEC);
    tb_kernel(&b, "K4", s1, 300 * MS, 4, 1024, 0, SEC);
    tb_run(&b, &t);
    char q[64];
    queue_at(&t, "ee:P0:low", 500 * MS, q, sizeof q);   /* N2: nothing moved yet */
    assert_string_equal(q, "");
    queue_at(&t, "stream:P0/S3", 500 * MS, q, sizeof q);
    assert_string_equal(q, "K2");
    /* the enqueues on the EE queue at 1 s, in the order they happened */
    q[0] = '\0';
    for (size_t i = 0; i < t.queue_events.n; i++) {
        const trace_queue_event *e = &t.queue_events.v[i];
        if (e->t != SEC || e->event != TRACE_ENQUEUE ||
            strcmp(trace_str_get(&t, e->queue), "ee:P0:low") != 0) continue;
        size_t len = strlen(q);
        snprintf(q + len, sizeof q - len, "%s%s", len ? " " : "", trace_str_get(&t, e->item));
    }
    assert_string_equal(q, "K2 K3 K4");
    queue_at(&t, "ee:P0:low", SEC, q, sizeof q);         /* K2 fully dispatched at 1 s */
    assert_string_equal(q, "K3 K4");
    assert_int_equal(kern(&t, "K1")->first_block, 0);
    assert_int_equal(kern(&t, "K2")->first_block, SEC);
    assert_int_equal(kern(&t, "K3")->first_block, 2 * SEC);
    assert_int_equal(kern(&t, "K4")->first_block, 3 * SEC);
    assert_int_equal(kern(&t, "K4")->end, 4 * SEC);
    for (int i = 0; i < 4; i++) assert_int_equal(blk(&t, "K2", i)->sm, i % 2);
    trace_free(&t);
}

/* Two processes, first half of ee_dispatch's documented order: "the process
 * whose eligible kernel reached its EE queue first goes first". P0 is
 * listed (and scanned) first, but P1's KB reached its EE queue first.
 *  t=0    F (P0) fills the TX2 until 1 s.
 *  t=0.1  KB (P1) -> ee:P1:low.   t=0.2 KA (P0) -> ee:P0:low.
 *  t=1    F done: KB takes all four slots (1-2 s), KA waits for them (2-3 s).
 * Both block-scheduler loops (sim_config.general_loop: ee.c with
 * driver_shared.c, and the fused one in ee.h) must keep this order.
 * Mutants: xproc-latest-first, xproc-process-order,
 * xproc-latest-first-general. */
static void test_two_processes_earliest_ee_first(void **state) {
    (void)state;
    for (int general = 0; general < 2; general++) {
        tb b;
        trace t;
        tb_init(&b, "tx2");
        b.cfg.general_loop = general;
        int32_t sf = tb_stream(&b, "SF", "P0", SIM_PRIO_NONE);
        int32_t sa = tb_stream(&b, "SA", "P0", SIM_PRIO_NONE);
        int32_t sb = tb_stream(&b, "SB", "P1", SIM_PRIO_NONE);
        tb_kernel(&b, "F", sf, 0, 4, 1024, 0, SEC);
        tb_kernel(&b, "KB", sb, 100 * MS, 4, 1024, 0, SEC);
        tb_kernel(&b, "KA", sa, 200 * MS, 4, 1024, 0, SEC);
        tb_run(&b, &t);
        assert_string_equal(queue_of(&t, "KB", "ee:"), "ee:P1:low");
        assert_string_equal(queue_of(&t, "KA", "ee:"), "ee:P0:low");
        assert_int_equal(kern(&t, "KB")->first_block, SEC);
        assert_int_equal(kern(&t, "KB")->fully_dispatched, SEC);
        assert_int_equal(kern(&t, "KA")->first_block, 2 * SEC);
        assert_int_equal(kern(&t, "KA")->end, 3 * SEC);
        trace_free(&t);
    }
}

/* Second half: "one that cannot place a block does not hold up the others".
 * F (4 x 768 threads, most-room: two per SM) leaves 512 threads free on each
 * SM until 1 s.
 *  t=0.1  KA (P0, one 1024-thread block) reaches its EE queue first but fits
 *         nowhere until F ends at 1 s.
 *  t=0.2  KB (P1, one 512-thread block) fits: it starts at once on SM0 (both
 *         SMs have room for one; SM0 wins the tie).
 * Within one process the same KB would wait behind KA in the one EE queue
 * (X1) until 1 s: the contrast pins that the skip is per process.
 *  t=1    F ends. Apart: KA -> SM1 (2048 free; SM0 has 1536, KB is on it).
 *         Together: KA -> SM0 (both empty, tie), then KB -> SM1 (4 vs 2).
 * In both block-scheduler loops (sim_config.general_loop).
 * Mutants: xproc-stuck-holds-all, xproc-stuck-holds-all-general. */
static void test_two_processes_stuck_does_not_hold_others(void **state) {
    (void)state;
    for (int run = 0; run < 4; run++) {
        int same = run % 2;
        tb b;
        trace t;
        tb_init(&b, "tx2");
        b.cfg.general_loop = run >= 2;
        int32_t sf = tb_stream(&b, "SF", "P0", SIM_PRIO_NONE);
        int32_t sa = tb_stream(&b, "SA", "P0", SIM_PRIO_NONE);
        int32_t sb = tb_stream(&b, "SB", same ? "P0" : "P1", SIM_PRIO_NONE);
        tb_kernel(&b, "F", sf, 0, 4, 768, 0, SEC);
        tb_kernel(&b, "KA", sa, 100 * MS, 1, 1024, 0, SEC);
        tb_kernel(&b, "KB", sb, 200 * MS, 1, 512, 0, SEC);
        tb_run(&b, &t);
        static const int f_sm[4] = { 0, 1, 0, 1 };
        for (int i = 0; i < 4; i++) assert_int_equal(blk(&t, "F", i)->sm, f_sm[i]);
        assert_int_equal(kern(&t, "KA")->first_block, SEC);
        assert_int_equal(kern(&t, "KB")->first_block, same ? SEC : 200 * MS);
        assert_int_equal(blk(&t, "KB", 0)->sm, same ? 1 : 0);
        assert_int_equal(blk(&t, "KA", 0)->sm, same ? 0 : 1);
        check_sm_limits(&t);
        trace_free(&t);
    }
}

/* Copy times are rounded to the nearest ns, not truncated: at 3 GB/s,
 * 2000 B take 666.67 ns -> 667 and 1000 B take 333.33 ns -> 333. The two
 * copies share a stream, so the second starts when the first ends.
 * Mutants: copy-ns-truncate, copy-ns-ceil. */
static void test_copy_time_rounding(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    b.cfg.device.copy_bandwidth = 3e9;
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    tb_copy(&b, "C1", s1, 0, 2000, TRACE_COPY_H2D);
    tb_copy(&b, "C2", s1, 0, 1000, TRACE_COPY_D2H);
    tb_run(&b, &t);
    assert_int_equal(copy_named(&t, "C1")->start, 0);
    assert_int_equal(copy_named(&t, "C1")->end, 667);
    assert_int_equal(copy_named(&t, "C2")->start, 667);
    assert_int_equal(copy_named(&t, "C2")->end, 1000);
    trace_free(&t);
}

/* Fig. 3's copy rules (C1-C3) with three copies waiting at once, which
 * Fig. 3 itself never has: streams S1..S4 each hold a kernel and then a
 * 256MB D2H copy (0.32 s at the bandwidth set below). The kernels (one
 * 1024-thread block each, all four fit the TX2) end at 1.0, 1.1, 1.2 and
 * 1.25 s, so C1o starts at 1.0 and C2o, C3o, C4o queue on the one CE in that
 * order; they are served FIFO: 1.32, 1.64, 1.96 s, ending 2.28 s.
 * Mutant: ce-lifo. */
static void test_tx2_fig3_ce_queue_fifo(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    b.cfg.device.copy_bandwidth = 256.0 * MIB / 0.32;
    static const char *sn[4] = { "S1", "S2", "S3", "S4" };
    static const char *kn[4] = { "K1", "K2", "K3", "K4" };
    static const char *cn[4] = { "C1o", "C2o", "C3o", "C4o" };
    static const int64_t kt[4] = { 1000 * MS, 1100 * MS, 1200 * MS, 1250 * MS };
    for (int i = 0; i < 4; i++) {
        int32_t s = tb_stream(&b, sn[i], "P0", SIM_PRIO_NONE);
        tb_kernel(&b, kn[i], s, 0, 1, 1024, 0, kt[i]);
        tb_copy(&b, cn[i], s, 0, 256 * MIB, TRACE_COPY_D2H);
    }
    tb_run(&b, &t);
    static const int64_t start[4] = { 1000 * MS, 1320 * MS, 1640 * MS, 1960 * MS };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(kern(&t, kn[i])->end, kt[i]);
        assert_int_equal(copy_named(&t, cn[i])->start, start[i]);
        assert_int_equal(copy_named(&t, cn[i])->end, start[i] + 320 * MS);
        assert_int_equal(copy_named(&t, cn[i])->engine, 0);
    }
    char q[64];
    queue_at(&t, "ce", 1300 * MS, q, sizeof q);     /* C1o on the CE, three wait */
    assert_string_equal(q, "C2o C3o C4o");
    queue_at(&t, "ce", 1320 * MS, q, sizeof q);
    assert_string_equal(q, "C3o C4o");
    trace_free(&t);
}

/* ---- presets, policies, errors ----------------------------------------------- */

static void test_presets(void **state) {
    (void)state;
    static const char *want[] = { "tx2", "pascal-gilman", "v100", "rtx2080ti", "titanv-gpgpusim",
                                  "isca17-gpgpusim", "isca17-gpgpusim-56", "xavier-nx", "orin-nano",
                                  "h100" };
    /* isca17-gpgpusim-56: ISCA'17 §4.6's 56-SM GPU */
    static const int sms[] = { 2, 5, 80, 68, 80, 16, 56, 6, 8, 132 };
    assert_int_equal(sim_preset_count(), 10);
    for (size_t i = 0; i < 10; i++) {
        const sim_device *d = sim_preset_find(want[i]);
        assert_non_null(d);
        assert_ptr_equal(d, sim_preset_at(i));
        assert_int_equal(d->sms, sms[i]);
        assert_true(strlen(sim_preset_source(i)) > 20);
        char err[256];
        assert_int_equal(sim_device_validate(d, err, sizeof err), 0);
        sim_device filled = *d;
        sim_device_fill_order(&filled);
        assert_memory_equal(&filled, d, sizeof filled);   /* the written-out orders are right */
    }
    assert_null(sim_preset_find("gtx480"));
    assert_null(sim_preset_at(10));
    const sim_device *tx2 = sim_preset_find("tx2");
    assert_int_equal(tx2->threads_per_sm, 2048);
    assert_int_equal(tx2->smem_per_sm, 65536);
    assert_int_equal(tx2->max_smem_per_block, 49152);
    assert_int_equal(tx2->copy_engines, 1);
    const sim_device *tu = sim_preset_find("rtx2080ti");
    assert_int_equal(tu->sm_order[33], 66);
    assert_int_equal(tu->sm_order[34], 1);
    assert_int_equal(tu->sm_order[67], 67);
    assert_int_equal(sim_preset_find("h100")->smem_per_sm, 228 * 1024);
}

/* a derived rate within the two decimals simcore/presets.c writes it with */
static void assert_rate(double got, double want) {
    if (fabs(got - want) > 0.005) fail_msg("%.4f, the source's numbers give %.4f", got, want);
}

/* Each preset's numbers against the sources presets.c cites for them: the
 * values those print, and the bandwidths derived here from the data
 * sheets' bytes per second, the clock and the request size (a 128-byte
 * warp request, or a 32-byte sector). */
static void test_preset_sources(void **state) {
    (void)state;
    /* ISCA'17 Table 1: 16 SMs, 4 warp schedulers, 1216 MHz, 2048 threads,
     * TB limit 32, 256KB registers, 96KB shared memory; 4 memory
     * controllers at 7 GHz, 64 bits each (the GTX 980's bus, presets.c) */
    const sim_device *i = sim_preset_find("isca17-gpgpusim");
    assert_int_equal(i->sms, 16);
    assert_int_equal(i->schedulers_per_sm, 4);
    assert_int_equal(i->clock_hz, 1216000000);
    assert_int_equal(i->threads_per_sm, 2048);
    assert_int_equal(i->blocks_per_sm, 32);
    assert_int_equal(i->regs_per_sm * 4, 256 * 1024);
    assert_int_equal(i->smem_per_sm, 96 * 1024);
    assert_rate(i->mem_bandwidth, 4 * 8 * 7e9 / 1216e6 / 128);
    /* GPGPU-Sim: one warp fetched per SM and cycle into a 2-entry buffer;
     * a 128-byte reply and its 8-byte header in 32-byte flits, one a cycle;
     * latencies of SM7_TITANV (L2/ROP 160 + DRAM 100) */
    assert_int_equal(i->fetch_warps, 1);
    assert_int_equal(i->ibuffer, 2);
    assert_rate(i->sm_mem_bandwidth, 1.0 / ((128 + 8 + 31) / 32));
    assert_int_equal(i->latency_alu, 4);
    assert_int_equal(i->latency_sfu, 100);
    assert_int_equal(i->latency_shared, 20);
    assert_int_equal(i->latency_mem, 160 + 100);
    /* §4.6: 56 SMs of two schedulers, "other simulation parameters are the
     * same as the ones in Table 1" */
    sim_device d56 = *sim_preset_find("isca17-gpgpusim-56");
    assert_int_equal(d56.sms, 56);
    assert_int_equal(d56.schedulers_per_sm, 2);
    memcpy(d56.name, i->name, sizeof d56.name);
    d56.sms = i->sms;
    d56.schedulers_per_sm = i->schedulers_per_sm;
    memcpy(d56.sm_order, i->sm_order, sizeof d56.sm_order);
    assert_memory_equal(&d56, i, sizeof d56);

    /* GPGPU-Sim SM7_TITANV: 24 channels x 16 bytes x 2 (DDR) x 850 MHz at
     * a 1200-MHz core; 64KB shared memory per block, 96KB per SM */
    const sim_device *tv = sim_preset_find("titanv-gpgpusim");
    assert_int_equal(tv->clock_hz, 1200000000);
    assert_rate(tv->mem_bandwidth, 24 * 16 * 2 * 850e6 / 1200e6 / 128);
    assert_int_equal(tv->max_smem_per_block, 65536);
    assert_int_equal(tv->smem_per_sm, 98304);
    assert_int_equal(tv->latency_mem, 160 + 100);

    /* the warp model on most-room's three GPUs: GPGPU-Sim's configs and
     * the whitepapers' bandwidths, in 32-byte sectors per SM cycle */
    const sim_device *pa = sim_preset_find("pascal-gilman");
    assert_int_equal(pa->latency_mem, 120 + 100);   /* SM6_GTX1080: rop 120 + dram 100 */
    assert_rate(pa->fp32_rate, 1);                  /* 32 FP32 lanes per block */
    assert_int_equal(pa->sm_mem_queue, 128);
    assert_rate(pa->dram_sectors, 320e9 / 1733e6 / 32);
    const sim_device *v = sim_preset_find("v100");
    assert_rate(v->fp32_rate, 0.5);                 /* 16 FP32 lanes per block */
    assert_int_equal(v->sm_mem_queue, 256);
    assert_rate(v->dram_sectors, 900e9 / 1530e6 / 32);
    const sim_device *tu = sim_preset_find("rtx2080ti");
    assert_int_equal(tu->threads_per_sm, 1024);     /* most-room Table 2 */
    assert_int_equal(tu->blocks_per_sm, 16);
    assert_int_equal(tu->warps_per_sm, 32);
    assert_int_equal(tu->sm_order_kind, SIM_SM_ORDER_EVENS_THEN_ODDS);   /* most-room §4.3 */
    assert_rate(tu->dram_sectors, 616e9 / 1545e6 / 32);

    /* the Jetsons' data sheets: CUDA cores / cores per SM, the GPU clock,
     * the memory's bandwidth; one copy engine as on the TX2 (RTSS'17 §2.2) */
    const sim_device *x = sim_preset_find("xavier-nx");
    assert_int_equal(x->sms, 384 / 64);
    assert_int_equal(x->clock_hz, 1100000000);
    assert_int_equal(x->copy_engines, 1);
    assert_rate(x->copy_bandwidth / 1e9, 59.7);
    const sim_device *o = sim_preset_find("orin-nano");
    assert_int_equal(o->sms, 1024 / 128);
    assert_int_equal(o->threads_per_sm, 1536);      /* compute capability 8.7 */
    assert_int_equal(o->warps_per_sm, 1536 / 32);
    assert_int_equal(o->clock_hz, 625000000);
    assert_rate(o->copy_bandwidth / 1e9, 68);
    /* the TX2 (RTSS'17): 1.3-GHz cores, a block's registers half the SM's,
     * priorities -1 and 0 */
    const sim_device *t = sim_preset_find("tx2");
    assert_int_equal(t->clock_hz, 1300000000);
    assert_int_equal(t->max_regs_per_block, 32768);
    assert_int_equal(t->greatest_priority, -1);
    /* the H100, measured (tests/fixtures/h100/probe.txt): copies at
     * 55.11-55.25 GB/s, priorities 0..-5, 1 KB reserved per block */
    const sim_device *h = sim_preset_find("h100");
    assert_true(h->copy_bandwidth >= 55.11e9 && h->copy_bandwidth <= 55.25e9);
    assert_int_equal(h->greatest_priority, -5);
    assert_int_equal(h->smem_reserved_per_block, 1024);
    assert_int_equal(h->clock_hz, 1980000000);
    /* no name is no preset */
    assert_null(sim_preset_find(NULL));
}

static void test_policies(void **state) {
    (void)state;
    assert_int_equal(sim_placement_count(), 4);
    assert_int_equal(sim_placement_find("most-room"), 0);
    assert_int_equal(sim_placement_find("round-robin"), 1);
    assert_int_equal(sim_placement_find("spart"), 2);
    assert_int_equal(sim_placement_find("spart-climb"), 3);
    assert_int_equal(sim_placement_find("random"), -1);
    assert_string_equal(sim_placement_name(0), "most-room");
    assert_string_equal(sim_placement_name(1), "round-robin");
    assert_string_equal(sim_placement_name(2), "spart");
    assert_string_equal(sim_placement_name(3), "spart-climb");
    assert_null(sim_placement_name(4));
    /* the placements that pursue QoS goals themselves (spart-climb) */
    assert_true(sim_placement_qos(3));
    assert_false(sim_placement_qos(2));
    assert_false(sim_placement_qos(4));
    /* the generic table view (GET /api/policies lists it, docs/api.md) */
    static const struct { sim_policy_table t; const char *key; size_t n; const char *last; } tabs[] = {
        { SIM_TABLE_PLACEMENT, "placement", 4, "spart-climb" },
        { SIM_TABLE_EXECUTION, "execution", 2, "warp" },
        { SIM_TABLE_DRIVER, "contexts", 5, "mpcp" },
        { SIM_TABLE_HOST, "host", 2, "tasks" },
        { SIM_TABLE_WARP, "warp", 9, "lrr-gpgpusim" },
    };
    for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++) {
        assert_string_equal(sim_policy_table_name(tabs[i].t), tabs[i].key);
        assert_int_equal(sim_policy_count(tabs[i].t), tabs[i].n);
        int32_t n = (int32_t)tabs[i].n;
        assert_string_equal(sim_policy_name(tabs[i].t, n - 1), tabs[i].last);
        assert_null(sim_policy_name(tabs[i].t, -1));
        assert_null(sim_policy_name(tabs[i].t, n));
        assert_null(sim_policy_doc(tabs[i].t, n));
        assert_int_equal(sim_policy_find(tabs[i].t, NULL), -1);
        for (int32_t id = 0; id < n; id++) {
            const char *name = sim_policy_name(tabs[i].t, id), *doc = sim_policy_doc(tabs[i].t, id);
            assert_int_equal(sim_policy_find(tabs[i].t, name), id);
            /* a doc is a sentence, not the name again */
            assert_non_null(doc);
            assert_true(strlen(doc) > strlen(name) + 20);
        }
    }
    assert_non_null(strstr(sim_policy_doc(SIM_TABLE_WARP,
                                          sim_policy_find(SIM_TABLE_WARP, "quota-rollover")),
                           "ISCA'17 §3.4.4"));
    /* which placements place cohorts (policy.h's wave: most-room and round-robin
     * visit the SMs in a fixed order; Spart's partitions do not) */
    assert_true(sim_placement_cohorts(sim_placement_find("most-room")));
    assert_true(sim_placement_cohorts(sim_placement_find("round-robin")));
    assert_false(sim_placement_cohorts(sim_placement_find("spart")));
    assert_false(sim_placement_cohorts(sim_placement_find("spart-climb")));
    assert_false(sim_placement_cohorts(-1));
}

static void expect_error(tb *b, const char *needle) {
    char err[256];
    trace t;
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(b), &t, err, sizeof err), -1);
    if (!strstr(err, needle)) fail_msg("error \"%s\" does not name \"%s\"", err, needle);
    assert_null(strchr(err, '\n'));
    trace_free(&t);
}

/* sim_kernel_fits at each limit (TX2 paper, rules R1-R3; most-room §4.2: a
 * block larger than any SM is refused up front): a block exactly at a limit
 * fits, one unit past it is refused, with the message the scenario parser
 * and sim_run both give. */
static void expect_fits(const sim_device *d, int32_t threads, int64_t smem, int32_t regs,
                        const char *path, const char *want) {
    char err[256] = "";
    int rc = sim_kernel_fits(d, threads, smem, regs, path, err, sizeof err);
    if (!want) {
        if (rc != 0) fail_msg("%d threads, %lld bytes, %d regs refused: %s", (int)threads,
                              (long long)smem, (int)regs, err);
        return;
    }
    assert_int_equal(rc, -1);
    assert_string_equal(err, want);
}

static void test_kernel_fits_limits(void **state) {
    (void)state;
    sim_device a = { .threads_per_sm = 2048, .max_threads_per_block = 1024, .warp_size = 32,
                     .warps_per_sm = 64, .smem_per_sm = 64 * KIB, .max_smem_per_block = 48 * KIB,
                     .regs_per_sm = 65536, .max_regs_per_block = 32768 };
    expect_fits(&a, 1024, 48 * KIB, 32, NULL, NULL);
    expect_fits(&a, 1, 0, 0, "ops[2]", NULL);
    expect_fits(&a, 0, 0, 0, NULL, "threads: 0 is not a positive thread count");
    expect_fits(&a, 1025, 0, 0, "ops[2]",
                "ops[2].threads: 1025 is more than the device's max_threads_per_block (1024)");
    expect_fits(&a, 32, -1, 0, NULL, "smem: -1 bytes is negative");
    expect_fits(&a, 32, 48 * KIB + 1, 0, NULL,
                "smem: a block needs 49153 bytes but the device allows 48KB per block "
                "(max_smem_per_block)");
    expect_fits(&a, 32, 0, -1, NULL, "regs: -1 registers per thread is negative");
    expect_fits(&a, 1024, 0, 33, NULL,
                "regs: a block needs 33792 registers (1024 threads x 33) but the device allows "
                "32768 per block (max_regs_per_block)");
    expect_fits(&a, 3, 0, 10922, NULL, NULL);   /* 32766 */
    expect_fits(&a, 3, 0, 10923, NULL,
                "regs: a block needs 32769 registers (3 threads x 10923) but the device allows "
                "32768 per block (max_regs_per_block)");
    /* no per-block limits: the SM's own */
    sim_device b = { .threads_per_sm = 1536, .warp_size = 32, .warps_per_sm = 48,
                     .smem_per_sm = 48 * KIB, .regs_per_sm = 32768 };
    expect_fits(&b, 1536, 48 * KIB, 21, NULL, NULL);
    expect_fits(&b, 1537, 0, 0, NULL,
                "threads: 1537 is more than the device's threads_per_sm (1536)");
    expect_fits(&b, 32, 48 * KIB + 1, 0, NULL, "smem: a block needs 49153 bytes but an SM has 48KB");
    expect_fits(&b, 1024, 0, 32, NULL, NULL);
    expect_fits(&b, 1024, 0, 33, NULL,
                "regs: a block needs 33792 registers (1024 threads x 33) but an SM has 32768");
    expect_fits(&b, 3, 0, 10923, NULL,
                "regs: a block needs 32769 registers (3 threads x 10923) but an SM has 32768");
    /* warps: a partial warp is a whole one */
    sim_device c = { .threads_per_sm = 2048, .warp_size = 32, .warps_per_sm = 8,
                     .smem_per_sm = 48 * KIB, .regs_per_sm = 65536 };
    expect_fits(&c, 256, 0, 0, NULL, NULL);
    expect_fits(&c, 257, 0, 0, NULL,
                "threads: a block of 257 threads needs 9 warps but an SM has 8 (warps_per_sm)");
}

static void test_errors(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 1, 256, 0, SEC);
    sim_op *k = tb_kernel(&b, "K2", s1, 0, 1, 2048, 0, SEC);
    expect_error(&b, "ops[1].threads: 2048");
    k->threads = 256;
    k->smem = 64 * KIB;
    expect_error(&b, "ops[1].smem");
    k->smem = 0;
    k->regs = 255;   /* 255 x 256 = 65280 > 32768 per block on the TX2 */
    expect_error(&b, "ops[1].regs");
    k->regs = 0;
    k->stream = 7;
    expect_error(&b, "ops[1].stream: 7");
    k->stream = s1;
    k->nblock_time = 0;
    expect_error(&b, "ops[1].block_time");
    k->nblock_time = 1;
    k->blocks = 0;
    expect_error(&b, "ops[1].blocks: 0");
    k->blocks = 1;
    b.cfg.policy.placement = 9;
    expect_error(&b, "policy.placement: 9");
    b.cfg.policy.placement = 0;
    b.cfg.device.copy_engines = 3;
    expect_error(&b, "device.copy_engines: 3");
    b.cfg.device.copy_engines = 1;
    b.cfg.device.sm_order_kind = SIM_SM_ORDER_EXPLICIT;
    b.cfg.device.sm_order[0] = 1;
    b.cfg.device.sm_order[1] = 1;
    expect_error(&b, "device.sm_order[1]: SM 1 appears twice");
}

static void expect_ok(tb *b) {
    char err[256] = "";
    trace t;
    trace_init(&t);
    if (sim_run(tb_config(b), &t, err, sizeof err) != 0) fail_msg("refused: %s", err);
    trace_free(&t);
}

/* Each bound sim_run checks (sim.c: check_op, check_goals and
 * sim_check_policy), from both sides: a value at the limit runs, one past
 * it is refused with a message naming the field and the value. Times are
 * 0..1e15 ns (sim.c's SIM_TIME_LIMIT, about 11.6 days). */
#define TIME_LIMIT 1000000000000000LL
static void test_error_bounds(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    sim_op *k = tb_kernel(&b, "K", s1, 0, 1, 256, 0, SEC);
    expect_ok(&b);
    /* when the host calls it */
    k->at = TIME_LIMIT;
    expect_ok(&b);
    k->at = TIME_LIMIT + 1;
    expect_error(&b, "ops[0].at: 1000000000000001 ns is outside 0..1000000000000000 ns");
    k->at = -1;
    expect_error(&b, "ops[0].at: -1 ns is outside");
    k->at = 0;
    /* an op's own launch latency */
    k->own_latency = true;
    k->launch_latency = TIME_LIMIT;
    expect_ok(&b);
    k->launch_latency = TIME_LIMIT + 1;
    expect_error(&b, "ops[0].launch_latency: 1000000000000001 ns is outside");
    k->launch_latency = -1;
    expect_error(&b, "ops[0].launch_latency: -1 ns is outside");
    k->own_latency = false;
    /* every listed block time is checked, used or not (one block here) */
    const int64_t times_ok[] = { SEC, TIME_LIMIT }, times_bad[] = { SEC, TIME_LIMIT + 1 };
    tb_times(&b, k, times_ok, 2);
    expect_ok(&b);
    tb_times(&b, k, times_bad, 2);
    expect_error(&b, "ops[0].block_time[1]: 1000000000000001 ns is outside");
    tb_times(&b, k, times_ok, 1);
    /* a sync has no launch latency of its own (it is no launch) */
    sim_op *y = tb_op(&b, SIM_OP_SYNC, "Y", s1, 0);
    y->own_latency = true;
    expect_error(&b, "ops[1].launch_latency: a sync has no launch latency of its own");
    y->own_latency = false;
    expect_ok(&b);
    /* copies: no bytes is a copy; fewer is not; every direction up to
     * "other" (past it, trace.h's unified-memory migrations, which are no
     * stream op); no longer than the time limit at the device's bandwidth
     * (the TX2's 59.7 GB/s: 1.5e15 ns is about 8.96e16 bytes) */
    sim_op *c = tb_copy(&b, "C", s1, 0, 0, TRACE_COPY_H2D);
    expect_ok(&b);
    c->bytes = -1;
    expect_error(&b, "ops[2].bytes: -1 is negative");
    c->bytes = 1024;
    c->direction = TRACE_COPY_OTHER;
    expect_ok(&b);
    c->direction = TRACE_COPY_UVM_H2D;
    expect_error(&b, "ops[2].direction: 7 is not a copy direction");
    c->direction = -1;
    expect_error(&b, "ops[2].direction: -1 is not a copy direction");
    c->direction = TRACE_COPY_H2D;
    c->bytes = (int64_t)(1.5e6 * b.cfg.device.copy_bandwidth);
    expect_error(&b, "ops[2].bytes: ");
    c->bytes = (int64_t)(0.5e6 * b.cfg.device.copy_bandwidth);
    expect_ok(&b);
    c->bytes = 1024;
    /* a QoS goal belongs to a kernel (ISCA'17 §3.2) */
    c->qos_goal = 0.5;
    expect_error(&b, "ops[2].qos_goal: only kernels have QoS goals");
    c->qos_goal = 0;
    /* a stream listed twice is one stream, so it has one priority and one
     * task */
    int32_t again = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    expect_ok(&b);
    b.streams[again].priority = 0;
    expect_error(&b, "streams[1].priority: stream P0/S1 is listed again (streams[0]) with "
                     "another priority");
    b.streams[again].priority = SIM_PRIO_NONE;
    b.streams[s1].task = b.streams[again].task = "tau";
    expect_ok(&b);
    b.streams[again].task = "tau2";
    expect_error(&b, "streams[1].task: stream P0/S1 is listed again (streams[0]) with another "
                     "task");
    b.streams[again].task = NULL;
    expect_error(&b, "streams[1].task:");
    b.streams[s1].task = NULL;
    /* the policy's latencies */
    b.cfg.policy.launch_latency = TIME_LIMIT;
    expect_ok(&b);
    b.cfg.policy.launch_latency = TIME_LIMIT + 1;
    expect_error(&b, "policy.launch_latency: 1000000000000001 ns is outside");
    b.cfg.policy.launch_latency = 0;
    b.cfg.policy.dispatch_latency = -1;
    expect_error(&b, "policy.dispatch_latency: -1 ns is outside");
    b.cfg.policy.dispatch_latency = 0;
    /* preemption's and the idle switch's times */
    b.cfg.policy.has_sm_preempt = true;
    b.cfg.policy.sm_preempt = TIME_LIMIT;
    expect_ok(&b);
    b.cfg.policy.sm_preempt = TIME_LIMIT + 1;
    expect_error(&b, "policy.sm_preempt: 1000000000000001 ns is outside");
    b.cfg.policy.sm_preempt = 0;
    /* a preempted warp would take its place in a memory queue with it */
    b.cfg.device.mem_admission = 1;
    expect_error(&b, "device.mem_admission: arrival order is not modelled with preemption");
    b.cfg.device.mem_admission = 0;
    b.cfg.policy.has_sm_preempt = false;
    b.cfg.policy.has_context_switch_idle = true;
    b.cfg.policy.context_switch_idle = TIME_LIMIT;
    expect_ok(&b);
    b.cfg.policy.context_switch_idle = TIME_LIMIT + 1;
    expect_error(&b, "policy.context_switch_idle: 1000000000000001 ns is outside");
    b.cfg.policy.has_context_switch_idle = false;
    /* a driver that pauses blocks needs each block's time when placed */
    b.cfg.policy.driver = sim_policy_find(SIM_TABLE_DRIVER, "time-slice");
    expect_ok(&b);
    b.cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    expect_error(&b, "policy.contexts: \"time-slice\" pauses blocks");
    b.cfg.policy.driver = 0;
    /* ISCA'17 §3.6's TB adjustment: the quota schemes', by preemption */
    b.cfg.policy.tb_adjust = true;
    expect_error(&b, "policy.tb_adjust: ISCA'17 §3.6's TB adjustment is the quota schemes'");
    b.cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, "quota-rollover");
    expect_error(&b, "policy.tb_adjust: TBs are swapped out by preemption");
    b.cfg.policy.execution = 0;
    expect_error(&b, "policy.tb_adjust: ISCA'17 §3.6's TB adjustment is the quota schemes'");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tx2_fig3),
        cmocka_unit_test(test_tx2_fig5_null_stream),
        cmocka_unit_test(test_tx2_fig6_priority_starvation),
        cmocka_unit_test(test_tx2_fig7_none_is_low),
        cmocka_unit_test(test_tx2_fig8_priority_blocking),
        cmocka_unit_test(test_tx2_priorities_clamped),
        cmocka_unit_test(test_h100_priorities_clamped),
        cmocka_unit_test(test_most_room_4_1),
        cmocka_unit_test(test_most_room_4_2),
        cmocka_unit_test(test_most_room_5_1_isolated),
        cmocka_unit_test(test_most_room_5_1_colocated),
        cmocka_unit_test(test_most_room_5_1_nine),
        cmocka_unit_test(test_round_robin_5_1),
        cmocka_unit_test(test_two_copy_engines),
        cmocka_unit_test(test_copies_in_flight),
        cmocka_unit_test(test_queue_names),
        cmocka_unit_test(test_wave_order_with_cohorts),
        cmocka_unit_test(test_host_sync),
        cmocka_unit_test(test_latencies),
        cmocka_unit_test(test_op_own_latency),
        cmocka_unit_test(test_block_time_cycle),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_preset_sources),
        cmocka_unit_test(test_policies),
        cmocka_unit_test(test_kernel_fits_limits),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_error_bounds),
        cmocka_unit_test(test_tx2_n2_release_in_launch_order),
        cmocka_unit_test(test_two_processes_earliest_ee_first),
        cmocka_unit_test(test_two_processes_stuck_does_not_hold_others),
        cmocka_unit_test(test_copy_time_rounding),
        cmocka_unit_test(test_tx2_fig3_ce_queue_fifo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
