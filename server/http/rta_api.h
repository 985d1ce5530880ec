/* rta_api.h -- the HTTP handlers of issue 14 (docs/api.md):
 *   POST /api/rta                      taskset JSON -> schedlab-rta/1
 *   GET  /api/experiments/{slug}/sweep a sweep experiment's result
 * They are listed in the route table (routes.c) and take a pooled
 * connection through api_db_acquire / api_db_release (api_ctx.h). */
#ifndef SERVER_RTA_API_H
#define SERVER_RTA_API_H

#include "http.h"

void rta_api_post(void *app, const http_request *req, http_response *res);
void rta_api_sweep(void *app, const http_request *req, http_response *res);

#endif
