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
 *    returned.
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
#include "../../server/app/replay_heldout.h"
#include "../../server/formats/scenario.h"
#include "test_sim_util.h"

/* ---- helpers ------------------------------------------------------------- */

/* Scenario text `txt` simulated (run 0) into t, its blocks discarded as
 * the held-out prediction discards them (a trace with block records gets
 * none: replay_heldout.h). */
static void simulate_text(const char *txt, trace *t) {
    scn_scenario *s = NULL;
    char err[512] = "";
    if (scn_parse(txt, strlen(txt), "test", &s, err, sizeof err) != 0) fail_msg("%s", err);
    sim_config cfg;
    if (scn_config(s, 0, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    cfg.block_sink = replay_discard_sink();
    trace_init(t);
    if (sim_run(&cfg, t, err, sizeof err) != 0) fail_msg("sim_run: %s", err);
    assert_int_equal(t->blocks.n, 0);
    scn_free(s);
}

/* Trace t replayed (replay_scenario) and simulated into out. */
static void replay_text(const trace *t, trace *out) {
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
    assert_int_equal(replay_heldout_halves(&m, "twice", NULL, &h, &first, &second, &predicted,
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
    replay_text(&first, &r1);
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
    assert_int_equal(replay_heldout_halves(&m, "across", NULL, &h, NULL, &second, &predicted,
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heldout_halves_make_the_host_calls),
        cmocka_unit_test(test_heldout_sync_across_the_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
