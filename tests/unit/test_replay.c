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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../server/app/replay.h"
#include "../../server/app/fidelity.h"
#include "../../server/app/replay_heldout.h"

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

/* A kernel of one block of `threads` threads on P0/`stream`, issued at
 * `issue`, running from `first` to `end`, no block records. */
static trace_kernel *kernel_at(trace *t, const char *name, const char *stream, int64_t issue,
                               int64_t first, int64_t end, int64_t threads) {
    trace_kernel *k = add_kernel(t, name, NULL, "P0", stream, issue);
    k->blocks = 1;
    k->threads = threads;
    k->first_block = first;
    k->end = end;
    return k;
}

/* An engine copy (or memset) on P0/`stream` with its measured times. */
static void copy_at(trace *t, const char *name, const char *stream, int64_t issue, int64_t start,
                    int64_t end, trace_copy_dir dir) {
    add_copy(t, name, "P0", stream, issue, 4096, dir);
    trace_copy *c = &t->copies.v[t->copies.n - 1];
    c->start = start;
    c->end = end;
}

/* The op of the scenario named `name` (a kernel's or a copy's). */
static json_t *op_named(json_t *scn, const char *name) {
    json_t *ops = json_object_get(scn, "ops"), *op;
    size_t i;
    json_array_foreach(ops, i, op) {
        const char *n = json_string_value(json_object_get(op, "kernel"));
        if (!n) n = json_string_value(json_object_get(op, "copy"));
        if (n && strcmp(n, name) == 0) return op;
    }
    fail_msg("no op named %s", name);
    return NULL;
}

static json_t *replay_tx2(const trace *t, replay_info *info) {
    json_t *scn = NULL;
    char err[256] = "";
    if (replay_scenario_info(t, "synthetic", "tx2", &scn, info, err, sizeof err) != 0)
        fail_msg("%s", err);
    return scn;
}

/* Per-stream launch latency (docs/replay-fidelity.md, scenario-format.md:
 * "a stream with three such kernels or more whose own median differs from
 * it by more than 10 us and 50 % launches with its own"). Stream A's five
 * kernels start 1 us after their issue, stream B's three 100 us after, one
 * at a time (nothing held back): the latency is the median of the eight
 * gaps, 1 us, and B -- exactly three kernels, REPLAY_STREAM_LATENCY_MIN --
 * launches with its own 100 us: its kernels are issued 99 us later (mutant:
 * rp-latency-min-four, which asks for more than three). */
static void test_stream_of_three_kernels_has_its_own_latency(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    char name[16];
    for (int i = 0; i < 8; i++) {
        int a = i < 5;
        int64_t issue = (int64_t)i * 1000000, gap = a ? 1000 : 100000;
        snprintf(name, sizeof name, "%c%d", a ? 'A' : 'B', i);
        kernel_at(&t, name, a ? "A" : "B", issue, issue + gap, issue + gap + 1000, 32);
    }
    replay_info info;
    json_t *scn = replay_tx2(&t, &info);
    assert_int_equal(info.launch_latency, 1000);
    assert_int_equal(info.latency_streams, 1);
    /* A's kernels at their issue; B's 99 us later (their own 100 us less
     * the policy's 1 us, which the simulator adds to every op) */
    assert_int_equal(json_integer_value(json_object_get(op_named(scn, "A0"), "at")), 0);
    for (int i = 5; i < 8; i++) {
        snprintf(name, sizeof name, "B%d", i);
        assert_int_equal(json_integer_value(json_object_get(op_named(scn, name), "at")),
                         (int64_t)i * 1000000 + 99000);
    }
    json_decref(scn);
    trace_free(&t);
}

/* A kernel issued while the copy ahead of it in its stream was still
 * running waited for that copy, not for its launch (launch_latency: "the
 * previous op of their stream had ended by their issue"; Fig. 3's K3 behind
 * C2o): its issue -> start gap is no launch latency, even though the copy
 * had ended by the kernel's start. K0 starts 500 ns after its issue on an
 * idle stream; K1, issued at 1100 behind copy C (1000..1200), starts at
 * 1300: the latency stays 500, not the median of 500 and 200 (mutant:
 * rp-latency-copy-ahead, which compares the copy's end with the kernel's
 * start). */
