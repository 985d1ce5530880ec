/* test_contexts.c -- GPU contexts and real-time tasks (issue 13): the
 * time-slice and gcaps drivers (simcore/tsg.c, driver_time_slice.c,
 * driver_gcaps.c) and the periodic-task host (host_tasks.c), with exact
 * times derived by hand next to each test.
 *
 * Sources: TX2 paper appendix A (processes are multiprogrammed by
 * preemption; a block's start-end spans time it did not run); GCAPS paper
 * (ECRTS 2024) §2 (TSG round robin, theta), §4 (task model, busy vs
 * suspend), §5.1 Algorithm 1 (restated in gcaps-analysis.md §8), Def. 2
 * (eps = alpha + theta), Lemma 8 (1) (a runlist update blocks a
 * higher-priority job of its core). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_sim_util.h"

#define US 1000LL

/* ---- a task-set builder ---------------------------------------------------- */

#define TT_MAX 16

typedef struct tt {
    sim_task tasks[TT_MAX];
    sim_segment segs[TT_MAX][8];
    size_t n;
    tb b;                    /* device, streams and ops (scripted) */
} tt;

static void tt_init(tt *s, const char *preset, const char *contexts) {
    memset(s, 0, sizeof *s);
    tb_init(&s->b, preset);
    s->b.cfg.policy.driver = sim_policy_find(SIM_TABLE_DRIVER, contexts);
    s->b.cfg.policy.host = sim_policy_find(SIM_TABLE_HOST, "tasks");
    assert_true(s->b.cfg.policy.driver >= 0 && s->b.cfg.policy.host >= 0);
    s->b.cfg.cpus = 4;
}

static sim_task *tt_task(tt *s, const char *name, int32_t cpu, int32_t prio, int64_t period,
                         int64_t offset) {
    assert_true(s->n < TT_MAX);
    sim_task *k = &s->tasks[s->n];
    memset(k, 0, sizeof *k);
    k->name = name;
    k->cpu = cpu;
    k->priority = prio;
    k->period = k->deadline = period;
    k->offset = offset;
    k->segments = s->segs[s->n];
    s->n++;
    return k;
}

static void tt_cpu(sim_task *k, int64_t c) {
    sim_segment *g = (sim_segment *)&k->segments[k->nsegments++];
    memset(g, 0, sizeof *g);
    g->kind = SIM_SEG_CPU;
    g->cpu = c;
}

static void tt_gpu(sim_task *k, int64_t misc, int64_t exec) {
    sim_segment *g = (sim_segment *)&k->segments[k->nsegments++];
    memset(g, 0, sizeof *g);
    g->kind = SIM_SEG_GPU;
    g->misc = misc;
    g->exec = exec;
}

static void tt_run(tt *s, trace *t) {
    s->b.cfg.tasks = s->tasks;
    s->b.cfg.ntasks = s->n;
    tb_run(&s->b, t);
}

static const trace_job *job(const trace *t, const char *task, int64_t j) {
    for (size_t i = 0; i < t->jobs.n; i++)
        if (t->jobs.v[i].job == j && strcmp(trace_str_get(t, t->jobs.v[i].task), task) == 0)
            return &t->jobs.v[i];
    fail_msg("no job %s#%lld", task, (long long)j);
    return NULL;
}

static int64_t resp(const trace *t, const char *task, int64_t j) {
    const trace_job *x = job(t, task, j);
    return x->end - x->release;
}

/* The pauses of block number `b` as "start-end start-end" in us. */
static void pauses_of(const trace *t, int64_t b, char *out, size_t n) {
    size_t w = 0;
    out[0] = '\0';
    for (size_t i = 0; i < t->pauses.n; i++) {
        if (t->pauses.v[i].block != b) continue;
        int len = snprintf(out + w, n - w, "%s%lld-%lld", w ? " " : "",
                           (long long)(t->pauses.v[i].start / US), (long long)(t->pauses.v[i].end / US));
        if (len > 0) w += (size_t)len;
    }
}

/* Events of one queue as "t:enq:item t:deq:item" in us. */
static void qlog(const trace *t, const char *q, char *out, size_t n) {
    queue_log(t, q, ":", out, n);
}

/* Block number of block `index` of kernel `name`. */
static int64_t bno(const trace *t, const char *name, int32_t index) {
    return blk(t, name, index) - t->blocks.v;
}

/* ---- TX2 paper appendix A: two processes time-sliced ------------------------
 *
 * P1 and P2 each launch at 0 a kernel of 4 blocks of 1024 threads (the
 * whole TX2: 2 SMs x 2048 threads), 3 ms per block. L = 1 ms, theta =
 * 0.25 ms. The GPU loads P1 first (process order; the first load is free):
 *   0     K1's 4 blocks start (2 per SM)               slice to 1
 *   1     P2 has work: K1 paused (2 ms left), switch   -> 1.25 K2 starts
 *   2.25  K2 paused (2 left)                           -> 2.5 K1 resumes
 *   3.5   K1 paused (1 left)                           -> 3.75 K2 resumes
 *   4.75  K2 paused (1 left)                           -> 5 K1 resumes
 *   6     K1 ends; P1 leaves the runlist               -> 6.25 K2 resumes
 *   7.25  K2 ends.
 * Every K1 block spans 0-6 ms, the K2 slices inside it included: the
 * over-provisioning appendix A observed (8192 threads "running" on 4096). */
