/* tsg.c -- GPU contexts on the runlist. See tsg.h. */
#include "tsg.h"

#include "carveout.h"

#include <stdio.h>
#include <stdlib.h>

enum { TSG_EV_SLICE = 1, TSG_EV_SWITCH, TSG_EV_BLOCK };

int tsg_init(tsg *g, sim_state *st, tsg_member_fn member, void *drv) {
    g->nctx = (int32_t)st->nprocs;
    g->ctx = calloc(st->nprocs ? st->nprocs : 1, sizeof *g->ctx);
    if (!g->ctx) return -1;
    for (int32_t p = 0; p < g->nctx; p++) g->ctx[p].head = g->ctx[p].tail = -1;
    g->free = -1;
    g->loaded = -1;
    g->target = -1;
    g->L = st->cfg->policy.time_slice > 0 ? st->cfg->policy.time_slice : SIM_DEFAULT_TIME_SLICE;
    g->theta = st->cfg->policy.context_switch;
    g->theta_idle = st->cfg->policy.has_context_switch_idle ? st->cfg->policy.context_switch_idle
                                                            : g->theta;
    g->member = member;
    g->drv = drv;
    g->q_runlist = trace_intern(st->t, "runlist");
    g->q_context = trace_intern(st->t, "context");
    return st->t->oom ? -1 : 0;
}

void tsg_fini(tsg *g) {
    free(g->ctx);
    free(g->blk);
}

bool tsg_has_work(const tsg *g, const sim_state *st, int32_t p) {
    if (g->ctx[p].n > 0) return true;
    const ee_queue *e = &st->ee[(size_t)p * st->nlevels];
    for (size_t l = 0; l < st->nlevels; l++)
        if (!fifo_empty(&e[l].q)) return true;
    return false;
}

static void qev(sim_state *st, int64_t t, trace_str q, int32_t p, trace_queue_op op) {
    if (!trace_add_queue_event(st->t, t, q, st->procs[p].name, op)) st->failed = true;
}

static void unlink_blk(tsg *g, int32_t p, int32_t s) {
    tsg_blk *b = &g->blk[s];
    if (b->prev >= 0) g->blk[b->prev].next = b->next;
    else g->ctx[p].head = b->next;
    if (b->next >= 0) g->blk[b->next].prev = b->prev;
    else g->ctx[p].tail = b->prev;
    g->ctx[p].n--;
    b->next = g->free;
    g->free = s;
}

/* The block in slot s has run to its end at t: its record gets the end and
 * the EV_BLOCK_DONE goes to sim.c like any other completion. */
static void finish(tsg *g, sim_state *st, int32_t s, int64_t t) {
    tsg_blk *b = &g->blk[s];
    int32_t k = b->k, sm = b->sm;
    size_t i = (size_t)b->rec - st->blocks_flushed;
    if (i < st->t->blocks.n) st->t->blocks.v[i].end = t;
    unlink_blk(g, st->ks[k].proc, s);
    if (sim_engine_push(&st->eng, t, EV_BLOCK_DONE, k, sm) != 0) st->failed = true;
}

/* Switch the loaded context out at t: pause each of its blocks. */
static void stop(tsg *g, sim_state *st, int64_t t) {
    int32_t p = g->loaded;
    for (int32_t s = g->ctx[p].head, nx; s >= 0; s = nx) {
        tsg_blk *b = &g->blk[s];
        nx = b->next;
        sim_engine_cancel(&st->eng, b->ev);
        b->ev = 0;
        if (b->end <= t) {
            finish(g, st, s, t);   /* ends as it would have: nothing left to pause */
            continue;
        }
        b->end -= t;               /* now: the run time it has left */
        if (st->sms.carve) carve_give(&st->sms, b->sm, &st->ks[b->k].need);   /* H100-C1 */
        else sms_give(&st->sms, b->sm, &st->ks[b->k].need);
        b->pause = (int64_t)st->t->pauses.n;
        if (!trace_add_pause(st->t, b->rec, t, TRACE_NONE)) st->failed = true;
    }
    if (g->slice_ev) sim_engine_cancel(&st->eng, g->slice_ev);
    g->slice_ev = 0;
    g->slice_over = false;
    g->running = false;
    qev(st, t, g->q_context, p, TRACE_DEQUEUE);
}

/* Switch the loaded context in at t: every block of it was paused. */
static void resume(tsg *g, sim_state *st, int64_t t) {
    int32_t p = g->loaded;
    for (int32_t s = g->ctx[p].head; s >= 0; s = g->blk[s].next) {
        tsg_blk *b = &g->blk[s];
        /* the SMs hold no other context's blocks: what fitted fits again */
        if (st->sms.carve) carve_take(&st->sms, b->sm, &st->ks[b->k].need);   /* H100-C1 */
        else sms_take(&st->sms, b->sm, &st->ks[b->k].need);
        b->end += t;
        if (b->pause >= 0) st->t->pauses.v[b->pause].end = t;
        b->pause = -1;
        b->ev = sim_engine_schedule(&st->eng, b->end, EV_DRIVER, TSG_EV_BLOCK, s);
        if (!b->ev) st->failed = true;
    }
    g->running = true;
    qev(st, t, g->q_context, p, TRACE_ENQUEUE);
}

