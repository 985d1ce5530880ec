/* test_imp_text.c -- the text importers (nvprof CSV, globaltimer CSV,
 * examiner JSON), format detection, the archive reader (tar, tar.gz/bz2/xz,
 * zip), the number parser and the demangler.
 *
 * The two real nvprof logs are read from $SCHEDLAB_TRACES (skipped when
 * absent; test_fixtures.c covers every importer without them). Every
 * expected number below was checked against the file by hand: the row was
 * read in the file, its value scaled by the column's unit from the units row
 * (ms = 10^6 ns, us = 10^3 ns, s = 10^9 ns, KB = 1024 B) and the origin
 * subtracted; the counts (kernels = rows with "Grid X", copies = rows with
 * "Size", distinct "Stream" values) were cross-checked with Python's csv
 * module and decimal.Decimal, which share no code with the importer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "../../importers/archive.h"
#include "../../importers/csv.h"
#include "../../importers/formats.h"
#include "../../importers/importers.h"
#include "../../importers/tmpfile.h"
#include "test_imp_util.h"

/* ---- helpers -------------------------------------------------------------- */


static imp_file text_file(const char *name, const char *text) {
    return (imp_file){name, (const unsigned char *)text, strlen(text)};
}

/* Import one in-memory text; returns the importer's result. */
static int import_text(imp_format fmt, const char *name, const char *text, trace *t, char *err,
                       size_t errlen) {
    imp_file f = text_file(name, text);
    trace_init(t);
    err[0] = '\0';
    return imp_import(fmt, &f, 1, t, err, errlen);
}

static const char *S(const trace *t, trace_str id) {
    const char *s = trace_str_get(t, id);
    return s ? s : "(absent)";
}

static size_t distinct_streams(const trace *t) {
    trace_str seen[256];
    size_t n = 0;
    for (size_t pass = 0; pass < 2; pass++) {
        size_t count = pass ? t->copies.n : t->kernels.n;
        for (size_t i = 0; i < count; i++) {
            trace_str s = pass ? t->copies.v[i].stream : t->kernels.v[i].stream;
            size_t j = 0;
            while (j < n && seen[j] != s) j++;
            if (j == n && n < 256) seen[n++] = s;
        }
    }
    return n;
}

/* Expect failure with exactly this message. */
static void expect_error(imp_format fmt, const char *name, const char *text, const char *msg) {
    trace t;
    char err[512];
    int rc = import_text(fmt, name, text, &t, err, sizeof err);
    assert_int_equal(rc, -1);
    assert_string_equal(err, msg);
    trace_free(&t);
}

/* ---- nvprof CSV: the real logs -------------------------------------------- */

static void test_nvprof_concurrent_kernels(void **state) {
    (void)state;
    size_t len;
    unsigned char *data =
        read_trace("nvprof_gputrace_magus_concurrentKernels_gtx1080ti.csv", &len);
    imp_file f = {"traces/concurrentKernels.csv", data, len};
    assert_int_equal(imp_detect(&f), IMP_NVPROF_CSV);
    trace t;
    trace_init(&t);
    char err[512] = "";
    assert_int_equal(imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_string_equal(t.source, "nvprof-csv");
    assert_int_equal(t.kernels.n, 9);
    assert_int_equal(t.copies.n, 1);
    assert_int_equal(t.blocks.n, 0);
    assert_int_equal(distinct_streams(&t), 9);             /* streams 13..21 */
    /* first row 598.807267 ms; the memcpy ends last: 609.598720 + 0.001120 ms */
    assert_int_equal(t.origin, 598807267);
    assert_string_equal(trace_get_meta(&t, "origin_ns"), "598807267");
    assert_string_equal(trace_get_meta(&t, "format"), "nvprof-csv");
    assert_string_equal(trace_get_meta(&t, "files"), "traces/concurrentKernels.csv");
    assert_string_equal(t.name, "concurrentKernels.csv");
    assert_string_equal(trace_get_meta(&t, "device"), "GeForce GTX 1080 Ti");
    int64_t lo, hi;
    trace_time_span(&t, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 609599840 - 598807267);

    const trace_kernel *k = &t.kernels.v[0];               /* line 6 */
    assert_string_equal(S(&t, k->name), "clock_block(long*, long)");
    assert_string_equal(S(&t, k->raw_name), "clock_block(long*, long) [1183]");
    assert_string_equal(S(&t, k->stream), "13");
    assert_string_equal(S(&t, k->process), "dev0:ctx1");
    assert_int_equal(k->first_block, 0);
    assert_int_equal(k->end, 10733177);
    assert_int_equal(k->issue, TRACE_NONE);
    assert_int_equal(k->fully_dispatched, TRACE_NONE);
    assert_int_equal(k->grid[0], 1);
    assert_int_equal(k->grid[2], 1);
    assert_int_equal(k->block[0], 1);
    assert_int_equal(k->blocks, 1);
    assert_int_equal(k->threads, 1);
    assert_int_equal(k->regs, 8);
    assert_int_equal(k->smem, 0);

    k = &t.kernels.v[8];                                   /* line 14: sum, 609.594047 ms */
    assert_string_equal(S(&t, k->name), "sum(long*, int)");
    assert_string_equal(S(&t, k->stream), "21");
    assert_int_equal(k->first_block, 609594047 - 598807267);
    assert_int_equal(k->end, 609594047 - 598807267 + 2304);
    assert_int_equal(k->block[0], 32);
    assert_int_equal(k->block[1], 1);
    assert_int_equal(k->threads, 32);
    assert_int_equal(k->smem, 256);

    const trace_copy *c = &t.copies.v[0];                  /* line 15 */
    assert_string_equal(S(&t, c->name), "[CUDA memcpy DtoH]");
    assert_int_equal(c->direction, TRACE_COPY_D2H);
    assert_int_equal(c->bytes, 8);
    assert_int_equal(c->start, 609598720 - 598807267);
    assert_int_equal(c->end, 609599840 - 598807267);
    assert_string_equal(S(&t, c->stream), "21");
    trace_free(&t);
    free(data);
}

static void test_nvprof_batch_cublas(void **state) {
    (void)state;
    size_t len;
    unsigned char *data =
        read_trace("nvprof_gputrace_magus_batchCUBLAS_gtx1080ti.csv", &len);
    imp_file f = {"batchCUBLAS.csv", data, len};
    trace t;
    trace_init(&t);
    char err[512] = "";
    assert_int_equal(imp_import(IMP_NVPROF_CSV, &f, 1, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 44);
    assert_int_equal(t.copies.n, 193);
    assert_int_equal(distinct_streams(&t), 21);            /* 7 and 13..32 */
    /* units s,us: first row 1.072523 s; the last row, 1.136928 s + 152.516 us,
     * ends last */
    assert_int_equal(t.origin, 1072523000);
    int64_t lo, hi;
    trace_time_span(&t, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 1137080516 - 1072523000);

    const trace_copy *c = &t.copies.v[0];                  /* 0.109375 KB in 1.408 us */
    assert_int_equal(c->bytes, 112);
    assert_int_equal(c->start, 0);
    assert_int_equal(c->end, 1408);
    assert_int_equal(c->direction, TRACE_COPY_H2D);
    assert_string_equal(S(&t, c->stream), "7");
    size_t n64k = 0, n128k = 0, n80 = 0;
    for (size_t i = 0; i < t.copies.n; i++) {
        n64k += t.copies.v[i].bytes == 65536;
        n128k += t.copies.v[i].bytes == 131072;
        n80 += t.copies.v[i].bytes == 80;                  /* 0.078125 KB */
    }
    assert_int_equal(n64k, 93);
    assert_int_equal(n128k, 93);
    assert_int_equal(n80, 6);

    const trace_kernel *k = &t.kernels.v[0];               /* line 9, 1.074118 s */
    assert_string_equal(S(&t, k->name), "maxwell_sgemm_128x64_raggedMn_nn");
    assert_string_equal(S(&t, k->raw_name), "maxwell_sgemm_128x64_raggedMn_nn [2143]");
    assert_int_equal(k->first_block, 1074118000 - 1072523000);
    assert_int_equal(k->end, 1074118000 - 1072523000 + 16769);
    assert_int_equal(k->grid[0], 1);
    assert_int_equal(k->grid[1], 2);
    assert_int_equal(k->grid[2], 1);
    assert_int_equal(k->block[0], 128);
    assert_int_equal(k->blocks, 2);
    assert_int_equal(k->threads, 128);
    assert_int_equal(k->regs, 120);
    assert_int_equal(k->smem, 12544);                      /* 12.25 KB + 0 B */

    k = &t.kernels.v[1];                                   /* line 13: quoted commas */
    assert_string_equal(S(&t, k->name),
                        "void gemm_kernel2x2_tile_multiple_core<double, bool=1, bool=0, bool=0, "
                        "bool=0, bool=0>(double*, double const *, double const *, int, int, "
                        "int, int, int, int, double*, double*, double, double, int)");
    assert_int_equal(k->grid[0], 8);
    assert_int_equal(k->grid[1], 8);
    assert_int_equal(k->block[0], 16);
    assert_int_equal(k->block[1], 4);
    assert_int_equal(k->blocks, 64);
    assert_int_equal(k->threads, 64);
    assert_int_equal(k->regs, 48);
    assert_int_equal(k->smem, 4352);                       /* 4.25 KB */
    assert_int_equal(k->first_block, 1077322000 - 1072523000);
    assert_int_equal(k->end, 1077322000 - 1072523000 + 24609);

    k = &t.kernels.v[43];                                  /* the last line */
    assert_string_equal(S(&t, k->name), "maxwell_dgemmBatched_64x64_raggedMn_nn");
    assert_int_equal(k->grid[2], 10);
    assert_int_equal(k->blocks, 40);
    assert_int_equal(k->threads, 64);
    assert_int_equal(k->regs, 240);
    assert_int_equal(k->smem, 16896);                      /* 16.5 KB */
    assert_int_equal(k->end, hi);
    trace_free(&t);
    free(data);
}

/* ---- nvprof CSV: synthetic variants and errors --------------------------- */

/* nvprof's 22-column CUDA 10 table head: the preamble's last line, the
 * column names and the units row */
#define NVPROF22_HEAD                                                                            \
    "======== Profiling result:\r\n"                                                             \
    "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\","    \
    "\"Registers Per Thread\",\"Static SMem\",\"Dynamic SMem\",\"Size\",\"Throughput\",\"SrcMemType\","  \
    "\"DstMemType\",\"Device\",\"Context\",\"Stream\",\"Unified Memory\",\"Virtual Address\",\"Name\","   \
    "\"Correlation_ID\"\r\n"                                                                      \
    "s,ms,,,,,,,,B,KB,MB,GB/s,,,,,,B,,,\r\n"

/* The 22-column CUDA 10 layout (SrcMemType/DstMemType, Unified Memory,
 * Virtual Address, Correlation_ID), units s,ms and MB, CRLF line ends, a
 * mangled name, a warning line after the preamble. */
static const char nvprof22[] =
    "======== Warning: 2 records have invalid timestamps due to insufficient device buffer space.\r\n"
    NVPROF22_HEAD
    "1.183779,0.000992,,,,,,,,,,0.000019,0.018777,\"Pageable\",\"Device\",\"TITAN Xp (0)\",\"1\",\"7\",,,\"[CUDA memcpy HtoD]\",105\r\n"
    "1.204081,,,,,,,,,,,,,,,,,,\"PC 0x5e240510\",\"0x7f54d8000000\",\"[Unified Memory CPU page faults]\",\r\n"
    "1.801239,0.276608,,,,,,,,,,,,,,\"TITAN Xp (0)\",,,\"18\",\"0x7f54d8800000\",\"[Unified Memory GPU page faults]\",\r\n"
    "1.801250,0.004512,,,,,,,,,,,,,,\"TITAN Xp (0)\",,,65536.000000,\"0x7f54d8800000\",\"[Unified Memory Memcpy HtoD]\",\r\n"
    "1.801299,0.287308,506,1,1,192,1,1,16,0,2.500000,,,,,\"TITAN Xp (0)\",\"1\",\"7\",,,\"_Z25cuda_initialize_variablesiPf\",121\r\n"
    "1.802121,0.001312,,,,,,,,,,0.370605,275.853204,\"Managed\",,\"TITAN Xp (0)\",\"1\",\"7\",,,\"[CUDA memset]\",139\r\n"
    "1.9,0.5,2,1,1,64,2,1,32,1.5,0,,,,,\"TITAN Xp (0)\",\"2\",\"14\",,,\"k(int) [7]\",140\r\n";

static void test_nvprof_22_columns(void **state) {
    (void)state;
    trace t;
    char err[512];
    assert_int_equal(import_text(IMP_UNKNOWN, "cfd.csv", nvprof22, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 2);
    assert_int_equal(t.copies.n, 3);             /* HtoD, UM HtoD, memset */
    assert_string_equal(trace_get_meta(&t, "skipped_rows"), "2");
    /* the two rows left out are said, each with its reason (docs/trace-format.md,
     * "Import warnings"): the CPU page fault (no Duration) and the GPU page
     * fault (neither a kernel nor a copy with a byte count) */
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "cfd.csv: 1 row left out: an empty \"Duration\" (no GPU interval, e.g. "
                        "a CPU page fault)\n"
                        "cfd.csv: 1 row left out: neither a kernel (no grid size) nor a copy "
                        "with a byte count (\"Size\")");
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_TOTAL_KEY), "2");
    assert_int_equal(t.origin, 1183779000);
    const trace_copy *c = &t.copies.v[0];
    assert_int_equal(c->bytes, 20);              /* 0.000019 MB = 19.92 B, rounded */
    assert_int_equal(c->start, 0);
    assert_int_equal(c->end, 992);               /* 0.000992 ms */
    c = &t.copies.v[1];
    assert_string_equal(S(&t, c->name), "[Unified Memory Memcpy HtoD]");
    /* a unified-memory migration, its own kind (issue 28; an ordinary h2d
     * copy before) */
    assert_int_equal(c->direction, TRACE_COPY_UVM_H2D);
    assert_int_equal(c->bytes, 65536);
    assert_int_equal(c->stream, 0);
    assert_string_equal(S(&t, c->process), "dev0");
    c = &t.copies.v[2];
    assert_int_equal(c->direction, TRACE_COPY_MEMSET);
    assert_int_equal(c->bytes, 388608);          /* 0.370605 MB = 388607.5 B */
    const trace_kernel *k = &t.kernels.v[0];
    assert_string_equal(S(&t, k->name), "cuda_initialize_variables(int, float*)");
    assert_string_equal(S(&t, k->raw_name), "_Z25cuda_initialize_variablesiPf");
    assert_int_equal(k->blocks, 506);
    assert_int_equal(k->threads, 192);
    assert_int_equal(k->regs, 16);
    assert_int_equal(k->smem, 2560);             /* 0 B static + 2.5 KB dynamic */
    assert_int_equal(k->first_block, 1801299000 - 1183779000);
    assert_int_equal(k->end, 1801299000 - 1183779000 + 287308);
    k = &t.kernels.v[1];
    /* a Correlation_ID column exists: a " [7]" suffix is part of the name */
    assert_string_equal(S(&t, k->name), "k(int) [7]");
    assert_int_equal(k->raw_name, 0);
    assert_string_equal(S(&t, k->process), "dev0:ctx2");
    assert_int_equal(k->threads, 128);
    assert_int_equal(k->smem, 2);                /* 1.5 B rounds half away from zero */
    trace_free(&t);
}

/* A unified-memory migration back to the host keeps its direction and
 * its kind. docs/trace-format.md (issue 28): migrations are copies of their
 * own kind, nvprof's "[Unified Memory Memcpy ...]" rows import as uvm_h2d,
 * uvm_d2h or uvm_d2d as CUPTI's copyKind 11/12/13 (UVM HtoD, DtoH, DtoD)
 * do, so a "[Unified Memory Memcpy DtoH]" row is uvm_d2h -- not an ordinary
 * d2h copy, which a replay would queue on a copy engine. The row is laid
 * out as the TITAN Xp log's UM HtoD row above (no Size, Context or Stream;
 * the bytes in "Unified Memory"), its name nvprof's UM HtoD name with the
 * direction DtoH; an ordinary "[CUDA memcpy DtoH]" (a name
 * profiler-trace-formats.md §1.3 lists from real files) stays d2h. */
