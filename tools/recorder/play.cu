// play.cu -- schedlab-play: play a scenario's block-level ops on a real GPU
// and record every block with recorder.cuh (the globaltimer CSV).
//
//   schedlab-play SCENARIO.json [-o TRACE.csv] [--variant NAME] [--repeat N]
//   schedlab-play --probe [-o PROBE.txt]
//
// The scenario is read by the project's own parser (server/formats/scenario.c, linked
// from libschedlab.a), so its validation and error messages are those of
// `schedlab simulate`. What it plays (tools/recorder/README.md, "Playing a
// scenario"):
//   - each kernel op -> one launch of a spin kernel with the op's blocks,
//     threads and dynamic shared memory; block b spins block_time[b % n] on
//     %globaltimer and is recorded by rec_block_begin/rec_block_end;
//   - streams -> CUDA streams created with default (blocking) flags, so the
//     legacy NULL stream's rules (TX2 paper, rules N1/N2) hold; priorities
//     mapped "high" -> -1, "low"/"none" -> 0, an integer as is, clamped to
//     the device's range; the stream "null" -> the legacy NULL stream;
//   - ops are issued by one host thread at their `at` (relative to a start
//     instant), in scenario order; a sync op is cudaStreamSynchronize of its
//     stream (it holds the host's later ops of every stream, which the
//     simulator's sync does only for its own stream);
//   - copies -> cudaMemcpyAsync / cudaMemsetAsync on pinned host memory; not
//     in the CSV (the format has blocks only), but they keep stream order.
// What a real GPU cannot play (warp programs, real-time tasks, several
// processes, register counts, QoS goals, fixed copy durations) exits 2 with
// one line naming the scenario and the field.
//
// Every output file begins with '#' lines: GPU, driver, CUDA, date, the
// command, and, per op, its host issue instant converted to %globaltimer
// through an anchor taken just before the run (a 1-thread kernel writes
// %globaltimer to mapped host memory while the host reads its own clock).
#include "recorder.cuh"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "../../server/formats/scenario.h"
}

#define PLAY_EXIT_FAIL 1
#define PLAY_EXIT_BAD 2

static const char usage[] =
    "usage: schedlab-play SCENARIO.json [-o TRACE.csv] [--variant NAME] [--repeat N]\n"
    "       schedlab-play --probe [-o PROBE.txt]\n"
    "\n"
    "Plays a schedlab scenario's kernels and copies on this machine's GPU and writes\n"
    "one globaltimer CSV row per thread block (kernel, block, sm, start_ns, end_ns,\n"
    "stream, threads), which `schedlab import` reads. Each kernel op is a spin kernel\n"
    "with the op's blocks, threads and shared memory, spinning block_time per block;\n"
    "ops are launched by one host thread at their `at` times, in scenario order.\n"
    "\n"
    "  -o FILE        write the CSV there (default: stdout)\n"
    "  --variant NAME play that run of the scenario (its ops are the same; only\n"
    "                 the device and policies, which a real GPU ignores, differ)\n"
    "  --repeat N     play it N times; with N > 1 and -o T.csv the files are\n"
    "                 T-r1.csv ... T-rN.csv (stdout: one after the other)\n"
    "  --probe        measure the GPU instead: %globaltimer step, launch latency,\n"
    "                 back-to-back kernel gap, copy bandwidths\n"
    "\n"
    "Exit status: 0 ok, 1 CUDA or I/O failure, 2 bad input or a scenario field a\n"
    "real GPU cannot play (warp programs, tasks, several processes, regs, qos_goal).\n";

static char g_command[2048];

static int64_t host_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// Sleep until host_ns() >= t: nanosleep to 300 us before, then spin, so an
// op is issued within a few microseconds of its `at`.
static void wait_until(int64_t t) {
    for (;;) {
        int64_t left = t - host_ns();
        if (left <= 0) return;
        if (left > 300000) {
            struct timespec ts = {0, 0};
            int64_t s = left - 300000;
            ts.tv_sec = s / 1000000000;
            ts.tv_nsec = s % 1000000000;
            nanosleep(&ts, NULL);
        }
    }
}

