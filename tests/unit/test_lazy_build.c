/* test_lazy_build.c -- the builds a read makes on first use (db_int.h
 * dbi_build_once: a run's sort orders, its occupancy, stream, copy and
 * queue pyramids) when they cannot write: another connection holds
 * SQLite's write lock (an import of another process), the build gate
 * (db.h db_set_build_gate: `serve`'s write lock, held by an import) is
 * taken, the connection is read-only. Each read then answers at once from
 * a copy made for it alone, storing nothing, and its answer is the one the
 * stored build gives a later read (docs/shared-machine.md: readers never
 * wait); the copies go with db_drop_scratch. Before, the read waited
 * SQLite's busy limit behind the other writer and failed "database is
 * locked", or failed at once on a read-only connection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../db/db.h"
#include "../../db/db_int.h"
#include "../../db/pyramid.h"
#include "../../db/qpyramid.h"
#include "../../db/rorder.h"
#include "../../db/spyramid.h"
#include "../../simcore/device.h"
#include "test_db_util.h"

/* every table a lazy build writes */
static const char *const built[] = {
    "record_orders", "pyramids", "pyramid_tiles", "kernel_pyramids", "kernel_tiles",
    "stream_bins", "stream_cells", "stream_lanes", "stream_names", "stream_pyramids",
    "copy_bins", "copy_cells", "copy_pyramids", "queue_bins", "queue_pyramids",
};
#define NBUILT (sizeof built / sizeof *built)

/* 400 kernels in three streams with their blocks on 8 SMs, 300 copies on
 * two engines, each kernel's queue events */
static void build(trace *t) {
    tdb_h100_trace(t, "lazy", 8);
    uint64_t s = 7;
#define RND(n) \
    ((s = s * 6364136223846793005ull + 1442695040888963407ull), (int64_t)((s >> 33) % (n)))
    for (int i = 0; i < 400; i++) {
        char name[8], stream[8], item[16], queue[32];
        snprintf(name, sizeof name, "K%d", (int)RND(4));
        snprintf(stream, sizeof stream, "%d", 7 + (int)RND(3));
        trace_kernel *k = trace_add_kernel(t);
        k->name = trace_intern(t, name);
        k->stream = trace_intern(t, stream);
        k->process = trace_intern(t, "P0");
        k->priority = TRACE_PRIO_NONE;
        k->threads = 64 * (1 + (int)RND(4));
        k->blocks = 4;
        k->issue = i % 9 ? 10000 * i : TRACE_NONE;
        k->first_block = 10000 * i + RND(900);
        k->fully_dispatched = k->first_block + 10;
        k->end = k->first_block + 100 + RND(30000);
        for (int b = 0; b < 4; b++) {
            trace_block *bl = trace_add_block(t);
            bl->kernel = i;
            bl->index = b;
            bl->sm = (int32_t)RND(8);
            bl->start = k->first_block + RND(50);
            bl->end = bl->start + 50 + RND(k->end - k->first_block - 50);
        }
        snprintf(item, sizeof item, "K%d", i);
        snprintf(queue, sizeof queue, "stream:P0/%s", stream);
        trace_str q = trace_intern(t, queue), it = trace_intern(t, item);
        trace_add_queue_event(t, k->first_block - 500, q, it, TRACE_ENQUEUE);
        trace_add_queue_event(t, k->first_block, q, it, TRACE_DEQUEUE);
    }
    for (int i = 0; i < 300; i++) {
        trace_copy *c = trace_add_copy(t);
        c->name = trace_intern(t, i % 3 ? "C1" : "C2");
        c->stream = trace_intern(t, "7");
        c->process = trace_intern(t, "P0");
        c->direction = (int32_t)RND(2);
        c->engine = (int32_t)RND(2);
        c->bytes = 4096 * (1 + RND(64));
        c->start = 13000 * i + RND(800);
        c->issue = c->start - RND(40);
        c->end = c->start + 1 + RND(9000);
    }
#undef RND
}

static void put_ids(FILE *f, const char *what, const int64_t *v, size_t n) {
    fprintf(f, "%s:", what);
    for (size_t i = 0; i < n; i++) fprintf(f, " %lld", (long long)v[i]);
    fputc('\n', f);
}

