/* occupancy.h -- GET /api/runs/{run}/occupancy (issue 9 for issue 15's
 * legend): the per-SM occupancy bins of a window counting only some kernels,
 * answered from the per-kernel pyramid (db/kpyramid.sql), never by scanning
 * the window's blocks; the contract is docs/api.md. */
#ifndef SERVER_OCCUPANCY_H
#define SERVER_OCCUPANCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../db/db.h"
#include "http.h"

/* Parse a kernel id list "3-7,12" (ids and inclusive ranges, commas; ""
 * is no kernel) into bits[0..(n_kernels+7)/8) (zeroed by the caller).
 * False with a one-line message in err naming the place: a malformed item
 * or an id outside 0..n_kernels-1. */
bool occ_parse_kernels(const char *s, int64_t n_kernels, uint8_t *bits, char *err, size_t errlen);

/* from/to default to the run's extent; max as /blocks' (about max cells in
 * all); kernels NULL: every kernel. ETag and immutable caching, as /blocks. */
void occupancy_bins(db *d, const http_request *req, const char *run, int64_t from,
                    bool has_from, int64_t to, bool has_to, int64_t max, const char *kernels,
                    http_response *res);

#endif
