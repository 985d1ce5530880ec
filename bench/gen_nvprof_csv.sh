#!/bin/sh
# gen_nvprof_csv.sh ROWS OUT -- a large nvprof --print-gpu-trace CSV with the
# shape of a real one (../shared/traces, batchCUBLAS on a GTX 1080 Ti: the
# same header, units row and mix of kernel and memcpy rows), repeated with
# the Start column shifted so time keeps increasing.
set -eu
rows=$1 out=$2
src=${SCHEDLAB_SHARED:-../shared}/traces/nvprof_gputrace_magus_batchCUBLAS_gtx1080ti.csv
awk -v rows="$rows" '
    NR <= 5 { print; next }                       # preamble, header, units
    { data[n++] = $0 }
    END {
        # the real rows span about 0.17 s (Start is in seconds here)
        first = substr(data[0], 1, index(data[0], ",") - 1) + 0
        last  = substr(data[n-1], 1, index(data[n-1], ",") - 1) + 0
        span = last - first + 0.001
        for (i = 0; i < rows; i++) {
            line = data[i % n]; c = index(line, ",")
            printf "%.6f%s\n", substr(line, 1, c - 1) + int(i / n) * span, substr(line, c)
        }
    }' "$src" > "$out"
