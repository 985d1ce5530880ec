/* test_trace_core.c -- the trace model's storage (simcore/trace.c; trace.h),
 * rule by rule on traces built in the test:
 *
 *   - strings: one id per distinct string, 0 for none, ids stable while
 *     the table grows, a string and its prefix apart, an id past the table
 *     nothing;
 *   - meta: a key set twice keeps its last value, once;
 *   - cohorts: their blocks counted and expanded as block j of a cohort is
 *     (trace_cohort_block: wave j / per_wave, a period apart);
 *   - the time span: the earliest and latest known time over every kind of
 *     record, unknown times (TRACE_NONE) skipped, a cohort by its first
 *     and last wave, a job's deadline not an event;
 *   - rebase: every time shifted by the span's start, deadlines and pauses
 *     included, unknown times kept, the shift added to origin;
 *   - copy directions: every name read back to its value, "other" for a
 *     value past the list, -1 for a name not in it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../simcore/trace.h"

static void test_strings(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    assert_int_equal(trace_intern(&t, NULL), 0);
    assert_null(trace_str_get(&t, 0));
    trace_str ab = trace_intern(&t, "ab"), a = trace_intern(&t, "a");
    assert_true(ab != 0 && a != 0 && ab != a);
    assert_int_equal(trace_intern(&t, "ab"), ab);
    /* by length: "a" is the first byte of "ab", and "ab" of "abc" */
    assert_int_equal(trace_intern_n(&t, "abc", 1), a);
    assert_int_equal(trace_intern_n(&t, "abc", 2), ab);
    assert_string_equal(trace_str_get(&t, a), "a");
    assert_string_equal(trace_str_get(&t, ab), "ab");
    /* thousands of strings, each a prefix of the one before (so a longer
     * one already sits on many a shorter one's probe path) and the table
     * grown many times over: each keeps its id and its text */
    enum { N = 3000 };
    static char text[N + 1];
    static trace_str id[N];
    memset(text, 'x', N);
    for (int i = N; i >= 1; i--) {
        id[i - 1] = trace_intern_n(&t, text, (size_t)i);
        assert_int_equal(strlen(trace_str_get(&t, id[i - 1])), (size_t)i);
    }
    for (int i = 1; i <= N; i++) {
        assert_int_equal(trace_intern_n(&t, text, (size_t)i), id[i - 1]);
        assert_int_equal(strlen(trace_str_get(&t, id[i - 1])), (size_t)i);
    }
    char name[32];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "kernel_%d", i);
        id[i] = trace_intern(&t, name);
    }
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "kernel_%d", i);
        assert_int_equal(trace_intern(&t, name), id[i]);
        assert_string_equal(trace_str_get(&t, id[i]), name);
    }
    /* ids run 1 .. n - 1; the first past them is nothing */
    assert_int_equal(t.strs.n, 2 + 2 * N + 1);
    assert_non_null(trace_str_get(&t, (trace_str)(t.strs.n - 1)));
    assert_null(trace_str_get(&t, (trace_str)t.strs.n));
    assert_false(t.oom);
    trace_free(&t);
}

static void test_meta(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    assert_null(trace_get_meta(&t, "device"));
    assert_int_equal(trace_set_meta(&t, "device", "TX2"), 0);
    assert_int_equal(trace_set_meta(&t, "tool", "nvprof"), 0);
    assert_int_equal(trace_set_meta(&t, "device", "H100"), 0);
    assert_string_equal(trace_get_meta(&t, "device"), "H100");
    assert_string_equal(trace_get_meta(&t, "tool"), "nvprof");
    assert_int_equal(t.meta.n, 2);
    assert_null(trace_get_meta(&t, "dev"));
    trace_free(&t);
}

/* Two cohorts of kernel 0: 5 blocks in waves of 2 from index 1, stride 3,
 * the first wave 100-150, a wave every 60 ns (on SM 4); and one of 1 block
 * (SM 0). With two blocks recorded one by one. */
static void two_cohorts(trace *t) {
    trace_init(t);
    trace_add_kernel(t);
    for (int i = 0; i < 2; i++) {
        trace_block *b = trace_add_block(t);
        b->kernel = 0;
        b->index = 100 + i;
        b->start = 10;
        b->end = 20;
    }
    trace_cohort *c = trace_add_cohort(t);
    *c = (trace_cohort){ .kernel = 0, .sm = 4, .index = 1, .stride = 3, .count = 5,
                         .per_wave = 2, .start = 100, .end = 150, .period = 60 };
    c = trace_add_cohort(t);
    *c = (trace_cohort){ .kernel = 0, .sm = 0, .index = 50, .stride = 1, .count = 1,
                         .per_wave = 1, .start = 30, .end = 35, .period = 5 };
}

