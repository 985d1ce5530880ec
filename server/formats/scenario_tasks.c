/* scenario_tasks.c -- a scenario's real-time tasks. See scenario_tasks.h.
 *
 * Each object's keys are a table of scn_key rows (scn_keys.h, as in
 * scenario.c): a task's (task_table), a segment's (seg_table), a GPU
 * segment's "gpu" (gpu_table), a kernel's and a copy's of its "ops"
 * (kernel_table, copy_table). A row gives the key, its reader and when it
 * is read; the unknown-key check (with its "did you mean") and the reading
 * walk the table, so a new key is one row and its reader. In a task, a
 * segment and a "gpu" a key given as JSON null is left out (the readers
 * run through scn_keys_read_opt); in a kernel or a copy null is a value
 * ("must be ..., not null"). Readers get the tctx as ctx. */
#include "scenario_tasks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_dist.h"
#include "scn_keys.h"
#include "units.h"

/* What the readers share: where messages go, the tasks being read, and the
 * segments and ops read so far (t->segs, t->ops: they grow as they are
 * read, and each task and segment points into them once all are read). */
typedef struct tctx {
    jr_ctx *jr;
    scn_tasks *t;
    size_t nsegs, capsegs;
    size_t nops, capops;
} tctx;

/* t keeps p (a string, a kernel's block times) until scn_tasks_free: p,
 * or NULL (and p freed) when out of memory. */
static void *keep(scn_tasks *t, void *p) {
    if (!p) return NULL;
    char **v = realloc(t->strs, (t->nstrs + 1) * sizeof *v);
    if (!v) {
        free(p);
        return NULL;
    }
    t->strs = v;
    t->strs[t->nstrs++] = p;
    return p;
}

static char *own(scn_tasks *t, const char *s) {
    return keep(t, strdup(s));
}

/* arr (n used of *cap elements of `size`) with room for one more: arr,
 * moved or not, or NULL when out of memory (arr is then unchanged). */
static void *grow(void *arr, size_t n, size_t *cap, size_t size) {
    if (n < *cap) return arr;
    size_t c = *cap ? *cap * 2 : 8;
    void *v = realloc(arr, c * size);
    if (v) *cap = c;
    return v;
}

static int dur(jr_ctx *c, json_t *v, const char *path, int64_t *out) {
    if (!v) return jr_fail(c, path, "missing");
    return units_parse(c, v, path, UNITS_DURATION, out, NULL);
}

static int get_prio(jr_ctx *c, json_t *v, const char *path, int64_t lo, int64_t hi, int32_t *out) {
    int64_t x;
    if (!v) return jr_fail(c, path, "missing (a real-time task's priority, %" PRId64 "..%" PRId64
                           ", larger is higher)", lo, hi);
    if (jr_get_whole(c, v, path, &x)) return -1;
    if (x < lo || x > hi)
        return jr_fail(c, path, "%" PRId64 " is outside %" PRId64 "..%" PRId64, x, lo, hi);
    *out = (int32_t)x;
    return 0;
}

static int get_bool(jr_ctx *c, json_t *v, const char *path, bool *out) {
    if (!v) return 0;
    if (!json_is_boolean(v)) return jr_fail(c, path, "must be true or false, not %s", jr_type_name(v));
    *out = json_is_true(v);
    return 0;
}

/* ---- a kernel or a copy of a GPU segment's "ops" (obj: its sim_op) ------- */