/* What every lazily built read answers of run `slug` on d, as one text */
static char *answers(db *d, const char *slug) {
    char *out = NULL, err[512];
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    /* two orders of the kernels (one of a name), one of the copies */
    const ror_query qs[] = {
        {.kind = ROR_KERNELS, .key = ROR_K_RESPONSE, .desc = true, .offset = 0, .limit = 300},
        {.kind = ROR_KERNELS, .key = 1, .name = "K2", .offset = 10, .limit = 50},
        {.kind = ROR_COPIES, .key = 4, .offset = 40, .limit = 200},
    };
    for (size_t q = 0; q < sizeof qs / sizeof *qs; q++) {
        trace t;
        trace_init(&t);
        int64_t *ids = NULL, total = 0;
        size_t n = 0;
        if (db_rorder_page(d, slug, &qs[q], &t, &ids, &n, &total, err, sizeof err))
            fail_msg("%s", err);
        assert_true(n > 0);
        fprintf(f, "total %lld ", (long long)total);
        put_ids(f, "order", ids, n);
        free(ids);
        trace_free(&t);
    }
    /* the occupancy pyramid */
    pyr_run r;
    if (db_pyramid_run(d, slug, &r, err, sizeof err)) fail_msg("%s", err);
    pyr_bins pb;
    if (db_pyramid_bins(d, &r, r.t_min, r.t_max, 64, &pb, err, sizeof err)) fail_msg("%s", err);
    fprintf(f, "occupancy z %d k0 %lld total %lld:", pb.z, (long long)pb.k0, (long long)pb.total);
    for (size_t i = 0; i < pb.nbins * (size_t)pb.sms; i++)
        fprintf(f, " %lld/%lld/%lld/%lld", (long long)pb.cells[i].thr, (long long)pb.cells[i].blk,
                (long long)pb.cells[i].starts, (long long)pb.cells[i].live);
    fputc('\n', f);
    pyr_bins_free(&pb);
    /* the stream pyramid: bins and a window's kernels */
    spyr_info si;
    if (db_spyramid_info(d, slug, &si, err, sizeof err)) fail_msg("%s", err);
    fprintf(f, "lanes %zu names %zu kernels %lld\n", si.nlanes, si.nnames, (long long)si.nkernels);
    spyr_bins sb;
    if (db_spyramid_bins(d, &si, si.t_min, si.t_max, 40, NULL, &sb, err, sizeof err))
        fail_msg("%s", err);
    put_ids(f, "kernel_ns", sb.kernel_ns, sb.nbins * sb.nlanes);
    put_ids(f, "max_threads", sb.max_threads, sb.nbins * sb.nlanes);
    spyr_bins_free(&sb);
    trace kt;
    trace_init(&kt);
    int64_t *kids = NULL;
    size_t kn = 0;
    if (db_spyramid_kernels(d, &si, 1000000, 1300000, 1000, &kt, &kids, &kn, err, sizeof err))
        fail_msg("%s", err);
    assert_true(kn > 0);
    put_ids(f, "window", kids, kn);
    free(kids);
    trace_free(&kt);
    spyr_info_free(&si);
    /* the copy pyramid */
    cpyr_info ci;
    if (db_spyramid_copy_info(d, slug, &ci, err, sizeof err)) fail_msg("%s", err);
    cpyr_bins cb;
    if (db_spyramid_copy_bins(d, &ci, ci.t_min, ci.t_max, 30, &cb, err, sizeof err))
        fail_msg("%s", err);
    put_ids(f, "copy_ns", cb.copy_ns, cb.nbins * cb.nlanes);
    put_ids(f, "max_copies", cb.max_copies, cb.nbins * cb.nlanes);
    cpyr_bins_free(&cb);
    cpyr_info_free(&ci);
    /* the queue pyramid */
    qpyr_bins qb;
    if (db_qpyramid_bins(d, slug, 0, 4000000, 50, &qb, err, sizeof err)) fail_msg("%s", err);
    fprintf(f, "queues %zu events %lld\n", qb.nqueues, (long long)qb.events);
    put_ids(f, "integral", qb.integral, qb.nbins * qb.nqueues);
    put_ids(f, "max", qb.max, qb.nbins * qb.nqueues);
    qpyr_bins_free(&qb);
    fclose(f);
    return out;
}

/* rows of the built tables stored in the file (main, not a read's copy) */
static int64_t stored_rows(db *d) {
    int64_t n = 0;
    for (size_t i = 0; i < NBUILT; i++) {
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM main.%s", built[i]);
        n += tdb_scalar(d, sql);
    }
    return n;
}

