/* fidelity.c -- a simulated run against the measured one. See fidelity.h. */
#include "fidelity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_json.h"

typedef struct kref {
    const char *process, *stream;   /* normalised */
    size_t slen;                    /* stream name length without "@process" */
    int64_t start;
    size_t id;
} kref;

static int cmp_stream(const kref *x, const kref *y) {
    int c = strcmp(x->process, y->process);
    if (c) return c;
    size_t n = x->slen < y->slen ? x->slen : y->slen;
    c = strncmp(x->stream, y->stream, n);
    if (c) return c;
    return x->slen < y->slen ? -1 : x->slen > y->slen;
}

static int cmp_kref(const void *a, const void *b) {
    const kref *x = a, *y = b;
    int c = cmp_stream(x, y);
    if (c) return c;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The matchable kernels of t (both a start and an end), sorted by stream
 * and start. */
static kref *krefs(const trace *t, size_t *n) {
    kref *v = calloc(t->kernels.n + 1, sizeof *v);
    if (!v) return NULL;
    size_t m = 0;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        if (k->first_block == TRACE_NONE || k->end == TRACE_NONE) continue;
        const char *p = trace_str_get(t, k->process);
        const char *s = trace_str_get(t, k->stream);
        if (!p || !*p) p = "P0";
        if (!s || !*s) s = "null";
        size_t sl = strlen(s), pl = strlen(p);
        /* replay's "NAME@PROCESS" for a name another process used */
        if (sl > pl + 1 && s[sl - pl - 1] == '@' && strcmp(s + sl - pl, p) == 0) sl -= pl + 1;
        v[m++] = (kref){.process = p, .stream = s, .slen = sl, .start = k->first_block, .id = i};
    }
    qsort(v, m, sizeof *v, cmp_kref);
    *n = m;
    return v;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* the index of sorted v[0..n)'s q-quantile, by nearest rank: the
 * ceil(q n)-th value (the first for n = 0, which has none) */
static size_t nearest_rank(size_t n, double q) {
    size_t r = (size_t)ceil(q * (double)n);
    return r ? r - 1 : 0;
}

static double quantile_d(const double *v, size_t n, double q) {
    return n ? v[nearest_rank(n, q)] : 0;
}

static int64_t quantile_i(const int64_t *v, size_t n, double q) {
    return n ? v[nearest_rank(n, q)] : 0;
}

static int64_t makespan(const trace *t) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        if (k->first_block != TRACE_NONE && k->first_block < lo) lo = k->first_block;
        if (k->end != TRACE_NONE && k->end > hi) hi = k->end;
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        if (c->start != TRACE_NONE && c->start < lo) lo = c->start;
        if (c->end != TRACE_NONE && c->end > hi) hi = c->end;
    }
    return hi >= lo ? hi - lo : 0;
}

/* a kernel's start (+1) or end (-1) */
typedef struct edge {
    int64_t t;
    int32_t d;
} edge;

static int cmp_edge(const void *a, const void *b) {
    const edge *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;   /* at one instant the order adds nothing */
}

/* The share of kernel time in t during which another kernel also ran:
 * between consecutive edges, c kernels running add c x the interval to
 * the kernel time, and to the shared time when c >= 2 (exact for any
 * number of kernels at once). */
static double overlap_share(const trace *t) {
    size_t n = 0;
    edge *v = calloc(2 * t->kernels.n + 1, sizeof *v);
    if (!v) return 0;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        if (k->first_block == TRACE_NONE || k->end == TRACE_NONE || k->end <= k->first_block)
            continue;
        v[n++] = (edge){k->first_block, 1};
        v[n++] = (edge){k->end, -1};
    }
    qsort(v, n, sizeof *v, cmp_edge);
    double total = 0, shared = 0;
    int64_t c = 0;   /* kernels running since the last edge */
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && c > 0) {
            double len = (double)(v[i].t - v[i - 1].t) * (double)c;
            total += len;
            if (c >= 2) shared += len;
        }
        c += v[i].d;
    }
    free(v);
    return total > 0 ? shared / total : 0;
}

