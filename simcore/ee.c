/* ee.c -- EE queues, the leftover policy and block dispatch. See ee.h. */
#include "ee.h"

#include "qnames.h"

static trace_str ee_queue_name(sim_state *st, int32_t q) {
    ee_queue *e = &st->ee[q];
    if (e->qname) return e->qname;
    int32_t p = q / (int32_t)st->nlevels, lvl = q % (int32_t)st->nlevels;
    e->qname = qname_ee(st->t, trace_str_get(st->t, st->procs[p].name), st->levels[lvl],
                        st->tx2_levels);
    if (!e->qname) st->failed = true;
    return e->qname;
}

static void qevent(sim_state *st, int64_t t, int32_t q, int32_t k, trace_queue_op op) {
    trace_str name = ee_queue_name(st, q);
    if (!trace_add_queue_event(st->t, t, name, st->ops[st->ks[k].op].item, op)) st->failed = true;
}

void ee_enqueue(sim_state *st, int32_t k, int64_t t) {
    sim_kstate *K = &st->ks[k];
    /* TX2 paper, rule A1: the EE queue matching the stream's priority
     * (and the kernel's address space, §3.2: one EE queue per address space) */
    int32_t q = K->proc * (int32_t)st->nlevels + K->level;
    K->ee_seq = st->next_ee_seq++;
    fifo_push(&st->ee[q].q, st->k_ee_next, k);
    qevent(st, t, q, k, TRACE_ENQUEUE);
}

/* The kernel of process p whose blocks may be assigned now, or -1. */
static int32_t eligible(const sim_state *st, int32_t p) {
    const ee_queue *e = &st->ee[(size_t)p * st->nlevels];
    for (size_t lvl = 0; lvl < st->nlevels; lvl++) {
        /* TX2 paper, rule A2: a lower-priority head waits while any
         * higher-priority EE queue of the process is non-empty; rule X1:
         * only the head of a queue is eligible */
        if (!fifo_empty(&e[lvl].q)) return e[lvl].q.head;
    }
    return -1;
}

/* Assign the next block of kernel k to SM sm at t; its end is the
 * execution policy's. */
static void place(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    sim_kstate *K = &st->ks[k];
    int64_t idx = K->placed++;
    sms_take(&st->sms, sm, &K->need);
    if (st->share_res) st->share_res[(size_t)k * (size_t)st->sms.n + (size_t)sm]++;
    int64_t start = t + st->cfg->policy.dispatch_latency;
    int64_t end = st->exec->block_end(st->exec_state, st, k, idx, sm, start);
    /* sim_run reserved every block's record (with a sink, a batch's), so
     * this is nearly always a store into room already there; every field
     * is written below */
    trace *tr = st->t;
    trace_block *b = tr->blocks.n < tr->blocks.cap ? &tr->blocks.v[tr->blocks.n++]
                                                   : trace_add_block(tr);
    if (!b) {
        st->failed = true;
        return;
    }
    b->kernel = k;
    b->index = (int32_t)idx;
    b->sm = sm;
    b->start = start;
    b->end = end == SIM_END_LATER ? TRACE_NONE : end;
    trace_kernel *tk = &st->t->kernels.v[k];
    if (idx == 0) tk->first_block = start;
    if (K->placed == K->blocks) tk->fully_dispatched = start;
    if (end == SIM_END_LATER) return;
    /* a driver that switches contexts owns the completion: it may pause the
     * block (GCAPS paper §2; TX2 paper appendix A) */
    if (st->driver->block_placed) st->driver->block_placed(st->driver_state, st, k, sm, start, end);
    else if (sim_engine_push(&st->eng, end, EV_BLOCK_DONE, k, sm) != 0) st->failed = true;
}

/* TX2 paper, rule G3: dequeued from the EE queue once fully dispatched */
static void dequeue_head(sim_state *st, int32_t k, int64_t t) {
    const sim_kstate *K = &st->ks[k];
    int32_t q = K->proc * (int32_t)st->nlevels + K->level;
    fifo_pop(&st->ee[q].q, st->k_ee_next);
    qevent(st, t, q, k, TRACE_DEQUEUE);
}

/* The common case of ee_dispatch fused into one loop (issue 9): the
 * shared driver (earliest EE arrival, its pick done here), fixed block
 * times (the end computed here), no dispatch latency, and most-room read
 * straight from the room index (any other placement is still asked per
 * block). The same rules in the same order as the general loop below, so
 * the same trace: X1/A2 (eligible), the driver's pick, R1-R3 (a block
 * only where every resource fits: the index's rooms), G3 (dequeue_head);
 * what it skips is the calls, the per-round candidate array and the
 * general placement record's tests. */
static ee_dispatch_result dispatch_fast(sim_state *st, int64_t t) {
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
            best = eligible(st, 0);
        } else {
            for (size_t p = 0; p < np; p++) {
                if (st->procs[p].stuck) continue;
                int32_t k = eligible(st, (int32_t)p);
                if (k >= 0 && (best < 0 || st->ks[k].ee_seq < st->ks[best].ee_seq)) {
                    best = k;
                    bp = (int32_t)p;
                }
            }
        }
        if (best < 0) return EE_DISPATCH_DONE;
        sim_kstate *K = &st->ks[best];
        trace_kernel *tk = &tr->kernels.v[best];
        if (most_room) sms_index(s, best, &K->need);
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
                sms_take_rank(s, r);
            } else {
                sm = st->placement->pick(st->placement_state, s, best, &K->need);
                if (sm < 0) break;
                sms_take(s, sm, &K->need);
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
        if (K->placed == K->blocks) dequeue_head(st, best, t);
        else if (np == 1) return EE_DISPATCH_DONE;
        else st->procs[bp].stuck = true;   /* fast path: out for this round */
        if (st->failed) return EE_DISPATCH_DONE;
    }
}

