/* driver_fmlp.c -- the GPU as one FMLP+ lock, the first lock-based
 * baseline of the GCAPS paper (ECRTS 2024, §7.1, Fig. 8; §7.2: "the fmlp+
 * baseline uses the driver's sync mode", a driver mutex held across each
 * GPU segment). FMLP+ (Brandenburg, ECRTS 2014): requests wait suspended
 * in FIFO order, and the holder's priority is boosted above every
 * non-holder of its core while it holds the lock. The queue and the
 * boosting are the host's (host_tasks.c, .gpu_lock); the GPU itself stays
 * the default driver's time-sliced runlist (tsg.c): with the lock, at most
 * one task's segment has GPU work at a time, and switching to it costs
 * theta as any TSG switch does. */
#include "tsg.h"

static bool fm_member(void *drv, const sim_state *st, int32_t p) {
    return tsg_has_work(drv, st, p);
}

static int fm_init(void *self, sim_state *st) { return tsg_init(self, st, fm_member, self); }
static void fm_fini(void *self) { tsg_fini(self); }
static int32_t fm_pick(void *self, sim_state *st, const int32_t *cand, int64_t t) {
    return tsg_pick(self, st, cand, t);
}
static void fm_on_event(void *self, sim_state *st, const sim_event *ev) {
    tsg_on_event(self, st, ev);
}
static void fm_block_placed(void *self, sim_state *st, int32_t k, int32_t sm, int64_t start,
                            int64_t end) {
    tsg_block_placed(self, st, k, sm, start, end);
}

const driver_policy driver_fmlp = {
    .name = "fmlp+",
    .doc = "the GPU as one FMLP+ lock (GCAPS paper §7.1): a task takes it before each GPU "
           "segment, waiters suspend in FIFO order, the holder is boosted on its core; the "
           "runlist is time-sliced as the default driver's",
    .state_size = sizeof(tsg),
    .init = fm_init,
    .fini = fm_fini,
    .pick_process = fm_pick,
    .on_event = fm_on_event,
    .block_placed = fm_block_placed,
    .gpu_lock = SIM_GPU_LOCK_FIFO,
};
