/* test_h100_recordings.c -- the real H100 recordings (tests/fixtures/h100/,
 * made by tools/recorder's schedlab-play on an H100 80GB HBM3, driver
 * 580.159.04, CUDA 13.0; each file's '#' lines give the command) next to
 * the simulator on the same scenarios (scenarios/h100-*.json).
 *
 * Each test asserts facts of the committed measurement (which SM a block ran
 * on, when a kernel started relative to another, how many SMs) and then
 * where the h100 simulation AGREES with it. Where they DISAGREE, the test
 * asserts the simulator's own answer next to the measured one and says so
 * in a comment: those are findings about the model (README, "H100
 * recordings"), not failures.
 *
 * Times: the import re-bases a recording so its first block starts at 0;
 * every scenario's first kernel is issued at 0 and starts at 0 in the
 * simulator (no launch latency), so both share a time axis up to the
 * measured launch latency of the first kernel (about 40 us, the "+ 0.2 ms"
 * slack below). Files are found under $SCHEDLAB_ROOT, or the current folder
 * (the Makefile runs the tests from the repository root). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../importers/importers.h"
#include "../../server/app/fidelity.h"
#include "../../server/app/replay.h"
#include "../../server/formats/scenario.h"
#include "../../simcore/device.h"
#include "test_imp_util.h"
#include "test_scn_util.h"
#include "test_rec_util.h"

#define MS_OF(x) ((int64_t)((x) * 1000000.0))
/* t within 0.2 ms of x: a measured time against the scenario's (the first
 * kernel's launch latency, 40-150 us in these recordings, shifts the
 * re-based recording earlier; later kernels start 15-50 us after issue) */
#define NEAR(t, x) ((t) >= MS_OF(x) - 200000 && (t) < MS_OF(x) + 200000)

/* The fidelity report's numbers (server/app/fidelity.c), printed so that
 * the README's table can be checked against them, and its block counts
 * asserted. */
static void report(const char *name, const trace *m, const trace *s, size_t blocks,
                   size_t same) {
    fidelity f;
    char err[256];
    assert_int_equal(fidelity_compare(m, s, &f, err, sizeof err), 0);
    print_message("%s: duration error median %.4f p90 %.4f, start error median %lld ns, "
                  "makespan %lld vs %lld ns (%+.4f), blocks on the same SM %zu/%zu\n",
                  name, f.dur_median, f.dur_p90, (long long)f.start_median,
                  (long long)f.makespan_measured, (long long)f.makespan_simulated,
                  f.makespan_diff, f.blocks_same_sm, f.blocks_compared);
    assert_int_equal(f.unmatched_measured, 0);
    assert_int_equal(f.unmatched_simulated, 0);
    assert_int_equal(f.blocks_compared, blocks);
    assert_int_equal(f.blocks_same_sm, same);
    fidelity_free(&f);
}

/* h100-sm-order: K1 = 132 blocks x 1024 threads + 200KB shared memory (one
 * per SM), K2 at 10 ms = 264 x 1024 (two per SM by threads). */
