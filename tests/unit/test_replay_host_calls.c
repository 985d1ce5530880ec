/* test_replay_host_calls.c -- a replay of part of a trace makes the host's
 * calls of the ops it replays (server/app/replay_calls.h), as the replay of
 * the whole trace does (test_replay_fidelity's round trips): what a sync or
 * a blocking copy held is issued when it returned, not at its recorded
 * issue time as a host event, where an arrival at that instant falls the
 * other way (docs/trace-format.md, host_calls).
 *
 *  - the held-out prediction (replay_heldout.h): both halves of a run
 *    whose CPU tasks are held replay as the run went;
 *  - a sync that waited for work of the other half is left out of the half
 *    (it would return at once there), its task's later calls made when it
 *    returned;
 *  - a replay GPU by GPU (replay_devices.h): each GPU of a run of two with
 *    held tasks replays as it ran, whether the trace lists its GPUs or
 *    tells them by lane;
 *  - a task whose calls go to two GPUs: another GPU's sync held its calls
 *    here until it returned.
 *
 * The runs are simulated here from scenarios written in the test, and each
 * expected time follows by hand from the TX2 paper's rules (§2.3, §3.2),
 * as worked out beside each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../server/app/replay.h"
#include "../../server/app/replay_devices.h"
#include "../../server/app/replay_heldout.h"
#include "../../server/formats/scenario.h"
#include "test_scn_util.h"
#include "test_sim_util.h"

/* ---- helpers ------------------------------------------------------------- */

/* Scenario s simulated (run 0) into t, its blocks discarded as the
 * held-out prediction discards them (a trace with block records gets none:
 * replay_heldout.h); s is freed. */
