#!/usr/bin/env bash
# tools/keep-warm.sh [PATH... --] COMMAND [ARG...] -- run COMMAND with files
# it will come back to locked in memory (vmtouch -l), and unlock them when
# it ends; exits with COMMAND's status. The PATHs (files, or folders and
# all below them) before `--`; without them, the big read-only programs
# make test keeps coming back to: Chromium's headless shell and what it
# loads, node, clang and the libraries it loads.
#
# Why: this project's 2-core test machine pages out every file page that
# has not been touched for a minute (a DAMON "pageout" scheme: min age 12
# aggregations of 5 s) and reads its disk at about 30 MB/s, slower still
# in small random reads. Chromium's headless shell (212 MB), node (99 MB)
# and clang's libraries (about 230 MB) are used in bursts a minute or more
# apart -- clang in the build and again for the fuzz harnesses, node and a
# fresh Chromium process all through the suites -- and the unit tests and
# fuzz harnesses built at the start are run minutes later: all were read
# from disk again, page fault by page fault, with both cores waiting on
# it. `.ci/run` on an AMD EPYC, 2026-12-02: the day's first run, its
# files cold, 646 s with 92 CPU-s of I/O wait and 53 idle, 52 of the wait
# while the suites and the last unit tests ran; with this, 574-606 s and
# 0-11 CPU-s of wait in those phases (what is left is in the first two
# minutes: the dependency checks and the first reads). Runs started right
# after another found most files still in memory and the disk fast, and
# took 568-608 s with or without this: it is insurance for the cold case,
# not a gain on a warm machine. A cold start of the headless shell alone
# took 13 s against 0.1 s warm.
#
# Best effort: without vmtouch, where mlock is refused (a user without
# CAP_IPC_LOCK and a small RLIMIT_MEMLOCK) or where memory is short
# (below), COMMAND runs as it would anyway. The locking reads the files in
# the background, beside COMMAND, and no lock outlives this script,
# however it ends.
set -u
usage() { echo "usage: tools/keep-warm.sh [PATH... --] COMMAND [ARG...]" >&2; exit 2; }
[ $# -gt 0 ] || usage

files=()
add() {
    local f
    for f in "$@"; do
        f=$(readlink -f "$f" 2>/dev/null) && [ -e "$f" ] && files+=("$f")
    done
}
# a program and the shared libraries it loads, as ldd names them
add_program() {
    add "$1" $(ldd "$(readlink -f "$1")" 2>/dev/null | awk '$3 ~ /^\// { print $3 }')
}
# PATHs before the first `--`; none: the programs above
if printf '%s\n' "$@" | grep -qx -- --; then
    while [ "$1" != -- ]; do add "$1"; shift; done
    shift
    [ $# -gt 0 ] || usage
else
    # in the order the run first needs them (the locking reads them one
    # after the other): clang and the libraries it loads, as ldd names them
    # (the ASan/UBSan tree, later the fuzz harnesses), node (the seed
    # database, then the suites), then the browser (the suites)
    command -v clang >/dev/null && add_program "$(command -v clang)"
    command -v node >/dev/null && add "$(command -v node)"
    # the headless shell that tests/browser/harness.mjs starts (Debian's
    # /usr/bin/chromium-headless-shell is a script that runs this one), the
    # libraries it loads and the files it opens as it starts and draws
    # (strace: ICU's data, V8's snapshot, its .pak resources, the software
    # Vulkan, the fonts the pages fall back to)
    shell=/usr/lib/chromium/chromium-headless-shell
    if [ -x "$shell" ]; then
        add_program "$shell"
        add /usr/lib/chromium/{icudtl.dat,v8_context_snapshot.bin,libvk_swiftshader.so,libvulkan.so.1} \
            /usr/lib/chromium/headless_lib_*.pak /usr/share/fonts/truetype/{dejavu,liberation}
    fi
fi

# only where the lock is small beside the memory left to the run: at most
# an eighth of what the kernel counts available (make test's two locks,
# ~600 and ~500 MB, each checked when it starts: under ~5 GB available the
# run goes without them)
enough() {
    local need avail
    need=$(du -cLk --apparent-size -- "${files[@]}" 2> /dev/null | awk 'END { print $1 }')
    avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2> /dev/null)
    [ -n "$need" ] && [ -n "$avail" ] && [ $((need * 8)) -le "$avail" ]
}
# vmtouch -l (no -d) locks every page, then holds them until it is killed;
# setpriv --pdeathsig has it killed with this script however the script
# ends (SIGKILL too), so no lock outlives the run
locker=
if command -v vmtouch > /dev/null && [ ${#files[@]} -gt 0 ] && enough; then
    pdeath=()
    command -v setpriv > /dev/null && pdeath=(setpriv --pdeathsig TERM)
    # its reads in the idle I/O class, behind those of the work it is there
    # to speed up (the disk's mq-deadline scheduler honours the class)
    idle=()
    command -v ionice > /dev/null && idle=(ionice -c 3)
    "${pdeath[@]+"${pdeath[@]}"}" "${idle[@]+"${idle[@]}"}" vmtouch -q -l "${files[@]}" > /dev/null 2>&1 &
    locker=$!
fi
unlock() {
    [ -n "$locker" ] || return 0
    kill "$locker" 2> /dev/null
    wait "$locker" 2> /dev/null
    locker=
}
trap unlock EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

"$@"