static void test_sm_order(void **state) {
    (void)state;
    /* measured: all five repetitions put every block on the same SM */
    trace r[5];
    static const char *const files[5] = {"h100-sm-order-r1.csv", "h100-sm-order-r2.csv",
                                         "h100-sm-order-r3.csv", "h100-sm-order-r4.csv",
                                         "h100-sm-order-r5.csv"};
    for (int i = 0; i < 5; i++) measured(files[i], &r[i]);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(r[i].blocks.n, 132 + 264);
        for (int32_t b = 0; b < 132; b++) assert_int_equal(blk(&r[i], "K1", b)->sm, h100_order[b]);
        for (int32_t b = 0; b < 264; b++)
            assert_int_equal(blk(&r[i], "K2", b)->sm, blk(&r[0], "K2", b)->sm);
        assert_int_equal(distinct_sms(&r[i], "K1"), 132);
        assert_int_equal(distinct_sms(&r[i], "K2"), 132);
        /* one wave each: every block within 1 us of its kernel's first */
        assert_int_equal(started(&r[i], "K1", 0, 1000), 132);
        assert_true(NEAR(first(&r[i], "K2"), 10));
        assert_int_equal(started(&r[i], "K2", first(&r[i], "K2"), first(&r[i], "K2") + 1000), 264);
    }
    /* K2, two per SM, does not follow K1's order: blocks 0-7 on 128-131
     * then 124-127, and SMs 124-131 get their second block (blocks 80-87)
     * before SMs 10, 11, 26, ... get their first */
    static const int32_t k2_head[8] = {128, 129, 130, 131, 124, 125, 126, 127};
    for (int32_t b = 0; b < 8; b++) {
        assert_int_equal(blk(&r[0], "K2", b)->sm, k2_head[b]);
        assert_int_equal(blk(&r[0], "K2", 80 + b)->sm, k2_head[b]);
    }
    assert_int_equal(blk(&r[0], "K2", 88)->sm, 10);
    /* ... and that is the whole difference: every other SM follows K1's
     * order twice (blocks 8-79 and 88-139 take order positions 8-131,
     * blocks 140-263 positions 8-131 again); only the first eight of the
     * order, SMs 124-131, come in two bursts of eight, halves swapped, at
     * blocks 0 and 80 (tests/fixtures/h100/probes/so-*.json vary the
     * block count, blocks per SM and what ran before) */
    for (int32_t b = 8; b < 80; b++) assert_int_equal(blk(&r[0], "K2", b)->sm, h100_order[b]);
    for (int32_t b = 88; b < 140; b++)
        assert_int_equal(blk(&r[0], "K2", b)->sm, h100_order[b - 8]);
    for (int32_t b = 140; b < 264; b++)
        assert_int_equal(blk(&r[0], "K2", b)->sm, h100_order[b - 132]);

    trace s;
    scn_simulate("h100-sm-order.json", "default", &s);
    /* agree: K1 exactly (the preset's sm_order is this measurement), both
     * kernels one wave at 0 and 10 ms */
    for (int32_t b = 0; b < 132; b++) assert_int_equal(blk(&s, "K1", b)->sm, h100_order[b]);
    assert_int_equal(started(&s, "K1", 0, 1), 132);
    assert_int_equal(started(&s, "K2", MS_OF(10), MS_OF(10) + 1), 264);
    /* DISAGREE: most-room gives K2 K1's order twice (blocks b and b + 132
     * on h100_order[b]); the H100 starts with 128-131 and doubles up on
     * 124-131 early: 196 of K2's 264 blocks on the same SM */
    for (int32_t b = 0; b < 132; b++) {
        assert_int_equal(blk(&s, "K2", b)->sm, h100_order[b]);
        assert_int_equal(blk(&s, "K2", b + 132)->sm, h100_order[b]);
    }
    assert_int_equal(same_sm(&r[0], &s), 132 + 196);
    report("h100-sm-order", &r[0], &s, 396, 328);
    trace_free(&s);
    for (int i = 0; i < 5; i++) trace_free(&r[i]);
}

/* h100-most-room: A = 131 blocks x 1024 threads for 20 ms, then B = 4
 * blocks x 256 threads at 2 ms (most-room paper §5.1's concurrent-isolated
 * case at 132 SMs). */
