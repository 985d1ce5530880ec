/* test_db.c -- the SQLite store: exact roundtrip, atomic stores, streamed
 * stores (db_run_writer), the window scan and its query plan, occupancy
 * bins, queue state, migrations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../db/bpage.h"
#include "../../db/db.h"
#include "../../db/fidelity_db.h"
#include "../../db/sweep.h"
#include "test_db_util.h"

/* cmocka's assert_float_equal compares floats; occupancy is a double */
#define assert_near(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-9)

typedef struct fixture {
    tdb t;                      /* the throw-away database */
    db *d;                      /* = t.d */
    char exp[DB_SLUG_SIZE];
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f || tdb_open(&f->t, "db")) return -1;
    f->d = f->t.d;
    char err[256];
    if (db_create_experiment(f->d, "exp", "described", "scenario", "fig3.json", "{\"a\":1}",
                             f->exp, err, sizeof err))
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

/* Rows of `table`; "blocks" counts the blocks in the run's block pages
 * (db/bpage.h), where blocks are stored. */
static int64_t count_rows(db *d, const char *table) {
    char sql[96];
    if (strcmp(table, "blocks") == 0)
        snprintf(sql, sizeof sql, "SELECT coalesce(sum(n), 0) FROM block_pages");
    else
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    return tdb_scalar(d, sql);
}

/* A trace that uses every field, unknowns included. */
static void build_full(trace *t) {
    trace_init(t);
    trace_set_name(t, "full trace");
    trace_set_source(t, "simulation");
    t->origin = 123456789;
    t->has_device = true;
    snprintf(t->device.name, sizeof t->device.name, "tx2");
    t->device.sms = 2;
    t->device.threads_per_sm = 2048;
    t->device.max_threads_per_block = 1024;
    t->device.blocks_per_sm = 32;
    t->device.warps_per_sm = 64;
    t->device.regs_per_sm = 65536;
    t->device.max_regs_per_block = 32768;
    t->device.smem_per_sm = 65536;
    t->device.max_smem_per_block = 49152;
    t->device.warp_size = 32;
    t->device.schedulers_per_sm = 4;
    t->device.copy_engines = 1;
    t->device.copy_bandwidth = 12.5e9;
    t->device.clock_hz = 1300000000;
    t->device.sm_order_kind = SIM_SM_ORDER_EXPLICIT;
    t->device.sm_order[0] = 1;
    t->device.sm_order[1] = 0;
    trace_set_meta(t, "origin_ns", "42");
    trace_set_meta(t, "tool", "unit");

    trace_kernel *k = trace_add_kernel(t);
    k->name = trace_intern(t, "K1");
    k->raw_name = trace_intern(t, "_Z2K1v");
    k->stream = trace_intern(t, "S1");
    k->process = trace_intern(t, "P0");
    k->priority = -1;
    k->threads = 768;
    k->issue = 0;
    k->first_block = 10;
    k->fully_dispatched = 20;
    k->end = 1000;
    k->blocks = 6;
    k->smem = 4096;
    k->regs = 32;
    k->grid[0] = 6; k->grid[1] = 1; k->grid[2] = 1;
    k->block[0] = 768; k->block[1] = 1; k->block[2] = 1;
    k = trace_add_kernel(t);            /* all unknown */
    k->name = trace_intern(t, "K2");

    trace_block *b = trace_add_block(t);
    *b = (trace_block){.kernel = 0, .index = 5, .sm = 1, .start = 10, .end = 500};
    b = trace_add_block(t);
    *b = (trace_block){.kernel = 0, .index = 4, .sm = 0, .start = 20, .end = 1000};

    trace_copy *c = trace_add_copy(t);
    c->name = trace_intern(t, "C1");
    c->stream = trace_intern(t, "S1");
    c->process = trace_intern(t, "P0");
    c->direction = TRACE_COPY_D2H;
    c->engine = 1;
    c->bytes = 268435456;
    c->issue = 5;
    c->start = 6;
    c->end = 7;
    trace_add_copy(t);                   /* all unknown */

    trace_add_queue_event(t, 0, trace_intern(t, "stream:P0/S1"), trace_intern(t, "K1"),
                          TRACE_ENQUEUE);
    trace_add_queue_event(t, 10, trace_intern(t, "stream:P0/S1"), trace_intern(t, "K1"),
                          TRACE_DEQUEUE);
    trace_warp_issue *w = trace_add_warp_issue(t);
    *w = (trace_warp_issue){.sm = 1, .subcore = 3, .warp = 17, .kernel = 0, .cycle = 99};
    trace_job *j = trace_add_job(t);
    j->task = trace_intern(t, "tau1");
    j->job = 3;
    j->release = 100;
    j->start = 110;
    j->end = 190;
    j->deadline = 200;
    trace_add_job(t);                    /* unknown times */
    assert_false(t->oom);
}

static void assert_str(const trace *a, trace_str x, const trace *b, trace_str y) {
    const char *s = trace_str_get(a, x), *r = trace_str_get(b, y);
    if (!s || !r) assert_true(s == r);
    else assert_string_equal(s, r);
}

static void test_roundtrip(void **state) {
    fixture *f = *state;
    trace t, u;
    build_full(&t);
    /* and what build_full leaves out: a meta key set after the others that
     * sorts before them, a queue event recorded after a later one (an
     * import's order is kept), a warp epoch, a double field with a
     * fraction */
    trace_set_meta(&t, "a_last", "set third");
    trace_add_queue_event(&t, 5, trace_intern(&t, "stream:P0/S1"), trace_intern(&t, "K2"),
                          TRACE_ENQUEUE);
    *trace_add_warp_epoch(&t) = (trace_warp_epoch){.kernel = 0, .cycle = 1000, .cycles = 500,
                                                   .issues = 77};
    t.device.l1_sectors = 2.5;
    assert_false(t.oom);
    char err[256], slug[DB_SLUG_SIZE];
    assert_int_equal(db_store_run(f->d, f->exp, "default", &t, slug, err, sizeof err), 0);
    assert_int_equal(strlen(slug), DB_SLUG_LEN);
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_ALL, &u, err, sizeof err), 0);

    assert_string_equal(u.name, "full trace");
    assert_string_equal(u.source, "simulation");
    assert_int_equal(u.origin, 123456789);
    assert_true(u.has_device);
    assert_memory_equal(&u.device, &t.device, sizeof t.device);
    assert_int_equal(u.meta.n, 3);
    assert_string_equal(trace_get_meta(&u, "origin_ns"), "42");
    assert_string_equal(trace_get_meta(&u, "tool"), "unit");
    assert_string_equal(trace_str_get(&u, u.meta.v[2].key), "a_last");   /* in the order set */

    assert_int_equal(u.kernels.n, 2);
    for (size_t i = 0; i < 2; i++) {
        const trace_kernel *a = &t.kernels.v[i], *b = &u.kernels.v[i];
        assert_str(&t, a->name, &u, b->name);
        assert_str(&t, a->raw_name, &u, b->raw_name);
        assert_str(&t, a->stream, &u, b->stream);
        assert_str(&t, a->process, &u, b->process);
        assert_int_equal(a->priority, b->priority);
        assert_int_equal(a->threads, b->threads);
        assert_int_equal(a->issue, b->issue);
        assert_int_equal(a->first_block, b->first_block);
        assert_int_equal(a->fully_dispatched, b->fully_dispatched);
        assert_int_equal(a->end, b->end);
        assert_int_equal(a->blocks, b->blocks);
        assert_int_equal(a->smem, b->smem);
        assert_int_equal(a->regs, b->regs);
        assert_memory_equal(a->grid, b->grid, sizeof a->grid);
        assert_memory_equal(a->block, b->block, sizeof a->block);
    }
    assert_int_equal(u.kernels.v[1].priority, TRACE_PRIO_NONE);
    assert_int_equal(u.kernels.v[1].issue, TRACE_NONE);
    assert_int_equal(u.kernels.v[1].smem, TRACE_NONE);

    assert_int_equal(u.blocks.n, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(u.blocks.v[i].kernel, t.blocks.v[i].kernel);
        assert_int_equal(u.blocks.v[i].index, t.blocks.v[i].index);
        assert_int_equal(u.blocks.v[i].sm, t.blocks.v[i].sm);
        assert_int_equal(u.blocks.v[i].start, t.blocks.v[i].start);
        assert_int_equal(u.blocks.v[i].end, t.blocks.v[i].end);
    }
    assert_int_equal(u.copies.n, 2);
    for (size_t i = 0; i < 2; i++) {
        const trace_copy *a = &t.copies.v[i], *b = &u.copies.v[i];
        assert_str(&t, a->name, &u, b->name);
        assert_str(&t, a->stream, &u, b->stream);
        assert_str(&t, a->process, &u, b->process);
        assert_int_equal(a->direction, b->direction);
        assert_int_equal(a->engine, b->engine);
        assert_int_equal(a->bytes, b->bytes);
        assert_int_equal(a->issue, b->issue);
        assert_int_equal(a->start, b->start);
        assert_int_equal(a->end, b->end);
    }
    assert_int_equal(u.copies.v[1].engine, -1);
    assert_int_equal(u.copies.v[1].bytes, TRACE_NONE);
    assert_int_equal(u.queue_events.n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(u.queue_events.v[i].t, t.queue_events.v[i].t);
        assert_int_equal(u.queue_events.v[i].event, t.queue_events.v[i].event);
        assert_str(&t, t.queue_events.v[i].queue, &u, u.queue_events.v[i].queue);
        assert_str(&t, t.queue_events.v[i].item, &u, u.queue_events.v[i].item);
    }
    assert_int_equal(u.warp_issues.n, 1);
    assert_int_equal(u.warp_issues.v[0].sm, 1);
    assert_int_equal(u.warp_issues.v[0].subcore, 3);
    assert_int_equal(u.warp_issues.v[0].warp, 17);
    assert_int_equal(u.warp_issues.v[0].kernel, 0);
    assert_int_equal(u.warp_issues.v[0].cycle, 99);
    assert_int_equal(u.warp_epochs.n, 1);
    assert_int_equal(u.warp_epochs.v[0].kernel, 0);
    assert_int_equal(u.warp_epochs.v[0].cycle, 1000);
    assert_int_equal(u.warp_epochs.v[0].cycles, 500);
    assert_int_equal(u.warp_epochs.v[0].issues, 77);
    assert_int_equal(u.jobs.n, 2);
    for (size_t i = 0; i < 2; i++) {
        const trace_job *a = &t.jobs.v[i], *b = &u.jobs.v[i];
        assert_str(&t, a->task, &u, b->task);
        assert_int_equal(a->job, b->job);
        assert_int_equal(a->release, b->release);
        assert_int_equal(a->start, b->start);
        assert_int_equal(a->end, b->end);
        assert_int_equal(a->deadline, b->deadline);
    }
    trace_free(&u);

    /* partial loads read only what was asked for */
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_KERNELS, &u, err, sizeof err), 0);
    assert_int_equal(u.kernels.n, 2);
    assert_int_equal(u.blocks.n, 0);
    assert_int_equal(u.copies.n, 0);
    assert_int_equal(u.warp_epochs.n, 0);   /* they come with the warp issues */
    assert_int_equal(u.jobs.n, 0);
    trace_free(&u);
    trace_free(&t);
}

