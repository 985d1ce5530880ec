/* api.c -- the read handlers of docs/api.md (api_handlers.h): arguments
 * in, JSON out. The context they share is api_ctx.c, the route table
 * routes.c; what stores runs is server/app/store.c, shared with the CLI. */
#include "api_handlers.h"
#include "api_ctx.h"
#include "replay.h"
#include "replay_devices.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../simcore/sim.h"
#include "../../importers/jsonr.h"
#include "../../importers/trace_check.h"
#include "budget.h"
#include "device_json.h"
#include "idset.h"
#include "jobs.h"
#include "store.h"
#include "seed_bg.h"
#include "sweep_api.h"
#include "queue_bins.h"
#include "record_pages.h"
#include "stream_bins.h"
#include "trace_json.h"
#include "task_bounds.h"
#include "task_stats.h"
#include "window.h"
#include "occupancy.h"
#include "experiments_edit.h"
#include "compare_cache.h"

#define BLOCKS_MAX_DEFAULT 20000
#define BLOCKS_MAX_CEILING 200000   /* a response of at most some 15 MB */
#define COMPARE_MAX_RUNS 8

/* ---- small JSON helpers ----------------------------------------------------------- */

static json_t *jtime(int64_t v) { return v == TRACE_NONE ? json_null() : json_integer(v); }

static void db_error(http_response *res, int rc, const char *err) {
    http_set_error(res, rc == DB_NOT_FOUND ? 404 : 500, "%s", err);
}

static json_t *summary_json(const db_summary *s) {
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:i}", "kernels",
                     (json_int_t)s->kernels, "blocks", (json_int_t)s->blocks, "copies",
                     (json_int_t)s->copies, "queue_events", (json_int_t)s->queue_events,
                     "warp_issues", (json_int_t)s->warp_issues, "jobs", (json_int_t)s->jobs,
                     "t_min", jtime(s->t_min), "t_max", jtime(s->t_max), "sms", (int)s->sms);
    /* runs whose CPU tasks can be held only (their host's calls: /host_calls) */
    if (o && s->host_calls > 0) json_object_set_new(o, "host_calls", json_integer((json_int_t)s->host_calls));
    /* runs with QoS goals only (ISCA'17 quota policies) */
    if (o && s->qos_kernels > 0) {
        json_object_set_new(o, "qos_kernels", json_integer((json_int_t)s->qos_kernels));
        json_object_set_new(o, "qos_met", json_integer((json_int_t)s->qos_met));
        json_object_set_new(o, "nonqos_throughput", isfinite(s->nonqos_throughput)
                                                        ? json_real(s->nonqos_throughput)
                                                        : json_null());
    }
    return o;
}

/* A query argument as an integer; false (with a 400 in res) when malformed.
 * `unit`: what it counts ("ns", "cycles"), NULL for a count (max, bins), so
 * the message asks for what the argument is. */
static bool q_i64(const http_request *req, http_response *res, const char *key, int64_t *out,
                  bool *given, const char *unit) {
    const char *v = http_query(req, key);
    *given = v != NULL;   /* never empty: http.c's query_check refuses that */
    if (!*given) return true;
    int64_t x;
    if (!http_parse_int(v, &x)) {
        if (unit)
            http_set_error(res, 400, "%s: expected an integer number of %s, got \"%s\"", key,
                           unit, v);
        else
            http_set_error(res, 400, "%s: expected a whole number, got \"%s\"", key, v);
        return false;
    }
    *out = x;
    return true;
}

/* ---- experiments ---------------------------------------------------------------------- */

typedef struct exp_ctx {
    db *d;
    json_t *list;       /* experiments being built */
    bool full;          /* one experiment: scenario + run summaries */
    bool no_scenario;   /* ?scenario=0: all but the scenario text (issue 15) */
    char err[512];
} exp_ctx;

static int run_brief(void *ctx, const db_run *r) {
    json_t *runs = ctx;
    json_t *o = json_pack("{s:s, s:o, s:s, s:I}", "run", r->slug, "name", tj_string(r->name),
                          "source", r->source, "version", (json_int_t)r->version);
    return json_array_append_new(runs, o);
}

static int run_full(void *ctx, const db_run *r) {
    json_t *runs = ctx;
    json_t *o = json_pack("{s:s, s:o, s:s, s:s, s:o}", "run", r->slug, "name",
                          tj_string(r->name), "source", r->source, "created", r->created,
                          "summary", summary_json(&r->summary));
    return json_array_append_new(runs, o);
}

static int on_experiment(void *vctx, const db_experiment *e) {
    exp_ctx *c = vctx;
    json_t *runs = json_array();
    json_t *o = json_pack("{s:s, s:o, s:o, s:s, s:s, s:o}", "slug", e->slug, "name",
                          tj_string(e->name), "description", tj_string(e->description),
                          "created", e->created, "source", e->source, "runs", runs);
    if (!o) return -1;
    json_array_append_new(c->list, o);
    if (c->full) {
        /* a page after the name and the runs (the run and compare views) skips
         * parsing and re-encoding a scenario of up to a few MB */
        json_t *scn = e->scenario_json && !c->no_scenario ? json_loads(e->scenario_json, 0, NULL) : NULL;
        if (!c->no_scenario) json_object_set_new(o, "scenario", scn ? scn : json_null());
        json_object_set_new(o, "scenario_file", tj_string(e->scenario_file));
    }
    return db_list_runs(c->d, e->slug, c->full ? run_full : run_brief, runs, c->err,
                        sizeof c->err);
}

void h_experiments(void *app, const http_request *req, http_response *res) {
    (void)req;
    api_ctx *a = app;
    db *d = api_db_acquire(a, res);
    if (!d) return;
    exp_ctx c = {.d = d, .list = json_array()};
    int rc = db_list_experiments(d, on_experiment, &c, c.err, sizeof c.err);
    if (rc) { json_decref(c.list); db_error(res, rc, c.err); }
    else http_set_json(res, 200, json_pack("{s:o}", "experiments", c.list));
    api_db_release(a, d);
}

void h_experiment(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    const char *scn = http_query(req, "scenario");
    if (scn && strcmp(scn, "0") != 0 && strcmp(scn, "1") != 0) {
        http_set_error(res, 400, "scenario: expected 0 (leave the scenario out) or 1, got \"%s\"", scn);
        return;
    }
    db *d = api_db_acquire(a, res);
    if (!d) return;
    exp_ctx c = {.d = d, .list = json_array(), .full = true, .no_scenario = scn && strcmp(scn, "0") == 0};
    int rc = db_get_experiment(d, req->params[0], on_experiment, &c, c.err, sizeof c.err);
    if (rc == DB_NOT_FOUND) http_set_error(res, 404, "no experiment named \"%s\"", req->params[0]);
    else if (rc) db_error(res, rc, c.err);
    /* each run's version and the experiment's versions (issue 15) */
    else if (expedit_annotate(d, json_array_get(c.list, 0), c.err, sizeof c.err)) db_error(res, -1, c.err);
    else http_set_json(res, 200, json_incref(json_array_get(c.list, 0)));
    json_decref(c.list);
    api_db_release(a, d);
}

/* POST /api/experiments and /api/imports are in writes.c (budget, jobs). */

