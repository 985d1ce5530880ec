/* replay_devices_store.c -- a several-GPU replay stored as runs with their
 * reports. See replay_devices_store.h. */
#include "replay_devices_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/fidelity_db.h"
#include "../../simcore/sim.h"
#include "replay_devices.h"
#include "store.h"
#include "trace_json.h"

/* The HTTP status of a store_* failure. */
static int store_status(int rc) {
    return rc == STORE_BAD_INPUT ? 400 : rc == STORE_BUSY || rc == STORE_ABORTED ? 503 : 500;
}

/* Store merged run t, named `name` (run) and `tname` (its trace), as a
 * schedlab-trace/1 import: one run with every GPU's lanes (store_import
 * reads it back exactly), into experiment `into` or, when NULL, a new one
 * (its slug in exp). 0, or the status with err. */
static int store_merged(db *d, trace *t, const char *name, const char *tname, const char *into,
                        const store_ctl *sc, char srun[DB_SLUG_SIZE], char exp[DB_SLUG_SIZE],
                        char *err, size_t errlen) {
    tj_buf b = {0};
    if (trace_set_name(t, tname) < 0 || tj_write_trace(t, &b) != 0) {
        tj_buf_free(&b);
        snprintf(err, errlen, "out of memory writing the replay");
        return 500;
    }
    imp_file f = {"replay.json", (const unsigned char *)b.s, b.len};
    int rc = store_import_ctl(d, &f, 1, NULL, into, name, sc, srun, exp, err, errlen);
    tj_buf_free(&b);
    return rc ? store_status(rc) : 0;
}

typedef struct report_arg {
    const char *srun, *run, *text;
} report_arg;

static int report_fn(db *d, void *arg, char *err, size_t errlen) {
    report_arg *r = arg;
    return db_fidelity_store(d, r->srun, r->run, r->text, err, errlen);
}

/* Store report rep (taken) of simulated run srun against measured run
 * `run`, and append {run, name, fidelity: its summary} to runs. 0, or the
 * status with err. The report goes through the store's write lock (sc's
 * wait): in SQLite's busy wait it failed "database is locked" behind an
 * import that had taken the lock since the run was stored. */
static int store_report(db *d, const char *run, const char *srun, const char *name, json_t *rep,
                        json_t *runs, const store_ctl *sc, char *err, size_t errlen) {
    json_object_set_new(rep, "measured_run", json_string(run));
    json_object_set_new(rep, "simulated_run", json_string(srun));
    char *text = json_dumps(rep, JSON_COMPACT);
    if (!text) {
        json_decref(rep);
        snprintf(err, errlen, "out of memory writing the fidelity report");
        return 500;
    }
    report_arg ra = {.srun = srun, .run = run, .text = text};
    int rc = store_write(d, sc, report_fn, &ra, err, errlen);
    free(text);
    if (rc) {
        json_decref(rep);
        return store_status(rc);
    }
    static const char *const keys[] = {"ok", "duration_error_median", "duration_error_p90",
                                       "start_error_median_share", "makespan_difference"};
    json_t *sum = json_object();
    for (size_t i = 0; sum && i < sizeof keys / sizeof *keys; i++)
        json_object_set(sum, keys[i], json_object_get(rep, keys[i]));
    json_decref(rep);
    if (!sum || json_array_append_new(runs, json_pack("{s:s, s:s, s:o}", "run", srun, "name",
                                                      name, "fidelity", sum)) != 0) {
        snprintf(err, errlen, "out of memory");
        return 500;
    }
    return 0;
}