static void test_most_room(void **state) {
    (void)state;
    trace m, s, rr;
    measured("h100-most-room-r1.csv", &m);
    /* measured: A one block per SM on every SM but 123 (the last of the
     * order), B's four blocks all on the empty SM 123 */
    assert_int_equal(distinct_sms(&m, "A"), 131);
    for (size_t i = 0; i < m.blocks.n; i++)
        if (m.blocks.v[i].kernel == kid(&m, "A")) assert_int_not_equal(m.blocks.v[i].sm, 123);
    for (int32_t b = 0; b < 4; b++) assert_int_equal(blk(&m, "B", b)->sm, 123);
    assert_true(NEAR(first(&m, "B"), 2));
    /* agree, block for block: most-room with the measured tie-break order */
    scn_simulate("h100-most-room.json", "most-room", &s);
    for (int32_t b = 0; b < 4; b++) assert_int_equal(blk(&s, "B", b)->sm, 123);
    assert_int_equal(same_sm(&m, &s), 135);
    report("h100-most-room", &m, &s, 135, 135);
    /* the round-robin variant spreads B over four SMs: 132 of 135 */
    scn_simulate("h100-most-room.json", "round-robin", &rr);
    assert_int_equal(distinct_sms(&rr, "B"), 4);
    assert_int_equal(same_sm(&m, &rr), 132);
    trace_free(&rr);
    trace_free(&s);
    trace_free(&m);
}

/* h100-priority: low K1 fills the GPU (264 x 1024, 10 ms), low K2 at 1 ms,
 * high K3 at 2 ms (TX2 paper Fig. 7/8: the high-priority EE queue first). */
static void test_priority(void **state) {
    (void)state;
    trace m, s;
    measured("h100-priority-r1.csv", &m);
    scn_simulate("h100-priority.json", "default", &s);
    /* measured and simulated agree on every wave: K1 at 0, then the later
     * high-priority K3 at 10 ms ahead of K2, K2 at 20 ms, each in one wave */
    const trace *both[2] = {&m, &s};
    for (int i = 0; i < 2; i++) {
        const trace *t = both[i];
        assert_int_equal(started(t, "K1", 0, MS_OF(0.2)), 264);
        assert_int_equal(started(t, "K3", MS_OF(9.8), MS_OF(10.2)), 264);
        assert_int_equal(started(t, "K2", MS_OF(19.8), MS_OF(20.2)), 264);
        assert_int_equal(distinct_sms(t, "K3"), 132);
    }
    assert_true(first(&m, "K3") < first(&m, "K2"));
    /* placement within a wave differs (two blocks per SM, see sm-order) */
    assert_int_equal(same_sm(&m, &s), 157);
    report("h100-priority", &m, &s, 792, 157);
    trace_free(&s);
    trace_free(&m);
}

