/* trace.h -- the one in-memory trace model (DESIGN §1, §5).
 *
 * The simulator produces it, every importer produces it, the database stores
 * it and the API serves it, so a comparison is always between two values of
 * this type.
 *
 * Memory: a trace owns everything it points to. Strings are interned in the
 * trace's own string table and records hold trace_str ids, so a record is a
 * plain value and ten million blocks are ten million small structs.
 *
 * Errors: allocation failure is sticky, as with SQLite's mallocFailed: the
 * add/intern calls return NULL / 0, set t->oom, and every later call is a
 * no-op. A producer checks t->oom once at the end.
 *
 * Times are int64_t nanoseconds from the trace's own origin; TRACE_NONE
 * marks what a source cannot know (JSON null). */
#ifndef SIMCORE_TRACE_H
#define SIMCORE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"

#define TRACE_NONE INT64_MIN
#define TRACE_PRIO_NONE INT32_MIN  /* CUDA "no priority given" (TX2 §4.2) */

typedef uint32_t trace_str;        /* id in the trace's string table; 0 = absent */

typedef enum trace_copy_dir {
    TRACE_COPY_H2D = 0,
    TRACE_COPY_D2H,
    TRACE_COPY_D2D,
    TRACE_COPY_H2H,
    TRACE_COPY_P2P,
    TRACE_COPY_MEMSET,
    TRACE_COPY_OTHER,
    /* unified-memory migrations (issue 28): pages the driver moved on a
     * fault or a prefetch (nvprof "[Unified Memory Memcpy HtoD]", CUPTI /
     * Nsight copyKind 11-13); no stream op, no copy engine queue */
    TRACE_COPY_UVM_H2D,
    TRACE_COPY_UVM_D2H,
    TRACE_COPY_UVM_D2D
} trace_copy_dir;
#define TRACE_COPY_DIR_LAST TRACE_COPY_UVM_D2D
/* A unified-memory migration's direction. */
#define TRACE_COPY_IS_UVM(d) ((d) >= TRACE_COPY_UVM_H2D && (d) <= TRACE_COPY_UVM_D2D)

typedef struct trace_kernel {
    trace_str name;          /* display name (demangled where it was mangled) */
    trace_str raw_name;      /* as the source wrote it; 0 if same as name */
    trace_str stream;        /* "S1", "null", "13" ... */
    trace_str process;       /* address space / context: "P0", "pid 1234" */
    int32_t priority;        /* lower = higher as in CUDA; TRACE_PRIO_NONE */
    int32_t threads;         /* per block; 0 = unknown */
    int64_t issue;           /* host issued the launch */
    int64_t first_block;     /* first block assigned (kernel start) */
    int64_t fully_dispatched;/* last block assigned */
    int64_t end;             /* last block completed */
    int64_t blocks;          /* grid size; 0 = unknown */
    int64_t smem;            /* shared memory per block, bytes; TRACE_NONE = unknown */
    int32_t regs;            /* registers per thread; 0 = unknown */
    int32_t grid[3];         /* 0 = unknown */
    int32_t block[3];
    /* warp-level runs only (exec_warp.c; 0 elsewhere, and then left out of
     * JSON): warp instructions issued, and per cycle of the device clock from
     * the first block's start to the kernel's end */
    int64_t instructions;
    double ipc;
    /* runs with QoS goals only (quota warp policies, ISCA'17; 0 elsewhere,
     * and then left out of JSON): the op's qos_goal (0: not a QoS kernel),
     * the ipc the kernel reaches alone on the device (sim_ipc_isolated),
     * and whether ipc >= qos_goal x ipc_isolated (QoS kernels); a non-QoS
     * kernel's ipc over the cycles it shared with the QoS kernels */
    double qos_goal;
    double ipc_isolated;
    double ipc_shared;
    bool qos_met;
    int32_t device;          /* index in the trace's devices (DESIGN §5); 0 when it has none */
} trace_kernel;

typedef struct trace_block {
    int32_t kernel;          /* index in kernels[] */
    int32_t index;           /* blockIdx (linearised) */
    int32_t sm;
    int64_t start;
    int64_t end;
} trace_block;

/* A cohort (issue 28, "cost by kernels, not blocks"): `count` identical
 * blocks of one kernel on one SM, stored as one record. Block j (0 <= j <
 * count) has index `index + j * stride`, starts at `start + (j / per_wave)
 * * period` and ends `end - start` later: a wave of `per_wave` blocks that
 * start together, repeated every `period` ns (the block's duration: the
 * next wave starts when the last ends). A single wave has count ==
 * per_wave. Only a run with sim_config.cohorts records them (simcore's
 * cohort.c); trace_cohort_block and trace_expand_cohorts give its blocks
 * back, exactly those a block-by-block run records. */
