/* nvprof_sqlite.c -- nvprof exports (`nvprof -o x.nvvp`, .prof, .nvprof):
 * an SQLite database of CUPTI activity records, schema Version 12 to 18+
 * (profiler-trace-formats.md §2).
 *
 * What is read: kernels from CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL and
 * CUPTI_ACTIVITY_KIND_KERNEL (nvprof fills the second one only when
 * concurrent kernel tracing is off, §5 item 12), copies from ..._MEMCPY,
 * memsets from ..._MEMSET, names from StringTable, the launch time from the
 * RUNTIME (else DRIVER) API record with the same correlationId, stream
 * priorities from ..._STREAM and the device from ..._DEVICE: the run's
 * device the one most kernels ran on, and with work on several GPUs one
 * entry per deviceId in trace.devices (DESIGN §5; sqlite_util.h
 * imp_sql_devices). Timestamps stay absolute epoch nanoseconds; imp_import
 * re-bases them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "sqlite_util.h"

#define T_CKERNEL "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"
#define T_KERNEL "CUPTI_ACTIVITY_KIND_KERNEL"
#define T_MEMCPY "CUPTI_ACTIVITY_KIND_MEMCPY"
#define T_MEMSET "CUPTI_ACTIVITY_KIND_MEMSET"
#define T_RUNTIME "CUPTI_ACTIVITY_KIND_RUNTIME"
#define T_DRIVER "CUPTI_ACTIVITY_KIND_DRIVER"
#define T_STREAM "CUPTI_ACTIVITY_KIND_STREAM"
#define T_DEVICE "CUPTI_ACTIVITY_KIND_DEVICE"

#define SQL_MAX 4096

static int has_corr(imp_sql *s, const char *table) {
    static const char *const cols[] = { "correlationId", NULL };
    return imp_sql_table_has(s, table, cols);
}

/* Finish "SELECT k.rowid, <columns>" with `pre`, the correlation id (NULL
 * where the table has none), `post` and the FROM clause, then prepare it:
 * the row shape imp_sql_read_kernels / imp_sql_read_copies expect. */
static int prepare_rows(imp_sql *s, const char *table, char *sql, size_t cap, const char *pre,
                        const char *post, sqlite3_stmt **st) {
    int corr = has_corr(s, table);
    if (corr < 0) return -1;
    size_t n = strlen(sql);
    if (snprintf(sql + n, cap - n, "%s, %s%s FROM \"%s\" k ORDER BY %s", pre,
                 corr ? "k.correlationId" : "NULL", post, table, IMP_SQL_ORDER(s)) >= (int)(cap - n))
        return imp_sql_fail(s, table, "query too long");
    return imp_sql_prepare(s, table, sql, st);
}

static int prepare_kernels(imp_sql *s, trace *t, const char *table, sqlite3_stmt **st) {
    imp_sql_col cols[] = {
        { "start", true, false }, { "end", true, false }, { "deviceId", false, false },
        { "contextId", false, false }, { "streamId", false, false },
        { "gridX", false, false }, { "gridY", false, false }, { "gridZ", false, false },
        { "blockX", false, false }, { "blockY", false, false }, { "blockZ", false, false },
        { "registersPerThread", false, false }, { "staticSharedMemory", false, false },
        { "dynamicSharedMemory", false, false }, { "name", true, false },
    };
    char sql[SQL_MAX] = "SELECT k.rowid";
    if (imp_sql_columns(s, table, "k", cols, sizeof cols / sizeof *cols, sql, sizeof sql) < 0 ||
        imp_sql_absent_cols(s, t, table, cols, sizeof cols / sizeof *cols) < 0)
        return -1;
    return prepare_rows(s, table, sql, sizeof sql, ", NULL", ", NULL, NULL", st);
}

static int read_kernels(imp_sql *s, trace *t, const char *table, imp_sql_name_cache *names,
                        imp_sql_src *src) {
    sqlite3_stmt *st = NULL;
    if (prepare_kernels(s, t, table, &st) < 0) return -1;
    src->table = table;
    int r = imp_sql_read_kernels(s, t, st, src, names);
    sqlite3_finalize(st);
    return r;
}

static int prepare_copies(imp_sql *s, trace *t, const char *table, bool memset_,
                          sqlite3_stmt **st) {
    imp_sql_col cols[] = {
        { "start", true, false }, { "end", true, false }, { "deviceId", false, false },
        { "contextId", false, false }, { "streamId", false, false }, { "bytes", true, false },
        { memset_ ? NULL : "copyKind", false, false },
        { memset_ ? "memoryKind" : "srcKind", false, false },
        { memset_ ? NULL : "dstKind", false, false },
    };
    char sql[SQL_MAX] = "SELECT k.rowid";
    if (imp_sql_columns(s, table, "k", cols, sizeof cols / sizeof *cols, sql, sizeof sql) < 0 ||
        imp_sql_absent_cols(s, t, table, cols, sizeof cols / sizeof *cols) < 0)
        return -1;
    return prepare_rows(s, table, sql, sizeof sql, "", ", NULL, NULL", st);
}

