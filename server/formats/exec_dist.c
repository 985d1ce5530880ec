/* exec_dist.c -- see exec_dist.h. */
#include "exec_dist.h"

#include <string.h>

#include "units.h"

int exec_dist_parse(jr_ctx *c, json_t *v, const char *path, int64_t *wcet, sim_dist *d) {
    sim_dist x = {0};
    if (!v)
        return jr_fail(c, path, "missing (a duration: a number of ns or a string like \"2.5ms\")");
    if (!json_is_object(v)) {
        if (units_parse(c, v, path, UNITS_DURATION, wcet, NULL)) return -1;
        if (d) *d = x;
        return 0;
    }
    static const char *const keys[] = {"min", "max", "mean", "sd", NULL};
    const char *k;
    json_t *e;
    json_object_foreach(v, k, e) {
        size_t i = 0;
        while (keys[i] && strcmp(keys[i], k)) i++;
        if (!keys[i])
            return jr_fail(c, path, "unknown key \"%s\" (a distribution has min, max, mean, sd)", k);
    }
    char p[JR_PATH_MAX];
    json_t *jmin = json_object_get(v, "min"), *jmax = json_object_get(v, "max");
    json_t *jmean = json_object_get(v, "mean"), *jsd = json_object_get(v, "sd");
    if (!jmax) return jr_fail(c, jr_join(p, path, "max"), "missing (the WCET)");
    if (units_parse(c, jmax, jr_join(p, path, "max"), UNITS_DURATION, &x.max, NULL)) return -1;
    if (jmin && units_parse(c, jmin, jr_join(p, path, "min"), UNITS_DURATION, &x.min, NULL))
        return -1;
    if (!jmean != !jsd)
        return jr_fail(c, path, "a normal needs both \"mean\" and \"sd\"");
    if (jmean) {
        x.kind = SIM_DIST_NORMAL;
        if (units_parse(c, jmean, jr_join(p, path, "mean"), UNITS_DURATION, &x.mean, NULL) ||
            units_parse(c, jsd, jr_join(p, path, "sd"), UNITS_DURATION, &x.sd, NULL))
            return -1;
        if (x.mean < x.min || x.mean > x.max)
            return jr_fail(c, jr_join(p, path, "mean"), "must lie within min..max");
    } else {
        if (!jmin) return jr_fail(c, jr_join(p, path, "min"), "missing (uniform on min..max)");
        x.kind = SIM_DIST_UNIFORM;
    }
    if (x.min < 0 || x.min > x.max)
        return jr_fail(c, path, "needs 0 <= min <= max");
    *wcet = x.max;
    if (d) *d = x;
    return 0;
}
