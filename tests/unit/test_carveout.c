/* test_carveout.c -- H100-C1 (simcore/carveout.h): which carveout a kernel's
 * blocks ask for, what a busy SM then takes, and the room index kept exact
 * while SMs are configured and emptied (carve_take / carve_give). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../simcore/carveout.h"
#include "../../simcore/sms.h"

#define KB 1024

static sim_device h100(void) {
    sim_device d = *sim_preset_find("h100");
    sim_device_fill_order(&d);
    return d;
}

static sim_need need(const sim_device *d, int32_t threads, int64_t smem) {
    sim_need k = sms_need(d, threads, 0, smem);
    carve_need(d, &k);
    return k;
}

/* C1a: the smallest carveout holding the blocks an empty SM takes, each
 * with its 1 KB reserve (the probes' kernels, tests/fixtures/h100/c1-*) */
static void test_carve_need(void **state) {
    (void)state;
    sim_device d = h100();
    struct { int32_t threads; int64_t smem; int32_t kb; int64_t need; } c[] = {
        {1024, 0, 8, 1 * KB},          /* 2 x 1KB reserve */
        {256, 0, 8, 1 * KB},           /* 8 x 1KB */
        {64, 0, 32, 1 * KB},           /* 32 x 1KB */
        {1024, 8 * KB, 32, 9 * KB},    /* 2 x 9KB = 18KB */
        {256, 8 * KB, 100, 9 * KB},    /* 8 x 9KB = 72KB */
        {64, 8 * KB, 228, 9 * KB},     /* 25 x 9KB (shared memory limits) */
        {256, 40 * KB, 228, 41 * KB},  /* 5 x 41KB */
        {1024, 40 * KB, 100, 41 * KB}, /* 2 x 41KB */
        {1024, 64 * KB, 132, 65 * KB}, /* 2 x 65KB */
        {1024, 100 * KB, 228, 101 * KB},
        {256, 227 * KB, 228, 228 * KB},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        sim_need k = need(&d, c[i].threads, c[i].smem);
        assert_int_equal(k.carve_kb, c[i].kb);
        assert_int_equal(k.smem, c[i].need);
        assert_int_equal(k.threads, c[i].threads);
    }
    /* registers bound the blocks too (C1a's occupancy, as CUDA's occupancy
     * calculator counts them): 256 threads x 128 registers = 32768 a
     * block, so two fill the SM's 65536, and 2 x 9KB = 18KB asks 32KB where
     * the 8 blocks the threads allow would ask 100 */
    sim_need r = sms_need(&d, 256, 128, 8 * KB);
    carve_need(&d, &r);
    assert_int_equal(r.carve_kb, 32);
    assert_int_equal(r.smem, 9 * KB);
    r = sms_need(&d, 256, 32, 8 * KB);   /* 8192 a block: 8 blocks, threads bound */
    carve_need(&d, &r);
    assert_int_equal(r.carve_kb, 100);
    /* no carveouts: nothing changes */
    d.nsmem_carveouts = 0;
    sim_need k = need(&d, 256, 8 * KB);
    assert_int_equal(k.carve_kb, 0);
    assert_int_equal(k.smem, 8 * KB);
}

/* C1b/C1c on one SM: K1 (8KB, 1024 threads) configures it to 32KB; N of
 * 8KB x 1024 (32KB) fits in the 23KB left, N of 8KB x 256 (100KB) does
 * not, though it would on an empty SM; empty again, any configuration. */