static int read_copies(imp_sql *s, trace *t, const char *table, bool memset_, imp_sql_src *src) {
    sqlite3_stmt *st = NULL;
    if (prepare_copies(s, t, table, memset_, &st) < 0) return -1;
    src->table = table;
    int r = imp_sql_read_copies(s, t, st, src, memset_);
    sqlite3_finalize(st);
    return r;
}

static int api_temp(imp_sql *s, imp_sql_map *m, const char *table, const char *sql) {
    (void)m;
    return imp_sql_api_temp(s, table, sql);
}

/* Launch times: RUNTIME records first (rank 0), DRIVER ones for launches
 * made through the driver API (rank 1). Stream priorities from STREAM. */
static int load_maps(imp_sql *s, imp_sql_map *api, imp_sql_map *prio, bool temp) {
    /* streaming: the API calls into temp.api (sqlite_util.h), not memory */
    int (*load_api)(imp_sql *, imp_sql_map *, const char *, const char *) =
        temp ? api_temp : imp_sql_map_load;
    static const char *const api_cols[] = { "correlationId", "start", NULL };
    static const char *const stream_cols[] = { "contextId", "streamId", "priority", NULL };
    static const char *const end_col[] = { "end", NULL };
    int r1 = imp_sql_table_has(s, T_RUNTIME, api_cols);
    int r2 = imp_sql_table_has(s, T_DRIVER, api_cols);
    int r3 = imp_sql_table_has(s, T_STREAM, stream_cols);
    int e1 = r1 == 1 ? imp_sql_table_has(s, T_RUNTIME, end_col) : 0;
    int e2 = r2 == 1 ? imp_sql_table_has(s, T_DRIVER, end_col) : 0;
    if (r1 < 0 || r2 < 0 || r3 < 0 || e1 < 0 || e2 < 0) return -1;
    /* each call's start (third key rank * 2) and end (rank * 2 + 1):
     * sqlite_util.c issue_time takes the time it handed the work over */
    if (r1 == 1 && load_api(s, api, T_RUNTIME,
                            e1 ? "SELECT correlationId, 0, 0, start FROM " T_RUNTIME
                                 " UNION ALL SELECT correlationId, 0, 1, end FROM " T_RUNTIME
                               : "SELECT correlationId, 0, 0, start FROM " T_RUNTIME) < 0)
        return -1;
    if (r2 == 1 && load_api(s, api, T_DRIVER,
                            e2 ? "SELECT correlationId, 0, 2, start FROM " T_DRIVER
                                 " UNION ALL SELECT correlationId, 0, 3, end FROM " T_DRIVER
                               : "SELECT correlationId, 0, 2, start FROM " T_DRIVER) < 0)
        return -1;
    if (r3 == 1 && imp_sql_map_load(s, prio, T_STREAM,
                                    "SELECT contextId, streamId, 0, priority FROM " T_STREAM) < 0)
        return -1;
    imp_sql_map_sort(api);
    imp_sql_map_sort(prio);
    return 0;
}

/* A streaming import's rows (sqlite_util.h): by start, the launch times
 * from temp.api. */
static int stream_rows(imp_sql *s, trace *t, imp_sql_name_cache *names, imp_sql_src *src,
                       const bool present[4]) {
    static const char *const all[] = { T_CKERNEL, T_KERNEL, T_MEMCPY, T_MEMSET };
    int r = imp_sql_api_index(s, &src->api_q);
    s->order = IMP_SQL_BY_START;
    sqlite3_stmt *st[2] = { NULL, NULL };
    const char *tables[2];
    bool memset_[2];
    for (int part = 0; part < 2 && r == 0; part++) {
        size_t n = 0;
        for (int i = 0; i < 2 && r == 0; i++) {
            int k = 2 * part + i;
            if (!present[k]) continue;
            tables[n] = all[k];
            memset_[n] = k == 3;
            r = part ? prepare_copies(s, t, all[k], k == 3, &st[n])
                     : prepare_kernels(s, t, all[k], &st[n]);
            if (r == 0) n++;
        }
        /* CUPTI's memory-kind numbers as they are, as read_copies has them */
        if (r == 0)
            r = part ? imp_sql_stream_copies(s, t, st, tables, memset_, n, src)
                     : imp_sql_stream_kernels(s, t, st, tables, n, src, names);
        for (size_t i = 0; i < n; i++) sqlite3_finalize(st[i]);
        st[0] = st[1] = NULL;
    }
    if (r == 0) r = imp_stream_flush(s->cx, t, s->err, s->errlen);
    sqlite3_finalize(src->api_q);
    src->api_q = NULL;
    return r;
}

