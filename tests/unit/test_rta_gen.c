/* test_rta_gen.c -- the taskset generator (simcore/rta_gen.c) against the
 * rules it follows: the GCAPS paper's §7.1 and Table 3 (ECRTS 2024), the
 * authors' taskset_gen.py as docs/gcaps-analysis.md §4 reads it (its
 * Params, create_single_task, random_divider, sort_tasks_RM), and UUniFast's
 * own property (Bini & Buttazzo 2005, the paper's ref. [8]): the parts are
 * uniform over the simplex, so each part's mean is the total over n.
 *
 * Each rule is checked on every task of many drawn tasksets; the
 * statistical ones (the means of UUniFast's parts) over 800 cores, with a
 * tolerance of about four standard errors. The draws are deterministic
 * (seed, point, index), so a result never flickers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../simcore/rta_gen.h"

#define NSETS 200
#define UNIT_NS 10000        /* the released code's 0.01 ms */

static rta_gen_buf buf;

/* a task's G: the sum of its segments' G^m and G^e */
static int64_t gpu_total(const rta_task *t) {
    int64_t g = 0;
    for (int j = 0; j < t->gpu_segments; j++) g += t->misc[j] + t->exec[j];
    return g;
}

/* U_i in hundredths. create_single_task: E = U * T, C + G = E (Table 3:
 * U in hundredths, T in whole ms), so C + G is exactly U hundredths of T. */
static int32_t util_of(const rta_task *t) {
    int64_t e = t->cpu_total + gpu_total(t);
    assert_int_equal(e * 100 % t->period, 0);
    return (int32_t)(e * 100 / t->period);
}

/* create_single_task: C = round(E / (1 + r), 2), r a two-decimal draw from
 * Table 3's [0.2, 2] (G_i / C_i): some r in 20..200 hundredths gives this C,
 * rounded to 10 us (half up or, Python's round, half to even). */
static bool c_is_rounded_for_some_ratio(int64_t e_units, int64_t c_units) {
    for (int64_t r = 20; r <= 200; r++) {
        int64_t num = e_units * 100, den = 100 + r;
        int64_t lo = num / den;                       /* floor */
        int64_t twice_rem = 2 * (num % den);
        if (twice_rem > den && c_units == lo + 1) return true;
        if (twice_rem < den && c_units == lo) return true;
        if (twice_rem == den && (c_units == lo || c_units == lo + 1)) return true;
    }
    return false;
}

/* Table 3 and create_single_task, per task, in both of the generator's
 * ways: T whole ms in [30, 500], D = T (docs/gcaps-analysis.md: "D = T in
 * all experiments"), a GPU-using task with [1, 3] GPU segments and one CPU
 * segment more, C from some G/C ratio of [0.2, 2] rounded to 10 us, each
 * segment's G^m / G in [0.1, 0.3] (G^m = G_seg * U[0.1, 0.3], whole ns). */
static void check_task(const rta_task *t) {
    assert_true(t->period >= 30000000 && t->period <= 500000000);
    assert_int_equal(t->period % 1000000, 0);
    assert_int_equal(t->deadline, t->period);
    assert_int_equal(t->cpu_total % UNIT_NS, 0);
    assert_true(t->gpu_segments >= 0 && t->gpu_segments <= 3);
    assert_int_equal(t->cpu_segments, t->gpu_segments + 1);
    int32_t u = util_of(t);
    assert_true(u >= 1);
    if (!t->gpu_segments) return;
    int64_t e_units = (int64_t)u * (t->period / 1000000);
    if (!c_is_rounded_for_some_ratio(e_units, t->cpu_total / UNIT_NS))
        fail_msg("C = %lld x 10 us is E = %lld x 10 us over 1 + r rounded for no r in "
                 "[0.20, 2.00]", (long long)(t->cpu_total / UNIT_NS), (long long)e_units);
    for (int j = 0; j < t->gpu_segments; j++) {
        int64_t g = t->misc[j] + t->exec[j];
        assert_int_equal(g % UNIT_NS, 0);
        assert_true(t->misc[j] >= 0 && t->exec[j] >= 0);
        assert_true(t->misc[j] * 100 <= 30 * g);           /* G^m <= 0.3 G_seg */
        assert_true(t->misc[j] * 100 > 10 * g - 100);      /* G^m >= 0.1 G_seg, whole ns */
    }
}

