/* fuzz_pytorch_json.c -- libFuzzer harness for the PyTorch profiler
 * importer (issue 29) and its pull JSON reader: any bytes through
 * imp_pytorch_json as one file and, split at the first NUL, as two rank
 * files of one job; and through the reader fed one byte per chunk, which
 * must give the same tokens as fed whole (every chunk boundary a .gz
 * member's inflate can produce); and streamed in small batches (spilled
 * runs merged), which must give what the whole import gives. It must return 0 or -1 with a one-line
 * message, never crash, leak or read out of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../importers/pjson.h"
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* imp_pytorch_json takes no import context (imp_pytorch_format.read does) */
static int pt_read(imp_ctx *cx, const imp_file *files, size_t n, trace *t, char *err,
                   size_t errlen) {
    (void)cx;
    return imp_pytorch_json(files, n, t, err, errlen);
}

typedef struct drip { const uint8_t *d; size_t at, n; } drip;
static int drip_refill(void *user, const unsigned char **buf, size_t *len) {
    drip *p = user;
    *len = p->at < p->n ? 1 : 0;
    *buf = p->d + p->at;
    p->at += *len;
    return 0;
}

static void same_tokens(const uint8_t *data, size_t size) {
    pj_reader a, b;
    drip d = { data, 0, size };
    pj_init(&a, data, size, NULL, NULL);
    pj_init(&b, NULL, 0, drip_refill, &d);
    for (int i = 0; i < 100000; i++) {
        pj_tok x = pj_next(&a), y = pj_next(&b);
        if (x != y) abort();
        if (x == PJ_KEY || x == PJ_STRING || x == PJ_NUMBER) {
            if (a.len != b.len || memcmp(a.str, b.str, a.len) != 0) abort();
            if (x == PJ_NUMBER) {
                int64_t v;
                (void)imp_pytorch_us_to_ns(a.str, &v);
            }
        }
        if (x == PJ_ERROR) {
            if (strcmp(a.err, b.err) != 0) abort();
            break;
        }
        if (x == PJ_END) break;
    }
    pj_free(&a);
    pj_free(&b);
}

/* Streamed in batches of 2 rows (runs of 8 spilled and merged, calls
 * spilled past 8): the whole import's outcome -- the same message when it
 * fails, the same records in the same order when it succeeds. */
typedef struct gathered { trace rows; } gathered;

static int gather(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                  size_t errlen) {
    (void)kernels, (void)copies, (void)err, (void)errlen;
    gathered *g = user;
    for (size_t i = 0; i < t->kernels.n; i++) {
        trace_kernel *k = trace_add_kernel(&g->rows);
        if (k) *k = t->kernels.v[i];
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        trace_copy *c = trace_add_copy(&g->rows);
        if (c) *c = t->copies.v[i];
    }
    return 0;
}

static int64_t shifted(int64_t x, int64_t d) { return x == TRACE_NONE ? x : (int64_t)((uint64_t)x + (uint64_t)d); }

static void same_streamed(const uint8_t *data, size_t size) {
    imp_file one = {"fuzz.json", data, size};
    trace whole, st;
    trace_init(&whole);
    trace_init(&st);
    gathered g;
    trace_init(&g.rows);
    char e1[512] = "", e2[512] = "";
    int r1 = imp_import(IMP_PYTORCH, &one, 1, &whole, e1, sizeof e1);
    imp_stream s = {.batch = gather, .user = &g, .rows = 2};
    imp_options o = {.stream = &s};
    int r2 = imp_import_opts(IMP_PYTORCH, &one, 1, &o, &st, e2, sizeof e2);
    if (r1 != r2) abort();
    if (r1 != 0 && strcmp(e1, e2) != 0) abort();
    if (r1 == 0 && !whole.oom && !g.rows.oom) {
        if (g.rows.kernels.n != whole.kernels.n || g.rows.copies.n != whole.copies.n) abort();
        if (st.strs.n != whole.strs.n || st.meta.n != whole.meta.n) abort();
        for (size_t i = 0; i < whole.kernels.n; i++) {
            const trace_kernel *a = &g.rows.kernels.v[i], *b = &whole.kernels.v[i];
            if (a->name != b->name || a->process != b->process || a->stream != b->stream ||
                shifted(a->first_block, s.shift) != b->first_block ||
                shifted(a->end, s.shift) != b->end || shifted(a->issue, s.shift) != b->issue)
                abort();
        }
        for (size_t i = 0; i < whole.copies.n; i++) {
            const trace_copy *a = &g.rows.copies.v[i], *b = &whole.copies.v[i];
            if (a->name != b->name || a->process != b->process ||
                shifted(a->start, s.shift) != b->start || shifted(a->issue, s.shift) != b->issue)
                abort();
        }
    }
    trace_free(&g.rows);
    trace_free(&st);
    trace_free(&whole);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_import_one_and_two(pt_read, data, size);
    same_streamed(data, size);
    same_tokens(data, size);
    return 0;
}
