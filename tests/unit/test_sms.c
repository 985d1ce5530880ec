/* test_sms.c -- the room index of sms.h against brute force.
 *
 * The index keeps, for the kernel it describes, every SM's room (how many
 * more blocks fit: the minimum over threads, warps, blocks, registers and
 * shared memory, most-room paper §4.1-§4.2) without dividing on the hot
 * path: placing a block of the indexed kernel lowers its SM's room by one,
 * and every other change recomputes the room with multiplications by
 * precomputed reciprocals (sms.c). These tests drive random placements and
 * completions of blocks of several kernels and check, after every step,
 * each SM's room against the plain division (sms_room), and the most-room
 * pick and the first fit against a scan: on the h100 preset (reciprocals)
 * and on a device whose shared memory is too large for them (divisions). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../simcore/sim.h"
#include "../../simcore/sms.h"

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* The SM with the most room for k, first in sm_order on ties; -1: none. */
static int32_t brute_most_room(const sim_sms *s, const sim_need *k) {
    int32_t best = -1, best_room = 0;
    for (int32_t r = 0; r < s->n; r++) {
        int32_t sm = s->order[r], room = sms_room(s, sm, k);
        if (room > best_room) {
            best = sm;
            best_room = room;
        }
    }
    return best;
}

/* The first SM with room at rank >= from, wrapping around; -1: none. */
static int32_t brute_first_fit(const sim_sms *s, const sim_need *k, int32_t from) {
    for (int32_t i = 0; i < s->n; i++) {
        int32_t sm = s->order[(from + i) % s->n];
        if (sms_room(s, sm, k) > 0) return sm;
    }
    return -1;
}

static void check_index(const sim_sms *s) {
    int32_t top = 0;
    for (int32_t sm = 0; sm < s->n; sm++) {
        int32_t room = sms_room(s, sm, &s->need);
        assert_int_equal(s->room[s->rank[sm]], room);
        if (room > top) top = room;
    }
    assert_int_equal(s->top, top);
    /* each bucket (room 0 included) holds exactly the ranks with its room
     * and no bit past the last rank, and its summary has bit w set exactly
     * when word w is non-zero (the top falls through empty buckets by it) */
    for (int32_t room = 0; room <= s->max_room; room++) {
        uint32_t nz = 0;
        for (int32_t w = 0; w < SMS_STRIDE; w++) {
            uint64_t word = s->bucket[(size_t)room * SMS_STRIDE + (size_t)w];
            for (int32_t b = 0; b < 64; b++) {
                int32_t r = w * 64 + b;
                bool in = (word >> b) & 1;
                assert_int_equal(in, r < s->n && s->room[r] == room);
            }
            if (word) nz |= 1u << w;
        }
        assert_int_equal(s->nz[room], nz);
    }
    assert_int_equal(sms_most_room(s), brute_most_room(s, &s->need));
    for (int32_t from = 0; from < s->n; from += 37)
        assert_int_equal(sms_first_fit(s, from), brute_first_fit(s, &s->need, from));
}

typedef struct placed {
    int32_t sm, kernel;
} placed;

/* Random steps over `dev`: place a block of a random kernel on its
 * most-room SM (the index switched to it), place one of another kernel
 * with the index left on the last, or finish a random placed block,
 * checking the index after each. Returns the blocks placed. */
static int run_random(const sim_device *dev, const sim_need *needs, int nneeds, uint64_t seed,
                      bool expect_fast) {
    static placed live[1 << 16];
    sim_sms s;
    assert_int_equal(sms_init(&s, dev), 0);
    int nlive = 0, placed_total = 0;
    for (int step = 0; step < 6000; step++) {
        int32_t k = (int32_t)(lcg(&seed) % (uint64_t)nneeds);
        uint64_t dice = lcg(&seed) % 100;
        bool finish = nlive > 0 && dice < 45;
        if (finish) {
            int i = (int)(lcg(&seed) % (uint64_t)nlive);
            sms_give(&s, live[i].sm, &needs[live[i].kernel]);
            live[i] = live[--nlive];
        } else if (dice < 60 && s.kernel >= 0 && k != s.kernel) {
            /* a block of a kernel the index does not describe (another
             * process's, placed while the index still holds this one's):
             * the indexed kernel's room on that SM is recomputed, which
             * may take it down by more than one, or to 0 */
            int32_t sm = brute_most_room(&s, &needs[k]);
            if (sm >= 0) {
                sms_take(&s, sm, &needs[k]);
                live[nlive++] = (placed){ .sm = sm, .kernel = k };
                placed_total++;
            }
        } else {
            sms_index(&s, k, &needs[k]);
            assert_true(s.fast == expect_fast);
            int32_t sm = sms_most_room(&s);
            assert_int_equal(sm, brute_most_room(&s, &needs[k]));
            if (sm >= 0) {
                sms_take(&s, sm, &needs[k]);
                live[nlive++] = (placed){ .sm = sm, .kernel = k };
                placed_total++;
            }
        }
        check_index(&s);
    }
    /* everything back: every SM is empty again */
    while (nlive > 0) {
        nlive--;
        sms_give(&s, live[nlive].sm, &needs[live[nlive].kernel]);
    }
    check_index(&s);
    for (int32_t sm = 0; sm < s.n; sm++)
        assert_memory_equal(&s.free[sm], &s.full, sizeof s.full);
    sms_free(&s);
    return placed_total;
}

