/* test_task_views.c -- what the dashboard puts beside a run's real-time
 * tasks (issue 13, GET /api/runs/{run}/tasks, docs/api.md):
 *
 *  - the statistics of each task's jobs (server/app/task_stats.c), on jobs
 *    written by hand: tasks in first-job order, jobs, completed ones,
 *    deadline misses (end past the deadline), min, mean and MORT (the
 *    largest end - release) of the completed ones, and the histogram of
 *    `bins` equal bins of floor(MORT / bins) + 1 ns from 0, which cover
 *    0..MORT;
 *  - the analysis bound of each task (server/app/task_bounds.c): the
 *    approach the run's meta names (contexts time-slice / gcaps / fmlp+ /
 *    mpcp x gpu_wait busy / suspend -> tsg_rr_*, gcaps_* (plain), fmlp_*,
 *    mpcp_*; task_bounds.h), with the run's own L, theta and epsilon over
 *    the scenario's, best-effort tasks left out; no bound for the shared
 *    driver or a run without tasks. The anchor is docs/rta.md's
 *    counterexample A: 22.48 ms, Eq. (3) as printed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "../../server/app/task_bounds.h"
#include "../../server/app/task_stats.h"
#include "../../server/formats/taskset.h"
#include "../../simcore/rta.h"

/* ---- statistics --------------------------------------------------------- */

static void job(trace *t, const char *task, int64_t release, int64_t end, int64_t deadline) {
    trace_job *j = trace_add_job(t);
    assert_non_null(j);
    memset(j, 0, sizeof *j);
    j->task = trace_intern(t, task);
    j->release = release;
    j->start = release;
    j->end = end;
    j->deadline = deadline;
}

static const json_t *task_of(const json_t *stats, size_t i) {
    const json_t *o = json_array_get(json_object_get(stats, "tasks"), i);
    assert_non_null(o);
    return o;
}

static json_int_t ival(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

/* Two tasks, their jobs interleaved:
 *   b: released 0, 100, 200, 300; responses 40, 95 (deadline 90: a miss),
 *      10, and one not ended (counted as a job, not completed)
 *   a: released 50 and 150; responses 30 and 31 (deadline unknown: no
 *      miss), one released but never ended, and one that ends at its
 *      deadline (no miss: it is met)
 * b comes first (its first job is). */
static void test_stats_by_hand(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    job(&t, "b", 0, 40, 100);
    job(&t, "a", 50, 80, 150);
    job(&t, "b", 100, 195, 190);
    job(&t, "a", 150, 181, TRACE_NONE);
    job(&t, "b", 200, 210, 300);
    job(&t, "b", 300, TRACE_NONE, 400);
    job(&t, "a", 250, TRACE_NONE, 350);
    job(&t, "a", 350, 400, 400);
    json_t *s = task_stats_json(&t, 4);
    assert_non_null(s);
    assert_int_equal(json_array_size(json_object_get(s, "tasks")), 2);
    const json_t *b = task_of(s, 0), *a = task_of(s, 1);
    assert_string_equal(json_string_value(json_object_get(b, "task")), "b");
    assert_string_equal(json_string_value(json_object_get(a, "task")), "a");
    assert_int_equal(ival(b, "jobs"), 4);
    assert_int_equal(ival(b, "completed"), 3);
    assert_int_equal(ival(b, "misses"), 1);
    assert_int_equal(ival(b, "min"), 10);
    assert_int_equal(ival(b, "mort"), 95);
    assert_true(fabs(json_real_value(json_object_get(b, "mean")) - 145.0 / 3.0) < 1e-9);
    /* 4 bins of 95 / 4 + 1 = 24 ns: 10 -> 0, 40 -> 1, 95 -> 3 */
    const json_t *h = json_object_get(b, "histogram");
    assert_int_equal(ival(h, "bin_ns"), 24);
    static const json_int_t hb[] = {1, 1, 0, 1};
    assert_int_equal(json_array_size(json_object_get(h, "counts")), 4);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(json_integer_value(json_array_get(json_object_get(h, "counts"), i)), hb[i]);
    assert_int_equal(ival(a, "jobs"), 4);
    assert_int_equal(ival(a, "completed"), 3);
    assert_int_equal(ival(a, "misses"), 0);
    assert_int_equal(ival(a, "min"), 30);
    assert_int_equal(ival(a, "mort"), 50);
    assert_true(fabs(json_real_value(json_object_get(a, "mean")) - 37.0) < 1e-9);
    /* 4 bins of 50 / 4 + 1 = 13 ns: 30 and 31 in the third, 50 the last */
    h = json_object_get(a, "histogram");
    assert_int_equal(ival(h, "bin_ns"), 13);
    static const json_int_t ha[] = {0, 0, 2, 1};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(json_integer_value(json_array_get(json_object_get(h, "counts"), i)), ha[i]);
    json_decref(s);

    /* one bin takes every completed job; a bin count past the limit is
     * the limit's */
    s = task_stats_json(&t, 0);
    h = json_object_get(task_of(s, 0), "histogram");
    assert_int_equal(ival(h, "bin_ns"), 96);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(h, "counts"), 0)), 3);
    json_decref(s);
    s = task_stats_json(&t, TASK_STATS_BINS_MAX + 1);
    h = json_object_get(task_of(s, 0), "histogram");
    assert_int_equal(json_array_size(json_object_get(h, "counts")), TASK_STATS_BINS_MAX);
    json_decref(s);
    trace_free(&t);

    /* a task none of whose jobs ended: no min, no mean, MORT 0 */
    trace_init(&t);
    job(&t, "c", 0, TRACE_NONE, 10);
    s = task_stats_json(&t, 3);
    const json_t *c = task_of(s, 0);
    assert_int_equal(ival(c, "jobs"), 1);
    assert_int_equal(ival(c, "completed"), 0);
    assert_true(json_is_null(json_object_get(c, "min")));
    assert_true(json_is_null(json_object_get(c, "mean")));
    assert_int_equal(ival(c, "mort"), 0);
    json_decref(s);
    trace_free(&t);
}