#define CK(call)                                                                      \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            fprintf(stderr, "schedlab-play: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(PLAY_EXIT_FAIL);                                                     \
        }                                                                             \
    } while (0)

__global__ void play_spin(rec_block *rec, const unsigned long long *times, unsigned ntimes) {
    rec_block_begin(rec);
    unsigned long long ns = times[rec_block_index() % ntimes];
    unsigned long long t0 = rec_globaltimer();
    while (rec_globaltimer() - t0 < ns) {
    }
    rec_block_end(rec);
}

// The anchor: one thread writes %globaltimer to mapped host memory until
// the host sets *stop; the host pairs its clock with what it reads.
__global__ void play_clock(volatile unsigned long long *gt, volatile int *stop) {
    while (!*stop) *gt = rec_globaltimer();
}

// Offset such that globaltimer ~= host_ns() + offset, from the tightest of
// many (host before, gt, host after) samples.
static int64_t anchor_offset(int64_t *uncertainty) {
    unsigned long long *gt;
    int *stop;
    CK(cudaHostAlloc(&gt, sizeof *gt, cudaHostAllocMapped));
    CK(cudaHostAlloc(&stop, sizeof *stop, cudaHostAllocMapped));
    *gt = 0;
    *stop = 0;
    unsigned long long *dgt;
    int *dstop;
    CK(cudaHostGetDevicePointer(&dgt, gt, 0));
    CK(cudaHostGetDevicePointer(&dstop, stop, 0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    play_clock<<<1, 1, 0, s>>>(dgt, dstop);
    CK(cudaGetLastError());
    volatile unsigned long long *vgt = gt;
    int64_t t_give_up = host_ns() + 2000000000LL;
    while (*vgt == 0 && host_ns() < t_give_up) {
    }
    int64_t best_w = INT64_MAX, best_off = 0;
    for (int i = 0; i < 20000; i++) {
        int64_t a = host_ns();
        unsigned long long g = *vgt;
        int64_t b = host_ns();
        unsigned long long g2 = *vgt;
        (void)g2;
        if (b - a < best_w) {
            best_w = b - a;
            best_off = (int64_t)g - (a + (b - a) / 2);
        }
    }
    *(volatile int *)stop = 1;
    CK(cudaStreamSynchronize(s));
    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(gt));
    CK(cudaFreeHost(stop));
    *uncertainty = best_w;
    return best_off;
}

static void read_driver_version(char *buf, size_t n) {
    snprintf(buf, n, "unknown");
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04
        // Release Build ...": the first word that is digits and dots.
        for (char *w = strtok(line, " \t\n"); w; w = strtok(NULL, " \t\n")) {
            if (w[0] >= '0' && w[0] <= '9' && strchr(w, '.') &&
                strspn(w, "0123456789.") == strlen(w)) {
                snprintf(buf, n, "%s", w);
                break;
            }
        }
    }
    fclose(f);
}

