/* cc.c -- compute capabilities and named GPUs (cc.h).
 *
 * [CCT] NVIDIA CUDA C++ Programming Guide (12.8/12.9), table "Technical
 *       Specifications per Compute Capability": maximum resident blocks,
 *       warps and threads per SM, threads per block, 32-bit registers per
 *       SM and per block, shared memory per SM and per block (the per-block
 *       figure above 48 KB is the opt-in maximum: "Kernels relying on
 *       shared memory allocations over 48 KB per block ... must use dynamic
 *       shared memory and require an explicit opt-in"). Cross-checked
 *       against the limits the driver reported in the real traces of
 *       ../shared/traces (TARGET_INFO_GPU maxShmemPerBlockOptin: A100
 *       166912 = 163 KB, RTX 3090 / 4060 Ti 101376 = 99 KB, H100 232448 =
 *       227 KB, T4 65536 = 64 KB; maxShmemPerSm 167936 / 102400 / 233472 /
 *       65536; maxBlocksPerSm 32 / 16 / 24 / 32 / 16; maxWarpsPerSm 64 /
 *       48 / 48 / 64 / 32; nvprof DEVICE: V100 64 warps, 32 blocks, 96 KB
 *       per SM; RTX 2080 Ti 32 warps, 16 blocks, 64 KB).
 * [ARCH] warp schedulers per SM: the Programming Guide's architecture
 *       sections (Compute Capability 5.x: "4 warp schedulers", 6.x: "64
 *       (6.0) / 128 (6.1, 6.2) CUDA cores ... 2 / 4 warp schedulers", 7.x,
 *       8.x, 9.0: "4 warp schedulers"); Kepler whitepaper (GK110: four warp
 *       schedulers per SMX); Blackwell as Hopper (4 sub-partitions). */
#include "cc.h"

#include <ctype.h>
#include <string.h>

#define KB 1024LL
#define K64 65536

static const sim_cc ccs[] = {
    /* major.minor arch          blocks warps thr/SM thr/blk regs/SM regs/blk smem/SM  smem/blk sched */
    { 3, 0, "Kepler",            16,  64, 2048, 1024, K64,     K64,     48 * KB,  48 * KB, 4 },
    { 3, 2, "Kepler",            16,  64, 2048, 1024, K64,     32768,   48 * KB,  48 * KB, 4 },
    { 3, 5, "Kepler",            16,  64, 2048, 1024, K64,     K64,     48 * KB,  48 * KB, 4 },
    { 3, 7, "Kepler",            16,  64, 2048, 1024, 131072,  K64,    112 * KB,  48 * KB, 4 },
    { 5, 0, "Maxwell",           32,  64, 2048, 1024, K64,     K64,     64 * KB,  48 * KB, 4 },
    { 5, 2, "Maxwell",           32,  64, 2048, 1024, K64,     K64,     96 * KB,  48 * KB, 4 },
    { 5, 3, "Maxwell",           32,  64, 2048, 1024, K64,     32768,   64 * KB,  48 * KB, 4 },
    { 6, 0, "Pascal",            32,  64, 2048, 1024, K64,     K64,     64 * KB,  48 * KB, 2 },
    { 6, 1, "Pascal",            32,  64, 2048, 1024, K64,     K64,     96 * KB,  48 * KB, 4 },
    { 6, 2, "Pascal",            32,  64, 2048, 1024, K64,     32768,   64 * KB,  48 * KB, 4 },
    { 7, 0, "Volta",             32,  64, 2048, 1024, K64,     K64,     96 * KB,  96 * KB, 4 },
    { 7, 2, "Volta",             32,  64, 2048, 1024, K64,     K64,     96 * KB,  96 * KB, 4 },
    { 7, 5, "Turing",            16,  32, 1024, 1024, K64,     K64,     64 * KB,  64 * KB, 4 },
    { 8, 0, "Ampere",            32,  64, 2048, 1024, K64,     K64,    164 * KB, 163 * KB, 4 },
    { 8, 6, "Ampere",            16,  48, 1536, 1024, K64,     K64,    100 * KB,  99 * KB, 4 },
    { 8, 7, "Ampere",            16,  48, 1536, 1024, K64,     K64,    164 * KB, 163 * KB, 4 },
    { 8, 9, "Ada Lovelace",      24,  48, 1536, 1024, K64,     K64,    100 * KB,  99 * KB, 4 },
    { 9, 0, "Hopper",            32,  64, 2048, 1024, K64,     K64,    228 * KB, 227 * KB, 4 },
    { 10, 0, "Blackwell",        32,  64, 2048, 1024, K64,     K64,    228 * KB, 227 * KB, 4 },
    { 10, 3, "Blackwell",        32,  64, 2048, 1024, K64,     K64,    228 * KB, 227 * KB, 4 },
    { 11, 0, "Blackwell",        24,  48, 1536, 1024, K64,     K64,    228 * KB, 227 * KB, 4 },
    { 12, 0, "Blackwell",        32,  48, 1536, 1024, K64,     K64,    100 * KB,  99 * KB, 4 },
};

#define NCC (sizeof ccs / sizeof *ccs)

/* SM counts: NVIDIA product pages / whitepapers (CUDA cores / cores per SM
 * of the architecture, [ARCH]); the GPUs of ../shared/traces first. */
