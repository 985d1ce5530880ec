/* sweep_seed.h -- the shipped sweeps stored at first start (issue 30).
 *
 * After the shipped scenarios (seed_bg.h), the same background thread
 * computes the sweeps of the table in sweep_seed.c -- the GCAPS paper's
 * Fig. 8 panels (a)-(f) at their specs' 1,000 tasksets per point and the
 * reduced ISCA'17 QoSreach sweep -- with the CLI's code (sweep_run) and
 * stores each as `schedlab sweep --db` does, one transaction each, marked
 * with its file ("sweeps/NAME.json") so that a later start skips it.
 * The sweeps of hours (ISCA'17's 90 pairs under Rollover and Spart and
 * its trios, at §4.1's parameters) are shipped computed instead, in
 * sweeps/results/, and stored from there.
 *
 * SCHEDLAB_SEED_SWEEP_TASKSETS=N (tests only, tests/api/server.mjs): the
 * schedulability sweeps with N tasksets per point instead of their spec's,
 * and the QoS sweep with its first pair and goal only, so that a test
 * server's seeding stays within a second or two. */
#ifndef SCHEDLAB_SWEEP_SEED_H
#define SCHEDLAB_SWEEP_SEED_H

#include <jansson.h>
#include <stddef.h>

#include "../../db/db.h"

/* Store a sweep result as a new experiment (source "sweep"), named and
 * described as its spec says, the text sweep_text writes: what `schedlab
 * sweep --db` stores. file: the seeded spec's "sweeps/NAME.json" (NULL:
 * none). */
int sweep_store_result(db *d, const json_t *result, const char *file, char slug[DB_SLUG_SIZE],
                       char *err, size_t errlen);

/* Store the table's sweeps not stored yet from folder dir on `threads`
 * threads, then the shipped results (dir/results/NAME: the sweeps too long
 * to compute at first start, stored as they are; each one refused is said
 * on stderr); *added counts them. Returns how many failed (err: the first
 * one's message), or -1. */
int sweep_seed(db *d, const char *dir, int threads, int *added, char *err, size_t errlen);

#endif