/* "kernel" / "copy": the op's name */
static int read_op_name(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_op *op = obj;
    const char *name = NULL;
    if (jr_get_name(c->jr, v, path, &name)) return -1;
    if (!(op->name = own(c->t, name))) return jr_oom(c->jr);
    return 0;
}
static int read_kernel_blocks(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    return jr_get_count(c->jr, v, path, 1, INT32_MAX, &((sim_op *)obj)->blocks);
}
static int read_kernel_threads(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    int64_t x;
    if (jr_get_count(c->jr, v, path, 1, INT32_MAX, &x)) return -1;
    ((sim_op *)obj)->threads = (int32_t)x;
    return 0;
}
static int read_kernel_smem(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    return units_parse(c->jr, v, path, UNITS_SIZE, &((sim_op *)obj)->smem, NULL);
}
static int read_kernel_regs(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    int64_t x;
    if (jr_get_count(c->jr, v, path, 0, 255, &x)) return -1;
    ((sim_op *)obj)->regs = (int32_t)x;
    return 0;
}
/* a duration, or an array of them (block i takes entry i, cycled) */
static int read_kernel_block_time(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_op *op = obj;
    size_t n = json_is_array(v) ? json_array_size(v) : 1;
    if (n == 0) return jr_fail(c->jr, path, "must not be an empty array");
    int64_t *bt = keep(c->t, calloc(n, sizeof *bt));
    if (!bt) return jr_oom(c->jr);
    for (size_t k = 0; k < n; k++) {
        char r[JR_PATH_MAX];
        json_t *e = json_is_array(v) ? json_array_get(v, k) : v;
        if (dur(c->jr, e, json_is_array(v) ? jr_index(r, path, k) : path, &bt[k])) return -1;
    }
    op->block_time = bt;
    op->nblock_time = n;
    return 0;
}
static int read_copy_bytes(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    return units_parse(c->jr, v, path, UNITS_SIZE, &((sim_op *)obj)->bytes, NULL);
}
static int read_copy_direction(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    const char *dir = NULL;
    if (jr_get_string(c->jr, v, path, &dir)) return -1;
    static const char *const dirs[] = {"h2d", "d2h", "d2d"};
    static const int32_t dirv[] = {TRACE_COPY_H2D, TRACE_COPY_D2H, TRACE_COPY_D2D};
    for (int k = 0; k < 3; k++)
        if (strcmp(dir, dirs[k]) == 0) {
            ((sim_op *)obj)->direction = dirv[k];
            return 0;
        }
    return jr_fail_unknown(c->jr, path, "direction", dir, dirs, 3);
}

/* Step 0 reads the op's name; then the keys it must give are checked
 * (`kernel "K" is missing "blocks"`) and step 1 reads the rest. */
static const scn_key kernel_table[] = {
    {"kernel", .read = read_op_name},
    {"blocks", .read = read_kernel_blocks, .missing = "", .step = 1},
    {"threads", .read = read_kernel_threads, .missing = "", .step = 1},
    {"smem", .read = read_kernel_smem, .step = 1},
    {"regs", .read = read_kernel_regs, .step = 1},
    {"block_time", .read = read_kernel_block_time, .missing = "", .step = 1},
};
#define KERNEL_NKEYS SCN_NKEYS(kernel_table)
_Static_assert(KERNEL_NKEYS <= SCN_MAX_KEYS, "kernel_table: raise SCN_MAX_KEYS");

static const scn_key copy_table[] = {
    {"copy", .read = read_op_name},
    {"bytes", .read = read_copy_bytes, .missing = "", .step = 1},
    {"direction", .read = read_copy_direction, .missing = " (h2d, d2h or d2d)", .step = 1},
};
#define COPY_NKEYS SCN_NKEYS(copy_table)
_Static_assert(COPY_NKEYS <= SCN_MAX_KEYS, "copy_table: raise SCN_MAX_KEYS");

/* Why a GPU segment has no call that waits inside it (a sync, a blocking
 * copy): GCAPS §4 models a segment as its misc CPU time G^m and its pure
 * GPU time G^e ("data copy and kernel execution, during which task can
 * either busy-wait or self-suspend"), which "may execute in parallel in
 * asynchronous mode": the task issues the segment's work, runs G^m beside
 * it, and waits once, at the segment's end, for all of it (GCAPS brackets
 * that with gcapsGpuSegBegin/End). A call that waits in the middle has no
 * place in that model (how much of G^m comes before it, whether the wait
 * is busy or suspended, whether the runlist is updated around it), and
 * nothing for it to do: the segment's ops are one stream's, which runs
 * them in order anyway (TX2 paper rule G4, C4). Two GPU segments say it. */
#define SEGMENT_WAITS_ONCE \
    "a GPU segment waits for its GPU work once, at its end (GCAPS §4: the task busy-waits " \
    "or self-suspends during the segment's copies and kernels, G^e, while its misc CPU " \
    "time G^m runs beside them in asynchronous mode), and its ops run in order on the " \
    "task's one stream anyway; to wait in between, end the segment there and begin another " \
    "GPU segment"

