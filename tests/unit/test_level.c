/* test_level.c -- db/varint.h (the one varint codec) and db/level.c (the
 * pyramids' level engine), against the formats' definitions: LEB128 as
 * DWARF 5 §7.6 and protobuf's encoding guide define it (300 is AC 02),
 * zigzag as protobuf's (0, -1, 1, -2 -> 0, 1, 2, 3), and bins worked out
 * by hand. The pyramids' own tests (test_pyramid, test_qpyramid,
 * test_spyramid, ...) check the stored results against raw records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../db/db.h"
#include "../../db/level.h"
#include "../../db/varint.h"

static void test_leb128(void **state) {
    (void)state;
    uint8_t b[16];
    size_t n = (size_t)(vi_put(b, 300) - b);
    assert_int_equal(n, 2);
    assert_int_equal(b[0], 0xac);
    assert_int_equal(b[1], 0x02);
    n = (size_t)(vi_put(b, 0) - b);
    assert_int_equal(n, 1);
    assert_int_equal(b[0], 0);
    n = (size_t)(vi_put(b, UINT64_MAX) - b);
    assert_int_equal(n, 10);   /* ceil(64 / 7) */
    const uint8_t *p = b;
    uint64_t v;
    assert_true(vi_get(&p, b + n, &v));
    assert_true(v == UINT64_MAX);
    /* a truncated value is not read */
    p = b;
    assert_false(vi_get(&p, b + 3, &v));
    /* strict: one encoding per value, and no more bits than asked */
    static const uint8_t overlong[] = {0x80, 0x00}, wide[] = {0xff, 0xff, 0xff, 0xff, 0x1f};
    p = overlong;
    assert_int_equal(vi_get_strict(&p, overlong + 2, 32, &v), -1);
    p = wide;
    assert_int_equal(vi_get_strict(&p, wide + 5, 32, &v), -1);   /* 35 bits */
    static const uint8_t max32[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    p = max32;
    assert_int_equal(vi_get_strict(&p, max32 + 5, 32, &v), 0);
    assert_true(v == UINT32_MAX);
}

static void test_zigzag(void **state) {
    (void)state;
    assert_int_equal(vi_zz(0), 0);
    assert_int_equal(vi_zz(-1), 1);
    assert_int_equal(vi_zz(1), 2);
    assert_int_equal(vi_zz(-2), 3);
    assert_true(vi_zz(INT64_MIN) == UINT64_MAX);
    assert_true(vi_unzz(UINT64_MAX) == INT64_MIN);
    assert_int_equal(vi_zz32(UINT32_MAX), 1);   /* -1 */
    assert_int_equal(vi_unzz32(3), (uint32_t)-2);
}

/* two values a bin: each the zigzag'd difference from the bin before's */
static void test_series(void **state) {
    (void)state;
    const int64_t v[] = {5, 7, 5, 7, 4, 9};
    uint8_t b[64];
    size_t n = vi_series_put(b, v, 6, 2);
    /* 5 -> 10, 7 -> 14, then 0, 0, then -1 -> 1, +2 -> 4 */
    static const uint8_t want[] = {10, 14, 0, 0, 1, 4};
    assert_int_equal(n, sizeof want);
    assert_memory_equal(b, want, sizeof want);
    int64_t back[6];
    assert_int_equal(vi_series_get(b, n, back, 3, 3, 2), 3);
    assert_memory_equal(back, v, sizeof v);
    assert_int_equal(vi_series_get(b, n, back, 3, 1, 2), 1);   /* stop after one bin */
    assert_int_equal(vi_series_get(b, n, back, 2, 3, 2), -1);  /* more bins than room */
    assert_int_equal(vi_series_get(b, 5, back, 3, 3, 2), -1);  /* half a bin */
    assert_int_equal(vi_series_get(NULL, 0, back, 3, 3, 2), 0);
}

