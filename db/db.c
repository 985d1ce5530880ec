/* db.c -- experiments and runs in SQLite. See db.h for the contract. */
#include "db.h"

#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* The tables db_store_run fills from the trace's arrays (bulk_tables). */
#define DB_NBULK 8

struct db {
    sqlite3 *h;
    char *path;
    /* db_store_run's INSERTs, one row and many rows per table, prepared
     * once per connection. */
    sqlite3_stmt *bulk[DB_NBULK][2];
};

/* The migration list: step i brings user_version from i to i + 1. A schema
 * change is a new step appended here, never an edit of an old one. */
static const char *const migrations[DB_SCHEMA_VERSION] = {
    db_schema_sql,
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int sqlfail(db *d, const char *what, char *err, size_t errlen) {
    seterr(err, errlen, "%s: %s: %s", d->path, what, sqlite3_errmsg(d->h));
    return -1;
}

static int exec(db *d, const char *sql, char *err, size_t errlen) {
    char *msg = NULL;
    if (sqlite3_exec(d->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        seterr(err, errlen, "%s: %s", d->path, msg ? msg : sqlite3_errmsg(d->h));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int prepare(db *d, const char *sql, sqlite3_stmt **st, char *err, size_t errlen) {
    if (sqlite3_prepare_v3(d->h, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return sqlfail(d, "preparing a query", err, errlen);
    }
    return 0;
}

/* TRACE_NONE and NULL strings are SQL NULL. */
static void bind_t(sqlite3_stmt *st, int i, int64_t v) {
    if (v == TRACE_NONE) sqlite3_bind_null(st, i);
    else sqlite3_bind_int64(st, i, v);
}

static void bind_s(sqlite3_stmt *st, int i, const char *s) {
    if (s) sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, i);
}

static int64_t col_t(sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? TRACE_NONE : sqlite3_column_int64(st, i);
}

static const char *col_s(sqlite3_stmt *st, int i) {
    return (const char *)sqlite3_column_text(st, i);
}

/* ---- open, migrate, transactions ------------------------------------------ */

int db_user_version(db *d, int *version, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "PRAGMA user_version", &st, err, errlen)) return -1;
    int rc = sqlite3_step(st);
    *version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return sqlfail(d, "reading PRAGMA user_version", err, errlen);
    return 0;
}

static int migrate(db *d, char *err, size_t errlen) {
    for (;;) {
        int v;
        if (db_user_version(d, &v, err, errlen)) return -1;
        if (v > DB_SCHEMA_VERSION) {
            seterr(err, errlen,
                   "%s: schema version %d is newer than this schedlab's (%d); use a newer "
                   "schedlab or another --db",
                   d->path, v, DB_SCHEMA_VERSION);
            return -1;
        }
        if (v == DB_SCHEMA_VERSION) return 0;
        /* IMMEDIATE takes the write lock first, so two processes opening a
         * fresh file cannot both run the same step: the second re-reads the
         * version once the first has committed. */
        if (exec(d, "BEGIN IMMEDIATE", err, errlen)) return -1;
        int now;
        if (db_user_version(d, &now, err, errlen)) goto fail;
        if (now == v) {
            char *msg = NULL;
            if (sqlite3_exec(d->h, migrations[v], NULL, NULL, &msg) != SQLITE_OK) {
                seterr(err, errlen, "%s: migration step %d: %s", d->path, v + 1,
                       msg ? msg : sqlite3_errmsg(d->h));
                sqlite3_free(msg);
                goto fail;
            }
            char sql[64];
            snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
            if (exec(d, sql, err, errlen)) goto fail;
        }
        if (exec(d, "COMMIT", err, errlen)) goto fail;
        continue;
    fail:
        exec(d, "ROLLBACK", NULL, 0);
        return -1;
    }
}

int db_open(const char *path, db **out, char *err, size_t errlen) {
    *out = NULL;
    db *d = calloc(1, sizeof *d);
    if (!d || !(d->path = strdup(path))) {
        free(d);
        seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = sqlite3_open_v2(path, &d->h,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        seterr(err, errlen, "%s: cannot open the database: %s", path,
               d->h ? sqlite3_errmsg(d->h) : sqlite3_errstr(rc));
        db_close(d);
        return -1;
    }
    sqlite3_extended_result_codes(d->h, 1);
    sqlite3_busy_timeout(d->h, DB_BUSY_TIMEOUT_MS);
    /* WAL: the dashboard reads while an import writes. synchronous=NORMAL is
     * durable across application crashes in WAL mode and makes the per-run
     * commit cheap. The 64 MiB page cache keeps a million-block insert in
     * memory until the commit. */
    if (exec(d, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
                "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;",
             err, errlen) ||
        migrate(d, err, errlen)) {
        db_close(d);
        return -1;
    }
    *out = d;
    return 0;
}

void db_close(db *d) {
    if (!d) return;
    for (int w = 0; w < DB_NBULK; w++)
        for (int m = 0; m < 2; m++) sqlite3_finalize(d->bulk[w][m]);
    sqlite3_close_v2(d->h);
    free(d->path);
    free(d);
}

const char *db_path(const db *d) { return d->path; }
struct sqlite3 *db_handle(db *d) { return d->h; }

int db_begin(db *d, char *err, size_t errlen) { return exec(d, "BEGIN IMMEDIATE", err, errlen); }
int db_commit(db *d, char *err, size_t errlen) { return exec(d, "COMMIT", err, errlen); }
void db_rollback(db *d) {
    if (!sqlite3_get_autocommit(d->h)) exec(d, "ROLLBACK", NULL, 0);
}

int db_new_slug(char out[DB_SLUG_SIZE], char *err, size_t errlen) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    size_t n = 0;
    while (n < DB_SLUG_LEN) {
        unsigned char buf[32];
        ssize_t got = getrandom(buf, sizeof buf, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            seterr(err, errlen, "getrandom: %s", strerror(errno));
            return -1;
        }
        for (ssize_t i = 0; i < got && n < DB_SLUG_LEN; i++)
            if (buf[i] < 252) out[n++] = alphabet[buf[i] % 36];  /* 252 = 7*36: unbiased */
    }
    out[DB_SLUG_LEN] = '\0';
    return 0;
}

/* Run an INSERT whose ?1 is a fresh slug; a slug collision (1 in 36^10 per
 * pair) just draws again. */
static int insert_with_slug(db *d, sqlite3_stmt *st, char slug[DB_SLUG_SIZE], const char *what,
                            char *err, size_t errlen) {
    for (int tries = 0; tries < 8; tries++) {
        if (db_new_slug(slug, err, errlen)) return -1;
        sqlite3_bind_text(st, 1, slug, -1, SQLITE_TRANSIENT);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc == SQLITE_DONE) return 0;
        if (rc != SQLITE_CONSTRAINT_UNIQUE) return sqlfail(d, what, err, errlen);
    }
    seterr(err, errlen, "%s: %s: no unused slug after 8 draws", d->path, what);
    return -1;
}

/* ---- experiments ------------------------------------------------------------ */

int db_create_experiment(db *d, const char *name, const char *description, const char *source,
                         const char *scenario_file, const char *scenario_json,
                         char slug[DB_SLUG_SIZE], char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d,
                "INSERT INTO experiments(slug, name, description, source, scenario_file, "
                "scenario_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                &st, err, errlen))
        return -1;
    bind_s(st, 2, name ? name : "");
    bind_s(st, 3, description);
    bind_s(st, 4, source);
    bind_s(st, 5, scenario_file);
    bind_s(st, 6, scenario_json);
    int rc = insert_with_slug(d, st, slug, "experiments", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

#define EXP_COLS "slug, name, description, source, scenario_file, scenario_json, created"

static int experiment_rows(db *d, sqlite3_stmt *st, db_experiment_cb cb, void *ctx, bool one,
                           char *err, size_t errlen) {
    int rc, seen = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        db_experiment e = {
            .slug = col_s(st, 0), .name = col_s(st, 1), .description = col_s(st, 2),
            .source = col_s(st, 3), .scenario_file = col_s(st, 4),
            .scenario_json = col_s(st, 5), .created = col_s(st, 6),
        };
        seen++;
        int r = cb(ctx, &e);
        if (r) { sqlite3_finalize(st); return r; }
    }
    if (rc != SQLITE_DONE) {
        sqlfail(d, "reading experiments", err, errlen);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return (one && !seen) ? DB_NOT_FOUND : 0;
}

int db_list_experiments(db *d, db_experiment_cb cb, void *ctx, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT " EXP_COLS " FROM experiments ORDER BY id DESC", &st, err, errlen))
        return -1;
    return experiment_rows(d, st, cb, ctx, false, err, errlen);
}

int db_get_experiment(db *d, const char *slug, db_experiment_cb cb, void *ctx, char *err,
                      size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT " EXP_COLS " FROM experiments WHERE slug = ?1", &st, err, errlen))
        return -1;
    bind_s(st, 1, slug);
    return experiment_rows(d, st, cb, ctx, true, err, errlen);
}

int db_has_scenario_file(db *d, const char *file, bool *found, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT 1 FROM experiments WHERE scenario_file = ?1 LIMIT 1", &st, err,
                errlen))
        return -1;
    bind_s(st, 1, file);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sqlfail(d, "experiments", err, errlen);
    *found = rc == SQLITE_ROW;
    return 0;
}

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

/* The summary of trace t whose blocks, streamed ones included, are in bs. */
static void summarize(const trace *t, const block_stats *bs, db_summary *s) {
    memset(s, 0, sizeof *s);
    s->kernels = (int64_t)t->kernels.n;
    s->blocks = bs->n;
    s->copies = (int64_t)t->copies.n;
    s->queue_events = (int64_t)t->queue_events.n;
    s->warp_issues = (int64_t)t->warp_issues.n;
    s->jobs = (int64_t)t->jobs.n;
    block_stats span = *bs;
    int64_t lo, hi;
    trace_time_span(t, &lo, &hi);
    stats_time(&span, lo);
    stats_time(&span, hi);
    s->t_min = span.t_min;
    s->t_max = span.t_max;
    s->max_block_dur = bs->max_dur;
    s->sms = (t->has_device && t->device.sms > 0) ? t->device.sms : bs->top_sm + 1;
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

static int store_device(db *d, int64_t run, const sim_device *dev, char *err, size_t errlen) {
    char order[SIM_MAX_SMS * 5 + 1];
    size_t len = 0;
    int32_t n = dev->sms < SIM_MAX_SMS ? dev->sms : SIM_MAX_SMS;
    order[0] = '\0';
    for (int32_t i = 0; i < n; i++)
        len += (size_t)snprintf(order + len, sizeof order - len, i ? ",%d" : "%d",
                                (int)dev->sm_order[i]);
    sqlite3_stmt *st;
    if (prepare(d,
                "INSERT INTO devices(run, name, sms, threads_per_sm, max_threads_per_block, "
                "blocks_per_sm, warps_per_sm, regs_per_sm, max_regs_per_block, smem_per_sm, "
                "max_smem_per_block, warp_size, schedulers_per_sm, copy_engines, copy_bandwidth, "
                "clock_hz, sm_order_kind, sm_order) VALUES "
                "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)",
                &st, err, errlen))
        return -1;
    char name[SIM_DEVICE_NAME_MAX + 1];
    memcpy(name, dev->name, SIM_DEVICE_NAME_MAX);
    name[SIM_DEVICE_NAME_MAX] = '\0';
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, dev->sms);
    sqlite3_bind_int(st, 4, dev->threads_per_sm);
    sqlite3_bind_int(st, 5, dev->max_threads_per_block);
    sqlite3_bind_int(st, 6, dev->blocks_per_sm);
    sqlite3_bind_int(st, 7, dev->warps_per_sm);
    sqlite3_bind_int64(st, 8, dev->regs_per_sm);
    sqlite3_bind_int64(st, 9, dev->max_regs_per_block);
    sqlite3_bind_int64(st, 10, dev->smem_per_sm);
    sqlite3_bind_int64(st, 11, dev->max_smem_per_block);
    sqlite3_bind_int(st, 12, dev->warp_size);
    sqlite3_bind_int(st, 13, dev->schedulers_per_sm);
    sqlite3_bind_int(st, 14, dev->copy_engines);
    sqlite3_bind_double(st, 15, dev->copy_bandwidth);
    sqlite3_bind_int64(st, 16, dev->clock_hz);
    sqlite3_bind_int(st, 17, (int)dev->sm_order_kind);
    sqlite3_bind_text(st, 18, order, -1, SQLITE_STATIC);
    int rc = step_row(d, st, "device", 0, err, errlen);
    sqlite3_finalize(st);
    return rc;
}

/* ---- bulk rows ------------------------------------------------------------------ */

/* Every trace array is stored the same way: rows (run, seq, ...) inserted
 * many per statement. A statement step per row opens a fresh cursor and
 * descends the b-tree for every row; a multi-row INSERT keeps its cursor on
 * the rightmost leaf, where each next row belongs. Measured on a 200k-row
 * nvprof CSV: 36% fewer instructions in db_store_run than one row per step. */

/* Parameters per multi-row statement: 512, 2048 and 8192 measured within 5%
 * of each other, all far below SQLITE_MAX_VARIABLE_NUMBER (32766). */
#define BULK_PARAMS 2048

/* Where bulk_tables[BULK_BLOCKS] is; streamed blocks go through it alone. */
#define BULK_BLOCKS 3

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
} bulk_src;

