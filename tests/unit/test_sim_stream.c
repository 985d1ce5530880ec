/* test_sim_stream.c -- sim_run with a block sink (sim.h, sim_block_sink).
 *
 * A sink must see exactly the blocks that trace->blocks holds without one,
 * record for record and in the same order, in batches of the size asked
 * for, while everything else of the trace stays as without a sink. Checked
 * on every run of every shipped scenario (of a warp-level one, its base
 * run; not the five biggest warp-level ones: below) and on random
 * scenarios, with
 * small batches so that batch boundaries fall everywhere; then a sink that
 * fails, and the end-to-end path the bench and a server use: blocks
 * streamed into SQLite (db_run_add_blocks) read back equal to the
 * in-memory trace stored with db_store_run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <unistd.h>

#include "../../db/db.h"
#include "../../server/formats/kernlib.h"
#include "../../server/formats/scenario.h"
#include "test_sanitizer.h"
#include "test_sim_util.h"

/* What a sink saw: every block, and the size of every batch. */
typedef struct seen {
    trace_block *v;
    size_t n, cap;
    size_t calls, small_calls;   /* small: fewer blocks than the batch */
    size_t batch;
    int fail_at_call;            /* return -1 on this call (1-based); 0 = never */
} seen;

static int collect(void *ctx, const trace_block *b, size_t n) {
    seen *s = ctx;
    s->calls++;
    assert_true(n >= 1);
    assert_true(n <= s->batch);
    if (n < s->batch) s->small_calls++;
    if (s->fail_at_call && (int)s->calls == s->fail_at_call) return -1;
    if (s->n + n > s->cap) {
        s->cap = (s->n + n) * 2;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        assert_non_null(s->v);
    }
    memcpy(s->v + s->n, b, n * sizeof *b);
    s->n += n;
    return 0;
}

static void assert_blocks_equal(const trace_block *a, const trace_block *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (a[i].kernel != b[i].kernel || a[i].index != b[i].index || a[i].sm != b[i].sm ||
            a[i].start != b[i].start || a[i].end != b[i].end)
            fail_msg("block %zu: kernel %d index %d SM %d [%lld, %lld), expected kernel %d "
                     "index %d SM %d [%lld, %lld)", i, a[i].kernel, a[i].index, a[i].sm,
                     (long long)a[i].start, (long long)a[i].end, b[i].kernel, b[i].index,
                     b[i].sm, (long long)b[i].start, (long long)b[i].end);
    }
}

/* Everything but the blocks is as without a sink, string ids included. */
static void assert_rest_equal(const trace *u, const trace *t) {
    assert_string_equal(u->name, t->name);
    assert_string_equal(u->source, t->source);
    assert_int_equal(u->strs.n, t->strs.n);
    for (size_t i = 1; i < t->strs.n; i++)
        assert_string_equal(trace_str_get(u, (trace_str)i), trace_str_get(t, (trace_str)i));
    assert_int_equal(u->meta.n, t->meta.n);
    assert_int_equal(u->kernels.n, t->kernels.n);
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *a = &u->kernels.v[i], *b = &t->kernels.v[i];
        assert_int_equal(a->name, b->name);
        assert_int_equal(a->stream, b->stream);
        assert_int_equal(a->process, b->process);
        assert_int_equal(a->priority, b->priority);
        assert_int_equal(a->issue, b->issue);
        assert_int_equal(a->first_block, b->first_block);
        assert_int_equal(a->fully_dispatched, b->fully_dispatched);
        assert_int_equal(a->end, b->end);
        assert_int_equal(a->blocks, b->blocks);
    }
    assert_int_equal(u->copies.n, t->copies.n);
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *a = &u->copies.v[i], *b = &t->copies.v[i];
        assert_int_equal(a->name, b->name);
        assert_int_equal(a->engine, b->engine);
        assert_int_equal(a->issue, b->issue);
        assert_int_equal(a->start, b->start);
        assert_int_equal(a->end, b->end);
    }
    assert_int_equal(u->queue_events.n, t->queue_events.n);
    for (size_t i = 0; i < t->queue_events.n; i++) {
        const trace_queue_event *a = &u->queue_events.v[i], *b = &t->queue_events.v[i];
        assert_int_equal(a->t, b->t);
        assert_int_equal(a->queue, b->queue);
        assert_int_equal(a->item, b->item);
        assert_int_equal(a->event, b->event);
    }
}

