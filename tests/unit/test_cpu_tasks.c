/* test_cpu_tasks.c -- the host's CPU tasks (sim_stream.task, simcore/
 * cpu_tasks.c, streams.c): what blocks the calling program blocks every
 * stream it issues to.
 *
 * TX2 paper §2.2: a "task" is an OS thread of a process; §3.2 (Fig. 3,
 * Fig. 4): "tau0 uses a single stream, S1, and tau1 uses two streams, S2
 * and S3". §2.3: "Kernel launches are asynchronous with respect to the CPU
 * program ... By default, copy operations are synchronous with respect to
 * a CPU program: they do not return until the copy is complete ... Copy
 * operations, whether synchronous or asynchronous, will not start until
 * all prior kernel launches from the same stream have finished." A sync
 * (cudaStreamSynchronize) returns when its stream's earlier work has
 * completed; until a blocking call returns, the program (its task) issues
 * nothing, to any stream. Without "task" every stream is a task of its
 * own (test_sim_rules.c, test_host_sync). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_sim_util.h"

/* Fig. 3 with its tasks named as Fig. 4 gives them, and tau1 calling
 * cudaStreamSynchronize(S2) right after launching K4 (at 0.2 s, after K4
 * in issue order). */
static void fig3_tasks(tb *b, const char *s3_task) {
    tb_fig3(b);
    b->streams[0].task = "tau0";
    b->streams[1].task = "tau1";
    b->streams[2].task = s3_task;
    tb_op(b, SIM_OP_SYNC, "sync", 1, 200 * MS);
}

/* The host's call of a sync named `name` (trace_host_call: a sync is no
 * record of its own, only a call with when it was called and returned). */
static const trace_host_call *sync_call(const trace *t, const char *name) {
    for (size_t i = 0; i < t->host_calls.n; i++) {
        const trace_host_call *c = &t->host_calls.v[i];
        const char *n = trace_str_get(t, c->name);
        if ((c->kind == TRACE_CALL_SYNC || c->kind == TRACE_CALL_DEVICE_SYNC) && n &&
            strcmp(n, name) == 0)
            return c;
    }
    fail_msg("no sync call named %s", name);
    return NULL;
}

/* K5 is issued to S3 by tau1 after its sync on S2: it waits in the CPU
 * program until K4 has completed (Fig. 3: K4's blocks run 1 s to 2 s,
 * §3.2 (b)-(c): "Upon completion of K1 and K4, both of K5's blocks are
 * assigned"), and so does C5o behind it; tau0's work and tau1's K6 (at
 * 2.8 s, after the sync returned) are issued at their times. */
static void test_fig3_sync_blocks_task(void **state) {
    (void)state;
    tb b;
    trace t;
    fig3_tasks(&b, "tau1");
    tb_run(&b, &t);
    const trace_kernel *k4 = kern(&t, "K4"), *k5 = kern(&t, "K5");
    assert_int_equal(k4->issue, 200 * MS);
    assert_int_equal(k4->end, 2 * SEC);
    assert_int_equal(k5->issue, k4->end);
    assert_int_equal(copy_named(&t, "C5o")->issue, k4->end);
    assert_int_equal(kern(&t, "K1")->issue, 0);
    assert_int_equal(kern(&t, "K3")->issue, 0);
    assert_int_equal(kern(&t, "K6")->issue, 2800 * MS);
    /* the sync was called at 0.2 s (tau1 was not held) and returned when
     * K4, S2's earlier work, completed */
    assert_int_equal(sync_call(&t, "sync")->issue, 200 * MS);
    assert_int_equal(sync_call(&t, "sync")->end, k4->end);
    /* K5 is nowhere before it is issued: S3 is empty at 0.5 s and 1.9 s */
    char q[64];
    queue_at(&t, "stream:P0/S3", 500 * MS, q, sizeof q);
    assert_string_equal(q, "");
    queue_at(&t, "stream:P0/S3", 1900 * MS, q, sizeof q);
    assert_string_equal(q, "");
    /* the sync sits behind K4 in S2 until K4 completes */
    queue_at(&t, "stream:P0/S2", 500 * MS, q, sizeof q);
    assert_string_equal(q, "K4 sync");
    trace_free(&t);
}

