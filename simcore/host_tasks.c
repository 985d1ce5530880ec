/* host_tasks.c -- periodic real-time tasks on partitioned CPU cores (GCAPS
 * paper §4, "Task Model"), beside the scenario's scripted ops (issued at
 * their times as host_script does).
 *
 * A task releases a job every period from its offset, for as long as the
 * release is before the run's duration; every released job runs to its
 * end. A job is its segments in order:
 *   - a CPU segment runs on the task's core for its time;
 *   - a GPU segment issues the segment's kernels and copies on the task's
 *     own stream (its process is its GPU context), runs its misc part
 *     G^m on the core, and waits for the GPU work: busy-waiting keeps the
 *     core (at the task's priority), self-suspension frees it (§4, §6.2).
 *     G^m runs while the GPU works: the launches are the first thing a
 *     segment does and the rest of its driver work overlaps the kernels
 *     (§4: G_{i,j} <= G^m + G^e "because they may execute in parallel in
 *     asynchronous mode"); with G^m first, a preempted lower-priority
 *     segment would lose the GPU for G^m_h + G^e_h + 2 eps, more than
 *     Lemmas 10 and 13 charge it (G^e_h + 2 eps).
 *   - under a driver with GCAPS's macros (policy.h: segment), the segment
 *     is bracketed by gcapsGpuSegBegin/End (§5.1): each is a runlist update
 *     of eps = policy.runlist_update on the task's core, non-preemptive
 *     (Lemma 8 (1): it blocks even a higher-priority CPU-only job of that
 *     core) and serialised by one rt_mutex over all cores (§5.2): waiters
 *     sleep, the highest priority gets it next (FIFO among equals), and
 *     the owner inherits its waiters' priority. The new runlist is
 *     submitted alpha = eps - theta into the update, and the CPU returns
 *     when the GPU has switched (Def. 2: eps = alpha + theta).
 *   - under a lock-based driver (policy.h: gpu_lock; GCAPS paper §7.1's
 *     FMLP+ and MPCP baselines), the task takes the one GPU lock before
 *     the segment launches and gives it back when the segment's GPU work is
 *     done: waiters suspend, queued FIFO (FMLP+, Brandenburg 2014) or by
 *     priority, FIFO among equals (MPCP, Rajkumar 1990); the holder runs
 *     above every non-holder of its core (FMLP+'s priority boosting, MPCP's
 *     ceiling: with one global lock both put the holder on top), so a
 *     busy-waiting holder keeps its core. The lock is handed to the next
 *     waiter at the release. The trace's queue "gpulock" holds the waiting
 *     tasks and "gpulock:held" the holder.
 * Each core is fixed-priority preemptive (SCHED_FIFO: a larger priority is
 * higher; FIFO among equals; a preempted task keeps its place); best-effort
 * tasks run below every real-time task. A job that is released while the
 * previous job of its task runs waits for it. After its GPU work a task
 * needs its core once more (to return from the wait) before it goes on.
 *
 * Execution-time variation (issue 27): a segment whose cpu, misc or exec
 * has a distribution (sim.h: sim_dist) draws that time per job from the
 * run's seed (prng.h: a function of seed, task, job, segment and field).
 *
 * Costs as measured (issue 27): with policy.ioctl_bookkeeping, a macro
 * whose Alg. 1 call leaves the runlist as it is (driver: segment_switches)
 * holds the lock for that cost instead of eps, all of it before the call
 * (no runlist is submitted, the GPU does not switch). A graphics task
 * (sim_task.graphics) issues its GPU work with no macro and no GPU lock.
 *
 * Trace: one trace_job per job (start: when it first runs) and, once every
 * job has ended, meta "tasks" (the task names in order) and per task
 * "task:<name>" = "jobs=N misses=M min=NS mean=NS max=NS" (max is the
 * MORT; mean rounded down). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "state.h"
#include "streams.h"

#define NEVER INT64_MAX
#define SPIN INT64_MAX        /* rem of a busy-waiting task: it never finishes by itself */
#define OPS_LIMIT 2000000     /* expanded ops per run: about 200 MB of ops and records */
#define BLOCKS_LIMIT 50000000 /* their blocks (the server's SCN_MAX_TOTAL_BLOCKS) */

/* ---- expansion: one op per kernel or copy of every job ------------------- */

typedef struct tasks_plan {
    size_t n0, s0;           /* the caller's ops and streams */
    sim_stream *streams;
    sim_op *ops;
    char *names;
    int64_t *base;           /* [ntasks] first op of job 0 */
    int64_t *per_job;        /* [ntasks] ops per job */
    int64_t *njobs;          /* [ntasks] */
    size_t *seg0;            /* [ntasks] the task's first entry in seg_first */
    int64_t *seg_first;      /* [sum of nsegments] first op of the segment within a job */
    int64_t *exec_draw;      /* [ops] each job's drawn G^e (issue 27), when any varies */
    int64_t duration;
} tasks_plan;

