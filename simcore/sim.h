/* sim.h -- the simulator's public face: a configuration in, a trace out.
 *
 * simcore is pure: no I/O, no globals, no JSON. sim_run is deterministic:
 * the same configuration gives a byte-identical trace.
 *
 * Ownership: a sim_config only borrows (names, arrays); sim_run copies what
 * it keeps into the trace, which the caller owns (and frees with trace_free,
 * also after a failed run, which may leave partial records in it).
 *
 * What a configuration means (the rules are those of the TX2 paper, §3-4,
 * and the most-room paper, §4; simcore/state.h lists the files):
 *   - streams: a stream is named by (process, name); the same pair listed
 *     twice is one stream. A stream named "null" is its process's NULL
 *     stream (rules N1, N2, which act within one process).
 *   - priorities: lower = higher, any number of levels; one EE queue per
 *     (process, level). A device that knows its range (device.h,
 *     greatest_priority; the TX2: -1..0) clamps a priority into it first,
 *     as CUDA does. SIM_PRIO_NONE is the lowest level: it shares the queue
 *     of priority 0 (TX2: none = low), or of the lowest priority given
 *     when some are above 0.
 *   - ops are issued at `at`, in array order on ties ("launched after" of
 *     N1/N2 is this order), by the CPU task of their stream
 *     (sim_stream.task; by default each stream has a task of its own). A
 *     sync op (cudaStreamSynchronize) holds every later op of its task,
 *     on any of the task's streams, until its stream's earlier work has
 *     completed (sim_op.sync_device: until every kernel and copy issued
 *     before it in its process has); a blocking copy (sim_op.blocking:
 *     cudaMemcpy) holds them until the copy has completed (TX2 paper §2.3). A held op is issued
 *     (its `issue`) when its task is released.
 *   - copies take bytes / device.copy_bandwidth, rounded to the ns, or their
 *     `duration` when it is given; with copy_engines 2, d2h copies use
 *     engine 1 and everything else engine 0; memsets and other stream work
 *     (TRACE_COPY_MEMSET, _H2H, _OTHER) use no engine: they hold their
 *     stream for `duration`.
 *   - trace queues: "stream:<process>/<stream>", "ee:<process>:<level>"
 *     (level "high"/"low" when every priority is -1, 0 or none, else the
 *     integer), "ce" (one engine) or "ce:0"/"ce:1". */
#ifndef SIMCORE_SIM_H
#define SIMCORE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "trace.h"

#define SIM_PRIO_NONE TRACE_PRIO_NONE

typedef enum sim_op_kind { SIM_OP_KERNEL = 0, SIM_OP_COPY, SIM_OP_SYNC } sim_op_kind;

typedef struct sim_stream {
    const char *name;        /* "S1"; every process also has "null" */
    const char *process;     /* address space, default "P0" */
    int32_t priority;        /* lower = higher (CUDA); SIM_PRIO_NONE */
    /* spatial partition (placement "spart", spart.c; ISCA'17 §2.3, §4.1's
     * Spart): this stream's kernels place blocks only on the SMs at ranks
     * [sm_first, sm_first + sm_count) of the device's sm_order; sm_count 0 =
     * every SM. Other placements ignore it. */
    int32_t sm_first, sm_count;
    /* the CPU task that issues to this stream (TX2 paper §2.2: a "task" is
     * an OS thread of a process; §3.2, Fig. 3: tau1 issues to S2 and S3):
     * streams of one name are one task, which lives in one process
     * (sim_stream_tasks). NULL: a task of its own, issuing to this stream
     * alone. What blocks the host (a sync, a blocking copy) blocks the
     * task: every later op it issues, to any of its streams, waits. */
    const char *task;
} sim_stream;

/* Warp-level timing (exec_warp.c, the QAWS paper's model): a kernel runs a
 * program instead of a block_time. Every instruction issues in one slot of
 * its sub-core and belongs to a class with a latency: the warp cannot issue
 * its next instruction until that many cycles have passed (in order, the
 * stalls of QAWS Fig. 3). mem instructions also queue for the device's
 * memory bandwidth. */
typedef enum sim_iclass {
    SIM_ICLASS_ALU = 0,
    SIM_ICLASS_SFU,
    SIM_ICLASS_SHARED,
    SIM_ICLASS_MEM,
    SIM_ICLASS_BARRIER,      /* __syncthreads(): the warp waits for its block's other warps */
    SIM_NICLASS
} sim_iclass;