static void write_header(FILE *f, const char *what) {
    cudaDeviceProp p;
    int dev = 0, drv = 0, rt = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&p, dev));
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    char dv[64];
    read_driver_version(dv, sizeof dv);
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "# schedlab-play: %s\n", what);
    int khz = 0;
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    fprintf(f, "# gpu: %s, %d SMs, compute capability %d.%d, %.0f MHz\n", p.name,
            p.multiProcessorCount, p.major, p.minor, khz / 1000.0);
    fprintf(f, "# driver: %s (CUDA driver API %d.%d), runtime %d.%d\n", dv, drv / 1000,
            (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    fprintf(f, "# date: %s\n", date);
    fprintf(f, "# command: %s\n", g_command);
}

/* ---- playing a scenario ------------------------------------------------ */

typedef struct play_op {
    const sim_op *op;
    cudaStream_t stream;
    const char *stream_name;
    rec_launch rec;
    unsigned long long *times;  // device copy of block_time
    unsigned ntimes;
    int64_t issued;             // host ns just before the launch or copy call
} play_op;

// One line naming the scenario and the field a GPU cannot play; exit 2.
static void cannot(const char *path, const char *field, const char *why) {
    fprintf(stderr, "%s: %s: %s\n", path, field, why);
    exit(PLAY_EXIT_BAD);
}

static void check_playable(const char *path, const sim_config *c, const cudaDeviceProp *p) {
    char f[96];
    if (c->ntasks > 0) cannot(path, "tasks", "real-time tasks are not played on hardware");
    const char *proc = NULL;
    for (size_t i = 0; i < c->nops; i++) {
        const sim_op *o = &c->ops[i];
        const sim_stream *st = &c->streams[o->stream];
        if (!proc) proc = st->process;
        if (strcmp(proc, st->process) != 0) {
            snprintf(f, sizeof f, "ops[%zu].process", i);
            cannot(path, f, "ops of more than one process are not played on hardware "
                            "(one player is one CUDA context)");
        }
        if (o->kind == SIM_OP_KERNEL) {
            if (o->program) {
                snprintf(f, sizeof f, "ops[%zu].program", i);
                cannot(path, f, "warp programs are not played on hardware");
            }
            if (o->regs > 0) {
                snprintf(f, sizeof f, "ops[%zu].regs", i);
                cannot(path, f, "register counts are not played on hardware (the spin "
                                "kernel's own count decides)");
            }
            if (o->qos_goal > 0) {
                snprintf(f, sizeof f, "ops[%zu].qos_goal", i);
                cannot(path, f, "QoS goals are not played on hardware");
            }
            if (o->threads > p->maxThreadsPerBlock) {
                snprintf(f, sizeof f, "ops[%zu].threads", i);
                cannot(path, f, "more threads per block than this GPU allows");
            }
            if (o->smem > (int64_t)p->sharedMemPerBlockOptin) {
                snprintf(f, sizeof f, "ops[%zu].smem", i);
                cannot(path, f, "more shared memory per block than this GPU allows");
            }
            if (o->blocks > 0x7fffffff) {
                snprintf(f, sizeof f, "ops[%zu].blocks", i);
                cannot(path, f, "more blocks than one launch's grid.x allows");
            }
        } else if (o->kind == SIM_OP_COPY) {
            if (o->duration > 0) {
                snprintf(f, sizeof f, "ops[%zu].duration", i);
                cannot(path, f, "a copy of fixed duration is not played on hardware "
                                "(a real copy moves bytes)");
            }
            if (o->direction == TRACE_COPY_P2P || o->direction == TRACE_COPY_OTHER) {
                snprintf(f, sizeof f, "ops[%zu].direction", i);
                cannot(path, f, "only h2d, d2h, d2d, h2h and memset copies are played");
            }
        }
    }
}

// Play run `run` of the scenario once into f. Returns 0 or exits.
static int play_once(const char *path, const scn_scenario *s, size_t run, FILE *f,
                     const char *what) {
    char err[1024];
    sim_config c;
    if (scn_config(s, run, &c, err, sizeof err)) {
        fprintf(stderr, "%s: run \"%s\": %s\n", path, scn_run_name(s, run), err);
        exit(PLAY_EXIT_BAD);
    }
    cudaDeviceProp p;
    int dev;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&p, dev));
    check_playable(path, &c, &p);

    int least, greatest;
    CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t *streams = (cudaStream_t *)calloc(c.nstreams ? c.nstreams : 1, sizeof *streams);
    for (size_t i = 0; i < c.nstreams; i++) {
        const sim_stream *st = &c.streams[i];
        if (strcmp(st->name, "null") == 0) {
            streams[i] = cudaStreamLegacy;
            continue;
        }
        // TX2 paper §3: none behaves as low; CUDA's default priority is 0,
        // the lowest. Lower numbers are higher priorities, as in sim.h.
        int prio = st->priority == SIM_PRIO_NONE ? 0 : st->priority;
        if (prio < greatest) prio = greatest;
        if (prio > least) prio = least;
        CK(cudaStreamCreateWithPriority(&streams[i], cudaStreamDefault, prio));
    }

    // Everything that allocates or synchronizes happens before the start
    // instant: buffers, block-time tables, the recorder's buffers.
    size_t maxsmem = 0;
    int64_t maxcopy = 0;
    play_op *ops = (play_op *)calloc(c.nops ? c.nops : 1, sizeof *ops);
    for (size_t i = 0; i < c.nops; i++) {
        const sim_op *o = &c.ops[i];
        ops[i].op = o;
        ops[i].stream = streams[o->stream];
        ops[i].stream_name = c.streams[o->stream].name;
        if (o->kind == SIM_OP_KERNEL) {
            CK(rec_launch_init(&ops[i].rec, o->name, ops[i].stream_name,
                               dim3((unsigned)o->blocks), dim3((unsigned)o->threads)));
            unsigned n = o->nblock_time ? (unsigned)o->nblock_time : 1;
            unsigned long long *h = (unsigned long long *)calloc(n, sizeof *h);
            for (unsigned k = 0; k < o->nblock_time; k++) h[k] = (unsigned long long)o->block_time[k];
            CK(cudaMalloc(&ops[i].times, n * sizeof *h));
            CK(cudaMemcpy(ops[i].times, h, n * sizeof *h, cudaMemcpyHostToDevice));
            free(h);
            ops[i].ntimes = n;
            if ((size_t)o->smem > maxsmem) maxsmem = (size_t)o->smem;
        } else if (o->kind == SIM_OP_COPY && o->bytes > maxcopy) {
            maxcopy = o->bytes;
        }
    }
    if (maxsmem > 48 * 1024)
        CK(cudaFuncSetAttribute(play_spin, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)maxsmem));
    void *hsrc = NULL, *hdst = NULL, *dsrc = NULL, *ddst = NULL;
    if (maxcopy > 0) {
        CK(cudaHostAlloc(&hsrc, (size_t)maxcopy, cudaHostAllocDefault));
        CK(cudaHostAlloc(&hdst, (size_t)maxcopy, cudaHostAllocDefault));
        CK(cudaMalloc(&dsrc, (size_t)maxcopy));
        CK(cudaMalloc(&ddst, (size_t)maxcopy));
        memset(hsrc, 1, (size_t)maxcopy);
        CK(cudaMemset(dsrc, 1, (size_t)maxcopy));
    }
    // Warm up: load the module and touch every stream once.
    {
        rec_launch w;
        CK(rec_launch_init(&w, "warmup", "", dim3(1), dim3(32)));
        unsigned long long *t0;
        CK(cudaMalloc(&t0, sizeof *t0));
        CK(cudaMemset(t0, 0, sizeof *t0));
        play_spin<<<1, 32>>>(w.dev, t0, 1);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        rec_launch_free(&w);
        CK(cudaFree(t0));
    }
    int64_t unc;
    int64_t off = anchor_offset(&unc);
    CK(cudaDeviceSynchronize());

    // The start instant: 20 ms from now, so the first op is not late.
    int64_t start = host_ns() + 20000000;
    for (size_t i = 0; i < c.nops; i++) {
        const sim_op *o = &c.ops[i];
        wait_until(start + o->at);
        ops[i].issued = host_ns();
        if (o->kind == SIM_OP_KERNEL) {
            play_spin<<<(unsigned)o->blocks, (unsigned)o->threads, (size_t)o->smem,
                        ops[i].stream>>>(ops[i].rec.dev, ops[i].times, ops[i].ntimes);
            CK(cudaGetLastError());
        } else if (o->kind == SIM_OP_COPY) {
            size_t b = (size_t)o->bytes;
            switch (o->direction) {
            case TRACE_COPY_H2D:
                CK(cudaMemcpyAsync(ddst, hsrc, b, cudaMemcpyHostToDevice, ops[i].stream));
                break;
            case TRACE_COPY_D2H:
                CK(cudaMemcpyAsync(hdst, dsrc, b, cudaMemcpyDeviceToHost, ops[i].stream));
                break;
            case TRACE_COPY_D2D:
                CK(cudaMemcpyAsync(ddst, dsrc, b, cudaMemcpyDeviceToDevice, ops[i].stream));
                break;
            case TRACE_COPY_H2H:
                CK(cudaMemcpyAsync(hdst, hsrc, b, cudaMemcpyHostToHost, ops[i].stream));
                break;
            case TRACE_COPY_MEMSET:
                CK(cudaMemsetAsync(ddst, 0, b, ops[i].stream));
                break;
            default:
                break;
            }
        } else {
            CK(cudaStreamSynchronize(ops[i].stream));
        }
    }
    CK(cudaDeviceSynchronize());

    write_header(f, what);
    fprintf(f, "# run: %s; start instant = globaltimer %lld (host clock anchor, +-%lld ns)\n",
            scn_run_name(s, run), (long long)(start + off), (long long)unc);
    fprintf(f, "# issue,op,kind,stream,at_ns,issued_globaltimer_ns\n");
    for (size_t i = 0; i < c.nops; i++) {
        const sim_op *o = &c.ops[i];
        fprintf(f, "# issue,%s,%s,%s,%lld,%lld\n", o->name,
                o->kind == SIM_OP_KERNEL ? "kernel" : o->kind == SIM_OP_COPY ? "copy" : "sync",
                ops[i].stream_name, (long long)o->at, (long long)(ops[i].issued + off));
    }
    rec_launch *ls = (rec_launch *)calloc(c.nops ? c.nops : 1, sizeof *ls);
    int nl = 0;
    for (size_t i = 0; i < c.nops; i++)
        if (c.ops[i].kind == SIM_OP_KERNEL) ls[nl++] = ops[i].rec;
    if (rec_write_csv(f, ls, nl)) exit(PLAY_EXIT_FAIL);
    free(ls);

    for (size_t i = 0; i < c.nops; i++) {
        if (c.ops[i].kind != SIM_OP_KERNEL) continue;
        rec_launch_free(&ops[i].rec);
        CK(cudaFree(ops[i].times));
    }
    if (hsrc) {
        CK(cudaFreeHost(hsrc));
        CK(cudaFreeHost(hdst));
        CK(cudaFree(dsrc));
        CK(cudaFree(ddst));
    }
    for (size_t i = 0; i < c.nstreams; i++)
        if (strcmp(c.streams[i].name, "null") != 0) CK(cudaStreamDestroy(streams[i]));
    free(streams);
    free(ops);
    return 0;
}

