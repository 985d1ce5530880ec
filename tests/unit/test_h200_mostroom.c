/* test_h200_mostroom.c -- the most-room paper's Table 1 experiment recorded
 * on an H200 (tests/fixtures/h200/mostroom/: tools/recorder's
 * schedlab-mostroom, 30 runs of each pair and configuration, driver
 * 580.159.04, CUDA 13.0; the summary's '#' lines give the command and each
 * pair's calibration), a second truth beside the paper's Turing numbers
 * (issue 25, "When a GPU is at hand"), and the h100 warp-level scenarios
 * (scenarios/most-room-h100-*.json) against it.
 *
 * What the recording says is asserted as the recording says it, next to
 * the paper's number; where the H200 and the paper's Turing disagree the
 * test says which. The memory system's constants of those scenarios come
 * from tests/fixtures/h200/membench.txt (tools/recorder's
 * schedlab-membench on the same machine); test_membench_constants ties the
 * scenario's numbers to it. Files are found under $SCHEDLAB_ROOT, or the
 * current folder. Under the sanitizers the memory and L1 scenarios' base
 * runs only: their variants, which move a device field or the warp
 * policy, and the compute and transfer scenarios, whose fp32 pipes and
 * unified memory test_warp_scenarios' Table 1 rows run there, are the
 * plain run's (test_sanitizer.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_sanitizer.h"
#include "test_scn_util.h"

enum { L1, FP, MEM, UVM, NPAIRS };
enum { SERIAL, ISOLATED, COLOCATED, NCONFIGS };
static const char *const pair_names[NPAIRS] = {"l1", "fp", "mem", "uvm"};
static const char *const config_names[NCONFIGS] = {"serial", "isolated", "colocated"};

/* Table 1 (Turing, ms): serial A, B; isolated A, B; colocated A, B */
static const double paper_ms[NPAIRS][6] = {
    {85, 79, 85, 79, 105, 105},
    {523, 365, 527, 529, 530, 676},
    {949, 10, 951, 224, 955, 961},
    {369, 130, 385, 355, 388, 466},
};

/* The summary, per pair and configuration: mean A and B times (ms), runs,
 * runs whose recorded %smid had the configuration's placement, B's SMs. */
typedef struct cell {
    double a, b;
    int runs, ok, b_sms_min, b_sms_max, beside_min, beside_max;
} cell;
static cell rec[NPAIRS][NCONFIGS];

static FILE *open_fixture(const char *rel) {
    const char *root = getenv("SCHEDLAB_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s%s%s", root ? root : "", root ? "/" : "", rel);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open %s (set SCHEDLAB_ROOT or run from the repository root)", path);
    return f;
}

static int index_of(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}

static void load_summary(void) {
    static int loaded;
    if (loaded) return;
    loaded = 1;
    memset(rec, 0, sizeof rec);
    FILE *f = open_fixture("tests/fixtures/h200/mostroom/mostroom-summary.csv");
    char line[512];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || strncmp(line, "pair,", 5) == 0) continue;
        char pair[16], config[16];
        int run, a_sms, b_sms, beside, ok;
        double a, b, total;
        if (sscanf(line, "%15[^,],%15[^,],%d,%lf,%lf,%lf,%d,%d,%d,%d", pair, config, &run, &a, &b,
                   &total, &a_sms, &b_sms, &beside, &ok) != 10)
            fail_msg("mostroom-summary.csv: cannot read \"%s\"", line);
        int p = index_of(pair_names, NPAIRS, pair), c = index_of(config_names, NCONFIGS, config);
        assert_true(p >= 0 && c >= 0);
        cell *x = &rec[p][c];
        if (x->runs == 0) {
            x->b_sms_min = x->b_sms_max = b_sms;
            x->beside_min = x->beside_max = beside;
        }
        x->a += a;
        x->b += b;
        x->runs++;
        x->ok += ok;
        if (b_sms < x->b_sms_min) x->b_sms_min = b_sms;
        if (b_sms > x->b_sms_max) x->b_sms_max = b_sms;
        if (beside < x->beside_min) x->beside_min = beside;
        if (beside > x->beside_max) x->beside_max = beside;
        assert_int_equal(a_sms, 131);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, NPAIRS * NCONFIGS * 30);
    for (int p = 0; p < NPAIRS; p++)
        for (int c = 0; c < NCONFIGS; c++) {
            rec[p][c].a /= rec[p][c].runs;
            rec[p][c].b /= rec[p][c].runs;
        }
}

