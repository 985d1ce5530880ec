/* cohort_window.h -- a cohort run's cohorts in windows and pyramids (issue
 * 28, "the placement view of a replay draws them"; db/cohort_view.sql).
 *
 * A cohort (simcore/trace.h, trace_cohort) is `count` blocks of one kernel
 * on one SM in waves: wave w (0 <= w < W) starts at start + w * period and
 * ends (end - start) later, and holds per_wave blocks, the last wave the
 * rest. What a window, a pyramid cell or an export needs of it -- the waves
 * overlapping a time range, their blocks, the integral of resident blocks
 * up to a time, the waves starting before a time -- is a closed form of
 * these numbers (below), so nothing ever expands a cohort's blocks to
 * count them: the Rodinia Gaussian replay's 4.29 G blocks are 0.7 M
 * cohorts. Each form equals the sum over the blocks trace_cohort_block
 * gives (tests/unit/test_cohort_view.c checks them against it). */
#ifndef DB_COHORT_WINDOW_H
#define DB_COHORT_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "pyramid.h"

/* Blocks per full wave: a cohort of period 0 starts every block at once,
 * one wave of count blocks. */
static inline int64_t cw_per_wave(const trace_cohort *c) {
    if (c->period <= 0 || c->per_wave < 1 || c->per_wave > c->count) return c->count;
    return c->per_wave;
}

/* Its waves, W = ceil(count / per_wave). */
static inline int64_t cw_waves(const trace_cohort *c) {
    int64_t p = cw_per_wave(c);
    return (c->count + p - 1) / p;
}

/* The blocks of wave w: per_wave, the last wave the rest. */
static inline int64_t cw_wave_blocks(const trace_cohort *c, int64_t w) {
    int64_t p = cw_per_wave(c), nw = cw_waves(c);
    return w < nw - 1 ? p : c->count - (nw - 1) * p;
}

static inline int64_t cw_wave_start(const trace_cohort *c, int64_t w) {
    return c->start + (c->period > 0 ? w * c->period : 0);
}

/* The block duration (end - start of every wave). */
static inline int64_t cw_dur(const trace_cohort *c) { return c->end > c->start ? c->end - c->start : 0; }

/* The last wave's end. */
static inline int64_t cw_last_end(const trace_cohort *c) {
    return cw_wave_start(c, cw_waves(c) - 1) + cw_dur(c);
}

/* Of the first m waves, how many start at or before t. */
static inline int64_t cw_started(const trace_cohort *c, int64_t m, int64_t t) {
    if (m <= 0 || t < c->start) return 0;
    if (c->period <= 0) return m;
    int64_t n = (t - c->start) / c->period + 1;
    return n < m ? n : m;
}

/* Of the first m waves, the integral up to t of how many of them are
 * resident: the sum over the waves of clamp(t - wave start, 0, dur). */
static inline int64_t cw_resident_ns(const trace_cohort *c, int64_t m, int64_t t) {
    int64_t d = cw_dur(c);
    if (m <= 0 || t <= c->start || d == 0) return 0;
    int64_t a = cw_started(c, m, t - d);   /* waves ended by t: d each */
    int64_t b = cw_started(c, m, t - 1);   /* waves started before t */
    int64_t sum = a * d;
    if (b > a) {   /* waves running at t: t - their start each */
        int64_t n = b - a, p = c->period > 0 ? c->period : 0;
        sum += n * (t - c->start) - p * ((a + b - 1) * n / 2);
    }
    return sum;
}

/* The waves [*w0, *w1) that overlap [from, to) (a wave overlaps when it
 * starts before to and ends after from, as a block does); *w0 == *w1
 * when none. */
static inline void cw_overlap(const trace_cohort *c, int64_t from, int64_t to, int64_t *w0,
                              int64_t *w1) {
    int64_t nw = cw_waves(c), d = cw_dur(c);
    *w1 = cw_started(c, nw, to - 1);
    *w0 = from < c->start + d ? 0 : cw_started(c, nw, from - d);
    if (*w0 > *w1) *w0 = *w1;
}

/* The blocks of waves [w0, w1). */
static inline int64_t cw_blocks(const trace_cohort *c, int64_t w0, int64_t w1) {
    if (w1 <= w0) return 0;
    int64_t nw = cw_waves(c), p = cw_per_wave(c);
    return w1 < nw ? (w1 - w0) * p : (w1 - 1 - w0) * p + cw_wave_blocks(c, nw - 1);
}

/* The integral over [lo, hi) of c's resident blocks. */
static inline int64_t cw_block_ns(const trace_cohort *c, int64_t lo, int64_t hi) {
    if (hi <= lo) return 0;
    int64_t nw = cw_waves(c), p = cw_per_wave(c), last = cw_wave_blocks(c, nw - 1);
    int64_t full = p * (cw_resident_ns(c, nw - 1, hi) - cw_resident_ns(c, nw - 1, lo));
    int64_t s = cw_wave_start(c, nw - 1), e = s + cw_dur(c);
    int64_t ov = (e < hi ? e : hi) - (s > lo ? s : lo);
    return full + (ov > 0 ? ov * last : 0);
}

/* A cohort of a stored run and its number there (cohorts.seq). Non-zero
 * stops a read and is returned. */
typedef int (*cw_cb)(void *ctx, const trace_cohort *c, int64_t seq);

/* The cohorts of run r with a wave overlapping [from, to), by first start
 * then seq (a run without cohorts, r->cspan < 0, reads nothing). */
int db_window_cohorts(db *d, const pyr_run *r, int64_t from, int64_t to, cw_cb cb, void *ctx,
                      char *err, size_t errlen);

/* Every cohort of run `run` in seq order. */
int db_scan_cohorts(db *d, int64_t run, cw_cb cb, void *ctx, char *err, size_t errlen);

/* The cohorts of run `run` one at a time by first start, then seq (the
 * order their first waves were placed in: pyramid.c merges them with the
 * run's blocks). open: 0 or -1; next: 1 with *c and *seq set, 0 at the
 * end, -1 on failure; close frees. */
typedef struct cw_cursor {
    db *d;
    struct sqlite3_stmt *st;
} cw_cursor;
int cw_cursor_open(db *d, int64_t run, cw_cursor *cur, char *err, size_t errlen);
int cw_cursor_next(cw_cursor *cur, trace_cohort *c, int64_t *seq, char *err, size_t errlen);
void cw_cursor_close(cw_cursor *cur);

#endif
