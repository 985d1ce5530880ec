/* taskset.c -- schedlab-taskset/1 and a scenario's `tasks` into an
 * rta_taskset; schedlab-rta/1 out. See taskset.h. */
#include "taskset.h"
#include "../../importers/jsonr.h"
#include "exec_dist.h"
#include "scenario_tasks.h"
#include "units.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Durations this long would overflow the analysis once summed over many
 * jobs; the scenario parser has the same limit. */
#define TSET_MAX_DURATION (INT64_C(1000000) * INT64_C(1000000000))

struct tset {
    rta_taskset ts;
    rta_task *tasks;
    int64_t *seg;             /* misc and exec of every task, one block */
    char **names;
    size_t n;
};

/* Messages, paths, key checks and typed reads are jsonr.h's, durations
 * units.h's: the same words as the scenario parser's for the same
 * mistakes. */

/* ---- durations ------------------------------------------------------------ */

static int dur(jr_ctx *c, json_t *v, const char *path, int64_t *out) {
    if (!v) {
        jr_fail(c, path, "missing (a duration: a number of ns or a string like \"2.5ms\")");
        return -1;
    }
    /* no device clock here: "12cycles" is refused with the reason */
    return units_parse(c, v, path, UNITS_DURATION, out, NULL);
}

int tset_duration(json_t *v, const char *path, int64_t *ns, char *err, size_t errlen) {
    jr_ctx c = {.file = "", .err = err, .errlen = errlen};
    int rc = dur(&c, v, path, ns);
    if (rc && err && errlen && strncmp(err, ": ", 2) == 0)
        memmove(err, err + 2, strlen(err + 2) + 1);
    return rc;
}

static int get_int(jr_ctx *c, json_t *v, const char *path, long long lo, long long hi, int32_t *out) {
    if (!json_is_integer(v))
        return jr_fail(c, path, "must be an integer, not %s", v ? jr_type_name(v) : "missing");
    long long x = json_integer_value(v);
    if (x < lo || x > hi)
        return jr_fail(c, path, "%lld is out of range (%lld..%lld)", x, lo, hi);
    *out = (int32_t)x;
    return 0;
}

/* A scenario's task is read as the simulator reads it (scenario_tasks.c),
 * so that `schedlab rta SCENARIO` (and the run page's bounds, task_bounds.c)
 * takes every scenario `schedlab simulate` takes: a whole number may be
 * written 5.0. */
static int get_int_as(jr_ctx *c, json_t *v, const char *path, long long lo, long long hi,
                      int32_t *out, bool scenario) {
    if (!scenario || !json_is_real(v))
        return get_int(c, v, path, lo, hi, out);
    int64_t x;
    if (jr_get_whole(c, v, path, &x))
        return -1;
    if (x < lo || x > hi)
        return jr_fail(c, path, "%lld is out of range (%lld..%lld)", (long long)x, lo, hi);
    *out = (int32_t)x;
    return 0;
}

static int get_bool(jr_ctx *c, json_t *v, const char *path, bool *out) {
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return jr_fail(c, path, "must be true or false, not %s", jr_type_name(v));
    *out = json_is_true(v);
    return 0;
}

/* ---- building ------------------------------------------------------------- */

void tset_free(tset *t) {
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->names[i]);
    free(t->names);
    free(t->tasks);
    free(t->seg);
    free(t);
}

const rta_taskset *tset_rta(const tset *t) {
    return &t->ts;
}

static tset *alloc_tset(size_t n, size_t nseg) {
    tset *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->tasks = calloc(n ? n : 1, sizeof *t->tasks);
    t->names = calloc(n ? n : 1, sizeof *t->names);
    t->seg = calloc(nseg ? 2 * nseg : 1, sizeof *t->seg);
    if (!t->tasks || !t->names || !t->seg) {
        tset_free(t);
        return NULL;
    }
    t->ts.tasks = t->tasks;
    return t;
}

/* What both input forms share per task: name, cpu, priorities, period,
 * deadline, best_effort. A scenario's task without "cpu" is on core 0, as
 * the simulator runs it (scenario-format.md, Real-time tasks). */
