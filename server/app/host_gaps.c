/* host_gaps.c -- work the host held back. See host_gaps.h. */
#include "host_gaps.h"

#include <stdlib.h>

/* One measured op (kernel or copy). */
typedef struct hop {
    int64_t issue, start, end;
    uint64_t stream;             /* (process, stream) packed */
    int kernel;                  /* 1 kernel, 0 copy */
    int32_t engine;              /* copies: the engine class (ce.h) */
    size_t id;
} hop;

static int cmp_hop_stream(const void *a, const void *b) {
    const hop *x = a, *y = b;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int engine_class(int32_t dir) {
    if (dir != TRACE_COPY_H2D && dir != TRACE_COPY_D2H && dir != TRACE_COPY_D2D &&
        dir != TRACE_COPY_P2P)
        return -1;   /* memsets and the rest: no engine */
    return dir == TRACE_COPY_D2H ? 1 : 0;
}

/* Was anything of the kind `o` waits for busy in [a, b)? kernels: any
 * kernel; copies: a copy on the same engine class. */
static int busy(const hop *v, size_t n, const hop *o, int64_t a, int64_t b) {
    for (size_t i = 0; i < n; i++) {
        if (&v[i] == o || v[i].kernel != o->kernel) continue;
        if (!o->kernel && v[i].engine != o->engine) continue;
        if (v[i].start < b && v[i].end > a) return 1;
    }
    return 0;
}

int host_gaps_find(const trace *m, int engines, int64_t lat, host_gap **out, size_t *nout) {
    *out = NULL;
    *nout = 0;
    size_t n = m->kernels.n + m->copies.n, nh = 0;
    hop *v = calloc(n + 1, sizeof *v);
    if (!v) return -1;
    for (size_t i = 0; i < m->kernels.n; i++) {
        const trace_kernel *k = &m->kernels.v[i];
        if (k->first_block == TRACE_NONE || k->end == TRACE_NONE) continue;
        v[nh++] = (hop){k->issue, k->first_block, k->end,
                        ((uint64_t)k->process << 32) | k->stream, 1, -1, i};
    }
    for (size_t i = 0; i < m->copies.n; i++) {
        const trace_copy *c = &m->copies.v[i];
        if (c->start == TRACE_NONE || c->end == TRACE_NONE) continue;
        int ec = engine_class(c->direction);
        if (ec > 0 && engines < 2) ec = 0;   /* one engine for both directions */
        v[nh++] = (hop){c->issue, c->start, c->end, ((uint64_t)c->process << 32) | c->stream, 0,
                        ec, m->kernels.n + i};
    }
    qsort(v, nh, sizeof *v, cmp_hop_stream);
    int64_t thr = 10 * lat > 1000000 ? 10 * lat : 1000000;   /* 1 ms, or 10 latencies */
    host_gap *g = NULL;
    size_t ng = 0;
    for (size_t i = 0; i < nh; i++) {
        if (v[i].issue == TRACE_NONE) continue;
        int64_t ready = v[i].issue;
        if (i && v[i - 1].stream == v[i].stream && v[i - 1].end > ready) ready = v[i - 1].end;
        int64_t gap = v[i].start - ready;
        if (gap <= thr || (v[i].engine < 0 && !v[i].kernel)) continue;
        if (busy(v, nh, &v[i], ready, v[i].start)) continue;
        host_gap *ng2 = realloc(g, (ng + 1) * sizeof *g);
        if (!ng2) {
            free(g);
            free(v);
            return -1;
        }
        g = ng2;
        g[ng++] = (host_gap){v[i].id, ready, v[i].start};
    }
    free(v);
    *out = g;
    *nout = ng;
    return 0;
}