static void test_carve_sm(void **state) {
    (void)state;
    sim_device d = h100();
    sim_sms s;
    assert_int_equal(sms_init(&s, &d), 0);
    assert_true(s.carve);
    sim_need k1 = need(&d, 1024, 8 * KB), same = need(&d, 1024, 8 * KB),
             wide = need(&d, 256, 8 * KB), none = need(&d, 1024, 0);
    assert_int_equal(sms_room(&s, 5, &wide), 8);
    carve_take(&s, 5, &k1);
    assert_int_equal(s.free[5].carve_kb, 32);
    assert_int_equal(s.free[5].smem, 23 * KB);
    assert_int_equal(sms_room(&s, 5, &same), 1);    /* threads: 1024 left */
    assert_int_equal(sms_room(&s, 5, &wide), 0);    /* 100KB > 32KB */
    assert_int_equal(sms_room(&s, 5, &none), 1);    /* 8KB <= 32KB */
    assert_int_equal(sms_room(&s, 6, &wide), 8);    /* an empty SM: any */
    carve_give(&s, 5, &k1);
    assert_int_equal(s.free[5].carve_kb, INT32_MAX);
    assert_memory_equal(&s.free[5], &s.full, sizeof s.full);
    assert_int_equal(sms_room(&s, 5, &wide), 8);
    /* a kernel without shared memory configures 8KB: 2KB blocks of 1024
     * threads (8KB) join it (probe c1-j), 8KB ones (32KB) do not */
    carve_take(&s, 7, &none);
    assert_int_equal(s.free[7].carve_kb, 8);
    assert_int_equal(s.free[7].smem, 7 * KB);
    sim_need small = need(&d, 1024, 2 * KB);
    assert_int_equal(small.carve_kb, 8);
    assert_int_equal(sms_room(&s, 7, &small), 1);
    assert_int_equal(sms_room(&s, 7, &same), 0);
    sms_free(&s);
}

static uint64_t lcg(uint64_t *x) {
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

/* Random placements on their most-room SM and random endings through
 * carve_take / carve_give: after each, every rank's room equals sms_room
 * (the room index stays exact across configurations), the most-room SM is
 * the first in order with the most room, and each SM's free shared memory
 * is its configuration less what its blocks take. */
static void test_carve_index(void **state) {
    (void)state;
    sim_device d = h100();
    const sim_need needs[5] = {
        need(&d, 1024, 0),     need(&d, 256, 8 * KB), need(&d, 1024, 64 * KB),
        need(&d, 64, 2 * KB),  need(&d, 512, 40 * KB),
    };
    static struct { int32_t sm, k; } live[1 << 14];
    int64_t used[SIM_MAX_SMS] = {0};
    int nlive = 0, placed = 0;
    sim_sms s;
    assert_int_equal(sms_init(&s, &d), 0);
    uint64_t seed = 7;
    for (int step = 0; step < 4000; step++) {
        if (nlive > 0 && lcg(&seed) % 100 < 45) {
            int i = (int)(lcg(&seed) % (uint64_t)nlive);
            carve_give(&s, live[i].sm, &needs[live[i].k]);
            used[live[i].sm] -= needs[live[i].k].smem;
            live[i] = live[--nlive];
        } else {
            int32_t k = (int32_t)(lcg(&seed) % 5);
            sms_index(&s, k, &needs[k]);
            assert_true(s.fast);   /* reciprocals, with carveout.h's test first */
            int32_t best = -1, broom = 0;
            for (int32_t r = 0; r < s.n; r++) {
                int32_t room = sms_room(&s, s.order[r], &needs[k]);
                if (room > broom) {
                    broom = room;
                    best = s.order[r];
                }
            }
            int32_t sm = sms_most_room(&s);
            assert_int_equal(sm, best);
            if (sm >= 0) {
                carve_take(&s, sm, &needs[k]);
                used[sm] += needs[k].smem;
                live[nlive].sm = sm;
                live[nlive++].k = k;
                placed++;
            }
        }
        for (int32_t r = 0; r < s.n; r++) {
            int32_t sm = s.order[r];
            if (s.kernel >= 0) assert_int_equal(s.room[r], sms_room(&s, sm, &s.need));
            const sim_sm_free *f = &s.free[sm];
            if (f->blocks == s.full.blocks) {
                assert_int_equal(f->smem, s.full.smem);
                assert_int_equal(used[sm], 0);
            } else {
                assert_int_equal(f->smem, (int64_t)f->carve_kb * KB - used[sm]);
                assert_true(f->smem >= 0);
            }
        }
    }
    assert_true(placed > 1500);
    sms_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_carve_need),
        cmocka_unit_test(test_carve_sm),
        cmocka_unit_test(test_carve_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