/* build_full's trace with a host call: kernel record 0 launched at 3 */
static trace_host_call *kernel_call(trace *t) {
    build_full(t);
    trace_host_call *c = trace_add_host_call(t);
    c->kind = TRACE_CALL_KERNEL;
    c->record = 0;
    c->at = 3;
    return c;
}

/* The host's calls load alone when asked for (the dashboard's), and with
 * kernels and copies both (db.h DB_LOAD_HOST_CALLS) */
static void test_load_host_calls_alone(void **state) {
    fixture *f = *state;
    trace t, u;
    kernel_call(&t);
    char err[256], slug[DB_SLUG_SIZE];
    assert_int_equal(db_store_run(f->d, f->exp, "calls", &t, slug, err, sizeof err), 0);
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_HOST_CALLS, &u, err, sizeof err), 0);
    assert_int_equal(u.host_calls.n, 1);
    assert_int_equal(u.kernels.n, 0);
    trace_free(&u);
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_KERNELS, &u, err, sizeof err), 0);
    assert_int_equal(u.host_calls.n, 0);
    trace_free(&u);
    trace_free(&t);
}

/* A device row written by something else (a damaged or foreign file)
 * loads what is well formed: an SM order read entry by entry up to the
 * first that is not a number after a comma, and never more than
 * SIM_MAX_SMS entries (the field after sm_order stays as it was). */
static void test_damaged_device_row(void **state) {
    fixture *f = *state;
    trace t;
    build_full(&t);
    char err[256], slug[DB_SLUG_SIZE];
    assert_int_equal(db_store_run(f->d, f->exp, "damaged", &t, slug, err, sizeof err), 0);
    trace_free(&t);
    sqlite3 *h = db_handle(f->d);
    char sql[4096];
    static const struct {
        const char *order;
        int16_t want[3];
    } cases[] = { {"3,1,x,2", {3, 1, 0}}, {"3;1", {3, 0, 0}}, {"5,,6", {5, 0, 0}} };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(sql, sizeof sql, "UPDATE devices SET sm_order = '%s'", cases[i].order);
        assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
        trace u;
        trace_init(&u);
        assert_int_equal(db_load_run(f->d, slug, DB_LOAD_KERNELS, &u, err, sizeof err), 0);
        for (int j = 0; j < 3; j++) assert_int_equal(u.device.sm_order[j], cases[i].want[j]);
        trace_free(&u);
    }
    int n = snprintf(sql, sizeof sql, "UPDATE devices SET sm_order = '");
    for (int j = 0; j <= SIM_MAX_SMS; j++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, "%s%d", j ? "," : "", j < SIM_MAX_SMS ? j : 7);
    snprintf(sql + n, sizeof sql - (size_t)n, "'");
    assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    trace u;
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_KERNELS, &u, err, sizeof err), 0);
    assert_int_equal(u.device.sm_order[SIM_MAX_SMS - 1], SIM_MAX_SMS - 1);
    assert_int_equal(u.device.nsmem_carveouts, 0);
    trace_free(&u);
}

typedef struct run_seen {
    int n;
    db_run r;
    char slug[DB_SLUG_SIZE], name[32], exp[DB_SLUG_SIZE];
} run_seen;

static int on_run(void *ctx, const db_run *r) {
    run_seen *s = ctx;
    s->n++;
    s->r = *r;
    snprintf(s->slug, sizeof s->slug, "%s", r->slug);
    snprintf(s->name, sizeof s->name, "%s", r->name);
    snprintf(s->exp, sizeof s->exp, "%s", r->experiment);
    return 0;
}

typedef struct meta_seen {
    char keys[128];
} meta_seen;

static int on_meta(void *ctx, const char *key, const char *value) {
    (void)value;
    meta_seen *m = ctx;
    size_t n = strlen(m->keys);
    snprintf(m->keys + n, sizeof m->keys - n, "%s,", key);
    return 0;
}

static int stop_run(void *ctx, const db_run *r) {
    on_run(ctx, r);
    return 5;
}

/* host_calls (trace.h; db/host_calls.sql) are stored and loaded as the run
 * had them, with kernels and copies (a replay's, an export's load), so a
 * stored run's replay makes the same calls as the run; without them the
 * replay of a stored tx2-fig3-task-sync issued its held ops at their
 * recorded times (docs/trace-format.md, "host_calls"). */
static void test_host_calls_roundtrip(void **state) {
    fixture *f = *state;
    trace t, u;
    trace_host_call *c = kernel_call(&t);
    c->task = trace_intern(&t, "tau1");
    c = trace_add_host_call(&t);
    c->kind = TRACE_CALL_DEVICE_SYNC;
    c->name = trace_intern(&t, "Y");
    c->stream = trace_intern(&t, "S2");   /* a string no record has */
    c->process = trace_intern(&t, "P0");
    c->task = trace_intern(&t, "tau1");
    c->at = 4;
    c->issue = 5;
    c->end = 1000;
    c = trace_add_host_call(&t);
    c->kind = TRACE_CALL_COPY;
    c->record = 1;
    c->blocking = true;   /* at unknown */
    trace_set_meta(&t, "a_last", "set after origin_ns and tool");
    assert_false(t.oom);
    char err[256], slug[DB_SLUG_SIZE];
    assert_int_equal(db_store_run(f->d, f->exp, "calls", &t, slug, err, sizeof err), 0);
    /* the run's summary counts them; its meta keeps the order it was set in */
    run_seen rs = {0};
    assert_int_equal(db_get_run(f->d, slug, on_run, &rs, err, sizeof err), 0);
    assert_int_equal(rs.r.summary.host_calls, 3);
    meta_seen ms = {0};
    assert_int_equal(db_run_meta(f->d, slug, on_meta, &ms, err, sizeof err), 0);
    assert_string_equal(ms.keys, "origin_ns,tool,a_last,");
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_ALL, &u, err, sizeof err), 0);
    assert_int_equal(u.host_calls.n, 3);
    for (size_t i = 0; i < 3; i++) {
        const trace_host_call *x = &t.host_calls.v[i], *y = &u.host_calls.v[i];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->record, y->record);
        assert_str(&t, x->task, &u, y->task);
        assert_str(&t, x->name, &u, y->name);
        assert_str(&t, x->stream, &u, y->stream);
        assert_str(&t, x->process, &u, y->process);
        assert_int_equal(x->at, y->at);
        assert_int_equal(x->issue, y->issue);
        assert_int_equal(x->end, y->end);
        assert_int_equal(x->blocking, y->blocking);
    }
    trace_free(&u);
    /* they name kernels and copies: not loaded without both */
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_KERNELS, &u, err, sizeof err), 0);
    assert_int_equal(u.host_calls.n, 0);
    trace_free(&u);
    trace_free(&t);
}