typedef struct trace_cohort {
    int32_t kernel;          /* index in kernels[] */
    int32_t sm;
    int32_t index;           /* first block's index */
    int32_t stride;          /* index step from one block to the next */
    int64_t count;           /* blocks, >= 1 */
    int64_t per_wave;        /* blocks that start together, 1..count */
    int64_t start;           /* the first wave's start and end */
    int64_t end;
    int64_t period;          /* ns from one wave's start to the next's */
} trace_cohort;

/* Block j of cohort c (0 <= j < c->count), as a block-level run records it. */
static inline trace_block trace_cohort_block(const trace_cohort *c, int64_t j) {
    int64_t off = (j / c->per_wave) * c->period;
    trace_block b = {c->kernel, (int32_t)(c->index + j * c->stride), c->sm, c->start + off,
                     c->end + off};
    return b;
}

/* A preempted block: the interval [start, end) in which block `block` (its
 * index in the run's blocks, as stored and as a block sink numbers them)
 * was resident but did not run, because the driver switched its context
 * out (a time slice of another TSG, a GCAPS preemption: GCAPS paper §4,
 * TX2 paper appendix A). The block's own record keeps the span the
 * hardware would show, from its first start to its final end, so a
 * measured trace (which has only start and end) and a simulated one
 * compare directly; a block paused twice has two pauses. The time it
 * really ran is (end - start) minus its pauses. Pauses are listed in the
 * order they begin. */
typedef struct trace_pause {
    int64_t block;
    int64_t start;
    int64_t end;
} trace_pause;

typedef struct trace_copy {
    trace_str name;
    trace_str stream;
    trace_str process;
    int32_t direction;       /* trace_copy_dir */
    int32_t engine;          /* copy engine index; -1 = unknown */
    int64_t bytes;
    int64_t issue;
    int64_t start;
    int64_t end;
    int32_t device;          /* index in the trace's devices; 0 when it has none */
} trace_copy;

typedef enum trace_queue_op { TRACE_ENQUEUE = 0, TRACE_DEQUEUE = 1 } trace_queue_op;

typedef struct trace_queue_event {
    int64_t t;
    trace_str queue;         /* "stream:P0/S1", "ee:P0:low", "ce", "runlist" */
    trace_str item;          /* "K1", "C2o" */
    int32_t event;           /* trace_queue_op */
} trace_queue_event;

typedef struct trace_warp_issue {
    int32_t sm, subcore, warp, kernel;
    int64_t cycle;
} trace_warp_issue;

/* Issue slots a kernel used in one epoch of `cycles` cycles starting at
 * `cycle`, over the whole GPU: what a warp-level run records for every
 * epoch, so that a run too long to list every issue (warp_issues stops at
 * the run's limit) can still be drawn. */
typedef struct trace_warp_epoch {
    int32_t kernel;
    int32_t pad_;
    int64_t cycle;
    int64_t cycles;
    int64_t issues;
} trace_warp_epoch;

typedef struct trace_job {
    trace_str task;
    int64_t job;
    int64_t release, start, end, deadline;
} trace_job;

/* The host's calls in a simulation whose CPU tasks can be held (a sync, a
 * blocking copy: TX2 paper §2.3; sim.h, sim_stream.task): every op of the
 * scenario's script, in the order the host made them (by `at`, array order
 * on ties), with what the kernels and copies do not carry themselves: the
 * task that called, the time it was scripted to call (a held op's `issue`
 * is later: when its task was let go), whether a copy blocked, and the
 * syncs, which are no record of their own. A replay issues the same calls
 * from the same tasks (server/app/replay.c), so the same instant falls the
 * same way. Empty in every other trace. */
typedef enum trace_call_kind {
    TRACE_CALL_KERNEL = 0,   /* record: index in kernels */
    TRACE_CALL_COPY = 1,     /* record: index in copies */
    TRACE_CALL_SYNC = 2,     /* cudaStreamSynchronize(stream) */
    TRACE_CALL_DEVICE_SYNC = 3   /* cudaDeviceSynchronize; stream names the caller's */
} trace_call_kind;

typedef struct trace_host_call {
    int32_t kind;            /* trace_call_kind */
    int32_t record;          /* kernel or copy: its index; -1 for a sync */
    trace_str task;          /* the CPU task that called (sim_stream.task); 0: the
                                stream's own task */
    trace_str name, stream, process;   /* a sync's (a kernel's or copy's are its record's) */
    int64_t at;              /* when the script calls it */
    int64_t issue, end;      /* a sync: when its task called it (held: later than at),
                                when it returned; TRACE_NONE for kernels and copies */
    bool blocking;           /* a copy: cudaMemcpy (blocks its task until complete) */
} trace_host_call;

typedef struct trace_meta {
    trace_str key, value;
} trace_meta;