/* Table 3 per core (tasks drawn per core): [3, 6] tasks, each pinned to the
 * core it was drawn for (docs/gcaps-analysis.md §4: "tasks are generated
 * already pinned to a CPU"), the core's utilisation a two-decimal draw of
 * [0.4, 0.6] split over them, each at least 0.01 (the released code's
 * minimum, which may lift a core's sum by 0.01 a task). Also returns, for
 * UUniFast's means, each core's first and last task's share times k. */
static void check_per_core(const rta_gen_params *p, double *first_sum, double *last_sum,
                           int *ncores, bool ends[2]) {
    for (uint64_t k = 0; k < NSETS; k++) {
        rta_taskset ts = {0};
        size_t n = rta_gen_taskset(p, 21, 0, k, &buf, &ts);
        assert_int_equal(ts.n, n);
        assert_int_equal(ts.cpus, 4);
        size_t i = 0;
        for (int32_t cpu = 0; cpu < 4; cpu++) {
            size_t from = i;
            int32_t sum = 0, lifted = 0;
            for (; i < n && ts.tasks[i].cpu == cpu; i++) {
                check_task(&ts.tasks[i]);
                int32_t u = util_of(&ts.tasks[i]);
                sum += u;
                lifted += u == 1;
            }
            size_t cnt = i - from;
            if (cnt < 3 || cnt > 6)
                fail_msg("taskset %llu: core %d has %zu tasks, Table 3: [3, 6]",
                         (unsigned long long)k, cpu, cnt);
            ends[0] |= cnt == 3;
            ends[1] |= cnt == 6;
            if (sum < 40 || sum > 60 + lifted)
                fail_msg("taskset %llu: core %d's utilisation %d hundredths, Table 3: "
                         "[0.40, 0.60]", (unsigned long long)k, cpu, sum);
            *first_sum += (double)cnt * util_of(&ts.tasks[from]) / sum;
            *last_sum += (double)cnt * util_of(&ts.tasks[i - 1]) / sum;
            ++*ncores;
        }
        if (i != n) fail_msg("taskset %llu: tasks not in per-core runs", (unsigned long long)k);
    }
}

static void test_per_core_draws_follow_table3(void **state) {
    (void)state;
    rta_gen_params p;
    rta_gen_defaults(&p);
    for (int released = 0; released < 2; released++) {
        p.released_code = released;
        double first = 0, last = 0;
        int ncores = 0;
        bool ends[2] = {false, false};
        check_per_core(&p, &first, &last, &ncores, ends);
        /* randint(3, 6): both ends drawn */
        assert_true(ends[0] && ends[1]);
        /* UUniFast (the paper's words) gives a core's k tasks equal mean
         * shares, 1/k each; the released code's divider keeps the larger
         * piece first (mean (k-1)/k of the rest) and then shuffles, which
         * makes every position's mean 1/k again. k x share: mean 1, with a
         * standard error over 800 cores of about 0.03 for UUniFast's parts
         * and 0.065 for the released divider's (a position holds the big
         * piece one time in k, so its share spreads wider): four of them. */
        first /= ncores;
        last /= ncores;
        double tol = released ? 0.25 : 0.12;
        if (first < 1 - tol || first > 1 + tol || last < 1 - tol || last > 1 + tol)
            fail_msg("released=%d: k x share of a core's first task %.3f, last %.3f; "
                     "UUniFast: 1", released, first, last);
    }
}

/* The number-of-tasks experiment (Fig. 8(a), the released code's e=2): n
 * tasks, each U from {0.05, 0.10, ..., 0.25} (randrange(5, 30, 5)), placed
 * by WFD (§7.1): by decreasing utilisation (the paper; ties in generation
 * order, sorted() being stable) or in generation order (the released code,
 * whose sort result is discarded), each to the least-loaded core, the
 * lowest-numbered on a tie (sorted() over the cores by load is stable). */
