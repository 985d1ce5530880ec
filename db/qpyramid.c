/* qpyramid.c -- the queue-length pyramid: building it from a run's queue
 * events and reading a window's bins. See qpyramid.h and qpyramid.sql. */
#include "qpyramid.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../simcore/queue_state.h"
#include "db_int.h"
#include "level.h"
#include "varint.h"

#define fl lvl_bin

void qpyr_bins_from_series(const int64_t *t, const int64_t *len, size_t np, int z, int64_t k0,
                           size_t n, int64_t *out) {
    int64_t w = (int64_t)1 << z;
    int64_t a = k0 * w;
    size_t i = 0;
    int64_t cur = 0;
    for (size_t b = 0; b < n; b++, a += w) {
        /* the length at the bin's start is the one after its events at a */
        while (i < np && t[i] <= a) cur = len[i++];
        int64_t end = a + w, pos = a, integ = 0, mx = cur;
        while (i < np && t[i] < end) {
            integ += cur * (t[i] - pos);
            pos = t[i];
            cur = len[i++];
            if (cur > mx) mx = cur;
        }
        integ += cur * (end - pos);
        out[2 * b] = integ;
        out[2 * b + 1] = mx;
    }
}

/* ---- building ------------------------------------------------------------------------ */

/* What a queue's bin keeps (level.h): its integral and its largest
 * length; before the queue's first event nothing, after its last the last
 * length all along. */
static void q_outside(const void *ctx, int z, bool after, int64_t *v) {
    if (!after) return;
    int64_t last_len = *(const int64_t *)ctx;
    v[0] = last_len * ((int64_t)1 << z);
    v[1] = last_len;
}

static const lvl_kind q_kind = {2, {LVL_SUM, LVL_MAX}, q_outside};

/* A level's blob (varint.h's series, two values a bin): runs of an
 * unchanged length, the common case, cost 2 bytes a bin. */
