/* test_sim_props.c -- properties of the simulator over random scenarios.
 *
 * Several hundred scenarios from fixed seeds (a splitmix64 PRNG here, so the
 * same scenarios every run): small presets, one or two processes, streams
 * with and without priorities and NULL streams, kernels, copies and host
 * syncs at coarse times (so that ties happen), both placement policies,
 * with and without latencies. For each one:
 *   - every kernel ran every block exactly once, every copy ran;
 *   - no SM ever holds more threads, warps, blocks, registers or shared
 *     memory than it has (R1-R3);
 *   - every stream is FIFO: an op starts only after the op before it in its
 *     stream completed (G1, G4, C4, syncs);
 *   - X1: in every EE queue a kernel starts only after the kernel ahead of
 *     it is fully dispatched;
 *   - A2: no block of a kernel starts while a higher-priority EE queue of its
 *     process holds a kernel;
 *   - the scheduler never idles: whenever a kernel that may place blocks
 *     (X1, A2) still has blocks waiting, none of them fits on any SM;
 *   - N1/N2: a NULL-stream op moves on only after the earlier-launched work
 *     of the other streams completed, and the reverse;
 *   - copy engines serve one copy at a time, in CE queue order;
 *   - the same config gives the identical trace, record for record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_sim_util.h"

#define NSEEDS 1000
#define US 1000LL

static const char *const presets[] = { "tx2", "pascal-gilman", "orin-nano", "rtx2080ti",
                                       "isca17-gpgpusim" };
static const char *const snames[] = { "S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7" };
static const char *const onames[] = {
    "op0", "op1", "op2", "op3", "op4", "op5", "op6", "op7", "op8", "op9", "op10", "op11",
    "op12", "op13", "op14", "op15", "op16", "op17", "op18", "op19",
};
static const char *const pnames[] = { "P0", "P1" };

typedef struct gen {
    bool has_sync;
    bool zero_dispatch;
} gen;

static void generate(tb *b, uint64_t seed, gen *g) {
    uint64_t s = seed;
    tb_init(b, presets[tb_rng_range(&s, 0, 4)]);
    const sim_device *d = &b->cfg.device;
    b->cfg.policy.placement = (int32_t)tb_rng_range(&s, 0, 1);
    if (tb_rng_range(&s, 0, 3) == 0) b->cfg.policy.launch_latency = tb_rng_range(&s, 1, 50 * US);
    if (tb_rng_range(&s, 0, 3) == 0) b->cfg.policy.dispatch_latency = tb_rng_range(&s, 1, 5 * US);
    g->zero_dispatch = b->cfg.policy.dispatch_latency == 0;
    g->has_sync = false;
    int nproc = tb_rng_range(&s, 0, 2) == 0 ? 2 : 1;
    bool tx2_prios = tb_rng_range(&s, 0, 1) == 0;
    int nstreams = (int)tb_rng_range(&s, 1, 6);
    bool null_made[2] = { false, false };
    for (int i = 0; i < nstreams; i++) {
        int p = (int)tb_rng_range(&s, 0, nproc - 1);
        if (!null_made[p] && tb_rng_range(&s, 0, 4) == 0) {
            null_made[p] = true;
            tb_stream(b, "null", pnames[p], SIM_PRIO_NONE);
            continue;
        }
        int32_t prio = tx2_prios ? (int32_t)tb_rng_range(&s, -1, 1) : (int32_t)tb_rng_range(&s, -2, 2);
        if (prio == 1 && tx2_prios) prio = SIM_PRIO_NONE;
        if (prio == 2) prio = SIM_PRIO_NONE;
        tb_stream(b, snames[i], pnames[p], prio);
    }
    int nops = (int)tb_rng_range(&s, 4, 20);
    for (int i = 0; i < nops; i++) {
        int32_t st = (int32_t)tb_rng_range(&s, 0, (int64_t)b->nstreams - 1);
        int64_t at = tb_rng_range(&s, 0, 7) * 100 * US;
        int64_t kind = tb_rng_range(&s, 0, 9);
        if (kind < 7) {
            int32_t threads = tb_rng_range(&s, 0, 1) ? (int32_t)tb_rng_range(&s, 1, d->max_threads_per_block / 32) * 32
                                                  : (int32_t)tb_rng_range(&s, 1, d->max_threads_per_block);
            int64_t smem = tb_rng_range(&s, 0, 1) ? 0 : tb_rng_range(&s, 0, d->max_smem_per_block);
            sim_op *o = tb_kernel(b, onames[i], st, at, tb_rng_range(&s, 1, 12), threads, smem, 0);
            int64_t maxregs = d->max_regs_per_block / threads;
            if (maxregs > 255) maxregs = 255;
            o->regs = tb_rng_range(&s, 0, 1) ? 0 : (int32_t)tb_rng_range(&s, 0, maxregs);
            int64_t times[4];
            size_t nt = (size_t)tb_rng_range(&s, 1, 4);
            for (size_t j = 0; j < nt; j++)
                times[j] = tb_rng_range(&s, 0, 1) ? tb_rng_range(&s, 1, 4) * 100 * US : tb_rng_range(&s, 1, 500 * US);
            tb_times(b, o, times, nt);
        } else if (kind < 9) {
            /* one draw per statement: the order of evaluation of function
             * arguments differs between compilers (gcc drew the direction
             * first, and the golden digests were written by gcc) */
            trace_copy_dir dir = (trace_copy_dir)tb_rng_range(&s, 0, 2);
            int64_t bytes = tb_rng_range(&s, 1, 64) * MIB;
            tb_copy(b, onames[i], st, at, bytes, dir);
        } else {
            tb_op(b, SIM_OP_SYNC, onames[i], st, at);
            g->has_sync = true;
        }
    }
}

