#!/usr/bin/env bash
# tools/run-units.sh JOBS BINARY... -- run unit test binaries JOBS at a
# time (make unit, make unit-asan, make test). Each binary's output goes to
# BINARY.log; a line "== BINARY ok (S s)" per pass, the whole log of each
# failure, and at the end the slowest five. Exits 1 when any failed (all
# of them still run, so one failure does not hide another).
set -u
jobs=$1; shift
[ $# -gt 0 ] || exit 0
one() {
    local t=$1 start end rc
    start=$(date +%s.%N)
    "$t" > "$t.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    local secs
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" = 0 ]; then
        echo "== $t ok ($secs s)"
    else
        { echo "== $t FAILED (exit $rc, $secs s):"; cat "$t.log"; } >&2
    fi
    echo "$secs $t $rc" >> "$TIMES"
    return 0
}
export -f one
export TIMES
TIMES=$(mktemp)
trap 'rm -f "$TIMES"' EXIT
printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'one "$1"' _ {}
failed=$(awk '$3 != 0' "$TIMES" | wc -l)
ran=$(wc -l < "$TIMES")
echo "-- slowest: $(sort -rn "$TIMES" | head -5 | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1 }')"
if [ "$failed" != 0 ] || [ "$ran" != $# ]; then
    echo "run-units: $failed of $# failed ($ran ran):" \
         "$(awk '$3 != 0 { printf "%s ", $2 }' "$TIMES")" >&2
    exit 1
fi
echo "run-units: all $# passed"
