/* fuzz_nvprof_csv.c -- libFuzzer harness: any bytes through the nvprof CSV
 * importer (CSV reader, unit scaling, demangler). It must return 0 or -1
 * with a one-line message, never crash, leak or read out of bounds.
 *
 * Also differential (issue 9): the same bytes streamed in batches of two
 * rows (importers.h imp_stream) must give the same result, the same message
 * and, once each batch's times are moved back by the stream's base, the
 * same kernels and copies; the origin is the earliest time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../importers/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the batches, times back to the file's own */
typedef struct got {
    trace t;
    int64_t base;
    int calls;
} got;

static int64_t back(int64_t x, int64_t base) {
    return x == TRACE_NONE ? x : (int64_t)((uint64_t)x + (uint64_t)base);
}

static int on_batch(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                    size_t errlen) {
    (void)err, (void)errlen;
    got *g = user;
    if (kernels != g->t.kernels.n || copies != g->t.copies.n) abort();
    for (size_t i = 0; i < t->kernels.n; i++) {
        trace_kernel *k = trace_add_kernel(&g->t);
        if (!k) return 0;
        *k = t->kernels.v[i];
        k->issue = back(k->issue, g->base), k->first_block = back(k->first_block, g->base);
        k->fully_dispatched = back(k->fully_dispatched, g->base), k->end = back(k->end, g->base);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        trace_copy *c = trace_add_copy(&g->t);
        if (!c) return 0;
        *c = t->copies.v[i];
        c->issue = back(c->issue, g->base), c->start = back(c->start, g->base);
        c->end = back(c->end, g->base);
    }
    return 0;
}

/* the stream's base is set before its first call and holds for every
 * later batch: taken from the first call only */
typedef struct peek {
    imp_stream *s;
    got *g;
} peek;

static int on_batch_peek(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                         size_t errlen) {
    peek *p = user;
    if (p->g->calls++ == 0) p->g->base = p->s->base;
    return on_batch(p->g, t, kernels, copies, err, errlen);
}

static void span(int64_t x, int64_t *lo) {
    if (x != TRACE_NONE && (*lo == TRACE_NONE || x < *lo)) *lo = x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    imp_file f = {"fuzz.csv", data, size};
    trace t;
    trace_init(&t);
    char err[512] = "";
    int rc = imp_nvprof_csv(NULL, &f, 1, &t, err, sizeof err);
    if (rc != 0 && (rc != -1 || err[0] == '\0' || strchr(err, '\n'))) abort();

    got g = {.base = 0};
    trace_init(&g.t);
    imp_stream s = {.rows = 2};
    peek p = {&s, &g};
    s.batch = on_batch_peek;
    s.user = &p;
    imp_options o = {.stream = &s};
    trace u;
    trace_init(&u);
    char err2[512] = "";
    int rc2 = imp_import_opts(IMP_NVPROF_CSV, &f, 1, &o, &u, err2, sizeof err2);
    /* the streamed import says what the whole one through imp_import
     * says; imp_import may refuse before the reader, or add to its
     * refusal (an empty file, a compressed one, a file whose content is
     * another format's: importers/importers.c), so the reader's own words
     * are not the reference; where it took the file the rows are */
    trace w;
    trace_init(&w);
    char errw[512] = "";
    int rcw = imp_import(IMP_NVPROF_CSV, &f, 1, &w, errw, sizeof errw);
    trace_free(&w);
    if (rc2 != rcw || (rcw && strcmp(errw, err2) != 0)) abort();
    if (rc == 0 && rcw == 0 && !t.oom && !g.t.oom) {
        if (g.t.kernels.n != t.kernels.n || g.t.copies.n != t.copies.n) abort();
        int64_t lo = TRACE_NONE;
        for (size_t i = 0; i < t.kernels.n; i++) {
            const trace_kernel *a = &t.kernels.v[i], *b = &g.t.kernels.v[i];
            if (a->name != b->name || a->raw_name != b->raw_name || a->stream != b->stream ||
                a->process != b->process || a->first_block != b->first_block ||
                a->end != b->end || a->blocks != b->blocks || a->threads != b->threads ||
                a->smem != b->smem || a->regs != b->regs)
                abort();
            span(a->first_block, &lo), span(a->end, &lo);
        }
        for (size_t i = 0; i < t.copies.n; i++) {
            const trace_copy *a = &t.copies.v[i], *b = &g.t.copies.v[i];
            if (a->name != b->name || a->stream != b->stream || a->process != b->process ||
                a->direction != b->direction || a->bytes != b->bytes || a->start != b->start ||
                a->end != b->end)
                abort();
            span(a->start, &lo), span(a->end, &lo);
        }
        if (u.origin != (lo == TRACE_NONE ? 0 : lo)) abort();
        /* what the caller adds to every stored time: base - origin */
        if (g.calls && (uint64_t)s.shift != (uint64_t)g.base - (uint64_t)u.origin) abort();
        if (u.kernels.n || u.copies.n) abort();
    }
    trace_free(&u);
    trace_free(&g.t);
    trace_free(&t);
    return 0;
}
