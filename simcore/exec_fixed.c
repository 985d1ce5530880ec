/* exec_fixed.c -- the execution model of the TX2 and most-room papers: a
 * block runs for the time the op gives it (block_time, indexed by block
 * index and cycled), whatever else shares its SM. Stateless. */
#include "state.h"

static int64_t fixed_block_end(void *self, sim_state *st, int32_t k, int64_t index, int32_t sm,
                               int64_t start) {
    (void)self;
    (void)sm;
    const sim_kstate *K = &st->ks[k];
    int64_t dur = K->nblock_time == 1 ? K->block_time[0]
                                      : K->block_time[(size_t)index % K->nblock_time];
    return start + dur;
}

const exec_policy exec_fixed = {
    .name = "fixed",
    .doc = "each block runs for the op's block_time (TX2 and most-room papers)",
    .block_end = fixed_block_end,
};
