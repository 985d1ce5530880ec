/* sweep.c -- schedulability sweeps over generated tasksets. See sweep.h. */
#include "sweep.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../simcore/rta.h"
#include "../../simcore/rta_gen.h"
#include "../../importers/jsonr.h"
#include "qos_sweep.h"
#include "taskset.h"

#define SWEEP_MAX_POINTS 1000
#define SWEEP_MAX_TASKSETS 100000000

typedef enum xparam { X_TASKS, X_UTIL_CPU, X_CPUS, X_GPU_RATIO, X_G_TO_C, X_BE_RATIO, X_N } xparam;
static const char *const xnames[X_N] = {"tasks", "util_per_cpu", "cpus", "gpu_ratio", "g_to_c",
                                        "be_ratio"};
static const char *const xlabels[X_N] = {
    "number of tasks", "utilization per CPU", "number of CPUs", "ratio of GPU-using tasks",
    "ratio G/C", "ratio of best-effort tasks"};

struct sweep_spec {
    json_t *norm;                    /* the normalised spec, as results carry it */
    char *name;
    uint64_t seed;
    int64_t tasksets;
    xparam x;
    size_t npoints;
    rta_gen_params point[SWEEP_MAX_POINTS];
    int approaches[RTA_NAPPROACHES];
    size_t napproaches;
    int64_t epsilon, theta, time_slice;
    rta_semantics semantics;
    qos_spec *qos;                   /* "kind": "qos": the ISCA'17 QoSreach sweep instead */
};

static int fail(char *err, size_t errlen, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, const char *file, const char *fmt, ...) {
    if (err && errlen) {
        int k = snprintf(err, errlen, "%s: ", file);
        va_list ap;
        va_start(ap, fmt);
        if (k > 0 && (size_t)k < errlen)
            vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
        jr_one_line(err, errlen);   /* a key from the spec may hold a newline */
    }
    return -1;
}

void sweep_spec_free(sweep_spec *s) {
    if (!s)
        return;
    json_decref(s->norm);
    qos_spec_free(s->qos);
    free(s->name);
    free(s);
}

const char *sweep_spec_name(const sweep_spec *s) {
    return s->name;
}

int sweep_reference_check(json_t *v, const char *what, size_t npoints,
                          const char *const *names, size_t nnames, const char *file, char *err,
                          size_t errlen) {
    if (!v)
        return 0;
    if (!json_is_object(v))
        return fail(err, errlen, file, "reference: must be an object ({\"source\", \"%s\"})", what);
    const char *key;
    json_t *x;
    json_object_foreach(v, key, x) {
        if (!strcmp(key, "source")) {
            if (!json_is_string(x))
                return fail(err, errlen, file, "reference.source: must be a string");
            continue;
        }
        if (strcmp(key, what))
            return fail(err, errlen, file, "reference.%s: unknown key (expected source, %s)", key,
                        what);
        if (!json_is_object(x))
            return fail(err, errlen, file, "reference.%s: must be an object", what);
        const char *name;
        json_t *vals;
        json_object_foreach(x, name, vals) {
            size_t n = 0;
            while (n < nnames && strcmp(names[n], name))
                n++;
            if (n == nnames) {
                char known[512];
                size_t at = 0;
                known[0] = '\0';
                for (size_t k = 0; k < nnames && at < sizeof known; k++) {
                    int w = snprintf(known + at, sizeof known - at, "%s%s", k ? ", " : "",
                                     names[k]);
                    at += w > 0 ? (size_t)w : 0;
                }
                return fail(err, errlen, file,
                            "reference.%s.%s: not one this sweep computes (it computes: %s)", what,
                            name, known);
            }
            bool arr = npoints > 0;
            if (arr && (!json_is_array(vals) || json_array_size(vals) != npoints))
                return fail(err, errlen, file,
                            "reference.%s.%s: must be an array of %zu percentages (one per point)",
                            what, name, npoints);
            for (size_t i = 0; i < (arr ? npoints : 1); i++) {
                json_t *e = arr ? json_array_get(vals, i) : vals;
                if (!json_is_null(e) && (!json_is_number(e) || json_number_value(e) < 0 ||
                                         json_number_value(e) > 100))
                    return fail(err, errlen, file,
                                "reference.%s.%s%s: must be a percentage (0..100) or null", what,
                                name, arr ? "[i]" : "");
            }
        }
    }
    if (!json_is_string(json_object_get(v, "source")))
        return fail(err, errlen, file, "reference.source: missing (where the numbers come from)");
    return 0;
}

