/* sms.h -- what is free on every SM, and a room index over the SMs for one
 * kernel at a time.
 *
 * A block fits on an SM only if every resource fits (TX2 paper, rules R1-R3;
 * most-room paper §4.2): threads, warps (ceil(threads / warp_size)), the
 * blocks-per-SM limit, registers (regs per thread x threads) and shared
 * memory. The room of an SM for a kernel is how many more blocks of that
 * kernel it could take now: the minimum over those resources (most-room §4.1).
 *
 * The room index keeps, for every room value, a bitset of the SMs (by rank
 * in the tie-break order) that have exactly that room, plus the highest room
 * any SM has. The SM with the most room, first in sm_order on ties, is the
 * lowest bit of the top bucket; a change moves one bit between buckets. So
 * neither placing nor finishing a block scans the SMs. The index always
 * describes one kernel (sms_index switches it, O(SMs)); taking and giving
 * back resources keep it current.
 *
 * Memory: sms_init allocates the index; sms_free releases it. */
#ifndef SIMCORE_SMS_H
#define SIMCORE_SMS_H

#include <stdbool.h>
#include <stdint.h>

#include "device.h"

/* What one block of a kernel takes from the SM it runs on. */
typedef struct sim_need {
    int32_t threads;
    int32_t warps;
    int64_t regs;            /* regs per thread x threads; 0 = none */
    int64_t smem;            /* bytes; 0 = none */
} sim_need;

/* What is free on one SM. */
typedef struct sim_sm_free {
    int32_t threads;
    int32_t warps;
    int32_t blocks;
    int32_t pad_;
    int64_t regs;
    int64_t smem;
} sim_sm_free;

typedef struct sim_sms {
    int32_t n;                       /* SMs */
    sim_sm_free *free;               /* [n], by SM id */
    sim_sm_free full;                /* an empty SM */
    int16_t order[SIM_MAX_SMS];      /* rank -> SM id (the device's sm_order) */
    int16_t rank[SIM_MAX_SMS];       /* SM id -> rank */
    /* room index */
    int32_t kernel;                  /* kernel the index describes; -1 = none */
    sim_need need;                   /* that kernel's per-block need */
    const sim_need *need_src;        /* where sms_index read it: take and give
                                        with that pointer skip comparing needs */
    /* floor(free / need) as (free * magic) >> 40 per resource (threads,
     * warps, regs, smem), exact while both are below 2^20 (sms.c); false:
     * a resource is that large and rooms are divided */
    bool fast;
    uint64_t magic[4];
    uint32_t unlimited[4];           /* ~0 where the need is 0: that resource never limits */
    int32_t words;                   /* 64-bit words per bitset: ceil(n / 64) */
    int32_t top;                     /* highest room of any SM; 0 = none fits */
    int32_t max_room;                /* blocks_per_sm: no room is larger */
    int32_t *room;                   /* [n] by rank */
    uint64_t *bucket;                /* [(max_room + 1) * words]: ranks with that room */
    int32_t *count;                  /* [max_room + 1]: how many ranks have that room, so
                                        that the top bucket emptying is one load to see */
    uint64_t fits[SIM_MAX_SMS / 64]; /* ranks with room >= 1 */
} sim_sms;

int sms_init(sim_sms *s, const sim_device *dev);   /* 0, or -1 out of memory */
void sms_free(sim_sms *s);

sim_need sms_need(const sim_device *dev, int32_t threads, int32_t regs, int64_t smem);

/* How many more blocks of `k` SM `sm` could take now. */
int32_t sms_room(const sim_sms *s, int32_t sm, const sim_need *k);

/* How many blocks of `k` fit in 1/parts of an empty SM (each resource
 * divided by parts): ISCA'17 §3.6's equal share of a kernel on an SM. */
int32_t sms_share(const sim_sms *s, const sim_need *k, int32_t parts);

/* Make the room index describe kernel `kernel` with need `k` (no-op when it
 * already does: the placement policies ask before every block, so that
 * answer is inline). *k must stay unchanged while the index describes that
 * kernel (sim_kstate.need is set once): sms_take and sms_give recognise the
 * indexed kernel's blocks by that pointer. */
