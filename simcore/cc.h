/* cc.h -- the per-SM and per-block limits of every CUDA compute capability
 * from Kepler (3.0) to Blackwell (12.x), and the GPUs profiler traces name
 * without their limits (issue 28: replay any trace on its own device).
 *
 * A trace records what the profiler read from the driver: nvprof's
 * CUPTI_ACTIVITY_KIND_DEVICE and Nsight's TARGET_INFO_GPU carry the SM
 * count, the compute capability and most limits; nvprof's CSV only the
 * device's name. sim_cc_complete fills what a device lacks from its
 * compute capability, so any traced GPU replays on itself without a preset.
 *
 * Pure data and lookups: no I/O, no globals that change. */
#ifndef SIMCORE_CC_H
#define SIMCORE_CC_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"

/* One row of NVIDIA's table "Technical Specifications per Compute
 * Capability" (CUDA C++ Programming Guide), plus the warp schedulers per SM
 * its architecture sections give. Shared memory in bytes; smem_per_block is
 * the opt-in maximum (cudaFuncAttributeMaxDynamicSharedMemorySize), the
 * limit a kernel that asks for it really has. */
typedef struct sim_cc {
    int major, minor;
    const char *arch;            /* "Hopper" */
    int32_t blocks_per_sm;
    int32_t warps_per_sm;
    int32_t threads_per_sm;
    int32_t threads_per_block;
    int64_t regs_per_sm;
    int64_t regs_per_block;
    int64_t smem_per_sm;
    int64_t smem_per_block;
    int32_t schedulers_per_sm;
} sim_cc;

/* A GPU by name: its SM count and compute capability (NVIDIA product pages
 * and whitepapers), for traces that name the device and nothing more. */
typedef struct sim_gpu_model {
    const char *key;             /* lower-case letters and digits of the name: "gtx1080ti" */
    int32_t sms;
    int major, minor;
    const char *source;
} sim_gpu_model;

/* The row of compute capability major.minor; a minor the table lacks takes
 * the closest lower minor of the same major. NULL when the major is unknown. */
const sim_cc *sim_cc_find(int major, int minor);
size_t sim_cc_count(void);
const sim_cc *sim_cc_at(size_t i);

/* The model a device name names by whole words, as the replay matches
 * presets ("NVIDIA GeForce GTX 1080 Ti (0)" -> gtx1080ti; the longest key
 * that matches wins, so "gtx1080ti" beats "gtx1080"). NULL when none. */
const sim_gpu_model *sim_gpu_model_for(const char *device_name);

/* Does `target` (lower-case letters and digits) equal the lower-cased
 * concatenation of one or more consecutive words of `name`? */
int sim_name_has_words(const char *name, const char *target);

/* Fill every limit d lacks (0) from compute capability cc; raise
 * max_smem_per_block to cc's opt-in maximum where the trace recorded the
 * 48 KB default (nvprof's maxSharedMemoryPerBlock), never past the SM's; a missing warp size
 * is 32. Returns how many fields it set. */
int sim_cc_complete(sim_device *d, const sim_cc *cc);

#endif
