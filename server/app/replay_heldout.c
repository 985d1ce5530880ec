/* replay_heldout.c -- the held-out prediction of a replay (replay_heldout.h). */
#include "replay_heldout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../simcore/sim.h"
#include "fidelity.h"
#include "replay_calls.h"
#include "replay.h"
#include "scenario.h"

/* A copy of t's kernels and copies that start in [from, to), with its
 * device, name, source and meta (strings interned anew), and the host's
 * calls of those ops (replay_calls.h: the rest of t is left out of the
 * half, on its GPU); the caller frees o. 0, or -1 out of memory. */
static int subtrace(const trace *t, int64_t from, int64_t to, trace *o) {
    int32_t *kmap = malloc((t->kernels.n + 1) * sizeof *kmap);
    int32_t *cmap = malloc((t->copies.n + 1) * sizeof *cmap);
    int rc = -1;
    if (!kmap || !cmap) goto done;
    if (trace_set_name(o, t->name) < 0 || trace_set_source(o, t->source) < 0) goto done;
    o->device = t->device;
    o->has_device = t->has_device;
    o->origin = t->origin;
    for (size_t i = 0; i < t->meta.n; i++)
        if (trace_set_meta(o, trace_str_get(t, t->meta.v[i].key),
                           trace_str_get(t, t->meta.v[i].value)) < 0)
            goto done;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        kmap[i] = REPLAY_CALLS_OUT;
        if (k->first_block == TRACE_NONE || k->first_block < from || k->first_block >= to) continue;
        trace_kernel *n = trace_add_kernel(o);
        if (!n) goto done;
        *n = *k;
        n->name = trace_intern(o, trace_str_get(t, k->name));
        n->raw_name = trace_intern(o, trace_str_get(t, k->raw_name));
        n->stream = trace_intern(o, trace_str_get(t, k->stream));
        n->process = trace_intern(o, trace_str_get(t, k->process));
        kmap[i] = (int32_t)(o->kernels.n - 1);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        cmap[i] = REPLAY_CALLS_OUT;
        if (c->start == TRACE_NONE || c->start < from || c->start >= to) continue;
        trace_copy *n = trace_add_copy(o);
        if (!n) goto done;
        *n = *c;
        n->name = trace_intern(o, trace_str_get(t, c->name));
        n->stream = trace_intern(o, trace_str_get(t, c->stream));
        n->process = trace_intern(o, trace_str_get(t, c->process));
        cmap[i] = (int32_t)(o->copies.n - 1);
    }
    if (replay_calls_subset(t, kmap, cmap, NULL, o) != 0) goto done;
    rc = o->oom ? -1 : 0;
done:
    free(kmap);
    free(cmap);
    return rc;
}

/* One calibrated kernel op of the first half. */
typedef struct cal {
    const char *name;
    int64_t threads, blocks, block_time;
} cal;

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median block time of the first half's ops named `name` (of that
 * grid and block size when exact, else any); 0 when none. */
static int64_t predicted_time(const cal *v, size_t n, const char *name, int64_t threads,
                              int64_t blocks, int exact, int64_t *scratch) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0 &&
            (!exact || (v[i].threads == threads && v[i].blocks == blocks)))
            scratch[m++] = v[i].block_time;
    if (!m) return 0;
    qsort(scratch, m, sizeof *scratch, cmp_i64);
    return scratch[(m - 1) / 2];
}

static int64_t lookup(const cal *v, size_t n, const char *name, int64_t threads, int64_t blocks,
                      int64_t *scratch) {
    int64_t b = predicted_time(v, n, name, threads, blocks, 1, scratch);
    return b ? b : predicted_time(v, n, name, threads, blocks, 0, scratch);
}

/* 0, 1 (it does not simulate: err), REPLAY_CANCELLED or -1 (OOM) */
static int simulate_json(const json_t *scn, atomic_bool *cancel, trace *out, char *err,
                         size_t errlen) {
    char *txt = json_dumps(scn, JSON_COMPACT);
    if (!txt) return -1;
    scn_scenario *s = NULL;
    int rc = scn_parse(txt, strlen(txt), "held-out", &s, err, errlen);
    free(txt);
    if (rc != 0) return 1;
    sim_config cfg;
    trace_init(out);
    rc = scn_config(s, 0, &cfg, err, errlen) != 0 ? 1 : 0;
    /* the prediction is kernel by kernel (a trace with blocks has none) */
    sim_block_sink sink;
    replay_discard_sink_cancel(&sink, cancel);
    cfg.block_sink = &sink;
    if (rc == 0 && sim_run(&cfg, out, err, errlen) != 0)
        rc = cancel && atomic_load(cancel) ? REPLAY_CANCELLED : 1;
    scn_free(s);
    return rc;
}

