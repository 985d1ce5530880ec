/* fuzz_globaltimer_csv.c -- libFuzzer harness: any bytes through the
 * globaltimer CSV importer. It must return 0 or -1 with a one-line message,
 * never crash, leak or read out of bounds.
 *
 * Also differential (issue 9): the import that `schedlab import` and POST
 * /api/imports run streams (two passes over the file: the checks and the
 * kernels' summaries, then the blocks in batches), a path of its own. The
 * same bytes streamed in batches of two rows must give the same result,
 * the same message and, once each batch's times are moved back by the
 * stream's base, the same kernels and blocks in the same order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../importers/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct got {
    trace t;
    imp_stream *s;
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
    /* the base is set before the first call and holds for every later one */
    if (g->calls++ == 0) g->base = g->s->base;
    if (kernels != g->t.kernels.n || copies != 0 || t->copies.n) abort();
    /* every kernel in the first batch, before any block */
    if (t->kernels.n && g->t.blocks.n) abort();
    for (size_t i = 0; i < t->kernels.n; i++) {
        trace_kernel *k = trace_add_kernel(&g->t);
        if (!k) return 0;
        *k = t->kernels.v[i];
        k->issue = back(k->issue, g->base), k->first_block = back(k->first_block, g->base);
        k->fully_dispatched = back(k->fully_dispatched, g->base), k->end = back(k->end, g->base);
    }
    for (size_t i = 0; i < t->blocks.n; i++) {
        trace_block *b = trace_add_block(&g->t);
        if (!b) return 0;
        *b = t->blocks.v[i];
        if (b->kernel < 0 || (size_t)b->kernel >= g->t.kernels.n) abort();
        b->start = back(b->start, g->base), b->end = back(b->end, g->base);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    imp_file f = {"fuzz.csv", data, size};
    trace t;
    trace_init(&t);
    char err[512] = "";
    int rc = imp_globaltimer_csv(NULL, &f, 1, &t, err, sizeof err);
    if (rc != 0 && (rc != -1 || err[0] == '\0' || strchr(err, '\n'))) abort();

    got g = {.base = 0};
    trace_init(&g.t);
    imp_stream s = {.rows = 2, .batch = on_batch, .user = &g};
    g.s = &s;
    imp_options o = {.stream = &s};
    trace u;
    trace_init(&u);
    char err2[512] = "";
    int rc2 = imp_import_opts(IMP_GLOBALTIMER_CSV, &f, 1, &o, &u, err2, sizeof err2);
    /* the streamed import says what the whole one through imp_import
     * says; imp_import may refuse before the reader, or add to its
     * refusal (an empty file, a compressed one, a file whose content is
     * another format's: importers/importers.c), so the reader's own words
     * are not the reference; where it took the file the rows are */
    trace w;
    trace_init(&w);
    char errw[512] = "";
    int rcw = imp_import(IMP_GLOBALTIMER_CSV, &f, 1, &w, errw, sizeof errw);
    trace_free(&w);
    if (rc2 != rcw || (rcw && strcmp(errw, err2) != 0)) abort();
    if (rc == 0 && rcw == 0 && !t.oom && !g.t.oom) {
        if (!s.streamed || g.t.kernels.n != t.kernels.n || g.t.blocks.n != t.blocks.n) abort();
        for (size_t i = 0; i < t.kernels.n; i++) {
            const trace_kernel *a = &t.kernels.v[i], *b = &g.t.kernels.v[i];
            /* strings are interned in the same order: the same ids */
            if (a->name != b->name || a->raw_name != b->raw_name || a->stream != b->stream ||
                a->process != b->process || a->issue != b->issue ||
                a->first_block != b->first_block || a->fully_dispatched != b->fully_dispatched ||
                a->end != b->end || a->blocks != b->blocks || a->threads != b->threads)
                abort();
        }
        for (size_t i = 0; i < t.blocks.n; i++) {
            const trace_block *a = &t.blocks.v[i], *b = &g.t.blocks.v[i];
            if (a->kernel != b->kernel || a->index != b->index || a->sm != b->sm ||
                a->start != b->start || a->end != b->end)
                abort();
        }
        if (u.kernels.n || u.blocks.n) abort();
    }
    trace_free(&u);
    trace_free(&g.t);
    trace_free(&t);
    return 0;
}
