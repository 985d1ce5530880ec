/* pyramid.c -- the occupancy pyramid: built once per stored run, read by
 * window queries at any zoom (see pyramid.h for the contract and
 * pyramid.sql for the tables). Also the window reads by run id that the
 * blocks API uses, on the connection's cached statements. */
#include "pyramid.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cohort_window.h"
#include "db_int.h"
#include "level.h"
#include "row_ranges.h"
#include "bpage.h"
#include "varint.h"

#define bin_of lvl_bin
#define bin_start lvl_start

/* ---- cells as tiles ----------------------------------------------------------
 * A tile: the nonzero cells of PYR_TILE_BINS bins of a level in (bin, SM)
 * order, each as varint.h's LEB128: the gap from the previous cell's
 * position (bin x sms + SM, -1 before the first) less one, then its four
 * values. The per-SM tiles and the per-kernel ones alike. */

typedef vi_buf vbuf;

static void tile_put(vbuf *b, int64_t *prev, int64_t pos, const pyr_cell *c) {
    vi_buf_put(b, (uint64_t)(pos - *prev - 1));
    *prev = pos;
    vi_buf_put(b, (uint64_t)c->thr);
    vi_buf_put(b, (uint64_t)c->blk);
    vi_buf_put(b, (uint64_t)c->starts);
    vi_buf_put(b, (uint64_t)c->live);
}

/* What a cell keeps (level.h): thread-ns, block-ns and starts sum over a
 * bin's halves; running at its start is its left half's. */
_Static_assert(sizeof(pyr_cell) == 4 * sizeof(int64_t), "pyr_cell: four int64s, one level.h cell");
static const lvl_kind cell_kind = {4, {LVL_SUM, LVL_SUM, LVL_SUM, LVL_FIRST}, NULL};

static bool cell_zero(const pyr_cell *c) { return !c->thr && !c->blk && !c->starts && !c->live; }

/* ---- building ------------------------------------------------------------------ */

typedef struct level {
    int z;
    int64_t k_lo;        /* first bin */
    int64_t nb;          /* bins */
    int32_t sms;
    pyr_cell *c;         /* c[(k - k_lo) * sms + sm] */
} level;

static int store_level(db *d, int64_t id, const level *l, sqlite3_stmt *ins, char *err,
                       size_t errlen) {
    int64_t k_hi = l->k_lo + l->nb - 1;
    vbuf b = {0};
    int rc = 0;
    for (int64_t tile = bin_of(l->k_lo, 6), last = bin_of(k_hi, 6); tile <= last && !rc; tile++) {
        b.n = 0;
        int64_t first = tile * PYR_TILE_BINS, prev = -1;
        int64_t k0 = first > l->k_lo ? first : l->k_lo;
        int64_t k1 = first + PYR_TILE_BINS - 1 < k_hi ? first + PYR_TILE_BINS - 1 : k_hi;
        for (int64_t k = k0; k <= k1; k++)
            for (int32_t sm = 0; sm < l->sms; sm++) {
                const pyr_cell *c = &l->c[(size_t)(k - l->k_lo) * (size_t)l->sms + (size_t)sm];
                if (cell_zero(c)) continue;
                tile_put(&b, &prev, (k - first) * l->sms + sm, c);
            }
        if (b.oom) {
            seterr(err, errlen, "%s: pyramid: out of memory", d->path);
            rc = -1;
            break;
        }
        if (b.n == 0) continue;
        sqlite3_bind_int64(ins, 1, id);
        sqlite3_bind_int(ins, 2, l->z);
        sqlite3_bind_int64(ins, 3, tile);
        sqlite3_bind_blob(ins, 4, b.p, (int)b.n, SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE) rc = sqlfail(d, "pyramid_tiles", err, errlen);
        sqlite3_reset(ins);
    }
    sqlite3_clear_bindings(ins);
    free(b.p);
    return rc;
}

/* Level z+1 from level z: a bin is its two halves; running at its start is
 * what ran at its left half's start (nothing, when that half is before the
 * run). */
static int coarsen(const level *l, level *up) {
    lvl from = {l->z, l->k_lo, l->nb, (size_t)l->sms, (int64_t *)l->c}, to;
    if (lvl_coarsen(&cell_kind, NULL, &from, &to, NULL)) return -1;
    *up = (level){.z = to.z, .k_lo = to.k0, .nb = to.nb, .sms = l->sms, .c = (pyr_cell *)to.v};
    return 0;
}

/* ---- the accumulator: blocks in, the finest level's cells out ------------------- */

/* A cell of one kernel: the per-SM cell split by kernel (kpyramid.sql),
 * one list per per-SM cell (few kernels share an SM in a bin, so a walk of
 * the list is a step or two). */
typedef struct kent {
    int32_t kernel, next;   /* next: the list's next entry, -1 at its end */
    pyr_cell c;
} kent;

/* Kernel cells at most, before the accumulator coarsens to stay bounded
 * (80 MiB): a run where many kernels share each SM in each bin. */
#define KENT_MAX ((size_t)1 << 21)

/* The kernel cells' pool: chunks of 2^13, so growing it never copies it (a
 * realloc to twice the size held three times the cells at its peak). */
#define KCHUNK_BITS 13
typedef struct kpool {
    kent **chunk;
    size_t nchunk, n;     /* n: entries handed out, free ones included */
    size_t used;          /* entries in use */
    int32_t free;         /* released entries, linked by next; -1: none */
} kpool;

static inline kent *kp_at(const kpool *p, int32_t i) {
    return &p->chunk[(size_t)i >> KCHUNK_BITS][(size_t)i & (((size_t)1 << KCHUNK_BITS) - 1)];
}

/* a new zeroed entry's index, -1: out of memory */
static int32_t kp_new(kpool *p) {
    if (p->free >= 0) {
        int32_t i = p->free;
        p->free = kp_at(p, i)->next;
        *kp_at(p, i) = (kent){0};
        p->used++;
        return i;
    }
    if (p->n >= (size_t)INT32_MAX) return -1;
    if (p->n == p->nchunk << KCHUNK_BITS) {
        kent **c = realloc(p->chunk, (p->nchunk + 1) * sizeof *c);
        if (!c) return -1;
        p->chunk = c;
        if (!(c[p->nchunk] = malloc(sizeof **c << KCHUNK_BITS))) return -1;
        p->nchunk++;
    }
    int32_t i = (int32_t)p->n++;
    *kp_at(p, i) = (kent){0};
    p->used++;
    return i;
}

static void kp_release(kpool *p, int32_t i) {
    kp_at(p, i)->next = p->free;
    p->free = i;
    p->used--;
}

static void kp_free(kpool *p) {
    for (size_t i = 0; i < p->nchunk; i++) free(p->chunk[i]);
    free(p->chunk);
    *p = (kpool){.free = -1};
}

/* Kernel cells are stored every KLEVEL_STEP levels (and at each kernel's
 * top): a level between is read from the stored one below it, at most
 * 2^(KLEVEL_STEP-1) of its bins per bin. A kernel spread over every SM has
 * nearly as many cells at z+1 as at z (its SMs, not its time, make them), so
 * every level would cost several times the per-SM pyramid. */
#define KLEVEL_STEP 3

/* A long block's whole bins past this many are a span, not kernel cells
 * (acc_add1): at the accumulator's fine level a GCAPS run's blocks cover
 * tens of bins each, and cells made one by one peaked at 5x those kept. */
#define KSPAN_MIN 2

typedef struct span_diff {
    int64_t cnt, thr;    /* blocks covering whole bins from here on, their threads */
} span_diff;

/* Cells of level zb over bins [klo, klo + nb) and SMs [0, nsm), grown as
 * blocks arrive (a simulation's come in completion order, an import's in
 * any order) and coarsened when they would pass PYR_MAX_CELLS; the level
 * stored as finest is chosen at the end, when the run's extent is known. */
struct pyr_acc {
    int zb;
    int64_t klo, nb;
    int32_t nsm;
    pyr_cell *c;          /* c[(k - klo) * nsm + sm] */
    span_diff *diff;      /* long blocks' whole bins, summed in acc_resolve */
    int64_t first, last;  /* the blocks' first start and last end */
    int64_t n;            /* blocks added */
    int32_t sms_hint;     /* the device's SMs when known: the cells' width from the start */
    bool dead;            /* threads unknown or out of memory: finish scans instead */
    int32_t *khead;       /* per cell of c: its first kernel cell in kp, -1 none */
    kpool kp;             /* the kernel cells (kpyramid.sql) */
    /* The first block's kernel (-1: none) is never kept in kernel cells:
     * its cells are the per-SM cells minus every other kernel's, made when
     * the run is stored (store_kernels). While every block is of it (!multi)
     * no kernel cell exists at all: a run of one big kernel costs nothing
     * more; the first block of another kernel (or of none) sets multi. */
    int32_t sole;
    bool multi;
    /* The whole bins of long blocks' kernel cells, as spans (the kernel
     * cells' difference array): made into cells only at the finest stored
     * level (acc_spans_out), where a block has few bins; expanding them at
     * the accumulator's level made a GCAPS run's paused blocks millions of
     * cells. */
    struct kspan *sp;
    size_t nsp, capsp;
};

/* Whole bins [k0, k1) of level zb (absolute bin numbers) of one block of
 * `kernel` on `sm`, `th` threads: every one fully covered, running at each
 * one's start. */
typedef struct kspan {
    int64_t k0, k1, th;
    int32_t kernel, sm;
    int64_t m;   /* blocks alike (a cohort's wave, cohort_window.h), 1 for a block */
} kspan;

#define ACC_MAX_SM 65536

#define shr lvl_bin
#define shl lvl_start

