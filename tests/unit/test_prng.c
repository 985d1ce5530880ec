/* test_prng.c -- execution-time variation draws (issue 27, simcore/prng.h):
 * reproducible from the key alone, within [min, max], and with the moments
 * the distributions define (uniform: mean (min + max) / 2, variance
 * (max - min)^2 / 12; a normal truncated far in its tails: its mean and
 * sd), over 20,000 draws with 2% tolerance. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../simcore/prng.h"

#define N 20000

static void moments(const sim_dist *d, int64_t wcet, double *mean, double *sd) {
    double s = 0, s2 = 0;
    for (uint64_t i = 0; i < N; i++) {
        int64_t v = prng_draw(d, wcet, prng_key(42, 3, i, 1, 0));
        assert_true(v >= d->min && v <= d->max);
        s += (double)v;
        s2 += (double)v * (double)v;
    }
    *mean = s / N;
    *sd = sqrt(s2 / N - *mean * *mean);
}

static void test_none_is_the_wcet(void **state) {
    (void)state;
    sim_dist d = {0};
    assert_int_equal(prng_draw(&d, 1234, 99), 1234);
    assert_int_equal(prng_draw(NULL, 1234, 99), 1234);
}

static void test_reproducible(void **state) {
    (void)state;
    sim_dist d = {.kind = SIM_DIST_UNIFORM, .min = 1000, .max = 2000000};
    uint64_t k = prng_key(7, 1, 2, 3, 0);
    assert_int_equal(prng_draw(&d, 2000000, k), prng_draw(&d, 2000000, prng_key(7, 1, 2, 3, 0)));
    /* another job, another draw (almost surely) */
    int same = 0;
    for (uint64_t j = 0; j < 100; j++)
        same += prng_draw(&d, 2000000, prng_key(7, 1, j, 3, 0)) ==
                prng_draw(&d, 2000000, prng_key(7, 1, j + 1, 3, 0));
    assert_true(same < 3);
}

static void test_uniform(void **state) {
    (void)state;
    sim_dist d = {.kind = SIM_DIST_UNIFORM, .min = 5000000, .max = 10000000};
    double m, sd;
    moments(&d, d.max, &m, &sd);
    assert_true(fabs(m - 7500000.0) < 0.02 * 7500000.0);
    double want = 5000000.0 / sqrt(12.0);
    assert_true(fabs(sd - want) < 0.02 * want);
}

static void test_normal(void **state) {
    (void)state;
    /* +-5 sd inside [min, max]: the truncation is invisible */
    sim_dist d = {.kind = SIM_DIST_NORMAL, .min = 0, .max = 20000000, .mean = 10000000,
                  .sd = 1000000};
    double m, sd;
    moments(&d, d.max, &m, &sd);
    assert_true(fabs(m - 10000000.0) < 0.02 * 1000000.0 * 5);
    assert_true(fabs(sd - 1000000.0) < 0.02 * 1000000.0);
    /* truncated at the mean: every draw in [mean, max] */
    sim_dist t = d;
    t.min = t.mean;
    moments(&t, t.max, &m, &sd);
    assert_true(m > 10000000.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_none_is_the_wcet),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_normal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