static void simulate_scn(scn_scenario *s, trace *t) {
    sim_config cfg;
    char err[512] = "";
    if (scn_config(s, 0, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    cfg.block_sink = replay_discard_sink();
    trace_init(t);
    if (sim_run(&cfg, t, err, sizeof err) != 0) fail_msg("sim_run: %s", err);
    assert_int_equal(t->blocks.n, 0);
    scn_free(s);
}

/* Scenario text `txt` simulated, as simulate_scn. */
static void simulate_text(const char *txt, trace *t) {
    scn_scenario *s = NULL;
    char err[512] = "";
    if (scn_parse(txt, strlen(txt), "test", &s, err, sizeof err) != 0) fail_msg("%s", err);
    simulate_scn(s, t);
}

/* Trace t replayed (replay_scenario) and simulated into out. */
static void replay_via_scenario(const trace *t, trace *out) {
    json_t *scn = NULL;
    char err[512] = "";
    if (replay_scenario(t, "part", NULL, &scn, err, sizeof err) != 0) fail_msg("%s", err);
    char *txt = json_dumps(scn, JSON_COMPACT);
    assert_non_null(txt);
    scn_scenario *s = NULL;
    if (scn_parse(txt, strlen(txt), "replay", &s, err, sizeof err) != 0)
        fail_msg("the replay does not parse: %s", err);
    sim_config cfg;
    if (scn_config(s, 0, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    trace_init(out);
    if (sim_run(&cfg, out, err, sizeof err) != 0) fail_msg("sim_run: %s", err);
    scn_free(s);
    free(txt);
    json_decref(scn);
}

/* The kernel of t named `name` whose first block is at or after `from`. */
static const trace_kernel *kernel_from(const trace *t, const char *name, int64_t from) {
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        if (strcmp(trace_str_get(t, k->name), name) == 0 && k->first_block >= from) return k;
    }
    fail_msg("no kernel %s from %lld ns", name, (long long)from);
    return NULL;
}

/* Every kernel and copy of `measured` ran in `replayed` (matched by name
 * and order) from the same start to the same end, exactly; printed. */
static void same_times(const trace *measured, const trace *replayed, const char *what) {
    assert_int_equal(replayed->kernels.n, measured->kernels.n);
    assert_int_equal(replayed->copies.n, measured->copies.n);
    for (size_t i = 0; i < measured->kernels.n; i++) {
        const trace_kernel *x = &measured->kernels.v[i];
        const char *name = trace_str_get(measured, x->name);
        const trace_kernel *y = NULL;
        for (size_t j = 0; j < replayed->kernels.n && !y; j++)
            if (strcmp(trace_str_get(replayed, replayed->kernels.v[j].name), name) == 0)
                y = &replayed->kernels.v[j];
        if (!y) fail_msg("%s: kernel %s was not replayed", what, name);
        printf("  %s: %s measured %lld-%lld ns, replayed %lld-%lld ns\n", what, name,
               (long long)x->first_block, (long long)x->end, (long long)y->first_block,
               (long long)y->end);
        assert_int_equal(y->first_block, x->first_block);
        assert_int_equal(y->end, x->end);
    }
    for (size_t i = 0; i < measured->copies.n; i++) {
        const trace_copy *x = &measured->copies.v[i];
        const char *name = trace_str_get(measured, x->name);
        const trace_copy *y = NULL;
        for (size_t j = 0; j < replayed->copies.n && !y; j++)
            if (strcmp(trace_str_get(replayed, replayed->copies.v[j].name), name) == 0)
                y = &replayed->copies.v[j];
        if (!y) fail_msg("%s: copy %s was not replayed", what, name);
        assert_int_equal(y->start, x->start);
        assert_int_equal(y->end, x->end);
    }
}

/* ---- the held-out halves --------------------------------------------------- */

/* test_replay_fidelity's device sync and blocking copy, twice: at 0 and at
 * 10 s. In each, tau0's blocking copy C (256 MB at 1280 MB/s: 0.2 s) holds
 * it from 0.1 s to 0.3 s, so K2 is issued at 0.3 s and waits in S1 behind
 * K1; tau1's device sync D waits for K1 and Ka, which fill the two SMs and
 * end at 1 s, so K3 (called at 0.5 s) is issued at 1 s, after K1's
 * completion has moved K2 on to the EE queue (TX2 §3.2, G2): K2 (4 blocks
 * of 1024 threads, both SMs) runs 1-2 s, K3 2-3 s. Issued at its recorded
 * 1 s as a host event, K3 reaches the EE queue first: K3 1-2 s, K2 2-3 s.
 * The kernels span 0-13 s, so the held-out cut is at 6.5 s: each half is
 * one of the two, and the first calibrates the second's kernels of the
 * same name and size exactly (each ran 1 s in one wave). */
#define ONCE(T0, T1, T5)                                                                           \
    "{\"kernel\":\"K1\",\"stream\":\"S1\",\"at\":\"" T0 "\",\"blocks\":2,\"threads\":1024,"        \
    "\"block_time\":\"1s\"},"                                                                      \
    "{\"kernel\":\"Ka\",\"stream\":\"S2\",\"at\":\"" T0 "\",\"blocks\":2,\"threads\":1024,"        \
    "\"block_time\":\"1s\"},"                                                                      \
    "{\"sync\":\"D\",\"stream\":\"S2\",\"at\":\"" T0 "\",\"scope\":\"device\"},"                   \
    "{\"copy\":\"C\",\"stream\":\"S4\",\"at\":\"" T1 "\",\"bytes\":\"256MB\","                     \
    "\"direction\":\"h2d\",\"blocking\":true},"                                                    \
    "{\"kernel\":\"K2\",\"stream\":\"S1\",\"at\":\"" T1 "\",\"blocks\":4,\"threads\":1024,"        \
    "\"block_time\":\"1s\"},"                                                                      \
    "{\"kernel\":\"K3\",\"stream\":\"S3\",\"at\":\"" T5 "\",\"blocks\":4,\"threads\":1024,"        \
    "\"block_time\":\"1s\"}"
static const char TWICE[] =
    "{\"schema\":\"schedlab-scenario/1\",\"device\":{\"preset\":\"tx2\","
    "\"copy_bandwidth\":\"1280MB/s\"},"
    "\"streams\":[{\"name\":\"S1\",\"task\":\"tau0\"},{\"name\":\"S2\",\"task\":\"tau1\"},"
    "{\"name\":\"S3\",\"task\":\"tau1\"},{\"name\":\"S4\",\"task\":\"tau0\"}],"
    "\"ops\":["
    ONCE("0s", "0.1s", "0.5s") "," ONCE("10s", "10.1s", "10.5s")
    "]}";

static void test_heldout_halves_make_the_host_calls(void **state) {
    (void)state;
    trace m;
    simulate_text(TWICE, &m);
    /* the run as the rules give it (above) */
    for (int64_t t0 = 0; t0 <= 10 * SEC; t0 += 10 * SEC) {
        assert_int_equal(kernel_from(&m, "K2", t0)->first_block, t0 + 1 * SEC);
        assert_int_equal(kernel_from(&m, "K3", t0)->issue, t0 + 1 * SEC);
        assert_int_equal(kernel_from(&m, "K3", t0)->first_block, t0 + 2 * SEC);
    }
    assert_int_equal(m.host_calls.n, 12);

    replay_heldout h;
    trace first, second, predicted;
    char err[512] = "";
    assert_int_equal(replay_heldout_halves(&m, "twice", NULL, NULL, &h, &first, &second, &predicted,
                                           err, sizeof err), 0);
    assert_true(h.done);
    assert_int_equal(h.split, 6500 * MS);
    assert_int_equal(h.predicted, 4);
    /* each half has its ops' calls, D among them, and no other's */
    assert_int_equal(first.host_calls.n, 6);
    assert_int_equal(second.host_calls.n, 6);
    for (size_t i = 0; i < second.host_calls.n; i++) {
        const trace_host_call *c = &second.host_calls.v[i];
        assert_true(c->at >= 10 * SEC);
        if (c->kind == TRACE_CALL_KERNEL)
            assert_true(c->record >= 0 && (size_t)c->record < second.kernels.n);
    }
    /* the second half predicted with the first half's block times: K2
     * 11-12 s, K3 12-13 s, as measured (before: K3 11-12 s, K2 12-13 s) */
    same_times(&second, &predicted, "held-out second half");
    assert_true(h.dur_median == 0 && h.dur_p90 == 0 && h.start_median_share == 0 &&
                h.makespan_diff == 0);
    /* the first half, replayed as the prediction's calibration replays it */
    trace r1;
    replay_via_scenario(&first, &r1);
    same_times(&first, &r1, "held-out first half");
    trace_free(&r1);
    trace_free(&first);
    trace_free(&second);
    trace_free(&predicted);
    trace_free(&m);
}

/* A sync that waited for work of the other half. tau0 launches KL (2
 * blocks of 1024 threads, 6 s) on S1 at 0 and synchronises on S1 (Y): Y
 * returns at 6 s, when KL ends, so tau0's K2 on S4 (called at 0.5 s: 4
 * blocks, 1 s) is issued at 6 s and runs 6-7 s; tau1's K2 (2 blocks) runs
 * 0-1 s beside KL. The kernels span 0-7 s: the cut is at 3.5 s, KL in the
 * first half, tau0's K2 in the second. There Y would wait for nothing and
 * return at once, and K2 run from the cut (3.5 s); it is left out and K2
 * called when it returned: 6-7 s, as measured. */
static void test_heldout_sync_across_the_cut(void **state) {
    (void)state;
    trace m;
    simulate_text("{\"schema\":\"schedlab-scenario/1\",\"device\":\"tx2\","
                  "\"streams\":[{\"name\":\"S1\",\"task\":\"tau0\"},"
                  "{\"name\":\"S4\",\"task\":\"tau0\"},{\"name\":\"S2\",\"task\":\"tau1\"}],"
                  "\"ops\":["
                  "{\"kernel\":\"KL\",\"stream\":\"S1\",\"blocks\":2,\"threads\":1024,"
                  "\"block_time\":\"6s\"},"
                  "{\"sync\":\"Y\",\"stream\":\"S1\"},"
                  "{\"kernel\":\"K2\",\"stream\":\"S2\",\"blocks\":2,\"threads\":1024,"
                  "\"block_time\":\"1s\"},"
                  "{\"kernel\":\"K2\",\"stream\":\"S4\",\"at\":\"0.5s\",\"blocks\":4,"
                  "\"threads\":1024,\"block_time\":\"1s\"}]}",
                  &m);
    const trace_kernel *k2 = kernel_from(&m, "K2", 1);
    assert_int_equal(k2->issue, 6 * SEC);
    assert_int_equal(k2->first_block, 6 * SEC);
    assert_int_equal(k2->end, 7 * SEC);

    replay_heldout h;
    trace second, predicted;
    char err[512] = "";
    assert_int_equal(replay_heldout_halves(&m, "across", NULL, NULL, &h, NULL, &second, &predicted,
                                           err, sizeof err), 0);
    assert_int_equal(h.split, 3500 * MS);
    assert_int_equal(second.kernels.n, 1);
    /* K2's call, made when Y returned; Y is not the half's */
    assert_int_equal(second.host_calls.n, 1);
    assert_int_equal(second.host_calls.v[0].kind, TRACE_CALL_KERNEL);
    assert_int_equal(second.host_calls.v[0].at, 6 * SEC);
    same_times(&second, &predicted, "held-out across the cut");
    trace_free(&second);
    trace_free(&predicted);
    trace_free(&m);
}

/* ---- GPU by GPU ---------------------------------------------------------- */

/* test_replay_fidelity's device sync and blocking copy (TWICE's first run)
 * on GPU `g`: every stream in lane "gpuG". */
static void one_gpu(int g, trace *t) {
    char txt[4096];
    snprintf(txt, sizeof txt,
             "{\"schema\":\"schedlab-scenario/1\",\"device\":{\"preset\":\"tx2\","
             "\"copy_bandwidth\":\"1280MB/s\"},"
             "\"streams\":[{\"name\":\"S1\",\"process\":\"gpu%d\",\"task\":\"tau0\"},"
             "{\"name\":\"S2\",\"process\":\"gpu%d\",\"task\":\"tau1\"},"
             "{\"name\":\"S3\",\"process\":\"gpu%d\",\"task\":\"tau1\"},"
             "{\"name\":\"S4\",\"process\":\"gpu%d\",\"task\":\"tau0\"}],"
             "\"ops\":[%s]}",
             g, g, g, g, ONCE("0s", "0.1s", "0.5s"));
    simulate_text(txt, t);
}

static int cmp_call_at(const void *a, const void *b) {
    const int64_t *x = a, *y = b;   /* {at, part, index} */
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* One trace of the runs p[0..n) (n <= 2), run p[g] on GPU g: with the GPUs
 * listed (devices, each record's index) or told by their lanes alone; the
 * host's calls of all in the order of their `at`. */
static void gpus_trace(const trace *const *p, size_t n, bool listed, trace *m) {
    trace_init(m);
    trace_set_name(m, "two gpus");
    trace_set_source(m, "simulation");
    m->device = p[0]->device;
    m->has_device = true;
    size_t k0[2], c0[2], nc = 0;
    int64_t (*order)[3] = calloc(p[0]->host_calls.n + p[n - 1]->host_calls.n + 1, sizeof *order);
    assert_non_null(order);
    for (size_t g = 0; g < n; g++) {
        if (listed) assert_int_equal(trace_add_device(m, &p[g]->device), (int32_t)g);
        k0[g] = m->kernels.n;
        c0[g] = m->copies.n;
        for (size_t i = 0; i < p[g]->kernels.n; i++) {
            const trace_kernel *k = &p[g]->kernels.v[i];
            trace_kernel *d = trace_add_kernel(m);
            *d = *k;
            d->name = trace_intern(m, trace_str_get(p[g], k->name));
            d->stream = trace_intern(m, trace_str_get(p[g], k->stream));
            d->process = trace_intern(m, trace_str_get(p[g], k->process));
            d->raw_name = 0;
            d->device = listed ? (int32_t)g : 0;
        }
        for (size_t i = 0; i < p[g]->copies.n; i++) {
            const trace_copy *c = &p[g]->copies.v[i];
            trace_copy *d = trace_add_copy(m);
            *d = *c;
            d->name = trace_intern(m, trace_str_get(p[g], c->name));
            d->stream = trace_intern(m, trace_str_get(p[g], c->stream));
            d->process = trace_intern(m, trace_str_get(p[g], c->process));
            d->device = listed ? (int32_t)g : 0;
        }
        for (size_t j = 0; j < p[g]->host_calls.n; j++, nc++) {
            order[nc][0] = p[g]->host_calls.v[j].at;
            order[nc][1] = (int64_t)g;
            order[nc][2] = (int64_t)j;
        }
    }
    qsort(order, nc, sizeof *order, cmp_call_at);
    for (size_t i = 0; i < nc; i++) {
        const trace *src = p[order[i][1]];
        const trace_host_call *c = &src->host_calls.v[order[i][2]];
        trace_host_call *d = trace_add_host_call(m);
        *d = *c;
        d->task = trace_intern(m, trace_str_get(src, c->task));
        d->name = trace_intern(m, trace_str_get(src, c->name));
        d->stream = trace_intern(m, trace_str_get(src, c->stream));
        d->process = trace_intern(m, trace_str_get(src, c->process));
        if (c->kind == TRACE_CALL_KERNEL) d->record += (int32_t)k0[order[i][1]];
        if (c->kind == TRACE_CALL_COPY) d->record += (int32_t)c0[order[i][1]];
    }
    free(order);
    assert_false(m->oom);
}

/* Two GPUs, each running the device sync and blocking copy on its own
 * (K2 1-2 s, K3 2-3 s by hand, as in TWICE): each GPU's replay runs each
 * of its kernels and copies as it ran, the trace listing its GPUs or not
 * (before, without the calls: K3 1-2 s, K2 2-3 s on both). */
static void test_gpus_make_their_host_calls(void **state) {
    (void)state;
    trace g0, g1;
    one_gpu(0, &g0);
    one_gpu(1, &g1);
    assert_int_equal(kernel_from(&g1, "K2", 0)->first_block, 1 * SEC);
    assert_int_equal(kernel_from(&g1, "K3", 0)->first_block, 2 * SEC);
    const trace *parts[2] = {&g0, &g1};
    for (int listed = 1; listed >= 0; listed--) {
        trace m;
        gpus_trace(parts, 2, listed, &m);
        replay_dev *v = NULL;
        size_t n = 0;
        trace merged;
        char err[1024] = "";
        if (replay_devices_run(&m, "two gpus", NULL, 0, NULL, &v, &n, &merged, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_int_equal(n, 2);
        for (size_t i = 0; i < n; i++) {
            char what[128];
            snprintf(what, sizeof what, "%s (%s)", v[i].key, listed ? "listed" : "by lane");
            assert_string_equal(v[i].key, i ? "gpu1" : "gpu0");
            /* its six calls, D among them */
            assert_int_equal(v[i].measured.host_calls.n, 6);
            same_times(&v[i].measured, &v[i].simulated, what);
        }
        /* the merged run keeps every GPU's calls, naming its own records,
         * in order of `at`, ... */
        assert_int_equal(merged.host_calls.n,
                         v[0].simulated.host_calls.n + v[1].simulated.host_calls.n);
        for (size_t i = 0; i < merged.host_calls.n; i++) {
            const trace_host_call *c = &merged.host_calls.v[i];
            if (i) assert_true(merged.host_calls.v[i - 1].at <= c->at);
            if (c->kind == TRACE_CALL_KERNEL)
                assert_true(c->record >= 0 && (size_t)c->record < merged.kernels.n);
            if (c->kind == TRACE_CALL_COPY)
                assert_true(c->record >= 0 && (size_t)c->record < merged.copies.n);
        }
        /* ... so that replaying it again (a stored replay replayed) makes
         * the same calls: every GPU's times exactly as before (without
         * them, gpu0's K2 ran 2-3 s instead of 1-2 s, as above) */
        replay_dev *w = NULL;
        size_t nw = 0;
        trace again;
        if (replay_devices_run(&merged, "the replay replayed", NULL, 0, NULL, &w, &nw, &again, err,
                               sizeof err) != 0)
            fail_msg("%s", err);
        assert_int_equal(nw, 2);
        for (size_t i = 0; i < nw; i++) same_times(&v[i].simulated, &w[i].simulated, w[i].key);
        replay_devices_free(w, nw);
        trace_free(&again);
        replay_devices_free(v, n);
        trace_free(&merged);
        trace_free(&m);
    }
    trace_free(&g0);
    trace_free(&g1);
}

/* tx2-fig3-task-sync with tau1's S3 on a second GPU: tau1 synchronises
 * on S2 (Y, GPU 0) and its K5 and C5o on S3 (GPU 1), called at 0.4 s,
 * wait until Y returns at 2 s, when K4 ends (the scenario's description).
 * GPU 1's replay has nothing that holds tau1, so it makes K5's call when
 * Y returned: K5 issued and started at 2 s as measured, not at 0.4 s. */
static void test_gpu_task_across_gpus(void **state) {
    (void)state;
    trace t;
    simulate_scn(scn_load("tx2-fig3-task-sync.json"), &t);
    trace m;
    const trace *parts[1] = {&t};
    gpus_trace(parts, 1, true, &m);
    assert_int_equal(trace_add_device(&m, &t.device), 1);
    for (size_t i = 0; i < m.kernels.n; i++)
        m.kernels.v[i].device = strcmp(trace_str_get(&m, m.kernels.v[i].stream), "S3") == 0;
    for (size_t i = 0; i < m.copies.n; i++)
        m.copies.v[i].device = strcmp(trace_str_get(&m, m.copies.v[i].stream), "S3") == 0;
    const trace_kernel *k5 = kernel_from(&m, "K5", 0);
    assert_int_equal(k5->issue, 2 * SEC);
    assert_int_equal(k5->first_block, 2 * SEC);
    replay_dev *v = NULL;
    size_t n = 0;
    trace merged;
    char err[1024] = "";
    if (replay_devices_run(&m, "fig3 on two gpus", NULL, 0, NULL, &v, &n, &merged, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(n, 2);
    assert_string_equal(v[1].key, "device 1");
    /* GPU 1: K5's and C5o's calls, made when Y returned; Y is GPU 0's */
    const trace *g1 = &v[1].measured;
    assert_int_equal(g1->host_calls.n, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_not_equal(g1->host_calls.v[i].kind, TRACE_CALL_SYNC);
        assert_int_equal(g1->host_calls.v[i].at, 2 * SEC);
    }
    const trace_kernel *r5 = kernel_from(&v[1].simulated, "K5", 0);
    assert_int_equal(r5->issue, 2 * SEC);
    assert_int_equal(r5->first_block, 2 * SEC);
    /* GPU 0 keeps Y, which holds K6's call (2.8 s) no longer */
    size_t syncs = 0;
    for (size_t i = 0; i < v[0].measured.host_calls.n; i++)
        syncs += v[0].measured.host_calls.v[i].kind == TRACE_CALL_SYNC;
    assert_int_equal(syncs, 1);
    replay_devices_free(v, n);
    trace_free(&merged);
    trace_free(&m);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heldout_halves_make_the_host_calls),
        cmocka_unit_test(test_heldout_sync_across_the_cut),
        cmocka_unit_test(test_gpus_make_their_host_calls),
        cmocka_unit_test(test_gpu_task_across_gpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
