/* rta.c -- the GCAPS paper's response-time analysis (ECRTS 2024, §6). See
 * rta.h. Lemma and equation numbers are the paper's; the restated formulas
 * are in ../shared/docs/gcaps-analysis.md §2.
 *
 * Every bound has the shape of Eq. (1):
 *     R_i = base_i + sum_k ceil((R_i + J_k) / T_k) * W_k
 * where base_i is what τ_i pays once per job (C_i, G_i, blocking, its own
 * interleaving) and each term k is one interfering task's jobs in a window
 * of length R_i plus its release jitter J_k. So an analysis is "build the
 * terms of τ_i, then iterate": build_terms() says, lemma by lemma, what each
 * term is, and fixpoint() is the only loop that runs to convergence.
 *
 * Modelling choices where the printed text leaves one (issue 14), each
 * stated again where it is made:
 *   M1 `priority` is a Linux real-time priority, larger = higher.
 *   M2 best-effort tasks have no priority, are never analysed, and count as
 *      GPU contenders (Lemma 1, Lemma 4); hp() and hpp() hold real-time
 *      tasks only.
 *   M3 under GCAPS τ_i's own GPU demand is G*_i = G_i + 2εη^g_i (§6.3: the
 *      two runlist updates of each segment are paid "for the entire job").
 *   M4 Lemma 4's contender count is |{τ_k ∉ hpp(τ_i) : η^g_k > 0} ∪ {τ_h}|
 *      as printed (τ_i itself is in it when it uses the GPU).
 *   M5 Lemma 11 sums over every GPU-using task of hp(τ_i) \ hpp(τ_i) when
 *      τ_i is CPU-only.
 *   M6 jitters use the R_h the same analysis computed before τ_i (tasks are
 *      analysed in decreasing CPU priority, so R_h is known); with separate
 *      GPU priorities (§6.4) every jitter uses D_h instead.
 *   M7 the iteration starts at R = 0 in integer nanoseconds with ceilings
 *      and fails τ_i as soon as R passes D_i; the rest of the taskset then
 *      fails too (reported as RTA_FAILED, not analysed further).
 *   M8 with GPU priorities, Audsley's search (§5.3) only offers a task the
 *      lowest free GPU level when no unassigned task of its core has a lower
 *      CPU priority: the same-core order guard is kept during the search, so
 *      no order it returns is inverted (the released code searches without
 *      it and rejects an inverted final order instead).
 *   M9 one analysis evaluates at most RTA_MAX_WORK interference terms: a
 *      taskset built to converge slowly (periods of a few ns, utilisation a
 *      hair below 1, hundreds of tasks through Audsley's search) would
 *      otherwise keep a server thread for hours. Past the budget every bound
 *      still open is RTA_FAILED, which is safe (never optimistic), and
 *      rta_result.budget_exhausted says so. No taskset of the paper's
 *      experiments comes within a thousandth of it.
 *
 * RTA_CORRECTED (issue 27) keeps the printed lemmas and changes what the
 * simulator showed them to miss, each at its line (K1-K5, K7; docs/rta.md has
 * the counterexamples):
 *   K1 (A) Eq. (3): a round of nu other slices has nu + 1 switches, so each
 *      slice of τ_i costs nu (L + θ) + θ.
 *   K2 (B) Lemma 8: gcapsGpuSegEnd takes the runlist lock too, so a job
 *      can be blocked at its start and at both macros of every segment:
 *      (2η^g_i + 1) blockings.
 *   K3 (C) Lemmas 10, 11, 13: a higher-priority task keeps the runlist
 *      from its Begin to its End update, and its End waits for its core,
 *      so the GPU is held for up to everything of its job that is not a
 *      CPU segment: W = R_h - C_h (D_h - C_h when R_h is unknown) with
 *      jitter C_h, instead of G^{e*}_h.
 *   K4 (D) Lemma 12 as the released code has it: a CPU-only τ_i is also
 *      charged a same-core busy-waiter's G^{e*}_h.
 *   K5 the runlist lock is an rt_mutex that is handed to its top waiter
 *      while that waiter sleeps: each blocking lasts ε plus the time the
 *      new owner waits for its core (tasks above τ_i there, which it does
 *      not inherit past), and a lower-priority task of τ_i's core with a
 *      request pending can be handed the lock at τ_i's start and at each
 *      of its suspensions.
 *   K7 (F) Lemma 8, self-suspending: τ_i's return from each GPU wait can
 *      find its core in a lower-priority task's non-preemptive update, as
 *      its release can: η^g_i more blockings of ε when a lower-priority
 *      GPU task shares its core. */
