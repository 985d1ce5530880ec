/* test_engine.c -- the event engine: (time, scheduling order) firing order
 * and cancellation (engine.h). Contexts that preempt blocks and end time
 * slices early rely on a cancelled event never firing and on a stale id
 * cancelling nothing. The engine keeps near events on a wheel of time slots
 * and the rest in a heap (engine.h): the tests below pin that where an
 * event waits never changes the order, ties included, and compare the
 * engine with a plain scan over every pending event on random workloads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "../../simcore/engine.h"

static void test_order_time_then_scheduling(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    /* three at t=5 scheduled in the order 10, 11, 12; one earlier, one later */
    assert_int_equal(sim_engine_push(&e, 5, 1, 10, 0), 0);
    assert_int_equal(sim_engine_push(&e, 9, 1, 20, 0), 0);
    assert_int_equal(sim_engine_push(&e, 5, 1, 11, 0), 0);
    assert_int_equal(sim_engine_push(&e, 2, 1, 30, 0), 0);
    assert_int_equal(sim_engine_push(&e, 5, 1, 12, 0), 0);
    const int32_t want[] = { 30, 10, 11, 12, 20 };
    const int64_t when[] = { 2, 5, 5, 5, 9 };
    sim_event ev;
    for (int i = 0; i < 5; i++) {
        assert_true(sim_engine_pop(&e, &ev));
        assert_int_equal(ev.a, want[i]);
        assert_int_equal(ev.t, when[i]);
    }
    assert_false(sim_engine_pop(&e, &ev));
    assert_int_equal(sim_engine_next_time(&e), INT64_MAX);
    sim_engine_free(&e);
}

static void test_cancel(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    sim_event_id a = sim_engine_schedule(&e, 10, 1, 1, 0);
    sim_event_id b = sim_engine_schedule(&e, 20, 1, 2, 0);
    sim_event_id c = sim_engine_schedule(&e, 30, 1, 3, 0);
    assert_true(a && b && c && a != b && b != c);
    /* cancelling the earliest moves next_time to the next pending event */
    assert_true(sim_engine_cancel(&e, a));
    assert_false(sim_engine_cancel(&e, a));     /* twice: nothing to cancel */
    assert_int_equal(sim_engine_next_time(&e), 20);
    /* cancelling one in the middle of the heap */
    assert_true(sim_engine_cancel(&e, c));
    sim_event ev;
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(ev.a, 2);
    assert_int_equal(ev.t, 20);
    assert_false(sim_engine_pop(&e, &ev));      /* c never fires */
    /* an id of an event that fired cancels nothing, even when its slot is
     * reused by a new event */
    assert_false(sim_engine_cancel(&e, b));
    sim_event_id d = sim_engine_schedule(&e, 40, 1, 4, 0);
    assert_false(sim_engine_cancel(&e, b));
    assert_false(sim_engine_cancel(&e, 0));
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(ev.a, 4);
    assert_false(sim_engine_cancel(&e, d));
    sim_engine_free(&e);
}

/* sim_engine_pop_at drains exactly the events due at t, in scheduling
 * order, skips cancelled ones and leaves later ones (and an empty engine)
 * untouched. */
