/* sweep_seed.c -- the shipped sweeps stored at first start. See sweep_seed.h. */
#include "sweep_seed.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/sweep.h"
#include "../../importers/jsonr.h"
#include "store.h"
#include "sweep.h"

/* The sweeps of the default database, in the order they are computed
 * (README: "Sweeps"). The Fig. 8 panels take ~1 s each at 1,000 tasksets
 * per point on 2 threads (docs/api.md); the QoS pairs ~30-60 s, the trios
 * ~8 s each. */
static const char *const seeds[] = {
    "gcaps-fig8a-tasks.json",     "gcaps-fig8b-util.json",  "gcaps-fig8c-cpus.json",
    "gcaps-fig8d-gpu-ratio.json", "gcaps-fig8e-g-to-c.json", "gcaps-fig8f-best-effort.json",
    "isca17-qosreach-reduced.json", "isca17-trio1-reduced.json", "isca17-trio2-reduced.json",
};

/* Sweeps too long to compute at first start -- ISCA'17's 90 pairs under
 * Rollover and Spart and its trios, at §4.1's own parameters, an hour or
 * more of CPU each on the 2-core machine --
 * ship with their result (sweeps/results/NAME: what `schedlab merge -o`
 * wrote for every shard of the spec, or `schedlab sweep -o` for the whole)
 * and are stored as they are, marked with the spec's file as the computed
 * ones are. tests/api/qos_shipped_results.test.mjs re-simulates a sample
 * of each and holds the file to what the simulator gives now. */
static const char *const shipped_results[] = {
    "isca17-parboil-paper-rollover-spart.json", "isca17-parboil-trio1-paper.json",
    "isca17-parboil-trio2-paper.json",
};

int sweep_store_result(db *d, const json_t *result, const char *file, char slug[DB_SLUG_SIZE],
                       char *err, size_t errlen) {
    char *text = sweep_text(result);
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const char *name = json_string_value(json_object_get(result, "name"));
    const char *desc =
        json_string_value(json_object_get(json_object_get(result, "spec"), "description"));
    int rc = db_sweep_store_file(d, name ? name : "sweep", desc, text, file, slug, err, errlen);
    free(text);
    return rc;
}

/* The test-only reduction of sweep_seed.h, applied to the spec's tree. */
static void reduce(json_t *spec, long long tasksets) {
    const char *kind = json_string_value(json_object_get(spec, "kind"));
    if (!kind || strcmp(kind, "qos")) {
        json_object_set_new(spec, "tasksets", json_integer(tasksets));
        return;
    }
    json_t *pairs = json_object_get(spec, "pairs"), *goals = json_object_get(spec, "goals");
    if (json_is_array(pairs))
        while (json_array_size(pairs) > 1) json_array_remove(pairs, json_array_size(pairs) - 1);
    if (json_is_array(goals))
        while (json_array_size(goals) > 1) json_array_remove(goals, json_array_size(goals) - 1);
}

/* Is the shipped sweep NAME stored already? file: its mark, "sweeps/NAME". */
static bool stored_already(db *d, const char *name, char file[PATH_MAX]) {
    snprintf(file, PATH_MAX, "sweeps/%s", name);
    bool have = false;
    char why[512];
    return db_has_scenario_file(d, file, &have, why, sizeof why) == 0 && have;
}

typedef struct once_arg {
    const json_t *res;
    const char *file;
    bool have;
} once_arg;

static int once_fn(db *d, void *arg, char *err, size_t errlen) {
    once_arg *o = arg;
    char slug[DB_SLUG_SIZE];
    int rc = db_has_scenario_file(d, o->file, &o->have, err, errlen);
    if (rc == 0 && !o->have) rc = sweep_store_result(d, o->res, o->file, slug, err, errlen);
    return rc;
}

/* res stored, marked with file, in one write transaction that looks again
 * first: another server seeding the same database meanwhile wins (as
 * store_seed's scenarios; tests/api/shared_machine.test.mjs, two servers
 * at once). *stored: this call stored it. The transaction is the store's
 * (store_write), under its write lock as the scenarios are: a sweep
 * computed while a job imports waits for the import, however long, where
 * SQLite's busy wait gave up after 30 s and the sweep was lost until the
 * next start. */
static int store_once(db *d, const json_t *res, const char *file, bool *stored, char *err,
                      size_t errlen) {
    once_arg o = {.res = res, .file = file};
    int rc = store_write(d, NULL, once_fn, &o, err, errlen);
    *stored = rc == 0 && !o.have;
    return rc;
}

