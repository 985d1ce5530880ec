/* fuzz_sqlite_stream.h -- what the SQLite importer harnesses share
 * (fuzz_nvprof_sqlite.c, fuzz_nsys_sqlite.c): the streamed import (issue 9:
 * each activity table read ordered by start, launch times from a temporary
 * table, batches of `rows`), the path `schedlab import` and POST
 * /api/imports take, against the whole-file import of the same bytes. It
 * succeeds exactly when the whole import does, and then hands over the
 * same kernels and copies in the same order, once each batch's times are
 * moved back by the stream's base; strings are compared by their text
 * (the stream meets them in start order, so their ids differ). A failure's
 * message may be another row's (it meets bad rows by start, not rowid:
 * whole_message), but it is one line. */
#ifndef FUZZ_SQLITE_STREAM_H
#define FUZZ_SQLITE_STREAM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../importers/formats.h"

typedef struct fss_got {
    trace t;
    imp_stream *s;
    int64_t base;
    int calls;
} fss_got;

static int64_t fss_back(int64_t x, int64_t base) {
    return x == TRACE_NONE ? x : (int64_t)((uint64_t)x + (uint64_t)base);
}

/* a batch's strings are its own trace's: re-interned into the gathered one */
static trace_str fss_str(fss_got *g, const trace *t, trace_str s) {
    return s ? trace_intern(&g->t, trace_str_get(t, s)) : 0;
}

static int fss_batch(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                     size_t errlen) {
    (void)err, (void)errlen;
    fss_got *g = user;
    if (g->calls++ == 0) g->base = g->s->base;
    if (kernels != g->t.kernels.n || copies != g->t.copies.n) abort();
    for (size_t i = 0; i < t->kernels.n; i++) {
        trace_kernel *k = trace_add_kernel(&g->t);
        if (!k) return 0;
        *k = t->kernels.v[i];
        k->name = fss_str(g, t, k->name), k->raw_name = fss_str(g, t, k->raw_name);
        k->stream = fss_str(g, t, k->stream), k->process = fss_str(g, t, k->process);
        k->issue = fss_back(k->issue, g->base), k->first_block = fss_back(k->first_block, g->base);
        k->fully_dispatched = fss_back(k->fully_dispatched, g->base);
        k->end = fss_back(k->end, g->base);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        trace_copy *c = trace_add_copy(&g->t);
        if (!c) return 0;
        *c = t->copies.v[i];
        c->name = fss_str(g, t, c->name), c->stream = fss_str(g, t, c->stream);
        c->process = fss_str(g, t, c->process);
        c->issue = fss_back(c->issue, g->base), c->start = fss_back(c->start, g->base);
        c->end = fss_back(c->end, g->base);
    }
    return 0;
}

static bool fss_same(const trace *a, trace_str x, const trace *b, trace_str y) {
    if (!x || !y) return x == y;
    return strcmp(trace_str_get(a, x), trace_str_get(b, y)) == 0;
}

/* t: the whole import of f (rc its result), not re-based */
static void fss_check(imp_format fmt, const imp_file *f, int rc, const trace *t) {
    fss_got g = {.base = 0};
    trace_init(&g.t);
    imp_stream s = {.rows = 2, .batch = fss_batch, .user = &g};
    g.s = &s;
    imp_options o = {.stream = &s};
    trace u;
    trace_init(&u);
    char err[512] = "";
    int rc2 = imp_import_opts(fmt, f, 1, &o, &u, err, sizeof err);
    if (rc2 != 0 && (err[0] == '\0' || strchr(err, '\n'))) abort();
    if ((rc2 == 0) != (rc == 0)) abort();
    if (rc == 0 && !t->oom && !g.t.oom) {
        if (g.t.kernels.n != t->kernels.n || g.t.copies.n != t->copies.n) abort();
        for (size_t i = 0; i < t->kernels.n; i++) {
            const trace_kernel *a = &t->kernels.v[i], *b = &g.t.kernels.v[i];
            if (!fss_same(t, a->name, &g.t, b->name) ||
                !fss_same(t, a->raw_name, &g.t, b->raw_name) ||
                !fss_same(t, a->stream, &g.t, b->stream) ||
                !fss_same(t, a->process, &g.t, b->process) || a->priority != b->priority ||
                a->issue != b->issue || a->first_block != b->first_block || a->end != b->end ||
                a->blocks != b->blocks || a->threads != b->threads || a->smem != b->smem ||
                a->regs != b->regs || a->device != b->device)
                abort();
        }
        for (size_t i = 0; i < t->copies.n; i++) {
            const trace_copy *a = &t->copies.v[i], *b = &g.t.copies.v[i];
            if (!fss_same(t, a->name, &g.t, b->name) || !fss_same(t, a->stream, &g.t, b->stream) ||
                !fss_same(t, a->process, &g.t, b->process) || a->direction != b->direction ||
                a->bytes != b->bytes || a->issue != b->issue || a->start != b->start ||
                a->end != b->end || a->device != b->device)
                abort();
        }
        if (u.kernels.n || u.copies.n) abort();
    }
    trace_free(&u);
    trace_free(&g.t);
}

#endif
