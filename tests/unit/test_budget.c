/* test_budget.c -- a request's work budget (server/http/budget.h, issues
 * 16 and 31): `serve --budget`'s syntax, the one-pass count of a body's
 * arrays before it is parsed, the estimate of a scenario's work and the
 * refusal that names each limit passed. Every expected number is worked
 * out by hand from budget.h's definitions, written beside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../server/http/budget.h"

/* ---- serve --budget KEY=N,... ------------------------------------------------ */

/* the defaults docs/cli.md gives for each key */
static void test_defaults(void **state) {
    (void)state;
    budget b;
    memset(&b, 0, sizeof b);
    budget_default(&b);
    assert_int_equal(b.blocks, 20000000);
    assert_int_equal(b.ops, 200000);
    assert_int_equal(b.variants, 64);
    assert_int_equal(b.events, 100000000);
    assert_int_equal(b.seconds, 1000000);
    assert_int_equal(b.streams, 4096);
    assert_int_equal(b.processes, 256);
    assert_int_equal(b.tasks, 4096);
    assert_int_equal(b.sync_events, 200000);
    assert_int_equal(b.sync_bytes, 4194304);
    assert_int_equal(b.queue, 16);
    assert_int_equal(b.workers, 1);
    assert_int_equal(b.sweep_analyses, 5000000);
    assert_int_equal(b.sweep_cycles, 25000000);
    assert_int_equal(b.sweep_threads, 2);
}

static void test_parse(void **state) {
    (void)state;
    budget b;
    char err[512];
    budget_default(&b);
    /* every key sets its own field */
    assert_int_equal(budget_parse("blocks=1,ops=2,variants=3,events=4,seconds=5,sync=6,"
                                  "sync_bytes=7,queue=8,workers=9,streams=10,processes=11,"
                                  "tasks=12,sweep_analyses=13,sweep_cycles=14,sweep_threads=15",
                                  &b, err, sizeof err), 0);
    const long long got[] = { b.blocks, b.ops, b.variants, b.events, b.seconds, b.sync_events,
                              b.sync_bytes, b.queue, b.workers, b.streams, b.processes, b.tasks,
                              b.sweep_analyses, b.sweep_cycles, b.sweep_threads };
    for (int i = 0; i < 15; i++) assert_int_equal(got[i], i + 1);
    /* a key left out keeps its value; an empty spec sets nothing */
    budget_default(&b);
    assert_int_equal(budget_parse("ops=7", &b, err, sizeof err), 0);
    assert_int_equal(b.ops, 7);
    assert_int_equal(b.blocks, 20000000);
    assert_int_equal(budget_parse("", &b, err, sizeof err), 0);
    assert_int_equal(b.ops, 7);
    /* 18 digits at most: 999999999999999999 is the largest */
    assert_int_equal(budget_parse("events=999999999999999999", &b, err, sizeof err), 0);
    assert_int_equal(b.events, 999999999999999999LL);
    assert_int_equal(budget_parse("blocks=0", &b, err, sizeof err), 0);
    assert_int_equal(b.blocks, 0);
    /* workers and queue 1..64, sweep_threads 1..256: both ends taken */
    assert_int_equal(budget_parse("workers=64,queue=1,sweep_threads=256", &b, err, sizeof err), 0);
    assert_int_equal(b.workers, 64);
    assert_int_equal(b.queue, 1);
    assert_int_equal(b.sweep_threads, 256);
}

static void expect_refused(const char *spec, const char *want) {
    budget b;
    char err[512] = "";
    budget_default(&b);
    assert_int_equal(budget_parse(spec, &b, err, sizeof err), -1);
    assert_string_equal(err, want);
}

