/* warp.h -- the warp schedulers of the warp-level execution model
 * (exec_warp.c): one sub-core's resident warps and the generic ordering
 * helpers that each warp policy (warp_gto.c, warp_lrr.c, warp_qaws.c) is
 * written over.
 *
 * As in GPGPU-Sim's scheduler_unit, where each policy only overrides
 * order_warps() and the scheduler then issues the first ready warp of that
 * order (QAWS paper §IV-A: "the scheduler then iterates through the warps
 * in Qissue until it finds a ready warp"), a policy here answers one
 * question per sub-core and cycle: which resident warp issues. It does so
 * by walking its order with the helpers below, so the order is never
 * materialised; the walk stops at the first ready warp.
 *
 * A sub-core keeps its warps oldest first (a warp's age is the order in
 * which blocks were placed and their warps dealt, GPGPU-Sim's dynamic warp
 * id), as a structure of arrays so that the scan for a ready warp touches
 * one contiguous array. A policy may read every field and keeps its own
 * state in the `greedy`, `last`, `g0` and `ncs` fields.
 *
 * Memory: exec_warp.c owns every array (sized warps_per_sm per sub-core). */
#ifndef SIMCORE_WARP_H
#define SIMCORE_WARP_H

#include <stdint.h>

/* What a warp is, beside when it is ready (kept apart so that the scan for
 * a ready warp reads one short array). */
typedef struct warp_info {
    int32_t kernel;          /* kernel (index in the trace's kernels) */
    int32_t budget;          /* QAWS budget of the warp's kernel (>= 1) */
    int32_t pc;              /* next instruction in the kernel's body */
    int32_t block;           /* resident block (exec_warp.c's slot) */
    int64_t iters;           /* body repetitions left, the current one included */
    int64_t wid;             /* dynamic warp id: age, and the id in warp_issues */
} warp_info;

typedef struct warp_sub {
    int32_t n;               /* resident warps */
    int32_t greedy;          /* position of the warp that issued last; -1 = none
                                (GTO's greedy warp, QAWS's Wgreedy, Alg. 1 line 2) */
    int32_t last;            /* LRR: position the round robin goes on after */
    int32_t gbud;            /* budget of the warp that issued last, kept after it ends
                                (QAWS Alg. 1 line 14: "Wgreedy in g0") */
    int32_t g0;              /* QAWS: budget of the prioritised group; 0 = no history */
    int64_t *ready;          /* [n] cycle from which each warp may issue */
    warp_info *info;         /* [n] the rest of each warp */
    int32_t *ncs_key;        /* QAWS: budgets that have a context switch count */
    int32_t *ncs;            /* QAWS: g.ncs of Alg. 1, per budget group */
    int32_t nncs;
    const int64_t *quota_cnt;/* quota policies (quota.h): [kernels] C_k of this sub-core;
                                a warp may issue only while its kernel's is positive */
    const int32_t *quota_qk; /* quota policies: [kernels] the QoS manager's kernel of each
                                (re-executions of one kernel share it; quota.h) */
    int32_t *quota_owe;      /* quota policies: [n] threads of each warp's instruction in
                                flight, charged to C_k when it completes; NULL otherwise */
    int64_t owe_due;         /* quota policies: no instruction owed completes before this
                                cycle (a lower bound: the charge loop is skipped before it) */
    /* the front end (device.fetch_warps > 0; exec_warp.c): a warp whose
     * instruction buffer is empty waits for a fetch with ready[] = EW_NEVER,
     * so the policies need not know of it; NULL otherwise */
    int64_t *fe_done;        /* [n] cycle the warp's last issued instruction completes */
    int32_t *fe_ibuf;        /* [n] decoded instructions in its buffer */
    int32_t *fe_slot;        /* [n] its warp slot on the SM (the fetch round robin's order) */
} warp_sub;

/* A warp policy: pick returns the position of the warp that issues at
 * cycle c, or -1 when no resident warp is ready. It must pick a ready warp
 * whenever there is one (a scheduler never idles with a ready warp), except
 * under a quota policy, whose scheduler throttles kernels that have used
 * their quota (ISCA'17 §3.3). */
struct quota_scheme;
typedef struct warp_policy {
    const char *name;        /* as in scenario JSON: policy.warp */
    const char *doc;
    int32_t (*pick)(warp_sub *s, int64_t c);
    const struct quota_scheme *quota;  /* quota policies (quota.h); NULL otherwise */
} warp_policy;

const warp_policy *warp_get(int32_t id);   /* policies.c; NULL out of range */

/* ---- generic ordering helpers -------------------------------------------- */

/* First ready warp at positions [from, to), oldest first; -1 if none. */
static inline int32_t warp_first_ready(const warp_sub *s, int32_t from, int32_t to, int64_t c) {
    const int64_t *r = s->ready;
    for (int32_t i = from; i < to; i++)
        if (r[i] <= c) return i;
    return -1;
}

/* First ready warp in round-robin order starting at position `from`
 * (wrapping around); -1 if none. */
static inline int32_t warp_first_ready_rr(const warp_sub *s, int32_t from, int64_t c) {
    if (from >= s->n || from < 0) from = 0;
    int32_t i = warp_first_ready(s, from, s->n, c);
    return i >= 0 ? i : warp_first_ready(s, 0, from, c);
}

/* First ready warp of budget group g (oldest first), skipping position
 * `skip`; -1 if none. */
static inline int32_t warp_first_ready_in(const warp_sub *s, int32_t g, int32_t skip, int64_t c) {
    for (int32_t i = 0; i < s->n; i++)
        if (i != skip && s->info[i].budget == g && s->ready[i] <= c) return i;
    return -1;
}

/* Greedy then oldest over the whole sub-core (GPGPU-Sim's order_by_priority
 * with the greedy warp first): the greedy warp if it is ready, else the
 * oldest ready warp. */
static inline int32_t warp_gto_pick(const warp_sub *s, int64_t c) {
    if (s->greedy >= 0 && s->ready[s->greedy] <= c) return s->greedy;
    return warp_first_ready(s, 0, s->n, c);
}

#endif
