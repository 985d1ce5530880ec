/* test_cohort_props.c -- cohorts (issue 28, "cost by kernels, not blocks";
 * simcore/cohort.c, sim_config.cohorts) give the block-level trace exactly.
 *
 * Random scenarios (several streams, processes and priorities, copies,
 * host issue times spread so that arrivals fall inside kernels, big grids
 * of one block time so that waves repeat, some kernels with several block
 * times, stop times) run both ways, cohorts off and on; the cohort run's
 * cohorts are expanded (trace_expand_cohorts) and every block must have
 * the same SM, start and end as in the block-level run (compared by
 * kernel and block index: a cohort run lists them in another order),
 * every kernel and copy the same times, every queue event the same. The
 * scenarios must also make cohorts happen (many records, and waves jumped
 * over): a test that never took the path would prove nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../importers/schedlab_trace.h"
#include "../../server/formats/scenario.h"
#include "test_db_util.h"
#include "test_sim_util.h"
#include "test_cohort_util.h"
#include "test_sanitizer.h"

static int cmp_block(const void *a, const void *b) {
    const trace_block *x = a, *y = b;
    if (x->kernel != y->kernel) return x->kernel < y->kernel ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

typedef struct stats { size_t cohorts, jumped, blocks; } stats;

static void compare(const trace *plain, trace *coh, uint64_t seed, stats *sx) {
    sx->cohorts += coh->cohorts.n;
    for (size_t i = 0; i < coh->cohorts.n; i++)
        sx->jumped += coh->cohorts.v[i].count > coh->cohorts.v[i].per_wave;
    assert_int_equal(trace_block_total(coh), (int64_t)plain->blocks.n);
    assert_int_equal(trace_expand_cohorts(coh), 0);
    assert_int_equal(coh->blocks.n, plain->blocks.n);
    trace_block *a = malloc((plain->blocks.n + 1) * sizeof *a);
    assert_non_null(a);
    memcpy(a, plain->blocks.v, plain->blocks.n * sizeof *a);
    qsort(a, plain->blocks.n, sizeof *a, cmp_block);
    qsort(coh->blocks.v, coh->blocks.n, sizeof *coh->blocks.v, cmp_block);
    for (size_t i = 0; i < plain->blocks.n; i++) {
        const trace_block *x = &a[i], *y = &coh->blocks.v[i];
        if (x->kernel != y->kernel || x->index != y->index || x->sm != y->sm ||
            x->start != y->start || x->end != y->end)
            fail_msg("seed %llu, block %zu: blocks K%d #%d SM %d [%lld, %lld], cohorts K%d #%d "
                     "SM %d [%lld, %lld]", (unsigned long long)seed, i, x->kernel, x->index,
                     x->sm, (long long)x->start, (long long)x->end, y->kernel, y->index, y->sm,
                     (long long)y->start, (long long)y->end);
    }
    sx->blocks += plain->blocks.n;
    free(a);
    assert_int_equal(plain->kernels.n, coh->kernels.n);
    for (size_t i = 0; i < plain->kernels.n; i++) {
        const trace_kernel *x = &plain->kernels.v[i], *y = &coh->kernels.v[i];
        if (x->first_block != y->first_block || x->fully_dispatched != y->fully_dispatched ||
            x->end != y->end)
            fail_msg("seed %llu, kernel %zu: blocks %lld/%lld/%lld, cohorts %lld/%lld/%lld",
                     (unsigned long long)seed, i, (long long)x->first_block,
                     (long long)x->fully_dispatched, (long long)x->end,
                     (long long)y->first_block, (long long)y->fully_dispatched,
                     (long long)y->end);
    }
    assert_int_equal(plain->copies.n, coh->copies.n);
    for (size_t i = 0; i < plain->copies.n; i++) {
        assert_int_equal(plain->copies.v[i].start, coh->copies.v[i].start);
        assert_int_equal(plain->copies.v[i].end, coh->copies.v[i].end);
    }
    assert_int_equal(plain->queue_events.n, coh->queue_events.n);
    for (size_t i = 0; i < plain->queue_events.n; i++) {
        const trace_queue_event *x = &plain->queue_events.v[i], *y = &coh->queue_events.v[i];
        assert_int_equal(x->t, y->t);
        assert_int_equal(x->event, y->event);
        assert_string_equal(trace_str_get(plain, x->queue), trace_str_get(coh, y->queue));
        assert_string_equal(trace_str_get(plain, x->item), trace_str_get(coh, y->item));
    }
}

static void check_seed(uint64_t seed, int32_t placement, stats *sx) {
    static tb b;
    scenario(&b, seed, 4 + (size_t)(seed % 30));
    b.cfg.policy.placement = placement;
    trace plain, coh;
    b.cfg.cohorts = false;
    tb_run(&b, &plain);
    assert_int_equal(plain.cohorts.n, 0);
    b.cfg.cohorts = true;
    tb_run(&b, &coh);
    compare(&plain, &coh, seed, sx);
    trace_free(&plain);
    trace_free(&coh);
}

static void random_runs(const char *placement, uint64_t from) {
    stats sx = {0, 0, 0};
    int32_t p = sim_placement_find(placement);
    assert_true(p >= 0);
    /* (a quarter of the scenarios under the sanitizers: test_sanitizer.h) */
    uint64_t n = TEST_UNDER_ASAN ? 50 : 200;
    for (uint64_t seed = from; seed < from + n; seed++) check_seed(seed, p, &sx);
    printf("  %s: %d scenarios, %zu blocks: %zu cohort records, %zu of them over several "
           "waves\n", placement, (int)n, sx.blocks, sx.cohorts, sx.jumped);
    /* the path was taken, waves were jumped over (at least 10 and 1 a
     * scenario; most-room's 200 give 92,461 and 38,231) */
    assert_true(sx.cohorts > 10 * n);
    assert_true(sx.jumped > n);
}

