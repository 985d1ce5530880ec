/* db_store.c -- storing a run: the devices row, every trace array as bulk
 * rows, and the streaming run writer that db_store_run is one use of. See
 * db.h for the contract. */
#include "db_int.h"
#include "cohort_window.h"
#include "pyramid.h"
#include "bpage.h"
#include "row_ranges.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- storing a run ------------------------------------------------------------ */

/* What the runs row says about a run's blocks, gathered as they are stored
 * (streamed batches, then the trace's own). */
typedef struct block_stats {
    int64_t n;
    int64_t t_min, t_max;        /* TRACE_NONE until a block has a time */
    int64_t max_dur;
    int32_t top_sm;              /* -1 until a block is seen */
} block_stats;

static void stats_init(block_stats *bs) {
    *bs = (block_stats){.t_min = TRACE_NONE, .t_max = TRACE_NONE, .top_sm = -1};
}

static void stats_time(block_stats *bs, int64_t x) {
    if (x == TRACE_NONE) return;
    if (bs->t_min == TRACE_NONE || x < bs->t_min) bs->t_min = x;
    if (bs->t_max == TRACE_NONE || x > bs->t_max) bs->t_max = x;
}

static void stats_add(block_stats *bs, const trace_block *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (b[i].sm > bs->top_sm) bs->top_sm = b[i].sm;
        stats_time(bs, b[i].start);
        stats_time(bs, b[i].end);
        if (b[i].start != TRACE_NONE && b[i].end != TRACE_NONE &&
            b[i].end - b[i].start > bs->max_dur)
            bs->max_dur = b[i].end - b[i].start;
    }
    bs->n += (int64_t)n;
}

/* A cohort run's cohorts (issue 28) count as the blocks they stand for:
 * the run's n_blocks and longest block are a block-by-block run's. */
static void stats_add_cohorts(block_stats *bs, const trace_cohort *c, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (c[i].sm > bs->top_sm) bs->top_sm = c[i].sm;
        stats_time(bs, c[i].start);
        stats_time(bs, cw_last_end(&c[i]));
        if (cw_dur(&c[i]) > bs->max_dur) bs->max_dur = cw_dur(&c[i]);
        bs->n += c[i].count;
    }
}

/* The widest cohort of t (cohort_view.sql's cohort_spans row), -1 none. */
static int64_t cohort_span(const trace *t) {
    int64_t span = -1;
    for (size_t i = 0; i < t->cohorts.n; i++) {
        int64_t w = cw_last_end(&t->cohorts.v[i]) - t->cohorts.v[i].start;
        if (w > span) span = w;
    }
    return span;
}

/* The QoS figures of the summary over kernels, accumulated in kernel order
 * (batches of db_run_add_kernels, then the trace's own) so the sum is the
 * same as over the whole array at once. */
typedef struct qos_stats {
    int64_t kernels, met, n;
    double sum;
} qos_stats;

static void qos_add(qos_stats *q, const trace_kernel *k, size_t n) {
    for (size_t i = 0; i < n; i++, k++) {
        if (!(k->ipc_isolated > 0)) continue;
        if (k->qos_goal > 0) {
            q->kernels++;
            q->met += k->qos_met;
        } else {
            q->sum += k->ipc_shared / k->ipc_isolated;
            q->n++;
        }
    }
}

/* Kernels and copies stored ahead of db_run_finish (db_run_add_kernels,
 * db_run_add_copies): how many, their times (t_min, t_max of a block_stats)
 * and QoS figures. Zero for a run stored whole. */
typedef struct row_stats {
    size_t kernels, copies;
    /* the rowid of the run's kernel 0 and copy 0 (row_ranges.h); 0 until
     * the first is stored */
    int64_t kbase, cbase;
    block_stats span;
    qos_stats qos;
} row_stats;

/* The summary of trace t whose blocks, streamed ones included, are in bs,
 * after the kernels and copies of rs. */
static void summarize(const trace *t, const block_stats *bs, const row_stats *rs, db_summary *s) {
    memset(s, 0, sizeof *s);
    s->kernels = (int64_t)(rs->kernels + t->kernels.n);
    s->blocks = bs->n;
    s->copies = (int64_t)(rs->copies + t->copies.n);
    s->queue_events = (int64_t)t->queue_events.n;
    s->warp_issues = (int64_t)t->warp_issues.n;
    s->jobs = (int64_t)t->jobs.n;
    s->host_calls = (int64_t)t->host_calls.n;
    block_stats span = *bs;
    int64_t lo, hi;
    trace_time_span(t, &lo, &hi);
    stats_time(&span, lo);
    stats_time(&span, hi);
    stats_time(&span, rs->span.t_min);
    stats_time(&span, rs->span.t_max);
    s->t_min = span.t_min;
    s->t_max = span.t_max;
    s->max_block_dur = bs->max_dur;
    s->sms = (t->has_device && t->device.sms > 0) ? t->device.sms : bs->top_sm + 1;
    qos_stats q = rs->qos;
    qos_add(&q, t->kernels.v, t->kernels.n);
    s->qos_kernels = q.kernels;
    s->qos_met = q.met;
    s->nonqos_throughput = q.n ? q.sum / (double)q.n : NAN;
}

/* One failed row: name the record so the user can find it in the input. */
static int rowfail(db *d, const char *table, size_t i, char *err, size_t errlen) {
    seterr(err, errlen, "%s: %s[%zu]: the database refused the row: %s", d->path, table, i,
           sqlite3_errmsg(d->h));
    return -1;
}

static int step_row(db *d, sqlite3_stmt *st, const char *table, size_t i, char *err,
                    size_t errlen) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : rowfail(d, table, i, err, errlen);
}

