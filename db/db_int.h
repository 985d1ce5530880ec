/* db_int.h -- what the db/ files share and nothing outside db/ may include
 * (as SQLite's whereInt.h is to where.c, wherecode.c and whereexpr.c).
 *
 *   db.c        open, migrate, transactions, slugs, experiments' creation
 *   db_store.c  storing a run: devices row, bulk rows, the streaming writer
 *   db_load.c   loading a stored run back into a trace
 *   db_query.c  listings, block windows and bins, queue state and series
 *   bpage.c     the blocks' pages: writer, window merge, migration (bpage.h)
 *
 * The small helpers are static inline so every file keeps its short call
 * sites; the few larger shared functions carry the dbi_ prefix. */
#ifndef DB_DB_INT_H
#define DB_DB_INT_H

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "db.h"

/* The connection's cached read statements (struct db, dbi_cached). */
enum {
    DBI_Q_RUN,          /* a run's id, extent, sms, block count and pyramid levels */
    DBI_Q_WINDOW,       /* bpage_window_sql(): a window's candidate block pages */
    DBI_Q_HAS_PAUSES,   /* does the run have pauses at all */
    DBI_Q_TILES,        /* a range of pyramid tiles */
    DBI_Q_FRAGMENT,     /* a kernel's threads, for the blocks of pyramid edges */
    DBI_Q_KTILES,       /* a range of kernel tiles (kpyramid.sql) */
    DBI_Q_KLEVEL,       /* a kernel's stored level at or below a level */
    DBI_Q_SPAN,         /* a run's widest block page (bpage.c) */
    DBI_Q_PAGE_INSERT,  /* the block page INSERT (bpage_writer) */
    DBI_Q_COHORTS,      /* a window's cohorts (cohort_window.c) */
    DBI_NCACHED
};

/* The tables db_store_run fills from the trace's arrays (bulk_tables). */
#define DB_NBULK 12
/* The most tables the lazy builds copy for reads on one connection at once
 * (dbi_build_once: 15 in all) */
#define DBI_SCRATCH_MAX 16

struct db {
    sqlite3 *h;
    char *path;
    /* db_store_run's INSERTs, one row and many rows per table, prepared
     * once per connection. */
    sqlite3_stmt *bulk[DB_NBULK][2];
    /* The devices row's INSERT and SELECT, built from sim_device_fields and
     * prepared on first use (a run listing reads one device per run). */
    sqlite3_stmt *dev_insert, *dev_select;
    /* The window and pyramid reads (db_query.c, pyramid.c: DBI_Q_*), prepared
     * on first use and kept: preparing them cost more than running them. */
    sqlite3_stmt *cached[DBI_NCACHED];
    /* db_on_rows (db.h): who follows store_rows, and how far it is */
    db_rows_fn rows_fn;
    void *rows_user;
    long long rows_done, rows_total;
    long long wait_since_ms;     /* busy_wait: when this wait for a lock began */
    bool no_wait;                /* busy_wait gives up at once (a lazy build) */
    /* tables a lazy build copied into TEMP for one read (dbi_build_once),
     * static names, dropped by db_drop_scratch */
    const char *scratch[DBI_SCRATCH_MAX];
    size_t nscratch;
};

