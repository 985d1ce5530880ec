// mostroom.cu -- schedlab-mostroom: the most-room paper's four purpose-built
// kernels (Appendix A) and its serial / concurrent-isolated /
// concurrent-colocated experiment (§3.2, §5, Table 1), on the GPU at hand,
// every block recorded with recorder.cuh.
//
//   schedlab-mostroom [-o DIR] [--runs N] [--pairs l1,fp,mem,uvm] [--plan]
//
// The kernels, as Appendix A describes them (the paper's source is not
// published; these are written from its text):
//   l1   "repeatedly access texture memory ... highly cacheable but
//        vulnerable to replacement": every thread chases a random cycle
//        through a table with __ldg (the read-only / texture path), one
//        32-byte sector per step. A's blocks share one table, B's another;
//        each fits the L1 an SM has beside the shared memory carveout, both
//        together do not, so colocation evicts (capacity and conflict
//        misses), isolation does not.
//   fp   "repeated floating point operations ... avoided memory accesses":
//        four independent FMA chains per thread, nothing stored but a
//        never-taken guard.
//   mem  "repeatedly accesses indices of a large array ... using writes as
//        opposed to reads prevents the data from being cached ... the
//        threads' memory accesses were spaced apart": every thread stores to
//        its own line of a 1 GiB array (A) or 256 MiB (B), 33 KB from its
//        neighbour's, striding 16 KB + 128 B each step, so no store of a warp
//        coalesces and the array is far larger than L2.
//   uvm  "triggers a large number of page far-faults ... threads within a
//        block target addresses nearby each other, but threads from
//        different blocks target addresses that are distant": managed
//        memory, block b owns region b; each step the block's threads
//        read-modify-write consecutive words of the next 4 KB page of it.
//        Before every run the host writes the whole allocation, so every
//        page starts on the host again.
//
// Shapes (§5.1, scaled from the RTX 2080 Ti's 68 SMs of 1024 threads to
// the device's n SMs of T threads): A has n-1 blocks of T/2 threads (one
// block per SM by most-room: an empty SM has room 2, a busy one 1) and B 8
// blocks of 32 threads (colocated: the block limit binds, so after the
// empty SM the others tie and B spreads one per SM beside A) or 33 (two
// warps: the warp limit binds, so the empty SM keeps the most room and
// takes all 8: isolated). On CC 8.x/9.0 the measured carveout rule
// (H100-C1, simcore/carveout.h) would keep B off every SM configured by A
// for less shared memory than B asks (B, 32 blocks x the 1 KB reserve,
// asks 32 KB), so A takes 16 KB of dynamic shared memory per block: its
// SMs are configured to 64 KB with 47 KB left, room for 31 of B's blocks as
// the block limit gives. Serial: A alone, then B (32 threads) alone.
// Every run's %smid is checked (mostroom_check.h) and the verdict written
// beside its times; nothing is dropped.
//
// Run times are calibrated first on the device (A alone, B alone) to the
// paper's Table 1 divided by 5 (l1) or 10 (fp, mem); uvm is set by its
// sizes. Outputs in DIR: mostroom-summary.csv (every run of every
// configuration: times in ms, the SMs, the placement verdict) and
// mostroom-PAIR-CONFIG.csv (the globaltimer CSV of the run with the median
// B time, which `schedlab import` reads). tools/recorder/README.md,
// "The most-room experiment".
#include "mostroom_check.h"
#include "recorder.cuh"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "schedlab-mostroom: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                    cudaGetErrorString(e_));                                              \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static const char usage[] =
    "usage: schedlab-mostroom [-o DIR] [--runs N] [--pairs l1,fp,mem,uvm] [--plan]\n"
    "\n"
    "Runs the most-room paper's kernel pairs (Appendix A: L1-cache-dependent,\n"
    "compute-intensive, memory-intensive, transfer-bound) serial, concurrent-isolated\n"
    "and concurrent-colocated (§5.1), N runs each (default 30), records every block\n"
    "(%smid, %globaltimer), checks the placement of each run and writes\n"
    "DIR/mostroom-summary.csv and one globaltimer CSV per pair and configuration.\n"
    "--plan prints the shapes and the expected placement without touching a GPU.\n";

