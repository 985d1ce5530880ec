/* level.h -- the one level/bin engine of db/'s pyramids (issue 24, point 5).
 *
 * The occupancy pyramid (pyramid.c), the queue pyramid (qpyramid.c) and the
 * stream and copy pyramids (spyramid.c) share one grid: level z has bins of
 * 2^z ns, bin k = [k*2^z, (k+1)*2^z); a bin holds `width` cells (the
 * occupancy pyramid's SMs; 1 elsewhere) of `nv` int64 values. What differs
 * is what a pyramid accumulates per cell, and that is all a pyramid tells
 * the engine (lvl_kind): per value, how a bin of level z+1 is made from its
 * two halves of level z (a sum, a maximum, the left half's), and what a
 * cell holds outside the bins a level stores. The engine does the rest:
 * the bin arithmetic, coarsening a level into the next, folding a stored
 * level's bins into a coarser window's, and choosing a window's level.
 * Each pyramid keeps its own stored layout (pyramid.sql's sparse tiles,
 * the series blobs of qpyramid.sql and spyramid.sql: varint.h writes both)
 * and its own accumulator. */
#ifndef DB_LEVEL_H
#define DB_LEVEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* floor(t / 2^z) for any t (negative times too), 0 <= z < 63 */
static inline int64_t lvl_bin(int64_t t, int z) {
    return t >= 0 ? t >> z : -((-(t + 1)) >> z) - 1;
}
/* the first ns of bin k of level z (k * 2^z; a left shift of a negative
 * value would be undefined) */
static inline int64_t lvl_start(int64_t k, int z) { return k * ((int64_t)1 << z); }

/* How a value of a bin of level z+1 comes from its halves' (a, b: left,
 * right) */
typedef enum lvl_rule {
    LVL_SUM,     /* a + b: integrals, counts */
    LVL_MAX,     /* max(a, b): the most at once */
    LVL_MAX0,    /* max(0, a, b): the most at once, never below nothing */
    LVL_FIRST,   /* a: what runs at the bin's start is what ran at its left half's */
} lvl_rule;

#define LVL_MAX_NV 8

/* What a pyramid accumulates per cell. */
typedef struct lvl_kind {
    int nv;                        /* values a cell */
    lvl_rule rule[LVL_MAX_NV];
    /* A cell of a bin past a level's stored bins (after) or before them
     * (!after) at level z, into v (nv values); NULL: zeros. */
    void (*outside)(const void *ctx, int z, bool after, int64_t *v);
} lvl_kind;

/* One level: bins [k0, k0 + nb) of level z, width cells a bin, nv values a
 * cell: v[((k - k0) * width + cell) * nv + x]. */
typedef struct lvl {
    int z;
    int64_t k0;
    int64_t nb;
    size_t width;
    int64_t *v;
} lvl;

/* The values of one level (nb bins of width cells): a zeroed array, NULL
 * when out of memory. */
int64_t *lvl_alloc(const lvl_kind *K, int64_t nb, size_t width);

/* up = level l->z + 1 over the bins l's bins fall in: each of its cells
 * from the two halves by K's rules (a half outside l's bins is K's outside
 * cell, ctx its context). up->v is `into` (every value written; room for
 * all of up's), or when into is NULL allocated (free it; -1: out of
 * memory). */
int lvl_coarsen(const lvl_kind *K, const void *ctx, const lvl *l, lvl *up, int64_t *into);

/* Bin k of level zs + sh from the stored bins of level zs (v: n bins of one
 * cell from bin lk0 on), by K's rules: out[x] the SUM (LVL_SUM) or the
 * largest, at least 0 (the maxima), of the stored bins in it, then the
 * bins of it past the stored ones as K's outside cell after them (ctx). */
void lvl_fold(const lvl_kind *K, const void *ctx, const int64_t *v, int64_t lk0, int64_t n,
              int zs, int sh, int64_t k, int64_t *out);

/* A pyramid window read's arguments: from < to and want >= 1, else an
 * error that `what` ("queue bins", "stream bins", "copy bins") starts. */
int lvl_window_args(const char *what, int64_t from, int64_t to, int64_t want, char *err,
                    size_t errlen);

/* The bins of a window read [from, to) in about `want` bins: level z, the
 * finest whose 2^z ns bins cover the span in at most want, no finer than
 * the stored z0 (when a level is stored: z0 <= ztop); bin k0 the first,
 * nbins of them. At most level maxz and maxbins bins, else DB_TOO_WIDE
 * (db.h) and an error that `what` starts: the window asked for is more
 * than the pyramid holds, the asker's error where -1 is the database's. */
typedef struct lvl_window {
    int z;
    int64_t bin_ns, k0;
    size_t nbins;
} lvl_window;
int lvl_window_of(const char *what, int64_t from, int64_t to, int64_t want, int z0, int ztop,
                  int maxz, int maxbins, lvl_window *w, char *err, size_t errlen);

#endif
