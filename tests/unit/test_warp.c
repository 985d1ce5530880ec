/* test_warp.c -- the warp-level execution model (simcore/exec_warp.c) and
 * its warp policies (warp_gto.c, warp_lrr.c, warp_qaws.c), on
 * configurations built here in C:
 *
 *   - QAWS paper Fig. 3, cycle by cycle: the nine-instruction program whose
 *     schedule gives every cycle the paper's text names (see fig3_prog);
 *   - the rules of the model: sub-cores dealt round-robin, skipped idle
 *     cycles, the memory system's bandwidth, persistent blocks, records;
 *   - the block sink with blocks whose end is decided later;
 *   - configuration errors.
 *
 * The shipped scenarios (qaws-*, most-room-table1-*) are checked from their
 * files in test_scenarios_shipped.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../simcore/sim.h"
#include "test_sim_util.h"

/* ---- QAWS Fig. 3 ------------------------------------------------------------
 * The paper gives the figure's program only as "the same code with only nine
 * instructions" and pins, for QAWS with budgets K1 = 1 and K2 = 4 (Fig. 3c):
 * w0 issues until it stalls at cycle 1, w1 follows, from the stall at cycle
 * 2 K2's warps issue until cycle 12, where K1's issue again; with K2's budget
 * 6 (Fig. 3d) K2 issues until cycle 18; in Fig. 3c w3 stalls at cycle 22
 * with w2 done and issues again at 26; and the average execution time is 29
 * cycles under GTO (Fig. 3a) and 31 under QAWS with budget 6 (Fig. 3d).
 * Searching every program of nine instructions with latencies 1..8 for
 * these facts leaves two, which differ only in the third instruction's
 * latency (2 or 3); this is the shorter:
 *
 *     sfu alu sfu alu alu alu mem alu alu     latencies 2 1 2 1 1 1 5 1 1
 *
 * One SM with one sub-core and a 1-GHz clock, so cycle = ns; K2 is launched
 * one cycle after K1. The strings below give, per cycle, the warp that
 * issued ('.' none): w0, w1 are K1's, w2, w3 K2's. */
static const sim_instr fig3_body[] = {
    { SIM_ICLASS_SFU, 1 }, { SIM_ICLASS_ALU, 1 }, { SIM_ICLASS_SFU, 1 },
    { SIM_ICLASS_ALU, 3 }, { SIM_ICLASS_MEM, 1 }, { SIM_ICLASS_ALU, 2 },
};

typedef struct fig3_result {
    char issue[64];          /* per cycle */
    int64_t end1, end2;      /* kernels' ends, cycles (= ns) */
    double ipc1, ipc2;
    int64_t instr1, instr2;
} fig3_result;

/* The figure's two kernels under `policy` with budgets budget1 and budget2,
 * K2 launched at cycle k2_at (the figure's: 1). */
static void fig3_run_at(const char *policy, int32_t budget1, int32_t budget2, int64_t k2_at,
                        fig3_result *r) {
    static const sim_program prog = {
        .body = fig3_body, .nbody = 6, .repeat = 1,
        .latency = { [SIM_ICLASS_ALU] = 1, [SIM_ICLASS_SFU] = 2, [SIM_ICLASS_MEM] = 5 },
    };
    tb b;
    tb_init(&b, "titanv-gpgpusim");
    b.cfg.device.sms = 1;
    b.cfg.device.schedulers_per_sm = 1;
    b.cfg.device.clock_hz = 1000000000;
    b.cfg.device.mem_bandwidth = 1;
    b.cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    b.cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, policy);
    assert_true(b.cfg.policy.execution > 0 && b.cfg.policy.warp >= 0);
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    sim_op *k1 = tb_op(&b, SIM_OP_KERNEL, "K1", s1, 0);
    sim_op *k2 = tb_op(&b, SIM_OP_KERNEL, "K2", s2, k2_at);
    k1->blocks = k2->blocks = 1;
    k1->threads = k2->threads = 64;
    k1->program = k2->program = &prog;
    k1->budget = budget1;
    k2->budget = budget2;
    trace t;
    tb_run(&b, &t);
    memset(r, 0, sizeof *r);
    memset(r->issue, '.', sizeof r->issue - 1);
    int64_t last = 0;
    for (size_t i = 0; i < t.warp_issues.n; i++) {
        const trace_warp_issue *w = &t.warp_issues.v[i];
        assert_int_equal(w->sm, 0);
        assert_int_equal(w->subcore, 0);
        assert_true(w->cycle < 63);
        assert_true(r->issue[w->cycle] == '.');        /* one issue per cycle */
        assert_int_equal(w->kernel, w->warp < 2 ? 0 : 1);
        r->issue[w->cycle] = (char)('0' + w->warp);
        if (w->cycle > last) last = w->cycle;
    }
    r->issue[last + 1] = '\0';
    assert_int_equal(t.warp_issues.n, 36);             /* 4 warps x 9 instructions */
    r->end1 = kern(&t, "K1")->end;
    r->end2 = kern(&t, "K2")->end;
    r->ipc1 = kern(&t, "K1")->ipc;
    r->ipc2 = kern(&t, "K2")->ipc;
    r->instr1 = kern(&t, "K1")->instructions;
    r->instr2 = kern(&t, "K2")->instructions;
    /* one block each, ending with its kernel */
    assert_int_equal(blk(&t, "K1", 0)->end, r->end1);
    assert_int_equal(blk(&t, "K2", 0)->end, r->end2);
    assert_int_equal(blk(&t, "K2", 0)->start, k2_at);
    trace_free(&t);
}

