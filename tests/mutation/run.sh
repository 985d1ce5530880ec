#!/usr/bin/env bash
# tests/mutation/run.sh -- mutation testing of the C unit tests.
#
#   tests/mutation/run.sh [--src DIR] [--list FILE] [--only ID[,ID...]] [--keep]
#                         [--check] [--save-hints]
#
# Copies the source tree (DIR, default: this repository; rsync, or tar) to a temporary
# directory, builds the unit tests there once (BUILD=build-mutation) and runs
# them all for a baseline, then for each mutant of the list
# (tests/mutation/mutants.txt, format described there): applies it to the
# copy, rebuilds, runs the unit test binaries until one kills it, restores
# the file. A mutant is
#   killed     some test that passed in the baseline fails (or its binary
#              crashes or runs over MUTATION_TIMEOUT seconds, default 120)
#   survived   every test that passed in the baseline still passes
#   stale      its pattern is on no line any more (the code moved: update it)
#   ambiguous  its pattern is on several lines
#   invalid    the mutated tree does not compile
# Prints a table (with the tests that killed each mutant: those of the
# binaries run, at most 4 named) and a final "N killed, M survived, K stale
# or ambiguous" line; exits 1 when a mutant survived or was stale, ambiguous
# or invalid.
#
# Speed (the verdict is the same as running every binary: a mutant is killed
# by the first lost test, and a survivor still runs every binary it changed):
# the binaries run JOBS at a time, in batches, and the run stops at the first
# batch that loses a test. The order: first the binaries that killed this
# mutant last time (tests/mutation/killers.txt, "ID<TAB>binary..."; names that
# no longer exist are ignored), then the rest fastest first (their baseline
# times). Each batch links only its own binaries (the library is rebuilt once
# per mutant by make's dependency files), a binary with no passing test in the
# baseline is not run (it cannot lose one), and neither is one that links byte
# for byte as in the baseline (a static library's member is linked only where
# a symbol of it is used: a mutant of an HTTP handler changes one unit binary
# of the hundred, or none; the binaries read scenarios and fixtures, never the
# C sources a mutant changes, so the same bytes give the same results).
# --save-hints writes this run's killers back to tests/mutation/killers.txt in
# DIR (the only write to DIR). --check only tells, without building, which
# mutants are stale or ambiguous (for a refactor).
#
# The HTTP server's and the sweeps' files are tested by the API's node tests
# (tests/api/*.test.mjs), not by a unit binary: a line "#@node FILE..." in
# the list names the API test files for the mutants after it, up to the
# next such line or "# ----" section header. For those mutants the run also
# builds the server (BUILD=$B schedlab, its seed database once, as `make
# api-test`) and runs each named file (node --test, TAP), the named files
# first, as it runs a binary: a test that passed in the baseline and fails
# is a kill ("node:FILE:DEPTH:test" in the table, "node:FILE" in killers.txt).
#
# Otherwise the source tree itself is only read (rsync from it); everything
# is written under the temporary directory, which is removed at the end
# unless --keep. JOBS (default 2) is make's parallelism and the number of
# binaries run at once. SCHEDLAB_SHARED (default DIR/../shared) is passed to
# the tests as in `make unit`, and TMPDIR as there (/dev/shm when it has
# 2 GiB free).
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
list=$here/mutants.txt
only=
keep=0
check=0
save_hints=0
while [ $# -gt 0 ]; do
    case "$1" in
        --src) src=$(cd "$2" && pwd); shift 2 ;;
        --list) list=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        --only) only=",$2,"; shift 2 ;;
        --keep) keep=1; shift ;;
        --check) check=1; shift ;;
        --save-hints) save_hints=1; shift ;;
        -h|--help) sed -n '2,51p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -f "$list" ] || { echo "run.sh: no mutant list $list" >&2; exit 2; }
hints=$src/tests/mutation/killers.txt

JOBS=${JOBS:-2}
TIMEOUT=${MUTATION_TIMEOUT:-120}
B=build-mutation
shared=${SCHEDLAB_SHARED:-$(cd "$src/.." && pwd)/shared}
t0=$(date +%s)

# find_variant ID -> prints "file<TAB>pattern<TAB>replacement" of the first
# variant whose pattern is on exactly one line; else prints stale/ambiguous.
# (Run in the tree: FILES are relative to it.)
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
# each mutant's API test files ("#@node" above it, within its section)
declare -A node_of=()
while IFS=$'\t' read -r id files; do
    node_of[$id]=$files