static const sim_gpu_model models[] = {
    { "gtx950", 6, 5, 2, "GeForce GTX 950: 768 CUDA cores = 6 Maxwell SMs (GM206)" },
    { "gtx1080ti", 28, 6, 1, "GeForce GTX 1080 Ti: 3584 CUDA cores = 28 Pascal SMs (GP102)" },
    { "gtx1080", 20, 6, 1, "GeForce GTX 1080: 2560 CUDA cores = 20 SMs (GP104)" },
    { "titanxp", 30, 6, 1, "TITAN Xp: 3840 CUDA cores = 30 SMs (GP102)" },
    { "teslap100", 56, 6, 0, "Tesla P100: 56 SMs (Pascal whitepaper)" },
    { "teslak80", 13, 3, 7, "Tesla K80: 2 x 13 SMX (GK210), one GPU each" },
    { "teslak40", 15, 3, 5, "Tesla K40: 15 SMX (GK110B)" },
    { "v100", 80, 7, 0, "Tesla V100: 80 SMs (Volta whitepaper)" },
    { "titanv", 80, 7, 0, "TITAN V: 80 SMs (GV100)" },
    { "t4", 40, 7, 5, "Tesla T4: 2560 CUDA cores = 40 Turing SMs (TU104)" },
    { "rtx2080ti", 68, 7, 5, "GeForce RTX 2080 Ti: 68 SMs (Turing whitepaper)" },
    { "a100", 108, 8, 0, "A100: 108 SMs (Ampere A100 whitepaper)" },
    { "a10", 72, 8, 6, "A10: 72 SMs (GA102)" },
    { "rtx3080", 68, 8, 6, "GeForce RTX 3080: 68 SMs (GA102)" },
    { "rtx3090", 82, 8, 6, "GeForce RTX 3090: 82 SMs (GA102)" },
    { "l4", 58, 8, 9, "L4: 7424 CUDA cores = 58 Ada SMs (AD104)" },
    { "rtx4060ti", 34, 8, 9, "GeForce RTX 4060 Ti: 4352 CUDA cores = 34 SMs (AD106)" },
    { "rtx4090", 128, 8, 9, "GeForce RTX 4090: 16384 CUDA cores = 128 SMs (AD102)" },
    { "h100", 132, 9, 0, "H100 SXM5: 132 SMs (H100 whitepaper)" },
    { "h100pcie", 114, 9, 0, "H100 PCIe: 114 SMs (H100 whitepaper)" },
    { "h200", 132, 9, 0, "H200: 132 SMs (GH100, as H100 SXM5)" },
    { "b200", 148, 10, 0, "B200: 148 SMs (Blackwell)" },
    { "rtx5090", 170, 12, 0, "GeForce RTX 5090: 21760 CUDA cores = 170 SMs (GB202)" },
};

#define NMODELS (sizeof models / sizeof *models)

size_t sim_cc_count(void) {
    return NCC;
}

const sim_cc *sim_cc_at(size_t i) {
    return i < NCC ? &ccs[i] : NULL;
}

const sim_cc *sim_cc_find(int major, int minor) {
    const sim_cc *best = NULL;
    for (size_t i = 0; i < NCC; i++)
        if (ccs[i].major == major && ccs[i].minor <= minor) best = &ccs[i];
    return best;
}

int sim_name_has_words(const char *name, const char *target) {
    size_t tl = strlen(target);
    if (!name || !tl) return 0;
    for (const char *w = name; *w; w++) {
        if (!isalnum((unsigned char)*w) || (w > name && isalnum((unsigned char)w[-1])))
            continue;   /* not the start of a word */
        size_t k = 0;
        const char *p = w;
        for (;;) {
            while (*p && isalnum((unsigned char)*p) && k < tl &&
                   tolower((unsigned char)*p) == target[k]) {
                p++;
                k++;
            }
            if (*p && isalnum((unsigned char)*p)) break;   /* mismatch inside a word */
            if (k == tl) return 1;                          /* ends with a whole word */
            while (*p && !isalnum((unsigned char)*p)) p++;  /* on to the next word */
            if (!*p) break;
        }
    }
    return 0;
}

const sim_gpu_model *sim_gpu_model_for(const char *device_name) {
    const sim_gpu_model *best = NULL;
    for (size_t i = 0; i < NMODELS; i++)
        if (sim_name_has_words(device_name, models[i].key) &&
            (!best || strlen(models[i].key) > strlen(best->key)))
            best = &models[i];
    return best;
}

int sim_cc_complete(sim_device *d, const sim_cc *cc) {
    int n = 0;
#define FILL(field, v)                     \
    if (d->field <= 0) {                   \
        d->field = (v);                    \
        n++;                               \
    }
    FILL(warp_size, 32)
    FILL(blocks_per_sm, cc->blocks_per_sm)
    FILL(warps_per_sm, cc->warps_per_sm)
    FILL(threads_per_sm, (int32_t)d->warps_per_sm * d->warp_size)
    FILL(max_threads_per_block, cc->threads_per_block)
    FILL(regs_per_sm, cc->regs_per_sm)
    FILL(max_regs_per_block, cc->regs_per_block)
    FILL(smem_per_sm, cc->smem_per_sm)
    FILL(max_smem_per_block, cc->smem_per_block)
    FILL(schedulers_per_sm, cc->schedulers_per_sm)
#undef FILL
    /* [CCT]: above 48 KB per block only by opt-in, which the profiler's
     * sharedMemPerBlock does not show; a kernel that opted in got more, up
     * to the SM's shared memory (counted only where it raised the field) */
    int64_t opt_in = cc->smem_per_block < d->smem_per_sm ? cc->smem_per_block : d->smem_per_sm;
    if (d->max_smem_per_block < opt_in) {
        d->max_smem_per_block = opt_in;
        n++;
    }
    if (d->max_smem_per_block > d->smem_per_sm) d->max_smem_per_block = d->smem_per_sm;
    return n;
}