static int read_common(jr_ctx *c, tset *t, json_t *o, size_t i, const char *path,
                       bool scenario) {
    rta_task *k = &t->tasks[i];
    char p[JR_PATH_MAX];
    json_t *name = json_object_get(o, "name");
    if (name && !json_is_string(name))
        return jr_fail(c, jr_join(p, path, "name"), "must be a string, not %s", jr_type_name(name));
    char def[32];
    snprintf(def, sizeof def, "t%zu", i + 1);
    const char *nm = name ? json_string_value(name) : def;
    if (!*nm)
        return jr_fail(c, jr_join(p, path, "name"), "must not be empty");
    for (size_t h = 0; h < i; h++)
        if (strcmp(t->names[h], nm) == 0)
            return jr_fail(c, jr_join(p, path, "name"), "\"%s\" is also tasks[%zu]'s name", nm, h);
    if (!(t->names[i] = strdup(nm)))
        return jr_fail(c, path, "out of memory");
    t->n = i + 1;
    k->name = t->names[i];
    json_t *cpu = json_object_get(o, "cpu");
    if (!cpu && scenario)
        k->cpu = 0;
    else if (get_int_as(c, cpu, jr_join(p, path, "cpu"), 0, t->ts.cpus - 1, &k->cpu, scenario))
        return -1;
    if (get_bool(c, json_object_get(o, "best_effort"), jr_join(p, path, "best_effort"),
                 &k->best_effort))
        return -1;
    json_t *prio = json_object_get(o, "priority");
    if (k->best_effort) {
        if (prio)
            return jr_fail(c, jr_join(p, path, "priority"),
                        "a best-effort task has no real-time priority; leave it out");
    } else if (get_int_as(c, prio, jr_join(p, path, "priority"), 1, 99, &k->priority, scenario)) {
        return -1;
    }
    json_t *gp = json_object_get(o, "gpu_priority");
    if (gp) {
        if (k->best_effort)
            return jr_fail(c, jr_join(p, path, "gpu_priority"),
                        "a best-effort task has no real-time priority; leave it out");
        if (get_int_as(c, gp, jr_join(p, path, "gpu_priority"), INT32_MIN + 1, INT32_MAX,
                       &k->gpu_priority, scenario))
            return -1;
        k->has_gpu_priority = true;
    }
    if (dur(c, json_object_get(o, "period"), jr_join(p, path, "period"), &k->period))
        return -1;
    if (k->period == 0)
        return jr_fail(c, jr_join(p, path, "period"), "must be positive");
    json_t *dl = json_object_get(o, "deadline");
    k->deadline = k->period;
    if (dl && dur(c, dl, jr_join(p, path, "deadline"), &k->deadline))
        return -1;
    if (k->deadline == 0 || k->deadline > k->period)
        return jr_fail(c, jr_join(p, path, "deadline"),
                    "must be positive and at most the period (constrained deadlines)");
    return 0;
}

static int read_gpu_seg(jr_ctx *c, json_t *g, const char *path, int64_t *misc, int64_t *exec) {
    char p[JR_PATH_MAX];
    if (!json_is_object(g))
        return jr_fail(c, path, "must be an object {\"misc\": d, \"exec\": d}, not %s", jr_type_name(g));
    if (json_object_get(g, "ops") && !json_object_get(g, "exec"))
        return jr_fail(c, path, "the analysis needs the segment's \"exec\" (its pure GPU WCET); "
                    "\"ops\" alone has no bound");
    static const char *const keys[] = {"misc", "exec", "ops", NULL};
    if (jr_check_keys(c, g, path, keys))
        return -1;
    /* a time that varies (issue 27) is analysed at its WCET, max */
    if (exec_dist_parse(c, json_object_get(g, "misc"), jr_join(p, path, "misc"), misc, NULL) ||
        exec_dist_parse(c, json_object_get(g, "exec"), jr_join(p, path, "exec"), exec, NULL))
        return -1;
    return 0;
}

static int finish(jr_ctx *c, tset *t) {
    t->ts.n = t->n;
    char err[512];
    if (rta_check(&t->ts, err, sizeof err))
        return jr_fail(c, "", "%s", err);
    return 0;
}

