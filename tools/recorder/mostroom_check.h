/* mostroom_check.h -- the host-side bookkeeping of schedlab-mostroom
 * (mostroom.cu): where a run's blocks went (from the recorded %smid) and
 * the statistics of 30 runs. Plain C11 and libc, header-only, so that the
 * CUDA driver and a CPU unit test (tests/unit/test_mostroom_check.c) share
 * every line of it: the placement check is what decides whether a run was
 * concurrent-isolated or concurrent-colocated, and it has to be right
 * before a GPU is ever lent.
 *
 * The three configurations are the most-room paper's (§3.2, §5.1, Fig. 1):
 *   serial     A alone, then B alone; "in the serial case the blocks of
 *              Kernel B were scheduled to separate SMs";
 *   isolated   A (one block on every SM but one) with B's blocks all on
 *              the SM A left empty;
 *   colocated  the same A, B's first block on the empty SM and the others
 *              on SMs running a block of A, one per SM. */
#ifndef SCHEDLAB_MOSTROOM_CHECK_H
#define SCHEDLAB_MOSTROOM_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MR_MAX_SMS 1024

typedef struct mr_blk {
    uint64_t start;   /* %globaltimer, ns */
    uint64_t end;
    uint32_t sm;      /* %smid */
} mr_blk;

typedef enum mr_config { MR_SERIAL, MR_ISOLATED, MR_COLOCATED } mr_config;

static const char *const mr_config_names[] = {"serial", "isolated", "colocated"};

/* What the %smid of one run says. */
typedef struct mr_place {
    int a_sms;        /* distinct SMs A's blocks ran on */
    int b_sms;        /* distinct SMs B's blocks ran on */
    int b_beside_a;   /* B's blocks that overlapped in time a block of A on their SM */
    int ok;           /* 1: the placement the configuration asks for */
} mr_place;

static inline int mr_distinct(const mr_blk *v, int n) {
    unsigned char seen[MR_MAX_SMS];
    memset(seen, 0, sizeof seen);
    int d = 0;
    for (int i = 0; i < n; i++) {
        uint32_t s = v[i].sm < MR_MAX_SMS ? v[i].sm : MR_MAX_SMS - 1;
        if (!seen[s]++) d++;
    }
    return d;
}

/* Where the run's blocks went, and whether that is configuration c's
 * placement (see the top of the file): serial, B's nb blocks on nb SMs;
 * isolated, no B block beside a block of A and all of B on one SM; colocated,
 * B on nb SMs and all but one of its blocks beside a block of A. In every
 * configuration A's na blocks ran one per SM (na SMs). */
static inline mr_place mr_check(mr_config c, const mr_blk *a, int na, const mr_blk *b, int nb) {
    mr_place p;
    p.a_sms = mr_distinct(a, na);
    p.b_sms = mr_distinct(b, nb);
    p.b_beside_a = 0;
    for (int j = 0; j < nb; j++)
        for (int i = 0; i < na; i++)
            if (a[i].sm == b[j].sm && a[i].start < b[j].end && b[j].start < a[i].end) {
                p.b_beside_a++;
                break;
            }
    int a_spread = p.a_sms == na;
    switch (c) {
    case MR_SERIAL:
        p.ok = a_spread && p.b_sms == nb && p.b_beside_a == 0;
        break;
    case MR_ISOLATED:
        p.ok = a_spread && p.b_sms == 1 && p.b_beside_a == 0;
        break;
    default:
        p.ok = a_spread && p.b_sms == nb && p.b_beside_a == nb - 1;
        break;
    }
    return p;
}

/* A kernel's execution time from its blocks: first start to last end, ns
 * (what nvprof's kernel duration is, up to the launch's own overhead). */
static inline uint64_t mr_span(const mr_blk *v, int n) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < n; i++) {
        if (v[i].start < lo) lo = v[i].start;
        if (v[i].end > hi) hi = v[i].end;
    }
    return n > 0 ? hi - lo : 0;
}

/* Both kernels' span: the earliest start of either to the latest end. */
static inline uint64_t mr_total(const mr_blk *a, int na, const mr_blk *b, int nb) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < na; i++) {
        if (a[i].start < lo) lo = a[i].start;
        if (a[i].end > hi) hi = a[i].end;
    }
    for (int i = 0; i < nb; i++) {
        if (b[i].start < lo) lo = b[i].start;
        if (b[i].end > hi) hi = b[i].end;
    }
    return hi > lo ? hi - lo : 0;
}

/* Mean and coefficient of variation (sample standard deviation / mean; the
 * paper's Table 1 caption: "coefficient of variation was less than 3%"). */
static inline void mr_stats(const double *x, int n, double *mean, double *cv) {
    double s = 0, q = 0;
    for (int i = 0; i < n; i++) s += x[i];
    double m = n > 0 ? s / n : 0;
    for (int i = 0; i < n; i++) q += (x[i] - m) * (x[i] - m);
    *mean = m;
    *cv = n > 1 && m > 0 ? sqrt(q / (n - 1)) / m : 0;
}

/* Index of the run whose value is the median (the lower one for even n):
 * the representative run whose blocks are kept. */
static inline int mr_median_index(const double *x, int n) {
    int best = 0;
    for (int i = 0; i < n; i++) {
        int below = 0, equal_before = 0;
        for (int j = 0; j < n; j++) {
            if (x[j] < x[i]) below++;
            else if (x[j] == x[i] && j < i) equal_before++;
        }
        if (below + equal_before == (n - 1) / 2) {
            best = i;
            break;
        }
    }
    return best;
}

#endif
