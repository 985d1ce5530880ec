/* stream_bins.c -- per-stream bins and a window's kernels of a kernel-level
 * trace, per-engine copy bins and a window's copies (see stream_bins.h).
 * Arguments in, JSON out; the bins and the window's rows come from
 * db/spyramid.h. */
#include "stream_bins.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/spyramid.h"
#include "idset.h"
#include "jw.h"
#include "trace_json.h"
#include "window.h"

bool sbin_parse_names(const char *param, const char *s, int64_t n, uint8_t *bits, char *err,
                      size_t errlen) {
    const idset_words names = {param, "a name index", "indices", "a kernel name"};
    return idset_parse(&names, s, n, bits, err, errlen);
}

static void put_ints(jw_buf *w, const char *key, const int64_t *v, size_t n) {
    jw_puts(w, ",\"");
    jw_puts(w, key);
    jw_puts(w, "\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) jw_putc(w, ',');
        jw_i64_raw(w, v[i]);
    }
    jw_putc(w, ']');
}

/* The head both bins answers (streams', copies') start with, up to nbins:
 * total_key ("kernels_total" / "copies_total") the run's row count. */
static void bins_head(jw_buf *w, int64_t from, int64_t to, const char *total_key, int64_t total,
                      int z, int64_t bin_ns, int64_t k0, size_t nbins) {
    jw_puts(w, "{\"from\":");
    jw_i64_raw(w, from);
    jw_puts(w, ",\"to\":");
    jw_i64_raw(w, to);
    jw_puts(w, ",\"mode\":\"bins\",\"");
    jw_puts(w, total_key);
    jw_puts(w, "\":");
    jw_i64_raw(w, total);
    jw_puts(w, ",\"z\":");
    jw_i64_raw(w, z);
    jw_puts(w, ",\"bin_ns\":");
    jw_i64_raw(w, bin_ns);
    jw_puts(w, ",\"t\":");
    jw_i64_raw(w, k0 * bin_ns);
    jw_puts(w, ",\"nbins\":");
    jw_i64_raw(w, (int64_t)nbins);
}

/* The bins answer: integrals and maxima per lane and bin, whole bins (not
 * cut at from/to), exact integers (docs/api.md). */
static void bins_json(jw_buf *w, const spyr_info *in, const spyr_bins *sb, int64_t from,
                      int64_t to) {
    bins_head(w, from, to, "kernels_total", in->total_kernels, sb->z, sb->bin_ns, sb->k0,
              sb->nbins);
    jw_puts(w, sb->max_exact ? ",\"max_exact\":true" : ",\"max_exact\":false");
    jw_puts(w, ",\"names\":[");
    for (size_t n = 0; n < in->nnames; n++) {
        if (n) jw_putc(w, ',');
        tj_put_str(w, in->names[n]);
    }
    jw_puts(w, "],\"lanes\":[");
    for (size_t l = 0; l < sb->nlanes; l++) {
        jw_puts(w, l ? ",{\"process\":" : "{\"process\":");
        tj_put_str(w, in->process[l]);
        jw_puts(w, ",\"stream\":");
        tj_put_str(w, in->stream[l]);
        size_t o = l * sb->nbins;
        put_ints(w, "kernel_ns", sb->kernel_ns + o, sb->nbins);
        put_ints(w, "thread_ns", sb->thread_ns + o, sb->nbins);
        put_ints(w, "max_kernels", sb->max_kernels + o, sb->nbins);
        put_ints(w, "max_threads", sb->max_threads + o, sb->nbins);
        jw_putc(w, '}');
    }
    jw_puts(w, "]}");
}

/* run: the run asked for, named in a 404 as the other run routes do
 * (load_url_run), without the database's path */
static void fail(http_response *res, int rc, const char *err, const char *run) {
    res->etag[0] = '\0';
    res->cache_control = NULL;
    if (rc == DB_NOT_FOUND && run) http_set_error(res, 404, "no run named \"%s\"", run);
    else if (rc == DB_TOO_WIDE) http_set_error(res, 400, "%s", err);
    else http_set_error(res, rc == DB_NOT_FOUND ? 404 : 500, "%s", err);
}

/* about `max` values in all over nlanes lanes (streams or copy engines):
 * at least one bin per lane, at most WINDOW_BINS_MAX, as /blocks' bins */
/* err, the pyramid's "stream bins: bins of 2^63 ns are wider than ...",
 * as the 400 names it: the window asked for */