/* The devices INSERT over sim_device_fields: (run, gpu, name, <every
 * numeric field, in table order>, sm_order_kind, sm_order). Returns
 * malloc'ed SQL. */
static char *device_insert_sql(void) {
    size_t cap = 256;
    for (size_t i = 0; i < sim_device_nfields; i++) cap += strlen(sim_device_fields[i].field) + 8;
    char *sql = malloc(cap);
    if (!sql) return NULL;
    size_t len = (size_t)snprintf(sql, cap, "INSERT INTO devices(run, gpu, name");
    for (size_t i = 0; i < sim_device_nfields; i++)
        len += (size_t)snprintf(sql + len, cap - len, ", %s", sim_device_fields[i].field);
    len += (size_t)snprintf(sql + len, cap - len, ", sm_order_kind, sm_order) VALUES (?1");
    for (size_t i = 0; i < sim_device_nfields + 4; i++)
        len += (size_t)snprintf(sql + len, cap - len, ",?");
    snprintf(sql + len, cap - len, ")");
    return sql;
}

/* gpu: -1 for the run's device, else its index in a trace's devices
 * (db/gpus.sql) */
static int store_device(db *d, int64_t run, int64_t gpu, const sim_device *dev, char *err,
                        size_t errlen) {
    char order[SIM_MAX_SMS * 5 + 1];
    size_t len = 0;
    int32_t n = dev->sms < SIM_MAX_SMS ? dev->sms : SIM_MAX_SMS;
    order[0] = '\0';
    for (int32_t i = 0; i < n; i++)
        len += (size_t)snprintf(order + len, sizeof order - len, i ? ",%d" : "%d",
                                (int)dev->sm_order[i]);
    if (!d->dev_insert) {
        char *sql = device_insert_sql();
        if (!sql) {
            seterr(err, errlen, "%s: out of memory", d->path);
            return -1;
        }
        int rc = prepare(d, sql, &d->dev_insert, err, errlen);
        free(sql);
        if (rc) return -1;
    }
    sqlite3_stmt *st = d->dev_insert;
    char name[SIM_DEVICE_NAME_MAX + 1];
    memcpy(name, dev->name, SIM_DEVICE_NAME_MAX);
    name[SIM_DEVICE_NAME_MAX] = '\0';
    int p = 1;
    sqlite3_bind_int64(st, p++, run);
    sqlite3_bind_int64(st, p++, gpu);
    sqlite3_bind_text(st, p++, name, -1, SQLITE_STATIC);
    for (size_t i = 0; i < sim_device_nfields; i++, p++) {
        const sim_device_field *f = &sim_device_fields[i];
        if (f->type == SIM_DT_F64) sqlite3_bind_double(st, p, sim_device_get_f64(dev, f));
        else sqlite3_bind_int64(st, p, sim_device_get_i64(dev, f));
    }
    sqlite3_bind_int(st, p++, (int)dev->sm_order_kind);
    sqlite3_bind_text(st, p, order, -1, SQLITE_STATIC);
    int rc = step_row(d, st, "device", 0, err, errlen);
    /* name and order are on this stack: leave no pointer to them behind */
    sqlite3_clear_bindings(st);
    return rc;
}

/* ---- bulk rows ------------------------------------------------------------------ */

/* Every trace array is stored the same way: rows (run, seq, ...) inserted
 * many per statement. A statement step per row opens a fresh cursor and
 * descends the b-tree for every row; a multi-row INSERT keeps its cursor on
 * the rightmost leaf, where each next row belongs. Measured on a 200k-row
 * nvprof CSV: 36% fewer instructions in db_store_run than one row per step.
 *
 * Where a streamed import's store thread went (issue 9; callgrind, 1 M-row
 * nvprof CSV, SQLite 3.40: 6.0 k instructions a row): 20% binding, 19% leaf
 * splits (an append to a WITHOUT ROWID b-tree rebalances three siblings,
 * balance_nonroot; only rowid tables get balance_quick), 8% the primary
 * key's uniqueness seek, the rest the VDBE's per-row opcodes. Kernels and
 * copies are therefore rowid tables, a run's rows a range of rowids
 * (row_ranges.h) that SQLite numbers itself: 3.9 k instructions a row. Binding
 * the rowid instead (a seek per row) saved only 8%. Tried and
 * dropped: an INSERT leaving out columns at their defaults (9 fewer binds
 * per nvprof kernel) ran 1% more instructions, SQLite copying the omitted
 * defaults in per row; tails as 2^k-row statements saved 1.3% but the
 * prepared statements cost 8 MB; 16 KiB pages ran 1.5% more. */

/* Parameters per multi-row statement: 512, 2048 and 8192 measured within 5%
 * of each other, all far below SQLITE_MAX_VARIABLE_NUMBER (32766). */
#define BULK_PARAMS 2048

/* Where bulk_tables[BULK_BLOCKS] is; streamed blocks go through it alone.
 * Kernels and copies may be streamed too (db_run_add_kernels, _copies). */
#define BULK_KERNELS 2
#define BULK_BLOCKS 3
#define BULK_COPIES 4

/* What the binders read: the trace, the ids of the strings its rows use
 * (strs[i] is row i of table `strings`), and the blocks, which come from a
 * streamed batch or from the trace. base[w] is the run's row number (seq)
 * of the first row here of table w: 0, except for blocks after a stream. */
typedef struct bulk_src {
    const trace *t;
    trace_str *strs;
    size_t nstrs;
    const trace_block *blocks;
    size_t nblocks;
    size_t base[DB_NBULK];
    int64_t rowid[DB_NBULK]; /* kernels, copies: the rowid the run's row 0 has */
    bpage_writer *pages;     /* where blocks go (bpage.h), not a bulk INSERT */
} bulk_src;