static void test_random_most_room(void **state) {
    (void)state;
    random_runs("most-room", 1);
}

/* Round-robin's waves start where its turn is (cohort.c): scenarios whose
 * kernels leave the turn at every rank */
static void test_random_round_robin(void **state) {
    (void)state;
    random_runs("round-robin", 1001);
}

/* Placements whose blocks do not go round the SMs (spart's partitions)
 * place block by block: the switch changes nothing (cohort.c). */
static void test_random_other_placements(void **state) {
    (void)state;
    for (int32_t p = 0; p < (int32_t)sim_placement_count(); p++) {
        if (!sim_placement_partitioned(p)) continue;
        stats sx = {0, 0, 0};
        for (uint64_t seed = 501; seed <= 530; seed++) check_seed(seed, p, &sx);
        assert_int_equal(sx.cohorts, 0);
    }
}

/* By hand, against the rule (most-room paper §4.1: the SM with the most
 * room, ties in sm_order): 10 waves of 4 blocks per SM on an idle TX2
 * (2 SMs, 2048 threads: 4 blocks of 512), one block time of 1000 ns. Block
 * i goes to SM i mod 2 in each wave; waves start every 1000 ns; the
 * kernel ends at 10000. The cohort run has the waves as two records per
 * SM at most (the stretch, then the last wave). */
static void test_waves_by_hand(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 80, 512, 0, 1000);
    b.cfg.cohorts = true;
    trace t;
    tb_run(&b, &t);
    assert_int_equal(b.cfg.device.sms, 2);
    assert_true(t.cohorts.n <= 4);
    assert_int_equal(t.blocks.n, 0);
    assert_int_equal(t.kernels.v[0].end, 10000);
    assert_int_equal(t.kernels.v[0].fully_dispatched, 9000);
    assert_int_equal(trace_expand_cohorts(&t), 0);
    assert_int_equal(t.blocks.n, 80);
    qsort(t.blocks.v, t.blocks.n, sizeof *t.blocks.v, cmp_block);
    assert_int_not_equal(t.blocks.v[0].sm, t.blocks.v[1].sm);   /* ties: the next SM */
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *x = &t.blocks.v[i];
        assert_int_equal(x->index, (int32_t)i);
        assert_int_equal(x->sm, t.blocks.v[i % 2].sm);
        assert_int_equal(x->start, (x->index / 8) * 1000);
        assert_int_equal(x->end, x->start + 1000);
    }
    trace_free(&t);
}

