/* test_imp_pytorch.c -- the PyTorch profiler importer (issue 29).
 *
 * Fixtures (tests/fixtures/make_pytorch_fixtures.sh): every expected number
 * is worked out by hand from the fixture's text, as the comments say.
 *
 * Real traces ($SCHEDLAB_TRACES/kineto_*, skipped when absent): every count
 * (kernels, copies, memsets per lane and stream), the sums of all starts,
 * ends, launch times, grid and block sizes and bytes, and the first
 * kernel's name are compared with tests/pytorch/kineto_counts.py, which
 * reads the raw JSON with Python's json module and decimal arithmetic and
 * shares no code with the importer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "../../importers/formats.h"
#include "../../importers/importers.h"
#include "../../importers/pjson.h"
#include "../../importers/trace_check.h"
#include "../../server/app/store.h"
#include "../../server/formats/trace_json.h"
#include "test_db_util.h"
#include "test_imp_util.h"

#define ROCM_MSG "a ROCm trace: hipLaunchKernel calls, no grid or block sizes — schedlab models NVIDIA GPUs"

static const char *S(const trace *t, trace_str id) {
    const char *s = trace_str_get(t, id);
    return s ? s : "(absent)";
}

static void fixture_file(const char *name, imp_file *f) {
    size_t len;
    unsigned char *d = read_fixture(name, &len);
    *f = (imp_file){name, d, len};
}

static int import_fixtures(const char *const *names, size_t n, trace *t, char *err, size_t errlen) {
    imp_file f[4];
    for (size_t i = 0; i < n; i++) fixture_file(names[i], &f[i]);
    trace_init(t);
    err[0] = '\0';
    int rc = imp_import(IMP_UNKNOWN, f, n, t, err, errlen);
    for (size_t i = 0; i < n; i++) free((void *)f[i].data);
    return rc;
}

static const trace_kernel *kernel_named(const trace *t, const char *name) {
    for (size_t i = 0; i < t->kernels.n; i++)
        if (strcmp(S(t, t->kernels.v[i].name), name) == 0) return &t->kernels.v[i];
    fail_msg("no kernel %s", name);
    return NULL;
}

/* ---- exact times ----------------------------------------------------------- */

static void test_us_to_ns(void **state) {
    (void)state;
    int64_t v;
    static const struct { const char *s; int64_t ns; } cases[] = {
        { "20.123", 20123 }, { "12.5005", 12501 } /* 12500.5 ns: half away from zero */,
        { "12.5004", 12500 }, { "4458676983543.183", INT64_C(4458676983543183) },
        { "1694128201422243", INT64_C(1694128201422243000) }, { "0", 0 }, { "0.0004", 0 },
        { "0.0005", 1 }, { "-1.5", -1500 }, { "1e3", 1000000 }, { "2.5E-3", 3 },
        { "1.000000000000000000001", 1000 }, { "10.5", 10500 },
        { "9223372036854775.807", INT64_MAX },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(imp_pytorch_us_to_ns(cases[i].s, &v), 0);
        if (v != cases[i].ns) fail_msg("%s: %lld, want %lld", cases[i].s, (long long)v, (long long)cases[i].ns);
    }
    assert_int_equal(imp_pytorch_us_to_ns("1e30", &v), -1);
    assert_int_equal(imp_pytorch_us_to_ns("9223372036854775.808", &v), -1);
}

/* ---- the pull reader ---------------------------------------------------------- */

/* one byte per chunk: every boundary case of the reader */
typedef struct drip { const char *s; size_t at, n; } drip;
static int drip_refill(void *user, const unsigned char **buf, size_t *len) {
    drip *d = user;
    *len = d->at < d->n ? 1 : 0;
    *buf = (const unsigned char *)d->s + d->at;
    d->at += *len;
    return 0;
}

static void test_pjson(void **state) {
    (void)state;
    const char *doc = "{\"a\\u00e9\\ud83d\\ude00\": [1, -2.5e3, true, false, null, {}, []], \"b\": \"x\\\"y\\n\"}";
    for (int mode = 0; mode < 2; mode++) {
        pj_reader r;
        drip d = { doc, 0, strlen(doc) };
        if (mode) pj_init(&r, NULL, 0, drip_refill, &d);
        else pj_init(&r, (const unsigned char *)doc, strlen(doc), NULL, NULL);
        assert_int_equal(pj_next(&r), PJ_OBJ);
        assert_int_equal(pj_next(&r), PJ_KEY);
        assert_string_equal(r.str, "a\xc3\xa9\xf0\x9f\x98\x80");
        assert_int_equal(pj_next(&r), PJ_ARR);
        assert_int_equal(pj_next(&r), PJ_NUMBER);
        assert_string_equal(r.str, "1");
        assert_int_equal(pj_next(&r), PJ_NUMBER);
        assert_string_equal(r.str, "-2.5e3");
        assert_int_equal(pj_next(&r), PJ_TRUE);
        assert_int_equal(pj_next(&r), PJ_FALSE);
        assert_int_equal(pj_next(&r), PJ_NULL);
        assert_int_equal(pj_next(&r), PJ_OBJ);
        assert_int_equal(pj_next(&r), PJ_OBJ_END);
        assert_int_equal(pj_next(&r), PJ_ARR);
        assert_int_equal(pj_next(&r), PJ_ARR_END);
        assert_int_equal(pj_next(&r), PJ_ARR_END);
        assert_int_equal(pj_next(&r), PJ_KEY);
        assert_string_equal(r.str, "b");
        assert_int_equal(pj_next(&r), PJ_STRING);
        assert_string_equal(r.str, "x\"y\n");
        assert_int_equal(pj_next(&r), PJ_OBJ_END);
        assert_int_equal(pj_next(&r), PJ_END);
        pj_free(&r);
    }
    /* RFC 8259 §6: an exponent's sign may be '+' as well as '-'; §7: the
     * two-character escapes each stand for their own character (\r is
     * U+000D, not a newline) */
    const char *doc2 = "[1e+5, 2E-3, 7e9, \"a\\rb\\t\\/\\b\\f\\n\"]";
    pj_reader r2;
    pj_init(&r2, (const unsigned char *)doc2, strlen(doc2), NULL, NULL);
    assert_int_equal(pj_next(&r2), PJ_ARR);
    static const char *const nums[] = { "1e+5", "2E-3", "7e9" };
    for (int i = 0; i < 3; i++) {
        assert_int_equal(pj_next(&r2), PJ_NUMBER);
        assert_string_equal(r2.str, nums[i]);
    }
    assert_int_equal(pj_next(&r2), PJ_STRING);
    assert_string_equal(r2.str, "a\rb\t/\b\f\n");
    assert_int_equal(pj_next(&r2), PJ_ARR_END);
    assert_int_equal(pj_next(&r2), PJ_END);
    pj_free(&r2);
    /* RFC 8259 violations, each refused with the place (a close bracket
     * must match the open one: "[1}" is not JSON) */
    static const char *const bad[] = { "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "01", "1.", "-", "[tru]",
                                       "\"a\tb\"", "\"\\x\"", "\"\\ud800\"", "{} {}", "[", "{\"a\":}",
                                       "NaN", "[1,]", "[1}", "{\"a\":1]", "[{]}" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pj_reader r;
        pj_init(&r, (const unsigned char *)bad[i], strlen(bad[i]), NULL, NULL);
        pj_tok t;
        while ((t = pj_next(&r)) != PJ_ERROR && t != PJ_END) {}
        if (t != PJ_ERROR) fail_msg("accepted %s", bad[i]);
        assert_non_null(strstr(r.err, "byte") ? r.err : strstr(r.err, "ends"));
        pj_free(&r);
    }
    /* a byte that is not printable is named by its value: a gzip header met
     * where JSON should start was "unexpected byte 0x?" */
    static const unsigned char gz[] = { 0x1f, 0x8b, 0x08, 0x00 };
    pj_reader r;
    pj_init(&r, gz, sizeof gz, NULL, NULL);
    assert_int_equal(pj_next(&r), PJ_ERROR);
    assert_string_equal(r.err, "byte 0: unexpected byte 0x1f where a value should come");
    pj_free(&r);
    static const char apos[] = "[1, x]";
    pj_init(&r, (const unsigned char *)apos, strlen(apos), NULL, NULL);
    assert_int_equal(pj_next(&r), PJ_ARR);
    assert_int_equal(pj_next(&r), PJ_NUMBER);
    assert_int_equal(pj_next(&r), PJ_ERROR);
    assert_string_equal(r.err, "byte 4: unexpected 'x' where a value should come");
    pj_free(&r);
}

