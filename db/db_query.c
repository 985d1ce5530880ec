/* db_query.c -- what the API reads without loading a whole run: listings of
 * experiments and runs, blocks in a time window, per-SM occupancy bins, and
 * the queues at a time or over time. See db.h for the contract. */
#include "db_int.h"

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

/* ---- runs --------------------------------------------------------------------- */

#define RUN_COLS                                                                          \
    "r.id, r.slug, e.slug, r.name, r.source, r.created, r.trace_name, r.origin, "         \
    "r.n_kernels, r.n_blocks, r.n_copies, r.n_queue_events, r.n_warp_issues, r.n_jobs, " \
    "r.t_min, r.t_max, r.sms, r.max_block_dur, r.n_qos, r.n_qos_met, r.nonqos_throughput"
#define RUN_FROM " FROM runs r JOIN experiments e ON e.id = r.experiment "

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
        r.summary.qos_kernels = sqlite3_column_int64(st, 18);
        r.summary.qos_met = sqlite3_column_int64(st, 19);
        r.summary.nonqos_throughput = sqlite3_column_type(st, 20) == SQLITE_NULL
                                    ? NAN : sqlite3_column_double(st, 20);
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

int db_count_runs(db *d, int64_t *n, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT count(*) FROM runs", &st, err, errlen)) return -1;
    int rc = sqlite3_step(st);
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : sqlfail(d, "runs", err, errlen);
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

int db_pauses_window(db *d, const char *run, int64_t from, int64_t to, db_pause_cb cb, void *ctx,
                     char *err, size_t errlen) {
    sqlite3_stmt *st;
    int rc = window_stmt(d, run,
                         "SELECT b.kernel, b.idx, p.start, p.stop FROM blocks b "
                         "JOIN pauses p ON p.run = b.run AND p.block = b.seq "
                         "WHERE b.run = ?1 AND b.start >= ?2 AND b.start < ?3 AND b.stop > ?4 "
                         "ORDER BY p.seq",
                         from, to, &st, err, errlen);
    if (rc) return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int cr = cb(ctx, sqlite3_column_int(st, 0), sqlite3_column_int(st, 1),
                    sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3));
        if (cr) { sqlite3_finalize(st); return cr; }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sqlfail(d, "pauses", err, errlen);
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
    int rc = dbi_lookup_id(d, "runs", run, &id, err, errlen);
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
