/* device.h -- the GPU device model: resources per SM, copy engines, clock,
 * and the block scheduler's SM tie-break order.
 *
 * A sim_device is a plain value (no pointers) so it can be copied freely,
 * embedded in a trace and overridden field by field from a scenario.
 * Unknown fields are 0 (an importer that only knows the SM count fills just
 * `name` and `sms`). */
#ifndef SIMCORE_DEVICE_H
#define SIMCORE_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#define SIM_MAX_SMS 256          /* H100 has 132; leaves room for what comes */
#define SIM_DEVICE_NAME_MAX 64

typedef enum sim_sm_order_kind {
    SIM_SM_ORDER_ASCENDING = 0,  /* 0, 1, 2, ... (Pascal, most-room §4.3) */
    SIM_SM_ORDER_EVENS_THEN_ODDS,/* 0, 2, ..., 1, 3, ... (Turing, most-room §4.3) */
    SIM_SM_ORDER_EXPLICIT        /* sm_order[] as given */
} sim_sm_order_kind;

typedef struct sim_device {
    char name[SIM_DEVICE_NAME_MAX];
    int32_t sms;
    int32_t threads_per_sm;
    int32_t max_threads_per_block;
    int32_t blocks_per_sm;
    int32_t warps_per_sm;
    int64_t regs_per_sm;
    int64_t max_regs_per_block;
    int64_t smem_per_sm;          /* bytes */
    int64_t max_smem_per_block;   /* bytes */
    int32_t warp_size;
    int32_t schedulers_per_sm;    /* sub-cores (warp schedulers) per SM */
    int32_t copy_engines;         /* 1: one CE for both directions; 2: h2d + d2h */
    double copy_bandwidth;        /* bytes per second */
    int64_t clock_hz;             /* SM clock; 0 = unknown ("cycles" units need it) */
    sim_sm_order_kind sm_order_kind;
    int16_t sm_order[SIM_MAX_SMS];/* the tie-break order, always filled for sms entries */
} sim_device;

/* Fill dev->sm_order[] from sm_order_kind (no-op for SIM_SM_ORDER_EXPLICIT). */
void sim_device_fill_order(sim_device *dev);

/* Check that a device is internally consistent (every limit positive, the
 * explicit order a permutation of 0..sms-1, ...). Returns 0, or -1 with a
 * message naming the field. */
int sim_device_validate(const sim_device *dev, char *err, size_t errlen);

/* Presets (presets.c): each one cites where its numbers come from. */
size_t sim_preset_count(void);
const sim_device *sim_preset_at(size_t i);
const char *sim_preset_source(size_t i);   /* citation text for the dashboard */
const sim_device *sim_preset_find(const char *name);  /* NULL if unknown */

#endif