/* h100-basic-rules: TX2 Fig. 3 at 132 SMs (scenario description). */
static void test_basic_rules(void **state) {
    (void)state;
    trace m, s;
    measured("h100-basic-rules-r1.csv", &m);
    scn_simulate("h100-basic-rules.json", "default", &s);
    const trace *both[2] = {&m, &s};
    for (int i = 0; i < 2; i++) {
        const trace *t = both[i];
        /* agree, R2: two 768-thread blocks per SM, 264 of K1's 396 at 0 */
        assert_int_equal(started(t, "K1", 0, MS_OF(0.2)), 264);
        assert_int_equal(started(t, "K1", MS_OF(9.8), MS_OF(10.2)), 132);
        /* agree, X1: no K4 block (issued at 2 ms, fits) before K1's
         * queued blocks are placed at 10 ms */
        assert_int_equal(started(t, "K4", 0, MS_OF(9.8)), 0);
        /* agree: K6 (36 ms) starts at once */
        assert_true(NEAR(first(t, "K6"), 36));
        /* agree, H100-C1 (simcore/carveout.h): no K4 block (100KB, its SMs
         * configured to 228KB) runs on an SM beside K1 (no shared memory:
         * 8KB) */
        for (size_t x = 0; x < t->blocks.n; x++) {
            const trace_block *k4 = &t->blocks.v[x];
            if (k4->kernel != kid(t, "K4")) continue;
            for (size_t j = 0; j < t->blocks.n; j++) {
                const trace_block *k1 = &t->blocks.v[j];
                if (k1->kernel == kid(t, "K1") && k1->sm == k4->sm)
                    assert_false(k1->start < k4->end && k4->start < k1->end);
            }
        }
    }
    /* DISAGREE. Simulated: K1's second wave one block per SM, so no SM is
     * empty for K4 (carveout rule) until 20 ms: all 264 blocks then, K5's
     * 132 at 30 ms. */
    assert_int_equal(started(&s, "K4", MS_OF(20), MS_OF(20) + 1), 264);
    assert_int_equal(distinct_sms(&s, "K4"), 132);
    assert_int_equal(started(&s, "K5", MS_OF(30), MS_OF(30) + 1), 132);
    /* Measured: K1's second wave packs onto 72 SMs (two blocks on 60), and
     * K4 takes only the 60 empty SMs (120 blocks); its other 144 blocks
     * wait for 20 ms, and K5 starts 120 blocks at 20 ms and 12 at 30. */
    assert_int_equal(started(&m, "K5", MS_OF(19.8), MS_OF(20.2)), 120);
    assert_int_equal(started(&m, "K5", MS_OF(29.8), MS_OF(30.2)), 12);
    {
        char seen[SIM_MAX_SMS] = {0};
        int sms = 0;
        for (size_t i = 0; i < m.blocks.n; i++)
            if (m.blocks.v[i].kernel == kid(&m, "K1") && m.blocks.v[i].start > MS_OF(9.8) &&
                !seen[m.blocks.v[i].sm]++)
                sms++;
        assert_int_equal(sms, 72);
    }
    assert_int_equal(started(&m, "K4", MS_OF(9.8), MS_OF(10.2)), 120);
    assert_int_equal(started(&m, "K4", MS_OF(19.8), MS_OF(20.2)), 144);
    /* agree since H100-C1 (before: 20 and 34.9 ms simulated): K2 (stream S1
     * after K1, 512 threads without shared memory) waits for SMs K4 and K5
     * leave, 30 ms, and K3 (after the 256MB copy C2o) starts at 44.9 ms */
    assert_true(NEAR(first(&m, "K2"), 30));
    assert_int_equal(first(&s, "K2"), MS_OF(30));
    assert_true(NEAR(first(&m, "K3"), 44.9));
    assert_int_equal(first(&s, "K3"), MS_OF(40) + 4862961);   /* 256 MiB at 55.2 GB/s */
    /* agree: the copy's time, K2's end -> K3's start, within 0.5 % */
    int64_t gap_m = first(&m, "K3") - m.kernels.v[kid(&m, "K2")].end;
    int64_t gap_s = first(&s, "K3") - s.kernels.v[kid(&s, "K2")].end;
    assert_true(gap_m > gap_s - gap_s / 200 && gap_m < gap_s + gap_s / 200);
    assert_int_equal(same_sm(&m, &s), 20);
    report("h100-basic-rules", &m, &s, 1188, 20);
    trace_free(&s);
    trace_free(&m);
}

/* h100-smem-carveout: K1 132 x 1024 threads without shared memory for
 * 10 ms; K2 (8KB per block) at 2 ms and K3 (100KB) at 4 ms, 256 threads.
 * The recording that showed the carveout rule (H100-C1). */
