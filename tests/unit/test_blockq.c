/* test_blockq.c -- the fast path's block completions (simcore/blockq.h,
 * ee.c's dispatch_fast, issue 9).
 *
 * The calendar itself: exact next times, slots reused around the wheel,
 * the summary jump across empty words, the span and node limits; the
 * engine's events handed back with an earlier sequence number. Then the
 * property the fast path rests on: with block completions kept out of the
 * engine, a kernel still completes at the place in the engine's (time,
 * scheduling order) that its last-scheduled latest-ending block had, so
 * two kernels ending at one instant complete in the order the engine alone
 * gives (the followers of the first start first), also when the queue
 * drains them in the other order, when a kernel's last-placed block is not
 * its latest, and when a block is too long for the queue and goes through
 * the engine. Every expected number here is what the simulator gave before
 * the fast path existed (the golden traces pin the shipped scenarios). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../simcore/blockq.h"
#include "../../simcore/engine.h"
#include "test_sim_util.h"

/* ---- the calendar ---------------------------------------------------------- */

static void test_span_rounding(void **state) {
    (void)state;
    sim_bq q;
    assert_int_equal(bq_init(&q, 100, 4), 0);
    assert_int_equal(q.span, 4096);            /* at least one summary word */
    bq_free(&q);
    assert_int_equal(bq_init(&q, 50001, 4), 0);
    assert_int_equal(q.span, 65536);
    bq_free(&q);
    assert_int_equal(bq_init(&q, 5000000000LL, 4), 0);
    assert_int_equal(q.span, 1 << 20);         /* longer blocks go to the engine */
    assert_true(bq_fits(&q, (1 << 20) - 1));
    assert_false(bq_fits(&q, 1 << 20));
    bq_free(&q);
    assert_int_equal(q.span, 0);
    assert_int_equal(q.next, INT64_MAX);
}

/* Take every node due at q->next; returns how many, their (kernel, sm) in
 * list order into out. */
static size_t drain(sim_bq *q, int64_t t, int32_t out[][2]) {
    assert_int_equal(q->next, t);
    size_t n = 0;
    for (uint32_t i = bq_take(q, t); i;) {
        uint32_t nx = q->node[i].next;
        out[n][0] = q->node[i].kernel;
        out[n][1] = q->node[i].sm;
        n++;
        bq_release(q, i);
        i = nx;
    }
    bq_advance(q, t);
    return n;
}

static void test_next_times(void **state) {
    (void)state;
    sim_bq q;
    int32_t got[8][2];
    assert_int_equal(bq_init(&q, 5000, 8), 0);   /* 8192 slots */
    assert_int_equal(q.next, INT64_MAX);
    bq_push(&q, 4000, 7, 1);
    bq_push(&q, 10, 3, 0);
    bq_push(&q, 10, 4, 5);
    assert_int_equal(q.next, 10);
    assert_int_equal(q.n, 3);
    /* one slot, one time: both nodes, newest first */
    assert_int_equal(drain(&q, 10, got), 2);
    assert_int_equal(got[0][0], 4);
    assert_int_equal(got[0][1], 5);
    assert_int_equal(got[1][0], 3);
    assert_int_equal(got[1][1], 0);
    /* 3,990 ns on: 62 empty bitmap words, found through the summary */
    assert_int_equal(q.next, 4000);
    assert_int_equal(drain(&q, 4000, got), 1);
    assert_int_equal(got[0][0], 7);
    assert_int_equal(q.next, INT64_MAX);
    assert_int_equal(q.n, 0);
    /* the next time in the same bitmap word, then in the next one */
    bq_push(&q, 4100, 8, 2);
    bq_push(&q, 4090, 9, 3);
    bq_push(&q, 4040, 10, 4);
    assert_int_equal(q.next, 4040);
    assert_int_equal(drain(&q, 4040, got), 1);
    assert_int_equal(q.next, 4090);          /* slot 4090: word 63, as 4041 */
    assert_int_equal(drain(&q, 4090, got), 1);
    assert_int_equal(got[0][0], 9);
    assert_int_equal(q.next, 4100);          /* slot 4100: word 64 */
    assert_int_equal(drain(&q, 4100, got), 1);
    assert_int_equal(got[0][1], 2);
    assert_int_equal(q.next, INT64_MAX);
    bq_free(&q);
}

