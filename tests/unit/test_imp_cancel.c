/* test_imp_cancel.c -- an import under way stops once imp_options.cancelled
 * says so (a server job cancelled by DELETE /api/jobs/{id}, or the server
 * stopping): every format fails with IMP_CANCELLED in its message, within
 * 1,024 rows or records. Before, only the store's batches looked: a parse
 * went on to its end (35 s for a 630 MB schedlab-trace upload) before a
 * cancel or SIGTERM was seen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_imp_util.h"

#include "../../importers/importers.h"

typedef struct cancel_state {
    int asked;          /* calls of cancel_fn */
    int after;          /* cancel once asked this many times */
    double last;        /* the last progress reported */
} cancel_state;

static bool cancel_fn(void *user) {
    cancel_state *c = user;
    return ++c->asked > c->after;
}

static void progress_fn(void *user, double f) { ((cancel_state *)user)->last = f; }

/* Import `data` as `fmt` with a cancel that says yes from its first
 * question on; returns the import's result, the message in err. */
static int import_cancelled(imp_format fmt, const char *name, const void *data, size_t len,
                            bool stream, cancel_state *c, char *err, size_t errlen) {
    imp_file f = {name, data, len};
    trace t;
    trace_init(&t);
    imp_stream st = {0};
    imp_options o = {.progress = progress_fn, .user = c, .cancelled = cancel_fn,
                     .stream = stream ? &st : NULL};
    int rc = imp_import_opts(fmt, &f, 1, &o, &t, err, errlen);
    trace_free(&t);
    return rc;
}

static char *globaltimer_csv(size_t rows, size_t *len) {
    size_t cap = 64 + rows * 64;
    char *s = malloc(cap);
    size_t n = (size_t)snprintf(s, cap, "kernel,block,sm,start_ns,end_ns\n");
    for (size_t i = 0; i < rows; i++)
        n += (size_t)snprintf(s + n, cap - n, "K%zu,%zu,%zu,%zu,%zu\n", i % 7, i, i % 80,
                              i * 1000, i * 1000 + 900);
    *len = n;
    return s;
}

static char *schedlab_trace(size_t blocks, size_t *len) {
    size_t cap = 1024 + blocks * 96;
    char *s = malloc(cap);
    size_t n = (size_t)snprintf(s, cap,
                                "{\"schema\":\"schedlab-trace/1\",\"name\":\"t\",\"origin\":0,"
                                "\"kernels\":[{\"id\":0,\"name\":\"K\",\"blocks\":%zu}],\n"
                                "\"blocks\":[", blocks);
    for (size_t i = 0; i < blocks; i++)
        n += (size_t)snprintf(s + n, cap - n,
                              "%s{\"kernel\":0,\"index\":%zu,\"sm\":%zu,\"start\":%zu,\"end\":%zu}",
                              i ? ",\n" : "", i, i % 80, i * 1000, i * 1000 + 900);
    n += (size_t)snprintf(s + n, cap - n, "]}\n");
    *len = n;
    return s;
}

static void test_globaltimer_whole_and_streamed(void **state) {
    (void)state;
    size_t len;
    char *csv = globaltimer_csv(20000, &len);
    for (int stream = 0; stream < 2; stream++) {
        cancel_state c = {0};
        char err[512] = "";
        assert_int_not_equal(import_cancelled(IMP_GLOBALTIMER_CSV, "gt.csv", csv, len, stream, &c,
                                              err, sizeof err), 0);
        assert_string_equal(err, "gt.csv: " IMP_CANCELLED);
        assert_true(c.asked >= 1);
        assert_true(c.last < 0.5);   /* stopped early, not at the end */
    }
    /* a cancel that never comes changes nothing */
    cancel_state c = {.after = 1 << 30};
    char err[512] = "";
    assert_int_equal(import_cancelled(IMP_GLOBALTIMER_CSV, "gt.csv", csv, len, false, &c, err,
                                      sizeof err), 0);
    assert_true(c.asked > 0);
    free(csv);
}

static void test_schedlab_trace(void **state) {
    (void)state;
    size_t len;
    char *json = schedlab_trace(20000, &len);
    cancel_state c = {.after = 2};   /* the third question says yes */
    char err[512] = "";
    assert_int_not_equal(import_cancelled(IMP_SCHEDLAB_TRACE, "t.json", json, len, false, &c, err,
                                          sizeof err), 0);
    assert_string_equal(err, "t.json: " IMP_CANCELLED);
    assert_int_equal(c.asked, 3);
    assert_true(c.last > 0.0 && c.last < 0.5);   /* the bytes read are its progress now */
    cancel_state never = {.after = 1 << 30};
    assert_int_equal(import_cancelled(IMP_SCHEDLAB_TRACE, "t.json", json, len, false, &never, err,
                                      sizeof err), 0);
    assert_true(never.last >= 0.99);
    free(json);
}

/* the fixtures of the other formats (tests/fixtures/make_fixtures.sh):
 * a few rows each, a progress report each, so the first question comes at
 * once */
static void test_fixtures(void **state) {
    (void)state;
    static const struct { const char *file; imp_format fmt; } fx[] = {
        {"nvprof.csv", IMP_NVPROF_CSV},     {"nvprof.nvvp", IMP_NVPROF_SQLITE},
        {"nsys.sqlite", IMP_NSYS_SQLITE},   {"examiner.json", IMP_EXAMINER_JSON},
        {"pytorch_2x.json", IMP_PYTORCH},
    };
    for (size_t i = 0; i < sizeof fx / sizeof *fx; i++) {
        size_t len = 0;
        unsigned char *data = read_fixture(fx[i].file, &len);
        for (int stream = 0; stream < (imp_can_stream(fx[i].fmt) ? 2 : 1); stream++) {
            cancel_state c = {0};
            char err[512] = "";
            int rc = import_cancelled(fx[i].fmt, fx[i].file, data, len, stream, &c, err, sizeof err);
            /* one message, whatever the format met first (an SQLite
             * statement interrupted, a row cut short): importers.c */
            char want[256];
            snprintf(want, sizeof want, "%s: %s", fx[i].file, IMP_CANCELLED);
            if (rc == 0 || strcmp(err, want) != 0)
                fail_msg("%s (%s): not cancelled as \"%s\": rc %d, asked %d, \"%s\"", fx[i].file,
                         stream ? "streamed" : "whole", want, rc, c.asked, err);
        }
        free(data);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_globaltimer_whole_and_streamed),
        cmocka_unit_test(test_schedlab_trace),
        cmocka_unit_test(test_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
