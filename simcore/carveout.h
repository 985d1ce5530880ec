/* carveout.h -- the L1 / shared memory split of an SM (H100-C1, measured).
 *
 * An SM of compute capability 8.x/9.0 divides its unified L1 / shared
 * memory into a shared-memory capacity chosen from a short list (the
 * carveouts; CUDA Programming Guide, CC 9.0: 0, 8, 16, ..., 228 KB), and
 * every block that uses shared memory also takes 1 KB reserved for the
 * system. No paper covers how the capacity is chosen while kernels share
 * an SM; the rule below is what an H100 SXM5 did (driver 580.159.04,
 * tests/fixtures/h100/h100-smem-carveout-r1.csv and the probes
 * tests/fixtures/h100/c1-*.csv; README, "H100 recordings"), named H100-C1:
 *
 *   C1a  a kernel's blocks ask for the smallest carveout that holds as many
 *        of its blocks as fit on an empty SM (its occupancy: threads, warps,
 *        blocks, registers and shared memory, each block's shared memory
 *        plus the 1 KB reserve, which a block without shared memory takes
 *        too: such a kernel asks 8 KB, or 16 or 32 with many small blocks).
 *   C1b  an empty SM is configured to the carveout of the first block it
 *        takes; the configuration changes only when the SM is empty again.
 *   C1c  a busy SM takes a block only if its configuration is at least the
 *        block's carveout and the block's shared memory (+1 KB) fits in
 *        what the configuration has left (besides rules R1-R3).
 *
 * On with the device's carveout list (sim_device.nsmem_carveouts, the h100
 * preset); off, nothing here runs: sms.h's fast path and ee.h's fused
 * dispatch take one untaken branch (sim_sms.carve) per block. On, the
 * general loop places and ends blocks through carve_take / carve_give
 * (which recompute the SM's room: a configuration change moves it by more
 * than one), the fused one (ee.h) through carve_take_rank /
 * carve_give_fast (the same rooms, recomputed only where a configuration
 * changes), and C1c's first half is sms.c's test of sim_need.carve_kb
 * against sim_sm_free.carve_kb before the room. */
#ifndef SIMCORE_CARVEOUT_H
#define SIMCORE_CARVEOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "device.h"
#include "sms.h"

/* C1a: the carveout (KB) of a kernel's blocks, and their shared memory with
 * the reserve, into *k (made by sms_need from the same threads, regs and
 * smem). No-op on a device without carveouts. */
void carve_need(const sim_device *d, sim_need *k);

/* C1b/C1c: a block of `k` starts on / leaves `sm` (the caller checked it
 * fits): sms_take and sms_give with the SM's configuration kept, its room
 * for the indexed kernel recomputed. */
void carve_take(sim_sms *s, int32_t sm, const sim_need *k);
void carve_give(sim_sms *s, int32_t sm, const sim_need *k);

#define CARVE_KB 1024   /* bytes in a KB of a carveout */

/* The fused block scheduler's carve_take and carve_give (ee.h, issue 9):
 * the same resources and configurations, the room index kept by steps, as
 * sms.h's fast path keeps it, where those steps give the rooms that
 * carve_take and carve_give's recomputation (sms_reroom) would:
 *  - a busy SM keeps its configuration, so C1c's carveout test gives what
 *    it gave and shared memory is one more subtraction: a block of the
 *    indexed kernel moves its room by exactly one, another kernel's block
 *    ending only raises it (sms_reroom_up), or leaves 0 at 0 where the
 *    configuration is below the indexed kernel's carveout;
 *  - an empty SM configured by a block of the indexed kernel (C1b) has
 *    room one less than before, like any other: with `occ` its room when
 *    empty and c = floor(carve * 1KB / smem), C1a chose the carveout so
 *    that c >= occ, and c <= floor(smem_per_sm / smem) while no carveout
 *    exceeds an empty SM's shared memory (sim_sms.carve_steps), so every
 *    resource's quotient after the block is at least occ - 1 and the one
 *    that limited the room is exactly that;
 *  - an SM emptied has the room of an empty SM (sim_sms.empty_room, no
 *    less than any busy SM's under carve_steps).
 * Without carve_steps (a device whose carveouts exceed its shared memory)
 * a configuration change recomputes the room. */

/* Rank r (room > 0) takes one block of the indexed kernel (sms_take_rank
 * under H100-C1). */
__attribute__((always_inline))   /* GCC and clang: once per placed block */
static inline void carve_take_rank(sim_sms *s, int32_t r) {
    int32_t sm = s->order[r];
    sim_sm_free *f = &s->free[sm];
    if (f->blocks == s->full.blocks) {
        /* C1b: an empty SM takes the block's configuration */
        f->carve_kb = s->need.carve_kb;
        f->smem = (int64_t)s->need.carve_kb * CARVE_KB;
        if (!s->carve_steps) {
            carve_take(s, sm, &s->need);   /* the room recomputed */
            return;
        }
    }
    sms_free_take(f, &s->need);   /* C1c: the shared memory from what the configuration has left */
    sms_room_dec(s, r);
}

/* A block of `k` ends on `sm` (sms_give under H100-C1). */
__attribute__((always_inline))   /* GCC and clang: once per finishing block */
static inline void carve_give_fast(sim_sms *s, int32_t sm, const sim_need *k) {
    sim_sm_free *f = &s->free[sm];
    sms_free_give(f, k);
    int32_t r = s->rank[sm];
    if (f->blocks == s->full.blocks) {
        /* C1b: empty again, free to take any configuration */
        f->carve_kb = s->full.carve_kb;
        f->smem = s->full.smem;
        if (s->kernel < 0) return;
        if (!s->carve_steps) {
            sms_reroom(s, r);
            return;
        }
        /* the room of an empty SM, up from whatever it was */
        int32_t old = s->room[r], room = s->empty_room;
        if (room == old) return;
        s->room[r] = room;
        sms_move(s, r >> 6, 1ull << (r & 63), old, room);
        s->top = room > s->top ? room : s->top;
        return;
    }
    if (s->kernel < 0) return;
    if (k == s->need_src) sms_room_inc(s, r);
    else if (s->need.carve_kb <= f->carve_kb) sms_reroom_up(s, r, f);
}

#endif