static int entered, left;
static bool gate_shut(void) { return false; }
static bool gate_open(void) { entered++; return true; }
static void gate_leave(void) { left++; }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_lazy_builds_never_wait(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "lazy"), 0);
    char exp[DB_SLUG_SIZE], slug[DB_SLUG_SIZE], err[512];
    assert_int_equal(
        db_create_experiment(t.d, "x", NULL, "import", NULL, NULL, exp, err, sizeof err), 0);
    trace tr;
    build(&tr);
    assert_int_equal(db_store_run(t.d, exp, NULL, &tr, slug, err, sizeof err), 0);
    trace_free(&tr);
    /* a run stored before occupancy pyramids: built on its first read too */
    assert_int_equal(sqlite3_exec(db_handle(t.d),
                                  "DELETE FROM pyramid_tiles; DELETE FROM pyramids; "
                                  "DELETE FROM kernel_tiles; DELETE FROM kernel_pyramids",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(stored_rows(t.d), 0);

    /* another connection (another process, for all SQLite knows) writes */
    db *other;
    assert_int_equal(db_open(t.path, &other, err, sizeof err), 0);
    assert_int_equal(db_begin(other, err, sizeof err), 0);
    double t0 = now_s();
    char *locked = answers(t.d, slug);
    assert_true(now_s() - t0 < 5);   /* never SQLite's busy wait (30 s) */
    assert_int_equal(stored_rows(t.d), 0);
    db_rollback(other);
    db_close(other);
    /* the copies hide the stored tables until dropped */
    assert_true(tdb_scalar(t.d, "SELECT count(*) FROM temp.sqlite_schema") > 0);
    db_drop_scratch(t.d);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM temp.sqlite_schema"), 0);

    /* the gate (serve's write lock) is held: nothing stored either */
    db_set_build_gate(gate_shut, gate_leave);
    char *gated = answers(t.d, slug);
    assert_string_equal(gated, locked);
    assert_int_equal(left, 0);
    assert_int_equal(stored_rows(t.d), 0);
    /* the next read of the same build drops the copy first, and builds again */
    char *again = answers(t.d, slug);
    assert_string_equal(again, locked);
    db_drop_scratch(t.d);

    /* a read-only connection cannot store them */
    db *ro;
    assert_int_equal(db_open_readonly(t.path, &ro, err, sizeof err), 0);
    char *readonly = answers(ro, slug);
    assert_string_equal(readonly, locked);
    db_close(ro);
    assert_int_equal(stored_rows(t.d), 0);

    /* the gate open: each build stored once, under the gate, and the same
     * answers from the stored rows */
    db_set_build_gate(gate_open, gate_leave);
    char *stored = answers(t.d, slug);
    assert_string_equal(stored, locked);
    assert_true(entered >= 5);
    assert_int_equal(entered, left);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM temp.sqlite_schema"), 0);
    for (size_t i = 0; i < NBUILT; i++) {
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM main.%s", built[i]);
        if (tdb_scalar(t.d, sql) == 0) fail_msg("%s: nothing stored", built[i]);
    }
    int was = entered;
    char *read = answers(t.d, slug);
    assert_string_equal(read, locked);
    assert_int_equal(entered, was);   /* nothing left to build */
    db_set_build_gate(NULL, NULL);
    free(locked);
    free(gated);
    free(again);
    free(readonly);
    free(stored);
    free(read);
    tdb_close(&t);
}

/* dbi_build_once's rules on a table of the test's own, lz (a UNIQUE
 * index on v): look counts lz's rows with k = 1; build inserts `rows`. */
typedef struct lz {
    int looks, builds, has_from;   /* look says "has" from its has_from-th call on (0: never) */
    const char *rows;
} lz;

static int lz_look(db *d, void *ctx, bool *has, char *err, size_t errlen) {
    lz *z = ctx;
    z->looks++;
    if (z->has_from) {
        *has = z->looks >= z->has_from;
        return 0;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db_handle(d), "SELECT count(*) FROM lz WHERE k = 1", -1, &st, NULL)) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db_handle(d)));
        return -1;
    }
    *has = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    return 0;
}

static int lz_build(db *d, void *ctx, char *err, size_t errlen) {
    lz *z = ctx;
    z->builds++;
    char sql[128];
    snprintf(sql, sizeof sql, "INSERT INTO lz(k, v) VALUES %s", z->rows);
    if (sqlite3_exec(db_handle(d), sql, NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db_handle(d)));
        return -1;
    }
    return 0;
}

