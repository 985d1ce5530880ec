/* state.h -- the state of one sim_run, shared by the files that implement
 * the simulator. Who does what, top to bottom (calls go only downward;
 * completions come back up as return values or engine events that sim.c
 * routes):
 *
 *   sim.c        setup, the event loop, routing events, the block sink
 *   host_*.c     the host policy: what is issued when (policy.h)
 *   streams.c    stream queues, the NULL stream, host syncs
 *   ee.c         EE queues and block dispatch;  ce.c  CE queues and engines
 *   driver_*.c   which process the block scheduler serves (policy.h); tsg.c:
 *                GPU contexts on the runlist, paused blocks
 *   exec_*.c     how long a placed block runs (policy.h)
 *   placement    most_room.c, round_robin.c, spart.c: which SM (policy.h);
 *                spart.c's spart-climb also moves the SM partitions
 *   sms.c        what is free on each SM, the room index
 *
 * Queues are intrusive FIFOs (fifo.h) linked through the arrays op_next,
 * op_ce_next and k_ee_next, so no queue allocates while the simulation runs.
 *
 * Memory: sim_run allocates every array here before the first event and
 * frees them all before it returns; the trace (st->t) belongs to the caller. */
#ifndef SIMCORE_STATE_H
#define SIMCORE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "blockq.h"
#include "engine.h"
#include "fifo.h"
#include "policy.h"
#include "sim.h"
#include "sms.h"
#include "trace.h"

/* Event types for the engine (0 is the engine's "cancelled"). */
enum {
    EV_ARRIVE = 1,           /* a = op: reaches its stream queue (G1) */
    EV_BLOCK_DONE,           /* a = kernel, b = SM */
    EV_COPY_DONE,            /* a = engine, b = op */
    EV_DISPATCH,             /* the block scheduler is free again */
    EV_EXEC,                 /* the execution policy's own (policy.h) */
    EV_DRIVER,               /* the driver policy's own (policy.h) */
    EV_KERNEL_DONE,          /* a = kernel: its last block ended (the fast path's
                                blocks end in st->bq; blockq.h) */
    EV_BLOCK_PREEMPTED       /* a = kernel, b = SM: a block's context is saved, its SM's
                                resources free; it waits to resume (ee.c) */
};

typedef struct sim_opstate {
    int32_t stream;          /* internal stream index */
    int32_t rec;             /* kernel: index in st->ks and t->kernels; copy: in t->copies;
                                sync: in st->sync_times */
    uint64_t issue_seq;      /* host issue order: "launched after" of N1/N2 */
    trace_str item;          /* the op's name, for queue events */
    int32_t task;            /* the CPU task that calls it (index in st->htasks) */
} sim_opstate;               /* 24 bytes: one per op of a replay of millions */

typedef struct sim_kstate {
    int32_t op;
    int32_t proc;
    int32_t level;           /* EE level index (A1) */
    uint64_t ee_seq;         /* order of EE enqueue, across processes */
    sim_need need;
    int64_t blocks, placed, done;
    int64_t saved;           /* blocks preempted and not yet resumed (ee.c) */
    const int64_t *block_time;
    size_t nblock_time;
    size_t bt_next;          /* placed % nblock_time, kept by the fast path (ee.h)
                                instead of a division per block */
    bool uniform;            /* every block_time the same: blocks of a wave are alike (cohort.c) */
    uint64_t wave[SMS_STRIDE]; /* H100-W1 (sms.h): the ranks of the kernel's wave, when
                                need.wave points here */
    int64_t last_end;        /* fast path: the latest end of a placed block, and the */
    uint64_t last_end_seq;   /* sequence number of the last placed block ending then:
                                the kernel completes there (blockq.h) */
} sim_kstate;

typedef struct sim_sstate {
    int32_t proc;
    int32_t level;           /* EE level index of this stream's priority */
    int32_t priority;        /* as configured (SIM_PRIO_NONE kept) */
    bool is_null;            /* the process's NULL stream (N1, N2) */
    bool head_moved;         /* the head op went on to the EE / CE queue */
    int32_t task;            /* the CPU task issuing to it (index in st->htasks) */
    sim_fifo queue;          /* stream queue (ops, via op_next) */
    int32_t next_in_proc;    /* streams of one process, linked in config order */
    trace_str name;
    trace_str qname;         /* "stream:P0/S1" */
} sim_sstate;

/* A CPU task of the host (sim_stream.task; TX2 paper §2.2): while it
 * waits for a sync or a blocking copy, the ops it issues are held, in
 * issue order, whichever of its streams they go to. */
typedef struct sim_htask {
    bool blocked;            /* a sync or a blocking copy of this task is pending */
    sim_fifo held;           /* ops the task issues meanwhile (op_next) */
    int32_t proc;            /* its process (every stream of a task is in one) */
    const char *name;        /* as named (sim_stream.task, sim_op.task); NULL: a stream's own */
    /* a pending device sync (sim_op.sync_device): the kernels and copies of
     * the process issued before it (issue_seq below dsync_seq) not yet
     * complete; the task goes on when none is left */
    bool dsync;
    uint64_t dsync_seq;
    int64_t dsync_left;
    int32_t dsync_op;        /* the device sync pending (its op) */
} sim_htask;

