/* test_qpyramid.c -- the queue-length pyramid (db/qpyramid.h, issue 9):
 * every level's bins of random runs equal the same bins computed straight
 * from the stored queue_events rows by an independent replay (a multiset of
 * items per queue: a dequeue shortens its queue only when it holds the
 * item), a level above the stored top and a window finer than z0 included;
 * the pyramid is built on the first binned read, stored, and built again
 * identically when its rows are gone (a run stored before it existed). */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "../../db/db.h"
#include "../../db/qpyramid.h"
#include "../../simcore/trace.h"
#include "test_db_util.h"

typedef tdb_exp fixture;

static uint64_t rng(uint64_t *s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* ---- the reference: the stored rows, replayed per bin ----------------------------- */

typedef struct ev { int64_t t, q, item; int op; } ev;
typedef struct ref {
    ev *e;
    size_t n;
    int64_t qid[16];   /* strings.id of queue i, in order of first event */
    size_t nq;
} ref;

static void ref_load(fixture *f, const char *slug, ref *r) {
    memset(r, 0, sizeof *r);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(f->t.d),
                                        "SELECT e.t, e.queue, e.item, e.event FROM queue_events e "
                                        "JOIN runs r ON r.id = e.run WHERE r.slug = ?1 "
                                        "ORDER BY e.t, e.seq", -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, slug, -1, SQLITE_STATIC);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (r->n == cap) r->e = realloc(r->e, (cap = cap * 2 + 64) * sizeof *r->e);
        ev *e = &r->e[r->n++];
        e->t = sqlite3_column_int64(st, 0);
        e->q = sqlite3_column_int64(st, 1);
        e->item = sqlite3_column_int64(st, 2);
        e->op = sqlite3_column_int(st, 3);
        size_t i = 0;
        while (i < r->nq && r->qid[i] != e->q) i++;
        if (i == r->nq) { assert_true(r->nq < 16); r->qid[r->nq++] = e->q; }
    }
    sqlite3_finalize(st);
}

/* integral and max of queue qi's length over [a, b), replaying every event
 * from the start: the length at time T is the one after all events at or
 * before T, so only the length after the last event of a time is seen */
static void ref_bin(const ref *r, size_t qi, int64_t a, int64_t b, int64_t *integ, int64_t *mx) {
    int64_t items[4096];
    size_t n = 0, i = 0;
    int64_t cur = 0, pos = a;
    bool in = false;
    *integ = 0;
    while (i < r->n) {
        int64_t T = r->e[i].t;
        for (; i < r->n && r->e[i].t == T; i++) {   /* the events of time T */
            const ev *e = &r->e[i];
            if (e->q != r->qid[qi]) continue;
            if (e->op == TRACE_ENQUEUE) items[n++] = e->item;
            else
                for (size_t j = 0; j < n; j++)
                    if (items[j] == e->item) { memmove(items + j, items + j + 1, (n - j - 1) * sizeof *items); n--; break; }
        }
        if (T <= a) { cur = (int64_t)n; continue; }
        if (!in) *mx = cur, in = true;
        if (T >= b) break;
        *integ += cur * (T - pos);
        pos = T;
        cur = (int64_t)n;
        if (cur > *mx) *mx = cur;
    }
    if (!in) *mx = cur;
    *integ += cur * (b - pos);
}

/* bins of window [from, to) with `want` bins against the reference; the
 * level read must be `z` */
