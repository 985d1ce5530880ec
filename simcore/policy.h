/* policy.h -- the simulator's four policy tables.
 *
 * Each decision the model leaves open is a table of policies, and each
 * policy is one file plus one line in policies.c, in the spirit of
 * GPGPU-Sim's scheduler_unit::order_warps (each warp policy overrides only
 * its ordering), without its repeated constructors:
 *
 *   placement  which SM the next block of the eligible kernel goes to
 *              (most-room paper §4; most_room.c, round_robin.c; spart.c:
 *              within each stream's SM partition, ISCA'17 §4.1's Spart)
 *   execution  how long a placed block runs (exec_fixed.c: the op's
 *              block_time; the warp-level model is the next entry)
 *   driver     which process's work the block scheduler takes next
 *              (driver_shared.c: one shared address space order; GPU
 *              contexts time-sliced or preempted: driver_time_slice.c,
 *              driver_gcaps.c on tsg.c)
 *   host       what issues ops to the streams (host_script.c: the scenario's
 *              op list at its times; host_tasks.c: periodic real-time
 *              tasks on CPU cores)
 *
 * A policy has per-run state: `state_size` bytes that sim_run allocates
 * zeroed before `init` and frees after `fini` (either hook may be NULL).
 * Policies keep nothing global, so runs are independent and deterministic.
 *
 * Calls go one way (DESIGN §2, docs/modules.md): host -> streams ->
 * ee / ce -> placement -> sms. A policy is called by the layer that owns
 * its decision and reports back by return value; anything that happens
 * later is an engine event, which sim.c routes. */
#ifndef SIMCORE_POLICY_H
#define SIMCORE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "sim.h"
#include "sms.h"

typedef struct sim_state sim_state;

/* ---- placement ------------------------------------------------------------
 * pick: the SM for one block of `kernel` (need `k`), or -1 when no SM can
 * take it now (TX2 paper, rules R1-R3: only SMs where every resource fits);
 * the caller then places the block there. */
typedef struct placement_policy {
    const char *name;        /* as in scenario JSON: policy.placement */
    const char *doc;         /* one line for /api/capabilities */
    size_t state_size;
    /* may refuse the configuration (spart: a partition off the device),
     * with a message naming the field; NULL: accepts every one */
    int (*init)(void *self, const sim_state *st, char *err, size_t errlen);
    void (*fini)(void *self);
    int32_t (*pick)(void *self, sim_sms *s, int32_t kernel, const sim_need *k);
    /* places by the streams' SM partitions (streams[].sms, spart.c): a
     * configuration without them places as most-room, so a replay, which
     * has none, makes no variant of it (sim_placement_partitioned) */
    bool partitioned;
    /* moves the streams' SM partitions at run time towards the QoS goals
     * (spart-climb, spart.c; NULL: partitions stay as configured). Called
     * by the warp-level model at each QoS epoch boundary (policy.quota_epoch
     * cycles, exec_warp.c) with issued[k], kernel k's warp instructions so
     * far, and `cycles`, the epoch's length; edits st->part_first/count and
     * returns true when it moved an SM (the caller then wakes the block
     * scheduler). Runs with QoS goals need a quota warp policy or this. */
    bool (*qos_epoch)(void *self, sim_state *st, const int64_t *issued, int64_t cycles);
    /* pick is exactly "sms_index, then sms_most_room" (most_room.c): the
     * block scheduler's fast path (ee.h) reads the room index itself
     * rather than call pick once per block (issue 9) */
    bool most_room;
    /* cohorts (cohort.c): m identical blocks of a kernel (need k) are about
     * to be placed on SMs that are all idle, each with room for the same
     * number of them, m at most all that room. Where picking them one by
     * one goes round the SMs in rank order, the rank the first goes to
     * (the next ones follow it, wrapping): set *first, move the policy's
     * state on as the m picks would, and return true; else false, and
     * the blocks are placed one by one. NULL: never. */
    bool (*wave)(void *self, const sim_sms *s, const sim_need *k, int64_t m, int32_t *first);
} placement_policy;

/* ---- execution ------------------------------------------------------------
 * block_end: block `index` of kernel k (index in the trace's kernels) was
 * placed on `sm` and starts at `start`; return the time it ends, or
 * SIM_END_LATER when the model decides that later: it then schedules an
 * EV_BLOCK_DONE event (a = kernel, b = sm) itself, from on_event, and
 * sim.c routes it like any other completion. on_event receives the events
 * of type EV_EXEC the policy scheduled. */
#define SIM_END_LATER INT64_MAX

typedef struct exec_policy {
    const char *name;
    const char *doc;
    size_t state_size;
    /* block_end may return SIM_END_LATER: a block sink then gets each block
     * once its end is known (sim.c holds later blocks back meanwhile) */
    bool ends_later;
    /* may refuse a configuration before anything is set up, with a message
     * naming the field (ops[i].program...); driver_pauses: the driver
     * policy pauses blocks (it has block_placed). NULL: accepts every one */
    int (*check)(const sim_config *cfg, const sim_device *d, bool driver_pauses, char *err,
                 size_t errlen);
    int (*init)(void *self, sim_state *st);
    void (*fini)(void *self);
    int64_t (*block_end)(void *self, sim_state *st, int32_t k, int64_t index, int32_t sm,
                         int64_t start);
    void (*on_event)(void *self, sim_state *st, const sim_event *ev);
    /* a block of kernel k that the policy preempted (it pushed
     * EV_BLOCK_PREEMPTED once the block's context was saved) resumes on
     * sm at start: the policy picks which of k's saved blocks, gives its
     * index in *index, and returns its end as block_end does. NULL: the
     * policy never preempts. */
    int64_t (*block_resume)(void *self, sim_state *st, int32_t k, int32_t sm, int64_t start,
                            int64_t *index);
    /* called once the instant t is over (its events routed, its blocks
     * placed), so that what the model does at t sees every block placed at
     * t (exec_warp: the cycle that begins at t); may schedule events at t,
     * which make one more instant t. `horizon` is when the host acts next
     * (INT64_MAX: never): with no engine event before it either, nothing
     * else happens until then. NULL: none. */
    void (*instant_end)(void *self, sim_state *st, int64_t t, int64_t horizon);
    /* block_end is exactly start + block_time[index % nblock_time] and the
     * policy keeps no state and has no events (exec_fixed.c): the block
     * scheduler's fast path (ee.c) computes the end itself (issue 9) */
    bool fixed;
} exec_policy;

