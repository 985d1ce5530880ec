/* experiments_edit.c -- edit and re-run, versions, delete. See
 * experiments_edit.h. */
#include "experiments_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/versions.h"
#include "budget.h"
#include "scenario.h"
#include "store.h"
#include "trace_json.h"
#include "writes.h"

/* A sync write waits this long for the write lock before it becomes a job
 * (as writes.c). */
#define SYNC_LOCK_MS 1000

static int store_status(int rc) {
    return rc == STORE_BAD_INPUT ? 400 : rc == DB_NOT_FOUND ? 404 : rc == STORE_FORBIDDEN ? 409
         : rc == STORE_ABORTED || rc == STORE_BUSY ? 503 : 500;
}

/* ---- POST /api/experiments/{slug}/versions ------------------------------------ */

typedef struct ver_job {
    api_ctx *a;
    http_body *body;
    scn_scenario *parsed;    /* the body, parsed at admission (writes.h) */
    char slug[DB_SLUG_SIZE];
} ver_job;

static void ver_job_free(void *p) {
    ver_job *vj = p;
    http_body_free(vj->body);
    scn_free(vj->parsed);
    free(vj);
}

static void ver_store(api_ctx *a, const char *slug, const char *text, size_t len,
                      const store_ctl *sc, int *status, json_t **result, char *err,
                      size_t errlen) {
    db *d;
    if (api_db_get(a, &d, err, errlen)) {
        snprintf(err, errlen, "cannot open the database");
        *status = 500;
        return;
    }
    json_t *runs = NULL;
    int64_t version = 0;
    int rc = store_scenario_version(d, slug, text, len, sc, &runs, &version, err, errlen);
    api_db_release(a, d);
    if (rc) { *status = store_status(rc); return; }
    *status = 201;
    *result = json_pack("{s:s, s:I, s:o}", "slug", slug, "version", (json_int_t)version, "runs",
                        runs);
}

static void ver_run(void *arg, job_ctl *ctl, int *status, json_t **result, char *err,
                    size_t errlen) {
    ver_job *vj = arg;
    store_ctl sc = {.cancel = &ctl->cancel, .done = &ctl->done, .lock_ms = -1,
                    .parsed = vj->parsed};
    ver_store(vj->a, vj->slug, http_body_data(vj->body), http_body_len(vj->body), &sc, status,
              result, err, errlen);
}

void expedit_post_version(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    const char *slug = req->params[0];
    if (strlen(slug) != DB_SLUG_LEN) {
        http_set_error(res, 404, "no experiment named \"%s\"", slug);
        return;
    }
    /* the same checks, in the same words, as POST /api/experiments */
    budget_work w;
    int sync, rc;
    scn_scenario *s;
    if (writes_admit_scenario(a, req, res, &w, &sync, &s)) return;
    if (sync) {
        char err[1024];
        store_ctl sc = {.lock_ms = SYNC_LOCK_MS, .parsed = s};
        int status = 500;
        json_t *result = NULL;
        err[0] = '\0';
        ver_store(a, slug, req->body, req->body_len, &sc, &status, &result, err, sizeof err);
        if (result) {
            scn_free(s);
            /* the experiment, which now has the version */
            snprintf(res->location, sizeof res->location, "/api/experiments/%s", slug);
            http_set_json(res, status, result);
            return;
        }
        if (status != 503 || strstr(err, "aborted")) {
            scn_free(s);
            http_set_error(res, status, "%s", err);
            return;
        }
    }
    ver_job *vj = calloc(1, sizeof *vj);
    if (!vj) { scn_free(s); http_set_error(res, 500, "out of memory"); return; }
    vj->a = a;
    vj->parsed = s;
    snprintf(vj->slug, sizeof vj->slug, "%s", slug);
    vj->body = http_take_body(req);
    char id[JOBS_ID_SIZE];
    /* progress: every block simulated, then stored (as writes.c) */
    rc = jobs_submit(api_jobs(a), "simulation", ver_run, vj, ver_job_free, 2 * w.blocks + 1, id);
    if (rc) ver_job_free(vj);
    writes_queued(res, rc, id);
}

