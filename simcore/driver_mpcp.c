/* driver_mpcp.c -- the GPU as one MPCP global semaphore, the second
 * lock-based baseline of the GCAPS paper (ECRTS 2024, §7.1, Fig. 8).
 * MPCP (Rajkumar, ICDCS 1990; for GPUs, Lakshmanan et al. 2009 and Patel
 * et al., RTAS 2018, whose hybrid analysis the paper's mpcp curves use):
 * requests wait suspended in priority order (FIFO among equals), and the
 * holder runs its critical section at the ceiling, above every task of its
 * core that is not in a critical section. The queue and the ceiling are the
 * host's (host_tasks.c, .gpu_lock); the GPU itself stays the default
 * driver's time-sliced runlist (tsg.c), as in driver_fmlp.c. */
#include "tsg.h"

static bool mp_member(void *drv, const sim_state *st, int32_t p) {
    return tsg_has_work(drv, st, p);
}

static int mp_init(void *self, sim_state *st) { return tsg_init(self, st, mp_member, self); }
static void mp_fini(void *self) { tsg_fini(self); }
static int32_t mp_pick(void *self, sim_state *st, const int32_t *cand, int64_t t) {
    return tsg_pick(self, st, cand, t);
}
static void mp_on_event(void *self, sim_state *st, const sim_event *ev) {
    tsg_on_event(self, st, ev);
}
static void mp_block_placed(void *self, sim_state *st, int32_t k, int32_t sm, int64_t start,
                            int64_t end) {
    tsg_block_placed(self, st, k, sm, start, end);
}

const driver_policy driver_mpcp = {
    .name = "mpcp",
    .doc = "the GPU as one MPCP semaphore (GCAPS paper §7.1): a task takes it before each GPU "
           "segment, waiters suspend in priority order, the holder runs at the ceiling on its "
           "core; the runlist is time-sliced as the default driver's",
    .state_size = sizeof(tsg),
    .init = mp_init,
    .fini = mp_fini,
    .pick_process = mp_pick,
    .on_event = mp_on_event,
    .block_placed = mp_block_placed,
    .gpu_lock = SIM_GPU_LOCK_PRIO,
};
