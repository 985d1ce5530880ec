/* device.c -- SM tie-break orders and the consistency check of a device.
 * See device.h. */
#include "device.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define SIM_DT_int32_t SIM_DT_I32
#define SIM_DT_int64_t SIM_DT_I64
#define SIM_DT_double SIM_DT_F64
#define FIELD_ROW(field, type, kind, key, required, doc) \
    { #field, key, SIM_DT_##type, kind, required, doc, offsetof(sim_device, field) },

const sim_device_field sim_device_fields[] = { SIM_DEVICE_FIELDS(FIELD_ROW) };
const size_t sim_device_nfields = sizeof sim_device_fields / sizeof sim_device_fields[0];

const sim_device_field *sim_device_field_by_key(const char *key) {
    for (size_t i = 0; key && i < sim_device_nfields; i++)
        if (strcmp(sim_device_fields[i].key, key) == 0) return &sim_device_fields[i];
    return NULL;
}

/* The fields are addressed by offset so that one loop serves every type;
 * memcpy keeps the accesses free of aliasing questions. */
int64_t sim_device_get_i64(const sim_device *d, const sim_device_field *f) {
    const char *p = (const char *)d + f->offset;
    int32_t i32;
    int64_t i64;
    double f64;
    switch (f->type) {
    case SIM_DT_I32: memcpy(&i32, p, sizeof i32); return i32;
    case SIM_DT_I64: memcpy(&i64, p, sizeof i64); return i64;
    case SIM_DT_F64: memcpy(&f64, p, sizeof f64);
        return isfinite(f64) && fabs(f64) < 9.2e18 ? (int64_t)f64 : 0;
    }
    return 0;
}

double sim_device_get_f64(const sim_device *d, const sim_device_field *f) {
    if (f->type != SIM_DT_F64) return (double)sim_device_get_i64(d, f);
    double v;
    memcpy(&v, (const char *)d + f->offset, sizeof v);
    return v;
}

void sim_device_set_i64(sim_device *d, const sim_device_field *f, int64_t v) {
    char *p = (char *)d + f->offset;
    int32_t i32 = (int32_t)v;
    double f64 = (double)v;
    switch (f->type) {
    case SIM_DT_I32: memcpy(p, &i32, sizeof i32); break;
    case SIM_DT_I64: memcpy(p, &v, sizeof v); break;
    case SIM_DT_F64: memcpy(p, &f64, sizeof f64); break;
    }
}

void sim_device_set_f64(sim_device *d, const sim_device_field *f, double v) {
    if (f->type != SIM_DT_F64) {
        sim_device_set_i64(d, f, (int64_t)v);
        return;
    }
    memcpy((char *)d + f->offset, &v, sizeof v);
}

int sim_device_field_unset(const sim_device *d, const sim_device_field *f) {
    return (f->kind == SIM_DF_CYCLES || f->kind == SIM_DF_RATE || f->kind == SIM_DF_OPTION) &&
           sim_device_get_f64(d, f) == 0;
}

void sim_device_fill_order(sim_device *dev) {
    if (dev->sm_order_kind == SIM_SM_ORDER_EXPLICIT) return;
    int32_t n = dev->sms;
    if (n < 0) n = 0;
    if (n > SIM_MAX_SMS) n = SIM_MAX_SMS;
    /* unused entries are zeroed so that two filled copies of a device
     * compare equal byte for byte */
    memset(dev->sm_order, 0, sizeof dev->sm_order);
    if (dev->sm_order_kind == SIM_SM_ORDER_EVENS_THEN_ODDS) {
        /* Turing RTX 2080 Ti: 0, 2, ..., 66, 1, 3, ..., 67 (most-room §4.3) */
        int32_t k = 0;
        for (int32_t i = 0; i < n; i += 2) dev->sm_order[k++] = (int16_t)i;
        for (int32_t i = 1; i < n; i += 2) dev->sm_order[k++] = (int16_t)i;
    } else {
        /* Pascal GTX 1080: 0, 1, 2, 3, 4 (most-room §4.3) */
        for (int32_t i = 0; i < n; i++) dev->sm_order[i] = (int16_t)i;
    }
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int sim_device_validate(const sim_device *d, char *err, size_t errlen) {
    if (d->sms < 1 || d->sms > SIM_MAX_SMS)
        FAIL("device.sms: %d is outside 1..%d", (int)d->sms, SIM_MAX_SMS);
    if (d->threads_per_sm < 1)
        FAIL("device.threads_per_sm: %d is not a positive thread count", (int)d->threads_per_sm);
    if (d->max_threads_per_block < 1 || d->max_threads_per_block > d->threads_per_sm)
        FAIL("device.max_threads_per_block: %d is outside 1..threads_per_sm (%d)",
             (int)d->max_threads_per_block, (int)d->threads_per_sm);
    /* the room index keeps one bucket per possible room (sms.h) */
    if (d->blocks_per_sm < 1 || d->blocks_per_sm > 65535)
        FAIL("device.blocks_per_sm: %d is outside 1..65535", (int)d->blocks_per_sm);
    if (d->warp_size < 1)
        FAIL("device.warp_size: %d is not a positive thread count", (int)d->warp_size);
    if (d->warps_per_sm < 1)
        FAIL("device.warps_per_sm: %d is not a positive warp count", (int)d->warps_per_sm);
    if (d->regs_per_sm < 1)
        FAIL("device.regs_per_sm: %lld is not a positive register count", (long long)d->regs_per_sm);
    if (d->max_regs_per_block < 1 || d->max_regs_per_block > d->regs_per_sm)
        FAIL("device.max_regs_per_block: %lld is outside 1..regs_per_sm (%lld)",
             (long long)d->max_regs_per_block, (long long)d->regs_per_sm);
    if (d->smem_per_sm < 0)
        FAIL("device.smem_per_sm: %lld bytes is negative", (long long)d->smem_per_sm);
    if (d->max_smem_per_block < 0 || d->max_smem_per_block > d->smem_per_sm)
        FAIL("device.max_smem_per_block: %lld bytes is outside 0..smem_per_sm (%lld)",
             (long long)d->max_smem_per_block, (long long)d->smem_per_sm);
    if (d->schedulers_per_sm < 1)
        FAIL("device.schedulers_per_sm: %d is not a positive count", (int)d->schedulers_per_sm);
    if (d->copy_engines < 1 || d->copy_engines > 2)
        FAIL("device.copy_engines: %d is not 1 (one engine for both directions) or 2 "
             "(one for h2d, one for d2h)", (int)d->copy_engines);
    if (!(d->copy_bandwidth > 0) || !isfinite(d->copy_bandwidth))
        FAIL("device.copy_bandwidth: %g bytes/s is not a positive bandwidth", d->copy_bandwidth);
    if (d->clock_hz < 0)
        FAIL("device.clock: %lld Hz is negative", (long long)d->clock_hz);
    if (!(d->mem_bandwidth >= 0) || !isfinite(d->mem_bandwidth) || d->mem_bandwidth > 65536 ||
        (d->mem_bandwidth > 0 && d->mem_bandwidth < 0.001))
        FAIL("device.mem_bandwidth: %g requests per cycle is outside 0.001..65536 (0: unknown)",
             d->mem_bandwidth);
    if (!(d->sm_mem_bandwidth >= 0) || !isfinite(d->sm_mem_bandwidth) || d->sm_mem_bandwidth > 65536 ||
        (d->sm_mem_bandwidth > 0 && d->sm_mem_bandwidth < 0.001))
        FAIL("device.sm_mem_bandwidth: %g requests per cycle is outside 0.001..65536 (0: no limit)",
             d->sm_mem_bandwidth);
    if (d->latency_alu < 0 || d->latency_sfu < 0 || d->latency_shared < 0 || d->latency_mem < 0)
        FAIL("device.latency_%s: a latency is a number of cycles, not negative",
             d->latency_alu < 0 ? "alu" : d->latency_sfu < 0 ? "sfu"
             : d->latency_shared < 0 ? "shared" : "mem");
    /* exec_warp.c keeps an SM's warp slots as the bits of one word */
    if (d->fetch_warps < 0 || d->fetch_warps > 64)
        FAIL("device.fetch_warps: %d is outside 0..64 (0: the front end is not modelled)",
             (int)d->fetch_warps);
    if (d->ibuffer < 0 || d->ibuffer > 64)
        FAIL("device.ibuffer: %d is outside 0..64", (int)d->ibuffer);
    if (d->fetch_warps > 0 && d->ibuffer < 1)
        FAIL("device.ibuffer: 0; with fetch_warps %d the front end decodes ibuffer "
             "instructions per fetch (GPGPU-Sim: 2)", (int)d->fetch_warps);
    /* the memory system and functional units (exec_warp.c, docs/memory.md) */
    if (!(d->fp32_rate >= 0) || !isfinite(d->fp32_rate) || d->fp32_rate > 64 ||
        (d->fp32_rate > 0 && d->fp32_rate < 0.001))
        FAIL("device.fp32_rate: %g instructions per cycle is outside 0.001..64 (0: not "
             "modelled)", d->fp32_rate);
    if (!(d->dram_sectors >= 0) || !isfinite(d->dram_sectors) || d->dram_sectors > 65536 ||
        (d->dram_sectors > 0 && d->dram_sectors < 0.001))
        FAIL("device.dram_sectors: %g sectors per cycle is outside 0.001..65536 (0: not "
             "modelled)", d->dram_sectors);
    if (!(d->sm_port_sectors >= 0) || !isfinite(d->sm_port_sectors) || d->sm_port_sectors > 65536 ||
        (d->sm_port_sectors > 0 && d->sm_port_sectors < 0.001))
        FAIL("device.sm_port_sectors: %g sectors per cycle is outside 0.001..65536",
             d->sm_port_sectors);
    if (d->sm_mem_queue < 0 || d->sm_mem_queue > 65536)
        FAIL("device.sm_mem_queue: %d is outside 0..65536", (int)d->sm_mem_queue);
    if (d->dram_sectors > 0 && (!(d->sm_port_sectors > 0) || d->sm_mem_queue < 32))
        FAIL("device.%s: with dram_sectors the memory system needs %s", d->sm_port_sectors > 0 ?
             "sm_mem_queue" : "sm_port_sectors", d->sm_port_sectors > 0 ?
             "an SM's outstanding sectors, at least 32 (a warp's widest access; GPGPU-Sim "
             "SM75: 256)" : "an SM port's sectors per cycle (GPGPU-Sim: 1)");
    if (d->l1_smem_kb < 0 || d->l1_smem_kb > 65536)
        FAIL("device.l1_smem_kb: %d is outside 0..65536", (int)d->l1_smem_kb);
    if (d->l1_assoc < 0 || d->l1_assoc > 4096)
        FAIL("device.l1_assoc: %d is outside 0..4096", (int)d->l1_assoc);
    if (d->latency_l1 < 0)
        FAIL("device.latency_l1: a latency is a number of cycles, not negative");
    if (d->l1_smem_kb > 0 && (!(d->dram_sectors > 0) || d->l1_assoc < 1 || d->latency_l1 < 1))
        FAIL("device.%s: with l1_smem_kb the L1 needs %s", !(d->dram_sectors > 0) ? "dram_sectors" :
             d->l1_assoc < 1 ? "l1_assoc" : "latency_l1", !(d->dram_sectors > 0) ?
             "the memory system (dram_sectors > 0)" : d->l1_assoc < 1 ? "its ways per set (>= 1)"
             : "its hit latency in cycles (GPGPU-Sim SM75: 20)");
    if (!(d->l1_sectors >= 0) || !isfinite(d->l1_sectors) || d->l1_sectors > 65536 ||
        (d->l1_sectors > 0 && d->l1_sectors < 0.001))
        FAIL("device.l1_sectors: %g sectors per cycle is outside 0.001..65536 (0: no limit)",
             d->l1_sectors);
    if (d->l1_sectors > 0 && d->l1_smem_kb <= 0)
        FAIL("device.l1_smem_kb: with l1_sectors the L1's rate needs an L1 (l1_smem_kb > 0)");
    if (d->ldst_queue < 0 || d->ldst_queue > 64)
        FAIL("device.ldst_queue: %d memory instructions is outside 0..64 (0: no limit)",
             (int)d->ldst_queue);
    if (d->ldst_queue > 0 && !(d->l1_sectors > 0))
        FAIL("device.ldst_queue: the queue waits for the L1's rate (l1_sectors > 0)");
    if (d->l2_kb < 0 || d->l2_kb > 1048576)
        FAIL("device.l2_kb: %d is outside 0..1048576", (int)d->l2_kb);
    if (d->l2_assoc < 0 || d->l2_assoc > 4096)
        FAIL("device.l2_assoc: %d is outside 0..4096", (int)d->l2_assoc);
    if (d->latency_l2 < 0)
        FAIL("device.latency_l2: a latency is a number of cycles, not negative");
    if (d->l2_kb > 0 && (!(d->dram_sectors > 0) || d->l2_assoc < 1 || d->latency_l2 < 1))
        FAIL("device.%s: with l2_kb the L2 needs %s", !(d->dram_sectors > 0) ? "dram_sectors" :
             d->l2_assoc < 1 ? "l2_assoc" : "latency_l2", !(d->dram_sectors > 0) ?
             "the memory system (dram_sectors > 0)" : d->l2_assoc < 1 ? "its ways per set (>= 1)"
             : "its hit latency in cycles (GPGPU-Sim: 160)");
    if (d->l2_kb > 0 && (int64_t)d->l2_kb * 1024 / 128 < d->l2_assoc)
        FAIL("device.l2_assoc: %d ways need at least %d KB of L2, not %d", (int)d->l2_assoc,
             (int)((d->l2_assoc * 128 + 1023) / 1024), (int)d->l2_kb);
    if (d->uvm_page_kb < 0 || d->uvm_page_kb > 2048)
        FAIL("device.uvm_page_kb: %d is outside 0..2048 (0: managed memory not modelled)",
             (int)d->uvm_page_kb);
    if (d->uvm_fault_latency < 0)
        FAIL("device.uvm_fault_latency: a latency is a number of cycles, not negative");
    if (d->sm_faults < 0 || d->sm_faults > 1023)
        FAIL("device.sm_faults: %d is outside 0..1023 (0: no limit)", (int)d->sm_faults);
    if (d->copies_in_flight < 0 || d->copies_in_flight > 64)
        FAIL("device.copies_in_flight: %d is outside 0..64 (0: one copy at a time)",
             (int)d->copies_in_flight);
    if (d->mem_admission < 0 || d->mem_admission > 1)
        FAIL("device.mem_admission: %d is neither 0 (the scheduler's pick) nor 1 (arrival order)",
             (int)d->mem_admission);
    if (d->mem_admission > 0 && !(d->dram_sectors > 0))
        FAIL("device.dram_sectors: with mem_admission the memory queue needs the memory system "
             "(dram_sectors > 0)");
    if (d->dram_share < 0 || d->dram_share > 1)
        FAIL("device.dram_share: %d is neither 0 (the SMs with memory warps) nor 1 (the SMs "
             "with sectors waiting)", (int)d->dram_share);
    if (d->dram_share > 0 && !(d->dram_sectors > 0))
        FAIL("device.dram_sectors: with dram_share DRAM's share needs the memory system "
             "(dram_sectors > 0)");
    if (d->uvm_page_kb > 0 && !(d->dram_sectors > 0))
        FAIL("device.dram_sectors: with uvm_page_kb managed memory needs the memory system "
             "(dram_sectors > 0)");
    if (d->nwave_order != 0) {
        /* H100-W1 (sms.h): the order lists every SM once */
        if (d->nwave_order != d->sms)
            FAIL("device.wave_order: lists %d SMs but the device has %d", (int)d->nwave_order,
                 (int)d->sms);
        unsigned char in_wave[SIM_MAX_SMS] = { 0 };
        for (int32_t i = 0; i < d->sms; i++) {
            int v = d->wave_order[i];
            if (v < 0 || v >= d->sms || in_wave[v]++)
                FAIL("device.wave_order[%d]: SM %d is outside 0..%d or listed twice", (int)i, v,
                     (int)d->sms - 1);
        }
    }
    switch (d->sm_order_kind) {
    case SIM_SM_ORDER_ASCENDING:
    case SIM_SM_ORDER_EVENS_THEN_ODDS:
    case SIM_SM_ORDER_EXPLICIT:
        break;
    default:
        FAIL("device.sm_order: unknown order kind %d", (int)d->sm_order_kind);
    }
    /* the ascending and evens-then-odds orders are derived from sms by
     * sim_device_fill_order; an explicit one must be a permutation, since
     * the block scheduler walks it */
    if (d->sm_order_kind != SIM_SM_ORDER_EXPLICIT) return 0;
    unsigned char seen[SIM_MAX_SMS] = { 0 };
    for (int32_t i = 0; i < d->sms; i++) {
        int v = d->sm_order[i];
        if (v < 0 || v >= d->sms)
            FAIL("device.sm_order[%d]: SM %d is outside 0..%d", (int)i, v, (int)d->sms - 1);
        if (seen[v])
            FAIL("device.sm_order[%d]: SM %d appears twice; the order must list every SM once",
                 (int)i, v);
        seen[v] = 1;
    }
    return 0;
}