/* ---- runs --------------------------------------------------------------------------------- */

typedef struct run_ctx {
    json_t *obj;
    db_run run;      /* copied scalars only: strings are gone after the callback */
} run_ctx;

static int meta_pair(void *ctx, const char *k, const char *v) {
    return json_object_set_new(ctx, k, tj_string(v));
}

static int on_run(void *vctx, const db_run *r) {
    run_ctx *c = vctx;
    c->run = *r;
    c->obj = json_pack("{s:s, s:o, s:s, s:s, s:s, s:o, s:I, s:o}", "run", r->slug, "name",
                       tj_string(r->name), "experiment", r->experiment, "source", r->source,
                       "created", r->created, "device",
                       r->has_device ? tj_device_json(&r->device) : json_null(), "origin",
                       (json_int_t)r->origin, "summary", summary_json(&r->summary));
    if (c->obj) json_object_set_new(c->obj, "trace_name", tj_string(r->trace_name));
    return c->obj ? 0 : -1;
}

/* Look the run up; false (with 404/500 in res) when it cannot be had. */
static bool get_run(db *d, const char *slug, run_ctx *c, http_response *res) {
    char err[512];
    memset(c, 0, sizeof *c);
    int rc = db_get_run(d, slug, on_run, c, err, sizeof err);
    if (rc == DB_NOT_FOUND) { http_set_error(res, 404, "no run named \"%s\"", slug); return false; }
    if (rc) { json_decref(c->obj); http_set_error(res, 500, "%s", err); return false; }
    return true;
}

void h_run(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    db *d = api_db_acquire(a, res);
    if (!d) return;
    run_ctx c;
    if (get_run(d, req->params[0], &c, res)) {
        json_t *meta = json_object();
        char err[512];
        int rc = db_run_meta(d, req->params[0], meta_pair, meta, err, sizeof err);
        json_object_set_new(c.obj, "meta", meta);
        /* a trace of several GPUs: each, as "device" is (DESIGN §5) */
        trace g;
        trace_init(&g);
        if (!rc) rc = db_run_gpus(d, req->params[0], &g, err, sizeof err);
        if (!rc && g.devices.n) {
            json_t *list = json_array();
            for (size_t i = 0; list && i < g.devices.n; i++)
                json_array_append_new(list, tj_device_json(&g.devices.v[i]));
            json_object_set_new(c.obj, "devices", list);
        }
        trace_free(&g);
        if (rc) { json_decref(c.obj); http_set_error(res, 500, "%s", err); }
        else http_set_json(res, 200, c.obj);
    }
    api_db_release(a, d);
}

/* Load `part` of the run the URL names into t; false, with the 404 or 500
 * already in res, when it cannot be. */
static bool load_url_run(db *d, const http_request *req, unsigned part, trace *t,
                         http_response *res) {
    char err[512];
    int rc = db_load_run(d, req->params[0], part, t, err, sizeof err);
    if (rc == DB_NOT_FOUND) http_set_error(res, 404, "no run named \"%s\"", req->params[0]);
    else if (rc) http_set_error(res, 500, "%s", err);
    return rc == 0;
}

/* kernels / copies / jobs / host_calls: the records as the trace export
 * writes them */
/* Lists of at least this many records are streamed (http_set_stream). */
#define RECORDS_STREAM_MIN 4096

/* The list's text from record *i on, until `until` bytes are pending or it
 * is complete (the head goes out with record 0, the tail after record n).
 * Returns 1 while there is more, 0 when done, -1 on OOM. */
static int rs_fill_some(jw_buf *b, const trace *t, unsigned part, const char *key, size_t *i,
                        size_t n, size_t until) {
    if (*i == 0) {
        tj_puts(b, "{\"");
        tj_puts(b, key);
        tj_puts(b, "\":[");
    }
    /* at least one record a call: the head is never written twice */
    for (bool first = true; *i < n && (first || jw_pending(b) < until); (*i)++, first = false) {
        if (*i) tj_putc(b, ',');
        if (part == DB_LOAD_KERNELS) tj_put_kernel(b, t, *i);
        else if (part == DB_LOAD_COPIES) tj_put_copy(b, t, *i);
        else if (part == DB_LOAD_HOST_CALLS) tj_put_host_call(b, t, *i);
        else tj_put_job(b, t, *i);
    }
    if (*i == n) {
        tj_puts(b, "]}");
        (*i)++;   /* past the end: done */
    }
    if (b->oom) return -1;
    return *i > n ? 0 : 1;
}

typedef struct record_stream {
    trace t;
    unsigned part;
    const char *key;    /* static */
    size_t i, n;
} record_stream;

static int record_stream_fill(void *ctx, jw_buf *w) {
    record_stream *rs = ctx;
    if (rs->i > rs->n) return 0;
    return rs_fill_some(w, &rs->t, rs->part, rs->key, &rs->i, rs->n,
                        jw_pending(w) + HTTP_STREAM_CHUNK);
}

static void record_stream_free(void *ctx) {
    record_stream *rs = ctx;
    trace_free(&rs->t);
    free(rs);
}

static size_t trace_bytes(const trace *t);

static void list_records(void *app, const http_request *req, http_response *res, unsigned part,
                         const char *key) {
    api_ctx *a = app;
    db *d = api_db_acquire(a, res);
    if (!d) return;
    trace t;
    trace_init(&t);
    if (load_url_run(d, req, part, &t, res)) {
        size_t n = part == DB_LOAD_KERNELS ? t.kernels.n : part == DB_LOAD_COPIES ? t.copies.n
                 : part == DB_LOAD_HOST_CALLS ? t.host_calls.n : t.jobs.n;
        record_stream *rs = n >= RECORDS_STREAM_MIN ? malloc(sizeof *rs) : NULL;
        if (rs) {
            /* a big run's list (a 1 M-row import): streamed, never whole */
            *rs = (record_stream){.t = t, .part = part, .key = key, .n = n};
            trace_init(&t);
            http_set_stream(res, 200, "application/json", record_stream_fill,
                            record_stream_free, rs);
            http_stream_cost(res, sizeof *rs + trace_bytes(&rs->t));
        } else {
            tj_buf b = {0};
            rs_fill_some(&b, &t, part, key, &(size_t){0}, n, SIZE_MAX);
            http_set_buf(res, 200, &b, "application/json");
        }
    }
    trace_free(&t);
    api_db_release(a, d);
}

static bool window_args(const http_request *req, http_response *res, int64_t *from,
                        bool *has_from, int64_t *to, bool *has_to, int64_t *max, int64_t max_lo);

/* A window read of a run (window_blocks, sbin_kernels, ...): the
 * arguments window_args parsed, the answer into res */
typedef void (*window_read_fn)(db *d, const http_request *req, const char *run, int64_t from,
                               bool has_from, int64_t to, bool has_to, int64_t max,
                               http_response *res);

/* The window routes' one flow: ?from=&to=&max= (max at least max_lo),
 * then `rd` on a pooled connection */
