/* spyramid.c -- the per-stream pyramid: building it from a run's kernels,
 * reading a window's bins and a window's kernels; the same for copies, per
 * copy engine. See spyramid.h and spyramid.sql. The reads of the bulk
 * tables are one statement each: dbi_spyramid_build (kernels),
 * db_spyramid_kernels (a window's kernels), dbi_spyramid_copies_build and
 * db_spyramid_copies (copies). */
#include "spyramid.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "level.h"
#include "qpyramid.h"
#include "row_ranges.h"
#include "varint.h"

#define fl lvl_bin

#define NV 4   /* values a bin: kernel-ns, thread-ns, max kernels, max threads */
#define CNV 2  /* values a bin of a copy cell: copy-ns, max copies */
#define CW 3   /* values a chunk of the window index: min start, max end, kernels */

/* What a cell's bin keeps (level.h): kernels, the integrals of running
 * kernels and their threads, then the most of each at once (never below
 * 0); copies, the integral of running copies and the most at once. Nothing
 * outside a cell's span. A level is one blob, varint.h's series. */
static const lvl_kind k_kind = {NV, {LVL_SUM, LVL_SUM, LVL_MAX0, LVL_MAX0}, NULL};
static const lvl_kind c_kind = {CNV, {LVL_SUM, LVL_MAX0}, NULL};

/* ---- building ------------------------------------------------------------------------ */

typedef struct skern {
    int64_t start, end, threads;
    uint32_t lane, ncell;   /* ncell: the (lane, name) cell's index among name cells */
} skern;

typedef struct sev {
    int64_t t, dk, dt;
} sev;

