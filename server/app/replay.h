/* replay.h -- a stored trace back into a scenario (schedlab-scenario/1), so a
 * measured run can be re-simulated under other policies and compared with
 * itself (issue 10: replay that reproduces the hardware).
 *
 * What the scenario keeps of the trace:
 *   - every kernel with its stream, process, priority, grid, block size,
 *     registers and shared memory, issued at its issue time (at its start
 *     minus the calibrated launch latency where the trace has no issue);
 *   - every copy with its bytes, direction and `"duration"`, and every
 *     memset (host-to-host copy) as a copy of direction "memset" ("other")
 *     with its measured duration: stream work that uses no copy engine, so
 *     nothing after it in its stream moves;
 *   - each stream's order: ops are sorted by issue time, ties by measured
 *     start, then trace order (kernels and copies alike);
 *   - an op the host held back (host_gaps.h: it started long after its call
 *     handed it over, its stream idle and its engine free) is issued at its
 *     measured start (a kernel: less the launch latency), a measured host
 *     gap: what held it is not in the trace, when it let go is.
 *
 * Calibration (per kernel):
 *   - with block records: each block's measured duration by block index
 *     (missing indices get the mean of the known ones);
 *   - without: the block time that makes the kernel, alone on the chosen
 *     device with its real occupancy (blocks per SM from threads, warps,
 *     registers, shared memory and the blocks-per-SM limit, exactly as the
 *     simulator counts them), last its measured duration:
 *     block_time = round(duration / waves), waves = ceil(blocks / (SMs x
 *     blocks per SM)).
 *   - then, where kernels shared the GPU (the leftover rule gives a later
 *     kernel only what the earlier one leaves), up to REPLAY_PASSES
 *     simulation passes under the base policy scale each calibrated
 *     kernel's block time by measured / simulated duration; the pass with
 *     the smallest duration errors is kept (replay_info has the errors
 *     before and after);
 *   - launch latency (policy.launch_latency): the median issue -> first
 *     block gap of the kernels nothing else held back (their stream idle
 *     at issue, no other kernel running between issue and start); 0 when
 *     the trace has no issue times; a stream with 3 such kernels or more
 *     whose median differs from it by more than 10 us and 50 % has its own
 *     (its kernels are issued that much later or earlier);
 *   - copies: their measured duration plus the median gap the trace's copy
 *     engine left between back-to-back copies (replay_info.copy_gap);
 *   - a simulated run's GPU-context policy (meta "contexts", "time_slice",
 *     "context_switch", "runlist_update", "context_switch_idle", and
 *     "ioctl_bookkeeping" under gcaps, the one driver that reads it) is
 *     kept, and a preempted block's
 *     time is its run time without its pauses, so a time-sliced run
 *     replays into itself.
 *
 * Device: `device_preset` when given; else the trace's own device,
 * completed from its compute capability (meta "compute_capability", as the
 * importers keep it; simcore/cc.h fills the limits the trace lacks and
 * raises the per-block shared memory to the opt-in maximum), or, where the
 * trace records no SM count, from the GPU its name names (sim_gpu_model_for:
 * SM count and compute capability); a missing copy_bandwidth is fitted
 * from the copies, a missing copy engine count or scheduler count takes the
 * defaults (issue 28). Failing all of that, the preset its name names by
 * whole tokens ("NVIDIA GeForce RTX 2080 Ti"
 * names rtx2080ti; "tx2" is not inside "rtx2080ti"), with the SM count and
 * limits the trace records put over the preset's. Which one and why is in
 * replay_info and in the scenario's description.
 *
 * The scenario's policy is the default placement (most-room) and every
 * other placement policy of the table (round-robin) is a variant named
 * after it, so `schedlab simulate REPLAY.json --variant round-robin` works.
 *
 * Times are the trace's own (time 0 stays time 0), so a simulated run of
 * the scenario lies on the measured run's time axis (fidelity.h compares
 * them); an op that would be issued before 0 is issued at 0.
 *
 * Memory: *out is a new jansson reference owned by the caller. */
#ifndef SERVER_REPLAY_H
#define SERVER_REPLAY_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../../simcore/trace.h"

