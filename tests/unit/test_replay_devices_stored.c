/* test_replay_devices_stored.c -- a replay of a trace of several GPUs
 * stores (server/http/replay_devices_store.c) the run that writing the
 * merged replay out as schedlab-trace/1 and importing the file gives: the
 * stored run, exported, has the bytes of an import of the merged run's
 * export stored beside it, for the replay and for each placement variant.
 * The store did exactly that round trip (tj_write_trace, then
 * imp_import_opts(IMP_SCHEDLAB_TRACE) and imp_check_trace: 3.8 s and some
 * 600 MB for 2 M blocks); it now does what the round trip changes on the
 * trace itself (tj_as_read), and this test holds it to the round trip,
 * which it keeps here as the reference: the exported bytes, and the
 * string table (ids in the order the reader met them, which the database
 * keeps) of the two traces.
 *
 * The traces: one made here (four GPUs, with a kernel name that is not
 * UTF-8, which the writer repairs, and raw names), and the real traces of
 * several GPUs under $SCHEDLAB_TRACES (SOURCES.md: the 4-GPU NCCL nvprof
 * export, the DLRM job's two rank files), skipped (one line) without
 * them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../importers/importers.h"
#include "../../importers/trace_check.h"
#include "../../server/app/replay_devices.h"
#include "../../server/formats/trace_json.h"
#include "../../server/http/jobs.h"
#include "../../server/http/replay_devices_store.h"
#include "test_db_util.h"
#include "test_imp_util.h"

/* Four GPUs of 6 SMs, each with four kernels of 600 blocks one after
 * another and a copy; lanes "rankG gpuG". */
static void four_gpus(trace *t) {
    trace_init(t);
    trace_set_name(t, "four gpus");
    trace_set_source(t, "nsys-sqlite");
    sim_device d = {.sms = 6};
    snprintf(d.name, sizeof d.name, "%s", "Xavier NX");
    for (int g = 0; g < 4; g++) assert_int_equal(trace_add_device(t, &d), g);
    t->device = d;
    t->has_device = true;
    for (int g = 0; g < 4; g++) {
        char lane[32];
        snprintf(lane, sizeof lane, "rank%d gpu%d", g, g);
        int64_t at = 1000;
        for (int i = 0; i < 4; i++) {
            trace_kernel *k = trace_add_kernel(t);
            /* "k\xff": not UTF-8, repaired by the writer (U+FFFD) */
            k->name = trace_intern(t, i == 1 ? "k\xff" : i == 2 ? "gemm<float>" : "relu");
            k->raw_name = i == 2 ? trace_intern(t, "_Z4gemmIfEvv") : 0;
            k->stream = trace_intern(t, "7");
            k->process = trace_intern(t, lane);
            k->device = g;
            k->blocks = 600;
            k->threads = 256;
            k->grid[0] = 600, k->grid[1] = k->grid[2] = 1;
            k->block[0] = 256, k->block[1] = k->block[2] = 1;
            k->regs = 32;
            k->smem = 0;
            k->issue = at - 500;
            k->first_block = at;
            k->end = at + 40000 + 1000 * g;
            at = k->end + 3000;
        }
        trace_copy *c = trace_add_copy(t);
        c->name = trace_intern(t, "Memcpy HtoD");
        c->stream = trace_intern(t, "7");
        c->process = trace_intern(t, lane);
        c->device = g;
        c->direction = TRACE_COPY_H2D;
        c->bytes = 1 << 20;
        c->issue = at;
        c->start = at + 500;
        c->end = at + 100500;
    }
    assert_false(t->oom);
}

/* The old store's read-back, kept as the reference: t named `name`,
 * written as schedlab-trace/1, imported and range-checked into out. */
static void read_back(trace *t, const char *name, trace *out) {
    tj_buf b = {0};
    assert_int_equal(trace_set_name(t, name), 0);
    assert_int_equal(tj_write_trace(t, &b), 0);
    imp_file f = {"replay.json", (const unsigned char *)b.s, b.len};
    char err[1024] = "";
    trace_init(out);
    if (imp_import_opts(IMP_SCHEDLAB_TRACE, &f, 1, NULL, out, err, sizeof err) != 0 ||
        imp_check_trace(out, f.name, err, sizeof err) != 0)
        fail_msg("%s", err);
    tj_buf_free(&b);
}

