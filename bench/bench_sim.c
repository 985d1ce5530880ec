/* bench_sim.c -- simulator throughput: block placements per second on the
 * h100 preset (132 SMs), for 1M, 4M and 16M blocks (or the counts given as
 * arguments). The workload: 4096 kernels over 64 streams at three priority
 * levels plus "none", mixed block sizes, shared memory and registers, block
 * times cycling through four values, issued over the first 20 ms so that
 * the EE queues stay deep. Everything comes from a fixed-seed PRNG, so every
 * run simulates the same thing.
 *
 * Usage: bench_sim [--db FILE] [BLOCKS...]
 *
 * Prints one JSON object per line and run:
 *   {"bench":"sim","mode":"memory","blocks":N,"seconds":s,"blocks_per_s":x,
 *    "cpu_seconds":c,"peak_rss_mb":m}
 * Mode "memory" (no --db) times sim_run keeping the whole trace in memory;
 * the timed span includes sizing the block array for every block and
 * mapping its pages in one call (prefault_blocks).
 * Mode "stream" (--db FILE, recreated) times sim_run with a block sink that
 * hands every batch of blocks to db_run_add_blocks, plus db_run_finish: the
 * run ends up in SQLite and at most one batch of blocks is ever in memory.
 * Its line adds "store_seconds", the wall time spent inside the database
 * calls (the rest is the simulator). `seconds` is wall time; `cpu_seconds`
 * is this process's CPU time over the same span, which tells a busy machine
 * from a slow simulator. peak_rss_mb is the process's peak, so run one size
 * per process to read each size's own. Exit 1 (with a line on stderr) if a
 * run fails, 2 on bad arguments. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../db/db.h"
#include "bench_util.h"
#include "../simcore/sim.h"

#define NKERNELS 4096
#define NSTREAMS 64

static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi) {
    return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* Mode "memory": the trace's block array, sized for every block before
 * the run (sim_run then finds it big enough and keeps it), and its pages
 * mapped in one madvise(MADV_POPULATE_WRITE) call. Left to first touch,
 * each 4 KB page of the 512 MB that 16M blocks take is one page fault
 * during the run, ~0.2 s of system time on the VM of issue 9; populated
 * in one call the kernel maps them in a loop, without a trap per page.
 * Timed with the run: it is part of keeping the trace in memory. A kernel
 * without MADV_POPULATE_WRITE (before Linux 5.14) refuses it, and the
 * pages are then faulted in as before. */
static int prefault_blocks(trace *t, size_t n) {
    if (trace_reserve_blocks(t, n) != 0) return -1;
#ifdef MADV_POPULATE_WRITE
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)t->blocks.v, hi = lo + n * sizeof *t->blocks.v;
    if (pg > 0) {
        lo = (lo + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
        if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
    }
#endif
    return 0;
}

/* The block sink of mode "stream": every batch straight into the run. */
typedef struct stream_sink {
    db_run_writer *w;
    int64_t blocks;
    double store_s;          /* wall time inside the database calls */
    char err[256];
} stream_sink;

static int stream_emit(void *ctx, const trace_block *b, size_t n) {
    stream_sink *ss = ctx;
    double t0 = now_s();
    int rc = db_run_add_blocks(ss->w, b, n, ss->err, sizeof ss->err);
    ss->store_s += now_s() - t0;
    ss->blocks += (int64_t)n;
    return rc;
}