static int sev_cmp(const void *a, const void *b) {
    const sev *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* open addressing: a 64-bit key to an index */
typedef struct imap {
    uint64_t *k;
    uint32_t *v;
    size_t cap, n;
} imap;

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* the index of key (assigning n when new: *fresh); -1 out of memory */
static int64_t imap_get(imap *m, uint64_t key, bool *fresh) {
    if (2 * (m->n + 1) > m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 64;
        uint64_t *nk = malloc(nc * sizeof *nk);
        uint32_t *nv = malloc(nc * sizeof *nv);
        if (!nk || !nv) { free(nk); free(nv); return -1; }
        for (size_t i = 0; i < nc; i++) nv[i] = UINT32_MAX;
        for (size_t i = 0; i < m->cap; i++) {
            if (m->v[i] == UINT32_MAX) continue;
            size_t j = mix(m->k[i]) & (nc - 1);
            while (nv[j] != UINT32_MAX) j = (j + 1) & (nc - 1);
            nk[j] = m->k[i];
            nv[j] = m->v[i];
        }
        free(m->k);
        free(m->v);
        m->k = nk, m->v = nv, m->cap = nc;
    }
    size_t j = mix(key) & (m->cap - 1);
    while (m->v[j] != UINT32_MAX) {
        if (m->k[j] == key) { *fresh = false; return m->v[j]; }
        j = (j + 1) & (m->cap - 1);
    }
    m->k[j] = key;
    m->v[j] = (uint32_t)m->n;
    *fresh = true;
    return (int64_t)m->n++;
}

static void imap_free(imap *m) {
    free(m->k);
    free(m->v);
}

/* One cell: its kernels' ids in ks (via idx), its bins range per level. */
typedef struct scell {
    uint32_t lane;
    int32_t name;        /* -1: the whole lane */
    int64_t t0, t1;      /* earliest start, latest end */
    size_t first, n;     /* its kernels: order[first .. first + n) */
} scell;

/* The levels z0..ztop of one cell, stored, nv values a bin: NV (kernels:
 * both series) or CNV (copies: the count series only, [integral, max]).
 * va/vb: scratch of nv * cap. */
static int build_cell(db *d, sqlite3_stmt *ins, int64_t id, size_t c, const scell *C, int nv,
                      const skern *ks, const uint32_t *order, int z0, int ztop, int64_t *va,
                      int64_t *vb, sev *ev, int64_t *st, int64_t *sk, int64_t *sth,
                      unsigned char *blob, int64_t *tmp, char *err, size_t errlen) {
    size_t ne = 0;
    for (size_t i = 0; i < C->n; i++) {
        const skern *k = &ks[order[C->first + i]];
        ev[ne++] = (sev){k->start, 1, k->threads};
        ev[ne++] = (sev){k->end, -1, -k->threads};
    }
    qsort(ev, ne, sizeof *ev, sev_cmp);
    /* the step functions, one point per time (a zero-length kernel's +1 and
     * -1 cancel: it never runs) */
    size_t np = 0;
    int64_t ck = 0, cth = 0;
    for (size_t i = 0; i < ne;) {
        int64_t t = ev[i].t;
        for (; i < ne && ev[i].t == t; i++) ck += ev[i].dk, cth += ev[i].dt;
        st[np] = t, sk[np] = ck, sth[np] = cth;
        np++;
    }
    int64_t k0 = fl(C->t0, z0);
    size_t n = (size_t)(fl(C->t1, z0) - k0 + 1);
    /* tmp: 2n; kernels then threads, interleaved into va */
    qpyr_bins_from_series(st, sk, np, z0, k0, n, tmp);
    int h2 = nv / 2;   /* sums first, then maxima */
    for (size_t b = 0; b < n; b++) va[nv * b] = tmp[2 * b], va[nv * b + h2] = tmp[2 * b + 1];
    if (nv == NV) {
        qpyr_bins_from_series(st, sth, np, z0, k0, n, tmp);
        for (size_t b = 0; b < n; b++) va[NV * b + 1] = tmp[2 * b], va[NV * b + 3] = tmp[2 * b + 1];
    }
    const lvl_kind *K = nv == NV ? &k_kind : &c_kind;
    lvl L = {z0, k0, (int64_t)n, 1, va};
    int64_t *spare = vb;
    for (int z = z0; z <= ztop; z++) {
        if (z > z0) {
            /* a coarser bin is its two halves: sums and maxima */
            lvl U;
            lvl_coarsen(K, NULL, &L, &U, spare);
            spare = L.v;
            L = U;
        }
        size_t nb = vi_series_put(blob, L.v, (size_t)nv * (size_t)L.nb, (size_t)nv);
        sqlite3_reset(ins);
        sqlite3_bind_int64(ins, 1, id);
        sqlite3_bind_int(ins, 2, z);
        sqlite3_bind_int64(ins, 3, (int64_t)c);
        sqlite3_bind_int64(ins, 4, L.k0);
        sqlite3_bind_blob(ins, 5, blob, (int)nb, SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE) return sqlfail(d, "stream_bins", err, errlen);
    }
    return 0;
}

static int exec_bind(db *d, const char *sql, int64_t id, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, sql, &st, err, errlen)) return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sqlfail(d, "stream pyramid", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

/* What both builds (kernels, copies) gather from their one read of the
 * rows, and every step after that read: the two differ only in which rows
 * they read and how a row names its two cells, so the rest is here once. */
typedef struct sbuild {
    const char *what;   /* "stream pyramid" / "copy pyramid", for errors */
    skern *ks;          /* lane: the row's whole cell; ncell: its second cell, both final */
    size_t nk, capk, nchunks, ncl;
    int64_t *chunks;    /* CW per chunk: min start, max end, timed rows */
    int64_t tmin, tmax;
    scell *cells;
    uint32_t *order;
    int z0, ztop;
} sbuild;

static void sb_init(sbuild *b, const char *what) {
    memset(b, 0, sizeof *b);
    b->what = what;
    b->tmin = INT64_MAX, b->tmax = INT64_MIN;
}

static void sb_free(sbuild *b) {
    free(b->ks);
    free(b->chunks);
    free(b->order);
    free(b->cells);
}

static int sb_oom(const sbuild *b, char *err, size_t errlen) {
    seterr(err, errlen, "%s: out of memory", b->what);
    return -1;
}

/* One timed row k, of id rid (its chunk: rid / SPYR_CHUNK); false: out of memory. */
static bool sb_add(sbuild *b, int64_t rid, skern k) {
    if (b->nk == b->capk) {
        size_t nc = b->capk ? 2 * b->capk : 1024;
        skern *nks = realloc(b->ks, nc * sizeof *nks);
        if (!nks) return false;
        b->ks = nks, b->capk = nc;
    }
    b->ks[b->nk++] = k;
    assert(rid >= 0);   /* a rowid: its chunk, + 1, is no overflow */
    size_t ch = (size_t)(rid / SPYR_CHUNK);
    if (ch >= b->nchunks) {
        size_t nc = 2 * b->nchunks;
        if (nc <= ch) nc = ch + 1;
        int64_t *nch = realloc(b->chunks, nc * CW * sizeof *nch);
        if (!nch) return false;
        for (size_t i = b->nchunks; i < nc; i++)
            nch[CW * i] = INT64_MAX, nch[CW * i + 1] = INT64_MIN, nch[CW * i + 2] = 0;
        b->chunks = nch, b->nchunks = nc;
    }
    int64_t *c = &b->chunks[CW * ch];
    if (k.start < c[0]) c[0] = k.start;
    if (k.end > c[1]) c[1] = k.end;
    c[2]++;
    if (k.start < b->tmin) b->tmin = k.start;
    if (k.end > b->tmax) b->tmax = k.end;
    return true;
}

/* ncl cells of unknown times (lane and name set by the caller after). */
static bool sb_cells(sbuild *b, size_t ncl) {
    /* trim the chunk array to the last chunk with an id */
    while (b->nchunks && b->chunks[CW * (b->nchunks - 1)] == INT64_MAX) b->nchunks--;
    b->ncl = ncl;
    b->cells = calloc(ncl ? ncl : 1, sizeof *b->cells);
    b->order = malloc((2 * b->nk + 1) * sizeof *b->order);
    if (!b->cells || !b->order) return false;
    for (size_t c = 0; c < ncl; c++)
        b->cells[c].t0 = INT64_MAX, b->cells[c].t1 = INT64_MIN, b->cells[c].name = -1;
    return true;
}

/* Each cell's rows in order, its times, then the levels z0..ztop, each
 * cell's bins of nv values inserted by bins_sql. */
static int sb_levels(db *d, int64_t id, sbuild *b, int nv, const char *bins_sql, char *err,
                     size_t errlen) {
    scell *cells = b->cells;
    size_t ncl = b->ncl, nk = b->nk;
    for (size_t i = 0; i < nk; i++) {
        uint32_t cs[2] = {b->ks[i].lane, b->ks[i].ncell};
        for (int j = 0; j < 2; j++) {
            scell *C = &cells[cs[j]];
            C->n++;
            if (b->ks[i].start < C->t0) C->t0 = b->ks[i].start;
            if (b->ks[i].end > C->t1) C->t1 = b->ks[i].end;
        }
    }
    size_t maxn = 0;
    for (size_t c = 0, at = 0; c < ncl; c++) {
        cells[c].first = at;
        at += cells[c].n;
        if (cells[c].n > maxn) maxn = cells[c].n;
        cells[c].n = 0;
    }
    for (size_t i = 0; i < nk; i++) {
        uint32_t cs[2] = {b->ks[i].lane, b->ks[i].ncell};
        for (int j = 0; j < 2; j++) b->order[cells[cs[j]].first + cells[cs[j]].n++] = (uint32_t)i;
    }
    b->z0 = 1, b->ztop = 0;
    if (!nk) return 0;
    size_t cap = 2 * nk + 64 * ncl;
    if (cap > SPYR_MAX_CELLS) cap = SPYR_MAX_CELLS;
    int z0 = 0;
    for (;; z0++) {
        size_t tot = 0;
        for (size_t c = 0; c < ncl && tot <= cap; c++)
            if (cells[c].n) tot += (size_t)(fl(cells[c].t1, z0) - fl(cells[c].t0, z0) + 1);
        if (tot <= cap || z0 >= SPYR_MAX_Z) break;
    }
    int ztop = z0;
    while (ztop < SPYR_MAX_Z && fl(b->tmax, ztop) != fl(b->tmin, ztop)) ztop++;
    b->z0 = z0, b->ztop = ztop;
    size_t maxbins = 0;
    for (size_t c = 0; c < ncl; c++) {
        if (!cells[c].n) continue;
        size_t nb = (size_t)(fl(cells[c].t1, z0) - fl(cells[c].t0, z0) + 1);
        if (nb > maxbins) maxbins = nb;
    }
    assert(maxn > 0 && maxbins > 0);   /* nk > 0 records, each in two cells */
    int rc = -1;
    sqlite3_stmt *ins = NULL;
    sev *ev = malloc(2 * maxn * sizeof *ev);
    int64_t *st = malloc(2 * maxn * sizeof *st), *sk = malloc(2 * maxn * sizeof *sk);
    int64_t *sth = malloc(2 * maxn * sizeof *sth);   /* all zero for copies: no threads */
    int64_t *va = malloc((size_t)nv * maxbins * sizeof *va);
    int64_t *vb = malloc((size_t)nv * maxbins * sizeof *vb);
    int64_t *tmp = malloc(2 * maxbins * sizeof *tmp);
    unsigned char *blob = malloc((size_t)nv * maxbins * 10 + 1);
    if (!ev || !st || !sk || !sth || !va || !vb || !tmp || !blob) {
        sb_oom(b, err, errlen);
        goto out;
    }
    if (prepare(d, bins_sql, &ins, err, errlen)) goto out;
    for (size_t c = 0; c < ncl; c++)
        if (cells[c].n && build_cell(d, ins, id, c, &cells[c], nv, b->ks, b->order, z0, ztop, va,
                                     vb, ev, st, sk, sth, blob, tmp, err, errlen))
            goto out;
    rc = 0;
out:
    sqlite3_finalize(ins);
    free(ev);
    free(st);
    free(sk);
    free(sth);
    free(va);
    free(vb);
    free(tmp);
    free(blob);
    return rc;
}

/* The cells' (lane, name) rows by cells_sql (?1 run, ?2 cell, ?3 lane, ?4 name). */
static int sb_store_cells(db *d, int64_t id, const sbuild *b, const char *cells_sql,
                          const char *table, char *err, size_t errlen) {
    sqlite3_stmt *ins;
    if (prepare(d, cells_sql, &ins, err, errlen)) return -1;
    int rc = 0;
    for (size_t c = 0; c < b->ncl && !rc; c++) {
        sqlite3_reset(ins);
        sqlite3_bind_int64(ins, 1, id);
        sqlite3_bind_int64(ins, 2, (int64_t)c);
        sqlite3_bind_int64(ins, 3, b->cells[c].lane);
        sqlite3_bind_int64(ins, 4, b->cells[c].name);
        if (sqlite3_step(ins) != SQLITE_DONE) rc = sqlfail(d, table, err, errlen);
    }
    sqlite3_finalize(ins);
    return rc;
}

/* The pyramid's row by pyr_sql: ?1 run, ?2 z0, ?3 ztop, then the nextra
 * values of extra, then ncells, the row count, t_min, t_max and the chunk
 * index (little-endian int64s, whatever the host). */
static int sb_store_pyramid(db *d, int64_t id, const sbuild *b, const char *pyr_sql,
                            const char *table, const int64_t *extra, int nextra, char *err,
                            size_t errlen) {
    sqlite3_stmt *ins;
    if (prepare(d, pyr_sql, &ins, err, errlen)) return -1;
    int col = 1;
    sqlite3_bind_int64(ins, col++, id);
    sqlite3_bind_int(ins, col++, b->z0);
    sqlite3_bind_int(ins, col++, b->ztop);
    for (int i = 0; i < nextra; i++) sqlite3_bind_int64(ins, col++, extra[i]);
    sqlite3_bind_int64(ins, col++, (int64_t)b->ncl);
    sqlite3_bind_int64(ins, col++, (int64_t)b->nk);
    bind_t(ins, col++, b->nk ? b->tmin : TRACE_NONE);
    bind_t(ins, col++, b->nk ? b->tmax : TRACE_NONE);
    unsigned char *cb = malloc(b->nchunks * CW * 8 + 1);
    int rc;
    if (!cb) {
        rc = sb_oom(b, err, errlen);
    } else {
        for (size_t i = 0; i < CW * b->nchunks; i++)
            for (int k = 0; k < 8; k++)
                cb[8 * i + k] = (unsigned char)((uint64_t)b->chunks[i] >> (8 * k));
        sqlite3_bind_blob(ins, col, cb, (int)(b->nchunks * CW * 8), free);
        rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : sqlfail(d, table, err, errlen);
    }
    sqlite3_finalize(ins);
    return rc;
}

/* The tables a build writes, kernels' or copies' */
typedef struct sb_tables {
    int nv;                  /* values a bin: NV or CNV */
    const char *bins_sql;    /* sb_levels' */
    const char *cells_sql;   /* sb_store_cells', and its table for errors */
    const char *cells_table;
    const char *pyr_sql;     /* sb_store_pyramid's, and its table */
    const char *pyr_table;
} sb_tables;

/* Every write after the read: the levels, the cells, the pyramid's row. */
static int sb_store(db *d, int64_t id, sbuild *b, const sb_tables *t, const int64_t *extra,
                    int nextra, char *err, size_t errlen) {
    if (sb_levels(d, id, b, t->nv, t->bins_sql, err, errlen) ||
        sb_store_cells(d, id, b, t->cells_sql, t->cells_table, err, errlen))
        return -1;
    return sb_store_pyramid(d, id, b, t->pyr_sql, t->pyr_table, extra, nextra, err, errlen);
}

int dbi_spyramid_build(db *d, int64_t id, char *err, size_t errlen) {
    static const char *const del[] = {
        "DELETE FROM stream_bins WHERE run = ?1",  "DELETE FROM stream_cells WHERE run = ?1",
        "DELETE FROM stream_lanes WHERE run = ?1", "DELETE FROM stream_names WHERE run = ?1",
        "DELETE FROM stream_pyramids WHERE run = ?1",
    };
    for (size_t i = 0; i < sizeof del / sizeof *del; i++)
        if (exec_bind(d, del[i], id, err, errlen)) return -1;
    trace strs;
    trace_init(&strs);
    strmap m = {NULL, 0};
    imap lanes = {0}, names = {0}, ncells = {0};
    sbuild b;
    sb_init(&b, "stream pyramid");
    sqlite3_stmt *st = NULL, *lins = NULL, *nins = NULL;
    int rc = -1;
    if (dbi_load_strings(d, id, &strs, &m, err, errlen)) goto out;
    if (prepare(d, "SELECT " DBI_KERNEL_ID ", name, process, stream, coalesce(first_block, issue), "
                   "stop, threads, blocks FROM kernels WHERE " DBI_KERNELS_OF_RUN " ORDER BY rowid",
                &st, err, errlen))
        goto out;
    sqlite3_bind_int64(st, 1, id);
    if (prepare(d, "INSERT INTO stream_lanes(run, lane, process, stream) VALUES (?1, ?2, ?3, ?4)",
                &lins, err, errlen) ||
        prepare(d, "INSERT INTO stream_names(run, idx, name) VALUES (?1, ?2, ?3)", &nins, err,
                errlen)) {
        goto out;
    }
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t kid = sqlite3_column_int64(st, 0);
        uint64_t nsid = (uint64_t)sqlite3_column_int64(st, 1);
        uint64_t psid = (uint64_t)sqlite3_column_int64(st, 2), ssid = (uint64_t)sqlite3_column_int64(st, 3);
        bool fresh;
        int64_t lane = imap_get(&lanes, psid << 32 | (ssid & 0xffffffffu), &fresh);
        if (lane < 0) goto oom;
        if (fresh) {
            sqlite3_reset(lins);
            sqlite3_bind_int64(lins, 1, id);
            sqlite3_bind_int64(lins, 2, lane);
            /* the text, not the strings id */
            const char *ps = psid && psid < m.n ? trace_str_get(&strs, m.v[psid]) : NULL;
            const char *ss = ssid && ssid < m.n ? trace_str_get(&strs, m.v[ssid]) : NULL;
            bind_s(lins, 3, ps);
            bind_s(lins, 4, ss);
            if (sqlite3_step(lins) != SQLITE_DONE) { sqlfail(d, "stream_lanes", err, errlen); goto out; }
        }
        int64_t name = imap_get(&names, nsid, &fresh);
        if (name < 0) goto oom;
        if (fresh) {
            const char *ns = nsid && nsid < m.n ? trace_str_get(&strs, m.v[nsid]) : NULL;
            sqlite3_reset(nins);
            sqlite3_bind_int64(nins, 1, id);
            sqlite3_bind_int64(nins, 2, name);
            sqlite3_bind_text(nins, 3, ns ? ns : "", -1, SQLITE_STATIC);
            if (sqlite3_step(nins) != SQLITE_DONE) { sqlfail(d, "stream_names", err, errlen); goto out; }
        }
        int64_t start = col_t(st, 4), end = col_t(st, 5);
        if (start == TRACE_NONE || end == TRACE_NONE || end < start) continue;
        int64_t ncell = imap_get(&ncells, (uint64_t)lane << 32 | (uint64_t)name, &fresh);
        if (ncell < 0) goto oom;
        int64_t thr = sqlite3_column_int64(st, 6) * sqlite3_column_int64(st, 7);
        if (!sb_add(&b, kid, (skern){start, end, thr, (uint32_t)lane, (uint32_t)ncell})) goto oom;
    }
    if (src != SQLITE_DONE) { sqlfail(d, "kernels", err, errlen); goto out; }

    /* cells: the lanes' whole cells, then the (lane, name) cells */
    size_t nl = lanes.n;
    if (!sb_cells(&b, nl + ncells.n)) goto oom;
    for (size_t i = 0; i < ncells.cap; i++) {
        if (ncells.v[i] == UINT32_MAX) continue;
        scell *C = &b.cells[nl + ncells.v[i]];
        C->lane = (uint32_t)(ncells.k[i] >> 32);
        C->name = (int32_t)(ncells.k[i] & 0xffffffffu);
    }
    for (size_t l = 0; l < nl; l++) b.cells[l].lane = (uint32_t)l;
    for (size_t i = 0; i < b.nk; i++) b.ks[i].ncell += (uint32_t)nl;   /* now a cell index */
    const int64_t extra[] = {(int64_t)nl, (int64_t)names.n};
    static const sb_tables tables = {
        NV,
        "INSERT INTO stream_bins(run, z, cell, k0, bins) VALUES (?1, ?2, ?3, ?4, ?5)",
        "INSERT INTO stream_cells(run, cell, lane, name) VALUES (?1, ?2, ?3, ?4)",
        "stream_cells",
        "INSERT INTO stream_pyramids(run, z0, ztop, nlanes, nnames, ncells, nkernels, t_min, "
        "t_max, chunks) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        "stream_pyramids",
    };
    rc = sb_store(d, id, &b, &tables, extra, 2, err, errlen);
    goto out;
oom:
    sb_oom(&b, err, errlen);
out:
    sqlite3_finalize(st);
    sqlite3_finalize(lins);
    sqlite3_finalize(nins);
    free(m.v);
    trace_free(&strs);
    imap_free(&lanes);
    imap_free(&names);
    imap_free(&ncells);
    sb_free(&b);
    return rc;
}