pyr_acc *pyr_acc_new(void) {
    pyr_acc *a = calloc(1, sizeof *a);
    if (a) {
        a->kp.free = -1;
        a->sole = -1;
        a->first = INT64_MAX;
        a->last = INT64_MIN;
    }
    return a;
}

static void acc_drop(pyr_acc *a) {
    a->dead = true;
    free(a->c);
    free(a->diff);
    free(a->khead);
    kp_free(&a->kp);
    free(a->sp);
    a->sp = NULL;
    a->nsp = a->capsp = 0;
    a->c = NULL;
    a->diff = NULL;
    a->khead = NULL;
    a->nb = 0;
    a->nsm = 0;
}

void pyr_acc_free(pyr_acc *a) {
    if (!a) return;
    free(a->c);
    free(a->diff);
    free(a->khead);
    kp_free(&a->kp);
    free(a->sp);
    free(a);
}

/* The cell of `kernel` in per-SM cell ci of (head, p), made when missing;
 * NULL: out of memory. */
static pyr_cell *kcell(int32_t *head, kpool *p, size_t ci, int32_t kernel) {
    for (int32_t e = head[ci]; e >= 0; e = kp_at(p, e)->next)
        if (kp_at(p, e)->kernel == kernel) return &kp_at(p, e)->c;
    int32_t i = kp_new(p);
    if (i < 0) return NULL;
    kent *e = kp_at(p, i);
    e->kernel = kernel;
    e->next = head[ci];
    head[ci] = i;
    return &e->c;
}

/* What acc_add1 adds to a per-SM cell, added to its kernel's cell too. */
static bool kadd(pyr_acc *a, size_t ci, int32_t kernel, int64_t thr, int64_t blk, int64_t starts,
                 int64_t live) {
    if (!a->multi || kernel == a->sole) return true;   /* the implicit kernel's */
    pyr_cell *c = kcell(a->khead, &a->kp, ci, kernel);
    if (!c) {
        acc_drop(a);
        return false;
    }
    c->thr += thr;
    c->blk += blk;
    c->starts += starts;
    c->live += live;
    return true;
}

static int32_t *heads_new(size_t n) {
    int32_t *h = malloc((n ? n : 1) * sizeof *h);
    if (h) memset(h, 0xff, n * sizeof *h);   /* -1 */
    return h;
}

static void acc_resolve(pyr_acc *a);

/* The sole kernel's cells made: each nonzero per-SM cell is its. */
static bool acc_multi(pyr_acc *a) {
    a->multi = true;
    /* the lists' heads exist from now on (a run of one kernel never has
     * them); the sole kernel's cells stay implicit */
    if (a->nb && !(a->khead = heads_new((size_t)a->nb * (size_t)a->nsm))) {
        acc_drop(a);
        return false;
    }
    return true;
}

/* Fold the long blocks' differences into the cells: each SM's running sum
 * over the bins, kept in the difference array itself, bin after bin (the
 * arrays' order: an SM at a time strode through megabytes, a cache miss a
 * cell, and took a third of storing the shipped scenarios). */
static void acc_resolve(pyr_acc *a) {
    if (!a || !a->diff) return;
    size_t nsm = (size_t)a->nsm;
    for (int64_t i = 0; i < a->nb; i++) {
        span_diff *dd = &a->diff[(size_t)i * nsm];
        const span_diff *prev = i ? dd - nsm : NULL;
        pyr_cell *c = &a->c[(size_t)i * nsm];
        for (size_t sm = 0; sm < nsm; sm++) {
            if (prev) {
                dd[sm].cnt += prev[sm].cnt;
                dd[sm].thr += prev[sm].thr;
            }
            c[sm].blk += shl(dd[sm].cnt, a->zb);
            c[sm].thr += shl(dd[sm].thr, a->zb);
            c[sm].live += dd[sm].cnt;
        }
    }
    free(a->diff);
    a->diff = NULL;
}

/* The cells again at level z >= zb over bins [klo, klo + nb) and nsm SMs
 * (cells of SMs >= nsm are dropped): a bin of level z is the sum of the
 * bins of zb in it, and what ran at its start is what ran at its first
 * one's. */
static bool acc_relayout(pyr_acc *a, int z, int64_t klo, int64_t nb, int32_t nsm) {
    acc_resolve(a);
    pyr_cell *c = calloc((size_t)nb * (size_t)nsm, sizeof *c);
    int32_t *head = a->multi ? heads_new((size_t)nb * (size_t)nsm) : NULL;
    if (!c || (a->multi && !head)) {
        free(c);
        free(head);
        acc_drop(a);
        return false;
    }
    int dz = z - a->zb;
    for (int64_t i = 0; i < a->nb; i++) {
        int64_t k = a->klo + i, j = shr(k, dz) - klo;
        if (j < 0 || j >= nb) {   /* outside the new cells: empty, or dropped */
            for (int32_t sm = 0; sm < a->nsm && head; sm++)
                for (int32_t e = a->khead[(size_t)i * (size_t)a->nsm + (size_t)sm], nx; e >= 0; e = nx) {
                    nx = kp_at(&a->kp, e)->next;
                    kp_release(&a->kp, e);
                }
            continue;
        }
        bool first = shl(shr(k, dz), dz) == k;
        int32_t m = a->nsm < nsm ? a->nsm : nsm;
        for (int32_t sm = m; sm < a->nsm && head; sm++)   /* SMs dropped */
            for (int32_t e = a->khead[(size_t)i * (size_t)a->nsm + (size_t)sm], nx; e >= 0; e = nx) {
                nx = kp_at(&a->kp, e)->next;
                kp_release(&a->kp, e);
            }
        for (int32_t sm = 0; sm < m; sm++) {
            const pyr_cell *o = &a->c[(size_t)i * (size_t)a->nsm + (size_t)sm];
            pyr_cell *u = &c[(size_t)j * (size_t)nsm + (size_t)sm];
            u->thr += o->thr;
            u->blk += o->blk;
            u->starts += o->starts;
            if (first) u->live = o->live;
            /* the kernel cells move in place: each joins the new cell's
             * list, or is added into its kernel's entry there and released
             * (no second pool: moving them took twice their memory) */
            size_t ci = (size_t)j * (size_t)nsm + (size_t)sm;
            if (!head) continue;
            for (int32_t e = a->khead[(size_t)i * (size_t)a->nsm + (size_t)sm], nx; e >= 0; e = nx) {
                kent *o2 = kp_at(&a->kp, e);
                nx = o2->next;
                int32_t f = head[ci];
                while (f >= 0 && kp_at(&a->kp, f)->kernel != o2->kernel) f = kp_at(&a->kp, f)->next;
                if (f < 0) {
                    if (!first) o2->c.live = 0;   /* ran at the bin's start: its first part's */
                    o2->next = head[ci];
                    head[ci] = e;
                    continue;
                }
                kent *u2 = kp_at(&a->kp, f);
                u2->c.thr += o2->c.thr;
                u2->c.blk += o2->c.blk;
                u2->c.starts += o2->c.starts;
                if (first) u2->c.live = o2->c.live;
                kp_release(&a->kp, e);
            }
        }
    }
    free(a->c);
    free(a->khead);
    a->khead = head;
    a->c = c;
    /* spans at the new level: the coarse bins they cover whole stay a span,
     * the (at most two) they cover in part become cells */
    assert(a->multi || a->nsp == 0);   /* spans are kept for a second kernel's cells */
    size_t m2 = 0;
    for (size_t x = 0; x < a->nsp; x++) {
        kspan sp = a->sp[x];
        if (sp.sm >= nsm) continue;
        int64_t t0 = shl(sp.k0, a->zb), t1 = shl(sp.k1, a->zb);   /* the span's times */
        int64_t c0 = shr(sp.k0 + ((int64_t)1 << dz) - 1, dz), c1 = shr(sp.k1, dz);   /* whole coarse */
        for (int64_t cb = shr(sp.k0, dz); cb <= shr(sp.k1 - 1, dz); cb++) {
            if (cb >= c0 && cb < c1) continue;
            int64_t lo = shl(cb, z), hi = shl(cb + 1, z);
            int64_t ov = (hi < t1 ? hi : t1) - (lo > t0 ? lo : t0);
            int64_t j = cb - klo;
            if (ov <= 0 || j < 0 || j >= nb) continue;
            pyr_cell *u = kcell(a->khead, &a->kp, (size_t)j * (size_t)nsm + (size_t)sp.sm, sp.kernel);
            if (!u) {
                acc_drop(a);
                return false;
            }
            u->thr += ov * sp.th * sp.m;
            u->blk += ov * sp.m;
            u->live += (lo >= t0 && lo < t1) * sp.m;
        }
        if (c0 < c1) a->sp[m2++] = (kspan){c0, c1, sp.th, sp.kernel, sp.sm, sp.m};
    }
    a->nsp = m2;
    a->zb = z;
    a->klo = klo;
    a->nb = nb;
    a->nsm = nsm;
    return true;
}

/* The spans made into kernel cells, at the level the accumulator is at
 * (the finest stored one, in dbi_pyramid_finish). */
static bool acc_spans_out(pyr_acc *a) {
    for (size_t x = 0; x < a->nsp; x++) {
        const kspan *sp = &a->sp[x];
        if (sp->sm >= a->nsm) continue;
        for (int64_t k = sp->k0; k < sp->k1; k++) {
            if (k < a->klo || k >= a->klo + a->nb) continue;
            pyr_cell *u = kcell(a->khead, &a->kp,
                                (size_t)(k - a->klo) * (size_t)a->nsm + (size_t)sp->sm, sp->kernel);
            if (!u) {
                acc_drop(a);
                return false;
            }
            u->thr += shl(sp->th, a->zb) * sp->m;
            u->blk += ((int64_t)1 << a->zb) * sp->m;
            u->live += sp->m;
        }
    }
    a->nsp = 0;
    return true;
}