static void test_room_index_h100(void **state) {
    (void)state;
    const sim_device *dev = sim_preset_find("h100");
    assert_non_null(dev);
    sim_device d = *dev;
    d.nsmem_carveouts = 0;   /* the room index alone: no carveout rule (carveout.h) */
    sim_device_fill_order(&d);
    const sim_need needs[4] = {
        sms_need(&d, 64, 16, 0),
        sms_need(&d, 256, 64, 48 * 1024),
        sms_need(&d, 1024, 32, 1000),
        sms_need(&d, 33, 255, 7 * 1024),     /* 33 threads: two warps */
    };
    assert_int_equal(needs[3].warps, 2);
    int n = run_random(&d, needs, 4, 1, true);
    assert_true(n > 2000);
}

/* Two kernels with the same need (separate records): a block of one ends
 * while the index describes the other, so the room is recomputed rather
 * than raised by one (sms_give recognises the indexed kernel by the need's
 * address), and the answers still match the divisions. */
static void test_room_index_same_need(void **state) {
    (void)state;
    sim_device d = *sim_preset_find("h100");
    d.nsmem_carveouts = 0;   /* the room index alone: no carveout rule (carveout.h) */
    sim_device_fill_order(&d);
    const sim_need needs[3] = {
        sms_need(&d, 256, 32, 16 * 1024),
        sms_need(&d, 256, 32, 16 * 1024),
        sms_need(&d, 128, 64, 0),
    };
    int n = run_random(&d, needs, 3, 3, true);
    assert_true(n > 2000);
}

/* Shared memory of 2^21 bytes per SM: past the reciprocals' range, so the
 * index divides; the answers are the same. */
static void test_room_index_large_device(void **state) {
    (void)state;
    sim_device d = *sim_preset_find("h100");
    d.nsmem_carveouts = 0;   /* the room index alone: no carveout rule (carveout.h) */
    d.smem_per_sm = (int64_t)1 << 21;
    d.sms = 20;
    d.sm_order_kind = SIM_SM_ORDER_ASCENDING;   /* fewer SMs than the preset's order */
    sim_device_fill_order(&d);
    const sim_need needs[3] = {
        sms_need(&d, 128, 32, 300 * 1024),
        sms_need(&d, 512, 16, 0),
        sms_need(&d, 96, 40, 4096),
    };
    int n = run_random(&d, needs, 3, 2, false);
    assert_true(n > 1000);
}

/* Exact multiples, where a reciprocal rounded the wrong way would be one
 * short: 1536 threads, 48 warps and 192 KB of shared memory per SM hold
 * exactly 16 blocks of 96 threads (3 warps) and 12 KB; registers allow 17. */
static void test_room_exact_multiples(void **state) {
    (void)state;
    sim_device d = *sim_preset_find("h100");
    d.nsmem_carveouts = 0;   /* the room index alone: no carveout rule (carveout.h) */
    d.threads_per_sm = 1536;
    d.warps_per_sm = 48;
    d.smem_per_sm = 196608;
    d.sms = 3;
    d.sm_order_kind = SIM_SM_ORDER_ASCENDING;   /* fewer SMs than the preset's order */
    sim_device_fill_order(&d);
    sim_sms s;
    assert_int_equal(sms_init(&s, &d), 0);
    const sim_need k = sms_need(&d, 96, 40, 12288), other = sms_need(&d, 32, 8, 0);
    assert_int_equal(k.warps, 3);
    sms_index(&s, 0, &k);
    assert_true(s.fast);
    for (int32_t r = 0; r < s.n; r++) assert_int_equal(s.room[r], 16);
    /* a block of another kernel comes and goes: both recompute the room */
    sms_take(&s, 1, &other);
    assert_int_equal(s.room[s.rank[1]], 15);   /* 1504 threads: 15 x 96 = 1440 */
    sms_give(&s, 1, &other);
    assert_int_equal(s.room[s.rank[1]], 16);
    /* four of its own blocks: 12 left, then back to 16 */
    for (int i = 0; i < 4; i++) sms_take(&s, 2, &k);
    assert_int_equal(s.room[s.rank[2]], 12);
    for (int i = 0; i < 4; i++) sms_give(&s, 2, &k);
    assert_int_equal(s.room[s.rank[2]], 16);
    assert_int_equal(s.top, 16);
    sms_free(&s);
}

/* The H100 cut to `sms` SMs in ascending order (fewer than the preset's
 * order names), without its carveouts: the room index alone (carveout.h
 * has the carveout rule). */
static sim_device h100_sms(int32_t sms) {
    sim_device d = *sim_preset_find("h100");
    d.nsmem_carveouts = 0;
    d.sms = sms;
    d.sm_order_kind = SIM_SM_ORDER_ASCENDING;
    sim_device_fill_order(&d);
    return d;
}