/* ---- bounds -------------------------------------------------------------- */

/* Three GPU tasks and a CPU-only one on two CPUs, light enough that every
 * approach bounds every task, and chosen so that the eight approaches a
 * run can name give eight different answers (checked below: otherwise the
 * mapping could not be told apart). */
static const char TASKSET[] =
    "{\"schema\": \"schedlab-scenario/1\", \"name\": \"t\", \"device\": \"xavier-nx\", "
    "\"cpus\": 2, \"duration\": \"400ms\", \"policy\": {\"contexts\": \"gcaps\", "
    "\"gpu_wait\": \"suspend\", \"time_slice\": \"1024us\", \"context_switch\": \"200us\", "
    "\"runlist_update\": \"1ms\"}, \"tasks\": ["
    "{\"name\": \"hi\", \"cpu\": 0, \"priority\": 30, \"period\": \"50ms\", \"segments\": "
    "[{\"cpu\": \"2ms\"}, {\"gpu\": {\"misc\": \"1ms\", \"exec\": \"4ms\"}}, {\"cpu\": \"1ms\"}]},"
    "{\"name\": \"mid\", \"cpu\": 1, \"priority\": 20, \"period\": \"80ms\", \"segments\": "
    "[{\"cpu\": \"3ms\"}, {\"gpu\": {\"misc\": \"2ms\", \"exec\": \"6ms\"}}]},"
    "{\"name\": \"lo\", \"cpu\": 0, \"priority\": 10, \"period\": \"200ms\", \"segments\": "
    "[{\"cpu\": \"5ms\"}, {\"gpu\": {\"misc\": \"1ms\", \"exec\": \"9ms\"}}, {\"cpu\": \"2ms\"}]},"
    "{\"name\": \"cpu_lo\", \"cpu\": 0, \"priority\": 5, \"period\": \"300ms\", \"segments\": "
    "[{\"cpu\": \"20ms\"}]}]}";

static const char *const NAMES[] = {"hi", "mid", "lo", "cpu_lo"};

/* The same with GPU priorities against the CPU ones (lo's GPU segment
 * first, hi's last): the plain GCAPS test (GPU priorities as given) bounds
 * no task, Audsley's assignment (the _gprio analyses) bounds all. */
#define GPU_PRIO(x) "\"gpu_priority\": " #x ", "
static const char TASKSET_GPRIO[] =
    "{\"schema\": \"schedlab-scenario/1\", \"name\": \"t\", \"device\": \"xavier-nx\", "
    "\"cpus\": 2, \"duration\": \"400ms\", \"policy\": {\"contexts\": \"gcaps\", "
    "\"gpu_wait\": \"suspend\", \"time_slice\": \"1024us\", \"context_switch\": \"200us\", "
    "\"runlist_update\": \"1ms\"}, \"tasks\": ["
    "{\"name\": \"hi\", \"cpu\": 0, \"priority\": 30, " GPU_PRIO(10) "\"period\": \"50ms\", "
    "\"segments\": [{\"cpu\": \"2ms\"}, {\"gpu\": {\"misc\": \"1ms\", \"exec\": \"4ms\"}}, "
    "{\"cpu\": \"1ms\"}]},"
    "{\"name\": \"mid\", \"cpu\": 1, \"priority\": 20, " GPU_PRIO(20) "\"period\": \"80ms\", "
    "\"segments\": [{\"cpu\": \"3ms\"}, {\"gpu\": {\"misc\": \"2ms\", \"exec\": \"6ms\"}}]},"
    "{\"name\": \"lo\", \"cpu\": 0, \"priority\": 10, " GPU_PRIO(30) "\"period\": \"200ms\", "
    "\"segments\": [{\"cpu\": \"5ms\"}, {\"gpu\": {\"misc\": \"1ms\", \"exec\": \"9ms\"}}, "
    "{\"cpu\": \"2ms\"}]},"
    "{\"name\": \"cpu_lo\", \"cpu\": 0, \"priority\": 5, \"period\": \"300ms\", \"segments\": "
    "[{\"cpu\": \"20ms\"}]}]}";