static void plan_free(void *mem) {
    tasks_plan *p = mem;
    if (!p) return;
    free(p->streams);
    free(p->ops);
    free(p->names);
    free(p->base);
    free(p->per_job);
    free(p->njobs);
    free(p->seg0);
    free(p->seg_first);
    free(p->exec_draw);
    free(p);
}

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static size_t seg_ops(const sim_segment *s) {
    if (s->kind != SIM_SEG_GPU) return 0;
    return s->nops ? s->nops : (s->exec > 0 ? 1 : 0);
}

/* An `exec` segment's kernel: blocks of the device's largest block size,
 * as many as every SM holds at once (threads, warps and blocks per SM), so
 * that it fills the GPU for its whole time. */
static int64_t fill_blocks(const sim_device *d, int32_t *threads) {
    int32_t th = d->max_threads_per_block < d->threads_per_sm ? d->max_threads_per_block
                                                               : d->threads_per_sm;
    if (th < 1) th = 1;
    int32_t warps = d->warp_size > 0 ? (th + d->warp_size - 1) / d->warp_size : 1;
    int32_t per_sm = d->threads_per_sm / th;
    if (d->blocks_per_sm > 0 && d->blocks_per_sm < per_sm) per_sm = d->blocks_per_sm;
    if (d->warps_per_sm > 0 && d->warps_per_sm / warps < per_sm) per_sm = d->warps_per_sm / warps;
    if (per_sm < 1) per_sm = 1;
    if (threads) *threads = th;
    return (int64_t)(d->sms > 0 ? d->sms : 1) * per_sm;
}

#define EFAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