/* ---- the four kernels ---------------------------------------------------- */

// A's block 0 raises a flag in mapped host memory when it starts, so the
// host launches B once A is on the GPU (B gets NULL).
__device__ __forceinline__ void mark_started(unsigned *started) {
    if (started && blockIdx.x == 0 && rec_thread0()) *(volatile unsigned *)started = 1;
}

// l1: one sector (8 words) per step of a random cycle; tab[8 s] is the next s.
__global__ void k_l1(rec_block *rec, unsigned *started, const unsigned *__restrict__ tab,
                     unsigned nsect, unsigned iters, unsigned *sink) {
    rec_block_begin(rec);
    mark_started(started);
    unsigned p = (threadIdx.x * 97u + blockIdx.x * 389u) % nsect;
    for (unsigned i = 0; i < iters; i++) p = __ldg(&tab[(size_t)p * 8]);
    if (p == 0xffffffffu) sink[0] = p;
    rec_block_end(rec);
}

// fp: four independent FMA chains; no memory but the guard.
__global__ void k_fp(rec_block *rec, unsigned *started, unsigned iters, float m, float c,
                     float *sink) {
    rec_block_begin(rec);
    mark_started(started);
    float a0 = (float)threadIdx.x, a1 = a0 + 1.f, a2 = a0 + 2.f, a3 = a0 + 3.f;
    for (unsigned i = 0; i < iters; i++) {
        a0 = fmaf(a0, m, c);
        a1 = fmaf(a1, m, c);
        a2 = fmaf(a2, m, c);
        a3 = fmaf(a3, m, c);
    }
    if (a0 + a1 + a2 + a3 == -1.f) sink[0] = a0;
    rec_block_end(rec);
}

// mem: stores far apart, none coalesced, over an array far larger than L2.
#define MEM_START_WORDS (1031ull * 8)   // 33 KB between neighbouring threads
#define MEM_STEP_WORDS (4096ull + 32)   // 16 KB + 128 B per step
__global__ void k_mem(rec_block *rec, unsigned *started, unsigned *buf, unsigned long long nwords,
                      unsigned iters) {
    rec_block_begin(rec);
    mark_started(started);
    unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long idx = (g * MEM_START_WORDS) % nwords;
    for (unsigned i = 0; i < iters; i++) {
        buf[idx] = i;
        idx += MEM_STEP_WORDS;
        if (idx >= nwords) idx -= nwords;
    }
    rec_block_end(rec);
}

// uvm: block b walks its own region of managed memory a page per step.
#define UVM_PAGE_WORDS 1024ull   // 4 KB
__global__ void k_uvm(rec_block *rec, unsigned *started, unsigned *data,
                      unsigned long long region_words) {
    rec_block_begin(rec);
    mark_started(started);
    unsigned *base = data + (unsigned long long)blockIdx.x * region_words;
    unsigned t = threadIdx.x % UVM_PAGE_WORDS;
    for (unsigned long long pg = 0; pg + UVM_PAGE_WORDS <= region_words; pg += UVM_PAGE_WORDS)
        base[pg + t] += 1;
    rec_block_end(rec);
}

/* ---- the experiment ------------------------------------------------------ */

enum { PAIR_L1, PAIR_FP, PAIR_MEM, PAIR_UVM, NPAIRS };
static const char *const pair_names[NPAIRS] = {"l1", "fp", "mem", "uvm"};
static const char *const pair_titles[NPAIRS] = {"L1 Cache-Dependent", "Compute-Intensive",
                                                "Memory-Intensive", "Transfer-Bandwidth-Dep"};
// Table 1 (Turing, ms): serial A, B; isolated A, B; colocated A, B.
static const double paper_ms[NPAIRS][6] = {
    {85, 79, 85, 79, 105, 105},
    {523, 365, 527, 529, 530, 676},
    {949, 10, 951, 224, 955, 961},
    {369, 130, 385, 355, 388, 466},
};
// Calibration targets (ms): Table 1's serial times / 5 (l1) or / 10.
static const double target_ms[NPAIRS][2] = {{17, 15.8}, {52.3, 36.5}, {94.9, 1.0}, {0, 0}};