/* Run cfg without and with a sink of `batch` blocks; the sink must see
 * t's blocks. Returns the number of blocks. */
static size_t check_config(const sim_config *cfg, size_t batch) {
    char err[256];
    trace t, u;
    trace_init(&t);
    if (sim_run(cfg, &t, err, sizeof err) != 0) fail_msg("sim_run: %s", err);
    assert_null(cfg->block_sink);

    seen s = {.batch = batch ? batch : SIM_SINK_BATCH};
    sim_block_sink sink = {.ctx = &s, .emit = collect, .batch = batch};
    sim_config c = *cfg;
    c.block_sink = &sink;
    trace_init(&u);
    if (sim_run(&c, &u, err, sizeof err) != 0) fail_msg("sim_run with a sink: %s", err);
    assert_false(u.oom);
    assert_int_equal(u.blocks.n, 0);            /* every block went to the sink */
    /* no more than a batch was kept (capacities grow from 16 by doubling),
     * unless the driver may pause blocks (contexts other than shared, with
     * or without a pause in this run): those wait for their end (sim.h) */
    /* (warp-level runs: blocks wait for their last warp likewise) */
    if (cfg->policy.driver == 0 && cfg->policy.execution == 0)
        assert_true(u.blocks.cap <= (s.batch < 16 ? 16 : 2 * s.batch));
    assert_int_equal(s.n, t.blocks.n);
    assert_blocks_equal(s.v, t.blocks.v, t.blocks.n);
    /* full batches, then one short batch if the count is not a multiple */
    assert_int_equal(s.calls, (t.blocks.n + s.batch - 1) / s.batch);
    assert_int_equal(s.small_calls, t.blocks.n % s.batch ? 1 : 0);
    assert_rest_equal(&u, &t);
    size_t n = t.blocks.n;
    free(s.v);
    trace_free(&u);
    trace_free(&t);
    return n;
}

/* ---- shipped scenarios ------------------------------------------------------ */

static void scenario_dir(char *buf, size_t n) {
    const char *root = getenv("SCHEDLAB_ROOT");
    snprintf(buf, n, "%s%sscenarios", root ? root : "", root ? "/" : "");
}