/* The slowdown of kernel k (0 A, 1 B) of pair p in configuration c. */
static double slow(int p, int c, int k) {
    return (k ? rec[p][c].b : rec[p][c].a) / (k ? rec[p][SERIAL].b : rec[p][SERIAL].a);
}
static double paper_slow(int p, int c, int k) {
    return paper_ms[p][2 * c + k] / paper_ms[p][k];
}

/* Every run had the placement §5.1 describes, by its recorded %smid: A on
 * 131 SMs; serial B on 8 SMs after A; isolated B all on one SM that runs
 * no A; colocated B on 8 SMs, 7 of them beside A. */
static void test_recorded_placement(void **state) {
    (void)state;
    load_summary();
    for (int p = 0; p < NPAIRS; p++) {
        assert_int_equal(rec[p][SERIAL].ok, 30);
        assert_int_equal(rec[p][ISOLATED].ok, 30);
        assert_int_equal(rec[p][COLOCATED].ok, 30);
        assert_int_equal(rec[p][SERIAL].b_sms_min, 8);
        assert_int_equal(rec[p][ISOLATED].b_sms_max, 1);
        assert_int_equal(rec[p][ISOLATED].beside_max, 0);
        assert_int_equal(rec[p][COLOCATED].b_sms_min, 8);
        assert_int_equal(rec[p][COLOCATED].beside_min, 7);
        assert_int_equal(rec[p][COLOCATED].beside_max, 7);
    }
}

/* The slowdowns, printed beside Table 1's; asserted: what the H200 shares
 * with the paper, and where it differs, that it differs (a finding about
 * the hardware, docs/most-room-h100.md, not about the model). */
static void test_recorded_slowdowns(void **state) {
    (void)state;
    load_summary();
    for (int p = 0; p < NPAIRS; p++)
        for (int c = ISOLATED; c <= COLOCATED; c++)
            printf("  %-4s %-9s  H200: A %5.2fx  B %6.2fx    paper (Turing): A %5.2fx  B %6.2fx\n",
                   pair_names[p], config_names[c], slow(p, c, 0), slow(p, c, 1),
                   paper_slow(p, c, 0), paper_slow(p, c, 1));
    /* as the paper: A, the kernel that owns its SMs, barely moves (the
     * paper: 1.00-1.05x; uvm's A is as noisy as its B, cv 0.12-0.15) */
    for (int p = L1; p <= MEM; p++)
        for (int c = ISOLATED; c <= COLOCATED; c++) {
            assert_true(slow(p, c, 0) > 0.97);
            assert_true(slow(p, c, 0) < 1.06);
        }
    /* as the paper, memory: colocated B > isolated B > serial B, both far
     * above serial (the paper 96.1x and 22.4x) */
    assert_true(slow(MEM, COLOCATED, 1) > slow(MEM, ISOLATED, 1));
    assert_true(slow(MEM, ISOLATED, 1) > 10);
    /* as the paper, L1: B colocated slower than isolated (1.33x against
     * 1.00x); NOT as the paper: B isolated is slower than serial on the
     * H200 (eight 2-warp blocks sharing one SM's L1 bandwidth) */
    assert_true(slow(L1, COLOCATED, 1) > slow(L1, ISOLATED, 1));
    assert_true(slow(L1, ISOLATED, 1) > 1.3);
    /* compute: isolated B slower than serial, as the paper; NOT as the
     * paper, colocated B is faster than isolated on the H200 (the paper:
     * 1.85x > 1.45x): B's warp gets nothing while A's 32 warps run, so it
     * ends A's time after its own (52.5 + 36.5 ms), where sixteen warps on
     * one SM take four times as long */
    assert_true(slow(FP, ISOLATED, 1) > slow(FP, COLOCATED, 1));
    assert_true(rec[FP][COLOCATED].b > 0.98 * (rec[FP][COLOCATED].a + rec[FP][SERIAL].b));
    /* uvm: B far slower either way (the paper: 2.73x, 3.58x); NOT as the
     * paper, colocated and isolated within 1 % of each other on the H200,
     * where the runs vary by 12-15 % (cv) */
    assert_true(slow(UVM, ISOLATED, 1) > 2);
    double u = slow(UVM, COLOCATED, 1) / slow(UVM, ISOLATED, 1);
    assert_true(u > 0.99 && u < 1.01);
}

