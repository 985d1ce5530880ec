/* warp_quota_rollover.c -- Rollover allocation (ISCA'17 §3.4.4), with the
 * history-based adjustment of §3.4.2 (kept by the evaluated schemes, §4.8):
 * "When allocating quotas in the next epoch, the unused quota of QoS
 * kernels from the last epoch are added to the quota of this epoch. The
 * quotas of non-QoS kernels are discarded as usual" (Fig. 4c). Only what
 * is unused rolls over; a counter the last warp instructions took below
 * zero carries that debt, as under every scheme (quota.h quota_debt). The
 * unused quota carried also counts in the non-QoS kernels' §3.5 quota as
 * alpha_k does (quota.c quota_epoch): while the QoS kernel holds unused
 * quota the others' quotas shrink, so the leftover buys issue slots. The
 * machinery is quota.c's. */
#include "quota.h"

static int64_t rollover_renew(int64_t left, int64_t alloc, bool qos) {
    return qos && left > 0 ? alloc + left : quota_renew_discard(left, alloc, qos);
}

static const quota_scheme rollover = { .history = true, .elastic = false,
                                       .renew = rollover_renew };

const warp_policy warp_quota_rollover = {
    .name = "quota-rollover",
    .doc = "quota-based QoS, rollover: a QoS kernel's unused quota is added to its next "
           "epoch's (ISCA'17 §3.4.4)",
    QUOTA_POLICY(&rollover),
};
