/* quota.c -- the QoS manager and the quota counters of the ISCA'17
 * quota-based QoS schemes (quota.h says what and why). */
#include "quota.h"

#include <stdlib.h>
#include <string.h>

#define AT(q, s, k) ((size_t)(s) * (size_t)(q)->nk + (size_t)(k))

int quota_init(quota_state *q, const quota_scheme *sch, int32_t nk, int32_t nsms, int64_t T) {
    memset(q, 0, sizeof *q);
    q->sch = sch;
    q->nk = nk;
    q->nsms = nsms;
    q->T = T;
    q->epoch_start = -1;
    q->next_boundary = 0;
    q->win_start = q->win_end = -1;
    size_t n = (size_t)nk * (size_t)nsms, n1 = n ? n : 1;
    q->k = calloc(nk ? (size_t)nk : 1, sizeof *q->k);
    q->cnt = calloc(n1, sizeof *q->cnt);
    q->alloc = calloc(n1, sizeof *q->alloc);
    q->w = calloc(n1, sizeof *q->w);
    q->ends = calloc(nsms ? (size_t)nsms : 1, sizeof *q->ends);
    q->raised = calloc(nsms ? (size_t)nsms : 1, sizeof *q->raised);
    if (!q->k || !q->cnt || !q->alloc || !q->w || !q->ends || !q->raised) return -1;
    for (int32_t k = 0; k < nk; k++) {
        q->k[k].first_cycle = q->k[k].end_cycle = -1;
        q->k[k].alpha = 1;
        q->k[k].lanes = 32;
    }
    /* before the first boundary nothing is throttled */
    for (size_t i = 0; i < n; i++) q->cnt[i] = QUOTA_FREE;
    return 0;
}

void quota_free(quota_state *q) {
    free(q->k);
    free(q->cnt);
    free(q->alloc);
    free(q->w);
    free(q->ends);
    free(q->raised);
    memset(q, 0, sizeof *q);
}

void quota_kernel_set(quota_state *q, int32_t k, double goal, double lanes) {
    q->k[k].qos = goal > 0;
    q->k[k].goal = goal;
    q->k[k].lanes = lanes > 0 ? lanes : 32;
}

int64_t quota_renew_discard(int64_t left, int64_t alloc, bool qos) {
    (void)qos;
    return alloc + quota_debt(left);
}

/* Split Quota_k over the SMs by the kernel's warps on each
 * (§3.4.1: "proportionally to the TBs hosted by each SM"). At least one
 * thread instruction: a share rounded down to nothing would stop the
 * kernel's warps there for good (Naive never raises a quota). */
static int64_t share(const quota_kernel *K, int64_t warps) {
    if (K->wsplit <= 0 || warps <= 0) return 0;
    int64_t a = (int64_t)(K->quota * (double)warps / (double)K->wsplit);
    return a > 0 ? a : 1;
}

