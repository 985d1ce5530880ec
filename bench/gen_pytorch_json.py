#!/usr/bin/env python3
"""gen_pytorch_json.py MB OUT -- a synthetic PyTorch profiler (libkineto)
trace of about MB megabytes with the shape of the PyTorch 2.x files in
../shared/traces (kineto_hta_a100pg509_...): deviceProperties of 8 A100s,
distributedInfo, float microsecond offsets from baseTimeNanoseconds, and
per step a cpu_op, a cudaLaunchKernel with its ac2g flow and kernel (long
templated names, grid/block/registers/shared memory), every 8th step a
cudaMemcpyAsync with its memcpy and every 16th an NCCL kernel on stream 40.
Deterministic (no randomness), so two runs write the same bytes."""
import sys

mb, out = float(sys.argv[1]), sys.argv[2]
target = int(mb * 1024 * 1024)
DEV = ('{"id": %d, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85198045184, "computeMajor": 8, '
       '"computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, '
       '"warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 108, "regsPerMultiprocessor": 65536, '
       '"sharedMemPerBlockOptin": 166912, "sharedMemPerMultiprocessor": 167936}')
NAMES = ['void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, '
         'at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)',
         'void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)',
         'void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)',
         'triton_per_fused__softmax_0']
with open(out, 'w') as f:
    f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    %s\n  ],\n' % ',\n    '.join(DEV % i for i in range(8)))
    f.write('  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8, "nccl_version": "2.18.1"},\n')
    f.write('  "traceEvents": [\n')
    written, step, ts = 0, 0, 1000.0
    corr = 1000
    parts = []
    first = True
    while written < target:
        corr += 1
        ext = corr * 2
        name = NAMES[step % len(NAMES)]
        ev = []
        ev.append('{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 4242, "tid": 4242, "ts": %.3f, "dur": 12.406, '
                  '"args": {"External id": %d, "Record function id": 0, "Ev Idx": %d}}' % (ts, ext, step))
        ev.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": %.3f, '
                  '"dur": 4.981, "args": {"External id": %d, "cbid": 211, "correlation": %d}}' % (ts + 3.25, ext, corr))
        ev.append('{"ph": "s", "id": %d, "pid": 4242, "tid": 4242, "ts": %.3f, "cat": "ac2g", "name": "ac2g"}' % (corr, ts + 3.25))
        ev.append('{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %.3f, "dur": %.3f, '
                  '"args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": %d, '
                  '"registers per thread": 32, "shared memory": %d, "blocks per SM": 2.370370, "warps per SM": 18.962963, '
                  '"grid": [%d, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %%": 30}}'
                  % (name, ts + 9.5, 6.0 + step % 17, ext, corr, (step % 4) * 16384, 64 + step % 512))
        ev.append('{"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"}' % (corr, ts + 9.5))
        if step % 8 == 0:
            corr += 1
            ev.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 4242, "tid": 4242, "ts": %.3f, '
                      '"dur": 7.1, "args": {"External id": %d, "cbid": 41, "correlation": %d}}' % (ts + 20, ext, corr))
            ev.append('{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, '
                      '"ts": %.3f, "dur": 2.048, "args": {"External id": %d, "device": 0, "context": 1, "stream": 7, '
                      '"correlation": %d, "bytes": 65536, "memory bandwidth (GB/s)": 32.0}}' % (ts + 22, ext, corr))
        if step % 16 == 0:
            corr += 1
            ev.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 4242, "tid": 4243, "ts": %.3f, '
                      '"dur": 5.0, "args": {"External id": %d, "cbid": 430, "correlation": %d}}' % (ts + 1, ext, corr))
            ev.append('{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", '
                      '"pid": 0, "tid": 40, "ts": %.3f, "dur": 41.5, "args": {"External id": %d, "device": 0, "stream": 40, '
                      '"correlation": %d, "registers per thread": 96, "shared memory": 0, "grid": [2, 1, 1], "block": [640, 1, 1], '
                      '"Collective name": "allreduce", "In msg nelems": 1048576, "Out msg nelems": 1048576, "dtype": "Float"}}'
                      % (ts + 6, ext, corr))
        s = ('' if first else ',\n') + ',\n'.join('  ' + e for e in ev)
        first = False
        parts.append(s)
        written += len(s)
        if len(parts) >= 4096:
            f.write(''.join(parts))
            parts = []
        ts += 25.0
        step += 1
    f.write(''.join(parts))
    f.write('\n  ],\n  "traceName": "bench.pt.trace.json",\n  "displayTimeUnit": "ms",\n'
            '  "baseTimeNanoseconds": 1700000000000000000\n}\n')