/* ---- --probe ------------------------------------------------------------ */

// Distinct consecutive %globaltimer values seen by one thread: their steps.
__global__ void probe_step(unsigned long long *steps, int n) {
    unsigned long long last = rec_globaltimer();
    int k = 0;
    unsigned long long t0 = last;
    while (k < n && rec_globaltimer() - t0 < 50000000ULL) {
        unsigned long long t = rec_globaltimer();
        if (t != last) {
            steps[k++] = t - last;
            last = t;
        }
    }
    for (; k < n; k++) steps[k] = 0;
}

__global__ void probe_stamp(unsigned long long *out) {
    if (threadIdx.x == 0) {
        out[0] = rec_globaltimer();
    }
}

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static long long median(long long *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_ll);
    return v[n / 2];
}

static int probe(FILE *f) {
    write_header(f, "--probe");
    // 1. %globaltimer step
    enum { NSTEP = 4096 };
    unsigned long long *dsteps, hsteps[NSTEP];
    CK(cudaMalloc(&dsteps, sizeof hsteps));
    probe_step<<<1, 1>>>(dsteps, NSTEP);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hsteps, dsteps, sizeof hsteps, cudaMemcpyDeviceToHost));
    long long st[NSTEP];
    int ns = 0;
    for (int i = 0; i < NSTEP; i++)
        if (hsteps[i]) st[ns++] = (long long)hsteps[i];
    if (ns) {
        long long mn = st[0], mx = st[0];
        for (int i = 0; i < ns; i++) {
            if (st[i] < mn) mn = st[i];
            if (st[i] > mx) mx = st[i];
        }
        fprintf(f, "globaltimer_step_ns min %lld median %lld max %lld (of %d steps)\n", mn,
                median(st, ns), mx, ns);
    }
    CK(cudaFree(dsteps));

    // 2. launch latency: host issue instant -> the block's %globaltimer
    //    start, through the anchor; idle GPU, one 1-thread block each.
    int64_t unc;
    int64_t off = anchor_offset(&unc);
    unsigned long long *stamp;
    CK(cudaMalloc(&stamp, sizeof *stamp));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    enum { NL = 50 };
    long long lat[NL], call[NL];
    for (int i = 0; i < NL; i++) {
        CK(cudaDeviceSynchronize());
        int64_t a = host_ns();
        probe_stamp<<<1, 1, 0, s>>>(stamp);
        int64_t b = host_ns();
        CK(cudaStreamSynchronize(s));
        unsigned long long g;
        CK(cudaMemcpy(&g, stamp, sizeof g, cudaMemcpyDeviceToHost));
        lat[i] = (long long)g - (a + off);
        call[i] = b - a;
    }
    fprintf(f, "anchor_uncertainty_ns %lld\n", (long long)unc);
    fprintf(f, "launch_call_ns median %lld\n", median(call, NL));
    fprintf(f, "launch_to_block_start_ns median %lld\n", median(lat, NL));

    // 3. back-to-back gap: kernel i's last block end -> kernel i+1's first
    //    block start on one stream.
    enum { NB = 64 };
    rec_launch rl[NB];
    unsigned long long *t1;
    unsigned long long one = 10000;  // 10 us each
    CK(cudaMalloc(&t1, sizeof one));
    CK(cudaMemcpy(t1, &one, sizeof one, cudaMemcpyHostToDevice));
    for (int i = 0; i < NB; i++) CK(rec_launch_init(&rl[i], "b2b", "s", dim3(1), dim3(32)));
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < NB; i++) play_spin<<<1, 32, 0, s>>>(rl[i].dev, t1, 1);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    long long gap[NB - 1];
    rec_block prev, cur;
    CK(cudaMemcpy(&prev, rl[0].dev, sizeof prev, cudaMemcpyDeviceToHost));
    for (int i = 1; i < NB; i++) {
        CK(cudaMemcpy(&cur, rl[i].dev, sizeof cur, cudaMemcpyDeviceToHost));
        gap[i - 1] = (long long)cur.start - (long long)prev.end;
        prev = cur;
    }
    fprintf(f, "back_to_back_gap_ns median %lld\n", median(gap, NB - 1));
    for (int i = 0; i < NB; i++) rec_launch_free(&rl[i]);

    // 4. copy bandwidth, pinned memory, 256 MiB, events
    size_t bytes = (size_t)256 << 20;
    void *h, *d, *d2;
    CK(cudaHostAlloc(&h, bytes, cudaHostAllocDefault));
    CK(cudaMalloc(&d, bytes));
    CK(cudaMalloc(&d2, bytes));
    memset(h, 1, bytes);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const char *names[3] = {"h2d", "d2h", "d2d"};
    for (int k = 0; k < 3; k++) {
        float best = 1e30f;
        for (int r = 0; r < 3; r++) {
            CK(cudaEventRecord(e0, s));
            if (k == 0) CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s));
            if (k == 1) CK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
            if (k == 2) CK(cudaMemcpyAsync(d2, d, bytes, cudaMemcpyDeviceToDevice, s));
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (ms < best) best = ms;
        }
        fprintf(f, "copy_%s_256MiB_ms %.3f bandwidth_GBps %.2f\n", names[k], best,
                (double)bytes / (best * 1e-3) / 1e9);
    }
    int ce = 0;
    CK(cudaDeviceGetAttribute(&ce, cudaDevAttrAsyncEngineCount, 0));
    fprintf(f, "async_engine_count %d\n", ce);
    int least, greatest;
    CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    fprintf(f, "stream_priority_range least %d greatest %d\n", least, greatest);
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    fprintf(f, "smem_per_sm %zu smem_per_block_optin %zu reserved_smem_per_block %zu "
               "max_threads_per_sm %d max_blocks_per_sm %d regs_per_sm %d\n",
            p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock,
            p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor, p.regsPerMultiprocessor);
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, play_spin));
    fprintf(f, "play_spin_regs_per_thread %d\n", fa.numRegs);
    CK(cudaFreeHost(h));
    CK(cudaFree(d));
    CK(cudaFree(d2));
    return 0;
}

