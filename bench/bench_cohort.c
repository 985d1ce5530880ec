/* bench_cohort.c -- issue 28, "cost by kernels, not blocks": the Rodinia
 * Gaussian trace (nsys2022.4_export_rodinia_gaussian_rtx3090_8k_kernels_
 * report2.sqlite: 8,190 kernels, 4,095 Fan2 of a 1024 x 1024 grid, 4.29 G
 * blocks) replayed with cohorts (simcore/cohort.c), beside the same
 * replay's kernels with Fan2's grid cut to 1/256 (4096 blocks; 16.8 M
 * blocks in all) simulated block by block and with cohorts.
 *
 * Usage: bench_cohort TRACE_DIR (or $SCHEDLAB_TRACES); without the trace
 * it prints one line saying so and exits 0.
 *
 * Prints one JSON object per line:
 *   {"bench":"cohort","case":"replay","seconds":s,"cpu_seconds":c,...}: the
 *     whole replay derivation (device, calibration, the refining passes)
 *     from the imported trace;
 *   {"bench":"cohort","case":C,"blocks":N,"records":R,"seconds":s,
 *    "cpu_seconds":c,"blocks_per_s":x,"peak_rss_mb":m} for C = "gaussian
 *     cohorts" (the replay's base run), "small grid blocks" and "small grid
 *     cohorts": blocks_per_s is blocks placed per second, per block
 *     equivalent where they are cohorts. peak_rss_mb is the process's
 *     peak so far (the import included). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../importers/importers.h"
#include "../server/app/replay.h"
#include "../server/formats/scenario.h"
#include "../simcore/sim.h"

#define GAUSSIAN "nsys2022.4_export_rodinia_gaussian_rtx3090_8k_kernels_report2.sqlite"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double peak_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static int discard(void *ctx, const trace_block *b, size_t n) {
    (void)b;
    *(int64_t *)ctx += (int64_t)n;
    return 0;
}

/* Simulate scenario JSON `scn` (cohorts on or off) and print its row. */
static int sim_row(json_t *scn, const char *what, int cohorts) {
    json_object_set_new(scn, "cohorts", cohorts ? json_true() : json_false());
    char *txt = json_dumps(scn, JSON_COMPACT);
    char err[1024];
    scn_scenario *s = NULL;
    sim_config cfg;
    if (!txt || scn_parse(txt, strlen(txt), "bench", &s, err, sizeof err) != 0 ||
        scn_config(s, 0, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "bench_cohort: %s: %s\n", what, txt ? err : "out of memory");
        free(txt);
        return -1;
    }
    free(txt);
    int64_t sunk = 0;
    sim_block_sink sink = {.ctx = &sunk, .emit = discard, .batch = 0};
    cfg.block_sink = &sink;   /* blocks one by one are counted and dropped */
    trace t;
    trace_init(&t);
    double c0 = cpu_s(), w0 = now_s();
    int rc = sim_run(&cfg, &t, err, sizeof err);
    double w = now_s() - w0, c = cpu_s() - c0;
    if (rc != 0) {
        fprintf(stderr, "bench_cohort: %s: %s\n", what, err);
    } else {
        int64_t blocks = trace_block_total(&t) + sunk;
        printf("{\"bench\":\"cohort\",\"case\":\"%s\",\"blocks\":%lld,\"records\":%zu,"
               "\"seconds\":%.4f,\"cpu_seconds\":%.4f,\"blocks_per_s\":%.0f,\"peak_rss_mb\":%.1f}\n",
               what, (long long)blocks, t.cohorts.n + (size_t)sunk, w, c,
               c > 0 ? (double)blocks / c : 0.0, peak_mb());
        fflush(stdout);
    }
    trace_free(&t);
    scn_free(s);
    return rc;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : getenv("SCHEDLAB_TRACES");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", GAUSSIAN);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("bench_cohort: skipped: %s not found (give the traces folder)\n", path);
        return 0;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)len + 1);
    if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "bench_cohort: cannot read %s\n", path);
        return 1;
    }
    fclose(f);
    imp_file file = {GAUSSIAN, data, (size_t)len};
    trace m;
    trace_init(&m);
    char err[1024] = "";
    if (imp_import(IMP_UNKNOWN, &file, 1, &m, err, sizeof err) != 0) {
        fprintf(stderr, "bench_cohort: %s\n", err);
        return 1;
    }
    free(data);
    json_t *scn = NULL;
    replay_info info;
    double c0 = cpu_s(), w0 = now_s();
    if (replay_scenario_info(&m, GAUSSIAN, NULL, &scn, &info, err, sizeof err) != 0) {
        fprintf(stderr, "bench_cohort: %s\n", err);
        return 1;
    }
    printf("{\"bench\":\"cohort\",\"case\":\"replay\",\"kernels\":%zu,\"passes\":%d,"
           "\"seconds\":%.4f,\"cpu_seconds\":%.4f,\"peak_rss_mb\":%.1f}\n",
           info.kernels, info.passes, now_s() - w0, cpu_s() - c0, peak_mb());
    fflush(stdout);
    trace_free(&m);
    int rc = sim_row(scn, "gaussian cohorts", 1);
    /* Fan2's grid cut to 1/256: a size block by block can run */
    json_t *ops = json_object_get(scn, "ops");
    for (size_t i = 0; i < json_array_size(ops); i++) {
        json_t *o = json_array_get(ops, i);
        json_int_t b = json_integer_value(json_object_get(o, "blocks"));
        if (b > 65536) json_object_set_new(o, "blocks", json_integer(b / 256));
    }
    rc |= sim_row(scn, "small grid blocks", 0);
    rc |= sim_row(scn, "small grid cohorts", 1);
    json_decref(scn);
    return rc ? 1 : 0;
}
