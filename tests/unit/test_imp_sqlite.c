/* test_imp_sqlite.c -- the SQLite importers: nvprof exports (.prof/.nvvp)
 * and Nsight Systems exports (.sqlite), their detection, and their errors.
 *
 * The three real exports are read from $SCHEDLAB_TRACES (those tests are
 * skipped when it is absent; test_fixtures.c covers both importers on
 * generated exports). Every
 * expected number was taken from the file with the sqlite3 command-line
 * tool; the query is written next to each one (K = the kernel table, M =
 * CUPTI_ACTIVITY_KIND_MEMCPY, R = CUPTI_ACTIVITY_KIND_RUNTIME). The other
 * tests build small databases in memory (sqlite3_serialize) so every rule --
 * memory-kind numbering, skipped rows, sorting, launch times, priorities,
 * green contexts -- is checked on rows whose answer is known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <unistd.h>

#include "../../importers/formats.h"
#include "../../importers/importers.h"
#include "../../importers/trace_check.h"
#include "test_imp_util.h"

#define KSCHED "nvprof_export_v18_ksched_rtx2080ti_timeline.prof"
#define T4 "nsys2022.4_export_lianhang_t4_vectorAdd_streams_report2.sqlite"
#define CLOVER "nsys2024.5_export_pipit_cloverleaf_a100.sqlite"
#define BLINK "nvprof_export_v16_blinkplus_8xv100_nccl_output.nvvp"
#define FUSER "nsys2024.6_export_fuser_h100_report2.sqlite"

/* ---- helpers -------------------------------------------------------------- */


typedef imp_read_fn importer;   /* called with no context: no progress, no streaming */

/* Import a real trace with one importer called directly; fails the test
 * with the importer's message on error. */
static void import_shared(importer fn, const char *rel, trace *t) {
    size_t len;
    unsigned char *d = read_trace(rel, &len);
    imp_file f = { rel, d, len };
    char err[512] = "";
    trace_init(t);
    int r = fn(NULL, &f, 1, t, err, sizeof err);
    free(d);
    if (r != 0) fail_msg("%s: %s", rel, err);
}

/* A database built from SQL, as the bytes of its file. */
typedef struct db_bytes {
    unsigned char *data;
    size_t len;
} db_bytes;

static db_bytes make_db(const char *sql) {
    db_bytes b;
    b.data = test_sql_bytes(sql, &b.len);
    return b;
}

/* Run an importer on SQL-built bytes named `name`; returns its result and
 * leaves its message in err. */
static int import_sql(importer fn, const char *name, const char *sql, trace *t, char *err,
                      size_t errlen) {
    db_bytes b = make_db(sql);
    imp_file f = { name, b.data, b.len };
    trace_init(t);
    err[0] = '\0';
    int r = fn(NULL, &f, 1, t, err, errlen);
    sqlite3_free(b.data);
    return r;
}

static size_t distinct_streams(const trace *t) {
    size_t n = 0;
    trace_str seen[64];
    for (size_t i = 0; i < t->kernels.n + t->copies.n; i++) {
        trace_str s = i < t->kernels.n ? t->kernels.v[i].stream
                                       : t->copies.v[i - t->kernels.n].stream;
        size_t j = 0;
        while (j < n && seen[j] != s) j++;
        if (j == n && n < 64) seen[n++] = s;
    }
    return n;
}

static size_t count_dir(const trace *t, int dir) {
    size_t n = 0;
    for (size_t i = 0; i < t->copies.n; i++) n += t->copies.v[i].direction == dir;
    return n;
}

static void assert_sorted(const trace *t) {
    for (size_t i = 1; i < t->kernels.n; i++)
        assert_true(t->kernels.v[i - 1].first_block <= t->kernels.v[i].first_block);
    for (size_t i = 1; i < t->copies.n; i++)
        assert_true(t->copies.v[i - 1].start <= t->copies.v[i].start);
}

static int64_t last_end(const trace *t) {
    int64_t m = INT64_MIN;
    for (size_t i = 0; i < t->kernels.n; i++)
        if (t->kernels.v[i].end > m) m = t->kernels.v[i].end;
    for (size_t i = 0; i < t->copies.n; i++)
        if (t->copies.v[i].end > m) m = t->copies.v[i].end;
    return m;
}

#define S(t, id) trace_str_get((t), (id))

/* ---- the real exports ----------------------------------------------------- */

static void test_nvprof_ksched(void **state) {
    (void)state;
    trace t;
    import_shared(imp_nvprof_sqlite, KSCHED, &t);
    assert_string_equal(t.source, "nvprof-sqlite");
    assert_string_equal(trace_get_meta(&t, "nvprof_export_version"), "18");  /* SELECT * FROM Version */
    /* SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL -> 72 (KERNEL: 0) */
    assert_int_equal(t.kernels.n, 72);
    /* SELECT count(*) FROM M -> 12; CUPTI_ACTIVITY_KIND_MEMSET -> 0 */
    assert_int_equal(t.copies.n, 12);
    assert_int_equal(count_dir(&t, TRACE_COPY_H2D), 12);     /* all copyKind = 1 */
    assert_int_equal(count_dir(&t, TRACE_COPY_MEMSET), 0);
    /* SELECT count(DISTINCT streamId) FROM (SELECT streamId FROM K UNION ALL
     *   SELECT streamId FROM M) -> 3 (7, 13, 14) */
    assert_int_equal(distinct_streams(&t), 3);
    assert_null(trace_get_meta(&t, "skipped_records"));
    assert_sorted(&t);

    /* SELECT k.start, k.end, k.gridX.., s.value, r.start FROM K k JOIN
     *   StringTable s ON s._id_ = k.name LEFT JOIN R r USING (correlationId)
     *   ORDER BY k.start LIMIT 1 */
    const trace_kernel *k = &t.kernels.v[0];
    assert_string_equal(S(&t, k->name), "vec_add(FixSizeBox<128ul>, KernelSlice)");
    assert_string_equal(S(&t, k->raw_name), "_Z7vec_add10FixSizeBoxILm128EE11KernelSlice");
    assert_int_equal(k->first_block, 1680846117981263376LL);
    assert_int_equal(k->end, 1680846117981986376LL);
    assert_int_equal(k->issue, 1680846117980102165LL);      /* cudaLaunchKernel (cbid 211) */
    assert_int_equal(k->fully_dispatched, TRACE_NONE);
    assert_string_equal(S(&t, k->stream), "13");
    assert_string_equal(S(&t, k->process), "gpu0 ctx1");
    assert_int_equal(k->priority, 0);                       /* STREAM row (1, 13): priority 0 */
    assert_int_equal(k->grid[0], 262144);
    assert_int_equal(k->grid[1], 1);
    assert_int_equal(k->grid[2], 1);
    assert_int_equal(k->block[0], 128);
    assert_int_equal(k->block[1], 1);
    assert_int_equal(k->block[2], 1);
    assert_int_equal(k->blocks, 262144);
    assert_int_equal(k->threads, 128);
    assert_int_equal(k->regs, 32);
    assert_int_equal(k->smem, 0);

    /* Row _id_ 8 is stored before rows 9..29 but starts after them:
     * SELECT pos FROM (SELECT row_number() OVER (ORDER BY start) - 1 pos, _id_
     *   FROM K) WHERE _id_ = 8 -> 26 */
    k = &t.kernels.v[26];
    assert_string_equal(S(&t, k->name), "sqrt_pow(FixSizeBox<128ul>, KernelSlice)");
    assert_int_equal(k->first_block, 1680846120666724134LL);
    assert_string_equal(S(&t, k->stream), "14");
    assert_int_equal(k->grid[0], 952);
    assert_int_equal(k->block[0], 32);
    assert_int_equal(k->regs, 36);
    assert_int_equal(k->blocks, 952);
    assert_int_equal(k->threads, 32);

    /* SELECT copyKind, bytes, start, end FROM M ORDER BY start LIMIT 1 */
    const trace_copy *c = &t.copies.v[0];
    assert_string_equal(S(&t, c->name), "[CUDA memcpy HtoD]");
    assert_int_equal(c->direction, TRACE_COPY_H2D);
    assert_int_equal(c->bytes, 134217728);
    assert_int_equal(c->start, 1680846117888367964LL);
    assert_int_equal(c->end, 1680846117937989472LL);
    assert_int_equal(c->issue, 1680846117887868656LL);
    assert_string_equal(S(&t, c->stream), "7");
    assert_int_equal(c->engine, -1);

    /* CUPTI_ACTIVITY_KIND_DEVICE: name 2 -> "NVIDIA GeForce RTX 2080 Ti",
     * numMultiprocessors 68, coreClockRate 1545000 (kHz), maxWarps 32 x 32 */
    assert_true(t.has_device);
    assert_string_equal(t.device.name, "NVIDIA GeForce RTX 2080 Ti");
    assert_int_equal(t.device.sms, 68);
    assert_int_equal(t.device.clock_hz, 1545000000LL);
    assert_int_equal(t.device.threads_per_sm, 1024);
    assert_int_equal(t.device.blocks_per_sm, 16);
    assert_int_equal(t.device.regs_per_sm, 65536);
    assert_int_equal(t.device.smem_per_sm, 65536);
    assert_int_equal(t.device.max_threads_per_block, 1024);
    assert_int_equal(t.device.warp_size, 32);
    assert_int_equal(t.device.sm_order[67], 67);

    /* origin: SELECT min(x) FROM (SELECT start x FROM K UNION ALL SELECT start
     *   FROM M UNION ALL SELECT start FROM R WHERE correlationId IN (SELECT
     *   correlationId FROM K UNION SELECT correlationId FROM M))
     *   -> 1680846117887868656 (the first cudaMemcpy call)
     * last end: SELECT max(x) FROM (SELECT end x FROM K UNION ALL SELECT end
     *   FROM M) -> 1680846121979229296 */
    assert_int_equal(last_end(&t), 1680846121979229296LL);
    assert_int_equal(trace_rebase(&t), 1680846117887868656LL);
    assert_int_equal(t.origin, 1680846117887868656LL);
    assert_int_equal(last_end(&t), 1680846121979229296LL - 1680846117887868656LL);
    trace_free(&t);
}

