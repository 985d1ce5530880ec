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

static int bad_device(const char *file, const char *what, size_t i, const char *field, int64_t v,
                      size_t n, char *err, size_t errlen) {
    snprintf(err, errlen, "%s: %s[%zu].%s: %" PRId64 " is not a GPU of the trace (it has %zu%s)",
             file, what, i, field, v, n, n == 1 ? ": device 0, or \"devices\" to list several"
                                                : " in \"devices\"");
    return -1;
}

#define TIME(what, i, rec, f) \
    if (!time_ok((rec)->f)) return bad_time(file, what, i, #f, (rec)->f, err, errlen)
#define COUNT(what, i, rec, f) \
    if ((rec)->f < 0 && (int64_t)(rec)->f != TRACE_NONE) \
        return bad_count(file, what, i, #f, (int64_t)(rec)->f, err, errlen)

/* a GPU of the trace (DESIGN §5: an index in its devices, 0 with none):
 * ngpus of them */
#define DEVICE(what, i, rec, f) \
    if ((rec)->f < 0 || (size_t)(rec)->f >= ngpus) \
        return bad_device(file, what, i, #f, (int64_t)(rec)->f, ngpus, err, errlen)

/* The checks of one kind over a record's field list (simcore/trace_fields.h):
 * CHECKS(LIST, CHECK, what, i, rec) runs CHECK's test on every field the
 * list marks CHECK, in the list's order. */
#define CK_ONE_TIME(col, member, kind, check, ...) CK_IF_##check##_TIME(member)
#define CK_ONE_COUNT(col, member, kind, check, ...) CK_IF_##check##_COUNT(member)
#define CK_IF_TF_CK_TIME_TIME(m) TIME(ck_what, ck_i, ck_rec, m);
#define CK_IF_TF_CK_COUNT_COUNT(m) COUNT(ck_what, ck_i, ck_rec, m);
#define CK_IF_TF_CK_TIME_COUNT(m)
#define CK_IF_TF_CK_COUNT_TIME(m)
#define CK_IF_TF_CK_NONE_TIME(m)
#define CK_IF_TF_CK_NONE_COUNT(m)
#define CK_IF_TF_CK_SM_TIME(m)
#define CK_IF_TF_CK_SM_COUNT(m)
#define CK_IF_TF_CK_KERNEL_TIME(m)
#define CK_IF_TF_CK_KERNEL_COUNT(m)
#define CK_IF_TF_CK_DEVICE_TIME(m)
#define CK_IF_TF_CK_DEVICE_COUNT(m)
#define CK_ONE_DEVICE(col, member, kind, check, ...) CK_IF_##check##_DEVICE(member)
#define CK_IF_TF_CK_DEVICE_DEVICE(m) DEVICE(ck_what, ck_i, ck_rec, m);
#define CK_IF_TF_CK_TIME_DEVICE(m)
#define CK_IF_TF_CK_COUNT_DEVICE(m)
#define CK_IF_TF_CK_NONE_DEVICE(m)
#define CK_IF_TF_CK_SM_DEVICE(m)
#define CK_IF_TF_CK_KERNEL_DEVICE(m)

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
        /* sm and kernel above; the list's counts, then its times */
        const char *ck_what = "blocks";
        size_t ck_i = i;
        const trace_block *ck_rec = b;
        TRACE_BLOCK_FIELDS(CK_ONE_COUNT, TF_NOSEP)
        TRACE_BLOCK_FIELDS(CK_ONE_TIME, TF_NOSEP)
        /* the store refuses it (blocks: stop >= start); named here, it is the
         * input's fault and says where, not the database's */
        if (b->start != TRACE_NONE && b->end != TRACE_NONE && b->end < b->start) {
            snprintf(err, errlen, "%s: blocks[%zu].end: %" PRId64 " ns is before its start (%"
                     PRId64 " ns)", file, i, b->end, b->start);
            return -1;
        }
    }
    return 0;
}

static int check(const trace *t, size_t ngpus, const char *file, char *err, size_t errlen) {
    if (!file) file = "trace";
    if (t->has_device && (t->device.sms < 0 || t->device.sms > IMP_MAX_SMS)) {
        snprintf(err, errlen, "%s: device.sms: %d is out of range (0..%d, the most SMs schedlab "
                 "stores)", file, (int)t->device.sms, IMP_MAX_SMS);
        return -1;
    }
    for (size_t i = 0; i < t->devices.n; i++)
        if (t->devices.v[i].sms < 0 || t->devices.v[i].sms > IMP_MAX_SMS) {
            snprintf(err, errlen, "%s: devices[%zu].sms: %d is out of range (0..%d, the most SMs "
                     "schedlab stores)", file, i, (int)t->devices.v[i].sms, IMP_MAX_SMS);
            return -1;
        }
    if (t->devices.n == 1) {
        /* one GPU is `device`; "devices" lists several (DESIGN §5) */
        snprintf(err, errlen, "%s: devices: lists one GPU; a trace of one GPU has it as "
                 "\"device\" and no \"devices\"", file);
        return -1;
    }
    if (!time_ok(t->origin) && t->origin != TRACE_NONE) {
        /* the top-level member itself, not a record (issue 31) */
        snprintf(err, errlen, "%s: origin: %" PRId64 " ns is out of range (an origin must be "
                 "within +-2^62 ns)", file, t->origin);
        return -1;
    }
    for (size_t i = 0; i < t->kernels.n; i++) {
        /* the list's times, then its counts */
        const char *ck_what = "kernels";
        size_t ck_i = i;
        const trace_kernel *ck_rec = &t->kernels.v[i];
        TRACE_KERNEL_FIELDS(CK_ONE_TIME, TF_NOSEP)
        TRACE_KERNEL_FIELDS(CK_ONE_COUNT, TF_NOSEP)
        TRACE_KERNEL_FIELDS(CK_ONE_DEVICE, TF_NOSEP)
        /* as a block's (imp_check_blocks): a kernel that ends before its
         * first block was stored, and its duration came out negative
         * (a summary left it out, a replay missed it by 100 %) */
        if (ck_rec->first_block != TRACE_NONE && ck_rec->end != TRACE_NONE &&
            ck_rec->end < ck_rec->first_block) {
            snprintf(err, errlen, "%s: kernels[%zu].end: %" PRId64 " ns is before its first_block (%"
                     PRId64 " ns)", file, i, ck_rec->end, ck_rec->first_block);
            return -1;
        }
    }
    if (imp_check_blocks(t->blocks.v, t->blocks.n, 0, t->kernels.n, file, err, errlen))
        return -1;
    for (size_t i = 0; i < t->copies.n; i++) {
        const char *ck_what = "copies";
        size_t ck_i = i;
        const trace_copy *ck_rec = &t->copies.v[i];
        TRACE_COPY_FIELDS(CK_ONE_TIME, TF_NOSEP)
        TRACE_COPY_FIELDS(CK_ONE_COUNT, TF_NOSEP)
        TRACE_COPY_FIELDS(CK_ONE_DEVICE, TF_NOSEP)
        /* as a block's and a kernel's: no copy runs backwards */
        if (ck_rec->start != TRACE_NONE && ck_rec->end != TRACE_NONE && ck_rec->end < ck_rec->start) {
            snprintf(err, errlen, "%s: copies[%zu].end: %" PRId64 " ns is before its start (%" PRId64
                     " ns)", file, i, ck_rec->end, ck_rec->start);
            return -1;
        }
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
    for (size_t i = 0; i < t->host_calls.n; i++) {
        const trace_host_call *c = &t->host_calls.v[i];
        TIME("host_calls", i, c, at);
        TIME("host_calls", i, c, issue);
        TIME("host_calls", i, c, end);
    }
    return 0;
}

int imp_check_trace(const trace *t, const char *file, char *err, size_t errlen) {
    return check(t, trace_device_count(t), file, err, errlen);
}

int imp_check_batch(const trace *t, const char *file, char *err, size_t errlen) {
    return check(t, IMP_MAX_GPUS, file, err, errlen);
}