done < <(awk -F'\t' '/^# ----/ { cur = ""; next }
                     /^#@node/ { cur = $0; sub(/^#@node[ \t]*/, "", cur); next }
                     /^#/ || /^[[:space:]]*$/ { next }
                     cur != "" && !seen[$1]++ { print $1 "\t" cur }' "$list")

if [ "$check" = 1 ]; then   # no copy, no build: where each mutant applies
    cd "$src" || exit 2
    bad=0
    for id in $ids; do
        case "$only" in ''|*",$id,"*) ;; *) continue ;; esac
        if v=$(find_variant "$id"); then
            printf '%-28s %s\n' "$id" "$(cut -f1 <<<"$v")"
        else
            printf '%-28s %s\n' "$id" "$v"
            bad=$((bad + 1))
        fi
    done
    echo "$bad stale or ambiguous"
    [ "$bad" -eq 0 ]
    exit
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-mutation.XXXXXX")
if [ "$keep" = 1 ]; then echo "run.sh: working copy kept in $work" >&2
else trap 'rm -rf "$work"' EXIT; fi
tree=$work/tree
mkdir -p "$tree" "$work/orig" "$work/logs" "$work/base" "$work/mut"
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

# the tests' throw-away databases on a tmpfs, as in `make unit` (Makefile,
# TEST_TMPDIR)
testtmp=/tmp
if [ -d /dev/shm ] && [ -w /dev/shm ] &&
   [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -ge 2097152 ] 2>/dev/null; then
    testtmp=/dev/shm
fi

cd "$tree" || exit 2
names=()
for f in tests/unit/test_*.c; do names+=("$(basename "$f" .c)"); done

# make_bins LOG NAME... -- (re)build these unit test binaries
make_bins() {
    local log=$1; shift
    make -j"$JOBS" --no-print-directory BUILD=$B "${@/#/$B/tests/}" >>"$log" 2>&1
}

# nkey NAME -- the name of an entry's files: a binary's own name, an API test
# file's "node:FILE" without its slashes
nkey() {
    case $1 in
        node:*) local k=${1#node:}; echo "node_${k//\//_}" ;;
        *) echo "$1" ;;
    esac
}

# run_one DIR NAME -- run one binary, or one API test file (NAME "node:FILE",
# as `make api-test` runs it); DIR/KEY.ok gets "NAME:test" for each passing
# test (an API test "node:FILE:depth:test"; its tests marked todo or skip
# are not counted),
# DIR/KEY.log its output, DIR/KEY.time its wall seconds (KEY: nkey NAME)
run_one() {
    local dir=$1 name=$2 key s e
    key=$(nkey "$name")
    s=$(date +%s.%N)
    if [ "${name#node:}" != "$name" ]; then
        SCHEDLAB_BIN=$tree/schedlab SCHEDLAB_BUILD=$B SCHEDLAB_SEED_DB=$work/seed.db \
            SCHEDLAB_SHARED=$shared SCHEDLAB_TRACES=$shared/traces \
            SCHEDLAB_FIXTURES=$tree/$B/fixtures TMPDIR=$testtmp \
            timeout "$TIMEOUT" node --test --test-reporter=tap "${name#node:}" >"$dir/$key.log" 2>&1
        # TAP: "ok N - test" at each depth, 4 spaces a level (a test marked
        # todo or skip has its directive after "#": not counted)
        awk -v f="$name" '/^ *ok [0-9]+ - / && !/# (TODO|SKIP)/ {
                d = (match($0, /[^ ]/) - 1) / 4; t = $0; sub(/^ *ok [0-9]+ - /, "", t)
                print f ":" d ":" t }' "$dir/$key.log" | sort >"$dir/$key.ok"
    else
        SCHEDLAB_SHARED=$shared SCHEDLAB_TRACES=$shared/traces SCHEDLAB_ROOT=$tree \
            SCHEDLAB_FIXTURES=$tree/$B/fixtures TMPDIR=$testtmp \
            timeout "$TIMEOUT" "$B/tests/$name" >"$dir/$key.log" 2>&1
        sed -n 's/^\[ *OK *\] \(.*\)$/\1/p' "$dir/$key.log" | sed "s/^/$name:/" | sort >"$dir/$key.ok"
    fi
    e=$(date +%s.%N)
    awk -v a="$s" -v b="$e" 'BEGIN { printf "%.2f\n", b - a }' >"$dir/$key.time"
}

# make_entries LOG NAME... -- build what these entries run: the unit binaries
# among them, the server when an API test file is among them
make_entries() {
    local log=$1 n bins=() server=0; shift
    for n in "$@"; do
        case $n in node:*) server=1 ;; *) bins+=("$n") ;; esac
    done
    if [ "${#bins[@]}" -gt 0 ]; then make_bins "$log" "${bins[@]}" || return 1; fi
    if [ "$server" = 1 ]; then
        make -j"$JOBS" --no-print-directory BUILD=$B schedlab >>"$log" 2>&1 || return 1
    fi
    return 0
}

