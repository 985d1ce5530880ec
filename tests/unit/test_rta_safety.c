/* test_rta_safety.c -- is the corrected analysis (issue 27, simcore/rta.c
 * K1-K5, K7; rta_lock.c K6, K8; RTA_CORRECTED) safe against the simulator? Random tasksets of the
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
 * default 0, of the generator's seed SAFETY_SEED, default 27) of
 * SAFETY_SECONDS simulated seconds each (default 10); the
 * larger run of docs/rta.md sets them. By default it also runs the
 * tasksets that the 10,000-taskset run found breaking an earlier corrected
 * analysis (`regressions` below; SAFETY_FIRST or SAFETY_SETS set, they are
 * left out so that the larger run counts each taskset once). Mapping a
 * taskset to a simulation: test_rta_sim.h, as test_contexts_xcheck.c does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../simcore/rta.h"
#include "../../simcore/rta_gen.h"
#include "test_rta_sim.h"

#define US 1000LL

static const rta_approach approaches[] = { RTA_TSG_RR_BUSY, RTA_TSG_RR_SUSPEND, RTA_GCAPS_BUSY,
                                           RTA_GCAPS_SUSPEND, RTA_FMLP_BUSY, RTA_FMLP_SUSPEND,
                                           RTA_MPCP_BUSY, RTA_MPCP_SUSPEND };
#define NA (sizeof approaches / sizeof *approaches)

/* Tasksets (generator seed, index) whose simulated MORT broke the
 * corrected analysis as it was before (docs/rta.md, safety run): seed 27's
 * 3215 t1 under fmlp_busy and mpcp_busy (no θ per request: K8), 4018 t1
 * and 7335 t19 under gcaps_suspend (a lower task's update on the core at
 * the return from the GPU: K7); seed 29's 2941 t5 under fmlp_suspend (a
 * same-core higher-priority holder suspended: K9). */
static const struct { uint64_t seed; int index; } regressions[] = {
    { 27, 3215 }, { 27, 4018 }, { 27, 7335 }, { 29, 2941 },
};
#define NREG (sizeof regressions / sizeof *regressions)

static void test_corrected_bounds_hold(void **state) {
    (void)state;
    rta_gen_params p;
    rta_gen_defaults(&p);
    static rta_gen_buf buf;
    static xset x;
    int n = getenv("SAFETY_SETS") ? atoi(getenv("SAFETY_SETS")) : 24;
    int64_t secs = getenv("SAFETY_SECONDS") ? atoll(getenv("SAFETY_SECONDS")) : 10;
    int first = getenv("SAFETY_FIRST") ? atoi(getenv("SAFETY_FIRST")) : 0;
    /* SAFETY_SEED draws other tasksets (default 27) */
    uint64_t seed = getenv("SAFETY_SEED") ? strtoull(getenv("SAFETY_SEED"), NULL, 10) : 27;
    size_t nreg = getenv("SAFETY_SETS") || getenv("SAFETY_FIRST") || getenv("SAFETY_SEED") ? 0 : NREG;
    int bounded[NA][3] = {{0}}, viol[NA][3] = {{0}};
    for (int q = 0; q < n + (int)nreg; q++) {
        int s = q < n ? first + q : regressions[q - n].index;
        uint64_t gseed = q < n ? seed : regressions[q - n].seed;
        rta_taskset ts;
        size_t nt = rta_gen_taskset(&p, gseed, 0, (uint64_t)s, &buf, &ts);
        ts.epsilon = 1 * MS;
        ts.theta = 200 * US;
        ts.time_slice = 1024 * US;
        xset_from(&x, &ts, true);
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
            xset_simulate(&x, &ts, approaches[a], "safety", secs * SEC, (uint64_t)s, mort);
            for (int sem = 0; sem < 3; sem++)
                for (size_t i = 0; i < nt; i++) {
                    if (wcrt[sem][i] < 0) continue;
                    bounded[a][sem]++;
                    if (mort[i] > wcrt[sem][i]) {
                        viol[a][sem]++;
                        if (sem == RTA_CORRECTED || getenv("SAFETY_VERBOSE"))
                            printf("  seed %llu set %d %s %s t%zu: MORT %lld > bound %lld\n",
                                   (unsigned long long)gseed, s,
                                   rta_approach_name(approaches[a]),
                                   sem == 0 ? "printed" : sem == 1 ? "released" : "corrected", i,
                                   (long long)mort[i], (long long)wcrt[sem][i]);
                    }
                }
        }
    }
    printf("%d tasksets (from %d) and %zu regression tasksets x %lld s: bounded tasks / MORT above "
           "the bound (printed, released, corrected):\n", n, first, nreg, (long long)secs);
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
