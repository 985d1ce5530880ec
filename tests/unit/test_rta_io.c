/* test_rta_io.c -- around the analysis: the schedlab-taskset/1 reader and a
 * scenario's tasks (server/formats/taskset.c), the taskset generator
 * (simcore/rta_gen.c) and sweeps cut into shards (server/app/sweep.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../server/app/sweep.h"
#include "../../server/formats/taskset.h"
#include "../../simcore/rta.h"
#include "../../simcore/rta_gen.h"

/* JSON written with ' for " */
static char *jq(const char *src) {
    char *s = strdup(src);
    assert_non_null(s);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    return s;
}

static int parse(const char *src, tset **out, char *err) {
    char *j = jq(src);
    int rc = tset_parse(j, strlen(j), "t.json", out, err, 512);
    free(j);
    return rc;
}

#define HEAD "{'schema': 'schedlab-taskset/1', 'cpus': 2, 'epsilon': '0.5ms', 'theta': '250us', " \
             "'time_slice': 1000000, 'tasks': ["

static void test_units_are_exact(void **state) {
    (void)state;
    char err[512] = "";
    tset *t;
    int rc = parse(HEAD "{'name': 'a', 'cpu': 1, 'priority': 50, 'period': '0.1s', "
                   "'deadline': '99.5ms', 'cpu_segments': ['1ms', '250us', '3ns', 7], "
                   "'gpu_segments': [{'misc': '1.5us', 'exec': '2ms'}]},"
                   "{'cpu': 0, 'best_effort': true, 'period': '1s', 'cpu_segments': ['1ms']},"
                   "{'name': 'c', 'cpu': 0, 'priority': 7, 'gpu_priority': 3, 'period': '1s', "
                   "'gpu_segments': [{'misc': 11, 'exec': 12}, {'misc': 13, 'exec': 14}]}]}",
                   &t, err);
    if (rc)
        fail_msg("%s", err);
    const rta_taskset *ts = tset_rta(t);
    assert_int_equal(ts->n, 3);
    assert_int_equal(ts->epsilon, 500000);
    assert_int_equal(ts->theta, 250000);
    assert_int_equal(ts->time_slice, 1000000);
    assert_int_equal(ts->tasks[0].period, 100000000);
    assert_int_equal(ts->tasks[0].deadline, 99500000);
    assert_int_equal(ts->tasks[0].cpu_total, 1000000 + 250000 + 3 + 7);
    assert_int_equal(ts->tasks[0].cpu_segments, 4);
    assert_int_equal(ts->tasks[0].gpu_segments, 1);
    assert_int_equal(ts->tasks[0].misc[0], 1500);
    assert_int_equal(ts->tasks[0].exec[0], 2000000);
    assert_string_equal(ts->tasks[1].name, "t2");
    assert_true(ts->tasks[1].best_effort);
    assert_int_equal(ts->tasks[1].deadline, 1000000000);
    assert_false(ts->tasks[0].has_gpu_priority);
    /* each task's GPU segments its own, after another task's (mutant:
     * tset-used); a GPU priority given is used (GCAPS §5.3; tset-gprio-flag) */
    assert_int_equal(ts->tasks[2].gpu_segments, 2);
    assert_int_equal(ts->tasks[2].cpu_segments, 0);
    assert_int_equal(ts->tasks[2].misc[0], 11);
    assert_int_equal(ts->tasks[2].exec[0], 12);
    assert_int_equal(ts->tasks[2].misc[1], 13);
    assert_int_equal(ts->tasks[2].exec[1], 14);
    assert_int_equal(ts->tasks[0].misc[0], 1500);
    assert_int_equal(ts->tasks[0].exec[0], 2000000);
    assert_true(ts->tasks[2].has_gpu_priority);
    assert_int_equal(ts->tasks[2].gpu_priority, 3);
    assert_int_equal(ts->semantics, RTA_PRINTED);   /* without "semantics" */
    tset_free(t);
    /* "semantics" picks the lemmas as printed, the released code or the
     * corrected analysis (docs/rta.md; mutant: tset-semantics) */
    static const char *const sems[] = {"printed", "released-code", "corrected"};
    static const rta_semantics want[] = {RTA_PRINTED, RTA_RELEASED_CODE, RTA_CORRECTED};
    for (int i = 0; i < 3; i++) {
        char src[512];
        snprintf(src, sizeof src, "{'schema': 'schedlab-taskset/1', 'cpus': 1, 'epsilon': 0, "
                 "'theta': 0, 'time_slice': 1, 'semantics': '%s', 'tasks': [{'cpu': 0, "
                 "'priority': 1, 'period': 10, 'cpu_segments': [1]}]}", sems[i]);
        if (parse(src, &t, err))
            fail_msg("%s", err);
        assert_int_equal(tset_rta(t)->semantics, want[i]);
        tset_free(t);
    }
}

