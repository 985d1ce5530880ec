/* trace_check.h -- range checks on an imported trace before it is stored
 * (issue 16): whatever a file says, the numbers schedlab keeps stay where
 * the database, the API and the dashboard can do arithmetic on them.
 *
 *   SMs        0 <= sm < IMP_MAX_SMS (the device's sms too); the largest GPUs
 *              have some 150 SMs, so 1024 leaves room while a timeline of
 *              one lane per SM stays drawable
 *   times      strictly within +-IMP_MAX_TIME (2^62 ns, 146 years), so any
 *              difference of two times, and any span, fits an int64_t; a
 *              block's end not before its start
 *   counts     blocks, threads, bytes, shared memory, registers >= 0
 *   indices    a block's kernel names a kernel of the trace; a kernel's
 *              or copy's device a GPU of it (0..devices.n - 1, or 0 with
 *              no devices: DESIGN §5), of which there are at most
 *              IMP_MAX_GPUS (an importer refuses a GPU ordinal past it)
 *
 * Returns 0, or -1 with "FILE: blocks[12].sm: 2147483647 is out of range
 * (0..1023 ...)" in err. */
#ifndef IMPORTERS_TRACE_CHECK_H
#define IMPORTERS_TRACE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "../simcore/trace.h"

#define IMP_MAX_SMS 1024
#define IMP_MAX_TIME (INT64_C(1) << 62)
#define IMP_MAX_GPUS 64

int imp_check_trace(const trace *t, const char *file, char *err, size_t errlen);
/* The same for a streamed batch (issue 9), whose GPUs the importer lists
 * only at the end (it has read them all then): a record's device is only
 * checked against IMP_MAX_GPUS; the importer gives the trace a GPU for each
 * index it wrote. */
int imp_check_batch(const trace *t, const char *file, char *err, size_t errlen);
/* The block part of imp_check_trace for a streamed batch (issue 9): b[0]
 * is block number `first` of a run of `nkernels` kernels, and messages name
 * blocks by that number, as the whole trace's check would. */
int imp_check_blocks(const trace_block *b, size_t n, size_t first, size_t nkernels,
                     const char *file, char *err, size_t errlen);

#endif
