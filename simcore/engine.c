/* engine.c -- binary heap of events keyed by (t, seq). See engine.h. */
#include "engine.h"

#include <stdlib.h>

#define SLOT_BITS 24
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
#define MAX_PENDING ((size_t)1 << SLOT_BITS)
#define MAX_SEQ ((uint64_t)1 << (64 - SLOT_BITS))

/* seq sits above the slot bits and is unique, so comparing the packed word
 * compares seq */
static inline bool key_before(const sim_engine_key *x, const sim_engine_key *y) {
    return x->t < y->t || (x->t == y->t && x->seq_slot < y->seq_slot);
}

/* The same without branches: which child is smaller is a coin toss the
 * branch predictor loses half the time. */
static inline size_t key_before_bit(const sim_engine_key *x, const sim_engine_key *y) {
    return (size_t)((x->t < y->t) | ((x->t == y->t) & (x->seq_slot < y->seq_slot)));
}

void sim_engine_init(sim_engine *e) {
    e->heap = NULL;
    e->payload = NULL;
    e->slot_id = NULL;
    e->free_slots = NULL;
    e->n = e->cap = e->nfree = 0;
    e->next_seq = 0;
}

void sim_engine_free(sim_engine *e) {
    free(e->heap);
    free(e->payload);
    free(e->slot_id);
    free(e->free_slots);
    sim_engine_init(e);
}

int sim_engine_reserve(sim_engine *e, size_t n) {
    if (n <= e->cap) return 0;
    if (n > MAX_PENDING) return -1;
    sim_engine_key *h = realloc(e->heap, n * sizeof *h);
    if (!h) return -1;
    e->heap = h;
    sim_engine_payload *p = realloc(e->payload, n * sizeof *p);
    if (!p) return -1;
    e->payload = p;
    sim_event_id *ids = realloc(e->slot_id, n * sizeof *ids);
    if (!ids) return -1;
    e->slot_id = ids;
    for (size_t s = e->cap; s < n; s++) e->slot_id[s] = 0;
    uint32_t *f = realloc(e->free_slots, n * sizeof *f);
    if (!f) return -1;
    e->free_slots = f;
    /* new slots, highest first so that low slots are handed out first */
    for (size_t s = n; s > e->cap; s--) e->free_slots[e->nfree++] = (uint32_t)(s - 1);
    e->cap = n;
    return 0;
}

sim_event_id sim_engine_schedule(sim_engine *e, int64_t t, int32_t type, int32_t a, int64_t b) {
    if (e->n == e->cap) {
        size_t want = e->cap ? e->cap * 2 : 64;
        if (want > MAX_PENDING) want = MAX_PENDING;
        if (want <= e->cap || sim_engine_reserve(e, want) != 0) return 0;
    }
    if (e->next_seq >= MAX_SEQ) return 0;
    uint32_t slot = e->free_slots[--e->nfree];
    e->payload[slot] = (sim_engine_payload){ .type = type, .a = a, .b = b };
    sim_engine_key k = { .t = t, .seq_slot = (e->next_seq++ << SLOT_BITS) | slot };
    /* the packed key is unique; +1 keeps 0 free to mean "none" */
    sim_event_id id = k.seq_slot + 1;
    e->slot_id[slot] = id;
    /* sift up with a hole instead of swaps: one store per level */
    size_t i = e->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!key_before(&k, &e->heap[parent])) break;
        e->heap[i] = e->heap[parent];
        i = parent;
    }
    e->heap[i] = k;
    return id;
}

int sim_engine_push(sim_engine *e, int64_t t, int32_t type, int32_t a, int64_t b) {
    return sim_engine_schedule(e, t, type, a, b) ? 0 : -1;
}

bool sim_engine_cancel(sim_engine *e, sim_event_id id) {
    if (id == 0) return false;
    uint32_t slot = (uint32_t)((id - 1) & SLOT_MASK);
    if (slot >= e->cap || e->slot_id[slot] != id ||
        e->payload[slot].type == SIM_EV_CANCELLED) return false;
    e->payload[slot].type = SIM_EV_CANCELLED;
    return true;
}

/* Remove the top of the heap into *out (cancelled or not). */
static void pop_top(sim_engine *e, sim_event *out) {
    sim_engine_key top = e->heap[0];
    uint32_t slot = (uint32_t)(top.seq_slot & SLOT_MASK);
    const sim_engine_payload *p = &e->payload[slot];
    *out = (sim_event){ .t = top.t, .seq = top.seq_slot >> SLOT_BITS,
                        .type = p->type, .a = p->a, .b = p->b };
    e->slot_id[slot] = 0;
    e->free_slots[e->nfree++] = slot;
    size_t n = --e->n;
    if (!n) return;
    sim_engine_key last = e->heap[n];
    /* Bottom-up deletion (Floyd): walk the hole down to a leaf along the
     * smaller children, one comparison per level, then sift `last` up from
     * there; it came from the bottom, so it rarely climbs far. This halves
     * the comparisons of the textbook sift-down in the hot loop. */
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n) c += key_before_bit(&e->heap[c + 1], &e->heap[c]);
        e->heap[i] = e->heap[c];
        i = c;
    }
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!key_before(&last, &e->heap[parent])) break;
        e->heap[i] = e->heap[parent];
        i = parent;
    }
    e->heap[i] = last;
}

/* Drop cancelled events from the top, so the top is a pending event. */
static void drop_cancelled(sim_engine *e) {
    sim_event dead;
    while (e->n && e->payload[e->heap[0].seq_slot & SLOT_MASK].type == SIM_EV_CANCELLED)
        pop_top(e, &dead);
}

int64_t sim_engine_next_time(sim_engine *e) {
    drop_cancelled(e);
    return e->n ? e->heap[0].t : INT64_MAX;
}

bool sim_engine_pop(sim_engine *e, sim_event *out) {
    drop_cancelled(e);
    if (!e->n) return false;
    pop_top(e, out);
    return true;
}

size_t sim_engine_size(const sim_engine *e) {
    return e->n;
}
