/* test_qaws_fig4.c -- the kernel library (server/formats/kernlib.c,
 * scenarios/kernels/) and QAWS §V Fig. 4a/4b (scenarios/qaws-fig4*) against
 * the paper's claims, with issue 25's tolerances; every number is printed
 * next to the paper's.
 *
 * LRR is GPGPU-Sim's (lrr-gpgpusim, scheduler_unit::order_lrr: the ready
 * warps take turns cycle by cycle), the simulator the paper ran Fig. 4 on
 * (§IV-A); the LRR of its text and Fig. 3b (lrr, a warp until it stalls)
 * is test_warp.c's.
 *
 * Claims (QAWS §V-B): (1) QAWS's K1 and K2 response times are below LRR's
 * for every homogeneous pair but atax and his; (2) atax and his change
 * little: within 5 % of LRR under every policy (issue 25); (3) K2's
 * improvement over LRR, averaged over the nine pairs, is 22 % (± 7
 * points); (4) the mean execution time of K1 and K2 under QAWS is within
 * 5 % of GTO's and below LRR's (averaged over the pairs); (5) Fig. 4b, K2
 * improves by 10 % (± 5) on average (issue 25's tolerance). QAWS's K2
 * budget is the best of 2, 4 and 8 for K2 (§V-B). Claims the model does
 * not reach are `todo` tests: they print the gap, pass while it stays and
 * fail when it closes.
 *
 * The kernels run with the scoreboard (program "dep" in scenarios/kernels/,
 * GPGPU-Sim scoreboard.cc): a warp issues an instruction when the results
 * it reads are written, not when the instruction before it has completed
 * (docs/memory.md, QAWS Fig. 4, for the numbers before and after).
 *
 * Scenarios and the library are found under $SCHEDLAB_ROOT, or ./ . */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../server/formats/kernlib.h"
#include "../../server/formats/scenario.h"
#include "test_sanitizer.h"

static const char *root_path(const char *rel, char *buf, size_t n) {
    const char *root = getenv("SCHEDLAB_ROOT");
    snprintf(buf, n, "%s%s%s", root ? root : "", root ? "/" : "", rel);
    return buf;
}

