/* check.c -- does one block of a kernel fit the device at all? The one check
 * behind both the scenario parser (which re-roots the message at its own
 * path) and sim_run, so a kernel is refused with the same words wherever it
 * comes from. See sim.h, sim_kernel_fits. */
#include "sim.h"

#include <inttypes.h>
#include <stdio.h>

/* Bytes in the largest binary unit that keeps them whole: "48KB", "96KB",
 * else "1500 bytes" (as the scenario format writes sizes). */
static const char *fmt_size(char *buf, size_t n, int64_t bytes) {
    static const char *const names[] = { "TB", "GB", "MB", "KB" };
    static const int shifts[] = { 40, 30, 20, 10 };
    for (size_t i = 0; i < 4; i++) {
        int64_t unit = INT64_C(1) << shifts[i];
        if (bytes > 0 && bytes % unit == 0) {
            snprintf(buf, n, "%" PRId64 "%s", bytes / unit, names[i]);
            return buf;
        }
    }
    snprintf(buf, n, "%" PRId64 " bytes", bytes);
    return buf;
}

#define FAIL(field, ...) do { \
        int n_ = snprintf(err, errlen, "%s%s" field ": ", path, *path ? "." : ""); \
        if (n_ >= 0 && (size_t)n_ < errlen) snprintf(err + n_, errlen - (size_t)n_, __VA_ARGS__); \
        return -1; \
    } while (0)

int sim_kernel_fits(const sim_device *d, int32_t threads, int64_t smem, int32_t regs,
                    const char *path, char *err, size_t errlen) {
    char a[32], b[32];
    if (!path) path = "";
    if (threads < 1)
        FAIL("threads", "%" PRId32 " is not a positive thread count", threads);
    /* TX2 paper, rule R1 and most-room §4.2: a block larger than any SM (in
     * threads, warps, registers or shared memory) can never be placed, so
     * the run would never end; refuse it up front. */
    if (d->max_threads_per_block > 0 && threads > d->max_threads_per_block)
        FAIL("threads", "%" PRId32 " is more than the device's max_threads_per_block (%" PRId32 ")",
             threads, d->max_threads_per_block);
    if (threads > d->threads_per_sm)
        FAIL("threads", "%" PRId32 " is more than the device's threads_per_sm (%" PRId32 ")",
             threads, d->threads_per_sm);
    if (d->warp_size > 0) {
        int64_t warps = ((int64_t)threads + d->warp_size - 1) / d->warp_size;
        if (d->warps_per_sm > 0 && warps > d->warps_per_sm)
            FAIL("threads", "a block of %" PRId32 " threads needs %" PRId64 " warps but an SM has %"
                 PRId32 " (warps_per_sm)", threads, warps, d->warps_per_sm);
    }
    /* TX2 paper, rule R3 */
    if (smem < 0)
        FAIL("smem", "%" PRId64 " bytes is negative", smem);
    if (smem > d->smem_per_sm)
        FAIL("smem", "a block needs %s but an SM has %s", fmt_size(a, sizeof a, smem),
             fmt_size(b, sizeof b, d->smem_per_sm));
    if (d->max_smem_per_block > 0 && smem > d->max_smem_per_block)
        FAIL("smem", "a block needs %s but the device allows %s per block (max_smem_per_block)",
             fmt_size(a, sizeof a, smem), fmt_size(b, sizeof b, d->max_smem_per_block));
    /* TX2 paper, rule R2 */
    if (regs < 0)
        FAIL("regs", "%" PRId32 " registers per thread is negative", regs);
    int64_t need = (int64_t)regs * threads;
    if (need > d->regs_per_sm)
        FAIL("regs", "a block needs %" PRId64 " registers (%" PRId32 " threads x %" PRId32
             ") but an SM has %" PRId64, need, threads, regs, d->regs_per_sm);
    if (d->max_regs_per_block > 0 && need > d->max_regs_per_block)
        FAIL("regs", "a block needs %" PRId64 " registers (%" PRId32 " threads x %" PRId32
             ") but the device allows %" PRId64 " per block (max_regs_per_block)", need, threads,
             regs, d->max_regs_per_block);
    return 0;
}
