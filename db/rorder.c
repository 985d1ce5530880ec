/* rorder.c -- a run's kernels or copies a page at a time in any column's
 * order (rorder.h, rorder.sql): each order computed once as the run's
 * permutation of ids and stored in pages of ROR_PAGE_IDS ids. */
#include "rorder.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "row_ranges.h"

#define V_DESC 16      /* variant bits (rorder.sql) */
#define V_BY_NAME 32

/* A sort column: its name, the SQL expression of its value (NULL: the id),
 * the field's kind and jkind (simcore/trace_fields.h), its number (0: a
 * field that is not a sort column, but for the id). */
typedef struct ror_col {
    const char *key, *expr, *kind, *jkind;
    int sort;
} ror_col;

#define ROR_COL(col, member, kind, check, json, jkind, when, sort) {#json, #col, #kind, #jkind, sort},
static const ror_col kernel_cols[] = {
    {"id", NULL, "", "", ROR_K_ID},
    TRACE_KERNEL_FIELDS(ROR_COL, TF_NOSEP)
    /* the table's response: end - issue, else end - first block (NULL
     * when either is unknown, as col_t reads it) */
    {"response", "stop - coalesce(issue, first_block)", "TF_TIME", "TJ_TIME", ROR_K_RESPONSE},
};
static const ror_col copy_cols[] = {
    {"id", NULL, "", "", ROR_C_ID},
    TRACE_COPY_FIELDS(ROR_COL, TF_NOSEP)
};
_Static_assert(ROR_K_N <= 16 && ROR_C_N <= 16, "a key is the variant's low 4 bits");

/* kind's sort column number key, NULL when none is */
static const ror_col *col_of(ror_kind kind, int key) {
    const ror_col *v = kind == ROR_KERNELS ? kernel_cols : copy_cols;
    size_t n = kind == ROR_KERNELS ? sizeof kernel_cols / sizeof *kernel_cols
                                   : sizeof copy_cols / sizeof *copy_cols;
    if (key == 0) return &v[0];
    for (size_t i = 1; i < n; i++)
        if (v[i].sort == key) return &v[i];
    return NULL;
}

static int key_count(ror_kind kind) { return kind == ROR_KERNELS ? ROR_K_N : ROR_C_N; }

int ror_key_parse(ror_kind kind, const char *s) {
    for (int i = 0; s && i < key_count(kind); i++) {
        const ror_col *c = col_of(kind, i);
        if (c && !strcmp(s, c->key)) return i;
    }
    return -1;
}

const char *ror_key_list(ror_kind kind, char *buf, size_t len) {
    size_t n = 0;
    if (!len) return buf;
    buf[0] = '\0';
    for (int i = 0; i < key_count(kind); i++) {
        const ror_col *c = col_of(kind, i);
        if (!c) continue;
        int w = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", c->key);
        if (w < 0 || (size_t)w >= len - n) {
            buf[n] = '\0';   /* the list ends at the last whole name */
            break;
        }
        n += (size_t)w;
    }
    return buf;
}

/* a text column (by ror_strcmp): a string field, a copy's direction (by
 * its name) */
static bool is_text(const ror_col *c) {
    return !strcmp(c->kind, "TF_STR") || !strcmp(c->jkind, "TJ_DIR");
}

int ror_strcmp(const char *a, const char *b) {
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    while (*p && *q) {
        if (isdigit(*p) && isdigit(*q)) {
            /* a run of digits by its value: fewer significant digits first */
            while (*p == '0') p++;
            while (*q == '0') q++;
            size_t lp = 0, lq = 0;
            while (isdigit(p[lp])) lp++;
            while (isdigit(q[lq])) lq++;
            if (lp != lq) return lp < lq ? -1 : 1;
            int c = memcmp(p, q, lp);
            if (c) return c < 0 ? -1 : 1;
            p += lp, q += lq;
        } else {
            if (*p != *q) return *p < *q ? -1 : 1;
            p++, q++;
        }
    }
    if (*p || *q) return *p ? 1 : -1;
    int c = strcmp(a, b);   /* "01" and "1": equal by value, told apart bytewise */
    return c < 0 ? -1 : c > 0;
}

/* ---- building an order ---------------------------------------------------------------- */

/* One row while sorting: its group (name rank when grouped by name, else
 * 0), its value (a text column: the scratch trace's string id, then its
 * rank), whether it has none, its id. */
