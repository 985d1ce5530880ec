/* test_replay_calls.c -- the host's calls of part of a trace
 * (server/app/replay_calls.h) by hand: each rule of the header on a trace
 * written here, the part's calls compared with the list the rule gives.
 *
 *  - a sync that waited for a record left out of the part (in its scope,
 *    called by its call and unfinished then, ended by its return) is left
 *    out, and its task's later calls are made when it returned; one that
 *    did not wait (the record ended at its call, was issued after it, is
 *    another process's or stream's, or is on another GPU) is kept;
 *  - the scope: the sync's stream, or the whole process for a device sync,
 *    a sync of the NULL stream, or a process whose NULL stream has work
 *    (TX2 paper §2.3, N1/N2);
 *  - a blocking copy left out holds its task until its end, a non-blocking
 *    one does not; two holds keep the later; a blocking call that never
 *    returned leaves its task's later calls unmade;
 *  - a task is the process's named CPU task, or the stream's own;
 *  - `here` leaves out another part's sync; the calls come out by `at`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../server/app/replay_calls.h"

#define OUT REPLAY_CALLS_OUT
#define ELSE REPLAY_CALLS_ELSEWHERE
#define NONE TRACE_NONE

typedef struct part {
    trace t;
    int32_t kmap[8], cmap[8];
    bool here[16];
    bool use_here;
} part;

static void part_init(part *p) {
    memset(p, 0, sizeof *p);
    trace_init(&p->t);
    trace_set_source(&p->t, "simulation");
}

/* a kernel of process proc on stream s, issued and ended then; its place
 * in the part (an index, OUT or ELSE) */
static int kern(part *p, const char *proc, const char *s, int64_t issue, int64_t end, int32_t to) {
    trace_kernel *k = trace_add_kernel(&p->t);
    k->process = trace_intern(&p->t, proc);
    k->stream = trace_intern(&p->t, s);
    k->issue = issue;
    k->first_block = issue;
    k->end = end;
    int i = (int)p->t.kernels.n - 1;
    p->kmap[i] = to;
    return i;
}

static int copy(part *p, const char *proc, const char *s, int64_t issue, int64_t end, int32_t to) {
    trace_copy *c = trace_add_copy(&p->t);
    c->process = trace_intern(&p->t, proc);
    c->stream = trace_intern(&p->t, s);
    c->issue = issue;
    c->start = issue;
    c->end = end;
    int i = (int)p->t.copies.n - 1;
    p->cmap[i] = to;
    return i;
}

/* the call of kernel or copy `rec` by task (NULL: its stream's own) at `at` */
static void call(part *p, int kind, int rec, const char *task, int64_t at, bool blocking) {
    trace_host_call *c = trace_add_host_call(&p->t);
    *c = (trace_host_call){.kind = kind, .record = rec, .at = at, .issue = NONE, .end = NONE,
                           .blocking = blocking};
    c->task = task ? trace_intern(&p->t, task) : 0;
}

/* a sync (kind) of stream s in proc by task, called at `issue`, returned at `end` */
static void sync_call(part *p, int kind, const char *proc, const char *s, const char *task,
                      int64_t issue, int64_t end) {
    trace_host_call *c = trace_add_host_call(&p->t);
    *c = (trace_host_call){.kind = kind, .record = -1, .at = issue, .issue = issue, .end = end};
    c->process = trace_intern(&p->t, proc);
    c->stream = trace_intern(&p->t, s);
    c->task = task ? trace_intern(&p->t, task) : 0;
}

typedef struct want {
    int kind, record;
    int64_t at;
} want;

/* the part's calls are `w` (n of them), in order */
static void expect(part *p, const want *w, size_t n, const char *what) {
    trace o;
    trace_init(&o);
    assert_int_equal(replay_calls_subset(&p->t, p->kmap, p->cmap, p->use_here ? p->here : NULL, &o),
                     0);
    if (o.host_calls.n != n) fail_msg("%s: %zu calls, want %zu", what, o.host_calls.n, n);
    for (size_t i = 0; i < n; i++) {
        const trace_host_call *c = &o.host_calls.v[i];
        if (c->kind != w[i].kind || c->record != w[i].record || c->at != w[i].at)
            fail_msg("%s: call %zu is kind %d record %d at %lld, want kind %d record %d at %lld",
                     what, i, c->kind, c->record, (long long)c->at, w[i].kind, w[i].record,
                     (long long)w[i].at);
        /* the part's strings are its own (every named task here is "T") */
        if (c->task) assert_string_equal(trace_str_get(&o, c->task), "T");
        if (c->stream) assert_non_null(trace_str_get(&o, c->stream));
    }
    trace_free(&o);
    trace_free(&p->t);
}

