/* trace_json.c -- schedlab-trace/1 and Chrome trace-event JSON. See trace_json.h. */
#include "trace_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../importers/schedlab_trace.h"

#define TRACE_SCHEMA TJ_SCHEMA

/* ---- buffer: jw (jw.h) ---------------------------------------------------------- */

void tj_buf_free(tj_buf *b) { jw_free(b); }
void tj_puts(tj_buf *b, const char *s) { jw_puts(b, s); }
void tj_putc(tj_buf *b, char c) { jw_putc(b, c); }

/* printf only where it is rare (doubles, names of tracks); the per-record
 * paths format integers with jw. */
static void putf(tj_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(tj_buf *b, const char *fmt, ...) {
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) jw_putn(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

#define PUTL(b, lit) jw_putn((b), (lit), sizeof(lit) - 1)

void tj_put_i64(tj_buf *b, int64_t v) {
    if (v == TRACE_NONE) PUTL(b, "null");
    else jw_i64_raw(b, v);
}

/* 0 stands for "unknown" in counts (blocks, threads, regs). */
static void put_count(tj_buf *b, int64_t v) {
    if (v == 0) PUTL(b, "null");
    else jw_i64_raw(b, v);
}

void tj_put_str(tj_buf *b, const char *str) { jw_str_raw(b, str); }

static void key(tj_buf *b, const char *k, bool first) {
    if (!first) tj_putc(b, ',');
    tj_putc(b, '"');
    tj_puts(b, k);
    tj_puts(b, "\":");
}

/* ---- records ---------------------------------------------------------------- */

static const char *order_name(sim_sm_order_kind k) {
    return k == SIM_SM_ORDER_EVENS_THEN_ODDS ? "evens-then-odds" : "ascending";
}

/* A device's rate or bandwidth as written where it came from: the fewest
 * digits (15, 16, else 17) that read back as the same double, so the
 * RTX 2080 Ti's 12.46 sectors per cycle is "12.46", not %.17g's
 * "12.460000000000001" (records keep %.17g: put_f64). */
static void put_f64_short(tj_buf *b, double v) {
    if (!isfinite(v)) {
        tj_puts(b, "null");
        return;
    }
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (prec == 17 || strtod(tmp, NULL) == v) break;
    }
    tj_puts(b, tmp);
}

void tj_put_device(tj_buf *b, const sim_device *d) {
    char name[SIM_DEVICE_NAME_MAX + 1];
    memcpy(name, d->name, SIM_DEVICE_NAME_MAX);
    name[SIM_DEVICE_NAME_MAX] = '\0';
    tj_puts(b, "{\"name\":");
    tj_put_str(b, name);
    /* every numeric field, in the order of simcore's table (device.h) */
    for (size_t i = 0; i < sim_device_nfields; i++) {
        const sim_device_field *f = &sim_device_fields[i];
        /* the warp model's fields, when unknown, are left out (device.h) */
        if (sim_device_field_unset(d, f)) continue;
        key(b, f->key, false);
        if (f->type != SIM_DT_F64) {
            tj_put_i64(b, sim_device_get_i64(d, f));
        } else {
            put_f64_short(b, sim_device_get_f64(d, f));
        }
    }
    key(b, "sm_order", false);
    if (d->sm_order_kind == SIM_SM_ORDER_EXPLICIT) {
        tj_putc(b, '[');
        int32_t n = d->sms < SIM_MAX_SMS ? d->sms : SIM_MAX_SMS;
        for (int32_t i = 0; i < n; i++) putf(b, i ? ",%d" : "%d", (int)d->sm_order[i]);
        tj_putc(b, ']');
    } else {
        tj_put_str(b, order_name(d->sm_order_kind));
    }
    tj_putc(b, '}');
}

/* ---- the records of the field lists (simcore/trace_fields.h) ---------------------- */

static void put_priority(tj_buf *b, int32_t p) {
    if (p == TRACE_PRIO_NONE) tj_puts(b, "\"none\"");
    else jw_i64_raw(b, p);
}

static void put_f64(tj_buf *b, double v) {
    if (isfinite(v)) putf(b, "%.17g", v);
    else tj_puts(b, "null");
}

static void put_dim3(tj_buf *b, const int32_t v[3]) {
    jw_putc(b, '[');
    jw_i64_raw(b, v[0]);
    jw_putc(b, ',');
    jw_i64_raw(b, v[1]);
    jw_putc(b, ',');
    jw_i64_raw(b, v[2]);
    jw_putc(b, ']');
}

/* Whether the writer writes a field of record r (value v): the list's
 * `when` (trace.h says which runs have these fields; elsewhere they are 0
 * and left out). */
#define TJ_WHEN(when, r, v) TJW_##when(r, v)
#define TJW_TJ_ALWAYS(r, v) 1
#define TJW_TJ_IF_SET(r, v) ((v) != 0)
#define TJW_TJ_IF_WARP(r, v) ((r)->instructions > 0)
#define TJW_TJ_IF_QOS(r, v) ((r)->ipc_isolated > 0 && isfinite((r)->ipc_isolated))
#define TJW_TJ_IF_QOS_GOAL(r, v) (TJW_TJ_IF_QOS(r, v) && (r)->qos_goal > 0)
#define TJW_TJ_IF_QOS_SHARED(r, v) \
    (TJW_TJ_IF_QOS(r, v) && !((r)->qos_goal > 0) && isfinite((r)->ipc_shared))
/* (the record's trace is `t` wherever a record is written) */
#define TJW_TJ_IF_DEVICES(r, v) (t->devices.n > 0)

/* A field's key (k: the literal ,"name":) and value by its jkind; a dim3 is
 * written at its first element, and left out when unknown (all 0, as
 * api.md says). */
#define TJ_PUT(jkind, b, t, k, v, p) TJP_##jkind(b, t, k, v, p)
#define TJP_TJ_STR(b, t, k, v, p) (PUTL(b, k), tj_put_str(b, trace_str_get(t, v)))
#define TJP_TJ_PRIO(b, t, k, v, p) (PUTL(b, k), put_priority(b, v))
#define TJP_TJ_TIME(b, t, k, v, p) (PUTL(b, k), tj_put_i64(b, v))
#define TJP_TJ_SIZE(b, t, k, v, p) (PUTL(b, k), tj_put_i64(b, v))
#define TJP_TJ_COUNT(b, t, k, v, p) (PUTL(b, k), put_count(b, v))
#define TJP_TJ_INT(b, t, k, v, p) (PUTL(b, k), jw_i64_raw(b, v))
#define TJP_TJ_INDEX(b, t, k, v, p) \
    (PUTL(b, k), (v) < 0 ? PUTL(b, "null") : jw_i64_raw(b, v))
#define TJP_TJ_DIR(b, t, k, v, p) (PUTL(b, k), tj_put_str(b, trace_copy_dir_name(v)))
#define TJP_TJ_DIM3(b, t, k, v, p) \
    ((p)[0] || (p)[1] || (p)[2] ? (PUTL(b, k), put_dim3(b, p)) : (void)0)
#define TJP_TJ_DIM3_REST(b, t, k, v, p) ((void)0)
#define TJP_TJ_F64(b, t, k, v, p) (PUTL(b, k), put_f64(b, v))
#define TJP_TJ_FRACTION(b, t, k, v, p) (PUTL(b, k), put_f64(b, v))
#define TJP_TJ_BOOL(b, t, k, v, p) ((v) ? PUTL(b, k "true") : PUTL(b, k "false"))
#define TJP_TJ_DEVICE(b, t, k, v, p) (PUTL(b, k), jw_i64_raw(b, v))

/* One field of record r (of trace t) into b, every field after the id */
#define TJ_FIELD(col, member, kind, check, json, jkind, when, sort)                     \
    if (TJ_WHEN(when, r, r->member))                                                      \
        TJ_PUT(jkind, b, t, ",\"" #json "\":", r->member, &r->member);

void tj_put_kernel(tj_buf *b, const trace *t, size_t i) {
    tj_put_kernel_id(b, t, i, (int64_t)i);
}

void tj_put_kernel_id(tj_buf *b, const trace *t, size_t i, int64_t id) {
    const trace_kernel *r = &t->kernels.v[i];
    PUTL(b, "{\"id\":");
    jw_i64_raw(b, id);
    TRACE_KERNEL_FIELDS(TJ_FIELD, TF_NOSEP)
    tj_putc(b, '}');
}

/* Literal text then a number into tmp at n; TRACE_NONE is null. */
#define CAT_LIT(tmp, n, lit) (memcpy((tmp) + (n), (lit), sizeof(lit) - 1), (n) += sizeof(lit) - 1)
static size_t cat_time(char *tmp, size_t n, int64_t v) {
    if (v == TRACE_NONE) {
        memcpy(tmp + n, "null", 4);
        return n + 4;
    }
    return n + jw_fmt_i64(tmp + n, v);
}

/* A block's field (TJ_INT or TJ_TIME: the kinds a block's list uses) as
 * ,"name":value into tmp at n; the room each takes at most */
#define TJ_CAT(col, member, kind, check, json, jkind, when, sort) \
    CAT_LIT(tmp, n, ",\"" #json "\":");                         \
    n = TJC_##jkind(tmp, n, blk->member);
#define TJC_TJ_INT(tmp, n, v) ((n) + jw_fmt_i64((tmp) + (n), v))
#define TJC_TJ_TIME(tmp, n, v) cat_time(tmp, n, v)
#define TJ_CAT_ROOM(col, member, kind, check, json, ...) +sizeof(",\"" #json "\":") + 20

/* The hottest record (16 M of them in a big run): formatted on the stack
 * and appended in one piece, one bounds check instead of eleven. */
static void put_block(tj_buf *b, const trace_block *blk, int32_t device) {
    char tmp[2 + sizeof(",\"device\":") + 20 TRACE_BLOCK_FIELDS(TJ_CAT_ROOM, TF_NOSEP)];
    size_t n = 0;
    TRACE_BLOCK_FIELDS(TJ_CAT, TF_NOSEP)
    if (device >= 0) {
        CAT_LIT(tmp, n, ",\"device\":");
        n += jw_fmt_i64(tmp + n, device);
    }
    tmp[0] = '{';   /* the first field's comma */
    tmp[n++] = '}';
    jw_putn(b, tmp, n);
}

void tj_put_block(tj_buf *b, const trace_block *blk) { put_block(b, blk, -1); }

/* A record's GPU in a trace of several (DESIGN §5: on every kernel, copy and
 * block; a block's and a cohort's is its kernel's), -1 for one GPU or a
 * kernel the trace does not hold */
static int32_t kernel_device(const trace *t, int32_t kernel) {
    if (!t->devices.n || kernel < 0 || (size_t)kernel >= t->kernels.n) return -1;
    return t->kernels.v[kernel].device;
}

void tj_put_copy(tj_buf *b, const trace *t, size_t i) {
    tj_put_copy_id(b, t, i, (int64_t)i);
}

void tj_put_copy_id(tj_buf *b, const trace *t, size_t i, int64_t id) {
    const trace_copy *r = &t->copies.v[i];
    PUTL(b, "{\"id\":");
    jw_i64_raw(b, id);
    TRACE_COPY_FIELDS(TJ_FIELD, TF_NOSEP)
    tj_putc(b, '}');
}

void tj_put_queue_event(tj_buf *b, const trace *t, size_t i) {
    const trace_queue_event *e = &t->queue_events.v[i];
    PUTL(b, "{\"t\":");
    jw_i64_raw(b, e->t);
    PUTL(b, ",\"queue\":");
    tj_put_str(b, trace_str_get(t, e->queue));
    tj_puts(b, e->event == TRACE_DEQUEUE ? ",\"event\":\"dequeue\",\"item\":"
                                         : ",\"event\":\"enqueue\",\"item\":");
    tj_put_str(b, trace_str_get(t, e->item));
    tj_putc(b, '}');
}

void tj_put_warp_issue(tj_buf *b, const trace_warp_issue *w) {
    PUTL(b, "{\"sm\":");
    jw_i64_raw(b, w->sm);
    PUTL(b, ",\"subcore\":");
    jw_i64_raw(b, w->subcore);
    PUTL(b, ",\"cycle\":");
    jw_i64_raw(b, w->cycle);
    PUTL(b, ",\"warp\":");
    jw_i64_raw(b, w->warp);
    PUTL(b, ",\"kernel\":");
    jw_i64_raw(b, w->kernel);
    jw_putc(b, '}');
}

void tj_put_warp_epoch(tj_buf *b, const trace_warp_epoch *w) {
    putf(b, "{\"kernel\":%d,\"cycle\":%" PRId64 ",\"cycles\":%" PRId64 ",\"issues\":%" PRId64
         "}", (int)w->kernel, w->cycle, w->cycles, w->issues);
}

void tj_put_job(tj_buf *b, const trace *t, size_t i) {
    const trace_job *j = &t->jobs.v[i];
    tj_puts(b, "{\"task\":");
    tj_put_str(b, trace_str_get(t, j->task));
    PUTL(b, ",\"job\":");
    jw_i64_raw(b, j->job);
    key(b, "release", false); tj_put_i64(b, j->release);
    key(b, "start", false); tj_put_i64(b, j->start);
    key(b, "end", false); tj_put_i64(b, j->end);
    key(b, "deadline", false); tj_put_i64(b, j->deadline);
    tj_putc(b, '}');
}

json_t *tj_device_json(const sim_device *d) {
    tj_buf b = {0};
    tj_put_device(&b, d);
    json_t *j = b.oom ? NULL : json_loadb(b.s, b.len, 0, NULL);
    tj_buf_free(&b);
    return j;
}

json_t *tj_string(const char *s) {
    if (!s) return json_null();
    json_t *j = json_string(s);
    if (j) return j;
    /* not UTF-8: let the writer repair it, then read it back */
    tj_buf b = {0};
    tj_put_str(&b, s);
    j = b.oom ? NULL : json_loadb(b.s, b.len, JSON_DECODE_ANY, NULL);
    tj_buf_free(&b);
    return j;
}

/* ---- a trace as written and read back (tj_as_read) ----------------------------- */

/* The strings of the trace read back: `map[id]` is old string id's id in
 * `n` (0 not yet met), interned in the order the reader meets them. */
typedef struct as_read {
    const trace *t;
    trace n;
    trace_str *map;
    char *err;
    size_t errlen;
    bool failed;
} as_read;

/* String `id` of the old table as the reader interns it: its JSON text
 * (tj_put_str: null for none, bad UTF-8 repaired) read back. */
static trace_str as_read_str(as_read *a, trace_str id) {
    if (!id || id >= a->t->strs.n || a->failed) return 0;
    if (a->map[id]) return a->map[id];
    tj_buf b = {0};
    tj_put_str(&b, a->t->strs.v[id]);
    json_t *j = b.oom ? NULL : json_loadb(b.s, b.len, JSON_DECODE_ANY, NULL);
    tj_buf_free(&b);
    trace_str n = json_is_string(j) ? trace_intern_n(&a->n, json_string_value(j),
                                                     json_string_length(j))
                                    : 0;
    json_decref(j);
    if (!n) {
        a->failed = true;
        snprintf(a->err, a->errlen, "out of memory reading the trace's strings");
        return 0;
    }
    return a->map[id] = n;
}

/* A device as its JSON object reads back (tj_put_device,
 * imp_trace_json_device): 0, -1 refused (err), -2 out of memory. */
static int as_read_device(sim_device *d, const char *path, char *err, size_t errlen) {
    tj_buf b = {0};
    tj_put_device(&b, d);
    json_t *j = b.oom ? NULL : json_loadb(b.s, b.len, 0, NULL);
    tj_buf_free(&b);
    if (!j) return -2;
    jr_ctx c = {.file = "trace", .err = err, .errlen = errlen, .pfx = ""};
    int rc = imp_trace_json_device(&c, j, path, d);
    json_decref(j);
    return rc ? -1 : 0;
}

/* One field of record r (its values before: o; the record's default: def)
 * as the reader gives it back: the default where the writer leaves the
 * field out (its `when`), else the value as its JSON says it. */
#define TJ_AS_READ(col, member, kind, check, json, jkind, when, sort) \
    if (!TJ_WHEN(when, (&o), o.member)) {                             \
        r->member = def.member;                                       \
    } else {                                                          \
        TJA_##jkind(r->member, def.member)                            \
    }
#define TJA_TJ_STR(v, d) (v) = as_read_str(&a, v);
#define TJA_TJ_PRIO(v, d)
#define TJA_TJ_TIME(v, d)
#define TJA_TJ_SIZE(v, d)
#define TJA_TJ_COUNT(v, d)
#define TJA_TJ_INT(v, d)
#define TJA_TJ_INDEX(v, d) if ((v) < 0) (v) = -1;
#define TJA_TJ_DIR(v, d) (v) = trace_copy_dir_parse(trace_copy_dir_name(v));
#define TJA_TJ_DIM3(v, d)
#define TJA_TJ_DIM3_REST(v, d)
#define TJA_TJ_F64(v, d) if (!isfinite(v)) (v) = (d);
#define TJA_TJ_FRACTION(v, d) if (!isfinite(v)) (v) = (d);
#define TJA_TJ_BOOL(v, d)
#define TJA_TJ_DEVICE(v, d)

int tj_as_read(trace *t, char *err, size_t errlen) {
    as_read a = {.t = t, .err = err, .errlen = errlen};
    trace_init(&a.n);
    if (t->oom || !(a.map = calloc(t->strs.n + 1, sizeof *a.map))) {
        snprintf(err, errlen, "out of memory reading the trace back");
        return -1;
    }
    /* the head: the devices, then (read after every record) the meta */
    int dr = 0;
    if (!t->has_device) memset(&t->device, 0, sizeof t->device);
    else dr = as_read_device(&t->device, "device", err, errlen);
    for (size_t i = 0; i < t->devices.n && !dr; i++) {
        char path[32];
        snprintf(path, sizeof path, "devices[%zu]", i);
        dr = as_read_device(&t->devices.v[i], path, err, errlen);
    }
    if (dr == -2) goto oom;
    if (dr) goto refused;
    /* the records in the order the writer writes them (tj_stream_step) */
    trace_kernel kdef;
    trace_copy cdef;
    {
        trace d;
        trace_init(&d);
        trace_kernel *k = trace_add_kernel(&d);
        trace_copy *c = trace_add_copy(&d);
        if (k) kdef = *k;
        if (c) cdef = *c;
        bool oom = !k || !c;
        trace_free(&d);
        if (oom) goto oom;
    }
    for (size_t i = 0; i < t->kernels.n; i++) {
        trace_kernel *r = &t->kernels.v[i], o = *r, def = kdef;
        TRACE_KERNEL_FIELDS(TJ_AS_READ, TF_NOSEP)
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        trace_copy *r = &t->copies.v[i], o = *r, def = cdef;
        (void)o;   /* no copy field is written on a condition of the record */
        TRACE_COPY_FIELDS(TJ_AS_READ, TF_NOSEP)
    }
    for (size_t i = 0; i < t->queue_events.n; i++) {
        trace_queue_event *q = &t->queue_events.v[i];
        q->queue = as_read_str(&a, q->queue);
        q->item = as_read_str(&a, q->item);
        q->event = q->event == TRACE_DEQUEUE ? TRACE_DEQUEUE : TRACE_ENQUEUE;
    }
    for (size_t i = 0; i < t->warp_epochs.n; i++) t->warp_epochs.v[i].pad_ = 0;
    for (size_t i = 0; i < t->jobs.n; i++) t->jobs.v[i].task = as_read_str(&a, t->jobs.v[i].task);
    for (size_t i = 0; i < t->host_calls.n; i++) {
        /* a kernel or copy by its index alone; a sync by its name, stream,
         * process and times (tj_put_host_call) */
        trace_host_call *c = &t->host_calls.v[i];
        if (c->kind == TRACE_CALL_KERNEL || c->kind == TRACE_CALL_COPY) {
            c->name = c->stream = c->process = 0;
            c->issue = c->end = TRACE_NONE;
        } else {
            c->kind = c->kind == TRACE_CALL_DEVICE_SYNC ? TRACE_CALL_DEVICE_SYNC : TRACE_CALL_SYNC;
            c->record = -1;
            c->name = as_read_str(&a, c->name);
            c->stream = as_read_str(&a, c->stream);
            c->process = as_read_str(&a, c->process);
        }
        c->task = as_read_str(&a, c->task);
    }
    for (size_t i = 0; i < t->meta.n; i++) {
        t->meta.v[i].key = as_read_str(&a, t->meta.v[i].key);
        t->meta.v[i].value = as_read_str(&a, t->meta.v[i].value);
    }
    if (a.failed) goto fail;
    /* the new string table in place of the old */
    for (size_t i = 0; i < t->strs.n; i++) free(t->strs.v[i]);
    free(t->strs.v);
    if (t->strhash) {
        trace tmp;
        trace_init(&tmp);
        tmp.strhash = t->strhash;
        trace_free(&tmp);
    }
    t->strs.v = a.n.strs.v;
    t->strs.n = a.n.strs.n;
    t->strs.cap = a.n.strs.cap;
    t->strhash = a.n.strhash;
    memset(&a.n.strs, 0, sizeof a.n.strs);
    a.n.strhash = NULL;
    trace_free(&a.n);
    free(a.map);
    return 0;
oom:
    snprintf(err, errlen, "out of memory reading the trace back");
fail:
    t->oom = true;
refused:   /* a device the reader refuses (more SMs than it keeps): err says which */
    trace_free(&a.n);
    free(a.map);
    return -1;
}

/* ---- schedlab-trace/1 ---------------------------------------------------------- */

static void put_pause(tj_buf *b, const trace_pause *p) {
    PUTL(b, "{\"block\":");
    jw_i64_raw(b, p->block);
    PUTL(b, ",\"start\":");
    jw_i64_raw(b, p->start);
    PUTL(b, ",\"end\":");
    jw_i64_raw(b, p->end);
    jw_putc(b, '}');
}

/* A cohort of identical blocks (trace.h's trace_cohort; issue 28). */
static void put_cohort(tj_buf *b, const trace_cohort *c, int32_t device) {
    PUTL(b, "{\"kernel\":");
    jw_i64_raw(b, c->kernel);
    PUTL(b, ",\"sm\":");
    jw_i64_raw(b, c->sm);
    PUTL(b, ",\"index\":");
    jw_i64_raw(b, c->index);
    PUTL(b, ",\"stride\":");
    jw_i64_raw(b, c->stride);
    PUTL(b, ",\"count\":");
    jw_i64_raw(b, c->count);
    PUTL(b, ",\"per_wave\":");
    jw_i64_raw(b, c->per_wave);
    PUTL(b, ",\"start\":");
    jw_i64_raw(b, c->start);
    PUTL(b, ",\"end\":");
    jw_i64_raw(b, c->end);
    PUTL(b, ",\"period\":");
    jw_i64_raw(b, c->period);
    if (device >= 0) {
        PUTL(b, ",\"device\":");
        jw_i64_raw(b, device);
    }
    jw_putc(b, '}');
}

/* One of the host's calls (trace.h's trace_host_call): the kernel or copy
 * by its index, or the sync by its name, stream and process; the task only
 * when one was named, the sync's times and a copy's blocking only where
 * they apply. */
void tj_put_host_call(tj_buf *b, const trace *t, size_t i) {
    const trace_host_call *c = &t->host_calls.v[i];
    switch (c->kind) {
    case TRACE_CALL_KERNEL:
    case TRACE_CALL_COPY:
        tj_puts(b, c->kind == TRACE_CALL_KERNEL ? "{\"kernel\":" : "{\"copy\":");
        jw_i64_raw(b, c->record);
        break;
    default:
        tj_puts(b, "{\"sync\":");
        tj_put_str(b, trace_str_get(t, c->name));
        PUTL(b, ",\"stream\":");
        tj_put_str(b, trace_str_get(t, c->stream));
        PUTL(b, ",\"process\":");
        tj_put_str(b, trace_str_get(t, c->process));
        tj_puts(b, c->kind == TRACE_CALL_DEVICE_SYNC ? ",\"scope\":\"device\""
                                                     : ",\"scope\":\"stream\"");
        break;
    }
    key(b, "at", false); tj_put_i64(b, c->at);
    if (c->kind == TRACE_CALL_SYNC || c->kind == TRACE_CALL_DEVICE_SYNC) {
        key(b, "issue", false); tj_put_i64(b, c->issue);
        key(b, "end", false); tj_put_i64(b, c->end);
    }
    if (c->task) {
        PUTL(b, ",\"task\":");
        tj_put_str(b, trace_str_get(t, c->task));
    }
    if (c->blocking) PUTL(b, ",\"blocking\":true");
    jw_putc(b, '}');
}

/* The parts of schedlab-trace/1 in the order they are written. */
enum {
    TS_HEAD, TS_KERNELS, TS_BLOCKS, TS_COPIES, TS_QUEUE_EVENTS, TS_WARP_ISSUES,
    TS_WARP_EPOCHS, TS_JOBS, TS_PAUSES, TS_COHORTS, TS_HOST_CALLS, TS_TAIL, TS_DONE
};

static const char *const part_name[] = {
    [TS_KERNELS] = ",\n\"kernels\":[",
    [TS_BLOCKS] = ",\n\"blocks\":[",
    [TS_COPIES] = ",\n\"copies\":[",
    [TS_QUEUE_EVENTS] = ",\n\"queue_events\":[",
    [TS_WARP_ISSUES] = ",\n\"warp_issues\":[",
    [TS_WARP_EPOCHS] = ",\n\"warp_epochs\":[",
    [TS_JOBS] = ",\n\"jobs\":[",
    [TS_PAUSES] = ",\n\"pauses\":[",
    [TS_COHORTS] = ",\n\"cohorts\":[",
    [TS_HOST_CALLS] = ",\n\"host_calls\":[",
};

void tj_stream_init(tj_stream *s, const trace *t, const tj_block_src *blocks) {
    memset(s, 0, sizeof *s);
    s->t = t;
    s->blocks = blocks;
}

static size_t part_count(const tj_stream *s) {
    const trace *t = s->t;
    switch (s->part) {
    case TS_KERNELS: return t->kernels.n;
    case TS_COPIES: return t->copies.n;
    case TS_QUEUE_EVENTS: return t->queue_events.n;
    case TS_WARP_ISSUES: return t->warp_issues.n;
    case TS_WARP_EPOCHS: return t->warp_epochs.n;
    case TS_JOBS: return t->jobs.n;
    case TS_PAUSES: return t->pauses.n;
    case TS_COHORTS: return t->cohorts.n;
    case TS_HOST_CALLS: return t->host_calls.n;
    default: return 0;
    }
}

/* The next block: from the source's batches, or the trace's own. 1 when
 * there is one, 0 at the end, -1 when the source failed. */
static int next_block(tj_stream *s, const trace_block **out) {
    if (!s->blocks) {
        if (s->i >= s->t->blocks.n) return 0;
        *out = &s->t->blocks.v[s->i];
        return 1;
    }
    if (s->bi == s->bn) {
        s->bi = s->bn = 0;
        if (s->blocks->next(s->blocks->ctx, &s->bv, &s->bn)) return -1;
        if (!s->bn) return 0;
    }
    *out = &s->bv[s->bi++];
    return 1;
}

int tj_stream_step(tj_stream *s, tj_buf *b, size_t until) {
    const trace *t = s->t;
    while (s->part != TS_DONE) {
        if (b->oom) return -1;
        if (jw_pending(b) >= until) return 1;
        switch (s->part) {
        case TS_HEAD:
            PUTL(b, "{\"schema\":\"" TRACE_SCHEMA "\",\"name\":");
            tj_put_str(b, t->name);
            PUTL(b, ",\"source\":");
            tj_put_str(b, t->source);
            PUTL(b, ",\"origin\":");
            jw_i64_raw(b, t->origin);
            PUTL(b, ",\"device\":");
            if (t->has_device) tj_put_device(b, &t->device);
            else PUTL(b, "null");
            if (t->devices.n) {
                /* a trace of several GPUs: each, which the records index */
                PUTL(b, ",\"devices\":[");
                for (size_t i = 0; i < t->devices.n; i++) {
                    if (i) jw_putc(b, ',');
                    tj_put_device(b, &t->devices.v[i]);
                }
                jw_putc(b, ']');
            }
            PUTL(b, ",\"meta\":{");
            for (size_t i = 0; i < t->meta.n; i++) {
                if (i) jw_putc(b, ',');
                tj_put_str(b, trace_str_get(t, t->meta.v[i].key));
                jw_putc(b, ':');
                tj_put_str(b, trace_str_get(t, t->meta.v[i].value));
            }
            jw_putc(b, '}');
            s->part = TS_KERNELS;
            break;
        case TS_TAIL:
            PUTL(b, "}\n");
            s->part = TS_DONE;
            break;
        default: {
            /* only warp-level runs have epochs, only preempted runs
             * pauses, only cohort runs cohorts, only runs whose tasks can
             * be held host calls: other traces read as they always did */
            size_t n = part_count(s);
            if ((s->part == TS_WARP_EPOCHS || s->part == TS_PAUSES || s->part == TS_COHORTS ||
                 s->part == TS_HOST_CALLS) && !n) {
                s->part++;
                break;
            }
            if (!s->open) {
                jw_puts(b, part_name[s->part]);
                s->open = true;
                s->i = 0;
            }
            /* records until the budget is spent or the array ends */
            while (jw_pending(b) < until && !b->oom) {
                const trace_block *blk = NULL;
                if (s->part == TS_BLOCKS) {
                    int r = next_block(s, &blk);
                    if (r < 0) { b->oom = true; return -1; }
                    if (!r) { n = s->i; }
                    else n = s->i + 1;
                }
                if (s->i >= n) {
                    jw_putc(b, ']');
                    s->open = false;
                    s->part++;
                    break;
                }
                if (s->i) PUTL(b, ",\n");
                switch (s->part) {
                case TS_KERNELS: tj_put_kernel(b, t, s->i); break;
                case TS_BLOCKS: put_block(b, blk, kernel_device(t, blk->kernel)); break;
                case TS_COPIES: tj_put_copy(b, t, s->i); break;
                case TS_QUEUE_EVENTS: tj_put_queue_event(b, t, s->i); break;
                case TS_WARP_ISSUES: tj_put_warp_issue(b, &t->warp_issues.v[s->i]); break;
                case TS_WARP_EPOCHS: tj_put_warp_epoch(b, &t->warp_epochs.v[s->i]); break;
                case TS_JOBS: tj_put_job(b, t, s->i); break;
                case TS_COHORTS:
                    put_cohort(b, &t->cohorts.v[s->i], kernel_device(t, t->cohorts.v[s->i].kernel));
                    break;
                case TS_HOST_CALLS: tj_put_host_call(b, t, s->i); break;
                default: put_pause(b, &t->pauses.v[s->i]); break;
                }
                s->i++;
            }
            break;
        }
        }
    }
    return b->oom ? -1 : 0;
}

int tj_write_trace(const trace *t, tj_buf *b) {
    tj_stream s;
    tj_stream_init(&s, t, NULL);
    return tj_stream_step(&s, b, SIZE_MAX) < 0 ? -1 : 0;
}

/* ---- Chrome trace events ------------------------------------------------------- */

/* ns as microseconds with exactly three decimals: no floating-point rounding. */
static void put_us(tj_buf *b, int64_t ns) {
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char tmp[32];
    size_t n = 0;
    if (ns < 0) tmp[n++] = '-';
    n += jw_fmt_u64(tmp + n, mag / 1000);
    unsigned frac = (unsigned)(mag % 1000);
    tmp[n++] = '.';
    tmp[n++] = (char)('0' + frac / 100);
    tmp[n++] = (char)('0' + frac / 10 % 10);
    tmp[n++] = (char)('0' + frac % 10);
    jw_putn(b, tmp, n);
}

typedef struct idmap {
    trace_str *key;     /* process, or (process, stream) pairs flattened */
    size_t n, cap, width;
} idmap;

/* Index of the tuple `k` (width entries), added when new; -1 on OOM. */
static long idmap_get(idmap *m, const trace_str *k) {
    for (size_t i = 0; i < m->n; i++)
        if (memcmp(&m->key[i * m->width], k, m->width * sizeof *k) == 0) return (long)i;
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 16;
        trace_str *nk = realloc(m->key, nc * m->width * sizeof *nk);
        if (!nk) return -1;
        m->key = nk;
        m->cap = nc;
    }
    memcpy(&m->key[m->n * m->width], k, m->width * sizeof *k);
    return (long)m->n++;
}

static const char *or_unknown(const trace *t, trace_str s) {
    const char *v = trace_str_get(t, s);
    return v ? v : "(unknown)";
}

static void meta_event(tj_buf *b, bool *first, const char *what, long pid, long tid,
                       const char *name, const char *suffix) {
    tj_puts(b, *first ? "\n" : ",\n");
    *first = false;
    putf(b, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%ld", what, pid);
    if (tid >= 0) putf(b, ",\"tid\":%ld", tid);
    tj_puts(b, ",\"args\":{\"name\":");
    if (suffix) {
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s%s", name, suffix);
        tj_put_str(b, tmp);
    } else {
        tj_put_str(b, name);
    }
    tj_puts(b, "}}");
}

static void span_event(tj_buf *b, bool *first, const char *name, const char *cat, long pid,
                       long tid, int64_t start, int64_t end) {
    tj_puts(b, *first ? "\n" : ",\n");
    *first = false;
    tj_puts(b, "{\"ph\":\"X\",\"name\":");
    tj_put_str(b, name);
    PUTL(b, ",\"cat\":\"");
    jw_puts(b, cat);
    PUTL(b, "\",\"pid\":");
    jw_i64_raw(b, pid);
    PUTL(b, ",\"tid\":");
    jw_i64_raw(b, tid);
    PUTL(b, ",\"ts\":");
    put_us(b, start);
    tj_puts(b, ",\"dur\":");
    put_us(b, end - start);
}

/* The Chrome export in steps (tj_chrome_step): which part is being written
 * and the track numbering, computed up front so each part can stop after
 * any record and go on later. */
enum { CH_HEAD, CH_SMS, CH_BLOCKS, CH_COHORTS, CH_PROCS, CH_STREAMS, CH_RECORDS, CH_JOBS, CH_TAIL,
       CH_DONE };

struct tj_chrome_state {
    idmap procs, streams, tasks;
    long *stream_tid;
    int32_t top;              /* highest SM with a block */
    long task_pid;
};

void tj_chrome_free(tj_chrome *c) {
    struct tj_chrome_state *st = c->st;
    if (st) {
        free(st->procs.key);
        free(st->streams.key);
        free(st->tasks.key);
        free(st->stream_tid);
        free(st);
    }
    c->st = NULL;
}

int tj_chrome_init(tj_chrome *c, const trace *t) {
    int32_t top = -1;
    for (size_t i = 0; i < t->blocks.n; i++)
        if (t->blocks.v[i].sm > top) top = t->blocks.v[i].sm;
    return tj_chrome_init_src(c, t, NULL, top);
}

int tj_chrome_init_src(tj_chrome *c, const trace *t, const tj_block_src *blocks, int32_t top) {
    memset(c, 0, sizeof *c);
    c->t = t;
    c->first = true;
    c->blocks = blocks;
    /* a cohort run's cohorts (issue 28) are on their SMs' tracks too */
    for (size_t i = 0; i < t->cohorts.n; i++)
        if (t->cohorts.v[i].sm > top) top = t->cohorts.v[i].sm;
    struct tj_chrome_state *st = calloc(1, sizeof *st);
    if (!st) return -1;
    c->st = st;
    st->procs.width = 1;
    st->streams.width = 2;
    st->tasks.width = 1;
    st->top = top;
    /* pid 2..: processes, a track per stream. Tracks are numbered in order
     * of first appearance so the export is deterministic. */
    size_t nrec = t->kernels.n + t->copies.n;
    for (size_t r = 0; r < nrec; r++) {
        trace_str key2[2];
        if (r < t->kernels.n) {
            key2[0] = t->kernels.v[r].process;
            key2[1] = t->kernels.v[r].stream;
        } else {
            key2[0] = t->copies.v[r - t->kernels.n].process;
            key2[1] = t->copies.v[r - t->kernels.n].stream;
        }
        size_t before = st->streams.n;
        if (idmap_get(&st->procs, key2) < 0 || idmap_get(&st->streams, key2) < 0) goto oom;
        if (st->streams.n != before) {
            long *nt = realloc(st->stream_tid, st->streams.n * sizeof *nt);
            if (!nt) goto oom;
            st->stream_tid = nt;
            long tid = 1;   /* per process, 1.. */
            for (size_t k = 0; k + 1 < st->streams.n; k++)
                if (st->streams.key[k * 2] == key2[0]) tid++;
            st->stream_tid[st->streams.n - 1] = tid;
        }
    }
    /* real-time jobs: one pid after the processes, a track per task */
    st->task_pid = (long)st->procs.n + 2;
    return 0;
oom:
    tj_chrome_free(c);
    return -1;
}

/* The track of SM `sm` of the GPU kernel `kernel` ran on: the SM itself,
 * or in a trace of several GPUs the GPU's SMs after the GPUs before it. */
static long chrome_sm_tid(const trace *t, const struct tj_chrome_state *st, int32_t kernel,
                          int32_t sm) {
    int32_t g = kernel_device(t, kernel);
    return (g > 0 ? (long)g * (st->top + 1) : 0) + sm;
}

/* One record of part CH_RECORDS: kernel or copy r. */
static void chrome_record(tj_chrome *c, struct tj_chrome_state *st, tj_buf *b, size_t r) {
    const trace *t = c->t;
    trace_str key2[2];
    int64_t start, end;
    const char *name, *cat;
    if (r < t->kernels.n) {
        const trace_kernel *k = &t->kernels.v[r];
        key2[0] = k->process;
        key2[1] = k->stream;
        start = k->first_block != TRACE_NONE ? k->first_block : k->issue;
        end = k->end;
        name = or_unknown(t, k->name);
        cat = "kernel";
    } else {
        const trace_copy *cp = &t->copies.v[r - t->kernels.n];
        key2[0] = cp->process;
        key2[1] = cp->stream;
        start = cp->start != TRACE_NONE ? cp->start : cp->issue;
        end = cp->end;
        name = cp->name ? trace_str_get(t, cp->name) : trace_copy_dir_name(cp->direction);
        cat = "copy";
    }
    if (start == TRACE_NONE || end == TRACE_NONE || end < start) return;
    /* both keys are in the maps already (tj_chrome_init): no allocation */
    long sidx = idmap_get(&st->streams, key2), pid = idmap_get(&st->procs, key2) + 2;
    span_event(b, &c->first, name, cat, pid, st->stream_tid[sidx], start, end);
    if (r < t->kernels.n) {
        PUTL(b, ",\"args\":{\"id\":");
        jw_u64_raw(b, r);
        PUTL(b, ",\"issue\":");
        tj_put_i64(b, t->kernels.v[r].issue);
        PUTL(b, "}}");
    } else {
        const trace_copy *cp = &t->copies.v[r - t->kernels.n];
        PUTL(b, ",\"args\":{\"direction\":");
        tj_put_str(b, trace_copy_dir_name(cp->direction));
        PUTL(b, ",\"bytes\":");
        tj_put_i64(b, cp->bytes);
        PUTL(b, "}}");
    }
}

/* One job of part CH_JOBS (its task's tracks named on its first job). */
static int chrome_job(tj_chrome *c, struct tj_chrome_state *st, tj_buf *b, size_t i) {
    const trace *t = c->t;
    const trace_job *j = &t->jobs.v[i];
    size_t before = st->tasks.n;
    long tid = idmap_get(&st->tasks, &j->task);
    if (tid < 0) return -1;
    if (st->tasks.n != before) {
        if (before == 0) meta_event(b, &c->first, "process_name", st->task_pid, -1, "tasks", NULL);
        meta_event(b, &c->first, "thread_name", st->task_pid, tid + 1, or_unknown(t, j->task),
                   NULL);
    }
    if (j->start == TRACE_NONE || j->end == TRACE_NONE || j->end < j->start) return 0;
    char nm[160];
    snprintf(nm, sizeof nm, "%s #%" PRId64, or_unknown(t, j->task), j->job);
    span_event(b, &c->first, nm, "job", st->task_pid, tid + 1, j->start, j->end);
    PUTL(b, ",\"args\":{\"release\":");
    tj_put_i64(b, j->release);
    PUTL(b, ",\"deadline\":");
    tj_put_i64(b, j->deadline);
    PUTL(b, "}}");
    return 0;
}

int tj_chrome_step(tj_chrome *c, tj_buf *b, size_t until) {
    const trace *t = c->t;
    struct tj_chrome_state *st = c->st;
    if (!st) return -1;
    while (c->phase != CH_DONE) {
        if (b->oom) return -1;
        if (jw_pending(b) >= until) return 1;
        switch (c->phase) {
        case CH_HEAD: {
            PUTL(b, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"schema\":\"" TRACE_SCHEMA
                    "\",\"name\":");
            tj_put_str(b, t->name);
            PUTL(b, ",\"source\":");
            tj_put_str(b, t->source);
            PUTL(b, ",\"origin_ns\":");
            jw_i64_raw(b, t->origin);
            PUTL(b, "},\"traceEvents\":[");
            /* pid 1: the device, a track per SM */
            char devname[SIM_DEVICE_NAME_MAX + 1] = "GPU";
            if (t->has_device && t->device.name[0]) {
                memcpy(devname, t->device.name, SIM_DEVICE_NAME_MAX);
                devname[SIM_DEVICE_NAME_MAX] = '\0';
            }
            if (t->devices.n) snprintf(devname, sizeof devname, "%zu GPUs", t->devices.n);
            meta_event(b, &c->first, "process_name", 1, -1, devname, " (SMs)");
            c->phase = CH_SMS;
            c->i = 0;
            break;
        }
        case CH_SMS:
            /* a track per SM; in a trace of several GPUs per SM of each
             * GPU, GPU by GPU (chrome_sm_tid) */
            if ((int64_t)c->i >= (st->top + 1) * (int64_t)(t->devices.n ? t->devices.n : 1)) {
                c->phase = CH_BLOCKS;
                c->i = 0;
                break;
            }
            {
                char nm[48];
                int tid = (int)c->i, sm = (int)(c->i % (size_t)(st->top + 1));
                if (t->devices.n) snprintf(nm, sizeof nm, "GPU %d SM %d", tid / (st->top + 1), sm);
                else snprintf(nm, sizeof nm, "SM %d", sm);
                meta_event(b, &c->first, "thread_name", 1, tid, nm, NULL);
                putf(b, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":%d,"
                        "\"args\":{\"sort_index\":%d}}", tid, tid);
                c->i++;
            }
            break;
        case CH_BLOCKS:
            while (jw_pending(b) < until) {
                const trace_block *blk;
                if (!c->blocks) {
                    if (c->i >= t->blocks.n) break;
                    blk = &t->blocks.v[c->i++];
                } else {
                    if (c->bi == c->bn) {
                        c->bi = c->bn = 0;
                        if (c->blocks->next(c->blocks->ctx, &c->bv, &c->bn)) {
                            b->oom = true;
                            return -1;
                        }
                        if (!c->bn) { c->blocks = NULL; c->i = t->blocks.n; break; }
                    }
                    blk = &c->bv[c->bi++];
                }
                if (blk->start == TRACE_NONE || blk->end == TRACE_NONE || blk->sm < 0) continue;
                const char *kn = blk->kernel >= 0 && (size_t)blk->kernel < t->kernels.n
                                     ? trace_str_get(t, t->kernels.v[blk->kernel].name)
                                     : NULL;
                span_event(b, &c->first, kn ? kn : "block", "block", 1,
                           chrome_sm_tid(t, st, blk->kernel, blk->sm), blk->start, blk->end);
                PUTL(b, ",\"args\":{\"kernel\":");
                jw_i64_raw(b, blk->kernel);
                PUTL(b, ",\"index\":");
                jw_i64_raw(b, blk->index);
                PUTL(b, "}}");
            }
            if (!c->blocks && c->i >= t->blocks.n) { c->phase = CH_COHORTS; c->i = 0; c->wave = 0; }
            break;
        case CH_COHORTS:
            /* a cohort run (issue 28): one slice per wave of a cohort on its
             * SM, args.count its blocks (expanding them would be unbounded:
             * 4.29 G blocks for the Rodinia Gaussian replay) */
            while (c->i < t->cohorts.n && jw_pending(b) < until) {
                const trace_cohort *co = &t->cohorts.v[c->i];
                int64_t per = co->period > 0 && co->per_wave >= 1 && co->per_wave <= co->count
                                  ? co->per_wave : co->count;
                int64_t waves = (co->count + per - 1) / per, w = c->wave;
                if (w >= waves || co->start == TRACE_NONE || co->end == TRACE_NONE || co->sm < 0) {
                    c->i++;
                    c->wave = 0;
                    continue;
                }
                trace_block first = trace_cohort_block(co, w * per);
                int64_t n = w < waves - 1 ? per : co->count - (waves - 1) * per;
                const char *kn = co->kernel >= 0 && (size_t)co->kernel < t->kernels.n
                                     ? trace_str_get(t, t->kernels.v[co->kernel].name)
                                     : NULL;
                span_event(b, &c->first, kn ? kn : "block", "block", 1,
                           chrome_sm_tid(t, st, co->kernel, co->sm), first.start, first.end);
                PUTL(b, ",\"args\":{\"kernel\":");
                jw_i64_raw(b, co->kernel);
                PUTL(b, ",\"index\":");
                jw_i64_raw(b, first.index);
                PUTL(b, ",\"count\":");
                jw_i64_raw(b, n);
                PUTL(b, ",\"stride\":");
                jw_i64_raw(b, co->stride);
                PUTL(b, "}}");
                c->wave++;
            }
            if (c->i >= t->cohorts.n) { c->phase = CH_PROCS; c->i = 0; }
            break;
        case CH_PROCS:
            for (size_t p = 0; p < st->procs.n; p++)
                meta_event(b, &c->first, "process_name", (long)p + 2, -1,
                           or_unknown(t, st->procs.key[p]), NULL);
            c->phase = CH_STREAMS;
            break;
        case CH_STREAMS:
            for (size_t k = 0; k < st->streams.n; k++) {
                long pid = idmap_get(&st->procs, &st->streams.key[k * 2]) + 2;
                char nm[160];
                snprintf(nm, sizeof nm, "stream %s", or_unknown(t, st->streams.key[k * 2 + 1]));
                meta_event(b, &c->first, "thread_name", pid, st->stream_tid[k], nm, NULL);
            }
            c->phase = CH_RECORDS;
            c->i = 0;
            break;
        case CH_RECORDS: {
            size_t nrec = t->kernels.n + t->copies.n;
            while (c->i < nrec && jw_pending(b) < until) chrome_record(c, st, b, c->i++);
            if (c->i >= nrec) { c->phase = CH_JOBS; c->i = 0; }
            break;
        }
        case CH_JOBS:
            while (c->i < t->jobs.n && jw_pending(b) < until)
                if (chrome_job(c, st, b, c->i++)) { b->oom = true; return -1; }
            if (c->i >= t->jobs.n) c->phase = CH_TAIL;
            break;
        default:
            PUTL(b, "\n]}\n");
            c->phase = CH_DONE;
            break;
        }
    }
    return b->oom ? -1 : 0;
}

int tj_write_chrome(const trace *t, tj_buf *b) {
    tj_chrome c;
    if (tj_chrome_init(&c, t)) return -1;
    int rc = tj_chrome_step(&c, b, SIZE_MAX);
    tj_chrome_free(&c);
    return rc < 0 ? -1 : 0;
}
