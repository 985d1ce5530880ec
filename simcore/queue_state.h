/* queue_state.h -- what every queue holds, replayed from queue events.
 *
 * A trace records queues only as enqueue and dequeue events (DESIGN §5:
 * "the state of every queue at any time t follows from them"). This is the
 * one replay of those events: the database answers /queues with it and the
 * tests check the papers' queue figures with it.
 *
 * Pure: no I/O, no SQLite, no globals. Queues and items are trace_str ids of
 * whatever string table the events name them in (a trace's own, or the
 * scratch trace the database loads a run's strings into), so a dequeue
 * compares integers and the caller resolves names with trace_str_get.
 *
 * Order: events take effect in time order, simultaneous ones in the order
 * they were recorded (the trace's array order, the database's seq).
 * sim_qstate_apply takes them one at a time, already in that order (the
 * database streams them sorted from SQLite); sim_qstate_replay does a whole
 * trace and sorts the order itself when the trace's events are not sorted.
 *
 * Semantics: an enqueue appends the item at the tail. A dequeue removes the
 * entry equal to the item nearest the head, wherever it is: the head for a
 * FIFO, a middle entry for a queue the hardware serves out of order (the EE
 * queue past a blocked head). A dequeue of an item the queue does not hold
 * (a trace that starts mid-way) changes nothing and is counted in `stray`.
 *
 * Memory: a sim_qstate owns its arrays; sim_qstate_free releases them.
 * Allocation failure is sticky (`oom`), as in trace.h. */
#ifndef SIMCORE_QUEUE_STATE_H
#define SIMCORE_QUEUE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

typedef struct sim_qstate_queue {
    trace_str name;
    trace_str *items;        /* items[head .. n) are in the queue, head first */
    size_t head, n, cap;
    int64_t *t, *len;        /* with `series`: length len[i] from t[i] until t[i + 1] */
    size_t np, capp;
} sim_qstate_queue;

typedef struct sim_qstate {
    sim_qstate_queue *q;     /* every queue an event named, in order of first event */
    size_t n, cap;
    bool series;             /* also record each queue's length over time */
    size_t stray;            /* dequeues of items their queue did not hold */
    bool oom;                /* sticky allocation failure */
    size_t last;             /* private: the queue the last event named */
} sim_qstate;

/* An empty state; `series` asks for the length series as well (one point
 * per distinct time at which an event touched the queue: the length after
 * the last event of that time). */
void sim_qstate_init(sim_qstate *s, bool series);
void sim_qstate_free(sim_qstate *s);   /* leaves *s as after sim_qstate_init */

/* Apply one event at time `t` (`event` is a trace_queue_op; anything but
 * TRACE_ENQUEUE dequeues). Events must come in the order above. Returns 0,
 * or -1 when out of memory (then and after, s->oom is set and calls do
 * nothing). */
int sim_qstate_apply(sim_qstate *s, int64_t t, trace_str queue, trace_str item, int32_t event);

/* Apply every queue event of `tr` with time <= at (INT64_MAX: all of them),
 * in time order, ties in array order, on top of what `s` already holds.
 * Returns 0 or -1 when out of memory. */
int sim_qstate_replay(sim_qstate *s, const trace *tr, int64_t at);

/* The queue named `name`; NULL when no event named it. */
const sim_qstate_queue *sim_qstate_find(const sim_qstate *s, trace_str name);

/* What queue q holds, head first: sim_qstate_len(q) ids from
 * sim_qstate_items(q), valid until the next apply. */
static inline size_t sim_qstate_len(const sim_qstate_queue *q) { return q->n - q->head; }
static inline const trace_str *sim_qstate_items(const sim_qstate_queue *q) {
    return q->items + q->head;
}

#endif