/* One kernel or copy of a GPU segment into op (zeroed). */
static int parse_op(tctx *c, json_t *o, const char *p, sim_op *op) {
    if (jr_need_object(c->jr, o, p)) return -1;
    bool kernel = json_object_get(o, "kernel") != NULL, copy = json_object_get(o, "copy") != NULL;
    if (!kernel && !copy && json_object_get(o, "sync"))
        return jr_fail(c->jr, p, "a \"sync\" has no place in a real-time task's GPU segment: "
                       SEGMENT_WAITS_ONCE);
    if (kernel == copy)
        return jr_fail(c->jr, p, kernel ? "has both \"kernel\" and \"copy\"; an op is one of them"
                                        : "needs \"kernel\" or \"copy\" with the op's name");
    if (json_object_get(o, "blocking")) {
        char q[JR_PATH_MAX];
        return jr_fail(c->jr, jr_join(q, p, "blocking"),
                       "%s: " SEGMENT_WAITS_ONCE,
                       kernel ? "a kernel launch is asynchronous (TX2 paper §2.3)"
                              : "a GPU segment's copy is asynchronous (cudaMemcpyAsync)");
    }
    const scn_key *t = kernel ? kernel_table : copy_table;
    size_t n = kernel ? KERNEL_NKEYS : COPY_NKEYS;
    op->kind = kernel ? SIM_OP_KERNEL : SIM_OP_COPY;
    if (scn_keys_known(c->jr, o, p, t, n) || scn_keys_read(c, o, p, t, n, 0, op) ||
        scn_keys_need(c->jr, o, p, t, n, kernel ? "kernel" : "copy", op->name) ||
        scn_keys_read(c, o, p, t, n, 1, op))
        return -1;
    return 0;
}

/* ---- a GPU segment's "gpu" (obj: its sim_segment) ------------------------- */

static int read_gpu_misc(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_segment *sg = obj;
    return exec_dist_parse(c->jr, v, path, &sg->misc, &sg->misc_var);
}
static int read_gpu_exec(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_segment *sg = obj;
    return exec_dist_parse(c->jr, v, path, &sg->exec, &sg->exec_var);
}
/* the ops go to t->ops, in order; sg->ops points there once all are read */
static int read_gpu_ops(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_segment *sg = obj;
    if (jr_need_array(c->jr, v, path)) return -1;
    for (size_t j = 0; j < json_array_size(v); j++) {
        char z[JR_PATH_MAX];
        sim_op *ops = grow(c->t->ops, c->nops, &c->capops, sizeof *ops);
        if (!ops) return jr_oom(c->jr);
        c->t->ops = ops;
        sim_op *op = &ops[c->nops++];
        memset(op, 0, sizeof *op);
        if (parse_op(c, json_array_get(v, j), jr_index(z, path, j), op)) return -1;
        sg->nops++;
    }
    return 0;
}

/* Step 0 reads "misc"; then "exec" or "ops", one of them, is read in step
 * 1. */
static const scn_key gpu_table[] = {
    {"misc", .read = read_gpu_misc},
    {"exec", .read = read_gpu_exec, .step = 1},
    {"ops", .read = read_gpu_ops, .step = 1},
};
#define GPU_NKEYS SCN_NKEYS(gpu_table)
_Static_assert(GPU_NKEYS <= SCN_MAX_KEYS, "gpu_table: raise SCN_MAX_KEYS");

/* ---- a segment of a task's job (obj: its sim_segment) --------------------- */

static int read_seg_cpu(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_segment *sg = obj;
    sg->kind = SIM_SEG_CPU;
    return exec_dist_parse(c->jr, v, path, &sg->cpu, &sg->cpu_var);
}
static int read_seg_gpu(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_segment *sg = obj;
    sg->kind = SIM_SEG_GPU;
    if (scn_keys_known(c->jr, v, path, gpu_table, GPU_NKEYS) ||
        scn_keys_read_opt(c, v, path, gpu_table, GPU_NKEYS, 0, sg))
        return -1;
    if (!jr_opt(v, "exec") == !jr_opt(v, "ops"))
        return jr_fail(c->jr, path, "needs \"exec\" (one kernel that fills the GPU) or \"ops\" "
                       "(kernels and copies), one of them");
    return scn_keys_read_opt(c, v, path, gpu_table, GPU_NKEYS, 1, sg);
}

/* "cpu" or "gpu", one of them (both read in step 0) */
static const scn_key seg_table[] = {
    {"cpu", .read = read_seg_cpu},
    {"gpu", .read = read_seg_gpu},
};
#define SEG_NKEYS SCN_NKEYS(seg_table)
_Static_assert(SEG_NKEYS <= SCN_MAX_KEYS, "seg_table: raise SCN_MAX_KEYS");

/* ---- a task (obj: its sim_task in t->tasks) ------------------------------- */