static void test_shipped_scenarios(void **state) {
    (void)state;
    char dir[1024];
    scenario_dir(dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) fail_msg("cannot open %s (set SCHEDLAB_ROOT or run from the repository root)", dir);
    /* the kernel library the QAWS Fig. 4 scenarios name (kernlib.h) */
    char kdir[1100], kerr[512];
    snprintf(kdir, sizeof kdir, "%s/kernels", dir);
    if (kl_open(kdir, kerr, sizeof kerr)) fail_msg("%s", kerr);
    size_t files = 0, runs = 0, blocks = 0, crossed = 0, skipped_big = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l <= 5 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
        char path[2048], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        scn_scenario *s = NULL;
        if (scn_parse_file(path, &s, err, sizeof err) != 0) fail_msg("%s", err);
        files++;
        for (size_t r = 0; r < scn_run_count(s); r++) {
            sim_config cfg;
            assert_int_equal(scn_config(s, r, &cfg, err, sizeof err), 0);
            runs++;
            /* (warp-level runs, 70% of this test's time, in the plain run
             * only: test_sanitizer.h; test_warp* take them under it. Of a
             * warp-level scenario the base run only: its variants move a
             * device field or the warp policy, not the sink's path, and
             * the h100 Table 1 ones simulate 132 SMs) */
            if (TEST_UNDER_ASAN && cfg.policy.execution != 0) continue;
            if (r > 0 && cfg.policy.execution != 0) continue;
            /* (nor the h100's 132-SM most-room runs and Table 4's L1 one:
             * 7 of the 11 CPU-s of the 34 warp-level base runs on a 2-core
             * AMD EPYC, twice here; test_h200_mostroom and golden.test.mjs
             * run them whole, and the sink they would take is the one the
             * 29 others take) */
            if (cfg.policy.execution != 0 && (strncmp(e->d_name, "most-room-h100-", 15) == 0 ||
                                              strcmp(e->d_name, "most-room-table4-l1.json") == 0)) {
                skipped_big++;
                continue;
            }
            size_t n = check_config(&cfg, 7);
            crossed += n > 14;
            blocks += n;
            /* (batches of one and of SIM_SINK_BATCH in the plain run; the
             * random scenarios below take them under the sanitizers too:
             * test_sanitizer.h. Warp-level runs take the batches of 7 only:
             * the sink is the engine's, whatever times the blocks, and
             * their runs of a few dozen blocks each took 35 s of this
             * test with all three, 12 s with one) */
            if (!TEST_UNDER_ASAN && cfg.policy.execution == 0) {
                assert_int_equal(check_config(&cfg, 1), n);
                assert_int_equal(check_config(&cfg, 0), n);   /* SIM_SINK_BATCH: one short batch */
            }
        }
        scn_free(s);
    }
    closedir(d);
    kl_close();
    /* 34 warp-level ones (most-room Tables 1, 3 and 4: 12; most-room on
     * the h100: 4, one with two variants, two with one; QAWS Fig. 4: 14,
     * five runs each; QAWS Fig. 3: five runs, its four panels and
     * GPGPU-Sim's LRR), 5 h100-* (one with a variant), 12 gcaps-*, 7 tx2-* */
    assert_int_equal(files, 64);
    assert_int_equal(runs, 154);
    /* the four most-room-h100-* scenarios and most-room-table4-l1, their
     * base runs in the plain run (under the sanitizers no warp-level one) */
    assert_int_equal(skipped_big, TEST_UNDER_ASAN ? 0 : 5);
    /* the batches of 7 really were split: runs of three and more batches */
    assert_true(crossed >= 6);
    assert_true(blocks > 200);
}

/* ---- random scenarios --------------------------------------------------------- */

static const char *const presets[] = {"tx2", "pascal-gilman", "orin-nano", "rtx2080ti", "h100"};
static const char *const snames[] = {"S0", "S1", "S2", "S3", "S4", "S5"};
static const char *const onames[] = {"op0", "op1", "op2", "op3", "op4", "op5", "op6", "op7",
                                     "op8", "op9", "op10", "op11", "op12", "op13", "op14",
                                     "op15"};
static const char *const pnames[] = {"P0", "P1"};

/* Streams in one or two processes (NULL streams and priorities among them),
 * kernels of 1..300 blocks, copies and host syncs at coarse times so that
 * ties happen, either placement policy, with and without latencies. */