void replay_devices_store(db *d, const trace *m, const char *run, const char *device,
                          job_ctl *ctl, int *status, json_t **result, char *err, size_t errlen) {
    *result = NULL;
    char what[64];
    snprintf(what, sizeof what, "run %s", run);
    replay_dev *v = NULL;
    size_t n = 0;
    trace merged;
    json_t *rep = NULL, *runs = json_array();
    replay_info all;
    bool stored = false;
    char exp[DB_SLUG_SIZE] = "";
    atomic_store(&ctl->total, 3);
    if (!runs) {
        *status = 500;
        snprintf(err, errlen, "out of memory");
        return;
    }
    int rc = replay_devices_run(m, what, device, 1, &v, &n, &merged, err, errlen);
    if (rc) {
        *status = rc > 0 ? 400 : 500;
        json_decref(runs);
        return;
    }
    size_t nvar = replay_devices_variants(v, n);
    atomic_fetch_add(&ctl->total, 2 * (long long)nvar);
    atomic_fetch_add(&ctl->done, 1);
    if (replay_devices_report(m, v, n, &merged, &rep, &all, err, errlen) != 0) {
        *status = 500;
        goto done;
    }
    json_t *devices = json_incref(json_object_get(rep, "devices"));
    json_t *held = json_incref(json_object_get(rep, "held_out"));
    /* the experiment says what it is, as a one-GPU replay's scenario does
     * (replay.c), not "Imported from" the merged file */
    char name[256], desc[1024];
    snprintf(name, sizeof name, "Replay of %s on %zu simulated GPUs", m->name ? m->name : what, n);
    snprintf(desc, sizeof desc,
             "Derived by `schedlab replay` from %s (source %s) on %s: %zu kernels (%zu with the "
             "block time that gives their measured duration alone), %zu copies and %zu memsets "
             "at their measured durations, each GPU's work on its own simulated device; what "
             "couples the GPUs (NCCL's waits, NVLink) is not simulated.",
             what, m->source ? m->source : "unknown", all.device_why, all.kernels,
             all.calibrated, all.copies, all.memsets);
    store_ctl sc = {.cancel = &ctl->cancel, .lock_ms = -1, .description = desc};
    /* each run is named by its placement, as a one-GPU replay's are */
    const char *base = json_string_value(
        json_object_get(json_object_get(v[0].scenario, "policy"), "placement"));
    if (!base) base = sim_placement_name(0);
    char srun[DB_SLUG_SIZE];
    if ((*status = store_merged(d, &merged, base, name, NULL, &sc, srun, exp, err, errlen)))
        goto drop;
    stored = true;   /* from here a failure takes the experiment back out */
    atomic_fetch_add(&ctl->done, 1);
    *status = store_report(d, run, srun, base, rep, runs, &sc, err, errlen);
    rep = NULL;
    if (*status) goto drop;
    atomic_fetch_add(&ctl->done, 1);
    /* each placement variant of the replay (replay.c: every placement a
     * replay can use), its GPUs simulated under it and merged the same way,
     * a run of the same experiment with its own report beside the replay
     * (the per-GPU errors and held-out predictions are the replay's) */
    char compare[1024];
    size_t cl = (size_t)snprintf(compare, sizeof compare, "/compare?runs=%s,%s", run, srun);
    for (size_t i = 0; i < nvar; i++) {
        const char *pn = replay_devices_variant_name(v, n, i);
        trace vm;
        if ((rc = replay_devices_variant(m, v, n, i, &vm, err, errlen))) {
            *status = rc > 0 ? 400 : 500;
            goto drop;
        }
        char tname[300], vrun[DB_SLUG_SIZE], vexp[DB_SLUG_SIZE];
        snprintf(tname, sizeof tname, "%s [%s]", name, pn);
        json_t *vrep = NULL;
        *status = store_merged(d, &vm, pn, tname, exp, &sc, vrun, vexp, err, errlen);
        if (!*status && replay_devices_report(m, v, n, &vm, &vrep, NULL, err, errlen) != 0)
            *status = 500;
        trace_free(&vm);
        if (*status) goto drop;
        atomic_fetch_add(&ctl->done, 1);
        json_object_del(vrep, "devices");
        json_object_set_new(vrep, "held_out",
                            json_pack("{s:b, s:s}", "done", 0, "why",
                                      "predicted GPU by GPU under the replay's own placement: "
                                      "see the first run's devices[].held_out"));
        if ((*status = store_report(d, run, vrun, pn, vrep, runs, &sc, err, errlen))) goto drop;
        if (cl < sizeof compare)
            cl += (size_t)snprintf(compare + cl, sizeof compare - cl, ",%s", vrun);
        atomic_fetch_add(&ctl->done, 1);
    }
    *result = json_pack("{s:s, s:s, s:s, s:s, s:O, s:s, s:O, s:O}", "slug", exp, "measured", run,
                        "device", all.device, "device_why", all.device_why, "runs", runs,
                        "compare", compare, "devices", devices, "held_out", held);
    *status = *result ? 201 : 500;
    if (!*result) snprintf(err, errlen, "out of memory");
drop:
    json_decref(devices);
    json_decref(held);
done:
    if (stored && !*result) {
        /* nothing half-written: the replay's runs go with their experiment */
        char e2[256];
        store_ctl del = {.lock_ms = -1};
        store_delete_experiment(d, exp, &del, NULL, e2, sizeof e2);
    }
    json_decref(runs);
    json_decref(rep);
    trace_free(&merged);
    replay_devices_free(v, n);
}
