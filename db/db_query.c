/* db_query.c -- what the API reads without loading a whole run: listings of
 * experiments and runs, blocks in a time window, per-SM occupancy bins, and
 * the queues at a time or over time. See db.h for the contract. */
#include "db_int.h"
#include "row_ranges.h"
#include "bpage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../simcore/queue_state.h"

/* ---- experiments ------------------------------------------------------------ */

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
    int rc = experiment_rows(d, st, cb, ctx, true, err, errlen);
    if (rc == DB_NOT_FOUND) seterr(err, errlen, "%s: no experiment named \"%s\"", d->path, slug);
    return rc;
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

/* ---- runs --------------------------------------------------------------------- */

#define RUN_COLS                                                                          \
    "r.id, r.slug, e.slug, r.name, r.source, r.created, r.trace_name, r.origin, "         \
    "r.n_kernels, r.n_blocks, r.n_copies, r.n_queue_events, r.n_warp_issues, r.n_jobs, " \
    "r.t_min, r.t_max, r.sms, r.max_block_dur, r.n_qos, r.n_qos_met, r.nonqos_throughput, " \
    "r.version, (SELECT count(*) FROM host_calls h WHERE h.run = r.id)"
#define RUN_FROM " FROM runs r JOIN experiments e ON e.id = r.experiment "