static void test_kernel_behind_a_copy_fits_no_latency(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    kernel_at(&t, "K0", "S", 0, 500, 600, 32);
    kernel_at(&t, "K1", "S", 1100, 1300, 1400, 32);
    copy_at(&t, "C", "S", 1000, 1000, 1200, TRACE_COPY_H2D);
    replay_info info;
    json_t *scn = replay_tx2(&t, &info);
    assert_int_equal(info.launch_latency, 500);
    json_decref(scn);
    trace_free(&t);
}

/* An op whose issue is earlier than the whole launch latency before 0 is
 * issued at 0 with what is left of the latency as its own
 * (docs/replay-fidelity.md, "Early ops"): nothing is left, so its own
 * launch_latency is 0 -- the earliest it can reach its stream -- not the
 * whole latency, which would start it that much late (the DLRM rank-1
 * trace's 7 us). K0, issued at -1000 and started at -500 (latency 500),
 * gets 0 (mutant: rp-early-op-whole-latency). */
static void test_early_op_past_the_latency_gets_none(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    kernel_at(&t, "K0", "S", -1000, -500, 0, 32);
    replay_info info;
    json_t *scn = replay_tx2(&t, &info);
    assert_int_equal(info.launch_latency, 500);
    assert_int_equal(info.early, 1);
    json_t *op = op_named(scn, "K0");
    assert_int_equal(json_integer_value(json_object_get(op, "at")), 0);
    assert_int_equal(json_integer_value(json_object_get(op, "launch_latency")), 0);
    json_decref(scn);
    trace_free(&t);
}

/* The copy engine's gap (copy_gap; scenario-format.md: "the median gap the
 * trace's copy engine left between back-to-back copies") counts only a copy
 * that was issued by the time the one before it on its engine ended, so it
 * waited only for the engine. On the tx2's one engine: C0 runs 0..1000; C1,
 * issued at 500, waited and starts 200 ns after C0's end; C2 is issued at
 * 2010, after C1 ended at 2000 (the engine idle), and starts at 2050: its
 * 50 ns are its own call's, not the engine's. The gap is 200 (mutant:
 * rp-copy-gap-idle-engine, which takes C2's 50 as well and the median of
 * both). Each copy's duration is its measured one plus the gap; the memset
 * M is on no engine ("memsets become memset ops with their measured
 * durations") and keeps its 100 ns (mutant: rp-memset-engine-gap). */
static void test_copy_gap_of_waiting_copies_only(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    copy_at(&t, "C0", "S1", 0, 0, 1000, TRACE_COPY_H2D);
    copy_at(&t, "C1", "S2", 500, 1200, 2000, TRACE_COPY_H2D);
    copy_at(&t, "C2", "S3", 2010, 2050, 3000, TRACE_COPY_H2D);
    copy_at(&t, "M", "S1", 4000, 4000, 4100, TRACE_COPY_MEMSET);
    replay_info info;
    json_t *scn = replay_tx2(&t, &info);
    assert_int_equal(info.copy_gap, 200);
    assert_int_equal(json_integer_value(json_object_get(op_named(scn, "C0"), "duration")), 1200);
    assert_int_equal(json_integer_value(json_object_get(op_named(scn, "C2"), "duration")), 1150);
    assert_int_equal(json_integer_value(json_object_get(op_named(scn, "M"), "duration")), 100);
    json_decref(scn);
    trace_free(&t);
}

static void host_call(trace *t, trace_call_kind kind, int32_t record, const char *task,
                      int64_t at) {
    trace_str tk = trace_intern(t, task);
    trace_host_call *hc = trace_add_host_call(t);
    assert_non_null(hc);
    hc->kind = kind;
    hc->record = record;
    hc->task = tk;
    hc->at = at;
    hc->issue = hc->end = TRACE_NONE;
}

/* A scripted call is issued when the host's script made it (trace.h,
 * host_calls: "the time it was scripted to call"; replay.c: "its stream's
 * order is the host's"), even when the op ahead of it in its stream was
 * called later. Tasks A and B share P0's NULL stream (TX2 paper §2.3): B
 * launches K0 at 0, synchronises (held until K0 ends at 1000) and launches
 * K1, scripted at 0 too; A launches KA at 500, which runs 1000..2000, ahead
 * of K1 (2000..3000). K1 stays at 0, where B's script called it -- the
 * replayed sync holds it -- and is not moved to KA's 500 (mutant:
 * rp-scripted-call-reordered). */
