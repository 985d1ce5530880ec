/* sms.h -- what is free on every SM, and a room index over the SMs for one
 * kernel at a time.
 *
 * A block fits on an SM only if every resource fits (TX2 paper, rules R1-R3;
 * most-room paper §4.2): threads, warps (ceil(threads / warp_size)), the
 * blocks-per-SM limit, registers (regs per thread x threads) and shared
 * memory. The room of an SM for a kernel is how many more blocks of that
 * kernel it could take now: the minimum over those resources (most-room §4.1).
 *
 * The room index keeps, for every room value (0 included), a bitset of the
 * SMs (by rank in the tie-break order) that have exactly that room, a
 * summary of which of its 64-bit words are non-zero, and the highest room
 * any SM has. The SM with the most room, first in sm_order on ties, is the
 * lowest bit of the top bucket: its summary's lowest bit names the word,
 * that word's lowest bit the rank (two count-trailing-zeros, issue 9); a
 * change moves one bit between buckets. So neither placing nor finishing a
 * block scans the SMs. Bucket 0 (the SMs with no room) makes every move
 * the same two bit flips, with no test for "no room", and is what
 * sms_first_fit reads. The index always describes one kernel (sms_index
 * switches it, O(SMs)); taking and giving back resources keep it current.
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
    /* the carveout (KB) a block asks of its SM: an empty SM is configured
     * to it, a busy one takes the block only if configured to at least it
     * (carveout.h, H100-C1); 0 on devices without carveouts */
    int32_t carve_kb;
    int32_t carve_pad_;
    /* H100-W1 (sms_top_rank below): the kernel's wave, a bitset of ranks
     * (SMS_STRIDE words), or NULL for no preference */
    const uint64_t *wave;
} sim_need;

/* What is free on one SM. */
typedef struct sim_sm_free {
    int32_t threads;
    int32_t warps;
    int32_t blocks;
    int32_t carve_kb;        /* the SM's carveout while it runs blocks, KB;
                                INT32_MAX when empty: any (carveout.h) */
    int64_t regs;
    int64_t smem;
} sim_sm_free;

/* 64-bit words per bucket: every bucket has room for SIM_MAX_SMS ranks, so
 * a bucket's address is room * SMS_STRIDE (a shift), and the summary of a
 * bucket has at most 4 bits (device.h: SIM_MAX_SMS 256). */
#define SMS_STRIDE (SIM_MAX_SMS / 64)

typedef struct sim_sms {
    int32_t n;                       /* SMs */
    sim_sm_free *free;               /* [n], by SM id */
    sim_sm_free full;                /* an empty SM */
    int16_t order[SIM_MAX_SMS];      /* rank -> SM id (the device's sm_order) */
    int16_t rank[SIM_MAX_SMS];       /* SM id -> rank */
    bool carve;                      /* the device has carveouts: placing and
                                        ending blocks go through carveout.h
                                        (not sms_take / sms_give) */
    bool carve_steps;                /* with carve: no carveout exceeds an empty
                                        SM's shared memory, so carveout.h's fused
                                        path keeps rooms by steps (carveout.h) */
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
    int32_t words;                   /* 64-bit words that hold ranks: ceil(n / 64) */
    int32_t top;                     /* highest room of any SM; 0 = none fits */
    int32_t max_room;                /* blocks_per_sm: no room is larger */
    int32_t empty_room;              /* the indexed kernel's room on an empty SM */
    int32_t *room;                   /* [n] by rank */
    uint64_t *bucket;                /* [(max_room + 1) * SMS_STRIDE]: ranks with that room;
                                        rooms above top are all empty */
    uint32_t *nz;                    /* [max_room + 1]: bit w set when the bucket's word w
                                        is non-zero, so a bucket emptying is one load to see
                                        and its lowest rank two count-trailing-zeros */
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
 * room's bucket.
 *
 * H100-W1 (measured on an H200 with tools/recorder's schedlab-play,
 * tests/fixtures/h200/tp-*.csv and so-b-*.csv: 23 runs of grids of 44, 66,
 * 88 and 110 blocks, one, two or four per SM, limited by threads or by
 * shared memory, every block on the SM this rule gives): a grid of fewer
 * blocks than the GPU has SMs does not take the first SMs of sm_order; it
 * takes the first n of the device's wave order (on the H100: the four TPCs
 * of SMs 124-131 whole, then the first SM of every other TPC, the even SMs
 * 0-122, then their second SMs, the odd ones), and its blocks go to them
 * in sm_order. Read here as most-room's tie-break: among the SMs with the
 * most room, those of the kernel's wave (need.wave, sim.c) first, then the
 * rest, each in sm_order. On an idle GPU that is the measured rule; on a
 * busy one the room decides first, as the most-room recordings show
 * (tests/fixtures/h200/mostroom/: colocated B's first block goes to the
 * empty SM 123, outside its wave 124-131). */
