/* test_warp_mem.c -- the warp-level model's memory system and fp32 pipes
 * (simcore/exec_warp.c with device.dram_sectors / fp32_rate; issue 25,
 * docs/memory.md), on configurations built here, each expectation worked
 * out by hand from the rules:
 *
 *   - coalescing: a warp access is `sectors` 32-byte sectors, served at the
 *     SM port's rate (sm_port_sectors) or its equal share of DRAM;
 *   - a load's warp waits for its last sector plus latency_mem, a store's
 *     goes on after latency_alu; a full queue (sm_mem_queue) stalls it;
 *   - DRAM is shared equally by the SMs with memory warps, whatever their
 *     warp counts (GPGPU-Sim's crossbar arbitrates round robin), or with
 *     dram_share 1 by those with sectors waiting;
 *   - one fp32 warp instruction per 1/fp32_rate cycles on a sub-core;
 *   - the L2: a hit passes the port alone and waits latency_l2; a store
 *     allocates dirty, an evicted dirty line goes to DRAM;
 *   - a full queue takes the warp the scheduler picks (mem_admission 0) or
 *     the waiting warps in arrival order (mem_admission 1);
 *   - the L1's rate: an access passes it a line a cycle, the SM's accesses
 *     l1_sectors sectors a cycle together (l1_sectors);
 *   - the LD/ST queue: a sub-core holds ldst_queue memory instructions that
 *     the L1 has not taken yet, and issues nothing while all are held; a
 *     shared access passes the same unit, a cycle each (ldst_queue);
 *   - the L1's walk: a partial warp's sectors among the full warps' lines,
 *     a walk wrapping around its footprint inside one access, a load whose
 *     misses find the queue full stalling at issue;
 *   - with the fields at 0, nothing changes (the goldens prove it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../simcore/sim.h"
#include "test_sim_util.h"

/* One SM per `sms`, one sub-core, 1-GHz clock (cycle = ns); memory system
 * on: port 1 sector/cycle, DRAM `dram` sectors/cycle, queue `queue`. */
static void mem_bench(tb *b, int32_t sms, double dram, int32_t queue) {
    tb_init(b, "titanv-gpgpusim");
    b->cfg.device.sms = sms;
    b->cfg.device.schedulers_per_sm = 1;
    b->cfg.device.clock_hz = 1000000000;
    b->cfg.device.sm_order_kind = SIM_SM_ORDER_ASCENDING;
    sim_device_fill_order(&b->cfg.device);
    b->cfg.device.latency_alu = 4;
    b->cfg.device.latency_mem = 100;
    b->cfg.device.dram_sectors = dram;
    b->cfg.device.sm_port_sectors = 1;
    b->cfg.device.sm_mem_queue = queue;
    b->cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    b->cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, "gto");
}

/* A kernel of one block of `threads` running p, on its own stream (the
 * names are kept, not copied: literals). */
static void one_block(tb *b, const char *name, const char *stream, const sim_program *p,
                      int32_t threads) {
    sim_op *k = tb_op(b, SIM_OP_KERNEL, name, tb_stream(b, stream, "P0", SIM_PRIO_NONE), 0);
    k->blocks = 1;
    k->threads = threads;
    k->program = p;
}

static int64_t run_one(tb *b, const sim_program *p, int32_t threads, int64_t blocks) {
    int32_t s = tb_stream(b, "S1", "P0", SIM_PRIO_NONE);
    sim_op *k = tb_op(b, SIM_OP_KERNEL, "K", s, 0);
    k->blocks = blocks;
    k->threads = threads;
    k->program = p;
    trace t;
    tb_run(b, &t);
    int64_t end = kern(&t, "K")->end;
    trace_free(&t);
    return end;
}

/* Coalescing: one warp, one load. Coalesced: 4 sectors at 1 a cycle, the
 * last served at cycle 4, data at 4 + 100. Random: 32 sectors, 32 + 100.
 * strided:2: 8 sectors. (The program's mem_requests: below.) */
static void test_sectors(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_access acc[][1] = { { { .sectors = 0 } }, { { .sectors = 32 } }, { { .sectors = 8 } } };
    const int64_t want[] = { 104, 132, 108 };
    for (int i = 0; i < 3; i++) {
        sim_program p = { .body = body, .nbody = 1, .repeat = 1, .access = acc[i] };
        tb b;
        mem_bench(&b, 1, 100, 256);
        assert_int_equal(run_one(&b, &p, 32, 1), want[i]);
    }
    /* without an access pattern, a program's mem_requests requests of 4
     * sectors each: 3 make 12, 12 + 100; more than a mem op's 1024
     * sectors are refused */
    sim_program p3 = { .body = body, .nbody = 1, .repeat = 1, .mem_requests = 3 };
    tb b;
    mem_bench(&b, 1, 100, 256);
    assert_int_equal(run_one(&b, &p3, 32, 1), 112);
    p3.mem_requests = 257;
    mem_bench(&b, 1, 100, 256);
    one_block(&b, "K", "S1", &p3, 32);
    trace t;
    char err[256];
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "ops[0].program.mem_requests: 257 requests of 4 sectors are more "
                             "than a mem op's 1024 with the memory system on (dram_sectors)");
    trace_free(&t);
}