typedef struct bulk_table {
    const char *what;       /* the trace array, as errors name a row: "blocks[12]" */
    const char *insert;     /* "INSERT INTO t(run, seq, ...)": run, then ncols columns */
    int ncols;
    size_t (*count)(const bulk_src *src);
    /* Binds row i to parameters p .. p + ncols - 1. Text is bound
     * SQLITE_STATIC: it lives in the trace, which outlives the step. */
    void (*bind)(sqlite3_stmt *st, int p, const bulk_src *src, size_t i);
} bulk_table;

/* A string column holds the trace's id; an id trace_str_get would not
 * resolve is no string (NULL), as before. */
static trace_str str_id(const trace *t, trace_str id) { return id < t->strs.n ? id : 0; }

static void bind_id(sqlite3_stmt *s, int i, const trace *t, trace_str id) {
    id = str_id(t, id);
    if (id) sqlite3_bind_int64(s, i, id);
    else sqlite3_bind_null(s, i);
}

/* The ids of the strings that rows refer to, in id order; meta keys and
 * values (stored as text in run_meta) and strings nothing stores are left
 * out. */
static int used_strings(const trace *t, bulk_src *src) {
    unsigned char *used = calloc(t->strs.n + 1, 1);
    if (!used) return -1;
#define MARK(id) (used[str_id(t, (id))] = 1)
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        MARK(k->name), MARK(k->raw_name), MARK(k->stream), MARK(k->process);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        MARK(c->name), MARK(c->stream), MARK(c->process);
    }
    for (size_t i = 0; i < t->queue_events.n; i++)
        MARK(t->queue_events.v[i].queue), MARK(t->queue_events.v[i].item);
    for (size_t i = 0; i < t->jobs.n; i++) MARK(t->jobs.v[i].task);
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
static size_t count_jobs(const bulk_src *s) { return s->t->jobs.n; }

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