/* ---- the h100 scenarios against the recording ---------------------------- */

static int64_t span(const trace *t, const char *k) {
    const trace_kernel *x = kern(t, k);
    return x->end - x->first_block;
}

typedef struct model_row {
    double a_iso, b_iso, a_coloc, b_coloc;
} model_row;

static void model(const char *file, const char *run, model_row *m) {
    trace t;
    scn_simulate(file, run, &t);
    double as = (double)span(&t, "A-serial"), bs = (double)span(&t, "B-serial");
    m->a_iso = span(&t, "A-isolated") / as;
    m->b_iso = span(&t, "B-isolated") / bs;
    m->a_coloc = span(&t, "A-colocated") / as;
    m->b_coloc = span(&t, "B-colocated") / bs;
    /* the recorded placement (H100-C1's carveout with A's 16KB, most-room,
     * H100-W1): isolated B all on SM 123; colocated B0 on 123, the rest
     * on 124-130 beside A (the H200 put them on the same SMs, in another
     * order: its dealing rotates from launch to launch) */
    int32_t ki = (int32_t)(kern(&t, "B-isolated") - t.kernels.v);
    int32_t kc = (int32_t)(kern(&t, "B-colocated") - t.kernels.v);
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *b = &t.blocks.v[i];
        if (b->kernel == ki) assert_int_equal(b->sm, 123);
        if (b->kernel == kc) assert_int_equal(b->sm, b->index == 0 ? 123 : 123 + b->index);
    }
    trace_free(&t);
}

static bool near(const char *what, double measured, double got, double tol) {
    bool ok = got <= measured * tol && got >= measured / tol;
    printf("  %-24s H200 %6.2fx  model %6.2fx  (%s factor %.2f)\n", what, measured, got,
           ok ? "within" : "NOT within", tol);
    return ok;
}

/* A and B, isolated and colocated, of pair p: the model's slowdowns within
 * a factor 1.5 of the H200's (issue 25's tolerance for the paper's). */
static void assert_within(const char *what, int p, const model_row *m) {
    const struct {
        const char *row;
        int config, kernel;
        double got;
    } rows[] = {
        {"A isolated", ISOLATED, 0, m->a_iso},
        {"B isolated", ISOLATED, 1, m->b_iso},
        {"A colocated", COLOCATED, 0, m->a_coloc},
        {"B colocated", COLOCATED, 1, m->b_coloc},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "%s %s", what, rows[i].row);
        assert_true(near(label, slow(p, rows[i].config, rows[i].kernel), rows[i].got, 1.5));
    }
}

/* The run `run` of scenarios/FILE against pair p of the recording: every
 * slowdown within a factor 1.5 (assert_within); its rows in *m. */
static void model_within(const char *what, int p, const char *file, const char *run,
                         model_row *m) {
    load_summary();
    model(file, run, m);
    assert_within(what, p, m);
}

/* Compute-intensive on the h100 preset with Hopper's fp32 pipes: every
 * slowdown within a factor 1.5 of the H200's (issue 25's tolerance for the
 * paper's), and the H200's order, isolated B slower than colocated B. */
static void test_h100_compute_model(void **state) {
    (void)state;
    /* (under the sanitizers the memory and L1 scenarios only: the fp32
     * pipes and unified memory of these two are test_warp_scenarios'
     * Table 1 rows' code there too, and their 132 SMs 8 of the 17 CPU-s
     * of this test on a 2-core AMD EPYC: test_sanitizer.h) */
    if (TEST_UNDER_ASAN) skip();
    model_row m;
    model_within("compute", FP, "most-room-h100-compute.json", "default", &m);
    assert_true(m.b_iso > m.b_coloc);
}

