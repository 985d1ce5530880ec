/* test_scenarios_shipped.c -- every shipped scenario (the .json files in
 * scenarios/) through scn_parse_file and sim_run, with the outcomes derived
 * by hand from the papers' rules and narratives (each derivation is written
 * next to its assertions).
 *
 * Scenarios are found under $SCHEDLAB_ROOT/scenarios, or ./scenarios (the
 * Makefile runs the tests from the repository root). A scenario file that
 * this test does not know fails the test, so nothing ships unchecked. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../server/formats/kernlib.h"
#include "../../server/formats/scenario.h"
#include "../../simcore/queue_state.h"

#define MS(x) ((int64_t)(x) * INT64_C(1000000))
#define SEC(x) MS((x) * 1000)

static const char *const shipped[] = {
    "gcaps-case-study-variation.json",  /* with execution-time variation: test_table5.c */
    "gcaps-case-study.json",            /* runs checked in test_contexts_shipped.c */
    "gcaps-counterexample-a.json",      /* each breaks a printed bound: rta_corrected.test.mjs */
    "gcaps-counterexample-b.json",      /* ditto */
    "gcaps-counterexample-c.json",      /* ditto */
    "gcaps-counterexample-d.json",      /* ditto */
    "gcaps-counterexample-e.json",      /* ditto */
    "gcaps-counterexample-f.json",      /* ditto (and the corrected bound before K7) */
    "gcaps-counterexample-g.json",      /* ditto (and the corrected bound before K8) */
    "gcaps-counterexample-h.json",      /* ditto (and the corrected bound before K9) */
    "gcaps-example2-fig5a.json",        /* Example 2 / Fig. 5: test_gcaps_example2.c */
    "gcaps-example2-fig5b.json",        /* ditto */
    "h100-basic-rules.json",            /* h100: checked against the recordings in test_h100_recordings.c */
    "h100-most-room.json",              /* ditto */
    "h100-priority.json",               /* ditto */
    "h100-sm-order.json",               /* ditto */
    "h100-smem-carveout.json",          /* ditto */
    "isca17-quota-pair.json",           /* quota QoS: runs checked in test_quota.c */
    "most-room-h100-compute.json",       /* warp-level: against the H200, test_h200_mostroom.c */
    "most-room-h100-l1.json",            /* ditto */
    "most-room-h100-memory.json",        /* ditto */
    "most-room-h100-transfer.json",      /* ditto */
    "most-room-pascal-4.1.json",
    "most-room-pascal-4.2-33-threads.json",
    "most-room-pascal-4.2.json",
    "most-room-table1-compute.json",     /* warp-level: runs checked in test_warp_scenarios.c */
    "most-room-table1-l1.json",          /* ditto */
    "most-room-table1-memory.json",      /* ditto */
    "most-room-table1-transfer.json",    /* ditto */
    "most-room-table3-compute.json",     /* Appendix B: runs checked in test_warp_appendix_b.c */
    "most-room-table3-l1.json",          /* ditto */
    "most-room-table3-memory.json",      /* ditto */
    "most-room-table3-transfer.json",    /* ditto */
    "most-room-table4-compute.json",     /* ditto */
    "most-room-table4-l1.json",          /* ditto */
    "most-room-table4-memory.json",      /* ditto */
    "most-room-table4-transfer.json",    /* ditto */
    "most-room-turing-5.1-9-blocks.json",
    "most-room-turing-5.1-colocated.json",
    "most-room-turing-5.1.json",
    "qaws-fig3.json",                    /* warp-level: runs checked in test_warp_scenarios.c */
    "qaws-fig4a-2dc.json",               /* warp-level, the kernel library: test_qaws_fig4.c */
    "qaws-fig4a-atax.json",              /* ditto */
    "qaws-fig4a-bin.json",               /* ditto */
    "qaws-fig4a-dxtc.json",              /* ditto */
    "qaws-fig4a-his.json",               /* ditto */
    "qaws-fig4a-mm.json",                /* ditto */
    "qaws-fig4a-pc.json",                /* ditto */
    "qaws-fig4a-pf.json",                /* ditto */
    "qaws-fig4a-vec.json",               /* ditto */
    "qaws-fig4b-2dc-his.json",               /* ditto */
    "qaws-fig4b-bin-his.json",               /* ditto */
    "qaws-fig4b-dxtc-mm.json",               /* ditto */
    "qaws-fig4b-pf-bin.json",                /* ditto */
    "qaws-fig4b-pf-mm.json",                 /* ditto */
    "qaws-v-homogeneous-compute.json",   /* ditto */
    "qaws-v-homogeneous-latency.json",   /* ditto */
    "tx2-appendix-a-processes.json",    /* runs checked in test_contexts_shipped.c */
    "tx2-fig3-basic-rules.json",
    "tx2-fig3-task-sync.json",
    "tx2-fig5-null-stream.json",
    "tx2-fig6-starvation.json",
    "tx2-fig7-priority-none.json",
    "tx2-fig8-priority-blocking.json",
};
#define NSHIPPED (sizeof shipped / sizeof shipped[0])

static void scenario_path(char *buf, size_t n, const char *file) {
    const char *root = getenv("SCHEDLAB_ROOT");
    snprintf(buf, n, "%s%sscenarios/%s", root ? root : "", root ? "/" : "", file);
}

static scn_scenario *load(const char *file) {
    char path[1024], err[512] = "";
    scn_scenario *s = NULL;
    scenario_path(path, sizeof path, file);
    if (scn_parse_file(path, &s, err, sizeof err) != 0)
        fail_msg("%s", err);
    return s;
}

/* Run `run` of a shipped scenario; the caller trace_free()s *t. */
static void simulate(const char *file, const char *run_name, trace *t) {
    scn_scenario *s = load(file);
    int run = scn_find_run(s, run_name);
    if (run < 0)
        fail_msg("%s has no run named \"%s\"", file, run_name);
    sim_config cfg;
    char err[512] = "";
    assert_int_equal(scn_config(s, (size_t)run, &cfg, err, sizeof err), 0);
    trace_init(t);
    if (sim_run(&cfg, t, err, sizeof err) != 0)
        fail_msg("%s [%s]: sim_run: %s", file, run_name, err);
    assert_false(t->oom);
    scn_free(s);
}

