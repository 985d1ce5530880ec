/* api_handlers.h -- the handlers of api.c (reads of experiments, runs,
 * windows, exports, compare; health, capabilities, presets, scenarios),
 * for the route table (routes.c). Each takes the api_ctx (api_ctx.h) as
 * `app`. */
#ifndef SERVER_API_HANDLERS_H
#define SERVER_API_HANDLERS_H

#include "http.h"

void h_health(void *app, const http_request *req, http_response *res);
void h_capabilities(void *app, const http_request *req, http_response *res);
void h_presets(void *app, const http_request *req, http_response *res);
void h_scenarios(void *app, const http_request *req, http_response *res);
void h_experiments(void *app, const http_request *req, http_response *res);
void h_experiment(void *app, const http_request *req, http_response *res);
void h_run(void *app, const http_request *req, http_response *res);
void h_blocks(void *app, const http_request *req, http_response *res);
void h_tiles(void *app, const http_request *req, http_response *res);
void h_occupancy(void *app, const http_request *req, http_response *res);
void h_streams(void *app, const http_request *req, http_response *res);
void h_tile(void *app, const http_request *req, http_response *res);
void h_kernels(void *app, const http_request *req, http_response *res);
void h_copies(void *app, const http_request *req, http_response *res);
void h_jobs(void *app, const http_request *req, http_response *res);
void h_host_calls(void *app, const http_request *req, http_response *res);
void h_task_stats(void *app, const http_request *req, http_response *res);
void h_warps(void *app, const http_request *req, http_response *res);
void h_queues(void *app, const http_request *req, http_response *res);
void h_export(void *app, const http_request *req, http_response *res);
void h_replay(void *app, const http_request *req, http_response *res);
void h_compare(void *app, const http_request *req, http_response *res);

#endif