typedef struct ror_row {
    int64_t v;
    uint32_t g, id;
    bool null;
} ror_row;

static int cmp_rows(const ror_row *a, const ror_row *b, bool desc) {
    if (a->g != b->g) return a->g < b->g ? -1 : 1;
    if (a->null != b->null) return a->null ? 1 : -1;   /* no value: last either way */
    if (!a->null && a->v != b->v) return (a->v < b->v) != desc ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;         /* ties: by id, either way */
}
static int cmp_asc(const void *a, const void *b) { return cmp_rows(a, b, false); }
static int cmp_desc(const void *a, const void *b) { return cmp_rows(a, b, true); }

/* a string and its id, to rank the strings by ror_strcmp */
typedef struct ror_str {
    const char *s;
    uint32_t id;
} ror_str;
static int cmp_strs(const void *a, const void *b) {
    return ror_strcmp(((const ror_str *)a)->s, ((const ror_str *)b)->s);
}

/* rank[id] (1-based) of every string of t by ror_strcmp; NULL: out of memory */
static uint32_t *rank_strings(const trace *t) {
    size_t n = t->strs.n;
    uint32_t *rank = calloc(n + 1, sizeof *rank);
    ror_str *v = malloc((n + 1) * sizeof *v);
    if (!rank || !v) {
        free(rank);
        free(v);
        return NULL;
    }
    size_t m = 0;
    for (size_t i = 1; i < n; i++)
        if (t->strs.v[i]) v[m++] = (ror_str){t->strs.v[i], (uint32_t)i};
    qsort(v, m, sizeof *v, cmp_strs);
    for (size_t i = 0; i < m; i++) rank[v[i].id] = (uint32_t)i + 1;
    free(v);
    return rank;
}

typedef struct ror_build {
    int64_t run, n;       /* runs.id, the rows of the run */
    ror_kind kind;
    int variant;
} ror_build;

/* The rows of the run with the key's value and their name (scratch trace
 * string ids) into rows; 0 or -1. */
static int read_rows(db *d, const ror_build *b, trace *strs, ror_row *rows, uint32_t *names,
                     char *err, size_t errlen) {
    const ror_col *c = col_of(b->kind, b->variant & 15);
    strmap m = {NULL, 0};
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (!c) {
        seterr(err, errlen, "%s: sorting: no sort column %d", d->path, b->variant & 15);
        return -1;
    }
    /* as the table shows a kernel's stream: "process/stream" but in P0 */
    bool shown_stream = b->kind == ROR_KERNELS && c->expr && !strcmp(c->expr, "stream");
    bool text = is_text(c), dir = !strcmp(c->jkind, "TJ_DIR");
    if (dbi_load_strings(d, b->run, strs, &m, err, errlen)) goto out;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT name, process, %s FROM %s WHERE %s ORDER BY rowid",
             c->expr ? c->expr : "NULL", b->kind == ROR_KERNELS ? "kernels" : "copies",
             b->kind == ROR_KERNELS ? DBI_KERNELS_OF_RUN : DBI_COPIES_OF_RUN);
    if (prepare(d, sql, &st, err, errlen)) goto out;
    sqlite3_bind_int64(st, 1, b->run);
    int64_t i = 0;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW && i < b->n) {
        ror_row *r = &rows[i];
        *r = (ror_row){.id = (uint32_t)i};
        names[i] = col_str(&m, st, 0);
        int64_t v = TRACE_NONE;
        if (!c->expr) {
            v = i;
        } else if (dir) {
            v = trace_intern(strs, trace_copy_dir_name((int32_t)sqlite3_column_int64(st, 2)));
            if (!v) v = TRACE_NONE;
        } else if (text) {
            trace_str s = col_str(&m, st, 2);
            const char *proc = shown_stream ? trace_str_get(strs, col_str(&m, st, 1)) : NULL;
            if (proc && strcmp(proc, "P0")) {
                const char *sn = trace_str_get(strs, s);
                size_t lp = strlen(proc), ls = sn ? strlen(sn) : strlen("—");
                char *buf = malloc(lp + ls + 2);
                if (!buf) goto oom;
                memcpy(buf, proc, lp);
                buf[lp] = '/';
                memcpy(buf + lp + 1, sn ? sn : "—", ls + 1);
                s = trace_intern(strs, buf);
                free(buf);
            }
            v = s ? s : TRACE_NONE;
        } else {
            v = col_t(st, 2);   /* a number: NULL (unknown, a priority's none) last */
        }
        if (strs->oom) goto oom;
        r->null = v == TRACE_NONE;
        r->v = r->null ? 0 : v;
        i++;
    }
    if (src != SQLITE_ROW && src != SQLITE_DONE) {
        sqlfail(d, b->kind == ROR_KERNELS ? "kernels" : "copies", err, errlen);
        goto out;
    }
    if (i != b->n) {
        seterr(err, errlen, "%s: run %lld holds %lld %s, not the %lld its row says", d->path,
               (long long)b->run, (long long)i, b->kind == ROR_KERNELS ? "kernels" : "copies",
               (long long)b->n);
        goto out;
    }
    rc = 0;
    goto out;
