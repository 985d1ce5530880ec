/* sqlite_util.c -- shared machinery of the nvprof and nsys SQLite importers:
 * in-memory read-only open, schema questions, the row readers that turn the
 * CUPTI activity tables into trace records, and format sniffing. See
 * sqlite_util.h for the contract. */
#include "sqlite_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "../simcore/fnv.h"
#include "sort_records.h"

/* Timestamps beyond this are not ones a profiler writes (2^62 ns is year
 * 2116 as epoch time); refusing them keeps every difference of two trace
 * times inside int64_t, so re-basing cannot overflow. */
#define IMP_SQL_TMAX ((int64_t)1 << 62)

/* A name longer than this is not a kernel name (alpaka's reach 512 KiB,
 * profiler-trace-formats.md §1.5); the limit bounds what a crafted file can
 * make SQLite allocate for one value. */
#define IMP_SQL_MAX_VALUE (64 * 1024 * 1024)

static const char sqlite_magic[16] = "SQLite format 3";   /* with its NUL */

bool imp_sql_is_sqlite(const unsigned char *data, size_t len) {
    return data && len >= 16 && memcmp(data, sqlite_magic, 16) == 0;
}

int imp_sql_fail(imp_sql *s, const char *table, const char *fmt, ...) {
    char what[512];
    if (table) snprintf(what, sizeof what, ": table %s: ", table);
    va_list ap;
    va_start(ap, fmt);
    imp_verror(s->err, s->errlen, s->file, table ? what : ": ", fmt, ap);
    va_end(ap);
    return -1;
}

/* A file shorter than its own header says (a copy, download or upload that
 * stopped midway): SQLite would answer "database disk image is malformed",
 * which reads as damage, when the cause is a missing end. The header
 * (sqlite.org/fileformat2.html §1.3) gives the page size at offset 16
 * (1 = 65536) and, at 28, the database's size in pages, valid when the
 * "version-valid-for" number at 92 equals the change counter at 24 (every
 * SQLite since 3.7.0 writes it so); an SQLite file is whole pages. Returns
 * whether it is cut short, with what was found in why. */
static bool cut_short(const unsigned char *d, size_t len, char *why, size_t whylen) {
    if (len < 100) return false;
    uint32_t ps = (uint32_t)d[16] << 8 | d[17];
    if (ps == 1) ps = 65536;
    if (ps < 512 || ps > 65536 || (ps & (ps - 1))) return false;
#define BE32(p) ((uint32_t)(p)[0] << 24 | (uint32_t)(p)[1] << 16 | (uint32_t)(p)[2] << 8 | (p)[3])
    uint32_t pages = BE32(d + 28), change = BE32(d + 24), valid_for = BE32(d + 92);
#undef BE32
    uint64_t want = (uint64_t)pages * ps;
    if (pages && valid_for == change && want > len) {
        snprintf(why, whylen, "its header says %u pages of %u bytes (%llu bytes), the file has %zu",
                 pages, ps, (unsigned long long)want, len);
        return true;
    }
    if (len % ps) {
        snprintf(why, whylen, "its %zu bytes are not a whole number of its %u-byte pages", len, ps);
        return true;
    }
    return false;
}