/* Make room for bins [kmin, kmax] of level zb and SM sm: grow with slack
 * in the direction of growth, coarsen while the cells would pass the cap. */
static bool acc_fit(pyr_acc *a, int64_t kmin, int64_t kmax, int32_t sm) {
    /* SMs by powers of two and time by four times what is needed: a run
     * that grows one SM or one bin at a time (a simulation's blocks come in
     * time order) moves its cells a few times, not once per block (one move
     * per new SM took 46% of a streamed store) */
    int32_t nsm = a->nsm ? a->nsm : a->sms_hint > 0 ? a->sms_hint : 1;
    while (nsm < sm + 1) nsm *= 2;
    if (nsm > ACC_MAX_SM) nsm = ACC_MAX_SM;
    int64_t lo = kmin, hi = kmax;
    if (a->nb) {
        int64_t olo = a->klo, ohi = a->klo + a->nb - 1;
        if (lo > olo) lo = olo;
        if (hi < ohi) hi = ohi;
        int64_t span = hi - lo;
        if (span > INT64_MAX / 8) span = INT64_MAX / 8;
        if (hi > ohi) hi = hi > INT64_MAX / 2 - 3 * span ? INT64_MAX / 2 : hi + 3 * span + 64;
        if (lo < olo) lo = lo < INT64_MIN / 2 + 3 * span ? INT64_MIN / 2 : lo - 3 * span - 64;
    } else {
        hi += 64;
    }
    int dz = 0;
    while (a->zb + dz < PYR_MAX_Z &&
           (uint64_t)(shr(hi, dz) - shr(lo, dz) + 1) * (uint64_t)nsm > PYR_MAX_CELLS)
        dz++;
    if (!a->nb) {   /* the first block: nothing to move */
        a->zb += dz;
        a->klo = shr(lo, dz);
        a->nb = shr(hi, dz) - a->klo + 1;
        a->nsm = nsm;
        if (!(a->c = calloc((size_t)a->nb * (size_t)nsm, sizeof *a->c)) ||
            (a->multi && !(a->khead = heads_new((size_t)a->nb * (size_t)nsm)))) {
            acc_drop(a);
            return false;
        }
        return true;
    }
    return acc_relayout(a, a->zb + dz, shr(lo, dz), shr(hi, dz) - shr(lo, dz) + 1, nsm);
}

/* m blocks alike (1, or a wave of a cohort: cohort_window.h) of `kernel`
 * on sm from s to e, th threads each. */
static void acc_add1(pyr_acc *a, int32_t kernel, int32_t sm, int64_t s, int64_t e, int64_t th,
                     int64_t m) {
    if (sm < 0 || sm >= ACC_MAX_SM || m < 1) return;
    if (kernel < 0) kernel = -1;   /* no kernel: kept as kernel -1, never stored */
    if (!a->n) a->sole = kernel;
    else if (!a->multi && kernel != a->sole && !acc_multi(a)) return;
    if (e < s) e = s;
    a->n += m;
    if (s < a->first) a->first = s;
    if (e > a->last) a->last = e;
    int64_t ks = shr(s, a->zb), ke = e > s ? shr(e - 1, a->zb) : ks;
    if (ks < a->klo || ke >= a->klo + a->nb || sm >= a->nsm) {
        if (!acc_fit(a, ks, ke, sm)) return;
        ks = shr(s, a->zb);
        ke = e > s ? shr(e - 1, a->zb) : ks;
    }
    int z = a->zb;
    size_t nsm = (size_t)a->nsm;
    ks -= a->klo;
    ke -= a->klo;
    size_t cs = (size_t)ks * nsm + (size_t)sm, ce = (size_t)ke * nsm + (size_t)sm;
    pyr_cell *c = &a->c[cs];
    c->starts += m;
    if (e <= s) {
        kadd(a, cs, kernel, 0, 0, m, 0);
        return;
    }
    if (ks == ke) {
        c->blk += (e - s) * m;
        c->thr += (e - s) * th * m;
        kadd(a, cs, kernel, (e - s) * th * m, (e - s) * m, m, 0);
        return;
    }
    int64_t ov = shl(a->klo + ks + 1, z) - s;
    c->blk += ov * m;
    c->thr += ov * th * m;
    if (!kadd(a, cs, kernel, ov * th * m, ov * m, m, 0)) return;
    pyr_cell *end = &a->c[ce];
    ov = e - shl(a->klo + ke, z);
    end->blk += ov * m;
    end->thr += ov * th * m;
    end->live += m;
    if (!kadd(a, ce, kernel, ov * th * m, ov * m, 0, m)) return;
    /* the kernel's cells of the whole bins between: a few one by one, more
     * as a span, made into cells at the finest stored level */
    if (a->multi && kernel != a->sole && ke - ks - 1 > KSPAN_MIN) {
        if (a->nsp == a->capsp) {
            size_t cap = a->capsp ? a->capsp * 2 : 256;
            kspan *v = realloc(a->sp, cap * sizeof *v);
            if (!v) {
                acc_drop(a);
                return;
            }
            a->sp = v;
            a->capsp = cap;
        }
        a->sp[a->nsp++] = (kspan){a->klo + ks + 1, a->klo + ke, th, kernel, sm, m};
    } else {
        for (int64_t i = ks + 1; i < ke; i++)
            if (!kadd(a, (size_t)i * nsm + (size_t)sm, kernel, shl(th, z) * m,
                      ((int64_t)1 << z) * m, 0, m))
                return;
    }
    if (ke - ks - 1 <= 16) {   /* a few whole bins between: add them (no diff array) */
        for (int64_t i = ks + 1; i < ke; i++) {
            pyr_cell *mid = &a->c[(size_t)i * nsm + (size_t)sm];
            mid->blk += ((int64_t)1 << z) * m;
            mid->thr += shl(th, z) * m;
            mid->live += m;
        }
        return;
    }
    /* a long block: its whole bins as a difference, summed once in
     * acc_resolve, so a block covering the run costs as much as a short one */
    if (!a->diff && !(a->diff = calloc((size_t)a->nb * nsm, sizeof *a->diff))) {
        acc_drop(a);
        return;
    }
    a->diff[(size_t)(ks + 1) * nsm + (size_t)sm].cnt += m;
    a->diff[(size_t)(ks + 1) * nsm + (size_t)sm].thr += th * m;
    a->diff[(size_t)ke * nsm + (size_t)sm].cnt -= m;
    a->diff[(size_t)ke * nsm + (size_t)sm].thr -= th * m;
}

/* Waves [w0, w1) of cohort c (p blocks each), all inside the cells as they
 * are, bin by bin from the closed forms (cohort_window.h): a cell gets
 * what acc_add1 of each of their blocks would add. */
static void acc_add_waves(pyr_acc *a, const trace_cohort *c, int64_t w0, int64_t w1, int64_t p,
                          int64_t th) {
    int64_t d = cw_dur(c), fs = cw_wave_start(c, w0), fl = cw_wave_start(c, w1 - 1), fe = fl + d;
    int32_t kernel = c->kernel < 0 ? -1 : c->kernel;
    size_t sm = (size_t)c->sm;
    a->n += (w1 - w0) * p;
    if (fs < a->first) a->first = fs;
    if (fe > a->last) a->last = fe;
    int64_t ks = shr(fs, a->zb), ke = shr(fe > fl ? fe - 1 : fl, a->zb);
    for (int64_t k = ks; k <= ke; k++) {
        int64_t b0 = shl(k, a->zb), b1 = shl(k + 1, a->zb);
        int64_t starts = p * (cw_started(c, w1, b1 - 1) - cw_started(c, w0, b1 - 1) -
                              cw_started(c, w1, b0 - 1) + cw_started(c, w0, b0 - 1));
        int64_t live = d > 0 ? p * (cw_started(c, w1, b0 - 1) - cw_started(c, w0, b0 - 1) -
                                    cw_started(c, w1, b0 - d) + cw_started(c, w0, b0 - d))
                             : 0;
        int64_t blk = p * (cw_resident_ns(c, w1, b1) - cw_resident_ns(c, w0, b1) -
                           cw_resident_ns(c, w1, b0) + cw_resident_ns(c, w0, b0));
        if (!starts && !live && !blk) continue;
        size_t ci = (size_t)(k - a->klo) * (size_t)a->nsm + sm;
        pyr_cell *x = &a->c[ci];
        x->thr += blk * th;
        x->blk += blk;
        x->starts += starts;
        x->live += live;
        if (!kadd(a, ci, kernel, blk * th, blk, starts, live)) return;
    }
}

/* A cohort's blocks (issue 28; cohort_window.h), exactly what acc_add1 of
 * each of them, wave after wave, would make of the cells: the cells grow
 * (acc_fit) at the same waves and to the same bins, so the level they end
 * at is a block-by-block run's too (a wave's blocks have one start and one
 * end: acc_add1 of the wave at once). A wave that needs room is added on
 * its own; the waves after it that fit the cells as they are, when more
 * than the bins they cover, bin by bin from the closed forms
 * (acc_add_waves): a long stretch of short waves (the Rodinia Gaussian's
 * Fan2: 800 waves a kernel) costs its bins, not its waves. */