static void fig3_run(const char *policy, int32_t budget2, fig3_result *r) {
    fig3_run_at(policy, 1, budget2, 1, r);
}

static void test_fig3_qaws_budget4(void **state) {
    (void)state;
    fig3_result r;
    fig3_run("qaws", 4, &r);
    /* w0 issues at 0 and stalls at 1; w1 issues at 1 (K1's one context
     * switch, Alg. 1 line 16); at the stall in cycle 2 K1's budget is spent
     * (line 18) and K2's warps issue in cycles 2..11; at 12 K2 has used its
     * 4 switches and K1 issues again */
    assert_string_equal(r.issue, "0123223322220011223333000033111100..11");
    for (int c = 2; c < 12; c++) assert_true(r.issue[c] == '2' || r.issue[c] == '3');
    assert_true(r.issue[12] == '0' || r.issue[12] == '1');
    /* w2 is done (its last issue at 17); w3 issues at 21, is stalled at 22
     * (K1's w0 fills cycles 22..25 while K2 keeps priority, lines 22-23)
     * and issues again at 26, the cycle it is ready */
    assert_true(strrchr(r.issue, '2') - r.issue == 17);
    assert_int_equal(r.issue[21], '3');
    for (int c = 22; c < 26; c++) assert_int_not_equal(r.issue[c], '3');
    assert_int_equal(r.issue[26], '3');
    assert_int_equal(r.end1, 38);
    assert_int_equal(r.end2, 28);
    assert_int_equal(r.instr1, 18);
    assert_int_equal(r.instr2, 18);
}

/* QAWS §IV-A: "g0 is the group that was prioritized in the previous cycle.
 * When there is no history, g0 is the group with the higher budget." Both
 * kernels launched at cycle 0, so the first pick has no history: the warps
 * of the kernel with the larger budget issue first, whichever kernel it
 * is (Fig. 3's program; w0, w1 are K1's, w2, w3 K2's). */
static void test_qaws_no_history_higher_budget_first(void **state) {
    (void)state;
    fig3_result r;
    fig3_run_at("qaws", 1, 4, 0, &r);
    assert_true(r.issue[0] == '2' || r.issue[0] == '3');
    fig3_run_at("qaws", 4, 1, 0, &r);
    assert_true(r.issue[0] == '0' || r.issue[0] == '1');
}

static void test_fig3_qaws_budget6(void **state) {
    (void)state;
    fig3_result r;
    fig3_run("qaws", 6, &r);
    /* K2 goes on past cycle 12 up to cycle 18 (Fig. 3d) */
    assert_string_equal(r.issue, "0123223322223333220011330000111100..11");
    for (int c = 2; c < 18; c++) assert_true(r.issue[c] == '2' || r.issue[c] == '3');
    assert_true(r.issue[18] == '0' || r.issue[18] == '1');
    assert_int_equal(r.end1, 38);
    assert_int_equal(r.end2, 24);
    /* "QAWS in Fig. 3d achieves an average execution time of 31 cycles" */
    assert_int_equal(r.end1 + r.end2, 2 * 31);
}

static void test_fig3_gto(void **state) {
    (void)state;
    fig3_result r;
    fig3_run("gto", 1, &r);
    /* the older K1 warps first: K2 (higher QoS, launched later) ends last */
    assert_string_equal(r.issue, "0100110000111100231122332222333322..33");
    assert_int_equal(r.end1, 20);
    assert_int_equal(r.end2, 38);
    /* "an average of 29 cycles achieved by GTO in Fig. 3a" */
    assert_int_equal(r.end1 + r.end2, 2 * 29);
    /* ipc: 18 instructions from the first block's cycle to the end */
    assert_true(r.ipc1 > 0.8999 && r.ipc1 < 0.9001);              /* 18 / 20 */
    assert_true(r.ipc2 > 18.0 / 37 - 1e-9 && r.ipc2 < 18.0 / 37 + 1e-9);
}

static void test_fig3_lrr(void **state) {
    (void)state;
    fig3_result r;
    fig3_run("lrr", 1, &r);
    /* equal progress: both kernels late */
    assert_string_equal(r.issue, "012300112233000011112222333300112233");
    assert_int_equal(r.end1, 32);
    assert_int_equal(r.end2, 36);
}

/* GPGPU-Sim's LRR (scheduler_unit::order_lrr) on Fig. 3's warps, worked by
 * hand: each cycle the order starts after the warp that issued last, so
 * the four warps take turns: w0 issues its sfu at 0 (ready at 2), w1, w2
 * (K2 arrives at 1) and w3 follow at 1-3, and by cycle 4 w0 is ready again;
 * every instruction of the rotation is ready when its turn comes, until
 * the mem ops (latency 5) issued at 24-27 leave cycle 28 with no ready
 * warp (w0's is back at 29). K1's last alu issues at 34 (w1), K2's at 36
 * (w3), each done a cycle later. Where the paper's LRR (Fig. 3b) runs a
 * warp until it stalls, here no warp issues twice in a row. */
static void test_fig3_lrr_gpgpusim(void **state) {
    (void)state;
    fig3_result r;
    fig3_run("lrr-gpgpusim", 1, &r);
    assert_string_equal(r.issue, "0123012301230123012301230123.01230123");
    assert_int_equal(r.end1, 35);
    assert_int_equal(r.end2, 37);
    for (size_t c = 1; r.issue[c]; c++)
        if (r.issue[c] != '.') assert_int_not_equal(r.issue[c], r.issue[c - 1]);
}