int fidelity_compare(const trace *m, const trace *s, fidelity *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    size_t nm = 0, ns = 0;
    kref *a = krefs(m, &nm), *b = krefs(s, &ns);
    double *durs = NULL;
    int64_t *starts = NULL, *bstarts = NULL;
    int32_t *bsm = NULL;
    int64_t *bst = NULL;
    size_t *pair = NULL;
    int rc = -1;
    if (!a || !b) goto oom;
    out->k = calloc(nm + 1, sizeof *out->k);
    durs = calloc(nm + 1, sizeof *durs);
    starts = calloc(nm + 1, sizeof *starts);
    if (!out->k || !durs || !starts) goto oom;
    /* walk both lists stream by stream */
    size_t i = 0, j = 0;
    while (i < nm || j < ns) {
        int c = i >= nm ? 1 : j >= ns ? -1 : cmp_stream(&a[i], &b[j]);
        if (c < 0) {   /* a stream only the measured run has, or its tail */
            out->unmatched_measured++;
            i++;
            continue;
        }
        if (c > 0) {
            out->unmatched_simulated++;
            j++;
            continue;
        }
        const trace_kernel *km = &m->kernels.v[a[i].id], *ks = &s->kernels.v[b[j].id];
        fid_kernel *f = &out->k[out->nk++];
        f->measured = a[i].id;
        f->simulated = b[j].id;
        f->start_err = ks->first_block - km->first_block;
        f->dur_measured = km->end - km->first_block;
        f->dur_simulated = ks->end - ks->first_block;
        int64_t diff = f->dur_simulated - f->dur_measured;
        if (diff < 0) diff = -diff;
        f->dur_err = f->dur_measured > 0 ? (double)diff / (double)f->dur_measured
                                         : (diff ? 1.0 : 0.0);
        i++;
        j++;
    }
    for (size_t k = 0; k < out->nk; k++) {
        durs[k] = out->k[k].dur_err;
        starts[k] = out->k[k].start_err < 0 ? -out->k[k].start_err : out->k[k].start_err;
    }
    qsort(durs, out->nk, sizeof *durs, cmp_double);
    qsort(starts, out->nk, sizeof *starts, cmp_i64);
    out->dur_median = quantile_d(durs, out->nk, 0.5);
    out->dur_p90 = quantile_d(durs, out->nk, 0.9);
    out->start_median = quantile_i(starts, out->nk, 0.5);
    int64_t lo, hi;
    trace_time_span(m, &lo, &hi);
    out->span = lo == TRACE_NONE ? 0 : hi - lo;
    out->start_median_share = out->span > 0 ? (double)out->start_median / (double)out->span : 0;
    out->makespan_measured = makespan(m);
    out->makespan_simulated = makespan(s);
    out->makespan_diff = out->makespan_measured > 0
                             ? (double)(out->makespan_simulated - out->makespan_measured) /
                                   (double)out->makespan_measured
                             : 0;
    out->overlap_share = overlap_share(m);
    /* blocks, where both runs have them: by (matched kernel, block index) */
    if (m->blocks.n && s->blocks.n && out->nk) {
        pair = malloc((s->kernels.n + 1) * sizeof *pair);
        if (!pair) goto oom;
        for (size_t k = 0; k <= s->kernels.n; k++) pair[k] = SIZE_MAX;
        for (size_t k = 0; k < out->nk; k++) pair[out->k[k].simulated] = out->k[k].measured;
        /* the simulated blocks of each measured kernel by index: offsets */
        size_t *off = calloc(m->kernels.n + 2, sizeof *off);
        if (!off) goto oom;
        for (size_t k = 0; k < m->kernels.n; k++) {
            int64_t nb = m->kernels.v[k].blocks > 0 ? m->kernels.v[k].blocks : 0;
            off[k + 1] = off[k] + (size_t)nb;
        }
        size_t total = off[m->kernels.n];
        if (total <= 64u * 1024 * 1024) {
            bsm = malloc((total + 1) * sizeof *bsm);
            bst = malloc((total + 1) * sizeof *bst);
            bstarts = malloc((m->blocks.n + 1) * sizeof *bstarts);
        }
        if (bsm && bst && bstarts) {
            for (size_t x = 0; x < total; x++) bsm[x] = -1;
            for (size_t x = 0; x < s->blocks.n; x++) {
                const trace_block *bl = &s->blocks.v[x];
                if (bl->kernel < 0 || (size_t)bl->kernel >= s->kernels.n) continue;
                size_t mk = pair[bl->kernel];
                if (mk == SIZE_MAX || bl->index < 0) continue;
                if (off[mk] + (size_t)bl->index >= off[mk + 1]) continue;
                bsm[off[mk] + (size_t)bl->index] = bl->sm;
                bst[off[mk] + (size_t)bl->index] = bl->start;
            }
            size_t nb = 0;
            for (size_t x = 0; x < m->blocks.n; x++) {
                const trace_block *bl = &m->blocks.v[x];
                if (bl->kernel < 0 || (size_t)bl->kernel >= m->kernels.n || bl->index < 0) continue;
                size_t at = off[bl->kernel] + (size_t)bl->index;
                if (at >= off[bl->kernel + 1] || bsm[at] < 0 || bl->start == TRACE_NONE) continue;
                out->blocks_compared++;
                if (bsm[at] == bl->sm) out->blocks_same_sm++;
                int64_t d = bst[at] - bl->start;
                bstarts[nb++] = d < 0 ? -d : d;
            }
            qsort(bstarts, nb, sizeof *bstarts, cmp_i64);
            out->block_start_median = quantile_i(bstarts, nb, 0.5);
        }
        free(off);
    }
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory comparing the runs");
    fidelity_free(out);
done:
    free(a);
    free(b);
    free(durs);
    free(starts);
    free(bstarts);
    free(bsm);
    free(bst);
    free(pair);
    return rc;
}

