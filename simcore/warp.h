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
 * one contiguous array. A policy may read every field of warp_sub and
 * writes none: what it remembers (GTO's greedy warp, LRR's place in the
 * round robin, QAWS's groups and counts) is its own state, `state_size`
 * bytes per sub-core, kept up to date by its on_issue / on_remove hooks.
 *
 * Memory: exec_warp.c owns every array of warp_sub (sized warps_per_sm per
 * sub-core) and each sub-core's policy state; a policy's init may allocate
 * more, which its fini frees. */
#ifndef SIMCORE_WARP_H
#define SIMCORE_WARP_H

#include <stddef.h>
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
    int64_t mq_ticket;       /* exec_warp.c's own, device.mem_admission 1: the warp's
                                place in its sub-core's memory queue; 0 = none */
} warp_info;

typedef struct warp_sub {
    int32_t n;               /* resident warps */
    int32_t hint;            /* exec_warp.c's own: position of the warp that issued last, a
                                prefetch hint (stale once a warp has left); no rule reads it */
    void *pol;               /* exec_warp.c's own: the warp policy's state of this sub-core,
                                passed to its hooks as `self` */
    int64_t *ready;          /* [n] cycle from which each warp may issue */
    warp_info *info;         /* [n] the rest of each warp */
    const int64_t *quota_cnt;/* quota policies (quota.h): [kernels] C_k of this sub-core;
                                a warp may issue only while its kernel's is positive */
    int32_t *quota_k;        /* quota policies: [n] the QoS manager's kernel of each warp
                                (re-executions of one kernel share it; quota.h), beside
                                ready[] so that the pick reads two short arrays; NULL:
                                each warp's own kernel */
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
 * their quota (ISCA'17 §3.3). pick may be asked again in the same cycle
 * when the warp it chose is held back at issue (exec_warp.c: a full
 * memory queue or a busy fp32 pipe), so what happens when a warp really
 * issues belongs in on_issue, not in pick.
 *
 * State, as in the other policy tables (policy.h): `self` is the policy's
 * own state of one sub-core, `state_size` bytes that exec_warp.c allocates
 * zeroed for each sub-core before `init` and frees after `fini` (either
 * hook may be NULL). `warps` is the most warps the sub-core can hold
 * (device warps_per_sm), for a policy that keeps something per warp or
 * per group of warps. on_issue(p): warp p issues at this cycle (called as
 * the model takes it, before its ready[] and pc move on; if that was its
 * last instruction, on_remove follows). on_remove(p): the warp at position
 * p has left (the warps after it moved down one place, n is one less).
 * NULL hooks: nothing to do. */
struct quota_scheme;
typedef struct warp_policy {
    const char *name;        /* as in scenario JSON: policy.warp */
    const char *doc;
    size_t state_size;       /* bytes of state per sub-core */
    int (*init)(void *self, int32_t warps);   /* 0, or -1 when out of memory */
    void (*fini)(void *self);
    int32_t (*pick)(void *self, const warp_sub *s, int64_t c);
    void (*on_issue)(void *self, const warp_sub *s, int32_t p);
    void (*on_remove)(void *self, const warp_sub *s, int32_t p);
    /* quota policies (quota.h): the scheme, which exec_warp.c's QoS manager
     * runs with; NULL otherwise. The flag the rest of the code reads
     * (sim_warp_quota; the scenario parser and the QoS sweeps) */
    const struct quota_scheme *quota;
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
 * with the greedy warp first): the greedy warp (position, -1 = none) if it
 * is ready, else the oldest ready warp. */
static inline int32_t warp_gto_pick(const warp_sub *s, int32_t greedy, int64_t c) {
    if (greedy >= 0 && s->ready[greedy] <= c) return greedy;
    return warp_first_ready(s, 0, s->n, c);
}

/* ---- greedy-then-oldest's state (warp_gto.c), shared ------------------------
 * The warp that issued last (QAWS paper §II-A: "the same warp is issued by
 * the warp scheduler every cycle until an instruction stalls"), which the
 * quota schemes' EWS keeps too (ISCA'17 Table 1: GTO; quota.c). */
typedef struct warp_gto_state {
    int32_t greedy;          /* position of the warp that issued last; -1 = none */
} warp_gto_state;

int warp_gto_init(void *self, int32_t warps);
void warp_gto_on_issue(void *self, const warp_sub *s, int32_t p);
void warp_gto_on_remove(void *self, const warp_sub *s, int32_t p);

#endif
