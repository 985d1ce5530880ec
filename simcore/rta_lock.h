/* rta_lock.h -- response-time analysis of lock-based GPU access, the
 * baselines the GCAPS paper compares against in Fig. 8 (ECRTS 2024, §7.1):
 * the GPU as one global resource guarded by
 *   FMLP+  Brandenburg's FIFO-ordered suspension-based mutex with priority
 *          boosting of the holder (Brandenburg, "The FMLP+: an
 *          asymptotically optimal real-time locking protocol for
 *          suspension-aware analysis", ECRTS 2014), and
 *   MPCP   the Multiprocessor Priority Ceiling Protocol, priority-ordered
 *          and ceiling-boosted, with the hybrid analysis of Patel, Kim,
 *          Rajkumar, "Analytical enhancements and practical insights for
 *          MPCP with self-suspensions" (RTAS 2018), the paper's ref. for
 *          its mpcp curves,
 * as the authors' released analysis code (rtenlab/gcaps-super-repo,
 * analysis/fmlp.py and mpcp.py) computes them: that code is what Fig. 8
 * plots, and the paper prints none of these equations. rta.c dispatches
 * rta_approach RTA_FMLP_* and RTA_MPCP_* here.
 *
 * Under RTA_CORRECTED one term changes (K6 in rta_lock.c): MPCP with
 * busy-waiting charges a boosted lower-priority holder's whole segment.
 *
 * Pure like rta.c: no I/O, no globals, no allocation, stack bounded by
 * RTA_MAX_TASKS. */
#ifndef SIMCORE_RTA_LOCK_H
#define SIMCORE_RTA_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "rta.h"

/* Analyse a checked taskset under FMLP+ (mpcp false) or MPCP, busy-waiting
 * or self-suspending; wcrt[] gets one bound per task (RTA_FAILED,
 * RTA_NOT_ANALYSED as in rta.h). *work counts interference terms against
 * RTA_MAX_WORK. Returns whether every real-time task passed. */
bool rta_lock_analyse(const rta_taskset *ts, bool mpcp, bool busy, int64_t *wcrt,
                      int64_t *work);

#endif
