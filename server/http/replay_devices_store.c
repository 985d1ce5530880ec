/* replay_devices_store.c -- a several-GPU replay stored as runs with their
 * reports. See replay_devices_store.h. */
#include "replay_devices_store.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/fidelity_db.h"
#include "../../importers/trace_check.h"
#include "../../simcore/sim.h"
#include "replay_devices.h"
#include "store.h"
#include "trace_json.h"

/* The HTTP status of a store_* failure. */
static int store_status(int rc) {
    return rc == STORE_BAD_INPUT ? 400 : rc == STORE_BUSY || rc == STORE_ABORTED ? 503 : 500;
}

/* The job's cancel (a DELETE of the job, or the server stopping), asked
 * as a one-GPU replay's store asks it (store.h: store_ctl.cancel). */
static bool cancelled(job_ctl *ctl) { return atomic_load(&ctl->cancel); }

/* A cancelled replay's answer, a one-GPU replay's (store.c): 503 with
 * the store's message (jobs.c answers a DELETE's 409 for it). */
static int aborted(char *err, size_t errlen) {
    snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
    return 503;
}

/* One simulated run of the replay, ready to store: the merged run as an
 * import of it written as schedlab-trace/1 stores it (every GPU's lanes;
 * as_stored), its blocks waiting in a temporary file as a one-GPU
 * replay's do (store.h store_spilled), its name (the placement) and its
 * report; its slug once stored. */
typedef struct dev_run {
    store_spilled run;
    const char *name;            /* borrowed */
    json_t *rep;                 /* owned */
    char slug[DB_SLUG_SIZE];
} dev_run;

/* Merged run t, named `tname`, moved into r->run as the run an import of
 * it written as schedlab-trace/1 stores: what writing it out and reading
 * it back changes, done on the trace itself (tj_as_read: the fields the
 * writer leaves out, the devices, the strings in the reader's order), and
 * an import's range checks (store.h store_import: imp_check_trace). It
 * wrote the whole run out as JSON and parsed it back, which took 3.8 s and
 * some 600 MB for 2 M blocks, against 0.2 s to simulate them. Its blocks
 * then wait in a temporary file (store_spill), so that the next run is
 * simulated and merged without this one's (each was held until the
 * store). 0, or the status with err. */
static int as_stored(trace *t, const char *tname, dev_run *r, job_ctl *ctl, char *err,
                     size_t errlen) {
    if (cancelled(ctl)) return aborted(err, errlen);
    if (trace_set_name(t, tname) < 0) {
        snprintf(err, errlen, "out of memory storing the replay");
        return 500;
    }
    if (tj_as_read(t, err, errlen) != 0) return t->oom ? 500 : 400;
    if (cancelled(ctl)) return aborted(err, errlen);
    if (imp_check_trace(t, "replay.json", err, errlen) != 0) return 400;
    return store_spill(t, &r->run, err, errlen) != 0 ? 500 : 0;
}

/* store_write's work: the experiment, then each run and its report, all in
 * the one transaction (as a one-GPU replay's store_ctl.with_runs), so that
 * no failure, cancel or SIGKILL leaves runs without their reports. */
typedef struct store_arg {
    const char *measured, *name, *desc;
    dev_run *runs;
    size_t n;
    job_ctl *ctl;
    const store_ctl *sc;         /* the job's cancel, for the blocks' batches */
    char exp[DB_SLUG_SIZE];
} store_arg;

static int store_all(db *d, void *arg, char *err, size_t errlen) {
    store_arg *a = arg;
    /* a replay's experiment, as a one-GPU replay's (replay_api.c): its runs
     * are simulated, so imports may not add to it (store.c import_target);
     * (the home page and the upload form go by the kind too) */
    int rc =
        db_create_experiment(d, a->name, a->desc, "scenario", NULL, NULL, a->exp, err, errlen);
    for (size_t i = 0; rc == 0 && i < a->n; i++) {
        dev_run *r = &a->runs[i];
        if (cancelled(a->ctl)) {   /* rolled back: store_write */
            aborted(err, errlen);
            return STORE_ABORTED;
        }
        if ((rc = store_spilled_run(d, &r->run, a->exp, r->name, a->sc, r->slug, err, errlen)) !=
            0)
            break;
        char *text = NULL;
        if (json_object_set_new(r->rep, "measured_run", json_string(a->measured)) != 0 ||
            json_object_set_new(r->rep, "simulated_run", json_string(r->slug)) != 0 ||
            !(text = json_dumps(r->rep, JSON_COMPACT))) {
            snprintf(err, errlen, "out of memory writing the fidelity report");
            return -1;
        }
        rc = db_fidelity_store(d, r->slug, a->measured, text, err, errlen);
        free(text);
        atomic_fetch_add(&a->ctl->done, 1);
    }
    return rc;
}

/* {run, name, fidelity: the report's summary} appended to list; 0 or -1. */
static int list_run(json_t *list, const dev_run *r) {
    static const char *const keys[] = {"ok", "duration_error_median", "duration_error_p90",
                                       "start_error_median_share", "makespan_difference"};
    json_t *sum = json_object();
    for (size_t i = 0; sum && i < sizeof keys / sizeof *keys; i++)
        json_object_set(sum, keys[i], json_object_get(r->rep, keys[i]));
    return sum ? json_array_append_new(list, json_pack("{s:s, s:s, s:o}", "run", r->slug, "name",
                                                       r->name, "fidelity", sum))
               : -1;
}