static void test_pop_at(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    sim_event ev;
    assert_false(sim_engine_pop_at(&e, 0, &ev));          /* empty */
    assert_int_equal(sim_engine_push(&e, 7, 1, 1, 0), 0);
    sim_event_id x = sim_engine_schedule(&e, 7, 1, 2, 0);
    assert_int_equal(sim_engine_push(&e, 9, 1, 3, 0), 0);
    assert_int_equal(sim_engine_push(&e, 7, 1, 4, 0), 0);
    assert_int_equal(sim_engine_push(&e, 1000000000, 1, 5, 0), 0);   /* in the heap */
    assert_true(sim_engine_cancel(&e, x));
    assert_false(sim_engine_pop_at(&e, 6, &ev));          /* nothing due at 6 */
    assert_int_equal(sim_engine_size(&e), 5);
    assert_true(sim_engine_pop_at(&e, 7, &ev));
    assert_int_equal(ev.a, 1);
    assert_true(sim_engine_pop_at(&e, 7, &ev));           /* 2 was cancelled */
    assert_int_equal(ev.a, 4);
    assert_int_equal(ev.t, 7);
    assert_false(sim_engine_pop_at(&e, 7, &ev));          /* 9 is not due */
    assert_int_equal(sim_engine_next_time(&e), 9);
    assert_false(sim_engine_pop_at(&e, 10, &ev));         /* past it: not "due" */
    assert_true(sim_engine_pop_at(&e, 9, &ev));
    assert_int_equal(ev.a, 3);
    assert_true(sim_engine_pop_at(&e, 1000000000, &ev));
    assert_int_equal(ev.a, 5);
    assert_false(sim_engine_pop_at(&e, INT64_MAX, &ev));
    assert_int_equal(sim_engine_size(&e), 0);
    sim_engine_free(&e);
}

static void test_cancel_many_keeps_order(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    sim_event_id ids[1000];
    /* times 999..0, every third one cancelled: the rest fire in time order */
    for (int i = 0; i < 1000; i++) ids[i] = sim_engine_schedule(&e, 999 - i, 1, i, 0);
    for (int i = 0; i < 1000; i += 3) assert_true(sim_engine_cancel(&e, ids[i]));
    int64_t last = -1;
    int fired = 0;
    sim_event ev;
    while (sim_engine_pop(&e, &ev)) {
        assert_true(ev.t > last);
        assert_true(ev.a % 3 != 0);
        last = ev.t;
        fired++;
    }
    assert_int_equal(fired, 666);
    assert_int_equal(sim_engine_size(&e), 0);
    sim_engine_free(&e);
}

/* A tie split between the heap and the wheel: the event scheduled first at
 * t = 5000 waits in the heap (beyond the window when it was pushed), the
 * next two at the same t join the wheel once the window has moved up. They
 * fire in scheduling order all the same. */
static void test_tie_across_heap_and_wheel(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    sim_engine_set_span(&e, SIM_WHEEL_SLOTS);       /* 1 ns slots: window [0, 4096) */
    assert_int_equal(e.shift, 0);
    assert_int_equal(sim_engine_push(&e, 5000, 1, 1, 0), 0);   /* heap */
    assert_int_equal(sim_engine_push(&e, 2000, 1, 2, 0), 0);   /* wheel */
    assert_int_equal(e.nheap, 1);
    assert_int_equal(e.nwheel, 1);
    sim_event ev;
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(ev.a, 2);
    assert_int_equal(ev.t, 2000);
    assert_int_equal(e.base, 2000);                 /* window now [2000, 6096) */
    assert_int_equal(sim_engine_push(&e, 5000, 1, 3, 0), 0);
    assert_int_equal(sim_engine_push(&e, 5000, 1, 4, 0), 0);
    assert_int_equal(e.nwheel, 2);
    const int32_t want[] = { 1, 3, 4 };
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sim_engine_next_time(&e), 5000);
        assert_true(sim_engine_pop(&e, &ev));
        assert_int_equal(ev.a, want[i]);
        assert_int_equal(ev.t, 5000);
        assert_int_equal(ev.seq, (uint64_t)(want[i] - 1));
    }
    assert_false(sim_engine_pop(&e, &ev));
    sim_engine_free(&e);
}

/* The window's far edge is open: with 1 ns slots the window is [0, 4096),
 * so t = 4096 shares slot 0 with t = 0 and must wait in the heap; on the
 * wheel it would come out first (the scan from base's slot finds slot 0
 * first). Pushed and scheduled both, and the edge's neighbour 4095 stays on
 * the wheel. */
