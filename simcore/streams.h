/* streams.h -- the host side and the stream queues.
 *
 * The host issues each op at its time (in array order on ties); the op
 * joins its stream queue launch_latency later (TX2 paper, rule G1). The op
 * at the head of a stream queue moves on to the EE queue (kernel, G2) or the
 * CE queue (copy, C1) once the NULL-stream rules allow (N1, N2), and leaves
 * the stream queue only when it has completed (G4, C4).
 *
 * The host is CPU tasks (TX2 paper §2.2), each issuing to its streams
 * (sim_stream.task; by default one task per stream), and to the NULL stream
 * the task each of its ops names (sim_op.task; by default its own). A `sync` op models a
 * cudaStreamSynchronize on its stream: from the moment its task issues it,
 * the task issues nothing more, to any of its streams, until all earlier
 * work of the stream has completed, i.e. until the sync reaches the head of
 * the stream queue; a device sync (sim_op.sync_device, cudaDeviceSynchronize)
 * holds it until every kernel and copy its process issued before it has
 * completed, and sits in no queue. A blocking copy (sim_op.blocking, a cudaMemcpy) holds
 * its task the same way until the copy has completed (TX2 paper §2.3:
 * "they do not return until the copy is complete"). The ops held meanwhile
 * are issued then, in the task's order.
 *
 * streams.c calls down into ee.c and ce.c only; completions reach it from
 * sim.c (streams_complete_head). All state lives in the sim_state
 * (state.h); nothing here allocates. */
#ifndef SIMCORE_STREAMS_H
#define SIMCORE_STREAMS_H

#include <stdint.h>

#include "state.h"

/* The host issues op `op` at time t (or holds it while its task is blocked). */
void streams_host_issue(sim_state *st, int32_t op, int64_t t);

/* Op `op` reaches its stream queue at t (G1). */
void streams_arrive(sim_state *st, int32_t op, int64_t t);

/* The head op of stream s has completed at t: it leaves the queue (G4, C4)
 * and whatever that unblocks moves on. */
void streams_complete_head(sim_state *st, int32_t s, int64_t t);

#endif
