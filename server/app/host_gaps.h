/* host_gaps.h -- work the host held back (issue 28, point 4): an op
 * (kernel or engine copy) that started long after its API call had handed
 * it to the GPU, with its stream idle and its engine free (for a kernel:
 * no other kernel running; for a copy: no copy on its engine class) from
 * the moment it was ready to its start. Nothing on the device made it
 * wait, so the host did (a blocking call, lazy module loading, a pageable
 * copy's staging): the RTX 4060 Ti trace's first HtoD copy of stream 13
 * (call 1412.333-1412.357 ms, copy from 1429.496 ms).
 *
 * "Long" is more than max(1 ms, 10 launch latencies). The fidelity report
 * names these as the cause "host" (fidelity_causes.h); the replay issues
 * them at their measured start, a measured host gap (replay.h). */
#ifndef SERVER_HOST_GAPS_H
#define SERVER_HOST_GAPS_H

#include <stddef.h>
#include <stdint.h>

#include "../../simcore/trace.h"

typedef struct host_gap {
    size_t id;           /* kernel index, or kernels.n + copy index */
    int64_t ready;       /* its issue, or its stream's previous op's end if later */
    int64_t start;       /* measured */
} host_gap;

/* The held ops of m, in no particular order, in *out (malloc'ed; NULL
 * when none) and *n. engines: the device's copy engines (1: one for both
 * directions); lat: the launch latency (ns). 0, or -1 out of memory. */
int host_gaps_find(const trace *m, int engines, int64_t lat, host_gap **out, size_t *n);

#endif
