/* replay_copies.h -- copies as the trace ran them (issue 28, "Copies as
 * measured").
 *
 * Copies from pageable host memory are staged by the driver through pinned
 * buffers (CUDA C++ Best Practices Guide, "Pinned Memory"; CUDA C++
 * Programming Guide, "Page-Locked Host Memory"): their records span the
 * staging, and copies of one direction on different streams overlap on
 * the hardware though one engine serves them. The GTX 950 trace
 * (trans_kernel_model, 3 streams): a 19.07 MB HtoD copy runs at 3.43 GB/s
 * alone and three at once at 1.92 GB/s each, 5.8 GB/s together, which no
 * single engine copying one at a time at one bandwidth gives (it would be
 * 3.43 GB/s together); the host-side staging of each stream's copy
 * proceeds in parallel while the DMA engine interleaves their chunks.
 *
 * The replay gives the device the most copies its trace had in flight at
 * once on one engine (device field copies_in_flight, simcore/ce.c), and
 * every copy its measured duration, which already holds the sharing; a
 * trace whose copies never overlapped leaves the field absent (one at a
 * time, as before). */
#ifndef SERVER_REPLAY_COPIES_H
#define SERVER_REPLAY_COPIES_H

#include <stdint.h>

#include "../../simcore/trace.h"

/* The most engine copies of t that were in flight at once on one engine of
 * a device with copy_engines engines (ce_engine_for maps the directions);
 * 1 when none overlapped (or t has no copies), -1 out of memory. A copy
 * that starts when another ends does not overlap it. */
int32_t replay_copies_in_flight(const trace *t, int32_t copy_engines);

#endif
