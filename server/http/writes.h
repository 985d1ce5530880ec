/* writes.h -- the HTTP handlers that store (issue 16), in their own file:
 *   POST /api/experiments   scenario JSON: budget checked (422 with the
 *                           numbers), then 201 {slug, runs} at once for
 *                           small work or 202 {job} on the job queue
 *   POST /api/imports       the raw trace file: 201 {run, experiment} at once
 *                           for small bodies, else 202 {job}
 *   GET  /api/jobs/{id}     a job's state and progress, then its result
 * Small work also goes to the queue when another write is under way, so a
 * request never waits on SQLite's write lock. Past the queue's length: 503
 * with Retry-After. The handlers are listed in api.c's route table. */
#ifndef SERVER_WRITES_H
#define SERVER_WRITES_H

#include "api_ctx.h"
#include "budget.h"
#include "http.h"
#include "jobs.h"

void writes_post_experiment(void *app, const http_request *req, http_response *res);
void writes_post_import(void *app, const http_request *req, http_response *res);
void writes_get_job(void *app, const http_request *req, http_response *res);

/* What POST /api/experiments and POST /api/experiments/{slug}/versions both
 * check, in the same words: a body, a scenario that parses, work within the
 * budget (422 with the numbers). 0: admitted, *w is the work, *sync says
 * whether it may run in the request (small, and no other write under way)
 * and *parsed is the scenario, the caller's to hand to the store
 * (store_ctl.parsed, so the body is parsed once) and to scn_free; else the
 * error is in res and *parsed is NULL. */
int writes_admit_scenario(api_ctx *a, const http_request *req, http_response *res,
                          budget_work *w, int *sync, struct scn_scenario **parsed);
/* The answer to a jobs_submit() that returned rc: 202 {job, state, url}, or
 * 503 with Retry-After when the queue is full or the server stopping. */
void writes_queued(http_response *res, int rc, const char *id);

#endif