static void appa_build(tb *b) {
    tb_init(b, "tx2");
    b->cfg.policy.driver = sim_policy_find(SIM_TABLE_DRIVER, "time-slice");
    b->cfg.policy.time_slice = 1 * MS;
    b->cfg.policy.context_switch = 250 * US;
    int32_t s1 = tb_stream(b, "S1", "P1", SIM_PRIO_NONE), s2 = tb_stream(b, "S1", "P2", SIM_PRIO_NONE);
    tb_kernel(b, "K1", s1, 0, 4, 1024, 0, 3 * MS);
    tb_kernel(b, "K2", s2, 0, 4, 1024, 0, 3 * MS);
}

static void test_tx2_appendix_a(void **state) {
    (void)state;
    tb b;
    trace t;
    appa_build(&b);
    tb_run(&b, &t);
    char buf[512];
    for (int32_t i = 0; i < 4; i++) {
        assert_int_equal(blk(&t, "K1", i)->start, 0);
        assert_int_equal(blk(&t, "K1", i)->end, 6 * MS);
        assert_int_equal(blk(&t, "K2", i)->start, 1250 * US);
        assert_int_equal(blk(&t, "K2", i)->end, 7250 * US);
        pauses_of(&t, bno(&t, "K1", i), buf, sizeof buf);
        assert_string_equal(buf, "1000-2500 3500-5000");
        pauses_of(&t, bno(&t, "K2", i), buf, sizeof buf);
        assert_string_equal(buf, "2250-3750 4750-6250");
    }
    assert_int_equal(blk(&t, "K1", 0)->sm, 0);
    assert_int_equal(blk(&t, "K1", 1)->sm, 1);
    assert_int_equal(t.pauses.n, 16);
    /* pauses are listed in the order they begin */
    for (size_t i = 1; i < t.pauses.n; i++) assert_true(t.pauses.v[i - 1].start <= t.pauses.v[i].start);
    qlog(&t, "context", buf, sizeof buf);
    assert_string_equal(buf, "0:+:P1 1000:-:P1 1250:+:P2 2250:-:P2 2500:+:P1 3500:-:P1 3750:+:P2 "
                             "4750:-:P2 5000:+:P1 6000:-:P1 6250:+:P2 7250:-:P2");
    qlog(&t, "runlist", buf, sizeof buf);
    assert_string_equal(buf, "0:+:P1 0:+:P2 6000:-:P1 7250:-:P2");
    assert_int_equal(kern(&t, "K1")->end, 6 * MS);
    assert_int_equal(kern(&t, "K2")->end, 7250 * US);
    assert_string_equal(trace_get_meta(&t, "contexts"), "time-slice");
    assert_null(trace_get_meta(&t, "context_switch_idle"));
    trace_free(&t);
}

/* A switch away from a context that has nothing left to run (issue 27,
 * Table 5; NVIDIA DRIVE OS "Setting the Preemption Type": "For applications
 * that can complete in their timeslice, context-switch overhead is minimal
 * because the GPU is in an idled state"): the run above with
 * context_switch_idle = 0 and 100 us. The four switches at slice ends
 * (1, 2.25, 3.5, 4.75) switch out a context with work and still cost
 * theta = 0.25 ms; at 6 K1 has ended, P1 has no work and the switch to P2
 * costs the idle cost: K2 resumes at 6 (6.1) and ends at 7 (7.1) instead
 * of 6.25 and 7.25. Absent, every switch costs theta (the test above). */
static void test_context_switch_idle(void **state) {
    (void)state;
    for (int64_t idle = 0; idle <= 100 * US; idle += 100 * US) {
        tb b;
        trace t;
        char buf[512], want[512];
        appa_build(&b);
        b.cfg.policy.has_context_switch_idle = true;
        b.cfg.policy.context_switch_idle = idle;
        tb_run(&b, &t);
        for (int32_t i = 0; i < 4; i++) {
            assert_int_equal(blk(&t, "K1", i)->end, 6 * MS);
            assert_int_equal(blk(&t, "K2", i)->end, 7 * MS + idle);
            pauses_of(&t, bno(&t, "K2", i), buf, sizeof buf);
            snprintf(want, sizeof want, "2250-3750 4750-%lld", (long long)((6 * MS + idle) / US));
            assert_string_equal(buf, want);
        }
        qlog(&t, "context", buf, sizeof buf);
        snprintf(want, sizeof want,
                 "0:+:P1 1000:-:P1 1250:+:P2 2250:-:P2 2500:+:P1 3500:-:P1 3750:+:P2 "
                 "4750:-:P2 5000:+:P1 6000:-:P1 %lld:+:P2 %lld:-:P2",
                 (long long)((6 * MS + idle) / US), (long long)((7 * MS + idle) / US));
        assert_string_equal(buf, want);
        snprintf(want, sizeof want, "%lld", (long long)idle);
        assert_string_equal(trace_get_meta(&t, "context_switch_idle"), want);
        trace_free(&t);
    }
    /* out of range: a clear error, nothing run */
    tb b;
    trace t;
    char err[256];
    appa_build(&b);
    b.cfg.policy.has_context_switch_idle = true;
    b.cfg.policy.context_switch_idle = -1;
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "policy.context_switch_idle: -1 ns is outside 0..1000000000000000 ns");
    trace_free(&t);
}

