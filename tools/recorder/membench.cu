// membench.cu -- the memory-system constants of the GPU at hand, for a
// device preset's memory fields (docs/most-room-h100.md, "Memory constants"):
//
//   chase  SIZE   one thread follows a random cycle of 32-byte sectors through
//                 SIZE bytes (__ldcg: L2 and DRAM; __ldca: through L1 too);
//                 cycles and ns per load, so L1, L2 and DRAM hit latencies
//   store  WARPS  WARPS warps in one block on one SM, each thread storing 4
//                 bytes to its own far-apart line per step, as most-room's
//                 `mem` kernel does; sectors per ns of that one SM
//   storeall      the same on every SM (WARPS 32 each): the GPU's rate
//   share AW BW   A stores with AW warps on each of 131 SMs (one block per
//                 SM: 200KB of shared memory) while B, one block of BW warps,
//                 stores on the 132nd; each one's sectors per ns: does the
//                 lone SM get an SM's share, or a share by its warps?
//   l1rate WARPS  WARPS warps in one block on one SM load random 4-byte words
//                 of a 64 KB table that stays in L1 (__ldca, four independent
//                 loads a step): L1 sectors per ns for scattered hits, the
//                 bandwidth the L1 row of most-room's Table 1 turns on
//   fault BLOCKS  BLOCKS blocks of one warp each touch the 4 KB pages of
//                 their own 8 MB of managed memory, every page on the host
//                 first: ns per page, serial (1 block) or concurrent
//
// The last two were written after the H200 visit of 2026-11-30 and have
// not run on a GPU yet; they come after the others, each line flushed.
//
// Usage: schedlab-membench  (prints one line per measurement; tools/recorder/README.md)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <ctime>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "schedlab-membench: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__device__ __forceinline__ unsigned long long gtime() {
    unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}

template <bool L1>
__global__ void chase(const unsigned *tab, unsigned steps, unsigned *out, long long *cyc,
                      unsigned long long *ns) {
    unsigned p = 0;
    for (unsigned i = 0; i < 2048; i++) p = L1 ? __ldca(&tab[(size_t)p * 8]) : __ldcg(&tab[(size_t)p * 8]);
    long long c0 = clock64();
    unsigned long long t0 = gtime();
    for (unsigned i = 0; i < steps; i++) p = L1 ? __ldca(&tab[(size_t)p * 8]) : __ldcg(&tab[(size_t)p * 8]);
    long long c1 = clock64();
    unsigned long long t1 = gtime();
    out[0] = p;
    *cyc = c1 - c0;
    *ns = t1 - t0;
}

#define START_WORDS (1031ull * 8)
#define STEP_WORDS (4096ull + 32)
__global__ void store(unsigned *buf, unsigned long long nwords, unsigned iters,
                      unsigned long long *span) {
    unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long idx = (g * START_WORDS) % nwords;
    __syncthreads();
    unsigned long long t0 = gtime();
    for (unsigned i = 0; i < iters; i++) {
        buf[idx] = i;
        idx += STEP_WORDS;
        if (idx >= nwords) idx -= nwords;
    }
    __syncthreads();
    if (threadIdx.x == 0) span[blockIdx.x] = gtime() - t0;
}

struct span_rec {
    unsigned long long t0, t1;
    unsigned sm, pad;
};
__global__ void store_sm(unsigned *buf, unsigned long long nwords, unsigned iters,
                         span_rec *out) {
    unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long idx = (g * START_WORDS) % nwords;
    __syncthreads();
    unsigned long long t0 = gtime();
    for (unsigned i = 0; i < iters; i++) {
        buf[idx] = i;
        idx += STEP_WORDS;
        if (idx >= nwords) idx -= nwords;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        out[blockIdx.x].t0 = t0;
        out[blockIdx.x].t1 = gtime();
        out[blockIdx.x].sm = sm;
    }
}