static void test_window_edge(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    sim_engine_set_span(&e, SIM_WHEEL_SLOTS);       /* window [0, 4096) */
    assert_int_equal(sim_engine_push(&e, SIM_WHEEL_SLOTS, 1, 1, 0), 0);
    assert_int_not_equal(sim_engine_schedule(&e, SIM_WHEEL_SLOTS, 1, 2, 0), 0);
    assert_int_equal(e.nheap, 2);
    assert_int_equal(sim_engine_push(&e, SIM_WHEEL_SLOTS - 1, 1, 3, 0), 0);
    assert_int_equal(sim_engine_push(&e, 7, 1, 4, 0), 0);
    assert_int_equal(e.nwheel, 2);
    const int32_t want[] = { 4, 3, 1, 2 };
    const int64_t when[] = { 7, SIM_WHEEL_SLOTS - 1, SIM_WHEEL_SLOTS, SIM_WHEEL_SLOTS };
    sim_event ev;
    for (int i = 0; i < 4; i++) {
        assert_true(sim_engine_pop(&e, &ev));
        assert_int_equal(ev.a, want[i]);
        assert_int_equal(ev.t, when[i]);
    }
    assert_false(sim_engine_pop(&e, &ev));
    sim_engine_free(&e);
}

/* Events pushed out of order into one wheel slot (16 ns wide by default),
 * and one pushed before the window's base (the past: the heap takes it). */
static void test_slot_order_and_past(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    assert_int_equal(sim_engine_push(&e, 100, 1, 1, 0), 0);
    assert_int_equal(sim_engine_push(&e, 107, 1, 2, 0), 0);
    assert_int_equal(sim_engine_push(&e, 103, 1, 3, 0), 0);   /* same slot, in between */
    assert_int_equal(sim_engine_push(&e, 107, 1, 4, 0), 0);   /* tie: after 2 */
    assert_int_equal(sim_engine_push(&e, 96, 1, 5, 0), 0);    /* same slot, first */
    sim_event ev;
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(ev.a, 5);
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(ev.a, 1);
    assert_int_equal(e.base, 96);                   /* 100 rounded down to its slot */
    assert_int_equal(sim_engine_push(&e, 90, 1, 6, 0), 0);    /* before base */
    assert_int_equal(e.nheap, 1);
    const int32_t want[] = { 6, 3, 2, 4 };
    const int64_t when[] = { 90, 103, 107, 107 };
    for (int i = 0; i < 4; i++) {
        assert_true(sim_engine_pop(&e, &ev));
        assert_int_equal(ev.a, want[i]);
        assert_int_equal(ev.t, when[i]);
    }
    assert_false(sim_engine_pop(&e, &ev));
    sim_engine_free(&e);
}

/* Cancelling in the wheel and in the heap, the front included, and an id
 * whose slot was reused. */
static void test_cancel_wheel_and_heap(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    sim_engine_set_span(&e, SIM_WHEEL_SLOTS);       /* window [0, 4096) */
    sim_event_id w1 = sim_engine_schedule(&e, 10, 1, 1, 0);
    sim_event_id w2 = sim_engine_schedule(&e, 10, 1, 2, 0);
    sim_event_id h1 = sim_engine_schedule(&e, 9000, 1, 3, 0);
    sim_event_id h2 = sim_engine_schedule(&e, 9000, 1, 4, 0);
    assert_int_equal(e.nwheel, 2);
    assert_int_equal(e.nheap, 2);
    assert_true(sim_engine_cancel(&e, w1));         /* the front */
    assert_true(sim_engine_cancel(&e, h1));         /* the heap's top */
    assert_false(sim_engine_cancel(&e, h1));
    assert_int_equal(sim_engine_size(&e), 4);       /* lazily: still there */
    sim_event ev;
    assert_int_equal(sim_engine_next_time(&e), 10);
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(ev.a, 2);
    assert_false(sim_engine_cancel(&e, w2));        /* fired */
    sim_event_id w3 = sim_engine_schedule(&e, 20, 1, 5, 0);   /* reuses a slot */
    assert_false(sim_engine_cancel(&e, w1));
    assert_false(sim_engine_cancel(&e, w2));
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(ev.a, 5);
    assert_false(sim_engine_cancel(&e, w3));
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(ev.a, 4);
    assert_int_equal(ev.t, 9000);
    assert_false(sim_engine_cancel(&e, h2));
    assert_false(sim_engine_pop(&e, &ev));
    assert_int_equal(sim_engine_size(&e), 0);
    sim_engine_free(&e);
}