static int open_library(void **state) {
    (void)state;
    char dir[1024], err[512];
    if (kl_open(root_path("scenarios/kernels", dir, sizeof dir), err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int close_library(void **state) {
    (void)state;
    kl_close();
    return 0;
}

/* ---- the library ---------------------------------------------------------- */

static const char *const benchmarks[] = {"pc", "pf", "2dc", "dxtc", "bin",
                                         "vec", "mm", "his", "atax"};

static int parse_text(const char *text, scn_scenario **s, char *err, size_t n) {
    return scn_parse(text, strlen(text), "t.json", s, err, n);
}

/* every benchmark of QAWS Table Ib is in the library by its paper name, and
 * runs on the TITAN V as a scenario op */
static void test_library_kernels(void **state) {
    (void)state;
    size_t n;
    kl_names(&n);
    assert_true(n >= 9);
    for (size_t i = 0; i < 9; i++) {
        const kl_kernel *k = kl_find(benchmarks[i]);
        if (!k) fail_msg("QAWS Table Ib's %s is not in the kernel library", benchmarks[i]);
        char text[512], err[512];
        snprintf(text, sizeof text, "{\"schema\": \"schedlab-scenario/1\", \"device\": "
                 "\"titanv-gpgpusim\", \"policy\": {\"warp\": \"gto\"}, \"ops\": "
                 "[{\"kernel\": \"K\", \"program\": \"%s\", \"blocks\": 1}]}", benchmarks[i]);
        scn_scenario *s = NULL;
        if (parse_text(text, &s, err, sizeof err)) fail_msg("%s: %s", k->path, err);
        sim_config cfg;
        assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
        /* the library's geometry: the op gave only blocks */
        assert_true(cfg.ops[0].threads > 0 && cfg.ops[0].program);
        /* persistent threads (QAWS §V-A): one block per SM doing the work of
         * all (program.persistent), or, for a kernel whose barriers wait for
         * its source's blocks, a grid of them that is all resident at once
         * in half of each of the TITAN V's 80 SMs (2048 threads; the pair's
         * other kernel takes the other half) */
        if (!cfg.ops[0].program->persistent) {
            snprintf(text, sizeof text, "{\"schema\": \"schedlab-scenario/1\", \"device\": "
                     "\"titanv-gpgpusim\", \"ops\": [{\"kernel\": \"K\", \"program\": \"%s\"}]}",
                     benchmarks[i]);
            scn_scenario *g = NULL;
            sim_config gc;
            if (parse_text(text, &g, err, sizeof err)) fail_msg("%s: %s", k->path, err);
            assert_int_equal(scn_config(g, 0, &gc, err, sizeof err), 0);
            int64_t resident = gc.ops[0].blocks * gc.ops[0].threads;
            if (resident > 80 * 1024)
                fail_msg("%s: %lld threads are not persistent on 80 SMs", k->name,
                         (long long)resident);
            scn_free(g);
        }
        trace t;
        trace_init(&t);
        if (sim_run(&cfg, &t, err, sizeof err)) fail_msg("%s: %s", k->name, err);
        assert_true(t.kernels.n == 1 && t.kernels.v[0].instructions > 0);
        trace_free(&t);
        scn_free(s);
    }
}

/* a name not in the library: the place, and the nearest name */
static void test_library_errors(void **state) {
    (void)state;
    char err[512];
    scn_scenario *s = NULL;
    const char *text = "{\"schema\": \"schedlab-scenario/1\", \"device\": \"titanv-gpgpusim\", "
                       "\"policy\": {\"warp\": \"gto\"}, \"ops\": [{\"kernel\": \"K\", \"program\": "
                       "\"pc\", \"blocks\": 1}, {\"kernel\": \"K2\", \"program\": \"vecadd\"}]}";
    assert_int_equal(parse_text(text, &s, err, sizeof err), -1);
    assert_null(s);
    assert_non_null(strstr(err, "ops[1].program: \"vecadd\" is not in the kernel library (did you "
                                "mean \"vectorAdd\"?)"));
    /* an op's own keys win over the library's */
    text = "{\"schema\": \"schedlab-scenario/1\", \"device\": \"titanv-gpgpusim\", \"policy\": "
           "{\"warp\": \"gto\"}, \"ops\": [{\"kernel\": \"K\", \"program\": \"vec\", \"blocks\": 3, "
           "\"threads\": 64}]}";
    if (parse_text(text, &s, err, sizeof err)) fail_msg("%s", err);
    sim_config cfg;
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.ops[0].threads, 64);
    assert_int_equal(cfg.ops[0].blocks, 3);
    scn_free(s);
    /* a library file whose name is not its file's is refused, and leaves
     * the library empty */
    char dir[] = "/tmp/test_qaws_fig4_XXXXXX", path[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/a.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"schema\": \"schedlab-kernel/1\", \"name\": \"b\", \"source\": \"x\", \"program\": "
          "{\"body\": [{\"op\": \"alu\"}]}}", f);
    fclose(f);
    assert_int_equal(kl_open(dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "a.json: name: \"b\" is not the file's name (\"a\")"));
    assert_null(kl_find("pc"));
    remove(path);
    rmdir(dir);
    assert_int_equal(open_library(NULL), 0);
}

/* ---- Fig. 4 ---------------------------------------------------------------- */

typedef struct run_rt {
    double k1, k2;           /* response times: issue to end, ns */
    double e1, e2;           /* execution times: first block to end */
    const char *warp;        /* the run's warp policy */
} run_rt;

static run_rt simulate(const char *file, const char *run_name) {
    char path[1024], err[512] = "";
    char rel[256];
    snprintf(rel, sizeof rel, "scenarios/%s", file);
    scn_scenario *s = NULL;
    if (scn_parse_file(root_path(rel, path, sizeof path), &s, err, sizeof err) != 0)
        fail_msg("%s", err);
    int run = run_name ? scn_find_run(s, run_name) : 0;   /* NULL: the base run */
    if (run < 0) fail_msg("%s has no run named \"%s\"", file, run_name);
    sim_config cfg;
    assert_int_equal(scn_config(s, (size_t)run, &cfg, err, sizeof err), 0);
    trace t;
    trace_init(&t);
    if (sim_run(&cfg, &t, err, sizeof err) != 0) fail_msg("%s [%s]: %s", file, run_name, err);
    run_rt r = {.warp = sim_policy_name(SIM_TABLE_WARP, cfg.policy.warp)};
    for (size_t i = 0; i < t.kernels.n; i++) {
        const trace_kernel *k = &t.kernels.v[i];
        bool one = strcmp(trace_str_get(&t, k->name), "K1") == 0;
        *(one ? &r.k1 : &r.k2) = (double)(k->end - k->issue);
        *(one ? &r.e1 : &r.e2) = (double)(k->end - k->first_block);
    }
    assert_true(r.k1 > 0 && r.k2 > 0);
    trace_free(&t);
    scn_free(s);
    return r;
}

typedef struct pair {
    const char *name;
    run_rt lrr, gto, qaws;   /* qaws: the K2 budget of 2, 4, 8 best for K2 */
    int budget;
    bool ran;
} pair;

static void run_pair(const char *file, pair *p) {
    /* the baselines as GPGPU-Sim, the simulator of the paper's Fig. 4 (§IV-A),
     * implements them: its LRR is order_lrr (lrr-gpgpusim), not the LRR of
     * the paper's text and Fig. 3b (lrr) */
    p->lrr = simulate(file, "lrr");
    p->gto = simulate(file, "gto");
    assert_string_equal(p->lrr.warp, "lrr-gpgpusim");
    assert_string_equal(p->gto.warp, "gto");
    /* the base run is QAWS with K2's budget 4 */
    static const char *const q[] = {"qaws-k2-budget-2", NULL, "qaws-k2-budget-8"};
    static const int b[] = {2, 4, 8};
    for (int i = 0; i < 3; i++) {
        run_rt r = simulate(file, q[i]);
        if (i == 0 || r.k2 < p->qaws.k2) {
            p->qaws = r;
            p->budget = b[i];
        }
    }
}

static pair fig4a[9], fig4b[5];
static const char *const fig4b_files[] = {"2dc-his", "bin-his", "dxtc-mm", "pf-bin", "pf-mm"};

/* Under the sanitizers a representative part (test_sanitizer.h): Fig. 4a's
 * pc (compute) and atax (latency-bound) and Fig. 4b's first pair, 15 runs
 * of the 70 on the same engine paths; the assertions over every pair are
 * the plain run's. */
static bool in_run(const pair *fig, int i) {
    return !TEST_UNDER_ASAN || i == 0 || (fig == fig4a && i == 8);
}

static int run_all(void **state) {
    (void)state;
    if (open_library(NULL)) return -1;
    char file[128];
    printf("  QAWS Fig. 4a (homogeneous), response times / LRR's; mean = (exec K1 + exec K2)\n");
    printf("  %-5s %3s %8s %8s %8s %8s %10s %10s\n", "pair", "b", "QAWS K1", "QAWS K2", "GTO K1",
           "GTO K2", "mean/GTO", "mean/LRR");
    for (int i = 0; i < 9; i++) {
        snprintf(file, sizeof file, "qaws-fig4a-%s.json", benchmarks[i]);
        fig4a[i].name = benchmarks[i];
        if ((fig4a[i].ran = in_run(fig4a, i))) run_pair(file, &fig4a[i]);
    }
    for (int i = 0; i < 5; i++) {
        snprintf(file, sizeof file, "qaws-fig4b-%s.json", fig4b_files[i]);
        fig4b[i].name = fig4b_files[i];
        if ((fig4b[i].ran = in_run(fig4b, i))) run_pair(file, &fig4b[i]);
    }
    for (int i = 0; i < 14; i++) {
        const pair *p = i < 9 ? &fig4a[i] : &fig4b[i - 9];
        if (i == 9) printf("  QAWS Fig. 4b (heterogeneous)\n");
        if (!p->ran) continue;
        printf("  %-8s %d %8.3f %8.3f %8.3f %8.3f %10.3f %10.3f\n", p->name, p->budget,
               p->qaws.k1 / p->lrr.k1, p->qaws.k2 / p->lrr.k2, p->gto.k1 / p->lrr.k1,
               p->gto.k2 / p->lrr.k2, (p->qaws.e1 + p->qaws.e2) / (p->gto.e1 + p->gto.e2),
               (p->qaws.e1 + p->qaws.e2) / (p->lrr.e1 + p->lrr.e2));
    }
    return 0;
}

static bool latency_bound(const char *n) {
    return strcmp(n, "atax") == 0 || strcmp(n, "his") == 0;
}

/* (1) todo: QAWS below LRR for K1 and K2, all pairs but atax and his */
static void test_fig4a_both_below_lrr_todo(void **state) {
    (void)state;
    if (TEST_UNDER_ASAN) skip();   /* every pair: the plain run's */
    int miss = 0;
    for (int i = 0; i < 9; i++) {
        const pair *p = &fig4a[i];
        if (latency_bound(p->name)) continue;
        bool ok = p->qaws.k1 < p->lrr.k1 && p->qaws.k2 < p->lrr.k2;
        printf("  %-5s paper: QAWS K1, K2 < LRR's  model: K1 %+.1f %%, K2 %+.1f %%%s\n", p->name,
               100 * (p->qaws.k1 / p->lrr.k1 - 1), 100 * (p->qaws.k2 / p->lrr.k2 - 1),
               ok ? "" : "  (todo)");
        miss += !ok;
    }
    if (miss == 0) fail_msg("every pair now has QAWS below LRR for K1 and K2: make this an assertion");
    /* what is missing, measured (docs/memory.md): QAWS ends K1 with the
     * SM's whole work after K2's, which takes what LRR's interleaving takes
     * (pc K1 +6.0 %, bin +4.5 %, dxtc +1.5 %, 2dc +1.3 %; mm meets it:
     * its block's 32 warps reach each barrier together under LRR and then
     * load together, so the barriers, with its B strip, cost LRR's K1 +19 %
     * and QAWS's +8 %): LRR loses no throughput in the model (GPGPU-Sim's
     * LRR, which takes turns every cycle, hides dxtc's latencies better
     * than GTO does: its two kernels end together,
     * 5 % before QAWS's K1 and 7 % before GTO's K2), no cache thrashing,
     * no long latencies issued all at once that it pays for and QAWS not.
     * GPGPU-Sim itself, with Algorithm 1 added (tools/gpgpusim-qaws;
     * docs/memory.md, "GPGPU-Sim itself"), misses in 4 of the 7 pairs too
     * (pc, 2dc, pf, bin; vec, mm and dxtc meet it): the paper's 7 of 7
     * does not follow from the simulator and the algorithm alone */
    printf("  todo: %d of 7 pairs miss (K1 as late as LRR's or later: QAWS ends K1 with the "
           "SM's whole work, which costs what LRR's interleaving does; LRR loses no "
           "throughput in the model)\n", miss);
}

/* (2) atax and his: within 5 % of LRR under every policy (issue 25) */
static void test_fig4a_latency_bound(void **state) {
    (void)state;
    for (int i = 0; i < 9; i++) {
        const pair *p = &fig4a[i];
        if (!latency_bound(p->name) || !p->ran) continue;
        const run_rt *r[] = {&p->gto, &p->qaws};
        for (int k = 0; k < 2; k++) {
            double d1 = r[k]->k1 / p->lrr.k1 - 1, d2 = r[k]->k2 / p->lrr.k2 - 1;
            bool ok = d1 < 0.05 && d1 > -0.05 && d2 < 0.05 && d2 > -0.05;
            printf("  %-5s %s vs LRR: paper within 5 %%  model K1 %+.1f %%, K2 %+.1f %%\n",
                   p->name, k ? "QAWS" : "GTO ", 100 * d1, 100 * d2);
            assert_true(ok);
        }
    }
}

static double mean_k2_gain(const pair *p, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += 1 - p[i].qaws.k2 / p[i].lrr.k2;
    return s / n;
}

/* The same average read from Fig. 4a's centre plot ("clearly demonstrated
 * in the Speedup plot (center)", §V-B): the mean of K2's speedups over LRR,
 * LRR's response time over QAWS's, less 1. §V-B's sentence ("QAWS improves
 * the K2 response time by 22%") does not say which of the two means it
 * took; test_fig4a_k2_gain checks the issue's reading (the mean
 * reduction) and this one is printed beside it, not asserted. */
static double mean_k2_speedup(const pair *p, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += p[i].lrr.k2 / p[i].qaws.k2 - 1;
    return s / n;
}

/* (3) K2 -22 % (+/- 7 points) on average over Fig. 4a's pairs (issue 25's
 * tolerance). It came into the band with the SM's LD/ST unit (device
 * ldst_queue, l1_sectors 1: docs/memory.md), through 2dc, mm and dxtc,
 * whose memory and shared instructions wait for it and stop their
 * sub-core's issue, so the scheduler's order decides whose go first (12.8
 * % before; GPGPU-Sim with Algorithm 1 gives 14.8 %, tools/gpgpusim-qaws) */
static void test_fig4a_k2_gain(void **state) {
    (void)state;
    if (TEST_UNDER_ASAN) skip();   /* every pair: the plain run's */
    double g = mean_k2_gain(fig4a, 9);
    printf("  Fig. 4a K2 improvement over LRR: paper 22 %% (+/- 7)  model %.1f %%"
           " (as the mean speedup: %.1f %%)\n", 100 * g, 100 * mean_k2_speedup(fig4a, 9));
    assert_true(g > 0.15 && g < 0.29);
}

/* (4) mean execution time of K1 and K2: QAWS within 5 % of GTO, below LRR */
static void test_fig4a_mean_exec(void **state) {
    (void)state;
    if (TEST_UNDER_ASAN) skip();   /* every pair: the plain run's */
    double qg = 0, ql = 0;
    for (int i = 0; i < 9; i++) {
        const pair *p = &fig4a[i];
        qg += (p->qaws.e1 + p->qaws.e2) / (p->gto.e1 + p->gto.e2) / 9;
        ql += (p->qaws.e1 + p->qaws.e2) / (p->lrr.e1 + p->lrr.e2) / 9;
    }
    printf("  mean execution time, QAWS / GTO: paper within 5 %%  model %+.1f %%\n", 100 * (qg - 1));
    printf("  mean execution time, QAWS / LRR: paper below        model %+.1f %%\n", 100 * (ql - 1));
    assert_true(qg < 1.05 && qg > 0.95);
    assert_true(ql < 1);
}

/* (5) Fig. 4b, K2 -10 % (+/- 5) on average (issue 25's tolerance). It came
 * into the band (4.4 % before) with the barriers of pathfinder, matrixMul
 * and binomialOptions (op barrier, their sources' __syncthreads(), in
 * their sources' blocks) and matrixMul's B strip, which each persistent
 * block re-reads (footprint 40KB, block scope): docs/memory.md,
 * "Barriers", through pf + mm (-13.6 %; GPGPU-Sim, whose pf has 1024-
 * thread blocks, +1.7 %). GPGPU-Sim with Algorithm 1 gives 7.8 %
 * (tools/gpgpusim-qaws): most of it pf + bin there (-26.6 %, here
 * -2.4 %), dxtc + mm here (-24.3 %, there -3.3 %; in the model's pair
 * under LRR dxtc ends at 2.1 times mm's end) */
static void test_fig4b_k2_gain(void **state) {
    (void)state;
    if (TEST_UNDER_ASAN) skip();   /* every pair: the plain run's */
    double g = mean_k2_gain(fig4b, 5);
    printf("  Fig. 4b K2 improvement over LRR: paper 10 %% (+/- 5)  model %.1f %%"
           " (as the mean speedup: %.1f %%)\n", 100 * g, 100 * mean_k2_speedup(fig4b, 5));
    assert_true(g > 0.05 && g < 0.15);
}

int main(void) {
    const struct CMUnitTest lib[] = {
        cmocka_unit_test(test_library_kernels),
        cmocka_unit_test(test_library_errors),
    };
    const struct CMUnitTest fig[] = {
        cmocka_unit_test(test_fig4a_both_below_lrr_todo),
        cmocka_unit_test(test_fig4a_latency_bound),
        cmocka_unit_test(test_fig4a_k2_gain),
        cmocka_unit_test(test_fig4a_mean_exec),
        cmocka_unit_test(test_fig4b_k2_gain),
    };
    int rc = cmocka_run_group_tests_name("kernel library", lib, open_library, close_library);
    return rc | cmocka_run_group_tests_name("QAWS Fig. 4", fig, run_all, close_library);
}