static void windowed(void *app, const http_request *req, http_response *res, int64_t max_lo,
                     window_read_fn rd) {
    api_ctx *a = app;
    int64_t from = 0, to = 0, max = BLOCKS_MAX_DEFAULT;
    bool has_from, has_to;
    if (!window_args(req, res, &from, &has_from, &to, &has_to, &max, max_lo)) return;
    db *d = api_db_acquire(a, res);
    if (!d) return;
    rd(d, req, req->params[0], from, has_from, to, has_to, max, res);
    api_db_release(a, d);
}

/* GET /kernels or /copies: every record (list_records: part, key); with
 * from, to or max a window's records or its bins past max (rows) */
static void windowed_records(void *app, const http_request *req, http_response *res,
                             unsigned part, const char *key, window_read_fn rows) {
    /* ?offset=&limit=&sort=&order=&name=: a page of the run view's table
     * (record_pages.c) */
    if (rpage_wanted(req)) {
        api_ctx *a = app;
        db *d = api_db_acquire(a, res);
        if (!d) return;
        rpage_records(d, req, req->params[0], part == DB_LOAD_COPIES, res);
        api_db_release(a, d);
        return;
    }
    if (!http_query(req, "from") && !http_query(req, "to") && !http_query(req, "max")) {
        list_records(app, req, res, part, key);
        return;
    }
    windowed(app, req, res, 0, rows);
}
/* GET /kernels: every kernel (DESIGN §5); with from, to or max a window's
 * kernels or per-stream bins past max (stream_bins.c, issue 9) */
void h_kernels(void *app, const http_request *req, http_response *res) {
    windowed_records(app, req, res, DB_LOAD_KERNELS, "kernels", sbin_kernels);
}
/* GET /copies: every copy (DESIGN §5); with from, to or max a window's
 * copies or per-engine copy bins past max (stream_bins.c, issue 9) */
void h_copies(void *app, const http_request *req, http_response *res) {
    windowed_records(app, req, res, DB_LOAD_COPIES, "copies", sbin_copies);
}
void h_jobs(void *app, const http_request *req, http_response *res) {
    list_records(app, req, res, DB_LOAD_JOBS, "jobs");
}

/* GET /host_calls: the host's calls of a run whose CPU tasks can be held
 * (docs/trace-format.md "host_calls": each op's task and scripted time, the
 * syncs with when they were called and returned); [] for any other run. A
 * stored run never changes: named by its slug (never reused), kept by the
 * client as /blocks is. */
void h_host_calls(void *app, const http_request *req, http_response *res) {
    list_records(app, req, res, DB_LOAD_HOST_CALLS, "host_calls");
    if (res->status != 200) return;
    snprintf(res->etag, sizeof res->etag, "\"%s.hc1\"", req->params[0]);
    res->cache_control = IDSET_IMMUTABLE;
}

/* GET /tasks?bins=N: per-task response-time statistics and histogram of a
 * run with real-time tasks (task_stats.h, issue 27) */
void h_task_stats(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    int bins = TASK_STATS_BINS_DEFAULT;
    const char *q = http_query(req, "bins");
    if (q) {
        int64_t v;
        if (!http_parse_int(q, &v) || v < 1 || v > TASK_STATS_BINS_MAX) {
            http_set_error(res, 400, "bins: expected a whole number 1..%d", TASK_STATS_BINS_MAX);
            return;
        }
        bins = (int)v;
    }
    db *d = api_db_acquire(a, res);
    if (!d) return;
    trace t;
    trace_init(&t);
    if (load_url_run(d, req, DB_LOAD_JOBS, &t, res)) {
        json_t *o = task_stats_json(&t, bins);
        if (o) http_set_json(res, 200, o);   /* steals o */
        else http_set_error(res, 500, "out of memory");
    }
    trace_free(&t);
    api_db_release(a, d);
}

/* The warp-level records of a run (issue 11): its warp issues with cycles in
 * [from, to), at most `max` of them, and every per-epoch count of issue
 * slots. ?from=&to= are cycles (default: all); max defaults to 100000. */
#define WARPS_MAX_DEFAULT 100000
#define WARPS_MAX_CEILING 1000000
void h_warps(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    int64_t from = 0, to = INT64_MAX, max = WARPS_MAX_DEFAULT;
    bool has_from, has_to, has_max;
    if (!q_i64(req, res, "from", &from, &has_from, "cycles") ||
        !q_i64(req, res, "to", &to, &has_to, "cycles") ||
        !q_i64(req, res, "max", &max, &has_max, NULL))
        return;
    if (max < 0 || max > WARPS_MAX_CEILING) {
        http_set_error(res, 400, "max: %" PRId64 " is out of range (0..%d)", max,
                       WARPS_MAX_CEILING);
        return;
    }
    if (has_to && to <= from) {
        http_set_error(res, 400, "to: %" PRId64 " is not after from (%" PRId64 ")", to, from);
        return;
    }
    db *d = api_db_acquire(a, res);
    if (!d) return;
    trace t;
    trace_init(&t);
    if (load_url_run(d, req, DB_LOAD_WARP_ISSUES, &t, res)) {
        tj_buf b = {0};
        size_t total = 0, shown = 0;
        for (size_t i = 0; i < t.warp_issues.n; i++)
            total += t.warp_issues.v[i].cycle >= from && t.warp_issues.v[i].cycle < to;
        tj_puts(&b, "{\"from\":");
        tj_put_i64(&b, from);
        tj_puts(&b, ",\"to\":");
        if (has_to) tj_put_i64(&b, to);
        else tj_puts(&b, "null");
        tj_puts(&b, ",\"total\":");
        tj_put_i64(&b, (int64_t)total);
        tj_puts(&b, (int64_t)total > max ? ",\"truncated\":true" : ",\"truncated\":false");
        tj_puts(&b, ",\"warp_issues\":[");
        for (size_t i = 0; i < t.warp_issues.n && (int64_t)shown < max; i++) {
            const trace_warp_issue *w = &t.warp_issues.v[i];
            if (w->cycle < from || w->cycle >= to) continue;
            if (shown++) tj_putc(&b, ',');
            tj_put_warp_issue(&b, w);
        }
        tj_puts(&b, "],\"warp_epochs\":[");
        for (size_t i = 0; i < t.warp_epochs.n; i++) {
            if (i) tj_putc(&b, ',');
            tj_put_warp_epoch(&b, &t.warp_epochs.v[i]);
        }
        tj_puts(&b, "]}");
        http_set_buf(res, 200, &b, "application/json");
    }
    trace_free(&t);
    api_db_release(a, d);
}

/* The window arguments of /blocks and /occupancy: from, to (times within
 * +-2^62, as every stored time is, so to - from cannot overflow) and max in
 * max_lo..BLOCKS_MAX_CEILING. false: the 400 is in res. */
static bool window_args(const http_request *req, http_response *res, int64_t *from,
                        bool *has_from, int64_t *to, bool *has_to, int64_t *max, int64_t max_lo) {
    bool has_max;
    if (!q_i64(req, res, "from", from, has_from, "ns") ||
        !q_i64(req, res, "to", to, has_to, "ns") || !q_i64(req, res, "max", max, &has_max, NULL))
        return false;
    if (has_max && (*max < max_lo || *max > BLOCKS_MAX_CEILING)) {
        http_set_error(res, 400, "max: %" PRId64 " is out of range (%" PRId64 "..%d)", *max,
                       max_lo, BLOCKS_MAX_CEILING);
        return false;
    }
    bool bad_from = *has_from && (*from <= -IMP_MAX_TIME || *from >= IMP_MAX_TIME);
    if (bad_from || (*has_to && (*to <= -IMP_MAX_TIME || *to >= IMP_MAX_TIME))) {
        http_set_error(res, 400, "%s: %" PRId64 " ns is out of range (times are within +-2^62 ns)",
                       bad_from ? "from" : "to", bad_from ? *from : *to);
        return false;
    }
    return true;
}

