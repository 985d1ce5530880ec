#!/usr/bin/env bash
# tests/mutation/run.sh -- mutation testing of the C unit tests.
#
#   tests/mutation/run.sh [--src DIR] [--list FILE] [--only ID[,ID...]] [--keep]
#
# Copies the source tree (DIR, default: this repository; rsync, or tar) to a temporary
# directory, builds the unit tests there once (BUILD=build-mutation) and runs
# them for a baseline, then for each mutant of the list
# (tests/mutation/mutants.txt, format described there): applies it to the
# copy, rebuilds, runs every unit test binary, restores the file. A mutant is
#   killed     some test that passed in the baseline fails (or its binary
#              crashes or runs over MUTATION_TIMEOUT seconds, default 120)
#   survived   every test that passed in the baseline still passes
#   stale      its pattern is on no line any more (the code moved: update it)
#   ambiguous  its pattern is on several lines
#   invalid    the mutated tree does not compile
# Prints a table (with the tests that killed each mutant) and a final
# "N killed, M survived" line; exits 1 when a mutant survived.
#
# The source tree itself is only read (rsync from it); everything is
# written under the temporary directory, which is removed at the end unless
# --keep. JOBS (default 2) is make's parallelism. SCHEDLAB_SHARED (default
# DIR/../shared) is passed to the tests as in `make unit`.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
list=$here/mutants.txt
only=
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --src) src=$(cd "$2" && pwd); shift 2 ;;
        --list) list=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        --only) only=",$2,"; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -f "$list" ] || { echo "run.sh: no mutant list $list" >&2; exit 2; }

JOBS=${JOBS:-2}
TIMEOUT=${MUTATION_TIMEOUT:-120}
B=build-mutation
shared=${SCHEDLAB_SHARED:-$(cd "$src/.." && pwd)/shared}

work=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-mutation.XXXXXX")
if [ "$keep" = 1 ]; then echo "run.sh: working copy kept in $work" >&2
else trap 'rm -rf "$work"' EXIT; fi
tree=$work/tree
mkdir -p "$tree" "$work/orig" "$work/logs"
# build folders, node_modules, git metadata, the built binary and databases
# stay behind (tar where rsync is missing: same exclusions)
if command -v rsync >/dev/null; then
    rsync -a --exclude='/build*/' --exclude='/node_modules/' --exclude='/.git/' \
        --exclude='/schedlab' --exclude='*.db' --exclude='*.db-wal' --exclude='*.db-shm' \
        "$src/" "$tree/"
else
    tar -C "$src" --anchored --exclude='./build*' --exclude='./node_modules' --exclude='./.git' \
        --exclude='./schedlab' --no-anchored --exclude='*.db' --exclude='*.db-wal' \
        --exclude='*.db-shm' -cf - . | tar -C "$tree" -xf -
fi

cd "$tree" || exit 2
bins=()
for f in tests/unit/test_*.c; do bins+=("$B/tests/$(basename "$f" .c)"); done

build() {   # build every unit test binary; fixtures etc. through `make unit`'s prerequisites
    make -j"$JOBS" --no-print-directory BUILD=$B "${bins[@]}" >"$1" 2>&1
}

# Runs every test binary; writes "binary:test" for each passing test to $1.
run_tests() {
    local out=$1 log=$2 b name
    : >"$out"
    : >"$log"
    for b in "${bins[@]}"; do
        name=$(basename "$b")
        SCHEDLAB_SHARED=$shared SCHEDLAB_TRACES=$shared/traces SCHEDLAB_ROOT=$tree \
            SCHEDLAB_FIXTURES=$tree/$B/fixtures \
            timeout "$TIMEOUT" "$b" >"$work/logs/one" 2>&1
        cat "$work/logs/one" >>"$log"
        sed -n 's/^\[ *OK *\] \(.*\)$/\1/p' "$work/logs/one" | sed "s/^/$name:/" >>"$out"
    done
    sort -o "$out" "$out"
}

echo "mutation: building the baseline in $tree/$B (JOBS=$JOBS)" >&2
# `make unit` once builds whatever else the tests need (fixtures); its test
# failures are the baseline's business, recorded below
make -j"$JOBS" --no-print-directory BUILD=$B unit >"$work/logs/baseline-unit" 2>&1
if ! build "$work/logs/baseline-build"; then
    echo "run.sh: the unmutated tree does not build:" >&2
    tail -20 "$work/logs/baseline-build" >&2
    exit 2
