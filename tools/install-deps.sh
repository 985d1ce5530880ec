#!/usr/bin/env bash
# install-deps.sh -- install what schedlab needs to build, run and test, and
# nothing that is already there. Idempotent: a second run only checks.
#
# Debian: the C libraries (-dev; libiberty-dev is the GNU C++ demangler),
# the test framework, binutils (c++filt, which the demangler test compares
# with), clang and lld (fuzzing and the ASan/UBSan build, linked with lld),
# and Chromium's headless shell for the browser tests (chromium itself for
# `make bench`'s browser rows). npm: Chart.js and playwright-core,
# from the committed package-lock.json. nginx-light and wrk are for `make
# bench`'s HTTP rows, time for its peak-RSS rows (docs/bench.md); vmtouch
# keeps the files `make test` comes back to in memory (tools/keep-warm.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

debs=(build-essential pkg-config libmicrohttpd-dev libjansson-dev libsqlite3-dev sqlite3
      libcmocka-dev libarchive-dev libiberty-dev binutils clang libclang-rt-dev lld chromium
      chromium-headless-shell
      fonts-liberation nodejs npm
      slurm-wlm munge    # a throw-away single-node Slurm for the sweep job-array test
      nginx-light wrk    # make bench only: the static-file ceiling and the load generator
                         # (the bench starts its own nginx on loopback, never the service)
      time               # make bench only: /usr/bin/time, a command's peak RSS
      clang-tools        # make analyze only: scan-build, clang's static analyzer
      vmtouch)           # make test: keeps the browser, node and clang in memory (tools/keep-warm.sh)

missing=()
for p in "${debs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# node and npm may come from elsewhere than Debian (e.g. a preinstalled build)
if command -v node >/dev/null && command -v npm >/dev/null; then
    keep=()
    for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || keep+=("$p"); done
    missing=("${keep[@]+"${keep[@]}"}")
fi
if ((${#missing[@]})); then
    echo "install-deps: installing Debian packages: ${missing[*]}"
    SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci only when node_modules is missing or older than the lockfile.
stamp=node_modules/.schedlab-stamp
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
    echo "install-deps: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
    touch "$stamp"
fi
