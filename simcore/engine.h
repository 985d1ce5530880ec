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

typedef struct sim_engine {
    sim_engine_key *heap;
    sim_engine_payload *payload;  /* [cap], by slot */
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

/* Time of the earliest event, or INT64_MAX when none is pending. */
int64_t sim_engine_next_time(const sim_engine *e);

/* Remove the earliest event (smallest t, then smallest seq) into *out;
 * false when empty. */
bool sim_engine_pop(sim_engine *e, sim_event *out);

size_t sim_engine_size(const sim_engine *e);

#endif
