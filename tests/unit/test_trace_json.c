/* test_trace_json.c -- schedlab-trace/1 both ways and the Chrome export. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../server/formats/trace_json.h"
#include "../../importers/schedlab_trace.h"
#include "../../importers/trace_check.h"
#include "../../importers/importers.h"

static void build(trace *t) {
    trace_init(t);
    trace_set_name(t, "two kernels");
    trace_set_source(t, "simulation");
    t->origin = 77;
    t->has_device = true;
    snprintf(t->device.name, sizeof t->device.name, "tx2");
    t->device.sms = 2;
    t->device.threads_per_sm = 2048;
    t->device.max_threads_per_block = 1024;
    t->device.blocks_per_sm = 32;
    t->device.warps_per_sm = 64;
    t->device.regs_per_sm = 32768;
    t->device.max_regs_per_block = 32768;
    t->device.smem_per_sm = 65536;
    t->device.max_smem_per_block = 49152;
    t->device.warp_size = 32;
    t->device.schedulers_per_sm = 4;
    t->device.copy_engines = 1;
    t->device.copy_bandwidth = 1.5e10;
    t->device.clock_hz = 1300500000;
    /* rates as typed (1.44: 15 digits read it back) and as computed (0.1 +
     * 0.2 needs all 17) */
    t->device.mem_bandwidth = 1.44;
    t->device.sm_mem_bandwidth = 0.1 + 0.2;
    t->device.sm_order_kind = SIM_SM_ORDER_EXPLICIT;
    t->device.sm_order[0] = 1;
    t->device.sm_order[1] = 0;
    trace_set_meta(t, "origin_ns", "77");

    trace_kernel *k = trace_add_kernel(t);
    k->name = trace_intern(t, "K1");
    k->raw_name = trace_intern(t, "_Z2K1v");
    k->stream = trace_intern(t, "S1");
    k->process = trace_intern(t, "P0");
    k->priority = -2;
    k->threads = 768;
    k->issue = 0;
    k->first_block = 1500;
    k->fully_dispatched = 2000;
    k->end = 1000001234;
    k->blocks = 2;
    k->smem = 0;
    k->regs = 32;
    k->grid[0] = 2; k->grid[1] = 1; k->grid[2] = 1;
    k->block[0] = 768; k->block[1] = 1; k->block[2] = 1;
    k = trace_add_kernel(t);   /* what nvprof cannot know stays unknown */
    k->name = trace_intern(t, "quote\"and\\tab\t");
    k->stream = trace_intern(t, "13");
    k->process = trace_intern(t, "P1");
    k->first_block = 5;
    k->end = 9;

    trace_block *b = trace_add_block(t);
    *b = (trace_block){.kernel = 0, .index = 0, .sm = 1, .start = 1500, .end = 1000001234};
    b = trace_add_block(t);
    *b = (trace_block){.kernel = 0, .index = 1, .sm = 0, .start = 2000, .end = 1000000000};
    trace_copy *c = trace_add_copy(t);
    c->name = trace_intern(t, "C1");
    c->stream = trace_intern(t, "S1");
    c->process = trace_intern(t, "P0");
    c->direction = TRACE_COPY_H2D;
    c->engine = 0;
    c->bytes = 268435456;
    c->issue = 10;
    c->start = 20;
    c->end = 30;
    trace_add_queue_event(t, 0, trace_intern(t, "stream:P0/S1"), trace_intern(t, "K1"),
                          TRACE_ENQUEUE);
    trace_add_queue_event(t, 1500, trace_intern(t, "stream:P0/S1"), trace_intern(t, "K1"),
                          TRACE_DEQUEUE);
    trace_warp_issue *w = trace_add_warp_issue(t);
    *w = (trace_warp_issue){.sm = 1, .subcore = 2, .warp = 3, .kernel = 0, .cycle = 44};
    trace_job *j = trace_add_job(t);
    j->task = trace_intern(t, "tau");
    j->job = 1;
    j->release = 0;
    j->start = 100;
    j->end = 2100;
    j->deadline = 5000;
    assert_false(t->oom);
}

/* Unified-memory migrations are a copy kind of their own (issue 28): every
 * direction's name reads back as itself, and a uvm_h2d copy round-trips. */
