/* sim.c -- sim_run: check the configuration, set up the run state, drive the
 * event loop, route events and fill the trace. The scheduling rules
 * themselves live in streams.c (G1, G4, C4, N1, N2, syncs), ee.c (G2, G3,
 * X1, A1, A2, R1-R3), ce.c (C1-C4), sms.c and the policies (policy.h).
 *
 * Order within one instant t (deterministic, DESIGN §8): first every
 * event of the device due at t in the order it was scheduled (blocks,
 * kernels and copies that end, arrivals, the driver's slices and
 * switches), then the host acts (every op due at t, in (time, array index)
 * order, and every CPU task's step due at t), then the events its actions
 * made due at t, then block dispatch. The device goes first because the
 * host learns of a completion at the instant it happens: a task that waits
 * for its kernel (GCAPS paper §4: it busy-waits or self-suspends for G^e)
 * and whose G^m ends with the kernel does not wait at all, rather than
 * suspend for no time and let a lower-priority task of its core start a
 * non-preemptive runlist update first (Example 2, Fig. 5(b) at 95 ms,
 * docs/rta.md); and a call the host makes at t reaches the GPU after what
 * the GPU itself does at t (its launch latency, zero at the least).
 * Dispatch waits for the whole instant so that blocks finishing together
 * are all gone before the scheduler looks for room.
 *
 * sim.c is the top of the call graph: the layers below report completions
 * by return value (ee_block_done) or by the event that fired, and sim.c
 * passes them up (streams_complete_head, host op_done). It also hands
 * blocks to the block sink, so nothing below knows there is one. */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ce.h"
#include "ee.h"
#include "qnames.h"
#include "state.h"
#include "streams.h"
#include "warp.h"

/* Longest single duration accepted (about 11.6 days), so that sums of
 * times stay far from int64 overflow. */
#define SIM_TIME_LIMIT 1000000000000000LL

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