/* The same program with S3 issued to by a task of its own: the sync on S2
 * holds nothing on S3, K5 is issued at Table 1's 0.4 s and waits in the
 * queues (R3) as in Fig. 3. */
static void test_fig3_sync_separate_task(void **state) {
    (void)state;
    tb b;
    trace t;
    fig3_tasks(&b, NULL);
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "K5")->issue, 400 * MS);
    assert_int_equal(copy_named(&t, "C5o")->issue, 400 * MS);
    char q[64];
    queue_at(&t, "stream:P0/S3", 500 * MS, q, sizeof q);
    assert_string_equal(q, "K5 C5o");
    trace_free(&t);

    /* and a task named on S3 alone is as good as none */
    fig3_tasks(&b, "tau2");
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "K5")->issue, 400 * MS);
    trace_free(&t);
}

/* A blocking copy (cudaMemcpy) returns when the copy is complete; it
 * starts only after the kernel launched before it in its stream has
 * finished (§2.3), so the task's next launch, on another stream, is
 * issued at the copy's end. An asynchronous copy holds nothing. */
static void test_blocking_copy(void **state) {
    (void)state;
    for (int blocking = 0; blocking <= 1; blocking++) {
        tb b;
        trace t;
        tb_init(&b, "tx2");
        b.cfg.device.copy_bandwidth = 256.0 * MIB / 0.2;   /* 256 MB in 0.2 s */
        int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
        int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
        b.streams[s1].task = b.streams[s2].task = "tau";
        tb_kernel(&b, "K0", s1, 0, 1, 256, 0, SEC);
        tb_copy(&b, "C", s1, 0, 256 * MIB, TRACE_COPY_D2H)->blocking = blocking;
        tb_kernel(&b, "K1", s2, 100 * MS, 1, 256, 0, SEC);
        tb_run(&b, &t);
        const trace_copy *c = copy_named(&t, "C");
        assert_int_equal(c->issue, 0);
        assert_int_equal(c->start, SEC);            /* after K0, its stream's kernel */
        assert_int_equal(c->end, SEC + 200 * MS);
        assert_int_equal(kern(&t, "K1")->issue, blocking ? c->end : 100 * MS);
        assert_int_equal(kern(&t, "K1")->first_block, blocking ? c->end : 100 * MS);
        trace_free(&t);
    }
}

/* What a task issues while blocked is launched when the call returns,
 * whichever of its streams it goes to: for "launched after" (N1, N2) B
 * and A come after the NULL stream's K, which another task launched at
 * 0.3 s while tau waited. */
static void test_held_launch_order(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    int32_t sn = tb_stream(&b, "null", "P0", SIM_PRIO_NONE);
    b.streams[s1].task = b.streams[s2].task = "tau";
    tb_kernel(&b, "K0", s1, 0, 1, 256, 0, SEC);
    tb_op(&b, SIM_OP_SYNC, "sync", s1, 0);
    tb_kernel(&b, "B", s1, 100 * MS, 1, 256, 0, SEC);
    tb_kernel(&b, "A", s2, 200 * MS, 1, 256, 0, SEC);
    tb_kernel(&b, "K", sn, 300 * MS, 1, 256, 0, SEC);
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "B")->issue, SEC);
    assert_int_equal(kern(&t, "A")->issue, SEC);
    /* K, issued at 0.3 s, before B and A reached the host's queues, runs
     * first under N1 (every other stream empty or launched after it:
     * S1 holds only K0 until 1 s, which ends at 1 s), and B and A wait
     * for it under N2 */
    assert_int_equal(kern(&t, "K")->first_block, SEC);
    assert_int_equal(kern(&t, "B")->first_block, 2 * SEC);
    assert_int_equal(kern(&t, "A")->first_block, 2 * SEC);
    trace_free(&t);
}