/* A ratio such as 0.45 as whole hundredths (the generator's unit). */
static int hundredths(json_t *v, const char *path, int32_t *out, char *err, size_t errlen,
                      const char *file) {
    if (!json_is_number(v))
        return fail(err, errlen, file, "%s: must be a number", path);
    double d = json_number_value(v) * 100.0;
    double r = nearbyint(d);
    if (fabs(d - r) > 1e-6 || r < 0 || r > 1e7)
        return fail(err, errlen, file, "%s: %g is not a whole number of hundredths", path,
                    json_number_value(v));
    *out = (int32_t)r;
    return 0;
}

static int whole(json_t *v, const char *path, long long lo, long long hi, int32_t *out, char *err,
                 size_t errlen, const char *file) {
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return fail(err, errlen, file, "%s: must be an integer in %lld..%lld", path, lo, hi);
    *out = (int32_t)json_integer_value(v);
    return 0;
}

/* [lo, hi] of ratios (hundredths) or of integers. */
static int range(json_t *v, const char *path, bool ratio, int32_t *lo, int32_t *hi, char *err,
                 size_t errlen, const char *file) {
    if (!json_is_array(v) || json_array_size(v) != 2)
        return fail(err, errlen, file, "%s: must be [low, high]", path);
    char p[96];
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s[%d]", path, k);
        int32_t *dst = k ? hi : lo;
        if (ratio ? hundredths(json_array_get(v, (size_t)k), p, dst, err, errlen, file)
                  : whole(json_array_get(v, (size_t)k), p, 0, 1000000000, dst, err, errlen, file))
            return -1;
    }
    if (*lo > *hi)
        return fail(err, errlen, file, "%s: low is above high", path);
    return 0;
}

static json_t *jratio(int32_t h) {
    return json_real(h / 100.0);
}

static json_t *jrange(int32_t lo, int32_t hi, bool ratio) {
    return ratio ? json_pack("[o, o]", jratio(lo), jratio(hi)) : json_pack("[i, i]", lo, hi);
}

static json_t *params_json(const rta_gen_params *p) {
    return json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "cpus",
                     p->cpus, "tasks", p->tasks, "tasks_per_cpu",
                     jrange(p->tasks_per_cpu_lo, p->tasks_per_cpu_hi, false), "util_per_cpu",
                     jrange(p->util_cpu_lo, p->util_cpu_hi, true), "task_util",
                     jrange(p->util_task_lo, p->util_task_hi, true), "task_util_step",
                     jratio(p->util_task_step), "gpu_ratio",
                     jrange(p->gpu_ratio_lo, p->gpu_ratio_hi, true), "period_ms",
                     jrange(p->period_lo_ms, p->period_hi_ms, false), "gpu_segments",
                     jrange(p->segs_lo, p->segs_hi, false), "g_to_c",
                     jrange(p->g_to_c_lo, p->g_to_c_hi, true), "misc_ratio",
                     jrange(p->misc_lo, p->misc_hi, true), "be_ratio", jratio(p->be_pct));
}

static int check_keys(json_t *o, const char *path, const char *const *known, char *err,
                      size_t errlen, const char *file) {
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++)
            ok = strcmp(*k, key) == 0;
        if (!ok)
            return fail(err, errlen, file, "%s%s%s: unknown key", path, *path ? "." : "", key);
    }
    return 0;
}

static int parse_params(json_t *o, rta_gen_params *p, char *err, size_t errlen, const char *file) {
    if (!o)
        return 0;
    if (!json_is_object(o))
        return fail(err, errlen, file, "params: must be an object");
    static const char *const keys[] = {"cpus", "tasks", "tasks_per_cpu", "util_per_cpu",
                                       "task_util", "task_util_step", "gpu_ratio", "period_ms",
                                       "gpu_segments", "g_to_c", "misc_ratio", "be_ratio", NULL};
    if (check_keys(o, "params", keys, err, errlen, file))
        return -1;
    json_t *v;
#define R(key, ratio, lo, hi) \
    if ((v = json_object_get(o, key)) && range(v, "params." key, ratio, lo, hi, err, errlen, file)) \
        return -1;
    if ((v = json_object_get(o, "cpus")) &&
        whole(v, "params.cpus", 1, RTA_MAX_TASKS, &p->cpus, err, errlen, file))
        return -1;
    if ((v = json_object_get(o, "tasks")) &&
        whole(v, "params.tasks", 0, RTA_MAX_TASKS, &p->tasks, err, errlen, file))
        return -1;
    R("tasks_per_cpu", false, &p->tasks_per_cpu_lo, &p->tasks_per_cpu_hi);
    R("util_per_cpu", true, &p->util_cpu_lo, &p->util_cpu_hi);
    R("task_util", true, &p->util_task_lo, &p->util_task_hi);
    R("gpu_ratio", true, &p->gpu_ratio_lo, &p->gpu_ratio_hi);
    R("period_ms", false, &p->period_lo_ms, &p->period_hi_ms);
    R("gpu_segments", false, &p->segs_lo, &p->segs_hi);
    R("g_to_c", true, &p->g_to_c_lo, &p->g_to_c_hi);
    R("misc_ratio", true, &p->misc_lo, &p->misc_hi);
#undef R
    if ((v = json_object_get(o, "task_util_step")) &&
        hundredths(v, "params.task_util_step", &p->util_task_step, err, errlen, file))
        return -1;
    if ((v = json_object_get(o, "be_ratio")) &&
        hundredths(v, "params.be_ratio", &p->be_pct, err, errlen, file))
        return -1;
    return 0;
}

