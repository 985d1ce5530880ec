/* engine.c -- a wheel of time slots for the near future, a binary heap for
 * the rest, both ordered by (t, seq). See engine.h. */
#include "engine.h"

#include <stdlib.h>

#define SLOT_BITS SIM_ENGINE_SLOT_BITS
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
#define MAX_PENDING ((size_t)1 << SLOT_BITS)
#define MAX_SEQ SIM_ENGINE_MAX_SEQ
#define NONE SIM_ENGINE_NONE
#define SLOT_FREE (-1)       /* sim_engine_ev.type of a slot no event holds (engine.h's
                                inline pop writes the same -1) */
#define WHEEL_MASK (SIM_WHEEL_SLOTS - 1)
#define WHEEL_WORDS (SIM_WHEEL_SLOTS / 64)
#define DEFAULT_SHIFT 4      /* 16 ns slots, 65.5 us ahead */
#define MAX_SHIFT 40         /* keeps SIM_WHEEL_SLOTS << shift far from overflow */

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
    e->ev = NULL;
    e->free_slots = NULL;
    e->n = e->cap = e->nfree = 0;
    e->ncancelled = 0;
    e->next_seq = 0;
    e->whead = NULL;
    e->wtail = NULL;
    for (int w = 0; w < WHEEL_WORDS; w++) e->wbits[w] = 0;
    e->base = 0;
    e->shift = DEFAULT_SHIFT;
    e->nwheel = 0;
    e->heap = NULL;
    e->nheap = 0;
    e->front_ok = false;
    e->front_w = -1;
}

void sim_engine_free(sim_engine *e) {
    free(e->ev);
    free(e->free_slots);
    free(e->whead);
    free(e->wtail);
    free(e->heap);
    sim_engine_init(e);
}

int sim_engine_reserve(sim_engine *e, size_t n) {
    if (n <= e->cap) return 0;
    if (n > MAX_PENDING) return -1;
    if (!e->whead) {
        e->whead = malloc(SIM_WHEEL_SLOTS * sizeof *e->whead);
        e->wtail = malloc(SIM_WHEEL_SLOTS * sizeof *e->wtail);
        if (!e->whead || !e->wtail) {
            free(e->whead);
            free(e->wtail);
            e->whead = e->wtail = NULL;
            return -1;
        }
        for (size_t s = 0; s < SIM_WHEEL_SLOTS; s++) e->whead[s] = NONE;
    }
    sim_engine_ev *ev = realloc(e->ev, n * sizeof *ev);
    if (!ev) return -1;
    e->ev = ev;
    for (size_t s = e->cap; s < n; s++) e->ev[s].type = SLOT_FREE;
    sim_engine_key *h = realloc(e->heap, n * sizeof *h);
    if (!h) return -1;
    e->heap = h;
    uint32_t *f = realloc(e->free_slots, n * sizeof *f);
    if (!f) return -1;
    e->free_slots = f;
    /* new slots, highest first so that low slots are handed out first */
    for (size_t s = n; s > e->cap; s--) e->free_slots[e->nfree++] = (uint32_t)(s - 1);
    e->cap = n;
    return 0;
}

void sim_engine_set_span(sim_engine *e, int64_t span) {
    if (e->nwheel) return;
    int32_t shift = 0;
    while (shift < MAX_SHIFT && ((int64_t)SIM_WHEEL_SLOTS << shift) < span) shift++;
    e->shift = shift;
    e->base &= ~(((int64_t)1 << shift) - 1);
}

/* Does time t fall in the wheel's window? */
static inline bool in_window(const sim_engine *e, int64_t t) {
    return t >= e->base && (uint64_t)(t - e->base) < ((uint64_t)SIM_WHEEL_SLOTS << e->shift);
}

static void heap_push(sim_engine *e, sim_engine_key k) {
    /* sift up with a hole instead of swaps: one store per level */
    size_t i = e->nheap++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!key_before(&k, &e->heap[parent])) break;
        e->heap[i] = e->heap[parent];
        i = parent;
    }
    e->heap[i] = k;
}

