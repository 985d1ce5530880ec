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

rank() {   # rank NAME: the layer's index in the arguments, 0 for none
    i=1
    for l in $LAYERS; do [ "$l" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done
    echo 0
}
LAYERS="$*"
bad=0
for d in $(find "$build/server" "$build/simcore" "$build/db" "$build/importers" -name '*.d' 2>/dev/null | sort); do
    rel=${d#"$build"/}
    src=${rel%.d}.c
    case "$rel" in
        server/*) own=$(echo "$rel" | cut -d/ -f2); r=$(rank "$own") ;;
        *) own=$(echo "$rel" | cut -d/ -f1); r=0 ;;   # below every layer
    esac
    # the headers: every word of the .d that ends in .h, paths made plain
    for h in $(sed -e 's/\\$//' -e 's/^[^:]*:\( \|$\)/ /' "$d" | tr ' ' '\n' | grep '\.h$' | sort -u); do
        p=$(realpath -m --relative-to=. "$h")
        case "$p" in
            server/*/*) hl=$(echo "$p" | cut -d/ -f2) ;;
            *) continue ;;
        esac
        hr=$(rank "$hl")
        if [ "$hr" -gt "$r" ]; then
            echo "check-layers: $src includes $p: $own/ may include only its own folder and those below it ($LAYERS, lowest first; docs/modules.md)" >&2
            bad=1
        fi
    done
done
exit $bad
