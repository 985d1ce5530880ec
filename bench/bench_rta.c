/* bench_rta.c -- (taskset, approach) response-time analyses per second: the
 * GCAPS paper's Fig. 8(a) sweep (10 points x N tasksets, the ten analyses of
 * simcore/rta.h, FMLP+ and MPCP included, drawn and analysed in process by server/app/sweep.c) on every
 * core and on one, best and median of R repeats, and how the thread time
 * splits between drawing tasksets and analysing them. One JSON line per
 * thread count. The machine is shared, so it also reports analyses per
 * second of process CPU time (getrusage), which other people's load does
 * not change: cores x that is what an idle machine would do.
 *
 *   bench_rta [TASKSETS_PER_POINT (1000)] [REPEATS (5)]
 *
 * The authors' Python analysis does about 2,800 analyses/s (8 approaches x
 * 1,000 tasksets in 2.9 s, issue 14; with its FMLP+ and MPCP analyses,
 * 3,450 per CPU-second, issue 27); the target is 100x that. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../server/app/sweep.h"

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long per = argc > 1 ? atol(argv[1]) : 1000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (per < 1 || reps < 1 || reps > 100) {
        fprintf(stderr, "usage: bench_rta [TASKSETS_PER_POINT] [REPEATS]\n");
        return 2;
    }
    char spec[1024];
    snprintf(spec, sizeof spec,
             "{\"schema\": \"schedlab-sweep/1\", \"name\": \"bench\", \"seed\": 2024, "
             "\"tasksets\": %ld, \"x\": {\"param\": \"tasks\", \"values\": [2, 4, 6, 8, 10, 12, "
             "14, 16, 18, 20]}, \"semantics\": \"released-code\", \"generator\": "
             "\"released-code\", \"time_slice\": \"1ms\"}",
             per);
    char err[512];
    sweep_spec *s;
    if (sweep_spec_parse(spec, strlen(spec), "bench", &s, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int counts[2] = {(int)(cores < 1 ? 1 : cores), 1};
    for (int c = 0; c < (counts[0] > 1 ? 2 : 1); c++) {
        double rate[100], gen = 0, rta = 0, cpu = 0;
        sweep_stats st = {0};
        for (int r = 0; r < reps; r++) {
            json_t *res;
            double c0 = cpu_seconds();
            int rc = sweep_run(s, 0, 1, counts[c], &res, &st, err, sizeof err);
            cpu += cpu_seconds() - c0;
            if (rc) {
                fprintf(stderr, "%s\n", err);
                return 1;
            }
            json_decref(res);
            rate[r] = (double)st.analyses / st.wall_s;
            gen += st.gen_s;
            rta += st.rta_s;
        }
        qsort(rate, (size_t)reps, sizeof *rate, cmp);
        printf("{\"threads\": %d, \"tasksets\": %llu, \"analyses\": %llu, \"repeats\": %d, "
               "\"best_analyses_per_s\": %.0f, \"median_analyses_per_s\": %.0f, "
               "\"draw_share\": %.3f, \"analyse_share\": %.3f, \"draw_us_per_taskset\": %.3f, "
               "\"analyse_us_per_analysis\": %.3f, \"analyses_per_cpu_s\": %.0f}\n",
               counts[c], (unsigned long long)st.tasksets, (unsigned long long)st.analyses, reps,
               rate[reps - 1], rate[reps / 2], gen / (gen + rta), rta / (gen + rta),
               gen / reps / (double)st.tasksets * 1e6, rta / reps / (double)st.analyses * 1e6,
               (double)st.analyses * reps / cpu);
    }
    sweep_spec_free(s);
    return 0;
}