typedef struct bulk_table {
    const char *what;       /* the trace array, as errors name a row: "blocks[12]" */
    const char *insert;     /* "INSERT INTO t(run, seq, ...)": run, then ncols columns;
                               NULL for blocks, which store_table hands to bpage_add */
    int ncols;
    size_t (*count)(const bulk_src *src);
    /* Binds row i to parameters p .. p + ncols - 1. Text is bound
     * SQLITE_STATIC: it lives in the trace, which outlives the step. */
    void (*bind)(sqlite3_stmt *st, int p, const bulk_src *src, size_t i);
    bool ranged;            /* "INSERT INTO t(a, ...)": ncols columns and no run or id:
                               SQLite numbers the rows, the run's range (row_ranges.h:
                               kernels, copies) */
} bulk_table;

/* A string column holds the trace's id; an id trace_str_get would not
 * resolve is no string (NULL), as before. */
static trace_str str_id(const trace *t, trace_str id) { return id < t->strs.n ? id : 0; }

static void bind_id(sqlite3_stmt *s, int i, const trace *t, trace_str id) {
    id = str_id(t, id);
    if (id) sqlite3_bind_int64(s, i, id);
    else sqlite3_bind_null(s, i);
}

/* Mark the strings of kernels and copies in used[0 .. t->strs.n]. */
static void mark_rows(const trace *t, unsigned char *used) {
#define MARK(id) (used[str_id(t, (id))] = 1)
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        MARK(k->name), MARK(k->raw_name), MARK(k->stream), MARK(k->process);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        MARK(c->name), MARK(c->stream), MARK(c->process);
    }
#undef MARK
}

/* The ids of the strings that rows refer to, in id order; meta keys and
 * values (stored as text in run_meta) and strings nothing stores are left
 * out. `streamed` (nstreamed entries, may be NULL) marks the strings of
 * rows stored ahead (db_run_add_kernels, _copies). */
static int used_strings(const trace *t, bulk_src *src, const unsigned char *streamed,
                        size_t nstreamed) {
    unsigned char *used = calloc(t->strs.n + 1, 1);
    if (!used) return -1;
    for (size_t id = 0; id < nstreamed && id <= t->strs.n; id++) used[id] |= streamed[id];
    mark_rows(t, used);
#define MARK(id) (used[str_id(t, (id))] = 1)
    for (size_t i = 0; i < t->queue_events.n; i++)
        MARK(t->queue_events.v[i].queue), MARK(t->queue_events.v[i].item);
    for (size_t i = 0; i < t->jobs.n; i++) MARK(t->jobs.v[i].task);
    for (size_t i = 0; i < t->host_calls.n; i++) {
        const trace_host_call *c = &t->host_calls.v[i];
        MARK(c->task), MARK(c->name), MARK(c->stream), MARK(c->process);
    }
#undef MARK
    size_t n = 0;
    for (size_t id = 1; id < t->strs.n; id++) n += used[id];
    src->strs = malloc((n ? n : 1) * sizeof *src->strs);
    if (!src->strs) {
        free(used);
        return -1;
    }
    src->nstrs = 0;
    for (size_t id = 1; id < t->strs.n; id++)
        if (used[id]) src->strs[src->nstrs++] = (trace_str)id;
    free(used);
    return 0;
}

static size_t count_strings(const bulk_src *s) { return s->nstrs; }
static size_t count_meta(const bulk_src *s) { return s->t->meta.n; }
static size_t count_kernels(const bulk_src *s) { return s->t->kernels.n; }
static size_t count_blocks(const bulk_src *s) { return s->nblocks; }
static size_t count_copies(const bulk_src *s) { return s->t->copies.n; }
static size_t count_qevents(const bulk_src *s) { return s->t->queue_events.n; }
static size_t count_warps(const bulk_src *s) { return s->t->warp_issues.n; }
static size_t count_wepochs(const bulk_src *s) { return s->t->warp_epochs.n; }
static size_t count_jobs(const bulk_src *s) { return s->t->jobs.n; }
static size_t count_pauses(const bulk_src *s) { return s->t->pauses.n; }
static size_t count_cohorts(const bulk_src *s) { return s->t->cohorts.n; }
static size_t count_host_calls(const bulk_src *s) { return s->t->host_calls.n; }

static void bind_string(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    sqlite3_bind_int64(s, p, src->strs[i]);
    bind_s(s, p + 1, trace_str_get(src->t, src->strs[i]));
}

static void bind_meta(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace *t = src->t;
    sqlite3_bind_int64(s, p, (int64_t)i);
    bind_s(s, p + 1, trace_str_get(t, t->meta.v[i].key));
    bind_s(s, p + 2, trace_str_get(t, t->meta.v[i].value));
}

/* One field of a record (simcore/trace_fields.h) bound at parameter c++ */
#define BIND_KERNEL_FIELD(col, member, kind, ...) DBI_BIND(kind, s, c++, t, k->member);
#define BIND_COPY_FIELD(col, member, kind, ...) DBI_BIND(kind, s, c++, t, x->member);

static void bind_kernel(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace *t = src->t;
    const trace_kernel *k = &t->kernels.v[i - src->base[BULK_KERNELS]];
    int c = p;
    TRACE_KERNEL_FIELDS(BIND_KERNEL_FIELD, TF_NOSEP)
}

static void bind_copy(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace *t = src->t;
    const trace_copy *x = &t->copies.v[i - src->base[BULK_COPIES]];
    int c = p;
    TRACE_COPY_FIELDS(BIND_COPY_FIELD, TF_NOSEP)
}

