/* cohort_window.c -- a stored run's cohorts read by time window or whole
 * (issue 28). See cohort_window.h; the index and the span are
 * db/cohort_view.sql's. */
#include "cohort_window.h"

#include "db_int.h"

#define COHORT_COLS "seq, " DBI_COHORT_COLS

static void row(sqlite3_stmt *st, trace_cohort *c, int64_t *seq) {
    *seq = sqlite3_column_int64(st, 0);
    dbi_cohort_at(st, 1, c);
}

/* Step st to its end, each row to cb (those with a wave in [from, to)
 * when `window`). */
static int each(db *d, sqlite3_stmt *st, bool window, int64_t from, int64_t to, cw_cb cb,
                void *ctx, char *err, size_t errlen) {
    int rc, stop = 0;
    while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        trace_cohort c;
        int64_t seq, w0, w1;
        row(st, &c, &seq);
        if (c.count < 1) continue;   /* the table's CHECK: never */
        if (window) {
            cw_overlap(&c, from, to, &w0, &w1);
            if (w0 >= w1) continue;
        }
        stop = cb(ctx, &c, seq);
    }
    if (stop) return stop;
    return rc == SQLITE_DONE ? 0 : sqlfail(d, "cohorts", err, errlen);
}

int db_window_cohorts(db *d, const pyr_run *r, int64_t from, int64_t to, cw_cb cb, void *ctx,
                      char *err, size_t errlen) {
    if (r->cspan < 0 || to <= from) return 0;
    sqlite3_stmt *st;
    if (dbi_cached(d, DBI_Q_COHORTS,
                   "SELECT " COHORT_COLS " FROM cohorts WHERE run = ?1 AND start >= ?2 AND "
                   "start < ?3 ORDER BY start, seq",
                   &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, r->id);
    /* a cohort reaches at most span past its start */
    sqlite3_bind_int64(st, 2, from < INT64_MIN + r->cspan ? INT64_MIN : from - r->cspan);
    sqlite3_bind_int64(st, 3, to);
    int rc = each(d, st, true, from, to, cb, ctx, err, errlen);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

int db_scan_cohorts(db *d, int64_t run, cw_cb cb, void *ctx, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT " COHORT_COLS " FROM cohorts WHERE run = ?1 ORDER BY seq", &st, err,
                errlen))
        return -1;
    sqlite3_bind_int64(st, 1, run);
    int rc = each(d, st, false, 0, 0, cb, ctx, err, errlen);
    sqlite3_finalize(st);
    return rc;
}

int cw_cursor_open(db *d, int64_t run, cw_cursor *cur, char *err, size_t errlen) {
    cur->d = d;
    cur->st = NULL;
    if (prepare(d, "SELECT " COHORT_COLS " FROM cohorts WHERE run = ?1 ORDER BY start, seq",
                &cur->st, err, errlen))
        return -1;
    sqlite3_bind_int64(cur->st, 1, run);
    return 0;
}

int cw_cursor_next(cw_cursor *cur, trace_cohort *c, int64_t *seq, char *err, size_t errlen) {
    int rc = sqlite3_step(cur->st);
    if (rc == SQLITE_ROW) {
        row(cur->st, c, seq);
        return 1;
    }
    return rc == SQLITE_DONE ? 0 : sqlfail(cur->d, "cohorts", err, errlen);
}

void cw_cursor_close(cw_cursor *cur) {
    sqlite3_finalize(cur->st);
    cur->st = NULL;
}