static void test_smem_carveout(void **state) {
    (void)state;
    trace m, s;
    measured("h100-smem-carveout-r1.csv", &m);
    scn_simulate("h100-smem-carveout.json", "default", &s);
    /* Measured: neither starts before K1 has left the GPU at 10 ms, not
     * even 8KB: an SM running K1 (no shared memory, configured to 8KB)
     * takes no block that asks for more (H100-C1, simcore/carveout.h). */
    assert_int_equal(started(&m, "K2", 0, MS_OF(9.8)), 0);
    assert_int_equal(started(&m, "K3", 0, MS_OF(9.8)), 0);
    assert_int_equal(started(&m, "K2", MS_OF(9.8), MS_OF(10.2)), 132);
    assert_int_equal(started(&m, "K3", MS_OF(9.8), MS_OF(10.2)), 132);
    assert_true(m.kernels.v[kid(&m, "K1")].end < first(&m, "K2"));
    /* AGREE since H100-C1 (before: K2 at 2 ms and K3 at 4 ms simulated):
     * K2's 132 blocks start at 10 ms exactly, when K1 drains */
    assert_int_equal(first(&s, "K2"), MS_OF(10));
    assert_int_equal(started(&s, "K2", MS_OF(10), MS_OF(10) + 1), 132);
    /* ... and in both, no K2 or K3 block shares an SM with K1, nor a K3
     * block (100KB: 228KB) one with K2 (8KB, 256 threads: 100KB) */
    const trace *both[2] = {&m, &s};
    for (int i = 0; i < 2; i++) {
        const trace *t = both[i];
        for (size_t x = 0; x < t->blocks.n; x++) {
            const trace_block *a = &t->blocks.v[x];
            if (a->kernel == kid(t, "K1")) continue;
            for (size_t y = 0; y < t->blocks.n; y++) {
                const trace_block *b = &t->blocks.v[y];
                if (b->kernel == a->kernel || b->sm != a->sm) continue;
                assert_false(b->start < a->end && a->start < b->end);
            }
        }
    }
    /* DISAGREE, placement (see h100-sm-order): the H100 packed K2 two per
     * SM onto 65 SMs, so K3 found 67 empty SMs at 10 ms; most-room spreads
     * K2 one per SM over all 132, so K3 waits for K2 to drain, 20 ms. */
    assert_int_equal(distinct_sms(&m, "K2"), 65);
    assert_int_equal(distinct_sms(&m, "K3"), 67);
    assert_int_equal(distinct_sms(&s, "K2"), 132);
    assert_int_equal(first(&s, "K3"), MS_OF(20));
    assert_int_equal(started(&s, "K3", MS_OF(20), MS_OF(20) + 1), 132);
    /* Measured, why (the hypothesis tests/fixtures/h100/probes/cv-*.json
     * settle): K1's 132 blocks ended within 192 ns (six %globaltimer
     * steps), and the order decided who got an SM. Every SM freed within
     * 64 ns of the first (36 SMs) took K2, the first kernel waiting, and no
     * K3; K3 ran only on SMs freed 96 ns or more after the first. The
     * simulator ends all of K1 at one instant, so most-room spreads K2. */
    {
        int64_t first_end = INT64_MAX, end_of[SIM_MAX_SMS];
        int32_t k1 = kid(&m, "K1"), k2 = kid(&m, "K2"), k3 = kid(&m, "K3");
        for (size_t i = 0; i < m.blocks.n; i++)
            if (m.blocks.v[i].kernel == k1) {
                end_of[m.blocks.v[i].sm] = m.blocks.v[i].end;
                if (m.blocks.v[i].end < first_end) first_end = m.blocks.v[i].end;
            }
        int early = 0, early_k2 = 0;
        char k2_on[SIM_MAX_SMS] = {0};
        for (size_t i = 0; i < m.blocks.n; i++) {
            const trace_block *b = &m.blocks.v[i];
            if (b->kernel == k2) k2_on[b->sm] = 1;
            if (b->kernel == k3) assert_true(end_of[b->sm] - first_end >= 96);
        }
        for (int32_t sm = 0; sm < 132; sm++)
            if (end_of[sm] - first_end <= 64) {
                early++;
                early_k2 += k2_on[sm];
            }
        assert_int_equal(early, 36);
        assert_int_equal(early_k2, 36);
    }
    /* agree: K1 alone, one block per SM in the measured order */
    for (int32_t b = 0; b < 132; b++) {
        assert_int_equal(blk(&m, "K1", b)->sm, h100_order[b]);
        assert_int_equal(blk(&s, "K1", b)->sm, h100_order[b]);
    }
    report("h100-smem-carveout", &m, &s, 396, (size_t)same_sm(&m, &s));
    trace_free(&s);
    trace_free(&m);
}