static void too_wide(char *err, size_t errlen, int64_t from, int64_t to) {
    char why[200];
    size_t n = strnlen(err, sizeof why - 1);
    memcpy(why, err, n);
    why[n] = '\0';
    snprintf(err, errlen, "from/to: the window [%" PRId64 ", %" PRId64 ") is too wide: %s", from,
             to, why);
}

static int64_t want_bins(size_t nlanes, int64_t max) {
    int64_t want = max / (int64_t)(nlanes ? nlanes : 1);
    if (want < 1) want = 1;
    if (want > WINDOW_BINS_MAX) want = WINDOW_BINS_MAX;
    return want;
}

static void answer_bins(db *d, const spyr_info *in, int64_t from, int64_t to, int64_t max,
                        const uint8_t *shown, http_response *res) {
    char err[512];
    spyr_bins sb;
    int rc = db_spyramid_bins(d, in, from, to, want_bins(in->nlanes, max), shown, &sb, err,
                              sizeof err);
    if (rc == DB_TOO_WIDE) too_wide(err, sizeof err, from, to);
    if (rc) {
        fail(res, rc, err, NULL);
        return;
    }
    jw_buf b = {0};
    bins_json(&b, in, &sb, from, to);
    spyr_bins_free(&sb);
    http_set_buf(res, 200, &b, "application/json");
}

void sbin_streams(db *d, const http_request *req, const char *run, int64_t from, bool has_from,
                  int64_t to, bool has_to, int64_t max, const char *names, http_response *res) {
    char err[512];
    spyr_info in;
    int rc = db_spyramid_info(d, run, &in, err, sizeof err);
    if (rc) {
        fail(res, rc, err, run);
        return;
    }
    size_t nbytes = (in.nnames + 7) / 8;
    uint8_t *bits = calloc(nbytes + 1, 1);
    if (!bits) {
        http_set_error(res, 500, "out of memory for the name set");
    } else if (!names) {
        memset(bits, 0xff, nbytes);
    } else if (!sbin_parse_names("names", names, (int64_t)in.nnames, bits, err, sizeof err)) {
        http_set_error(res, 400, "%s", err);
        free(bits);
        bits = NULL;
    }
    if (bits && window_range(in.t_min, in.t_max, &from, has_from, &to, has_to, res)) {
        snprintf(res->etag, sizeof res->etag,
                 "\"%s.s%" PRId64 ".%" PRId64 ".%" PRId64 ".n%016" PRIx64 "\"", run, from, to, max,
                 idset_hash(bits, nbytes));
        res->cache_control = IDSET_IMMUTABLE;
        if (http_etag_fresh(req, res->etag)) {
            res->status = 200;
            res->content_type = "application/json";
        } else {
            answer_bins(d, &in, from, to, max, bits, res);
        }
    }
    free(bits);
    spyr_info_free(&in);
}

/* ---- copies: GET /copies?from=&to=&max= (issue 9: a 1M-row nvprof trace
 * is mostly memcpy / memset rows, drawn per copy engine) ---------------- */

/* The copy bins answer: per engine lane, copy-ns and the most copies at
 * once per bin, and each direction's copy-ns (only directions the lane
 * has), whole bins, exact integers (docs/api.md). */
static void copy_bins_json(jw_buf *w, const cpyr_info *in, const cpyr_bins *cb, int64_t from,
                           int64_t to) {
    bins_head(w, from, to, "copies_total", in->total_copies, cb->z, cb->bin_ns, cb->k0, cb->nbins);
    jw_puts(w, ",\"lanes\":[");
    for (size_t l = 0; l < cb->nlanes; l++) {
        jw_puts(w, l ? ",{\"engine\":" : "{\"engine\":");
        jw_i64_raw(w, in->engines[l]);
        size_t o = l * cb->nbins;
        put_ints(w, "copy_ns", cb->copy_ns + o, cb->nbins);
        put_ints(w, "max_copies", cb->max_copies + o, cb->nbins);
        jw_puts(w, ",\"directions\":{");
        bool first = true;
        for (int dir = 0; dir < SPYR_COPY_DIRS; dir++) {
            const int64_t *v = cb->dir_ns + (l * SPYR_COPY_DIRS + (size_t)dir) * cb->nbins;
            size_t i = 0;
            while (i < cb->nbins && !v[i]) i++;
            if (i == cb->nbins) continue;
            jw_puts(w, first ? "\"" : ",\"");
            first = false;
            jw_puts(w, trace_copy_dir_name(dir));
            jw_puts(w, "\":[");
            for (i = 0; i < cb->nbins; i++) {
                if (i) jw_putc(w, ',');
                jw_i64_raw(w, v[i]);
            }
            jw_putc(w, ']');
        }
        jw_puts(w, "}}");
    }
    jw_puts(w, "]}");
}

