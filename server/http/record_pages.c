/* record_pages.c -- a run's kernels or copies a page at a time, in the
 * order of a table column (record_pages.h, docs/api.md). The arguments are
 * checked here, the page comes from db/rorder.h, the records are written
 * by the trace writer (tj_put_kernel_id: the same objects as every list). */
#include "record_pages.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/rorder.h"
#include "trace_json.h"

#define RPAGE_LIMIT_DEFAULT 100

static const char *const paging_args[] = {"offset", "limit", "sort", "order", "name"};

bool rpage_wanted(const http_request *req) {
    for (size_t i = 0; i < sizeof paging_args / sizeof *paging_args; i++)
        if (http_query(req, paging_args[i])) return true;
    return false;
}

/* ?key= as a whole number in lo..hi (absent: *out unchanged) */
static bool q_count(const http_request *req, http_response *res, const char *key, int64_t lo,
                    int64_t hi, int64_t *out) {
    const char *v = http_query(req, key);
    if (!v) return true;
    int64_t x;
    if (!http_parse_int(v, &x)) {
        http_set_error(res, 400, "%s: expected a whole number, got \"%s\"", key, v);
        return false;
    }
    if (x < lo || x > hi) {
        http_set_error(res, 400, "%s: %" PRId64 " is out of range (%" PRId64 "..%" PRId64 ")",
                       key, x, lo, hi);
        return false;
    }
    *out = x;
    return true;
}

void rpage_records(db *d, const http_request *req, const char *run, bool copies,
                   http_response *res) {
    ror_kind kind = copies ? ROR_COPIES : ROR_KERNELS;
    const char *what = copies ? "copies" : "kernels";
    /* a page is not a window: from/to/max select the other form */
    static const char *const window_args[] = {"from", "to", "max"};
    for (size_t i = 0; i < sizeof window_args / sizeof *window_args; i++) {
        if (http_query(req, window_args[i])) {
            http_set_error(res, 400,
                           "%s: a window (from, to, max) and a page (offset, limit, sort, order, "
                           "name) cannot be asked for at once",
                           window_args[i]);
            return;
        }
    }
    ror_query q = {.kind = kind, .key = 0, .limit = RPAGE_LIMIT_DEFAULT};
    if (!q_count(req, res, "offset", 0, INT64_C(1) << 62, &q.offset) ||
        !q_count(req, res, "limit", 1, ROR_LIMIT_MAX, &q.limit))
        return;
    const char *sort = http_query(req, "sort");
    if (sort && (q.key = ror_key_parse(kind, sort)) < 0) {
        char keys[256];
        http_set_error(res, 400, "sort: \"%s\" is not a column of the %s table (%s)", sort, what,
                       ror_key_list(kind, keys, sizeof keys));
        return;
    }
    const char *order = http_query(req, "order");
    if (order && strcmp(order, "asc") && strcmp(order, "desc")) {
        http_set_error(res, 400, "order: \"%s\" is neither asc nor desc", order);
        return;
    }
    q.desc = order && !strcmp(order, "desc");
    q.name = http_query(req, "name");   /* never empty: http.c's query_check */

    trace t;
    trace_init(&t);
    int64_t *ids = NULL, total = 0;
    size_t n = 0;
    char err[512];
    int rc = db_rorder_page(d, run, &q, &t, &ids, &n, &total, err, sizeof err);
    if (rc == DB_NOT_FOUND) http_set_error(res, 404, "no run named \"%s\"", run);
    else if (rc) http_set_error(res, 500, "%s", err);
    else {
        tj_buf b = {0};
        jw_init(&b);
        tj_puts(&b, "{\"offset\":");
        tj_put_i64(&b, q.offset);
        tj_puts(&b, ",\"limit\":");
        tj_put_i64(&b, q.limit);
        tj_puts(&b, ",\"sort\":");
        tj_put_str(&b, sort ? sort : "id");
        tj_puts(&b, ",\"order\":");
        tj_put_str(&b, q.desc ? "desc" : "asc");
        if (q.name) {
            tj_puts(&b, ",\"name\":");
            tj_put_str(&b, q.name);
        }
        tj_puts(&b, ",\"total\":");
        tj_put_i64(&b, total);
        tj_puts(&b, ",\"");
        tj_puts(&b, what);
        tj_puts(&b, "\":[");
        for (size_t i = 0; i < n; i++) {
            if (i) tj_putc(&b, ',');
            if (copies) tj_put_copy_id(&b, &t, i, ids[i]);
            else tj_put_kernel_id(&b, &t, i, ids[i]);
        }
        tj_puts(&b, "]}");
        if (b.oom) {
            tj_buf_free(&b);
            http_set_error(res, 500, "a page of %s: out of memory", what);
        } else {
            http_set_buf(res, 200, &b, "application/json");
        }
    }
    free(ids);
    trace_free(&t);
}
