/* task_bounds.c -- analysis bounds of a simulated run's tasks. See
 * task_bounds.h. */
#include "task_bounds.h"

#include <stdlib.h>
#include <string.h>

#include "../../simcore/rta.h"
#include "taskset.h"

static bool meta_i64(const trace *t, const char *key, int64_t *out) {
    const char *v = trace_get_meta(t, key);
    if (!v || !*v) return false;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (*end || x < 0) return false;
    *out = (int64_t)x;
    return true;
}

json_t *task_bounds(const char *scenario_json, const trace *run) {
    const char *ctx = trace_get_meta(run, "contexts"), *wait = trace_get_meta(run, "gpu_wait");
    if (!scenario_json || !ctx || !wait) return NULL;
    bool busy = strcmp(wait, "busy") == 0;
    if (!busy && strcmp(wait, "suspend") != 0) return NULL;
    rta_approach a;
    if (strcmp(ctx, "time-slice") == 0) a = busy ? RTA_TSG_RR_BUSY : RTA_TSG_RR_SUSPEND;
    else if (strcmp(ctx, "gcaps") == 0) a = busy ? RTA_GCAPS_BUSY : RTA_GCAPS_SUSPEND;
    else if (strcmp(ctx, "fmlp+") == 0) a = busy ? RTA_FMLP_BUSY : RTA_FMLP_SUSPEND;
    else if (strcmp(ctx, "mpcp") == 0) a = busy ? RTA_MPCP_BUSY : RTA_MPCP_SUSPEND;
    else return NULL;
    tset *ts = NULL;
    char err[512];
    if (tset_parse(scenario_json, strlen(scenario_json), "scenario", &ts, err, sizeof err) != 0)
        return NULL;
    rta_taskset set = *tset_rta(ts);
    int64_t v;
    if (meta_i64(run, "time_slice", &v) && v > 0) set.time_slice = v;
    if (meta_i64(run, "context_switch", &v)) set.theta = v;
    if (meta_i64(run, "runlist_update", &v)) set.epsilon = v;
    json_t *out = NULL;
    int64_t *wcrt = calloc(set.n ? set.n : 1, sizeof *wcrt);
    if (wcrt && rta_check(&set, err, sizeof err) == 0) {
        rta_result res = { .wcrt = wcrt };
        rta_analyse(&set, a, &res);
        out = json_object();
        for (size_t i = 0; out && i < set.n; i++) {
            if (set.tasks[i].best_effort) continue;
            json_object_set_new(out, set.tasks[i].name,
                                wcrt[i] >= 0 ? json_integer(wcrt[i]) : json_null());
        }
    }
    free(wcrt);
    tset_free(ts);
    return out;
}

static int grab_scenario(void *ctx, const db_experiment *e) {
    char **out = ctx;
    if (e->scenario_json && !*out) *out = strdup(e->scenario_json);
    return 0;
}

json_t *task_bounds_stored(db *d, const char *experiment, const trace *run) {
    if (!experiment || !trace_get_meta(run, "gpu_wait")) return NULL;
    char *text = NULL, err[512];
    if (db_get_experiment(d, experiment, grab_scenario, &text, err, sizeof err) != 0) {
        free(text);
        return NULL;
    }
    json_t *out = task_bounds(text, run);
    free(text);
    return out;
}
