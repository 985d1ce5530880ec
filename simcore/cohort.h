/* cohort.h -- blocks placed as cohorts (issue 28, "cost by kernels, not
 * blocks"; sim_config.cohorts, trace_cohort in trace.h). See cohort.c. */
#ifndef SIMCORE_COHORT_H
#define SIMCORE_COHORT_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

/* Called by the fused block scheduler (ee.h) at instant t for kernel k, the
 * one it serves, with the room index describing k: when the placement is
 * exact as a cohort (every SM idle, most-room, k's blocks all alike),
 * place a wave of k's blocks, or as many identical waves as run before
 * anything else can happen, and return true (st->failed on OOM); else
 * false, nothing done: place block by block. */
bool ee_cohort_place(sim_state *st, int32_t k, int64_t t);

#endif