static void test_fig3_budgets(void **state) {
    (void)state;
    fig3_result gto, lrr, q[7];
    fig3_run("gto", 1, &gto);
    fig3_run("lrr", 1, &lrr);
    for (int b = 1; b <= 6; b++) fig3_run("qaws", b, &q[b]);
    /* K2's end (it is launched at 1) by budget 1..6 */
    static const int64_t want[7] = { 0, 38, 32, 26, 28, 24, 24 };
    for (int b = 1; b <= 6; b++) assert_int_equal(q[b].end2, want[b]);
    /* equal budgets are one group: QAWS is GTO (Alg. 1 line 9) */
    assert_string_equal(q[1].issue, gto.issue);
    /* LRR delays both: K1 against GTO, K2 against QAWS */
    assert_true(lrr.end1 > gto.end1);
    assert_true(lrr.end2 > q[4].end2);
    /* QAWS with K2's budget raised cuts K2's response time below both GTO's
     * and LRR's; budget 6 gives the best K2 of all four panels */
    assert_true(q[4].end2 < gto.end2 && q[4].end2 < lrr.end2);
    assert_true(q[6].end2 < q[4].end2);
    /* falling back to budget 1 K2 rises back to GTO's */
    assert_true(q[2].end2 > q[4].end2 && q[1].end2 == gto.end2);
}

/* ---- model rules ----------------------------------------------------------- */

static void warp_tb(tb *b, const char *preset, const char *policy) {
    tb_init(b, preset);
    b->cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    b->cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, policy);
}

/* Kernel "K" on stream S1 at time 0: `blocks` blocks of `threads` threads
 * running prog. */
static sim_op *warp_kernel(tb *b, const sim_program *prog, int64_t blocks, int32_t threads) {
    sim_op *k = tb_op(b, SIM_OP_KERNEL, "K", tb_stream(b, "S1", "P0", SIM_PRIO_NONE), 0);
    k->blocks = blocks;
    k->threads = threads;
    k->program = prog;
    return k;
}

/* A block's warps are dealt to the sub-cores round-robin (QAWS §II), one
 * instruction per sub-core per cycle; latency-1 ALU work of one warp per
 * sub-core issues every cycle. */
static void test_subcores_round_robin(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 10 } };
    static const sim_program prog = { .body = body, .nbody = 1, .repeat = 1,
                                       .latency = { [SIM_ICLASS_ALU] = 1 } };
    tb b;
    warp_tb(&b, "titanv-gpgpusim", "gto");
    b.cfg.device.sms = 1;
    b.cfg.device.clock_hz = 1000000000;
    warp_kernel(&b, &prog, 1, 6 * 32); /* 6 warps on 4 sub-cores: 2, 2, 1, 1 */
    trace t;
    tb_run(&b, &t);
    int per[4] = { 0 };
    for (size_t i = 0; i < t.warp_issues.n; i++) {
        const trace_warp_issue *w = &t.warp_issues.v[i];
        assert_int_equal(w->subcore, w->warp % 4);
        per[w->subcore]++;
    }
    assert_int_equal(per[0], 20);
    assert_int_equal(per[1], 20);
    assert_int_equal(per[2], 10);
    assert_int_equal(per[3], 10);
    /* sub-cores 0 and 1 issue 20 instructions back to back: cycles 0..19 */
    assert_int_equal(kern(&t, "K")->end, 20);
    assert_int_equal(kern(&t, "K")->instructions, 60);
    assert_string_equal(trace_get_meta(&t, "execution"), "warp");
    assert_string_equal(trace_get_meta(&t, "warp"), "gto");
    trace_free(&t);
}

/* Long stalls cost nothing: a warp whose instructions wait a million
 * cycles each still ends at the right cycle, and the run takes no time. */
static void test_idle_cycles_skipped(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_program prog = { .body = body, .nbody = 1, .repeat = 1000,
                                       .latency = { [SIM_ICLASS_MEM] = 1000000 } };
    tb b;
    warp_tb(&b, "titanv-gpgpusim", "lrr");
    b.cfg.device.clock_hz = 1000000000;
    warp_kernel(&b, &prog, 1, 32);
    trace t;
    tb_run(&b, &t);
    /* 1000 requests, each 1e6 cycles after the last: 1e9 cycles = 1 s */
    assert_int_equal(kern(&t, "K")->end, 1000000000);
    assert_int_equal(t.warp_issues.n, 1000);
    assert_int_equal(t.warp_issues.v[999].cycle, 999000000);
    trace_free(&t);
}

/* The memory system serves mem_bandwidth requests per cycle to all SMs:
 * 8 warps on 8 SMs issuing one request each at cycle 0 with bandwidth 2
 * get slots 0, 0.5, 1, ..., 3.5 and are ready at ceil(slot) + latency. */
static void test_memory_bandwidth(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_program prog = { .body = body, .nbody = 1, .repeat = 1,
                                       .latency = { [SIM_ICLASS_MEM] = 100 } };
    tb b;
    warp_tb(&b, "titanv-gpgpusim", "gto");
    b.cfg.device.sms = 8;
    b.cfg.device.clock_hz = 1000000000;
    b.cfg.device.mem_bandwidth = 2;
    sim_op *k = warp_kernel(&b, &prog, 8, 32);
    trace t;
    tb_run(&b, &t);
    /* blocks on SMs 0..7 (most-room), served in SM order */
    for (int32_t i = 0; i < 8; i++) {
        const trace_block *x = blk(&t, "K", i);
        assert_int_equal(x->sm, i);
        assert_int_equal(x->end, (i + 1) / 2 + 100);
    }
    assert_int_equal(kern(&t, "K")->end, 104);
    trace_free(&t);

    /* four requests per instruction: twice as long per warp */
    sim_program wide = prog;
    wide.mem_requests = 4;
    k->program = &wide;
    tb_run(&b, &t);
    /* warp i's requests take slots 2i .. 2i + 1.5: ready at ceil(2i + 1.5) + 100 */
    for (int32_t i = 0; i < 8; i++) assert_int_equal(blk(&t, "K", i)->end, 2 * i + 2 + 100);
    trace_free(&t);
}