static void test_nsys_t4(void **state) {
    (void)state;
    trace t;
    import_shared(imp_nsys_sqlite, T4, &t);
    assert_string_equal(t.source, "nsys-sqlite");
    /* SELECT value FROM EXPORT_META_DATA WHERE name = 'EXPORT_PRODUCT_VERSION' */
    assert_string_equal(trace_get_meta(&t, "nsys_version"), "2022.4.2.1");
    assert_string_equal(trace_get_meta(&t, "nsys_export_schema"), "3.0.0");
    assert_int_equal(t.kernels.n, 200);           /* SELECT count(*) FROM K */
    assert_int_equal(t.copies.n, 600);            /* SELECT count(*) FROM M; no MEMSET table */
    /* SELECT copyKind, count(*) FROM M GROUP BY 1 -> 1|400, 2|200 */
    assert_int_equal(count_dir(&t, TRACE_COPY_H2D), 400);
    assert_int_equal(count_dir(&t, TRACE_COPY_D2H), 200);
    /* SELECT count(DISTINCT streamId) FROM (K UNION ALL M) -> 4 (13..16) */
    assert_int_equal(distinct_streams(&t), 4);
    assert_sorted(&t);

    /* SELECT k.*, d.value, m.value FROM K k JOIN StringIds d ON
     *   d.id = k.demangledName JOIN StringIds m ON m.id = k.mangledName
     *   ORDER BY start LIMIT 1 */
    const trace_kernel *k = &t.kernels.v[0];
    assert_string_equal(S(&t, k->name), "vecAdd(double *, double *, double *, int)");
    assert_string_equal(S(&t, k->raw_name), "_Z6vecAddPdS_S_i");
    assert_int_equal(k->first_block, 986026115);
    assert_int_equal(k->end, 986032227);
    /* issue 28: when the call handed the kernel over: R.end of correlationId
     * 117 (985820683 .. 986024988), which returned before the kernel started */
    assert_int_equal(k->issue, 986024988);
    assert_string_equal(S(&t, k->stream), "13");
    /* globalPid 282088251064320 >> 24 & 0xFFFFFF = 36554 */
    assert_string_equal(S(&t, k->process), "pid 36554 gpu0 ctx1");
    assert_int_equal(k->grid[0], 196);
    assert_int_equal(k->block[0], 256);
    assert_int_equal(k->blocks, 196);
    assert_int_equal(k->threads, 256);
    assert_int_equal(k->regs, 16);
    assert_int_equal(k->priority, 0);             /* TARGET_INFO_CUDA_STREAM 13: 0 */
    /* SELECT start, streamId, gridX FROM K ORDER BY start DESC LIMIT 1 */
    k = &t.kernels.v[199];
    assert_int_equal(k->first_block, 1005082088);
    assert_string_equal(S(&t, k->stream), "16");

    /* TARGET_INFO_GPU: Tesla T4, smCount 40, clockRate 1590000000 Hz */
    assert_true(t.has_device);
    assert_string_equal(t.device.name, "Tesla T4");
    assert_int_equal(t.device.sms, 40);
    assert_int_equal(t.device.clock_hz, 1590000000LL);
    assert_int_equal(t.device.threads_per_sm, 1024);

    /* origin (see test_imp_import_detects) -> 985813040; last end -> 1005120327 */
    assert_int_equal(trace_rebase(&t), 985813040);
    assert_int_equal(last_end(&t), 1005120327 - 985813040);
    trace_free(&t);
}

static void test_nsys_cloverleaf(void **state) {
    (void)state;
    trace t;
    import_shared(imp_nsys_sqlite, CLOVER, &t);
    assert_string_equal(trace_get_meta(&t, "nsys_version"), "2024.5.1.113");  /* META_DATA_EXPORT */
    assert_string_equal(trace_get_meta(&t, "nsys_export_schema"), "3.13.2");
    assert_int_equal(t.kernels.n, 1312);          /* SELECT count(*) FROM K */
    assert_int_equal(t.copies.n, 279);            /* M; the lazy export has no MEMSET table */
    /* SELECT copyKind, srcKind, dstKind, count(*) FROM M GROUP BY 1, 2, 3
     *   -> 1|0|2|254 (Pageable -> Device), 2|2|0|25 */
    assert_int_equal(count_dir(&t, TRACE_COPY_H2D), 254);
    assert_int_equal(count_dir(&t, TRACE_COPY_D2H), 25);
    assert_int_equal(distinct_streams(&t), 1);    /* everything on stream 7 */
    assert_sorted(&t);

    /* the last kernel: SELECT k.*, d.value, m.value ... ORDER BY start DESC
     *   LIMIT 1 -> rowid 1312, par_reduce_kernel, 256x256, 56 regs, 10240 B
     *   static shared memory */
    const trace_kernel *k = &t.kernels.v[1311];
    assert_string_equal(S(&t, k->name),
                        "void clover::par_reduce_kernel<field_summary(global_variables &, "
                        "parallel_ &)::[lambda(int) (instance 1)]>(T1)");
    assert_string_equal(S(&t, k->raw_name),
                        "_ZN6clover17par_reduce_kernelIZ13field_summaryR16global_variablesR9"
                        "parallel_EUliE_EEvT_");
    assert_int_equal(k->first_block, 874342630);
    assert_int_equal(k->end, 875678947);
    assert_int_equal(k->grid[0], 256);
    assert_int_equal(k->block[0], 256);
    assert_int_equal(k->regs, 56);
    assert_int_equal(k->smem, 10240);
    /* greenContextId is NULL on every row: no "green" in the name */
    assert_string_equal(S(&t, k->process), "pid 1701896 gpu0 ctx1");
    /* SELECT start, gridX FROM K ORDER BY start LIMIT 1 */
    assert_int_equal(t.kernels.v[0].first_block, 533338240);
    assert_int_equal(t.kernels.v[0].grid[0], 115426);

    /* the first device-to-host copy: SELECT rowid, start, bytes FROM M WHERE
     * copyKind = 2 ORDER BY start LIMIT 1 -> rowid 15 (index 14) */
    const trace_copy *c = &t.copies.v[14];
    assert_int_equal(c->direction, TRACE_COPY_D2H);
    assert_string_equal(S(&t, c->name), "[CUDA memcpy DtoH]");
    assert_int_equal(c->start, 545745118);
    assert_int_equal(c->bytes, 2048);

    /* TARGET_INFO_GPU id 0 (of 4 A100s; all kernels on device 0) */
    assert_string_equal(t.device.name, "NVIDIA A100-SXM4-80GB");
    assert_int_equal(t.device.sms, 108);
    assert_int_equal(t.device.threads_per_sm, 2048);
    assert_int_equal(t.device.smem_per_sm, 167936);

    assert_int_equal(trace_rebase(&t), 533337262);   /* see test_imp_import_detects */
    assert_int_equal(last_end(&t), 875746050 - 533337262);
    trace_free(&t);
}

