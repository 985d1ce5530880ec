/* test_versions.c -- db/versions.c: an experiment's versions (edit and
 * re-run, issue 15) and deleting an experiment with every row of its runs,
 * the other experiments' rows untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../db/db.h"
#include "test_db_util.h"
#include "../../db/versions.h"

typedef struct fixture {
    tdb t;                      /* the throw-away database */
    db *d;                      /* = t.d */
    char exp[DB_SLUG_SIZE], other[DB_SLUG_SIZE];
} fixture;

/* One kernel with two blocks, a copy, a queue event and a meta pair: rows
 * in blocks, kernels, strings, copies, queue_events, run_meta, devices. */
static void build(trace *t, int64_t shift) {
    trace_init(t);
    trace_set_source(t, "simulation");
    t->has_device = true;
    snprintf(t->device.name, sizeof t->device.name, "tx2");
    t->device.sms = 2;
    t->device.threads_per_sm = 2048;
    trace_set_meta(t, "tool", "unit");
    trace_kernel *k = trace_add_kernel(t);
    k->name = trace_intern(t, "K1");
    k->stream = trace_intern(t, "S1");
    k->threads = 256;
    k->issue = 0;
    k->first_block = shift;
    k->end = 1000 + shift;
    k->blocks = 2;
    trace_block *b = trace_add_block(t);
    *b = (trace_block){.kernel = 0, .index = 0, .sm = 0, .start = shift, .end = 500 + shift};
    b = trace_add_block(t);
    *b = (trace_block){.kernel = 0, .index = 1, .sm = 1, .start = shift, .end = 1000 + shift};
    trace_copy *c = trace_add_copy(t);
    c->name = trace_intern(t, "C1");
    c->start = 1;
    c->end = 2;
    trace_add_queue_event(t, 0, trace_intern(t, "stream:S1"), trace_intern(t, "K1"), TRACE_ENQUEUE);
    assert_false(t->oom);
}

static void store(fixture *f, const char *exp, const char *name, int64_t shift, char run[DB_SLUG_SIZE]) {
    trace t;
    build(&t, shift);
    char err[256];
    assert_int_equal(db_store_run(f->d, exp, name, &t, run, err, sizeof err), 0);
    trace_free(&t);
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f || tdb_open(&f->t, "versions")) return -1;
    f->d = f->t.d;
    char err[256];
    if (db_create_experiment(f->d, "exp", NULL, "scenario", NULL, "{\"v\":1}", f->exp, err, sizeof err) ||
        db_create_experiment(f->d, "other", NULL, "scenario", NULL, "{\"v\":9}", f->other, err, sizeof err))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    tdb_close(&f->t);
    free(f);
    return 0;
}


typedef struct seen {
    int64_t version[8], runs[8];
    bool dated[8];
    int n;
} seen;

static int on_version(void *ctx, int64_t version, const char *created, int64_t runs) {
    seen *s = ctx;
    s->version[s->n] = version;
    s->runs[s->n] = runs;
    s->dated[s->n] = created != NULL;
    s->n++;
    return 0;
}

static int on_run_version(void *ctx, const char *run, int64_t version) {
    (void)run;
    seen *s = ctx;
    s->version[s->n++] = version;
    return 0;
}

static int stop_after_one(void *ctx, int64_t version, const char *created, int64_t runs) {
    on_version(ctx, version, created, runs);
    return 7;
}

static int stop_run_after_one(void *ctx, const char *run, int64_t version) {
    on_run_version(ctx, run, version);
    return 7;
}

static int run_version(void *ctx, const db_run *r) {
    *(int64_t *)ctx = r->version;
    return 0;
}