static void bind_qevent(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace *t = src->t;
    const trace_queue_event *e = &t->queue_events.v[i];
    sqlite3_bind_int64(s, p, (int64_t)i);
    sqlite3_bind_int64(s, p + 1, e->t);
    bind_id(s, p + 2, t, e->queue);
    bind_id(s, p + 3, t, e->item);
    sqlite3_bind_int(s, p + 4, e->event);
}

static void bind_warp(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace_warp_issue *w = &src->t->warp_issues.v[i];
    sqlite3_bind_int64(s, p, (int64_t)i);
    sqlite3_bind_int(s, p + 1, w->sm);
    sqlite3_bind_int(s, p + 2, w->subcore);
    sqlite3_bind_int(s, p + 3, w->warp);
    sqlite3_bind_int(s, p + 4, w->kernel);
    sqlite3_bind_int64(s, p + 5, w->cycle);
}

static void bind_wepoch(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace_warp_epoch *w = &src->t->warp_epochs.v[i];
    sqlite3_bind_int64(s, p, (int64_t)i);
    sqlite3_bind_int(s, p + 1, w->kernel);
    sqlite3_bind_int64(s, p + 2, w->cycle);
    sqlite3_bind_int64(s, p + 3, w->cycles);
    sqlite3_bind_int64(s, p + 4, w->issues);
}

static void bind_job(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace *t = src->t;
    const trace_job *j = &t->jobs.v[i];
    sqlite3_bind_int64(s, p, (int64_t)i);
    bind_id(s, p + 1, t, j->task);
    sqlite3_bind_int64(s, p + 2, j->job);
    bind_t(s, p + 3, j->release);
    bind_t(s, p + 4, j->start);
    bind_t(s, p + 5, j->end);
    bind_t(s, p + 6, j->deadline);
}

/* trace.h's trace_pause: `block` is the run's block number, the seq its row
 * in `blocks` has (streamed blocks are numbered the same way). */
static void bind_pause(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace_pause *x = &src->t->pauses.v[i];
    sqlite3_bind_int64(s, p, (int64_t)i);
    sqlite3_bind_int64(s, p + 1, x->block);
    sqlite3_bind_int64(s, p + 2, x->start);
    sqlite3_bind_int64(s, p + 3, x->end);
}

/* trace.h's trace_cohort (issue 28) */
static void bind_cohort(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace_cohort *c = &src->t->cohorts.v[i];
    sqlite3_bind_int64(s, p, (int64_t)i);
    sqlite3_bind_int(s, p + 1, c->kernel);
    sqlite3_bind_int(s, p + 2, c->sm);
    sqlite3_bind_int(s, p + 3, c->index);
    sqlite3_bind_int(s, p + 4, c->stride);
    sqlite3_bind_int64(s, p + 5, c->count);
    sqlite3_bind_int64(s, p + 6, c->per_wave);
    sqlite3_bind_int64(s, p + 7, c->start);
    sqlite3_bind_int64(s, p + 8, c->end);
    sqlite3_bind_int64(s, p + 9, c->period);
}

/* trace.h's trace_host_call (db/host_calls.sql) */
static void bind_host_call(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace *t = src->t;
    const trace_host_call *c = &t->host_calls.v[i];
    sqlite3_bind_int64(s, p, (int64_t)i);
    sqlite3_bind_int(s, p + 1, c->kind);
    sqlite3_bind_int(s, p + 2, c->record);
    bind_id(s, p + 3, t, c->task);
    bind_id(s, p + 4, t, c->name);
    bind_id(s, p + 5, t, c->stream);
    bind_id(s, p + 6, t, c->process);
    bind_t(s, p + 7, c->at);
    bind_t(s, p + 8, c->issue);
    bind_t(s, p + 9, c->end);
    sqlite3_bind_int(s, p + 10, c->blocking ? 1 : 0);
}

static const bulk_table bulk_tables[DB_NBULK] = {
    {"strings", "INSERT INTO strings(run, id, text)", 2, count_strings, bind_string, false},
    {"meta", "INSERT INTO run_meta(run, seq, key, value)", 3, count_meta, bind_meta, false},
    {"kernels", "INSERT INTO kernels(" DBI_KERNEL_COLS ")", DBI_KERNEL_NCOLS, count_kernels,
     bind_kernel, true},
    {"blocks", NULL, 0, count_blocks, NULL, false},
    {"copies", "INSERT INTO copies(" DBI_COPY_COLS ")", DBI_COPY_NCOLS, count_copies, bind_copy,
     true},
    {"queue_events", "INSERT INTO queue_events(run, seq, t, queue, item, event)", 5,
     count_qevents, bind_qevent, false},
    {"warp_issues", "INSERT INTO warp_issues(run, seq, sm, subcore, warp, kernel, cycle)", 6,
     count_warps, bind_warp, false},
    {"jobs", "INSERT INTO jobs(run, seq, task, job, release, start, stop, deadline)", 7,
     count_jobs, bind_job, false},
    {"pauses", "INSERT INTO pauses(run, seq, block, start, stop)", 4, count_pauses, bind_pause, false},
    {"warp_epochs", "INSERT INTO warp_epochs(run, seq, kernel, cycle, cycles, issues)", 5,
     count_wepochs, bind_wepoch, false},
    {"cohorts", "INSERT INTO cohorts(run, seq, kernel, sm, first, stride, count, per_wave, start, "
     "stop, period)", 10, count_cohorts, bind_cohort, false},
    {"host_calls", "INSERT INTO host_calls(run, seq, kind, record, task, name, stream, process, "
     "at, issue, stop, blocking)", 11, count_host_calls, bind_host_call, false},
};

