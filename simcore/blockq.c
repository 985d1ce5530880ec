/* blockq.c -- the block completion calendar of the fast path. See blockq.h. */
#include "blockq.h"

#include <stdlib.h>

/* 2^20 slots (1 ms of 1-ns slots): 4 MiB of heads, calloc'd so that pages
 * no time ever touches cost nothing; longer blocks go to the engine. */
#define BQ_MAX_SPAN ((int64_t)1 << 20)
#define BQ_MIN_SPAN ((int64_t)1 << 12)   /* one summary word at least */

int bq_init(sim_bq *q, int64_t span, size_t cap) {
    int64_t s = BQ_MIN_SPAN;
    while (s < span && s < BQ_MAX_SPAN) s <<= 1;
    q->next = INT64_MAX;
    q->n = 0;
    q->span = s;
    if (cap >= UINT32_MAX) cap = UINT32_MAX - 1;
    q->head = calloc((size_t)s, sizeof *q->head);
    q->bits = calloc((size_t)s / 64, sizeof *q->bits);
    q->sum = calloc((size_t)s / 4096, sizeof *q->sum);
    q->node = malloc((cap + 1) * sizeof *q->node);
    if (!q->head || !q->bits || !q->sum || !q->node) {
        bq_free(q);
        return -1;
    }
    /* the free list in index order, so the first nodes used are the first
     * in memory */
    q->free = cap ? 1 : 0;
    for (size_t i = 1; i <= cap; i++) q->node[i].next = i < cap ? (uint32_t)(i + 1) : 0;
    return 0;
}

void bq_free(sim_bq *q) {
    free(q->head);
    free(q->bits);
    free(q->sum);
    free(q->node);
    q->head = NULL;
    q->bits = NULL;
    q->sum = NULL;
    q->node = NULL;
    q->span = 0;
    q->free = 0;
    q->n = 0;
    q->next = INT64_MAX;
}

/* The first non-zero bitmap word at index `from` or after, wrapping around
 * (one exists: n > 0). */
static size_t first_word(const sim_bq *q, size_t from) {
    size_t ns = (size_t)q->span / 4096;   /* a power of two */
    size_t j = from >> 6;
    uint64_t y = q->sum[j] & (~0ull << (from & 63));
    for (size_t i = 0; i <= ns; i++) {
        if (y) return (j << 6) + (size_t)__builtin_ctzll(y);
        j = (j + 1) & (ns - 1);
        y = q->sum[j];
    }
    return 0;   /* not reached: the caller checked n */
}

void bq_advance_far(sim_bq *q, int64_t t) {
    if (!q->n) {
        q->next = INT64_MAX;
        return;
    }
    /* bq_advance looked at t + 1's bitmap word and the rest of its
     * summary word: on from the next summary word (wrapping around to
     * w0's own, whose words before w0 hold the latest times) */
    size_t mask = (size_t)q->span - 1, nw = (size_t)q->span / 64;
    size_t s0 = (size_t)(t + 1) & mask, w0 = s0 >> 6;
    size_t w = first_word(q, ((w0 | 63) + 1) & (nw - 1));
    size_t s = (w << 6) + (size_t)__builtin_ctzll(q->bits[w]);
    q->next = t + 1 + (int64_t)((s - s0) & mask);
}
