/* test_cohort_util.h -- the random scenarios of the cohort tests
 * (test_cohort_props.c: cohorts give the block-level trace exactly;
 * test_cohort_view.c: and the same views of it). Include after <cmocka.h>
 * and test_sim_util.h. */
#ifndef TEST_COHORT_UTIL_H
#define TEST_COHORT_UTIL_H

#include <stdio.h>

#include "test_sim_util.h"

static const char *const stream_names[] = { "S0", "S1", "S2", "S3", "S4", "S5" };
static char op_names[TB_MAX_OPS][24];   /* "K" or "C" and any size_t */

static const char *const presets[] = { "tx2", "v100", "rtx2080ti", "xavier-nx" };

static inline void scenario(tb *b, uint64_t seed, size_t nops) {
    uint64_t s = seed;
    tb_init(b, presets[tb_rng_range(&s, 0, 3)]);
    int32_t nstreams = (int32_t)tb_rng_range(&s, 1, 6);
    int nprocs = (int)tb_rng_range(&s, 1, 3);
    static const char *const procs[] = { "P0", "P1", "P2" };
    /* one draw per statement: the order of a call's arguments is the
     * compiler's, and a scenario must be the same under every compiler */
    for (int32_t i = 0; i < nstreams; i++) {
        int32_t prio = SIM_PRIO_NONE;
        if (tb_rng_range(&s, 0, 2) != 0) prio = (int32_t)tb_rng_range(&s, -1, 0);
        tb_stream(b, stream_names[i], procs[i % nprocs], prio);
    }
    static const int32_t threads[] = { 32, 64, 128, 256, 512, 1024 };
    int64_t horizon = tb_rng_range(&s, 0, 3) == 0 ? 2000 : 400000;
    for (size_t i = 0; i < nops; i++) {
        snprintf(op_names[i], sizeof op_names[i], "K%zu", i);
        int32_t st = (int32_t)tb_rng_range(&s, 0, nstreams - 1);
        int64_t at = tb_rng_range(&s, 0, horizon);
        if (tb_rng_range(&s, 0, 7) == 0) {
            snprintf(op_names[i], sizeof op_names[i], "C%zu", i);
            int64_t bytes = tb_rng_range(&s, 1, 1 << 20);
            trace_copy_dir dir = tb_rng_range(&s, 0, 1) ? TRACE_COPY_H2D : TRACE_COPY_D2H;
            tb_copy(b, op_names[i], st, at, bytes, dir);
            continue;
        }
        /* big grids: many waves of the device */
        int64_t blocks = tb_rng_range(&s, 0, 2) == 0 ? tb_rng_range(&s, 1, 300)
                                                     : tb_rng_range(&s, 300, 6000);
        int64_t smem = tb_rng_range(&s, 0, 2) == 0 ? tb_rng_range(&s, 1, 40 * KIB) : 0;
        int32_t th = threads[tb_rng_range(&s, 0, 5)];
        int64_t bt = tb_rng_range(&s, 0, 20) == 0 ? 0 : tb_rng_range(&s, 1, 3000);
        sim_op *o = tb_kernel(b, op_names[i], st, at, blocks, th, smem, bt);
        int64_t times[3];
        switch (tb_rng_range(&s, 0, 5)) {
        case 0:   /* several block times: placed block by block */
            for (size_t j = 0; j < 3; j++) times[j] = tb_rng_range(&s, 1, 3000);
            tb_times(b, o, times, 3);
            break;
        case 1:   /* several, all the same: cohorts still */
            times[0] = times[1] = o->block_time[0];
            tb_times(b, o, times, 2);
            break;
        default:
            break;
        }
    }
    if (tb_rng_range(&s, 0, 5) == 0) b->cfg.stop = tb_rng_range(&s, 1, 2000000);
}

#endif