/* ---- reading ------------------------------------------------------------------------- */

/* the run's stream_pyramids row into out (out->id the run): a dbi_look_fn */
static int info_row(db *d, void *ctx, bool *has, char *err, size_t errlen) {
    spyr_info *out = ctx;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT z0, ztop, nlanes, nnames, nkernels, t_min, t_max FROM stream_pyramids "
                   "WHERE run = ?1",
                &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, out->id);
    int rc = sqlite3_step(st);
    *has = rc == SQLITE_ROW;
    if (*has) {
        out->z0 = sqlite3_column_int(st, 0);
        out->ztop = sqlite3_column_int(st, 1);
        out->nlanes = (size_t)sqlite3_column_int64(st, 2);
        out->nnames = (size_t)sqlite3_column_int64(st, 3);
        out->nkernels = sqlite3_column_int64(st, 4);
        out->t_min = col_t(st, 5);
        out->t_max = col_t(st, 6);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sqlfail(d, "stream_pyramids", err, errlen);
}

static int info_build(db *d, void *ctx, char *err, size_t errlen) {
    return dbi_spyramid_build(d, ((spyr_info *)ctx)->id, err, errlen);
}

void spyr_info_free(spyr_info *i) {
    for (size_t l = 0; l < i->nlanes; l++) {
        if (i->process) free(i->process[l]);
        if (i->stream) free(i->stream[l]);
    }
    for (size_t n = 0; i->names && n < i->nnames; n++) free(i->names[n]);
    free(i->process);
    free(i->stream);
    free(i->names);
    memset(i, 0, sizeof *i);
}

