/* test_rec_util.h -- the recordings of tests/fixtures/h100/ (an H100) and
 * tests/fixtures/h200/ (an H200), made with tools/recorder's schedlab-play,
 * as the importer reads them, and what the tests that check the simulator
 * against them (test_h100_recordings, test_h200_probes) ask of them.
 * Files are found under $SCHEDLAB_ROOT, or the current folder. */
#ifndef TEST_REC_UTIL_H
#define TEST_REC_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "../../importers/importers.h"
#include "test_imp_util.h"
#include "test_sim_util.h"

static inline void root_path(char *buf, size_t n, const char *rel) {
    const char *root = getenv("SCHEDLAB_ROOT");
    snprintf(buf, n, "%s%s%s", root ? root : "", root ? "/" : "", rel);
}

static inline unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s (set SCHEDLAB_ROOT or run from the repository root)", path);
    return test_slurp(f, len);
}

/* A recording of tests/fixtures/DIR/ as the importer reads it. */
static inline void measured_in(const char *dir, const char *file, trace *t) {
    char rel[256], path[1024], err[512] = "";
    snprintf(rel, sizeof rel, "tests/fixtures/%s/%s", dir, file);
    root_path(path, sizeof path, rel);
    size_t len;
    unsigned char *data = slurp(path, &len);
    imp_file f = {file, data, len};
    assert_int_equal(imp_detect(&f), IMP_GLOBALTIMER_CSV);
    trace_init(t);
    if (imp_import(IMP_GLOBALTIMER_CSV, &f, 1, t, err, sizeof err) != 0) fail_msg("%s", err);
    free(data);
}

static inline int64_t first(const trace *t, const char *k) {
    return t->kernels.v[kid(t, k)].first_block;
}

/* Blocks of kernel k that started in [lo, hi). */
static inline int started(const trace *t, const char *k, int64_t lo, int64_t hi) {
    int32_t id = kid(t, k);
    int n = 0;
    for (size_t i = 0; i < t->blocks.n; i++)
        if (t->blocks.v[i].kernel == id && t->blocks.v[i].start >= lo && t->blocks.v[i].start < hi)
            n++;
    return n;
}

static inline int distinct_sms(const trace *t, const char *k) {
    int32_t id = kid(t, k);
    char seen[SIM_MAX_SMS] = {0};
    int n = 0;
    for (size_t i = 0; i < t->blocks.n; i++)
        if (t->blocks.v[i].kernel == id && !seen[t->blocks.v[i].sm]++) n++;
    return n;
}

/* Blocks of the measured run whose simulated twin (same kernel name and
 * block index) ran on the same SM. */
static inline int same_sm(const trace *m, const trace *s) {
    int n = 0;
    for (size_t i = 0; i < m->blocks.n; i++) {
        const trace_block *b = &m->blocks.v[i];
        const char *k = trace_str_get(m, m->kernels.v[b->kernel].name);
        if (blk(s, k, b->index)->sm == b->sm) n++;
    }
    return n;
}

/* A recording of tests/fixtures/h100/. */
static inline void measured(const char *file, trace *t) {
    measured_in("h100", file, t);
}

/* The measured order in which an idle H100 starts one block per SM. */
static const int32_t h100_order[132] = {
    124, 125, 126, 127, 128, 129, 130, 131, 0,   1,   16,  17,  32,  33,  48,  49,
    2,   3,   18,  19,  34,  35,  50,  51,  64,  65,  78,  79,  92,  93,  106, 107,
    4,   5,   20,  21,  36,  37,  52,  53,  66,  67,  80,  81,  94,  95,  108, 109,
    6,   7,   22,  23,  38,  39,  54,  55,  68,  69,  82,  83,  96,  97,  110, 111,
    8,   9,   24,  25,  40,  41,  56,  57,  70,  71,  84,  85,  98,  99,  112, 113,
    10,  11,  26,  27,  42,  43,  58,  59,  72,  73,  86,  87,  100, 101, 114, 115,
    12,  13,  28,  29,  44,  45,  60,  61,  74,  75,  88,  89,  102, 103, 116, 117,
    120, 121, 14,  15,  30,  31,  46,  47,  62,  63,  76,  77,  90,  91,  104, 105,
    118, 119, 122, 123};

/* The first block index at which some SM of kernel k takes a second
 * block, and the index at which the last SM to get one takes its first. */
static inline void doubling(const trace *t, const char *k, int32_t *second, int32_t *last_first) {
    int32_t id = kid(t, k), n = 0;
    char seen[SIM_MAX_SMS] = {0};
    *second = -1;
    *last_first = -1;
    for (int32_t b = 0;; b++) {
        const trace_block *x = NULL;
        for (size_t i = 0; i < t->blocks.n && !x; i++)
            if (t->blocks.v[i].kernel == id && t->blocks.v[i].index == b) x = &t->blocks.v[i];
        if (!x) break;
        if (seen[x->sm]++) {
            if (*second < 0) *second = b;
        } else if (++n == 132) {
            *last_first = b;
        }
    }
}

#endif
