/* test_imp_util.h -- helpers shared by the importer tests (test_imp_*.c,
 * test_fixtures.c, test_demangle_traces.c, test_sqlite_util.c). Include
 * after <cmocka.h>; static inline, so each test binary carries only what it
 * uses.
 *
 * Two kinds of input files:
 *
 *   fixtures    small synthetic traces written by tests/fixtures/make_fixtures.sh
 *               into $SCHEDLAB_FIXTURES (the Makefile sets it to
 *               $(BUILD)/fixtures and makes them first). Always there: a
 *               missing fixture fails the test.
 *   real traces recorded on hardware by others, never copied into the
 *               repository: $SCHEDLAB_TRACES (default ../shared/traces). A
 *               test that needs one is skipped, with one line saying which
 *               file and why, when it is absent -- unless
 *               SCHEDLAB_REQUIRE_TRACES=1 (CI, .ci/run), where that fails. */
#ifndef TEST_IMP_UTIL_H
#define TEST_IMP_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

static inline unsigned char *test_slurp(FILE *f, size_t *len) {
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* The folder of the real traces. */
static inline const char *traces_dir(void) {
    const char *d = getenv("SCHEDLAB_TRACES");
    return d && *d ? d : "../shared/traces";
}

static inline int traces_required(void) {
    const char *r = getenv("SCHEDLAB_REQUIRE_TRACES");
    return r && strcmp(r, "1") == 0;
}

/* The path of real trace `name`, or NULL after skipping (or failing) the
 * calling test when it is absent. */
static inline const char *trace_path(const char *name, char *path, size_t n) {
    snprintf(path, n, "%s/%s", traces_dir(), name);
    FILE *f = fopen(path, "rb");
    if (f) {
        fclose(f);
        return path;
    }
    if (traces_required())
        fail_msg("real trace %s not found (SCHEDLAB_REQUIRE_TRACES=1)", path);
    printf("[  SKIP    ] needs the real trace %s, not found (set SCHEDLAB_TRACES to the "
           "folder of the real traces)\n", path);
    fflush(stdout);
    skip();
    return NULL;
}

/* The bytes of real trace `name` (see trace_path); the caller frees them. */
static inline unsigned char *read_trace(const char *name, size_t *len) {
    char path[1024];
    trace_path(name, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    return test_slurp(f, len);
}

/* The bytes of fixture `name`; the caller frees them. */
static inline unsigned char *read_fixture(const char *name, size_t *len) {
    const char *root = getenv("SCHEDLAB_FIXTURES");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root && *root ? root : "build/fixtures", name);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open fixture %s (make writes them: tests/fixtures/make_fixtures.sh)", path);
    return test_slurp(f, len);
}

/* ---- a real trace imported (test_replay_*.c) ---------------------------- */
#include "../../importers/importers.h"

/* Real trace `name` imported whole into `t` (initialised here; the caller
 * frees it), its format detected; an import error fails the test. */
static inline void import_trace(const char *name, trace *t) {
    size_t len = 0;
    unsigned char *data = read_trace(name, &len);
    imp_file f = {name, data, len};
    trace_init(t);
    char err[1024] = "";
    if (imp_import(IMP_UNKNOWN, &f, 1, t, err, sizeof err) != 0) fail_msg("%s", err);
    free(data);
}

/* ---- the streaming imports' tests (test_imp_stream*.c, issue 9) ---------------
 * Each compares store_import, which streams a file into the store, with the
 * file parsed whole; they include test_db_util.h first. */
#ifdef TEST_DB_UTIL_H
#include <stdbool.h>

#include "../../importers/importers.h"
#include "../../importers/trace_check.h"
#include "../../server/app/store.h"

/* File f parsed whole and checked (imp_import, imp_check_trace), stored
 * with db_store_run under the file's name: the run streaming must equal. */
static inline void imp_store_whole(db *d, imp_format fmt, const imp_file *f,
                                   char run[DB_SLUG_SIZE]) {
    trace t;
    trace_init(&t);
    char err[512];
    assert_int_equal(imp_import(fmt, f, 1, &t, err, sizeof err), 0);
    assert_int_equal(imp_check_trace(&t, f->name, err, sizeof err), 0);
    tdb_store_whole(d, &t, f->name, run);
    trace_free(&t);
}

/* File f imported (format fmt) with st's batch callback, rows and user
 * set: succeeds, streamed. t holds what the importer left (the caller
 * trace_free()s it). */
static inline void imp_stream_file(imp_format fmt, const imp_file *f, imp_stream *st, trace *t) {
    imp_options o = {.stream = st};
    trace_init(t);
    char err[512];
    assert_int_equal(imp_import_opts(fmt, f, 1, &o, t, err, sizeof err), 0);
    assert_true(st->streamed);
}

/* Bad file f: parsed whole it gets message `want` (from the importer, or
 * when parse_fails is false possibly from imp_check_trace), and streamed
 * with store_import the same message, STORE_BAD_INPUT, and neither a run
 * nor an experiment. */
static inline void imp_expect_refused(db *d, imp_format fmt, const imp_file *f, bool parse_fails,
                                      const char *want) {
    trace w;
    trace_init(&w);
    char werr[512] = "", err[512] = "", run[DB_SLUG_SIZE], exp[DB_SLUG_SIZE];
    int wrc = imp_import(fmt, f, 1, &w, werr, sizeof werr);
    if (parse_fails) assert_int_equal(wrc, -1);
    else if (wrc == 0) assert_int_equal(imp_check_trace(&w, f->name, werr, sizeof werr), -1);
    trace_free(&w);
    assert_string_equal(werr, want);
    assert_int_equal(store_import(d, f, 1, imp_format_name(fmt), NULL, NULL, run, exp, err,
                                  sizeof err), STORE_BAD_INPUT);
    assert_string_equal(err, want);
    assert_string_equal(run, "");
    assert_string_equal(exp, "");
}
#endif

/* The bytes of an SQLite database built from `sql` (sqlite3_free them):
 * the SQLite importers' tests build each case's export so. */
static inline unsigned char *test_sql_bytes(const char *sql, size_t *len) {
    sqlite3 *mem;
    assert_int_equal(sqlite3_open(":memory:", &mem), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(mem, sql, NULL, NULL, &msg) != SQLITE_OK) fail_msg("test SQL: %s", msg);
    sqlite3_int64 n = 0;
    unsigned char *d = sqlite3_serialize(mem, "main", &n, 0);
    assert_non_null(d);
    sqlite3_close(mem);
    *len = (size_t)n;
    return d;
}

#endif
