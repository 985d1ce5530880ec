/* replay_calls.h -- the host's calls of part of a trace.
 *
 * A replay of part of a trace -- a held-out half (replay_heldout.h), one
 * GPU of several (replay_devices.h) -- makes the host calls (trace.h,
 * host_calls; docs/trace-format.md) of the ops it replays, as the replay of
 * the whole trace does (replay.h): what a sync or a blocking copy held is
 * issued when it returned, at the same point of that instant, not at its
 * recorded issue time as a host event, where an arrival at the same instant
 * can fall the other way (tx2-fig3-task-sync's C5o then ran 0.2 s early).
 *
 * The part o holds some of t's kernels and copies; kmap and cmap say, per
 * kernel and per copy of t, where each went: its index in o,
 * REPLAY_CALLS_OUT (left out of o, on o's GPU: a sync of o may have waited
 * for it) or REPLAY_CALLS_ELSEWHERE (on another GPU: no sync of o waited for
 * it). o gets, in t's order:
 *  - the call of each kernel and copy it holds, naming its index in o;
 *  - each sync that `here` says is o's (NULL: every sync), unless it waited
 *    for a record left out of o (REPLAY_CALLS_OUT): one in its scope called
 *    by its call and unfinished then, that ended by its return. The scope is
 *    the sync's stream, or the whole process for a device sync, a sync of
 *    the NULL stream or a process whose NULL stream has work (TX2 paper
 *    §2.3, rules N1/N2: a stream's op waits for the NULL stream's earlier
 *    ones, which wait for every stream's). In o that wait would be missing
 *    and the sync return too early, so it is left out of o too;
 *  - after a blocking call left out of o (such a sync, a sync of another
 *    GPU, a blocking copy o does not hold), the later calls of its task are
 *    made no earlier than it returned (the sync's end, the copy's end):
 *    the task could not make them before, and o has nothing that holds it.
 *    A task is the process's CPU task the call names, or the stream's own
 *    where it names none (simcore: a task is a thread of one process, TX2
 *    paper §2.2). A blocking call that never returned (its end unknown: the
 *    run stopped first) left its task's later calls unmade; o does not make
 *    them either.
 * o's calls are then in order of `at` again (t's order on ties), as
 * trace.h keeps them. Times are t's: a caller that moves its ops in time
 * moves these with them. Strings are interned in o. A t without host calls
 * gives o none. 0, or -1 out of memory. */
#ifndef SERVER_REPLAY_CALLS_H
#define SERVER_REPLAY_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../simcore/trace.h"

#define REPLAY_CALLS_OUT (-1)
#define REPLAY_CALLS_ELSEWHERE (-2)

int replay_calls_subset(const trace *t, const int32_t *kmap, const int32_t *cmap,
                        const bool *here, trace *o);

#endif
