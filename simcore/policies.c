/* policies.c -- the four policy tables behind sim_policy_find/name/count.
 * A new policy is its own file (defining `const <table>_policy NAME`) plus
 * one X(...) line here, which both declares it and lists it. */
#include "policy.h"
#include "warp.h"

#include <string.h>

/* The tables. Each line names a policy object defined in its own file;
 * the first entry of a table is its default (a zeroed sim_policy). */
#define PLACEMENTS(X) \
    X(placement_policy, placement_most_room)    /* most-room paper §4 */ \
    X(placement_policy, placement_round_robin)  /* the literature's baseline, most-room §4.1 */ \
    X(placement_policy, placement_spart)        /* SM partitions, ISCA'17 §2.3, §4.1 (Spart) */ \
    X(placement_policy, placement_spart_climb)  /* moved at run time, ISCA'17 §4.1 after [3] */

#define EXECUTIONS(X) \
    X(exec_policy, exec_fixed)                  /* the op's block_time */ \
    X(exec_policy, exec_warp)                   /* warps on sub-cores, QAWS paper §II, §IV */

#define DRIVERS(X) \
    X(driver_policy, driver_shared)             /* one shared order across processes */ \
    X(driver_policy, driver_time_slice)         /* TSG round robin, GCAPS paper §2 */ \
    X(driver_policy, driver_gcaps)              /* GCAPS paper §5, Alg. 1 */ \
    X(driver_policy, driver_fmlp)               /* FMLP+ GPU lock, GCAPS paper §7.1 */ \
    X(driver_policy, driver_mpcp)               /* MPCP GPU lock, GCAPS paper §7.1 */

#define HOSTS(X) \
    X(host_policy, host_script)                 /* the scenario's ops at their times */ \
    X(host_policy, host_tasks)                  /* periodic real-time tasks, GCAPS paper §4 */

#define WARPS(X) \
    X(warp_policy, warp_gto)                    /* GPGPU-Sim's default; QAWS §II-A */ \
    X(warp_policy, warp_lrr)                    /* QAWS §II-A */ \
    X(warp_policy, warp_qaws)                   /* QAWS §IV, Algorithm 1 */ \
    X(warp_policy, warp_quota_naive)            /* ISCA'17 §3.4.1 */ \
    X(warp_policy, warp_quota_history)          /* ISCA'17 §3.4.2 */ \
    X(warp_policy, warp_quota_elastic)          /* ISCA'17 §3.4.3 */ \
    X(warp_policy, warp_quota_rollover)         /* ISCA'17 §3.4.4 */ \
    X(warp_policy, warp_quota_rollover_time)    /* ISCA'17 §4.5, Rollover-Time */ \
    X(warp_policy, warp_lrr_gpgpusim)           /* GPGPU-Sim's order_lrr, QAWS §IV-A's simulator */

#define DECLARE(type, sym) extern const type sym;
#define ENTRY(type, sym) &sym,
PLACEMENTS(DECLARE)
EXECUTIONS(DECLARE)
DRIVERS(DECLARE)
HOSTS(DECLARE)
WARPS(DECLARE)

static const placement_policy *const placements[] = { PLACEMENTS(ENTRY) };
static const exec_policy *const executions[] = { EXECUTIONS(ENTRY) };
static const driver_policy *const drivers[] = { DRIVERS(ENTRY) };
static const host_policy *const hosts[] = { HOSTS(ENTRY) };
static const warp_policy *const warps[] = { WARPS(ENTRY) };

#define COUNT(a) ((int32_t)(sizeof a / sizeof a[0]))
#define GET(table, id) ((id) >= 0 && (id) < COUNT(table) ? (table)[id] : NULL)

const placement_policy *placement_get(int32_t id) { return GET(placements, id); }
const exec_policy *exec_get(int32_t id) { return GET(executions, id); }
const driver_policy *driver_get(int32_t id) { return GET(drivers, id); }
const host_policy *host_get(int32_t id) { return GET(hosts, id); }
const warp_policy *warp_get(int32_t id) { return GET(warps, id); }

size_t sim_policy_count(sim_policy_table table) {
    switch (table) {
    case SIM_TABLE_PLACEMENT: return (size_t)COUNT(placements);
    case SIM_TABLE_EXECUTION: return (size_t)COUNT(executions);
    case SIM_TABLE_DRIVER: return (size_t)COUNT(drivers);
    case SIM_TABLE_HOST: return (size_t)COUNT(hosts);
    case SIM_TABLE_WARP: return (size_t)COUNT(warps);
    }
    return 0;
}

const char *sim_policy_name(sim_policy_table table, int32_t id) {
    switch (table) {
    case SIM_TABLE_PLACEMENT: return placement_get(id) ? placement_get(id)->name : NULL;
    case SIM_TABLE_EXECUTION: return exec_get(id) ? exec_get(id)->name : NULL;
    case SIM_TABLE_DRIVER: return driver_get(id) ? driver_get(id)->name : NULL;
    case SIM_TABLE_HOST: return host_get(id) ? host_get(id)->name : NULL;
    case SIM_TABLE_WARP: return warp_get(id) ? warp_get(id)->name : NULL;
    }
    return NULL;
}

const char *sim_policy_doc(sim_policy_table table, int32_t id) {
    switch (table) {
    case SIM_TABLE_PLACEMENT: return placement_get(id) ? placement_get(id)->doc : NULL;
    case SIM_TABLE_EXECUTION: return exec_get(id) ? exec_get(id)->doc : NULL;
    case SIM_TABLE_DRIVER: return driver_get(id) ? driver_get(id)->doc : NULL;
    case SIM_TABLE_HOST: return host_get(id) ? host_get(id)->doc : NULL;
    case SIM_TABLE_WARP: return warp_get(id) ? warp_get(id)->doc : NULL;
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
    case SIM_TABLE_WARP: return "warp";
    }
    return NULL;
}

int32_t sim_placement_find(const char *name) { return sim_policy_find(SIM_TABLE_PLACEMENT, name); }
const char *sim_placement_name(int32_t id) { return sim_policy_name(SIM_TABLE_PLACEMENT, id); }
size_t sim_placement_count(void) { return sim_policy_count(SIM_TABLE_PLACEMENT); }
bool sim_placement_partitioned(int32_t id) { return placement_get(id) && placement_get(id)->partitioned; }
bool sim_placement_cohorts(int32_t id) { return placement_get(id) && placement_get(id)->wave; }
bool sim_warp_quota(int32_t id) { return warp_get(id) && warp_get(id)->quota; }
bool sim_placement_qos(int32_t id) { return placement_get(id) && placement_get(id)->qos_epoch; }
bool sim_driver_bookkeeping(int32_t id) { return driver_get(id) && driver_get(id)->segment_switches; }