static void test_uvm_direction(void **state) {
    (void)state;
    for (int d = 0; d <= TRACE_COPY_DIR_LAST; d++)
        assert_int_equal(trace_copy_dir_parse(trace_copy_dir_name(d)), d);
    assert_string_equal(trace_copy_dir_name(TRACE_COPY_UVM_H2D), "uvm_h2d");
    assert_string_equal(trace_copy_dir_name(TRACE_COPY_UVM_D2H), "uvm_d2h");
    assert_true(TRACE_COPY_IS_UVM(TRACE_COPY_UVM_D2D) && !TRACE_COPY_IS_UVM(TRACE_COPY_OTHER));
    trace t, u;
    trace_init(&t);
    trace_copy *c = trace_add_copy(&t);
    assert_non_null(c);
    c->name = trace_intern(&t, "[Unified Memory Memcpy HtoD]");
    c->direction = TRACE_COPY_UVM_H2D;
    c->bytes = 65536;
    c->start = 10;
    c->end = 4522;
    tj_buf b = {0};
    assert_int_equal(tj_write_trace(&t, &b), 0);
    assert_non_null(strstr(b.s, "\"direction\":\"uvm_h2d\""));
    trace_init(&u);
    char err[256] = "";
    assert_int_equal(imp_trace_json_parse(b.s, b.len, "t.json", &u, err, sizeof err), 0);
    assert_int_equal(u.copies.n, 1);
    assert_int_equal(u.copies.v[0].direction, TRACE_COPY_UVM_H2D);
    tj_buf_free(&b);
    trace_free(&t);
    trace_free(&u);
}

static void test_roundtrip(void **state) {
    (void)state;
    trace t, u;
    build(&t);
    tj_buf b = {0};
    assert_int_equal(tj_write_trace(&t, &b), 0);
    /* a device's rates in the fewest digits that read back exactly (the
     * device below compares equal byte for byte) */
    assert_non_null(strstr(b.s, "\"mem_bandwidth\":1.44,\"sm_mem_bandwidth\":0.30000000000000004,"));
    trace_init(&u);
    char err[256] = "";
    int rc = imp_trace_json_parse(b.s, b.len, "t.json", &u, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    assert_string_equal(u.name, "two kernels");
    assert_string_equal(u.source, "simulation");
    assert_int_equal(u.origin, 77);
    assert_true(u.has_device);
    assert_memory_equal(&u.device, &t.device, sizeof t.device);
    assert_string_equal(trace_get_meta(&u, "origin_ns"), "77");
    assert_int_equal(u.kernels.n, 2);
    const trace_kernel *k = &u.kernels.v[0];
    assert_string_equal(trace_str_get(&u, k->name), "K1");
    assert_string_equal(trace_str_get(&u, k->raw_name), "_Z2K1v");
    assert_string_equal(trace_str_get(&u, k->stream), "S1");
    assert_string_equal(trace_str_get(&u, k->process), "P0");
    assert_int_equal(k->priority, -2);
    assert_int_equal(k->threads, 768);
    assert_int_equal(k->issue, 0);
    assert_int_equal(k->first_block, 1500);
    assert_int_equal(k->fully_dispatched, 2000);
    assert_int_equal(k->end, 1000001234);
    assert_int_equal(k->blocks, 2);
    assert_int_equal(k->smem, 0);
    assert_int_equal(k->regs, 32);
    assert_int_equal(k->grid[0], 2);
    assert_int_equal(k->block[0], 768);
    k = &u.kernels.v[1];
    assert_string_equal(trace_str_get(&u, k->name), "quote\"and\\tab\t");
    assert_int_equal(k->raw_name, 0);
    assert_int_equal(k->priority, TRACE_PRIO_NONE);
    assert_int_equal(k->issue, TRACE_NONE);
    assert_int_equal(k->fully_dispatched, TRACE_NONE);
    assert_int_equal(k->smem, TRACE_NONE);
    assert_int_equal(k->blocks, 0);
    assert_int_equal(k->threads, 0);
    assert_int_equal(k->grid[0], 0);
    assert_int_equal(u.blocks.n, 2);
    assert_int_equal(u.blocks.v[0].sm, 1);
    assert_int_equal(u.blocks.v[0].end, 1000001234);
    assert_int_equal(u.blocks.v[1].index, 1);
    assert_int_equal(u.blocks.v[1].start, 2000);
    assert_int_equal(u.copies.n, 1);
    assert_int_equal(u.copies.v[0].direction, TRACE_COPY_H2D);
    assert_int_equal(u.copies.v[0].bytes, 268435456);
    assert_int_equal(u.copies.v[0].engine, 0);
    assert_int_equal(u.copies.v[0].end, 30);
    assert_int_equal(u.queue_events.n, 2);
    assert_int_equal(u.queue_events.v[1].t, 1500);
    assert_int_equal(u.queue_events.v[1].event, TRACE_DEQUEUE);
    assert_string_equal(trace_str_get(&u, u.queue_events.v[1].queue), "stream:P0/S1");
    assert_int_equal(u.warp_issues.n, 1);
    assert_int_equal(u.warp_issues.v[0].cycle, 44);
    assert_int_equal(u.warp_issues.v[0].subcore, 2);
    assert_int_equal(u.jobs.n, 1);
    assert_int_equal(u.jobs.v[0].deadline, 5000);

    /* writing the parsed trace again gives the same bytes */
    tj_buf b2 = {0};
    assert_int_equal(tj_write_trace(&u, &b2), 0);
    assert_int_equal(b2.len, b.len);
    assert_memory_equal(b2.s, b.s, b.len);
    tj_buf_free(&b);
    tj_buf_free(&b2);
    trace_free(&t);
    trace_free(&u);
}

static void test_nulls(void **state) {
    (void)state;
    trace t;
    build(&t);
    tj_buf b = {0};
    assert_int_equal(tj_write_trace(&t, &b), 0);
    json_t *root = json_loadb(b.s, b.len, 0, NULL);
    assert_non_null(root);
    json_t *k1 = json_array_get(json_object_get(root, "kernels"), 1);
    assert_true(json_is_null(json_object_get(k1, "issue")));
    assert_true(json_is_null(json_object_get(k1, "fully_dispatched")));
    assert_true(json_is_null(json_object_get(k1, "smem")));
    assert_true(json_is_null(json_object_get(k1, "blocks")));
    assert_string_equal(json_string_value(json_object_get(k1, "priority")), "none");
    assert_null(json_object_get(k1, "grid"));       /* unknown dims are left out */
    assert_null(json_object_get(k1, "raw_name"));
    json_t *k0 = json_array_get(json_object_get(root, "kernels"), 0);
    assert_int_equal(json_integer_value(json_object_get(k0, "priority")), -2);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(k0, "grid"), 0)), 2);
    json_t *dev = json_object_get(root, "device");
    assert_int_equal(json_integer_value(json_object_get(dev, "clock")), 1300500000);
    assert_int_equal(json_array_size(json_object_get(dev, "sm_order")), 2);
    assert_string_equal(json_string_value(json_object_get(root, "schema")), "schedlab-trace/1");
    json_decref(root);
    tj_buf_free(&b);

    /* a trace with no device says null */
    t.has_device = false;
    memset(&b, 0, sizeof b);
    assert_int_equal(tj_write_trace(&t, &b), 0);
    root = json_loadb(b.s, b.len, 0, NULL);
    assert_true(json_is_null(json_object_get(root, "device")));
    json_decref(root);
    tj_buf_free(&b);
    trace_free(&t);
}