static size_t bulk_rows(const bulk_table *tb) { return (size_t)(BULK_PARAMS / tb->ncols); }

/* "<insert> VALUES (?1,?,...,?),(?1,?,...)": ?1 is the run in every row and
 * stays bound across resets; the anonymous ? number on, so row j's first
 * column is parameter 2 + j * ncols. A ranged table's rows have no run:
 * "(?,?,...)", row j's first column parameter 1 + j * ncols. */
static char *bulk_sql(const bulk_table *tb, size_t rows) {
    size_t head = strlen(tb->insert), row = 5 + 2 * (size_t)tb->ncols;  /* ",(?1" ",?"... ")" */
    char *s = malloc(head + 8 + rows * row + 1);
    if (!s) return NULL;
    char *p = s;
    memcpy(p, tb->insert, head);
    p += head;
    memcpy(p, " VALUES ", 8);
    p += 8;
    for (size_t j = 0; j < rows; j++) {
        if (j) *p++ = ',';
        if (tb->ranged) {
            memcpy(p, "(?", 2);
            p += 2;
        } else {
            memcpy(p, "(?1", 3);
            p += 3;
        }
        for (int c = tb->ranged; c < tb->ncols; c++) {
            memcpy(p, ",?", 2);
            p += 2;
        }
        *p++ = ')';
    }
    *p = '\0';
    return s;
}

/* The connection's cached INSERT of one row (many = false) or of
 * bulk_rows() rows of table `which`, prepared on first use. */
static int bulk_stmt(db *d, int which, bool many, sqlite3_stmt **out, char *err, size_t errlen) {
    sqlite3_stmt **slot = &d->bulk[which][many];
    if (!*slot) {
        const bulk_table *tb = &bulk_tables[which];
        char *sql = bulk_sql(tb, many ? bulk_rows(tb) : 1);
        if (!sql) {
            seterr(err, errlen, "%s: out of memory", d->path);
            return -1;
        }
        int rc = prepare(d, sql, slot, err, errlen);
        free(sql);
        if (rc) return -1;
    }
    *out = *slot;
    return 0;
}

/* Rows [from, to) of one table, one statement step each, so a refused row
 * is named exactly. */
static int store_single(db *d, int which, int64_t run, const bulk_src *src, size_t from,
                        size_t to, char *err, size_t errlen) {
    if (from >= to) return 0;
    const bulk_table *tb = &bulk_tables[which];
    sqlite3_stmt *s;
    if (bulk_stmt(d, which, false, &s, err, errlen)) return -1;
    if (!tb->ranged) sqlite3_bind_int64(s, 1, run);
    for (size_t i = from; i < to; i++) {
        tb->bind(s, tb->ranged ? 1 : 2, src, i);
        if (step_row(d, s, tb->what, i, err, errlen)) return -1;
    }
    return 0;
}

/* Whole batches of bulk_rows() rows, then the tail one row at a time. Row
 * numbers (seq, and the index errors name) count from src->base[which]. */
void db_on_rows(db *d, db_rows_fn fn, void *user) {
    d->rows_fn = fn;
    d->rows_user = user;
}

/* Report rows stored by store_rows (rows_total is 0 outside it). */
static void rows_stored(db *d, long long n) {
    if (!d->rows_fn || d->rows_total <= 0) return;
    d->rows_done += n;
    d->rows_fn(d->rows_user, d->rows_done, d->rows_total);
}

/* Blocks go into pages (bpage.h), a chunk at a time so db_on_rows still
 * follows them. */
#define BLOCK_CHUNK 4096

static int store_blocks(db *d, const bulk_src *src, char *err, size_t errlen) {
    for (size_t i = 0; i < src->nblocks; i += BLOCK_CHUNK) {
        size_t n = src->nblocks - i < BLOCK_CHUNK ? src->nblocks - i : BLOCK_CHUNK;
        if (bpage_add(src->pages, src->blocks + i, n, err, errlen)) return -1;
        rows_stored(d, (long long)n);
    }
    return 0;
}

static int store_table(db *d, int which, int64_t run, const bulk_src *src, char *err,
                       size_t errlen) {
    if (which == BULK_BLOCKS) return store_blocks(d, src, err, errlen);
    const bulk_table *tb = &bulk_tables[which];
    size_t i = src->base[which], n = i + tb->count(src), rows = bulk_rows(tb);
    if (n - i >= rows) {
        sqlite3_stmt *s;
        if (bulk_stmt(d, which, true, &s, err, errlen)) return -1;
        if (!tb->ranged) sqlite3_bind_int64(s, 1, run);
        int p0 = tb->ranged ? 1 : 2;
        for (; i + rows <= n; i += rows) {
            for (size_t j = 0; j < rows; j++) tb->bind(s, p0 + (int)j * tb->ncols, src, i + j);
            int rc = sqlite3_step(s);
            sqlite3_reset(s);
            if (rc == SQLITE_DONE) {
                rows_stored(d, rows);
                continue;
            }
            /* Some errors (disk full, I/O) roll back the whole transaction:
             * retrying row by row would then write outside it. */
            if (sqlite3_get_autocommit(d->h)) {
                seterr(err, errlen, "%s: %s[%zu..%zu]: the database refused the rows: %s",
                       d->path, tb->what, i, i + rows - 1, sqlite3_errmsg(d->h));
                return -1;
            }
            /* The failed statement undid its own rows: redo them one at a
             * time to name the row the database refuses. */
            if (store_single(d, which, run, src, i, i + rows, err, errlen)) return -1;
        }
    }
    if (store_single(d, which, run, src, i, n, err, errlen)) return -1;
    rows_stored(d, (long long)(n - i));
    /* a ranged table's rows take rowids max + 1, max + 2, ... (no rowid is
     * bound: SQLite's own append is cheaper than seeking a given one), and
     * take_base checked that max + 1 is where the run's range goes on */
    if (tb->ranged && n > src->base[which] &&
        sqlite3_last_insert_rowid(d->h) != src->rowid[which] + (int64_t)n - 1) {
        seterr(err, errlen, "%s: %s[%zu]: stored as row %lld, not %lld of the run's range",
               d->path, tb->what, n - 1, (long long)sqlite3_last_insert_rowid(d->h),
               (long long)(src->rowid[which] + (int64_t)n - 1));
        return -1;
    }
    return 0;
}