# run_batch DIR NAME... -- run these binaries JOBS at a time (all at once:
# the caller passes at most JOBS)
run_batch() {
    local dir=$1 name; shift
    # (stderr: not bash's line for a binary that aborts; its log has it)
    for name in "$@"; do run_one "$dir" "$name" 2>/dev/null & done
    wait
}

echo "mutation: building the baseline in $tree/$B (JOBS=$JOBS)" >&2
# the fixtures the importer tests read (`make unit`'s other prerequisite)
make -j"$JOBS" --no-print-directory BUILD=$B "$B/fixtures/.stamp" >"$work/logs/baseline-build" 2>&1
if ! make_bins "$work/logs/baseline-build" "${names[@]}"; then
    echo "run.sh: the unmutated tree does not build:" >&2
    tail -20 "$work/logs/baseline-build" >&2
    exit 2
fi
# the baseline's binaries, to tell a mutant's that link the same bytes
mkdir -p "$work/basebin"
for n in "${names[@]}"; do cp -p "$B/tests/$n" "$work/basebin/$n"; done
i=0
while [ "$i" -lt "${#names[@]}" ]; do
    run_batch "$work/base" "${names[@]:i:JOBS}"
    i=$((i + JOBS))
done
# the API test files of the mutants to run, with the server and its seed
# database built once (the seed is the baseline's: a mutant's server starts
# on a copy of it, as in `make api-test`)
nodes=()
for id in $ids; do
    case "$only" in ''|*",$id,"*) ;; *) continue ;; esac
    for f in ${node_of[$id]:-}; do
        case " ${nodes[*]} " in *" node:$f "*) ;; *) nodes+=("node:$f") ;; esac
    done
done
if [ "${#nodes[@]}" -gt 0 ]; then
    if ! make -j"$JOBS" --no-print-directory BUILD=$B "$B/test-seed.db" >>"$work/logs/baseline-build" 2>&1; then
        echo "run.sh: the unmutated server or its seed database does not build:" >&2
        tail -20 "$work/logs/baseline-build" >&2
        exit 2
    fi
    cp "$B/test-seed.db" "$work/seed.db"
    i=0
    while [ "$i" -lt "${#nodes[@]}" ]; do
        run_batch "$work/base" "${nodes[@]:i:JOBS}"
        i=$((i + JOBS))
    done