static int32_t kernel_index(const trace *t, const char *name) {
    for (size_t i = 0; i < t->kernels.n; i++) {
        const char *n = trace_str_get(t, t->kernels.v[i].name);
        if (n && strcmp(n, name) == 0)
            return (int32_t)i;
    }
    fail_msg("no kernel %s in the trace", name);
    return -1;
}

static void check_kernel(const trace *t, const char *name, int64_t issue, int64_t first,
                         int64_t fully, int64_t end) {
    const trace_kernel *k = &t->kernels.v[kernel_index(t, name)];
    if (k->issue != issue || k->first_block != first || k->fully_dispatched != fully ||
        k->end != end)
        fail_msg("%s: issue/first_block/fully_dispatched/end = %lld/%lld/%lld/%lld, "
                 "expected %lld/%lld/%lld/%lld", name, (long long)k->issue,
                 (long long)k->first_block, (long long)k->fully_dispatched, (long long)k->end,
                 (long long)issue, (long long)first, (long long)fully, (long long)end);
}

/* Every block of kernel `name`, by block index: its SM, start and end. */
static void check_blocks(const trace *t, const char *name, size_t n, const int32_t *sm,
                         const int64_t *start, const int64_t *end) {
    int32_t k = kernel_index(t, name);
    size_t seen = 0;
    for (size_t i = 0; i < t->blocks.n; i++) {
        const trace_block *b = &t->blocks.v[i];
        if (b->kernel != k)
            continue;
        seen++;
        if (b->index < 0 || (size_t)b->index >= n)
            fail_msg("%s: block index %d out of 0..%zu", name, b->index, n - 1);
        size_t j = (size_t)b->index;
        if (b->sm != sm[j] || b->start != start[j] || b->end != end[j])
            fail_msg("%s:%zu on SM %d from %lld to %lld, expected SM %d from %lld to %lld", name,
                     j, b->sm, (long long)b->start, (long long)b->end, sm[j],
                     (long long)start[j], (long long)end[j]);
    }
    assert_int_equal(seen, n);
}

static void check_copy(const trace *t, const char *name, int64_t issue, int64_t start,
                       int64_t end) {
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        const char *n = trace_str_get(t, c->name);
        if (!n || strcmp(n, name) != 0)
            continue;
        if (c->issue != issue || c->start != start || c->end != end)
            fail_msg("%s: issue/start/end = %lld/%lld/%lld, expected %lld/%lld/%lld", name,
                     (long long)c->issue, (long long)c->start, (long long)c->end,
                     (long long)issue, (long long)start, (long long)end);
        assert_int_equal(c->bytes, INT64_C(268435456));
        assert_int_equal(c->engine, 0);
        return;
    }
    fail_msg("no copy %s in the trace", name);
}

/* ---- the set of shipped files -------------------------------------------- */

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_every_scenario_is_checked(void **state) {
    (void)state;
    char dir[1024];
    scenario_path(dir, sizeof dir, "");
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open %s (set SCHEDLAB_ROOT or run from the repository root)", dir);
    char *found[128];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0 && n < 128)
            found[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(found, n, sizeof found[0], cmp_str);
    for (size_t i = 0; i < n && i < NSHIPPED; i++)
        assert_string_equal(found[i], shipped[i]);
    assert_int_equal(n, NSHIPPED);
    for (size_t i = 0; i < n; i++)
        free(found[i]);

    /* each parses, has a description, and names its runs as documented */
    for (size_t i = 0; i < NSHIPPED; i++) {
        scn_scenario *s = load(shipped[i]);
        assert_true(strlen(scn_description(s)) > 100);
        if (strncmp(shipped[i], "qaws-", 5) == 0 || strstr(shipped[i], "table1") ||
            strstr(shipped[i], "table3") || strstr(shipped[i], "table4") ||
            strncmp(shipped[i], "most-room-h100-", 15) == 0) {
            /* warp-level: runs named and checked in test_warp_scenarios.c
             * (Table 1), test_warp_appendix_b.c (Tables 3-4) and
             * test_h200_mostroom.c (the h100 ones) */
        } else if (strncmp(shipped[i], "isca17-", 7) == 0) {
            /* quota QoS: runs named and checked in test_quota.c */
        } else if (strncmp(shipped[i], "most-room", 9) == 0 ||
                   strcmp(shipped[i], "h100-most-room.json") == 0) {
            assert_int_equal(scn_run_count(s), 2);
            assert_string_equal(scn_run_name(s, 0), "most-room");
            assert_string_equal(scn_run_name(s, 1), "round-robin");
        } else if (strcmp(shipped[i], "gcaps-counterexample-g.json") == 0) {
            /* the same tasks under both GPU locks (rta_corrected.test.mjs) */
            assert_int_equal(scn_run_count(s), 2);
            assert_string_equal(scn_run_name(s, 0), "fmlp+");
            assert_string_equal(scn_run_name(s, 1), "mpcp");
        } else if (strncmp(shipped[i], "gcaps-case-study", 16) != 0 &&
                   strcmp(shipped[i], "tx2-appendix-a-processes.json") != 0) {
            assert_int_equal(scn_run_count(s), 1);
            assert_string_equal(scn_run_name(s, 0), "default");
        }
        scn_free(s);
    }
}

/* ---- TX2 paper, Fig. 3 / Table 1 ------------------------------------------ */

