/* db_load.c -- loading a stored run back into a trace (db_load_run), and
 * the two readers the queries share with it: a run's device and its string
 * table. See db.h for the contract. */
#include "db_int.h"
#include "row_ranges.h"
#include "bpage.h"

#include <stdlib.h>
#include <string.h>

/* ---- the device and the strings of a run ------------------------------------------ */

static void parse_order(const char *s, sim_device *dev) {
    int32_t n = 0;
    while (s && *s && n < SIM_MAX_SMS) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s) break;
        dev->sm_order[n++] = (int16_t)v;
        s = *end == ',' ? end + 1 : end;
    }
}

/* The devices SELECT over sim_device_fields: name, <every numeric field, in
 * table order>, sm_order_kind, sm_order. Returns malloc'ed SQL. */
static char *device_select_sql(void) {
    size_t cap = 256;
    for (size_t i = 0; i < sim_device_nfields; i++) cap += strlen(sim_device_fields[i].field) + 2;
    char *sql = malloc(cap);
    if (!sql) return NULL;
    size_t len = (size_t)snprintf(sql, cap, "SELECT name");
    for (size_t i = 0; i < sim_device_nfields; i++)
        len += (size_t)snprintf(sql + len, cap - len, ", %s", sim_device_fields[i].field);
    snprintf(sql + len, cap - len,
             ", sm_order_kind, sm_order FROM devices WHERE run = ?1 AND gpu = ?2");
    return sql;
}

/* The device row `gpu` of a run (-1: the run's device; db/gpus.sql). */
static int load_gpu(db *d, int64_t run, int64_t gpu, sim_device *dev, bool *has, char *err,
                    size_t errlen) {
    if (!d->dev_select) {
        char *sql = device_select_sql();
        if (!sql) {
            seterr(err, errlen, "%s: out of memory", d->path);
            return -1;
        }
        int rc = prepare(d, sql, &d->dev_select, err, errlen);
        free(sql);
        if (rc) return -1;
    }
    sqlite3_stmt *st = d->dev_select;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, gpu);
    int rc = sqlite3_step(st);
    memset(dev, 0, sizeof *dev);
    *has = rc == SQLITE_ROW;
    if (rc == SQLITE_ROW) {
        int c = 0;
        const char *name = col_s(st, c++);
        snprintf(dev->name, sizeof dev->name, "%s", name ? name : "");
        for (size_t i = 0; i < sim_device_nfields; i++, c++) {
            const sim_device_field *f = &sim_device_fields[i];
            if (f->type == SIM_DT_F64) sim_device_set_f64(dev, f, sqlite3_column_double(st, c));
            else sim_device_set_i64(dev, f, sqlite3_column_int64(st, c));
        }
        dev->sm_order_kind = (sim_sm_order_kind)sqlite3_column_int(st, c++);
        parse_order(col_s(st, c), dev);
    }
    /* the statement is cached: reset it, or it would hold its read open
     * (and its error code) until the next run */
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sqlfail(d, "devices", err, errlen);
    return 0;
}

int dbi_load_device(db *d, int64_t run, sim_device *dev, bool *has, char *err, size_t errlen) {
    return load_gpu(d, run, -1, dev, has, err, errlen);
}

int dbi_load_gpus(db *d, int64_t run, trace *t, char *err, size_t errlen) {
    /* rows 0, 1, ... until the first missing one (a run stores them all) */
    for (int64_t g = 0; g < INT32_MAX; g++) {
        sim_device dev;
        bool has;
        if (load_gpu(d, run, g, &dev, &has, err, errlen)) return -1;
        if (!has) return 0;
        if (trace_add_device(t, &dev) < 0) {
            seterr(err, errlen, "%s: out of memory", d->path);
            return -1;
        }
    }
    return 0;
}

