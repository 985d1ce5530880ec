/* scenario_reference.c -- a scenario's "reference" block, checked (scenario_reference.h). */
#include "scenario_reference.h"

#include <math.h>
#include <stdio.h>

#define REF_MAX_ROWS 64

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

/* One side of a ratio: a kernel name (of the row's run) or {"run", "kernel"}. */
static int kernel_ref(jr_ctx *c, json_t *v, const char *path, const scn_ref_names *n) {
    char p[JR_PATH_MAX];
    const char *name;
    if (json_is_object(v)) {
        static const char *const keys[] = {"run", "kernel", NULL};
        const char *run;
        if (jr_check_keys(c, v, path, keys))
            return -1;
        if (!json_object_get(v, "run") || !json_object_get(v, "kernel"))
            return jr_fail(c, path, "needs \"run\" and \"kernel\" (or give the kernel's name alone)");
        if (jr_get_name(c, json_object_get(v, "run"), jr_join(p, path, "run"), &run))
            return -1;
        if (!n->run(n->ctx, run))
            return jr_fail(c, p, "no run named \"%s\" in the scenario (the base run or a variant)", run);
        jr_join(p, path, "kernel");
        v = json_object_get(v, "kernel");
        path = p;
    } else if (!json_is_string(v)) {
        return jr_fail(c, path, "must be a kernel's name or {\"run\": ..., \"kernel\": ...}, not %s",
                       jr_type_name(v));
    }
    if (jr_get_name(c, v, path, &name))
        return -1;
    if (!n->kernel(n->ctx, name))
        return jr_fail(c, path, "no kernel named \"%s\" in the scenario's ops", name);
    return 0;
}

static int row(jr_ctx *c, json_t *r, const char *path, const scn_ref_names *n) {
    static const char *const keys[] = {"label", "run", "ratio", "mort", "reported", "below", "above",
                                       "within", "within_ms", NULL};
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
        if (!n->run(n->ctx, s))
            return jr_fail(c, p, "no run named \"%s\" in the scenario (the base run or a variant)", s);
    }
    json_t *ratio = json_object_get(r, "ratio"), *mort = json_object_get(r, "mort");
    if (!ratio == !mort)
        return jr_fail(c, path, "needs one of \"ratio\" (two kernels) and \"mort\" (a task)");
    if (ratio) {
        jr_join(p, path, "ratio");
        if (!json_is_array(ratio) || json_array_size(ratio) != 2)
            return jr_fail(c, p, "must be [kernel, kernel]: the first's time over the second's");
        char q[JR_PATH_MAX];
        for (size_t i = 0; i < 2; i++)
            if (kernel_ref(c, json_array_get(ratio, i), jr_index(q, p, i), n))
                return -1;
    } else {
        if (jr_get_name(c, mort, jr_join(p, path, "mort"), &s))
            return -1;
        if (!n->task(n->ctx, s))
            return jr_fail(c, p, "no task named \"%s\" in the scenario's tasks", s);
    }
    json_t *rep = json_object_get(r, "reported"), *below = json_object_get(r, "below"),
           *above = json_object_get(r, "above");
    if ((below || above) && mort)
        return jr_fail(c, path, "\"%s\" is for a ratio; a MORT row gives \"reported\"", below ? "below" : "above");
    if (below && above)
        return jr_fail(c, path, "give \"below\" or \"above\", not both");
    if (!rep && !below && !above)
        return jr_fail(c, path, "missing \"reported\" (the source's number) or, for a direction, \"below\"/\"above\"");
    if (rep && number(c, rep, jr_join(p, path, "reported"), 0, !ratio, &x))
        return -1;
    if (below && number(c, below, jr_join(p, path, "below"), 0, false, &x))
        return -1;
    if (above && number(c, above, jr_join(p, path, "above"), 0, true, &x))
        return -1;
    json_t *within = json_object_get(r, "within"), *within_ms = json_object_get(r, "within_ms");
    if (within) {
        jr_join(p, path, "within");
        if (!ratio || !rep)
            return jr_fail(c, p, "is a factor of a ratio row's \"reported\" number");
        if (number(c, within, p, 1, false, &x))
            return -1;
    }
    if (within_ms) {
        if (!mort)
            return jr_fail(c, jr_join(p, path, "within_ms"), "is for a MORT row");
        if (number(c, within_ms, jr_join(p, path, "within_ms"), 0, false, &x))
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
