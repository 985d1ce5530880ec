/* occupancy.c -- the occupancy bins of some kernels: GET
 * /api/runs/{run}/occupancy?from&to&max&kernels (see occupancy.h). What the
 * timeline draws in occupancy mode when the legend hides kernels: the same
 * bins as /blocks answers past `max`, of the shown kernels only, exact (they
 * equal the bins computed from those kernels' blocks). */
#include "occupancy.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/pyramid.h"
#include "jw.h"
#include "window.h"

#define IMMUTABLE "public, max-age=31536000, immutable"

/* a decimal id at *p (advanced), within 0..INT32_MAX */
static bool read_id(const char **p, int64_t *out) {
    const char *s = *p;
    if (*s < '0' || *s > '9') return false;
    int64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s++ - '0');
        if (v > INT32_MAX) return false;
    }
    *p = s;
    *out = v;
    return true;
}

bool occ_parse_kernels(const char *s, int64_t n_kernels, uint8_t *bits, char *err, size_t errlen) {
    const char *p = s;
    while (*p) {
        const char *item = p;
        int64_t a, b;
        if (!read_id(&p, &a)) {
            snprintf(err, errlen, "kernels: \"%.40s\" at character %td: expected a kernel id",
                     item, item - s + 1);
            return false;
        }
        b = a;
        if (*p == '-') {
            p++;
            if (!read_id(&p, &b)) {
                snprintf(err, errlen, "kernels: \"%.40s\" at character %td: expected a kernel id after '-'",
                         item, item - s + 1);
                return false;
            }
            if (b < a) {
                snprintf(err, errlen, "kernels: range %" PRId64 "-%" PRId64
                         " at character %td runs backwards", a, b, item - s + 1);
                return false;
            }
        }
        if (*p && *p != ',') {
            snprintf(err, errlen, "kernels: \"%.40s\" at character %td: expected ',' between ids",
                     p, p - s + 1);
            return false;
        }
        if (*p) p++;
        if (b >= n_kernels) {
            snprintf(err, errlen, "kernels: %" PRId64 " is not a kernel of the run (ids 0..%" PRId64 ")",
                     b, n_kernels - 1);
            return false;
        }
        for (int64_t k = a; k <= b; k++) bits[k >> 3] |= (uint8_t)(1u << (k & 7));
    }
    return true;
}

/* FNV-1a of the set: the ETag names the set, however it was spelled */
static uint64_t set_hash(const uint8_t *bits, size_t n) {
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++) h = (h ^ bits[i]) * 1099511628211u;
    return h;
}

void occupancy_bins(db *d, const http_request *req, const char *run, int64_t from,
                    bool has_from, int64_t to, bool has_to, int64_t max, const char *kernels,
                    http_response *res) {
    char err[512];
    pyr_run r;
    int rc = db_pyramid_run_k(d, run, &r, err, sizeof err);
    if (rc) {
        http_set_error(res, rc == DB_NOT_FOUND ? 404 : 500, "%s", err);
        return;
    }
    if (!has_from) from = r.t_min != TRACE_NONE ? r.t_min : 0;
    if (!has_to) to = r.t_max != TRACE_NONE ? r.t_max : from;
    if (!has_to && to <= from) to = from + 1;
    if (to <= from) {
        http_set_error(res, 400, "to: %" PRId64 " is not after from (%" PRId64 ")", to, from);
        return;
    }
    size_t nbytes = (size_t)(r.n_kernels + 7) / 8;
    uint8_t *bits = calloc(nbytes ? nbytes : 1, 1);
    if (!bits) {
        http_set_error(res, 500, "out of memory for the kernel set");
        return;
    }
    if (!kernels) memset(bits, 0xff, nbytes);
    else if (!occ_parse_kernels(kernels, r.n_kernels, bits, err, sizeof err)) {
        free(bits);
        http_set_error(res, 400, "%s", err);
        return;
    }
    snprintf(res->etag, sizeof res->etag, "\"%s.%" PRId64 ".%" PRId64 ".%" PRId64 ".k%016" PRIx64 "\"",
             run, from, to, max, set_hash(bits, nbytes));
    res->cache_control = IMMUTABLE;
    if (http_etag_fresh(req, res->etag)) {
        free(bits);
        res->status = 200;
        res->content_type = "application/json";
        return;
    }
    /* about `max` cells in all, as /blocks' bins */
    int64_t want = max / r.sms;
    if (want < 1) want = 1;
    if (want > WINDOW_BINS_MAX) want = WINDOW_BINS_MAX;
    pyr_bins pb;
    rc = db_pyramid_bins_k(d, &r, from, to, want, bits, r.n_kernels, &pb, err, sizeof err);
    free(bits);
    if (rc) {
        res->etag[0] = '\0';
        res->cache_control = NULL;
        http_set_error(res, 500, "%s", err);
        return;
    }
    jw_buf b = {0};
    window_bins_json(&b, &pb, from, to);
    pyr_bins_free(&pb);
    http_set_buf(res, 200, &b, "application/json");
}