#define K TRACE_CALL_KERNEL
#define C TRACE_CALL_COPY
#define S TRACE_CALL_SYNC
#define D TRACE_CALL_DEVICE_SYNC

/* One stream: k0 left out, issued at 10, ended at `end0`; k1 kept (part
 * index 0); a sync of S1 called at 30, returning at 100; then k2 (part
 * index 1) called at 40. */
static void one_stream(part *p, int64_t issue0, int64_t end0, const char *proc0, const char *s0,
                       int32_t to0) {
    part_init(p);
    kern(p, proc0, s0, issue0, end0, to0);
    kern(p, "P0", "S1", 20, 50, 0);
    kern(p, "P0", "S1", 100, 150, 1);
    call(p, K, 0, NULL, issue0, false);
    call(p, K, 1, NULL, 20, false);
    sync_call(p, S, "P0", "S1", NULL, 30, 100);
    call(p, K, 2, NULL, 40, false);
}

static void test_what_a_sync_waited_for(void **state) {
    (void)state;
    part p;
    /* k0 ended at 100, by the sync's return: it waited; left out, k2 held to 100 */
    one_stream(&p, 10, 100, "P0", "S1", OUT);
    expect(&p, (want[]){{K, 0, 20}, {K, 1, 100}}, 2, "waited");
    /* k0 ended at 30, as the sync was called: it did not wait for it */
    one_stream(&p, 10, 30, "P0", "S1", OUT);
    expect(&p, (want[]){{K, 0, 20}, {S, -1, 30}, {K, 1, 40}}, 3, "ended at the call");
    /* k0 issued at 35, after the call */
    one_stream(&p, 35, 80, "P0", "S1", OUT);
    expect(&p, (want[]){{K, 0, 20}, {S, -1, 30}, {K, 1, 40}}, 3, "issued after");
    /* another process's stream of the same name */
    one_stream(&p, 10, 80, "P1", "S1", OUT);
    expect(&p, (want[]){{K, 0, 20}, {S, -1, 30}, {K, 1, 40}}, 3, "another process");
    /* another stream of the process */
    one_stream(&p, 10, 80, "P0", "S2", OUT);
    expect(&p, (want[]){{K, 0, 20}, {S, -1, 30}, {K, 1, 40}}, 3, "another stream");
    /* on another GPU: no sync of the part waited for it */
    one_stream(&p, 10, 80, "P0", "S1", ELSE);
    expect(&p, (want[]){{K, 0, 20}, {S, -1, 30}, {K, 1, 40}}, 3, "another GPU");
    /* a left-out record that never ended: not by the sync's return */
    one_stream(&p, 10, NONE, "P0", "S1", OUT);
    expect(&p, (want[]){{K, 0, 20}, {S, -1, 30}, {K, 1, 40}}, 3, "never ended");
}

/* k0 left out on S2 (issued at 10, ended at 80), k1 (part index 0) on
 * `stream`; a sync (kind) of `stream` called at 30, returning at 100; k1
 * called at 40. */
static void scope_case(part *p, int kind, const char *stream) {
    part_init(p);
    kern(p, "P0", "S2", 10, 80, OUT);
    kern(p, "P0", stream, 100, 150, 0);
    call(p, K, 0, NULL, 10, false);
    sync_call(p, kind, "P0", stream, NULL, 30, 100);
    call(p, K, 1, NULL, 40, false);
}

static void test_scope(void **state) {
    (void)state;
    part p;
    /* a device sync waits for every stream of its process */
    scope_case(&p, D, "S1");
    expect(&p, (want[]){{K, 0, 100}}, 1, "device sync");
    /* so does a sync of the NULL stream */
    scope_case(&p, S, "null");
    expect(&p, (want[]){{K, 0, 100}}, 1, "NULL stream's sync");
    /* and a stream's sync in a process whose NULL stream has work (k2) */
    scope_case(&p, S, "S1");
    kern(&p, "P0", "null", 200, 250, 1);
    call(&p, K, 2, NULL, 200, false);
    expect(&p, (want[]){{K, 0, 100}, {K, 1, 200}}, 2, "NULL stream busy");
    /* without k2 the same sync is its stream's only */
    scope_case(&p, S, "S1");
    expect(&p, (want[]){{S, -1, 30}, {K, 0, 40}}, 2, "NULL stream idle");
}