oom:
    seterr(err, errlen, "%s: sorting %s: out of memory", d->path,
           b->kind == ROR_KERNELS ? "kernels" : "copies");
out:
    sqlite3_finalize(st);
    free(m.v);
    return rc;
}

/* Sorts the run's rows in b's variant and stores the permutation: a
 * dbi_build_fn (under the write lock) */
static int build_order(db *d, void *ctx, char *err, size_t errlen) {
    const ror_build *b = ctx;
    int key = b->variant & 15;
    ror_row *rows = malloc((size_t)(b->n ? b->n : 1) * sizeof *rows);
    uint32_t *names = malloc((size_t)(b->n ? b->n : 1) * sizeof *names);
    uint32_t *rank = NULL;
    unsigned char *blob = malloc(4 * ROR_PAGE_IDS);
    sqlite3_stmt *ins = NULL;
    trace strs;
    trace_init(&strs);
    int rc = -1;
    if (!rows || !names || !blob) {
        seterr(err, errlen, "%s: sorting: out of memory", d->path);
        goto out;
    }
    if (read_rows(d, b, &strs, rows, names, err, errlen)) goto out;
    const ror_col *c = col_of(b->kind, key);
    bool text = c && is_text(c);
    if (text || (b->variant & V_BY_NAME)) {
        if (!(rank = rank_strings(&strs))) {
            seterr(err, errlen, "%s: sorting: out of memory", d->path);
            goto out;
        }
        for (int64_t i = 0; i < b->n; i++) {
            ror_row *r = &rows[i];
            if (text && !r->null) r->v = rank[r->v];
            /* grouped by name: the name's rank, no name last */
            if (b->variant & V_BY_NAME) r->g = names[i] ? rank[names[i]] : UINT32_MAX;
        }
    }
    qsort(rows, (size_t)b->n, sizeof *rows, (b->variant & V_DESC) ? cmp_desc : cmp_asc);
    /* (dbi_build_once holds the write lock and rolls back a failure) */
    if (prepare(d, "INSERT INTO record_orders(run, kind, variant, page, ids) VALUES (?1, ?2, ?3, ?4, ?5)",
                &ins, err, errlen))
        goto out;
    for (int64_t p = 0; p * ROR_PAGE_IDS < b->n; p++) {
        int64_t lo = p * ROR_PAGE_IDS, hi = lo + ROR_PAGE_IDS < b->n ? lo + ROR_PAGE_IDS : b->n;
        for (int64_t i = lo; i < hi; i++) {
            uint32_t id = rows[i].id;
            unsigned char *o = blob + 4 * (i - lo);
            o[0] = (unsigned char)id, o[1] = (unsigned char)(id >> 8);
            o[2] = (unsigned char)(id >> 16), o[3] = (unsigned char)(id >> 24);
        }
        sqlite3_reset(ins);
        sqlite3_bind_int64(ins, 1, b->run);
        sqlite3_bind_int(ins, 2, (int)b->kind);
        sqlite3_bind_int(ins, 3, b->variant);
        sqlite3_bind_int64(ins, 4, p);
        sqlite3_bind_blob(ins, 5, blob, (int)(4 * (hi - lo)), SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            sqlfail(d, "record_orders", err, errlen);
            goto out;
        }
    }
    rc = 0;
out:
    sqlite3_finalize(ins);
    trace_free(&strs);
    free(rank);
    free(rows);
    free(names);
    free(blob);
    return rc;
}