/* Load context `to` (the loaded one is stopped). Switching away from a
 * context with nothing left to run costs theta_idle (NVIDIA DRIVE OS,
 * "Setting the Preemption Type": "For applications that can complete in
 * their timeslice, context-switch overhead is minimal because the GPU is in
 * an idled state"); one switched out with work, theta (GCAPS Def. 1). */
static void start_switch(tsg *g, sim_state *st, int32_t to, int64_t t) {
    int64_t cost = g->loaded < 0                      ? 0
                   : tsg_has_work(g, st, g->loaded) ? g->theta
                                                      : g->theta_idle;
    g->switching = true;
    g->target = to;
    /* always an event, also at cost 0: the blocks that finished at t give
     * their SMs back (EV_BLOCK_DONE, scheduled earlier) before `to` resumes */
    if (sim_engine_push(&st->eng, t + cost, EV_DRIVER, TSG_EV_SWITCH, to) != 0) st->failed = true;
}

/* The first member after `after` (in process order, wrapping) with work;
 * with !need_work, failing that, the first member at all. -1: none.
 * `after` itself comes last. */
static int32_t next_member(const tsg *g, const sim_state *st, int32_t after, bool need_work,
                           bool skip_after) {
    int32_t n = g->nctx, first = -1;
    for (int32_t i = 1; i <= n; i++) {
        int32_t p = ((after < 0 ? -1 : after) + i) % n;
        if (p < 0) p += n;
        if (skip_after && p == after) continue;
        if (!g->ctx[p].on_runlist) continue;
        if (tsg_has_work(g, st, p)) return p;
        if (first < 0) first = p;
    }
    return need_work ? -1 : first;
}

static void evaluate(tsg *g, sim_state *st, int64_t t) {
    for (int32_t p = 0; p < g->nctx; p++) {
        bool m = g->member(g->drv, st, p);
        if (m != g->ctx[p].on_runlist) {
            g->ctx[p].on_runlist = m;
            qev(st, t, g->q_runlist, p, m ? TRACE_ENQUEUE : TRACE_DEQUEUE);
        }
    }
    if (g->switching) return;
    int32_t cur = g->loaded;
    if (cur < 0 || !g->ctx[cur].on_runlist) {
        /* off the runlist (GCAPS Alg. 1 removed it; time slicing: no work
         * left): the GPU goes to the next member */
        if (cur >= 0 && g->running) stop(g, st, t);
        int32_t to = next_member(g, st, cur, false, true);
        if (to >= 0) start_switch(g, st, to, t);
        return;
    }
    if (!g->running) resume(g, st, t);
    bool work = tsg_has_work(g, st, cur);
    if (g->slice_over || !work) {
        /* GCAPS paper §2: each TSG runs for up to its time slice before the
         * next TSG with work; one with nothing to do yields at once */
        int32_t to = next_member(g, st, cur, true, true);
        g->slice_over = false;
        if (to >= 0) {
            stop(g, st, t);
            start_switch(g, st, to, t);
            return;
        }
    }
    if (work && !g->slice_ev) {
        g->slice_ev = sim_engine_schedule(&st->eng, t + g->L, EV_DRIVER, TSG_EV_SLICE, 0);
        if (!g->slice_ev) st->failed = true;
    }
}

int32_t tsg_pick(tsg *g, sim_state *st, const int32_t *cand, int64_t t) {
    evaluate(g, st, t);
    if (g->switching || !g->running || g->loaded < 0) return -1;
    return cand[g->loaded] >= 0 ? g->loaded : -1;
}

void tsg_on_event(tsg *g, sim_state *st, const sim_event *ev) {
    switch (ev->a) {
    case TSG_EV_SLICE:
        g->slice_ev = 0;
        g->slice_over = true;     /* acted on in tsg_pick, once the instant is over */
        break;
    case TSG_EV_SWITCH:
        g->switching = false;
        g->loaded = (int32_t)ev->b;
        g->running = false;
        g->slice_over = false;
        break;
    case TSG_EV_BLOCK:
        g->blk[ev->b].ev = 0;
        finish(g, st, (int32_t)ev->b, ev->t);
        break;
    }
}

void tsg_block_placed(tsg *g, sim_state *st, int32_t k, int32_t sm, int64_t start, int64_t end) {
    (void)start;
    if (g->free < 0) {
        int32_t cap = g->cap ? g->cap * 2 : 256;
        tsg_blk *nb = realloc(g->blk, (size_t)cap * sizeof *nb);
        if (!nb) {
            st->failed = true;
            return;
        }
        g->blk = nb;
        for (int32_t s = cap - 1; s >= g->cap; s--) {
            g->blk[s].next = g->free;
            g->free = s;
        }
        g->cap = cap;
    }
    int32_t s = g->free;
    tsg_blk *b = &g->blk[s];
    g->free = b->next;
    int32_t p = st->ks[k].proc;
    b->k = k;
    b->sm = sm;
    b->rec = (int64_t)(st->blocks_flushed + st->t->blocks.n - 1);
    b->end = end;
    b->pause = -1;
    b->next = -1;
    b->prev = g->ctx[p].tail;
    if (b->prev >= 0) g->blk[b->prev].next = s;
    else g->ctx[p].head = s;
    g->ctx[p].tail = s;
    g->ctx[p].n++;
    /* its end is known only once it has run out its time */
    st->t->blocks.v[st->t->blocks.n - 1].end = TRACE_NONE;
    b->ev = sim_engine_schedule(&st->eng, end, EV_DRIVER, TSG_EV_BLOCK, s);
    if (!b->ev) st->failed = true;
}