void h_blocks(void *app, const http_request *req, http_response *res) {
    /* window.c: one bounded scan of a covering index, or the pyramid's bins */
    windowed(app, req, res, 0, window_blocks);
}

/* GET /api/runs/{run}/occupancy: /blocks' bins of some kernels (occupancy.c) */
static void occupancy_read(db *d, const http_request *req, const char *run, int64_t from,
                           bool has_from, int64_t to, bool has_to, int64_t max,
                           http_response *res) {
    occupancy_bins(d, req, run, from, has_from, to, has_to, max, http_query(req, "kernels"), res);
}
void h_occupancy(void *app, const http_request *req, http_response *res) {
    windowed(app, req, res, 1, occupancy_read);
}

/* GET /api/runs/{run}/streams: per-stream busy bins of some kernel names
 * (stream_bins.c, issue 9) */
static void streams_read(db *d, const http_request *req, const char *run, int64_t from,
                         bool has_from, int64_t to, bool has_to, int64_t max, http_response *res) {
    sbin_streams(d, req, run, from, has_from, to, has_to, max, http_query(req, "names"), res);
}
void h_streams(void *app, const http_request *req, http_response *res) {
    windowed(app, req, res, 1, streams_read);
}

void h_tiles(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    db *d = api_db_acquire(a, res);
    if (!d) return;
    window_tile_info(d, req->params[0], res);
    api_db_release(a, d);
}

void h_tile(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    db *d = api_db_acquire(a, res);
    if (!d) return;
    window_tile(d, req, req->params[0], req->params[1], req->params[2], res);
    api_db_release(a, d);
}

static int on_queue_state(void *ctx, const char *queue, const char *const *items, size_t n) {
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(arr, tj_string(items[i]));
    return json_array_append_new(ctx, json_pack("{s:o, s:o}", "queue", tj_string(queue),
                                                "items", arr));
}

static int on_queue_series(void *ctx, const char *queue, const int64_t *t, const int64_t *len,
                           size_t n) {
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, json_pack("[I, I]", (json_int_t)t[i], (json_int_t)len[i]));
    return json_array_append_new(ctx, json_pack("{s:o, s:o}", "queue", tj_string(queue),
                                                "series", arr));
}

void h_queues(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    int64_t at = 0, from = 0, to = 0, bins = 0;
    bool has_at, has_from, has_to, has_bins;
    if (!q_i64(req, res, "at", &at, &has_at, "ns") ||
        !q_i64(req, res, "from", &from, &has_from, "ns") ||
        !q_i64(req, res, "to", &to, &has_to, "ns") ||
        !q_i64(req, res, "bins", &bins, &has_bins, NULL))
        return;
    if (has_bins && (has_at || !has_from || !has_to)) {
        http_set_error(res, 400, "bins: needs from and to, and no at");
        return;
    }
    db *d = api_db_acquire(a, res);
    if (!d) return;
    if (has_bins) {   /* a window's lengths binned, from the queue pyramid (queue_bins.h) */
        queue_bins(d, req->params[0], from, to, bins, res);
        api_db_release(a, d);
        return;
    }
    json_t *queues = json_array();
    char err[512];
    int rc = has_at ? db_queue_state(d, req->params[0], at, on_queue_state, queues, err, sizeof err)
                    : db_queue_series(d, req->params[0], on_queue_series, queues, err, sizeof err);
    if (rc == DB_NOT_FOUND) { json_decref(queues); http_set_error(res, 404, "no run named \"%s\"", req->params[0]); }
    else if (rc) { json_decref(queues); db_error(res, rc, err); }
    else if (has_at) http_set_json(res, 200, json_pack("{s:I, s:o}", "at", (json_int_t)at, "queues", queues));
    else http_set_json(res, 200, json_pack("{s:o}", "queues", queues));
    api_db_release(a, d);
}

/* An export's file name (issue 15): "experiment-run" rather than the run's
 * slug, so a folder of downloads says what each file is. Only [A-Za-z0-9._-]
 * survive (anything else becomes one '_'), which keeps the quoted
 * Content-Disposition value free of quotes, slashes and control bytes; an
 * import's experiment named after the same file as its run is said once
 * (as the dashboard's title does). Falls back to the slug. */
static int export_name_run(void *ctx, const db_run *r) {
    char *out = ctx;   /* "experiment slug\0run name" scratch, 2 x 256 */
    snprintf(out, 256, "%s", r->experiment ? r->experiment : "");
    snprintf(out + 256, 256, "%s", r->name ? r->name : "");
    return 0;
}

static int export_name_exp(void *ctx, const db_experiment *e) {
    snprintf(ctx, 256, "%s", e->name ? e->name : "");
    return 0;
}

/* in -> out with only [A-Za-z0-9._-], other runs as one '_', no separator
 * at either end; at most 58 bytes (two of them and a '-' fit fname). */
static size_t export_clean(const char *in, char *out) {
    size_t o = 0;
    for (const char *p = in; *p && o < 58; p++) {
        unsigned char ch = (unsigned char)*p;
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                    ch == '.' || ch == '-' || ch == '_';
        if (keep) out[o++] = (char)ch;
        else if (o && out[o - 1] != '_') out[o++] = '_';
    }
    while (o && (out[o - 1] == '_' || out[o - 1] == '.' || out[o - 1] == '-')) o--;
    size_t lead = 0;
    while (lead < o && (out[lead] == '_' || out[lead] == '.' || out[lead] == '-')) lead++;
    memmove(out, out + lead, o - lead);
    out[o - lead] = '\0';
    return o - lead;
}

static void export_name(db *d, const char *slug, char *out, size_t n) {
    char run[512] = {0}, exp[256] = {0}, err[256], ce[59], cr[59];
    snprintf(out, n, "%s", slug);
    if (db_get_run(d, slug, export_name_run, run, err, sizeof err) || !run[256]) return;
    if (run[0] && db_get_experiment(d, run, export_name_exp, exp, err, sizeof err)) exp[0] = '\0';
    size_t el = strlen(exp), rl = strlen(run + 256);
    bool same = el >= rl && strcmp(exp + el - rl, run + 256) == 0;
    size_t e = same ? 0 : export_clean(exp, ce);
    size_t r = export_clean(run + 256, cr);
    if (e && r) snprintf(out, n, "%s-%s", ce, cr);
    else if (e || r) snprintf(out, n, "%s", e ? ce : cr);
}

/* GET /api/runs/{run}/export streamed (issue 31): everything but the blocks
 * loaded, the blocks read EXPORT_BATCH at a time as the client takes the
 * text, each batch on a pooled connection taken for that read alone, so a
 * slow reader holds a batch (and no connection), never the run. */
