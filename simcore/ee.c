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
    if (st->nlevels <= EE_BUSY_LEVELS) st->procs[K->proc].ee_busy |= 1ull << K->level;
    qevent(st, t, q, k, TRACE_ENQUEUE);
}

/* Assign the next block of kernel k to SM sm at t; its end is the
 * execution policy's. */
static void place(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    sim_kstate *K = &st->ks[k];
    int64_t idx = K->placed++;
    if (st->sms.carve) carve_take(&st->sms, sm, &K->need);   /* H100-C1 */
    else sms_take(&st->sms, sm, &K->need);
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
void ee_dequeue_head(sim_state *st, int32_t k, int64_t t) {
    const sim_kstate *K = &st->ks[k];
    int32_t q = K->proc * (int32_t)st->nlevels + K->level;
    fifo_pop(&st->ee[q].q, st->k_ee_next);
    if (st->nlevels <= EE_BUSY_LEVELS && fifo_empty(&st->ee[q].q))
        st->procs[K->proc].ee_busy &= ~(1ull << K->level);
    qevent(st, t, q, k, TRACE_DEQUEUE);
}

/* The ranks of sm_order kernel k may use: its stream's partition now when
 * the placement honours partitions (spart.c), else every rank. */
static void part_ranks(const sim_state *st, int32_t k, int32_t *lo, int32_t *hi) {
    *lo = 0;
    *hi = st->sms.n;
    if (!st->placement->partitioned) return;
    sim_part_span(st, st->cfg->ops[st->ks[k].op].stream, lo, hi);
}

/* ISCA'17 §3.6, static resource management: "when a QoS kernel is running
 * ... an equal number of threads are assigned to the kernels on that SM".
 * While a kernel with a QoS goal is live (runs with goals have a quota warp
 * policy: sim.c), a kernel may hold on an SM at most the blocks that fit in
 * 1/n of an empty SM, n the live kernels (blocks resident, or the head of
 * an EE queue now) that may use that SM: every live kernel, or under a
 * partitioned placement those whose stream's partition holds it (§3.6's
 * trio: "The QoS kernel will run on 16 SMs and each non-QoS kernel will
 * run on 8 SMs", two kernels on each SM). live[] gets the live kernels'
 * indices; returns their number, 0 when the rule does not apply. */
static size_t share_live(sim_state *st, int32_t *live) {
    if (!st->share_res) return 0;
    size_t n = 0;
    bool qos = false;
    for (size_t j = 0; j < st->nkernels; j++) {
        const sim_kstate *J = &st->ks[j];
        if (J->placed <= J->done) continue;
        live[n++] = (int32_t)j;
        qos |= st->cfg->ops[J->op].qos_goal > 0;
    }
    /* each process's head with none resident, read from the EE queues: one
     * that could not place a block this round still shares the SM (the
     * round's st->cand is -1 for it). A kernel is one process's, so no head
     * is counted twice; share_pick reads live[] as a set. */
    for (size_t p = 0; p < st->nprocs; p++) {
        int32_t h = ee_eligible(st, (int32_t)p);
        if (h < 0 || st->ks[h].placed > st->ks[h].done) continue;
        live[n++] = h;
        qos |= st->cfg->ops[st->ks[h].op].qos_goal > 0;
    }
    return qos && n >= 2 ? n : 0;
}

/* The SM for the next block of k under the §3.6 share of the `nlive` live
 * kernels: one of k's ranks where k holds fewer blocks than its share of
 * that SM and the block fits, fewest of k's blocks first (the share is
 * spread over the SMs), then most room, then the device's SM order; -1
 * when none. */
static int32_t share_pick(sim_state *st, int32_t k, const int32_t *live, size_t nlive) {
    const sim_kstate *K = &st->ks[k];
    const int32_t *res = st->share_res + (size_t)k * (size_t)st->sms.n;
    int32_t lo, hi, best = -1, bres = 0, broom = 0;
    /* scratch after live[] (sim.c): the live kernels' partitions, and the
     * share of 1/n of an SM by n (0: not yet computed) */
    int32_t *plo = st->share_tmp + st->nkernels, *phi = plo + st->nkernels, *capn = phi + st->nkernels;
    for (size_t i = 0; i < nlive; i++) part_ranks(st, live[i], &plo[i], &phi[i]);
    for (size_t n = 0; n <= nlive; n++) capn[n] = 0;
    part_ranks(st, k, &lo, &hi);
    for (int32_t r = lo; r < hi; r++) {
        int32_t sm = st->sms.order[r];
        size_t n = 0;
        for (size_t i = 0; i < nlive; i++) n += plo[i] <= r && r < phi[i];
        if (n < 1) n = 1;
        if (!capn[n]) {
            int32_t c = sms_share(&st->sms, &K->need, (int32_t)n);
            capn[n] = c > 0 ? c : 1;
        }
        int32_t cap = capn[n] + (st->share_adj ? st->share_adj[(size_t)k * (size_t)st->sms.n +
                                                               (size_t)sm] : 0);
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

void ee_block_preempted(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    (void)t;
    sim_kstate *K = &st->ks[k];
    if (st->sms.carve) carve_give(&st->sms, sm, &K->need);   /* H100-C1 */
    else sms_give(&st->sms, sm, &K->need);
    if (st->share_res) st->share_res[(size_t)k * (size_t)st->sms.n + (size_t)sm]--;
    K->saved++;
    st->nsaved++;
}

/* Resume one preempted block of kernel k on SM sm at t: the execution
 * policy restores it (exec_warp.c) and the trace gets a record for the rest
 * of its run (the record of its run before the preemption ended there). */
static void resume(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    sim_kstate *K = &st->ks[k];
    K->saved--;
    st->nsaved--;
    if (st->sms.carve) carve_take(&st->sms, sm, &K->need);   /* H100-C1 */
    else sms_take(&st->sms, sm, &K->need);
    if (st->share_res) st->share_res[(size_t)k * (size_t)st->sms.n + (size_t)sm]++;
    int64_t start = t + st->cfg->policy.dispatch_latency, idx = 0;
    int64_t end = st->exec->block_resume(st->exec_state, st, k, sm, start, &idx);
    trace_block *b = trace_add_block(st->t);
    if (!b) {
        st->failed = true;
        return;
    }
    *b = (trace_block){ .kernel = k, .index = (int32_t)idx, .sm = sm, .start = start,
                        .end = end == SIM_END_LATER ? TRACE_NONE : end };
    if (end != SIM_END_LATER && sim_engine_push(&st->eng, end, EV_BLOCK_DONE, k, sm) != 0)
        st->failed = true;
}

/* Preempted blocks resume before any new block is placed, kernels in
 * index order, each where a new block of its kernel would go. Read here:
 * ISCA'17 §2.3 and §3.6 preempt ("saving context of a running kernel one
 * SM at a time [31, 37]", TBs "swapped out") without saying when a saved
 * TB comes back; first keeps a preempted kernel from waiting behind its
 * own new blocks. Returns -1 to go on to new blocks, else what
 * ee_dispatch returns. */
static int resume_saved(sim_state *st, int64_t t) {
    int64_t lat = st->cfg->policy.dispatch_latency;
    for (size_t k = 0; k < st->nkernels && st->nsaved > 0; k++) {
        while (st->ks[k].saved > 0) {
            size_t nlive = share_live(st, st->share_tmp);
            int32_t sm = nlive ? share_pick(st, (int32_t)k, st->share_tmp, nlive)
                               : st->placement->pick(st->placement_state, &st->sms, (int32_t)k,
                                                     &st->ks[k].need);
            if (sm < 0) break;
            resume(st, (int32_t)k, sm, t);
            if (st->failed) return EE_DISPATCH_DONE;
            if (lat > 0) {
                st->sched_free_at = t + lat;
                if (sim_engine_push(&st->eng, t + lat, EV_DISPATCH, 0, 0) != 0) st->failed = true;
                return st->t->blocks.n >= st->block_limit ? EE_DISPATCH_FULL : EE_DISPATCH_DONE;
            }
            if (st->t->blocks.n >= st->block_limit) return EE_DISPATCH_FULL;
        }
    }
    return -1;
}

ee_dispatch_result ee_dispatch(sim_state *st, int64_t t) {
    /* a dispatch latency keeps the block scheduler busy per block */
    if (t < st->sched_free_at) return EE_DISPATCH_DONE;
    if (st->fast_dispatch) return ee_dispatch_fast(st, t);
    if (st->nsaved > 0) {
        int r = resume_saved(st, t);
        if (r >= 0) return (ee_dispatch_result)r;
    }
    int64_t lat = st->cfg->policy.dispatch_latency;
    for (size_t p = 0; p < st->nprocs; p++) st->procs[p].stuck = false;
    for (;;) {
        /* which process is served is the driver's choice; a process that
         * could not place a block in this round is no candidate */
        bool any = false;
        for (size_t p = 0; p < st->nprocs; p++) {
            st->cand[p] = st->procs[p].stuck ? -1 : ee_eligible(st, (int32_t)p);
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
            size_t nlive = share_live(st, st->share_tmp);
            int32_t sm = nlive ? share_pick(st, best, st->share_tmp, nlive)
                               : st->placement->pick(st->placement_state, &st->sms, best, &K->need);
            if (sm < 0) break;
            place(st, best, sm, t);
            if (st->failed) return EE_DISPATCH_DONE;
            if (lat > 0) {
                if (K->placed == K->blocks) ee_dequeue_head(st, best, t);
                st->sched_free_at = t + lat;
                if (sim_engine_push(&st->eng, t + lat, EV_DISPATCH, 0, 0) != 0) st->failed = true;
                return st->t->blocks.n >= st->block_limit ? EE_DISPATCH_FULL : EE_DISPATCH_DONE;
            }
            /* the caller empties the buffer and calls again; the next call
             * finds this kernel (or one with an earlier claim that still
             * cannot place) where this one left off */
            if (st->t->blocks.n >= st->block_limit) return EE_DISPATCH_FULL;
        }
        if (K->placed == K->blocks) ee_dequeue_head(st, best, t);
        else st->procs[bp].stuck = true;
        if (st->failed) return EE_DISPATCH_DONE;
    }
}

void ee_block_done_fast(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    ee_block_ended(st, k, sm, t);
}
