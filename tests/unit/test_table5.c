/* test_table5.c -- the GCAPS case study against the paper's Table 5 (issue
 * 27, point 2: "Table 5: mean absolute error over the 20 MORT cells <= 4 ms
 * (with variation, the mean of >= 30 seeded runs), and in every row the
 * order between approaches the paper's").
 *
 * The paper's cells are typed from Table 5 of Wang, Liu, Wong, Kim, "Unleashing
 * the Power of Preemptive Priority-based Scheduling for Real-Time GPU Tasks"
 * (ECRTS 2024), §7.2, Jetson Xavier NX, ms (shared/papers/
 * gcaps-preemptive-context-scheduling-ecrts24.txt, lines 284-291). Ours:
 * scenarios/gcaps-case-study-variation.json (the measured costs, task 7 as a
 * graphics context, execution-time variation), each of its four runs under
 * NSEEDS seeds (1..NSEEDS), the mean over the seeds of each task's MORT.
 * The table is printed (paper vs ours) and kept in docs/rta.md.
 *
 * Neither target is reached yet: both tests are todos that pass while the
 * measured gap stays, and fail (asking to become assertions) when it closes. */
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
#include "test_sanitizer.h"

/* (3 under the sanitizers, which check the runs' memory, not the table:
 * the comparisons are the plain run's; test_sanitizer.h) */
#define NSEEDS (TEST_UNDER_ASAN ? 3 : 30)
#define NRUNS 4
#define NTASKS 5
#define FAILED (-1.0)

static const char *const runs[NRUNS] = {"time-slice-suspend", "time-slice-busy",
                                        "gcaps-suspend", "gcaps-busy"};
static const char *const approach[NRUNS] = {"tsg_rr_suspend", "tsg_rr_busy", "gcaps_suspend",
                                            "gcaps_busy"};
static const char *const tasks[NTASKS] = {"histogram", "mmul_gpu_1", "mmul_cpu", "projection",
                                          "dxtc"};

/* Table 5 (ECRTS 2024, §7.2), MORT and WCRT in ms, by task (rows) and
 * approach (columns, as above); "Failed" (tsg_rr_busy, task 5) is FAILED. */
static const double paper_mort[NTASKS][NRUNS] = {
    {45.33, 26.13, 10.15, 9.68},
    {66.97, 44.47, 22.36, 23.28},
    {71.84, 109.14, 67.39, 85.01},
    {86.50, 75.64, 43.17, 44.91},
    {86.62, 117.68, 49.24, 57.93},
};
static const double paper_wcrt[NTASKS][NRUNS] = {
    {60, 60, 16, 16},
    {73.6, 73.6, 32, 32},
    {76, 129.2, 75, 111},
    {98.2, 192.2, 59, 59},
    {127.8, FAILED, 79, 79},
};

static double ours[NTASKS][NRUNS];
static bool measured;

static int64_t mort(const trace *t, const char *task) {
    int64_t m = -1;
    for (size_t i = 0; i < t->jobs.n; i++)
        if (strcmp(trace_str_get(t, t->jobs.v[i].task), task) == 0 &&
            t->jobs.v[i].end - t->jobs.v[i].release > m)
            m = t->jobs.v[i].end - t->jobs.v[i].release;
    return m;
}

static void measure(void) {
    if (measured) return;
    scn_scenario *s = scn_load("gcaps-case-study-variation.json");
    for (int r = 0; r < NRUNS; r++) {
        int idx = scn_find_run(s, runs[r]);
        if (idx < 0) fail_msg("no run \"%s\"", runs[r]);
        for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
            sim_config cfg;
            char err[512];
            assert_int_equal(scn_config(s, (size_t)idx, &cfg, err, sizeof err), 0);
            cfg.seed = seed;
            trace t;
            trace_init(&t);
            if (sim_run(&cfg, &t, err, sizeof err)) fail_msg("%s", err);
            for (int i = 0; i < NTASKS; i++) {
                int64_t m = mort(&t, tasks[i]);
                assert_true(m > 0);
                ours[i][r] += (double)m / 1e6 / NSEEDS;
            }
            trace_free(&t);
        }
    }
    scn_free(s);
    measured = true;
    printf("Table 5 (ECRTS 2024, Xavier NX) vs ours (mean MORT of %d seeds), ms:\n", NSEEDS);
    printf("%-11s", "task");
    for (int r = 0; r < NRUNS; r++) printf(" | %-22s", approach[r]);
    printf("\n%-11s", "");
    for (int r = 0; r < NRUNS; r++) printf(" | %-22s", "MORT paper/ours  WCRT");
    printf("\n");
    for (int i = 0; i < NTASKS; i++) {
        printf("%d %-9s", i + 1, tasks[i]);
        for (int r = 0; r < NRUNS; r++) {
            char w[16];
            if (paper_wcrt[i][r] == FAILED) snprintf(w, sizeof w, "Failed");
            else snprintf(w, sizeof w, "%.1f", paper_wcrt[i][r]);
            printf(" | %6.2f/%6.2f  %6s", paper_mort[i][r], ours[i][r], w);
        }
        printf("\n");
    }
}

