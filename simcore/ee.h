/* ee.h -- the execution-engine (EE) queues and the block scheduler.
 *
 * One FIFO EE queue per (process, priority level) (TX2 paper §3.2 and
 * rule A1). Only the kernel at the head of an EE queue may place blocks
 * (X1, the "leftover" policy of most-room §6), and only when every
 * higher-priority EE queue of its process is empty (A2). Which process is
 * served is the driver policy's choice, where a block goes the placement
 * policy's, how long it runs the execution policy's (policy.h); whether one
 * fits is R1-R3 (sms.h). A kernel leaves its EE queue once fully dispatched
 * (G3).
 *
 * ee.c calls nothing above it: a kernel's completion is its caller's to
 * act on (ee_block_done's return value).
 *
 * All state lives in the sim_state (state.h). */
#ifndef SIMCORE_EE_H
#define SIMCORE_EE_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

/* Kernel k (index in st->ks) joins the EE queue of its process and priority. */
void ee_enqueue(sim_state *st, int32_t k, int64_t t);

typedef enum ee_dispatch_result {
    EE_DISPATCH_DONE = 0,    /* nothing more can be assigned at t */
    EE_DISPATCH_FULL         /* the trace holds st->block_limit blocks: hand
                                them to the sink and call again */
} ee_dispatch_result;

/* Assign every block that may be assigned at t (or until the block buffer
 * is full). */
ee_dispatch_result ee_dispatch(sim_state *st, int64_t t);

/* The fast path's completions (blockq.h): every block in st->bq that ends
 * at t (= st->bq.next) gives its SM back and is counted; a kernel whose
 * last block that was gets its EV_KERNEL_DONE at its place in the engine's
 * order (sim_kstate.last_end_seq). */
void ee_blocks_due(sim_state *st, int64_t t);

/* A block of kernel k ended on SM sm at t, in a run on the fast path (an
 * EV_BLOCK_DONE of a block too long for st->bq): the same as one of
 * ee_blocks_due's. */
void ee_block_done_fast(sim_state *st, int32_t k, int32_t sm, int64_t t);

/* A block of kernel k finished on SM sm at t. Returns true when that was
 * the kernel's last block: the kernel has completed (G4 is the caller's).
 * Inline: sim.c calls it once per block. */
static inline bool ee_block_done(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    sim_kstate *K = &st->ks[k];
    sms_give(&st->sms, sm, &K->need);
    if (st->share_res) st->share_res[(size_t)k * (size_t)st->sms.n + (size_t)sm]--;
    if (++K->done < K->blocks) return false;
    st->t->kernels.v[k].end = t;
    return true;
}

#endif
