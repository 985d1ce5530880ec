/* test_gcaps_example2.c -- the GCAPS paper's Example 2 and Fig. 5 (Wang,
 * Liu, Wong, Kim, ECRTS 2024, §5.3, pp. 11:10-11:11) as the shipped
 * scenarios scenarios/gcaps-example2-fig5a.json and -fig5b.json, each
 * parameter checked against the paper and each schedule worked out by hand
 * from its rules.
 *
 * The paper's taskset (Table 2), as typed here from the camera-ready PDF:
 *
 *   task  CPU  T = D  CPU segments          GPU segments (G^m, G^e)
 *   tau1  1     80    C = 2, 4, 3           (2, 4), (2, 2)
 *   tau2  1    150    C = 40                -
 *   tau3  2    190    C = 4, 30             (5, 80)
 *   tau4  1    200    C = 16, 2             (2, 10)
 *
 * Example 2: RM priorities, "the lower the task index, the higher its
 * priority"; "The first job of tau3 arrives at time 70, and the other
 * tasks' jobs arrive at time 0" (the release arrows of Fig. 5 say the
 * same: tau3's at 70 on Core 2, tau1's at 0, 80, 160). The text copy in
 * shared/papers lost that subscript ("The first job of  arrives at time
 * 70"); read as tau1, the same taskset gives tau4 a response of 107.4 ms
 * (102 ms with eps = 0), far inside its deadline, which is why the paper's
 * "Those delays caused tau4 to miss the deadline" did not come out. Fig. 5's
 * caption: "under self-suspension mode"; (a) "CPU priority = GPU priority:
 * tau1 > tau2 > tau3 > tau4. RT test failed"; (b) "GPU priority: tau1 >
 * tau2 > tau4 > tau3. RT test passed".
 *
 * Rules (each from the paper; simcore/host_tasks.c and driver_gcaps.c):
 *   - cores are fixed-priority preemptive, partitioned (§4);
 *   - a GPU segment is bracketed by gcapsGpuSegBegin/End (§5.1), each a
 *     runlist update of eps = 1 ms on the caller's core, non-preemptive and
 *     under one rt_mutex (§5.2, Lemma 8); Alg. 1 runs and the runlist is
 *     submitted alpha = eps - theta = 0.8 ms into it, and the GPU switches
 *     for theta = 0.2 ms (Def. 2: eps = alpha + theta); the kernel is
 *     issued when the Begin returns;
 *   - Alg. 1: a Begin of a strictly higher GPU priority than the running
 *     real-time segment preempts it (it goes to pending), else the new one
 *     is pending; an End of the running segment puts the highest pending
 *     one on the runlist (§5.1, §5.3 with gprio);
 *   - G^m runs on the core while the kernel runs (§4: G^m and G^e "may
 *     execute in parallel"), then the task self-suspends until its kernel
 *     is done, and calls End when it has its core again (§6.2.2).
 *
 * Fig. 5 draws G^m as a sliver before the Begin update and the rest after
 * the End one, and the GPU idle through each whole update, so its times
 * are a few ms later than these (tau4's kernel ends at 187 there, 182
 * here); what the text says of the schedule holds in both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../server/formats/scenario.h"
#include "test_scn_util.h"

#define US INT64_C(1000)

/* ---- the parameters, against Table 2, Example 2 and Fig. 5 --------------- */

typedef struct seg { int64_t cpu, misc, exec; } seg;   /* cpu > 0: a CPU segment */

typedef struct paper_task {
    const char *name;
    int32_t core, priority, gpu_priority_b;
    int64_t period, offset;
    size_t nsegs;
    seg segs[5];
} paper_task;

static const paper_task table2[] = {
    { "tau1", 0, 4, 4, 80 * MS, 0, 5,
      { { 2 * MS, 0, 0 }, { 0, 2 * MS, 4 * MS }, { 4 * MS, 0, 0 }, { 0, 2 * MS, 2 * MS },
        { 3 * MS, 0, 0 } } },
    { "tau2", 0, 3, 3, 150 * MS, 0, 1, { { 40 * MS, 0, 0 } } },
    { "tau3", 1, 2, 1, 190 * MS, 70 * MS, 3,
      { { 4 * MS, 0, 0 }, { 0, 5 * MS, 80 * MS }, { 30 * MS, 0, 0 } } },
    { "tau4", 0, 1, 2, 200 * MS, 0, 3,
      { { 16 * MS, 0, 0 }, { 0, 2 * MS, 10 * MS }, { 2 * MS, 0, 0 } } },
};