static const char nvprof_uvm_d2h[] =
    NVPROF22_HEAD
    "1.000000,0.004512,,,,,,,,,,,,,,\"TITAN Xp (0)\",,,65536.000000,\"0x7f54d8800000\",\"[Unified Memory Memcpy HtoD]\",\r\n"
    "1.000100,0.002000,,,,,,,,,,,,,,\"TITAN Xp (0)\",,,4096.000000,\"0x7f54d8800000\",\"[Unified Memory Memcpy DtoH]\",\r\n"
    "1.000200,0.000992,,,,,,,,,,0.000019,0.018777,\"Device\",\"Pageable\",\"TITAN Xp (0)\",\"1\",\"7\",,,\"[CUDA memcpy DtoH]\",150\r\n";

static void test_nvprof_uvm_d2h(void **state) {
    (void)state;
    trace t;
    char err[512];
    if (import_text(IMP_UNKNOWN, "uvm.csv", nvprof_uvm_d2h, &t, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(t.kernels.n, 0);
    assert_int_equal(t.copies.n, 3);
    const trace_copy *c = &t.copies.v[0];
    assert_string_equal(S(&t, c->name), "[Unified Memory Memcpy HtoD]");
    assert_int_equal(c->direction, TRACE_COPY_UVM_H2D);
    c = &t.copies.v[1];
    assert_string_equal(S(&t, c->name), "[Unified Memory Memcpy DtoH]");
    assert_int_equal(c->direction, TRACE_COPY_UVM_D2H);
    assert_true(TRACE_COPY_IS_UVM(c->direction));
    assert_int_equal(c->bytes, 4096);
    assert_int_equal(c->start, 100000);              /* 1.000100 s - 1.000000 s */
    assert_int_equal(c->end, 102000);                /* + 0.002000 ms */
    c = &t.copies.v[2];
    assert_string_equal(S(&t, c->name), "[CUDA memcpy DtoH]");
    assert_int_equal(c->direction, TRACE_COPY_D2H);
    trace_free(&t);
}

/* Multi-GPU columns (Src Dev .. Dst Ctx), units us,ns and GB, a metric
 * column nobody asked for, and rows out of time order. */
static const char nvprof_p2p[] =
    "==9== Profiling result:\n"
    "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\","
    "\"Registers Per Thread\",\"Static SMem\",\"Dynamic SMem\",\"Size\",\"Throughput\",\"Device\","
    "\"Context\",\"Stream\",\"Src Dev\",\"Src Ctx\",\"Dst Dev\",\"Dst Ctx\",\"Name\",\"achieved_occupancy\"\n"
    "us,ns,,,,,,,,B,B,GB,GB/s,,,,,,,,,\n"
    "20.5,1500,,,,,,,,,,0.5,1.0,\"Tesla V100 (1)\",\"3\",\"20\",\"Tesla V100 (0)\",\"1\","
    "\"Tesla V100 (1)\",\"3\",\"[CUDA memcpy PtoP]\",\n"
    "10.25,2000.5,16,1,1,1024,1,1,255,48,49152,,,\"Tesla V100 (1)\",\"3\",\"20\",,,,,"
    "\"void k<1>(float*)\",0.98\n";

static void test_nvprof_p2p_units(void **state) {
    (void)state;
    trace t;
    char err[512];
    assert_int_equal(import_text(IMP_NVPROF_CSV, "p2p.csv", nvprof_p2p, &t, err, sizeof err), 0);
    assert_int_equal(t.origin, 10250);                     /* the kernel, 10.25 us */
    assert_int_equal(t.copies.n, 1);
    const trace_copy *c = &t.copies.v[0];
    assert_int_equal(c->direction, TRACE_COPY_P2P);
    assert_int_equal(c->bytes, 536870912);                 /* 0.5 GB, binary */
    assert_int_equal(c->start, 20500 - 10250);
    assert_int_equal(c->end, 20500 - 10250 + 1500);
    assert_string_equal(S(&t, c->process), "dev1:ctx3");
    const trace_kernel *k = &t.kernels.v[0];
    assert_int_equal(k->first_block, 0);
    assert_int_equal(k->end, 2001);                        /* 2000.5 ns rounds up */
    assert_int_equal(k->blocks, 16);
    assert_int_equal(k->threads, 1024);
    assert_int_equal(k->regs, 255);
    assert_int_equal(k->smem, 48 + 49152);
    assert_string_equal(trace_get_meta(&t, "device"), "Tesla V100");
    trace_free(&t);
}

static const char nv_head[] =
    "==1== Profiling result:\n"
    "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\","
    "\"Size\",\"Stream\",\"Name\"\n";

static void test_nvprof_errors(void **state) {
    (void)state;
    char text[2048];
    snprintf(text, sizeof text, "%sms,ms,,,,,,,B,,\n1.5,abc,1,1,1,1,1,1,,\"7\",\"k\"\n", nv_head);
    expect_error(IMP_NVPROF_CSV, "run.csv", text,
                 "run.csv:4: column \"Duration\": expected a number, got \"abc\"");
    snprintf(text, sizeof text, "%sms,ms,,,,,,,B,,\n1.5,2,1,1\n", nv_head);
    expect_error(IMP_NVPROF_CSV, "run.csv", text,
                 "run.csv:4: 4 fields, but the header (line 2) has 11");
    snprintf(text, sizeof text, "%sms,xs,,,,,,,B,,\n", nv_head);
    expect_error(IMP_NVPROF_CSV, "run.csv", text,
                 "run.csv:3: column \"Duration\": unknown time unit \"xs\" (expected s, ms, us "
                 "or ns in the units row)");
    snprintf(text, sizeof text, "%sms,ms,,,,,,,B,,\n1.5,2,0,1,1,1,1,1,,\"7\",\"k\"\n", nv_head);
    expect_error(IMP_NVPROF_CSV, "run.csv", text,
                 "run.csv:4: column \"Grid X\": expected a positive integer, got \"0\"");
    snprintf(text, sizeof text, "%sms,ms,,,,,,,B,,\n1.5,2,1,1,1,1,1,1,,\"7\",\"k(int\n",
             nv_head);
    expect_error(IMP_NVPROF_CSV, "run.csv", text,
                 "run.csv:4:24: quoted field never closed (missing '\"')");
    expect_error(IMP_NVPROF_CSV, "run.csv", "==5== Profiling application: ./a\n",
                 "run.csv: no nvprof GPU-trace header (a line starting with \"Start\"); record "
                 "the log with nvprof --print-gpu-trace --csv");
    expect_error(IMP_NVPROF_CSV, "run.csv", "==5== Profiling application: ./a\n"
                 "==5== No kernels were profiled.\n",
                 "run.csv:2: nvprof profiled no kernels (\"No kernels were profiled.\")");
    expect_error(IMP_NVPROF_CSV, "sum.csv",
                 "==5== Profiling result:\n\"Type\",\"Time(%)\",\"Time\",\"Calls\",\"Avg\","
                 "\"Min\",\"Max\",\"Name\"\n",
                 "sum.csv:2: this is an nvprof summary table; record the trace with nvprof "
                 "--print-gpu-trace --csv");
    expect_error(IMP_NVPROF_CSV, "run.csv", "\"Start\",\"Duration\",\"Grid X\"\ns,s,\n",
                 "run.csv:1: the header has no \"Name\" column");
    snprintf(text, sizeof text, "%sms,ms,,,,,,,B,,\n", nv_head);
    expect_error(IMP_NVPROF_CSV, "run.csv", text,
                 "run.csv: the GPU trace has no kernel or copy rows");
}

/* ---- Nsight's own reports ------------------------------------------------- */

/* report1.nsys-rep is what `nsys profile` writes; the SQLite export is a
 * second step (profiler-trace-formats.md §3.1). Before: "cannot tell the
 * format from the content; name it (...)", and with nsys-sqlite named "not
 * an SQLite database (the file does not start with \"SQLite format 3\")",
 * neither saying what to do. The bytes are made up: only the name tells,
 * and a file so named that is SQLite is read (the nsys.sqlite fixture's
 * two kernels, make_fixtures.sh). */
static void test_nsight_reports(void **state) {
    (void)state;
    static const char rep[] = "\x01\x02not SQLite, Nsight's own bytes";
    const char *want_rep = "%s: an Nsight Systems report, which only Nsight reads; export it "
                           "(nsys export --type sqlite %s) and import the .sqlite file";
    const char *names[] = { "report1.nsys-rep", "old.qdrep" };
    for (size_t i = 0; i < 2; i++) {
        char want[512];
        snprintf(want, sizeof want, want_rep, names[i], names[i]);
        expect_error(IMP_UNKNOWN, names[i], rep, want);
        expect_error(IMP_NSYS_SQLITE, names[i], rep, want);
    }
    /* a path keeps its folder in the place, not in the command */
    expect_error(IMP_UNKNOWN, "runs/report1.nsys-rep", rep,
                 "runs/report1.nsys-rep: an Nsight Systems report, which only Nsight reads; "
                 "export it (nsys export --type sqlite report1.nsys-rep) and import the .sqlite "
                 "file");
    /* the shortest such names, one character before the suffix */
    expect_error(IMP_UNKNOWN, "a.nsys-rep", rep,
                 "a.nsys-rep: an Nsight Systems report, which only Nsight reads; export it (nsys "
                 "export --type sqlite a.nsys-rep) and import the .sqlite file");
    expect_error(IMP_UNKNOWN, "k.ncu-rep", rep,
                 "k.ncu-rep: an Nsight Compute report (per-kernel metrics, no timeline); record "
                 "the run with Nsight Systems (nsys profile) and import its SQLite export");
    size_t len;
    unsigned char *d = read_fixture("nsys.sqlite", &len);
    imp_file f = {"renamed.nsys-rep", d, len};
    trace t;
    char err[512];
    trace_init(&t);
    if (imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(t.kernels.n, 2);
    trace_free(&t);
    free(d);
}

/* ---- a UTF-8 byte order mark before the first line ------------------------ */

/* Excel's "CSV UTF-8" and PowerShell's Out-File write EF BB BF first; a
 * log opened and saved there keeps its rows. Before, the BOM was part of
 * the first field: an nvprof header right at the top was not seen
 * ("no nvprof GPU-trace header"), a globaltimer header was the unknown
 * column "\xEF\xBB\xBFkernel", a first '#' comment line a 1-field row. */
static void test_csv_bom(void **state) {
    (void)state;
    static const char nv[] =
        "\xEF\xBB\xBF\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\","
        "\"Block Y\",\"Block Z\",\"Size\",\"Stream\",\"Name\"\r\n"
        "ms,ms,,,,,,,B,,\r\n"
        "1.0,0.5,2,1,1,32,1,1,,\"7\",\"k0\"\r\n"
        "2.0,0.25,,,,,,,64,\"7\",\"[CUDA memcpy HtoD]\"\r\n";
    trace t;
    char err[512];
    imp_file f = text_file("excel.csv", nv);
    assert_int_equal(imp_detect(&f), IMP_NVPROF_CSV);
    assert_int_equal(import_text(IMP_UNKNOWN, "excel.csv", nv, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 1);
    assert_string_equal(S(&t, t.kernels.v[0].name), "k0");
    assert_int_equal(t.kernels.v[0].blocks, 2);
    assert_int_equal(t.kernels.v[0].end - t.kernels.v[0].first_block, 500000);
    assert_int_equal(t.copies.n, 1);
    assert_int_equal(t.copies.v[0].bytes, 64);
    assert_int_equal(t.copies.v[0].start, 1000000);
    trace_free(&t);

    static const char gt[] = "\xEF\xBB\xBF# saved by Excel\nkernel,block,sm,start_ns,end_ns\n"
                             "K,0,1,5,6\nK,1,2,5,7\n";
    f = text_file("gt.csv", gt);
    assert_int_equal(imp_detect(&f), IMP_GLOBALTIMER_CSV);
    assert_int_equal(import_text(IMP_UNKNOWN, "gt.csv", gt, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 1);
    assert_int_equal(t.blocks.n, 2);
    assert_int_equal(t.blocks.v[1].sm, 2);
    trace_free(&t);
    /* the place is as without the mark (the header's 2nd column) */
    expect_error(IMP_GLOBALTIMER_CSV, "gt.csv", "kernel,blok,sm,start_ns,end_ns\n",
                 "gt.csv:1:2: unknown column \"blok\" (expected kernel, block, sm, start_ns, end_ns, "
                 "stream, threads)");
    expect_error(IMP_GLOBALTIMER_CSV, "gt.csv", "\xEF\xBB\xBFkernel,blok,sm,start_ns,end_ns\n",
                 "gt.csv:1:2: unknown column \"blok\" (expected kernel, block, sm, start_ns, end_ns, "
                 "stream, threads)");
}

/* ---- nvprof CSV: the columns in another order, unquoted ------------------- */

/* The columns are found by name (nvprof prints what it was asked, in its
 * order), so a table whose header does not start with "Start" -- columns
 * reordered or dropped in a spreadsheet, or written back by pandas'
 * to_csv, which quotes nothing -- is the same table. Before, find_header
 * looked only for a line starting with "Start" (quoted, or `Start,`) and
 * detection for `"Start",` / `Start,"Duration"`: the reordered one was
 * "no nvprof GPU-trace header", the unquoted one "cannot tell the format
 * from the content". Expectations: the rows' own values by their units
 * (ms), rebased to the first start (1.0 ms). */
static void test_nvprof_column_order(void **state) {
    (void)state;
    static const char reordered[] =
        "==7== Profiling result:\n"
        "\"Name\",\"Stream\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\","
        "\"Block Z\",\"Size\",\"Duration\",\"Start\",\"SM Efficiency\"\n"
        ",,,,,,,,B,ms,ms,%\n"
        "\"k0\",\"7\",2,1,1,32,1,1,,0.5,1.0,50.0\n"
        "\"[CUDA memcpy HtoD]\",\"13\",,,,,,,64,0.25,2.0,\n";
    static const char pandas[] =
        "Start,Duration,Grid X,Grid Y,Grid Z,Block X,Block Y,Block Z,Size,Stream,Name\n"
        "ms,ms,,,,,,,B,,\n"
        "1.0,0.5,2,1,1,32,1,1,,7,k0\n"
        "2.0,0.25,,,,,,,64,13,[CUDA memcpy HtoD]\n";
    const char *texts[] = { reordered, pandas };
    for (size_t i = 0; i < 2; i++) {
        trace t;
        char err[512];
        imp_file f = text_file("saved.csv", texts[i]);
        assert_int_equal(imp_detect(&f), IMP_NVPROF_CSV);
        int rc = import_text(IMP_UNKNOWN, "saved.csv", texts[i], &t, err, sizeof err);
        if (rc) fail_msg("%s", err);
        assert_int_equal(t.kernels.n, 1);
        assert_string_equal(S(&t, t.kernels.v[0].name), "k0");
        assert_string_equal(S(&t, t.kernels.v[0].stream), "7");
        assert_int_equal(t.kernels.v[0].blocks, 2);
        assert_int_equal(t.kernels.v[0].threads, 32);
        assert_int_equal(t.kernels.v[0].first_block, 0);
        assert_int_equal(t.kernels.v[0].end, 500000);
        assert_int_equal(t.copies.n, 1);
        assert_int_equal(t.copies.v[0].bytes, 64);
        assert_string_equal(S(&t, t.copies.v[0].stream), "13");
        assert_int_equal(t.copies.v[0].start, 1000000);
        assert_int_equal(t.copies.v[0].end, 1250000);
        trace_free(&t);
    }
    /* a header naming Start but no Duration is still not a table */
    expect_error(IMP_NVPROF_CSV, "run.csv", "\"Name\",\"Start\"\n,ms\n",
                 "run.csv: no nvprof GPU-trace header (a line starting with \"Start\"); record "
                 "the log with nvprof --print-gpu-trace --csv");
}

/* ---- nvprof CSV: several GPUs (DESIGN §5) ----------------------------------- */

/* Work on the GPUs "(0)" and "(2)": devices 0..2 by ordinal, each a copy of
 * the run's device named as the Device column names it; ordinal 1, in no
 * row, stays the copy and is named in devices_unlisted. */
static const char nv_two_gpus[] =
    "==1== Profiling result:\n"
    "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\","
    "\"Size\",\"Device\",\"Context\",\"Stream\",\"Name\"\n"
    "ms,ms,,,,,,,B,,,,\n"
    "1.0,0.5,1,1,1,32,1,1,,\"Tesla V100-SXM2-32GB (0)\",\"1\",\"7\",\"k0\"\n"
    "1.2,0.1,,,,,,,64,\"Tesla V100-SXM2-32GB (2)\",\"3\",\"13\",\"[CUDA memcpy HtoD]\"\n"
    "1.5,0.5,1,1,1,32,1,1,,\"Tesla P100-PCIE-16GB (2)\",\"3\",\"13\",\"k2\"\n"
    "2.0,0.5,1,1,1,32,1,1,,\"Tesla V100-SXM2-32GB (0)\",\"1\",\"7\",\"k0\"\n";

static void test_nvprof_devices(void **state) {
    (void)state;
    trace t;
    char err[512];
    assert_int_equal(import_text(IMP_NVPROF_CSV, "two.csv", nv_two_gpus, &t, err, sizeof err), 0);
    assert_int_equal(t.devices.n, 3);
    assert_string_equal(trace_get_meta(&t, "devices_unlisted"), "1");
    /* the guess is said: ordinal 1's entry is the run's device */
    char want[256];
    snprintf(want, sizeof want, "two.csv: GPU ordinal 1 not in any row's \"Device\" column: "
             "taken to be the run's device (%s)", t.device.name[0] ? t.device.name : "unnamed");
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY), want);
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_TOTAL_KEY), "1");
    assert_string_equal(t.devices.v[0].name, "Tesla V100-SXM2-32GB");
    /* the first row naming ordinal 2 names it */
    assert_string_equal(t.devices.v[2].name, "Tesla V100-SXM2-32GB");
    assert_memory_equal(&t.devices.v[1], &t.device, sizeof t.device);
    sim_device named = t.device;
    snprintf(named.name, sizeof named.name, "%s", "Tesla V100-SXM2-32GB");
    assert_memory_equal(&t.devices.v[0], &named, sizeof named);
    assert_int_equal(t.kernels.n, 3);
    assert_int_equal(t.kernels.v[0].device, 0);
    assert_int_equal(t.kernels.v[1].device, 2);
    assert_int_equal(t.kernels.v[2].device, 0);
    assert_string_equal(S(&t, t.kernels.v[1].process), "dev2:ctx3");   /* the lanes as before */
    assert_int_equal(t.copies.n, 1);
    assert_int_equal(t.copies.v[0].device, 2);
    assert_string_equal(trace_get_meta(&t, "device"), "Tesla V100-SXM2-32GB");
    trace_free(&t);

    /* an ordinal past the most GPUs read: refused with its line */
    char text[1024];
    snprintf(text, sizeof text, "%sms,ms,,,,,,,B,,,,\n"
             "1.0,0.5,1,1,1,32,1,1,,\"Tesla V100-SXM2-32GB (64)\",\"1\",\"7\",\"k0\"\n",
             "==1== Profiling result:\n"
             "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\","
             "\"Block Z\",\"Size\",\"Device\",\"Context\",\"Stream\",\"Name\"\n");
    expect_error(IMP_NVPROF_CSV, "run.csv", text,
                 "run.csv:4: column \"Device\": \"Tesla V100-SXM2-32GB (64)\" ends in a GPU "
                 "ordinal out of range [0, 63]");
}

/* One GPU, "GeForce GTX 1080 Ti (0)" on every row (SOURCES.md): no
 * devices, every index 0. */
static void test_nvprof_one_gpu_no_devices(void **state) {
    (void)state;
    trace t;
    import_trace("nvprof_gputrace_magus_batchCUBLAS_gtx1080ti.csv", &t);
    assert_int_equal(t.kernels.n, 44);
    assert_int_equal(t.copies.n, 193);
    assert_int_equal(t.devices.n, 0);
    assert_null(trace_get_meta(&t, "devices_unlisted"));
    for (size_t i = 0; i < t.kernels.n; i++) assert_int_equal(t.kernels.v[i].device, 0);
    for (size_t i = 0; i < t.copies.n; i++) assert_int_equal(t.copies.v[i].device, 0);
    trace_free(&t);
}

/* ---- globaltimer CSV ------------------------------------------------------ */

static const char gt_header[] =
    "# recorded by tools/recorder/example\n"
    "kernel,block,sm,start_ns,end_ns,stream,threads\n"
    "spin_a,0,0,1000000500,1000002500,s1,256\n"
    "spin_a,1,1,1000000700,1000002600,s1,256\n"
    "\n"
    "spin_b,0,2,1000000900,1000001900,s2,64\n"
    "spin_a,2,0,1000002550,1000004000,s1,256\n";

static void test_globaltimer_header(void **state) {
    (void)state;
    trace t;
    char err[512];
    assert_int_equal(import_text(IMP_UNKNOWN, "gt.csv", gt_header, &t, err, sizeof err), 0);
    assert_string_equal(t.source, "globaltimer-csv");
    assert_string_equal(t.name, "gt.csv");
    assert_int_equal(t.origin, 1000000500);
    assert_int_equal(t.kernels.n, 2);
    assert_int_equal(t.blocks.n, 4);
    const trace_kernel *a = &t.kernels.v[0], *b = &t.kernels.v[1];
    assert_string_equal(S(&t, a->name), "spin_a");
    assert_string_equal(S(&t, a->stream), "s1");
    assert_int_equal(a->blocks, 3);
    assert_int_equal(a->threads, 256);
    assert_int_equal(a->first_block, 0);
    assert_int_equal(a->fully_dispatched, 2050);  /* block 2 starts last */
    assert_int_equal(a->end, 3500);
    assert_int_equal(a->issue, TRACE_NONE);
    assert_string_equal(S(&t, b->name), "spin_b");
    assert_int_equal(b->blocks, 1);
    assert_int_equal(b->threads, 64);
    assert_int_equal(b->first_block, 400);
    assert_int_equal(b->end, 1400);
    const trace_block *bl = &t.blocks.v[3];
    assert_int_equal(bl->kernel, 0);
    assert_int_equal(bl->index, 2);
    assert_int_equal(bl->sm, 0);
    assert_int_equal(bl->start, 2050);
    assert_int_equal(bl->end, 3500);
    assert_int_equal(t.blocks.v[2].kernel, 1);
    assert_int_equal(t.blocks.v[2].sm, 2);
    trace_free(&t);
}

static void test_globaltimer_positional(void **state) {
    (void)state;
    trace t;
    char err[512];
    /* no header, five columns, reordered header-less rows, a mangled label */
    const char *text = "_Z4spinPx,1,3,200,300\n_Z4spinPx,0,5,100,250\n";
    assert_int_equal(import_text(IMP_UNKNOWN, "gt.csv", text, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 1);
    assert_string_equal(S(&t, t.kernels.v[0].name), "spin(long long*)");
    assert_string_equal(S(&t, t.kernels.v[0].raw_name), "_Z4spinPx");
    assert_int_equal(t.kernels.v[0].stream, 0);
    assert_int_equal(t.kernels.v[0].threads, 0);
    assert_int_equal(t.kernels.v[0].first_block, 0);
    assert_int_equal(t.kernels.v[0].fully_dispatched, 100);
    assert_int_equal(t.kernels.v[0].end, 200);
    assert_int_equal(t.blocks.v[1].sm, 5);
    assert_int_equal(t.blocks.v[1].index, 0);
    trace_free(&t);

    /* header columns in another order */
    text = "sm,kernel,end_ns,start_ns,block\n7,K,50,10,0\n";
    assert_int_equal(import_text(IMP_GLOBALTIMER_CSV, "gt.csv", text, &t, err, sizeof err), 0);
    assert_int_equal(t.blocks.v[0].sm, 7);
    assert_int_equal(t.blocks.v[0].end, 40);
    trace_free(&t);
}

static void test_globaltimer_errors(void **state) {
    (void)state;
    expect_error(IMP_GLOBALTIMER_CSV, "gt.csv", "K,0,1,500,400\n",
                 "gt.csv:1: end_ns 400 is before start_ns 500");
    expect_error(IMP_GLOBALTIMER_CSV, "gt.csv", "# c\nK,0,1,5,6\nK,1,1,5,6\nK,0,2,7,8\n",
                 "gt.csv:4: kernel \"K\" block 0 appears twice (first at line 2)");
    expect_error(IMP_GLOBALTIMER_CSV, "gt.csv", "K,0,x1,5,6\n",
                 "gt.csv:1: column \"sm\": expected an integer in [0, 1023], got \"x1\"");
    expect_error(IMP_GLOBALTIMER_CSV, "gt.csv", "kernel,block,smid,start_ns,end_ns\n",
                 "gt.csv:1:3: unknown column \"smid\" (expected kernel, block, sm, start_ns, "
                 "end_ns, stream, threads)");
    expect_error(IMP_GLOBALTIMER_CSV, "gt.csv", "K,0,1,5,6,s1\nK,1,1,5,6,s2\n",
                 "gt.csv:2: kernel \"K\" is on stream \"s2\" here but on \"s1\" in an earlier "
                 "row; give each launch its own label");
    expect_error(IMP_GLOBALTIMER_CSV, "gt.csv", "K,0,1,5,6\nK,1,1,5\n",
                 "gt.csv:2: 4 fields, expected 5 like the first row");
    expect_error(IMP_GLOBALTIMER_CSV, "gt.csv", "# only a comment\n",
                 "gt.csv: no block rows (expected kernel,block,sm,start_ns,end_ns lines)");
}

/* ---- examiner JSON -------------------------------------------------------- */

/* The literal example of examiner-json-format.md §1.2 (current format). */
static const char ex_current[] =
    "{\n"
    "\"scenario_name\": \"Stream priority starvation test\",\n"
    "\"benchmark_name\": \"Timer Spin\",\n"
    "\"label\": \"K1 (low priority)\",\n"
    "\"max_resident_threads\": 4096,\n"
    "\"data_size\": 0,\n"
    "\"release_time\": 0.000000,\n"
    "\"PID\": 4242,\n"
    "\"TID\": 4245,\n"
    "\"times\": [{},\n"
    "{\"copy_in_times\": [1.204311000,1.204312000], \"execute_times\": [1.204313000,1.705102000], "
    "\"copy_out_times\": [1.705103000,1.705160000], \"cpu_times\": [1.204311000,1.705160000]},\n"
    "{\"kernel_name\": \"GPUSpin\", \"block_count\": 2, \"thread_count\": 1024, \"shared_memory\": 0, "
    "\"cuda_launch_times\": [1.204314000, 1.204339000, 1.705100000], \"block_times\": "
    "[1.204351234,1.704352345,1.204351300,1.704352400], \"block_smids\": [0,1], \"cpu_core\": 1}\n"
    "]}\n";

static void test_examiner_current(void **state) {
    (void)state;
    trace t;
    char err[512];
    assert_int_equal(import_text(IMP_UNKNOWN, "k1.json", ex_current, &t, err, sizeof err), 0);
    assert_string_equal(t.source, "examiner-json");
    assert_string_equal(t.name, "Stream priority starvation test");
    assert_string_equal(trace_get_meta(&t, "max_resident_threads"), "4096");
    assert_int_equal(t.origin, 1204314000);                /* the launch call */
    assert_int_equal(t.kernels.n, 1);
    assert_int_equal(t.blocks.n, 2);
    const trace_kernel *k = &t.kernels.v[0];
    assert_string_equal(S(&t, k->name), "GPUSpin");
    assert_string_equal(S(&t, k->stream), "K1 (low priority)");
    assert_string_equal(S(&t, k->process), "pid 4242");
    assert_int_equal(k->issue, 0);
    assert_int_equal(k->first_block, 37234);
    assert_int_equal(k->fully_dispatched, 37300);
    assert_int_equal(k->end, 500038400);
    assert_int_equal(k->blocks, 2);
    assert_int_equal(k->threads, 1024);
    assert_int_equal(k->smem, 0);
    assert_int_equal(t.blocks.v[0].sm, 0);
    assert_int_equal(t.blocks.v[0].start, 37234);
    assert_int_equal(t.blocks.v[0].end, 500038345);
    assert_int_equal(t.blocks.v[1].sm, 1);
    assert_int_equal(t.blocks.v[1].index, 1);
    assert_int_equal(t.blocks.v[1].start, 37300);
    trace_free(&t);
}

/* A second stream of the same scenario: multikernel, two kernels, no label,
 * the RTSS'17-artifact kernel_times instead of cuda_launch_times. */
static const char ex_rtss17[] =
    "{\"scenario_name\": \"Stream priority starvation test\", \"benchmark_name\": "
    "\"Multi-kernel submission\", \"max_resident_threads\": 4096, \"PID\": 4242, \"times\": [{},\n"
    "{\"cpu_times\": [1.1, 1.9]},\n"
    "{\"kernel_name\": \"K2\", \"block_count\": 1, \"thread_count\": 512, \"shared_memory\": 4096, "
    "\"kernel_times\": [1.300000000, 1.400000000], \"block_times\": [1.300000001,1.399999999], "
    "\"block_smids\": [1]},\n"
    "{\"kernel_name\": \"K3\", \"block_count\": 1, \"thread_count\": 512, \"shared_memory\": 0, "
    "\"kernel_times\": [1.400000100, 1.500000000]}\n"
    "]}\n";

static void test_examiner_two_files(void **state) {
    (void)state;
    imp_file files[2] = {text_file("res/k1.json", ex_current), text_file("res/mk_1.json", ex_rtss17)};
    trace t;
    trace_init(&t);
    char err[512] = "";
    assert_int_equal(imp_import(IMP_UNKNOWN, files, 2, &t, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_int_equal(t.kernels.n, 3);
    assert_int_equal(t.blocks.n, 3);
    assert_int_equal(t.origin, 1204314000);
    assert_string_equal(trace_get_meta(&t, "files"), "res/k1.json, res/mk_1.json");
    assert_string_equal(t.name, "Stream priority starvation test");
    const trace_kernel *k = &t.kernels.v[1];
    assert_string_equal(S(&t, k->name), "K2");
    assert_string_equal(S(&t, k->stream), "mk_1");       /* no label: the file's name */
    assert_int_equal(k->issue, TRACE_NONE);
    assert_int_equal(k->first_block, 1300000001 - 1204314000);
    assert_int_equal(k->end, 1399999999 - 1204314000);
    assert_int_equal(k->smem, 4096);
    assert_int_equal(t.blocks.v[2].kernel, 1);
    assert_int_equal(t.blocks.v[2].sm, 1);
    k = &t.kernels.v[2];                                 /* kernel_times only */
    assert_string_equal(S(&t, k->name), "K3");
    assert_int_equal(k->blocks, 1);
    assert_int_equal(k->first_block, 1400000100 - 1204314000);
    assert_int_equal(k->end, 1500000000 - 1204314000);
    assert_int_equal(k->fully_dispatched, TRACE_NONE);
    trace_free(&t);
}

/* March 2017: keys with spaces, block/thread counts in the header, no
 * block_smids, no kernel_name. */
static const char ex_early[] =
    "{\"benchmark_name\": \"Timer Spin\", \"thread_count\": 256, \"block_count\": 2,\n"
    " \"data_size\": 0, \"PID\": 77, \"TID\": 78, \"times\": [{},\n"
    " {\"kernel times\": [10.000100, 10.000900], \"block times\": [10.000100, 10.000500, "
    "10.000200, 10.000900]}]}";

static void test_examiner_early(void **state) {
    (void)state;
    trace t;
    char err[512];
    assert_int_equal(import_text(IMP_EXAMINER_JSON, "old.json", ex_early, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 1);
    const trace_kernel *k = &t.kernels.v[0];
    assert_string_equal(S(&t, k->name), "Timer Spin");
    assert_string_equal(S(&t, k->stream), "Timer Spin");
    assert_int_equal(k->threads, 256);
    assert_int_equal(k->blocks, 2);
    assert_int_equal(k->first_block, 0);
    assert_int_equal(k->fully_dispatched, 100000);
    assert_int_equal(k->end, 800000);
    /* no block_smids: a stored block has its SM (docs/trace-format.md: 0..1023,
     * imp_check_trace), so the blocks are left out and said; this asserted
     * t.blocks.v[1].sm == -1, blocks the import then refused
     * ("blocks[0].sm: -1 is out of range"): the format never imported */
    assert_int_equal(t.blocks.n, 0);
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "old.json: times[1]: no \"block_smids\" (the result format before "
                        "2017-03-23), so the blocks' SMs are unknown: 1 kernel kept with its "
                        "start, end and block count, without block records");
    assert_int_equal(t.origin, 10000100000);
    trace_free(&t);
}

/* Seconds become ns by rounding, not truncation: 1.000015838 s is
 * 1000015837.9999999 ns in a double, so truncating would lose a ns. The
 * launch call 1.000015838 is the origin; the block starts at 1.000016000
 * (exact in ns) and ends at 1.500000007 (exact): 162 and 499984169 ns after
 * the origin (truncation would give 163 and 499984170).
 * Mutant: examiner-sec-truncate. */
static const char ex_rounding[] =
    "{\"scenario_name\": \"rounding\", \"benchmark_name\": \"Timer Spin\", \"PID\": 1, \"times\": [{},\n"
    "{\"kernel_name\": \"K\", \"block_count\": 1, \"thread_count\": 64, \"shared_memory\": 0, "
    "\"cuda_launch_times\": [1.000015838, 1.000015900, 1.600000000], "
    "\"block_times\": [1.000016000, 1.500000007], \"block_smids\": [3]}]}\n";

static void test_examiner_times_rounded(void **state) {
    (void)state;
    trace t;
    char err[512];
    assert_int_equal(import_text(IMP_EXAMINER_JSON, "r.json", ex_rounding, &t, err, sizeof err), 0);
    assert_int_equal(t.origin, 1000015838);
    assert_int_equal(t.kernels.n, 1);
    assert_int_equal(t.blocks.n, 1);
    const trace_kernel *k = &t.kernels.v[0];
    assert_int_equal(k->issue, 0);
    assert_int_equal(k->first_block, 162);
    assert_int_equal(k->fully_dispatched, 162);
    assert_int_equal(k->end, 499984169);
    assert_int_equal(t.blocks.v[0].sm, 3);
    assert_int_equal(t.blocks.v[0].start, 162);
    assert_int_equal(t.blocks.v[0].end, 499984169);
    trace_free(&t);
}

static void test_examiner_errors(void **state) {
    (void)state;
    /* cut after the CPU-times line: 11 lines were written, the run died */
    char cut[sizeof ex_current];
    const char *p = strstr(ex_current, "{\"kernel_name\"");
    size_t n = (size_t)(p - ex_current);
    memcpy(cut, ex_current, n);
    cut[n] = '\0';
    expect_error(IMP_EXAMINER_JSON, "k1.json", cut,
                 "k1.json: truncated at line 12 (the run did not finish writing it)");
    expect_error(IMP_EXAMINER_JSON, "k1.json", "{\"times\": [{}, {\"block_times\": [1, x]}]}",
                 "k1.json:1:36: invalid JSON: invalid token near 'x'");
    expect_error(IMP_EXAMINER_JSON, "k1.json",
                 "{\"times\": [{}, {\"block_count\": 2, \"block_times\": [1,2,3,4], "
                 "\"block_smids\": [0]}]}",
                 "k1.json: times[1].block_smids: 1 entries for 2 blocks");
    expect_error(IMP_EXAMINER_JSON, "k1.json",
                 "{\"times\": [{}, {\"block_count\": 3, \"block_times\": [1,2,3,4]}]}",
                 "k1.json: times[1].block_times: 2 blocks, but block_count is 3");
    expect_error(IMP_EXAMINER_JSON, "k1.json",
                 "{\"times\": [{}, {\"block_times\": [1,2,3]}]}",
                 "k1.json: times[1].block_times: expected an array of start,end pairs (an even "
                 "count), got 3 values");
    expect_error(IMP_EXAMINER_JSON, "k1.json",
                 "{\"times\": [{}, {\"block_times\": [1,2,\"3\",4]}]}",
                 "k1.json: times[1].block_times[2]: expected a number of seconds");
    expect_error(IMP_EXAMINER_JSON, "k1.json",
                 "{\"times\": [{}, {\"block_times\": [2,1]}]}",
                 "k1.json: times[1].block_times[1]: block 0 ends before it starts");
    expect_error(IMP_EXAMINER_JSON, "k1.json", "{\"times\": [{}, {\"cpu_times\": [1,2]}]}",
                 "k1.json: no kernel records in \"times\" (only CPU times?)");
    expect_error(IMP_EXAMINER_JSON, "h.json",
                 "{\"plugin_name\": \"x\", \"times\": [{}]}",
                 "h.json: a hip_plugin_framework result (block times in GPU clock cycles, no SM "
                 "ids) cannot be imported");

    imp_file files[2] = {text_file("a.json", ex_current),
                         text_file("b.json", "{\"scenario_name\": \"other\", \"times\": [{}]}")};
    trace t;
    trace_init(&t);
    char err[512];
    assert_int_equal(imp_import(IMP_EXAMINER_JSON, files, 2, &t, err, sizeof err), -1);
    assert_string_equal(err, "b.json: scenario_name \"other\" differs from \"Stream priority "
                             "starvation test\" in a.json; import one scenario at a time");
    trace_free(&t);
    trace_init(&t);
    imp_file two_csv[2] = {text_file("a.csv", "K,0,1,5,6\n"), text_file("b.csv", "K,0,1,5,6\n")};
    assert_int_equal(imp_import(IMP_GLOBALTIMER_CSV, two_csv, 2, &t, err, sizeof err), -1);
    assert_string_equal(err, "b.csv: only examiner-json and pytorch read several files as one "
                             "run; import globaltimer-csv files one at a time");
    trace_free(&t);
}

/* ---- archives of examiner files (tar, tar.gz, zip) ------------------------ */

/* The tar is built by hand, byte by byte, so the reader is checked against
 * the ustar layout itself; the zip and compressed tars come from
 * libarchive's writer, which shares the library but not the code path. */
static size_t tar_member(unsigned char *out, const char *name, const char *body) {
    size_t len = strlen(body);
    unsigned char *h = out;
    memset(h, 0, 512);
    snprintf((char *)h, 100, "%s", name);
    memcpy(h + 100, "0000644", 8);
    memcpy(h + 108, "0000000", 8);
    memcpy(h + 116, "0000000", 8);
    snprintf((char *)h + 124, 12, "%011o", (unsigned)len);
    memcpy(h + 136, "00000000000", 12);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    unsigned sum = 0;
    for (size_t i = 0; i < 512; i++) sum += (i >= 148 && i < 156) ? ' ' : h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
    memcpy(out + 512, body, len);
    size_t padded = (len + 511) / 512 * 512;
    memset(out + 512 + len, 0, padded - len);
    return 512 + padded;
}

typedef struct arc_member {
    const char *path;
    const char *body;            /* NULL: a directory */
} arc_member;

/* Out of name order on purpose; only res/k1.json and res/mk_1.json are results. */
static const arc_member two_streams[] = {
    {"res/", NULL},
    {"res/mk_1.json", ex_rtss17},
    {"res/README.txt", "not json"},
    {"__MACOSX/res/._k1.json", "resource fork"},
    {"res/._mk_1.json", "resource fork"},
    {"res/sub.json/", NULL},
    {"res/k1.json", ex_current},
};

enum { ARC_ZIP, ARC_TAR_GZ, ARC_TAR_BZ2, ARC_TAR_XZ };

/* An archive in memory (malloc'ed, *len bytes) with libarchive's writer. */
static unsigned char *write_archive(int kind, const arc_member *m, size_t nm, size_t *len) {
    size_t cap = 1 << 16;
    for (size_t i = 0; i < nm; i++) cap += 1024 + strlen(m[i].path) + (m[i].body ? strlen(m[i].body) : 0);
    unsigned char *buf = malloc(cap);
    assert_non_null(buf);
    struct archive *a = archive_write_new();
    assert_non_null(a);
    if (kind == ARC_ZIP) {
        assert_int_equal(archive_write_set_format_zip(a), ARCHIVE_OK);
    } else {
        assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
        int r = kind == ARC_TAR_GZ    ? archive_write_add_filter_gzip(a)
                : kind == ARC_TAR_BZ2 ? archive_write_add_filter_bzip2(a)
                                      : archive_write_add_filter_xz(a);
        assert_int_equal(r, ARCHIVE_OK);
    }
    size_t used = 0;
    assert_int_equal(archive_write_open_memory(a, buf, cap, &used), ARCHIVE_OK);
    for (size_t i = 0; i < nm; i++) {
        struct archive_entry *e = archive_entry_new();
        assert_non_null(e);
        archive_entry_set_pathname(e, m[i].path);
        archive_entry_set_mtime(e, 1700000000, 0);
        if (m[i].body) {
            size_t blen = strlen(m[i].body);
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_perm(e, 0644);
            archive_entry_set_size(e, (la_int64_t)blen);
            assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
            assert_int_equal(archive_write_data(a, m[i].body, blen), (la_ssize_t)blen);
        } else {
            archive_entry_set_filetype(e, AE_IFDIR);
            archive_entry_set_perm(e, 0755);
            assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
        }
        archive_entry_free(e);
    }
    assert_int_equal(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
    *len = used;
    return buf;
}

/* What test_examiner_two_files asserts for res/k1.json + res/mk_1.json:
 * an archive of the two must give the very same run. */
static void assert_two_streams(const trace *t) {
    assert_int_equal(t->kernels.n, 3);
    assert_int_equal(t->blocks.n, 3);
    assert_int_equal(t->origin, 1204314000);
    assert_string_equal(t->name, "Stream priority starvation test");
    const trace_kernel *k = &t->kernels.v[0];           /* k1.json sorts first */
    assert_string_equal(S(t, k->name), "GPUSpin");
    assert_string_equal(S(t, k->stream), "K1 (low priority)");
    assert_int_equal(k->first_block, 37234);
    assert_int_equal(k->end, 500038400);
    k = &t->kernels.v[1];
    assert_string_equal(S(t, k->name), "K2");
    assert_string_equal(S(t, k->stream), "mk_1");         /* the member's base name */
    assert_int_equal(k->first_block, 1300000001 - 1204314000);
    assert_int_equal(k->end, 1399999999 - 1204314000);
    assert_int_equal(k->smem, 4096);
    assert_string_equal(S(t, t->kernels.v[2].name), "K3");
    assert_int_equal(t->blocks.v[0].sm, 0);
    assert_int_equal(t->blocks.v[0].start, 37234);
    assert_int_equal(t->blocks.v[1].sm, 1);
    assert_int_equal(t->blocks.v[1].start, 37300);
    assert_int_equal(t->blocks.v[2].kernel, 1);
    assert_int_equal(t->blocks.v[2].sm, 1);
}

/* The archive expanded directly: exactly the two results, sorted, each an
 * owned copy of its bytes. */
static void assert_two_members(const imp_file *arc, const char *n1, const char *n2) {
    imp_file *m = NULL;
    size_t n = 0;
    char err[512] = "";
    assert_int_equal(imp_archive_expand(arc, &m, &n, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_int_equal(n, 2);
    assert_string_equal(m[0].name, n1);
    assert_int_equal(m[0].len, strlen(ex_current));
    assert_memory_equal(m[0].data, ex_current, m[0].len);
    assert_string_equal(m[1].name, n2);
    assert_int_equal(m[1].len, strlen(ex_rtss17));
    assert_memory_equal(m[1].data, ex_rtss17, m[1].len);
    assert_true(m[0].data < arc->data || m[0].data >= arc->data + arc->len);
    imp_archive_free(m, n);
}

static void import_archive_ok(const imp_file *f) {
    assert_int_equal(imp_detect(f), IMP_EXAMINER_JSON);
    trace t;
    trace_init(&t);
    char err[512] = "";
    assert_int_equal(imp_import(IMP_UNKNOWN, f, 1, &t, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_two_streams(&t);
    assert_string_equal(trace_get_meta(&t, "files"), f->name);
    /* every archive here holds res/README.txt, which is not read: said,
     * naming the member; the directories and macOS's resource forks are not
     * something the user put there and go unsaid (archive.h) */
    char want[256];
    snprintf(want, sizeof want, "%s(res/README.txt): not read: only .json members of an "
             "archive are result files", f->name);
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY), want);
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_TOTAL_KEY), "1");
    trace_free(&t);
}

static void import_archive_err(const imp_file *f, const char *want) {
    trace t;
    trace_init(&t);
    char err[512] = "";
    assert_int_equal(imp_import(IMP_EXAMINER_JSON, f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, want);
    trace_free(&t);
}

static void test_examiner_tar(void **state) {
    (void)state;
    size_t cap = 3 * 512 + sizeof ex_current + sizeof ex_rtss17 + 4096;
    unsigned char *tar = calloc(1, cap);
    assert_non_null(tar);
    size_t n = 0;
    /* out of name order on purpose; README.txt is not a result file */
    n += tar_member(tar + n, "res/mk_1.json", ex_rtss17);
    n += tar_member(tar + n, "res/README.txt", "not json");
    n += tar_member(tar + n, "res/k1.json", ex_current);
    n += 1024;                                   /* end-of-archive blocks */
    imp_file f = {"results.tar", tar, n};
    assert_int_equal(imp_archive_detect(tar, n), IMP_ARCHIVE_TAR);
    import_archive_ok(&f);
    assert_two_members(&f, "results.tar(res/k1.json)", "results.tar(res/mk_1.json)");

    size_t second = 512 + (sizeof ex_rtss17 - 1 + 511) / 512 * 512;
    tar[second + 148] ^= 1;                      /* README.txt's header checksum */
    import_archive_err(&f, "results.tar: member after \"res/mk_1.json\": Damaged tar archive");
    tar[second + 148] ^= 1;

    tar[148] = '7';                              /* break the first checksum */
    import_archive_err(&f, "results.tar: cannot read it as a tar, tar.gz or zip "
                           "archive: Unrecognized archive format");
    free(tar);
}

static void test_examiner_zip(void **state) {
    (void)state;
    size_t len;
    unsigned char *zip = write_archive(ARC_ZIP, two_streams,
                                       sizeof two_streams / sizeof two_streams[0], &len);
    imp_file f = {"results.zip", zip, len};
    assert_int_equal(imp_archive_detect(zip, len), IMP_ARCHIVE_ZIP);
    import_archive_ok(&f);
    assert_two_members(&f, "results.zip(res/k1.json)", "results.zip(res/mk_1.json)");

    /* one plain file beside the archive: archive members and the file
     * together, in upload order */
    imp_file mixed[2] = {f, text_file("extra/k9.json", ex_current)};
    trace t;
    trace_init(&t);
    char err[512] = "";
    assert_int_equal(imp_import(IMP_UNKNOWN, mixed, 2, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 4);
    assert_string_equal(S(&t, t.kernels.v[3].name), "GPUSpin");
    assert_string_equal(trace_get_meta(&t, "files"), "results.zip, extra/k9.json");
    trace_free(&t);

    /* damage k1.json's deflated bytes, found from its local header */
    size_t hdr = 0;
    while (hdr + 41 < len && memcmp(zip + hdr + 30, "res/k1.json", 11) != 0) hdr++;
    assert_memory_equal(zip + hdr, "PK\x03\x04", 4);
    size_t extra = zip[hdr + 28] | (size_t)zip[hdr + 29] << 8;
    zip[hdr + 30 + 11 + extra + 5] ^= 0x55;
    import_archive_err(&f, "results.zip: member \"res/k1.json\": ZIP decompression failed (-3)");
    free(zip);

    static const arc_member no_json[] = {{"res/", NULL}, {"res/README.txt", "hello"},
                                         {"__MACOSX/res/._a.json", "fork"}};
    zip = write_archive(ARC_ZIP, no_json, 3, &len);
    f = (imp_file){"r.zip", zip, len};
    import_archive_err(&f, "r.zip: no .json result files in the archive");
    free(zip);

    /* an empty zip is only the end-of-central-directory record */
    static const unsigned char empty[22] = "PK\x05\x06";
    assert_int_equal(imp_archive_detect(empty, sizeof empty), IMP_ARCHIVE_ZIP);
    f = (imp_file){"empty.zip", empty, sizeof empty};
    assert_int_equal(imp_detect(&f), IMP_EXAMINER_JSON);
    import_archive_err(&f, "empty.zip: no .json result files in the archive");

    f = (imp_file){"r.zip", (const unsigned char *)"PK\x03\x04rest", 8};
    assert_int_equal(imp_detect(&f), IMP_EXAMINER_JSON);
    import_archive_err(&f, "r.zip: first member: Truncated ZIP file header");
}

/* A tar is told by its header block: "ustar" at byte 257 and the header's
 * checksum (POSIX ustar format; libarchive checks both). The five bytes
 * alone are not one: an nvprof SQLite export holding them there
 * (fuzz_nvprof_sqlite's input, fuzz/corpus/nvprof_sqlite) was refused as
 * "a tar archive" by the import while its reader took it. */
static void test_tar_header_checksum(void **state) {
    (void)state;
    unsigned char tar[2048];
    size_t n = tar_member(tar, "res/k1.json", "{}");
    assert_true(imp_archive_tar_header(tar, n));
    assert_int_equal(imp_archive_detect(tar, n), IMP_ARCHIVE_TAR);
    /* the checksum written as an old tar did: leading spaces, then NUL */
    unsigned char old[512];
    memcpy(old, tar, 512);
    unsigned sum = 0;
    for (size_t i = 0; i < 512; i++) sum += (i >= 148 && i < 156) ? ' ' : old[i];
    snprintf((char *)old + 148, 8, "%7o", sum);
    assert_true(imp_archive_tar_header(old, sizeof old));
    /* one byte of the name changed: the checksum no longer holds, and the
     * file is a damaged tar (libarchive says how: test_examiner_tar) */
    tar[0] ^= 1;
    assert_false(imp_archive_tar_header(tar, n));
    assert_int_equal(imp_archive_detect(tar, n), IMP_ARCHIVE_TAR);
    /* "ustar" at 257 of a SQLite file's first page, or of a JSON document
     * (after a byte order mark and blanks): not a tar */
    unsigned char db[1024] = "SQLite format 3";
    memcpy(db + 257, "ustar", 5);
    assert_false(imp_archive_tar_header(db, sizeof db));
    assert_int_equal(imp_archive_detect(db, sizeof db), IMP_ARCHIVE_NONE);
    unsigned char js[600];
    memset(js, ' ', sizeof js);
    memcpy(js, "\xEF\xBB\xBF\n {\"kernels\": \"", 17);
    memcpy(js + 257, "ustar", 5);
    assert_int_equal(imp_archive_detect(js, sizeof js), IMP_ARCHIVE_NONE);
    /* too short for a header block */
    assert_false(imp_archive_tar_header(tar, 511));
}

static void test_examiner_tar_compressed(void **state) {
    (void)state;
    static const struct {
        int kind;
        imp_archive_kind detected;
        const char *name;
    } cases[] = {{ARC_TAR_GZ, IMP_ARCHIVE_GZIP, "results.tar.gz"},
                 {ARC_TAR_BZ2, IMP_ARCHIVE_BZIP2, "results.tar.bz2"},
                 {ARC_TAR_XZ, IMP_ARCHIVE_XZ, "results.tar.xz"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t len;
        unsigned char *d = write_archive(cases[c].kind, two_streams,
                                         sizeof two_streams / sizeof two_streams[0], &len);
        assert_int_equal(imp_archive_detect(d, len), cases[c].detected);
        imp_file f = {cases[c].name, d, len};
        import_archive_ok(&f);
        char n1[64], n2[64];
        snprintf(n1, sizeof n1, "%s(res/k1.json)", cases[c].name);
        snprintf(n2, sizeof n2, "%s(res/mk_1.json)", cases[c].name);
        assert_two_members(&f, n1, n2);
        free(d);
    }

    /* a gzip stream cut short: the compressed data ends inside k1.json */
    size_t len;
    unsigned char *gz = write_archive(ARC_TAR_GZ, two_streams,
                                      sizeof two_streams / sizeof two_streams[0], &len);
    imp_file f = {"cut.tar.gz", gz, len - 40};
    import_archive_err(&f, "cut.tar.gz: cannot read it as a tar, tar.gz or zip archive: "
                           "truncated gzip input");
    free(gz);
}

/* One file compressed on its own (libarchive's raw writer: no tar inside). */
static unsigned char *compress_one(int kind, const char *body, size_t blen, size_t *len) {
    size_t cap = blen + 4096;
    unsigned char *buf = malloc(cap);
    assert_non_null(buf);
    struct archive *a = archive_write_new();
    assert_non_null(a);
    assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
    int r = kind == ARC_TAR_GZ ? archive_write_add_filter_gzip(a) : archive_write_add_filter_xz(a);
    assert_int_equal(r, ARCHIVE_OK);
    size_t used = 0;
    assert_int_equal(archive_write_open_memory(a, buf, cap, &used), ARCHIVE_OK);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, "x");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_size(e, (la_int64_t)blen);
    assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
    if (blen) assert_int_equal(archive_write_data(a, body, blen), (la_ssize_t)blen);
    archive_entry_free(e);
    assert_int_equal(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
    *len = used;
    return buf;
}

/* One compressed file imported as fmt: refused with want (the cases of the
 * two tests below). */
typedef struct compressed_case {
    int kind;
    const char *name, *body;
    size_t blen;
    imp_format fmt;
    const char *want;
} compressed_case;

static void check_compressed(const compressed_case *cases, size_t n) {
    for (size_t i = 0; i < n; i++) {
        size_t len;
        unsigned char *d = compress_one(cases[i].kind, cases[i].body, cases[i].blen, &len);
        imp_file f = {cases[i].name, d, len};
        trace t;
        trace_init(&t);
        char err[512] = "";
        assert_int_equal(imp_import(cases[i].fmt, &f, 1, &t, err, sizeof err), -1);
        assert_string_equal(err, cases[i].want);
        trace_free(&t);
        free(d);
    }
}

/* What the cases compress: an nvprof log of one kernel, an SQLite file's
 * header, an empty PyTorch trace. */
static const char *compressed_csv(void) {
    static char csv[1024];
    snprintf(csv, sizeof csv, "%sms,ms,,,,,,,B,,\n1.0,0.5,2,1,1,32,1,1,,\"7\",\"k0\"\n", nv_head);
    return csv;
}
static const char compressed_sqlite[32] = "SQLite format 3";
static const char compressed_ours[] =
    "{\"schema\": \"schedlab-trace/1\", \"kernels\": []}";
static const char compressed_pt[] =
    "{\"schemaVersion\": 1, \"deviceProperties\": [], \"traceEvents\": []}";

/* A .gz (or .xz) that is one file compressed, no tar: run.csv.gz, a gzipped
 * Nsight export, a gzipped PyTorch trace named as examiner-json. Detection
 * takes any compressed stream but a PyTorch one for an examiner archive;
 * before, every such file was "cannot read it as a tar, tar.gz or zip
 * archive: Unrecognized archive format", as if its bytes were damaged. Now
 * the error says what the stream holds and what to do (only PyTorch traces
 * are read compressed, docs/trace-format.md). */
static void test_compressed_single_file(void **state) {
    (void)state;
    const char *csv = compressed_csv();
    static const char doc[] = "{\"scenario_name\": \"x\"}";
    const compressed_case cases[] = {
        {ARC_TAR_GZ, "run.csv.gz", csv, strlen(csv), IMP_UNKNOWN,
         "run.csv.gz: a gzip-compressed nvprof-csv file, not a tar or zip of result files; "
         "gunzip it first (only PyTorch traces are read compressed)"},
        {ARC_TAR_XZ, "run.csv.xz", csv, strlen(csv), IMP_UNKNOWN,
         "run.csv.xz: an xz-compressed nvprof-csv file, not a tar or zip of result files; "
         "unxz it first (only PyTorch traces are read compressed, and only with gzip)"},
        /* an xz PyTorch trace: pytorch reads gzip alone (docs/pytorch.md;
         * pytorch_json.c expand), so not "import it as format pytorch"
         * alone, which pytorch then refused in the same words */
        {ARC_TAR_XZ, "trace.json.xz", compressed_pt, strlen(compressed_pt), IMP_UNKNOWN,
         "trace.json.xz: an xz-compressed PyTorch profiler trace, not a tar or zip of examiner "
         "results; unxz it and import it as format pytorch (which reads a trace plain or "
         "gzip-compressed)"},
        {ARC_TAR_GZ, "report.sqlite.gz", compressed_sqlite, sizeof compressed_sqlite, IMP_UNKNOWN,
         "report.sqlite.gz: a gzip-compressed SQLite database (an nvprof or Nsight Systems "
         "export), not a tar or zip of result files; gunzip it and import the database"},
        {ARC_TAR_GZ, "trace.json.gz", compressed_pt, strlen(compressed_pt), IMP_EXAMINER_JSON,
         "trace.json.gz: a gzip-compressed PyTorch profiler trace, not a tar or zip of examiner "
         "results; import it as format pytorch"},
        {ARC_TAR_GZ, "k1.json.gz", doc, strlen(doc), IMP_UNKNOWN,
         "k1.json.gz: a gzip-compressed JSON document, not a tar or zip of result files; "
         "gunzip it first (only PyTorch traces are read compressed)"},
        {ARC_TAR_GZ, "none.json.gz", "", 0, IMP_UNKNOWN,
         "none.json.gz: a gzip-compressed empty file: nothing to import"},
    };
    check_compressed(cases, sizeof cases / sizeof cases[0]);
}

/* The same files, and archives, named as a format that reads neither
 * (--format nvprof-csv on run.csv.gz): before, the format's first
 * complaint about the compressed bytes -- "no nvprof GPU-trace header (a
 * line starting with \"Start\")", "not an SQLite database (the file does
 * not start with \"SQLite format 3\")", "1:2: JSON: invalid token near
 * '\x1f'", "1:4: NUL byte in a field" -- none saying it was compressed. */
static void test_compressed_named_format(void **state) {
    (void)state;
    const char *csv = compressed_csv();
    const compressed_case cases[] = {
        {ARC_TAR_GZ, "run.csv.gz", csv, strlen(csv), IMP_NVPROF_CSV,
         "run.csv.gz: a gzip-compressed nvprof-csv file; gunzip it first (only PyTorch traces "
         "are read compressed)"},
        {ARC_TAR_XZ, "run.csv.xz", csv, strlen(csv), IMP_GLOBALTIMER_CSV,
         "run.csv.xz: an xz-compressed nvprof-csv file; unxz it first (only PyTorch traces are "
         "read compressed, and only with gzip)"},
        /* an xz file named pytorch: pytorch takes it for a compressed tar
         * of rank files (docs/pytorch.md: a trace, plain or .gz, or a zip
         * or tar of a job's rank files); before, "not a tar or zip of
         * result files" and "only PyTorch traces are read compressed", an
         * examiner archive's words, and of an xz PyTorch trace "import it
         * as format pytorch", the format it was named as */
        {ARC_TAR_XZ, "run.csv.xz", csv, strlen(csv), IMP_PYTORCH,
         "run.csv.xz: an xz-compressed nvprof-csv file, not a PyTorch trace or a zip or tar of "
         "rank files; unxz it first and import it as format nvprof-csv"},
        {ARC_TAR_XZ, "report.sqlite.xz", compressed_sqlite, sizeof compressed_sqlite, IMP_PYTORCH,
         "report.sqlite.xz: an xz-compressed SQLite database (an nvprof or Nsight Systems "
         "export), not a PyTorch trace or a zip or tar of rank files; unxz it and import the "
         "database"},
        {ARC_TAR_XZ, "trace.json.xz", compressed_pt, strlen(compressed_pt), IMP_PYTORCH,
         "trace.json.xz: an xz-compressed PyTorch profiler trace; pytorch reads a trace plain or "
         "gzip-compressed: unxz it first"},
        {ARC_TAR_XZ, "t.json.xz", compressed_ours, strlen(compressed_ours), IMP_PYTORCH,
         "t.json.xz: an xz-compressed schedlab trace, not a PyTorch trace or a zip or tar of "
         "rank files; unxz it first"},
        {ARC_TAR_GZ, "report.sqlite.gz", compressed_sqlite, sizeof compressed_sqlite, IMP_NSYS_SQLITE,
         "report.sqlite.gz: a gzip-compressed SQLite database (an nvprof or Nsight Systems "
         "export); gunzip it and import the database"},
        {ARC_TAR_GZ, "trace.json.gz", compressed_pt, strlen(compressed_pt), IMP_SCHEDLAB_TRACE,
         "trace.json.gz: a gzip-compressed PyTorch profiler trace; import it as format pytorch"},
        /* pytorch reads a .gz itself: refused for the inflated bytes, which
         * are named as a plain file's are (test_wrong_format_hint), with the
         * gunzip to do; before, "byte 0 of the decompressed JSON:
         * unexpected '=' where a value should come" alone */
        {ARC_TAR_GZ, "run.csv.gz", csv, strlen(csv), IMP_PYTORCH,
         "run.csv.gz: byte 0 of the decompressed JSON: unexpected '=' where a value should come "
         "(its content is nvprof-csv's: gunzip it and import it as format nvprof-csv)"},
        {ARC_TAR_GZ, "report.sqlite.gz", compressed_sqlite, sizeof compressed_sqlite, IMP_PYTORCH,
         "report.sqlite.gz: byte 0 of the decompressed JSON: unexpected 'S' where a value should "
         "come (its content is an SQLite database (an nvprof or Nsight Systems export): gunzip it "
         "and import the database)"},
        {ARC_TAR_GZ, "t.json.gz", compressed_ours, strlen(compressed_ours), IMP_PYTORCH,
         "t.json.gz: not a PyTorch profiler trace: no traceEvents array (its content is a "
         "schedlab trace: gunzip it and import it as format schedlab-trace)"},
        /* a PyTorch trace cut short: its own refusal, nothing added */
        {ARC_TAR_GZ, "cut.json.gz", compressed_pt, 30, IMP_PYTORCH,
         "cut.json.gz: byte 30 of the decompressed JSON: the input ends inside a string"},
    };
    check_compressed(cases, sizeof cases / sizeof cases[0]);
    /* archives: a zip and a tar.gz of examiner results */
    size_t len;
    unsigned char *zip = write_archive(ARC_ZIP, two_streams,
                                       sizeof two_streams / sizeof two_streams[0], &len);
    imp_file f = {"results.zip", zip, len};
    trace t;
    char err[512];
    trace_init(&t);
    assert_int_equal(imp_import(IMP_GLOBALTIMER_CSV, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "results.zip: a zip archive; globaltimer-csv reads one file, not an "
                             "archive: extract it first (only examiner-json and pytorch read "
                             "archives)");
    trace_free(&t);
    free(zip);
    unsigned char *tgz = write_archive(ARC_TAR_GZ, two_streams,
                                       sizeof two_streams / sizeof two_streams[0], &len);
    f = (imp_file){"results.tar.gz", tgz, len};
    trace_init(&t);
    assert_int_equal(imp_import(IMP_NVPROF_SQLITE, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "results.tar.gz: a gzip-compressed tar archive; extract it first "
                             "(only examiner-json and pytorch read archives)");
    trace_free(&t);
    free(tgz);
}

/* schedlab's own trace with examiner-json named for it (the upload form's
 * format list, --format) said "schema: \"schedlab-trace/1\" is not a trace
 * (a trace to import is \"schedlab-trace/1\" or a profiler's file)": a
 * sentence that contradicts itself. */
static void test_examiner_given_our_trace(void **state) {
    (void)state;
    expect_error(IMP_EXAMINER_JSON, "t.json",
                 "{\"schema\":\"schedlab-trace/1\",\"name\":\"t\",\"kernels\":[]}",
                 "t.json: schema: \"schedlab-trace/1\": a schedlab trace, not "
                 "cuda_scheduling_examiner results; import it as format schedlab-trace");
    /* the other schedlab documents keep their words */
    expect_error(IMP_EXAMINER_JSON, "s.json", "{\"schema\":\"schedlab-taskset/1\"}",
                 "s.json: schema: \"schedlab-taskset/1\" is a taskset, not a trace: `schedlab "
                 "rta` analyses it (a trace to import is \"schedlab-trace/1\" or a profiler's "
                 "file)");
}

/* A format named for a file whose content another format takes beyond
 * doubt: the refusal said only what the named format missed ("nvprof.csv:1:
 * 2 fields; expected kernel,block,sm,..."), not what the file is. Now the
 * format its content reads as follows the refusal. Examiner results (any
 * JSON object) are never named so; a refusal that named the format
 * already is not said twice. */
static void test_wrong_format_hint(void **state) {
    (void)state;
    char csv[1024];
    snprintf(csv, sizeof csv, "%sms,ms,,,,,,,B,,\n1.0,0.5,2,1,1,32,1,1,,\"7\",\"k0\"\n", nv_head);
    expect_error(IMP_GLOBALTIMER_CSV, "nvprof.csv", csv,
                 "nvprof.csv:1: 1 fields; expected kernel,block,sm,start_ns,end_ns[,stream]"
                 "[,threads] (its content is nvprof-csv's: import it as format nvprof-csv)");
    expect_error(IMP_NVPROF_CSV, "gt.csv", "kernel,block,sm,start_ns,end_ns\nK,0,1,5,6\n",
                 "gt.csv: no nvprof GPU-trace header (a line starting with \"Start\"); record the "
                 "log with nvprof --print-gpu-trace --csv (its content is globaltimer-csv's: "
                 "import it as format globaltimer-csv)");
    size_t len;
    unsigned char *d = read_fixture("nsys.sqlite", &len);
    imp_file f = {"report.sqlite", d, len};
    trace t;
    char err[512];
    trace_init(&t);
    assert_int_equal(imp_import(IMP_PYTORCH, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "report.sqlite: byte 0: unexpected 'S' where a value should come "
                             "(its content is nsys-sqlite's: import it as format nsys-sqlite)");
    trace_free(&t);
    /* named once only */
    trace_init(&t);
    assert_int_equal(imp_import(IMP_NVPROF_SQLITE, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "report.sqlite: not an nvprof export: table StringTable missing (this "
                             "is an Nsight Systems export: import it as format nsys-sqlite)");
    trace_free(&t);
    free(d);
    /* examiner results are not named: any JSON object would be */
    expect_error(IMP_PYTORCH, "k1.json", ex_current,
                 "k1.json: not a PyTorch profiler trace: no traceEvents array");
}

/* ---- one run's files of two formats ---------------------------------------- */

/* `schedlab import rank0.json run.csv`: the rank file makes the run a
 * PyTorch job, and the CSV was read as a rank file ("run.csv: byte 0:
 * unexpected '=' where a value should come"). Now a file whose content
 * names another format beyond doubt is said as such. */
static void test_mixed_formats(void **state) {
    (void)state;
    char csv[1024];
    snprintf(csv, sizeof csv, "%sms,ms,,,,,,,B,,\n1.0,0.5,2,1,1,32,1,1,,\"7\",\"k0\"\n", nv_head);
    size_t len;
    unsigned char *pt = read_fixture("pytorch_2x.json", &len);
    unsigned char *ns = NULL;
    size_t nlen;
    ns = read_fixture("nsys.sqlite", &nlen);
    imp_file two[2] = { {"rank0.json", pt, len}, text_file("run.csv", csv) };
    trace t;
    char err[512];
    trace_init(&t);
    assert_int_equal(imp_import(IMP_UNKNOWN, two, 2, &t, err, sizeof err), -1);
    assert_string_equal(err, "run.csv: format nvprof-csv, not pytorch; the files of one run are of "
                             "one format: import it on its own");
    trace_free(&t);
    imp_file three[3] = { {"rank0.json", pt, len}, {"report.sqlite", ns, nlen},
                          text_file("gt.csv", "kernel,block,sm,start_ns,end_ns\nK,0,1,5,6\n") };
    trace_init(&t);
    assert_int_equal(imp_import(IMP_PYTORCH, three, 3, &t, err, sizeof err), -1);
    assert_string_equal(err, "report.sqlite: format nsys-sqlite, not pytorch; the files of one run "
                             "are of one format: import it on its own");
    trace_free(&t);
    /* examiner results beside a globaltimer trace, named */
    imp_file ex[2] = { text_file("k1.json", ex_current),
                       text_file("gt.csv", "kernel,block,sm,start_ns,end_ns\nK,0,1,5,6\n") };
    trace_init(&t);
    assert_int_equal(imp_import(IMP_EXAMINER_JSON, ex, 2, &t, err, sizeof err), -1);
    assert_string_equal(err, "gt.csv: format globaltimer-csv, not examiner-json; the files of one "
                             "run are of one format: import it on its own");
    trace_free(&t);
    /* one file is no run of several: a CSV named pytorch is pytorch's to
     * refuse (it said "format globaltimer-csv, not pytorch as the other
     * file" of a file given alone, d896c8c) */
    imp_file one = text_file("gt.csv", "kernel,block,sm,start_ns,end_ns\nK,0,1,5,6\n");
    trace_init(&t);
    assert_int_equal(imp_import(IMP_PYTORCH, &one, 1, &t, err, sizeof err), -1);
    assert_null(strstr(err, "the files of one run"));
    trace_free(&t);
    /* detected from the first of three files */
    imp_file three_d[3] = { {"rank0.json", pt, len}, {"rank1.json", pt, len - 1},
                            text_file("gt.csv", "kernel,block,sm,start_ns,end_ns\nK,0,1,5,6\n") };
    trace_init(&t);
    assert_int_equal(imp_import(IMP_UNKNOWN, three_d, 3, &t, err, sizeof err), -1);
    assert_string_equal(err, "gt.csv: format globaltimer-csv, not pytorch; the files of one run are "
                             "of one format: import it on its own");
    trace_free(&t);
    free(pt);
    free(ns);
}

/* A JSON file saved by a Windows tool (PowerShell's Out-File -Encoding
 * utf8, Notepad) starts with a UTF-8 byte order mark, which detection
 * passes over (detect.c) and RFC 8259 §8.1 lets a parser ignore; the three
 * JSON readers refused it ("k1.json:1:1: invalid JSON: '[' or '{' expected
 * near ...", "byte 0: unexpected byte 0xef where a value should come",
 * "1:4: JSON: invalid token"). Each now reads it as without the mark, and
 * pytorch's byte offsets still count the file's bytes. */
static void test_json_bom(void **state) {
    (void)state;
    char buf[4096];
    trace t;
    char err[512];
    snprintf(buf, sizeof buf, "\xEF\xBB\xBF%s", ex_current);
    imp_file f = text_file("k1.json", buf);
    assert_int_equal(imp_detect(&f), IMP_EXAMINER_JSON);
    trace_init(&t);
    if (imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err)) fail_msg("%s", err);
    trace plain;
    imp_file pf = text_file("k1.json", ex_current);
    trace_init(&plain);
    assert_int_equal(imp_import(IMP_UNKNOWN, &pf, 1, &plain, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, plain.kernels.n);
    assert_int_equal(t.blocks.n, plain.blocks.n);
    trace_free(&plain);
    trace_free(&t);

    static const char ours[] = "\xEF\xBB\xBF{\"schema\":\"schedlab-trace/1\",\"name\":\"t\","
                               "\"origin\":5,\"kernels\":[{\"id\":0,\"first_block\":100,\"end\":200}]}";
    f = text_file("t.json", ours);
    assert_int_equal(imp_detect(&f), IMP_SCHEDLAB_TRACE);
    trace_init(&t);
    if (imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(t.kernels.n, 1);
    assert_int_equal(t.kernels.v[0].end, 200);
    trace_free(&t);

    size_t len;
    unsigned char *doc = read_fixture("pytorch_2x.json", &len);
    unsigned char *bom = malloc(len + 3);
    assert_non_null(bom);
    memcpy(bom, "\xEF\xBB\xBF", 3);
    memcpy(bom + 3, doc, len);
    imp_file a = {"plain.json", doc, len}, b = {"bom.json", bom, len + 3};
    trace_init(&plain);
    assert_int_equal(imp_import(IMP_UNKNOWN, &a, 1, &plain, err, sizeof err), 0);
    trace_init(&t);
    if (imp_import(IMP_UNKNOWN, &b, 1, &t, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(t.kernels.n, plain.kernels.n);
    assert_int_equal(t.copies.n, plain.copies.n);
    trace_free(&t);
    trace_free(&plain);
    size_t glen;
    unsigned char *gz = compress_one(ARC_TAR_GZ, (const char *)bom, len + 3, &glen);
    imp_file g = {"bom.json.gz", gz, glen};
    trace_init(&t);
    if (imp_import(IMP_UNKNOWN, &g, 1, &t, err, sizeof err)) fail_msg("%s", err);
    trace_free(&t);
    free(gz);
    /* an offset counts the mark: the document cut after its first byte
     * ends at byte 4 of the file */
    b.len = 4;
    trace_init(&t);
    assert_int_equal(imp_import(IMP_PYTORCH, &b, 1, &t, err, sizeof err), -1);
    assert_true(strncmp(err, "bom.json: byte 4: ", 18) == 0);
    trace_free(&t);
    free(bom);
    free(doc);
}

/* Import warnings are capped (importers.h IMP_WARNINGS_SHOWN): an archive
 * of one result and 25 stray CSVs lists the first 20 in the meta, counts
 * all 25, and still imports; a hidden ".json" is said as hidden. The
 * members sort by name in the archive's order of reading (here the order
 * written). */
static void test_archive_warnings_capped(void **state) {
    (void)state;
    arc_member m[27];
    char names[25][32];
    m[0] = (arc_member){"res/k1.json", ex_current};
    m[1] = (arc_member){"res/.old.json", ex_rtss17};
    for (int i = 0; i < 25; i++) {
        snprintf(names[i], sizeof names[i], "res/extra%02d.csv", i);
        m[2 + i] = (arc_member){names[i], "a,b\n1,2\n"};
    }
    size_t len;
    unsigned char *zip = write_archive(ARC_ZIP, m, 27, &len);
    imp_file f = {"many.zip", zip, len};
    trace t;
    trace_init(&t);
    char err[512] = "";
    assert_int_equal(imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 1);           /* k1.json alone */
    const char *w = trace_get_meta(&t, IMP_WARNINGS_KEY);
    assert_non_null(w);
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_TOTAL_KEY), "26");
    size_t lines = 1;
    for (const char *p = w; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, IMP_WARNINGS_SHOWN);
    const char *first = "many.zip(res/.old.json): not read: a hidden file (its name starts "
                        "with \".\") is not a result file\n"
                        "many.zip(res/extra00.csv): not read: only .json members of an "
                        "archive are result files\n";
    assert_memory_equal(w, first, strlen(first));
    /* the 20th line is the 19th CSV; the last six are counted, not listed */
    assert_non_null(strstr(w, "many.zip(res/extra18.csv)"));
    assert_null(strstr(w, "extra19"));
    trace_free(&t);

    /* expanded without a trace to warn on: the same members, no warnings */
    imp_file *mem = NULL;
    size_t nm = 0;
    assert_int_equal(imp_archive_expand(&f, &mem, &nm, err, sizeof err), 0);
    assert_int_equal(nm, 1);
    imp_archive_free(mem, nm);
    free(zip);
}

/* Which members are results goes by the name's end: "k1.json.bak" holds
 * ".json" but is not a .json file (a backup an editor left), so it is not
 * read, and said; and the members not read still count towards the
 * expansion limit (archive.h: skipped bytes cost decompression time too),
 * summed: two 9 MB CSVs that gzip to a few KB pass the 16 MiB floor
 * together though each alone is under it. */
#define SKIPPED_MEMBER (9u << 20)

/* The members as a tar.gz named `name`, imported into *t (its return code;
 * the archive is freed, *t is the caller's to free). */
static int import_tgz(const arc_member *m, size_t nm, const char *name, trace *t, char *err,
                      size_t errlen) {
    size_t len;
    unsigned char *tgz = write_archive(ARC_TAR_GZ, m, nm, &len);
    imp_file f = {name, tgz, len};
    trace_init(t);
    err[0] = '\0';
    int rc = imp_import(IMP_UNKNOWN, &f, 1, t, err, errlen);
    free(tgz);
    return rc;
}

static void test_archive_skipped_members(void **state) {
    (void)state;
    arc_member m[3] = { {"res/k1.json.bak", "not json"}, {"res/k1.json", ex_current} };
    trace t;
    char err[512];
    if (import_tgz(m, 2, "res.tar.gz", &t, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(t.kernels.n, 1);
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "res.tar.gz(res/k1.json.bak): not read: only .json members of an "
                        "archive are result files");
    trace_free(&t);

    char *big = malloc(SKIPPED_MEMBER + 1);
    assert_non_null(big);
    memset(big, 'a', SKIPPED_MEMBER);
    big[SKIPPED_MEMBER] = '\0';
    /* one: 9 MB, under the floor (the archive is a few KB, so the floor,
     * not 100 times its size, is the limit) */
    m[0] = (arc_member){"res/a.csv", big};
    m[1] = (arc_member){"res/k1.json", ex_current};
    if (import_tgz(m, 2, "big.tar.gz", &t, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(t.kernels.n, 1);
    trace_free(&t);
    /* two: 18 MB, over it */
    m[1] = (arc_member){"res/b.csv", big};
    m[2] = (arc_member){"res/k1.json", ex_current};
    assert_int_equal(import_tgz(m, 3, "big.tar.gz", &t, err, sizeof err), -1);
    const char *want = "big.tar.gz: member \"res/b.csv\": the archive expands to more than "
                       "16 MiB (at most 100 times its ";
    if (strncmp(err, want, strlen(want)) != 0) fail_msg("%s", err);
    trace_free(&t);
    free(big);
}

/* Zip-bomb guard: the member count is capped whatever the members hold. */
static void test_archive_limits(void **state) {
    (void)state;
    size_t nm = IMP_ARCHIVE_MAX_MEMBERS + 1;
    arc_member *m = calloc(nm, sizeof *m);
    char (*names)[16] = calloc(nm, sizeof *names);
    assert_non_null(m);
    assert_non_null(names);
    for (size_t i = 0; i < nm; i++) {
        snprintf(names[i], sizeof names[i], "%05zu.json", i);
        m[i] = (arc_member){names[i], ""};
    }
    size_t len;
    unsigned char *zip = write_archive(ARC_ZIP, m, nm, &len);
    imp_file f = {"many.zip", zip, len};
    import_archive_err(&f, "many.zip: more than 10000 members; split the archive");
    /* one fewer is accepted up to the reader: 10000 empty results */
    imp_file *out = NULL;
    size_t n = 0;
    char err[512] = "";
    free(zip);
    zip = write_archive(ARC_ZIP, m, nm - 1, &len);
    f.data = zip;
    f.len = len;
    assert_int_equal(imp_archive_expand(&f, &out, &n, err, sizeof err), 0);
    assert_int_equal(n, IMP_ARCHIVE_MAX_MEMBERS);
    assert_string_equal(out[0].name, "many.zip(00000.json)");
    assert_string_equal(out[n - 1].name, "many.zip(09999.json)");
    assert_int_equal(out[n - 1].len, 0);
    imp_archive_free(out, n);
    free(zip);
    free(names);
    free(m);
}

/* The anonymous memory (heap and anonymous mappings) of this process, from
 * /proc/self/status; -1 where there is none (not Linux). */
static long rss_anon_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %ld kB", &kb) == 1) break;
    fclose(f);
    return kb;
}

/* Issue 29, bounded memory: an archive's members are expanded into
 * temporary files and mapped, not copied onto the heap, so the anonymous
 * memory an expansion takes does not grow with the members' size. Two
 * 40 MB members (80 MB in all) are expanded and read through; the
 * anonymous memory may grow by 8 MB at most (the copy into memory it
 * replaced grew by the 80 MB). */
#define BIG_MEMBER (40u << 20)
static void test_archive_members_mapped(void **state) {
    (void)state;
    if (rss_anon_kb() < 0) {
        print_message("skip: no RssAnon in /proc/self/status\n");
        return;
    }
    char *body = malloc(BIG_MEMBER + 1);
    assert_non_null(body);
    for (size_t i = 0; i < BIG_MEMBER; i++) body[i] = (char)('a' + i % 26);
    body[BIG_MEMBER] = '\0';
    size_t cap = 2 * (512 + BIG_MEMBER) + 1024;
    unsigned char *tar = calloc(1, cap);
    assert_non_null(tar);
    size_t n = tar_member(tar, "rank0.json", body);
    body[0] = 'Z';
    n += tar_member(tar + n, "rank1.json", body);
    n += 1024;
    free(body);
    imp_file arc = {"big.tar", tar, n};
    imp_file *m = NULL;
    size_t nm = 0;
    char err[512] = "";
    long before = rss_anon_kb();
    assert_int_equal(imp_archive_expand(&arc, &m, &nm, err, sizeof err), 0);
    assert_int_equal(nm, 2);
    unsigned long sum = 0;
    for (size_t k = 0; k < nm; k++) {
        assert_int_equal(m[k].len, BIG_MEMBER);
        for (size_t i = 0; i < m[k].len; i += 512) sum += m[k].data[i];
    }
    assert_int_equal(m[0].data[0], 'a');
    assert_int_equal(m[1].data[0], 'Z');
    assert_int_equal(m[1].data[BIG_MEMBER - 1], 'a' + (BIG_MEMBER - 1) % 26);
    long grown = rss_anon_kb() - before;
    print_message("anonymous memory grew by %ld kB expanding 2 x %u MB (sum %lu)\n", grown,
                  BIG_MEMBER >> 20, sum);
    /* AddressSanitizer keeps a byte of shadow per 8 bytes mapped (the
     * mapping's shadow is anonymous): 10 MB for these 80 MB, still far
     * from the 80 MB of a copy */
    long allowed = 8 * 1024;
#if defined(__SANITIZE_ADDRESS__)
    allowed += (long)(2 * BIG_MEMBER / 8 / 1024);
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    allowed += (long)(2 * BIG_MEMBER / 8 / 1024);
#endif
#endif
    assert_true(grown < allowed);
    imp_archive_free(m, nm);
    free(tar);
}

/* No temporary file: an error that says so and names the member, not the
 * archive's fault; nothing is returned. */
static void test_archive_no_tmpdir(void **state) {
    (void)state;
    const char *old = getenv("TMPDIR");
    char *keep = old ? strdup(old) : NULL;
    setenv("TMPDIR", "/nonexistent-schedlab-tmp", 1);
    unsigned char tar[4096] = {0};
    size_t n = tar_member(tar, "res/k1.json", ex_current);
    imp_file arc = {"res.tar", tar, n + 1024};
    imp_file *m = NULL;
    size_t nm = 0;
    char err[512] = "";
    assert_int_equal(imp_archive_expand(&arc, &m, &nm, err, sizeof err), -1);
    assert_string_equal(err, "res.tar: member \"res/k1.json\": creating the temporary file to "
                             "expand it into (in /nonexistent-schedlab-tmp): No such file or "
                             "directory; the archive itself is not at fault");
    assert_null(m);
    assert_int_equal(nm, 0);
    /* the import says the same */
    import_archive_err(&arc, err);
    if (keep) setenv("TMPDIR", keep, 1);
    else unsetenv("TMPDIR");
    free(keep);
}


/* ---- detection ------------------------------------------------------------ */

/* Only the first significant line decides the globaltimer format
 * (docs/trace-format.md, "The formats schedlab imports": a globaltimer
 * block trace "when its first line that is not a `#` comment is its header
 * or a block row"; detect.c), while an nvprof log may start with
 * application output and is recognised by its "==PID==" preamble further
 * down. So an application that prints a comma-separated line of numbers
 * (here "size,1024,1,32,4", five fields, the 2nd to 5th integers: a block
 * row's shape) before nvprof's preamble is still an nvprof log, and a text
 * whose block-row-shaped line is not its first is no globaltimer trace. */
static void test_detect_first_line(void **state) {
    (void)state;
    static const struct { const char *text; imp_format want; } cases[] = {
        { "Running vectorAdd\nsize,1024,1,32,4\n"
          "==1234== NVPROF is profiling process 1234, command: ./vectorAdd\n", IMP_NVPROF_CSV },
        { "hello world\nK1,0,3,100,200\n", IMP_UNKNOWN },
        { "hello world\nkernel,block,sm,start_ns,end_ns\nK1,0,3,100,200\n", IMP_UNKNOWN },
        /* a '#' comment is not the first line; the row after it is */
        { "# recorded on sm_86\nK1,0,3,100,200\n", IMP_GLOBALTIMER_CSV },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        imp_file f = text_file("x", cases[i].text);
        if (imp_detect(&f) != cases[i].want) fail_msg("case %zu: detected %d", i, (int)imp_detect(&f));
    }
}

/* The format table's edges (importers.h): a name for IMP_UNKNOWN, no
 * format for no name; an import of no file; detection by a name's suffix
 * (examiner-json's ".json") only where the content says nothing, never for
 * a name that is only the suffix, and never for an SQLite file (one of
 * neither export is nobody's). */
/* The importers' shared helpers (errors.c, warnings.c, devices.c): one
 * printable line whatever bytes the file held; the warnings' total as
 * stored; the GPUs a trace uses but does not describe. */
static void test_import_helpers(void **state) {
    (void)state;
    char err[64];
    /* no file name: "input"; a tab or newline is a space; other control
     * bytes and DEL as \xNN, both hex digits */
    imp_error(err, sizeof err, NULL, ": ", "a\tb\nc\x01\x7f\x1b|");
    assert_string_equal(err, "input: a b c\\x01\\x7f\\x1b|");
    /* cut short of the end (room for a whole escape and the NUL), never
     * within an escape: 8 bytes keep "f: a" and no part of the \x01 */
    char small[16];
    memset(small, '#', sizeof small);
    imp_error(small, 8, "f", ": ", "a\x01" "bcdef");
    assert_string_equal(small, "f: ");
    assert_int_equal(small[8], '#');
    imp_error(small, 9, "f", ": ", "a\x01" "bcdef");
    assert_string_equal(small, "f: a");
    imp_error(small, 10, "f", ": ", "a\x01" "bcdef");
    assert_string_equal(small, "f: a\\x01");

    trace t;
    trace_init(&t);
    assert_int_equal(imp_warnings_total(&t), 0);
    assert_int_equal(trace_set_meta(&t, IMP_WARNINGS_TOTAL_KEY, "12"), 0);
    assert_int_equal(imp_warnings_total(&t), 12);
    assert_int_equal(trace_set_meta(&t, IMP_WARNINGS_TOTAL_KEY, "12x"), 0);
    assert_int_equal(imp_warnings_total(&t), 0);   /* not a count: none */
    assert_int_equal(trace_set_meta(&t, IMP_WARNINGS_TOTAL_KEY, "-3"), 0);
    assert_int_equal(imp_warnings_total(&t), 0);
    trace_free(&t);

    /* ordinals 0..3, 0 and 1 listed: 2 and 3 taken to be the run's device */
    trace_init(&t);
    assert_int_equal(imp_devices_reserve(&t, 3), 0);
    assert_int_equal(t.devices.n, 4);
    assert_int_equal(imp_devices_unlisted(&t, 0x3, "a.prof", "the device table"), 0);
    assert_string_equal(trace_get_meta(&t, "devices_unlisted"), "2, 3");
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "a.prof: GPU ordinals 2, 3 not in the device table: each taken to be the "
                        "run's device (unnamed)");
    assert_int_equal(imp_devices_unlisted(&t, 0xf, "a.prof", "the device table"), 0);
    assert_int_equal(imp_warnings_total(&t), 1);   /* every GPU listed: nothing said */
    trace_free(&t);

    /* spill files go to $TMPDIR, or /tmp when it is unset or empty */
    const char *was = getenv("TMPDIR");
    char *keep = was ? strdup(was) : NULL;
    assert_int_equal(setenv("TMPDIR", "", 1), 0);
    assert_string_equal(imp_tmp_dir(), "/tmp");
    assert_int_equal(setenv("TMPDIR", "/var/tmp", 1), 0);
    assert_string_equal(imp_tmp_dir(), "/var/tmp");
    if (keep) setenv("TMPDIR", keep, 1);
    else unsetenv("TMPDIR");
    free(keep);
}

static void test_format_table_edges(void **state) {
    (void)state;
    assert_string_equal(imp_format_name(IMP_UNKNOWN), "unknown");
    assert_null(imp_importer_get(IMP_UNKNOWN));
    assert_int_equal(imp_format_parse(NULL), IMP_UNKNOWN);
    assert_int_equal(imp_format_parse("nvprof-csv"), IMP_NVPROF_CSV);
    trace t;
    trace_init(&t);
    char err[256];
    imp_file none = {"x.csv", (const unsigned char *)"a", 1};
    assert_int_equal(imp_import(IMP_UNKNOWN, &none, 0, &t, err, sizeof err), -1);
    assert_string_equal(err, "import: no input file given");
    trace_free(&t);
    imp_file f = text_file("run.json", "no format's content");
    assert_int_equal(imp_detect(&f), IMP_EXAMINER_JSON);
    f = text_file(".json", "no format's content");
    assert_int_equal(imp_detect(&f), IMP_UNKNOWN);
    static const unsigned char sqlite[32] = "SQLite format 3";   /* and its NUL */
    f = (imp_file){"run.json", sqlite, sizeof sqlite};
    assert_int_equal(imp_detect(&f), IMP_UNKNOWN);
}

static void test_detect(void **state) {
    (void)state;
    imp_file f;
    f = text_file("x", "  \n{\"scenario_name\": 1}");
    assert_int_equal(imp_detect(&f), IMP_EXAMINER_JSON);
    f = text_file("x", "==1234== NVPROF is profiling process 1234, command: ./a\n");
    assert_int_equal(imp_detect(&f), IMP_NVPROF_CSV);
    f = text_file("x", "[app] starting\nsome output\n======== Profiling result:\n");
    assert_int_equal(imp_detect(&f), IMP_NVPROF_CSV);
    f = text_file("x", "\"Start\",\"Duration\",\"Name\"\n");
    assert_int_equal(imp_detect(&f), IMP_NVPROF_CSV);
    {
        /* 300 lines of application output, then the table */
        char *big = malloc(300 * 12 + 64);
        assert_non_null(big);
        big[0] = '\0';
        for (int i = 0; i < 300; i++) strcat(big, "iteration.\n");
        strcat(big, "\"Start\",\"Duration\",\"Name\"\n");
        f = text_file("x", big);
        assert_int_equal(imp_detect(&f), IMP_NVPROF_CSV);
        free(big);
    }
    f = text_file("x", "# comment\nkernel,block,sm,start_ns,end_ns\n");
    assert_int_equal(imp_detect(&f), IMP_GLOBALTIMER_CSV);
    f = text_file("x", "K1,0,3,100,200,S1,256\n");
    assert_int_equal(imp_detect(&f), IMP_GLOBALTIMER_CSV);
    f = text_file("x", "K1,0,3,1.5,200\n");
    assert_int_equal(imp_detect(&f), IMP_UNKNOWN);
    f = text_file("x", "hello world\n");
    assert_int_equal(imp_detect(&f), IMP_UNKNOWN);
    f = text_file("run.json", "not json at all");
    assert_int_equal(imp_detect(&f), IMP_EXAMINER_JSON);
    f = text_file("x", "");
    assert_int_equal(imp_detect(&f), IMP_UNKNOWN);

    size_t len;
    /* the generated SQLite fixtures; the real exports' detection is in
     * test_imp_sqlite.c */
    unsigned char *d = read_fixture("nvprof.nvvp", &len);
    f = (imp_file){"timeline.prof", d, len};
    assert_int_equal(imp_detect(&f), IMP_NVPROF_SQLITE);
    free(d);
    d = read_fixture("nsys.sqlite", &len);
    f = (imp_file){"report2.sqlite", d, len};
    assert_int_equal(imp_detect(&f), IMP_NSYS_SQLITE);
    free(d);

    expect_error(IMP_UNKNOWN, "x.txt", "hello world\n",
                 "x.txt: cannot tell the format from the content; name it (examiner-json, "
                 "globaltimer-csv, nvprof-csv, nvprof-sqlite, nsys-sqlite, schedlab-trace, pytorch)");
    /* an empty file (a profiler that died before writing, an empty pipe):
     * naming a format would not help; it said "cannot tell the format" */
    expect_error(IMP_UNKNOWN, "run.csv", "", "run.csv: the file is empty (0 bytes): nothing to import");
    /* the same whatever the format named (--format, ?format=) or guessed
     * from the name: it said "run.json: truncated at line 1 (the run did
     * not finish writing it)" for a .json (examiner-json by its suffix),
     * "no nvprof GPU-trace header ...", "byte 0: the input ends where a
     * value should come", ... -- guesses at a file that has nothing in it */
    expect_error(IMP_UNKNOWN, "run.json", "", "run.json: the file is empty (0 bytes): nothing to import");
    for (int fmt = 0; fmt < IMP_FORMAT_COUNT; fmt++)
        expect_error((imp_format)fmt, "run.csv", "",
                     "run.csv: the file is empty (0 bytes): nothing to import");
    /* one empty file among a job's rank files is named */
    {
        imp_file two[2] = { text_file("rank0.json", "{\"traceEvents\": []}"),
                            text_file("rank1.json", "") };
        trace t2;
        char e2[512];
        trace_init(&t2);
        assert_int_equal(imp_import(IMP_PYTORCH, two, 2, &t2, e2, sizeof e2), -1);
        assert_string_equal(e2, "rank1.json: the file is empty (0 bytes): nothing to import");
        trace_free(&t2);
    }

    /* schedlab's own trace JSON is detected apart from examiner results
     * (both are objects), and imp_import reads it like every format, as
     * written (importers/schedlab_trace.c): its origin stays, nothing is
     * re-based and no meta is added, so an exported run comes back whole */
    static const char ours[] = "{\"schema\":\"schedlab-trace/1\",\"name\":\"t\",\"origin\":5,"
                               "\"kernels\":[{\"id\":0,\"start\":100,\"end\":200}]}";
    f = (imp_file){"t.json", (const unsigned char *)ours, sizeof ours - 1};
    assert_int_equal(imp_detect(&f), IMP_SCHEDLAB_TRACE);
    assert_int_equal(imp_format_parse("schedlab-trace"), IMP_SCHEDLAB_TRACE);
    static const char theirs[] = "{\"scenario_name\":\"x\",\"times\":[]}";
    f = (imp_file){"r.json", (const unsigned char *)theirs, sizeof theirs - 1};
    assert_int_equal(imp_detect(&f), IMP_EXAMINER_JSON);
    trace tt;
    char terr[512];
    assert_int_equal(import_text(IMP_UNKNOWN, "t.json", ours, &tt, terr, sizeof terr), 0);
    assert_string_equal(tt.name, "t");
    assert_int_equal(tt.origin, 5);
    assert_int_equal(tt.kernels.n, 1);
    assert_int_equal(tt.kernels.v[0].end, 200);
    assert_null(trace_get_meta(&tt, "format"));
    assert_null(trace_get_meta(&tt, "origin_ns"));
    trace_free(&tt);
    expect_error(IMP_SCHEDLAB_TRACE, "t.json", "{\"schema\":\"schedlab-trace/1\",\"kernel\":[]}",
                 "t.json: unknown top-level key \"kernel\" (did you mean \"kernels\"?)");

    /* the importer table: each generated fixture is taken by its own
     * format's content test and by no other one, so the order of
     * IMP_FORMATS decides nothing for them (fuzz_detect checks any bytes) */
    static const struct { const char *fixture; imp_format fmt; } own[] = {
        {"examiner.json", IMP_EXAMINER_JSON}, {"globaltimer.csv", IMP_GLOBALTIMER_CSV},
        {"nvprof.csv", IMP_NVPROF_CSV}, {"nvprof.nvvp", IMP_NVPROF_SQLITE},
        {"nsys.sqlite", IMP_NSYS_SQLITE}, {"pytorch_2x.json", IMP_PYTORCH},
        {"pytorch_2x.json.gz", IMP_PYTORCH}, {"pytorch_job.tar.gz", IMP_PYTORCH}};
    for (size_t k = 0; k < sizeof own / sizeof own[0]; k++) {
        d = read_fixture(own[k].fixture, &len);
        f = (imp_file){"x", d, len};
        for (int i = 0; i < IMP_FORMAT_COUNT; i++)
            if (imp_importer_get((imp_format)i)->detect(&f) != (i == (int)own[k].fmt))
                fail_msg("%s: the detect of %s says %s", own[k].fixture,
                         imp_format_name((imp_format)i), i == (int)own[k].fmt ? "no" : "yes");
        free(d);
    }
    f = (imp_file){"t.json", (const unsigned char *)ours, sizeof ours - 1};
    for (int i = 0; i < IMP_FORMAT_COUNT; i++)
        assert_int_equal(imp_importer_get((imp_format)i)->detect(&f), i == IMP_SCHEDLAB_TRACE);
    /* only examiner-json names a suffix, ".json"; it and pytorch (rank
     * files) take several files, pytorch opening its archives itself */
    for (int i = 0; i < IMP_FORMAT_COUNT; i++) {
        const imp_importer *im = imp_importer_get((imp_format)i);
        assert_int_equal(im->suffix != NULL, i == IMP_EXAMINER_JSON);
        assert_int_equal(im->multi_file, i == IMP_EXAMINER_JSON || i == IMP_PYTORCH);
        assert_int_equal(im->own_archives, i == IMP_PYTORCH);
        assert_non_null(im->read);
        assert_int_equal(im->as_written, i == IMP_SCHEDLAB_TRACE);
    }
    assert_null(imp_importer_get(IMP_UNKNOWN));
    assert_null(imp_importer_get(IMP_FORMAT_COUNT));

    assert_string_equal(imp_format_name(IMP_NVPROF_CSV), "nvprof-csv");
    assert_string_equal(imp_format_name(IMP_UNKNOWN), "unknown");
    for (int i = 0; i < IMP_FORMAT_COUNT; i++)
        assert_int_equal(imp_format_parse(imp_format_name((imp_format)i)), i);
    assert_int_equal(imp_format_parse("nvprof"), IMP_UNKNOWN);
}

/* ---- numbers and the CSV reader ----------------------------------------- */

static void test_numbers(void **state) {
    (void)state;
    int64_t v;
    assert_int_equal(imp_dec_scaled("598.807267", 1000000, &v), 0);
    assert_int_equal(v, 598807267);
    assert_int_equal(imp_dec_scaled("1.072523", 1000000000, &v), 0);
    assert_int_equal(v, 1072523000);
    assert_int_equal(imp_dec_scaled("0.000019", 1048576, &v), 0);
    assert_int_equal(v, 20);
    assert_int_equal(imp_dec_scaled("-1.5", 1, &v), 0);
    assert_int_equal(v, -2);
    assert_int_equal(imp_dec_scaled(" 12 ", 1024, &v), 0);
    assert_int_equal(v, 12288);
    assert_int_equal(imp_dec_scaled(".5", 10, &v), 0);
    assert_int_equal(v, 5);
    assert_int_equal(imp_dec_scaled("9223372036.854775807", 1000000000, &v), 0);
    assert_int_equal(v, INT64_MAX);
    assert_int_equal(imp_dec_scaled("9223372036.854775808", 1000000000, &v), -1);
    assert_int_equal(imp_dec_scaled("1,5", 1, &v), -1);    /* a comma-decimal locale's output */
    assert_int_equal(imp_dec_scaled("1e5", 1, &v), -1);
    assert_int_equal(imp_dec_scaled("", 1, &v), -1);
    assert_int_equal(imp_dec_scaled(".", 1, &v), -1);
    assert_int_equal(imp_parse_int64("-9223372036854775808", &v), 0);
    assert_int_equal(v, INT64_MIN);
    assert_int_equal(imp_parse_int64("9223372036854775808", &v), -1);
    assert_int_equal(imp_parse_int64("12a", &v), -1);

    imp_csv r;
    const char *text = "a,\"b,\"\"c\"\"\",\r\n\"multi\nline\",x";
    imp_csv_init(&r, text, strlen(text));
    char err[128];
    assert_int_equal(imp_csv_next(&r, err, sizeof err), 1);
    assert_int_equal(r.nf, 3);
    assert_string_equal(r.f[0].s, "a");
    assert_string_equal(r.f[1].s, "b,\"c\"");
    assert_true(r.f[1].quoted);
    assert_string_equal(r.f[2].s, "");
    assert_int_equal(imp_csv_next(&r, err, sizeof err), 1);
    assert_int_equal(r.rec_line, 2);
    assert_int_equal(r.nf, 2);
    assert_string_equal(r.f[0].s, "multi\nline");
    assert_string_equal(r.f[1].s, "x");
    assert_int_equal(imp_csv_next(&r, err, sizeof err), 0);
    imp_csv_free(&r);
}

/* ---- demangler ------------------------------------------------------------ */

/* A trace of several GPUs (DESIGN §5): a block's and a cohort's `device`
 * is its kernel's, so any other value -- -1 included, which is no GPU --
 * is refused naming the block; a kernel's own bad index is named at the
 * kernel, not at the first of its blocks. */
#define GPUS2 "{\"schema\":\"schedlab-trace/1\",\"device\":{\"name\":\"g\",\"sms\":2}," \
              "\"devices\":[{\"name\":\"g\",\"sms\":2},{\"name\":\"g\",\"sms\":2}],"
static void test_trace_block_device(void **state) {
    (void)state;
    expect_error(IMP_SCHEDLAB_TRACE, "t.json",
                 GPUS2 "\"kernels\":[{\"id\":0,\"first_block\":0,\"end\":10,\"device\":1}],"
                 "\"blocks\":[{\"kernel\":0,\"index\":0,\"sm\":0,\"start\":0,\"end\":10,\"device\":-1}]}",
                 "t.json: blocks[0].device: -1 is not its kernel's device (1)");
    expect_error(IMP_SCHEDLAB_TRACE, "t.json",
                 GPUS2 "\"kernels\":[{\"id\":0,\"first_block\":0,\"end\":10,\"device\":1}],"
                 "\"cohorts\":[{\"kernel\":0,\"sm\":0,\"index\":0,\"stride\":1,\"count\":1,"
                 "\"per_wave\":1,\"start\":0,\"end\":10,\"period\":0,\"device\":-1}]}",
                 "t.json: cohorts[0].device: -1 is not its kernel's device (1)");
    /* another GPU of the trace is not its kernel's either */
    expect_error(IMP_SCHEDLAB_TRACE, "t.json",
                 GPUS2 "\"kernels\":[{\"id\":0,\"first_block\":0,\"end\":10,\"device\":1}],"
                 "\"blocks\":[{\"kernel\":0,\"index\":0,\"sm\":0,\"start\":0,\"end\":10,\"device\":0}]}",
                 "t.json: blocks[0].device: 0 is not its kernel's device (1)");
    /* the kernel's -1 is the range check's to name, as the store runs it */
    trace t;
    char err[512];
    assert_int_equal(import_text(IMP_SCHEDLAB_TRACE, "t.json",
                                 GPUS2 "\"kernels\":[{\"id\":0,\"first_block\":0,\"end\":10,\"device\":-1}],"
                                 "\"blocks\":[{\"kernel\":0,\"index\":0,\"sm\":0,\"start\":0,\"end\":10,\"device\":0}]}",
                                 &t, err, sizeof err), 0);
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), -1);
    assert_string_equal(err, "t.json: kernels[0].device: -1 is not a GPU of the trace (it has 2 in \"devices\")");
    trace_free(&t);
    /* absent or null on a block: its kernel's */
    assert_int_equal(import_text(IMP_SCHEDLAB_TRACE, "t.json",
                                 GPUS2 "\"kernels\":[{\"id\":0,\"first_block\":0,\"end\":10,\"device\":1}],"
                                 "\"blocks\":[{\"kernel\":0,\"index\":0,\"sm\":0,\"start\":0,\"end\":10},"
                                 "{\"kernel\":0,\"index\":1,\"sm\":1,\"start\":0,\"end\":10,\"device\":null}]}",
                                 &t, err, sizeof err), 0);
    assert_int_equal(t.blocks.n, 2);
    assert_int_equal(t.kernels.v[0].device, 1);
    trace_free(&t);
}

static void expect_demangled(const char *mangled, const char *want) {
    char buf[1024];
    const char *got = imp_demangle(mangled, buf, sizeof buf);
    if (!want) {
        if (got) fail_msg("%s: expected no demangling, got \"%s\"", mangled, got);
        return;
    }
    if (!got) fail_msg("%s: not demangled, expected \"%s\"", mangled, want);
    assert_string_equal(got, want);
}

/* Expected strings are GNU c++filt 2.40's output for the same input: the
 * importers demangle with libiberty, c++filt's own demangler and flags. */
static void test_demangle(void **state) {
    (void)state;
    expect_demangled("_Z9vectorAddPKfS0_Pfi", "vectorAdd(float const*, float const*, float*, int)");
    expect_demangled("_Z11clock_blockPll", "clock_block(long*, long)");
    expect_demangled("_Z5saxpyifPfS_", "saxpy(int, float, float*, float*)");
    expect_demangled("_Z1fv", "f()");
    expect_demangled("_Z3fooIfLi128EEvPT_", "void foo<float, 128>(float*)");
    expect_demangled("_Z1fIiLb1ELj5ELln3EEvT_", "void f<int, true, 5u, -3l>(int)");
    expect_demangled("_ZN7cutlass6KernelINS_4gemm6kernel4GemmIiEEEEvNT_6ParamsE",
                     "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<int> >"
                     "(cutlass::gemm::kernel::Gemm<int>::Params)");
    expect_demangled("_ZN12_GLOBAL__N_16kernelEPf", "(anonymous namespace)::kernel(float*)");
    expect_demangled("_ZL6staticPf", "static(float*)");
    expect_demangled("_Z6kernelIJifEEvDpT_", "void kernel<int, float>(int, float)");
    expect_demangled("_ZNSt6vectorIiSaIiEE9push_backERKi",
                     "std::vector<int, std::allocator<int> >::push_back(int const&)");
    expect_demangled("_Z1fIN1AIiEEEvT_", "void f<A<int> >(A<int>)");
    expect_demangled("_ZN1AIiE1fIfEEvT_", "void A<int>::f<float>(float)");
    expect_demangled("_Z1fPVKiRKdOc", "f(int const volatile*, double const&, char&&)");
    expect_demangled("_Z2k1PK6float4S1_", "k1(float4 const*, float4 const*)");
    expect_demangled("_Z1fDhDF16_", "f(half, _Float16)");
    expect_demangled("_ZN3cub11EmptyKernelIvEEvv", "void cub::EmptyKernel<void>()");
    expect_demangled("_ZN2ns1kIJEEEvv", "void ns::k<>()");
    /* what the hand-written subset demangler of old gave up on */
    expect_demangled("_ZN6clover19par_ranged2d_kernelIZ11build_fieldR16global_variablesEUliiE_EEvNS_7Range2dET_",
                     "void clover::par_ranged2d_kernel<build_field(global_variables&)::{lambda(int, int)#1}>"
                     "(clover::Range2d, build_field(global_variables&)::{lambda(int, int)#1})");
    expect_demangled("_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const");
    expect_demangled("_Z4testILi3EEvPA3_f", "void test<3>(float (*) [3])");   /* array type */
    expect_demangled("_ZN1AC2Ev", "A::A()");                                   /* constructor */
    expect_demangled("_Z3foov.cold", "foo() [clone .cold]");                  /* clone suffix */
    expect_demangled("_ZSt4sortIPiEvT_S1_", "void std::sort<int*>(int*, int*)");
    /* c++filt's verbose form of the standard abbreviations */
    expect_demangled("_Z1fSs", "f(std::basic_string<char, std::char_traits<char>, std::allocator<char> >)");
    expect_demangled("_Z3foo", "foo");                                         /* a variable */
    /* malformed, or not mangled: the caller shows the raw name (c++filt
     * prints these unchanged) */
    expect_demangled("_Z4foo", NULL);                        /* name runs past the end */
    expect_demangled("_Z1fS_", NULL);                        /* no candidate yet */
    expect_demangled("_Z1fT_", NULL);                        /* no template args */
    expect_demangled("_ZN6clover11par_kernelIZ15update_halo_topR16global_variablesEUliiE_EEvNS_7Range2dET_",
                     NULL);                                  /* length 11 for a 10-letter name */
    expect_demangled("clock_block", NULL);
    expect_demangled("f", NULL);                             /* extern "C": not the type float */
    expect_demangled("i", NULL);
    expect_demangled("", NULL);
    /* output that does not fit the buffer is refused, never truncated */
    char small[8];
    assert_null(imp_demangle("_Z9vectorAddPKfS0_Pfi", small, sizeof small));
    char exact[6];                                           /* "f(int)" needs 7 bytes */
    assert_null(imp_demangle("_Z1fi", exact, sizeof exact));
    char fits[7];
    assert_string_equal(imp_demangle("_Z1fi", fits, sizeof fits), "f(int)");
    /* a pointer chain deeper than the demangler's recursion limit is
     * refused, not a crash */
    char deep[8192] = "_Z1f";
    for (int i = 0; i < 5000; i++) strcat(deep, "P");
    strcat(deep, "i");
    char out[4096];
    assert_null(imp_demangle(deep, out, sizeof out));
    /* each step substitutes the previous type twice, B<B<A, A>, B<A, A> > ...:
     * 40 steps would be 2^40 characters; output past the buffer stops it */
    char bomb[2048] = "_Z1f1A1BIS_S_E";
    for (int i = 2; i < 42; i++) {
        char step[32];
        snprintf(step, sizeof step, "S0_IS%c_S%c_E", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(i - 1) % 36],
                 "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(i - 1) % 36]);
        if (i - 1 >= 36) snprintf(step, sizeof step, "S0_IS1%c_S1%c_E",
                                  "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(i - 1) - 36],
                                  "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(i - 1) - 36]);
        strcat(bomb, step);
    }
    assert_null(imp_demangle(bomb, out, sizeof out));
    /* the first three steps of it are fine */
    expect_demangled("_Z1f1A1BIS_S_ES0_IS1_S1_E", "f(A, B<A, A>, B<B<A, A>, B<A, A> >)");
    /* a name longer than the demangler is handed (8192 bytes) stays raw */
    char *longname = malloc(9000);
    assert_non_null(longname);
    memset(longname, 'a', 8999);
    memcpy(longname, "_Z8999", 6);
    longname[8999] = '\0';
    assert_null(imp_demangle(longname, out, sizeof out));
    free(longname);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvprof_concurrent_kernels),
        cmocka_unit_test(test_nvprof_batch_cublas),
        cmocka_unit_test(test_nvprof_22_columns),
        cmocka_unit_test(test_nvprof_uvm_d2h),
        cmocka_unit_test(test_nvprof_p2p_units),
        cmocka_unit_test(test_nvprof_errors),
        cmocka_unit_test(test_csv_bom),
        cmocka_unit_test(test_nsight_reports),
        cmocka_unit_test(test_mixed_formats),
        cmocka_unit_test(test_json_bom),
        cmocka_unit_test(test_examiner_given_our_trace),
        cmocka_unit_test(test_wrong_format_hint),
        cmocka_unit_test(test_nvprof_column_order),
        cmocka_unit_test(test_nvprof_devices),
        cmocka_unit_test(test_nvprof_one_gpu_no_devices),
        cmocka_unit_test(test_globaltimer_header),
        cmocka_unit_test(test_globaltimer_positional),
        cmocka_unit_test(test_globaltimer_errors),
        cmocka_unit_test(test_examiner_current),
        cmocka_unit_test(test_examiner_two_files),
        cmocka_unit_test(test_examiner_early),
        cmocka_unit_test(test_examiner_times_rounded),
        cmocka_unit_test(test_examiner_errors),
        cmocka_unit_test(test_examiner_tar),
        cmocka_unit_test(test_tar_header_checksum),
        cmocka_unit_test(test_examiner_zip),
        cmocka_unit_test(test_examiner_tar_compressed),
        cmocka_unit_test(test_compressed_single_file),
        cmocka_unit_test(test_compressed_named_format),
        cmocka_unit_test(test_archive_skipped_members),
        cmocka_unit_test(test_archive_limits),
        cmocka_unit_test(test_archive_warnings_capped),
        cmocka_unit_test(test_archive_members_mapped),
        cmocka_unit_test(test_archive_no_tmpdir),
        cmocka_unit_test(test_import_helpers),
        cmocka_unit_test(test_format_table_edges),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_detect_first_line),
        cmocka_unit_test(test_trace_block_device),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_demangle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
