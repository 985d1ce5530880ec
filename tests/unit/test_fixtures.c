/* test_fixtures.c -- every importer on the synthetic traces that
 * tests/fixtures/make_fixtures.sh writes (one per format), through the
 * whole path a user takes: format detection from the content, import,
 * re-basing to the first event, demangling. These run on a fresh clone; the
 * real traces (test_imp_text.c, test_imp_sqlite.c) are optional.
 *
 * Every expected value follows from the fixture by hand, as the comment in
 * make_fixtures.sh and beside each block says: a time is the row's value
 * scaled to ns minus the first event's. Demangled names are GNU c++filt
 * 2.40's output for the raw name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../importers/formats.h"
#include "../../importers/importers.h"
#include "test_imp_util.h"

#define LAMBDA "_ZN6clover19par_ranged2d_kernelIZ11build_fieldR16global_variablesEUliiE_EEvNS_7Range2dET_"
#define LAMBDA_SHOWN                                                                   \
    "void clover::par_ranged2d_kernel<build_field(global_variables&)::{lambda(int, int)#1}>" \
    "(clover::Range2d, build_field(global_variables&)::{lambda(int, int)#1})"

/* Import fixture `name` with detection; its detected format must be `fmt`. */
static void import_fixture(const char *name, imp_format fmt, trace *t) {
    size_t len;
    unsigned char *d = read_fixture(name, &len);
    imp_file f = {name, d, len};
    assert_int_equal(imp_detect(&f), fmt);
    trace_init(t);
    char err[512] = "";
    int r = imp_import(IMP_UNKNOWN, &f, 1, t, err, sizeof err);
    free(d);
    if (r != 0) fail_msg("%s: %s", name, err);
    assert_string_equal(t->source, imp_format_name(fmt));
}

static const char *s(const trace *t, trace_str id) {
    const char *v = trace_str_get(t, id);
    return v ? v : "(null)";
}

static void expect_kernel(const trace *t, size_t i, const char *name, const char *raw,
                          const char *stream, int64_t issue, int64_t start, int64_t end,
                          int64_t blocks, int32_t threads) {
    assert_true(i < t->kernels.n);
    const trace_kernel *k = &t->kernels.v[i];
    assert_string_equal(s(t, k->name), name);
    if (raw) assert_string_equal(s(t, k->raw_name), raw);
    else assert_int_equal(k->raw_name, 0);
    assert_string_equal(s(t, k->stream), stream);
    assert_int_equal(k->issue, issue);
    assert_int_equal(k->first_block, start);
    assert_int_equal(k->end, end);
    assert_int_equal(k->blocks, blocks);
    assert_int_equal(k->threads, threads);
}

static void expect_copy(const trace *t, size_t i, const char *name, int32_t dir, int64_t bytes,
                        int64_t start, int64_t end) {
    assert_true(i < t->copies.n);
    const trace_copy *c = &t->copies.v[i];
    assert_string_equal(s(t, c->name), name);
    assert_int_equal(c->direction, dir);
    assert_int_equal(c->bytes, bytes);
    assert_int_equal(c->start, start);
    assert_int_equal(c->end, end);
}

static void expect_block(const trace *t, size_t i, int32_t kernel, int32_t index, int32_t sm,
                         int64_t start, int64_t end) {
    assert_true(i < t->blocks.n);
    const trace_block *b = &t->blocks.v[i];
    assert_int_equal(b->kernel, kernel);
    assert_int_equal(b->index, index);
    assert_int_equal(b->sm, sm);
    assert_int_equal(b->start, start);
    assert_int_equal(b->end, end);
}

/* nvprof.csv: ms and KB units; origin 10 ms; no Correlation_ID column, so
 * the " [corrId]" suffix is cut from the display name (the raw name keeps
 * it); nvprof CSV has no issue times and no blocks. */
static void test_fixture_nvprof_csv(void **state) {
    (void)state;
    trace t;
    import_fixture("nvprof.csv", IMP_NVPROF_CSV, &t);
    assert_int_equal(t.origin, 10000000);
    assert_string_equal(trace_get_meta(&t, "origin_ns"), "10000000");
    assert_string_equal(trace_get_meta(&t, "device"), "GeForce GTX 1080 Ti");
    assert_false(t.has_device);
    assert_int_equal(t.kernels.n, 2);
    assert_int_equal(t.copies.n, 2);
    assert_int_equal(t.blocks.n, 0);
    expect_kernel(&t, 0, "vectorAdd(float const *, float const *, float*, int)",
                  "vectorAdd(float const *, float const *, float*, int) [102]", "7", TRACE_NONE,
                  1000000, 3000000, 4, 256);
    expect_kernel(&t, 1, LAMBDA_SHOWN, LAMBDA " [103]", "13", TRACE_NONE, 1500000, 2500000, 2,
                  128);
    assert_int_equal(t.kernels.v[0].regs, 16);
    assert_int_equal(t.kernels.v[0].smem, 1024);            /* static 0 + dynamic 1024 B */
    assert_int_equal(t.kernels.v[1].smem, 2048);
    expect_copy(&t, 0, "[CUDA memcpy HtoD]", TRACE_COPY_H2D, 256 * 1024, 0, 500000);
    expect_copy(&t, 1, "[CUDA memcpy DtoH]", TRACE_COPY_D2H, 256 * 1024, 4000000, 4250000);
    trace_free(&t);
}

/* nvprof.nvvp: ns since the epoch; issue = when the launch's runtime API
 * call (correlationId) handed the kernel over: its end, T0 + 5000 and T0 +
 * 6000, as both kernels start after their calls return (issue 28); origin
 * T0 + 5000 = the first of them; grid and block
 * multiplied out, smem static + dynamic, priority from the stream table. */
