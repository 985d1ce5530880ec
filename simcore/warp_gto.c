/* warp_gto.c -- greedy-then-oldest warp scheduling (QAWS paper §II-A: "the
 * same warp is issued by the warp scheduler every cycle until an
 * instruction stalls, at which point the warp scheduler chooses the next
 * instruction from the oldest ready warp", Fig. 3a). GPGPU-Sim's default
 * (SM7_TITANV config: -gpgpu_scheduler gto), so the warp table's default. */
#include "warp.h"

static int32_t gto_pick(warp_sub *s, int64_t c) {
    return warp_gto_pick(s, c);
}

const warp_policy warp_gto = {
    .name = "gto",
    .doc = "greedy-then-oldest: the last warp again until it stalls, then the oldest ready "
           "warp (QAWS paper §II-A, Fig. 3a)",
    .pick = gto_pick,
};