/* The whole path: detection, import, re-basing, meta. */
static void test_imp_import_detects(void **state) {
    (void)state;
    static const struct { const char *rel; imp_format fmt; int64_t origin, span; size_t k, c; } cases[] = {
        { KSCHED, IMP_NVPROF_SQLITE, 1680846117887868656LL, 4091360640LL, 72, 12 },
        /* origins: the earliest start or hand-off time (issue 28: a call's
         * end where it returned before its work started, else its start):
         * SELECT min(min(w.start), min(CASE WHEN r.end <= w.start THEN r.end
         * ELSE r.start END)) over kernels, copies and memsets w joined with
         * RUNTIME r on correlationId */
        { T4, IMP_NSYS_SQLITE, 985813040, 19307287, 200, 600 },
        { CLOVER, IMP_NSYS_SQLITE, 533337262, 342408788, 1312, 279 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len;
        unsigned char *d = read_trace(cases[i].rel, &len);
        assert_int_equal(imp_sqlite_kind(d, len), cases[i].fmt);
        imp_file f = { "upload.bin", d, len };
        assert_int_equal(imp_detect(&f), cases[i].fmt);
        trace t;
        trace_init(&t);
        char err[512] = "";
        int r = imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err);
        if (r != 0) fail_msg("%s: %s", cases[i].rel, err);
        assert_int_equal(t.origin, cases[i].origin);
        char num[32];
        snprintf(num, sizeof num, "%lld", (long long)cases[i].origin);
        assert_string_equal(trace_get_meta(&t, "origin_ns"), num);
        int64_t lo, hi;
        trace_time_span(&t, &lo, &hi);
        assert_int_equal(lo, 0);
        assert_int_equal(hi, cases[i].span);
        assert_int_equal(t.kernels.n, cases[i].k);
        assert_int_equal(t.copies.n, cases[i].c);
        trace_free(&t);
        free(d);
    }
}

/* ---- small databases: the rules ------------------------------------------- */

#define NV_BASE \
    "CREATE TABLE Version(version INTEGER); INSERT INTO Version VALUES(12);" \
    "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE);" \
    "INSERT INTO StringTable VALUES(0, '-- null --'), (1, '_Z6vecAddPdS_S_i'), (2, 'plain_kernel');" \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, cbid INT," \
    " start INT, end INT, processId INT, threadId INT, correlationId INT, returnValue INT);" \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, cbid INT," \
    " start INT, end INT, processId INT, threadId INT, correlationId INT, returnValue INT);" \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_STREAM(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, contextId INT," \
    " streamId INT, priority INT, flag INT, correlationId INT);"

#define NV_KERNEL_COLS \
    "(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, registersPerThread INT, start INT, end INT," \
    " deviceId INT, contextId INT, streamId INT, gridX INT, gridY INT, gridZ INT, blockX INT," \
    " blockY INT, blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT," \
    " correlationId INT, name INT)"

#define NV_TABLES \
    NV_BASE \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL" NV_KERNEL_COLS ";" \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL" NV_KERNEL_COLS ";" \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, copyKind INT," \
    " srcKind INT, dstKind INT, flags INT, bytes INT, start INT, end INT, deviceId INT," \
    " contextId INT, streamId INT, correlationId INT, runtimeCorrelationId INT);" \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value INT," \
    " bytes INT, start INT, end INT, deviceId INT, contextId INT, streamId INT," \
    " correlationId INT, flags INT, memoryKind INT);"

/* kernel row: regs, start, end, dev, ctx, stream, grid xyz, block xyz, ssmem, dsmem, corr, name */
#define NV_K(tbl, vals) "INSERT INTO CUPTI_ACTIVITY_KIND_" tbl "(registersPerThread, start, end," \
    " deviceId, contextId, streamId, gridX, gridY, gridZ, blockX, blockY, blockZ," \
    " staticSharedMemory, dynamicSharedMemory, correlationId, name) VALUES" vals ";"

static void test_nvprof_rules(void **state) {
    (void)state;
    trace t;
    char err[512];
    const char *sql =
        NV_TABLES
        /* both kernel tables are read and merged in start order; equal
         * starts keep table order (CONCURRENT_KERNEL first, then rowid) */
        NV_K("CONCURRENT_KERNEL", "(40, 3000, 3500, 0, 1, 13, 4, 2, 3, 32, 2, 1, 1024, 512, 11, 1),"
                                  "(8, 1000, 1900, 0, 1, 14, 1, 1, 1, 64, 1, 1, 0, 0, 12, 2),"
                                  "(8, 0, 0, 0, 1, 14, 1, 1, 1, 64, 1, 1, 0, 0, 13, 2),"
                                  "(8, 2000, 2100, 0, 1, 7, 1, 1, 1, 64, 1, 1, 0, 0, 14, 2)")
        /* no shared-memory values: unknown, not 0 */
        NV_K("KERNEL", "(16, 2000, 2200, 0, 1, 7, 2, 1, 1, 128, 1, 1, NULL, NULL, 15, 2)")
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(cbid, start, end, processId, threadId,"
        " correlationId, returnValue) VALUES (211, 900, 950, 1, 1, 12, 0), (211, 2900, 2950, 1, 1, 11, 0);"
        /* correlation 14 was launched through the driver API */
        "INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER(cbid, start, end, processId, threadId,"
        " correlationId, returnValue) VALUES (307, 1500, 1600, 1, 1, 14, 0);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_STREAM(contextId, streamId, priority, flag, correlationId)"
        " VALUES (1, 13, -5, 1, 0), (1, 14, 0, 1, 0);"
        /* CUPTI numbering: copyKind 0 (unknown) from Pinned (2) to Device
         * (3) is host-to-device; 8 is DtoD */
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(copyKind, srcKind, dstKind, flags, bytes, start, end,"
        " deviceId, contextId, streamId, correlationId, runtimeCorrelationId) VALUES"
        " (0, 2, 3, 0, 4096, 500, 600, 0, 1, 13, 20, 0), (8, 3, 3, 0, 64, 700, 710, 0, 1, 13, 21, 0),"
        " (0, 1, 2, 0, 8, 800, 810, 0, 1, 13, 22, 0);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(value, bytes, start, end, deviceId, contextId,"
        " streamId, correlationId, flags, memoryKind) VALUES (0, 256, 650, 660, 0, 1, 7, 23, 0, 3);";
    assert_int_equal(import_sql(imp_nvprof_sqlite, "rules.prof", sql, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 4);                /* the start = end = 0 row is left out */
    assert_string_equal(trace_get_meta(&t, "skipped_records"), "1");
    /* and said, as a warning the user sees (docs/trace-format.md) */
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "rules.prof: 1 kernel, copy or memset record left out: no valid start "
                        "and end timestamps (both zero, negative, an end before its start, or "
                        "out of range)");
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_TOTAL_KEY), "1");
    /* start order: 1000 (CK row 2), 2000 (CK row 4), 2000 (KERNEL row 1), 3000 */
    assert_int_equal(t.kernels.v[0].first_block, 1000);
    assert_int_equal(t.kernels.v[1].first_block, 2000);
    assert_int_equal(t.kernels.v[1].grid[0], 1);     /* the CONCURRENT_KERNEL one first */
    assert_int_equal(t.kernels.v[2].first_block, 2000);
    assert_int_equal(t.kernels.v[2].grid[0], 2);
    assert_int_equal(t.kernels.v[2].block[0], 128);
    assert_int_equal(t.kernels.v[2].smem, TRACE_NONE);
    assert_int_equal(t.kernels.v[1].smem, 0);
    const trace_kernel *k = &t.kernels.v[3];
    assert_string_equal(S(&t, k->name), "vecAdd(double*, double*, double*, int)");
    assert_string_equal(S(&t, k->raw_name), "_Z6vecAddPdS_S_i");
    assert_int_equal(k->blocks, 24);                  /* 4 x 2 x 3 */
    assert_int_equal(k->threads, 64);                 /* 32 x 2 x 1 */
    assert_int_equal(k->smem, 1536);                  /* static 1024 + dynamic 512 */
    assert_int_equal(k->regs, 40);
    assert_int_equal(k->priority, -5);
    assert_int_equal(k->issue, 2950);   /* the call (2900 .. 2950) returned before 3000 */
    /* a plain C name is not mangled: shown as is, raw_name left empty */
    assert_string_equal(S(&t, t.kernels.v[0].name), "plain_kernel");
    assert_int_equal(t.kernels.v[0].raw_name, 0);
    assert_int_equal(t.kernels.v[0].issue, 950);
    assert_int_equal(t.kernels.v[0].priority, 0);
    assert_int_equal(t.kernels.v[1].issue, 1600);     /* from DRIVER: its end */
    assert_int_equal(t.kernels.v[1].priority, TRACE_PRIO_NONE);  /* stream 7: no STREAM row */
    assert_int_equal(t.kernels.v[2].issue, TRACE_NONE);

    assert_int_equal(t.copies.n, 4);
    assert_int_equal(t.copies.v[0].direction, TRACE_COPY_H2D);
    assert_string_equal(S(&t, t.copies.v[0].name), "[CUDA memcpy Unknown]");
    assert_int_equal(t.copies.v[0].bytes, 4096);
    assert_int_equal(t.copies.v[1].direction, TRACE_COPY_MEMSET);   /* at 650 */
    assert_string_equal(S(&t, t.copies.v[1].name), "[CUDA memset]");
    assert_int_equal(t.copies.v[1].bytes, 256);
    assert_string_equal(S(&t, t.copies.v[1].stream), "7");
    assert_int_equal(t.copies.v[2].direction, TRACE_COPY_D2D);
    assert_string_equal(S(&t, t.copies.v[2].name), "[CUDA memcpy DtoD]");
    /* Pageable (1) -> Pinned (2) in CUPTI numbers: host to host */
    assert_int_equal(t.copies.v[3].direction, TRACE_COPY_H2H);
    assert_false(t.has_device);                        /* no DEVICE table */
    trace_free(&t);
}