/* ---- fixtures ------------------------------------------------------------------ */

/* pytorch_2x.json: base 1.7e18 ns; the earliest time is early_kernel's
 * start, 5 µs, so the origin is base + 5000 and every time below is
 * (µs x 1000) - 5000. */
static void check_2x(const trace *t) {
    assert_string_equal(t->source, "pytorch");
    assert_int_equal(t->origin, INT64_C(1700000000000005000));
    assert_int_equal(t->kernels.n, 6);
    assert_int_equal(t->copies.n, 2);
    /* by start: early 5, gemm 20.123, nccl 25, triton 40, graph 50, 51.5 */
    static const char *const order[] = { "early_kernel", "sm90_xmma_gemm_bf16bf16_bf16f32",
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
        "triton_poi_fused_add_0", "graph_k1", "graph_k2" };
    for (size_t i = 0; i < 6; i++) assert_string_equal(S(t, t->kernels.v[i].name), order[i]);
    const trace_kernel *k = kernel_named(t, "sm90_xmma_gemm_bf16bf16_bf16f32");
    assert_int_equal(k->first_block, 20123 - 5000);
    assert_int_equal(k->end, 20123 + 10500 - 5000);
    assert_int_equal(k->issue, 10000 - 5000);                /* cudaLaunchKernel, corr 1 */
    assert_int_equal(k->fully_dispatched, TRACE_NONE);
    assert_int_equal(k->grid[0], 132);
    assert_int_equal(k->blocks, 132);
    assert_int_equal(k->block[0], 128);
    assert_int_equal(k->threads, 128);
    assert_int_equal(k->regs, 168);
    assert_int_equal(k->smem, 200704);                      /* opt-in, above 48 KB */
    assert_string_equal(S(t, k->stream), "7");
    assert_string_equal(S(t, k->process), "rank0 gpu0");
    k = &t->kernels.v[2];
    assert_int_equal(k->issue, 12501 - 5000);                /* cudaLaunchKernelExC 12.5005 µs */
    assert_string_equal(S(t, k->stream), "40");
    k = kernel_named(t, "triton_poi_fused_add_0");
    assert_int_equal(k->issue, 13000 - 5000);                /* cuLaunchKernel (driver) */
    assert_int_equal(kernel_named(t, "graph_k1")->issue, 14000 - 5000);  /* one cudaGraphLaunch */
    assert_int_equal(kernel_named(t, "graph_k2")->issue, 14000 - 5000);
    assert_int_equal(kernel_named(t, "graph_k2")->first_block, 51500 - 5000);
    k = kernel_named(t, "graph_k1");
    assert_int_equal(k->blocks, 16);
    assert_int_equal(k->threads, 128);
    assert_int_equal(k->smem, 1024);
    assert_int_equal(kernel_named(t, "early_kernel")->issue, TRACE_NONE);
    const trace_copy *c = &t->copies.v[0];
    assert_string_equal(S(t, c->name), "Memcpy HtoD (Pinned -> Device)");
    assert_int_equal(c->direction, TRACE_COPY_H2D);
    assert_int_equal(c->bytes, 4096);
    assert_int_equal(c->issue, 15000 - 5000);
    assert_int_equal(c->start, 60000 - 5000);
    assert_int_equal(c->end, 64000 - 5000);
    c = &t->copies.v[1];
    assert_int_equal(c->direction, TRACE_COPY_MEMSET);
    assert_int_equal(c->bytes, 1024);
    assert_int_equal(c->issue, 16000 - 5000);
    /* deviceProperties: the H100 the kernels ran on */
    assert_true(t->has_device);
    assert_string_equal(t->device.name, "NVIDIA H100 80GB HBM3");
    assert_int_equal(t->device.sms, 132);
    assert_int_equal(t->device.max_smem_per_block, 232448);
    assert_int_equal(t->device.smem_per_sm, 233472);
    assert_int_equal(t->device.threads_per_sm, 2048);
    assert_int_equal(t->device.warps_per_sm, 64);
    assert_int_equal(t->device.blocks_per_sm, 32);          /* CC 9.0, CUDA guide table */
    assert_string_equal(trace_get_meta(t, "compute_capability"), "9.0");
    assert_string_equal(trace_get_meta(t, "world_size"), "2");
    assert_string_equal(trace_get_meta(t, "distributed_backend"), "nccl");
    assert_string_equal(trace_get_meta(t, "communication_kernels"), "1");
    assert_string_equal(trace_get_meta(t, "kernels_before_window"), "1");
    assert_non_null(trace_get_meta(t, "note"));
    /* kept with no issue time: a thing the user is told (docs/trace-format.md) */
    const char *w = trace_get_meta(t, IMP_WARNINGS_KEY);
    assert_non_null(w);
    assert_non_null(strstr(w, ": 1 kernel was launched before the profiling window opened "
                              "(no launch call in the trace; its correlation id is below the "
                              "first call's): kept, with no issue time"));
}

