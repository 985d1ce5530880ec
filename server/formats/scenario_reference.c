/* scenario_reference.c -- a scenario's "reference" block, checked (scenario_reference.h). */
#include "scenario_reference.h"

#include <math.h>
#include <stdio.h>

#define REF_MAX_ROWS 64
#define REF_MAX_SMS 4096   /* an "sms" row's blocks, and SM numbers below it */

/* A finite number > lo (or >= lo when `or_equal`) at path. */
static int number(jr_ctx *c, json_t *v, const char *path, double lo, bool or_equal,
                  double *out) {
    if (!json_is_number(v))
        return jr_fail(c, path, "must be a number, not %s", jr_type_name(v));
    double x = json_number_value(v);
    if (!isfinite(x) || x < lo || (!or_equal && x == lo))
        return jr_fail(c, path, "%g must be %s %g", x, or_equal ? "at least" : "more than", lo);
    *out = x;
    return 0;
}

/* "no run named ...", with the nearest run's name where one is near */
static int no_run(jr_ctx *c, const char *path, const char *run, const char *near) {
    if (near)
        return jr_fail(c, path, "no run named \"%s\" in the scenario (did you mean \"%s\"?)", run,
                       near);
    return jr_fail(c, path, "no run named \"%s\" in the scenario (the base run or a variant)", run);
}

/* One side of a ratio: a kernel name (of the row's run) or {"run", "kernel"}. */
static int kernel_ref(jr_ctx *c, json_t *v, const char *path, const scn_ref_names *n) {
    char p[JR_PATH_MAX];
    const char *name, *near;
    if (json_is_object(v)) {
        static const char *const keys[] = {"run", "kernel", NULL};
        const char *run;
        if (jr_check_keys(c, v, path, keys))
            return -1;
        if (!json_object_get(v, "run") || !json_object_get(v, "kernel"))
            return jr_fail(c, path, "needs \"run\" and \"kernel\" (or give the kernel's name alone)");
        if (jr_get_name(c, json_object_get(v, "run"), jr_join(p, path, "run"), &run))
            return -1;
        if (!n->run(n->ctx, run, &near))
            return no_run(c, p, run, near);
        jr_join(p, path, "kernel");
        v = json_object_get(v, "kernel");
        path = p;
    } else if (!json_is_string(v)) {
        return jr_fail(c, path, "must be a kernel's name or {\"run\": ..., \"kernel\": ...}, not %s",
                       jr_type_name(v));
    }
    if (jr_get_name(c, v, path, &name))
        return -1;
    if (!n->kernel(n->ctx, name, &near))
        return jr_fail(c, path, "no kernel named \"%s\" in the scenario's ops%s%s%s", name,
                       near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
    char where[160];
    if (n->kernel_ops(n->ctx, name, where, sizeof where) > 1)
        return jr_fail(c, path, "kernel \"%s\" names several ops (%s); a row names one kernel: "
                       "give them distinct names", name, where);
    return 0;
}

/* The kinds of row, by the key that says what the runs give. */
typedef enum { RK_RATIO, RK_MORT, RK_START, RK_END, RK_SMS, RK_N } row_kind;
static const char *const kind_keys[RK_N] = {"ratio", "mort", "start", "end", "sms"};

/* "reported" of an "sms" row: the SM of each of the kernel's blocks, by index. */
static int sm_list(jr_ctx *c, json_t *v, const char *path) {
    if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > REF_MAX_SMS)
        return jr_fail(c, path, "must be the SM of each block, in block order: 1 to %d SM numbers",
                       REF_MAX_SMS);
    char q[JR_PATH_MAX];
    int64_t sm;
    for (size_t i = 0; i < json_array_size(v); i++)
        if (jr_get_count(c, json_array_get(v, i), jr_index(q, path, i), 0, REF_MAX_SMS - 1, &sm))
            return -1;
    return 0;
}