void quota_epoch(quota_state *q, int64_t c) {
    const quota_scheme *sch = q->sch;
    int64_t prev = q->epoch_start;
    /* 1. measure the epoch that ended and the history (§3.4.2, §3.5) and
     * compute alpha_k and the QoS kernels' quotas, eq. (1):
     *     Quota_k = alpha_k x IPC_goal x T_epoch,
     *     alpha_k = max(IPC_goal of k / IPC_history of k, 1) */
    for (int32_t k = 0; k < q->nk; k++) {
        quota_kernel *K = &q->k[k];
        int64_t from = prev > K->first_cycle ? prev : K->first_cycle;
        /* IPC_epoch over the part of the epoch the kernel ran (a whole
         * epoch but for its first); 0 = nothing measured yet */
        K->measured = K->live && prev >= 0 && c > from;
        K->ipc_epoch = K->measured ? (double)K->epoch_instr / (double)(c - from) : 0;
        K->epoch_instr = 0;
        if (!K->qos) continue;
        K->alpha = 1;
        if (sch->history && K->live && c > K->first_cycle && K->instr > 0) {
            double hist = (double)K->instr / (double)(c - K->first_cycle);
            if (K->goal / hist > 1) K->alpha = K->goal / hist;
        }
        K->quota = K->alpha * K->goal * (double)q->T;
    }
    /* 2. the non-QoS kernels (§3.5): an artificial goal
     *     IPC_goal = IPC_epoch x prod over QoS kernels k of
     *                IPC_epoch of k / (alpha_k x IPC_goal of k)
     * with IPC_epoch "initially set to a conservatively small value ... 1"
     * (thread instructions per cycle), which is also its floor here so
     * that a kernel that could not issue in an epoch is not locked out for
     * good; then Quota = IPC_goal x T_epoch, eq. (1). QoS kernels that have
     * no measured epoch yet leave the product as it is.
     *
     * alpha_k x IPC_goal of k is the QoS kernel's quota per cycle,
     * Quota_k / T_epoch: §3.5 puts alpha_k there "to take the history-based
     * adjustment into consideration when limiting the performance of
     * non-QoS kernels". Rollover (§3.4.4) adjusts the quota too, by the
     * unused quota it adds to the next epoch's, and that is taken into
     * consideration the same way: the denominator is alpha_k x IPC_goal of
     * k + kept / T_epoch, kept what the scheme keeps of k's counters (0 but
     * under Rollover). Without it the non-QoS quota settles where the QoS
     * kernel stays short of its goal for good: it shrinks by the ratio each
     * epoch while the instructions it has in flight when its counter runs
     * out (charged at completion, §3.4.1) add as much back, and the QoS
     * kernel's leftover grows without ever buying an issue slot (c-alu
     * beside c-shared at goal 0.8 held 0.79 of isolated for 20 epochs, the
     * non-QoS kernel 0.21; docs/qos.md). */
    double ratio = 1;
    bool any_qos = false;
    for (int32_t k = 0; k < q->nk; k++) {
        const quota_kernel *K = &q->k[k];
        if (!K->qos || !K->live) continue;
        any_qos = true;
        if (!K->measured) continue;
        /* what the scheme keeps of the counters' unused quota
         * (Rollover: what it adds to the next epoch's; a debt, which
         * every scheme carries, is no quota kept) */
        double kept = 0;
        for (int32_t s = 0; s < q->nsms; s++) {
            size_t i = AT(q, s, k);
            if (q->w[i] > 0 && q->cnt[i] != QUOTA_FREE && q->cnt[i] > 0)
                kept += (double)sch->renew(q->cnt[i], 0, true);
        }
        ratio *= K->ipc_epoch / (K->alpha * K->goal + kept / (double)q->T);
    }
    for (int32_t k = 0; k < q->nk; k++) {
        quota_kernel *K = &q->k[k];
        if (K->qos) {
            K->managed = K->live;
            continue;
        }
        double base = K->ipc_epoch > 1 ? K->ipc_epoch : 1;
        K->quota = base * ratio * (double)q->T;
        /* nothing to protect while no QoS kernel runs */
        K->managed = K->live && any_qos;
    }
    /* 3. split over the SMs and renew the counters */
    for (int32_t k = 0; k < q->nk; k++) q->k[k].wsplit = q->k[k].warps;
    for (int32_t s = 0; s < q->nsms; s++) {
        for (int32_t k = 0; k < q->nk; k++) {
            const quota_kernel *K = &q->k[k];
            size_t i = AT(q, s, k);
            if (!K->managed) {
                q->alloc[i] = 0;
                q->cnt[i] = QUOTA_FREE;
                continue;
            }
            q->alloc[i] = share(K, q->w[i]);
            if (sch->elastic) {
                /* Elastic Epoch: the SM's own epochs renew its
                 * counters; a kernel throttled for the first time starts
                 * with its quota */
                if (q->cnt[i] == QUOTA_FREE) q->cnt[i] = q->alloc[i];
                continue;
            }
            int64_t left = q->cnt[i] == QUOTA_FREE ? 0 : q->cnt[i];
            q->cnt[i] = q->w[i] > 0 ? sch->renew(left, q->alloc[i], K->qos) : 0;
        }
        /* Elastic Epoch: the SMs' own epochs begin with the first */
        if (sch->elastic && prev < 0) q->ends[s] = c + q->T;
        /* a scheme that renews a non-QoS counter to 0 (Rollover-Time,
         * §4.5) refills it at once where no QoS kernel on the SM has quota
         * (for the others this finds every non-QoS counter positive) */
        else if (!sch->elastic) quota_refill(q, s, c);
    }
    q->epoch_start = c;
    q->next_boundary = c + q->T;
}

void quota_join(quota_state *q, int32_t s, int32_t k, int32_t n, int64_t c) {
    quota_kernel *K = &q->k[k];
    size_t i = AT(q, s, k);
    if (!K->live) {
        /* §3.2: goals "are passed to the GPU upon dispatching the kernel":
         * the manager starts a new epoch with it, before the cycle runs.
         * A kernel that joins again after its end is the same kernel
         * re-executed (§4.1; exec_warp.c maps the re-executions onto one
         * manager kernel): its history (first cycle, instructions) and its
         * counters carry over */
        K->live = true;
        if (K->end_cycle < 0) K->first_cycle = c;
        q->next_boundary = c;
        if (K->qos) {
            if (q->qos_live++ == 0 && q->win_start < 0) q->win_start = c;
        }
    }
    K->warps += n;
    bool had = q->w[i] > 0;
    q->w[i] += n;
    /* warps joining an SM that had none of the kernel's at the
     * boundary bring their share of Quota_k */
    if (K->managed && !had && q->alloc[i] == 0) {
        int64_t a = share(K, n);
        q->alloc[i] = a;
        /* what the scheme gives a counter at a boundary with nothing left
         * (a; 0 for a non-QoS kernel under Rollover-Time, §4.5, refilled
         * at once when the SM's QoS kernels are out of quota) */
        int64_t g = q->sch->renew(0, a, K->qos);
        if (q->cnt[i] == QUOTA_FREE || q->cnt[i] <= 0) q->cnt[i] = g;
        else q->cnt[i] += g;
        if (g > 0) q->raised[s] = 1;
        if (g <= 0 && !q->sch->elastic) quota_refill(q, s, c);
    }
}

