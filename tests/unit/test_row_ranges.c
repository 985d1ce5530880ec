/* test_row_ranges.c -- kernels and copies as per-run rowid ranges
 * (db/row_ranges.sql, migration step 12): a schema-11 database with runs
 * converts and answers exactly as before (exports, occupancy bins, the
 * pyramid's edges and a pyramid rebuilt from the kernels' threads); runs
 * take consecutive ranges; deleting an experiment deletes exactly its
 * ranges; a kernels table not numbered as schedlab numbers it stops the
 * migration with a message naming the run; two runs written into the same
 * table at once are refused. */
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
#include "../../db/pyramid.h"
#include "../../db/row_ranges.h"
#include "../../db/versions.h"
#include "../../server/formats/trace_json.h"
#include "test_db_util.h"

/* A run of nk kernels (two blocks each, on SMs 0 and 1) and nc copies;
 * `salt` makes every run's numbers its own. */
static void build(trace *t, int nk, int nc, int salt) {
    trace_init(t);
    trace_set_source(t, "simulation");
    trace_set_name(t, "ranges");
    t->has_device = true;
    snprintf(t->device.name, sizeof t->device.name, "tx2");
    t->device.sms = 2;
    t->device.threads_per_sm = 2048;
    for (int i = 0; i < nk; i++) {
        char name[32];
        snprintf(name, sizeof name, "K%d", i % 3);
        trace_kernel *k = trace_add_kernel(t);
        k->name = trace_intern(t, name);
        k->stream = trace_intern(t, i % 2 ? "S1" : "S2");
        k->priority = i % 2 ? TRACE_PRIO_NONE : -i;
        k->threads = 64 * (1 + (i + salt) % 4);
        k->issue = 100 * i + salt;
        k->first_block = 100 * i + salt + 5;
        k->fully_dispatched = 100 * i + salt + 6;
        k->end = 100 * i + salt + 90 + i % 7;
        k->blocks = 2;
        k->smem = i % 3 ? TRACE_NONE : 1024 * i;
        k->regs = 32;
        k->grid[0] = 2, k->grid[1] = 1, k->grid[2] = 1;
        k->block[0] = k->threads, k->block[1] = 1, k->block[2] = 1;
        for (int j = 0; j < 2; j++) {
            trace_block *b = trace_add_block(t);
            *b = (trace_block){.kernel = i, .index = j, .sm = j, .start = k->first_block + 3 * j,
                               .end = k->end - j};
        }
    }
    for (int i = 0; i < nc; i++) {
        trace_copy *c = trace_add_copy(t);
        c->name = trace_intern(t, i % 2 ? "HtoD" : "DtoH");
        c->stream = trace_intern(t, "S1");
        c->direction = i % 2 ? TRACE_COPY_H2D : TRACE_COPY_D2H;
        c->engine = i % 2;
        c->bytes = i % 5 ? 4096 * (i + salt) : TRACE_NONE;
        c->issue = 50 * i + salt;
        c->start = 50 * i + salt + 2;
        c->end = 50 * i + salt + 40;
    }
    assert_false(t->oom);
}

static void store(db *d, const char *exp, const char *name, int nk, int nc, int salt,
                  char run[DB_SLUG_SIZE]) {
    trace t;
    build(&t, nk, nc, salt);
    char err[256];
    assert_int_equal(db_store_run(d, exp, name, &t, run, err, sizeof err), 0);
    trace_free(&t);
}

/* Everything a run answers that reads kernels or copies: its export, the
 * occupancy bins (threads per kernel), and the pyramid's range over a window
 * whose unaligned edges are read from the blocks (a kernel's threads each). */
static char *answers(db *d, const char *run) {
    tj_buf b = {0};
    tdb_export_to(d, run, &b);
    char err[512];
    double thr[2 * 8], blk[2 * 8];
    if (db_block_bins(d, run, 0, 4096, 512, 8, 2, thr, blk, err, sizeof err)) fail_msg("%s", err);
    pyr_run r;
    if (db_pyramid_run(d, run, &r, err, sizeof err)) fail_msg("%s", err);
    pyr_cell cell[2];
    memset(cell, 0, sizeof cell);
    if (db_pyramid_range(d, &r, 7, 3001, cell, err, sizeof err)) fail_msg("%s", err);
    char line[160];
    tj_puts(&b, "\nbins");
    for (int i = 0; i < 16; i++) {
        snprintf(line, sizeof line, " %.6f/%.6f", thr[i], blk[i]);
        tj_puts(&b, line);
    }
    snprintf(line, sizeof line, "\nrange %lld/%lld %lld/%lld", (long long)cell[0].thr,
             (long long)cell[0].blk, (long long)cell[1].thr, (long long)cell[1].blk);
    tj_puts(&b, line);
    return b.s;
}