static void check_parameters(const sim_config *c, bool fig5b) {
    assert_int_equal(c->cpus, 2);
    assert_int_equal(c->policy.runlist_update, 1 * MS);
    assert_int_equal(c->policy.context_switch, 200 * US);
    assert_int_equal(c->policy.gpu_wait, SIM_WAIT_SUSPEND);
    assert_int_equal(c->ntasks, 4);
    for (size_t i = 0; i < 4; i++) {
        const paper_task *p = &table2[i];
        const sim_task *k = &c->tasks[i];
        assert_string_equal(k->name, p->name);
        assert_int_equal(k->cpu, p->core);
        assert_int_equal(k->priority, p->priority);
        assert_false(k->best_effort);
        if (fig5b) {
            assert_true(k->has_gpu_priority);
            assert_int_equal(k->gpu_priority, p->gpu_priority_b);
        } else {
            assert_false(k->has_gpu_priority);   /* GPU priority = CPU priority */
        }
        assert_int_equal(k->period, p->period);
        assert_int_equal(k->deadline, p->period);
        if (k->offset != p->offset)
            fail_msg("%s: first release at %lld ns, Example 2 says %lld ns", p->name,
                     (long long)k->offset, (long long)p->offset);
        assert_int_equal(k->nsegments, p->nsegs);
        for (size_t s = 0; s < p->nsegs; s++) {
            const sim_segment *g = &k->segments[s];
            if (p->segs[s].cpu) {
                assert_int_equal(g->kind, SIM_SEG_CPU);
                assert_int_equal(g->cpu, p->segs[s].cpu);
            } else {
                assert_int_equal(g->kind, SIM_SEG_GPU);
                assert_int_equal(g->misc, p->segs[s].misc);
                assert_int_equal(g->exec, p->segs[s].exec);
                assert_int_equal(g->nops, 0);
            }
        }
    }
}

/* ---- the trace ----------------------------------------------------------- */

static void run(const char *file, trace *t, bool fig5b) {
    scn_scenario *s = scn_load(file);
    assert_int_equal(scn_run_count(s), 1);
    sim_config cfg;
    char err[512];
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    check_parameters(&cfg, fig5b);
    trace_init(t);
    if (sim_run(&cfg, t, err, sizeof err)) fail_msg("%s: %s", file, err);
    scn_free(s);
}

static const trace_job *job(const trace *t, const char *task, int64_t n) {
    for (size_t i = 0; i < t->jobs.n; i++)
        if (strcmp(trace_str_get(t, t->jobs.v[i].task), task) == 0 && t->jobs.v[i].job == n)
            return &t->jobs.v[i];
    fail_msg("no job %s#%lld in the trace", task, (long long)n);
    return NULL;
}

static void check_job(const trace *t, const char *task, int64_t n, int64_t release,
                      int64_t end) {
    const trace_job *j = job(t, task, n);
    if (j->release != release || j->end != end)
        fail_msg("%s#%lld: released %lld, ended %lld; by hand %lld, %lld", task, (long long)n,
                 (long long)j->release, (long long)j->end, (long long)release, (long long)end);
}

static const trace_kernel *kernel(const trace *t, const char *name) {
    for (size_t i = 0; i < t->kernels.n; i++)
        if (strcmp(trace_str_get(t, t->kernels.v[i].name), name) == 0) return &t->kernels.v[i];
    fail_msg("no kernel %s in the trace", name);
    return NULL;
}

/* The kernel's issue, first block, end, and the pauses of its block 0
 * (a kernel that fills the GPU: all its blocks pause together). */
static void check_kernel(const trace *t, const char *name, int64_t issue, int64_t first,
                         int64_t end, size_t npauses, const int64_t (*pauses)[2]) {
    const trace_kernel *k = kernel(t, name);
    if (k->issue != issue || k->first_block != first || k->end != end)
        fail_msg("%s: issue/first block/end %lld/%lld/%lld; by hand %lld/%lld/%lld", name,
                 (long long)k->issue, (long long)k->first_block, (long long)k->end,
                 (long long)issue, (long long)first, (long long)end);
    int32_t kid = (int32_t)(k - t->kernels.v);
    int64_t b0 = -1;
    for (size_t i = 0; i < t->blocks.n && b0 < 0; i++)
        if (t->blocks.v[i].kernel == kid && t->blocks.v[i].index == 0) b0 = (int64_t)i;
    assert_true(b0 >= 0);
    size_t seen = 0;
    for (size_t i = 0; i < t->pauses.n; i++) {
        const trace_pause *p = &t->pauses.v[i];
        if (p->block != b0) continue;
        if (seen >= npauses || p->start != pauses[seen][0] || p->end != pauses[seen][1])
            fail_msg("%s: pause %zu from %lld to %lld; by hand %zu pauses", name, seen,
                     (long long)p->start, (long long)p->end, npauses);
        seen++;
    }
    assert_int_equal(seen, npauses);
}

