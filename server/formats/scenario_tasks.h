/* scenario_tasks.h -- the real-time part of a schedlab-scenario/1 (issue 13):
 * top-level "tasks", "cpus" and "duration" into simcore's sim_task array
 * (sim.h; the host policy "tasks" runs them, simcore/host_tasks.c).
 *
 *   "cpus": 2,                      cores, default 1
 *   "duration": "30s",              jobs are released before it (default:
 *                                   the hyperperiod plus the largest offset,
 *                                   capped at 60 s)
 *   "tasks": [{"name": "hist", "cpu": 0, "priority": 70, "period": "100ms",
 *              "deadline"?, "offset"?, "mode"?: "busy" | "suspend",
 *              "best_effort"?, "gpu_priority"?,
 *              "segments": [{"cpu": "1ms"},
 *                           {"gpu": {"misc": "1ms", "exec": "9ms"}},
 *                           {"gpu": {"misc": "0.5ms", "ops": [
 *                               {"kernel": "K", "blocks": 4, "threads": 256,
 *                                "block_time": "2ms", "smem"?, "regs"?},
 *                               {"copy": "C", "bytes": "8MB", "direction": "h2d"}]}}]}]
 *
 * The rules are the analysis reader's (server/formats/taskset.c), so a scenario the
 * simulator runs is one `schedlab rta` reads the same way: names default to
 * "t1", "t2", ... and are unique; `cpu` is 0..cpus-1; `priority` (1..99,
 * larger = higher, Linux SCHED_FIFO) is required of a real-time task and
 * refused on a best-effort one (as is gpu_priority); deadline defaults to
 * the period and is at most it; a GPU segment has "exec" (one kernel that
 * fills the GPU for that long) or "ops" (kernels and copies on the task's
 * own stream, in order), and "misc" (default 0). Durations take s, ms, us,
 * ns (no cycles: a task's times do not depend on the device). Unknown keys
 * are errors with a "did you mean" hint.
 *
 * Memory: scn_tasks owns everything its sim_task array points to;
 * scn_tasks_free releases it. */
#ifndef SERVER_SCENARIO_TASKS_H
#define SERVER_SCENARIO_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../../simcore/sim.h"
#include "../../importers/jsonr.h"

typedef struct scn_tasks {
    sim_task *tasks;
    size_t ntasks;
    int32_t cpus;            /* 0 when the scenario gives none (= 1) */
    int64_t duration;        /* 0 when the scenario gives none */
    sim_segment *segs;
    sim_op *ops;
    char **strs;
    size_t nstrs;
} scn_tasks;

/* The scenario's top-level "cpus", "duration" and "tasks" (scenario.c's
 * top_table reads them, in that order, into its zeroed scn_tasks): v is
 * the key's value at `path`; NULL, JSON null or an empty "tasks" is absent. 0, or -1 with the
 * message in c. Each object under "tasks" has its keys in a table
 * (scenario_tasks.c, scn_keys.h). */
int scn_tasks_read_cpus(jr_ctx *c, json_t *v, const char *path, scn_tasks *t);
int scn_tasks_read_duration(jr_ctx *c, json_t *v, const char *path, scn_tasks *t);
int scn_tasks_read(jr_ctx *c, json_t *v, const char *path, scn_tasks *t);

/* o, a task object of a scenario's "tasks" at `path`, has only the keys a
 * scenario's task may have (the table that scn_tasks_read reads), else -1
 * with "unknown key" and the did-you-mean in c. The taskset reader's
 * scenario form (taskset.c) checks with it, so that the two readers of a
 * scenario's tasks know the same keys. */
int scn_tasks_known_keys(jr_ctx *c, json_t *o, const char *path);

/* Every kernel of every task fits an empty SM of `dev` (R1-R3), else -1
 * with "tasks[0].segments[1].gpu.ops[0].threads: ..." in c. */
int scn_tasks_check(jr_ctx *c, const scn_tasks *t, const sim_device *dev);

void scn_tasks_free(scn_tasks *t);

#endif