static char *dup_col(sqlite3_stmt *st, int i) {
    const char *s = col_s(st, i);
    return s ? strdup(s) : NULL;
}

/* The run's own count by sql ("SELECT n_kernels / n_copies FROM runs WHERE
 * id = ?1"): a count(*) of a 1M-kernel run is a 100 MB scan. */
#define KERNEL_COUNT "SELECT n_kernels FROM runs WHERE id = ?1"
#define COPY_COUNT "SELECT n_copies FROM runs WHERE id = ?1"
static int run_count(db *d, const char *sql, int64_t id, int64_t *n, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, sql, &st, err, errlen)) return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : sqlfail(d, "runs", err, errlen);
}

int db_spyramid_count(db *d, const char *run, int64_t *n, char *err, size_t errlen) {
    int64_t id;
    int rc = dbi_lookup_id(d, "runs", run, &id, err, errlen);
    return rc ? rc : run_count(d, KERNEL_COUNT, id, n, err, errlen);
}

/* the tables its build writes (dbi_build_once) */
static const char *const spyr_tables[] = {"stream_bins", "stream_cells", "stream_lanes",
                                          "stream_names", "stream_pyramids", NULL};

int db_spyramid_info(db *d, const char *run, spyr_info *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    int rc = dbi_lookup_id(d, "runs", run, &out->id, err, errlen);
    if (rc) return rc;
    /* built when missing */
    if (dbi_build_once(d, "spyramid_build", spyr_tables, info_row, info_build, out, err, errlen))
        return -1;
    out->process = calloc(out->nlanes + 1, sizeof *out->process);
    out->stream = calloc(out->nlanes + 1, sizeof *out->stream);
    out->names = calloc(out->nnames + 1, sizeof *out->names);
    if (!out->process || !out->stream || !out->names) goto oom;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT lane, process, stream FROM stream_lanes WHERE run = ?1", &st, err, errlen))
        goto fail;
    sqlite3_bind_int64(st, 1, out->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t l = sqlite3_column_int64(st, 0);
        if (l < 0 || (size_t)l >= out->nlanes || out->stream[l]) continue;
        out->process[l] = dup_col(st, 1);
        out->stream[l] = dup_col(st, 2);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) { sqlfail(d, "stream_lanes", err, errlen); goto fail; }
    if (prepare(d, "SELECT idx, name FROM stream_names WHERE run = ?1", &st, err, errlen)) goto fail;
    sqlite3_bind_int64(st, 1, out->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t n = sqlite3_column_int64(st, 0);
        if (n < 0 || (size_t)n >= out->nnames || out->names[n]) continue;
        if (!(out->names[n] = dup_col(st, 1))) break;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) { sqlfail(d, "stream_names", err, errlen); goto fail; }
    for (size_t n = 0; n < out->nnames; n++)
        if (!out->names[n] && !(out->names[n] = strdup(""))) goto oom;
    if (run_count(d, KERNEL_COUNT, out->id, &out->total_kernels, err, errlen)) goto fail;
    return 0;
oom:
    seterr(err, errlen, "stream pyramid: out of memory");
fail:
    spyr_info_free(out);
    return -1;
}