/* whether b's order is stored: a dbi_look_fn */
static int look_order(db *d, void *ctx, bool *has, char *err, size_t errlen) {
    const ror_build *b = ctx;
    sqlite3_stmt *st;
    if (prepare(d, "SELECT 1 FROM record_orders WHERE run = ?1 AND kind = ?2 AND variant = ?3 "
                   "AND page = 0",
                &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, b->run);
    sqlite3_bind_int(st, 2, (int)b->kind);
    sqlite3_bind_int(st, 3, b->variant);
    int rc = sqlite3_step(st);
    *has = rc == SQLITE_ROW;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sqlfail(d, "record_orders", err, errlen);
}

/* ---- reading a page ------------------------------------------------------------------- */

/* A stored permutation, one page row kept */
typedef struct ror_perm {
    db *d;
    const ror_build *b;
    sqlite3_stmt *st;
    int64_t page;              /* the page in ids (-1: none) */
    bool by_id;                /* the id order itself (no filter): nothing stored */
    uint32_t ids[ROR_PAGE_IDS];
    size_t n;
} ror_perm;

/* the id at position pos (0 <= pos < b->n) into *id */
static int perm_at(ror_perm *p, int64_t pos, uint32_t *id, char *err, size_t errlen) {
    if (p->by_id) {
        *id = (uint32_t)((p->b->variant & V_DESC) ? p->b->n - 1 - pos : pos);
        return 0;
    }
    int64_t page = pos / ROR_PAGE_IDS;
    if (page != p->page) {
        sqlite3_reset(p->st);
        sqlite3_bind_int64(p->st, 1, p->b->run);
        sqlite3_bind_int(p->st, 2, (int)p->b->kind);
        sqlite3_bind_int(p->st, 3, p->b->variant);
        sqlite3_bind_int64(p->st, 4, page);
        int rc = sqlite3_step(p->st);
        if (rc != SQLITE_ROW) {
            if (rc == SQLITE_DONE)
                seterr(err, errlen, "%s: record_orders: page %lld of an order of run %lld is missing",
                       p->d->path, (long long)page, (long long)p->b->run);
            else sqlfail(p->d, "record_orders", err, errlen);
            return -1;
        }
        const unsigned char *v = sqlite3_column_blob(p->st, 0);
        size_t len = (size_t)sqlite3_column_bytes(p->st, 0) / 4;
        p->n = len < ROR_PAGE_IDS ? len : ROR_PAGE_IDS;
        for (size_t i = 0; i < p->n; i++)
            p->ids[i] = (uint32_t)v[4 * i] | (uint32_t)v[4 * i + 1] << 8 |
                        (uint32_t)v[4 * i + 2] << 16 | (uint32_t)v[4 * i + 3] << 24;
        p->page = page;
        sqlite3_reset(p->st);
    }
    size_t k = (size_t)(pos % ROR_PAGE_IDS);
    if (k >= p->n) {
        seterr(err, errlen, "%s: record_orders: page %lld of an order of run %lld is short",
               p->d->path, (long long)page, (long long)p->b->run);
        return -1;
    }
    *id = p->ids[k];
    return 0;
}

/* The first position in [0, n) of a by-name order whose row's name is
 * after `name` (after: past the last equal to it) or not before it; rows
 * without a name are after every name. */
static int name_bound(ror_perm *p, sqlite3_stmt *nst, const char *name, bool after,
                      int64_t *out, char *err, size_t errlen) {
    int64_t lo = 0, hi = p->b->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        uint32_t id;
        if (perm_at(p, mid, &id, err, errlen)) return -1;
        sqlite3_reset(nst);
        sqlite3_bind_int64(nst, 1, p->b->run);
        sqlite3_bind_int64(nst, 2, id);
        int rc = sqlite3_step(nst);
        if (rc != SQLITE_ROW) return sqlfail(p->d, "kernel names", err, errlen);
        const char *s = col_s(nst, 0);
        int c = s ? ror_strcmp(s, name) : 1;
        if (after ? c <= 0 : c < 0) lo = mid + 1;
        else hi = mid;
    }
    sqlite3_reset(nst);
    *out = lo;
    return 0;
}

/* the tables its build writes (dbi_build_once) */
static const char *const order_tables[] = {"record_orders", NULL};