static void bind_kernel(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace *t = src->t;
    const trace_kernel *k = &t->kernels.v[i];
    sqlite3_bind_int64(s, p, (int64_t)i);
    bind_id(s, p + 1, t, k->name);
    bind_id(s, p + 2, t, k->raw_name);
    bind_id(s, p + 3, t, k->stream);
    bind_id(s, p + 4, t, k->process);
    if (k->priority == TRACE_PRIO_NONE) sqlite3_bind_null(s, p + 5);
    else sqlite3_bind_int(s, p + 5, k->priority);
    sqlite3_bind_int(s, p + 6, k->threads);
    bind_t(s, p + 7, k->issue);
    bind_t(s, p + 8, k->first_block);
    bind_t(s, p + 9, k->fully_dispatched);
    bind_t(s, p + 10, k->end);
    sqlite3_bind_int64(s, p + 11, k->blocks);
    bind_t(s, p + 12, k->smem);
    sqlite3_bind_int(s, p + 13, k->regs);
    for (int j = 0; j < 3; j++) {
        sqlite3_bind_int(s, p + 14 + j, k->grid[j]);
        sqlite3_bind_int(s, p + 17 + j, k->block[j]);
    }
}

static void bind_block(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace_block *b = &src->blocks[i - src->base[BULK_BLOCKS]];
    sqlite3_bind_int64(s, p, (int64_t)i);
    sqlite3_bind_int(s, p + 1, b->kernel);
    sqlite3_bind_int(s, p + 2, b->index);
    sqlite3_bind_int(s, p + 3, b->sm);
    bind_t(s, p + 4, b->start);
    bind_t(s, p + 5, b->end);
}