void replay_devices_store(db *d, const trace *m, const char *run, const char *device,
                          job_ctl *ctl, int *status, json_t **result, char *err, size_t errlen) {
    *result = NULL;
    char what[64];
    snprintf(what, sizeof what, "run %s", run);
    replay_dev *v = NULL;
    size_t n = 0, nvar = 0, nruns = 0;
    trace merged;
    json_t *rep = NULL, *devices = NULL, *held = NULL, *list = NULL;
    dev_run *runs = NULL;
    replay_info all;
    atomic_store(&ctl->total, 3);
    int rc = replay_devices_run(m, what, device, 1, &ctl->cancel, &v, &n, &merged, err, errlen);
    if (rc) {
        *status = rc == REPLAY_CANCELLED ? aborted(err, errlen) : rc > 0 ? 400 : 500;
        return;
    }
    /* progress: the GPUs replayed, each run merged and made ready, then
     * each run stored with its report */
    /* each GPU's simulated run is in the merged one now, which the report
     * and the store read (the devices' report entries take their numbers
     * from fid, info and measured): its own copy of the blocks is not read
     * again, and was held beside the merged run's to the end (64 MB of
     * 2 M blocks) */
    for (size_t i = 0; i < n; i++) trace_free(&v[i].simulated);
    nvar = replay_devices_variants(v, n);
    atomic_fetch_add(&ctl->total, 2 * (long long)nvar);
    atomic_fetch_add(&ctl->done, 1);
    *status = 500;
    if (!(runs = calloc(nvar + 1, sizeof *runs)) || !(list = json_array())) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (replay_devices_report(m, v, n, &merged, &rep, &all, err, errlen) != 0) goto done;
    devices = json_incref(json_object_get(rep, "devices"));
    held = json_incref(json_object_get(rep, "held_out"));
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
    /* each run is named by its placement, as a one-GPU replay's are */
    const char *base = json_string_value(
        json_object_get(json_object_get(v[0].scenario, "policy"), "placement"));
    runs[0].name = base ? base : sim_placement_name(0);
    runs[0].rep = rep;
    rep = NULL;
    nruns = 1;
    if ((*status = as_stored(&merged, name, &runs[0], ctl, err, errlen))) goto done;
    atomic_fetch_add(&ctl->done, 1);
    /* each placement variant of the replay (replay.c: every placement a
     * replay can use), its GPUs simulated under it and merged the same way,
     * a run of the same experiment with its own report beside the replay
     * (the per-GPU errors and held-out predictions are the replay's) */
    for (size_t i = 0; i < nvar; i++) {
        dev_run *r = &runs[i + 1];
        r->name = replay_devices_variant_name(v, n, i);
        nruns++;
        if (cancelled(ctl)) {
            *status = aborted(err, errlen);
            goto done;
        }
        trace vm;
        if ((rc = replay_devices_variant(m, v, n, i, &ctl->cancel, &vm, err, errlen))) {
            *status = rc == REPLAY_CANCELLED ? aborted(err, errlen) : rc > 0 ? 400 : 500;
            goto done;
        }
        char tname[300];
        snprintf(tname, sizeof tname, "%s [%s]", name, r->name);
        *status = 500;
        if (replay_devices_report(m, v, n, &vm, &r->rep, NULL, err, errlen) == 0)
            *status = as_stored(&vm, tname, r, ctl, err, errlen);
        trace_free(&vm);
        if (*status) goto done;
        json_object_del(r->rep, "devices");
        json_object_set_new(r->rep, "held_out",
                            json_pack("{s:b, s:s}", "done", 0, "why",
                                      "predicted GPU by GPU under the replay's own placement: "
                                      "see the first run's devices[].held_out"));
        atomic_fetch_add(&ctl->done, 1);
    }
    /* the experiment, its runs and their reports in one transaction under
     * the store's write lock (store_write): a failure, a cancel (the server
     * stopping) or a SIGKILL leaves nothing of it. Stored run by run, each
     * report after its run, a failed report or a crash between them left
     * runs without reports (and the delete that was to take them back out
     * fails too on the full disk that failed the report). */
    store_ctl sc = {.cancel = &ctl->cancel, .lock_ms = -1};
    store_arg sa = {.measured = run, .name = name, .desc = desc, .runs = runs, .n = nruns,
                    .ctl = ctl, .sc = &sc};
    if ((rc = store_write(d, &sc, store_all, &sa, err, errlen)) != 0) {
        *status = store_status(rc);
        goto done;
    }
    char compare[1024];
    size_t cl = (size_t)snprintf(compare, sizeof compare, "/compare?runs=%s", run);
    for (size_t i = 0; i < nruns; i++) {
        if (list_run(list, &runs[i]) != 0) {
            snprintf(err, errlen, "out of memory");
            *status = 500;
            goto done;
        }
        if (cl < sizeof compare)
            cl += (size_t)snprintf(compare + cl, sizeof compare - cl, ",%s", runs[i].slug);
    }
    *result = json_pack("{s:s, s:s, s:s, s:s, s:O, s:s, s:O, s:O}", "slug", sa.exp, "measured",
                        run, "device", all.device, "device_why", all.device_why, "runs", list,
                        "compare", compare, "devices", devices, "held_out", held);
    *status = *result ? 201 : 500;
    if (!*result) snprintf(err, errlen, "out of memory");
done:
    for (size_t i = 0; runs && i < nruns; i++) {
        store_spilled_free(&runs[i].run);
        json_decref(runs[i].rep);
    }
    free(runs);
    json_decref(list);
    json_decref(devices);
    json_decref(held);
    json_decref(rep);
    trace_free(&merged);
    replay_devices_free(v, n);
}
