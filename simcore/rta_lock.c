/* rta_lock.c -- FMLP+ and MPCP response-time bounds for GPU segments as
 * critical sections of one global lock. See rta_lock.h.
 *
 * The GCAPS paper (ECRTS 2024, §7.1) compares against these two protocols
 * without printing their analyses; its Fig. 8 curves come from the released
 * analysis/fmlp.py and analysis/mpcp.py (rtenlab/gcaps-super-repo). What
 * they compute, restated (L1-L9 are cited at the lines that do it):
 *
 *   R_i = C_i + G_i + B_i(R_i) + sum_{h in hpp(i)} ceil((R_i + J_h)/T_h) W_h
 *
 * with the same-core preemption term of Lemma 5/7's shape: W_h = C_h + G_h,
 * J_h = R_h - W_h busy-waiting (the core is held through the segment);
 * W_h = C_h + G^m_h, J_h = R_h - W_h self-suspending (L1). B_i is the
 * protocol's blocking:
 *   FMLP+ (Brandenburg 2014, suspension-aware, holder boosted): remote
 *          blocking by the FIFO queue (L2) and local blocking by boosted
 *          lower-priority holders of τ_i's core (L3);
 *   MPCP   (Patel et al. RTAS 2018, hybrid): prioritised blocking by
 *          ceiling-boosted G^m of τ_i's core (L6) and direct blocking by
 *          higher (L7) and lower (L8) priority requests, each request's
 *          length the segment plus one of every task above its owner (L5).
 *
 * Best-effort tasks are lower than every real-time one (the released code
 * gives them priority -1 and compares numerically), so they block under
 * both protocols (the paper: BE tasks "add blocking for MPCP/FMLP+"). Both
 * semantics compute the same bounds except the deadline: the printed one
 * tests R_i against D_i, the released code against T_i (there is no printed
 * text to differ from), and except K6 (corrected only, at L6), K8
 * (corrected only, at seg()) and K9 (corrected only, at L3). Times are
 * integer ns; the released code's ms floats
 * agree except at exact ties. */
#include "rta_lock.h"
#include "rta_arith.h"

#define MS INT64_C(1000000)

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

typedef struct ltask {
    int64_t T, D, C, Gm, G;
    int64_t N;          /* η^g: requests per job */
    int64_t L;          /* the longest request (a whole segment, G^m + G^e) */
    int64_t hpmax;      /* sum of L_h over real-time tasks above (L5) */
    const int64_t *misc, *exec;
    int64_t theta;      /* K8: θ per request, corrected only (else 0) */
    int32_t cpu, prio;
    bool rt;
} ltask;

typedef struct lctx {
    ltask d[RTA_MAX_TASKS];
    size_t ord[RTA_MAX_TASKS];      /* the released code's list: RT by priority, then BE */
    int32_t rank[RTA_MAX_TASKS];    /* position in that list */
    size_t n, nrt;
    int32_t cpus;
    int64_t R[RTA_MAX_TASKS];
    bool busy;
    bool corrected;   /* RTA_CORRECTED: K6 below */
} lctx;

/* h strictly above x: real-time, and x best-effort or of lower priority */
static bool above(const lctx *c, size_t h, size_t x) {
    return c->d[h].rt && (!c->d[x].rt || c->d[h].prio > c->d[x].prio);
}

/* A request's length: its segment, G^m + G^e, and under RTA_CORRECTED the
 * TSG switch into the holder's context, θ (K8, issue 27: the GPU still
 * switches contexts when the lock changes hands, and this is what the GCAPS
 * paper, §3, says the lock-based analyses overlook; the simulator's lock
 * drivers pay it, tsg.c; the released code charges none). One switch per
 * request: while the lock is held no other context has GPU work, so the
 * holder's context is never switched out before its segment is done. */
static int64_t seg(const ltask *t, int64_t k) {
    return rta_sat_add(rta_sat_add(t->misc[k], t->exec[k]), t->theta);
}

/* L5 (mpcp.py mpcp_W_ges, Lakshmanan 2009): a request of τ_x waits at most
 * for one request of every task above τ_x, then runs its own segment. */
static int64_t wges(const ltask *t, int64_t k) { return rta_sat_add(seg(t, k), t->hpmax); }

