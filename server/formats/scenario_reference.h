/* scenario_reference.h -- a scenario's "reference" block: what the paper it
 * reproduces (or a recording on real hardware) reports, row by row, beside
 * what the scenario's runs give (the experiment page's "The paper beside
 * the model" card, web/js/views/reference.mjs). The simulator does not read
 * it; the scenario reader checks it whole, so a row that names a run,
 * kernel or task the scenario does not have is refused where it is, not
 * found empty on the page.
 *
 *   "reference": {
 *     "source": "most-room Table 1 (Gilman et al.), memory-intensive row",
 *     "rows": [
 *       {"label": "B, concurrent-isolated over serial",
 *        "ratio": ["B-isolated", "B-serial"],      kernel times (first block
 *                                                  to end), the first's over
 *                                                  the second's
 *        "reported": 22.4, "within": 1.5},         a factor either way
 *       {"label": "K1 under QAWS over LRR's",
 *        "ratio": [{"run": "qaws-k2-budget-8", "kernel": "K1"},
 *                  {"run": "lrr", "kernel": "K1"}],
 *        "below": 1},                              a direction only
 *       {"label": "histogram, gcaps_suspend", "run": "gcaps-suspend",
 *        "mort": "histogram", "reported": 10.15},  a task's MORT, in ms
 *       {"label": "Y's blocks", "sms": "Y",
 *        "reported": [0, 0, 1]}]}                  the SM of each block
 *
 * A row's kernels and task are in its "run" (default: the base run) unless
 * a kernel names its own. A row has one of "ratio", "mort", "start" or
 * "end" (a kernel's first block or end, in ms) and "sms", and "reported"
 * (the source's ratio, time in ms or SM list) unless it has "below" or
 * "above" (the source claims a direction: the ratio is below or above the
 * number); "within" (> 1) makes the agreement a factor of the reported
 * ratio, "within_ms" (>= 0) a time difference in ms. At most 64 rows. */
#ifndef SERVER_SCENARIO_REFERENCE_H
#define SERVER_SCENARIO_REFERENCE_H

#include <stdbool.h>

#include <jansson.h>

#include "../../importers/jsonr.h"

/* What the scenario has, for the checks: each answers whether the name is
 * one of its runs, of its kernels (the ops' "kernel" names), of its tasks;
 * when it is not, *near is the nearest one by spelling (jr_suggest), or
 * NULL, for the message's "did you mean". */
typedef struct scn_ref_names {
    const void *ctx;
    bool (*run)(const void *ctx, const char *name, const char **near);
    bool (*kernel)(const void *ctx, const char *name, const char **near);
    bool (*task)(const void *ctx, const char *name, const char **near);
    /* how many kernel ops share the name; several: "ops[0], ops[2]" in where */
    size_t (*kernel_ops)(const void *ctx, const char *name, char *where, size_t n);
} scn_ref_names;

/* v (the "reference" value at `path`) is a block as above whose names are
 * all the scenario's: 0, or -1 with "reference.rows[2].ratio[1]: no kernel
 * named \"B-serail\" in the scenario's ops (did you mean \"B-serial\"?)" in
 * c. */
int scn_ref_check(jr_ctx *c, json_t *v, const char *path, const scn_ref_names *names);

#endif
