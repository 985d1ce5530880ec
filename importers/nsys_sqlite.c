/* nsys_sqlite.c -- Nsight Systems exports (`nsys export --type sqlite`),
 * releases 2021 to 2024+ (profiler-trace-formats.md §3).
 *
 * The schema drifts between releases, and this reads every variant seen:
 * the metadata table is EXPORT_META_DATA (up to 2022) or META_DATA_EXPORT;
 * lazy exports leave out empty tables (so a missing MEMSET table means no
 * memsets); greenContextId appears in 2024; the GPU table is TARGET_INFO_GPU
 * (TARGET_INFO_CUDA_GPU keyed by deviceId in early 2021); the ENUM_* tables
 * are read when present and built-in numbers used when not (2022.2 has none).
 * Memory kinds are numbered one lower than CUPTI/nvprof (0 = Pageable, §3.3
 * and §5 item 16) and are mapped onto the nvprof numbers.
 *
 * Kernel names come already demangled (demangledName, into StringIds); the
 * mangled form is kept as raw_name. Timestamps are session-relative ns;
 * imp_import re-bases them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "sqlite_util.h"

#define T_KERNEL "CUPTI_ACTIVITY_KIND_KERNEL"
#define T_MEMCPY "CUPTI_ACTIVITY_KIND_MEMCPY"
#define T_MEMSET "CUPTI_ACTIVITY_KIND_MEMSET"
#define T_RUNTIME "CUPTI_ACTIVITY_KIND_RUNTIME"
#define T_STREAM "TARGET_INFO_CUDA_STREAM"

#define SQL_MAX 4096

/* nsys packs the process id into bits 24..47 of globalPid and globalTid
 * (§3.4; the same decode as pipit's Nsight reader). */
#define PID_OF(col) "((" col " >> 24) & 16777215)"

typedef struct ctx {
    imp_sql *s;
    trace *t;
    imp_sql_map api, prio;
    int mem_map[64];
    int copy_map[64];
} ctx;

/* ---- enums ---------------------------------------------------------------- */

static const char *const mem_names[] = {
    [IMP_SQL_MEM_UNKNOWN] = "UNKNOWN", [IMP_SQL_MEM_PAGEABLE] = "PAGEABLE",
    [IMP_SQL_MEM_PINNED] = "PINNED", [IMP_SQL_MEM_DEVICE] = "DEVICE",
    [IMP_SQL_MEM_ARRAY] = "ARRAY", [IMP_SQL_MEM_MANAGED] = "MANAGED",
    [IMP_SQL_MEM_DEVICE_STATIC] = "DEVICE_STATIC", [IMP_SQL_MEM_MANAGED_STATIC] = "MANAGED_STATIC",
};

/* CUpti_ActivityMemcpyKind numbers by their enum names (§2.4, §3.3). */
static const char *const copy_names[] = {
    "UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH", "ATOA", "ATOD", "DTOA", "DTOD", "HTOH",
    "PTOP", "UVM_HTOD", "UVM_DTOH", "UVM_DTOD",
};

/* Read ENUM table `table` (id, name) and set map[id] to the index in
 * names[] whose text ends the name after `prefix` ("..._KIND_PINNED"). */
