// kernels.cu -- QAWS Fig. 4a's homogeneous pairs for a run under GPGPU-Sim
// (tools/gpgpusim-qaws/README.md): two instances of one kernel in two
// streams, K2 launched right after K1 (QAWS §V-A), persistent threads (the
// blocks spread evenly over the SMs), a loop over the problem. Each kernel
// works in 16-MB arrays: the sizes given must fit them (not checked: a
// probe, README.md has the sizes it ran).
//
//   kernels pc  BLOCKS THREADS ITERS
//   kernels vec BLOCKS N THREADS
//   kernels 2dc BLOCKS NI NJ          (1024 threads a block)
//   kernels mm  BLOCKS WA WB HA       (32 x 32 threads a block)
//   kernels pf  BLOCKS COLS ROWS PYRAMID (1024 threads a block)
//   kernels his BLOCKS WORDS          (192 threads a block)
//   kernels atax BLOCKS THREADS NX NY
//   kernels bin BLOCKS OPTIONS STEPS  (128 threads a block)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

// QAWS §V-A's pc: "each thread executes only one load and one store
// instruction, and loops over compute instructions" (no public source; a
// multiply and an add a step, kept apart, and the loop's counter)
__global__ void pc(const float *in, float *out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i];
  float a = 1.0001f, b = 0.9999f;
#pragma unroll 1
  for (int k = 0; k < iters; k++) x = __fadd_rn(__fmul_rn(x, a), b);
  out[i] = x;
}

// cuda-samples vectorAdd, grid-stride
__global__ void vec(const float *A, const float *B, float *C, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    C[i] = A[i] + B[i];
}

// PolyBench-ACC 2DConvolution, grid-stride over the NI x NJ image
__global__ void conv2d(const float *A, float *B, int NI, int NJ) {
  const float c11 = +0.2f, c21 = +0.5f, c31 = -0.8f, c12 = -0.3f, c22 = +0.6f,
              c32 = -0.9f, c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
  int total = NI * NJ;
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    int i = t / NJ, j = t % NJ;
    if (i > 0 && i < NI - 1 && j > 0 && j < NJ - 1)
      B[i * NJ + j] = c11 * A[(i - 1) * NJ + (j - 1)] + c12 * A[(i + 0) * NJ + (j - 1)] +
                      c13 * A[(i + 1) * NJ + (j - 1)] + c21 * A[(i - 1) * NJ + (j + 0)] +
                      c22 * A[(i + 0) * NJ + (j + 0)] + c23 * A[(i + 1) * NJ + (j + 0)] +
                      c31 * A[(i - 1) * NJ + (j + 1)] + c32 * A[(i + 0) * NJ + (j + 1)] +
                      c33 * A[(i + 1) * NJ + (j + 1)];
  }
}

// cuda-samples matrixMul (BLOCK 32), persistent: each block loops over C's tiles
template <int BS> __global__ void mm(float *C, const float *A, const float *B, int wA, int wB, int tiles) {
  __shared__ float As[BS][BS];
  __shared__ float Bs[BS][BS];
  int tx = threadIdx.x, ty = threadIdx.y;
  int tilesX = wB / BS;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int bx = tile % tilesX, by = tile / tilesX;
    int aBegin = wA * BS * by, aEnd = aBegin + wA - 1, aStep = BS;
    int bBegin = BS * bx, bStep = BS * wB;
    float Csub = 0;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
      As[ty][tx] = A[a + wA * ty + tx];
      Bs[ty][tx] = B[b + wB * ty + tx];
      __syncthreads();
#pragma unroll
      for (int k = 0; k < BS; ++k) Csub += As[ty][k] * Bs[k][tx];
      __syncthreads();
    }
    int c = wB * BS * by + BS * bx;
    C[c + wB * ty + tx] = Csub;
  }
}

