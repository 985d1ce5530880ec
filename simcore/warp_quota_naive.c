/* warp_quota_naive.c -- Naive quota allocation (ISCA'17 §3.4.1): every
 * epoch a QoS kernel gets Quota_k = IPC_goal x T_epoch (eq. 1), split over
 * the SMs by the blocks each hosts; what is left at the end of an epoch is
 * discarded ("simply discards the excess and resets C_k to quota_k"); a
 * debt, what the instructions charged at completion took below zero, is
 * carried (quota.h quota_debt). The
 * non-QoS kernels' quotas follow §3.5 with alpha_k = 1, and they are
 * refilled once every kernel on the SM has used its quota. The
 * machinery is quota.c's. */
#include "quota.h"

static const quota_scheme naive = { .history = false, .elastic = false, .renew = quota_renew_discard };

const warp_policy warp_quota_naive = {
    .name = "quota-naive",
    .doc = "quota-based QoS, naive: each epoch a QoS kernel may issue IPC_goal x T_epoch "
           "instructions, unused quota is discarded (ISCA'17 §3.4.1; GTO otherwise)",
    QUOTA_POLICY(&naive),
};