#include "rta.h"
#include "rta_lock.h"
#include "rta_arith.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const approach_names[RTA_NAPPROACHES] = {
    "tsg_rr_busy", "tsg_rr_suspend", "gcaps_busy", "gcaps_suspend", "gcaps_busy_gprio",
    "gcaps_suspend_gprio", "fmlp_busy", "fmlp_suspend", "mpcp_busy", "mpcp_suspend",
};

const char *rta_approach_name(rta_approach a) {
    return (unsigned)a < RTA_NAPPROACHES ? approach_names[a] : "?";
}

int rta_approach_parse(const char *name) {
    for (int a = 0; a < RTA_NAPPROACHES; a++)
        if (strcmp(name, approach_names[a]) == 0)
            return a;
    return -1;
}

/* saturating arithmetic and ceil_div: rta_arith.h */

/* ---- derived task parameters ---------------------------------------------- */

typedef struct dtask {
    int64_t T, D, C, Gm, Ge, G;
    int64_t eta;         /* η^g_i */
    int64_t slices;      /* sum_j ceil(G^e_{i,j} / L): the TSG slices of Eq. (3) */
    int32_t cpu, prio, gprio;
    bool rt, gpu;
} dtask;

typedef struct term {
    int64_t T, J, W;
} term;

typedef struct actx {
    const dtask *d;
    size_t n;
    int64_t eps, slot;   /* ε; L + θ, one slice plus one switch (Eq. 3) */
    int64_t L;           /* the time slice */
    int64_t ngpu;        /* GPU-using tasks, best-effort ones included (M2) */
    bool released;       /* RTA_RELEASED_CODE */
    bool corrected;      /* RTA_CORRECTED (K1-K5, K7) */
    bool gpu_order;      /* hp() of Lemmas 10, 11, 13 by GPU priority; D-based jitter (§6.4) */
    const bool *free_;   /* Audsley: hp_g(i) = the unassigned tasks other than i */
    const int64_t *R;    /* bounds already computed (M6) */
    const int32_t *pos;  /* released code: position in its RM-sorted list */
    const int64_t *gpu_before; /* released code: GPU tasks before each position */
    int64_t *work;       /* terms evaluated so far (M9) */
    int32_t cpus;
} actx;

/* hpp(τ_i): real-time tasks only (M2), of τ_i's core, with a larger Linux
 * real-time priority (M1). */
static bool hpp(const actx *c, size_t h, size_t i) {
    const dtask *d = c->d;
    return h != i && d[h].rt && d[h].cpu == d[i].cpu && d[h].prio > d[i].prio;
}

/* hp(τ_i) of the GPU lemmas: by CPU priority, or by GPU-segment priority
 * once GPU priorities are separate (§6.4), or, during Audsley's search,
 * every task not yet given a lower GPU level. */
static bool hp_gpu(const actx *c, size_t h, size_t i) {
    const dtask *d = c->d;
    if (h == i || !d[h].rt)
        return false;
    if (c->free_)
        return c->free_[h];
    return c->gpu_order ? d[h].gprio > d[i].gprio : d[h].prio > d[i].prio;
}

/* R_h for a jitter term, or D_h when R_h is not known (M6, §6.4). The
 * released code uses T_h where the paper says D_h (D = T in its experiments);
 * for the same-core G^e_h term of Lemma 13 its Audsley search reads whatever
 * R_h the failed plain test left behind: stale_r() below. */
static int64_t r_or_d(const actx *c, size_t h) {
    if (c->gpu_order || c->free_)
        return c->released ? c->d[h].T : c->d[h].D;
    return c->R[h];
}

/* Whether τ counts as a GPU task in the other-core terms of Lemmas 10, 11
 * and 13 (the sum over hp(τ_i) \ hpp(τ_i), and its condition on τ_i under
 * self-suspension): η^g > 0 as printed. The released code's gcaps.py tests
 * G there instead (`if tasks[h].G_hi == 0: continue`, "applies for all 3
 * analysis"; `tasks[i].G_hi > 0` for ioctl-suspend) while its same-core
 * terms test η^g (`len(tasks[h].ges) == 0`), so a task whose segments are
 * all of length 0 -- every task of Fig. 8(e) at G/C = 0, which the
 * generator still gives η^g = 1..3 segments -- is a GPU task on its own core
 * and none on the others, and its 2εη^g per job is charged to same-core
 * tasks only. */