/* "alu", "sfu", "shared", "mem", "barrier"; NULL / -1 when out of range /
 * unknown. */
const char *sim_iclass_name(int32_t iclass);
int32_t sim_iclass_find(const char *name);

typedef struct sim_instr {
    int32_t iclass;          /* sim_iclass */
    int32_t count;           /* this many in a row (>= 1) */
} sim_instr;

/* What an instruction does in the memory system and functional units,
 * read only with those on (device.h dram_sectors, fp32_rate;
 * docs/memory.md); a program without them (access NULL) has every mem op a
 * coalesced load and every alu op off the fp32 pipe. */
typedef struct sim_access {
    int32_t sectors;         /* mem: 32-byte sectors of one warp access, 1..1024;
                                0 = coalesced 4-byte words, 4 sectors */
    int32_t store;           /* mem: a store (the warp goes on after issue) */
    int32_t fp32;            /* alu: runs on the sub-core's fp32 pipe (device.fp32_rate) */
    /* mem, with an L1 (device.l1_smem_kb): the working set the op walks,
     * access after access, wrapping around (docs/memory.md) */
    int32_t scope;           /* whose: SIM_SCOPE_WARP (each warp its own), _BLOCK, _KERNEL */
    int64_t footprint;       /* bytes; 0 = never reused (a stream) */
    int32_t managed;         /* mem: the data is in unified memory (device.uvm_page_kb):
                                pages not on the GPU fault and migrate */
} sim_access;

enum { SIM_SCOPE_WARP = 0, SIM_SCOPE_BLOCK, SIM_SCOPE_KERNEL };

/* The scoreboard (docs/scenario-format.md "dep", docs/memory.md): which
 * earlier results each instruction of a body entry reads, as distances back
 * in the warp's instruction stream (1 = the instruction just before it,
 * counted across the body's repetitions); n = 0: it reads none still
 * pending. A warp issues an instruction when those have completed, not
 * when the one before it has (GPGPU-Sim scoreboard.cc checkCollision). */
#define SIM_DEP_MAX 3            /* results one instruction reads, at most */
#define SIM_DEP_FAR 31           /* the farthest back it reads */
typedef struct sim_dep {
    int32_t n;
    int32_t on[SIM_DEP_MAX];     /* 1..SIM_DEP_FAR */
} sim_dep;

typedef struct sim_program {
    const sim_instr *body;   /* what every warp runs, `repeat` times */
    size_t nbody;
    int64_t repeat;          /* >= 1 */
    int32_t latency[SIM_NICLASS];  /* cycles; 0 = the device's latency_<class> */
    /* memory requests (128-byte transactions) one mem instruction makes:
     * 1 (0) for a coalesced warp access of 4-byte words, more for wider or
     * scattered ones (GPGPU-Sim's coalescer splits an access the same way) */
    int32_t mem_requests;
    /* persistent threads (QAWS §V-A): one block per SM, the work of
     * `blocks` blocks split evenly over them (in body repetitions) */
    int persistent;
    const sim_access *access;  /* [nbody], or NULL: see sim_access */
    /* [nbody], or NULL: no scoreboard, every instruction waits for the one
     * before it to complete (the model before it; sim_dep) */
    const sim_dep *dep;
} sim_program;

