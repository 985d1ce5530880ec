/* replay_api.h -- replay as a job, with fidelity reports (issue 10):
 *   POST /api/runs/{run}/replay   body {} or {"device": PRESET} (or
 *                                 ?device=): 202 {job}; the job derives the
 *                                 scenario (replay.h), simulates and stores
 *                                 it as a new experiment (one run per
 *                                 placement policy), compares each
 *                                 simulated run with the measured one
 *                                 (fidelity.h) and stores the reports; its
 *                                 result is 201 {slug, measured, device,
 *                                 device_why, runs: [{run, name, fidelity:
 *                                 summary}], compare: "/compare?runs=..."}.
 *                                 A trace without block records whose
 *                                 simulation has more than 4 M blocks keeps
 *                                 none of them (store_ctl.drop_blocks)
 *   GET  /api/runs/{run}/fidelity the report of a simulated run of a replay
 *                                 (schedlab-fidelity/1, with measured_run
 *                                 and "replay": true); {"replay": false}
 *                                 for a run that is no replay; 404 for no run
 * The handlers are listed in api.c's route table. */
#ifndef SERVER_REPLAY_API_H
#define SERVER_REPLAY_API_H

#include <jansson.h>

#include "../../db/db.h"
#include "http.h"
#include "jobs.h"

void replay_api_post(void *app, const http_request *req, http_response *res);
void replay_api_fidelity(void *app, const http_request *req, http_response *res);

/* What the job does, for `schedlab replay --store` too: replay stored run
 * `run` (on preset `device`, or NULL: its own device), store the
 * simulations as a new experiment and each one's fidelity report (with its
 * calibration note, held-out prediction and causes: fidelity_causes.h).
 * *status is an HTTP status; 201 with *result as the job's, else err. */
void replay_store(db *d, const char *run, const char *device, job_ctl *ctl, int *status,
                  json_t **result, char *err, size_t errlen);

#endif
