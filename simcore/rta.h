/* rta.h -- response-time analysis of GPU-using real-time tasks under the
 * default TSG round-robin driver and under GCAPS (Wang, Liu, Wong, Kim,
 * "GCAPS: GPU Context-Aware Preemptive Priority-based Scheduling for
 * Real-Time Tasks", ECRTS 2024, §6; the equations are restated in
 * ../shared/docs/gcaps-analysis.md because the paper text lost its math).
 *
 * Pure: no I/O, no globals, no allocation. An analysis reads a taskset and
 * writes one response-time bound per task into arrays the caller owns, so a
 * sweep can analyse millions of tasksets with no malloc in the loop. Every
 * scratch array lives on the stack and is bounded by RTA_MAX_TASKS.
 *
 * Times are int64_t nanoseconds; the fixed-point iteration is exact integer
 * arithmetic with ceilings (saturating, so absurd inputs fail, never wrap).
 *
 * Ownership: an rta_taskset only borrows (names, per-segment arrays).
 *
 * The six analyses (rta_approach):
 *   tsg_rr_busy / tsg_rr_suspend     §6.2: Lemmas 1-3 with 4-5 (busy) or 6-7
 *                                    (self-suspension)
 *   gcaps_busy / gcaps_suspend       §6.3: Lemmas 8-9 with 10-12 (busy) or
 *                                    13-15 (self-suspension), GPU priorities
 *                                    as given (default: the CPU priority)
 *   gcaps_*_gprio                    §5.3/§7.1.1: the plain GCAPS test first;
 *                                    when it fails, Audsley's assignment of
 *                                    GPU-segment priorities analysed per §6.4
 *   fmlp_* / mpcp_*                  §7.1's lock-based baselines (Fig. 8):
 *                                    the GPU as one FMLP+ or MPCP lock, as
 *                                    the released code analyses it (rta_lock.h)
 * Semantics: RTA_PRINTED follows the lemmas as printed (with the modelling
 * choices stated in rta.c where each is made); RTA_RELEASED_CODE computes
 * what the authors' released analysis code computes (the differences listed
 * in the appendix of gcaps-analysis.md). */
#ifndef SIMCORE_RTA_H
#define SIMCORE_RTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Enough for any taskset of the paper (at most 60 tasks in §7.1) with a
 * wide margin; it bounds the stack the analysis uses (about 100 KiB). */
#define RTA_MAX_TASKS 256
#define RTA_MAX_SEGMENTS 64           /* GPU segments per task */
/* Interference terms one analysis may evaluate (rta.c, M9): about 0.1-0.3 s
 * of one core; the paper's tasksets need thousands. */
#define RTA_MAX_WORK INT64_C(100000000)

/* rta_result.wcrt[] values other than a bound */
#define RTA_FAILED (-1)               /* R passed the deadline, or not reached */
#define RTA_NOT_ANALYSED (-2)         /* a best-effort task */

typedef enum rta_approach {
    RTA_TSG_RR_BUSY = 0,
    RTA_TSG_RR_SUSPEND,
    RTA_GCAPS_BUSY,
    RTA_GCAPS_SUSPEND,
    RTA_GCAPS_BUSY_GPRIO,
    RTA_GCAPS_SUSPEND_GPRIO,
    RTA_FMLP_BUSY,                    /* FMLP+ GPU lock, rta_lock.h */
    RTA_FMLP_SUSPEND,
    RTA_MPCP_BUSY,                    /* MPCP GPU lock, rta_lock.h */
    RTA_MPCP_SUSPEND,
    RTA_NAPPROACHES
} rta_approach;

/* RTA_CORRECTED: the printed lemmas with the corrections of issue 27 (A-D
 * and the runlist lock's hand-off; rta.c, K1-K5 and K7; docs/rta.md) for
 * tsg_rr_* and gcaps_*; the lock-based analyses are the released code's in
 * every semantics but this one, which adds K6, K8 and K9 (rta_lock.c). */
typedef enum rta_semantics { RTA_PRINTED = 0, RTA_RELEASED_CODE, RTA_CORRECTED } rta_semantics;

typedef struct rta_task {
    const char *name;                 /* borrowed; only for messages */
    int32_t cpu;                      /* core, 0..cpus-1 (partitioned) */
    int32_t priority;                 /* Linux RT priority: larger = higher */
    int32_t gpu_priority;             /* larger = higher; used when has_gpu_priority */
    bool has_gpu_priority;
    bool best_effort;                 /* no RT priority: never analysed */
    int64_t period, deadline;         /* T_i, D_i <= T_i */
    int64_t cpu_total;                /* C_i: sum of the CPU segments */
    int32_t cpu_segments;             /* eta^c_i (not used by any lemma) */
    int32_t gpu_segments;             /* eta^g_i */
    const int64_t *misc;              /* G^m_{i,j}, gpu_segments of them */
    const int64_t *exec;              /* G^e_{i,j} */
} rta_task;

typedef struct rta_taskset {
    const rta_task *tasks;
    size_t n;
    int32_t cpus;
    int64_t epsilon;                  /* runlist update delay (Def. 2) */
    int64_t theta;                    /* TSG context switch overhead (Def. 1) */
    int64_t time_slice;               /* L, the TSG time slice */
    rta_semantics semantics;
} rta_taskset;

typedef struct rta_result {
    bool schedulable;
    /* Audsley's GPU-priority assignment was used (gcaps_*_gprio after the
     * plain test failed, and it succeeded): gpu_priority[] holds it. */
    bool gpu_assigned;
    /* The given GPU priorities order two tasks of one core differently from
     * their CPU priorities: GCAPS treats that as infeasible (§5.3). */
    bool order_inverted;
    /* The analysis stopped at RTA_MAX_WORK: the bounds still open were
     * given up as RTA_FAILED (pessimistic, never optimistic). */
    bool budget_exhausted;
    int64_t *wcrt;                    /* caller's, n entries: ns, RTA_FAILED, RTA_NOT_ANALYSED */
    int32_t *gpu_priority;            /* caller's, n entries, or NULL */
} rta_result;

const char *rta_approach_name(rta_approach a);
/* -1 when the name is none of the ten */
int rta_approach_parse(const char *name);

/* Check what the analysis assumes (n <= RTA_MAX_TASKS, periods > 0,
 * 0 < D <= T, cores within cpus, distinct priorities among real-time
 * tasks, non-negative times, L > 0). 0, or -1 with one line in err. */
int rta_check(const rta_taskset *ts, char *err, size_t errlen);

/* Analyse a checked taskset. Never fails: an unschedulable taskset is a
 * result. res->wcrt (and res->gpu_priority when not NULL) must hold n. */
void rta_analyse(const rta_taskset *ts, rta_approach a, rta_result *res);

#endif
