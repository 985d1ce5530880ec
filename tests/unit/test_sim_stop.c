/* test_sim_stop.c -- sim_config.stop (sim.h): a run that stops at a time
 * records, before that time, exactly what the whole run records there, and
 * nothing at or after it.
 *
 *   - the warp-level model (two program kernels sharing the isca17-gpgpusim
 *     device under a quota policy, each launched twice on its stream): every
 *     block that starts before the stop starts on the same SM at the same
 *     time as in the whole run, none starts later; the blocks and kernels
 *     that end before the stop end as in the whole run, the kernels that do
 *     not are unended (TRACE_NONE); every warp_epochs record of a cycle
 *     range that ends before the stop has the whole run's issues; no record
 *     begins at or after the stop;
 *   - the same on the fixed-time model (block_time), and kernels never
 *     launched before the stop are left unstarted;
 *   - a stop after the run's end changes nothing (the same trace JSON as a
 *     run without one), and stop 0 is the whole run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../server/formats/trace_json.h"
#include "../../simcore/sim.h"
#include "test_sim_util.h"

static const sim_instr mem_body[] = { { SIM_ICLASS_ALU, 3 }, { SIM_ICLASS_MEM, 1 } };
static const sim_instr alu_body[] = { { SIM_ICLASS_ALU, 6 }, { SIM_ICLASS_SFU, 1 } };
static const sim_program pm = { .body = mem_body, .nbody = 2, .repeat = 30 };
static const sim_program pa = { .body = alu_body, .nbody = 2, .repeat = 20 };

/* A QoS kernel and a non-QoS kernel, each run twice back to back on its own
 * stream (ISCA'17 §4.1 re-execution, as the QoS sweep runs them). */
static void build_warp(tb *b) {
    tb_init(b, "isca17-gpgpusim");
    b->cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    b->cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, "quota-rollover");
    b->cfg.policy.warp_issue_limit = -1;
    b->cfg.policy.warp_epoch = 500;
    b->cfg.policy.quota_epoch = 2000;
    int32_t s1 = tb_stream(b, "Q", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(b, "B", "P1", SIM_PRIO_NONE);
    for (int r = 0; r < 2; r++) {
        sim_op *q = tb_op(b, SIM_OP_KERNEL, "QOS", s1, 0);
        sim_op *o = tb_op(b, SIM_OP_KERNEL, "OTHER", s2, 0);
        q->blocks = o->blocks = 64;
        q->threads = o->threads = 256;
        q->program = &pm;
        o->program = &pa;
        q->qos_goal = 0.6;
    }
    tb_config(b);
}

