/* test_bpage.c -- blocks stored as pages (db/bpage.h, issue 9).
 *
 * The codec: exact bytes of a known block, round trips of extreme values
 * (TRACE_NONE, INT64/INT32 limits, negative times), and a decoder that
 * refuses every truncation, trailing bytes, over-long and over-wide varints.
 * The store: windows at and across page edges, in sorted and shuffled
 * block orders, equal the computation from the raw blocks (which blocks, in
 * which order), as do counts, limits and the pauses join; streamed batches
 * that do not line up with pages read back identical; and a database of
 * the old row-per-block layout is migrated to pages with every block kept.
 * By hand: a page's stored bounds, the export's page reads and their
 * errors, and the scan's and window's own contracts (seq, lo, limit, a
 * callback that stops). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../db/bpage.h"
#include "../../db/db.h"
#include "test_db_util.h"
#include "../../db/pyramid.h"

typedef tdb_exp fixture;

static void unlink_db(const char *path) {
    char p[160];
    const char *suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
}

static int teardown(void **state) {
    fixture *f = *state;
    char old[128];   /* the migration test's second database */
    snprintf(old, sizeof old, "%s/old.db", f->t.dir);
    unlink_db(old);
    return tdb_exp_teardown(state);
}

static uint64_t rng(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void assert_block_equal(const trace_block *a, const trace_block *b) {
    assert_int_equal(a->kernel, b->kernel);
    assert_int_equal(a->index, b->index);
    assert_int_equal(a->sm, b->sm);
    assert_int_equal(a->start, b->start);
    assert_int_equal(a->end, b->end);
}

/* ---- the codec ------------------------------------------------------------------ */

static void test_codec_bytes(void **state) {
    (void)state;
    uint8_t out[3 * BPAGE_MAX_BLOCK_BYTES];
    trace_block b[3] = {
        {.kernel = 1, .index = 2, .sm = 3, .start = 100, .end = 150},
        {.kernel = 0, .index = 3, .sm = -1, .start = 90, .end = 90},
        {.kernel = 0, .index = 4, .sm = 0, .start = TRACE_NONE, .end = TRACE_NONE},
    };
    size_t n = bpage_encode(b, 3, out);
    /* zigzag varints: kernel +1 -> 2, index +2 -> 4, sm 3 -> 6, start +100
     * -> 200 (c8 01), end - start 50 -> 100 (64); then kernel -1 -> 1,
     * index +1 -> 2, sm -1 -> 1, start -10 -> 19, duration 0; then a block
     * with unknown times: start - 90 wraps to INT64_MIN - 90, end - start 0 */
    const uint8_t want[] = {0x02, 0x04, 0x06, 0xc8, 0x01, 0x64,
                            0x01, 0x02, 0x01, 0x13, 0x00,
                            0x00, 0x02, 0x00,
                            /* INT64_MIN - 90 wraps to 2^63 - 90, zigzag 2^64 - 180 */
                            0xcc, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                            0x00};
    assert_int_equal(n, sizeof want);
    assert_memory_equal(out, want, sizeof want);
    trace_block back[3];
    assert_int_equal(bpage_decode(out, n, 3, back), 0);
    for (int i = 0; i < 3; i++) assert_block_equal(&back[i], &b[i]);
    /* kernel, index and sm are 32-bit fields: a varint of 2^32 in any of
     * them is damage (80 80 80 80 10), in start or duration it is not */
    for (int field = 0; field < 5; field++) {
        uint8_t page[16];
        size_t len = 0;
        for (int g = 0; g < 5; g++) {
            if (g == field) {
                const uint8_t big[] = {0x80, 0x80, 0x80, 0x80, 0x10};
                memcpy(page + len, big, sizeof big);
                len += sizeof big;
            } else {
                page[len++] = 0x00;
            }
        }
        assert_int_equal(bpage_decode(page, len, 1, back), field < 3 ? -1 : 0);
    }
}

static void test_codec_roundtrip(void **state) {
    (void)state;
    static const int64_t times[] = {TRACE_NONE, INT64_MAX, INT64_MIN + 1, -1, 0, 1,
                                    1000000000000LL, -5000};
    static const int32_t ints[] = {INT32_MIN, INT32_MAX, -1, 0, 1, 127, 128, 65535};
    enum { N = BPAGE_BLOCKS };
    trace_block *b = malloc(N * sizeof *b), *back = malloc(N * sizeof *back);
    uint8_t *out = malloc(N * BPAGE_MAX_BLOCK_BYTES);
    uint64_t seed = 7;
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + rng(&seed) % N;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = rng(&seed);
            b[i] = (trace_block){
                .kernel = r & 1 ? ints[r % 8] : (int32_t)(r >> 40),
                .index = r & 2 ? ints[(r >> 8) % 8] : (int32_t)(r >> 20),
                .sm = r & 4 ? ints[(r >> 16) % 8] : (int32_t)((r >> 24) % 132),
                .start = r & 8 ? times[(r >> 32) % 8] : (int64_t)(r >> 3),
                .end = r & 16 ? times[(r >> 40) % 8] : (int64_t)(r >> 5) - 7,
            };
        }
        size_t len = bpage_encode(b, n, out);
        assert_true(len <= n * BPAGE_MAX_BLOCK_BYTES);
        assert_int_equal(bpage_decode(out, len, n, back), 0);
        for (size_t i = 0; i < n; i++) assert_block_equal(&back[i], &b[i]);
        /* every truncation is refused, and so is one byte more, and so are
         * too few or too many blocks asked for */
        for (size_t cut = 0; cut < len; cut += 1 + len / 64)
            assert_int_equal(bpage_decode(out, cut, n, back), -1);
        out[len] = 0;
        assert_int_equal(bpage_decode(out, len + 1, n, back), -1);
        if (n > 1) assert_int_equal(bpage_decode(out, len, n - 1, back), -1);
        assert_int_equal(bpage_decode(out, len, n + 1, back), -1);
    }
    free(b);
    free(back);
    free(out);
}