/* Two SMs of 2048 threads and 64KB shared memory; one copy engine at
 * 1280MB/s, so a 256MB copy takes exactly 0.2 s (the range Fig. 4's insets
 * allow: test_tx2_fig4_insets).
 * t=0    K1 (6 x 768) heads S1 -> EE queue (G2). 768-thread blocks: two per
 *        SM (R2); most-room alternates SM0, SM1, SM0, SM1. K1:4,5 wait.
 * t=0.2  K4 issued to S2 -> EE queue behind K1; only K1 may place (X1).
 * t=0.4  K5 (and C5o) issued to S3 -> EE queue behind K4.
 * t=1.0  K1:0-3 end; K1:4,5 -> SM0, SM1; K1 fully dispatched, leaves the EE
 *        queue (G3). K4 (4 x 256, 32KB) fits next to them: room 2 per SM
 *        by shared memory, so SM0, SM1, SM0, SM1. K5 finds no shared
 *        memory left (R3).
 * t=2.0  K1 and K4 end. K1 leaves S1 (G4), so K2 heads S1 and joins the EE
 *        queue behind K5. K5:0,1 -> SM0, SM1, then K2 (2 x 512) -> SM0, SM1.
 * t=2.8  K6 issued to the empty S2, EE queue empty: K6 (2 x 512) at once,
 *        SM0 then SM1 (SM0 then has 768 free, SM1 1280).
 * t=3.0  K5 and K2 end, K5's blocks first (they were placed first): C5o
 *        heads S3 and is queued on the CE before C2o (C1); the single CE
 *        runs C5o 3.0-3.2, then C2o 3.2-3.4 (C2, C3).
 * t=3.4  C2o done and leaves S1 (C4): C3i heads S1, runs 3.4-3.6.
 * t=3.6  C3i done: K3 (2 x 1024) -> SM0, SM1, on SMs K6 leaves room on
 *        (512 threads each).
 * t=3.8  K6 ends: C6o heads S2, the CE is free: 3.8-4.0.
 * t=4.6  K3 ends; C3o 4.6-4.8. */
static void test_tx2_fig3(void **state) {
    (void)state;
    trace t;
    simulate("tx2-fig3-basic-rules.json", "default", &t);
    assert_int_equal(t.kernels.n, 6);
    assert_int_equal(t.blocks.n, 18);
    assert_int_equal(t.copies.n, 5);

    check_kernel(&t, "K1", 0, 0, SEC(1), SEC(2));
    check_kernel(&t, "K2", 0, SEC(2), SEC(2), SEC(3));
    check_kernel(&t, "K3", 0, MS(3600), MS(3600), MS(4600));
    check_kernel(&t, "K4", MS(200), SEC(1), SEC(1), SEC(2));
    check_kernel(&t, "K5", MS(400), SEC(2), SEC(2), SEC(3));
    check_kernel(&t, "K6", MS(2800), MS(2800), MS(2800), MS(3800));

    /* four K1 blocks start at 0, two at 1.0 s */
    static const int32_t k1_sm[] = {0, 1, 0, 1, 0, 1};
    static const int64_t k1_start[] = {0, 0, 0, 0, SEC(1), SEC(1)};
    static const int64_t k1_end[] = {SEC(1), SEC(1), SEC(1), SEC(1), SEC(2), SEC(2)};
    check_blocks(&t, "K1", 6, k1_sm, k1_start, k1_end);
    /* K4's four blocks start at 1.0 s, two per SM (64KB / 32KB) */
    static const int32_t k4_sm[] = {0, 1, 0, 1};
    static const int64_t k4_start[] = {SEC(1), SEC(1), SEC(1), SEC(1)};
    static const int64_t k4_end[] = {SEC(2), SEC(2), SEC(2), SEC(2)};
    check_blocks(&t, "K4", 4, k4_sm, k4_start, k4_end);
    static const int32_t two_sm[] = {0, 1};
    static const int64_t at2[] = {SEC(2), SEC(2)}, at3[] = {SEC(3), SEC(3)};
    check_blocks(&t, "K5", 2, two_sm, at2, at3);
    check_blocks(&t, "K2", 2, two_sm, at2, at3);
    static const int64_t k6_start[] = {MS(2800), MS(2800)}, k6_end[] = {MS(3800), MS(3800)};
    check_blocks(&t, "K6", 2, two_sm, k6_start, k6_end);
    static const int64_t k3_start[] = {MS(3600), MS(3600)}, k3_end[] = {MS(4600), MS(4600)};
    check_blocks(&t, "K3", 2, two_sm, k3_start, k3_end);

    /* C5o before C2o on the one copy engine (Fig. 4(d)) */
    check_copy(&t, "C5o", MS(400), SEC(3), MS(3200));
    check_copy(&t, "C2o", 0, MS(3200), MS(3400));
    check_copy(&t, "C3i", 0, MS(3400), MS(3600));
    check_copy(&t, "C6o", MS(2800), MS(3800), MS(4000));
    check_copy(&t, "C3o", 0, MS(4600), MS(4800));
    trace_free(&t);
}

/* ---- TX2 paper, Fig. 4: the queues at Fig. 3's time points (a)-(e) ------- */

/* What queue `qname` holds at `at` (replayed from the queue events), its
 * items separated by blanks, head first. */
static void queue_at(const trace *t, const char *qname, int64_t at, char *out, size_t outlen) {
    sim_qstate s;
    sim_qstate_init(&s, false);
    assert_int_equal(sim_qstate_replay(&s, t, at), 0);
    assert_int_equal(s.stray, 0);
    out[0] = '\0';
    for (size_t i = 0; i < s.n; i++) {
        const char *name = trace_str_get(t, s.q[i].name);
        if (!name || strcmp(name, qname) != 0)
            continue;
        for (size_t j = 0; j < sim_qstate_len(&s.q[i]); j++) {
            size_t len = strlen(out);
            snprintf(out + len, outlen - len, "%s%s", j ? " " : "",
                     trace_str_get(t, sim_qstate_items(&s.q[i])[j]));
        }
    }
    sim_qstate_free(&s);
}