/* The first resource to run out limits the room (most-room §4.2), shared
 * memory included: on an H100 SM (2048 threads, 64 warps, 32 blocks,
 * 65536 registers, 228 KB; CUDA C++ Programming Guide, compute capability
 * 9.0) a block of 128 threads, 32 registers a thread and 50 KB of shared
 * memory fits 16 times by threads, warps and registers and 4 times by
 * shared memory (5 x 50 KB > 228 KB): 4, on an idle SM, on each SM of the
 * index, by the plain division and in half an SM (114 KB: 2). */
static void test_room_shared_memory_binds(void **state) {
    (void)state;
    sim_device d = h100_sms(4);
    assert_int_equal(sim_room_empty(&d, 128, 32, 50 * 1024), 4);
    assert_int_equal(sim_room_empty(&d, 128, 32, 0), 16);
    sim_sms s;
    assert_int_equal(sms_init(&s, &d), 0);
    const sim_need k = sms_need(&d, 128, 32, 50 * 1024);
    sms_index(&s, 0, &k);
    for (int32_t sm = 0; sm < s.n; sm++) {
        assert_int_equal(sms_room(&s, sm, &k), 4);
        assert_int_equal(s.room[s.rank[sm]], 4);
    }
    assert_int_equal(sms_share(&s, &k, 2), 2);
    sms_take(&s, 1, &k);
    assert_int_equal(sms_room(&s, 1, &k), 3);
    assert_int_equal(s.room[s.rank[1]], 3);
    sms_free(&s);
}

/* Each of the other limits binds in its turn (most-room §4.2: "the first
 * resource to run out"; TX2 paper rules R1-R2), on the same H100 SM:
 * - warps: 65 threads take 3 warps (warps are allocated whole), 64 / 3 =
 *   21 blocks, where threads allow 2048 / 65 = 31, blocks 32 and registers
 *   (8 a thread) 65536 / 520 = 126;
 * - blocks: 32 threads (1 warp), 32 blocks, where threads and warps allow
 *   64 and registers 256;
 * - threads: no shipped device has fewer threads than 32 x its warps (the
 *   warp count then binds first, as above), so a device given 1024 threads
 *   and 64 warps: blocks of 256 threads, 4 by threads, 8 by warps.
 * Half an SM (ISCA'17 §3.6's share of two kernels) halves every limit: two
 * kernels of 32-thread blocks could not both hold 32 under the SM's 32, so
 * each holds 16 (threads alone would allow 32). Each on an idle SM, by the
 * division, in the index (reciprocals), and under random placements. */
static void test_room_other_limits_bind(void **state) {
    (void)state;
    sim_device d = h100_sms(4);
    assert_int_equal(d.threads_per_sm, 2048);
    assert_int_equal(d.warps_per_sm, 64);
    assert_int_equal(d.blocks_per_sm, 32);
    assert_int_equal(d.regs_per_sm, 65536);
    assert_int_equal(sim_room_empty(&d, 65, 8, 0), 21);
    assert_int_equal(sim_room_empty(&d, 32, 8, 0), 32);
    sim_sms s;
    assert_int_equal(sms_init(&s, &d), 0);
    const sim_need w = sms_need(&d, 65, 8, 0), b = sms_need(&d, 32, 8, 0);
    assert_int_equal(sms_share(&s, &b, 2), 16);
    assert_int_equal(sms_share(&s, &w, 2), 10);   /* 32 warps / 3 */
    sms_index(&s, 0, &w);
    assert_true(s.fast);
    for (int32_t sm = 0; sm < s.n; sm++) {
        assert_int_equal(sms_room(&s, sm, &w), 21);
        assert_int_equal(s.room[s.rank[sm]], 21);
    }
    sms_index(&s, 1, &b);
    for (int32_t sm = 0; sm < s.n; sm++) assert_int_equal(s.room[s.rank[sm]], 32);
    sms_free(&s);
    const sim_need both[2] = { w, b };
    assert_true(run_random(&d, both, 2, 5, true) > 1000);

    d.threads_per_sm = 1024;
    assert_int_equal(sim_room_empty(&d, 256, 8, 0), 4);
    assert_int_equal(sms_init(&s, &d), 0);
    const sim_need t = sms_need(&d, 256, 8, 0);
    sms_index(&s, 0, &t);
    for (int32_t sm = 0; sm < s.n; sm++) assert_int_equal(s.room[s.rank[sm]], 4);
    assert_int_equal(sms_share(&s, &t, 2), 2);
    sms_free(&s);
    const sim_need threads[2] = { t, w };
    assert_true(run_random(&d, threads, 2, 6, true) > 1000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_room_index_h100),
        cmocka_unit_test(test_room_shared_memory_binds),
        cmocka_unit_test(test_room_other_limits_bind),
        cmocka_unit_test(test_room_index_same_need),
        cmocka_unit_test(test_room_index_large_device),
        cmocka_unit_test(test_room_exact_multiples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