/* By hand: waves jumped over stop before the next thing that happens (a
 * host op), not at it. The TX2 of test_waves_by_hand, K1's 80 blocks of
 * 1000 ns on a low-priority stream; K2 (one block of 512 threads) on a
 * high-priority stream is issued at 3000 ns, when K1's third wave ends.
 * At that instant the ends come first (blockq.h), then K2 arrives, then
 * dispatch serves the high-priority EE queue first (TX2 paper rule A2):
 * K2's block starts at 3000 ns, and K1 places the 7 blocks left room
 * for. Placing K1's fourth wave with the three before it would leave K2
 * no room until 4000 ns. */
static void test_wave_stops_before_host_op(void **state) {
    (void)state;
    for (int coh = 0; coh < 2; coh++) {
        tb b;
        tb_init(&b, "tx2");
        int32_t lo = tb_stream(&b, "LO", "P0", 0);
        int32_t hi = tb_stream(&b, "HI", "P0", -1);
        tb_kernel(&b, "K1", lo, 0, 80, 512, 0, 1000);
        tb_kernel(&b, "K2", hi, 3000, 1, 512, 0, 1000);
        b.cfg.cohorts = coh;
        trace t;
        tb_run(&b, &t);
        if (coh) assert_true(t.cohorts.n > 0);
        if (t.kernels.v[1].first_block != 3000)
            fail_msg("cohorts %s: K2's block starts at %lld; rule A2 gives it the room at "
                     "3000 ns", coh ? "on" : "off", (long long)t.kernels.v[1].first_block);
        assert_int_equal(trace_expand_cohorts(&t), 0);
        int at3000 = 0;
        for (size_t i = 0; i < t.blocks.n; i++)
            at3000 += t.blocks.v[i].kernel == 0 && t.blocks.v[i].start == 3000;
        assert_int_equal(at3000, 7);
        trace_free(&t);
    }
}

/* By hand: a wave that comes after a gap is a record of its own. On the
 * TX2 of test_waves_by_hand, K1 (80 blocks of 512 threads, 1000 ns, low
 * priority) runs waves at 0, 1000 and 2000 ns; K2 (4 blocks of 1024
 * threads, high priority) is issued at 2500 ns, when the GPU is full. At
 * 3000 ns K1's third wave ends and rule A2 gives K2 the whole GPU (R2:
 * 2048 threads a SM); K1's fourth wave (blocks 24-31) waits for K2's end,
 * 4000 ns. K2's block times are listed as five (1000 ns for each of its
 * four blocks, a fifth never used), so it is placed block by block and
 * leaves no cohort record: K1's record of 0-3000 ns stays the last on each
 * SM, and K1's next blocks continue its indices on the same SMs. Only the
 * time tells the two apart. Both ways, block by block. */