/* TX2 paper appendix A, "Stream priorities in multiple processes":
 * "assigning priorities to the streams of different processes had no
 * effect on how the operations in these streams were scheduled". The
 * appendix A run with P2's stream high and P1's low (and the reverse) is
 * the run without priorities, block for block and pause for pause. */
static void test_tx2_appendix_a_priorities_no_effect(void **state) {
    (void)state;
    tb b;
    trace base, t;
    appa_build(&b);
    tb_run(&b, &base);
    for (int hi = 0; hi < 2; hi++) {
        appa_build(&b);
        b.streams[0].priority = hi == 0 ? -1 : 0;
        b.streams[1].priority = hi == 0 ? 0 : -1;
        tb_run(&b, &t);
        assert_int_equal(t.blocks.n, base.blocks.n);
        for (size_t i = 0; i < t.blocks.n; i++) {
            assert_int_equal(t.blocks.v[i].kernel, base.blocks.v[i].kernel);
            assert_int_equal(t.blocks.v[i].sm, base.blocks.v[i].sm);
            assert_int_equal(t.blocks.v[i].start, base.blocks.v[i].start);
            assert_int_equal(t.blocks.v[i].end, base.blocks.v[i].end);
        }
        assert_int_equal(t.pauses.n, base.pauses.n);
        for (size_t i = 0; i < t.pauses.n; i++) {
            assert_int_equal(t.pauses.v[i].start, base.pauses.v[i].start);
            assert_int_equal(t.pauses.v[i].end, base.pauses.v[i].end);
        }
        trace_free(&t);
    }
    trace_free(&base);
}

/* The same under the shared driver (one block scheduler for both
 * processes, TX2 §3 rules): no pause, K2 after K1 (3 ms, 6 ms). */
static void test_tx2_appendix_a_shared(void **state) {
    (void)state;
    tb b;
    trace t;
    appa_build(&b);
    b.cfg.policy.driver = 0;
    tb_run(&b, &t);
    assert_int_equal(t.pauses.n, 0);
    assert_int_equal(blk(&t, "K2", 0)->start, 3 * MS);
    assert_int_equal(kern(&t, "K2")->end, 6 * MS);
    assert_null(trace_get_meta(&t, "contexts"));
    trace_free(&t);
}

/* With a block sink (sim.h) blocks leave the trace only once they have
 * ended: every block emitted has its final end, pauses number blocks as
 * the sink does. Appendix A with batches of 3. */
typedef struct collect {
    trace_block v[16];
    size_t n;
} collect;

static int collect_emit(void *ctx, const trace_block *b, size_t n) {
    collect *c = ctx;
    for (size_t i = 0; i < n; i++) {
        assert_true(b[i].end != TRACE_NONE);
        assert_true(c->n < 16);
        c->v[c->n++] = b[i];
    }
    return 0;
}

static void test_sink_gets_final_ends(void **state) {
    (void)state;
    tb b;
    trace t;
    collect c = { .n = 0 };
    sim_block_sink sink = { .ctx = &c, .emit = collect_emit, .batch = 3 };
    appa_build(&b);
    b.cfg.block_sink = &sink;
    tb_run(&b, &t);
    assert_int_equal(t.blocks.n, 0);
    assert_int_equal(c.n, 8);
    for (size_t i = 0; i < 4; i++) assert_int_equal(c.v[i].end, 6 * MS);
    for (size_t i = 4; i < 8; i++) assert_int_equal(c.v[i].end, 7250 * US);
    assert_int_equal(t.pauses.n, 16);
    assert_int_equal(t.pauses.v[4].block, 4);
    assert_int_equal(t.pauses.v[4].start, 2250 * US);
    trace_free(&t);
}

/* One process under time-slice is the shared model: nothing to switch. */
static void test_time_slice_one_process(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_init(&b, "tx2");
    b.cfg.policy.driver = sim_policy_find(SIM_TABLE_DRIVER, "time-slice");
    b.cfg.policy.context_switch = 250 * US;
    int32_t s1 = tb_stream(&b, "S1", "P1", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 4, 1024, 0, 3 * MS);
    tb_kernel(&b, "K2", s1, 0, 4, 1024, 0, 3 * MS);
    tb_run(&b, &t);
    assert_int_equal(t.pauses.n, 0);
    assert_int_equal(blk(&t, "K2", 3)->start, 3 * MS);
    assert_int_equal(kern(&t, "K2")->end, 6 * MS);
    trace_free(&t);
}

/* ---- Algorithm 1: preemption at a segment start -----------------------------
 *
 * gcaps, eps = 1 ms, theta = 0.2 ms (alpha = 0.8 ms). tx2 (an exec kernel
 * is 4 blocks of 1024 threads).
 *   be (best-effort, core 1): one GPU segment, exec 10 ms, released at 0.
 *   rt (priority 50, core 0): one GPU segment, exec 2 ms, released at 3.
 *   0    be's begin update 0-1 ms; runlist {be} submitted at 0.8
 *        (first load: free); kernel launched at 1: blocks 1-...
 *   3    rt's begin update 3-4; at 3.8 the runlist becomes {rt}: be's
 *        blocks pause (7.2 ms left), the GPU switches (0.2) and rt's
 *        kernel, launched at 4, runs 4-6 (lines 11-15).
 *   6    rt's end update 6-7; at 6.8 the runlist is {be} again (line 24);
 *        be resumes at 7.0: its blocks end at 14.2; rt's job ends at 7
 *        (response 4 = eps + exec + eps).
 *   14.2 be's end update 14.2-15.2: be's job ends at 15.2. */