/* Stored run `slug` exported (`schedlab export`: db_load_run, tj_write_trace). */
static tj_buf export_run(db *d, const char *slug) {
    trace t;
    trace_init(&t);
    char err[1024] = "";
    if (db_load_run(d, slug, DB_LOAD_ALL, &t, err, sizeof err) != 0) fail_msg("%s", err);
    tj_buf b = {0};
    assert_int_equal(tj_write_trace(&t, &b), 0);
    trace_free(&t);
    return b;
}

static void same_bytes(const tj_buf *x, const tj_buf *y, const char *what) {
    size_t n = x->len < y->len ? x->len : y->len, i = 0;
    while (i < n && x->s[i] == y->s[i]) i++;
    if (i < n || x->len != y->len)
        fail_msg("%s: the exports differ at byte %zu of %zu / %zu: \"%.60s\" against \"%.60s\"",
                 what, i, x->len, y->len, x->s + (i > 20 ? i - 20 : 0),
                 y->s + (i > 20 ? i - 20 : 0));
}

/* The strings a run stored, with their ids (table strings: the trace's
 * string ids, db_store.c), as "id=text;" lines. */
static char *stored_strings(db *d, const char *slug) {
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(d),
                                        "SELECT id, text FROM strings WHERE run = (SELECT id FROM "
                                        "runs WHERE slug = ?1) ORDER BY id",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, slug, -1, SQLITE_STATIC);
    tj_buf b = {0};
    while (sqlite3_step(st) == SQLITE_ROW) {
        char id[32];
        snprintf(id, sizeof id, "%lld=", (long long)sqlite3_column_int64(st, 0));
        tj_puts(&b, id);
        tj_puts(&b, (const char *)sqlite3_column_text(st, 1));
        tj_puts(&b, ";\n");
    }
    sqlite3_finalize(st);
    tj_putc(&b, '\0');
    return b.s;
}

/* Measured trace m stored, replayed and stored by replay_devices_store;
 * beside it, every run of the replay merged again (replay_devices_run,
 * replay_devices_variant), read back through the importer and stored with
 * db_store_run; each pair exports the same bytes and keeps the same
 * strings. */
