/* window.h -- the timeline's reads (issue 9): GET /api/runs/{run}/blocks
 * (blocks of a window, or occupancy bins past `max`) and the pyramid's tiles
 * GET /api/runs/{run}/tiles[/{z}/{index}] (docs/api.md). api.c parses the
 * arguments and holds the connection; these answer from db/pyramid.h: the
 * window's blocks by one bounded scan of a covering index (LIMIT max + 1, no
 * separate count), bins and tiles from the stored pyramid, never by scanning
 * the window's blocks. */
#ifndef SERVER_WINDOW_H
#define SERVER_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "../../db/db.h"
#include "http.h"

#define WINDOW_BINS_MAX 2000    /* bins per SM at most */
/* Tiles of levels up to 56 (bins of 2^56 ns, 2.3 years): a tile of 64 bins
 * then still starts and ends within +-2^62 ns. */
#define WINDOW_TILE_MAX_Z 56

/* from/to default to the run's extent when not given; max_blocks as the
 * API's `max`. The answer carries an ETag (If-None-Match: 304) and is kept
 * in a small process-wide cache of recent answers (thread-safe). */
void window_blocks(db *d, const http_request *req, const char *run, int64_t from, bool has_from,
                   int64_t to, bool has_to, int64_t max_blocks, http_response *res);
/* Bytes of answers that cache holds now (/api/health's cache_bytes). */
size_t window_cache_bytes(void);
/* The bins answer ({from, to, mode: "bins", total, bin_ns, sms, bins: [{sm,
 * t, threads, blocks}]}, docs/api.md) of pb over [from, to), appended to w;
 * means with six decimals at most. /blocks past `max` and /occupancy
 * (occupancy.c) both answer with it. */
struct jw_buf;
struct pyr_bins;
void window_bins_json(struct jw_buf *w, const struct pyr_bins *pb, int64_t from, int64_t to);
/* The window [*from, *to) of a read: from defaults to t_min (0 for a run
 * with nothing, TRACE_NONE), to to t_max, or from + 1 where that leaves the
 * window empty; a given to not after from is a 400 in res (false). t_min and
 * t_max: the extent of what the read draws (blocks, kernels or copies). */
bool window_range(int64_t t_min, int64_t t_max, int64_t *from, bool has_from, int64_t *to,
                  bool has_to, http_response *res);
/* The answer to db/'s error rc (DB_NOT_FOUND: 404, else 500) with its
 * message err, less the database's path that db/ puts before it. */
void window_db_fail(db *d, http_response *res, int rc, const char *err);
/* The pyramid's levels and tile size. */
void window_tile_info(db *d, const char *run, http_response *res);
/* One tile; z and index are the URL's segments (validated here). */
void window_tile(db *d, const http_request *req, const char *run, const char *z,
                 const char *index, http_response *res);

#endif