static void test_gcaps_preempt_at_segment_start(void **state) {
    (void)state;
    tt s;
    trace t;
    tt_init(&s, "tx2", "gcaps");
    s.b.cfg.policy.runlist_update = 1 * MS;
    s.b.cfg.policy.context_switch = 200 * US;
    sim_task *be = tt_task(&s, "be", 1, 0, 100 * MS, 0);
    be->best_effort = true;
    tt_gpu(be, 0, 10 * MS);
    tt_gpu(tt_task(&s, "rt", 0, 50, 100 * MS, 3 * MS), 0, 2 * MS);
    s.b.cfg.duration = 10 * MS;
    tt_run(&s, &t);
    char buf[512];
    assert_int_equal(blk(&t, "be#0", 0)->start, 1 * MS);
    assert_int_equal(blk(&t, "be#0", 0)->end, 14200 * US);
    pauses_of(&t, bno(&t, "be#0", 3), buf, sizeof buf);
    assert_string_equal(buf, "3800-7000");
    assert_int_equal(blk(&t, "rt#0", 0)->start, 4 * MS);
    assert_int_equal(kern(&t, "rt#0")->end, 6 * MS);
    assert_int_equal(resp(&t, "rt", 0), 4 * MS);
    assert_int_equal(resp(&t, "be", 0), 15200 * US);
    qlog(&t, "runlist", buf, sizeof buf);
    assert_string_equal(buf, "800:+:be 3800:-:be 3800:+:rt 6800:+:be 6800:-:rt 15000:-:be");
    qlog(&t, "context", buf, sizeof buf);
    assert_string_equal(buf, "800:+:be 3800:-:be 4000:+:rt 6800:-:rt 7000:+:be 15000:-:be");
    trace_free(&t);
}

/* A lower or equal priority never preempts: with rt at priority 50 running,
 * a second real-time task lo (priority 40) that begins meanwhile waits
 * until rt's end (lines 16-17, 19-21). eps = theta = 0. rt (core 0) 0-5,
 * lo (core 1) begins at 1: pending; rt ends at 5: lo runs 5-8. */
static void test_gcaps_lower_priority_waits(void **state) {
    (void)state;
    tt s;
    trace t;
    tt_init(&s, "tx2", "gcaps");
    tt_gpu(tt_task(&s, "rt", 0, 50, 100 * MS, 0), 0, 5 * MS);
    tt_gpu(tt_task(&s, "lo", 1, 40, 100 * MS, 1 * MS), 0, 3 * MS);
    s.b.cfg.duration = 2 * MS;
    tt_run(&s, &t);
    assert_int_equal(blk(&t, "lo#0", 0)->start, 5 * MS);
    assert_int_equal(t.pauses.n, 0);
    assert_int_equal(resp(&t, "rt", 0), 5 * MS);
    assert_int_equal(resp(&t, "lo", 0), 7 * MS);
    trace_free(&t);
}

/* GCAPS §5.3: a task's GPU segments run at its gpu_priority, not its CPU
 * priority (scenario key "gpu_priority"). test_gcaps_lower_priority_waits
 * with the GPU priorities the other way round: lo (CPU 40, GPU 60) begins
 * at 1 ms and takes the GPU from rt (CPU 50, GPU 10), which resumes when
 * lo ends at 4 ms and finishes its 4 ms left at 8 ms. */
static void test_gcaps_gpu_priority(void **state) {
    (void)state;
    tt s;
    trace t;
    tt_init(&s, "tx2", "gcaps");
    sim_task *rt = tt_task(&s, "rt", 0, 50, 100 * MS, 0);
    rt->has_gpu_priority = true, rt->gpu_priority = 10;
    tt_gpu(rt, 0, 5 * MS);
    sim_task *lo = tt_task(&s, "lo", 1, 40, 100 * MS, 1 * MS);
    lo->has_gpu_priority = true, lo->gpu_priority = 60;
    tt_gpu(lo, 0, 3 * MS);
    s.b.cfg.duration = 2 * MS;
    tt_run(&s, &t);
    assert_int_equal(blk(&t, "lo#0", 0)->start, 1 * MS);
    assert_int_equal(resp(&t, "lo", 0), 3 * MS);
    assert_int_equal(resp(&t, "rt", 0), 8 * MS);
    trace_free(&t);
}

