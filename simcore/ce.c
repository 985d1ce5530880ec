/* ce.c -- CE queues and copy engines. See ce.h. */
#include "ce.h"


int32_t ce_engine_for(int32_t dir, int32_t n) {
    return (n >= 2 && dir == TRACE_COPY_D2H) ? 1 : 0;
}

int64_t ce_copy_ns(int64_t bytes, double bandwidth) {
    double ns = (double)bytes * 1e9 / bandwidth;
    return (int64_t)(ns + 0.5);
}

static void qevent(sim_state *st, int64_t t, int32_t e, int32_t op, trace_queue_op kind) {
    if (!trace_add_queue_event(st->t, t, st->ce[e].qname, st->ops[op].item, kind))
        st->failed = true;
}

/* Copies an engine runs at once: one (TX2 paper §2.2), or, for copies from
 * pageable memory, device.copies_in_flight: the driver stages a pageable
 * copy through pinned buffers (CUDA C++ Best Practices Guide, "Pinned
 * Memory"; Programming Guide, "Page-Locked Host Memory"), so copies of one
 * direction from different streams overlap on the hardware. Recorded: the
 * GTX 950 trace's 19.07 MB HtoD copies run at 3.43 GB/s alone and three at
 * once at 1.92 GB/s each (5.8 GB/s together); each copy here runs for its
 * own duration, which in a replay is the measured one, sharing included. */
static int32_t in_flight_max(const sim_state *st) {
    return st->dev->copies_in_flight > 1 ? st->dev->copies_in_flight : 1;
}

static void start_next(sim_state *st, int32_t e, int64_t t) {
    ce_engine *ce = &st->ce[e];
    while (ce->busy < in_flight_max(st) && !fifo_empty(&ce->q)) {
        /* TX2 paper, rules C2 and C3: the head of the CE queue is assigned to the
         * free engine and leaves the CE queue */
        int32_t op = fifo_pop(&ce->q, st->op_ce_next);
        qevent(st, t, e, op, TRACE_DEQUEUE);
        ce->busy++;
        trace_copy *c = &st->t->copies.v[st->ops[op].rec];
        c->engine = e;
        c->start = t;
        /* a replay gives a copy its measured duration (sim.h) */
        c->end = t + (st->cfg->ops[op].duration > 0
                          ? st->cfg->ops[op].duration
                          : ce_copy_ns(st->cfg->ops[op].bytes, st->dev->copy_bandwidth));
        if (sim_engine_push(&st->eng, c->end, EV_COPY_DONE, e, op) != 0) st->failed = true;
    }
}

void ce_enqueue(sim_state *st, int32_t op, int64_t t) {
    int32_t dir = st->cfg->ops[op].direction;
    if (dir == TRACE_COPY_MEMSET || dir == TRACE_COPY_H2H || dir == TRACE_COPY_OTHER) {
        /* A memset (or other stream work that is no engine copy) holds its
         * stream for its measured duration and waits behind no copy: no
         * copy engine serves it (sim.h, sim_op.duration). */
        trace_copy *c = &st->t->copies.v[st->ops[op].rec];
        c->engine = -1;
        c->start = t;
        c->end = t + (st->cfg->ops[op].duration > 0 ? st->cfg->ops[op].duration : 0);
        if (sim_engine_push(&st->eng, c->end, EV_COPY_DONE, -1, op) != 0) st->failed = true;
        return;
    }
    int32_t e = ce_engine_for(st->cfg->ops[op].direction, st->nce);
    ce_engine *ce = &st->ce[e];
    /* TX2 paper, rule C1 */
    fifo_push(&ce->q, st->op_ce_next, op);
    qevent(st, t, e, op, TRACE_ENQUEUE);
    start_next(st, e, t);
}

void ce_copy_done(sim_state *st, int32_t e, int32_t op, int64_t t) {
    if (e < 0) return;   /* a memset: no engine to free */
    /* TX2 paper §2.2: a CE performs only one copy operation at a time */
    st->ce[e].busy--;
    (void)op;   /* its stream's head completes: the caller's (C4) */
    start_next(st, e, t);
}
