// recorder.cuh -- record when and where every thread block of a kernel ran,
// as the globaltimer CSV that `schedlab import` reads (see README.md).
//
// Device side: call rec_block_begin(buf) first thing in the kernel and
// rec_block_end(buf) last, from every thread (rec_block_end has a
// __syncthreads(), so no thread may return early). Thread 0 of each block
// stores %globaltimer at entry, %smid, and %globaltimer once the whole block
// has reached the end -- the same instrumentation as
// cuda_scheduling_examiner, except that "end" waits for the whole block.
//
// Host side: one rec_launch per kernel launch owns a device buffer of one
// rec_block per block; rec_write_csv() copies the buffers back and writes
// one CSV row per block. Header-only, C++11, no dependency beyond the CUDA
// runtime.
#ifndef SCHEDLAB_RECORDER_CUH
#define SCHEDLAB_RECORDER_CUH

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec_block {
    unsigned long long start;   // %globaltimer, ns
    unsigned long long end;
    unsigned int sm;            // %smid
    unsigned int pad;
};

__device__ __forceinline__ unsigned long long rec_globaltimer(void) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ unsigned int rec_smid(void) {
    unsigned int s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

__device__ __forceinline__ unsigned int rec_block_index(void) {
    return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

__device__ __forceinline__ bool rec_thread0(void) {
    return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
}

__device__ __forceinline__ void rec_block_begin(rec_block *buf) {
    if (rec_thread0()) {
        rec_block *b = &buf[rec_block_index()];
        b->start = rec_globaltimer();
        b->sm = rec_smid();
    }
}

__device__ __forceinline__ void rec_block_end(rec_block *buf) {
    __syncthreads();
    if (rec_thread0()) buf[rec_block_index()].end = rec_globaltimer();
}

// One kernel launch: its label (unique per launch), stream name, shape.
struct rec_launch {
    char label[128];
    char stream[64];
    unsigned int blocks;
    unsigned int threads;       // per block
    rec_block *dev;             // device buffer, `blocks` entries
};

// Allocate the device buffer for a launch of `grid` x `block`. Returns
// cudaSuccess or the CUDA error.
static inline cudaError_t rec_launch_init(rec_launch *l, const char *label, const char *stream,
                                          dim3 grid, dim3 block) {
    memset(l, 0, sizeof *l);
    snprintf(l->label, sizeof l->label, "%s", label);
    snprintf(l->stream, sizeof l->stream, "%s", stream ? stream : "");
    l->blocks = grid.x * grid.y * grid.z;
    l->threads = block.x * block.y * block.z;
    cudaError_t e = cudaMalloc(&l->dev, l->blocks * sizeof(rec_block));
    if (e != cudaSuccess) return e;
    return cudaMemset(l->dev, 0, l->blocks * sizeof(rec_block));
}

static inline void rec_launch_free(rec_launch *l) {
    if (l->dev) cudaFree(l->dev);
    l->dev = NULL;
}

// Write a CSV field, quoted when it holds a comma, quote or line break.
static inline void rec_csv_field(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

// Copy every launch's blocks back (call after the kernels finished) and
// write the header and one row per block. Returns 0, or -1 with a message
// on stderr.
static inline int rec_write_csv(FILE *f, rec_launch *launches, int n) {
    fprintf(f, "kernel,block,sm,start_ns,end_ns,stream,threads\n");
    for (int i = 0; i < n; i++) {
        rec_launch *l = &launches[i];
        rec_block *host = (rec_block *)malloc(l->blocks * sizeof(rec_block));
        if (!host) {
            fprintf(stderr, "recorder: out of memory for %u blocks of %s\n", l->blocks, l->label);
            return -1;
        }
        cudaError_t e = cudaMemcpy(host, l->dev, l->blocks * sizeof(rec_block),
                                   cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            fprintf(stderr, "recorder: copying the blocks of %s back: %s\n", l->label,
                    cudaGetErrorString(e));
            free(host);
            return -1;
        }
        for (unsigned int b = 0; b < l->blocks; b++) {
            if (host[b].end == 0) {
                fprintf(stderr, "recorder: %s block %u has no end time (did every thread "
                                "reach rec_block_end?)\n", l->label, b);
                free(host);
                return -1;
            }
            rec_csv_field(f, l->label);
            fprintf(f, ",%u,%u,%llu,%llu,", b, host[b].sm, host[b].start, host[b].end);
            rec_csv_field(f, l->stream);
            fprintf(f, ",%u\n", l->threads);
        }
        free(host);
    }
    return ferror(f) ? -1 : 0;
}

#endif