static void test_bad_utf8(void **state) {
    (void)state;
    tj_buf b = {0};
    tj_put_str(&b, "a\xff" "b\xc3\xa9" "\x01");
    assert_string_equal(b.s, "\"a\xef\xbf\xbd" "b\xc3\xa9\\u0001\"");
    tj_buf_free(&b);
    json_t *s = tj_string("x\xc0y");
    assert_non_null(s);
    assert_string_equal(json_string_value(s), "x\xef\xbf\xbdy");
    json_decref(s);
}

static void test_parse_errors(void **state) {
    (void)state;
    char err[256];
    trace t;
    trace_init(&t);
    const char *bad_json = "{\"schema\": \"schedlab-trace/1\",\n  \"kernels\": [}";
    assert_int_equal(imp_trace_json_parse(bad_json, strlen(bad_json), "x.json", &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "x.json:2:"));
    trace_free(&t);
    trace_init(&t);
    const char *bad_field = "{\"schema\":\"schedlab-trace/1\",\"kernels\":[{\"name\":\"a\"},"
                            "{\"name\":\"b\",\"issue\":\"soon\"}]}";
    assert_int_equal(imp_trace_json_parse(bad_field, strlen(bad_field), "x.json", &t, err, sizeof err), -1);
    assert_string_equal(err, "x.json: kernels[1].issue: expected an integer or null");
    trace_free(&t);
    trace_init(&t);
    const char *bad_ref = "{\"schema\":\"schedlab-trace/1\",\"blocks\":[{\"kernel\":0,\"index\":0,"
                          "\"sm\":0,\"start\":0,\"end\":1}]}";
    assert_int_equal(imp_trace_json_parse(bad_ref, strlen(bad_ref), "x.json", &t, err, sizeof err), -1);
    assert_string_equal(err, "x.json: blocks[0].kernel: not the id of a kernel in this trace");
    trace_free(&t);
    trace_init(&t);
    const char *bad_schema = "{\"schema\":\"schedlab-scenario/1\"}";
    assert_int_equal(imp_trace_json_parse(bad_schema, strlen(bad_schema), "x.json", &t, err, sizeof err), -1);
    assert_string_equal(err, "x.json: schema: expected \"schedlab-trace/1\"");
    trace_free(&t);
}