/* ---- what the checks need, per op ------------------------------------------- */

typedef struct opinfo {
    int32_t rec;             /* kernel or copy index in the trace; -1 for syncs */
    int32_t stream;          /* internal: index of the first config stream of that name */
    int32_t proc;
    bool is_null;
    int64_t issue, start, done;
    int64_t q_enq, q_deq;    /* EE or CE queue */
    int32_t queue;           /* trace_str of that queue */
    int32_t level;           /* EE level: position of the queue name among the process's levels */
    size_t enq_pos;          /* index of the enqueue event: FIFO order */
} opinfo;

static int32_t canonical_stream(const sim_config *c, int32_t s) {
    for (int32_t j = 0; j < s; j++)
        if (strcmp(c->streams[j].name, c->streams[s].name) == 0 &&
            strcmp(c->streams[j].process, c->streams[s].process) == 0) return j;
    return s;
}

/* A stream's priority as the device takes it: clamped into
 * [greatest_priority, 0] where the device gives its range (CUDA clamps;
 * the TX2's is -1..0, TX2 paper §4.2). */
static int32_t clamped_priority(const sim_config *c, int32_t p) {
    int32_t g = c->device.greatest_priority;
    if (p == SIM_PRIO_NONE || g >= 0) return p;
    return p < g ? g : p > 0 ? 0 : p;
}

static int32_t level_of_stream(const sim_config *c, int32_t s) {
    int32_t none = 0;
    for (size_t j = 0; j < c->nstreams; j++) {
        int32_t p = clamped_priority(c, c->streams[j].priority);
        if (p != SIM_PRIO_NONE && p > none) none = p;
    }
    int32_t p = clamped_priority(c, c->streams[s].priority);
    return p == SIM_PRIO_NONE ? none : p;
}

