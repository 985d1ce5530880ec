/* most_room.c -- the most-room block placement policy.
 *
 * Most-room paper §4.1: "a kernel block will be scheduled to the streaming
 * multiprocessor that, at the time of scheduling, can support the most
 * blocks from the current kernel, with only one block scheduled to that SM
 * at a time"; ties go to the first SM in the device's fixed order (§4.3).
 * The choice is re-evaluated for every block (§4.2): the room index of
 * sms.c is kept current as blocks start and finish, so reading the best SM
 * is O(1) and so is each change (one bit between two room buckets).
 * Stateless. */
#include "policy.h"

static int32_t most_room_pick_sm(void *self, sim_sms *s, int32_t kernel, const sim_need *k) {
    (void)self;
    sms_index(s, kernel, k);
    return sms_most_room(s);
}

/* Every SM idle with the same room: the ties go in sm_order, so block
 * after block visits the ranks 0, 1, ..., n-1 in turn (cohort.c) -- unless
 * the kernel prefers a wave of ranks (H100-W1, sms.h). */
static bool most_room_wave(void *self, const sim_sms *s, const sim_need *k, int64_t m,
                           int32_t *first) {
    (void)self, (void)s, (void)m;
    if (k->wave) return false;
    *first = 0;
    return true;
}

const placement_policy placement_most_room = {
    .name = "most-room",
    .doc = "the SM with room for the most further blocks of the kernel, ties in the device's "
           "SM order (Gilman et al., most-room paper §4)",
    .pick = most_room_pick_sm,
    .most_room = true,
    .wave = most_room_wave,
};