static void test_wraps_around(void **state) {
    (void)state;
    sim_bq q;
    int32_t got[8][2];
    assert_int_equal(bq_init(&q, 8192, 4), 0);
    assert_int_equal(q.span, 8192);
    bq_push(&q, 8000, 1, 0);
    assert_int_equal(drain(&q, 8000, got), 1);
    /* now is 8000: 16191 sits in slot 7999, behind 8001's slot 8001 */
    bq_push(&q, 16191, 2, 0);
    bq_push(&q, 8001, 3, 0);
    bq_push(&q, 12000, 4, 0);
    assert_int_equal(q.next, 8001);
    assert_int_equal(drain(&q, 8001, got), 1);
    assert_int_equal(got[0][0], 3);
    assert_int_equal(q.next, 12000);        /* slot 3808: past the wrap */
    assert_int_equal(drain(&q, 12000, got), 1);
    assert_int_equal(got[0][0], 4);
    assert_int_equal(q.next, 16191);        /* slot 7999, just before now's slot */
    assert_int_equal(drain(&q, 16191, got), 1);
    assert_int_equal(got[0][0], 2);
    assert_int_equal(q.next, INT64_MAX);
    bq_free(&q);
}

static void test_nodes_run_out(void **state) {
    (void)state;
    sim_bq q;
    int32_t got[8][2];
    assert_int_equal(bq_init(&q, 100, 2), 0);
    assert_true(bq_fits(&q, 0));
    bq_push(&q, 5, 0, 0);
    bq_push(&q, 6, 0, 1);
    assert_false(bq_fits(&q, 0));           /* the caller then uses the engine */
    assert_int_equal(drain(&q, 5, got), 1);
    assert_true(bq_fits(&q, 0));
    bq_free(&q);
}

/* ---- the engine's handed-back events ---------------------------------------- */

/* An event pushed later with a sequence number taken earlier fires where a
 * push at that moment would have: between the events scheduled before and
 * after the number was taken, on the wheel and in the heap alike. */
static void test_engine_push_seq(void **state) {
    (void)state;
    sim_engine e;
    sim_engine_init(&e);
    assert_int_equal(sim_engine_reserve(&e, 16), 0);
    sim_engine_set_span(&e, 1000);            /* 1e9 lies beyond the wheel: the heap */
    uint64_t s1 = 0, s2 = 0;
    assert_int_equal(sim_engine_push(&e, 100, 1, 10, 0), 0);
    assert_true(sim_engine_take_seq(&e, &s1));
    assert_int_equal(sim_engine_push(&e, 100, 1, 12, 0), 0);
    assert_int_equal(sim_engine_push(&e, 1000000000, 1, 20, 0), 0);
    assert_true(sim_engine_take_seq(&e, &s2));
    assert_int_equal(sim_engine_push(&e, 1000000000, 1, 22, 0), 0);
    assert_int_equal(sim_engine_push(&e, 100, 1, 13, 0), 0);
    assert_int_equal(sim_engine_push_seq(&e, 100, s1, 2, 11, 0), 0);
    assert_int_equal(sim_engine_push_seq(&e, 1000000000, s2, 2, 21, 0), 0);
    /* a number never taken is refused */
    assert_int_equal(sim_engine_push_seq(&e, 100, e.next_seq, 2, 99, 0), -1);
    static const int32_t want[] = { 10, 11, 12, 13, 20, 21, 22 };
    sim_event ev;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_true(sim_engine_pop(&e, &ev));
        assert_int_equal(ev.a, want[i]);
        assert_int_equal(ev.t, i < 4 ? 100 : 1000000000);
    }
    assert_false(sim_engine_pop(&e, &ev));
    sim_engine_free(&e);
}

/* ---- completions through the fast path keep the engine's order ------------- */

