/* scenario_tasks.c -- a scenario's real-time tasks. See scenario_tasks.h. */
#include "scenario_tasks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_dist.h"
#include "units.h"

static const char *const task_keys[] = {"name", "cpu", "priority", "gpu_priority", "period",
                                        "deadline", "offset", "mode", "best_effort", "graphics", "segments",
                                        NULL};
static const char *const seg_keys[] = {"cpu", "gpu", NULL};
static const char *const gpu_keys[] = {"misc", "exec", "ops", NULL};
static const char *const kernel_keys[] = {"kernel", "blocks", "threads", "smem", "regs",
                                          "block_time", NULL};
static const char *const copy_keys[] = {"copy", "bytes", "direction", NULL};

static char *own(scn_tasks *t, const char *s) {
    char **v = realloc(t->strs, (t->nstrs + 1) * sizeof *v);
    if (!v) return NULL;
    t->strs = v;
    char *d = strdup(s);
    if (!d) return NULL;
    t->strs[t->nstrs++] = d;
    return d;
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

/* One kernel or copy of a GPU segment into op (times[] holds its block
 * times). */
static int parse_op(jr_ctx *c, scn_tasks *t, json_t *o, const char *p, sim_op *op,
                    int64_t **times) {
    char q[JR_PATH_MAX];
    if (jr_need_object(c, o, p)) return -1;
    bool kernel = json_object_get(o, "kernel") != NULL, copy = json_object_get(o, "copy") != NULL;
    if (kernel == copy)
        return jr_fail(c, p, kernel ? "has both \"kernel\" and \"copy\"; an op is one of them"
                                    : "needs \"kernel\" or \"copy\" with the op's name (a task "
                                      "waits for its GPU work itself: no \"sync\")");
    if (jr_check_keys(c, o, p, kernel ? kernel_keys : copy_keys)) return -1;
    memset(op, 0, sizeof *op);
    const char *name = NULL;
    if (jr_get_name(c, json_object_get(o, kernel ? "kernel" : "copy"),
                    jr_join(q, p, kernel ? "kernel" : "copy"), &name))
        return -1;
    if (!(op->name = own(t, name))) return jr_oom(c);
    if (kernel) {
        op->kind = SIM_OP_KERNEL;
        static const char *const need[] = {"blocks", "threads", "block_time"};
        for (int k = 0; k < 3; k++)
            if (!json_object_get(o, need[k]))
                return jr_fail(c, p, "kernel \"%s\" is missing \"%s\"", name, need[k]);
        int64_t x;
        if (jr_get_count(c, json_object_get(o, "blocks"), jr_join(q, p, "blocks"), 1, INT32_MAX,
                         &op->blocks) ||
            jr_get_count(c, json_object_get(o, "threads"), jr_join(q, p, "threads"), 1,
                         INT32_MAX, &x))
            return -1;
        op->threads = (int32_t)x;
        json_t *v;
        if ((v = json_object_get(o, "smem")) &&
            units_parse(c, v, jr_join(q, p, "smem"), UNITS_SIZE, &op->smem, NULL))
            return -1;
        if ((v = json_object_get(o, "regs"))) {
            if (jr_get_count(c, v, jr_join(q, p, "regs"), 0, 255, &x)) return -1;
            op->regs = (int32_t)x;
        }
        json_t *jb = json_object_get(o, "block_time");
        jr_join(q, p, "block_time");
        size_t n = json_is_array(jb) ? json_array_size(jb) : 1;
        if (n == 0) return jr_fail(c, q, "must not be an empty array");
        int64_t *bt = calloc(n, sizeof *bt);
        if (!bt) return jr_oom(c);
        *times = bt;
        for (size_t k = 0; k < n; k++) {
            char r[JR_PATH_MAX];
            json_t *e = json_is_array(jb) ? json_array_get(jb, k) : jb;
            if (dur(c, e, json_is_array(jb) ? jr_index(r, q, k) : q, &bt[k])) return -1;
        }
        op->block_time = bt;
        op->nblock_time = n;
        return 0;
    }
    op->kind = SIM_OP_COPY;
    json_t *jb = json_object_get(o, "bytes"), *jd = json_object_get(o, "direction");
    if (!jb) return jr_fail(c, p, "copy \"%s\" is missing \"bytes\"", name);
    if (!jd) return jr_fail(c, p, "copy \"%s\" is missing \"direction\" (h2d, d2h or d2d)", name);
    if (units_parse(c, jb, jr_join(q, p, "bytes"), UNITS_SIZE, &op->bytes, NULL)) return -1;
    const char *dir = NULL;
    if (jr_get_string(c, jd, jr_join(q, p, "direction"), &dir)) return -1;
    static const char *const dirs[] = {"h2d", "d2h", "d2d"};
    static const int32_t dirv[] = {TRACE_COPY_H2D, TRACE_COPY_D2H, TRACE_COPY_D2D};
    for (int k = 0; k < 3; k++)
        if (strcmp(dir, dirs[k]) == 0) {
            op->direction = dirv[k];
            return 0;
        }
    return jr_fail_unknown(c, q, "direction", dir, dirs, 3);
}

int scn_tasks_parse(jr_ctx *c, json_t *root, scn_tasks *t) {
    char p[JR_PATH_MAX], q[JR_PATH_MAX], r[JR_PATH_MAX];
    memset(t, 0, sizeof *t);
    json_t *v;
    if ((v = jr_opt(root, "cpus"))) {
        int64_t x;
        if (jr_get_count(c, v, "cpus", 1, 4096, &x)) return -1;
        t->cpus = (int32_t)x;
    }
    if ((v = jr_opt(root, "duration"))) {
        if (dur(c, v, "duration", &t->duration)) return -1;
        if (t->duration == 0) return jr_fail(c, "duration", "must be positive");
    }
    json_t *tasks = jr_opt(root, "tasks");
    if (!tasks) return 0;
    if (jr_need_array(c, tasks, "tasks")) return -1;
    size_t n = json_array_size(tasks), nseg = 0, nops = 0;
    if (n == 0) return jr_fail(c, "tasks", "must not be an empty array (leave it out)");
    for (size_t i = 0; i < n; i++) {
        json_t *segs = jr_opt(json_array_get(tasks, i), "segments");
        if (!json_is_array(segs)) continue;
        nseg += json_array_size(segs);
        for (size_t s = 0; s < json_array_size(segs); s++) {
            json_t *ops = jr_opt(jr_opt(json_array_get(segs, s), "gpu"), "ops");
            if (json_is_array(ops)) nops += json_array_size(ops);
        }
    }
    t->tasks = calloc(n, sizeof *t->tasks);
    t->segs = calloc(nseg ? nseg : 1, sizeof *t->segs);
    t->ops = calloc(nops ? nops : 1, sizeof *t->ops);
    int64_t **times = calloc(nops ? nops : 1, sizeof *times);
    if (!t->tasks || !t->segs || !t->ops || !times) {
        free(times);
        return jr_oom(c);
    }
    size_t si = 0, oi = 0;
    int rc = -1;
    int32_t cpus = t->cpus ? t->cpus : 1;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(tasks, i);
        sim_task *k = &t->tasks[i];
        jr_index(p, "tasks", i);
        if (jr_need_object(c, o, p) || jr_check_keys(c, o, p, task_keys)) goto out;
        t->ntasks = i + 1;
        char def[32];
        snprintf(def, sizeof def, "t%zu", i + 1);
        const char *name = def;
        if ((v = jr_opt(o, "name")) && jr_get_name(c, v, jr_join(q, p, "name"), &name)) goto out;
        for (size_t h = 0; h < i; h++)
            if (strcmp(t->tasks[h].name, name) == 0) {
                jr_fail(c, jr_join(q, p, "name"), "\"%s\" is also tasks[%zu]'s name", name, h);
                goto out;
            }
        if (!(k->name = own(t, name))) {
            jr_oom(c);
            goto out;
        }
        int64_t x;
        if (!(v = jr_opt(o, "cpu"))) {
            k->cpu = 0;
        } else {
            if (jr_get_whole(c, v, jr_join(q, p, "cpu"), &x)) goto out;
            if (x < 0 || x >= cpus) {
                jr_fail(c, q, "%" PRId64 " is not a core (cpus is %d: cores 0..%d)", x, (int)cpus,
                        (int)cpus - 1);
                goto out;
            }
            k->cpu = (int32_t)x;
        }
        if (get_bool(c, jr_opt(o, "best_effort"), jr_join(q, p, "best_effort"), &k->best_effort))
            goto out;
        /* issue 27: a graphics application (GCAPS paper §7.2, Table 4's
         * task 7): no GCAPS macro, no GPU lock around its GPU work */
        if (get_bool(c, jr_opt(o, "graphics"), jr_join(q, p, "graphics"), &k->graphics))
            goto out;
        if (k->best_effort) {
            static const char *const rt_only[] = {"priority", "gpu_priority"};
            for (int j = 0; j < 2; j++)
                if (jr_opt(o, rt_only[j])) {
                    jr_fail(c, jr_join(q, p, rt_only[j]),
                            "a best-effort task has no real-time priority; leave it out");
                    goto out;
                }
        } else {
            if (get_prio(c, jr_opt(o, "priority"), jr_join(q, p, "priority"), 1, 99, &k->priority))
                goto out;
            if ((v = jr_opt(o, "gpu_priority"))) {
                if (get_prio(c, v, jr_join(q, p, "gpu_priority"), INT32_MIN + 1, INT32_MAX,
                             &k->gpu_priority))
                    goto out;
                k->has_gpu_priority = true;
            }
        }
        if (dur(c, jr_opt(o, "period"), jr_join(q, p, "period"), &k->period)) goto out;
        if (k->period == 0) {
            jr_fail(c, q, "must be positive");
            goto out;
        }
        k->deadline = k->period;
        if ((v = jr_opt(o, "deadline"))) {
            if (dur(c, v, jr_join(q, p, "deadline"), &k->deadline)) goto out;
            if (k->deadline == 0 || k->deadline > k->period) {
                jr_fail(c, q, "must be positive and at most the period (constrained deadlines)");
                goto out;
            }
        }
        if ((v = jr_opt(o, "offset")) && dur(c, v, jr_join(q, p, "offset"), &k->offset)) goto out;
        if ((v = jr_opt(o, "mode"))) {
            const char *m = NULL;
            static const char *const modes[] = {"suspend", "busy"};
            if (jr_get_string(c, v, jr_join(q, p, "mode"), &m)) goto out;
            if (strcmp(m, "suspend") == 0) k->mode = SIM_WAIT_SUSPEND;
            else if (strcmp(m, "busy") == 0) k->mode = SIM_WAIT_BUSY;
            else {
                jr_fail_unknown(c, q, "mode", m, modes, 2);
                goto out;
            }
        }
        json_t *segs = jr_opt(o, "segments");
        jr_join(q, p, "segments");
        if (!segs) {
            jr_fail(c, q, "missing: a job is a list of {\"cpu\": d} and {\"gpu\": {...}}");
            goto out;
        }
        if (jr_need_array(c, segs, q)) goto out;
        if (json_array_size(segs) == 0) {
            jr_fail(c, q, "must not be empty");
            goto out;
        }
        k->segments = t->segs + si;
        for (size_t s = 0; s < json_array_size(segs); s++) {
            json_t *g = json_array_get(segs, s);
            sim_segment *sg = &t->segs[si++];
            k->nsegments++;
            jr_index(r, q, s);
            if (jr_need_object(c, g, r) || jr_check_keys(c, g, r, seg_keys)) goto out;
            json_t *jc = jr_opt(g, "cpu"), *jg = jr_opt(g, "gpu");
            if (!jc == !jg) {
                jr_fail(c, r, "must be {\"cpu\": duration} or {\"gpu\": {\"misc\": d, \"exec\": d}}");
                goto out;
            }
            char w[JR_PATH_MAX];
            if (jc) {
                sg->kind = SIM_SEG_CPU;
                if (exec_dist_parse(c, jc, jr_join(w, r, "cpu"), &sg->cpu, &sg->cpu_var)) goto out;
                continue;
            }
            sg->kind = SIM_SEG_GPU;
            jr_join(w, r, "gpu");
            if (jr_need_object(c, jg, w) || jr_check_keys(c, jg, w, gpu_keys)) goto out;
            char y[JR_PATH_MAX];
            if ((v = jr_opt(jg, "misc")) &&
                exec_dist_parse(c, v, jr_join(y, w, "misc"), &sg->misc, &sg->misc_var))
                goto out;
            json_t *je = jr_opt(jg, "exec"), *jo = jr_opt(jg, "ops");
            if (!je == !jo) {
                jr_fail(c, w, "needs \"exec\" (one kernel that fills the GPU) or \"ops\" "
                        "(kernels and copies), one of them");
                goto out;
            }
            if (je) {
                if (exec_dist_parse(c, je, jr_join(y, w, "exec"), &sg->exec, &sg->exec_var)) goto out;
                continue;
            }
            jr_join(y, w, "ops");
            if (jr_need_array(c, jo, y)) goto out;
            sg->ops = t->ops + oi;
            for (size_t j = 0; j < json_array_size(jo); j++) {
                char z[JR_PATH_MAX];
                if (parse_op(c, t, json_array_get(jo, j), jr_index(z, y, j), &t->ops[oi], &times[oi]))
                    goto out;
                oi++;
                sg->nops++;
            }
        }
    }
    rc = 0;
out:
    /* the block times stay with the ops: remember them for scn_tasks_free */
    {
        size_t m = 0;
        for (size_t j = 0; j < nops; j++) m += times[j] != NULL;
        char **keep = realloc(t->strs, (t->nstrs + m) * sizeof *keep);
        if (keep) {
            t->strs = keep;
            for (size_t j = 0; j < nops; j++)
                if (times[j]) t->strs[t->nstrs++] = (char *)times[j];
        } else {
            for (size_t j = 0; j < nops; j++) free(times[j]);
            if (rc == 0) rc = jr_oom(c);
        }
    }
    free(times);
    return rc;
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
