/* rta_gen.h -- random tasksets for schedulability experiments, as in the
 * GCAPS paper's §7.1 and Table 3 (ECRTS 2024), deterministic from a seed.
 *
 * Pure: no I/O, no globals, no allocation; a taskset is written into a
 * caller-owned rta_gen_buf. The same (params, seed, point, index) always
 * gives the same taskset, whichever thread, process or machine (with the
 * same libm) draws it, so a sweep can be cut into shards and merged back.
 *
 * Two ways to draw (rta_gen_params.released_code):
 *   false  the paper's words: UUniFast (Bini & Buttazzo) to split a core's
 *          utilisation over its tasks and a task's G over its segments;
 *          worst-fit *decreasing* (tasks by decreasing utilisation, each to
 *          the least-loaded core) when tasks are not drawn per core.
 *   true   what the authors' taskset_gen.py does: its divider keeps the
 *          larger piece r^(1/(n-i)) * rest first and shuffles, and WFD takes
 *          the tasks in generation order (its sort result is discarded).
 * Both: times are whole multiples of 10 us as the released code's 2-decimal
 * ms values are, RM priorities (shorter period higher, ties in generation
 * order), best-effort tasks chosen uniformly when be_pct > 0. */
#ifndef SIMCORE_RTA_GEN_H
#define SIMCORE_RTA_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "rta.h"

#define RTA_GEN_MAX_SEGS 8                 /* GPU segments per generated task */

/* Ratios are in hundredths (40 = 0.40), as the released code draws them. */
typedef struct rta_gen_params {
    int32_t cpus;                          /* 4 */
    int32_t tasks;                         /* > 0: this many tasks, per-task utilisation, WFD;
                                              0: tasks_per_cpu per core, UUniFast per core */
    int32_t tasks_per_cpu_lo, tasks_per_cpu_hi;   /* 3, 6 */
    int32_t util_cpu_lo, util_cpu_hi;      /* 40, 60 */
    int32_t util_task_lo, util_task_hi, util_task_step;   /* 5, 25, 5 */
    int32_t gpu_ratio_lo, gpu_ratio_hi;    /* 40, 60: chance that a task uses the GPU */
    int32_t period_lo_ms, period_hi_ms;    /* 30, 500 */
    int32_t segs_lo, segs_hi;              /* 1, 3 GPU segments */
    int32_t g_to_c_lo, g_to_c_hi;          /* 20, 200: G_i / C_i */
    int32_t misc_lo, misc_hi;              /* 10, 30: G^m / G per segment */
    int32_t be_pct;                        /* 0: share of tasks made best-effort */
    bool released_code;
} rta_gen_params;

typedef struct rta_gen_buf {
    rta_task t[RTA_MAX_TASKS];
    int64_t misc[RTA_MAX_TASKS * RTA_GEN_MAX_SEGS], exec[RTA_MAX_TASKS * RTA_GEN_MAX_SEGS];
} rta_gen_buf;

/* Table 3 of the paper, with the released code's per-task utilisations
 * for the number-of-tasks experiment. */
void rta_gen_defaults(rta_gen_params *p);

/* 0, or -1 with one line in err when the ranges cannot be drawn from. */
int rta_gen_check(const rta_gen_params *p, char *err, size_t errlen);

/* Draw taskset `index` of sweep point `point` into buf; returns the number
 * of tasks. The caller sets epsilon, theta, time_slice and semantics. */
size_t rta_gen_taskset(const rta_gen_params *p, uint64_t seed, uint32_t point, uint64_t index,
                       rta_gen_buf *buf, rta_taskset *ts);

#endif