static void collect(const sim_config *c, const trace *t, opinfo *oi) {
    size_t nk = 0, nc = 0;
    for (size_t i = 0; i < c->nops; i++) {
        const sim_op *o = &c->ops[i];
        opinfo *x = &oi[i];
        memset(x, 0, sizeof *x);
        x->stream = canonical_stream(c, o->stream);
        x->proc = strcmp(c->streams[o->stream].process, "P0") == 0 ? 0 : 1;
        x->is_null = strcmp(c->streams[o->stream].name, "null") == 0;
        x->level = level_of_stream(c, o->stream);
        x->q_enq = x->q_deq = TRACE_NONE;
        x->rec = -1;
        if (o->kind == SIM_OP_KERNEL) {
            const trace_kernel *k = &t->kernels.v[nk];
            assert_string_equal(trace_str_get(t, k->name), o->name);
            x->rec = (int32_t)nk++;
            x->issue = k->issue;
            x->start = k->first_block;
            x->done = k->end;
        } else if (o->kind == SIM_OP_COPY) {
            const trace_copy *cp = &t->copies.v[nc];
            assert_string_equal(trace_str_get(t, cp->name), o->name);
            x->rec = (int32_t)nc++;
            x->issue = cp->issue;
            x->start = cp->start;
            x->done = cp->end;
        }
        /* ee / ce queue events of this item (names are unique per scenario) */
        trace_str item = trace_intern((trace *)t, o->name);
        for (size_t e = 0; e < t->queue_events.n; e++) {
            const trace_queue_event *q = &t->queue_events.v[e];
            if (q->item != item) continue;
            const char *qn = trace_str_get(t, q->queue);
            if (strncmp(qn, "stream:", 7) == 0) {
                if (o->kind == SIM_OP_SYNC && q->event == TRACE_DEQUEUE) x->done = q->t;
                continue;
            }
            if (q->event == TRACE_ENQUEUE) {
                x->q_enq = q->t;
                x->queue = (int32_t)q->queue;
                x->enq_pos = e;
            } else {
                x->q_deq = q->t;
            }
        }
    }
}

static int64_t room_at(const trace *t, int64_t at, int32_t sm, const trace_kernel *k) {
    const sim_device *d = &t->device;
    int64_t thr = d->threads_per_sm, warps = d->warps_per_sm, blocks = d->blocks_per_sm;
    int64_t regs = d->regs_per_sm, smem = d->smem_per_sm;
    for (size_t i = 0; i < t->blocks.n; i++) {
        const trace_block *b = &t->blocks.v[i];
        if (b->sm != sm || b->start > at || b->end <= at) continue;
        const trace_kernel *o = &t->kernels.v[b->kernel];
        thr -= o->threads;
        warps -= (o->threads + d->warp_size - 1) / d->warp_size;
        blocks -= 1;
        regs -= (int64_t)o->regs * o->threads;
        smem -= o->smem;
    }
    return thr >= k->threads && warps >= (k->threads + d->warp_size - 1) / d->warp_size &&
           blocks >= 1 && regs >= (int64_t)k->regs * k->threads && smem >= k->smem;
}