static int tasks_expand(const sim_config *in, sim_config *out, void **mem, char *err,
                        size_t errlen) {
    const int64_t lim = 1000000000000000LL;   /* as sim.c's SIM_TIME_LIMIT */
    tasks_plan *p = calloc(1, sizeof *p);
    if (!p) EFAIL("simulation: out of memory");
    *mem = p;
    *out = *in;
    size_t nt = in->ntasks;
    int32_t cpus = in->cpus ? in->cpus : 1;
    if (cpus < 1 || cpus > 4096) EFAIL("cpus: %d is outside 1..4096", (int)in->cpus);
    if (nt && !in->tasks) EFAIL("tasks: %zu tasks but no array", nt);
    int64_t hyper = 1, max_off = 0;
    for (size_t i = 0; i < nt; i++) {
        const sim_task *k = &in->tasks[i];
        if (!k->name || !*k->name) EFAIL("tasks[%zu].name: missing", i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(in->tasks[j].name, k->name) == 0)
                EFAIL("tasks[%zu].name: \"%s\" is also tasks[%zu]'s (a task is a process: "
                      "names are unique)", i, k->name, j);
        for (size_t s = 0; s < in->nstreams; s++)
            if (in->streams[s].process && strcmp(in->streams[s].process, k->name) == 0)
                EFAIL("tasks[%zu].name: \"%s\" is also the process of streams[%zu]", i, k->name, s);
        if (k->cpu < 0 || k->cpu >= cpus)
            EFAIL("tasks[%zu].cpu: %d is not a core (cpus is %d: cores 0..%d)", i, (int)k->cpu,
                  (int)cpus, (int)cpus - 1);
        if (k->period <= 0 || k->period > lim)
            EFAIL("tasks[%zu].period: %lld ns is outside 1..%lld ns", i, (long long)k->period,
                  (long long)lim);
        if (k->deadline <= 0 || k->deadline > lim)
            EFAIL("tasks[%zu].deadline: %lld ns is outside 1..%lld ns", i,
                  (long long)k->deadline, (long long)lim);
        if (k->offset < 0 || k->offset > lim)
            EFAIL("tasks[%zu].offset: %lld ns is outside 0..%lld ns", i, (long long)k->offset,
                  (long long)lim);
        if (k->mode < SIM_WAIT_DEFAULT || k->mode > SIM_WAIT_BUSY)
            EFAIL("tasks[%zu].mode: %d is not suspend or busy", i, (int)k->mode);
        if (!k->nsegments || !k->segments) EFAIL("tasks[%zu].segments: a job needs at least one", i);
        for (size_t s = 0; s < k->nsegments; s++) {
            const sim_segment *g = &k->segments[s];
            int64_t v[3] = { g->cpu, g->misc, g->exec };
            const char *f[3] = { "cpu", "misc", "exec" };
            for (int x = 0; x < 3; x++)
                if (v[x] < 0 || v[x] > lim)
                    EFAIL("tasks[%zu].segments[%zu].%s: %lld ns is outside 0..%lld ns", i, s, f[x],
                          (long long)v[x], (long long)lim);
            if (g->kind == SIM_SEG_GPU && g->nops && !g->ops)
                EFAIL("tasks[%zu].segments[%zu].ops: %zu ops but no array", i, s, g->nops);
            for (size_t o = 0; g->kind == SIM_SEG_GPU && o < g->nops; o++)
                if (g->ops[o].kind == SIM_OP_SYNC)
                    EFAIL("tasks[%zu].segments[%zu].ops[%zu]: a sync has no place in a GPU "
                          "segment (the task waits for its GPU work anyway)", i, s, o);
                else if (g->ops[o].kind == SIM_OP_COPY && g->ops[o].blocking)
                    EFAIL("tasks[%zu].segments[%zu].ops[%zu]: a blocking copy has no place in "
                          "a GPU segment (the task waits for its GPU work anyway, by "
                          "policy.gpu_wait)", i, s, o);
        }
        if (hyper <= SIM_DEFAULT_DURATION_CAP) {
            int64_t g = gcd64(hyper, k->period);
            int64_t q = k->period / g;
            hyper = hyper > SIM_DEFAULT_DURATION_CAP / q ? SIM_DEFAULT_DURATION_CAP + 1 : hyper * q;
        }
        if (k->offset > max_off) max_off = k->offset;
    }
    int64_t dur = in->duration;
    if (dur < 0 || dur > lim) EFAIL("duration: %lld ns is outside 0..%lld ns", (long long)dur,
                                    (long long)lim);
    if (dur == 0) {
        dur = hyper > SIM_DEFAULT_DURATION_CAP ? SIM_DEFAULT_DURATION_CAP : hyper;
        if (dur + max_off > SIM_DEFAULT_DURATION_CAP) dur = SIM_DEFAULT_DURATION_CAP;
        else dur += max_off;
    }
    p->duration = dur;
    p->n0 = in->nops;
    p->s0 = in->nstreams;
    size_t nseg = 0;
    for (size_t i = 0; i < nt; i++) nseg += in->tasks[i].nsegments;
    p->base = calloc(nt ? nt : 1, sizeof *p->base);
    p->per_job = calloc(nt ? nt : 1, sizeof *p->per_job);
    p->njobs = calloc(nt ? nt : 1, sizeof *p->njobs);
    p->seg0 = calloc(nt ? nt : 1, sizeof *p->seg0);
    p->seg_first = calloc(nseg ? nseg : 1, sizeof *p->seg_first);
    p->streams = calloc(in->nstreams + nt + 1, sizeof *p->streams);
    if (!p->base || !p->per_job || !p->njobs || !p->seg0 || !p->seg_first || !p->streams)
        EFAIL("simulation: out of memory");
    if (in->nstreams) memcpy(p->streams, in->streams, in->nstreams * sizeof *p->streams);
    size_t total = in->nops, namelen = 0, si = 0;
    int64_t blocks = 0;
    for (size_t i = 0; i < nt; i++) {
        const sim_task *k = &in->tasks[i];
        p->streams[in->nstreams + i] = (sim_stream){ .name = "gpu", .process = k->name,
                                                     .priority = SIM_PRIO_NONE };
        p->njobs[i] = k->offset < dur ? (dur - k->offset - 1) / k->period + 1 : 0;
        p->seg0[i] = si;
        int64_t per = 0;
        size_t nl = 0;
        for (size_t s = 0; s < k->nsegments; s++) {
            const sim_segment *g = &k->segments[s];
            p->seg_first[si++] = per;
            per += (int64_t)seg_ops(g);
            for (size_t o = 0; o < g->nops; o++)
                nl += strlen(k->name) + 1 + (g->ops[o].name ? strlen(g->ops[o].name) : 24) + 24;
            if (!g->nops && seg_ops(g)) nl += strlen(k->name) + 36;
        }
        p->per_job[i] = per;
        p->base[i] = (int64_t)total;
        if (per && p->njobs[i] > (int64_t)(OPS_LIMIT - total) / per)
            EFAIL("tasks[%zu]: %lld jobs of %lld GPU ops each make more than %d ops; shorten "
                  "the duration", i, (long long)p->njobs[i], (long long)per, OPS_LIMIT);
        total += (size_t)(per * p->njobs[i]);
        namelen += nl * (size_t)p->njobs[i];
        /* the blocks the jobs launch: the simulator keeps each one */
        int64_t bpj = 0;
        for (size_t s = 0; s < k->nsegments; s++) {
            const sim_segment *g = &k->segments[s];
            if (g->kind != SIM_SEG_GPU) continue;
            for (size_t o = 0; o < g->nops; o++)
                if (g->ops[o].kind == SIM_OP_KERNEL && g->ops[o].blocks > 0)
                    bpj += g->ops[o].blocks < BLOCKS_LIMIT ? g->ops[o].blocks : BLOCKS_LIMIT;
            if (!g->nops && g->exec > 0) bpj += fill_blocks(&in->device, NULL);
        }
        if (bpj > 0 && p->njobs[i] > (BLOCKS_LIMIT - blocks) / bpj)
            EFAIL("tasks[%zu]: its %lld jobs would launch more than %d blocks in all (with the "
                  "other tasks'); shorten the duration", i, (long long)p->njobs[i], BLOCKS_LIMIT);
        blocks += bpj * p->njobs[i];
    }
    p->ops = calloc(total ? total : 1, sizeof *p->ops);
    p->names = malloc(namelen + 1);
    if (!p->ops || !p->names) EFAIL("simulation: out of memory");
    bool varies = false;
    for (size_t i = 0; i < nt; i++)
        for (size_t s = 0; s < in->tasks[i].nsegments; s++)
            varies |= in->tasks[i].segments[s].exec_var.kind != SIM_DIST_NONE;
    if (varies && !(p->exec_draw = calloc(total ? total : 1, sizeof *p->exec_draw)))
        EFAIL("simulation: out of memory");
    if (in->nops) memcpy(p->ops, in->ops, in->nops * sizeof *p->ops);
    size_t oi = in->nops, ni = 0;
    for (size_t i = 0; i < nt; i++) {
        const sim_task *k = &in->tasks[i];
        int ngpu = 0;
        for (size_t s = 0; s < k->nsegments; s++) ngpu += k->segments[s].kind == SIM_SEG_GPU;
        for (int64_t j = 0; j < p->njobs[i]; j++) {
            int gi = -1;
            for (size_t s = 0; s < k->nsegments; s++) {
                const sim_segment *g = &k->segments[s];
                if (g->kind != SIM_SEG_GPU) continue;
                gi++;
                size_t n = seg_ops(g);
                for (size_t o = 0; o < n; o++) {
                    sim_op *op = &p->ops[oi++];
                    char *nm = p->names + ni;
                    int w;
                    if (g->nops) {
                        *op = g->ops[o];
                        if (g->ops[o].name)
                            w = sprintf(nm, "%s/%s#%lld", k->name, g->ops[o].name, (long long)j);
                        else
                            w = sprintf(nm, "%s/op%zu#%lld", k->name, o, (long long)j);
                    } else {
                        /* exec: one kernel that fills the GPU for that long */
                        int32_t th;
                        int64_t nb = fill_blocks(&in->device, &th);
                        *op = (sim_op){ .kind = SIM_OP_KERNEL,
                                        .blocks = nb,
                                        .threads = th,
                                        .block_time = &g->exec,
                                        .nblock_time = 1 };
                        if (g->exec_var.kind != SIM_DIST_NONE) {
                            /* issue 27: this job's G^e, drawn from the seed */
                            int64_t *e = &p->exec_draw[op - p->ops];
                            *e = prng_draw(&g->exec_var, g->exec,
                                           prng_key(in->seed, i, (uint64_t)j, s, 2));
                            op->block_time = e;
                        }
                        /* job j's kernel; "#j.g" for its g-th GPU segment when it has several */
                        if (ngpu > 1)
                            w = sprintf(nm, "%s#%lld.%d", k->name, (long long)j, gi);
                        else
                            w = sprintf(nm, "%s#%lld", k->name, (long long)j);
                    }
                    op->name = nm;
                    op->stream = (int32_t)(in->nstreams + i);
                    op->at = 0;
                    ni += (size_t)w + 1;
                }
            }
        }
    }
    out->streams = p->streams;
    out->nstreams = in->nstreams + nt;
    out->ops = p->ops;
    out->nops = total;
    out->cpus = cpus;
    out->duration = dur;
    return 0;
fail:
    return -1;
}