int db_rorder_page(db *d, const char *run, const ror_query *q, trace *out, int64_t **ids,
                   size_t *n, int64_t *total, char *err, size_t errlen) {
    *ids = NULL;
    *n = 0;
    *total = 0;
    ror_build b = {.kind = q->kind, .variant = q->key | (q->desc ? V_DESC : 0) | (q->name ? V_BY_NAME : 0)};
    int rc = dbi_lookup_id(d, "runs", run, &b.run, err, errlen);
    if (rc) return rc;
    /* a trace of several GPUs: its records say theirs, as in every list */
    if (!out->devices.n && dbi_load_gpus(d, b.run, out, err, errlen)) return -1;
    sqlite3_stmt *st = NULL;
    if (prepare(d, q->kind == ROR_KERNELS ? "SELECT n_kernels FROM runs WHERE id = ?1"
                                          : "SELECT n_copies FROM runs WHERE id = ?1",
                &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, b.run);
    rc = sqlite3_step(st);
    b.n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    st = NULL;
    if (rc != SQLITE_ROW) return sqlfail(d, "runs", err, errlen);
    if (b.n == 0) return 0;
    /* by id, unfiltered: position is id (or n - 1 - id), no order to store */
    bool by_id = q->key == 0 && !q->name;
    if (!by_id && dbi_build_once(d, "rorder_build", order_tables, look_order, build_order, &b, err,
                                 errlen))
        return -1;

    ror_perm *p = malloc(sizeof *p);
    sqlite3_stmt *nst = NULL;
    strmap m = {NULL, 0};
    rc = -1;
    if (!p) {
        seterr(err, errlen, "%s: a page of rows: out of memory", d->path);
        return -1;
    }
    *p = (ror_perm){.d = d, .b = &b, .page = -1, .by_id = by_id};
    if (prepare(d, "SELECT ids FROM record_orders WHERE run = ?1 AND kind = ?2 AND variant = ?3 "
                   "AND page = ?4",
                &p->st, err, errlen))
        goto out;
    /* the positions of the matching rows: all, or one name's range */
    int64_t lo = 0, hi = b.n;
    if (q->name) {
        if (prepare(d, q->kind == ROR_KERNELS
                           ? "SELECT s.text FROM kernels k LEFT JOIN strings s ON s.run = ?1 AND "
                             "s.id = k.name WHERE k.rowid = (SELECT kernel_base FROM runs WHERE "
                             "id = ?1) + ?2"
                           : "SELECT s.text FROM copies c LEFT JOIN strings s ON s.run = ?1 AND "
                             "s.id = c.name WHERE c.rowid = (SELECT copy_base FROM runs WHERE "
                             "id = ?1) + ?2",
                    &nst, err, errlen) ||
            name_bound(p, nst, q->name, false, &lo, err, errlen) ||
            name_bound(p, nst, q->name, true, &hi, err, errlen))
            goto out;
    }
    *total = hi - lo;
    int64_t from = lo + q->offset < hi ? lo + q->offset : hi;
    int64_t to = from + q->limit < hi ? from + q->limit : hi;
    if (from == to) {
        rc = 0;
        goto out;
    }
    if (!(*ids = malloc((size_t)(to - from) * sizeof **ids))) {
        seterr(err, errlen, "%s: a page of rows: out of memory", d->path);
        goto out;
    }
    if (dbi_load_strings(d, b.run, out, &m, err, errlen)) goto out;
    if (prepare(d, q->kind == ROR_KERNELS
                       ? "SELECT " DBI_KERNEL_COLS " FROM kernels WHERE rowid = "
                         "(SELECT kernel_base FROM runs WHERE id = ?1) + ?2"
                       : "SELECT " DBI_COPY_COLS " FROM copies WHERE rowid = "
                         "(SELECT copy_base FROM runs WHERE id = ?1) + ?2",
                &st, err, errlen))
        goto out;
    for (int64_t pos = from; pos < to; pos++) {
        uint32_t id;
        if (perm_at(p, pos, &id, err, errlen)) goto out;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, b.run);
        sqlite3_bind_int64(st, 2, id);
        if (sqlite3_step(st) != SQLITE_ROW) {
            sqlfail(d, q->kind == ROR_KERNELS ? "kernels" : "copies", err, errlen);
            goto out;
        }
        bool ok = q->kind == ROR_KERNELS ? dbi_row_kernel(out, &m, st) : dbi_row_copy(out, &m, st);
        if (!ok) {
            seterr(err, errlen, "%s: a page of rows: out of memory", d->path);
            goto out;
        }
        (*ids)[(*n)++] = id;
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    sqlite3_finalize(nst);
    sqlite3_finalize(p->st);
    free(p);
    free(m.v);
    if (rc) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}
