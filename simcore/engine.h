/* engine.h -- the simulator's discrete-event engine: events ordered by
 * (time, sequence number of scheduling), so events at the same time fire in
 * the order they were scheduled (DESIGN §8; docs/modules.md, "Within one
 * instant ... the events due in the order they were scheduled"). That order
 * is what makes a run deterministic.
 *
 * The engine knows nothing about what an event means: an event is a time,
 * a type and two integer payloads that the caller interprets.
 *
 * Speed: most pending events end within a short horizon of now (a block
 * time), so the engine is a calendar queue (Brown 1988) in its simplest
 * form: a wheel of SIM_WHEEL_SLOTS time slots of 2^shift ns each covers
 * [base, base + span); an event in that window joins its slot's list, kept
 * sorted by (time, sequence number), and a bitmap of non-empty slots finds
 * the earliest slot with one count-trailing-zeros per 64 slots. Events
 * outside the window (far ahead, or before base) go to a binary min-heap of
 * 16-byte keys (time; sequence number and payload slot packed in one word).
 * The earliest event is the smaller of the wheel's first and the heap's top,
 * compared on the same (time, sequence number) key, so where an event waits
 * never changes the order in which events fire; sim_engine_set_span only
 * tunes the slot width. base follows the time of the last event popped.
 * Limits: at most 2^24 events pending at once and 2^40 events scheduled per
 * engine; a push beyond them fails like an allocation failure.
 *
 * Cancellation: an event scheduled with sim_engine_schedule has an id;
 * sim_engine_cancel(id) removes it before it fires (a time slice that ends
 * early, a preempted block's completion). Cancelled events stay where they
 * wait and are dropped when they reach the front (lazy deletion): O(1) to
 * cancel, nothing to search. An id names its event only while it is pending:
 * each slot carries the key of the event that holds it, so cancelling
 * an event that already fired (or was cancelled) is a no-op that says so.
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

typedef uint64_t sim_event_id;   /* 0 = none */

#define SIM_EV_CANCELLED 0

typedef struct sim_engine_key {
    int64_t t;
    uint64_t seq_slot;       /* seq << 24 | payload slot */
} sim_engine_key;

#define SIM_WHEEL_SLOTS 4096

/* One event, by payload slot: everything a push or a pop touches in one
 * record (one or two cache lines, not four arrays). */
typedef struct sim_engine_ev {
    sim_engine_key key;
    int64_t b;
    int32_t type;            /* SIM_EV_CANCELLED, a caller's type, or -1: a free slot */
    int32_t a;
    uint32_t next;           /* next event in the same wheel slot */
    uint32_t pad_;
} sim_engine_ev;

typedef struct sim_engine {
    sim_engine_ev *ev;            /* [cap], by payload slot */
    uint32_t *free_slots;         /* stack of unused slots */
    size_t n, cap, nfree;
    size_t ncancelled;            /* cancelled and not yet dropped: while 0, the
                                     front needs no check */
    uint64_t next_seq;
    /* the wheel: events with base <= t < base + (SIM_WHEEL_SLOTS << shift) */
    uint32_t *whead;              /* [SIM_WHEEL_SLOTS]: first event of each time slot */
    uint32_t *wtail;              /* [SIM_WHEEL_SLOTS]: its last, when it holds any */
    uint64_t wbits[SIM_WHEEL_SLOTS / 64];   /* slots that hold events */
    int64_t base;                 /* a multiple of 2^shift */
    int32_t shift;
    size_t nwheel;
    /* the rest: a binary min-heap of keys */
    sim_engine_key *heap;         /* [cap] */
    size_t nheap;
    /* the earliest event, found once per pop rather than on every look */
    bool front_ok;
    int32_t front_w;              /* its wheel slot, or -1: the heap's top */
    sim_engine_key front;
} sim_engine;

void sim_engine_init(sim_engine *e);
void sim_engine_free(sim_engine *e);   /* leaves *e as after sim_engine_init */

/* Make room for n pending events so that pushes up to that count never
 * allocate. Returns 0, or -1 when out of memory (or n > 2^24). */
int sim_engine_reserve(sim_engine *e, size_t n);

/* Tune the wheel to cover at least `span` ns ahead (a hint: the order in
 * which events fire does not depend on it). Call it while no event is
 * pending; otherwise it does nothing. */
void sim_engine_set_span(sim_engine *e, int64_t span);

#define SIM_ENGINE_SLOT_BITS 24                    /* seq_slot: seq << 24 | payload slot */
#define SIM_ENGINE_NONE UINT32_MAX                  /* end of a wheel slot's list */
#define SIM_ENGINE_MAX_SEQ ((uint64_t)1 << (64 - SIM_ENGINE_SLOT_BITS))

/* Schedule an event. Returns 0, or -1 when out of memory or past the limits
 * above (nothing queued). sim_engine_push_slow is the general case;
 * sim_engine_push answers the common one inline (issue 9: every placed
 * block pushes its completion): room without growing, a time inside the
 * wheel's window, and a slot that is empty or whose last event is not
 * later. The new event's seq is larger than any pending one's, so its key
 * comes after the tail's exactly when its time is not earlier, and before
 * the cached front exactly when its time is earlier: the same list and
 * front as the general path, without its walk or its heap. */