static int read_top(jr_ctx *c, json_t *root, tset **out, bool scenario) {
    char p[JR_PATH_MAX];
    json_t *tasks = json_object_get(root, "tasks");
    if (!json_is_array(tasks))
        return jr_fail(c, "tasks", "%s", tasks ? "must be an array of tasks" : "missing");
    size_t n = json_array_size(tasks);
    if (n == 0)
        return jr_fail(c, "tasks", "is empty");
    if (n > RTA_MAX_TASKS)
        return jr_fail(c, "tasks", "%zu tasks; this build analyses at most %d", n, RTA_MAX_TASKS);
    size_t nseg = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(tasks, i);
        json_t *s = json_object_get(o, scenario ? "segments" : "gpu_segments");
        if (json_is_array(s))
            nseg += json_array_size(s);
    }
    tset *t = alloc_tset(n, nseg);
    if (!t)
        return jr_fail(c, "", "out of memory");
    int32_t cpus = 1;
    json_t *jc = json_object_get(root, "cpus");
    if ((jc || !scenario) && get_int(c, jc, "cpus", 1, 4096, &cpus))
        goto bad;
    t->ts.cpus = cpus;
    if (scenario) {
        json_t *pol = json_object_get(root, "policy");
        t->ts.time_slice = 1024000;   /* the contexts issue's default */
        if (pol && !json_is_object(pol)) {
            jr_fail(c, "policy", "must be an object, not %s", jr_type_name(pol));
            goto bad;
        }
        json_t *v;
        if ((v = json_object_get(pol, "time_slice")) &&
            dur(c, v, "policy.time_slice", &t->ts.time_slice))
            goto bad;
        if ((v = json_object_get(pol, "context_switch")) &&
            dur(c, v, "policy.context_switch", &t->ts.theta))
            goto bad;
        if ((v = json_object_get(pol, "runlist_update")) &&
            dur(c, v, "policy.runlist_update", &t->ts.epsilon))
            goto bad;
        if (t->ts.time_slice == 0) {
            jr_fail(c, "policy.time_slice", "must be positive");
            goto bad;
        }
    } else {
        static const char *const keys[] = {"schema", "name", "description", "cpus", "epsilon",
                                           "theta", "time_slice", "semantics", "tasks", NULL};
        if (jr_check_keys(c, root, "", keys) ||
            dur(c, json_object_get(root, "epsilon"), "epsilon", &t->ts.epsilon) ||
            dur(c, json_object_get(root, "theta"), "theta", &t->ts.theta) ||
            dur(c, json_object_get(root, "time_slice"), "time_slice", &t->ts.time_slice))
            goto bad;
        if (t->ts.time_slice == 0) {
            jr_fail(c, "time_slice", "must be positive");
            goto bad;
        }
        json_t *sem = json_object_get(root, "semantics");
        if (sem) {
            const char *s = json_string_value(sem);
            if (s && strcmp(s, "printed") == 0) t->ts.semantics = RTA_PRINTED;
            else if (s && strcmp(s, "released-code") == 0) t->ts.semantics = RTA_RELEASED_CODE;
            else if (s && strcmp(s, "corrected") == 0) t->ts.semantics = RTA_CORRECTED;
            else {
                jr_fail(c, "semantics", "expected \"printed\", \"released-code\" or \"corrected\"");
                goto bad;
            }
        }
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(tasks, i);
        char tp[JR_PATH_MAX];
        jr_index(tp, "tasks", i);
        if (!json_is_object(o)) {
            jr_fail(c, tp, "must be an object, not %s", jr_type_name(o));
            goto bad;
        }
        static const char *const tkeys[] = {"name", "cpu", "priority", "gpu_priority", "period",
                                            "deadline", "best_effort", "cpu_segments",
                                            "gpu_segments", NULL};
        /* a scenario's task may have what a simulated one may (its keys are
         * declared once, in scenario_tasks.c's table) */
        if ((scenario ? scn_tasks_known_keys(c, o, tp) : jr_check_keys(c, o, tp, tkeys)) ||
            read_common(c, t, o, i, tp, scenario))
            goto bad;
        rta_task *k = &t->tasks[i];
        /* seg holds every misc, then every exec: each task's are contiguous. */
        int64_t *m = t->seg + used, *e = t->seg + nseg + used;
        k->misc = m;
        k->exec = e;
        int64_t ctot = 0;
        int32_t ncpu = 0, ngpu = 0;
        if (scenario) {
            json_t *v;
            if ((v = json_object_get(o, "offset"))) {
                int64_t off;
                if (dur(c, v, jr_join(p, tp, "offset"), &off))
                    goto bad;
            }
            /* a graphics application (GCAPS §7.2's task 7) is analysed as the
             * task it is otherwise: the analyses (§6) have no uninstrumented
             * context (docs/rta.md, "The graphics task, as read") */
            bool graphics;
            if (get_bool(c, json_object_get(o, "graphics"), jr_join(p, tp, "graphics"), &graphics))
                goto bad;
            if ((v = json_object_get(o, "mode"))) {
                const char *s = json_string_value(v);
                if (!s || (strcmp(s, "busy") && strcmp(s, "suspend"))) {
                    jr_fail(c, jr_join(p, tp, "mode"), "expected \"busy\" or \"suspend\"");
                    goto bad;
                }
            }
            json_t *segs = json_object_get(o, "segments");
            char sp[JR_PATH_MAX];
            jr_join(sp, tp, "segments");
            if (!json_is_array(segs)) {
                jr_fail(c, sp, "%s", segs ? "must be an array" : "missing");
                goto bad;
            }
            for (size_t j = 0; j < json_array_size(segs); j++) {
                json_t *s = json_array_get(segs, j);
                char jp[JR_PATH_MAX];
                jr_index(jp, sp, j);
                json_t *cv = json_object_get(s, "cpu"), *gv = json_object_get(s, "gpu");
                if (!json_is_object(s) || json_object_size(s) != 1 || (!cv && !gv)) {
                    jr_fail(c, jp, "must be {\"cpu\": duration} or {\"gpu\": {\"misc\": d, \"exec\": d}}");
                    goto bad;
                }
                if (cv) {
                    int64_t d;
                    if (exec_dist_parse(c, cv, jr_join(p, jp, "cpu"), &d, NULL))
                        goto bad;
                    ctot += d;
                    ncpu++;
                } else {
                    if (ngpu == RTA_MAX_SEGMENTS) {
                        jr_fail(c, jp, "more than %d GPU segments", RTA_MAX_SEGMENTS);
                        goto bad;
                    }
                    if (read_gpu_seg(c, gv, jr_join(p, jp, "gpu"), &m[ngpu], &e[ngpu]))
                        goto bad;
                    ngpu++;
                }
            }
        } else {
            json_t *cs = json_object_get(o, "cpu_segments"), *gs = json_object_get(o, "gpu_segments");
            char sp[JR_PATH_MAX];
            if (cs && !json_is_array(cs)) {
                jr_fail(c, jr_join(sp, tp, "cpu_segments"), "must be an array of durations");
                goto bad;
            }
            if (gs && !json_is_array(gs)) {
                jr_fail(c, jr_join(sp, tp, "gpu_segments"), "must be an array of {misc, exec}");
                goto bad;
            }
            jr_join(sp, tp, "cpu_segments");
            for (size_t j = 0; j < json_array_size(cs); j++) {
                int64_t d;
                if (dur(c, json_array_get(cs, j), jr_index(p, sp, j), &d))
                    goto bad;
                ctot += d;
                ncpu++;
            }
            jr_join(sp, tp, "gpu_segments");
            for (size_t j = 0; j < json_array_size(gs); j++) {
                if (ngpu == RTA_MAX_SEGMENTS) {
                    jr_fail(c, sp, "more than %d GPU segments", RTA_MAX_SEGMENTS);
                    goto bad;
                }
                if (read_gpu_seg(c, json_array_get(gs, j), jr_index(p, sp, j), &m[ngpu],
                                 &e[ngpu]))
                    goto bad;
                ngpu++;
            }
        }
        if (ncpu == 0 && ngpu == 0) {
            jr_fail(c, tp, "has no segments");
            goto bad;
        }
        if (ctot > TSET_MAX_DURATION) {
            jr_fail(c, tp, "its CPU segments add up to more than this build accepts (1000000s)");
            goto bad;
        }
        k->cpu_total = ctot;
        k->cpu_segments = ncpu;
        k->gpu_segments = ngpu;
        used += (size_t)ngpu;
    }
    if (finish(c, t))
        goto bad;
    *out = t;
    return 0;