/* ---- Algorithm 1: best-effort only while no real-time segment is active ----
 *
 * eps = 0, theta = 0.1 ms, L = 0.5 ms, tx2. be1 (core 1) and be2 (core 2):
 * best-effort, one GPU segment of 3 ms each, at 0; rt (core 0, priority 10):
 * one of 1 ms at 1.5 ms.
 *   0    be1 loaded (first load free), its blocks 0-...; slice to 0.5
 *   0.5  be2 has work: be1 paused (2.5 left) -> 0.6 be2     slice to 1.1
 *   1.1  be2 paused (2.5 left) -> 1.2 be1 (ends 3.7 if alone) slice 1.7
 *   1.5  rt begins: runlist {rt} (lines 11-15): be1 paused (2.2 left),
 *        be2 stays paused; 1.6 rt runs 1.6-2.6
 *   2.6  rt ends: running <- pending = {be1, be2} (line 24): the GPU goes
 *        to the next TSG after rt's in process order, be1: 2.7 be1 (2.2)
 *   then round robin: 3.2 be1 out (1.7) 3.3 be2 (2.5) 3.8 out (2.0)
 *        3.9 be1 (1.7) 4.4 out (1.2) 4.5 be2 (2.0) 5.0 out (1.5)
 *        5.1 be1 (1.2) 5.6 out (0.7) 5.7 be2 (1.5) 6.2 out (1.0)
 *        6.3 be1 (0.7) 6.8 out (0.2) 6.9 be2 (1.0) 7.4 out (0.5)
 *        7.5 be1 ends at 7.7; be1 leaves the runlist; 7.8 be2 ends 8.3. */
static void test_gcaps_best_effort_only_without_rt(void **state) {
    (void)state;
    tt s;
    trace t;
    tt_init(&s, "tx2", "gcaps");
    s.b.cfg.policy.context_switch = 100 * US;
    s.b.cfg.policy.time_slice = 500 * US;
    sim_task *b1 = tt_task(&s, "be1", 1, 0, 100 * MS, 0);
    sim_task *b2 = tt_task(&s, "be2", 2, 0, 100 * MS, 0);
    b1->best_effort = b2->best_effort = true;
    tt_gpu(b1, 0, 3 * MS);
    tt_gpu(b2, 0, 3 * MS);
    tt_gpu(tt_task(&s, "rt", 0, 10, 100 * MS, 1500 * US), 0, 1 * MS);
    s.b.cfg.duration = 2 * MS;
    tt_run(&s, &t);
    char buf[512];
    assert_int_equal(blk(&t, "rt#0", 0)->start, 1600 * US);
    assert_int_equal(resp(&t, "rt", 0), 1100 * US);
    pauses_of(&t, bno(&t, "be1#0", 0), buf, sizeof buf);
    assert_string_equal(buf, "500-1200 1500-2700 3200-3900 4400-5100 5600-6300 6800-7500");
    pauses_of(&t, bno(&t, "be2#0", 0), buf, sizeof buf);
    assert_string_equal(buf, "1100-3300 3800-4500 5000-5700 6200-6900 7400-7800");
    assert_int_equal(resp(&t, "be1", 0), 7700 * US);
    assert_int_equal(resp(&t, "be2", 0), 8300 * US);
    /* while rt's segment is active no best-effort block runs */
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *x = &t.blocks.v[i];
        if (strncmp(trace_str_get(&t, t.kernels.v[x->kernel].name), "be", 2) != 0) continue;
        bool covered = false;
        for (size_t p = 0; p < t.pauses.n; p++)
            if (t.pauses.v[p].block == (int64_t)i && t.pauses.v[p].start <= 1500 * US &&
                t.pauses.v[p].end >= 2600 * US)
                covered = true;
        assert_true(covered);
    }
    qlog(&t, "runlist", buf, sizeof buf);
    assert_string_equal(buf, "0:+:be1 0:+:be2 1500:-:be1 1500:-:be2 1500:+:rt 2600:+:be1 "
                             "2600:+:be2 2600:-:rt 7700:-:be1 8300:-:be2");
    trace_free(&t);
}

/* ---- Algorithm 1: FIFO among equal priorities, highest pending first ------
 *
 * eps = theta = 0, tx2, one GPU segment of 2 ms each: a (10) at 0 on core
 * 0, d (5) at 0.5 on core 3, b (10) at 1 on core 1, c (10) at 1.5 on core
 * 2. a runs 0-2; d, b, c wait (d lower; b and c not strictly higher). At
 * 2, a ends: the highest pending is b and c (10); b asked first: b 2-4;
 * then c 4-6 (10 beats the earlier d), then d 6-8. (c at 2, the instant a
 * ends, would not test the tie: a's end takes b before c asks.) */
static void test_gcaps_fifo_equal_priorities(void **state) {
    (void)state;
    tt s;
    trace t;
    tt_init(&s, "tx2", "gcaps");
    tt_gpu(tt_task(&s, "a", 0, 10, 100 * MS, 0), 0, 2 * MS);
    tt_gpu(tt_task(&s, "b", 1, 10, 100 * MS, 1 * MS), 0, 2 * MS);
    tt_gpu(tt_task(&s, "c", 2, 10, 100 * MS, 1500 * US), 0, 2 * MS);
    tt_gpu(tt_task(&s, "d", 3, 5, 100 * MS, 500 * US), 0, 2 * MS);
    s.b.cfg.duration = 5 * MS;
    tt_run(&s, &t);
    assert_int_equal(kern(&t, "a#0")->first_block, 0);
    assert_int_equal(kern(&t, "b#0")->first_block, 2 * MS);
    assert_int_equal(kern(&t, "c#0")->first_block, 4 * MS);
    assert_int_equal(kern(&t, "d#0")->first_block, 6 * MS);
    assert_int_equal(t.pauses.n, 0);     /* equal priorities never interleave */
    trace_free(&t);
}