/* A store's warp goes on after latency_alu: ten random stores (320
 * sectors, a sector a cycle) with a 1024-sector queue issue at 0, 4, ...,
 * 36, and the block ends when the last sector has left, at 320 (a kernel
 * ends when its writes are done). With a 64-sector queue the third store
 * finds no room: store n (n >= 2) waits until the queue holds 32 sectors,
 * cycle 32 (n - 1); the last, n = 9, issues at 256; the end is 320 still. */
static void last_issue_and_end(int32_t queue, int64_t *last, int64_t *end) {
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_access acc[] = { { .sectors = 32, .store = 1 } };
    static const sim_program p = { .body = body, .nbody = 1, .repeat = 10, .access = acc };
    tb b;
    mem_bench(&b, 1, 100, queue);
    int32_t s = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    sim_op *k = tb_op(&b, SIM_OP_KERNEL, "K", s, 0);
    k->blocks = 1;
    k->threads = 32;
    k->program = &p;
    trace t;
    tb_run(&b, &t);
    assert_int_equal(t.warp_issues.n, 10);
    *last = t.warp_issues.v[9].cycle;
    *end = kern(&t, "K")->end;
    trace_free(&t);
}

static void test_store_backpressure(void **state) {
    (void)state;
    int64_t last, end;
    last_issue_and_end(1024, &last, &end);
    assert_int_equal(last, 36);
    assert_int_equal(end, 320);
    last_issue_and_end(64, &last, &end);
    assert_int_equal(last, 256);
    assert_int_equal(end, 320);
}

/* DRAM shared equally by the SMs using it: DRAM 1 sector/cycle, two SMs,
 * port 1. SM 0 holds 4 warps, SM 1 one warp (blocks of 128 and 32 threads,
 * persistent... here two kernels): each SM gets 1/2 sector a cycle while
 * both are active. One coalesced load each warp (4 sectors): SM 1's warp's
 * 4 sectors take 8 cycles (ends 108) whatever SM 0's 4 warps do; SM 0's 16
 * sectors take 32 cycles (ends 132). First come first served it would
 * depend on issue order. */
/* The ends of "Big" (4 warps, SM 0) and "Small" (one warp, SM 1), one
 * coalesced load a warp, with device.dram_share `share`. */
static void big_small_ends(int32_t share, int64_t *big, int64_t *small) {
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    sim_program p = { .body = body, .nbody = 1, .repeat = 1 };
    tb b;
    mem_bench(&b, 2, 1, 256);
    b.cfg.device.dram_share = share;
    one_block(&b, "Big", "S1", &p, 128);
    one_block(&b, "Small", "S2", &p, 32);
    trace t;
    tb_run(&b, &t);
    assert_int_equal(blk(&t, "Big", 0)->sm, 0);
    assert_int_equal(blk(&t, "Small", 0)->sm, 1);
    *big = kern(&t, "Big")->end;
    *small = kern(&t, "Small")->end;
    trace_free(&t);
}

static void test_fair_between_sms(void **state) {
    (void)state;
    int64_t big, small;
    big_small_ends(0, &big, &small);
    assert_int_equal(small, 108);
    assert_int_equal(big, 132);
}

/* Who shares DRAM (device.dram_share): DRAM 1 sector/cycle, port 1, two
 * SMs. "Mem" on SM 0 loads 32 sectors at cycle 0; "Late" on SM 1 runs 50
 * ALU instructions (latency 4: cycles 0..196) and then loads 4 sectors at
 * 200. With dram_share 0 both SMs have warps of kernels with mem
 * instructions from cycle 0, so Mem's sectors come at 2 cycles each, the
 * last at 64, and it ends at 64 + 100; Late alone by 200 (Mem left at 164),
 * 204 + 100. With 1 SM 1 has nothing waiting when Mem's load joins: Mem
 * takes DRAM whole, a sector a cycle, 32 + 100; Late the same 304.
 *
 * Both SMs sending, test_fair_between_sms's pair under dram_share 1: Big's
 * first warp joins at cycle 0 alone (Small's SM, the second in the cycle,
 * has nothing waiting yet) and keeps DRAM whole for its 4 sectors (0..4);
 * Small's 4 sectors join with Big's SM waiting: 2 cycles each, 8 + 100;
 * Big's three other warps issue at 1, 2, 3 with Small's SM waiting, 2
 * cycles a sector after the first's 4: the last at 4 + 3 * 8 = 28, 128
 * (the share a request joined with holds for its sectors: memory.md). */
