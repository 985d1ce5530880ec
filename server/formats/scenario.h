/* server/formats/ -- the file formats of schedlab's own inputs and outputs,
 * text in and structures out (or back): the scenario (scenario.c, with its
 * device, tasks and segment times: device_json.c, scenario_tasks.c,
 * exec_dist.c; its objects' keys as tables: scn_keys.c), the task set
 * (taskset.c), the quantities with units (units.c), the trace JSON writer
 * and the Chrome export (trace_json.c), the id lists of the window routes
 * (idset.c), and the JSON writer every answer uses (jw.c). Nothing here
 * knows of HTTP, the database's runs or the command line: it may include
 * db/, importers/ and simcore/ headers and its own, never app/, http/ or
 * cli/ (the Makefile and tools/check-layers.sh fail the build otherwise;
 * docs/modules.md). Its parsers have libFuzzer harnesses in fuzz/. */

/* scenario.h -- schedlab-scenario/1 JSON (DESIGN §4) into simulator configs.
 *
 * A parsed scenario owns every string and array its configs point to; a
 * sim_config from scn_config() borrows from it and is valid until scn_free.
 *
 * Runs: index 0 is the scenario as written, 1..n are its `variants` in
 * order (a variant overrides `policy` keys and/or the `device`; it cannot
 * change ops). Run 0 is named after what the variants change, valued as the
 * base has it: the base placement ("most-room") when a variant sets
 * policy.placement, "launch_latency 0ns" / "dispatch_latency 40us" when one
 * sets those, and the base device's name when one sets "device"; the parts
 * that apply are joined by ", " in that order. It is "default" when there
 * are no variants, or when that name would equal a variant's name.
 *
 * What the parser decides (DESIGN §4 leaves it open):
 * - units: numbers are ns / bytes / bytes per second / Hz; strings carry a
 *   unit: s ms us ns cycles; B KB MB GB TB (binary: KB = 1024, KiB also
 *   read); the same with "/s" for copy_bandwidth; Hz kHz MHz GHz for clock.
 *   Decimals are exact ("0.2s" = 200000000) and must come out whole.
 *   Cycles are converted per run with that run's device clock, rounded to
 *   the nearest ns.
 * - streams: names are unique; "null" is every process's NULL stream and
 *   needs no declaration. An op without "stream" goes to the NULL stream of
 *   its "process" (default "P0"); implicit NULL streams are appended to the
 *   configuration's streams after the declared ones, in order of first use.
 *   Priorities: "high" = -1, "low" = 0 (the TX2's range, used for every
 *   device), "none" = SIM_PRIO_NONE, or an integer.
 * - ops keep their array order in the configuration (the simulator issues
 *   them by `at`, ties in array order); `at` defaults to 0.
 * - kernels need blocks, threads and block_time; smem and regs default to 0
 *   (not a limiting resource). Every kernel is checked against each run's
 *   device: a block that can never fit on an SM is an error, not a hang.
 * - a device written out in full (no "preset") must give every field that
 *   simcore's table (SIM_DEVICE_FIELDS, simcore/device.h) marks required;
 *   name defaults to "custom", schedulers_per_sm to 4, copy_engines to 1,
 *   clock to 0 (unknown: cycles are then an error), sm_order to
 *   "ascending" (device_json.h).
 * - policy keys of models this build lacks (warp) accept only the value
 *   that means "absent": "lrr". contexts names a driver ("shared",
 *   "time-slice", "gcaps"), gpu_wait is "suspend" or "busy", time_slice
 *   (0 = the driver's 1024us), context_switch and runlist_update are
 *   durations.
 * - "tasks", "cpus", "duration": real-time tasks (scenario_tasks.h); with
 *   tasks a scenario needs no ops, and its runs use the host "tasks". */
#ifndef SERVER_SCENARIO_H
#define SERVER_SCENARIO_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "../../simcore/sim.h"

/* The schema `schedlab replay -o` writes for a trace of several GPUs: a
 * scenario per device (server/cli/main.c), not a scenario itself. */
#define SCN_REPLAY_DEVICES_SCHEMA "schedlab-replay-devices/1"

typedef struct scn_scenario scn_scenario;

/* At most this many thread blocks over all of a scenario's kernels: the
 * simulator keeps every block in the trace, and a request body must not
 * make the server allocate without bound. */
#define SCN_MAX_TOTAL_BLOCKS INT64_C(50000000)
/* With "cohorts": true (issue 28) the limit is on what a run keeps instead:
 * at most this many records, blocks and cohorts together (sim_config
 * .max_records; a kernel's identical blocks are one cohort per SM and
 * stretch of waves, simcore/cohort.c). */
#define SCN_MAX_COHORTS INT64_C(50000000)

/* Parse scenario JSON text. `file` names the input in messages. On error
 * returns -1 and writes one line: "FILE: ops[3].threads: 2048 is more than
 * the device's max_threads_per_block (1024)" or "FILE:12:5: JSON: ...". */
int scn_parse(const char *text, size_t len, const char *file, scn_scenario **out,
              char *err, size_t errlen);
int scn_parse_file(const char *path, scn_scenario **out, char *err, size_t errlen);
/* The same from a JSON tree a caller built (borrowed): a QoS sweep's pair
 * (server/app/qos_sweep.c) is not written out as text and read back, which
 * took a second tree and, for a 2M-cycle window's 128 launches of Parboil
 * programs, more than jr_load's budget for a text of its length. */
int scn_parse_json(json_t *root, const char *file, scn_scenario **out, char *err,
                   size_t errlen);
/* scn_parse_json for a scenario whose programs were written for any device,
 * as the kernel library's are: a QoS sweep's pair (its kernel set runs on
 * every device its templates name, the library's programs resolved into
 * it: server/app/qos_sweep.c from_library). A program's keys that no run's
 * device reads (a mem op's "access", "store", "footprint", "scope" or
 * "managed" without the memory system, its caches or unified memory; an
 * alu op's "fu" without fp32 pipes) are taken, as a library kernel's are in
 * a scenario, not refused. */
int scn_parse_json_portable(json_t *root, const char *file, scn_scenario **out, char *err,
                            size_t errlen);
void scn_free(scn_scenario *s);

const char *scn_name(const scn_scenario *s);
const char *scn_description(const scn_scenario *s);
size_t scn_run_count(const scn_scenario *s);               /* 1 + variants */
const char *scn_run_name(const scn_scenario *s, size_t run);
int scn_find_run(const scn_scenario *s, const char *name);  /* -1 if none */

/* The simulator configuration of one run; it borrows from `s` (valid until
 * scn_free). Its name is the scenario's name, followed by " [RUN NAME]"
 * when the scenario has variants. */
int scn_config(const scn_scenario *s, size_t run, sim_config *out, char *err, size_t errlen);

/* With "cohorts": true, each run fails once it records more than n blocks
 * and cohorts (below SCN_MAX_COHORTS; a server's work budget, budget.h);
 * otherwise, or for n <= 0, nothing changes. */
void scn_limit_records(scn_scenario *s, int64_t n);

#endif