/* L1: same-core higher-priority tasks, as release-jitter terms. */
static int64_t preempt(const lctx *c, size_t i, int64_t r, int64_t *work) {
    int64_t s = 0;
    for (size_t k = 0; k < c->nrt; k++) {
        size_t h = c->ord[k];
        if (h == i || c->d[h].cpu != c->d[i].cpu || c->d[h].prio <= c->d[i].prio)
            continue;
        const ltask *o = &c->d[h];
        int64_t w = c->busy ? rta_sat_add(o->C, o->G) : rta_sat_add(o->C, o->Gm);
        s = rta_sat_add(s, rta_sat_mul(rta_ceil_div(rta_sat_add(r, c->R[h] - w), o->T), w));
        (*work)++;
    }
    return s;
}

/* FMLP+: fmlp_tif's count, the requests τ_x issues in a window of W plus
 * one period of carry-in: N_x ceil((W + T_x) / T_x). */
static int64_t fmlp_count(const ltask *x, int64_t w) {
    return rta_sat_mul(x->N, rta_ceil_div(rta_sat_add(w, x->T), x->T));
}

static int64_t fmlp_blocking(const lctx *c, size_t i, int64_t w, int64_t *work) {
    const ltask *me = &c->d[i];
    int64_t b = 0;
    /* L2 (fmlp.py fmlp_B_r): remote blocking. Each of τ_i's N_i requests
     * waits in the FIFO queue behind at most one request of every other
     * core's queue position: per remote core, at most min(N_i, db) of each
     * task's longest request, db being the requests that core can put in
     * the window (at most N_i per task). */
    int64_t remote_req = 0;   /* L3's z_i before the min with N_i */
    for (int32_t cpu = 0; cpu < c->cpus; cpu++) {
        if (cpu == me->cpu)
            continue;
        int64_t db = 0;
        for (size_t x = 0; x < c->n; x++)
            if (c->d[x].cpu == cpu)
                db = rta_sat_add(db, min64(me->N, fmlp_count(&c->d[x], w)));
        remote_req = rta_sat_add(remote_req, db);
        int64_t l = min64(db, me->N);
        for (size_t x = 0; x < c->n; x++)
            if (c->d[x].cpu == cpu) {
                b = rta_sat_add(b, rta_sat_mul(min64(l, fmlp_count(&c->d[x], w)), c->d[x].L));
                (*work)++;
            }
    }
    /* L3 (fmlp_B_l): local blocking. A lower-priority task of τ_i's core
     * (best-effort ones included) boosted while holding the GPU can run
     * once at job release and once per remote request τ_i waits behind:
     * 1 + z_i of its longest requests, z_i = min(N_i, remote requests). */
    int64_t z = min64(me->N, remote_req);
    for (size_t x = 0; x < c->n; x++) {
        if (x == i || c->d[x].cpu != me->cpu || c->d[x].N == 0)
            continue;
        if (!above(c, x, i)) {
            b = rta_sat_add(b, rta_sat_mul(min64(1 + z, fmlp_count(&c->d[x], w)), c->d[x].L));
        } else if (c->corrected && !c->busy) {
            /* K9 (issue 27, corrected only): a higher-priority task of τ_i's
             * own core is in the FIFO queue too. Self-suspending, it holds
             * the lock while its GPU work runs and the core is τ_i's, so a
             * request of τ_i queued behind it waits its whole request, which
             * the preemption term (C_h + G^m_h, L1) does not charge and the
             * remote term (other cores only, L2) does not either. FIFO: at
             * most one of its requests is ahead of each of τ_i's, so
             * min(N_i, its requests in the window) of its longest. Busy-
             * waiting, it keeps its core while it holds the lock: that is
             * L1's C_h + G_h already. */
            b = rta_sat_add(b, rta_sat_mul(min64(me->N, fmlp_count(&c->d[x], w)), c->d[x].L));
        }
        (*work)++;
    }
    return b;
}

/* L7's direct-blocking bound of one request (mpcp.py
 * mpcp_direct_blocking_segment, Lakshmanan 2009 Eq. 5): the longest
 * request of τ_i or a task below it, plus the requests of every
 * higher-priority task arriving meanwhile (one more for carry-in). Only
 * N_i ceil(B / 1 ms) enters L7 (the released code sums ceil() of this time
 * in ms against a job count, alpha); past cap it no longer matters, which
 * also ends a divergent iteration. */