/* GPGPU-Sim's front end (device.fetch_warps, ibuffer; exec_warp.c): one
 * SM, one sub-core, three warps of four latency-1 ALU instructions under
 * GTO. Each cycle the SM fetches for one warp whose buffer is empty, in
 * slot order from the one fetched last (at first slot 0, so slot 1 goes
 * first), two instructions that issue from two cycles later:
 *
 *   cycle  0 1 2 3 4 5 6 7 8 9 10 11 12 13 14
 *   fetch  1 2 0 1 . 0 . . . .  .  2  .  .  .   (warp whose buffer it fills)
 *   issue  . . 1 1 0 0 1 1 0 0  2  2  .  2  2
 *
 * w1 is fetched at 0 and issues at 2 and 3; its buffer is empty after 3,
 * so its next pair issues from 5 (fetch 3 + 2), and w0 (fetched at 2,
 * older than w2) takes cycle 4; w2, fetched at 1, waits for the older
 * warps; its second fetch is at 11, so cycle 12 is idle. Without a front
 * end GTO runs each warp's four instructions back to back. */
static void test_front_end(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 4 } };
    static const sim_program prog = { .body = body, .nbody = 1, .repeat = 1,
                                       .latency = { [SIM_ICLASS_ALU] = 1 } };
    static const struct { int32_t fetch, ibuf; const char *issue; int64_t end; } cases[] = {
        { 1, 2, "..1100110022.22", 15 },
        { 0, 0, "000011112222", 12 },
        /* a buffer of one: a fetch per instruction, so the warps take
         * turns in slot order from w1 */
        { 1, 1, "..120120120120", 14 },
        /* two fetches a cycle (w1 and w2 at 0, w0 at 1, then each warp
         * the cycle it issues) keep w1 and w0 supplied: GTO alternates
         * them and w2 waits for both to end */
        { 2, 1, "..101010102.2.2.2", 17 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb b;
        warp_tb(&b, "isca17-gpgpusim", "gto");
        b.cfg.device.sms = 1;
        b.cfg.device.schedulers_per_sm = 1;
        b.cfg.device.clock_hz = 1000000000;
        b.cfg.device.fetch_warps = cases[i].fetch;
        b.cfg.device.ibuffer = cases[i].ibuf;
        warp_kernel(&b, &prog, 1, 3 * 32);
        trace t;
        tb_run(&b, &t);
        char issue[32];
        memset(issue, '.', sizeof issue);
        int64_t last = 0;
        for (size_t j = 0; j < t.warp_issues.n; j++) {
            const trace_warp_issue *w = &t.warp_issues.v[j];
            assert_true(w->cycle < 31 && issue[w->cycle] == '.');
            issue[w->cycle] = (char)('0' + w->warp);
            if (w->cycle > last) last = w->cycle;
        }
        issue[last + 1] = '\0';
        assert_string_equal(issue, cases[i].issue);
        assert_int_equal(kern(&t, "K")->end, cases[i].end);
        assert_int_equal(kern(&t, "K")->instructions, 12);
        trace_free(&t);
    }
}

/* The front end is the SM's instruction supply: 32 warps of dependent
 * latency-4 ALU instructions on four sub-cores issue four a cycle alone
 * (one per sub-core), and at most ibuffer x fetch_warps = 2 a cycle
 * through GPGPU-Sim's front end, shared by the SM's warps in slot order
 * whatever their sub-core. */
static void test_front_end_supply(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 1 } };
    static const sim_program prog = { .body = body, .nbody = 1, .repeat = 1000,
                                       .latency = { [SIM_ICLASS_ALU] = 4 } };
    for (int fe = 0; fe < 2; fe++) {
        tb b;
        warp_tb(&b, "isca17-gpgpusim", "gto");
        b.cfg.device.sms = 1;
        b.cfg.device.clock_hz = 1000000000;
        b.cfg.device.fetch_warps = fe;
        b.cfg.device.ibuffer = 2 * fe;
        b.cfg.policy.warp_issue_limit = 32000;
        warp_kernel(&b, &prog, 1, 1024);
        trace t;
        tb_run(&b, &t);
        const trace_kernel *K = kern(&t, "K");
        assert_int_equal(K->instructions, 32000);
        /* alone: 8 warps per sub-core cover the latency, 8000 cycles and
         * the last instruction's 4 */
        if (!fe) {
            assert_int_equal(K->end, 8003);
            trace_free(&t);
            continue;
        }
        /* through the front end: 16000 fetches of two, one per cycle
         * from cycle 0 without a gap; the round robin starts at slot 1,
         * so the last is w0's at cycle 15999 and its pair issues at 16001
         * and 16005; w31's, fetched at 15998, waits a cycle for w27 on
         * its sub-core, so both end the kernel 4 cycles after 16005 */
        assert_int_equal(K->end, 16009);
        const trace_warp_issue *x = &t.warp_issues.v[t.warp_issues.n - 2];
        assert_int_equal(x[0].cycle, 16005);
        assert_int_equal(x[0].warp, 0);
        assert_int_equal(x[1].cycle, 16005);
        assert_int_equal(x[1].warp, 31);
        for (size_t j = 0; j < t.warp_issues.n; j++)
            assert_true(t.warp_issues.v[j].cycle >= 2);
        trace_free(&t);
    }
}