static void test_versions(void **state) {
    fixture *f = *state;
    char err[256], r1[DB_SLUG_SIZE], r2[DB_SLUG_SIZE], r3[DB_SLUG_SIZE];
    store(f, f->exp, "a", 0, r1);
    store(f, f->exp, "b", 0, r2);
    int64_t v = 0;
    assert_int_equal(db_version_latest(f->d, f->exp, &v, err, sizeof err), 0);
    assert_int_equal(v, 1);
    seen s = {0};
    assert_int_equal(db_list_versions(f->d, f->exp, on_version, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.version[0], 1);
    assert_int_equal(s.runs[0], 2);
    assert_false(s.dated[0]);     /* never edited: no row of its own yet */

    /* version 2: the old text becomes version 1's row, the new one current */
    assert_int_equal(db_version_add(f->d, f->exp, 2, "{\"v\":2}", err, sizeof err), 0);
    store(f, f->exp, "a", 7, r3);
    assert_int_equal(db_run_set_version(f->d, r3, 2, err, sizeof err), 0);
    assert_int_equal(db_version_latest(f->d, f->exp, &v, err, sizeof err), 0);
    assert_int_equal(v, 2);
    int64_t rv = 0;
    assert_int_equal(db_get_run(f->d, r3, run_version, &rv, err, sizeof err), 0);
    assert_int_equal(rv, 2);   /* the run as the API lists it (docs/api.md: `version`) */
    memset(&s, 0, sizeof s);
    assert_int_equal(db_list_versions(f->d, f->exp, on_version, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.version[0], 1);
    assert_int_equal(s.runs[0], 2);
    assert_true(s.dated[0]);
    assert_int_equal(s.version[1], 2);
    assert_int_equal(s.runs[1], 1);
    assert_int_equal(tdb_scalar(f->d, "SELECT count(*) FROM experiment_versions WHERE version = 1 AND scenario_json = '{\"v\":1}'"), 1);
    assert_int_equal(tdb_scalar(f->d, "SELECT count(*) FROM experiments WHERE name = 'exp' AND scenario_json = '{\"v\":2}'"), 1);
    memset(&s, 0, sizeof s);
    assert_int_equal(db_list_run_versions(f->d, f->exp, on_run_version, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.version[0], 1);
    assert_int_equal(s.version[1], 1);
    assert_int_equal(s.version[2], 2);
    /* version 3 recorded, no run of it yet: the newest all the same, and
     * listed with none */
    assert_int_equal(db_version_add(f->d, f->exp, 3, "{\"v\":3}", err, sizeof err), 0);
    assert_int_equal(db_version_latest(f->d, f->exp, &v, err, sizeof err), 0);
    assert_int_equal(v, 3);
    memset(&s, 0, sizeof s);
    assert_int_equal(db_list_versions(f->d, f->exp, on_version, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.version[2], 3);
    assert_int_equal(s.runs[2], 0);
    assert_true(s.dated[2]);
    /* a run marked with a version no text was recorded for: the newest is
     * the runs' when theirs is larger */
    assert_int_equal(db_run_set_version(f->d, r3, 4, err, sizeof err), 0);
    assert_int_equal(db_version_latest(f->d, f->exp, &v, err, sizeof err), 0);
    assert_int_equal(v, 4);
    assert_int_equal(db_run_set_version(f->d, r3, 2, err, sizeof err), 0);
    /* a callback that says stop stops the listing, its value returned */
    memset(&s, 0, sizeof s);
    assert_int_equal(db_list_versions(f->d, f->exp, stop_after_one, &s, err, sizeof err), 7);
    assert_int_equal(s.n, 1);
    memset(&s, 0, sizeof s);
    assert_int_equal(db_list_run_versions(f->d, f->exp, stop_run_after_one, &s, err, sizeof err),
                     7);
    assert_int_equal(s.n, 1);
    /* a version number taken twice is refused */
    assert_int_equal(db_version_add(f->d, f->exp, 2, "{}", err, sizeof err), -1);
    assert_int_equal(db_version_latest(f->d, "zzzzzzzzzz", &v, err, sizeof err), DB_NOT_FOUND);
    assert_int_equal(db_run_set_version(f->d, "zzzzzzzzzz", 2, err, sizeof err), DB_NOT_FOUND);
}

/* docs/api.md: each run's `version` is "1 for imports", and `versions` has
 * "version 1 ... created null for a version 1 never edited": every
 * experiment has its version 1, the one db_version_latest says; an
 * experiment without runs (a sweep: db/sweep.c stores none) listed none */
static void test_version_one_without_runs(void **state) {
    fixture *f = *state;
    char err[256], sweep[DB_SLUG_SIZE];
    assert_int_equal(db_create_experiment(f->d, "sweep", NULL, "sweep", NULL, NULL, sweep, err,
                                          sizeof err), 0);
    int64_t v = 0;
    assert_int_equal(db_version_latest(f->d, sweep, &v, err, sizeof err), 0);
    assert_int_equal(v, 1);
    seen s = {0};
    assert_int_equal(db_list_versions(f->d, sweep, on_version, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.version[0], 1);
    assert_int_equal(s.runs[0], 0);
    assert_false(s.dated[0]);
}

static void test_delete(void **state) {
    fixture *f = *state;
    char err[256], run[DB_SLUG_SIZE], keep[DB_SLUG_SIZE];
    store(f, f->exp, "a", 0, run);
    store(f, f->exp, "b", 3, run);
    store(f, f->other, "kept", 5, keep);
    assert_int_equal(db_version_add(f->d, f->exp, 2, "{\"v\":2}", err, sizeof err), 0);
    /* every table with a `run` column, before: 2/3 of its rows are exp's */
    const char *tables[] = {"kernels", "block_pages", "strings", "copies", "queue_events", "run_meta", "devices"};
    int64_t before[7];
    for (int i = 0; i < 7; i++) {
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[i]);
        before[i] = tdb_scalar(f->d, sql);
        assert_true(before[i] > 0);
        assert_int_equal(before[i] % 3, 0);
    }
    int64_t n = 0;
    assert_int_equal(db_delete_experiment(f->d, f->exp, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    for (int i = 0; i < 7; i++) {
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[i]);
        assert_int_equal(tdb_scalar(f->d, sql), before[i] / 3);
    }
    assert_int_equal(tdb_scalar(f->d, "SELECT count(*) FROM runs"), 1);
    assert_int_equal(tdb_scalar(f->d, "SELECT count(*) FROM experiments"), 1);
    assert_int_equal(tdb_scalar(f->d, "SELECT count(*) FROM experiment_versions"), 0);
    /* the other experiment's run is whole */
    trace t;
    trace_init(&t);
    assert_int_equal(db_load_run(f->d, keep, DB_LOAD_ALL, &t, err, sizeof err), 0);
    assert_int_equal(t.blocks.n, 2);
    assert_int_equal(t.blocks.v[1].start, 5);
    trace_free(&t);
    assert_int_equal(db_delete_experiment(f->d, f->exp, &n, err, sizeof err), DB_NOT_FOUND);
}

/* More tables naming a run than the delete lists: refused, naming why,
 * and nothing deleted (a table left out would keep the deleted runs'
 * rows). */
static void test_delete_too_many_tables(void **state) {
    fixture *f = *state;
    char err[256], run[DB_SLUG_SIZE], want[256];
    store(f, f->exp, "a", 0, run);
    int64_t tables = tdb_scalar(f->d, "SELECT count(*) FROM sqlite_schema m, "
                                      "pragma_table_info(m.name) p WHERE m.type = 'table' AND "
                                      "m.name <> 'runs' AND (p.name = 'run' OR "
                                      "(m.name = 'fidelity' AND p.name = 'measured'))");
    assert_true(tables > 0 && tables <= 64);
    for (int64_t i = tables; i <= 64; i++) {   /* to 65 */
        char sql[96];
        snprintf(sql, sizeof sql, "CREATE TABLE extra_%d(run INTEGER)", (int)i);
        assert_int_equal(sqlite3_exec(db_handle(f->d), sql, NULL, NULL, NULL), SQLITE_OK);
    }
    int64_t kernels = tdb_scalar(f->d, "SELECT count(*) FROM kernels");
    int64_t n = -1;
    assert_int_equal(db_delete_experiment(f->d, f->exp, &n, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: more than 64 tables name a run; deleting an experiment "
             "lists at most 64 (db/versions.c)", db_path(f->d));
    assert_string_equal(err, want);
    assert_int_equal(n, -1);
    assert_int_equal(tdb_scalar(f->d, "SELECT count(*) FROM runs"), 1);
    assert_int_equal(tdb_scalar(f->d, "SELECT count(*) FROM kernels"), kernels);
    /* one table fewer: the delete goes through */
    assert_int_equal(sqlite3_exec(db_handle(f->d), "DROP TABLE extra_64", NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(db_delete_experiment(f->d, f->exp, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_versions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version_one_without_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_too_many_tables, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