/* Bad records are the input's fault, named at their place: a block that
 * ends before it starts (the store's CHECK refused it, as the database's
 * error and exit 1). */
static void test_bad_records(void **state) {
    (void)state;
    char err[256];
    trace t;
    trace_init(&t);
    const char *rev = "{\"schema\":\"schedlab-trace/1\",\"kernels\":[{\"id\":0,\"name\":\"K\"}],"
                      "\"blocks\":[{\"kernel\":0,\"index\":0,\"sm\":0,\"start\":0,\"end\":5},"
                      "{\"kernel\":0,\"index\":1,\"sm\":0,\"start\":50,\"end\":20}]}";
    assert_int_equal(imp_trace_json_parse(rev, strlen(rev), "x.json", &t, err, sizeof err), 0);
    assert_int_equal(imp_check_trace(&t, "x.json", err, sizeof err), -1);
    assert_string_equal(err, "x.json: blocks[1].end: 20 ns is before its start (50 ns)");
    trace_free(&t);

    /* ... and so is a copy (docs/trace-format.md: "a block's or copy's
     * `end` is not before its `start`"; the CLI's backwards-copy case in
     * tests/api/cli.test.mjs): its end is held to its start, not to its
     * `issue` (when the host issued it, "as a kernel's": at or before the
     * start). A copy issued at 0 that starts at 100 and "ends" at 50 ran
     * backwards; one that ends at 150 did not; one with no issue is held
     * to its start all the same. */
    const char *cpy[] = {
        "{\"schema\":\"schedlab-trace/1\",\"copies\":[{\"id\":0,\"name\":\"c\",\"bytes\":8,"
        "\"issue\":0,\"start\":100,\"end\":50}]}",
        "{\"schema\":\"schedlab-trace/1\",\"copies\":[{\"id\":0,\"name\":\"c\",\"bytes\":8,"
        "\"issue\":null,\"start\":100,\"end\":50}]}",
        "{\"schema\":\"schedlab-trace/1\",\"copies\":[{\"id\":0,\"name\":\"c\",\"bytes\":8,"
        "\"issue\":0,\"start\":100,\"end\":150}]}",
    };
    for (size_t i = 0; i < 3; i++) {
        trace_init(&t);
        if (imp_trace_json_parse(cpy[i], strlen(cpy[i]), "x.json", &t, err, sizeof err))
            fail_msg("%s", err);
        if (i < 2) {
            assert_int_equal(imp_check_trace(&t, "x.json", err, sizeof err), -1);
            assert_string_equal(err, "x.json: copies[0].end: 50 ns is before its start (100 ns)");
        } else {
            assert_int_equal(imp_check_trace(&t, "x.json", err, sizeof err), 0);
        }
        trace_free(&t);
    }

    /* an id is the record's place, which blocks refer to: kernels swapped
     * by hand would have taken each other's blocks */
    trace_init(&t);
    const char *swap = "{\"schema\":\"schedlab-trace/1\",\"kernels\":[{\"id\":1,\"name\":\"B\"},"
                       "{\"id\":0,\"name\":\"A\"}],\"blocks\":[{\"kernel\":0,\"index\":0,"
                       "\"sm\":0,\"start\":0,\"end\":5}]}";
    assert_int_equal(imp_trace_json_parse(swap, strlen(swap), "x.json", &t, err, sizeof err), -1);
    assert_string_equal(err, "x.json: kernels[0].id: 1 is not the record's place in \"kernels\" "
                             "(0); records are listed by id");
    trace_free(&t);
    trace_init(&t);
    const char *cid = "{\"schema\":\"schedlab-trace/1\",\"copies\":[{\"id\":null,\"name\":\"a\"},"
                      "{\"id\":\"1\",\"name\":\"b\"}]}";
    assert_int_equal(imp_trace_json_parse(cid, strlen(cid), "x.json", &t, err, sizeof err), -1);
    assert_string_equal(err, "x.json: copies[1].id: expected 1 (the record's place in \"copies\") "
                             "or null");
    trace_free(&t);

    /* ... and so is an id repeated (kernel 1 listed as 0) */
    trace_init(&t);
    const char *rep = "{\"schema\":\"schedlab-trace/1\",\"kernels\":[{\"id\":0,\"name\":\"A\"},"
                      "{\"id\":0,\"name\":\"B\"}]}";
    assert_int_equal(imp_trace_json_parse(rep, strlen(rep), "x.json", &t, err, sizeof err), -1);
    assert_string_equal(err, "x.json: kernels[1].id: 0 is not the record's place in \"kernels\" "
                             "(1); records are listed by id");
    trace_free(&t);

    /* a cohort of one wave (per_wave = count, docs/trace-format.md: 1..count)
     * is read: three blocks from index 2, stride 1, all at 10-40 ns */
    trace_init(&t);
    const char *one = "{\"schema\":\"schedlab-trace/1\",\"kernels\":[{\"id\":0,\"name\":\"K\","
                      "\"blocks\":5}],\"cohorts\":[{\"kernel\":0,\"sm\":1,\"index\":2,"
                      "\"stride\":1,\"count\":3,\"per_wave\":3,\"start\":10,\"end\":40,"
                      "\"period\":30}]}";
    if (imp_trace_json_parse(one, strlen(one), "x.json", &t, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(imp_check_trace(&t, "x.json", err, sizeof err), 0);
    assert_int_equal(trace_expand_cohorts(&t), 0);
    assert_int_equal(t.blocks.n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(t.blocks.v[i].index, (int32_t)(2 + i));
        assert_int_equal(t.blocks.v[i].start, 10);
        assert_int_equal(t.blocks.v[i].end, 40);
    }
    trace_free(&t);

    /* a repeated top-level key is named (the reader walks the top level
     * itself; jansson names the others) */
    trace_init(&t);
    const char *dup = "{\"schema\":\"schedlab-trace/1\",\"name\":\"a\",\"name\":\"b\"}";
    assert_int_equal(imp_trace_json_parse(dup, strlen(dup), "x.json", &t, err, sizeof err), -1);
    assert_string_equal(err, "x.json:1:41: JSON: duplicate object key \"name\"");
    trace_free(&t);
}

/* host_calls (trace.h; docs/trace-format.md): a run's calls read back as
 * written and write out byte for byte the same, before or after the
 * records they name; a call naming no record, two kinds, an unknown scope,
 * an end before its issue or a blocking kernel is refused, naming it. */
static void test_host_calls(void **state) {
    (void)state;
    char err[256];
    trace t;
    const char *head = "{\"schema\":\"schedlab-trace/1\",\"name\":\"h\",\"source\":\"simulation\","
                       "\"origin\":0,\"device\":null,\"meta\":{},";
    const char *recs = "\n\"kernels\":[{\"id\":0,\"name\":\"K4\"}],\n\"copies\":[{\"id\":0,"
                       "\"name\":\"C\"}]";
    const char *calls = "\n\"host_calls\":[{\"kernel\":0,\"at\":200,\"task\":\"tau1\"},\n"
                        "{\"sync\":\"Y\",\"stream\":\"S2\",\"process\":\"P0\",\"scope\":\"device\","
                        "\"at\":200,\"issue\":300,\"end\":2000,\"task\":\"tau1\"},\n"
                        "{\"copy\":0,\"at\":400,\"blocking\":true}]";
    char text[2048];
    for (int order = 0; order < 2; order++) {
        /* written order, then the calls before the records they name */
        snprintf(text, sizeof text, "%s%s,%s}", head, order ? calls + 1 : recs + 1,
                 order ? recs + 1 : calls + 1);
        trace_init(&t);
        int rc = imp_trace_json_parse(text, strlen(text), "h.json", &t, err, sizeof err);
        if (rc) fprintf(stderr, "%s\n", err);
        assert_int_equal(rc, 0);
        assert_int_equal(t.host_calls.n, 3);
        const trace_host_call *c = t.host_calls.v;
        assert_int_equal(c[0].kind, TRACE_CALL_KERNEL);
        assert_int_equal(c[0].record, 0);
        assert_int_equal(c[0].at, 200);
        assert_string_equal(trace_str_get(&t, c[0].task), "tau1");
        assert_int_equal(c[1].kind, TRACE_CALL_DEVICE_SYNC);
        assert_string_equal(trace_str_get(&t, c[1].name), "Y");
        assert_string_equal(trace_str_get(&t, c[1].stream), "S2");
        assert_int_equal(c[1].issue, 300);
        assert_int_equal(c[1].end, 2000);
        assert_int_equal(c[2].kind, TRACE_CALL_COPY);
        assert_true(c[2].blocking);
        assert_int_equal(c[2].task, 0);
        tj_buf b = {0};
        assert_int_equal(tj_write_trace(&t, &b), 0);
        assert_non_null(strstr(b.s, calls));
        if (order == 0) {
            trace u;
            trace_init(&u);
            assert_int_equal(imp_trace_json_parse(b.s, b.len, "h.json", &u, err, sizeof err), 0);
            tj_buf b2 = {0};
            assert_int_equal(tj_write_trace(&u, &b2), 0);
            assert_int_equal(b2.len, b.len);
            assert_memory_equal(b2.s, b.s, b.len);
            tj_buf_free(&b2);
            trace_free(&u);
        }
        tj_buf_free(&b);
        trace_free(&t);
    }
    static const struct { const char *call, *msg; } bad[] = {
        {"{\"kernel\":1,\"at\":0}", "h.json: host_calls[0].kernel: not the id of a kernel in this trace"},
        {"{\"copy\":3,\"at\":0}", "h.json: host_calls[0].copy: not the id of a copy in this trace"},
        {"{\"kernel\":0,\"copy\":0}", "h.json: host_calls[0]: expected one of \"kernel\", \"copy\" "
                                      "(a record's id) and \"sync\" (its name)"},
        {"{\"sync\":\"Y\",\"stream\":\"S\",\"scope\":\"task\"}",
         "h.json: host_calls[0].scope: expected \"stream\" or \"device\""},
        {"{\"sync\":\"Y\"}", "h.json: host_calls[0].stream: missing: a sync names its stream"},
        {"{\"sync\":\"Y\",\"stream\":\"S\",\"issue\":5,\"end\":4}",
         "h.json: host_calls[0].end: before its issue"},
        {"{\"kernel\":0,\"blocking\":true}",
         "h.json: host_calls[0].blocking: only a copy blocks its task (TX2 paper §2.3: a kernel "
         "launch is asynchronous; a sync blocks by what it is)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "%s%s,\"host_calls\":[%s]}", head, recs + 1, bad[i].call);
        trace_init(&t);
        assert_int_equal(imp_trace_json_parse(text, strlen(text), "h.json", &t, err, sizeof err), -1);
        assert_string_equal(err, bad[i].msg);
        trace_free(&t);
    }
    /* a time out of range is the range check's (as every record's) */
    snprintf(text, sizeof text, "%s%s,\"host_calls\":[{\"kernel\":0,\"at\":%lld}]}", head,
             recs + 1, (long long)INT64_MAX);
    trace_init(&t);
    assert_int_equal(imp_trace_json_parse(text, strlen(text), "h.json", &t, err, sizeof err), 0);
    assert_int_equal(imp_check_trace(&t, "h.json", err, sizeof err), -1);
    assert_non_null(strstr(err, "host_calls[0].at:"));
    trace_free(&t);
}

static json_t *find_event(json_t *events, const char *ph, const char *name, json_int_t pid) {
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), ph) == 0 &&
            strcmp(json_string_value(json_object_get(e, "name")), name) == 0 &&
            json_integer_value(json_object_get(e, "pid")) == pid)
            return e;
    }
    return NULL;
}