void sms_index_switch(sim_sms *s, int32_t kernel, const sim_need *k);
static inline void sms_index(sim_sms *s, int32_t kernel, const sim_need *k) {
    if (s->kernel == kernel && kernel >= 0) return;
    sms_index_switch(s, kernel, k);
}

/* With the index describing the kernel of `k`: the SM with the most room,
 * first in sm_order on ties, or -1 when no SM has room. Most room, then
 * first in sm_order (most-room §4.1, §4.3): the lowest rank in the top
 * room's bucket. */
static inline int32_t sms_top_rank(const sim_sms *s) {
    /* the top bucket is never empty: its lowest set bit, found without a
     * branch on the bits (which word holds it is a coin toss the branch
     * predictor lost once per block); the loop runs `words` times, the
     * same every time, from the last word down so the first non-zero
     * word's answer is the one kept */
    const uint64_t *b = &s->bucket[(size_t)s->top * (size_t)s->words];
    int32_t r = 0;
    for (int32_t w = s->words - 1; w >= 0; w--) {
        uint64_t x = b[w];
        int32_t c = w * 64 + __builtin_ctzll(x | (1ull << 63));
        r = x ? c : r;
    }
    return r;
}
static inline int32_t sms_most_room(const sim_sms *s) {
    if (s->top <= 0) return -1;
    return s->order[sms_top_rank(s)];
}

/* With the index current: the first SM with room at rank >= from, wrapping
 * around to rank 0; -1 when no SM has room. */
int32_t sms_first_fit(const sim_sms *s, int32_t from);

/* Place / finish one block of `k` on `sm` (the caller checked it fits);
 * sms_take and sms_give below are their inline fronts. */
void sms_take_any(sim_sms *s, int32_t sm, const sim_need *k);

/* Recompute the room of rank r for the indexed kernel from its SM's free
 * resources and move it to that bucket (what a change by any other
 * kernel's block needs). */
void sms_reroom(sim_sms *s, int32_t r);

/* The room of an SM with free resources *f for the indexed kernel, with
 * s->fast: floor(free / need) per resource as (free * magic) >> 40
 * (Granlund & Montgomery 1994; exact below 2^20, sms.c), the minimum with
 * the free block slots (most-room §4.1, §4.2). No branch per resource: a
 * resource the kernel does not use has quotient ~0 (the OR with
 * `unlimited`), so the minimum skips it. */
#define SMS_MAGIC_SHIFT 40
static inline uint32_t sms_quot(int64_t n, uint64_t m) {
    /* max(n, 0) as a select (a conditional move), not a branch */
    n = n > 0 ? n : 0;
    return (uint32_t)(((uint64_t)n * m) >> SMS_MAGIC_SHIFT);
}
static inline int32_t sms_room_magic(const sim_sms *s, const sim_sm_free *f) {
    uint32_t r = (uint32_t)(f->blocks > 0 ? f->blocks : 0);
    uint32_t x0 = sms_quot(f->threads, s->magic[0]) | s->unlimited[0];
    uint32_t x1 = sms_quot(f->warps, s->magic[1]) | s->unlimited[1];
    uint32_t x2 = sms_quot(f->regs, s->magic[2]) | s->unlimited[2];
    uint32_t x3 = sms_quot(f->smem, s->magic[3]) | s->unlimited[3];
    r = x0 < r ? x0 : r;
    r = x1 < r ? x1 : r;
    r = x2 < r ? x2 : r;
    r = x3 < r ? x3 : r;
    return (int32_t)r;
}

/* sms_reroom after resources came back to rank r's SM (*f, a block of
 * another kernel ended): inline, as every such ending comes here (issue
 * 9). Every floor(free / need) and the free block slots only grew, so the
 * room only grows: the rank moves up a bucket or stays, and the top can
 * only rise, which spares set_room's tests and its search down for a new
 * top. */
static inline void sms_reroom_up(sim_sms *s, int32_t r, const sim_sm_free *f) {
    if (!s->fast) {
        sms_reroom(s, r);
        return;
    }
    int32_t old = s->room[r], room = sms_room_magic(s, f);
    if (room == old) return;
    uint64_t bit = 1ull << (r & 63);
    int32_t w = r >> 6;
    s->room[r] = room;
    if (old > 0) {
        s->bucket[(size_t)old * (size_t)s->words + (size_t)w] &= ~bit;
        s->count[old]--;
    } else {
        s->fits[w] |= bit;        /* 0 -> room > 0 */
    }
    s->bucket[(size_t)room * (size_t)s->words + (size_t)w] |= bit;
    s->count[room]++;
    if (room > s->top) s->top = room;
}