/* ---- driver ---------------------------------------------------------------
 * pick_process: cand[p] is process p's kernel that may place blocks now
 * (the head of its highest non-empty EE queue, rules X1 and A2), or -1
 * when it has none or could not place a block in this round. Return the
 * process the block scheduler serves next, or -1 to leave the GPU to
 * nobody now. on_event receives the EV_DRIVER events it scheduled (a time
 * slice expiring, a context switch done). */
typedef struct driver_policy {
    const char *name;
    const char *doc;
    size_t state_size;
    int (*init)(void *self, sim_state *st);
    void (*fini)(void *self);
    int32_t (*pick_process)(void *self, sim_state *st, const int32_t *cand, int64_t t);
    void (*on_event)(void *self, sim_state *st, const sim_event *ev);
    /* Drivers that switch contexts (may be NULL otherwise): a block of
     * kernel k was placed on sm (its record is the trace's last block) and
     * would run [start, end); the driver schedules its completion itself,
     * so it can pause the block, and later pushes EV_BLOCK_DONE (a = k,
     * b = sm) at the time it really ends. */
    void (*block_placed)(void *self, sim_state *st, int32_t k, int32_t sm, int64_t start,
                         int64_t end);
    /* GCAPS's gcapsGpuSegBegin / gcapsGpuSegEnd (GCAPS paper §5.1, Alg. 1),
     * called by the host when the runlist update is submitted; NULL: the
     * driver has no such macros (and the host charges no runlist update). */
    void (*segment)(void *self, sim_state *st, int32_t proc, bool begin, int32_t gpu_priority,
                    bool best_effort, int64_t t);
    /* Would that call change the runlist? Asked by the host when the call
     * takes the runlist lock, for policy.ioctl_bookkeeping (issue 27): a
     * call that only moves a TSG between Alg. 1's sets costs that instead
     * of epsilon (GCAPS paper §7.2, Fig. 12: "The lower mode in the
     * distribution indicates requests that do not necessarily require
     * runlist updates"). No effects. NULL: every call is an update. */
    bool (*segment_switches)(const void *self, const sim_state *st, int32_t proc, bool begin,
                             int32_t gpu_priority, bool best_effort);
    /* true: pick_process only chooses (no effects on the driver's state)
     * and returns -1 whenever every cand is -1, so dispatch leaves it
     * uncalled when no process has a candidate (twice per instant on a
     * busy GPU otherwise). false for drivers that act in pick_process. */
    bool pick_only;
    /* pick_process is exactly "the candidate whose kernel reached its EE
     * queue first (smallest ee_seq), first process on ties", with no
     * state, events or block_placed (driver_shared.c): the block
     * scheduler's fast path (ee.c) picks itself (issue 9) */
    bool earliest_ee;
    /* Lock-based GPU access, the GCAPS paper's §7.1 baselines: the host
     * takes this one global GPU lock before each GPU segment of a task and
     * gives it back when the segment's GPU work is done (host_tasks.c);
     * SIM_GPU_LOCK_NONE (0) for every other driver. */
    int32_t gpu_lock;
} driver_policy;

enum {
    SIM_GPU_LOCK_NONE = 0,
    SIM_GPU_LOCK_FIFO,   /* FMLP+ (Brandenburg 2014): FIFO queue, holder boosted */
    SIM_GPU_LOCK_PRIO    /* MPCP (Rajkumar 1990; Lakshmanan 2009): by priority, at the ceiling */
};

/* ---- host -----------------------------------------------------------------
 * next_time: when the host next acts (INT64_MAX: never again, as far as it
 * knows now). issue: act at t (issue every op due at t, in order).
 * op_done: op `op` completed at t (sim.c reports every kernel and copy),
 * for hosts that wait on their own work; may be NULL. init may refuse the
 * configuration with a message. */
typedef struct host_policy {
    const char *name;
    const char *doc;
    size_t state_size;
    /* Hosts that make their own ops (one kernel per job of a periodic task)
     * write the configuration the run uses into *out before anything is set
     * up: the caller's streams and ops first, then theirs. *mem is theirs,
     * released with expand_free. Both may be NULL. */
    int (*expand)(const sim_config *in, sim_config *out, void **mem, char *err, size_t errlen);
    void (*expand_free)(void *mem);
    int (*init)(void *self, sim_state *st, char *err, size_t errlen);
    void (*fini)(void *self);
    int64_t (*next_time)(void *self);
    void (*issue)(void *self, sim_state *st, int64_t t);
    void (*op_done)(void *self, sim_state *st, int32_t op, int64_t t);
} host_policy;

/* The tables (policies.c); NULL when id is not in the table. */
const placement_policy *placement_get(int32_t id);
const exec_policy *exec_get(int32_t id);
const driver_policy *driver_get(int32_t id);
const host_policy *host_get(int32_t id);
/* warp_get (the warp table: which warp issues on a sub-core) is in warp.h */

/* The entries are declared where they are listed, in policies.c. */

#endif