static void check_scenario(tb *b, uint64_t seed) {
    gen g;
    generate(b, seed, &g);
    const sim_config *c = tb_config(b);
    trace t;
    tb_run(b, &t);

    /* every block once, every kernel and copy complete */
    size_t want = 0;
    for (size_t i = 0; i < c->nops; i++) if (c->ops[i].kind == SIM_OP_KERNEL) want += (size_t)c->ops[i].blocks;
    assert_int_equal(t.blocks.n, want);
    for (size_t i = 0; i < t.kernels.n; i++) {
        const trace_kernel *k = &t.kernels.v[i];
        assert_true(k->issue != TRACE_NONE && k->first_block >= k->issue);
        assert_true(k->fully_dispatched >= k->first_block && k->end > k->fully_dispatched);
        int64_t seen = 0, last_end = 0;
        for (size_t j = 0; j < t.blocks.n; j++) {
            const trace_block *bl = &t.blocks.v[j];
            if (bl->kernel != (int32_t)i) continue;
            assert_int_equal(bl->index, seen);   /* blocks are placed in index order */
            seen++;
            if (bl->end > last_end) last_end = bl->end;
        }
        assert_int_equal(seen, k->blocks);
        assert_int_equal(last_end, k->end);
    }
    for (size_t i = 0; i < t.copies.n; i++) {
        const trace_copy *cp = &t.copies.v[i];
        assert_true(cp->start >= cp->issue && cp->end > cp->start);
        assert_in_range(cp->engine, 0, t.device.copy_engines - 1);
    }

    check_sm_limits(&t);

    opinfo oi[TB_MAX_OPS];
    collect(c, &t, oi);

    /* stream FIFO: ops of one stream in (at, index) order */
    for (size_t i = 0; i < c->nops; i++) {
        for (size_t j = 0; j < c->nops; j++) {
            if (i == j || oi[i].stream != oi[j].stream) continue;
            bool before = c->ops[j].at < c->ops[i].at || (c->ops[j].at == c->ops[i].at && j < i);
            if (!before) continue;
            /* j is ahead of i in the stream: i starts only after j completed */
            if (c->ops[i].kind != SIM_OP_SYNC) assert_true(oi[i].start >= oi[j].done);
            else assert_true(oi[i].done >= oi[j].done);
        }
    }

    for (size_t i = 0; i < c->nops; i++) {
        if (c->ops[i].kind == SIM_OP_SYNC) continue;
        for (size_t j = 0; j < c->nops; j++) {
            if (i == j || c->ops[j].kind == SIM_OP_SYNC) continue;
            /* X1 (EE) and FIFO CE queues: the later-enqueued item of a queue
             * starts only once the one ahead is fully dispatched / assigned */
            if (oi[i].queue == oi[j].queue && oi[j].enq_pos < oi[i].enq_pos) {
                if (c->ops[i].kind == SIM_OP_KERNEL) {
                    const trace_kernel *ki = &t.kernels.v[oi[i].rec], *kj = &t.kernels.v[oi[j].rec];
                    assert_true(ki->first_block >= kj->fully_dispatched);
                } else {
                    assert_true(oi[i].start >= oi[j].done);   /* one engine, one copy at a time */
                }
            }
            /* N1 / N2 within a process, on strictly earlier issue */
            if (oi[i].proc == oi[j].proc && oi[i].stream != oi[j].stream &&
                oi[i].is_null != oi[j].is_null && oi[j].issue < oi[i].issue &&
                (oi[i].is_null || oi[j].is_null))
                assert_true(oi[i].q_enq >= oi[j].done);
        }
    }

    /* A2 and never idling, at every instant something happened */
    size_t ntimes = 0;
    int64_t *times = malloc((2 * t.blocks.n + t.queue_events.n + 1) * sizeof *times);
    assert_non_null(times);
    for (size_t i = 0; i < t.blocks.n; i++) {
        times[ntimes++] = t.blocks.v[i].start;
        times[ntimes++] = t.blocks.v[i].end;
    }
    for (size_t i = 0; i < t.queue_events.n; i++) times[ntimes++] = t.queue_events.v[i].t;
    for (size_t x = 0; x < ntimes; x++) {
        int64_t at = times[x];
        bool dup = false;
        for (size_t y = 0; y < x && !dup; y++) dup = times[y] == at;
        if (dup) continue;
        /* kernels in EE queues after the instant, per process: the eligible
         * one is the earliest-enqueued of the best (lowest) level */
        for (int p = 0; p < 2; p++) {
            int64_t best = -1;
            for (size_t i = 0; i < c->nops; i++) {
                if (c->ops[i].kind != SIM_OP_KERNEL || oi[i].proc != p) continue;
                bool in = oi[i].q_enq <= at && (oi[i].q_deq == TRACE_NONE || oi[i].q_deq > at);
                if (!in) continue;
                if (best < 0 || oi[i].level < oi[best].level ||
                    (oi[i].level == oi[best].level && oi[i].enq_pos < oi[best].enq_pos))
                    best = (int64_t)i;
            }
            for (size_t i = 0; i < c->nops; i++) {
                if (c->ops[i].kind != SIM_OP_KERNEL || oi[i].proc != p || (int64_t)i == best) continue;
                bool in = oi[i].q_enq <= at && (oi[i].q_deq == TRACE_NONE || oi[i].q_deq > at);
                /* A2 / X1: a kernel that is not the eligible head gets no
                 * block assigned at this instant (a block starts
                 * dispatch_latency after it is assigned) */
                for (size_t bl = 0; bl < t.blocks.n && in; bl++)
                    if (t.blocks.v[bl].kernel == oi[i].rec &&
                        t.blocks.v[bl].start - c->policy.dispatch_latency == at)
                        fail_msg("seed %llu: %s starts a block at %lld behind %s",
                                 (unsigned long long)seed, c->ops[i].name, (long long)at,
                                 best >= 0 ? c->ops[best].name : "nothing");
            }
            if (best < 0 || !g.zero_dispatch) continue;
            const trace_kernel *k = &t.kernels.v[oi[best].rec];
            bool waiting = k->fully_dispatched > at;
            for (int32_t sm = 0; sm < t.device.sms && waiting; sm++)
                if (room_at(&t, at, sm, k))
                    fail_msg("seed %llu: %s waits at %lld though SM %d has room",
                             (unsigned long long)seed, c->ops[best].name, (long long)at, (int)sm);
        }
    }
    free(times);

    /* determinism: the same config again gives the same records */
    trace u;
    tb_run(b, &u);
    assert_int_equal(u.kernels.n, t.kernels.n);
    assert_memory_equal(u.kernels.v, t.kernels.v, t.kernels.n * sizeof *t.kernels.v);
    assert_int_equal(u.blocks.n, t.blocks.n);
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *x = &t.blocks.v[i], *y = &u.blocks.v[i];
        assert_true(x->kernel == y->kernel && x->index == y->index && x->sm == y->sm &&
                    x->start == y->start && x->end == y->end);
    }
    assert_int_equal(u.copies.n, t.copies.n);
    assert_memory_equal(u.copies.v, t.copies.v, t.copies.n * sizeof *t.copies.v);
    assert_int_equal(u.queue_events.n, t.queue_events.n);
    for (size_t i = 0; i < t.queue_events.n; i++) {
        const trace_queue_event *x = &t.queue_events.v[i], *y = &u.queue_events.v[i];
        assert_int_equal(x->t, y->t);
        assert_int_equal(x->event, y->event);
        assert_string_equal(trace_str_get(&t, x->queue), trace_str_get(&u, y->queue));
        assert_string_equal(trace_str_get(&t, x->item), trace_str_get(&u, y->item));
    }
    trace_free(&u);
    trace_free(&t);
}

