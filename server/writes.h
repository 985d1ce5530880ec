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

#include "api.h"
#include "budget.h"
#include "http.h"
#include "jobs.h"

void writes_post_experiment(void *app, const http_request *req, http_response *res);
void writes_post_import(void *app, const http_request *req, http_response *res);
void writes_get_job(void *app, const http_request *req, http_response *res);

/* defined in api.c */
db *api_db_acquire(api_ctx *a, http_response *res);
void api_db_release(api_ctx *a, db *d);
job_queue *api_jobs(api_ctx *a);
const budget *api_budget(api_ctx *a);

#endif