// A (aw warps on each of sms - 1 SMs) and B (one block of bw warps on the
// last SM) storing together; B is launched once A runs and ends well
// before A does.
static void share(int sms, int aw, int bw, unsigned *buf, unsigned long long nwords) {
    const int smem = 200 << 10;
    CK(cudaFuncSetAttribute(store_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    span_rec *ra, *rb;
    CK(cudaMalloc(&ra, sms * sizeof *ra));
    CK(cudaMalloc(&rb, sizeof *rb));
    cudaStream_t sa, sb;
    CK(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));
    // about 20 ms of A and 5 ms of B at 0.12 sectors a ns (an SM's share)
    unsigned ia = 2400000u / (32u * aw), ib = 600000u / (32u * bw);
    for (int rep = 0; rep < 2; rep++) {
        store_sm<<<sms - 1, 32 * aw, smem, sa>>>(buf, nwords, ia, ra);
        struct timespec ts = {0, 2000000};   // 2 ms: A is on the GPU
        nanosleep(&ts, NULL);
        store_sm<<<1, 32 * bw, 0, sb>>>(buf, nwords, ib, rb);
        CK(cudaDeviceSynchronize());
    }
    span_rec *h = (span_rec *)malloc(sms * sizeof *h), hb;
    CK(cudaMemcpy(h, ra, (sms - 1) * sizeof *h, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&hb, rb, sizeof hb, cudaMemcpyDeviceToHost));
    double arate = 0;
    int b_beside = 0;
    unsigned long long a_end = 0;
    for (int i = 0; i < sms - 1; i++) {
        arate += 32.0 * aw * ia / (double)(h[i].t1 - h[i].t0);
        if (h[i].sm == hb.sm) b_beside = 1;
        if (h[i].t1 > a_end) a_end = h[i].t1;
    }
    arate /= sms - 1;
    double brate = 32.0 * bw * ib / (double)(hb.t1 - hb.t0);
    printf("share A %2d warps x %d SMs, B %2d warps on SM %u%s: B %.4f sectors/ns, A %.4f "
           "per SM, B/A %.2f%s\n", aw, sms - 1, bw, hb.sm, b_beside ? " (beside A!)" : "",
           brate, arate, brate / arate, hb.t1 < a_end ? "" : " (B outlived A)");
    free(h);
    CK(cudaStreamDestroy(sa));
    CK(cudaStreamDestroy(sb));
    CK(cudaFree(ra));
    CK(cudaFree(rb));
}

// l1rate: four independent scattered loads a step from a table that fits L1.
__global__ void l1_rate(const unsigned *__restrict__ tab, unsigned mask, unsigned iters,
                        unsigned *sink, unsigned long long *span) {
    unsigned h = threadIdx.x * 2654435761u + 12345u, acc = 0;
    __syncthreads();
    unsigned long long t0 = gtime();
    for (unsigned i = 0; i < iters; i++) {
        h = h * 1664525u + 1013904223u;
        unsigned a = __ldca(&tab[(h >> 3) & mask]), b = __ldca(&tab[(h >> 9) & mask]);
        unsigned c = __ldca(&tab[(h >> 15) & mask]), d = __ldca(&tab[(h >> 21) & mask]);
        acc += a ^ b ^ c ^ d;
    }
    __syncthreads();
    if (acc == 0xffffffffu) sink[0] = acc;
    if (threadIdx.x == 0) span[blockIdx.x] = gtime() - t0;
}

// fault: each block's thread 0 touches its own pages in order, one word a page.
__global__ void touch_pages(unsigned *data, unsigned long long region_words, unsigned pages,
                            unsigned long long *span) {
    unsigned long long t0 = gtime();
    if (threadIdx.x == 0) {
        unsigned *base = data + (unsigned long long)blockIdx.x * region_words;
        for (unsigned p = 0; p < pages; p++) base[(unsigned long long)p * 1024] += 1;
    }
    __syncthreads();
    if (threadIdx.x == 0) span[blockIdx.x] = gtime() - t0;
}

static void fill_cycle(unsigned *h, unsigned n, unsigned seed) {
    unsigned *perm = (unsigned *)malloc(n * sizeof *perm);
    for (unsigned i = 0; i < n; i++) perm[i] = i;
    for (unsigned i = n - 1; i > 0; i--) {
        seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5;
        unsigned j = seed % (i + 1), t = perm[i]; perm[i] = perm[j]; perm[j] = t;
    }
    for (unsigned i = 0; i < n; i++) h[(size_t)perm[i] * 8] = perm[(i + 1) % n];
    free(perm);
}

int main() {
    cudaDeviceProp pr;
    CK(cudaGetDeviceProperties(&pr, 0));
    printf("# schedlab-membench: %s, %d SMs, L2 %d B\n", pr.name, pr.multiProcessorCount, pr.l2CacheSize);
    unsigned *out, *tab;
    long long *cyc;
    unsigned long long *ns;
    CK(cudaMalloc(&out, 64));
    CK(cudaMalloc(&cyc, 8));
    CK(cudaMalloc(&ns, 8));
    size_t sizes[] = {16u << 10, 64u << 10, 192u << 10, 1u << 20, 8u << 20, 32u << 20,
                      256u << 20, 1024u << 20};
    size_t maxb = sizes[7];
    unsigned *h = (unsigned *)calloc(maxb / 4, 4);
    CK(cudaMalloc(&tab, maxb));
    for (int l1 = 1; l1 >= 0; l1--)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            unsigned n = (unsigned)(sizes[k] / 32);
            fill_cycle(h, n, 12345u + (unsigned)k);
            CK(cudaMemcpy(tab, h, sizes[k], cudaMemcpyHostToDevice));
            unsigned steps = 20000;
            if (l1) chase<true><<<1, 1>>>(tab, steps, out, cyc, ns);
            else chase<false><<<1, 1>>>(tab, steps, out, cyc, ns);
            CK(cudaDeviceSynchronize());
            long long c; unsigned long long t;
            CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&t, ns, 8, cudaMemcpyDeviceToHost));
            printf("chase %s %8zu KB  %7.1f cycles  %7.1f ns per load  (clock %.0f MHz)\n",
                   l1 ? "ldca" : "ldcg", sizes[k] >> 10, (double)c / steps, (double)t / steps,
                   (double)c / (double)t * 1000.0);
        }
    CK(cudaFree(tab));
    unsigned long long nwords = 256ull << 20;   // 1 GiB of words
    unsigned *buf;
    unsigned long long *span;
    CK(cudaMalloc(&buf, nwords * 4));
    CK(cudaMemset(buf, 0, nwords * 4));
    CK(cudaMalloc(&span, 4096 * 8));
    unsigned iters = 4000;
    int warps[] = {1, 2, 4, 8, 16, 32};
    for (int w : warps) {
        for (int rep = 0; rep < 2; rep++) {
            store<<<1, 32 * w>>>(buf, nwords, iters, span);
            CK(cudaDeviceSynchronize());
        }
        unsigned long long s;
        CK(cudaMemcpy(&s, span, 8, cudaMemcpyDeviceToHost));
        double sectors = 32.0 * w * iters;
        printf("store one SM %2d warps  %9.1f us  %7.3f sectors/ns  %6.2f ns per warp step\n",
               w, s / 1000.0, sectors / s, (double)s / iters);
    }
    int sms = pr.multiProcessorCount;
    for (int rep = 0; rep < 2; rep++) {
        store<<<sms, 1024>>>(buf, nwords, iters / 4, span);
        CK(cudaDeviceSynchronize());
    }
    unsigned long long *hs = (unsigned long long *)malloc(sms * 8);
    CK(cudaMemcpy(hs, span, sms * 8, cudaMemcpyDeviceToHost));
    unsigned long long mx = 0, mn = ~0ull;
    for (int i = 0; i < sms; i++) { if (hs[i] > mx) mx = hs[i]; if (hs[i] < mn) mn = hs[i]; }
    double sectors = 32.0 * 32 * sms * (iters / 4);
    printf("store all %d SMs x 32 warps  %9.1f us (blocks %.1f-%.1f)  %7.3f sectors/ns (%.1f GB/s of sectors)\n",
           sms, mx / 1000.0, mn / 1000.0, mx / 1000.0, sectors / mx, sectors * 32 / mx);
    static const int pairs[][2] = {{32, 1}, {32, 8}, {32, 16}, {16, 1}, {16, 8}, {8, 8}, {4, 8}};
    for (const auto &p : pairs) share(sms, p[0], p[1], buf, nwords);
    fflush(stdout);
    CK(cudaFree(buf));

    // l1rate: 64 KB of words, warmed, then 1 to 32 warps on one SM
    unsigned *t64, *sink;
    CK(cudaMalloc(&t64, 64 << 10));
    CK(cudaMemset(t64, 1, 64 << 10));
    CK(cudaMalloc(&sink, 64));
    unsigned long long *sp;
    CK(cudaMalloc(&sp, 4096 * sizeof *sp));
    for (int w : warps) {
        const unsigned it = 20000;
        for (int rep = 0; rep < 2; rep++) {
            l1_rate<<<1, 32 * w>>>(t64, (64u << 10) / 4 - 1, it, sink, sp);
            CK(cudaDeviceSynchronize());
        }
        unsigned long long s;
        CK(cudaMemcpy(&s, sp, sizeof s, cudaMemcpyDeviceToHost));
        double sectors = 4.0 * 32 * w * it;   // a scattered load: a sector a thread
        printf("l1rate one SM %2d warps  %9.1f us  %7.3f sectors/ns  %6.2f ns per warp step\n", w,
               s / 1000.0, sectors / s, (double)s / it);
        fflush(stdout);
    }
    CK(cudaFree(t64));

    // fault: 8 MB of managed memory a block (2048 pages of 4 KB), on the host first
    const unsigned pages = 2048;
    const unsigned long long region = (unsigned long long)pages * 1024;
    unsigned *um;
    CK(cudaMallocManaged(&um, 8 * region * 4, cudaMemAttachGlobal));
    for (int nb : {1, 8}) {
        CK(cudaDeviceSynchronize());
        memset(um, 0, 8 * region * 4);
        touch_pages<<<nb, 32>>>(um, region, pages, sp);
        CK(cudaDeviceSynchronize());
        unsigned long long h[8], mx = 0;
        CK(cudaMemcpy(h, sp, nb * sizeof h[0], cudaMemcpyDeviceToHost));
        for (int i = 0; i < nb; i++) mx = h[i] > mx ? h[i] : mx;
        printf("fault %d blocks x %u pages  %9.1f us  %7.1f ns per page of a block, %7.1f per page "
               "in all\n", nb, pages, mx / 1000.0, (double)mx / pages, (double)mx / (pages * nb));
        fflush(stdout);
    }
    CK(cudaFree(um));
    return 0;
}
