/* test_imp_progress.c -- the importers' progress callback (importers.h,
 * imp_options; issue 15): for each of the five formats, on the fixtures of
 * tests/fixtures/make_fixtures.sh, the callback starts at 0, never goes
 * down, reports something strictly between 0 and 1 and ends at exactly 1;
 * the import's result is the same with and without it; a big input gets
 * about a hundred calls, not one per row; a failed import never reports 1. */
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

#define MAX_CALLS 4096

typedef struct seen {
    double v[MAX_CALLS];
    size_t n;
} seen;

static void record(void *user, double f) {
    seen *s = user;
    assert_true(s->n < MAX_CALLS);
    s->v[s->n++] = f;
}

static int import_with(const imp_file *f, seen *s, trace *t, char *err, size_t errlen) {
    imp_options o = {.progress = record, .user = s};
    trace_init(t);
    return imp_import_opts(IMP_UNKNOWN, f, 1, &o, t, err, errlen);
}

/* 0 first, 1 last, never down, at least one value strictly inside. */
static void expect_progress(const char *name, const seen *s) {
    if (s->n < 3) fail_msg("%s: only %zu progress calls", name, s->n);
    assert_true(s->v[0] == 0.0);
    assert_true(s->v[s->n - 1] == 1.0);
    size_t inside = 0;
    for (size_t i = 1; i < s->n; i++) {
        if (s->v[i] < s->v[i - 1]) fail_msg("%s: progress went down at call %zu: %g after %g",
                                            name, i, s->v[i], s->v[i - 1]);
        if (s->v[i] > 0.0 && s->v[i] < 1.0) inside++;
    }
    if (!inside) fail_msg("%s: no progress strictly between 0 and 1", name);
}

/* The same trace with and without a progress callback. */
static void expect_same(const trace *a, const trace *b) {
    assert_int_equal(a->kernels.n, b->kernels.n);
    assert_int_equal(a->blocks.n, b->blocks.n);
    assert_int_equal(a->copies.n, b->copies.n);
    assert_int_equal(a->origin, b->origin);
    for (size_t i = 0; i < a->kernels.n; i++) {
        const trace_kernel *x = &a->kernels.v[i], *y = &b->kernels.v[i];
        assert_int_equal(x->issue, y->issue);
        assert_int_equal(x->first_block, y->first_block);
        assert_int_equal(x->end, y->end);
        assert_string_equal(trace_str_get(a, x->name), trace_str_get(b, y->name));
    }
    for (size_t i = 0; i < a->blocks.n; i++) {
        assert_int_equal(a->blocks.v[i].start, b->blocks.v[i].start);
        assert_int_equal(a->blocks.v[i].end, b->blocks.v[i].end);
        assert_int_equal(a->blocks.v[i].sm, b->blocks.v[i].sm);
    }
}

static void check_fixture(const char *name, imp_format fmt) {
    size_t len;
    unsigned char *d = read_fixture(name, &len);
    imp_file f = {name, d, len};
    assert_int_equal(imp_detect(&f), fmt);
    seen *s = calloc(1, sizeof *s);
    assert_non_null(s);
    trace with, without;
    char err[512] = "";
    if (import_with(&f, s, &with, err, sizeof err)) fail_msg("%s: %s", name, err);
    expect_progress(name, s);
    trace_init(&without);
    if (imp_import(IMP_UNKNOWN, &f, 1, &without, err, sizeof err)) fail_msg("%s: %s", name, err);
    expect_same(&with, &without);
    trace_free(&with);
    trace_free(&without);
    free(s);
    free(d);
}

static void test_progress_nvprof_csv(void **st) { (void)st; check_fixture("nvprof.csv", IMP_NVPROF_CSV); }
static void test_progress_nvprof_sqlite(void **st) { (void)st; check_fixture("nvprof.nvvp", IMP_NVPROF_SQLITE); }
static void test_progress_nsys_sqlite(void **st) { (void)st; check_fixture("nsys.sqlite", IMP_NSYS_SQLITE); }
static void test_progress_examiner_json(void **st) { (void)st; check_fixture("examiner.json", IMP_EXAMINER_JSON); }
static void test_progress_globaltimer_csv(void **st) { (void)st; check_fixture("globaltimer.csv", IMP_GLOBALTIMER_CSV); }

/* 200,000 rows: progress follows the bytes in 1 % steps, so 0, 1.0 and
 * between 50 and 99 values in between -- not one call per row. */
