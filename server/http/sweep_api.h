/* sweep_api.h -- sweeps started from the page (issue 30).
 *
 *   GET  /api/sweeps/specs         the shipped specs (the .json files of sweeps/ that are
 *                                  schedlab-sweep/1 specs): file, name,
 *                                  description, kind, units, work, fits
 *   GET  /api/sweeps/specs/{file}  one shipped spec's text, for the editor
 *   POST /api/sweeps[?spec=FILE][&threads=N]
 *                                  a sweep as a job (jobs.h): the body is a
 *                                  schedlab-sweep/1 spec, or ?spec= names a
 *                                  shipped one; 202 {job}. The job runs the
 *                                  CLI's sweep (sweep.h: sweep_run_ctl, the
 *                                  same code as `schedlab sweep`), progress
 *                                  in tasksets (schedulability) or points
 *                                  (QoS), stops within a taskset or a
 *                                  simulation of DELETE /api/jobs/{id}, and
 *                                  stores the result as `schedlab sweep --db`
 *                                  does (sweep_store_result): 201 {slug}.
 *
 * Bad specs get 400 with the CLI's messages, the file named "sweep" (the
 * body) or the shipped file's name; a spec past the budget (budget.h:
 * sweep_analyses, sweep_cycles) or threads past sweep_threads, 422 naming
 * the limit. File names inside a QoS spec ("template", "kernels") are
 * names of the shipped sweeps folder only: a body never reads another
 * file of the server. docs/api.md. */
#ifndef SCHEDLAB_SWEEP_API_H
#define SCHEDLAB_SWEEP_API_H

#include <jansson.h>
#include <stddef.h>

#include "../../db/db.h"
#include "http.h"
#include "sweep_seed.h"   /* sweep_store_result */

/* The shipped sweeps folder (serve: found like scenarios/; NULL: none).
 * Call before the server starts; the string is copied. */
void sweep_api_set_dir(const char *dir);
const char *sweep_api_dir(void);


void sweep_api_specs(void *app, const http_request *req, http_response *res);
void sweep_api_spec(void *app, const http_request *req, http_response *res);
void sweep_api_post(void *app, const http_request *req, http_response *res);
void sweep_api_cancel_job(void *app, const http_request *req, http_response *res);

#endif