#define EXPORT_BATCH ((size_t)16 * 256)   /* 16 block pages, 128 KiB */

typedef struct export_stream {
    api_ctx *a;
    char slug[DB_SLUG_SIZE + 1];
    int64_t seq;            /* the next block to read */
    bool end;
    trace t;                /* the run without its blocks */
    bool chrome;
    tj_block_src src;
    tj_stream s;        /* format=trace */
    tj_chrome c;        /* format=chrome */
    trace_block batch[EXPORT_BATCH];
} export_stream;

static int export_next_blocks(void *ctx, const trace_block **v, size_t *n) {
    export_stream *es = ctx;
    *v = es->batch;
    *n = 0;
    if (es->end) return 0;
    db *d;
    char err[512];
    if (api_db_get(es->a, &d, err, sizeof err)) {
        fprintf(stderr, "schedlab: export of run %s: %s\n", es->slug, err);
        return -1;
    }
    int rc = db_read_blocks(d, es->slug, es->seq, es->batch, EXPORT_BATCH, n, err, sizeof err);
    api_db_release(es->a, d);
    if (rc) {
        /* the status line is long gone: the client sees the text cut short */
        fprintf(stderr, "schedlab: export of run %s: %s\n", es->slug, err);
        return -1;
    }
    es->seq += (int64_t)*n;
    if (*n < EXPORT_BATCH) es->end = true;
    return 0;
}

static int export_stream_fill(void *ctx, jw_buf *w) {
    export_stream *es = ctx;
    size_t until = jw_pending(w) + HTTP_STREAM_CHUNK;
    return es->chrome ? tj_chrome_step(&es->c, w, until) : tj_stream_step(&es->s, w, until);
}

static void export_stream_free(void *ctx) {
    export_stream *es = ctx;
    if (es->chrome) tj_chrome_free(&es->c);
    trace_free(&es->t);
    free(es);
}

/* What a loaded trace holds in memory, roughly: its arrays as allocated and
 * its strings (answer_mem.h counts it). */
static size_t trace_bytes(const trace *t) {
    size_t b = t->kernels.cap * sizeof *t->kernels.v + t->blocks.cap * sizeof *t->blocks.v +
               t->pauses.cap * sizeof *t->pauses.v + t->copies.cap * sizeof *t->copies.v +
               t->queue_events.cap * sizeof *t->queue_events.v +
               t->warp_issues.cap * sizeof *t->warp_issues.v +
               t->warp_epochs.cap * sizeof *t->warp_epochs.v + t->jobs.cap * sizeof *t->jobs.v +
               t->meta.cap * sizeof *t->meta.v + t->strs.cap * sizeof *t->strs.v;
    for (size_t i = 1; i < t->strs.n; i++) b += strlen(t->strs.v[i]) + 17;
    return b;
}

/* The highest SM of any block, read a batch at a time (the Chrome export
 * names the SM tracks before the blocks). */
static int export_top_sm(export_stream *es, int32_t *top) {
    *top = -1;
    for (;;) {
        const trace_block *v;
        size_t n;
        if (export_next_blocks(es, &v, &n)) return -1;
        if (!n) break;
        for (size_t i = 0; i < n; i++)
            if (v[i].sm > *top) *top = v[i].sm;
    }
    es->seq = 0;
    es->end = false;
    return 0;
}

void h_export(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    const char *format = http_query(req, "format");
    if (!format) format = "trace";
    bool chrome = strcmp(format, "chrome") == 0;
    if (!chrome && strcmp(format, "trace") != 0) {
        http_set_error(res, 400, "format: expected \"trace\" or \"chrome\", got \"%s\"", format);
        return;
    }
    if (strlen(req->params[0]) > DB_SLUG_SIZE) {
        http_set_error(res, 404, "no run named \"%s\"", req->params[0]);
        return;
    }
    export_stream *es = calloc(1, sizeof *es);
    if (!es) {
        http_set_error(res, 500, "out of memory writing the response");
        return;
    }
    es->a = a;
    snprintf(es->slug, sizeof es->slug, "%s", req->params[0]);
    es->chrome = chrome;
    es->src = (tj_block_src){.ctx = es, .next = export_next_blocks};
    trace_init(&es->t);
    db *d = api_db_acquire(a, res);
    if (!d) {
        export_stream_free(es);
        return;
    }
    bool ok = load_url_run(d, req, (DB_LOAD_ALL & ~(unsigned)DB_LOAD_BLOCKS) | DB_LOAD_PAUSES, &es->t,
                           res);
    char fname[120];   /* fits res->disposition with its quotes and suffix */
    if (ok) export_name(d, req->params[0], fname, sizeof fname);
    api_db_release(a, d);
    int32_t top = -1;
    if (ok && chrome && export_top_sm(es, &top)) {
        http_set_error(res, 500, "export of run \"%s\": cannot read its blocks", es->slug);
        ok = false;
    }
    if (!ok) {
        export_stream_free(es);
        return;
    }
    if (chrome && tj_chrome_init_src(&es->c, &es->t, &es->src, top)) {
        es->chrome = false;
        export_stream_free(es);
        http_set_error(res, 500, "out of memory writing the response");
        return;
    }
    if (!chrome) tj_stream_init(&es->s, &es->t, &es->src);
    size_t cost = sizeof *es + trace_bytes(&es->t);
    http_set_stream(res, 200, "application/json", export_stream_fill, export_stream_free, es);
    http_stream_cost(res, cost);
    snprintf(res->disposition, sizeof res->disposition, "attachment; filename=\"%s.%s.json\"",
             fname, chrome ? "chrome" : "trace");
}

/* What `schedlab replay RUN` prints (replay_devices.h replay_document):
 * the scenario a measured run replays as (replay.h), so the dashboard can
 * POST it to /api/experiments and re-simulate the hardware's workload, or
 * for a run of several GPUs the scenario of each; the same bytes. A run
 * that cannot be replayed on the device (a kernel that does not fit it) is
 * bad input: 400 with the CLI's words, as the replay job refuses it. */
void h_replay(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    const char *preset = http_query(req, "device");
    db *d = api_db_acquire(a, res);
    if (!d) return;
    trace t;
    trace_init(&t);
    bool ok = load_url_run(d, req, DB_LOAD_KERNELS | DB_LOAD_BLOCKS | DB_LOAD_COPIES, &t, res);
    api_db_release(a, d);
    if (ok) {
        char err[1024];
        char what[64];
        snprintf(what, sizeof what, "run %s", req->params[0]);
        json_t *doc = NULL;
        int rc = replay_document(&t, what, preset, &doc, err, sizeof err);
        char *text = rc == 0 ? replay_text(doc) : NULL;
        json_decref(doc);
        if (rc != 0) {
            http_set_error(res, rc > 0 ? 400 : 500, "%s", err);
        } else if (!text) {
            http_set_error(res, 500, "out of memory writing the response");
        } else {
            tj_buf b = {0};
            tj_puts(&b, text);
            free(text);
            http_set_buf(res, 200, &b, "application/json");
        }
    }
    trace_free(&t);
}

/* ---- compare ------------------------------------------------------------------------------- */