/* ---- eps and theta where the paper charges them ---------------------------
 *
 * One real-time task alone: cpu 1, gpu {misc 0.5, exec 3}, cpu 1 (ms).
 * gcaps, eps = 1, theta = 0.2: begin update 1-2 (runlist submitted at 1.8,
 * Def. 2), kernel 2-5 while misc runs 2-2.5, end update 5-6, cpu 6-7:
 * response 7 = C + max(misc, exec) + 2 eps. time-slice: no macros, no
 * eps: kernel 1-4, response 5. A second job of a second context pays theta:
 * see test_gcaps_preempt_at_segment_start. */
static void test_eps_charged_per_macro(void **state) {
    (void)state;
    for (int g = 0; g < 2; g++) {
        tt s;
        trace t;
        tt_init(&s, "tx2", g ? "gcaps" : "time-slice");
        s.b.cfg.policy.runlist_update = 1 * MS;
        s.b.cfg.policy.context_switch = 200 * US;
        sim_task *k = tt_task(&s, "k", 0, 10, 20 * MS, 0);
        tt_cpu(k, 1 * MS);
        tt_gpu(k, 500 * US, 3 * MS);
        tt_cpu(k, 1 * MS);
        s.b.cfg.duration = 40 * MS;
        tt_run(&s, &t);
        assert_int_equal(t.jobs.n, 2);
        assert_int_equal(kern(&t, "k#1")->first_block, 20 * MS + (g ? 2 : 1) * MS);
        assert_int_equal(resp(&t, "k", 0), g ? 7 * MS : 5 * MS);
        assert_int_equal(resp(&t, "k", 1), g ? 7 * MS : 5 * MS);
        assert_int_equal(job(&t, "k", 1)->deadline, 40 * MS);
        char key[32] = "task:k";
        assert_string_equal(trace_get_meta(&t, key),
                            g ? "jobs=2 misses=0 min=7000000 mean=7000000 max=7000000"
                              : "jobs=2 misses=0 min=5000000 mean=5000000 max=5000000");
        trace_free(&t);
    }
}

/* Costs as measured (issue 27; GCAPS paper §7.2, Fig. 12: "The lower mode
 * in the distribution indicates requests that do not necessarily require
 * runlist updates"): with ioctl_bookkeeping, a macro that leaves the runlist
 * as it is costs that, not eps. eps = 1 ms, theta = 0, bookkeeping 0.1 ms:
 * hi (20, core 0) gpu exec 5 at 0: begin 0-1, kernel 1-6, end 6-7; lo (10,
 * core 1) gpu exec 1 at 2: hi runs, so lo's begin only queues it (pending):
 * 2-2.1 (at eps: 2-3); lo's kernel waits for hi's end (runlist at 7), runs
 * 7-8, lo's end switches (8-9): lo responds 7 either way, hi 7. */
static void test_ioctl_bookkeeping(void **state) {
    (void)state;
    for (int bk = 0; bk < 2; bk++) {
        tt s;
        trace t;
        tt_init(&s, "tx2", "gcaps");
        s.b.cfg.policy.runlist_update = 1 * MS;
        s.b.cfg.policy.ioctl_bookkeeping = bk ? 100 * US : 0;
        tt_gpu(tt_task(&s, "hi", 0, 20, 50 * MS, 0), 0, 5 * MS);
        tt_gpu(tt_task(&s, "lo", 1, 10, 50 * MS, 2 * MS), 0, 1 * MS);
        s.b.cfg.duration = 3 * MS;
        tt_run(&s, &t);
        assert_int_equal(kern(&t, "lo#0")->issue, bk ? 2100 * US : 3 * MS);
        assert_int_equal(kern(&t, "lo#0")->first_block, 7 * MS);
        assert_int_equal(resp(&t, "hi", 0), 7 * MS);
        assert_int_equal(resp(&t, "lo", 0), 7 * MS);
        assert_true(!bk == !trace_get_meta(&t, "ioctl_bookkeeping"));
        trace_free(&t);
    }
}

/* A graphics task (issue 27; GCAPS paper §7.2, Table 4's task 7) calls no
 * macro: eps = 1 ms, theta = 0. hi (20, core 0) gpu exec 5 at 0: begin
 * 0-1, kernel 1-6, end 6-7. g (best-effort graphics, core 1) gpu exec 2 at
 * 0: its kernel is issued at 0 and runs while no real-time segment holds
 * the runlist (0-1), waits 1-7, and ends 7-8. Instrumented (not graphics),
 * g's begin waits for the runlist lock (hi's, 0-1) and runs 1-2: its
 * kernel is issued at 2. */
