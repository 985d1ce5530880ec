/* test_pyr_util.h -- the reference the occupancy-pyramid tests (test_pyramid.c,
 * test_kpyramid.c) check the pyramid against: the same cells computed
 * straight from a run's stored blocks, by brute force. Include after
 * <cmocka.h>; static inline, so each test binary carries only what it uses. */
#ifndef TEST_PYR_UTIL_H
#define TEST_PYR_UTIL_H

#include <stdbool.h>
#include <stdint.h>
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

/* the simulator's block sink, writing into a db_run_writer */
static inline int ref_sink_emit(void *ctx, const trace_block *b, size_t n) {
    char err[256];
    return db_run_add_blocks(ctx, b, n, err, sizeof err);
}

#endif
