/* placement.h -- the block placement policy table: where the next block of
 * the eligible kernel goes (the leftover policy of ee.c decides which kernel
 * is eligible; most-room paper §6).
 *
 * A policy is one function that returns the SM for one block of `kernel`
 * (need `k`), or -1 when no SM can take it now; the caller then places the
 * block there. A new policy is one new file plus one line in placement.c.
 * Policies keep their state in the sim_sms they are given (no globals). */
#ifndef SIMCORE_PLACEMENT_H
#define SIMCORE_PLACEMENT_H

#include <stdint.h>

#include "sms.h"

typedef int32_t (*sim_pick_fn)(sim_sms *s, int32_t kernel, const sim_need *k);

typedef struct placement_policy {
    const char *name;        /* as in scenario JSON: policy.placement */
    sim_pick_fn pick;
} placement_policy;

/* NULL when id is not in the table. */
const placement_policy *placement_get(int32_t id);

/* most_room.c: the SM that can take the most further blocks of this kernel,
 * ties broken by the device's sm_order. */
int32_t most_room_pick_sm(sim_sms *s, int32_t kernel, const sim_need *k);

/* round_robin.c: the next SM in sm_order after the last one used that fits. */
int32_t round_robin_pick_sm(sim_sms *s, int32_t kernel, const sim_need *k);

#endif