int imp_sql_open(imp_sql *s, const imp_file *f, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    s->file = (f && f->name) ? f->name : "input";
    s->f = f;
    s->err = err;
    s->errlen = errlen;
    if (!f || !imp_sql_is_sqlite(f->data, f->len))
        return imp_sql_fail(s, NULL, "not an SQLite database (the file does not start with "
                                     "\"SQLite format 3\")");
    char why[160];
    if (cut_short(f->data, f->len, why, sizeof why))
        return imp_sql_fail(s, NULL, "the SQLite database is cut short: %s (a copy or download "
                                     "that did not finish?)", why);
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(":memory:", &db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_close(db);
        return imp_sql_fail(s, NULL, "cannot open an in-memory SQLite database: %s",
                            sqlite3_errstr(rc));
    }
    /* The file is someone else's: its schema must not run code for us, and
     * nothing we do may write to it or spill to a temporary file. */
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, IMP_SQL_MAX_VALUE);
    sqlite3_exec(db, "PRAGMA temp_store=MEMORY", NULL, NULL, NULL);
    /* READONLY means SQLite never writes to the buffer, so handing it the
     * caller's const bytes without a copy is sound. */
    unsigned char *bytes = (unsigned char *)(uintptr_t)f->data;
    unsigned flags = SQLITE_DESERIALIZE_READONLY;
    if (f->len >= 20 && (bytes[18] == 2 || bytes[19] == 2)) {
        /* A database last written in WAL mode: the in-memory VFS has no WAL
         * and refuses it, so read a copy marked as rollback-journal (bytes
         * 18-19 of the header); what sat in a -wal file is not in an upload
         * anyway. */
        bytes = sqlite3_malloc64(f->len);
        if (!bytes) {
            sqlite3_close(db);
            return imp_sql_fail(s, NULL, "out of memory");
        }
        memcpy(bytes, f->data, f->len);
        bytes[18] = bytes[19] = 1;
        flags |= SQLITE_DESERIALIZE_FREEONCLOSE;
    }
    rc = sqlite3_deserialize(db, "main", bytes, (sqlite3_int64)f->len, (sqlite3_int64)f->len, flags);
    if (rc != SQLITE_OK) {
        imp_sql_fail(s, NULL, "cannot read the SQLite database: %s", sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    s->db = db;
    /* Reading the schema now turns a damaged file into one clear message
     * before any table is looked at. */
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        imp_sql_fail(s, NULL, "not a readable SQLite database: %s", sqlite3_errmsg(db));
        sqlite3_finalize(st);
        imp_sql_close(s);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

void imp_sql_close(imp_sql *s) {
    if (s->db) sqlite3_close(s->db);
    s->db = NULL;
}

int imp_sql_prepare(imp_sql *s, const char *table, const char *sql, sqlite3_stmt **st) {
    *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
        imp_sql_fail(s, table, "cannot be read: %s", sqlite3_errmsg(s->db));
        sqlite3_finalize(*st);
        *st = NULL;
        return -1;
    }
    return 0;
}

int imp_sql_step(imp_sql *s, const char *table, sqlite3_stmt *st) {
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return rc;
    return imp_sql_fail(s, table, "cannot be read: %s", sqlite3_errmsg(s->db));
}

int imp_sql_has_table(imp_sql *s, const char *table) {
    sqlite3_stmt *st;
    if (imp_sql_prepare(s, NULL,
                        "SELECT 1 FROM sqlite_master WHERE type = 'table'"
                        " AND name = ?1 COLLATE NOCASE AND sql NOT LIKE 'CREATE VIRTUAL%'",
                        &st) < 0)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc = imp_sql_step(s, NULL, st);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : rc == SQLITE_ROW;
}

/* Calls back with each column name of `table`; -1 on a read error. */
static int each_column(imp_sql *s, const char *table,
                       void (*fn)(void *ctx, const char *name), void *ctx) {
    sqlite3_stmt *st;
    if (imp_sql_prepare(s, table, "SELECT name FROM pragma_table_info(?1)", &st) < 0) return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc;
    while ((rc = imp_sql_step(s, table, st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (name) fn(ctx, name);
    }
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

struct mark_ctx { imp_sql_col *cols; size_t n; };

static void mark_col(void *ctx, const char *name) {
    struct mark_ctx *m = ctx;
    for (size_t i = 0; i < m->n; i++)
        if (m->cols[i].name && strcmp(m->cols[i].name, name) == 0) m->cols[i].present = true;
}

static int append(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int append(char *buf, size_t cap, const char *fmt, ...) {
    size_t used = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + used, cap - used, fmt, ap);
    va_end(ap);
    return (n < 0 || (size_t)n >= cap - used) ? -1 : 0;
}

int imp_sql_columns(imp_sql *s, const char *table, const char *alias,
                    imp_sql_col *cols, size_t n, char *sel, size_t selcap) {
    for (size_t i = 0; i < n; i++) cols[i].present = false;
    struct mark_ctx m = { cols, n };
    if (each_column(s, table, mark_col, &m) < 0) return -1;
    for (size_t i = 0; i < n; i++) {
        if (cols[i].required && !cols[i].present)
            return imp_sql_fail(s, table, "column \"%s\" missing", cols[i].name);
        int r = cols[i].present ? append(sel, selcap, ", %s.\"%s\"", alias, cols[i].name)
                                : append(sel, selcap, ", NULL");
        if (r < 0) return imp_sql_fail(s, table, "query too long");
    }
    return 0;
}

/* What an activity row's optional column stands for when the table lacks
 * it (docs/trace-format.md, "Columns an export lacks"). */
static const struct { const char *name, *assumed; } absent_cols[] = {
    { "blockX", "threads per block unknown (no occupancy limit by threads)" },
    { "blockY", "threads per block unknown (no occupancy limit by threads)" },
    { "blockZ", "threads per block unknown (no occupancy limit by threads)" },
    { "registersPerThread", "registers per thread unknown (no occupancy limit by registers)" },
    { "staticSharedMemory", "static shared memory taken as 0 bytes" },
    { "dynamicSharedMemory", "dynamic shared memory taken as 0 bytes" },
    { "streamId", "no stream: the records are not told apart by stream" },
    { "deviceId", "device 0 (CUDA ordinal) taken for every record" },
    { "contextId", "no context: stream priorities not matched" },
    { "copyKind", "each copy's direction taken from srcKind and dstKind, its name \"[CUDA memcpy "
                  "Unknown]\" (the unified-memory and peer-to-peer kinds are copyKind's alone)" },
    { "srcKind", "a copy's direction is its copyKind's alone (one of copyKind 0, unknown, is "
                 "\"other\": served by no copy engine)" },
    { "dstKind", "a copy's direction is its copyKind's alone (one of copyKind 0, unknown, is "
                 "\"other\": served by no copy engine)" },
};

int imp_sql_absent_cols(imp_sql *s, trace *t, const char *table, const imp_sql_col *cols,
                        size_t n) {
    static const char *const grid[3] = { "gridX", "gridY", "gridZ" };
    for (size_t i = 0; i < n; i++) {
        if (!cols[i].name || cols[i].present) continue;
        for (int g = 0; g < 3; g++)
            if (strcmp(cols[i].name, grid[g]) == 0)
                return imp_sql_fail(s, table, "column \"%s\" missing (a kernel's grid gives its "
                                    "blocks: without it the run has none to schedule)",
                                    cols[i].name);
    }
    /* a copy's direction (profiler-trace-formats.md §2.4, §3.3): copyKind
     * is the memcpy's operation (HtoD, DtoH, ..., Nsight's unified-memory
     * kinds 11..13; NOT NULL in Nsight's schema), srcKind and dstKind the
     * memory kinds of its two sides, from which imp_sql_copy_direction
     * gives one where copyKind does not (0, unknown). Without copyKind and
     * either side no copy has a direction: refused, as a grid is. */
    int kind_col[3] = { -1, -1, -1 };
    static const char *const kind_name[3] = { "copyKind", "srcKind", "dstKind" };
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            if (cols[i].name && strcmp(cols[i].name, kind_name[k]) == 0) kind_col[k] = (int)i;
    if (kind_col[0] >= 0 && kind_col[1] >= 0 && kind_col[2] >= 0 && !cols[kind_col[0]].present &&
        (!cols[kind_col[1]].present || !cols[kind_col[2]].present)) {
        bool src = cols[kind_col[1]].present, dst = cols[kind_col[2]].present;
        return imp_sql_fail(s, table, "column%s \"copyKind\"%s%s%s%s missing (a copy's direction "
                            "is its copyKind's, or its srcKind's and dstKind's: without them no "
                            "copy has one)", src && dst ? "" : "s",
                            !src && !dst ? ", " : !src || !dst ? " and " : "",
                            !src ? "\"srcKind\"" : "", !src && !dst ? " and " : "",
                            !dst ? "\"dstKind\"" : "");
    }
    bool ssmem = true, dsmem = true;
    for (size_t i = 0; i < n; i++) {
        if (!cols[i].name) continue;
        if (strcmp(cols[i].name, "staticSharedMemory") == 0) ssmem = cols[i].present;
        if (strcmp(cols[i].name, "dynamicSharedMemory") == 0) dsmem = cols[i].present;
    }
    for (size_t i = 0; i < n; i++) {
        if (!cols[i].name || cols[i].present) continue;
        const char *assumed = NULL;
        for (size_t a = 0; a < sizeof absent_cols / sizeof *absent_cols; a++)
            if (strcmp(cols[i].name, absent_cols[a].name) == 0) assumed = absent_cols[a].assumed;
        if (!assumed) continue;
        /* neither shared-memory column: the total is unknown, said once */
        if (!ssmem && !dsmem && strcmp(cols[i].name, "dynamicSharedMemory") == 0) continue;
        /* neither memory-kind column: said once */
        if (kind_col[1] >= 0 && kind_col[2] >= 0 && !cols[kind_col[1]].present &&
            !cols[kind_col[2]].present) {
            if (i == (size_t)kind_col[2]) continue;
            if (i == (size_t)kind_col[1]) {
                if (imp_warn(t, s->file, "table %s: no columns \"srcKind\" and \"dstKind\": %s",
                             table, assumed) < 0)
                    return imp_sql_fail(s, NULL, "out of memory");
                continue;
            }
        }
        if (!ssmem && !dsmem && strcmp(cols[i].name, "staticSharedMemory") == 0) {
            if (imp_warn(t, s->file, "table %s: no columns \"staticSharedMemory\" and "
                         "\"dynamicSharedMemory\": shared memory per block unknown", table) < 0)
                return imp_sql_fail(s, NULL, "out of memory");
            continue;
        }
        if (imp_warn(t, s->file, "table %s: no column \"%s\": %s", table, cols[i].name,
                     assumed) < 0)
            return imp_sql_fail(s, NULL, "out of memory");
    }
    return 0;
}

int imp_sql_table_has(imp_sql *s, const char *table, const char *const *names) {
    int has = imp_sql_has_table(s, table);
    if (has <= 0) return has;
    imp_sql_col cols[16];
    size_t n = 0;
    for (; n < 16 && names[n]; n++) cols[n] = (imp_sql_col){ names[n], false, false };
    struct mark_ctx m = { cols, n };
    if (each_column(s, table, mark_col, &m) < 0) return -1;
    for (size_t i = 0; i < n; i++)
        if (!cols[i].present) return 0;
    return 1;
}

static const char *type_name(int type) {
    switch (type) {
    case SQLITE_FLOAT: return "a real number";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "a blob";
    default: return "NULL";
    }
}

int imp_sql_int(imp_sql *s, sqlite3_stmt *st, int i, const char *table, int64_t row,
                const char *col, int64_t *v) {
    /* one column fetch, then cheap reads of the value (this runs for
     * every column of every row) */
    sqlite3_value *val = sqlite3_column_value(st, i);
    int type = sqlite3_value_type(val);
    if (type == SQLITE_INTEGER) {
        *v = sqlite3_value_int64(val);
        return 0;
    }
    *v = 0;
    if (type == SQLITE_NULL) return 1;
    if (type == SQLITE_FLOAT) {
        double d = sqlite3_column_double(st, i);
        /* 2^63 as a double: beyond it the cast is undefined */
        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == (double)(int64_t)d) {
            *v = (int64_t)d;
            return 0;
        }
    }
    return imp_sql_fail(s, table, "row %lld: column \"%s\": expected an integer, got %s",
                        (long long)row, col, type_name(type));
}

int imp_sql_int_range(imp_sql *s, sqlite3_stmt *st, int i, const char *table, int64_t row,
                      const char *col, int64_t lo, int64_t hi, int64_t *v) {
    int r = imp_sql_int(s, st, i, table, row, col, v);
    if (r < 0) return -1;
    if (r == 1)
        return imp_sql_fail(s, table, "row %lld: column \"%s\": expected an integer, got NULL",
                            (long long)row, col);
    if (*v < lo || *v > hi)
        return imp_sql_fail(s, table, "row %lld: column \"%s\": %lld is out of range [%lld, %lld]",
                            (long long)row, col, (long long)*v, (long long)lo, (long long)hi);
    return 0;
}

int imp_sql_text1(imp_sql *s, const char *table, const char *sql, char *buf, size_t buflen) {
    sqlite3_stmt *st;
    if (buflen) buf[0] = '\0';
    if (imp_sql_prepare(s, table, sql, &st) < 0) return -1;
    int rc = imp_sql_step(s, table, st);
    if (rc == SQLITE_ROW && buflen) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        if (v) snprintf(buf, buflen, "%s", v);
    }
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

/* ---- enums ---------------------------------------------------------------- */

int imp_sql_copy_direction(int64_t copy_kind, int src_mem, int dst_mem) {
    /* CUpti_ActivityMemcpyKind (profiler-trace-formats.md §2.4); arrays are
     * device memory. 11..13 are the nsys unified-memory kinds (§3.3). */
    switch (copy_kind) {
    case 1: case 3: return TRACE_COPY_H2D;      /* HtoD, HtoA */
    case 2: case 4: return TRACE_COPY_D2H;      /* DtoH, AtoH */
    case 5: case 6: case 7: case 8: return TRACE_COPY_D2D;
    /* unified-memory migrations: their own kind (issue 28) */
    case 11: return TRACE_COPY_UVM_H2D;
    case 12: return TRACE_COPY_UVM_D2H;
    case 13: return TRACE_COPY_UVM_D2D;
    case 9: return TRACE_COPY_H2H;
    case 10: return TRACE_COPY_P2P;
    default: break;
    }
    bool src_host = src_mem == IMP_SQL_MEM_PAGEABLE || src_mem == IMP_SQL_MEM_PINNED;
    bool dst_host = dst_mem == IMP_SQL_MEM_PAGEABLE || dst_mem == IMP_SQL_MEM_PINNED;
    bool src_dev = src_mem == IMP_SQL_MEM_DEVICE || src_mem == IMP_SQL_MEM_ARRAY ||
                   src_mem == IMP_SQL_MEM_DEVICE_STATIC;
    bool dst_dev = dst_mem == IMP_SQL_MEM_DEVICE || dst_mem == IMP_SQL_MEM_ARRAY ||
                   dst_mem == IMP_SQL_MEM_DEVICE_STATIC;
    if (src_host && dst_dev) return TRACE_COPY_H2D;
    if (src_dev && dst_host) return TRACE_COPY_D2H;
    if (src_dev && dst_dev) return TRACE_COPY_D2D;
    if (src_host && dst_host) return TRACE_COPY_H2H;
    return TRACE_COPY_OTHER;
}

const char *imp_sql_copy_name(int64_t copy_kind) {
    static const char *const names[] = {
        "[CUDA memcpy Unknown]", "[CUDA memcpy HtoD]", "[CUDA memcpy DtoH]",
        "[CUDA memcpy HtoA]", "[CUDA memcpy AtoH]", "[CUDA memcpy AtoA]",
        "[CUDA memcpy AtoD]", "[CUDA memcpy DtoA]", "[CUDA memcpy DtoD]",
        "[CUDA memcpy HtoH]", "[CUDA memcpy PtoP]",
        "[Unified Memory Memcpy HtoD]", "[Unified Memory Memcpy DtoH]",
        "[Unified Memory Memcpy DtoD]",
    };
    if (copy_kind < 0 || copy_kind >= (int64_t)(sizeof names / sizeof *names)) return names[0];
    return names[copy_kind];
}

/* ---- stable sort (sort_records.c) ---------------------------------------- */

int imp_sql_sort_kernels(trace *t) {
    return imp_sort_records(t->kernels.v, t->kernels.n, sizeof *t->kernels.v,
                        offsetof(trace_kernel, first_block));
}

int imp_sql_sort_copies(trace *t) {
    return imp_sort_records(t->copies.v, t->copies.n, sizeof *t->copies.v, offsetof(trace_copy, start));
}

/* ---- lookup maps ---------------------------------------------------------- */

static int keyed_cmp(const void *pa, const void *pb) {
    const imp_sql_keyed *a = pa, *b = pb;
    for (int i = 0; i < 3; i++)
        if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v;
}

int imp_sql_map_load(imp_sql *s, imp_sql_map *m, const char *table, const char *sql) {
    sqlite3_stmt *st;
    if (imp_sql_prepare(s, table, sql, &st) < 0) return -1;
    int rc;
    while ((rc = imp_sql_step(s, table, st)) == SQLITE_ROW) {
        imp_sql_keyed e;
        bool ok = true;
        for (int i = 0; i < 4 && ok; i++) {
            sqlite3_value *val = sqlite3_column_value(st, i);
            ok = sqlite3_value_type(val) == SQLITE_INTEGER;
            int64_t v = sqlite3_value_int64(val);
            if (i < 3) e.k[i] = v; else e.v = v;
        }
        if (!ok) continue;
        if (m->n == m->cap) {
            size_t ncap = m->cap ? m->cap * 2 : 256;
            imp_sql_keyed *nv = ncap < SIZE_MAX / sizeof *nv ? realloc(m->v, ncap * sizeof *nv) : NULL;
            if (!nv) {
                sqlite3_finalize(st);
                return imp_sql_fail(s, table, "out of memory");
            }
            m->v = nv;
            m->cap = ncap;
        }
        m->v[m->n++] = e;
    }
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

void imp_sql_map_sort(imp_sql_map *m) {
    size_t i = 1;
    while (i < m->n && keyed_cmp(&m->v[i - 1], &m->v[i]) <= 0) i++;
    if (i < m->n) qsort(m->v, m->n, sizeof *m->v, keyed_cmp);
}

static int key_cmp(const imp_sql_keyed *e, const int64_t *key, int nkeys) {
    for (int i = 0; i < nkeys; i++)
        if (e->k[i] != key[i]) return e->k[i] < key[i] ? -1 : 1;
    return 0;
}

bool imp_sql_map_find(imp_sql_map *m, const int64_t *key, int nkeys, int64_t *v) {
    /* Records come in about the order of their API calls, so the answer is
     * usually the entry after the last one: try there before searching. */
    size_t h = m->hint;
    for (size_t i = h; i < h + 2 && i < m->n; i++) {
        if (key_cmp(&m->v[i], key, nkeys) == 0 && (i == 0 || key_cmp(&m->v[i - 1], key, nkeys) < 0)) {
            m->hint = i + 1;
            *v = m->v[i].v;
            return true;
        }
    }
    size_t lo = 0, hi = m->n;
    while (lo < hi) {                     /* first entry >= key on the first nkeys */
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&m->v[mid], key, nkeys) < 0) lo = mid + 1; else hi = mid;
    }
    if (lo == m->n || key_cmp(&m->v[lo], key, nkeys) != 0) return false;
    m->hint = lo + 1;
    *v = m->v[lo].v;
    return true;
}

void imp_sql_map_free(imp_sql_map *m) {
    free(m->v);
    m->v = NULL;
    m->n = m->cap = m->hint = 0;
}

/* ---- row readers ---------------------------------------------------------- */

/* Profilers write start = end = 0 when a device buffer overflowed and the
 * timestamps were lost (profiler-trace-formats.md §5 item 9): such a row has
 * no place on a timeline and is left out (and counted), as is one that ends
 * before it starts. */
static bool valid_span(int64_t start, int64_t end) {
    if (start == 0 && end == 0) return false;
    return start >= 0 && end >= start && end <= IMP_SQL_TMAX;
}

/* A value that only refines a record (ids used for names and lookups):
 * what is not a plain integer there is unknown, not an error in the row. */
static bool opt_int(sqlite3_stmt *st, int i, int64_t *v) {
    sqlite3_value *val = sqlite3_column_value(st, i);
    *v = 0;
    if (sqlite3_value_type(val) != SQLITE_INTEGER) return false;
    *v = sqlite3_value_int64(val);
    return true;
}

/* Rows repeat the same few streams and contexts, so their names are
 * formatted and interned once and then found by their integer ids. */
#define NAME_SLOTS 64

typedef struct name_cache {
    bool used[NAME_SLOTS];
    int64_t key[NAME_SLOTS][4];
    trace_str id[NAME_SLOTS];
} name_cache;

typedef struct row_ids {
    bool has[4];             /* pid, device, context, green */
    int64_t v[4];
} row_ids;

static size_t slot_of(const int64_t *k, size_t n) {
    uint64_t h = FNV1A_OFFSET;   /* FNV-1a over whole 64-bit words */
    for (size_t i = 0; i < n; i++) h = (h ^ (uint64_t)k[i]) * FNV1A_PRIME;
    return (size_t)(h ^ (h >> 32));
}

/* "gpu0 ctx1", "pid 36554 gpu0 ctx1 green2": one address space per
 * process and context, the granularity at which the driver time-slices
 * (GCAPS §2) -- and no '/' or ':' since it goes into queue names. */
static trace_str process_name(trace *t, name_cache *c, const row_ids *r) {
    int64_t key[4];
    for (int i = 0; i < 4; i++)
        key[i] = r->has[i] ? r->v[i] : INT64_MIN;
    if (key[3] == 0) key[3] = INT64_MIN;          /* green 0: not a green context */
    size_t sl = slot_of(key, 4) % NAME_SLOTS;
    if (c->used[sl] && memcmp(c->key[sl], key, sizeof key) == 0) return c->id[sl];
    static const char *const label[4] = { "pid ", "gpu", "ctx", "green" };
    char buf[128];
    size_t n = 0;
    for (int i = 0; i < 4; i++) {
        if (key[i] == INT64_MIN) continue;
        int w = snprintf(buf + n, sizeof buf - n, "%s%s%lld", n ? " " : "", label[i],
                         (long long)key[i]);
        if (w < 0 || (size_t)w >= sizeof buf - n) break;
        n += (size_t)w;
    }
    trace_str id = n ? trace_intern_n(t, buf, n) : 0;
    c->used[sl] = true;
    memcpy(c->key[sl], key, sizeof key);
    c->id[sl] = id;
    return id;
}

static trace_str stream_name(trace *t, name_cache *c, bool has, int64_t v) {
    if (!has) return 0;
    int64_t key[4] = { v, 0, 0, 0 };
    size_t sl = slot_of(key, 1) % NAME_SLOTS;
    if (c->used[sl] && c->key[sl][0] == v) return c->id[sl];
    char buf[24];
    int w = snprintf(buf, sizeof buf, "%lld", (long long)v);
    trace_str id = trace_intern_n(t, buf, (size_t)w);
    c->used[sl] = true;
    memcpy(c->key[sl], key, sizeof key);
    c->id[sl] = id;
    return id;
}

static void read_ids(sqlite3_stmt *st, int pid, int dev, int ctx, int green, row_ids *r) {
    int cols[4] = { pid, dev, ctx, green };
    for (int i = 0; i < 4; i++) r->has[i] = opt_int(st, cols[i], &r->v[i]);
}

/* (the ordinal is in range: read_where) */
static void count_device(imp_sql_devs *d, const row_ids *r) {
    if (!r->has[1]) return;
    d->n[r->v[1]]++;
    d->used = true;
}

/* One API call's start (part 0) or end (part 1) of rank `rank` (load_maps:
 * RUNTIME 0, DRIVER 1; the map's third key is rank * 2 + part). */
static bool api_time(const imp_sql_src *src, int64_t corr, int64_t pid, int64_t rank, int part,
                     int64_t *v) {
    int64_t key[3] = { corr, pid, rank * 2 + part };
    if (src->api_q) {
        /* temp.api, indexed: the same answer as imp_sql_map_find's */
        sqlite3_reset(src->api_q);
        sqlite3_bind_int64(src->api_q, 1, key[0]);
        sqlite3_bind_int64(src->api_q, 2, key[1]);
        sqlite3_bind_int64(src->api_q, 3, key[2]);
        if (sqlite3_step(src->api_q) != SQLITE_ROW) return false;
        *v = sqlite3_column_int64(src->api_q, 0);
        return true;
    }
    return imp_sql_map_find(src->api, key, 3, v);
}

/* Launch time: when the API call with the record's correlationId (in the
 * same process where the profiler says which; the runtime's call before the
 * driver's) handed the work to the GPU. That is the call's return where the
 * work started after it (issue 28: a first cudaLaunchKernel that loads its
 * module lazily lasts 41 ms, and the kernel starts 3.9 us after it
 * returns), else the call's start: a synchronous call that the work ran
 * inside of (cudaMemcpy) handed it over before it returned. */
static int64_t issue_time(const imp_sql_src *src, sqlite3_stmt *st, int corr_i, const row_ids *r,
                          int64_t start) {
    int64_t corr, pid, a, e;
    if ((!src->api && !src->api_q) || !opt_int(st, corr_i, &corr)) return TRACE_NONE;
    pid = (src->api_by_pid && r->has[0]) ? r->v[0] : 0;
    for (int64_t rank = 0; rank < 2; rank++) {
        if (!api_time(src, corr, pid, rank, 0, &a)) continue;
        if (a < 0 || a > IMP_SQL_TMAX) return TRACE_NONE;
        if (api_time(src, corr, pid, rank, 1, &e) && e >= a && e <= IMP_SQL_TMAX && e <= start)
            return e;
        return a;
    }
    return TRACE_NONE;
}

/* Where a kernel or copy row ran, from its statement's columns (cols: pid,
 * device, context, green, stream, correlation id), as both rows read it:
 * its ids, its stream's and process's names (interned in this order), its
 * device counted in devs and its index in t->devices, and its launch time.
 * 0, or -1 with err naming row `row` of src->table. */
typedef struct row_where {
    row_ids ids;
    int64_t stream;
    bool has_stream;
    trace_str stream_name, process;
    int64_t issue;
    int32_t device;
} row_where;

static int read_where(imp_sql *s, trace *t, sqlite3_stmt *st, const imp_sql_src *src,
                      int64_t row, const int cols[6], imp_sql_devs *devs, name_cache *streams,
                      name_cache *procs, int64_t start, row_where *w) {
    read_ids(st, cols[0], cols[1], cols[2], cols[3], &w->ids);
    /* DESIGN §5: the record's index in devices is its CUDA ordinal (0 when
     * the row names none), so it is known here, as the rows stream by
     * (imp_sql_devices fills the entries at the end) */
    int64_t dev = w->ids.has[1] ? w->ids.v[1] : 0;
    if (dev < 0 || dev >= IMP_MAX_GPUS)
        return imp_sql_fail(s, src->table, "row %lld: column \"deviceId\": %lld is out of range "
                            "[0, %d] (a CUDA device ordinal)", (long long)row, (long long)dev,
                            IMP_MAX_GPUS - 1);
    w->device = (int32_t)dev;
    if (imp_devices_reserve(t, w->device) < 0) return imp_sql_fail(s, src->table, "out of memory");
    w->stream = 0;
    w->has_stream = opt_int(st, cols[4], &w->stream);
    w->stream_name = stream_name(t, streams, w->has_stream, w->stream);
    w->process = process_name(t, procs, &w->ids);
    count_device(devs, &w->ids);
    w->issue = issue_time(src, st, cols[5], &w->ids, start);
    return 0;
}

/* The small-integer value of an enum column (memory kind, copy kind):
 * -1 when NULL, not an integer or outside 0..63. */
static int enum_value(sqlite3_stmt *st, int i) {
    sqlite3_value *val = sqlite3_column_value(st, i);
    if (sqlite3_value_type(val) != SQLITE_INTEGER) return -1;
    int64_t v = sqlite3_value_int64(val);
    return (v >= 0 && v < 64) ? (int)v : -1;
}

static int map_enum(const int *map, int v) {
    return (v < 0) ? -1 : (map ? map[v] : v);
}

static trace_str display_name(trace *t, imp_sql_name_cache *c, trace_str raw) {
    if (raw >= c->cap) {
        size_t ncap = c->cap ? c->cap : 64;
        while (ncap <= raw) ncap *= 2;
        trace_str *nv = realloc(c->v, ncap * sizeof *nv);
        if (!nv) { t->oom = true; return 0; }
        memset(nv + c->cap, 0, (ncap - c->cap) * sizeof *nv);
        c->v = nv;
        c->cap = ncap;
    }
    if (!c->v[raw]) {
        char buf[16384];
        const char *d = imp_demangle(trace_str_get(t, raw), buf, sizeof buf);
        c->v[raw] = d ? trace_intern(t, d) : raw;
    }
    return c->v[raw];
}

/* Dimensions CUDA allows: grid x < 2^31, y and z < 2^16; block x, y < 1024,
 * z < 64. Anything larger is a damaged row, and the bounds keep the products
 * (blocks per grid, threads per block) inside their types. */
#define DIM_MAX ((int64_t)INT32_MAX)

/* Kernel names by their string ids: looked up, demangled and interned once
 * per distinct (name, mangled name) pair, not once per row. */
#define KNAME_SLOTS 1024

typedef struct kname_slot {
    bool used;
    int64_t name_id, raw_id;
    trace_str name, raw;
} kname_slot;

typedef struct kname_cache {
    sqlite3_stmt *lookup;    /* SELECT value FROM strings WHERE id = ?1 */
    kname_slot slot[KNAME_SLOTS];
} kname_cache;

/* 1 with *out interned, 0 when the id has no string, -1 on a read error. */
static int lookup_string(imp_sql *s, trace *t, const imp_sql_src *src, kname_cache *c,
                         int64_t id, trace_str *out) {
    sqlite3_reset(c->lookup);
    sqlite3_bind_int64(c->lookup, 1, id);
    int rc = imp_sql_step(s, src->strings, c->lookup);
    if (rc != SQLITE_ROW) return rc < 0 ? -1 : 0;
    const unsigned char *txt = sqlite3_column_text(c->lookup, 0);
    if (!txt) {
        if (sqlite3_errcode(s->db) == SQLITE_NOMEM) return imp_sql_fail(s, NULL, "out of memory");
        return 0;
    }
    size_t n = (size_t)sqlite3_column_bytes(c->lookup, 0);
    if (memchr(txt, '\0', n)) {
        /* a NUL inside a name would cut it short unseen: shown as "\0" */
        char *esc = malloc(2 * n + 1);
        if (!esc) return imp_sql_fail(s, NULL, "out of memory");
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
            if (txt[i]) esc[o++] = (char)txt[i];
            else { esc[o++] = '\\'; esc[o++] = '0'; }
        }
        *out = trace_intern_n(t, esc, o);
        free(esc);
    } else {
        *out = trace_intern_n(t, (const char *)txt, n);
    }
    if (t->oom) return imp_sql_fail(s, NULL, "out of memory");
    return 1;
}

/* The slot for a kernel's name ids, filled on first use: 1 with *out set,
 * 0 when no string stands behind the ids, -1 with err filled. */
static int kernel_name(imp_sql *s, trace *t, const imp_sql_src *src, kname_cache *c,
                       imp_sql_name_cache *names, int64_t name_id, bool has_raw, int64_t raw_id,
                       const kname_slot **out) {
    if (!has_raw) raw_id = INT64_MIN;
    int64_t key[2] = { name_id, raw_id };
    kname_slot *sl = &c->slot[slot_of(key, 2) % KNAME_SLOTS];
    *out = sl;
    if (sl->used && sl->name_id == name_id && sl->raw_id == raw_id) return 1;
    trace_str a = 0, b = 0;
    if (lookup_string(s, t, src, c, name_id, &a) < 0) return -1;
    if (has_raw && lookup_string(s, t, src, c, raw_id, &b) < 0) return -1;
    if (!a && !(src->name_is_display && b)) return 0;
    trace_str raw, display;
    if (src->name_is_display) {
        /* nsys: demangledName, with the mangled form beside it when kept */
        display = a ? a : b;
        raw = b ? b : a;
    } else {
        raw = display = a;
    }
    if (display == raw) display = display_name(t, names, raw);
    if (t->oom) return imp_sql_fail(s, NULL, "out of memory");
    sl->used = true;
    sl->name_id = name_id;
    sl->raw_id = raw_id;
    sl->name = display;
    sl->raw = display == raw ? 0 : raw;
    return 1;
}

/* The current row of st: checked, and appended to t unless it has no valid
 * timestamps (counted in src->skipped). */
static int kernel_row(imp_sql *s, trace *t, sqlite3_stmt *st, imp_sql_src *src,
                      imp_sql_name_cache *names, name_cache *streams, name_cache *procs,
                      kname_cache *kn_cache) {
    static const char *const dim_col[6] = { "gridX", "gridY", "gridZ",
                                            "blockX", "blockY", "blockZ" };
    const char *tb = src->table;
    if (!imp_progress_at(s->cx, (double)s->rows_done++, (double)s->rows_total))
        return imp_sql_fail(s, NULL, "%s", IMP_CANCELLED);
    int64_t row = sqlite3_column_int64(st, IMP_SQL_K_ROWID);
    int64_t start, end, v;
    if (imp_sql_int_range(s, st, IMP_SQL_K_START, tb, row, "start", INT64_MIN, INT64_MAX,
                          &start) < 0 ||
        imp_sql_int_range(s, st, IMP_SQL_K_END, tb, row, "end", INT64_MIN, INT64_MAX, &end) < 0)
        return -1;
    if (!valid_span(start, end)) { src->skipped++; return 0; }

    int64_t dims[6];
    for (int d = 0; d < 6; d++) {
        int r = imp_sql_int(s, st, IMP_SQL_K_GRIDX + d, tb, row, dim_col[d], &dims[d]);
        if (r < 0) return -1;
        if (dims[d] < 0 || dims[d] > DIM_MAX)
            return imp_sql_fail(s, tb, "row %lld: column \"%s\": %lld is out of range "
                                "[0, %lld]", (long long)row, dim_col[d], (long long)dims[d],
                                (long long)DIM_MAX);
    }
    int64_t regs, ssmem, dsmem;
    int r_null = imp_sql_int(s, st, IMP_SQL_K_REGS, tb, row, "registersPerThread", &regs);
    int s_null = r_null < 0 ? -1 : imp_sql_int(s, st, IMP_SQL_K_SSMEM, tb, row,
                                               "staticSharedMemory", &ssmem);
    int d_null = s_null < 0 ? -1 : imp_sql_int(s, st, IMP_SQL_K_DSMEM, tb, row,
                                               "dynamicSharedMemory", &dsmem);
    if (d_null < 0) return -1;
    if (regs < 0 || regs > 65536)
        return imp_sql_fail(s, tb, "row %lld: column \"registersPerThread\": %lld is out of "
                            "range [0, 65536]", (long long)row, (long long)regs);
    if (ssmem < 0 || ssmem > DIM_MAX || dsmem < 0 || dsmem > DIM_MAX)
        return imp_sql_fail(s, tb, "row %lld: column \"%s\": %lld is out of range [0, %lld]",
                            (long long)row, (ssmem < 0 || ssmem > DIM_MAX) ? "staticSharedMemory"
                                                                       : "dynamicSharedMemory",
                            (long long)((ssmem < 0 || ssmem > DIM_MAX) ? ssmem : dsmem),
                            (long long)DIM_MAX);

    int64_t name_id, raw_id;
    if (imp_sql_int_range(s, st, IMP_SQL_K_NAMEID, tb, row, src->name_col, INT64_MIN,
                          INT64_MAX, &name_id) < 0)
        return -1;
    bool has_raw = opt_int(st, IMP_SQL_K_RAWID, &raw_id);
    const kname_slot *kn;
    int found = kernel_name(s, t, src, kn_cache, names, name_id, has_raw, raw_id, &kn);
    if (found < 0) return -1;
    if (!found)
        return imp_sql_fail(s, tb, "row %lld: column \"%s\": string id %lld is not in %s",
                            (long long)row, src->name_col, (long long)name_id, src->strings);

    trace_kernel *k = trace_add_kernel(t);
    if (!k) return imp_sql_fail(s, tb, "out of memory");
    k->name = kn->name;
    k->raw_name = kn->raw;
    static const int where_cols[6] = { IMP_SQL_K_PID, IMP_SQL_K_DEVICE, IMP_SQL_K_CONTEXT,
                                       IMP_SQL_K_GREEN, IMP_SQL_K_STREAM, IMP_SQL_K_CORR };
    row_where w;
    if (read_where(s, t, st, src, row, where_cols, &src->kernel_devs, streams, procs, start,
                   &w) < 0)
        return -1;
    k->device = w.device;
    k->stream = w.stream_name;
    k->process = w.process;
    k->first_block = start;
    k->end = end;
    k->issue = w.issue;
    const row_ids *ids = &w.ids;
    int64_t pkey[3] = { ids->v[2], w.stream, (src->prio_by_pid && ids->has[0]) ? ids->v[0] : 0 };
    if (src->prio && ids->has[2] && w.has_stream && imp_sql_map_find(src->prio, pkey, 3, &v)) {
        /* nsys stores the int32 priority as unsigned (4294967291 = -5) */
        if (v > INT32_MAX && v <= (int64_t)UINT32_MAX) v -= (int64_t)UINT32_MAX + 1;
        if (v >= -1024 && v <= 1024) k->priority = (int32_t)v;
    }
    for (int d = 0; d < 3; d++) {
        k->grid[d] = (int32_t)dims[d];
        k->block[d] = (int32_t)dims[3 + d];
    }
    /* (2^31-1)^3 overflows int64 and (2^31-1)^2 int32: multiply only
     * when known to fit, else leave the total unknown */
    if (dims[0] && dims[1] && dims[2] && dims[1] <= 65535 && dims[2] <= 65535)
        k->blocks = dims[0] * dims[1] * dims[2];
    if (dims[3] && dims[4] && dims[5] && dims[3] * dims[4] <= INT32_MAX / dims[5])
        k->threads = (int32_t)(dims[3] * dims[4] * dims[5]);
    k->regs = (int32_t)regs;
    if (s_null == 0 || d_null == 0) k->smem = ssmem + dsmem;   /* else unknown */
    if (t->oom) return imp_sql_fail(s, tb, "out of memory");
    src->kept++;
    return 0;
}

/* The name caches of one kernel read (imp_sql_read_kernels, the merged
 * imp_sql_stream_kernels): empty, with the kernel-name lookup prepared
 * (the caller finalizes kn.lookup). */
typedef struct kernel_caches {
    name_cache streams, procs;
    kname_cache kn;
} kernel_caches;

static int kernel_caches_open(imp_sql *s, const imp_sql_src *src, kernel_caches *kc) {
    memset(kc, 0, sizeof *kc);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT value FROM \"%s\" WHERE \"%s\" = ?1", src->strings,
             src->strings_id);
    return imp_sql_prepare(s, src->strings, sql, &kc->kn.lookup) < 0 ? -1 : 0;
}

