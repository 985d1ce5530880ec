/* tsg.h -- GPU contexts on the runlist: the machinery the time-slice and
 * gcaps drivers share (policy.h, driver table).
 *
 * GCAPS paper §2 ("Time-shared scheduling", "GPU context switching"): each
 * process is one TSG; the GPU runs one context at a time and serves the
 * TSGs on the runlist round-robin, each for up to its time slice L,
 * switching costs theta (Def. 1). TX2 paper appendix A: a switched-out
 * context's blocks are preempted and resume later, so a block's start-end
 * spans time in which it did not run.
 *
 * The model:
 *   - `loaded` is the context on the GPU. While it runs, only its kernels
 *     place blocks (pick returns no other process) and only its blocks run.
 *   - Switching it out pauses each of its resident blocks: the completion
 *     event is cancelled, the SM resources are given back (the incoming
 *     context gets the whole GPU), the time left is kept and a trace_pause
 *     opens. Switching it back in retakes the same resources on the same
 *     SM and reschedules each completion at now + time left.
 *   - Loading a context costs theta, during which nothing runs; the first
 *     load of the run is free (nothing to save). With
 *     policy.has_context_switch_idle, a switch away from a context that has
 *     no work left (no kernel queued, no resident block: it finished within
 *     its slice, or GCAPS removed it after its segment ended) costs
 *     policy.context_switch_idle instead (NVIDIA DRIVE OS "Setting the
 *     Preemption Type": "For applications that can complete in their
 *     timeslice, context-switch overhead is minimal because the GPU is in an
 *     idled state"); a context switched out with work (its slice ran out,
 *     or GCAPS preempted it) costs theta.
 *   - Round robin among the runlist's members: the loaded context keeps the
 *     GPU until its slice ends while another member has work, or until it
 *     has no work (no kernel in its EE queues, no resident block), or until
 *     it leaves the runlist (a GCAPS update). The next is the first member
 *     with work after it in process order; if none has work, the first
 *     member (GCAPS loads the new runlist's TSG at once, Def. 2).
 *   - Which processes are members is the driver's (`member`). Copies are
 *     not context-scheduled (the copy engines' runlists are not modelled).
 *
 * Every decision is taken in tsg_pick, i.e. at the end of an instant once
 * every event of the instant has fired, so a slice that ends together with
 * the last block of the context does not pause a block that has finished.
 *
 * Trace: queue "runlist" (enqueue / dequeue of a process as it joins or
 * leaves the runlist), queue "context" (the process whose context runs on
 * the GPU: enqueue when it is switched in, dequeue when switched out; a
 * switch is the gap between the two) and a trace_pause per paused block.
 *
 * Memory: tsg_init allocates, tsg_fini frees. */
#ifndef SIMCORE_TSG_H
#define SIMCORE_TSG_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

typedef struct tsg_blk {
    int32_t k, sm;
    int64_t rec;             /* block number in the run (st->blocks_flushed + index) */
    int64_t end;             /* running: its end; paused: the run time it has left */
    sim_event_id ev;
    int64_t pause;           /* index of its open trace_pause, or -1 */
    int32_t prev, next;      /* its context's list; next also links the free list */
} tsg_blk;

typedef struct tsg_ctx {
    int32_t head, tail;      /* resident blocks, running or paused, in placement order */
    int32_t n;
    bool on_runlist;
} tsg_ctx;

typedef bool (*tsg_member_fn)(void *drv, const sim_state *st, int32_t p);

typedef struct tsg {
    tsg_ctx *ctx;            /* [nprocs] */
    int32_t nctx;
    tsg_blk *blk;
    int32_t cap, free;
    int32_t loaded;          /* context on the GPU, -1 before the first */
    bool running;            /* its blocks run (not paused) */
    bool switching;          /* a switch to `target` is under way */
    int32_t target;
    bool slice_over;
    sim_event_id slice_ev;
    int64_t L, theta;
    int64_t theta_idle;      /* a switch away from a context with no work left */
    trace_str q_runlist, q_context;
    tsg_member_fn member;
    void *drv;
} tsg;

int tsg_init(tsg *g, sim_state *st, tsg_member_fn member, void *drv);
void tsg_fini(tsg *g);
/* Has process p work for the GPU: a kernel in an EE queue or a resident block? */
bool tsg_has_work(const tsg *g, const sim_state *st, int32_t p);
/* driver_policy.pick_process, .on_event, .block_placed */
int32_t tsg_pick(tsg *g, sim_state *st, const int32_t *cand, int64_t t);
void tsg_on_event(tsg *g, sim_state *st, const sim_event *ev);
void tsg_block_placed(tsg *g, sim_state *st, int32_t k, int32_t sm, int64_t start, int64_t end);

#endif