typedef struct sim_op {
    sim_op_kind kind;
    const char *name;        /* "K1", "C3i" */
    int32_t stream;          /* index in sim_config.streams */
    int64_t at;              /* host issue time, ns */
    /* kernel */
    int64_t blocks;
    int32_t threads;
    int64_t smem;            /* bytes per block */
    int32_t regs;            /* per thread */
    const int64_t *block_time;  /* ns, indexed by block index, cycled */
    size_t nblock_time;
    const sim_program *program; /* instead of block_time: warp-level timing */
    int32_t budget;          /* QAWS budget (QAWS §IV); 0 = 1 */
    /* QoS goal (ISCA'17 quota sharing, §3.2): the fraction, in (0, 1], of
     * the IPC the kernel reaches alone on the device (sim_ipc_isolated) that
     * it must reach sharing it; 0 = a non-QoS kernel. Only under a quota
     * warp policy (policy.warp "quota-*", warp_quota_*.c). */
    double qos_goal;
    /* copy */
    int64_t bytes;
    int32_t direction;       /* trace_copy_dir */
    /* copy: a synchronous copy (cudaMemcpy, not ...Async): TX2 paper §2.3,
     * "By default, copy operations are synchronous with respect to a CPU
     * program: they do not return until the copy is complete", so the task
     * issuing it (its stream's, sim_stream.task) issues nothing more until
     * the copy has completed */
    bool blocking;
    /* sync: a cudaDeviceSynchronize instead of a cudaStreamSynchronize: the
     * task (of `stream`, which names the caller) waits until every kernel
     * and copy issued before it in its process, to any stream by any task,
     * has completed -- TX2 paper §2.3: "explicitly wait for all previously
     * issued GPU operations to complete". It sits in no stream queue. */
    bool sync_device;
    /* an op of a NULL stream: the CPU task that calls it (NULL: the NULL
     * stream's own task). TX2 paper §2.3: "By default, GPU operations from
     * all CPU programs are inserted into the single default stream", so the
     * NULL stream is no one task's: each call names its caller, a task of
     * the stream's process (a name on declared streams' `task`, or one that
     * issues to the NULL stream alone). Ops of other streams leave it NULL:
     * their stream's task calls them. */
    const char *task;
    int64_t duration;        /* ns when > 0: the copy takes exactly this long (a replay's
                                measured duration) instead of bytes / copy_bandwidth.
                                A TRACE_COPY_MEMSET, _H2H or _OTHER op uses no copy engine
                                (engine -1): it holds its stream for `duration` */
    /* kernel or copy: its own issue -> stream queue latency instead of
     * policy.launch_latency (a replay's work launched before the trace's
     * window opened, which reached its stream sooner than a launch made at
     * the trace's start could: server/app/replay.c) */
    bool own_latency;
    int64_t launch_latency;  /* ns, with own_latency */
} sim_op;

/* Each field below names an entry of one policy table (policy.h); 0 is the
 * table's default, so a zeroed sim_policy is today's model. */
typedef struct sim_policy {
    int32_t placement;       /* placement table; 0 = most-room */
    int32_t execution;       /* execution table; 0 = fixed (the op's block_time) */
    int32_t driver;          /* driver table ("contexts"); 0 = shared */
    int32_t host;            /* host table; 0 = script (the ops at their times) */
    int64_t launch_latency;  /* issue -> stream queue, ns */
    int64_t dispatch_latency;/* per block, ns: a block starts this long after it
                                is assigned, and the next assignment waits as long */
    /* warp-level timing (execution "warp", exec_warp.c) */
    int32_t warp;            /* warp table; 0 = gto */
    int64_t warp_issue_limit;/* warp_issues recorded at most; 0 = SIM_WARP_ISSUE_LIMIT,
                                < 0 = none */
    int64_t warp_epoch;      /* cycles per warp_epochs record; 0 = SIM_WARP_EPOCH */
    int64_t quota_epoch;     /* T_epoch of the quota warp policies (ISCA'17 §3.4.1), cycles;
                                0 = SIM_QUOTA_EPOCH */
    int64_t sm_preempt;      /* ns, when has_sm_preempt: an SM that placement spart-climb
                                hands to another partition is preempted (ISCA'17 §2.3:
                                "saving context of a running kernel one SM at a time [31,
                                37]"), as are tb_adjust's victims: a whole SM's context
                                takes this long to save or restore through its port, a
                                block its threads' share, an SM's blocks one after
                                another once their instructions in flight are done
                                (exec_warp.c preempt_block); they resume first */
    bool has_sm_preempt;     /* false: such an SM drains (its blocks run to their end) */
    bool tb_adjust;          /* ISCA'17 §3.6's run-time TB adjustment under a quota warp
                                policy (tb_adjust.c): a QoS kernel behind its goal gets
                                one more TB on an SM, swapped in by preempting a victim's
                                TBs (at sm_preempt's cost) */
    bool quota_history;      /* when has_quota_history: ISCA'17 §3.4.2's history-based
                                adjustment (alpha_k) on or off under any quota warp policy,
                                §4.8's ablation ("When disabling history-based quota
                                adjustment, QoSreach drops significantly") */
    bool has_quota_history;  /* false: the scheme's own (naive without, the others with) */
    bool spart_take_last;    /* placement spart-climb: a QoS kernel below its goal may take
                                the last SM of a stream without goals (spart.c; false: each
                                keeps one) */
    bool spart_take_only;    /* placement spart-climb: a QoS kernel keeps the SMs it holds,
                                the climb only takes (spart.c; false: one that would still
                                meet its goal with one fewer gives one back) */
    bool spart_trial;        /* placement spart-climb: the climb gives back by trial: a QoS
                                kernel that met its goal gives one SM back, takes it back
                                if the next epoch misses, and never again goes below that
                                count in the launch (spart.c; false: by prediction) */
    /* GPU contexts (time-slice and gcaps drivers, GCAPS paper §2, §5) */
    int64_t time_slice;      /* L, the TSG time slice, ns; 0 = SIM_DEFAULT_TIME_SLICE */
    int64_t context_switch;  /* theta (Def. 1), ns */
    int64_t runlist_update;  /* epsilon (Def. 2), ns: CPU cost of each GCAPS macro */
    int64_t ioctl_bookkeeping; /* ns: CPU cost of a GCAPS macro that leaves the runlist as it
                                  is (GCAPS paper §7.2, Fig. 12's lower mode; issue 27);
                                  0 = not modelled: every macro costs runlist_update */
    int64_t context_switch_idle; /* ns, when has_context_switch_idle: the GPU's switch away
                                  from a context that has no work left (it finished within
                                  its slice, or GCAPS removed it after its segment ended);
                                  NVIDIA (DRIVE OS, "Setting the Preemption Type"): "For
                                  applications that can complete in their timeslice,
                                  context-switch overhead is minimal because the GPU is in
                                  an idled state" (issue 27, Table 5) */
    bool has_context_switch_idle;  /* false: every switch costs context_switch (theta) */
    int32_t gpu_wait;        /* sim_gpu_wait: what a task does during pure GPU work */
} sim_policy;