static double mae(void) {
    double e = 0;
    for (int i = 0; i < NTASKS; i++)
        for (int r = 0; r < NRUNS; r++) {
            double d = ours[i][r] - paper_mort[i][r];
            e += d < 0 ? -d : d;
        }
    return e / (NTASKS * NRUNS);
}

/* Pairs of approaches (of the 6 per row) that the paper and we order
 * differently, over all rows; a tie in ours counts as a swap. */
static int order_swaps(int *rows_in_order) {
    int swaps = 0;
    *rows_in_order = 0;
    for (int i = 0; i < NTASKS; i++) {
        int row = 0;
        for (int a = 0; a < NRUNS; a++)
            for (int b = a + 1; b < NRUNS; b++) {
                bool p = paper_mort[i][a] < paper_mort[i][b];
                double d = ours[i][a] - ours[i][b];
                if (d == 0 || (d < 0) != p) row++;
            }
        if (row == 0) ++*rows_in_order;
        else printf("row %d (%s): %d of 6 pairs in another order than the paper's\n", i + 1,
                    tasks[i], row);
        swaps += row;
    }
    return swaps;
}

/* todo (issue 27): mean absolute MORT error over Table 5's 20 cells, target
 * <= 4 ms; measured MAE_TODO (docs/rta.md, "What moved the error": the
 * time-slice columns carry it; with free context switches it is still
 * 4.5 ms, the rest is the GPU demand of task 7, the graphics context). */
#define MAE_TODO "12.1 ms"
static void test_table5_mort_mae_todo_12_1ms(void **state) {
    (void)state;
    measure();
    if (TEST_UNDER_ASAN)
        skip();   /* 3 seeds: the table is compared in the plain run */
    double e = mae();
    printf("mean absolute MORT error: %.2f ms over 20 cells (target <= 4 ms; was %s); by column",
           e, MAE_TODO);
    for (int r = 0; r < NRUNS; r++) {
        double c = 0;
        for (int i = 0; i < NTASKS; i++) {
            double d = ours[i][r] - paper_mort[i][r];
            c += (d < 0 ? -d : d) / NTASKS;
        }
        printf(" %s %.1f", approach[r], c);
    }
    printf("\n");
    if (e <= 4.0)
        fail_msg("Table 5 MORT error is now %.2f ms <= 4 ms: make it an assertion", e);
    /* the gap as measured stays within 1 ms of MAE_TODO */
    assert_true(e > 11.1 && e < 13.1);
}

/* todo (issue 27): the paper's order between approaches in every row;
 * measured ORDER_TODO. Two of the swaps are gcaps_suspend against
 * gcaps_busy in rows 2 and 4, where ours differ by under 0.02 ms (the
 * paper's by 0.9 and 1.7 ms); the others are row 3's tsg_rr_suspend below
 * gcaps_suspend (69.4 vs 70.2; paper 71.8 above 67.4) and row 4's
 * tsg_rr_busy above tsg_rr_suspend (136.6 vs 97.7; paper 75.6 below 86.5). */
#define ORDER_TODO "2 of 5 rows, 4 pairs of 30 swapped"
static void test_table5_order_todo_2_of_5_rows(void **state) {
    (void)state;
    measure();
    if (TEST_UNDER_ASAN)
        skip();   /* 3 seeds: the table is compared in the plain run */
    int rows;
    int swaps = order_swaps(&rows);
    printf("rows in the paper's order: %d of 5, pairs swapped %d of 30 (was %s)\n", rows, swaps,
           ORDER_TODO);
    if (rows == NTASKS) fail_msg("every row of Table 5 is in the paper's order: make it an assertion");
    assert_int_equal(rows, 2);
    assert_int_equal(swaps, 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table5_mort_mae_todo_12_1ms),
        cmocka_unit_test(test_table5_order_todo_2_of_5_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
