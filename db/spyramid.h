/* spyramid.h -- the per-stream pyramid of a stored run (issue 9: "per SM
 * (and per stream for kernel-level traces)"; the tables in db/spyramid.sql).
 *
 * Why: nvprof and Nsight Systems traces have kernels but no blocks, and the
 * run view draws them as bars per stream. A 1M-kernel import cannot be
 * fetched and drawn whole; like the occupancy pyramid (pyramid.h), the bins
 * of every power-of-two width are computed once, and a window at any zoom
 * reads one row per cell. Which runs: every run's kernels can be binned,
 * but only runs without blocks are drawn per stream, so the pyramid is
 * built on a run's first windowed read (any run), never at store time.
 *
 * The grid: level z has bins of 2^z ns, bin k = [k*2^z, (k+1)*2^z). A lane
 * is a (process, stream) pair; per lane and bin: the integrals of running
 * kernels (kernel-ns) and busy threads (thread-ns: blocks x threads per
 * block of each running kernel), and the largest number of running kernels
 * and of busy threads in the bin. A kernel runs on [start, end), start its
 * first_block (issue when unknown); kernels without a start or an end, or
 * ending before they start, are not binned (nor drawn). Levels z0..ztop are
 * stored: z0 the finest at which every cell's bins fit in SPYR_MAX_CELLS
 * and in 2 x the kernels + 64 x the cells (finer bins hold less than a
 * kernel each: a window of them is drawn as its kernels), ztop the first at
 * which the run's span is one bin; a finer window is answered at z0, a
 * coarser one from ztop. Built on the run's first read and stored
 * (dbi_spyramid_build). */
#ifndef DB_SPYRAMID_H
#define DB_SPYRAMID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../simcore/trace.h"
#include "db.h"

#define SPYR_MAX_CELLS ((size_t)1 << 20)   /* cell x bin values of level z0 */
#define SPYR_MAX_Z 50                      /* a bin of 2^50 ns (13 days) at most */
#define SPYR_MAX_BINS 100000               /* bins of one window read */
#define SPYR_CHUNK 1024                    /* kernel ids per chunk of the window index */

/* A run's lanes and kernel names (the pyramid is built first if needed). */
typedef struct spyr_info {
    int64_t id;                 /* runs.id */
    int z0, ztop;               /* z0 > ztop: no kernel with known times */
    size_t nlanes, nnames;
    char **process, **stream;   /* nlanes each (NULL: none) */
    char **names;               /* nnames, in order of first appearance by id */
    int64_t nkernels;           /* kernels with known times */
    int64_t t_min, t_max;       /* their earliest start, latest end (TRACE_NONE: none) */
    int64_t total_kernels;      /* every kernel of the run */
} spyr_info;

/* The number of kernels of a run, without building anything. */
int db_spyramid_count(db *d, const char *run, int64_t *n, char *err, size_t errlen);
/* DB_NOT_FOUND: no run of that slug. */
int db_spyramid_info(db *d, const char *run, spyr_info *out, char *err, size_t errlen);
void spyr_info_free(spyr_info *i);

/* The bins of a window, every lane's, on one level. */
typedef struct spyr_bins {
    int z;                 /* the level read */
    int64_t bin_ns, k0;    /* bin i is bin k0 + i of level z: [(k0+i)*bin_ns, ...) */
    size_t nbins, nlanes;
    int64_t *kernel_ns;    /* [lane * nbins + i]: running kernels' integral over bin i */
    int64_t *thread_ns;    /* busy threads' integral */
    int64_t *max_kernels;  /* the most kernels running at once in the bin */
    int64_t *max_threads;  /* the most threads busy at once */
    bool max_exact;        /* false: some lane had only some of its names shown, and its
                            * maxima are the sum of the shown names' (capped by the lane's) */
} spyr_bins;

/* The whole bins of level z that cover [from, to) (from < to), z the
 * coarsest of the run's z0 and the level whose 2^z * want >= to - from
 * (want >= 1). shown: a bit per name of info (NULL: every name); only
 * kernels of shown names count. DB_TOO_WIDE: a window wider than the
 * pyramid's coarsest bins hold (level.h). */
int db_spyramid_bins(db *d, const spyr_info *info, int64_t from, int64_t to, int64_t want,
                     const uint8_t *shown, spyr_bins *out, char *err, size_t errlen);
void spyr_bins_free(spyr_bins *b);

/* The kernels with start < to && end > from, in id order, into out (with
 * their ids in *ids, malloc'd), at most max + 1 of them (*n > max: the
 * window holds more than max, and out and *ids may hold none of them). */
int db_spyramid_kernels(db *d, const spyr_info *info, int64_t from, int64_t to, int64_t max,
                        trace *out, int64_t **ids, size_t *n, char *err, size_t errlen);

/* ---- copies (memcpy / memset rows): the same grid, one lane per copy
 * engine (a copy without one on engine 0, as the run view draws it), each
 * lane's bins split by direction too (the colours of the timeline). Per
 * lane and bin: the integral of running copies (copy-ns) and the most
 * running at once; per direction, its copies' integral. Built on the run's
 * first windowed read of copies (dbi_spyramid_copies_build), as the
 * kernels' pyramid. */
#define SPYR_COPY_DIRS (TRACE_COPY_OTHER + 1)   /* directions, trace_copy_dir */

typedef struct cpyr_info {
    int64_t id;             /* runs.id */
    int z0, ztop;           /* z0 > ztop: no copy with known times */
    size_t nengines;
    int64_t *engines;       /* lane l's engine, ascending */
    int64_t ncopies;        /* copies with known times */
    int64_t t_min, t_max;   /* their earliest start, latest end (TRACE_NONE: none) */
    int64_t total_copies;   /* every copy of the run */
} cpyr_info;

typedef struct cpyr_bins {
    int z;
    int64_t bin_ns, k0;     /* bin i is [(k0+i)*bin_ns, (k0+i+1)*bin_ns) */
    size_t nbins, nlanes;
    int64_t *copy_ns;       /* [lane * nbins + i]: running copies' integral over bin i */
    int64_t *max_copies;    /* the most copies running at once in the bin */
    int64_t *dir_ns;        /* [(lane * SPYR_COPY_DIRS + dir) * nbins + i]: one direction's copy-ns */
} cpyr_bins;

/* The number of copies of a run (runs.n_copies), building nothing. */
int db_spyramid_copy_count(db *d, const char *run, int64_t *n, char *err, size_t errlen);
/* DB_NOT_FOUND: no run of that slug. */
int db_spyramid_copy_info(db *d, const char *run, cpyr_info *out, char *err, size_t errlen);
void cpyr_info_free(cpyr_info *i);
/* As db_spyramid_bins, every lane's, every copy. */
int db_spyramid_copy_bins(db *d, const cpyr_info *info, int64_t from, int64_t to, int64_t want,
                          cpyr_bins *out, char *err, size_t errlen);
void cpyr_bins_free(cpyr_bins *b);
/* As db_spyramid_kernels: the copies with start < to && end > from, in id order. */
int db_spyramid_copies(db *d, const cpyr_info *info, int64_t from, int64_t to, int64_t max,
                       trace *out, int64_t **ids, size_t *n, char *err, size_t errlen);
/* Build and store run `id`'s copy pyramid (inside a transaction). */
int dbi_spyramid_copies_build(db *d, int64_t id, char *err, size_t errlen);

/* Build and store run `id`'s stream pyramid from its kernels (inside a
 * transaction; replaces an old one). */
int dbi_spyramid_build(db *d, int64_t id, char *err, size_t errlen);

#endif
