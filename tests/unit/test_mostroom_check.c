/* test_mostroom_check.c -- the CPU half of tools/recorder's most-room
 * experiment (schedlab-mostroom, mostroom.cu): the placement check that
 * labels each recorded run serial / concurrent-isolated / concurrent-
 * colocated from its %smid, the statistics of the runs, and the shapes the
 * driver launches, which must force the placement the most-room paper's
 * §5.1 describes (Fig. 1: A on every SM but one; B all on the empty SM, or
 * spread one per SM beside A) under the rules measured on the H100
 * (most-room with the recorded SM order, H100-C1's carveout,
 * tests/fixtures/h100/). The GPU run itself checks the same on the
 * hardware, run by run (its summary's placement_ok column); this test is
 * what can be checked before a GPU is lent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../server/formats/scenario.h"
#include "../../tools/recorder/mostroom_check.h"

#define NA 131
#define NB 8

/* A: block i on SM i+1 (SM 0 left empty), 0-20 ms. */
static void a_spread(mr_blk *a) {
    for (int i = 0; i < NA; i++) a[i] = (mr_blk){0, 20000000, (uint32_t)(i + 1)};
}

static void test_serial(void **state) {
    (void)state;
    mr_blk a[NA], b[NB];
    a_spread(a);
    /* after A: B on 8 SMs, some of them A's, but A has ended */
    for (int i = 0; i < NB; i++) b[i] = (mr_blk){21000000, 22000000, (uint32_t)(i + 1)};
    mr_place p = mr_check(MR_SERIAL, a, NA, b, NB);
    assert_int_equal(p.a_sms, NA);
    assert_int_equal(p.b_sms, NB);
    assert_int_equal(p.b_beside_a, 0);
    assert_true(p.ok);
    /* B on one SM is not the paper's serial case ("scheduled to separate SMs") */
    for (int i = 0; i < NB; i++) b[i].sm = 5;
    assert_false(mr_check(MR_SERIAL, a, NA, b, NB).ok);
}

static void test_isolated_and_colocated(void **state) {
    (void)state;
    mr_blk a[NA], b[NB];
    a_spread(a);
    /* isolated: all of B on the empty SM 0 while A runs */
    for (int i = 0; i < NB; i++) b[i] = (mr_blk){100000, 5000000, 0};
    mr_place p = mr_check(MR_ISOLATED, a, NA, b, NB);
    assert_int_equal(p.b_sms, 1);
    assert_int_equal(p.b_beside_a, 0);
    assert_true(p.ok);
    assert_false(mr_check(MR_COLOCATED, a, NA, b, NB).ok);
    /* colocated: B0 on the empty SM, B1-B7 one per SM beside A */
    for (int i = 1; i < NB; i++) b[i].sm = (uint32_t)(10 + i);
    p = mr_check(MR_COLOCATED, a, NA, b, NB);
    assert_int_equal(p.b_sms, NB);
    assert_int_equal(p.b_beside_a, NB - 1);
    assert_true(p.ok);
    assert_false(mr_check(MR_ISOLATED, a, NA, b, NB).ok);
    /* one B block beside A is no longer isolated (the paper's 9-block
     * variant, §5.2: "one block of Kernel B being assigned to an SM other
     * than 67") */
    for (int i = 0; i < NB; i++) b[i].sm = 0;
    b[7].sm = 3;
    p = mr_check(MR_ISOLATED, a, NA, b, NB);
    assert_int_equal(p.b_beside_a, 1);
    assert_false(p.ok);
    /* sharing an SM only counts while both run: B7 after A's block ended */
    b[7].start = 20000001;
    b[7].end = 21000000;
    assert_int_equal(mr_check(MR_ISOLATED, a, NA, b, NB).b_beside_a, 0);
    /* A doubled up on one SM: no configuration's placement */
    a[5].sm = a[6].sm;
    for (int c = 0; c < 3; c++) assert_false(mr_check((mr_config)c, a, NA, b, NB).ok);
}