static bool other_gpu(const actx *c, const dtask *t) {
    return c->released ? t->G > 0 : t->gpu;
}

/* The jitter R_h of Lemma 13's same-core G^e_h term during Audsley's search
 * under the released code's semantics: gcaps.py's can_take_lowest_prio reads
 * `tasks[h].WR`, which its search never writes, so it holds what the plain
 * test that failed just before left there (select_policy clears it to 0
 * before each test): τ_h's bound if that test passed τ_h, -1 (ms) for the
 * task it failed at, 0 for the tasks after it. Reproduced so that the two
 * agree on every verdict (tools/gcaps_xcheck.py); the printed semantics use
 * D_h here (M6). */
static int64_t stale_r(const actx *c, size_t h) {
    return c->R[h] == RTA_FAILED ? -INT64_C(1000000) : c->R[h];
}

/* ---- the lemmas, as terms --------------------------------------------------- */

static size_t build_tsg(const actx *c, size_t i, bool busy, int64_t *base, term *t) {
    const dtask *d = c->d;
    const dtask *me = &d[i];
    size_t nt = 0;
    /* Eq. (1) with Lemma 2 (I^dp = 0) and Lemma 3 (B^C = 0). Lemma 1,
     * Eq. (5): each of τ_i's segments waits a slice plus a switch per other
     * GPU-using task (best-effort ones count, M2) per slice it needs. */
    int64_t nu = c->ngpu - (me->gpu ? 1 : 0);
    int64_t per_slice = rta_sat_mul(c->slot, nu);
    if (c->corrected && nu > 0)
        per_slice = rta_sat_add(per_slice, c->slot - c->L);   /* K1: the switch back, θ */
    *base = rta_sat_add(rta_sat_add(me->C, me->G), rta_sat_mul(per_slice, me->slices));

    int64_t hpp_gpu = 0;
    if (busy && !c->released)
        for (size_t h = 0; h < c->n; h++)
            if (hpp(c, h, i) && d[h].gpu)
                hpp_gpu++;
    for (size_t h = 0; h < c->n; h++) {
        if (!hpp(c, h, i))
            continue;
        const dtask *o = &d[h];
        int64_t cm = o->C + o->Gm;
        if (busy && !c->released) {
            /* Lemma 5, Eq. (7): CPU preemption by C_h + G^m_h; Lemma 4,
             * Eq. (6): τ_h busy-waits through its segments' interleaving
             * with |{τ_k ∉ hpp(τ_i) : η^g_k > 0} ∪ {τ_h}| contenders (M4),
             * which counts τ_h's own slices. Both are ceil(R/T_h) terms. */
            int64_t w = cm;
            if (o->gpu)
                w = rta_sat_add(w, rta_sat_mul(rta_sat_mul(c->slot, c->ngpu - hpp_gpu + 1), o->slices));
            t[nt++] = (term){o->T, 0, w};
        } else if (busy) {
            /* Released code (default_driver.rt_test): a CPU-only τ_h is
             * skipped altogether, its C_h too; τ_h's G_h is added explicitly
             * and the contenders are the GPU tasks of hp \ hpp plus those at
             * the first n-pos-1 positions of its sorted list (its `lp_set`
             * holds positions, not the lower-priority tasks). */
            if (!o->gpu)
                continue;
            int64_t nid = 0;
            for (size_t k = 0; k < c->n; k++)
                if (k != i && d[k].rt && d[k].prio > me->prio && d[k].cpu != me->cpu && d[k].gpu)
                    nid++;
            int64_t lp_end = (int64_t)c->n - c->pos[i] - 1;
            if (lp_end > 0)
                nid += c->gpu_before[lp_end];
            int64_t w = rta_sat_add(rta_sat_add(rta_sat_mul(rta_sat_mul(c->slot, nid), o->slices), o->G), cm);
            t[nt++] = (term){o->T, 0, w};
        } else {
            /* Lemma 6: no indirect delay. Lemma 7, Eq. (8): self-suspension
             * as release jitter J^c_h = R_h - (C_h + G^m_h) (M6); the
             * released code uses T_h - (C_h + G^m_h). */
            int64_t j = (c->released ? o->T : c->R[h]) - cm;
            t[nt++] = (term){o->T, j, cm};
        }
    }
    return nt;
}

