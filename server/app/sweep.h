/* sweep.h -- schedulability sweeps (the GCAPS paper's §7.1, Fig. 8): draw
 * tasksets per point of a swept parameter, analyse each with every
 * approach on every core, count the schedulable ones.
 *
 * Spec (schedlab-sweep/1):
 *   {"schema": "schedlab-sweep/1", "name", "description"?, "seed": 1,
 *    "tasksets": 1000,                       per point
 *    "x": {"param": "tasks" | "util_per_cpu" | "cpus" | "gpu_ratio" |
 *                   "g_to_c" | "be_ratio", "values": [2, 4, ...]},
 *    "approaches"?: [names of rta.h; default all six],
 *    "semantics"?: "printed" | "released-code",     the analysis (rta.h)
 *    "generator"?: "paper" | "released-code",       the draw (rta_gen.h)
 *    "epsilon"?: "1ms", "theta"?: "200us", "time_slice"?: "1024us",
 *    "params"?: {"cpus": 4, "tasks": 0, "tasks_per_cpu": [3, 6],
 *                "util_per_cpu": [0.4, 0.6], "task_util": [0.05, 0.25],
 *                "task_util_step": 0.05, "gpu_ratio": [0.4, 0.6],
 *                "period_ms": [30, 500], "gpu_segments": [1, 3],
 *                "g_to_c": [0.2, 2], "misc_ratio": [0.1, 0.3],
 *                "be_ratio": 0},
 *    "reference"?: {"source": "where from", "schedulable": {APPROACH:
 *                   [percent or null per point]}}}
 * Defaults are Table 3 of the paper. The swept parameter overrides its
 * entry of `params` at each point (a range becomes [x, x]); "be_ratio"
 * also fixes tasks per core at the range's top, as the authors' code does.
 *
 * Result (schedlab-sweep-result/1): the normalised spec, "x", "approaches",
 * "tasksets" and "schedulable": {APPROACH: [count per point]}; a shard's
 * result also has "shard": {"index", "count", "tasksets"}: shard i of n
 * holds the tasksets numbered i, i + n, i + 2n, ... (taskset k of point p
 * is number p * tasksets + k), so each shard gets its share of the costly
 * points. Every taskset is drawn from (seed, p, k) alone, so any slicing
 * computes the same counts, and sweep_merge of all shards gives the same
 * text as the one-process sweep (sweep_text: sorted keys).
 *
 * A spec with "kind": "qos" is the ISCA'17 QoSreach sweep over a scenario
 * template instead (qos_sweep.h): the same CLI, sharding and storage.
 *
 * Memory: results are jansson references the caller owns. */
#ifndef SERVER_SWEEP_H
#define SERVER_SWEEP_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sweep_spec sweep_spec;

typedef struct sweep_stats {
    double wall_s;          /* the whole sweep */
    double gen_s, rta_s;    /* summed over threads: drawing vs analysing */
    uint64_t tasksets, analyses;
    int threads;
    /* kind "qos" (qos_sweep.h): (pair, goal, scheme) points and simulations */
    bool qos;
    uint64_t points, sims;
    double iso_s;           /* of wall_s: the kernels alone (IPC_isolated), first */
    uint64_t iso_sims;
} sweep_stats;

int sweep_spec_parse(const char *text, size_t len, const char *file, sweep_spec **out, char *err,
                     size_t errlen);
void sweep_spec_free(sweep_spec *s);
const char *sweep_spec_name(const sweep_spec *s);

/* Shard `index` of `count` (0 of 1: everything) on `threads` threads
 * (0: one per online CPU). */
int sweep_run(const sweep_spec *s, int index, int count, int threads, json_t **result,
              sweep_stats *st, char *err, size_t errlen);

/* A sweep watched and stopped from outside (the server's job, issue 30;
 * sweep_api.h): `done` counts the units finished as they finish (tasksets
 * of a schedulability sweep, (pair, goal, scheme) points of a QoS sweep:
 * sweep_units), `phase` names what runs now (a static string), and a set
 * `cancel` stops the workers at their next taskset or simulation; the run
 * then returns -1 with "cancelled" and no result. Any pointer may be NULL. */
typedef struct sweep_ctl {
    atomic_llong *done;
    atomic_bool *cancel;
    _Atomic(const char *) *phase;
} sweep_ctl;

int sweep_run_ctl(const sweep_spec *s, int index, int count, int threads, const sweep_ctl *ctl,
                  json_t **result, sweep_stats *st, char *err, size_t errlen);

/* `schedlab sweep --reuse OLD.json` (qos_sweep.h's qos_reuse): a QoS
 * sweep run again after a change simulates only the groups whose kernels
 * changed and takes the rest from OLD; a schedulability sweep is refused.
 * qos_reuse_to_run(plan) is what ctl->done counts to. */
struct qos_reuse;
int sweep_reuse_plan(const sweep_spec *s, json_t *old, const char *oldname,
                     struct qos_reuse **out, char *err, size_t errlen);
int sweep_run_reuse(const sweep_spec *s, const struct qos_reuse *r, int threads,
                    const sweep_ctl *ctl, json_t **result, sweep_stats *st, char *err,
                    size_t errlen);

/* The units sweep_ctl.done counts to for the whole sweep (shard 0 of 1). */
uint64_t sweep_units(const sweep_spec *s);
/* ... and for shard `index` of `count`. */
uint64_t sweep_shard_units(const sweep_spec *s, int index, int count);
/* Analyses of a schedulability sweep (units x approaches); for a QoS sweep
 * its simulated cycles (qos_cycles). The server's budget (budget.h:
 * sweep_analyses, sweep_cycles). */
bool sweep_is_qos(const sweep_spec *s);
uint64_t sweep_work(const sweep_spec *s);

/* A spec's optional "reference" (issue 30): the paper's or the authors'
 * code's numbers, carried into the result's spec and drawn beside ours:
 * {"source": string, WHAT: {NAME: percentages}}; npoints > 0: an array of
 * npoints per name, else one number per name. Each NAME must be one of the
 * nnames names (the approaches or schemes the spec computes): the page
 * draws a reference only beside a series of ours, so another name (a typo)
 * would be dropped without a word. */
int sweep_reference_check(json_t *v, const char *what, size_t npoints,
                          const char *const *names, size_t nnames, const char *file, char *err,
                          size_t errlen);

/* Check the shards belong to one spec and cover it exactly once; sum.
 * sweep_merge_named names a shard's problem by names[i] (its file, as
 * `schedlab merge` was given it; docs/cli.md: the error names the file),
 * sweep_merge by its place among the shards ("shard file 2"). */
int sweep_merge(json_t *const *shards, size_t n, json_t **merged, char *err, size_t errlen);
int sweep_merge_named(json_t *const *shards, const char *const *names, size_t n,
                      json_t **merged, char *err, size_t errlen);

/* The canonical text of a result (sorted keys, newline-terminated);
 * malloc'ed. */
char *sweep_text(const json_t *result);

#endif
