/* trace_json.c -- schedlab-trace/1 and Chrome trace-event JSON. See trace_json.h. */
#include "trace_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_SCHEMA "schedlab-trace/1"

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
            double v = sim_device_get_f64(d, f);
            if (isfinite(v)) putf(b, "%.17g", v);
            else tj_puts(b, "null");
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

static void put_dim3(tj_buf *b, const char *k, const int32_t v[3]) {
    if (!v[0] && !v[1] && !v[2]) return;   /* unknown: left out, as api.md says */
    key(b, k, false);
    jw_putc(b, '[');
    jw_i64_raw(b, v[0]);
    jw_putc(b, ',');
    jw_i64_raw(b, v[1]);
    jw_putc(b, ',');
    jw_i64_raw(b, v[2]);
    jw_putc(b, ']');
}

static void put_priority(tj_buf *b, int32_t p) {
    if (p == TRACE_PRIO_NONE) tj_puts(b, "\"none\"");
    else jw_i64_raw(b, p);
}

void tj_put_kernel(tj_buf *b, const trace *t, size_t i) {
    tj_put_kernel_id(b, t, i, (int64_t)i);
}

void tj_put_kernel_id(tj_buf *b, const trace *t, size_t i, int64_t id) {
    const trace_kernel *k = &t->kernels.v[i];
    PUTL(b, "{\"id\":");
    jw_i64_raw(b, id);
    key(b, "name", false); tj_put_str(b, trace_str_get(t, k->name));
    if (k->raw_name) { key(b, "raw_name", false); tj_put_str(b, trace_str_get(t, k->raw_name)); }
    key(b, "stream", false); tj_put_str(b, trace_str_get(t, k->stream));
    key(b, "process", false); tj_put_str(b, trace_str_get(t, k->process));
    key(b, "priority", false); put_priority(b, k->priority);
    key(b, "issue", false); tj_put_i64(b, k->issue);
    key(b, "first_block", false); tj_put_i64(b, k->first_block);
    key(b, "fully_dispatched", false); tj_put_i64(b, k->fully_dispatched);
    key(b, "end", false); tj_put_i64(b, k->end);
    key(b, "blocks", false); put_count(b, k->blocks);
    key(b, "threads", false); put_count(b, k->threads);
    key(b, "smem", false); tj_put_i64(b, k->smem);
    key(b, "regs", false); put_count(b, k->regs);
    put_dim3(b, "grid", k->grid);
    put_dim3(b, "block", k->block);
    /* warp-level runs only (trace.h) */
    if (k->instructions > 0) {
        PUTL(b, ",\"instructions\":");
        jw_i64_raw(b, k->instructions);
        PUTL(b, ",\"ipc\":");
        if (isfinite(k->ipc)) putf(b, "%.17g", k->ipc);
        else tj_puts(b, "null");
    }
    /* runs with QoS goals only (trace.h; ISCA'17 quota policies) */
    if (k->ipc_isolated > 0 && isfinite(k->ipc_isolated)) {
        if (k->qos_goal > 0) {
            PUTL(b, ",\"qos_goal\":");
            putf(b, "%.17g", k->qos_goal);
        }
        PUTL(b, ",\"ipc_isolated\":");
        putf(b, "%.17g", k->ipc_isolated);
        if (k->qos_goal > 0) {
            PUTL(b, ",\"qos_met\":");
            tj_puts(b, k->qos_met ? "true" : "false");
        } else if (isfinite(k->ipc_shared)) {
            PUTL(b, ",\"ipc_shared\":");
            putf(b, "%.17g", k->ipc_shared);
        }
    }
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

/* The hottest record (16 M of them in a big run): formatted on the stack
 * and appended in one piece, one bounds check instead of eleven. */
void tj_put_block(tj_buf *b, const trace_block *blk) {
    char tmp[160];   /* 5 literals (47) + 3 x int32 (33) + 2 x int64 (42) */
    size_t n = 0;
    CAT_LIT(tmp, n, "{\"kernel\":");
    n += jw_fmt_i64(tmp + n, blk->kernel);
    CAT_LIT(tmp, n, ",\"index\":");
    n += jw_fmt_i64(tmp + n, blk->index);
    CAT_LIT(tmp, n, ",\"sm\":");
    n += jw_fmt_i64(tmp + n, blk->sm);
    CAT_LIT(tmp, n, ",\"start\":");
    n = cat_time(tmp, n, blk->start);
    CAT_LIT(tmp, n, ",\"end\":");
    n = cat_time(tmp, n, blk->end);
    tmp[n++] = '}';
    jw_putn(b, tmp, n);
}

void tj_put_copy(tj_buf *b, const trace *t, size_t i) {
    tj_put_copy_id(b, t, i, (int64_t)i);
}

void tj_put_copy_id(tj_buf *b, const trace *t, size_t i, int64_t id) {
    const trace_copy *c = &t->copies.v[i];
    PUTL(b, "{\"id\":");
    jw_i64_raw(b, id);
    key(b, "name", false); tj_put_str(b, trace_str_get(t, c->name));
    key(b, "stream", false); tj_put_str(b, trace_str_get(t, c->stream));
    key(b, "process", false); tj_put_str(b, trace_str_get(t, c->process));
    key(b, "direction", false); tj_put_str(b, trace_copy_dir_name(c->direction));
    key(b, "bytes", false); tj_put_i64(b, c->bytes);
    key(b, "issue", false); tj_put_i64(b, c->issue);
    key(b, "start", false); tj_put_i64(b, c->start);
    key(b, "end", false); tj_put_i64(b, c->end);
    key(b, "engine", false);
    if (c->engine < 0) tj_puts(b, "null");
    else jw_i64_raw(b, c->engine);
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

/* The parts of schedlab-trace/1 in the order they are written. */
enum {
    TS_HEAD, TS_KERNELS, TS_BLOCKS, TS_COPIES, TS_QUEUE_EVENTS, TS_WARP_ISSUES,
    TS_WARP_EPOCHS, TS_JOBS, TS_PAUSES, TS_TAIL, TS_DONE
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
            /* only warp-level runs have epochs, and only preempted runs
             * pauses: other traces read as they always did */
            size_t n = part_count(s);
            if ((s->part == TS_WARP_EPOCHS || s->part == TS_PAUSES) && !n) {
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
                case TS_BLOCKS: tj_put_block(b, blk); break;
                case TS_COPIES: tj_put_copy(b, t, s->i); break;
                case TS_QUEUE_EVENTS: tj_put_queue_event(b, t, s->i); break;
                case TS_WARP_ISSUES: tj_put_warp_issue(b, &t->warp_issues.v[s->i]); break;
                case TS_WARP_EPOCHS: tj_put_warp_epoch(b, &t->warp_epochs.v[s->i]); break;
                case TS_JOBS: tj_put_job(b, t, s->i); break;
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
enum { CH_HEAD, CH_SMS, CH_BLOCKS, CH_PROCS, CH_STREAMS, CH_RECORDS, CH_JOBS, CH_TAIL, CH_DONE };

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
            meta_event(b, &c->first, "process_name", 1, -1, devname, " (SMs)");
            c->phase = CH_SMS;
            c->i = 0;
            break;
        }
        case CH_SMS:
            if ((int64_t)c->i > st->top) { c->phase = CH_BLOCKS; c->i = 0; break; }
            {
                char nm[32];
                int sm = (int)c->i;
                snprintf(nm, sizeof nm, "SM %d", sm);
                meta_event(b, &c->first, "thread_name", 1, sm, nm, NULL);
                putf(b, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":%d,"
                        "\"args\":{\"sort_index\":%d}}", sm, sm);
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
                span_event(b, &c->first, kn ? kn : "block", "block", 1, blk->sm, blk->start,
                           blk->end);
                PUTL(b, ",\"args\":{\"kernel\":");
                jw_i64_raw(b, blk->kernel);
                PUTL(b, ",\"index\":");
                jw_i64_raw(b, blk->index);
                PUTL(b, "}}");
            }
            if (!c->blocks && c->i >= t->blocks.n) { c->phase = CH_PROCS; c->i = 0; }
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

/* ---- parsing ---------------------------------------------------------------------- */

/* Traces are machine-written: unknown keys are passed over (a newer writer
 * may add some), and what is absent or null reads as unknown. */
typedef struct pctx {
    jr_ctx jr;
    trace *t;
} pctx;

/* "FILE: where[i].field: what"; i == (size_t)-1 leaves out the index. */
static int perr(pctx *p, const char *where, size_t i, const char *field, const char *what) {
    char a[JR_PATH_MAX], b[JR_PATH_MAX];
    const char *path = i == (size_t)-1 ? where : jr_index(a, where, i);
    if (field) path = jr_join(b, path, field);
    return jr_fail(&p->jr, path, "%s", what);
}

/* Integer field: absent or null gives `unknown`. */
static int get_int(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                   int64_t unknown, int64_t lo, int64_t hi, int64_t *out) {
    json_t *v = jr_opt(o, field);
    if (!v) { *out = unknown; return 0; }
    if (!json_is_integer(v)) return perr(p, where, i, field, "expected an integer or null");
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) return perr(p, where, i, field, "out of range");
    *out = (int64_t)x;
    return 0;
}

static int get_i32(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                   int32_t unknown, int32_t *out) {
    int64_t v;
    if (get_int(p, o, where, i, field, unknown, INT32_MIN, INT32_MAX, &v)) return -1;
    *out = (int32_t)v;
    return 0;
}

static int get_time(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                    int64_t *out) {
    return get_int(p, o, where, i, field, TRACE_NONE, INT64_MIN + 1, INT64_MAX, out);
}

static int get_str(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                   trace_str *out) {
    json_t *v = jr_opt(o, field);
    if (!v) { *out = 0; return 0; }
    if (!json_is_string(v)) return perr(p, where, i, field, "expected a string or null");
    *out = trace_intern_n(p->t, json_string_value(v), json_string_length(v));
    return 0;
}

static int get_dim3(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                    int32_t out[3]) {
    json_t *v = jr_opt(o, field);
    out[0] = out[1] = out[2] = 0;
    if (!v) return 0;
    if (!json_is_array(v) || json_array_size(v) != 3)
        return perr(p, where, i, field, "expected an array of 3 integers");
    for (size_t j = 0; j < 3; j++) {
        json_t *x = json_array_get(v, j);
        if (!json_is_integer(x) || json_integer_value(x) < 0 ||
            json_integer_value(x) > INT32_MAX)
            return perr(p, where, i, field, "expected an array of 3 non-negative integers");
        out[j] = (int32_t)json_integer_value(x);
    }
    return 0;
}

static json_t *get_array(pctx *p, json_t *root, const char *name, int *bad) {
    json_t *a = jr_opt(root, name);
    *bad = 0;
    if (!a) return NULL;
    if (!json_is_array(a)) { *bad = perr(p, name, (size_t)-1, NULL, "expected an array"); return NULL; }
    return a;
}

static int parse_kernel(pctx *p, json_t *o, size_t i) {
    const char *w = "kernels";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    trace_kernel *k = trace_add_kernel(p->t);
    if (!k) return perr(p, w, i, NULL, "out of memory");
    trace_kernel v = *k;
    if (get_str(p, o, w, i, "name", &v.name) || get_str(p, o, w, i, "raw_name", &v.raw_name) ||
        get_str(p, o, w, i, "stream", &v.stream) || get_str(p, o, w, i, "process", &v.process))
        return -1;
    json_t *pr = json_object_get(o, "priority");
    if (!pr || json_is_null(pr) || (json_is_string(pr) && strcmp(json_string_value(pr), "none") == 0))
        v.priority = TRACE_PRIO_NONE;
    else if (json_is_integer(pr) && json_integer_value(pr) > INT32_MIN &&
             json_integer_value(pr) <= INT32_MAX)
        v.priority = (int32_t)json_integer_value(pr);
    else
        return perr(p, w, i, "priority", "expected an integer or \"none\"");
    if (get_time(p, o, w, i, "issue", &v.issue) ||
        get_time(p, o, w, i, "first_block", &v.first_block) ||
        get_time(p, o, w, i, "fully_dispatched", &v.fully_dispatched) ||
        get_time(p, o, w, i, "end", &v.end) ||
        get_int(p, o, w, i, "blocks", 0, 0, INT64_MAX, &v.blocks) ||
        get_i32(p, o, w, i, "threads", 0, &v.threads) ||
        get_int(p, o, w, i, "smem", TRACE_NONE, 0, INT64_MAX, &v.smem) ||
        get_i32(p, o, w, i, "regs", 0, &v.regs) || get_dim3(p, o, w, i, "grid", v.grid) ||
        get_dim3(p, o, w, i, "block", v.block) ||
        get_int(p, o, w, i, "instructions", 0, 0, INT64_MAX, &v.instructions))
        return -1;
    json_t *ipc = json_object_get(o, "ipc");
    if (ipc && !json_is_null(ipc)) {
        if (!json_is_number(ipc) || !(json_number_value(ipc) >= 0))
            return perr(p, w, i, "ipc", "expected a non-negative number");
        v.ipc = json_number_value(ipc);
    }
    /* QoS runs (ISCA'17): goal in (0, 1], IPCs non-negative, qos_met bool */
    static const char *const qkeys[] = {"qos_goal", "ipc_isolated", "ipc_shared"};
    double *qv[] = {&v.qos_goal, &v.ipc_isolated, &v.ipc_shared};
    for (int j = 0; j < 3; j++) {
        json_t *x = json_object_get(o, qkeys[j]);
        if (!x || json_is_null(x)) continue;
        if (!json_is_number(x) || !(json_number_value(x) >= 0) ||
            (j == 0 && !(json_number_value(x) > 0 && json_number_value(x) <= 1)))
            return perr(p, w, i, qkeys[j], j == 0 ? "expected a number in (0, 1]"
                                                  : "expected a non-negative number");
        *qv[j] = json_number_value(x);
    }
    json_t *met = json_object_get(o, "qos_met");
    if (met && !json_is_null(met)) {
        if (!json_is_boolean(met)) return perr(p, w, i, "qos_met", "expected true or false");
        v.qos_met = json_is_true(met);
    }
    p->t->kernels.v[i] = v;
    return 0;
}

static int parse_block(pctx *p, json_t *o, size_t i) {
    const char *w = "blocks";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    trace_block v;
    if (get_i32(p, o, w, i, "kernel", -1, &v.kernel) ||
        get_i32(p, o, w, i, "index", -1, &v.index) || get_i32(p, o, w, i, "sm", -1, &v.sm) ||
        get_time(p, o, w, i, "start", &v.start) || get_time(p, o, w, i, "end", &v.end))
        return -1;
    if (v.kernel < 0 || (size_t)v.kernel >= p->t->kernels.n)
        return perr(p, w, i, "kernel", "not the id of a kernel in this trace");
    trace_block *b = trace_add_block(p->t);
    if (!b) return perr(p, w, i, NULL, "out of memory");
    *b = v;
    return 0;
}

/* A preempted block's pause (trace.h): the block it belongs to is one of
 * this trace's, and the interval lies within that block's span. */
static int parse_pause(pctx *p, json_t *o, size_t i) {
    const char *w = "pauses";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    int64_t blk, s, e;
    if (get_int(p, o, w, i, "block", -1, 0, INT64_MAX, &blk) || get_time(p, o, w, i, "start", &s) ||
        get_time(p, o, w, i, "end", &e))
        return -1;
    if (blk < 0 || (size_t)blk >= p->t->blocks.n)
        return perr(p, w, i, "block", "not the index of a block in this trace");
    if (s == TRACE_NONE || e == TRACE_NONE) return perr(p, w, i, s == TRACE_NONE ? "start" : "end",
                                                          "missing: a pause has a start and an end");
    if (e < s) return perr(p, w, i, "end", "before its start");
    const trace_block *b = &p->t->blocks.v[blk];
    if ((b->start != TRACE_NONE && s < b->start) || (b->end != TRACE_NONE && e > b->end))
        return perr(p, w, i, NULL, "outside its block's start..end");
    if (!trace_add_pause(p->t, blk, s, e)) return perr(p, w, i, NULL, "out of memory");
    return 0;
}

static int parse_copy(pctx *p, json_t *o, size_t i) {
    const char *w = "copies";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    trace_copy *c = trace_add_copy(p->t);
    if (!c) return perr(p, w, i, NULL, "out of memory");
    trace_copy v = *c;
    if (get_str(p, o, w, i, "name", &v.name) || get_str(p, o, w, i, "stream", &v.stream) ||
        get_str(p, o, w, i, "process", &v.process) || get_time(p, o, w, i, "bytes", &v.bytes) ||
        get_time(p, o, w, i, "issue", &v.issue) || get_time(p, o, w, i, "start", &v.start) ||
        get_time(p, o, w, i, "end", &v.end) || get_i32(p, o, w, i, "engine", -1, &v.engine))
        return -1;
    json_t *d = json_object_get(o, "direction");
    if (d && !json_is_null(d)) {
        int dir = json_is_string(d) ? trace_copy_dir_parse(json_string_value(d)) : -1;
        if (dir < 0)
            return perr(p, w, i, "direction",
                        "expected \"h2d\", \"d2h\", \"d2d\", \"h2h\", \"p2p\", \"memset\" or \"other\"");
        v.direction = dir;
    }
    p->t->copies.v[i] = v;
    return 0;
}

static int parse_qevent(pctx *p, json_t *o, size_t i) {
    const char *w = "queue_events";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    int64_t t;
    trace_str q, item;
    if (get_int(p, o, w, i, "t", TRACE_NONE, INT64_MIN + 1, INT64_MAX, &t) ||
        get_str(p, o, w, i, "queue", &q) || get_str(p, o, w, i, "item", &item))
        return -1;
    if (t == TRACE_NONE) return perr(p, w, i, "t", "missing: every queue event has a time");
    if (!q) return perr(p, w, i, "queue", "missing: expected a queue name");
    json_t *e = json_object_get(o, "event");
    const char *es = json_is_string(e) ? json_string_value(e) : "";
    trace_queue_op op;
    if (strcmp(es, "enqueue") == 0) op = TRACE_ENQUEUE;
    else if (strcmp(es, "dequeue") == 0) op = TRACE_DEQUEUE;
    else return perr(p, w, i, "event", "expected \"enqueue\" or \"dequeue\"");
    if (!trace_add_queue_event(p->t, t, q, item, op)) return perr(p, w, i, NULL, "out of memory");
    return 0;
}

static int parse_warp(pctx *p, json_t *o, size_t i) {
    const char *w = "warp_issues";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    trace_warp_issue v;
    if (get_i32(p, o, w, i, "sm", 0, &v.sm) || get_i32(p, o, w, i, "subcore", 0, &v.subcore) ||
        get_i32(p, o, w, i, "warp", 0, &v.warp) || get_i32(p, o, w, i, "kernel", 0, &v.kernel) ||
        get_int(p, o, w, i, "cycle", 0, INT64_MIN + 1, INT64_MAX, &v.cycle))
        return -1;
    trace_warp_issue *x = trace_add_warp_issue(p->t);
    if (!x) return perr(p, w, i, NULL, "out of memory");
    *x = v;
    return 0;
}

static int parse_wepoch(pctx *p, json_t *o, size_t i) {
    const char *w = "warp_epochs";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    trace_warp_epoch v;
    memset(&v, 0, sizeof v);
    if (get_i32(p, o, w, i, "kernel", 0, &v.kernel) ||
        get_int(p, o, w, i, "cycle", 0, 0, INT64_MAX, &v.cycle) ||
        get_int(p, o, w, i, "cycles", 0, 0, INT64_MAX, &v.cycles) ||
        get_int(p, o, w, i, "issues", 0, 0, INT64_MAX, &v.issues))
        return -1;
    trace_warp_epoch *x = trace_add_warp_epoch(p->t);
    if (!x) return perr(p, w, i, NULL, "out of memory");
    *x = v;
    return 0;
}

static int parse_job(pctx *p, json_t *o, size_t i) {
    const char *w = "jobs";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    trace_job *j = trace_add_job(p->t);
    if (!j) return perr(p, w, i, NULL, "out of memory");
    trace_job v = *j;
    if (get_str(p, o, w, i, "task", &v.task) ||
        get_int(p, o, w, i, "job", 0, INT64_MIN + 1, INT64_MAX, &v.job) ||
        get_time(p, o, w, i, "release", &v.release) || get_time(p, o, w, i, "start", &v.start) ||
        get_time(p, o, w, i, "end", &v.end) || get_time(p, o, w, i, "deadline", &v.deadline))
        return -1;
    p->t->jobs.v[i] = v;
    return 0;
}

int tj_parse_device(jr_ctx *c, json_t *o, const char *path, sim_device *d) {
    char p[JR_PATH_MAX];
    memset(d, 0, sizeof *d);
    if (!json_is_object(o)) return jr_fail(c, path, "expected an object");
    json_t *name = jr_opt(o, "name");
    if (name) {
        if (!json_is_string(name)) return jr_fail(c, jr_join(p, path, "name"), "expected a string");
        snprintf(d->name, sizeof d->name, "%s", json_string_value(name));
    }
    /* every numeric field of simcore's table (device.h); unknown stays 0 */
    for (size_t i = 0; i < sim_device_nfields; i++) {
        const sim_device_field *f = &sim_device_fields[i];
        json_t *v = jr_opt(o, f->key);
        if (!v) continue;
        jr_join(p, path, f->key);
        if (f->type == SIM_DT_F64) {
            if (!json_is_number(v) || json_number_value(v) < 0)
                return jr_fail(c, p, "expected a non-negative number%s",
                               f->kind == SIM_DF_BANDWIDTH ? " (bytes/s)" : "");
            sim_device_set_f64(d, f, json_number_value(v));
        } else {
            json_int_t max = f->type == SIM_DT_I32 ? INT32_MAX : INT64_MAX;
            if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
                return jr_fail(c, p, "expected a non-negative integer");
            sim_device_set_i64(d, f, (int64_t)json_integer_value(v));
        }
    }
    if (d->sms > SIM_MAX_SMS)
        return jr_fail(c, jr_join(p, path, "sms"), "%d is more than %d", (int)d->sms, SIM_MAX_SMS);
    json_t *ord = json_object_get(o, "sm_order");
    jr_join(p, path, "sm_order");
    if (json_is_array(ord)) {
        if ((int32_t)json_array_size(ord) != d->sms)
            return jr_fail(c, p, "has %zu entries for %d SMs", json_array_size(ord), (int)d->sms);
        d->sm_order_kind = SIM_SM_ORDER_EXPLICIT;
        for (size_t i = 0; i < json_array_size(ord); i++) {
            json_t *x = json_array_get(ord, i);
            char pi[JR_PATH_MAX];
            if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                json_integer_value(x) >= d->sms)
                return jr_fail(c, jr_index(pi, p, i), "expected an SM id below %d", (int)d->sms);
            d->sm_order[i] = (int16_t)json_integer_value(x);
        }
    } else {
        const char *s = json_is_string(ord) ? json_string_value(ord) : "ascending";
        if (ord && !json_is_null(ord) && !json_is_string(ord)) s = "";
        if (strcmp(s, "ascending") == 0) d->sm_order_kind = SIM_SM_ORDER_ASCENDING;
        else if (strcmp(s, "evens-then-odds") == 0) d->sm_order_kind = SIM_SM_ORDER_EVENS_THEN_ODDS;
        else return jr_fail(c, p, "expected \"ascending\", \"evens-then-odds\" or an array");
        sim_device_fill_order(d);
    }
    return 0;
}

/* ---- schedlab-trace/1 read record by record (issue 31) ----------------------------

   The whole text as one jansson tree cost some 13 times the file (a 136 MB
   export took 1.76 GB to import). The reader walks the top-level object
   itself and hands jansson one value at a time: the small members (schema,
   name, device, meta, ...) whole, each record of a records array alone,
   parsed into the trace and freed before the next. Memory is then the trace
   being built (its arrays grow by doubling: at most twice the records, some
   32-150 bytes each against 55-400 bytes of text) plus one record's tree.
   An array that comes before the one it refers to (blocks before kernels,
   pauses before blocks, anything before a valid "schema") is kept as a tree
   until the end, within jsonr.h's parse budget, and read then: such files
   are still read, at the old cost. */

static const char *const top_keys[] = {
    "schema", "name", "source", "origin", "device", "meta",
    "kernels", "blocks", "copies", "queue_events", "warp_issues", "warp_epochs", "jobs",
    "pauses", NULL,
};
enum { TOP_ARRAYS = 6, TOP_N = 14 };

static size_t skip_ws(const char *s, size_t i, size_t n) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* "FILE:LINE:COL: JSON: what" for the byte at off */
static int syntax_err(pctx *p, const char *text, size_t off, const char *what) {
    int line = 1, col = 1;
    for (size_t k = 0; k < off; k++) {
        if (text[k] == '\n') { line++; col = 1; }
        else col++;
    }
    if (p->jr.err && p->jr.errlen) {
        char w[200];   /* `what` may be jansson's text in the same buffer */
        snprintf(w, sizeof w, "%s", what);
        snprintf(p->jr.err, p->jr.errlen, "%s:%d:%d: JSON: %s", p->jr.file, line, col, w);
        jr_one_line(p->jr.err, p->jr.errlen);
    }
    return -1;
}

/* One value at text[*pos]; *pos moves past it. NULL with the message set. */
static json_t *load_at(pctx *p, const char *text, size_t len, size_t *pos) {
    size_t used = 0;
    json_t *v = jr_load_value(&p->jr, text + *pos, len - *pos, &used);
    if (!v) {
        if (!jr_over_budget() && !(p->jr.err && strstr(p->jr.err, "out of memory reading")))
            syntax_err(p, text, *pos + used, p->jr.err && p->jr.errlen ? p->jr.err : "invalid JSON");
        return NULL;
    }
    *pos += used;
    return v;
}

typedef int (*tj_rec_parse)(pctx *, json_t *, size_t);

/* The records of the array at text[*pos] ('[' there), one tree at a time. */
static int stream_array(pctx *p, const char *text, size_t len, size_t *pos, tj_rec_parse parse) {
    size_t i = 0, at = skip_ws(text, *pos + 1, len);
    if (at < len && text[at] == ']') {
        *pos = at + 1;
        return 0;
    }
    for (;;) {
        json_t *v = load_at(p, text, len, &at);
        if (!v) return -1;
        int bad = parse(p, v, i++);
        json_decref(v);
        if (bad) return -1;
        at = skip_ws(text, at, len);
        if (at < len && text[at] == ',') { at = skip_ws(text, at + 1, len); continue; }
        if (at < len && text[at] == ']') break;
        return syntax_err(p, text, at, "',' or ']' expected");
    }
    *pos = at + 1;
    return 0;
}

int tj_parse_trace(const char *text, size_t len, const char *file, trace *out, char *err,
                   size_t errlen) {
    static const tj_rec_parse parsers[TOP_N - TOP_ARRAYS] = {
        parse_kernel, parse_block, parse_copy, parse_qevent, parse_warp,
        parse_wepoch, parse_job, parse_pause,
    };
    pctx p = {.jr = {.file = file, .err = err, .errlen = errlen, .pfx = ""}, .t = out};
    int rc = -1;
    bool seen[TOP_N] = {false}, read[TOP_N] = {false}, schema_ok = false;
    jr_budget_begin(len);
    json_t *root = json_object();   /* the small members and any array kept whole */
    if (!root) { jr_budget_end(); return jr_oom(&p.jr); }
    size_t pos = skip_ws(text, 0, len);
    if (pos >= len || text[pos] != '{') {
        json_t *v = load_at(&p, text, len, &pos);
        if (v) jr_fail(&p.jr, "", "expected a JSON object (schedlab-trace/1)");
        json_decref(v);
        goto done;
    }
    pos = skip_ws(text, pos + 1, len);
    if (pos < len && text[pos] == '}') pos++;
    else for (;;) {
        if (pos >= len || text[pos] != '"') { syntax_err(&p, text, pos, "string or '}' expected"); goto done; }
        json_t *kj = load_at(&p, text, len, &pos);
        if (!kj) goto done;
        char key[64];
        snprintf(key, sizeof key, "%s", json_string_value(kj));
        bool key_cut = strlen(json_string_value(kj)) >= sizeof key;
        json_decref(kj);
        pos = skip_ws(text, pos, len);
        if (pos >= len || text[pos] != ':') { syntax_err(&p, text, pos, "':' expected"); goto done; }
        pos = skip_ws(text, pos + 1, len);
        int k = -1;
        for (int j = 0; j < TOP_N && !key_cut; j++)
            if (strcmp(key, top_keys[j]) == 0) k = j;
        if (k < 0) {
            /* every key is known (issue 31): a misspelt "kernel" would
             * otherwise import an empty run */
            jr_fail_unknown(&p.jr, "", "top-level key", key, top_keys, TOP_N);
            goto done;
        }
        if (seen[k]) { syntax_err(&p, text, pos, "duplicate object key"); goto done; }
        seen[k] = true;
        int a = k - TOP_ARRAYS;
        bool stream = a >= 0 && pos < len && text[pos] == '[' && schema_ok &&
                      (k != 7 || read[6]) && (k != TOP_N - 1 || read[7]);
        if (stream) {
            if (stream_array(&p, text, len, &pos, parsers[a])) goto done;
            read[k] = true;
        } else {
            json_t *v = load_at(&p, text, len, &pos);
            if (!v) goto done;
            if (json_object_set_new(root, key, v)) { jr_oom(&p.jr); goto done; }
            if (k == 0)
                schema_ok = json_is_string(v) && strcmp(json_string_value(v), TRACE_SCHEMA) == 0;
        }
        pos = skip_ws(text, pos, len);
        if (pos < len && text[pos] == ',') { pos = skip_ws(text, pos + 1, len); continue; }
        if (pos < len && text[pos] == '}') { pos++; break; }
        syntax_err(&p, text, pos, "',' or '}' expected");
        goto done;
    }
    pos = skip_ws(text, pos, len);
    if (pos < len) { syntax_err(&p, text, pos, "end of file expected"); goto done; }

    json_t *schema = json_object_get(root, "schema");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), TRACE_SCHEMA) != 0) {
        jr_fail(&p.jr, "schema", "expected \"" TRACE_SCHEMA "\"");
        goto done;
    }
    json_t *v = json_object_get(root, "name");
    if (v && !json_is_null(v) && !json_is_string(v)) { perr(&p, "name", (size_t)-1, NULL, "expected a string"); goto done; }
    trace_set_name(out, json_string_value(v));
    v = json_object_get(root, "source");
    if (v && !json_is_null(v) && !json_is_string(v)) { perr(&p, "source", (size_t)-1, NULL, "expected a string"); goto done; }
    trace_set_source(out, json_string_value(v));
    v = json_object_get(root, "origin");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v)) { perr(&p, "origin", (size_t)-1, NULL, "expected an integer (ns)"); goto done; }
        out->origin = (int64_t)json_integer_value(v);
    }
    v = jr_opt(root, "device");
    if (v) {
        if (tj_parse_device(&p.jr, v, "device", &out->device)) goto done;
        out->has_device = true;
    }
    v = json_object_get(root, "meta");
    if (v && !json_is_null(v)) {
        if (!json_is_object(v)) { perr(&p, "meta", (size_t)-1, NULL, "expected an object"); goto done; }
        const char *mk;
        json_t *mv;
        json_object_foreach(v, mk, mv) {
            if (!json_is_string(mv)) { perr(&p, "meta", (size_t)-1, mk, "expected a string"); goto done; }
            trace_set_meta(out, mk, json_string_value(mv));
        }
    }
    /* the arrays kept whole, in the order they refer to each other */
    for (int k = TOP_ARRAYS; k < TOP_N; k++) {
        if (read[k]) continue;
        int bad;
        json_t *arr = get_array(&p, root, top_keys[k], &bad);
        if (bad) goto done;
        if (k == 7 && arr && trace_reserve_blocks(out, json_array_size(arr)))
            { perr(&p, "blocks", (size_t)-1, NULL, "out of memory"); goto done; }
        for (size_t i = 0; arr && i < json_array_size(arr); i++)
            if (parsers[k - TOP_ARRAYS](&p, json_array_get(arr, i), i)) goto done;
    }
    if (out->oom) { jr_oom(&p.jr); goto done; }
    rc = 0;
done:
    json_decref(root);
    jr_budget_end();
    return rc;
}
