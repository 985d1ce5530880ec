/* placement.c -- the placement policy table behind sim_placement_find/name/count. */
#include "placement.h"

#include <string.h>

#include "sim.h"

static const placement_policy policies[] = {
    { "most-room", most_room_pick_sm },     /* index 0: the default (zeroed sim_policy) */
    { "round-robin", round_robin_pick_sm },
};

#define NPOLICIES ((int32_t)(sizeof policies / sizeof policies[0]))

const placement_policy *placement_get(int32_t id) {
    return (id >= 0 && id < NPOLICIES) ? &policies[id] : NULL;
}

int32_t sim_placement_find(const char *name) {
    if (!name) return -1;
    for (int32_t i = 0; i < NPOLICIES; i++)
        if (strcmp(policies[i].name, name) == 0) return i;
    return -1;
}

const char *sim_placement_name(int32_t id) {
    const placement_policy *p = placement_get(id);
    return p ? p->name : NULL;
}

size_t sim_placement_count(void) {
    return (size_t)NPOLICIES;
}