/* Each SM's port to the memory system passes sm_mem_bandwidth requests
 * per cycle (GPGPU-Sim's interconnect: one 32-byte flit a cycle into each
 * SM), first come first served as the memory system: 8 one-warp blocks on
 * 2 SMs (0, 2, 4, 6 on SM 0; 1, 3, 5, 7 on SM 1) each issue a request at
 * cycle 0. The memory system (2 a cycle) gives them slots 0, 0.5, ... 3.5
 * in issue order (SM 0's first), each SM's port (0.5 a cycle) 0, 2, 4, 6:
 * a request waits for the later of its two slots, then 100 cycles. */
static void test_sm_memory_port(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_program prog = { .body = body, .nbody = 1, .repeat = 1,
                                       .latency = { [SIM_ICLASS_MEM] = 100 } };
    static const int64_t port_end[8] = { 100, 102, 102, 103, 104, 104, 106, 106 };
    static const int64_t free_end[8] = { 100, 102, 101, 103, 101, 103, 102, 104 };
    for (int port = 0; port < 2; port++) {
        tb b;
        warp_tb(&b, "titanv-gpgpusim", "gto");
        b.cfg.device.sms = 2;
        b.cfg.device.clock_hz = 1000000000;
        b.cfg.device.mem_bandwidth = 2;
        b.cfg.device.sm_mem_bandwidth = port ? 0.5 : 0;
        warp_kernel(&b, &prog, 8, 32);
        trace t;
        tb_run(&b, &t);
        for (int32_t i = 0; i < 8; i++) {
            const trace_block *x = blk(&t, "K", i);
            assert_int_equal(x->sm, i % 2);
            assert_int_equal(x->end, port ? port_end[i] : free_end[i]);
        }
        trace_free(&t);
    }
}

/* Persistent threads: one block per SM does the work of all the op's
 * blocks, split evenly in body repetitions (QAWS §V-A). */
static void test_persistent(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 1 } };
    sim_program prog = { .body = body, .nbody = 1, .repeat = 3, .persistent = 1,
                         .latency = { [SIM_ICLASS_ALU] = 1 } };
    tb b;
    warp_tb(&b, "titanv-gpgpusim", "gto");
    b.cfg.device.sms = 4;
    b.cfg.device.clock_hz = 1000000000;
    warp_kernel(&b, &prog, 10, 32); /* 30 repetitions over 4 blocks: 8, 8, 7, 7 */
    trace t;
    tb_run(&b, &t);
    assert_int_equal(t.blocks.n, 4);
    assert_int_equal(kern(&t, "K")->blocks, 4);
    assert_int_equal(blk(&t, "K", 0)->end, 8);
    assert_int_equal(blk(&t, "K", 1)->end, 8);
    assert_int_equal(blk(&t, "K", 2)->end, 7);
    assert_int_equal(blk(&t, "K", 3)->end, 7);
    assert_int_equal(kern(&t, "K")->instructions, 30);
    trace_free(&t);
}

/* warp_issues stop at the limit; epochs count every issue of the run. */
static void test_records_limit_and_epochs(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 1 } };
    static const sim_program prog = { .body = body, .nbody = 1, .repeat = 2500,
                                       .latency = { [SIM_ICLASS_ALU] = 1 } };
    tb b;
    warp_tb(&b, "titanv-gpgpusim", "gto");
    b.cfg.device.sms = 1;
    b.cfg.device.clock_hz = 1000000000;
    b.cfg.policy.warp_issue_limit = 100;
    warp_kernel(&b, &prog, 1, 32);
    trace t;
    tb_run(&b, &t);
    assert_int_equal(t.warp_issues.n, 100);
    assert_int_equal(t.warp_epochs.n, 3);    /* cycles 0..999, 1000..1999, 2000..2499 */
    assert_int_equal(t.warp_epochs.v[0].cycle, 0);
    assert_int_equal(t.warp_epochs.v[0].cycles, SIM_WARP_EPOCH);
    assert_int_equal(t.warp_epochs.v[0].issues, 1000);
    assert_int_equal(t.warp_epochs.v[2].cycle, 2000);
    assert_int_equal(t.warp_epochs.v[2].issues, 500);
    trace_free(&t);
    b.cfg.policy.warp_issue_limit = -1;
    tb_run(&b, &t);
    assert_int_equal(t.warp_issues.n, 0);
    assert_int_equal(t.warp_epochs.n, 3);
    trace_free(&t);
}

/* ---- the block sink: blocks leave complete, in placement order, in batches
 * of exactly `batch` but the last ---------------------------------------- */

typedef struct sink_seen {
    trace_block v[4096];
    size_t n, calls, small, batch;
} sink_seen;

static int sink_collect(void *ctx, const trace_block *b, size_t n) {
    sink_seen *s = ctx;
    assert_true(n >= 1 && n <= s->batch);
    s->calls++;
    if (n < s->batch) s->small++;
    for (size_t i = 0; i < n; i++) {
        assert_true(b[i].end != TRACE_NONE);
        assert_true(s->n < 4096);
        s->v[s->n++] = b[i];
    }
    return 0;
}