static void share_ends(int32_t share, int64_t *mem, int64_t *late) {
    static const sim_instr body_mem[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_access acc_mem[] = { { .sectors = 32 } };
    sim_program pm = { .body = body_mem, .nbody = 1, .repeat = 1, .access = acc_mem };
    static const sim_instr body_late[] = { { SIM_ICLASS_ALU, 50 }, { SIM_ICLASS_MEM, 1 } };
    sim_program pl = { .body = body_late, .nbody = 2, .repeat = 1 };
    tb b;
    mem_bench(&b, 2, 1, 256);
    b.cfg.device.dram_share = share;
    one_block(&b, "Mem", "S1", &pm, 32);
    one_block(&b, "Late", "S2", &pl, 32);
    trace t;
    tb_run(&b, &t);
    assert_int_equal(blk(&t, "Mem", 0)->sm, 0);
    assert_int_equal(blk(&t, "Late", 0)->sm, 1);
    *mem = kern(&t, "Mem")->end;
    *late = kern(&t, "Late")->end;
    trace_free(&t);
}

static void test_dram_share(void **state) {
    (void)state;
    int64_t mem, late;
    share_ends(0, &mem, &late);
    assert_int_equal(mem, 164);
    assert_int_equal(late, 304);
    share_ends(1, &mem, &late);
    assert_int_equal(mem, 132);
    assert_int_equal(late, 304);
    int64_t big, small;
    big_small_ends(1, &big, &small);
    assert_int_equal(small, 108);
    assert_int_equal(big, 128);
}

/* fp32 pipe: 4 warps on one sub-core, each 10 dependent fp32 instructions
 * of latency 4. Without a pipe limit the sub-core issues one a cycle: each
 * warp every 4 cycles, 40 instructions by cycle 39, the last warp ending at
 * 39 + 4 = 43. With fp32_rate 0.5 one every 2 cycles: the 40th at 78,
 * ending at 82. A 1-warp kernel is latency-bound either way: 9 * 4 + 4. */
static void test_fp32_rate(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 10 } };
    static const sim_access acc[] = { { .fp32 = 1 } };
    sim_program p = { .body = body, .nbody = 1, .repeat = 1, .access = acc };
    const double rate[] = { 0, 0.5 };
    const int64_t want4[] = { 43, 82 }, want1[] = { 40, 40 };
    for (int i = 0; i < 2; i++) {
        tb b;
        mem_bench(&b, 1, 0, 0);
        b.cfg.device.fp32_rate = rate[i];
        assert_int_equal(run_one(&b, &p, 128, 1), want4[i]);
        mem_bench(&b, 1, 0, 0);
        b.cfg.device.fp32_rate = rate[i];
        assert_int_equal(run_one(&b, &p, 32, 1), want1[i]);
    }
}

/* A partial warp touches proportionally fewer sectors: a 33-thread block's
 * second warp (1 thread) makes 1 sector of a random access, not 32. Two
 * warps, one random load each: 33 sectors at 1 a cycle, the last at 33,
 * ending at 133. */
static void test_partial_warp(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_access acc[] = { { .sectors = 32 } };
    sim_program p = { .body = body, .nbody = 1, .repeat = 1, .access = acc };
    tb b;
    mem_bench(&b, 1, 100, 256);
    assert_int_equal(run_one(&b, &p, 33, 1), 133);
}

/* One SM (mem_bench's) with `kb` KB of L1, 8 ways, hit latency 20. */
static void l1_bench(tb *b, int32_t kb) {
    mem_bench(b, 1, 100, 256);
    b->cfg.device.l1_smem_kb = kb;
    b->cfg.device.l1_assoc = 8;
    b->cfg.device.latency_l1 = 20;
}

/* The L1: 1 KB of L1 (8 lines, one set of 8 ways), hit latency 20. A
 * warp's coalesced loads walk its own 1 KB (8 lines of 4 sectors), 16
 * loads: the first 8 miss (4 sectors at 1 a cycle, + 100: 104 cycles
 * each), the next 8 hit (20 each): the block ends at 8 x 104 + 8 x 20 =
 * 992, hit rate 0.5. Two warps, each its own 1 KB, cycle through 16 lines
 * in 8: LRU keeps none long enough, no hit (colocated blocks' contention,
 * most-room §5.2). */