static int read_enum(ctx *c, const char *table, const char *prefix, const char *const *names,
                     size_t nnames, int *map) {
    static const char *const need[] = { "id", "name", NULL };
    int has = imp_sql_table_has(c->s, table, need);
    if (has <= 0) return has;
    sqlite3_stmt *st;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT id, name FROM \"%s\"", table);
    if (imp_sql_prepare(c->s, table, sql, &st) < 0) return -1;
    size_t plen = strlen(prefix);
    int rc;
    while ((rc = imp_sql_step(c->s, table, st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) continue;
        int64_t id = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (id < 0 || id >= 64 || !name) continue;
        const char *p = strstr(name, prefix);
        if (!p) continue;
        p += plen;
        for (size_t i = 0; i < nnames; i++)
            if (strcmp(p, names[i]) == 0) { map[id] = (int)i; break; }
    }
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

static int read_enums(ctx *c) {
    /* built in: nsys kind k is CUPTI kind k + 1 for 0..6, and 7 is Unknown */
    for (int i = 0; i < 64; i++) {
        c->mem_map[i] = i < 7 ? i + 1 : IMP_SQL_MEM_UNKNOWN;
        c->copy_map[i] = i < 14 ? i : 0;
    }
    if (read_enum(c, "ENUM_CUDA_MEM_KIND", "MEMORY_KIND_", mem_names,
                  sizeof mem_names / sizeof *mem_names, c->mem_map) < 0)
        return -1;
    return read_enum(c, "ENUM_CUDA_MEMCPY_OPER", "MEMCPY_KIND_", copy_names,
                     sizeof copy_names / sizeof *copy_names, c->copy_map);
}

/* ---- metadata ------------------------------------------------------------- */

static int read_meta(ctx *c) {
    static const char *const need[] = { "name", "value", NULL };
    static const char *const tables[] = { "META_DATA_EXPORT", "EXPORT_META_DATA" };
    static const char *const keys[][2] = {
        { "EXPORT_PRODUCT_VERSION", "nsys_version" },
        { "EXPORT_SCHEMA_VERSION", "nsys_export_schema" },
    };
    for (size_t i = 0; i < 2; i++) {
        int has = imp_sql_table_has(c->s, tables[i], need);
        if (has < 0) return -1;
        if (!has) continue;
        for (size_t k = 0; k < 2; k++) {
            char sql[160], val[128];
            snprintf(sql, sizeof sql, "SELECT value FROM %s WHERE name = '%s'", tables[i], keys[k][0]);
            if (imp_sql_text1(c->s, tables[i], sql, val, sizeof val) < 0) return -1;
            if (val[0] && trace_set_meta(c->t, keys[k][1], val) < 0)
                return imp_sql_fail(c->s, NULL, "out of memory");
        }
        return 0;
    }
    return 0;
}

/* ---- activity tables ------------------------------------------------------ */

/* Select items CORR, PID, GREEN and the end of the query. */
static int add_tail(ctx *c, const char *table, char *sql, const char *from, bool corr, bool pid,
                    bool green) {
    size_t n = strlen(sql);
    if (snprintf(sql + n, SQL_MAX - n, ", %s, %s, %s%s ORDER BY %s",
                 corr ? "k.correlationId" : "NULL", pid ? PID_OF("k.globalPid") : "NULL",
                 green ? "k.greenContextId" : "NULL", from, IMP_SQL_ORDER(c->s)) >= (int)(SQL_MAX - n))
        return imp_sql_fail(c->s, table, "query too long");
    return 0;
}

static int present_cols(ctx *c, const char *table, bool *corr, bool *pid, bool *green) {
    imp_sql_col cols[] = { { "correlationId", false, false }, { "globalPid", false, false },
                           { "greenContextId", false, false } };
    char scratch[256] = "";
    if (imp_sql_columns(c->s, table, "k", cols, 3, scratch, sizeof scratch) < 0) return -1;
    *corr = cols[0].present;
    *pid = cols[1].present;
    *green = cols[2].present;
    return 0;
}

static int prepare_kernels(ctx *c, sqlite3_stmt **st) {
    imp_sql_col cols[] = {
        { "start", true, false }, { "end", true, false }, { "deviceId", false, false },
        { "contextId", false, false }, { "streamId", false, false },
        { "gridX", false, false }, { "gridY", false, false }, { "gridZ", false, false },
        { "blockX", false, false }, { "blockY", false, false }, { "blockZ", false, false },
        { "registersPerThread", false, false }, { "staticSharedMemory", false, false },
        { "dynamicSharedMemory", false, false }, { "demangledName", true, false },
    };
    char sel[SQL_MAX] = "SELECT k.rowid", from[512];
    if (imp_sql_columns(c->s, T_KERNEL, "k", cols, sizeof cols / sizeof *cols, sel, sizeof sel) < 0 ||
        imp_sql_absent_cols(c->s, c->t, T_KERNEL, cols, sizeof cols / sizeof *cols) < 0)
        return -1;
    bool corr, pid, green;
    if (present_cols(c, T_KERNEL, &corr, &pid, &green) < 0) return -1;
    static const char *const mangled[] = { "mangledName", NULL };
    int has_mangled = imp_sql_table_has(c->s, T_KERNEL, mangled);
    if (has_mangled < 0) return -1;
    size_t n = strlen(sel);
    snprintf(sel + n, sizeof sel - n, "%s", has_mangled ? ", k.mangledName" : ", NULL");
    snprintf(from, sizeof from, " FROM " T_KERNEL " k");
    if (add_tail(c, T_KERNEL, sel, from, corr, pid, green) < 0) return -1;
    return imp_sql_prepare(c->s, T_KERNEL, sel, st);
}

static int read_kernels(ctx *c, imp_sql_name_cache *names, imp_sql_src *src) {
    sqlite3_stmt *st;
    if (prepare_kernels(c, &st) < 0) return -1;
    src->table = T_KERNEL;
    int r = imp_sql_read_kernels(c->s, c->t, st, src, names);
    sqlite3_finalize(st);
    return r;
}

static int prepare_copies(ctx *c, const char *table, bool memset_, sqlite3_stmt **st) {
    /* MEMSET's kind column is memKind in the exports seen (§3.3); accept
     * CUPTI's memoryKind spelling too */
    static const char *const mem_kind[] = { "memKind", NULL };
    int has_memkind = memset_ ? imp_sql_table_has(c->s, table, mem_kind) : 0;
    if (has_memkind < 0) return -1;
    imp_sql_col cols[] = {
        { "start", true, false }, { "end", true, false }, { "deviceId", false, false },
        { "contextId", false, false }, { "streamId", false, false }, { "bytes", true, false },
        { memset_ ? NULL : "copyKind", false, false },
        { memset_ ? (has_memkind ? "memKind" : "memoryKind") : "srcKind", false, false },
        { memset_ ? NULL : "dstKind", false, false },
    };
    char sel[SQL_MAX] = "SELECT k.rowid", from[128];
    if (imp_sql_columns(c->s, table, "k", cols, sizeof cols / sizeof *cols, sel, sizeof sel) < 0 ||
        imp_sql_absent_cols(c->s, c->t, table, cols, sizeof cols / sizeof *cols) < 0)
        return -1;
    bool corr, pid, green;
    if (present_cols(c, table, &corr, &pid, &green) < 0) return -1;
    snprintf(from, sizeof from, " FROM \"%s\" k", table);
    if (add_tail(c, table, sel, from, corr, pid, green) < 0) return -1;
    return imp_sql_prepare(c->s, table, sel, st);
}

static int read_copies(ctx *c, const char *table, bool memset_, imp_sql_src *src) {
    sqlite3_stmt *st;
    if (prepare_copies(c, table, memset_, &st) < 0) return -1;
    src->table = table;
    int r = imp_sql_read_copies(c->s, c->t, st, src, memset_);
    sqlite3_finalize(st);
    return r;
}

/* Launch times from RUNTIME and stream priorities from
 * TARGET_INFO_CUDA_STREAM, matched within the process where both sides say
 * which one it is (correlation ids are per process). */
static int load_maps(ctx *c, imp_sql_src *src, bool temp) {
    static const char *const api_cols[] = { "correlationId", "start", NULL };
    static const char *const api_pid[] = { "globalTid", NULL };
    static const char *const kernel_pid[] = { "globalPid", NULL };
    static const char *const stream_cols[] = { "contextId", "streamId", "priority", NULL };
    static const char *const stream_pid[] = { "processId", NULL };
    int r1 = imp_sql_table_has(c->s, T_RUNTIME, api_cols);
    int r2 = r1 == 1 ? imp_sql_table_has(c->s, T_RUNTIME, api_pid) : 0;
    int r3 = imp_sql_table_has(c->s, T_STREAM, stream_cols);
    int r4 = r3 == 1 ? imp_sql_table_has(c->s, T_STREAM, stream_pid) : 0;
    int k1 = imp_sql_table_has(c->s, T_KERNEL, kernel_pid);
    if (r1 < 0 || r2 < 0 || r3 < 0 || r4 < 0 || k1 < 0) return -1;
    src->api_by_pid = r2 == 1 && k1 == 1;
    src->prio_by_pid = r4 == 1 && k1 == 1;
    static const char *const end_col[] = { "end", NULL };
    int e1 = r1 == 1 ? imp_sql_table_has(c->s, T_RUNTIME, end_col) : 0;
    if (e1 < 0) return -1;
    /* each call's start (third key 0) and end (1): sqlite_util.c
     * issue_time takes the time it handed the work over */
    const char *api_sql =
        src->api_by_pid
            ? (e1 ? "SELECT correlationId, " PID_OF("globalTid") ", 0, start FROM " T_RUNTIME
                    " UNION ALL SELECT correlationId, " PID_OF("globalTid") ", 1, end FROM " T_RUNTIME
                  : "SELECT correlationId, " PID_OF("globalTid") ", 0, start FROM " T_RUNTIME)
            : (e1 ? "SELECT correlationId, 0, 0, start FROM " T_RUNTIME
                    " UNION ALL SELECT correlationId, 0, 1, end FROM " T_RUNTIME
                  : "SELECT correlationId, 0, 0, start FROM " T_RUNTIME);
    /* streaming: the API calls into temp.api (sqlite_util.h), not memory */
    if (r1 == 1 && (temp ? imp_sql_api_temp(c->s, T_RUNTIME, api_sql)
                         : imp_sql_map_load(c->s, &c->api, T_RUNTIME, api_sql)) < 0)
        return -1;
    if (r3 == 1 &&
        imp_sql_map_load(c->s, &c->prio, T_STREAM,
                         src->prio_by_pid ? "SELECT contextId, streamId, processId, priority FROM " T_STREAM
                                          : "SELECT contextId, streamId, 0, priority FROM " T_STREAM) < 0)
        return -1;
    imp_sql_map_sort(&c->api);
    imp_sql_map_sort(&c->prio);
    return 0;
}

/* A streaming import's rows (sqlite_util.h): by start, the launch times
 * from temp.api. */
static int stream_rows(ctx *c, imp_sql_name_cache *names, imp_sql_src *src, const bool present[3]) {
    imp_sql *s = c->s;
    int r = imp_sql_api_index(s, &src->api_q);
    s->order = IMP_SQL_BY_START;
    sqlite3_stmt *st[2] = { NULL, NULL };
    static const char *const ktables[] = { T_KERNEL };
    static const char *const all_copies[] = { T_MEMCPY, T_MEMSET };
    if (r == 0 && present[0]) {
        r = prepare_kernels(c, &st[0]);
        if (r == 0) r = imp_sql_stream_kernels(s, c->t, st, ktables, 1, src, names);
        sqlite3_finalize(st[0]);
        st[0] = NULL;
    }
    const char *tables[2];
    bool memset_[2];
    size_t n = 0;
    for (int i = 0; i < 2 && r == 0; i++) {
        if (!present[1 + i]) continue;
        tables[n] = all_copies[i];
        memset_[n] = i == 1;
        r = prepare_copies(c, all_copies[i], i == 1, &st[n]);
        if (r == 0) n++;
    }
    if (r == 0) r = imp_sql_stream_copies(s, c->t, st, tables, memset_, n, src);
    for (size_t i = 0; i < n; i++) sqlite3_finalize(st[i]);
    if (r == 0) r = imp_stream_flush(s->cx, c->t, s->err, s->errlen);
    sqlite3_finalize(src->api_q);
    src->api_q = NULL;
    return r;
}

static int import(ctx *c, imp_sql_name_cache *names) {
    imp_sql *s = c->s;
    int has = imp_sql_has_table(s, "StringIds");
    if (has < 0) return -1;
    if (!has) {
        if (imp_sql_has_table(s, "StringTable") == 1)
            return imp_sql_fail(s, NULL, "not an Nsight Systems export: table StringIds missing "
                                         "(this is an nvprof export: import it as format "
                                         "nvprof-sqlite)");
        return imp_sql_fail(s, NULL, "not an Nsight Systems export: table StringIds missing");
    }
    imp_sql_col strcols[] = { { "id", true, false }, { "value", true, false } };
    char scratch[256] = "";
    if (imp_sql_columns(s, "StringIds", "s", strcols, 2, scratch, sizeof scratch) < 0) return -1;

    static const char *const tables[] = { T_KERNEL, T_MEMCPY, T_MEMSET, NULL };
    bool present[3], any = false;
    for (int i = 0; i < 3; i++) {
        int h = imp_sql_has_table(s, tables[i]);
        if (h < 0) return -1;
        present[i] = h;
        any = any || h;
    }
    /* a lazy export leaves out empty tables: none of the three means no
     * CUDA activity was captured */
    if (!any)
        return imp_sql_fail(s, NULL, "no CUDA activity: tables " T_KERNEL ", " T_MEMCPY
                                     " and " T_MEMSET " are absent (was it profiled with "
                                     "--trace=cuda?)");

    if (read_meta(c) < 0 || read_enums(c) < 0) return -1;
    imp_sql_src src = { .name_col = "demangledName", .strings = "StringIds", .strings_id = "id",
                        .name_is_display = true,
                        .mem_map = c->mem_map, .copy_map = c->copy_map,
                        .api = &c->api, .prio = &c->prio };
    bool streaming = imp_stream_active(s->cx);
    if (streaming && imp_sql_stream_begin(s) < 0) return -1;
    if (load_maps(c, &src, streaming) < 0) return -1;
    if (streaming) src.api = NULL;
    for (int i = 0; i < 3 && imp_progress_active(s->cx); i++)
        if (present[i] && imp_sql_count_rows(s, tables[i]) < 0) return -1;
    if (streaming) {
        if (stream_rows(c, names, &src, present) < 0) return -1;
    } else {
        if (present[0] && read_kernels(c, names, &src) < 0) return -1;
        if (present[1] && read_copies(c, T_MEMCPY, false, &src) < 0) return -1;
        if (present[2] && read_copies(c, T_MEMSET, true, &src) < 0) return -1;
    }

    int64_t dev = 0;
    int found = imp_sql_main_device(&src, &dev);
    if (found) {   /* (entries only where a record named its deviceId) */
        int gpu = imp_sql_has_table(s, "TARGET_INFO_GPU");
        if (gpu < 0) return -1;
        const char *table = gpu ? "TARGET_INFO_GPU" : "TARGET_INFO_CUDA_GPU";
        const char *key = gpu ? "id" : "deviceId";
        if (imp_sql_device(s, c->t, table, key, dev, NULL, NULL) < 0) return -1;
        /* a trace of several GPUs: one entry per deviceId (DESIGN §5) */
        if (imp_sql_devices(s, c->t, table, key, NULL, NULL) < 0) return -1;
    }
    if (!streaming) return imp_sql_finish(s, c->t, "nsys-sqlite", src.skipped);
    return imp_sql_finish_stream(s, c->t, "nsys-sqlite", src.skipped, src.kept);
}

int imp_nsys_sqlite(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                    size_t errlen) {
    (void)nfiles;   /* one file (not multi_file) */
    imp_sql s;
    if (imp_sql_open(&s, &files[0], err, errlen) < 0) return -1;
    s.cx = cx;
    ctx c;
    memset(&c, 0, sizeof c);
    c.s = &s;
    c.t = out;
    imp_sql_name_cache names = { NULL, 0 };
    int r = import(&c, &names);
    free(names.v);
    imp_sql_map_free(&c.api);
    imp_sql_map_free(&c.prio);
    imp_sql_close(&s);
    return r;
}

static bool detect(const imp_file *f) {
    return imp_sqlite_kind(f->data, f->len) == IMP_NSYS_SQLITE;
}

const imp_importer imp_nsys_sqlite_format = {
    .name = "nsys-sqlite",
    .hint = "nsys export --type sqlite database (.sqlite)",
    .detect = detect,
    .read = imp_nsys_sqlite,
    .stream = true,
    .out_of_order = true,
};
