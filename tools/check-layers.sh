#!/bin/sh
# tools/check-layers.sh BUILD LAYER... -- the dependency arrows, checked
# against what the compiler really opened.
#
# server/ is layers, lowest first (the Makefile's SERVER_LAYERS: formats app
# http cli); a file may include headers of its own layer and of the layers
# below it, and of db/, importers/ and simcore/ -- never of a layer above.
# simcore/, db/ and importers/ include no server/ header at all (DESIGN §2).
# Each object's dependency file (BUILD/x/y.d, written by -MMD) lists every
# header its compilation opened, however the include was spelt
# ("../app/store.h", or through another header): one upward header there
# fails the build, naming the file, the header and the rule.
set -eu
build=$1; shift
[ $# -gt 0 ] || { echo "check-layers.sh: usage: check-layers.sh BUILD LAYER..." >&2; exit 2; }

# one awk over every dependency file (a process per header would take
# minutes on a loaded machine)
files=$(find "$build/server" "$build/simcore" "$build/db" "$build/importers" -name '*.d' 2>/dev/null | sort)
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
awk -v build="$build" -v layers="$*" '
    BEGIN { n = split(layers, L, " "); for (i = 1; i <= n; i++) rank[L[i]] = i; bad = 0 }
    # a path with its "." and ".." segments resolved
    function plain(p,    k, i, seg, out, m) {
        k = split(p, seg, "/"); m = 0
        for (i = 1; i <= k; i++) {
            if (seg[i] == "." || seg[i] == "") continue
            if (seg[i] == ".." && m > 0 && out[m] != "..") { m--; continue }
            out[++m] = seg[i]
        }
        p = ""
        for (i = 1; i <= m; i++) p = p (i > 1 ? "/" : "") out[i]
        return p
    }
    FNR == 1 {
        rel = substr(FILENAME, length(build) + 2); sub(/\.d$/, ".c", rel)
        split(rel, part, "/")
        if (part[1] == "server") { own = part[2]; r = rank[own] + 0 } else { own = part[1]; r = 0 }
    }
    {
        for (i = 1; i <= NF; i++) {
            w = $i; sub(/:$/, "", w)
            if (w !~ /\.h$/ || w ~ /^\//) continue
            h = plain(w)
            if (h !~ /^server\/[^\/]+\//) continue
            split(h, hp, "/")
            if (rank[hp[2]] + 0 > r && !((FILENAME, h) in seen)) {
                seen[FILENAME, h] = 1
                printf "check-layers: %s includes %s: %s/ may include only its own folder and those below it (%s, lowest first; docs/modules.md)\n", rel, h, own, layers > "/dev/stderr"
                bad = 1
            }
        }
    }
    END { exit bad }
' $files