/* The analysis of taskset text under approach a, with L, theta, epsilon
 * (ns; < 0: the taskset's), into w[4]. */
static void analyse_text(const char *text, rta_approach a, int64_t L, int64_t theta, int64_t eps,
                         int64_t *w) {
    tset *ts = NULL;
    char err[256];
    assert_int_equal(tset_parse(text, strlen(text), "t", &ts, err, sizeof err), 0);
    rta_taskset set = *tset_rta(ts);
    assert_int_equal(set.n, 4);
    if (L >= 0) set.time_slice = L;
    if (theta >= 0) set.theta = theta;
    if (eps >= 0) set.epsilon = eps;
    assert_int_equal(rta_check(&set, err, sizeof err), 0);
    rta_result res = {.wcrt = w};
    rta_analyse(&set, a, &res);
    for (size_t i = 0; i < 4; i++) assert_string_equal(set.tasks[i].name, NAMES[i]);
    tset_free(ts);
}

static void analyse(rta_approach a, int64_t L, int64_t theta, int64_t eps, int64_t *w) {
    analyse_text(TASKSET, a, L, theta, eps, w);
}

static void run_meta(trace *t, const char *contexts, const char *wait, const char *L,
                     const char *theta, const char *eps) {
    trace_init(t);
    if (contexts) assert_int_equal(trace_set_meta(t, "contexts", contexts), 0);
    if (wait) assert_int_equal(trace_set_meta(t, "gpu_wait", wait), 0);
    if (L) assert_int_equal(trace_set_meta(t, "time_slice", L), 0);
    if (theta) assert_int_equal(trace_set_meta(t, "context_switch", theta), 0);
    if (eps) assert_int_equal(trace_set_meta(t, "runlist_update", eps), 0);
}

/* task_bounds' answer equals w, task by task (null where w is -1) */
static void assert_bounds(const json_t *b, const int64_t *w) {
    assert_non_null(b);
    assert_int_equal(json_object_size(b), 4);
    for (size_t i = 0; i < 4; i++) {
        const json_t *v = json_object_get(b, NAMES[i]);
        assert_non_null(v);
        if (w[i] < 0) assert_true(json_is_null(v));
        else assert_int_equal(json_integer_value(v), w[i]);
    }
}