/* K3: a GPU-using τ_h holds the runlist from its Begin update to its End
 * update; the CPU segments of its job lie outside those windows, so per
 * job it holds the GPU (or waits for the lock, or updates) at most
 * R_h - C_h of its response time, and never less than G^{e*}_h. */
static term hold(const actx *c, size_t h) {
    const dtask *o = &c->d[h];
    int64_t ge_star = rta_sat_add(o->Ge, rta_sat_mul(2 * c->eps, o->eta));
    int64_t r = r_or_d(c, h);
    int64_t w = r - o->C;
    if (w < ge_star)
        w = ge_star;
    return (term){o->T, r - w, w};
}

/* K2 + K5: the runlist-lock blocking of τ_i. Each blocking is one update
 * of ε by a lower-priority owner plus the time that owner, handed the lock
 * asleep, waits for its core: delta_c on core c is the least fixed point of
 * delta = sum over real-time tasks of c above τ_i of their CPU demand in
 * delta + ε (the owner inherits τ_i's priority, not more); c other than
 * τ_i's core. τ_i can be
 * blocked at its start and at each Begin and End (2η^g_i + 1), and at its
 * start and after each suspension (η^g_i + 1, suspend; 1, busy) by each
 * lower-priority GPU task of its core whose request the lock may be handed
 * to while τ_i does not run. */
static int64_t fixpoint(int64_t base, const term *t, size_t nt, int64_t limit, int64_t *work);

static int64_t handoff_blocking(const actx *c, size_t i, bool busy) {
    const dtask *d = c->d;
    const dtask *me = &d[i];
    int64_t worst = 0;
    for (int32_t core = 0; core < c->cpus; core++) {
        /* on τ_i's own core those tasks are τ_i's P^C already: the wait
         * overlaps the time they are charged for */
        if (core == me->cpu)
            continue;
        term t[RTA_MAX_TASKS];
        size_t nt = 0;
        for (size_t h = 0; h < c->n; h++) {
            const dtask *o = &d[h];
            if (h == i || !o->rt || o->cpu != core || o->prio <= me->prio)
                continue;
            int64_t w = rta_sat_add(rta_sat_add(o->C, busy ? o->G : o->Gm), rta_sat_mul(2 * c->eps, o->eta));
            int64_t r = (c->gpu_order || c->free_) ? o->D : c->R[h];
            t[nt++] = (term){o->T, rta_sat_add(c->eps, r - w), w};
        }
        /* The least fixed point, by the loop every bound uses: a wait that
         * passes D_i (or the work budget, M9) fails τ_i, never stops at the
         * iterate below it (which was an optimistic bound). */
        int64_t delta = fixpoint(0, t, nt, me->D, c->work);
        if (delta == RTA_FAILED)
            return INT64_MAX;
        if (delta > worst)
            worst = delta;
    }
    int64_t each = rta_sat_add(c->eps, worst);
    int64_t lower = 0;
    for (size_t h = 0; h < c->n; h++)
        if (h != i && d[h].gpu && d[h].cpu == me->cpu && (!d[h].rt || d[h].prio < me->prio))
            lower++;
    int64_t times = 2 * me->eta + 1;
    if (lower > 1)
        times += (busy ? 1 : me->eta + 1) * (lower - 1);
    int64_t b = rta_sat_mul(each, times);
    /* K7: self-suspending, τ_i frees its core while its GPU work runs; a
     * lower-priority task of that core may then take the free lock and
     * start its update, which is non-preemptive (Lemma 8 (1)), so τ_i's
     * return from each of its η^g_i GPU waits can find its core taken for
     * up to ε (that owner runs: no hand-off wait). The release blocking
     * above is the same thing at the start of the job; this is one per
     * segment more (counterexample F, docs/rta.md). */
    if (!busy && lower > 0)
        b = rta_sat_add(b, rta_sat_mul(c->eps, me->eta));
    return b;
}

