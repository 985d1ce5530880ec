/* cli_progress.h -- a long command's progress on stderr: a thread that, every
 * few seconds, prints how many units of the run are done, its rate and the
 * time left, until the run ends (schedlab sweep; docs/cli.md).
 *
 *     schedlab: sweep: 312 of 1,800 points (17 %) in 15 min 20 s,
 *     0.34 points/s: about 1 h 13 min left
 *
 * The run counts its units into `done` (sweep_ctl) and names its phase in
 * `phase`; the rate is taken from the phase named `timed` on (NULL: from
 * the start), so a first phase that counts nothing (a QoS sweep's kernels
 * alone) does not lower it. */
#ifndef SCHEDLAB_CLI_CLI_PROGRESS_H
#define SCHEDLAB_CLI_CLI_PROGRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct progress progress;

/* Starts the reporter: a line every `every` seconds (> 0) about `total`
 * units called `unit` ("points"), read from *done and *phase, prefixed
 * "schedlab: WHAT: ". NULL when out of memory or no thread can start
 * (the run goes on without one). */
progress *progress_start(const char *what, const char *unit, uint64_t total, double every,
                         atomic_llong *done, _Atomic(const char *) *phase, const char *timed);
/* Stops it (at once, whatever is left of its wait) and frees it. NULL: nothing. */
void progress_stop(progress *p);

/* d seconds as "1 h 13 min", "15 min 20 s" or "45 s" into buf (the line's
 * wording; exposed for the tests). */
void progress_duration(double d, char *buf, size_t len);

#endif
