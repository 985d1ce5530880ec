/* replay_devices.h -- a trace with work on several GPUs replayed as that
 * many simulated GPUs, each its own device (issue 28, "Several devices";
 * issue 29, a job's ranks).
 *
 * Which GPU a record ran on is its `device`, an index in the trace's
 * `devices` (DESIGN §5, trace.h), as the importers fill them. A GPU's key
 * is the "rankN" and "gpuN" words of its first record's process name
 * ("gpu0", "rank1 gpu1"; importers/sqlite_util.c process_name,
 * importers/pytorch_json.c), or "device N" where they are missing or
 * another GPU's. A trace without `devices` (a run stored before the
 * importers listed GPUs) is split by those words in each record's process
 * name instead; a process name without them ("P0", a CSV's) is one device,
 * and a trace whose records all name one device replays as before
 * (replay.h), untouched.
 *
 * simcore simulates one device per sim_run, so each device's work (its
 * kernels and copies, a sub-trace with the trace's device record and
 * meta) is replayed on its own (replay_scenario_info: calibration, launch
 * latency and copy engines fitted from that device's work alone) and the
 * simulated runs are merged into one run whose lanes keep their process
 * names, so the views group them by device as the measured run's. The
 * merged run's meta "replayed_devices" lists the device keys.
 *
 * What this cannot show: coupling between the GPUs. An NCCL kernel waits
 * on its peers on the other GPUs (all-reduce rings), and the link copies
 * of a P2P transfer finish together; here each GPU's kernels run with the
 * block time calibrated from their measured duration, which includes that
 * wait, so the replay reproduces the recorded run but a changed run (another
 * policy, the held-out half) does not move the peers. The report's cause
 * "several_gpus" says so.
 *
 * Each GPU replays on its own device record (the trace's `devices`
 * entry; the trace's one `device` for a trace without them), and the merged
 * run lists the simulated GPUs in its `devices`, each record on its own. */
#ifndef SERVER_REPLAY_DEVICES_H
#define SERVER_REPLAY_DEVICES_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

#include "../../simcore/trace.h"
#include "fidelity.h"
#include "replay.h"
#include "replay_heldout.h"

#define REPLAY_DEVICE_KEY 64
#define REPLAY_MAX_DEVICES 64

/* The device key of a process name: its "rankN" and "gpuN" words joined by
 * one space; "" when it has neither (or p is NULL). */
void replay_device_key(const char *process, char out[REPLAY_DEVICE_KEY]);

/* The distinct device keys of t's kernels and copies, sorted; returns how
 * many (the first max are in keys; keys may be NULL to count; past
 * REPLAY_MAX_DEVICES the count only says there are more). A trace whose records have
 * no key counts 0 or 1 ("" is a key of its own when others exist). */
size_t replay_device_keys(const trace *t, char (*keys)[REPLAY_DEVICE_KEY], size_t max);

/* The key of each GPU of a trace that lists its GPUs (t->devices.n
 * entries, by device index; "" for a GPU without work), as
 * replay_device_keys names them and a replay's merged run keeps them for
 * GPUs whose lanes name them. Malloc'ed (the caller frees), NULL out of
 * memory. */
char (*replay_gpu_keys(const trace *t))[REPLAY_DEVICE_KEY];

/* The work of device `key` of t: its kernels and copies (and their blocks
 * and pauses; each record's device 0), the host's calls of that work and
 * the GPU's syncs (replay_calls.h; replay_devices.c, syncs_here, says
 * which GPU a sync is on), the GPU's device record, name, source, origin
 * and meta. 0 or -1 (out of memory). `o` is initialised here. */
int replay_device_subtrace(const trace *t, const char *key, trace *o);

typedef struct replay_dev {
    char key[REPLAY_DEVICE_KEY];
    trace measured;              /* the device's work (replay_device_subtrace) */
    trace simulated;             /* its replay on its own simulated GPU */
    replay_info info;
    replay_heldout held;
    fidelity fid;                /* simulated vs measured, this device */
    int ok;                      /* 1: simulated and compared; 0: see why */
    char why[512];
    json_t *scenario;            /* the device's scenario (owned) */
} replay_dev;