/* read always: a task without "name" is "t1", "t2", ... by its place */
static int read_task_name(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_task *k = obj;
    size_t i = (size_t)(k - c->t->tasks);
    char def[32];
    snprintf(def, sizeof def, "t%zu", i + 1);
    const char *name = def;
    if (v && jr_get_name(c->jr, v, path, &name)) return -1;
    for (size_t h = 0; h < i; h++)
        if (strcmp(c->t->tasks[h].name, name) == 0)
            return jr_fail(c->jr, path, "\"%s\" is also tasks[%zu]'s name", name, h);
    if (!(k->name = own(c->t, name))) return jr_oom(c->jr);
    return 0;
}
static int read_task_cpu(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    int32_t cpus = c->t->cpus ? c->t->cpus : 1;
    int64_t x;
    if (jr_get_whole(c->jr, v, path, &x)) return -1;
    if (x < 0 || x >= cpus)
        return jr_fail(c->jr, path, "%" PRId64 " is not a core (cpus is %d: cores 0..%d)", x,
                       (int)cpus, (int)cpus - 1);
    ((sim_task *)obj)->cpu = (int32_t)x;
    return 0;
}
static int read_task_best_effort(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    return get_bool(c->jr, v, path, &((sim_task *)obj)->best_effort);
}
/* issue 27: a graphics application (GCAPS paper §7.2, Table 4's task 7):
 * no GCAPS macro, no GPU lock around its GPU work */
static int read_task_graphics(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    return get_bool(c->jr, v, path, &((sim_task *)obj)->graphics);
}
/* read always: a real-time task must give it, a best-effort one must not */
static int read_task_priority(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_task *k = obj;
    if (k->best_effort && v)
        return jr_fail(c->jr, path, "a best-effort task has no real-time priority; leave it out");
    if (k->best_effort) return 0;
    return get_prio(c->jr, v, path, 1, 99, &k->priority);
}
static int read_task_gpu_priority(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_task *k = obj;
    if (k->best_effort)
        return jr_fail(c->jr, path, "a best-effort task has no real-time priority; leave it out");
    if (get_prio(c->jr, v, path, INT32_MIN + 1, INT32_MAX, &k->gpu_priority)) return -1;
    k->has_gpu_priority = true;
    return 0;
}
/* read always (required); the deadline defaults to it */
static int read_task_period(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_task *k = obj;
    if (dur(c->jr, v, path, &k->period)) return -1;
    if (k->period == 0) return jr_fail(c->jr, path, "must be positive");
    k->deadline = k->period;
    return 0;
}
static int read_task_deadline(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_task *k = obj;
    if (dur(c->jr, v, path, &k->deadline)) return -1;
    if (k->deadline == 0 || k->deadline > k->period)
        return jr_fail(c->jr, path, "must be positive and at most the period (constrained "
                       "deadlines)");
    return 0;
}
static int read_task_offset(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    return dur(c->jr, v, path, &((sim_task *)obj)->offset);
}
static int read_task_mode(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_task *k = obj;
    const char *m = NULL;
    static const char *const modes[] = {"suspend", "busy"};
    if (jr_get_string(c->jr, v, path, &m)) return -1;
    if (strcmp(m, "suspend") == 0) k->mode = SIM_WAIT_SUSPEND;
    else if (strcmp(m, "busy") == 0) k->mode = SIM_WAIT_BUSY;
    else return jr_fail_unknown(c->jr, path, "mode", m, modes, 2);
    return 0;
}
/* read always (required): the segments go to t->segs, in order; the task
 * points there once all are read */
static int read_task_segments(void *ctx, json_t *v, const char *path, void *obj) {
    tctx *c = ctx;
    sim_task *k = obj;
    if (!v)
        return jr_fail(c->jr, path, "missing: a job is a list of {\"cpu\": d} and {\"gpu\": "
                       "{...}}");
    if (jr_need_array(c->jr, v, path)) return -1;
    if (json_array_size(v) == 0) return jr_fail(c->jr, path, "must not be empty");
    for (size_t s = 0; s < json_array_size(v); s++) {
        char r[JR_PATH_MAX];
        json_t *g = json_array_get(v, s);
        sim_segment *segs = grow(c->t->segs, c->nsegs, &c->capsegs, sizeof *segs);
        if (!segs) return jr_oom(c->jr);
        c->t->segs = segs;
        sim_segment *sg = &segs[c->nsegs++];
        memset(sg, 0, sizeof *sg);
        k->nsegments++;
        jr_index(r, path, s);
        if (scn_keys_known(c->jr, g, r, seg_table, SEG_NKEYS)) return -1;
        if (!jr_opt(g, "cpu") == !jr_opt(g, "gpu"))
            return jr_fail(c->jr, r, "must be {\"cpu\": duration} or {\"gpu\": {\"misc\": d, "
                           "\"exec\": d}}");
        if (scn_keys_read_opt(c, g, r, seg_table, SEG_NKEYS, 0, sg)) return -1;
    }
    return 0;
}