bad:
    tset_free(t);
    return -1;
}

int tset_from_scenario(json_t *root, const char *file, tset **out, char *err, size_t errlen) {
    jr_ctx c = {.file = file, .err = err, .errlen = errlen};
    *out = NULL;
    if (!json_is_object(root))
        return jr_fail(&c, "", "must be a JSON object");
    return read_top(&c, root, out, true);
}

int tset_from_json(json_t *root, const char *file, tset **out, char *err, size_t errlen) {
    jr_ctx c = {.file = file, .err = err, .errlen = errlen};
    *out = NULL;
    if (!json_is_object(root))
        return jr_fail(&c, "", "must be a JSON object (a schedlab-taskset/1)");
    json_t *schema = json_object_get(root, "schema");
    const char *s = json_string_value(schema);
    if (schema && !s)
        return jr_fail(&c, "schema", "must be a string");
    if (s && strcmp(s, "schedlab-scenario/1") == 0) {
        if (!json_object_get(root, "tasks"))
            return jr_fail(&c, "tasks", "missing: this scenario has no real-time tasks to analyse");
        return read_top(&c, root, out, true);
    }
    if (s && strcmp(s, "schedlab-taskset/1") != 0)
        return jr_fail(&c, "schema", "expected \"schedlab-taskset/1\" (or a \"schedlab-scenario/1\" "
                    "with tasks), got \"%s\"", s);
    return read_top(&c, root, out, false);
}

