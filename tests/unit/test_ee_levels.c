/* test_ee_levels.c -- TX2 paper rule A2 (a lower-priority EE queue's head
 * waits while any higher-priority EE queue of its process is non-empty)
 * with many priority levels: up to 64 levels ee_eligible (ee.h) reads the
 * non-empty queues from a bitmask per process (sim_proc.ee_busy, issue 9),
 * past 64 it walks the levels; both must give the same schedule.
 *
 * The workload, on the TX2 (2 SMs; 1024-thread blocks: 2 per SM, 4 on the
 * GPU at a time) without its priority range (greatest_priority 0: the real
 * TX2 clamps every priority into -1..0, TX2 paper §4.2; a device of unknown
 * range takes them as given), one process:
 *  t=0    K0 (stream 0, priority 0, the lowest) takes all 4 block slots
 *         for 0.5 s.
 *  t=0.1  K1..Kn-1, one 1-block kernel each on stream i with priority -i
 *         (a higher priority the larger i), issued lowest priority first:
 *         each goes to its own EE queue (A1), nothing fits.
 *  t=0.5  K0's blocks end: the 4 highest-priority heads start (A2), then 4
 *         more every 0.5 s, so Ki starts at 0.5 + floor((n-1-i) / 4) * 0.5 s
 *         on SM (n-1-i) % 2 (most-room, ascending order on ties: SM0 with
 *         room 2, SM1 with 2, SM0 with 1, SM1 with 1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../simcore/sim.h"

#define MS 1000000LL
#define MAXN 80

static void run_levels(int n) {
    static sim_stream streams[MAXN];
    static sim_op ops[MAXN];
    static char snames[MAXN][8], knames[MAXN][8];
    static int64_t bt[1] = { 500 * MS };
    memset(streams, 0, sizeof streams);
    memset(ops, 0, sizeof ops);
    for (int i = 0; i < n; i++) {
        snprintf(snames[i], sizeof snames[i], "S%d", i);
        snprintf(knames[i], sizeof knames[i], "K%d", i);
        streams[i] = (sim_stream){ .name = snames[i], .process = "P0", .priority = -i };
        ops[i] = (sim_op){
            .kind = SIM_OP_KERNEL,
            .name = knames[i],
            .stream = i,
            .at = i == 0 ? 0 : 100 * MS,
            .blocks = i == 0 ? 4 : 1,
            .threads = 1024,
            .block_time = bt,
            .nblock_time = 1,
        };
    }
    const sim_device *d = sim_preset_find("tx2");
    assert_non_null(d);
    sim_config cfg = { .name = "levels", .device = *d, .streams = streams,
                       .nstreams = (size_t)n, .ops = ops, .nops = (size_t)n };
    cfg.device.greatest_priority = 0;   /* as many levels as priorities */
    trace t;
    trace_init(&t);
    char err[256];
    int rc = sim_run(&cfg, &t, err, sizeof err);
    if (rc != 0) fprintf(stderr, "sim_run: %s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(t.kernels.n, (size_t)n);
    assert_int_equal(t.blocks.n, (size_t)(n + 3));
    for (size_t b = 0; b < 4; b++) {
        assert_int_equal(t.blocks.v[b].kernel, 0);
        assert_int_equal(t.blocks.v[b].start, 0);
    }
    assert_int_equal(t.kernels.v[0].end, 500 * MS);
    /* kernel i's one block: record 4 + (its rank by priority, highest
     * first), in start order */
    for (int i = 1; i < n; i++) {
        int rank = n - 1 - i;
        const trace_block *b = &t.blocks.v[4 + rank];
        assert_int_equal(b->kernel, i);
        assert_int_equal(b->start, 500 * MS + (int64_t)(rank / 4) * 500 * MS);
        assert_int_equal(b->sm, rank % 2);
        assert_int_equal(t.kernels.v[i].first_block, b->start);
        assert_int_equal(t.kernels.v[i].end, b->start + 500 * MS);
    }
    trace_free(&t);
}

/* 60 levels: the bitmask; 64: its last bit (level 63) used */
static void test_levels_bitmask(void **state) {
    (void)state;
    run_levels(60);
    run_levels(64);
}

/* 65 and 80 levels: the walk over the levels */
static void test_levels_past_bitmask(void **state) {
    (void)state;
    run_levels(65);
    run_levels(80);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_bitmask),
        cmocka_unit_test(test_levels_past_bitmask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