/* ISCA'17 §3.6, static resource management: "when a QoS kernel is running
 * ... an equal number of threads are assigned to the kernels on that SM".
 * While a kernel with a QoS goal is live (runs with goals have a quota warp
 * policy: sim.c), a kernel may hold on an SM at most the blocks that fit in
 * 1/n of an empty SM, n the kernels live (blocks resident, or the head of an
 * EE queue now); 0 when the rule does not apply. */
static int32_t share_cap(sim_state *st, int32_t k) {
    if (!st->share_res) return 0;
    int32_t n = 0;
    bool qos = false;
    for (size_t j = 0; j < st->nkernels; j++) {
        const sim_kstate *J = &st->ks[j];
        bool live = J->placed > J->done;
        for (size_t p = 0; !live && p < st->nprocs; p++) live = st->cand[p] == (int32_t)j;
        if (!live) continue;
        n++;
        qos |= st->cfg->ops[J->op].qos_goal > 0;
    }
    if (!qos || n < 2) return 0;
    int32_t cap = sms_share(&st->sms, &st->ks[k].need, n);
    return cap > 0 ? cap : 1;
}

/* The SM for the next block of k under the §3.6 share `cap`: one where k
 * holds fewer than cap blocks and the block fits, fewest of k's blocks
 * first (the share is spread over the SMs), then most room, then the
 * device's SM order; -1 when none. */
static int32_t share_pick(sim_state *st, int32_t k, int32_t cap) {
    const sim_kstate *K = &st->ks[k];
    const int32_t *res = st->share_res + (size_t)k * (size_t)st->sms.n;
    int32_t best = -1, bres = 0, broom = 0;
    for (int32_t r = 0; r < st->sms.n; r++) {
        int32_t sm = st->sms.order[r];
        if (res[sm] >= cap) continue;
        int32_t room = sms_room(&st->sms, sm, &K->need);
        if (room <= 0) continue;
        if (best < 0 || res[sm] < bres || (res[sm] == bres && room > broom)) {
            best = sm;
            bres = res[sm];
            broom = room;
        }
    }
    return best;
}

ee_dispatch_result ee_dispatch(sim_state *st, int64_t t) {
    /* a dispatch latency keeps the block scheduler busy per block */
    if (t < st->sched_free_at) return EE_DISPATCH_DONE;
    if (st->fast_dispatch) return dispatch_fast(st, t);
    int64_t lat = st->cfg->policy.dispatch_latency;
    for (size_t p = 0; p < st->nprocs; p++) st->procs[p].stuck = false;
    for (;;) {
        /* which process is served is the driver's choice; a process that
         * could not place a block in this round is no candidate */
        bool any = false;
        for (size_t p = 0; p < st->nprocs; p++) {
            st->cand[p] = st->procs[p].stuck ? -1 : eligible(st, (int32_t)p);
            any |= st->cand[p] >= 0;
        }
        if (!any && st->driver->pick_only) return EE_DISPATCH_DONE;
        int32_t bp = st->driver->pick_process(st->driver_state, st, st->cand, t);
        if (bp < 0) return EE_DISPATCH_DONE;
        int32_t best = st->cand[bp];
        sim_kstate *K = &st->ks[best];
        while (K->placed < K->blocks) {
            /* TX2 paper, rules R1-R3: a block is assigned only where all of
             * its resources are available; the policy picks among those SMs */
            int32_t cap = share_cap(st, best);
            int32_t sm = cap > 0 ? share_pick(st, best, cap)
                                 : st->placement->pick(st->placement_state, &st->sms, best, &K->need);
            if (sm < 0) break;
            place(st, best, sm, t);
            if (st->failed) return EE_DISPATCH_DONE;
            if (lat > 0) {
                if (K->placed == K->blocks) dequeue_head(st, best, t);
                st->sched_free_at = t + lat;
                if (sim_engine_push(&st->eng, t + lat, EV_DISPATCH, 0, 0) != 0) st->failed = true;
                return st->t->blocks.n >= st->block_limit ? EE_DISPATCH_FULL : EE_DISPATCH_DONE;
            }
            /* the caller empties the buffer and calls again; the next call
             * finds this kernel (or one with an earlier claim that still
             * cannot place) where this one left off */
            if (st->t->blocks.n >= st->block_limit) return EE_DISPATCH_FULL;
        }
        if (K->placed == K->blocks) dequeue_head(st, best, t);
        else st->procs[bp].stuck = true;
        if (st->failed) return EE_DISPATCH_DONE;
    }
}

/* One block of the fast path ended: its SM's resources back, counted; the
 * kernel's completion, when it was the last, at its place (blockq.h). */
__attribute__((always_inline))   /* GCC and clang: once per block in ee_blocks_due's loop */
static inline void block_ended(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    sim_kstate *K = &st->ks[k];
    sms_give(&st->sms, sm, &K->need);
    if (++K->done < K->blocks) return;
    if (sim_engine_push_seq(&st->eng, t, K->last_end_seq, EV_KERNEL_DONE, k, 0) != 0)
        st->failed = true;
}

void ee_blocks_due(sim_state *st, int64_t t) {
    sim_bq *q = &st->bq;
    for (uint32_t i = bq_take(q, t); i;) {
        const sim_bq_node *nd = &q->node[i];
        int32_t k = nd->kernel, sm = nd->sm;
        uint32_t nx = nd->next;
        bq_release(q, i);
        block_ended(st, k, sm, t);
        i = nx;
    }
    bq_advance(q, t);
}

void ee_block_done_fast(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    block_ended(st, k, sm, t);
}