static void test_chrome(void **state) {
    (void)state;
    trace t;
    build(&t);
    tj_buf b = {0};
    assert_int_equal(tj_write_chrome(&t, &b), 0);
    /* ts/dur are exact: 1000001234 - 1500 ns = 999999.734 us */
    assert_non_null(strstr(b.s, "\"ts\":1.500,\"dur\":999999.734"));
    json_error_t je;
    json_t *root = json_loadb(b.s, b.len, 0, &je);
    assert_non_null(root);
    json_t *ev = json_object_get(root, "traceEvents");
    assert_true(json_is_array(ev));
    /* 1 device name + 2 x (SM name, sort) + 2 blocks + 2 process names + 2 stream names
     * + 2 kernels + 1 copy + task process + task thread + 1 job */
    assert_int_equal(json_array_size(ev), 1 + 4 + 2 + 2 + 2 + 2 + 1 + 2 + 1);
    size_t i;
    json_t *e;
    int blocks = 0;
    json_array_foreach(ev, i, e) {
        json_t *cat = json_object_get(e, "cat");
        if (cat && strcmp(json_string_value(cat), "block") == 0) {
            blocks++;
            assert_int_equal(json_integer_value(json_object_get(e, "pid")), 1);
            assert_string_equal(json_string_value(json_object_get(e, "name")), "K1");
        }
    }
    assert_int_equal(blocks, 2);
    /* the block on SM 1 is on tid 1 */
    json_t *pn = find_event(ev, "M", "process_name", 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(pn, "args"), "name")),
                        "tx2 (SMs)");
    json_t *k1 = find_event(ev, "X", "K1", 2);       /* P0 is pid 2 */
    assert_non_null(k1);
    assert_int_equal(json_integer_value(json_object_get(k1, "tid")), 1);
    assert_true(json_number_value(json_object_get(k1, "ts")) == 1.5);
    json_t *c1 = find_event(ev, "X", "C1", 2);       /* same stream S1: same track */
    assert_non_null(c1);
    assert_int_equal(json_integer_value(json_object_get(c1, "tid")), 1);
    assert_true(json_number_value(json_object_get(c1, "dur")) == 0.01);
    json_t *k2 = find_event(ev, "X", "quote\"and\\tab\t", 3);   /* P1 is pid 3 */
    assert_non_null(k2);
    assert_int_equal(json_integer_value(json_object_get(k2, "tid")), 1);
    json_t *job = find_event(ev, "X", "tau #1", 4);
    assert_non_null(job);
    assert_true(json_number_value(json_object_get(job, "dur")) == 2.0);
    json_decref(root);
    tj_buf_free(&b);
    /* times lie within +-2^62 ns of the origin (docs/trace-format.md), so
     * before it too: a copy that ran before the origin keeps its sign,
     * -2030 ns is -2.030 us (mutant: tj-us-sign) */
    t.copies.v[0].start = -2030;
    t.copies.v[0].end = -20;
    assert_int_equal(tj_write_chrome(&t, &b), 0);
    assert_non_null(strstr(b.s, "\"ts\":-2.030,\"dur\":2.010"));
    tj_buf_free(&b);
    trace_free(&t);
}