static void test_bins(void **state) {
    (void)state;
    assert_int_equal(lvl_bin(0, 3), 0);
    assert_int_equal(lvl_bin(7, 3), 0);
    assert_int_equal(lvl_bin(8, 3), 1);
    assert_int_equal(lvl_bin(-1, 3), -1);
    assert_int_equal(lvl_bin(-8, 3), -1);
    assert_int_equal(lvl_bin(-9, 3), -2);
    assert_true(lvl_bin(INT64_MIN, 62) == -2);
    assert_int_equal(lvl_start(-2, 3), -16);
}

static void after_len(const void *ctx, int z, bool after, int64_t *v) {
    if (!after) return;
    v[0] = *(const int64_t *)ctx * ((int64_t)1 << z);
    v[1] = *(const int64_t *)ctx;
}

static void test_coarsen(void **state) {
    (void)state;
    /* bins -1, 0, 1 of level 0, one cell each: sum, max, max0, first */
    const lvl_kind K = {4, {LVL_SUM, LVL_MAX, LVL_MAX0, LVL_FIRST}, NULL};
    int64_t v[] = {1, -5, -5, 11,   2, -3, -3, 12,   4, -7, -7, 13};
    lvl l = {0, -1, 3, 1, v}, up;
    assert_int_equal(lvl_coarsen(&K, NULL, &l, &up, NULL), 0);
    assert_int_equal(up.z, 1);
    assert_int_equal(up.k0, -1);   /* bin -1 of level 1 is bins -2, -1 */
    assert_int_equal(up.nb, 2);
    /* bin -1: (-2: nothing) + (-1); bin 0: bins 0 and 1 */
    const int64_t want[] = {1, 0, 0, 0,   6, -3, 0, 12};
    assert_memory_equal(up.v, want, sizeof want);
    free(up.v);
    /* a queue's length after its last event (qpyramid.c): the last length */
    const lvl_kind Q = {2, {LVL_SUM, LVL_MAX}, after_len};
    int64_t q[] = {3, 2}, last = 5;
    lvl ql = {4, 0, 1, 1, q};
    assert_int_equal(lvl_coarsen(&Q, &last, &ql, &up, NULL), 0);
    assert_int_equal(up.nb, 1);
    assert_int_equal(up.v[0], 3 + 5 * 16);
    assert_int_equal(up.v[1], 5);
    free(up.v);
}

/* past the stored bins: ctx a ns (an integral of 2^z ns), ctx at most,
 * 100 + ctx running */
static void after_first(const void *ctx, int z, bool after, int64_t *v) {
    if (!after) return;
    int64_t c = *(const int64_t *)ctx;
    v[0] = c * ((int64_t)1 << z);
    v[1] = c;
    v[2] = 100 + c;
}

static void test_fold(void **state) {
    (void)state;
    /* stored level 2 bins 3..5 (integral, max); bin 1 of level 4 is bins
     * 4..7 of level 2: 4 and 5 stored, 6 and 7 past them */
    const lvl_kind Q = {2, {LVL_SUM, LVL_MAX}, after_len};
    const int64_t v[] = {8, 2,   4, 1,   12, 3};
    int64_t last = 2, out[2];
    lvl_fold(&Q, &last, v, 3, 3, 2, 2, 1, out);
    assert_int_equal(out[0], 4 + 12 + 2 * (2 * 4));
    assert_int_equal(out[1], 3);
    /* before the stored bins: nothing */
    lvl_fold(&Q, &last, v, 3, 3, 2, 2, -1, out);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0);
    /* with a first value, and an outside cell whose maximum passes the
     * stored ones (7 against 3): stored level 2 bins 3..5 as above, with
     * what ran at each bin's start 30, 40, 50; past them 7 a ns, 7 at
     * most, 107 running */
    const lvl_kind F = {3, {LVL_SUM, LVL_MAX, LVL_FIRST}, after_first};
    const int64_t f[] = {8, 2, 30,   4, 1, 40,   12, 3, 50};
    int64_t seven = 7, o3[3];
    /* bin 1 of level 4 (level-2 bins 4..7): 4 and 5 stored, 6 and 7 past;
     * what runs at its start is bin 4's */
    lvl_fold(&F, &seven, f, 3, 3, 2, 2, 1, o3);
    assert_int_equal(o3[0], 4 + 12 + 2 * (7 * 4));
    assert_int_equal(o3[1], 7);
    assert_int_equal(o3[2], 40);
    /* bin 2 (8..11), wholly past the stored: four bins of the outside */
    lvl_fold(&F, &seven, f, 3, 3, 2, 2, 2, o3);
    assert_int_equal(o3[0], 4 * (7 * 4));
    assert_int_equal(o3[1], 7);
    assert_int_equal(o3[2], 107);
    /* bin 0 (0..3): only bin 3 stored, and no stored bin at its start */
    lvl_fold(&F, &seven, f, 3, 3, 2, 2, 0, o3);
    assert_int_equal(o3[0], 8);
    assert_int_equal(o3[1], 2);
    assert_int_equal(o3[2], 0);
}

