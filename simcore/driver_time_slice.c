/* driver_time_slice.c -- the default NVIDIA (Tegra) driver: every process
 * with GPU work has its TSG on the runlist, and the GPU serves them
 * round-robin, each for up to the time slice L, paying theta at every
 * switch (GCAPS paper §2 "Time-shared scheduling" and Def. 1; TX2 paper
 * appendix A: kernels of different processes are multiprogrammed by
 * preemption, never run together). The machinery is tsg.c. */
#include "tsg.h"

static bool ts_member(void *drv, const sim_state *st, int32_t p) {
    const tsg *g = drv;
    /* GCAPS paper §2: "as commands are submitted, TSG entries are added to
     * the runlist"; a TSG with nothing to run gives up its turn */
    return tsg_has_work(g, st, p);
}

static int ts_init(void *self, sim_state *st) {
    tsg *g = self;
    return tsg_init(g, st, ts_member, g);
}

static void ts_fini(void *self) {
    tsg_fini(self);
}

static int32_t ts_pick(void *self, sim_state *st, const int32_t *cand, int64_t t) {
    return tsg_pick(self, st, cand, t);
}

static void ts_on_event(void *self, sim_state *st, const sim_event *ev) {
    tsg_on_event(self, st, ev);
}

static void ts_block_placed(void *self, sim_state *st, int32_t k, int32_t sm, int64_t start,
                            int64_t end) {
    tsg_block_placed(self, st, k, sm, start, end);
}

const driver_policy driver_time_slice = {
    .name = "time-slice",
    .doc = "each process is a TSG; the GPU serves the TSGs with work round-robin for up to "
           "time_slice each, paying context_switch at every switch (GCAPS paper §2)",
    .state_size = sizeof(tsg),
    .init = ts_init,
    .fini = ts_fini,
    .pick_process = ts_pick,
    .on_event = ts_on_event,
    .block_placed = ts_block_placed,
};