static void test_times_and_stats(void **state) {
    (void)state;
    mr_blk a[2] = {{100, 500, 1}, {50, 400, 2}}, b[1] = {{450, 900, 0}};
    assert_int_equal(mr_span(a, 2), 450);
    assert_int_equal(mr_span(b, 1), 450);
    assert_int_equal(mr_total(a, 2, b, 1), 850);
    double x[4] = {1, 2, 3, 4}, m, cv;
    mr_stats(x, 4, &m, &cv);
    assert_true(m == 2.5);
    assert_true(cv > 0.516397 && cv < 0.516398);   /* sqrt(5/3) / 2.5 */
    mr_stats(x, 1, &m, &cv);
    assert_true(m == 1 && cv == 0);
    double odd[3] = {5, 1, 3}, even[4] = {4, 1, 3, 2}, ties[5] = {2, 2, 2, 1, 9};
    assert_int_equal(mr_median_index(odd, 3), 2);
    assert_int_equal(mr_median_index(even, 4), 3);   /* the lower median, 2 */
    assert_int_equal(mr_median_index(ties, 5), 1);   /* stable order 1, x0, [x1], x2, 9 */
}

/* The driver's shapes on the h100 preset: A (n-1 blocks of 1024 threads,
 * `a_smem` KB of shared memory) and B (8 blocks of `bthreads`) issued
 * 0.1 ms later, simulated; the blocks through mr_check. */
static mr_place simulate_shapes(int a_smem, int bthreads, mr_config c) {
    char json[1024], err[512] = "";
    snprintf(json, sizeof json,
             "{\"schema\": \"schedlab-scenario/1\", \"name\": \"mostroom shapes\", \"device\": "
             "\"h100\", \"streams\": [{\"name\": \"sA\"}, {\"name\": \"sB\"}], \"ops\": ["
             "{\"kernel\": \"A\", \"stream\": \"sA\", \"at\": \"0ms\", \"blocks\": 131, "
             "\"threads\": 1024, \"smem\": \"%dKB\", \"block_time\": \"20ms\"},"
             "{\"kernel\": \"B\", \"stream\": \"sB\", \"at\": \"%s\", \"blocks\": 8, "
             "\"threads\": %d, \"block_time\": \"5ms\"}]}",
             a_smem, c == MR_SERIAL ? "30ms" : "0.1ms", bthreads);
    scn_scenario *s = NULL;
    if (scn_parse(json, strlen(json), "shapes", &s, err, sizeof err)) fail_msg("%s", err);
    sim_config cfg;
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    trace t;
    trace_init(&t);
    if (sim_run(&cfg, &t, err, sizeof err)) fail_msg("%s", err);
    mr_blk a[NA], b[NB];
    int na = 0, nb = 0;
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *x = &t.blocks.v[i];
        mr_blk v = {(uint64_t)x->start, (uint64_t)x->end, (uint32_t)x->sm};
        if (x->kernel == 0) a[na++] = v;
        else b[nb++] = v;
    }
    assert_int_equal(na, NA);
    assert_int_equal(nb, NB);
    trace_free(&t);
    scn_free(s);
    return mr_check(c, a, NA, b, NB);
}

static void test_shapes_force_the_placement(void **state) {
    (void)state;
    /* the driver's shapes (mostroom.cu: A 16 KB, B 32 or 33 threads) give
     * each configuration's placement */
    assert_true(simulate_shapes(16, 32, MR_SERIAL).ok);
    assert_true(simulate_shapes(16, 33, MR_ISOLATED).ok);
    mr_place p = simulate_shapes(16, 32, MR_COLOCATED);
    assert_true(p.ok);
    assert_int_equal(p.b_beside_a, 7);
    /* why A takes 16 KB: without shared memory A's SMs are configured to
     * 8 KB (H100-C1, probe c1-j), below the 32 KB B asks, so B (32
     * threads) cannot join them and all 8 blocks go to the empty SM */
    p = simulate_shapes(0, 32, MR_COLOCATED);
    assert_false(p.ok);
    assert_int_equal(p.b_sms, 1);
    /* and with 8 KB (configured 32 KB, 23 KB left) the empty SM keeps the
     * most room (31 down to 24, against 23 by shared memory) for all 8 */
    p = simulate_shapes(8, 32, MR_COLOCATED);
    assert_false(p.ok);
    assert_int_equal(p.b_sms, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serial),
        cmocka_unit_test(test_isolated_and_colocated),
        cmocka_unit_test(test_times_and_stats),
        cmocka_unit_test(test_shapes_force_the_placement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