static void expect(const char *src, const char *want) {
    char err[512] = "";
    tset *t = (tset *)err;
    assert_int_equal(parse(src, &t, err), -1);
    assert_null(t);
    assert_string_equal(err, want);
}

static void test_errors_name_the_place(void **state) {
    (void)state;
    expect(HEAD "{'cpu': 0, 'priority': 1, 'period': '3xs'}]}",
           "t.json: tasks[0].period: \"3xs\" has an unknown unit \"xs\" (s, ms, us, ns or cycles)");
    expect(HEAD "{'cpu': 0, 'priority': 1, 'period': '10ms', 'cpu_segments': ['0.5ns']}]}",
           "t.json: tasks[0].cpu_segments[0]: \"0.5ns\" is not a whole number of nanoseconds");
    expect(HEAD "{'cpu': 2, 'priority': 1, 'period': '10ms'}]}",
           "t.json: tasks[0].cpu: 2 is out of range (0..1)");
    expect(HEAD "{'cpu': 0, 'priority': 1, 'period': '10ms', 'deadline': '11ms', "
           "'cpu_segments': ['1ms']}]}",
           "t.json: tasks[0].deadline: must be positive and at most the period (constrained "
           "deadlines)");
    /* Linux real-time priorities are 1..99 (mutant: tset-prio-range) */
    expect(HEAD "{'cpu': 0, 'priority': 0, 'period': '10ms', 'cpu_segments': ['1ms']}]}",
           "t.json: tasks[0].priority: 0 is out of range (1..99)");
    expect(HEAD "{'cpu': 0, 'priority': 1, 'period': '10ms', 'cpu_segments': []}]}",
           "t.json: tasks[0]: has no segments");
    expect(HEAD "{'cpu': 0, 'best_effort': true, 'priority': 3, 'period': '10ms'}]}",
           "t.json: tasks[0].priority: a best-effort task has no real-time priority; leave it out");
    expect(HEAD "{'cpu': 0, 'priority': 1, 'period': '10ms', 'cpu_segments': ['1ms'], "
           "'gpu_segments': [{'misc': '1ms'}]}]}",
           "t.json: tasks[0].gpu_segments[0].exec: missing (a duration: a number of ns or a "
           "string like \"2.5ms\")");
    expect(HEAD "{'cpu': 0, 'priority': 1, 'period': '10ms', 'cpu_segmnts': []}]}",
           "t.json: tasks[0]: unknown key \"cpu_segmnts\" (did you mean \"cpu_segments\"?)");
    expect(HEAD "{'name': 'x', 'cpu': 0, 'priority': 1, 'period': '10ms', 'cpu_segments': [1]},"
           "{'name': 'x', 'cpu': 0, 'priority': 2, 'period': '10ms', 'cpu_segments': [1]}]}",
           "t.json: tasks[1].name: \"x\" is also tasks[0]'s name");
    expect("{'schema': 'schedlab-trace/1'}",
           "t.json: schema: expected \"schedlab-taskset/1\" (or a \"schedlab-scenario/1\" with "
           "tasks), got \"schedlab-trace/1\"");
    expect("{'schema': 'schedlab-scenario/1', 'tasks': [{'cpu': 0, 'priority': 1, 'period': "
           "'10ms', 'segments': [{'gpu': {'misc': '1ms', 'ops': []}}]}]}",
           "t.json: tasks[0].segments[0].gpu: the analysis needs the segment's \"exec\" (its "
           "pure GPU WCET); \"ops\" alone has no bound");
}

