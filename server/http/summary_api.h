/* summary_api.h -- GET /api/runs/{run}/summary (issue 29): the run's
 * summary (simcore/summary.h) as JSON, for every kernel-level run:
 *   {"run", "kernel_time_ns",
 *    "devices": [{"process", "window_ns", "busy_ns", "compute_ns",
 *                 "communication_ns", "copy_ns", "idle_ns", "kernels",
 *                 "copies", "communication_overlapped_ns",
 *                 "communication_overlap_share"}],
 *    "streams": [{"process", "stream", ... as a device without the overlap}],
 *    "kernels": [{"name", "count", "total_ns", "mean_ns", "p50_ns", "p95_ns",
 *                 "min_ns", "max_ns", "share"}],        (by total, descending)
 *    "launch_delay": {"count", "min_ns", "p50_ns", "p95_ns", "p99_ns",
 *                     "max_ns", "mean_ns"},             (null values when count is 0)
 *    "communication": {"total_ns", "overlapped_ns", "overlap_share"}}
 * Shares are fractions in [0, 1], null where the whole is 0. 404 for no
 * such run. The handler is listed in api.c's route table. */
#ifndef SERVER_SUMMARY_API_H
#define SERVER_SUMMARY_API_H

#include <jansson.h>

#include "../../simcore/summary.h"
#include "http.h"

/* The JSON object above for t (run: its slug, may be NULL); NULL on OOM. */
json_t *summary_api_json(const trace *t, const trace_summary *s, const char *run);
void summary_api_get(void *app, const http_request *req, http_response *res);

#endif
