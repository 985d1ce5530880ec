/* ee.h -- the execution-engine (EE) queues and the block scheduler.
 *
 * One FIFO EE queue per (process, priority level) (TX2 paper §3.2 and
 * rule A1). Only the kernel at the head of an EE queue may place blocks
 * (X1, the "leftover" policy of most-room §6), and only when every
 * higher-priority EE queue of its process is empty (A2). Where its blocks go
 * is the placement policy's choice (placement.h); whether one fits is R1-R3
 * (sms.h). A kernel leaves its EE queue once fully dispatched (G3).
 *
 * All state lives in the sim_state (state.h). */
#ifndef SIMCORE_EE_H
#define SIMCORE_EE_H

#include <stdint.h>

#include "state.h"

/* Kernel k (index in st->ks) joins the EE queue of its process and priority. */
void ee_enqueue(sim_state *st, int32_t k, int64_t t);

/* Assign every block that may be assigned at t. */
void ee_dispatch(sim_state *st, int64_t t);

/* A block of kernel k finished on SM sm at t. */
void ee_block_done(sim_state *st, int32_t k, int32_t sm, int64_t t);

/* With a block sink, hand it the blocks now in the trace and drop them
 * from it (sim.h, sim_block_sink); sets st->sink_failed when it refuses. */
void ee_flush_blocks(sim_state *st);

/* The queue name "ee:<process>:<level>" of EE queue q, interned on first use. */
trace_str ee_queue_name(sim_state *st, int32_t q);

#endif