static void assert_queue(const trace *t, const char *qname, int64_t at, const char *want) {
    char got[256];
    queue_at(t, qname, at, got, sizeof got);
    if (strcmp(got, want) != 0)
        fail_msg("%s at %lld ns: \"%s\", the paper's Fig. 4 has \"%s\"", qname, (long long)at,
                 got, want);
}

/* ---- TX2 paper, Fig. 3 with its CPU tasks and a sync ---------------------- */

/* Fig. 3's program as §3.2 describes it: tau0 issues to S1, tau1 to S2 and
 * S3 (Fig. 4), and tau1 calls cudaStreamSynchronize(S2) right after
 * launching K4 (the sync op Y, at 0.2 s after K4). §2.3: a CPU program
 * that synchronises waits for the GPU operations it issued; a kernel
 * launch or an asynchronous copy would have returned at once. So:
 * t=0..1.0  as in Fig. 3 (test_tx2_fig3): K1:0-3 at 0, K4 issued at 0.2
 *        and queued behind K1 (X1); Y sits behind K4 in S2. tau1 is
 *        blocked: K5 and C5o (Table 1: 0.4 s) are not issued.
 * t=1.0  K1:4,5 and K4's four blocks placed as in Fig. 3.
 * t=2.0  K1 and K4 end (K1's blocks were placed first, so it completes
 *        first): K2 heads S1 and joins the EE queue (G2). K4 leaves S2
 *        (G4): Y is at its head, the sync returns, and tau1 issues K5 and
 *        C5o now (G1); K5 heads S3 and joins the EE queue behind K2.
 *        K2 (2 x 512) -> SM0, SM1, then K5 (2 x 256, 32KB) -> SM0, SM1:
 *        all of the GPU is free.
 * t=2.8  K6 issued by tau1 (no longer blocked) to the empty S2: at once,
 *        as in Fig. 3.
 * t=3.0  K2 and K5 end, K2's blocks first (placed first): C2o reaches the
 *        CE queue before C5o (C1), so C2o 3.0-3.2 and C5o 3.2-3.4 -- the
 *        other way round from Fig. 4(d). C2o done at 3.2: C3i heads S1,
 *        queued behind C5o: 3.4-3.6.
 * t=3.6  K3 as in Fig. 3; K6 ends 3.8, C6o 3.8-4.0; K3 ends 4.6, C3o
 *        4.6-4.8. */
static void test_tx2_fig3_task_sync(void **state) {
    (void)state;
    trace t;
    simulate("tx2-fig3-task-sync.json", "default", &t);
    assert_int_equal(t.kernels.n, 6);
    assert_int_equal(t.blocks.n, 18);
    assert_int_equal(t.copies.n, 5);
    check_kernel(&t, "K1", 0, 0, SEC(1), SEC(2));
    check_kernel(&t, "K2", 0, SEC(2), SEC(2), SEC(3));
    check_kernel(&t, "K3", 0, MS(3600), MS(3600), MS(4600));
    check_kernel(&t, "K4", MS(200), SEC(1), SEC(1), SEC(2));
    check_kernel(&t, "K5", SEC(2), SEC(2), SEC(2), SEC(3));
    check_kernel(&t, "K6", MS(2800), MS(2800), MS(2800), MS(3800));
    static const int32_t two_sm[] = {0, 1};
    static const int64_t at2[] = {SEC(2), SEC(2)}, at3[] = {SEC(3), SEC(3)};
    check_blocks(&t, "K2", 2, two_sm, at2, at3);
    check_blocks(&t, "K5", 2, two_sm, at2, at3);
    check_copy(&t, "C2o", 0, SEC(3), MS(3200));
    check_copy(&t, "C5o", SEC(2), MS(3200), MS(3400));
    check_copy(&t, "C3i", 0, MS(3400), MS(3600));
    check_copy(&t, "C6o", MS(2800), MS(3800), MS(4000));
    check_copy(&t, "C3o", 0, MS(4600), MS(4800));
    /* nothing of tau1's S3 work is anywhere before the sync returns; the
     * sync waits behind K4 in S2; at 2.0 K2 is ahead of K5 in the EE queue */
    char q[256];
    queue_at(&t, "stream:P0/S3", MS(1900), q, sizeof q);
    assert_string_equal(q, "");
    queue_at(&t, "stream:P0/S2", MS(1900), q, sizeof q);
    assert_string_equal(q, "K4 Y");
    trace_free(&t);
}

/* Blocks of kernel `name` on SM `sm` at `at` (started, not yet ended). */
static int blocks_on(const trace *t, const char *name, int32_t sm, int64_t at) {
    int32_t k = kernel_index(t, name);
    int n = 0;
    for (size_t i = 0; i < t->blocks.n; i++) {
        const trace_block *b = &t->blocks.v[i];
        n += b->kernel == k && b->sm == sm && b->start <= at && at < b->end;
    }
    return n;
}

/* Copies running on the copy engine at `at`, as "NAME ..." in trace order. */
static void on_ce(const trace *t, int64_t at, char *out, size_t outlen) {
    out[0] = '\0';
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        if (c->start <= at && at < c->end) {
            size_t len = strlen(out);
            snprintf(out + len, outlen - len, "%s%s", len ? " " : "", trace_str_get(t, c->name));
        }
    }
}

/* The paper's insets (a)-(e) of Fig. 4 are the queues at t = 1.1, 2.1,
 * 3.0, 3.32 and 4.0 s on Fig. 3's axis. Table 1's start times are "relative
 * to the end of benchmark initialization", so that axis is Table 1's time
 * plus the initialization, D. The insets bound D: K5's blocks are assigned
 * at (c) but K2 and K5 have completed at (d) (2 + D <= 3.0, 3 + D <= 3.32),
 * and K6, issued at 2.8 + D and running at once, has not completed at (e)
 * (3.8 + D > 4.0): 0.2 < D <= 0.32. D = 0.3 s puts (d) just after K2 and K5
 * complete. The insets also bound one 256MB copy, c: C5o is still on the
 * CE at (d) (3 + D + c > 3.32) and C5o, C2o and C3i are done at (e), K3
 * being fully dispatched (3 + D + 3c <= 4.0): 0.02 < c <= 0.233 s. So on
 * the scenario's axis (Table 1's) the insets are at 0.8, 1.8, 2.7, 3.02 and
 * 3.7 s, and each must show what the paper's text says it shows. */