static double l1_run(int32_t threads, int64_t *end) {
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_access acc[] = { { .footprint = 1024, .scope = SIM_SCOPE_WARP } };
    static const sim_program p = { .body = body, .nbody = 1, .repeat = 16, .access = acc };
    tb b;
    l1_bench(&b, 1);
    int32_t s = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    sim_op *k = tb_op(&b, SIM_OP_KERNEL, "K", s, 0);
    k->blocks = 1;
    k->threads = threads;
    k->program = &p;
    trace t;
    tb_run(&b, &t);
    *end = kern(&t, "K")->end;
    const char *h = trace_get_meta(&t, "l1_hit_rate");
    assert_non_null(h);
    double rate = strtod(h, NULL);
    trace_free(&t);
    return rate;
}

static void test_l1(void **state) {
    (void)state;
    int64_t end;
    assert_true(l1_run(32, &end) == 0.5);
    assert_int_equal(end, 992);
    assert_true(l1_run(64, &end) == 0);
}

/* One block of `threads` loading 32 sectors scattered a load over the
 * kernel's `footprint` bytes, `repeat` times, with 16 KB of L1 (8 ways, hit
 * latency 20) whose rate is `rate` (0: no limit), the queue holding
 * `queue` sectors; the run's trace in *t. scatter_run: 1 KB, twice, the
 * queue at 256. */
static void walk_run(int32_t threads, int64_t footprint, int64_t repeat, int32_t queue,
                     double rate, trace *t) {
    const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    const sim_access acc[] = { { .sectors = 32, .footprint = footprint,
                                 .scope = SIM_SCOPE_KERNEL } };
    const sim_program p = { .body = body, .nbody = 1, .repeat = repeat, .access = acc };
    tb b;
    l1_bench(&b, 16);
    b.cfg.device.sm_mem_queue = queue;
    b.cfg.device.l1_sectors = rate;
    one_block(&b, "K", "S1", &p, threads);
    tb_run(&b, t);
}

static void scatter_run(int32_t threads, double rate, trace *t) {
    walk_run(threads, 1024, 2, 256, rate, t);
}

/* The run's end and its L1 hit rate as the trace's meta prints it; frees t. */
static void assert_walk(trace *t, int64_t end, const char *hit_rate) {
    assert_int_equal(kern(t, "K")->end, end);
    const char *v = trace_get_meta(t, "l1_hit_rate");
    assert_non_null(v);
    assert_string_equal(v, hit_rate);
    trace_free(t);
}

/* A partial warp of a scattered op touches the same kind of lines as the
 * full warps: its threads' sectors, one a line, among theirs (most-room's
 * 33-thread blocks: the one-thread warp chases the same table).
 * scatter_run's kernel with one block of 33 threads and no L1 rate: loads
 * of 32 sectors over the kernel's 1 KB (32 sectors, scattered over 32
 * lines), twice. Warp 0 at cycle 0 misses its 32 sectors (port: 32
 * cycles, + 100: 132), again at 132 all hit: 152. Warp 1 (one thread, one sector: the sector after warp
 * 0's first, as neighbouring threads' data lies) hits at cycle 1 (21) and
 * at 21 (41). 34 hits of 66 sectors; the block ends at 152. */
static void test_partial_warp_lines(void **state) {
    (void)state;
    trace t;
    scatter_run(33, 0, &t);
    assert_walk(&t, 152, "0.5152");
}

/* A walk that wraps inside an access: one warp loads 32 sectors scattered
 * over the kernel's 40 (1280 bytes; 40 lines), three times, 16 KB of L1.
 * Access 0 takes sectors 0-31 (all miss: 32 through the port, + 100:
 * 132); access 1 sectors 32-39 and, wrapping, 0-23 (8 miss: 140 + 100 =
 * 240); access 2 sectors 24-39 and 0-15, all there (260). 56 hits of 96
 * sectors; the block ends at 260. */
static void test_walk_wraps(void **state) {
    (void)state;
    trace t;
    walk_run(32, 1280, 3, 256, 0, &t);
    assert_walk(&t, 260, "0.5833");
}

/* A load whose L1 misses find no room in the queue stalls its warp at
 * issue (gated() counts them by a probe of the L1). Queue 32, two warps on
 * one sub-core each loading 32 sectors of their own (the kernel's 2 KB:
 * warp 1's access starts where warp 0's ends), all missing. Warp 0 issues
 * at cycle 0 and fills the queue until 32 (132 with latency_mem); warp 1
 * may not issue until there is room for its 32 misses: cycle 32, its
 * sectors through the port until 64, + 100: 164, the block's end. */
