/* spart.c -- spatial partitioning of the SMs between co-running kernels
 * (placements "spart" and "spart-climb"), the coarse-grained baseline of
 * the ISCA'17 quota sharing paper.
 *
 * ISCA'17 §2.3: "Sharer kernels can either partition the SMs spatially
 * within the GPU, as shown in Figure 2b [31, 37] ... QoS for spatially
 * partitioned sharing can be performed by adjusting the number of SMs for
 * each kernel to achieve performance goals with hill-climbing [3]"; §4.1
 * names it Spart, "Spatial Partition with hill climbing". Each stream owns
 * the SMs at ranks [first, first + count) of the device's sm_order
 * (st->part_first/count, set from sim_stream.sm_first/sm_count; count 0 =
 * every SM), and its kernels' blocks go only there; §4.3: "an SM cannot be
 * divided between QoS and non-QoS kernels". Within a partition a block goes
 * to the SM with the most room for it, ties to the lowest rank, as under
 * most-room (most-room paper §4.1), so a stream whose partition is the
 * whole device places exactly as most-room.
 *
 * "spart" keeps the partitions as configured: the QoS sweep's offline
 * search (server/app/qos_sweep.c, "partition": "hill-climb") simulates one
 * fixed partition per step, an upper bound of what a climb at run time
 * finds. "spart-climb" is the run-time technique of [3] (Aguilera et al.,
 * ASP-DAC 2014: "we propose a runtime technique to dynamically partition
 * GPU resources between concurrently running applications - at least one
 * of which has a QoS requirement"), which ISCA'17 §4.1 follows ("follow
 * the same assumptions and implementation reported in previous work [3,
 * 37, 41]"); neither paper prints its rule, so this is ours, one SM a step:
 *
 *   at each QoS epoch boundary (policy.quota_epoch cycles, §4.1's epoch;
 *   exec_warp.c calls spart_climb_epoch), for each stream with a live QoS
 *   kernel, in stream order, its warp instructions over the epoch that
 *   ended per cycle (IPC_epoch) against IPC_goal = qos_goal x IPC_isolated
 *   (§3.2):
 *   - IPC_epoch < IPC_goal: one SM more, from the stream without goals
 *     that has the most SMs (ties: the first stream), which keeps one;
 *     under policy.spart_take_last it keeps none, and gets its SMs back
 *     when they are given back or no kernel with a goal is left to run
 *     (sim_part_span): ISCA'17 §4.2, "For C+C kernels, Spart and Rollover
 *     meet QoS goals in all cases", which at goal 0.95 a compute kernel
 *     bound by issue, at 15/16 of its isolated IPC on 15 of 16 SMs, meets
 *     only with all 16 (docs/qos.md, "Spart's floor");
 *   - IPC_epoch x (n - 1) / n >= IPC_goal, n its SMs: one SM back, to the
 *     stream without goals that has the fewest (IPC taken as proportional
 *     to SMs: the goal is predicted to hold with one fewer; the non-QoS
 *     kernels' objective is their throughput, §3); under
 *     policy.spart_take_only never: the climb only takes, and a QoS kernel
 *     keeps the SMs it has (docs/qos.md, "Spart's give-back": measured,
 *     the two rules bracket §4.4's 11.6 % overshoot);
 *   - under policy.spart_trial the give-back is trial and error instead,
 *     §2.3's "hill-climbing [3]" without a model of the slope: IPC_epoch >=
 *     IPC_goal on n > 1 SMs gives one back (no prediction), unless n - 1
 *     is below the launch's floor; when the epoch after such a trial misses
 *     the goal, the SM comes back (the first rule) and n + 1, the count
 *     the goal was met on, becomes the floor: the launch (op) never tries
 *     fewer again, and a new launch on the stream climbs afresh;
 *   - else nothing. A stream's first epoch with instructions (it began
 *     within it) decides nothing.
 *
 * The partitions stay contiguous and in the order of their configured
 * first ranks (they must not overlap); moving one SM shifts the ranks
 * between the two streams. An SM that changes hands keeps the blocks it
 * runs until they end (no preemption: the SM drains, as [37]'s draining
 * mode; ISCA'17 §2.3 "[31, 37]"), and the new owner's blocks take its room
 * as it frees. */
#include <stdio.h>
#include <stdlib.h>

#include "state.h"

typedef struct spart_state {
    const sim_state *st;     /* kernel -> op -> stream -> partition */
    /* spart-climb, by cfg stream index: */
    int64_t *last;           /* warp instructions at the last boundary */
    int64_t *now;            /* scratch: at this one */
    bool *qos;               /* some op of the stream has a goal */
    int32_t *order;          /* the partitioned streams by first rank */
    int32_t nord;
    /* policy.spart_trial, by cfg stream index: */
    bool *trial;             /* gave an SM back at the last boundary, on trial */
    int32_t *floor;          /* the fewest SMs the launch may try (0: none yet) */
    int32_t *launch;         /* the op the floor is of; -1 none */
} spart_state;

