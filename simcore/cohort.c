/* cohort.c -- cohorts (issue 28, "cost by kernels, not blocks"): a wave of
 * identical blocks placed as one record per SM, and a stretch of identical
 * waves jumped over in one step, with the trace a block-by-block run gives
 * (sim.h, sim_config.cohorts; tests/unit/test_cohort_props.c runs random
 * scenarios both ways and compares every block).
 *
 * Why a wave is exact. Most-room (most-room paper §4.1; sms.h's room index)
 * places each block on the SM with the most room for the kernel, the first
 * in sm_order on ties (TX2 paper rules R1-R3 decide the room). When every
 * SM is idle, each has the same room c for kernel k (an empty SM's), so
 * placing blocks one by one visits the ranks 0, 1, ..., n-1 in turn, c
 * rounds: block `placed + i` goes to rank i mod n, and m = min(left, n c)
 * blocks give rank r m / n blocks, one more when r < m mod n, with indices
 * placed + r, placed + r + n, ... (stride n). With one block_time they all
 * end together. Nothing else can be placed by the same dispatch on SMs
 * left with room 0 for k; a partial wave is k's last, and the caller's
 * loop goes on from there as it would have. Round-robin (most-room §4.1's
 * "pure round-robin policy"; round_robin.c) gives the same wave turned:
 * its turn starts at the rank after the last one used, r0, and takes the
 * SMs with room in rank order, wrapping, so block `placed + i` goes to
 * rank (r0 + i) mod n, and the turn ends m ranks on. Each placement says
 * where its turn starts and moves its own state (policy.h's `wave`); a
 * full wave brings round-robin's turn back to r0, so the next wave after
 * it is the same wave again.
 *
 * Why a stretch is exact. After a full wave every SM is full of k's blocks,
 * ending at t + d. If no other kernel is eligible (TX2 rules X1/A2: only
 * the head of a non-empty EE queue, highest priority first, of any
 * process) and nothing is due before the next wave starts (no host op, no
 * engine event, the stop time), then at t + d the blocks end (blockq.h:
 * before dispatch), every SM is idle again and the same wave is placed;
 * so on while the next external time T is later than the wave's start.
 * J waves (starts t, t + d, ..., t + (J-1) d < T, and k keeps at least
 * one block for after them so that its last wave, G3's dequeue and its
 * fully_dispatched time, happen at their own instant) are placed at once:
 * the first J-1 complete inside the stretch (counted done; their SMs
 * given back; no event), the last is pending like any wave. Engine
 * sequence numbers are taken only for the pending blocks: the order of
 * every event still in the engine is the one the block-level run gives
 * (only relative order is ever compared, engine.h).
 *
 * Where it does not apply (placed block by block, as without cohorts):
 * placements without a `wave` (spart's partitions: a kernel's blocks do
 * not go round all the SMs), most-room for a kernel with a preferred wave
 * of ranks (H100-W1, sms.h), devices with carveouts (an SM's carveout
 * configuration changes with what it runs, carveout.h), kernels whose
 * block_time differs by index (blocks of a wave end apart), a driver other
 * than the shared one, warp-level execution (a block's end comes out of
 * its warps, exec_warp.c), dispatch latency (blocks of a wave start
 * apart), ISCA'17 §3.6 shares: every case that leaves the fused scheduler
 * (sim.c's fast_dispatch); and any instant at which some SM is busy. */
#include "cohort.h"

#include "ee.h"

/* Every SM runs nothing (its free resources are an empty SM's). */
static bool all_idle(const sim_sms *s) {
    /* an idle SM has an empty SM's room: a quick no first */
    if (s->top != s->empty_room) return false;
    for (int32_t i = 0; i < s->n; i++) {
        const sim_sm_free *f = &s->free[i];
        if (f->blocks != s->full.blocks || f->threads != s->full.threads ||
            f->warps != s->full.warps || f->regs != s->full.regs || f->smem != s->full.smem)
            return false;
    }
    return true;
}

/* k is the only kernel any process may place (TX2 rules X1, A2). */
static bool sole_eligible(const sim_state *st, int32_t k) {
    for (size_t p = 0; p < st->nprocs; p++) {
        int32_t e = ee_eligible(st, (int32_t)p);
        if (e >= 0 && e != k) return false;
    }
    return true;
}

/* Record `count` blocks of k on sm from index `index` (stride n), waves of
 * per_wave starting at t every d ns: extend the SM's latest record when
 * this continues it, else a new one. */