static void test_fixture_2x(void **state) {
    (void)state;
    trace t;
    char err[512];
    const char *names[] = { "pytorch_2x.json" };
    if (import_fixtures(names, 1, &t, err, sizeof err)) fail_msg("%s", err);
    check_2x(&t);
    assert_string_equal(trace_get_meta(&t, "rank"), "0");
    trace_free(&t);
    const char *gz[] = { "pytorch_2x.json.gz" };
    if (import_fixtures(gz, 1, &t, err, sizeof err)) fail_msg("%s", err);
    check_2x(&t);
    trace_free(&t);
}

static void test_detect(void **state) {
    (void)state;
    static const char *const names[] = { "pytorch_2x.json", "pytorch_2x.json.gz", "pytorch_job.tar.gz",
                                         "pytorch_2021.json", "pytorch_rocm.json", "pytorch_cpu.json",
                                         "pytorch_nogpu.json" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        imp_file f;
        fixture_file(names[i], &f);
        if (imp_detect(&f) != IMP_PYTORCH) fail_msg("%s not detected as pytorch", names[i]);
        free((void *)f.data);
    }
    /* the other JSON formats stay theirs */
    size_t len;
    unsigned char *d = read_fixture("examiner.json", &len);
    imp_file f = { "examiner.json", d, len };
    assert_int_equal(imp_detect(&f), IMP_EXAMINER_JSON);
    free(d);
    assert_int_equal(imp_format_parse("pytorch"), IMP_PYTORCH);
    assert_string_equal(imp_format_name(IMP_PYTORCH), "pytorch");
}

/* 2021: integer epoch µs, "Kernel"/"Memcpy"/"Runtime", tid "stream 7"; the
 * origin is the memcpy's cudaMemcpyAsync at 1623142623529088 µs. */
static void test_fixture_2021(void **state) {
    (void)state;
    trace t;
    char err[512];
    const char *names[] = { "pytorch_2021.json" };
    if (import_fixtures(names, 1, &t, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(t.origin, INT64_C(1623142623529088000));
    assert_int_equal(t.kernels.n, 2);
    assert_int_equal(t.copies.n, 1);
    const trace_kernel *k = &t.kernels.v[0];
    assert_string_equal(S(&t, k->name), "cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)");
    assert_int_equal(k->first_block, (1623142623531625 - 1623142623529088) * 1000);
    assert_int_equal(k->end - k->first_block, 2000);
    assert_int_equal(k->issue, (1623142623531500 - 1623142623529088) * 1000);
    assert_string_equal(S(&t, k->process), "gpu0");
    k = &t.kernels.v[1];
    assert_string_equal(S(&t, k->name), "vectorAdd(float const*, float const*, float*, int)");
    assert_string_equal(S(&t, k->raw_name), "_Z9vectorAddPKfS0_Pfi");
    assert_int_equal(k->end, k->first_block);                   /* dur 0 kept */
    assert_int_equal(t.copies.v[0].bytes, 19267584);
    assert_int_equal(t.copies.v[0].issue, 0);
    assert_int_equal(t.copies.v[0].start, 160000);
    assert_string_equal(t.device.name, "Tesla V100-DGXS-32GB");
    assert_int_equal(t.device.max_smem_per_block, 98304);
    assert_null(trace_get_meta(&t, "rank"));
    trace_free(&t);
}

/* Two ranks on one clock (same base): rank 1's kernel on device 1 at 22 µs,
 * its launch at 21 µs; the origin stays rank 0's 5 µs. */
static void check_job(const trace *t) {
    assert_int_equal(t->kernels.n, 7);
    assert_int_equal(t->origin, INT64_C(1700000000000005000));
    const trace_kernel *r1 = NULL;
    size_t r0 = 0;
    for (size_t i = 0; i < t->kernels.n; i++) {
        if (strcmp(S(t, t->kernels.v[i].process), "rank1 gpu1") == 0) r1 = &t->kernels.v[i];
        else if (strcmp(S(t, t->kernels.v[i].process), "rank0 gpu0") == 0) r0++;
    }
    assert_int_equal(r0, 6);
    assert_non_null(r1);
    assert_int_equal(r1->first_block, 22000 - 5000);
    assert_int_equal(r1->issue, 21000 - 5000);
    assert_string_equal(trace_get_meta(t, "ranks"), "0, 1");
    assert_string_equal(trace_get_meta(t, "world_size"), "2");
    assert_string_equal(trace_get_meta(t, "communication_kernels"), "2");
    assert_non_null(strstr(trace_get_meta(t, "devices"), "rank1 gpu1: NVIDIA H100"));
}

static void test_fixture_job(void **state) {
    (void)state;
    trace t;
    char err[512];
    const char *names[] = { "pytorch_2x.json", "pytorch_rank1.json" };
    if (import_fixtures(names, 2, &t, err, sizeof err)) fail_msg("%s", err);
    check_job(&t);
    trace_free(&t);
    const char *tgz[] = { "pytorch_job.tar.gz" };
    if (import_fixtures(tgz, 1, &t, err, sizeof err)) fail_msg("%s", err);
    check_job(&t);
    /* the warning names the member whose early_kernel has no launch call
     * (make_pytorch_fixtures.sh: rank 0's, before the window) */
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
                        "pytorch_job.tar.gz(pytorch_2x.json): 1 kernel was launched before the "
                        "profiling window opened (no launch call in the trace; its correlation "
                        "id is below the first call's): kept, with no issue time");
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_TOTAL_KEY), "1");
    trace_free(&t);
}

/* Refused with the reason, through the store too: exit 2 / HTTP 400 are
 * STORE_BAD_INPUT, and nothing is stored. */
static void refused(db *d, const char *name, const char *want) {
    imp_file f;
    fixture_file(name, &f);
    trace t;
    trace_init(&t);
    char err[512] = "", run[DB_SLUG_SIZE], exp[DB_SLUG_SIZE];
    assert_int_equal(imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err), -1);
    trace_free(&t);
    if (!strstr(err, want)) fail_msg("%s: \"%s\" lacks \"%s\"", name, err, want);
    assert_non_null(strstr(err, name));
    assert_int_equal(store_import(d, &f, 1, NULL, NULL, NULL, run, exp, err, sizeof err),
                     STORE_BAD_INPUT);
    if (!strstr(err, want)) fail_msg("%s (store): \"%s\" lacks \"%s\"", name, err, want);
    assert_string_equal(run, "");
    assert_int_equal(tdb_scalar(d, "SELECT count(*) FROM runs"), 0);
    free((void *)f.data);
}

static void test_refusals(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "pytorch"), 0);
    refused(t.d, "pytorch_rocm.json", ": " ROCM_MSG);
    refused(t.d, "pytorch_cpu.json", "a CPU-only trace");
    refused(t.d, "pytorch_nogpu.json", "no GPU events");
    tdb_close(&t);
}

/* A .json.gz cut short inside its JSON (gzip intact): the byte offset is
 * the decompressed text's, which the file on disk is not, and the message
 * says so; before, "t.json.gz: byte 2000: the input ends ..." of a file of
 * a few hundred bytes. The same text unzipped keeps the plain offset. The
 * offset where the input ends is the cut's length by construction. */