/* ---- the run ------------------------------------------------------------- */

enum phase {
    PH_IDLE = 0,   /* no job */
    PH_START,      /* at the start of segment `seg` (needs the core for an instant) */
    PH_CPU,        /* a CPU segment */
    PH_LOCK,       /* a GCAPS macro: wants the runlist lock */
    PH_UPD_A,      /* ... holds it: alpha before the runlist is submitted */
    PH_UPD_B,      /* ... the rest of eps: the GPU switches */
    PH_MISC,       /* G^m on the core while the GPU works */
    PH_WAIT,       /* waiting for the GPU: busy (ready, spinning) or suspended */
    PH_WAKE,       /* the GPU work is done: back on the core for an instant */
    PH_GLOCK,      /* a lock-based driver: wants the GPU lock */
    PH_GOT         /* ... was handed it while asleep: launches when on the core */
};

typedef struct ht_task {
    const sim_task *d;
    int32_t proc;
    uint32_t idx;            /* its index: the draws' key (prng.h) */
    uint64_t seed;           /* the run's seed */
    int64_t key;             /* CPU priority: real-time above best-effort */
    int32_t gprio;
    bool busy;
    int64_t base, per_job, njobs;
    const int64_t *seg_first;
    int64_t released, cur, next_release;
    size_t *jobrec;          /* [njobs] trace job records */
    int32_t seg;
    int phase;
    bool end_macro;          /* PH_LOCK/UPD_*: gcapsGpuSegEnd (else Begin) */
    int64_t ueps, ualpha;    /* this macro's cost and its part before the call */
    bool np;                 /* in a non-preemptive runlist update that has begun */
    bool ready, waiting_lock, started;
    int64_t rem;             /* CPU time left in this phase, or SPIN */
    uint64_t rseq, lseq;     /* FIFO order among equals: on the core, on the lock */
    bool gwaiting;           /* queued for the GPU lock */
    uint64_t gseq;           /* its place in that queue */
    int64_t gpu_left;
    /* statistics over finished jobs */
    int64_t n, misses, rmin, rmax;
    double sum;
} ht_task;

