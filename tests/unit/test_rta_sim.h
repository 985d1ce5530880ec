/* test_rta_sim.h -- a response-time-analysis taskset as a simulation, shared
 * by the tests that check the analysis against the simulator
 * (test_contexts_xcheck.c, test_rta_safety.c).
 *
 * Mapping: each task is its own process; its job is CPU, GPU, CPU, ..., GPU,
 * CPU (eta^g GPU segments between eta^g + 1 CPU segments that split C_i
 * evenly, the remainder to the first); a GPU segment is {misc G^m, exec G^e}
 * (one kernel that fills the GPU); xavier-nx; each approach under its own
 * driver (tsg_rr: time-slice, gcaps: gcaps, fmlp: fmlp+, mpcp: mpcp) and
 * wait mode.
 *
 * Include after <cmocka.h>. Every helper is static inline so that each test
 * binary carries its own copy and unused ones cost nothing. */
#ifndef TEST_RTA_SIM_H
#define TEST_RTA_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../simcore/rta.h"
#include "../../simcore/rta_gen.h"
#include "test_sim_util.h"

typedef struct xset {
    sim_segment segs[RTA_MAX_TASKS][2 * RTA_GEN_MAX_SEGS + 1];
    sim_task tasks[RTA_MAX_TASKS];
    char names[RTA_MAX_TASKS][16];
    size_t n;
} xset;

/* Each segment time uniform on [WCET/2, WCET] (issue 27's "simulated with
 * variation"; drawn per job from the run's seed): the analysis still reads
 * the WCET. */
static inline sim_dist xset_vary(int64_t wcet) {
    return (sim_dist){ .kind = SIM_DIST_UNIFORM, .min = wcet / 2, .max = wcet };
}

/* The taskset as tasks; every segment at its WCET, or with `vary` drawn per
 * job as xset_vary says. */
static inline void xset_from(xset *x, const rta_taskset *ts, bool vary) {
    x->n = ts->n;
    for (size_t i = 0; i < ts->n; i++) {
        const rta_task *r = &ts->tasks[i];
        int32_t nc = r->gpu_segments + 1, k = 0;
        for (int32_t s = 0; s < nc; s++) {
            int64_t c = r->cpu_total / nc + (s == 0 ? r->cpu_total % nc : 0);
            x->segs[i][k++] = (sim_segment){ .kind = SIM_SEG_CPU, .cpu = c };
            if (vary) x->segs[i][k - 1].cpu_var = xset_vary(c);
            if (s < r->gpu_segments) {
                x->segs[i][k++] = (sim_segment){ .kind = SIM_SEG_GPU, .misc = r->misc[s],
                                                 .exec = r->exec[s] };
                if (vary) {
                    x->segs[i][k - 1].misc_var = xset_vary(r->misc[s]);
                    x->segs[i][k - 1].exec_var = xset_vary(r->exec[s]);
                }
            }
        }
        snprintf(x->names[i], sizeof x->names[i], "t%zu", i);
        x->tasks[i] = (sim_task){ .name = x->names[i], .cpu = r->cpu, .priority = r->priority,
                                  .best_effort = r->best_effort, .period = r->period,
                                  .deadline = r->deadline, .segments = x->segs[i],
                                  .nsegments = (size_t)k };
    }
}

/* The simulator's driver for an analysis approach. */
static inline const char *xset_driver_of(rta_approach a) {
    switch (a) {
    case RTA_GCAPS_BUSY: case RTA_GCAPS_SUSPEND: return "gcaps";
    case RTA_FMLP_BUSY: case RTA_FMLP_SUSPEND: return "fmlp+";
    case RTA_MPCP_BUSY: case RTA_MPCP_SUSPEND: return "mpcp";
    default: return "time-slice";
    }
}

/* Simulate under the approach's driver and wait mode for `duration` with
 * `seed`; mort[i], the maximum observed response time of task i. */
static inline void xset_simulate(const xset *x, const rta_taskset *ts, rta_approach a,
                                 const char *name, int64_t duration, uint64_t seed,
                                 int64_t *mort) {
    sim_config c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.device = *sim_preset_find("xavier-nx");
    c.tasks = x->tasks;
    c.ntasks = x->n;
    c.cpus = ts->cpus;
    c.duration = duration;
    c.seed = seed;
    bool busy = a == RTA_GCAPS_BUSY || a == RTA_TSG_RR_BUSY || a == RTA_FMLP_BUSY ||
                a == RTA_MPCP_BUSY;
    c.policy.driver = sim_policy_find(SIM_TABLE_DRIVER, xset_driver_of(a));
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

#endif