static void test_summary_and_listing(void **state) {
    fixture *f = *state;
    trace t;
    build_full(&t);
    char err[256], slug[DB_SLUG_SIZE];
    assert_int_equal(db_store_run(f->d, f->exp, "most-room", &t, slug, err, sizeof err), 0);
    run_seen s = {0};
    assert_int_equal(db_get_run(f->d, slug, on_run, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.name, "most-room");
    assert_string_equal(s.exp, f->exp);
    assert_int_equal(s.r.summary.kernels, 2);
    assert_int_equal(s.r.summary.blocks, 2);
    assert_int_equal(s.r.summary.copies, 2);
    assert_int_equal(s.r.summary.queue_events, 2);
    assert_int_equal(s.r.summary.warp_issues, 1);
    assert_int_equal(s.r.summary.jobs, 2);
    assert_int_equal(s.r.summary.t_min, 0);
    assert_int_equal(s.r.summary.t_max, 1000);
    assert_int_equal(s.r.summary.sms, 2);
    assert_int_equal(s.r.summary.max_block_dur, 980);
    assert_true(s.r.has_device);
    assert_int_equal(s.r.device.threads_per_sm, 2048);

    assert_int_equal(s.r.summary.qos_kernels, 0);
    assert_true(isnan(s.r.summary.nonqos_throughput));   /* no kernel to average */
    assert_int_equal(s.r.version, 1);

    run_seen l = {0};
    assert_int_equal(db_list_runs(f->d, f->exp, on_run, &l, err, sizeof err), 0);
    assert_int_equal(l.n, 1);
    /* a second run, with QoS figures (db_store.c qos_add): two QoS kernels,
     * one met, and a non-QoS one at 0.25 of its isolated IPC */
    trace q;
    build_full(&q);
    for (size_t i = 0; i < q.kernels.n; i++) {
        q.kernels.v[i].ipc_isolated = 2;
        q.kernels.v[i].qos_goal = 0.5;
        q.kernels.v[i].qos_met = i == 0;
    }
    trace_kernel *nq = trace_add_kernel(&q);
    nq->ipc_isolated = 2;
    nq->ipc_shared = 0.5;
    char slug2[DB_SLUG_SIZE];
    assert_int_equal(db_store_run(f->d, f->exp, "qos", &q, slug2, err, sizeof err), 0);
    memset(&s, 0, sizeof s);
    assert_int_equal(db_get_run(f->d, slug2, on_run, &s, err, sizeof err), 0);
    assert_int_equal(s.r.summary.qos_kernels, 2);
    assert_int_equal(s.r.summary.qos_met, 1);
    assert_near(s.r.summary.nonqos_throughput, 0.25);
    /* listed in the order stored; a callback that says stop stops it */
    memset(&l, 0, sizeof l);
    assert_int_equal(db_list_runs(f->d, f->exp, on_run, &l, err, sizeof err), 0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.name, "qos");
    memset(&l, 0, sizeof l);
    assert_int_equal(db_list_runs(f->d, f->exp, stop_run, &l, err, sizeof err), 5);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.name, "most-room");
    trace_free(&q);
    assert_int_equal(db_get_run(f->d, "nosuchrun0", on_run, &l, err, sizeof err), DB_NOT_FOUND);
    assert_non_null(strstr(err, "nosuchrun0"));
    assert_int_equal(db_store_run(f->d, "nosuchexp0", "x", &t, slug, err, sizeof err),
                     DB_NOT_FOUND);
    assert_int_equal(count_rows(f->d, "runs"), 2);
    trace_free(&t);
}

static void test_failed_store_leaves_nothing(void **state) {
    fixture *f = *state;
    trace t;
    build_full(&t);
    for (int i = 0; i < 3; i++) {
        trace_block *b = trace_add_block(&t);
        *b = (trace_block){.kernel = 0, .index = i, .sm = 0, .start = 100, .end = 200};
    }
    t.blocks.v[3].end = 50;   /* blocks[3] ends before it starts */
    char err[256], slug[DB_SLUG_SIZE] = "x";
    assert_int_equal(db_store_run(f->d, f->exp, "bad", &t, slug, err, sizeof err), -1);
    assert_non_null(strstr(err, "blocks[3]"));
    assert_string_equal(slug, "");
    const char *tables[] = {"runs", "devices", "run_meta", "kernels", "blocks", "copies",
                            "queue_events", "warp_issues", "jobs"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        assert_int_equal(count_rows(f->d, tables[i]), 0);
    assert_int_equal(count_rows(f->d, "strings"), 0);

    /* a bad row inside a 64-row batch is still named exactly */
    trace big;
    trace_init(&big);
    trace_set_source(&big, "simulation");
    trace_add_kernel(&big)->threads = 32;
    for (int i = 0; i < 200; i++) {
        trace_block *b = trace_add_block(&big);
        *b = (trace_block){.kernel = 0, .index = i, .sm = 0, .start = i, .end = i + 10};
    }
    big.blocks.v[70].end = 0;
    assert_int_equal(db_store_run(f->d, f->exp, "big", &big, slug, err, sizeof err), -1);
    assert_non_null(strstr(err, "blocks[70]:"));
    assert_int_equal(count_rows(f->d, "blocks"), 0);
    assert_int_equal(count_rows(f->d, "kernels"), 0);
    big.blocks.v[70].end = 80;
    assert_int_equal(db_store_run(f->d, f->exp, "big", &big, slug, err, sizeof err), 0);
    trace u;
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_BLOCKS, &u, err, sizeof err), 0);
    assert_int_equal(u.blocks.n, 200);
    for (int i = 0; i < 200; i++) {
        assert_int_equal(u.blocks.v[i].index, i);
        assert_int_equal(u.blocks.v[i].start, i);
    }
    trace_free(&u);
    trace_free(&big);
    assert_int_equal(count_rows(f->d, "runs"), 1);

    /* inside an outer transaction the failure undoes only its own run */
    t.blocks.v[3].end = 250;
    assert_int_equal(db_begin(f->d, err, sizeof err), 0);
    assert_int_equal(db_store_run(f->d, f->exp, "good", &t, slug, err, sizeof err), 0);
    t.blocks.v[4].end = 0;
    assert_int_equal(db_store_run(f->d, f->exp, "bad", &t, slug, err, sizeof err), -1);
    assert_non_null(strstr(err, "blocks[4]"));
    assert_int_equal(db_commit(f->d, err, sizeof err), 0);
    assert_int_equal(count_rows(f->d, "runs"), 2);
    assert_int_equal(count_rows(f->d, "blocks"), 205);
    trace_free(&t);
}

/* ---- bulk stores: several multi-row batches and a tail in every table ---------- */

#define BULK_N 5000   /* not a multiple of any table's batch, so each has a tail */

/* Row i of every table; `tag` varies the strings between traces. Uses
 * exactly 26 distinct strings (bulk_strings) for rows, plus meta. */
static void build_bulk(trace *t, const char *tag) {
    char s[32];
    trace_init(t);
    trace_set_source(t, "simulation");
    trace_set_meta(t, "note", "a meta value no row uses");
    for (size_t i = 0; i < BULK_N; i++) {
        trace_kernel *k = trace_add_kernel(t);
        snprintf(s, sizeof s, "%s-K%zu", tag, i % 3);
        k->name = trace_intern(t, s);
        k->raw_name = i % 2 ? trace_intern(t, "_Z2Kav") : 0;
        snprintf(s, sizeof s, "S%zu", i % 4);
        k->stream = trace_intern(t, s);
        k->process = trace_intern(t, "P0");
        k->priority = i % 5 == 0 ? TRACE_PRIO_NONE : (int32_t)(i % 3) - 1;
        k->threads = 32 * (int32_t)(1 + i % 8);
        k->issue = i % 7 == 0 ? TRACE_NONE : (int64_t)i * 10;
        k->first_block = (int64_t)i * 10 + 1;
        k->fully_dispatched = (int64_t)i * 10 + 2;
        k->end = (int64_t)i * 10 + 9;
        k->blocks = (int64_t)i + 1;
        k->smem = i % 2 ? TRACE_NONE : (int64_t)i * 4;
        k->regs = (int32_t)(i % 64);
        for (int j = 0; j < 3; j++) {
            k->grid[j] = (int32_t)i + j;
            k->block[j] = (int32_t)i * 2 + j;
        }
        trace_block *b = trace_add_block(t);
        *b = (trace_block){.kernel = (int32_t)i, .index = (int32_t)(i * 3), .sm = (int32_t)(i % 4),
                           .start = (int64_t)i, .end = i % 11 ? (int64_t)i + 5 : TRACE_NONE};
        trace_copy *c = trace_add_copy(t);
        c->name = trace_intern(t, i % 2 ? "HtoD" : "DtoH");
        c->stream = trace_intern(t, "S1");
        c->process = i % 3 ? trace_intern(t, "P0") : 0;
        c->direction = (int32_t)(i % 2);
        c->engine = (int32_t)(i % 3) - 1;
        c->bytes = i % 13 ? (int64_t)i * 1024 : TRACE_NONE;
        c->issue = (int64_t)i;
        c->start = (int64_t)i + 1;
        c->end = (int64_t)i + 2;
        snprintf(s, sizeof s, "q%zu", i % 2);
        trace_str q = trace_intern(t, s);
        snprintf(s, sizeof s, "I%zu", i % 10);
        trace_add_queue_event(t, (int64_t)i, q, i % 17 ? trace_intern(t, s) : 0,
                              (trace_queue_op)(i % 2));
        trace_warp_issue *w = trace_add_warp_issue(t);
        *w = (trace_warp_issue){.sm = (int32_t)(i % 4), .subcore = (int32_t)(i % 4),
                                .warp = (int32_t)(i % 48), .kernel = (int32_t)i,
                                .cycle = (int64_t)i * 3};
        trace_job *jb = trace_add_job(t);
        snprintf(s, sizeof s, "tau%zu", i % 3);
        jb->task = trace_intern(t, s);
        jb->job = (int64_t)i;
        jb->release = (int64_t)i * 100;
        jb->start = i % 4 ? (int64_t)i * 100 + 5 : TRACE_NONE;
        jb->end = (int64_t)i * 100 + 50;
        jb->deadline = (int64_t)i * 100 + 90;
    }
    assert_false(t->oom);
}
/* K0..K2, _Z2Kav, S0..S3, P0, HtoD, DtoH, q0, q1, I0..I9, tau0..tau2 */
static const int64_t bulk_strings = 3 + 1 + 4 + 1 + 2 + 2 + 10 + 3;

