/* round_robin.c -- round-robin block placement, the literature's baseline.
 *
 * Most-room paper §4.1 contrasts its finding with "a pure round-robin
 * policy, as is widely believed": blocks go to the SMs in turn. As in
 * GPGPU-Sim's block issue loop, the turn is kept for the whole device: the
 * next block goes to the first SM after the last one used (in the device's
 * sm_order, wrapping around) that has room for it. */
#include "policy.h"

typedef struct rr_state {
    int32_t next;            /* rank in sm_order to try first */
} rr_state;

static int32_t round_robin_pick_sm(void *self, sim_sms *s, int32_t kernel, const sim_need *k) {
    rr_state *rr = self;
    sms_index(s, kernel, k);
    int32_t sm = sms_first_fit(s, rr->next);
    if (sm >= 0) rr->next = (s->rank[sm] + 1) % s->n;
    return sm;
}

/* Every SM idle with the same room: the turn goes round from the next
 * rank, each SM taking one block a round until the m are placed (cohort.c),
 * and the next turn is m ranks on. */
static bool round_robin_wave(void *self, const sim_sms *s, const sim_need *k, int64_t m,
                             int32_t *first) {
    (void)k;
    rr_state *rr = self;
    *first = rr->next;
    rr->next = (int32_t)((rr->next + m) % s->n);
    return true;
}

const placement_policy placement_round_robin = {
    .name = "round-robin",
    .doc = "the next SM in the device's SM order after the last one used that has room "
           "(the belief the most-room paper §4.1 tests)",
    .state_size = sizeof(rr_state),
    .pick = round_robin_pick_sm,
    .wave = round_robin_wave,
};