static void test_codec_refuses(void **state) {
    (void)state;
    trace_block b[1];
    /* the minimal block: five zero bytes */
    const uint8_t ok[] = {0, 0, 0, 0, 0};
    assert_int_equal(bpage_decode(ok, 5, 1, b), 0);
    assert_int_equal(b[0].start, 0);
    /* an over-long zero (80 00) in each position */
    for (int pos = 0; pos < 5; pos++) {
        uint8_t v[6] = {0};
        v[pos] = 0x80;
        assert_int_equal(bpage_decode(v, 6, 1, b), -1);
    }
    /* a 32-bit field of 2^32 (80 80 80 80 10) and the largest that fits
     * (ff ff ff ff 0f) */
    const uint8_t wide32[] = {0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0};
    assert_int_equal(bpage_decode(wide32, sizeof wide32, 1, b), -1);
    const uint8_t max32[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0};
    assert_int_equal(bpage_decode(max32, sizeof max32, 1, b), 0);
    assert_int_equal(b[0].kernel, INT32_MIN);   /* zigzag 2^32 - 1: -2^31 */
    /* a 64-bit field of 2^64 (ten bytes ending 02) and one of eleven bytes */
    uint8_t wide64[15] = {0, 0, 0};
    for (int i = 0; i < 9; i++) wide64[3 + i] = 0xff;
    wide64[12] = 0x02;
    wide64[13] = 0;
    assert_int_equal(bpage_decode(wide64, 14, 1, b), -1);
    wide64[12] = 0x01;
    assert_int_equal(bpage_decode(wide64, 14, 1, b), 0);
    assert_int_equal(b[0].start, INT64_MIN);   /* zigzag 2^64 - 1 */
    uint8_t long64[15] = {0, 0, 0};
    for (int i = 0; i < 10; i++) long64[3 + i] = 0x80;
    long64[13] = 0x01;
    long64[14] = 0;
    assert_int_equal(bpage_decode(long64, 15, 1, b), -1);
    /* nothing at all for one block; zero blocks from zero bytes */
    assert_int_equal(bpage_decode(ok, 0, 1, b), -1);
    assert_int_equal(bpage_decode(ok, 0, 0, b), 0);
}

/* ---- windows against the raw blocks ------------------------------------------------ */

typedef struct got {
    trace_block v[4096];
    size_t n;
} got;

static int on_block(void *ctx, const trace_block *b) {
    got *g = ctx;
    assert_true(g->n < 4096);
    g->v[g->n++] = *b;
    return 0;
}

typedef struct ref_block {
    trace_block b;
    size_t seq;
} ref_block;

