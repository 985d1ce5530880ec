/* replay_heldout.h -- the honest half of a replay's fidelity report (issue
 * 28, point 6).
 *
 * A replay calibrates each kernel's block time from that kernel's own
 * measured duration (replay.h), so its duration errors are near 0 by
 * construction. The held-out prediction tests the model instead: the trace
 * is cut at the middle of its span (by time); the first half is replayed
 * and calibrated as usual; the second half is replayed from its own issue
 * times (a run whose CPU tasks can be held: from the host's calls of its
 * ops, replay_calls.h), but each of its kernels runs with the block time
 * the first half calibrated for a kernel of the same name (and grid and block size where
 * one matches; else the median over that name). The second half is then
 * simulated and compared with its measurement (fidelity.h), over the
 * kernels the first half could predict. A kernel whose name the first half
 * never ran is "unpredicted" and left out of the errors (and counted).
 *
 * Traces with block records replay their measured block times, so a
 * held-out prediction would replay the very blocks it predicts: they get
 * none ("skipped" says so). */
#ifndef SERVER_REPLAY_HELDOUT_H
#define SERVER_REPLAY_HELDOUT_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../../simcore/trace.h"

typedef struct replay_heldout {
    int done;                    /* 0: skipped (see why) */
    char why[256];
    int64_t split;               /* the cut, trace time ns */
    size_t first_kernels;        /* kernels calibrated (first half) */
    size_t predicted;            /* second-half kernels compared */
    size_t unpredicted;          /* second-half kernels no first-half name matched */
    double dur_median, dur_p90;  /* fractions */
    double start_median_share;   /* of the second half's span */
    double makespan_diff;
} replay_heldout;

/* Compute the held-out prediction of m replayed on device_preset (NULL:
 * its own device, as replay_scenario_info picks). 0 (also when skipped,
 * with out->done 0 and out->why), or -1 with err (out of memory). */
int replay_heldout_run(const trace *m, const char *what, const char *device_preset,
                       replay_heldout *out, char *err, size_t errlen);
/* The same, its simulations (each half's calibration, the second half's
 * run) stopping once *cancel is set (cancel may be NULL: never): also
 * REPLAY_CANCELLED (replay.h). */
int replay_heldout_run_ctl(const trace *m, const char *what, const char *device_preset,
                           atomic_bool *cancel, replay_heldout *out, char *err, size_t errlen);

/* replay_heldout_run_ctl, and the halves as measured (the kernels and copies of
 * m that start before the cut, and from it, each with the host's calls of
 * its ops: replay_calls.h) in *first and *second, and the second as the
 * prediction simulated it in *predicted, each where not NULL: traces the
 * caller frees, set whatever the result (empty where it stopped before
 * them). */
int replay_heldout_halves(const trace *m, const char *what, const char *device_preset,
                          atomic_bool *cancel, replay_heldout *out, trace *first, trace *second,
                          trace *predicted, char *err, size_t errlen);

/* The result as JSON (a new reference; NULL on OOM). */
json_t *replay_heldout_json(const replay_heldout *h);

#endif