/* Rank r (room > 0) takes one more block of the indexed kernel: each
 * floor(free / need) drops by exactly one, so the room does, and the rank
 * moves one bucket down; when it was the last of the top bucket, the new
 * top is its new room (0 included). */
static inline void sms_room_dec(sim_sms *s, int32_t r) {
    int32_t old = s->room[r], room = old - 1;
    uint64_t bit = 1ull << (r & 63);
    int32_t w = r >> 6;
    s->room[r] = room;
    s->bucket[(size_t)old * (size_t)s->words + (size_t)w] &= ~bit;
    /* no branches on the room (data the predictor misses): bucket 0 and
     * count[0] are never read, so room 0 may add nothing to them */
    uint64_t keep = room > 0 ? bit : 0;
    s->bucket[(size_t)room * (size_t)s->words + (size_t)w] |= keep;
    s->count[room] += room > 0;
    s->fits[w] &= ~(bit ^ keep);
    int32_t left = --s->count[old];
    s->top = left == 0 && old == s->top ? room : s->top;
}

/* Rank r gains room for one more block of the indexed kernel: a block of
 * that kernel ended there (floor((f + n) / n) = floor(f / n) + 1). */
static inline void sms_room_inc(sim_sms *s, int32_t r) {
    int32_t old = s->room[r], room = old + 1;
    uint64_t bit = 1ull << (r & 63);
    int32_t w = r >> 6;
    s->room[r] = room;
    if (old > 0) {
        s->bucket[(size_t)old * (size_t)s->words + (size_t)w] &= ~bit;
        s->count[old]--;
    } else {
        s->fits[w] |= bit;
    }
    s->bucket[(size_t)room * (size_t)s->words + (size_t)w] |= bit;
    s->count[room]++;
    if (room > s->top) s->top = room;
}

/* Rank r (room > 0) takes one block of the indexed kernel: sms_take with
 * the SM already known to be the index's (the block scheduler's fast
 * path: the rank comes from sms_top_rank, so no lookup and no test). */
static inline void sms_take_rank(sim_sms *s, int32_t r) {
    sim_sm_free *f = &s->free[s->order[r]];
    f->threads -= s->need.threads;
    f->warps -= s->need.warps;
    f->blocks -= 1;
    f->regs -= s->need.regs;
    f->smem -= s->need.smem;
    sms_room_dec(s, r);
}

/* A block of `k` ends on `sm`: its resources come back, and the SM's room
 * for the indexed kernel grows by one when it was that kernel's block
 * (recognised by its need's address, sms_index), or is recomputed. Inline:
 * every finishing block comes here. */
__attribute__((always_inline))   /* GCC and clang; the compiler's own choice was a call */
static inline void sms_give(sim_sms *s, int32_t sm, const sim_need *k) {
    sim_sm_free *f = &s->free[sm];
    f->threads += k->threads;
    f->warps += k->warps;
    f->blocks += 1;
    f->regs += k->regs;
    f->smem += k->smem;
    if (s->kernel < 0) return;
    int32_t r = s->rank[sm];
    if (k == s->need_src) sms_room_inc(s, r);
    else sms_reroom_up(s, r, f);
}

/* sms_take_any; inline for what dispatch does once per block: take a block
 * of the indexed kernel (recognised by its need's address, sms_index). */
static inline void sms_take(sim_sms *s, int32_t sm, const sim_need *k) {
    int32_t r = s->rank[sm];
    if (k != s->need_src || s->kernel < 0 || s->room[r] <= 0) {
        sms_take_any(s, sm, k);
        return;
    }
    sim_sm_free *f = &s->free[sm];
    f->threads -= k->threads;
    f->warps -= k->warps;
    f->blocks -= 1;
    f->regs -= k->regs;
    f->smem -= k->smem;
    sms_room_dec(s, r);
}

#endif
