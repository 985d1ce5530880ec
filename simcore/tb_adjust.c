/* tb_adjust.c -- ISCA'17 §3.6's run-time TB adjustment: the decision
 * (tb_adjust.h says what and how the text is read). */
#include "tb_adjust.h"

/* Does f hold one TB needing k? */
static bool fits(const sim_sm_free *f, const sim_need *k) {
    return f->blocks >= 1 && f->threads >= k->threads && f->warps >= k->warps &&
           f->regs >= k->regs && f->smem >= k->smem;
}

static void take(sim_sm_free *f, const sim_need *k, int32_t n) {
    f->blocks -= n;
    f->threads -= n * k->threads;
    f->warps -= n * k->warps;
    f->regs -= n * k->regs;
    f->smem -= n * k->smem;
}

/* The fewest TBs of victim v (it has `have` on the SM) whose resources,
 * with f, hold one TB of k; 0 when none are enough. */
static int32_t vacate(sim_sm_free f, const sim_need *v, int32_t have, const sim_need *k) {
    for (int32_t n = 1; n <= have; n++) {
        take(&f, v, -1);
        if (fits(&f, k)) return n;
    }
    return 0;
}

/* §3.6's victim conditions for kernel j giving up n TBs on an SM where it
 * has `idle` idle TBs. */
static bool victim_ok(const tba_kernel *j, int32_t n, int64_t idle) {
    if (!j->qos) return true;                                /* a non-QoS kernel */
    if (idle >= n + 1) return true;                          /* n + 1 idle TBs */
    return j->tbs > 0 &&                                     /* IPC margin to lose */
           j->ipc_history * (1.0 - (double)n / (double)j->tbs) > j->goal;
}

size_t tba_decide(const tba_kernel *ks, int32_t nk, int32_t sms, const double *iw,
                  const int32_t *res, const sim_sm_free *freed, const bool *swap_ok,
                  tba_move *out, size_t cap) {
    size_t nm = 0;
    for (int32_t sm = 0; sm < sms; sm++) {
        sim_sm_free f = freed[sm];
        for (int32_t k = 0; k < nk && nm < cap; k++) {
            const tba_kernel *K = &ks[k];
            if (!K->live || !K->qos || !K->waiting || K->ipc_history >= K->goal) continue;
            int64_t idle = K->need.warps > 0 ? (int64_t)(iw[(size_t)sm * (size_t)nk +
                                                            (size_t)k] / K->need.warps) : 0;
            if (idle > 1) continue;
            if (fits(&f, &K->need)) {
                take(&f, &K->need, 1);
                out[nm++] = (tba_move){ .sm = sm, .k = k, .victim = -1, .n = 0 };
                continue;
            }
            if (!swap_ok[sm]) continue;
            /* a victim: non-QoS first, then QoS; most TBs here, then index */
            int32_t best = -1, bn = 0;
            for (int pass = 0; pass < 2 && best < 0; pass++)
                for (int32_t j = 0; j < nk; j++) {
                    const tba_kernel *J = &ks[j];
                    int32_t have = res[(size_t)j * (size_t)sms + (size_t)sm];
                    if (j == k || !J->live || J->qos != (pass == 1) || have <= 0) continue;
                    int32_t n = vacate(f, &J->need, have, &K->need);
                    if (n == 0) continue;
                    int64_t jidle = J->need.warps > 0
                        ? (int64_t)(iw[(size_t)sm * (size_t)nk + (size_t)j] / J->need.warps) : 0;
                    if (!victim_ok(J, n, jidle)) continue;
                    if (best < 0 || have > res[(size_t)best * (size_t)sms + (size_t)sm]) {
                        best = j;
                        bn = n;
                    }
                }
            if (best < 0) continue;
            take(&f, &ks[best].need, -bn);
            take(&f, &K->need, 1);
            out[nm++] = (tba_move){ .sm = sm, .k = k, .victim = best, .n = bn };
        }
    }
    return nm;
}