static void test_parse_refused(void **state) {
    (void)state;
    expect_refused("blockz=5", "--budget: \"blockz=5\": expected KEY=N with KEY one of blocks, "
                               "ops, variants, events, seconds, streams, processes, tasks, sync, "
                               "sync_bytes, queue, workers, sweep_analyses, sweep_cycles, "
                               "sweep_threads");
    expect_refused("ops=1,blocks", "--budget: \"blocks\": expected KEY=N with KEY one of blocks, "
                                   "ops, variants, events, seconds, streams, processes, tasks, "
                                   "sync, sync_bytes, queue, workers, sweep_analyses, "
                                   "sweep_cycles, sweep_threads");
    /* digits alone (docs/cli.md): no sign, exponent, hex, space or fraction */
    static const char *const not_digits[] = { "ops=+5", "ops=1e3", "ops=0x10", "ops= 5", "ops=5 ",
                                              "ops=1.5", "ops=", "ops=-1" };
    for (size_t i = 0; i < sizeof not_digits / sizeof *not_digits; i++) {
        char want[256];
        snprintf(want, sizeof want, "--budget: ops: expected a whole number 0..999999999999999999 "
                 "in digits, got \"%s\"", not_digits[i] + 4);
        expect_refused(not_digits[i], want);
    }
    expect_refused("events=1000000000000000000", "--budget: events: expected a whole number "
                   "0..999999999999999999 in digits, got \"1000000000000000000\"");
    expect_refused("workers=0", "--budget: workers: expected a whole number 1..64 in digits, got "
                   "\"0\"");
    expect_refused("queue=65", "--budget: queue: expected a whole number 1..64 in digits, got "
                   "\"65\"");
    expect_refused("sweep_threads=257", "--budget: sweep_threads: expected a whole number 1..256 "
                   "in digits, got \"257\"");
    expect_refused("sweep_threads=0", "--budget: sweep_threads: expected a whole number 1..256 "
                   "in digits, got \"0\"");
    /* each key once, as an option is */
    expect_refused("ops=1,blocks=2,ops=3", "--budget: ops given twice");
    expect_refused("sweep_threads=2,sweep_threads=2", "--budget: sweep_threads given twice");
    /* an item past 95 characters */
    char long_item[128];
    memset(long_item, '9', sizeof long_item);
    memcpy(long_item, "ops=", 4);
    long_item[96] = '\0';
    expect_refused(long_item, "--budget: \"ops=999999999999999999999999999999999999...\" is too "
                              "long");
    long_item[95] = '\0';   /* 95: read, and refused for its 91 digits */
    char want[256];
    snprintf(want, sizeof want, "--budget: ops: expected a whole number 0..999999999999999999 in "
             "digits, got \"%s\"", long_item + 4);
    expect_refused(long_item, want);
}

/* ---- the count before the parse (issue 31) ----------------------------------------- */