static int ref_cmp(const void *a, const void *b) {
    const ref_block *x = a, *y = b;
    if (x->b.start != y->b.start) return x->b.start < y->b.start ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* What the old ORDER BY start, seq scan answered for [from, to). */
static size_t raw_window(const trace *t, int64_t maxdur, int64_t from, int64_t to, ref_block *out) {
    size_t n = 0;
    int64_t lo = from - maxdur;
    for (size_t i = 0; i < t->blocks.n; i++) {
        const trace_block *b = &t->blocks.v[i];
        if (b->start == TRACE_NONE || b->end == TRACE_NONE) continue;
        if (b->start >= lo && b->start < to && b->end > from) out[n++] = (ref_block){*b, i};
    }
    qsort(out, n, sizeof *out, ref_cmp);
    return n;
}

/* a simulated trace of one 64-thread kernel, its blocks still to add */
static void one_kernel_trace(trace *t) {
    trace_init(t);
    trace_set_source(t, "simulation");
    trace_add_kernel(t)->threads = 64;
}

/* A run of n blocks: sorted by start (as a simulation emits them) or in a
 * shuffled order (as an importer may), with ties, unknown times and a few
 * long blocks that span many pages. */
static void build_run(trace *t, size_t n, bool sorted, uint64_t seed) {
    trace_init(t);
    trace_set_source(t, "simulation");
    for (int k = 0; k < 3; k++) {
        trace_kernel *kk = trace_add_kernel(t);
        kk->threads = 128 << k;
        kk->blocks = (int64_t)n;
    }
    int64_t now = 0;
    for (size_t i = 0; i < n; i++) {
        trace_block *b = trace_add_block(t);
        uint64_t r = rng(&seed);
        now += (int64_t)(r % 3) * 10;   /* ties: equal starts across page edges */
        b->kernel = (int32_t)(r % 3);
        b->index = (int32_t)i;
        b->sm = (int32_t)((r >> 8) % 8);
        b->start = sorted ? now : (int64_t)((r >> 16) % 20000);
        b->end = b->start + ((r >> 40) % 50 == 0 ? 5000 : (int64_t)((r >> 32) % 400));
        if ((r >> 48) % 97 == 0) b->end = TRACE_NONE;
        if ((r >> 52) % 89 == 0) b->start = TRACE_NONE;
    }
}

static int64_t max_dur(const trace *t) {
    int64_t m = 0;
    for (size_t i = 0; i < t->blocks.n; i++) {
        const trace_block *b = &t->blocks.v[i];
        if (b->start != TRACE_NONE && b->end != TRACE_NONE && b->end - b->start > m)
            m = b->end - b->start;
    }
    return m;
}

static void check_windows(fixture *f, const char *slug, const trace *t) {
    char err[256];
    int64_t md = max_dur(t);
    ref_block *want = malloc(t->blocks.n * sizeof *want);
    got *g = malloc(sizeof *g);
    pyr_run r;
    assert_int_equal(db_pyramid_run(f->d, slug, &r, err, sizeof err), 0);
    /* windows whose edges sit on page edges (the starts of blocks 255, 256,
     * 511, 512, ...) and next to them, and arbitrary ones */
    int64_t edges[64];
    size_t ne = 0;
    for (size_t p = BPAGE_BLOCKS; p < t->blocks.n && ne + 6 < 64; p += BPAGE_BLOCKS) {
        for (int d = -1; d <= 0; d++) {
            int64_t s = t->blocks.v[p + (size_t)d].start;
            if (s == TRACE_NONE) continue;
            edges[ne++] = s;
            edges[ne++] = s + 1;
        }
    }
    edges[ne++] = -100;
    edges[ne++] = 0;
    edges[ne++] = 7777;
    edges[ne++] = 40000;
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++) {
            int64_t from = edges[i], to = edges[j];
            if (to <= from) continue;
            size_t n = raw_window(t, md, from, to, want);
            g->n = 0;
            assert_int_equal(db_blocks_window(f->d, slug, from, to, on_block, g, err, sizeof err), 0);
            assert_int_equal(g->n, n);
            for (size_t k = 0; k < n; k++) assert_block_equal(&g->v[k], &want[k].b);
            int64_t cnt = -1;
            assert_int_equal(db_blocks_count(f->d, slug, from, to, &cnt, err, sizeof err), 0);
            assert_int_equal(cnt, (int64_t)n);
            /* the API's read: the first `limit` of the same order */
            int64_t limit = (int64_t)n / 2 + 1, seen = -1;
            g->n = 0;
            assert_int_equal(db_window_blocks(f->d, &r, from, to, limit, on_block, g, &seen, err,
                                              sizeof err), 0);
            size_t wantn = (size_t)limit < n ? (size_t)limit : n;
            assert_int_equal(seen, (int64_t)wantn);
            assert_int_equal(g->n, wantn);
            for (size_t k = 0; k < wantn; k++) assert_block_equal(&g->v[k], &want[k].b);
        }
    free(want);
    free(g);
}

static void test_windows_sorted(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE];
    trace t;
    build_run(&t, 5 * BPAGE_BLOCKS + 17, true, 1);
    assert_int_equal(db_store_run(f->d, f->exp, "sorted", &t, slug, err, sizeof err), 0);
    check_windows(f, slug, &t);
    trace_free(&t);
}

static void test_windows_shuffled(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE];
    trace t;
    build_run(&t, 3 * BPAGE_BLOCKS + 5, false, 2);
    assert_int_equal(db_store_run(f->d, f->exp, "shuffled", &t, slug, err, sizeof err), 0);
    check_windows(f, slug, &t);
    trace_free(&t);
}

/* ---- streamed batches, and the pauses join ------------------------------------------ */

