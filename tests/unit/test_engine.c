/* test_engine.c -- the event engine: (time, scheduling order) firing order
 * and cancellation (engine.h). Contexts that preempt blocks and end time
 * slices early rely on a cancelled event never firing and on a stale id
 * cancelling nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_time_then_scheduling),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_cancel_many_keeps_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
