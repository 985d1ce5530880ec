/* warp_lrr.c -- loose round-robin warp scheduling, as the QAWS paper defines
 * it (§II-A: "the same warp is issued by the warp scheduler every cycle
 * until an instruction stalls, at which point the warp scheduler chooses
 * the next warp in round robin order", Fig. 3b): the greedy warp while it
 * is ready, else the first ready warp after it in round-robin order.
 * (GPGPU-Sim's order_lrr rotates the start every cycle instead; the
 * paper's definition is the one its Fig. 3 draws.) */
#include "warp.h"

typedef struct lrr_state {
    int32_t greedy;          /* the warp that issued last; -1 = none or it has left */
    int32_t last;            /* position the round robin goes on after */
} lrr_state;

static int lrr_init(void *self, int32_t warps) {
    (void)warps;
    lrr_state *l = self;
    l->greedy = l->last = -1;   /* round robin starts at the oldest warp */
    return 0;
}

/* §II-A: "the same warp is issued ... every cycle until an instruction
 * stalls"; the round robin goes on after it */
static void lrr_on_issue(void *self, const warp_sub *s, int32_t p) {
    (void)s;
    lrr_state *l = self;
    l->greedy = l->last = p;
}

static void lrr_on_remove(void *self, const warp_sub *s, int32_t p) {
    (void)s;
    lrr_state *l = self;
    if (l->greedy == p) l->greedy = -1;
    else if (l->greedy > p) l->greedy--;
    /* round robin goes on with the warp that now holds the place */
    if (l->last >= p) l->last--;
}

static int32_t lrr_pick(void *self, const warp_sub *s, int64_t c) {
    const lrr_state *l = self;
    if (l->greedy >= 0 && s->ready[l->greedy] <= c) return l->greedy;
    /* `last` is the warp that issued last (or, when it has finished, the
     * one before its place): round robin goes on after it */
    return warp_first_ready_rr(s, l->last + 1, c);
}

const warp_policy warp_lrr = {
    .name = "lrr",
    .doc = "loose round-robin: the last warp again until it stalls, then the next ready warp "
           "in round-robin order (QAWS paper §II-A, Fig. 3b)",
    .state_size = sizeof(lrr_state),
    .init = lrr_init,
    .pick = lrr_pick,
    .on_issue = lrr_on_issue,
    .on_remove = lrr_on_remove,
};
