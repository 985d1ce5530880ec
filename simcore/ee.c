/* ee.c -- EE queues, the leftover policy and block dispatch. See ee.h. */
#include "ee.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streams.h"

trace_str ee_queue_name(sim_state *st, int32_t q) {
    ee_queue *e = &st->ee[q];
    if (e->qname) return e->qname;
    int32_t p = q / (int32_t)st->nlevels, lvl = q % (int32_t)st->nlevels;
    int32_t prio = st->levels[lvl];
    const char *proc = trace_str_get(st->t, st->procs[p].name);
    char level[16];
    if (st->tx2_levels) snprintf(level, sizeof level, "%s", prio < 0 ? "high" : "low");
    else snprintf(level, sizeof level, "%d", (int)prio);
    size_t lp = strlen(proc), ll = strlen(level), n = 3 + lp + 1 + ll + 1;
    char buf[256];
    char *name = n <= sizeof buf ? buf : malloc(n);
    if (!name) { st->failed = true; return 0; }
    memcpy(name, "ee:", 3);
    memcpy(name + 3, proc, lp);
    name[3 + lp] = ':';
    memcpy(name + 4 + lp, level, ll + 1);
    e->qname = trace_intern(st->t, name);
    if (name != buf) free(name);
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
    ee_queue *e = &st->ee[q];
    K->ee_next = -1;
    K->ee_seq = st->next_ee_seq++;
    if (e->tail >= 0) st->ks[e->tail].ee_next = k;
    else e->head = k;
    e->tail = k;
    qevent(st, t, q, k, TRACE_ENQUEUE);
}

/* The kernel of process p whose blocks may be assigned now, or -1. */
static int32_t eligible(const sim_state *st, int32_t p) {
    const ee_queue *e = &st->ee[(size_t)p * st->nlevels];
    for (size_t lvl = 0; lvl < st->nlevels; lvl++) {
        /* TX2 paper, rule A2: a lower-priority head waits while any
         * higher-priority EE queue of the process is non-empty; rule X1:
         * only the head of a queue is eligible */
        if (e[lvl].head >= 0) return e[lvl].head;
    }
    return -1;
}

static void place(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    sim_kstate *K = &st->ks[k];
    int64_t idx = K->placed++;
    sms_take(&st->sms, sm, &K->need);
    int64_t start = t + st->cfg->policy.dispatch_latency;
    int64_t dur = K->nblock_time == 1 ? K->block_time[0]
                                      : K->block_time[(size_t)idx % K->nblock_time];
    trace_block *b = trace_add_block(st->t);
    if (!b) { st->failed = true; return; }
    b->kernel = k;
    b->index = (int32_t)idx;
    b->sm = sm;
    b->start = start;
    b->end = start + dur;
    trace_kernel *tk = &st->t->kernels.v[k];
    if (idx == 0) tk->first_block = start;
    if (K->placed == K->blocks) tk->fully_dispatched = start;
    if (sim_engine_push(&st->eng, start + dur, EV_BLOCK_DONE, k, sm) != 0) st->failed = true;
    if (st->sink && st->t->blocks.n >= st->sink_batch) ee_flush_blocks(st);
}

void ee_flush_blocks(sim_state *st) {
    trace *t = st->t;
    if (!st->sink || st->failed || t->blocks.n == 0) return;
    if (st->sink->emit(st->sink->ctx, t->blocks.v, t->blocks.n) != 0) {
        st->sink_failed = st->failed = true;
        return;
    }
    st->emitted += t->blocks.n;
    /* nothing in simcore reads a block back once placed, so the buffer
     * is reused for the next batch */
    t->blocks.n = 0;
}

/* TX2 paper, rule G3: dequeued from the EE queue once fully dispatched */
static void dequeue_head(sim_state *st, int32_t k, int64_t t) {
    sim_kstate *K = &st->ks[k];
    int32_t q = K->proc * (int32_t)st->nlevels + K->level;
    ee_queue *e = &st->ee[q];
    e->head = K->ee_next;
    if (e->head < 0) e->tail = -1;
    K->ee_next = -1;
    qevent(st, t, q, k, TRACE_DEQUEUE);
}

void ee_dispatch(sim_state *st, int64_t t) {
    /* a dispatch latency keeps the block scheduler busy per block */
    if (t < st->sched_free_at) return;
    int64_t lat = st->cfg->policy.dispatch_latency;
    for (size_t p = 0; p < st->nprocs; p++) st->procs[p].stuck = false;
    for (;;) {
        /* Between address spaces the paper gives no order (their kernels are
         * time-sliced, TX2 paper appendix A, and priorities do not apply
         * across processes); the process whose eligible kernel reached its
         * EE queue first goes first, and one that cannot place a block
         * does not hold up the others. */
        int32_t best = -1, bp = -1;
        for (size_t p = 0; p < st->nprocs; p++) {
            if (st->procs[p].stuck) continue;
            int32_t k = eligible(st, (int32_t)p);
            if (k >= 0 && (best < 0 || st->ks[k].ee_seq < st->ks[best].ee_seq)) {
                best = k;
                bp = (int32_t)p;
            }
        }
        if (best < 0) return;
        sim_kstate *K = &st->ks[best];
        while (K->placed < K->blocks) {
            /* TX2 paper, rules R1-R3: a block is assigned only where all of
             * its resources are available; the policy picks among those SMs */
            int32_t sm = st->pick(&st->sms, best, &K->need);
            if (sm < 0) break;
            place(st, best, sm, t);
            if (st->failed) return;
            if (lat > 0) {
                if (K->placed == K->blocks) dequeue_head(st, best, t);
                st->sched_free_at = t + lat;
                if (sim_engine_push(&st->eng, t + lat, EV_DISPATCH, 0, 0) != 0) st->failed = true;
                return;
            }
        }
        if (K->placed == K->blocks) dequeue_head(st, best, t);
        else st->procs[bp].stuck = true;
        if (st->failed) return;
    }
}

void ee_block_done(sim_state *st, int32_t k, int32_t sm, int64_t t) {
    sim_kstate *K = &st->ks[k];
    sms_give(&st->sms, sm, &K->need);
    if (++K->done < K->blocks) return;
    st->t->kernels.v[k].end = t;
    streams_complete_head(st, st->ops[K->op].stream, t);
}