static void test_scripted_call_keeps_its_time(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    kernel_at(&t, "K0", "null", 0, 100, 1000, 32);
    kernel_at(&t, "K1", "null", 1000, 2000, 3000, 32);
    kernel_at(&t, "KA", "null", 500, 1000, 2000, 32);
    host_call(&t, TRACE_CALL_KERNEL, 0, "B", 0);
    host_call(&t, TRACE_CALL_SYNC, -1, "B", 0);
    trace_str sn = trace_intern(&t, "sync"), ss = trace_intern(&t, "null"),
              sp = trace_intern(&t, "P0");
    trace_host_call *sync = &t.host_calls.v[1];
    sync->name = sn;
    sync->stream = ss;
    sync->process = sp;
    sync->issue = 0;
    sync->end = 1000;
    host_call(&t, TRACE_CALL_KERNEL, 1, "B", 0);
    host_call(&t, TRACE_CALL_KERNEL, 2, "A", 500);
    replay_info info;
    json_t *scn = replay_tx2(&t, &info);
    assert_int_equal(json_integer_value(json_object_get(op_named(scn, "KA"), "at")), 500);
    json_t *k1 = op_named(scn, "K1");
    assert_string_equal(json_string_value(json_object_get(k1, "task")), "B");
    assert_int_equal(json_integer_value(json_object_get(k1, "at")), 0);
    json_decref(scn);
    trace_free(&t);
}

/* A trace that names its GPU but records no device (an nvprof CSV) runs
 * on the device its name names (simcore/cc.c), and "a GPU known only by
 * name is a discrete one, with an engine per direction" (replay.c; ce.h:
 * the driver's asyncEngineCount, 2 on discrete GPUs): a Tesla V100 gets
 * two copy engines, not the one an integrated GPU has (mutant:
 * rp-named-gpu-one-engine). */