static int64_t scalar(db *d, const char *fmt, const char *arg) {
    char sql[256];
    snprintf(sql, sizeof sql, fmt, arg);
    return tdb_scalar(d, sql);
}

/* ---- a schema-11 database, as schedlab left it before step 12 ------------------- */

static void exec_ok(sqlite3 *h, const char *sql) {
    char *msg = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) fail_msg("%s: %s", sql, msg);
}

/* The columns of table `t` of schema `s` but `skip1`, `skip2`, as
 * "pa, pb, pc" with p = `prefix`. */
static void columns(sqlite3 *h, const char *s, const char *t, const char *skip1,
                    const char *skip2, const char *prefix, char *out, size_t len) {
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s', '%s') ORDER BY cid", t, s);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    out[0] = '\0';
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        if (!strcmp(c, skip1) || !strcmp(c, skip2)) continue;
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%s\"%s\"", n ? ", " : "", prefix, c);
    }
    sqlite3_finalize(st);
}

/* How write_old damages the first run's rows (run a: 5 kernels, 7 copies),
 * each a way a schema-11 table is not as schedlab wrote it. */
typedef enum damage {
    INTACT,
    KERNEL_GAP,        /* ids 0, 2, 3, 4, 5 */
    KERNEL_NEGATIVE,   /* ids -1, 1, 2, 3, 4: the last is n - 1, the first is not 0 */
    COPY_GAP,          /* copies 0, 2, ..., 6, 9 */
    KERNEL_COUNT,      /* ids 0..4 where runs.n_kernels says 6 */
    KERNELS_GONE,      /* none where runs.n_kernels says 5 */
} damage;

/* old_path: the database of `from` (this schema) written back as steps 1-11
 * left it: kernels and copies keyed (run, id), runs without the bases;
 * damaged as `how` says. */
static void write_old(const char *from, const char *old_path, damage how) {
    unlink(old_path);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(old_path, &h), SQLITE_OK);
    const char *steps[] = {db_schema_sql, db_sweep_sql,    db_fidelity_sql, db_pauses_sql,
                           db_warp_sql,   db_qos_sql,      db_versions_sql, db_pyramid_sql,
                           db_kpyramid_sql, db_block_pages_sql};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) exec_ok(h, steps[i]);
    /* dbi_bpage_migrate of an empty blocks table, then step 11 */
    exec_ok(h, "DROP TABLE blocks");
    exec_ok(h, db_qpyramid_sql);
    exec_ok(h, "PRAGMA user_version = 11");
    char sql[8192], cols[2048], pcols[2048];
    snprintf(sql, sizeof sql, "ATTACH '%s' AS n", from);
    exec_ok(h, sql);
    exec_ok(h, "BEGIN");
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(h,
                                        "SELECT name FROM main.sqlite_schema WHERE type = 'table' "
                                        "AND name NOT LIKE 'sqlite_%' ORDER BY name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (!strcmp(t, "kernels") || !strcmp(t, "copies")) continue;
        columns(h, "main", t, "", "", "", cols, sizeof cols);
        snprintf(sql, sizeof sql, "INSERT INTO main.\"%s\"(%s) SELECT %s FROM n.\"%s\"", t, cols,
                 cols, t);
        exec_ok(h, sql);
    }
    sqlite3_finalize(st);
    /* the rows in reverse order, so nothing depends on insertion order */
    static const struct { const char *table, *alias, *base, *count; } ranged[] = {
        {"kernels", "k", "kernel_base", "n_kernels"},
        {"copies", "c", "copy_base", "n_copies"},
    };
    for (size_t i = 0; i < 2; i++) {
        const char *tb = ranged[i].table, *a = ranged[i].alias, *base = ranged[i].base;
        char prefix[4];
        snprintf(prefix, sizeof prefix, "%s.", a);
        columns(h, "main", tb, "run", "id", "", cols, sizeof cols);
        columns(h, "main", tb, "run", "id", prefix, pcols, sizeof pcols);
        snprintf(sql, sizeof sql,
                 "INSERT INTO main.%s(run, id, %s) SELECT r.id, %s.rowid - r.%s, %s FROM "
                 "n.%s %s JOIN n.runs r ON %s.rowid BETWEEN r.%s AND "
                 "r.%s + r.%s - 1 ORDER BY %s.rowid DESC",
                 tb, cols, a, base, pcols, tb, a, a, base, base, ranged[i].count, a);
        exec_ok(h, sql);
    }
    static const char *const harm[] = {
        [KERNEL_GAP] = "UPDATE main.kernels SET id = 5 WHERE id = 1 AND "
                       "run = (SELECT min(run) FROM main.kernels)",
        [KERNEL_NEGATIVE] = "UPDATE main.kernels SET id = -1 WHERE id = 0 AND "
                            "run = (SELECT min(run) FROM main.kernels)",
        [COPY_GAP] = "UPDATE main.copies SET id = 9 WHERE id = 1 AND "
                     "run = (SELECT min(run) FROM main.copies)",
        [KERNEL_COUNT] = "UPDATE main.runs SET n_kernels = 6 WHERE id = "
                         "(SELECT min(run) FROM main.kernels)",
        [KERNELS_GONE] = "DELETE FROM main.kernels WHERE run = (SELECT min(run) FROM main.kernels)",
    };
    if (how != INTACT) exec_ok(h, harm[how]);
    exec_ok(h, "COMMIT");
    exec_ok(h, "DETACH n");
    sqlite3_close(h);
}