#define TRACE_VEC(T) struct { T *v; size_t n, cap; }

typedef struct trace {
    char *name;
    char *source;            /* "simulation", "nvprof-csv", ... */
    sim_device device;
    bool has_device;         /* false: the source named no device */
    int64_t origin;          /* the source's own timestamp of our t = 0; 0 if none */
    /* A trace of several GPUs (DESIGN §5): one entry per GPU, which the
     * kernels' and copies' `device` index (a block is on its kernel's);
     * empty for one GPU, which is then `device`. With entries, `device` is
     * still the run's one device for what takes one: the GPU with the most
     * kernels, as importers choose it. */
    TRACE_VEC(sim_device) devices;

    TRACE_VEC(trace_kernel) kernels;
    TRACE_VEC(trace_block) blocks;
    TRACE_VEC(trace_cohort) cohorts;   /* more blocks, many to a record (cohort runs only) */
    TRACE_VEC(trace_pause) pauses;
    TRACE_VEC(trace_copy) copies;
    TRACE_VEC(trace_queue_event) queue_events;
    TRACE_VEC(trace_warp_issue) warp_issues;
    TRACE_VEC(trace_warp_epoch) warp_epochs;
    TRACE_VEC(trace_job) jobs;
    TRACE_VEC(trace_host_call) host_calls;
    TRACE_VEC(trace_meta) meta;

    /* string table: strs.v[id] points into the arena; id 0 is NULL */
    TRACE_VEC(char *) strs;
    struct trace_strhash *strhash;

    bool oom;                /* sticky allocation failure */
} trace;

void trace_init(trace *t);
void trace_free(trace *t);   /* leaves *t as after trace_init */

/* Both copy `s` into the trace; NULL for a NULL argument. */
int trace_set_name(trace *t, const char *s);
int trace_set_source(trace *t, const char *s);

/* Intern a string; NULL -> 0. Returns 0 and sets t->oom on failure. */
trace_str trace_intern(trace *t, const char *s);
trace_str trace_intern_n(trace *t, const char *s, size_t len);
/* The string for an id; NULL for 0. */
const char *trace_str_get(const trace *t, trace_str id);

/* Append a record initialised to "unknown" (TRACE_NONE times, 0 strings,
 * engine -1, priority TRACE_PRIO_NONE); returns NULL on OOM. The pointer is
 * valid until the next add of the same kind. */
trace_kernel *trace_add_kernel(trace *t);
trace_block *trace_add_block(trace *t);
trace_copy *trace_add_copy(trace *t);
trace_queue_event *trace_add_queue_event(trace *t, int64_t when, trace_str queue,
                                         trace_str item, trace_queue_op op);
trace_warp_issue *trace_add_warp_issue(trace *t);
trace_warp_epoch *trace_add_warp_epoch(trace *t);
trace_job *trace_add_job(trace *t);
/* A call initialised to unknown (TRACE_NONE times, record -1, strings 0). */
trace_host_call *trace_add_host_call(trace *t);
trace_pause *trace_add_pause(trace *t, int64_t block, int64_t start, int64_t end);
int trace_set_meta(trace *t, const char *key, const char *value);
const char *trace_get_meta(const trace *t, const char *key);

trace_cohort *trace_add_cohort(trace *t);

/* Append a GPU to t->devices (a copy of *d); its index, or -1 out of memory
 * (t->oom). */
int32_t trace_add_device(trace *t, const sim_device *d);
/* The GPUs of the trace: devices.n, or 1 (device) when it has none. */
static inline size_t trace_device_count(const trace *t) {
    return t->devices.n ? t->devices.n : 1;
}

/* Blocks in all: blocks.n plus every cohort's count. */
int64_t trace_block_total(const trace *t);

/* Append every cohort's blocks to t->blocks and drop the cohorts: the
 * trace a block-by-block run gives, in another order (a run records blocks
 * in placement order; compare by kernel and index). 0, or -1 out of memory
 * (t->oom, cohorts kept). */
int trace_expand_cohorts(trace *t);

/* Reserve room for n more blocks (the simulator knows its total). */
int trace_reserve_blocks(trace *t, size_t n);

/* Shift every time so the earliest known time is 0; the shift is added to
 * t->origin. Returns the shift applied. */
int64_t trace_rebase(trace *t);

/* Earliest and latest known time over every record; TRACE_NONE if empty. */
void trace_time_span(const trace *t, int64_t *tmin, int64_t *tmax);

/* Names for enums, shared by JSON writers and readers. */
const char *trace_copy_dir_name(int32_t dir);          /* "h2d" ... */
int trace_copy_dir_parse(const char *s);               /* -1 if unknown */

/* the records' fields, declared once */
#include "trace_fields.h"

#endif