static void test_gz_offset_named(void **state) {
    (void)state;
    size_t len;
    unsigned char *doc = read_fixture("pytorch_2x.json", &len);
    size_t cut = len / 2;
    unsigned char gz[65536];
    size_t used = 0;
    struct archive *a = archive_write_new();
    assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
    assert_int_equal(archive_write_add_filter_gzip(a), ARCHIVE_OK);
    assert_int_equal(archive_write_open_memory(a, gz, sizeof gz, &used), ARCHIVE_OK);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, "t.json");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_size(e, (la_int64_t)cut);
    assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
    assert_int_equal(archive_write_data(a, doc, cut), (la_ssize_t)cut);
    archive_entry_free(e);
    assert_int_equal(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
    assert_true(used < cut);

    imp_file plain = { "t.json", doc, cut }, zipped = { "t.json.gz", gz, used };
    char err[512], want[128];
    trace t;
    trace_init(&t);
    assert_int_equal(imp_import(IMP_PYTORCH, &plain, 1, &t, err, sizeof err), -1);
    snprintf(want, sizeof want, "t.json: byte %zu: the input ends", cut);
    assert_true(strncmp(err, want, strlen(want)) == 0);
    trace_free(&t);
    trace_init(&t);
    assert_int_equal(imp_import(IMP_PYTORCH, &zipped, 1, &t, err, sizeof err), -1);
    snprintf(want, sizeof want, "t.json.gz: byte %zu of the decompressed JSON: the input ends", cut);
    if (strncmp(err, want, strlen(want)) != 0) fail_msg("got \"%s\", want \"%s...\"", err, want);
    trace_free(&t);
    free(doc);
}

/* Calls, shapes and directions, by docs/trace-format.md's PyTorch rules:
 * a kernel's issue is the start of the runtime or driver call with the
 * same args.correlation, the earliest when there are both (cudaLaunchKernel
 * at 10 us calls cuLaunchKernel at 11 us, listed first here); a kernel
 * with no args.correlation has no call (no issue time, counted in
 * meta.kernels_without_launch_call), whatever the event before it had;
 * blocks are grid x * y * z; "Memcpy DtoH" is a device-to-host copy; a
 * grid of two numbers is refused. */
static void test_calls_and_shapes(void **state) {
    (void)state;
    static const char doc[] =
        "{\"schemaVersion\":1,\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\",\"pid\":1,\"tid\":1,"
        "\"ts\":11,\"dur\":1,\"args\":{\"correlation\":7}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
        "\"ts\":10,\"dur\":3,\"args\":{\"correlation\":7}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,"
        "\"ts\":14,\"dur\":1,\"args\":{\"correlation\":8}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_rt\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":1,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":7,\"grid\":[2,3,4],\"block\":[32,1,1]}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_none\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":1,"
        "\"args\":{\"device\":0,\"stream\":7,\"grid\":[1,1,1],\"block\":[32,1,1]}},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy DtoH (Device -> Pinned)\",\"pid\":0,"
        "\"tid\":7,\"ts\":40,\"dur\":2,\"args\":{\"device\":0,\"stream\":7,\"correlation\":8,"
        "\"bytes\":4096}}]}";
    imp_file f = { "calls.json", (const unsigned char *)doc, sizeof doc - 1 };
    trace t;
    trace_init(&t);
    char err[512];
    if (imp_import(IMP_PYTORCH, &f, 1, &t, err, sizeof err) != 0) fail_msg("%s", err);
    const trace_kernel *k = kernel_named(&t, "k_rt");
    if (k->first_block - k->issue != 10000)
        fail_msg("k_rt issued %lld ns before its start; the runtime call (the earliest of "
                 "correlation 7) began 10000 ns before", (long long)(k->first_block - k->issue));
    assert_int_equal(k->blocks, 24);
    assert_int_equal(kernel_named(&t, "k_none")->issue, TRACE_NONE);
    assert_string_equal(trace_get_meta(&t, "kernels_without_launch_call"), "1");
    assert_int_equal(t.copies.n, 1);
    assert_int_equal(t.copies.v[0].direction, TRACE_COPY_D2H);
    assert_int_equal(t.copies.v[0].start - t.copies.v[0].issue, 26000);
    trace_free(&t);

    static const char two[] =
        "{\"schemaVersion\":1,\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":1,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1,\"grid\":[4,2],\"block\":[32,1,1]}}]}";
    imp_file g = { "two.json", (const unsigned char *)two, sizeof two - 1 };
    trace_init(&t);
    assert_int_equal(imp_import(IMP_PYTORCH, &g, 1, &t, err, sizeof err), -1);
    if (!strstr(err, "two.json") || !strstr(err, "grid") ||
        !strstr(err, "expected three dimensions"))
        fail_msg("a grid of two numbers: \"%s\"", err);
    trace_free(&t);
}

/* ---- the real traces against kineto_counts.py ------------------------------------ */

typedef struct lane_count { char lane[64]; char stream[24]; int kind; long n; } lane_count;