#define SIM_WARP_ISSUE_LIMIT 1000000
#define SIM_WARP_EPOCH 1000
/* ISCA'17 §4.1: "The epoch length is 10K cycles" */
#define SIM_QUOTA_EPOCH 10000

/* GCAPS paper §7.1.1: "1024 us ... the default value set in the driver" */
#define SIM_DEFAULT_TIME_SLICE 1024000

/* Real-time host tasks (tasks host, GCAPS paper §4): periodic jobs, each an
 * alternating sequence of CPU and GPU segments, on partitioned cores. */
typedef enum sim_gpu_wait {
    SIM_WAIT_DEFAULT = 0,    /* task: policy.gpu_wait; policy: suspend */
    SIM_WAIT_SUSPEND,
    SIM_WAIT_BUSY
} sim_gpu_wait;

typedef enum sim_seg_kind { SIM_SEG_CPU = 0, SIM_SEG_GPU } sim_seg_kind;

/* Execution-time variation of one segment time (issue 27): absent (the
 * time as given, every job), uniform on [min, max], or a normal of mean
 * and sd truncated to [min, max] (min 0 unless given). The segment's own
 * field (cpu, misc, exec) is then the WCET, max. Drawn per job from the
 * run's seed by simcore/prng.h, so a run is reproducible. */
typedef enum sim_dist_kind { SIM_DIST_NONE = 0, SIM_DIST_UNIFORM, SIM_DIST_NORMAL } sim_dist_kind;

typedef struct sim_dist {
    int32_t kind;            /* sim_dist_kind */
    int64_t min, max, mean, sd;
} sim_dist;

typedef struct sim_segment {
    sim_seg_kind kind;
    int64_t cpu;             /* CPU segment: its execution time, ns */
    int64_t misc;            /* GPU segment: G^m, CPU time of launches and driver calls */
    int64_t exec;            /* GPU segment without ops: G^e as one kernel that fills the GPU */
    const sim_op *ops;       /* or these kernels and copies (stream and at are ignored:
                                they go to the task's own stream when the job gets here) */
    size_t nops;
    sim_dist cpu_var, misc_var, exec_var;   /* variation of cpu, misc, exec; zero: none */
} sim_segment;

