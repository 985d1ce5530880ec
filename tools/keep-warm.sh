#!/usr/bin/env bash
# tools/keep-warm.sh [PATH... --] COMMAND [ARG...] -- run COMMAND with files
# it will come back to locked in memory (vmtouch -l), and unlock them when
# it ends; exits with COMMAND's status. The PATHs (files, or folders and
# all below them) before `--`; without them, the big read-only programs
# make test keeps coming back to: Chromium's headless shell, node, clang
# and the libraries it loads.
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
# it. In one `.ci/run` (AMD EPYC, 2026-12-02) 92 CPU-s of I/O wait and 53
# idle, 646 s; with the three programs kept in memory 68 and 29, 623 s,
# the wait then all in the last two minutes, the unit tests' and the
# harnesses' reads. A cold start of the headless shell alone took 13 s
# against 0.1 s warm.
#
# Best effort: without vmtouch, or where mlock is refused (a user without
# CAP_IPC_LOCK and a small RLIMIT_MEMLOCK), COMMAND runs as it would
# anyway. The locking reads the files in the background, beside COMMAND.
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
# PATHs before the first `--`; none: the programs above
if printf '%s\n' "$@" | grep -qx -- --; then
    while [ "$1" != -- ]; do add "$1"; shift; done
    shift
    [ $# -gt 0 ] || usage
else
    # the headless shell that tests/browser/harness.mjs starts (Debian's
    # /usr/bin/chromium-headless-shell is a script that runs this one)
    add /usr/lib/chromium/chromium-headless-shell
    command -v node >/dev/null && add "$(command -v node)"
    # clang and the shared libraries it loads (the ASan/UBSan tree, the
    # fuzz harnesses), as ldd names them
    if command -v clang >/dev/null; then
        clang=$(command -v clang)
        add "$clang" $(ldd "$(readlink -f "$clang")" 2>/dev/null | awk '$3 ~ /^\// { print $3 }')
    fi
fi

locker= pidfile=
if command -v vmtouch >/dev/null && [ ${#files[@]} -gt 0 ]; then
    pidfile=$(mktemp)
    # -d: a daemon that holds the lock; -w: it returns once every page is
    # locked and the pidfile written, so the one in the background here
    # ends then, and the cleanup below waits for it before it reads the
    # pidfile
    vmtouch -q -l -d -w -P "$pidfile" "${files[@]}" > /dev/null 2>&1 &
    locker=$!
fi
unlock() {
    [ -n "$locker" ] || return 0
    wait "$locker" 2> /dev/null
    local pid
    pid=$(cat "$pidfile" 2> /dev/null)
    [ -n "$pid" ] && kill "$pid" 2> /dev/null
    rm -f "$pidfile"
    locker=
}
trap unlock EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$@"