static void test_named_gpu_has_two_copy_engines(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    assert_int_equal(trace_set_meta(&t, "device", "Tesla V100-SXM2-16GB"), 0);
    kernel_at(&t, "K0", "S", 0, 500, 1500, 32);
    json_t *scn = NULL;
    replay_info info;
    char err[256] = "";
    if (replay_scenario_info(&t, "named", NULL, &scn, &info, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(info.copy_engines, 2);
    json_t *dev = json_object_get(scn, "device");
    assert_true(json_is_object(dev));
    assert_int_equal(json_integer_value(json_object_get(dev, "sms")), 80);
    assert_int_equal(json_integer_value(json_object_get(dev, "copy_engines")), 2);
    json_decref(scn);
    trace_free(&t);
}

/* t's held-out prediction on the TX2, done: the report, the second half
 * as measured and as predicted */
static void heldout_done(const trace *t, const char *what, replay_heldout *h, trace *half,
                         trace *pred) {
    char err[256] = "";
    if (replay_heldout_halves(t, what, "tx2", NULL, h, NULL, half, pred, err, sizeof err))
        fail_msg("%s", err);
    if (!h->done) fail_msg("not done: %s", h->why);
}

/* The held-out prediction puts on a second-half kernel the block time the
 * first half calibrated for a kernel of the same name "and grid and block
 * size where one matches; else the median over that name"
 * (replay_heldout.h). Kernel "k" of one block runs 1 us with 32 threads,
 * 0.5 us with two blocks of 32, 5, 6 and 7 us with 64 in the first half
 * (and "z", another name, 0.3 us); the second half's 32-thread one-block
 * "k", 1 us again, is predicted with the 1 us of its own size -- no
 * duration error -- not the name's median of 5 us, nor with the two-block
 * one's or "z"'s (mutant: rp-heldout-any-size-first). Its 128-thread "k",
 * of no size the first half ran, gets the name's median over every size,
 * 5 us (the middle of 0.5, 1, 5, 6, 7), though it measured 2. The halves are cut at
 * the middle of the kernels' span (the first kernel in the list is not the
 * first to start) into [.., cut) and [cut, ..): "y", starting at the cut,
 * is the second half's, unpredicted; a copy of the first half is not the
 * second's. */
static void test_heldout_prefers_the_same_size(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    kernel_at(&t, "k", "S", 60000, 60100, 61100, 32);
    kernel_at(&t, "k", "S", 0, 100, 1100, 32);
    kernel_at(&t, "k", "S", 10000, 10100, 15100, 64);
    kernel_at(&t, "k", "S", 20000, 20100, 26100, 64);
    kernel_at(&t, "k", "S", 27000, 27100, 27600, 32)->blocks = 2;
    kernel_at(&t, "z", "S", 28000, 28100, 28400, 32);
    kernel_at(&t, "k", "T", 28400, 28500, 35500, 64);
    kernel_at(&t, "y", "S", 32000, 32100, 33100, 32);   /* 100 + (64100 - 100) / 2 */
    kernel_at(&t, "k", "S", 62000, 62100, 64100, 128);
    copy_at(&t, "c", "C", 500, 600, 900, TRACE_COPY_H2D);
    replay_heldout h;
    trace half, pred;
    heldout_done(&t, "sizes", &h, &half, &pred);
    assert_int_equal(h.split, 32100);
    assert_int_equal(h.first_kernels, 6);
    assert_int_equal(h.predicted, 2);
    assert_int_equal(h.unpredicted, 1);
    assert_int_equal(half.kernels.n, 3);
    assert_int_equal(half.copies.n, 0);
    if (!(h.dur_median < 0.01)) fail_msg("duration error %g", h.dur_median);
    int seen = 0;
    for (size_t i = 0; i < pred.kernels.n; i++) {
        const trace_kernel *k = &pred.kernels.v[i];
        if (k->threads != 128) continue;
        seen++;
        int64_t d = k->end - k->first_block;
        if (d < 4950 || d > 5050) fail_msg("the 128-thread k ran %lld ns, not the median 5000", (long long)d);
    }
    assert_int_equal(seen, 1);
    trace_free(&half);
    trace_free(&pred);
    trace_free(&t);
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The held-out report's numbers (replay_heldout.h) from its own halves:
 * the first half's four 32-thread "a" (3000, 1000, 4000, 2000 ns, in that
 * order) calibrate "a" at their median, 2000 ns (the lower of the middle
 * two, as fidelity.h's medians); the second half's ten "a" run 2000 ns
 * each whatever they measured, its "b" is unpredicted; an op issued before
 * the cut is issued at the cut. The duration errors' median and 90th
 * percentile (nearest rank), the start errors' median as a share of the
 * second half's span and the makespan difference are then those of the
 * second half as measured against as predicted, and "ok" holds only
 * where all four meet fidelity.h's targets. */
static void test_heldout_numbers(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    static const int64_t first[4][3] = {
        {0, 100, 3100}, {4000, 4100, 5100}, {6000, 6100, 10100}, {11000, 11100, 13100}};
    for (int i = 0; i < 4; i++) kernel_at(&t, "a", "S", first[i][0], first[i][1], first[i][2], 32);
    /* issue, first block, duration (errors 0, 1, 0, 0.5, 0, 0.2, 0.25, 0.2,
     * 0, 0); from the third on each is issued while the one before runs,
     * so the predicted durations move their starts */
    static const int64_t second[10][3] = {
        {30000, 36100, 2000}, {39000, 39100, 1000}, {39150, 40100, 2000}, {40150, 42100, 4000},
        {42150, 46100, 2000}, {46150, 48100, 2500}, {48150, 50600, 1600}, {50650, 52200, 2500},
        {52250, 54700, 2000}, {54750, 56700, 2000}};
    for (int i = 0; i < 10; i++)
        kernel_at(&t, "a", "S", second[i][0], second[i][1], second[i][1] + second[i][2], 32);
    kernel_at(&t, "b", "S", 60000, 60100, 61100, 32);
    replay_heldout h;
    trace half, pred;
    heldout_done(&t, "numbers", &h, &half, &pred);
    assert_int_equal(h.split, 100 + (61100 - 100) / 2);
    assert_int_equal(h.first_kernels, 4);
    assert_int_equal(h.predicted, 10);
    assert_int_equal(h.unpredicted, 1);
    assert_int_equal(half.kernels.n, 11);
    assert_int_equal(pred.kernels.n, 11);
    assert_int_equal(pred.kernels.v[0].issue, h.split);   /* issued at 30000, before the cut */
    double dur[10], start[10];
    for (int i = 0; i < 10; i++) {
        const trace_kernel *m = &half.kernels.v[i], *p = &pred.kernels.v[i];
        assert_string_equal(trace_str_get(&pred, p->name), "a");
        int64_t d = p->end - p->first_block;
        if (d < 1980 || d > 2020) fail_msg("a[%d] ran %lld ns, not the first half's 2000", i, (long long)d);
        dur[i] = fabs((double)d - (double)(m->end - m->first_block)) / (double)(m->end - m->first_block);
        start[i] = fabs((double)(p->first_block - m->first_block));
    }
    qsort(dur, 10, sizeof *dur, cmp_d);
    qsort(start, 10, sizeof *start, cmp_d);
    assert_true(dur[4] < 0.01 && dur[5] > 0.19);   /* the two middle ones differ */
    assert_true(fabs(h.dur_median - dur[4]) < 1e-12);
    assert_true(fabs(h.dur_p90 - dur[8]) < 1e-12);   /* rank ceil(0.9 x 10) = 9 */
    assert_true(dur[8] < dur[9]);
    int64_t lo, hi;
    trace_time_span(&half, &lo, &hi);
    assert_true(start[4] > 0 && start[4] != start[5]);
    assert_true(fabs(h.start_median_share - start[4] / (double)(hi - lo)) < 1e-12);
    int64_t ms_m = half.kernels.v[10].end - half.kernels.v[0].first_block;
    int64_t ms_p = pred.kernels.v[10].end - pred.kernels.v[0].first_block;
    assert_true(ms_p != ms_m);
    assert_true(fabs(h.makespan_diff - (double)(ms_p - ms_m) / (double)ms_m) < 1e-12);
    json_t *j = replay_heldout_json(&h);
    bool ok = h.dur_median <= FID_DUR_MEDIAN && h.dur_p90 <= FID_DUR_P90 &&
              h.start_median_share <= FID_START_MEDIAN && fabs(h.makespan_diff) <= FID_MAKESPAN;
    assert_int_equal(json_is_true(json_object_get(j, "ok")), ok);
    assert_false(ok);   /* a p90 of 0.5 */
    json_decref(j);
    /* the duration and makespan targets alone, each missed */
    h.dur_median = h.start_median_share = h.makespan_diff = 0;
    h.dur_p90 = FID_DUR_P90 * 2;
    j = replay_heldout_json(&h);
    assert_false(json_is_true(json_object_get(j, "ok")));
    json_decref(j);
    h.dur_p90 = 0;
    h.makespan_diff = -2 * FID_MAKESPAN;
    j = replay_heldout_json(&h);
    assert_false(json_is_true(json_object_get(j, "ok")));
    json_decref(j);
    h.makespan_diff = 0;
    j = replay_heldout_json(&h);
    assert_true(json_is_true(json_object_get(j, "ok")));
    json_decref(j);
    trace_free(&half);
    trace_free(&pred);

    /* with block records: skipped, saying why; one kernel: skipped */
    char err[256] = "";
    trace_block *b = trace_add_block(&t);
    *b = (trace_block){0, 0, 0, 100, 3100};
    assert_int_equal(replay_heldout_run(&t, "blocks", "tx2", &h, err, sizeof err), 0);
    assert_int_equal(h.done, 0);
    assert_non_null(strstr(h.why, "the trace has block records"));
    trace_free(&t);
    trace_init(&t);
    kernel_at(&t, "a", "S", 0, 100, 3100, 32);
    assert_int_equal(replay_heldout_run(&t, "one", "tx2", &h, err, sizeof err), 0);
    assert_int_equal(h.done, 0);
    assert_string_equal(h.why, "fewer than two kernels with times");
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_scenario),
        cmocka_unit_test(test_stream_of_three_kernels_has_its_own_latency),
        cmocka_unit_test(test_kernel_behind_a_copy_fits_no_latency),
        cmocka_unit_test(test_early_op_past_the_latency_gets_none),
        cmocka_unit_test(test_copy_gap_of_waiting_copies_only),
        cmocka_unit_test(test_scripted_call_keeps_its_time),
        cmocka_unit_test(test_named_gpu_has_two_copy_engines),
        cmocka_unit_test(test_heldout_prefers_the_same_size),
        cmocka_unit_test(test_heldout_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