static void test_sink_holds_blocks_back(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 3 }, { SIM_ICLASS_MEM, 1 } };
    static const sim_program prog = { .body = body, .nbody = 2, .repeat = 5 };
    tb b;
    warp_tb(&b, "titanv-gpgpusim", "qaws");
    b.cfg.device.sms = 3;
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    sim_op *k1 = tb_op(&b, SIM_OP_KERNEL, "K1", s1, 0);
    k1->blocks = 300;
    k1->threads = 96;
    k1->program = &prog;
    sim_op *k2 = tb_op(&b, SIM_OP_KERNEL, "K2", s2, 5);
    k2->blocks = 200;
    k2->threads = 256;
    k2->program = &prog;
    k2->budget = 3;
    trace whole;
    tb_run(&b, &whole);
    static const size_t batches[] = { 1, 7, 64, 499, 500, 1000 };
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
        static sink_seen seen;
        memset(&seen, 0, sizeof seen);
        seen.batch = batches[i];
        sim_block_sink sink = { .ctx = &seen, .emit = sink_collect, .batch = batches[i] };
        b.cfg.block_sink = &sink;
        trace t;
        tb_run(&b, &t);
        b.cfg.block_sink = NULL;
        assert_int_equal(t.blocks.n, 0);
        assert_int_equal(seen.n, whole.blocks.n);
        assert_int_equal(seen.calls, (whole.blocks.n + seen.batch - 1) / seen.batch);
        assert_int_equal(seen.small, whole.blocks.n % seen.batch ? 1 : 0);
        for (size_t j = 0; j < seen.n; j++) {
            assert_int_equal(seen.v[j].kernel, whole.blocks.v[j].kernel);
            assert_int_equal(seen.v[j].index, whole.blocks.v[j].index);
            assert_int_equal(seen.v[j].sm, whole.blocks.v[j].sm);
            assert_int_equal(seen.v[j].start, whole.blocks.v[j].start);
            assert_int_equal(seen.v[j].end, whole.blocks.v[j].end);
        }
        trace_free(&t);
    }
    for (size_t j = 0; j < whole.blocks.n; j++) assert_true(whole.blocks.v[j].end != TRACE_NONE);
    trace_free(&whole);
}

/* ---- errors ------------------------------------------------------------------ */

/* A barrier (op "barrier", __syncthreads(); [GS] bar.sync): a block's
 * warps wait until the last of them has issued it, then all go on from
 * its latency. One SM, one sub-core, GTO, two warps of one block each
 * running ALU, barrier, ALU (latency 4, the barrier's the device's ALU
 * latency, 4): w0 issues at 0 and 4 (its barrier), w1 at 1 and 5; w1's
 * barrier releases both at 5 + 4 = 9: w0's last ALU at 9, w1's at 10, the
 * block ends at 14 (without the barrier, ALU in its place: 13, w1's last
 * at 9).
 * With the scoreboard a released warp still waits for what its next
 * instruction reads: ALU (latency 20), barrier (reads nothing: the next
 * cycle), ALU reading the first. w0 issues at 0 and 1 (its barrier, greedy),
 * w1 at 2 and 3, releasing both from 3 + 4 = 7; but w0's last ALU reads a
 * result done at 20, w1's one done at 22: they issue at 20 and 22, the
 * block ends at 42. */
static int64_t barrier_end(const sim_program *prog, int64_t *issues, size_t n) {
    tb b;
    warp_tb(&b, "titanv-gpgpusim", "gto");
    b.cfg.device.sms = 1;
    b.cfg.device.schedulers_per_sm = 1;
    b.cfg.device.clock_hz = 1000000000;
    warp_kernel(&b, prog, 1, 64);
    trace t;
    tb_run(&b, &t);
    assert_int_equal(t.warp_issues.n, n);
    for (size_t i = 0; i < n; i++) issues[i] = t.warp_issues.v[i].cycle;
    int64_t end = kern(&t, "K")->end;
    trace_free(&t);
    return end;
}

static void test_barrier(void **state) {
    (void)state;
    static const sim_instr bar[] = { { SIM_ICLASS_ALU, 1 }, { SIM_ICLASS_BARRIER, 1 },
                                     { SIM_ICLASS_ALU, 1 } };
    static const sim_instr alu[] = { { SIM_ICLASS_ALU, 3 } };
    static const sim_program with = { .body = bar, .nbody = 3, .repeat = 1 };
    static const sim_program without = { .body = alu, .nbody = 1, .repeat = 1 };
    int64_t c[6];
    assert_int_equal(barrier_end(&with, c, 6), 14);
    static const int64_t want[6] = { 0, 1, 4, 5, 9, 10 };
    for (int i = 0; i < 6; i++) assert_int_equal(c[i], want[i]);
    assert_int_equal(barrier_end(&without, c, 6), 13);
    assert_int_equal(c[5], 9);
    static const sim_dep dep[] = { { 0, { 0 } }, { 0, { 0 } }, { 1, { 2 } } };
    static const sim_program sb = { .body = bar, .nbody = 3, .repeat = 1, .dep = dep,
                                    .latency = { [SIM_ICLASS_ALU] = 20 } };
    assert_int_equal(barrier_end(&sb, c, 6), 42);
    static const int64_t want_sb[6] = { 0, 1, 2, 3, 20, 22 };
    for (int i = 0; i < 6; i++) assert_int_equal(c[i], want_sb[i]);
    /* not modelled with the front end or preemption: refused */
    tb b;
    warp_tb(&b, "isca17-gpgpusim", "gto");
    warp_kernel(&b, &with, 1, 64);
    trace t;
    char err[256];
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "ops[0].program.body[1]: a barrier is not modelled with the front "
                             "end (device.fetch_warps)");
    trace_free(&t);
}

static void expect_error(tb *b, const char *want) {
    trace t;
    char err[256] = "";
    trace_init(&t);
    assert_int_not_equal(sim_run(tb_config(b), &t, err, sizeof err), 0);
    if (!strstr(err, want)) fail_msg("error \"%s\" does not say \"%s\"", err, want);
    trace_free(&t);
}