static void test_prescan(void **state) {
    (void)state;
    static const struct {
        const char *why, *text;
        long long streams, ops, variants, tasks;
    } cases[] = {
        { "the elements of the top-level arrays streams, ops, variants, tasks",
          "{\"streams\": [{\"name\": \"S1\"}, {\"name\": \"S2\"}], \"ops\": [1, 2, 3],"
          " \"variants\": [ ], \"tasks\": [\"t\"]}", 2, 3, 0, 1 },
        { "commas, brackets and escaped quotes inside strings are text; commas of nested "
          "arrays and objects are not elements",
          "{\"ops\": [{\"kernel\": \"a,b]\\\",[\", \"block_time\": [\"1s\", \"2s\"]},"
          " {\"sync\": \"x\"}], \"name\": \"ops\"}", 0, 2, 0, 0 },
        { "only the top level's keys count: an array \"ops\" inside an object does not",
          "{\"device\": {\"ops\": [1, 2, 3, 4]}, \"variants\": [{\"ops\": [1, 2]}, {}]}",
          0, 0, 2, 0 },
        { "whitespace of every kind before an element; an empty array across lines",
          "{\"tasks\":[\n\t\r 7], \"streams\": [\n\t\r\n]}", 0, 0, 0, 1 },
        { "a key is the whole name: \"op\" and \"stream\" are not ops and streams",
          "{\"op\": [1, 2], \"stream\": [3], \"opsx\": [4]}", 0, 0, 0, 0 },
        { "an array's count ends with it: the commas of an object after it are not its",
          "{\"ops\": [1], \"device\": {\"a\": 1, \"b\": 2}}", 0, 1, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        budget_work w;
        memset(&w, 0x5a, sizeof w);   /* every field is written */
        budget_prescan(cases[i].text, strlen(cases[i].text), &w);
        if (w.streams != cases[i].streams || w.ops != cases[i].ops ||
            w.variants != cases[i].variants || w.tasks != cases[i].tasks)
            fail_msg("%s: streams %lld, ops %lld, variants %lld, tasks %lld", cases[i].why,
                     w.streams, w.ops, w.variants, w.tasks);
        assert_int_equal(w.blocks, 0);
        assert_int_equal(w.events, 0);
        assert_false(w.cohorts);
    }
}

/* ---- the estimate ----------------------------------------------------------------- */

static scn_scenario *parse(const char *json) {
    scn_scenario *s = NULL;
    char err[512];
    if (scn_parse(json, strlen(json), "t.json", &s, err, sizeof err)) fail_msg("%s", err);
    return s;
}

static void test_estimate(void **state) {
    (void)state;
    /* the TX2's 2 SMs, then 4 (a variant); streams of processes A, B, A */
    scn_scenario *s = parse(
        "{\"schema\": \"schedlab-scenario/1\", \"device\": \"tx2\","
        " \"policy\": {\"launch_latency\": \"10us\", \"dispatch_latency\": \"1us\"},"
        " \"streams\": [{\"name\": \"S1\", \"process\": \"A\"},"
        "              {\"name\": \"S2\", \"process\": \"B\"},"
        "              {\"name\": \"S3\", \"process\": \"A\"}],"
        " \"ops\": [{\"kernel\": \"K1\", \"stream\": \"S1\", \"at\": \"3ms\", \"blocks\": 5,"
        "            \"threads\": 256, \"block_time\": \"2ms\"},"
        "           {\"kernel\": \"K2\", \"stream\": \"S2\", \"at\": \"1ms\", \"blocks\": 4,"
        "            \"threads\": 256, \"block_time\": [\"3ms\", \"1ms\"]}],"
        " \"variants\": [{\"name\": \"four\", \"device\": {\"sms\": 4}}]}");
    budget_work w;
    char err[256];
    assert_int_equal(budget_estimate(s, &w, err, sizeof err), 0);
    sim_config cfg;
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    assert_int_equal(w.variants, 1);
    assert_int_equal(w.ops, 2);
    assert_int_equal(w.blocks, 18);            /* (5 + 4) blocks x 2 runs */
    assert_int_equal(w.events, 52);            /* (2 x 9 + 4 x 2) x 2 runs */
    assert_int_equal(w.streams, (long long)cfg.nstreams);
    assert_true(w.streams >= 3);
    assert_int_equal(w.processes, 2);          /* A and B */
    assert_int_equal(w.tasks, 0);
    assert_false(w.cohorts);
    /* the longer run, on 2 SMs: the latest issue (K1's 3 ms, though K2 is
     * listed after it), K1's 3 waves of 2 ms + 1 us and K2's 2 waves of its
     * longest block time, 3 ms + 1 us, and each kernel's launch latency,
     * 10 us: 15.025 ms (on 4 SMs: 3 + 2 x 2.001 + 3.001 + 0.02 = 10.023 ms) */
    assert_true(w.seconds > 0.015025 - 1e-12 && w.seconds < 0.015025 + 1e-12);
    scn_free(s);

    /* with cohorts a kernel of one block time costs records: one per SM
     * for its first wave, and for its last when it has more than one (TX2:
     * 8 blocks of 256 threads fit an SM, 16 a wave) */
    s = parse("{\"schema\": \"schedlab-scenario/1\", \"device\": \"tx2\", \"cohorts\": true,"
              " \"ops\": [{\"kernel\": \"K1\", \"blocks\": 100, \"threads\": 256,"
              "            \"block_time\": \"1ms\"},"
              "           {\"kernel\": \"K2\", \"blocks\": 16, \"threads\": 256,"
              "            \"block_time\": \"1ms\"},"
              "           {\"kernel\": \"K3\", \"blocks\": 1, \"threads\": 256,"
              "            \"block_time\": \"1ms\"},"
              "           {\"kernel\": \"K4\", \"blocks\": 40, \"threads\": 256,"
              "            \"block_time\": [\"1ms\", \"2ms\"]}]}");
    assert_int_equal(budget_estimate(s, &w, err, sizeof err), 0);
    assert_true(w.cohorts);
    assert_int_equal(w.blocks, 4 + 2 + 1 + 40);   /* K3: fewer blocks than SMs; K4: two times */
    assert_int_equal(w.events, 2 * 47 + 4 * 4);
    scn_free(s);
}

/* ---- the refusal -------------------------------------------------------------------- */

static void test_check(void **state) {
    (void)state;
    budget b;
    budget_default(&b);
    budget_work w = { .blocks = b.blocks, .ops = b.ops, .variants = b.variants, .events = b.events,
                      .seconds = (double)b.seconds, .streams = b.streams, .processes = b.processes,
                      .tasks = b.tasks };
    assert_null(budget_check(&b, &w));   /* at every limit: fits */
    w.ops = b.ops + 1;
    w.tasks = b.tasks + 1;
    json_t *j = budget_check(&b, &w);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "error")),
                        "scenario: too much work for one request: ops: 200001 is over the limit "
                        "of 200000; tasks: 4097 is over the limit of 4096 (serve --budget sets "
                        "the limits)");
    json_t *work = json_object_get(j, "work");
    assert_int_equal(json_integer_value(json_object_get(work, "ops")), 200001);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "budget"), "tasks")),
                     4096);
    json_decref(j);
    /* each limit named for itself; blocks as records with cohorts */
    static const char *const names[] = { "blocks (all kernels' blocks times the runs)", "ops",
                                         "variants", "simulated events (estimated)",
                                         "simulated seconds (estimated)", "streams", "processes",
                                         "tasks" };
    for (int i = 0; i < 8; i++) {
        budget_work o = w;
        o.ops = b.ops;
        o.tasks = b.tasks;
        long long *f[] = { &o.blocks, &o.ops, &o.variants, &o.events, NULL, &o.streams,
                           &o.processes, &o.tasks };
        long long lim[] = { b.blocks, b.ops, b.variants, b.events, b.seconds, b.streams,
                            b.processes, b.tasks };
        if (f[i]) (*f[i])++;
        else o.seconds += 1;
        j = budget_check(&b, &o);
        assert_non_null(j);
        char want[512];
        snprintf(want, sizeof want, "scenario: too much work for one request: %s: %lld is over the "
                 "limit of %lld (serve --budget sets the limits)", names[i], lim[i] + 1, lim[i]);
        assert_string_equal(json_string_value(json_object_get(j, "error")), want);
        json_decref(j);
    }
    w = (budget_work){ .blocks = b.blocks + 1, .cohorts = true };
    j = budget_check(&b, &w);
    assert_string_equal(json_string_value(json_object_get(j, "error")),
                        "scenario: too much work for one request: block records (with cohorts: "
                        "about two a kernel and SM; all kernels', times the runs): 20000001 is "
                        "over the limit of 20000000 (serve --budget sets the limits)");
    json_decref(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_refused),
        cmocka_unit_test(test_prescan),
        cmocka_unit_test(test_estimate),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
