/* test_sim_util.h -- helpers shared by the simulator tests (test_sim_*.c):
 * build a sim_config in C, find records by name, check resource limits,
 * rebuild a queue's content at a time from the queue events.
 *
 * Include after <cmocka.h>. Every helper is static inline so that each test
 * binary carries its own copy and unused ones cost nothing. A builder owns
 * its arrays; configs built from it borrow them. */
#ifndef TEST_SIM_UTIL_H
#define TEST_SIM_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../simcore/queue_state.h"
#include "../../simcore/sim.h"

#define MS 1000000LL
#define SEC 1000000000LL
#define KIB 1024LL
#define MIB (1024LL * 1024LL)

#define TB_MAX_STREAMS 64
#define TB_MAX_OPS 256
#define TB_MAX_TIMES 8

typedef struct tb {
    sim_stream streams[TB_MAX_STREAMS];
    size_t nstreams;
    sim_op ops[TB_MAX_OPS];
    size_t nops;
    int64_t times[TB_MAX_OPS][TB_MAX_TIMES];
    sim_config cfg;
} tb;

static inline void tb_init(tb *b, const char *preset) {
    memset(b, 0, sizeof *b);
    const sim_device *d = sim_preset_find(preset);
    assert_non_null(d);
    b->cfg.name = "test";
    b->cfg.device = *d;
}

static inline int32_t tb_stream(tb *b, const char *name, const char *proc, int32_t prio) {
    assert_true(b->nstreams < TB_MAX_STREAMS);
    sim_stream *s = &b->streams[b->nstreams];
    s->name = name;
    s->process = proc;
    s->priority = prio;
    return (int32_t)b->nstreams++;
}