static void test_errors(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_SFU, 1 }, { SIM_ICLASS_MEM, 1 } };
    sim_program prog = { .body = body, .nbody = 2, .repeat = 1 };
    tb b;
    warp_tb(&b, "titanv-gpgpusim", "gto");
    int32_t s = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    sim_op *k = tb_kernel(&b, "K7", s, 0, 1, 32, 0, 1000);
    k->program = &prog;
    expect_error(&b, "ops[0]: kernel K7 gives both block_time and program");
    k->block_time = NULL;
    k->nblock_time = 0;
    k->program = NULL;
    expect_error(&b, "ops[0].block_time: missing; kernel K7 needs at least one block duration "
                     "or a program");
    k->program = &prog;
    /* tx2 knows no warp-model latencies */
    b.cfg.device = *sim_preset_find("tx2");
    expect_error(&b, "ops[0].latency.sfu: unknown");
    prog.latency[SIM_ICLASS_SFU] = 10;
    prog.latency[SIM_ICLASS_MEM] = 10;
    expect_error(&b, "device.mem_bandwidth: unknown");
    b.cfg.device = *sim_preset_find("titanv-gpgpusim");
    b.cfg.device.clock_hz = 0;
    expect_error(&b, "device.clock");
    /* the front end: a buffer to decode into, and an SM's slots in 64 bits */
    b.cfg.device = *sim_preset_find("titanv-gpgpusim");
    b.cfg.device.fetch_warps = 1;
    expect_error(&b, "device.ibuffer: 0; with fetch_warps 1 the front end decodes ibuffer "
                     "instructions per fetch (GPGPU-Sim: 2)");
    b.cfg.device.ibuffer = 65;
    expect_error(&b, "device.ibuffer: 65 is outside 0..64");
    b.cfg.device.ibuffer = 2;
    b.cfg.device.fetch_warps = -1;
    expect_error(&b, "device.fetch_warps: -1 is outside 0..64");
    b.cfg.device.fetch_warps = 1;
    b.cfg.device.warps_per_sm = 96;
    b.cfg.device.threads_per_sm = 3072;
    expect_error(&b, "device.fetch_warps: the front end tracks at most 64 warp slots per SM, "
                     "and warps_per_sm is 96");
    b.cfg.device = *sim_preset_find("titanv-gpgpusim");
    b.cfg.device.sm_mem_bandwidth = -1;
    expect_error(&b, "device.sm_mem_bandwidth: -1 requests per cycle is outside 0.001..65536 "
                     "(0: no limit)");
    b.cfg.device = *sim_preset_find("titanv-gpgpusim");
    prog.repeat = 0;
    expect_error(&b, "ops[0].program.repeat");
    prog.repeat = 1;
    /* the fixed model runs no programs */
    b.cfg.policy.execution = 0;
    expect_error(&b, "ops[0].program: the fixed execution model runs block_time only");
    /* and a block_time kernel runs beside warps under the warp model */
    b.cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    tb_kernel(&b, "T", s, 0, 2, 32, 0, 5000);
    trace t;
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "T")->end - kern(&t, "T")->first_block, 5000);
    trace_free(&t);
}

/* The run's bound (warp_check: every time stays far from int64) is its
 * instructions times the longest each can take, or, for a run that stops
 * (cfg.stop: the QoS sweep's window), what can issue before the stop: a
 * program re-executed past any window is refused only without one
 * (ISCA'17 §4.1's 2M-cycle window with 64 runs of tpacf was refused). */
static void test_bound_with_stop(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 1 }, { SIM_ICLASS_MEM, 1 } };
    sim_program prog = { .body = body, .nbody = 2, .repeat = 1000000000 };
    tb b;
    warp_tb(&b, "titanv-gpgpusim", "gto");
    int32_t s = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    sim_op *k = tb_kernel(&b, "K", s, 0, 1000, 1024, 0, 1000);
    k->block_time = NULL;
    k->nblock_time = 0;
    k->program = &prog;
    expect_error(&b, "ops[0].program: the run could take");
    /* 10 us: 12,000 cycles of the 1.2-GHz GPU, then the run stops */
    b.cfg.stop = 10000;
    trace t;
    tb_run(&b, &t);
    const trace_kernel *K = kern(&t, "K");
    assert_int_equal(K->first_block, 0);
    assert_true(K->end == TRACE_NONE);
    assert_true(t.blocks.n > 0);
    for (size_t i = 0; i < t.blocks.n; i++) assert_true(t.blocks.v[i].end == TRACE_NONE);
    trace_free(&t);
}

/* ---- random configurations -------------------------------------------------
 * Small random devices (with and without the front end and SM memory
 * ports), programs, budgets and policies: every run completes,
 * every kernel issues exactly blocks x warps x body x repeat instructions,
 * each sub-core issues at most once per cycle, and the same configuration
 * gives the same trace (determinism, DESIGN §8). */