static int read_kernel_rows(imp_sql *s, trace *t, sqlite3_stmt *st, imp_sql_src *src,
                            imp_sql_name_cache *names, name_cache *streams, name_cache *procs,
                            kname_cache *kn_cache) {
    int rc;
    while ((rc = imp_sql_step(s, src->table, st)) == SQLITE_ROW)
        if (kernel_row(s, t, st, src, names, streams, procs, kn_cache) < 0) return -1;
    return rc < 0 ? -1 : 0;
}

int imp_sql_count_rows(imp_sql *s, const char *table) {
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", table);
    sqlite3_stmt *st;
    if (imp_sql_prepare(s, table, sql, &st) < 0) return -1;
    int rc = imp_sql_step(s, table, st);
    if (rc == SQLITE_ROW) s->rows_total += sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

int imp_sql_read_kernels(imp_sql *s, trace *t, sqlite3_stmt *st, imp_sql_src *src,
                         imp_sql_name_cache *names) {
    kernel_caches kc;
    if (kernel_caches_open(s, src, &kc) < 0) return -1;
    int r = read_kernel_rows(s, t, st, src, names, &kc.streams, &kc.procs, &kc.kn);
    sqlite3_finalize(kc.kn.lookup);
    return r;
}

/* The current row of st as kernel_row, for copies, and for memsets when
 * memset_name (their name's id) is not 0. */
static int copy_row(imp_sql *s, trace *t, sqlite3_stmt *st, imp_sql_src *src,
                    trace_str memset_name, name_cache *streams, name_cache *procs) {
    const char *tb = src->table;
    if (!imp_progress_at(s->cx, (double)s->rows_done++, (double)s->rows_total))
        return imp_sql_fail(s, NULL, "%s", IMP_CANCELLED);
    int64_t row = sqlite3_column_int64(st, IMP_SQL_C_ROWID);
    int64_t start, end, bytes;
    if (imp_sql_int_range(s, st, IMP_SQL_C_START, tb, row, "start", INT64_MIN, INT64_MAX, &start) < 0 ||
        imp_sql_int_range(s, st, IMP_SQL_C_END, tb, row, "end", INT64_MIN, INT64_MAX, &end) < 0 ||
        imp_sql_int_range(s, st, IMP_SQL_C_BYTES, tb, row, "bytes", 0, INT64_MAX, &bytes) < 0)
        return -1;
    if (!valid_span(start, end)) { src->skipped++; return 0; }
    trace_copy *c = trace_add_copy(t);
    if (!c) return imp_sql_fail(s, tb, "out of memory");
    if (memset_name) {
        c->name = memset_name;
        c->direction = TRACE_COPY_MEMSET;
    } else {
        int kind = map_enum(src->copy_map, enum_value(st, IMP_SQL_C_KIND));
        int sm = map_enum(src->mem_map, enum_value(st, IMP_SQL_C_SRCMEM));
        int dm = map_enum(src->mem_map, enum_value(st, IMP_SQL_C_DSTMEM));
        c->name = trace_intern(t, imp_sql_copy_name(kind));
        c->direction = imp_sql_copy_direction(kind, sm, dm);
    }
    static const int where_cols[6] = { IMP_SQL_C_PID, IMP_SQL_C_DEVICE, IMP_SQL_C_CONTEXT,
                                       IMP_SQL_C_GREEN, IMP_SQL_C_STREAM, IMP_SQL_C_CORR };
    row_where w;
    if (read_where(s, t, st, src, row, where_cols, &src->copy_devs, streams, procs, start,
                   &w) < 0)
        return -1;
    c->device = w.device;
    c->stream = w.stream_name;
    c->process = w.process;
    c->bytes = bytes;
    c->start = start;
    c->end = end;
    c->issue = w.issue;
    if (t->oom) return imp_sql_fail(s, tb, "out of memory");
    src->kept++;
    return 0;
}

int imp_sql_read_copies(imp_sql *s, trace *t, sqlite3_stmt *st, imp_sql_src *src, bool memset_) {
    trace_str memset_name = memset_ ? trace_intern(t, "[CUDA memset]") : 0;
    name_cache streams, procs;
    memset(&streams, 0, sizeof streams);
    memset(&procs, 0, sizeof procs);
    int rc;
    while ((rc = imp_sql_step(s, src->table, st)) == SQLITE_ROW)
        if (copy_row(s, t, st, src, memset_name, &streams, &procs) < 0) return -1;
    return rc < 0 ? -1 : 0;
}

/* ---- device --------------------------------------------------------------- */

/* Each device field under the column names nvprof's DEVICE table,
 * nsys's TARGET_INFO_GPU and the 2021 TARGET_INFO_CUDA_GPU use, with the
 * factor that turns the value into the model's unit. */
typedef struct dev_field {
    const char *col;
    int64_t scale;
    int which;
} dev_field;

enum { F_SMS, F_WARP, F_WARPS_SM, F_BLOCKS_SM, F_SMEM_SM, F_REGS_SM, F_REGS_BLOCK,
       F_SMEM_BLOCK, F_THREADS_BLOCK, F_CLOCK, F_CE, F_CC_MAJOR, F_CC_MINOR, F_COUNT };

static const dev_field dev_fields[] = {
    { "numMultiprocessors", 1, F_SMS }, { "smCount", 1, F_SMS },
    { "numThreadsPerWarp", 1, F_WARP }, { "threadsPerWarp", 1, F_WARP },
    { "maxWarpsPerMultiprocessor", 1, F_WARPS_SM }, { "maxWarpsPerSm", 1, F_WARPS_SM },
    { "maxBlocksPerMultiprocessor", 1, F_BLOCKS_SM }, { "maxBlocksPerSm", 1, F_BLOCKS_SM },
    { "maxSharedMemoryPerMultiprocessor", 1, F_SMEM_SM }, { "maxShmemPerSm", 1, F_SMEM_SM },
    { "maxRegistersPerMultiprocessor", 1, F_REGS_SM }, { "maxRegistersPerSm", 1, F_REGS_SM },
    { "maxRegistersPerBlock", 1, F_REGS_BLOCK },
    /* the opt-in maximum first: what a kernel that asks for it gets (issue
     * 28: an H100 nvFuser kernel uses 49,280 B against a 49,152 B default) */
    { "maxShmemPerBlockOptin", 1, F_SMEM_BLOCK },
    { "maxSharedMemoryPerBlock", 1, F_SMEM_BLOCK }, { "maxShmemPerBlock", 1, F_SMEM_BLOCK },
    { "maxThreadsPerBlock", 1, F_THREADS_BLOCK },
    { "coreClockRate", 1000, F_CLOCK },   /* CUPTI: kHz */
    { "clockRate", 1, F_CLOCK },          /* nsys: Hz */
    { "numMemcpyEngines", 1, F_CE }, { "asyncEngines", 1, F_CE },
    { "computeCapabilityMajor", 1, F_CC_MAJOR }, { "computeMajor", 1, F_CC_MAJOR },
    { "computeCapabilityMinor", 1, F_CC_MINOR }, { "computeMinor", 1, F_CC_MINOR },
};
#define N_DEV_FIELDS (sizeof dev_fields / sizeof *dev_fields)

/* What one device row gave beyond the model's fields: imp_sql_device
 * turns it into has_device and the meta. */
typedef struct dev_row {
    bool listed;             /* the table has a row for the id */
    bool sms;                /* ... and it gave the SM count */
    bool cc, ce;             /* the compute capability, the copy engines */
    int64_t cc_major, cc_minor, engines;
} dev_row;

/* Fill *d from the row of `table` whose key_col is dev_id (imp_sql_device's
 * reading); *d unchanged when there is no such table or row. 0, or -1 with
 * err filled. */
static int device_row(imp_sql *s, const char *table, const char *key_col, int64_t dev_id,
                      const char *strings, const char *str_id, sim_device *d, dev_row *r) {
    memset(r, 0, sizeof *r);
    int has = imp_sql_has_table(s, table);
    if (has <= 0) return has;
    imp_sql_col cols[N_DEV_FIELDS + 2];
    cols[0] = (imp_sql_col){ key_col, false, false };
    cols[1] = (imp_sql_col){ "name", false, false };
    for (size_t i = 0; i < N_DEV_FIELDS; i++)
        cols[i + 2] = (imp_sql_col){ dev_fields[i].col, false, false };
    char sql[2048] = "SELECT 0";
    if (imp_sql_columns(s, table, "d", cols, N_DEV_FIELDS + 2, sql, sizeof sql) < 0) return -1;
    if (!cols[0].present) return 0;
    char tail[256];
    if (strings && cols[1].present)
        snprintf(tail, sizeof tail, ", (SELECT value FROM \"%s\" WHERE \"%s\" = d.name)", strings, str_id);
    else
        snprintf(tail, sizeof tail, ", %s", cols[1].present ? "d.name" : "NULL");
    if (append(sql, sizeof sql, "%s FROM \"%s\" d WHERE d.\"%s\" = ?1 LIMIT 1", tail, table,
               key_col) < 0)
        return imp_sql_fail(s, table, "query too long");
    sqlite3_stmt *st;
    if (imp_sql_prepare(s, table, sql, &st) < 0) return -1;
    sqlite3_bind_int64(st, 1, dev_id);
    int rc = imp_sql_step(s, table, st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return rc < 0 ? -1 : 0;
    }
    r->listed = true;
    int64_t val[F_COUNT] = { 0 };
    bool got[F_COUNT] = { false };
    for (size_t i = 0; i < N_DEV_FIELDS; i++) {
        int c = (int)i + 3;
        const dev_field *f = &dev_fields[i];
        if (got[f->which] || sqlite3_column_type(st, c) != SQLITE_INTEGER) continue;
        int64_t v = sqlite3_column_int64(st, c);
        /* a device limit is positive and far below 2^40; others are damage
         * (a compute capability's minor may be 0) */
        if (v < (f->which == F_CC_MINOR ? 0 : 1) || v > ((int64_t)1 << 40)) continue;
        val[f->which] = v * f->scale;
        got[f->which] = true;
    }
    const unsigned char *name = sqlite3_column_text(st, (int)N_DEV_FIELDS + 3);
    if (name) snprintf(d->name, sizeof d->name, "%s", (const char *)name);
    if (got[F_SMS] && val[F_SMS] <= SIM_MAX_SMS) {
        d->sms = (int32_t)val[F_SMS];
        /* the trace cannot show the block scheduler's tie-break order
         * (most-room §4.3); ascending is the model's default */
        d->sm_order_kind = SIM_SM_ORDER_ASCENDING;
        for (int32_t i = 0; i < d->sms; i++) d->sm_order[i] = (int16_t)i;
        r->sms = true;
    }
    if (val[F_WARP] <= INT32_MAX) d->warp_size = (int32_t)val[F_WARP];
    if (val[F_WARPS_SM] <= INT32_MAX) d->warps_per_sm = (int32_t)val[F_WARPS_SM];
    if (val[F_WARP] && val[F_WARPS_SM] && val[F_WARP] * val[F_WARPS_SM] <= INT32_MAX)
        d->threads_per_sm = (int32_t)(val[F_WARP] * val[F_WARPS_SM]);
    if (val[F_BLOCKS_SM] <= INT32_MAX) d->blocks_per_sm = (int32_t)val[F_BLOCKS_SM];
    if (val[F_THREADS_BLOCK] <= INT32_MAX) d->max_threads_per_block = (int32_t)val[F_THREADS_BLOCK];
    d->smem_per_sm = val[F_SMEM_SM];
    d->regs_per_sm = val[F_REGS_SM];
    d->max_regs_per_block = val[F_REGS_BLOCK];
    d->max_smem_per_block = val[F_SMEM_BLOCK];
    d->clock_hz = val[F_CLOCK];
    /* device.h models one copy engine for both directions or one per
     * direction (TX2 paper §2.2: a CE performs one copy at a time); the
     * extra engines a profiler counts (3 on Turing, 5 on A100) still only
     * give the two directions */
    d->copy_engines = val[F_CE] > 2 ? 2 : (int32_t)val[F_CE];
    r->cc = got[F_CC_MAJOR] && got[F_CC_MINOR] && val[F_CC_MAJOR] < 100 && val[F_CC_MINOR] < 100;
    r->cc_major = val[F_CC_MAJOR];
    r->cc_minor = val[F_CC_MINOR];
    r->ce = got[F_CE];
    r->engines = val[F_CE];
    sqlite3_finalize(st);
    return 0;
}

int imp_sql_device(imp_sql *s, trace *t, const char *table, const char *key_col,
                   int64_t dev_id, const char *strings, const char *str_id) {
    dev_row r;
    if (device_row(s, table, key_col, dev_id, strings, str_id, &t->device, &r) < 0) return -1;
    if (r.sms) t->has_device = true;
    /* what the device model has no field for, as the profiler said it
     * (the replay completes the device from them: simcore/cc.h) */
    char buf[48];
    int bad = 0;
    if (r.cc) {
        snprintf(buf, sizeof buf, "%d.%d", (int)r.cc_major, (int)r.cc_minor);
        bad |= trace_set_meta(t, "compute_capability", buf) < 0;
    }
    if (r.ce) {
        snprintf(buf, sizeof buf, "%lld", (long long)r.engines);
        bad |= trace_set_meta(t, "async_engines", buf) < 0;
    }
    if (bad) return imp_sql_fail(s, table, "out of memory");
    return 0;
}

int imp_sql_devices(imp_sql *s, trace *t, const char *table, const char *key_col,
                    const char *strings, const char *str_id) {
    size_t n = t->devices.n;   /* <= IMP_MAX_GPUS: read_where */
    if (n == 0) return 0;
    /* read into a copy, kept only when every entry is read */
    sim_device *v = malloc(n * sizeof *v);
    if (!v) return imp_sql_fail(s, NULL, "out of memory");
    uint64_t listed = 0;
    for (size_t i = 0; i < n; i++) {
        dev_row r;
        /* as t->device was read: over a zeroed device (trace_init) */
        memset(&v[i], 0, sizeof v[i]);
        if (device_row(s, table, key_col, (int64_t)i, strings, str_id, &v[i], &r) < 0) {
            free(v);
            return -1;
        }
        if (r.listed) listed |= UINT64_C(1) << i;
        /* an ordinal the table does not list: the run's device stands in,
         * named in devices_unlisted (sqlite_util.h) */
        else v[i] = t->device;
    }
    char where[128];
    snprintf(where, sizeof where, "the device table %s", table);
    if (imp_devices_unlisted(t, listed, s->file, where) < 0) {
        free(v);
        return imp_sql_fail(s, NULL, "out of memory");
    }
    memcpy(t->devices.v, v, n * sizeof *v);
    free(v);
    return 0;
}

int imp_sql_main_device(const imp_sql_src *src, int64_t *id) {
    const imp_sql_devs *d = src->kernel_devs.used ? &src->kernel_devs : &src->copy_devs;
    if (!d->used) return 0;
    size_t best = 0;
    for (size_t i = 1; i < IMP_MAX_GPUS; i++)
        if (d->n[i] > d->n[best]) best = i;   /* the smaller ordinal on a tie */
    *id = (int64_t)best;
    return 1;
}

static int finish(imp_sql *s, trace *t, const char *source, size_t skipped, size_t kept,
                  bool sort) {
    if (t->oom) return imp_sql_fail(s, NULL, "out of memory");
    if (kept == 0) {
        if (skipped)
            return imp_sql_fail(s, NULL, "no kernels, copies or memsets with timestamps "
                                         "(%zu records had none)", skipped);
        return imp_sql_fail(s, NULL, "no kernels, copies or memsets recorded");
    }
    if (sort && (imp_sql_sort_kernels(t) < 0 || imp_sql_sort_copies(t) < 0))
        return imp_sql_fail(s, NULL, "out of memory");
    char buf[32];
    snprintf(buf, sizeof buf, "%zu", skipped);
    if (trace_set_source(t, source) < 0 || (skipped && trace_set_meta(t, "skipped_records", buf) < 0))
        return imp_sql_fail(s, NULL, "out of memory");
    if (skipped && imp_warn(t, s->file, "%zu kernel, copy or memset record%s left out: no valid "
                            "start and end timestamps (both zero, negative, an end before its "
                            "start, or out of range)",
                            skipped, skipped == 1 ? "" : "s") < 0)
        return imp_sql_fail(s, NULL, "out of memory");
    return 0;
}

int imp_sql_finish(imp_sql *s, trace *t, const char *source, size_t skipped) {
    return finish(s, t, source, skipped, t->kernels.n + t->copies.n, true);
}

int imp_sql_finish_stream(imp_sql *s, trace *t, const char *source, size_t skipped,
                          size_t kept) {
    return finish(s, t, source, skipped, kept, false);
}

/* ---- streaming ------------------------------------------------------------ */

/* The database is read where it lies (sqlite3_deserialize), so a mapped
 * file's pages stay resident once read -- the whole file by the end of a
 * pass, or within one statement that sorts or copies a table. Every 2^20
 * VM steps they are dropped (sqlite_util.h); they come back from the page
 * cache when read again. */
static int drop_pages(void *arg) {
    imp_stream_forget(((imp_sql *)arg)->cx, ((imp_sql *)arg)->f);
    /* a cancelled import interrupts the statement (a sort of millions of
     * rows reads none for seconds): SQLITE_INTERRUPT, the import fails */
    return imp_cancel_now(((imp_sql *)arg)->cx) ? 1 : 0;
}

int imp_sql_stream_begin(imp_sql *s) {
    sqlite3_progress_handler(s->db, 1 << 20, drop_pages, s);
    /* the ORDER BY sorter and temp.api spill to temporary files (deleted
     * when closed) past a page cache of a few MB, where temp_store=MEMORY
     * would hold them whole */
    if (sqlite3_exec(s->db, "PRAGMA temp_store=FILE; PRAGMA temp.cache_size=-4096", NULL, NULL,
                     NULL) != SQLITE_OK)
        return imp_sql_fail(s, NULL, "cannot set up a temporary store: %s",
                            sqlite3_errmsg(s->db));
    return 0;
}

int imp_sql_api_temp(imp_sql *s, const char *table, const char *sql) {
    /* the rows imp_sql_map_load keeps (four integers), keyed as the map is
     * sorted; the same row twice changes no answer */
    char *ins = sqlite3_mprintf("CREATE TEMP TABLE IF NOT EXISTS api(k0 INTEGER, k1 INTEGER, "
                                "k2 INTEGER, v INTEGER, PRIMARY KEY (k0, k1, k2, v)) WITHOUT ROWID;"
                                "WITH q(k0, k1, k2, v) AS (%s) INSERT OR IGNORE INTO temp.api "
                                "SELECT k0, k1, k2, v FROM q WHERE typeof(k0) = 'integer' AND "
                                "typeof(k1) = 'integer' AND typeof(k2) = 'integer' AND "
                                "typeof(v) = 'integer'", sql);
    if (!ins) return imp_sql_fail(s, table, "out of memory");
    int rc = sqlite3_exec(s->db, ins, NULL, NULL, NULL);
    sqlite3_free(ins);
    if (rc != SQLITE_OK)
        return imp_sql_fail(s, table, "cannot be read: %s", sqlite3_errmsg(s->db));
    return 0;
}

int imp_sql_api_index(imp_sql *s, sqlite3_stmt **q) {
    *q = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM temp.sqlite_master WHERE name = 'api'", -1, &st,
                           NULL) != SQLITE_OK)
        return imp_sql_fail(s, NULL, "temporary table: %s", sqlite3_errmsg(s->db));
    int has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!has) return 0;
    if (sqlite3_prepare_v2(s->db, "SELECT v FROM temp.api WHERE k0 = ?1 AND k1 = ?2 "
                                  "AND k2 = ?3 ORDER BY v LIMIT 1", -1, q, NULL) != SQLITE_OK)
        return imp_sql_fail(s, NULL, "temporary table: %s", sqlite3_errmsg(s->db));
    return 0;
}

