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

#include "http.h"

void replay_api_post(void *app, const http_request *req, http_response *res);
void replay_api_fidelity(void *app, const http_request *req, http_response *res);

#endif
