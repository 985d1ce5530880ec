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
 *     (process, level). SIM_PRIO_NONE is the lowest level: it shares the
 *     queue of priority 0 (TX2: none = low), or of the lowest priority given
 *     when some are above 0.
 *   - ops are issued at `at`, in array order on ties ("launched after" of
 *     N1/N2 is this order); a sync op holds the host's later ops of its
 *     stream until the stream's earlier work has completed.
 *   - copies take bytes / device.copy_bandwidth, rounded to the ns; with
 *     copy_engines 2, d2h copies use engine 1 and everything else engine 0.
 *   - trace queues: "stream:<process>/<stream>", "ee:<process>:<level>"
 *     (level "high"/"low" when every priority is -1, 0 or none, else the
 *     integer), "ce" (one engine) or "ce:0"/"ce:1". */
#ifndef SIMCORE_SIM_H
#define SIMCORE_SIM_H

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
} sim_stream;

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
    /* copy */
    int64_t bytes;
    int32_t direction;       /* trace_copy_dir */
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
} sim_policy;

/* Where blocks go instead of the trace, for runs too big to keep (a 16M-block
 * run is 512 MiB of trace_block). With a sink, sim_run hands the blocks to
 * emit() in batches of `batch` (0 = SIM_SINK_BATCH), in exactly the order
 * they would have had in trace->blocks, and drops each batch from the trace
 * once emit() returns 0: the trace's blocks stay at most `batch` long and
 * are empty after a successful run; kernels, copies and queue events are
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
} sim_config;

/* Policy tables: a new policy is one new file plus one line in its table
 * (simcore/policies.c). */
typedef enum sim_policy_table {
    SIM_TABLE_PLACEMENT = 0,
    SIM_TABLE_EXECUTION,
    SIM_TABLE_DRIVER,
    SIM_TABLE_HOST
} sim_policy_table;
#define SIM_NTABLES 4

size_t sim_policy_count(sim_policy_table table);
const char *sim_policy_name(sim_policy_table table, int32_t id);   /* NULL if out of range */
const char *sim_policy_doc(sim_policy_table table, int32_t id);    /* one line */
int32_t sim_policy_find(sim_policy_table table, const char *name); /* -1 if unknown */
/* "placement", "execution", "contexts" (the driver table), "host" */
const char *sim_policy_table_name(sim_policy_table table);

int32_t sim_placement_find(const char *name);   /* -1 if unknown */
const char *sim_placement_name(int32_t id);
size_t sim_placement_count(void);

/* Does one block of a kernel (threads, smem bytes, regs per thread) fit an
 * empty SM of device d (TX2 paper, rules R1-R3)? Returns 0, or -1 with a
 * message "PATH.field: why" in err (PATH as given, e.g. "ops[3]"; the
 * scenario parser passes its own path, sim_run "ops[i]"). check.c. */
int sim_kernel_fits(const sim_device *d, int32_t threads, int64_t smem, int32_t regs,
                    const char *path, char *err, size_t errlen);

/* Run the simulation into `out` (trace_init'ed, empty). Returns 0, or -1
 * with a message in err (a config the simulator cannot run, OOM, or a block
 * sink that refused a batch). */
int sim_run(const sim_config *cfg, trace *out, char *err, size_t errlen);

#endif
