/* qnames.h -- the names of the queues in a trace, built in one place.
 *
 *   stream queue   "stream:<process>/<stream>"
 *   EE queue       "ee:<process>:<level>", level "high"/"low" when every
 *                  priority of the run is -1, 0 or none (the TX2's two
 *                  levels), else the integer priority
 *   CE queue       "ce" with one copy engine, "ce:0" / "ce:1" with two
 *
 * Each returns the interned id, or 0 with t->oom set. */
#ifndef SIMCORE_QNAMES_H
#define SIMCORE_QNAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

trace_str qname_stream(trace *t, const char *process, const char *stream);
trace_str qname_ee(trace *t, const char *process, int32_t priority, bool tx2_levels);
trace_str qname_ce(trace *t, int32_t engine, int32_t nengines);

#endif