void quota_leave(quota_state *q, int32_t s, int32_t k, int64_t c) {
    size_t i = AT(q, s, k);
    q->w[i]--;
    q->k[k].warps--;
    /* the kernel's last warp on the SM left with quota unused: the
     * kernels still there may now be the ones whose quota is all used
     * (§3.4.1 "checks if C_k for all ks in the SM are zero or negative";
     * §3.4.3 "Once all kernels consume their quota") */
    if (q->w[i] == 0 && q->cnt[i] > 0 && q->cnt[i] != QUOTA_FREE) quota_refill(q, s, c);
}

void quota_done(quota_state *q, int32_t k, int64_t end) {
    quota_kernel *K = &q->k[k];
    if (!K->live) return;
    K->live = false;
    K->end_cycle = end;
    if (K->qos && --q->qos_live == 0) q->win_end = end;
}

void quota_timeout(quota_state *q, int32_t s, int64_t c) {
    /* §3.4.3: the epoch ran its full length without every quota used up:
     * the scheme renews the counters as at a fixed boundary */
    size_t i0 = AT(q, s, 0);
    for (int32_t k = 0; k < q->nk; k++) {
        size_t i = i0 + (size_t)k;
        if (q->cnt[i] == QUOTA_FREE) continue;
        q->cnt[i] = q->w[i] > 0 ? q->sch->renew(q->cnt[i], q->alloc[i], q->k[k].qos) : 0;
    }
    q->ends[s] = c + q->T;
    q->raised[s] = 1;
}

/* Every kernel resident on SM s (and throttled) has used its quota. */
static bool all_used(const quota_state *q, int32_t s) {
    size_t i0 = AT(q, s, 0);
    for (int32_t k = 0; k < q->nk; k++) {
        size_t i = i0 + (size_t)k;
        if (q->w[i] == 0 || q->cnt[i] == QUOTA_FREE) continue;
        if (q->cnt[i] > 0) return false;
    }
    return true;
}

/* A counter on SM s ran out at cycle c (or a kernel left it): the
 * scheme's refill rules. */
void quota_refill(quota_state *q, int32_t s, int64_t c) {
    size_t i0 = AT(q, s, 0);
    if (q->sch->elastic) {
        /* §3.4.3: "Once all kernels consume their quota before the end of
         * an epoch, a new epoch immediately starts ... the C_k values are
         * added to the new quota values" */
        if (!all_used(q, s)) return;
        for (int32_t j = 0; j < q->nk; j++) {
            size_t x = i0 + (size_t)j;
            if (q->w[x] > 0 && q->cnt[x] != QUOTA_FREE) q->cnt[x] += q->alloc[x];
        }
        q->ends[s] = c + 1 + q->T;
        q->raised[s] = 1;
        return;
    }
    /* §3.4.1: "The naïve scheme checks if C_ks for all ks in the SM are
     * zero or negative, to ensure all QoS kernels have exhausted their
     * quotas. If so, some quantity, e.g., quota_k, is added to C_k for all
     * non-QoS kernels to keep them running until the end of the current
     * epoch. For QoS kernels, once the IPC goal has been reached, no
     * further quota is given." Every kernel on the SM, as printed: a
     * non-QoS kernel that has used its quota waits for the others there
     * to use theirs (Fig. 4a: C_K1 is reallocated by adding 50 when both
     * K0 and K1 are used up). Until 2026-12-05 only the QoS kernels'
     * counters were checked and each non-QoS kernel was refilled as it ran
     * out; with one non-QoS kernel on the SM (every pair) the two are the
     * same, and the 600 one-QoS trio points of Rollover at §4.1's
     * parameters came out the same under both (docs/qos.md, "The rules,
     * checked against the text"). */
    if (!all_used(q, s)) return;
    for (int32_t j = 0; j < q->nk; j++) {
        size_t x = i0 + (size_t)j;
        if (q->k[j].qos || q->w[x] == 0 || q->cnt[x] == QUOTA_FREE) continue;
        q->cnt[x] += q->alloc[x];
        q->raised[s] = 1;
    }
}

int64_t quota_wake(const quota_state *q, int32_t s, int64_t c) {
    int64_t t = q->next_boundary > c ? q->next_boundary : c + 1;
    if (q->sch->elastic && q->ends[s] > c && q->ends[s] < t) t = q->ends[s];
    return t;
}

int32_t quota_pick(void *self, const warp_sub *s, int64_t c) {
    return quota_ews_pick(self, s, c);
}