static uint64_t rnd(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int cmp_issue(const void *a, const void *b) {
    const trace_warp_issue *x = a, *y = b;
    if (x->sm != y->sm) return x->sm - y->sm;
    if (x->subcore != y->subcore) return x->subcore - y->subcore;
    return (x->cycle > y->cycle) - (x->cycle < y->cycle);
}

static void test_random_configs(void **state) {
    (void)state;
    /* every warp policy of the table but the quota schemes (whose rules
     * need QoS goals: test_quota.c), so that a new one is covered here */
    const char *pols[16];
    uint64_t npol = 0;
    for (int32_t i = 0; i < (int32_t)sim_policy_count(SIM_TABLE_WARP); i++)
        if (!sim_warp_quota(i) && npol < 16) pols[npol++] = sim_policy_name(SIM_TABLE_WARP, i);
    assert_true(npol >= 4);   /* gto, lrr, qaws, lrr-gpgpusim */
    for (uint64_t seed = 1; seed <= 150; seed++) {
        uint64_t x = seed;
        sim_instr body[4][4];
        sim_program prog[4];
        tb b;
        warp_tb(&b, "titanv-gpgpusim", pols[rnd(&x) % npol]);
        b.cfg.device.sms = 1 + (int32_t)(rnd(&x) % 4);
        b.cfg.device.schedulers_per_sm = 1 + (int32_t)(rnd(&x) % 4);
        b.cfg.device.mem_bandwidth = 0.25 * (double)(1 + rnd(&x) % 8);
        b.cfg.device.clock_hz = (int64_t)(500000000 + rnd(&x) % 2000000000);
        b.cfg.device.fetch_warps = (int32_t)(rnd(&x) % 3);
        b.cfg.device.ibuffer = 1 + (int32_t)(rnd(&x) % 3);
        b.cfg.device.sm_mem_bandwidth = rnd(&x) % 2 ? 0 : 0.125 * (double)(1 + rnd(&x) % 8);
        b.cfg.device.sm_order_kind = SIM_SM_ORDER_ASCENDING;
        sim_device_fill_order(&b.cfg.device);
        int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
        int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
        int nk = 1 + (int)(rnd(&x) % 4);
        int64_t want[4];
        static const char *const names[] = { "K0", "K1", "K2", "K3" };
        for (int k = 0; k < nk; k++) {
            size_t nb = 1 + rnd(&x) % 4;
            int64_t len = 0;
            for (size_t j = 0; j < nb; j++) {
                body[k][j].iclass = (int32_t)(rnd(&x) % SIM_NICLASS);
                /* a barrier is not modelled with the front end (refused) */
                if (body[k][j].iclass == SIM_ICLASS_BARRIER && b.cfg.device.fetch_warps > 0)
                    body[k][j].iclass = SIM_ICLASS_ALU;
                body[k][j].count = 1 + (int32_t)(rnd(&x) % 5);
                len += body[k][j].count;
            }
            memset(&prog[k], 0, sizeof prog[k]);
            prog[k].body = body[k];
            prog[k].nbody = nb;
            prog[k].repeat = 1 + (int64_t)(rnd(&x) % 6);
            prog[k].persistent = rnd(&x) % 4 == 0;
            prog[k].mem_requests = (int32_t)(rnd(&x) % 3);
            prog[k].latency[SIM_ICLASS_SFU] = (int32_t)(rnd(&x) % 30);
            sim_op *o = tb_op(&b, SIM_OP_KERNEL, names[k], rnd(&x) % 2 ? s1 : s2,
                              (int64_t)(rnd(&x) % 200));
            o->blocks = 1 + (int64_t)(rnd(&x) % 12);
            o->threads = 1 + (int32_t)(rnd(&x) % 512);
            o->program = &prog[k];
            o->budget = (int32_t)(rnd(&x) % 5);
            int64_t warps = (o->threads + 31) / 32;
            want[k] = o->blocks * warps * len * prog[k].repeat;
        }
        trace t1, t2;
        tb_run(&b, &t1);
        tb_run(&b, &t2);
        for (int k = 0; k < nk; k++) {
            const trace_kernel *tk = kern(&t1, names[k]);
            assert_int_equal(tk->instructions, want[k]);
            assert_true(tk->end != TRACE_NONE && tk->end >= tk->first_block);
        }
        for (size_t i = 0; i < t1.blocks.n; i++) {
            assert_true(t1.blocks.v[i].end >= t1.blocks.v[i].start);
            assert_int_equal(t1.blocks.v[i].end, t2.blocks.v[i].end);
            assert_int_equal(t1.blocks.v[i].sm, t2.blocks.v[i].sm);
        }
        assert_int_equal(t1.warp_issues.n, t2.warp_issues.n);
        assert_memory_equal(t1.warp_issues.v, t2.warp_issues.v,
                            t1.warp_issues.n * sizeof *t1.warp_issues.v);
        /* one issue per sub-core and cycle */
        qsort(t1.warp_issues.v, t1.warp_issues.n, sizeof *t1.warp_issues.v, cmp_issue);
        for (size_t i = 1; i < t1.warp_issues.n; i++)
            assert_true(cmp_issue(&t1.warp_issues.v[i - 1], &t1.warp_issues.v[i]) < 0);
        trace_free(&t1);
        trace_free(&t2);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig3_qaws_budget4),
        cmocka_unit_test(test_fig3_qaws_budget6),
        cmocka_unit_test(test_qaws_no_history_higher_budget_first),
        cmocka_unit_test(test_fig3_gto),
        cmocka_unit_test(test_fig3_lrr),
        cmocka_unit_test(test_fig3_lrr_gpgpusim),
        cmocka_unit_test(test_fig3_budgets),
        cmocka_unit_test(test_subcores_round_robin),
        cmocka_unit_test(test_idle_cycles_skipped),
        cmocka_unit_test(test_memory_bandwidth),
        cmocka_unit_test(test_sm_memory_port),
        cmocka_unit_test(test_front_end),
        cmocka_unit_test(test_front_end_supply),
        cmocka_unit_test(test_persistent),
        cmocka_unit_test(test_records_limit_and_epochs),
        cmocka_unit_test(test_sink_holds_blocks_back),
        cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_bound_with_stop),
        cmocka_unit_test(test_random_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
