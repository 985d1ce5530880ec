/* fidelity.h -- how closely a simulated run reproduces a measured one
 * (issue 10: the fidelity report of a replay).
 *
 * Kernels are matched within each stream, in order: the n-th kernel (by
 * start) of stream (process, stream) of the measured trace with the n-th of
 * the same stream of the simulated one. `schedlab replay` names a stream
 * whose name another process already used "NAME@PROCESS"; that suffix is
 * taken off before matching, and a missing process is "P0" on both sides.
 * Both runs share one time axis (replay keeps the trace's time 0).
 *
 * Per matched kernel: the start error (simulated first block - measured,
 * ns) and the duration error (|simulated - measured| / measured). Summary:
 * the median and 90th percentile of the duration errors, the median
 * absolute start error in ns and as a share of the measured trace's span,
 * and the makespans (last end - first start over kernels and copies) and
 * their relative difference. Where both runs have blocks, blocks of
 * matched kernels are compared by block index: start error and same SM.
 *
 * The targets (issue 10, "What must hold"): median duration error <= 2 %,
 * 90th percentile <= 10 %, median start error <= 1 % of the span, makespan
 * within 2 %. fidelity_json says for each whether it is met, and where one
 * is not, why (what in the measured trace the model cannot express). */
#ifndef SERVER_FIDELITY_H
#define SERVER_FIDELITY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "../../simcore/trace.h"

typedef struct fid_kernel {
    size_t measured, simulated;  /* kernel ids in each trace */
    int64_t start_err;           /* simulated - measured first block, ns */
    int64_t dur_measured, dur_simulated;
    double dur_err;              /* |simulated - measured| / measured */
} fid_kernel;

typedef struct fidelity {
    fid_kernel *k;               /* matched kernels, by (process, stream, start) */
    size_t nk;
    size_t unmatched_measured, unmatched_simulated;
    double dur_median, dur_p90;  /* fractions: 0.02 = 2 % */
    int64_t start_median;        /* ns, absolute */
    int64_t span;                /* the measured trace's span, ns */
    double start_median_share;   /* start_median / span */
    int64_t makespan_measured, makespan_simulated;
    double makespan_diff;        /* (simulated - measured) / measured */
    size_t blocks_compared, blocks_same_sm;
    int64_t block_start_median;  /* ns, absolute; 0 when no blocks compared */
    /* why the measured trace is out of the model's reach, when it is: the
     * share of measured kernel time that overlapped another kernel */
    double overlap_share;
} fidelity;

#define FID_DUR_MEDIAN 0.02
#define FID_DUR_P90 0.10
#define FID_START_MEDIAN 0.01
#define FID_MAKESPAN 0.02

/* Compare; 0, or -1 with err (out of memory). Free with fidelity_free. */
int fidelity_compare(const trace *measured, const trace *simulated, fidelity *out, char *err,
                     size_t errlen);
void fidelity_free(fidelity *f);

/* Whether every target holds. */
int fidelity_ok(const fidelity *f);

/* The report as JSON (schedlab-fidelity/1): the summary, each target with
 * "ok" and, where it fails, "why", and the `worst` kernels that differ most
 * (by |start error| + |end error|) with their ids and names in both runs.
 * A new reference; NULL on OOM. */
json_t *fidelity_json(const fidelity *f, const trace *measured, const trace *simulated,
                      size_t worst);

#endif