static void test_wave_after_a_gap(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    int32_t lo = tb_stream(&b, "LO", "P0", 0);
    int32_t hi = tb_stream(&b, "HI", "P0", -1);
    tb_kernel(&b, "K1", lo, 0, 80, 512, 0, 1000);
    static const int64_t k2_times[] = { 1000, 1000, 1000, 1000, 7 };
    tb_times(&b, tb_kernel(&b, "K2", hi, 2500, 4, 1024, 0, 1000), k2_times, 5);
    trace plain, coh;
    b.cfg.cohorts = false;
    tb_run(&b, &plain);
    b.cfg.cohorts = true;
    tb_run(&b, &coh);
    /* K2 as blocks, K1 as cohorts on both sides of it */
    assert_int_equal(coh.blocks.n, 4);
    size_t k1_records = 0;
    for (size_t i = 0; i < coh.cohorts.n; i++) k1_records += coh.cohorts.v[i].kernel == 0;
    assert_int_equal(k1_records, 4);
    assert_int_equal(plain.kernels.v[1].first_block, 3000);
    assert_int_equal(plain.kernels.v[1].end, 4000);
    for (size_t i = 0; i < plain.blocks.n; i++) {
        const trace_block *x = &plain.blocks.v[i];
        if (x->kernel == 0 && x->index >= 24 && x->index < 32) assert_int_equal(x->start, 4000);
    }
    assert_int_equal(plain.kernels.v[0].end, 4000 + 7 * 1000);
    stats sx = {0, 0, 0};
    compare(&plain, &coh, 0, &sx);
    trace_free(&plain);
    trace_free(&coh);
}

/* Where cohorts apply (sim_cohorts_apply; cohort.c's "Where it does not
 * apply", which budget.c's estimate of a run's records reads too): asked
 * for, under the shared driver with fixed block times, no dispatch
 * latency, a placement with a wave, and a device without carveouts. */
static void test_where_cohorts_apply(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 80, 512, 0, 1000);
    assert_false(sim_cohorts_apply(tb_config(&b)));   /* not asked for */
    b.cfg.cohorts = true;
    assert_true(sim_cohorts_apply(&b.cfg));
    b.cfg.policy.placement = sim_placement_find("round-robin");
    assert_true(sim_cohorts_apply(&b.cfg));
    b.cfg.policy.placement = sim_placement_find("spart");
    assert_false(sim_cohorts_apply(&b.cfg));
    b.cfg.policy.placement = 0;
    b.cfg.policy.dispatch_latency = 1;
    assert_false(sim_cohorts_apply(&b.cfg));
    b.cfg.policy.dispatch_latency = 0;
    b.cfg.policy.driver = sim_policy_find(SIM_TABLE_DRIVER, "time-slice");
    assert_false(sim_cohorts_apply(&b.cfg));
    b.cfg.policy.driver = 0;
    b.cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    assert_false(sim_cohorts_apply(&b.cfg));
    b.cfg.policy.execution = 0;
    assert_true(sim_cohorts_apply(&b.cfg));
    /* the H100's shared-memory carveouts (H100-C1, carveout.h): an SM's
     * configuration changes with what it runs */
    tb_init(&b, "h100");
    s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 8000, 512, 0, 1000);
    b.cfg.cohorts = true;
    assert_true(tb_config(&b)->device.nsmem_carveouts > 0);
    assert_false(sim_cohorts_apply(&b.cfg));
    b.cfg.device.nsmem_carveouts = 0;
    assert_true(sim_cohorts_apply(&b.cfg));
}

/* By hand, against round-robin's rule (most-room paper §4.1's "pure
 * round-robin policy"; round_robin.c: the next SM after the last one used
 * that has room): on the idle TX2, K1's 3 blocks go to ranks 0, 1, 0 and
 * leave the turn at rank 1, so K2's 80 blocks (10 waves of 4 a SM, issued
 * after K1 ends) start there: K2's block i on the SM K1's block (i + 1)
 * mod 2 used, where most-room would put block 0 on rank 0 again. */