/* KA and KB (two 1024-thread blocks each, one on each of the TX2's two SMs)
 * end together at 1000; KA's blocks were scheduled first, so KA completes
 * first and its follower KA2 (four 1024-thread blocks: the whole device)
 * takes the device at 1000, KB2 waits for it. The queue drains KB's nodes
 * first (newest first): completing a kernel as its last node drains would
 * let KB2 go first. */
static void test_same_instant_order(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    tb_kernel(&b, "KA", s1, 0, 2, 1024, 0, 1000);
    tb_kernel(&b, "KB", s2, 0, 2, 1024, 0, 1000);
    tb_kernel(&b, "KA2", s1, 0, 4, 1024, 0, 1000);
    tb_kernel(&b, "KB2", s2, 0, 1, 1024, 0, 1000);
    trace t;
    tb_run(&b, &t);
    assert_int_equal(kern(&t, "KA")->end, 1000);
    assert_int_equal(kern(&t, "KB")->end, 1000);
    assert_int_equal(kern(&t, "KA2")->first_block, 1000);
    assert_int_equal(kern(&t, "KA2")->end, 2000);
    assert_int_equal(kern(&t, "KB2")->first_block, 2000);
    assert_int_equal(blk(&t, "KA2", 0)->sm, 0);
    assert_int_equal(blk(&t, "KA2", 1)->sm, 1);
    assert_int_equal(blk(&t, "KB2", 0)->sm, 0);
    trace_free(&t);
}

/* KA's blocks take 3000 and 1000 ns (cycled): its last-placed block ends
 * first, so KA completes at 3000 where its block 0 was scheduled, before
 * KB (one 3000-ns block scheduled after both of KA's). */
static void test_latest_block_not_last_placed(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    static const int64_t times[2] = { 3000, 1000 };
    sim_op *ka = tb_kernel(&b, "KA", s1, 0, 2, 1024, 0, 0);
    tb_times(&b, ka, times, 2);
    tb_kernel(&b, "KB", s2, 0, 1, 1024, 0, 3000);
    tb_kernel(&b, "KA2", s1, 0, 4, 1024, 0, 1000);
    tb_kernel(&b, "KB2", s2, 0, 1, 1024, 0, 1000);
    trace t;
    tb_run(&b, &t);
    assert_int_equal(blk(&t, "KA", 0)->end, 3000);
    assert_int_equal(blk(&t, "KA", 1)->end, 1000);
    assert_int_equal(kern(&t, "KA")->end, 3000);
    assert_int_equal(kern(&t, "KB")->end, 3000);
    assert_int_equal(kern(&t, "KA2")->first_block, 3000);
    assert_int_equal(kern(&t, "KB2")->first_block, 4000);
    trace_free(&t);
}

/* 2 ms blocks are longer than the queue's 2^20 slots: they end through the
 * engine (EV_BLOCK_DONE), the 500-ns block of the same kernel through the
 * queue, and the order is the same: KL (scheduled first) completes before
 * KA at 2 ms. */
static void test_long_blocks_through_engine(void **state) {
    (void)state;
    tb b;
    tb_init(&b, "tx2");
    int32_t s1 = tb_stream(&b, "S1", "P0", SIM_PRIO_NONE);
    int32_t s2 = tb_stream(&b, "S2", "P0", SIM_PRIO_NONE);
    static const int64_t times[2] = { 2 * MS, 500 };
    sim_op *kl = tb_kernel(&b, "KL", s1, 0, 2, 1024, 0, 0);
    tb_times(&b, kl, times, 2);
    tb_kernel(&b, "KA", s2, 0, 1, 1024, 0, 2 * MS);
    tb_kernel(&b, "KL2", s1, 0, 4, 1024, 0, 1000);
    tb_kernel(&b, "KA2", s2, 0, 1, 1024, 0, 1000);
    trace t;
    tb_run(&b, &t);
    assert_int_equal(blk(&t, "KL", 0)->sm, 0);
    assert_int_equal(blk(&t, "KL", 1)->sm, 1);
    assert_int_equal(blk(&t, "KA", 0)->sm, 0);
    assert_int_equal(blk(&t, "KL", 1)->end, 500);
    assert_int_equal(kern(&t, "KL")->end, 2 * MS);
    assert_int_equal(kern(&t, "KA")->end, 2 * MS);
    assert_int_equal(kern(&t, "KL2")->first_block, 2 * MS);
    assert_int_equal(kern(&t, "KA2")->first_block, 2 * MS + 1000);
    trace_free(&t);
}
/* bq_advance's ways to the next time: in t + 1's bitmap word, in a later
 * word of the same summary word (one mask, the summary word's last word
 * included), past it (bq_advance_far), and wrapping around, where the
 * earliest time sits in a slot before now's. Random pushes (1 ns up to a
 * span ahead, most of them near) and drains, on a calendar of one summary
 * word and one of 32: each drain must come at the smallest pending time
 * and hand back exactly the nodes pushed for it. */
