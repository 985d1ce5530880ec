/* bench_tasks.c -- the real-time task model's speed (issue 13): simulated
 * seconds of the GCAPS case study (scenarios/gcaps-case-study.json, the
 * Table 4 taskset, 30 s) per wall-clock second, for each of its runs
 * (time-slice / gcaps x suspend / busy). Target: a 30 s run in < 50 ms.
 *
 * Usage: bench_tasks [SCENARIO.json] [REPEATS]   (defaults: the case study, 20)
 *
 * Prints one JSON object per line and run:
 *   {"bench":"tasks","run":"gcaps, busy","simulated_s":30,"ms_per_run":m,
 *    "min_ms":x,"sim_s_per_wall_s":s,"jobs":j,"blocks":b,"pauses":p}
 * ms_per_run is the mean wall time of one sim_run (trace in memory, parse
 * excluded), min_ms the fastest. Exit 1 if a run fails, 2 on bad input. */
#include <stdio.h>
#include <stdlib.h>

#include "../server/formats/scenario.h"
#include "../simcore/sim.h"
#include "bench_util.h"

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "scenarios/gcaps-case-study.json";
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    if (reps < 1) {
        fprintf(stderr, "bench_tasks: REPEATS must be at least 1\n");
        return 2;
    }
    char err[512];
    scn_scenario *s = NULL;
    if (scn_parse_file(path, &s, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    for (size_t r = 0; r < scn_run_count(s); r++) {
        sim_config cfg;
        if (scn_config(s, r, &cfg, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            scn_free(s);
            return 2;
        }
        double total = 0, best = 1e30;
        size_t jobs = 0, blocks = 0, pauses = 0;
        for (int i = 0; i < reps; i++) {
            trace t;
            trace_init(&t);
            double t0 = now_s();
            int rc = sim_run(&cfg, &t, err, sizeof err);
            double dt = now_s() - t0;
            jobs = t.jobs.n;
            blocks = t.blocks.n;
            pauses = t.pauses.n;
            trace_free(&t);
            if (rc != 0) {
                fprintf(stderr, "bench_tasks: %s\n", err);
                scn_free(s);
                return 1;
            }
            total += dt;
            if (dt < best) best = dt;
        }
        double mean = total / reps, sim_s = (double)cfg.duration / 1e9;
        printf("{\"bench\":\"tasks\",\"run\":\"%s\",\"simulated_s\":%g,\"ms_per_run\":%.2f,"
               "\"min_ms\":%.2f,\"sim_s_per_wall_s\":%.0f,\"jobs\":%zu,\"blocks\":%zu,"
               "\"pauses\":%zu}\n",
               scn_run_name(s, r), sim_s, mean * 1e3, best * 1e3, sim_s / mean, jobs, blocks,
               pauses);
    }
    scn_free(s);
    return 0;
}