static void test_holds(void **state) {
    (void)state;
    part p;
    /* a blocking copy left out holds its task to its end; a non-blocking one does not */
    for (int blocking = 0; blocking < 2; blocking++) {
        part_init(&p);
        copy(&p, "P0", "S1", 10, 200, OUT);
        kern(&p, "P0", "S1", 20, 250, 0);
        call(&p, C, 0, NULL, 10, blocking);
        call(&p, K, 0, NULL, 20, false);
        expect(&p, (want[]){{K, 0, blocking ? 200 : 20}}, 1, "a copy left out");
    }
    /* two holds: the later return wins (the sync's 300 over the copy's 200) */
    part_init(&p);
    kern(&p, "P0", "S1", 10, 300, OUT);
    copy(&p, "P0", "S1", 40, 200, OUT);
    kern(&p, "P0", "S1", 300, 350, 0);
    call(&p, K, 0, NULL, 10, false);
    sync_call(&p, S, "P0", "S1", NULL, 30, 300);
    call(&p, C, 0, NULL, 40, true);
    call(&p, K, 1, NULL, 150, false);
    expect(&p, (want[]){{K, 0, 300}}, 1, "two holds");
    /* a sync that never returned, left out: its task's later calls unmade,
     * another task's made */
    part_init(&p);
    kern(&p, "P0", "S1", 10, NONE, OUT);
    kern(&p, "P0", "S1", 50, 60, 0);
    kern(&p, "P0", "S2", 50, 60, 1);
    call(&p, K, 0, NULL, 10, false);
    sync_call(&p, S, "P0", "S1", NULL, 30, NONE);
    call(&p, K, 1, NULL, 50, false);
    call(&p, K, 2, NULL, 50, false);
    expect(&p, (want[]){{K, 1, 50}}, 1, "never returned");
    /* a sync never called (its task held before it) waited for nothing */
    part_init(&p);
    kern(&p, "P0", "S1", 10, 80, OUT);
    kern(&p, "P0", "S1", 100, 150, 0);
    call(&p, K, 0, NULL, 10, false);
    sync_call(&p, S, "P0", "S1", NULL, NONE, NONE);
    p.t.host_calls.v[1].at = 30;
    call(&p, K, 1, NULL, 40, false);
    expect(&p, (want[]){{S, -1, 30}, {K, 0, 40}}, 2, "never called");
}

static void test_tasks_and_order(void **state) {
    (void)state;
    part p;
    /* task T calls on S1 and S2: its left-out sync of S1 holds its S2 call;
     * P1's task of the same name is another task, as is S3's own */
    part_init(&p);
    kern(&p, "P0", "S1", 10, 100, OUT);
    kern(&p, "P0", "S2", 40, 140, 0);
    kern(&p, "P1", "S2", 50, 60, 1);
    kern(&p, "P0", "S3", 60, 70, 2);
    call(&p, K, 0, "T", 10, false);
    sync_call(&p, S, "P0", "S1", "T", 30, 100);
    call(&p, K, 1, "T", 40, false);
    call(&p, K, 2, "T", 50, false);
    call(&p, K, 3, NULL, 60, false);
    /* the held call comes out after the later ones, by `at` */
    expect(&p, (want[]){{K, 1, 50}, {K, 2, 60}, {K, 0, 100}}, 3, "tasks");
    /* `here`: a sync of another part is left out, and holds its task */
    part_init(&p);
    kern(&p, "P0", "S1", 100, 150, 0);
    sync_call(&p, S, "P0", "S1", NULL, 30, 90);
    call(&p, K, 0, NULL, 40, false);
    p.use_here = true;
    p.here[0] = false;
    p.here[1] = true;
    expect(&p, (want[]){{K, 0, 90}}, 1, "here");
    /* calls at the same time keep the trace's order */
    part_init(&p);
    kern(&p, "P0", "S1", 10, 20, 1);
    kern(&p, "P0", "S2", 10, 20, 0);
    call(&p, K, 0, NULL, 10, false);
    call(&p, K, 1, NULL, 10, false);
    expect(&p, (want[]){{K, 1, 10}, {K, 0, 10}}, 2, "ties");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_what_a_sync_waited_for),
        cmocka_unit_test(test_scope),
        cmocka_unit_test(test_holds),
        cmocka_unit_test(test_tasks_and_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
