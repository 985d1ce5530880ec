/* trace_check.c -- range checks on imported traces. See trace_check.h. */
#include "trace_check.h"

#include <inttypes.h>
#include <stdio.h>

static bool time_ok(int64_t v) { return v == TRACE_NONE || (v > -IMP_MAX_TIME && v < IMP_MAX_TIME); }

static int bad_time(const char *file, const char *what, size_t i, const char *field, int64_t v,
                    char *err, size_t errlen) {
    snprintf(err, errlen, "%s: %s[%zu].%s: %" PRId64 " ns is out of range (times must be "
             "within +-2^62 ns of the trace's origin)", file, what, i, field, v);
    return -1;
}

static int bad_count(const char *file, const char *what, size_t i, const char *field, int64_t v,
                     char *err, size_t errlen) {
    snprintf(err, errlen, "%s: %s[%zu].%s: %" PRId64 " is negative", file, what, i, field, v);
    return -1;
}

#define TIME(what, i, rec, f) \
    if (!time_ok((rec)->f)) return bad_time(file, what, i, #f, (rec)->f, err, errlen)
#define COUNT(what, i, rec, f) \
    if ((rec)->f < 0 && (int64_t)(rec)->f != TRACE_NONE) \
        return bad_count(file, what, i, #f, (int64_t)(rec)->f, err, errlen)

int imp_check_blocks(const trace_block *v, size_t n, size_t first, size_t nkernels,
                     const char *file, char *err, size_t errlen) {
    if (!file) file = "trace";
    for (size_t j = 0; j < n; j++) {
        const trace_block *b = &v[j];
        size_t i = first + j;
        if (b->sm < 0 || b->sm >= IMP_MAX_SMS) {
            snprintf(err, errlen, "%s: blocks[%zu].sm: %d is out of range (0..%d, the most SMs "
                     "schedlab stores)", file, i, (int)b->sm, IMP_MAX_SMS - 1);
            return -1;
        }
        if (b->kernel < 0 || (size_t)b->kernel >= nkernels) {
            snprintf(err, errlen, "%s: blocks[%zu].kernel: %d names no kernel (the trace has %zu)",
                     file, i, (int)b->kernel, nkernels);
            return -1;
        }
        COUNT("blocks", i, b, index);
        TIME("blocks", i, b, start);
        TIME("blocks", i, b, end);
    }
    return 0;
}

int imp_check_trace(const trace *t, const char *file, char *err, size_t errlen) {
    if (!file) file = "trace";
    if (t->has_device && (t->device.sms < 0 || t->device.sms > IMP_MAX_SMS)) {
        snprintf(err, errlen, "%s: device.sms: %d is out of range (0..%d, the most SMs schedlab "
                 "stores)", file, (int)t->device.sms, IMP_MAX_SMS);
        return -1;
    }
    if (!time_ok(t->origin) && t->origin != TRACE_NONE) {
        /* the top-level member itself, not a record (issue 31) */
        snprintf(err, errlen, "%s: origin: %" PRId64 " ns is out of range (an origin must be "
                 "within +-2^62 ns)", file, t->origin);
        return -1;
    }
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        TIME("kernels", i, k, issue);
        TIME("kernels", i, k, first_block);
        TIME("kernels", i, k, fully_dispatched);
        TIME("kernels", i, k, end);
        COUNT("kernels", i, k, blocks);
        COUNT("kernels", i, k, threads);
        COUNT("kernels", i, k, smem);
        COUNT("kernels", i, k, regs);
    }
    if (imp_check_blocks(t->blocks.v, t->blocks.n, 0, t->kernels.n, file, err, errlen))
        return -1;
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        TIME("copies", i, c, issue);
        TIME("copies", i, c, start);
        TIME("copies", i, c, end);
        COUNT("copies", i, c, bytes);
    }
    for (size_t i = 0; i < t->queue_events.n; i++) {
        const trace_queue_event *q = &t->queue_events.v[i];
        TIME("queue_events", i, q, t);
    }
    for (size_t i = 0; i < t->warp_issues.n; i++) {
        const trace_warp_issue *w = &t->warp_issues.v[i];
        if (w->sm < 0 || w->sm >= IMP_MAX_SMS) {
            snprintf(err, errlen, "%s: warp_issues[%zu].sm: %d is out of range (0..%d)", file, i,
                     (int)w->sm, IMP_MAX_SMS - 1);
            return -1;
        }
        COUNT("warp_issues", i, w, cycle);
    }
    for (size_t i = 0; i < t->jobs.n; i++) {
        const trace_job *j = &t->jobs.v[i];
        TIME("jobs", i, j, release);
        TIME("jobs", i, j, start);
        TIME("jobs", i, j, end);
        TIME("jobs", i, j, deadline);
    }
    return 0;
}
