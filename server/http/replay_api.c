/* replay_api.c -- a measured run replayed into a new experiment with its
 * fidelity reports (issue 10). See replay_api.h. */
#include "replay_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/fidelity_db.h"
#include "../../importers/jsonr.h"
#include "fidelity.h"
#include "fidelity_causes.h"
#include "replay.h"
#include "replay_devices.h"
#include "replay_devices_store.h"
#include "replay_heldout.h"
#include "store.h"
#include "api_ctx.h"
#include "writes.h"

/* Blocks a simulated run of a replay keeps at most when the measured trace
 * has none (the stored run then has kernels, copies and queues). */
#define REPLAY_KEEP_BLOCKS 4000000LL

typedef struct rp_job {
    api_ctx *a;
    char run[DB_SLUG_SIZE];
    char *device;                /* NULL: the trace's own device or the preset its name names */
} rp_job;

static void rp_job_free(void *p) {
    rp_job *j = p;
    free(j->device);
    free(j);
}

/* The summary of a report the job's result lists per run. */
static json_t *summary(const json_t *rep) {
    json_t *s = json_object();
    static const char *const keys[] = {"ok", "duration_error_median", "duration_error_p90",
                                       "start_error_median_share", "makespan_difference"};
    for (size_t i = 0; s && i < sizeof keys / sizeof *keys; i++)
        json_object_set(s, keys[i], json_object_get(rep, keys[i]));
    return s;
}

/* Compare stored run `run` with the measured trace m; store the report. */
static int report_one(db *d, const trace *m, const char *measured, const char *run,
                      const replay_info *info, const replay_heldout *h, json_t **sum, char *err,
                      size_t errlen) {
    trace s;
    trace_init(&s);
    unsigned parts = DB_LOAD_KERNELS | DB_LOAD_COPIES | (m->blocks.n ? DB_LOAD_BLOCKS : 0);
    int rc = db_load_run(d, run, parts, &s, err, errlen);
    fidelity f;
    memset(&f, 0, sizeof f);
    if (rc == 0) rc = fidelity_compare(m, &s, &f, err, errlen);
    json_t *rep = rc == 0 ? fidelity_json(&f, m, &s, 10) : NULL;
    if (rep && fidelity_explain(rep, m, info, h) != 0) {
        json_decref(rep);
        rep = NULL;
    }
    if (rc == 0 && !rep) {
        snprintf(err, errlen, "out of memory writing the fidelity report");
        rc = -1;
    }
    char *text = NULL;
    if (rep) {
        json_object_set_new(rep, "measured_run", json_string(measured));
        json_object_set_new(rep, "simulated_run", json_string(run));
        text = json_dumps(rep, JSON_COMPACT);
        if (!text) rc = -1;
    }
    if (rc == 0) rc = db_fidelity_store(d, run, measured, text, err, errlen);
    if (rc == 0) *sum = summary(rep);
    free(text);
    json_decref(rep);
    fidelity_free(&f);
    trace_free(&s);
    return rc;
}

/* store_ctl.with_runs of a replay: every simulated run's report, in the
 * transaction that stores the runs; each run gets its summary as
 * "fidelity". */
typedef struct reports_arg {
    const trace *m;
    const char *measured;
    const replay_info *info;
    const replay_heldout *held;
    job_ctl *ctl;
} reports_arg;

static int store_reports(db *d, const char *slug, json_t *runs, void *user, char *err,
                         size_t errlen) {
    (void)slug;
    reports_arg *ra = user;
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r) {
        const char *rs = json_string_value(json_object_get(r, "run"));
        json_t *sum = NULL;
        if (!rs) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (report_one(d, ra->m, ra->measured, rs, ra->info, ra->held, &sum, err, errlen) != 0)
            return -1;
        json_object_set_new(r, "fidelity", sum);
        atomic_fetch_add(&ra->ctl->done, 1);
    }
    return 0;
}