static void test_tx2_fig4_insets(void **state) {
    (void)state;
    trace t;
    simulate("tx2-fig3-basic-rules.json", "default", &t);
    const int64_t D = MS(300);
    char ce[64];

    /* (a) t = 1.1: "The first five kernels have been launched, and the kernels
     * at the heads of each stream, K1, K4, and K5, have also been added to
     * the EE queue, in issue order. K1 remains in the EE queue as it is not
     * yet fully dispatched"; "Each SM has two blocks of K1 assigned to it." */
    int64_t a = MS(1100) - D;
    assert_queue(&t, "ee:P0:low", a, "K1 K4 K5");
    assert_queue(&t, "stream:P0/S1", a, "K1 K2 C2o C3i K3 C3o");
    assert_queue(&t, "stream:P0/S2", a, "K4");
    assert_queue(&t, "stream:P0/S3", a, "K5 C5o");
    assert_int_equal(blocks_on(&t, "K1", 0, a), 2);
    assert_int_equal(blocks_on(&t, "K1", 1, a), 2);
    assert_int_equal(blocks_on(&t, "K4", 0, a) + blocks_on(&t, "K4", 1, a), 0);

    /* (b) t = 2.1: "The first four blocks of K1 have finished executing.
     * Both K1 and K4 are now fully dispatched, so they have been removed
     * from the EE queue, but remain at the heads of their stream queues. No
     * blocks of K5 are able to be dispatched"; two blocks of K4 on each SM. */
    int64_t b = MS(2100) - D;
    assert_queue(&t, "ee:P0:low", b, "K5");
    assert_queue(&t, "stream:P0/S1", b, "K1 K2 C2o C3i K3 C3o");
    assert_queue(&t, "stream:P0/S2", b, "K4");
    for (int32_t sm = 0; sm < 2; sm++) {
        assert_int_equal(blocks_on(&t, "K1", sm, b), 1);
        assert_int_equal(blocks_on(&t, "K4", sm, b), 2);
        assert_int_equal(blocks_on(&t, "K5", sm, b), 0);
    }

    /* (c) t = 3.0: "Upon completion of K1 and K4, both of K5's blocks are
     * assigned, and K2 is added to the EE queue and immediately becomes fully
     * dispatched. C2o remains blocked by K2 in its stream queue ... C5o is
     * similarly blocked." */
    int64_t c = MS(3000) - D;
    assert_queue(&t, "ee:P0:low", c, "");
    assert_queue(&t, "stream:P0/S1", c, "K2 C2o C3i K3 C3o");
    assert_queue(&t, "stream:P0/S3", c, "K5 C5o");
    assert_queue(&t, "ce", c, "");
    assert_int_equal(blocks_on(&t, "K5", 0, c) + blocks_on(&t, "K5", 1, c), 2);
    assert_int_equal(blocks_on(&t, "K2", 0, c) + blocks_on(&t, "K2", 1, c), 2);

    /* (d) t = 3.32: "K2 and K5 both complete execution, enabling C2o and C5o
     * to be enqueued on the CE queue. C5o is enqueued first, so it is
     * assigned to the CE and removed from the CE queue. ... both C3i and K3
     * are delayed behind C2o. Upon being issued, K6 immediately moved
     * unhindered through the queues ...; the copies execute concurrently
     * with the blocks of K6." */
    int64_t d = MS(3320) - D;
    assert_queue(&t, "ce", d, "C2o");
    on_ce(&t, d, ce, sizeof ce);
    assert_string_equal(ce, "C5o");
    assert_queue(&t, "stream:P0/S1", d, "C2o C3i K3 C3o");
    assert_queue(&t, "stream:P0/S3", d, "C5o");
    assert_queue(&t, "stream:P0/S2", d, "K6 C6o");
    assert_queue(&t, "ee:P0:low", d, "");
    assert_int_equal(blocks_on(&t, "K6", 0, d) + blocks_on(&t, "K6", 1, d), 2);

    /* (e) t = 4.0: "K3 and K6 are both fully dispatched. C3o and C6o are
     * blocked in their stream queues until K3 and K6 complete, respectively.
     * As a result, the CE and EE queues are empty." */
    int64_t e = MS(4000) - D;
    assert_true(t.kernels.v[kernel_index(&t, "K3")].fully_dispatched <= e);
    assert_true(t.kernels.v[kernel_index(&t, "K6")].end > e);
    assert_queue(&t, "stream:P0/S1", e, "K3 C3o");
    assert_queue(&t, "stream:P0/S2", e, "K6 C6o");
    assert_queue(&t, "ce", e, "");
    assert_queue(&t, "ee:P0:low", e, "");
    trace_free(&t);
}

/* ---- TX2 paper, Fig. 5 / Table 2 (NULL stream) ------------------------------ */

/* t=0    K1 (6 x 768): four blocks, SM0/SM1 alternating; two at 1.0 s.
 * t=0.2  K2 heads the NULL stream but S1's head K1 was launched before it:
 *        K2 waits (N1). K3 heads S2, but the NULL stream's head K2 was
 *        launched before K3: K3 waits (N2). Likewise K4 (behind K3), K6.
 * t=2.0  K1 completes, S1 empty; the heads of S2 (K3) and S3 (K6) were
 *        launched after K2: K2 -> EE, its one block on SM0.
 * t=3.0  K2 completes; the NULL head is now K5 (0.6 s). K3 (0.2 s) was
 *        launched before K5: K3 runs (N2); K6 (0.8 s) may not; K5 waits for
 *        S2's head K3 (N1).
 * t=4.0  K3 completes; K4 (0.4 s) heads S2, launched before K5: K4 runs.
 * t=5.0  K4 completes, S2 empty, S3's head K6 launched after K5: K5 runs.
 * t=6.0  K5 completes: K6 finally runs, 5.2 s after its launch. */
