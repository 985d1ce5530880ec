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

static const http_route routes[] = {
    {"GET", "/api/health", h_health},
    {"GET", "/api/capabilities", h_capabilities},
    {"GET", "/api/presets", h_presets},
    {"GET", "/api/scenarios", h_scenarios},
    {"GET", "/api/experiments", h_experiments},
    {"POST", "/api/experiments", writes_post_experiment},
    {"GET", "/api/experiments/*", h_experiment},
    {"DELETE", "/api/experiments/*", expedit_delete},
    {"GET", "/api/experiments/*/versions", expedit_get_versions},
    {"POST", "/api/experiments/*/versions", expedit_post_version},
    {"POST", "/api/imports", writes_post_import},
    {"GET", "/api/jobs/*", writes_get_job},
    {"GET", "/api/runs/*", h_run},
    {"GET", "/api/runs/*/blocks", h_blocks},
    {"GET", "/api/runs/*/tiles", h_tiles},
    {"GET", "/api/runs/*/occupancy", h_occupancy},
    {"GET", "/api/runs/*/streams", h_streams},
    {"GET", "/api/runs/*/tiles/*/*", h_tile},
    {"GET", "/api/runs/*/kernels", h_kernels},
    {"GET", "/api/runs/*/copies", h_copies},
    {"GET", "/api/runs/*/jobs", h_jobs},
    {"GET", "/api/runs/*/host_calls", h_host_calls},
    {"GET", "/api/runs/*/tasks", h_task_stats},
    {"GET", "/api/runs/*/warps", h_warps},
    {"GET", "/api/runs/*/queues", h_queues},
    {"GET", "/api/runs/*/export", h_export},
    {"GET", "/api/runs/*/replay", h_replay},
    {"POST", "/api/runs/*/replay", replay_api_post},
    {"GET", "/api/runs/*/fidelity", replay_api_fidelity},
    {"GET", "/api/runs/*/summary", summary_api_get},
    {"GET", "/api/compare", h_compare},
    {"POST", "/api/rta", rta_api_post},
    {"GET", "/api/experiments/*/sweep", rta_api_sweep},
    {"GET", "/api/sweeps/specs", sweep_api_specs},
    {"GET", "/api/sweeps/specs/*", sweep_api_spec},
    {"POST", "/api/sweeps", sweep_api_post},
    {"DELETE", "/api/jobs/*", sweep_api_cancel_job},
};

const http_route *api_routes(size_t *n) {
    *n = sizeof routes / sizeof *routes;
    return routes;
}
