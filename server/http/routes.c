/* routes.c -- the route table of docs/api.md: one line per route, the
 * handler beside it (the top of server/http/: it includes the handlers,
 * nothing includes it but api.h's caller). See api.h. */
#include "api.h"
#include "api_handlers.h"
#include "experiments_edit.h"
#include "replay_api.h"
#include "rta_api.h"
#include "summary_api.h"
#include "sweep_api.h"
#include "writes.h"

/* The query arguments each route reads (http_route.args; docs/api.md names
 * each): any other is a 400 naming it. */
#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define WINDOW "from", "to", "max"

static const http_route routes[] = {
    {"GET", "/api/health", h_health, NULL},
    {"GET", "/api/capabilities", h_capabilities, NULL},
    {"GET", "/api/presets", h_presets, NULL},
    {"GET", "/api/scenarios", h_scenarios, NULL},
    {"GET", "/api/experiments", h_experiments, NULL},
    {"POST", "/api/experiments", writes_post_experiment, NULL},
    {"GET", "/api/experiments/*", h_experiment, ARGS("scenario")},
    {"DELETE", "/api/experiments/*", expedit_delete, NULL},
    {"GET", "/api/experiments/*/versions", expedit_get_versions, NULL},
    {"POST", "/api/experiments/*/versions", expedit_post_version, NULL},
    {"POST", "/api/imports", writes_post_import, ARGS("format", "experiment", "name")},
    {"GET", "/api/jobs/*", writes_get_job, NULL},
    {"GET", "/api/runs/*", h_run, NULL},
    {"GET", "/api/runs/*/blocks", h_blocks, ARGS(WINDOW)},
    {"GET", "/api/runs/*/tiles", h_tiles, NULL},
    {"GET", "/api/runs/*/occupancy", h_occupancy, ARGS(WINDOW, "kernels")},
    {"GET", "/api/runs/*/streams", h_streams, ARGS(WINDOW, "names")},
    {"GET", "/api/runs/*/tiles/*/*", h_tile, NULL},
    /* a window's records or bins, or a page of the run view's table
     * (record_pages.c) */
    {"GET", "/api/runs/*/kernels", h_kernels,
     ARGS(WINDOW, "offset", "limit", "sort", "order", "name")},
    {"GET", "/api/runs/*/copies", h_copies,
     ARGS(WINDOW, "offset", "limit", "sort", "order", "name")},
    {"GET", "/api/runs/*/jobs", h_jobs, NULL},
    {"GET", "/api/runs/*/host_calls", h_host_calls, NULL},
    {"GET", "/api/runs/*/tasks", h_task_stats, ARGS("bins")},
    {"GET", "/api/runs/*/warps", h_warps, ARGS(WINDOW)},
    {"GET", "/api/runs/*/queues", h_queues, ARGS("at", "from", "to", "bins")},
    {"GET", "/api/runs/*/export", h_export, ARGS("format")},
    {"GET", "/api/runs/*/replay", h_replay, ARGS("device")},
    {"POST", "/api/runs/*/replay", replay_api_post, ARGS("device")},
    {"GET", "/api/runs/*/fidelity", replay_api_fidelity, NULL},
    {"GET", "/api/runs/*/summary", summary_api_get, NULL},
    {"GET", "/api/compare", h_compare, ARGS("runs")},
    {"POST", "/api/rta", rta_api_post, NULL},
    {"GET", "/api/experiments/*/sweep", rta_api_sweep, NULL},
    {"GET", "/api/sweeps/specs", sweep_api_specs, NULL},
    {"GET", "/api/sweeps/specs/*", sweep_api_spec, NULL},
    {"POST", "/api/sweeps", sweep_api_post, ARGS("spec", "threads")},
    {"DELETE", "/api/jobs/*", sweep_api_cancel_job, NULL},
};

const http_route *api_routes(size_t *n) {
    *n = sizeof routes / sizeof *routes;
    return routes;
}