int dbi_load_strings(db *d, int64_t run, trace *t, strmap *m, char *err, size_t errlen) {
    m->v = NULL;
    m->n = 0;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT id, text FROM strings WHERE run = ?1 ORDER BY id", &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, run);
    int rc;
    bool oom = false;
    while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id <= 0 || id > (int64_t)UINT32_MAX) continue;   /* no trace_str names it */
        if ((size_t)id >= m->n) {
            size_t nn = (size_t)id + 1 > 2 * m->n ? (size_t)id + 1 : 2 * m->n;
            trace_str *nv = realloc(m->v, nn * sizeof *nv);
            if (!nv) { oom = true; break; }
            memset(nv + m->n, 0, (nn - m->n) * sizeof *nv);
            m->v = nv;
            m->n = nn;
        }
        m->v[id] = trace_intern(t, col_s(st, 1));
        oom = t->oom;
    }
    sqlite3_finalize(st);
    if (oom) {
        seterr(err, errlen, "%s: strings: out of memory loading the run", d->path);
        return -1;
    }
    return rc == SQLITE_DONE ? 0 : sqlfail(d, "strings", err, errlen);
}

/* ---- a whole run ---------------------------------------------------------------- */

/* Runs `sql` (?1 = run id) and hands each row to `row`; false from `row`
 * means the trace ran out of memory. */
static int load_rows(db *d, int64_t run, const char *sql, trace *out, const strmap *m,
                     bool (*row)(trace *, const strmap *, sqlite3_stmt *), const char *table,
                     char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, sql, &st, err, errlen)) return -1;
    sqlite3_bind_int64(st, 1, run);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!row(out, m, st)) {
            sqlite3_finalize(st);
            seterr(err, errlen, "%s: %s: out of memory loading the run", d->path, table);
            return -1;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sqlfail(d, table, err, errlen);
}

static bool row_meta(trace *t, const strmap *m, sqlite3_stmt *st) {
    (void)m;
    return trace_set_meta(t, col_s(st, 0), col_s(st, 1)) == 0;
}

/* One field of a record (simcore/trace_fields.h) read from column c++ */
#define LOAD_KERNEL_FIELD(col, member, kind, ...) k->member = DBI_COL(kind, st, c, m), c++;
#define LOAD_COPY_FIELD(col, member, kind, ...) x->member = DBI_COL(kind, st, c, m), c++;

static bool row_kernel(trace *t, const strmap *m, sqlite3_stmt *st) {
    trace_kernel *k = trace_add_kernel(t);
    if (!k) return false;
    int c = 0;
    TRACE_KERNEL_FIELDS(LOAD_KERNEL_FIELD, TF_NOSEP)
    return !t->oom;
}

/* row_kernel for a window's kernels (spyramid.c), the columns of
 * DBI_KERNEL_COLS from 0 */
bool dbi_row_kernel(trace *t, const strmap *m, sqlite3_stmt *st) {
    return row_kernel(t, m, st);
}

static bool row_wepoch(trace *t, const strmap *m, sqlite3_stmt *st) {
    (void)m;
    trace_warp_epoch *w = trace_add_warp_epoch(t);
    if (!w) return false;
    w->kernel = sqlite3_column_int(st, 0);
    w->cycle = sqlite3_column_int64(st, 1);
    w->cycles = sqlite3_column_int64(st, 2);
    w->issues = sqlite3_column_int64(st, 3);
    return !t->oom;
}

/* A block from its page (bpage_scan, seq order), into the trace. */
static int page_block(void *ctx, const trace_block *blk, int64_t seq) {
    (void)seq;
    trace_block *b = trace_add_block(ctx);
    if (!b) return 1;
    *b = *blk;
    return 0;
}

static bool row_pause(trace *t, const strmap *m, sqlite3_stmt *st) {
    (void)m;
    return trace_add_pause(t, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                           sqlite3_column_int64(st, 2)) != NULL;
}

void dbi_cohort_at(sqlite3_stmt *st, int col, trace_cohort *c) {
    c->kernel = sqlite3_column_int(st, col);
    c->sm = sqlite3_column_int(st, col + 1);
    c->index = sqlite3_column_int(st, col + 2);
    c->stride = sqlite3_column_int(st, col + 3);
    c->count = sqlite3_column_int64(st, col + 4);
    c->per_wave = sqlite3_column_int64(st, col + 5);
    c->start = sqlite3_column_int64(st, col + 6);
    c->end = sqlite3_column_int64(st, col + 7);
    c->period = sqlite3_column_int64(st, col + 8);
}

