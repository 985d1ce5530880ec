/* pyramid.h -- the occupancy pyramid of a stored run (issue 9; the tables in
 * db/pyramid.sql).
 *
 * Why: a timeline of a million blocks is drawn as occupancy bins at most
 * zoom levels, and computing bins from blocks scanned every block of the
 * window on every request (0.7-1 s for a whole 1 M-block run). A stored run
 * never changes, so the bins of every power-of-two width are computed once
 * when the run is stored and a window at any zoom reads a few blobs.
 *
 * The grid: level z has bins of 2^z ns, bin k = [k*2^z, (k+1)*2^z); levels
 * z0..ztop are stored, above ztop one bin holds the whole run. A cell is one
 * (bin, SM): the integrals over the bin of busy threads and of resident
 * blocks (a block is resident from start to end, pauses included: it holds
 * its SM's resources while its context is switched out), the number of
 * blocks that start in the bin, and the number running at its start
 * (start < bin start < end). All are integers, so sums of cells are exact and
 * a bin answered from the pyramid equals the same bin computed from blocks.
 *
 * Blocks on SMs outside 0..sms-1 and blocks without a start or end are left
 * out, as db_block_bins leaves them out. Threads of a block are its kernel's
 * (0 when unknown). */
#ifndef DB_PYRAMID_H
#define DB_PYRAMID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"

#define PYR_TILE_BINS 64            /* bins of one level per stored tile */
#define PYR_MAX_Z 62                /* bins of at most 2^62 ns: every stored time fits */
#define PYR_MAX_CELLS ((size_t)1 << 18)   /* bin x SM cells of the finest level: 8 MiB */

typedef struct pyr_cell {
    int64_t thr;      /* thread-ns: sum over blocks of threads x overlap */
    int64_t blk;      /* block-ns: sum over blocks of overlap */
    int64_t starts;   /* blocks whose start lies in the bin */
    int64_t live;     /* blocks running at the bin's start: start < t < end */
} pyr_cell;

/* What a window read needs to know about a run; db_pyramid_run fills it. */
typedef struct pyr_run {
    int64_t id;                  /* runs.id */
    int64_t t_min, t_max;        /* the run's extent; TRACE_NONE when empty */
    int64_t n_blocks, max_block_dur;
    int32_t sms;                 /* cells per bin; at least 1 */
    int z0, ztop;                /* levels stored; z0 > ztop when the run has no blocks */
    int64_t t_lo, t_hi;          /* the counted blocks' first start and last end */
    int64_t n_kernels;           /* runs.n_kernels */
    bool kpyr;                   /* its kernel pyramid (kpyramid.sql) is stored */
    int64_t ksole;               /* kernel_pyramids.sole_kernel: every block is of it; -1 */
    int64_t cspan;               /* cohort_spans.span (cohort_view.sql); -1: no cohorts */
} pyr_run;

/* Look up `run` (a slug) and its pyramid, building the pyramid first when
 * the run was stored before pyramids existed (once: it is stored). Returns
 * DB_NOT_FOUND for an unknown slug. */
int db_pyramid_run(db *d, const char *run, pyr_run *out, char *err, size_t errlen);

/* Adds the cells of bins [k0, k1) of level z (z0 <= z <= PYR_MAX_Z) into
 * out[(k - k0) * sms + sm]; the caller zeroes out. k1 - k0 is at most
 * 2^24. */
int db_pyramid_cells(db *d, const pyr_run *r, int z, int64_t k0, int64_t k1, pyr_cell *out,
                     char *err, size_t errlen);

/* out[sm].thr and .blk (sms cells, zeroed by the caller) += the integrals
 * over [lo, hi) for any lo < hi: the aligned part from the pyramid in as few
 * cells as there are levels, the parts finer than level z0 at either end
 * from the blocks themselves. starts and live are left alone. */
int db_pyramid_range(db *d, const pyr_run *r, int64_t lo, int64_t hi, pyr_cell *out, char *err,
                     size_t errlen);

/* The number of blocks that start strictly after `from` and before `to`
 * in whole bins of level z0: each of them overlaps [from, to), so it is a
 * lower bound of the window's blocks that costs no block read. */
int db_pyramid_starts_within(db *d, const pyr_run *r, int64_t from, int64_t to, int64_t *n,
                             char *err, size_t errlen);

