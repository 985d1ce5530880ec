/* qos_sweep.h -- the QoS sweep of the ISCA'17 quota sharing paper (§4.1,
 * Fig. 6-8): a scenario template filled with pairs of synthetic kernels, one
 * QoS kernel beside one non-QoS kernel, simulated under every scheme at
 * every QoS goal; QoSreach per scheme (the share of (pair, goal) points
 * whose goal is met) and the non-QoS kernels' throughput normalised to
 * isolated execution. The "qos" kind of a schedlab-sweep/1 spec
 * (sweep.h dispatches here on "kind": "qos"); docs/qos.md.
 *
 * Spec:
 *   {"schema": "schedlab-sweep/1", "kind": "qos", "name", "description"?,
 *    "template": "isca17-pair.json" | {schedlab-scenario/1},
 *    "kernels": "isca17-kernels.json" | {"kernels": [...]} | [...],
 *                                           each {"name", "class", "program", ...}; a
 *                                           "program" that is a string names a kernel
 *                                           of the kernel library (kernlib.h)
 *    "pairs": "all" | [["QOS KERNEL", "NON-QOS KERNEL"], ...],
 *                                           (a trio template: [QOS, OTHER, OTHER2] or
 *                                           [QOS, QOS2, OTHER])
 *    "goals": [0.5, 0.55, ...],            fractions of IPC_isolated
 *    "schemes": [{"name", "policy": {scenario policy keys},
 *                 "partition"?: "hill-climb"}],
 *    "other_repeat"?: 4,                    the non-QoS kernel's program.repeat
 *                                           is multiplied by this
 *    "reference"?: {"source", "qosreach": {SCHEME: percent}}}
 *                                           the paper's, drawn beside ours
 * File names are relative to the spec's folder. The template is a scenario
 * whose ops include one kernel named "$qos" and one named "$other" (each
 * with its own declared stream), and for ISCA'17's trios "$qos2" or
 * "$other2"; each point puts a kernel of the set in each place (its blocks,
 * threads, smem, regs, program), the scheme's policy over the template's,
 * and "qos_goal" on the QoS kernels under a quota warp policy
 * (sim_warp_quota; with two non-QoS kernels also §3.6's static allocation:
 * their streams split the SMs, placement "spart"). A scheme with
 * "partition": "hill-climb" is Spart: its streams get SM partitions
 * (streams[].sms) chosen by qos_hill_climb (a trio: one knob per QoS
 * kernel). A trio's point is met when every QoS kernel meets the goal; its
 * throughput is the non-QoS kernels' mean.
 *
 * Result (schedlab-sweep-result/1, "kind": "qos"): "spec" (normalised,
 * kernels and template resolved), "schemes", "goals", "pairs", "kernels"
 * (with ipc_isolated), "points" (one per pair x goal x scheme: qos_met,
 * attained = ipc / ipc_isolated (a trio's second QoS kernel: attained2),
 * throughput = the non-QoS kernel's normalised throughput, sms = Spart's
 * partition: the QoS kernel's SMs, a trio's every kernel's), and the
 * summaries
 * "qosreach", "qosreach_by_goal", "throughput", "throughput_by_goal", and
 * "misses" (per scheme, the missed points by shortfall 1 - attained / goal
 * in the bins "shortfall_bins": ISCA'17 Fig. 5) and "overshoot" (per
 * scheme, the met points' mean attained / goal - 1: Fig. 9).
 * Shards hold the points of pairs i, i + n, ...; qos_merge joins them.
 *
 * Memory: results are jansson references the caller owns. */
#ifndef SERVER_QOS_SWEEP_H
#define SERVER_QOS_SWEEP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct qos_spec qos_spec;

typedef struct qos_stats {
    double wall_s;
    uint64_t points;         /* (pair, goal, scheme) points computed */
    uint64_t sims;           /* simulations run, isolated and hill-climbing steps included */
    int threads;
    /* the first phase: each kernel alone (IPC_isolated), before any point */
    double iso_s;
    uint64_t iso_sims;
} qos_stats;

/* root: the parsed spec (borrowed); file: its path (messages, relative
 * names). */
int qos_spec_parse(json_t *root, const char *file, qos_spec **out, char *err, size_t errlen);
void qos_spec_free(qos_spec *s);
const char *qos_spec_name(const qos_spec *s);

int qos_run(const qos_spec *s, int index, int count, int threads, json_t **result,
            qos_stats *st, char *err, size_t errlen);
/* The same, watched and stoppable (sweep.h's sweep_ctl; NULL: qos_run):
 * ctl->done counts points, checked for cancel before each simulation. */
struct sweep_ctl;
int qos_run_ctl(const qos_spec *s, int index, int count, int threads,
                const struct sweep_ctl *ctl, json_t **result, qos_stats *st, char *err,
                size_t errlen);
/* (pair, goal, scheme) points of the whole sweep; its work for the
 * server's budget: points x the template's window in cycles (1M when the
 * template has none), what a point's simulation costs grows with. */
uint64_t qos_points(const qos_spec *s);
/* The points of shard `index` of `count` (qos_run_ctl's pairs index,
 * index + count, ...). */
uint64_t qos_shard_points(const qos_spec *s, int index, int count);
uint64_t qos_cycles(const qos_spec *s);

int qos_merge(json_t *const *shards, size_t n, json_t **merged, char *err, size_t errlen);
/* names[i]: shard i's file for its errors, as sweep_merge_named */
int qos_merge_named(json_t *const *shards, const char *const *names, size_t n, json_t **merged,
                    char *err, size_t errlen);

/* --reuse (docs/qos.md, "Running a sweep again after a change"): an
 * earlier whole result of this sweep (`old`, borrowed: kept referenced by
 * the plan) gives the points of every group whose kernels are the same as
 * it ran them (their normal form, program and launch: json_equal), when
 * everything else a point depends on is the same too (template, schemes,
 * goals, other_repeat; otherwise an error naming `oldname` and the key);
 * qos_run_reuse simulates the other groups alone and joins the two into
 * the result a whole run writes, to the digit: a point simulates its own
 * group's kernels only, deterministically. to_run: the points it simulates;
 * reused: those it takes. */
typedef struct qos_reuse qos_reuse;
int qos_reuse_plan(const qos_spec *s, json_t *old, const char *oldname, qos_reuse **out,
                   char *err, size_t errlen);
uint64_t qos_reuse_to_run(const qos_reuse *r);
uint64_t qos_reuse_reused(const qos_reuse *r);
int qos_run_reuse(const qos_spec *s, const qos_reuse *r, int threads,
                  const struct sweep_ctl *ctl, json_t **result, qos_stats *st, char *err,
                  size_t errlen);
void qos_reuse_free(qos_reuse *r);

/* Spart's search (ISCA'17 §2.3 and §4.1, after Aguilera et al. [3]):
 * SMs 1..n-1 for the QoS kernel, the rest for the other. eval(m) simulates
 * the pair with m SMs for the QoS kernel and says whether its goal is met
 * and the non-QoS kernel's throughput. Start from the even split n/2; while
 * the goal is missed, move one SM to the QoS kernel; once it is met, move
 * SMs one at a time to the non-QoS kernel while the goal stays met and its
 * throughput improves. Returns the chosen m (with *met and *thr of it), or
 * -1 when eval fails. */
typedef int (*qos_eval_fn)(void *ctx, int32_t m, int *met, double *thr);
int32_t qos_hill_climb(int32_t n, qos_eval_fn eval, void *ctx, int *met, double *thr);

#endif