#define NS_BASE \
    "CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);" \
    "INSERT INTO StringIds VALUES (1, 'void k<int>(int *)'), (2, '_Z1kIiEvPT_'), (3, 'k');" \
    "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);" \
    "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2');"

#define NS_KERNEL \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL," \
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER," \
    " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER," \
    " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER," \
    " registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL," \
    " gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL," \
    " blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL," \
    " dynamicSharedMemory INTEGER NOT NULL);"

#define NS_MEMCPY \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, end INTEGER NOT NULL," \
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER," \
    " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER," \
    " bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);"

/* globalPid of pid 7: 7 << 24 = 117440512; of pid 9: 150994944 */
static void test_nsys_rules(void **state) {
    (void)state;
    trace t;
    char err[512];
    const char *sql =
        NS_BASE NS_KERNEL NS_MEMCPY
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER NOT NULL, end INTEGER NOT NULL,"
        " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
        " correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,"
        " bytes INTEGER NOT NULL, memKind INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, end INTEGER NOT NULL,"
        " globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);"
        "CREATE TABLE TARGET_INFO_CUDA_STREAM(streamId INTEGER NOT NULL, hwId INTEGER NOT NULL,"
        " vmId INTEGER NOT NULL, processId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
        " priority INTEGER NOT NULL, flag INTEGER NOT NULL);"
        /* pid 7 stream 15 is a high-priority stream; nsys stores -5 unsigned */
        "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (15, 0, 1, 7, 1, 4294967291, 1),"
        " (15, 0, 1, 9, 1, 0, 1);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
        " (5000, 6000, 0, 1, 3, 15, 40, 117440512, 1, 3, 2, 24, 10, 4, 6, 256, 1, 1, 0, 2048),"
        " (5500, 5600, 0, 1, NULL, 15, 40, 150994944, 3, 3, NULL, 8, 1, 1, 1, 32, 1, 1, 0, 0);"
        /* the same correlation id 40 in two processes: each kernel gets its own call */
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (4000, 4100, 117440513, 40, 1),"
        " (5400, 5450, 150994945, 40, 1);"
        /* nsys numbering: 1 = Pinned, 2 = Device, so copyKind 0 from 1 to 2
         * is host-to-device (read as CUPTI numbers it would be host-to-host) */
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES"
        " (100, 200, 0, 1, NULL, 16, 41, 117440512, 1000, 0, 1, 2),"
        " (300, 400, 0, 1, NULL, 16, 42, 117440512, 10, 0, 2, 0),"
        " (410, 420, 0, 1, NULL, 16, 43, 117440512, 20, 11, NULL, NULL);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (450, 460, 0, 1, 16, 44, 117440512, 0, 64, 2);";
    assert_int_equal(import_sql(imp_nsys_sqlite, "rules.sqlite", sql, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 2);
    const trace_kernel *k = &t.kernels.v[0];
    assert_string_equal(S(&t, k->name), "void k<int>(int *)");     /* nsys's demangling */
    assert_string_equal(S(&t, k->raw_name), "_Z1kIiEvPT_");
    assert_string_equal(S(&t, k->process), "pid 7 gpu0 ctx1 green3");
    assert_int_equal(k->priority, -5);
    assert_int_equal(k->issue, 4100);   /* the call (4000 .. 4100) returned before 5000 */
    assert_int_equal(k->blocks, 240);
    assert_int_equal(k->smem, 2048);
    k = &t.kernels.v[1];
    assert_string_equal(S(&t, k->name), "k");        /* no mangled name: raw = display */
    assert_int_equal(k->raw_name, 0);
    assert_string_equal(S(&t, k->process), "pid 9 gpu0 ctx1");
    assert_int_equal(k->priority, 0);
    assert_int_equal(k->issue, 5450);   /* its own process's call (5400 .. 5450) */

    assert_int_equal(t.copies.n, 4);
    assert_int_equal(t.copies.v[0].direction, TRACE_COPY_H2D);
    assert_int_equal(t.copies.v[1].direction, TRACE_COPY_D2H);   /* Device (2) -> Pageable (0) */
    /* 11: a unified-memory migration host-to-device, its own kind (issue
     * 28; an ordinary h2d copy before) */
    assert_int_equal(t.copies.v[2].direction, TRACE_COPY_UVM_H2D);
    assert_string_equal(trace_copy_dir_name(t.copies.v[2].direction), "uvm_h2d");
    assert_string_equal(S(&t, t.copies.v[2].name), "[Unified Memory Memcpy HtoD]");
    assert_int_equal(t.copies.v[3].direction, TRACE_COPY_MEMSET);
    assert_int_equal(t.copies.v[3].bytes, 64);
    assert_int_equal(t.copies.v[0].issue, TRACE_NONE);           /* no RUNTIME row 41 */
    assert_string_equal(trace_get_meta(&t, "nsys_export_schema"), "3.13.2");
    trace_free(&t);
}

/* The ENUM tables, where present, are the truth about the numbers. */
static void test_nsys_enum_tables(void **state) {
    (void)state;
    trace t;
    char err[512];
    const char *sql =
        NS_BASE NS_MEMCPY
        "CREATE TABLE ENUM_CUDA_MEM_KIND(id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
        "INSERT INTO ENUM_CUDA_MEM_KIND VALUES (10, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device'),"
        " (11, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned');"
        "CREATE TABLE ENUM_CUDA_MEMCPY_OPER(id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
        "INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (20, 'CUDA_MEMCPY_KIND_DTOH', 'Device-to-Host');"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES"
        " (100, 200, 0, 1, NULL, 16, NULL, NULL, 8, 0, 11, 10),"
        " (300, 400, 0, 1, NULL, 16, NULL, NULL, 8, 20, 10, 11);"
        "CREATE TABLE TARGET_INFO_CUDA_GPU(deviceId INTEGER, name TEXT, numMultiprocessors INTEGER,"
        " coreClockRate INTEGER);"
        "INSERT INTO TARGET_INFO_CUDA_GPU VALUES (0, 'Old GPU', 20, 1000000);";
    assert_int_equal(import_sql(imp_nsys_sqlite, "enum.sqlite", sql, &t, err, sizeof err), 0);
    assert_int_equal(t.copies.n, 2);
    assert_int_equal(t.copies.v[0].direction, TRACE_COPY_H2D);   /* Pinned (11) -> Device (10) */
    assert_int_equal(t.copies.v[1].direction, TRACE_COPY_D2H);   /* copy kind 20 = DTOH */
    assert_string_equal(S(&t, t.copies.v[1].name), "[CUDA memcpy DtoH]");
    /* the 2021 GPU table, keyed by deviceId, clock in kHz */
    assert_true(t.has_device);
    assert_string_equal(t.device.name, "Old GPU");
    assert_int_equal(t.device.sms, 20);
    assert_int_equal(t.device.clock_hz, 1000000000LL);
    trace_free(&t);
}

/* A file last written in WAL mode (header bytes 18-19 = 2) reads the same;
 * the caller's bytes stay untouched. */
static void test_wal_header(void **state) {
    (void)state;
    db_bytes b = make_db(NV_TABLES NV_K("KERNEL", "(8, 10, 20, 0, 1, 7, 1, 1, 1, 32, 1, 1, 0, 0, 1, 2)"));
    b.data[18] = b.data[19] = 2;
    imp_file f = { "wal.prof", b.data, b.len };
    assert_int_equal(imp_sqlite_kind(b.data, b.len), IMP_NVPROF_SQLITE);
    trace t;
    trace_init(&t);
    char err[512] = "";
    assert_int_equal(imp_nvprof_sqlite(NULL, &f, 1, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 1);
    assert_string_equal(S(&t, t.kernels.v[0].name), "plain_kernel");
    assert_int_equal(b.data[18], 2);
    trace_free(&t);
    sqlite3_free(b.data);
}

/* ---- errors --------------------------------------------------------------- */

/* An SQLite file no format takes says why (issue 31, point 8: it read
 * "cannot tell the format"): someone else's database, a damaged one, and a
 * WAL database uploaded without its -wal file, whose main file holds no
 * table at all. */
static void test_unknown_sqlite(void **state) {
    (void)state;
    trace t;
    char err[1024];
    db_bytes b = make_db("CREATE TABLE notes(id INTEGER, text TEXT); INSERT INTO notes VALUES (1, 'x');");
    imp_file f = { "notes.db", b.data, b.len };
    trace_init(&t);
    assert_int_equal(imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "notes.db: an SQLite database of 1 table that is neither an nvprof "
                             "export (tables Version, StringTable) nor an Nsight Systems export "
                             "(StringIds and META_DATA_EXPORT or EXPORT_META_DATA)");
    trace_free(&t);
    sqlite3_free(b.data);

    unsigned char bad[1024];
    memset(bad, 0xAB, sizeof bad);
    memcpy(bad, "SQLite format 3", 16);
    f = (imp_file){ "bad.prof", bad, sizeof bad };
    trace_init(&t);
    assert_int_equal(imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "bad.prof: not a readable SQLite database: file is not a database");
    trace_free(&t);

    /* a real WAL database, its connection still open so nothing has been
     * checkpointed: the table is in report.sqlite-wal, not in the file */
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/walXXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE StringIds(id, value);"
                                      "CREATE TABLE META_DATA_EXPORT(name, value);", NULL, NULL, NULL),
                     SQLITE_OK);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static unsigned char main_file[1 << 16];
    size_t n = fread(main_file, 1, sizeof main_file, fp);
    fclose(fp);
    assert_true(n >= 100 && main_file[18] == 2);
    f = (imp_file){ "report.sqlite", main_file, n };
    trace_init(&t);
    assert_int_equal(imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "report.sqlite: an SQLite database last written in WAL mode with no "
                             "table in the file itself: its tables are still in its -wal file, "
                             "which was not imported; checkpoint it beside its -wal file (sqlite3 "
                             "FILE 'PRAGMA wal_checkpoint(TRUNCATE)') and import it again");
    trace_free(&t);
    sqlite3_close(db);
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", path);
    remove(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    remove(wal);
    remove(path);
}

static void test_not_sqlite(void **state) {
    (void)state;
    static const unsigned char junk[] = "Start,Duration\n1,2\n";
    imp_file f = { "trace.sqlite", junk, sizeof junk - 1 };
    trace t;
    trace_init(&t);
    char err[512];
    assert_int_equal(imp_nvprof_sqlite(NULL, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "trace.sqlite: not an SQLite database (the file does not start "
                             "with \"SQLite format 3\")");
    assert_int_equal(imp_nsys_sqlite(NULL, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "trace.sqlite: not an SQLite database (the file does not start "
                             "with \"SQLite format 3\")");
    assert_int_equal(imp_sqlite_kind(junk, sizeof junk - 1), IMP_UNKNOWN);
    /* the right header and nothing behind it that SQLite can read */
    unsigned char bad[1024];
    memset(bad, 0xAB, sizeof bad);
    memcpy(bad, "SQLite format 3", 16);
    f = (imp_file){ "bad.prof", bad, sizeof bad };
    assert_int_equal(imp_nvprof_sqlite(NULL, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "bad.prof: not a readable SQLite database: file is not a database");
    assert_int_equal(imp_sqlite_kind(bad, sizeof bad), IMP_UNKNOWN);
    /* the header cut short before its journal-mode bytes (found by fuzzing) */
    f = (imp_file){ "short.prof", bad, 18 };
    assert_int_equal(imp_nvprof_sqlite(NULL, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "short.prof: not a readable SQLite database: file is not a database");
    trace_free(&t);
}

/* An export cut short (an scp, a download or a copy off the cluster that
 * stopped midway) is said as such, with the sizes: before, SQLite's
 * "not a readable SQLite database: database disk image is malformed",
 * which reads as damage. The page count and size are SQLite's own (PRAGMA
 * page_count and page_size of the database before it was serialised). */
static void test_sqlite_cut_short(void **state) {
    (void)state;
    sqlite3 *db;
    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA page_size=512; CREATE TABLE StringIds(id, value);"
                                      "CREATE TABLE META_DATA_EXPORT(name, value);"
                                      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                                      "WHERE i < 200) INSERT INTO StringIds SELECT i, 'kernel_' || i "
                                      "FROM n;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA page_count", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long pages = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_int64 n = 0;
    unsigned char *d = sqlite3_serialize(db, "main", &n, 0);
    assert_non_null(d);
    sqlite3_close(db);
    assert_int_equal(n, pages * 512);
    assert_true(pages > 4);

    size_t cuts[] = { (size_t)(pages / 2) * 512, (size_t)n - 77 };
    for (size_t i = 0; i < 2; i++) {
        imp_file f = { "report.sqlite", d, cuts[i] };
        char want[512], err[512];
        snprintf(want, sizeof want, "report.sqlite: the SQLite database is cut short: its header "
                 "says %ld pages of 512 bytes (%ld bytes), the file has %zu (a copy or download "
                 "that did not finish?)", pages, pages * 512, cuts[i]);
        trace t;
        trace_init(&t);
        assert_int_equal(imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err), -1);
        assert_string_equal(err, want);
        trace_free(&t);
        trace_init(&t);
        assert_int_equal(imp_nsys_sqlite(NULL, &f, 1, &t, err, sizeof err), -1);
        assert_string_equal(err, want);
        trace_free(&t);
    }
    /* a header whose page count is not valid (its version-valid-for number,
     * offset 92, is not the change counter: SQLite before 3.7.0): a length
     * that is not whole pages still tells */
    d[92] ^= 0xFF;
    imp_file f = { "old.sqlite", d, (size_t)n - 77 };
    char want[256], err[512];
    snprintf(want, sizeof want, "old.sqlite: the SQLite database is cut short: its %zu bytes are "
             "not a whole number of its 512-byte pages (a copy or download that did not "
             "finish?)", (size_t)n - 77);
    trace t;
    trace_init(&t);
    assert_int_equal(imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, want);
    trace_free(&t);
    d[92] ^= 0xFF;
    /* whole, it is read (and refused for what it is: no activity tables) */
    f = (imp_file){ "report.sqlite", d, (size_t)n };
    trace_init(&t);
    assert_int_equal(imp_nsys_sqlite(NULL, &f, 1, &t, err, sizeof err), -1);
    assert_null(strstr(err, "cut short"));
    trace_free(&t);
    sqlite3_free(d);
}

static void test_foreign_sqlite(void **state) {
    (void)state;
    trace t;
    char err[512];
    const char *other = "CREATE TABLE notes(id INTEGER, text TEXT); INSERT INTO notes VALUES (1, 'x');";
    assert_int_equal(import_sql(imp_nvprof_sqlite, "notes.db", other, &t, err, sizeof err), -1);
    assert_string_equal(err, "notes.db: not an nvprof export: table StringTable missing");
    trace_free(&t);
    assert_int_equal(import_sql(imp_nsys_sqlite, "notes.db", other, &t, err, sizeof err), -1);
    assert_string_equal(err, "notes.db: not an Nsight Systems export: table StringIds missing");
    trace_free(&t);

    /* each format handed to the other importer says which one it is */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "report.sqlite", NS_BASE NS_KERNEL, &t, err,
                                sizeof err), -1);
    assert_string_equal(err, "report.sqlite: not an nvprof export: table StringTable missing "
                             "(this is an Nsight Systems export: import it as format nsys-sqlite)");
    trace_free(&t);
    assert_int_equal(import_sql(imp_nsys_sqlite, "x.prof", NV_TABLES, &t, err, sizeof err), -1);
    assert_string_equal(err, "x.prof: not an Nsight Systems export: table StringIds missing "
                             "(this is an nvprof export: import it as format nvprof-sqlite)");
    trace_free(&t);

    /* the string table alone: no activity tables at all */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "x.prof", NV_BASE, &t, err, sizeof err), -1);
    assert_string_equal(err, "x.prof: no CUPTI activity tables (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "
                             "CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, "
                             "CUPTI_ACTIVITY_KIND_MEMSET)");
    trace_free(&t);
    assert_int_equal(import_sql(imp_nsys_sqlite, "r.sqlite", NS_BASE, &t, err, sizeof err), -1);
    assert_string_equal(err, "r.sqlite: no CUDA activity: tables CUPTI_ACTIVITY_KIND_KERNEL, "
                             "CUPTI_ACTIVITY_KIND_MEMCPY and CUPTI_ACTIVITY_KIND_MEMSET are absent "
                             "(was it profiled with --trace=cuda?)");
    trace_free(&t);
    /* tables there but empty (nvprof creates all of them) */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "x.prof", NV_TABLES, &t, err, sizeof err), -1);
    assert_string_equal(err, "x.prof: no kernels, copies or memsets recorded");
    trace_free(&t);

    /* detection */
    db_bytes b = make_db(NV_TABLES);
    assert_int_equal(imp_sqlite_kind(b.data, b.len), IMP_NVPROF_SQLITE);
    sqlite3_free(b.data);
    b = make_db(NS_BASE NS_KERNEL);
    assert_int_equal(imp_sqlite_kind(b.data, b.len), IMP_NSYS_SQLITE);
    sqlite3_free(b.data);
    b = make_db(other);
    assert_int_equal(imp_sqlite_kind(b.data, b.len), IMP_UNKNOWN);
    sqlite3_free(b.data);
}