static void answer_copy_bins(db *d, const cpyr_info *in, int64_t from, int64_t to, int64_t max,
                             http_response *res) {
    char err[512];
    cpyr_bins cb;
    int rc = db_spyramid_copy_bins(d, in, from, to, want_bins(in->nengines, max), &cb, err,
                                   sizeof err);
    if (rc == DB_TOO_WIDE) too_wide(err, sizeof err, from, to);
    if (rc) {
        fail(res, rc, err, NULL);
        return;
    }
    jw_buf b = {0};
    copy_bins_json(&b, in, &cb, from, to);
    cpyr_bins_free(&cb);
    http_set_buf(res, 200, &b, "application/json");
}

/* ---- GET /kernels and /copies with window arguments: one flow, the two
 * differ only in the pyramid they read (a rows_kind each) ---------------- */

/* A run's pyramid info, kernels' or copies' */
typedef union rows_info {
    spyr_info k;
    cpyr_info c;
} rows_info;

typedef struct rows_kind {
    const char *key;    /* "kernels" / "copies": the answer's mode and its list */
    const char *tag;    /* the etag's kind: "k" / "c" */
    unsigned load;      /* DB_LOAD_KERNELS / DB_LOAD_COPIES */
    void (*put)(tj_buf *b, const trace *t, size_t i, int64_t id);
    size_t (*nrows)(const trace *t);
    int (*count)(db *d, const char *run, int64_t *n, char *err, size_t errlen);
    int (*info)(db *d, const char *run, rows_info *in, char *err, size_t errlen);
    void (*info_free)(rows_info *in);
    void (*extent)(const rows_info *in, int64_t *t_min, int64_t *t_max);
    int (*rows)(db *d, const rows_info *in, int64_t from, int64_t to, int64_t max, trace *out,
                int64_t **ids, size_t *n, char *err, size_t errlen);
    void (*bins)(db *d, const rows_info *in, int64_t from, int64_t to, int64_t max,
                 http_response *res);
} rows_kind;

static void answer_rows(const rows_kind *k, jw_buf *b, const trace *t, const int64_t *ids,
                        size_t n, int64_t from, int64_t to, bool window) {
    jw_puts(b, "{\"from\":");
    if (window) jw_i64_raw(b, from);
    else jw_puts(b, "null");
    jw_puts(b, ",\"to\":");
    if (window) jw_i64_raw(b, to);
    else jw_puts(b, "null");
    jw_puts(b, ",\"mode\":\"");
    jw_puts(b, k->key);
    jw_puts(b, "\",\"total\":");
    jw_i64_raw(b, (int64_t)n);
    jw_puts(b, ",\"");
    jw_puts(b, k->key);
    jw_puts(b, "\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) jw_putc(b, ',');
        k->put(b, t, i, ids ? ids[i] : (int64_t)i);
    }
    jw_puts(b, "]}");
}