static void test_round_robin_by_hand(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    b.cfg.policy.placement = sim_placement_find("round-robin");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 3, 512, 0, 500);
    tb_kernel(&b, "K2", s1, 0, 80, 512, 0, 1000);
    b.cfg.cohorts = true;
    trace t;
    tb_run(&b, &t);
    assert_true(t.cohorts.n > 0);
    assert_true(t.cohorts.n <= 6);
    assert_int_equal(t.kernels.v[1].first_block, 500);
    assert_int_equal(t.kernels.v[1].end, 500 + 10000);
    assert_int_equal(trace_expand_cohorts(&t), 0);
    assert_int_equal(t.blocks.n, 83);
    qsort(t.blocks.v, t.blocks.n, sizeof *t.blocks.v, cmp_block);
    const trace_block *k1 = t.blocks.v, *k2 = t.blocks.v + 3;
    assert_int_not_equal(k1[0].sm, k1[1].sm);
    assert_int_equal(k1[2].sm, k1[0].sm);
    for (int32_t i = 0; i < 80; i++) {
        assert_int_equal(k2[i].kernel, 1);
        assert_int_equal(k2[i].sm, k1[(i + 1) % 2].sm);
        assert_int_equal(k2[i].start, 500 + (i / 8) * 1000);
    }
    trace_free(&t);
}

static void same_cohorts(const trace *a, const trace *b) {
    assert_int_equal(a->cohorts.n, b->cohorts.n);
    assert_int_equal(a->blocks.n, b->blocks.n);
    for (size_t i = 0; i < a->cohorts.n; i++)
        assert_memory_equal(&a->cohorts.v[i], &b->cohorts.v[i], sizeof *a->cohorts.v);
    assert_int_equal(trace_block_total(a), trace_block_total(b));
}

/* A cohort run kept: stored (db/cohorts.sql) and loaded back, written as
 * schedlab-trace/1 and read back, it has the same cohorts and blocks. */
static void test_store_and_json(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "K1", s1, 0, 80, 512, 0, 1000);
    sim_op *o = tb_kernel(&b, "K2", s1, 0, 20, 256, 0, 1000);
    int64_t times[2] = {700, 900};   /* several block times: block by block */
    tb_times(&b, o, times, 2);
    b.cfg.cohorts = true;
    trace t;
    tb_run(&b, &t);
    assert_true(t.cohorts.n > 0);
    assert_int_equal(t.blocks.n, 20);
    tdb x;
    assert_int_equal(tdb_open(&x, "cohort"), 0);
    char run[DB_SLUG_SIZE], err[512];
    tdb_store_whole(x.d, &t, "cohort.json", run);
    assert_int_equal(tdb_run_rows(x.d, "cohorts", run), (int64_t)t.cohorts.n);
    trace back;
    trace_init(&back);
    assert_int_equal(db_load_run(x.d, run, DB_LOAD_ALL, &back, err, sizeof err), 0);
    same_cohorts(&t, &back);
    trace_free(&back);
    tdb_close(&x);
    tj_buf jb = {0};
    assert_int_equal(tj_write_trace(&t, &jb), 0);
    assert_non_null(strstr(jb.s, "\"cohorts\":["));
    trace_init(&back);
    if (imp_trace_json_parse(jb.s, jb.len, "cohort.json", &back, err, sizeof err) != 0) fail_msg("%s", err);
    same_cohorts(&t, &back);
    assert_null(trace_get_meta(&back, "import_warnings"));   /* every key written is one read */
    trace_free(&back);
    /* a bad cohort is refused, naming the place */
    char *bad = strstr(jb.s, "\"per_wave\":");
    assert_non_null(bad);
    memcpy(bad, "\"per_wave\":0", 12);
    trace_init(&back);
    assert_int_not_equal(imp_trace_json_parse(jb.s, jb.len, "cohort.json", &back, err, sizeof err), 0);
    assert_non_null(strstr(err, "cohorts[0]"));
    trace_free(&back);
    tj_buf_free(&jb);
    /* a block-level run writes no cohorts: traces read as they always did */
    b.cfg.cohorts = false;
    trace plain;
    tb_run(&b, &plain);
    jb = (tj_buf){0};
    assert_int_equal(tj_write_trace(&plain, &jb), 0);
    assert_null(strstr(jb.s, "cohorts"));
    tj_buf_free(&jb);
    trace_free(&plain);
    trace_free(&t);
}

static int parse(const char *txt, scn_scenario **s, char *err, size_t errlen) {
    return scn_parse(txt, strlen(txt), "t.json", s, err, errlen);
}