static inline sim_op *tb_op(tb *b, sim_op_kind kind, const char *name, int32_t stream, int64_t at) {
    assert_true(b->nops < TB_MAX_OPS);
    sim_op *o = &b->ops[b->nops++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->name = name;
    o->stream = stream;
    o->at = at;
    return o;
}

static inline sim_op *tb_kernel(tb *b, const char *name, int32_t stream, int64_t at, int64_t blocks,
                                int32_t threads, int64_t smem, int64_t block_time) {
    sim_op *o = tb_op(b, SIM_OP_KERNEL, name, stream, at);
    size_t i = (size_t)(o - b->ops);
    b->times[i][0] = block_time;
    o->blocks = blocks;
    o->threads = threads;
    o->smem = smem;
    o->block_time = b->times[i];
    o->nblock_time = 1;
    return o;
}

/* Per-block durations, cycled by block index. */
static inline void tb_times(tb *b, sim_op *o, const int64_t *times, size_t n) {
    size_t i = (size_t)(o - b->ops);
    assert_true(n <= TB_MAX_TIMES);
    memcpy(b->times[i], times, n * sizeof *times);
    o->block_time = b->times[i];
    o->nblock_time = n;
}

static inline sim_op *tb_copy(tb *b, const char *name, int32_t stream, int64_t at, int64_t bytes,
                              trace_copy_dir dir) {
    sim_op *o = tb_op(b, SIM_OP_COPY, name, stream, at);
    o->bytes = bytes;
    o->direction = dir;
    return o;
}

static inline const sim_config *tb_config(tb *b) {
    b->cfg.streams = b->streams;
    b->cfg.nstreams = b->nstreams;
    b->cfg.ops = b->ops;
    b->cfg.nops = b->nops;
    return &b->cfg;
}

/* splitmix64: a fixed sequence per seed, so a failing random scenario is
 * reproducible from its seed (the property tests' generators). */
static inline uint64_t tb_rng(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A number in [lo, hi]. */
static inline int64_t tb_rng_range(uint64_t *s, int64_t lo, int64_t hi) {
    return lo + (int64_t)(tb_rng(s) % (uint64_t)(hi - lo + 1));
}

/* Run and require success. */
static inline void tb_run(tb *b, trace *t) {
    char err[256];
    trace_init(t);
    int rc = sim_run(tb_config(b), t, err, sizeof err);
    if (rc != 0) fprintf(stderr, "sim_run: %s\n", err);
    assert_int_equal(rc, 0);
    assert_false(t->oom);
}

/* The TX2 paper's Fig. 3 experiment (Table 1): three streams of one
 * process, six kernels and five 256 MB copies on the TX2, the copy engine
 * taking 0.2 s per copy, as scenarios/tx2-fig3-basic-rules.json does (the
 * paper gives no rate; its Fig. 4 insets bound a copy to 0.02-0.23 s, see
 * test_scenarios_shipped.c, test_tx2_fig4_insets). Times are Table 1's;
 * Fig. 3's axis adds the benchmark initialization, about 0.3 s (TX2_FIG3_D),
 * so the insets (a)-(e) at 1.1, 2.1, 3.0, 3.32 and 4.0 s are 0.3 s earlier
 * here. test_sim_rules.c walks its schedule rule by rule,
 * test_queue_state.c its queues instant by instant. */
#define TX2_FIG3_D (300 * MS)
static inline void tb_fig3(tb *b) {
    tb_init(b, "tx2");
    b->cfg.device.copy_bandwidth = 256.0 * MIB / 0.2;
    int32_t s1 = tb_stream(b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(b, "S2", "P0", SIM_PRIO_NONE);
    int32_t s3 = tb_stream(b, "S3", "P0", SIM_PRIO_NONE);
    tb_kernel(b, "K1", s1, 0, 6, 768, 0, SEC);
    tb_kernel(b, "K2", s1, 0, 2, 512, 0, SEC);
    tb_copy(b, "C2o", s1, 0, 256 * MIB, TRACE_COPY_D2H);
    tb_copy(b, "C3i", s1, 0, 256 * MIB, TRACE_COPY_H2D);
    tb_kernel(b, "K3", s1, 0, 2, 1024, 0, SEC);
    tb_copy(b, "C3o", s1, 0, 256 * MIB, TRACE_COPY_D2H);
    tb_kernel(b, "K4", s2, 200 * MS, 4, 256, 32 * KIB, SEC);
    tb_kernel(b, "K5", s3, 400 * MS, 2, 256, 32 * KIB, SEC);
    tb_copy(b, "C5o", s3, 400 * MS, 256 * MIB, TRACE_COPY_D2H);
    tb_kernel(b, "K6", s2, 2800 * MS, 2, 512, 0, SEC);
    tb_copy(b, "C6o", s2, 2800 * MS, 256 * MIB, TRACE_COPY_D2H);
}

static inline int32_t kid(const trace *t, const char *name) {
    for (size_t i = 0; i < t->kernels.n; i++)
        if (strcmp(trace_str_get(t, t->kernels.v[i].name), name) == 0) return (int32_t)i;
    fail_msg("no kernel %s in the trace", name);
    return -1;
}

static inline const trace_kernel *kern(const trace *t, const char *name) {
    return &t->kernels.v[kid(t, name)];
}

static inline const trace_copy *copy_named(const trace *t, const char *name) {
    for (size_t i = 0; i < t->copies.n; i++)
        if (strcmp(trace_str_get(t, t->copies.v[i].name), name) == 0) return &t->copies.v[i];
    fail_msg("no copy %s in the trace", name);
    return NULL;
}

/* Block `index` of kernel `name`. */
static inline const trace_block *blk(const trace *t, const char *name, int32_t index) {
    int32_t k = kid(t, name);
    for (size_t i = 0; i < t->blocks.n; i++)
        if (t->blocks.v[i].kernel == k && t->blocks.v[i].index == index) return &t->blocks.v[i];
    fail_msg("no block %d of kernel %s", (int)index, name);
    return NULL;
}

/* Every SM's occupancy stays within the device at every instant: a sweep
 * over block starts and ends, ends first at equal times (a block ending at
 * t frees its room for one starting at t). Returns the number of blocks
 * checked so that callers can assert the sweep saw them all. */
typedef struct occ_ev {
    int64_t t;
    int32_t delta;   /* +1 start, -1 end */
    int32_t block;
} occ_ev;

static inline int occ_cmp(const void *a, const void *b) {
    const occ_ev *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->delta != y->delta) return x->delta - y->delta;
    return x->block - y->block;
}

static inline size_t check_sm_limits(const trace *t) {
    const sim_device *d = &t->device;
    size_t n = t->blocks.n;
    occ_ev *ev = malloc((2 * n + 1) * sizeof *ev);
    assert_non_null(ev);
    for (size_t i = 0; i < n; i++) {
        ev[2 * i] = (occ_ev){ t->blocks.v[i].start, +1, (int32_t)i };
        ev[2 * i + 1] = (occ_ev){ t->blocks.v[i].end, -1, (int32_t)i };
    }
    qsort(ev, 2 * n, sizeof *ev, occ_cmp);
    int64_t thr[SIM_MAX_SMS] = { 0 }, warps[SIM_MAX_SMS] = { 0 }, blocks[SIM_MAX_SMS] = { 0 };
    int64_t regs[SIM_MAX_SMS] = { 0 }, smem[SIM_MAX_SMS] = { 0 };
    for (size_t i = 0; i < 2 * n; i++) {
        const trace_block *b = &t->blocks.v[ev[i].block];
        const trace_kernel *k = &t->kernels.v[b->kernel];
        assert_in_range(b->sm, 0, d->sms - 1);
        int64_t s = ev[i].delta;
        thr[b->sm] += s * k->threads;
        warps[b->sm] += s * ((k->threads + d->warp_size - 1) / d->warp_size);
        blocks[b->sm] += s;
        regs[b->sm] += s * (int64_t)k->regs * k->threads;
        smem[b->sm] += s * k->smem;
        assert_true(thr[b->sm] <= d->threads_per_sm);
        assert_true(warps[b->sm] <= d->warps_per_sm);
        assert_true(blocks[b->sm] <= d->blocks_per_sm);
        assert_true(regs[b->sm] <= d->regs_per_sm);
        assert_true(smem[b->sm] <= d->smem_per_sm);
    }
    free(ev);
    return n;
}

/* Content of queue `qname` just after every event at time <= at, head
 * first, as a space-separated list ("K2 C2o"): the simulator's queue
 * replay (simcore/queue_state.h), which the database's /queues uses too. */
static inline void queue_at(const trace *t, const char *qname, int64_t at, char *out, size_t outlen) {
    sim_qstate s;
    sim_qstate_init(&s, false);
    assert_int_equal(sim_qstate_replay(&s, t, at), 0);
    assert_int_equal(s.stray, 0);   /* a dequeue always follows its enqueue */
    out[0] = '\0';
    for (size_t i = 0; i < s.n; i++) {
        const sim_qstate_queue *q = &s.q[i];
        const char *name = trace_str_get(t, q->name);
        if (!name || strcmp(name, qname) != 0) continue;
        for (size_t j = 0; j < sim_qstate_len(q); j++) {
            size_t len = strlen(out);
            snprintf(out + len, outlen - len, "%s%s", j ? " " : "",
                     trace_str_get(t, sim_qstate_items(q)[j]));
        }
    }
    sim_qstate_free(&s);
}

/* The events of queue `q` as "T:+ITEM T:-ITEM ..." (T in us, + enqueue,
 * - dequeue), `sep` between the sign and the item ("" or ":"); cut short
 * where `out` is full. */
static inline void queue_log(const trace *t, const char *q, const char *sep, char *out, size_t n) {
    size_t w = 0;
    out[0] = '\0';
    for (size_t i = 0; i < t->queue_events.n; i++) {
        const trace_queue_event *e = &t->queue_events.v[i];
        if (strcmp(trace_str_get(t, e->queue), q) != 0) continue;
        int len = snprintf(out + w, n - w, "%s%lld:%s%s%s", w ? " " : "", (long long)(e->t / 1000),
                           e->event == TRACE_ENQUEUE ? "+" : "-", sep, trace_str_get(t, e->item));
        if (len > 0 && (size_t)len < n - w) w += (size_t)len;
    }
}

/* The queue a kernel or copy item was first enqueued on whose name starts
 * with `prefix` ("ee:", "ce"). */
static inline const char *queue_of(const trace *t, const char *item, const char *prefix) {
    for (size_t i = 0; i < t->queue_events.n; i++) {
        const trace_queue_event *e = &t->queue_events.v[i];
        const char *q = trace_str_get(t, e->queue);
        if (e->event == TRACE_ENQUEUE && strcmp(trace_str_get(t, e->item), item) == 0 &&
            strncmp(q, prefix, strlen(prefix)) == 0)
            return q;
    }
    return NULL;
}

#endif