static void test_scenario_tasks(void **state) {
    (void)state;
    char err[512] = "";
    tset *t;
    int rc = parse("{'schema': 'schedlab-scenario/1', 'name': 'x', 'cpus': 2, 'policy': "
                   "{'contexts': 'gcaps', 'runlist_update': '1ms', 'context_switch': '200us'}, "
                   "'tasks': [{'name': 'a', 'cpu': 1, 'priority': 9, 'period': '50ms', 'offset': "
                   "'1ms', 'mode': 'busy', 'segments': [{'cpu': '1ms'}, {'gpu': {'misc': '2ms', "
                   "'exec': '8ms'}}, {'cpu': '3ms'}]}]}",
                   &t, err);
    if (rc)
        fail_msg("%s", err);
    const rta_taskset *ts = tset_rta(t);
    assert_int_equal(ts->time_slice, 1024000);   /* the contexts issue's default */
    assert_int_equal(ts->epsilon, 1000000);
    assert_int_equal(ts->theta, 200000);
    assert_int_equal(ts->tasks[0].cpu_total, 4000000);
    assert_int_equal(ts->tasks[0].cpu_segments, 2);
    assert_int_equal(ts->tasks[0].exec[0], 8000000);
    tset_free(t);

    /* what `schedlab simulate` takes, `schedlab rta` takes: a task without
     * "cpu" is on core 0, and 5.0 is the whole number 5 (the simulator's
     * reading, scenario_tasks.c); the analysis' own format keeps both strict */
    rc = parse("{'schema': 'schedlab-scenario/1', 'cpus': 2, 'tasks': [{'name': 'a', "
               "'priority': 9.0, 'period': '50ms', 'segments': [{'cpu': '1ms'}]}]}",
               &t, err);
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(tset_rta(t)->tasks[0].cpu, 0);
    assert_int_equal(tset_rta(t)->tasks[0].priority, 9);
    tset_free(t);
    expect(HEAD "{'priority': 1, 'period': '10ms', 'cpu_segments': ['1ms']}]}",
           "t.json: tasks[0].cpu: must be an integer, not missing");
}

/* ---- the analysis' answer (schedlab-rta/1) ---------------------------------------- */

/* What tset_analyse_json writes is what the analysis says: for each
 * semantics, by_semantics[sem] holds rta_analyse's verdict and bounds under
 * it (the analysis itself is tested in test_rta.c), and "analyses" those of
 * the taskset's own semantics; a task the analysis could not bound is null
 * (docs/rta.md, item 7), a best-effort one absent. On the generator's
 * Table 3 tasksets (a third of them with best-effort tasks), of which some
 * are bounded differently by the printed lemmas and the released code, and
 * some cannot be bounded: the check can fail. (mutants: tset-out-null,
 * tset-out-semantics) */
