/* bpage.c -- a run's blocks in pages (bpage.h, db/block_pages.sql): the
 * page writer, the three reads (all in seq order, a window, whole pages
 * for the export) and the migration of the old row-per-block table. */
#include "db_int.h"
#include "bpage.h"

#include <stdlib.h>
#include <string.h>

/* ---- writing ---------------------------------------------------------------- */

void bpage_writer_init(bpage_writer *w, db *d, int64_t run) {
    w->d = d;
    w->run = run;
    w->seq = 0;
    w->n = 0;
    w->span = 0;
}

/* Writes the buffered blocks as page (seq - n) / BPAGE_BLOCKS. */
static int flush(bpage_writer *w, char *err, size_t errlen) {
    if (!w->n) return 0;
    db *d = w->d;
    int64_t first = w->seq - (int64_t)w->n;
    int64_t s_lo = 0, s_hi = 0, e_hi = 0;
    bool any = false;
    for (size_t i = 0; i < w->n; i++) {
        const trace_block *b = &w->buf[i];
        if (b->start == TRACE_NONE || b->end == TRACE_NONE) continue;
        if (!any || b->start < s_lo) s_lo = b->start;
        if (!any || b->start > s_hi) s_hi = b->start;
        if (!any || b->end > e_hi) e_hi = b->end;
        any = true;
    }
    size_t len = bpage_encode(w->buf, w->n, w->enc);
    sqlite3_stmt *st;
    if (dbi_cached(d, DBI_Q_PAGE_INSERT,
                   "INSERT INTO block_pages(run, page, n, s_lo, s_hi, e_hi, cells) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                   &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, w->run);
    sqlite3_bind_int64(st, 2, first / BPAGE_BLOCKS);
    sqlite3_bind_int64(st, 3, (int64_t)w->n);
    if (any) {
        sqlite3_bind_int64(st, 4, s_lo);
        sqlite3_bind_int64(st, 5, s_hi);
        sqlite3_bind_int64(st, 6, e_hi);
    } else {
        for (int i = 4; i <= 6; i++) sqlite3_bind_null(st, i);
    }
    sqlite3_bind_blob(st, 7, w->enc, (int)len, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_bind_null(st, 7);   /* leave no pointer into the writer behind */
    if (rc != SQLITE_DONE) {
        seterr(err, errlen, "%s: blocks[%lld..%lld]: the database refused the rows: %s", d->path,
               (long long)first, (long long)(w->seq - 1), sqlite3_errmsg(d->h));
        return -1;
    }
    /* s_hi - s_lo can overflow only for times INT64_MAX apart: saturate */
    if (any) {
        int64_t span = s_lo < 0 && s_hi > INT64_MAX + s_lo ? INT64_MAX : s_hi - s_lo;
        if (span > w->span) w->span = span;
    }
    w->n = 0;
    return 0;
}

int bpage_add(bpage_writer *w, const trace_block *b, size_t n, char *err, size_t errlen) {
    for (size_t i = 0; i < n;) {
        /* as much as the page has room for, copied at once */
        size_t m = BPAGE_BLOCKS - w->n < n - i ? BPAGE_BLOCKS - w->n : n - i;
        for (size_t j = i; j < i + m; j++)
            if (b[j].start != TRACE_NONE && b[j].end != TRACE_NONE && b[j].end < b[j].start) {
                seterr(err, errlen,
                       "%s: blocks[%lld]: the database refused the row: CHECK constraint failed: "
                       "stop >= start (it ends at %lld, before its start %lld)",
                       w->d->path, (long long)(w->seq + (int64_t)(j - i)), (long long)b[j].end,
                       (long long)b[j].start);
                return -1;
            }
        memcpy(w->buf + w->n, b + i, m * sizeof *b);
        w->n += m;
        w->seq += (int64_t)m;
        i += m;
        if (w->n == BPAGE_BLOCKS && flush(w, err, errlen)) return -1;
    }
    return 0;
}

int bpage_finish(bpage_writer *w, char *err, size_t errlen) {
    if (flush(w, err, errlen)) return -1;
    sqlite3_stmt *st;
    if (prepare(w->d, "INSERT INTO block_spans(run, span) VALUES (?1, ?2)", &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, w->run);
    sqlite3_bind_int64(st, 2, w->span);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sqlfail(w->d, "block_spans", err, errlen);
}

/* ---- reading ------------------------------------------------------------------ */

/* The n blocks of a page row's cells column (column `col`), into out. */
static int decode_col(db *d, sqlite3_stmt *st, int col, int64_t run, int64_t page, int64_t n,
                      trace_block *out, char *err, size_t errlen) {
    const uint8_t *p = sqlite3_column_blob(st, col);
    int len = sqlite3_column_bytes(st, col);
    if (n < 1 || n > BPAGE_BLOCKS || bpage_decode(p, (size_t)len, (size_t)n, out)) {
        seterr(err, errlen, "%s: run %lld: block page %lld is damaged (%lld blocks in %d bytes)",
               d->path, (long long)run, (long long)page, (long long)n, len);
        return -1;
    }
    return 0;
}

int bpage_scan(db *d, int64_t run, bpage_cb cb, void *ctx, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT page, n, cells FROM block_pages WHERE run = ?1 ORDER BY page", &st,
                err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, run);
    trace_block *v = malloc(BPAGE_BLOCKS * sizeof *v);
    if (!v) {
        sqlite3_finalize(st);
        seterr(err, errlen, "%s: blocks: out of memory", d->path);
        return -1;
    }
    int rc, cr = 0;
    while (!cr && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t page = sqlite3_column_int64(st, 0), n = sqlite3_column_int64(st, 1);
        if (decode_col(d, st, 2, run, page, n, v, err, errlen)) {
            cr = -1;
            break;
        }
        for (int64_t i = 0; i < n && !cr; i++) cr = cb(ctx, &v[i], page * BPAGE_BLOCKS + i);
    }
    sqlite3_finalize(st);
    free(v);
    if (cr) return cr;
    return rc == SQLITE_DONE ? 0 : sqlfail(d, "blocks", err, errlen);
}

int db_read_blocks(db *d, const char *run, int64_t seq, trace_block *out, size_t max,
                   size_t *n, char *err, size_t errlen) {
    *n = 0;
    if (seq < 0 || seq % BPAGE_BLOCKS || max < BPAGE_BLOCKS) {
        seterr(err, errlen, "%s: blocks: a read must start at a page and take one at least",
               d->path);
        return -1;
    }
    sqlite3_stmt *st;
    if (prepare(d,
                "SELECT p.page, p.n, p.cells FROM runs r JOIN block_pages p ON p.run = r.id "
                "WHERE r.slug = ?1 AND p.page >= ?2 ORDER BY p.page LIMIT ?3",
                &st, err, errlen))
        return -1;
    sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, seq / BPAGE_BLOCKS);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)(max / BPAGE_BLOCKS));
    int rc;
    int64_t want = seq / BPAGE_BLOCKS;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t page = sqlite3_column_int64(st, 0), pn = sqlite3_column_int64(st, 1);
        /* pages are numbered without gaps: a gap means the run changed under the reader */
        if (page != want || (*n && *n % BPAGE_BLOCKS)) {
            sqlite3_finalize(st);
            seterr(err, errlen, "%s: run \"%s\": block page %lld missing", d->path, run,
                   (long long)want);
            return -1;
        }
        if (decode_col(d, st, 2, -1, page, pn, out + *n, err, errlen)) {
            sqlite3_finalize(st);
            return -1;
        }
        *n += (size_t)pn;
        want++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return sqlfail(d, "blocks", err, errlen);
    if (*n) return 0;
    /* nothing: past the last page, or no such run (deleted under a reader,
     * who must not take the end of its pages for the end of the run) */
    if (prepare(d, "SELECT 1 FROM runs WHERE slug = ?1", &st, err, errlen)) return -1;
    sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return 0;
    if (rc != SQLITE_DONE) return sqlfail(d, "runs", err, errlen);
    seterr(err, errlen, "%s: no run named \"%s\"", d->path, run);
    return DB_NOT_FOUND;
}

