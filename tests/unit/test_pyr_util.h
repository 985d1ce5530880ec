/* test_pyr_util.h -- the reference the occupancy-pyramid tests (test_pyramid.c,
 * test_kpyramid.c) check the pyramid against: the same cells computed
 * straight from a run's stored blocks, by brute force. Include after
 * <cmocka.h>; static inline, so each test binary carries only what it uses. */
#ifndef TEST_PYR_UTIL_H
#define TEST_PYR_UTIL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/db.h"
#include "../../db/pyramid.h"
#include "../../simcore/trace.h"

/* A run as stored (kernels and blocks) and the set of kernels whose blocks
 * count: bits[k >> 3] bit k & 7, over nbits kernels; bits NULL counts every
 * kernel. */
typedef struct pyr_ref {
    trace t;
    int32_t sms;
    const uint8_t *bits;
    int64_t nbits;
} pyr_ref;

/* a tiny deterministic generator (tests must not depend on rand()) */
static inline uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The start of a random window of *want (1 .. 30) bins of level z over a
 * run ending at t1 (the stream and copy pyramids' tests): on a bin edge
 * when on_edge, else half a bin before a random time. Draws two numbers
 * from *s, want's first. */
static inline int64_t pyr_random_window(uint64_t *s, int64_t t1, int z, bool on_edge,
                                        int64_t *want) {
    *want = 1 + (int64_t)(rng_next(s) % 30);
    int64_t from = (int64_t)(rng_next(s) % (uint64_t)(t1 + 2));
    if (on_edge) return from >> z << z;
    return from - ((int64_t)1 << z) / 2;
}

/* the bin of time a at width w, rounding down also before time 0 */
static inline int64_t floordiv(int64_t a, int64_t w) {
    int64_t q = a / w;
    return (a % w != 0 && a < 0) ? q - 1 : q;
}

/* what the pyramid counts: a block of the set, on an SM of the device, with
 * both ends known */
static inline bool ref_counted(const pyr_ref *x, const trace_block *b) {
    if (b->sm < 0 || b->sm >= x->sms || b->start == TRACE_NONE || b->end == TRACE_NONE) return false;
    if (!x->bits) return true;
    int32_t k = b->kernel;
    return k >= 0 && k < x->nbits && (x->bits[k >> 3] >> (k & 7) & 1);
}

static inline int64_t ref_threads(const pyr_ref *x, const trace_block *b) {
    if (b->kernel < 0 || (size_t)b->kernel >= x->t.kernels.n) return 0;
    int32_t th = x->t.kernels.v[b->kernel].threads;
    return th > 0 ? th : 0;
}

/* thread-ns and block-ns of every SM over [lo, hi) */
static inline void ref_range(const pyr_ref *x, int64_t lo, int64_t hi, pyr_cell *out) {
    memset(out, 0, (size_t)x->sms * sizeof *out);
    for (size_t i = 0; i < x->t.blocks.n; i++) {
        const trace_block *b = &x->t.blocks.v[i];
        if (!ref_counted(x, b)) continue;
        int64_t ov = (b->end < hi ? b->end : hi) - (b->start > lo ? b->start : lo);
        if (ov <= 0) continue;
        out[b->sm].blk += ov;
        out[b->sm].thr += ov * ref_threads(x, b);
    }
}

/* thread-ns and block-ns of every SM in each of n bins of width w from t0,
 * the first and last cut at lo and hi (a window's bins, as db_pyramid_bins
 * gives them): n x sms cells, each what ref_range of its cut bin gives, in
 * one pass over the blocks instead of one per bin */
static inline void ref_window_bins(const pyr_ref *x, int64_t t0, int64_t w, size_t n, int64_t lo,
                                   int64_t hi, pyr_cell *out) {
    memset(out, 0, n * (size_t)x->sms * sizeof *out);
    int64_t a = t0 > lo ? t0 : lo, b = t0 + (int64_t)n * w < hi ? t0 + (int64_t)n * w : hi;
    for (size_t i = 0; i < x->t.blocks.n; i++) {
        const trace_block *bl = &x->t.blocks.v[i];
        if (!ref_counted(x, bl)) continue;
        int64_t s = bl->start > a ? bl->start : a, e = bl->end < b ? bl->end : b;
        for (int64_t k = floordiv(s - t0, w); s < e; k++) {
            int64_t bin_end = t0 + (k + 1) * w, ov = (e < bin_end ? e : bin_end) - s;
            pyr_cell *c = &out[(size_t)k * (size_t)x->sms + (size_t)bl->sm];
            c->blk += ov;
            c->thr += ov * ref_threads(x, bl);
            s = bin_end;
        }
    }
}

/* all four fields of bins [k0, k1) of level z, (k1 - k0) x sms cells */
static inline void ref_cells(const pyr_ref *x, int z, int64_t k0, int64_t k1, pyr_cell *out) {
    int64_t w = (int64_t)1 << z;
    memset(out, 0, (size_t)(k1 - k0) * (size_t)x->sms * sizeof *out);
    for (size_t i = 0; i < x->t.blocks.n; i++) {
        const trace_block *b = &x->t.blocks.v[i];
        if (!ref_counted(x, b)) continue;
        int64_t ks = floordiv(b->start, w);
        if (ks >= k0 && ks < k1) out[(ks - k0) * x->sms + b->sm].starts++;
        for (int64_t k = ks > k0 ? ks : k0; k < k1 && k * w < b->end; k++) {
            int64_t lo = k * w, hi = lo + w;
            pyr_cell *c = &out[(k - k0) * x->sms + b->sm];
            int64_t ov = (b->end < hi ? b->end : hi) - (b->start > lo ? b->start : lo);
            if (ov > 0) {
                c->blk += ov;
                c->thr += ov * ref_threads(x, b);
            }
            if (b->start < lo && lo < b->end) c->live++;
        }
    }
}

/* A kernel of the synthetic runs: k % 7 == 0 has no thread count (its
 * blocks add block-ns but no thread-ns), the others 32..1024 threads. */
static inline void ref_synthetic_kernel(trace *t, int k) {
    trace_kernel *kk = trace_add_kernel(t);
    kk->threads = k % 7 == 0 ? 0 : 32 * (1 + k % 32);
    kk->blocks = 1;
    kk->regs = 32;
    kk->priority = TRACE_PRIO_NONE;
    kk->grid[0] = kk->grid[1] = kk->grid[2] = 1;
    kk->block[0] = kk->block[1] = kk->block[2] = 1;
    kk->issue = kk->first_block = kk->fully_dispatched = kk->end = TRACE_NONE;
    kk->smem = TRACE_NONE;
}

/* A run's rows as one text, in order: `sql` selects one text column of
 * one row from the run whose slug is ?1 (a group_concat of its tiles, as
 * hex); the caller frees it. Two runs with the same text have the same
 * tiles, byte for byte. */
static inline char *pyr_rows_text(db *d, const char *sql, const char *slug) {
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, slug, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const unsigned char *v = sqlite3_column_text(st, 0);
    char *text = strdup(v ? (const char *)v : "");
    sqlite3_finalize(st);
    assert_non_null(text);
    return text;
}

/* The synthetic trace `make` builds, stored three times in experiment exp:
 * whole (slugs[0]), then streamed in batches of `batch` blocks without the
 * kernels known (slugs[1]: finish reads the blocks back) and with them
 * (slugs[2]: the accumulators take each batch as it comes). */
static inline void pyr_store_three(db *d, const char *exp, void (*make)(trace *), size_t batch,
                                   char slugs[3][DB_SLUG_SIZE]) {
    char err[256];
    trace t;
    make(&t);
    assert_int_equal(db_store_run(d, exp, "whole", &t, slugs[0], err, sizeof err), 0);
    trace_free(&t);
    for (int known = 0; known < 2; known++) {
        make(&t);
        db_run_writer *w;
        assert_int_equal(db_run_begin(d, exp, "streamed", slugs[1 + known], &w, err, sizeof err), 0);
        if (known) db_run_kernels(w, &t);
        for (size_t i = 0; i < t.blocks.n; i += batch)
            assert_int_equal(db_run_add_blocks(w, t.blocks.v + i, t.blocks.n - i < batch ? t.blocks.n - i : batch,
                                               err, sizeof err), 0);
        t.blocks.n = 0;
        assert_int_equal(db_run_finish(w, &t, err, sizeof err), 0);
        trace_free(&t);
    }
}

/* the three runs of pyr_store_three have the same tiles (`sql` as for
 * pyr_rows_text), and there are tiles */
static inline void pyr_expect_same_tiles(db *d, const char *sql, char slugs[3][DB_SLUG_SIZE]) {
    char *a = pyr_rows_text(d, sql, slugs[0]), *b = pyr_rows_text(d, sql, slugs[1]),
         *c = pyr_rows_text(d, sql, slugs[2]);
    assert_true(strlen(a) > 1000);
    assert_string_equal(a, b);
    assert_string_equal(a, c);
    free(a);
    free(b);
    free(c);
}

/* the simulator's block sink, writing into a db_run_writer */
static inline int ref_sink_emit(void *ctx, const trace_block *b, size_t n) {
    char err[256];
    return db_run_add_blocks(ctx, b, n, err, sizeof err);
}

#endif
