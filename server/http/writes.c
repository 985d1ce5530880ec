/* writes.c -- the handlers that store: scenarios, imports, jobs. See
 * writes.h. */
#include "writes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../importers/jsonr.h"
#include "scenario.h"
#include "store.h"

/* A sync write waits this long for the write lock before it becomes a job. */
#define SYNC_LOCK_MS 1000

void writes_queued(http_response *res, int rc, const char *id) {
    if (rc == -2) {
        res->retry_after = 5;
        http_set_error(res, 503, "the server is stopping; try again shortly");
    } else if (rc) {
        res->retry_after = 10;
        http_set_error(res, 503, "the job queue is full; try again shortly");
    } else {
        char url[64];
        snprintf(url, sizeof url, "/api/jobs/%s", id);
        http_set_json(res, 202, json_pack("{s:s, s:s, s:s}", "job", id, "state", "queued", "url", url));
    }
}

/* ---- scenarios ------------------------------------------------------------------ */

typedef struct scn_job {
    api_ctx *a;
    http_body *body;
    scn_scenario *parsed;    /* the body, parsed at admission */
} scn_job;

static void scn_job_free(void *p) {
    scn_job *sj = p;
    http_body_free(sj->body);
    scn_free(sj->parsed);
    free(sj);
}

static int scenario_status(int rc) {
    return rc == STORE_BAD_INPUT ? 400 : rc == STORE_ABORTED ? 503 : rc == STORE_BUSY ? 503 : 500;
}

static void scn_run(void *arg, job_ctl *ctl, int *status, json_t **result, char *err,
                    size_t errlen) {
    scn_job *sj = arg;
    db *d;
    if (api_db_get(sj->a, &d, err, errlen)) { *status = 500; return; }
    char slug[DB_SLUG_SIZE];
    json_t *runs;
    store_ctl sc = {.cancel = &ctl->cancel, .done = &ctl->done, .lock_ms = -1,
                    .parsed = sj->parsed};
    int rc = store_scenario_ctl(d, http_body_data(sj->body), http_body_len(sj->body), "scenario",
                                NULL, &sc, slug, &runs, err, errlen);
    api_db_release(sj->a, d);
    if (rc) { *status = scenario_status(rc); return; }
    *status = 201;
    *result = json_pack("{s:s, s:o}", "slug", slug, "runs", runs);
}

int writes_admit_scenario(api_ctx *a, const http_request *req, http_response *res,
                          budget_work *w, int *sync, scn_scenario **parsed) {
    *parsed = NULL;
    if (!req->body || !req->body_len) {
        http_set_error(res, 400, "scenario: the request body is empty; send scenario JSON");
        return -1;
    }
    const budget *b = api_budget(a);
    /* counted from the bytes first: 60,000 streams are refused before a
     * tree of them is built (issue 31) */
    budget_prescan(req->body, req->body_len, w);
    json_t *over = budget_check(b, w);
    if (over) { http_set_json(res, 422, over); return -1; }
    char err[1024];
    scn_scenario *s;
    if (scn_parse(req->body, req->body_len, "scenario", &s, err, sizeof err)) {
        http_set_error(res, jr_over_budget() ? 413 : 400, "%s", err);
        return -1;
    }
    int rc = budget_estimate(s, w, err, sizeof err);
    if (rc) { scn_free(s); http_set_error(res, 400, "scenario: %s", err); return -1; }
    over = budget_check(b, w);
    if (over) { scn_free(s); http_set_json(res, 422, over); return -1; }
    /* cohorts' records are estimated: each run is held to the budget, on
     * the job queue, never on the request's thread */
    scn_limit_records(s, b->blocks);
    *sync = w->events <= b->sync_events && !w->cohorts && !store_writing();
    *parsed = s;
    return 0;
}

void writes_post_experiment(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    budget_work w;
    int sync, rc;
    scn_scenario *s;
    if (!api_db_ok(a, res)) return;
    if (writes_admit_scenario(a, req, res, &w, &sync, &s)) return;
    if (sync) {
        char err[1024];
        db *d = api_db_acquire(a, res);
        if (!d) { scn_free(s); return; }
        char slug[DB_SLUG_SIZE];
        json_t *runs;
        store_ctl sc = {.lock_ms = SYNC_LOCK_MS, .parsed = s};
        rc = store_scenario_ctl(d, req->body, req->body_len, "scenario", NULL, &sc, slug, &runs,
                                err, sizeof err);
        api_db_release(a, d);
        if (rc == 0) {
            scn_free(s);
            http_set_json(res, 201, json_pack("{s:s, s:o}", "slug", slug, "runs", runs));
            snprintf(res->location, sizeof res->location, "/api/experiments/%s", slug);
            return;
        }
        if (rc != STORE_BUSY) {
            scn_free(s);
            http_set_error(res, scenario_status(rc), "%s", err);
            return;
        }
    }
    scn_job *sj = calloc(1, sizeof *sj);
    if (!sj) { scn_free(s); http_set_error(res, 500, "out of memory"); return; }
    sj->a = a;
    sj->parsed = s;
    sj->body = http_take_body(req);
    char id[JOBS_ID_SIZE];
    /* progress: every block simulated, then stored */
    rc = jobs_submit(api_jobs(a), "simulation", scn_run, sj, scn_job_free, 2 * w.blocks + 1, id);
    if (rc) scn_job_free(sj);
    writes_queued(res, rc, id);
}

/* ---- imports --------------------------------------------------------------------- */

typedef struct imp_job {
    api_ctx *a;
    http_body *body;
    char *format, *exp, *name;
} imp_job;

static void imp_job_free(void *p) {
    imp_job *ij = p;
    http_body_free(ij->body);
    free(ij->format);
    free(ij->exp);
    free(ij->name);
    free(ij);
}

