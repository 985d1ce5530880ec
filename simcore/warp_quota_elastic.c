/* warp_quota_elastic.c -- Elastic Epoch (ISCA'17 §3.4.3), with the
 * history-based adjustment of §3.4.2 (§4.8: the evaluated schemes keep it,
 * "When disabling history-based quota adjustment, QoSreach drops
 * significantly"): "Once all kernels consume their quota before the end of
 * an epoch, a new epoch immediately starts ... the C_k values are added to
 * the new quota values as if epoch 2 has started" (Fig. 4b). Epochs are
 * per sub-core (its counters); one that runs T_epoch cycles without its
 * quotas used up ends as under Naive. The QoS manager still measures and
 * recomputes quotas every T_epoch cycles. The machinery is quota.c's. */
#include "quota.h"

static const quota_scheme elastic = { .history = true, .elastic = true, .renew = quota_renew_discard };

const warp_policy warp_quota_elastic = {
    .name = "quota-elastic",
    .doc = "quota-based QoS, elastic epoch: a new epoch starts as soon as every kernel has "
           "used its quota, the leftovers added to the new quotas (ISCA'17 §3.4.3)",
    QUOTA_POLICY(&elastic),
};