/* Before kernels or copies (which) are stored after the `stored` rows the
 * run has of them: *base, the rowid of its row 0 (row_ranges.h). The first
 * rows take one past the table's largest rowid, so the run's range follows
 * every other; later ones must find the run's own rows still at the end. */
static int take_base(db *d, int which, size_t stored, int64_t *base, char *err, size_t errlen) {
    const char *table = which == BULK_KERNELS ? "kernels" : "copies";
    int64_t next;
    if (dbi_rows_next_base(d, table, &next, err, errlen)) return -1;
    if (stored == 0) *base = next;
    else if (next != *base + (int64_t)stored) {
        seterr(err, errlen, "%s: %s: another run's rows were stored between this run's (a run's "
               "%s must be written while no other run's are)", d->path, table, table);
        return -1;
    }
    return 0;
}

/* Every row of t; its blocks follow those already in pages, its kernels and
 * copies those of rs (whose strings are marked in used). */
static int store_rows(db *d, int64_t run, const trace *t, bpage_writer *pages, row_stats *rs,
                      const unsigned char *used, size_t nused, char *err, size_t errlen) {
    if ((t->kernels.n && take_base(d, BULK_KERNELS, rs->kernels, &rs->kbase, err, errlen)) ||
        (t->copies.n && take_base(d, BULK_COPIES, rs->copies, &rs->cbase, err, errlen)))
        return -1;
    bulk_src src = {.t = t, .blocks = t->blocks.v, .nblocks = t->blocks.n, .pages = pages};
    src.base[BULK_BLOCKS] = (size_t)pages->seq;
    src.base[BULK_KERNELS] = rs->kernels;
    src.base[BULK_COPIES] = rs->copies;
    src.rowid[BULK_KERNELS] = rs->kbase;
    src.rowid[BULK_COPIES] = rs->cbase;
    if (used_strings(t, &src, used, nused)) {
        seterr(err, errlen, "%s: out of memory", d->path);
        return -1;
    }
    int rc = 0;
    d->rows_done = d->rows_total = 0;
    for (int w = 0; w < DB_NBULK; w++) d->rows_total += (long long)bulk_tables[w].count(&src);
    for (int w = 0; w < DB_NBULK && !rc; w++) rc = store_table(d, w, run, &src, err, errlen);
    d->rows_total = 0;
    /* Leave no pointer into the caller's trace in the cached statements. */
    for (int w = 0; w < DB_NBULK; w++)
        for (int m = 0; m < 2; m++)
            if (d->bulk[w][m]) sqlite3_clear_bindings(d->bulk[w][m]);
    free(src.strs);
    return rc;
}

/* ---- the run writer (db_run_begin .. db_run_finish), and db_store_run ----------- */

struct db_run_writer {
    db *d;
    int64_t run;
    char slug[DB_SLUG_SIZE];
    bool name_given;         /* false: the run takes the trace's name at finish */
    bool failed;             /* a step failed and rolled the run back */
    block_stats bs;          /* the blocks stored so far */
    pyr_acc *pyr;            /* the occupancy pyramid, block by block (pyramid.h) */
    const trace *kernels;    /* db_run_kernels: whose kernels the blocks name */
    row_stats rows;          /* kernels and copies stored ahead (db_run_add_kernels) */
    unsigned char *used;     /* the string ids their rows use, nused entries */
    size_t nused;
    bpage_writer pages;      /* the blocks, a page at a time (bpage.h) */
};

void db_run_kernels(db_run_writer *w, const trace *t) { w->kernels = t; }

/* Undo everything of the run; the writer stays for abort/finish to free. */
static void writer_fail(db_run_writer *w) {
    if (w->failed) return;
    w->failed = true;
    exec(w->d, "ROLLBACK TO store_run; RELEASE store_run", NULL, 0);
}

static int writer_gone(const db_run_writer *w, char *err, size_t errlen) {
    seterr(err, errlen, "%s: run %s: an earlier error abandoned this run; nothing of it was stored",
           w->d->path, w->slug);
    return -1;
}

int db_run_begin(db *d, const char *experiment, const char *name, char slug[DB_SLUG_SIZE],
                 db_run_writer **out, char *err, size_t errlen) {
    *out = NULL;
    slug[0] = '\0';
    db_run_writer *w = calloc(1, sizeof *w);
    if (!w) {
        seterr(err, errlen, "%s: out of memory", d->path);
        return -1;
    }
    w->d = d;
    w->name_given = name != NULL;
    stats_init(&w->bs);
    stats_init(&w->rows.span);
    w->pyr = pyr_acc_new();   /* NULL: finish reads the blocks back instead */
    if (exec(d, "SAVEPOINT store_run", err, errlen)) {
        pyr_acc_free(w->pyr);
        free(w);
        return -1;
    }
    int64_t exp_id;
    int rc = dbi_lookup_id(d, "experiments", experiment, &exp_id, err, errlen);
    if (rc) goto fail;
    rc = -1;
    /* The summary and what comes from the trace are known at finish; the row
     * exists now because every child row carries its id. */
    sqlite3_stmt *st;
    if (prepare(d,
                "INSERT INTO runs(slug, experiment, name, source, n_kernels, n_blocks, n_copies, "
                "n_queue_events, n_warp_issues, n_jobs, sms) "
                "VALUES (?1, ?2, ?3, 'unknown', 0, 0, 0, 0, 0, 0, 0)",
                &st, err, errlen))
        goto fail;
    sqlite3_bind_int64(st, 2, exp_id);
    bind_s(st, 3, name ? name : "run");
    int irc = dbi_insert_with_slug(d, st, w->slug, "runs", err, errlen);
    sqlite3_finalize(st);
    if (irc) goto fail;
    w->run = sqlite3_last_insert_rowid(d->h);
    bpage_writer_init(&w->pages, d, w->run);
    memcpy(slug, w->slug, DB_SLUG_SIZE);
    *out = w;
    return 0;
fail:
    exec(d, "ROLLBACK TO store_run; RELEASE store_run", NULL, 0);
    pyr_acc_free(w->pyr);
    free(w);
    return rc;
}