/* Step st[i]; keys[i] its row's start, live[i] false at its end. */
static int merge_step(imp_sql *s, sqlite3_stmt **st, const char *const *tables, size_t i,
                      int start_col, bool *live, int64_t *keys) {
    int rc = imp_sql_step(s, tables[i], st[i]);
    if (rc < 0) return -1;
    live[i] = rc == SQLITE_ROW;
    /* a start that is not an integer (NULL, text, a fraction) sorts
     * anywhere, but its row is refused when it is read, and the import with
     * it (whole_message): a kept row's start is an integer, and SQLite
     * orders integers and integral reals as int64 does */
    if (live[i]) keys[i] = sqlite3_column_int64(st[i], start_col);
    return 0;
}

/* The table whose row comes next: the earliest start, the first table on a
 * tie; n when all are done. */
static size_t merge_next(const bool *live, const int64_t *keys, size_t n) {
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (live[i] && (best == n || keys[i] < keys[best])) best = i;
    return best;
}

#define MERGE_MAX 4

int imp_sql_stream_kernels(imp_sql *s, trace *t, sqlite3_stmt **st, const char *const *tables,
                           size_t n, imp_sql_src *src, imp_sql_name_cache *names) {
    if (n > MERGE_MAX) return imp_sql_fail(s, NULL, "too many kernel tables");
    kernel_caches kc;
    if (kernel_caches_open(s, src, &kc) < 0) return -1;
    bool live[MERGE_MAX];
    int64_t keys[MERGE_MAX];
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++)
        r = merge_step(s, st, tables, i, IMP_SQL_K_START, live, keys);
    for (size_t i; r == 0 && (i = merge_next(live, keys, n)) < n;) {
        src->table = tables[i];
        if (kernel_row(s, t, st[i], src, names, &kc.streams, &kc.procs, &kc.kn) < 0 ||
            imp_stream_rows(s->cx, t, NULL, 0, s->err, s->errlen) < 0 ||
            merge_step(s, st, tables, i, IMP_SQL_K_START, live, keys) < 0)
            r = -1;
    }
    sqlite3_finalize(kc.kn.lookup);
    return r;
}

