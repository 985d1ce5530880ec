/* test_fast_path.c -- the fused block scheduler (simcore/ee.h,
 * ee_dispatch_fast) gives the general loop's trace (ee.c, ee_dispatch),
 * block for block, with and without the H100 carveout rule (H100-C1,
 * simcore/carveout.h; issue 9).
 *
 * The fused path keeps the room index by steps (a room one lower after a
 * block of the indexed kernel starts, one higher after one ends) and
 * recomputes a room only where an SM's carveout configuration changes; the
 * general loop recomputes the room after every block (carve_take /
 * carve_give). Random scenarios on the h100 preset (many kernels of varied
 * threads, shared memory, registers and block times, several streams,
 * priorities and processes, most-room and round-robin placement) run both
 * ways (sim_config.general_loop) and must agree on every block's SM, start
 * and end, every kernel's times and every queue event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_sim_util.h"
#include "test_sanitizer.h"

static const char *const stream_names[] = { "S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7" };
static char op_names[TB_MAX_OPS][24];   /* "K" and any size_t (gcc -O1 cannot bound i) */

/* A random scenario of `nops` kernels on the h100 preset. Shared memory is
 * 0 (the 1 KB reserve alone), near a carveout's edge, or anywhere up to
 * 100 KB, so SMs are configured to every carveout and busy ones turn
 * blocks away (C1c); block times are short and close, so SMs empty and are
 * reconfigured while others are busy (C1b). */
static void scenario(tb *b, uint64_t seed, size_t nops) {
    uint64_t s = seed;
    tb_init(b, "h100");
    int32_t nstreams = (int32_t)tb_rng_range(&s, 1, 8);
    bool two_procs = tb_rng_range(&s, 0, 1);
    for (int32_t i = 0; i < nstreams; i++)
        tb_stream(b, stream_names[i], two_procs && (i & 1) ? "P1" : "P0",
                  tb_rng_range(&s, 0, 2) == 0 ? SIM_PRIO_NONE : (int32_t)tb_rng_range(&s, -2, 0));
    static const int32_t threads[] = { 32, 64, 96, 128, 256, 384, 512, 768, 1024 };
    static const int64_t edges[] = { 7 * KIB, 8 * KIB, 15 * KIB, 31 * KIB, 33 * KIB, 49 * KIB };
    for (size_t i = 0; i < nops; i++) {
        snprintf(op_names[i], sizeof op_names[i], "K%zu", i);
        int64_t smem;
        switch (tb_rng_range(&s, 0, 3)) {
        case 0: smem = 0; break;
        case 1: smem = edges[tb_rng_range(&s, 0, 5)]; break;
        default: smem = tb_rng_range(&s, 1, 100 * KIB); break;
        }
        sim_op *o = tb_kernel(b, op_names[i], (int32_t)tb_rng_range(&s, 0, nstreams - 1),
                              tb_rng_range(&s, 0, 20000), tb_rng_range(&s, 1, 600),
                              threads[tb_rng_range(&s, 0, 8)], smem, 0);
        int64_t most = 65536 / o->threads;   /* an SM's registers hold one block */
        o->regs = (int32_t)tb_rng_range(&s, 0, most < 128 ? most : 128);
        int64_t times[4];
        size_t nt = (size_t)tb_rng_range(&s, 1, 4);
        for (size_t j = 0; j < nt; j++) times[j] = tb_rng_range(&s, 1, 3000);
        tb_times(b, o, times, nt);
    }
}

static void run_way(tb *b, bool general, trace *t) {
    b->cfg.general_loop = general;
    tb_run(b, t);
}