static void check_real(const char *const *files, size_t n) {
    char paths[2][1024];
    imp_file f[2];
    char cmd[4096];
    int w = snprintf(cmd, sizeof cmd, "python3 tests/pytorch/kineto_counts.py");
    for (size_t i = 0; i < n; i++) {
        if (!trace_path(files[i], paths[i], sizeof paths[i])) return;
        size_t len;
        unsigned char *d = read_trace(files[i], &len);
        f[i] = (imp_file){ files[i], d, len };
        w += snprintf(cmd + w, sizeof cmd - (size_t)w, " '%s'", paths[i]);
    }
    trace t;
    trace_init(&t);
    char err[512];
    if (imp_import(IMP_UNKNOWN, f, n, &t, err, sizeof err)) fail_msg("%s", err);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[65536];
    size_t lines = 0;
    long long want, have;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        lines++;
        if (!strncmp(line, "first ", 6)) {
            const trace_kernel *k = &t.kernels.v[0];
            assert_string_equal(S(&t, k->raw_name ? k->raw_name : k->name), line + 6);
            continue;
        }
        char kind[16], lane_a[32], lane_b[32], stream[24];
        long nrec;
        int kinds = -1;
        if (sscanf(line, "%15s %31s %31s %23s %ld", kind, lane_a, lane_b, stream, &nrec) == 5 &&
            strncmp(lane_a, "rank", 4) == 0) {
            strcat(lane_a, " ");
            strcat(lane_a, lane_b);
        } else if (sscanf(line, "%15s %31s %23s %ld", kind, lane_a, stream, &nrec) != 4) {
            kinds = -2;
        }
        if (kinds != -2) {
            kinds = !strcmp(kind, "kernels") ? 0 : !strcmp(kind, "copies") ? 1 : 2;
            long count = 0;
            if (kinds == 0) {
                for (size_t i = 0; i < t.kernels.n; i++)
                    count += !strcmp(S(&t, t.kernels.v[i].process), lane_a) &&
                             !strcmp(S(&t, t.kernels.v[i].stream), stream);
            } else {
                for (size_t i = 0; i < t.copies.n; i++)
                    count += !strcmp(S(&t, t.copies.v[i].process), lane_a) &&
                             !strcmp(S(&t, t.copies.v[i].stream), stream) &&
                             ((t.copies.v[i].direction == TRACE_COPY_MEMSET) == (kinds == 2));
            }
            if (count != nrec) fail_msg("%s %s stream %s: %ld, python counts %ld", kind, lane_a, stream, count, nrec);
            continue;
        }
        if (!strncmp(line, "names ", 6)) {
            long long distinct, bytes, nb = 0;
            assert_int_equal(sscanf(line + 6, "%lld %lld", &distinct, &bytes), 2);
            trace_str *seen = calloc(t.kernels.n + 1, sizeof *seen);
            size_t nseen = 0;
            for (size_t i = 0; i < t.kernels.n; i++) {
                trace_str id = t.kernels.v[i].raw_name ? t.kernels.v[i].raw_name : t.kernels.v[i].name;
                nb += (long long)strlen(S(&t, id));
                size_t j = 0;
                while (j < nseen && seen[j] != id) j++;
                if (j == nseen) seen[nseen++] = id;
            }
            free(seen);
            if ((long long)nseen != distinct || nb != bytes)
                fail_msg("names: %zu distinct, %lld bytes; python says %lld, %lld", nseen, nb, distinct, bytes);
            continue;
        }
        char *sp = strchr(line, ' ');
        assert_non_null(sp);
        *sp = '\0';
        const char *key = line, *val = sp + 1;
        want = strtoll(val, NULL, 10);
        have = 0;
        if (!strcmp(key, "origin")) have = t.origin;
        else if (!strcmp(key, "comm")) have = strtoll(trace_get_meta(&t, "communication_kernels") ?: "0", NULL, 10);
        else if (!strcmp(key, "nolaunch")) {
            for (size_t i = 0; i < t.kernels.n; i++) have += t.kernels.v[i].issue == TRACE_NONE;
            for (size_t i = 0; i < t.copies.n; i++) have += t.copies.v[i].issue == TRACE_NONE;
        } else {
            for (size_t i = 0; i < t.kernels.n; i++) {
                const trace_kernel *k = &t.kernels.v[i];
                if (!strcmp(key, "sum_start")) have += k->first_block;
                else if (!strcmp(key, "sum_end")) have += k->end;
                else if (!strcmp(key, "sum_issue")) have += k->issue == TRACE_NONE ? 0 : k->issue;
                else if (!strcmp(key, "sum_blocks")) have += k->blocks;
                else if (!strcmp(key, "sum_threads")) have += k->threads;
            }
            for (size_t i = 0; i < t.copies.n; i++) {
                const trace_copy *c = &t.copies.v[i];
                if (!strcmp(key, "sum_start")) have += c->start;
                else if (!strcmp(key, "sum_end")) have += c->end;
                else if (!strcmp(key, "sum_issue")) have += c->issue == TRACE_NONE ? 0 : c->issue;
                else if (!strcmp(key, "sum_bytes")) have += c->bytes;
            }
        }
        if (have != want) fail_msg("%s: %lld, python says %lld", key, have, want);
    }
    assert_int_equal(pclose(p), 0);
    assert_true(lines > 10);
    size_t total = 0;
    for (size_t i = 0; i < t.kernels.n; i++) total += t.kernels.v[i].grid[0] > 0;
    assert_int_equal(total, t.kernels.n);                  /* every kernel has its grid */
    trace_free(&t);
    for (size_t i = 0; i < n; i++) free((void *)f[i].data);
}

static void test_real_hta_a100(void **state) {
    (void)state;
    const char *f[] = { "kineto_hta_a100pg509_nccl2ranks_rank0_nccl_data.json.gz" };
    check_real(f, 1);
}
static void test_real_resnet_2021(void **state) {
    (void)state;
    const char *f[] = { "kineto_kineto_v100dgxs_resnet50_2021_oldcats.pt.trace.json.gz" };
    check_real(f, 1);
}
static void test_real_dlrm_rank0(void **state) {
    (void)state;
    const char *f[] = { "kineto_param_v100x8_dlrm_rank0of8.pt.trace.json" };
    check_real(f, 1);
}
static void test_real_dlrm_rank1(void **state) {
    (void)state;
    const char *f[] = { "kineto_param_v100x8_dlrm_rank1of8.pt.trace.json" };
    check_real(f, 1);
}

/* The DLRM job: two rank files, one run, two devices on one clock. */
static void test_real_dlrm_job(void **state) {
    (void)state;
    const char *f[] = { "kineto_param_v100x8_dlrm_rank0of8.pt.trace.json",
                        "kineto_param_v100x8_dlrm_rank1of8.pt.trace.json" };
    check_real(f, 2);
    char p[1024];
    if (!trace_path(f[0], p, sizeof p)) return;
    imp_file in[2];
    for (int i = 0; i < 2; i++) {
        size_t len;
        unsigned char *d = read_trace(f[i], &len);
        in[i] = (imp_file){ f[i], d, len };
    }
    trace t;
    trace_init(&t);
    char err[512];
    if (imp_import(IMP_UNKNOWN, in, 2, &t, err, sizeof err)) fail_msg("%s", err);
    int64_t lo[2] = { INT64_MAX, INT64_MAX }, hi[2] = { INT64_MIN, INT64_MIN };
    for (size_t i = 0; i < t.kernels.n; i++) {
        const char *lane = S(&t, t.kernels.v[i].process);
        int r = !strcmp(lane, "rank0 gpu0") ? 0 : !strcmp(lane, "rank1 gpu1") ? 1 : -1;
        assert_true(r >= 0);
        if (t.kernels.v[i].first_block < lo[r]) lo[r] = t.kernels.v[i].first_block;
        if (t.kernels.v[i].end > hi[r]) hi[r] = t.kernels.v[i].end;
    }
    int64_t overlap = (hi[0] < hi[1] ? hi[0] : hi[1]) - (lo[0] > lo[1] ? lo[0] : lo[1]);
    /* the kernels alone: rank 0's run 1694128201428473..441015 µs, rank 1's
     * ..422243..440992 µs (read off the files with Python's json), so they
     * share 12.519 ms of one clock (the 14.6 ms of SOURCES.md counts CPU
     * events too) */
    assert_int_equal(overlap, 12519000);
    assert_string_equal(trace_get_meta(&t, "ranks"), "0, 1");
    assert_string_equal(trace_get_meta(&t, "world_size"), "8");
    assert_string_equal(trace_get_meta(&t, "kernels_before_window"), "64");
    assert_non_null(strstr(trace_get_meta(&t, IMP_WARNINGS_KEY),
                           ": 64 kernels were launched before the profiling window opened"));
    assert_non_null(strstr(trace_get_meta(&t, "devices"), "rank0 gpu0: Tesla V100-SXM2-32GB (80 SMs, CC 7.0"));
    assert_non_null(strstr(trace_get_meta(&t, "devices"), "rank1 gpu1: Tesla V100-SXM2-32GB (80 SMs, CC 7.0"));
    trace_free(&t);
    for (int i = 0; i < 2; i++) free((void *)in[i].data);
}

