/* warp_gto.c -- greedy-then-oldest warp scheduling (QAWS paper §II-A: "the
 * same warp is issued by the warp scheduler every cycle until an
 * instruction stalls, at which point the warp scheduler chooses the next
 * instruction from the oldest ready warp", Fig. 3a). GPGPU-Sim's default
 * (SM7_TITANV config: -gpgpu_scheduler gto), so the warp table's default.
 *
 * State per sub-core (warp_gto_state, warp.h): the greedy warp, GPGPU-Sim's
 * m_last_supervised_issued / order_by_priority's greedy value. Its hooks
 * are shared with the quota schemes, whose EWS is GTO (ISCA'17 Table 1). */
#include "warp.h"

int warp_gto_init(void *self, int32_t warps) {
    (void)warps;
    ((warp_gto_state *)self)->greedy = -1;   /* no warp has issued yet */
    return 0;
}

/* §II-A: the warp that issued is the one issued again while it is ready */
void warp_gto_on_issue(void *self, const warp_sub *s, int32_t p) {
    (void)s;
    ((warp_gto_state *)self)->greedy = p;
}

/* The greedy warp left: the oldest ready warp goes next ("chooses the next
 * instruction from the oldest ready warp"); a younger one moved down. */
void warp_gto_on_remove(void *self, const warp_sub *s, int32_t p) {
    (void)s;
    warp_gto_state *g = self;
    if (g->greedy == p) g->greedy = -1;
    else if (g->greedy > p) g->greedy--;
}

static int32_t gto_pick(void *self, const warp_sub *s, int64_t c) {
    return warp_gto_pick(s, ((const warp_gto_state *)self)->greedy, c);
}

const warp_policy warp_gto = {
    .name = "gto",
    .doc = "greedy-then-oldest: the last warp again until it stalls, then the oldest ready "
           "warp (QAWS paper §II-A, Fig. 3a)",
    .state_size = sizeof(warp_gto_state),
    .init = warp_gto_init,
    .pick = gto_pick,
    .on_issue = warp_gto_on_issue,
    .on_remove = warp_gto_on_remove,
};