void fidelity_free(fidelity *f) {
    free(f->k);
    f->k = NULL;
    f->nk = 0;
}

int fidelity_ok(const fidelity *f) {
    return f->nk > 0 && f->dur_median <= FID_DUR_MEDIAN && f->dur_p90 <= FID_DUR_P90 &&
           f->start_median_share <= FID_START_MEDIAN && fabs(f->makespan_diff) <= FID_MAKESPAN;
}

typedef struct worst {
    size_t k;
    int64_t score;
} worst;

static int cmp_worst(const void *a, const void *b) {
    const worst *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Why a target is out of reach: what in the measured trace the model does
 * not express. */
static json_t *why(const fidelity *f, const char *target) {
    char buf[512];
    if (f->overlap_share > 0.05)
        snprintf(buf, sizeof buf,
                 "%s: %.0f %% of the measured kernel time overlapped another kernel; the block "
                 "times are calibrated for each kernel alone, and on the hardware concurrent "
                 "kernels slow each other down (memory bandwidth, caches), which the model's "
                 "fixed block times do not express",
                 target, f->overlap_share * 100);
    else
        snprintf(buf, sizeof buf,
                 "%s: the measured kernels ran nearly alone (%.0f %% overlap); the difference "
                 "comes from queueing the model orders differently (see the worst kernels)",
                 target, f->overlap_share * 100);
    return json_string(buf);
}

static json_t *target(const fidelity *f, const char *name, double value, double limit) {
    json_t *o = json_pack("{s:f, s:f, s:b}", "value", value, "limit", limit, "ok",
                          fabs(value) <= limit && f->nk > 0);
    if (o && !(fabs(value) <= limit && f->nk > 0)) json_object_set_new(o, "why", why(f, name));
    return o;
}

json_t *fidelity_json(const fidelity *f, const trace *m, const trace *s, size_t nworst) {
    json_t *o = json_object();
    if (!o) return NULL;
    json_object_set_new(o, "schema", json_string("schedlab-fidelity/1"));
    json_object_set_new(o, "kernels_matched", json_integer((json_int_t)f->nk));
    json_object_set_new(o, "kernels_unmatched_measured",
                        json_integer((json_int_t)f->unmatched_measured));
    json_object_set_new(o, "kernels_unmatched_simulated",
                        json_integer((json_int_t)f->unmatched_simulated));
    json_object_set_new(o, "duration_error_median", json_real(f->dur_median));
    json_object_set_new(o, "duration_error_p90", json_real(f->dur_p90));
    json_object_set_new(o, "start_error_median_ns", json_integer(f->start_median));
    json_object_set_new(o, "span_ns", json_integer(f->span));
    json_object_set_new(o, "start_error_median_share", json_real(f->start_median_share));
    json_object_set_new(o, "makespan_measured_ns", json_integer(f->makespan_measured));
    json_object_set_new(o, "makespan_simulated_ns", json_integer(f->makespan_simulated));
    json_object_set_new(o, "makespan_difference", json_real(f->makespan_diff));
    json_object_set_new(o, "overlap_share", json_real(f->overlap_share));
    if (f->blocks_compared) {
        json_object_set_new(o, "blocks_compared", json_integer((json_int_t)f->blocks_compared));
        json_object_set_new(o, "blocks_same_sm", json_integer((json_int_t)f->blocks_same_sm));
        json_object_set_new(o, "block_start_error_median_ns",
                            json_integer(f->block_start_median));
    }
    json_t *tg = json_object();
    json_object_set_new(tg, "duration_error_median",
                        target(f, "median duration error", f->dur_median, FID_DUR_MEDIAN));
    json_object_set_new(tg, "duration_error_p90",
                        target(f, "90th percentile duration error", f->dur_p90, FID_DUR_P90));
    json_object_set_new(tg, "start_error_median_share",
                        target(f, "median start error", f->start_median_share, FID_START_MEDIAN));
    json_object_set_new(tg, "makespan_difference",
                        target(f, "makespan difference", f->makespan_diff, FID_MAKESPAN));
    json_object_set_new(o, "targets", tg);
    json_object_set_new(o, "ok", json_boolean(fidelity_ok(f)));
    worst *w = calloc(f->nk + 1, sizeof *w);
    json_t *jw = json_array();
    if (w && jw) {
        for (size_t k = 0; k < f->nk; k++) {
            int64_t se = f->k[k].start_err < 0 ? -f->k[k].start_err : f->k[k].start_err;
            int64_t ee = f->k[k].start_err + f->k[k].dur_simulated - f->k[k].dur_measured;
            w[k] = (worst){.k = k, .score = se + (ee < 0 ? -ee : ee)};
        }
        qsort(w, f->nk, sizeof *w, cmp_worst);
        for (size_t x = 0; x < f->nk && x < nworst && w[x].score > 0; x++) {
            const fid_kernel *k = &f->k[w[x].k];
            const trace_kernel *km = &m->kernels.v[k->measured];
            const trace_kernel *ks = &s->kernels.v[k->simulated];
            json_t *e = json_pack("{s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:I, s:f}", "measured",
                                  (json_int_t)k->measured, "simulated", (json_int_t)k->simulated,
                                  "name", tj_string(trace_str_get(m, km->name)), "stream",
                                  tj_string(trace_str_get(m, km->stream)), "measured_start",
                                  (json_int_t)km->first_block, "simulated_start",
                                  (json_int_t)ks->first_block, "measured_duration",
                                  (json_int_t)k->dur_measured, "simulated_duration",
                                  (json_int_t)k->dur_simulated, "duration_error", k->dur_err);
            if (e) json_array_append_new(jw, e);
        }
    }
    free(w);
    json_object_set_new(o, "worst", jw ? jw : json_array());
    /* per kernel, compact: [measured id, simulated id, start error, measured
     * duration, simulated duration] -- what the comparison view highlights */
    json_t *per = json_array();
    for (size_t k = 0; per && k < f->nk; k++)
        json_array_append_new(per, json_pack("[I,I,I,I,I]", (json_int_t)f->k[k].measured,
                                             (json_int_t)f->k[k].simulated,
                                             (json_int_t)f->k[k].start_err,
                                             (json_int_t)f->k[k].dur_measured,
                                             (json_int_t)f->k[k].dur_simulated));
    json_object_set_new(o, "kernels", per ? per : json_array());
    return o;
}
