/* warp_quota_rollover_time.c -- Rollover-Time (ISCA'17 §4.5, Figs. 10-11):
 * "a time-multiplexed warp scheduling for Rollover (Rollover-Time) that
 * blocks non-QoS kernels until the QoS kernels finish their quotas", the
 * CPU-like prioritisation of §3.3 ("prioritize and allocate QoS kernels
 * with enough quota for them to reach their goals, and then allocate any
 * remaining cycles to non-QoS kernels"). The QoS kernels' quotas are
 * Rollover's (§3.4.4 with §3.4.2's alpha_k: the unused quota is added to
 * the next epoch's). A non-QoS kernel's counter starts every epoch at 0, so
 * it may not issue on an SM; once every QoS kernel on the SM has used its
 * quota, §3.4.1's refill gives it its §3.5 quota, and again each time
 * every kernel there has used its own, until the epoch ends (quota.c
 * refill). On an SM without a QoS kernel it runs from the epoch's start.
 * The machinery is quota.c's. */
#include "quota.h"

static int64_t rollover_time_renew(int64_t left, int64_t alloc, bool qos) {
    if (qos) return left > 0 ? alloc + left : quota_renew_discard(left, alloc, qos);   /* §3.4.4, as Rollover */
    /* §4.5: "blocks non-QoS kernels until the QoS kernels finish their
     * quotas"; the refill adds its quota to the debt it carries */
    return quota_debt(left);
}

static const quota_scheme rollover_time = { .history = true, .elastic = false,
                                            .renew = rollover_time_renew };

const warp_policy warp_quota_rollover_time = {
    .name = "quota-rollover-time",
    .doc = "quota-based QoS, Rollover-Time: rollover, the non-QoS kernels blocked on an SM "
           "until its QoS kernels have used their quotas (ISCA'17 §4.5)",
    QUOTA_POLICY(&rollover_time),
};
