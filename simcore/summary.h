/* summary.h -- the numbers people open a GPU trace for (issue 29), as
 * Holistic Trace Analysis (facebookresearch/HolisticTraceAnalysis) reports
 * them for PyTorch traces, computed for any kernel-level run:
 *
 *   per device (a trace_kernel's `process`) and per stream of it: the
 *   window (first start to last end of the device's kernels and copies),
 *   the time covered by compute kernels, by communication kernels, by
 *   copies (memsets included), by any of them (busy), and idle = window -
 *   busy. Each is the length of a union of intervals, so two kernels
 *   running at once count once; compute, communication and copy time may
 *   overlap one another and do not add up to busy.
 *   kernels by name: count, total, mean, p50 / p95 duration, share of all
 *   kernel time (the sum of every kernel's duration).
 *   launch delay (a kernel's first_block - issue, where the source knows
 *   the launch call): count, min, p50, p95, p99, max, mean.
 *   communication overlapped by compute: per device, the length of
 *   union(communication) intersected with union(compute) on that device
 *   (any stream), over the length of union(communication).
 *
 * Percentiles are nearest-rank: the ceil(p / 100 * n)-th smallest value.
 * A communication kernel is an NCCL one, by name: "nccl..." after an
 * optional "void " (../shared/docs/pytorch-profiler-trace-format.md:
 * ncclKernel_... older, ncclDevKernel_... newer). Records with an unknown
 * start or end are left out. Pure computation: no I/O, deterministic. */
#ifndef SIMCORE_SUMMARY_H
#define SIMCORE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

typedef struct tsum_lane {
    trace_str process;           /* the device */
    trace_str stream;            /* 0 in a device row */
    int64_t window, busy, compute, comm, copy, idle;   /* ns */
    size_t kernels, copies;
    int64_t comm_overlapped;     /* device rows: comm time that compute covers too */
} tsum_lane;

typedef struct tsum_name {
    trace_str name;
    size_t count;
    int64_t total, p50, p95, min, max;
    double mean, share;
} tsum_name;

typedef struct tsum_dist {
    size_t count;
    int64_t min, p50, p95, p99, max;
    double mean;
} tsum_dist;

typedef struct trace_summary {
    tsum_lane *devices;          /* by process string id (first interned first) */
    size_t ndevices;
    tsum_lane *streams;          /* by device, then stream */
    size_t nstreams;
    tsum_name *names;            /* by total time, descending (ties: name id) */
    size_t nnames;
    int64_t kernel_time;         /* sum of kernel durations */
    tsum_dist launch;
    int64_t comm, comm_overlapped; /* over every device */
} trace_summary;

bool trace_is_comm_kernel(const char *name);
/* 0, or -1 when out of memory (s is then empty). */
int trace_summarize(const trace *t, trace_summary *s);
void trace_summary_free(trace_summary *s);

#endif