// Rodinia pathfinder, dynproc_kernel (BLOCK_SIZE 1024, HALO 1), persistent:
// each block walks the column chunks of every pyramid step (the steps' order
// across blocks is not kept: a timing probe, not a result); at most 32
// registers a thread, so that K1 and K2 share each SM as §V-A asks
#define PF_BS 1024
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
__global__ void __launch_bounds__(PF_BS, 2) pf(const int *gpuWall, int *src, int *dst, int cols, int rows, int pyramid) {
  __shared__ int prev[PF_BS];
  __shared__ int result[PF_BS];
  int tx = threadIdx.x;
  for (int startStep = 0; startStep < rows - 1; startStep += pyramid) {
    int iteration = pyramid < rows - 1 - startStep ? pyramid : rows - 1 - startStep;
    int small_block_cols = PF_BS - iteration * 2;
    int border = iteration;
    int chunks = (cols + small_block_cols - 1) / small_block_cols;
    for (int bx = blockIdx.x; bx < chunks; bx += gridDim.x) {
      int blkX = small_block_cols * bx - border;
      int blkXmax = blkX + PF_BS - 1;
      int xidx = blkX + tx;
      int validXmin = (blkX < 0) ? -blkX : 0;
      int validXmax = (blkXmax > cols - 1) ? PF_BS - 1 - (blkXmax - cols + 1) : PF_BS - 1;
      int W = tx - 1, E = tx + 1;
      W = (W < validXmin) ? validXmin : W;
      E = (E > validXmax) ? validXmax : E;
      bool isValid = IN_RANGE(tx, validXmin, validXmax);
      if (IN_RANGE(xidx, 0, cols - 1)) prev[tx] = src[xidx];
      __syncthreads();
      bool computed = false;
      for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, PF_BS - i - 2) && isValid) {
          computed = true;
          int left = prev[W], up = prev[tx], right = prev[E];
          int shortest = min(min(left, up), right);
          result[tx] = shortest + gpuWall[cols * (startStep + i) + xidx];
        }
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) prev[tx] = result[tx];
        __syncthreads();
      }
      if (computed) dst[xidx] = result[tx];
      __syncthreads();
    }
    int *t = src; src = dst; dst = t;
  }
}

// cuda-samples histogram256Kernel (6 warps a block, a sub-histogram per
// warp in shared memory, shared atomics), grid-stride over the words
#define HIS_WARPS 6
#define HIS_BINS 256
__device__ inline void addByte(unsigned *h, unsigned d) { atomicAdd(h + d, 1); }
__global__ void his(unsigned *partial, const unsigned *data, unsigned count) {
  __shared__ unsigned s_Hist[HIS_WARPS * HIS_BINS];
  unsigned *s_WarpHist = s_Hist + (threadIdx.x >> 5) * HIS_BINS;
  for (unsigned i = 0; i < HIS_BINS * HIS_WARPS / blockDim.x; i++) s_Hist[threadIdx.x + i * blockDim.x] = 0;
  __syncthreads();
  for (unsigned pos = blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += blockDim.x * gridDim.x) {
    unsigned d = data[pos];
    addByte(s_WarpHist, (d >> 0) & 0xFFU);
    addByte(s_WarpHist, (d >> 8) & 0xFFU);
    addByte(s_WarpHist, (d >> 16) & 0xFFU);
    addByte(s_WarpHist, (d >> 24) & 0xFFU);
  }
  __syncthreads();
  for (unsigned bin = threadIdx.x; bin < HIS_BINS; bin += blockDim.x) {
    unsigned sum = 0;
    for (unsigned i = 0; i < HIS_WARPS; i++) sum += s_Hist[bin + i * HIS_BINS];
    partial[blockIdx.x * HIS_BINS + bin] = sum;
  }
}

// PolyBench-ACC atax_kernel1 (each thread a row of A times x)
__global__ void atax(const float *A, const float *x, float *tmp, int nx, int ny) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nx; i += gridDim.x * blockDim.x) {
    float t = 0;
    for (int j = 0; j < ny; j++) t += A[(size_t)i * ny + j] * x[j];
    tmp[i] = t;
  }
}