/* The answer is written with jw alone: the runs as they are read, the
 * kernel rows (the part compare_cache.h keeps, written once per set of runs
 * and put back as the value of "kernels") and the task rows from the rows
 * below; the bytes are those jansson's json_dumps(JSON_COMPACT |
 * JSON_REAL_PRECISION(10)) wrote before. A null cell is TRACE_NONE. */

/* Rows matched across runs by a string key; the key interned in `keys`
 * gives the row (ids are dense from 1 because only keys are interned). */
typedef struct rows {
    trace keys;
    void *v;            /* rows of `size` bytes: cmp_trow (tasks) or cmp_krow */
    size_t n, cap, size;
    bool tasks;
} rows;

/* A row of the kernel table: the kernel's name and stream (as the first
 * run that has it names them) and, per run, its issue, start (first block)
 * and end; `seen` marks the runs that have it. The response is written
 * from them (kernel_rows_text), one definition for the whole row. */
typedef struct cmp_krow {
    char *name, *stream;
    int64_t issue[COMPARE_MAX_RUNS], start[COMPARE_MAX_RUNS], end[COMPARE_MAX_RUNS];
    bool seen[COMPARE_MAX_RUNS];
} cmp_krow;

/* A row of the task table: per run its jobs, its worst, mean (the sum of
 * responses until the run's jobs are all read) and best response, its
 * deadline misses and its analysis bound. */
typedef struct cmp_trow {
    char *task;
    int64_t jobs[COMPARE_MAX_RUNS], max[COMPARE_MAX_RUNS], min[COMPARE_MAX_RUNS],
        misses[COMPARE_MAX_RUNS], bound[COMPARE_MAX_RUNS];
    double mean[COMPARE_MAX_RUNS];
    bool has_mean[COMPARE_MAX_RUNS];
} cmp_trow;

static void cells_none(int64_t *v) {
    for (size_t i = 0; i < COMPARE_MAX_RUNS; i++) v[i] = TRACE_NONE;
}

/* The row of `key`: a new one (label and extra kept, every cell null)
 * the first time; NULL when out of memory. */
static void *row_for(rows *r, const char *key, const char *label, const char *extra) {
    trace_str id = trace_intern(&r->keys, key);
    if (!id) return NULL;
    if (id - 1 < r->n) return (char *)r->v + (id - 1) * r->size;
    if (id - 1 != r->n) return NULL;   /* a row that could not be made before */
    if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 64;
        void *nv = realloc(r->v, nc * r->size);
        if (!nv) return NULL;
        r->v = nv;
        r->cap = nc;
    }
    char *lab = strdup(label), *ext = extra ? strdup(extra) : NULL;
    if (!lab || (extra && !ext)) {
        free(lab);
        free(ext);
        return NULL;
    }
    void *row = (char *)r->v + r->n * r->size;
    if (!r->tasks) {
        cmp_krow *k = row;
        *k = (cmp_krow){.name = lab, .stream = ext};
        cells_none(k->issue);
        cells_none(k->start);
        cells_none(k->end);
    } else {
        cmp_trow *t = row;
        *t = (cmp_trow){.task = lab};
        free(ext);
        cells_none(t->jobs);
        cells_none(t->max);
        cells_none(t->min);
        cells_none(t->misses);
        cells_none(t->bound);
    }
    r->n++;
    return row;
}

/* "k":[cells of the nruns runs] */
static void put_cells(jw_buf *w, const char *k, const int64_t *v, size_t nruns) {
    jw_key(w, k);
    jw_arr(w);
    for (size_t i = 0; i < nruns; i++) {
        if (v[i] == TRACE_NONE) jw_null(w);
        else jw_i64(w, v[i]);
    }
    jw_end(w);
}

/* The kernel rows as the array compare_cache.h keeps (malloc'd; NULL when
 * out of memory). A row compares one quantity in every run (docs/api.md):
 * the response from the issue (end - issue) where each run that has the
 * kernel knows its issue, else from the first block (end - first_block) in
 * all of them. A measured kernel launched before the profiler's window
 * has no issue time (the DLRM rank-1 PyTorch trace's 64), while its replay
 * always has one: end - issue against end - first_block would count the
 * launch latency on one side only. */
static char *kernel_rows_text(const rows *kr, size_t nruns, size_t *len) {
    jw_buf w = {0};
    jw_arr(&w);
    for (size_t i = 0; i < kr->n; i++) {
        const cmp_krow *k = (const cmp_krow *)kr->v + i;
        bool from_issue = true;
        for (size_t r = 0; r < nruns; r++)
            if (k->seen[r] && k->issue[r] == TRACE_NONE) from_issue = false;
        int64_t response[COMPARE_MAX_RUNS];
        for (size_t r = 0; r < nruns; r++) {
            int64_t from = from_issue ? k->issue[r] : k->start[r];
            response[r] = k->seen[r] && k->end[r] != TRACE_NONE && from != TRACE_NONE
                              ? k->end[r] - from
                              : TRACE_NONE;
        }
        jw_obj(&w);
        jw_kv_str(&w, "name", k->name);
        jw_kv_str(&w, "stream", k->stream);
        put_cells(&w, "response", response, nruns);
        jw_kv_str(&w, "response_from", from_issue ? "issue" : "first_block");
        put_cells(&w, "start", k->start, nruns);
        put_cells(&w, "end", k->end, nruns);
        jw_end(&w);
    }
    jw_end(&w);
    return jw_take(&w, len);
}

static void put_task_rows(jw_buf *w, const rows *tr, size_t nruns) {
    jw_arr(w);
    for (size_t i = 0; i < tr->n; i++) {
        const cmp_trow *t = (const cmp_trow *)tr->v + i;
        jw_obj(w);
        jw_kv_str(w, "task", t->task);
        put_cells(w, "jobs", t->jobs, nruns);
        put_cells(w, "max_response", t->max, nruns);
        jw_key(w, "mean_response");
        jw_arr(w);
        for (size_t r = 0; r < nruns; r++) {
            if (t->has_mean[r]) jw_f64_prec(w, t->mean[r], 10);
            else jw_null(w);
        }
        jw_end(w);
        put_cells(w, "min_response", t->min, nruns);
        put_cells(w, "deadline_misses", t->misses, nruns);
        put_cells(w, "bound", t->bound, nruns);
        jw_end(w);
    }
    jw_end(w);
}

static void rows_free(rows *r) {
    for (size_t i = 0; i < r->n; i++) {
        if (!r->tasks) {
            cmp_krow *k = (cmp_krow *)r->v + i;
            free(k->name);
            free(k->stream);
        } else {
            free(((cmp_trow *)r->v + i)->task);
        }
    }
    free(r->v);
    trace_free(&r->keys);
}

