/* sweep_seed.h -- the shipped sweeps stored at first start (issue 30).
 *
 * After the shipped scenarios (seed_bg.h), the same background thread
 * computes the sweeps of the table in sweep_seed.c -- the GCAPS paper's
 * Fig. 8 panels (a)-(f) at their specs' 1,000 tasksets per point and the
 * reduced ISCA'17 QoSreach sweep -- with the CLI's code (sweep_run) and
 * stores each as `schedlab sweep --db` does, one transaction each, marked
 * with its file ("sweeps/NAME.json") so that a later start skips it.
 *
 * SCHEDLAB_SEED_SWEEP_TASKSETS=N (tests only, tests/api/server.mjs): the
 * schedulability sweeps with N tasksets per point instead of their spec's,
 * and the QoS sweep with its first pair and goal only, so that a test
 * server's seeding stays within a second or two. */
#ifndef SCHEDLAB_SWEEP_SEED_H
#define SCHEDLAB_SWEEP_SEED_H

#include <stddef.h>

#include "../db/db.h"

/* Store the table's sweeps not stored yet from folder dir on `threads`
 * threads; *added counts them. Returns how many failed (err: the first
 * one's message), or -1. */
int sweep_seed(db *d, const char *dir, int threads, int *added, char *err, size_t errlen);

#endif
