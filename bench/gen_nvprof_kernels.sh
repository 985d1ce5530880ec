#!/bin/sh
# gen_nvprof_kernels.sh ROWS OUT -- an nvprof --print-gpu-trace CSV of ROWS
# kernels and nothing else (issue 9's 1M-kernel run, make bench's
# kernel-level dashboard row): 8 streams, 6 kernel names of the real
# batchCUBLAS trace's kind, launched every 1 to 4 us, 2 to 30 us long, so
# a stream's kernels sometimes overlap. Deterministic (a fixed LCG).
set -eu
rows=$1 out=$2
awk -v rows="$rows" 'BEGIN {
    print "==1== NVPROF is profiling process 1, command: ./bench"
    print "==1== Profiling application: ./bench"
    print "==1== Profiling result:"
    print "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\",\"Registers Per Thread\",\"Static SMem\",\"Dynamic SMem\",\"Size\",\"Throughput\",\"Device\",\"Context\",\"Stream\",\"Name\""
    print "us,us,,,,,,,,KB,B,KB,MB/s,,,,"
    split("maxwell_sgemm_128x64_raggedMn_nn,maxwell_dgemmBatched_64x64_raggedMn_nn,axpy_kernel_val<float>,reduce_1Block_kernel<float>,dot_kernel<float>,scal_kernel_val<float>", name, ",")
    s = 12345; t = 1000
    for (i = 0; i < rows; i++) {
        # exact in double precision: 69069 * 2^32 < 2^53
        s = (s * 69069 + 1) % 4294967296
        r = int(s / 65536)
        t += 1 + r % 4
        printf "%d.%03d,%d.%03d,%d,1,1,%d,1,1,32,0,0,,,\"GeForce GTX 1080 Ti (0)\",\"1\",\"%d\",\"%s\"\n",
            t, int(r / 4) % 1000, 2 + int(r / 16) % 29, int(r / 8) % 1000, 1 + r % 64,
            64 * (1 + int(r / 2) % 4), 7 + int(r / 32) % 8, name[1 + int(r / 256) % 6]
    }
}' > "$out"