int db_run_add_blocks(db_run_writer *w, const trace_block *b, size_t n, char *err,
                      size_t errlen) {
    if (w->failed) return writer_gone(w, err, errlen);
    if (n == 0) return 0;
    if (bpage_add(&w->pages, b, n, err, errlen)) {
        writer_fail(w);
        return -1;
    }
    stats_add(&w->bs, b, n);
    pyr_acc_add(w->pyr, b, n, w->kernels);
    return 0;
}

/* Kernels or copies of t (which: BULK_KERNELS or BULK_COPIES) as the run's
 * next rows: their strings marked, their times and QoS figures counted. */
static int add_rows(db_run_writer *w, int which, const trace *t, char *err, size_t errlen) {
    if (w->failed) return writer_gone(w, err, errlen);
    bool k = which == BULK_KERNELS;
    size_t n = k ? t->kernels.n : t->copies.n;
    if (n == 0) return 0;
    if (t->strs.n + 1 > w->nused) {
        unsigned char *u = realloc(w->used, t->strs.n + 1);
        if (!u) {
            seterr(err, errlen, "%s: out of memory", w->d->path);
            writer_fail(w);
            return -1;
        }
        memset(u + w->nused, 0, t->strs.n + 1 - w->nused);
        w->used = u;
        w->nused = t->strs.n + 1;
    }
    bulk_src src = {.t = t};
    src.base[which] = k ? w->rows.kernels : w->rows.copies;
    int64_t *base = k ? &w->rows.kbase : &w->rows.cbase;
    if (take_base(w->d, which, src.base[which], base, err, errlen)) {
        writer_fail(w);
        return -1;
    }
    src.rowid[which] = *base;
    if (store_table(w->d, which, w->run, &src, err, errlen)) {
        writer_fail(w);
        return -1;
    }
    /* the rows bind text STATIC from t: leave no pointer behind */
    for (int m = 0; m < 2; m++)
        if (w->d->bulk[which][m]) sqlite3_clear_bindings(w->d->bulk[which][m]);
    block_stats *sp = &w->rows.span;
    if (k) {
        for (size_t i = 0; i < n; i++) {
            const trace_kernel *x = &t->kernels.v[i];
            stats_time(sp, x->issue), stats_time(sp, x->first_block);
            stats_time(sp, x->fully_dispatched), stats_time(sp, x->end);
        }
        qos_add(&w->rows.qos, t->kernels.v, n);
        w->rows.kernels += n;
    } else {
        for (size_t i = 0; i < n; i++) {
            const trace_copy *x = &t->copies.v[i];
            stats_time(sp, x->issue), stats_time(sp, x->start), stats_time(sp, x->end);
        }
        w->rows.copies += n;
    }
    /* mark_rows walks both arrays: hand it only the one stored here */
    trace only = *t;
    if (k) only.copies.n = 0;
    else only.kernels.n = 0;
    mark_rows(&only, w->used);
    return 0;
}

int db_run_add_kernels(db_run_writer *w, const trace *t, char *err, size_t errlen) {
    return add_rows(w, BULK_KERNELS, t, err, errlen);
}

int db_run_add_copies(db_run_writer *w, const trace *t, char *err, size_t errlen) {
    return add_rows(w, BULK_COPIES, t, err, errlen);
}

int db_cache_size(db *d, int64_t set, int64_t *old, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "PRAGMA cache_size", &st, err, errlen)) return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && old) *old = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return sqlfail(d, "reading PRAGMA cache_size", err, errlen);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA cache_size=%lld", (long long)set);
    return exec(d, sql, err, errlen);
}

int db_run_shift_times(db_run_writer *w, int64_t delta, char *err, size_t errlen) {
    if (w->failed) return writer_gone(w, err, errlen);
    if (delta == 0) return 0;
    /* the rows stored so far: the run's range (row_ranges.h) */
    static const char *const sql[] = {
        "UPDATE kernels SET issue = issue + ?2, first_block = first_block + ?2, "
        "fully_dispatched = fully_dispatched + ?2, stop = stop + ?2 WHERE rowid BETWEEN ?1 AND ?3",
        "UPDATE copies SET issue = issue + ?2, start = start + ?2, stop = stop + ?2 "
        "WHERE rowid BETWEEN ?1 AND ?3",
    };
    const int64_t base[] = {w->rows.kbase, w->rows.cbase};
    const size_t n[] = {w->rows.kernels, w->rows.copies};
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
        if (n[i] == 0) continue;
        sqlite3_stmt *st;
        if (prepare(w->d, sql[i], &st, err, errlen)) {
            writer_fail(w);
            return -1;
        }
        sqlite3_bind_int64(st, 1, base[i]);
        sqlite3_bind_int64(st, 2, delta);
        sqlite3_bind_int64(st, 3, base[i] + (int64_t)n[i] - 1);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) {
            sqlfail(w->d, i ? "copies: shifting times" : "kernels: shifting times", err, errlen);
            writer_fail(w);
            return -1;
        }
    }
    block_stats *sp = &w->rows.span;
    if (sp->t_min != TRACE_NONE) sp->t_min += delta;
    if (sp->t_max != TRACE_NONE) sp->t_max += delta;
    return 0;
}