static void test_analysis_json(void **state) {
    (void)state;
    static rta_gen_buf buf;
    static const char *const names[] = {"t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8",
                                        "t9", "t10", "t11", "t12", "t13", "t14", "t15",
                                        "t16", "t17", "t18", "t19", "t20", "t21", "t22",
                                        "t23", "t24"};
    static const char *const sems[] = {"printed", "released-code", "corrected"};
    static const rta_semantics sv[] = {RTA_PRINTED, RTA_RELEASED_CODE, RTA_CORRECTED};
    rta_gen_params p;
    rta_gen_defaults(&p);
    size_t differ = 0, nulls = 0, absent = 0;
    for (uint64_t k = 0; k < 60; k++) {
        p.be_pct = k % 3 ? 0 : 20;
        rta_taskset ts = {0};
        size_t n = rta_gen_taskset(&p, 4, 0, k, &buf, &ts);
        assert_true(n <= 24);
        for (size_t i = 0; i < n; i++) buf.t[i].name = names[i];
        ts.epsilon = 1000000;   /* Table 3's ε; §7.1's θ and L for tsg_rr */
        ts.theta = 200000;
        ts.time_slice = 1024000;
        ts.semantics = sv[k % 3];
        json_t *out = tset_analyse_json(&ts);
        assert_non_null(out);
        assert_string_equal(json_string_value(json_object_get(out, "semantics")), sems[k % 3]);
        int64_t w[3][RTA_NAPPROACHES][RTA_MAX_TASKS];
        for (int si = 0; si < 3; si++) {
            rta_taskset under = ts;
            under.semantics = sv[si];
            json_t *by = json_object_get(json_object_get(out, "by_semantics"), sems[si]);
            for (int a = 0; a < RTA_NAPPROACHES; a++) {
                rta_result r = {.wcrt = w[si][a]};
                rta_analyse(&under, (rta_approach)a, &r);
                const char *an = rta_approach_name((rta_approach)a);
                json_t *one = json_object_get(by, an), *bounds = json_object_get(one, "wcrt");
                assert_int_equal(json_is_true(json_object_get(one, "schedulable")), r.schedulable);
                json_t *own = json_object_get(json_object_get(json_object_get(out, "analyses"), an),
                                              "tasks");
                for (size_t i = 0; i < n; i++) {
                    json_t *b = json_object_get(bounds, names[i]);
                    int64_t x = w[si][a][i];
                    if (x == RTA_NOT_ANALYSED) {
                        assert_null(b);
                        absent++;
                        continue;
                    }
                    if (x < 0) {
                        assert_true(json_is_null(b));
                        nulls++;
                    } else {
                        assert_int_equal(json_integer_value(b), x);
                    }
                    if (si == (int)(k % 3))   /* the taskset's own semantics */
                        assert_true(json_equal(
                            json_object_get(json_object_get(own, names[i]), "wcrt"), b));
                }
            }
        }
        differ += memcmp(w[0], w[1], sizeof w[0]) != 0;
        json_decref(out);
    }
    assert_true(differ > 0 && nulls > 0 && absent > 0);
}

/* ---- generator ------------------------------------------------------------ */

static void test_generator_is_deterministic_and_in_range(void **state) {
    (void)state;
    static rta_gen_buf a, b;
    rta_gen_params p;
    rta_gen_defaults(&p);
    char err[256];
    assert_int_equal(rta_gen_check(&p, err, sizeof err), 0);
    for (uint64_t k = 0; k < 200; k++) {
        rta_taskset x = {0}, y = {0};
        size_t n = rta_gen_taskset(&p, 9, 3, k, &a, &x);
        assert_int_equal(rta_gen_taskset(&p, 9, 3, k, &b, &y), n);
        assert_true(n >= 12 && n <= 24);              /* 4 CPUs x [3, 6] */
        int64_t util[4] = {0};                         /* ppm of a core */
        for (size_t i = 0; i < n; i++) {
            const rta_task *t = &x.tasks[i];
            assert_int_equal(t->period, y.tasks[i].period);
            assert_int_equal(t->cpu_total, y.tasks[i].cpu_total);
            assert_true(t->period >= 30000000 && t->period <= 500000000);
            assert_true(t->period % 1000000 == 0);
            assert_true(t->gpu_segments >= 0 && t->gpu_segments <= 3);
            int64_t e = t->cpu_total;
            for (int j = 0; j < t->gpu_segments; j++) {
                assert_int_equal(t->misc[j], y.tasks[i].misc[j]);
                e += t->misc[j] + t->exec[j];
            }
            assert_true(t->cpu >= 0 && t->cpu < 4);
            util[t->cpu] += e * 1000000 / t->period;
            for (size_t h = 0; h < i; h++)       /* RM: distinct, shorter period higher */
                if (x.tasks[h].period < t->period)
                    assert_true(x.tasks[h].priority > t->priority);
        }
        for (int c = 0; c < 4; c++)              /* [0.40, 0.60], each task at least 0.01 */
            assert_true(util[c] >= 399000 && util[c] <= 601000 + 60000);
    }
    /* another index, another taskset */
    rta_taskset x = {0}, y = {0};
    rta_gen_taskset(&p, 9, 3, 0, &a, &x);
    rta_gen_taskset(&p, 9, 3, 1, &b, &y);
    assert_true(x.n != y.n || x.tasks[0].period != y.tasks[0].period ||
                x.tasks[0].cpu_total != y.tasks[0].cpu_total);
}

/* ---- sweeps ---------------------------------------------------------------- */