static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void test_next_time_random(void **state) {
    (void)state;
    static const int64_t spans[2] = { 4096, 100000 };   /* 4,096 and 131,072 slots */
    for (int si = 0; si < 2; si++) {
        enum { CAP = 48 };
        sim_bq q;
        assert_int_equal(bq_init(&q, spans[si], CAP), 0);
        int64_t pend_t[CAP], now = 0;
        int32_t pend_id[CAP], next_id = 0;
        int np = 0;
        uint64_t seed = 42 + (uint64_t)si;
        int64_t same_word = 0, same_sum = 0, far = 0;
        for (int step = 0; step < 20000; step++) {
            while (np < CAP && (np == 0 || splitmix(&seed) % 4 != 0)) {
                /* a delay under 64 ns, under 4,096 or anywhere in the span */
                uint64_t kind = splitmix(&seed) % 3;
                int64_t lim = kind == 0 ? 64 : kind == 1 ? 4096 : q.span;
                int64_t d = 1 + (int64_t)(splitmix(&seed) % (uint64_t)(lim - 1));
                assert_true(bq_fits(&q, d));
                bq_push(&q, now + d, next_id, 0);
                pend_t[np] = now + d;
                pend_id[np++] = next_id++;
            }
            int64_t min = INT64_MAX;
            int due = 0;
            for (int i = 0; i < np; i++) min = pend_t[i] < min ? pend_t[i] : min;
            for (int i = 0; i < np; i++) due += pend_t[i] == min;
            /* which way bq_advance took to find it (slot = time mod span) */
            int64_t s0 = (now + 1) & (q.span - 1), s = min & (q.span - 1);
            if (s >= s0 && s >> 6 == s0 >> 6) same_word++;
            else if (s > s0 && s >> 12 == s0 >> 12) same_sum++;
            else far++;
            assert_int_equal(q.next, min);
            int32_t got[CAP][2];
            assert_int_equal(drain(&q, min, got), due);
            for (int j = 0; j < due; j++) {
                int hit = 0;
                for (int i = 0; i < np; i++) hit += pend_id[i] == got[j][0] && pend_t[i] == min;
                assert_int_equal(hit, 1);
            }
            int keep = 0;
            for (int i = 0; i < np; i++) {
                if (pend_t[i] == min) continue;
                pend_t[keep] = pend_t[i];
                pend_id[keep++] = pend_id[i];
            }
            np = keep;
            now = min;
        }
        assert_int_equal(q.n, (size_t)np);
        /* every way was taken, many times */
        assert_true(same_word > 1000);
        assert_true(same_sum > 1000);
        assert_true(far > 100);
        bq_free(&q);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_span_rounding),
        cmocka_unit_test(test_next_times),
        cmocka_unit_test(test_wraps_around),
        cmocka_unit_test(test_nodes_run_out),
        cmocka_unit_test(test_engine_push_seq),
        cmocka_unit_test(test_same_instant_order),
        cmocka_unit_test(test_latest_block_not_last_placed),
        cmocka_unit_test(test_long_blocks_through_engine),
        cmocka_unit_test(test_next_time_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