static void build_fixed(tb *b) {
    tb_init(b, "tx2");
    int32_t s1 = tb_stream(b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(b, "S2", "P0", SIM_PRIO_NONE);
    tb_kernel(b, "K1", s1, 0, 12, 256, 0, 1000);
    tb_kernel(b, "K2", s2, 100, 8, 512, 0, 3000);
    tb_kernel(b, "K3", s1, 0, 4, 256, 0, 500);
    tb_kernel(b, "K4", s2, 20000, 4, 256, 0, 500);   /* issued after the stop below */
    tb_config(b);
}

static void run(tb *b, int64_t stop, trace *t) {
    char err[512] = "";
    b->cfg.stop = stop;
    trace_init(t);
    if (sim_run(&b->cfg, t, err, sizeof err) != 0) fail_msg("sim_run: %s", err);
}

/* The stopped trace `s` against the whole run `w`, stop at `stop` ns. */
static void check_prefix(const trace *w, const trace *s, int64_t stop, int64_t clock_hz) {
    /* kernels: the same records, ended only where the whole run ends before the stop */
    assert_int_equal(s->kernels.n, w->kernels.n);
    int ended = 0, cut = 0;
    for (size_t i = 0; i < w->kernels.n; i++) {
        const trace_kernel *a = &w->kernels.v[i], *b = &s->kernels.v[i];
        if (a->first_block < stop) assert_int_equal(b->first_block, a->first_block);
        else assert_true(b->first_block == TRACE_NONE);
        if (a->end < stop) {
            assert_int_equal(b->end, a->end);
            ended++;
        } else {
            assert_true(b->end == TRACE_NONE);
            cut++;
        }
    }
    assert_true(ended > 0 && cut > 0);   /* the stop falls inside the run */
    /* blocks: those that start before the stop, in the same order, on the
     * same SM at the same time; their ends where the whole run's are earlier */
    size_t nb = 0;
    for (size_t i = 0; i < w->blocks.n; i++)
        if (w->blocks.v[i].start < stop) nb++;
    assert_int_equal(s->blocks.n, nb);
    size_t j = 0;
    for (size_t i = 0; i < w->blocks.n; i++) {
        const trace_block *a = &w->blocks.v[i];
        if (a->start >= stop) continue;
        const trace_block *b = &s->blocks.v[j++];
        assert_int_equal(b->kernel, a->kernel);
        assert_int_equal(b->index, a->index);
        assert_int_equal(b->sm, a->sm);
        assert_int_equal(b->start, a->start);
        if (a->end < stop) assert_int_equal(b->end, a->end);
    }
    /* warp epochs: none begins at or after the stop; those whose cycles all
     * begin before it are the whole run's */
    if (clock_hz <= 0) return;
    size_t full = 0;
    for (size_t i = 0; i < s->warp_epochs.n; i++) {
        const trace_warp_epoch *e = &s->warp_epochs.v[i];
        int64_t begin_ns = (int64_t)((double)e->cycle * 1e9 / (double)clock_hz);
        assert_true(begin_ns < stop);
        int64_t last_ns = (int64_t)((double)(e->cycle + e->cycles) * 1e9 / (double)clock_hz);
        if (last_ns >= stop - 1) continue;   /* cut by the stop */
        size_t k = 0;
        while (k < w->warp_epochs.n &&
               (w->warp_epochs.v[k].kernel != e->kernel || w->warp_epochs.v[k].cycle != e->cycle))
            k++;
        assert_true(k < w->warp_epochs.n);
        assert_int_equal(e->issues, w->warp_epochs.v[k].issues);
        full++;
    }
    assert_true(full > 0);
    /* and every whole-run record that ends before the stop is there */
    for (size_t k = 0; k < w->warp_epochs.n; k++) {
        const trace_warp_epoch *e = &w->warp_epochs.v[k];
        int64_t last_ns = (int64_t)((double)(e->cycle + e->cycles) * 1e9 / (double)clock_hz);
        if (last_ns >= stop - 1) continue;
        size_t i = 0;
        while (i < s->warp_epochs.n &&
               (s->warp_epochs.v[i].kernel != e->kernel || s->warp_epochs.v[i].cycle != e->cycle))
            i++;
        assert_true(i < s->warp_epochs.n);
    }
}

static void test_warp_stop(void **state) {
    (void)state;
    tb b;
    build_warp(&b);
    trace w;
    run(&b, 0, &w);
    int64_t end = 0;
    for (size_t i = 0; i < w.kernels.n; i++)
        if (w.kernels.v[i].end > end) end = w.kernels.v[i].end;
    assert_true(end > 0);
    /* stops within the first runs, between them and late in the second */
    const int64_t stops[] = { end / 5, end / 2 + 7, end - end / 10 };
    for (size_t i = 0; i < sizeof stops / sizeof *stops; i++) {
        trace s;
        run(&b, stops[i], &s);
        check_prefix(&w, &s, stops[i], b.cfg.device.clock_hz);
        trace_free(&s);
    }
    trace_free(&w);
}

static void test_fixed_stop(void **state) {
    (void)state;
    tb b;
    build_fixed(&b);
    trace w, s;
    run(&b, 0, &w);
    run(&b, 2500, &s);
    check_prefix(&w, &s, 2500, 0);
    /* K4 is issued at 20000: never launched before the stop */
    assert_true(s.kernels.v[3].first_block == TRACE_NONE);
    trace_free(&s);
    /* a stop at an instant where things happen: at 3100 ns K2's first two
     * blocks (100-3100) end and K3's four start in the room they leave
     * (K3 waited behind K2 in the EE queue since K1 ended at 1000 ns);
     * "no event at or after it fires" (sim.h): K3 never starts */
    int64_t k3_first = 0, k2_ends_at_3100 = 0;
    for (size_t i = 0; i < w.blocks.n; i++) {
        if (w.blocks.v[i].kernel == 2 && w.blocks.v[i].index == 0) k3_first = w.blocks.v[i].start;
        k2_ends_at_3100 += w.blocks.v[i].kernel == 1 && w.blocks.v[i].end == 3100;
    }
    assert_int_equal(k3_first, 3100);
    assert_int_equal(k2_ends_at_3100, 2);
    run(&b, 3100, &s);
    check_prefix(&w, &s, 3100, 0);
    assert_true(s.kernels.v[2].first_block == TRACE_NONE);
    trace_free(&w);
    trace_free(&s);
}

/* Stopping after everything has ended, or not at all, is the whole run. */
static void test_late_stop_is_whole_run(void **state) {
    (void)state;
    tb b;
    build_warp(&b);
    trace w, s;
    run(&b, 0, &w);
    int64_t end = 0;
    for (size_t i = 0; i < w.kernels.n; i++)
        if (w.kernels.v[i].end > end) end = w.kernels.v[i].end;
    run(&b, end + 1000000, &s);
    tj_buf x = { 0 }, y = { 0 };
    assert_int_equal(tj_write_trace(&w, &x), 0);
    assert_int_equal(tj_write_trace(&s, &y), 0);
    assert_non_null(x.s);
    assert_string_equal(x.s, y.s);
    tj_buf_free(&x);
    tj_buf_free(&y);
    trace_free(&w);
    trace_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warp_stop),
        cmocka_unit_test(test_fixed_stop),
        cmocka_unit_test(test_late_stop_is_whole_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