static void test_stream_batches(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE];
    trace t;
    build_run(&t, 4 * BPAGE_BLOCKS + 100, true, 3);
    /* batches of 1, 255, 256, 257 and the rest, then 30 of the trace's own */
    static const size_t batch[] = {1, 255, 256, 257};
    db_run_writer *w;
    assert_int_equal(db_run_begin(f->d, f->exp, "stream", slug, &w, err, sizeof err), 0);
    size_t at = 0;
    for (size_t i = 0; i < 4; i++, at += batch[i - 1])
        assert_int_equal(db_run_add_blocks(w, t.blocks.v + at, batch[i], err, sizeof err), 0);
    size_t own = 30, streamed = t.blocks.n - own;
    assert_int_equal(db_run_add_blocks(w, t.blocks.v + at, streamed - at, err, sizeof err), 0);
    trace rest;
    trace_init(&rest);
    trace_set_source(&rest, "simulation");
    for (int k = 0; k < 3; k++) *trace_add_kernel(&rest) = t.kernels.v[k];
    for (size_t i = streamed; i < t.blocks.n; i++) *trace_add_block(&rest) = t.blocks.v[i];
    /* pauses of blocks in the first, second and last page, out of block order */
    size_t pb[3] = {300, 3, t.blocks.n - 2};
    for (int i = 0; i < 3; i++) {
        const trace_block *b = &t.blocks.v[pb[i]];
        int64_t s = b->start == TRACE_NONE ? 0 : b->start;
        trace_add_pause(&rest, (int64_t)pb[i], s, s);
    }
    assert_int_equal(db_run_finish(w, &rest, err, sizeof err), 0);
    trace u;
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_ALL, &u, err, sizeof err), 0);
    assert_int_equal(u.blocks.n, t.blocks.n);
    for (size_t i = 0; i < t.blocks.n; i++) assert_block_equal(&u.blocks.v[i], &t.blocks.v[i]);
    assert_int_equal(u.pauses.n, 3);
    trace_free(&u);
    check_windows(f, slug, &t);
    trace_free(&rest);
    trace_free(&t);
}

typedef struct pseen {
    int32_t index[8];
    int n;
} pseen;

static int on_pause(void *ctx, int32_t kernel, int32_t index, int64_t start, int64_t end) {
    (void)kernel, (void)start, (void)end;
    pseen *p = ctx;
    assert_true(p->n < 8);
    p->index[p->n++] = index;
    return 0;
}

