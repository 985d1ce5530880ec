/* tb_adjust.h -- ISCA'17 §3.6's run-time TB adjustment: which QoS kernel
 * gets one more thread block (TB) on which SM, and whose TBs are swapped
 * out for it. The decision only; exec_warp.c samples the idle warps it
 * needs, preempts the victims' TBs and moves the caps ee.c places by.
 *
 * ISCA'17 §3.6, "Run-time adjustment": "During each epoch, we sample the
 * number of idle warps (IW) for all kernels. IWs have ready instructions
 * but are not scheduled to execute due to a full pipeline" (§4.1: "We
 * sample 100 times per epoch for the number of idle warps and use the
 * average for TB adjustment"). "At the beginning of an epoch, the number
 * of IWs is collected for each kernel in each SM. If the number of IWs
 * equals the number of warps per TB, then swapping out one TB has the same
 * TLP as swapping out those IWs. We call these TBs 'idle TBs'. If for a
 * QoS kernel, the number of idle TBs is no more than one and IPChistory
 * has not achieved its goal, then one more TB will be allocated to
 * increase TLP. TBs of a victim kernel will be swapped out, if more
 * resources are needed. The victim kernel is chosen if one of the
 * following conditions is satisfied: It is a non-QoS kernel; The kernel
 * has at least n+1 idle TBs if n of them are needed to vacate enough
 * resources; The IPChistory of the kernel is so high that IPChistory x
 * (1 - n/N) > IPCgoal, where N is the total number of TBs of this kernel
 * ... Lastly, to limit the overhead of preemption, swapping only happens
 * if there are no pending preemption requests from any kernel."
 *
 * Read here (the text leaves these open):
 * - an idle warp (exec_warp.c samples them) is one that could issue in the
 *   sampled cycle (ready, its kernel's counter on the SM positive) and did
 *   not, or one whose memory instruction waits in the device's memory
 *   queue behind other requests: on a device without an LD/ST queue of its
 *   own (the first-come-first-served `mem_bandwidth`, isca17-gpgpusim) a
 *   request queues after issue, where GPGPU-Sim's warp would wait at issue
 *   for a full LD/ST pipeline;
 * - no decision at the manager's first boundary: no epoch has been sampled
 *   ("At the beginning of an epoch, the number of IWs is collected": those
 *   of the epoch that ended), and IPC_history has no cycles yet;
 * - one TB more per QoS kernel and SM per epoch, for a kernel that has a
 *   TB to place (one not yet dispatched, or one swapped out earlier);
 * - idle TBs = floor(mean IW / warps per TB);
 * - among the victims the conditions allow, a non-QoS kernel first, then
 *   a QoS kernel; within each the one with the most TBs on the SM, then
 *   the lowest index; n is the fewest of its TBs whose resources, with
 *   what the SM has free, hold one TB of the QoS kernel;
 * - where no victim qualifies, or a swap is pending on that SM (its port
 *   is still saving contexts: the preemption engine works an SM at a
 *   time, "partial context switching [42]"), the TB is not allocated (it
 *   is asked for again at the next epoch). */
#ifndef SIMCORE_TB_ADJUST_H
#define SIMCORE_TB_ADJUST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sms.h"

/* One kernel as the QoS manager sees it at the epoch boundary. */
typedef struct tba_kernel {
    bool live;               /* it has TBs resident or waiting */
    bool qos;                /* it has a goal */
    bool waiting;            /* it has a TB to place (undispatched or swapped out) */
    double ipc_history;      /* IPC since it started, and ... */
    double goal;             /* ... IPC_goal, in one unit (0: non-QoS) */
    sim_need need;           /* one TB's resources */
    int64_t tbs;             /* N: its TBs resident on the whole GPU */
} tba_kernel;

/* One decision: kernel k gets one more TB on SM sm; `victim` (-1: none
 * needed) gives up n of its TBs there. */
typedef struct tba_move {
    int32_t sm, k, victim, n;
} tba_move;

/* The moves of one epoch boundary, at most `cap` of them into out; returns
 * how many. nk kernels, sms SMs; iw[sm * nk + k] the mean idle warps of k
 * on sm over the epoch, res[k * sms + sm] its TBs there (ee.c's
 * share_res), freed[sm] what the SM has free; swap_ok[sm]: no preemption
 * is pending there. */
size_t tba_decide(const tba_kernel *ks, int32_t nk, int32_t sms, const double *iw,
                  const int32_t *res, const sim_sm_free *freed, const bool *swap_ok,
                  tba_move *out, size_t cap);

#endif
