/* warp_lrr.c -- loose round-robin warp scheduling, as the QAWS paper defines
 * it (§II-A: "the same warp is issued by the warp scheduler every cycle
 * until an instruction stalls, at which point the warp scheduler chooses
 * the next warp in round robin order", Fig. 3b): the greedy warp while it
 * is ready, else the first ready warp after it in round-robin order.
 * (GPGPU-Sim's order_lrr rotates the start every cycle instead; the
 * paper's definition is the one its Fig. 3 draws.) */
#include "warp.h"

static int32_t lrr_pick(warp_sub *s, int64_t c) {
    if (s->greedy >= 0 && s->ready[s->greedy] <= c) return s->greedy;
    /* `last` is the warp that issued last (or, when it has finished, the
     * one before its place): round robin goes on after it */
    return warp_first_ready_rr(s, s->last + 1, c);
}

const warp_policy warp_lrr = {
    .name = "lrr",
    .doc = "loose round-robin: the last warp again until it stalls, then the next ready warp "
           "in round-robin order (QAWS paper §II-A, Fig. 3b)",
    .pick = lrr_pick,
};
