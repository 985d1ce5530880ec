/* qpyramid.h -- the queue-length pyramid of a stored run (issue 9: "The same
 * for queue lengths"; the tables in db/qpyramid.sql).
 *
 * Why: the Queues view draws each queue's length as a step line; a run with
 * hundreds of thousands of queue events has more steps in a window than
 * pixels. Like the occupancy pyramid (pyramid.h), the bins of every
 * power-of-two width are computed once when the run is stored, and a window
 * at any zoom reads one row per queue.
 *
 * The grid: level z has bins of 2^z ns, bin k = [k*2^z, (k+1)*2^z). A bin
 * of a queue holds the integral of its length over the bin (item-ns, exact:
 * the length is an integer step function with integer times) and the
 * largest length the bin sees. The length is 0 before the queue's first
 * event, len[i] on [t[i], t[i+1]) of its db_queue_series, and the last
 * length from the last point on. Levels z0..ztop are stored: z0 the finest
 * at which all queues' bins of the run's event span fit in QPYR_MAX_CELLS
 * and in the steps + 64 x the queues (finer bins hold about a step
 * each: a window of them is drawn as its steps),
 * ztop the first at which that span is one bin; a finer window is answered
 * at z0, a coarser one from ztop (bins past the span keep the last length).
 * Built on a run's first binned read and stored (dbi_qpyramid_build). */
#ifndef DB_QPYRAMID_H
#define DB_QPYRAMID_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

#define QPYR_MAX_CELLS ((size_t)1 << 18)   /* queue x bin cells of level z0: 4 MiB */
#define QPYR_MAX_Z 50                      /* a bin of 2^50 ns (13 days) at most */
#define QPYR_MAX_BINS 100000               /* bins of one window read */

/* Pure: the bins [k0, k0 + n) of level z of the step function (t, len, np)
 * (t ascending, one point per time): out[2i] the integral over bin k0 + i,
 * out[2i + 1] the largest length in it. */
void qpyr_bins_from_series(const int64_t *t, const int64_t *len, size_t np, int z, int64_t k0,
                           size_t n, int64_t *out);

/* The bins of a window, every queue's, on one level. */
typedef struct qpyr_bins {
    int z;                 /* the level read */
    int64_t bin_ns, k0;    /* bin i is bin k0 + i of level z: [(k0+i)*bin_ns, ...) */
    size_t nbins, nqueues;
    char **names;          /* nqueues names, in order of first event */
    int64_t *integral;     /* [q * nbins + i]: item-ns over bin i of queue q */
    int64_t *max;          /* [q * nbins + i]: the largest length in it */
    int64_t events;        /* queue events with from <= t < to */
} qpyr_bins;

/* The whole bins of level z that cover [from, to) (from < to), z the
 * coarsest of the run's z0 and the level whose 2^z * want >= to - from
 * (want >= 1). Builds the run's queue pyramid first when it was stored
 * before queue pyramids existed (once: it is stored). DB_NOT_FOUND: no run
 * of that slug; DB_TOO_WIDE: a window wider than the pyramid's coarsest
 * bins hold (level.h). */
int db_qpyramid_bins(db *d, const char *run, int64_t from, int64_t to, int64_t want,
                     qpyr_bins *out, char *err, size_t errlen);
void qpyr_bins_free(qpyr_bins *b);

/* Build and store the queue pyramid of run `id` from its stored queue
 * events (inside a transaction; replaces an old one). db_qpyramid_bins
 * calls it on a run's first binned read: not when the run is stored,
 * because there it raised the server's peak RSS by ~6 MB (glibc's mmap
 * threshold moves up after the replay's large arrays are freed), past
 * tests/api/store.test.mjs' 100 MB bound, for bins most runs never need. */
int dbi_qpyramid_build(db *d, int64_t id, char *err, size_t errlen);

#endif