fi
nbase=$(cat "$work"/base/*.ok | wc -l)
tbase=$(( $(date +%s) - t0 ))
echo "mutation: baseline: $nbase tests pass (${tbase} s with the build)" >&2
if cat "$work"/base/*.log | grep -q '^\[  FAILED  \] [a-z]'; then
    echo "mutation: baseline failures (ignored when judging mutants):" >&2
    cat "$work"/base/*.log | grep '^\[  FAILED  \] [a-z]' | sort -u | sed 's/^/  /' >&2
fi
# the default order: fastest first; binaries with no passing test left out
order=()
while read -r _ name; do
    [ -s "$work/base/$name.ok" ] && order+=("$name")
done < <(for n in "${names[@]}"; do echo "$(cat "$work/base/$n.time") $n"; done | sort -n -k1,1 -k2,2)
echo "mutation: ${#order[@]} of ${#names[@]} binaries have passing tests" >&2

# run_mutant ID -> the binaries in order (hints first) in batches of JOBS,
# until one loses a baseline test; sets result/detail
run_mutant() {
    local id=$1 seq=() n h lost="" i batch run ran=0 same=0 log
    log=$work/logs/$id.build
    : >"$log"
    rm -f "$work"/mut/*
    # (a hint may name an API test file: kept when this mutant names it and
    # it passes in the baseline)
    for h in $( [ -f "$hints" ] && awk -F'\t' -v id="$id" '$1 == id { print $2 }' "$hints"); do
        case $h in
            node:*)
                case " ${node_of[$id]:-} " in *" ${h#node:} "*)
                    [ -s "$work/base/$(nkey "$h").ok" ] && seq+=("$h") ;;
                esac ;;
            *) for n in "${order[@]}"; do [ "$n" = "$h" ] && seq+=("$n"); done ;;
        esac
    done
    # then its API test files that pass in the baseline, then the binaries
    for n in ${node_of[$id]:-}; do
        n=node:$n
        [ -s "$work/base/$(nkey "$n").ok" ] || continue
        case " ${seq[*]} " in *" $n "*) ;; *) seq+=("$n") ;; esac
    done
    for n in "${order[@]}"; do
        case " ${seq[*]} " in *" $n "*) ;; *) seq+=("$n") ;; esac
    done
    i=0
    while [ "$i" -lt "${#seq[@]}" ]; do
        batch=("${seq[@]:i:JOBS}")
        i=$((i + JOBS))
        if ! make_entries "$log" "${batch[@]}"; then
            result=invalid
            detail=$(grep -m1 'error:' "$log" | cut -c1-100)
            return
        fi
        # (a binary the mutant left byte for byte as in the baseline would
        # pass what it passed there: not run)
        run=()
        for n in "${batch[@]}"; do
            case $n in
                node:*) run+=("$n") ;;
                *) if cmp -s "$B/tests/$n" "$work/basebin/$n"; then same=$((same + 1))
                   else run+=("$n"); fi ;;
            esac
        done
        [ "${#run[@]}" -gt 0 ] || continue
        run_batch "$work/mut" "${run[@]}"
        ran=$((ran + ${#run[@]}))
        for n in "${run[@]}"; do
            lost="$lost$(comm -23 "$work/base/$(nkey "$n").ok" "$work/mut/$(nkey "$n").ok")"$'\n'
        done
        lost=$(grep -v '^$' <<<"$lost")
        if [ -n "$lost" ]; then
            result=killed
            detail="$(echo "$lost" | head -4 | tr '\n' ' ')"
            local nlost
            nlost=$(echo "$lost" | wc -l)
            [ "$nlost" -gt 4 ] && detail="$detail(+$((nlost - 4)) more) "
            detail="${detail}[$ran of ${#seq[@]} binaries run, $same unchanged]"
            # the hint for next time: the binaries that lost a test
            printf '%s\t%s\n' "$id" "$(echo "$lost" | awk -F: '{ print $1 == "node" ? $1 ":" $2 : $1 }' | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//')" >>"$work/killers"
            return
        fi
    done
    result=SURVIVED
    detail="[$ran binaries run, $same unchanged]"
}

nk=0; ns=0; nst=0; ninv=0
table=$work/table
: >"$work/killers"
printf '%-28s %-28s %-9s %5s %s\n' "mutant" "file" "result" "secs" "failing tests (first 4)" >"$table"
for id in $ids; do
    case "$only" in ''|*",$id,"*) ;; *) continue ;; esac
    v=$(find_variant "$id")
    if [ $? -ne 0 ]; then
        printf '%-28s %-28s %-9s %5s %s\n' "$id" "-" "$v" "" "" | tee -a "$table" >&2
        nst=$((nst + 1))
        continue
    fi
    ts=$(date +%s)
    IFS=$'\t' read -r file pat rep <<<"$v"
    mkdir -p "$work/orig/$(dirname "$file")"
    cp -p "$file" "$work/orig/$file"
    PAT=$pat REP=$rep awk '{
        i = index($0, ENVIRON["PAT"])
        if (i) $0 = substr($0, 1, i - 1) ENVIRON["REP"] substr($0, i + length(ENVIRON["PAT"]))
        print }' "$work/orig/$file" >"$file"
    run_mutant "$id"
    case $result in
        killed) nk=$((nk + 1)) ;;
        invalid) ninv=$((ninv + 1)) ;;
        *) ns=$((ns + 1)) ;;
    esac
    # restore: a fresh mtime, so the next build recompiles the file
    cp "$work/orig/$file" "$file"
    touch "$file"
    printf '%-28s %-28s %-9s %5s %s\n' "$id" "$file" "$result" "$(( $(date +%s) - ts ))" "$detail" |
        tee -a "$table" >&2
done

if [ "$save_hints" = 1 ]; then
    # this run's killers replace those of the mutants it ran; the others stay
    # (FILENAME, not NR == FNR: with no killer this run the first file is
    # empty, and NR == FNR would hold through the whole hints file and drop it)
    { [ -f "$hints" ] && awk -F'\t' 'FILENAME == ARGV[1] { ran[$1] = 1; next } !/^#/ && !($1 in ran)' \
          "$work/killers" "$hints"
      cat "$work/killers"; } | sort -t$'\t' -k1,1 >"$work/killers.new"
    { echo "# tests/mutation/killers.txt -- written by tests/mutation/run.sh --save-hints:"
      echo "# per mutant (ID<TAB>binaries), the unit test binaries that killed it last"
      echo "# time; run.sh runs them first. Only an order: a wrong or missing line"
      echo "# costs time, never a verdict."
      cat "$work/killers.new"; } >"$hints"
    echo "mutation: hints written to $hints" >&2
fi

echo
cat "$table"
echo
extra=""
[ "$nst" -gt 0 ] && extra="$extra, $nst stale or ambiguous"
[ "$ninv" -gt 0 ] && extra="$extra, $ninv invalid"
echo "$nk killed, $ns survived$extra ($(( $(date +%s) - t0 )) s, JOBS=$JOBS)"
[ "$ns" -eq 0 ] && [ "$nst" -eq 0 ] && [ "$ninv" -eq 0 ]
