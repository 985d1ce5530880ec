/* round_robin.c -- round-robin block placement, the literature's baseline.
 *
 * Most-room paper §4.1 contrasts its finding with "a pure round-robin
 * policy, as is widely believed": blocks go to the SMs in turn. As in
 * GPGPU-Sim's block issue loop, the turn is kept for the whole device: the
 * next block goes to the first SM after the last one used (in the device's
 * sm_order, wrapping around) that has room for it. */
#include "placement.h"

int32_t round_robin_pick_sm(sim_sms *s, int32_t kernel, const sim_need *k) {
    sms_index(s, kernel, k);
    int32_t sm = sms_first_fit(s, s->rr_next);
    if (sm >= 0) s->rr_next = (s->rank[sm] + 1) % s->n;
    return sm;
}
