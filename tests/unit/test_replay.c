/* test_replay.c -- replay_scenario (server/app/replay.h): a measured trace back
 * into a schedlab-scenario/1, pinned exactly (issue 7, "Pin today's
 * behaviour first"). The trace is built in memory; every expected value is
 * derived by hand next to the assertion. Each assertion group names the
 * mutant of tests/mutation/mutants.txt that breaks it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../server/app/replay.h"

/* Kernel `name` (raw_name `raw` unless NULL) on process/stream. */
static trace_kernel *add_kernel(trace *t, const char *name, const char *raw, const char *proc,
                                const char *stream, int64_t issue) {
    trace_str n = trace_intern(t, name);
    trace_str r = raw ? trace_intern(t, raw) : 0;
    trace_str p = trace_intern(t, proc);
    trace_str s = trace_intern(t, stream);
    trace_kernel *k = trace_add_kernel(t);
    assert_non_null(k);
    k->name = n;
    k->raw_name = r;
    k->process = p;
    k->stream = s;
    k->issue = issue;
    return k;
}

static void add_block(trace *t, int32_t kernel, int32_t index, int64_t start, int64_t end) {
    trace_block *b = trace_add_block(t);
    assert_non_null(b);
    b->kernel = kernel;
    b->index = index;
    b->sm = 0;
    b->start = start;
    b->end = end;
}

static void add_copy(trace *t, const char *name, const char *proc, const char *stream,
                     int64_t issue, int64_t bytes, trace_copy_dir dir) {
    trace_str n = trace_intern(t, name), p = trace_intern(t, proc), s = trace_intern(t, stream);
    trace_copy *c = trace_add_copy(t);
    assert_non_null(c);
    c->name = n;
    c->process = p;
    c->stream = s;
    c->issue = issue;
    c->start = issue + 10;
    c->end = issue + 20;
    c->bytes = bytes;
    c->direction = dir;
}

static char *dump(const json_t *j) {
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    assert_non_null(s);
    return s;
}

/* A measured trace (no device: replayed on the tx2 preset):
 *   kernel 0 "void foo<float, 128>(float*)" (raw _Z3fooIfLi128EEvPT_), P0/S1,
 *            issued at 500, started at 1000, 3 x 128 threads; blocks 0
 *            (300 ns) and 2 (500 ns) recorded, block 1 not: it gets the
 *            mean of the known, 400.
 *   kernel 1 "K2", P1/S1, issued at 500 and started at 1000 too (a tie:
 *            trace order keeps it after kernel 0), priority -1, no blocks:
 *            grid 2x1x1 of 32x2x1 threads -> 2 blocks of 64, which the 2
 *            SMs of the tx2 hold in one wave: block_time = end -
 *            first_block = 2000. S1 is taken by P0, so its stream is "S1@P1".
 *   kernel 2 "K0", P0/null, issued and started at -100: issued at 0 (a
 *            scenario starts at 0; the others keep their times). No
 *            blocks: one block_time, end - first_block = 0 - -100 = 100.
 *   copy "C1" P0/S1 issued at 1600, 4096 B h2d, 10 ns measured: "duration".
 *   copy "M" a memset issued at 1700, 10 ns: direction "memset", kept.
 * Launch latency: the median issue -> start gap of kernels nothing held
 * back: K0 0, foo 500, K2 500 -> 500.
 * The ops, by time then start then trace order: K0 (0), foo (500), K2
 * (500), C1 (1600), M (1700). The NULL stream is implicit: streams are S1
 * (P0, none), S1@P1 (P1, -1). */
static void build(trace *t) {
    trace_init(t);
    trace_set_name(t, "measured");
    trace_set_source(t, "examiner-json");
    trace_kernel *k = add_kernel(t, "void foo<float, 128>(float*)", "_Z3fooIfLi128EEvPT_", "P0",
                                 "S1", 500);
    k->blocks = 3;
    k->threads = 128;
    k->smem = 0;
    k->first_block = 1000;
    k->end = 1500;   /* block 2 ends last */
    add_block(t, 0, 0, 1000, 1300);
    add_block(t, 0, 2, 1000, 1500);
    k = add_kernel(t, "K2", NULL, "P1", "S1", 500);
    k->priority = -1;
    k->grid[0] = 2;
    k->grid[1] = k->grid[2] = 1;
    k->block[0] = 32;
    k->block[1] = 2;
    k->block[2] = 1;
    k->first_block = 1000;
    k->end = 3000;
    k = add_kernel(t, "K0", NULL, "P0", "null", -100);
    k->blocks = 1;
    k->threads = 32;
    k->regs = 16;
    k->first_block = -100;
    k->end = 0;
    add_copy(t, "C1", "P0", "S1", 1600, 4096, TRACE_COPY_H2D);
    add_copy(t, "M", "P0", "S1", 1700, 64, TRACE_COPY_MEMSET);
}

