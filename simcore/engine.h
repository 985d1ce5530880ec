/* engine.h -- the simulator's discrete-event engine: a binary min-heap of
 * events ordered by (time, sequence number of scheduling), so events at the
 * same time fire in the order they were scheduled (DESIGN §8). That order is
 * what makes a run deterministic.
 *
 * The engine knows nothing about what an event means: an event is a time,
 * a type and two integer payloads that the caller interprets.
 *
 * Speed: the heap holds 16-byte keys (time; sequence number and payload
 * slot packed in one word), the payloads sit in a side array, so a pop moves
 * half the bytes it would with whole events. Limits that follow: at most
 * 2^24 events pending at once and 2^40 events scheduled per engine; a push
 * beyond them fails like an allocation failure.
 *
 * Cancellation: an event scheduled with sim_engine_schedule has an id;
 * sim_engine_cancel(id) removes it before it fires (a time slice that ends
 * early, a preempted block's completion). Cancelled events stay in the heap
 * and are dropped when they reach its top (lazy deletion): O(1) to cancel,
 * nothing to search. An id names its event only while it is pending: each
 * payload slot carries the id of the event that holds it, so cancelling an
 * event that already fired (or was cancelled) is a no-op that says so.
 * Type 0 is the engine's mark for "cancelled"; callers' types start at 1.
 *
 * Memory: the engine owns its arrays; sim_engine_free releases them.
 * No globals: every run has its own engine. */
#ifndef SIMCORE_ENGINE_H
#define SIMCORE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sim_event {
    int64_t t;               /* ns */
    uint64_t seq;            /* order of scheduling; breaks ties on t */
    int32_t type;            /* caller-defined */
    int32_t a;               /* caller-defined payload */
    int64_t b;               /* caller-defined payload */
} sim_event;

typedef struct sim_engine_key {
    int64_t t;
    uint64_t seq_slot;       /* seq << 24 | payload slot */
} sim_engine_key;

typedef struct sim_engine_payload {
    int32_t type;
    int32_t a;
    int64_t b;
} sim_engine_payload;

typedef uint64_t sim_event_id;   /* 0 = none */

#define SIM_EV_CANCELLED 0

typedef struct sim_engine {
    sim_engine_key *heap;
    sim_engine_payload *payload;  /* [cap], by slot */
    sim_event_id *slot_id;        /* [cap]: id of the pending event in the slot; 0 = free */
    uint32_t *free_slots;         /* stack of unused slots */
    size_t n, cap, nfree;
    uint64_t next_seq;
} sim_engine;

void sim_engine_init(sim_engine *e);
void sim_engine_free(sim_engine *e);   /* leaves *e as after sim_engine_init */

/* Make room for n pending events so that pushes up to that count never
 * allocate. Returns 0, or -1 when out of memory (or n > 2^24). */
int sim_engine_reserve(sim_engine *e, size_t n);

/* Schedule an event. Returns 0, or -1 when out of memory or past the limits
 * above (nothing queued). */
int sim_engine_push(sim_engine *e, int64_t t, int32_t type, int32_t a, int64_t b);

/* The same, returning the event's id (0 on failure) for sim_engine_cancel. */
sim_event_id sim_engine_schedule(sim_engine *e, int64_t t, int32_t type, int32_t a, int64_t b);

/* Cancel a pending event. Returns true when it was pending (it will not
 * fire), false when it already fired or was cancelled. */
bool sim_engine_cancel(sim_engine *e, sim_event_id id);

/* Time of the earliest pending event, or INT64_MAX when none is (drops
 * cancelled events from the top of the heap on the way). */
int64_t sim_engine_next_time(sim_engine *e);

/* Remove the earliest pending event (smallest t, then smallest seq) into
 * *out; false when none is pending. */
bool sim_engine_pop(sim_engine *e, sim_event *out);

/* Events in the heap, cancelled ones not yet dropped included. */
size_t sim_engine_size(const sim_engine *e);

#endif
