/* ce.h -- the copy-engine (CE) queue and the copy engines.
 *
 * A copy at the head of its stream queue joins the CE queue (TX2 paper,
 * rule C1); the copy at the head of the CE queue is assigned as soon as the
 * engine is free (C2) and leaves the CE queue then (C3); an engine performs
 * one copy at a time (§2.2) taking bytes / copy_bandwidth; the copy leaves
 * its stream queue when done (C4). A device with copies_in_flight n > 1
 * runs up to n copies of its queue at once (pageable copies staged through
 * pinned buffers overlap: ce.c); absent or 1, one at a time.
 *
 * copy_engines 1: one engine and one queue "ce" for every direction (the
 * TX2). copy_engines 2: engine 0 for h2d (and d2d and the rest), engine 1
 * for d2h, each with its own FIFO queue "ce:0" / "ce:1", so that a copy in
 * one direction never waits behind the other direction.
 *
 * ce.c calls nothing above it. All state lives in the sim_state (state.h). */
#ifndef SIMCORE_CE_H
#define SIMCORE_CE_H

#include <stdint.h>

#include "state.h"

/* The engine that serves copy direction `dir` (trace_copy_dir) with n engines. */
int32_t ce_engine_for(int32_t dir, int32_t n);

/* Duration of a copy of `bytes` at `bandwidth` bytes/s, in ns, rounded to
 * the nearest ns (the same on every IEEE-754 machine). */
int64_t ce_copy_ns(int64_t bytes, double bandwidth);

/* Copy op `op` joins the CE queue of its engine at t. */
void ce_enqueue(sim_state *st, int32_t op, int64_t t);

/* Engine e finished copy op `op` at t: the engine takes the next copy of
 * its queue. The copy's stream head completing (C4) is the caller's. */
void ce_copy_done(sim_state *st, int32_t e, int32_t op, int64_t t);

#endif