int tset_parse(const char *text, size_t len, const char *file, tset **out, char *err,
               size_t errlen) {
    *out = NULL;
    jr_ctx c = {.file = file, .err = err, .errlen = errlen};
    json_t *root = jr_load(&c, text, len);   /* "FILE:12:5: JSON: ...", as scenarios */
    if (!root)
        return -1;
    int rc = tset_from_json(root, file, out, err, errlen);
    json_decref(root);
    return rc;
}

int tset_parse_file(const char *path, tset **out, char *err, size_t errlen) {
    *out = NULL;
    size_t n;
    char *buf = jr_read_file(path, 64u << 20, "task set", &n, err, errlen);
    if (!buf)
        return -1;
    int rc = tset_parse(buf, n, jr_path_name(path), out, err, errlen);
    free(buf);
    return rc;
}

/* ---- output ---------------------------------------------------------------- */

/* Every approach's bounds under one semantics, compactly: {approach:
 * {"schedulable": b, "wcrt": {task: ns or null}}}. */
static json_t *bounds_under(const rta_taskset *in, rta_semantics sem) {
    rta_taskset ts = *in;
    ts.semantics = sem;
    json_t *out = json_object();
    int64_t w[RTA_MAX_TASKS];
    for (int a = 0; out && a < RTA_NAPPROACHES; a++) {
        rta_result r = {.wcrt = w};
        rta_analyse(&ts, (rta_approach)a, &r);
        json_t *tasks = json_object();
        for (size_t i = 0; i < ts.n; i++)
            if (w[i] != RTA_NOT_ANALYSED)
                json_object_set_new(tasks, ts.tasks[i].name,
                                    w[i] >= 0 ? json_integer(w[i]) : json_null());
        json_object_set_new(out, rta_approach_name((rta_approach)a),
                            json_pack("{s:b, s:o}", "schedulable", r.schedulable, "wcrt", tasks));
    }
    return out;
}

json_t *tset_analyse_json(const rta_taskset *ts) {
    json_t *an = json_object();
    int64_t w[RTA_MAX_TASKS];
    int32_t gp[RTA_MAX_TASKS];
    for (int a = 0; a < RTA_NAPPROACHES; a++) {
        rta_result r = {.wcrt = w, .gpu_priority = gp};
        rta_analyse(ts, (rta_approach)a, &r);
        json_t *tasks = json_object();
        for (size_t i = 0; i < ts->n; i++) {
            if (w[i] == RTA_NOT_ANALYSED)
                continue;
            json_t *o = json_pack("{s:o}", "wcrt", w[i] >= 0 ? json_integer(w[i]) : json_null());
            if (r.gpu_assigned)
                json_object_set_new(o, "gpu_priority", json_integer(gp[i]));
            json_object_set_new(tasks, ts->tasks[i].name, o);
        }
        json_t *one = json_pack("{s:b}", "schedulable", r.schedulable);
        if (r.gpu_assigned)
            json_object_set_new(one, "gpu_priority_assigned", json_true());
        if (r.order_inverted)
            json_object_set_new(one, "gpu_order_inverted", json_true());
        if (r.budget_exhausted)
            json_object_set_new(one, "work_budget_exhausted", json_true());
        json_object_set_new(one, "tasks", tasks);
        json_object_set_new(an, rta_approach_name((rta_approach)a), one);
    }
    /* issue 27: the printed lemmas, the released code and the corrected
     * analysis side by side, whatever "semantics" chose for "analyses" */
    json_t *all = json_pack("{s:o, s:o, s:o}", "printed", bounds_under(ts, RTA_PRINTED),
                            "released-code", bounds_under(ts, RTA_RELEASED_CODE), "corrected",
                            bounds_under(ts, RTA_CORRECTED));
    return json_pack("{s:s, s:s, s:o, s:o}", "schema", "schedlab-rta/1", "semantics",
                     ts->semantics == RTA_RELEASED_CODE ? "released-code"
                     : ts->semantics == RTA_CORRECTED   ? "corrected"
                                                        : "printed",
                     "analyses", an, "by_semantics", all);
}
