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

#include "../../db/pyramid.h"
#include "idset.h"
#include "jw.h"
#include "window.h"

static const idset_words kernel_ids = {"kernels", "a kernel id", "ids", "a kernel"};

bool occ_parse_kernels(const char *s, int64_t n_kernels, uint8_t *bits, char *err, size_t errlen) {
    return idset_parse(&kernel_ids, s, n_kernels, bits, err, errlen);
}

void occupancy_bins(db *d, const http_request *req, const char *run, int64_t from,
                    bool has_from, int64_t to, bool has_to, int64_t max, const char *kernels,
                    http_response *res) {
    char err[512];
    pyr_run r;
    int rc = db_pyramid_run_k(d, run, &r, err, sizeof err);
    if (rc) {
        window_db_fail(d, res, rc, err);
        return;
    }
    if (!window_range(r.t_min, r.t_max, &from, has_from, &to, has_to, res)) return;
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
             run, from, to, max, idset_hash(bits, nbytes));
    res->cache_control = IDSET_IMMUTABLE;
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