void spyr_bins_free(spyr_bins *b) {
    free(b->kernel_ns);
    free(b->thread_ns);
    free(b->max_kernels);
    free(b->max_threads);
    memset(b, 0, sizeof *b);
}

static bool bit(const uint8_t *bits, int64_t i) {
    return !bits || (bits[i >> 3] >> (i & 7) & 1);
}

int db_spyramid_bins(db *d, const spyr_info *info, int64_t from, int64_t to, int64_t want,
                     const uint8_t *shown, spyr_bins *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    lvl_window w;
    if (lvl_window_args("stream bins", from, to, want, err, errlen)) return -1;
    int wrc = lvl_window_of("stream bins", from, to, want, info->z0, info->ztop, SPYR_MAX_Z,
                            SPYR_MAX_BINS, &w, err, errlen);
    if (wrc) return wrc;
    int z = w.z;
    out->z = z, out->bin_ns = w.bin_ns, out->k0 = w.k0, out->nbins = w.nbins;
    out->nlanes = info->nlanes;
    out->max_exact = true;
    size_t ncell = info->nlanes * out->nbins + 1;
    out->kernel_ns = calloc(ncell, sizeof *out->kernel_ns);
    out->thread_ns = calloc(ncell, sizeof *out->thread_ns);
    out->max_kernels = calloc(ncell, sizeof *out->max_kernels);
    out->max_threads = calloc(ncell, sizeof *out->max_threads);
    /* per lane: names it has, names of them shown */
    size_t *has = calloc(2 * info->nlanes + 1, sizeof *has);
    int64_t *lmax = calloc(2 * ncell, sizeof *lmax);   /* the whole lane's maxima */
    unsigned char *use = NULL;
    sqlite3_stmt *st = NULL;
    int rc;
    if (!out->kernel_ns || !out->thread_ns || !out->max_kernels || !out->max_threads || !has || !lmax)
        goto oom;
    if (info->z0 > info->ztop) goto done;   /* no kernel with known times */
    /* which cells to read: a lane with every name shown reads its whole
     * cell (exact maxima), one with some shown its shown names' cells */
    if (prepare(d, "SELECT cell, lane, name FROM stream_cells WHERE run = ?1 ORDER BY cell", &st,
                err, errlen))
        goto fail;
    sqlite3_bind_int64(st, 1, info->id);
    size_t cap = 0, n = 0;
    int64_t *cl = NULL;   /* 2 per cell: lane, name */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 256;
            int64_t *ncl = realloc(cl, nc * 2 * sizeof *ncl);
            if (!ncl) { free(cl); goto oom; }
            cl = ncl, cap = nc;
        }
        int64_t lane = sqlite3_column_int64(st, 1), name = sqlite3_column_int64(st, 2);
        if (lane < 0 || (size_t)lane >= info->nlanes || name >= (int64_t)info->nnames) lane = -1;
        cl[2 * n] = lane, cl[2 * n + 1] = name;
        n++;
        if (lane >= 0 && name >= 0) {
            has[2 * lane]++;
            if (bit(shown, name)) has[2 * lane + 1]++;
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc != SQLITE_DONE) { free(cl); sqlfail(d, "stream_cells", err, errlen); goto fail; }
    /* use[c]: 1 sum into the lane, 2 the lane's whole cell for the cap */
    use = calloc(n + 1, 1);
    if (!use) { free(cl); goto oom; }
    for (size_t c = 0; c < n; c++) {
        int64_t lane = cl[2 * c], name = cl[2 * c + 1];
        if (lane < 0) continue;
        bool all = has[2 * lane + 1] == has[2 * lane], none = has[2 * lane + 1] == 0;
        if (name < 0) use[c] = all ? 1 : none ? 0 : 2;
        else use[c] = !all && bit(shown, name);
        if (name < 0 && !all && !none) out->max_exact = false;
    }
    /* the stored level: z itself, or ztop whose bins sum into coarser ones */
    int zs = z > info->ztop ? info->ztop : z;
    int sh = z - zs;
    if (prepare(d, "SELECT cell, k0, bins FROM stream_bins WHERE run = ?1 AND z = ?2", &st, err,
                errlen)) {
        free(cl);
        goto fail;
    }
    sqlite3_bind_int64(st, 1, info->id);
    sqlite3_bind_int(st, 2, zs);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t c = sqlite3_column_int64(st, 0);
        if (c < 0 || (size_t)c >= n || !use[c]) continue;
        size_t lane = (size_t)cl[2 * c];
        size_t len = (size_t)sqlite3_column_bytes(st, 2);
        const unsigned char *p = sqlite3_column_blob(st, 2);
        int64_t lk0 = sqlite3_column_int64(st, 1);
        /* a bin takes NV bytes at least */
        int64_t *v = malloc((len / NV + 1) * NV * sizeof *v);
        /* bins past the window's last are not decoded */
        int64_t need = (out->k0 + (int64_t)out->nbins) * ((int64_t)1 << sh) - lk0;
        int64_t nv = v && need > 0 ? vi_series_get(p, len, v, len / NV + 1, (size_t)need, NV) : v ? 0 : -1;
        if (nv < 0) {
            free(v);
            free(cl);
            if (!v) goto oom;
            seterr(err, errlen, "%s: stream_bins: run %lld cell %lld level %d: damaged bins",
                   d->path, (long long)info->id, (long long)c, zs);
            goto fail;
        }
        for (size_t i = 0; i < out->nbins; i++) {
            int64_t x[NV];
            lvl_fold(&k_kind, NULL, v, lk0, nv, zs, sh, out->k0 + (int64_t)i, x);
            int64_t kn = x[0], tn = x[1], mk = x[2], mt = x[3];
            size_t o = lane * out->nbins + i;
            if (use[c] == 2) {
                lmax[2 * o] = mk, lmax[2 * o + 1] = mt;
                continue;
            }
            out->kernel_ns[o] += kn, out->thread_ns[o] += tn;
            /* one cell per lane when all are shown: its maxima; else the
             * sum of the shown names' maxima, capped below */
            out->max_kernels[o] += mk, out->max_threads[o] += mt;
        }
        free(v);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc != SQLITE_DONE) { free(cl); sqlfail(d, "stream_bins", err, errlen); goto fail; }
    for (size_t c = 0; c < n; c++) {
        if (use[c] != 2) continue;
        size_t lane = (size_t)cl[2 * c];
        for (size_t i = 0; i < out->nbins; i++) {
            size_t o = lane * out->nbins + i;
            if (out->max_kernels[o] > lmax[2 * o]) out->max_kernels[o] = lmax[2 * o];
            if (out->max_threads[o] > lmax[2 * o + 1]) out->max_threads[o] = lmax[2 * o + 1];
        }
    }
    free(cl);