static void heap_pop(sim_engine *e) {
    size_t n = --e->nheap;
    if (!n) return;
    sim_engine_key last = e->heap[n];
    /* Bottom-up deletion (Floyd): walk the hole down to a leaf along the
     * smaller children, one comparison per level, then sift `last` up from
     * there; it came from the bottom, so it rarely climbs far. */
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

/* Insert into its time slot's list, sorted by key. A push nearly always
 * goes last (times grow, and seq always does: the blocks of a kernel placed
 * in one instant end together), so the tail is tried first; otherwise the
 * list is walked, but only WALK_MAX events far: a slot crowded with times
 * that arrive out of order (one very long block time among many short ones
 * widens the slots) would make pushes quadratic, so such an event goes to
 * the heap instead, which orders it just as well. Returns false then. */
#define WALK_MAX 16

static bool wheel_push(sim_engine *e, uint32_t slot, sim_engine_key k) {
    size_t w = (size_t)(k.t >> e->shift) & WHEEL_MASK;
    if (e->whead[w] == NONE) {
        e->whead[w] = e->wtail[w] = slot;
        e->ev[slot].next = NONE;
    } else if (key_before(&e->ev[e->wtail[w]].key, &k)) {
        e->ev[e->wtail[w]].next = slot;
        e->wtail[w] = slot;
        e->ev[slot].next = NONE;
    } else {
        uint32_t *link = &e->whead[w];
        for (int steps = 0; key_before(&e->ev[*link].key, &k); steps++) {
            if (steps == WALK_MAX) return false;
            link = &e->ev[*link].next;
        }
        e->ev[slot].next = *link;
        *link = slot;
    }
    e->wbits[w >> 6] |= 1ull << (w & 63);
    e->nwheel++;
    return true;
}

/* The first non-empty time slot from base on (the wheel is not empty):
 * slots wrap around, and every event on the wheel lies in
 * [base, base + span), so circular order from base's slot is time order. */
static size_t wheel_first(const sim_engine *e) {
    size_t s0 = (size_t)(e->base >> e->shift) & WHEEL_MASK;
    size_t w = s0 >> 6;
    uint64_t x = e->wbits[w] & (~0ull << (s0 & 63));
    for (size_t i = 0; i <= WHEEL_WORDS; i++) {
        if (x) return (w << 6) + (size_t)__builtin_ctzll(x);
        w = (w + 1) & (WHEEL_WORDS - 1);
        x = e->wbits[w];
    }
    return 0;   /* not reached: the caller checked nwheel */
}

/* seq: the event's sequence number, or MAX_SEQ for the next one */
static inline sim_event_id schedule(sim_engine *e, int64_t t, uint64_t seq, int32_t type,
                                    int32_t a, int64_t b) {
    if (e->n == e->cap) {
        size_t want = e->cap ? e->cap * 2 : 64;
        if (want > MAX_PENDING) want = MAX_PENDING;
        if (want <= e->cap || sim_engine_reserve(e, want) != 0) return 0;
    }
    if (seq == MAX_SEQ) {
        if (e->next_seq >= MAX_SEQ) return 0;
        seq = e->next_seq++;
    }
    uint32_t slot = e->free_slots[--e->nfree];
    sim_engine_key k = { .t = t, .seq_slot = (seq << SLOT_BITS) | slot };
    sim_engine_ev *E = &e->ev[slot];
    E->key = k;
    E->b = b;
    E->type = type;
    E->a = a;
    /* the packed key is unique; +1 keeps 0 free to mean "none" */
    sim_event_id id = k.seq_slot + 1;
    e->n++;
    int32_t w = -1;
    if (in_window(e, t) && wheel_push(e, slot, k)) w = (int32_t)((t >> e->shift) & WHEEL_MASK);
    else heap_push(e, k);
    /* the cached front stays right unless the new event comes first */
    if (e->front_ok && key_before(&k, &e->front)) {
        e->front = k;
        e->front_w = w;
    }
    return id;
}

sim_event_id sim_engine_schedule(sim_engine *e, int64_t t, int32_t type, int32_t a, int64_t b) {
    return schedule(e, t, MAX_SEQ, type, a, b);
}

/* the same body inlined: the cases engine.h's sim_engine_push leaves */
int sim_engine_push_slow(sim_engine *e, int64_t t, int32_t type, int32_t a, int64_t b) {
    return schedule(e, t, MAX_SEQ, type, a, b) ? 0 : -1;
}

/* an older sequence number than the newest pending event's: the wheel's
 * sorted insert (or the heap) puts it in its place, and the front moves
 * when it comes first (schedule) */
int sim_engine_push_seq(sim_engine *e, int64_t t, uint64_t seq, int32_t type, int32_t a,
                        int64_t b) {
    if (seq >= MAX_SEQ || seq >= e->next_seq) return -1;
    return schedule(e, t, seq, type, a, b) ? 0 : -1;
}

bool sim_engine_cancel(sim_engine *e, sim_event_id id) {
    if (id == 0) return false;
    uint32_t slot = (uint32_t)((id - 1) & SLOT_MASK);
    /* the slot names this event while it holds it, pending and not cancelled */
    if (slot >= e->cap || e->ev[slot].key.seq_slot + 1 != id ||
        e->ev[slot].type == SIM_EV_CANCELLED || e->ev[slot].type == SLOT_FREE) return false;
    e->ev[slot].type = SIM_EV_CANCELLED;
    e->ncancelled++;
    return true;
}

/* The earliest event (cancelled or not; there is one) into the cache: its
 * key, and its wheel slot or -1 when it is the heap's top. */
static inline void find_front(sim_engine *e) {
    if (e->front_ok) return;
    e->front_ok = true;
    if (e->nwheel) {
        size_t w = wheel_first(e);
        sim_engine_key wk = e->ev[e->whead[w]].key;
        if (!e->nheap || key_before(&wk, &e->heap[0])) {
            e->front_w = (int32_t)w;
            e->front = wk;
            return;
        }
    }
    e->front_w = -1;
    e->front = e->heap[0];
}

/* Remove the earliest event into *out (cancelled or not). */
static inline void pop_front(sim_engine *e, sim_event *out) {
    find_front(e);
    sim_engine_key k = e->front;
    int32_t w = e->front_w;
    e->front_ok = false;
    uint32_t slot = (uint32_t)(k.seq_slot & SLOT_MASK);
    if (w >= 0) {
        uint32_t nx = e->ev[slot].next;
        e->whead[w] = nx;
        e->nwheel--;
        if (nx == NONE) {
            e->wbits[w >> 6] &= ~(1ull << (w & 63));
        } else {
            /* w was the first non-empty slot and stays so: the wheel's
             * earliest is the next event of this slot, and the front is
             * known without a scan unless the heap's top comes first */
            sim_engine_key nk = e->ev[nx].key;
            if (!e->nheap || key_before(&nk, &e->heap[0])) {
                e->front = nk;
                e->front_ok = true;
            }
        }
    } else {
        heap_pop(e);
    }
    sim_engine_ev *E = &e->ev[slot];
    *out = (sim_event){ .t = k.t, .seq = k.seq_slot >> SLOT_BITS,
                        .type = E->type, .a = E->a, .b = E->b };
    E->type = SLOT_FREE;
    e->free_slots[e->nfree++] = slot;
    e->n--;
    /* every pending event is at k.t or later: the window moves up to it */
    int64_t nb = k.t & ~(((int64_t)1 << e->shift) - 1);
    if (nb > e->base) e->base = nb;
}

/* Drop cancelled events from the front, so the front is a pending event;
 * its time, or INT64_MAX when none is pending. */
static int64_t drop_cancelled(sim_engine *e) {
    sim_event dead;
    while (e->n) {
        find_front(e);
        if (!e->ncancelled ||
            e->ev[e->front.seq_slot & SLOT_MASK].type != SIM_EV_CANCELLED)
            return e->front.t;
        pop_front(e, &dead);
        e->ncancelled--;
    }
    return INT64_MAX;
}

int64_t sim_engine_next_time_slow(sim_engine *e) {
    return drop_cancelled(e);
}

bool sim_engine_pop(sim_engine *e, sim_event *out) {
    if (drop_cancelled(e) == INT64_MAX) return false;
    pop_front(e, out);
    return true;
}

bool sim_engine_pop_at_slow(sim_engine *e, int64_t t, sim_event *out) {
    if (!e->n) return false;
    if (e->ncancelled) drop_cancelled(e);   /* INT64_MAX only when empty */
    else find_front(e);
    if (!e->n || e->front.t != t) return false;
    pop_front(e, out);
    return true;
}

size_t sim_engine_size(const sim_engine *e) {
    return e->n;
}