typedef struct replay_info {
    char device[128];        /* the preset's name, or the trace's device name */
    char device_why[384];    /* one line: which device and why */
    int64_t launch_latency;  /* ns */
    size_t kernels;          /* kernels in the scenario */
    size_t calibrated;       /* of them: block time fitted from the kernel's duration */
    size_t copies;           /* copies (measured durations) */
    size_t memsets;          /* memsets and other stream work with measured durations */
    size_t skipped;          /* records without the times a scenario needs */
    int64_t copy_gap;        /* ns a copy engine left between back-to-back copies */
    int32_t copy_engines;    /* the chosen device's (ce.h: 1 for both directions, 2 one each) */
    int passes;              /* simulation passes of the refinement (0: none ran) */
    /* duration errors of the calibrated kernels (fractions): with block
     * times calibrated alone, and after the refinement */
    double alone_median, alone_p90, refined_median, refined_p90;
    /* the trace's GPUs, each replayed as its own simulated GPU
     * (replay_devices.h); 0 or 1: one device */
    size_t devices;
    /* copies one engine ran at once in the trace, given to the device
     * (replay_copies.h); 0 or 1: one at a time */
    int32_t copies_in_flight;
    /* ops the host held back (host_gaps.h), issued at their measured start:
     * how many, and the longest hold (ns) */
    size_t host_gaps;
    int64_t host_gap_max;
    /* streams whose kernels launch with their own fitted latency */
    size_t latency_streams;
    /* ops whose issue falls before the trace's start, issued at 0 with
     * the rest of the launch latency as their own (replay.c, "early ops") */
    size_t early;
} replay_info;

/* Simulation passes the refinement runs at most. */
#define REPLAY_PASSES 8

/* The preset a device name names, by whole tokens. The name splits into
 * words at every character that is not a letter or digit; a preset matches
 * when its name without '-' equals the lower-cased concatenation of one or
 * more consecutive words ("NVIDIA GeForce RTX 2080 Ti" -> "rtx2080ti";
 * "Jetson TX2" -> "tx2"; "Xavier NX" -> "xaviernx"), so "tx2" never matches
 * inside the word "rtx2080ti". Failing that, a preset's first '-' part may
 * match the same way ("pascal" of "pascal-gilman"). NULL when none does. */
const char *replay_preset_for(const char *device_name);

/* The device name the trace records: its device's, else its meta "device"
 * (an nvprof CSV names its GPU only there). NULL when neither does. The
 * string is the trace's. */
const char *replay_trace_device_name(const trace *t);

/* `what` names the run in messages ("run k3f9x2m1qa"). device_preset may be
 * NULL; info may be NULL. Returns 0, or -1 with one line in err (e.g. the
 * trace has no complete device, its name names no preset, and no preset
 * was named). */
int replay_scenario_info(const trace *t, const char *what, const char *device_preset,
                         json_t **out, replay_info *info, char *err, size_t errlen);

/* What a replay's work that takes a cancel returns once *cancel is set (a
 * server job cancelled, or the server stopping: jobs.h): it stops within a
 * batch of SIM_SINK_BATCH simulated blocks, as a stored scenario's
 * simulation does (store.h, store_ctl.cancel), with err saying "cancelled";
 * nothing is left allocated. */
#define REPLAY_CANCELLED 2

/* replay_scenario_info whose calibration passes stop once *cancel is set
 * (cancel may be NULL: never): also REPLAY_CANCELLED. */
int replay_scenario_info_ctl(const trace *t, const char *what, const char *device_preset,
                             atomic_bool *cancel, json_t **out, replay_info *info, char *err,
                             size_t errlen);
int replay_scenario(const trace *t, const char *what, const char *device_preset, json_t **out,
                    char *err, size_t errlen);

/* err holds why a replay's scenario does not parse or simulate, naming its
 * place in the derived scenario ("replay: ops[4].smem: a block needs …"),
 * which the user never sees: the first "ops[N]" in it gets the op's
 * kernel (or copy) name and stream appended, ` (ops[4]: kernel "NAME" on
 * stream "7")`, kept within errlen. Nothing changes when err names no op
 * of scn. */
void replay_name_op(const json_t *scn, char *err, size_t errlen);

/* Whether a replay's scenario is one the simulator takes, read as
 * `schedlab simulate` reads it (scn_parse and scn_config of its base run:
 * every op fits the device, simcore/check.c), without simulating it. 0; 1
 * when it is not, err "WHAT: does not simulate: ERR" with its op named
 * (replay_name_op), the words of `schedlab replay` (cli.md "Exit status":
 * bad input); -1 out of memory. */
int replay_check(const json_t *scn, const char *what, char *err, size_t errlen);

/* What `schedlab replay` prints of a scenario, or of the several-GPU
 * replay's schedlab-replay-devices/1 object (replay_devices.h): the JSON
 * indented by 2 in its keys' order, then a newline. Malloc'ed; NULL out of
 * memory. GET /api/runs/{run}/replay answers the same bytes. */
char *replay_text(const json_t *doc);

/* A block sink that keeps nothing: for the simulations of a replay that
 * compare kernel by kernel (the calibration passes, the held-out
 * prediction, the fidelity of a trace without block records), whose
 * blocks would only be memory (38 M of them, 1.8 GB, for CloverLeaf). */
struct sim_block_sink;
const struct sim_block_sink *replay_discard_sink(void);
/* The same that asks *cancel at every batch and stops the run once it is
 * set (sim.h: sim_run then fails); cancel NULL: never. Fills *sink. */
void replay_discard_sink_cancel(struct sim_block_sink *sink, atomic_bool *cancel);

#endif