static void test_fixture_nvprof_sqlite(void **state) {
    (void)state;
    trace t;
    import_fixture("nvprof.nvvp", IMP_NVPROF_SQLITE, &t);
    assert_int_equal(t.origin, 1700000000000005000LL);
    assert_string_equal(trace_get_meta(&t, "nvprof_export_version"), "18");
    assert_true(t.has_device);
    assert_string_equal(t.device.name, "GeForce RTX 2080 Ti");
    assert_int_equal(t.device.sms, 68);
    assert_int_equal(t.device.warp_size, 32);
    assert_int_equal(t.device.warps_per_sm, 32);
    assert_int_equal(t.device.clock_hz, 1545000000);
    assert_int_equal(t.kernels.n, 2);
    assert_int_equal(t.copies.n, 1);
    expect_kernel(&t, 0, "vecAdd(double*, double*, double*, int)", "_Z6vecAddPdS_S_i", "7", 0,
                  5000, 25000, 8, 256);
    expect_kernel(&t, 1, LAMBDA_SHOWN, LAMBDA, "13", 1000, 15000, 45000, 4, 128);
    assert_int_equal(t.kernels.v[0].priority, 0);
    assert_int_equal(t.kernels.v[1].priority, -1);
    assert_int_equal(t.kernels.v[1].smem, 1536);
    assert_int_equal(t.kernels.v[1].regs, 32);
    assert_int_equal(t.kernels.v[1].grid[1], 2);
    assert_int_equal(t.kernels.v[1].block[1], 2);
    expect_copy(&t, 0, "[CUDA memcpy DtoH]", TRACE_COPY_D2H, 65536, 55000, 65000);
    trace_free(&t);
}

/* nsys.sqlite: origin 1500 (the end of the first runtime call, which
 * returned before its kernel started: issue 28); names are nsys's own
 * demangled form (StringIds), the mangled name is kept as the raw one. */
static void test_fixture_nsys_sqlite(void **state) {
    (void)state;
    trace t;
    import_fixture("nsys.sqlite", IMP_NSYS_SQLITE, &t);
    assert_int_equal(t.origin, 1500);
    assert_string_equal(trace_get_meta(&t, "nsys_version"), "2024.5.1.113");
    assert_true(t.has_device);
    assert_string_equal(t.device.name, "NVIDIA A100-SXM4-40GB");
    assert_int_equal(t.device.sms, 108);
    assert_int_equal(t.kernels.n, 2);
    assert_int_equal(t.copies.n, 1);
    expect_kernel(&t, 0, "vecAdd(double *, double *, double *, int)", "_Z6vecAddPdS_S_i", "13", 0,
                  1500, 7500, 196, 256);
    expect_kernel(&t, 1,
                  "void clover::par_ranged2d_kernel<build_field(global_variables &)::"
                  "[lambda(int, int) (instance 1)]>(clover::Range2d, T1)",
                  LAMBDA, "14", 200, 2500, 4500, 200, 256);
    assert_int_equal(t.kernels.v[1].smem, 4096);
    assert_int_equal(t.kernels.v[1].regs, 40);
    expect_copy(&t, 0, "[CUDA memcpy DtoH]", TRACE_COPY_D2H, 800000, 8500, 10500);
    trace_free(&t);
}

/* examiner.json: seconds; origin the launch at 2.0 s; blocks with SMs. */
static void test_fixture_examiner_json(void **state) {
    (void)state;
    trace t;
    import_fixture("examiner.json", IMP_EXAMINER_JSON, &t);
    assert_int_equal(t.origin, 2000000000);
    assert_string_equal(t.name, "fixture");
    assert_int_equal(t.kernels.n, 1);
    assert_int_equal(t.copies.n, 0);
    assert_int_equal(t.blocks.n, 2);
    expect_kernel(&t, 0, "spin", NULL, "Stream A", 0, 10000, 500012000, 2, 512);
    assert_int_equal(t.kernels.v[0].fully_dispatched, 12000);
    assert_string_equal(s(&t, t.kernels.v[0].process), "pid 4242");
    expect_block(&t, 0, 0, 0, 0, 10000, 500010000);
    expect_block(&t, 1, 0, 1, 1, 12000, 500012000);
    trace_free(&t);
}

/* globaltimer.csv: ns; origin the first block start (1000); the mangled
 * lambda kernel is shown as c++filt prints it. */
static void test_fixture_globaltimer_csv(void **state) {
    (void)state;
    trace t;
    import_fixture("globaltimer.csv", IMP_GLOBALTIMER_CSV, &t);
    assert_int_equal(t.origin, 1000);
    assert_int_equal(t.kernels.n, 2);
    assert_int_equal(t.blocks.n, 3);
    expect_kernel(&t, 0, "K1", NULL, "s1", TRACE_NONE, 0, 1020, 2, 256);
    assert_int_equal(t.kernels.v[0].fully_dispatched, 20);
    expect_kernel(&t, 1, LAMBDA_SHOWN, LAMBDA, "s2", TRACE_NONE, 1010, 1510, 1, 64);
    expect_block(&t, 0, 0, 0, 0, 0, 1000);
    expect_block(&t, 1, 0, 1, 1, 20, 1020);
    expect_block(&t, 2, 1, 0, 0, 1010, 1510);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_nvprof_csv),
        cmocka_unit_test(test_fixture_nvprof_sqlite),
        cmocka_unit_test(test_fixture_nsys_sqlite),
        cmocka_unit_test(test_fixture_examiner_json),
        cmocka_unit_test(test_fixture_globaltimer_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
