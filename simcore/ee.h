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

#include "carveout.h"
#include "cohort.h"
#include "state.h"

/* Kernel k (index in st->ks) joins the EE queue of its process and priority. */
void ee_enqueue(sim_state *st, int32_t k, int64_t t);

typedef enum ee_dispatch_result {
    EE_DISPATCH_DONE = 0,    /* nothing more can be assigned at t */
    EE_DISPATCH_FULL         /* the trace holds st->block_limit blocks: hand
                                them to the sink and call again */
} ee_dispatch_result;

#define EE_BUSY_LEVELS 64   /* sim_proc.ee_busy has a bit per level up to this many */

/* The kernel of process p whose blocks may be assigned now, or -1. */
static inline int32_t ee_eligible(const sim_state *st, int32_t p) {
    const ee_queue *e = &st->ee[(size_t)p * st->nlevels];
    if (st->nlevels <= EE_BUSY_LEVELS) {
        /* TX2 paper, rules A2 and X1 as in the loop below, the non-empty
         * EE queues read from a bitmask: its lowest set bit is the
         * highest-priority one (issue 9: the loop over the levels ran
         * once per instant) */
        uint64_t busy = st->procs[p].ee_busy;
        return busy ? e[__builtin_ctzll(busy)].q.head : -1;
    }
    for (size_t lvl = 0; lvl < st->nlevels; lvl++) {
        /* TX2 paper, rule A2: a lower-priority head waits while any
         * higher-priority EE queue of the process is non-empty; rule X1:
         * only the head of a queue is eligible */
        if (!fifo_empty(&e[lvl].q)) return e[lvl].q.head;
    }
    return -1;
}

/* TX2 paper, rule G3: kernel k, fully dispatched, leaves the head of its
 * EE queue at t. */
void ee_dequeue_head(sim_state *st, int32_t k, int64_t t);

/* The common case of ee_dispatch fused into one loop (issue 9): the
 * shared driver (earliest EE arrival, its pick done here), fixed block
 * times (the end computed here), no dispatch latency, and most-room read
 * straight from the room index (any other placement is still asked per
 * block). The same rules in the same order as the general loop below, so
 * the same trace: X1/A2 (eligible), the driver's pick, R1-R3 (a block
 * only where every resource fits: the index's rooms), H100-C1 where the
 * device has carveouts (carveout.h's carve_take_rank / carve_give_fast
 * keep the same rooms), G3 (dequeue_head);
 * what it skips is the calls, the per-round candidate array and the
 * general placement record's tests. Inline: sim_run calls it once per
 * instant (st->fast_dispatch), where a call's register saves and restores
 * were ~16 instructions of an instant's ~280; ee_dispatch calls it too. */
__attribute__((always_inline))   /* GCC and clang */
static inline ee_dispatch_result ee_dispatch_fast(sim_state *st, int64_t t) {
    sim_sms *s = &st->sms;
    trace *tr = st->t;
    bool most_room = st->placement->most_room;
    size_t np = st->nprocs;
    if (np > 1)
        for (size_t p = 0; p < np; p++) st->procs[p].stuck = false;
    for (;;) {
        /* driver_shared: the process whose eligible kernel reached its EE
         * queue first; a process that could not place this round is out.
         * With one process, a stuck kernel ends the dispatch at once. */
        int32_t best = -1, bp = 0;
        if (np == 1) {
            best = ee_eligible(st, 0);
        } else {
            for (size_t p = 0; p < np; p++) {
                if (st->procs[p].stuck) continue;
                int32_t k = ee_eligible(st, (int32_t)p);
                if (k >= 0 && (best < 0 || st->ks[k].ee_seq < st->ks[best].ee_seq)) {
                    best = k;
                    bp = (int32_t)p;
                }
            }
        }
        if (best < 0) return EE_DISPATCH_DONE;
        sim_kstate *K = &st->ks[best];
        trace_kernel *tk = &tr->kernels.v[best];
        if (most_room || st->cohorts) sms_index(s, best, &K->need);
        /* cohorts (sim.h): a whole wave, or a stretch of identical ones,
         * at once where that is exact (cohort.c); the loop below then
         * finds no room, or nothing left to place */
        if (st->cohorts && ee_cohort_place(st, best, t) && st->failed)
            return EE_DISPATCH_DONE;
        const int64_t *bt = K->block_time;
        size_t nbt = K->nblock_time, bi = K->bt_next;
        while (K->placed < K->blocks) {
            /* TX2 paper, rules R1-R3, and most-room §4.1/§4.3: the SM with
             * the most room, first in sm_order on ties (sms_most_room) */
            int32_t sm;
            if (most_room) {
                if (s->top <= 0) break;
                int32_t r = sms_top_rank(s);
                sm = s->order[r];
                /* H100-C1 (carveout.h): its configuration too */
                if (s->carve) carve_take_rank(s, r);
                else sms_take_rank(s, r);
            } else {
                sm = st->placement->pick(st->placement_state, s, best, &K->need);
                if (sm < 0) break;
                if (s->carve) carve_take(s, sm, &K->need);   /* H100-C1 */
                else sms_take(s, sm, &K->need);
            }
            int64_t idx = K->placed++;
            /* exec_fixed: block_time[index % nblock_time], cycled */
            int64_t dur = bt[bi], end = t + dur;
            if (++bi == nbt) bi = 0;
            trace_block *b = tr->blocks.n < tr->blocks.cap ? &tr->blocks.v[tr->blocks.n++]
                                                           : trace_add_block(tr);
            /* its completion: in st->bq with the sequence number a push
             * would have taken, or an engine event when too far ahead */
            uint64_t seq = st->eng.next_seq;
            bool ok = b != NULL;
            if (ok && bq_fits(&st->bq, dur)) {
                ok = sim_engine_take_seq(&st->eng, &seq);
                if (ok) bq_push(&st->bq, end, best, sm);
            } else if (ok) {
                ok = sim_engine_push(&st->eng, end, EV_BLOCK_DONE, best, sm) == 0;
            }
            if (!ok) {
                K->bt_next = bi;
                st->failed = true;
                return EE_DISPATCH_DONE;
            }
            /* the kernel completes where its last-scheduled latest block
             * would have ended in the engine's order (blockq.h) */
            bool later = end >= K->last_end;   /* selects, not a branch: a coin toss */
            K->last_end = later ? end : K->last_end;
            K->last_end_seq = later ? seq : K->last_end_seq;
            b->kernel = best;
            b->index = (int32_t)idx;
            b->sm = sm;
            b->start = t;
            b->end = end;
            if (idx == 0) tk->first_block = t;
            if (K->placed == K->blocks) tk->fully_dispatched = t;
            if (tr->blocks.n >= st->block_limit) {
                K->bt_next = bi;
                return EE_DISPATCH_FULL;
            }
        }
        K->bt_next = bi;
        if (K->placed == K->blocks) ee_dequeue_head(st, best, t);
        else if (np == 1) return EE_DISPATCH_DONE;
        else st->procs[bp].stuck = true;   /* fast path: out for this round */
        if (st->failed) return EE_DISPATCH_DONE;
    }
}


