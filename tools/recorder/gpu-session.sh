#!/bin/bash
# gpu-session.sh -- everything tools/recorder records on a lent GPU, in one
# device call, written under $OUT (the run tool's folder that comes back).
# Staged with its binaries and probe scenarios by stage-gpuwork.sh; run from
# the repository root as `bash .gpuwork/run.sh` (README, "A lent GPU").
#
# Order: the cheap, decisive placement probes first (each 5 times), then the
# most-room Table 1 experiment (30 runs per configuration), each step under
# its own timeout so that one that hangs leaves the others' files. The
# files come back as one archive, $OUT/session.tgz (the tool returns at most
# eight files).
set -u
W=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${OUT:?OUT must name the folder to write into}"
mkdir -p "$OUT/rec" "$OUT/mostroom"
log() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$OUT/session.log"; }
log "start on $(hostname), $(nproc) CPUs"
nvidia-smi -q > "$OUT/nvidia-smi-q.txt" 2>&1
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu,mig.mode.current,compute_mode \
    --format=csv > "$OUT/nvidia-smi-summary.csv" 2>&1
log "nvidia-smi: $(tail -1 "$OUT/nvidia-smi-summary.csv")"
timeout 60 "$W/bin/schedlab-play" --probe -o "$OUT/rec/probe.txt"
log "probe rc $?"
timeout 120 "$W/bin/schedlab-membench" > "$OUT/membench.txt" 2>&1
log "membench rc $?"
for f in "$W"/probes/*.json; do
    n=$(basename "$f" .json)
    timeout 60 "$W/bin/schedlab-play" "$f" -o "$OUT/rec/$n.csv" --repeat 5 2> "$OUT/rec/$n.err"
    log "$n rc $?"
done
timeout "${MOSTROOM_TIMEOUT:-200}" "$W/bin/schedlab-mostroom" -o "$OUT/mostroom" \
    > "$OUT/mostroom/stdout.txt" 2> "$OUT/mostroom/stderr.txt"
log "mostroom rc $?"
cat "$OUT/mostroom/stdout.txt" >> "$OUT/session.log"
log "end"
# the device tool brings back at most 8 files: everything as one archive
cd "$OUT" && tar czf /tmp/session.tgz . && rm -rf ./* && mv /tmp/session.tgz "$OUT/"