void h_compare(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    const char *list = http_query(req, "runs");
    char slugs[COMPARE_MAX_RUNS][64];
    size_t nruns = 0, given = 0;
    /* (never empty: http.c's query_check) */
    for (const char *p = list; p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (!l) {
            /* "a,,b", "a,b,", ",a": a run id left out, not skipped (the
             * answer would compare other runs than asked, each column in
             * another place) */
            http_set_error(res, 400, "runs: run id %zu (at character %zu) is empty; separate the "
                           "ids with one comma", given + 1, (size_t)(p - list) + 1);
            return;
        }
        given++;
        if (nruns < COMPARE_MAX_RUNS) {
            /* an id longer than any run's names no run: a 404, as any
             * unknown id, not "too many" */
            if (l >= sizeof slugs[0]) {
                http_set_error(res, 404, "no run named \"%.*s...\"", 40, p);
                return;
            }
            memcpy(slugs[nruns], p, l);
            slugs[nruns++][l] = '\0';
        }
        p = e ? e + 1 : NULL;
    }
    if (given > COMPARE_MAX_RUNS) {
        http_set_error(res, 400, "runs: %zu run ids, at most %d may be compared at once", given,
                       COMPARE_MAX_RUNS);
        return;
    }
    if (nruns < 1) { http_set_error(res, 400, "runs: give run ids, e.g. ?runs=a,b"); return; }
    char experiments[COMPARE_MAX_RUNS][64];
    db *d = api_db_acquire(a, res);
    if (!d) return;
    /* the answer: {"runs":[...],"kernels":[...],"tasks":[...]} */
    jw_buf b = {0};
    rows kr = {.size = sizeof(cmp_krow)}, tr = {.size = sizeof(cmp_trow), .tasks = true};
    trace_init(&kr.keys);
    trace_init(&tr.keys);
    /* the kernel table's cache key: each run by slug and creation time
     * (compare_cache.h) */
    char ckey[COMPARE_MAX_RUNS * 96] = "";
    char *ctext = NULL;
    size_t clen = 0;
    jw_obj(&b);
    jw_key(&b, "runs");
    jw_arr(&b);
    for (size_t r = 0; r < nruns; r++) {
        run_ctx c;
        char *experiment = experiments[r];
        if (!get_run(d, slugs[r], &c, res)) goto done;
        const char *created = json_string_value(json_object_get(c.obj, "created"));
        const char *name = json_string_value(json_object_get(c.obj, "name"));
        size_t kl = strlen(ckey);
        snprintf(ckey + kl, sizeof ckey - kl, "%s@%s;", slugs[r], created ? created : "");
        const char *e = json_string_value(json_object_get(c.obj, "experiment"));
        snprintf(experiment, 64, "%s", e ? e : "");
        /* runs of any experiments: each labelled "experiment · run" (issue 15),
         * and "(vN)" after it in an experiment edited and re-run: its
         * versions' runs keep their names */
        char ename[256], label[600], vtag[32] = "";
        expedit_experiment_name(d, experiment, ename, sizeof ename);
        int64_t version = expedit_run_version(d, experiment, slugs[r]);
        if (version > 0) snprintf(vtag, sizeof vtag, " (v%lld)", (long long)version);
        snprintf(label, sizeof label, "%s \u00b7 %s%s", ename[0] ? ename : experiment,
                 name ? name : slugs[r], vtag);
        jw_obj(&b);
        jw_kv_str(&b, "run", slugs[r]);
        jw_kv_str(&b, "name", name);
        jw_kv_str(&b, "source", json_string_value(json_object_get(c.obj, "source")));
        jw_kv_str(&b, "experiment", experiment);
        jw_kv_str(&b, "experiment_name", ename);
        jw_kv_str(&b, "label", label);
        jw_key(&b, "version");
        jw_i64(&b, version > 0 ? version : 1);
        jw_end(&b);
        json_decref(c.obj);
    }
    jw_end(&b);
    /* a hit leaves only the task rows to build: the kernels are not loaded */
    bool cached = cmpcache_get(ckey, &ctext, &clen);
    for (size_t r = 0; r < nruns; r++) {
        const char *experiment = experiments[r];
        trace t;
        trace_init(&t);
        char err[512];
        if (db_load_run(d, slugs[r], (cached ? 0u : DB_LOAD_KERNELS) | DB_LOAD_JOBS, &t, err, sizeof err)) {
            http_set_error(res, 500, "%s", err);
            trace_free(&t);
            goto done;
        }
        /* occurrence counts per name, via a scratch interner; in a run of
         * several GPUs per GPU and name, the GPU by its lanes' "gpuN" /
         * "rankN" words (replay_devices.h), which a replay keeps, so that
         * the nth kernel of a name on one GPU meets the nth on the same GPU
         * (a job's ranks interleave in time, their replay lists them GPU
         * by GPU). A run that lists its GPUs (DESIGN §5) names each by its
         * key (replay_gpu_keys: its lanes' words, else "device N"), as its
         * replay does: lanes without the words (an nvprof CSV's
         * "dev1:ctx1") would make every GPU one */
        bool gpus = !cached && replay_device_keys(&t, NULL, 0) > 1;
        char (*gkeys)[REPLAY_DEVICE_KEY] = gpus && t.devices.n ? replay_gpu_keys(&t) : NULL;
        trace occ;
        trace_init(&occ);
        int64_t *count = cached ? NULL : calloc(t.kernels.n + 1, sizeof *count);
        for (size_t i = 0; count && i < t.kernels.n; i++) {
            const trace_kernel *k = &t.kernels.v[i];
            const char *name = trace_str_get(&t, k->name);
            name = name ? name : "";
            char gpu[REPLAY_DEVICE_KEY] = "", on[600], stream[REPLAY_DEVICE_KEY + 64];
            if (gkeys && k->device >= 0 && (size_t)k->device < t.devices.n)
                snprintf(gpu, sizeof gpu, "%s", gkeys[k->device]);
            else if (gpus)
                replay_device_key(trace_str_get(&t, k->process), gpu);
            snprintf(on, sizeof on, "%s\x1f%s", gpu, name);
            trace_str id = trace_intern(&occ, on);
            if (!id || id > t.kernels.n) continue;
            char key[700];
            snprintf(key, sizeof key, "%s\x1f%" PRId64, on, count[id]++);
            const char *sname = trace_str_get(&t, k->stream);
            if (gpus) snprintf(stream, sizeof stream, "%s/%s", gpu, sname ? sname : "?");
            cmp_krow *row = row_for(&kr, key, name, gpus ? stream : sname);
            if (!row) continue;
            row->seen[r] = true;
            row->issue[r] = k->issue;
            row->start[r] = k->first_block;
            row->end[r] = k->end;
        }
        free(count);
        free(gkeys);
        trace_free(&occ);
        /* tasks: jobs, worst and mean response (end - release), misses */
        for (size_t i = 0; i < t.jobs.n; i++) {
            const trace_job *j = &t.jobs.v[i];
            const char *task = trace_str_get(&t, j->task);
            task = task ? task : "";
            cmp_trow *row = row_for(&tr, task, task, NULL);
            if (!row) continue;
            row->jobs[r] = (row->jobs[r] == TRACE_NONE ? 0 : row->jobs[r]) + 1;
            if (j->end == TRACE_NONE || j->release == TRACE_NONE) continue;
            int64_t resp = j->end - j->release;
            if (row->max[r] == TRACE_NONE || resp > row->max[r]) row->max[r] = resp;
            if (row->min[r] == TRACE_NONE || resp < row->min[r]) row->min[r] = resp;
            row->mean[r] = (row->has_mean[r] ? row->mean[r] : 0) + (double)resp;
            row->has_mean[r] = true;
            row->misses[r] = (row->misses[r] == TRACE_NONE ? 0 : row->misses[r]) +
                             (j->deadline != TRACE_NONE && j->end > j->deadline);
        }
        /* the analysis bound of each task under this run's approach (task_bounds.h) */
        json_t *bounds = task_bounds_stored(d, experiment, &t);
        const char *bk;
        json_t *bv;
        json_object_foreach(bounds, bk, bv) {
            cmp_trow *row = row_for(&tr, bk, bk, NULL);
            if (row) row->bound[r] = json_is_integer(bv) ? json_integer_value(bv) : TRACE_NONE;
        }
        json_decref(bounds);
        /* the running sums into means */
        for (size_t i = 0; i < tr.n; i++) {
            cmp_trow *row = (cmp_trow *)tr.v + i;
            if (row->has_mean[r] && row->jobs[r] != TRACE_NONE && row->jobs[r] > 0)
                row->mean[r] /= (double)row->jobs[r];
        }
        trace_free(&t);
    }
    if (!cached) {
        if (!(ctext = kernel_rows_text(&kr, nruns, &clen))) {
            http_set_error(res, 500, "out of memory writing the response");
            goto done;
        }
        cmpcache_put(ckey, ctext, clen);
    }
    jw_key(&b, "kernels");
    jw_rawn(&b, ctext, clen);
    jw_key(&b, "tasks");
    put_task_rows(&b, &tr, nruns);
    jw_end(&b);
    if (b.oom) http_set_error(res, 500, "out of memory writing the response");
    else http_set_buf(res, 200, &b, "application/json");
done:
    jw_free(&b);
    free(ctext);
    rows_free(&kr);
    rows_free(&tr);
    api_db_release(a, d);
}

