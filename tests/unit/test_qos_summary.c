/* test_qos_summary.c -- a sweep's summaries (server/app/qos_sweep.c
 * summarise, reached through qos_merge): ISCA'17 §4.1's QoSreach ("# of
 * Success Cases / # of Total Cases") and normalised throughput ("only the
 * cases that meet the QoS goal are included"), Fig. 5's misses by
 * shortfall and Fig. 9's overshoot, with the bins and the trio rules
 * docs/qos.md gives. The points are written by hand, so every expected
 * number is the definition's arithmetic on them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "../../server/app/qos_sweep.h"

/* a one-shard result of one group, scheme "s", the goals given (a JSON
 * list) and the points given (pair 0 each, one a goal) */
static json_t *result_of(const char *goals, const char *points) {
    char text[4096];
    snprintf(text, sizeof text,
             "{\"spec\":{\"pairs\":[[\"A\",\"B\"]],\"schemes\":[{\"name\":\"s\"}],"
             "\"goals\":%s},\"schemes\":[\"s\"],\"goals\":%s,"
             "\"points\":[%s]}", goals, goals, points);
    json_error_t je;
    json_t *r = json_loads(text, 0, &je);
    if (!r) fail_msg("%s", je.text);
    return r;
}

static json_t *summarised(const char *goals, const char *points) {
    json_t *r = result_of(goals, points), *m = NULL;
    char err[256] = "";
    if (qos_merge(&r, 1, &m, err, sizeof err)) fail_msg("%s", err);
    json_decref(r);
    return m;
}

/* summary `key`'s entry for scheme "s" */
static json_t *of_s(json_t *m, const char *key) {
    return json_object_get(json_object_get(m, key), "s");
}

/* Fig. 5's count of misses in bin b */
static json_int_t misses(json_t *m, size_t b) {
    return json_integer_value(json_array_get(of_s(m, "misses"), b));
}

static double num(json_t *o, const char *key) {
    json_t *v = of_s(o, key);
    if (!json_is_number(v)) fail_msg("%s.s is not a number", key);
    return json_number_value(v);
}

static void assert_near(double got, double want) {
    if (!(got > want - 1e-9 && got < want + 1e-9)) fail_msg("%.12g, not %.12g", got, want);
}

/* A pair: goal 0.5 met with throughput 0.8, attained 0.6; goal 0.9 missed
 * at attained 0.87 (shortfall 1 - 0.87 / 0.9 = 3.3 %, the first bin). */
static void test_pair(void **state) {
    (void)state;
    json_t *m = summarised("[0.5,0.9]",
        "{\"pair\":0,\"scheme\":\"s\",\"goal\":0.5,\"qos_met\":true,\"attained\":0.6,"
        "\"throughput\":0.8},"
        "{\"pair\":0,\"scheme\":\"s\",\"goal\":0.9,\"qos_met\":false,\"attained\":0.87,"
        "\"throughput\":0.2}");
    /* one success of two cases */
    assert_near(num(m, "qosreach"), 0.5);
    /* the met case's throughput alone, not (0.8 + 0.2) / 2 */
    assert_near(num(m, "throughput"), 0.8);
    /* Fig. 9: 0.6 / 0.5 - 1 */
    assert_near(num(m, "overshoot"), 0.2);
    json_t *by = of_s(m, "qosreach_by_goal");
    assert_near(json_number_value(json_array_get(by, 0)), 1.0);
    assert_near(json_number_value(json_array_get(by, 1)), 0.0);
    json_t *tg = of_s(m, "throughput_by_goal");
    assert_near(json_number_value(json_array_get(tg, 0)), 0.8);
    assert_true(json_is_null(json_array_get(tg, 1)));   /* no met case at 0.9 */
    /* Fig. 5's bins: (0, 5 %], (5, 10 %], (10, 20 %], over 20 % */
    json_t *edges = json_object_get(m, "shortfall_bins");
    assert_int_equal(json_array_size(edges), 3);
    assert_int_equal(json_array_size(of_s(m, "misses")), 4);
    assert_int_equal(misses(m, 0), 1);
    for (size_t b = 1; b < 4; b++) assert_int_equal(misses(m, b), 0);
    json_decref(m);
}

/* Each bin in turn, the last one (over 20 %) too: misses at goals 0.5,
 * 0.6, 0.7 and 0.9 with shortfalls 4 %, 8 %, 15 % and 22 % */
static void test_bins(void **state) {
    (void)state;
    json_t *m = summarised("[0.5,0.6,0.7,0.9]",
        "{\"pair\":0,\"scheme\":\"s\",\"goal\":0.5,\"qos_met\":false,\"attained\":0.48,"
        "\"throughput\":1},"
        "{\"pair\":0,\"scheme\":\"s\",\"goal\":0.6,\"qos_met\":false,\"attained\":0.552,"
        "\"throughput\":1},"
        "{\"pair\":0,\"scheme\":\"s\",\"goal\":0.7,\"qos_met\":false,\"attained\":0.595,"
        "\"throughput\":1},"
        "{\"pair\":0,\"scheme\":\"s\",\"goal\":0.9,\"qos_met\":false,\"attained\":0.702,"
        "\"throughput\":1}");
    for (size_t b = 0; b < 4; b++)
        if (misses(m, b) != 1) fail_msg("misses[%zu] = %lld, not 1", b, (long long)misses(m, b));
    assert_near(num(m, "qosreach"), 0.0);
    assert_true(json_is_null(of_s(m, "throughput")));
    assert_true(json_is_null(of_s(m, "overshoot")));
    json_decref(m);
}

/* A trio's two QoS kernels (docs/qos.md, summarise): a miss counts the
 * shortfall of the one further below, a met point's overshoot is both
 * kernels' averaged. */
static void test_trio(void **state) {
    (void)state;
    json_t *m = summarised("[0.5,0.9]",
        "{\"pair\":0,\"scheme\":\"s\",\"goal\":0.5,\"qos_met\":true,\"attained\":0.55,"
        "\"attained2\":0.65,\"throughput\":0.5},"
        "{\"pair\":0,\"scheme\":\"s\",\"goal\":0.9,\"qos_met\":false,\"attained\":0.88,"
        "\"attained2\":0.7,\"throughput\":0.5}");
    /* (0.55 / 0.5 - 1 + 0.65 / 0.5 - 1) / 2 = (0.1 + 0.3) / 2 */
    assert_near(num(m, "overshoot"), 0.2);
    /* the second kernel's 1 - 0.7 / 0.9 = 22 %, not the first's 2.2 % */
    assert_int_equal(misses(m, 0), 0);
    assert_int_equal(misses(m, 3), 1);
    json_decref(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair),
        cmocka_unit_test(test_bins),
        cmocka_unit_test(test_trio),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