static void test_replay_scenario(void **state) {
    (void)state;
    trace t;
    build(&t);
    json_t *scn = NULL;
    char *s;
    char err[256] = "";
    assert_int_equal(replay_scenario(&t, "run x", "tx2", &scn, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_non_null(scn);
    assert_string_equal(json_string_value(json_object_get(scn, "schema")), "schedlab-scenario/1");
    assert_string_equal(json_string_value(json_object_get(scn, "name")), "Replay of measured");
    assert_string_equal(json_string_value(json_object_get(scn, "device")), "tx2");
    assert_string_equal(json_string_value(json_object_get(scn, "description")),
                        "Derived by `schedlab replay` from run x (source examiner-json) on the "
                        "preset tx2, as asked: 3 kernels (2 with the block time that gives their "
                        "measured duration alone), 1 copies and 1 memsets at their measured "
                        "durations (copies plus the 0 ns the engine left between copies), "
                        "launch latency 500 ns; 0 records without the times a scenario needs "
                        "were left out. 1 ops whose issue falls before the trace's start (e.g. "
                        "launched before the profiler's window: no launch call) are issued at 0 "
                        "with the rest of the launch latency as their own, so they reach their "
                        "stream when they did.");
    s = dump(json_object_get(scn, "policy"));
    assert_string_equal(s, "{\"launch_latency\":500,\"placement\":\"most-room\"}");
    free(s);

    /* stream names unique across processes (mutant: replay-stream-clash) */
    s = dump(json_object_get(scn, "streams"));
    assert_string_equal(s, "[{\"name\":\"S1\",\"priority\":\"none\",\"process\":\"P0\"},"
                           "{\"name\":\"S1@P1\",\"priority\":-1,\"process\":\"P1\"}]");
    free(s);

    /* The kernel keeps its demangled name with its template arguments,
     * "foo<float, 128>", not the mangled form whose T_ refers back to them
     * (mutant: replay-raw-name). Block 1's time is the mean of the recorded
     * ones (mutant: replay-mean-all-blocks); times start at 0 (mutant:
     * replay-no-clamp), K0, issued at -100, at 0 with the 400 ns of the
     * 500 ns launch latency left as its own, so it still reaches its stream
     * at 400 (docs/replay-fidelity.md); kernels issued and started together keep trace order
     * (mutant: replay-tie-reversed); the memset keeps its place with its
     * measured duration. */
    json_t *ops = json_object_get(scn, "ops");
    assert_int_equal(json_array_size(ops), 5);
    static const char *want[5] = {
        "{\"at\":0,\"block_time\":100,\"blocks\":1,\"kernel\":\"K0\",\"launch_latency\":400,"
        "\"process\":\"P0\",\"regs\":16,\"stream\":\"null\",\"threads\":32}",
        "{\"at\":500,\"block_time\":[300,400,500],\"blocks\":3,"
        "\"kernel\":\"void foo<float, 128>(float*)\",\"process\":\"P0\",\"smem\":0,"
        "\"stream\":\"S1\",\"threads\":128}",
        "{\"at\":500,\"block_time\":2000,\"blocks\":2,\"kernel\":\"K2\",\"process\":\"P1\","
        "\"stream\":\"S1@P1\",\"threads\":64}",
        "{\"at\":1600,\"bytes\":4096,\"copy\":\"C1\",\"direction\":\"h2d\",\"duration\":10,"
        "\"process\":\"P0\",\"stream\":\"S1\"}",
        "{\"at\":1700,\"bytes\":64,\"copy\":\"M\",\"direction\":\"memset\",\"duration\":10,"
        "\"process\":\"P0\",\"stream\":\"S1\"}",
    };
    for (size_t i = 0; i < 5; i++) {
        s = dump(json_array_get(ops, i));
        if (strcmp(s, want[i]) != 0) fail_msg("ops[%zu]: %s\n  expected %s", i, s, want[i]);
        free(s);
    }
    json_decref(scn);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_scenario),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