static void test_graphics_task(void **state) {
    (void)state;
    for (int gr = 0; gr < 2; gr++) {
        tt s;
        trace t;
        tt_init(&s, "tx2", "gcaps");
        s.b.cfg.policy.runlist_update = 1 * MS;
        tt_gpu(tt_task(&s, "hi", 0, 20, 50 * MS, 0), 0, 5 * MS);
        sim_task *g = tt_task(&s, "g", 1, 0, 50 * MS, 0);
        g->best_effort = true;
        g->graphics = gr;
        tt_gpu(g, 0, 2 * MS);
        s.b.cfg.duration = 1 * MS;
        tt_run(&s, &t);
        assert_int_equal(kern(&t, "g#0")->issue, gr ? 0 : 2 * MS);
        assert_int_equal(resp(&t, "hi", 0), 7 * MS);
        if (gr) assert_int_equal(resp(&t, "g", 0), 8 * MS);
        trace_free(&t);
    }
}

/* Lemma 8 (1): the runlist update is non-preemptive on its core, so it
 * blocks a higher-priority job there, even a CPU-only one. eps = 1 ms,
 * theta = 0. lo (10, core 0): gpu exec 2 at 0; hi (20, core 0): cpu 1 at
 * 0.5. lo updates 0-1, hi waits (blocked 0.5) and runs 1-2 (response 1.5);
 * lo's kernel (launched at 1) runs 1-3, its end update 3-4: response 4. */
static void test_eps_blocks_higher_priority_on_core(void **state) {
    (void)state;
    tt s;
    trace t;
    tt_init(&s, "tx2", "gcaps");
    s.b.cfg.policy.runlist_update = 1 * MS;
    tt_gpu(tt_task(&s, "lo", 0, 10, 50 * MS, 0), 0, 2 * MS);
    tt_cpu(tt_task(&s, "hi", 0, 20, 50 * MS, 500 * US), 1 * MS);
    s.b.cfg.duration = 1 * MS;
    tt_run(&s, &t);
    assert_int_equal(job(&t, "hi", 0)->start, 1 * MS);
    assert_int_equal(resp(&t, "hi", 0), 1500 * US);
    assert_int_equal(kern(&t, "lo#0")->first_block, 1 * MS);
    assert_int_equal(resp(&t, "lo", 0), 4 * MS);
    trace_free(&t);
}

/* The runlist lock (rt_mutex, §5.2): updates of different cores are
 * serialised and the highest-priority waiter goes next. eps = 1, theta =
 * 0: x (5, core 0) updates 0-1; y (10, core 1) and z (20, core 2) ask at
 * 0.5: z gets it 1-2, y 2-3. */
static void test_runlist_lock_priority_order(void **state) {
    (void)state;
    tt s;
    trace t;
    tt_init(&s, "tx2", "gcaps");
    s.b.cfg.policy.runlist_update = 1 * MS;
    tt_gpu(tt_task(&s, "x", 0, 5, 50 * MS, 0), 0, 1 * MS);
    tt_gpu(tt_task(&s, "y", 1, 10, 50 * MS, 500 * US), 0, 1 * MS);
    tt_gpu(tt_task(&s, "z", 2, 20, 50 * MS, 500 * US), 0, 1 * MS);
    s.b.cfg.duration = 1 * MS;
    tt_run(&s, &t);
    assert_int_equal(kern(&t, "x#0")->issue, 1 * MS);
    assert_int_equal(kern(&t, "z#0")->issue, 2 * MS);
    assert_int_equal(kern(&t, "y#0")->issue, 3 * MS);
    trace_free(&t);
}

/* ---- busy-waiting vs self-suspension (§4, §6.2) ---------------------------
 *
 * time-slice, one core: hi (20): gpu exec 3 at 0; lo (10): cpu 4 at 0.
 * suspend: hi launches and sleeps, lo runs 0-3, hi wakes at 3 (done: 3),
 * lo resumes 3-4. busy: hi spins 0-3, lo runs 3-7. */
static void test_busy_vs_suspend(void **state) {
    (void)state;
    for (int busy = 0; busy < 2; busy++) {
        tt s;
        trace t;
        tt_init(&s, "tx2", "time-slice");
        s.b.cfg.policy.gpu_wait = busy ? SIM_WAIT_BUSY : SIM_WAIT_SUSPEND;
        tt_gpu(tt_task(&s, "hi", 0, 20, 50 * MS, 0), 0, 3 * MS);
        tt_cpu(tt_task(&s, "lo", 0, 10, 50 * MS, 0), 4 * MS);
        s.b.cfg.duration = 1 * MS;
        tt_run(&s, &t);
        assert_int_equal(resp(&t, "hi", 0), 3 * MS);
        assert_int_equal(job(&t, "lo", 0)->start, busy ? 3 * MS : 0);
        assert_int_equal(resp(&t, "lo", 0), busy ? 7 * MS : 4 * MS);
        trace_free(&t);
    }
}

/* A task's own mode overrides policy.gpu_wait. */
static void test_task_mode_overrides_policy(void **state) {
    (void)state;
    tt s;
    trace t;
    tt_init(&s, "tx2", "time-slice");
    s.b.cfg.policy.gpu_wait = SIM_WAIT_SUSPEND;
    sim_task *hi = tt_task(&s, "hi", 0, 20, 50 * MS, 0);
    hi->mode = SIM_WAIT_BUSY;
    tt_gpu(hi, 0, 3 * MS);
    tt_cpu(tt_task(&s, "lo", 0, 10, 50 * MS, 0), 4 * MS);
    s.b.cfg.duration = 1 * MS;
    tt_run(&s, &t);
    assert_int_equal(resp(&t, "lo", 0), 7 * MS);
    trace_free(&t);
}

