/* test_warp_scoreboard.c -- the warp-level model's scoreboard
 * (simcore/exec_warp.c, program.dep; docs/memory.md "The scoreboard").
 *
 * The rule is GPGPU-Sim's (scoreboard.cc, shader.cc scheduler_unit::cycle):
 * an instruction's destination is reserved at issue and released at
 * writeback; a warp whose next instruction reads a pending result
 * (checkCollision) does not issue, the scheduler goes on to the next warp;
 * a warp issues at most one instruction a cycle (SM7_TITANV
 * -gpgpu_max_insn_issue_per_warp 1). So independent instructions issue
 * back to back, a load's dependents wait for the load, and a warp ends
 * when its last result is written. Without program.dep every instruction
 * waits for the one before it (the model before the scoreboard), which a
 * scoreboard whose every instruction reads the one before gives too.
 *
 * One SM with one sub-core and a 1-GHz clock (cycle = ns), one warp unless
 * said otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../server/formats/scenario.h"
#include "../../simcore/sim.h"
#include "test_sim_util.h"

static void one_subcore(tb *b, const char *policy) {
    tb_init(b, "titanv-gpgpusim");
    b->cfg.device.sms = 1;
    b->cfg.device.schedulers_per_sm = 1;
    b->cfg.device.clock_hz = 1000000000;
    b->cfg.device.mem_bandwidth = 64;
    b->cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    b->cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, policy);
}

static sim_op *kernel(tb *b, const sim_program *p, int32_t threads) {
    sim_op *k = tb_op(b, SIM_OP_KERNEL, "K", tb_stream(b, "S1", "P0", SIM_PRIO_NONE), 0);
    k->blocks = 1;
    k->threads = threads;
    k->program = p;
    return k;
}

/* the cycles at which warp 0 issued, as a string of numbers */
static void issues(const trace *t, char *out, size_t n) {
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < t->warp_issues.n && at < n; i++)
        at += (size_t)snprintf(out + at, n - at, "%s%lld", i ? " " : "",
                               (long long)t->warp_issues.v[i].cycle);
}

/* eight independent ALU instructions of latency 4 issue in cycles 0..7 and
 * the warp ends when the last is written (7 + 4); without a scoreboard each
 * waits for the one before (8 x 4) */
static void test_independent_back_to_back(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 8 } };
    static const sim_dep dep[] = { { .n = 0 } };
    sim_program p = { .body = body, .nbody = 1, .repeat = 1,
                      .latency = { [SIM_ICLASS_ALU] = 4 }, .dep = dep };
    tb b;
    one_subcore(&b, "gto");
    kernel(&b, &p, 32);
    trace t;
    char s[256];
    tb_run(&b, &t);
    issues(&t, s, sizeof s);
    assert_string_equal(s, "0 1 2 3 4 5 6 7");
    assert_int_equal(kern(&t, "K")->end, 11);
    trace_free(&t);
    p.dep = NULL;
    tb_run(&b, &t);
    issues(&t, s, sizeof s);
    assert_string_equal(s, "0 4 8 12 16 20 24 28");
    assert_int_equal(kern(&t, "K")->end, 32);
    trace_free(&t);
}

/* a load (latency 100) and three independent ALU instructions issue in
 * cycles 0..3; the one that reads the load (4 back) waits for it, 100 */
static void test_load_dependents_wait(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 }, { SIM_ICLASS_ALU, 3 },
                                      { SIM_ICLASS_ALU, 1 } };
    static const sim_dep dep[] = { { .n = 0 }, { .n = 0 }, { .n = 1, .on = { 4 } } };
    const sim_program p = { .body = body, .nbody = 3, .repeat = 1, .dep = dep,
                            .latency = { [SIM_ICLASS_ALU] = 4, [SIM_ICLASS_MEM] = 100 } };
    tb b;
    one_subcore(&b, "gto");
    kernel(&b, &p, 32);
    trace t;
    char s[256];
    tb_run(&b, &t);
    issues(&t, s, sizeof s);
    assert_string_equal(s, "0 1 2 3 100");
    assert_int_equal(kern(&t, "K")->end, 104);
    trace_free(&t);
}