static void test_random_scenarios(void **state) {
    (void)state;
    tb *b = malloc(sizeof *b);
    assert_non_null(b);
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) check_scenario(b, seed);
    free(b);
}

/* The generator really produces what the properties are about. */
static void test_generator_coverage(void **state) {
    (void)state;
    tb *b = malloc(sizeof *b);
    assert_non_null(b);
    int with_null = 0, with_sync = 0, with_prio = 0, two_proc = 0, rr = 0, waited = 0;
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        gen g;
        generate(b, seed, &g);
        bool n = false, p = false, two = false;
        for (size_t i = 0; i < b->nstreams; i++) {
            n |= strcmp(b->streams[i].name, "null") == 0;
            p |= b->streams[i].priority == -1;
            two |= strcmp(b->streams[i].process, "P1") == 0;
        }
        with_null += n;
        with_prio += p;
        two_proc += two;
        with_sync += g.has_sync;
        rr += b->cfg.policy.placement == 1;
        trace t;
        tb_run(b, &t);
        for (size_t i = 0; i < t.kernels.n; i++) waited += t.kernels.v[i].first_block > t.kernels.v[i].issue;
        trace_free(&t);
    }
    free(b);
    assert_true(with_null > NSEEDS / 10);
    assert_true(with_sync > NSEEDS / 10);
    assert_true(with_prio > NSEEDS / 5);
    assert_true(two_proc > NSEEDS / 10);
    assert_true(rr > NSEEDS / 4);
    assert_true(waited > NSEEDS);   /* contention: kernels do queue */
}


