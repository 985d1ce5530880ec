/* policies.c -- the four policy tables behind sim_policy_find/name/count.
 * A new policy is its own file plus one line here; index 0 of each table is
 * the default (a zeroed sim_policy). */
#include "policy.h"

#include <string.h>

static const placement_policy *const placements[] = {
    &placement_most_room,        /* most-room paper §4 */
    &placement_round_robin,      /* the literature's baseline, most-room §4.1 */
};

static const exec_policy *const executions[] = {
    &exec_fixed,                 /* the op's block_time */
};

static const driver_policy *const drivers[] = {
    &driver_shared,              /* one shared order across processes */
};

static const host_policy *const hosts[] = {
    &host_script,                /* the scenario's ops at their times */
};

#define COUNT(a) ((int32_t)(sizeof a / sizeof a[0]))
#define GET(table, id) ((id) >= 0 && (id) < COUNT(table) ? (table)[id] : NULL)

const placement_policy *placement_get(int32_t id) { return GET(placements, id); }
const exec_policy *exec_get(int32_t id) { return GET(executions, id); }
const driver_policy *driver_get(int32_t id) { return GET(drivers, id); }
const host_policy *host_get(int32_t id) { return GET(hosts, id); }

size_t sim_policy_count(sim_policy_table table) {
    switch (table) {
    case SIM_TABLE_PLACEMENT: return (size_t)COUNT(placements);
    case SIM_TABLE_EXECUTION: return (size_t)COUNT(executions);
    case SIM_TABLE_DRIVER: return (size_t)COUNT(drivers);
    case SIM_TABLE_HOST: return (size_t)COUNT(hosts);
    }
    return 0;
}

const char *sim_policy_name(sim_policy_table table, int32_t id) {
    switch (table) {
    case SIM_TABLE_PLACEMENT: return placement_get(id) ? placement_get(id)->name : NULL;
    case SIM_TABLE_EXECUTION: return exec_get(id) ? exec_get(id)->name : NULL;
    case SIM_TABLE_DRIVER: return driver_get(id) ? driver_get(id)->name : NULL;
    case SIM_TABLE_HOST: return host_get(id) ? host_get(id)->name : NULL;
    }
    return NULL;
}

const char *sim_policy_doc(sim_policy_table table, int32_t id) {
    switch (table) {
    case SIM_TABLE_PLACEMENT: return placement_get(id) ? placement_get(id)->doc : NULL;
    case SIM_TABLE_EXECUTION: return exec_get(id) ? exec_get(id)->doc : NULL;
    case SIM_TABLE_DRIVER: return driver_get(id) ? driver_get(id)->doc : NULL;
    case SIM_TABLE_HOST: return host_get(id) ? host_get(id)->doc : NULL;
    }
    return NULL;
}

int32_t sim_policy_find(sim_policy_table table, const char *name) {
    if (!name) return -1;
    int32_t n = (int32_t)sim_policy_count(table);
    for (int32_t i = 0; i < n; i++)
        if (strcmp(sim_policy_name(table, i), name) == 0) return i;
    return -1;
}

const char *sim_policy_table_name(sim_policy_table table) {
    switch (table) {
    case SIM_TABLE_PLACEMENT: return "placement";
    case SIM_TABLE_EXECUTION: return "execution";
    case SIM_TABLE_DRIVER: return "contexts";
    case SIM_TABLE_HOST: return "host";
    }
    return NULL;
}

int32_t sim_placement_find(const char *name) { return sim_policy_find(SIM_TABLE_PLACEMENT, name); }
const char *sim_placement_name(int32_t id) { return sim_policy_name(SIM_TABLE_PLACEMENT, id); }
size_t sim_placement_count(void) { return sim_policy_count(SIM_TABLE_PLACEMENT); }
