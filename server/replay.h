/* replay.h -- a stored trace back into a scenario (schedlab-scenario/1), so a
 * measured run can be re-simulated under other policies and compared with
 * itself.
 *
 * Kernels keep their stream, process, priority, issue time (the start time
 * where the issue is unknown), grid, block size, registers and shared
 * memory; their block_time is each block's measured duration by block index
 * where the trace has blocks, else the kernel's own duration. Copies keep
 * bytes and direction. The device is the trace's when it is complete, or the
 * preset named by `device_preset`.
 *
 * Memory: *out is a new jansson reference owned by the caller. */
#ifndef SERVER_REPLAY_H
#define SERVER_REPLAY_H

#include <jansson.h>
#include <stddef.h>

#include "../simcore/trace.h"

/* `what` names the run in messages ("run k3f9x2m1qa"). device_preset may be
 * NULL. Returns 0, or -1 with one line in err (e.g. the trace has no
 * complete device and no preset was named). */
int replay_scenario(const trace *t, const char *what, const char *device_preset, json_t **out,
                    char *err, size_t errlen);

#endif