/* Step 0 reads the name, the core and what kind of task it is (best
 * effort, graphics); step 1, which depends on that, the rest: priorities,
 * times, the wait mode and the job's segments. The rows' order is the
 * order "known: ..." lists them in. */
static const scn_key task_table[] = {
    {"name", .read = read_task_name, .always = true},
    {"cpu", .read = read_task_cpu},
    {"priority", .read = read_task_priority, .step = 1, .always = true},
    {"gpu_priority", .read = read_task_gpu_priority, .step = 1},
    {"period", .read = read_task_period, .step = 1, .always = true},
    {"deadline", .read = read_task_deadline, .step = 1},
    {"offset", .read = read_task_offset, .step = 1},
    {"mode", .read = read_task_mode, .step = 1},
    {"best_effort", .read = read_task_best_effort},
    {"graphics", .read = read_task_graphics},
    {"segments", .read = read_task_segments, .step = 1, .always = true},
};
#define TASK_NKEYS SCN_NKEYS(task_table)
_Static_assert(TASK_NKEYS <= SCN_MAX_KEYS, "task_table: raise SCN_MAX_KEYS");

int scn_tasks_known_keys(jr_ctx *c, json_t *o, const char *path) {
    return scn_keys_known(c, o, path, task_table, TASK_NKEYS);
}

/* ---- the scenario's keys -------------------------------------------------- */

int scn_tasks_read_cpus(jr_ctx *c, json_t *v, const char *path, scn_tasks *t) {
    int64_t x;
    if (!v || json_is_null(v)) return 0;
    if (jr_get_count(c, v, path, 1, 4096, &x)) return -1;
    t->cpus = (int32_t)x;
    return 0;
}

int scn_tasks_read_duration(jr_ctx *c, json_t *v, const char *path, scn_tasks *t) {
    if (!v || json_is_null(v)) return 0;
    if (dur(c, v, path, &t->duration)) return -1;
    if (t->duration == 0) return jr_fail(c, path, "must be positive");
    return 0;
}

int scn_tasks_read(jr_ctx *jr, json_t *v, const char *path, scn_tasks *t) {
    char p[JR_PATH_MAX];
    if (!v || json_is_null(v)) return 0;
    if (jr_need_array(jr, v, path)) return -1;
    size_t n = json_array_size(v);
    /* an optional list given empty is the key left out, as "streams" and
     * "variants" are (docs/scenario-format.md Top level) */
    if (n == 0) return 0;
    if (!(t->tasks = calloc(n, sizeof *t->tasks))) return jr_oom(jr);
    tctx c = {jr, t, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(v, i);
        sim_task *k = &t->tasks[i];
        jr_index(p, path, i);
        if (scn_keys_known(jr, o, p, task_table, TASK_NKEYS)) return -1;
        t->ntasks = i + 1;
        if (scn_keys_read_opt(&c, o, p, task_table, TASK_NKEYS, 0, k) ||
            scn_keys_read_opt(&c, o, p, task_table, TASK_NKEYS, 1, k))
            return -1;
    }
    /* every segment and op is read: point the tasks and segments at theirs */
    size_t si = 0, oi = 0;
    for (size_t i = 0; i < t->ntasks; i++) {
        sim_task *k = &t->tasks[i];
        k->segments = t->segs + si;
        for (size_t s = 0; s < k->nsegments; s++) {
            sim_segment *sg = &t->segs[si++];
            if (sg->nops) sg->ops = t->ops + oi;
            oi += sg->nops;
        }
    }
    return 0;
}
int scn_tasks_check(jr_ctx *c, const scn_tasks *t, const sim_device *dev) {
    for (size_t i = 0; i < t->ntasks; i++) {
        const sim_task *k = &t->tasks[i];
        for (size_t s = 0; s < k->nsegments; s++) {
            const sim_segment *g = &k->segments[s];
            for (size_t j = 0; g->kind == SIM_SEG_GPU && j < g->nops; j++) {
                const sim_op *o = &g->ops[j];
                if (o->kind != SIM_OP_KERNEL) continue;
                char path[JR_PATH_MAX], msg[256];
                snprintf(path, sizeof path, "tasks[%zu].segments[%zu].gpu.ops[%zu]", i, s, j);
                if (sim_kernel_fits(dev, o->threads, o->smem, o->regs, path, msg, sizeof msg) != 0)
                    return jr_fail(c, "", "%s", msg);
            }
        }
    }
    return 0;
}

void scn_tasks_free(scn_tasks *t) {
    for (size_t i = 0; i < t->nstrs; i++) free(t->strs[i]);
    free(t->strs);
    free(t->tasks);
    free(t->segs);
    free(t->ops);
    memset(t, 0, sizeof *t);
}
