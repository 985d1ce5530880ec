/* state.h -- the state of one sim_run, shared by the files that implement
 * the simulator: sim.c (setup, event loop, trace output), streams.c (stream
 * queues, NULL stream, host syncs), ee.c (EE queues and block dispatch),
 * ce.c (CE queues and copy engines), sms.c + the placement policies.
 *
 * Queues are intrusive FIFOs: an op or kernel is in at most one queue of a
 * kind at a time, so each record carries its own `next` link and no queue
 * allocates while the simulation runs.
 *
 * Memory: sim_run allocates every array here before the first event and
 * frees them all before it returns; the trace (st->t) belongs to the caller. */
#ifndef SIMCORE_STATE_H
#define SIMCORE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "placement.h"
#include "sim.h"
#include "sms.h"
#include "trace.h"

/* Event types for the engine. */
enum {
    EV_ARRIVE = 1,           /* a = op: reaches its stream queue (G1) */
    EV_BLOCK_DONE,           /* a = kernel, b = SM */
    EV_COPY_DONE,            /* a = engine, b = op */
    EV_DISPATCH              /* the block scheduler is free again */
};

typedef struct sim_opstate {
    int32_t next;            /* next op in its stream queue or held list; -1 */
    int32_t stream;          /* internal stream index */
    int32_t rec;             /* kernel: index in st->ks and t->kernels; copy: in t->copies */
    int32_t ce_next;         /* next op in its CE queue; -1 (it is in its stream queue too) */
    uint64_t issue_seq;      /* host issue order: "launched after" of N1/N2 */
    trace_str item;          /* the op's name, for queue events */
} sim_opstate;

typedef struct sim_kstate {
    int32_t op;
    int32_t proc;
    int32_t level;           /* EE level index (A1) */
    int32_t ee_next;         /* next kernel in its EE queue; -1 */
    uint64_t ee_seq;         /* order of EE enqueue, across processes */
    sim_need need;
    int64_t blocks, placed, done;
    const int64_t *block_time;
    size_t nblock_time;
} sim_kstate;

typedef struct sim_sstate {
    int32_t proc;
    int32_t level;           /* EE level index of this stream's priority */
    int32_t priority;        /* as configured (SIM_PRIO_NONE kept) */
    bool is_null;            /* the process's NULL stream (N1, N2) */
    bool head_moved;         /* the head op went on to the EE / CE queue */
    bool host_blocked;       /* a host sync of this stream is pending */
    int32_t head, tail;      /* stream queue (ops) */
    int32_t held_head, held_tail; /* ops the host issues after the pending sync */
    int32_t next_in_proc;    /* streams of one process, linked in config order */
    trace_str name;
    trace_str qname;         /* "stream:P0/S1" */
} sim_sstate;

typedef struct sim_proc {
    trace_str name;
    int32_t first_stream;
    int32_t null_stream;     /* -1: the process never uses its NULL stream */
    bool stuck;              /* scratch of ee_dispatch */
} sim_proc;

typedef struct ee_queue {
    int32_t head, tail;      /* kernels (indices in st->ks) */
    trace_str qname;         /* "ee:P0:low"; interned on first use */
} ee_queue;

typedef struct ce_engine {
    int32_t head, tail;      /* CE queue of this engine (ops), linked by sim_opstate.next */
    bool busy;
    trace_str qname;         /* "ce" (one engine) or "ce:<i>" */
} ce_engine;

typedef struct sim_state {
    const sim_config *cfg;
    const sim_device *dev;   /* &st->devcopy */
    sim_device devcopy;      /* cfg->device with its order filled */
    trace *t;
    sim_engine eng;
    sim_sms sms;
    sim_pick_fn pick;

    sim_opstate *ops;        /* [cfg->nops] */
    sim_kstate *ks;          /* [nkernels] */
    size_t nkernels;
    sim_sstate *ss;          /* [nstreams] (deduplicated) */
    size_t nstreams;
    int32_t *stream_of;      /* cfg stream index -> ss index */
    sim_proc *procs;
    size_t nprocs;
    int32_t *levels;         /* priority value of each EE level, ascending */
    size_t nlevels;
    bool tx2_levels;         /* every priority is -1, 0 or none: name levels high/low */
    ee_queue *ee;            /* [nprocs * nlevels] */
    ce_engine ce[2];         /* device.copy_engines of them */
    int32_t nce;

    uint64_t next_issue_seq;
    uint64_t next_ee_seq;
    int64_t sched_free_at;   /* dispatch latency: next block decision */
    const sim_block_sink *sink; /* cfg->block_sink: NULL keeps blocks in the trace */
    size_t sink_batch;       /* blocks per emit() */
    size_t emitted;          /* blocks handed to the sink so far */
    bool sink_failed;        /* emit() refused a batch (failed is set too) */
    bool failed;             /* out of memory in the engine or trace */
} sim_state;

#endif