static int put_level(db *d, sqlite3_stmt *ins, int64_t id, size_t q, const char *name,
                     const lvl *L, int64_t last_len, char *err, size_t errlen) {
    unsigned char *blob = malloc((size_t)L->nb * 20 + 1);
    if (!blob) { seterr(err, errlen, "queue pyramid: out of memory"); return -1; }
    size_t nb = vi_series_put(blob, L->v, 2 * (size_t)L->nb, 2);
    sqlite3_reset(ins);
    sqlite3_bind_int64(ins, 1, id);
    sqlite3_bind_int64(ins, 2, (int64_t)q);
    sqlite3_bind_text(ins, 3, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(ins, 4, L->z);
    sqlite3_bind_int64(ins, 5, L->k0);
    sqlite3_bind_int64(ins, 6, last_len);
    sqlite3_bind_blob(ins, 7, blob, (int)nb, SQLITE_TRANSIENT);
    int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : sqlfail(d, "queue_bins", err, errlen);
    free(blob);
    return rc;
}

/* Replays the run's queue events into s (with series), as db_queue_series. */
static int scan(db *d, int64_t id, trace *strs, sim_qstate *s, char *err, size_t errlen) {
    strmap m;
    if (dbi_load_strings(d, id, strs, &m, err, errlen)) {
        free(m.v);
        return -1;
    }
    sqlite3_stmt *st;
    if (prepare(d, "SELECT t, queue, item, event FROM queue_events WHERE run = ?1 ORDER BY t, seq",
                &st, err, errlen)) {
        free(m.v);
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (sim_qstate_apply(s, sqlite3_column_int64(st, 0), col_str(&m, st, 1), col_str(&m, st, 2),
                             sqlite3_column_int(st, 3)))
            break;
    sqlite3_finalize(st);
    free(m.v);
    if (s->oom) { seterr(err, errlen, "%s: queue_events: out of memory", d->path); return -1; }
    return rc == SQLITE_DONE ? 0 : sqlfail(d, "queue_events", err, errlen);
}

static int build_levels(db *d, int64_t id, const sim_qstate *s, const trace *strs, int *z0o,
                        int *ztopo, char *err, size_t errlen) {
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (size_t q = 0; q < s->n; q++) {
        if (!s->q[q].np) continue;
        if (s->q[q].t[0] < t0) t0 = s->q[q].t[0];
        if (s->q[q].t[s->q[q].np - 1] > t1) t1 = s->q[q].t[s->q[q].np - 1];
    }
    *z0o = 1, *ztopo = 0;
    if (t0 > t1) return 0;   /* no events */
    /* bins finer than about one event per queue and bin add rows but no
     * drawing: a window of them holds fewer steps than bins, and the view
     * draws those steps (charts/queues.mjs) */
    size_t nev = 0;
    for (size_t q = 0; q < s->n; q++) nev += s->q[q].np;
    size_t cells = nev + 64 * s->n;
    if (cells > QPYR_MAX_CELLS) cells = QPYR_MAX_CELLS;
    int z0 = 0;
    while (z0 < QPYR_MAX_Z && (size_t)(fl(t1, z0) - fl(t0, z0) + 1) * s->n > cells) z0++;
    int ztop = z0;
    while (ztop < QPYR_MAX_Z && fl(t1, ztop) != fl(t0, ztop)) ztop++;
    *z0o = z0, *ztopo = ztop;
    sqlite3_stmt *ins;
    if (prepare(d, "INSERT INTO queue_bins(run, queue, name, z, k0, last_len, bins) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                &ins, err, errlen))
        return -1;
    size_t cap = (size_t)(fl(t1, z0) - fl(t0, z0) + 1);
    int rc = 0;
    for (size_t q = 0; !rc && q < s->n; q++) {
        const sim_qstate_queue *Q = &s->q[q];
        const char *name = trace_str_get(strs, Q->name);
        int64_t last_len = Q->np ? Q->len[Q->np - 1] : 0;
        lvl L = {z0, fl(t0, z0), (int64_t)cap, 1, lvl_alloc(&q_kind, (int64_t)cap, 1)};
        if (!L.v) { seterr(err, errlen, "queue pyramid: out of memory"); rc = -1; break; }
        qpyr_bins_from_series(Q->t, Q->len, Q->np, z0, L.k0, cap, L.v);
        rc = put_level(d, ins, id, q, name, &L, last_len, err, errlen);
        /* a coarser bin is its two halves: sum of integrals, max of maxima */
        for (int z = z0 + 1; !rc && z <= ztop; z++) {
            lvl U;
            if (lvl_coarsen(&q_kind, &last_len, &L, &U, NULL)) {
                seterr(err, errlen, "queue pyramid: out of memory");
                rc = -1;
                break;
            }
            free(L.v);
            L = U;
            rc = put_level(d, ins, id, q, name, &L, last_len, err, errlen);
        }
        free(L.v);
    }
    sqlite3_finalize(ins);
    return rc;
}

/* Store the levels of the replayed state s (names in strs) as run id's. */
static int store(db *d, int64_t id, const sim_qstate *s, const trace *strs, char *err,
                 size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "DELETE FROM queue_bins WHERE run = ?1", &st, err, errlen)) return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sqlfail(d, "queue_bins", err, errlen);
    sqlite3_finalize(st);
    if (rc) return rc;
    int z0 = 1, ztop = 0;
    rc = build_levels(d, id, s, strs, &z0, &ztop, err, errlen);
    size_t nq = s->n;
    if (rc) return rc;
    if (prepare(d, "INSERT OR REPLACE INTO queue_pyramids(run, z0, ztop, nqueues) "
                   "VALUES (?1, ?2, ?3, ?4)",
                &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, z0);
    sqlite3_bind_int(st, 3, ztop);
    sqlite3_bind_int64(st, 4, (int64_t)nq);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sqlfail(d, "queue_pyramids", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

int dbi_qpyramid_build(db *d, int64_t id, char *err, size_t errlen) {
    trace strs;
    trace_init(&strs);
    sim_qstate s;
    sim_qstate_init(&s, true);
    int rc = scan(d, id, &strs, &s, err, errlen);
    if (!rc) rc = store(d, id, &s, &strs, err, errlen);
    sim_qstate_free(&s);
    trace_free(&strs);
    return rc;
}

/* ---- reading ------------------------------------------------------------------------- */

/* The run's queue_pyramids row (a dbi_look_fn): id in, the rest out. */
typedef struct qlevels {
    int64_t id;
    int z0, ztop;
    size_t nq;
} qlevels;

static int levels_row(db *d, void *ctx, bool *has, char *err, size_t errlen) {
    qlevels *q = ctx;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT z0, ztop, nqueues FROM queue_pyramids WHERE run = ?1", &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, q->id);
    int rc = sqlite3_step(st);
    *has = rc == SQLITE_ROW;
    if (*has) {
        q->z0 = sqlite3_column_int(st, 0);
        q->ztop = sqlite3_column_int(st, 1);
        q->nq = (size_t)sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sqlfail(d, "queue_pyramids", err, errlen);
}

static int levels_build(db *d, void *ctx, char *err, size_t errlen) {
    return dbi_qpyramid_build(d, ((qlevels *)ctx)->id, err, errlen);
}

void qpyr_bins_free(qpyr_bins *b) {
    if (b->names)
        for (size_t q = 0; q < b->nqueues; q++) free(b->names[q]);
    free(b->names);
    free(b->integral);
    free(b->max);
    memset(b, 0, sizeof *b);
}

/* the tables its build writes (dbi_build_once) */
static const char *const qpyr_tables[] = {"queue_bins", "queue_pyramids", NULL};

int db_qpyramid_bins(db *d, const char *run, int64_t from, int64_t to, int64_t want,
                     qpyr_bins *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (lvl_window_args("queue bins", from, to, want, err, errlen)) return -1;
    int64_t id;
    int rc = dbi_lookup_id(d, "runs", run, &id, err, errlen);
    if (rc) return rc;
    /* the levels, built first for a run stored before queue pyramids */
    qlevels lv = {id, 0, 0, 0};
    if (dbi_build_once(d, "qpyramid_build", qpyr_tables, levels_row, levels_build, &lv, err,
                       errlen))
        return -1;
    int z0 = lv.z0, ztop = lv.ztop;
    size_t nq = lv.nq;
    lvl_window w;
    rc = lvl_window_of("queue bins", from, to, want, z0, ztop, QPYR_MAX_Z, QPYR_MAX_BINS, &w, err,
                       errlen);
    if (rc) return rc;
    int z = w.z;
    out->z = z, out->bin_ns = w.bin_ns, out->k0 = w.k0, out->nbins = w.nbins;
    out->nqueues = nq;
    out->names = calloc(nq ? nq : 1, sizeof *out->names);
    out->integral = calloc(nq * out->nbins + 1, sizeof *out->integral);
    out->max = calloc(nq * out->nbins + 1, sizeof *out->max);
    if (!out->names || !out->integral || !out->max) {
        qpyr_bins_free(out);
        seterr(err, errlen, "queue bins: out of memory");
        return -1;
    }
    /* the stored level: z itself, or ztop whose bins sum into coarser ones */
    int zs = z > ztop ? ztop : z;
    int sh = z - zs;
    sqlite3_stmt *st;
    if (nq && prepare(d, "SELECT queue, name, k0, last_len, bins FROM queue_bins "
                         "WHERE run = ?1 AND z = ?2 ORDER BY queue",
                      &st, err, errlen)) {
        qpyr_bins_free(out);
        return -1;
    }
    rc = SQLITE_DONE;
    if (nq) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int(st, 2, zs);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t q = sqlite3_column_int64(st, 0);
            if (q < 0 || (size_t)q >= nq) continue;
            out->names[q] = strdup((const char *)sqlite3_column_text(st, 1));
            size_t len = (size_t)sqlite3_column_bytes(st, 4);
            const unsigned char *p = sqlite3_column_blob(st, 4);
            /* a bin takes 2 bytes at least */
            int64_t *v = malloc((len / 2 + 1) * 2 * sizeof *v);
            int64_t nv = v ? vi_series_get(p, len, v, len / 2 + 1, len / 2 + 1, 2) : -1;
            if (nv < 0) {
                free(v);
                sqlite3_finalize(st);
                qpyr_bins_free(out);
                if (v) seterr(err, errlen, "%s: queue_bins: run %lld queue %lld level %d: damaged bins",
                              d->path, (long long)id, (long long)q, zs);
                else seterr(err, errlen, "queue bins: out of memory");
                return -1;
            }
            int64_t lk0 = sqlite3_column_int64(st, 2), last_len = sqlite3_column_int64(st, 3);
            for (size_t i = 0; i < out->nbins; i++) {
                /* bins [k << sh, (k + 1) << sh) of level zs: stored ones, and
                 * the whole rule outside them at once */
                int64_t b[2];
                lvl_fold(&q_kind, &last_len, v, lk0, nv, zs, sh, out->k0 + (int64_t)i, b);
                out->integral[(size_t)q * out->nbins + i] = b[0];
                out->max[(size_t)q * out->nbins + i] = b[1];
            }
            free(v);
        }
        sqlite3_finalize(st);
    }
    if (rc != SQLITE_DONE) {
        qpyr_bins_free(out);
        return sqlfail(d, "queue_bins", err, errlen);
    }
    for (size_t q = 0; q < nq; q++)
        if (!out->names[q] && !(out->names[q] = strdup(""))) {
            qpyr_bins_free(out);
            seterr(err, errlen, "queue bins: out of memory");
            return -1;
        }
    /* how many events the window holds: the client draws steps below its
     * limit and these bins above it */
    if (prepare(d, "SELECT count(*) FROM queue_events WHERE run = ?1 AND t >= ?2 AND t < ?3", &st,
                err, errlen)) {
        qpyr_bins_free(out);
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, from);
    sqlite3_bind_int64(st, 3, to);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) out->events = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) {
        qpyr_bins_free(out);
        return sqlfail(d, "queue_events", err, errlen);
    }
    return 0;
}