void db_run_abort(db_run_writer *w) {
    if (!w) return;
    writer_fail(w);
    pyr_acc_free(w->pyr);
    free(w->used);
    free(w);
}

int db_run_finish(db_run_writer *w, const trace *t, char *err, size_t errlen) {
    db *d = w->d;
    if (w->failed) {
        writer_gone(w, err, errlen);
        pyr_acc_free(w->pyr);
        free(w->used);
        free(w);
        return -1;
    }
    if (t->oom) {
        seterr(err, errlen, "trace: ran out of memory while it was built; nothing stored");
        goto fail;
    }
    if (t->has_device && store_device(d, w->run, -1, &t->device, err, errlen)) goto fail;
    for (size_t i = 0; i < t->devices.n; i++)
        if (store_device(d, w->run, (int64_t)i, &t->devices.v[i], err, errlen)) goto fail;
    if (store_rows(d, w->run, t, &w->pages, &w->rows, w->used, w->nused, err, errlen) ||
        bpage_finish(&w->pages, err, errlen))
        goto fail;
    stats_add(&w->bs, t->blocks.v, t->blocks.n);
    pyr_acc_add(w->pyr, t->blocks.v, t->blocks.n, t);
    stats_add_cohorts(&w->bs, t->cohorts.v, t->cohorts.n);
    int64_t cspan = cohort_span(t);
    if (cspan >= 0) {
        sqlite3_stmt *cs;
        if (prepare(d, "INSERT INTO cohort_spans(run, span) VALUES (?1, ?2)", &cs, err, errlen))
            goto fail;
        sqlite3_bind_int64(cs, 1, w->run);
        sqlite3_bind_int64(cs, 2, cspan);
        int crc = sqlite3_step(cs);
        sqlite3_finalize(cs);
        if (crc != SQLITE_DONE) {
            sqlfail(d, "cohort_spans", err, errlen);
            goto fail;
        }
    }
    db_summary s;
    summarize(t, &w->bs, &w->rows, &s);
    sqlite3_stmt *st;
    if (prepare(d,
                "UPDATE runs SET name = coalesce(?2, name), trace_name = ?3, source = ?4, "
                "origin = ?5, n_kernels = ?6, n_blocks = ?7, n_copies = ?8, n_queue_events = ?9, "
                "n_warp_issues = ?10, n_jobs = ?11, t_min = ?12, t_max = ?13, sms = ?14, "
                "max_block_dur = ?15, n_qos = ?16, n_qos_met = ?17, nonqos_throughput = ?18, "
                "kernel_base = ?19, copy_base = ?20 WHERE id = ?1",
                &st, err, errlen))
        goto fail;
    sqlite3_bind_int64(st, 1, w->run);
    bind_s(st, 2, w->name_given ? NULL : t->name);
    bind_s(st, 3, t->name);
    bind_s(st, 4, t->source ? t->source : "unknown");
    sqlite3_bind_int64(st, 5, t->origin);
    sqlite3_bind_int64(st, 6, s.kernels);
    sqlite3_bind_int64(st, 7, s.blocks);
    sqlite3_bind_int64(st, 8, s.copies);
    sqlite3_bind_int64(st, 9, s.queue_events);
    sqlite3_bind_int64(st, 10, s.warp_issues);
    sqlite3_bind_int64(st, 11, s.jobs);
    bind_t(st, 12, s.t_min);
    bind_t(st, 13, s.t_max);
    sqlite3_bind_int(st, 14, s.sms);
    sqlite3_bind_int64(st, 15, s.max_block_dur);
    sqlite3_bind_int64(st, 16, s.qos_kernels);
    sqlite3_bind_int64(st, 17, s.qos_met);
    if (isfinite(s.nonqos_throughput)) sqlite3_bind_double(st, 18, s.nonqos_throughput);
    else sqlite3_bind_null(st, 18);
    sqlite3_bind_int64(st, 19, s.kernels ? w->rows.kbase : 0);
    sqlite3_bind_int64(st, 20, s.copies ? w->rows.cbase : 0);
    int urc = sqlite3_step(st) == SQLITE_DONE ? 0 : sqlfail(d, "runs: writing the summary", err, errlen);
    sqlite3_finalize(st);
    /* the occupancy pyramid (pyramid.h) */
    if (!urc) urc = dbi_pyramid_finish(d, w->run, w->pyr, err, errlen);
    if (urc || exec(d, "RELEASE store_run", err, errlen)) goto fail;
    pyr_acc_free(w->pyr);
    free(w->used);
    free(w);
    return 0;
fail:
    db_run_abort(w);
    return -1;
}

int db_store_run(db *d, const char *experiment, const char *name, const trace *t,
                 char slug[DB_SLUG_SIZE], char *err, size_t errlen) {
    if (t->oom) {
        seterr(err, errlen, "trace: ran out of memory while it was built; nothing stored");
        return -1;
    }
    db_run_writer *w;
    int rc = db_run_begin(d, experiment, name, slug, &w, err, errlen);
    if (rc) return rc;
    if (db_run_finish(w, t, err, errlen)) {
        slug[0] = '\0';
        return -1;
    }
    return 0;
}
