/* window_cohorts.h -- GET /api/runs/{run}/blocks of a run simulated with
 * cohorts (issue 28; docs/api.md). window.c hands such a run here. */
#ifndef SERVER_WINDOW_COHORTS_H
#define SERVER_WINDOW_COHORTS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../db/pyramid.h"
#include "http.h"

/* The blocks of [from, to) of run r (r->cspan >= 0): at most max blocks,
 * the cohorts' expanded, as a block-by-block run answers; else, when its
 * ordinary blocks and its cohorts' waves are at most max records, each
 * wave on an SM one block entry with "count" and "stride". false (nothing
 * in res): more records than max, the caller answers bins. */
bool window_cohort_blocks(db *d, const char *run, const pyr_run *r, int64_t from, int64_t to,
                          int64_t max, http_response *res);

#endif