static void check_window(fixture *f, const char *slug, const ref *r, int64_t from, int64_t to,
                         int64_t want, int z) {
    qpyr_bins b;
    char err[256];
    int rc = db_qpyramid_bins(f->t.d, slug, from, to, want, &b, err, sizeof err);
    if (rc) fail_msg("%s", err);
    assert_int_equal(b.z, z);
    assert_int_equal(b.bin_ns, (int64_t)1 << z);
    assert_int_equal(b.nqueues, r->nq);
    int64_t w = (int64_t)1 << z;
    assert_true(b.k0 * w <= from && (b.k0 + 1) * w > from);
    assert_true((b.k0 + (int64_t)b.nbins) * w >= to && (b.k0 + (int64_t)b.nbins - 1) * w < to);
    int64_t events = 0;
    for (size_t i = 0; i < r->n; i++) events += r->e[i].t >= from && r->e[i].t < to;
    assert_int_equal(b.events, events);
    for (size_t q = 0; q < b.nqueues; q++)
        for (size_t i = 0; i < b.nbins; i++) {
            int64_t a = (b.k0 + (int64_t)i) * w, integ, mx;
            ref_bin(r, q, a, a + w, &integ, &mx);
            if (b.integral[q * b.nbins + i] != integ || b.max[q * b.nbins + i] != mx)
                fail_msg("%s z=%d queue %zu bin %lld: pyramid (%lld, %lld), events (%lld, %lld)",
                         slug, z, q, (long long)(b.k0 + (int64_t)i),
                         (long long)b.integral[q * b.nbins + i], (long long)b.max[q * b.nbins + i],
                         (long long)integ, (long long)mx);
        }
    qpyr_bins_free(&b);
}

/* A random run: nq queues, n events over [0, span), ties, stray dequeues. */
static void random_trace(trace *t, uint64_t *s, size_t nq, size_t n, int64_t span) {
    trace_init(t);
    char name[32];
    trace_str qn[8], it[64];
    for (size_t q = 0; q < nq; q++) snprintf(name, sizeof name, "queue %zu", q), qn[q] = trace_intern(t, name);
    for (size_t i = 0; i < 64; i++) snprintf(name, sizeof name, "item %zu", i), it[i] = trace_intern(t, name);
    int64_t now = 0;
    for (size_t i = 0; i < n; i++) {
        if (rng(s) % 4) now += (int64_t)(rng(s) % (uint64_t)(2 * span / (int64_t)n + 1));
        if (now >= span) now = span - 1;
        trace_add_queue_event(t, now, qn[rng(s) % nq], it[rng(s) % 64],
                              rng(s) % 5 < 3 ? TRACE_ENQUEUE : TRACE_DEQUEUE);
    }
}

static int64_t qrows(fixture *f, const char *table, const char *slug) {
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s x JOIN runs r ON r.id = x.run WHERE r.slug = '%s'",
             table, slug);
    return tdb_scalar(f->t.d, sql);
}

static void levels_of(fixture *f, const char *slug, int *z0, int *ztop) {
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT z0 FROM queue_pyramids p JOIN runs r ON r.id = p.run WHERE r.slug = '%s'", slug);
    *z0 = (int)tdb_scalar(f->t.d, sql);
    snprintf(sql, sizeof sql, "SELECT ztop FROM queue_pyramids p JOIN runs r ON r.id = p.run WHERE r.slug = '%s'", slug);
    *ztop = (int)tdb_scalar(f->t.d, sql);
}

/* The levels qpyramid.h says are stored, from the events: z0 the finest
 * at which all queues' bins of the event span fit in QPYR_MAX_CELLS and in
 * the steps (one a queue and time) + 64 x the queues; ztop the first at
 * which that span is one bin. */
static void want_levels(const ref *r, int *z0, int *ztop) {
    size_t steps = 0;
    for (size_t i = 0; i < r->n; i++) {
        bool seen = false;   /* an earlier event of the same queue at the same time */
        for (size_t j = i; j-- > 0 && r->e[j].t == r->e[i].t;) seen |= r->e[j].q == r->e[i].q;
        steps += !seen;
    }
    size_t cells = steps + 64 * r->nq;
    if (cells > QPYR_MAX_CELLS) cells = QPYR_MAX_CELLS;
    int64_t t0 = r->e[0].t, t1 = r->e[r->n - 1].t;
    int z = 0;
    while (z < QPYR_MAX_Z && (size_t)((t1 >> z) - (t0 >> z) + 1) * r->nq > cells) z++;
    *z0 = z;
    while (z < QPYR_MAX_Z && (t1 >> z) != (t0 >> z)) z++;
    *ztop = z;
}