static void test_missing_column(void **state) {
    (void)state;
    trace t;
    char err[512];
    /* a kernel table without "start" */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "trace.prof",
                                NV_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL("
                                        "_id_ INTEGER PRIMARY KEY, end INT, streamId INT, name INT);",
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "trace.prof: table CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: "
                             "column \"start\" missing");
    trace_free(&t);
    assert_int_equal(import_sql(imp_nsys_sqlite, "trace.sqlite",
                                NS_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT,"
                                        " streamId INT, shortName INT);",
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "trace.sqlite: table CUPTI_ACTIVITY_KIND_KERNEL: column "
                             "\"demangledName\" missing");
    trace_free(&t);
    assert_int_equal(import_sql(imp_nsys_sqlite, "trace.sqlite",
                                NS_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INT, end INT,"
                                        " copyKind INT);",
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "trace.sqlite: table CUPTI_ACTIVITY_KIND_MEMCPY: column \"bytes\" missing");
    trace_free(&t);
    /* a kernel table without a grid column: no blocks to schedule, refused */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "trace.prof",
                                NV_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(_id_ INTEGER PRIMARY"
                                        " KEY, start INT, end INT, gridX INT, gridZ INT, name INT);"
                                        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
                                        " (1, 100, 200, 4, 1, 2);",
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "trace.prof: table CUPTI_ACTIVITY_KIND_KERNEL: column \"gridY\" "
                             "missing (a kernel's grid gives its blocks: without it the run has "
                             "none to schedule)");
    trace_free(&t);
    /* one without registers, dynamic shared memory and stream: imported,
     * each named in an import warning with what was assumed */
    assert_int_equal(import_sql(imp_nsys_sqlite, "trace.sqlite",
                                NS_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT,"
                                        " deviceId INT, contextId INT, demangledName INT, gridX INT,"
                                        " gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT,"
                                        " staticSharedMemory INT);"
                                        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
                                        " (100, 200, 0, 1, 1, 4, 1, 1, 128, 1, 1, 512);",
                                &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 1);
    assert_int_equal(t.kernels.v[0].blocks, 4);
    assert_int_equal(t.kernels.v[0].threads, 128);
    assert_int_equal(t.kernels.v[0].smem, 512);
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "trace.sqlite: table CUPTI_ACTIVITY_KIND_KERNEL: no column \"streamId\": "
                        "no stream: the records are not told apart by stream\n"
                        "trace.sqlite: table CUPTI_ACTIVITY_KIND_KERNEL: no column "
                        "\"registersPerThread\": registers per thread unknown (no occupancy "
                        "limit by registers)\n"
                        "trace.sqlite: table CUPTI_ACTIVITY_KIND_KERNEL: no column "
                        "\"dynamicSharedMemory\": dynamic shared memory taken as 0 bytes");
    trace_free(&t);
    /* neither shared-memory column: one warning, the size unknown */
    assert_int_equal(import_sql(imp_nsys_sqlite, "trace.sqlite",
                                NS_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT,"
                                        " deviceId INT, contextId INT, streamId INT,"
                                        " demangledName INT, gridX INT, gridY INT, gridZ INT,"
                                        " blockX INT, blockY INT, blockZ INT,"
                                        " registersPerThread INT);"
                                        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
                                        " (100, 200, 0, 1, 7, 1, 4, 1, 1, 128, 1, 1, 32);",
                                &t, err, sizeof err), 0);
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "trace.sqlite: table CUPTI_ACTIVITY_KIND_KERNEL: no columns "
                        "\"staticSharedMemory\" and \"dynamicSharedMemory\": shared memory per "
                        "block unknown");
    trace_free(&t);
    /* a memcpy table without copyKind: each copy's direction from its
     * memory kinds (profiler-trace-formats.md §3.3: srcKind, dstKind of
     * ENUM_CUDA_MEM_KIND, 0 Pageable, 2 Device), said in a warning */
    assert_int_equal(import_sql(imp_nsys_sqlite, "trace.sqlite",
                                NS_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INT, end INT,"
                                        " deviceId INT, contextId INT, streamId INT, bytes INT,"
                                        " srcKind INT, dstKind INT);"
                                        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES"
                                        " (100, 200, 0, 1, 7, 4096, 0, 2),"
                                        " (300, 400, 0, 1, 7, 4096, 2, 0);",
                                &t, err, sizeof err), 0);
    assert_int_equal(t.copies.n, 2);
    assert_int_equal(t.copies.v[0].direction, TRACE_COPY_H2D);
    assert_int_equal(t.copies.v[1].direction, TRACE_COPY_D2H);
    assert_non_null(trace_get_meta(&t, IMP_WARNINGS_KEY));
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "trace.sqlite: table CUPTI_ACTIVITY_KIND_MEMCPY: no column \"copyKind\": "
                        "each copy's direction taken from srcKind and dstKind, its name \"[CUDA "
                        "memcpy Unknown]\" (the unified-memory and peer-to-peer kinds are "
                        "copyKind's alone)");
    assert_string_equal(trace_str_get(&t, t.copies.v[0].name), "[CUDA memcpy Unknown]");
    trace_free(&t);
    /* with copyKind but no memory kinds: copyKind gives the direction
     * (§2.4: 1 HTOD, 2 DTOH), one warning for the two columns */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "trace.prof",
                                NV_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY"
                                        " KEY, copyKind INT, bytes INT, start INT, end INT,"
                                        " deviceId INT, contextId INT, streamId INT);"
                                        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES"
                                        " (1, 1, 4096, 100, 200, 0, 1, 7), (2, 2, 4096, 300, 400, 0, 1, 7);",
                                &t, err, sizeof err), 0);
    assert_int_equal(t.copies.n, 2);
    assert_int_equal(t.copies.v[0].direction, TRACE_COPY_H2D);
    assert_int_equal(t.copies.v[1].direction, TRACE_COPY_D2H);
    assert_non_null(trace_get_meta(&t, IMP_WARNINGS_KEY));
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "trace.prof: table CUPTI_ACTIVITY_KIND_MEMCPY: no columns \"srcKind\" and "
                        "\"dstKind\": a copy's direction is its copyKind's alone (one of copyKind "
                        "0, unknown, is \"other\": served by no copy engine)");
    trace_free(&t);
    /* one of them: the warning names it */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "trace.prof",
                                NV_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY"
                                        " KEY, copyKind INT, srcKind INT, bytes INT, start INT,"
                                        " end INT, deviceId INT, contextId INT, streamId INT);"
                                        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES"
                                        " (1, 1, 1, 4096, 100, 200, 0, 1, 7);",
                                &t, err, sizeof err), 0);
    assert_non_null(trace_get_meta(&t, IMP_WARNINGS_KEY));
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "trace.prof: table CUPTI_ACTIVITY_KIND_MEMCPY: no column \"dstKind\": a "
                        "copy's direction is its copyKind's alone (one of copyKind 0, unknown, is "
                        "\"other\": served by no copy engine)");
    trace_free(&t);
    /* neither copyKind nor both memory kinds: no copy has a direction */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "trace.prof",
                                NV_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY"
                                        " KEY, srcKind INT, bytes INT, start INT, end INT,"
                                        " deviceId INT, contextId INT, streamId INT);"
                                        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES"
                                        " (1, 1, 4096, 100, 200, 0, 1, 7);",
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "trace.prof: table CUPTI_ACTIVITY_KIND_MEMCPY: columns \"copyKind\" "
                             "and \"dstKind\" missing (a copy's direction is its copyKind's, or "
                             "its srcKind's and dstKind's: without them no copy has one)");
    trace_free(&t);
    assert_int_equal(import_sql(imp_nsys_sqlite, "trace.sqlite",
                                NS_BASE "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INT, end INT,"
                                        " deviceId INT, contextId INT, streamId INT, bytes INT);"
                                        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES"
                                        " (100, 200, 0, 1, 7, 4096);",
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "trace.sqlite: table CUPTI_ACTIVITY_KIND_MEMCPY: columns "
                             "\"copyKind\", \"srcKind\" and \"dstKind\" missing (a copy's "
                             "direction is its copyKind's, or its srcKind's and dstKind's: without "
                             "them no copy has one)");
    trace_free(&t);
    /* a StringTable without its value column */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "t.prof",
                                "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, text TEXT);"
                                "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT);",
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "t.prof: table StringTable: column \"value\" missing");
    trace_free(&t);
}

