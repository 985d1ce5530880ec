/* stream.c -- the import's batch sink (importers.h, imp_stream; issue 9).
 *
 * A streaming format adds kernels, copies and blocks to its trace as
 * before and calls imp_stream_rows after each row: every imp_stream.rows
 * rows the batch is re-based to a provisional origin, handed to the caller
 * and emptied, and the file's pages read so far are dropped when it is a
 * mapping. So the import holds one batch, the string table and one page
 * window of the file, whatever the file's size. A format that reads its
 * file twice (globaltimer-csv) rewinds the window; one that reads it out of
 * order (the SQLite ones) drops every page now and then (imp_stream_forget).
 *
 * The origin. imp_import re-bases a whole trace to its earliest time
 * (trace_rebase), which a stream knows only at the end. Batches are
 * re-based to `base`, the earliest time of the first batch; the true
 * origin m <= base comes at the end, with shift = base - m for the caller
 * to add to what it stored. nvprof lists rows by start, so shift is 0 on
 * every real file and the caller's fix-up never runs there.
 *
 * The range check (trace_check.h) of the re-based times: a time x is kept
 * as x - base; once the origin m is known, every x - m lies in
 * [0, max - m], so "every re-based time is within +-2^62" is "the origin is
 * within it and max - m < 2^62" (range_ok). Differences are taken in
 * unsigned arithmetic: a file may hold any int64, and wrapping here only
 * produces values range_ok then refuses.
 *
 * The state lives in the import's context (imp_ctx, formats.h), as
 * progress.c's: server workers import side by side. */
#include "formats.h"
#include "trace_check.h"

#include <sys/mman.h>
#include <unistd.h>

#define DEFAULT_ROWS 65536

void imp_stream_begin(imp_ctx *cx, imp_stream *s) {
    cx->s = s;
    cx->have_base = false;
    cx->lo = cx->hi = 0;
    cx->dropped = 0;
    if (!s) return;
    s->streamed = false;
    s->kernels = s->copies = s->blocks = 0;
    s->base = s->shift = 0;
    s->range_ok = true;
    s->whole_message = false;
}

static void seen(imp_ctx *cx, int64_t x) {
    if (x == TRACE_NONE) return;
    if (!cx->have_base || x < cx->lo) cx->lo = x;
    if (!cx->have_base || x > cx->hi) cx->hi = x;
    cx->have_base = true;
}

static void rel(int64_t *x, int64_t base) {
    if (*x != TRACE_NONE) *x = (int64_t)((uint64_t)*x - (uint64_t)base);
}

/* Pages of a mapped file before `upto` will not be read again. */
static void drop_behind(imp_ctx *cx, const imp_file *f, size_t upto) {
    if (!f || !cx->s->mapped || !f->data) return;
    static size_t page;
    if (!page) {
        long p = sysconf(_SC_PAGESIZE);
        page = p > 0 ? (size_t)p : 4096;
    }
    upto -= upto % page;
    if (upto <= cx->dropped) return;
    /* an mmap'ed region starts on a page; the cast drops const only for
     * the call, which never writes */
    madvise((void *)(f->data + cx->dropped), upto - cx->dropped, MADV_DONTNEED);
    cx->dropped = upto;
}

void imp_stream_drop(imp_ctx *cx, const imp_file *file, size_t read) {
    if (cx && cx->s) drop_behind(cx, file, read);
}

void imp_stream_rewind(imp_ctx *cx) {
    if (cx) cx->dropped = 0;
}

void imp_stream_forget(imp_ctx *cx, const imp_file *f) {
    if (!cx || !cx->s || !cx->s->mapped || !f || !f->data || !f->len) return;
    /* the mapping starts on a page; const dropped only for the call */
    madvise((void *)f->data, f->len, MADV_DONTNEED);
}

int imp_stream_flush(imp_ctx *cx, trace *t, char *err, size_t errlen) {
    imp_stream *s = cx ? cx->s : NULL;
    if (!s || (t->kernels.n == 0 && t->copies.n == 0 && t->blocks.n == 0)) return 0;
    /* after an allocation failure the rows may be partial: the format
     * reports the failure at its end, nothing more is handed over */
    if (t->oom) return 0;
    bool first = !s->streamed;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        seen(cx, k->issue), seen(cx, k->first_block), seen(cx, k->fully_dispatched),
            seen(cx, k->end);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        seen(cx, c->issue), seen(cx, c->start), seen(cx, c->end);
    }
    for (size_t i = 0; i < t->blocks.n; i++)
        seen(cx, t->blocks.v[i].start), seen(cx, t->blocks.v[i].end);
    if (first) s->base = cx->have_base ? cx->lo : 0;
    s->streamed = true;
    int64_t b = s->base;
    for (size_t i = 0; i < t->kernels.n; i++) {
        trace_kernel *k = &t->kernels.v[i];
        rel(&k->issue, b), rel(&k->first_block, b), rel(&k->fully_dispatched, b), rel(&k->end, b);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        trace_copy *c = &t->copies.v[i];
        rel(&c->issue, b), rel(&c->start, b), rel(&c->end, b);
    }
    for (size_t i = 0; i < t->blocks.n; i++) rel(&t->blocks.v[i].start, b), rel(&t->blocks.v[i].end, b);
    if (s->batch(s->user, t, s->kernels, s->copies, err, errlen) < 0) return -1;
    s->kernels += t->kernels.n;
    s->copies += t->copies.n;
    s->blocks += t->blocks.n;
    t->kernels.n = 0;
    t->copies.n = 0;
    t->blocks.n = 0;
    return 0;
}

int imp_stream_rows(imp_ctx *cx, trace *t, const imp_file *file, size_t read, char *err,
                    size_t errlen) {
    imp_stream *s = cx ? cx->s : NULL;
    if (!s) return 0;
    size_t rows = s->rows ? s->rows : DEFAULT_ROWS;
    if (t->kernels.n + t->copies.n + t->blocks.n < rows) return 0;
    if (imp_stream_flush(cx, t, err, errlen) < 0) return -1;
    drop_behind(cx, file, read);
    return 0;
}

void imp_stream_end(imp_ctx *cx, trace *t) {
    imp_stream *s = cx->s;
    cx->s = NULL;
    if (!s || !s->streamed) return;
    /* trace_rebase's origin: the earliest time, left at 0 when it is 0 or
     * there is none */
    int64_t m = cx->have_base ? cx->lo : 0;
    t->origin += m;
    s->shift = (int64_t)((uint64_t)s->base - (uint64_t)m);
    s->range_ok = m > -IMP_MAX_TIME && m < IMP_MAX_TIME &&
                  (uint64_t)cx->hi - (uint64_t)cx->lo < (uint64_t)IMP_MAX_TIME;
}