/* every level z0 .. ztop + 2, windows at random places, and finer ones */
static void check_levels(fixture *f, const char *slug, uint64_t *s) {
    ref r;
    ref_load(f, slug, &r);
    int z0, ztop, wz0, wztop;
    levels_of(f, slug, &z0, &ztop);
    assert_true(z0 <= ztop);
    want_levels(&r, &wz0, &wztop);
    assert_int_equal(z0, wz0);
    assert_int_equal(ztop, wztop);
    int64_t t1 = r.e[r.n - 1].t;
    for (int z = z0; z <= ztop + 2; z++)
        for (int k = 0; k < 3; k++) {
            int64_t want = 1 + (int64_t)(rng(s) % 40);
            int64_t from = (int64_t)(rng(s) % (uint64_t)(t1 + 2)) - ((int64_t)1 << z) / 2;
            check_window(f, slug, &r, from, from + want * ((int64_t)1 << z), want, z);
        }
    /* a window finer than z0 is answered at z0 */
    check_window(f, slug, &r, t1 / 3, t1 / 3 + 5, 100, z0);
    free(r.e);
}

static void test_random_runs(void **state) {
    fixture *f = *state;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    /* spans from a few ns (z0 = 0) to 2^30 ns (z0 well above 0) */
    static const int64_t spans[] = {40, 5000, 300000, (int64_t)1 << 30};
    for (int i = 0; i < 8; i++) {
        trace t;
        random_trace(&t, &s, 1 + (size_t)(rng(&s) % 5), 50 + (size_t)(rng(&s) % 400), spans[i % 4]);
        char slug[DB_SLUG_SIZE], err[256], name[16];
        snprintf(name, sizeof name, "r%d", i);
        if (db_store_run(f->t.d, f->exp, name, &t, slug, err, sizeof err)) fail_msg("%s", err);
        trace_free(&t);
        /* built by the first binned read, not by the store */
        assert_int_equal(qrows(f, "queue_pyramids", slug), 0);
        qpyr_bins b;
        assert_int_equal(db_qpyramid_bins(f->t.d, slug, 0, 1000, 10, &b, err, sizeof err), 0);
        qpyr_bins_free(&b);
        assert_int_equal(qrows(f, "queue_pyramids", slug), 1);
        check_levels(f, slug, &s);
        if (i % 4 == 3) {
            int z0, ztop;
            levels_of(f, slug, &z0, &ztop);
            assert_true(z0 > 0);   /* the 2^30 span does not fit 2^18 cells at 1 ns */
        }
    }
}

/* a hand-made run: exact numbers */
static void test_exact(void **state) {
    fixture *f = *state;
    trace t;
    trace_init(&t);
    trace_str q = trace_intern(&t, "EE"), a = trace_intern(&t, "a"), b = trace_intern(&t, "b");
    trace_add_queue_event(&t, 2, q, a, TRACE_ENQUEUE);   /* 1 from 2 */
    trace_add_queue_event(&t, 3, q, b, TRACE_ENQUEUE);   /* 2 from 3 */
    trace_add_queue_event(&t, 5, q, a, TRACE_DEQUEUE);   /* 1 from 5 */
    trace_add_queue_event(&t, 5, q, b, TRACE_ENQUEUE);   /* 2 from 5 */
    trace_add_queue_event(&t, 9, q, b, TRACE_DEQUEUE);   /* 1 from 9 */
    char slug[DB_SLUG_SIZE], err[256];
    if (db_store_run(f->t.d, f->exp, "x", &t, slug, err, sizeof err)) fail_msg("%s", err);
    trace_free(&t);
    qpyr_bins bb;
    /* [0, 16) in 4 bins of 4 ns: [0,4): 1 + 2 = 3 item-ns, max 2; [4,8): 2*4,
     * max 2 (1 between the two events at 5 lasts no time); [8,12): 2 + 3,
     * max 2; [12,16): 4, max 1 (the last length holds) */
    assert_int_equal(db_qpyramid_bins(f->t.d, slug, 0, 16, 4, &bb, err, sizeof err), 0);
    assert_int_equal(bb.z, 2);
    assert_int_equal(bb.k0, 0);
    assert_int_equal(bb.nbins, 4);
    assert_int_equal(bb.nqueues, 1);
    assert_string_equal(bb.names[0], "EE");
    assert_int_equal(bb.events, 5);
    const int64_t integ[] = {3, 8, 5, 4}, mx[] = {2, 2, 2, 1};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(bb.integral[i], integ[i]);
        assert_int_equal(bb.max[i], mx[i]);
    }
    qpyr_bins_free(&bb);
    assert_int_equal(db_qpyramid_bins(f->t.d, "nosuchrun", 0, 16, 4, &bb, err, sizeof err), DB_NOT_FOUND);
}