static void rows_window(const rows_kind *k, db *d, const http_request *req, const char *run,
                        int64_t from, bool has_from, int64_t to, bool has_to, int64_t max,
                        http_response *res) {
    char err[512];
    bool win = has_from || has_to;
    int64_t count = 0;
    int rc = win ? 0 : k->count(d, run, &count, err, sizeof err);
    if (rc) {
        fail(res, rc, err, run);
        return;
    }
    if (!win && count <= max) {
        /* every row, those without times too, as the plain list; no
         * pyramid is built for a run this small. A stored run never
         * changes: cached as the other answers of this form */
        snprintf(res->etag, sizeof res->etag, "\"%s.%sa.%" PRId64 "\"", run, k->tag, max);
        res->cache_control = IDSET_IMMUTABLE;
        if (http_etag_fresh(req, res->etag)) {
            res->status = 200;
            res->content_type = "application/json";
            return;
        }
        trace t;
        trace_init(&t);
        rc = db_load_run(d, run, k->load, &t, err, sizeof err);
        if (rc) {
            fail(res, rc, err, run);
        } else {
            jw_buf b = {0};
            answer_rows(k, &b, &t, NULL, k->nrows(&t), 0, 0, false);
            http_set_buf(res, 200, &b, "application/json");
        }
        trace_free(&t);
        return;
    }
    rows_info in;
    rc = k->info(d, run, &in, err, sizeof err);
    if (rc) {
        fail(res, rc, err, run);
        return;
    }
    int64_t t_min, t_max;
    k->extent(&in, &t_min, &t_max);
    if (!window_range(t_min, t_max, &from, has_from, &to, has_to, res)) {
        k->info_free(&in);
        return;
    }
    snprintf(res->etag, sizeof res->etag, "\"%s.%s%s%" PRId64 ".%" PRId64 ".%" PRId64 "\"", run,
             k->tag, win ? "w" : "", from, to, max);
    res->cache_control = IDSET_IMMUTABLE;
    if (http_etag_fresh(req, res->etag)) {
        res->status = 200;
        res->content_type = "application/json";
        k->info_free(&in);
        return;
    }
    trace t;
    trace_init(&t);
    int64_t *ids = NULL;
    size_t n = (size_t)max + 1;   /* no window: more than max, bins */
    if (win) rc = k->rows(d, &in, from, to, max, &t, &ids, &n, err, sizeof err);
    if (rc) {
        fail(res, rc, err, run);
    } else if ((int64_t)n > max) {
        k->bins(d, &in, from, to, max, res);
    } else {
        jw_buf b = {0};
        answer_rows(k, &b, &t, ids, n, from, to, win);
        http_set_buf(res, 200, &b, "application/json");
    }
    free(ids);
    trace_free(&t);
    k->info_free(&in);
}

/* the kernels' side of rows_kind */
static size_t k_nrows(const trace *t) { return t->kernels.n; }
static int k_info(db *d, const char *run, rows_info *in, char *err, size_t errlen) {
    return db_spyramid_info(d, run, &in->k, err, errlen);
}
static void k_info_free(rows_info *in) { spyr_info_free(&in->k); }
static void k_extent(const rows_info *in, int64_t *t_min, int64_t *t_max) {
    *t_min = in->k.t_min, *t_max = in->k.t_max;
}
static int k_rows(db *d, const rows_info *in, int64_t from, int64_t to, int64_t max, trace *out,
                  int64_t **ids, size_t *n, char *err, size_t errlen) {
    return db_spyramid_kernels(d, &in->k, from, to, max, out, ids, n, err, errlen);
}
static void k_bins(db *d, const rows_info *in, int64_t from, int64_t to, int64_t max,
                   http_response *res) {
    answer_bins(d, &in->k, from, to, max, NULL, res);
}

static const rows_kind kernel_rows = {
    "kernels", "k", DB_LOAD_KERNELS, tj_put_kernel_id, k_nrows, db_spyramid_count,
    k_info, k_info_free, k_extent, k_rows, k_bins,
};

void sbin_kernels(db *d, const http_request *req, const char *run, int64_t from, bool has_from,
                  int64_t to, bool has_to, int64_t max, http_response *res) {
    rows_window(&kernel_rows, d, req, run, from, has_from, to, has_to, max, res);
}

/* the copies' side */
static size_t c_nrows(const trace *t) { return t->copies.n; }
static int c_info(db *d, const char *run, rows_info *in, char *err, size_t errlen) {
    return db_spyramid_copy_info(d, run, &in->c, err, errlen);
}
static void c_info_free(rows_info *in) { cpyr_info_free(&in->c); }
static void c_extent(const rows_info *in, int64_t *t_min, int64_t *t_max) {
    *t_min = in->c.t_min, *t_max = in->c.t_max;
}
static int c_rows(db *d, const rows_info *in, int64_t from, int64_t to, int64_t max, trace *out,
                  int64_t **ids, size_t *n, char *err, size_t errlen) {
    return db_spyramid_copies(d, &in->c, from, to, max, out, ids, n, err, errlen);
}
static void c_bins(db *d, const rows_info *in, int64_t from, int64_t to, int64_t max,
                   http_response *res) {
    answer_copy_bins(d, &in->c, from, to, max, res);
}

static const rows_kind copy_rows = {
    "copies", "c", DB_LOAD_COPIES, tj_put_copy_id, c_nrows, db_spyramid_copy_count,
    c_info, c_info_free, c_extent, c_rows, c_bins,
};

void sbin_copies(db *d, const http_request *req, const char *run, int64_t from, bool has_from,
                 int64_t to, bool has_to, int64_t max, http_response *res) {
    rows_window(&copy_rows, d, req, run, from, has_from, to, has_to, max, res);
}