/* A device sync (cudaDeviceSynchronize; §2.3: the CPU program waits "for
 * all previously issued GPU operations to complete") in Fig. 3's tau1
 * after K4: it waits for everything issued before it in the address
 * space, tau0's work included, and for nothing issued after it -- tau0's
 * K7, launched at 0.3 s behind C3o on S1 and running 10 s. Without K5 in
 * the way: K2 2-3 s, C2o 3.0-3.2, C3i 3.2-3.4, K3 3.4-4.4, C3o 4.4-4.6,
 * the last of them; K4 ends at 2 s. So tau1 issues K5, C5o, K6 and C6o at
 * 4.6 s. Work of another process, ending before it, is not waited for
 * (its address space's, §2.3). */
static void test_device_sync(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_fig3(&b);
    b.streams[0].task = "tau0";
    b.streams[1].task = b.streams[2].task = "tau1";
    tb_op(&b, SIM_OP_SYNC, "dsync", 1, 200 * MS)->sync_device = true;
    tb_kernel(&b, "K7", 0, 300 * MS, 1, 256, 0, 10 * SEC);
    tb_run(&b, &t);
    int64_t last = 0;
    const char *before[] = { "K1", "K2", "K3", "K4" }, *cbefore[] = { "C2o", "C3i", "C3o" };
    for (size_t i = 0; i < 4; i++)
        if (kern(&t, before[i])->end > last) last = kern(&t, before[i])->end;
    for (size_t i = 0; i < 3; i++)
        if (copy_named(&t, cbefore[i])->end > last) last = copy_named(&t, cbefore[i])->end;
    assert_int_equal(last, 4600 * MS);
    assert_int_equal(copy_named(&t, "C3o")->end, last);
    assert_int_equal(kern(&t, "K5")->issue, last);
    assert_int_equal(copy_named(&t, "C5o")->issue, last);
    assert_int_equal(kern(&t, "K6")->issue, last);
    assert_int_equal(kern(&t, "K7")->issue, 300 * MS);
    assert_true(kern(&t, "K7")->end > last);
    /* called at 0.2 s, returned with the last of that work */
    assert_int_equal(sync_call(&t, "dsync")->issue, 200 * MS);
    assert_int_equal(sync_call(&t, "dsync")->end, last);
    /* it sits in no stream queue */
    char q[64];
    queue_at(&t, "stream:P0/S2", 500 * MS, q, sizeof q);
    assert_string_equal(q, "K4");
    trace_free(&t);

    /* with nothing outstanding it returns at once */
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P1", SIM_PRIO_NONE);
    tb_kernel(&b, "K0", s2, 0, 1, 256, 0, SEC);   /* another process's: not waited for */
    tb_op(&b, SIM_OP_SYNC, "dsync", s1, 100 * MS)->sync_device = true;
    tb_kernel(&b, "K1", s1, 100 * MS, 1, 256, 0, SEC);
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "K1")->issue, 100 * MS);
    assert_int_equal(sync_call(&t, "dsync")->issue, 100 * MS);
    assert_int_equal(sync_call(&t, "dsync")->end, 100 * MS);
    trace_free(&t);

    /* ... and another process's work ending does not count towards it: P1's
     * K0 (0-1 s) ends first and returns P1's own device sync (K3 behind it
     * is issued at 1 s); P0's own K1 (0-2 s) is what P0's sync waits for,
     * so K2, issued after it, is issued at 2 s */
    tb_init(&b, "tx2");
    s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    s2 = tb_stream(&b, "S2", "P1", SIM_PRIO_NONE);
    tb_kernel(&b, "K0", s2, 0, 1, 256, 0, SEC);
    tb_kernel(&b, "K1", s1, 0, 1, 256, 0, 2 * SEC);
    tb_op(&b, SIM_OP_SYNC, "dsync", s1, 100 * MS)->sync_device = true;
    tb_op(&b, SIM_OP_SYNC, "dsync1", s2, 100 * MS)->sync_device = true;
    tb_kernel(&b, "K2", s1, 100 * MS, 1, 256, 0, SEC);
    tb_kernel(&b, "K3", s2, 100 * MS, 1, 256, 0, SEC);
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "K0")->end, SEC);
    assert_int_equal(kern(&t, "K1")->end, 2 * SEC);
    assert_int_equal(kern(&t, "K3")->issue, SEC);
    assert_int_equal(kern(&t, "K2")->issue, 2 * SEC);
    assert_int_equal(sync_call(&t, "dsync1")->end, SEC);
    assert_int_equal(sync_call(&t, "dsync")->end, 2 * SEC);
    trace_free(&t);

    /* a stream sync is no GPU operation a device sync waits for (§2.3:
     * "all previously issued GPU operations"): one task calls K1 (0-1 s),
     * cudaStreamSynchronize (returns at 1 s), K2 (issued then, 1-2 s),
     * cudaDeviceSynchronize (returns when K2 completes, 2 s) and K3 */
    tb_init(&b, "tx2");
    s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 1, 256, 0, SEC);
    tb_op(&b, SIM_OP_SYNC, "sync", s1, 0);
    tb_kernel(&b, "K2", s1, 0, 1, 256, 0, SEC);
    tb_op(&b, SIM_OP_SYNC, "dsync", s1, 0)->sync_device = true;
    tb_kernel(&b, "K3", s1, 0, 1, 256, 0, SEC);
    tb_run(&b, &t);
    assert_int_equal(sync_call(&t, "sync")->issue, 0);
    assert_int_equal(sync_call(&t, "sync")->end, SEC);
    assert_int_equal(kern(&t, "K2")->issue, SEC);
    assert_int_equal(sync_call(&t, "dsync")->issue, SEC);
    assert_int_equal(sync_call(&t, "dsync")->end, 2 * SEC);
    assert_int_equal(kern(&t, "K3")->issue, 2 * SEC);
    trace_free(&t);
}

