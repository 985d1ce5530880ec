/* test_rta_safety.c -- is the corrected analysis (issue 27, simcore/rta.c
 * K1-K5; RTA_CORRECTED) safe against the simulator? Random tasksets of the
 * paper's §7.1 generator (Table 3 defaults) are analysed and simulated
 * under every approach's driver and wait mode (tsg_rr: time-slice; gcaps:
 * gcaps; fmlp: fmlp+; mpcp: mpcp), all tasks released at 0 and every
 * segment time drawn per job uniformly between half its WCET and its WCET
 * (seeded by the taskset's index), and no task's maximum observed response time may
 * pass its corrected bound. The printed and released-code bounds are
 * counted beside it (they are known to be broken: issue 27 item 3) and
 * printed, not asserted.
 *
 * The test runs SAFETY_SETS tasksets (default 24, from index SAFETY_FIRST,
 * default 0) of SAFETY_SECONDS simulated seconds each (default 10); the
 * larger run of docs/rta.md sets them. Mapping a taskset to a simulation as test_contexts_xcheck.c does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../simcore/rta.h"
#include "../../simcore/rta_gen.h"
#include "test_sim_util.h"

#define US 1000LL

typedef struct xset {
    sim_segment segs[RTA_MAX_TASKS][2 * RTA_GEN_MAX_SEGS + 1];
    sim_task tasks[RTA_MAX_TASKS];
    char names[RTA_MAX_TASKS][16];
    size_t n;
} xset;

/* Each segment time uniform on [WCET/2, WCET] (issue 27's "simulated with
 * variation"; drawn per job from the run's seed): the analysis still reads
 * the WCET. */
static sim_dist vary(int64_t wcet) {
    return (sim_dist){ .kind = SIM_DIST_UNIFORM, .min = wcet / 2, .max = wcet };
}

static void xset_from(xset *x, const rta_taskset *ts) {
    x->n = ts->n;
    for (size_t i = 0; i < ts->n; i++) {
        const rta_task *r = &ts->tasks[i];
        int32_t nc = r->gpu_segments + 1, k = 0;
        for (int32_t s = 0; s < nc; s++) {
            int64_t c = r->cpu_total / nc + (s == 0 ? r->cpu_total % nc : 0);
            x->segs[i][k++] = (sim_segment){ .kind = SIM_SEG_CPU, .cpu = c, .cpu_var = vary(c) };
            if (s < r->gpu_segments)
                x->segs[i][k++] = (sim_segment){ .kind = SIM_SEG_GPU, .misc = r->misc[s],
                                                 .exec = r->exec[s],
                                                 .misc_var = vary(r->misc[s]),
                                                 .exec_var = vary(r->exec[s]) };
        }
        snprintf(x->names[i], sizeof x->names[i], "t%zu", i);
        x->tasks[i] = (sim_task){ .name = x->names[i], .cpu = r->cpu, .priority = r->priority,
                                  .best_effort = r->best_effort, .period = r->period,
                                  .deadline = r->deadline, .segments = x->segs[i],
                                  .nsegments = (size_t)k };
    }
}

static const char *driver_of(rta_approach a) {
    switch (a) {
    case RTA_GCAPS_BUSY: case RTA_GCAPS_SUSPEND: return "gcaps";
    case RTA_FMLP_BUSY: case RTA_FMLP_SUSPEND: return "fmlp+";
    case RTA_MPCP_BUSY: case RTA_MPCP_SUSPEND: return "mpcp";
    default: return "time-slice";
    }
}