#define B_BLOCKS 8
#define A_SMEM (16 * 1024)
#define L1_TABLE (112 * 1024)              // bytes per table; A's and B's
#define MEM_A_WORDS (256ull << 20)         // 1 GiB
#define MEM_B_WORDS (64ull << 20)          // 256 MiB
#define UVM_A_REGION (2ull << 20)          // bytes per block of A
#define UVM_B_REGION (4ull << 20)          // bytes per block of B

typedef struct shape {
    int sms;          // the device's SMs
    int a_blocks;     // sms - 1
    int a_threads;    // half an SM's threads, at most 1024
} shape;

typedef struct pair_state {
    int pair;
    unsigned iters_a, iters_b;   // l1, fp, mem
    unsigned *tab_a, *tab_b;     // l1
    unsigned *mem_a, *mem_b;     // mem
    unsigned *uvm_a, *uvm_b;     // uvm (managed)
    size_t uvm_a_bytes, uvm_b_bytes;
    void *sink;
} pair_state;

static cudaStream_t s_a, s_b;

static int64_t host_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static unsigned *g_started_host, *g_started_dev;   // mapped: A's block 0 has started

// Launch one kernel of the pair: `which` 0 = A, 1 = B with `bthreads`.

static void launch(pair_state *p, const shape *sh, int which, int bthreads, rec_block *rec,
                   cudaStream_t st) {
    unsigned *started = which ? NULL : g_started_dev;
    unsigned blocks = which ? B_BLOCKS : (unsigned)sh->a_blocks;
    unsigned threads = which ? (unsigned)bthreads : (unsigned)sh->a_threads;
    size_t smem = which ? 0 : A_SMEM;
    switch (p->pair) {
    case PAIR_L1:
        k_l1<<<blocks, threads, smem, st>>>(rec, started, which ? p->tab_b : p->tab_a,
                                            L1_TABLE / 32, which ? p->iters_b : p->iters_a,
                                            (unsigned *)p->sink);
        break;
    case PAIR_FP:
        k_fp<<<blocks, threads, smem, st>>>(rec, started, which ? p->iters_b : p->iters_a, 0.9999999f,
                                            1e-7f, (float *)p->sink);
        break;
    case PAIR_MEM:
        k_mem<<<blocks, threads, smem, st>>>(rec, started, which ? p->mem_b : p->mem_a,
                                             which ? MEM_B_WORDS : MEM_A_WORDS,
                                             which ? p->iters_b : p->iters_a);
        break;
    default:
        k_uvm<<<blocks, threads, smem, st>>>(rec, started, which ? p->uvm_b : p->uvm_a,
                                             (which ? UVM_B_REGION : UVM_A_REGION) / 4);
        break;
    }
    CK(cudaGetLastError());
}

// Every page of the managed allocations back on the host (uvm, before a run).
static void uvm_reset(pair_state *p) {
    if (p->pair != PAIR_UVM) return;
    CK(cudaDeviceSynchronize());
    memset(p->uvm_a, 0, p->uvm_a_bytes);
    memset(p->uvm_b, 0, p->uvm_b_bytes);
}

// Milliseconds of one kernel alone (events), for the calibration.
static double time_alone(pair_state *p, const shape *sh, int which, rec_block *rec) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    uvm_reset(p);
    CK(cudaEventRecord(e0, s_a));
    launch(p, sh, which, 32, rec, s_a);
    CK(cudaEventRecord(e1, s_a));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return ms;
}

static unsigned scale_iters(unsigned it, double ms, double want) {
    double x = ms > 0.01 ? it * want / ms : it * 16.0;
    if (x < 16) x = 16;
    if (x > 4e9) x = 4e9;
    return (unsigned)x;
}

