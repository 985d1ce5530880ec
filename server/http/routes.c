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
 * each): any other is a 400 naming it, and so is one given empty or
 * without '=' unless its empty value is a value of its own
 * (http_route.empty_ok: an empty list). Designated, so that a route's
 * empty_ok and needed are named where it has them. */
#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ARGS(...) .args = LIST(__VA_ARGS__)
#define NO_ARGS .args = NULL
#define WINDOW "from", "to", "max"

static const http_route routes[] = {
    {"GET", "/api/health", h_health, NO_ARGS},
    {"GET", "/api/capabilities", h_capabilities, NO_ARGS},
    {"GET", "/api/presets", h_presets, NO_ARGS},
    {"GET", "/api/scenarios", h_scenarios, NO_ARGS},
    {"GET", "/api/experiments", h_experiments, NO_ARGS},
    {"POST", "/api/experiments", writes_post_experiment, NO_ARGS},
    {"GET", "/api/experiments/*", h_experiment, ARGS("scenario")},
    {"DELETE", "/api/experiments/*", expedit_delete, NO_ARGS},
    {"GET", "/api/experiments/*/versions", expedit_get_versions, NO_ARGS},
    {"POST", "/api/experiments/*/versions", expedit_post_version, NO_ARGS},
    {"POST", "/api/imports", writes_post_import, ARGS("format", "experiment", "name")},
    {"GET", "/api/jobs/*", writes_get_job, NO_ARGS},
    {"GET", "/api/runs/*", h_run, NO_ARGS},
    {"GET", "/api/runs/*/blocks", h_blocks, ARGS(WINDOW)},
    {"GET", "/api/runs/*/tiles", h_tiles, NO_ARGS},
    /* kernels=, names=: no kernel, no name (docs/api.md) */
    {"GET", "/api/runs/*/occupancy", h_occupancy, ARGS(WINDOW, "kernels"),
     .empty_ok = LIST("kernels")},
    {"GET", "/api/runs/*/streams", h_streams, ARGS(WINDOW, "names"), .empty_ok = LIST("names")},
    {"GET", "/api/runs/*/tiles/*/*", h_tile, NO_ARGS},
    /* a window's records or bins, or a page of the run view's table
     * (record_pages.c) */
    {"GET", "/api/runs/*/kernels", h_kernels,
     ARGS(WINDOW, "offset", "limit", "sort", "order", "name")},
    {"GET", "/api/runs/*/copies", h_copies,
     ARGS(WINDOW, "offset", "limit", "sort", "order", "name")},
    {"GET", "/api/runs/*/jobs", h_jobs, NO_ARGS},
    {"GET", "/api/runs/*/host_calls", h_host_calls, NO_ARGS},
    {"GET", "/api/runs/*/tasks", h_task_stats, ARGS("bins")},
    {"GET", "/api/runs/*/warps", h_warps, ARGS(WINDOW)},
    {"GET", "/api/runs/*/queues", h_queues, ARGS("at", "from", "to", "bins")},
    {"GET", "/api/runs/*/export", h_export, ARGS("format")},
    {"GET", "/api/runs/*/replay", h_replay, ARGS("device")},
    {"POST", "/api/runs/*/replay", replay_api_post, ARGS("device")},
    {"GET", "/api/runs/*/fidelity", replay_api_fidelity, NO_ARGS},
    {"GET", "/api/runs/*/summary", summary_api_get, NO_ARGS},
    {"GET", "/api/compare", h_compare, ARGS("runs"), .needed = LIST("runs")},
    {"POST", "/api/rta", rta_api_post, NO_ARGS},
    {"GET", "/api/experiments/*/sweep", rta_api_sweep, NO_ARGS},
    {"GET", "/api/sweeps/specs", sweep_api_specs, NO_ARGS},
    {"GET", "/api/sweeps/specs/*", sweep_api_spec, NO_ARGS},
    {"POST", "/api/sweeps", sweep_api_post, ARGS("spec", "threads")},
    {"DELETE", "/api/jobs/*", sweep_api_cancel_job, NO_ARGS},
};

const http_route *api_routes(size_t *n) {
    *n = sizeof routes / sizeof *routes;
    return routes;
}
