/* stream_bins.h -- the timeline's reads for kernel-level traces (issue 9:
 * nvprof / Nsight runs of a million kernels and no blocks): GET
 * /api/runs/{run}/streams (per-stream busy bins of a window) and GET
 * /api/runs/{run}/kernels with window arguments (the window's kernels, or
 * the same bins past `max`), and GET /api/runs/{run}/copies with window
 * arguments (the window's copies, or per-engine copy bins: a real nvprof
 * trace is mostly copies), answered from db/spyramid.h; the contract is
 * docs/api.md. */
#ifndef SERVER_STREAM_BINS_H
#define SERVER_STREAM_BINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../db/db.h"
#include "http.h"

/* Parse a name index list "0-3,7" (indices and inclusive ranges, commas;
 * "" is no name) into bits[0..(n+7)/8) (zeroed by the caller). False with
 * a one-line message naming `param` and the place. */
bool sbin_parse_names(const char *param, const char *s, int64_t n, uint8_t *bits, char *err,
                      size_t errlen);

/* GET /streams: from/to default to the run's kernels' extent; max about
 * the bins in all (as /blocks'); names NULL: every name. */
void sbin_streams(db *d, const http_request *req, const char *run, int64_t from, bool has_from,
                  int64_t to, bool has_to, int64_t max, const char *names, http_response *res);

/* GET /kernels?from=&to=&max=: without from/to every kernel when the run has
 * at most max, else the whole run's bins; with them the kernels overlapping
 * the window when at most max, else its bins. */
void sbin_kernels(db *d, const http_request *req, const char *run, int64_t from, bool has_from,
                  int64_t to, bool has_to, int64_t max, http_response *res);

/* GET /copies?from=&to=&max=: as /kernels', for copies: without from/to
 * every copy when the run has at most max, else the whole run's per-engine
 * copy bins; with them the copies overlapping the window, or its bins. */
void sbin_copies(db *d, const http_request *req, const char *run, int64_t from, bool has_from,
                 int64_t to, bool has_to, int64_t max, http_response *res);

#endif
