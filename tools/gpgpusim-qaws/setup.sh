#!/bin/bash
# setup.sh DIR -- build GPGPU-Sim (gpgpu-sim_distribution 90ec339, the
# SM7_TITANV configuration QAWS Table Ia names) with this directory's patch,
# and kernels.cu against it, into DIR. Debian 12: CUDA 11.8 from non-free
# (GPGPU-Sim accepts CUDA up to 11.1x; nvcc 11.8 wants g++ 11). Root for apt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mkdir -p "$1" && cd "$1" && pwd)
missing=0
for t in /usr/lib/nvidia-cuda-toolkit/bin/nvcc g++-11 bison flex makedepend git; do
  command -v "$t" >/dev/null || missing=1
done
[ -e /usr/include/zlib.h ] || missing=1
if [ "$missing" = 1 ]; then
  printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: contrib non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    > /etc/apt/sources.list.d/schedlab-cuda-nonfree.sources
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    nvidia-cuda-toolkit g++-11 bison flex zlib1g-dev xutils-dev git
fi
# GPGPU-Sim wants CUDA_INSTALL_PATH/{bin,include,lib64}: Debian's layout,
# linked into one place
cuda=$dir/cuda-11.8
mkdir -p "$cuda/bin"
for f in /usr/lib/nvidia-cuda-toolkit/bin/*; do ln -sf "$f" "$cuda/bin/"; done
for t in ptxas cuobjdump fatbinary nvlink nvdisasm nvprune bin2c cudafe++; do
  [ -e /usr/bin/$t ] && ln -sf /usr/bin/$t "$cuda/bin/$t"
done
ln -sfn /usr/include "$cuda/include"
ln -sfn /usr/lib/x86_64-linux-gnu "$cuda/lib64"
src=$dir/gpgpu-sim
if ! [ -d "$src" ]; then
  git clone "${GPGPUSIM_REPO:-https://github.com/gpgpu-sim/gpgpu-sim_distribution}" "$src"
  git -C "$src" checkout 90ec3399763d7c8512cfe7dc193473086c38ca38
  patch -d "$src" -p1 < "$here/gpgpu-sim.patch"
fi
( set +u   # setup_environment reads variables it may not find
  export CUDA_INSTALL_PATH=$cuda PATH=$cuda/bin:$PATH
  cd "$src" && source setup_environment release && make -j"$(nproc)" )
PATH=$cuda/bin:$PATH nvcc -ccbin g++-11 -cudart shared \
  -gencode arch=compute_70,code=compute_70 -O3 -o "$dir/kernels" "$here/kernels.cu"
echo "built: export GPGPUSIM=$src CUDA_INSTALL_PATH=$cuda; $here/run.sh 2sm lrr $dir/kernels pc 2 1024 200"