static int import_status(int rc) {
    return rc == STORE_BAD_INPUT ? 400 : rc == DB_NOT_FOUND ? 404 : rc == STORE_FORBIDDEN ? 409
         : rc == STORE_ABORTED || rc == STORE_BUSY ? 503 : 500;
}

/* Import; fills status and result or err. */
static void do_import(api_ctx *a, const char *data, size_t len, const char *format,
                      const char *exp, const char *name, const store_ctl *sc, int *status,
                      json_t **result, char *err, size_t errlen) {
    db *d;
    if (api_db_get(a, &d, err, errlen)) { *status = 500; return; }
    imp_file f = {.name = name ? name : "upload", .data = (const unsigned char *)data, .len = len};
    char run[DB_SLUG_SIZE], es[DB_SLUG_SIZE];
    int rc = store_import_ctl(d, &f, 1, format, exp, name, sc, run, es, err, errlen);
    api_db_release(a, d);
    if (rc == DB_NOT_FOUND) snprintf(err, errlen, "experiment: no experiment named \"%s\"", exp);
    if (rc) { *status = import_status(rc); return; }
    *status = 201;
    /* the format read, named or detected, so the dashboard can show it per
     * file (issue 15) */
    const char *fname = imp_format_name(format ? imp_format_parse(format) : imp_detect(&f));
    /* what the import left out or guessed (docs/api.md): at most
     * IMP_WARNINGS_SHOWN lines, and how many there were in all */
    const store_warnings *w = sc->warnings;
    *result = json_pack("{s:s, s:s, s:s, s:o, s:I}", "run", run, "experiment", es, "format",
                        fname ? fname : "unknown", "warnings", store_warnings_json(w),
                        "warnings_total", (json_int_t)(w ? w->total : 0));
}

static void imp_run(void *arg, job_ctl *ctl, int *status, json_t **result, char *err,
                    size_t errlen) {
    imp_job *ij = arg;
    /* a body past HTTP_BODY_RAM is a mapped temporary file: a streaming
     * import drops the pages it has read, so RSS does not grow by the
     * upload's size (issue 9) */
    store_warnings warned = {0};
    store_ctl sc = {.cancel = &ctl->cancel, .done = &ctl->done, .phase = &ctl->phase,
                    .lock_ms = -1, .files_mapped = http_body_mapped(ij->body),
                    .warnings = &warned};
    do_import(ij->a, http_body_data(ij->body), http_body_len(ij->body), ij->format, ij->exp,
              ij->name, &sc, status, result, err, errlen);
    store_warnings_free(&warned);
}

/* A query value must not hide a NUL (it would cut the name short). */
static bool has_nul(const http_request *req, const char *key, http_response *res) {
    const char *v = http_query(req, key);
    if (!v) return false;
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p == 0x7f) {
            http_set_error(res, 400, "%s: control characters are not allowed in names", key);
            return true;
        }
    return false;
}

void writes_post_import(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    if (!api_db_ok(a, res)) return;
    if (has_nul(req, "name", res) || has_nul(req, "experiment", res) || has_nul(req, "format", res))
        return;
    if (!req->body || !req->body_len) {
        /* named (the dashboard names every file it sends): an empty file,
         * said as `schedlab import` says it; else a request sent without
         * its body (curl -X POST, a --data-binary without @) */
        if (http_query(req, "name"))
            http_set_error(res, 400, "%s: the file is empty (0 bytes): nothing to import",
                           http_query(req, "name"));
        else
            http_set_error(res, 400, "import: the request body is empty; send the trace file as "
                                     "the body");
        return;
    }
    /* each never empty: http.c's query_check refuses that */
    const char *format = http_query(req, "format"), *exp = http_query(req, "experiment"),
               *name = http_query(req, "name");
    const budget *b = api_budget(a);
    if ((long long)req->body_len <= b->sync_bytes && !store_writing()) {
        store_warnings warned = {0};
        store_ctl sc = {.lock_ms = SYNC_LOCK_MS, .files_mapped = req->body_mapped,
                        .warnings = &warned};
        int status = 500;
        json_t *result = NULL;
        char err[1024] = "";
        do_import(a, req->body, req->body_len, format, exp, name, &sc, &status, &result, err,
                  sizeof err);
        store_warnings_free(&warned);
        if (result) {
            snprintf(res->location, sizeof res->location, "/api/runs/%s",
                     json_string_value(json_object_get(result, "run")));
            http_set_json(res, status, result);
            return;
        }
        if (status != 503 || strstr(err, "aborted")) { http_set_error(res, status, "%s", err); return; }
    }
    imp_job *ij = calloc(1, sizeof *ij);
    if (!ij || (format && !(ij->format = strdup(format))) || (exp && !(ij->exp = strdup(exp))) ||
        (name && !(ij->name = strdup(name)))) {
        if (ij) imp_job_free(ij);
        http_set_error(res, 500, "out of memory");
        return;
    }
    ij->a = a;
    ij->body = http_take_body(req);
    char id[JOBS_ID_SIZE];
    /* progress: the parse, then the rows stored (store.h, issue 15) */
    int rc = jobs_submit(api_jobs(a), "import", imp_run, ij, imp_job_free, STORE_IMPORT_UNITS,
                         id);
    if (rc) imp_job_free(ij);
    writes_queued(res, rc, id);
}

/* ---- jobs -------------------------------------------------------------------------- */

void writes_get_job(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    json_t *o = jobs_status(api_jobs(a), req->params[0]);
    if (!o) { http_set_error(res, 404, "no job named \"%s\" (jobs are kept while the server runs)", req->params[0]); return; }
    http_set_json(res, 200, o);
}
