/* warp_lrr_gpgpusim.c -- loose round-robin as GPGPU-Sim implements it
 * (gpgpu-sim_distribution, shader.cc, scheduler_unit::order_lrr, the
 * policy of `-gpgpu_scheduler lrr`): every cycle the order starts at the
 * warp after the one that issued last (m_last_supervised_issued + 1) and
 * wraps around, and the first ready warp of that order issues. So ready
 * warps take turns cycle by cycle, where the QAWS paper's LRR (warp_lrr.c,
 * §II-A and Fig. 3b) keeps issuing one warp until it stalls.
 *
 * The QAWS paper ran its Fig. 4 on GPGPU-Sim ("The existing simulation
 * framework has various implementations (for LRR, GTO, etc.) of this
 * function", §IV-A), so this is the LRR those runs had; its text and Fig.
 * 3b describe the other. Both are kept, each under its own name.
 *
 * The order is the sub-core's warps oldest first (warp.h), GPGPU-Sim's
 * m_supervised_warps in warp-slot order: the same while warps are dealt to
 * slots in the order their blocks are placed. */
#include "warp.h"

typedef struct rr_state {
    int32_t last;            /* position of the warp that issued last; -1 = none */
} rr_state;

static int rr_init(void *self, int32_t warps) {
    (void)warps;
    ((rr_state *)self)->last = -1;   /* order_lrr: begin() when nothing has issued */
    return 0;
}

static void rr_on_issue(void *self, const warp_sub *s, int32_t p) {
    (void)s;
    ((rr_state *)self)->last = p;
}

/* The order goes on after the place the last warp issued from: when that
 * warp leaves, the one that now holds its place is next (GPGPU-Sim keeps the
 * finished warp's slot in m_supervised_warps and starts after it). */
static void rr_on_remove(void *self, const warp_sub *s, int32_t p) {
    (void)s;
    rr_state *r = self;
    if (r->last >= p) r->last--;
}

static int32_t rr_pick(void *self, const warp_sub *s, int64_t c) {
    return warp_first_ready_rr(s, ((const rr_state *)self)->last + 1, c);
}

const warp_policy warp_lrr_gpgpusim = {
    .name = "lrr-gpgpusim",
    .doc = "GPGPU-Sim's loose round-robin (scheduler_unit::order_lrr): each cycle the first "
           "ready warp after the one that issued last",
    .state_size = sizeof(rr_state),
    .init = rr_init,
    .pick = rr_pick,
    .on_issue = rr_on_issue,
    .on_remove = rr_on_remove,
};