const char *bpage_window_sql(void) {
    return "SELECT page, n, s_lo, cells FROM block_pages "
           "WHERE run = ?1 AND s_lo >= ?2 AND s_lo < ?3 AND s_hi >= ?4 AND e_hi > ?5 "
           "ORDER BY s_lo, page";
}

/* A block of a window with its seq, as the merge sorts them. */
typedef struct wblock {
    trace_block b;
    int64_t seq;
} wblock;

static int wcmp(const void *a, const void *b) {
    const wblock *x = a, *y = b;
    if (x->b.start != y->b.start) return x->b.start < y->b.start ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The window's merge: blocks of the pages read so far that may still have
 * a block before them in a page not yet read. */
typedef struct pending {
    wblock *v;
    size_t n, cap;
} pending;

/* Sorts p by (start, seq) and hands on those with start < bound (every
 * block when all), counting against *left; keeps the rest. */
static int drain(pending *p, int64_t bound, bool all, int64_t *left, bpage_cb cb, void *ctx) {
    if (p->n == 0) return 0;
    bool sorted = true;
    for (size_t i = 1; i < p->n && sorted; i++) sorted = wcmp(&p->v[i - 1], &p->v[i]) <= 0;
    if (!sorted) qsort(p->v, p->n, sizeof *p->v, wcmp);
    size_t i = 0;
    int cr = 0;
    for (; i < p->n && (all || p->v[i].b.start < bound); i++) {
        if (*left == 0) break;
        if (*left > 0) (*left)--;
        if ((cr = cb(ctx, &p->v[i].b, p->v[i].seq)) != 0) {
            i++;
            break;
        }
    }
    memmove(p->v, p->v + i, (p->n - i) * sizeof *p->v);
    p->n -= i;
    return cr;
}

int bpage_window(db *d, int64_t run, int64_t lo, int64_t to, int64_t from, bool ordered,
                 int64_t limit, bpage_cb cb, void *ctx, char *err, size_t errlen) {
    if (limit == 0 || lo >= to) return 0;
    sqlite3_stmt *st;
    if (dbi_cached(d, DBI_Q_SPAN, "SELECT span FROM block_spans WHERE run = ?1", &st, err,
                   errlen))
        return -1;
    sqlite3_bind_int64(st, 1, run);
    int rc = sqlite3_step(st);
    int64_t span = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sqlfail(d, "block_spans", err, errlen);
    if (span < 0) span = 0;
    /* a page holding a start >= lo has s_hi >= lo, so s_lo >= lo - span */
    int64_t lo_page = lo < INT64_MIN + span ? INT64_MIN : lo - span;
    if (dbi_cached(d, DBI_Q_WINDOW, bpage_window_sql(), &st, err, errlen)) return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, lo_page);
    sqlite3_bind_int64(st, 3, to);
    sqlite3_bind_int64(st, 4, lo);
    sqlite3_bind_int64(st, 5, from);
    trace_block page[BPAGE_BLOCKS];
    pending p = {0};
    int64_t left = limit;
    int cr = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t pg = sqlite3_column_int64(st, 0), n = sqlite3_column_int64(st, 1);
        int64_t s_lo = sqlite3_column_int64(st, 2);
        /* every block of a later page starts at or after s_lo */
        if (ordered && p.n && (cr = drain(&p, s_lo, false, &left, cb, ctx)) != 0) break;
        if (left == 0) break;
        if (decode_col(d, st, 3, run, pg, n, page, err, errlen)) {
            cr = -1;
            break;
        }
        for (int64_t i = 0; i < n; i++) {
            const trace_block *b = &page[i];
            if (b->start == TRACE_NONE || b->end == TRACE_NONE || b->start < lo ||
                b->start >= to || b->end <= from)
                continue;
            int64_t seq = pg * BPAGE_BLOCKS + i;
            if (!ordered) {
                if (left == 0) break;
                if (left > 0) left--;
                if ((cr = cb(ctx, b, seq)) != 0) break;
                continue;
            }
            if (p.n == p.cap) {
                size_t nc = p.cap ? 2 * p.cap : 2 * BPAGE_BLOCKS;
                wblock *nv = realloc(p.v, nc * sizeof *nv);
                if (!nv) {
                    seterr(err, errlen, "%s: blocks: out of memory", d->path);
                    cr = -1;
                    break;
                }
                p.v = nv;
                p.cap = nc;
            }
            p.v[p.n++] = (wblock){*b, seq};
        }
        if (cr) break;
    }
    sqlite3_reset(st);
    if (!cr && ordered && (rc == SQLITE_DONE || left == 0))
        cr = drain(&p, 0, true, &left, cb, ctx);
    free(p.v);
    if (cr) return cr;
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : sqlfail(d, "blocks", err, errlen);
}

