/* driver_shared.c -- processes share the block scheduler with no time
 * slicing: the model of the TX2 and most-room papers, whose rules act
 * within one address space.
 *
 * Between address spaces the papers give no order (their kernels are
 * time-sliced, TX2 paper appendix A, and priorities do not apply across
 * processes). This driver serves the process whose eligible kernel reached
 * its EE queue first; a process that could not place a block this round
 * (cand = -1) does not hold up the others. Stateless. */
#include "state.h"

static int32_t shared_pick_process(void *self, sim_state *st, const int32_t *cand,
                                   int64_t t) {
    (void)self;
    (void)t;
    int32_t best = -1;
    for (size_t p = 0; p < st->nprocs; p++) {
        int32_t k = cand[p];
        if (k >= 0 && (best < 0 || st->ks[k].ee_seq < st->ks[cand[best]].ee_seq))
            best = (int32_t)p;
    }
    return best;
}

const driver_policy driver_shared = {
    .name = "shared",
    .doc = "one address space order: the process whose eligible kernel reached its EE queue "
           "first (TX2 and most-room papers)",
    .pick_process = shared_pick_process,
    .pick_only = true,
    .earliest_ee = true,
};