/* A slot crowded with times pushed out of order: an event whose place is
 * further than a short walk from the slot's head waits in the heap, and
 * fires in its place all the same. */
static void test_crowded_slot(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    sim_engine_set_span(&e, (int64_t)SIM_WHEEL_SLOTS << 10);   /* 1024 ns slots */
    assert_int_equal(e.shift, 10);
    for (int i = 0; i < 40; i++) assert_int_equal(sim_engine_push(&e, 2 * i, 1, 2 * i, 0), 0);
    assert_int_equal(e.nwheel, 40);
    assert_int_equal(sim_engine_push(&e, 77, 1, 77, 0), 0);    /* 38 events from the head */
    assert_int_equal(e.nheap, 1);
    assert_int_equal(sim_engine_push(&e, 5, 1, 5, 0), 0);      /* 3 from the head */
    assert_int_equal(e.nwheel, 41);
    assert_int_equal(sim_engine_push(&e, 78, 1, 1000, 0), 0);  /* tie with the tail: last */
    assert_int_equal(e.nwheel, 42);
    sim_event ev;
    int64_t last = -1;
    int n = 0;
    while (sim_engine_pop(&e, &ev)) {
        assert_true(ev.t >= last);
        if (ev.t == 78) assert_int_equal(ev.a, n == 41 ? 78 : 1000);
        else assert_int_equal(ev.a, ev.t);
        last = ev.t;
        n++;
    }
    assert_int_equal(n, 43);
    sim_engine_free(&e);
}

/* The span hint picks the narrowest power-of-two slots that cover it. */
static void test_set_span(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    assert_int_equal(e.shift, 4);                   /* default: 16 ns slots */
    sim_engine_set_span(&e, 100000);                /* 4096 x 32 ns = 131072 */
    assert_int_equal(e.shift, 5);
    sim_engine_set_span(&e, 1);
    assert_int_equal(e.shift, 0);
    assert_int_equal(sim_engine_push(&e, 3, 1, 1, 0), 0);
    sim_engine_set_span(&e, 100000);                /* events on the wheel: no change */
    assert_int_equal(e.shift, 0);
    sim_engine_free(&e);
}

/* The reference: every pending event in an array, the earliest (t, seq)
 * found by a scan. */
typedef struct ref_ev {
    int64_t t;
    uint64_t seq;
    int32_t a;
    bool live;
    sim_event_id id;
} ref_ev;

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Random pushes (near, far, tied, before the last pop), pops, peeks and
 * cancellations, three slot widths: the engine fires exactly what the
 * reference does, in the same order. */
