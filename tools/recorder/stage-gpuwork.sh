#!/bin/bash
# stage-gpuwork.sh DEST -- build what gpu-session.sh runs (sm_90 only: the
# lent machines are H100 / H200) and copy it, with the probe scenarios, into
# DEST (e.g. .gpuwork at the checkout's root, which the device tool carries;
# git ignores it). Then: run `bash .gpuwork/run.sh` with carry [".gpuwork"].
set -eu
DEST=${1:?usage: stage-gpuwork.sh DEST}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PATH=/usr/local/cuda/bin:$PATH
make -C "$ROOT/tools/recorder" SMS=90 "$ROOT/build/recorder/schedlab-play" \
    "$ROOT/build/recorder/schedlab-mostroom" "$ROOT/build/recorder/schedlab-membench" >/dev/null
rm -rf "$DEST"
mkdir -p "$DEST/bin" "$DEST/probes"
cp "$ROOT/build/recorder/schedlab-play" "$ROOT/build/recorder/schedlab-mostroom" \
    "$ROOT/build/recorder/schedlab-membench" "$DEST/bin/"
cp "$ROOT"/tests/fixtures/h100/probes/*.json "$DEST/probes/"
# the two recordings the probes are about, again on this machine
cp "$ROOT/scenarios/h100-sm-order.json" "$ROOT/scenarios/h100-smem-carveout.json" "$DEST/probes/"
cp "$ROOT/tools/recorder/gpu-session.sh" "$DEST/run.sh"
# the dry run: every probe passes the player's checks (exit 1 = only the
# GPU is missing, 2 = a field it cannot play) and the driver's plan prints
for f in "$DEST"/probes/*.json; do
    rc=0; "$DEST/bin/schedlab-play" "$f" -o /dev/null 2>/dev/null || rc=$?
    if [ "$rc" = 2 ]; then echo "stage-gpuwork: $f cannot be played" >&2; exit 1; fi
done
"$DEST/bin/schedlab-mostroom" --plan >/dev/null
du -sh "$DEST"