/* Every kernel of two blocks per SM recorded on an idle (or drained) H100
 * doubles up on SMs 124-131, the first eight of the measured order, before
 * every SM has its first block: h100-sm-order's K2 at block 80,
 * h100-priority's K1 (the first kernel of its run) at block 32,
 * h100-basic-rules' K1 (396 x 768) at block 90. Most-room (the simulator)
 * gives every SM one block before any gets two. Where the doubling comes
 * differs between the three, so it is no fixed order; the probes
 * tests/fixtures/h100/probes/so-*.json, recorded on an H200, show bursts
 * whose phase moves from run to run (test_h200_probes.c,
 * docs/most-room-h100.md). */
static void test_two_per_sm_doubling(void **state) {
    (void)state;
    static const struct {
        const char *file, *scenario, *kernel;
        int32_t second;   /* measured: the first block on an SM's second slot */
    } cases[] = {
        {"h100-sm-order-r1.csv", "h100-sm-order.json", "K2", 80},
        {"h100-priority-r1.csv", "h100-priority.json", "K1", 32},
        {"h100-basic-rules-r1.csv", "h100-basic-rules.json", "K1", 90},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        trace m, s;
        measured(cases[c].file, &m);
        scn_simulate(cases[c].scenario, "default", &s);
        int32_t second, last_first;
        doubling(&m, cases[c].kernel, &second, &last_first);
        assert_int_equal(second, cases[c].second);
        assert_true(last_first > second);
        int32_t id = kid(&m, cases[c].kernel);
        for (size_t i = 0; i < m.blocks.n; i++) {
            const trace_block *b = &m.blocks.v[i];
            if (b->kernel == id && b->index >= second && b->index < second + 8)
                assert_true(b->sm >= 124 && b->sm <= 131);
        }
        /* DISAGREE: the simulator fills all 132 SMs once first */
        doubling(&s, cases[c].kernel, &second, &last_first);
        assert_int_equal(last_first, 131);
        assert_int_equal(second, 132);
        trace_free(&s);
        trace_free(&m);
    }
}

/* H100-C1's probes (tests/fixtures/h100/c1-*.json and their -r1.csv; a
 * second run of each, not committed, agreed): K1 (132 blocks, or 264, 6
 * ms) starts alone, N (132 blocks, 2 ms) arrives at 1 ms. Measured and
 * simulated, N's 132 blocks all start at once beside K1, or none before
 * K1 has drained at 6 ms and all then. The carveouts below are the rule's
 * (simcore/carveout.h): a busy SM keeps the carveout K1 configured it to,
 * and N joins only where that is at least N's own. */
typedef struct c1_probe {
    const char *name;   /* tests/fixtures/h100/NAME.json, NAME-r1.csv */
    int joins;          /* 1: N starts at 1 ms; 0: at 6 ms */
} c1_probe;

static const c1_probe c1_probes[] = {
    {"c1-a-k1-8kx1024-g132-n-8kx1024", 1},   /* 2 x 9KB: 32KB; N 32KB */
    {"c1-b-k1-8kx1024-g132-n-8kx256", 0},    /* 32KB; N 8 x 9KB: 100KB */
    {"c1-c-k1-8kx256-g132-n-8kx1024", 1},    /* 100KB; N 32KB */
    {"c1-d-k1-8kx256-g132-n-40kx256", 0},    /* 100KB; N 5 x 41KB: 228KB */
    {"c1-e-k1-8kx256-g132-n-40kx1024", 1},   /* 100KB; N 2 x 41KB: 100KB */
    {"c1-f-k1-64kx1024-g132-n-8kx1024", 1},  /* 2 x 65KB: 132KB; N 32KB */
    {"c1-g-k1-64kx1024-g132-n-8kx64", 0},    /* 132KB; N 25 x 9KB: 228KB */
    {"c1-h-k1-64kx1024-g132-n-40kx1024", 1}, /* 132KB; N 100KB */
    {"c1-i-k1-64kx1024-g132-n-40kx256", 0},  /* 132KB; N 228KB, though 41KB fit */
    {"c1-j-k1-0kx1024-g132-n-2kx1024", 1},   /* 2 x 1KB reserve: 8KB; N 2 x 3KB: 8KB */
    {"c1-k-k1-8kx256-g264-n-40kx1024", 1},   /* two per SM, still 100KB; N 100KB */
    {"c1-l-k1-100kx1024-g132-n-40kx256", 1}, /* 2 x 101KB: 228KB; N 228KB */
};