static bool row_cohort(trace *t, const strmap *m, sqlite3_stmt *st) {
    (void)m;
    trace_cohort *c = trace_add_cohort(t);
    if (!c) return false;
    dbi_cohort_at(st, 0, c);
    return true;
}

/* also a window's copies (spyramid.c), the columns of DBI_COPY_COLS from 0 */
bool dbi_row_copy(trace *t, const strmap *m, sqlite3_stmt *st) {
    trace_copy *x = trace_add_copy(t);
    if (!x) return false;
    int c = 0;
    TRACE_COPY_FIELDS(LOAD_COPY_FIELD, TF_NOSEP)
    return !t->oom;
}

static bool row_qevent(trace *t, const strmap *m, sqlite3_stmt *st) {
    trace_str q = col_str(m, st, 1), item = col_str(m, st, 2);
    return trace_add_queue_event(t, sqlite3_column_int64(st, 0), q, item,
                                 (trace_queue_op)sqlite3_column_int(st, 3)) != NULL;
}

static bool row_warp(trace *t, const strmap *m, sqlite3_stmt *st) {
    (void)m;
    trace_warp_issue *w = trace_add_warp_issue(t);
    if (!w) return false;
    w->sm = sqlite3_column_int(st, 0);
    w->subcore = sqlite3_column_int(st, 1);
    w->warp = sqlite3_column_int(st, 2);
    w->kernel = sqlite3_column_int(st, 3);
    w->cycle = sqlite3_column_int64(st, 4);
    return true;
}

static bool row_job(trace *t, const strmap *m, sqlite3_stmt *st) {
    trace_job *j = trace_add_job(t);
    if (!j) return false;
    j->task = col_str(m, st, 0);
    j->job = sqlite3_column_int64(st, 1);
    j->release = col_t(st, 2);
    j->start = col_t(st, 3);
    j->end = col_t(st, 4);
    j->deadline = col_t(st, 5);
    return !t->oom;
}

static bool row_host_call(trace *t, const strmap *m, sqlite3_stmt *st) {
    trace_host_call *c = trace_add_host_call(t);
    if (!c) return false;
    c->kind = sqlite3_column_int(st, 0);
    c->record = sqlite3_column_int(st, 1);
    c->task = col_str(m, st, 2);
    c->name = col_str(m, st, 3);
    c->stream = col_str(m, st, 4);
    c->process = col_str(m, st, 5);
    c->at = col_t(st, 6);
    c->issue = col_t(st, 7);
    c->end = col_t(st, 8);
    c->blocking = sqlite3_column_int(st, 9) != 0;
    return !t->oom;
}