/* Memory-intensive with the memory constants measured on the H200 and the
 * queue taking waiting warps in arrival order (mem_admission 1): every
 * slowdown within a factor 1.5 of the recording, and its order, colocated
 * B slower than isolated B. The equal DRAM share per SM the model gives is
 * what the H200 did (test_membench_constants); colocated, B's one warp
 * beside A's 32, which GTO issues first, still enters the memory queue in
 * its turn, as on the H200 (0.74 of an A warp's rate), and ends with A. */
static void test_h100_memory_model(void **state) {
    (void)state;
    model_row m, r;
    model_within("memory", MEM, "most-room-h100-memory.json", "gto-h100", &m);
    assert_true(m.b_coloc > m.b_iso);
    if (TEST_UNDER_ASAN) skip();   /* the variants: the plain run's (test_sanitizer.h) */
    /* loose round robin gives the same: its turns share the queue too */
    model("most-room-h100-memory.json", "lrr", &r);
    assert_true(near("memory B colocated (lrr)", slow(MEM, COLOCATED, 1), r.b_coloc, 1.5));
    assert_true(near("memory B isolated (lrr)", slow(MEM, ISOLATED, 1), r.b_iso, 1.5));
}

/* The queue taking GTO's pick instead (mem_admission 0, the model before
 * the H200 was measured, and every other device's): B's warp, once the
 * greedy one, takes its processing block's whole share of the queue and
 * ends far sooner than on the H200, a third of its slowdown. That rule is
 * what the recording rules out. */
static void test_h100_memory_scheduler_admission(void **state) {
    (void)state;
    if (TEST_UNDER_ASAN) skip();   /* a variant: the plain run's (test_sanitizer.h) */
    load_summary();
    model_row m;
    model("most-room-h100-memory.json", "scheduler-admission", &m);
    assert_false(near("memory B colocated (gto's pick)", slow(MEM, COLOCATED, 1), m.b_coloc, 1.5));
    assert_true(m.b_coloc < slow(MEM, COLOCATED, 1) / 2);
    assert_true(near("memory B isolated (gto's pick)", slow(MEM, ISOLATED, 1), m.b_iso, 1.5));
}

/* L1-cache-dependent with the L1's rate (device.l1_sectors) and the
 * latencies measured on the H200: every slowdown within a factor 1.5 of
 * the recording, and its order (the paper's too), colocated B slower than
 * isolated B. Isolated, B's eight full warps share SM 123's L1 at its
 * rate; colocated, B's one warp waits behind the 32 of A beside it, whose
 * table and B's do not both fit in the 192KB the carveout leaves. Without
 * the rate (the L1 of every other device) colocated B leaves the factor:
 * the rate is what the recording turns on. */
static void test_h100_l1_model(void **state) {
    (void)state;
    model_row m, r;
    model_within("L1", L1, "most-room-h100-l1.json", "h100", &m);
    assert_true(m.b_coloc > m.b_iso);
    if (TEST_UNDER_ASAN) skip();   /* the variant: the plain run's (test_sanitizer.h) */
    model("most-room-h100-l1.json", "no-l1-rate", &r);
    assert_false(near("L1 B colocated (no rate)", slow(L1, COLOCATED, 1), r.b_coloc, 1.5));
    assert_true(r.b_coloc < m.b_coloc);
}

/* The L1 scenario's constants are the recording's: l1_sectors is what A
 * serial got (32 warps an SM whose tables stay in the L1: 1024 sectors a
 * step, the summary's iteration count over its time at 1980 MHz); a hit
 * (latency_alu + latency_l1) is membench's L1 chase; and one warp's 32
 * scattered sectors (B serial, one warp an SM) took about 31 cycles more
 * than one thread's one sector, the one line a cycle of an access that
 * l1_pass charges. */
