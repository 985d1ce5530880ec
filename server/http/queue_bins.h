/* queue_bins.h -- GET /api/runs/{run}/queues?from=&to=&bins= (issue 9 for
 * issue 15's Queues view): every queue's length over a window as bins of a
 * power-of-two width, read from the run's queue pyramid (db/qpyramid.h),
 * never by replaying the window's events; the contract is docs/api.md. */
#ifndef SERVER_QUEUE_BINS_H
#define SERVER_QUEUE_BINS_H

#include <stdint.h>

#include "../../db/db.h"
#include "http.h"

/* from < to and bins (about how many bins the window wants, 1..10000)
 * checked here: a bad one is a 400 naming the parameter. */
void queue_bins(db *d, const char *run, int64_t from, int64_t to, int64_t bins,
                http_response *res);

#endif
