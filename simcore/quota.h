/* quota.h -- the QoS manager and enhanced warp scheduler (EWS) of the
 * quota-based fine-grained QoS schemes (Wang et al., "Quality of Service
 * Support for Fine-Grained Sharing on GPUs", ISCA'17, §3.3-§3.5; here
 * "ISCA'17"), shared by the four warp policies warp_quota_naive.c,
 * warp_quota_history.c, warp_quota_elastic.c and warp_quota_rollover.c.
 * exec_warp.c drives it.
 *
 * Units. The paper counts quotas in instructions "actually executed in the
 * warp instruction (<= 32 due to branch divergence)" (§3.4.1): thread
 * instructions. The model has no divergence, so a warp instruction counts
 * its warp's threads (warp_size, fewer for a block's last partial warp).
 * IPCs here are thread instructions per cycle; a kernel's trace ipc (warp
 * instructions per cycle) times its threads per warp is the same measure.
 * The charge comes when the instruction completes ("When a warp
 * instruction of k is completed, C_k is decremented"): exec_warp.c keeps
 * each warp's instruction in flight owed (warp_sub.quota_owe) until its
 * latency has passed, so a kernel with instructions in flight can issue
 * past its quota, as in the paper (Fig. 4a: "C_k1 is over-consumed"). A
 * warp's last instruction is charged when it issues (the warp leaves).
 *
 * Epochs. The manager runs every T_epoch cycles (§4.1: 10K;
 * policy.quota_epoch), at the first simulated cycle at or after the
 * boundary, and also when a kernel starts (§3.2: goals "are passed to the
 * GPU upon dispatching the kernel"), which begins a new epoch:
 * it measures each kernel's IPC over the epoch that ended (IPC_epoch) and
 * since its start (IPC_history), computes each kernel's GPU-wide quota
 * (eq. 1; §3.4.2; §3.5) and splits it over the SMs (below). Under
 * every scheme but Elastic Epoch the SMs' counters are renewed there
 * (the scheme's `renew`); under Elastic Epoch (§3.4.3) each SM runs
 * its own epochs: a new one starts when every kernel on it has used its
 * quota, or T_epoch cycles after the last one began.
 *
 * Counters. §3.4.1: "distributes it to all SMs proportionally to the TBs
 * hosted by each SM" (quota_k of SM_i = Quota_k x T_i / T), "a local
 * counter C_k for storing quota_k", and the refill "checks if C_ks for all
 * ks in the SM are zero or negative": one counter per kernel per SM, which
 * the SM's warp schedulers (sub-cores) share: alloc = floor(Quota_k x w_sk
 * / W_k), w_sk the kernel's warps (TBs x warps per TB) on SM s and W_k on
 * the whole GPU at the boundary. exec_warp.c lets a sub-core whose warps
 * are throttled look again every cycle while another sub-core of its SM
 * holds warps (a charge there may refill the shared counter; exec_warp.c
 * wakes it when one does, `raised`). Warps of a
 * kernel that join an SM which had none of them at the boundary bring their
 * share, Quota_k x joined / W_k (the blocks of a kernel placed after the
 * epoch began with its first ones). A non-QoS kernel is not throttled while
 * no QoS kernel runs (there is no goal to protect).
 *
 * Re-execution (§4.1: each program re-executed over the simulated
 * window): kernels launched again on the same stream under the same name
 * and goal are one kernel to the manager (exec_warp.c maps them onto the
 * first's index): its history and Rollover's leftover carry over from one
 * run to the next; the gap between runs counts in IPC_history.
 *
 * Memory: quota_init allocates everything; nothing is allocated per cycle
 * or per instruction (the bookkeeping is O(1) per issue slot, O(kernels)
 * when a counter runs out). */
#ifndef SIMCORE_QUOTA_H
#define SIMCORE_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "warp.h"

/* Counter of a kernel the manager does not throttle this epoch. */
#define QUOTA_FREE (INT64_MAX / 4)

/* What distinguishes the four schemes (ISCA'17 §3.4.1-§3.4.4), one object
 * per warp_quota_*.c. */
typedef struct quota_scheme {
    /* §3.4.2: scale a QoS kernel's quota by alpha_k = max(IPC_goal /
     * IPC_history, 1); false: alpha_k = 1 (eq. 1 as it stands) */
    bool history;
    /* §3.4.3: each SM starts a new epoch as soon as every kernel on
     * it has used its quota, adding the new quota to what is left */
    bool elastic;
    /* The counter at a fixed epoch boundary: `left` is what is left of the
     * last epoch (<= 0 when used up), `alloc` the new quota. Every scheme
     * carries a debt (quota_debt); Naive discards an excess ("discards the
     * excess and resets C_k to quota_k"), Rollover keeps a QoS kernel's
     * unused quota (§3.4.4). */
    int64_t (*renew)(int64_t left, int64_t alloc, bool qos);
} quota_scheme;