static int apply_x(rta_gen_params *p, xparam x, json_t *v, const char *path, char *err,
                   size_t errlen, const char *file) {
    int32_t h = 0;
    switch (x) {
    case X_TASKS:
        return whole(v, path, 1, RTA_MAX_TASKS, &p->tasks, err, errlen, file);
    case X_CPUS:
        return whole(v, path, 1, RTA_MAX_TASKS, &p->cpus, err, errlen, file);
    default:
        break;
    }
    if (hundredths(v, path, &h, err, errlen, file))
        return -1;
    if (x == X_UTIL_CPU)
        p->util_cpu_lo = p->util_cpu_hi = h;
    else if (x == X_GPU_RATIO)
        p->gpu_ratio_lo = p->gpu_ratio_hi = h;
    else if (x == X_G_TO_C)
        p->g_to_c_lo = p->g_to_c_hi = h;
    else {
        /* the released code's BE experiment (e=1) uses the most tasks per core */
        p->be_pct = h;
        p->tasks_per_cpu_lo = p->tasks_per_cpu_hi;
    }
    return 0;
}

int sweep_spec_parse(const char *text, size_t len, const char *file, sweep_spec **out, char *err,
                     size_t errlen) {
    *out = NULL;
    jr_ctx c = {.file = file, .err = err, .errlen = errlen};
    json_t *root = jr_load(&c, text, len);   /* "FILE:12:5: JSON: ...", as scenarios */
    if (!root)
        return -1;
    sweep_spec *s = calloc(1, sizeof *s);
    if (!s) {
        json_decref(root);
        return fail(err, errlen, file, "out of memory");
    }
    json_t *v;
    static const char *const keys[] = {"schema", "name", "description", "seed", "tasksets", "x",
                                       "approaches", "semantics", "generator", "epsilon",
                                       "theta", "time_slice", "params", "reference", NULL};
    if (!json_is_object(root)) {
        fail(err, errlen, file, "must be a JSON object (a schedlab-sweep/1 spec)");
        goto bad;
    }
    /* kinds (docs/rta.md, docs/qos.md): schedulability (the default) or
     * "qos", the ISCA'17 QoSreach sweep over a scenario template */
    v = json_object_get(root, "kind");
    if (v && (!json_is_string(v) || (strcmp(json_string_value(v), "qos") &&
                                     strcmp(json_string_value(v), "schedulability")))) {
        fail(err, errlen, file, "kind: expected \"schedulability\" (the default) or \"qos\"");
        goto bad;
    }
    if (v && !strcmp(json_string_value(v), "qos")) {
        const char *schema = json_string_value(json_object_get(root, "schema"));
        if (!schema || strcmp(schema, "schedlab-sweep/1") != 0) {
            fail(err, errlen, file, "schema: expected \"schedlab-sweep/1\"");
            goto bad;
        }
        if (qos_spec_parse(root, file, &s->qos, err, errlen))
            goto bad;
        s->name = strdup(qos_spec_name(s->qos));
        if (!s->name) {
            fail(err, errlen, file, "out of memory");
            goto bad;
        }
        json_decref(root);
        *out = s;
        return 0;
    }
    json_object_del(root, "kind");
    /* the schema first: another document (a scenario, a taskset) is named
     * as such, not by the first of its keys a spec has not ("device:
     * unknown key") */
    const char *schema = json_string_value(json_object_get(root, "schema"));
    if (!schema || strcmp(schema, "schedlab-sweep/1") != 0) {
        if (schema)
            fail(err, errlen, file, "schema: expected \"schedlab-sweep/1\", got \"%.60s\"", schema);
        else
            fail(err, errlen, file, "schema: expected \"schedlab-sweep/1\"");
        goto bad;
    }
    if (check_keys(root, "", keys, err, errlen, file))
        goto bad;
    const char *name = json_string_value(json_object_get(root, "name"));
    if (!name || !*name) {
        fail(err, errlen, file, "name: missing (a string naming the experiment)");
        goto bad;
    }
    s->name = strdup(name);
    v = json_object_get(root, "description");
    if (v && !json_is_string(v)) {
        fail(err, errlen, file, "description: must be a string");
        goto bad;
    }
    s->seed = 1;
    if ((v = json_object_get(root, "seed"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 0) {
            fail(err, errlen, file, "seed: must be a non-negative integer");
            goto bad;
        }
        s->seed = (uint64_t)json_integer_value(v);
    }
    s->tasksets = 1000;
    if ((v = json_object_get(root, "tasksets"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > SWEEP_MAX_TASKSETS) {
            fail(err, errlen, file, "tasksets: must be an integer in 1..%d", SWEEP_MAX_TASKSETS);
            goto bad;
        }
        s->tasksets = json_integer_value(v);
    }
    s->semantics = RTA_PRINTED;
    if ((v = json_object_get(root, "semantics"))) {
        const char *t = json_string_value(v);
        if (!t || (strcmp(t, "printed") && strcmp(t, "released-code") && strcmp(t, "corrected"))) {
            fail(err, errlen, file,
                 "semantics: expected \"printed\", \"released-code\" or \"corrected\"");
            goto bad;
        }
        s->semantics = !strcmp(t, "printed")     ? RTA_PRINTED
                       : !strcmp(t, "corrected") ? RTA_CORRECTED
                                                 : RTA_RELEASED_CODE;
    }
    rta_gen_params base;
    rta_gen_defaults(&base);
    if ((v = json_object_get(root, "generator"))) {
        const char *t = json_string_value(v);
        if (!t || (strcmp(t, "paper") && strcmp(t, "released-code"))) {
            fail(err, errlen, file, "generator: expected \"paper\" or \"released-code\"");
            goto bad;
        }
        base.released_code = strcmp(t, "paper") != 0;
    }
    /* Table 3 and §7.1.1: ε = 1 ms, θ = 200 us, L = 1024 us */
    s->epsilon = 1000000;
    s->theta = 200000;
    s->time_slice = 1024000;
    char derr[256];
    if (((v = json_object_get(root, "epsilon")) &&
         tset_duration(v, "epsilon", &s->epsilon, derr, sizeof derr)) ||
        ((v = json_object_get(root, "theta")) &&
         tset_duration(v, "theta", &s->theta, derr, sizeof derr)) ||
        ((v = json_object_get(root, "time_slice")) &&
         tset_duration(v, "time_slice", &s->time_slice, derr, sizeof derr))) {
        fail(err, errlen, file, "%s", derr);
        goto bad;
    }
    if (s->time_slice == 0) {
        fail(err, errlen, file, "time_slice: must be positive");
        goto bad;
    }
    if (parse_params(json_object_get(root, "params"), &base, err, errlen, file))
        goto bad;
    v = json_object_get(root, "approaches");
    if (v) {
        if (!json_is_array(v) || json_array_size(v) == 0 ||
            json_array_size(v) > RTA_NAPPROACHES) {
            fail(err, errlen, file, "approaches: must be a non-empty array of analysis names");
            goto bad;
        }
        for (size_t i = 0; i < json_array_size(v); i++) {
            const char *t = json_string_value(json_array_get(v, i));
            int a = t ? rta_approach_parse(t) : -1;
            for (size_t k = 0; k < s->napproaches && a >= 0; k++)
                if (s->approaches[k] == a)
                    a = -2;
            if (a < 0) {
                fail(err, errlen, file, "approaches[%zu]: %s", i,
                     a == -2 ? "listed twice"
                             : "expected tsg_rr_busy, tsg_rr_suspend, gcaps_busy, "
                               "gcaps_suspend, gcaps_busy_gprio, gcaps_suspend_gprio, "
                               "fmlp_busy, fmlp_suspend, mpcp_busy or mpcp_suspend");
                goto bad;
            }
            s->approaches[s->napproaches++] = a;
        }
    } else {
        for (int a = 0; a < RTA_NAPPROACHES; a++)
            s->approaches[s->napproaches++] = a;
    }
    json_t *x = json_object_get(root, "x");
    if (!json_is_object(x)) {
        fail(err, errlen, file, "x: missing ({\"param\": \"tasks\", \"values\": [2, 4, ...]})");
        goto bad;
    }
    static const char *const xkeys[] = {"param", "values", NULL};
    if (check_keys(x, "x", xkeys, err, errlen, file))
        goto bad;
    const char *xp = json_string_value(json_object_get(x, "param"));
    s->x = X_N;
    for (int k = 0; xp && k < X_N; k++)
        if (strcmp(xp, xnames[k]) == 0)
            s->x = (xparam)k;
    if (s->x == X_N) {
        fail(err, errlen, file, "x.param: expected tasks, util_per_cpu, cpus, gpu_ratio, g_to_c "
             "or be_ratio");
        goto bad;
    }
    json_t *vals = json_object_get(x, "values");
    if (!json_is_array(vals) || json_array_size(vals) == 0 ||
        json_array_size(vals) > SWEEP_MAX_POINTS) {
        fail(err, errlen, file, "x.values: must be an array of 1..%d numbers", SWEEP_MAX_POINTS);
        goto bad;
    }
    s->npoints = json_array_size(vals);
    json_t *nvals = json_array();
    for (size_t i = 0; i < s->npoints; i++) {
        char p[64];
        snprintf(p, sizeof p, "x.values[%zu]", i);
        s->point[i] = base;
        if (apply_x(&s->point[i], s->x, json_array_get(vals, i), p, err, errlen, file)) {
            json_decref(nvals);
            goto bad;
        }
        char gerr[256];
        if (rta_gen_check(&s->point[i], gerr, sizeof gerr)) {
            json_decref(nvals);
            fail(err, errlen, file, "%s: %s", p, gerr);
            goto bad;
        }
        json_array_append(nvals, json_array_get(vals, i));
    }
    /* the paper's (or the authors' code's) numbers per point, drawn beside
     * ours (issue 30); carried in the normalised spec, never computed with */
    const char *anames[RTA_NAPPROACHES];
    for (size_t k = 0; k < s->napproaches; k++)
        anames[k] = rta_approach_name(s->approaches[k]);
    if (sweep_reference_check(json_object_get(root, "reference"), "schedulable", s->npoints, anames,
                              s->napproaches, file, err, errlen)) {
        json_decref(nvals);
        goto bad;
    }
    json_t *appr = json_array();
    for (size_t k = 0; k < s->napproaches; k++)
        json_array_append_new(appr, json_string(rta_approach_name(s->approaches[k])));
    json_t *desc = json_object_get(root, "description");
    s->norm = json_pack(
        "{s:s, s:s, s:O?, s:I, s:I, s:{s:s, s:o}, s:o, s:s, s:s, s:I, s:I, s:I, s:o}", "schema",
        "schedlab-sweep/1", "name", name, "description", desc, "seed", (json_int_t)s->seed,
        "tasksets", (json_int_t)s->tasksets, "x", "param", xnames[s->x], "values", nvals,
        "approaches", appr, "semantics",
        s->semantics == RTA_PRINTED     ? "printed"
        : s->semantics == RTA_CORRECTED ? "corrected"
                                        : "released-code",
        "generator",
        base.released_code ? "released-code" : "paper", "epsilon", (json_int_t)s->epsilon,
        "theta", (json_int_t)s->theta, "time_slice", (json_int_t)s->time_slice, "params",
        params_json(&base));
    if (s->norm && json_object_get(root, "reference"))
        json_object_set(s->norm, "reference", json_object_get(root, "reference"));
    if (!s->norm || !s->name) {
        fail(err, errlen, file, "out of memory");
        goto bad;
    }
    json_decref(root);
    *out = s;
    return 0;
bad:
    json_decref(root);
    sweep_spec_free(s);
    return -1;
}

/* ---- running ------------------------------------------------------------------- */

typedef struct worker {
    const sweep_spec *s;
    uint64_t end, stride, start;
    uint64_t *counts;        /* npoints x napproaches */
    double gen_s, rta_s;
    const sweep_ctl *ctl;    /* progress and cancel (NULL: none) */
} worker;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *work(void *arg) {
    worker *w = arg;
    const sweep_spec *s = w->s;
    rta_gen_buf *buf = malloc(sizeof *buf);
    if (!buf)
        return (void *)1;
    int64_t wcrt[RTA_MAX_TASKS];
    uint64_t ts_per = (uint64_t)s->tasksets;
    double t0 = now(), gen = 0, rta = 0;
    const sweep_ctl *ctl = w->ctl;
    for (uint64_t g = w->start; g < w->end; g += w->stride) {
        if (ctl && ctl->cancel && atomic_load_explicit(ctl->cancel, memory_order_relaxed))
            break;
        uint32_t point = (uint32_t)(g / ts_per);
        rta_taskset ts;
        rta_gen_taskset(&s->point[point], s->seed, point, g % ts_per, buf, &ts);
        ts.epsilon = s->epsilon;
        ts.theta = s->theta;
        ts.time_slice = s->time_slice;
        ts.semantics = s->semantics;
        double t1 = now();
        gen += t1 - t0;
        uint64_t *c = w->counts + point * s->napproaches;
        for (size_t k = 0; k < s->napproaches; k++) {
            rta_result r = {.wcrt = wcrt};
            rta_analyse(&ts, (rta_approach)s->approaches[k], &r);
            c[k] += r.schedulable;
        }
        if (ctl && ctl->done)
            atomic_fetch_add_explicit(ctl->done, 1, memory_order_relaxed);
        t0 = now();
        rta += t0 - t1;
    }
    free(buf);
    w->gen_s = gen;
    w->rta_s = rta;
    return NULL;
}

static int online_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

bool sweep_is_qos(const sweep_spec *s) {
    return s->qos != NULL;
}

uint64_t sweep_units(const sweep_spec *s) {
    return s->qos ? qos_points(s->qos) : (uint64_t)s->npoints * (uint64_t)s->tasksets;
}

uint64_t sweep_shard_units(const sweep_spec *s, int index, int count) {
    if (s->qos) return qos_shard_points(s->qos, index, count);
    if (count < 1 || index < 0) return 0;
    /* tasksets index, index + count, ... (sweep_run_ctl) */
    uint64_t total = (uint64_t)s->npoints * (uint64_t)s->tasksets;
    return total > (uint64_t)index ? (total - (uint64_t)index + (uint64_t)count - 1) / (uint64_t)count : 0;
}

uint64_t sweep_work(const sweep_spec *s) {
    return s->qos ? qos_cycles(s->qos) : sweep_units(s) * (uint64_t)s->napproaches;
}

int sweep_run(const sweep_spec *s, int index, int count, int threads, json_t **result,
              sweep_stats *st, char *err, size_t errlen) {
    return sweep_run_ctl(s, index, count, threads, NULL, result, st, err, errlen);
}

/* A QoS sweep's stats as a sweep's (sweep_run_ctl, sweep_run_reuse). */
static void from_qos(const qos_stats *q, sweep_stats *st) {
    if (st)
        *st = (sweep_stats){.wall_s = q->wall_s, .threads = q->threads, .qos = true,
                            .points = q->points, .sims = q->sims, .iso_s = q->iso_s,
                            .iso_sims = q->iso_sims};
}

int sweep_reuse_plan(const sweep_spec *s, json_t *old, const char *oldname, qos_reuse **out,
                     char *err, size_t errlen) {
    *out = NULL;
    if (!s->qos)
        return fail(err, errlen, "--reuse", "only a QoS sweep's points are reused (a "
                    "schedulability sweep draws every taskset again from its seed)");
    return qos_reuse_plan(s->qos, old, oldname, out, err, errlen);
}

int sweep_run_reuse(const sweep_spec *s, const qos_reuse *r, int threads, const sweep_ctl *ctl,
                    json_t **result, sweep_stats *st, char *err, size_t errlen) {
    qos_stats q = {0};
    int rc = qos_run_reuse(s->qos, r, threads, ctl, result, &q, err, errlen);
    from_qos(&q, st);
    return rc;
}

int sweep_run_ctl(const sweep_spec *s, int index, int count, int threads, const sweep_ctl *ctl,
                  json_t **result, sweep_stats *st, char *err, size_t errlen) {
    *result = NULL;
    if (s->qos) {
        qos_stats q = {0};
        int rc = qos_run_ctl(s->qos, index, count, threads, ctl, result, &q, err, errlen);
        from_qos(&q, st);
        return rc;
    }
    if (count < 1 || index < 0 || index >= count)
        return fail(err, errlen, "--shard", "expected i/n with 0 <= i < n");
    if (threads <= 0)
        threads = online_cpus();
    /* Shard i of n holds the tasksets numbered i, i + n, i + 2n, ...: dealt
     * like cards, so every shard gets its share of the expensive points (a
     * 20-task taskset costs many times a 2-task one) and the array's tasks
     * finish together. */
    uint64_t total = (uint64_t)s->npoints * (uint64_t)s->tasksets;
    uint64_t mine = total > (uint64_t)index ? (total - (uint64_t)index + (uint64_t)count - 1) /
                                                  (uint64_t)count
                                            : 0;
    if ((uint64_t)threads > mine && mine > 0)
        threads = (int)mine;
    if (threads < 1)
        threads = 1;
    size_t cells = s->npoints * s->napproaches;
    uint64_t *counts = calloc((size_t)threads * cells, sizeof *counts);
    worker *ws = calloc((size_t)threads, sizeof *ws);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    if (!counts || !ws || !tid) {
        free(counts);
        free(ws);
        free(tid);
        return fail(err, errlen, "sweep", "out of memory");
    }
    double t0 = now();
    int started = 0, rc = 0;
    for (int t = 0; t < threads; t++) {
        /* dealt again over the threads, for the same reason */
        ws[t] = (worker){.s = s, .end = total, .stride = (uint64_t)threads * (uint64_t)count,
                         .start = (uint64_t)index + (uint64_t)t * (uint64_t)count,
                         .counts = counts + (size_t)t * cells, .ctl = ctl};
        if (pthread_create(&tid[t], NULL, work, &ws[t]) != 0) {
            rc = fail(err, errlen, "sweep", "cannot start thread %d", t);
            break;
        }
        started++;
    }
    for (int t = 0; t < started; t++) {
        void *ret = NULL;
        pthread_join(tid[t], &ret);
        if (ret)
            rc = fail(err, errlen, "sweep", "out of memory in a worker");
    }
    if (rc == 0 && ctl && ctl->cancel && atomic_load(ctl->cancel))
        rc = fail(err, errlen, "sweep", "cancelled");
    double wall = now() - t0;
    if (st) {
        *st = (sweep_stats){.wall_s = wall, .tasksets = mine,
                            .analyses = mine * s->napproaches, .threads = threads};
        for (int t = 0; t < started; t++) {
            st->gen_s += ws[t].gen_s;
            st->rta_s += ws[t].rta_s;
        }
    }
    if (rc == 0) {
        json_t *sched = json_object();
        for (size_t k = 0; k < s->napproaches; k++) {
            json_t *arr = json_array();
            for (size_t p = 0; p < s->npoints; p++) {
                uint64_t sum = 0;
                for (int t = 0; t < threads; t++)
                    sum += counts[(size_t)t * cells + p * s->napproaches + k];
                json_array_append_new(arr, json_integer((json_int_t)sum));
            }
            json_object_set_new(sched, rta_approach_name(s->approaches[k]), arr);
        }
        json_t *x = json_object_get(s->norm, "x");
        *result = json_pack("{s:s, s:s, s:O, s:{s:O, s:s, s:O}, s:O, s:I, s:o}", "schema",
                            "schedlab-sweep-result/1", "name", s->name, "spec", s->norm, "x",
                            "param", json_object_get(x, "param"), "label", xlabels[s->x],
                            "values", json_object_get(x, "values"), "approaches",
                            json_object_get(s->norm, "approaches"), "tasksets",
                            (json_int_t)s->tasksets, "schedulable", sched);
        if (*result && count > 1)
            json_object_set_new(*result, "shard",
                                json_pack("{s:i, s:i, s:I}", "index", index, "count", count,
                                          "tasksets", (json_int_t)mine));
        if (!*result)
            rc = fail(err, errlen, "sweep", "out of memory");
    }
    free(counts);
    free(ws);
    free(tid);
    return rc;
}

char *sweep_text(const json_t *result) {
    return jr_dumps_line(result, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(10));
}

int sweep_merge(json_t *const *shards, size_t n, json_t **merged, char *err, size_t errlen) {
    return sweep_merge_named(shards, NULL, n, merged, err, errlen);
}

int sweep_merge_named(json_t *const *shards, const char *const *names, size_t n,
                      json_t **merged, char *err, size_t errlen) {
    *merged = NULL;
    if (n == 0)
        return fail(err, errlen, "merge", "no shard files");
    json_t *first = shards[0];
    const char *kind = json_string_value(json_object_get(first, "kind"));
    if (kind && !strcmp(kind, "qos"))
        return qos_merge_named(shards, names, n, merged, err, errlen);
    json_t *sh0 = json_object_get(first, "shard");
    const char *schema = json_string_value(json_object_get(first, "schema"));
    if (!schema || strcmp(schema, "schedlab-sweep-result/1") != 0) {
        if (schema)
            return fail(err, errlen, names ? names[0] : "shard 1",
                        "schema: expected \"schedlab-sweep-result/1\", got \"%.60s\"", schema);
        return fail(err, errlen, names ? names[0] : "shard 1",
                    "schema: expected \"schedlab-sweep-result/1\"");
    }
    long long count = sh0 ? json_integer_value(json_object_get(sh0, "count")) : 1;
    if (count < 1 || (size_t)count != n)
        return fail(err, errlen, "merge", "the shards say there are %lld of them, %zu given",
                    count, n);
    char *spec0 = json_dumps(json_object_get(first, "spec"), JSON_SORT_KEYS | JSON_COMPACT);
    json_t *out = json_deep_copy(first);
    json_object_del(out, "shard");
    json_t *sum = json_object_get(out, "schedulable");
    bool *seen = calloc(n, sizeof *seen);
    int rc = 0;
    uint64_t covered = 0;
    /* the tasksets of a point: what each count, and each sum of counts, is
     * at most (a shard file is another machine's output, read as input) */
    json_t *jper = json_object_get(out, "tasksets");
    long long per = json_is_integer(jper) ? json_integer_value(jper) : 0;
    if (!spec0 || !out || !json_is_object(sum) || !seen || per < 1) {
        rc = names ? fail(err, errlen, names[0], "not a sweep result")
                   : fail(err, errlen, "merge", "shard 1 is not a sweep result");
        goto done;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        json_t *sh = json_object_get(shards[i], "shard");
        char buf[32];
        snprintf(buf, sizeof buf, "shard file %zu", i + 1);
        const char *what = names ? names[i] : buf;
        long long idx = n == 1 && !sh ? 0 : json_integer_value(json_object_get(sh, "index"));
        if ((n > 1 && !sh) || idx < 0 || (size_t)idx >= n ||
            json_integer_value(json_object_get(sh, "count")) != (long long)n * (sh != NULL)) {
            rc = fail(err, errlen, what, "shard: not one of %zu shards", n);
            break;
        }
        if (seen[idx]) {
            rc = fail(err, errlen, what, "shard %lld/%zu given twice", idx, n);
            break;
        }
        seen[idx] = true;
        if (sh)
            covered += (uint64_t)json_integer_value(json_object_get(sh, "tasksets"));
        char *spec = json_dumps(json_object_get(shards[i], "spec"), JSON_SORT_KEYS | JSON_COMPACT);
        bool same = spec && strcmp(spec, spec0) == 0;
        free(spec);
        if (!same) {
            if (names)
                rc = fail(err, errlen, what, "spec: differs from %s's (another sweep)", names[0]);
            else
                rc = fail(err, errlen, what, "spec: differs from shard file 1's (another sweep)");
            break;
        }
        /* the first shard's counts are the sum so far; each later one's
         * are added. Every count is one of 0..per, and so is every sum: a
         * count past it (or one near 2^63, whose sum overflowed) is refused */
        json_t *add = i == 0 ? sum : json_object_get(shards[i], "schedulable");
        const char *key;
        json_t *arr;
        json_object_foreach(sum, key, arr) {
            json_t *b = json_object_get(add, key);
            if (!json_is_array(b) || json_array_size(b) != json_array_size(arr)) {
                rc = fail(err, errlen, what, "schedulable.%s: missing or of another length", key);
                break;
            }
            for (size_t p = 0; p < json_array_size(arr) && rc == 0; p++) {
                json_t *x = json_array_get(b, p);
                long long v = json_integer_value(x);
                long long cur = i == 0 ? 0 : json_integer_value(json_array_get(arr, p));
                if (!json_is_integer(x) || v < 0 || v > per)
                    rc = fail(err, errlen, what, "schedulable.%s[%zu]: expected a count of 0..%lld "
                              "tasksets", key, p, per);
                else if (v > per - cur)
                    rc = fail(err, errlen, what, "schedulable.%s[%zu]: the shards count more than "
                              "the %lld tasksets of a point", key, p, per);
                else if (i > 0)
                    json_array_set_new(arr, p, json_integer(cur + v));
            }
            if (rc) break;
        }
    }
    if (rc == 0 && n > 1) {
        uint64_t total = (uint64_t)json_array_size(json_object_get(json_object_get(out, "x"),
                                                                   "values")) *
                         (uint64_t)json_integer_value(json_object_get(out, "tasksets"));
        if (covered != total)
            rc = fail(err, errlen, "merge", "the shards cover %llu of %llu tasksets",
                      (unsigned long long)covered, (unsigned long long)total);
    }
done:
    free(seen);
    free(spec0);
    if (rc)
        json_decref(out);
    else
        *merged = out;
    return rc;
}
