/* exec_fixed.c -- the execution model of the TX2 and most-room papers: a
 * block runs for the time the op gives it (block_time, indexed by block
 * index and cycled), whatever else shares its SM. Stateless. */
#include <stdio.h>

#include "state.h"

static int64_t fixed_block_end(void *self, sim_state *st, int32_t k, int64_t index, int32_t sm,
                               int64_t start) {
    (void)self;
    (void)sm;
    const sim_kstate *K = &st->ks[k];
    /* a block index fits 32 bits (sim_run checks blocks <= INT32_MAX), and a
     * 32-bit division is several times cheaper than a 64-bit one */
    size_t n = K->nblock_time;
    int64_t dur = n == 1 ? K->block_time[0]
                : n <= UINT32_MAX ? K->block_time[(uint32_t)index % (uint32_t)n]
                                  : K->block_time[(size_t)index % n];
    return start + dur;
}

/* A kernel with a program needs the warp-level model. */
static int fixed_check(const sim_config *cfg, const sim_device *d, bool driver_pauses, char *err,
                       size_t errlen) {
    (void)d;
    (void)driver_pauses;
    for (size_t i = 0; i < cfg->nops; i++) {
        if (cfg->ops[i].kind == SIM_OP_KERNEL && cfg->ops[i].program) {
            snprintf(err, errlen, "ops[%zu].program: the fixed execution model runs block_time "
                     "only; a program needs policy.execution \"warp\"", i);
            return -1;
        }
    }
    return 0;
}

const exec_policy exec_fixed = {
    .name = "fixed",
    .doc = "each block runs for the op's block_time (TX2 and most-room papers)",
    .check = fixed_check,
    .block_end = fixed_block_end,
    .fixed = true,
};