static void test_progress_throttled(void **st) {
    (void)st;
    enum { ROWS = 200000 };
    size_t cap = 64 + (size_t)ROWS * 48, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    len += (size_t)snprintf(buf + len, cap - len, "kernel,block,sm,start_ns,end_ns,stream,threads\n");
    for (int i = 0; i < ROWS; i++)
        len += (size_t)snprintf(buf + len, cap - len, "K1,%d,%d,%d,%d,s1,256\n", i, i % 80,
                                1000 + i, 2000 + i);
    imp_file f = {"big.csv", (const unsigned char *)buf, len};
    seen *s = calloc(1, sizeof *s);
    assert_non_null(s);
    trace t;
    char err[512] = "";
    if (import_with(&f, s, &t, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(t.blocks.n, ROWS);
    expect_progress("big.csv", s);
    size_t inside = s->n - 2;
    if (inside < 50 || inside > 99) fail_msg("big.csv: %zu values between 0 and 1", inside);
    /* about where the bytes say: the 1 % steps are at least 0.01 apart */
    for (size_t i = 2; i < s->n - 1; i++) assert_true(s->v[i] - s->v[i - 1] >= 0.01 - 1e-12);
    trace_free(&t);
    free(s);
    free(buf);
}

/* A failed import reports no 1.0: the job must not look finished. */
static void test_progress_failed_import(void **st) {
    (void)st;
    static const char bad[] = "kernel,block,sm,start_ns,end_ns\nK1,0,0,1000,2000\nK1,1,x,1,2\n";
    imp_file f = {"bad.csv", (const unsigned char *)bad, sizeof bad - 1};
    seen *s = calloc(1, sizeof *s);
    assert_non_null(s);
    trace t;
    char err[512] = "";
    assert_int_equal(import_with(&f, s, &t, err, sizeof err), -1);
    assert_true(s->n >= 1);
    assert_true(s->v[0] == 0.0);
    for (size_t i = 0; i < s->n; i++) assert_true(s->v[i] < 1.0);
    trace_free(&t);
    free(s);
}

/* No options, no callback: imp_import_opts with NULL is imp_import. */
static void test_progress_null_options(void **st) {
    (void)st;
    size_t len;
    unsigned char *d = read_fixture("nvprof.csv", &len);
    imp_file f = {"nvprof.csv", d, len};
    trace t;
    trace_init(&t);
    char err[512] = "";
    assert_int_equal(imp_import_opts(IMP_UNKNOWN, &f, 1, NULL, &t, err, sizeof err), 0);
    assert_true(t.kernels.n > 0);
    trace_free(&t);
    free(d);
}

/* The sink itself (importers/progress.c), called by hand: it starts at 0;
 * a report goes out when the fraction grew by 1 % or more, never above
 * 0.999 before the end (nor for a total of 0: no fraction); cancelled is
 * asked every 1,024 calls and at every report; once it said yes the
 * import stops for good, with no further report; the end says 1 only
 * when the import succeeded. */
typedef struct asker {
    seen s;
    int asked, yes_after;
} asker;

static void asker_record(void *user, double f) { record(&((asker *)user)->s, f); }

static bool asker_cancelled(void *user) {
    asker *a = user;
    return ++a->asked > a->yes_after && a->yes_after >= 0;
}

static void test_progress_sink(void **st) {
    (void)st;
    asker *a = calloc(1, sizeof *a);
    assert_non_null(a);
    a->yes_after = -1;
    imp_options o = {.progress = asker_record, .user = a, .cancelled = asker_cancelled};
    imp_ctx cx = {0};
    imp_progress_begin(&cx, &o);
    assert_int_equal(a->s.n, 1);
    assert_true(a->s.v[0] == 0.0);
    assert_true(imp_progress_at(&cx, 5, 1000));      /* 0.5 %: no report */
    assert_int_equal(a->s.n, 1);
    assert_true(imp_progress_at(&cx, 5, 0));         /* no total: no fraction */
    assert_int_equal(a->s.n, 1);
    assert_true(imp_progress_at(&cx, 10, 1000));     /* 1 %: reported, cancelled asked */
    assert_int_equal(a->s.n, 2);
    assert_true(a->s.v[1] == 0.01);
    assert_int_equal(a->asked, 1);
    assert_true(imp_progress_at(&cx, 1000, 1000));   /* done, but not before the end */
    assert_true(a->s.v[2] == 0.999);
    imp_progress_end(&cx, true);
    assert_true(a->s.v[3] == 1.0);
    assert_int_equal(a->s.n, 4);

    /* no sink: cancelled is asked on the 1,024th call, not before */
    memset(a, 0, sizeof *a);
    a->yes_after = 0;
    imp_options q = {.user = a, .cancelled = asker_cancelled};
    imp_progress_begin(&cx, &q);
    for (int i = 1; i < 1024; i++) assert_true(imp_progress_at(&cx, i, 2048));
    assert_int_equal(a->asked, 0);
    assert_false(imp_progress_at(&cx, 1024, 2048));
    assert_int_equal(a->asked, 1);
    /* stopped for good: not asked again */
    for (int i = 0; i < 2048; i++) assert_false(imp_progress_at(&cx, 1024, 2048));
    assert_int_equal(a->asked, 1);
    assert_true(imp_cancel_now(&cx));
    imp_progress_end(&cx, false);

    /* a stopped import reports nothing more, and a failed one no 1 */
    memset(a, 0, sizeof *a);
    a->yes_after = 0;
    imp_progress_begin(&cx, &o);
    assert_false(imp_progress_at(&cx, 500, 1000));   /* reported 0.5, then told to stop */
    assert_int_equal(a->s.n, 2);
    assert_false(imp_progress_at(&cx, 900, 1000));
    assert_int_equal(a->s.n, 2);
    imp_progress_end(&cx, false);
    assert_int_equal(a->s.n, 2);

    /* imp_cancel_now asks at once */
    memset(a, 0, sizeof *a);
    a->yes_after = 0;
    imp_progress_begin(&cx, &q);
    assert_true(imp_cancel_now(&cx));
    assert_int_equal(a->asked, 1);
    imp_progress_end(&cx, false);
    free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress_nvprof_csv),
        cmocka_unit_test(test_progress_nvprof_sqlite),
        cmocka_unit_test(test_progress_nsys_sqlite),
        cmocka_unit_test(test_progress_examiner_json),
        cmocka_unit_test(test_progress_globaltimer_csv),
        cmocka_unit_test(test_progress_throttled),
        cmocka_unit_test(test_progress_failed_import),
        cmocka_unit_test(test_progress_null_options),
        cmocka_unit_test(test_progress_sink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
