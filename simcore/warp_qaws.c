/* warp_qaws.c -- QoS-aware warp scheduling, QAWS paper §IV, Algorithm 1
 * (SORTWARPS), over the generic ordering of warp.h.
 *
 * Warps are grouped by their kernel's budget (Alg. 1 line 7, GETGROUPS:
 * "groups classified by warp budgets"; §IV-A: "in the case where all the
 * kernels are assigned the same budget there is only one group and the
 * scheduling policy is reduced to GTO (line 9)"). Within a group warps are
 * ordered greedy-then-oldest (SORT, lines 30-35). The prioritised group g0
 * keeps the sub-core until it has switched context between its own warps
 * `budget` times; at the next stall the other group goes first (lines
 * 14-20). The paper limits itself to two kernels (two groups) and says the
 * model "can be easily scaled": with more groups the order is g0 and then
 * the other groups by decreasing budget, cyclically, and g0 passes to the
 * next of them.
 *
 * When the head of the order stalls is decided in the cycle it stalls, as
 * the paper's own walk through Fig. 3c counts it (w0 "stalls at cycle 1.
 * Then, the scheduler switches context to w1 and increments the context
 * switch count for K1 (line 16)"; "upon the next stall at cycle 2 (line
 * 18), the scheduler begins to issue warps of K2"): the increment of line
 * 16 happens when the scheduler switches to another ready warp of g0; when
 * none is ready (all of g0 stalled) there is no context switch within the
 * group and the count stays (§IV: "at cycle 22 ... w3 encounters a stall
 * however since it does not switch context to a warp in the same group
 * ... ncs is not incremented"), and g0 keeps its priority (lines 22-23). */
#include <stdlib.h>

#include "warp.h"

/* Alg. 1's state, per sub-core. */
typedef struct qaws_state {
    int32_t greedy;          /* Wgreedy (Alg. 1 line 2): position of the warp that issued
                                last; -1 = none */
    int32_t gbud;            /* budget of the warp that issued last, kept after it ends
                                (Alg. 1 line 14: "Wgreedy in g0") */
    int32_t g0;              /* budget of the prioritised group; 0 = no history */
    int32_t nncs;
    int32_t *ncs_key;        /* [warps] budgets that have a context switch count */
    int32_t *ncs;            /* [warps] g.ncs of Alg. 1, per budget group */
} qaws_state;

static int qaws_init(void *self, int32_t warps) {
    qaws_state *q = self;
    q->greedy = -1;
    /* there are never more groups present than warps (ncs_of) */
    q->ncs_key = malloc((size_t)(warps > 0 ? warps : 1) * 2 * sizeof(int32_t));
    if (!q->ncs_key) return -1;
    q->ncs = q->ncs_key + (warps > 0 ? warps : 1);
    return 0;
}

static void qaws_fini(void *self) {
    free(((qaws_state *)self)->ncs_key);
}

/* SORT's greedy-then-oldest (lines 30-35) and line 14's "Wgreedy in g0":
 * the warp that issued, and its group */
static void qaws_on_issue(void *self, const warp_sub *s, int32_t p) {
    qaws_state *q = self;
    q->greedy = p;
    q->gbud = s->info[p].budget;
}

static void qaws_on_remove(void *self, const warp_sub *s, int32_t p) {
    (void)s;
    qaws_state *q = self;
    if (q->greedy == p) q->greedy = -1;
    else if (q->greedy > p) q->greedy--;
}

/* Alg. 1 state g.ncs, per budget group of this sub-core. */
static int32_t *ncs_of(qaws_state *q, const warp_sub *s, int32_t g) {
    for (int32_t i = 0; i < q->nncs; i++)
        if (q->ncs_key[i] == g) return &q->ncs[i];
    /* forget groups that have left the sub-core; there are never more
     * groups present than warps */
    int32_t k = 0;
    for (int32_t i = 0; i < q->nncs; i++) {
        if (warp_first_ready_in(s, q->ncs_key[i], -1, INT64_MAX) < 0) continue;
        q->ncs_key[k] = q->ncs_key[i];
        q->ncs[k++] = q->ncs[i];
    }
    q->nncs = k;
    q->ncs_key[k] = g;
    q->ncs[k] = 0;
    q->nncs++;
    return &q->ncs[k];
}

/* The group after g in the cyclic order of decreasing budgets. */
static int32_t next_group(const warp_sub *s, int32_t g) {
    int32_t below = 0, top = 0;
    for (int32_t i = 0; i < s->n; i++) {
        int32_t b = s->info[i].budget;
        if (b < g && b > below) below = b;
        if (b > top) top = b;
    }
    return below ? below : top;
}

/* SORT(g) of lines 30-35, first ready warp: the greedy warp when it is in
 * g (greedy-then-oldest), else the oldest ready warp of g. */
static int32_t first_in_sort(const qaws_state *q, const warp_sub *s, int32_t g, int64_t c) {
    if (q->greedy >= 0 && s->info[q->greedy].budget == g && s->ready[q->greedy] <= c)
        return q->greedy;
    return warp_first_ready_in(s, g, -1, c);
}

static int32_t qaws_pick(void *self, const warp_sub *s, int64_t c) {
    qaws_state *q = self;
    if (s->n == 0) return -1;
    int32_t top = 0, bottom = INT32_MAX;
    for (int32_t i = 0; i < s->n; i++) {
        if (s->info[i].budget > top) top = s->info[i].budget;
        if (s->info[i].budget < bottom) bottom = s->info[i].budget;
    }
    /* lines 8-9: one group, GTO */
    if (top == bottom) {
        q->g0 = top;
        return warp_gto_pick(s, q->greedy, c);
    }
    /* "g0 is the group that was prioritized in the previous cycle. When
     * there is no history, g0 is the group with the higher budget." */
    int32_t g0 = q->g0;
    if (g0 == 0 || warp_first_ready_in(s, g0, -1, INT64_MAX) < 0) g0 = top;
    int32_t head = q->greedy >= 0 && s->info[q->greedy].budget == g0
                 ? q->greedy : warp_first_ready_in(s, g0, -1, INT64_MAX);
    if (s->ready[head] > c && q->gbud == g0) {
        /* line 13: the head stalled; line 14: Wgreedy in g0 */
        int32_t *ncs = ncs_of(q, s, g0);
        if (*ncs >= g0) {
            *ncs = 0;                     /* line 19 */
            g0 = next_group(s, g0);       /* line 20: SORT(g1) + SORT(g0) */
        } else if (warp_first_ready_in(s, g0, -1, c) >= 0) {
            (*ncs)++;                     /* line 16 */
        }
    }
    q->g0 = g0;
    /* lines 12, 17, 20, 23: SORT(g0), then the other groups */
    int32_t g = g0;
    do {
        int32_t i = first_in_sort(q, s, g, c);
        if (i >= 0) return i;
        g = next_group(s, g);
    } while (g != g0);
    return -1;
}

const warp_policy warp_qaws = {
    .name = "qaws",
    .doc = "QoS-aware: warps grouped by their kernel's budget, greedy-then-oldest within a "
           "group; a group keeps priority for `budget` context switches (QAWS paper "
           "Algorithm 1)",
    .state_size = sizeof(qaws_state),
    .init = qaws_init,
    .fini = qaws_fini,
    .pick = qaws_pick,
    .on_issue = qaws_on_issue,
    .on_remove = qaws_on_remove,
};