static void unlink_db(const char *path) {
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    for (int i = 0; i < 4; i++) {
        char p[160];
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
}

#define NRUNS 4

typedef struct world {
    tdb t;
    char exp[3][DB_SLUG_SIZE];
    char run[NRUNS][DB_SLUG_SIZE];   /* those left after exp[1] is deleted */
    char *want[NRUNS];
} world;

/* Runs of three experiments, the middle one deleted so the remaining
 * ranges have a hole; then each run's answers. */
static void world_make(world *w) {
    assert_int_equal(tdb_open(&w->t, "ranges"), 0);
    char err[256], gone[DB_SLUG_SIZE];
    for (int i = 0; i < 3; i++) {
        char name[8];
        snprintf(name, sizeof name, "e%d", i);
        assert_int_equal(db_create_experiment(w->t.d, name, NULL, "scenario", NULL, "{}", w->exp[i],
                                              err, sizeof err), 0);
    }
    store(w->t.d, w->exp[0], "a", 5, 7, 1, w->run[0]);
    store(w->t.d, w->exp[1], "gone", 4, 300, 2, gone);
    store(w->t.d, w->exp[0], "b", 0, 3, 3, w->run[1]);     /* copies only */
    store(w->t.d, w->exp[2], "c", 6, 0, 4, w->run[2]);     /* kernels only */
    store(w->t.d, w->exp[2], "d", 300, 450, 5, w->run[3]); /* more than one INSERT's rows */
    int64_t runs = 0;
    assert_int_equal(db_delete_experiment(w->t.d, w->exp[1], &runs, err, sizeof err), 0);
    assert_int_equal(runs, 1);
    for (int i = 0; i < NRUNS; i++) w->want[i] = answers(w->t.d, w->run[i]);
}

/* Runs from .. NRUNS - 1, read from database d, answer as they did in
 * world_make. */
static void expect_answers(db *d, const world *w, int from) {
    for (int i = from; i < NRUNS; i++) {
        char *got = answers(d, w->run[i]);
        assert_string_equal(got, w->want[i]);
        free(got);
    }
}

/* The runs' kernel and copy ranges start where want says, as
 * kernel_base * 10000 + copy_base. */
#define BASES_OF "SELECT kernel_base * 10000 + copy_base FROM runs WHERE slug = '%s'"
static void expect_bases(db *d, const world *w, const int64_t want[NRUNS]) {
    for (int i = 0; i < NRUNS; i++) assert_int_equal(scalar(d, BASES_OF, w->run[i]), want[i]);
}

static void world_free(world *w) {
    for (int i = 0; i < NRUNS; i++) free(w->want[i]);
    tdb_close(&w->t);
}

/* ---- tests ---------------------------------------------------------------------- */

/* Fresh stores: each run's range follows the table's last row, the deleted
 * run's range is gone, and its rows with it. */
static void test_ranges_of_new_runs(void **state) {
    (void)state;
    world w;
    world_make(&w);
    db *d = w.t.d;
    /* a: kernels 1..5, copies 1..7; gone: kernels 6..9, copies 8..307;
     * b: copies 308..310; c: kernels 10..15; d: kernels 16..315, copies
     * 311..760 */
    static const int64_t bases[NRUNS] = {1 * 10000 + 1, 0 * 10000 + 308, 10 * 10000 + 0,
                                         16 * 10000 + 311};
    expect_bases(d, &w, bases);
    assert_int_equal(tdb_scalar(d, "SELECT count(*) * 100000 + sum(rowid) FROM kernels"),
                     311 * 100000 + (5 * 6 / 2) + (10 + 15) * 6 / 2 + (16 + 315) * 300 / 2);
    assert_int_equal(tdb_scalar(d, "SELECT count(*) FROM copies"), 7 + 3 + 450);
    assert_int_equal(tdb_scalar(d, "SELECT count(*) FROM copies WHERE rowid BETWEEN 8 AND 307"), 0);
    /* the export reads the run's own rows: kernel 299 of d */
    trace t;
    trace_init(&t);
    char err[256];
    assert_int_equal(db_load_run(d, w.run[3], DB_LOAD_KERNELS | DB_LOAD_COPIES, &t, err, sizeof err),
                     0);
    assert_int_equal(t.kernels.n, 300);
    assert_int_equal(t.copies.n, 450);
    assert_int_equal(t.kernels.v[299].issue, 100 * 299 + 5);
    assert_int_equal(t.copies.v[449].start, 50 * 449 + 5 + 2);
    trace_free(&t);
    /* kernels 3 <= id < 6 of run d by DBI_KERNEL_IDS, ids by DBI_KERNEL_ID */
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(d),
                                        "SELECT " DBI_KERNEL_ID ", issue FROM kernels WHERE "
                                        DBI_KERNEL_IDS("?2", "?3") " ORDER BY rowid",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, tdb_scalar(d, "SELECT max(id) FROM runs"));
    sqlite3_bind_int(st, 2, 3);
    sqlite3_bind_int(st, 3, 6);
    for (int id = 3; id < 6; id++) {
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_int_equal(sqlite3_column_int64(st, 0), id);
        assert_int_equal(sqlite3_column_int64(st, 1), 100 * id + 5);
    }
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    world_free(&w);
}

