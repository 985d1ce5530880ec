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
 * 4.6 s. */
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
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P1", SIM_PRIO_NONE);
    b.streams[s1].task = b.streams[s2].task = "tau";
    tb_kernel(&b, "K", s1, 0, 1, 256, 0, SEC);
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "streams[1].task: task \"tau\" issues to streams[0] of process "
                             "\"P0\", and a task is an OS thread of one process (TX2 paper "
                             "§2.2), not of \"P1\"; give each process's threads names of "
                             "their own");
    trace_free(&t);

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig3_sync_blocks_task),
        cmocka_unit_test(test_fig3_sync_separate_task),
        cmocka_unit_test(test_blocking_copy),
        cmocka_unit_test(test_held_launch_order),
        cmocka_unit_test(test_device_sync),
        cmocka_unit_test(test_task_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