typedef struct ht {
    tasks_plan *plan;
    ht_task *tk;
    size_t n;
    int32_t ncores;
    int32_t *running;        /* [ncores] the task on each core, -1 idle */
    int32_t *core_tk;        /* the tasks of each core, ascending: core c's are */
    int32_t *core_at;        /* core_tk[core_at[c] .. core_at[c + 1]), [ncores + 1] */
    int64_t last_t;
    bool dirty;              /* act again at last_t */
    int32_t lock_owner;
    uint64_t next_rseq, next_lseq;
    bool macros;
    int32_t glock;           /* the driver's gpu_lock: SIM_GPU_LOCK_* */
    int32_t gowner;          /* the GPU lock's holder, -1 free */
    uint64_t next_gseq;
    trace_str qwait, qheld;  /* "gpulock", "gpulock:held" */
    int64_t eps, alpha;
    int64_t bookkeeping;     /* policy.ioctl_bookkeeping, 0 = every macro at eps */
    int64_t jobs_left;
    size_t *order;           /* the caller's ops by (at, index) */
    size_t cursor;
} ht;

static int cmp_at(const void *a, const void *b, const sim_op *ops) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (ops[x].at != ops[y].at) return ops[x].at < ops[y].at ? -1 : 1;
    return (x > y) - (x < y);
}