typedef struct sim_task {
    const char *name;        /* also its process (GPU context) and its kernels' prefix */
    int32_t cpu;             /* core, 0..cpus-1 */
    int32_t priority;        /* CPU priority, larger = higher (SCHED_FIFO) */
    int32_t gpu_priority;    /* GCAPS GPU-segment priority (§5.3) when has_gpu_priority */
    bool has_gpu_priority;
    bool best_effort;        /* no real-time priority: below every real-time task */
    bool graphics;           /* a graphics application (GCAPS paper §7.2, Table 4's task 7,
                                issue 27): its GPU segments call no GCAPS macro and take
                                no GPU lock; the driver sees an uninstrumented context */
    int32_t mode;            /* sim_gpu_wait */
    int64_t period, deadline, offset;
    const sim_segment *segments;
    size_t nsegments;
} sim_task;

/* Tasks run until every job released before `duration` has completed;
 * 0 = the hyperperiod (plus the largest offset), capped at this. */
#define SIM_DEFAULT_DURATION_CAP 60000000000LL

/* Where blocks go instead of the trace, for runs too big to keep (a 16M-block
 * run is 512 MiB of trace_block). With a sink, sim_run hands the blocks to
 * emit() in batches of `batch` (0 = SIM_SINK_BATCH), in exactly the order
 * they would have had in trace->blocks, and drops each batch from the trace
 * once emit() returns 0: the trace's blocks stay at most `batch` long (plus,
 * under a driver that pauses blocks or the warp-level model, whose blocks end
 * when their last warp does, those that have not ended: a block goes to the
 * sink only with its final end) and are empty after a successful run; kernels, copies and queue events are
 * recorded as without a sink. Block i of the run is the i-th block emitted;
 * its `kernel` indexes trace->kernels, which sim_run fills up front.
 *
 * Ownership: the blocks passed to emit() are borrowed for that call only.
 * emit() returns 0 to go on; non-zero stops the run, and sim_run returns -1
 * with "block sink failed ..." in err; the sink keeps its own error text in
 * its ctx. simcore does no I/O itself: the sink is where a caller streams
 * blocks to a database or a file. */
#define SIM_SINK_BATCH 65536

typedef struct sim_block_sink {
    void *ctx;
    int (*emit)(void *ctx, const trace_block *blocks, size_t n);
    size_t batch;
    /* Optional (NULL: never called): called once at least `batch` more
     * blocks have been placed since its last call, with the blocks placed
     * so far, those kept as cohorts (sim_config.cohorts) counted block by
     * block. A run of cohorts hands emit() few blocks however many it
     * places (the Rodinia Gaussian's replay: 4.29 G blocks, a few thousand
     * emitted), so this is where a caller learns how far such a run got
     * and can stop it (a cancelled job, server/app/store.c): non-zero stops
     * the run as a refused batch does, sim_run returning -1. */
    int (*placed)(void *ctx, int64_t placed);
} sim_block_sink;