/* ---- migration ------------------------------------------------------------------ */

int dbi_bpage_migrate(db *d, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d,
                "SELECT run, seq, kernel, idx, sm, start, stop FROM blocks ORDER BY run, seq",
                &st, err, errlen))
        return -1;
    bpage_writer *w = malloc(sizeof *w);
    if (!w) {
        sqlite3_finalize(st);
        seterr(err, errlen, "%s: out of memory", d->path);
        return -1;
    }
    bool open = false;
    int rc, fail = 0;
    while (!fail && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t run = sqlite3_column_int64(st, 0), seq = sqlite3_column_int64(st, 1);
        if (open && run != w->run) {
            fail = bpage_finish(w, err, errlen);
            open = false;
        }
        if (fail) break;
        if (!open) {
            bpage_writer_init(w, d, run);
            open = true;
        }
        /* db_store numbered every run's blocks 0, 1, 2, ...: seq is the page
         * position, so a gap would move every later block */
        if (seq != w->seq) {
            seterr(err, errlen, "%s: run %lld: block seq %lld where %lld was expected; the "
                   "blocks table is not as schedlab wrote it", d->path, (long long)run,
                   (long long)seq, (long long)w->seq);
            fail = -1;
            break;
        }
        trace_block b = {
            .kernel = sqlite3_column_int(st, 2), .index = sqlite3_column_int(st, 3),
            .sm = sqlite3_column_int(st, 4), .start = col_t(st, 5), .end = col_t(st, 6),
        };
        fail = bpage_add(w, &b, 1, err, errlen);
    }
    sqlite3_finalize(st);
    if (!fail && rc != SQLITE_DONE) fail = sqlfail(d, "blocks", err, errlen);
    if (!fail && open) fail = bpage_finish(w, err, errlen);
    free(w);
    if (fail) return -1;
    /* runs stored without blocks get their span row too, so every run reads
     * the same way */
    return exec(d,
                "INSERT INTO block_spans(run, span) SELECT id, 0 FROM runs "
                "WHERE id NOT IN (SELECT run FROM block_spans);"
                "DROP TABLE blocks;",
                err, errlen);
}