/* A trace of several GPUs (DESIGN §5): the Perfetto form gives each GPU's
 * SMs tracks of their own, so that SM 0 of one GPU is not SM 0 of another. */
static void test_chrome_gpus(void **state) {
    (void)state;
    trace t;
    build(&t);
    assert_int_equal(trace_add_device(&t, &t.device), 0);
    assert_int_equal(trace_add_device(&t, &t.device), 1);
    t.kernels.v[0].device = 1;   /* K1's blocks, on SMs 1 and 0 of GPU 1 */
    tj_buf b = {0};
    assert_int_equal(tj_write_chrome(&t, &b), 0);
    json_error_t je;
    json_t *root = json_loadb(b.s, b.len, 0, &je);
    assert_non_null(root);
    json_t *ev = json_object_get(root, "traceEvents");
    json_t *pn = find_event(ev, "M", "process_name", 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(pn, "args"), "name")),
                        "2 GPUs (SMs)");
    /* tracks 0, 1: GPU 0's SMs; 2, 3: GPU 1's; the blocks on GPU 1's */
    size_t i;
    json_t *e;
    int named = 0, blocks = 0;
    json_array_foreach(ev, i, e) {
        const char *nm = json_string_value(json_object_get(e, "name"));
        json_int_t tid = json_integer_value(json_object_get(e, "tid"));
        if (strcmp(json_string_value(json_object_get(e, "ph")), "M") == 0 &&
            strcmp(nm, "thread_name") == 0 && json_integer_value(json_object_get(e, "pid")) == 1) {
            char want[32];
            snprintf(want, sizeof want, "GPU %d SM %d", (int)(tid / 2), (int)(tid % 2));
            assert_string_equal(json_string_value(json_object_get(json_object_get(e, "args"), "name")),
                                want);
            named++;
        }
        json_t *cat = json_object_get(e, "cat");
        if (cat && strcmp(json_string_value(cat), "block") == 0) {
            json_int_t sm = json_integer_value(json_object_get(json_object_get(e, "args"), "index")) ? 0 : 1;
            assert_int_equal(tid, 2 + sm);
            blocks++;
        }
    }
    assert_int_equal(named, 4);
    assert_int_equal(blocks, 2);
    json_decref(root);
    tj_buf_free(&b);
    trace_free(&t);
}

