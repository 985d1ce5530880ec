/* streams.c -- stream queues, the NULL stream and what blocks the host's
 * tasks (syncs, blocking copies). See streams.h. */
#include "streams.h"

#include "ce.h"
#include "ee.h"

static void qevent(sim_state *st, int64_t t, trace_str q, trace_str item, trace_queue_op op) {
    if (!trace_add_queue_event(st->t, t, q, item, op)) st->failed = true;
}

static int64_t *issue_slot(sim_state *st, int32_t op) {
    const sim_op *o = &st->cfg->ops[op];
    if (o->kind == SIM_OP_KERNEL) return &st->t->kernels.v[st->ops[op].rec].issue;
    if (o->kind == SIM_OP_COPY) return &st->t->copies.v[st->ops[op].rec].issue;
    return NULL;
}

/* The host really issues `op` now: this is its place in "launched after"
 * (N1, N2). `inline_ok` lets it join the queue at once when there is no
 * launch latency; otherwise the arrival is an event. */
static void do_issue(sim_state *st, int32_t op, int64_t t, bool inline_ok) {
    sim_opstate *os = &st->ops[op];
    os->issue_seq = st->next_issue_seq++;
    int64_t *slot = issue_slot(st, op);
    if (slot) *slot = t;
    /* TX2 paper §2.3: a synchronisation, and a copy that is not
     * asynchronous ("they do not return until the copy is complete"),
     * block the CPU program that calls them: its task (§2.2), not only the
     * stream, issues nothing more until it returns */
    const sim_op *o = &st->cfg->ops[op];
    sim_proc *pr = &st->procs[st->ss[os->stream].proc];
    if (o->kind == SIM_OP_SYNC) st->sync_times[os->rec][0] = t;
    if (o->kind == SIM_OP_SYNC && o->sync_device) {
        /* cudaDeviceSynchronize: the caller waits for "all previously issued
         * GPU operations" (§2.3) of its process, in no stream queue; with
         * none open it returns at once */
        if (pr->open > 0) {
            sim_htask *k = &st->htasks[os->task];
            k->blocked = k->dsync = true;
            k->dsync_seq = os->issue_seq;
            k->dsync_left = pr->open;
            k->dsync_op = op;
            pr->ndsync++;
        } else {
            st->sync_times[os->rec][1] = t;
        }
        return;
    }
    if (o->kind != SIM_OP_SYNC) pr->open++;
    if (o->kind == SIM_OP_SYNC || (o->kind == SIM_OP_COPY && o->blocking))
        st->htasks[os->task].blocked = true;
    int64_t lat = o->own_latency ? o->launch_latency : st->cfg->policy.launch_latency;
    if (inline_ok && lat == 0) {
        streams_arrive(st, op, t);
    } else if (sim_engine_push(&st->eng, t + lat, EV_ARRIVE, op, 0) != 0) {
        st->failed = true;
    }
}

void streams_host_issue(sim_state *st, int32_t op, int64_t t) {
    sim_htask *k = &st->htasks[st->ops[op].task];
    if (k->blocked) {
        fifo_push(&k->held, st->op_next, op);
        return;
    }
    do_issue(st, op, t, true);
}

/* What blocked task `task` has returned (its sync reached the head of its
 * stream, its blocking copy or the last work its device sync waited for
 * completed): the task goes on and issues what it held, in its order, to
 * whichever of its streams, up to the next op that blocks it. Arrivals
 * become events so that this never re-enters the settling of the stream
 * queues. */
static void task_release(sim_state *st, int32_t task, int64_t t) {
    sim_htask *k = &st->htasks[task];
    k->blocked = false;
    while (!k->blocked && !fifo_empty(&k->held))
        do_issue(st, fifo_pop(&k->held, st->op_next), t, false);
}

/* ... the task that called op `op` */
static void host_release(sim_state *st, int32_t op, int64_t t) {
    task_release(st, st->ops[op].task, t);
}

/* Kernel or copy `op` of process p has completed: one fewer for every
 * device sync of p issued after it; a sync with none left returns. */
static void device_syncs_done(sim_state *st, int32_t p, int32_t op, int64_t t) {
    sim_proc *pr = &st->procs[p];
    pr->open--;
    if (pr->ndsync == 0) return;
    uint64_t seq = st->ops[op].issue_seq;
    for (size_t i = 0; i < st->nhtasks; i++) {
        sim_htask *k = &st->htasks[i];
        if (!k->dsync || k->proc != p || seq > k->dsync_seq) continue;
        if (--k->dsync_left > 0) continue;
        k->dsync = false;
        pr->ndsync--;
        st->sync_times[st->ops[k->dsync_op].rec][1] = t;
        task_release(st, (int32_t)i, t);
    }
}