static void generate(tb *b, uint64_t seed) {
    uint64_t s = seed;
    tb_init(b, presets[tb_rng_range(&s, 0, 4)]);
    const sim_device *d = &b->cfg.device;
    b->cfg.policy.placement = (int32_t)tb_rng_range(&s, 0, 1);
    if (tb_rng_range(&s, 0, 2) == 0) b->cfg.policy.launch_latency = tb_rng_range(&s, 1, 20000);
    if (tb_rng_range(&s, 0, 2) == 0) b->cfg.policy.dispatch_latency = tb_rng_range(&s, 1, 3000);
    int nproc = (int)tb_rng_range(&s, 1, 2);
    int nstreams = (int)tb_rng_range(&s, 1, 6);
    for (int i = 0; i < nstreams; i++) {
        const char *p = pnames[tb_rng_range(&s, 0, nproc - 1)];
        int64_t k = tb_rng_range(&s, 0, 4);
        if (k == 0) tb_stream(b, "null", p, SIM_PRIO_NONE);
        else tb_stream(b, snames[i], p, k == 1 ? SIM_PRIO_NONE : (int32_t)tb_rng_range(&s, -2, 0));
    }
    int nops = (int)tb_rng_range(&s, 3, 16);
    for (int i = 0; i < nops; i++) {
        int32_t st = (int32_t)tb_rng_range(&s, 0, (int64_t)b->nstreams - 1);
        int64_t at = tb_rng_range(&s, 0, 5) * 50000;
        int64_t kind = tb_rng_range(&s, 0, 9);
        if (kind < 7) {
            int32_t threads = (int32_t)tb_rng_range(&s, 1, d->max_threads_per_block / 32) * 32;
            int64_t smem = tb_rng_range(&s, 0, 1) ? 0 : tb_rng_range(&s, 0, d->max_smem_per_block);
            sim_op *o = tb_kernel(b, onames[i], st, at, tb_rng_range(&s, 1, 300), threads, smem, 0);
            int64_t times[3];
            size_t nt = (size_t)tb_rng_range(&s, 1, 3);
            for (size_t j = 0; j < nt; j++) times[j] = tb_rng_range(&s, 0, 1) ? 100000 : tb_rng_range(&s, 1, 200000);
            tb_times(b, o, times, nt);
        } else if (kind < 9) {
            tb_copy(b, onames[i], st, at, tb_rng_range(&s, 1, 16) * MIB,
                    (trace_copy_dir)tb_rng_range(&s, 0, 2));
        } else {
            tb_op(b, SIM_OP_SYNC, onames[i], st, at);
        }
    }
}

static void test_random_scenarios(void **state) {
    (void)state;
    tb *b = malloc(sizeof *b);
    assert_non_null(b);
    static const size_t batches[] = {7, 1, 3, 64, 1000};
    size_t total = 0, multi = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        generate(b, seed);
        size_t batch = batches[seed % 5];
        size_t n = check_config(tb_config(b), batch);
        total += n;
        multi += n > 2 * batch;
    }
    free(b);
    assert_true(total > 100000);
    assert_true(multi > 200);   /* most runs crossed several batch boundaries */
}

/* ---- a sink that fails ---------------------------------------------------------- */

static void fail_config(tb *b) {
    tb_init(b, "tx2");
    int32_t s1 = tb_stream(b, "S1", "P0", SIM_PRIO_NONE);
    tb_kernel(b, "K1", s1, 0, 40, 256, 0, 1000);
}

static void test_failing_sink(void **state) {
    (void)state;
    tb *b = malloc(sizeof *b);
    assert_non_null(b);
    fail_config(b);
    seen s = {.batch = 7, .fail_at_call = 2};
    sim_block_sink sink = {.ctx = &s, .emit = collect, .batch = 7};
    b->cfg.block_sink = &sink;
    char err[256];
    trace t;
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(b), &t, err, sizeof err), -1);
    assert_string_equal(err, "block sink failed on blocks[7..13]; the run stopped there");
    assert_int_equal(s.calls, 2);   /* nothing more was handed over */
    assert_int_equal(s.n, 7);
    trace_free(&t);
    free(s.v);

    /* the last, short batch fails: the message names it */
    s = (seen){.batch = 7, .fail_at_call = 6};
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(b), &t, err, sizeof err), -1);
    assert_string_equal(err, "block sink failed on blocks[35..39]; the run stopped there");
    assert_int_equal(s.calls, 6);
    assert_int_equal(s.n, 35);
    trace_free(&t);
    free(s.v);

    /* a sink without a function is a config error, before anything runs */
    sink.emit = NULL;
    trace_init(&t);
    assert_int_equal(sim_run(tb_config(b), &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "block_sink.emit: missing"));
    assert_int_equal(t.kernels.n, 0);
    trace_free(&t);
    free(b);
}