/* a warp ends when its last result is written, not at its last issue: a
 * load then an independent ALU instruction end at the load's 100 */
static void test_warp_ends_with_last_result(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 }, { SIM_ICLASS_ALU, 1 } };
    static const sim_dep dep[] = { { .n = 0 }, { .n = 0 } };
    const sim_program p = { .body = body, .nbody = 2, .repeat = 1, .dep = dep,
                            .latency = { [SIM_ICLASS_ALU] = 4, [SIM_ICLASS_MEM] = 100 } };
    tb b;
    one_subcore(&b, "lrr");
    kernel(&b, &p, 32);
    trace t;
    tb_run(&b, &t);
    assert_int_equal(t.warp_issues.n, 2);
    assert_int_equal(t.warp_issues.v[1].cycle, 1);
    assert_int_equal(kern(&t, "K")->end, 100);
    assert_int_equal(blk(&t, "K", 0)->end, 100);
    trace_free(&t);
}

/* distances count across the body's repetitions: one ALU instruction (4
 * cycles) reading the result 2 back, four times: 0, 1 (nothing 2 back yet),
 * then 4 and 5 (the first two's results) */
static void test_across_repetitions(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 1 } };
    static const sim_dep dep[] = { { .n = 1, .on = { 2 } } };
    const sim_program p = { .body = body, .nbody = 1, .repeat = 4, .dep = dep,
                            .latency = { [SIM_ICLASS_ALU] = 4 } };
    tb b;
    one_subcore(&b, "gto");
    kernel(&b, &p, 32);
    trace t;
    char s[256];
    tb_run(&b, &t);
    issues(&t, s, sizeof s);
    assert_string_equal(s, "0 1 4 5");
    assert_int_equal(kern(&t, "K")->end, 9);
    trace_free(&t);
}

/* while a warp waits on the scoreboard the scheduler issues another
 * (checkCollision fails, the next warp in the policy's order): two warps
 * of a chain of three 4-cycle instructions under GTO interleave */
static void test_other_warp_fills(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 1 }, { SIM_ICLASS_ALU, 1 },
                                      { SIM_ICLASS_ALU, 1 } };
    static const sim_dep dep[] = { { .n = 0 }, { .n = 0 }, { .n = 2, .on = { 1, 2 } } };
    const sim_program p = { .body = body, .nbody = 3, .repeat = 1, .dep = dep,
                            .latency = { [SIM_ICLASS_ALU] = 4 } };
    tb b;
    one_subcore(&b, "gto");
    kernel(&b, &p, 64);
    trace t;
    char s[256];
    tb_run(&b, &t);
    issues(&t, s, sizeof s);
    /* w0: 0, 1, then waits for 1 + 4; w1 (younger) fills 2, 3; w0 at 5, w1 at 7 */
    assert_string_equal(s, "0 1 2 3 5 7");
    assert_int_equal(t.warp_issues.v[4].warp, 0);
    assert_int_equal(t.warp_issues.v[5].warp, 1);
    assert_int_equal(kern(&t, "K")->end, 11);
    trace_free(&t);
}

/* every instruction reading the one before is the model without a
 * scoreboard: QAWS Fig. 3's program under each policy gives the same
 * issue cycles and ends */