fi
run_tests "$work/baseline.ok" "$work/logs/baseline-tests"
nbase=$(wc -l <"$work/baseline.ok")
echo "mutation: baseline: $nbase tests pass" >&2
if grep -q '^\[  FAILED  \] [a-z]' "$work/logs/baseline-tests"; then
    echo "mutation: baseline failures (ignored when judging mutants):" >&2
    grep '^\[  FAILED  \] [a-z]' "$work/logs/baseline-tests" | sort -u | sed 's/^/  /' >&2
fi

# find_variant ID -> prints "file<TAB>pattern<TAB>replacement" of the first
# variant whose pattern is on exactly one line; else prints stale/ambiguous.
find_variant() {
    local id=$1 status=stale
    while IFS=$'\t' read -r mid files pat rep; do
        [ "$mid" = "$id" ] || continue
        local hits=() f n
        # shellcheck disable=SC2086
        for f in $files; do
            [ -f "$f" ] || continue
            n=$(PAT=$pat awk 'index($0, ENVIRON["PAT"]) { n++ } END { print n + 0 }' "$f")
            while [ "$n" -gt 0 ]; do hits+=("$f"); n=$((n - 1)); done
        done
        if [ "${#hits[@]}" -eq 1 ]; then
            printf '%s\t%s\t%s\n' "${hits[0]}" "$pat" "$rep"
            return 0
        fi
        [ "${#hits[@]}" -gt 1 ] && status=ambiguous
    done < <(grep -v '^#' "$list" | grep -v '^[[:space:]]*$')
    echo "$status"
    return 1
}

ids=$(grep -v '^#' "$list" | grep -v '^[[:space:]]*$' | cut -f1 | awk '!seen[$0]++')
nk=0; ns=0; nst=0; ninv=0
table=$work/table
printf '%-28s %-28s %-9s %s\n' "mutant" "file" "result" "failing tests (first 4)" >"$table"
for id in $ids; do
    case "$only" in ''|*",$id,"*) ;; *) continue ;; esac
    v=$(find_variant "$id")
    if [ $? -ne 0 ]; then
        printf '%-28s %-28s %-9s %s\n' "$id" "-" "$v" "" | tee -a "$table" >&2
        nst=$((nst + 1))
        continue
    fi
    IFS=$'\t' read -r file pat rep <<<"$v"
    mkdir -p "$work/orig/$(dirname "$file")"
    cp -p "$file" "$work/orig/$file"
    PAT=$pat REP=$rep awk '{
        i = index($0, ENVIRON["PAT"])
        if (i) $0 = substr($0, 1, i - 1) ENVIRON["REP"] substr($0, i + length(ENVIRON["PAT"]))
        print }' "$work/orig/$file" >"$file"
    if ! build "$work/logs/$id.build"; then
        result=invalid
        detail=$(grep -m1 'error' "$work/logs/$id.build" | cut -c1-100)
        ninv=$((ninv + 1))
    else
        run_tests "$work/$id.ok" "$work/logs/$id.tests"
        lost=$(comm -23 "$work/baseline.ok" "$work/$id.ok")
        if [ -n "$lost" ]; then
            result=killed
            detail="$(echo "$lost" | head -4 | tr '\n' ' ')"
            nlost=$(echo "$lost" | wc -l)
            [ "$nlost" -gt 4 ] && detail="$detail(+$((nlost - 4)) more)"
            nk=$((nk + 1))
        else
            result=SURVIVED
            detail=""
            ns=$((ns + 1))
        fi
    fi
    # restore: a fresh mtime, so the next build recompiles the file
    cp "$work/orig/$file" "$file"
    touch "$file"
    printf '%-28s %-28s %-9s %s\n' "$id" "$file" "$result" "$detail" | tee -a "$table" >&2
done

echo
cat "$table"
echo
extra=""
[ "$nst" -gt 0 ] && extra="$extra, $nst stale or ambiguous"
[ "$ninv" -gt 0 ] && extra="$extra, $ninv invalid"
echo "$nk killed, $ns survived$extra"
[ "$ns" -eq 0 ]