/* ---- keys a record does not have ---------------------------------------------
 * docs/trace-format.md: a reader passes over keys it does not know (a newer
 * writer may add some) and says so in the import's warnings, once per array
 * and key, with how many records had it and the first. */
static void test_unknown_keys_warned(void **state) {
    (void)state;
    static const char text[] =
        "{\"schema\":\"schedlab-trace/1\",\"kernels\":["
        "{\"id\":0,\"name\":\"K\",\"colour\":\"red\"},"
        "{\"id\":1,\"name\":\"K2\",\"colour\":\"blue\",\"frist_block\":3}],"
        "\"blocks\":[{\"kernel\":1,\"index\":0,\"sm\":0,\"start\":0,\"end\":5,\"x\":1}]}";
    trace t;
    trace_init(&t);
    char err[256] = "";
    assert_int_equal(imp_trace_json_parse(text, sizeof text - 1, "u.json", &t, err, sizeof err), 0);
    assert_int_equal(t.kernels.n, 2);
    assert_int_equal(t.kernels.v[1].first_block, TRACE_NONE);   /* the misspelt key is not read */
    assert_int_equal(imp_warnings_total(&t), 3);
    assert_string_equal(trace_get_meta(&t, IMP_WARNINGS_KEY),
        "u.json: kernels.colour: not a key schedlab-trace/1 has (docs/trace-format.md), passed "
        "over in 2 records, the first kernels[0]\n"
        "u.json: kernels.frist_block: not a key schedlab-trace/1 has (docs/trace-format.md), "
        "passed over in 1 record, the first kernels[1]\n"
        "u.json: blocks.x: not a key schedlab-trace/1 has (docs/trace-format.md), passed over "
        "in 1 record, the first blocks[0]");
    trace_free(&t);

    /* 20 distinct keys on one job: 16 named, then one line for the rest */
    char many[2048];
    int n = snprintf(many, sizeof many, "{\"schema\":\"schedlab-trace/1\",\"jobs\":[{\"task\":\"T\"");
    for (int k = 0; k < 20; k++) n += snprintf(many + n, sizeof many - (size_t)n, ",\"k%02d\":1", k);
    n += snprintf(many + n, sizeof many - (size_t)n, "}]}");
    trace_init(&t);
    assert_int_equal(imp_trace_json_parse(many, (size_t)n, "m.json", &t, err, sizeof err), 0);
    assert_int_equal(imp_warnings_total(&t), 17);
    assert_non_null(strstr(trace_get_meta(&t, IMP_WARNINGS_KEY), "jobs.k15: not a key"));
    assert_null(strstr(trace_get_meta(&t, IMP_WARNINGS_KEY), "jobs.k16: not a key"));
    assert_non_null(strstr(trace_get_meta(&t, IMP_WARNINGS_KEY),
                           "m.json: 4 more unknown keys passed over in records"));
    trace_free(&t);
}

