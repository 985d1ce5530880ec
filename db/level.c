/* level.c -- the level/bin engine the pyramids share (see level.h). */
#include "level.h"

#include <stdlib.h>
#include <string.h>

#include "db_int.h"

int64_t *lvl_alloc(const lvl_kind *K, int64_t nb, size_t width) {
    size_t n = (size_t)nb * width * (size_t)K->nv;
    return calloc(n ? n : 1, sizeof(int64_t));
}

/* a cell of a half: stored, or the kind's outside cell, or zeros */
static const int64_t *half(const lvl_kind *K, const void *ctx, const lvl *l, int64_t k, size_t cell,
                           int64_t *tmp) {
    if (k >= l->k0 && k < l->k0 + l->nb)
        return &l->v[((size_t)(k - l->k0) * l->width + cell) * (size_t)K->nv];
    memset(tmp, 0, (size_t)K->nv * sizeof *tmp);
    if (K->outside) K->outside(ctx, l->z, k >= l->k0 + l->nb, tmp);
    return tmp;
}

int lvl_coarsen(const lvl_kind *K, const void *ctx, const lvl *l, lvl *up, int64_t *into) {
    up->z = l->z + 1;
    up->width = l->width;
    up->k0 = lvl_bin(l->k0, 1);
    up->nb = lvl_bin(l->k0 + l->nb - 1, 1) - up->k0 + 1;
    if (!(up->v = into ? into : lvl_alloc(K, up->nb, up->width))) return -1;
    size_t nv = (size_t)K->nv;
    int64_t ta[LVL_MAX_NV], tb[LVL_MAX_NV];
    for (int64_t i = 0; i < up->nb; i++) {
        int64_t k = up->k0 + i;
        for (size_t cell = 0; cell < up->width; cell++) {
            const int64_t *a = half(K, ctx, l, 2 * k, cell, ta);
            const int64_t *b = half(K, ctx, l, 2 * k + 1, cell, tb);
            int64_t *u = &up->v[((size_t)i * up->width + cell) * nv];
            for (size_t x = 0; x < nv; x++) {
                switch (K->rule[x]) {
                case LVL_SUM: u[x] = a[x] + b[x]; break;
                case LVL_MAX: u[x] = a[x] > b[x] ? a[x] : b[x]; break;
                case LVL_MAX0: {
                    int64_t m = a[x] > 0 ? a[x] : 0;
                    u[x] = b[x] > m ? b[x] : m;
                    break;
                }
                case LVL_FIRST: u[x] = a[x]; break;
                }
            }
        }
    }
    return 0;
}

void lvl_fold(const lvl_kind *K, const void *ctx, const int64_t *v, int64_t lk0, int64_t n,
              int zs, int sh, int64_t k, int64_t *out) {
    size_t nv = (size_t)K->nv;
    int64_t a = k * ((int64_t)1 << sh), b = a + ((int64_t)1 << sh), lend = lk0 + n;
    int64_t s0 = a > lk0 ? a : lk0, s1 = b < lend ? b : lend;
    memset(out, 0, nv * sizeof *out);
    for (int64_t j = s0; j < s1; j++) {
        const int64_t *x = &v[(size_t)(j - lk0) * nv];
        for (size_t i = 0; i < nv; i++) {
            if (K->rule[i] == LVL_SUM) out[i] += x[i];
            else if (K->rule[i] == LVL_FIRST) { if (j == a) out[i] = x[i]; }
            else if (x[i] > out[i]) out[i] = x[i];
        }
    }
    int64_t after = b - (a > lend ? a : lend);
    if (after <= 0 || !K->outside) return;
    int64_t o[LVL_MAX_NV] = {0};
    K->outside(ctx, zs, true, o);
    for (size_t i = 0; i < nv; i++) {
        if (K->rule[i] == LVL_SUM) out[i] += o[i] * after;
        else if (K->rule[i] == LVL_FIRST) { if (a >= lend) out[i] = o[i]; }
        else if (o[i] > out[i]) out[i] = o[i];
    }
}

int lvl_window_args(const char *what, int64_t from, int64_t to, int64_t want, char *err,
                    size_t errlen) {
    if (from < to && want >= 1) return 0;
    seterr(err, errlen, "%s: need from < to and bins >= 1", what);
    return -1;
}

int lvl_window_of(const char *what, int64_t from, int64_t to, int64_t want, int z0, int ztop,
                  int maxz, int maxbins, lvl_window *w, char *err, size_t errlen) {
    uint64_t span = (uint64_t)to - (uint64_t)from;
    int z = 0;
    while (z < 63 && ((uint64_t)1 << z) * (uint64_t)want < span) z++;
    if (z0 <= ztop && z < z0) z = z0;
    if (z > maxz) {
        seterr(err, errlen, "%s: bins of 2^%d ns are wider than the largest, 2^%d ns", what, z,
               maxz);
        return DB_TOO_WIDE;
    }
    w->z = z;
    w->bin_ns = (int64_t)1 << z;
    w->k0 = lvl_bin(from, z);
    int64_t nb = lvl_bin(to - 1, z) - w->k0 + 1;
    if (nb > maxbins) {
        seterr(err, errlen, "%s: %lld bins asked, at most %d", what, (long long)nb, maxbins);
        return DB_TOO_WIDE;
    }
    w->nbins = (size_t)nb;
    return 0;
}