static void test_tx2_fig5(void **state) {
    (void)state;
    trace t;
    simulate("tx2-fig5-null-stream.json", "default", &t);
    assert_int_equal(t.kernels.n, 6);
    assert_int_equal(t.blocks.n, 18);
    check_kernel(&t, "K1", 0, 0, SEC(1), SEC(2));
    check_kernel(&t, "K2", MS(200), SEC(2), SEC(2), SEC(3));
    check_kernel(&t, "K3", MS(200), SEC(3), SEC(3), SEC(4));
    check_kernel(&t, "K4", MS(400), SEC(4), SEC(4), SEC(5));
    check_kernel(&t, "K5", MS(600), SEC(5), SEC(5), SEC(6));
    check_kernel(&t, "K6", MS(800), SEC(6), SEC(6), SEC(7));

    /* K2 starts only after K1 completes; K6 is not concurrent with K1, K3, K4 */
    const trace_kernel *kv = t.kernels.v;
    assert_true(kv[kernel_index(&t, "K2")].first_block >= kv[kernel_index(&t, "K1")].end);
    int64_t k6_first = kv[kernel_index(&t, "K6")].first_block;
    assert_true(k6_first >= kv[kernel_index(&t, "K1")].end);
    assert_true(k6_first >= kv[kernel_index(&t, "K3")].end);
    assert_true(k6_first >= kv[kernel_index(&t, "K4")].end);

    static const int32_t k1_sm[] = {0, 1, 0, 1, 0, 1};
    static const int64_t k1_start[] = {0, 0, 0, 0, SEC(1), SEC(1)};
    static const int64_t k1_end[] = {SEC(1), SEC(1), SEC(1), SEC(1), SEC(2), SEC(2)};
    check_blocks(&t, "K1", 6, k1_sm, k1_start, k1_end);
    static const int32_t one_sm[] = {0};
    static const int64_t s2[] = {SEC(2)}, s3[] = {SEC(3)}, s5[] = {SEC(5)}, s6[] = {SEC(6)};
    check_blocks(&t, "K2", 1, one_sm, s2, s3);
    check_blocks(&t, "K5", 1, one_sm, s5, s6);
    static const int32_t four_sm[] = {0, 1, 0, 1};
    static const int64_t f3[] = {SEC(3), SEC(3), SEC(3), SEC(3)};
    static const int64_t f4[] = {SEC(4), SEC(4), SEC(4), SEC(4)};
    static const int64_t f5[] = {SEC(5), SEC(5), SEC(5), SEC(5)};
    check_blocks(&t, "K3", 4, four_sm, f3, f4);
    check_blocks(&t, "K4", 4, four_sm, f4, f5);
    static const int32_t two_sm[] = {0, 1};
    static const int64_t t6[] = {SEC(6), SEC(6)}, t7[] = {SEC(7), SEC(7)};
    check_blocks(&t, "K6", 2, two_sm, t6, t7);
    trace_free(&t);
}

/* ---- TX2 paper, Fig. 6 / Table 3 (starvation) ------------------------------- */

/* Blocks of 1024 threads: two per SM, four on the GPU; 0.5 s each.
 * t=0    K1 (low): blocks 0-3 on SM0, SM1, SM0, SM1.
 * t=0.2  K2 (high) -> the high EE queue; K1 may place no more (A2).
 * t=0.5  K1:0-3 end; K3 (high) joins the high queue behind K2. K2 places
 *        four blocks per 0.5 s: waves at 0.5, 1.0, 1.5, 2.0; ends 2.5.
 * t=2.5  K2 done: K3 in waves at 2.5, 3.0, 3.5, 4.0; fully dispatched at
 *        4.0 (the high queue is empty, but the GPU is full); ends 4.5.
 * t=4.5  K1's blocks 4-7 at last; K1 ends 5.0. */
static void test_tx2_fig6(void **state) {
    (void)state;
    trace t;
    simulate("tx2-fig6-starvation.json", "default", &t);
    assert_int_equal(t.blocks.n, 40);
    check_kernel(&t, "K1", 0, 0, MS(4500), SEC(5));
    check_kernel(&t, "K2", MS(200), MS(500), SEC(2), MS(2500));
    check_kernel(&t, "K3", MS(500), MS(2500), SEC(4), MS(4500));

    int32_t sm[16];
    int64_t start[16], end[16];
    for (int i = 0; i < 8; i++) {
        sm[i] = i % 2;
        start[i] = i < 4 ? 0 : MS(4500);
        end[i] = start[i] + MS(500);
    }
    check_blocks(&t, "K1", 8, sm, start, end);
    for (int i = 0; i < 16; i++) {
        sm[i] = i % 2;
        start[i] = MS(500) + MS(500) * (i / 4);
        end[i] = start[i] + MS(500);
    }
    check_blocks(&t, "K2", 16, sm, start, end);
    for (int i = 0; i < 16; i++) {
        start[i] = MS(2500) + MS(500) * (i / 4);
        end[i] = start[i] + MS(500);
    }
    check_blocks(&t, "K3", 16, sm, start, end);
    trace_free(&t);
}

/* ---- TX2 paper, Fig. 7 / Table 4 (priority-none = low) ---------------------- */

/* t=0    K1 (low): blocks 0-3; K2 (none = low) joins the low EE queue at
 *        0.2 behind K1, K3 (high) the high queue at 0.3.
 * t=0.5  K1:0-3 end; K3 cuts in (A2): waves at 0.5 and 1.0, ends 1.5.
 * t=1.2  K4 (low) joins the low queue behind K1 and K2.
 * t=1.5  high queue empty: K1 resumes, blocks 4-7; K2 cannot pre-empt it.
 * t=2.0  K1 done: K2 (launched 0.2) before K4 (launched 1.2): K2 at 2.0 and
 *        2.5, K4 at 3.0 and 3.5. */