static int spart_init(void *self, const sim_state *st, char *err, size_t errlen) {
    spart_state *p = self;
    p->st = st;
    const sim_config *cfg = st->cfg;
    for (size_t i = 0; i < cfg->nstreams; i++) {
        const sim_stream *s = &cfg->streams[i];
        if (s->sm_count < 0 || s->sm_first < 0 || s->sm_count > st->dev->sms ||
            s->sm_first > st->dev->sms - s->sm_count) {
            snprintf(err, errlen, "streams[%zu].sms: ranks %d..%d of sm_order are not on the "
                     "device's %d SMs", i, (int)s->sm_first,
                     (int)s->sm_first + (int)s->sm_count - 1, (int)st->dev->sms);
            return -1;
        }
    }
    return 0;
}

/* Does some kernel with a QoS goal still have blocks to run? */
static bool qos_left(const sim_state *st) {
    for (size_t k = 0; k < st->nkernels; k++)
        if (st->cfg->ops[st->ks[k].op].qos_goal > 0 && st->ks[k].done < st->ks[k].blocks)
            return true;
    return false;
}

/* A stream given SMs uses its partition; one given none, every SM. A
 * partition that spart-climb emptied (policy.spart_take_last) is every SM
 * again once no kernel with a goal is left to run: the SMs were taken for
 * the goals, and a run must not end with blocks that can go nowhere. */
void sim_part_span(const sim_state *st, int32_t str, int32_t *lo, int32_t *hi) {
    *lo = 0;
    *hi = st->sms.n;
    if (!st->part_on[str] || (st->part_count[str] == 0 && !qos_left(st))) return;
    *lo = st->part_first[str];
    *hi = st->part_first[str] + st->part_count[str];
}

static int32_t spart_pick(void *self, sim_sms *s, int32_t kernel, const sim_need *k) {
    const spart_state *p = self;
    const sim_state *st = p->st;
    int32_t lo, hi;
    sim_part_span(st, st->cfg->ops[st->ks[kernel].op].stream, &lo, &hi);
    if (hi > s->n) hi = s->n;
    /* most room within the partition, the lowest rank on ties (most-room
     * §4.1, §4.3); a partition is a few SMs, so a scan is as cheap as the
     * room index would be */
    int32_t best = -1, best_room = 0;
    for (int32_t r = lo; r < hi; r++) {
        int32_t sm = s->order[r];
        int32_t room = sms_room(s, sm, k);
        if (room > best_room) {
            best_room = room;
            best = sm;
        }
    }
    return best;
}

const placement_policy placement_spart = {
    .name = "spart",
    .doc = "each stream's kernels only on its own SMs (streams[].sms), most room within them: "
           "spatial partitioning, the Spart baseline of ISCA'17 §2.3, §4.1",
    .state_size = sizeof(spart_state),
    .init = spart_init,
    .pick = spart_pick,
    .partitioned = true,
};

/* ---- spart-climb: the partitions move at run time --------------------------- */

static void climb_fini(void *self) {
    spart_state *p = self;
    free(p->last);
    free(p->now);
    free(p->qos);
    free(p->order);
    free(p->trial);
    free(p->floor);
    free(p->launch);
}