static void check_stored(trace *m, const char *what) {
    tdb t;
    assert_int_equal(tdb_open(&t, "rdstore"), 0);
    char err[1024] = "", exp[DB_SLUG_SIZE], run[DB_SLUG_SIZE], ref[DB_SLUG_SIZE];
    assert_int_equal(db_create_experiment(t.d, "measured", "", "import", NULL, NULL, exp, err,
                                          sizeof err), 0);
    if (db_store_run(t.d, exp, "measured", m, run, err, sizeof err) != 0) fail_msg("%s", err);
    /* the measured run as the replay job loads it (replay_api.c) */
    trace ml;
    trace_init(&ml);
    if (db_load_run(t.d, run, DB_LOAD_KERNELS | DB_LOAD_BLOCKS | DB_LOAD_COPIES, &ml, err,
                    sizeof err) != 0)
        fail_msg("%s", err);

    job_ctl ctl;
    memset(&ctl, 0, sizeof ctl);
    int status = 0;
    json_t *result = NULL;
    replay_devices_store(t.d, &ml, run, NULL, &ctl, &status, &result, err, sizeof err);
    if (status != 201) fail_msg("%s: %d %s", what, status, err);
    json_t *runs = json_object_get(result, "runs");
    assert_true(json_array_size(runs) >= 2);   /* the replay and its variants */

    /* the reference: the old read-back of each run */
    assert_int_equal(db_create_experiment(t.d, "reference", "", "import", NULL, NULL, ref, err,
                                          sizeof err), 0);
    replay_dev *v = NULL;
    size_t n = 0;
    trace merged;
    if (replay_devices_run(&ml, what, NULL, 0, NULL, &v, &n, &merged, err, sizeof err) != 0)
        fail_msg("%s", err);
    char name[256], rname[64];
    snprintf(name, sizeof name, "Replay of %s on %zu simulated GPUs", ml.name ? ml.name : run, n);
    assert_int_equal(json_array_size(runs), replay_devices_variants(v, n) + 1);
    for (size_t i = 0; i < json_array_size(runs); i++) {
        json_t *r = json_array_get(runs, i);
        const char *slug = json_string_value(json_object_get(r, "run"));
        const char *rn = json_string_value(json_object_get(r, "name"));
        trace sim, back;
        char tname[300];
        if (i == 0) {
            sim = merged;
            trace_init(&merged);
            snprintf(tname, sizeof tname, "%s", name);
        } else {
            assert_string_equal(rn, replay_devices_variant_name(v, n, i - 1));
            if (replay_devices_variant(&ml, v, n, i - 1, NULL, &sim, err, sizeof err) != 0)
                fail_msg("%s", err);
            snprintf(tname, sizeof tname, "%s [%s]", name, rn);
        }
        read_back(&sim, tname, &back);
        char rslug[DB_SLUG_SIZE];
        snprintf(rname, sizeof rname, "%s", rn);
        if (db_store_run(t.d, ref, rname, &back, rslug, err, sizeof err) != 0)
            fail_msg("%s", err);
        /* the new path on the trace itself keeps the reader's string table */
        assert_int_equal(trace_set_name(&sim, tname), 0);
        assert_int_equal(tj_as_read(&sim, err, sizeof err), 0);
        assert_int_equal(sim.strs.n, back.strs.n);
        for (size_t s = 1; s < sim.strs.n; s++) assert_string_equal(sim.strs.v[s], back.strs.v[s]);
        trace_free(&sim);
        trace_free(&back);

        char where[512];
        snprintf(where, sizeof where, "%s, run %zu (%s)", what, i, rn);
        tj_buf x = export_run(t.d, slug), y = export_run(t.d, rslug);
        same_bytes(&x, &y, where);
        tj_buf_free(&x);
        tj_buf_free(&y);
        char *sx = stored_strings(t.d, slug), *sy = stored_strings(t.d, rslug);
        assert_string_equal(sx, sy);
        free(sx);
        free(sy);
    }
    replay_devices_free(v, n);
    json_decref(result);
    trace_free(&ml);
    tdb_close(&t);
}

/* A trace with what the writer leaves out or JSON cannot say, which no
 * replay makes (trace_fields.h's `when`s; tj_put_host_call; the device's
 * unset fields and SM order), each marked below. */
static void odd_trace(trace *t) {
    trace_init(t);
    trace_set_source(t, "simulation");
    (void)trace_intern(t, "interned, used by nothing");
    assert_int_equal(trace_set_meta(t, "first", "meta, read after the records"), 0);
    t->has_device = true;
    t->device.sms = 4;
    snprintf(t->device.name, sizeof t->device.name, "%s", "four sms");
    t->device.sm_order_kind = SIM_SM_ORDER_ASCENDING;   /* its order not filled: read back filled */
    for (int i = 0; i < 3; i++) {
        trace_kernel *k = trace_add_kernel(t);
        k->name = trace_intern(t, i == 1 ? "bad \xc3(" : "k");
        k->stream = trace_intern(t, "s");
        k->process = trace_intern(t, "P0");
        k->device = 2;           /* one GPU: not written, read back 0 */
        k->issue = 10 * i;
        k->first_block = 10 * i + 1;
        k->end = 10 * i + 5;
        k->ipc = 1.5;            /* no instructions: not written */
        k->qos_goal = 0.5;       /* no ipc_isolated: not written */
        k->qos_met = true;
        if (i == 1) {
            k->instructions = 10;
            k->ipc = NAN;        /* written null */
        }
        if (i == 2) {
            k->ipc_isolated = 2;
            k->qos_goal = 0;     /* not a QoS kernel: qos_met not written */
            k->ipc_shared = 1;
        }
    }
    trace_copy *c = trace_add_copy(t);
    c->name = trace_intern(t, "c");
    c->engine = -7;              /* written null: -1 */
    c->direction = 99;           /* written "other" */
    assert_non_null(trace_add_queue_event(t, 3, trace_intern(t, "ce"), trace_intern(t, "C0"),
                                          (trace_queue_op)5));   /* written "enqueue" */
    trace_warp_epoch *w = trace_add_warp_epoch(t);
    w->cycles = 4;
    w->pad_ = 7;
    trace_host_call *h = trace_add_host_call(t);
    h->kind = TRACE_CALL_KERNEL;
    h->record = 1;
    h->name = trace_intern(t, "a kernel's call names nothing");
    h->issue = 4;
    h->task = trace_intern(t, "tau0");
    h = trace_add_host_call(t);
    h->kind = TRACE_CALL_SYNC;
    h->record = 0;               /* a sync names no record: -1 */
    h->name = trace_intern(t, "Y");
    h->stream = trace_intern(t, "s");
    h->process = trace_intern(t, "P0");
    h->at = h->issue = 6;
    h->end = 7;
    assert_int_equal(trace_set_meta(t, "bad", "\xff value"), 0);
    assert_false(t->oom);
}