int imp_sql_stream_copies(imp_sql *s, trace *t, sqlite3_stmt **st, const char *const *tables,
                          const bool *memset_, size_t n, imp_sql_src *src) {
    if (n > MERGE_MAX) return imp_sql_fail(s, NULL, "too many copy tables");
    name_cache streams, procs;
    memset(&streams, 0, sizeof streams);
    memset(&procs, 0, sizeof procs);
    trace_str mname[MERGE_MAX];
    for (size_t i = 0; i < n; i++) mname[i] = memset_[i] ? trace_intern(t, "[CUDA memset]") : 0;
    bool live[MERGE_MAX];
    int64_t keys[MERGE_MAX];
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++)
        r = merge_step(s, st, tables, i, IMP_SQL_C_START, live, keys);
    for (size_t i; r == 0 && (i = merge_next(live, keys, n)) < n;) {
        src->table = tables[i];
        if (copy_row(s, t, st[i], src, mname[i], &streams, &procs) < 0 ||
            imp_stream_rows(s->cx, t, NULL, 0, s->err, s->errlen) < 0 ||
            merge_step(s, st, tables, i, IMP_SQL_C_START, live, keys) < 0)
            r = -1;
    }
    return r;
}

/* ---- detection ------------------------------------------------------------ */

int imp_sqlite_kind(const unsigned char *data, size_t len) {
    if (!imp_sql_is_sqlite(data, len)) return IMP_UNKNOWN;
    imp_file f = { "input", data, len };
    imp_sql s;
    char err[8];
    if (imp_sql_open(&s, &f, err, sizeof err) < 0) return IMP_UNKNOWN;
    int kind = IMP_UNKNOWN;
    /* profiler-trace-formats.md §6: Version + StringTable is nvprof;
     * StringIds + a metadata table is nsys */
    if (imp_sql_has_table(&s, "StringTable") == 1 && imp_sql_has_table(&s, "Version") == 1)
        kind = IMP_NVPROF_SQLITE;
    else if (imp_sql_has_table(&s, "StringIds") == 1 &&
             (imp_sql_has_table(&s, "META_DATA_EXPORT") == 1 ||
              imp_sql_has_table(&s, "EXPORT_META_DATA") == 1 ||
              imp_sql_has_table(&s, "CUPTI_ACTIVITY_KIND_KERNEL") == 1))
        kind = IMP_NSYS_SQLITE;
    imp_sql_close(&s);
    return kind;
}