/* The runlist's changes, in order: +task on, -task off (Alg. 1); all of
 * them, or (`first`) the first n. */
typedef struct rl { int64_t t; const char *what; } rl;

static void check_runlist(const trace *t, size_t n, const rl *want, bool first) {
    size_t seen = 0;
    for (size_t i = 0; i < t->queue_events.n && !(first && seen == n); i++) {
        const trace_queue_event *e = &t->queue_events.v[i];
        if (strcmp(trace_str_get(t, e->queue), "runlist") != 0) continue;
        char got[64];
        snprintf(got, sizeof got, "%c%s", e->event == TRACE_ENQUEUE ? '+' : '-',
                 trace_str_get(t, e->item));
        if (seen >= n)
            fail_msg("runlist: %s at %lld ns, after the %zu changes worked by hand", got,
                     (long long)e->t, n);
        if (e->t != want[seen].t || strcmp(got, want[seen].what) != 0)
            fail_msg("runlist change %zu: %s at %lld ns; by hand %s at %lld ns", seen, got,
                     (long long)e->t, want[seen].what, (long long)want[seen].t);
        seen++;
    }
    assert_int_equal(seen, n);
}

static int64_t meta_misses(const trace *t, const char *task) {
    char key[64];
    snprintf(key, sizeof key, "task:%s", task);
    for (size_t i = 0; i < t->meta.n; i++)
        if (strcmp(trace_str_get(t, t->meta.v[i].key), key) == 0) {
            const char *m = strstr(trace_str_get(t, t->meta.v[i].value), "misses=");
            assert_non_null(m);
            return strtoll(m + 7, NULL, 10);
        }
    fail_msg("no meta %s", key);
    return -1;
}

#define T(ms_, us_) ((ms_) * MS + (us_) * US)

/* ---- Fig. 5(a): GPU priority = CPU priority -----------------------------
 *
 * Core 0 runs tau1 > tau2 > tau4, core 1 runs tau3. By hand:
 *   0      tau1 C 0-2; Begin 2-3 (runlist {tau1} at 2.8); kernel 3-7, G^m
 *          3-5, suspended 5-7, so tau2 runs 5-7.
 *   7      tau1 End 7-8 (off at 7.8); C 8-12; Begin 12-13 (on at 12.8);
 *          kernel 13-15 with G^m 13-15; End 15-16 (off at 15.8); C 16-19:
 *          tau1#0 ends at 19.
 *   19     tau2 19-57: 2 + 38 = 40 ms, tau2#0 ends at 57.
 *   57     tau4 C 57-73; Begin 73-74 (on at 73.8); its kernel from 74.0,
 *          G^m 74-76, then suspended.
 *   70     tau3 released on core 1: C 70-74; Begin 74-75 (the lock is free
 *          at 74): at 74.8 Alg. 1 finds tau3 above the running tau4, which
 *          goes to pending after 0.8 ms of its 10 ("G^e_3,1 has a higher
 *          priority, it gained GPU access"). tau3's kernel from 75.0; G^m
 *          75-80, then suspended.
 *   80     tau1#1: C 80-82; Begin 82-83, tau3 off at 82.8 (7.8 ms done);
 *          kernel 83-87; End 87-88, tau3 back at 88.0 (highest pending);
 *          C 88-92; Begin 92-93, tau3 off at 92.8 (12.6 done); kernel
 *          93-95; End 95-96, tau3 back at 96.0; C 96-99: tau1#1 ends at 99.
 *   150    tau2#1 150-160.
 *   160    tau1#2: C 160-162; Begin 162-163, tau3 off at 162.8 (79.4 done:
 *          96.0 + 66.8); kernel 163-167, G^m 163-165 (tau2 165-167); End
 *          167-168: tau3 back at 168.0, its kernel done at 168.6.
 *   168.6  tau3 End 168.6-169.6: at 169.4 tau3 off and tau4, the only one
 *          pending, on; tau4's kernel from 169.6. tau3 C 169.6-199.6:
 *          tau3#0 ends at 199.6.
 *   168    tau1 C 168-172; Begin 172-173: tau4 off at 172.8 (0.8 + 3.2 =
 *          4 ms done); kernel 173-175 with G^m; End 175-176: tau4 back at
 *          176.0; C 176-179: tau1#2 ends at 179.
 *   176    tau4's kernel needs 6 ms more: done at 182.0 (Fig. 5: 187). Core
 *          0 is tau2's (10 + 2 done, 28 left) 179-207 ("C4,2 could not
 *          start because tau2 is running on the same CPU"): tau2#1 ends at
 *          207.
 *   207    tau4 End 207-208 (off at 207.8); C4,2 208-210: tau4#0 ends at
 *          210, past its deadline 200 ("Task 4 missed deadline"). */