static inline void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void seterr(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* SQLite's message, with the system's cause when it has one (issue 31:
 * a full disk read only "disk I/O error") */
static inline void dbi_errmsg(db *d, char *buf, size_t n) {
    int x = sqlite3_extended_errcode(d->h), e = sqlite3_system_errno(d->h);
    int prim = x & 0xff;
    if ((prim == SQLITE_IOERR || prim == SQLITE_CANTOPEN || prim == SQLITE_FULL) && e)
        snprintf(buf, n, "%s (%s%s)", sqlite3_errmsg(d->h), strerror(e),
                 e == ENOSPC ? ": the disk is full" : "");
    else
        snprintf(buf, n, "%s", sqlite3_errmsg(d->h));
}

static inline int sqlfail(db *d, const char *what, char *err, size_t errlen) {
    char m[300];
    dbi_errmsg(d, m, sizeof m);
    seterr(err, errlen, "%s: %s: %s", d->path, what, m);
    return -1;
}

static inline int exec(db *d, const char *sql, char *err, size_t errlen) {
    char *msg = NULL;
    if (sqlite3_exec(d->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        char m[300];
        dbi_errmsg(d, m, sizeof m);
        seterr(err, errlen, "%s: %s", d->path, m);
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static inline int prepare(db *d, const char *sql, sqlite3_stmt **st, char *err, size_t errlen) {
    if (sqlite3_prepare_v3(d->h, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return sqlfail(d, "preparing a query", err, errlen);
    }
    return 0;
}

/* The cached statement `which`, prepared from `sql` on first use. The caller
 * must sqlite3_reset it when done: a statement left mid-scan holds the
 * connection's read snapshot open. */
static inline int dbi_cached(db *d, int which, const char *sql, sqlite3_stmt **st, char *err,
                             size_t errlen) {
    if (!d->cached[which] && prepare(d, sql, &d->cached[which], err, errlen)) return -1;
    *st = d->cached[which];
    return 0;
}

/* TRACE_NONE and NULL strings are SQL NULL. */
static inline void bind_t(sqlite3_stmt *st, int i, int64_t v) {
    if (v == TRACE_NONE) sqlite3_bind_null(st, i);
    else sqlite3_bind_int64(st, i, v);
}

static inline void bind_s(sqlite3_stmt *st, int i, const char *s) {
    if (s) sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, i);
}

static inline int64_t col_t(sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? TRACE_NONE : sqlite3_column_int64(st, i);
}

static inline const char *col_s(sqlite3_stmt *st, int i) {
    return (const char *)sqlite3_column_text(st, i);
}

/* ---- db.c ------------------------------------------------------------------ */

/* Run an INSERT whose ?1 is a fresh slug; a slug collision (1 in 36^10 per
 * pair) just draws again. */
int dbi_insert_with_slug(db *d, sqlite3_stmt *st, char slug[DB_SLUG_SIZE], const char *what,
                         char *err, size_t errlen);
/* The row id of the experiment or run (`table` "experiments" or "runs")
 * named `slug`; DB_NOT_FOUND with a message naming it when none is. */
int dbi_lookup_id(db *d, const char *table, const char *slug, int64_t *id, char *err,
                  size_t errlen);
/* A derived table's row for a run (the pyramids, the sort orders), built
 * on the first read: look(ctx) reads it (*has = whether there is one); when
 * missing, build(ctx) writes it -- into `tables` (NULL-terminated, at most
 * DBI_SCRATCH_MAX in all builds: every table build writes) -- under the write lock:
 * the build gate's (db_set_build_gate) and SQLite's, taken without waiting
 * (BEGIN IMMEDIATE outside a transaction, else SAVEPOINT `sp`: a deferred
 * one could not upgrade after another writer's commit), after looking
 * again (another request may have built it meanwhile); then look once
 * more. When either lock is held elsewhere (or the connection cannot
 * write), build writes into TEMP copies of `tables` made for this read
 * alone, which hide the stored ones on this connection until
 * db_drop_scratch or the next dbi_build_once of those tables: the same
 * rows, stored by a later read. */
typedef int (*dbi_look_fn)(db *d, void *ctx, bool *has, char *err, size_t errlen);
typedef int (*dbi_build_fn)(db *d, void *ctx, char *err, size_t errlen);
int dbi_build_once(db *d, const char *sp, const char *const *tables, dbi_look_fn look,
                   dbi_build_fn build, void *ctx, char *err, size_t errlen);

/* ---- db_load.c ------------------------------------------------------------- */

/* A run's strings interned into a trace: v[id] is the trace_str of stored
 * id (0 where none). */
typedef struct strmap {
    trace_str *v;
    size_t n;
} strmap;

/* Interns every string of `run` into t; the caller frees m->v, also after
 * a failure. */
int dbi_load_strings(db *d, int64_t run, trace *t, strmap *m, char *err, size_t errlen);

/* A strings.id column (NULL: no string). */
static inline trace_str col_str(const strmap *m, sqlite3_stmt *st, int i) {
    int64_t id = sqlite3_column_int64(st, i);
    return id > 0 && (uint64_t)id < m->n ? m->v[id] : 0;
}

/* A column name of a field list (simcore/trace_fields.h), and the lists'
 * separator for column lists */
#define DBI_COL_NAME(col, ...) #col
#define DBI_COL_SEP ", "
/* The kernels columns dbi_row_kernel reads (from column 0), as db_load_run:
 * "name, raw_name, ..., qos_met", from the field list */
#define DBI_KERNEL_COLS TRACE_KERNEL_FIELDS(DBI_COL_NAME, DBI_COL_SEP)
#define DBI_KERNEL_NCOLS (0 TRACE_KERNEL_FIELDS(TF_ONE, TF_NOSEP))
/* One kernels row into t (false: out of memory). */
bool dbi_row_kernel(trace *t, const strmap *m, sqlite3_stmt *st);
/* The copies columns dbi_row_copy reads (from column 0), as db_load_run */
#define DBI_COPY_COLS TRACE_COPY_FIELDS(DBI_COL_NAME, DBI_COL_SEP)
#define DBI_COPY_NCOLS (0 TRACE_COPY_FIELDS(TF_ONE, TF_NOSEP))
/* One copies row into t (false: out of memory). */
bool dbi_row_copy(trace *t, const strmap *m, sqlite3_stmt *st);
/* The cohorts columns dbi_cohort_at reads, as db_load_run and
 * cohort_window.c select them (issue 28) */
#define DBI_COHORT_COLS "kernel, sm, first, stride, count, per_wave, start, stop, period"
/* The cohort of st's columns col .. col + 8 (DBI_COHORT_COLS) into *c. */
void dbi_cohort_at(sqlite3_stmt *st, int col, trace_cohort *c);

/* A field's value bound to parameter i of s (t: whose strings), and read
 * from column i of st (m: the run's strings), by the field's kind
 * (trace_fields.h): DBI_BIND(kind, s, i, t, v), v = DBI_COL(kind, st, i, m). */
#define DBI_BIND(kind, s, i, t, v) DBI_BIND_##kind(s, i, t, v)
#define DBI_BIND_TF_STR(s, i, t, v) bind_id(s, i, t, v)
#define DBI_BIND_TF_PRIO(s, i, t, v) \
    ((v) == TRACE_PRIO_NONE ? sqlite3_bind_null(s, i) : sqlite3_bind_int(s, i, v))
#define DBI_BIND_TF_I32(s, i, t, v) sqlite3_bind_int(s, i, v)
#define DBI_BIND_TF_I64(s, i, t, v) sqlite3_bind_int64(s, i, v)
#define DBI_BIND_TF_TIME(s, i, t, v) bind_t(s, i, v)
#define DBI_BIND_TF_F64(s, i, t, v) sqlite3_bind_double(s, i, isfinite(v) ? (v) : 0)
#define DBI_BIND_TF_BOOL(s, i, t, v) sqlite3_bind_int(s, i, (v) ? 1 : 0)
#define DBI_COL(kind, st, i, m) DBI_COL_##kind(st, i, m)
#define DBI_COL_TF_STR(st, i, m) col_str(m, st, i)
#define DBI_COL_TF_PRIO(st, i, m) \
    (sqlite3_column_type(st, i) == SQLITE_NULL ? TRACE_PRIO_NONE : sqlite3_column_int(st, i))
#define DBI_COL_TF_I32(st, i, m) sqlite3_column_int(st, i)
#define DBI_COL_TF_I64(st, i, m) sqlite3_column_int64(st, i)
#define DBI_COL_TF_TIME(st, i, m) col_t(st, i)
#define DBI_COL_TF_F64(st, i, m) sqlite3_column_double(st, i)
#define DBI_COL_TF_BOOL(st, i, m) (sqlite3_column_int(st, i) != 0)

/* Fills dev from the devices row of `run`; *has = false when there is none. */
int dbi_load_device(db *d, int64_t run, sim_device *dev, bool *has, char *err, size_t errlen);
/* A trace of several GPUs' devices (db/gpus.sql), appended to t->devices
 * in their order; none for a run of one. */
int dbi_load_gpus(db *d, int64_t run, trace *t, char *err, size_t errlen);

#endif