/* Why no format took an SQLite file (issue 31, point 8): "cannot tell the
 * format" said nothing about a database that SQLite cannot read, nor about
 * one written in WAL mode whose tables sat in a -wal file the upload did not
 * carry (a WAL database's main file holds only what was checkpointed). */
int imp_sqlite_unknown(const imp_file *f, char *err, size_t errlen) {
    imp_sql s;
    if (imp_sql_open(&s, f, err, errlen) < 0) return -1;   /* its message names the cause */
    bool wal = f->len >= 20 && (f->data[18] == 2 || f->data[19] == 2);
    sqlite3_stmt *st = NULL;
    int tables = 0;
    if (sqlite3_prepare_v2(s.db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'", -1,
                           &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        tables = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (wal && tables == 0)
        imp_sql_fail(&s, NULL, "an SQLite database last written in WAL mode with no table in "
                               "the file itself: its tables are still in its -wal file, which "
                               "was not imported; checkpoint it beside its -wal file (sqlite3 "
                               "FILE 'PRAGMA wal_checkpoint(TRUNCATE)') and import it again");
    else
        imp_sql_fail(&s, NULL, "an SQLite database of %d table%s that is neither an nvprof "
                               "export (tables Version, StringTable) nor an Nsight Systems export "
                               "(StringIds and META_DATA_EXPORT or EXPORT_META_DATA)%s",
                     tables, tables == 1 ? "" : "s",
                     wal ? "; it was last written in WAL mode, so tables still in its -wal "
                           "file are missing: checkpoint it (sqlite3 FILE 'PRAGMA "
                           "wal_checkpoint(TRUNCATE)') and import it again" : "");
    imp_sql_close(&s);
    return -1;
}
