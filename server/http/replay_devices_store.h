/* replay_devices_store.h -- `POST /api/runs/{run}/replay` and `schedlab
 * replay --store` for a trace with work on several GPUs (replay_devices.h):
 * each GPU replayed on its own simulated device, the simulated runs merged
 * into one run (its lanes the measured run's, so the views group them by
 * device), stored as a new experiment with that run, and its fidelity
 * report (overall, with "devices": each GPU's errors and held-out
 * prediction) stored beside it. Each placement variant of a one-GPU replay
 * (round-robin) is one more run of the experiment, every GPU simulated
 * under it and merged the same way, named by its placement. The result is
 * replay_store's (replay_api.h) with "devices" added. Every run is
 * simulated, merged and reported on before anything is stored; then the
 * experiment, its runs and all their reports are stored in one write
 * transaction under the store's write lock (store.h store_write), as a
 * one-GPU replay's runs and reports are (store_ctl.with_runs): a failed
 * write, the server stopping (the job cancelled) or a SIGKILL leaves
 * nothing of it, never runs without their reports. Each run is made the
 * run an import of its schedlab-trace/1 text would store (trace_json.h
 * tj_as_read, then the import's range checks; the text is not written),
 * and waits for the transaction with its blocks in a temporary file, as a
 * one-GPU replay's runs do (store.h store_spilled): no more than the run
 * being made holds its blocks in memory. */
#ifndef SERVER_REPLAY_DEVICES_STORE_H
#define SERVER_REPLAY_DEVICES_STORE_H

#include <jansson.h>

#include "../../db/db.h"
#include "../../simcore/trace.h"
#include "jobs.h"

/* m: the measured run `run`, loaded with its kernels and copies. *status
 * 201 with *result, else an HTTP status and err. */
void replay_devices_store(db *d, const trace *m, const char *run, const char *device,
                          job_ctl *ctl, int *status, json_t **result, char *err, size_t errlen);

#endif