static const char spec_src[] =
    "{'schema': 'schedlab-sweep/1', 'name': 's', 'seed': 3, 'tasksets': 37, "
    "'x': {'param': 'util_per_cpu', 'values': [0.2, 0.5, 0.8]}, "
    "'approaches': ['tsg_rr_busy', 'gcaps_suspend_gprio']}";

static void test_shards_sum_to_the_sweep(void **state) {
    (void)state;
    char *j = jq(spec_src), err[512];
    sweep_spec *s;
    if (sweep_spec_parse(j, strlen(j), "s.json", &s, err, sizeof err))
        fail_msg("%s", err);
    free(j);
    json_t *full, *sh[5];
    assert_int_equal(sweep_run(s, 0, 1, 2, &full, NULL, err, sizeof err), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(sweep_run(s, i, 5, 1 + i % 2, &sh[i], NULL, err, sizeof err), 0);
    json_t *m;
    json_t *order[5] = {sh[3], sh[1], sh[4], sh[0], sh[2]};
    assert_int_equal(sweep_merge(order, 5, &m, err, sizeof err), 0);
    char *a = sweep_text(full), *b = sweep_text(m);
    assert_string_equal(a, b);
    json_t *c = json_object_get(json_object_get(full, "schedulable"), "tsg_rr_busy");
    assert_int_equal(json_array_size(c), 3);
    /* more utilisation, fewer schedulable tasksets */
    assert_true(json_integer_value(json_array_get(c, 0)) >= json_integer_value(json_array_get(c, 2)));
    json_decref(m);
    assert_int_equal(sweep_merge(sh, 4, &m, err, sizeof err), -1);
    assert_null(m);
    assert_string_equal(err, "merge: the shards say there are 5 of them, 4 given");
    /* a shard file is input: a count beyond a point's tasksets, or one whose
     * sum overflowed (signed overflow, UBSan's report), is refused */
    json_t *keep = json_deep_copy(sh[2]);
    json_t *c2 = json_object_get(json_object_get(sh[2], "schedulable"), "tsg_rr_busy");
    json_array_set_new(c2, 1, json_integer(INT64_MAX));
    assert_int_equal(sweep_merge(sh, 5, &m, err, sizeof err), -1);
    assert_null(m);
    assert_string_equal(err, "shard file 3: schedulable.tsg_rr_busy[1]: expected a count of "
                             "0..37 tasksets");
    json_array_set_new(c2, 1, json_integer(37));
    assert_int_equal(sweep_merge(sh, 5, &m, err, sizeof err), -1);
    assert_string_equal(err, "shard file 3: schedulable.tsg_rr_busy[1]: the shards count more "
                             "than the 37 tasksets of a point");
    json_array_set_new(c2, 1, json_string("7"));
    assert_int_equal(sweep_merge(sh, 5, &m, err, sizeof err), -1);
    assert_string_equal(err, "shard file 3: schedulable.tsg_rr_busy[1]: expected a count of "
                             "0..37 tasksets");
    json_decref(sh[2]);
    sh[2] = keep;
    free(a);
    free(b);
    json_decref(full);
    for (int i = 0; i < 5; i++)
        json_decref(sh[i]);
    sweep_spec_free(s);
}

/* issue 30: the server's sweep job watches and stops the CLI's sweep */
static void test_progress_and_cancel(void **state) {
    (void)state;
    char *j = jq(spec_src), err[512];
    sweep_spec *s;
    if (sweep_spec_parse(j, strlen(j), "s.json", &s, err, sizeof err))
        fail_msg("%s", err);
    free(j);
    assert_int_equal(sweep_units(s), 3 * 37);
    assert_int_equal(sweep_work(s), 3 * 37 * 2);
    atomic_llong done = 0;
    atomic_bool cancel = false;
    sweep_ctl ctl = {.done = &done, .cancel = &cancel};
    json_t *r, *plain;
    assert_int_equal(sweep_run_ctl(s, 0, 1, 2, &ctl, &r, NULL, err, sizeof err), 0);
    assert_int_equal(atomic_load(&done), 3 * 37);
    assert_int_equal(sweep_run(s, 0, 1, 1, &plain, NULL, err, sizeof err), 0);
    char *a = sweep_text(r), *b = sweep_text(plain);
    assert_string_equal(a, b);   /* watched or not, the same result */
    free(a);
    free(b);
    json_decref(r);
    json_decref(plain);
    atomic_store(&done, 0);
    atomic_store(&cancel, true);
    assert_int_equal(sweep_run_ctl(s, 0, 1, 2, &ctl, &r, NULL, err, sizeof err), -1);
    assert_null(r);
    assert_string_equal(err, "sweep: cancelled");
    assert_int_equal(atomic_load(&done), 0);
    sweep_spec_free(s);
    /* a reference rides along in the normalised spec; a bad one is named */
    j = jq("{'schema': 'schedlab-sweep/1', 'name': 's', 'x': {'param': 'tasks', 'values': [2, 4]}, "
           "'reference': {'source': 'paper', 'schedulable': {'gcaps_busy': [100, 101]}}}");
    assert_int_equal(sweep_spec_parse(j, strlen(j), "s.json", &s, err, sizeof err), -1);
    assert_string_equal(err, "s.json: reference.schedulable.gcaps_busy[i]: must be a percentage "
                             "(0..100) or null");
    free(j);
}

static void test_spec_errors(void **state) {
    (void)state;
    static const struct { const char *src, *want; } cases[] = {
        {"{'schema': 'schedlab-sweep/1', 'name': 's', 'x': {'param': 'tasks', 'values': [2, 300]}}",
         "s.json: x.values[1]: must be an integer in 1..256"},
        {"{'schema': 'schedlab-sweep/1', 'name': 's', 'x': {'param': 'size', 'values': [1]}}",
         "s.json: x.param: expected tasks, util_per_cpu, cpus, gpu_ratio, g_to_c or be_ratio"},
        {"{'schema': 'schedlab-sweep/1', 'name': 's', 'approaches': ['fmlp'], 'x': {'param': "
         "'tasks', 'values': [2]}}",
         "s.json: approaches[0]: expected tsg_rr_busy, tsg_rr_suspend, gcaps_busy, "
         "gcaps_suspend, gcaps_busy_gprio, gcaps_suspend_gprio, fmlp_busy, fmlp_suspend, "
         "mpcp_busy or mpcp_suspend"},
        {"{'schema': 'schedlab-sweep/1', 'name': 's', 'params': {'g_to_c': [0.2, 0.333]}, 'x': "
         "{'param': 'tasks', 'values': [2]}}",
         "s.json: params.g_to_c[1]: 0.333 is not a whole number of hundredths"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *j = jq(cases[i].src), err[512] = "";
        sweep_spec *s = NULL;
        assert_int_equal(sweep_spec_parse(j, strlen(j), "s.json", &s, err, sizeof err), -1);
        assert_null(s);
        assert_string_equal(err, cases[i].want);
        free(j);
    }
}


/* A sweep's spec as docs/rta.md gives it: unset keys are the GCAPS paper's
 * (Table 3 and §7.1.1: epsilon 1 ms, theta 200 us, L 1024 us), seed 1,
 * 1000 tasksets a point, every analysis in rta.h's order, the printed
 * semantics, the paper's generator; the normalised spec the result
 * carries says so. */
static void test_spec_defaults(void **state) {
    (void)state;
    char *j = jq("{'schema': 'schedlab-sweep/1', 'name': 'd', 'x': {'param': 'tasks', 'values': "
                 "[3]}}"), err[512];
    sweep_spec *s;
    if (sweep_spec_parse(j, strlen(j), "d.json", &s, err, sizeof err)) fail_msg("%s", err);
    free(j);
    assert_int_equal(sweep_units(s), 1000);
    json_t *r;
    assert_int_equal(sweep_run(s, 0, 1, 2, &r, NULL, err, sizeof err), 0);
    const json_t *spec = json_object_get(r, "spec");
    assert_int_equal(json_integer_value(json_object_get(spec, "seed")), 1);
    assert_int_equal(json_integer_value(json_object_get(spec, "tasksets")), 1000);
    assert_int_equal(json_integer_value(json_object_get(r, "tasksets")), 1000);
    assert_int_equal(json_integer_value(json_object_get(spec, "epsilon")), 1000000);
    assert_int_equal(json_integer_value(json_object_get(spec, "theta")), 200000);
    assert_int_equal(json_integer_value(json_object_get(spec, "time_slice")), 1024000);
    assert_string_equal(json_string_value(json_object_get(spec, "semantics")), "printed");
    assert_string_equal(json_string_value(json_object_get(spec, "generator")), "paper");
    const json_t *ap = json_object_get(spec, "approaches");
    assert_int_equal(json_array_size(ap), RTA_NAPPROACHES);
    for (int a = 0; a < RTA_NAPPROACHES; a++)
        assert_string_equal(json_string_value(json_array_get(ap, (size_t)a)),
                            rta_approach_name((rta_approach)a));
    assert_int_equal(json_object_size(json_object_get(r, "schedulable")), RTA_NAPPROACHES);
    json_decref(r);
    sweep_spec_free(s);
    /* an approach listed twice, first or later, is refused */
    static const char *const twice[] = {"['gcaps_busy', 'gcaps_busy']",
                                        "['tsg_rr_busy', 'gcaps_busy', 'gcaps_busy']"};
    for (size_t i = 0; i < 2; i++) {
        char src[256];
        snprintf(src, sizeof src, "{'schema': 'schedlab-sweep/1', 'name': 'd', 'approaches': %s, "
                 "'x': {'param': 'tasks', 'values': [3]}}", twice[i]);
        j = jq(src);
        assert_int_equal(sweep_spec_parse(j, strlen(j), "d.json", &s, err, sizeof err), -1);
        free(j);
        char want[64];
        snprintf(want, sizeof want, "d.json: approaches[%zu]: listed twice", i + 1);
        assert_string_equal(err, want);
    }
}

/* What a sweep counts: at point p, taskset i drawn by the generator (seed,
 * p, i) from the spec's parameters with the point's x applied, analysed
 * with the spec's epsilon, theta, L and semantics by each approach; the
 * count of schedulable ones. An independent loop computes the same counts
 * here, and each of the spec's settings is shown to matter (the loop with
 * that one left at its default counts otherwise), so none can be lost. */
typedef struct sw_ref {
    uint64_t seed;
    bool released_code;
    int64_t epsilon, theta, time_slice;
    rta_semantics semantics;
} sw_ref;

static const rta_approach SW_APPROACHES[] = {RTA_GCAPS_SUSPEND, RTA_TSG_RR_BUSY, RTA_FMLP_SUSPEND};
static const int32_t SW_UTIL[] = {20, 50};   /* x: util_per_cpu 0.2, 0.5 */
#define SW_SETS 20

/* the counts of shard `index` of `count`: the tasksets numbered index,
 * index + count, ... over the points (a point's tasksets numbered
 * consecutively, point by point) */
static void sw_count_shard(const sw_ref *r, int index, int count, int64_t out[2][3]) {
    static rta_gen_buf buf;
    for (uint32_t p = 0; p < 2; p++) {
        rta_gen_params g;
        rta_gen_defaults(&g);
        g.released_code = r->released_code;
        g.cpus = 2;
        g.util_cpu_lo = g.util_cpu_hi = SW_UTIL[p];
        for (size_t k = 0; k < 3; k++) out[p][k] = 0;
        for (uint64_t i = 0; i < SW_SETS; i++) {
            if ((p * SW_SETS + i) % (uint64_t)count != (uint64_t)index) continue;
            rta_taskset ts;
            rta_gen_taskset(&g, r->seed, p, i, &buf, &ts);
            ts.epsilon = r->epsilon;
            ts.theta = r->theta;
            ts.time_slice = r->time_slice;
            ts.semantics = r->semantics;
            int64_t wcrt[RTA_MAX_TASKS];
            for (size_t k = 0; k < 3; k++) {
                rta_result res = {.wcrt = wcrt};
                rta_analyse(&ts, SW_APPROACHES[k], &res);
                out[p][k] += res.schedulable;
            }
        }
    }
}

static void sw_count(const sw_ref *r, int64_t out[2][3]) {
    sw_count_shard(r, 0, 1, out);
}

/* result r's counts equal want */
static void sw_expect(const json_t *r, int64_t want[2][3]) {
    const json_t *sched = json_object_get(r, "schedulable");
    for (size_t k = 0; k < 3; k++) {
        const json_t *c = json_object_get(sched, rta_approach_name(SW_APPROACHES[k]));
        assert_int_equal(json_array_size(c), 2);
        for (size_t p = 0; p < 2; p++)
            assert_int_equal(json_integer_value(json_array_get(c, p)), want[p][k]);
    }
}

static void test_sweep_counts(void **state) {
    (void)state;
    char *j = jq("{'schema': 'schedlab-sweep/1', 'name': 'c', 'seed': 77, 'tasksets': 20, "
                 "'semantics': 'corrected', 'generator': 'released-code', 'epsilon': '500us', "
                 "'theta': '1500us', 'time_slice': '3ms', 'params': {'cpus': 2}, "
                 "'x': {'param': 'util_per_cpu', 'values': [0.2, 0.5]}, "
                 "'approaches': ['gcaps_suspend', 'tsg_rr_busy', 'fmlp_suspend']}"),
         err[512];
    sweep_spec *s;
    if (sweep_spec_parse(j, strlen(j), "c.json", &s, err, sizeof err)) fail_msg("%s", err);
    free(j);
    const sw_ref spec = {77, true, 500000, 1500000, 3000000, RTA_CORRECTED};
    int64_t want[2][3];
    sw_count(&spec, want);
    for (size_t k = 0; k < 3; k++)
        for (size_t p = 0; p < 2; p++)
            printf("  %-14s util %.1f: %lld of %d schedulable\n", rta_approach_name(SW_APPROACHES[k]),
                   SW_UTIL[p] / 100.0, (long long)want[p][k], SW_SETS);
    for (int threads = 1; threads <= 3; threads++) {
        json_t *r;
        assert_int_equal(sweep_run(s, 0, 1, threads, &r, NULL, err, sizeof err), 0);
        sw_expect(r, want);
        json_decref(r);
    }
    /* shard i of 3 (Slurm's array, docs/slurm.md), on 1 to 3 threads each:
     * its tasksets, as many as sweep_shard_units says; there is no 3rd */
    for (int i = 0; i < 3; i++) {
        int64_t part[2][3];
        sw_count_shard(&spec, i, 3, part);
        json_t *r;
        assert_int_equal(sweep_run(s, i, 3, 1 + i, &r, NULL, err, sizeof err), 0);
        sw_expect(r, part);
        uint64_t mine = (2 * SW_SETS - (uint64_t)i + 2) / 3;   /* 14, 13, 13 of 40 */
        assert_int_equal(sweep_shard_units(s, i, 3), mine);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "shard"), "tasksets")),
                         mine);
        json_decref(r);
    }
    json_t *r = NULL;
    assert_int_equal(sweep_run(s, 3, 3, 1, &r, NULL, err, sizeof err), -1);
    assert_null(r);
    assert_non_null(strstr(err, "--shard: expected i/n with 0 <= i < n"));
    /* each setting changes the counts: the spec's seed, generator, epsilon,
     * theta, L and semantics, each in turn at its default */
    for (int f = 0; f < 6; f++) {
        sw_ref o = spec;
        if (f == 0) o.seed = 1;
        if (f == 1) o.released_code = false;
        if (f == 2) o.epsilon = 1000000;
        if (f == 3) o.theta = 200000;
        if (f == 4) o.time_slice = 1024000;
        if (f == 5) o.semantics = RTA_PRINTED;
        int64_t other[2][3];
        sw_count(&o, other);
        if (memcmp(other, want, sizeof want) == 0) fail_msg("setting %d changes no count", f);
    }
    sweep_spec_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_are_exact),
        cmocka_unit_test(test_errors_name_the_place),
        cmocka_unit_test(test_scenario_tasks),
        cmocka_unit_test(test_analysis_json),
        cmocka_unit_test(test_generator_is_deterministic_and_in_range),
        cmocka_unit_test(test_shards_sum_to_the_sweep),
        cmocka_unit_test(test_spec_defaults),
        cmocka_unit_test(test_sweep_counts),
        cmocka_unit_test(test_spec_errors),
        cmocka_unit_test(test_progress_and_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