static inline int32_t sms_top_rank(const sim_sms *s) {
    size_t top = (size_t)s->top;
    if (__builtin_expect(s->need.wave != NULL, 0)) {
        const uint64_t *b = &s->bucket[top * SMS_STRIDE];
        for (int32_t w = 0; w < SMS_STRIDE; w++) {
            uint64_t x = b[w] & s->need.wave[w];
            if (x) return w * 64 + __builtin_ctzll(x);
        }
    }
    /* the top bucket is never empty: its first non-zero word from the
     * summary, the lowest rank in it; no loop over the words and no branch
     * on which word holds it (a coin toss the predictor lost per block) */
    int32_t w = __builtin_ctz(s->nz[top]);
    return w * 64 + __builtin_ctzll(s->bucket[top * SMS_STRIDE + (size_t)w]);
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

/* Move rank r (bit `bit` of word w) from bucket `old` to bucket `room`
 * (old != room), keeping both summaries; the caller sets room[r] and the
 * top. Branch-free: both buckets exist (bucket 0 included), so it is the
 * same two bit flips whatever the rooms. */
static inline void sms_move(sim_sms *s, int32_t w, uint64_t bit, int32_t old, int32_t room) {
    uint64_t *ob = &s->bucket[(size_t)old * SMS_STRIDE + (size_t)w];
    uint64_t left = *ob & ~bit;
    *ob = left;
    s->bucket[(size_t)room * SMS_STRIDE + (size_t)w] |= bit;
    /* nz[old]'s bit w is set (r was in that word), so the xor clears it
     * exactly when the word emptied */
    s->nz[old] ^= (uint32_t)(left == 0) << w;
    s->nz[room] |= 1u << w;
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
    s->room[r] = room;
    sms_move(s, r >> 6, 1ull << (r & 63), old, room);
    if (room > s->top) s->top = room;
}

/* Rank r (room > 0) takes one more block of the indexed kernel: each
 * floor(free / need) drops by exactly one, so the room does, and the rank
 * moves one bucket down; when it was the last of the top bucket, the new
 * top is its new room (0 included). */
static inline void sms_room_dec(sim_sms *s, int32_t r) {
    int32_t old = s->room[r], room = old - 1;
    s->room[r] = room;
    sms_move(s, r >> 6, 1ull << (r & 63), old, room);
    /* a select, not a branch on the room (data the predictor misses) */
    s->top = s->nz[old] == 0 && old == s->top ? room : s->top;
}

/* A block's resources leave (sms_free_take) or come back to (sms_free_give)
 * an SM's free counts: threads, warps, a block slot, registers and shared
 * memory (RTSS'17 rules R1-R3; under H100-C1 the shared memory is what the
 * SM's carveout has left). One place for the five counts, so no path can
 * forget one. */
static inline void sms_free_take(sim_sm_free *f, const sim_need *k) {
    f->threads -= k->threads;
    f->warps -= k->warps;
    f->blocks -= 1;
    f->regs -= k->regs;
    f->smem -= k->smem;
}

static inline void sms_free_give(sim_sm_free *f, const sim_need *k) {
    f->threads += k->threads;
    f->warps += k->warps;
    f->blocks += 1;
    f->regs += k->regs;
    f->smem += k->smem;
}

/* Rank r gains room for one more block of the indexed kernel: a block of
 * that kernel ended there (floor((f + n) / n) = floor(f / n) + 1). */
static inline void sms_room_inc(sim_sms *s, int32_t r) {
    int32_t old = s->room[r], room = old + 1;
    s->room[r] = room;
    sms_move(s, r >> 6, 1ull << (r & 63), old, room);
    s->top = room > s->top ? room : s->top;
}

/* Rank r (room > 0) takes one block of the indexed kernel: sms_take with
 * the SM already known to be the index's (the block scheduler's fast
 * path: the rank comes from sms_top_rank, so no lookup and no test). */
static inline void sms_take_rank(sim_sms *s, int32_t r) {
    sim_sm_free *f = &s->free[s->order[r]];
    sms_free_take(f, &s->need);
    sms_room_dec(s, r);
}

/* A block of `k` ends on `sm`: its resources come back, and the SM's room
 * for the indexed kernel grows by one when it was that kernel's block
 * (recognised by its need's address, sms_index), or is recomputed. Inline:
 * every finishing block comes here. */
__attribute__((always_inline))   /* GCC and clang; the compiler's own choice was a call */
static inline void sms_give(sim_sms *s, int32_t sm, const sim_need *k) {
    sim_sm_free *f = &s->free[sm];
    sms_free_give(f, k);
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
    sms_free_take(f, k);
    sms_room_dec(s, r);
}

#endif