static void test_l1_constants(void **state) {
    (void)state;
    load_summary();
    FILE *f = open_fixture("tests/fixtures/h200/mostroom/mostroom-summary.csv");
    char line[512];
    unsigned iters_a = 0, iters_b = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "# pair l1 (L1 Cache-Dependent): iters A %u, B %u", &iters_a, &iters_b) == 2)
            break;
    fclose(f);
    assert_true(iters_a > 0 && iters_b > 0);
    f = open_fixture("tests/fixtures/h200/membench.txt");
    double hit = 0, cyc;
    unsigned kb;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "chase ldca %u KB %lf cycles", &kb, &cyc) == 2 && kb == 16) hit = cyc;
    fclose(f);
    assert_true(hit > 0);
    double a_step = rec[L1][SERIAL].a * 1980e3 / iters_a;   /* cycles */
    double b_step = rec[L1][SERIAL].b * 1980e3 / iters_b;
    double rate = 1024 / a_step;
    sim_device dev;
    scn_device("most-room-h100-l1.json", "h100", &dev);
    const sim_device *d = &dev;
    printf("  l1_sectors %.3f (A serial %.3f sectors a cycle), hit %d cycles (membench %.1f), "
           "B serial %.1f cycles a step: %.1f more than one sector\n", d->l1_sectors, rate,
           (int)(d->latency_alu + d->latency_l1), hit, b_step, b_step - hit);
    assert_true(d->clock_hz == 1980000000);
    assert_true(d->l1_sectors > 0.99 * rate && d->l1_sectors < 1.01 * rate);
    assert_true(d->latency_alu + d->latency_l1 >= hit - 1 && d->latency_alu + d->latency_l1 <= hit + 1);
    assert_true(b_step - hit > 28 && b_step - hit < 34);
}

/* Transfer-bound with unified memory read from the serial runs: every
 * slowdown within a factor 1.5 of the recording, and its finding that B
 * colocated and isolated are alike (within 1 % on the H200, whose runs
 * vary by 12-15 %): one GPU-wide queue of faults, whatever SM they come
 * from. A per-SM limit on faults (the sm-fault-slot run, the paper's guess
 * for its Turing's colocated > isolated) puts isolated B, eight blocks on
 * one SM, far above colocated: what the H200 rules out. */
static void test_h100_transfer_model(void **state) {
    (void)state;
    if (TEST_UNDER_ASAN) skip();   /* as the compute model's (above) */
    model_row m, r;
    model_within("transfer", UVM, "most-room-h100-transfer.json", "h100", &m);
    printf("  transfer B colocated / isolated: H200 %.3f, model %.3f\n",
           slow(UVM, COLOCATED, 1) / slow(UVM, ISOLATED, 1), m.b_coloc / m.b_iso);
    assert_true(m.b_coloc / m.b_iso > 0.95 && m.b_coloc / m.b_iso < 1.05);
    if (TEST_UNDER_ASAN) skip();   /* the variant: the plain run's (test_sanitizer.h) */
    model("most-room-h100-transfer.json", "sm-fault-slot", &r);
    printf("  transfer, one fault an SM: B isolated %.2fx, colocated %.2fx\n", r.b_iso, r.b_coloc);
    assert_true(r.b_iso > 1.5 * r.b_coloc);
    assert_false(near("transfer B isolated (one fault an SM)", slow(UVM, ISOLATED, 1), r.b_iso, 1.5));
}

/* The transfer scenario's constants are the recording's serial means: A's
 * 131 blocks fault 512 4-KB pages each, one after another, and took 445 ns
 * a page whoever asked (the rate of the GPU's fault path, copy_bandwidth
 * with 4-KB pages); B's 8 blocks fault 1024 pages each and took longer a
 * page a block than 8 migrations (the fault's round trip,
 * uvm_fault_latency). */
static void test_transfer_constants(void **state) {
    (void)state;
    load_summary();
    double page_ns = rec[UVM][SERIAL].a * 1e6 / (131.0 * 512);
    double trip = rec[UVM][SERIAL].b * 1e6 / 1024 * 1.98;   /* cycles */
    sim_device d;
    scn_device("most-room-h100-transfer.json", "h100", &d);
    double bw = 4096 / (page_ns * 1e-9);
    printf("  copy_bandwidth %.4g B/s (A serial: %.1f ns a page, %.4g B/s), uvm_fault_latency %d "
           "(B serial: %.0f cycles a page a block)\n", d.copy_bandwidth, page_ns, bw,
           (int)d.uvm_fault_latency, trip);
    assert_int_equal(d.uvm_page_kb, 4);
    assert_int_equal(d.sm_faults, 0);
    assert_true(d.copy_bandwidth > 0.99 * bw && d.copy_bandwidth < 1.01 * bw);
    assert_true(d.uvm_fault_latency > 0.99 * trip && d.uvm_fault_latency < 1.01 * trip);
    /* B was bound by the round trip, not by the migrations: 8 pages take
     * less than one block's page */
    assert_true(8 * page_ns * 1.98 < trip);
}