/* What a counter carries into its next epoch however the scheme treats an
 * unused quota: its debt, what the instructions charged at completion took
 * it below zero (§3.4.1: "When a warp instruction of k is completed, C_k
 * is decremented by the number of instructions that are actually
 * executed"). The new quota is added to it, as Fig. 4a's C_K1 "is
 * reallocated by adding 50" (C_K1 <- 47) and §3.4.3's "the C_k values are
 * added to the new quota values"; §3.4.1's "discards the excess and resets
 * C_k to quota_k" is read as discarding an excess, which a negative
 * counter does not hold. So a capped kernel's epochs are "never above
 * IPCgoal" (§3.4.2) over the run, where a reset gave back what it had in
 * flight at every boundary (on the 270 paper-parameter points Naive then
 * met 71.9 % of its goals against the paper's 20.6 %; carrying the debt,
 * 21.5 %: docs/qos.md, "The counters carry their debt"). */
static inline int64_t quota_debt(int64_t left) {
    return left < 0 ? left : 0;
}

/* §3.4.1's renewal, a scheme's `renew` where nothing unused is kept
 * (Naive, History, Elastic Epoch's full-length epochs; Rollover's non-QoS
 * kernels): the new quota, an excess discarded, a debt carried. */
int64_t quota_renew_discard(int64_t left, int64_t alloc, bool qos);

/* The QoS manager's view of one kernel. */
typedef struct quota_kernel {
    bool qos;                /* has a goal (ISCA'17 §3: a "QoS kernel") */
    bool live;               /* its first block has started and it has not ended */
    bool managed;            /* throttled in this epoch (else QUOTA_FREE) */
    double goal;             /* IPC_goal, thread instructions per cycle (0: non-QoS) */
    double lanes;            /* threads per warp instruction, on average */
    int64_t first_cycle;     /* -1 before its first issue slot */
    int64_t end_cycle;       /* its last warp's end; -1 before */
    int64_t instr;           /* thread instructions since it started */
    int64_t epoch_instr;     /* ... in the manager's current epoch */
    int64_t shared_instr;    /* warp instructions issued while a QoS kernel ran */
    int64_t warps;           /* resident warps, all SMs */
    int64_t wsplit;          /* W_k: resident warps when the quota was split */
    double alpha;            /* alpha_k of the current epoch (§3.4.2) */
    double ipc_epoch;        /* IPC_epoch of the last epoch (§3.5) */
    bool measured;           /* ipc_epoch was measured (the kernel ran in that epoch) */
    double quota;            /* Quota_k of the current epoch, GPU-wide */
} quota_kernel;

typedef struct quota_state {
    const quota_scheme *sch;
    int32_t nk, nsms;
    int64_t T;               /* T_epoch, cycles */
    int64_t epoch_start;     /* cycle the manager's current epoch began; -1 before */
    int64_t next_boundary;   /* the manager runs at the first cycle >= this */
    quota_kernel *k;         /* [nk] */
    int64_t *cnt;            /* [nsms * nk] C_k of each SM (ISCA'17 §3.4.1) */
    int64_t *alloc;          /* [nsms * nk] quota_k of each SM this epoch */
    int32_t *w;              /* [nsms * nk] warps of kernel k on SM s */
    int64_t *ends;           /* [nsms] Elastic Epoch: the SM's epoch ends here */
    uint8_t *raised;         /* [nsms] a counter of the SM was raised (a refill, an Elastic
                                Epoch's renewal, a joining kernel's share) since exec_warp.c
                                last looked: its sub-cores waiting for quota look again */
    int32_t qos_live;        /* QoS kernels running */
    int64_t win_start, win_end;   /* first QoS start, last QoS end (cycles) */
} quota_state;

/* Allocate for nk kernels on nsms SMs; epoch T cycles. 0 / -1 (OOM). */
int quota_init(quota_state *q, const quota_scheme *sch, int32_t nk, int32_t nsms, int64_t T);
void quota_free(quota_state *q);

/* Kernel k is a QoS kernel with IPC_goal `goal` (thread instructions per
 * cycle; 0 = non-QoS) and `lanes` threads per warp instruction. */
void quota_kernel_set(quota_state *q, int32_t k, double goal, double lanes);

/* The manager's epoch boundary at cycle c (exec_warp.c calls it at the
 * first cycle >= next_boundary, before any SM runs in that cycle). */
void quota_epoch(quota_state *q, int64_t c);

