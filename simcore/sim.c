/* sim.c -- sim_run: check the configuration, set up the run state, drive the
 * event loop and fill the trace. The scheduling rules themselves live in
 * streams.c (G1, G4, C4, N1, N2, syncs), ee.c (G2, G3, X1, A1, A2, R1-R3),
 * ce.c (C1-C4), sms.c and the placement policies.
 *
 * Order within one instant t (deterministic, DESIGN §8): first every host
 * issue at t in (time, array index) order, then every event due at t in the
 * order it was scheduled, then block dispatch. Dispatch waits for the whole
 * instant so that blocks finishing together are all gone before the
 * scheduler looks for room. */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ce.h"
#include "ee.h"
#include "state.h"
#include "streams.h"

/* Longest single duration accepted (about 11.6 days), so that sums of
 * times stay far from int64 overflow. */
#define SIM_TIME_LIMIT 1000000000000000LL

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

static const char *proc_name(const sim_stream *s) {
    return s->process ? s->process : "P0";
}

static trace_str intern_join(trace *t, const char *a, const char *b, const char *c, const char *d) {
    const char *parts[4] = { a, b, c, d };
    size_t len[4], n = 1;
    for (int i = 0; i < 4; i++) n += len[i] = strlen(parts[i]);
    char buf[256];
    char *s = n <= sizeof buf ? buf : malloc(n);
    if (!s) { t->oom = true; return 0; }
    char *w = s;
    for (int i = 0; i < 4; i++) { memcpy(w, parts[i], len[i]); w += len[i]; }
    *w = '\0';
    trace_str id = trace_intern(t, s);
    if (s != buf) free(s);
    return id;
}