static void test_cohorts(void **state) {
    (void)state;
    trace t;
    two_cohorts(&t);
    assert_int_equal(trace_block_total(&t), 2 + 5 + 1);
    assert_int_equal(trace_expand_cohorts(&t), 0);
    assert_int_equal(t.cohorts.n, 0);
    assert_int_equal(t.blocks.n, 8);
    assert_int_equal(trace_block_total(&t), 8);
    /* the first cohort's blocks j = 0..4: index 1 + 3j, wave j / 2 */
    static const int32_t index[] = { 1, 4, 7, 10, 13 };
    static const int64_t start[] = { 100, 100, 160, 160, 220 };
    for (int j = 0; j < 5; j++) {
        const trace_block *b = &t.blocks.v[2 + j];
        assert_int_equal(b->kernel, 0);
        assert_int_equal(b->sm, 4);
        assert_int_equal(b->index, index[j]);
        assert_int_equal(b->start, start[j]);
        assert_int_equal(b->end, start[j] + 50);
    }
    assert_int_equal(t.blocks.v[7].index, 50);
    assert_int_equal(t.blocks.v[7].start, 30);
    assert_int_equal(t.blocks.v[7].end, 35);
    trace_free(&t);
}

/* One record of each kind, times apart so that each could be the earliest
 * or the latest alone. */
static void one_of_each(trace *t) {
    trace_init(t);
    trace_kernel *k = trace_add_kernel(t);
    k->issue = 500;
    k->first_block = 510;
    k->fully_dispatched = 520;
    k->end = 530;
    trace_block *b = trace_add_block(t);
    b->start = 510;
    b->end = 530;
    trace_cohort *c = trace_add_cohort(t);
    *c = (trace_cohort){ .kernel = 0, .count = 4, .per_wave = 2, .stride = 1, .start = 600,
                         .end = 610, .period = 100 };   /* waves 600-610, 700-710 */
    trace_copy *cp = trace_add_copy(t);
    cp->issue = 400;
    cp->start = 410;
    cp->end = 420;
    trace_add_queue_event(t, 450, trace_intern(t, "q"), trace_intern(t, "K"), TRACE_ENQUEUE);
    trace_job *j = trace_add_job(t);
    j->release = 300;
    j->start = 310;
    j->end = 320;
    j->deadline = 5000;
    trace_host_call *h = trace_add_host_call(t);
    h->at = 200;
    h->issue = 210;
    h->end = 220;
    trace_add_pause(t, 0, 515, 525);
}

/* The span with one field of one record moved to `at`. */
static void span_with(int64_t *field_of(trace *), int64_t at, int64_t *lo, int64_t *hi) {
    trace t;
    one_of_each(&t);
    *field_of(&t) = at;
    trace_time_span(&t, lo, hi);
    trace_free(&t);
}

#define FIELD(name, expr) \
    static int64_t *name(trace *t) { return &(expr); }
FIELD(k_issue, t->kernels.v[0].issue)
FIELD(k_first, t->kernels.v[0].first_block)
FIELD(k_fully, t->kernels.v[0].fully_dispatched)
FIELD(k_end, t->kernels.v[0].end)
FIELD(b_start, t->blocks.v[0].start)
FIELD(b_end, t->blocks.v[0].end)
FIELD(c_start, t->cohorts.v[0].start)
FIELD(c_end, t->cohorts.v[0].end)
FIELD(cp_issue, t->copies.v[0].issue)
FIELD(cp_start, t->copies.v[0].start)
FIELD(cp_end, t->copies.v[0].end)
FIELD(q_t, t->queue_events.v[0].t)
FIELD(j_release, t->jobs.v[0].release)
FIELD(j_start, t->jobs.v[0].start)
FIELD(j_end, t->jobs.v[0].end)
FIELD(h_at, t->host_calls.v[0].at)
FIELD(h_issue, t->host_calls.v[0].issue)
FIELD(h_end, t->host_calls.v[0].end)