static void test_random_against_reference(void **state) {
    (void)state;
    enum { OPS = 20000 };
    static ref_ev ref[OPS];
    const int64_t spans[3] = { 0, 64, 1000000 };   /* 0: the default */
    for (int sp = 0; sp < 3; sp++) {
        sim_engine e;
        sim_engine_init(&e);
        if (spans[sp]) sim_engine_set_span(&e, spans[sp]);
        uint64_t seed = 7 + (uint64_t)sp, seq = 0;
        size_t nref = 0;
        int64_t now = 0;
        int fired = 0, cancelled = 0;
        for (int op = 0; op < OPS; op++) {
            uint64_t r = lcg(&seed) % 100;
            if (r < 55) {
                int64_t t;
                uint64_t kind = lcg(&seed) % 10;
                if (kind < 6) t = now + (int64_t)(lcg(&seed) % 2000);          /* near */
                else if (kind < 8) t = now + (int64_t)(lcg(&seed) % 50) * 1000; /* ties */
                else if (kind < 9) t = now + 1000000 + (int64_t)(lcg(&seed) % 5000000); /* far */
                else t = now - (int64_t)(lcg(&seed) % 100);                    /* the past */
                sim_event_id id = sim_engine_schedule(&e, t, 1, op, 0);
                assert_true(id != 0);
                ref[nref++] = (ref_ev){ .t = t, .seq = seq++, .a = op, .live = true, .id = id };
            } else if (r < 65) {
                if (!nref) continue;
                size_t i = (size_t)(lcg(&seed) % nref);
                assert_int_equal(sim_engine_cancel(&e, ref[i].id), ref[i].live);
                if (ref[i].live) cancelled++;
                ref[i].live = false;
            } else {
                size_t best = SIZE_MAX;
                for (size_t i = 0; i < nref; i++)
                    if (ref[i].live && (best == SIZE_MAX || ref[i].t < ref[best].t ||
                                        (ref[i].t == ref[best].t && ref[i].seq < ref[best].seq)))
                        best = i;
                int64_t want_t = best == SIZE_MAX ? INT64_MAX : ref[best].t;
                assert_int_equal(sim_engine_next_time(&e), want_t);
                if (r < 75) continue;                   /* a peek only */
                sim_event ev;
                assert_int_equal(sim_engine_pop(&e, &ev), best != SIZE_MAX);
                if (best == SIZE_MAX) continue;
                assert_int_equal(ev.t, ref[best].t);
                assert_int_equal(ev.a, ref[best].a);
                assert_int_equal(ev.seq, ref[best].seq);
                ref[best].live = false;
                if (ev.t > now) now = ev.t;
                fired++;
            }
        }
        /* drain */
        for (;;) {
            size_t best = SIZE_MAX;
            for (size_t i = 0; i < nref; i++)
                if (ref[i].live && (best == SIZE_MAX || ref[i].t < ref[best].t ||
                                    (ref[i].t == ref[best].t && ref[i].seq < ref[best].seq)))
                    best = i;
            sim_event ev;
            assert_int_equal(sim_engine_pop(&e, &ev), best != SIZE_MAX);
            if (best == SIZE_MAX) break;
            assert_int_equal(ev.a, ref[best].a);
            assert_int_equal(ev.t, ref[best].t);
            ref[best].live = false;
            fired++;
        }
        assert_int_equal(sim_engine_size(&e), 0);
        assert_int_equal((size_t)(fired + cancelled), nref);
        assert_true(cancelled > 100 && fired > 5000);
        sim_engine_free(&e);
    }
}

/* The window follows the last event popped forward only: popping an event
 * pushed into the past (it waited in the heap) leaves base where it was,
 * so the wheel's events stay inside the window and its scan from base's
 * slot stays in time order. 1 ns slots, window [10, 4106) after the pop at
 * 10: 4105 waits on the wheel (slot 9), 5 in the heap; after 5 pops, 20
 * goes to slot 20 and fires before 4105 (a window moved back to [5, 4101)
 * would scan slot 9 first). */
static void test_base_never_back(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    sim_engine_set_span(&e, SIM_WHEEL_SLOTS);
    sim_event ev;
    assert_int_equal(sim_engine_push(&e, 10, 1, 10, 0), 0);
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(e.base, 10);
    assert_int_equal(sim_engine_push(&e, 4105, 1, 4105, 0), 0);
    assert_int_equal(sim_engine_push(&e, 5, 1, 5, 0), 0);
    assert_int_equal(e.nwheel, 1);
    assert_int_equal(e.nheap, 1);
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(ev.a, 5);
    assert_int_equal(e.base, 10);
    assert_int_equal(sim_engine_push(&e, 20, 1, 20, 0), 0);
    const int32_t want[] = { 20, 4105 };
    for (int i = 0; i < 2; i++) {
        assert_true(sim_engine_pop(&e, &ev));
        assert_int_equal(ev.a, want[i]);
    }
    sim_engine_free(&e);
}