static void test_c1_probe(void **state) {
    const c1_probe *p = *state;
    char csv[128], json[160];
    snprintf(csv, sizeof csv, "%s-r1.csv", p->name);
    snprintf(json, sizeof json, "tests/fixtures/h100/%s.json", p->name);
    trace m, s;
    measured(csv, &m);
    scn_simulate_at(json, "default", &s);
    int64_t k1_end = m.kernels.v[kid(&m, "K1")].end;
    /* measured: K1 runs its 6 ms on every SM */
    assert_true(NEAR(k1_end, 6));
    assert_int_equal(distinct_sms(&m, "K1"), 132);
    if (p->joins) {
        assert_int_equal(started(&m, "N", MS_OF(0.8), MS_OF(1.2)), 132);
        assert_int_equal(started(&s, "N", MS_OF(1), MS_OF(1) + 1), 132);
    } else {
        assert_int_equal(started(&m, "N", 0, k1_end), 0);
        assert_int_equal(started(&m, "N", k1_end, k1_end + MS_OF(0.1)), 132);
        assert_int_equal(started(&s, "N", MS_OF(6), MS_OF(6) + 1), 132);
    }
    assert_int_equal(s.kernels.v[kid(&s, "N")].first_block, MS_OF(p->joins ? 1 : 6));
    trace_free(&s);
    trace_free(&m);
}

/* The replay machinery (server/app/replay.c, `schedlab replay RUN --device
 * h100`) on each recording: the scenario it calibrates from the measured
 * blocks, simulated under its base policy (most-room), against the
 * measurement. Printed, and the block counts asserted. */
static void replay_one(const char *file, size_t same_expected, int ok_expected) {
    trace m, s;
    char err[512] = "";
    measured(file, &m);
    json_t *j = NULL;
    if (replay_scenario(&m, file, "h100", &j, err, sizeof err) != 0) fail_msg("%s", err);
    char *text = json_dumps(j, 0);
    assert_non_null(text);
    json_decref(j);
    scn_scenario *sc = NULL;
    if (scn_parse(text, strlen(text), file, &sc, err, sizeof err) != 0) fail_msg("%s", err);
    free(text);
    sim_config cfg;
    assert_int_equal(scn_config(sc, 0, &cfg, err, sizeof err), 0);
    trace_init(&s);
    if (sim_run(&cfg, &s, err, sizeof err) != 0) fail_msg("%s: %s", file, err);
    fidelity f;
    assert_int_equal(fidelity_compare(&m, &s, &f, err, sizeof err), 0);
    print_message("replay of %s: duration error median %.4f p90 %.4f, start error median %lld "
                  "ns (%.4f of the span), makespan %+.4f, blocks on the same SM %zu/%zu, "
                  "targets %s\n",
                  file, f.dur_median, f.dur_p90, (long long)f.start_median,
                  f.start_median_share, f.makespan_diff, f.blocks_same_sm, f.blocks_compared,
                  fidelity_ok(&f) ? "met" : "not met");
    assert_int_equal(f.blocks_compared, m.blocks.n);
    assert_int_equal(f.blocks_same_sm, same_expected);
    assert_int_equal(fidelity_ok(&f) ? 1 : 0, ok_expected);
    fidelity_free(&f);
    scn_free(sc);
    trace_free(&s);
    trace_free(&m);
}