static const char *proc_name(const sim_stream *s) {
    return s->process ? s->process : "P0";
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
    if (o->own_latency && (o->kind == SIM_OP_SYNC || o->launch_latency < 0 ||
                           o->launch_latency > SIM_TIME_LIMIT)) {
        if (o->kind == SIM_OP_SYNC)
            snprintf(err, errlen, "ops[%zu].launch_latency: a sync has no launch latency of its own", i);
        else
            snprintf(err, errlen, "ops[%zu].launch_latency: %lld ns is outside 0..%lld ns", i,
                     (long long)o->launch_latency, (long long)SIM_TIME_LIMIT);
        return -1;
    }
    switch (o->kind) {
    case SIM_OP_KERNEL: {
        if (o->blocks < 1 || o->blocks > INT32_MAX) {
            snprintf(err, errlen, "ops[%zu].blocks: %lld is outside 1..%d", i, (long long)o->blocks,
                     INT32_MAX);
            return -1;
        }
        char path[32];
        snprintf(path, sizeof path, "ops[%zu]", i);
        if (sim_kernel_fits(d, o->threads, o->smem, o->regs, path, err, errlen) != 0) return -1;
        /* a block's time is given (block_time) or comes out of its warps
         * (program, the warp-level model): one of the two */
        bool timed = o->block_time && o->nblock_time > 0;
        if (o->program && timed) {
            snprintf(err, errlen, "ops[%zu]: kernel %s gives both block_time and program; its "
                     "blocks take one or the other", i, o->name ? o->name : "(unnamed)");
            return -1;
        }
        if (o->program) return 0;
        if (!timed) {
            snprintf(err, errlen, "ops[%zu].block_time: missing; kernel %s needs at least one "
                     "block duration or a program", i, o->name ? o->name : "(unnamed)");
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

/* The fused block scheduler (ee.h) can run cfg: the shared driver, fixed
 * block times, no dispatch latency (what it inlines; most-room too when
 * chosen). QoS goals, whose ISCA'17 §3.6 share takes the general loop,
 * need warp execution, so fixed block times exclude them. */
static bool fused_dispatch(const sim_config *cfg) {
    const driver_policy *dr = driver_get(cfg->policy.driver);
    const exec_policy *ex = exec_get(cfg->policy.execution);
    return dr && ex && dr->earliest_ee && !dr->block_placed && ex->fixed &&
           cfg->policy.dispatch_latency == 0 && !cfg->general_loop;
}

bool sim_cohorts_apply(const sim_config *cfg) {
    const placement_policy *pl = placement_get(cfg->policy.placement);
    /* cohort.c says why each condition */
    return cfg->cohorts && fused_dispatch(cfg) && pl && pl->wave &&
           cfg->device.nsmem_carveouts == 0;
}

/* QoS goals (ISCA'17 §3.2): in (0, 1], on kernels with a program, under a
 * quota warp policy or the run-time Spart (placement spart-climb). Returns
 * 1 when some op has a goal, 0 when none, -1 with "ops[i].qos_goal: why"
 * in err. */
static int check_goals(const sim_config *cfg, char *err, size_t errlen) {
    int any = 0;
    for (size_t i = 0; i < cfg->nops; i++) {
        const sim_op *o = &cfg->ops[i];
        if (o->qos_goal == 0) continue;
        if (!(o->qos_goal > 0 && o->qos_goal <= 1)) {
            snprintf(err, errlen, "ops[%zu].qos_goal: %g is outside (0, 1] (a fraction of the "
                     "IPC the kernel reaches alone)", i, o->qos_goal);
            return -1;
        }
        if (o->kind != SIM_OP_KERNEL) {
            snprintf(err, errlen, "ops[%zu].qos_goal: only kernels have QoS goals", i);
            return -1;
        }
        if (!o->program) {
            snprintf(err, errlen, "ops[%zu].qos_goal: kernel %s runs for a fixed block_time; a "
                     "QoS goal needs a program (execution \"warp\")", i,
                     o->name ? o->name : "(unnamed)");
            return -1;
        }
        const exec_policy *ex = exec_get(cfg->policy.execution);
        const warp_policy *wp = warp_get(cfg->policy.warp);
        const placement_policy *pl = placement_get(cfg->policy.placement);
        bool climb = pl && pl->qos_epoch;   /* spart-climb pursues goals with SMs */
        if (!ex || strcmp(ex->name, "warp") != 0 || !wp || !(wp->quota || climb)) {
            snprintf(err, errlen, "ops[%zu].qos_goal: %s; QoS goals need a quota warp policy "
                     "(policy.warp quota-naive, quota-history, quota-elastic, "
                     "quota-rollover or quota-rollover-time) or placement spart-climb", i,
                     !ex || strcmp(ex->name, "warp") != 0 ? "execution is not \"warp\""
                     : !wp ? "policy.warp is unknown" : "policy.warp has no quotas");
            return -1;
        }
        any = 1;
    }
    return any;
}

/* H100-W1 (sms.h): a kernel of fewer blocks than the device has SMs
 * prefers the first `blocks` SMs of the device's wave order, as ranks of
 * sm_order (s->rank). Every other kernel, and every device without a wave
 * order, keeps need.wave NULL: sm_order alone breaks ties. */
static void wave_need(const sim_device *d, const sim_sms *s, sim_kstate *K) {
    K->need.wave = NULL;
    if (d->nwave_order == 0 || K->blocks >= d->sms) return;
    memset(K->wave, 0, sizeof K->wave);
    for (int64_t i = 0; i < K->blocks; i++) {
        int32_t r = s->rank[d->wave_order[i]];
        K->wave[r / 64] |= (uint64_t)1 << (r % 64);
    }
    K->need.wave = K->wave;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The block sink (sim.h): while the trace holds a whole batch, hand the
 * sink the oldest `batch` blocks and drop them. Batches are always exactly
 * `batch` blocks but the last, whatever the instants they span. Returns -1
 * when the sink refused a batch. */
typedef struct sink_state {
    const sim_block_sink *sink;
    size_t batch;            /* blocks per emit() */
    size_t emitted;          /* blocks handed over so far */
    bool hold_open;          /* keep blocks whose end is unknown (TRACE_NONE): a driver
                                that switches contexts, or an execution model whose
                                blocks end later (exec_warp), sets it when they finish */
    int64_t next_placed;     /* call the sink's placed() once this many are placed */
} sink_state;

/* The sink's placed() (sim.h), once `batch` more blocks are placed since
 * its last call: those handed to emit(), those still in the trace and those
 * kept as cohorts. Returns -1 when it stopped the run. */
static int sink_placed(sink_state *k, const sim_state *st, const trace *t) {
    if (!k->sink || !k->sink->placed) return 0;
    int64_t placed = (int64_t)(k->emitted + t->blocks.n) + st->cohort_blocks;
    if (placed < k->next_placed) return 0;
    k->next_placed = placed + (int64_t)k->batch;
    return k->sink->placed(k->sink->ctx, placed) != 0 ? -1 : 0;
}

static int sink_flush(sink_state *k, trace *t, bool final) {
    if (!k->sink) return 0;
    size_t avail = t->blocks.n;   /* the leading blocks that may go */
    if (k->hold_open && !final && avail >= k->batch)
        for (size_t i = 0; i < avail; i++)
            if (t->blocks.v[i].end == TRACE_NONE) {
                avail = i;
                break;
            }
    size_t off = 0;
    while (avail - off >= k->batch || (final && avail > off)) {
        size_t n = avail - off < k->batch ? avail - off : k->batch;
        if (k->sink->emit(k->sink->ctx, t->blocks.v + off, n) != 0) {
            /* keep the refused batch first in the trace for the message */
            if (off) {
                memmove(t->blocks.v, t->blocks.v + off, (t->blocks.n - off) * sizeof *t->blocks.v);
                t->blocks.n -= off;
            }
            return -1;
        }
        k->emitted += n;
        off += n;
    }
    /* nothing in simcore reads a block back once placed, so the buffer is
     * reused for the next batch */
    if (off) {
        memmove(t->blocks.v, t->blocks.v + off, (t->blocks.n - off) * sizeof *t->blocks.v);
        t->blocks.n -= off;
    }
    return 0;
}

static void state_free(sim_state *st) {
    if (st->host && st->host->fini && st->host_state) st->host->fini(st->host_state);
    if (st->host && st->host->expand_free && st->xmem) st->host->expand_free(st->xmem);
    if (st->driver && st->driver->fini && st->driver_state) st->driver->fini(st->driver_state);
    if (st->exec && st->exec->fini && st->exec_state) st->exec->fini(st->exec_state);
    if (st->placement && st->placement->fini && st->placement_state)
        st->placement->fini(st->placement_state);
    free(st->host_state);
    free(st->driver_state);
    free(st->exec_state);
    free(st->placement_state);
    sim_engine_free(&st->eng);
    bq_free(&st->bq);
    sms_free(&st->sms);
    free(st->ops);
    free(st->sync_times);
    free(st->op_next);
    free(st->op_ce_next);
    free(st->ks);
    free(st->k_ee_next);
    free(st->ss);
    free(st->stream_of);
    free(st->htasks);
    free(st->procs);
    free(st->cand);
    free(st->levels);
    free(st->ipc_isolated);
    free(st->share_res);
    free(st->share_tmp);
    free(st->share_adj);
    free(st->part_first);
    free(st->part_count);
    free(st->part_on);
    free(st->coh_last);
    free(st->ee);
}

/* A policy's state: state_size zeroed bytes (one byte when it keeps none,
 * so that NULL always means "out of memory"). */
static void *policy_state(size_t size) {
    return calloc(1, size ? size : 1);
}

/* A stream's priority on device d: clamped into [greatest_priority, 0]
 * where the device knows its range, as CUDA clamps it (CUDA Runtime API,
 * cudaStreamCreateWithPriority; the TX2's range is -1..0, TX2 paper §4.2);
 * as given where it does not, and SIM_PRIO_NONE stays none. */
static int32_t stream_priority(const sim_device *d, int32_t p) {
    if (p == SIM_PRIO_NONE || d->greatest_priority >= 0) return p;
    if (p < d->greatest_priority) return d->greatest_priority;
    return p > 0 ? 0 : p;
}

/* Processes, streams (one per distinct process/name) and EE levels. */
static int setup_streams(sim_state *st, char *err, size_t errlen) {
    const sim_config *cfg = st->cfg;
    size_t n = cfg->nstreams;
    st->ss = calloc(n ? n : 1, sizeof *st->ss);
    st->stream_of = calloc(n ? n : 1, sizeof *st->stream_of);
    st->procs = calloc(n ? n : 1, sizeof *st->procs);
    st->cand = calloc(n ? n : 1, sizeof *st->cand);
    st->levels = calloc(n ? n : 1, sizeof *st->levels);
    if (!st->ss || !st->stream_of || !st->procs || !st->cand || !st->levels) {
        snprintf(err, errlen, "simulation: out of memory");
        return -1;
    }
    /* the CPU tasks issuing to the streams (TX2 paper §2.2): stream_of holds
     * each entry's task until the entry's stream is set up below */
    int64_t ntasks = sim_stream_tasks(cfg->streams, n, st->stream_of, err, errlen);
    if (ntasks < 0) return -1;
    st->htasks = calloc(ntasks ? (size_t)ntasks : 1, sizeof *st->htasks);
    if (!st->htasks) {
        snprintf(err, errlen, "simulation: out of memory");
        return -1;
    }
    st->nhtasks = (size_t)ntasks;
    for (size_t i = 0; i < st->nhtasks; i++) st->htasks[i].held = SIM_FIFO_EMPTY;
    /* "none" is the lowest level: CUDA's default priority is 0, the least
     * priority, and the TX2 treats none as low (TX2 paper §4.2, Fig. 7).
     * With integer priorities below zero only, none is 0; otherwise it
     * shares the level of the lowest priority given. A device that knows
     * its priority range clamps each priority into it first (device.h,
     * greatest_priority). */
    int32_t none_level = 0;
    st->tx2_levels = true;
    for (size_t i = 0; i < n; i++) {
        int32_t p = stream_priority(st->dev, cfg->streams[i].priority);
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
        int32_t given = stream_priority(st->dev, s->priority);
        int32_t prio = given == SIM_PRIO_NONE ? none_level : given;
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
            const char *tj = cfg->streams[j].task;
            if ((tj == NULL) != (s->task == NULL) || (tj && strcmp(tj, s->task) != 0)) {
                snprintf(err, errlen, "streams[%zu].task: stream %s/%s is listed again "
                         "(streams[%zu]) with another task", i, pn, s->name, j);
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
        int32_t task = st->stream_of[i];
        st->stream_of[i] = si;
        sim_sstate *ss = &st->ss[si];
        ss->proc = (int32_t)p;
        ss->priority = given;   /* as cudaStreamGetPriority reports it: clamped */
        ss->level = prio;    /* a priority value for now; an index below */
        ss->is_null = strcmp(s->name, "null") == 0;
        ss->task = task;
        st->htasks[task].proc = (int32_t)p;
        st->htasks[task].name = s->task;
        ss->queue = SIM_FIFO_EMPTY;
        ss->next_in_proc = -1;
        ss->name = trace_intern(st->t, s->name);
        ss->qname = qname_stream(st->t, pn, s->name);
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
    for (size_t q = 0; q < nq; q++) st->ee[q].q = SIM_FIFO_EMPTY;
    return 0;
}

/* Report a completed op to a host that waits for its work (policy.h:
 * op_done); the event loop then asks it again within the instant. */
static inline void tell_host(sim_state *st, int32_t op, int64_t t) {
    if (st->host->op_done) {
        st->host->op_done(st->host_state, st, op, t);
        st->host_told = true;
    }
}

/* An event is passed to the layer that owns it; what it completes goes up
 * from here (the one-way rule of state.h). */
static void route_event(sim_state *st, const sim_event *ev) {
    int64_t t = ev->t;
    switch (ev->type) {
    case EV_ARRIVE:
        streams_arrive(st, ev->a, t);
        break;
    case EV_BLOCK_DONE:
        if (st->fast_dispatch) {
            /* a block too long for st->bq: its kernel completes by an
             * EV_KERNEL_DONE, as those in st->bq do (blockq.h) */
            ee_block_done_fast(st, ev->a, (int32_t)ev->b, t);
        } else if (ee_block_done(st, ev->a, (int32_t)ev->b, t)) {
            int32_t op = st->ks[ev->a].op;
            streams_complete_head(st, st->ops[op].stream, t);   /* TX2 paper, rule G4 */
            tell_host(st, op, t);
        }
        break;
    case EV_KERNEL_DONE: {
        int32_t op = st->ks[ev->a].op;
        st->t->kernels.v[ev->a].end = t;
        streams_complete_head(st, st->ops[op].stream, t);       /* TX2 paper, rule G4 */
        tell_host(st, op, t);
        break;
    }
    case EV_COPY_DONE:
        ce_copy_done(st, ev->a, (int32_t)ev->b, t);
        streams_complete_head(st, st->ops[ev->b].stream, t);     /* TX2 paper, rule C4 */
        tell_host(st, (int32_t)ev->b, t);
        break;
    case EV_BLOCK_PREEMPTED:
        ee_block_preempted(st, ev->a, (int32_t)ev->b, t);
        break;
    case EV_DISPATCH:
        break;   /* the dispatch after the instant's events runs anyway */
    case EV_EXEC:
        if (st->exec->on_event) st->exec->on_event(st->exec_state, st, ev);
        break;
    case EV_DRIVER:
        if (st->driver->on_event) st->driver->on_event(st->driver_state, st, ev);
        break;
    }
}

static int cmp_call(const void *a, const void *b) {
    const int64_t *x = a, *y = b;   /* {at, index} */
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The trace's host_calls (trace.h): in a scripted run whose tasks can be
 * held (a sync or a blocking copy, TX2 paper §2.3), every op in the order
 * the host called it, with its task, its scripted time and, for a sync,
 * when it was called and returned: what a trace must carry for a replay to
 * hold the same ops the same way (server/app/replay.c). Other runs record
 * none, so their traces are as before. */
static int record_host_calls(sim_state *st) {
    const sim_config *cfg = st->cfg;
    trace *out = st->t;
    bool holds = false;
    for (size_t i = 0; i < cfg->nops && !holds; i++)
        holds = cfg->ops[i].kind == SIM_OP_SYNC ||
                (cfg->ops[i].kind == SIM_OP_COPY && cfg->ops[i].blocking);
    if (!holds) return 0;
    int64_t (*order)[2] = malloc(cfg->nops * sizeof *order);
    if (!order) return -1;
    for (size_t i = 0; i < cfg->nops; i++) {
        order[i][0] = cfg->ops[i].at;
        order[i][1] = (int64_t)i;
    }
    qsort(order, cfg->nops, sizeof *order, cmp_call);   /* host_script.c's order */
    for (size_t j = 0; j < cfg->nops; j++) {
        size_t i = (size_t)order[j][1];
        const sim_op *o = &cfg->ops[i];
        const sim_opstate *os = &st->ops[i];
        const sim_sstate *ss = &st->ss[os->stream];
        trace_host_call *c = trace_add_host_call(out);
        if (!c) {
            free(order);
            return -1;
        }
        c->at = o->at;
        const char *task = o->task ? o->task : cfg->streams[o->stream].task;
        c->task = task ? trace_intern(out, task) : 0;
        if (o->kind == SIM_OP_SYNC) {
            c->kind = o->sync_device ? TRACE_CALL_DEVICE_SYNC : TRACE_CALL_SYNC;
            c->name = os->item;
            c->stream = ss->name;
            c->process = st->procs[ss->proc].name;
            c->issue = st->sync_times[os->rec][0];
            c->end = st->sync_times[os->rec][1];
        } else {
            c->kind = o->kind == SIM_OP_KERNEL ? TRACE_CALL_KERNEL : TRACE_CALL_COPY;
            c->record = os->rec;
            c->blocking = o->kind == SIM_OP_COPY && o->blocking;
        }
    }
    free(order);
    return out->oom ? -1 : 0;
}

/* The CPU task that calls op i of a NULL stream naming one (sim_op.task):
 * the task of that name in the op's process, added when it issues to the
 * NULL stream alone; -1 with the message when the name is a task of
 * another process (TX2 paper §2.2: a task is an OS thread of one process),
 * or out of memory. */
static int32_t op_task(sim_state *st, size_t i, char *err, size_t errlen) {
    const sim_op *o = &st->cfg->ops[i];
    const sim_sstate *ss = &st->ss[st->ops[i].stream];
    if (!*o->task) {
        snprintf(err, errlen, "ops[%zu].task: empty; name the CPU task that calls it, or leave "
                 "the key out (the NULL stream's own task)", i);
        return -1;
    }
    for (size_t k = 0; k < st->nhtasks; k++) {
        const sim_htask *h = &st->htasks[k];
        if (!h->name || strcmp(h->name, o->task) != 0) continue;
        if (h->proc != ss->proc) {
            snprintf(err, errlen, "ops[%zu].task: task \"%s\" is a thread of process \"%s\" "
                     "(TX2 paper §2.2: a task is an OS thread of one process), and this op "
                     "goes to the NULL stream of \"%s\"", i, o->task,
                     trace_str_get(st->t, st->procs[h->proc].name),
                     trace_str_get(st->t, st->procs[ss->proc].name));
            return -1;
        }
        return (int32_t)k;
    }
    sim_htask *nv = realloc(st->htasks, (st->nhtasks + 1) * sizeof *nv);
    if (!nv) {
        snprintf(err, errlen, "simulation: out of memory");
        return -1;
    }
    st->htasks = nv;
    memset(&nv[st->nhtasks], 0, sizeof *nv);
    nv[st->nhtasks].held = SIM_FIFO_EMPTY;
    nv[st->nhtasks].proc = ss->proc;
    nv[st->nhtasks].name = o->task;
    return (int32_t)st->nhtasks++;
}

/* The policy's own checks: what sim_run refuses before it simulates
 * anything (sim.h, sim_check_policy). */
int sim_check_policy(const sim_config *cfg, char *err, size_t errlen) {
    const placement_policy *placement = placement_get(cfg->policy.placement);
    const exec_policy *exec = exec_get(cfg->policy.execution);
    const driver_policy *driver = driver_get(cfg->policy.driver);
    const host_policy *host = host_get(cfg->policy.host);
    if (!placement) FAIL("policy.placement: %d is not a placement policy (0..%zu)",
                         (int)cfg->policy.placement, sim_placement_count() - 1);
    if (!exec) FAIL("policy.execution: %d is not an execution model (0..%zu)",
                    (int)cfg->policy.execution, sim_policy_count(SIM_TABLE_EXECUTION) - 1);
    if (!driver) FAIL("policy.driver: %d is not a driver policy (0..%zu)",
                      (int)cfg->policy.driver, sim_policy_count(SIM_TABLE_DRIVER) - 1);
    if (!host) FAIL("policy.host: %d is not a host policy (0..%zu)",
                    (int)cfg->policy.host, sim_policy_count(SIM_TABLE_HOST) - 1);
    if (cfg->ntasks && !host->expand)
        FAIL("tasks: the host policy \"%s\" runs no tasks (host \"tasks\" does)", host->name);
    if (driver->block_placed && exec != exec_get(0))
        FAIL("policy.contexts: \"%s\" pauses blocks, which needs each block's time known when "
             "it is placed (execution \"%s\")", driver->name, exec_get(0)->name);
    if (cfg->policy.launch_latency < 0 || cfg->policy.launch_latency > SIM_TIME_LIMIT)
        FAIL("policy.launch_latency: %lld ns is outside 0..%lld ns",
             (long long)cfg->policy.launch_latency, (long long)SIM_TIME_LIMIT);
    if (cfg->policy.dispatch_latency < 0 || cfg->policy.dispatch_latency > SIM_TIME_LIMIT)
        FAIL("policy.dispatch_latency: %lld ns is outside 0..%lld ns",
             (long long)cfg->policy.dispatch_latency, (long long)SIM_TIME_LIMIT);
    if (cfg->policy.tb_adjust) {
        const warp_policy *wp = warp_get(cfg->policy.warp);
        if (strcmp(exec->name, "warp") != 0 || !wp || !wp->quota)
            FAIL("policy.tb_adjust: ISCA'17 §3.6's TB adjustment is the quota schemes' "
                 "(execution \"warp\", policy.warp quota-*)");
        if (!cfg->policy.has_sm_preempt)
            FAIL("policy.tb_adjust: TBs are swapped out by preemption; give policy.sm_preempt "
                 "(the time to save an SM's context)");
    }
    if (cfg->policy.has_quota_history) {
        const warp_policy *wp = warp_get(cfg->policy.warp);
        if (strcmp(exec->name, "warp") != 0 || !wp || !wp->quota)
            FAIL("policy.quota_history: ISCA'17 §3.4.2's history-based adjustment is the quota "
                 "schemes' (execution \"warp\", policy.warp quota-*)");
    }
    /* the climb's options (spart.c) belong to the placement that climbs */
    const sim_policy *pol = &cfg->policy;
    if ((pol->spart_take_last || pol->spart_take_only || pol->spart_trial) && !placement->qos_epoch)
        FAIL("policy.%s: only placement \"spart-climb\" moves SMs between partitions "
             "(here \"%s\")", pol->spart_take_last ? "spart_take_last" :
             pol->spart_take_only ? "spart_take_only" : "spart_trial", placement->name);
    if (pol->spart_trial && pol->spart_take_only)
        FAIL("policy.spart_trial: the climb gives SMs back by trial, and spart_take_only says it "
             "gives none back; give one of the two");
    /* a preempted warp would take its place in a memory queue with it
     * (exec_warp.c, mq_turn): the two are not modelled together */
    if (cfg->policy.has_sm_preempt && cfg->device.mem_admission)
        FAIL("device.mem_admission: arrival order is not modelled with preemption "
             "(policy.sm_preempt)");
    if (cfg->policy.has_sm_preempt &&
        (cfg->policy.sm_preempt < 0 || cfg->policy.sm_preempt > SIM_TIME_LIMIT))
        FAIL("policy.sm_preempt: %lld ns is outside 0..%lld ns",
             (long long)cfg->policy.sm_preempt, (long long)SIM_TIME_LIMIT);
    if (cfg->policy.has_context_switch_idle &&
        (cfg->policy.context_switch_idle < 0 || cfg->policy.context_switch_idle > SIM_TIME_LIMIT))
        FAIL("policy.context_switch_idle: %lld ns is outside 0..%lld ns",
             (long long)cfg->policy.context_switch_idle, (long long)SIM_TIME_LIMIT);
    return 0;
fail:
    return -1;
}

int sim_run(const sim_config *cfg, trace *out, char *err, size_t errlen) {
    sim_state stv;
    sim_state *st = &stv;
    memset(st, 0, sizeof *st);
    sink_state sink = { 0 };
    st->cfg = cfg;
    st->t = out;
    sim_engine_init(&st->eng);
    if (errlen) err[0] = '\0';

    st->placement = placement_get(cfg->policy.placement);
    st->exec = exec_get(cfg->policy.execution);
    st->driver = driver_get(cfg->policy.driver);
    st->host = host_get(cfg->policy.host);
    if (sim_check_policy(cfg, err, errlen) != 0) goto fail;
    st->devcopy = cfg->device;
    sim_device_fill_order(&st->devcopy);
    st->dev = &st->devcopy;
    if (sim_device_validate(st->dev, err, errlen) != 0) goto fail;
    if (st->host->expand) {
        /* the host's own ops (one kernel per job of each task) join the config */
        if (st->host->expand(cfg, &st->xcfg, &st->xmem, err, errlen) != 0) goto fail;
        cfg = st->cfg = &st->xcfg;
    }
    if (cfg->nops && !cfg->ops) FAIL("ops: %zu ops but no array", cfg->nops);
    if (cfg->nstreams && !cfg->streams) FAIL("streams: %zu streams but no array", cfg->nstreams);
    if (cfg->nops > INT32_MAX) FAIL("ops: %zu ops is more than %d", cfg->nops, INT32_MAX);
    sink.sink = cfg->block_sink;
    st->block_limit = SIZE_MAX;
    if (sink.sink) {
        if (!sink.sink->emit) FAIL("block_sink.emit: missing; a sink needs a function to call");
        sink.batch = sink.sink->batch ? sink.sink->batch : SIM_SINK_BATCH;
        sink.next_placed = (int64_t)sink.batch;
        st->block_limit = sink.batch;
        /* paused blocks end later than placed: dispatch never waits for the
         * sink, which takes only blocks that have ended */
        sink.hold_open = st->driver->block_placed != NULL || st->exec->ends_later;
        if (sink.hold_open) st->block_limit = SIZE_MAX;
    }

    size_t nblocks = 0;
    for (size_t i = 0; i < cfg->nops; i++) {
        if (check_op(cfg, st->dev, i, err, errlen) != 0) goto fail;
        if (cfg->ops[i].kind == SIM_OP_KERNEL) {
            const sim_op *o = &cfg->ops[i];
            st->nkernels++;
            nblocks += o->program && o->program->persistent && o->blocks > st->dev->sms
                     ? (size_t)st->dev->sms : (size_t)o->blocks;
        }
    }
    if (st->exec->check &&
        st->exec->check(cfg, st->dev, st->driver->block_placed != NULL, err, errlen) != 0)
        goto fail;
    int goals = check_goals(cfg, err, errlen);
    if (goals < 0) goto fail;
    if (goals) {
        /* ISCA'17 §3.2: every program kernel's IPC alone on the device, the
         * QoS kernels' for their goals, the others' for their throughput */
        sim_ipc_cache own;
        sim_ipc_cache *cache = cfg->ipc_cache ? cfg->ipc_cache : &own;
        if (!cfg->ipc_cache) sim_ipc_cache_init(&own);
        st->ipc_isolated = calloc(st->nkernels ? st->nkernels : 1, sizeof *st->ipc_isolated);
        int rc = st->ipc_isolated ? 0 : -1;
        if (rc) snprintf(err, errlen, "simulation: out of memory");
        for (size_t i = 0, k = 0; rc == 0 && i < cfg->nops; i++) {
            if (cfg->ops[i].kind != SIM_OP_KERNEL) continue;
            if (cfg->ops[i].program)
                rc = sim_ipc_isolated(cfg, i, cache, &st->ipc_isolated[k], err, errlen);
            k++;
        }
        if (!cfg->ipc_cache) sim_ipc_cache_free(&own);
        if (rc) goto fail;
    }

    /* the trace: device, names, one record per kernel and copy up front so
     * that records are addressed by index while the simulation runs */
    if (trace_set_name(out, cfg->name) != 0 || trace_set_source(out, "simulation") != 0)
        FAIL("simulation: out of memory");
    out->device = st->devcopy;
    out->has_device = true;
    trace_set_meta(out, "placement", st->placement->name);
    if (cfg->policy.driver) {
        /* what a reader needs to analyse the run (server: compare, rta) */
        char v[32];
        trace_set_meta(out, "contexts", st->driver->name);
        snprintf(v, sizeof v, "%lld", (long long)(cfg->policy.time_slice > 0
                                                      ? cfg->policy.time_slice
                                                      : SIM_DEFAULT_TIME_SLICE));
        trace_set_meta(out, "time_slice", v);
        snprintf(v, sizeof v, "%lld", (long long)cfg->policy.context_switch);
        trace_set_meta(out, "context_switch", v);
        snprintf(v, sizeof v, "%lld", (long long)cfg->policy.runlist_update);
        trace_set_meta(out, "runlist_update", v);
        if (cfg->policy.ioctl_bookkeeping) {
            snprintf(v, sizeof v, "%lld", (long long)cfg->policy.ioctl_bookkeeping);
            trace_set_meta(out, "ioctl_bookkeeping", v);
        }
        if (cfg->policy.has_context_switch_idle) {
            snprintf(v, sizeof v, "%lld", (long long)cfg->policy.context_switch_idle);
            trace_set_meta(out, "context_switch_idle", v);
        }
    }
    if (cfg->ntasks)
        trace_set_meta(out, "gpu_wait", cfg->policy.gpu_wait == SIM_WAIT_BUSY ? "busy" : "suspend");

    if (setup_streams(st, err, errlen) != 0) goto fail;
    if (st->placement->partitioned) {
        /* the SM partitions as configured; spart-climb moves them (spart.c) */
        size_t ns1 = st->cfg->nstreams ? st->cfg->nstreams : 1;
        st->part_first = malloc(ns1 * sizeof *st->part_first);
        st->part_count = malloc(ns1 * sizeof *st->part_count);
        st->part_on = malloc(ns1 * sizeof *st->part_on);
        if (!st->part_first || !st->part_count || !st->part_on)
            FAIL("simulation: out of memory");
        for (size_t i = 0; i < st->cfg->nstreams; i++) {
            st->part_first[i] = st->cfg->streams[i].sm_first;
            st->part_count[i] = st->cfg->streams[i].sm_count;
            st->part_on[i] = st->cfg->streams[i].sm_count > 0;
        }
    }

    size_t nops1 = cfg->nops ? cfg->nops : 1, nk1 = st->nkernels ? st->nkernels : 1;
    st->ops = calloc(nops1, sizeof *st->ops);
    st->op_next = malloc(nops1 * sizeof *st->op_next);
    st->op_ce_next = malloc(nops1 * sizeof *st->op_ce_next);
    st->ks = calloc(nk1, sizeof *st->ks);
    st->k_ee_next = malloc(nk1 * sizeof *st->k_ee_next);
    size_t nsync = 0;
    for (size_t i = 0; i < cfg->nops; i++) nsync += cfg->ops[i].kind == SIM_OP_SYNC;
    st->sync_times = malloc((nsync ? nsync : 1) * sizeof *st->sync_times);
    if (!st->ops || !st->op_next || !st->op_ce_next || !st->ks || !st->k_ee_next ||
        !st->sync_times)
        FAIL("simulation: out of memory");
    nsync = 0;
    if (sms_init(&st->sms, st->dev) != 0) FAIL("simulation: out of memory");
    if (goals) {
        /* ISCA'17 §3.6: the equal per-SM share of each co-running kernel
         * while a QoS kernel runs (ee.c) */
        st->share_res = calloc(nk1 * (size_t)st->dev->sms, sizeof *st->share_res);
        st->share_tmp = malloc((4 * nk1 + 2) * sizeof *st->share_tmp);
        if (!st->share_res || !st->share_tmp) FAIL("simulation: out of memory");
        if (cfg->policy.tb_adjust) {
            st->share_adj = calloc(nk1 * (size_t)st->dev->sms, sizeof *st->share_adj);
            if (!st->share_adj) FAIL("simulation: out of memory");
        }
    }

    st->nce = st->dev->copy_engines;
    for (int32_t e = 0; e < st->nce; e++) {
        st->ce[e].q = SIM_FIFO_EMPTY;
        st->ce[e].qname = qname_ce(out, e, st->nce);
    }

    size_t nk = 0;
    for (size_t i = 0; i < cfg->nops; i++) {
        const sim_op *o = &cfg->ops[i];
        sim_opstate *os = &st->ops[i];
        st->op_next[i] = st->op_ce_next[i] = -1;
        os->stream = st->stream_of[o->stream];
        const sim_sstate *ss = &st->ss[os->stream];
        os->task = ss->task;
        if (o->task) {
            /* TX2 paper §2.3: every CPU program issues to the one default
             * stream; an op of any other names no task (its stream's calls) */
            if (!ss->is_null)
                FAIL("ops[%zu].task: stream \"%s\" is issued to by its own task "
                     "(streams[].task); only an op of the NULL stream names the task that calls "
                     "it, since every CPU program of a process issues to that one default "
                     "stream (TX2 paper §2.3)", i, trace_str_get(out, ss->name));
            if ((os->task = op_task(st, i, err, errlen)) < 0) goto fail;
        }
        char fallback[32];
        const char *name = o->name;
        if (!name) {
            snprintf(fallback, sizeof fallback, "op%zu", i);
            name = fallback;
        }
        os->item = trace_intern(out, name);
        if (o->kind == SIM_OP_KERNEL) {
            sim_kstate *K = &st->ks[nk];
            K->op = (int32_t)i;
            K->proc = ss->proc;
            K->level = ss->level;
            st->k_ee_next[nk] = -1;
            K->need = sms_need(st->dev, o->threads, o->regs, o->smem);
            carve_need(st->dev, &K->need);   /* H100-C1: the device's carveouts, if any */
            K->blocks = o->blocks;
            /* persistent threads (QAWS §V-A): one block per SM does the
             * work of all of them (exec_warp.c splits it) */
            if (o->program && o->program->persistent && K->blocks > st->dev->sms)
                K->blocks = st->dev->sms;
            wave_need(st->dev, &st->sms, K);
            K->block_time = o->block_time;
            K->nblock_time = o->nblock_time;
            K->uniform = o->block_time && o->nblock_time > 0;   /* cohort.c */
            for (size_t j = 1; K->uniform && j < o->nblock_time; j++)
                K->uniform = o->block_time[j] == o->block_time[0];
            trace_kernel *k = trace_add_kernel(out);
            if (!k) FAIL("simulation: out of memory");
            k->name = os->item;
            k->stream = ss->name;
            k->process = st->procs[ss->proc].name;
            k->priority = ss->priority;
            k->threads = o->threads;
            k->blocks = K->blocks;
            k->smem = o->smem;
            k->regs = o->regs;
            k->grid[0] = (int32_t)K->blocks;
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
            os->rec = (int32_t)nsync;
            st->sync_times[nsync][0] = st->sync_times[nsync][1] = TRACE_NONE;
            nsync++;
        }
    }

    /* the fused block scheduler (ee.h); ISCA'17 §3.6's share: the general loop */
    st->fast_dispatch = fused_dispatch(cfg) && !st->share_res;
    /* cohorts (sim.h): on the fused scheduler only (cohort.c says why) */
    st->cohorts = st->fast_dispatch && sim_cohorts_apply(cfg);
    if (st->cohorts) {
        st->coh_last = malloc((size_t)st->sms.n * sizeof *st->coh_last);
        if (!st->coh_last) FAIL("simulation: out of memory");
        for (int32_t i = 0; i < st->sms.n; i++) st->coh_last[i] = -1;
    }

    /* the policies' state, placement first: nothing has run yet */
    st->placement_state = policy_state(st->placement->state_size);
    st->exec_state = policy_state(st->exec->state_size);
    st->driver_state = policy_state(st->driver->state_size);
    st->host_state = policy_state(st->host->state_size);
    if (!st->placement_state || !st->exec_state || !st->driver_state || !st->host_state)
        FAIL("simulation: out of memory");
    if (st->placement->init && st->placement->init(st->placement_state, st, err, errlen) != 0)
        goto fail;
    if (st->exec->init && st->exec->init(st->exec_state, st) != 0)
        FAIL("simulation: out of memory");
    if (st->driver->init && st->driver->init(st->driver_state, st) != 0)
        FAIL("simulation: out of memory");
    if (st->host->init && st->host->init(st->host_state, st, err, errlen) != 0) goto fail;

    /* every block is one record; no allocation per block while running
     * (with a sink, the trace holds one batch at a time) */
    size_t keep = sink.sink && sink.batch < nblocks ? sink.batch : nblocks;
    size_t slots = (size_t)st->dev->sms * (size_t)st->dev->blocks_per_sm;
    /* with cohorts, most blocks are not records: the buffer grows as needed */
    if (st->cohorts && keep > 4 * slots) keep = 4 * slots;
    if (trace_reserve_blocks(out, keep) != 0) FAIL("simulation: out of memory for %zu blocks", keep);
    if (slots > nblocks) slots = nblocks;
    if (sim_engine_reserve(&st->eng, slots + cfg->nops + 8) != 0) FAIL("simulation: out of memory");
    /* most pending events are block completions: let the engine's wheel
     * reach twice the longest block time ahead (only a speed hint, engine.h) */
    int64_t longest = 0;
    for (size_t i = 0; i < cfg->nops; i++)
        if (cfg->ops[i].kind == SIM_OP_KERNEL && cfg->ops[i].block_time)
            for (size_t j = 0; j < cfg->ops[i].nblock_time; j++)
                if (cfg->ops[i].block_time[j] > longest) longest = cfg->ops[i].block_time[j];
    if (longest > 0) sim_engine_set_span(&st->eng, 2 * (longest + cfg->policy.dispatch_latency));
    /* the fast path's blocks end in st->bq (blockq.h): one 1-ns slot per
     * time up to the longest block time, one node per block slot of the
     * device (each pending block holds one) */
    st->bq.next = INT64_MAX;
    if (st->fast_dispatch && nblocks && bq_init(&st->bq, longest + 1, slots) != 0)
        FAIL("simulation: out of memory");
    if (out->oom) FAIL("simulation: out of memory");

    for (;;) {
        int64_t t_host = st->host->next_time(st->host_state);
        int64_t t_ev = sim_engine_next_time(&st->eng);
        if (st->bq.next < t_ev) t_ev = st->bq.next;
        if (t_host == INT64_MAX && t_ev == INT64_MAX) break;
        int64_t t = t_host < t_ev ? t_host : t_ev;
        if (cfg->stop > 0 && t >= cfg->stop) break;   /* sim.h: the stop time */
        /* the device's events due at t before the host acts at t (the
         * head of this file says why); the fast path's blocks ending at t
         * first: giving SMs back and counting commutes with every event of
         * the instant (blockq.h) */
        st->host_told = false;
        if (st->bq.next == t) ee_blocks_due(st, t);
        sim_event ev;
        while (!st->failed && sim_engine_pop_at(&st->eng, t, &ev)) route_event(st, &ev);
        /* t_host as asked before the events: a completion reported to the
         * host since (tell_host) may have made it due at t (a task that
         * waited for it goes on); otherwise it keeps its time */
        if (!st->failed && (t_host == t || (st->host_told &&
                                            st->host->next_time(st->host_state) == t))) {
            st->host->issue(st->host_state, st, t);
            /* what the host's actions made due at t (an op without launch
             * latency reaches its queue at once; a zero-time completion) */
            while (!st->failed && sim_engine_pop_at(&st->eng, t, &ev)) route_event(st, &ev);
        }
        /* the fast path inline (ee.h); it has no dispatch latency, so no
         * sched_free_at to wait for */
        while (!st->failed && (st->fast_dispatch ? ee_dispatch_fast(st, t) : ee_dispatch(st, t))
                                  == EE_DISPATCH_FULL) {
            if (sink_flush(&sink, out, false) != 0) goto sink_fail;
            st->blocks_flushed = sink.emitted;
        }
        if (st->exec->instant_end && !st->failed) {
            /* the cycles it runs on its own end before the next action:
             * the host's, or the stop time (sim.h) */
            int64_t horizon = st->host->next_time(st->host_state);
            if (cfg->stop > 0 && cfg->stop < horizon) horizon = cfg->stop;
            st->exec->instant_end(st->exec_state, st, t, horizon);
        }
        if (st->failed || out->oom) FAIL("simulation: out of memory");
        /* asked for cohorts, whether or not they apply to this run: a run
         * they cannot help keeps every block, and is held to it all the same */
        if (cfg->cohorts && cfg->max_records > 0 &&
            (int64_t)(out->blocks.n + out->cohorts.n + sink.emitted) > cfg->max_records)
            FAIL("the run records more than %lld blocks and cohorts in all, the most this "
                 "caller keeps (identical blocks of a kernel are one cohort only where "
                 "simcore/cohort.c applies)", (long long)cfg->max_records);
        /* without a sink there is nothing to flush: no call per instant */
        if (sink.sink) {
            if (sink_flush(&sink, out, false) != 0) goto sink_fail;
            st->blocks_flushed = sink.emitted;
            if (sink_placed(&sink, st, out) != 0)
                FAIL("the block sink stopped the run after %lld blocks placed",
                     (long long)(sink.emitted + out->blocks.n) + (long long)st->cohort_blocks);
        }
    }

    /* every op completes under the rules (each kernel fits an empty SM and
     * the earliest-issued unfinished op can always move on); say so loudly
     * rather than hand back a trace with holes if that ever breaks */
    for (size_t i = 0; cfg->stop <= 0 && i < cfg->nops; i++) {
        const sim_op *o = &cfg->ops[i];
        int64_t end = o->kind == SIM_OP_KERNEL ? out->kernels.v[st->ops[i].rec].end
                    : o->kind == SIM_OP_COPY ? out->copies.v[st->ops[i].rec].end : 0;
        if (end == TRACE_NONE)
            FAIL("ops[%zu]: %s never completed; the simulator is stuck (please report this "
                 "configuration)", i, trace_str_get(out, st->ops[i].item));
    }
    if (sink_flush(&sink, out, true) != 0) goto sink_fail;
    if (!st->host->expand && record_host_calls(st) != 0) FAIL("simulation: out of memory");
    if (st->ipc_isolated) {
        /* ISCA'17 §4.1: a goal is reached when the kernel's IPC (§3.2:
         * its instructions over its execution time) is at least the goal
         * times its isolated IPC */
        for (size_t i = 0; i < cfg->nops; i++) {
            const sim_op *o = &cfg->ops[i];
            if (o->kind != SIM_OP_KERNEL || !o->program) continue;
            trace_kernel *k = &out->kernels.v[st->ops[i].rec];
            k->ipc_isolated = st->ipc_isolated[st->ops[i].rec];
            k->qos_goal = o->qos_goal;
            k->qos_met = o->qos_goal > 0 && k->ipc >= o->qos_goal * k->ipc_isolated;
        }
    }

    state_free(st);
    return 0;

sink_fail: {
        size_t n = out->blocks.n < sink.batch ? out->blocks.n : sink.batch;
        snprintf(err, errlen, "block sink failed on blocks[%zu..%zu]; the run stopped there",
                 sink.emitted, sink.emitted + n - 1);
    }
fail:
    state_free(st);
    return -1;
}