static void simulate(const xset *x, const rta_taskset *ts, rta_approach a, int64_t duration,
                     uint64_t seed, int64_t *mort) {
    sim_config c;
    memset(&c, 0, sizeof c);
    c.name = "safety";
    c.device = *sim_preset_find("xavier-nx");
    c.tasks = x->tasks;
    c.ntasks = x->n;
    c.cpus = ts->cpus;
    c.duration = duration;
    c.seed = seed;
    bool busy = a == RTA_GCAPS_BUSY || a == RTA_TSG_RR_BUSY || a == RTA_FMLP_BUSY ||
                a == RTA_MPCP_BUSY;
    c.policy.driver = sim_policy_find(SIM_TABLE_DRIVER, driver_of(a));
    c.policy.host = sim_policy_find(SIM_TABLE_HOST, "tasks");
    c.policy.time_slice = ts->time_slice;
    c.policy.context_switch = ts->theta;
    c.policy.runlist_update = ts->epsilon;
    c.policy.gpu_wait = busy ? SIM_WAIT_BUSY : SIM_WAIT_SUSPEND;
    trace t;
    trace_init(&t);
    char err[256];
    int rc = sim_run(&c, &t, err, sizeof err);
    if (rc) fprintf(stderr, "sim_run: %s\n", err);
    assert_int_equal(rc, 0);
    for (size_t i = 0; i < x->n; i++) mort[i] = 0;
    for (size_t j = 0; j < t.jobs.n; j++) {
        const trace_job *J = &t.jobs.v[j];
        assert_true(J->end != TRACE_NONE);
        size_t i = (size_t)atoi(trace_str_get(&t, J->task) + 1);
        if (J->end - J->release > mort[i]) mort[i] = J->end - J->release;
    }
    trace_free(&t);
}

static const rta_approach approaches[] = { RTA_TSG_RR_BUSY, RTA_TSG_RR_SUSPEND, RTA_GCAPS_BUSY,
                                           RTA_GCAPS_SUSPEND, RTA_FMLP_BUSY, RTA_FMLP_SUSPEND,
                                           RTA_MPCP_BUSY, RTA_MPCP_SUSPEND };
#define NA (sizeof approaches / sizeof *approaches)

static void test_corrected_bounds_hold(void **state) {
    (void)state;
    rta_gen_params p;
    rta_gen_defaults(&p);
    static rta_gen_buf buf;
    static xset x;
    int n = getenv("SAFETY_SETS") ? atoi(getenv("SAFETY_SETS")) : 24;
    int64_t secs = getenv("SAFETY_SECONDS") ? atoll(getenv("SAFETY_SECONDS")) : 10;
    int first = getenv("SAFETY_FIRST") ? atoi(getenv("SAFETY_FIRST")) : 0;
    int bounded[NA][3] = {{0}}, viol[NA][3] = {{0}};
    for (int s = first; s < first + n; s++) {
        rta_taskset ts;
        size_t nt = rta_gen_taskset(&p, 27, 0, (uint64_t)s, &buf, &ts);
        ts.epsilon = 1 * MS;
        ts.theta = 200 * US;
        ts.time_slice = 1024 * US;
        xset_from(&x, &ts);
        for (size_t a = 0; a < NA; a++) {
            int64_t wcrt[3][RTA_MAX_TASKS], mort[RTA_MAX_TASKS];
            bool any = false;
            for (int sem = 0; sem < 3; sem++) {
                ts.semantics = (rta_semantics)sem;
                rta_result res = { .wcrt = wcrt[sem] };
                rta_analyse(&ts, approaches[a], &res);
                for (size_t i = 0; i < nt; i++) any |= wcrt[sem][i] >= 0;
            }
            if (!any) continue;
            simulate(&x, &ts, approaches[a], secs * SEC, (uint64_t)s, mort);
            for (int sem = 0; sem < 3; sem++)
                for (size_t i = 0; i < nt; i++) {
                    if (wcrt[sem][i] < 0) continue;
                    bounded[a][sem]++;
                    if (mort[i] > wcrt[sem][i]) {
                        viol[a][sem]++;
                        if (sem == RTA_CORRECTED || getenv("SAFETY_VERBOSE"))
                            printf("  set %d %s %s t%zu: MORT %lld > bound %lld\n", s,
                                   rta_approach_name(approaches[a]),
                                   sem == 0 ? "printed" : sem == 1 ? "released" : "corrected", i,
                                   (long long)mort[i], (long long)wcrt[sem][i]);
                    }
                }
        }
    }
    printf("%d tasksets (from %d) x %lld s: bounded tasks / MORT above the bound (printed, released, "
           "corrected):\n", n, first, (long long)secs);
    int bad = 0;
    for (size_t a = 0; a < NA; a++) {
        printf("  %-14s %5d/%-4d %5d/%-4d %5d/%-4d\n", rta_approach_name(approaches[a]),
               bounded[a][0], viol[a][0], bounded[a][1], viol[a][1], bounded[a][2], viol[a][2]);
        bad += viol[a][RTA_CORRECTED];
    }
    assert_int_equal(bad, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corrected_bounds_hold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