static void test_l1_miss_stalls(void **state) {
    (void)state;
    trace t;
    walk_run(64, 2048, 1, 32, 0, &t);
    assert_int_equal(kern(&t, "K")->end, 164);
    assert_int_equal(t.warp_issues.n, 2);
    assert_int_equal(t.warp_issues.v[0].cycle, 0);
    assert_int_equal(t.warp_issues.v[1].cycle, 32);
    trace_free(&t);
}

/* The L1's rate (device.l1_sectors), scatter_run's kernel: four warps of
 * one block on one sub-core load the kernel's 1 KB, 32 sectors each load,
 * scattered (32 lines), twice: every load takes the same 32 lines. Each access passes the L1 one line a cycle, and the SM's
 * L1 serves `rate` sectors a cycle, first come first served.
 *
 * Rate 0.5 (2 cycles a sector). Warp 0 issues at cycle 0: the L1 is busy
 * until 64, its lookups done at 63; its 32 misses go through the port (a
 * cycle each) from there, 95, + 100: 195. Warps 1-3 issue at cycles 1-3
 * and hit (warp 0 allocated the lines): each waits for the one before,
 * 64 cycles each, so their lookups end at 127, 191, 255, + 20: 147, 211,
 * 275. Second loads in the order the warps come back: warp 1 at 147 waits
 * until 256 (lookups done at 319: 339), warp 0 at 195 until 320 (403),
 * warp 2 at 211 until 384 (467), warp 3 at 275 until 448 (531): the block
 * ends at 531.
 * Rate 4 (the SM's rate does not bind): warp 0's lookups take 32 cycles
 * (its 32 lines), done at 31, misses 63, + 100: 163; warps 1-3 start at
 * 8, 16, 24 (warp 0 held the L1 for 8 cycles) but their own 32 lines take
 * longer, done at 32, 33, 34: 52, 53, 54; second loads: warps 1-3 at 52,
 * 53, 54 start at 52, 60, 68, their lines done at 83, 84, 85 (103, 104,
 * 105); warp 0 at 163, done at 194: 214.
 * Rate 0 (no limit, as before the field): warp 0 at 0, its misses through
 * the port: 32 + 100 = 132; warps 1-3 hit at 1-3: 21, 22, 23, again 41,
 * 42, 43; warp 0 again at 132: 152. */
static int64_t l1_rate_run(double rate) {
    trace t;
    scatter_run(128, rate, &t);
    int64_t end = kern(&t, "K")->end;
    trace_free(&t);
    return end;
}

static void test_l1_rate(void **state) {
    (void)state;
    assert_int_equal(l1_rate_run(0.5), 531);
    assert_int_equal(l1_rate_run(4), 214);
    assert_int_equal(l1_rate_run(0), 152);
}

/* The LD/ST queue (device.ldst_queue, with l1_sectors 1): one block of
 * four warps on one sub-core, each with one coalesced load (4 sectors); the
 * L1 takes an SM's instructions in issue order, 4 cycles each.
 *
 * No queue: the warps issue at cycles 0-3 (the L1 takes them at 0, 4, 8,
 * 12; their lookups wait there, the sub-core does not).
 * ldst_queue 2: w0 at 0 is taken at once; w1 at 1 waits for 4, w2 at 2 for
 * 8: both slots held, cycle 3 issues nothing; at 4 w1 leaves its slot and
 * w3 issues (taken at 12). Issues 0, 1, 2, 4.
 * ldst_queue 1: w1 at 1 holds the slot until 4, w2 issues at 4 and holds
 * it until 8, w3 issues at 8. Issues 0, 1, 4, 8. */
static void ldst_issues(int32_t queue, int64_t cycles[4]) {
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_program p = { .body = body, .nbody = 1, .repeat = 1 };
    tb b;
    l1_bench(&b, 16);
    b.cfg.device.l1_sectors = 1;
    b.cfg.device.ldst_queue = queue;
    one_block(&b, "K", "S1", &p, 128);
    trace t;
    tb_run(&b, &t);
    assert_int_equal(t.warp_issues.n, 4);
    for (int i = 0; i < 4; i++) cycles[i] = t.warp_issues.v[i].cycle;
    trace_free(&t);
}

/* A shared access passes the LD/ST unit a cycle each, with the queue on:
 * two sub-cores, four warps each with one shared access (latency 20),
 * dealt w0, w2 to sub-core 0 and w1, w3 to sub-core 1. Cycle 0: w0 is
 * taken at 0 (done 20), w1 waits for the unit until 1 (21); cycle 1: w2 at
 * 2 (22), w3 at 3 (23): the block ends at 23. Without the queue every
 * access takes latency_shared from issue: 20, 20, 21, 21, the end 21. */