static void acc_add_cohort(pyr_acc *a, const trace_cohort *c, int64_t th) {
    if (c->sm < 0 || c->sm >= ACC_MAX_SM || c->count < 1 || c->start == TRACE_NONE ||
        c->end == TRACE_NONE)
        return;
    int32_t kernel = c->kernel < 0 ? -1 : c->kernel, sm = c->sm;
    int64_t nw = cw_waves(c), p = cw_per_wave(c), d = cw_dur(c), full = nw - 1;
    for (int64_t w = 0; w < full && !a->dead;) {
        int64_t ws = cw_wave_start(c, w);
        acc_add1(a, kernel, sm, ws, ws + d, th, p);
        if (a->dead || ++w >= full) break;
        /* the waves from w on that end inside the cells: their last ns
         * (start + d - 1, or the start itself) before the cells' end */
        int64_t lim = shl(a->klo + a->nb, a->zb) - (d > 0 ? d - 1 : 0);
        int64_t u = cw_started(c, full, lim - 1);
        if (u <= w) continue;   /* wave w needs room: on its own */
        int64_t bins = shr(cw_wave_start(c, u - 1) + d, a->zb) - shr(cw_wave_start(c, w), a->zb) + 1;
        if (u - w <= bins + 2) {
            for (; w < u && !a->dead; w++) {
                int64_t s1 = cw_wave_start(c, w);
                acc_add1(a, kernel, sm, s1, s1 + d, th, p);
            }
        } else {
            acc_add_waves(a, c, w, u, p, th);
            w = u;
        }
    }
    if (!a->dead) {
        int64_t ls = cw_wave_start(c, nw - 1);   /* the last wave, possibly partial */
        acc_add1(a, kernel, sm, ls, ls + d, th, cw_wave_blocks(c, nw - 1));
    }
}

/* Too many kernel cells: the accumulator's next level, where neighbouring
 * bins' kernel cells are one. */
static void acc_kbound(pyr_acc *a) {
    while (!a->dead && a->kp.used > KENT_MAX && a->zb < PYR_MAX_Z) {
        int64_t lo = shr(a->klo, 1), hi = shr(a->klo + a->nb - 1, 1);
        acc_relayout(a, a->zb + 1, lo, hi - lo + 1, a->nsm);
    }
}

void pyr_acc_add(pyr_acc *a, const trace_block *b, size_t n, const trace *t) {
    if (!a || a->dead) return;
    if (!t) {   /* no kernels: no threads; finish will read the blocks back */
        acc_drop(a);
        return;
    }
    if (t->has_device && t->device.sms > 0 && t->device.sms <= ACC_MAX_SM) a->sms_hint = t->device.sms;
    for (size_t i = 0; i < n && !a->dead; i++) {
        if (b[i].start == TRACE_NONE || b[i].end == TRACE_NONE) continue;
        int64_t th = 0;
        if (b[i].kernel >= 0 && (size_t)b[i].kernel < t->kernels.n)
            th = t->kernels.v[b[i].kernel].threads > 0 ? t->kernels.v[b[i].kernel].threads : 0;
        acc_add1(a, b[i].kernel, b[i].sm, b[i].start, b[i].end, th, 1);
        acc_kbound(a);
    }
}

/* ---- the kernel cells' levels (kpyramid.sql) ---------------------------------------- */

typedef struct kc {
    int64_t bin;
    int32_t kernel, sm;
    pyr_cell c;
} kc;

static int kc_cmp(const void *x, const void *y) {
    const kc *a = x, *b = y;
    if (a->kernel != b->kernel) return a->kernel < b->kernel ? -1 : 1;
    if (a->bin != b->bin) return a->bin < b->bin ? -1 : 1;
    return (a->sm > b->sm) - (a->sm < b->sm);
}

/* Sort v by (kernel, bin, SM) and sum equal keys; returns the new count. */
static size_t kc_merge(kc *v, size_t n) {
    qsort(v, n, sizeof *v, kc_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && v[m - 1].kernel == v[i].kernel && v[m - 1].bin == v[i].bin &&
            v[m - 1].sm == v[i].sm) {
            v[m - 1].c.thr += v[i].c.thr;
            v[m - 1].c.blk += v[i].c.blk;
            v[m - 1].c.starts += v[i].c.starts;
            v[m - 1].c.live += v[i].c.live;   /* at most one of them is a left half's */
        } else {
            v[m++] = v[i];
        }
    }
    return m;
}

/* Store level z of one kernel's cells v (sorted by bin, SM): one row per
 * tile, in the per-SM tiles' varint format. */
static int store_klevel(db *d, int64_t id, int32_t kernel, int z, const kc *v, size_t n,
                        int32_t sms, sqlite3_stmt *ins, vbuf *b, char *err, size_t errlen) {
    int rc = 0;
    for (size_t i = 0; i < n && !rc;) {
        int64_t tile = bin_of(v[i].bin, 6), first = tile * PYR_TILE_BINS, prev = -1;
        b->n = 0;
        for (; i < n && bin_of(v[i].bin, 6) == tile; i++) {
            if (cell_zero(&v[i].c)) continue;
            tile_put(b, &prev, (v[i].bin - first) * sms + v[i].sm, &v[i].c);
        }
        if (b->oom) {
            seterr(err, errlen, "%s: pyramid: out of memory", d->path);
            return -1;
        }
        if (b->n == 0) continue;
        sqlite3_bind_int64(ins, 1, id);
        sqlite3_bind_int(ins, 2, kernel);
        sqlite3_bind_int(ins, 3, z);
        sqlite3_bind_int64(ins, 4, tile);
        sqlite3_bind_blob(ins, 5, b->p, (int)b->n, SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE) rc = sqlfail(d, "kernel_tiles", err, errlen);
        sqlite3_reset(ins);
    }
    return rc;
}

/* One kernel's cells v (level z0, sorted by bin and SM) stored sparsely
 * (kpyramid.sql): at z0, every KLEVEL_STEP-th level above, and its top
 * level, the first where its cells lie in at most two bins (above it, its
 * cells are that level's, summed: the reads map them). Each level from the
 * one below as the per-SM levels are (coarsen): a bin's running-at-start
 * from its left half. */
static int store_kernel(db *d, int64_t id, int32_t kernel, kc *v, size_t n, int z0, int32_t sms,
                        sqlite3_stmt *ins, vbuf *b, char *err, size_t errlen) {
    for (int z = z0; n; z++) {
        bool top = v[n - 1].bin - v[0].bin <= 1 || z == PYR_MAX_Z;
        if ((top || (z - z0) % KLEVEL_STEP == 0) &&
            store_klevel(d, id, kernel, z, v, n, sms, ins, b, err, errlen))
            return -1;
        if (top) break;
        for (size_t i = 0; i < n; i++) {
            if (v[i].bin != 2 * shr(v[i].bin, 1)) v[i].c.live = 0;   /* a right half */
            v[i].bin = shr(v[i].bin, 1);
        }
        n = kc_merge(v, n);
    }
    return 0;
}

/* The kernel cells of acc (laid out at level z0 over its bins and sms SMs,
 * spent here): re-linked into one list per kernel, in (bin, SM) order as
 * the cells are walked, then each kernel stored on its own, so no more than
 * one kernel's cells are ever copied or sorted. */
static int store_kernels(db *d, int64_t id, pyr_acc *acc, int z0, int32_t sms, char *err,
                         size_t errlen) {
    /* the implicit kernel's cells: the per-SM cells minus the others' */
    kc *v0 = NULL;
    size_t n0 = 0, cap0 = 0;
    for (int64_t i = 0; i < acc->nb && acc->sole >= 0; i++)
        for (int32_t sm = 0; sm < acc->nsm; sm++) {
            size_t ci = (size_t)i * (size_t)acc->nsm + (size_t)sm;
            pyr_cell rest = acc->c[ci];
            for (int32_t e = acc->khead[ci]; e >= 0; e = kp_at(&acc->kp, e)->next) {
                const pyr_cell *o = &kp_at(&acc->kp, e)->c;
                rest.thr -= o->thr;
                rest.blk -= o->blk;
                rest.starts -= o->starts;
                rest.live -= o->live;
            }
            if (cell_zero(&rest)) continue;
            if (n0 == cap0) {
                size_t nc = cap0 ? cap0 * 2 : 1024;
                kc *nv = realloc(v0, nc * sizeof *nv);
                if (!nv) {
                    free(v0);
                    seterr(err, errlen, "%s: pyramid: out of memory", d->path);
                    return -1;
                }
                v0 = nv;
                cap0 = nc;
            }
            v0[n0++] = (kc){.bin = acc->klo + i, .kernel = acc->sole, .sm = sm, .c = rest};
        }
    int32_t kmax = acc->sole;
    for (size_t e = 0; e < acc->kp.n; e++)
        if (kp_at(&acc->kp, (int32_t)e)->kernel > kmax) kmax = kp_at(&acc->kp, (int32_t)e)->kernel;
    if (kmax < 0) {
        free(v0);
        return 0;
    }
    int32_t *head = malloc(((size_t)kmax + 1) * sizeof *head);
    int32_t *tail = malloc(((size_t)kmax + 1) * sizeof *tail);
    int32_t *cnt = calloc((size_t)kmax + 1, sizeof *cnt);
    if (!head || !tail || !cnt) {
        free(head);
        free(tail);
        free(cnt);
        seterr(err, errlen, "%s: pyramid: out of memory", d->path);
        return -1;
    }
    memset(head, 0xff, ((size_t)kmax + 1) * sizeof *head);
    /* the entry's kernel field becomes its cell's position: the list says
     * whose it is (kernel -1's, blocks of no kernel, are in no list) */
    for (int64_t i = 0; i < acc->nb; i++)
        for (int32_t sm = 0; sm < acc->nsm; sm++) {
            size_t ci = (size_t)i * (size_t)acc->nsm + (size_t)sm;
            for (int32_t e = acc->khead[ci], nx; e >= 0; e = nx) {
                kent *x = kp_at(&acc->kp, e);
                nx = x->next;
                int32_t k = x->kernel;
                if (k < 0) continue;
                x->kernel = (int32_t)ci;
                x->next = -1;
                if (head[k] < 0) head[k] = e;
                else kp_at(&acc->kp, tail[k])->next = e;
                tail[k] = e;
                cnt[k]++;
            }
            acc->khead[ci] = -1;
        }
    sqlite3_stmt *ins = NULL;
    int rc = prepare(d, "INSERT INTO kernel_tiles(run, kernel, z, tile, cells) VALUES (?1, ?2, ?3, ?4, ?5)",
                     &ins, err, errlen);
    kc *v = NULL;
    size_t cap = 0;
    vbuf b = {0};
    for (int32_t k = 0; k <= kmax && !rc; k++) {
        if (k == acc->sole) {
            rc = n0 ? store_kernel(d, id, k, v0, n0, z0, sms, ins, &b, err, errlen) : 0;
            continue;
        }
        if (!cnt[k]) continue;
        if ((size_t)cnt[k] > cap) {
            kc *nv = realloc(v, (size_t)cnt[k] * sizeof *nv);
            if (!nv) {
                seterr(err, errlen, "%s: pyramid: out of memory", d->path);
                rc = -1;
                break;
            }
            v = nv;
            cap = (size_t)cnt[k];
        }
        size_t n = 0;
        for (int32_t e = head[k]; e >= 0; e = kp_at(&acc->kp, e)->next) {
            const kent *x = kp_at(&acc->kp, e);
            v[n++] = (kc){.bin = acc->klo + x->kernel / acc->nsm, .kernel = k,
                          .sm = x->kernel % acc->nsm, .c = x->c};
        }
        rc = store_kernel(d, id, k, v, n, z0, sms, ins, &b, err, errlen);
    }
    sqlite3_finalize(ins);
    free(b.p);
    free(v);
    free(v0);
    free(head);
    free(tail);
    free(cnt);
    return rc;
}

