/* replay_devices_store.c -- a several-GPU replay stored as one run with
 * its report. See replay_devices_store.h. */
#include "replay_devices_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/fidelity_db.h"
#include "replay_devices.h"
#include "store.h"
#include "trace_json.h"

void replay_devices_store(db *d, const trace *m, const char *run, const char *device,
                          job_ctl *ctl, int *status, json_t **result, char *err, size_t errlen) {
    *result = NULL;
    char what[64];
    snprintf(what, sizeof what, "run %s", run);
    replay_dev *v = NULL;
    size_t n = 0;
    trace merged;
    json_t *rep = NULL;
    char *text = NULL;
    tj_buf b = {0};
    replay_info all;
    json_t *runs = NULL;
    bool stored = false;
    atomic_store(&ctl->total, 3);
    int rc = replay_devices_run(m, what, device, 1, &v, &n, &merged, err, errlen);
    if (rc) {
        *status = rc > 0 ? 400 : 500;
        return;
    }
    size_t nvar = replay_devices_variants(v, n);
    atomic_fetch_add(&ctl->total, (long long)nvar);
    atomic_fetch_add(&ctl->done, 1);
    if (replay_devices_report(m, v, n, &merged, &rep, &all, err, errlen) != 0) {
        *status = 500;
        goto done;
    }
    /* the merged run goes into the store as a schedlab-trace/1 import:
     * one run with every GPU's lanes (store_import reads it back exactly) */
    char name[256];
    snprintf(name, sizeof name, "Replay of %s on %zu simulated GPUs", m->name ? m->name : what, n);
    if (trace_set_name(&merged, name) < 0 || tj_write_trace(&merged, &b) != 0) {
        *status = 500;
        snprintf(err, errlen, "out of memory writing the replay");
        goto done;
    }
    /* the experiment says what it is, as a one-GPU replay's scenario does
     * (replay.c), not "Imported from" the merged file */
    char desc[1024];
    snprintf(desc, sizeof desc,
             "Derived by `schedlab replay` from %s (source %s) on %s: %zu kernels (%zu with the "
             "block time that gives their measured duration alone), %zu copies and %zu memsets "
             "at their measured durations, each GPU's work on its own simulated device; what "
             "couples the GPUs (NCCL's waits, NVLink) is not simulated.",
             what, m->source ? m->source : "unknown", all.device_why, all.kernels,
             all.calibrated, all.copies, all.memsets);
    imp_file f = {"replay.json", (const unsigned char *)b.s, b.len};
    char srun[DB_SLUG_SIZE], exp[DB_SLUG_SIZE];
    store_ctl sc = {.cancel = &ctl->cancel, .lock_ms = -1, .description = desc};
    rc = store_import_ctl(d, &f, 1, NULL, NULL, name, &sc, srun, exp, err, errlen);
    if (rc) {
        *status = rc == STORE_BAD_INPUT ? 400 : rc == STORE_BUSY ? 503 : 500;
        goto done;
    }
    stored = true;   /* from here a failure takes the experiment back out */
    atomic_fetch_add(&ctl->done, 1);
    json_object_set_new(rep, "measured_run", json_string(run));
    json_object_set_new(rep, "simulated_run", json_string(srun));
    text = json_dumps(rep, JSON_COMPACT);
    if (!text || db_fidelity_store(d, srun, run, text, err, errlen) != 0) {
        if (!text) snprintf(err, errlen, "out of memory writing the fidelity report");
        *status = 500;
        goto done;
    }
    atomic_fetch_add(&ctl->done, 1);
    json_t *sum = json_object();
    runs = json_pack("[{s:s, s:s, s:o}]", "run", srun, "name", name, "fidelity", sum);
    if (!runs) {
        *status = 500;
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    static const char *const keys[] = {"ok", "duration_error_median", "duration_error_p90",
                                       "start_error_median_share", "makespan_difference"};
    for (size_t i = 0; sum && i < sizeof keys / sizeof *keys; i++)
        json_object_set(sum, keys[i], json_object_get(rep, keys[i]));
    /* each placement variant of the replay (replay.c: every placement a
     * replay can use), its GPUs simulated under it and merged the same way,
     * as a run of the same experiment beside the replay */
    char compare[1024];
    size_t cl = (size_t)snprintf(compare, sizeof compare, "/compare?runs=%s,%s", run, srun);
    for (size_t i = 0; i < nvar; i++) {
        const char *pn = replay_devices_variant_name(v, n, i);
        trace vm;
        rc = replay_devices_variant(m, v, n, i, &vm, err, errlen);
        if (rc) {
            *status = rc > 0 ? 400 : 500;
            goto done;
        }
        char vname[300];
        snprintf(vname, sizeof vname, "%s [%s]", name, pn);
        tj_buf vb = {0};
        if (trace_set_name(&vm, vname) < 0 || tj_write_trace(&vm, &vb) != 0) {
            trace_free(&vm);
            tj_buf_free(&vb);
            *status = 500;
            snprintf(err, errlen, "out of memory writing the replay");
            goto done;
        }
        trace_free(&vm);
        imp_file vf = {"replay.json", (const unsigned char *)vb.s, vb.len};
        char vrun[DB_SLUG_SIZE], vexp[DB_SLUG_SIZE];
        rc = store_import_ctl(d, &vf, 1, NULL, exp, pn, &sc, vrun, vexp, err, errlen);
        tj_buf_free(&vb);
        if (rc) {
            *status = rc == STORE_BAD_INPUT ? 400 : rc == STORE_BUSY ? 503 : 500;
            goto done;
        }
        json_array_append_new(runs, json_pack("{s:s, s:s}", "run", vrun, "name", pn));
        if (cl < sizeof compare)
            cl += (size_t)snprintf(compare + cl, sizeof compare - cl, ",%s", vrun);
        atomic_fetch_add(&ctl->done, 1);
    }
    *result = json_pack("{s:s, s:s, s:s, s:s, s:O, s:s, s:O, s:O}", "slug", exp, "measured", run,
                        "device", all.device, "device_why", all.device_why, "runs", runs,
                        "compare", compare, "devices", json_object_get(rep, "devices"),
                        "held_out", json_object_get(rep, "held_out"));
    *status = *result ? 201 : 500;
    if (!*result) snprintf(err, errlen, "out of memory");
done:
    if (stored && !*result) {
        /* nothing half-written: the replay's runs go with their experiment */
        char e2[256];
        store_ctl del = {.lock_ms = -1};
        store_delete_experiment(d, exp, &del, NULL, e2, sizeof e2);
    }
    json_decref(runs);
    free(text);
    tj_buf_free(&b);
    json_decref(rep);
    trace_free(&merged);
    replay_devices_free(v, n);
}