static void record(sim_state *st, int32_t k, int32_t sm, int64_t index, int32_t stride,
                   int64_t count, int64_t per_wave, int64_t t, int64_t d) {
    trace *tr = st->t;
    st->cohort_blocks += count;
    int64_t li = st->coh_last[sm];
    if (li >= 0) {
        trace_cohort *c = &tr->cohorts.v[li];
        if (c->kernel == k && c->stride == stride && c->per_wave == per_wave &&
            c->period == d && c->end - c->start == d && c->count % c->per_wave == 0 &&
            (int64_t)c->index + c->count * stride == index &&
            c->start + c->count / c->per_wave * d == t) {
            c->count += count;
            return;
        }
    }
    trace_cohort *c = trace_add_cohort(tr);
    if (!c) {
        st->failed = true;
        return;
    }
    c->kernel = k;
    c->sm = sm;
    c->index = (int32_t)index;
    c->stride = stride;
    c->count = count;
    c->per_wave = per_wave;
    c->start = t;
    c->end = t + d;
    c->period = d;
    st->coh_last[sm] = (int64_t)(tr->cohorts.n - 1);
}

bool ee_cohort_place(sim_state *st, int32_t k, int64_t t) {
    sim_kstate *K = &st->ks[k];
    sim_sms *s = &st->sms;
    if (!K->uniform || s->carve || K->placed >= K->blocks || !all_idle(s)) return false;
    int32_t n = s->n, c = s->empty_room;
    if (c <= 0) return false;
    int64_t d = K->block_time[0], left = K->blocks - K->placed, wave = (int64_t)n * c;
    /* J waves at once: full ones, k's last block left for after them, all
     * starting before the next thing that can happen */
    int64_t J = 1;
    if (left > 2 * wave && d > 0 && sole_eligible(st, k)) {
        J = (left - 1) / wave;
        int64_t T = st->host->next_time(st->host_state);
        int64_t te = sim_engine_next_time(&st->eng);
        if (te < T) T = te;
        if (st->bq.next < T) T = st->bq.next;
        if (st->cfg->stop > 0 && st->cfg->stop < T) T = st->cfg->stop;
        if (T <= t) J = 1;
        else if ((T - t - 1) / d + 1 < J) J = (T - t - 1) / d + 1;
    }
    int64_t m = J > 1 ? wave : (left < wave ? left : wave);   /* the pending wave */
    /* the rank the placement's turn starts from (policy.h: wave) */
    int32_t r0;
    if (!st->placement->wave(st->placement_state, s, &K->need, (J - 1) * wave + m, &r0))
        return false;
    int64_t q = m / n, extra = m % n, placed0 = K->placed;
    int64_t start = t + (J - 1) * d, end = start + d;
    for (int32_t i = 0; i < n; i++) {
        int64_t cr = q + (i < extra);
        if (cr == 0) break;
        record(st, k, s->order[(r0 + i) % n], placed0 + i, n, (J - 1) * c + cr,
               J > 1 ? c : cr, t, d);
    }
    /* the pending wave: its SMs taken, its ends queued in the block-level
     * order (round j, then the turn), each with the sequence number it takes */
    for (int64_t j = 0; j * n < m; j++) {
        for (int32_t i = 0; i < n && j * n + i < m; i++) {
            int32_t r = (r0 + i) % n, sm = s->order[r];
            sms_take_rank(s, r);
            uint64_t seq = st->eng.next_seq;
            bool ok;
            if (bq_fits(&st->bq, end - t)) {
                ok = sim_engine_take_seq(&st->eng, &seq);
                if (ok) bq_push(&st->bq, end, k, sm);
            } else {
                ok = sim_engine_push(&st->eng, end, EV_BLOCK_DONE, k, sm) == 0;
            }
            if (!ok) {
                st->failed = true;
                return true;
            }
            K->last_end = end;
            K->last_end_seq = seq;
        }
    }
    trace_kernel *tk = &st->t->kernels.v[k];
    if (placed0 == 0) tk->first_block = t;
    K->placed += (J - 1) * wave + m;
    K->done += (J - 1) * wave;   /* the waves that ended inside the stretch */
    K->bt_next = (size_t)(K->placed % (int64_t)K->nblock_time);
    if (K->placed == K->blocks) tk->fully_dispatched = start;
    return true;
}