/* Check one op against the device; the message names ops[i].field. */
static int check_op(const sim_config *cfg, const sim_device *d, size_t i, char *err, size_t errlen) {
    const sim_op *o = &cfg->ops[i];
    if (o->stream < 0 || (size_t)o->stream >= cfg->nstreams) {
        snprintf(err, errlen, "ops[%zu].stream: %d is not a stream index (the config has %zu streams)",
                 i, (int)o->stream, cfg->nstreams);
        return -1;
    }
    if (o->at < 0 || o->at > SIM_TIME_LIMIT) {
        snprintf(err, errlen, "ops[%zu].at: %lld ns is outside 0..%lld ns", i, (long long)o->at,
                 (long long)SIM_TIME_LIMIT);
        return -1;
    }
    switch (o->kind) {
    case SIM_OP_KERNEL: {
        if (o->blocks < 1 || o->blocks > INT32_MAX) {
            snprintf(err, errlen, "ops[%zu].blocks: %lld is outside 1..%d", i, (long long)o->blocks,
                     INT32_MAX);
            return -1;
        }
        if (o->threads < 1 || o->threads > d->max_threads_per_block) {
            snprintf(err, errlen, "ops[%zu].threads: %d is outside 1..max_threads_per_block (%d) of "
                     "device %s", i, (int)o->threads, (int)d->max_threads_per_block, d->name);
            return -1;
        }
        int64_t warps = (o->threads + d->warp_size - 1) / d->warp_size;
        if (warps > d->warps_per_sm) {
            snprintf(err, errlen, "ops[%zu].threads: %d threads take %lld warps, more than "
                     "warps_per_sm (%d) of device %s", i, (int)o->threads, (long long)warps,
                     (int)d->warps_per_sm, d->name);
            return -1;
        }
        if (o->regs < 0 || (int64_t)o->regs * o->threads > d->max_regs_per_block) {
            snprintf(err, errlen, "ops[%zu].regs: %d registers x %d threads is outside "
                     "0..max_regs_per_block (%lld) of device %s", i, (int)o->regs, (int)o->threads,
                     (long long)d->max_regs_per_block, d->name);
            return -1;
        }
        if (o->smem < 0 || o->smem > d->max_smem_per_block) {
            snprintf(err, errlen, "ops[%zu].smem: %lld bytes is outside 0..max_smem_per_block "
                     "(%lld) of device %s", i, (long long)o->smem,
                     (long long)d->max_smem_per_block, d->name);
            return -1;
        }
        if (!o->block_time || o->nblock_time == 0) {
            snprintf(err, errlen, "ops[%zu].block_time: missing; a kernel needs at least one "
                     "block duration", i);
            return -1;
        }
        for (size_t j = 0; j < o->nblock_time; j++) {
            if (o->block_time[j] < 0 || o->block_time[j] > SIM_TIME_LIMIT) {
                snprintf(err, errlen, "ops[%zu].block_time[%zu]: %lld ns is outside 0..%lld ns", i,
                         j, (long long)o->block_time[j], (long long)SIM_TIME_LIMIT);
                return -1;
            }
        }
        return 0;
    }
    case SIM_OP_COPY:
        if (o->bytes < 0) {
            snprintf(err, errlen, "ops[%zu].bytes: %lld is negative", i, (long long)o->bytes);
            return -1;
        }
        if (o->direction < 0 || o->direction > TRACE_COPY_OTHER) {
            snprintf(err, errlen, "ops[%zu].direction: %d is not a copy direction", i,
                     (int)o->direction);
            return -1;
        }
        if ((double)o->bytes * 1e9 / d->copy_bandwidth > (double)SIM_TIME_LIMIT) {
            snprintf(err, errlen, "ops[%zu].bytes: %lld bytes at %g bytes/s take longer than "
                     "%lld ns", i, (long long)o->bytes, d->copy_bandwidth,
                     (long long)SIM_TIME_LIMIT);
            return -1;
        }
        return 0;
    case SIM_OP_SYNC:
        return 0;
    }
    snprintf(err, errlen, "ops[%zu].kind: %d is not kernel, copy or sync", i, (int)o->kind);
    return -1;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Issue order: time, then array index. */
typedef struct issue_key {
    int64_t at;
    int32_t op;
} issue_key;

static int cmp_issue(const void *a, const void *b) {
    const issue_key *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

static void state_free(sim_state *st) {
    sim_engine_free(&st->eng);
    sms_free(&st->sms);
    free(st->ops);
    free(st->ks);
    free(st->ss);
    free(st->stream_of);
    free(st->procs);
    free(st->levels);
    free(st->ee);
}

/* Processes, streams (one per distinct process/name) and EE levels. */
static int setup_streams(sim_state *st, char *err, size_t errlen) {
    const sim_config *cfg = st->cfg;
    size_t n = cfg->nstreams;
    st->ss = calloc(n ? n : 1, sizeof *st->ss);
    st->stream_of = calloc(n ? n : 1, sizeof *st->stream_of);
    st->procs = calloc(n ? n : 1, sizeof *st->procs);
    st->levels = calloc(n ? n : 1, sizeof *st->levels);
    if (!st->ss || !st->stream_of || !st->procs || !st->levels) {
        snprintf(err, errlen, "simulation: out of memory");
        return -1;
    }
    /* "none" is the lowest level: CUDA's default priority is 0, the least
     * priority, and the TX2 treats none as low (TX2 paper §4.2, Fig. 7).
     * With integer priorities below zero only, none is 0; otherwise it
     * shares the level of the lowest priority given. */
    int32_t none_level = 0;
    st->tx2_levels = true;
    for (size_t i = 0; i < n; i++) {
        int32_t p = cfg->streams[i].priority;
        if (p != SIM_PRIO_NONE && p > none_level) none_level = p;
        if (p != SIM_PRIO_NONE && p != 0 && p != -1) st->tx2_levels = false;
    }
    size_t nl = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_stream *s = &cfg->streams[i];
        if (!s->name || !*s->name) {
            snprintf(err, errlen, "streams[%zu].name: missing", i);
            return -1;
        }
        const char *pn = proc_name(s);
        int32_t prio = s->priority == SIM_PRIO_NONE ? none_level : s->priority;
        /* the same (process, name) twice is one stream */
        size_t j;
        for (j = 0; j < i; j++) {
            if (strcmp(cfg->streams[j].name, s->name) == 0 &&
                strcmp(proc_name(&cfg->streams[j]), pn) == 0) break;
        }
        if (j < i) {
            if (cfg->streams[j].priority != s->priority) {
                snprintf(err, errlen, "streams[%zu].priority: stream %s/%s is listed again "
                         "(streams[%zu]) with another priority", i, pn, s->name, j);
                return -1;
            }
            st->stream_of[i] = st->stream_of[j];
            continue;
        }
        size_t p;
        for (p = 0; p < st->nprocs; p++)
            if (strcmp(trace_str_get(st->t, st->procs[p].name), pn) == 0) break;
        if (p == st->nprocs) {
            st->procs[p].name = trace_intern(st->t, pn);
            st->procs[p].first_stream = -1;
            st->procs[p].null_stream = -1;
            st->nprocs++;
        }
        int32_t si = (int32_t)st->nstreams++;
        st->stream_of[i] = si;
        sim_sstate *ss = &st->ss[si];
        ss->proc = (int32_t)p;
        ss->priority = s->priority;
        ss->level = prio;    /* a priority value for now; an index below */
        ss->is_null = strcmp(s->name, "null") == 0;
        ss->head = ss->tail = ss->held_head = ss->held_tail = -1;
        ss->next_in_proc = -1;
        ss->name = trace_intern(st->t, s->name);
        ss->qname = intern_join(st->t, "stream:", pn, "/", s->name);
        if (ss->is_null) st->procs[p].null_stream = si;
        /* link at the end of the process's list: config order */
        if (st->procs[p].first_stream < 0) {
            st->procs[p].first_stream = si;
        } else {
            int32_t x = st->procs[p].first_stream;
            while (st->ss[x].next_in_proc >= 0) x = st->ss[x].next_in_proc;
            st->ss[x].next_in_proc = si;
        }
        size_t l;
        for (l = 0; l < nl; l++) if (st->levels[l] == prio) break;
        if (l == nl) st->levels[nl++] = prio;
    }
    if (nl == 0) st->levels[nl++] = 0;
    qsort(st->levels, nl, sizeof *st->levels, cmp_i32);
    st->nlevels = nl;
    for (size_t i = 0; i < st->nstreams; i++) {
        for (size_t l = 0; l < nl; l++)
            if (st->levels[l] == st->ss[i].level) { st->ss[i].level = (int32_t)l; break; }
    }
    size_t nq = (st->nprocs ? st->nprocs : 1) * nl;
    st->ee = calloc(nq, sizeof *st->ee);
    if (!st->ee || st->t->oom) {
        snprintf(err, errlen, "simulation: out of memory");
        return -1;
    }
    for (size_t q = 0; q < nq; q++) st->ee[q].head = st->ee[q].tail = -1;
    return 0;
}

int sim_run(const sim_config *cfg, trace *out, char *err, size_t errlen) {
    sim_state stv;
    sim_state *st = &stv;
    memset(st, 0, sizeof *st);
    issue_key *order = NULL;
    st->cfg = cfg;
    st->t = out;
    sim_engine_init(&st->eng);
    if (errlen) err[0] = '\0';

    const placement_policy *pol = placement_get(cfg->policy.placement);
    if (!pol) FAIL("policy.placement: %d is not a placement policy (0..%zu)",
                   (int)cfg->policy.placement, sim_placement_count() - 1);
    if (cfg->policy.launch_latency < 0 || cfg->policy.launch_latency > SIM_TIME_LIMIT)
        FAIL("policy.launch_latency: %lld ns is outside 0..%lld ns",
             (long long)cfg->policy.launch_latency, (long long)SIM_TIME_LIMIT);
    if (cfg->policy.dispatch_latency < 0 || cfg->policy.dispatch_latency > SIM_TIME_LIMIT)
        FAIL("policy.dispatch_latency: %lld ns is outside 0..%lld ns",
             (long long)cfg->policy.dispatch_latency, (long long)SIM_TIME_LIMIT);
    st->pick = pol->pick;
    st->devcopy = cfg->device;
    sim_device_fill_order(&st->devcopy);
    st->dev = &st->devcopy;
    if (sim_device_validate(st->dev, err, errlen) != 0) goto fail;
    if (cfg->nops && !cfg->ops) FAIL("ops: %zu ops but no array", cfg->nops);
    if (cfg->nstreams && !cfg->streams) FAIL("streams: %zu streams but no array", cfg->nstreams);
    if (cfg->nops > INT32_MAX) FAIL("ops: %zu ops is more than %d", cfg->nops, INT32_MAX);
    st->sink = cfg->block_sink;
    if (st->sink) {
        if (!st->sink->emit) FAIL("block_sink.emit: missing; a sink needs a function to call");
        st->sink_batch = st->sink->batch ? st->sink->batch : SIM_SINK_BATCH;
    }

    size_t nblocks = 0;
    for (size_t i = 0; i < cfg->nops; i++) {
        if (check_op(cfg, st->dev, i, err, errlen) != 0) goto fail;
        if (cfg->ops[i].kind == SIM_OP_KERNEL) {
            st->nkernels++;
            nblocks += (size_t)cfg->ops[i].blocks;
        }
    }

    /* the trace: device, names, one record per kernel and copy up front so
     * that records are addressed by index while the simulation runs */
    if (trace_set_name(out, cfg->name) != 0 || trace_set_source(out, "simulation") != 0)
        FAIL("simulation: out of memory");
    out->device = st->devcopy;
    out->has_device = true;
    trace_set_meta(out, "placement", pol->name);

    if (setup_streams(st, err, errlen) != 0) goto fail;

    st->ops = calloc(cfg->nops ? cfg->nops : 1, sizeof *st->ops);
    st->ks = calloc(st->nkernels ? st->nkernels : 1, sizeof *st->ks);
    order = malloc((cfg->nops ? cfg->nops : 1) * sizeof *order);
    if (!st->ops || !st->ks || !order) FAIL("simulation: out of memory");
    if (sms_init(&st->sms, st->dev) != 0) FAIL("simulation: out of memory");

    st->nce = st->dev->copy_engines;
    for (int32_t e = 0; e < st->nce; e++) {
        st->ce[e].head = st->ce[e].tail = -1;
        char qn[16];
        if (st->nce == 1) snprintf(qn, sizeof qn, "ce");
        else snprintf(qn, sizeof qn, "ce:%d", (int)e);
        st->ce[e].qname = trace_intern(out, qn);
    }

    size_t nk = 0;
    for (size_t i = 0; i < cfg->nops; i++) {
        const sim_op *o = &cfg->ops[i];
        sim_opstate *os = &st->ops[i];
        os->next = os->ce_next = -1;
        os->stream = st->stream_of[o->stream];
        const sim_sstate *ss = &st->ss[os->stream];
        char fallback[32];
        const char *name = o->name;
        if (!name) {
            snprintf(fallback, sizeof fallback, "op%zu", i);
            name = fallback;
        }
        os->item = trace_intern(out, name);
        order[i].at = o->at;
        order[i].op = (int32_t)i;
        if (o->kind == SIM_OP_KERNEL) {
            sim_kstate *K = &st->ks[nk];
            K->op = (int32_t)i;
            K->proc = ss->proc;
            K->level = ss->level;
            K->ee_next = -1;
            K->need = sms_need(st->dev, o->threads, o->regs, o->smem);
            K->blocks = o->blocks;
            K->block_time = o->block_time;
            K->nblock_time = o->nblock_time;
            trace_kernel *k = trace_add_kernel(out);
            if (!k) FAIL("simulation: out of memory");
            k->name = os->item;
            k->stream = ss->name;
            k->process = st->procs[ss->proc].name;
            k->priority = ss->priority;
            k->threads = o->threads;
            k->blocks = o->blocks;
            k->smem = o->smem;
            k->regs = o->regs;
            k->grid[0] = (int32_t)o->blocks;
            k->grid[1] = k->grid[2] = 1;
            k->block[0] = o->threads;
            k->block[1] = k->block[2] = 1;
            os->rec = (int32_t)nk++;
        } else if (o->kind == SIM_OP_COPY) {
            trace_copy *c = trace_add_copy(out);
            if (!c) FAIL("simulation: out of memory");
            c->name = os->item;
            c->stream = ss->name;
            c->process = st->procs[ss->proc].name;
            c->direction = o->direction;
            c->bytes = o->bytes;
            os->rec = (int32_t)(out->copies.n - 1);
        } else {
            os->rec = -1;
        }
    }
    qsort(order, cfg->nops, sizeof *order, cmp_issue);

    /* every block is one record; no allocation per block while running
     * (with a sink, the trace holds one batch at a time) */
    size_t keep = st->sink && st->sink_batch < nblocks ? st->sink_batch : nblocks;
    if (trace_reserve_blocks(out, keep) != 0) FAIL("simulation: out of memory for %zu blocks", keep);
    size_t slots = (size_t)st->dev->sms * (size_t)st->dev->blocks_per_sm;
    if (slots > nblocks) slots = nblocks;
    if (sim_engine_reserve(&st->eng, slots + cfg->nops + 8) != 0) FAIL("simulation: out of memory");
    if (out->oom) FAIL("simulation: out of memory");

    size_t cursor = 0;
    for (;;) {
        int64_t t_issue = cursor < cfg->nops ? order[cursor].at : INT64_MAX;
        int64_t t_ev = sim_engine_next_time(&st->eng);
        if (t_issue == INT64_MAX && t_ev == INT64_MAX) break;
        int64_t t = t_issue < t_ev ? t_issue : t_ev;
        while (cursor < cfg->nops && order[cursor].at == t)
            streams_host_issue(st, order[cursor++].op, t);
        sim_event ev;
        while (sim_engine_next_time(&st->eng) == t && !st->failed) {
            sim_engine_pop(&st->eng, &ev);
            switch (ev.type) {
            case EV_ARRIVE: streams_arrive(st, ev.a, t); break;
            case EV_BLOCK_DONE: ee_block_done(st, ev.a, (int32_t)ev.b, t); break;
            case EV_COPY_DONE: ce_copy_done(st, ev.a, (int32_t)ev.b, t); break;
            case EV_DISPATCH: break;   /* the dispatch below runs anyway */
            }
        }
        if (!st->failed) ee_dispatch(st, t);
        if (st->sink_failed) goto sink_fail;
        if (st->failed || out->oom) FAIL("simulation: out of memory");
    }

    /* every op completes under the rules (each kernel fits an empty SM and
     * the earliest-issued unfinished op can always move on); say so loudly
     * rather than hand back a trace with holes if that ever breaks */
    for (size_t i = 0; i < cfg->nops; i++) {
        const sim_op *o = &cfg->ops[i];
        int64_t end = o->kind == SIM_OP_KERNEL ? out->kernels.v[st->ops[i].rec].end
                    : o->kind == SIM_OP_COPY ? out->copies.v[st->ops[i].rec].end : 0;
        if (end == TRACE_NONE)
            FAIL("ops[%zu]: %s never completed; the simulator is stuck (please report this "
                 "configuration)", i, trace_str_get(out, st->ops[i].item));
    }
    ee_flush_blocks(st);
    if (st->sink_failed) goto sink_fail;

    free(order);
    state_free(st);
    return 0;

sink_fail:
    snprintf(err, errlen, "block sink failed on blocks[%zu..%zu]; the run stopped there",
             st->emitted, st->emitted + out->blocks.n - 1);
fail:
    free(order);
    state_free(st);
    return -1;
}