static void assert_bulk_equal(const trace *t, const trace *u) {
    assert_int_equal(u->kernels.n, BULK_N);
    assert_int_equal(u->blocks.n, BULK_N);
    assert_int_equal(u->copies.n, BULK_N);
    assert_int_equal(u->queue_events.n, BULK_N);
    assert_int_equal(u->warp_issues.n, BULK_N);
    assert_int_equal(u->jobs.n, BULK_N);
    for (size_t i = 0; i < BULK_N; i++) {
        const trace_kernel *a = &t->kernels.v[i], *b = &u->kernels.v[i];
        assert_str(t, a->name, u, b->name);
        assert_str(t, a->raw_name, u, b->raw_name);
        assert_str(t, a->stream, u, b->stream);
        assert_str(t, a->process, u, b->process);
        assert_int_equal(a->priority, b->priority);
        assert_int_equal(a->threads, b->threads);
        assert_int_equal(a->issue, b->issue);
        assert_int_equal(a->first_block, b->first_block);
        assert_int_equal(a->fully_dispatched, b->fully_dispatched);
        assert_int_equal(a->end, b->end);
        assert_int_equal(a->blocks, b->blocks);
        assert_int_equal(a->smem, b->smem);
        assert_int_equal(a->regs, b->regs);
        assert_memory_equal(a->grid, b->grid, sizeof a->grid);
        assert_memory_equal(a->block, b->block, sizeof a->block);
        const trace_block *ba = &t->blocks.v[i], *bb = &u->blocks.v[i];
        assert_int_equal(ba->kernel, bb->kernel);
        assert_int_equal(ba->index, bb->index);
        assert_int_equal(ba->sm, bb->sm);
        assert_int_equal(ba->start, bb->start);
        assert_int_equal(ba->end, bb->end);
        const trace_copy *c = &t->copies.v[i], *e = &u->copies.v[i];
        assert_str(t, c->name, u, e->name);
        assert_str(t, c->stream, u, e->stream);
        assert_str(t, c->process, u, e->process);
        assert_int_equal(c->direction, e->direction);
        assert_int_equal(c->engine, e->engine);
        assert_int_equal(c->bytes, e->bytes);
        assert_int_equal(c->issue, e->issue);
        assert_int_equal(c->start, e->start);
        assert_int_equal(c->end, e->end);
        const trace_queue_event *q = &t->queue_events.v[i], *r = &u->queue_events.v[i];
        assert_int_equal(q->t, r->t);
        assert_int_equal(q->event, r->event);
        assert_str(t, q->queue, u, r->queue);
        assert_str(t, q->item, u, r->item);
        const trace_warp_issue *wa = &t->warp_issues.v[i], *wb = &u->warp_issues.v[i];
        assert_int_equal(wa->sm, wb->sm);
        assert_int_equal(wa->subcore, wb->subcore);
        assert_int_equal(wa->warp, wb->warp);
        assert_int_equal(wa->kernel, wb->kernel);
        assert_int_equal(wa->cycle, wb->cycle);
        const trace_job *j = &t->jobs.v[i], *k = &u->jobs.v[i];
        assert_str(t, j->task, u, k->task);
        assert_int_equal(j->job, k->job);
        assert_int_equal(j->release, k->release);
        assert_int_equal(j->start, k->start);
        assert_int_equal(j->end, k->end);
        assert_int_equal(j->deadline, k->deadline);
    }
    /* spot checks against literal values, not only against the input */
    assert_string_equal(trace_str_get(u, u->kernels.v[4].name), "a-K1");
    assert_null(trace_str_get(u, u->kernels.v[4].raw_name));
    assert_string_equal(trace_str_get(u, u->kernels.v[4999].raw_name), "_Z2Kav");
    assert_int_equal(u->kernels.v[4995].priority, TRACE_PRIO_NONE);
    assert_int_equal(u->blocks.v[4994].end, TRACE_NONE);
    assert_int_equal(u->blocks.v[4999].start, 4999);
    assert_null(trace_str_get(u, u->copies.v[4998].process));
    assert_null(trace_str_get(u, u->queue_events.v[4998].item));   /* 4998 = 17 * 294 */
    assert_string_equal(trace_str_get(u, u->queue_events.v[4999].item), "I9");
    assert_int_equal(u->warp_issues.v[4999].cycle, 14997);
}

static void test_bulk_roundtrip(void **state) {
    fixture *f = *state;
    char err[256], s1[DB_SLUG_SIZE], s2[DB_SLUG_SIZE];
    trace t, u;
    build_bulk(&t, "a");
    assert_int_equal(db_store_run(f->d, f->exp, "a", &t, s1, err, sizeof err), 0);
    trace_free(&t);   /* the cached statements must not read this trace again */
    build_bulk(&t, "b");
    assert_int_equal(db_store_run(f->d, f->exp, "b", &t, s2, err, sizeof err), 0);
    const char *tables[] = {"kernels", "blocks", "copies", "queue_events", "warp_issues", "jobs"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        assert_int_equal(count_rows(f->d, tables[i]), 2 * BULK_N);
    /* each run's strings once, the meta value not among them */
    assert_int_equal(count_rows(f->d, "strings"), 2 * bulk_strings);
    assert_int_equal(count_rows(f->d, "run_meta"), 2);

    trace_init(&u);
    assert_int_equal(db_load_run(f->d, s2, DB_LOAD_ALL, &u, err, sizeof err), 0);
    assert_string_equal(trace_get_meta(&u, "note"), "a meta value no row uses");
    assert_string_equal(trace_str_get(&u, u.kernels.v[0].name), "b-K0");
    trace_free(&u);
    trace_free(&t);
    build_bulk(&t, "a");
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, s1, DB_LOAD_ALL, &u, err, sizeof err), 0);
    assert_bulk_equal(&t, &u);
    trace_free(&u);
    trace_free(&t);
}

static void test_bulk_failure_names_row(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE] = "x";
    trace t;
    build_bulk(&t, "a");
    const char *tables[] = {"runs", "strings", "run_meta", "kernels", "blocks", "copies",
                            "queue_events", "warp_issues", "jobs"};

    /* a refused row deep inside a batch of blocks, then of queue events */
    t.blocks.v[1000].end = 0;
    assert_int_equal(db_store_run(f->d, f->exp, "bad", &t, slug, err, sizeof err), -1);
    assert_non_null(strstr(err, "blocks[1000]:"));
    assert_non_null(strstr(err, "CHECK"));
    assert_string_equal(slug, "");
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        assert_int_equal(count_rows(f->d, tables[i]), 0);
    t.blocks.v[1000].end = 1005;
    t.queue_events.v[1500].event = 2;
    assert_int_equal(db_store_run(f->d, f->exp, "bad", &t, slug, err, sizeof err), -1);
    assert_non_null(strstr(err, "queue_events[1500]:"));
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        assert_int_equal(count_rows(f->d, tables[i]), 0);
    /* the last row, in the tail stored one row at a time */
    t.queue_events.v[1500].event = TRACE_DEQUEUE;
    t.queue_events.v[BULK_N - 1].queue = 0;
    assert_int_equal(db_store_run(f->d, f->exp, "bad", &t, slug, err, sizeof err), -1);
    assert_non_null(strstr(err, "queue_events[4999]:"));
    assert_non_null(strstr(err, "NOT NULL"));
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        assert_int_equal(count_rows(f->d, tables[i]), 0);

    t.queue_events.v[BULK_N - 1].queue = trace_intern(&t, "q1");
    assert_int_equal(db_store_run(f->d, f->exp, "good", &t, slug, err, sizeof err), 0);
    assert_int_equal(count_rows(f->d, "runs"), 1);
    assert_int_equal(count_rows(f->d, "queue_events"), BULK_N);
    assert_int_equal(count_rows(f->d, "strings"), bulk_strings);
    trace u;
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_ALL, &u, err, sizeof err), 0);
    assert_bulk_equal(&t, &u);
    assert_int_equal(u.queue_events.v[1500].event, TRACE_DEQUEUE);
    trace_free(&u);
    trace_free(&t);
}