/* `n` warps of kernel k joined SM s at cycle c / one left it. */
void quota_join(quota_state *q, int32_t s, int32_t k, int32_t n, int64_t c);
void quota_leave(quota_state *q, int32_t s, int32_t k, int64_t c);
/* Kernel k's last warp ends at cycle `end`. */
void quota_done(quota_state *q, int32_t k, int64_t end);

/* Before SM s picks at cycle c: Elastic Epoch's time-out (§3.4.3). Inline,
 * as it comes before every pick of a quota run; the renewal is
 * quota_timeout's. */
void quota_timeout(quota_state *q, int32_t s, int64_t c);
static inline void quota_begin(quota_state *q, int32_t s, int64_t c) {
    if (q->sch->elastic && c >= q->ends[s] && q->epoch_start >= 0) quota_timeout(q, s, c);
}

/* A counter of SM s ran out at cycle c (or a kernel left it): the scheme's
 * refill rules (quota.c). */
void quota_refill(quota_state *q, int32_t s, int64_t c);

/* Sub-core s's warp instruction of kernel k with `lanes` threads
 * completed at cycle c: C_k drops by them (§3.4.1: "When a warp
 * instruction of k is completed, C_k is decremented by the number of
 * instructions that are actually executed in the warp instruction"), and
 * the refill rules run when a counter runs out. Inline: it comes with
 * every instruction of a quota run. */
static inline void quota_charge(quota_state *q, int32_t s, int32_t k, int32_t lanes, int64_t c) {
    quota_kernel *K = &q->k[k];
    size_t i = (size_t)s * (size_t)q->nk + (size_t)k;
    K->instr += lanes;
    K->epoch_instr += lanes;
    if (q->qos_live > 0) K->shared_instr++;
    if (q->cnt[i] == QUOTA_FREE) return;
    q->cnt[i] -= lanes;
    if (q->cnt[i] > 0) return;
    quota_refill(q, s, c);
}

/* The first cycle after c at which SM s can get quota without issuing
 * (the next boundary, or its elastic epoch's end). */
int64_t quota_wake(const quota_state *q, int32_t s, int64_t c);

/* Does SM s hold warps of a kernel that has used its quota? */
static inline bool quota_held(const quota_state *q, int32_t s) {
    const int64_t *cnt = q->cnt + (size_t)s * (size_t)q->nk;
    const int32_t *w = q->w + (size_t)s * (size_t)q->nk;
    for (int32_t k = 0; k < q->nk; k++)
        if (w[k] > 0 && cnt[k] <= 0) return true;
    return false;
}

/* The EWS pick (§3.3: "EWS does the usual scheduling but checks in each
 * cycle if the quota of a kernel has been reached"): greedy-then-oldest
 * (ISCA'17 Table 1, Sched. Policy GTO) over the warps whose kernel's
 * counter on this SM is positive. self: GTO's state (warp_gto_state). */
int32_t quota_pick(void *self, const warp_sub *s, int64_t c);
/* The same, inline (every quota policy's pick is quota_pick: QUOTA_POLICY
 * below; exec_warp.c calls this one). */
static inline int32_t quota_ews_pick(const warp_gto_state *g, const warp_sub *s, int64_t c) {
    int32_t greedy = g->greedy;
    const int64_t *cnt = s->quota_cnt;
    /* quota_k: the manager's kernel of each warp (NULL: its own) */
    const int32_t *qk = s->quota_k;
#define QK(i) (qk ? qk[(i)] : s->info[(i)].kernel)
    if (greedy >= 0 && s->ready[greedy] <= c && cnt[QK(greedy)] > 0) return greedy;
    const int64_t *r = s->ready;
    for (int32_t i = 0; i < s->n; i++)
        if (r[i] <= c && cnt[QK(i)] > 0) return i;
#undef QK
    return -1;
}

/* A quota scheme's warp policy entry: the EWS pick over GTO's state and
 * hooks (warp_gto.c), and its quota_scheme `sch` (warp_quota_*.c). */
#define QUOTA_POLICY(sch) \
    .state_size = sizeof(warp_gto_state), .init = warp_gto_init, .pick = quota_pick, \
    .on_issue = warp_gto_on_issue, .on_remove = warp_gto_on_remove, .quota = (sch)

/* A QoS kernel's share, for tests and records: C_k and quota_k of SM s. */
static inline int64_t quota_counter(const quota_state *q, int32_t s, int32_t k) {
    return q->cnt[(size_t)s * (size_t)q->nk + (size_t)k];
}
static inline int64_t quota_alloc(const quota_state *q, int32_t s, int32_t k) {
    return q->alloc[(size_t)s * (size_t)q->nk + (size_t)k];
}

#endif