static int64_t ldst_shared_end(int32_t queue) {
    static const sim_instr body[] = { { SIM_ICLASS_SHARED, 1 } };
    static const sim_program p = { .body = body, .nbody = 1, .repeat = 1 };
    tb b;
    l1_bench(&b, 16);
    b.cfg.device.schedulers_per_sm = 2;
    b.cfg.device.latency_shared = 20;
    b.cfg.device.l1_sectors = 1;
    b.cfg.device.ldst_queue = queue;
    one_block(&b, "K", "S1", &p, 128);
    trace t;
    tb_run(&b, &t);
    int64_t end = kern(&t, "K")->end;
    trace_free(&t);
    return end;
}

static void test_ldst_queue(void **state) {
    (void)state;
    int64_t c[4];
    ldst_issues(0, c);
    assert_true(c[0] == 0 && c[1] == 1 && c[2] == 2 && c[3] == 3);
    ldst_issues(2, c);
    assert_true(c[0] == 0 && c[1] == 1 && c[2] == 2 && c[3] == 4);
    ldst_issues(1, c);
    assert_true(c[0] == 0 && c[1] == 1 && c[2] == 4 && c[3] == 8);
    assert_int_equal(ldst_shared_end(1), 23);
    assert_int_equal(ldst_shared_end(0), 21);
}

/* The L2: 1 KB (8 lines, one set of 8 ways), hit latency 50, no L1; DRAM
 * 0.25 sectors a cycle (4 cycles a sector), the port 1. A warp's coalesced
 * loads walk its own 512 bytes (4 lines), 8 loads: the first 4 miss, each
 * 4 sectors through the port (4 cycles) and DRAM (16), + 100: 116 cycles;
 * the next 4 hit, the port alone, + 50: 54. The block ends at 4 x 116 +
 * 4 x 54 = 680, hit rate 0.5; without the L2 every load takes 116: 928. */
static void l2_bench(tb *b, double dram, int32_t l2_kb) {
    mem_bench(b, 1, dram, 1024);
    b->cfg.device.l2_kb = l2_kb;
    b->cfg.device.l2_assoc = 8;
    b->cfg.device.latency_l2 = 50;
}

static int64_t l2_run(int32_t l2_kb, const sim_program *p, const char *meta, double *value) {
    tb b;
    l2_bench(&b, p->access[0].store ? 0.5 : 0.25, l2_kb);
    int32_t s = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    sim_op *k = tb_op(&b, SIM_OP_KERNEL, "K", s, 0);
    k->blocks = 1;
    k->threads = 32;
    k->program = p;
    trace t;
    tb_run(&b, &t);
    int64_t end = kern(&t, "K")->end;
    if (meta) {
        const char *v = trace_get_meta(&t, meta);
        assert_non_null(v);
        *value = strtod(v, NULL);
    }
    trace_free(&t);
    return end;
}

static void test_l2_hits(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_access acc[] = { { .footprint = 512, .scope = SIM_SCOPE_WARP } };
    static const sim_program p = { .body = body, .nbody = 1, .repeat = 8, .access = acc };
    double rate;
    assert_int_equal(l2_run(1, &p, "l2_hit_rate", &rate), 680);
    assert_true(rate == 0.5);
    assert_int_equal(l2_run(0, &p, NULL, NULL), 928);
}

/* Write-back: DRAM 0.5 sectors a cycle (2 cycles a sector). A warp's 32
 * coalesced stores walk its own 2 KB (16 lines) twice, one every 4 cycles
 * (latency_alu). Without the L2 each store's 4 sectors take DRAM 8 cycles,
 * one after another: the block ends at 256. With it each store allocates
 * its line dirty without reading it (4 cycles of port, one after another:
 * 128); from the 9th on each evicts the line 8 stores back, dirty, and its
 * 4 sectors go to DRAM (8 cycles): the 9th at cycle 32 -> 40, the k-th
 * (k >= 9) at 40 + 8 (k - 9); the 32nd at 224, the block's end. 24 lines
 * written back: 96 sectors. */
static void test_l2_write_back(void **state) {
    (void)state;
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_access acc[] = { { .footprint = 2048, .scope = SIM_SCOPE_WARP, .store = 1 } };
    static const sim_program p = { .body = body, .nbody = 1, .repeat = 32, .access = acc };
    double wb;
    assert_int_equal(l2_run(1, &p, "l2_writebacks", &wb), 224);
    assert_true(wb == 96);
    assert_int_equal(l2_run(0, &p, NULL, NULL), 256);
}