/* tj_as_read against the read-back it stands for, on each of those: the
 * same JSON, the same string table and the same records. */
static void test_as_read_odd_fields(void **state) {
    (void)state;
    trace a, b, back;
    odd_trace(&a);
    odd_trace(&b);
    read_back(&b, "odd", &back);
    char err[256] = "";
    assert_int_equal(trace_set_name(&a, "odd"), 0);
    assert_int_equal(tj_as_read(&a, err, sizeof err), 0);
    tj_buf x = {0}, y = {0};
    assert_int_equal(tj_write_trace(&a, &x), 0);
    assert_int_equal(tj_write_trace(&back, &y), 0);
    same_bytes(&x, &y, "odd fields");
    tj_buf_free(&x);
    tj_buf_free(&y);
    assert_int_equal(a.strs.n, back.strs.n);
    for (size_t s = 1; s < a.strs.n; s++) assert_string_equal(a.strs.v[s], back.strs.v[s]);
#define SAME(arr) \
    assert_int_equal(a.arr.n, back.arr.n); \
    assert_memory_equal(a.arr.v, back.arr.v, a.arr.n * sizeof *a.arr.v);
    SAME(kernels)
    SAME(copies)
    SAME(queue_events)
    SAME(warp_epochs)
    SAME(host_calls)
    SAME(meta)
#undef SAME
    assert_memory_equal(&a.device, &back.device, sizeof a.device);
    assert_int_equal(a.kernels.v[0].device, 0);
    assert_int_equal(a.copies.v[0].engine, -1);
    assert_int_equal(a.host_calls.v[1].record, -1);
    trace_free(&a);
    trace_free(&b);
    trace_free(&back);
}

static void test_generated(void **state) {
    (void)state;
    trace m;
    four_gpus(&m);
    check_stored(&m, "four gpus");
    trace_free(&m);
}

/* SOURCES.md: "NCCL work on 4 GPUs in one nvprof export" */
static void test_nccl_four_gpus(void **state) {
    (void)state;
    trace m;
    import_trace("nvprof_export_v16_blinkplus_8xv100_nccl_output.nvvp", &m);
    check_stored(&m, "blinkplus");
    trace_free(&m);
}

/* SOURCES.md: the DLRM job's two rank files, one run of two GPUs */
static void test_dlrm_two_ranks(void **state) {
    (void)state;
    static const char *const files[2] = {"kineto_param_v100x8_dlrm_rank0of8.pt.trace.json",
                                         "kineto_param_v100x8_dlrm_rank1of8.pt.trace.json"};
    imp_file in[2];
    for (size_t i = 0; i < 2; i++) {
        size_t len = 0;
        unsigned char *d = read_trace(files[i], &len);
        in[i] = (imp_file){files[i], d, len};
    }
    trace m;
    trace_init(&m);
    char err[1024] = "";
    int rc = imp_import(IMP_UNKNOWN, in, 2, &m, err, sizeof err);
    for (size_t i = 0; i < 2; i++) free((void *)in[i].data);
    if (rc) fail_msg("%s", err);
    check_stored(&m, "dlrm");
    trace_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_as_read_odd_fields),
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_nccl_four_gpus),
        cmocka_unit_test(test_dlrm_two_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
