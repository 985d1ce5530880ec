/* driver_gcaps.c -- GCAPS (Wang, Liu, Wong, Kim, ECRTS 2024, §5.1,
 * Algorithm 1): the runlist holds the TSG of the highest-priority active
 * real-time GPU segment, or every best-effort TSG when no real-time segment
 * is active. Tasks bracket each GPU segment with gcapsGpuSegBegin/End; the
 * host charges each call's runlist update (epsilon, Def. 2) on its CPU and
 * calls `segment` when the new runlist is submitted; the GPU's switch to
 * it (theta) is tsg.c's. Processes that never call the macros (scripted
 * ops) count as best-effort TSGs that are on the runlist while they have
 * work.
 *
 * Alg. 1's "line 24" (running <- pending on a remove with no real-time
 * segment pending) drops a best-effort TSG that is already running when
 * two instrumented best-effort tasks run at once (the real system then
 * deadlocks; gcaps-analysis.md §8): modelled as running <- running \ {i}
 * union pending, the fix suggested there. */
#include <stdlib.h>

#include "tsg.h"

typedef struct gcaps {
    tsg g;                   /* first: tsg's callbacks get the driver */
    bool *running, *pending, *managed, *be;
    int32_t *prio;           /* GPU-segment priority (§5.3), larger = higher */
    uint64_t *seq;           /* order of the add requests: FIFO among equals */
    uint64_t next_seq;
    int32_t rt;              /* running_rt, kept by gc_segment (gc_member asks it
                                for every context at every pick) */
} gcaps;

/* The real-time TSG in running (Alg. 1 keeps at most one), or -1. */
static int32_t running_rt(const gcaps *d) {
    for (int32_t p = 0; p < d->g.nctx; p++)
        if (d->running[p] && !d->be[p]) return p;
    return -1;
}

static bool gc_member(void *drv, const sim_state *st, int32_t p) {
    const gcaps *d = drv;
    int32_t rt = d->rt;
    if (rt >= 0) return p == rt;
    if (d->managed[p]) return d->running[p];
    return tsg_has_work(&d->g, st, p);
}

static int gc_init(void *self, sim_state *st) {
    gcaps *d = self;
    size_t n = st->nprocs ? st->nprocs : 1;
    d->running = calloc(n, sizeof *d->running);
    d->pending = calloc(n, sizeof *d->pending);
    d->managed = calloc(n, sizeof *d->managed);
    d->be = calloc(n, sizeof *d->be);
    d->prio = calloc(n, sizeof *d->prio);
    d->seq = calloc(n, sizeof *d->seq);
    if (!d->running || !d->pending || !d->managed || !d->be || !d->prio || !d->seq) return -1;
    d->rt = -1;
    return tsg_init(&d->g, st, gc_member, d);
}

static void gc_fini(void *self) {
    gcaps *d = self;
    tsg_fini(&d->g);
    free(d->running);
    free(d->pending);
    free(d->managed);
    free(d->be);
    free(d->prio);
    free(d->seq);
}

/* Alg. 1 on a gcapsGpuSegBegin (begin) or End of context p */
static void alg1(gcaps *d, int32_t p, bool begin, int32_t prio, bool be) {
    int32_t n = d->g.nctx;
    int32_t rt = d->rt;
    d->managed[p] = true;
    if (begin) {
        d->prio[p] = prio;
        d->be[p] = be;
        d->seq[p] = d->next_seq++;
        if (be) {
            /* Alg. 1 lines 6-10: a best-effort TSG joins the runlist only
             * while no real-time segment is running */
            if (rt < 0) d->running[p] = true;
            else d->pending[p] = true;
        } else if (rt < 0 || prio > d->prio[rt]) {
            /* lines 11-15: a strictly higher priority preempts: what ran
             * (the real-time TSG, or every best-effort one) waits */
            for (int32_t q = 0; q < n; q++)
                if (d->running[q]) {
                    d->running[q] = false;
                    d->pending[q] = true;
                }
            d->running[p] = true;
        } else {
            /* lines 16-17: otherwise pending; equal priorities are served
             * FIFO and never interleave (the driver's comment) */
            d->pending[p] = true;
        }
        return;
    }
    /* gcapsGpuSegEnd, lines 18-25 */
    d->running[p] = d->pending[p] = false;
    if (rt != p) return;     /* a best-effort TSG left; nothing else changes */
    int32_t best = -1;
    for (int32_t q = 0; q < n; q++) {
        if (!d->pending[q] || d->be[q]) continue;
        if (best < 0 || d->prio[q] > d->prio[best] ||
            (d->prio[q] == d->prio[best] && d->seq[q] < d->seq[best]))
            best = q;
    }
    if (best >= 0) {
        /* lines 19-21: the highest-priority pending real-time TSG */
        d->pending[best] = false;
        d->running[best] = true;
        return;
    }
    /* lines 22-25: no real-time segment left: the best-effort TSGs resume,
     * time-sliced (as running U pending, see the top of this file) */
    for (int32_t q = 0; q < n; q++)
        if (d->pending[q]) {
            d->pending[q] = false;
            d->running[q] = true;
        }
}

static void gc_segment(void *self, sim_state *st, int32_t p, bool begin, int32_t prio, bool be,
                       int64_t t) {
    (void)st;
    (void)t;
    gcaps *d = self;
    alg1(d, p, begin, prio, be);
    d->rt = running_rt(d);
}

/* Would gc_segment change the runlist (the TSGs gc_member admits)? Only
 * a real change costs a full runlist update when policy.ioctl_bookkeeping
 * is set (host_tasks.c; GCAPS paper §7.2, Fig. 12). */
static bool gc_segment_switches(const void *self, const sim_state *st, int32_t p, bool begin,
                                int32_t prio, bool be) {
    (void)st;
    const gcaps *d = self;
    int32_t rt = d->rt;
    if (begin)   /* lines 6-10: a best-effort TSG joins only with no RT running;
                    lines 11-15: an RT one preempts only a strictly lower one */
        return rt < 0 || (!be && prio > d->prio[rt]);
    /* lines 18-25: the running RT TSG leaves, or a time-sliced best-effort
     * one; a pending TSG leaving changes nothing on the runlist */
    return rt == p || (rt < 0 && d->running[p]);
}

static int32_t gc_pick(void *self, sim_state *st, const int32_t *cand, int64_t t) {
    gcaps *d = self;
    return tsg_pick(&d->g, st, cand, t);
}

static void gc_on_event(void *self, sim_state *st, const sim_event *ev) {
    gcaps *d = self;
    tsg_on_event(&d->g, st, ev);
}

static void gc_block_placed(void *self, sim_state *st, int32_t k, int32_t sm, int64_t start,
                            int64_t end) {
    gcaps *d = self;
    tsg_block_placed(&d->g, st, k, sm, start, end);
}

const driver_policy driver_gcaps = {
    .name = "gcaps",
    .doc = "GCAPS (ECRTS 2024, Alg. 1): the runlist holds the highest-priority real-time GPU "
           "segment's TSG, or every best-effort TSG when none is active; runlist_update on "
           "the CPU at each segment's begin and end",
    .state_size = sizeof(gcaps),
    .init = gc_init,
    .fini = gc_fini,
    .pick_process = gc_pick,
    .on_event = gc_on_event,
    .block_placed = gc_block_placed,
    .segment = gc_segment,
    .segment_switches = gc_segment_switches,
};