/* a run stored before queue pyramids: built on its first read, the same */
static void test_lazy(void **state) {
    fixture *f = *state;
    uint64_t s = 77;
    trace t;
    random_trace(&t, &s, 3, 300, 100000);
    char slug[DB_SLUG_SIZE], err[256];
    if (db_store_run(f->t.d, f->exp, "old", &t, slug, err, sizeof err)) fail_msg("%s", err);
    trace_free(&t);
    qpyr_bins b;
    assert_int_equal(db_qpyramid_bins(f->t.d, slug, 0, 100, 10, &b, err, sizeof err), 0);
    qpyr_bins_free(&b);
    int64_t nbins = qrows(f, "queue_bins", slug);
    assert_true(nbins > 3);
    char sql[256];
    snprintf(sql, sizeof sql, "DELETE FROM queue_bins WHERE run = (SELECT id FROM runs WHERE slug = '%s');"
             "DELETE FROM queue_pyramids WHERE run = (SELECT id FROM runs WHERE slug = '%s')", slug, slug);
    assert_int_equal(sqlite3_exec(db_handle(f->t.d), sql, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(qrows(f, "queue_pyramids", slug), 0);
    assert_int_equal(db_qpyramid_bins(f->t.d, slug, 0, 100000, 10, &b, err, sizeof err), 0);
    assert_int_equal(b.nqueues, 3);
    qpyr_bins_free(&b);
    assert_int_equal(qrows(f, "queue_pyramids", slug), 1);
    check_levels(f, slug, &s);
    assert_int_equal(qrows(f, "queue_pyramids", slug), 1);
    assert_int_equal(qrows(f, "queue_bins", slug), nbins);
    /* a damaged blob (a varint cut short) is an error naming it, not bins */
    snprintf(sql, sizeof sql, "UPDATE queue_bins SET bins = x'0280' WHERE queue = 1 AND run = "
             "(SELECT id FROM runs WHERE slug = '%s')", slug);
    assert_int_equal(sqlite3_exec(db_handle(f->t.d), sql, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(db_qpyramid_bins(f->t.d, slug, 0, 100000, 10, &b, err, sizeof err), -1);
    /* the level read: 2^14 * 10 >= 100000, within the stored z0..ztop */
    int z0, ztop;
    levels_of(f, slug, &z0, &ztop);
    int zs = 14 < z0 ? z0 : 14;
    if (zs > ztop) zs = ztop;
    char want[300];
    snprintf(want, sizeof want, "%s: queue_bins: run %lld queue 1 level %d: damaged bins", f->t.path,
             (long long)tdb_scalar(f->t.d, "SELECT max(id) FROM runs"), zs);
    assert_string_equal(err, want);
}

/* no queue events: no queues, no rows but the run's */
static void test_empty(void **state) {
    fixture *f = *state;
    trace t;
    trace_init(&t);
    char slug[DB_SLUG_SIZE], err[256];
    if (db_store_run(f->t.d, f->exp, "empty", &t, slug, err, sizeof err)) fail_msg("%s", err);
    trace_free(&t);
    qpyr_bins b;
    assert_int_equal(db_qpyramid_bins(f->t.d, slug, 0, 1000, 10, &b, err, sizeof err), 0);
    assert_int_equal(b.nqueues, 0);
    assert_int_equal(b.events, 0);
    qpyr_bins_free(&b);
    assert_int_equal(qrows(f, "queue_bins", slug), 0);
    assert_int_equal(db_qpyramid_bins(f->t.d, slug, 10, 10, 10, &b, err, sizeof err), -1);
    assert_string_equal(err, "queue bins: need from < to and bins >= 1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_exact, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_random_runs, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_lazy, tdb_exp_setup, tdb_exp_teardown),
        cmocka_unit_test_setup_teardown(test_empty, tdb_exp_setup, tdb_exp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
