/* replay_copies.c -- the copies a trace had in flight at once. See
 * replay_copies.h. */
#include "replay_copies.h"

#include <stdlib.h>

#include "../../simcore/ce.h"

typedef struct edge {
    int64_t t;
    int32_t engine;
    int32_t d;       /* +1 a copy starts, -1 one ends */
} edge;

static int cmp_edge(const void *a, const void *b) {
    const edge *x = a, *y = b;
    if (x->engine != y->engine) return x->engine < y->engine ? -1 : 1;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->d - y->d;   /* an end before a start at the same time */
}

int32_t replay_copies_in_flight(const trace *t, int32_t copy_engines) {
    edge *v = malloc((2 * t->copies.n + 1) * sizeof *v);
    if (!v) return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        /* engine copies only: a memset or host copy holds no engine (ce.c) */
        if (c->direction != TRACE_COPY_H2D && c->direction != TRACE_COPY_D2H &&
            c->direction != TRACE_COPY_D2D && c->direction != TRACE_COPY_P2P)
            continue;
        if (c->start == TRACE_NONE || c->end == TRACE_NONE || c->end <= c->start) continue;
        int32_t e = ce_engine_for(c->direction, copy_engines);
        v[n++] = (edge){c->start, e, 1};
        v[n++] = (edge){c->end, e, -1};
    }
    qsort(v, n, sizeof *v, cmp_edge);
    int32_t most = 1, now = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && v[i].engine != v[i - 1].engine) now = 0;
        now += v[i].d;
        if (now > most) most = now;
    }
    free(v);
    return most;
}