/* A wider slot after events have been popped: base is rounded down to the
 * new slot width, so the window is whole slots. 1 ns slots, an event at 5
 * popped (base 5), then 32 ns slots (window [0, 131072)): 131075 lies past
 * the window (the heap), 100 on the wheel, and 100 fires first (a window
 * [5, 131077) would put 131075 in slot 0, which the scan from base's slot
 * 0 reaches before 100's slot 3). */
static void test_span_rounds_base(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    sim_engine_set_span(&e, 1);
    sim_event ev;
    assert_int_equal(sim_engine_push(&e, 5, 1, 5, 0), 0);
    assert_true(sim_engine_pop(&e, &ev));
    assert_int_equal(e.base, 5);
    sim_engine_set_span(&e, 100000);
    assert_int_equal(e.shift, 5);
    assert_int_equal(e.base, 0);
    assert_int_equal(sim_engine_push(&e, 131075, 1, 2, 0), 0);
    assert_int_equal(sim_engine_push(&e, 100, 1, 1, 0), 0);
    assert_int_equal(e.nheap, 1);
    for (int i = 1; i <= 2; i++) {
        assert_true(sim_engine_pop(&e, &ev));
        assert_int_equal(ev.a, i);
    }
    sim_engine_free(&e);
}

/* engine.h's limits: at most 2^24 events pending (a reserve past it
 * fails), 2^40 scheduled (the last sequence number, 2^40 - 1, is the last
 * push that succeeds: set by hand, as 2^40 pushes would take hours), and a
 * sequence number handed to sim_engine_push_seq must have been taken. A
 * span just over a power of two of slots takes the next width. */
static void test_limits(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    assert_int_equal(sim_engine_reserve(&e, ((size_t)1 << 24) + 1), -1);
    assert_int_equal(e.cap, 0);
    sim_engine_set_span(&e, SIM_WHEEL_SLOTS);
    assert_int_equal(e.shift, 0);
    sim_engine_set_span(&e, SIM_WHEEL_SLOTS + 1);
    assert_int_equal(e.shift, 1);
    uint64_t seq;
    assert_true(sim_engine_take_seq(&e, &seq));
    assert_int_equal(seq, 0);
    assert_int_equal(sim_engine_push_seq(&e, 7, 1, 1, 0, 0), -1);   /* 1 was never taken */
    assert_int_equal(sim_engine_push_seq(&e, 7, 0, 1, 0, 0), 0);
    e.next_seq = SIM_ENGINE_MAX_SEQ - 1;
    assert_int_not_equal(sim_engine_schedule(&e, 8, 1, 2, 0), 0);
    assert_int_equal(sim_engine_schedule(&e, 9, 1, 3, 0), 0);
    assert_int_equal(sim_engine_push(&e, 9, 1, 3, 0), -1);
    assert_int_equal(sim_engine_size(&e), 2);
    sim_engine_free(&e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_time_then_scheduling),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_pop_at),
        cmocka_unit_test(test_cancel_many_keeps_order),
        cmocka_unit_test(test_tie_across_heap_and_wheel),
        cmocka_unit_test(test_window_edge),
        cmocka_unit_test(test_slot_order_and_past),
        cmocka_unit_test(test_cancel_wheel_and_heap),
        cmocka_unit_test(test_crowded_slot),
        cmocka_unit_test(test_set_span),
        cmocka_unit_test(test_base_never_back),
        cmocka_unit_test(test_span_rounds_base),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_random_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