static void test_real_amd_refused(void **state) {
    (void)state;
    char p[1024];
    const char *name = "kineto_hta_amd_mi250_rocm62.json.gz";
    if (!trace_path(name, p, sizeof p)) return;
    size_t len;
    unsigned char *d = read_trace(name, &len);
    imp_file f = { name, d, len };
    assert_int_equal(imp_detect(&f), IMP_PYTORCH);
    trace t;
    trace_init(&t);
    char err[512];
    assert_int_equal(imp_import(IMP_UNKNOWN, &f, 1, &t, err, sizeof err), -1);
    assert_string_equal(err, "kineto_hta_amd_mi250_rocm62.json.gz: " ROCM_MSG);
    trace_free(&t);
    free(d);
}

/* ---- streaming (issue 29, bounded memory) ---------------------------------------- */

/* The batches of a streamed import, gathered as the store would keep them. */
typedef struct gathered { trace rows; size_t batches; } gathered;

static int gather(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                  size_t errlen) {
    gathered *g = user;
    /* as the store checks each batch (store.c stream_batch): its records'
     * devices are the trace's already */
    if (imp_check_trace(t, "batch", err, errlen)) fail_msg("%s", err);
    assert_int_equal(kernels, g->rows.kernels.n);     /* numbered as the run's next ones */
    assert_int_equal(copies, g->rows.copies.n);
    for (size_t i = 0; i < t->kernels.n; i++) *trace_add_kernel(&g->rows) = t->kernels.v[i];
    for (size_t i = 0; i < t->copies.n; i++) *trace_add_copy(&g->rows) = t->copies.v[i];
    g->batches++;
    return 0;
}

/* Field by field (a struct copy need not copy padding). */
static bool same_kernel(const trace_kernel *a, const trace_kernel *b) {
    return a->name == b->name && a->raw_name == b->raw_name && a->stream == b->stream &&
           a->process == b->process && a->priority == b->priority && a->threads == b->threads &&
           a->issue == b->issue && a->first_block == b->first_block &&
           a->fully_dispatched == b->fully_dispatched && a->end == b->end &&
           a->blocks == b->blocks && a->smem == b->smem && a->regs == b->regs &&
           !memcmp(a->grid, b->grid, sizeof a->grid) && !memcmp(a->block, b->block, sizeof a->block) &&
           a->instructions == b->instructions && a->ipc == b->ipc && a->qos_goal == b->qos_goal &&
           a->ipc_isolated == b->ipc_isolated && a->ipc_shared == b->ipc_shared &&
           a->qos_met == b->qos_met && a->device == b->device;
}

static bool same_copy(const trace_copy *a, const trace_copy *b) {
    return a->name == b->name && a->stream == b->stream && a->process == b->process &&
           a->direction == b->direction && a->engine == b->engine && a->bytes == b->bytes &&
           a->issue == b->issue && a->start == b->start && a->end == b->end &&
           a->device == b->device;
}

static void shift(int64_t *x, int64_t d) {
    if (*x != TRACE_NONE) *x += d;
}

/* The files imported whole and streamed in batches of `rows` (runs of 4 x
 * rows spilled to the temporary file): the same records in the same order,
 * the same string ids, meta, device and origin -- what the store keeps of
 * both is then the same. Returns the batches. */
static size_t same_streamed(const imp_file *f, size_t n, size_t rows) {
    trace whole, st;
    trace_init(&whole);
    trace_init(&st);
    char err[512] = "";
    if (imp_import(IMP_UNKNOWN, f, n, &whole, err, sizeof err)) fail_msg("%s", err);
    gathered g = { .batches = 0 };
    trace_init(&g.rows);
    imp_stream s = { .batch = gather, .user = &g, .rows = rows };
    imp_options o = { .stream = &s };
    if (imp_import_opts(IMP_UNKNOWN, f, n, &o, &st, err, sizeof err)) fail_msg("%s", err);
    assert_true(s.streamed);
    assert_true(s.range_ok);
    assert_int_equal(st.kernels.n, 0);
    assert_int_equal(st.copies.n, 0);
    assert_int_equal(g.rows.kernels.n, whole.kernels.n);
    assert_int_equal(g.rows.copies.n, whole.copies.n);
    for (size_t i = 0; i < g.rows.kernels.n; i++) {
        trace_kernel *k = &g.rows.kernels.v[i];
        shift(&k->issue, s.shift), shift(&k->first_block, s.shift);
        shift(&k->fully_dispatched, s.shift), shift(&k->end, s.shift);
        if (!same_kernel(k, &whole.kernels.v[i]))
            fail_msg("%s: kernel %zu differs streamed (rows %zu)", f[0].name, i, rows);
    }
    for (size_t i = 0; i < g.rows.copies.n; i++) {
        trace_copy *c = &g.rows.copies.v[i];
        shift(&c->issue, s.shift), shift(&c->start, s.shift), shift(&c->end, s.shift);
        if (!same_copy(c, &whole.copies.v[i]))
            fail_msg("%s: copy %zu differs streamed (rows %zu)", f[0].name, i, rows);
    }
    assert_int_equal(st.strs.n, whole.strs.n);
    for (size_t i = 1; i < st.strs.n; i++) assert_string_equal(st.strs.v[i], whole.strs.v[i]);
    assert_int_equal(st.meta.n, whole.meta.n);
    for (size_t i = 0; i < st.meta.n; i++) {
        assert_string_equal(S(&st, st.meta.v[i].key), S(&whole, whole.meta.v[i].key));
        assert_string_equal(S(&st, st.meta.v[i].value), S(&whole, whole.meta.v[i].value));
    }
    assert_int_equal(st.origin, whole.origin);
    assert_int_equal(st.has_device, whole.has_device);
    assert_memory_equal(&st.device, &whole.device, sizeof st.device);
    assert_int_equal(st.devices.n, whole.devices.n);
    if (st.devices.n)
        assert_memory_equal(st.devices.v, whole.devices.v, st.devices.n * sizeof *st.devices.v);
    assert_string_equal(st.name, whole.name);
    assert_string_equal(st.source, whole.source);
    size_t b = g.batches;
    trace_free(&g.rows);
    trace_free(&st);
    trace_free(&whole);
    return b;
}