/* Fixed-priority preemptive cores, overruns, misses: a (20, C 2, T 5) and
 * b (10, C 4, T 10) on one core, 20 ms: b's first job: 2-4 and 7-9 (a
 * preempts at 5), ends 9 (response 9); a is never late. Deadline misses
 * are counted: with b's deadline 8, each b job misses. */
static void test_fixed_priority_and_misses(void **state) {
    (void)state;
    tt s;
    trace t;
    tt_init(&s, "tx2", "shared");
    tt_cpu(tt_task(&s, "a", 0, 20, 5 * MS, 0), 2 * MS);
    sim_task *b = tt_task(&s, "b", 0, 10, 10 * MS, 0);
    b->deadline = 8 * MS;
    tt_cpu(b, 4 * MS);
    s.b.cfg.duration = 20 * MS;
    tt_run(&s, &t);
    assert_int_equal(t.jobs.n, 6);
    assert_int_equal(resp(&t, "b", 0), 8 * MS);
    assert_int_equal(resp(&t, "b", 1), 8 * MS);
    assert_int_equal(resp(&t, "a", 1), 2 * MS);
    assert_string_equal(trace_get_meta(&t, "task:b"),
                        "jobs=2 misses=0 min=8000000 mean=8000000 max=8000000");
    b->deadline = 7 * MS;
    trace_free(&t);
    tt_run(&s, &t);
    assert_string_equal(trace_get_meta(&t, "task:b"),
                        "jobs=2 misses=2 min=8000000 mean=8000000 max=8000000");
    assert_string_equal(trace_get_meta(&t, "tasks"), "a,b");
    trace_free(&t);
}

/* Equal priorities on one core are SCHED_FIFO's (sched(7): a thread that
 * becomes runnable goes to the end of the list for its priority; one
 * preempted by a higher priority stays at its head). Core 0, CPU only: x
 * (10) 2 ms at 0, y (10) 2 ms at 1, z (20) 1 ms at 0.5. x runs 0-0.5, z
 * 0.5-1.5 (y became ready at 1, behind x), x 1.5-3, y 3-5: responses x 3,
 * y 4, z 1. */
static void test_equal_priorities_fifo_on_core(void **state) {
    (void)state;
    tt s;
    trace t;
    tt_init(&s, "tx2", "shared");
    tt_cpu(tt_task(&s, "x", 0, 10, 50 * MS, 0), 2 * MS);
    tt_cpu(tt_task(&s, "y", 0, 10, 50 * MS, 1 * MS), 2 * MS);
    tt_cpu(tt_task(&s, "z", 0, 20, 50 * MS, 500 * US), 1 * MS);
    s.b.cfg.duration = 5 * MS;
    tt_run(&s, &t);
    assert_int_equal(resp(&t, "x", 0), 3 * MS);
    assert_int_equal(job(&t, "y", 0)->start, 3 * MS);
    assert_int_equal(resp(&t, "y", 0), 4 * MS);
    assert_int_equal(resp(&t, "z", 0), 1 * MS);
    trace_free(&t);
}

/* Configuration errors name the field. */
static void test_task_errors(void **state) {
    (void)state;
    tt s;
    trace t;
    char err[256];
    tt_init(&s, "tx2", "gcaps");
    sim_task *k = tt_task(&s, "k", 7, 10, 50 * MS, 0);
    tt_cpu(k, 1 * MS);
    s.b.cfg.tasks = s.tasks;
    s.b.cfg.ntasks = s.n;
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(&s.b), &t, err, sizeof err), -1);
    assert_string_equal(err, "tasks[0].cpu: 7 is not a core (cpus is 4: cores 0..3)");
    trace_free(&t);
    k->cpu = 0;
    s.b.cfg.policy.host = 0;
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(&s.b), &t, err, sizeof err), -1);
    assert_string_equal(err, "tasks: the host policy \"script\" runs no tasks (host \"tasks\" does)");
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tx2_appendix_a),
        cmocka_unit_test(test_tx2_appendix_a_shared),
        cmocka_unit_test(test_tx2_appendix_a_priorities_no_effect),
        cmocka_unit_test(test_context_switch_idle),
        cmocka_unit_test(test_sink_gets_final_ends),
        cmocka_unit_test(test_time_slice_one_process),
        cmocka_unit_test(test_gcaps_preempt_at_segment_start),
        cmocka_unit_test(test_gcaps_lower_priority_waits),
        cmocka_unit_test(test_gcaps_gpu_priority),
        cmocka_unit_test(test_gcaps_best_effort_only_without_rt),
        cmocka_unit_test(test_gcaps_fifo_equal_priorities),
        cmocka_unit_test(test_eps_charged_per_macro),
        cmocka_unit_test(test_eps_blocks_higher_priority_on_core),
        cmocka_unit_test(test_runlist_lock_priority_order),
        cmocka_unit_test(test_ioctl_bookkeeping),
        cmocka_unit_test(test_graphics_task),
        cmocka_unit_test(test_busy_vs_suspend),
        cmocka_unit_test(test_task_mode_overrides_policy),
        cmocka_unit_test(test_fixed_priority_and_misses),
        cmocka_unit_test(test_equal_priorities_fifo_on_core),
        cmocka_unit_test(test_task_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