int sim_engine_push_slow(sim_engine *e, int64_t t, int32_t type, int32_t a, int64_t b);
__attribute__((always_inline))   /* GCC and clang; the compiler's own choice was a call */
static inline int sim_engine_push(sim_engine *e, int64_t t, int32_t type, int32_t a, int64_t b) {
    if (e->n < e->cap && t >= e->base &&
        (uint64_t)(t - e->base) < ((uint64_t)SIM_WHEEL_SLOTS << e->shift) &&
        e->next_seq < SIM_ENGINE_MAX_SEQ) {
        size_t w = (size_t)(t >> e->shift) & (SIM_WHEEL_SLOTS - 1);
        uint32_t head = e->whead[w];
        if (head == SIM_ENGINE_NONE || e->ev[e->wtail[w]].key.t <= t) {
            uint32_t slot = e->free_slots[--e->nfree];
            sim_engine_key k = { .t = t,
                                 .seq_slot = (e->next_seq++ << SIM_ENGINE_SLOT_BITS) | slot };
            sim_engine_ev *E = &e->ev[slot];
            E->key = k;
            E->b = b;
            E->type = type;
            E->a = a;
            E->next = SIM_ENGINE_NONE;
            if (head == SIM_ENGINE_NONE) e->whead[w] = slot;
            else e->ev[e->wtail[w]].next = slot;
            e->wtail[w] = slot;
            e->wbits[w >> 6] |= 1ull << (w & 63);
            e->nwheel++;
            e->n++;
            if (e->front_ok && t < e->front.t) {
                e->front = k;
                e->front_w = (int32_t)w;
            }
            return 0;
        }
    }
    return sim_engine_push_slow(e, t, type, a, b);
}

/* For a caller that keeps some events elsewhere (blockq.h) and hands the
 * one that needs the engine's order back later: take the next sequence
 * number now, as a push would (false past the limits above), and schedule
 * an event with a sequence number so taken (each at most once; 0 or -1 as
 * sim_engine_push). It fires where a push at the time the number was taken
 * would have. */
static inline bool sim_engine_take_seq(sim_engine *e, uint64_t *seq) {
    if (e->next_seq >= SIM_ENGINE_MAX_SEQ) return false;
    *seq = e->next_seq++;
    return true;
}
int sim_engine_push_seq(sim_engine *e, int64_t t, uint64_t seq, int32_t type, int32_t a,
                        int64_t b);

/* The same, returning the event's id (0 on failure) for sim_engine_cancel. */
sim_event_id sim_engine_schedule(sim_engine *e, int64_t t, int32_t type, int32_t a, int64_t b);

/* Cancel a pending event. Returns true when it was pending (it will not
 * fire), false when it already fired or was cancelled. */
bool sim_engine_cancel(sim_engine *e, sim_event_id id);

/* Time of the earliest pending event, or INT64_MAX when none is (drops
 * cancelled events from the front on the way). The event loop asks twice
 * per event, so the common cases are answered inline: the front is known
 * and nothing is cancelled, or nothing is pending at all (a run on the
 * fast path, whose block completions wait in blockq.h: most instants). */
int64_t sim_engine_next_time_slow(sim_engine *e);
static inline int64_t sim_engine_next_time(sim_engine *e) {
    if (e->front_ok && !e->ncancelled) return e->front.t;
    return e->n ? sim_engine_next_time_slow(e) : INT64_MAX;
}

/* Remove the earliest pending event (smallest t, then smallest seq) into
 * *out; false when none is pending. */
bool sim_engine_pop(sim_engine *e, sim_event *out);

/* The same, but only when that event is due at t: false (nothing removed)
 * when none is pending or the earliest comes later. The event loop drains
 * an instant with it, one look at the front per event instead of two.
 * sim_engine_pop_at_slow is the general case; the inline front answers the
 * common one (issue 9: every block's completion is popped here): the
 * front known, nothing cancelled, the front on the wheel. It does what
 * pop_front (engine.c) does for a wheel event, step for step. */
bool sim_engine_pop_at_slow(sim_engine *e, int64_t t, sim_event *out);
static inline bool sim_engine_pop_at(sim_engine *e, int64_t t, sim_event *out) {
    if (!e->front_ok || e->ncancelled || e->front_w < 0 || e->front.t != t) {
        /* the known front comes later: the instant is over (the loop's
         * last look, once per instant) */
        if (e->front_ok && !e->ncancelled && e->front.t != t) return false;
        /* nothing pending: what the slow path would answer, without the call */
        return e->n ? sim_engine_pop_at_slow(e, t, out) : false;
    }
    sim_engine_key k = e->front;
    int32_t w = e->front_w;
    uint32_t slot = (uint32_t)(k.seq_slot & ((1u << SIM_ENGINE_SLOT_BITS) - 1));
    sim_engine_ev *E = &e->ev[slot];
    uint32_t nx = E->next;
    e->whead[w] = nx;
    e->nwheel--;
    e->front_ok = false;
    if (nx == SIM_ENGINE_NONE) {
        e->wbits[w >> 6] &= ~(1ull << (w & 63));
    } else {
        /* the slot stays the wheel's first: its next event is the front
         * unless the heap's top comes first */
        sim_engine_key nk = e->ev[nx].key;
        if (!e->nheap || nk.t < e->heap[0].t ||
            (nk.t == e->heap[0].t && nk.seq_slot < e->heap[0].seq_slot)) {
            e->front = nk;
            e->front_ok = true;
        }
    }
    *out = (sim_event){ .t = k.t, .seq = k.seq_slot >> SIM_ENGINE_SLOT_BITS,
                        .type = E->type, .a = E->a, .b = E->b };
    E->type = -1;   /* a free slot (engine.c: SLOT_FREE) */
    e->free_slots[e->nfree++] = slot;
    e->n--;
    int64_t nb = k.t & ~(((int64_t)1 << e->shift) - 1);
    if (nb > e->base) e->base = nb;
    return true;
}

/* Events pending, cancelled ones not yet dropped included. */
size_t sim_engine_size(const sim_engine *e);

#endif