/* The edges of multi-row statements and of a table's tail (db_store.c,
 * store_table). queue_events take 5 columns: 409 rows a statement, so
 * BULK_N = 5000 ends in 12 * 409 = 4908 and a tail of 92 rows. A refused row
 * on either side of that edge and along the tail is named exactly, and
 * nothing is left; then every row of the tail comes back, in order. */
static void test_bulk_tail_edges(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE];
    trace t;
    build_bulk(&t, "a");
    static const size_t bad[] = {4907, 4908, 4971, 4972, 4987, 4988, 4995, 4996, 4999};
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
        trace_str keep = t.queue_events.v[bad[b]].queue;
        t.queue_events.v[bad[b]].queue = 0;
        assert_int_equal(db_store_run(f->d, f->exp, "bad", &t, slug, err, sizeof err), -1);
        char want[64];
        snprintf(want, sizeof want, "queue_events[%zu]: the database refused the row", bad[b]);
        if (!strstr(err, want) || !strstr(err, "NOT NULL")) fail_msg("%zu: %s", bad[b], err);
        assert_int_equal(count_rows(f->d, "queue_events"), 0);
        assert_int_equal(count_rows(f->d, "runs"), 0);
        t.queue_events.v[bad[b]].queue = keep;
    }
    assert_int_equal(db_store_run(f->d, f->exp, "good", &t, slug, err, sizeof err), 0);
    assert_int_equal(count_rows(f->d, "queue_events"), BULK_N);
    trace u;
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, slug, DB_LOAD_ALL, &u, err, sizeof err), 0);
    assert_bulk_equal(&t, &u);
    /* the tail's rows by literal value, not only against the input */
    assert_string_equal(trace_str_get(&u, u.queue_events.v[4999].item), "I9");
    for (size_t i = 4907; i < BULK_N; i++) {   /* queue event i is at time i */
        assert_int_equal(u.queue_events.v[i].t, (int64_t)i);
        assert_int_equal(u.queue_events.v[i].event, (int)(i % 2));
    }
    trace_free(&u);
    trace_free(&t);
}

/* ---- streamed stores: db_run_begin, db_run_add_blocks, db_run_finish -------- */

static const char *const all_tables[] = {"runs", "devices", "strings", "run_meta", "kernels",
                                         "blocks", "block_spans", "copies", "queue_events",
                                         "warp_issues", "jobs"};

static void assert_all_empty(db *d) {
    for (size_t i = 0; i < sizeof all_tables / sizeof *all_tables; i++)
        if (count_rows(d, all_tables[i]) != 0) fail_msg("table %s is not empty", all_tables[i]);
}

/* Everything of run `slug` as its runs row says it, against run `want`. */
static void assert_same_run_row(db *d, const char *slug, const char *want) {
    char err[256];
    run_seen a = {0}, b = {0};
    assert_int_equal(db_get_run(d, slug, on_run, &a, err, sizeof err), 0);
    assert_int_equal(db_get_run(d, want, on_run, &b, err, sizeof err), 0);
    assert_string_equal(a.name, b.name);
    assert_int_equal(a.r.origin, b.r.origin);
    assert_int_equal(a.r.has_device, b.r.has_device);
    assert_int_equal(a.r.summary.kernels, b.r.summary.kernels);
    assert_int_equal(a.r.summary.blocks, b.r.summary.blocks);
    assert_int_equal(a.r.summary.copies, b.r.summary.copies);
    assert_int_equal(a.r.summary.queue_events, b.r.summary.queue_events);
    assert_int_equal(a.r.summary.warp_issues, b.r.summary.warp_issues);
    assert_int_equal(a.r.summary.jobs, b.r.summary.jobs);
    assert_int_equal(a.r.summary.t_min, b.r.summary.t_min);
    assert_int_equal(a.r.summary.t_max, b.r.summary.t_max);
    assert_int_equal(a.r.summary.sms, b.r.summary.sms);
    assert_int_equal(a.r.summary.max_block_dur, b.r.summary.max_block_dur);
}

/* Stream the first `streamed` blocks of build_bulk("a") in batches of
 * `cuts` (cycled), then finish with a trace holding the rest. */
static void stream_bulk(fixture *f, size_t streamed, const size_t *cuts, size_t ncuts,
                        char slug[DB_SLUG_SIZE]) {
    char err[256];
    trace t;
    build_bulk(&t, "a");
    db_run_writer *w;
    assert_int_equal(db_run_begin(f->d, f->exp, "bulk", slug, &w, err, sizeof err), 0);
    assert_int_equal(strlen(slug), DB_SLUG_LEN);
    for (size_t at = 0, c = 0; at < streamed; c++) {
        size_t n = cuts[c % ncuts] < streamed - at ? cuts[c % ncuts] : streamed - at;
        if (db_run_add_blocks(w, t.blocks.v + at, n, err, sizeof err)) fail_msg("%s", err);
        at += n;
    }
    memmove(t.blocks.v, t.blocks.v + streamed, (BULK_N - streamed) * sizeof *t.blocks.v);
    t.blocks.n = BULK_N - streamed;
    if (db_run_finish(w, &t, err, sizeof err)) fail_msg("%s", err);
    trace_free(&t);
}

static void test_stream_equals_store(void **state) {
    fixture *f = *state;
    char err[256], whole[DB_SLUG_SIZE], part[DB_SLUG_SIZE], all[DB_SLUG_SIZE];
    trace t, u;
    build_bulk(&t, "a");
    assert_int_equal(db_store_run(f->d, f->exp, "bulk", &t, whole, err, sizeof err), 0);
    /* uneven batches: a single row, around one statement's 341 rows, more */
    static const size_t cuts[] = {1, 340, 341, 342, 683, 1293, 1000};
    stream_bulk(f, 4000, cuts, 7, part);       /* the last 1000 blocks come with the trace */
    static const size_t halves[] = {2500};
    stream_bulk(f, BULK_N, halves, 1, all);    /* every block streamed */
    assert_int_equal(count_rows(f->d, "runs"), 3);
    assert_int_equal(count_rows(f->d, "blocks"), 3 * BULK_N);
    assert_int_equal(count_rows(f->d, "strings"), 3 * bulk_strings);
    const char *slugs[] = {part, all};
    for (int i = 0; i < 2; i++) {
        trace_init(&u);
        assert_int_equal(db_load_run(f->d, slugs[i], DB_LOAD_ALL, &u, err, sizeof err), 0);
        assert_bulk_equal(&t, &u);
        assert_string_equal(trace_get_meta(&u, "note"), "a meta value no row uses");
        trace_free(&u);
        assert_same_run_row(f->d, slugs[i], whole);
    }
    /* the summary counts streamed blocks: sms and max_block_dur come from
     * blocks alone (no device), t_min from block 0 (kernel 0 has no issue) */
    run_seen r = {0};
    assert_int_equal(db_get_run(f->d, all, on_run, &r, err, sizeof err), 0);
    assert_int_equal(r.r.summary.blocks, BULK_N);
    assert_int_equal(r.r.summary.sms, 4);
    assert_int_equal(r.r.summary.max_block_dur, 5);
    assert_int_equal(r.r.summary.t_min, 0);
    assert_string_equal(r.name, "bulk");
    trace_free(&t);

    /* blocks only: the summary's times are the streamed blocks' */
    trace b;
    trace_init(&b);
    trace_set_name(&b, "named by the trace");
    trace_set_source(&b, "simulation");
    trace_kernel *k = trace_add_kernel(&b);
    k->threads = 32;
    db_run_writer *w;
    assert_int_equal(db_run_begin(f->d, f->exp, NULL, part, &w, err, sizeof err), 0);
    trace_block blocks[3] = {{.kernel = 0, .index = 0, .sm = 7, .start = 40, .end = 90},
                             {.kernel = 0, .index = 1, .sm = 2, .start = 15, .end = 30},
                             {.kernel = 0, .index = 2, .sm = 0, .start = 50, .end = TRACE_NONE}};
    assert_int_equal(db_run_add_blocks(w, blocks, 2, err, sizeof err), 0);
    assert_int_equal(db_run_add_blocks(w, blocks + 2, 1, err, sizeof err), 0);
    assert_int_equal(db_run_add_blocks(w, blocks, 0, err, sizeof err), 0);
    assert_int_equal(db_run_finish(w, &b, err, sizeof err), 0);
    memset(&r, 0, sizeof r);
    assert_int_equal(db_get_run(f->d, part, on_run, &r, err, sizeof err), 0);
    assert_string_equal(r.name, "named by the trace");
    assert_int_equal(r.r.summary.blocks, 3);
    assert_int_equal(r.r.summary.t_min, 15);
    assert_int_equal(r.r.summary.t_max, 90);
    assert_int_equal(r.r.summary.sms, 8);
    assert_int_equal(r.r.summary.max_block_dur, 50);
    trace_init(&u);
    assert_int_equal(db_load_run(f->d, part, DB_LOAD_BLOCKS, &u, err, sizeof err), 0);
    assert_int_equal(u.blocks.n, 3);
    assert_int_equal(u.blocks.v[1].sm, 2);
    assert_int_equal(u.blocks.v[2].end, TRACE_NONE);
    trace_free(&u);
    trace_free(&b);
}