static void test_fig5a(void **state) {
    (void)state;
    trace t;
    run("gcaps-example2-fig5a.json", &t, false);
    check_job(&t, "tau1", 0, 0, 19 * MS);
    check_job(&t, "tau1", 1, 80 * MS, 99 * MS);
    check_job(&t, "tau1", 2, 160 * MS, 179 * MS);
    check_job(&t, "tau2", 0, 0, 57 * MS);
    check_job(&t, "tau2", 1, 150 * MS, 207 * MS);
    check_job(&t, "tau3", 0, 70 * MS, T(199, 600));
    check_job(&t, "tau4", 0, 0, 210 * MS);
    assert_int_equal(t.jobs.n, 7);
    assert_true(job(&t, "tau4", 0)->end > job(&t, "tau4", 0)->deadline);
    assert_int_equal(job(&t, "tau4", 0)->deadline, 200 * MS);
    assert_int_equal(meta_misses(&t, "tau4"), 1);
    assert_int_equal(meta_misses(&t, "tau1") + meta_misses(&t, "tau2") +
                     meta_misses(&t, "tau3"), 0);

    static const int64_t p3[][2] = { { T(82, 800), 88 * MS }, { T(92, 800), 96 * MS },
                                     { T(162, 800), 168 * MS } };
    check_kernel(&t, "tau3#0", 75 * MS, 75 * MS, T(168, 600), 3, p3);
    static const int64_t p4[][2] = { { T(74, 800), T(169, 600) }, { T(172, 800), 176 * MS } };
    check_kernel(&t, "tau4#0", 74 * MS, 74 * MS, 182 * MS, 2, p4);
    check_kernel(&t, "tau1#1.0", 83 * MS, 83 * MS, 87 * MS, 0, NULL);
    check_kernel(&t, "tau1#2.1", 173 * MS, 173 * MS, 175 * MS, 0, NULL);

    static const rl want[] = {
        { T(2, 800), "+tau1" },   { T(7, 800), "-tau1" },   { T(12, 800), "+tau1" },
        { T(15, 800), "-tau1" },  { T(73, 800), "+tau4" },  { T(74, 800), "+tau3" },
        { T(74, 800), "-tau4" },  { T(82, 800), "+tau1" },  { T(82, 800), "-tau3" },
        { T(87, 800), "-tau1" },  { T(87, 800), "+tau3" },  { T(92, 800), "+tau1" },
        { T(92, 800), "-tau3" },  { T(95, 800), "-tau1" },  { T(95, 800), "+tau3" },
        { T(162, 800), "+tau1" }, { T(162, 800), "-tau3" }, { T(167, 800), "-tau1" },
        { T(167, 800), "+tau3" }, { T(169, 400), "-tau3" }, { T(169, 400), "+tau4" },
        { T(172, 800), "+tau1" }, { T(172, 800), "-tau4" }, { T(175, 800), "-tau1" },
        { T(175, 800), "+tau4" }, { T(207, 800), "-tau4" },
    };
    check_runlist(&t, sizeof want / sizeof want[0], want, false);
    trace_free(&t);
}