static void test_replays(void **state) {
    (void)state;
    /* every target met where a kernel runs in one wave per SM share */
    replay_one("h100-sm-order-r1.csv", 328, 1);
    replay_one("h100-most-room-r1.csv", 135, 1);
    replay_one("h100-priority-r1.csv", 160, 1);
    /* the replay issues K2 and K3 when they started, so the carveout wait
     * is in the issue times and the targets hold */
    replay_one("h100-smem-carveout-r1.csv", 149, 1);
    /* not met: K4 and K5 ran in two waves on the H100 (K1 packed, the
     * carveout) and in one in the simulator: duration error p90 0.5 */
    replay_one("h100-basic-rules-r1.csv", 19, 0);
}

/* The h100 preset carries the measurement (simcore/presets.c). */
static void test_preset_calibrated(void **state) {
    (void)state;
    const sim_device *d = sim_preset_find("h100");
    assert_non_null(d);
    assert_int_equal(d->sm_order_kind, SIM_SM_ORDER_EXPLICIT);
    for (int i = 0; i < 132; i++) assert_int_equal(d->sm_order[i], h100_order[i]);
    assert_true(d->copy_bandwidth == 55.2e9);
    /* H100-C1: the CC 9.0 carveouts and the 1 KB reserve (probe.txt) */
    static const int32_t kb[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    assert_int_equal(d->nsmem_carveouts, 10);
    for (int i = 0; i < 10; i++) assert_int_equal(d->smem_carveouts_kb[i], kb[i]);
    assert_int_equal(d->smem_reserved_per_block, 1024);
    /* ... and no other preset has them: the rule is off there */
    for (size_t i = 0; i < sim_preset_count(); i++)
        if (sim_preset_at(i) != d) assert_int_equal(sim_preset_at(i)->nsmem_carveouts, 0);
    /* H100-W1 (sms.h, measured on an H200: test_h200_probes.c): the wave
     * order begins with the TPCs 124-131 whole, then the first SM of each
     * other TPC, 0, 2, 4, ...; no other preset has one */
    assert_int_equal(d->nwave_order, 132);
    for (int i = 0; i < 8; i++) assert_int_equal(d->wave_order[i], 124 + i);
    for (int i = 8; i < 70; i++) assert_int_equal(d->wave_order[i], 2 * (i - 8));
    for (int i = 70; i < 132; i++) assert_int_equal(d->wave_order[i], 2 * (i - 70) + 1);
    for (size_t i = 0; i < sim_preset_count(); i++)
        if (sim_preset_at(i) != d) assert_int_equal(sim_preset_at(i)->nwave_order, 0);
    /* a wave order that does not list every SM once is refused */
    sim_device bad = *d;
    char err[256];
    assert_int_equal(sim_device_validate(&bad, err, sizeof err), 0);
    bad.wave_order[5] = 124;
    assert_int_not_equal(sim_device_validate(&bad, err, sizeof err), 0);
    assert_string_equal(err, "device.wave_order[5]: SM 124 is outside 0..131 or listed twice");
    bad = *d;
    bad.nwave_order = 66;
    assert_int_not_equal(sim_device_validate(&bad, err, sizeof err), 0);
    assert_string_equal(err, "device.wave_order: lists 66 SMs but the device has 132");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sm_order),        cmocka_unit_test(test_most_room),
        cmocka_unit_test(test_priority),        cmocka_unit_test(test_basic_rules),
        cmocka_unit_test(test_smem_carveout),   cmocka_unit_test(test_preset_calibrated),
        cmocka_unit_test(test_replays),         cmocka_unit_test(test_two_per_sm_doubling),
#define C1(i) cmocka_unit_test_prestate(test_c1_probe, (void *)&c1_probes[i])
        C1(0), C1(1), C1(2), C1(3), C1(4), C1(5), C1(6), C1(7), C1(8), C1(9), C1(10), C1(11),
#undef C1
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