static void test_stream_failure_leaves_nothing(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE];
    trace t;
    build_bulk(&t, "a");
    trace_block *bad = malloc(BULK_N * sizeof *bad);
    assert_non_null(bad);
    memcpy(bad, t.blocks.v, BULK_N * sizeof *bad);
    bad[1580].end = 0;   /* ends before it starts: the CHECK refuses it */

    /* the fifth batch of 5000 fails: the row is named across the stream */
    db_run_writer *w;
    assert_int_equal(db_run_begin(f->d, f->exp, "bad", slug, &w, err, sizeof err), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(db_run_add_blocks(w, t.blocks.v, BULK_N, err, sizeof err), 0);
    /* whole pages are written as they fill (db/bpage.h); the partial last
     * one waits for more blocks or the finish */
    assert_int_equal(count_rows(f->d, "blocks"), 4 * BULK_N / BPAGE_BLOCKS * BPAGE_BLOCKS);
    assert_int_equal(db_run_add_blocks(w, bad, BULK_N, err, sizeof err), -1);
    assert_non_null(strstr(err, "blocks[21580]:"));
    assert_non_null(strstr(err, "CHECK"));
    assert_all_empty(f->d);
    /* the writer is spent: later calls fail and store nothing */
    assert_int_equal(db_run_add_blocks(w, t.blocks.v, 10, err, sizeof err), -1);
    assert_non_null(strstr(err, "an earlier error abandoned this run"));
    assert_int_equal(db_run_finish(w, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "an earlier error abandoned this run"));
    assert_all_empty(f->d);

    /* a bad block in the trace's own blocks, after streamed ones */
    assert_int_equal(db_run_begin(f->d, f->exp, "bad", slug, &w, err, sizeof err), 0);
    assert_int_equal(db_run_add_blocks(w, t.blocks.v, 4000, err, sizeof err), 0);
    trace part;
    build_bulk(&part, "a");
    memmove(part.blocks.v, part.blocks.v + 4000, 1000 * sizeof *part.blocks.v);
    part.blocks.n = 1000;
    part.blocks.v[10].end = 0;
    assert_int_equal(db_run_finish(w, &part, err, sizeof err), -1);
    assert_non_null(strstr(err, "blocks[4010]:"));
    assert_all_empty(f->d);
    trace_free(&part);

    /* another table fails at finish: the streamed blocks go too */
    assert_int_equal(db_run_begin(f->d, f->exp, "bad", slug, &w, err, sizeof err), 0);
    assert_int_equal(db_run_add_blocks(w, t.blocks.v, BULK_N, err, sizeof err), 0);
    trace_str q = t.queue_events.v[BULK_N - 1].queue;
    t.queue_events.v[BULK_N - 1].queue = 0;
    t.blocks.n = 0;
    assert_int_equal(db_run_finish(w, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "queue_events[4999]:"));
    assert_all_empty(f->d);
    t.queue_events.v[BULK_N - 1].queue = q;
    t.blocks.n = BULK_N;

    /* the savepoint is gone: the connection stores normally again */
    assert_int_equal(db_store_run(f->d, f->exp, "good", &t, slug, err, sizeof err), 0);
    assert_int_equal(count_rows(f->d, "runs"), 1);
    assert_int_equal(count_rows(f->d, "blocks"), BULK_N);
    free(bad);
    trace_free(&t);
}

static void test_stream_abort(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE] = "x", good[DB_SLUG_SIZE];
    trace t;
    build_bulk(&t, "a");
    db_run_writer *w = (db_run_writer *)&w;   /* overwritten with NULL */
    assert_int_equal(db_run_begin(f->d, "nosuchexp0", "x", slug, &w, err, sizeof err),
                     DB_NOT_FOUND);
    assert_null(w);
    assert_string_equal(slug, "");
    assert_non_null(strstr(err, "nosuchexp0"));
    assert_all_empty(f->d);
    db_run_abort(NULL);

    assert_int_equal(db_run_begin(f->d, f->exp, "aborted", slug, &w, err, sizeof err), 0);
    db_run_abort(w);
    assert_all_empty(f->d);
    assert_int_equal(db_run_begin(f->d, f->exp, "aborted", slug, &w, err, sizeof err), 0);
    assert_int_equal(db_run_add_blocks(w, t.blocks.v, BULK_N, err, sizeof err), 0);
    assert_int_equal(count_rows(f->d, "blocks"), BULK_N / BPAGE_BLOCKS * BPAGE_BLOCKS);
    db_run_abort(w);
    assert_all_empty(f->d);
    run_seen none = {0};
    assert_int_equal(db_get_run(f->d, slug, on_run, &none, err, sizeof err), DB_NOT_FOUND);

    /* inside an outer transaction an abort undoes only its own run */
    assert_int_equal(db_begin(f->d, err, sizeof err), 0);
    assert_int_equal(db_store_run(f->d, f->exp, "good", &t, good, err, sizeof err), 0);
    assert_int_equal(db_run_begin(f->d, f->exp, "aborted", slug, &w, err, sizeof err), 0);
    assert_int_equal(db_run_add_blocks(w, t.blocks.v, 100, err, sizeof err), 0);
    db_run_abort(w);
    assert_int_equal(db_commit(f->d, err, sizeof err), 0);
    assert_int_equal(count_rows(f->d, "runs"), 1);
    assert_int_equal(count_rows(f->d, "blocks"), BULK_N);
    run_seen r = {0};
    assert_int_equal(db_get_run(f->d, good, on_run, &r, err, sizeof err), 0);
    assert_string_equal(r.name, "good");
    trace_free(&t);
}

typedef struct win {
    int n;
    trace_block b[64];
} win;

static int on_block(void *ctx, const trace_block *b) {
    win *w = ctx;
    if (w->n < 64) w->b[w->n] = *b;
    w->n++;
    return 0;
}

/* Blocks: index i on SM i%2, [start, end) as listed. */
static const int64_t spans[][2] = {
    {0, 100}, {0, 1000}, {50, 60}, {100, 200}, {150, 300}, {300, 400}, {399, 401}, {500, 600},
};

static void store_spans(fixture *f, char slug[DB_SLUG_SIZE]) {
    trace t;
    trace_init(&t);
    trace_set_source(&t, "simulation");
    trace_kernel *k = trace_add_kernel(&t);
    k->name = trace_intern(&t, "K");
    k->threads = 256;
    for (int i = 0; i < 8; i++) {
        trace_block *b = trace_add_block(&t);
        *b = (trace_block){.kernel = 0, .index = i, .sm = i % 2, .start = spans[i][0],
                           .end = spans[i][1]};
    }
    char err[256];
    assert_int_equal(db_store_run(f->d, f->exp, "spans", &t, slug, err, sizeof err), 0);
    trace_free(&t);
}