/* A schema-11 database converts: the latest version, no WITHOUT ROWID kernels or
 * copies, ranges renumbered from 1 in run order, and every answer equal. */
static void test_migrate_schema_11(void **state) {
    (void)state;
    world w;
    world_make(&w);
    char old[160], err[512];
    snprintf(old, sizeof old, "%s/old.db", w.t.dir);
    write_old(w.t.path, old, INTACT);
    db *d;
    if (db_open(old, &d, err, sizeof err)) fail_msg("%s", err);
    int v = 0;
    assert_int_equal(db_user_version(d, &v, err, sizeof err), 0);
    assert_int_equal(v, DB_SCHEMA_VERSION);   /* step 12 and any after it */
    assert_int_equal(tdb_scalar(d, "SELECT count(*) FROM sqlite_schema WHERE name IN "
                                   "('kernels', 'copies') AND sql NOT LIKE '%WITHOUT ROWID%'"),
                     2);
    assert_int_equal(tdb_scalar(d, "SELECT count(*) FROM sqlite_schema WHERE name IN "
                                   "('kernel_rows', 'copy_rows')"),
                     0);
    assert_int_equal(tdb_scalar(d, "SELECT count(*) FROM pragma_table_info('kernels') "
                                   "WHERE name IN ('run', 'id')"),
                     0);
    /* a: kernels 1..5, copies 1..7; b: copies 8..10; c: kernels 6..11;
     * d: kernels 12..311, copies 11..460 (the deleted run's hole closed) */
    static const int64_t bases[NRUNS] = {1 * 10000 + 1, 0 * 10000 + 8, 6 * 10000 + 0,
                                         12 * 10000 + 11};
    expect_bases(d, &w, bases);
    assert_int_equal(tdb_scalar(d, "SELECT max(rowid) * 1000 + count(*) FROM kernels"),
                     311 * 1000 + 311);
    assert_int_equal(tdb_scalar(d, "SELECT max(rowid) * 1000 + count(*) FROM copies"),
                     460 * 1000 + 460);
    expect_answers(d, &w, 0);
    /* a pyramid rebuilt after the migration reads the kernels' threads from
     * the ranges (db_pyramid_run builds a missing one) */
    assert_int_equal(sqlite3_exec(db_handle(d),
                                  "DELETE FROM pyramid_tiles; DELETE FROM pyramids; "
                                  "DELETE FROM kernel_tiles; DELETE FROM kernel_pyramids;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    expect_answers(d, &w, 0);
    /* a run stored now follows the last rows; deleting e0 deletes a's and
     * b's ranges and nothing else */
    char e[DB_SLUG_SIZE];
    store(d, w.exp[0], "new", 2, 2, 9, e);
    assert_int_equal(scalar(d, BASES_OF, e), 312 * 10000 + 461);
    int64_t runs = 0;
    assert_int_equal(db_delete_experiment(d, w.exp[0], &runs, err, sizeof err), 0);
    assert_int_equal(runs, 3);
    assert_int_equal(tdb_scalar(d, "SELECT min(rowid) * 1000 + count(*) FROM kernels"),
                     6 * 1000 + 306);
    assert_int_equal(tdb_scalar(d, "SELECT min(rowid) * 1000 + count(*) FROM copies"),
                     11 * 1000 + 450);
    expect_answers(d, &w, 2);
    db_close(d);
    unlink_db(old);
    world_free(&w);
}

/* Kernels or copies not numbered 0 .. n - 1 with n runs.n_kernels (or
 * n_copies): the step stops, names the run, and the database stays at
 * version 11. Each way a numbering can be off: a gap, a first id that is
 * not 0 though the last is n - 1, the copies' table, a count that is not
 * runs' and no rows at all. */
static void test_migrate_refuses_gaps(void **state) {
    (void)state;
    static const struct { damage how; const char *says; } cases[] = {
        {KERNEL_GAP, "5 kernels numbered 0..5 where runs.n_kernels says 5, numbered from 0; "
                     "the kernels table"},
        {KERNEL_NEGATIVE, "5 kernels numbered -1..4 where runs.n_kernels says 5, numbered "
                          "from 0; the kernels table"},
        {COPY_GAP, "7 copies numbered 0..9 where runs.n_copies says 7, numbered from 0; the "
                   "copies table"},
        {KERNEL_COUNT, "5 kernels numbered 0..4 where runs.n_kernels says 6, numbered from 0; "
                       "the kernels table"},
        {KERNELS_GONE, "no kernels where runs.n_kernels says 5; the kernels table"},
    };
    for (size_t c = 1; c < sizeof cases / sizeof *cases; c++) {
        world w;
        world_make(&w);
        char old[160], err[512], want[512];
        snprintf(old, sizeof old, "%s/old.db", w.t.dir);
        write_old(w.t.path, old, cases[c].how);
        db *d = NULL;
        assert_int_equal(db_open(old, &d, err, sizeof err), -1);
        snprintf(want, sizeof want, "%s: run %s: %s is not as schedlab wrote it", old, w.run[0],
                 cases[c].says);
        assert_string_equal(err, want);
        unlink_db(old);
        world_free(&w);
    }
    world w;
    world_make(&w);
    char old[160], err[512], want[512];
    snprintf(old, sizeof old, "%s/old.db", w.t.dir);
    write_old(w.t.path, old, KERNEL_GAP);
    db *d = NULL;
    assert_int_equal(db_open(old, &d, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: run %s: %s is not as schedlab wrote it", old, w.run[0],
             cases[0].says);
    assert_string_equal(err, want);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(old, &h), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 11);
    sqlite3_finalize(st);
    sqlite3_close(h);
    unlink_db(old);
    world_free(&w);
}

/* Two runs' rows written into the same table at once: the first run's next
 * batch is refused, naming why, and nothing of either is stored. */
static void test_interleaved_writers_refused(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "ranges2"), 0);
    char err[512], exp[DB_SLUG_SIZE], s1[DB_SLUG_SIZE], s2[DB_SLUG_SIZE], want[512];
    assert_int_equal(db_create_experiment(t.d, "x", NULL, "import", NULL, NULL, exp, err, sizeof err), 0);
    trace k;
    build(&k, 2, 2, 0);
    db_run_writer *w1, *w2;
    assert_int_equal(db_run_begin(t.d, exp, "one", s1, &w1, err, sizeof err), 0);
    assert_int_equal(db_run_add_kernels(w1, &k, err, sizeof err), 0);
    assert_int_equal(db_run_begin(t.d, exp, "two", s2, &w2, err, sizeof err), 0);
    assert_int_equal(db_run_add_kernels(w2, &k, err, sizeof err), 0);
    assert_int_equal(db_run_add_kernels(w1, &k, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: kernels: another run's rows were stored between this run's "
             "(a run's kernels must be written while no other run's are)", t.path);
    assert_string_equal(err, want);
    db_run_abort(w2);
    db_run_abort(w1);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM runs"), 0);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM kernels"), 0);
    trace_free(&k);
    tdb_close(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges_of_new_runs),
        cmocka_unit_test(test_migrate_schema_11),
        cmocka_unit_test(test_migrate_refuses_gaps),
        cmocka_unit_test(test_interleaved_writers_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