static int climb_init(void *self, const sim_state *st, char *err, size_t errlen) {
    spart_state *p = self;
    if (spart_init(self, st, err, errlen) != 0) return -1;
    const sim_config *cfg = st->cfg;
    size_t n = cfg->nstreams ? cfg->nstreams : 1;
    p->last = calloc(n, sizeof *p->last);
    p->now = calloc(n, sizeof *p->now);
    p->qos = calloc(n, sizeof *p->qos);
    p->order = calloc(n, sizeof *p->order);
    p->trial = calloc(n, sizeof *p->trial);
    p->floor = calloc(n, sizeof *p->floor);
    p->launch = malloc(n * sizeof *p->launch);
    if (!p->last || !p->now || !p->qos || !p->order || !p->trial || !p->floor || !p->launch) {
        snprintf(err, errlen, "simulation: out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) p->launch[i] = -1;
    for (size_t i = 0; i < cfg->nops; i++)
        if (cfg->ops[i].qos_goal > 0) p->qos[cfg->ops[i].stream] = true;
    /* the partitioned streams by first rank (insertion sort: a few) */
    for (size_t i = 0; i < cfg->nstreams; i++) {
        if (cfg->streams[i].sm_count <= 0) continue;
        int32_t j = p->nord++;
        while (j > 0 && cfg->streams[p->order[j - 1]].sm_first > cfg->streams[i].sm_first) {
            p->order[j] = p->order[j - 1];
            j--;
        }
        p->order[j] = (int32_t)i;
    }
    for (int32_t j = 1; j < p->nord; j++) {
        const sim_stream *a = &cfg->streams[p->order[j - 1]], *b = &cfg->streams[p->order[j]];
        if (a->sm_first + a->sm_count > b->sm_first) {
            snprintf(err, errlen, "streams[%d].sms: ranks %d..%d overlap streams[%d]'s; "
                     "spart-climb moves SMs between partitions that do not",
                     (int)p->order[j], (int)b->sm_first, (int)(b->sm_first + b->sm_count - 1),
                     (int)p->order[j - 1]);
            return -1;
        }
    }
    return 0;
}

/* The stream without goals with the most SMs (more than `keep`, the SMs
 * each keeps: one, or none under policy.spart_take_last), or with the
 * fewest when `fewest`; ties to the first; -1 none. */
static int32_t climb_peer(const spart_state *p, const sim_state *st, bool fewest) {
    int32_t best = -1, keep = st->cfg->policy.spart_take_last ? 0 : 1;
    for (int32_t j = 0; j < p->nord; j++) {
        int32_t s = p->order[j], c = st->part_count[s];
        if (p->qos[s] || (!fewest && c <= keep)) continue;
        if (best < 0 || (fewest ? c < st->part_count[best] : c > st->part_count[best])) best = s;
    }
    return best;
}

/* Does a QoS kernel that met its goal over the epoch on n SMs give one
 * back? By prediction (IPC proportional to SMs), never
 * (policy.spart_take_only), or on trial down to the launch's floor
 * (policy.spart_trial). */
static bool climb_gives_back(const sim_policy *pol, int32_t n, int32_t least, double ipc,
                             double goal) {
    if (pol->spart_take_only || n <= 1) return false;
    if (pol->spart_trial) return n - 1 >= least;
    return ipc * (double)(n - 1) / (double)n >= goal;
}

static bool climb_epoch(void *self, sim_state *st, const int64_t *issued, int64_t cycles) {
    spart_state *p = self;
    const sim_config *cfg = st->cfg;
    for (size_t i = 0; i < cfg->nstreams; i++) p->now[i] = 0;
    for (size_t k = 0; k < st->nkernels; k++) p->now[cfg->ops[st->ks[k].op].stream] += issued[k];
    bool moved = false;
    for (int32_t j = 0; j < p->nord && cycles > 0; j++) {
        int32_t s = p->order[j];
        if (!p->qos[s]) continue;
        /* the stream's live QoS kernel (blocks resident), its IPC_goal */
        double goal = 0;
        int32_t op = -1;
        for (size_t k = 0; k < st->nkernels; k++) {
            const sim_kstate *K = &st->ks[k];
            const sim_op *o = &cfg->ops[K->op];
            if (o->stream == s && o->qos_goal > 0 && K->placed > K->done) {
                goal = o->qos_goal * st->ipc_isolated[k];
                op = K->op;
            }
        }
        if (goal <= 0 || p->last[s] == 0) continue;
        double ipc = (double)(p->now[s] - p->last[s]) / (double)cycles;
        int32_t n = st->part_count[s], peer = -1;
        bool tried = p->trial[s];
        p->trial[s] = false;
        if (p->launch[s] != op) {   /* policy.spart_trial: a new launch climbs afresh */
            p->launch[s] = op;
            p->floor[s] = 0;
            tried = false;
        }
        if (ipc < goal) {
            if (tried) p->floor[s] = n + 1;   /* the trial missed: n + 1 is the fewest */
            peer = climb_peer(p, st, false);
            if (peer >= 0) {
                st->part_count[s]++;
                st->part_count[peer]--;
            }
        } else if (climb_gives_back(&cfg->policy, n, p->floor[s], ipc, goal)) {
            peer = climb_peer(p, st, true);
            if (peer >= 0) {
                st->part_count[s]--;
                st->part_count[peer]++;
                p->trial[s] = cfg->policy.spart_trial;
            }
        }
        moved |= peer >= 0;
    }
    for (size_t i = 0; i < cfg->nstreams; i++) p->last[i] = p->now[i];
    if (moved) {
        /* contiguous again, in the configured order, from the first rank */
        int32_t first = p->nord ? cfg->streams[p->order[0]].sm_first : 0;
        for (int32_t j = 0; j < p->nord; j++) {
            st->part_first[p->order[j]] = first;
            first += st->part_count[p->order[j]];
        }
    }
    return moved;
}

const placement_policy placement_spart_climb = {
    .name = "spart-climb",
    .doc = "Spart with the SM partitions moved at run time, one SM per QoS epoch, towards each "
           "QoS kernel's goal (ISCA'17 §2.3, §4.1 after Aguilera et al. [3])",
    .state_size = sizeof(spart_state),
    .init = climb_init,
    .fini = climb_fini,
    .pick = spart_pick,
    .qos_epoch = climb_epoch,
    .partitioned = true,
};