/* Unified memory: 4-KB pages, a page's migration 1000 cycles (4.096 GB/s
 * at 1 GHz), one at a time. Each warp's random access (32 sectors, one per
 * line: 4 KB) is one page of its block's stream; two rounds.
 *   latency 3000, one warp: page 0 at 0 -> 3000; page 1 at 3000 -> 6000.
 *   latency 0, two warps: pages 0, 1 at 0, 1 -> 1000, 2000 (the link is
 *   busy); warp 0 at 1000 asks for page 2 -> 2000..3000, warp 1 at 2000
 *   for page 3 -> 3000..4000: the end is 4000, four faults (the same with
 *   one fault slot per SM). */
static int64_t uvm_run(int32_t threads, int32_t latency, int32_t slots, int64_t *faults) {
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_access acc[] = { { .sectors = 32, .managed = 1, .scope = SIM_SCOPE_BLOCK } };
    static const sim_program p = { .body = body, .nbody = 1, .repeat = 2, .access = acc };
    tb b;
    mem_bench(&b, 1, 100, 256);
    b.cfg.device.uvm_page_kb = 4;
    b.cfg.device.uvm_fault_latency = latency;
    b.cfg.device.sm_faults = slots;
    b.cfg.device.copy_bandwidth = 4.096e9;
    int32_t s = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    sim_op *k = tb_op(&b, SIM_OP_KERNEL, "K", s, 0);
    k->blocks = 1;
    k->threads = threads;
    k->program = &p;
    trace t;
    tb_run(&b, &t);
    int64_t end = kern(&t, "K")->end;
    const char *f = trace_get_meta(&t, "uvm_faults");
    assert_non_null(f);
    *faults = strtoll(f, NULL, 10);
    trace_free(&t);
    return end;
}

static void test_uvm(void **state) {
    (void)state;
    int64_t faults;
    assert_int_equal(uvm_run(32, 3000, 0, &faults), 6000);
    assert_int_equal(faults, 2);
    assert_int_equal(uvm_run(64, 0, 0, &faults), 4000);
    assert_int_equal(faults, 4);
    /* latency 3000, two warps: pages 0, 1 at 0, 1 -> 3000, 3001 (page 1's
     * migration 1000..2000); pages 2, 3 at 3000, 3001 -> 6000, 6001. With
     * one fault slot on the SM (sm_faults 1) warp 1 stalls until 3000, warp
     * 0 (GTO's greedy warp) takes the slot for page 2 -> 6000, then warp 1
     * page 1 -> 9000 and page 3 -> 12000. */
    assert_int_equal(uvm_run(64, 3000, 0, &faults), 6001);
    assert_int_equal(uvm_run(64, 3000, 1, &faults), 12000);
    assert_int_equal(faults, 4);
}

/* Who enters a full queue (device.mem_admission): two kernels of one warp
 * each on one sub-core, each storing 20 times (an alu, then a random store
 * of 32 sectors), the queue holding one store (32 sectors), the port a
 * sector a cycle: the sub-core drains a store every 32 cycles, 40 in all,
 * so the later kernel ends near 40 x 32 = 1280 either way. The warp that
 * stored last comes back from its alu in 4 cycles and waits for room like
 * the other one. Under GTO with the scheduler's pick (0), the greedy warp,
 * the one that issued last, takes the room every time: it stores all 20
 * first and ends near 20 x 32 = 640, half the other's time. In arrival
 * order (1) the two take turns: they end a store (32 cycles) apart. */
static void admission_ends(int32_t admission, int64_t *first, int64_t *second) {
    static const sim_instr body[] = { { SIM_ICLASS_ALU, 1 }, { SIM_ICLASS_MEM, 1 } };
    static const sim_access acc[] = { { .sectors = 0 }, { .sectors = 32, .store = 1 } };
    static const sim_program p = { .body = body, .nbody = 2, .repeat = 20, .access = acc };
    tb b;
    mem_bench(&b, 1, 100, 32);
    b.cfg.device.mem_admission = admission;
    one_block(&b, "K1", "S1", &p, 32);
    one_block(&b, "K2", "S2", &p, 32);
    trace t;
    tb_run(&b, &t);
    int64_t e1 = kern(&t, "K1")->end, e2 = kern(&t, "K2")->end;
    *first = e1 < e2 ? e1 : e2;
    *second = e1 < e2 ? e2 : e1;
    trace_free(&t);
}