static void sort_ops(size_t *v, size_t n, const sim_op *ops) {
    /* insertion sort by (at, index): scripted ops beside tasks are few */
    for (size_t i = 1; i < n; i++) {
        size_t x = v[i], j = i;
        while (j > 0 && cmp_at(&v[j - 1], &x, ops) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static int tasks_init(void *self, sim_state *st, char *err, size_t errlen) {
    ht *h = self;
    const sim_config *cfg = st->cfg;
    h->plan = st->xmem;
    h->n = cfg->ntasks;
    h->ncores = cfg->cpus ? cfg->cpus : 1;
    h->tk = calloc(h->n ? h->n : 1, sizeof *h->tk);
    h->running = malloc((size_t)h->ncores * sizeof *h->running);
    h->order = malloc((h->plan->n0 ? h->plan->n0 : 1) * sizeof *h->order);
    h->core_tk = malloc((h->n ? h->n : 1) * sizeof *h->core_tk);
    h->core_at = calloc((size_t)h->ncores + 1, sizeof *h->core_at);
    if (!h->tk || !h->running || !h->order || !h->core_tk || !h->core_at) {
        snprintf(err, errlen, "simulation: out of memory");
        return -1;
    }
    for (int32_t c = 0; c < h->ncores; c++) h->running[c] = -1;
    /* each core's tasks in index order (pick_core's tie order); a task on
     * a core the run lacks is on no list and never runs, as when
     * pick_core scanned every task for its core */
    int32_t listed = 0;
    for (int32_t c = 0; c < h->ncores; c++) {
        h->core_at[c] = listed;
        for (size_t i = 0; i < h->n; i++)
            if (cfg->tasks[i].cpu == c) h->core_tk[listed++] = (int32_t)i;
    }
    h->core_at[h->ncores] = listed;
    for (size_t i = 0; i < h->plan->n0; i++) h->order[i] = i;
    sort_ops(h->order, h->plan->n0, cfg->ops);
    h->lock_owner = -1;
    h->macros = st->driver->segment != NULL;
    h->glock = st->driver->gpu_lock;
    h->gowner = -1;
    if (h->glock) {
        h->qwait = trace_intern(st->t, "gpulock");
        h->qheld = trace_intern(st->t, "gpulock:held");
    }
    h->eps = h->macros ? cfg->policy.runlist_update : 0;
    int64_t a = h->eps - cfg->policy.context_switch;
    h->alpha = a > 0 ? a : 0;
    h->bookkeeping = st->driver->segment_switches ? cfg->policy.ioctl_bookkeeping : 0;
    int32_t wait = cfg->policy.gpu_wait;
    for (size_t i = 0; i < h->n; i++) {
        ht_task *k = &h->tk[i];
        k->d = &cfg->tasks[i];
        k->idx = (uint32_t)i;
        k->seed = cfg->seed;
        k->proc = st->ss[st->stream_of[h->plan->s0 + i]].proc;
        k->key = k->d->best_effort ? (int64_t)k->d->priority - ((int64_t)1 << 40)
                                   : (int64_t)k->d->priority;
        k->gprio = k->d->has_gpu_priority ? k->d->gpu_priority : k->d->priority;
        int32_t m = k->d->mode != SIM_WAIT_DEFAULT ? k->d->mode : wait;
        k->busy = m == SIM_WAIT_BUSY;
        k->base = h->plan->base[i];
        k->per_job = h->plan->per_job[i];
        k->njobs = h->plan->njobs[i];
        k->seg_first = h->plan->seg_first + h->plan->seg0[i];
        k->jobrec = calloc(k->njobs ? (size_t)k->njobs : 1, sizeof *k->jobrec);
        if (!k->jobrec) {
            snprintf(err, errlen, "simulation: out of memory");
            return -1;
        }
        k->cur = -1;
        k->next_release = k->njobs ? k->d->offset : NEVER;
        h->jobs_left += k->njobs;
    }
    h->last_t = 0;
    return 0;
}

static void tasks_fini(void *self) {
    ht *h = self;
    for (size_t i = 0; h->tk && i < h->n; i++) free(h->tk[i].jobrec);
    free(h->tk);
    free(h->running);
    free(h->order);
    free(h->core_tk);
    free(h->core_at);
}

/* Priority on the core: the lock owner inherits its waiters' (rt_mutex). */
static int64_t eff_key(const ht *h, int32_t i) {
    /* FMLP+'s boosting / MPCP's ceiling: the GPU lock's holder runs above
     * every non-holder of its core (there is one holder in the system) */
    if (h->gowner == i) return INT64_MAX;
    int64_t key = h->tk[i].key;
    if (h->lock_owner == i)
        for (size_t w = 0; w < h->n; w++)
            if (h->tk[w].waiting_lock && h->tk[w].key > key) key = h->tk[w].key;
    return key;
}

static int32_t pick_core(const ht *h, int32_t c) {
    int32_t cur = h->running[c];
    if (cur >= 0 && h->tk[cur].np && h->tk[cur].ready) return cur;   /* non-preemptive */
    int32_t best = -1;
    int64_t bkey = 0;
    for (int32_t x = h->core_at[c]; x < h->core_at[c + 1]; x++) {
        int32_t i = h->core_tk[x];
        const ht_task *k = &h->tk[i];
        if (!k->ready) continue;
        int64_t key = eff_key(h, i);
        if (best < 0 || key > bkey || (key == bkey && k->rseq < h->tk[best].rseq)) {
            best = i;
            bkey = key;
        }
    }
    return best;
}

static void advance(ht *h, int64_t t) {
    int64_t dt = t - h->last_t;
    if (dt > 0)
        for (int32_t c = 0; c < h->ncores; c++) {
            int32_t i = h->running[c];
            if (i >= 0 && h->tk[i].rem != SPIN) {
                h->tk[i].rem -= dt;
                if (h->tk[i].rem < 0) h->tk[i].rem = 0;
            }
        }
    h->last_t = t;
}

static void make_ready(ht *h, ht_task *k) {
    k->ready = true;
    k->rseq = h->next_rseq++;
}

static void start_job(ht *h, ht_task *k) {
    k->cur++;
    k->seg = 0;
    k->phase = PH_START;
    k->rem = 0;
    k->started = false;
    if (!k->ready) make_ready(h, k);
}

static void write_summary(const ht *h, sim_state *st) {
    char names[4096];
    size_t w = 0;
    names[0] = '\0';
    for (size_t i = 0; i < h->n; i++) {
        const ht_task *k = &h->tk[i];
        int len = snprintf(names + w, sizeof names - w, "%s%s", i ? "," : "", k->d->name);
        if (len > 0 && (size_t)len < sizeof names - w) w += (size_t)len;
        char key[256], val[160];
        snprintf(key, sizeof key, "task:%s", k->d->name);
        snprintf(val, sizeof val, "jobs=%lld misses=%lld min=%lld mean=%lld max=%lld",
                 (long long)k->n, (long long)k->misses, (long long)(k->n ? k->rmin : 0),
                 (long long)(k->n ? (int64_t)(k->sum / (double)k->n) : 0),
                 (long long)(k->n ? k->rmax : 0));
        if (trace_set_meta(st->t, key, val) != 0) st->failed = true;
    }
    if (trace_set_meta(st->t, "tasks", names) != 0) st->failed = true;
}

static void job_done(ht *h, sim_state *st, ht_task *k, int64_t t) {
    trace_job *j = &st->t->jobs.v[k->jobrec[k->cur]];
    j->end = t;
    int64_t r = t - j->release;
    if (k->n == 0 || r < k->rmin) k->rmin = r;
    if (r > k->rmax) k->rmax = r;
    k->sum += (double)r;
    k->n++;
    if (t > j->deadline) k->misses++;
    if (--h->jobs_left == 0) write_summary(h, st);
    if (k->cur + 1 < k->released) {
        start_job(h, k);     /* the next job was released meanwhile */
    } else {
        k->phase = PH_IDLE;
        k->ready = false;
    }
}

static void next_segment(ht *h, sim_state *st, ht_task *k, int64_t t) {
    if (++k->seg < (int32_t)k->d->nsegments) {
        k->phase = PH_START;
        k->rem = 0;
    } else {
        job_done(h, st, k, t);
    }
}

/* Issue the GPU segment's ops, then G^m on the core. */
static void launch(sim_state *st, ht_task *k, int64_t t) {
    const sim_segment *g = &k->d->segments[k->seg];
    int64_t first = k->base + k->cur * k->per_job + k->seg_first[k->seg];
    size_t n = seg_ops(g);
    k->gpu_left = (int64_t)n;
    for (size_t o = 0; o < n; o++) streams_host_issue(st, (int32_t)(first + (int64_t)o), t);
    k->phase = PH_MISC;
    k->rem = prng_draw(&g->misc_var, g->misc,
                       prng_key(k->seed, k->idx, (uint64_t)k->cur, (uint64_t)k->seg, 1));
}

static void gq(sim_state *st, trace_str q, const ht_task *k, int op, int64_t t) {
    if (!trace_add_queue_event(st->t, t, q, trace_intern(st->t, k->d->name), op))
        st->failed = true;
}

/* The GPU lock goes to the next waiter: the earliest (FMLP+) or the one of
 * highest priority, earliest among equals (MPCP); it wakes holding it. */
static void gpu_unlock(ht *h, sim_state *st, ht_task *k, int64_t t) {
    gq(st, h->qheld, k, TRACE_DEQUEUE, t);
    h->gowner = -1;
    int32_t w = -1;
    for (size_t i = 0; i < h->n; i++) {
        const ht_task *o = &h->tk[i];
        if (!o->gwaiting) continue;
        if (w < 0) {
            w = (int32_t)i;
            continue;
        }
        const ht_task *b = &h->tk[w];
        bool first = o->gseq < b->gseq;
        if (h->glock == SIM_GPU_LOCK_PRIO ? o->key > b->key || (o->key == b->key && first) : first)
            w = (int32_t)i;
    }
    if (w < 0) return;
    ht_task *o = &h->tk[w];
    o->gwaiting = false;
    h->gowner = w;
    gq(st, h->qwait, o, TRACE_DEQUEUE, t);
    gq(st, h->qheld, o, TRACE_ENQUEUE, t);
    o->phase = PH_GOT;
    o->rem = 0;
    make_ready(h, o);
}

static void after_gpu(ht *h, sim_state *st, ht_task *k, int64_t t) {
    if (k->d->graphics) {
        next_segment(h, st, k, t);
    } else if (h->glock) {
        gpu_unlock(h, st, k, t);
        next_segment(h, st, k, t);
    } else if (h->macros) {
        k->phase = PH_LOCK;
        k->end_macro = true;
        k->rem = 0;
    } else {
        next_segment(h, st, k, t);
    }
}

/* k holds the runlist lock: its update's cost (eps, or the bookkeeping
 * cost when the call will not change the runlist, issue 27). */
static void take_lock(ht *h, sim_state *st, ht_task *k) {
    k->ueps = h->eps;
    k->ualpha = h->alpha;
    if (h->bookkeeping &&
        !st->driver->segment_switches(st->driver_state, st, k->proc, !k->end_macro, k->gprio,
                                      k->d->best_effort)) {
        /* GCAPS paper §7.2, Fig. 12: the lower mode "mainly includes the
         * cost of accessing the IOCTL system call" */
        k->ueps = k->ualpha = h->bookkeeping;
    }
    k->phase = PH_UPD_A;
    k->rem = k->ualpha;
}

static void release_lock(ht *h, sim_state *st) {
    h->lock_owner = -1;
    int32_t w = -1;
    for (size_t i = 0; i < h->n; i++) {
        const ht_task *k = &h->tk[i];
        if (!k->waiting_lock) continue;
        if (w < 0 || k->key > h->tk[w].key || (k->key == h->tk[w].key && k->lseq < h->tk[w].lseq))
            w = (int32_t)i;
    }
    if (w < 0) return;
    /* rt_mutex: the lock passes to the highest-priority waiter, which then
     * needs its core to do its update */
    ht_task *k = &h->tk[w];
    k->waiting_lock = false;
    h->lock_owner = w;
    take_lock(h, st, k);
    make_ready(h, k);
}

/* Task i runs on its core at t and its phase's CPU time is used up. */
static void step(ht *h, sim_state *st, int32_t i, int64_t t) {
    ht_task *k = &h->tk[i];
    switch (k->phase) {
    case PH_START: {
        const sim_segment *g = &k->d->segments[k->seg];
        if (g->kind == SIM_SEG_CPU) {
            k->phase = PH_CPU;
            k->rem = prng_draw(&g->cpu_var, g->cpu,
                               prng_key(k->seed, k->idx, (uint64_t)k->cur, (uint64_t)k->seg, 0));
        } else if (k->d->graphics) {
            launch(st, k, t);   /* no macro, no lock: an uninstrumented context */
        } else if (h->macros) {
            k->phase = PH_LOCK;
            k->end_macro = false;
            k->rem = 0;
        } else if (h->glock) {
            k->phase = PH_GLOCK;
            k->rem = 0;
        } else {
            launch(st, k, t);
        }
        break;
    }
    case PH_GLOCK:
        if (h->gowner < 0) {
            h->gowner = i;
            gq(st, h->qheld, k, TRACE_ENQUEUE, t);
            launch(st, k, t);
        } else {
            /* suspension-based: sleeps until handed the lock */
            k->gwaiting = true;
            k->gseq = h->next_gseq++;
            k->ready = false;
            gq(st, h->qwait, k, TRACE_ENQUEUE, t);
        }
        break;
    case PH_GOT:
        launch(st, k, t);
        break;
    case PH_CPU:
        next_segment(h, st, k, t);
        break;
    case PH_LOCK:
        if (h->lock_owner < 0) {
            h->lock_owner = i;
            take_lock(h, st, k);
        } else {
            k->waiting_lock = true;     /* rt_mutex: sleeps until handed the lock */
            k->lseq = h->next_lseq++;
            k->ready = false;
        }
        break;
    case PH_UPD_A:
        /* GCAPS Alg. 1 runs and the new runlist is submitted (Def. 2) */
        st->driver->segment(st->driver_state, st, k->proc, !k->end_macro, k->gprio,
                            k->d->best_effort, t);
        k->phase = PH_UPD_B;
        k->rem = k->ueps - k->ualpha;
        break;
    case PH_UPD_B:
        k->np = false;
        release_lock(h, st);
        if (!k->end_macro) launch(st, k, t);
        else next_segment(h, st, k, t);
        break;
    case PH_MISC:
        if (k->gpu_left == 0) {
            after_gpu(h, st, k, t);
        } else {
            k->phase = PH_WAIT;
            if (k->busy) k->rem = SPIN;   /* §6.2.1: busy-waiting holds the core */
            else k->ready = false;        /* §6.2.2: self-suspension frees it */
        }
        break;
    case PH_WAKE:
        after_gpu(h, st, k, t);
        break;
    default:
        break;
    }
}

static void release_jobs(ht *h, sim_state *st, int64_t t) {
    for (size_t i = 0; i < h->n; i++) {
        ht_task *k = &h->tk[i];
        while (k->next_release <= t) {
            trace_job *j = trace_add_job(st->t);
            if (!j) {
                st->failed = true;
                return;
            }
            j->task = st->procs[k->proc].name;
            j->job = k->released;
            j->release = k->next_release;
            j->deadline = k->next_release + k->d->deadline;
            k->jobrec[k->released] = st->t->jobs.n - 1;
            k->released++;
            k->next_release = k->released < k->njobs ? k->d->offset + k->released * k->d->period
                                                     : NEVER;
            if (k->phase == PH_IDLE) start_job(h, k);
        }
    }
}

static void tasks_issue(void *self, sim_state *st, int64_t t) {
    ht *h = self;
    advance(h, t);
    h->dirty = false;
    while (h->cursor < h->plan->n0 && st->cfg->ops[h->order[h->cursor]].at == t)
        streams_host_issue(st, (int32_t)h->order[h->cursor++], t);
    release_jobs(h, st, t);
    while (!st->failed) {
        bool acted = false;
        for (int32_t c = 0; c < h->ncores; c++) {
            int32_t i = pick_core(h, c);
            h->running[c] = i;
            if (i < 0) continue;
            ht_task *k = &h->tk[i];
            if (!k->started) {
                k->started = true;
                st->t->jobs.v[k->jobrec[k->cur]].start = t;
            }
            if (k->phase == PH_UPD_A || k->phase == PH_UPD_B) k->np = true;
            if (k->rem == 0) {
                step(h, st, i, t);
                acted = true;
            }
        }
        if (!acted) break;
    }
}

static int64_t tasks_next_time(void *self) {
    const ht *h = self;
    if (h->dirty) return h->last_t;
    int64_t m = h->cursor < h->plan->n0 ? h->plan->ops[h->order[h->cursor]].at : NEVER;
    for (size_t i = 0; i < h->n; i++)
        if (h->tk[i].next_release < m) m = h->tk[i].next_release;
    for (int32_t c = 0; c < h->ncores; c++) {
        int32_t i = h->running[c];
        if (i >= 0 && h->tk[i].rem != SPIN && h->last_t + h->tk[i].rem < m)
            m = h->last_t + h->tk[i].rem;
    }
    return m;
}

static void tasks_op_done(void *self, sim_state *st, int32_t op, int64_t t) {
    (void)st;
    ht *h = self;
    if ((size_t)op < h->plan->n0) return;
    advance(h, t);
    for (size_t i = 0; i < h->n; i++) {
        ht_task *k = &h->tk[i];
        if (op < k->base || op >= k->base + k->per_job * k->njobs) continue;
        if (--k->gpu_left == 0 && k->phase == PH_WAIT) {
            k->phase = PH_WAKE;
            k->rem = 0;
            if (!k->busy) make_ready(h, k);
        }
        h->dirty = true;
        return;
    }
}

const host_policy host_tasks = {
    .name = "tasks",
    .doc = "periodic real-time tasks with CPU and GPU segments on fixed-priority cores, "
           "busy-waiting or self-suspending (GCAPS paper §4), beside the scripted ops",
    .state_size = sizeof(ht),
    .expand = tasks_expand,
    .expand_free = plan_free,
    .init = tasks_init,
    .fini = tasks_fini,
    .next_time = tasks_next_time,
    .issue = tasks_issue,
    .op_done = tasks_op_done,
};
