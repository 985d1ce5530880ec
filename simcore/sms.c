/* sms.c -- per-SM free resources and the room index. See sms.h. */
#include "sms.h"

#include "sim.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


int sms_init(sim_sms *s, const sim_device *dev) {
    memset(s, 0, sizeof *s);
    s->n = dev->sms;
    s->kernel = -1;
    s->full.threads = dev->threads_per_sm;
    s->full.warps = dev->warps_per_sm;
    s->full.blocks = dev->blocks_per_sm;
    s->full.regs = dev->regs_per_sm;
    s->full.smem = dev->smem_per_sm;
    s->full.carve_kb = INT32_MAX;
    s->carve = dev->nsmem_carveouts > 0;
    s->carve_steps = s->carve;
    for (int32_t i = 0; i < dev->nsmem_carveouts; i++)
        if ((int64_t)dev->smem_carveouts_kb[i] * 1024 > dev->smem_per_sm) s->carve_steps = false;
    s->words = (s->n + 63) / 64;
    s->max_room = dev->blocks_per_sm;
    s->free = malloc((size_t)s->n * sizeof *s->free);
    s->room = calloc((size_t)s->n, sizeof *s->room);
    s->bucket = calloc(((size_t)s->max_room + 1) * SMS_STRIDE, sizeof *s->bucket);
    s->nz = calloc((size_t)s->max_room + 1, sizeof *s->nz);
    if (!s->free || !s->room || !s->bucket || !s->nz) {
        sms_free(s);
        return -1;
    }
    for (int32_t i = 0; i < s->n; i++) {
        s->free[i] = s->full;
        s->order[i] = dev->sm_order[i];
        s->rank[dev->sm_order[i]] = (int16_t)i;
    }
    return 0;
}

void sms_free(sim_sms *s) {
    free(s->free);
    free(s->room);
    free(s->bucket);
    free(s->nz);
    s->free = NULL;
    s->room = NULL;
    s->bucket = NULL;
    s->nz = NULL;
}

sim_need sms_need(const sim_device *dev, int32_t threads, int32_t regs, int64_t smem) {
    sim_need k;
    k.threads = threads;
    /* warps are allocated whole: 33 threads take two (most-room §4.2) */
    k.warps = (threads + dev->warp_size - 1) / dev->warp_size;
    k.regs = (int64_t)regs * threads;
    k.smem = smem;
    k.carve_kb = 0;
    k.carve_pad_ = 0;
    k.wave = NULL;   /* H100-W1: sim.c sets a small grid's */
    return k;
}

static inline int32_t room_of(const sim_sm_free *f, const sim_need *k) {
    /* the first resource to run out limits the room (most-room §4.2);
     * 32-bit divisions where the values allow, they are the hot path */
    uint32_t r = (uint32_t)(f->blocks > 0 ? f->blocks : 0);
    /* H100-C1 (carveout.h): a busy SM configured below the block's carveout */
    if (k->carve_kb > f->carve_kb) return 0;
    if (k->threads > 0) {
        uint32_t x = f->threads > 0 ? (uint32_t)f->threads / (uint32_t)k->threads : 0;
        if (x < r) r = x;
    }
    if (k->warps > 0) {
        uint32_t x = f->warps > 0 ? (uint32_t)f->warps / (uint32_t)k->warps : 0;
        if (x < r) r = x;
    }
    if (k->regs > 0 && r > 0) {
        int64_t x = f->regs <= 0 ? 0
                    : (f->regs <= UINT32_MAX && k->regs <= UINT32_MAX)
                        ? (int64_t)((uint32_t)f->regs / (uint32_t)k->regs) : f->regs / k->regs;
        if (x < (int64_t)r) r = (uint32_t)x;
    }
    if (k->smem > 0 && r > 0) {
        int64_t x = f->smem <= 0 ? 0
                    : (f->smem <= UINT32_MAX && k->smem <= UINT32_MAX)
                        ? (int64_t)((uint32_t)f->smem / (uint32_t)k->smem) : f->smem / k->smem;
        if (x < (int64_t)r) r = (uint32_t)x;
    }
    return r > INT32_MAX ? INT32_MAX : (int32_t)r;
}

/* Division by a constant as a multiplication (Granlund & Montgomery 1994):
 * with m = ceil(2^40 / d), (n * m) >> 40 = floor(n / d) whenever n * d <
 * 2^40, which n, d < 2^20 guarantees; n * m < 2^60 does not overflow. The
 * room of an SM for the indexed kernel is recomputed on every finishing
 * block, with up to four divisions of 20-40 cycles each otherwise. */
#define MAGIC_SHIFT SMS_MAGIC_SHIFT   /* sms.h: sms_reroom_up divides the same way */
#define MAGIC_LIMIT ((int64_t)1 << 20)

static inline uint64_t magic_of(int64_t d) {
    return d > 0 ? (((uint64_t)1 << MAGIC_SHIFT) + (uint64_t)d - 1) / (uint64_t)d : 0;
}

/* room_of for the indexed kernel (s->need); the same value (sms.h,
 * sms_room_magic, when s->fast). */
static inline int32_t room_indexed(const sim_sms *s, const sim_sm_free *f) {
    if (!s->fast) return room_of(f, &s->need);
    /* H100-C1 (carveout.h), as in room_of; never true without carveouts */
    if (s->need.carve_kb > f->carve_kb) return 0;
    return sms_room_magic(s, f);
}