static void test_tx2_fig7(void **state) {
    (void)state;
    trace t;
    simulate("tx2-fig7-priority-none.json", "default", &t);
    assert_int_equal(t.blocks.n, 32);
    check_kernel(&t, "K1", 0, 0, MS(1500), SEC(2));
    check_kernel(&t, "K3", MS(300), MS(500), SEC(1), MS(1500));
    check_kernel(&t, "K2", MS(200), SEC(2), MS(2500), SEC(3));
    check_kernel(&t, "K4", MS(1200), SEC(3), MS(3500), SEC(4));

    static const struct { const char *name; int64_t wave0, wave1; } waves[] = {
        {"K1", 0, MS(1500)}, {"K3", MS(500), SEC(1)}, {"K2", SEC(2), MS(2500)},
        {"K4", SEC(3), MS(3500)}};
    for (size_t w = 0; w < 4; w++) {
        int32_t sm[8];
        int64_t start[8], end[8];
        for (int i = 0; i < 8; i++) {
            sm[i] = i % 2;
            start[i] = i < 4 ? waves[w].wave0 : waves[w].wave1;
            end[i] = start[i] + MS(500);
        }
        check_blocks(&t, waves[w].name, 8, sm, start, end);
    }
    trace_free(&t);
}

/* ---- TX2 paper, Fig. 8 / Table 5 (priority and resource blocking) ---------- */

/* K1-K7 (512 threads) one per 0.1 s; most-room alternates: K1 SM0 (tie),
 * K2 SM1, K3 SM0 (tie), K4 SM1, K5 SM0, K6 SM1, K7 SM0. SM0 is full, SM1
 * has 512 threads free.
 * t=0.65 K8 (high, 1024 threads) fits nowhere; t=0.7 K9 (low, 512) fits
 *        on SM1 but may not pass K8 (A2).
 * t=1.0  K1 ends: 512 free on each SM, still no SM with 1024 for K8.
 * t=1.1  K2 ends: SM1 has 1024 free: K8 -> SM1, then K9 -> SM0. */
static void test_tx2_fig8(void **state) {
    (void)state;
    trace t;
    simulate("tx2-fig8-priority-blocking.json", "default", &t);
    assert_int_equal(t.kernels.n, 9);
    assert_int_equal(t.blocks.n, 9);
    static const char *const names[] = {"K1", "K2", "K3", "K4", "K5", "K6", "K7"};
    for (int i = 0; i < 7; i++) {
        int64_t at = MS(100) * i;
        check_kernel(&t, names[i], at, at, at, at + SEC(1));
        int32_t sm = i % 2;
        int64_t end = at + SEC(1);
        check_blocks(&t, names[i], 1, &sm, &at, &end);
    }
    /* K8 and K9 dispatched when K2 completes (1.1 s) */
    check_kernel(&t, "K8", MS(650), MS(1100), MS(1100), MS(1600));
    check_kernel(&t, "K9", MS(700), MS(1100), MS(1100), MS(2100));
    int32_t sm8 = 1, sm9 = 0;
    int64_t st = MS(1100), end8 = MS(1600), end9 = MS(2100);
    check_blocks(&t, "K8", 1, &sm8, &st, &end8);
    check_blocks(&t, "K9", 1, &sm9, &st, &end9);
    trace_free(&t);
}

/* ---- most-room paper ------------------------------------------------------- */

/* Kernel X: five blocks, Xi on SM i (each placement leaves that SM with the
 * least room, ties by ascending order), Xi ending at i+1 s. */
static void check_x(const trace *t, int32_t threads) {
    int32_t sm[5];
    int64_t start[5], end[5];
    for (int i = 0; i < 5; i++) {
        sm[i] = i;
        start[i] = 0;
        end[i] = SEC(i + 1);
    }
    check_blocks(t, "X", 5, sm, start, end);
    check_kernel(t, "X", 0, 0, 0, SEC(5));
    assert_int_equal(t->kernels.v[kernel_index(t, "X")].threads, threads);
}

static void check_y(const trace *t, const int32_t sm[3]) {
    static const int64_t start[] = {MS(1500), MS(1500), MS(1500)};
    static const int64_t end[] = {MS(2500), MS(2500), MS(2500)};
    check_kernel(t, "Y", MS(1500), MS(1500), MS(1500), MS(2500));
    check_blocks(t, "Y", 3, sm, start, end);
}

/* §4.1, Pascal (2048 threads, 64 warps, 32 blocks per SM). Y (160 threads,
 * 5 warps) at 1.5 s, SM0 empty: room SM0 = min(2048/160, 64/5) = 12, the
 * others min(1792/160, 56/5) = 11 -> Y0 on SM0; then SM0 min(1888/160,
 * 59/5) = 11, a tie with SM1-4 -> SM0; then SM0 has 10 -> Y2 on SM1.
 * Round-robin (the turn kept over the device) goes on from SM0: 0, 1, 2. */
static void test_most_room_4_1(void **state) {
    (void)state;
    trace t;
    simulate("most-room-pascal-4.1.json", "most-room", &t);
    check_x(&t, 256);
    static const int32_t mr[] = {0, 0, 1};
    check_y(&t, mr);
    trace_free(&t);

    simulate("most-room-pascal-4.1.json", "round-robin", &t);
    check_x(&t, 256);
    static const int32_t rr[] = {0, 1, 2};
    check_y(&t, rr);
    trace_free(&t);
}

/* §4.2, X = 5 x 1024. Y = 3 x 32 threads: SM0 room min(2048/32, 64, 32) =
 * 32, the others min(1024/32, 32, 32 - 1) = 31 (blocks per SM limit) ->
 * Y0 SM0; all tied at 31 -> Y1 SM0; SM0 at 30 -> Y2 SM1. */
