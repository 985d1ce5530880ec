// example.cu -- two kernels on two streams, recorded block by block.
//
//   ./example [out.csv]        (stdout without an argument)
//   schedlab import out.csv    (detected as globaltimer-csv)
//
// spin_a (8 blocks of 256 threads) and spin_b (8 blocks of 128) each spin
// for a fixed time on the globaltimer; on separate streams they may run
// concurrently, which the trace then shows SM by SM.
#include "recorder.cuh"

#include <stdio.h>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "example: %s: %s\n", #call, cudaGetErrorString(e_));       \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

__global__ void spin(rec_block *rec, unsigned long long ns) {
    rec_block_begin(rec);
    unsigned long long t0 = rec_globaltimer();
    while (rec_globaltimer() - t0 < ns) {
    }
    rec_block_end(rec);
}

int main(int argc, char **argv) {
    FILE *out = stdout;
    if (argc > 1 && !(out = fopen(argv[1], "w"))) {
        perror(argv[1]);
        return 1;
    }
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    rec_launch l[2];
    dim3 grid(8), block_a(256), block_b(128);
    CHECK(rec_launch_init(&l[0], "spin_a", "s1", grid, block_a));
    CHECK(rec_launch_init(&l[1], "spin_b", "s2", grid, block_b));
    spin<<<grid, block_a, 0, s1>>>(l[0].dev, 200000ULL);
    CHECK(cudaGetLastError());
    spin<<<grid, block_b, 0, s2>>>(l[1].dev, 100000ULL);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int rc = rec_write_csv(out, l, 2);
    rec_launch_free(&l[0]);
    rec_launch_free(&l[1]);
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    if (out != stdout && fclose(out) != 0) rc = -1;
    return rc == 0 ? 0 : 1;
}