/* ---- versions ------------------------------------------------------------------- */

static int on_version(void *ctx, int64_t version, const char *created, int64_t runs) {
    return json_array_append_new(ctx, json_pack("{s:I, s:o, s:I}", "version", (json_int_t)version,
                                                "created", tj_string(created), "runs",
                                                (json_int_t)runs));
}

void expedit_get_versions(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    db *d = api_db_acquire(a, res);
    if (!d) return;
    char err[512];
    json_t *list = json_array();
    int rc = db_list_versions(d, req->params[0], on_version, list, err, sizeof err);
    api_db_release(a, d);
    if (rc == DB_NOT_FOUND) http_set_error(res, 404, "no experiment named \"%s\"", req->params[0]);
    else if (rc) http_set_error(res, 500, "%s", err);
    if (rc) { json_decref(list); return; }
    http_set_json(res, 200, json_pack("{s:o}", "versions", list));
}

static int on_run_version(void *ctx, const char *run, int64_t version) {
    return json_object_set_new(ctx, run, json_integer(version));
}

int expedit_annotate(db *d, json_t *exp, char *err, size_t errlen) {
    const char *slug = json_string_value(json_object_get(exp, "slug"));
    if (!slug) return 0;
    json_t *by_run = json_object(), *versions = json_array();
    int rc = db_list_run_versions(d, slug, on_run_version, by_run, err, errlen);
    if (!rc) rc = db_list_versions(d, slug, on_version, versions, err, errlen);
    if (!rc) {
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(exp, "runs"), i, r) {
            json_t *v = json_object_get(by_run, json_string_value(json_object_get(r, "run")));
            json_object_set_new(r, "version", v ? json_incref(v) : json_integer(1));
        }
        json_object_set(exp, "versions", versions);
    }
    json_decref(by_run);
    json_decref(versions);
    return rc;
}

static int copy_name(void *ctx, const db_experiment *e) {
    char **buf = ctx;
    snprintf(buf[0], (size_t)(buf[1] - buf[0]), "%s", e->name ? e->name : "");
    return 0;
}

void expedit_experiment_name(db *d, const char *slug, char *buf, size_t size) {
    char err[256];
    char *range[2] = {buf, buf + size};
    buf[0] = '\0';
    if (db_get_experiment(d, slug, copy_name, range, err, sizeof err)) buf[0] = '\0';
}

typedef struct {
    const char *run;
    int64_t version;
} run_version_find;

static int find_run_version(void *ctx, const char *run, int64_t version) {
    run_version_find *f = ctx;
    if (strcmp(run, f->run) == 0) f->version = version;
    return 0;
}

int64_t expedit_run_version(db *d, const char *slug, const char *run) {
    char err[256];
    int64_t latest = 1;
    if (db_version_latest(d, slug, &latest, err, sizeof err) || latest < 2) return 0;
    run_version_find f = {.run = run, .version = 0};
    if (db_list_run_versions(d, slug, find_run_version, &f, err, sizeof err)) return 0;
    return f.version;
}

/* ---- DELETE /api/experiments/{slug} ---------------------------------------------- */

void expedit_delete(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    db *d = api_db_acquire(a, res);
    if (!d) return;
    char err[512];
    int64_t runs = 0;
    store_ctl sc = {.lock_ms = 10 * SYNC_LOCK_MS};
    int rc = store_delete_experiment(d, req->params[0], &sc, &runs, err, sizeof err);
    api_db_release(a, d);
    if (rc == DB_NOT_FOUND) { http_set_error(res, 404, "no experiment named \"%s\"", req->params[0]); return; }
    if (rc == STORE_BUSY) { res->retry_after = 5; http_set_error(res, 503, "%s", err); return; }
    if (rc) { http_set_error(res, 500, "%s", err); return; }
    http_set_json(res, 200, json_pack("{s:s, s:I}", "deleted", req->params[0], "runs",
                                      (json_int_t)runs));
}