int db_load_run(db *d, const char *run, unsigned parts, trace *out, char *err, size_t errlen) {
    sqlite3_stmt *st;
    /* n_blocks counts a cohort run's cohorts as the blocks they stand for
     * (cohort_view.sql); only the others are loaded one by one, so only
     * they are reserved (4.29 G blocks for the Gaussian replay would be) */
    if (prepare(d, "SELECT id, trace_name, source, origin, n_blocks - coalesce("
                   "(SELECT sum(count) FROM cohorts WHERE cohorts.run = runs.id), 0) "
                   "FROM runs WHERE slug = ?1",
                &st, err, errlen))
        return -1;
    bind_s(st, 1, run);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        if (rc == SQLITE_DONE) {
            seterr(err, errlen, "%s: no run named \"%s\"", d->path, run);
            return DB_NOT_FOUND;
        }
        return sqlfail(d, "runs", err, errlen);
    }
    int64_t id = sqlite3_column_int64(st, 0);
    trace_set_name(out, col_s(st, 1));
    trace_set_source(out, col_s(st, 2));
    out->origin = sqlite3_column_int64(st, 3);
    int64_t nblocks = sqlite3_column_int64(st, 4);
    sqlite3_finalize(st);

    if (dbi_load_device(d, id, &out->device, &out->has_device, err, errlen) ||
        dbi_load_gpus(d, id, out, err, errlen))
        return -1;
    strmap m = {NULL, 0};
    rc = -1;
    if (load_rows(d, id, "SELECT key, value FROM run_meta WHERE run = ?1 ORDER BY seq", out,
                  NULL, row_meta, "run_meta", err, errlen) ||
        dbi_load_strings(d, id, out, &m, err, errlen))
        goto out;
    if ((parts & DB_LOAD_KERNELS) &&
        load_rows(d, id,
                  "SELECT " DBI_KERNEL_COLS " FROM kernels WHERE " DBI_KERNELS_OF_RUN
                  " ORDER BY rowid",
                  out, &m, row_kernel, "kernels", err, errlen))
        goto out;
    if (parts & DB_LOAD_BLOCKS) {
        if (nblocks > 0 && trace_reserve_blocks(out, (size_t)nblocks)) {
            seterr(err, errlen, "%s: blocks: out of memory loading the run", d->path);
            goto out;
        }
        int brc = bpage_scan(d, id, page_block, out, err, errlen);
        if (brc > 0) seterr(err, errlen, "%s: blocks: out of memory loading the run", d->path);
        if (brc) goto out;
    }
    if ((parts & DB_LOAD_COPIES) &&
        load_rows(d, id,
                  "SELECT " DBI_COPY_COLS " FROM copies WHERE " DBI_COPIES_OF_RUN " ORDER BY rowid",
                  out, &m, dbi_row_copy, "copies", err, errlen))
        goto out;
    if ((parts & DB_LOAD_QUEUE_EVENTS) &&
        load_rows(d, id,
                  "SELECT t, queue, item, event FROM queue_events WHERE run = ?1 ORDER BY seq",
                  out, &m, row_qevent, "queue_events", err, errlen))
        goto out;
    if ((parts & DB_LOAD_WARP_ISSUES) &&
        load_rows(d, id,
                  "SELECT sm, subcore, warp, kernel, cycle FROM warp_issues WHERE run = ?1 "
                  "ORDER BY seq",
                  out, &m, row_warp, "warp_issues", err, errlen))
        goto out;
    /* a warp-level run's epochs come with its issues */
    if ((parts & DB_LOAD_WARP_ISSUES) &&
        load_rows(d, id,
                  "SELECT kernel, cycle, cycles, issues FROM warp_epochs WHERE run = ?1 "
                  "ORDER BY seq",
                  out, &m, row_wepoch, "warp_epochs", err, errlen))
        goto out;
    /* a cohort run's blocks in cohorts (issue 28) come with its blocks, and
     * with the pauses (the export streams the blocks themselves) */
    if ((parts & (DB_LOAD_BLOCKS | DB_LOAD_PAUSES)) &&
        load_rows(d, id,
                  "SELECT " DBI_COHORT_COLS " FROM cohorts WHERE run = ?1 ORDER BY seq",
                  out, &m, row_cohort, "cohorts", err, errlen))
        goto out;
    if ((parts & (DB_LOAD_BLOCKS | DB_LOAD_PAUSES)) &&
        load_rows(d, id, "SELECT block, start, stop FROM pauses WHERE run = ?1 ORDER BY seq",
                  out, &m, row_pause, "pauses", err, errlen))
        goto out;
    if ((parts & DB_LOAD_JOBS) &&
        load_rows(d, id,
                  "SELECT task, job, release, start, stop, deadline FROM jobs WHERE run = ?1 "
                  "ORDER BY seq",
                  out, &m, row_job, "jobs", err, errlen))
        goto out;
    /* the host's calls name kernels and copies: they come with both (a
     * replay, an export), or alone when asked for (the dashboard's) */
    if (((parts & DB_LOAD_HOST_CALLS) || ((parts & DB_LOAD_KERNELS) && (parts & DB_LOAD_COPIES))) &&
        load_rows(d, id,
                  "SELECT kind, record, task, name, stream, process, at, issue, stop, blocking "
                  "FROM host_calls WHERE run = ?1 ORDER BY seq",
                  out, &m, row_host_call, "host_calls", err, errlen))
        goto out;
    if (out->oom) {
        seterr(err, errlen, "%s: out of memory loading run \"%s\"", d->path, run);
        goto out;
    }
    rc = 0;
out:
    free(m.v);
    return rc;
}