/* The scenarios' memory constants are membench's numbers at the preset's
 * 1980 MHz: the lone SM's store rate (flat from 1 to 32 warps: the port)
 * and all 132 SMs' together (the DRAM rate of these writes; 15.66 in the
 * call that recorded the most-room experiment, 15.74 in this file's); and
 * its `share` lines, which test the model's rule itself: an equal share
 * of DRAM per SM, whatever its warps. */
static void test_membench_constants(void **state) {
    (void)state;
    FILE *f = open_fixture("tests/fixtures/h200/membench.txt");
    char line[256];
    double lone_min = 1e9, lone_max = 0, all = 0, dram_cycles = 0;
    double share_min = 1e9, share_max = 0;
    int shares = 0;
    while (fgets(line, sizeof line, f)) {
        int w, aw, bw;
        double us, rate, cyc, ns, arate;
        unsigned kb, bsm;
        if (sscanf(line, "share A %d warps x 131 SMs, B %d warps on SM %u: B %lf sectors/ns, A %lf",
                   &aw, &bw, &bsm, &rate, &arate) == 5) {
            /* B alone on SM 123, the SM H100-W1 leaves A's 131 blocks */
            assert_int_equal(bsm, 123);
            double r = rate / arate;
            printf("  A %2d warps an SM, B %2d warps: B's SM %.2f of an A SM's rate\n", aw, bw, r);
            if (r < share_min) share_min = r;
            if (r > share_max) share_max = r;
            shares++;
        } else if (sscanf(line, "store one SM %d warps %lf us %lf", &w, &us, &rate) == 3) {
            if (rate < lone_min) lone_min = rate;
            if (rate > lone_max) lone_max = rate;
        } else if (sscanf(line, "store all 132 SMs x 32 warps %lf us (blocks %*f-%*f) %lf", &us,
                          &rate) == 2) {
            all = rate;
        } else if (sscanf(line, "chase ldcg %u KB %lf cycles %lf", &kb, &cyc, &ns) == 3 &&
                   kb == 1048576) {
            dram_cycles = cyc;
        }
    }
    fclose(f);
    /* the share goes by SM, not by warp: B's SM gets 0.83-0.88 of an A
     * SM's rate whether B has 1, 8 or 16 warps and A 4 to 32 (a share by
     * warps would give B's one warp 1/8 of its eight) */
    assert_int_equal(shares, 7);
    assert_true(share_min > 0.75 && share_max < 1.0 && share_max / share_min < 1.1);
    assert_true(lone_min > 0.95 && lone_max < 1.0 && lone_max / lone_min < 1.01);
    assert_true(all > 15 && all < 16.5);
    sim_device dev;
    scn_device("most-room-h100-memory.json", "gto-h100", &dev);
    const sim_device *d = &dev;
    double ghz = (double)d->clock_hz / 1e9;
    printf("  sm_port_sectors %.3f (membench %.3f), dram_sectors %.3f (membench %.3f), "
           "latency_mem %d (membench %.0f)\n", d->sm_port_sectors, lone_max / ghz,
           d->dram_sectors, all / ghz, (int)d->latency_mem, dram_cycles);
    assert_true(d->sm_port_sectors > 0.99 * lone_max / ghz && d->sm_port_sectors < 1.01 * lone_max / ghz);
    assert_true(d->dram_sectors > 0.99 * all / ghz && d->dram_sectors < 1.01 * all / ghz);
    assert_true(d->latency_mem >= dram_cycles - 1 && d->latency_mem <= dram_cycles + 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_placement),
        cmocka_unit_test(test_recorded_slowdowns),
        cmocka_unit_test(test_h100_compute_model),
        cmocka_unit_test(test_h100_memory_model),
        cmocka_unit_test(test_h100_memory_scheduler_admission),
        cmocka_unit_test(test_h100_l1_model),
        cmocka_unit_test(test_l1_constants),
        cmocka_unit_test(test_h100_transfer_model),
        cmocka_unit_test(test_transfer_constants),
        cmocka_unit_test(test_membench_constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