static void calibrate(pair_state *p, const shape *sh, rec_block *rec) {
    if (p->pair == PAIR_UVM) return;
    for (int which = 0; which < 2; which++) {
        unsigned *it = which ? &p->iters_b : &p->iters_a;
        *it = p->pair == PAIR_MEM ? 64 : 1024;
        time_alone(p, sh, which, rec);   // warm-up
        // Scale until within 10 % (launch overhead makes short runs look
        // slow per iteration, so a step undershoots, never overshoots);
        // at most 12 passes.
        for (int pass = 0; pass < 12; pass++) {
            double want = target_ms[p->pair][which], ms = time_alone(p, sh, which, rec);
            if (ms > 0.9 * want && ms < 1.1 * want) break;
            *it = scale_iters(*it, ms, want);
        }
    }
}

// A random single cycle over n sectors: tab[8 s] = next sector.
static void fill_cycle(unsigned *h, unsigned n, unsigned seed) {
    unsigned *perm = (unsigned *)malloc(n * sizeof *perm);
    for (unsigned i = 0; i < n; i++) perm[i] = i;
    for (unsigned i = n - 1; i > 0; i--) {   // Fisher-Yates, xorshift
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        unsigned j = seed % (i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    memset(h, 0, (size_t)n * 32);
    for (unsigned i = 0; i < n; i++) h[(size_t)perm[i] * 8] = perm[(i + 1) % n];
    free(perm);
}

static void pair_setup(pair_state *p, const shape *sh) {
    CK(cudaMalloc(&p->sink, 64));
    if (p->pair == PAIR_L1) {
        unsigned n = L1_TABLE / 32;
        unsigned *h = (unsigned *)malloc(L1_TABLE);
        CK(cudaMalloc(&p->tab_a, L1_TABLE));
        CK(cudaMalloc(&p->tab_b, L1_TABLE));
        fill_cycle(h, n, 12345u);
        CK(cudaMemcpy(p->tab_a, h, L1_TABLE, cudaMemcpyHostToDevice));
        fill_cycle(h, n, 67890u);
        CK(cudaMemcpy(p->tab_b, h, L1_TABLE, cudaMemcpyHostToDevice));
        free(h);
    } else if (p->pair == PAIR_MEM) {
        CK(cudaMalloc(&p->mem_a, MEM_A_WORDS * 4));
        CK(cudaMalloc(&p->mem_b, MEM_B_WORDS * 4));
        CK(cudaMemset(p->mem_a, 0, MEM_A_WORDS * 4));
        CK(cudaMemset(p->mem_b, 0, MEM_B_WORDS * 4));
    } else if (p->pair == PAIR_UVM) {
        p->uvm_a_bytes = (size_t)sh->a_blocks * UVM_A_REGION;
        p->uvm_b_bytes = (size_t)B_BLOCKS * UVM_B_REGION;
        CK(cudaMallocManaged(&p->uvm_a, p->uvm_a_bytes, cudaMemAttachGlobal));
        CK(cudaMallocManaged(&p->uvm_b, p->uvm_b_bytes, cudaMemAttachGlobal));
    }
    // A's dynamic shared memory (16 KB: the carveout, see the top)
    CK(cudaFuncSetAttribute(k_l1, cudaFuncAttributeMaxDynamicSharedMemorySize, A_SMEM));
    CK(cudaFuncSetAttribute(k_fp, cudaFuncAttributeMaxDynamicSharedMemorySize, A_SMEM));
    CK(cudaFuncSetAttribute(k_mem, cudaFuncAttributeMaxDynamicSharedMemorySize, A_SMEM));
    CK(cudaFuncSetAttribute(k_uvm, cudaFuncAttributeMaxDynamicSharedMemorySize, A_SMEM));
}

static void pair_teardown(pair_state *p) {
    cudaFree(p->sink);
    if (p->tab_a) cudaFree(p->tab_a);
    if (p->tab_b) cudaFree(p->tab_b);
    if (p->mem_a) cudaFree(p->mem_a);
    if (p->mem_b) cudaFree(p->mem_b);
    if (p->uvm_a) cudaFree(p->uvm_a);
    if (p->uvm_b) cudaFree(p->uvm_b);
}

// One run of configuration c; the blocks into a[] and b[].
static void run_once(pair_state *p, const shape *sh, mr_config c, rec_launch *la,
                     rec_launch *lb, mr_blk *a, mr_blk *b) {
    int bthreads = c == MR_ISOLATED ? 33 : 32;
    uvm_reset(p);
    CK(cudaMemset(la->dev, 0, la->blocks * sizeof(rec_block)));
    CK(cudaMemset(lb->dev, 0, lb->blocks * sizeof(rec_block)));
    CK(cudaDeviceSynchronize());
    *(volatile unsigned *)g_started_host = 0;
    launch(p, sh, 0, 0, la->dev, s_a);
    if (c == MR_SERIAL) {
        CK(cudaStreamSynchronize(s_a));
    } else {
        // §3.2: "Kernel A was launched first": B is launched once A's block
        // 0 runs, plus 20 us for the rest of A's blocks to be placed (the
        // whole grid is dispatched within ~1 us, README "H100 recordings").
        int64_t give_up = host_ns() + 2000000000LL;
        while (!*(volatile unsigned *)g_started_host && host_ns() < give_up) {
        }
        int64_t t = host_ns() + 20000;
        while (host_ns() < t) {
        }
    }
    launch(p, sh, 1, bthreads, lb->dev, s_b);
    CK(cudaDeviceSynchronize());
    rec_block *h = (rec_block *)malloc((size_t)sh->a_blocks * sizeof *h);
    CK(cudaMemcpy(h, la->dev, (size_t)sh->a_blocks * sizeof *h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < sh->a_blocks; i++) {
        a[i].start = h[i].start;
        a[i].end = h[i].end;
        a[i].sm = h[i].sm;
    }
    CK(cudaMemcpy(h, lb->dev, B_BLOCKS * sizeof *h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < B_BLOCKS; i++) {
        b[i].start = h[i].start;
        b[i].end = h[i].end;
        b[i].sm = h[i].sm;
    }
    free(h);
}

static char g_command[2048], g_header[4096];

static void write_trace(const char *dir, const char *pair, const char *config, int run,
                        const mr_blk *a, int na, int athreads, const mr_blk *b, int bthreads) {
    char path[4096];
    snprintf(path, sizeof path, "%s/mostroom-%s-%s.csv", dir, pair, config);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "schedlab-mostroom: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fputs(g_header, f);
    fprintf(f, "# pair %s, configuration %s, run %d (the median of B's times)\n", pair, config,
            run + 1);
    fprintf(f, "kernel,block,sm,start_ns,end_ns,stream,threads\n");
    for (int i = 0; i < na; i++)
        fprintf(f, "A,%d,%u,%llu,%llu,sA,%d\n", i, a[i].sm, (unsigned long long)a[i].start,
                (unsigned long long)a[i].end, athreads);
    for (int i = 0; i < B_BLOCKS; i++)
        fprintf(f, "B,%d,%u,%llu,%llu,sB,%d\n", i, b[i].sm, (unsigned long long)b[i].start,
                (unsigned long long)b[i].end, bthreads);
    if (fclose(f)) {
        fprintf(stderr, "schedlab-mostroom: %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static void plan(const shape *sh) {
    printf("plan for %d SMs (no GPU touched):\n", sh->sms);
    printf("  A: %d blocks x %d threads, %d KB dynamic shared memory: one per SM, one SM "
           "left empty (the last of the device's order)\n",
           sh->a_blocks, sh->a_threads, A_SMEM / 1024);
    printf("  B: %d blocks; serial and colocated 32 threads, isolated 33 threads, no shared "
           "memory\n", B_BLOCKS);
    printf("  serial: A alone, then B alone (B on %d SMs)\n", B_BLOCKS);
    printf("  isolated: B (33 threads) all on the SM A left empty\n");
    printf("  colocated: B (32 threads) first on the empty SM, then one per SM beside A\n");
    for (int k = 0; k < NPAIRS; k++)
        printf("  %-4s %-24s paper (Turing, ms): serial %g / %g, isolated %g / %g, colocated "
               "%g / %g\n",
               pair_names[k], pair_titles[k], paper_ms[k][0], paper_ms[k][1], paper_ms[k][2],
               paper_ms[k][3], paper_ms[k][4], paper_ms[k][5]);
}

int main(int argc, char **argv) {
    size_t used = 0;
    for (int i = 0; i < argc && used + 2 < sizeof g_command; i++)
        used += (size_t)snprintf(g_command + used, sizeof g_command - used, "%s%s",
                                 i ? " " : "", argv[i]);
    const char *dir = ".";
    long runs = 30;
    int want[NPAIRS] = {1, 1, 1, 1}, do_plan = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(o, "--plan")) {
            do_plan = 1;
        } else if ((!strcmp(o, "-o") || !strcmp(o, "--runs") || !strcmp(o, "--pairs")) &&
                   i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(o, "-o")) {
                dir = v;
            } else if (!strcmp(o, "--runs")) {
                char *end;
                errno = 0;
                runs = strtol(v, &end, 10);
                if (errno || *end || runs < 1 || runs > 1000) {
                    fprintf(stderr, "schedlab-mostroom: --runs: \"%s\" is not a count from 1 "
                                    "to 1000\n", v);
                    return 2;
                }
            } else {
                for (int k = 0; k < NPAIRS; k++) want[k] = 0;
                char buf[256];
                snprintf(buf, sizeof buf, "%s", v);
                for (char *w = strtok(buf, ","); w; w = strtok(NULL, ",")) {
                    int k = 0;
                    while (k < NPAIRS && strcmp(w, pair_names[k])) k++;
                    if (k == NPAIRS) {
                        fprintf(stderr, "schedlab-mostroom: --pairs: no pair \"%s\" (l1, fp, "
                                        "mem, uvm)\n", w);
                        return 2;
                    }
                    want[k] = 1;
                }
            }
        } else {
            fprintf(stderr, "schedlab-mostroom: bad option %s (see --help)\n", o);
            return 2;
        }
    }
    shape sh = {132, 131, 1024};
    int ndev = 0;
    cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    if (cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0) {
        CK(cudaGetDeviceProperties(&prop, 0));
        sh.sms = prop.multiProcessorCount;
        sh.a_blocks = sh.sms - 1;
        sh.a_threads = prop.maxThreadsPerMultiProcessor / 2 > 1024
                           ? 1024 : prop.maxThreadsPerMultiProcessor / 2;
    }
    if (do_plan) {
        plan(&sh);
        return 0;
    }
    if (ndev == 0) {
        fprintf(stderr, "schedlab-mostroom: no CUDA device found\n");
        return 1;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "schedlab-mostroom: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    {
        int drv = 0, rt = 0;
        CK(cudaDriverGetVersion(&drv));
        CK(cudaRuntimeGetVersion(&rt));
        time_t now = time(NULL);
        char date[64];
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        snprintf(g_header, sizeof g_header,
                 "# schedlab-mostroom: most-room paper Table 1 experiment (tools/recorder/mostroom.cu)\n"
                 "# gpu: %s, %d SMs, compute capability %d.%d\n"
                 "# cuda: driver API %d.%d, runtime %d.%d\n# date: %s\n# command: %s\n",
                 prop.name, prop.multiProcessorCount, prop.major, prop.minor, drv / 1000,
                 (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10, date, g_command);
    }
    CK(cudaHostAlloc(&g_started_host, sizeof *g_started_host, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer(&g_started_dev, g_started_host, 0));
    CK(cudaStreamCreateWithFlags(&s_a, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s_b, cudaStreamNonBlocking));
    char spath[4096];
    snprintf(spath, sizeof spath, "%s/mostroom-summary.csv", dir);
    FILE *sum = fopen(spath, "w");
    if (!sum) {
        fprintf(stderr, "schedlab-mostroom: %s: %s\n", spath, strerror(errno));
        return 1;
    }
    fputs(g_header, sum);
    rec_launch la, lb;
    CK(rec_launch_init(&la, "A", "sA", dim3(sh.a_blocks), dim3(sh.a_threads)));
    CK(rec_launch_init(&lb, "B", "sB", dim3(B_BLOCKS), dim3(33)));
    mr_blk *ra = (mr_blk *)malloc((size_t)runs * sh.a_blocks * sizeof *ra);
    mr_blk *rb = (mr_blk *)malloc((size_t)runs * B_BLOCKS * sizeof *rb);
    double *ta = (double *)malloc((size_t)runs * sizeof(double));
    double *tb = (double *)malloc((size_t)runs * sizeof(double));
    double *tt = (double *)malloc((size_t)runs * sizeof(double));
    int lines = 0;
    char table[NPAIRS * 3][512];
    for (int k = 0; k < NPAIRS; k++) {
        if (!want[k]) continue;
        pair_state p;
        memset(&p, 0, sizeof p);
        p.pair = k;
        pair_setup(&p, &sh);
        calibrate(&p, &sh, la.dev);
        fprintf(sum, "# pair %s (%s): iters A %u, B %u; l1 table %d KB each; mem arrays %llu / "
                     "%llu MiB; uvm regions %llu / %llu KB per block\n",
                pair_names[k], pair_titles[k], p.iters_a, p.iters_b, L1_TABLE / 1024,
                MEM_A_WORDS * 4 >> 20, MEM_B_WORDS * 4 >> 20, UVM_A_REGION >> 10,
                UVM_B_REGION >> 10);
        double serial_b = 0, serial_a = 0;
        for (int c = 0; c < 3; c++) {
            mr_config cfg = (mr_config)c;
            run_once(&p, &sh, cfg, &la, &lb, ra, rb);   // warm-up, not kept
            int ok = 0;
            for (long r = 0; r < runs; r++) {
                mr_blk *a = ra + r * sh.a_blocks, *b = rb + r * B_BLOCKS;
                run_once(&p, &sh, cfg, &la, &lb, a, b);
                mr_place pl = mr_check(cfg, a, sh.a_blocks, b, B_BLOCKS);
                ta[r] = mr_span(a, sh.a_blocks) / 1e6;
                tb[r] = mr_span(b, B_BLOCKS) / 1e6;
                tt[r] = cfg == MR_SERIAL ? ta[r] + tb[r] : mr_total(a, sh.a_blocks, b, B_BLOCKS) / 1e6;
                ok += pl.ok;
                if (!lines++)
                    fprintf(sum, "pair,config,run,a_ms,b_ms,total_ms,a_sms,b_sms,b_beside_a,"
                                 "placement_ok\n");
                fprintf(sum, "%s,%s,%ld,%.4f,%.4f,%.4f,%d,%d,%d,%d\n", pair_names[k],
                        mr_config_names[c], r + 1, ta[r], tb[r], tt[r], pl.a_sms, pl.b_sms,
                        pl.b_beside_a, pl.ok);
            }
            fflush(sum);
            double ma, ca, mb, cb, mt, ct;
            mr_stats(ta, (int)runs, &ma, &ca);
            mr_stats(tb, (int)runs, &mb, &cb);
            mr_stats(tt, (int)runs, &mt, &ct);
            if (cfg == MR_SERIAL) {
                serial_a = ma;
                serial_b = mb;
            }
            int med = mr_median_index(tb, (int)runs);
            write_trace(dir, pair_names[k], mr_config_names[c], med, ra + med * sh.a_blocks,
                        sh.a_blocks, sh.a_threads, rb + med * B_BLOCKS,
                        cfg == MR_ISOLATED ? 33 : 32);
            snprintf(table[k * 3 + c], sizeof table[0],
                     "%-4s %-9s A %9.3f ms (%.2fx, cv %.3f)  B %9.3f ms (%.2fx, cv %.3f)  total "
                     "%9.3f ms  placement ok %d/%ld  paper B %.2fx",
                     pair_names[k], mr_config_names[c], ma, serial_a > 0 ? ma / serial_a : 1, ca,
                     mb, serial_b > 0 ? mb / serial_b : 1, cb, mt, ok, runs,
                     paper_ms[k][2 * c + 1] / paper_ms[k][1]);
            printf("%s\n", table[k * 3 + c]);
            fflush(stdout);
        }
        pair_teardown(&p);
    }
    if (fclose(sum)) return 1;
    rec_launch_free(&la);
    rec_launch_free(&lb);
    free(ra);
    free(rb);
    free(ta);
    free(tb);
    free(tt);
    return 0;
}