// cuda-samples binomialOptionsKernel (128 threads, 16 elements each, the
// call_exchange through shared memory), persistent over the options, the
// time steps cut to STEPS as schedlab's program cuts them
#define BIN_TB 128
#define BIN_ELEMS 16
__global__ void __launch_bounds__(BIN_TB, 4) bin(float *out, int options, int steps) {
  __shared__ float call_exchange[BIN_TB + 1];
  const int tid = threadIdx.x;
  for (int opt = blockIdx.x; opt < options; opt += gridDim.x) {
    const float S = 20.0f + opt, X = 25.0f, vDt = 0.01f, puByDf = 0.495f, pdByDf = 0.503f;
    float call[BIN_ELEMS + 1];
#pragma unroll
    for (int i = 0; i < BIN_ELEMS; ++i) {
      float d = S * __expf(vDt * (2.0f * (tid * BIN_ELEMS + i) - BIN_TB * BIN_ELEMS)) - X;
      call[i] = d > 0.0f ? d : 0.0f;
    }
    if (tid == 0) call_exchange[BIN_TB] = 0.0f;
    int final_it = max(0, tid * BIN_ELEMS - 1);
#pragma unroll 16
    for (int i = steps; i > 0; --i) {
      call_exchange[tid] = call[0];
      __syncthreads();
      call[BIN_ELEMS] = call_exchange[tid + 1];
      __syncthreads();
      if (i > final_it) {
#pragma unroll
        for (int j = 0; j < BIN_ELEMS; ++j) call[j] = puByDf * call[j + 1] + pdByDf * call[j];
      }
    }
    if (tid == 0) out[opt] = call[0];
    __syncthreads();
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: kernels pc|vec|2dc|mm|pf|his|atax|bin BLOCKS ...\n");
    return 2;
  }
  const char *which = argv[1];
  int blocks = atoi(argv[2]);
  int need = !strcmp(which, "mm") || !strcmp(which, "pf") || !strcmp(which, "atax") ? 6
           : !strcmp(which, "his") ? 4 : 5;
  if (argc < need || blocks < 1) {
    fprintf(stderr, "kernels %s: %d arguments after the name needed\n", which, need - 2);
    return 2;
  }
  float *a, *b, *c1, *c2;
  size_t N = 1 << 22;
  cudaMalloc(&a, N * 4); cudaMalloc(&b, N * 4); cudaMalloc(&c1, N * 4); cudaMalloc(&c2, N * 4);
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1); cudaStreamCreate(&s2);
  if (!strcmp(which, "pc")) {
    int th = atoi(argv[3]), iters = atoi(argv[4]);
    pc<<<blocks, th, 0, s1>>>(a, c1, iters);
    pc<<<blocks, th, 0, s2>>>(a, c2, iters);
  } else if (!strcmp(which, "vec")) {
    int n = atoi(argv[3]), th = atoi(argv[4]);
    vec<<<blocks, th, 0, s1>>>(a, b, c1, n);
    vec<<<blocks, th, 0, s2>>>(a, b, c2, n);
  } else if (!strcmp(which, "2dc")) {
    int ni = atoi(argv[3]), nj = atoi(argv[4]);
    conv2d<<<blocks, 1024, 0, s1>>>(a, c1, ni, nj);
    conv2d<<<blocks, 1024, 0, s2>>>(b, c2, ni, nj);
  } else if (!strcmp(which, "mm")) {
    int wA = atoi(argv[3]), wB = atoi(argv[4]), hA = atoi(argv[5]);
    int tiles = (wB / 32) * (hA / 32);
    mm<32><<<blocks, dim3(32, 32), 0, s1>>>(c1, a, b, wA, wB, tiles);
    mm<32><<<blocks, dim3(32, 32), 0, s2>>>(c2, a, b, wA, wB, tiles);
  } else if (!strcmp(which, "pf")) {
    int cols = atoi(argv[3]), rows = atoi(argv[4]), pyr = atoi(argv[5]);
    pf<<<blocks, PF_BS, 0, s1>>>((const int *)a, (int *)c1, (int *)c1 + cols, cols, rows, pyr);
    pf<<<blocks, PF_BS, 0, s2>>>((const int *)b, (int *)c2, (int *)c2 + cols, cols, rows, pyr);
  } else if (!strcmp(which, "his")) {
    unsigned words = (unsigned)atoi(argv[3]);
    his<<<blocks, HIS_WARPS * 32, 0, s1>>>((unsigned *)c1, (const unsigned *)a, words);
    his<<<blocks, HIS_WARPS * 32, 0, s2>>>((unsigned *)c2, (const unsigned *)b, words);
  } else if (!strcmp(which, "atax")) {
    int th = atoi(argv[3]), nx = atoi(argv[4]), ny = atoi(argv[5]);
    atax<<<blocks, th, 0, s1>>>(a, b, c1, nx, ny);
    atax<<<blocks, th, 0, s2>>>(a + (size_t)nx * ny, b, c2, nx, ny);
  } else if (!strcmp(which, "bin")) {
    int options = atoi(argv[3]), steps = atoi(argv[4]);
    bin<<<blocks, BIN_TB, 0, s1>>>(c1, options, steps);
    bin<<<blocks, BIN_TB, 0, s2>>>(c2, options, steps);
  } else {
    fprintf(stderr, "kernels: unknown kernel %s\n", which);
    return 2;
  }
  cudaDeviceSynchronize();
  printf("done %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