static const char *const lz_tables[] = {"lz", NULL};

static int once(db *d, lz *z, const char *const *tables, char *err, size_t errlen) {
    return dbi_build_once(d, "lz_build", tables, lz_look, lz_build, z, err, errlen);
}

static void test_build_once_rules(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "lazyrules"), 0);
    char err[512];
    assert_int_equal(sqlite3_exec(db_handle(t.d),
                                  "CREATE TABLE lz(k INTEGER PRIMARY KEY, v TEXT);"
                                  "CREATE UNIQUE INDEX lz_v ON lz(v)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    db *other;
    assert_int_equal(db_open(t.path, &other, err, sizeof err), 0);

    /* another connection holds the write lock: a copy for this read, whose
     * UNIQUE index is copied too; a failed copy build takes its table back */
    assert_int_equal(db_begin(other, err, sizeof err), 0);
    lz dup = {.rows = "(1, 'a'), (2, 'a')"};
    assert_int_equal(once(t.d, &dup, lz_tables, err, sizeof err), -1);
    assert_non_null(strstr(err, "UNIQUE constraint failed"));
    assert_int_equal(t.d->nscratch, 0);
    lz z = {.rows = "(1, 'a')"};
    assert_int_equal(once(t.d, &z, lz_tables, err, sizeof err), 0);
    assert_int_equal(z.builds, 1);
    assert_int_equal(t.d->nscratch, 1);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM lz"), 1);        /* the copy */
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM main.lz"), 0);
    /* a table that is not there, and more tables than a connection copies */
    static const char *const nosuch[] = {"nosuch", NULL};
    lz n = {.rows = "(1, 'a')", .has_from = 100};   /* look: never there */
    assert_int_equal(once(t.d, &n, nosuch, err, sizeof err), -1);
    char want[1200];
    snprintf(want, sizeof want, "%s: no table nosuch to build into", t.path);
    assert_string_equal(err, want);
    assert_int_equal(t.d->nscratch, 1);   /* lz's copy is another build's: kept */
    const char *many[DBI_SCRATCH_MAX + 2];
    for (int i = 0; i <= DBI_SCRATCH_MAX; i++) many[i] = "lz";
    many[DBI_SCRATCH_MAX + 1] = NULL;
    assert_int_equal(once(t.d, &n, many, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: a build for one read: %d tables to copy", t.path,
             DBI_SCRATCH_MAX + 1);
    assert_string_equal(err, want);
    assert_int_equal(n.builds, 0);
    /* the gate open, the lock still the other's: the gate is left again */
    db_set_build_gate(gate_open, gate_leave);
    entered = left = 0;
    lz g = {.rows = "(1, 'a')"};
    assert_int_equal(once(t.d, &g, lz_tables, err, sizeof err), 0);
    assert_int_equal(entered, 1);
    assert_int_equal(left, 1);
    db_set_build_gate(NULL, NULL);
    db_rollback(other);
    /* a write (db_begin) drops the copies: the stored table again */
    assert_int_equal(db_begin(t.d, err, sizeof err), 0);
    assert_int_equal(t.d->nscratch, 0);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM lz"), 0);
    db_rollback(t.d);

    /* a read-only connection builds a copy, without asking for the lock */
    db *ro;
    assert_int_equal(db_open_readonly(t.path, &ro, err, sizeof err), 0);
    lz r = {.rows = "(1, 'a')"};
    if (once(ro, &r, lz_tables, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(ro->nscratch, 1);
    db_close(ro);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM main.lz"), 0);

    /* the lock taken, it looks again: what another writer built meanwhile
     * is not built twice */
    lz late = {.rows = "(1, 'a')", .has_from = 2};
    assert_int_equal(once(t.d, &late, lz_tables, err, sizeof err), 0);
    assert_int_equal(late.builds, 0);
    assert_int_equal(late.looks, 3);
    /* stored, and found by the next read */
    lz s = {.rows = "(1, 'a')"};
    assert_int_equal(once(t.d, &s, lz_tables, err, sizeof err), 0);
    assert_int_equal(s.builds, 1);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM main.lz"), 1);
    assert_int_equal(once(t.d, &s, lz_tables, err, sizeof err), 0);
    assert_int_equal(s.builds, 1);
    db_close(other);
    tdb_close(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy_builds_never_wait),
        cmocka_unit_test(test_build_once_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