static void test_bounds_follow_the_run(void **state) {
    (void)state;
    static const struct {
        const char *contexts, *wait;
        rta_approach a;
    } map[] = {
        {"time-slice", "busy", RTA_TSG_RR_BUSY}, {"time-slice", "suspend", RTA_TSG_RR_SUSPEND},
        {"gcaps", "busy", RTA_GCAPS_BUSY},       {"gcaps", "suspend", RTA_GCAPS_SUSPEND},
        {"fmlp+", "busy", RTA_FMLP_BUSY},        {"fmlp+", "suspend", RTA_FMLP_SUSPEND},
        {"mpcp", "busy", RTA_MPCP_BUSY},         {"mpcp", "suspend", RTA_MPCP_SUSPEND},
    };
    enum { N = sizeof map / sizeof *map };
    int64_t w[N][4];
    for (size_t i = 0; i < N; i++) analyse(map[i].a, -1, -1, -1, w[i]);
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < N; j++) assert_true(memcmp(w[i], w[j], sizeof w[i]) != 0);
    for (size_t i = 0; i < N; i++) {
        trace t;
        run_meta(&t, map[i].contexts, map[i].wait, NULL, NULL, NULL);
        json_t *b = task_bounds(TASKSET, &t);
        printf("  %-10s %-7s hi %lld, mid %lld, lo %lld, cpu_lo %lld ns\n", map[i].contexts,
               map[i].wait, (long long)w[i][0], (long long)w[i][1], (long long)w[i][2],
               (long long)w[i][3]);
        assert_bounds(b, w[i]);
        json_decref(b);
        trace_free(&t);
    }
    /* the run's L, theta and epsilon, not the scenario's: each changes the
     * answer of an approach that uses it */
    static const struct {
        rta_approach a;
        const char *contexts;
        int64_t L, theta, eps;
    } over[] = {
        {RTA_TSG_RR_SUSPEND, "time-slice", 2048000, -1, -1},
        {RTA_TSG_RR_SUSPEND, "time-slice", -1, 400000, -1},
        {RTA_GCAPS_SUSPEND, "gcaps", -1, -1, 3000000},
    };
    for (size_t i = 0; i < sizeof over / sizeof *over; i++) {
        int64_t base[4], want[4];
        analyse(over[i].a, -1, -1, -1, base);
        analyse(over[i].a, over[i].L, over[i].theta, over[i].eps, want);
        assert_true(memcmp(base, want, sizeof base) != 0);
        char L[32], th[32], ep[32];
        snprintf(L, sizeof L, "%lld", (long long)over[i].L);
        snprintf(th, sizeof th, "%lld", (long long)over[i].theta);
        snprintf(ep, sizeof ep, "%lld", (long long)over[i].eps);
        trace t;
        run_meta(&t, over[i].contexts, "suspend", over[i].L >= 0 ? L : NULL,
                 over[i].theta >= 0 ? th : NULL, over[i].eps >= 0 ? ep : NULL);
        json_t *b = task_bounds(TASKSET, &t);
        assert_bounds(b, want);
        json_decref(b);
        trace_free(&t);
        /* a value that is no count of ns leaves the scenario's */
        run_meta(&t, over[i].contexts, "suspend", over[i].L >= 0 ? "2ms" : NULL,
                 over[i].theta >= 0 ? "-400000" : NULL, over[i].eps >= 0 ? "" : NULL);
        b = task_bounds(TASKSET, &t);
        assert_bounds(b, base);
        json_decref(b);
        trace_free(&t);
    }
    /* GCAPS as the run had it, its GPU priorities as given: the plain test
     * (no bound for any task: null each), not Audsley's assignment */
    for (int busy = 0; busy < 2; busy++) {
        int64_t plain[4], gprio[4];
        analyse_text(TASKSET_GPRIO, busy ? RTA_GCAPS_BUSY : RTA_GCAPS_SUSPEND, -1, -1, -1, plain);
        analyse_text(TASKSET_GPRIO, busy ? RTA_GCAPS_BUSY_GPRIO : RTA_GCAPS_SUSPEND_GPRIO, -1, -1,
                     -1, gprio);
        for (size_t i = 0; i < 4; i++) assert_true(plain[i] < 0 && gprio[i] > 0);
        trace t;
        run_meta(&t, "gcaps", busy ? "busy" : "suspend", NULL, NULL, NULL);
        json_t *b = task_bounds(TASKSET_GPRIO, &t);
        assert_bounds(b, plain);
        json_decref(b);
        trace_free(&t);
    }
    /* no bound: the shared driver, a wait the run does not name, no meta,
     * no scenario */
    static const char *const none[][2] = {{"shared", "suspend"}, {NULL, "suspend"},
                                          {"gcaps", NULL}, {"gcaps", "spin"}};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        trace t;
        run_meta(&t, none[i][0], none[i][1], NULL, NULL, NULL);
        assert_null(task_bounds(TASKSET, &t));
        trace_free(&t);
    }
    trace t;
    run_meta(&t, "gcaps", "suspend", NULL, NULL, NULL);
    assert_null(task_bounds(NULL, &t));
    assert_null(task_bounds("{\"schema\": \"schedlab-scenario/1\"", &t));
    trace_free(&t);
}

/* docs/rta.md, counterexample A (scenarios/gcaps-counterexample-a.json,
 * correction K1): rt's one GPU segment of G = 10 slices beside a
 * best-effort task under time-slicing, L = 1.024 ms, theta = 0.2 ms. A
 * scenario's analysis is the one the paper prints (the "semantics" key is
 * a taskset file's, docs/rta.md): Lemma 1 / Eq. (3), G + 10 (L + theta) =
 * 22.48 ms, which the run's simulated 23.78 ms exceeds -- what the
 * counterexample shows beside it. The best-effort task gets no bound. */
static void test_counterexample_a(void **state) {
    (void)state;
    const char *root = getenv("SCHEDLAB_ROOT");   /* as test_scn_util.h: else . */
    char path[1024];
    snprintf(path, sizeof path, "%s%sscenarios/gcaps-counterexample-a.json", root ? root : "",
             root ? "/" : "");
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    trace t;
    run_meta(&t, "time-slice", "suspend", NULL, NULL, NULL);
    json_t *b = task_bounds(text, &t);
    assert_non_null(b);
    assert_int_equal(json_object_size(b), 1);
    assert_int_equal(json_integer_value(json_object_get(b, "rt")), 22480000);
    json_decref(b);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_by_hand),
        cmocka_unit_test(test_bounds_follow_the_run),
        cmocka_unit_test(test_counterexample_a),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