int replay_heldout_run(const trace *m, const char *what, const char *device_preset,
                       replay_heldout *h, char *err, size_t errlen) {
    return replay_heldout_run_ctl(m, what, device_preset, NULL, h, err, errlen);
}

int replay_heldout_run_ctl(const trace *m, const char *what, const char *device_preset,
                           atomic_bool *cancel, replay_heldout *h, char *err, size_t errlen) {
    return replay_heldout_halves(m, what, device_preset, cancel, h, NULL, NULL, NULL, err, errlen);
}

int replay_heldout_halves(const trace *m, const char *what, const char *device_preset,
                          atomic_bool *cancel, replay_heldout *h, trace *first, trace *second,
                          trace *predicted, char *err, size_t errlen) {
    memset(h, 0, sizeof *h);
    if (first) trace_init(first);
    if (second) trace_init(second);
    if (predicted) trace_init(predicted);
    if (m->blocks.n) {
        snprintf(h->why, sizeof h->why, "the trace has block records, which the replay runs "
                 "as measured: a held-out half would replay the blocks it predicts");
        return 0;
    }
    /* the middle of the kernels' span (copies before the first kernel or
     * after the last one would leave a half without kernels) */
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < m->kernels.n; i++) {
        const trace_kernel *k = &m->kernels.v[i];
        if (k->first_block != TRACE_NONE && k->first_block < lo) lo = k->first_block;
        if (k->end != TRACE_NONE && k->end > hi) hi = k->end;
    }
    if (lo >= hi || m->kernels.n < 2) {
        snprintf(h->why, sizeof h->why, "fewer than two kernels with times");
        return 0;
    }
    h->split = lo + (hi - lo) / 2;
    trace t1, t2, sim;
    trace_init(&t1);
    trace_init(&t2);
    trace_init(&sim);
    json_t *s1 = NULL, *s2 = NULL;
    cal *cv = NULL;
    int64_t *scratch = NULL;
    double *durs = NULL, *starts = NULL;
    fidelity f;
    memset(&f, 0, sizeof f);
    int rc = -1;
    if (subtrace(m, INT64_MIN, h->split, &t1) != 0 || subtrace(m, h->split, INT64_MAX, &t2) != 0)
        goto oom;
    if (!t1.kernels.n || !t2.kernels.n) {
        snprintf(h->why, sizeof h->why, "one half of the trace (cut at %lld ns) has no kernels",
                 (long long)h->split);
        rc = 0;
        goto done;
    }
    char e[512] = "";
    int hr = replay_scenario_info_ctl(&t1, what, device_preset, cancel, &s1, NULL, e, sizeof e);
    if (hr == 0)
        hr = replay_scenario_info_ctl(&t2, what, device_preset, cancel, &s2, NULL, e, sizeof e);
    if (hr == REPLAY_CANCELLED) goto cancelled;
    if (hr != 0) {
        snprintf(h->why, sizeof h->why, "a half does not replay: %.200s", e);
        rc = 0;
        goto done;
    }
    /* the first half's calibration, op by op */
    json_t *ops1 = json_object_get(s1, "ops"), *ops2 = json_object_get(s2, "ops"), *op;
    size_t i, ncv = 0;
    cv = calloc(json_array_size(ops1) + 1, sizeof *cv);
    scratch = calloc(json_array_size(ops1) + 1, sizeof *scratch);
    if (!cv || !scratch) goto oom;
    json_array_foreach(ops1, i, op) {
        json_t *bt = json_object_get(op, "block_time");
        const char *name = json_string_value(json_object_get(op, "kernel"));
        if (!name || !json_is_integer(bt)) continue;
        cv[ncv++] = (cal){name, json_integer_value(json_object_get(op, "threads")),
                          json_integer_value(json_object_get(op, "blocks")),
                          json_integer_value(bt)};
        h->first_kernels++;
    }
    /* ... put on the second half's kernels of the same name; an op issued
     * before the cut waited for the first half's work: it is issued at the
     * cut (the order of each stream stays) */
    json_array_foreach(ops2, i, op) {
        if (json_integer_value(json_object_get(op, "at")) < h->split)
            json_object_set_new(op, "at", json_integer(h->split));
        const char *name = json_string_value(json_object_get(op, "kernel"));
        if (!name) continue;
        int64_t b = lookup(cv, ncv, name, json_integer_value(json_object_get(op, "threads")),
                           json_integer_value(json_object_get(op, "blocks")), scratch);
        if (b > 0) json_object_set_new(op, "block_time", json_integer(b));
    }
    int sr = simulate_json(s2, cancel, &sim, e, sizeof e);
    if (sr < 0) goto oom;
    if (sr == REPLAY_CANCELLED) goto cancelled;
    if (sr > 0) {
        snprintf(h->why, sizeof h->why, "the second half does not simulate: %.200s", e);
        rc = 0;
        goto done;
    }
    if (fidelity_compare(&t2, &sim, &f, err, errlen) != 0) goto done;
    durs = calloc(f.nk + 1, sizeof *durs);
    starts = calloc(f.nk + 1, sizeof *starts);
    if (!durs || !starts) goto oom;
    size_t nd = 0;
    for (size_t k = 0; k < f.nk; k++) {
        const trace_kernel *km = &t2.kernels.v[f.k[k].measured];
        const char *name = trace_str_get(&t2, km->name);
        int found = 0;
        for (size_t c = 0; name && c < ncv && !found; c++) found = strcmp(cv[c].name, name) == 0;
        if (!found) {
            h->unpredicted++;
            continue;
        }
        durs[nd] = f.k[k].dur_err;
        starts[nd++] = fabs((double)f.k[k].start_err);
    }
    h->predicted = nd;
    if (!nd) {
        snprintf(h->why, sizeof h->why, "no kernel of the second half has a name the first half ran");
        rc = 0;
        goto done;
    }
    qsort(durs, nd, sizeof *durs, cmp_double);
    qsort(starts, nd, sizeof *starts, cmp_double);
    h->dur_median = durs[(nd - 1) / 2];
    h->dur_p90 = durs[(size_t)ceil(0.9 * (double)nd) - 1];
    h->start_median_share = f.span > 0 ? starts[(nd - 1) / 2] / (double)f.span : 0;
    h->makespan_diff = f.makespan_diff;
    h->done = 1;
    rc = 0;
    goto done;