typedef struct sim_config {
    const char *name;
    sim_device device;
    sim_policy policy;
    const sim_stream *streams;
    size_t nstreams;
    const sim_op *ops;
    size_t nops;
    uint64_t seed;
    const sim_block_sink *block_sink;  /* NULL: every block stays in the trace */
    const sim_task *tasks;   /* real-time tasks (host "tasks"); may be NULL */
    size_t ntasks;
    int32_t cpus;            /* cores for the tasks; 0 = 1 */
    int64_t duration;        /* jobs are released before this; 0 = see SIM_DEFAULT_DURATION_CAP */
    /* isolated IPCs of QoS kernels (sim_ipc_isolated), shared across runs;
     * NULL: sim_run keeps one of its own for the run */
    struct sim_ipc_cache *ipc_cache;
    /* > 0: the run stops at this time (ns): no event at or after it fires
     * and no cycle of the warp-level model that begins at or after it runs;
     * what has not ended by then stays unended in the trace (end
     * TRACE_NONE), and sim_run returns 0. Whatever the trace records before
     * it is what the whole run records there. A caller that measures a
     * fixed window (the QoS sweep, ISCA'17 §4.1) stops at the window's end
     * instead of simulating past it. 0: run until every op has completed */
    int64_t stop;
    /* tests: run the general block scheduler (ee.c, ee_dispatch) where the
     * fused one (ee.h, ee_dispatch_fast) would run, to compare their traces,
     * which are the same (tests/unit/test_fast_path.c); false everywhere else */
    bool general_loop;
    /* tests: every look at its warps that the quota rule gives a throttled
     * sub-core (exec_warp.c, run_subcore_quota), where the run skips those
     * that change nothing, and every warp looked at for a completed
     * instruction to charge, where the run visits only those that owe one,
     * to compare their traces, which are the same (tests/unit/test_quota.c);
     * false everywhere else */
    bool every_quota_look;
    /* Cohorts (issue 28, "cost by kernels, not blocks"; simcore/cohort.c):
     * identical blocks placed together on one SM are simulated and recorded
     * as one trace_cohort (trace.h), and a stretch of identical waves of
     * one kernel is jumped over in one step. The trace is the block-level
     * one, exactly, once trace_expand_cohorts has unfolded it (blocks in
     * another order); what is not a cohort stays in trace->blocks. Applies
     * where the block scheduler is the fused one (fast path: shared driver,
     * fixed execution, no dispatch latency) with a placement that places
     * cohorts (most-room, round-robin) and no carveouts, to kernels with
     * one block_time; elsewhere blocks are
     * placed one by one as without it (cohort.c says why). A block sink
     * still gets trace->blocks; cohorts stay in the trace. false: today's
     * trace. */
    bool cohorts;
    /* > 0, with cohorts: the run fails ("records more than ...") once the
     * trace would keep more records than this, blocks and cohorts together
     * (those handed to a block sink count too), whether or not cohorts
     * apply to the run: what a caller that bounds a run's memory sets (the
     * server: SCN_MAX_COHORTS, or its work budget). 0: no limit */
    int64_t max_records;
} sim_config;

/* Policy tables: a new policy is one new file plus one line in its table
 * (simcore/policies.c). */
typedef enum sim_policy_table {
    SIM_TABLE_PLACEMENT = 0,
    SIM_TABLE_EXECUTION,
    SIM_TABLE_DRIVER,
    SIM_TABLE_HOST,
    SIM_TABLE_WARP
} sim_policy_table;
#define SIM_NTABLES 5

size_t sim_policy_count(sim_policy_table table);
const char *sim_policy_name(sim_policy_table table, int32_t id);   /* NULL if out of range */
const char *sim_policy_doc(sim_policy_table table, int32_t id);    /* one line */
int32_t sim_policy_find(sim_policy_table table, const char *name); /* -1 if unknown */
/* "placement", "execution", "contexts" (the driver table), "host", "warp" */
const char *sim_policy_table_name(sim_policy_table table);

int32_t sim_placement_find(const char *name);   /* -1 if unknown */
const char *sim_placement_name(int32_t id);
size_t sim_placement_count(void);
/* Does placement `id` place by the streams' SM partitions (sim_stream
 * sm_first/sm_count: "spart")? Without partitions it places as most-room. */
bool sim_placement_partitioned(int32_t id);
/* Can placement `id` place identical blocks as cohorts (sim_config.cohorts;
 * cohort.c, policy.h's `wave`)? A run with cohorts under one that cannot
 * places block by block. */
bool sim_placement_cohorts(int32_t id);
/* How many blocks of `threads` threads, `regs` registers a thread and
 * `smem` bytes of shared memory an idle SM of dev holds (TX2 paper, rules
 * R1-R3: the first resource to run out): the blocks of one wave on each SM,
 * so the records per SM a wave of cohorts keeps (cohort.c). */
int32_t sim_room_empty(const sim_device *dev, int32_t threads, int32_t regs, int64_t smem);
/* Will runs of cfg place cohorts (cfg.cohorts asked for, the fused block
 * scheduler, a placement that places them, no carveouts: cohort.c)? The
 * run then does so at every instant the GPU is idle, for every kernel of
 * one block_time. */
bool sim_cohorts_apply(const sim_config *cfg);
/* Is warp policy `id` a quota scheme (ISCA'17 §3.3-§3.5: ops may carry a
 * qos_goal; warp.h's `quota`)? false out of range. */
bool sim_warp_quota(int32_t id);
/* Does placement `id` pursue QoS goals itself (spart-climb: ops may carry a
 * qos_goal under any warp policy; policy.h's `qos_epoch`)? */
