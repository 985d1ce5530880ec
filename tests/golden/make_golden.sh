#!/usr/bin/env bash
# Rewrite the golden traces (tests/golden/): run only when a change of the
# simulator's behaviour is intended, and say why in the commit.
#   tests/golden/make_golden.sh [BUILD]     (default build folder: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
mkdir -p tests/golden/scenarios
rm -f tests/golden/scenarios/*.trace.json tests/golden/scenarios/*.trace.sha256
# A trace over 1 MB (the 30 s GCAPS case study: 10-16 MB per run) is pinned
# by its SHA-256 and length instead of its text, so the repository stays small.
pin() {
    local out=$1
    if [ "$(stat -c %s "$out")" -gt 1048576 ]; then
        echo "$(sha256sum < "$out" | cut -d' ' -f1) $(stat -c %s "$out")" > "${out%.json}.sha256"
        rm -f "$out"
    fi
}
for f in scenarios/*.json; do
    b=$(basename "$f" .json)
    "$build/schedlab" simulate "$f" -o "tests/golden/scenarios/$b.trace.json"
    pin "tests/golden/scenarios/$b.trace.json"
    for v in $(node -e 'for (const v of JSON.parse(require("fs").readFileSync(process.argv[1])).variants || []) console.log(v.name)' "$f"); do
        "$build/schedlab" simulate "$f" --variant "$v" -o "tests/golden/scenarios/$b--$v.trace.json"
        pin "tests/golden/scenarios/$b--$v.trace.json"
    done
done
SCHEDLAB_WRITE_GOLDEN=1 "$build/tests/test_sim_props" >/dev/null
echo "golden traces rewritten: $(ls tests/golden/scenarios | wc -l) scenario runs, $(wc -l < tests/golden/props.digests) random seeds"