/* A task is an OS thread of one process (§2.2): one named on streams of
 * two processes is refused, naming the stream; a stream listed twice
 * with two tasks is refused too. */
static void test_task_refusals(void **state) {
    (void)state;
    tb b;
    trace t;
    char err[256];
    /* with two processes, and with three: the message names the earliest
     * stream in conflict with the task's first (streams[1]), not a later one */
    int32_t s1, s2;
    for (int three = 0; three <= 1; three++) {
        tb_init(&b, "tx2");
        s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
        s2 = tb_stream(&b, "S2", "P1", SIM_PRIO_NONE);
        b.streams[s1].task = b.streams[s2].task = "tau";
        if (three) b.streams[tb_stream(&b, "S3", "P2", SIM_PRIO_NONE)].task = "tau";
        tb_kernel(&b, "K", s1, 0, 1, 256, 0, SEC);
        trace_init(&t);
        assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
        assert_string_equal(err, "streams[1].task: task \"tau\" issues to streams[0] of process "
                                 "\"P0\", and a task is an OS thread of one process (TX2 paper "
                                 "§2.2), not of \"P1\"; give each process's threads names of "
                                 "their own");
        trace_free(&t);
    }

    tb_init(&b, "tx2");
    s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    s2 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    b.streams[s1].task = "tau";
    tb_kernel(&b, "K", s1, 0, 1, 256, 0, SEC);
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "streams[1].task: stream P0/S1 is listed again (streams[0]) "
                             "with another task");
    trace_free(&t);

    /* numbering: by first appearance, a stream without a task its own */
    const sim_stream ss[4] = { { .name = "A", .task = "x" }, { .name = "B" },
                               { .name = "C", .task = "x" }, { .name = "D", .task = "y" } };
    int32_t of[4];
    assert_int_equal(sim_stream_tasks(ss, 4, of, err, sizeof err), 3);
    assert_int_equal(of[0], 0);
    assert_int_equal(of[1], 1);
    assert_int_equal(of[2], 0);
    assert_int_equal(of[3], 2);
}

/* The NULL stream is every CPU program's (TX2 paper §2.3: "By default, GPU
 * operations from all CPU programs are inserted into the single default
 * stream"), so an op of it names its caller (sim_op.task). tau0 launches K1
 * on the NULL stream; tau1 calls cudaStreamSynchronize(0) at 0.1 s, which
 * returns when K1, the NULL stream's earlier work, has completed (1 s), so
 * tau1's K2 to S2 (called at 0.2 s) is issued then; tau0's K3 to S1 is
 * issued at 0.2 s and waits in S1 for K1 by rule N2. Without the op's task
 * the sync would be the NULL stream's own task's, and K2 issued at 0.2 s. */