static void test_mem_admission(void **state) {
    (void)state;
    int64_t first, second;
    admission_ends(0, &first, &second);
    print_message("scheduler's pick: ends %lld and %lld\n", (long long)first, (long long)second);
    assert_true(second >= 1280 && second < 1280 + 64);
    assert_true(first >= 640 && first < 640 + 64);
    admission_ends(1, &first, &second);
    print_message("arrival order: ends %lld and %lld\n", (long long)first, (long long)second);
    assert_true(second >= 1280 && second < 1280 + 64);
    assert_true(second - first >= 32 && second - first <= 64);
    /* a preempted warp would take its place in the queue with it: refused */
    static const sim_instr body[] = { { SIM_ICLASS_MEM, 1 } };
    static const sim_program p = { .body = body, .nbody = 1, .repeat = 1 };
    tb b;
    mem_bench(&b, 1, 100, 32);
    b.cfg.device.mem_admission = 1;
    b.cfg.policy.has_sm_preempt = true;
    one_block(&b, "K", "S1", &p, 32);
    trace t;
    char err[256];
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(&b), &t, err, sizeof err), -1);
    assert_string_equal(err, "device.mem_admission: arrival order is not modelled with "
                             "preemption (policy.sm_preempt)");
    trace_free(&t);
}

/* d is refused with exactly the message msg. */
static void assert_refused(const sim_device *d, const char *msg) {
    char err[256];
    assert_int_equal(sim_device_validate(d, err, sizeof err), -1);
    assert_string_equal(err, msg);
}

/* Configuration errors name the field. */
static void test_errors(void **state) {
    (void)state;
    sim_device d = *sim_preset_find("titanv-gpgpusim");
    char err[256];
    d.dram_sectors = 10;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_non_null(strstr(err, "device.sm_port_sectors"));
    d.sm_port_sectors = 1;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_non_null(strstr(err, "device.sm_mem_queue"));
    d.sm_mem_queue = 256;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), 0);
    d.l2_kb = 64;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_non_null(strstr(err, "device.l2_assoc"));
    d.l2_assoc = 16;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_non_null(strstr(err, "device.latency_l2"));
    d.latency_l2 = 160;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), 0);
    d.l2_assoc = 1024;   /* more ways than 64 KB has lines */
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_non_null(strstr(err, "device.l2_assoc"));
    d.l2_assoc = 16;
    d.fp32_rate = -1;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_non_null(strstr(err, "device.fp32_rate"));
    d.fp32_rate = 0;
    d.mem_admission = 2;
    assert_refused(&d, "device.mem_admission: 2 is neither 0 (the scheduler's pick) nor 1 "
                       "(arrival order)");
    d.mem_admission = 1;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), 0);
    d.l2_kb = 0;
    d.dram_sectors = 0;
    assert_refused(&d, "device.dram_sectors: with mem_admission the memory queue needs the "
                       "memory system (dram_sectors > 0)");
    d.mem_admission = 0;
    d.dram_share = 2;
    assert_refused(&d, "device.dram_share: 2 is neither 0 (the SMs with memory warps) nor 1 "
                       "(the SMs with sectors waiting)");
    d.dram_share = 1;
    assert_refused(&d, "device.dram_sectors: with dram_share DRAM's share needs the memory "
                       "system (dram_sectors > 0)");
    d.dram_share = 0;
    d.l1_sectors = -1;
    assert_refused(&d, "device.l1_sectors: -1 sectors per cycle is outside 0.001..65536 "
                       "(0: no limit)");
    d.l1_sectors = 2.87;
    assert_refused(&d, "device.l1_smem_kb: with l1_sectors the L1's rate needs an L1 "
                       "(l1_smem_kb > 0)");
    d.l1_sectors = 0;
    d.ldst_queue = 65;
    assert_refused(&d, "device.ldst_queue: 65 memory instructions is outside 0..64 (0: no "
                       "limit)");
    d.ldst_queue = 4;
    assert_refused(&d, "device.ldst_queue: the queue waits for the L1's rate (l1_sectors > 0)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sectors),
        cmocka_unit_test(test_store_backpressure),
        cmocka_unit_test(test_fair_between_sms),
        cmocka_unit_test(test_dram_share),
        cmocka_unit_test(test_fp32_rate),
        cmocka_unit_test(test_partial_warp),
        cmocka_unit_test(test_l1),
        cmocka_unit_test(test_l1_rate),
        cmocka_unit_test(test_partial_warp_lines),
        cmocka_unit_test(test_walk_wraps),
        cmocka_unit_test(test_l1_miss_stalls),
        cmocka_unit_test(test_ldst_queue),
        cmocka_unit_test(test_l2_hits),
        cmocka_unit_test(test_l2_write_back),
        cmocka_unit_test(test_uvm),
        cmocka_unit_test(test_mem_admission),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