static void test_chain_is_no_scoreboard(void **state) {
    (void)state;
    static const sim_instr body[] = {
        { SIM_ICLASS_SFU, 1 }, { SIM_ICLASS_ALU, 1 }, { SIM_ICLASS_SFU, 1 },
        { SIM_ICLASS_ALU, 3 }, { SIM_ICLASS_MEM, 1 }, { SIM_ICLASS_ALU, 2 },
    };
    static const sim_dep chain[6] = {
        { 1, { 1 } }, { 1, { 1 } }, { 1, { 1 } }, { 1, { 1 } }, { 1, { 1 } }, { 1, { 1 } },
    };
    static const char *const pol[] = { "gto", "lrr", "qaws", "lrr-gpgpusim" };
    for (int i = 0; i < 4; i++) {
        char s[2][512];
        int64_t end[2][2];
        for (int with = 0; with < 2; with++) {
            const sim_program p = {
                .body = body, .nbody = 6, .repeat = 3, .dep = with ? chain : NULL,
                .latency = { [SIM_ICLASS_ALU] = 1, [SIM_ICLASS_SFU] = 2, [SIM_ICLASS_MEM] = 5 },
            };
            tb b;
            one_subcore(&b, pol[i]);
            b.cfg.device.mem_bandwidth = 1;
            int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
            int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
            sim_op *k1 = tb_op(&b, SIM_OP_KERNEL, "K1", s1, 0);
            sim_op *k2 = tb_op(&b, SIM_OP_KERNEL, "K2", s2, 1);
            k1->blocks = k2->blocks = 1;
            k1->threads = k2->threads = 64;
            k1->program = k2->program = &p;
            k1->budget = 1;
            k2->budget = 4;
            trace t;
            tb_run(&b, &t);
            issues(&t, s[with], sizeof s[with]);
            end[with][0] = kern(&t, "K1")->end;
            end[with][1] = kern(&t, "K2")->end;
            trace_free(&t);
        }
        assert_string_equal(s[0], s[1]);
        assert_int_equal(end[0][0], end[1][0]);
        assert_int_equal(end[0][1], end[1][1]);
    }
}

/* "dep" in a scenario: a number or a list; entries without one read the
 * instruction before; out of range, too many, or with a quota policy is an
 * error naming the place */
static int parse(const char *body, const char *warp, scn_scenario **s, char *err, size_t n) {
    char text[1024];
    snprintf(text, sizeof text, "{\"schema\": \"schedlab-scenario/1\", \"device\": "
             "\"titanv-gpgpusim\", \"policy\": {\"warp\": \"%s\"}, \"ops\": [{\"kernel\": \"K\", "
             "\"blocks\": 1, \"threads\": 32, \"program\": {\"body\": %s}}]}", warp, body);
    return scn_parse(text, strlen(text), "t.json", s, err, n);
}

