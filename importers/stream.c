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
 * Per thread, as progress.c: the per-format functions keep their
 * signatures, and server workers import side by side. */
#include "formats.h"
#include "trace_check.h"

#include <sys/mman.h>
#include <unistd.h>

#define DEFAULT_ROWS 65536

typedef struct stream_state {
    imp_stream *s;               /* NULL: not streaming */
    bool have_base;
    int64_t lo, hi;              /* earliest and latest time seen (absolute) */
    size_t dropped;              /* bytes of the mapped file already dropped */
} stream_state;

static _Thread_local stream_state cur;

void imp_stream_begin(imp_stream *s) {
    cur = (stream_state){.s = s};
    if (!s) return;
    s->streamed = false;
    s->kernels = s->copies = s->blocks = 0;
    s->base = s->shift = 0;
    s->range_ok = true;
    s->whole_message = false;
}

bool imp_stream_active(void) { return cur.s != NULL; }

static void seen(int64_t x) {
    if (x == TRACE_NONE) return;
    if (!cur.have_base || x < cur.lo) cur.lo = x;
    if (!cur.have_base || x > cur.hi) cur.hi = x;
    cur.have_base = true;
}

static void rel(int64_t *x, int64_t base) {
    if (*x != TRACE_NONE) *x = (int64_t)((uint64_t)*x - (uint64_t)base);
}

/* Pages of a mapped file before `upto` will not be read again. */
static void drop_behind(const imp_file *f, size_t upto) {
    if (!f || !cur.s->mapped || !f->data) return;
    static size_t page;
    if (!page) {
        long p = sysconf(_SC_PAGESIZE);
        page = p > 0 ? (size_t)p : 4096;
    }
    upto -= upto % page;
    if (upto <= cur.dropped) return;
    /* an mmap'ed region starts on a page; the cast drops const only for
     * the call, which never writes */
    madvise((void *)(f->data + cur.dropped), upto - cur.dropped, MADV_DONTNEED);
    cur.dropped = upto;
}

void imp_stream_drop(const imp_file *file, size_t read) {
    if (cur.s) drop_behind(file, read);
}

void imp_stream_rewind(void) { cur.dropped = 0; }

void imp_stream_forget(const imp_file *f) {
    if (!cur.s || !cur.s->mapped || !f || !f->data || !f->len) return;
    /* the mapping starts on a page; const dropped only for the call */
    madvise((void *)f->data, f->len, MADV_DONTNEED);
}

int imp_stream_flush(trace *t, char *err, size_t errlen) {
    imp_stream *s = cur.s;
    if (!s || (t->kernels.n == 0 && t->copies.n == 0 && t->blocks.n == 0)) return 0;
    /* after an allocation failure the rows may be partial: the format
     * reports the failure at its end, nothing more is handed over */
    if (t->oom) return 0;
    bool first = !s->streamed;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        seen(k->issue), seen(k->first_block), seen(k->fully_dispatched), seen(k->end);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        seen(c->issue), seen(c->start), seen(c->end);
    }
    for (size_t i = 0; i < t->blocks.n; i++) seen(t->blocks.v[i].start), seen(t->blocks.v[i].end);
    if (first) s->base = cur.have_base ? cur.lo : 0;
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

int imp_stream_rows(trace *t, const imp_file *file, size_t read, char *err, size_t errlen) {
    imp_stream *s = cur.s;
    if (!s) return 0;
    size_t rows = s->rows ? s->rows : DEFAULT_ROWS;
    if (t->kernels.n + t->copies.n + t->blocks.n < rows) return 0;
    if (imp_stream_flush(t, err, errlen) < 0) return -1;
    drop_behind(file, read);
    return 0;
}

void imp_stream_end(trace *t) {
    imp_stream *s = cur.s;
    cur.s = NULL;
    if (!s || !s->streamed) return;
    /* trace_rebase's origin: the earliest time, left at 0 when it is 0 or
     * there is none */
    int64_t m = cur.have_base ? cur.lo : 0;
    t->origin += m;
    s->shift = (int64_t)((uint64_t)s->base - (uint64_t)m);
    s->range_ok = m > -IMP_MAX_TIME && m < IMP_MAX_TIME &&
                  (uint64_t)cur.hi - (uint64_t)cur.lo < (uint64_t)IMP_MAX_TIME;
}