/* ---- placed(): how far a run got, cohorts counted block by block ----------------- */

/* What emit() and placed() saw: the blocks emitted, each count placed()
 * was given, and the call of placed() to refuse (1-based; 0 never). */
typedef struct placed_seen {
    size_t emitted;
    int64_t v[64];
    size_t calls;
    size_t fail_at_call;
} placed_seen;

static int count_emitted(void *ctx, const trace_block *b, size_t n) {
    (void)b;
    ((placed_seen *)ctx)->emitted += n;
    return 0;
}

static int count_placed(void *ctx, int64_t placed) {
    placed_seen *p = ctx;
    assert_true(p->calls < sizeof p->v / sizeof p->v[0]);
    p->v[p->calls++] = placed;
    return p->fail_at_call && p->calls == p->fail_at_call ? -1 : 0;
}

/* 10 kernels of 80 blocks one after another on the idle TX2 (2 SMs, 4
 * blocks of 512 threads each; cohort.c places each kernel's waves as a
 * few records): sim.h's placed() is called once `batch` (50) more blocks
 * are placed since its last call, with all placed so far, cohorts' blocks
 * counted, with cohorts on and off alike. A cohort run emits few of its
 * 800 blocks, so a caller that asked only at emit() could not stop it (a
 * cancelled replay of the Rodinia Gaussian, 4.29 G blocks, ran its
 * simulations to their end). Non-zero stops the run. */
static void test_placed(void **state) {
    (void)state;
    for (int cohorts = 1; cohorts >= 0; cohorts--) {
        tb *b = malloc(sizeof *b);
        assert_non_null(b);
        tb_init(b, "tx2");
        int32_t s1 = tb_stream(b, "S1", "P0", SIM_PRIO_NONE);
        for (int k = 0; k < 10; k++) tb_kernel(b, "K", s1, 0, 80, 512, 0, 1000);
        b->cfg.cohorts = cohorts;
        placed_seen p = {0};
        sim_block_sink sink = {.ctx = &p, .emit = count_emitted, .batch = 50,
                               .placed = count_placed};
        b->cfg.block_sink = &sink;
        char err[256];
        trace t;
        trace_init(&t);
        assert_int_equal(sim_run(tb_config(b), &t, err, sizeof err), 0);
        assert_int_equal(t.kernels.v[9].end, 10 * 10000);   /* 10 waves of 1000 ns each */
        int64_t kept = (int64_t)p.emitted;
        for (size_t i = 0; i < t.cohorts.n; i++) kept += t.cohorts.v[i].count;
        assert_int_equal(kept, 800);
        if (cohorts) assert_true(p.emitted <= 80);   /* the rest are cohorts */
        else assert_int_equal(p.emitted, 800);
        assert_true(p.calls >= 2);
        assert_true(p.v[0] >= 50);
        for (size_t i = 1; i < p.calls; i++) assert_true(p.v[i] >= p.v[i - 1] + 50);
        /* the last call: within a batch and the last kernel of the end */
        assert_true(p.v[p.calls - 1] <= 800);
        assert_true(p.v[p.calls - 1] > 800 - 50 - 80);
        trace_free(&t);

        /* refused on its second call: the run stops there */
        p = (placed_seen){.fail_at_call = 2};
        trace_init(&t);
        assert_int_equal(sim_run(tb_config(b), &t, err, sizeof err), -1);
        char want[128];
        snprintf(want, sizeof want, "the block sink stopped the run after %lld blocks placed",
                 (long long)p.v[1]);
        assert_string_equal(err, want);
        assert_int_equal(p.calls, 2);
        assert_true(p.v[1] < 800);
        trace_free(&t);
        free(b);
    }
}

/* ---- streamed into SQLite ----------------------------------------------------------- */

typedef struct db_sink {
    db_run_writer *w;
    size_t calls;
    char err[256];
} db_sink;