/* ---- Fig. 5(b): the GPU priorities of tau3 and tau4 swapped --------------
 *
 * As (a) until 74. tau3's Begin 74-75: at 74.8 its GPU priority (1) is
 * below the running tau4's (2), so tau3 is pending and tau4 keeps the GPU
 * ("at t = 75, G^e_4,1 obtained GPU access first"). tau1#1's Begin 82-83
 * takes it at 82.8 (tau4: 8.8 ms done); tau1's End 87-88 hands it to the
 * highest pending, tau4 (2 > 1), at 88.0: tau4's kernel is done at 89.2.
 * tau1 holds core 0 (C 88-92, Begin 92-93: tau4, which has not called End,
 * goes to pending; kernel 93-95 with G^m).
 *   95     tau1's G^m and kernel end together. The GPU's completion comes
 *          first at an instant (simcore/sim.c: a task that waits for its
 *          kernel learns at once that it is done), so tau1 does not
 *          suspend: its End 95-96 (the lock is free; tau4, ready to call
 *          End since 89.2, is below it on core 0): tau1 off at 95.8 and
 *          the highest pending, tau4 (2 > 1), on. C 96-99: tau1#1 ends at
 *          99, as in (a).
 *   99     tau4 End 99-100: off at 99.8, tau3 (the only one pending) on;
 *          C4,2 100-102: tau4#0 ends at 102, within 200 ("Task 4 met
 *          deadline"). tau3's kernel from 100.0 (80 ms).
 *   150    as (a): tau2#1 150-160; tau1#2 C 160-162, Begin 162-163 (tau3
 *          off at 162.8, 62.8 done), kernel 163-167 (tau2 165-167), End
 *          167-168 (tau3 back at 168.0), C 168-172, Begin 172-173 (tau3
 *          off at 172.8, 67.6 done), kernel 173-175, End 175-176 (tau3
 *          back at 176.0), C 176-179: tau1#2 ends at 179; tau2#1 179-207.
 *   188.4  tau3's kernel done (12.4 ms more); End 188.4-189.4 (off at
 *          189.2); C3,2 189.4-219.4: tau3#0 ends at 219.4, within 270. */
static void test_fig5b(void **state) {
    (void)state;
    trace t;
    run("gcaps-example2-fig5b.json", &t, true);
    check_job(&t, "tau1", 0, 0, 19 * MS);
    check_job(&t, "tau1", 1, 80 * MS, 99 * MS);
    check_job(&t, "tau1", 2, 160 * MS, 179 * MS);
    check_job(&t, "tau2", 0, 0, 57 * MS);
    check_job(&t, "tau2", 1, 150 * MS, 207 * MS);
    check_job(&t, "tau3", 0, 70 * MS, T(219, 400));
    check_job(&t, "tau4", 0, 0, 102 * MS);
    assert_int_equal(t.jobs.n, 7);
    for (size_t i = 0; i < t.jobs.n; i++)
        assert_true(t.jobs.v[i].end <= t.jobs.v[i].deadline);
    static const int64_t p4[][2] = { { T(82, 800), 88 * MS } };
    check_kernel(&t, "tau4#0", 74 * MS, 74 * MS, T(89, 200), 1, p4);
    static const int64_t p3[][2] = { { T(162, 800), 168 * MS }, { T(172, 800), 176 * MS } };
    check_kernel(&t, "tau3#0", 75 * MS, 100 * MS, T(188, 400), 2, p3);
    check_kernel(&t, "tau1#1.1", 93 * MS, 93 * MS, 95 * MS, 0, NULL);
    static const rl want[] = {
        { T(2, 800), "+tau1" },   { T(7, 800), "-tau1" },   { T(12, 800), "+tau1" },
        { T(15, 800), "-tau1" },  { T(73, 800), "+tau4" },  { T(82, 800), "+tau1" },
        { T(82, 800), "-tau4" },  { T(87, 800), "-tau1" },  { T(87, 800), "+tau4" },
        { T(92, 800), "+tau1" },  { T(92, 800), "-tau4" },  { T(95, 800), "-tau1" },
        { T(95, 800), "+tau4" },  { T(99, 800), "+tau3" },  { T(99, 800), "-tau4" },
        { T(162, 800), "+tau1" }, { T(162, 800), "-tau3" }, { T(167, 800), "-tau1" },
        { T(167, 800), "+tau3" }, { T(172, 800), "+tau1" }, { T(172, 800), "-tau3" },
        { T(175, 800), "-tau1" }, { T(175, 800), "+tau3" }, { T(189, 200), "-tau3" },
    };
    check_runlist(&t, sizeof want / sizeof want[0], want, false);
    for (size_t i = 0; i < 4; i++) assert_int_equal(meta_misses(&t, table2[i].name), 0);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig5a),
        cmocka_unit_test(test_fig5b),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