static void bind_copy(sqlite3_stmt *s, int p, const bulk_src *src, size_t i) {
    const trace *t = src->t;
    const trace_copy *c = &t->copies.v[i];
    sqlite3_bind_int64(s, p, (int64_t)i);
    bind_id(s, p + 1, t, c->name);
    bind_id(s, p + 2, t, c->stream);
    bind_id(s, p + 3, t, c->process);
    sqlite3_bind_int(s, p + 4, c->direction);
    sqlite3_bind_int(s, p + 5, c->engine);
    bind_t(s, p + 6, c->bytes);
    bind_t(s, p + 7, c->issue);
    bind_t(s, p + 8, c->start);
    bind_t(s, p + 9, c->end);
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

static const bulk_table bulk_tables[DB_NBULK] = {
    {"strings", "INSERT INTO strings(run, id, text)", 2, count_strings, bind_string},
    {"meta", "INSERT INTO run_meta(run, seq, key, value)", 3, count_meta, bind_meta},
    {"kernels",
     "INSERT INTO kernels(run, id, name, raw_name, stream, process, priority, threads, issue, "
     "first_block, fully_dispatched, stop, blocks, smem, regs, grid_x, grid_y, grid_z, "
     "block_x, block_y, block_z)",
     20, count_kernels, bind_kernel},
    {"blocks", "INSERT INTO blocks(run, seq, kernel, idx, sm, start, stop)", 6, count_blocks,
     bind_block},
    {"copies",
     "INSERT INTO copies(run, id, name, stream, process, direction, engine, bytes, issue, "
     "start, stop)",
     10, count_copies, bind_copy},
    {"queue_events", "INSERT INTO queue_events(run, seq, t, queue, item, event)", 5,
     count_qevents, bind_qevent},
    {"warp_issues", "INSERT INTO warp_issues(run, seq, sm, subcore, warp, kernel, cycle)", 6,
     count_warps, bind_warp},
    {"jobs", "INSERT INTO jobs(run, seq, task, job, release, start, stop, deadline)", 7,
     count_jobs, bind_job},
};

static size_t bulk_rows(const bulk_table *tb) { return (size_t)(BULK_PARAMS / tb->ncols); }

/* "<insert> VALUES (?1,?,...,?),(?1,?,...)": ?1 is the run in every row and
 * stays bound across resets; the anonymous ? number on, so row j's first
 * column is parameter 2 + j * ncols. */
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
        memcpy(p, "(?1", 3);
        p += 3;
        for (int c = 0; c < tb->ncols; c++) {
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
    sqlite3_bind_int64(s, 1, run);
    for (size_t i = from; i < to; i++) {
        tb->bind(s, 2, src, i);
        if (step_row(d, s, tb->what, i, err, errlen)) return -1;
    }
    return 0;
}

/* Whole batches of bulk_rows() rows, then the tail one row at a time. Row
 * numbers (seq, and the index errors name) count from src->base[which]. */
static int store_table(db *d, int which, int64_t run, const bulk_src *src, char *err,
                       size_t errlen) {
    const bulk_table *tb = &bulk_tables[which];
    size_t i = src->base[which], n = i + tb->count(src), rows = bulk_rows(tb);
    if (n - i >= rows) {
        sqlite3_stmt *s;
        if (bulk_stmt(d, which, true, &s, err, errlen)) return -1;
        sqlite3_bind_int64(s, 1, run);
        for (; i + rows <= n; i += rows) {
            for (size_t j = 0; j < rows; j++) tb->bind(s, 2 + (int)j * tb->ncols, src, i + j);
            int rc = sqlite3_step(s);
            sqlite3_reset(s);
            if (rc == SQLITE_DONE) continue;
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
    return store_single(d, which, run, src, i, n, err, errlen);
}

/* Every row of t; its blocks follow the `streamed` ones already stored. */
static int store_rows(db *d, int64_t run, const trace *t, size_t streamed, char *err,
                      size_t errlen) {
    bulk_src src = {.t = t, .blocks = t->blocks.v, .nblocks = t->blocks.n};
    src.base[BULK_BLOCKS] = streamed;
    if (used_strings(t, &src)) {
        seterr(err, errlen, "%s: out of memory", d->path);
        return -1;
    }
    int rc = 0;
    for (int w = 0; w < DB_NBULK && !rc; w++) rc = store_table(d, w, run, &src, err, errlen);
    /* Leave no pointer into the caller's trace in the cached statements. */
    for (int w = 0; w < DB_NBULK; w++)
        for (int m = 0; m < 2; m++)
            if (d->bulk[w][m]) sqlite3_clear_bindings(d->bulk[w][m]);
    free(src.strs);
    return rc;
}

static int lookup_id(db *d, const char *table, const char *slug, int64_t *id, char *err,
                     size_t errlen) {
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT id FROM %s WHERE slug = ?1", table);
    sqlite3_stmt *st;
    if (prepare(d, sql, &st, err, errlen)) return -1;
    bind_s(st, 1, slug);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return 0;
    if (rc == SQLITE_DONE) {
        seterr(err, errlen, "%s: no %s named \"%s\"", d->path,
               strcmp(table, "runs") == 0 ? "run" : "experiment", slug);
        return DB_NOT_FOUND;
    }
    return sqlfail(d, table, err, errlen);
}

struct db_run_writer {
    db *d;
    int64_t run;
    char slug[DB_SLUG_SIZE];
    bool name_given;         /* false: the run takes the trace's name at finish */
    bool failed;             /* a step failed and rolled the run back */
    block_stats bs;          /* the blocks stored so far */
};

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
    if (exec(d, "SAVEPOINT store_run", err, errlen)) {
        free(w);
        return -1;
    }
    int64_t exp_id;
    int rc = lookup_id(d, "experiments", experiment, &exp_id, err, errlen);
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
    int irc = insert_with_slug(d, st, w->slug, "runs", err, errlen);
    sqlite3_finalize(st);
    if (irc) goto fail;
    w->run = sqlite3_last_insert_rowid(d->h);
    memcpy(slug, w->slug, DB_SLUG_SIZE);
    *out = w;
    return 0;
fail:
    exec(d, "ROLLBACK TO store_run; RELEASE store_run", NULL, 0);
    free(w);
    return rc;
}

int db_run_add_blocks(db_run_writer *w, const trace_block *b, size_t n, char *err,
                      size_t errlen) {
    if (w->failed) return writer_gone(w, err, errlen);
    if (n == 0) return 0;
    bulk_src src = {.blocks = b, .nblocks = n};
    src.base[BULK_BLOCKS] = (size_t)w->bs.n;
    if (store_table(w->d, BULK_BLOCKS, w->run, &src, err, errlen)) {
        writer_fail(w);
        return -1;
    }
    stats_add(&w->bs, b, n);
    return 0;
}

void db_run_abort(db_run_writer *w) {
    if (!w) return;
    writer_fail(w);
    free(w);
}

int db_run_finish(db_run_writer *w, const trace *t, char *err, size_t errlen) {
    db *d = w->d;
    if (w->failed) {
        writer_gone(w, err, errlen);
        free(w);
        return -1;
    }
    if (t->oom) {
        seterr(err, errlen, "trace: ran out of memory while it was built; nothing stored");
        goto fail;
    }
    if (t->has_device && store_device(d, w->run, &t->device, err, errlen)) goto fail;
    if (store_rows(d, w->run, t, (size_t)w->bs.n, err, errlen)) goto fail;
    stats_add(&w->bs, t->blocks.v, t->blocks.n);
    db_summary s;
    summarize(t, &w->bs, &s);
    sqlite3_stmt *st;
    if (prepare(d,
                "UPDATE runs SET name = coalesce(?2, name), trace_name = ?3, source = ?4, "
                "origin = ?5, n_kernels = ?6, n_blocks = ?7, n_copies = ?8, n_queue_events = ?9, "
                "n_warp_issues = ?10, n_jobs = ?11, t_min = ?12, t_max = ?13, sms = ?14, "
                "max_block_dur = ?15 WHERE id = ?1",
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
    int urc = sqlite3_step(st) == SQLITE_DONE ? 0 : sqlfail(d, "runs: writing the summary", err, errlen);
    sqlite3_finalize(st);
    if (urc || exec(d, "RELEASE store_run", err, errlen)) goto fail;
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

/* ---- reading runs --------------------------------------------------------------- */

#define RUN_COLS                                                                          \
    "r.id, r.slug, e.slug, r.name, r.source, r.created, r.trace_name, r.origin, "         \
    "r.n_kernels, r.n_blocks, r.n_copies, r.n_queue_events, r.n_warp_issues, r.n_jobs, " \
    "r.t_min, r.t_max, r.sms, r.max_block_dur"
#define RUN_FROM " FROM runs r JOIN experiments e ON e.id = r.experiment "

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

/* Fills dev from the devices row of `run`; *has = false when there is none. */
static int load_device(db *d, int64_t run, sim_device *dev, bool *has, char *err,
                       size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d,
                "SELECT name, sms, threads_per_sm, max_threads_per_block, blocks_per_sm, "
                "warps_per_sm, regs_per_sm, max_regs_per_block, smem_per_sm, "
                "max_smem_per_block, warp_size, schedulers_per_sm, copy_engines, "
                "copy_bandwidth, clock_hz, sm_order_kind, sm_order FROM devices WHERE run = ?1",
                &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, run);
    int rc = sqlite3_step(st);
    memset(dev, 0, sizeof *dev);
    *has = rc == SQLITE_ROW;
    if (rc == SQLITE_ROW) {
        const char *name = col_s(st, 0);
        snprintf(dev->name, sizeof dev->name, "%s", name ? name : "");
        dev->sms = sqlite3_column_int(st, 1);
        dev->threads_per_sm = sqlite3_column_int(st, 2);
        dev->max_threads_per_block = sqlite3_column_int(st, 3);
        dev->blocks_per_sm = sqlite3_column_int(st, 4);
        dev->warps_per_sm = sqlite3_column_int(st, 5);
        dev->regs_per_sm = sqlite3_column_int64(st, 6);
        dev->max_regs_per_block = sqlite3_column_int64(st, 7);
        dev->smem_per_sm = sqlite3_column_int64(st, 8);
        dev->max_smem_per_block = sqlite3_column_int64(st, 9);
        dev->warp_size = sqlite3_column_int(st, 10);
        dev->schedulers_per_sm = sqlite3_column_int(st, 11);
        dev->copy_engines = sqlite3_column_int(st, 12);
        dev->copy_bandwidth = sqlite3_column_double(st, 13);
        dev->clock_hz = sqlite3_column_int64(st, 14);
        dev->sm_order_kind = (sim_sm_order_kind)sqlite3_column_int(st, 15);
        parse_order(col_s(st, 16), dev);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sqlfail(d, "devices", err, errlen);
    return 0;
}

static int run_rows(db *d, sqlite3_stmt *st, db_run_cb cb, void *ctx, bool one, char *err,
                    size_t errlen) {
    int rc, seen = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        db_run r = {
            .slug = col_s(st, 1), .experiment = col_s(st, 2), .name = col_s(st, 3),
            .source = col_s(st, 4), .created = col_s(st, 5), .trace_name = col_s(st, 6),
            .origin = sqlite3_column_int64(st, 7),
        };
        r.summary.kernels = sqlite3_column_int64(st, 8);
        r.summary.blocks = sqlite3_column_int64(st, 9);
        r.summary.copies = sqlite3_column_int64(st, 10);
        r.summary.queue_events = sqlite3_column_int64(st, 11);
        r.summary.warp_issues = sqlite3_column_int64(st, 12);
        r.summary.jobs = sqlite3_column_int64(st, 13);
        r.summary.t_min = col_t(st, 14);
        r.summary.t_max = col_t(st, 15);
        r.summary.sms = sqlite3_column_int(st, 16);
        r.summary.max_block_dur = sqlite3_column_int64(st, 17);
        if (load_device(d, sqlite3_column_int64(st, 0), &r.device, &r.has_device, err, errlen)) {
            sqlite3_finalize(st);
            return -1;
        }
        seen++;
        int cr = cb(ctx, &r);
        if (cr) { sqlite3_finalize(st); return cr; }
    }
    if (rc != SQLITE_DONE) {
        sqlfail(d, "reading runs", err, errlen);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return (one && !seen) ? DB_NOT_FOUND : 0;
}

int db_list_runs(db *d, const char *experiment, db_run_cb cb, void *ctx, char *err,
                 size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT " RUN_COLS RUN_FROM "WHERE e.slug = ?1 ORDER BY r.id", &st, err,
                errlen))
        return -1;
    bind_s(st, 1, experiment);
    return run_rows(d, st, cb, ctx, false, err, errlen);
}

int db_get_run(db *d, const char *run, db_run_cb cb, void *ctx, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT " RUN_COLS RUN_FROM "WHERE r.slug = ?1", &st, err, errlen)) return -1;
    bind_s(st, 1, run);
    int rc = run_rows(d, st, cb, ctx, true, err, errlen);
    if (rc == DB_NOT_FOUND) seterr(err, errlen, "%s: no run named \"%s\"", d->path, run);
    return rc;
}

int db_run_meta(db *d, const char *run, db_meta_cb cb, void *ctx, char *err, size_t errlen) {
    int64_t id;
    int rc = lookup_id(d, "runs", run, &id, err, errlen);
    if (rc) return rc;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT key, value FROM run_meta WHERE run = ?1 ORDER BY seq", &st, err,
                errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int cr = cb(ctx, col_s(st, 0), col_s(st, 1));
        if (cr) { sqlite3_finalize(st); return cr; }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sqlfail(d, "run_meta", err, errlen);
}

int db_count_runs(db *d, int64_t *n, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT count(*) FROM runs", &st, err, errlen)) return -1;
    int rc = sqlite3_step(st);
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : sqlfail(d, "runs", err, errlen);
}

/* Runs `sql` (?1 = run id) and hands each row to `row`; false from `row`
 * means the trace ran out of memory. */
/* A run's strings interned into a trace: v[id] is the trace_str of stored
 * id (0 where none). */
typedef struct strmap {
    trace_str *v;
    size_t n;
} strmap;

static int load_strings(db *d, int64_t run, trace *t, strmap *m, char *err, size_t errlen) {
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

/* A strings.id column (NULL: no string). */
static trace_str col_str(const strmap *m, sqlite3_stmt *st, int i) {
    int64_t id = sqlite3_column_int64(st, i);
    return id > 0 && (uint64_t)id < m->n ? m->v[id] : 0;
}

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

static bool row_kernel(trace *t, const strmap *m, sqlite3_stmt *st) {
    trace_kernel *k = trace_add_kernel(t);
    if (!k) return false;
    k->name = col_str(m, st, 0);
    k->raw_name = col_str(m, st, 1);
    k->stream = col_str(m, st, 2);
    k->process = col_str(m, st, 3);
    k->priority = sqlite3_column_type(st, 4) == SQLITE_NULL ? TRACE_PRIO_NONE
                                                             : sqlite3_column_int(st, 4);
    k->threads = sqlite3_column_int(st, 5);
    k->issue = col_t(st, 6);
    k->first_block = col_t(st, 7);
    k->fully_dispatched = col_t(st, 8);
    k->end = col_t(st, 9);
    k->blocks = sqlite3_column_int64(st, 10);
    k->smem = col_t(st, 11);
    k->regs = sqlite3_column_int(st, 12);
    for (int j = 0; j < 3; j++) {
        k->grid[j] = sqlite3_column_int(st, 13 + j);
        k->block[j] = sqlite3_column_int(st, 16 + j);
    }
    return !t->oom;
}

static bool row_block(trace *t, const strmap *m, sqlite3_stmt *st) {
    (void)m;
    trace_block *b = trace_add_block(t);
    if (!b) return false;
    b->kernel = sqlite3_column_int(st, 0);
    b->index = sqlite3_column_int(st, 1);
    b->sm = sqlite3_column_int(st, 2);
    b->start = col_t(st, 3);
    b->end = col_t(st, 4);
    return true;
}

static bool row_copy(trace *t, const strmap *m, sqlite3_stmt *st) {
    trace_copy *c = trace_add_copy(t);
    if (!c) return false;
    c->name = col_str(m, st, 0);
    c->stream = col_str(m, st, 1);
    c->process = col_str(m, st, 2);
    c->direction = sqlite3_column_int(st, 3);
    c->engine = sqlite3_column_int(st, 4);
    c->bytes = col_t(st, 5);
    c->issue = col_t(st, 6);
    c->start = col_t(st, 7);
    c->end = col_t(st, 8);
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

int db_load_run(db *d, const char *run, unsigned parts, trace *out, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT id, trace_name, source, origin, n_blocks FROM runs WHERE slug = ?1",
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

    if (load_device(d, id, &out->device, &out->has_device, err, errlen)) return -1;
    strmap m = {NULL, 0};
    rc = -1;
    if (load_rows(d, id, "SELECT key, value FROM run_meta WHERE run = ?1 ORDER BY seq", out,
                  NULL, row_meta, "run_meta", err, errlen) ||
        load_strings(d, id, out, &m, err, errlen))
        goto out;
    if ((parts & DB_LOAD_KERNELS) &&
        load_rows(d, id,
                  "SELECT name, raw_name, stream, process, priority, threads, issue, "
                  "first_block, fully_dispatched, stop, blocks, smem, regs, grid_x, grid_y, "
                  "grid_z, block_x, block_y, block_z FROM kernels WHERE run = ?1 ORDER BY id",
                  out, &m, row_kernel, "kernels", err, errlen))
        goto out;
    if (parts & DB_LOAD_BLOCKS) {
        if (nblocks > 0 && trace_reserve_blocks(out, (size_t)nblocks)) {
            seterr(err, errlen, "%s: blocks: out of memory loading the run", d->path);
            goto out;
        }
        if (load_rows(d, id,
                      "SELECT kernel, idx, sm, start, stop FROM blocks WHERE run = ?1 "
                      "ORDER BY seq",
                      out, &m, row_block, "blocks", err, errlen))
            goto out;
    }
    if ((parts & DB_LOAD_COPIES) &&
        load_rows(d, id,
                  "SELECT name, stream, process, direction, engine, bytes, issue, start, stop "
                  "FROM copies WHERE run = ?1 ORDER BY id",
                  out, &m, row_copy, "copies", err, errlen))
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
    if ((parts & DB_LOAD_JOBS) &&
        load_rows(d, id,
                  "SELECT task, job, release, start, stop, deadline FROM jobs WHERE run = ?1 "
                  "ORDER BY seq",
                  out, &m, row_job, "jobs", err, errlen))
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

/* ---- windows and bins ------------------------------------------------------------- */

const char *db_blocks_window_sql(void) {
    return "SELECT kernel, idx, sm, start, stop FROM blocks "
           "WHERE run = ?1 AND start >= ?2 AND start < ?3 AND stop > ?4 ORDER BY start, seq";
}

static int window_stmt(db *d, const char *run, const char *sql, int64_t from, int64_t to,
                       sqlite3_stmt **st, char *err, size_t errlen) {
    sqlite3_stmt *q;
    if (prepare(d, "SELECT id, max_block_dur FROM runs WHERE slug = ?1", &q, err, errlen))
        return -1;
    bind_s(q, 1, run);
    int rc = sqlite3_step(q);
    int64_t id = 0, maxdur = 0;
    if (rc == SQLITE_ROW) {
        id = sqlite3_column_int64(q, 0);
        maxdur = sqlite3_column_int64(q, 1);
    }
    sqlite3_finalize(q);
    if (rc == SQLITE_DONE) {
        seterr(err, errlen, "%s: no run named \"%s\"", d->path, run);
        return DB_NOT_FOUND;
    }
    if (rc != SQLITE_ROW) return sqlfail(d, "runs", err, errlen);
    if (prepare(d, sql, st, err, errlen)) return -1;
    /* A block overlapping [from, to) started at most max_block_dur before
     * `from`: that bound turns the overlap test into a range of the index. */
    int64_t lo = from < INT64_MIN + maxdur ? INT64_MIN : from - maxdur;
    sqlite3_bind_int64(*st, 1, id);
    sqlite3_bind_int64(*st, 2, lo);
    sqlite3_bind_int64(*st, 3, to);
    sqlite3_bind_int64(*st, 4, from);
    return 0;
}

int db_blocks_window(db *d, const char *run, int64_t from, int64_t to, db_block_cb cb,
                     void *ctx, char *err, size_t errlen) {
    sqlite3_stmt *st;
    int rc = window_stmt(d, run, db_blocks_window_sql(), from, to, &st, err, errlen);
    if (rc) return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        trace_block b = {
            .kernel = sqlite3_column_int(st, 0), .index = sqlite3_column_int(st, 1),
            .sm = sqlite3_column_int(st, 2), .start = sqlite3_column_int64(st, 3),
            .end = sqlite3_column_int64(st, 4),
        };
        int cr = cb(ctx, &b);
        if (cr) { sqlite3_finalize(st); return cr; }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sqlfail(d, "blocks", err, errlen);
}

int db_blocks_count(db *d, const char *run, int64_t from, int64_t to, int64_t *n, char *err,
                    size_t errlen) {
    sqlite3_stmt *st;
    int rc = window_stmt(d, run,
                         "SELECT count(*) FROM blocks "
                         "WHERE run = ?1 AND start >= ?2 AND start < ?3 AND stop > ?4",
                         from, to, &st, err, errlen);
    if (rc) return rc;
    rc = sqlite3_step(st);
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : sqlfail(d, "blocks", err, errlen);
}

int db_block_bins(db *d, const char *run, int64_t from, int64_t to, int64_t bin_ns,
                  size_t nbins, int32_t nsms, double *threads, double *blocks, char *err,
                  size_t errlen) {
    if (bin_ns <= 0 || nbins == 0 || to <= from || nsms <= 0) {
        seterr(err, errlen, "bins: need from < to, bin_ns > 0, nbins > 0 and sms > 0");
        return -1;
    }
    size_t cells = (size_t)nsms * nbins;
    memset(threads, 0, cells * sizeof *threads);
    memset(blocks, 0, cells * sizeof *blocks);

    /* threads per block of each kernel, by kernel id */
    int64_t id;
    int rc = lookup_id(d, "runs", run, &id, err, errlen);
    if (rc) return rc;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT id, threads FROM kernels WHERE run = ?1 ORDER BY id", &st, err,
                errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int32_t *kthreads = NULL;
    size_t nk = 0, capk = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t k = sqlite3_column_int64(st, 0);
        if (k < 0 || k > INT32_MAX) continue;
        if ((size_t)k >= capk) {
            size_t nc = capk ? capk : 64;
            while (nc <= (size_t)k) nc *= 2;
            int32_t *nv = realloc(kthreads, nc * sizeof *nv);
            if (!nv) { free(kthreads); sqlite3_finalize(st); seterr(err, errlen, "bins: out of memory"); return -1; }
            memset(nv + capk, 0, (nc - capk) * sizeof *nv);
            kthreads = nv;
            capk = nc;
        }
        kthreads[k] = sqlite3_column_int(st, 1);
        if ((size_t)k + 1 > nk) nk = (size_t)k + 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) { free(kthreads); return sqlfail(d, "kernels", err, errlen); }

    rc = window_stmt(d, run, db_blocks_window_sql(), from, to, &st, err, errlen);
    if (rc) { free(kthreads); return rc; }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int32_t k = sqlite3_column_int(st, 0), sm = sqlite3_column_int(st, 2);
        if (sm < 0 || sm >= nsms) continue;
        int64_t s = sqlite3_column_int64(st, 3), e = sqlite3_column_int64(st, 4);
        if (s < from) s = from;
        if (e > to) e = to;
        double thr = (k >= 0 && (size_t)k < nk) ? kthreads[k] : 0;
        size_t b0 = (size_t)((s - from) / bin_ns), b1 = (size_t)((e - 1 - from) / bin_ns);
        if (b1 >= nbins) b1 = nbins - 1;
        for (size_t b = b0; b <= b1; b++) {
            int64_t lo = from + (int64_t)b * bin_ns;
            int64_t hi = (b + 1 == nbins || to - lo < bin_ns) ? to : lo + bin_ns;
            int64_t ov = (e < hi ? e : hi) - (s > lo ? s : lo);
            if (ov <= 0) continue;
            double frac = (double)ov / (double)(hi - lo);
            threads[(size_t)sm * nbins + b] += frac * thr;
            blocks[(size_t)sm * nbins + b] += frac;
        }
    }
    sqlite3_finalize(st);
    free(kthreads);
    return rc == SQLITE_DONE ? 0 : sqlfail(d, "blocks", err, errlen);
}

/* ---- queues ------------------------------------------------------------------ */

/* Queue names and items are the run's strings, loaded into a scratch trace,
 * so a queue is a list of ids and a dequeue compares integers. */
typedef struct qstate {
    trace_str name;
    trace_str *items;
    size_t head, n, cap;   /* items[head..n) are in the queue */
    int64_t *t, *len;      /* series */
    size_t np, capp;
} qstate;

typedef struct qset {
    trace strs;
    qstate *q;
    size_t n, cap;
    bool oom;
} qset;

static void qset_free(qset *s) {
    for (size_t i = 0; i < s->n; i++) {
        free(s->q[i].items);
        free(s->q[i].t);
        free(s->q[i].len);
    }
    free(s->q);
    trace_free(&s->strs);
}

static qstate *qset_get(qset *s, trace_str name) {
    for (size_t i = 0; i < s->n; i++)
        if (s->q[i].name == name) return &s->q[i];
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        qstate *nq = realloc(s->q, nc * sizeof *nq);
        if (!nq) { s->oom = true; return NULL; }
        s->q = nq;
        s->cap = nc;
    }
    qstate *q = &s->q[s->n++];
    memset(q, 0, sizeof *q);
    q->name = name;
    return q;
}

/* Apply one event; a dequeue of an item not in the queue (a trace that
 * starts mid-way) is ignored. */
static void qstate_apply(qset *s, qstate *q, trace_str item, int event) {
    if (event == TRACE_ENQUEUE) {
        if (q->n == q->cap) {
            if (q->head > 0) {
                memmove(q->items, q->items + q->head, (q->n - q->head) * sizeof *q->items);
                q->n -= q->head;
                q->head = 0;
            }
            if (q->n == q->cap) {
                size_t nc = q->cap ? q->cap * 2 : 8;
                trace_str *ni = realloc(q->items, nc * sizeof *ni);
                if (!ni) { s->oom = true; return; }
                q->items = ni;
                q->cap = nc;
            }
        }
        q->items[q->n++] = item;
        return;
    }
    for (size_t i = q->head; i < q->n; i++) {
        if (q->items[i] != item) continue;
        if (i == q->head) q->head++;
        else {
            memmove(q->items + i, q->items + i + 1, (q->n - i - 1) * sizeof *q->items);
            q->n--;
        }
        return;
    }
}

static int queue_scan(db *d, const char *run, bool until, int64_t at, qset *s, bool series,
                      char *err, size_t errlen) {
    int64_t id;
    int rc = lookup_id(d, "runs", run, &id, err, errlen);
    if (rc) return rc;
    strmap m;
    if (load_strings(d, id, &s->strs, &m, err, errlen)) {
        free(m.v);
        return -1;
    }
    sqlite3_stmt *st;
    if (prepare(d,
                until ? "SELECT t, queue, item, event FROM queue_events WHERE run = ?1 AND "
                        "t <= ?2 ORDER BY t, seq"
                      : "SELECT t, queue, item, event FROM queue_events WHERE run = ?1 "
                        "ORDER BY t, seq",
                &st, err, errlen)) {
        free(m.v);
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    if (until) sqlite3_bind_int64(st, 2, at);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !s->oom) {
        int64_t t = sqlite3_column_int64(st, 0);
        trace_str qn = col_str(&m, st, 1), item = col_str(&m, st, 2);
        qstate *q = qset_get(s, qn);
        if (!q) { s->oom = true; break; }
        qstate_apply(s, q, item, sqlite3_column_int(st, 3));
        if (!series || s->oom) continue;
        int64_t len = (int64_t)(q->n - q->head);
        if (q->np && q->t[q->np - 1] == t) {
            q->len[q->np - 1] = len;
            continue;
        }
        if (q->np == q->capp) {
            size_t nc = q->capp ? q->capp * 2 : 16;
            int64_t *nt = realloc(q->t, nc * sizeof *nt);
            if (nt) q->t = nt;
            int64_t *nl = nt ? realloc(q->len, nc * sizeof *nl) : NULL;
            if (nl) q->len = nl;
            if (!nt || !nl) { s->oom = true; break; }
            q->capp = nc;
        }
        q->t[q->np] = t;
        q->len[q->np++] = len;
    }
    sqlite3_finalize(st);
    free(m.v);
    if (s->oom) {
        seterr(err, errlen, "%s: queue_events: out of memory", d->path);
        return -1;
    }
    return (rc == SQLITE_DONE || rc == SQLITE_ROW) ? 0 : sqlfail(d, "queue_events", err, errlen);
}

int db_queue_state(db *d, const char *run, int64_t at, db_queue_state_cb cb, void *ctx,
                   char *err, size_t errlen) {
    qset s;
    memset(&s, 0, sizeof s);
    trace_init(&s.strs);
    int rc = queue_scan(d, run, true, at, &s, false, err, errlen);
    const char **items = NULL;
    for (size_t i = 0; rc == 0 && i < s.n; i++) {
        qstate *q = &s.q[i];
        size_t n = q->n - q->head;
        const char **ni = n ? realloc(items, n * sizeof *ni) : items;
        if (n && !ni) { seterr(err, errlen, "queues: out of memory"); rc = -1; break; }
        items = ni;
        for (size_t j = 0; j < n; j++) items[j] = trace_str_get(&s.strs, q->items[q->head + j]);
        rc = cb(ctx, trace_str_get(&s.strs, q->name), items, n);
    }
    free(items);
    qset_free(&s);
    return rc;
}

int db_queue_series(db *d, const char *run, db_queue_series_cb cb, void *ctx, char *err,
                    size_t errlen) {
    qset s;
    memset(&s, 0, sizeof s);
    trace_init(&s.strs);
    int rc = queue_scan(d, run, false, 0, &s, true, err, errlen);
    for (size_t i = 0; rc == 0 && i < s.n; i++)
        rc = cb(ctx, trace_str_get(&s.strs, s.q[i].name), s.q[i].t, s.q[i].len, s.q[i].np);
    qset_free(&s);
    return rc;
}
