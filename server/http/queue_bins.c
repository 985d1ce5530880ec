/* queue_bins.c -- the binned queue lengths of a window. See queue_bins.h. */
#include "queue_bins.h"

#include <jansson.h>

#include "../../db/qpyramid.h"
#include "trace_json.h"

void queue_bins(db *d, const char *run, int64_t from, int64_t to, int64_t bins,
                http_response *res) {
    if (bins < 1 || bins > 10000) {
        http_set_error(res, 400, "bins: expected 1 to 10000 bins, got %lld", (long long)bins);
        return;
    }
    if (from >= to) {
        http_set_error(res, 400, "from/to: the window [%lld, %lld) is empty", (long long)from,
                       (long long)to);
        return;
    }
    qpyr_bins b;
    char err[512];
    int rc = db_qpyramid_bins(d, run, from, to, bins, &b, err, sizeof err);
    if (rc == DB_NOT_FOUND) { http_set_error(res, 404, "no run named \"%s\"", run); return; }
    if (rc == DB_TOO_WIDE) {
        http_set_error(res, 400, "from/to: the window [%lld, %lld) is too wide: %s",
                       (long long)from, (long long)to, err);
        return;
    }
    if (rc) { http_set_error(res, 500, "%s", err); return; }
    json_t *queues = json_array();
    for (size_t q = 0; q < b.nqueues; q++) {
        json_t *integ = json_array(), *mx = json_array();
        for (size_t i = 0; i < b.nbins; i++) {
            json_array_append_new(integ, json_integer(b.integral[q * b.nbins + i]));
            json_array_append_new(mx, json_integer(b.max[q * b.nbins + i]));
        }
        json_array_append_new(queues, json_pack("{s:o, s:o, s:o}", "queue", tj_string(b.names[q]),
                                                "integral", integ, "max", mx));
    }
    http_set_json(res, 200,
                  json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "from", (json_int_t)from, "to",
                            (json_int_t)to, "z", (json_int_t)b.z, "bin_ns", (json_int_t)b.bin_ns,
                            "k0", (json_int_t)b.k0, "events", (json_int_t)b.events, "queues",
                            queues));
    qpyr_bins_free(&b);
}
