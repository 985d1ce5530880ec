/* carveout.c -- H100-C1, the measured carveout rule. See carveout.h. */
#include "carveout.h"

void carve_need(const sim_device *d, sim_need *k) {
    if (d->nsmem_carveouts <= 0) return;
    /* C1a: every block reserves its 1 KB, one without shared memory too
     * (probe c1-j: a kernel without any leaves an SM configured to 8 KB) */
    k->smem += d->smem_reserved_per_block;
    /* C1a: the blocks of this kernel an empty SM holds (R1-R3 on a full SM) */
    int64_t occ = d->blocks_per_sm;
    if (k->threads > 0 && d->threads_per_sm / k->threads < occ) occ = d->threads_per_sm / k->threads;
    if (k->warps > 0 && d->warps_per_sm / k->warps < occ) occ = d->warps_per_sm / k->warps;
    if (k->regs > 0 && d->regs_per_sm / k->regs < occ) occ = d->regs_per_sm / k->regs;
    if (d->smem_per_sm / k->smem < occ) occ = d->smem_per_sm / k->smem;
    if (occ < 1) occ = 1;
    int64_t want = occ * k->smem;
    int32_t kb = d->smem_carveouts_kb[d->nsmem_carveouts - 1];   /* the largest */
    for (int32_t i = 0; i < d->nsmem_carveouts; i++)
        if ((int64_t)d->smem_carveouts_kb[i] * CARVE_KB >= want) {
            kb = d->smem_carveouts_kb[i];
            break;
        }
    k->carve_kb = kb;
}

void carve_take(sim_sms *s, int32_t sm, const sim_need *k) {
    sim_sm_free *f = &s->free[sm];
    if (f->blocks == s->full.blocks) {
        /* C1b: an empty SM takes the block's configuration */
        f->carve_kb = k->carve_kb;
        f->smem = (int64_t)k->carve_kb * CARVE_KB;
    }
    sms_free_take(f, k);   /* C1c: the shared memory from what the configuration has left */
    if (s->kernel >= 0) sms_reroom(s, s->rank[sm]);
}

void carve_give(sim_sms *s, int32_t sm, const sim_need *k) {
    sim_sm_free *f = &s->free[sm];
    sms_free_give(f, k);
    if (f->blocks == s->full.blocks) {
        /* C1b: empty again, free to take any configuration */
        f->carve_kb = s->full.carve_kb;
        f->smem = s->full.smem;
    }
    if (s->kernel >= 0) sms_reroom(s, s->rank[sm]);
}