static void test_pauses_window(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE];
    trace t;
    one_kernel_trace(&t);
    /* block i runs [10 i, 10 i + 5): three pages */
    for (int i = 0; i < 3 * BPAGE_BLOCKS; i++)
        *trace_add_block(&t) = (trace_block){0, i, i % 4, 10 * i, 10 * i + 5};
    /* pauses in this order: block 300, 3, 5, 700 */
    trace_add_pause(&t, 300, 3001, 3002);
    trace_add_pause(&t, 3, 31, 32);
    trace_add_pause(&t, 5, 51, 52);
    trace_add_pause(&t, 700, 7001, 7002);
    assert_int_equal(db_store_run(f->d, f->exp, "p", &t, slug, err, sizeof err), 0);
    pseen p = {0};
    assert_int_equal(db_pauses_window(f->d, slug, 0, 10000, on_pause, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 4);   /* in the pauses' own order */
    assert_int_equal(p.index[0], 300);
    assert_int_equal(p.index[1], 3);
    assert_int_equal(p.index[2], 5);
    assert_int_equal(p.index[3], 700);
    memset(&p, 0, sizeof p);
    /* blocks 3..300 start in [30, 3001): block 3 [30, 35) .. block 300 */
    assert_int_equal(db_pauses_window(f->d, slug, 34, 3001, on_pause, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.index[0], 300);
    assert_int_equal(p.index[1], 3);
    assert_int_equal(p.index[2], 5);
    memset(&p, 0, sizeof p);
    /* block 3 ends at 35: a window from 35 leaves it out */
    assert_int_equal(db_pauses_window(f->d, slug, 35, 3000, on_pause, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.index[0], 5);
    trace_free(&t);
}

static int stop_at_first(void *ctx, int32_t kernel, int32_t index, int64_t start, int64_t end) {
    on_pause(ctx, kernel, index, start, end);
    return 7;
}

/* A window's pauses are those of the blocks in it, found by the blocks'
 * rows (their order in the trace), which need not be the order they start
 * in: rows 0-3 start at 500, 0, 1000 and 100, each paused once. The window
 * [0, 600) holds rows 1, 3 and 0 (in that order of start): their three
 * pauses, not row 2's (a row between theirs, outside the window). A
 * callback that answers non-zero stops the listing, and its answer is
 * returned. */
static void test_pauses_window_rows(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE];
    trace t;
    one_kernel_trace(&t);
    static const int64_t start[4] = {500, 0, 1000, 100};
    for (int i = 0; i < 4; i++)
        *trace_add_block(&t) = (trace_block){0, i, 0, start[i], start[i] + 5};
    for (int i = 0; i < 4; i++) trace_add_pause(&t, i, start[i] + 1, start[i] + 2);
    assert_int_equal(db_store_run(f->d, f->exp, "rows", &t, slug, err, sizeof err), 0);
    pseen p = {0};
    assert_int_equal(db_pauses_window(f->d, slug, 0, 600, on_pause, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.index[0], 0);
    assert_int_equal(p.index[1], 1);
    assert_int_equal(p.index[2], 3);
    memset(&p, 0, sizeof p);
    assert_int_equal(db_pauses_window(f->d, slug, 0, 600, stop_at_first, &p, err, sizeof err), 7);
    assert_int_equal(p.n, 1);
    trace_free(&t);
    /* two pages whose second starts first: the window reads the second
     * page's rows before the first's; the pauses of row 0 and of row
     * BPAGE_BLOCKS, the first of each page, both found */
    one_kernel_trace(&t);
    for (int i = 0; i < 2 * BPAGE_BLOCKS; i++) {
        int64_t at = i < BPAGE_BLOCKS ? 10000 + i : i - BPAGE_BLOCKS;
        *trace_add_block(&t) = (trace_block){0, i, 0, at, at + 5};
    }
    trace_add_pause(&t, 0, 10001, 10002);
    trace_add_pause(&t, BPAGE_BLOCKS, 1, 2);
    assert_int_equal(db_store_run(f->d, f->exp, "pages", &t, slug, err, sizeof err), 0);
    memset(&p, 0, sizeof p);
    assert_int_equal(db_pauses_window(f->d, slug, 0, 20000, on_pause, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.index[0], 0);
    assert_int_equal(p.index[1], BPAGE_BLOCKS);
    trace_free(&t);
}

/* A damaged page (a foreign or broken file) is an error naming it, never a
 * wrong answer. */
static void test_damaged_page(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE], want[256];
    trace t;
    build_run(&t, 2 * BPAGE_BLOCKS + 3, true, 4);
    assert_int_equal(db_store_run(f->d, f->exp, "d", &t, slug, err, sizeof err), 0);
    /* a byte too many in the last page: a window over its blocks */
    assert_int_equal(sqlite3_exec(db_handle(f->d),
                                  "UPDATE block_pages SET cells = cells || x'00' WHERE page = 2",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    got *g = malloc(sizeof *g);
    g->n = 0;
    int64_t last = t.blocks.v[t.blocks.n - 1].start;
    assert_int_equal(db_blocks_window(f->d, slug, last, last + 1, on_block, g, err, sizeof err), -1);
    assert_non_null(strstr(err, ": run 1: block page 2 is damaged (3 blocks in "));
    free(g);
    /* an empty blob in the middle: the export stops there */
    assert_int_equal(sqlite3_exec(db_handle(f->d), "UPDATE block_pages SET cells = x'' WHERE page = 1",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    trace u;
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_BLOCKS, &u, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: run 1: block page 1 is damaged (256 blocks in 0 bytes)",
             f->t.path);
    assert_string_equal(err, want);
    trace_free(&u);
    trace_free(&t);
}

/* ---- migration of the old layout ------------------------------------------------ */

static void old_db(const char *path, int nblocks, bool gap) {
    unlink_db(path);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    /* the eight steps before block pages, as a schedlab of then left them */
    const char *steps[] = {db_schema_sql, db_sweep_sql,    db_fidelity_sql, db_pauses_sql,
                           db_warp_sql,   db_qos_sql,      db_versions_sql, db_pyramid_sql};
    for (int i = 0; i < 8; i++) assert_int_equal(sqlite3_exec(h, steps[i], NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h,
                                  "PRAGMA user_version = 8;"
                                  "INSERT INTO experiments(id, slug, name, source) VALUES (1, 'e0', 'e', 'import');"
                                  "INSERT INTO runs(id, slug, experiment, name, source, n_kernels, n_blocks, "
                                  "n_copies, n_queue_events, n_warp_issues, n_jobs, sms, max_block_dur) VALUES "
                                  "(1, 'r1', 1, 'a', 'simulation', 1, 600, 0, 0, 0, 0, 4, 9),"
                                  "(2, 'r2', 1, 'b', 'simulation', 0, 0, 0, 0, 0, 0, 4, 0),"
                                  "(3, 'r3', 1, 'c', 'simulation', 1, 3, 0, 0, 0, 0, 4, 9);"
                                  "INSERT INTO kernels(run, id, threads, blocks, regs, grid_x, grid_y, "
                                  "grid_z, block_x, block_y, block_z) VALUES "
                                  "(1, 0, 64, 600, 0, 1, 1, 1, 64, 1, 1), (3, 0, 64, 3, 0, 1, 1, 1, 64, 1, 1);"
                                  /* run 1's device, as the devices table of then held it
                                   * (db/gpus.sql later makes the table again) */
                                  "INSERT INTO devices(run, name, sms, threads_per_sm, "
                                  "max_threads_per_block, blocks_per_sm, warps_per_sm, regs_per_sm, "
                                  "max_regs_per_block, smem_per_sm, max_smem_per_block, warp_size, "
                                  "schedulers_per_sm, copy_engines, copy_bandwidth, clock_hz, "
                                  "sm_order_kind, sm_order) VALUES (1, 'old gpu', 4, 2048, 1024, 32, "
                                  "64, 65536, 65536, 49152, 49152, 32, 4, 1, 1e10, 1000000000, 0, "
                                  "'0,1,2,3');",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(h,
                                        "INSERT INTO blocks(run, seq, kernel, idx, sm, start, stop) "
                                        "VALUES (?1, ?2, 0, ?3, ?4, ?5, ?6)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    for (int run = 1; run <= 3; run += 2)
        for (int i = 0; i < (run == 1 ? nblocks : 3); i++) {
            sqlite3_bind_int(st, 1, run);
            sqlite3_bind_int(st, 2, gap && run == 1 && i >= 400 ? i + 1 : i);
            sqlite3_bind_int(st, 3, i);
            sqlite3_bind_int(st, 4, i % 4);
            if (i % 50 == 7) sqlite3_bind_null(st, 5);
            else sqlite3_bind_int64(st, 5, 10 * i - 1000);
            sqlite3_bind_int64(st, 6, 10 * i - 1000 + i % 10);
            assert_int_equal(sqlite3_step(st), SQLITE_DONE);
            sqlite3_reset(st);
        }
    sqlite3_finalize(st);
    sqlite3_close(h);
}

static void test_migrate_old_layout(void **state) {
    fixture *f = *state;
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/old.db", f->t.dir);
    old_db(path, 600, false);
    db *d;
    assert_int_equal(db_open(path, &d, err, sizeof err), 0);
    int v = 0;
    assert_int_equal(db_user_version(d, &v, err, sizeof err), 0);
    assert_int_equal(v, DB_SCHEMA_VERSION);
    sqlite3_stmt *st;
    /* the old table is gone; every run has its span row */
    assert_int_equal(sqlite3_prepare_v2(db_handle(d),
                                        "SELECT (SELECT count(*) FROM sqlite_schema WHERE name = 'blocks'), "
                                        "(SELECT count(*) FROM block_spans), (SELECT count(*) FROM block_pages), "
                                        "(SELECT sum(n) FROM block_pages WHERE run = 1)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 0);
    assert_int_equal(sqlite3_column_int(st, 1), 3);
    assert_int_equal(sqlite3_column_int(st, 2), 4);   /* 600 blocks: 3 pages; 3 blocks: 1 */
    assert_int_equal(sqlite3_column_int(st, 3), 600);
    sqlite3_finalize(st);
    trace u;
    trace_init(&u);
    assert_int_equal(db_load_run(d, "r1", DB_LOAD_BLOCKS, &u, err, sizeof err), 0);
    assert_int_equal(u.blocks.n, 600);
    /* the device kept its run (the run's own device row, gpu -1), no GPUs listed */
    assert_true(u.has_device);
    assert_string_equal(u.device.name, "old gpu");
    assert_int_equal(u.device.sms, 4);
    assert_int_equal(u.device.sm_order[3], 3);
    assert_int_equal(u.devices.n, 0);
    for (int i = 0; i < 600; i++) {
        trace_block want = {0, i, i % 4, i % 50 == 7 ? TRACE_NONE : 10 * i - 1000,
                            10 * i - 1000 + i % 10};
        assert_block_equal(&u.blocks.v[i], &want);
    }
    db_close(d);
    /* windows read the migrated pages as the old index did */
    fixture g = *f;
    g.d = NULL;
    assert_int_equal(db_open(path, &g.d, err, sizeof err), 0);
    check_windows(&g, "r1", &u);
    db_close(g.d);
    trace_free(&u);

    /* blocks not numbered 0, 1, 2, ...: the block-pages step stops and
     * leaves the file at the step before it (9: the kernel pyramid step
     * that runs first has nothing of the old table to convert) */
    old_db(path, 600, true);
    assert_int_equal(db_open(path, &d, err, sizeof err), -1);
    char want[256];
    snprintf(want, sizeof want,
             "%s: run 1: block seq 401 where 400 was expected; the blocks table is not as "
             "schedlab wrote it",
             path);
    assert_string_equal(err, want);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    /* step 10 of the list is block pages' (later steps come after it) */
    assert_int_equal(sqlite3_column_int(st, 0), 9);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

/* ---- a page's stored bounds, the reads' own contracts ---------------------------- */

/* What a page stores beside its cells (db/block_pages.sql): s_lo/s_hi/e_hi
 * "the least and greatest start and the greatest stop" of its blocks with
 * both times, NULL when it has none; the run's span the widest s_hi - s_lo;
 * and a block that ends before it starts refused (stop >= start). */
static void test_page_bounds(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE], want[256];
    trace t;
    one_kernel_trace(&t);
    /* page 0: a start without a stop (50, before the others), a stop
     * without a start, [100, 120), [80, 90), then blocks with neither;
     * page 1: one start without a stop */
    const trace_block first[] = {{0, 0, 0, 50, TRACE_NONE}, {0, 1, 0, TRACE_NONE, 10},
                                 {0, 2, 0, 100, 120},       {0, 3, 0, 80, 90}};
    for (int i = 0; i < BPAGE_BLOCKS + 1; i++)
        *trace_add_block(&t) = i < 4 ? first[i] : i == BPAGE_BLOCKS
                                   ? (trace_block){0, i, 0, 7, TRACE_NONE}
                                   : (trace_block){0, i, 0, TRACE_NONE, TRACE_NONE};
    assert_int_equal(db_store_run(f->d, f->exp, "bounds", &t, slug, err, sizeof err), 0);
    assert_int_equal(tdb_scalar(f->d, "SELECT s_lo FROM block_pages WHERE page = 0"), 80);
    assert_int_equal(tdb_scalar(f->d, "SELECT s_hi FROM block_pages WHERE page = 0"), 100);
    assert_int_equal(tdb_scalar(f->d, "SELECT e_hi FROM block_pages WHERE page = 0"), 120);
    assert_int_equal(tdb_scalar(f->d, "SELECT s_lo IS NULL AND s_hi IS NULL AND e_hi IS NULL "
                                      "FROM block_pages WHERE page = 1"),
                     1);
    assert_int_equal(tdb_scalar(f->d, "SELECT span FROM block_spans"), 20);
    trace_free(&t);

    /* a stop one before its start: refused, naming the block */
    one_kernel_trace(&t);
    *trace_add_block(&t) = (trace_block){0, 0, 0, 5, 5};   /* a stop at its start is fine */
    *trace_add_block(&t) = (trace_block){0, 1, 0, 40, 39};
    assert_int_equal(db_store_run(f->d, f->exp, "backwards", &t, slug, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s: blocks[1]: the database refused the row: CHECK constraint failed: stop >= "
             "start (it ends at 39, before its start 40)",
             f->t.path);
    assert_string_equal(err, want);
    trace_free(&t);
}

/* The export's read (db.h, db_read_blocks): whole pages from a page's first
 * block, at most max blocks, in stored order; nothing past the last page;
 * an error for a read that starts off a page or has room for less than
 * one, for a run that is not there, and for pages that are not numbered
 * 0, 1, 2, ... each full but the last (the run changed under the reader). */
static void test_read_blocks(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE], want[256];
    trace t;
    build_run(&t, 2 * BPAGE_BLOCKS + 3, true, 5);
    assert_int_equal(db_store_run(f->d, f->exp, "export", &t, slug, err, sizeof err), 0);
    trace_block *out = malloc(4 * BPAGE_BLOCKS * sizeof *out);
    size_t n = 99;
    assert_int_equal(db_read_blocks(f->d, slug, 0, out, BPAGE_BLOCKS, &n, err, sizeof err), 0);
    assert_int_equal(n, BPAGE_BLOCKS);   /* room for one page: one page */
    for (size_t i = 0; i < n; i++) assert_block_equal(&out[i], &t.blocks.v[i]);
    assert_int_equal(db_read_blocks(f->d, slug, BPAGE_BLOCKS, out, 4 * BPAGE_BLOCKS, &n, err,
                                    sizeof err),
                     0);
    assert_int_equal(n, BPAGE_BLOCKS + 3);   /* page 1 and the short last one */
    for (size_t i = 0; i < n; i++) assert_block_equal(&out[i], &t.blocks.v[BPAGE_BLOCKS + i]);
    n = 99;
    assert_int_equal(db_read_blocks(f->d, slug, 3 * BPAGE_BLOCKS, out, BPAGE_BLOCKS, &n, err,
                                    sizeof err),
                     0);
    assert_int_equal(n, 0);

    snprintf(want, sizeof want, "%s: blocks: a read must start at a page and take one at least",
             f->t.path);
    assert_int_equal(db_read_blocks(f->d, slug, 3, out, BPAGE_BLOCKS, &n, err, sizeof err), -1);
    assert_string_equal(err, want);
    assert_int_equal(db_read_blocks(f->d, slug, 0, out, BPAGE_BLOCKS - 1, &n, err, sizeof err),
                     -1);
    assert_string_equal(err, want);
    assert_int_equal(db_read_blocks(f->d, "nosuchrun", 0, out, BPAGE_BLOCKS, &n, err, sizeof err),
                     DB_NOT_FOUND);
    snprintf(want, sizeof want, "%s: no run named \"nosuchrun\"", f->t.path);
    assert_string_equal(err, want);

    /* page 0 made short (the last page's 3 blocks), page 1 still after it */
    snprintf(want, sizeof want, "%s: run \"%s\": block page 1 missing", f->t.path, slug);
    assert_int_equal(sqlite3_exec(db_handle(f->d),
                                  "UPDATE block_pages SET n = 3, cells = (SELECT cells FROM "
                                  "block_pages WHERE page = 2) WHERE page = 0",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(db_read_blocks(f->d, slug, 0, out, 4 * BPAGE_BLOCKS, &n, err, sizeof err),
                     -1);
    assert_string_equal(err, want);
    /* page 1 gone: page 2 follows page 0 */
    assert_int_equal(sqlite3_exec(db_handle(f->d),
                                  "UPDATE block_pages SET n = 256, cells = (SELECT cells FROM "
                                  "block_pages WHERE page = 1) WHERE page = 0;"
                                  "DELETE FROM block_pages WHERE page = 1",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(db_read_blocks(f->d, slug, 0, out, 4 * BPAGE_BLOCKS, &n, err, sizeof err),
                     -1);
    assert_string_equal(err, want);
    free(out);
    trace_free(&t);
}

/* A callback's record of what bpage_scan / bpage_window handed it. */
typedef struct calls {
    int64_t seq[1024];
    int32_t index[1024];
    int n, stop_at;   /* stop_at: the call that returns 7 (0: none) */
} calls;

static int on_call(void *ctx, const trace_block *b, int64_t seq) {
    calls *c = ctx;
    assert_true(c->n < 1024);
    c->seq[c->n] = seq;
    c->index[c->n] = b->index;
    return ++c->n == c->stop_at ? 7 : 0;
}

/* bpage_scan and bpage_window as bpage.h states them: every block with its
 * seq (its number in the run); a window of lo <= start < to and end > from
 * (lo need not be from minus the longest block), at most `limit`, ordered
 * or not; a callback's non-zero stops either and is returned; a page whose
 * count is 0 is damaged. */
static void test_scan_and_window(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE], want[256];
    trace t;
    one_kernel_trace(&t);
    /* block i: [10 i, 10 i + 500), index 1000 + i; three pages */
    for (int i = 0; i < 2 * BPAGE_BLOCKS + 88; i++)
        *trace_add_block(&t) = (trace_block){0, 1000 + i, i % 4, 10 * i, 10 * i + 500};
    assert_int_equal(db_store_run(f->d, f->exp, "scan", &t, slug, err, sizeof err), 0);
    pyr_run r;
    assert_int_equal(db_pyramid_run(f->d, slug, &r, err, sizeof err), 0);
    calls *c = calloc(1, sizeof *c);
    assert_int_equal(bpage_scan(f->d, r.id, on_call, c, err, sizeof err), 0);
    assert_int_equal(c->n, 2 * BPAGE_BLOCKS + 88);
    for (int i = 0; i < c->n; i++) {
        assert_int_equal(c->seq[i], i);
        assert_int_equal(c->index[i], 1000 + i);
    }
    *c = (calls){.stop_at = 300};
    assert_int_equal(bpage_scan(f->d, r.id, on_call, c, err, sizeof err), 7);
    assert_int_equal(c->n, 300);

    /* starts in [1000, 2000) (blocks 100..199), lo = from: blocks 51..99,
     * which also overlap [1000, 2000), start before lo and are left out */
    for (int ordered = 0; ordered < 2; ordered++) {
        *c = (calls){0};
        assert_int_equal(bpage_window(f->d, r.id, 1000, 2000, 1000, ordered, -1, on_call, c, err,
                                      sizeof err),
                         0);
        assert_int_equal(c->n, 100);
        for (int i = 0; i < 100; i++) assert_int_equal(c->seq[i], 100 + i);
        *c = (calls){0};
        assert_int_equal(bpage_window(f->d, r.id, 1000, 2000, 1000, ordered, 5, on_call, c, err,
                                      sizeof err),
                         0);
        assert_int_equal(c->n, 5);
        *c = (calls){.stop_at = 3};
        assert_int_equal(bpage_window(f->d, r.id, 1000, 2000, 1000, ordered, -1, on_call, c, err,
                                      sizeof err),
                         7);
        assert_int_equal(c->n, 3);
    }

    assert_int_equal(sqlite3_exec(db_handle(f->d),
                                  "UPDATE block_pages SET n = 0, cells = x'' WHERE page = 2", NULL,
                                  NULL, NULL),
                     SQLITE_OK);
    *c = (calls){0};
    assert_int_equal(bpage_scan(f->d, r.id, on_call, c, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: run %lld: block page 2 is damaged (0 blocks in 0 bytes)",
             f->t.path, (long long)r.id);
    assert_string_equal(err, want);
    free(c);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codec_bytes),
        cmocka_unit_test(test_codec_roundtrip),
        cmocka_unit_test(test_codec_refuses),
        cmocka_unit_test_setup_teardown(test_windows_sorted, tdb_exp_setup, teardown),
        cmocka_unit_test_setup_teardown(test_windows_shuffled, tdb_exp_setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_batches, tdb_exp_setup, teardown),
        cmocka_unit_test_setup_teardown(test_pauses_window, tdb_exp_setup, teardown),
        cmocka_unit_test_setup_teardown(test_pauses_window_rows, tdb_exp_setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_page, tdb_exp_setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_old_layout, tdb_exp_setup, teardown),
        cmocka_unit_test_setup_teardown(test_page_bounds, tdb_exp_setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_blocks, tdb_exp_setup, teardown),
        cmocka_unit_test_setup_teardown(test_scan_and_window, tdb_exp_setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