/* Occupancy bins of the window [from, to) with about `want` bins: the
 * coarsest of z0 and the level whose 2^z is at least (to - from) / want.
 * Bin i is bin k0 + i of level z, i.e. starts at t = (k0 + i) * bin_ns;
 * cells[i * sms + sm] hold the integrals over the part of the bin inside
 * [from, to) (the first and last bin may be cut), and `starts`/`live` of the
 * whole bins. total: the blocks overlapping the whole bins' span, from the
 * pyramid: those running at its start plus those starting in it. */
typedef struct pyr_bins {
    int z;
    int64_t bin_ns, k0;
    size_t nbins;
    int32_t sms;
    pyr_cell *cells;             /* nbins * sms; free with pyr_bins_free */
    int64_t total;
} pyr_bins;

int db_pyramid_bins(db *d, const pyr_run *r, int64_t from, int64_t to, int64_t want,
                    pyr_bins *out, char *err, size_t errlen);
void pyr_bins_free(pyr_bins *b);

/* ---- the per-kernel pyramid (db/kpyramid.sql) ------------------------------------ */

/* A set of kernel ids: bit k of bits (k < nbits), or its complement. */
typedef struct pyr_kset {
    const uint8_t *bits;
    int64_t nbits;
    bool negate;
} pyr_kset;

/* db_pyramid_run, and the run's kernel pyramid built first when it was
 * stored before kernel pyramids existed (r->kpyr is then true). */
int db_pyramid_run_k(db *d, const char *run, pyr_run *out, char *err, size_t errlen);

/* db_pyramid_cells of the kernels of ks only (r from db_pyramid_run_k). */
int db_pyramid_cells_k(db *d, const pyr_run *r, int z, int64_t k0, int64_t k1,
                       const pyr_kset *ks, pyr_cell *out, char *err, size_t errlen);

/* db_pyramid_bins of the blocks of the kernels whose bit is set in bits
 * (nbits of them; kernels past nbits are left out), equal to the same bins
 * computed from those blocks alone. Reads whichever is fewer: the shown
 * kernels' cells, or the per-SM cells minus the hidden kernels'. */
int db_pyramid_bins_k(db *d, const pyr_run *r, int64_t from, int64_t to, int64_t want,
                      const uint8_t *bits, int64_t nbits, pyr_bins *out, char *err,
                      size_t errlen);

/* ---- window reads by run ------------------------------------------------------- */

/* The blocks of [from, to) (start < to && end > from) by start time, at most
 * `limit` of them; *n = how many cb was given. Asking for max + 1 tells
 * whether the window holds more than max without counting it. */
int db_window_blocks(db *d, const pyr_run *r, int64_t from, int64_t to, int64_t limit,
                     db_block_cb cb, void *ctx, int64_t *n, char *err, size_t errlen);
/* Whether any block of the run has pauses (so the window need not look). */
int db_run_has_pauses(db *d, const pyr_run *r, bool *has, char *err, size_t errlen);

/* ---- for db_store.c: building ------------------------------------------------------- */

/* The accumulator db_store.c feeds every block of a run as it is stored,
 * batch by batch: a few integer operations per block into cells of a level
 * it coarsens as the run grows (at most PYR_MAX_CELLS cells, whatever the
 * run's size), so storing never reads the blocks back. Blocks in the run's
 * order; threads from t's kernels, looked up per block (t may still grow
 * between calls, as a simulation's trace does). t NULL: threads unknown,
 * the accumulator gives up and dbi_pyramid_finish reads the blocks back. */
typedef struct pyr_acc pyr_acc;
pyr_acc *pyr_acc_new(void);             /* NULL: out of memory */
void pyr_acc_add(pyr_acc *a, const trace_block *b, size_t n, const trace *t);
void pyr_acc_free(pyr_acc *a);          /* NULL is fine */


/* Store the pyramid of run `id` (after its summary row is written, inside
 * the store's savepoint) from `a`, or, when a is NULL or gave up, or the
 * run has cohorts (issue 28: its cohort_spans row written), from the
 * run's stored blocks, cohorts and kernels. Replaces an existing one; `a` is spent
 * (free it after). */
int dbi_pyramid_finish(db *d, int64_t id, pyr_acc *a, char *err, size_t errlen);
/* dbi_pyramid_finish from the stored blocks (runs stored before pyramids). */
int dbi_pyramid_build(db *d, int64_t id, char *err, size_t errlen);

#endif
