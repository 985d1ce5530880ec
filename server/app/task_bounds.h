/* task_bounds.h -- the response-time analysis bound (simcore/rta.c, the
 * GCAPS paper §6) of each real-time task of a simulated run, to put next to
 * its simulated response times (issue 13: "the dashboard's response-time
 * comparison puts MORT per task per approach side by side ... next to the
 * analysis bound").
 *
 * The approach follows the run: meta "contexts" time-slice -> tsg_rr_*,
 * gcaps -> gcaps_* (the plain test, GPU priorities as given), and meta
 * "gpu_wait" busy or suspend; theta, eps and L are the run's own (meta
 * "context_switch", "runlist_update", "time_slice", which sim_run writes).
 * The taskset is the experiment's scenario text, read as `schedlab rta`
 * reads it (server/formats/taskset.h).
 *
 * Returns a new object {TASK: ns | null} (null: the analysis finds no bound
 * for it; best-effort tasks are left out), or NULL when the run has no
 * analysis: no tasks, the shared driver, or a taskset the analysis cannot
 * read (a segment given as "ops" has no WCET), or a gpu_wait that is
 * neither busy nor suspend. */
#ifndef SERVER_TASK_BOUNDS_H
#define SERVER_TASK_BOUNDS_H

#include <jansson.h>

#include "../../db/db.h"
#include "../../simcore/trace.h"

json_t *task_bounds(const char *scenario_json, const trace *run);

/* The same for a stored run of experiment `experiment` (its scenario text
 * from the database; `run` needs only its meta loaded). NULL as above, or
 * when the experiment is an import. */
json_t *task_bounds_stored(db *d, const char *experiment, const trace *run);

#endif