/* ---- storing the levels ---------------------------------------------------------- */

static int step_one(db *d, const char *sql, int64_t id, sqlite3_stmt **keep, char *err,
                    size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, sql, &st, err, errlen)) return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (keep && rc == SQLITE_ROW) { *keep = st; return 0; }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE || rc == SQLITE_ROW) return 0;
    return sqlfail(d, "pyramid", err, errlen);
}

/* threads per block of each kernel of run id, by kernel id */
static int load_threads(db *d, int64_t id, int64_t **out, size_t *n, char *err, size_t errlen) {
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (prepare(d,
                "SELECT " DBI_KERNEL_ID ", threads FROM kernels WHERE " DBI_KERNELS_OF_RUN
                " ORDER BY rowid",
                &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t k = sqlite3_column_int64(st, 0);
        if (k < 0 || k > INT32_MAX) continue;
        if ((size_t)k >= cap) {
            size_t nc = cap ? cap : 64;
            while (nc <= (size_t)k) nc *= 2;
            int64_t *v = realloc(*out, nc * sizeof *v);
            if (!v) {
                sqlite3_finalize(st);
                seterr(err, errlen, "%s: pyramid: out of memory", d->path);
                return -1;
            }
            memset(v + cap, 0, (nc - cap) * sizeof *v);
            *out = v;
            cap = nc;
        }
        int64_t th = sqlite3_column_int64(st, 1);
        (*out)[k] = th > 0 ? th : 0;
        if ((size_t)k + 1 > *n) *n = (size_t)k + 1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sqlfail(d, "kernels", err, errlen);
}

typedef struct scan_ctx {
    pyr_acc *a;
    const int64_t *threads;
    size_t nk;
    /* a cohort run's cohorts (issue 28), merged in by start */
    cw_cursor *cur;
    trace_cohort next;           /* the next cohort, when have */
    bool have;
    int failed;                  /* the cursor's failure */
    char *err;
    size_t errlen;
} scan_ctx;

/* The cohorts that start by t (all: INT64_MAX) into the cells. A block
 * run places a wave at an instant before any other block (cohort.c: on an
 * idle GPU), so a cohort comes before the blocks of its start. */
static int scan_cohorts_until(scan_ctx *c, int64_t t) {
    while (c->have && c->next.start <= t) {
        int64_t k = c->next.kernel, seq;
        acc_add_cohort(c->a, &c->next, k >= 0 && (uint64_t)k < c->nk ? c->threads[k] : 0);
        acc_kbound(c->a);
        if (c->a->dead) return 1;
        int rc = cw_cursor_next(c->cur, &c->next, &seq, c->err, c->errlen);
        if (rc < 0) {
            c->failed = rc;
            return 1;
        }
        c->have = rc == 1;
    }
    return 0;
}

static int scan_block(void *ctx, const trace_block *b, int64_t seq) {
    (void)seq;
    scan_ctx *c = ctx;
    if (b->start == TRACE_NONE || b->end == TRACE_NONE) return 0;
    if (c->have && scan_cohorts_until(c, b->start)) return 1;
    int64_t k = b->kernel;
    acc_add1(c->a, b->kernel, b->sm, b->start, b->end,
             k >= 0 && (uint64_t)k < c->nk ? c->threads[k] : 0, 1);
    acc_kbound(c->a);
    return c->a->dead ? 1 : 0;
}

/* The stored blocks of run id, in their order, into a: the order
 * db_store.c fed the accumulator, so the same cells; a cohort run's
 * cohorts (issue 28) merged in by start, where a block-by-block run's
 * blocks would have come (the same cells and the same level). */
static int acc_scan(db *d, int64_t id, pyr_acc *a, bool cohorts, char *err, size_t errlen) {
    int64_t *threads;
    size_t nk;
    if (load_threads(d, id, &threads, &nk, err, errlen)) return -1;
    cw_cursor cur = {0};
    scan_ctx c = {a, threads, nk, &cur, {0}, false, 0, err, errlen};
    int rc = 0;
    if (cohorts) {
        int64_t seq;
        rc = cw_cursor_open(d, id, &cur, err, errlen);
        if (!rc) rc = cw_cursor_next(&cur, &c.next, &seq, err, errlen);
        c.have = rc == 1;
        rc = rc < 0 ? rc : 0;
    }
    if (!rc) rc = bpage_scan(d, id, scan_block, &c, err, errlen);
    if (!rc && c.have) scan_cohorts_until(&c, INT64_MAX);
    if (c.failed) rc = c.failed;
    if (cohorts) cw_cursor_close(&cur);
    free(threads);
    if (a->dead) {
        seterr(err, errlen, "%s: pyramid: out of memory", d->path);
        return -1;
    }
    return rc;
}

int dbi_pyramid_finish(db *d, int64_t id, pyr_acc *acc, char *err, size_t errlen) {
    pyr_acc *own = NULL;
    /* a cohort run (issue 28): its cohorts, which come last, read back in
     * their places among the blocks (acc_scan) */
    bool cohorts = false;
    {
        sqlite3_stmt *cs = NULL;
        if (step_one(d, "SELECT span FROM cohort_spans WHERE run = ?1", id, &cs, err, errlen))
            return -1;
        cohorts = cs != NULL;
        sqlite3_finalize(cs);
    }
    if (!acc || acc->dead || cohorts) {   /* read the stored blocks back */
        if (!(own = pyr_acc_new())) {
            seterr(err, errlen, "%s: pyramid: out of memory", d->path);
            return -1;
        }
        /* the device's SMs, as pyr_acc_add takes them from the trace: the
         * same cells whichever way the blocks came */
        sqlite3_stmt *dv = NULL;
        if (step_one(d, "SELECT sms FROM devices WHERE run = ?1 AND gpu = -1", id, &dv, err, errlen)) {
            pyr_acc_free(own);
            return -1;
        }
        if (dv) {
            int64_t n = sqlite3_column_int64(dv, 0);
            if (n > 0 && n <= ACC_MAX_SM) own->sms_hint = (int32_t)n;
            sqlite3_finalize(dv);
        }
        if (acc_scan(d, id, own, cohorts, err, errlen)) {
            pyr_acc_free(own);
            return -1;
        }
        acc = own;
    }
    int rc = -1;
    sqlite3_stmt *st = NULL, *ins = NULL;
    level l = {0};
    if (step_one(d, "DELETE FROM pyramid_tiles WHERE run = ?1", id, NULL, err, errlen) ||
        step_one(d, "DELETE FROM pyramids WHERE run = ?1", id, NULL, err, errlen) ||
        step_one(d, "DELETE FROM kernel_tiles WHERE run = ?1", id, NULL, err, errlen) ||
        step_one(d, "DELETE FROM kernel_pyramids WHERE run = ?1", id, NULL, err, errlen))
        goto out;
    int64_t nblocks = 0;
    int32_t sms = 1;
    if (step_one(d, "SELECT sms, n_blocks FROM runs WHERE id = ?1", id, &st, err, errlen)) goto out;
    if (st) {
        sms = sqlite3_column_int(st, 0);
        nblocks = sqlite3_column_int64(st, 1);
        sqlite3_finalize(st);
        st = NULL;
    }
    if (sms < 1) sms = 1;
    if (sms > ACC_MAX_SM) sms = ACC_MAX_SM;   /* a run stored before the importers' range checks */
    int z0 = 1, ztop = 0;   /* z0 > ztop: no blocks */
    if (acc->n && acc->nb) {
        /* The finest level: about as many bins per SM as the run has blocks
         * per SM (so a window of `max` blocks still has bins finer than it
         * needs), at least 256, at most PYR_MAX_CELLS cells in all; never
         * finer than what the accumulator kept. */
        int64_t target = nblocks / sms * 2;
        if (target < 256) target = 256;
        if (target > 65536) target = 65536;
        if (target > (int64_t)(PYR_MAX_CELLS / (size_t)sms)) target = (int64_t)(PYR_MAX_CELLS / (size_t)sms);
        if (target < 1) target = 1;
        int64_t hi = acc->last > acc->first ? acc->last - 1 : acc->first;
        z0 = acc->zb;
        while (z0 < PYR_MAX_Z && shr(hi, z0) - shr(acc->first, z0) + 1 > target) z0++;
        if (!acc_relayout(acc, z0, shr(acc->first, z0), shr(hi, z0) - shr(acc->first, z0) + 1, sms) ||
            (acc->multi && !acc_spans_out(acc))) {
            seterr(err, errlen, "%s: pyramid: out of memory", d->path);
            goto out;
        }
        /* the kernel cells, while the per-SM cells of z0 are there (the
         * implicit kernel's are what the others leave of them) */
        if (acc->multi && store_kernels(d, id, acc, z0, sms, err, errlen)) goto out;
        l = (level){.z = z0, .k_lo = acc->klo, .nb = acc->nb, .sms = sms, .c = acc->c};
        acc->c = NULL;   /* l's now; the kernel cells (khead, nb) stay for store_kernels */
        if (prepare(d, "INSERT INTO pyramid_tiles(run, z, tile, cells) VALUES (?1, ?2, ?3, ?4)",
                    &ins, err, errlen))
            goto out;
        for (;;) {
            if (store_level(d, id, &l, ins, err, errlen)) goto out;
            if (l.nb == 1 || l.z == PYR_MAX_Z) break;
            level up;
            if (coarsen(&l, &up)) {
                seterr(err, errlen, "%s: pyramid: out of memory", d->path);
                goto out;
            }
            free(l.c);
            l = up;
        }
        ztop = l.z;
    }
    sqlite3_finalize(st);
    if (prepare(d, "INSERT INTO kernel_pyramids(run, sole_kernel) VALUES (?1, ?2)", &st, err, errlen))
        goto out;
    sqlite3_bind_int64(st, 1, id);
    if (!acc->multi && acc->sole >= 0) sqlite3_bind_int(st, 2, acc->sole);
    if (sqlite3_step(st) != SQLITE_DONE) {
        sqlfail(d, "kernel_pyramids", err, errlen);
        goto out;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (prepare(d, "INSERT INTO pyramids(run, z0, ztop, sms, t_lo, t_hi) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                &st, err, errlen))
        goto out;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, z0);
    sqlite3_bind_int(st, 3, ztop);
    sqlite3_bind_int(st, 4, sms);
    if (z0 <= ztop) {
        sqlite3_bind_int64(st, 5, acc->first);
        sqlite3_bind_int64(st, 6, acc->last);
    }
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sqlfail(d, "pyramids", err, errlen);
out:
    sqlite3_finalize(st);
    sqlite3_finalize(ins);
    free(l.c);
    pyr_acc_free(own);
    return rc;
}

int dbi_pyramid_build(db *d, int64_t id, char *err, size_t errlen) {
    return dbi_pyramid_finish(d, id, NULL, err, errlen);
}

/* ---- reading -------------------------------------------------------------------- */

static int run_row(db *d, const char *run, pyr_run *r, bool *has, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (dbi_cached(d, DBI_Q_RUN,
                   "SELECT r.id, r.t_min, r.t_max, r.n_blocks, r.max_block_dur, r.sms, p.z0, "
                   "p.ztop, p.sms, p.t_lo, p.t_hi, r.n_kernels, k.run IS NOT NULL, k.sole_kernel, "
                   "c.span FROM runs r LEFT JOIN pyramids p ON p.run = r.id "
                   "LEFT JOIN kernel_pyramids k ON k.run = r.id "
                   "LEFT JOIN cohort_spans c ON c.run = r.id WHERE r.slug = ?1",
                   &st, err, errlen))
        return -1;
    bind_s(st, 1, run);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        memset(r, 0, sizeof *r);
        r->id = sqlite3_column_int64(st, 0);
        r->t_min = col_t(st, 1);
        r->t_max = col_t(st, 2);
        r->n_blocks = sqlite3_column_int64(st, 3);
        r->max_block_dur = sqlite3_column_int64(st, 4);
        if (r->max_block_dur < 0) r->max_block_dur = 0;
        *has = sqlite3_column_type(st, 6) != SQLITE_NULL;
        r->z0 = sqlite3_column_int(st, 6);
        r->ztop = sqlite3_column_int(st, 7);
        r->sms = *has ? sqlite3_column_int(st, 8) : 1;
        r->t_lo = sqlite3_column_int64(st, 9);
        r->t_hi = sqlite3_column_int64(st, 10);
        r->n_kernels = sqlite3_column_int64(st, 11);
        r->kpyr = *has && sqlite3_column_int(st, 12);
        r->ksole = sqlite3_column_type(st, 13) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 13);
        r->cspan = sqlite3_column_type(st, 14) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 14);
        if (r->cspan < -1) r->cspan = 0;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc == SQLITE_DONE) {
        seterr(err, errlen, "%s: no run named \"%s\"", d->path, run);
        return DB_NOT_FOUND;
    }
    return rc == SQLITE_ROW ? 0 : sqlfail(d, "runs", err, errlen);
}

/* The run's row (dbi_build_once's look): there when its pyramid is, and
 * its per-kernel pyramid too when `kernels`. */
typedef struct pyr_look {
    const char *run;
    pyr_run *out;
    bool kernels;
} pyr_look;

static int look_pyramid(db *d, void *ctx, bool *has, char *err, size_t errlen) {
    pyr_look *l = ctx;
    bool row = false;
    int rc = run_row(d, l->run, l->out, &row, err, errlen);
    *has = row && (!l->kernels || l->out->kpyr);
    return rc;
}

static int build_pyramid(db *d, void *ctx, char *err, size_t errlen) {
    return dbi_pyramid_build(d, ((pyr_look *)ctx)->out->id, err, errlen);
}

/* the tables its build writes (dbi_build_once) */
static const char *const pyr_tables[] = {"pyramids", "pyramid_tiles", "kernel_pyramids",
                                         "kernel_tiles", NULL};

/* A run stored before pyramids gets its pyramid on the first read, once. */
static int pyramid_run(db *d, const char *run, pyr_run *out, bool kernels, char *err,
                       size_t errlen) {
    pyr_look l = { run, out, kernels };
    return dbi_build_once(d, "pyramid_build", pyr_tables, look_pyramid, build_pyramid, &l, err,
                          errlen);
}

int db_pyramid_run(db *d, const char *run, pyr_run *out, char *err, size_t errlen) {
    return pyramid_run(d, run, out, false, err, errlen);
}

int db_pyramid_run_k(db *d, const char *run, pyr_run *out, char *err, size_t errlen) {
    return pyramid_run(d, run, out, true, err, errlen);
}

static bool ks_has(const pyr_kset *ks, int64_t k) {
    bool in = k >= 0 && k < ks->nbits && (ks->bits[k >> 3] >> (k & 7) & 1);
    return in != ks->negate;
}

/* Adds stored cells of level z (z0 <= z <= ztop) with bins in [k0, k1) into
 * out; map_z > z sums them into bins of level map_z instead (levels above
 * ztop), where `live` is the left-most stored bin's. */
static int read_level(db *d, const pyr_run *r, int z, int64_t k0, int64_t k1, int map_z,
                      int64_t m0, int64_t m1, int64_t kernel, pyr_cell *out, char *err,
                      size_t errlen) {
    sqlite3_stmt *st = NULL;
    bool ks = kernel >= 0;   /* one kernel's tiles (kpyramid.sql), not the per-SM ones */
    if (ks ? dbi_cached(d, DBI_Q_KTILES,
                        "SELECT tile, cells FROM kernel_tiles WHERE run = ?1 AND kernel = ?5 AND "
                        "z = ?2 AND tile >= ?3 AND tile <= ?4 ORDER BY tile",
                        &st, err, errlen)
           : dbi_cached(d, DBI_Q_TILES,
                        "SELECT tile, cells FROM pyramid_tiles WHERE run = ?1 AND z = ?2 AND "
                        "tile >= ?3 AND tile <= ?4 ORDER BY tile",
                        &st, err, errlen))
        return -1;
    if (ks) sqlite3_bind_int64(st, 5, kernel);
    sqlite3_bind_int64(st, 1, r->id);
    sqlite3_bind_int(st, 2, z);
    sqlite3_bind_int64(st, 3, bin_of(k0, 6));
    sqlite3_bind_int64(st, 4, bin_of(k1 - 1, 6));
    int rc;
    bool bad = false;
    while (!bad && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t first = sqlite3_column_int64(st, 0) * PYR_TILE_BINS;
        const unsigned char *p = sqlite3_column_blob(st, 1);
        const unsigned char *end = p + sqlite3_column_bytes(st, 1);
        int64_t pos = -1;
        while (p && p < end) {
            uint64_t gap, v[4];
            if (!vi_get(&p, end, &gap) || !vi_get(&p, end, &v[0]) || !vi_get(&p, end, &v[1]) ||
                !vi_get(&p, end, &v[2]) || !vi_get(&p, end, &v[3]) ||
                gap > (uint64_t)PYR_TILE_BINS * (uint64_t)r->sms) {
                bad = true;
                break;
            }
            pos += (int64_t)gap + 1;
            int64_t k = first + pos / r->sms;
            int32_t sm = (int32_t)(pos % r->sms);
            if (k >= k1) break;   /* cells are in bin order */
            if (k < k0) continue;
            int64_t i = k - k0;
            bool live = true;
            if (map_z > z) {
                int64_t m = bin_of(k, map_z - z);
                if (m < m0 || m >= m1) continue;
                live = bin_start(m, map_z) == bin_start(k, z);
                i = m - m0;
            }
            pyr_cell *c = &out[(size_t)i * (size_t)r->sms + (size_t)sm];
            c->thr += (int64_t)v[0];
            c->blk += (int64_t)v[1];
            c->starts += (int64_t)v[2];
            if (live) c->live += (int64_t)v[3];
        }
    }
    sqlite3_reset(st);
    if (bad) {
        seterr(err, errlen, "%s: %s: run %lld level %d: a malformed tile", d->path,
               ks ? "kernel_tiles" : "pyramid_tiles", (long long)r->id, z);
        return -1;
    }
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0
                                                 : sqlfail(d, ks ? "kernel_tiles" : "pyramid_tiles", err, errlen);
}

static int cells_k(db *d, const pyr_run *r, int z, int64_t k0, int64_t k1, const pyr_kset *ks,
                   pyr_cell *out, char *err, size_t errlen);

/* Adds the cells of bins [k0, k1) of level z of the kernels of ks into out:
 * per kernel, from the stored level at or below z (kernel tiles are stored
 * every KLEVEL_STEP levels and at the kernel's top), its bins summed into
 * level z's. One kernel after another: the set read is the smaller of the
 * shown and the hidden kernels (db_pyramid_bins_k). */
static int read_kernels(db *d, const pyr_run *r, int z, int64_t k0, int64_t k1,
                        const pyr_kset *ks, pyr_cell *out, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (dbi_cached(d, DBI_Q_KLEVEL,
                   "SELECT z FROM kernel_tiles WHERE run = ?1 AND kernel = ?2 AND z <= ?3 "
                   "ORDER BY z DESC LIMIT 1",
                   &st, err, errlen))
        return -1;
    if (r->ksole >= 0)   /* one kernel's blocks: the per-SM cells are its */
        return ks_has(ks, r->ksole) ? cells_k(d, r, z, k0, k1, NULL, out, err, errlen) : 0;
    int64_t n = ks->nbits > r->n_kernels ? ks->nbits : r->n_kernels;
    for (int64_t k = 0; k < n; k++) {
        if (!ks_has(ks, k)) continue;
        sqlite3_bind_int64(st, 1, r->id);
        sqlite3_bind_int64(st, 2, k);
        sqlite3_bind_int(st, 3, z);
        int rc = sqlite3_step(st);
        int zs = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
        sqlite3_reset(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sqlfail(d, "kernel_tiles", err, errlen);
        if (zs < 0) continue;   /* no cells: no counted blocks */
        int64_t w = (int64_t)1 << (z - zs);   /* bins of zs per bin of z */
        if (read_level(d, r, zs, k0 * w, k1 * w, z, k0, k1, k, out, err, errlen)) return -1;
    }
    return 0;
}

static int cells_k(db *d, const pyr_run *r, int z, int64_t k0, int64_t k1, const pyr_kset *ks,
                   pyr_cell *out, char *err, size_t errlen) {
    if (z > PYR_MAX_Z || k1 <= k0 || k1 - k0 > ((int64_t)1 << 24) ||
        (r->z0 <= r->ztop && z < r->z0)) {
        seterr(err, errlen, "pyramid: level %d bins [%lld, %lld): out of range (levels %d..%d)",
               z, (long long)k0, (long long)k1, r->z0, PYR_MAX_Z);
        return -1;
    }
    if (r->z0 > r->ztop) return 0;   /* no blocks */
    if (ks) return read_kernels(d, r, z, k0, k1, ks, out, err, errlen);
    if (z <= r->ztop) return read_level(d, r, z, k0, k1, z, k0, k1, -1, out, err, errlen);
    /* above ztop: the stored top level's bins, summed */
    return read_level(d, r, r->ztop, INT64_MIN / 2, INT64_MAX / 2, z, k0, k1, -1, out, err, errlen);
}

int db_pyramid_cells(db *d, const pyr_run *r, int z, int64_t k0, int64_t k1, pyr_cell *out,
                     char *err, size_t errlen) {
    return cells_k(d, r, z, k0, k1, NULL, out, err, errlen);
}

int db_pyramid_cells_k(db *d, const pyr_run *r, int z, int64_t k0, int64_t k1,
                       const pyr_kset *ks, pyr_cell *out, char *err, size_t errlen) {
    if (!r->kpyr) {
        seterr(err, errlen, "pyramid: run %lld has no kernel pyramid (db_pyramid_run_k)",
               (long long)r->id);
        return -1;
    }
    return cells_k(d, r, z, k0, k1, ks, out, err, errlen);
}

/* raw_range's sums; a kernel's threads are looked up once per run of
 * blocks of the same kernel through a small direct-mapped memo */
#define FRAG_MEMO 256

typedef struct frag {
    db *d;
    const pyr_run *r;
    int64_t lo, hi;
    const pyr_kset *ks;      /* NULL: every kernel */
    pyr_cell *out;
    int64_t memo_k[FRAG_MEMO], memo_th[FRAG_MEMO];
    char *err;
    size_t errlen;
} frag;

/* threads of kernel k of the run (0: no such kernel, as the old LEFT JOIN) */
static int frag_threads(frag *f, int64_t k, int64_t *th) {
    size_t slot = (size_t)((uint64_t)k % FRAG_MEMO);
    if (f->memo_k[slot] == k) {
        *th = f->memo_th[slot];
        return 0;
    }
    sqlite3_stmt *st;
    /* kernel ?2 of run ?1: row kernel_base + ?2, if ?2 < n_kernels */
    if (dbi_cached(f->d, DBI_Q_FRAGMENT,
                   "SELECT threads FROM kernels WHERE rowid = (SELECT kernel_base + ?2 FROM runs "
                   "WHERE id = ?1 AND ?2 >= 0 AND ?2 < n_kernels)",
                   &st, f->err, f->errlen))
        return -1;
    sqlite3_bind_int64(st, 1, f->r->id);
    sqlite3_bind_int64(st, 2, k);
    int rc = sqlite3_step(st);
    *th = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sqlfail(f->d, "kernels", f->err, f->errlen);
    f->memo_k[slot] = k;
    f->memo_th[slot] = *th;
    return 0;
}

static int frag_block(void *ctx, const trace_block *b, int64_t seq) {
    (void)seq;
    frag *f = ctx;
    int32_t sm = b->sm;
    if (sm < 0 || sm >= f->r->sms || (f->ks && !ks_has(f->ks, b->kernel))) return 0;
    int64_t s = b->start, e = b->end, lo = f->lo, hi = f->hi;
    int64_t ov = (e < hi ? e : hi) - (s > lo ? s : lo);
    if (ov <= 0) return 0;
    int64_t th;
    if (frag_threads(f, b->kernel, &th)) return -1;
    if (th < 0) th = 0;
    f->out[sm].blk += ov;
    f->out[sm].thr += ov * th;
    return 0;
}

/* frag_block of every block of a cohort (issue 28), in closed form */
static int frag_cohort(void *ctx, const trace_cohort *c, int64_t seq) {
    (void)seq;
    frag *f = ctx;
    if (c->sm < 0 || c->sm >= f->r->sms || (f->ks && !ks_has(f->ks, c->kernel))) return 0;
    int64_t ov = cw_block_ns(c, f->lo, f->hi), th;
    if (ov <= 0) return 0;
    if (frag_threads(f, c->kernel, &th)) return -1;
    if (th < 0) th = 0;
    f->out[c->sm].blk += ov;
    f->out[c->sm].thr += ov * th;
    return 0;
}

/* out[sm] += the blocks' integrals over [lo, hi), read from the blocks */
static int raw_range(db *d, const pyr_run *r, int64_t lo, int64_t hi, const pyr_kset *ks,
                     pyr_cell *out, char *err, size_t errlen) {
    frag *f = malloc(sizeof *f);
    if (!f) {
        seterr(err, errlen, "%s: pyramid: out of memory", d->path);
        return -1;
    }
    *f = (frag){.d = d, .r = r, .lo = lo, .hi = hi, .ks = ks, .out = out, .err = err,
                .errlen = errlen};
    /* a kernel id that is never a slot's: INT64_MIN % FRAG_MEMO is slot 0,
     * and no kernel (an int32) is INT64_MIN */
    for (size_t i = 0; i < FRAG_MEMO; i++) f->memo_k[i] = INT64_MIN;
    int rc = bpage_window(d, r->id,
                          lo < INT64_MIN + r->max_block_dur ? INT64_MIN : lo - r->max_block_dur,
                          hi, lo, false, -1, frag_block, f, err, errlen);
    if (!rc) rc = db_window_cohorts(d, r, lo, hi, frag_cohort, f, err, errlen);
    free(f);
    return rc;
}

/* out[sm] += the cells of [a, b) (multiples of 2^z0) in the fewest aligned
 * bins: from a, each step the coarsest bin that starts there and fits. */
static int dyadic(db *d, const pyr_run *r, int64_t a, int64_t b, const pyr_kset *ks,
                  pyr_cell *out, char *err, size_t errlen) {
    pyr_cell *one = calloc((size_t)r->sms, sizeof *one);
    if (!one) {
        seterr(err, errlen, "pyramid: out of memory");
        return -1;
    }
    int rc = 0;
    while (a < b && !rc) {
        int z = r->z0;
        while (z + 1 <= PYR_MAX_Z && bin_start(bin_of(a, z + 1), z + 1) == a &&
               b - a >= ((int64_t)1 << (z + 1)))
            z++;
        memset(one, 0, (size_t)r->sms * sizeof *one);
        int64_t k = bin_of(a, z);
        rc = cells_k(d, r, z, k, k + 1, ks, one, err, errlen);
        for (int32_t sm = 0; sm < r->sms && !rc; sm++) {
            out[sm].thr += one[sm].thr;
            out[sm].blk += one[sm].blk;
            out[sm].starts += one[sm].starts;
        }
        a += (int64_t)1 << z;
    }
    free(one);
    return rc;
}

/* out[sm] += the cells of [a, b) (multiples of 2^z0): up to a few tiles'
 * worth, bins of level z0 read in one range (one tile decoded, not one per
 * level); longer spans in dyadic bins. */
static int aligned(db *d, const pyr_run *r, int64_t a, int64_t b, const pyr_kset *ks,
                   pyr_cell *out, char *err, size_t errlen) {
    int64_t n = (b - a) >> r->z0;
    if (n > 4 * PYR_TILE_BINS) return dyadic(d, r, a, b, ks, out, err, errlen);
    pyr_cell *c = calloc((size_t)n * (size_t)r->sms, sizeof *c);
    if (!c) {
        seterr(err, errlen, "pyramid: out of memory");
        return -1;
    }
    int rc = ks ? read_kernels(d, r, r->z0, bin_of(a, r->z0), bin_of(b, r->z0), ks, c, err, errlen)
                : read_level(d, r, r->z0, bin_of(a, r->z0), bin_of(b, r->z0), r->z0, 0, 0, -1, c, err,
                             errlen);
    for (int64_t i = 0; i < n && !rc; i++)
        for (int32_t sm = 0; sm < r->sms; sm++) {
            const pyr_cell *x = &c[(size_t)i * (size_t)r->sms + (size_t)sm];
            out[sm].thr += x->thr;
            out[sm].blk += x->blk;
            out[sm].starts += x->starts;
        }
    free(c);
    return rc;
}

static int range_k(db *d, const pyr_run *r, int64_t lo, int64_t hi, const pyr_kset *ks,
                   pyr_cell *out, char *err, size_t errlen) {
    if (r->z0 > r->ztop) return 0;
    /* nothing lies outside the blocks' extent */
    if (lo < r->t_lo) lo = r->t_lo;
    if (hi > r->t_hi) hi = r->t_hi;
    if (hi <= lo) return 0;
    int64_t a = bin_start(bin_of(lo, r->z0), r->z0), b = bin_start(bin_of(hi, r->z0), r->z0);
    if (a < lo) a += (int64_t)1 << r->z0;
    if (a >= b) return raw_range(d, r, lo, hi, ks, out, err, errlen);
    pyr_cell *mid = calloc((size_t)r->sms, sizeof *mid);
    if (!mid) {
        seterr(err, errlen, "pyramid: out of memory");
        return -1;
    }
    int rc = (lo < a ? raw_range(d, r, lo, a, ks, out, err, errlen) : 0);
    if (!rc) rc = aligned(d, r, a, b, ks, mid, err, errlen);
    if (!rc && b < hi) rc = raw_range(d, r, b, hi, ks, out, err, errlen);
    for (int32_t sm = 0; sm < r->sms && !rc; sm++) {
        out[sm].thr += mid[sm].thr;
        out[sm].blk += mid[sm].blk;
    }
    free(mid);
    return rc;
}

int db_pyramid_range(db *d, const pyr_run *r, int64_t lo, int64_t hi, pyr_cell *out, char *err,
                     size_t errlen) {
    return range_k(d, r, lo, hi, NULL, out, err, errlen);
}

int db_pyramid_starts_within(db *d, const pyr_run *r, int64_t from, int64_t to, int64_t *n,
                             char *err, size_t errlen) {
    *n = 0;
    if (r->z0 > r->ztop || to <= from) return 0;
    int64_t a = bin_start(bin_of(from, r->z0) + 1, r->z0), b = bin_start(bin_of(to, r->z0), r->z0);
    if (a >= b) return 0;
    pyr_cell *c = calloc((size_t)r->sms, sizeof *c);
    if (!c) {
        seterr(err, errlen, "pyramid: out of memory");
        return -1;
    }
    int rc = aligned(d, r, a, b, NULL, c, err, errlen);
    for (int32_t sm = 0; sm < r->sms; sm++) *n += c[sm].starts;
    free(c);
    return rc;
}

static int bins_k(db *d, const pyr_run *r, int64_t from, int64_t to, int64_t want,
                  const pyr_kset *ks, pyr_bins *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (to <= from || want < 1) {
        seterr(err, errlen, "bins: need from < to and at least one bin");
        return -1;
    }
    /* the coarsest of z0 and the level whose bins are at least span / want */
    uint64_t span = (uint64_t)to - (uint64_t)from;
    uint64_t need = span / (uint64_t)want + (span % (uint64_t)want != 0);
    int z = r->z0 <= r->ztop ? r->z0 : 0;
    while (z < PYR_MAX_Z && ((uint64_t)1 << z) < need) z++;
    int64_t k0 = bin_of(from, z), k1 = bin_of(to - 1, z) + 1;
    if (k1 - k0 > ((int64_t)1 << 24)) {
        seterr(err, errlen, "bins: %lld bins of level %d are too many", (long long)(k1 - k0), z);
        return -1;
    }
    out->z = z;
    out->bin_ns = (int64_t)1 << z;
    out->k0 = k0;
    out->nbins = (size_t)(k1 - k0);
    out->sms = r->sms;
    out->cells = calloc(out->nbins * (size_t)r->sms, sizeof *out->cells);
    pyr_cell *cut = calloc((size_t)r->sms, sizeof *cut);
    int rc = -1;
    if (!out->cells || !cut) {
        seterr(err, errlen, "bins: out of memory for %zu bins", out->nbins * (size_t)r->sms);
        goto out;
    }
    if (cells_k(d, r, z, k0, k1, ks, out->cells, err, errlen)) goto out;
    for (int32_t sm = 0; sm < r->sms; sm++) out->total += out->cells[sm].live;
    for (size_t i = 0; i < out->nbins * (size_t)r->sms; i++) out->total += out->cells[i].starts;
    /* the first and last bins cut to [from, to): take away what lies outside */
    for (int side = 0; side < 2; side++) {
        int64_t lo = side ? to : bin_start(k0, z), hi = side ? bin_start(k1, z) : from;
        if (lo >= hi) continue;
        memset(cut, 0, (size_t)r->sms * sizeof *cut);
        if (range_k(d, r, lo, hi, ks, cut, err, errlen)) goto out;
        pyr_cell *bin = &out->cells[(side ? out->nbins - 1 : 0) * (size_t)r->sms];
        for (int32_t sm = 0; sm < r->sms; sm++) {
            bin[sm].thr -= cut[sm].thr;
            bin[sm].blk -= cut[sm].blk;
        }
    }
    rc = 0;
out:
    free(cut);
    if (rc) pyr_bins_free(out);
    return rc;
}

int db_pyramid_bins(db *d, const pyr_run *r, int64_t from, int64_t to, int64_t want,
                    pyr_bins *out, char *err, size_t errlen) {
    return bins_k(d, r, from, to, want, NULL, out, err, errlen);
}

int db_pyramid_bins_k(db *d, const pyr_run *r, int64_t from, int64_t to, int64_t want,
                      const uint8_t *bits, int64_t nbits, pyr_bins *out, char *err,
                      size_t errlen) {
    memset(out, 0, sizeof *out);
    if (!r->kpyr) {
        seterr(err, errlen, "pyramid: run %lld has no kernel pyramid (db_pyramid_run_k)",
               (long long)r->id);
        return -1;
    }
    int64_t in = 0;
    for (int64_t k = 0; k < nbits; k++) in += bits[k >> 3] >> (k & 7) & 1;
    /* Few kernels shown: their cells. Most shown (a few hidden, the
     * legend's usual case): the per-SM cells minus the hidden kernels'
     * (kernels past nbits are hidden too). Integers, so both are exact; the
     * second reads the hidden kernels' cells only. */
    if (2 * in <= r->n_kernels) {
        pyr_kset ks = {bits, nbits, false};
        return bins_k(d, r, from, to, want, &ks, out, err, errlen);
    }
    pyr_kset hidden = {bits, nbits, true};
    pyr_bins h;
    if (bins_k(d, r, from, to, want, NULL, out, err, errlen)) return -1;
    if (bins_k(d, r, from, to, want, &hidden, &h, err, errlen)) {
        pyr_bins_free(out);
        return -1;
    }
    /* the same level and bins: both chose them from (from, to, want, z0) */
    for (size_t i = 0; i < out->nbins * (size_t)out->sms; i++) {
        out->cells[i].thr -= h.cells[i].thr;
        out->cells[i].blk -= h.cells[i].blk;
        out->cells[i].starts -= h.cells[i].starts;
        out->cells[i].live -= h.cells[i].live;
    }
    out->total -= h.total;
    pyr_bins_free(&h);
    return 0;
}

void pyr_bins_free(pyr_bins *b) {
    free(b->cells);
    b->cells = NULL;
    b->nbins = 0;
}

/* ---- window reads by run ------------------------------------------------------- */

typedef struct counted_cb {
    db_block_cb cb;
    void *ctx;
    int64_t *n;
} counted_cb;

static int counted_block(void *ctx, const trace_block *b, int64_t seq) {
    (void)seq;
    counted_cb *c = ctx;
    (*c->n)++;
    return c->cb(c->ctx, b);
}

int db_window_blocks(db *d, const pyr_run *r, int64_t from, int64_t to, int64_t limit,
                     db_block_cb cb, void *ctx, int64_t *n, char *err, size_t errlen) {
    *n = 0;
    /* db_blocks_window with a limit: the caller asks for one block more
     * than it will show, which tells whether the window overflows without a
     * second scan to count it */
    counted_cb c = {cb, ctx, n};
    return bpage_window(d, r->id,
                        from < INT64_MIN + r->max_block_dur ? INT64_MIN : from - r->max_block_dur,
                        to, from, true, limit, counted_block, &c, err, errlen);
}

int db_run_has_pauses(db *d, const pyr_run *r, bool *has, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (dbi_cached(d, DBI_Q_HAS_PAUSES, "SELECT 1 FROM pauses WHERE run = ?1 LIMIT 1", &st, err,
                   errlen))
        return -1;
    sqlite3_bind_int64(st, 1, r->id);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    *has = rc == SQLITE_ROW;
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sqlfail(d, "pauses", err, errlen);
}