static void test_null_stream_op_task(void **state) {
    (void)state;
    for (int named = 0; named <= 1; named++) {
        tb b;
        trace t;
        tb_init(&b, "tx2");
        int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
        int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
        int32_t nul = tb_stream(&b, "null", "P0", SIM_PRIO_NONE);
        b.streams[s1].task = "tau0";
        b.streams[s2].task = "tau1";
        tb_kernel(&b, "K1", nul, 0, 2, 1024, 0, SEC)->task = named ? "tau0" : NULL;
        tb_op(&b, SIM_OP_SYNC, "Y", nul, 100 * MS)->task = named ? "tau1" : NULL;
        tb_kernel(&b, "K2", s2, 200 * MS, 2, 1024, 0, SEC);
        tb_kernel(&b, "K3", s1, 200 * MS, 2, 1024, 0, SEC);
        tb_run(&b, &t);
        assert_int_equal(kern(&t, "K1")->end, SEC);
        assert_int_equal(kern(&t, "K2")->issue, named ? SEC : 200 * MS);
        assert_int_equal(kern(&t, "K2")->first_block, SEC);   /* N2 either way */
        assert_int_equal(kern(&t, "K3")->issue, 200 * MS);
        assert_int_equal(kern(&t, "K3")->first_block, SEC);
        /* the trace says who called what */
        assert_int_equal(t.host_calls.n, 4);
        const char *who = trace_str_get(&t, t.host_calls.v[1].task);
        assert_string_equal(who ? who : "", named ? "tau1" : "");
        assert_int_equal(t.host_calls.v[1].end, SEC);
        trace_free(&t);
    }
    /* a task that issues to the NULL stream alone is a task too: its sync
     * holds its own later NULL-stream op only */
    tb b;
    trace t;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t nul = tb_stream(&b, "null", "P0", SIM_PRIO_NONE);
    b.streams[s1].task = "tau0";
    tb_kernel(&b, "K1", s1, 0, 1, 1024, 0, SEC);
    tb_op(&b, SIM_OP_SYNC, "Y", nul, 0)->task = "main";
    tb_kernel(&b, "K2", nul, 100 * MS, 1, 1024, 0, SEC)->task = "main";
    tb_kernel(&b, "K3", s1, 100 * MS, 1, 1024, 0, SEC);
    tb_run(&b, &t);
    /* the sync on the empty NULL stream returns at once: K2 is issued at
     * 0.1 s, and waits (N1) for K1, launched before it, to end at 1 s */
    assert_int_equal(kern(&t, "K2")->issue, 100 * MS);
    assert_int_equal(kern(&t, "K2")->first_block, SEC);
    trace_free(&t);
}

/* An op's task: on the NULL stream only, and a thread of the op's own
 * process (§2.2). */
static void test_null_stream_task_refusals(void **state) {
    (void)state;
    tb b;
    trace t;
    char err[320];
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    b.streams[s1].task = "tau";
    tb_kernel(&b, "K", s1, 0, 1, 256, 0, SEC)->task = "tau";
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "ops[0].task: stream \"S1\" is issued to by its own task "
                             "(streams[].task); only an op of the NULL stream names the task "
                             "that calls it, since every CPU program of a process issues to "
                             "that one default stream (TX2 paper §2.3)");
    trace_free(&t);

    tb_init(&b, "tx2");
    s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t nul = tb_stream(&b, "null", "P1", SIM_PRIO_NONE);
    b.streams[s1].task = "tau";
    tb_kernel(&b, "K", nul, 0, 1, 256, 0, SEC)->task = "tau";
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "ops[0].task: task \"tau\" is a thread of process \"P0\" (TX2 "
                             "paper §2.2: a task is an OS thread of one process), and this op "
                             "goes to the NULL stream of \"P1\"");
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig3_sync_blocks_task),
        cmocka_unit_test(test_fig3_sync_separate_task),
        cmocka_unit_test(test_blocking_copy),
        cmocka_unit_test(test_held_launch_order),
        cmocka_unit_test(test_device_sync),
        cmocka_unit_test(test_task_refusals),
        cmocka_unit_test(test_null_stream_op_task),
        cmocka_unit_test(test_null_stream_task_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