static void test_window(void **state) {
    (void)state;
    lvl_window w;
    char err[128];
    /* 1000 ns in 10 bins: 128 ns bins (100 would do; 2^7 is the first power
     * at least that), from bin 0 to bin 7 */
    assert_int_equal(lvl_window_of("t", 0, 1000, 10, 1, 0, 40, 100, &w, err, sizeof err), 0);
    assert_int_equal(w.z, 7);
    assert_int_equal(w.k0, 0);
    assert_int_equal(w.nbins, 8);
    /* never finer than the stored z0 */
    assert_int_equal(lvl_window_of("t", 0, 1000, 10, 9, 12, 40, 100, &w, err, sizeof err), 0);
    assert_int_equal(w.z, 9);
    /* too many bins: the asker's error, DB_TOO_WIDE (level.h; HTTP 400) */
    assert_int_equal(lvl_window_of("t", 0, 1000, 1000, 0, 12, 40, 100, &w, err, sizeof err),
                     DB_TOO_WIDE);
    assert_non_null(strstr(err, "at most 100"));
    assert_int_equal(lvl_window_args("t", 5, 5, 1, err, sizeof err), -1);
    /* a span of exactly want bins of 2^z: that z, want bins, none more */
    assert_int_equal(lvl_window_of("t", 0, 1024, 8, 1, 0, 40, 8, &w, err, sizeof err), 0);
    assert_int_equal(w.z, 7);
    assert_int_equal(w.bin_ns, 128);
    assert_int_equal(w.nbins, 8);
    /* one bin more than the most allowed, one level past the largest */
    assert_int_equal(lvl_window_of("t", 0, 1024, 8, 1, 0, 40, 7, &w, err, sizeof err),
                     DB_TOO_WIDE);
    assert_string_equal(err, "t: 8 bins asked, at most 7");
    assert_int_equal(lvl_window_of("t", 0, 1000, 10, 1, 0, 7, 100, &w, err, sizeof err), 0);
    assert_int_equal(lvl_window_of("t", 0, 1000, 10, 1, 0, 6, 100, &w, err, sizeof err),
                     DB_TOO_WIDE);
    assert_string_equal(err, "t: bins of 2^7 ns are wider than the largest, 2^6 ns");
    /* the arguments: from < to and at least one bin */
    assert_int_equal(lvl_window_args("t", 0, 5, 1, err, sizeof err), 0);
    assert_int_equal(lvl_window_args("t", 0, 5, 0, err, sizeof err), -1);
    assert_string_equal(err, "t: need from < to and bins >= 1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leb128),  cmocka_unit_test(test_zigzag),
        cmocka_unit_test(test_series),  cmocka_unit_test(test_bins),
        cmocka_unit_test(test_coarsen), cmocka_unit_test(test_fold),
        cmocka_unit_test(test_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