static int bench(int64_t total, db *store) {
    static sim_stream streams[NSTREAMS];
    static char snames[NSTREAMS][8];
    static sim_op ops[NKERNELS];
    static char knames[NKERNELS][8];
    static int64_t times[NKERNELS][4];
    static const int32_t prios[4] = { -2, -1, 0, SIM_PRIO_NONE };
    static const int32_t threads[5] = { 64, 128, 256, 512, 1024 };
    uint64_t seed = 42;

    for (int i = 0; i < NSTREAMS; i++) {
        snprintf(snames[i], sizeof snames[i], "S%d", i);
        streams[i] = (sim_stream){ .name = snames[i], .process = "P0", .priority = prios[i % 4] };
    }
    int64_t per = total / NKERNELS, left = total;
    for (int i = 0; i < NKERNELS; i++) {
        int64_t blocks = i == NKERNELS - 1 ? left : rng_range(&seed, per / 2, per + per / 2);
        if (blocks > left - (NKERNELS - 1 - i)) blocks = left - (NKERNELS - 1 - i);
        if (blocks < 1) blocks = 1;
        left -= blocks;
        snprintf(knames[i], sizeof knames[i], "K%d", i);
        for (int j = 0; j < 4; j++) times[i][j] = rng_range(&seed, 5000, 50000);
        int32_t thr = threads[rng_range(&seed, 0, 4)];
        ops[i] = (sim_op){
            .kind = SIM_OP_KERNEL,
            .name = knames[i],
            .stream = (int32_t)rng_range(&seed, 0, NSTREAMS - 1),
            .at = rng_range(&seed, 0, 20000000),
            .blocks = blocks,
            .threads = thr,
            .smem = rng_range(&seed, 0, 3) == 0 ? 0 : rng_range(&seed, 0, 48 * 1024),
            .regs = (int32_t)rng_range(&seed, 16, 64),
            .block_time = times[i],
            .nblock_time = 4,
        };
    }
    sim_config cfg = {
        .name = "bench",
        .device = *sim_preset_find("h100"),
        .streams = streams,
        .nstreams = NSTREAMS,
        .ops = ops,
        .nops = NKERNELS,
        .seed = 42,
    };
    trace t;
    trace_init(&t);
    char err[256];
    if (!store) {
        double t0 = now_s(), c0 = cpu_s();
        int rc = prefault_blocks(&t, (size_t)total);
        if (rc == 0) rc = sim_run(&cfg, &t, err, sizeof err);
        else snprintf(err, sizeof err, "out of memory for %lld blocks", (long long)total);
        double secs = now_s() - t0, cpu = cpu_s() - c0;
        if (rc != 0 || (int64_t)t.blocks.n != total) {
            fprintf(stderr, "bench_sim: %lld blocks: %s\n", (long long)total,
                    rc ? err : "not every block was placed");
            trace_free(&t);
            return -1;
        }
        printf("{\"bench\":\"sim\",\"mode\":\"memory\",\"blocks\":%lld,\"seconds\":%.3f,"
               "\"blocks_per_s\":%.0f,\"cpu_seconds\":%.3f,\"peak_rss_mb\":%.1f}\n",
               (long long)total, secs, (double)total / secs, cpu, peak_rss_mb());
        fflush(stdout);
        trace_free(&t);
        return 0;
    }

    char exp[DB_SLUG_SIZE], run[DB_SLUG_SIZE];
    if (db_create_experiment(store, "bench", NULL, "scenario", NULL, NULL, exp, err,
                             sizeof err) != 0) {
        fprintf(stderr, "bench_sim: %s\n", err);
        return -1;
    }
    stream_sink ss = {0};
    sim_block_sink sink = {.ctx = &ss, .emit = stream_emit};
    cfg.block_sink = &sink;
    double t0 = now_s(), c0 = cpu_s();
    int rc = db_run_begin(store, exp, "bench", run, &ss.w, ss.err, sizeof ss.err);
    if (rc == 0) db_run_kernels(ss.w, &t);   /* the pyramid takes each batch (issue 9) */
    ss.store_s = now_s() - t0;
    if (rc == 0 && sim_run(&cfg, &t, err, sizeof err) != 0) {
        fprintf(stderr, "bench_sim: %lld blocks: %s%s%s\n", (long long)total, err,
                ss.err[0] ? ": " : "", ss.err);
        db_run_abort(ss.w);
        trace_free(&t);
        return -1;
    }
    double f0 = now_s();
    if (rc == 0) rc = db_run_finish(ss.w, &t, ss.err, sizeof ss.err);
    ss.store_s += now_s() - f0;
    double secs = now_s() - t0, cpu = cpu_s() - c0;
    trace_free(&t);
    if (rc != 0 || ss.blocks != total) {
        fprintf(stderr, "bench_sim: %lld blocks: %s\n", (long long)total,
                rc ? ss.err : "not every block was streamed");
        return -1;
    }
    printf("{\"bench\":\"sim\",\"mode\":\"stream\",\"blocks\":%lld,\"seconds\":%.3f,"
           "\"blocks_per_s\":%.0f,\"cpu_seconds\":%.3f,\"store_seconds\":%.3f,"
           "\"peak_rss_mb\":%.1f}\n",
           (long long)total, secs, (double)total / secs, cpu, ss.store_s, peak_rss_mb());
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    static const int64_t defaults[3] = { 1000000, 4000000, 16000000 };
    int64_t sizes[64];
    int nsizes = 0;
    const char *dbpath = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0) {
            if (++i == argc) {
                fprintf(stderr, "bench_sim: --db needs a file name\n");
                return 2;
            }
            dbpath = argv[i];
            continue;
        }
        char *end;
        long long n = strtoll(argv[i], &end, 10);
        if (*end || n < NKERNELS || nsizes == 64) {
            fprintf(stderr, "bench_sim: argument %d: \"%s\" is not a block count >= %d\n", i,
                    argv[i], NKERNELS);
            return 2;
        }
        sizes[nsizes++] = n;
    }
    if (!nsizes)
        for (int i = 0; i < 3; i++) sizes[nsizes++] = defaults[i];
    db *store = NULL;
    if (dbpath) {
        char err[256];
        unlink(dbpath);   /* every bench run starts from an empty database */
        if (db_open(dbpath, &store, err, sizeof err) != 0) {
            fprintf(stderr, "bench_sim: %s\n", err);
            return 1;
        }
    }
    int rc = 0;
    for (int i = 0; i < nsizes && rc == 0; i++)
        if (bench(sizes[i], store) != 0) rc = 1;
    db_close(store);
    return rc;
}