static void test_time_span(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    int64_t lo = 0, hi = 0;
    trace_time_span(&t, &lo, &hi);
    assert_true(lo == TRACE_NONE && hi == TRACE_NONE);
    trace_free(&t);
    /* the host call's `at` first, the cohort's last wave's end last (the
     * job's deadline at 5000 is no event) */
    one_of_each(&t);
    trace_time_span(&t, &lo, &hi);
    assert_int_equal(lo, 200);
    assert_int_equal(hi, 710);
    trace_free(&t);
    /* each time, moved before or after everything, moves the span */
    int64_t *(*const fields[])(trace *) = {
        k_issue, k_first, k_fully, k_end, b_start, b_end, c_start, cp_issue, cp_start,
        cp_end, q_t, j_release, j_start, j_end, h_at, h_issue, h_end,
    };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        span_with(fields[i], 7, &lo, &hi);
        if (lo != 7) fail_msg("field %zu at 7: span starts at %lld", i, (long long)lo);
        span_with(fields[i], 9000, &lo, &hi);
        if (hi != 9000) fail_msg("field %zu at 9000: span ends at %lld", i, (long long)hi);
    }
    /* a cohort ends with its last wave: its first wave's end plus 1 period */
    span_with(c_end, 8900, &lo, &hi);
    assert_int_equal(hi, 8900 + 100);
    /* unknown times are skipped, not taken as the earliest */
    span_with(h_at, TRACE_NONE, &lo, &hi);
    assert_int_equal(lo, 210);
    span_with(k_end, TRACE_NONE, &lo, &hi);
    assert_int_equal(lo, 200);
    assert_int_equal(hi, 710);
    span_with(h_end, TRACE_NONE, &lo, &hi);   /* the last time read */
    assert_int_equal(lo, 200);
    assert_int_equal(hi, 710);
}

static void test_rebase(void **state) {
    (void)state;
    trace t;
    one_of_each(&t);
    t.kernels.v[0].end = TRACE_NONE;   /* unknown stays unknown */
    t.origin = 1000000;
    assert_int_equal(trace_rebase(&t), 200);
    assert_int_equal(t.origin, 1000200);
    const trace_kernel *k = &t.kernels.v[0];
    assert_int_equal(k->issue, 300);
    assert_int_equal(k->first_block, 310);
    assert_int_equal(k->fully_dispatched, 320);
    assert_true(k->end == TRACE_NONE);
    assert_int_equal(t.blocks.v[0].start, 310);
    assert_int_equal(t.blocks.v[0].end, 330);
    assert_int_equal(t.cohorts.v[0].start, 400);
    assert_int_equal(t.cohorts.v[0].end, 410);
    assert_int_equal(t.cohorts.v[0].period, 100);
    assert_int_equal(t.copies.v[0].issue, 200);
    assert_int_equal(t.copies.v[0].start, 210);
    assert_int_equal(t.copies.v[0].end, 220);
    assert_int_equal(t.queue_events.v[0].t, 250);
    assert_int_equal(t.jobs.v[0].release, 100);
    assert_int_equal(t.jobs.v[0].start, 110);
    assert_int_equal(t.jobs.v[0].end, 120);
    assert_int_equal(t.jobs.v[0].deadline, 4800);
    assert_int_equal(t.host_calls.v[0].at, 0);
    assert_int_equal(t.host_calls.v[0].issue, 10);
    assert_int_equal(t.host_calls.v[0].end, 20);
    assert_int_equal(t.pauses.v[0].start, 315);
    assert_int_equal(t.pauses.v[0].end, 325);
    /* again: nothing left to shift */
    assert_int_equal(trace_rebase(&t), 0);
    assert_int_equal(t.origin, 1000200);
    assert_int_equal(t.copies.v[0].issue, 200);
    trace_free(&t);
    /* a trace with no time at all is left alone */
    trace_init(&t);
    t.origin = 5;
    assert_int_equal(trace_rebase(&t), 0);
    assert_int_equal(t.origin, 5);
    trace_free(&t);
}

static void test_copy_directions(void **state) {
    (void)state;
    static const char *const names[] = { "h2d", "d2h", "d2d", "h2h", "p2p", "memset", "other",
                                         "uvm_h2d", "uvm_d2h", "uvm_d2d" };
    assert_int_equal(TRACE_COPY_DIR_LAST + 1, sizeof names / sizeof *names);
    for (int i = 0; i <= TRACE_COPY_DIR_LAST; i++) {
        assert_string_equal(trace_copy_dir_name(i), names[i]);
        assert_int_equal(trace_copy_dir_parse(names[i]), i);
    }
    assert_string_equal(trace_copy_dir_name(TRACE_COPY_DIR_LAST + 1), "other");
    assert_string_equal(trace_copy_dir_name(-1), "other");
    assert_int_equal(trace_copy_dir_parse("HtoD"), -1);
    assert_int_equal(trace_copy_dir_parse(""), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_meta),
        cmocka_unit_test(test_cohorts),
        cmocka_unit_test(test_time_span),
        cmocka_unit_test(test_rebase),
        cmocka_unit_test(test_copy_directions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