/* ---- golden digests --------------------------------------------------------
 * A 64-bit FNV-1a digest of every record of each seed's trace (strings by
 * text, not id), compared with tests/golden/props.digests, written before the
 * simcore seams refactor (issue 7): the refactor must leave every trace of
 * every seed unchanged, record for record. SCHEDLAB_WRITE_GOLDEN=1 rewrites
 * the file instead (only when a change of behaviour is intended). */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001B3ULL;
    return h;
}
#define FNV_VAL(h, v) do { int64_t v_ = (int64_t)(v); h = fnv(h, &v_, sizeof v_); } while (0)
static uint64_t fnv_str(uint64_t h, const trace *t, trace_str id) {
    const char *s = trace_str_get(t, id);
    return s ? fnv(h, s, strlen(s) + 1) : fnv(h, "", 1);
}

static uint64_t trace_digest(const trace *t) {
    uint64_t h = 0xCBF29CE484222325ULL;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        h = fnv_str(h, t, k->name); h = fnv_str(h, t, k->stream); h = fnv_str(h, t, k->process);
        FNV_VAL(h, k->priority); FNV_VAL(h, k->threads); FNV_VAL(h, k->issue);
        FNV_VAL(h, k->first_block); FNV_VAL(h, k->fully_dispatched); FNV_VAL(h, k->end);
        FNV_VAL(h, k->blocks); FNV_VAL(h, k->smem); FNV_VAL(h, k->regs);
    }
    for (size_t i = 0; i < t->blocks.n; i++) {
        const trace_block *b = &t->blocks.v[i];
        FNV_VAL(h, b->kernel); FNV_VAL(h, b->index); FNV_VAL(h, b->sm);
        FNV_VAL(h, b->start); FNV_VAL(h, b->end);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        h = fnv_str(h, t, c->name); h = fnv_str(h, t, c->stream); h = fnv_str(h, t, c->process);
        FNV_VAL(h, c->direction); FNV_VAL(h, c->engine); FNV_VAL(h, c->bytes);
        FNV_VAL(h, c->issue); FNV_VAL(h, c->start); FNV_VAL(h, c->end);
    }
    for (size_t i = 0; i < t->queue_events.n; i++) {
        const trace_queue_event *q = &t->queue_events.v[i];
        FNV_VAL(h, q->t); h = fnv_str(h, t, q->queue); h = fnv_str(h, t, q->item);
        FNV_VAL(h, q->event);
    }
    for (size_t i = 0; i < t->meta.n; i++) {
        h = fnv_str(h, t, t->meta.v[i].key); h = fnv_str(h, t, t->meta.v[i].value);
    }
    return h;
}

static void test_golden_digests(void **state) {
    (void)state;
    const char *dir = getenv("SCHEDLAB_GOLDEN_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/props.digests", dir ? dir : "tests/golden");
    bool write = getenv("SCHEDLAB_WRITE_GOLDEN") && strcmp(getenv("SCHEDLAB_WRITE_GOLDEN"), "1") == 0;
    FILE *f = fopen(path, write ? "w" : "r");
    if (!f) fail_msg("cannot open %s (run the test from the repository root)", path);
    tb *b = malloc(sizeof *b);
    assert_non_null(b);
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        gen g;
        generate(b, seed, &g);
        trace t;
        tb_run(b, &t);
        uint64_t d = trace_digest(&t);
        trace_free(&t);
        if (write) {
            fprintf(f, "%llu %016llx\n", (unsigned long long)seed, (unsigned long long)d);
            continue;
        }
        unsigned long long s_file = 0, d_file = 0;
        if (fscanf(f, "%llu %llx", &s_file, &d_file) != 2 || s_file != seed)
            fail_msg("%s: no digest for seed %llu", path, (unsigned long long)seed);
        if (d_file != d)
            fail_msg("seed %llu: trace digest %016llx differs from the golden %016llx: the "
                     "simulator's behaviour changed", (unsigned long long)seed,
                     (unsigned long long)d, d_file);
    }
    free(b);
    fclose(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_digests),
        cmocka_unit_test(test_random_scenarios),
        cmocka_unit_test(test_generator_coverage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