static size_t build_gcaps(const actx *c, size_t i, bool busy, int64_t *base, term *t) {
    const dtask *d = c->d;
    const dtask *me = &d[i];
    int64_t eps = c->eps;
    size_t nt = 0;
    /* Eq. (1) with G*_i = G_i + 2εη^g_i (M3) and Lemma 8, Eq. (9):
     * B^C_i = (η^g_i + 1)ε, once at job start even for a CPU-only task and
     * once per segment. Lemma 9: no interleaving among real-time tasks. */
    *base = rta_sat_add(rta_sat_add(me->C, me->G), rta_sat_mul(eps, 3 * me->eta + 1));
    if (c->corrected)
        *base = rta_sat_add(rta_sat_add(me->C, me->G),
                        rta_sat_add(rta_sat_mul(eps, 2 * me->eta), handoff_blocking(c, i, busy)));

    for (size_t h = 0; h < c->n; h++) {
        const dtask *o = &d[h];
        int64_t two_eps = rta_sat_mul(2 * eps, o->eta);
        int64_t ge_star = rta_sat_add(o->Ge, two_eps);      /* G^{e*}_h */
        if (hpp(c, h, i)) {
            if (busy) {
                /* Lemma 12, Eq. (12): C_h + G^m_h per job of τ_h; Lemma 10,
                 * Eq. (10), first sum: a same-core τ_h busy-waits through
                 * G^{e*}_h, charged only when τ_i uses the GPU (η^g_i > 0)
                 * as printed. The released code charges C_h + G_h + 2εη^g_h
                 * whatever τ_i is (a busy-waiting τ_h holds the core). */
                int64_t w = o->C + o->Gm;
                if (o->gpu && (me->gpu || c->released || c->corrected))   /* K4 */
                    w = rta_sat_add(w, ge_star);
                t[nt++] = (term){o->T, 0, w};
            } else if (!o->gpu) {
                /* Lemma 15, Eq. (14), first sum: a CPU-only τ_h, no jitter. */
                t[nt++] = (term){o->T, 0, o->C};
            } else {
                /* Lemma 15, second sum: C_h + G^{m*}_h with self-suspension
                 * jitter J^c_h = R_h - (C_h + G^m_h). */
                int64_t cm = o->C + o->Gm;
                t[nt++] = (term){o->T, r_or_d(c, h) - cm, rta_sat_add(cm, two_eps)};
                /* Lemma 13, Eq. (13), first sum: plain G^e_h (its runlist
                 * updates are already on the CPU side above), J^g_h =
                 * R_h - G^e_h, only when τ_i uses the GPU. */
                if (me->gpu && c->corrected)
                    t[nt++] = hold(c, h);                               /* K3 */
                else if (me->gpu)
                    t[nt++] = (term){o->T,
                                     (c->released && c->free_ ? stale_r(c, h) : r_or_d(c, h)) - o->Ge,
                                     o->Ge};
            }
        } else if (other_gpu(c, o) && hp_gpu(c, h, i) && (busy || other_gpu(c, me))) {
            /* A higher(-GPU)-priority task of another core: Lemma 10's second
             * sum (busy, τ_i GPU-using), Lemma 11, Eq. (11) (busy, τ_i
             * CPU-only: every such task, M5) and Lemma 13's second sum
             * (suspend, τ_i GPU-using): G^{e*}_h with carry-in jitter
             * J^g_h = R_h - G^e_h. hp \ hpp: a same-core task above τ_i on
             * the GPU is above it on the CPU too (the order guard, §5.3). */
            t[nt++] = c->corrected ? hold(c, h)                         /* K3 */
                                   : (term){o->T, r_or_d(c, h) - o->Ge, ge_star};
        }
    }
    return nt;
}

/* The least fixed point from R = 0 (M7), or RTA_FAILED once R > limit or
 * the work budget is spent (M9). */
static int64_t fixpoint(int64_t base, const term *t, size_t nt, int64_t limit, int64_t *work) {
    int64_t r = 0;
    for (;;) {
        if ((*work += (int64_t)nt + 1) > RTA_MAX_WORK)
            return RTA_FAILED;
        int64_t next = base;
        for (size_t k = 0; k < nt; k++)
            next = rta_sat_add(next, rta_sat_mul(rta_ceil_div(rta_sat_add(r, t[k].J), t[k].T), t[k].W));
        if (next > limit)
            return RTA_FAILED;
        if (next == r)
            return r;
        r = next;
    }
}

static int64_t bound(const actx *c, size_t i, bool gcaps, bool busy) {
    term t[2 * RTA_MAX_TASKS];
    int64_t base;
    size_t nt = gcaps ? build_gcaps(c, i, busy, &base, t) : build_tsg(c, i, busy, &base, t);
    /* The released code tests against T_i (D = T in its experiments). */
    int64_t limit = c->released ? c->d[i].T : c->d[i].D;
    if (base > limit)
        return RTA_FAILED;
    return fixpoint(base, t, nt, limit, c->work);
}

/* ---- checks ------------------------------------------------------------------ */