static void test_scenario_dep(void **state) {
    (void)state;
    char err[512];
    scn_scenario *s = NULL;
    if (parse("[{\"op\": \"alu\", \"count\": 8, \"dep\": 0}, {\"op\": \"alu\"}, "
              "{\"op\": \"alu\", \"dep\": [2, 9]}]", "gto", &s, err, sizeof err))
        fail_msg("%s", err);
    sim_config cfg;
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    const sim_dep *d = cfg.ops[0].program->dep;
    assert_non_null(d);
    assert_int_equal(d[0].n, 0);
    assert_true(d[1].n == 1 && d[1].on[0] == 1);
    assert_true(d[2].n == 2 && d[2].on[0] == 2 && d[2].on[1] == 9);
    trace t;
    trace_init(&t);
    assert_int_equal(sim_run(&cfg, &t, err, sizeof err), 0);
    /* eight back to back (cycles 0..7), the ninth reads the eighth */
    assert_int_equal(t.warp_issues.v[7].cycle, 7);
    assert_true(t.warp_issues.v[8].cycle > 8);
    trace_free(&t);
    scn_free(s);
    /* no "dep" anywhere: no scoreboard */
    s = NULL;
    if (parse("[{\"op\": \"alu\", \"count\": 8}]", "gto", &s, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    assert_null(cfg.ops[0].program->dep);
    scn_free(s);

    s = NULL;
    assert_int_equal(parse("[{\"op\": \"alu\", \"dep\": 32}]", "gto", &s, err, sizeof err), -1);
    assert_null(s);
    assert_non_null(strstr(err, "ops[0].program.body[0].dep"));
    assert_int_equal(parse("[{\"op\": \"alu\", \"dep\": [1, 2, 3, 4]}]", "gto", &s, err,
                           sizeof err), -1);
    assert_non_null(strstr(err, "ops[0].program.body[0].dep: lists 4 results; an instruction "
                                "reads at most 3"));
    assert_int_equal(parse("[{\"op\": \"alu\", \"dep\": [0]}]", "gto", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "ops[0].program.body[0].dep[0]"));
    assert_int_equal(parse("[{\"op\": \"alu\", \"dep\": \"1\"}]", "gto", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "ops[0].program.body[0].dep: must be a number"));
    /* with a quota policy (ISCA'17 §3.4.1 charges an instruction when it
     * completes): "dep": 1 everywhere is the model without a scoreboard,
     * to the cycle, its charges too (each falls due as the warp may issue
     * again), with a QoS kernel throttled beside another every epoch */
    trace q[2];
    for (int with = 0; with < 2; with++) {
        char text[1024];
        const char *dep = with ? ", \"dep\": 1" : "";
        snprintf(text, sizeof text,
                 "{\"schema\": \"schedlab-scenario/1\", \"device\": {\"preset\": "
                 "\"isca17-gpgpusim\", \"sms\": 1}, \"policy\": {\"warp\": \"quota-rollover\", "
                 "\"quota_epoch\": 200}, \"streams\": [{\"name\": \"A\", \"process\": \"P0\"}, "
                 "{\"name\": \"B\", \"process\": \"P1\"}], \"ops\": [{\"kernel\": \"Q\", "
                 "\"stream\": \"A\", \"blocks\": 2, \"threads\": 64, \"qos_goal\": 0.5, "
                 "\"program\": {\"body\": [{\"op\": \"sfu\"%s}, {\"op\": \"alu\", \"count\": 3%s}], "
                 "\"repeat\": 20}}, {\"kernel\": \"N\", \"stream\": \"B\", \"blocks\": 2, "
                 "\"threads\": 64, \"program\": {\"body\": [{\"op\": \"alu\", \"count\": 4%s}], "
                 "\"repeat\": 30}}]}", dep, dep, dep);
        s = NULL;
        if (scn_parse(text, strlen(text), "t.json", &s, err, sizeof err)) fail_msg("%s", err);
        assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
        assert_true(with ? cfg.ops[0].program->dep != NULL : cfg.ops[0].program->dep == NULL);
        trace_init(&q[with]);
        if (sim_run(&cfg, &q[with], err, sizeof err)) fail_msg("%s", err);
        scn_free(s);
    }
    assert_true(q[0].warp_issues.n == 2 * 2 * 80 + 2 * 2 * 120);
    assert_int_equal(q[1].warp_issues.n, q[0].warp_issues.n);
    for (size_t i = 0; i < q[0].warp_issues.n; i++) {
        const trace_warp_issue *x = &q[0].warp_issues.v[i], *y = &q[1].warp_issues.v[i];
        if (x->cycle != y->cycle || x->warp != y->warp || x->kernel != y->kernel)
            fail_msg("issue %zu: cycle %lld warp %d kernel %d without a scoreboard, cycle %lld "
                     "warp %d kernel %d with dep 1", i, (long long)x->cycle, (int)x->warp,
                     (int)x->kernel, (long long)y->cycle, (int)y->warp, (int)y->kernel);
    }
    trace_free(&q[0]);
    trace_free(&q[1]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_independent_back_to_back),
        cmocka_unit_test(test_load_dependents_wait),
        cmocka_unit_test(test_warp_ends_with_last_result),
        cmocka_unit_test(test_across_repetitions),
        cmocka_unit_test(test_other_warp_fills),
        cmocka_unit_test(test_chain_is_no_scoreboard),
        cmocka_unit_test(test_scenario_dep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