int32_t sms_room(const sim_sms *s, int32_t sm, const sim_need *k) {
    return room_of(&s->free[sm], k);
}

int32_t sms_share(const sim_sms *s, const sim_need *k, int32_t parts) {
    sim_sm_free f = s->full;
    if (parts > 1) {
        f.threads /= parts;
        f.warps /= parts;
        f.blocks /= parts;
        f.regs /= parts;
        f.smem /= parts;
    }
    return room_of(&f, k);
}

/* Move rank r from its room's bucket to `room`'s. */
static inline void set_room(sim_sms *s, int32_t r, int32_t room) {
    int32_t old = s->room[r];
    if (old == room) return;
    s->room[r] = room;
    sms_move(s, r >> 6, 1ull << (r & 63), old, room);
    if (room > s->top) {
        s->top = room;
    } else if (old == s->top) {
        /* the top bucket emptied: down to the next non-empty one (r's own
         * at the latest); bucket 0 counts, so top 0 means none fits */
        while (s->top > 0 && !s->nz[s->top]) s->top--;
    }
}

void sms_index_switch(sim_sms *s, int32_t kernel, const sim_need *k) {
    s->kernel = kernel;
    s->need = *k;
    s->need_src = k;
    /* free never exceeds an empty SM, so bounding the full SM and the need
     * bounds every quotient taken until the next switch */
    s->fast = s->full.threads < MAGIC_LIMIT && s->full.warps < MAGIC_LIMIT &&
              s->full.blocks < MAGIC_LIMIT && s->full.regs < MAGIC_LIMIT &&
              s->full.smem < MAGIC_LIMIT && k->threads < MAGIC_LIMIT &&
              k->warps < MAGIC_LIMIT && k->regs < MAGIC_LIMIT && k->smem < MAGIC_LIMIT;
    s->magic[0] = magic_of(k->threads);
    s->magic[1] = magic_of(k->warps);
    s->magic[2] = magic_of(k->regs);
    s->magic[3] = magic_of(k->smem);
    s->unlimited[0] = k->threads > 0 ? 0 : UINT32_MAX;
    s->unlimited[1] = k->warps > 0 ? 0 : UINT32_MAX;
    s->unlimited[2] = k->regs > 0 ? 0 : UINT32_MAX;
    s->unlimited[3] = k->smem > 0 ? 0 : UINT32_MAX;
    s->empty_room = room_indexed(s, &s->full);
    /* rebuilt from scratch: the buckets up to the old top cleared (those
     * above it are empty already: no rank had that room), then each rank
     * added once */
    size_t used = (size_t)s->top + 1;
    memset(s->bucket, 0, used * SMS_STRIDE * sizeof *s->bucket);
    memset(s->nz, 0, used * sizeof *s->nz);
    int32_t top = 0;
    for (int32_t r = 0; r < s->n; r++) {
        int32_t room = room_indexed(s, &s->free[s->order[r]]);
        s->room[r] = room;
        s->bucket[(size_t)room * SMS_STRIDE + (size_t)(r >> 6)] |= 1ull << (r & 63);
        s->nz[room] |= 1u << (r >> 6);
        if (room > top) top = room;
    }
    s->top = top;
}

/* Lowest rank with room (not in bucket 0), from rank `from` on; -1 if
 * none. Bucket 0's bits above n - 1 are clear too, so they are masked. */
static int32_t first_fit_rank(const sim_sms *s, int32_t from) {
    for (int32_t w = from >> 6; w < s->words; w++) {
        uint64_t x = ~s->bucket[w];
        if (w == from >> 6) x &= ~0ull << (from & 63);
        if (w == (s->n - 1) >> 6 && (s->n & 63)) x &= (1ull << (s->n & 63)) - 1;
        if (x) return w * 64 + __builtin_ctzll(x);
    }
    return -1;
}

int32_t sms_first_fit(const sim_sms *s, int32_t from) {
    int32_t r = first_fit_rank(s, from);
    if (r < 0 && from > 0) r = first_fit_rank(s, 0);
    return r < 0 ? -1 : s->order[r];
}

void sms_take_any(sim_sms *s, int32_t sm, const sim_need *k) {
    sim_sm_free *f = &s->free[sm];
    sms_free_take(f, k);
    if (s->kernel < 0) return;
    int32_t r = s->rank[sm];
    if (k == s->need_src || k == &s->need || memcmp(k, &s->need, sizeof *k) == 0) {
        /* one more block of the indexed kernel: each floor(free / need)
         * drops by exactly one, so the room does; no division needed */
        if (s->room[r] > 0) {
            sms_room_dec(s, r);
            return;
        }
    }
    set_room(s, r, room_indexed(s, f));
}

void sms_reroom(sim_sms *s, int32_t r) {
    set_room(s, r, room_indexed(s, &s->free[s->order[r]]));
}

/* An idle SM, as sms_init fills each (sim.h). */
int32_t sim_room_empty(const sim_device *dev, int32_t threads, int32_t regs, int64_t smem) {
    sim_sm_free full = {.threads = dev->threads_per_sm, .warps = dev->warps_per_sm,
                        .blocks = dev->blocks_per_sm, .regs = dev->regs_per_sm,
                        .smem = dev->smem_per_sm, .carve_kb = INT32_MAX};
    sim_need k = sms_need(dev, threads, regs, smem);
    return room_of(&full, &k);
}