static int64_t mpcp_beta(const lctx *c, size_t i, int64_t cap, int64_t *work) {
    const ltask *me = &c->d[i];
    if (me->N == 0)
        return 0;
    int64_t maxw = 0;
    for (size_t l = 0; l < c->n; l++)
        if (l == i || !above(c, l, i))
            for (int64_t u = 0; u < c->d[l].N; u++) {
                int64_t v = wges(&c->d[l], u);
                if (v > maxw)
                    maxw = v;
            }
    int64_t b = 0;
    for (;;) {
        int64_t next = maxw;
        for (size_t k = 0; k < c->nrt; k++) {
            size_t h = c->ord[k];
            if (!above(c, h, i))
                continue;
            const ltask *o = &c->d[h];
            int64_t jobs = rta_ceil_div(rta_sat_add(b, c->R[h] - o->C - o->Gm), o->T) + 1;
            for (int64_t u = 0; u < o->N; u++)
                next = rta_sat_add(next, rta_sat_mul(jobs, wges(o, u)));
            (*work)++;
        }
        int64_t beta = rta_sat_mul(me->N, rta_ceil_div(next, MS));
        if (next == b || beta >= cap || *work > RTA_MAX_WORK)
            return min64(beta, cap);
        b = next;
    }
}

static int64_t mpcp_blocking(const lctx *c, size_t i, int64_t w, int64_t beta, int64_t *work) {
    const ltask *me = &c->d[i];
    int64_t b = 0;
    /* L7 (mpcp_hybrid_B_dmh): each request of a higher-priority task τ_h
     * (any core) blocks τ_i at most min(beta_i, alpha_h) times, alpha_h the
     * jobs of τ_h in the window with jitter R_h - (C_h + G^m_h). */
    for (size_t k = 0; k < c->nrt; k++) {
        size_t h = c->ord[k];
        if (!above(c, h, i) || beta == 0)
            continue;
        const ltask *o = &c->d[h];
        int64_t alpha = rta_ceil_div(rta_sat_add(w, c->R[h] - o->C - o->Gm), o->T);
        int64_t times = min64(beta, alpha);
        for (int64_t u = 0; u < o->N; u++)
            b = rta_sat_add(b, rta_sat_mul(times, wges(o, u)));
        (*work)++;
    }
    /* L8 (mpcp_hybrid_B_dml): the lower-priority requests, longest first
     * (ties in the released code's list order: its sort is stable), each
     * task's ones at most theta_l = ceil((W + T_l - C_l - G^m_l)/T_l)
     * times, N_i of them in all. Picked one by one: N_i is small. */
    int64_t left = me->N, pv = INT64_MAX, pr = -1;
    while (left > 0) {
        int64_t bv = -1, br = 0;
        size_t bl = 0;
        for (size_t l = 0; l < c->n; l++) {
            if (l == i || above(c, l, i))
                continue;
            for (int64_t u = 0; u < c->d[l].N; u++) {
                int64_t v = wges(&c->d[l], u), rk = (int64_t)c->rank[l] * RTA_MAX_SEGMENTS + u;
                bool after = v < pv || (v == pv && rk > pr);
                if (after && (v > bv || (v == bv && rk < br))) {
                    bv = v;
                    br = rk;
                    bl = l;
                }
            }
        }
        if (bv < 0)
            break;
        pv = bv;
        pr = br;
        const ltask *o = &c->d[bl];
        int64_t theta = rta_ceil_div(rta_sat_add(w, o->T - o->C - o->Gm), o->T);
        int64_t psi = min64(left, theta);
        left -= psi;
        b = rta_sat_add(b, rta_sat_mul(psi, bv));
        (*work)++;
    }
    /* L6 (mpcp_hybrid_B_pm): prioritised blocking. On τ_i's core, τ_i's own
     * and every lower task's (best-effort ones included) ceiling-boosted
     * G^m, longest first, at most N_i + 1 per task and theta_l per
     * segment. */
    for (size_t l = 0; l < c->n; l++) {
        const ltask *o = &c->d[l];
        if (o->cpu != me->cpu || (l != i && above(c, l, i)))
            continue;
        int64_t theta = rta_ceil_div(rta_sat_add(w, o->T - o->C - o->Gm), o->T);
        int64_t sm[RTA_MAX_SEGMENTS];
        for (int64_t j = 0; j < o->N; j++) {   /* G^m, decreasing */
            /* K6 (issue 27, corrected only): busy-waiting, the holder at
             * the ceiling spins through its whole segment, so the core is
             * lost for G^m + G^e, not G^m (the released code charges G^m;
             * the simulator broke it on 16 of 18 bounded tasks). */
            int64_t v = c->busy && c->corrected ? seg(o, j) : o->misc[j];
            int64_t q = j;
            while (q > 0 && sm[q - 1] < v) {
                sm[q] = sm[q - 1];
                q--;
            }
            sm[q] = v;
        }
        int64_t used = 0;
        for (int64_t k = 0; k < o->N; k++) {
            int64_t phi = min64(me->N + 1 - used, theta);
            if (phi < 0)
                phi = 0;
            used += phi;
            b = rta_sat_add(b, rta_sat_mul(phi, sm[k]));
        }
        (*work)++;
    }
    return b;
}

