/* task_stats.h -- per-task response-time statistics of a run with
 * real-time tasks (issue 27): GET /api/runs/{run}/tasks. From the trace's
 * jobs alone: jobs, deadline misses, MORT (max), min, mean and a histogram
 * of response times (end - release) in `bins` equal bins from 0 to the
 * task's MORT. */
#ifndef SERVER_TASK_STATS_H
#define SERVER_TASK_STATS_H

#include <jansson.h>

#include "../../simcore/trace.h"

#define TASK_STATS_BINS_DEFAULT 20
#define TASK_STATS_BINS_MAX 1000

/* {"tasks": [{"task", "jobs", "misses", "min", "mean", "mort",
 *             "histogram": {"bin_ns", "counts": [...]}}]} in first-job
 * order; NULL when out of memory. */
json_t *task_stats_json(const trace *t, int bins);

#endif