static void test_bad_values(void **state) {
    (void)state;
    trace t;
    char err[512];
    /* text where a time belongs, in the second row */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "t.prof",
                                NV_TABLES NV_K("CONCURRENT_KERNEL",
                                               "(8, 10, 20, 0, 1, 7, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1),"
                                               "(8, 'soon', 20, 0, 1, 7, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1)"),
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "t.prof: table CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: row 2: "
                             "column \"start\": expected an integer, got text");
    trace_free(&t);
    /* a name id with no string behind it */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "t.prof",
                                NV_TABLES NV_K("KERNEL",
                                               "(8, 10, 20, 0, 1, 7, 1, 1, 1, 1, 1, 1, 0, 0, 1, 57)"),
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "t.prof: table CUPTI_ACTIVITY_KIND_KERNEL: row 1: column \"name\": "
                             "string id 57 is not in StringTable");
    trace_free(&t);
    /* a grid no GPU launches */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "t.prof",
                                NV_TABLES NV_K("KERNEL",
                                               "(8, 10, 20, 0, 1, 7, -4, 1, 1, 1, 1, 1, 0, 0, 1, 1)"),
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "t.prof: table CUPTI_ACTIVITY_KIND_KERNEL: row 1: column \"gridX\": "
                             "-4 is out of range [0, 2147483647]");
    trace_free(&t);
    /* a NULL byte count */
    assert_int_equal(import_sql(imp_nsys_sqlite, "r.sqlite",
                                NS_BASE NS_MEMCPY "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(start, end,"
                                " deviceId, contextId, streamId, bytes, copyKind) VALUES"
                                " (1, 2, 0, 1, 7, 5, 1), (3, 4, 0, 1, 7, 6, 1);"
                                "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = 'many' WHERE start = 3;",
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "r.sqlite: table CUPTI_ACTIVITY_KIND_MEMCPY: row 2: column \"bytes\": "
                             "expected an integer, got text");
    trace_free(&t);
    /* every row without timestamps */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "t.prof",
                                NV_TABLES NV_K("KERNEL",
                                               "(8, 0, 0, 0, 1, 7, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1),"
                                               "(8, 50, 40, 0, 1, 7, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1)"),
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "t.prof: no kernels, copies or memsets with timestamps "
                             "(2 records had none)");
    trace_free(&t);
    /* nor with a start before 0 or an end past 2^62 ns (year 2116 as epoch
     * time: no profiler writes it, and differences stay inside int64) */
    assert_int_equal(import_sql(imp_nvprof_sqlite, "t.prof",
                                NV_TABLES NV_K("KERNEL",
                                               "(8, -5, 40, 0, 1, 7, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1),"
                                               "(8, 50, 4611686018427387905, 0, 1, 7, 1, 1, 1, 1, 1,"
                                               " 1, 0, 0, 1, 1)"),
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "t.prof: no kernels, copies or memsets with timestamps "
                             "(2 records had none)");
    trace_free(&t);
    /* a view posing as an activity table is not run */
    assert_int_equal(import_sql(imp_nsys_sqlite, "v.sqlite",
                                NS_BASE "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT 1 AS start;",
                                &t, err, sizeof err), -1);
    assert_string_equal(err, "v.sqlite: no CUDA activity: tables CUPTI_ACTIVITY_KIND_KERNEL, "
                             "CUPTI_ACTIVITY_KIND_MEMCPY and CUPTI_ACTIVITY_KIND_MEMSET are absent "
                             "(was it profiled with --trace=cuda?)");
    trace_free(&t);
}