static void test_window(void **state) {
    fixture *f = *state;
    char slug[DB_SLUG_SIZE], err[256];
    store_spans(f, slug);
    win w = {0};
    /* overlap [100, 300): start < 300 && end > 100 -> indices 1, 3, 4 */
    assert_int_equal(db_blocks_window(f->d, slug, 100, 300, on_block, &w, err, sizeof err), 0);
    assert_int_equal(w.n, 3);
    assert_int_equal(w.b[0].index, 1);
    assert_int_equal(w.b[1].index, 3);
    assert_int_equal(w.b[2].index, 4);
    assert_int_equal(w.b[2].sm, 0);
    assert_int_equal(w.b[2].start, 150);
    assert_int_equal(w.b[2].end, 300);
    int64_t n;
    assert_int_equal(db_blocks_count(f->d, slug, 100, 300, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    /* [400, 500): only the long block 1 and the one ending at 401 */
    memset(&w, 0, sizeof w);
    assert_int_equal(db_blocks_window(f->d, slug, 400, 500, on_block, &w, err, sizeof err), 0);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.b[0].index, 1);
    assert_int_equal(w.b[1].index, 6);
    assert_int_equal(db_blocks_count(f->d, slug, 600, 700, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);   /* block 1 [0, 1000) only */
    assert_int_equal(db_blocks_count(f->d, slug, 1000, 1100, &n, err, sizeof err), 0);
    assert_int_equal(n, 0);
    assert_int_equal(db_blocks_count(f->d, slug, -10, 10000, &n, err, sizeof err), 0);
    assert_int_equal(n, 8);
    /* from the first instant there is: the bound on starts stops there */
    assert_int_equal(db_blocks_count(f->d, slug, INT64_MIN, INT64_MAX, &n, err, sizeof err), 0);
    assert_int_equal(n, 8);
    assert_int_equal(db_blocks_count(f->d, "nosuchrun0", 0, 1, &n, err, sizeof err),
                     DB_NOT_FOUND);
}

static void test_window_plan(void **state) {
    fixture *f = *state;
    char sql[512];
    snprintf(sql, sizeof sql, "EXPLAIN QUERY PLAN %s", db_blocks_window_sql());
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(f->d), sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_int64(st, 1, 1);
    sqlite3_bind_int64(st, 2, 0);
    sqlite3_bind_int64(st, 3, 100);
    sqlite3_bind_int64(st, 4, 0);
    sqlite3_bind_int64(st, 5, 0);
    int rows = 0;
    bool ranged = false, sorted = false;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *detail = (const char *)sqlite3_column_text(st, 3);
        rows++;
        /* a range of the page index (issue 9): pages, not every page */
        if (strstr(detail, "SEARCH block_pages USING INDEX block_pages_start (run=? AND s_lo>? AND s_lo<?)"))
            ranged = true;
        if (strstr(detail, "TEMP B-TREE")) sorted = true;
    }
    sqlite3_finalize(st);
    assert_int_equal(rows, 1);
    assert_true(ranged);
    assert_false(sorted);   /* the index order is the merge's page order */
}

static void test_bins(void **state) {
    fixture *f = *state;
    char slug[DB_SLUG_SIZE], err[256];
    store_spans(f, slug);
    /* [0, 400) in 4 bins of 100 on 2 SMs */
    double thr[8], blk[8];
    assert_int_equal(db_block_bins(f->d, slug, 0, 400, 100, 4, 2, thr, blk, err, sizeof err), 0);
    /* SM 0: blocks 0 [0,100), 2 [50,60), 4 [150,300), 6 [399,401) */
    assert_near(blk[0], 1.1);
    assert_near(blk[1], 0.5);
    assert_near(blk[2], 1.0);
    assert_near(blk[3], 0.01);
    assert_near(thr[0], 1.1 * 256);
    /* SM 1: blocks 1 [0,1000), 3 [100,200), 5 [300,400) */
    assert_near(blk[4], 1.0);
    assert_near(blk[5], 2.0);
    assert_near(blk[6], 1.0);
    assert_near(blk[7], 2.0);
    /* a last bin shorter than bin_ns averages over its own length */
    double t2[4], b2[4];
    assert_int_equal(db_block_bins(f->d, slug, 0, 150, 100, 2, 2, t2, b2, err, sizeof err), 0);
    assert_near(b2[1], 0.0);   /* SM 0 over [100,150): nothing */
    assert_near(b2[3], 2.0);   /* SM 1: blocks 1 and 3 */
    /* a window from 200: block 1 [0, 1000), begun two bins before it,
     * fills both bins; block 4 [150, 300) the first on SM 0 */
    double t3[4], b3[4];
    assert_int_equal(db_block_bins(f->d, slug, 200, 400, 100, 2, 2, t3, b3, err, sizeof err), 0);
    assert_near(b3[0], 1.0);
    assert_near(b3[1], 0.01);
    assert_near(b3[2], 1.0);
    assert_near(b3[3], 2.0);
    /* 3 bins of 100 over [0, 400): bin i covers [100 i, min(400, 100 i +
     * 100)) (db.h), so [300, 400) is in none: block 5 [300, 400) and block
     * 6 [399, 401) count nowhere (until 2026-12-06 the last bin took the
     * rest, [200, 400), and dropped the blocks that started past 300, 6
     * among them), and nothing past the 3 x 2 cells is written */
    double t4[8], b4[8];
    t4[6] = t4[7] = b4[6] = b4[7] = -1;
    assert_int_equal(db_block_bins(f->d, slug, 0, 400, 100, 3, 2, t4, b4, err, sizeof err), 0);
    assert_near(b4[0], 1.1);
    assert_near(b4[1], 0.5);
    assert_near(b4[2], 1.0);
    assert_near(b4[3], 1.0);
    assert_near(b4[4], 2.0);
    assert_near(b4[5], 1.0);
    assert_true(t4[6] == -1 && t4[7] == -1 && b4[6] == -1 && b4[7] == -1);
    /* one SM asked for: SM 1's blocks are nobody's, and nothing past the
     * cells asked for is written */
    double t5[8], b5[8];
    for (int i = 0; i < 8; i++) t5[i] = b5[i] = -1;
    assert_int_equal(db_block_bins(f->d, slug, 0, 400, 100, 4, 1, t5, b5, err, sizeof err), 0);
    assert_near(b5[0], 1.1);
    assert_near(b5[3], 0.01);
    for (int i = 4; i < 8; i++) assert_true(t5[i] == -1 && b5[i] == -1);
    /* a block whose kernel the run does not list (the database does not
     * refuse one) counts as a block of no threads */
    trace u;
    trace_init(&u);
    trace_set_source(&u, "simulation");
    trace_add_kernel(&u)->threads = 256;
    *trace_add_block(&u) = (trace_block){.kernel = 0, .index = 0, .sm = 0, .start = 0, .end = 100};
    *trace_add_block(&u) = (trace_block){.kernel = 3, .index = 0, .sm = 0, .start = 0, .end = 100};
    char slug2[DB_SLUG_SIZE];
    assert_int_equal(db_store_run(f->d, f->exp, "unlisted", &u, slug2, err, sizeof err), 0);
    trace_free(&u);
    assert_int_equal(db_block_bins(f->d, slug2, 0, 100, 100, 1, 1, t5, b5, err, sizeof err), 0);
    assert_near(b5[0], 2.0);
    assert_near(t5[0], 256);
    /* an empty window is refused */
    assert_int_equal(db_block_bins(f->d, slug, 100, 100, 100, 1, 2, t5, b5, err, sizeof err), -1);
    assert_string_equal(err, "bins: need from < to, bin_ns > 0, nbins > 0 and sms > 0");
}

typedef struct qseen {
    int n;
    char text[512];
} qseen;

static int on_queue(void *ctx, const char *queue, const char *const *items, size_t n) {
    qseen *q = ctx;
    size_t len = strlen(q->text);
    len += (size_t)snprintf(q->text + len, sizeof q->text - len, "%s:", queue);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(q->text + len, sizeof q->text - len, "%s%s", i ? "," : "", items[i]);
    snprintf(q->text + len, sizeof q->text - len, ";");
    q->n++;
    return 0;
}

static int on_series(void *ctx, const char *queue, const int64_t *t, const int64_t *len,
                     size_t n) {
    qseen *q = ctx;
    size_t l = strlen(q->text);
    l += (size_t)snprintf(q->text + l, sizeof q->text - l, "%s:", queue);
    for (size_t i = 0; i < n; i++)
        l += (size_t)snprintf(q->text + l, sizeof q->text - l, "%s%lld=%lld", i ? "," : "",
                              (long long)t[i], (long long)len[i]);
    snprintf(q->text + l, sizeof q->text - l, ";");
    q->n++;
    return 0;
}

static void test_queues(void **state) {
    fixture *f = *state;
    trace t;
    trace_init(&t);
    trace_set_source(&t, "simulation");
    trace_str s1 = trace_intern(&t, "stream:P0/S1"), ee = trace_intern(&t, "ee:P0:none");
    trace_str k1 = trace_intern(&t, "K1"), k2 = trace_intern(&t, "K2"), c1 = trace_intern(&t, "C1");
    trace_add_queue_event(&t, 0, s1, k1, TRACE_ENQUEUE);
    trace_add_queue_event(&t, 0, s1, k2, TRACE_ENQUEUE);
    trace_add_queue_event(&t, 0, s1, k1, TRACE_DEQUEUE);
    trace_add_queue_event(&t, 0, ee, k1, TRACE_ENQUEUE);
    trace_add_queue_event(&t, 10, s1, c1, TRACE_ENQUEUE);
    trace_add_queue_event(&t, 20, ee, k1, TRACE_DEQUEUE);
    trace_add_queue_event(&t, 30, s1, k2, TRACE_DEQUEUE);
    char err[256], slug[DB_SLUG_SIZE];
    assert_int_equal(db_store_run(f->d, f->exp, "q", &t, slug, err, sizeof err), 0);

    qseen q = {0};
    assert_int_equal(db_queue_state(f->d, slug, 10, on_queue, &q, err, sizeof err), 0);
    assert_string_equal(q.text, "stream:P0/S1:K2,C1;ee:P0:none:K1;");
    memset(&q, 0, sizeof q);
    assert_int_equal(db_queue_state(f->d, slug, 25, on_queue, &q, err, sizeof err), 0);
    assert_string_equal(q.text, "stream:P0/S1:K2,C1;ee:P0:none:;");
    memset(&q, 0, sizeof q);
    assert_int_equal(db_queue_state(f->d, slug, -1, on_queue, &q, err, sizeof err), 0);
    assert_int_equal(q.n, 0);
    memset(&q, 0, sizeof q);
    assert_int_equal(db_queue_series(f->d, slug, on_series, &q, err, sizeof err), 0);
    assert_string_equal(q.text, "stream:P0/S1:0=1,10=2,30=1;ee:P0:none:0=1,20=0;");
    trace_free(&t);
}

static void test_migrations(void **state) {
    fixture *f = *state;
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/old.db", f->t.dir);
    /* a database at user_version 0 (as sqlite3 leaves a new file) */
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, "CREATE TABLE unrelated(x); PRAGMA user_version = 0",
                                  NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    db *d;
    assert_int_equal(db_open(path, &d, err, sizeof err), 0);
    int v = -1;
    assert_int_equal(db_user_version(d, &v, err, sizeof err), 0);
    assert_int_equal(v, DB_SCHEMA_VERSION);
    assert_int_equal(count_rows(d, "blocks"), 0);
    assert_int_equal(count_rows(d, "unrelated"), 0);
    db_close(d);
    /* reopening is a no-op */
    assert_int_equal(db_open(path, &d, err, sizeof err), 0);
    assert_int_equal(db_user_version(d, &v, err, sizeof err), 0);
    assert_int_equal(v, DB_SCHEMA_VERSION);
    assert_int_equal(sqlite3_exec(db_handle(d), "PRAGMA user_version = 99", NULL, NULL, NULL),
                     SQLITE_OK);
    db_close(d);
    /* a newer schema is refused, not downgraded */
    assert_int_equal(db_open(path, &d, err, sizeof err), -1);
    assert_null(d);
    assert_non_null(strstr(err, "schema version 99 is newer"));
    assert_non_null(strstr(err, "old.db"));
    char p[160];
    const char *suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
}

/* A sweep's result (db/sweep.c) and a replay's fidelity report
 * (db/fidelity_db.c): stored and read back whole; a store that fails
 * leaves no experiment behind (the savepoint is rolled back); an unknown
 * slug, or a run without a report, is DB_NOT_FOUND with a message. */
static void test_sweeps_and_fidelity(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE], *out = NULL, *meas = NULL;
    assert_int_equal(db_sweep_store(f->d, "sw", "a sweep", "{\"points\":[1,2]}", slug, err,
                                    sizeof err), 0);
    assert_int_equal(db_sweep_result(f->d, slug, &out, err, sizeof err), 0);
    assert_string_equal(out, "{\"points\":[1,2]}");
    free(out);
    assert_int_equal(db_sweep_result(f->d, "nosuchsweep", &out, err, sizeof err), DB_NOT_FOUND);
    assert_null(out);
    int64_t exps = count_rows(f->d, "experiments");
    /* the result is NOT NULL: the insert fails after the experiment's */
    assert_int_equal(db_sweep_store(f->d, "bad", NULL, NULL, slug, err, sizeof err), -1);
    assert_non_null(strstr(err, "sweeps"));
    assert_int_equal(count_rows(f->d, "experiments"), exps);

    trace t;
    build_full(&t);
    char measured[DB_SLUG_SIZE], sim[DB_SLUG_SIZE];
    assert_int_equal(db_store_run(f->d, f->exp, "job", &t, measured, err, sizeof err), 0);
    assert_int_equal(db_store_run(f->d, f->exp, "most-room", &t, sim, err, sizeof err), 0);
    trace_free(&t);
    assert_int_equal(db_fidelity_get(f->d, sim, &out, &meas, err, sizeof err), DB_NOT_FOUND);
    char want[256];
    snprintf(want, sizeof want, "run \"%s\" has no fidelity report (it is not a replay)", sim);
    assert_string_equal(err, want);
    assert_null(out);
    assert_int_equal(db_fidelity_store(f->d, sim, "nosuchrun", "{}", err, sizeof err),
                     DB_NOT_FOUND);
    assert_non_null(strstr(err, ": no run named \""));
    assert_int_equal(db_fidelity_store(f->d, sim, measured, "{\"a\":1}", err, sizeof err), 0);
    assert_int_equal(db_fidelity_store(f->d, sim, measured, "{\"a\":2}", err, sizeof err), 0);
    assert_int_equal(db_fidelity_get(f->d, sim, &out, &meas, err, sizeof err), 0);
    assert_string_equal(out, "{\"a\":2}");   /* replaced */
    assert_string_equal(meas, measured);
    free(out);
    free(meas);
}

