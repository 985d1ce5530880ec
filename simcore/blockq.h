/* blockq.h -- the block completions of the fused block scheduler (ee.h's
 * fast path, issue 9), kept out of the event engine.
 *
 * Why a second queue: nearly every event of a block-level run is a block
 * ending, and all but one per kernel only give the block's resources back
 * and count it (ee_block_done). Those effects commute with everything else
 * that happens within an instant (nothing reads the SMs' free resources or
 * another kernel's count until dispatch, which comes after the instant's
 * events), so they need no place in the (time, scheduling order) order of
 * engine.h: only their time. What does need that order, a kernel's
 * completion (G4: the stream moves on, the host is told), goes back to the
 * engine as one event at the place its last block's ending had: the
 * largest sequence number among the kernel's blocks that end last (sim_run
 * and ee.h keep it per kernel). So the trace is the one the engine alone
 * gives, byte for byte, with one engine event per kernel instead of one
 * per block.
 *
 * The queue: a calendar of `span` 1-ns slots (a power of two), so one slot
 * holds one time and needs no order; every pending time lies in [t, t +
 * span) for the current instant t, so slot = time mod span is unique. A
 * bitmap of non-empty slots and a summary of non-empty bitmap words find
 * the next time. A block whose time lies beyond the span goes to the
 * engine instead (ee.h), which orders it just as well.
 *
 * Memory: bq_init allocates everything (nodes for `cap` pending blocks:
 * at most one per block slot of the device); bq_free releases it. Pure:
 * libc only, no globals. */
#ifndef SIMCORE_BLOCKQ_H
#define SIMCORE_BLOCKQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sim_bq_node {
    int32_t kernel;
    int32_t sm;
    uint32_t next;           /* next node of the same slot, or of the free list; 0 = none */
} sim_bq_node;

typedef struct sim_bq {
    int64_t next;            /* earliest pending time; INT64_MAX when none */
    int64_t span;            /* slots, a power of two; 0: the queue is not in use */
    uint32_t *head;          /* [span] first node of each slot (1-based; 0 = empty) */
    uint64_t *bits;          /* [span / 64] slots that hold nodes */
    uint64_t *sum;           /* [span / 4096] bitmap words that are non-zero */
    sim_bq_node *node;       /* [cap + 1]; node 0 unused */
    uint32_t free;           /* free list through node[].next */
    size_t n;                /* pending */
} sim_bq;

/* A queue of `span` slots (rounded up to a power of two, at least 4096)
 * for up to `cap` pending blocks. Returns 0, or -1 out of memory. */
int bq_init(sim_bq *q, int64_t span, size_t cap);
void bq_free(sim_bq *q);     /* leaves *q unused (span 0) */

/* Can block completions at now + d (d >= 0) join the queue now? */
static inline bool bq_fits(const sim_bq *q, int64_t d) {
    return d < q->span && q->free != 0;
}

/* A block of `kernel` on `sm` ends at time t (t >= the current instant,
 * bq_fits checked). */
static inline void bq_push(sim_bq *q, int64_t t, int32_t kernel, int32_t sm) {
    uint32_t i = q->free;
    sim_bq_node *nd = &q->node[i];
    q->free = nd->next;
    size_t s = (size_t)t & (size_t)(q->span - 1);
    nd->kernel = kernel;
    nd->sm = sm;
    nd->next = q->head[s];
    q->head[s] = i;
    /* the summary bit unconditionally: the word is non-zero now (a branch
     * on whether it was is one the predictor misses) */
    q->bits[s >> 6] |= 1ull << (s & 63);
    q->sum[s >> 12] |= 1ull << ((s >> 6) & 63);
    q->n++;
    if (t < q->next) q->next = t;
}

/* Take every node due at t = q->next out of its slot: returns the first
 * (follow node[].next; 0 ends the list), to be handed back one by one with
 * bq_release; then bq_advance(q, t) finds the next time. */
static inline uint32_t bq_take(sim_bq *q, int64_t t) {
    size_t s = (size_t)t & (size_t)(q->span - 1);
    uint32_t first = q->head[s];
    q->head[s] = 0;
    uint64_t *w = &q->bits[s >> 6];
    *w &= ~(1ull << (s & 63));
    q->sum[s >> 12] &= ~((uint64_t)(*w == 0) << ((s >> 6) & 63));
    return first;
}

static inline void bq_release(sim_bq *q, uint32_t i) {
    q->node[i].next = q->free;
    q->free = i;
    q->n--;
}

/* After the instant t was taken: the next pending time (after t), or
 * INT64_MAX. Inline for the common cases, the next time within the same
 * 64 slots as t + 1 or in a later bitmap word of the same 4096 (that
 * word's summary: one mask and one count-trailing-zeros, where walking
 * the words one by one cost a call to bq_advance_far on one instant in
 * four, issue 9); bq_advance_far scans the summary words after it. Every
 * pending time lies in (t, t + span), so circular order from t + 1's slot
 * is time order, and within one summary word slot order is time order. */
void bq_advance_far(sim_bq *q, int64_t t);
static inline void bq_advance(sim_bq *q, int64_t t) {
    size_t mask = (size_t)q->span - 1;
    size_t s0 = (size_t)(t + 1) & mask, w0 = s0 >> 6;
    uint64_t x = q->bits[w0] & (~0ull << (s0 & 63));
    if (x) {
        size_t s = (w0 << 6) + (size_t)__builtin_ctzll(x);
        q->next = t + 1 + (int64_t)(s - s0);
        return;
    }
    /* the non-empty words after w0 in its summary word (two shifts: a
     * shift by 64 would be undefined when w0 is the group's last) */
    uint64_t y = q->sum[w0 >> 6] & ((~0ull << (w0 & 63)) << 1);
    if (y) {
        size_t w = (w0 & ~(size_t)63) + (size_t)__builtin_ctzll(y);
        size_t s = (w << 6) + (size_t)__builtin_ctzll(q->bits[w]);
        q->next = t + 1 + (int64_t)(s - s0);
        return;
    }
    bq_advance_far(q, t);
}

#endif