/* ---- several GPUs (DESIGN §5: devices, and a device index per record) ------- */

/* The N of "gpuN" in a lane's process name ("gpu2 ctx3"), -1 when none. */
static int lane_gpu(const trace *t, trace_str process) {
    const char *p = trace_str_get(t, process);
    const char *g = p ? strstr(p, "gpu") : NULL;
    return g ? atoi(g + 3) : -1;
}

/* Records per device index, every one on the GPU its lane names. */
typedef struct per_dev {
    size_t kernels[8], copies[8];
    size_t batches;
} per_dev;

static void count_per_dev(const trace *t, per_dev *c) {
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        assert_int_equal(k->device, lane_gpu(t, k->process));
        assert_in_range(k->device, 0, 7);
        c->kernels[k->device]++;
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *cp = &t->copies.v[i];
        assert_int_equal(cp->device, lane_gpu(t, cp->process));
        assert_in_range(cp->device, 0, 7);
        c->copies[cp->device]++;
    }
}

/* A streamed import's batch, checked more strictly than the store checks
 * it (server/app/store.c stream_batch bounds a batch's indices by
 * IMP_MAX_GPUS, imp_check_batch): against the trace's devices as they are
 * then, which the importer grows as it goes (imp_devices_reserve), then
 * counted. */
static int per_dev_batch(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                         size_t errlen) {
    (void)kernels, (void)copies;
    if (imp_check_trace(t, "batch", err, errlen)) fail_msg("%s", err);
    per_dev *c = user;
    count_per_dev(t, c);
    c->batches++;
    return 0;
}

/* SOURCES.md: "NCCL work on 4 GPUs in one nvprof export ... on devices
 * 0-3 (contexts 1-4)", 8 Tesla V100-SXM2-32GB listed (80 SMs). */
static void assert_blinkplus(const trace *t, const per_dev *c) {
    /* SELECT count(*) FROM CUPTI_ACTIVITY_KIND_DEVICE WHERE id <= 3 AND
     *   numMultiprocessors = 80 -> 4 (name: StringTable 2, the V100) */
    assert_int_equal(t->devices.n, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(t->devices.v[i].name, "Tesla V100-SXM2-32GB");
        assert_int_equal(t->devices.v[i].sms, 80);
    }
    assert_null(trace_get_meta(t, "devices_unlisted"));
    /* SELECT deviceId, count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
     *   GROUP BY 1 -> 0|8 1|8 2|4 3|4 (24; not 6 per GPU) */
    static const size_t kernels[4] = { 8, 8, 4, 4 };
    /* ... FROM CUPTI_ACTIVITY_KIND_MEMCPY -> 38 38 24 24, ..._MEMSET -> 54 54 32 32 */
    static const size_t copies[4] = { 92, 92, 56, 56 };
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(c->kernels[i], kernels[i]);
        assert_int_equal(c->copies[i], copies[i]);
    }
    /* the run's device: the GPU with the most kernels (0 and 1 tie: the smaller) */
    assert_string_equal(t->device.name, "Tesla V100-SXM2-32GB");
    assert_int_equal(t->device.sms, 80);
}

static void test_nvprof_blinkplus_devices(void **state) {
    (void)state;
    trace t;
    import_shared(imp_nvprof_sqlite, BLINK, &t);
    per_dev c = { .batches = 0 };
    count_per_dev(&t, &c);
    assert_blinkplus(&t, &c);
    char err[512];
    assert_int_equal(imp_check_trace(&t, BLINK, err, sizeof err), 0);
    trace_free(&t);

    /* streamed in batches of 16 rows: every batch already indexes devices
     * the trace has, and the trace the run is finished with (store.c
     * db_run_finish) holds the four */
    size_t len;
    unsigned char *d = read_trace(BLINK, &len);
    imp_file f = { BLINK, d, len };
    per_dev sc = { .batches = 0 };
    imp_stream st = { .batch = per_dev_batch, .user = &sc, .rows = 16 };
    imp_options o = { .stream = &st };
    trace_init(&t);
    if (imp_import_opts(IMP_NVPROF_SQLITE, &f, 1, &o, &t, err, sizeof err)) fail_msg("%s", err);
    assert_true(st.streamed);
    assert_true(sc.batches > 4);
    assert_blinkplus(&t, &sc);
    assert_int_equal(imp_check_trace(&t, BLINK, err, sizeof err), 0);
    trace_free(&t);
    free(d);
}

/* One GPU with work: no devices, every index 0 -- though the Fuser export
 * lists eight H100s (SELECT count(*) FROM TARGET_INFO_GPU -> 8; SELECT
 * DISTINCT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL -> 0; MEMCPY, MEMSET -> 0). */
static void test_nsys_one_gpu_no_devices(void **state) {
    (void)state;
    static const char *const files[] = { FUSER, T4 };
    static const size_t nk[] = { 19, 200 };   /* SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL */
    for (size_t i = 0; i < 2; i++) {
        trace t;
        import_shared(imp_nsys_sqlite, files[i], &t);
        assert_int_equal(t.devices.n, 0);
        assert_int_equal(trace_device_count(&t), 1);
        assert_int_equal(t.kernels.n, nk[i]);
        for (size_t k = 0; k < t.kernels.n; k++) assert_int_equal(t.kernels.v[k].device, 0);
        for (size_t k = 0; k < t.copies.n; k++) assert_int_equal(t.copies.v[k].device, 0);
        assert_null(trace_get_meta(&t, "devices_unlisted"));
        assert_true(t.has_device);
        trace_free(&t);
    }
}

#define NV_DEVICES \
    "INSERT INTO StringTable VALUES(3, 'GPU Zero'), (4, 'GPU One');" \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, id INT," \
    " name INT, numMultiprocessors INT, computeCapabilityMajor INT, computeCapabilityMinor INT);" \
    "INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE(id, name, numMultiprocessors, computeCapabilityMajor," \
    " computeCapabilityMinor) VALUES (0, 3, 80, 7, 0), (1, 4, 40, 7, 5);"