static void test_streamed_fixtures(void **state) {
    (void)state;
    static const char *const one[] = { "pytorch_2x.json", "pytorch_2x.json.gz", "pytorch_2021.json",
                                       "pytorch_job.tar.gz" };
    for (size_t i = 0; i < sizeof one / sizeof *one; i++) {
        imp_file f;
        fixture_file(one[i], &f);
        for (size_t rows = 1; rows <= 4; rows++) assert_true(same_streamed(&f, 1, rows) >= 1);
        same_streamed(&f, 1, 0);
        free((void *)f.data);
    }
    imp_file two[2];
    fixture_file("pytorch_2x.json", &two[0]);
    fixture_file("pytorch_rank1.json", &two[1]);
    for (size_t rows = 1; rows <= 3; rows++) same_streamed(two, 2, rows);
    free((void *)two[0].data);
    free((void *)two[1].data);
}

/* Every real trace, and the DLRM job, streamed in small batches: many
 * spilled runs merged (kernels of two ranks interleave on one clock). */
static void test_streamed_real(void **state) {
    (void)state;
    static const char *const names[] = {
        "kineto_hta_a100pg509_nccl2ranks_rank0_nccl_data.json.gz",
        "kineto_kineto_v100dgxs_resnet50_2021_oldcats.pt.trace.json.gz",
        "kineto_param_v100x8_dlrm_rank0of8.pt.trace.json",
        "kineto_param_v100x8_dlrm_rank1of8.pt.trace.json" };
    imp_file f[4];
    char p[1024];
    if (!trace_path(names[0], p, sizeof p)) return;
    for (size_t i = 0; i < 4; i++) {
        size_t len;
        unsigned char *d = read_trace(names[i], &len);
        f[i] = (imp_file){ names[i], d, len };
    }
    for (size_t i = 0; i < 4; i++) {
        size_t b = same_streamed(&f[i], 1, 100);
        if (b < 2) fail_msg("%s: %zu batches", names[i], b);
        same_streamed(&f[i], 1, 0);
    }
    assert_true(same_streamed(&f[2], 2, 300) > 1);
    for (size_t i = 0; i < 4; i++) free((void *)f[i].data);
}

/* Through the store (server/store.c streams pytorch, one file or a job's
 * several): the run read back is the whole-file import's, record by record
 * and string by string. */