/* Both traces, record for record; returns the blocks compared. */
static size_t assert_same(const trace *a, const trace *g, uint64_t seed) {
    assert_int_equal(a->blocks.n, g->blocks.n);
    for (size_t i = 0; i < a->blocks.n; i++) {
        const trace_block *x = &a->blocks.v[i], *y = &g->blocks.v[i];
        if (x->kernel != y->kernel || x->index != y->index || x->sm != y->sm ||
            x->start != y->start || x->end != y->end)
            fail_msg("seed %llu, block record %zu: fused K%d #%d SM %d [%lld, %lld], general "
                     "K%d #%d SM %d [%lld, %lld]",
                     (unsigned long long)seed, i, x->kernel, x->index, x->sm,
                     (long long)x->start, (long long)x->end, y->kernel, y->index, y->sm,
                     (long long)y->start, (long long)y->end);
    }
    assert_int_equal(a->kernels.n, g->kernels.n);
    for (size_t i = 0; i < a->kernels.n; i++) {
        const trace_kernel *x = &a->kernels.v[i], *y = &g->kernels.v[i];
        assert_int_equal(x->first_block, y->first_block);
        assert_int_equal(x->fully_dispatched, y->fully_dispatched);
        assert_int_equal(x->end, y->end);
    }
    assert_int_equal(a->queue_events.n, g->queue_events.n);
    for (size_t i = 0; i < a->queue_events.n; i++) {
        const trace_queue_event *x = &a->queue_events.v[i], *y = &g->queue_events.v[i];
        assert_int_equal(x->t, y->t);
        assert_int_equal(x->event, y->event);
        assert_string_equal(trace_str_get(a, x->queue), trace_str_get(g, y->queue));
        assert_string_equal(trace_str_get(a, x->item), trace_str_get(g, y->item));
    }
    return a->blocks.n;
}

/* One scenario both ways; true when the carveout rule changed its trace
 * (the same scenario without carveouts places some block elsewhere or
 * later), so the loop below knows the rule was in play. */
static bool check_seed(uint64_t seed, int32_t placement, size_t *blocks) {
    static tb b;
    scenario(&b, seed, 24 + (size_t)(seed % 40));
    b.cfg.policy.placement = placement;
    trace fused, general;
    run_way(&b, false, &fused);
    run_way(&b, true, &general);
    *blocks += assert_same(&fused, &general, seed);
    trace_free(&general);
    /* the rule off: both ways agree too (the fused path's untaken branch) */
    b.cfg.device.nsmem_carveouts = 0;
    trace plain, plain_general;
    run_way(&b, false, &plain);
    run_way(&b, true, &plain_general);
    assert_same(&plain, &plain_general, seed);
    bool differs = plain.blocks.n != fused.blocks.n;
    for (size_t i = 0; !differs && i < plain.blocks.n; i++)
        differs = plain.blocks.v[i].sm != fused.blocks.v[i].sm ||
                  plain.blocks.v[i].start != fused.blocks.v[i].start;
    trace_free(&plain);
    trace_free(&plain_general);
    trace_free(&fused);
    return differs;
}

static void test_random_most_room(void **state) {
    (void)state;
    size_t blocks = 0, differ = 0;
    /* (a quarter of the seeds under the sanitizers: test_sanitizer.h) */
    uint64_t seeds = TEST_UNDER_ASAN ? 30 : 120;
    for (uint64_t seed = 1; seed <= seeds; seed++) differ += check_seed(seed, 0, &blocks);
    /* the rule was in play: most scenarios place differently with it */
    assert_true(differ >= seeds / 2);
    assert_true(blocks > seeds * 24 * 100);
}

static void test_random_round_robin(void **state) {
    (void)state;
    int32_t rr = sim_placement_find("round-robin");
    assert_true(rr > 0);
    size_t blocks = 0, differ = 0;
    for (uint64_t seed = 1001; seed <= 1040; seed++) differ += check_seed(seed, rr, &blocks);
    assert_true(differ >= 20);
}

/* A device whose largest carveouts exceed an empty SM's shared memory
 * (h100 with 150 KB per SM, between the 132 and 164 KB carveouts): a block
 * asking 164 KB configures an SM to more than an empty one holds, so
 * configuring or emptying an SM may move a room by more than one, and the
 * fused path recomputes it there (sim_sms.carve_steps false); still the
 * general loop's trace. */