/* Work on ordinals 0 and 2 of a machine whose DEVICE table lists 0 and 1:
 * entries 0..2, the one for 1 read from its row though nothing ran there,
 * 2 a copy of the run's device and named in devices_unlisted. */
static void test_nvprof_unlisted_device(void **state) {
    (void)state;
    trace t;
    char err[512];
    const char *sql =
        NV_TABLES NV_DEVICES
        NV_K("CONCURRENT_KERNEL", "(8, 1000, 1900, 0, 1, 13, 1, 1, 1, 64, 1, 1, 0, 0, 1, 2),"
                                  "(8, 2000, 2100, 2, 3, 14, 1, 1, 1, 64, 1, 1, 0, 0, 2, 2),"
                                  "(8, 3000, 3100, 0, 1, 13, 1, 1, 1, 64, 1, 1, 0, 0, 3, 2)")
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(copyKind, srcKind, dstKind, flags, bytes, start, end,"
        " deviceId, contextId, streamId, correlationId, runtimeCorrelationId) VALUES"
        " (1, 2, 3, 0, 4096, 500, 600, 2, 3, 14, 20, 0), (1, 2, 3, 0, 64, 700, 710, NULL, 1, 13, 21, 0);";
    if (import_sql(imp_nvprof_sqlite, "two.prof", sql, &t, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(t.devices.n, 3);
    assert_string_equal(trace_get_meta(&t, "devices_unlisted"), "2");
    /* the run's device: ordinal 0 (two kernels against one) */
    assert_string_equal(t.device.name, "GPU Zero");
    /* the guess said: ordinal 2's device is taken to be GPU Zero */
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "two.prof: GPU ordinal 2 not in the device table CUPTI_ACTIVITY_KIND_DEVICE: "
                        "taken to be the run's device (GPU Zero)");
    assert_int_equal(t.device.sms, 80);
    assert_string_equal(trace_get_meta(&t, "compute_capability"), "7.0");
    assert_string_equal(t.devices.v[0].name, "GPU Zero");
    assert_int_equal(t.devices.v[0].sms, 80);
    assert_string_equal(t.devices.v[1].name, "GPU One");
    assert_int_equal(t.devices.v[1].sms, 40);
    assert_memory_equal(&t.devices.v[2], &t.device, sizeof t.device);
    assert_memory_equal(&t.devices.v[0], &t.device, sizeof t.device);
    /* by start: kernels 1000 (dev 0), 2000 (dev 2), 3000 (dev 0); copies
     * 500 (dev 2), 700 (deviceId NULL: 0) */
    assert_int_equal(t.kernels.v[0].device, 0);
    assert_int_equal(t.kernels.v[1].device, 2);
    assert_int_equal(t.kernels.v[2].device, 0);
    assert_string_equal(S(&t, t.kernels.v[1].process), "gpu2 ctx3");   /* the lanes as before */
    assert_int_equal(t.copies.v[0].device, 2);
    assert_int_equal(t.copies.v[1].device, 0);
    assert_string_equal(S(&t, t.copies.v[1].process), "ctx1");
    assert_int_equal(imp_check_trace(&t, "two.prof", err, sizeof err), 0);
    trace_free(&t);

    /* work on ordinal 0 alone (the DEVICE table lists two): one GPU */
    sql = NV_TABLES NV_DEVICES
        NV_K("CONCURRENT_KERNEL", "(8, 1000, 1900, 0, 1, 13, 1, 1, 1, 64, 1, 1, 0, 0, 1, 2)");
    if (import_sql(imp_nvprof_sqlite, "one.prof", sql, &t, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(t.devices.n, 0);
    assert_null(trace_get_meta(&t, "devices_unlisted"));
    assert_string_equal(t.device.name, "GPU Zero");
    trace_free(&t);

    /* an ordinal no machine has: refused with its row, not indexed wrong */
    sql = NV_TABLES
        NV_K("CONCURRENT_KERNEL", "(8, 1000, 1900, 0, 1, 13, 1, 1, 1, 64, 1, 1, 0, 0, 1, 2),"
                                  "(8, 2000, 2100, 64, 1, 13, 1, 1, 1, 64, 1, 1, 0, 0, 2, 2)");
    assert_int_equal(import_sql(imp_nvprof_sqlite, "bad.prof", sql, &t, err, sizeof err), -1);
    assert_string_equal(err, "bad.prof: table CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: row 2: "
                             "column \"deviceId\": 64 is out of range [0, 63] (a CUDA device "
                             "ordinal)");
    trace_free(&t);
}

/* Seventeen GPUs (one more than the device counts once kept): every one
 * its own entry, the most-used one the run's device. */
static void test_nsys_many_devices(void **state) {
    (void)state;
    char sql[16384];
    size_t o = (size_t)snprintf(sql, sizeof sql, "%s", NS_BASE NS_KERNEL
        "CREATE TABLE TARGET_INFO_GPU(id INTEGER, name TEXT, smCount INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId,"
        " demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY,"
        " blockZ, staticSharedMemory, dynamicSharedMemory) VALUES ");
    for (int d = 0; d < 17; d++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, "%s(%d, %d, %d, 1, 7, 3, 3, 8, 1, 1, 1, 32,"
                              " 1, 1, 0, 0)", d ? "," : "", 1000 + 10 * d, 1005 + 10 * d, d);
    /* ordinal 16 runs a second kernel: the most kernels */
    o += (size_t)snprintf(sql + o, sizeof sql - o, ", (2000, 2005, 16, 1, 7, 3, 3, 8, 1, 1, 1, 32,"
                          " 1, 1, 0, 0); INSERT INTO TARGET_INFO_GPU VALUES ");
    for (int d = 0; d < 17; d++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, "%s(%d, 'GPU %d', %d)", d ? "," : "", d, d,
                              10 + d);
    snprintf(sql + o, sizeof sql - o, ";");
    trace t;
    char err[512];
    if (import_sql(imp_nsys_sqlite, "many.sqlite", sql, &t, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(t.devices.n, 17);
    for (int d = 0; d < 17; d++) {
        char name[16];
        snprintf(name, sizeof name, "GPU %d", d);
        assert_string_equal(t.devices.v[d].name, name);
        assert_int_equal(t.devices.v[d].sms, 10 + d);
        assert_int_equal(t.kernels.v[d].device, d);
    }
    assert_string_equal(t.device.name, "GPU 16");
    assert_null(trace_get_meta(&t, "devices_unlisted"));
    trace_free(&t);
}

/* trace_check.c: a kernel's or copy's device names one of the trace's. */
static void test_check_device_index(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    char err[512];
    trace_kernel *k = trace_add_kernel(&t);
    k->first_block = 0;
    k->end = 10;
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), 0);
    k->device = 1;                                    /* no devices: one GPU */
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), -1);
    assert_string_equal(err, "t.json: kernels[0].device: 1 is not a GPU of the trace (it has 1: device 0, or "
                       "\"devices\" to list several)");
    sim_device d;
    memset(&d, 0, sizeof d);
    assert_int_equal(trace_add_device(&t, &d), 0);
    assert_int_equal(trace_add_device(&t, &d), 1);
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), 0);
    trace_copy *c = trace_add_copy(&t);
    c->start = 0;
    c->end = 5;
    c->bytes = 8;
    c->device = -1;
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), -1);
    assert_string_equal(err, "t.json: copies[0].device: -1 is not a GPU of the trace (it has 2 in \"devices\")");
    c->device = 2;
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), -1);
    assert_string_equal(err, "t.json: copies[0].device: 2 is not a GPU of the trace (it has 2 in \"devices\")");
    c->device = 1;
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), 0);
    /* a streamed batch, whose GPUs come at the end: only the bound */
    c->device = IMP_MAX_GPUS - 1;
    assert_int_equal(imp_check_batch(&t, "t.json", err, sizeof err), 0);
    c->device = IMP_MAX_GPUS;
    assert_int_equal(imp_check_batch(&t, "t.json", err, sizeof err), -1);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvprof_ksched),
        cmocka_unit_test(test_nsys_t4),
        cmocka_unit_test(test_nsys_cloverleaf),
        cmocka_unit_test(test_imp_import_detects),
        cmocka_unit_test(test_nvprof_rules),
        cmocka_unit_test(test_nsys_rules),
        cmocka_unit_test(test_nsys_enum_tables),
        cmocka_unit_test(test_wal_header),
        cmocka_unit_test(test_not_sqlite),
        cmocka_unit_test(test_sqlite_cut_short),
        cmocka_unit_test(test_foreign_sqlite),
        cmocka_unit_test(test_unknown_sqlite),
        cmocka_unit_test(test_missing_column),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_nvprof_blinkplus_devices),
        cmocka_unit_test(test_nsys_one_gpu_no_devices),
        cmocka_unit_test(test_nvprof_unlisted_device),
        cmocka_unit_test(test_nsys_many_devices),
        cmocka_unit_test(test_check_device_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