void replay_store(db *d, const char *run_id, const char *device, job_ctl *ctl, int *status,
                  json_t **result, char *err, size_t errlen) {
    struct { const char *run, *device; } jv = {run_id, device}, *j = &jv;
    trace m;
    trace_init(&m);
    json_t *scn = NULL, *runs = NULL;
    char *text = NULL;
    int rc = db_load_run(d, j->run, DB_LOAD_KERNELS | DB_LOAD_BLOCKS | DB_LOAD_COPIES, &m, err,
                         errlen);
    if (rc) {
        *status = rc == DB_NOT_FOUND ? 404 : 500;
        if (rc == DB_NOT_FOUND) snprintf(err, errlen, "no run named \"%s\"", j->run);
        goto done;
    }
    if (replay_device_keys(&m, NULL, 0) > 1) {
        /* work on several GPUs: one simulated GPU each (replay_devices.h) */
        replay_devices_store(d, &m, j->run, j->device, ctl, status, result, err, errlen);
        goto done;
    }
    char what[64];
    snprintf(what, sizeof what, "run %s", j->run);
    replay_info info;
    /* the calibration's passes and the held-out prediction's simulations
     * stop at the job's cancel as the store's do (replay.h REPLAY_CANCELLED) */
    rc = replay_scenario_info_ctl(&m, what, j->device, &ctl->cancel, &scn, &info, err, errlen);
    if (rc == REPLAY_CANCELLED) goto aborted;
    if (rc != 0) {
        *status = 400;
        goto done;
    }
    /* a run the preset cannot hold is refused in the CLI's and the GET's
     * words ("run X: does not simulate: …"), before the held-out prediction
     * simulates anything (replay.h replay_check) */
    rc = replay_check(scn, what, err, errlen);
    if (rc != 0) {
        *status = rc == 1 ? 400 : 500;
        goto done;
    }
    /* the held-out prediction, once for every run of the replay */
    replay_heldout held;
    rc = replay_heldout_run_ctl(&m, what, j->device, &ctl->cancel, &held, err, errlen);
    if (rc == REPLAY_CANCELLED) goto aborted;
    if (rc != 0) {
        *status = 500;
        goto done;
    }
    text = json_dumps(scn, JSON_COMPACT);
    if (!text) {
        *status = 500;
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    /* progress: the blocks of every run simulated, then stored */
    long long blocks = 0;
    json_t *op;
    size_t i;
    json_array_foreach(json_object_get(scn, "ops"), i, op)
        blocks += (long long)json_integer_value(json_object_get(op, "blocks"));
    size_t nruns = 1 + json_array_size(json_object_get(scn, "variants"));
    /* A trace without block records compares kernel by kernel: past
     * REPLAY_KEEP_BLOCKS, its simulations keep no blocks either, so a replay
     * of 38 M blocks stores in seconds, not minutes and gigabytes. */
    bool drop = m.blocks.n == 0 && blocks > REPLAY_KEEP_BLOCKS;
    atomic_store(&ctl->total, (drop ? 1 : 2) * blocks * (long long)nruns + (long long)nruns);
    char slug[DB_SLUG_SIZE];
    /* the reports are stored in the runs' own transaction, under the
     * store's write lock: stored after the runs' commit they waited for
     * SQLite's lock and failed "database is locked" behind an import that
     * took the write lock meanwhile, leaving the runs without reports */
    reports_arg ra = {.m = &m, .measured = j->run, .info = &info, .held = &held, .ctl = ctl};
    store_ctl sc = {.cancel = &ctl->cancel, .done = &ctl->done, .lock_ms = -1,
                    .drop_blocks = drop, .with_runs = store_reports, .with_runs_user = &ra};
    rc = store_scenario_ctl(d, text, strlen(text), "replay", NULL, &sc, slug, &runs, err, errlen);
    if (rc == STORE_BAD_INPUT) replay_name_op(scn, err, errlen);
    if (rc) {
        *status = rc == STORE_BAD_INPUT ? 400 : rc == STORE_ABORTED || rc == STORE_BUSY ? 503 : 500;
        goto done;
    }
    char compare[1024];
    size_t len = (size_t)snprintf(compare, sizeof compare, "/compare?runs=%s", j->run);
    json_t *r;
    json_array_foreach(runs, i, r) {
        const char *rs = json_string_value(json_object_get(r, "run"));
        if (len < sizeof compare)
            len += (size_t)snprintf(compare + len, sizeof compare - len, ",%s", rs);
    }
    *status = 201;
    *result = json_pack("{s:s, s:s, s:s, s:s, s:O, s:s}", "slug", slug, "measured", j->run,
                        "device", info.device, "device_why", info.device_why, "runs", runs,
                        "compare", compare);
    if (*result && held.done)
        json_object_set_new(*result, "held_out", replay_heldout_json(&held));
    goto done;
aborted:   /* as store_scenario_ctl answers a cancel (store.c) */
    snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
    *status = 503;
done:
    json_decref(runs);
    json_decref(scn);
    free(text);
    trace_free(&m);
}

static void rp_run(void *arg, job_ctl *ctl, int *status, json_t **result, char *err,
                   size_t errlen) {
    rp_job *j = arg;
    db *d;
    if (api_db_get(j->a, &d, err, errlen)) {
        *status = 500;
        return;
    }
    replay_store(d, j->run, j->device, ctl, status, result, err, errlen);
    api_db_release(j->a, d);
}

void replay_api_post(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    const char *device = http_query(req, "device");
    json_t *body = NULL;
    if (req->body && req->body_len) {
        /* as every JSON body: a syntax error or a key given twice named
         * with its line and column ("replay:1:10: JSON: ...") */
        char jerr[512];
        jr_ctx jc = {.file = "replay", .err = jerr, .errlen = sizeof jerr};
        body = jr_load(&jc, req->body, req->body_len);
        if (!body) {
            http_set_error(res, jr_over_budget() ? 413 : 400, "%s", jerr);
            return;
        }
        if (!json_is_object(body)) {
            json_decref(body);
            http_set_error(res, 400, "replay: the body is a JSON object {\"device\": PRESET} or empty");
            return;
        }
        json_t *dv = json_object_get(body, "device");
        const char *k;
        json_t *v;
        json_object_foreach(body, k, v) {
            if (strcmp(k, "device") != 0) {
                http_set_error(res, 400, "replay: unknown key \"%s\" (known: device)", k);
                json_decref(body);
                return;
            }
        }
        if (dv && !json_is_null(dv) && !json_is_string(dv)) {
            json_decref(body);
            http_set_error(res, 400, "replay: device: expected a preset name");
            return;
        }
        if (json_is_string(dv)) device = json_string_value(dv);
    }
    if (strlen(req->params[0]) >= DB_SLUG_SIZE) {
        json_decref(body);
        http_set_error(res, 404, "no run named \"%s\"", req->params[0]);
        return;
    }
    rp_job *j = calloc(1, sizeof *j);
    if (!j || (device && *device && !(j->device = strdup(device)))) {
        free(j);
        json_decref(body);
        http_set_error(res, 500, "out of memory");
        return;
    }
    json_decref(body);
    j->a = a;
    snprintf(j->run, sizeof j->run, "%s", req->params[0]);
    char id[JOBS_ID_SIZE];
    int rc = jobs_submit(api_jobs(a), "replay", rp_run, j, rp_job_free, 1, id);
    if (rc) rp_job_free(j);
    writes_queued(res, rc, id);
}

static int count_run(void *ctx, const db_run *r) {
    (void)r;
    *(int *)ctx = 1;
    return 0;
}

void replay_api_fidelity(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    db *d = api_db_acquire(a, res);
    if (!d) return;
    char *report = NULL, *measured = NULL, err[512];
    int rc = db_fidelity_get(d, req->params[0], &report, &measured, err, sizeof err);
    if (rc == DB_NOT_FOUND) {
        /* a run that is no replay has no report: say so without a 404, which
         * is kept for runs that do not exist */
        int found = 0;
        int g = db_get_run(d, req->params[0], count_run, &found, err, sizeof err);
        api_db_release(a, d);
        if (g == 0 && found) {
            http_set_json(res, 200, json_pack("{s:b}", "replay", 0));
            return;
        }
        if (g == DB_NOT_FOUND || (g == 0 && !found))
            http_set_error(res, 404, "no run named \"%s\"", req->params[0]);
        else
            http_set_error(res, 500, "%s", err);
        return;
    }
    api_db_release(a, d);
    if (rc) {
        http_set_error(res, rc == DB_NOT_FOUND ? 404 : 500, "%s", err);
        return;
    }
    json_t *j = json_loads(report, 0, NULL);
    free(report);
    free(measured);
    if (!json_is_object(j)) {
        json_decref(j);
        http_set_error(res, 500, "the stored fidelity report is not JSON");
        return;
    }
    json_object_set_new(j, "replay", json_true());
    http_set_json(res, 200, j);
}