static void test_task_count_draws_and_wfd(void **state) {
    (void)state;
    rta_gen_params p;
    rta_gen_defaults(&p);
    p.tasks = 10;
    for (int released = 0; released < 2; released++) {
        p.released_code = released;
        int seen[26] = {0};
        for (uint64_t k = 0; k < NSETS; k++) {
            rta_taskset ts = {0};
            assert_int_equal(rta_gen_taskset(&p, 5, 1, k, &buf, &ts), 10);
            int32_t u[10];
            size_t order[10];
            for (size_t i = 0; i < 10; i++) {
                check_task(&ts.tasks[i]);
                u[i] = util_of(&ts.tasks[i]);
                assert_true(u[i] >= 5 && u[i] <= 25 && u[i] % 5 == 0);
                seen[u[i]]++;
                order[i] = i;
            }
            if (!released)   /* stable: by decreasing U, ties by index */
                for (size_t i = 1; i < 10; i++)
                    for (size_t j = i; j > 0 && u[order[j - 1]] < u[order[j]]; j--) {
                        size_t t = order[j];
                        order[j] = order[j - 1];
                        order[j - 1] = t;
                    }
            int32_t load[4] = {0};
            for (size_t q = 0; q < 10; q++) {
                const rta_task *t = &ts.tasks[order[q]];
                assert_true(t->cpu >= 0 && t->cpu < 4);
                for (int32_t c = 0; c < 4; c++) {
                    if (c < t->cpu) assert_true(load[c] > load[t->cpu]);
                    if (c > t->cpu) assert_true(load[c] >= load[t->cpu]);
                }
                load[t->cpu] += u[order[q]];
            }
        }
        for (int v = 5; v <= 25; v += 5) assert_true(seen[v] > 0);
    }
}

/* RM (§7.1; sort_tasks_RM): the real-time tasks get priorities n_rt..1,
 * shorter period higher, equal periods in generation order (sorted() is
 * stable); best-effort tasks, int(be_ratio x n) of them chosen uniformly
 * (§7.1, Fig. 8(f)), have no real-time priority. */
static void test_rm_priorities_and_best_effort(void **state) {
    (void)state;
    rta_gen_params p;
    rta_gen_defaults(&p);
    p.be_pct = 30;
    bool tie_seen = false;
    size_t be_first = 0, sets_with_be = 0;
    for (uint64_t k = 0; k < NSETS; k++) {
        rta_taskset ts = {0};
        size_t n = rta_gen_taskset(&p, 8, 2, k, &buf, &ts);
        size_t nbe = 0;
        bool prio_used[RTA_MAX_TASKS + 1] = {false};
        for (size_t i = 0; i < n; i++) {
            const rta_task *t = &ts.tasks[i];
            if (t->best_effort) {
                nbe++;
                assert_int_equal(t->priority, 0);
                continue;
            }
            assert_true(t->priority >= 1);
            assert_false(prio_used[t->priority]);
            prio_used[t->priority] = true;
        }
        assert_int_equal(nbe, 30 * n / 100);   /* int(0.3 x n) */
        for (size_t v = 1; v <= n - nbe; v++) assert_true(prio_used[v]);
        if (nbe) {
            sets_with_be++;
            be_first += ts.tasks[0].best_effort;
        }
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++) {
                const rta_task *a = &ts.tasks[i], *b = &ts.tasks[j];
                if (a->best_effort || b->best_effort) continue;
                if (a->period < b->period || a->period == b->period)
                    assert_true(a->priority > b->priority);
                else
                    assert_true(a->priority < b->priority);
                tie_seen |= a->period == b->period;
            }
    }
    assert_true(tie_seen);
    /* chosen uniformly: the first task is best-effort in about 30 % of the
     * tasksets that have some (int(0.3 n) of n), not never, not always */
    assert_true(be_first * 100 > sets_with_be * 15 && be_first * 100 < sets_with_be * 45);
}

/* rta_gen_check: a range whose ends are swapped, or more tasks than the
 * analysis takes, is refused with a line naming the parameter. */
static void test_check_names_the_parameter(void **state) {
    (void)state;
    rta_gen_params p;
    char err[256];
    rta_gen_defaults(&p);
    assert_int_equal(rta_gen_check(&p, err, sizeof err), 0);
    p.period_lo_ms = 600;
    assert_int_equal(rta_gen_check(&p, err, sizeof err), -1);
    assert_string_equal(err, "period_ms: [600, 500] is not a range within [1, 1000000]");
    rta_gen_defaults(&p);
    p.cpus = RTA_MAX_TASKS / 6 + 1;
    assert_int_equal(rta_gen_check(&p, err, sizeof err), -1);
    char want[256];
    snprintf(want, sizeof want, "cpus x tasks_per_cpu: up to %d tasks, at most %d are analysed",
             (RTA_MAX_TASKS / 6 + 1) * 6, RTA_MAX_TASKS);
    assert_string_equal(err, want);
    p.tasks = 10;   /* a given task count: the per-core counts are not used */
    assert_int_equal(rta_gen_check(&p, err, sizeof err), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_core_draws_follow_table3),
        cmocka_unit_test(test_task_count_draws_and_wfd),
        cmocka_unit_test(test_rm_priorities_and_best_effort),
        cmocka_unit_test(test_check_names_the_parameter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