static int to_db(void *ctx, const trace_block *b, size_t n) {
    db_sink *s = ctx;
    s->calls++;
    return db_run_add_blocks(s->w, b, n, s->err, sizeof s->err);
}

static int on_run(void *ctx, const db_run *r) {
    *(db_summary *)ctx = r->summary;
    return 0;
}

static void test_stream_to_db(void **state) {
    (void)state;
    /* under $TMPDIR where `make test` puts a tmpfs (test_db_util.h) */
    const char *tmp = getenv("TMPDIR");
    char dir[64], path[96], err[256];
    snprintf(dir, sizeof dir, "%s/schedlab-test-stream-XXXXXX",
             tmp && *tmp && strlen(tmp) <= 24 ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/s.db", dir);
    db *d;
    assert_int_equal(db_open(path, &d, err, sizeof err), 0);
    char exp[DB_SLUG_SIZE], mem[DB_SLUG_SIZE], str[DB_SLUG_SIZE];
    assert_int_equal(db_create_experiment(d, "e", NULL, "scenario", NULL, NULL, exp, err,
                                          sizeof err), 0);
    tb *b = malloc(sizeof *b);
    assert_non_null(b);
    generate(b, 11);
    const sim_config *cfg = tb_config(b);

    trace t;
    trace_init(&t);
    assert_int_equal(sim_run(cfg, &t, err, sizeof err), 0);
    assert_true(t.blocks.n > 200);
    assert_int_equal(db_store_run(d, exp, "memory", &t, mem, err, sizeof err), 0);

    db_sink s = {0};
    sim_block_sink sink = {.ctx = &s, .emit = to_db, .batch = 7};
    sim_config c = *cfg;
    c.block_sink = &sink;
    trace u;
    trace_init(&u);
    assert_int_equal(db_run_begin(d, exp, "stream", str, &s.w, err, sizeof err), 0);
    assert_int_equal(sim_run(&c, &u, err, sizeof err), 0);
    assert_int_equal(db_run_finish(s.w, &u, err, sizeof err), 0);
    assert_int_equal(s.calls, (t.blocks.n + 6) / 7);

    trace lm, ls;
    trace_init(&lm);
    trace_init(&ls);
    assert_int_equal(db_load_run(d, mem, DB_LOAD_ALL, &lm, err, sizeof err), 0);
    assert_int_equal(db_load_run(d, str, DB_LOAD_ALL, &ls, err, sizeof err), 0);
    assert_int_equal(ls.blocks.n, t.blocks.n);
    assert_blocks_equal(ls.blocks.v, t.blocks.v, t.blocks.n);
    assert_int_equal(ls.kernels.n, lm.kernels.n);
    assert_int_equal(ls.queue_events.n, lm.queue_events.n);
    assert_int_equal(ls.copies.n, lm.copies.n);
    db_summary sm, ss;
    assert_int_equal(db_get_run(d, mem, on_run, &sm, err, sizeof err), 0);
    assert_int_equal(db_get_run(d, str, on_run, &ss, err, sizeof err), 0);
    assert_int_equal(ss.kernels, sm.kernels);
    assert_int_equal(ss.blocks, sm.blocks);
    assert_int_equal(ss.copies, sm.copies);
    assert_int_equal(ss.queue_events, sm.queue_events);
    assert_int_equal(ss.t_min, sm.t_min);
    assert_int_equal(ss.t_max, sm.t_max);
    assert_int_equal(ss.sms, sm.sms);
    assert_int_equal(ss.max_block_dur, sm.max_block_dur);
    assert_int_equal(ss.blocks, (int64_t)t.blocks.n);

    trace_free(&lm);
    trace_free(&ls);
    trace_free(&u);
    trace_free(&t);
    free(b);
    db_close(d);
    const char *suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char p[96];
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_scenarios),
        cmocka_unit_test(test_random_scenarios),
        cmocka_unit_test(test_failing_sink),
        cmocka_unit_test(test_placed),
        cmocka_unit_test(test_stream_to_db),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