static int import(imp_sql *s, trace *t, imp_sql_name_cache *names, imp_sql_map *api,
                  imp_sql_map *prio) {
    int has = imp_sql_has_table(s, "StringTable");
    if (has < 0) return -1;
    if (!has) {
        if (imp_sql_has_table(s, "StringIds") == 1)
            return imp_sql_fail(s, NULL, "not an nvprof export: table StringTable missing "
                                         "(this is an Nsight Systems export: import it as "
                                         "format nsys-sqlite)");
        return imp_sql_fail(s, NULL, "not an nvprof export: table StringTable missing");
    }
    imp_sql_col strcols[] = { { "_id_", true, false }, { "value", true, false } };
    char scratch[256] = "";
    if (imp_sql_columns(s, "StringTable", "s", strcols, 2, scratch, sizeof scratch) < 0) return -1;

    static const char *const kernel_tables[] = { T_CKERNEL, T_KERNEL, NULL };
    static const char *const copy_tables[] = { T_MEMCPY, T_MEMSET, NULL };
    bool present[4];
    bool any = false;
    for (int i = 0; i < 4; i++) {
        const char *tb = i < 2 ? kernel_tables[i] : copy_tables[i - 2];
        int h = imp_sql_has_table(s, tb);
        if (h < 0) return -1;
        present[i] = h;
        any = any || h;
    }
    if (!any)
        return imp_sql_fail(s, NULL, "no CUPTI activity tables (" T_CKERNEL ", " T_KERNEL ", "
                                     T_MEMCPY ", " T_MEMSET ")");

    char version[32];
    if (imp_sql_has_table(s, "Version") == 1) {
        if (imp_sql_text1(s, "Version", "SELECT * FROM Version", version, sizeof version) < 0)
            return -1;
        if (version[0] && trace_set_meta(t, "nvprof_export_version", version) < 0)
            return imp_sql_fail(s, NULL, "out of memory");
    }

    bool streaming = imp_stream_active(s->cx);
    if (streaming && imp_sql_stream_begin(s) < 0) return -1;
    if (load_maps(s, api, prio, streaming) < 0) return -1;
    imp_sql_src src = { .name_col = "name", .strings = "StringTable", .strings_id = "_id_",
                        .api = streaming ? NULL : api, .prio = prio };
    for (int i = 0; i < 4 && imp_progress_active(s->cx); i++)
        if (present[i] && imp_sql_count_rows(s, i < 2 ? kernel_tables[i] : copy_tables[i - 2]) < 0)
            return -1;
    /* CUPTI's memory-kind numbers as they are (src.mem_map, copy_map NULL):
     * nvprof is the reference */
    if (streaming) {
        if (stream_rows(s, t, names, &src, present) < 0) return -1;
    } else {
        for (int i = 0; i < 2; i++)
            if (present[i] && read_kernels(s, t, kernel_tables[i], names, &src) < 0) return -1;
        for (int i = 0; i < 2; i++)
            if (present[2 + i] && read_copies(s, t, copy_tables[i], i == 1, &src) < 0) return -1;
    }

    int64_t dev = 0;
    int found = imp_sql_main_device(&src, &dev);
    if (found && imp_sql_device(s, t, T_DEVICE, "id", dev, "StringTable", "_id_") < 0) return -1;
    /* a trace of several GPUs: one entry per deviceId (DESIGN §5) */
    if (imp_sql_devices(s, t, T_DEVICE, "id", "StringTable", "_id_") < 0) return -1;
    if (!streaming) return imp_sql_finish(s, t, "nvprof-sqlite", src.skipped);
    return imp_sql_finish_stream(s, t, "nvprof-sqlite", src.skipped, src.kept);
}

int imp_nvprof_sqlite(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                      size_t errlen) {
    (void)nfiles;   /* one file (not multi_file) */
    imp_sql s;
    if (imp_sql_open(&s, &files[0], err, errlen) < 0) return -1;
    s.cx = cx;
    imp_sql_name_cache names = { NULL, 0 };
    imp_sql_map api = { NULL, 0, 0, 0 }, prio = { NULL, 0, 0, 0 };
    int r = import(&s, out, &names, &api, &prio);
    free(names.v);
    imp_sql_map_free(&api);
    imp_sql_map_free(&prio);
    imp_sql_close(&s);
    return r;
}

static bool detect(const imp_file *f) {
    return imp_sqlite_kind(f->data, f->len) == IMP_NVPROF_SQLITE;
}

const imp_importer imp_nvprof_sqlite_format = {
    .name = "nvprof-sqlite",
    .hint = "nvprof -o / --export-profile database (.nvvp, .prof)",
    .detect = detect,
    .read = imp_nvprof_sqlite,
    .stream = true,
    .out_of_order = true,
};