static int row(jr_ctx *c, json_t *r, const char *path, const scn_ref_names *n) {
    const char *near;
    static const char *const keys[] = {"label", "run", "ratio", "mort", "start", "end", "sms",
                                       "reported", "below", "above", "within", "within_ms", NULL};
    char p[JR_PATH_MAX];
    const char *s;
    double x;
    if (jr_need_object(c, r, path) || jr_check_keys(c, r, path, keys))
        return -1;
    json_t *label = json_object_get(r, "label");
    if (!label)
        return jr_fail(c, path, "missing \"label\" (what the row compares, in words)");
    if (jr_get_name(c, label, jr_join(p, path, "label"), &s))
        return -1;
    json_t *run = json_object_get(r, "run");
    if (run) {
        if (jr_get_name(c, run, jr_join(p, path, "run"), &s))
            return -1;
        if (!n->run(n->ctx, s, &near))
            return no_run(c, p, s, near);
    }
    int kind = -1;
    for (int k = 0; k < RK_N; k++) {
        if (!json_object_get(r, kind_keys[k]))
            continue;
        if (kind >= 0)
            return jr_fail(c, path, "gives \"%s\" and \"%s\": a row compares one thing", kind_keys[kind],
                           kind_keys[k]);
        kind = k;
    }
    if (kind < 0)
        return jr_fail(c, path, "needs one of \"ratio\" (two kernels), \"mort\" (a task), \"start\", "
                       "\"end\" or \"sms\" (a kernel)");
    json_t *what = json_object_get(r, kind_keys[kind]);
    jr_join(p, path, kind_keys[kind]);
    if (kind == RK_RATIO) {
        if (!json_is_array(what) || json_array_size(what) != 2)
            return jr_fail(c, p, "must be [kernel, kernel]: the first's time over the second's");
        char q[JR_PATH_MAX];
        for (size_t i = 0; i < 2; i++)
            if (kernel_ref(c, json_array_get(what, i), jr_index(q, p, i), n))
                return -1;
    } else if (kind == RK_MORT) {
        if (jr_get_name(c, what, p, &s))
            return -1;
        if (!n->task(n->ctx, s, &near))
            return jr_fail(c, p, "no task named \"%s\" in the scenario's tasks%s%s%s", s,
                           near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
    } else if (kernel_ref(c, what, p, n)) {
        return -1;
    }
    json_t *rep = json_object_get(r, "reported"), *below = json_object_get(r, "below"),
           *above = json_object_get(r, "above");
    if ((below || above) && kind != RK_RATIO)
        return jr_fail(c, path, "\"%s\" is for a ratio; this row gives \"reported\"", below ? "below" : "above");
    if (below && above)
        return jr_fail(c, path, "give \"below\" or \"above\", not both");
    if (!rep && !below && !above)
        return jr_fail(c, path, "missing \"reported\" (the source's number) or, for a direction, \"below\"/\"above\"");
    jr_join(p, path, "reported");
    if (rep && (kind == RK_SMS ? sm_list(c, rep, p) : number(c, rep, p, 0, kind != RK_RATIO, &x)))
        return -1;
    if (below && number(c, below, jr_join(p, path, "below"), 0, false, &x))
        return -1;
    if (above && number(c, above, jr_join(p, path, "above"), 0, true, &x))
        return -1;
    json_t *within = json_object_get(r, "within"), *within_ms = json_object_get(r, "within_ms");
    if (within) {
        jr_join(p, path, "within");
        if (kind != RK_RATIO || !rep)
            return jr_fail(c, p, "is a factor of a ratio row's \"reported\" number");
        if (number(c, within, p, 1, false, &x))
            return -1;
    }
    if (within_ms) {
        jr_join(p, path, "within_ms");
        if (kind != RK_MORT && kind != RK_START && kind != RK_END)
            return jr_fail(c, p, "is for a time in ms (a \"mort\", \"start\" or \"end\" row)");
        if (number(c, within_ms, p, 0, true, &x))
            return -1;
    }
    return 0;
}

int scn_ref_check(jr_ctx *c, json_t *v, const char *path, const scn_ref_names *n) {
    static const char *const keys[] = {"source", "rows", NULL};
    char p[JR_PATH_MAX];
    const char *s;
    if (jr_need_object(c, v, path) || jr_check_keys(c, v, path, keys))
        return -1;
    json_t *source = json_object_get(v, "source"), *rows = json_object_get(v, "rows");
    if (!source)
        return jr_fail(c, path, "missing \"source\" (the paper and its table or figure, or the recording)");
    if (jr_get_name(c, source, jr_join(p, path, "source"), &s))
        return -1;
    if (!rows)
        return jr_fail(c, path, "missing \"rows\"");
    jr_join(p, path, "rows");
    if (jr_need_array(c, rows, p))
        return -1;
    size_t nr = json_array_size(rows);
    if (nr == 0 || nr > REF_MAX_ROWS)
        return jr_fail(c, p, "must hold 1 to %d rows, not %zu", REF_MAX_ROWS, nr);
    char q[JR_PATH_MAX];
    for (size_t i = 0; i < nr; i++)
        if (row(c, json_array_get(rows, i), jr_index(q, p, i), n))
            return -1;
    return 0;
}