static int bad(char *err, size_t errlen, size_t i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad(char *err, size_t errlen, size_t i, const char *fmt, ...) {
    if (err && errlen) {
        int k = snprintf(err, errlen, "tasks[%zu].", i);
        va_list ap;
        va_start(ap, fmt);
        if (k > 0 && (size_t)k < errlen)
            vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int rta_check(const rta_taskset *ts, char *err, size_t errlen) {
    if (ts->n > RTA_MAX_TASKS) {
        snprintf(err, errlen, "tasks: %zu tasks, this build analyses at most %d", ts->n,
                 RTA_MAX_TASKS);
        return -1;
    }
    if (ts->cpus <= 0) {
        snprintf(err, errlen, "cpus: must be at least 1");
        return -1;
    }
    if (ts->time_slice <= 0 || ts->epsilon < 0 || ts->theta < 0) {
        snprintf(err, errlen, "%s", ts->time_slice <= 0 ? "time_slice: must be positive"
                                    : ts->epsilon < 0 ? "epsilon: must not be negative"
                                                      : "theta: must not be negative");
        return -1;
    }
    for (size_t i = 0; i < ts->n; i++) {
        const rta_task *k = &ts->tasks[i];
        if (k->period <= 0)
            return bad(err, errlen, i, "period: must be positive");
        if (k->deadline <= 0 || k->deadline > k->period)
            return bad(err, errlen, i, "deadline: must be positive and at most the period "
                       "(constrained deadlines)");
        if (k->cpu < 0 || k->cpu >= ts->cpus)
            return bad(err, errlen, i, "cpu: %d is not a core of %d (cores are 0..cpus-1)",
                       (int)k->cpu, (int)ts->cpus);
        if (k->gpu_segments < 0 || k->gpu_segments > RTA_MAX_SEGMENTS)
            return bad(err, errlen, i, "gpu_segments: at most %d", RTA_MAX_SEGMENTS);
        if (k->cpu_total < 0)
            return bad(err, errlen, i, "cpu_segments: must not be negative");
        for (int32_t j = 0; j < k->gpu_segments; j++)
            if (k->misc[j] < 0 || k->exec[j] < 0)
                return bad(err, errlen, i, "gpu_segments[%d]: must not be negative", (int)j);
        if (k->best_effort)
            continue;
        for (size_t h = 0; h < i; h++) {
            const rta_task *o = &ts->tasks[h];
            if (o->best_effort)
                continue;
            /* Distinct priorities: with a tie, SCHED_FIFO order depends on
             * arrival, and hp()/hpp() of the lemmas would not be defined. */
            if (o->priority == k->priority)
                return bad(err, errlen, i, "priority: %d is also tasks[%zu]'s priority (the "
                           "analysis needs distinct priorities)", (int)k->priority, h);
            int32_t gk = k->has_gpu_priority ? k->gpu_priority : k->priority;
            int32_t go = o->has_gpu_priority ? o->gpu_priority : o->priority;
            if (gk == go)
                return bad(err, errlen, i, "gpu_priority: %d is also tasks[%zu]'s GPU priority "
                           "(GCAPS serves equal priorities FIFO; give distinct ones)", (int)gk, h);
        }
    }
    return 0;
}

/* ---- analyses ---------------------------------------------------------------- */

typedef struct shared {
    dtask d[RTA_MAX_TASKS];
    size_t ord[RTA_MAX_TASKS];      /* real-time tasks, highest CPU priority first */
    size_t nrt;
    int32_t pos[RTA_MAX_TASKS];
    int64_t gpu_before[RTA_MAX_TASKS + 1];
    int64_t R[RTA_MAX_TASKS];
    int64_t work;
    actx c;
} shared;

static void prepare(const rta_taskset *ts, shared *s) {
    size_t n = ts->n;
    int64_t L = ts->time_slice, ngpu = 0;
    for (size_t i = 0; i < n; i++) {
        const rta_task *k = &ts->tasks[i];
        dtask *d = &s->d[i];
        int64_t gm = 0, ge = 0, sl = 0;
        for (int32_t j = 0; j < k->gpu_segments; j++) {
            gm = rta_sat_add(gm, k->misc[j]);
            ge = rta_sat_add(ge, k->exec[j]);
            sl = rta_sat_add(sl, rta_ceil_div(k->exec[j], L));
        }
        *d = (dtask){.T = k->period, .D = k->deadline, .C = k->cpu_total, .Gm = gm, .Ge = ge,
                     .G = rta_sat_add(gm, ge), .eta = k->gpu_segments, .slices = sl, .cpu = k->cpu,
                     .prio = k->priority,
                     .gprio = k->has_gpu_priority ? k->gpu_priority : k->priority,
                     .rt = !k->best_effort, .gpu = k->gpu_segments > 0};
        if (d->gpu)
            ngpu++;
    }
    /* Insertion sort by decreasing priority: n is small and this keeps the
     * order of equal keys (none among real-time tasks, see rta_check). */
    s->nrt = 0;
    for (size_t i = 0; i < n; i++) {
        if (!s->d[i].rt)
            continue;
        size_t j = s->nrt++;
        while (j > 0 && s->d[s->ord[j - 1]].prio < s->d[i].prio) {
            s->ord[j] = s->ord[j - 1];
            j--;
        }
        s->ord[j] = i;
    }
    /* The released code's list: real-time tasks by priority, then the
     * best-effort ones in input order (sort_tasks_RM). */
    size_t p = 0;
    for (; p < s->nrt; p++)
        s->pos[s->ord[p]] = (int32_t)p;
    for (size_t i = 0; i < n; i++)
        if (!s->d[i].rt)
            s->pos[i] = (int32_t)p++;
    s->gpu_before[0] = 0;
    int64_t at[RTA_MAX_TASKS];
    for (size_t i = 0; i < n; i++)
        at[s->pos[i]] = s->d[i].gpu;
    for (size_t q = 0; q < n; q++)
        s->gpu_before[q + 1] = s->gpu_before[q] + at[q];
    s->c = (actx){.d = s->d, .n = n, .eps = ts->epsilon,
                  .slot = rta_sat_add(ts->time_slice, ts->theta), .L = ts->time_slice, .ngpu = ngpu,
                  .corrected = ts->semantics == RTA_CORRECTED,
                  .released = ts->semantics == RTA_RELEASED_CODE, .R = s->R, .pos = s->pos,
                  .gpu_before = s->gpu_before, .work = &s->work, .cpus = ts->cpus};
    s->work = 0;
    /* what stale_r() reads for a task the plain test did not reach */
    for (size_t i = 0; i < n; i++)
        s->R[i] = 0;
}

/* Every real-time task in decreasing CPU priority; stops at the first
 * failure (M7). Returns whether all passed. */
static bool analyse_all(shared *s, bool gcaps, bool busy, int64_t *wcrt) {
    for (size_t k = 0; k < s->nrt; k++) {
        size_t i = s->ord[k];
        int64_t r = bound(&s->c, i, gcaps, busy);
        s->R[i] = r;
        wcrt[i] = r;
        if (r == RTA_FAILED)
            return false;
    }
    return true;
}

/* Two tasks of one core whose GPU order differs from their CPU order (§5.3:
 * a possible deadlock, so the assignment is infeasible). */
static bool inverted(const shared *s) {
    for (size_t a = 0; a < s->nrt; a++)
        for (size_t b = a + 1; b < s->nrt; b++) {
            const dtask *x = &s->d[s->ord[a]], *y = &s->d[s->ord[b]];
            if (x->cpu == y->cpu && (x->prio > y->prio) != (x->gprio > y->gprio))
                return true;
        }
    return false;
}

static bool orders_differ(const shared *s) {
    for (size_t a = 0; a < s->nrt; a++)
        for (size_t b = a + 1; b < s->nrt; b++) {
            const dtask *x = &s->d[s->ord[a]], *y = &s->d[s->ord[b]];
            if ((x->prio > y->prio) != (x->gprio > y->gprio))
                return true;
        }
    return false;
}

/* Audsley's optimal priority assignment over GPU-segment priorities (§5.3,
 * ref. [3]): from the lowest level up, give it to the first task (lowest
 * CPU priority first, as the authors' code tries them) that meets its
 * deadline with every still unassigned task above it on the GPU, analysed
 * per §6.4 (hp() by GPU priority, D_h in every jitter). */
static bool audsley(shared *s, bool busy, int64_t *wcrt, int32_t *level) {
    bool free_[RTA_MAX_TASKS];
    for (size_t i = 0; i < s->c.n; i++)
        free_[i] = s->d[i].rt;
    actx c = s->c;
    c.free_ = free_;
    for (size_t lv = 1; lv <= s->nrt; lv++) {
        size_t got = SIZE_MAX;
        for (size_t k = s->nrt; k-- > 0;) {
            size_t i = s->ord[k];
            if (!free_[i])
                continue;
            if (!c.released) {
                /* M8: the same-core order guard, during the search. */
                bool lower_left = false;
                for (size_t q = k + 1; q < s->nrt && !lower_left; q++)
                    lower_left = free_[s->ord[q]] && s->d[s->ord[q]].cpu == s->d[i].cpu;
                if (lower_left)
                    continue;
            }
            int64_t r = bound(&c, i, true, busy);
            if (r != RTA_FAILED) {
                wcrt[i] = r;
                got = i;
                break;
            }
        }
        if (got == SIZE_MAX)
            return false;
        free_[got] = false;
        level[got] = (int32_t)lv;
    }
    if (c.released) {
        /* The released code's inversion_detection: reject an order that
         * puts a same-core task above one of higher CPU priority. */
        for (size_t a = 0; a < s->nrt; a++)
            for (size_t b = a + 1; b < s->nrt; b++) {
                size_t x = s->ord[a], y = s->ord[b];
                if (s->d[x].cpu == s->d[y].cpu && level[x] < level[y])
                    return false;
            }
    }
    return true;
}

static void analyse(const rta_taskset *ts, rta_approach a, rta_result *res, shared *s);

void rta_analyse(const rta_taskset *ts, rta_approach a, rta_result *res) {
    shared s;
    analyse(ts, a, res, &s);
    res->budget_exhausted = s.work > RTA_MAX_WORK;
}

static void analyse(const rta_taskset *ts, rta_approach a, rta_result *res, shared *s) {
    prepare(ts, s);
    size_t n = ts->n;
    res->schedulable = false;
    res->gpu_assigned = false;
    res->order_inverted = false;
    res->budget_exhausted = false;
    for (size_t i = 0; i < n; i++) {
        res->wcrt[i] = s->d[i].rt ? RTA_FAILED : RTA_NOT_ANALYSED;
        if (res->gpu_priority)
            res->gpu_priority[i] = s->d[i].gprio;
    }
    bool busy = a == RTA_TSG_RR_BUSY || a == RTA_GCAPS_BUSY || a == RTA_GCAPS_BUSY_GPRIO ||
                a == RTA_FMLP_BUSY || a == RTA_MPCP_BUSY;
    if (a >= RTA_FMLP_BUSY) {
        /* The lock-based baselines of §7.1 (rta_lock.c); GPU priorities
         * play no part: requests are served FIFO (FMLP+) or by the task's
         * priority (MPCP). */
        bool mpcp = a == RTA_MPCP_BUSY || a == RTA_MPCP_SUSPEND;
        res->schedulable = rta_lock_analyse(ts, mpcp, busy, res->wcrt, &s->work);
        return;
    }
    if (a == RTA_TSG_RR_BUSY || a == RTA_TSG_RR_SUSPEND) {
        /* The default driver ignores GPU priorities. */
        res->schedulable = analyse_all(s, false, busy, res->wcrt);
        return;
    }
    bool any_gprio = false;
    for (size_t i = 0; i < n; i++)
        any_gprio |= ts->tasks[i].has_gpu_priority && !ts->tasks[i].best_effort;
    if (any_gprio && orders_differ(s)) {
        if (inverted(s)) {
            res->order_inverted = true;   /* §5.3: infeasible */
            if (a == RTA_GCAPS_BUSY || a == RTA_GCAPS_SUSPEND)
                return;
        } else {
            s->c.gpu_order = true;         /* §6.4 */
        }
    }
    if (!res->order_inverted)
        res->schedulable = analyse_all(s, true, busy, res->wcrt);
    if (res->schedulable || a == RTA_GCAPS_BUSY || a == RTA_GCAPS_SUSPEND)
        return;
    /* gcaps_*_gprio: the plain test failed, so try separate GPU priorities
     * (§7.1.1). On failure the plain test's bounds stay in wcrt. */
    int64_t w[RTA_MAX_TASKS];
    int32_t lv[RTA_MAX_TASKS];
    for (size_t i = 0; i < n; i++) {
        w[i] = res->wcrt[i];
        lv[i] = 0;
    }
    if (!audsley(s, busy, w, lv))
        return;
    res->schedulable = true;
    res->gpu_assigned = true;
    for (size_t i = 0; i < n; i++) {
        res->wcrt[i] = w[i];
        if (res->gpu_priority)
            res->gpu_priority[i] = s->d[i].rt ? lv[i] : 0;
    }
}
