/* test_gpu_lock.c -- the lock-based GPU drivers fmlp+ and mpcp (issue 27;
 * simcore/driver_fmlp.c, driver_mpcp.c, host_tasks.c's GPU lock), the
 * GCAPS paper's §7.1 baselines, with times derived by hand next to each
 * test. Rules: FMLP+ (Brandenburg, ECRTS 2014) queues requests FIFO and
 * boosts the holder; MPCP (Rajkumar 1990, Lakshmanan 2009) queues them by
 * priority and runs the holder at the ceiling; both suspend waiters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_sim_util.h"

#define US 1000LL

typedef struct tt {
    sim_task tasks[8];
    sim_segment segs[8][4];
    size_t n;
    tb b;
} tt;

static void tt_init(tt *s, const char *contexts) {
    memset(s, 0, sizeof *s);
    tb_init(&s->b, "tx2");
    s->b.cfg.policy.driver = sim_policy_find(SIM_TABLE_DRIVER, contexts);
    s->b.cfg.policy.host = sim_policy_find(SIM_TABLE_HOST, "tasks");
    assert_true(s->b.cfg.policy.driver >= 0 && s->b.cfg.policy.host >= 0);
    s->b.cfg.policy.time_slice = 1 * MS;
    s->b.cfg.policy.context_switch = 0;
    s->b.cfg.cpus = 4;
    s->b.cfg.duration = 50 * MS;
}

static sim_task *tt_task(tt *s, const char *name, int32_t cpu, int32_t prio, int64_t offset) {
    sim_task *k = &s->tasks[s->n];
    memset(k, 0, sizeof *k);
    k->name = name;
    k->cpu = cpu;
    k->priority = prio;
    k->period = k->deadline = 100 * MS;
    k->offset = offset;
    k->segments = s->segs[s->n];
    s->n++;
    return k;
}

static void tt_seg(sim_task *k, bool gpu, int64_t misc_or_cpu, int64_t exec) {
    sim_segment *g = (sim_segment *)&k->segments[k->nsegments++];
    memset(g, 0, sizeof *g);
    g->kind = gpu ? SIM_SEG_GPU : SIM_SEG_CPU;
    if (gpu) {
        g->misc = misc_or_cpu;
        g->exec = exec;
    } else {
        g->cpu = misc_or_cpu;
    }
}

static int64_t end_of(const trace *t, const char *task) {
    for (size_t i = 0; i < t->jobs.n; i++)
        if (t->jobs.v[i].job == 0 && strcmp(trace_str_get(t, t->jobs.v[i].task), task) == 0)
            return t->jobs.v[i].end;
    fail_msg("no job %s#0", task);
    return -1;
}

/* Events of one queue as "t:+item t:-item" in us. */
static void qlog(const trace *t, const char *q, char *out, size_t n) {
    queue_log(t, q, "", out, n);
}

/* Three tasks on three cores, one 10 ms GPU segment each: L asks at 0, M
 * at 1 ms, H at 2 ms. L holds the GPU 0-10. FMLP+ serves in request order:
 * M 10-20, H 20-30. MPCP by priority: H 10-20, M 20-30. */
static void order_case(const char *contexts, trace *t) {
    tt s;
    tt_init(&s, contexts);
    tt_seg(tt_task(&s, "L", 0, 1, 0), true, 0, 10 * MS);
    tt_seg(tt_task(&s, "M", 1, 2, 1 * MS), true, 0, 10 * MS);
    tt_seg(tt_task(&s, "H", 2, 3, 2 * MS), true, 0, 10 * MS);
    s.b.cfg.tasks = s.tasks;
    s.b.cfg.ntasks = s.n;
    tb_run(&s.b, t);
}

static void test_fmlp_fifo(void **state) {
    (void)state;
    trace tr, *t = &tr;
    order_case("fmlp+", t);
    assert_int_equal(end_of(t, "L"), 10 * MS);
    assert_int_equal(end_of(t, "M"), 20 * MS);
    assert_int_equal(end_of(t, "H"), 30 * MS);
    char q[512];
    qlog(t, "gpulock", q, sizeof q);
    assert_string_equal(q, "1000:+M 2000:+H 10000:-M 20000:-H");
    qlog(t, "gpulock:held", q, sizeof q);
    assert_string_equal(q, "0:+L 10000:-L 10000:+M 20000:-M 20000:+H 30000:-H");
    trace_free(t);
}

static void test_mpcp_priority(void **state) {
    (void)state;
    trace tr, *t = &tr;
    order_case("mpcp", t);
    assert_int_equal(end_of(t, "L"), 10 * MS);
    assert_int_equal(end_of(t, "H"), 20 * MS);
    assert_int_equal(end_of(t, "M"), 30 * MS);
    char q[512];
    qlog(t, "gpulock:held", q, sizeof q);
    assert_string_equal(q, "0:+L 10000:-L 10000:+H 20000:-H 20000:+M 30000:-M");
    trace_free(t);
}

/* Boosting: L (core 0, priority 1) takes the GPU at 0 and runs its G^m of
 * 2 ms on the core; X (core 0, priority 5, CPU-only 5 ms) is released at
 * 0.5 ms. The holder runs above every non-holder of its core (FMLP+'s
 * boosting, MPCP's ceiling), so X waits until 2 ms and ends at 7 ms; under
 * the default driver X preempts at 0.5 and ends at 5.5 ms. */
static int64_t boost_case(const char *contexts) {
    tt s;
    tt_init(&s, contexts);
    tt_seg(tt_task(&s, "L", 0, 1, 0), true, 2 * MS, 10 * MS);
    tt_seg(tt_task(&s, "X", 0, 5, 500 * US), false, 5 * MS, 0);
    s.b.cfg.tasks = s.tasks;
    s.b.cfg.ntasks = s.n;
    trace tr, *t = &tr;
    tb_run(&s.b, t);
    int64_t e = end_of(t, "X");
    trace_free(t);
    return e;
}

static void test_holder_boosted(void **state) {
    (void)state;
    assert_int_equal(boost_case("fmlp+"), 7 * MS);
    assert_int_equal(boost_case("mpcp"), 7 * MS);
    assert_int_equal(boost_case("time-slice"), 5500 * US);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmlp_fifo),
        cmocka_unit_test(test_mpcp_priority),
        cmocka_unit_test(test_holder_boosted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