static int run_rows(db *d, sqlite3_stmt *st, db_run_cb cb, void *ctx, bool one, char *err,
                    size_t errlen) {
    int rc, seen = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        db_run r = {
            .slug = col_s(st, 1), .experiment = col_s(st, 2), .name = col_s(st, 3),
            .source = col_s(st, 4), .created = col_s(st, 5), .trace_name = col_s(st, 6),
            .origin = sqlite3_column_int64(st, 7), .version = sqlite3_column_int64(st, 21),
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
        r.summary.qos_kernels = sqlite3_column_int64(st, 18);
        r.summary.qos_met = sqlite3_column_int64(st, 19);
        r.summary.nonqos_throughput = sqlite3_column_type(st, 20) == SQLITE_NULL
                                    ? NAN : sqlite3_column_double(st, 20);
        r.summary.host_calls = sqlite3_column_int64(st, 22);
        if (dbi_load_device(d, sqlite3_column_int64(st, 0), &r.device, &r.has_device, err,
                            errlen)) {
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
    int rc = dbi_lookup_id(d, "runs", run, &id, err, errlen);
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

int db_run_gpus(db *d, const char *run, trace *t, char *err, size_t errlen) {
    int64_t id;
    int rc = dbi_lookup_id(d, "runs", run, &id, err, errlen);
    return rc ? rc : dbi_load_gpus(d, id, t, err, errlen);
}

int db_count_runs(db *d, int64_t *n, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT count(*) FROM runs", &st, err, errlen)) return -1;
    int rc = sqlite3_step(st);
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : sqlfail(d, "runs", err, errlen);
}

/* ---- windows and bins ------------------------------------------------------------- */

const char *db_blocks_window_sql(void) { return bpage_window_sql(); }

/* The run's id and the window's lowest start: a block overlapping
 * [from, to) started at most max_block_dur before `from`, and that bound
 * turns the overlap test into a range of page starts (bpage_window). */
static int window_run(db *d, const char *run, int64_t from, int64_t *id, int64_t *lo, char *err,
                      size_t errlen) {
    sqlite3_stmt *q;
    if (prepare(d, "SELECT id, max_block_dur FROM runs WHERE slug = ?1", &q, err, errlen))
        return -1;
    bind_s(q, 1, run);
    int rc = sqlite3_step(q);
    int64_t maxdur = 0;
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(q, 0);
        maxdur = sqlite3_column_int64(q, 1);
    }
    sqlite3_finalize(q);
    if (rc == SQLITE_DONE) {
        seterr(err, errlen, "%s: no run named \"%s\"", d->path, run);
        return DB_NOT_FOUND;
    }
    if (rc != SQLITE_ROW) return sqlfail(d, "runs", err, errlen);
    *lo = from < INT64_MIN + maxdur ? INT64_MIN : from - maxdur;
    return 0;
}

typedef struct window_cb {
    db_block_cb cb;
    void *ctx;
} window_cb;

static int pass_block(void *ctx, const trace_block *b, int64_t seq) {
    (void)seq;
    window_cb *w = ctx;
    return w->cb(w->ctx, b);
}

int db_blocks_window(db *d, const char *run, int64_t from, int64_t to, db_block_cb cb,
                     void *ctx, char *err, size_t errlen) {
    int64_t id, lo;
    int rc = window_run(d, run, from, &id, &lo, err, errlen);
    if (rc) return rc;
    window_cb w = {cb, ctx};
    return bpage_window(d, id, lo, to, from, true, -1, pass_block, &w, err, errlen);
}

/* The window's blocks by seq, for the pauses join. */
typedef struct seqblock {
    int64_t seq;
    int32_t kernel, index;
} seqblock;

typedef struct seqset {
    seqblock *v;
    size_t n, cap;
    bool oom;
} seqset;

static int add_seq(void *ctx, const trace_block *b, int64_t seq) {
    seqset *s = ctx;
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 1024;
        seqblock *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) {
            s->oom = true;
            return -1;
        }
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = (seqblock){seq, b->kernel, b->index};
    return 0;
}

static int cmp_seqblock(const void *a, const void *b) {
    const seqblock *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* A pause of a window's block, as the answer orders them (by p.seq). */
typedef struct wpause {
    int64_t seq, start, stop;
    int32_t kernel, index;
} wpause;

static int cmp_wpause(const void *a, const void *b) {
    const wpause *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

int db_pauses_window(db *d, const char *run, int64_t from, int64_t to, db_pause_cb cb, void *ctx,
                     char *err, size_t errlen) {
    int64_t id, lo;
    int rc = window_run(d, run, from, &id, &lo, err, errlen);
    if (rc) return rc;
    /* the window's blocks, then the pauses whose block is one of them: a
     * range of pauses_run_block over the blocks' seqs, each pause kept when
     * its block is in the set */
    seqset s = {0};
    rc = bpage_window(d, id, lo, to, from, false, -1, add_seq, &s, err, errlen);
    if (s.oom) seterr(err, errlen, "%s: pauses: out of memory", d->path);
    if (rc || s.oom || s.n == 0) {
        free(s.v);
        return s.oom ? -1 : rc;
    }
    qsort(s.v, s.n, sizeof *s.v, cmp_seqblock);
    sqlite3_stmt *st;
    if (prepare(d,
                "SELECT seq, block, start, stop FROM pauses WHERE run = ?1 AND block >= ?2 AND "
                "block <= ?3",
                &st, err, errlen)) {
        free(s.v);
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, s.v[0].seq);
    sqlite3_bind_int64(st, 3, s.v[s.n - 1].seq);
    wpause *p = NULL;
    size_t np = 0, cap = 0;
    int cr = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        seqblock key = {.seq = sqlite3_column_int64(st, 1)};
        const seqblock *b = bsearch(&key, s.v, s.n, sizeof *s.v, cmp_seqblock);
        if (!b) continue;
        if (np == cap) {
            size_t nc = cap ? 2 * cap : 256;
            wpause *nv = realloc(p, nc * sizeof *nv);
            if (!nv) {
                seterr(err, errlen, "%s: pauses: out of memory", d->path);
                cr = -1;
                break;
            }
            p = nv;
            cap = nc;
        }
        p[np++] = (wpause){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2),
                           sqlite3_column_int64(st, 3), b->kernel, b->index};
    }
    sqlite3_finalize(st);
    free(s.v);
    if (!cr && rc != SQLITE_DONE) cr = sqlfail(d, "pauses", err, errlen);
    if (!cr && np) {
        qsort(p, np, sizeof *p, cmp_wpause);
        for (size_t i = 0; i < np && !cr; i++)
            cr = cb(ctx, p[i].kernel, p[i].index, p[i].start, p[i].stop);
    }
    free(p);
    return cr;
}

static int count_block(void *ctx, const trace_block *b, int64_t seq) {
    (void)b, (void)seq;
    ++*(int64_t *)ctx;
    return 0;
}

int db_blocks_count(db *d, const char *run, int64_t from, int64_t to, int64_t *n, char *err,
                    size_t errlen) {
    int64_t id = 0, lo = 0;
    *n = 0;
    int rc = window_run(d, run, from, &id, &lo, err, errlen);
    if (rc) return rc;
    return bpage_window(d, id, lo, to, from, false, -1, count_block, n, err, errlen);
}

/* db_block_bins' sums, block by block in window order (the doubles add up
 * in the order they always did) */
typedef struct bins_acc {
    int64_t from, to, bin_ns;
    size_t nbins, nk;
    int32_t nsms;
    const int32_t *kthreads;
    double *threads, *blocks;
} bins_acc;

static int bin_block(void *ctx, const trace_block *blk, int64_t seq) {
    (void)seq;
    const bins_acc *a = ctx;
    int32_t k = blk->kernel, sm = blk->sm;
    if (sm < 0 || sm >= a->nsms) return 0;
    int64_t s = blk->start, e = blk->end, from = a->from, to = a->to, bin_ns = a->bin_ns;
    size_t nbins = a->nbins;
    if (s < from) s = from;
    if (e > to) e = to;
    double thr = (k >= 0 && (size_t)k < a->nk) ? a->kthreads[k] : 0;
    size_t b0 = (size_t)((s - from) / bin_ns), b1 = (size_t)((e - 1 - from) / bin_ns);
    if (b1 >= nbins) b1 = nbins - 1;
    for (size_t b = b0; b <= b1; b++) {
        int64_t lo = from + (int64_t)b * bin_ns;
        int64_t hi = to - lo < bin_ns ? to : lo + bin_ns;   /* db.h: min(to, lo + bin_ns) */
        int64_t ov = (e < hi ? e : hi) - (s > lo ? s : lo);
        if (ov <= 0) continue;
        double frac = (double)ov / (double)(hi - lo);
        a->threads[(size_t)sm * nbins + b] += frac * thr;
        a->blocks[(size_t)sm * nbins + b] += frac;
    }
    return 0;
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
    int rc = dbi_lookup_id(d, "runs", run, &id, err, errlen);
    if (rc) return rc;
    sqlite3_stmt *st;
    if (prepare(d,
                "SELECT " DBI_KERNEL_ID ", threads FROM kernels WHERE " DBI_KERNELS_OF_RUN
                " ORDER BY rowid",
                &st, err, errlen))
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

    int64_t lo;
    rc = window_run(d, run, from, &id, &lo, err, errlen);
    if (rc) { free(kthreads); return rc; }
    bins_acc a = {from, to, bin_ns, nbins, nk, nsms, kthreads, threads, blocks};
    rc = bpage_window(d, id, lo, to, from, true, -1, bin_block, &a, err, errlen);
    free(kthreads);
    return rc;
}

/* ---- queues ------------------------------------------------------------------ */

/* Replays the run's queue events (those at or before `at` when `until`) into
 * s, streamed from SQLite in time order (ORDER BY t, seq: the order
 * sim_qstate_apply wants). Queue names and items are the run's strings,
 * interned into the scratch trace `strs`, so a queue is a list of ids and a
 * dequeue compares integers. */
static int queue_scan(db *d, const char *run, bool until, int64_t at, trace *strs, sim_qstate *s,
                      char *err, size_t errlen) {
    int64_t id;
    int rc = dbi_lookup_id(d, "runs", run, &id, err, errlen);
    if (rc) return rc;
    strmap m;
    if (dbi_load_strings(d, id, strs, &m, err, errlen)) {
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
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (sim_qstate_apply(s, sqlite3_column_int64(st, 0), col_str(&m, st, 1),
                             col_str(&m, st, 2), sqlite3_column_int(st, 3)))
            break;
    sqlite3_finalize(st);
    free(m.v);
    if (s->oom) {
        seterr(err, errlen, "%s: queue_events: out of memory", d->path);
        return -1;
    }
    return rc == SQLITE_DONE ? 0 : sqlfail(d, "queue_events", err, errlen);
}

int db_queue_state(db *d, const char *run, int64_t at, db_queue_state_cb cb, void *ctx,
                   char *err, size_t errlen) {
    trace strs;
    trace_init(&strs);
    sim_qstate s;
    sim_qstate_init(&s, false);
    int rc = queue_scan(d, run, true, at, &strs, &s, err, errlen);
    const char **items = NULL;
    for (size_t i = 0; rc == 0 && i < s.n; i++) {
        const sim_qstate_queue *q = &s.q[i];
        size_t n = sim_qstate_len(q);
        const char **ni = n ? realloc(items, n * sizeof *ni) : items;
        if (n && !ni) { seterr(err, errlen, "queues: out of memory"); rc = -1; break; }
        items = ni;
        for (size_t j = 0; j < n; j++) items[j] = trace_str_get(&strs, sim_qstate_items(q)[j]);
        rc = cb(ctx, trace_str_get(&strs, q->name), items, n);
    }
    free(items);
    sim_qstate_free(&s);
    trace_free(&strs);
    return rc;
}

int db_queue_series(db *d, const char *run, db_queue_series_cb cb, void *ctx, char *err,
                    size_t errlen) {
    trace strs;
    trace_init(&strs);
    sim_qstate s;
    sim_qstate_init(&s, true);
    int rc = queue_scan(d, run, false, 0, &strs, &s, err, errlen);
    for (size_t i = 0; rc == 0 && i < s.n; i++)
        rc = cb(ctx, trace_str_get(&strs, s.q[i].name), s.q[i].t, s.q[i].len, s.q[i].np);
    sim_qstate_free(&s);
    trace_free(&strs);
    return rc;
}