done:
    free(has);
    free(lmax);
    free(use);
    return 0;
oom:
    seterr(err, errlen, "stream bins: out of memory");
fail:
    sqlite3_finalize(st);
    free(has);
    free(lmax);
    free(use);
    spyr_bins_free(out);
    return -1;
}

/* One row of a window read into out (false: out of memory). */
typedef bool (*row_fn)(trace *out, const strmap *m, sqlite3_stmt *st);

/* A window's rows (kernels or copies) from the chunk index of `pyr_sql`
 * (one blob column, ?1 the run) and the id-range read `rows_sql` (?1 run,
 * ?2 / ?3 the id range, ?4 from, ?5 to; the row's id in column `idcol`):
 * see db_spyramid_kernels. `nrows`: the run's rows of that kind, where
 * its id range ends. */
static int window_rows(db *d, int64_t id, int64_t nrows, const char *what,
                       const char *pyr_sql, const char *rows_sql, row_fn row, int idcol,
                       int64_t from, int64_t to, int64_t max, trace *out, int64_t **ids,
                       size_t *n, char *err, size_t errlen) {
    *ids = NULL;
    *n = 0;
    /* a trace of several GPUs: its records say theirs, as in the export */
    if (!out->devices.n && dbi_load_gpus(d, id, out, err, errlen)) return -1;
    sqlite3_stmt *st;
    if (prepare(d, pyr_sql, &st, err, errlen)) return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sqlfail(d, what, err, errlen);
    }
    size_t len = (size_t)sqlite3_column_bytes(st, 0), nch = len / (CW * 8);
    const unsigned char *p = sqlite3_column_blob(st, 0);
    int64_t *ch = malloc((CW * nch + 1) * sizeof *ch);
    if (!ch) {
        sqlite3_finalize(st);
        seterr(err, errlen, "%s window: out of memory", what);
        return -1;
    }
    for (size_t c = 0; c < nch; c++)   /* chunk by chunk, CW words each */
        for (size_t i = CW * c; i < CW * c + CW; i++) {
            uint64_t u = 0;
            for (int b = 0; b < 8; b++) u |= (uint64_t)p[8 * i + b] << (8 * b);
            ch[i] = (int64_t)u;
        }
    sqlite3_finalize(st);
    st = NULL;
    strmap m = {NULL, 0};
    size_t cap = 0;
    /* the rows of chunks strictly inside the window surely overlap it:
     * past max, no row is read (a zoomed-out window answers bins at once) */
    int64_t sure = 0;
    for (size_t c = 0; c < nch; c++)
        if (ch[CW * c] > from && ch[CW * c + 1] < to) sure += ch[CW * c + 2];
    if (sure > max) {
        free(ch);
        *n = (size_t)max + 1;
        return 0;
    }
    rc = -1;
    if (dbi_load_strings(d, id, out, &m, err, errlen)) goto out;
    if (prepare(d, rows_sql, &st, err, errlen)) goto out;
    /* runs of consecutive chunks overlapping the window, one range read each */
    for (size_t c = 0; c < nch && (int64_t)*n <= max;) {
        if (!(ch[CW * c] < to && ch[CW * c + 1] > from)) { c++; continue; }
        size_t e = c + 1;
        while (e < nch && ch[CW * e] < to && ch[CW * e + 1] > from) e++;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        /* the last chunk ends at the run's last row: past it the rowids
         * are the next run's (row_ranges.h: hi <= n_kernels / n_copies) */
        int64_t hi = (int64_t)e * SPYR_CHUNK;
        if (hi > nrows) hi = nrows;
        sqlite3_bind_int64(st, 2, (int64_t)c * SPYR_CHUNK);
        sqlite3_bind_int64(st, 3, hi);
        sqlite3_bind_int64(st, 4, from);
        sqlite3_bind_int64(st, 5, to);
        int src = SQLITE_DONE;   /* read only after a step (the loop runs one while *n <= max) */
        while ((int64_t)*n <= max && (src = sqlite3_step(st)) == SQLITE_ROW) {
            if (*n == cap) {
                size_t nc = cap ? 2 * cap : 256;
                int64_t *ni = realloc(*ids, nc * sizeof *ni);
                if (!ni) goto oom;
                *ids = ni, cap = nc;
            }
            if (!row(out, &m, st)) goto oom;
            (*ids)[(*n)++] = sqlite3_column_int64(st, idcol);
        }
        if ((int64_t)*n <= max && src != SQLITE_DONE) {
            sqlfail(d, what, err, errlen);
            goto out;
        }
        c = e;
    }
    rc = 0;
    goto out;