static void stream_pop(sim_state *st, int32_t s, int64_t t) {
    sim_sstate *ss = &st->ss[s];
    int32_t h = fifo_pop(&ss->queue, st->op_next);
    ss->head_moved = false;
    qevent(st, t, ss->qname, st->ops[h].item, TRACE_DEQUEUE);
}

/* May the head op `h` of stream s move on, as far as the NULL stream goes?
 * The paper states N1/N2 for kernels; copies obey the same implicit
 * synchronisation of the legacy NULL stream (CUDA Programming Guide,
 * "implicit synchronization"), so they are held the same way. Both rules
 * look only at streams of the same process: the NULL stream belongs to an
 * address space. */
static bool null_rules_allow(const sim_state *st, int32_t s, int32_t h) {
    const sim_sstate *ss = &st->ss[s];
    uint64_t seq = st->ops[h].issue_seq;
    if (ss->is_null) {
        /* TX2 paper, rule N1: every other stream queue is empty or its head
         * was launched after this kernel */
        for (int32_t o = st->procs[ss->proc].first_stream; o >= 0; o = st->ss[o].next_in_proc) {
            if (o == s) continue;
            int32_t oh = st->ss[o].queue.head;
            if (oh >= 0 && st->ops[oh].issue_seq < seq) return false;
        }
        return true;
    }
    /* TX2 paper, rule N2: the NULL stream queue is empty or its head was
     * launched after this kernel */
    int32_t n = st->procs[ss->proc].null_stream;
    if (n < 0) return true;
    int32_t nh = st->ss[n].queue.head;
    return nh < 0 || st->ops[nh].issue_seq > seq;
}

/* Move every head of process p that may move, earliest-issued first, until
 * none can: one change (a completion, an arrival) can release several heads
 * at once (a NULL-stream kernel completing releases every stream it held),
 * and they then reach the EE / CE queues in launch order. */
static void settle(sim_state *st, int32_t p, int64_t t) {
    for (;;) {
        int32_t best = -1;
        uint64_t best_seq = 0;
        for (int32_t s = st->procs[p].first_stream; s >= 0; s = st->ss[s].next_in_proc) {
            const sim_sstate *ss = &st->ss[s];
            int32_t h = ss->queue.head;
            if (h < 0 || ss->head_moved) continue;
            if (st->cfg->ops[h].kind != SIM_OP_SYNC && !null_rules_allow(st, s, h)) continue;
            if (best < 0 || st->ops[h].issue_seq < best_seq) {
                best = s;
                best_seq = st->ops[h].issue_seq;
            }
        }
        if (best < 0) return;
        sim_sstate *ss = &st->ss[best];
        int32_t h = ss->queue.head;
        switch (st->cfg->ops[h].kind) {
        case SIM_OP_SYNC:
            /* at the head, all earlier work of the stream has completed */
            stream_pop(st, best, t);
            st->sync_times[st->ops[h].rec][1] = t;
            host_release(st, h, t);
            break;
        case SIM_OP_KERNEL:
            ss->head_moved = true;
            ee_enqueue(st, st->ops[h].rec, t);   /* TX2 paper, rule G2 */
            break;
        case SIM_OP_COPY:
            ss->head_moved = true;
            ce_enqueue(st, h, t);                /* TX2 paper, rule C1 */
            break;
        }
        if (st->failed) return;
    }
}

void streams_arrive(sim_state *st, int32_t op, int64_t t) {
    sim_opstate *os = &st->ops[op];
    sim_sstate *ss = &st->ss[os->stream];
    /* TX2 paper, rule G1: enqueued on the stream queue of its stream */
    fifo_push(&ss->queue, st->op_next, op);
    qevent(st, t, ss->qname, os->item, TRACE_ENQUEUE);
    /* only a new head can change what may move */
    if (ss->queue.head == op) settle(st, ss->proc, t);
}

void streams_complete_head(sim_state *st, int32_t s, int64_t t) {
    /* TX2 paper, rules G4 and C4: dequeued once complete */
    int32_t h = st->ss[s].queue.head;
    stream_pop(st, s, t);
    /* a blocking copy returns to its task once complete (TX2 paper §2.3) */
    const sim_op *o = &st->cfg->ops[h];
    if (o->kind == SIM_OP_COPY && o->blocking) host_release(st, h, t);
    device_syncs_done(st, st->ss[s].proc, h, t);
    settle(st, st->ss[s].proc, t);
}