typedef struct sim_proc {
    trace_str name;
    int32_t first_stream;
    int32_t null_stream;     /* -1: the process never uses its NULL stream */
    bool stuck;              /* scratch of ee_dispatch: could not place this round */
    int64_t open;            /* kernels and copies issued and not yet complete (device syncs) */
    int32_t ndsync;          /* tasks of the process waiting in a device sync */
    uint64_t ee_busy;        /* bit l: EE queue level l of the process holds a kernel
                                (kept while nlevels <= 64; ee_eligible, ee.h) */
} sim_proc;

typedef struct ee_queue {
    sim_fifo q;              /* kernels (indices in st->ks, via k_ee_next) */
    trace_str qname;         /* "ee:P0:low"; interned on first use */
} ee_queue;

typedef struct ce_engine {
    sim_fifo q;              /* CE queue of this engine (ops, via op_ce_next) */
    int32_t busy;            /* copies in flight (device.copies_in_flight at most) */
    trace_str qname;         /* "ce" (one engine) or "ce:<i>" */
} ce_engine;

typedef struct sim_state {
    const sim_config *cfg;
    const sim_device *dev;   /* &st->devcopy */
    sim_device devcopy;      /* cfg->device with its order filled */
    trace *t;
    sim_engine eng;
    sim_bq bq;               /* the fast path's block completions (blockq.h); span 0: unused */
    sim_sms sms;

    /* the policies of this run and their state (policy.h) */
    const placement_policy *placement;
    const exec_policy *exec;
    const driver_policy *driver;
    const host_policy *host;
    bool host_told;          /* an op_done reported in this instant (sim.c, tell_host) */
    void *placement_state, *exec_state, *driver_state, *host_state;

    sim_opstate *ops;        /* [cfg->nops] */
    /* each sync op's (its rec) call and return (TRACE_NONE until then), for
     * the trace's host_calls: [0] when its task called it, [1] when it
     * returned */
    int64_t (*sync_times)[2];
    int32_t *op_next;        /* [cfg->nops] stream queue / held list links */
    int32_t *op_ce_next;     /* [cfg->nops] CE queue links */
    sim_kstate *ks;          /* [nkernels] */
    int32_t *k_ee_next;      /* [nkernels] EE queue links */
    size_t nkernels;
    sim_sstate *ss;          /* [nstreams] (deduplicated) */
    size_t nstreams;
    int32_t *stream_of;      /* cfg stream index -> ss index */
    sim_htask *htasks;       /* the host's CPU tasks (sim_stream_tasks) */
    size_t nhtasks;
    sim_proc *procs;
    size_t nprocs;
    int32_t *cand;           /* [nprocs] scratch of ee_dispatch: the driver's candidates */
    int32_t *levels;         /* priority value of each EE level, ascending */
    size_t nlevels;
    bool tx2_levels;         /* every priority is -1, 0 or none: name levels high/low */
    ee_queue *ee;            /* [nprocs * nlevels] */
    ce_engine ce[2];         /* device.copy_engines of them */
    int32_t nce;

    uint64_t next_issue_seq;
    uint64_t next_ee_seq;
    int64_t sched_free_at;   /* dispatch latency: next block decision */
    size_t block_limit;      /* ee_dispatch pauses when the trace holds this many blocks */
    size_t blocks_flushed;   /* blocks handed to the sink: t->blocks.v[0] is block number this */
    sim_config xcfg;         /* the configuration a host expanded (policy.h), cfg points here */
    void *xmem;              /* what the host's expand allocated */
    bool failed;             /* out of memory in the engine or trace */
    bool fast_dispatch;      /* ee.h's fused block scheduler applies (sim_run decides once:
                                earliest_ee driver, fixed execution, no dispatch latency) */
    double *ipc_isolated;    /* [nkernels] runs with QoS goals: each program kernel's
                                isolated IPC (sim_ipc_isolated); NULL otherwise */
    /* ISCA'17 §3.6 static resource management (ee.c): runs with QoS goals
     * under a quota warp policy count each kernel's resident blocks per SM,
     * [nkernels * sms]; NULL otherwise (the rule never applies); and its
     * scratch: the live kernels, their partitions, the share by divisor
     * [4 * nkernels + 2] */
    int32_t *share_res;
    int32_t *share_tmp;
    /* §3.6's run-time adjustment (policy.tb_adjust, tb_adjust.h): TBs added
     * to (or taken from) each kernel's share per SM, [nkernels * sms]; NULL
     * without it */
    int32_t *share_adj;
    /* the streams' SM partitions now, by cfg stream index: ranks
     * [part_first, part_first + part_count) of sm_order where part_on (the
     * stream was given SMs), every SM where not; set from
     * sim_stream.sm_first/sm_count under a placement that honours
     * partitions (NULL otherwise); spart-climb moves them, down to none
     * (spart.c) */
    int32_t *part_first, *part_count;
    bool *part_on;
    int64_t nsaved;          /* preempted blocks waiting to resume, all kernels */
    /* cohorts (sim_config.cohorts, cohort.c): on for this run, and each
     * SM's latest cohort record (index in t->cohorts, -1 none), which a
     * wave that continues it extends */
    bool cohorts;
    int64_t *coh_last;
    int64_t cohort_blocks;   /* the blocks placed as cohorts so far (sim.h sink's placed) */
} sim_state;

/* The ranks [*lo, *hi) of sm_order that stream str's kernels may use now
 * under a placement that honours partitions (spart.c). */
void sim_part_span(const sim_state *st, int32_t str, int32_t *lo, int32_t *hi);

#endif