static const char SCN_FMT[] =
    "{\"schema\":\"schedlab-scenario/1\",\"device\":\"tx2\"%s,\"ops\":["
    "{\"kernel\":\"K1\",\"stream\":\"null\",\"at\":0,\"blocks\":%s,"
    "\"threads\":512,\"block_time\":%s}]}";

/* A scenario of 100 blocks (`extra` keys, `block_time`) run with a limit of
 * 10 records fails, saying so; the parsed scenario is kept in *keep (or
 * freed when keep is NULL). */
static void over_ten_records(const char *extra, const char *block_time, scn_scenario **keep) {
    char err[512], txt[1024];
    scn_scenario *s = NULL;
    snprintf(txt, sizeof txt, SCN_FMT, extra, "100", block_time);
    if (parse(txt, &s, err, sizeof err) != 0) fail_msg("%s", err);
    sim_config cfg;
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    cfg.max_records = 10;
    trace t;
    trace_init(&t);
    assert_int_not_equal(sim_run(&cfg, &t, err, sizeof err), 0);
    assert_non_null(strstr(err, "records more than 10 blocks and cohorts"));
    trace_free(&t);
    if (keep) *keep = s;
    else scn_free(s);
}

/* The scenario's "cohorts" (docs/scenario-format.md): the limit moves from
 * the blocks (SCN_MAX_TOTAL_BLOCKS, at parse) to the records a run keeps
 * (SCN_MAX_COHORTS, as it runs), with a message in the same style. */
static void test_scenario_limits(void **state) {
    (void)state;
    char err[512], txt[1024];
    scn_scenario *s = NULL;
    const char *fmt = SCN_FMT;
    snprintf(txt, sizeof txt, fmt, "", "60000000", "1000");
    assert_int_not_equal(parse(txt, &s, err, sizeof err), 0);
    assert_non_null(strstr(err, "more than 50000000 blocks in all"));
    snprintf(txt, sizeof txt, fmt, ",\"cohorts\":\"yes\"", "80", "1000");
    assert_int_not_equal(parse(txt, &s, err, sizeof err), 0);
    assert_non_null(strstr(err, "cohorts: must be true or false"));
    snprintf(txt, sizeof txt, fmt, ",\"cohorts\":true", "60000000", "1000");
    if (parse(txt, &s, err, sizeof err) != 0) fail_msg("%s", err);
    sim_config cfg;
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    assert_true(cfg.cohorts);
    assert_int_equal(cfg.max_records, SCN_MAX_COHORTS);
    trace t;
    trace_init(&t);
    assert_int_equal(sim_run(&cfg, &t, err, sizeof err), 0);   /* 60 M blocks, few records */
    assert_int_equal(trace_block_total(&t), 60000000);
    assert_true(t.cohorts.n + t.blocks.n < 100);
    trace_free(&t);
    scn_free(s);
    /* blocks that cannot be cohorts count one record each */
    over_ten_records(",\"cohorts\":true", "[700, 900]", NULL);
    /* nor do runs that cohorts cannot help (a time-sliced driver leaves
     * the fused scheduler): asked for, the limit holds all the same, or a
     * scenario past the parse's block limit would keep every block */
    over_ten_records(",\"cohorts\":true,\"policy\":{\"contexts\":\"time-slice\"}", "1000", &s);
    /* the server's budget lowers the limit (scn_limit_records) */
    scn_limit_records(s, 50);
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.max_records, 50);
    scn_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_most_room),
        cmocka_unit_test(test_random_round_robin),
        cmocka_unit_test(test_random_other_placements),
        cmocka_unit_test(test_waves_by_hand),
        cmocka_unit_test(test_round_robin_by_hand),
        cmocka_unit_test(test_wave_stops_before_host_op),
        cmocka_unit_test(test_wave_after_a_gap),
        cmocka_unit_test(test_where_cohorts_apply),
        cmocka_unit_test(test_store_and_json),
        cmocka_unit_test(test_scenario_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