bool sim_placement_qos(int32_t id);
/* Does contexts policy `id` (the driver table) read policy.ioctl_bookkeeping:
 * does it say which of its macros leave the runlist as it is (policy.h's
 * `segment_switches`: gcaps, GCAPS paper §7.2, issue 27)? The host charges
 * the bookkeeping cost only there (host_tasks.c). false out of range. */
bool sim_driver_bookkeeping(int32_t id);

/* Does one block of a kernel (threads, smem bytes, regs per thread) fit an
 * empty SM of device d (TX2 paper, rules R1-R3)? Returns 0, or -1 with a
 * message "PATH.field: why" in err (PATH as given, e.g. "ops[3]"; the
 * scenario parser passes its own path, sim_run "ops[i]"). check.c. */
int sim_kernel_fits(const sim_device *d, int32_t threads, int64_t smem, int32_t regs,
                    const char *path, char *err, size_t errlen);

/* ---- isolated IPC (ISCA'17 quota sharing, §3.2: IPC_goal is a fraction of
 * IPC_isolated, "the application ... run in isolation") ---- qos.c
 *
 * sim_ipc_isolated: the IPC (warp instructions per cycle, trace_kernel.ipc:
 * from the kernel's first block's first cycle to its last warp's end) that
 * kernel op `op` (an index in cfg->ops: a kernel with a program) reaches
 * alone on the device: cfg's device and policies, with only that op, issued
 * at 0 on its own stream, and under the warp scheduler the quota policies
 * are built on (GTO, ISCA'17 Table 1) when policy.warp is a quota policy
 * (any other policy.warp is kept). Pure and deterministic like sim_run.
 *
 * The result depends only on the kernel's shape (program, blocks, threads,
 * smem, regs, budget) and on the device and policies, so it is cached per
 * shape in `cache` (a simulation per distinct shape, then lookups); cache
 * may be NULL (no caching). One cache may serve many configs and runs (a
 * sweep): the key holds the device and policies too. Not thread-safe: one
 * cache per thread. Returns 0 with *ipc, or -1 with "ops[i]...: why" in
 * err. */
typedef struct sim_ipc_cache {
    struct sim_ipc_entry *v;
    size_t n, cap;
    int64_t runs;            /* simulations made (not cache hits): what tests count */
} sim_ipc_cache;

void sim_ipc_cache_init(sim_ipc_cache *c);
void sim_ipc_cache_free(sim_ipc_cache *c);
int sim_ipc_isolated(const sim_config *cfg, size_t op, sim_ipc_cache *cache, double *ipc,
                     char *err, size_t errlen);
/* Tell `cache` that op `op` of cfg reaches `ipc` alone (replacing what it
 * held): a caller that measures IPC_isolated its own way (the QoS sweep,
 * over its window: ISCA'17 §3.2 has one IPC_isolated, for the goal told to
 * the GPU and the goal judged). 0, or -1 (not a program kernel, OOM). */
int sim_ipc_cache_put(sim_ipc_cache *cache, const sim_config *cfg, size_t op, double ipc);

/* The CPU tasks of streams[0..n) (sim_stream.task): task_of[i] (may be
 * NULL: check only) is the task of streams[i], numbered in order of first
 * appearance, a stream without a task getting one of its own. A task is
 * an OS thread of one process (TX2 paper §2.2), so a name on streams of
 * two processes is refused. Returns the number of tasks, or -1 with
 * "streams[i].task: why" in err (or "simulation: out of memory").
 * cpu_tasks.c. */
int64_t sim_stream_tasks(const sim_stream *streams, size_t n, int32_t *task_of, char *err,
                         size_t errlen);

/* The checks of cfg's policy that sim_run makes before it simulates (each
 * table's entry exists, the options are ones its policies take, durations
 * in range): 0, or -1 with "KEY: why" in err (policy.KEY, tasks or
 * device.mem_admission). Cheap: a caller about to run many configs (a
 * sweep) refuses a bad one before running any. */
int sim_check_policy(const sim_config *cfg, char *err, size_t errlen);

/* Run the simulation into `out` (trace_init'ed, empty). Returns 0, or -1
 * with a message in err (a config the simulator cannot run, OOM, or a block
 * sink that refused a batch). */
int sim_run(const sim_config *cfg, trace *out, char *err, size_t errlen);

#endif
