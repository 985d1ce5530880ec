/* warp_quota_history.c -- Naive allocation with history-based quota
 * adjustment (ISCA'17 §3.4.2): Quota_k = alpha_k x IPC_goal x T_epoch with
 * alpha_k = max(IPC_goal of k / IPC_history of k, 1), IPC_history the IPC
 * the kernel reached from its start to the epoch's beginning; unused quota
 * is discarded and a debt carried as under Naive. The non-QoS kernels'
 * quotas follow §3.5 with these alpha_k. The machinery is quota.c's. */
#include "quota.h"

static const quota_scheme history = { .history = true, .elastic = false, .renew = quota_renew_discard };

const warp_policy warp_quota_history = {
    .name = "quota-history",
    .doc = "quota-based QoS, naive with history-based adjustment: the quota scaled by "
           "max(IPC_goal / IPC_history, 1) (ISCA'17 §3.4.2)",
    QUOTA_POLICY(&history),
};
