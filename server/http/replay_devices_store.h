/* replay_devices_store.h -- `POST /api/runs/{run}/replay` and `schedlab
 * replay --store` for a trace with work on several GPUs (replay_devices.h):
 * each GPU replayed on its own simulated device, the simulated runs merged
 * into one run (its lanes the measured run's, so the views group them by
 * device), stored as a new experiment with that run, and its fidelity
 * report (overall, with "devices": each GPU's errors and held-out
 * prediction) stored beside it. Each placement variant of a one-GPU replay
 * (round-robin) is one more run of the experiment, every GPU simulated
 * under it and merged the same way, named by its placement. The result is
 * replay_store's (replay_api.h) with "devices" added. A failure after the
 * experiment was created deletes it: nothing half-written is left. */
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
