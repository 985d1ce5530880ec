/* rta_api.c -- POST /api/rta and GET /api/experiments/{slug}/sweep. See
 * rta_api.h and docs/api.md. */
#include "rta_api.h"

#include <stdlib.h>
#include <string.h>

#include "../../db/sweep.h"
#include "../../importers/jsonr.h"
#include "api_ctx.h"
#include "taskset.h"

/* The analysis is pure and bounded (RTA_MAX_TASKS tasks, a few ms at
 * most), so it answers at once rather than through a job. */
void rta_api_post(void *app, const http_request *req, http_response *res) {
    (void)app;
    if (!req->body || !req->body_len) {
        http_set_error(res, 400, "taskset: the request body is empty; send schedlab-taskset/1 "
                       "JSON (or a scenario with tasks)");
        return;
    }
    char err[1024];
    tset *t;
    if (tset_parse(req->body, req->body_len, "taskset", &t, err, sizeof err)) {
        http_set_error(res, jr_over_budget() ? 413 : 400, "%s", err);
        return;
    }
    json_t *j = tset_analyse_json(tset_rta(t));
    tset_free(t);
    if (!j)
        http_set_error(res, 500, "out of memory");
    else
        http_set_json(res, 200, j);
}

void rta_api_sweep(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    db *d = api_db_acquire(a, res);
    if (!d)
        return;
    char err[1024], *text = NULL;
    int rc = db_sweep_result(d, req->params[0], &text, err, sizeof err);
    api_db_release(a, d);
    if (rc == DB_NOT_FOUND) {
        http_set_error(res, 404, "no sweep experiment named \"%s\"", req->params[0]);
        return;
    }
    if (rc) {
        http_set_error(res, 500, "%s", err);
        return;
    }
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    free(text);
    if (!j)
        http_set_error(res, 500, "stored sweep result is not JSON: %s", je.text);
    else
        http_set_json(res, 200, j);
}
