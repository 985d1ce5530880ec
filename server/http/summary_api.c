/* summary_api.c -- GET /api/runs/{run}/summary; see summary_api.h. */
#include "summary_api.h"

#include <stdio.h>

#include "../../db/db.h"
#include "api_ctx.h"

static json_t *share(int64_t part, int64_t whole) {
    return whole > 0 ? json_real((double)part / (double)whole) : json_null();
}

static const char *str(const trace *t, trace_str id) {
    const char *s = trace_str_get(t, id);
    return s ? s : "";
}

static json_t *lane_json(const trace *t, const tsum_lane *l, bool device) {
    json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                          "process", str(t, l->process), "window_ns", (json_int_t)l->window,
                          "busy_ns", (json_int_t)l->busy, "compute_ns", (json_int_t)l->compute,
                          "communication_ns", (json_int_t)l->comm, "copy_ns", (json_int_t)l->copy,
                          "idle_ns", (json_int_t)l->idle, "kernels", (json_int_t)l->kernels,
                          "copies", (json_int_t)l->copies);
    if (!o) return NULL;
    if (device) {
        json_object_set_new(o, "communication_overlapped_ns", json_integer(l->comm_overlapped));
        json_object_set_new(o, "communication_overlap_share", share(l->comm_overlapped, l->comm));
    } else {
        json_object_set_new(o, "stream", json_string(str(t, l->stream)));
    }
    return o;
}

static json_t *opt_int(size_t count, int64_t v) {
    return count ? json_integer(v) : json_null();
}

json_t *summary_api_json(const trace *t, const trace_summary *s, const char *run) {
    json_t *devs = json_array(), *streams = json_array(), *names = json_array();
    for (size_t i = 0; i < s->ndevices; i++) json_array_append_new(devs, lane_json(t, &s->devices[i], true));
    for (size_t i = 0; i < s->nstreams; i++) json_array_append_new(streams, lane_json(t, &s->streams[i], false));
    for (size_t i = 0; i < s->nnames; i++) {
        const tsum_name *m = &s->names[i];
        json_array_append_new(names, json_pack("{s:s, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:o}",
            "name", str(t, m->name), "count", (json_int_t)m->count, "total_ns", (json_int_t)m->total,
            "mean_ns", m->mean, "p50_ns", (json_int_t)m->p50, "p95_ns", (json_int_t)m->p95,
            "min_ns", (json_int_t)m->min, "max_ns", (json_int_t)m->max,
            "share", share(m->total, s->kernel_time)));
    }
    const tsum_dist *l = &s->launch;
    json_t *launch = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "count", (json_int_t)l->count,
                               "min_ns", opt_int(l->count, l->min), "p50_ns", opt_int(l->count, l->p50),
                               "p95_ns", opt_int(l->count, l->p95), "p99_ns", opt_int(l->count, l->p99),
                               "max_ns", opt_int(l->count, l->max),
                               "mean_ns", l->count ? json_real(l->mean) : json_null());
    json_t *comm = json_pack("{s:I, s:I, s:o}", "total_ns", (json_int_t)s->comm, "overlapped_ns",
                             (json_int_t)s->comm_overlapped, "overlap_share",
                             share(s->comm_overlapped, s->comm));
    return json_pack("{s:o, s:I, s:o, s:o, s:o, s:o, s:o}", "run", run ? json_string(run) : json_null(),
                     "kernel_time_ns", (json_int_t)s->kernel_time, "devices", devs, "streams", streams,
                     "kernels", names, "launch_delay", launch, "communication", comm);
}

void summary_api_get(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    db *d = api_db_acquire(a, res);
    if (!d) return;
    trace t;
    trace_init(&t);
    char err[512];
    int rc = db_load_run(d, req->params[0], DB_LOAD_KERNELS | DB_LOAD_COPIES, &t, err, sizeof err);
    api_db_release(a, d);
    if (rc == DB_NOT_FOUND) http_set_error(res, 404, "no run named \"%s\"", req->params[0]);
    else if (rc) http_set_error(res, 500, "%s", err);
    if (rc) {
        trace_free(&t);
        return;
    }
    trace_summary s;
    json_t *j = NULL;
    if (trace_summarize(&t, &s) == 0) {
        j = summary_api_json(&t, &s, req->params[0]);
        trace_summary_free(&s);
    }
    trace_free(&t);
    if (!j) {
        http_set_error(res, 500, "out of memory");
        return;
    }
    http_set_json(res, 200, j);
}