int main(int argc, char **argv) {
    size_t used = 0;
    for (int i = 0; i < argc && used + 2 < sizeof g_command; i++)
        used += (size_t)snprintf(g_command + used, sizeof g_command - used, "%s%s",
                                 i ? " " : "", argv[i]);
    const char *scenario = NULL, *out = NULL, *variant = NULL;
    long repeat = 1;
    int do_probe = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--probe")) {
            do_probe = 1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--variant") ||
                   !strcmp(a, "--repeat")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "schedlab-play: option %s needs a value\n", a);
                return PLAY_EXIT_BAD;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--variant")) {
                variant = v;
            } else if (!strcmp(a, "--repeat")) {
                char *end;
                errno = 0;
                repeat = strtol(v, &end, 10);
                if (errno || *end || repeat < 1 || repeat > 1000) {
                    fprintf(stderr, "schedlab-play: --repeat: \"%s\" is not a count from 1 to 1000\n", v);
                    return PLAY_EXIT_BAD;
                }
            } else {
                out = v;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "schedlab-play: unknown option %s (see --help)\n", a);
            return PLAY_EXIT_BAD;
        } else if (!scenario) {
            scenario = a;
        } else {
            fprintf(stderr, "schedlab-play: one SCENARIO.json only (see --help)\n");
            return PLAY_EXIT_BAD;
        }
    }
    if (do_probe) {
        if (scenario) {
            fprintf(stderr, "schedlab-play: --probe takes no scenario\n");
            return PLAY_EXIT_BAD;
        }
        FILE *f = out ? fopen(out, "w") : stdout;
        if (!f) {
            fprintf(stderr, "schedlab-play: %s: %s\n", out, strerror(errno));
            return PLAY_EXIT_FAIL;
        }
        probe(f);
        return fclose(f) ? PLAY_EXIT_FAIL : 0;
    }
    if (!scenario) {
        fprintf(stderr, "schedlab-play: needs one SCENARIO.json (see --help)\n");
        return PLAY_EXIT_BAD;
    }
    char err[1024];
    scn_scenario *s;
    if (scn_parse_file(scenario, &s, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return PLAY_EXIT_BAD;
    }
    size_t run = 0;
    if (variant) {
        int r = scn_find_run(s, variant);
        if (r < 0) {
            fprintf(stderr, "%s: --variant: no run named \"%s\"\n", scenario, variant);
            return PLAY_EXIT_BAD;
        }
        run = (size_t)r;
    }
    // Check what cannot be played before touching the GPU's streams.
    {
        sim_config c;
        if (scn_config(s, run, &c, err, sizeof err)) {
            fprintf(stderr, "%s: run \"%s\": %s\n", scenario, scn_run_name(s, run), err);
            return PLAY_EXIT_BAD;
        }
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
            // Still say what is unplayable first: that answer needs no GPU.
            cudaDeviceProp any;
            memset(&any, 0, sizeof any);
            any.maxThreadsPerBlock = 1 << 30;
            any.sharedMemPerBlockOptin = (size_t)1 << 40;
            check_playable(scenario, &c, &any);
            fprintf(stderr, "schedlab-play: no CUDA device found\n");
            return PLAY_EXIT_FAIL;
        }
    }
    for (long r = 1; r <= repeat; r++) {
        FILE *f = stdout;
        char name[4096];
        if (out) {
            if (repeat > 1) {
                const char *dot = strrchr(out, '.');
                const char *slash = strrchr(out, '/');
                if (dot && (!slash || dot > slash))
                    snprintf(name, sizeof name, "%.*s-r%ld%s", (int)(dot - out), out, r, dot);
                else
                    snprintf(name, sizeof name, "%s-r%ld", out, r);
            } else {
                snprintf(name, sizeof name, "%s", out);
            }
            if (!(f = fopen(name, "w"))) {
                fprintf(stderr, "schedlab-play: %s: %s\n", name, strerror(errno));
                return PLAY_EXIT_FAIL;
            }
        }
        char what[4200];
        snprintf(what, sizeof what, "%s, repetition %ld of %ld", scenario, r, repeat);
        play_once(scenario, s, run, f, what);
        if (f != stdout && fclose(f)) return PLAY_EXIT_FAIL;
    }
    scn_free(s);
    return 0;
}
