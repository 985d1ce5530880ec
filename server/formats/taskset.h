/* taskset.h -- schedlab-taskset/1 JSON (issue 14), and the `tasks` of a
 * schedlab-scenario/1 (issue 13), into an rta_taskset; and the analysis
 * result as schedlab-rta/1 JSON.
 *
 * schedlab-taskset/1:
 *   {"schema": "schedlab-taskset/1", "name"?, "description"?,
 *    "cpus": 2, "epsilon": "1ms", "theta": "200us", "time_slice": "1024us",
 *    "semantics"?: "printed" | "released-code",
 *    "tasks": [{"name", "cpu", "priority", "gpu_priority"?, "period",
 *               "deadline"?, "best_effort"?, "cpu_segments": [durations],
 *               "gpu_segments": [{"misc": d, "exec": d}]}]}
 * A scenario instead: top-level "cpus" (default 1), "policy": {time_slice
 * (L, default 1024us as the contexts issue says), context_switch (θ),
 * runlist_update (ε), both default 0 = "not modelled", as the scenario
 * parser reads absent policy keys}, and "tasks": [{name, cpu, priority,
 * period, deadline, offset, mode, best_effort, gpu_priority, segments:
 * [{"cpu": d} | {"gpu": {"misc": d, "exec": d}}]}]. `offset` and `mode` are
 * read and checked but do not change the bounds: the analysis assumes the
 * critical instant (any offset), and every analysis is run in both modes.
 *
 * What the reader decides:
 * - durations are numbers (ns) or strings with a unit s, ms, us (or µs),
 *   ns; decimals are exact ("0.2ms" = 200000) and must come out whole ns.
 * - cores are numbered 0..cpus-1; `priority` is a Linux real-time priority
 *   (larger = higher) and is required of every real-time task and refused on
 *   a best-effort one; `deadline` defaults to the period; names default to
 *   "t1", "t2", ... and must be unique (they key the output).
 * - unknown keys are errors; messages are one line naming the place:
 *   "FILE: tasks[2].period: \"3xs\" has an unknown unit ...".
 *
 * Memory: a tset owns every string and array its rta_taskset points to. */
#ifndef SERVER_TASKSET_H
#define SERVER_TASKSET_H

#include <jansson.h>
#include <stddef.h>

#include "../../simcore/rta.h"

typedef struct tset tset;

/* Text that is a schedlab-taskset/1 or a scenario with `tasks`. -1 with
 * one line in err ("FILE: place: problem" or "FILE:12:5: JSON: ..."). */
int tset_parse(const char *text, size_t len, const char *file, tset **out, char *err,
               size_t errlen);
int tset_parse_file(const char *path, tset **out, char *err, size_t errlen);
/* A parsed JSON document of either kind (borrowed). */
int tset_from_json(json_t *root, const char *file, tset **out, char *err, size_t errlen);
/* Only a scenario's tasks, cpus and policy (the scenario parser's hook). */
int tset_from_scenario(json_t *root, const char *file, tset **out, char *err, size_t errlen);
void tset_free(tset *t);

const rta_taskset *tset_rta(const tset *t);

/* Every analysis as {"schema": "schedlab-rta/1", "semantics": ...,
 * "analyses": {NAME: {"schedulable", "tasks": {TASK: {"wcrt": ns|null}}}}}.
 * Best-effort tasks are not analysed and not listed. A _gprio analysis
 * that needed Audsley's assignment says "gpu_priority_assigned": true and
 * gives each task its "gpu_priority" (1 = lowest). A new reference. */
json_t *tset_analyse_json(const rta_taskset *ts);

/* The duration reader shared with the sweep spec: numbers are ns, strings
 * carry s/ms/us/ns. 0, or -1 with "PATH: problem" in err. */
int tset_duration(json_t *v, const char *path, int64_t *ns, char *err, size_t errlen);

#endif