static void test_random_carveouts_beyond_smem(void **state) {
    (void)state;
    size_t blocks = 0, differ = 0;
    for (uint64_t seed = 2001; seed <= 2040; seed++) {
        static tb b;
        scenario(&b, seed, 24 + (size_t)(seed % 40));
        b.cfg.device.smem_per_sm = 150 * KIB;
        b.cfg.device.max_smem_per_block = 149 * KIB;
        trace fused, general;
        run_way(&b, false, &fused);
        run_way(&b, true, &general);
        blocks += assert_same(&fused, &general, seed);
        trace_free(&general);
        b.cfg.device.nsmem_carveouts = 0;
        trace plain;
        run_way(&b, false, &plain);
        bool d = plain.blocks.n != fused.blocks.n;
        for (size_t i = 0; !d && i < plain.blocks.n; i++)
            d = plain.blocks.v[i].sm != fused.blocks.v[i].sm ||
                plain.blocks.v[i].start != fused.blocks.v[i].start;
        differ += d;
        trace_free(&plain);
        trace_free(&fused);
    }
    assert_true(differ >= 20);
    assert_true(blocks > 40 * 24 * 100);
}

/* C1b and C1c on the fused path, by hand. K1 (1024 threads, 8 KB: 2 x 9 KB
 * per SM, carveout 32 KB) takes one block per SM (most room first) and
 * configures every SM to 32 KB. K2 (256 threads, 8 KB: 8 x 9 KB, carveout
 * 100 KB) would fit in the 1024 threads left, but no SM configured to 32 KB
 * takes it (C1c), so it waits at the head of P0's EE queue. K3 (1024
 * threads, no shared memory: carveout 8 KB <= 32 KB) of process P1 takes
 * the threads left, one block per SM. At 1000 every SM empties, is
 * reconfigured by K2's first block there to 100 KB (C1b) and takes two of
 * its 264 blocks (room 8, then 7 on every SM: most room spreads them). */
static void test_carveout_by_hand(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "h100");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    int32_t s3 = tb_stream(&b, "S3", "P1", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 132, 1024, 8 * KIB, 1000);
    tb_kernel(&b, "K2", s2, 0, 264, 256, 8 * KIB, 500);
    tb_kernel(&b, "K3", s3, 0, 132, 1024, 0, 1000);
    trace t, g;
    run_way(&b, false, &t);
    run_way(&b, true, &g);
    assert_same(&t, &g, 0);
    assert_int_equal(t.blocks.n, 528);
    int32_t per_sm[3][SIM_MAX_SMS];
    memset(per_sm, 0, sizeof per_sm);
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *x = &t.blocks.v[i];
        assert_int_equal(x->start, x->kernel == 1 ? 1000 : 0);
        assert_int_equal(x->end, x->kernel == 1 ? 1500 : 1000);
        per_sm[x->kernel][x->sm]++;
    }
    for (int32_t sm = 0; sm < 132; sm++) {
        assert_int_equal(per_sm[0][sm], 1);
        assert_int_equal(per_sm[1][sm], 2);
        assert_int_equal(per_sm[2][sm], 1);
    }
    assert_int_equal(t.kernels.v[1].first_block, 1000);
    assert_int_equal(t.kernels.v[1].end, 1500);
    trace_free(&t);
    trace_free(&g);
    /* without the rule K2 takes the threads K1 left at 0 */
    b.cfg.device.nsmem_carveouts = 0;
    run_way(&b, false, &t);
    assert_int_equal(t.kernels.v[1].first_block, 0);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_most_room),
        cmocka_unit_test(test_random_round_robin),
        cmocka_unit_test(test_random_carveouts_beyond_smem),
        cmocka_unit_test(test_carveout_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