oom:
    seterr(err, errlen, "%s window: out of memory", what);
out:
    sqlite3_finalize(st);
    free(m.v);
    free(ch);
    if (rc) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}

int db_spyramid_kernels(db *d, const spyr_info *info, int64_t from, int64_t to, int64_t max,
                        trace *out, int64_t **ids, size_t *n, char *err, size_t errlen) {
    /* the one read of a window's kernels */
    return window_rows(d, info->id, info->total_kernels, "kernels",
                       "SELECT chunks FROM stream_pyramids WHERE run = ?1",
                       "SELECT " DBI_KERNEL_COLS ", " DBI_KERNEL_ID " FROM kernels WHERE "
                       DBI_KERNEL_IDS("?2", "?3") " AND stop > ?4 AND coalesce(first_block, issue) < ?5 "
                       "ORDER BY rowid",
                       dbi_row_kernel, DBI_KERNEL_NCOLS, from, to, max, out, ids, n, err, errlen);
}

/* ---- copies ---------------------------------------------------------------------------
 * The copy lanes of kernel-level traces (spyramid.sql's copy_* tables):
 * per copy engine and per (engine, direction), the integral of running
 * copies and their most at once, by the kernels' grid and code. */

static int copy_dir(int64_t d) {
    return d < 0 || d >= SPYR_COPY_DIRS ? SPYR_COPY_DIRS - 1 : (int)d;
}

int dbi_spyramid_copies_build(db *d, int64_t id, char *err, size_t errlen) {
    static const char *const del[] = {
        "DELETE FROM copy_bins WHERE run = ?1",
        "DELETE FROM copy_cells WHERE run = ?1",
        "DELETE FROM copy_pyramids WHERE run = ?1",
    };
    for (size_t i = 0; i < sizeof del / sizeof *del; i++)
        if (exec_bind(d, del[i], id, err, errlen)) return -1;
    imap cmap = {0};
    sbuild b;   /* lane: the engine's cell, ncell: the (engine, direction) cell */
    sb_init(&b, "copy pyramid");
    sqlite3_stmt *st = NULL;
    int rc = -1;
    /* the one read of a run's copies here */
    if (prepare(d, "SELECT " DBI_COPY_ID ", engine, direction, start, stop FROM copies WHERE "
                   DBI_COPIES_OF_RUN " ORDER BY rowid",
                &st, err, errlen))
        goto out;
    sqlite3_bind_int64(st, 1, id);
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t cid = sqlite3_column_int64(st, 0);
        int64_t eng = sqlite3_column_int64(st, 1);
        if (eng < 0 || eng > INT32_MAX) eng = 0;   /* no engine: lane 0, as the timeline draws it */
        int dir = copy_dir(sqlite3_column_int64(st, 2));
        int64_t start = col_t(st, 3), end = col_t(st, 4);
        if (start == TRACE_NONE || end == TRACE_NONE || end < start) continue;
        bool fresh;
        int64_t whole = imap_get(&cmap, (uint64_t)eng << 8, &fresh);
        int64_t dcell = whole < 0 ? -1 : imap_get(&cmap, (uint64_t)eng << 8 | (uint64_t)(dir + 1), &fresh);
        if (dcell < 0) goto oom;
        if (!sb_add(&b, cid, (skern){start, end, 0, (uint32_t)whole, (uint32_t)dcell})) goto oom;
    }
    if (src != SQLITE_DONE) { sqlfail(d, "copies", err, errlen); goto out; }
    sqlite3_finalize(st);
    st = NULL;

    if (!sb_cells(&b, cmap.n)) goto oom;
    for (size_t i = 0; i < cmap.cap; i++) {
        if (cmap.v[i] == UINT32_MAX) continue;
        scell *C = &b.cells[cmap.v[i]];
        C->lane = (uint32_t)(cmap.k[i] >> 8);                 /* the engine */
        C->name = (int32_t)(cmap.k[i] & 0xff) - 1;           /* the direction, -1: all */
    }
    static const sb_tables tables = {
        CNV,
        "INSERT INTO copy_bins(run, z, cell, k0, bins) VALUES (?1, ?2, ?3, ?4, ?5)",
        "INSERT INTO copy_cells(run, cell, engine, direction) VALUES (?1, ?2, ?3, ?4)",
        "copy_cells",
        "INSERT INTO copy_pyramids(run, z0, ztop, ncells, ncopies, t_min, t_max, chunks) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        "copy_pyramids",
    };
    rc = sb_store(d, id, &b, &tables, NULL, 0, err, errlen);
    goto out;
oom:
    sb_oom(&b, err, errlen);
out:
    sqlite3_finalize(st);
    imap_free(&cmap);
    sb_free(&b);
    return rc;
}

/* as info_row, the copy_pyramids row */
static int copy_info_row(db *d, void *ctx, bool *has, char *err, size_t errlen) {
    cpyr_info *out = ctx;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT z0, ztop, ncopies, t_min, t_max FROM copy_pyramids WHERE run = ?1", &st,
                err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, out->id);
    int rc = sqlite3_step(st);
    *has = rc == SQLITE_ROW;
    if (*has) {
        out->z0 = sqlite3_column_int(st, 0);
        out->ztop = sqlite3_column_int(st, 1);
        out->ncopies = sqlite3_column_int64(st, 2);
        out->t_min = col_t(st, 3);
        out->t_max = col_t(st, 4);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sqlfail(d, "copy_pyramids", err, errlen);
}

static int copy_info_build(db *d, void *ctx, char *err, size_t errlen) {
    return dbi_spyramid_copies_build(d, ((cpyr_info *)ctx)->id, err, errlen);
}

