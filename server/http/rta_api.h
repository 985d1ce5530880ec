/* rta_api.h -- the HTTP handlers of issue 14 (docs/api.md):
 *   POST /api/rta                      taskset JSON -> schedlab-rta/1
 *   GET  /api/experiments/{slug}/sweep a sweep experiment's result
 * They are listed in api.c's route table and take a pooled connection
 * through api_db_acquire / api_db_release (defined in api.c). */
#ifndef SERVER_RTA_API_H
#define SERVER_RTA_API_H

#include "api.h"
#include "http.h"

void rta_api_post(void *app, const http_request *req, http_response *res);
void rta_api_sweep(void *app, const http_request *req, http_response *res);

/* defined in api.c: its connection pool, for handlers in other files */
db *api_db_acquire(api_ctx *a, http_response *res);
void api_db_release(api_ctx *a, db *d);

#endif