/* ---- presets, scenarios, health ------------------------------------------------------------- */

void h_presets(void *app, const http_request *req, http_response *res) {
    (void)app;
    (void)req;
    json_t *list = json_array();
    for (size_t i = 0; i < sim_preset_count(); i++) {
        const sim_device *dv = sim_preset_at(i);
        json_array_append_new(list, json_pack("{s:o, s:o, s:o}", "name", tj_string(dv->name),
                                              "source", tj_string(sim_preset_source(i)),
                                              "device", tj_device_json(dv)));
    }
    res->cache_control = "public, max-age=60";
    /* fields: what each device key means, from simcore's field table */
    http_set_json(res, 200, json_pack("{s:o, s:o*}", "presets", list, "fields", dj_fields_json()));
}

void h_scenarios(void *app, const http_request *req, http_response *res) {
    (void)req;
    api_ctx *a = app;
    json_t *list = json_array();
    char **names;
    size_t n;
    jr_json_files(a->scenarios_dir, &names, &n);   /* none: an empty list */
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", a->scenarios_dir, names[i]);
        json_t *root = json_load_file(path, 0, NULL);
        json_array_append_new(list, json_pack("{s:s, s:O?, s:O?}", "file", names[i], "name",
                                              json_object_get(root, "name"), "description",
                                              json_object_get(root, "description")));
        json_decref(root);
    }
    jr_free_names(names, n);
    http_set_json(res, 200, json_pack("{s:o}", "scenarios", list));
}

void h_health(void *app, const http_request *req, http_response *res) {
    (void)req;
    api_ctx *a = app;
    char why[400];
    if (!api_db_same_file(a, why, sizeof why)) {
        http_set_json(res, 503, json_pack("{s:s, s:s, s:s, s:s}", "status", "unhealthy", "error",
                                          why, "version", a->version, "db", a->db_name));
        return;
    }
    char health[sizeof a->health];
    bool checking = api_health(a, health, sizeof health);
    if (health[0]) {
        http_scrub_paths(health);
        http_set_json(res, 503, json_pack("{s:s, s:s, s:s, s:s}", "status", "unhealthy", "error",
                                          health, "version", a->version, "db", a->db_name));
        return;
    }
    /* cache_bytes: the answers kept for the next asker (window.c's /blocks,
     * compare_cache.c's kernel tables), part of the server's memory that
     * is no leak (each is bounded) */
    json_int_t cached = (json_int_t)(window_cache_bytes() + cmpcache_bytes());
    http_set_json(res, 200, json_pack("{s:s, s:s, s:s, s:I, s:b, s:b, s:I}", "status", "ok", "version", a->version,
                                      "db", a->db_name, "jobs", (json_int_t)jobs_pending(a->jobs),
                                      "seeding", seedbg_pending(), "checking", checking,
                                      "cache_bytes", cached));
}

/* What this build can do, so the dashboard lists formats, policies and
 * presets from the server instead of hard-coding them. Each policy table of
 * simcore (policy.h) is one key of "policies": a new policy file appears
 * here with no edit. */
void h_capabilities(void *app, const http_request *req, http_response *res) {
    (void)app;
    (void)req;
    /* the importers' table (importers.h, IMP_FORMATS): "formats" names
     * them, "importers" says what each is for the upload form */
    json_t *formats = json_array(), *importers = json_array();
    for (int f = 0; f < IMP_FORMAT_COUNT; f++) {
        const imp_importer *im = imp_importer_get((imp_format)f);
        json_array_append_new(formats, json_string(im->name));
        json_array_append_new(importers, json_pack("{s:s, s:s, s:b, s:b}", "name", im->name,
                                                   "hint", im->hint, "multi_file", im->multi_file,
                                                   "stream", im->stream));
    }
    json_t *policies = json_object();
    for (int tb = 0; tb < SIM_NTABLES; tb++) {
        json_t *list = json_array();
        for (size_t i = 0; i < sim_policy_count((sim_policy_table)tb); i++)
            json_array_append_new(list, json_pack("{s:s, s:s}",
                "name", sim_policy_name((sim_policy_table)tb, (int32_t)i),
                "doc", sim_policy_doc((sim_policy_table)tb, (int32_t)i)));
        json_object_set_new(policies, sim_policy_table_name((sim_policy_table)tb), list);
    }
    json_t *presets = json_array();
    for (size_t i = 0; i < sim_preset_count(); i++)
        json_array_append_new(presets, tj_string(sim_preset_at(i)->name));
    json_t *fields = json_array();
    for (size_t i = 0; i < sim_device_nfields; i++)
        json_array_append_new(fields, json_pack("{s:s, s:s}", "key", sim_device_fields[i].key,
                                                "doc", sim_device_fields[i].doc));
    /* the request limits the dashboard sizes its asks by (issue 24: served
     * here, not typed again in web/js): a window route's max (blocks,
     * kernels, copies, occupancy, streams) and /warps' max, their defaults
     * and ceilings, and the runs one /api/compare takes */
    json_t *limits = json_pack("{s:i, s:i, s:i, s:i, s:i}", "window_max_default", BLOCKS_MAX_DEFAULT,
                               "window_max_ceiling", BLOCKS_MAX_CEILING, "warps_max_default",
                               WARPS_MAX_DEFAULT, "warps_max_ceiling", WARPS_MAX_CEILING,
                               "compare_max_runs", COMPARE_MAX_RUNS);
    res->cache_control = "public, max-age=60";
    http_set_json(res, 200, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "formats", formats, "importers",
                                      importers, "policies", policies, "presets", presets,
                                      "device_fields", fields, "limits", limits));
}