/* What the writer writes, the reader knows: every shipped scenario's golden
 * trace (kernels, blocks, copies, pauses, queue events, warp issues and
 * epochs, jobs, host calls) reads back without a warning. */
static void test_golden_keys_known(void **state) {
    (void)state;
    const char *root = getenv("SCHEDLAB_ROOT");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s%stests/golden/scenarios", root ? root : "", root ? "/" : "");
    DIR *d = opendir(dir);
    assert_non_null(d);
    int read = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 11 || strcmp(e->d_name + l - 11, ".trace.json") != 0) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        char *text = malloc((size_t)len + 1);
        assert_non_null(text);
        assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
        fclose(f);
        trace t;
        trace_init(&t);
        char err[512] = "";
        if (imp_trace_json_parse(text, (size_t)len, e->d_name, &t, err, sizeof err) != 0)
            fail_msg("%s", err);
        const char *w = trace_get_meta(&t, IMP_WARNINGS_KEY);
        if (w) fail_msg("%s", w);
        trace_free(&t);
        free(text);
        read++;
    }
    closedir(d);
    assert_true(read >= 100);   /* 144 at the time of writing */

    /* no golden has two GPUs: a block's and a kernel's "device" (DESIGN §5;
     * cohorts: test_cohort_props) */
    trace t, u;
    build(&t);
    assert_int_equal(trace_add_device(&t, &t.device), 0);
    assert_int_equal(trace_add_device(&t, &t.device), 1);
    t.kernels.v[0].device = 1;
    tj_buf b = {0};
    assert_int_equal(tj_write_trace(&t, &b), 0);
    assert_non_null(strstr(b.s, ",\"device\":1}"));
    trace_init(&u);
    char err[256] = "";
    assert_int_equal(imp_trace_json_parse(b.s, b.len, "gpus.json", &u, err, sizeof err), 0);
    assert_null(trace_get_meta(&u, IMP_WARNINGS_KEY));
    tj_buf_free(&b);
    trace_free(&t);
    trace_free(&u);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chrome_gpus),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_uvm_direction),
        cmocka_unit_test(test_nulls),
        cmocka_unit_test(test_bad_utf8),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_host_calls),
        cmocka_unit_test(test_chrome),
        cmocka_unit_test(test_unknown_keys_warned),
        cmocka_unit_test(test_golden_keys_known),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
