#!/bin/bash
# run.sh CONFIG POLICY KERNELS-BINARY ARGS...  -- one GPGPU-Sim run of a pair
# CONFIG: 2sm (SM7_TITANV, 2 SMs, its 24 memory channels) or 2sm-mem (the
# same with one channel at 510 MHz: 2/80 of the TITAN V's DRAM bandwidth)
# POLICY: lrr, gto, or qaws-B (Algorithm 1, K1's budget 1, K2's B)
# Prints each kernel's first and last cycle (the patch's kernel_done lines).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${GPGPUSIM:?set GPGPUSIM to the patched gpgpu-sim_distribution tree (setup.sh)}"
: "${CUDA_INSTALL_PATH:?set CUDA_INSTALL_PATH as for setup.sh}"
cfg=$1 pol=$2 bin=$(readlink -f "$3"); shift 3
lib=$(ls -d "$GPGPUSIM"/lib/*/cuda-*/release | head -1)
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cp "$GPGPUSIM/configs/tested-cfgs/SM7_TITANV/"* "$d/"
sed -i 's/^-gpgpu_n_clusters 40/-gpgpu_n_clusters 1/' "$d/gpgpusim.config"
if [ "$cfg" = 2sm-mem ]; then
  sed -i 's/^-gpgpu_n_mem 24/-gpgpu_n_mem 1/; s/^-gpgpu_memory_partition_indexing .*/-gpgpu_memory_partition_indexing 0/;
          s/^-gpgpu_clock_domains 1200.0:1200.0:1200.0:850.0/-gpgpu_clock_domains 1200.0:1200.0:1200.0:510.0/' "$d/gpgpusim.config"
fi
case $pol in
  lrr) sched=lrr; unset QAWS_B || true ;;
  gto) sched=gto; unset QAWS_B || true ;;
  qaws-*) sched=gto; export QAWS_B=${pol#qaws-} ;;
  *) echo "run.sh: unknown policy $pol (lrr, gto, qaws-B)" >&2; exit 2 ;;
esac
sed -i "s/^-gpgpu_scheduler gto/-gpgpu_scheduler $sched/" "$d/gpgpusim.config"
printf '\n-gpgpu_concurrent_kernel_sm 1\n' >> "$d/gpgpusim.config"
cd "$d"
LD_LIBRARY_PATH=$lib PATH=$CUDA_INSTALL_PATH/bin:$PATH "$bin" "$@" > out.txt 2>&1 || { tail -5 out.txt >&2; exit 1; }
grep '^SCHEDLAB kernel_done' out.txt
