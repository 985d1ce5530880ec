/* test_demangle_traces.c -- the demangler against GNU c++filt on every
 * kernel name of the real traces ($SCHEDLAB_TRACES; skipped when absent,
 * a failure with SCHEDLAB_REQUIRE_TRACES=1).
 *
 * For each trace: import it, take every distinct raw kernel name (the name
 * as the profiler wrote it, less nvprof's " [corrId]" suffix), run c++filt
 * on all of them in one call (one argument each, so one output line each),
 * and expect imp_demangle's result -- or the raw name where it returns NULL
 * -- to be exactly c++filt's line. The counts of distinct names and of
 * mangled ones (_Z...) are pinned too, so a trace that imports fewer names
 * cannot pass by comparing less. Where the importer demangles itself
 * (everything but nsys, whose export carries its own demangled names), the
 * display name must be c++filt's as well.
 *
 * The CloverLeaf (A100) and ksched (RTX 2080 Ti) traces hold the 104
 * distinct mangled names (102 + 2) that the hand-written demangler of old
 * mostly gave up on: every CloverLeaf kernel is a lambda.
 *
 * The fixture side (lambdas, clone suffixes, constructors) is in
 * test_imp_text.c (test_demangle) and test_fixtures.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../importers/formats.h"
#include "../../importers/importers.h"
#include "test_imp_util.h"

extern char **environ;

#define MAX_NAMES 4096

typedef struct names {
    char *raw[MAX_NAMES];      /* distinct, owned */
    const char *shown[MAX_NAMES];  /* the importer's display name (borrowed from the trace) */
    size_t n;
} names;

/* Without nvprof's " [123]" correlation suffix. */
static char *strip_corr(const char *s) {
    size_t n = strlen(s);
    if (n >= 4 && s[n - 1] == ']') {
        size_t i = n - 2;
        while (i > 0 && s[i] >= '0' && s[i] <= '9') i--;
        if (i + 1 < n - 1 && s[i] == '[' && i > 0 && s[i - 1] == ' ') n = i - 1;
    }
    char *r = strndup(s, n);
    assert_non_null(r);
    return r;
}

static void collect(const trace *t, names *v) {
    v->n = 0;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        const char *raw = trace_str_get(t, k->raw_name ? k->raw_name : k->name);
        if (!raw) continue;
        char *r = strip_corr(raw);
        size_t j = 0;
        while (j < v->n && strcmp(v->raw[j], r) != 0) j++;
        if (j < v->n) { free(r); continue; }
        assert_true(v->n < MAX_NAMES);
        v->raw[v->n] = r;
        v->shown[v->n] = trace_str_get(t, k->name);
        v->n++;
    }
}

/* c++filt's output for each name, one line each, into out[] (owned). */
static void cxxfilt(names *v, char **out) {
    char tmpl[] = "/tmp/schedlab-cxxfilt-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    unlink(tmpl);
    char **argv = calloc(v->n + 2, sizeof *argv);
    assert_non_null(argv);
    argv[0] = "c++filt";
    for (size_t i = 0; i < v->n; i++) argv[i + 1] = v->raw[i];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    pid_t pid;
    int rc = posix_spawnp(&pid, "c++filt", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    if (rc != 0) fail_msg("cannot run c++filt (binutils; tools/install-deps.sh installs it)");
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    FILE *f = fdopen(fd, "r");
    assert_non_null(f);
    rewind(f);
    char *line = NULL;
    size_t cap = 0;
    size_t i = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, f)) > 0) {
        if (line[got - 1] == '\n') line[got - 1] = '\0';
        assert_true(i < v->n);
        out[i++] = strdup(line);
    }
    free(line);
    fclose(f);
    assert_int_equal(i, v->n);
}

/* Import real trace `file`; compare every distinct kernel name with
 * c++filt; expect `distinct` names of which `mangled` start with _Z. */
static void check_trace(const char *file, imp_format fmt, size_t distinct, size_t mangled,
                        int display_is_ours) {
    size_t len;
    unsigned char *d = read_trace(file, &len);
    imp_file f = {file, d, len};
    trace t;
    trace_init(&t);
    char err[512] = "";
    int r = imp_import(fmt, &f, 1, &t, err, sizeof err);
    free(d);
    if (r) fail_msg("%s: %s", file, err);
    static names v;
    collect(&t, &v);
    static char *want[MAX_NAMES];
    cxxfilt(&v, want);
    size_t nmangled = 0, bad = 0;
    for (size_t i = 0; i < v.n; i++) {
        char buf[16384];
        const char *got = imp_demangle(v.raw[i], buf, sizeof buf);
        if (!got) got = v.raw[i];
        if (strncmp(v.raw[i], "_Z", 2) == 0) nmangled++;
        if (strcmp(got, want[i]) != 0) {
            print_error("%s: %s\n  ours:     %s\n  c++filt:  %s\n", file, v.raw[i], got, want[i]);
            bad++;
        } else if (display_is_ours && strcmp(v.shown[i], want[i]) != 0) {
            print_error("%s: %s shown as %s, c++filt: %s\n", file, v.raw[i], v.shown[i], want[i]);
            bad++;
        }
    }
    if (!bad)
        printf("%s: %zu distinct kernel names, %zu mangled, all as c++filt prints them\n", file,
               v.n, nmangled);
    for (size_t i = 0; i < v.n; i++) {
        free(v.raw[i]);
        free(want[i]);
    }
    trace_free(&t);
    assert_int_equal(bad, 0);
    assert_int_equal(v.n, distinct);
    assert_int_equal(nmangled, mangled);
}

static void test_cloverleaf_a100(void **state) {
    (void)state;
    check_trace("nsys2024.5_export_pipit_cloverleaf_a100.sqlite", IMP_NSYS_SQLITE, 102, 102, 0);
}

static void test_ksched_rtx2080ti(void **state) {
    (void)state;
    check_trace("nvprof_export_v18_ksched_rtx2080ti_timeline.prof", IMP_NVPROF_SQLITE, 2, 2, 1);
}

static void test_t4_vectoradd(void **state) {
    (void)state;
    check_trace("nsys2022.4_export_lianhang_t4_vectorAdd_streams_report2.sqlite", IMP_NSYS_SQLITE,
                1, 1, 0);
}

static void test_magus_concurrent_kernels(void **state) {
    (void)state;
    check_trace("nvprof_gputrace_magus_concurrentKernels_gtx1080ti.csv", IMP_NVPROF_CSV, 2, 0, 1);
}

static void test_magus_batch_cublas(void **state) {
    (void)state;
    check_trace("nvprof_gputrace_magus_batchCUBLAS_gtx1080ti.csv", IMP_NVPROF_CSV, 4, 0, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cloverleaf_a100),
        cmocka_unit_test(test_ksched_rtx2080ti),
        cmocka_unit_test(test_t4_vectoradd),
        cmocka_unit_test(test_magus_concurrent_kernels),
        cmocka_unit_test(test_magus_batch_cublas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