/* The experiment's kind ("scenario", "import", "sweep") into ctx (16 bytes). */
static int on_source(void *ctx, const db_experiment *e) {
    snprintf(ctx, 16, "%s", e->source);
    return 0;
}

/* Migration 26 (db/replay_kind.sql): a several-GPU replay's experiment,
 * which replay_devices_store.c stored as "import" before, becomes a
 * replay's ("scenario", as a one-GPU replay's: replay_api.c) by its runs'
 * fidelity reports, which only a replay writes; an import's stays one. */
static void test_replay_kind_migration(void **state) {
    fixture *f = *state;
    char err[256], measured_exp[DB_SLUG_SIZE], replay_exp[DB_SLUG_SIZE], import_exp[DB_SLUG_SIZE];
    char measured[DB_SLUG_SIZE], sim[DB_SLUG_SIZE], other[DB_SLUG_SIZE];
    trace t;
    build_full(&t);
    assert_int_equal(db_create_experiment(f->d, "measured", NULL, "import", NULL, NULL,
                                          measured_exp, err, sizeof err), 0);
    assert_int_equal(db_store_run(f->d, measured_exp, "job", &t, measured, err, sizeof err), 0);
    /* as the several-GPU replay stored its experiment before the fix */
    assert_int_equal(db_create_experiment(f->d, "Replay of job on 2 simulated GPUs", NULL,
                                          "import", NULL, NULL, replay_exp, err, sizeof err), 0);
    assert_int_equal(db_store_run(f->d, replay_exp, "most-room", &t, sim, err, sizeof err), 0);
    assert_int_equal(db_fidelity_store(f->d, sim, measured, "{\"replay\":true}", err, sizeof err),
                     0);
    assert_int_equal(db_create_experiment(f->d, "imported", NULL, "import", NULL, NULL,
                                          import_exp, err, sizeof err), 0);
    assert_int_equal(db_store_run(f->d, import_exp, "x", &t, other, err, sizeof err), 0);
    trace_free(&t);
    /* back to the schema before step 26 (without the column step 27 adds),
     * then reopened */
    assert_int_equal(sqlite3_exec(db_handle(f->d),
                                  "ALTER TABLE devices DROP COLUMN dram_share; "
                                  "PRAGMA user_version = 25", NULL, NULL, NULL),
                     SQLITE_OK);
    db_close(f->d);
    f->d = f->t.d = NULL;
    assert_int_equal(db_open(f->t.path, &f->t.d, err, sizeof err), 0);
    f->d = f->t.d;
    int v = -1;
    assert_int_equal(db_user_version(f->d, &v, err, sizeof err), 0);
    assert_int_equal(v, DB_SCHEMA_VERSION);
    char source[16] = "";
    assert_int_equal(db_get_experiment(f->d, replay_exp, on_source, source, err, sizeof err), 0);
    assert_string_equal(source, "scenario");
    assert_int_equal(db_get_experiment(f->d, import_exp, on_source, source, err, sizeof err), 0);
    assert_string_equal(source, "import");
    assert_int_equal(db_get_experiment(f->d, measured_exp, on_source, source, err, sizeof err), 0);
    assert_string_equal(source, "import");
    assert_int_equal(db_get_experiment(f->d, f->exp, on_source, source, err, sizeof err), 0);
    assert_string_equal(source, "scenario");
}

typedef struct exp_seen {
    int n;
    char names[4][32];
    char file[32];
} exp_seen;

static int on_exp(void *ctx, const db_experiment *e) {
    exp_seen *s = ctx;
    if (s->n < 4) snprintf(s->names[s->n], sizeof s->names[0], "%s", e->name);
    if (e->scenario_file) snprintf(s->file, sizeof s->file, "%s", e->scenario_file);
    s->n++;
    return 0;
}

static int stop_exp(void *ctx, const db_experiment *e) {
    on_exp(ctx, e);
    return 6;
}

static void test_experiments_and_slugs(void **state) {
    fixture *f = *state;
    char err[256], slug[DB_SLUG_SIZE], slug2[DB_SLUG_SIZE];
    assert_int_equal(db_create_experiment(f->d, "second", NULL, "import", NULL, NULL, slug, err,
                                          sizeof err), 0);
    assert_int_equal(strlen(slug), 10);
    assert_int_equal(strspn(slug, "abcdefghijklmnopqrstuvwxyz0123456789"), 10);
    assert_string_not_equal(slug, f->exp);
    exp_seen s = {0};
    assert_int_equal(db_list_experiments(f->d, on_exp, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.names[0], "second");   /* newest first */
    assert_string_equal(s.names[1], "exp");
    memset(&s, 0, sizeof s);   /* a callback that says stop stops the listing */
    assert_int_equal(db_list_experiments(f->d, stop_exp, &s, err, sizeof err), 6);
    assert_int_equal(s.n, 1);
    memset(&s, 0, sizeof s);
    assert_int_equal(db_get_experiment(f->d, f->exp, on_exp, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.file, "fig3.json");
    assert_int_equal(db_get_experiment(f->d, "zzzzzzzzzz", on_exp, &s, err, sizeof err),
                     DB_NOT_FOUND);
    bool found;
    assert_int_equal(db_has_scenario_file(f->d, "fig3.json", &found, err, sizeof err), 0);
    assert_true(found);
    assert_int_equal(db_has_scenario_file(f->d, "other.json", &found, err, sizeof err), 0);
    assert_false(found);
    assert_int_equal(db_new_slug(slug, err, sizeof err), 0);
    assert_int_equal(db_new_slug(slug2, err, sizeof err), 0);
    assert_string_not_equal(slug, slug2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_host_calls_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_device_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_calls_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary_and_listing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_store_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_window, setup, teardown),
        cmocka_unit_test_setup_teardown(test_window_plan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queues, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweeps_and_fidelity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replay_kind_migration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_experiments_and_slugs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_failure_names_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_tail_edges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_equals_store, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_failure_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_abort, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