/* Assign every block that may be assigned at t (or until the block buffer
 * is full). */
ee_dispatch_result ee_dispatch(sim_state *st, int64_t t);

/* One block of the fast path ended: its SM's resources back, counted; the
 * kernel's completion, when it was the last, at its place (blockq.h). */
__attribute__((always_inline))   /* GCC and clang: once per block in ee_blocks_due's loop */
static inline void ee_block_ended(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    sim_kstate *K = &st->ks[k];
    if (st->sms.carve) carve_give_fast(&st->sms, sm, &K->need);   /* H100-C1 */
    else sms_give(&st->sms, sm, &K->need);
    if (++K->done < K->blocks) return;
    if (sim_engine_push_seq(&st->eng, t, K->last_end_seq, EV_KERNEL_DONE, k, 0) != 0)
        st->failed = true;
}

/* The fast path's completions (blockq.h): every block in st->bq that ends
 * at t (= st->bq.next) gives its SM back and is counted; a kernel whose
 * last block that was gets its EV_KERNEL_DONE at its place in the engine's
 * order (sim_kstate.last_end_seq). Inline in sim_run's loop (issue 9): it
 * runs once per instant, and as a call its register saves and restores
 * were ~17 instructions of the ~280 an instant costs. */
__attribute__((always_inline))   /* GCC and clang */
static inline void ee_blocks_due(sim_state *st, int64_t t) {
    sim_bq *q = &st->bq;
    for (uint32_t i = bq_take(q, t); i;) {
        const sim_bq_node *nd = &q->node[i];
        int32_t k = nd->kernel, sm = nd->sm;
        uint32_t nx = nd->next;
        bq_release(q, i);
        ee_block_ended(st, k, sm, t);
        i = nx;
    }
    bq_advance(q, t);
}

/* A block of kernel k ended on SM sm at t, in a run on the fast path (an
 * EV_BLOCK_DONE of a block too long for st->bq): the same as one of
 * ee_blocks_due's. */
void ee_block_done_fast(sim_state *st, int32_t k, int32_t sm, int64_t t);

/* A block of kernel k on SM sm was preempted (its context saved at t,
 * EV_BLOCK_PREEMPTED): the SM's resources come back and the block waits
 * to resume, before any new block (ee_dispatch). */
void ee_block_preempted(sim_state *st, int32_t k, int32_t sm, int64_t t);

/* A block of kernel k finished on SM sm at t. Returns true when that was
 * the kernel's last block: the kernel has completed (G4 is the caller's).
 * Inline: sim.c calls it once per block. */
static inline bool ee_block_done(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    sim_kstate *K = &st->ks[k];
    if (st->sms.carve) carve_give(&st->sms, sm, &K->need);   /* H100-C1 */
    else sms_give(&st->sms, sm, &K->need);
    if (st->share_res) st->share_res[(size_t)k * (size_t)st->sms.n + (size_t)sm]--;
    if (++K->done < K->blocks) return false;
    st->t->kernels.v[k].end = t;
    return true;
}

#endif