static void test_most_room_4_2(void **state) {
    (void)state;
    trace t;
    simulate("most-room-pascal-4.2.json", "most-room", &t);
    check_x(&t, 1024);
    static const int32_t mr[] = {0, 0, 1};
    check_y(&t, mr);
    trace_free(&t);

    simulate("most-room-pascal-4.2.json", "round-robin", &t);
    static const int32_t rr[] = {0, 1, 2};
    check_y(&t, rr);
    trace_free(&t);
}

/* §4.2, Y = 3 x 33 threads = 2 warps: SM0 room min(2048/33, 64/2, 32) =
 * 32, the others min(1024/33, 32/2, 31) = 16 (warps) -> all on SM0
 * (32, 31, 30 > 16). */
static void test_most_room_4_2_33(void **state) {
    (void)state;
    trace t;
    simulate("most-room-pascal-4.2-33-threads.json", "most-room", &t);
    check_x(&t, 1024);
    static const int32_t mr[] = {0, 0, 0};
    check_y(&t, mr);
    trace_free(&t);

    simulate("most-room-pascal-4.2-33-threads.json", "round-robin", &t);
    static const int32_t rr[] = {0, 1, 2};
    check_y(&t, rr);
    trace_free(&t);
}

/* §5.1, Turing (1024 threads, 32 warps, 16 blocks per SM; order 0, 2, ...,
 * 66, 1, 3, ..., 67). A = 67 x 512: block i on the SM at position i of the
 * order (every placement leaves that SM with room 1 against 2), so A0-A33
 * on SMs 0, 2, ..., 66, A34-A66 on SMs 1, 3, ..., 65, SM67 empty. Under
 * round-robin the turn walks the same order, with the same result. */
static int32_t turing_a_sm(int i) {
    return i < 34 ? 2 * i : 2 * (i - 34) + 1;
}

static void check_a(const trace *t) {
    int32_t sm[67];
    int64_t start[67], end[67];
    for (int i = 0; i < 67; i++) {
        sm[i] = turing_a_sm(i);
        start[i] = 0;
        end[i] = SEC(1);
    }
    check_blocks(t, "A", 67, sm, start, end);
    check_kernel(t, "A", 0, 0, 0, SEC(1));
}

static void check_b(const trace *t, size_t n, const int32_t *sm) {
    int64_t start[16], end[16];
    for (size_t i = 0; i < n; i++) {
        start[i] = MS(100);
        end[i] = MS(1100);
    }
    check_kernel(t, "B", MS(100), MS(100), MS(100), MS(1100));
    check_blocks(t, "B", n, sm, start, end);
}

/* B = 8 x 33 (2 warps): SM67 room min(1024/33, 32/2, 16) = 16, an SM with
 * an A block min(512/33, 16/2, 15) = 8; SM67 stays ahead (16 .. 9 > 8):
 * all of B on SM67. Round-robin: SM67, then 0, 2, ..., 12. */
static void test_most_room_5_1_isolated(void **state) {
    (void)state;
    trace t;
    simulate("most-room-turing-5.1.json", "most-room", &t);
    check_a(&t);
    static const int32_t mr[] = {67, 67, 67, 67, 67, 67, 67, 67};
    check_b(&t, 8, mr);
    trace_free(&t);

    simulate("most-room-turing-5.1.json", "round-robin", &t);
    check_a(&t);
    static const int32_t rr[] = {67, 0, 2, 4, 6, 8, 10, 12};
    check_b(&t, 8, rr);
    trace_free(&t);
}

/* B = 8 x 32: SM67 room min(1024/32, 32, 16) = 16, the others
 * min(512/32, 16, 15) = 15 (blocks per SM) -> B0 SM67, then a tie at 15
 * everywhere, broken by the order: 0, 2, 4, 6, 8, 10, 12. */
static void test_most_room_5_1_colocated(void **state) {
    (void)state;
    trace t;
    static const int32_t want[] = {67, 0, 2, 4, 6, 8, 10, 12};
    simulate("most-room-turing-5.1-colocated.json", "most-room", &t);
    check_a(&t);
    check_b(&t, 8, want);
    trace_free(&t);

    simulate("most-room-turing-5.1-colocated.json", "round-robin", &t);
    check_a(&t);
    check_b(&t, 8, want);
    trace_free(&t);
}

/* B = 9 x 33: after eight blocks SM67 has room 8, tied with every SM
 * holding an A block: the ninth goes to SM0, first in the order. */
static void test_most_room_5_1_nine(void **state) {
    (void)state;
    trace t;
    simulate("most-room-turing-5.1-9-blocks.json", "most-room", &t);
    check_a(&t);
    static const int32_t mr[] = {67, 67, 67, 67, 67, 67, 67, 67, 0};
    check_b(&t, 9, mr);
    trace_free(&t);

    simulate("most-room-turing-5.1-9-blocks.json", "round-robin", &t);
    static const int32_t rr[] = {67, 0, 2, 4, 6, 8, 10, 12, 14};
    check_b(&t, 9, rr);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_scenario_is_checked),
        cmocka_unit_test(test_tx2_fig3),
        cmocka_unit_test(test_tx2_fig3_task_sync),
        cmocka_unit_test(test_tx2_fig4_insets),
        cmocka_unit_test(test_tx2_fig5),
        cmocka_unit_test(test_tx2_fig6),
        cmocka_unit_test(test_tx2_fig7),
        cmocka_unit_test(test_tx2_fig8),
        cmocka_unit_test(test_most_room_4_1),
        cmocka_unit_test(test_most_room_4_2),
        cmocka_unit_test(test_most_room_4_2_33),
        cmocka_unit_test(test_most_room_5_1_isolated),
        cmocka_unit_test(test_most_room_5_1_colocated),
        cmocka_unit_test(test_most_room_5_1_nine),
    };
    /* the kernel library the qaws-fig4* scenarios name (scenarios/kernels) */
    char dir[1024], err[512];
    scenario_path(dir, sizeof dir, "kernels");
    if (kl_open(dir, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    kl_close();
    return rc;
}
