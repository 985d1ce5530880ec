/* fidelity_causes.h -- what a replay's fidelity report says about itself
 * (issue 28, point 6): that block times were calibrated from the very trace
 * compared (so duration errors near 0 are by construction), the held-out
 * prediction (replay_heldout.h), and the specific, measured cause of each
 * miss it can identify in the measured trace:
 *   - "host": work that started long after its API call handed it over,
 *     its stream idle and its engine free: the host (a slow launch call,
 *     lazy module loading) held it, which the issue times cannot show;
 *   - "overlapping_copies": copies of one direction that overlapped in time
 *     though the device copies one at a time per engine and direction
 *     (ce.h): pageable copies are staged by the driver through pinned
 *     buffers, so their records overlap;
 *   - "device": replayed on a preset, not on the trace's own device;
 *   - "several_gpus": the trace's work ran on several GPUs, replayed on one;
 *   - "concurrent_kernels": kernels overlapped on the hardware and slowed
 *     each other (the block times are calibrated for each kernel alone).
 * The missed targets' "why" names these causes; "worst" keeps only kernels
 * that differ (a duration error of 0.5 % or more, or a start or end error
 * of 0.1 % of the span or more). */
#ifndef SERVER_FIDELITY_CAUSES_H
#define SERVER_FIDELITY_CAUSES_H

#include <jansson.h>

#include "../../simcore/trace.h"
#include "replay.h"
#include "replay_heldout.h"

/* Add "calibration", "held_out" (when h is not NULL) and "causes" to report
 * rep (fidelity_json's) of measured trace m replayed as info says. 0, or -1
 * out of memory. */
int fidelity_explain(json_t *rep, const trace *m, const replay_info *info,
                     const replay_heldout *h);

/* A few lines of text for a terminal: the targets, the calibration note,
 * the causes and the held-out errors (a new string, freed by the caller;
 * NULL on OOM). */
char *fidelity_text(const json_t *rep);

#endif