static void prepare(const rta_taskset *ts, lctx *c) {
    c->n = ts->n;
    for (size_t i = 0; i < ts->n; i++) {
        const rta_task *k = &ts->tasks[i];
        ltask *d = &c->d[i];
        d->Gm = d->G = d->L = 0;
        d->T = k->period;
        d->D = k->deadline;
        d->C = k->cpu_total;
        d->N = k->gpu_segments;
        d->misc = k->misc;
        d->exec = k->exec;
        d->theta = ts->semantics == RTA_CORRECTED ? ts->theta : 0;   /* K8 */
        d->cpu = k->cpu;
        d->prio = k->priority;
        d->rt = !k->best_effort;
        for (int64_t j = 0; j < d->N; j++) {
            d->Gm = rta_sat_add(d->Gm, k->misc[j]);
            d->G = rta_sat_add(d->G, seg(d, j));
            if (seg(d, j) > d->L)
                d->L = seg(d, j);
        }
    }
    c->nrt = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!c->d[i].rt)
            continue;
        size_t j = c->nrt++;
        while (j > 0 && c->d[c->ord[j - 1]].prio < c->d[i].prio) {
            c->ord[j] = c->ord[j - 1];
            j--;
        }
        c->ord[j] = i;
    }
    size_t p = c->nrt;
    for (size_t i = 0; i < c->n; i++)
        if (!c->d[i].rt)
            c->ord[p++] = i;
    for (size_t q = 0; q < c->n; q++)
        c->rank[c->ord[q]] = (int32_t)q;
    /* L5's sums: the tasks above x are the real-time ones before it. */
    int64_t acc = 0;
    for (size_t q = 0; q < c->n; q++) {
        ltask *d = &c->d[c->ord[q]];
        d->hpmax = acc;   /* best-effort ones come last: every RT task is above */
        if (d->rt)
            acc = rta_sat_add(acc, d->L);
    }
}

bool rta_lock_analyse(const rta_taskset *ts, bool mpcp, bool busy, int64_t *wcrt,
                      int64_t *work) {
    lctx c;
    prepare(ts, &c);
    c.cpus = ts->cpus;
    c.corrected = ts->semantics == RTA_CORRECTED;
    c.busy = busy;
    bool released = ts->semantics == RTA_RELEASED_CODE;
    for (size_t i = 0; i < c.n; i++)
        wcrt[i] = c.d[i].rt ? RTA_FAILED : RTA_NOT_ANALYSED;
    /* Tasks in decreasing priority; the first failure ends the analysis,
     * as in rta.c (M7). */
    for (size_t k = 0; k < c.nrt; k++) {
        size_t i = c.ord[k];
        const ltask *me = &c.d[i];
        int64_t limit = released ? me->T : me->D;
        int64_t beta = 0;
        if (mpcp) {
            /* alpha_h <= ceil((limit + R_h) / T_h) while W <= limit */
            int64_t cap = 0;
            for (size_t q = 0; q < k; q++) {
                size_t h = c.ord[q];
                int64_t a = rta_ceil_div(rta_sat_add(limit, c.R[h]), c.d[h].T);
                if (a > cap)
                    cap = a;
            }
            beta = mpcp_beta(&c, i, cap + 1, work);
        }
        int64_t r = 0, out = RTA_FAILED;
        while (*work <= RTA_MAX_WORK) {
            int64_t next = rta_sat_add(rta_sat_add(me->C, me->G), preempt(&c, i, r, work));
            next = rta_sat_add(next, mpcp ? mpcp_blocking(&c, i, r, beta, work)
                                      : fmlp_blocking(&c, i, r, work));
            (*work)++;
            if (next > limit)
                break;
            if (next == r) {
                out = r;
                break;
            }
            r = next;
        }
        c.R[i] = out;
        wcrt[i] = out;
        if (out == RTA_FAILED)
            return false;
    }
    return true;
}