/* Replay each device of m on its own simulated GPU (preset: NULL for the
 * trace's own device), compute each one's fidelity and held-out
 * prediction, and merge the simulated runs into `merged` (initialised
 * here; meta "replayed_devices": the keys, ", "-separated). with_heldout 0 skips the
 * held-out predictions. cancel (may be NULL) stops it (REPLAY_CANCELLED,
 * replay.h: each GPU's calibration, simulation and held-out prediction
 * within a batch of blocks, or between them).
 * *out is a new array of *n devices. 0, 1 (a device does not replay: err
 * says which and why; nothing is left allocated), REPLAY_CANCELLED, or -1
 * (out of memory). */
int replay_devices_run(const trace *m, const char *what, const char *preset, int with_heldout,
                       atomic_bool *cancel, replay_dev **out, size_t *n, trace *merged,
                       char *err, size_t errlen);
void replay_devices_free(replay_dev *v, size_t n);

/* The placement variants every device's replay scenario has (replay.h:
 * each placement a replay can use), how many and the name of the i-th. */
size_t replay_devices_variants(const replay_dev *v, size_t n);
const char *replay_devices_variant_name(const replay_dev *v, size_t n, size_t i);

/* Variant i of the replay: every device's scenario simulated under it and
 * merged into `merged` (initialised here) as replay_devices_run merges the
 * replay itself; cancel (may be NULL) as there. 0, 1 (a device does not
 * simulate: err), REPLAY_CANCELLED, -1 (OOM). */
int replay_devices_variant(const trace *m, const replay_dev *v, size_t n, size_t i,
                           atomic_bool *cancel, trace *merged, char *err, size_t errlen);

/* Each device's report entry: {device, name, sms, device_why, kernels,
 * copies, ok, duration_error_median, duration_error_p90,
 * start_error_median_share, makespan_difference, launch_latency_ns,
 * copy_bandwidth, held_out}. A new array; NULL on OOM. */
json_t *replay_devices_json(const replay_dev *v, size_t n);

/* Add "devices" (replay_devices_json) to a report (fidelity_json's; its
 * "several_gpus" cause comes from fidelity_explain with info.devices > 1).
 * 0 or -1 (OOM). */
int replay_devices_explain(json_t *rep, const replay_dev *v, size_t n);

/* The report of m replayed as devices v (merged: replay_devices_run's):
 * merged against m (fidelity.h), explained with the devices' infos added
 * up (*combined, devices = n; fidelity_causes.h), "devices", and
 * "held_out" pointing at each device's. A new object in *out; 0 or -1
 * (err). */
int replay_devices_report(const trace *m, const replay_dev *v, size_t n, const trace *merged,
                          json_t **out, replay_info *combined, char *err, size_t errlen);

/* The scenarios of a several-GPU replay as `schedlab replay` writes them:
 * {"schema": "schedlab-replay-devices/1", "devices": [{"device": KEY,
 * "scenario": SCENARIO}]} (scenario-format.md), each device's scenario
 * (borrowed from v). A new object; NULL out of memory. */
json_t *replay_devices_scenarios(const replay_dev *v, size_t n);

/* What `schedlab replay RUN [--device PRESET]` prints, without the
 * simulations behind its fidelity report (GET /api/runs/{run}/replay): for
 * a trace of one GPU its scenario (replay_scenario), for several GPUs
 * replay_devices_scenarios of each GPU's, derived as replay_devices_run
 * derives them; every scenario checked as the simulator reads it
 * (replay_check), so a run whose kernels do not fit the device is refused
 * with the CLI's words ("run X, gpu0: does not simulate: …"). 0 with *out a
 * new object; 1 bad input (err: the run cannot be replayed so, e.g. no
 * such preset, or it does not simulate on it); -1 out of memory (err). */
int replay_document(const trace *m, const char *what, const char *preset, json_t **out,
                    char *err, size_t errlen);

#endif