cancelled:
    snprintf(err, errlen, "%s: cancelled", what);
    rc = REPLAY_CANCELLED;
    goto done;
oom:
    snprintf(err, errlen, "%s: out of memory predicting the held-out half", what);
done:
    fidelity_free(&f);
    free(durs);
    free(starts);
    free(cv);
    free(scratch);
    json_decref(s1);
    json_decref(s2);
    if (first) {
        *first = t1;
        trace_init(&t1);
    }
    if (second) {
        *second = t2;
        trace_init(&t2);
    }
    if (predicted) {
        *predicted = sim;
        trace_init(&sim);
    }
    trace_free(&sim);
    trace_free(&t1);
    trace_free(&t2);
    return rc;
}

json_t *replay_heldout_json(const replay_heldout *h) {
    if (!h->done) return json_pack("{s:b, s:s}", "done", 0, "why", h->why);
    json_t *o = json_pack("{s:b, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:b}", "done", 1,
                          "split_ns", (json_int_t)h->split, "first_half_kernels",
                          (json_int_t)h->first_kernels, "predicted", (json_int_t)h->predicted,
                          "unpredicted", (json_int_t)h->unpredicted, "duration_error_median",
                          h->dur_median, "duration_error_p90", h->dur_p90,
                          "start_error_median_share", h->start_median_share,
                          "makespan_difference", h->makespan_diff, "ok",
                          h->dur_median <= FID_DUR_MEDIAN && h->dur_p90 <= FID_DUR_P90 &&
                              h->start_median_share <= FID_START_MEDIAN &&
                              fabs(h->makespan_diff) <= FID_MAKESPAN);
    if (o)
        json_object_set_new(o, "method",
                            json_string("block times calibrated on the first half of the trace "
                                        "(by time), the second half simulated from its own issue "
                                        "times with them; errors over the second half's kernels "
                                        "whose name the first half ran"));
    return o;
}