static int seed_one(db *d, const char *dir, const char *name, int threads, long long reduced,
                    bool *added, char *err, size_t errlen) {
    char file[PATH_MAX], path[PATH_MAX];
    if (stored_already(d, name, file)) return 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *text = jr_read_file(path, 16u << 20, "sweep spec", &len, err, errlen);
    if (!text) return -1;
    if (reduced > 0) {
        json_t *j = json_loadb(text, len, 0, NULL);
        char *t2 = NULL;
        if (j) {
            reduce(j, reduced);
            t2 = json_dumps(j, JSON_COMPACT);
        }
        json_decref(j);
        if (t2) {
            free(text);
            text = t2;
            len = strlen(text);
        }
    }
    sweep_spec *s;
    int rc = sweep_spec_parse(text, len, path, &s, err, errlen);
    free(text);
    if (rc) return -1;
    json_t *res = NULL;
    sweep_stats st;
    rc = sweep_run(s, 0, 1, threads, &res, &st, err, errlen);
    sweep_spec_free(s);
    bool stored = false;
    if (rc == 0) rc = store_once(d, res, file, &stored, err, errlen);
    json_decref(res);
    if (stored) {
        *added = true;
        fprintf(stderr, "schedlab: stored the shipped sweep %s (%.1f s on %d threads)\n", name,
                st.wall_s, st.threads);
    }
    return rc;
}

/* One shipped result: read, checked to be a whole sweep's, stored once. */
static int seed_result(db *d, const char *dir, const char *name, bool *added, char *err,
                       size_t errlen) {
    char file[PATH_MAX], path[PATH_MAX];
    if (stored_already(d, name, file)) return 0;
    snprintf(path, sizeof path, "%s/results/%s", dir, name);
    size_t len;
    char *text = jr_read_file(path, 64u << 20, "sweep result", &len, err, errlen);
    if (!text) return -1;
    json_error_t je;
    json_t *res = json_loadb(text, len, 0, &je);
    free(text);
    if (!res) {
        snprintf(err, errlen, "%.512s:%d:%d: %s", path, je.line, jr_error_column(&je), je.text);
        return -1;
    }
    const char *schema = json_string_value(json_object_get(res, "schema"));
    const char *bad = NULL;
    if (!schema || strcmp(schema, "schedlab-sweep-result/1") != 0)
        bad = "schema: expected \"schedlab-sweep-result/1\" (a file `schedlab sweep -o` writes)";
    else if (json_object_get(res, "shard"))
        bad = "shard: one shard's result, not the whole sweep's (`schedlab merge -o` them first)";
    else if (!json_is_object(json_object_get(res, "spec")))
        bad = "spec: missing (the sweep's spec as it was run)";
    else if (!json_is_array(json_object_get(res, "points")) &&
             !json_is_object(json_object_get(res, "schedulable")))
        bad = "points: missing (no sweep's numbers)";
    if (bad) {
        snprintf(err, errlen, "%.512s: %s", path, bad);
        json_decref(res);
        return -1;
    }
    bool stored = false;
    int rc = store_once(d, res, file, &stored, err, errlen);
    json_decref(res);
    if (stored) {
        *added = true;
        fprintf(stderr, "schedlab: stored the shipped sweep %s from its result file\n", name);
    }
    return rc;
}

int sweep_seed(db *d, const char *dir, int threads, int *added, char *err, size_t errlen) {
    *added = 0;
    long long reduced = 0;
    const char *env = getenv("SCHEDLAB_SEED_SWEEP_TASKSETS");
    if (env && *env) reduced = strtoll(env, NULL, 10);
    int failed = 0;
    char why[1024];
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        bool one = false;
        if (seed_one(d, dir, seeds[i], threads, reduced, &one, why, sizeof why)) {
            if (failed++ == 0) snprintf(err, errlen, "%s", why);
        }
        *added += one;
    }
    for (size_t i = 0; i < sizeof shipped_results / sizeof *shipped_results; i++) {
        bool one = false;
        if (seed_result(d, dir, shipped_results[i], &one, why, sizeof why)) {
            /* each said: the summary (seed_bg.c) names only the first */
            fprintf(stderr, "schedlab: warning: the shipped sweep %s not stored: %s\n",
                    shipped_results[i], why);
            if (failed++ == 0) snprintf(err, errlen, "%s", why);
        }
        *added += one;
    }
    return failed;
}