int db_spyramid_copy_count(db *d, const char *run, int64_t *n, char *err, size_t errlen) {
    int64_t id;
    int rc = dbi_lookup_id(d, "runs", run, &id, err, errlen);
    return rc ? rc : run_count(d, COPY_COUNT, id, n, err, errlen);
}

/* the tables its build writes (dbi_build_once) */
static const char *const cpyr_tables[] = {"copy_bins", "copy_cells", "copy_pyramids", NULL};

int db_spyramid_copy_info(db *d, const char *run, cpyr_info *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    int rc = dbi_lookup_id(d, "runs", run, &out->id, err, errlen);
    if (rc) return rc;
    if (dbi_build_once(d, "cpyramid_build", cpyr_tables, copy_info_row, copy_info_build, out, err,
                       errlen))
        return -1;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT DISTINCT engine FROM copy_cells WHERE run = ?1 ORDER BY engine", &st, err,
                errlen))
        return -1;
    sqlite3_bind_int64(st, 1, out->id);
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->nengines == cap) {
            size_t nc = cap ? 2 * cap : 8;
            int64_t *ne = realloc(out->engines, nc * sizeof *ne);
            if (!ne) {
                sqlite3_finalize(st);
                seterr(err, errlen, "copy pyramid: out of memory");
                cpyr_info_free(out);
                return -1;
            }
            out->engines = ne, cap = nc;
        }
        out->engines[out->nengines++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        sqlfail(d, "copy_cells", err, errlen);
        cpyr_info_free(out);
        return -1;
    }
    if (run_count(d, COPY_COUNT, out->id, &out->total_copies, err, errlen)) {
        cpyr_info_free(out);
        return -1;
    }
    return 0;
}

void cpyr_info_free(cpyr_info *i) {
    free(i->engines);
    memset(i, 0, sizeof *i);
}

void cpyr_bins_free(cpyr_bins *b) {
    free(b->copy_ns);
    free(b->max_copies);
    free(b->dir_ns);
    memset(b, 0, sizeof *b);
}

int db_spyramid_copy_bins(db *d, const cpyr_info *info, int64_t from, int64_t to, int64_t want,
                          cpyr_bins *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    lvl_window w;
    if (lvl_window_args("copy bins", from, to, want, err, errlen)) return -1;
    int wrc = lvl_window_of("copy bins", from, to, want, info->z0, info->ztop, SPYR_MAX_Z,
                            SPYR_MAX_BINS, &w, err, errlen);
    if (wrc) return wrc;
    int z = w.z;
    out->z = z, out->bin_ns = w.bin_ns, out->k0 = w.k0, out->nbins = w.nbins;
    out->nlanes = info->nengines;
    size_t nc = out->nlanes * out->nbins + 1;
    out->copy_ns = calloc(nc, sizeof *out->copy_ns);
    out->max_copies = calloc(nc, sizeof *out->max_copies);
    out->dir_ns = calloc(nc * SPYR_COPY_DIRS, sizeof *out->dir_ns);
    if (!out->copy_ns || !out->max_copies || !out->dir_ns) {
        cpyr_bins_free(out);
        seterr(err, errlen, "copy bins: out of memory");
        return -1;
    }
    if (info->z0 > info->ztop) return 0;   /* no copy with known times */
    int zs = z > info->ztop ? info->ztop : z;
    int sh = z - zs;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT b.cell, c.engine, c.direction, b.k0, b.bins FROM copy_bins b "
                   "JOIN copy_cells c ON c.run = b.run AND c.cell = b.cell "
                   "WHERE b.run = ?1 AND b.z = ?2",
                &st, err, errlen)) {
        cpyr_bins_free(out);
        return -1;
    }
    sqlite3_bind_int64(st, 1, info->id);
    sqlite3_bind_int(st, 2, zs);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t c = sqlite3_column_int64(st, 0), eng = sqlite3_column_int64(st, 1);
        int64_t dir = sqlite3_column_int64(st, 2), lk0 = sqlite3_column_int64(st, 3);
        size_t lane = 0;
        while (lane < info->nengines && info->engines[lane] != eng) lane++;
        if (lane == info->nengines || dir < -1 || dir >= SPYR_COPY_DIRS) continue;
        size_t len = (size_t)sqlite3_column_bytes(st, 4);
        const unsigned char *p = sqlite3_column_blob(st, 4);
        int64_t *v = malloc((len / CNV + 1) * CNV * sizeof *v);
        int64_t need = (out->k0 + (int64_t)out->nbins) * ((int64_t)1 << sh) - lk0;
        int64_t nv = v && need > 0 ? vi_series_get(p, len, v, len / CNV + 1, (size_t)need, CNV) : v ? 0 : -1;
        if (nv < 0) {
            sqlite3_finalize(st);
            if (v) seterr(err, errlen, "%s: copy_bins: run %lld cell %lld level %d: damaged bins",
                          d->path, (long long)info->id, (long long)c, zs);
            else seterr(err, errlen, "copy bins: out of memory");
            free(v);
            cpyr_bins_free(out);
            return -1;
        }
        for (size_t i = 0; i < out->nbins; i++) {
            int64_t x[CNV];
            lvl_fold(&c_kind, NULL, v, lk0, nv, zs, sh, out->k0 + (int64_t)i, x);
            int64_t sum = x[0], mx = x[1];
            size_t o = lane * out->nbins + i;
            if (dir < 0) out->copy_ns[o] = sum, out->max_copies[o] = mx;
            else out->dir_ns[(lane * SPYR_COPY_DIRS + (size_t)dir) * out->nbins + i] = sum;
        }
        free(v);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        cpyr_bins_free(out);
        return sqlfail(d, "copy_bins", err, errlen);
    }
    return 0;
}

int db_spyramid_copies(db *d, const cpyr_info *info, int64_t from, int64_t to, int64_t max,
                       trace *out, int64_t **ids, size_t *n, char *err, size_t errlen) {
    /* the one read of a window's copies */
    return window_rows(d, info->id, info->total_copies, "copies",
                       "SELECT chunks FROM copy_pyramids WHERE run = ?1",
                       "SELECT " DBI_COPY_COLS ", " DBI_COPY_ID " FROM copies WHERE "
                       DBI_COPY_IDS("?2", "?3") " AND stop > ?4 AND start < ?5 AND stop >= start "
                       "ORDER BY rowid",
                       dbi_row_copy, DBI_COPY_NCOLS, from, to, max, out, ids, n, err, errlen);
}