static void same_stored(const imp_file *f, size_t n) {
    trace whole, back;
    trace_init(&whole);
    trace_init(&back);
    char err[512] = "", run[DB_SLUG_SIZE], exp[DB_SLUG_SIZE];
    if (imp_import(IMP_UNKNOWN, f, n, &whole, err, sizeof err)) fail_msg("%s", err);
    tdb d;
    assert_int_equal(tdb_open(&d, "pytorch-stream"), 0);
    if (store_import(d.d, f, n, NULL, NULL, NULL, run, exp, err, sizeof err)) fail_msg("%s", err);
    if (db_load_run(d.d, run, DB_LOAD_ALL, &back, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(back.kernels.n, whole.kernels.n);
    assert_int_equal(back.copies.n, whole.copies.n);
    assert_int_equal(back.origin, whole.origin);
    for (size_t i = 0; i < whole.kernels.n; i++) {
        const trace_kernel *a = &back.kernels.v[i], *b = &whole.kernels.v[i];
        assert_string_equal(S(&back, a->name), S(&whole, b->name));
        assert_string_equal(S(&back, a->stream), S(&whole, b->stream));
        assert_string_equal(S(&back, a->process), S(&whole, b->process));
        if (a->issue != b->issue || a->first_block != b->first_block || a->end != b->end ||
            a->blocks != b->blocks || a->smem != b->smem || a->regs != b->regs ||
            memcmp(a->grid, b->grid, sizeof a->grid) || memcmp(a->block, b->block, sizeof a->block))
            fail_msg("%s: stored kernel %zu differs from the whole import's", f[0].name, i);
    }
    for (size_t i = 0; i < whole.copies.n; i++) {
        const trace_copy *a = &back.copies.v[i], *b = &whole.copies.v[i];
        assert_string_equal(S(&back, a->name), S(&whole, b->name));
        assert_string_equal(S(&back, a->process), S(&whole, b->process));
        if (a->issue != b->issue || a->start != b->start || a->end != b->end ||
            a->bytes != b->bytes || a->direction != b->direction)
            fail_msg("%s: stored copy %zu differs from the whole import's", f[0].name, i);
    }
    for (size_t i = 0; i < whole.meta.n; i++) {
        const char *k = S(&whole, whole.meta.v[i].key);
        const char *v = trace_get_meta(&back, k);
        if (!v || strcmp(v, S(&whole, whole.meta.v[i].value)) != 0)
            fail_msg("%s: meta %s stored \"%s\"", f[0].name, k, v ? v : "(absent)");
    }
    trace_free(&back);
    trace_free(&whole);
    tdb_close(&d);
}

static void test_streamed_store(void **state) {
    (void)state;
    imp_file two[2];
    fixture_file("pytorch_2x.json", &two[0]);
    fixture_file("pytorch_rank1.json", &two[1]);
    same_stored(two, 1);
    same_stored(two, 2);
    free((void *)two[0].data);
    free((void *)two[1].data);
    imp_file tgz;
    fixture_file("pytorch_job.tar.gz", &tgz);
    same_stored(&tgz, 1);
    free((void *)tgz.data);
    const char *names[] = { "kineto_param_v100x8_dlrm_rank0of8.pt.trace.json",
                            "kineto_param_v100x8_dlrm_rank1of8.pt.trace.json" };
    char p[1024];
    if (!trace_path(names[0], p, sizeof p)) return;
    imp_file f[2];
    for (int i = 0; i < 2; i++) {
        size_t len;
        unsigned char *d = read_trace(names[i], &len);
        f[i] = (imp_file){ names[i], d, len };
    }
    same_stored(f, 2);
    for (int i = 0; i < 2; i++) free((void *)f[i].data);
}

/* One rank file named twice is one recording twice: refused, naming both,
 * where it imported as a run with every kernel twice (found auditing the
 * CLI: DLRM rank 0 given twice gave 490 kernels where the file has 245). */
static void test_same_file_twice(void **state) {
    (void)state;
    const char *names[] = { "pytorch_rank1.json", "pytorch_rank1.json" };
    trace t;
    char err[512];
    assert_int_equal(import_fixtures(names, 2, &t, err, sizeof err), -1);
    assert_string_equal(err, "pytorch_rank1.json: the same bytes as pytorch_rank1.json; a run "
                             "holds each recording once");
    assert_int_equal(t.kernels.n, 0);
    trace_free(&t);
    /* two different files of a job still make one run */
    const char *job[] = { "pytorch_2x.json", "pytorch_rank1.json" };
    if (import_fixtures(job, 2, &t, err, sizeof err)) fail_msg("%s", err);
    trace_free(&t);
}

/* No temporary file (TMPDIR unusable): the streamed import fails saying
 * so and asks for the whole import (imp_stream.whole_message), which the
 * store then does: the run is stored all the same. */
static void test_streamed_no_tmpdir(void **state) {
    (void)state;
    const char *old = getenv("TMPDIR");
    char *keep = old ? strdup(old) : NULL;
    setenv("TMPDIR", "/nonexistent-schedlab-tmp", 1);
    imp_file f;
    fixture_file("pytorch_2x.json", &f);
    trace t;
    trace_init(&t);
    gathered g = { .batches = 0 };
    trace_init(&g.rows);
    imp_stream s = { .batch = gather, .user = &g, .rows = 1 };
    imp_options o = { .stream = &s };
    char err[512] = "";
    assert_int_equal(imp_import_opts(IMP_UNKNOWN, &f, 1, &o, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "pytorch_2x.json: creating the import's temporary file: "));
    assert_true(s.whole_message);
    assert_int_equal(g.batches, 0);
    trace_free(&t);
    trace_free(&g.rows);
    tdb d;
    assert_int_equal(tdb_open(&d, "pytorch-notmp"), 0);
    char run[DB_SLUG_SIZE], exp[DB_SLUG_SIZE];
    if (store_import(d.d, &f, 1, NULL, NULL, NULL, run, exp, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(tdb_scalar(d.d, "SELECT count(*) FROM runs"), 1);
    tdb_close(&d);
    free((void *)f.data);
    if (keep) setenv("TMPDIR", keep, 1);
    else unsetenv("TMPDIR");
    free(keep);
}


/* ---- several GPUs (DESIGN §5: devices, and a device index per record) ------- */

/* Files imported as one run, whole (stream NULL) or streamed. */
static void import_real(const char *const *names, size_t n, imp_stream *st, trace *t) {
    imp_file in[2];
    for (size_t i = 0; i < n; i++) {
        size_t len;
        unsigned char *d = read_trace(names[i], &len);
        in[i] = (imp_file){ names[i], d, len };
    }
    trace_init(t);
    char err[512];
    imp_options o = { .stream = st };
    if (imp_import_opts(IMP_UNKNOWN, in, n, &o, t, err, sizeof err)) fail_msg("%s", err);
    for (size_t i = 0; i < n; i++) free((void *)in[i].data);
}

/* The DLRM job (SOURCES.md): rank 0's 245 kernels on device 0, rank 1's 310
 * on device 1, both Tesla V100-SXM2-32GB (80 SMs): two GPUs, in rank order. */
static void test_dlrm_job_devices(void **state) {
    (void)state;
    const char *f[] = { "kineto_param_v100x8_dlrm_rank0of8.pt.trace.json",
                        "kineto_param_v100x8_dlrm_rank1of8.pt.trace.json" };
    char p[1024];
    if (!trace_path(f[0], p, sizeof p)) return;
    for (int streamed = 0; streamed < 2; streamed++) {
        gathered g = { .batches = 0 };
        trace_init(&g.rows);
        imp_stream s = { .batch = gather, .user = &g, .rows = 100 };
        trace t;
        import_real(f, 2, streamed ? &s : NULL, &t);
        const trace *rows = streamed ? &g.rows : &t;
        if (streamed) assert_true(g.batches > 2);
        assert_int_equal(t.devices.n, 2);
        for (size_t i = 0; i < 2; i++) {
            assert_string_equal(t.devices.v[i].name, "Tesla V100-SXM2-32GB");
            assert_int_equal(t.devices.v[i].sms, 80);
        }
        assert_null(trace_get_meta(&t, "devices_unlisted"));
        size_t on[2] = { 0, 0 };
        for (size_t i = 0; i < rows->kernels.n; i++) {
            const trace_kernel *k = &rows->kernels.v[i];
            const char *lane = S(&t, k->process);
            int want = !strcmp(lane, "rank0 gpu0") ? 0 : !strcmp(lane, "rank1 gpu1") ? 1 : -1;
            assert_int_equal(k->device, want);
            on[k->device]++;
        }
        assert_int_equal(on[0], 245);
        assert_int_equal(on[1], 310);
        for (size_t i = 0; i < rows->copies.n; i++) {
            const char *lane = S(&t, rows->copies.v[i].process);
            assert_int_equal(rows->copies.v[i].device, !strcmp(lane, "rank1 gpu1") ? 1 : 0);
        }
        trace_free(&g.rows);
        trace_free(&t);
    }
    /* the job's rank files in the other order: the same GPUs, (rank, gpu) order */
    const char *r[] = { f[1], f[0] };
    trace t;
    import_real(r, 2, NULL, &t);
    assert_int_equal(t.devices.n, 2);
    for (size_t i = 0; i < t.kernels.n; i++)
        assert_int_equal(t.kernels.v[i].device,
                         !strcmp(S(&t, t.kernels.v[i].process), "rank1 gpu1") ? 1 : 0);
    trace_free(&t);
}

/* One GPU: no devices, every index 0 (the HTA trace lists 8 A100s in
 * deviceProperties, its work is on rank 0's one). */
static void test_one_gpu_no_devices(void **state) {
    (void)state;
    const char *f[] = { "kineto_hta_a100pg509_nccl2ranks_rank0_nccl_data.json.gz" };
    char p[1024];
    if (!trace_path(f[0], p, sizeof p)) return;
    trace t;
    import_real(f, 1, NULL, &t);
    assert_int_equal(t.devices.n, 0);
    assert_int_equal(t.kernels.n, 2700);       /* SOURCES.md */
    for (size_t i = 0; i < t.kernels.n; i++) assert_int_equal(t.kernels.v[i].device, 0);
    for (size_t i = 0; i < t.copies.n; i++) assert_int_equal(t.copies.v[i].device, 0);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_us_to_ns),
        cmocka_unit_test(test_pjson),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_fixture_2x),
        cmocka_unit_test(test_fixture_2021),
        cmocka_unit_test(test_fixture_job),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_gz_offset_named),
        cmocka_unit_test(test_calls_and_shapes),
        cmocka_unit_test(test_real_hta_a100),
        cmocka_unit_test(test_real_resnet_2021),
        cmocka_unit_test(test_real_dlrm_rank0),
        cmocka_unit_test(test_real_dlrm_rank1),
        cmocka_unit_test(test_real_dlrm_job),
        cmocka_unit_test(test_dlrm_job_devices),
        cmocka_unit_test(test_one_gpu_no_devices),
        cmocka_unit_test(test_real_amd_refused),
        cmocka_unit_test(test_streamed_fixtures),
        cmocka_unit_test(test_streamed_real),
        cmocka_unit_test(test_streamed_store),
        cmocka_unit_test(test_same_file_twice),
        cmocka_unit_test(test_streamed_no_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
