/* test_host_gaps.c -- work the host held back (server/app/host_gaps.c), by
 * its definition (host_gaps.h, issue 28 point 4): an op that started more
 * than max(1 ms, 10 launch latencies) after it was ready -- its call, or
 * its stream's previous op's end if later -- with nothing of its kind busy
 * in between (a kernel: no kernel anywhere; a copy: no copy on its engine
 * class, simcore/ce.h's: DtoH on one engine, HtoD, DtoD and the rest on
 * the other; one class for all on a device of one engine). Ops
 * without a call, and copies no engine runs (memsets), are never held.
 * A stream is a (process, stream) pair. The runs are written by hand;
 * the real case (the RTX 4060 Ti's 17.1-ms copy) is test_replay_traces'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../server/app/host_gaps.h"

#define MS 1000000

static size_t kern(trace *t, const char *process, const char *stream, int64_t issue,
                   int64_t start, int64_t end) {
    trace_kernel *k = trace_add_kernel(t);
    assert_non_null(k);
    k->process = trace_intern(t, process);
    k->stream = trace_intern(t, stream);
    k->issue = issue;
    k->first_block = start;
    k->end = end;
    return t->kernels.n - 1;
}

static size_t copy(trace *t, const char *stream, int32_t dir, int64_t issue, int64_t start,
                   int64_t end) {
    trace_copy *c = trace_add_copy(t);
    assert_non_null(c);
    c->process = trace_intern(t, "P");
    c->stream = trace_intern(t, stream);
    c->direction = dir;
    c->issue = issue;
    c->start = start;
    c->end = end;
    return t->copies.n - 1;
}

typedef struct want {
    size_t id;
    int64_t ready, start;
} want;

/* host_gaps_find(m, engines, lat) finds exactly the n gaps of w (any order) */
static void expect(const trace *m, int engines, int64_t lat, const want *w, size_t n) {
    host_gap *g = NULL;
    size_t ng = 0;
    assert_int_equal(host_gaps_find(m, engines, lat, &g, &ng), 0);
    for (size_t i = 0; i < ng; i++)
        printf("  engines %d, latency %lld ns: op %zu ready %lld, started %lld\n", engines,
               (long long)lat, g[i].id, (long long)g[i].ready, (long long)g[i].start);
    assert_int_equal(ng, n);
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < ng && g[j].id != w[i].id) j++;
        if (j == ng) fail_msg("op %zu is not among the gaps", w[i].id);
        assert_int_equal(g[j].ready, w[i].ready);
        assert_int_equal(g[j].start, w[i].start);
    }
    free(g);
}

static void test_held_ops(void **state) {
    (void)state;
    trace m;
    trace_init(&m);
    /* stream 1: a prompt kernel, then one 2 ms after the first ended: held
     * (ready at the first's end, 200, not its call at 150) */
    kern(&m, "P", "1", 0, 100, 200);
    size_t k1 = kern(&m, "P", "1", 150, 2 * MS, 2 * MS + 100000);
    /* stream 2 waited 2.5 ms, but stream 3's kernel ran meanwhile: the
     * device was busy, not the host */
    kern(&m, "P", "2", 2500000, 5 * MS, 5 * MS + 100000);
    kern(&m, "P", "3", 3900000, 4 * MS, 4600000);
    /* stream 4: exactly 1 ms after its call is not more than 1 ms; the
     * next, 1.1 ms after the first ended (its call came earlier), is */
    size_t k5 = kern(&m, "P", "4", 6100000, 8200000, 8300000);   /* listed first */
    kern(&m, "P", "4", 6 * MS, 7 * MS, 7100000);
    /* another process's stream "4" is another stream: its kernel, ending
     * at 7.09 ms, is not the one k5 waited for */
    kern(&m, "Q", "4", 7050000, 7060000, 7090000);
    /* no call in the trace: never held, even 1.5 ms after its stream's
     * previous kernel */
    kern(&m, "P", "5", 29 * MS, 29100000, 29500000);
    kern(&m, "P", "5", TRACE_NONE, 31 * MS, 31100000);
    /* a kernel that runs while the copies below wait (copies wait for
     * copies only) */
    kern(&m, "P", "10", 10100000, 10200000, 11800000);
    /* 2.5 ms, while only a copy ran (kernels wait for kernels only) */
    size_t k8 = kern(&m, "P", "11", 20 * MS, 22500000, 23 * MS);
    copy(&m, "12", TRACE_COPY_H2D, 20900000, 21 * MS, 21500000);
    /* copies: an HtoD held 2 ms while only a DtoH copied (the other
     * engine); a DtoH that waited while another DtoH copied; a memset */
    size_t c0 = copy(&m, "1c", TRACE_COPY_H2D, 10 * MS, 12 * MS, 12500000);
    copy(&m, "6", TRACE_COPY_D2H, 10900000, 11 * MS, 11500000);
    copy(&m, "7", TRACE_COPY_D2H, 10 * MS, 12 * MS, 12500000);
    copy(&m, "8", TRACE_COPY_D2H, 10900000, 11 * MS, 11500000);
    copy(&m, "9", TRACE_COPY_MEMSET, 13 * MS, 15 * MS, 15100000);
    /* a DtoD copy shares the HtoD engine (simcore/ce.h: engine 0 for h2d,
     * d2d and the rest, engine 1 for d2h): an HtoD that waited 2 ms while
     * a DtoD copied is no gap */
    copy(&m, "13", TRACE_COPY_H2D, 40 * MS, 42 * MS, 42500000);
    copy(&m, "14", TRACE_COPY_D2D, 40900000, 41 * MS, 41500000);
    size_t nk = m.kernels.n;

    /* launch latency 5 us: the threshold is 1 ms */
    const want all[] = {{k1, 200, 2 * MS},
                        {k5, 7100000, 8200000},
                        {k8, 20 * MS, 22500000},
                        {nk + c0, 10 * MS, 12 * MS}};
    expect(&m, 2, 5000, all, 4);
    /* one engine for both directions: the DtoH copies kept it busy */
    expect(&m, 1, 5000, all, 3);
    /* launch latency 0.2 ms: the threshold is 2 ms, which only k8 passes
     * (k1's 1.9998 ms and the copy's 2 ms do not) */
    expect(&m, 2, 200000, &all[2], 1);
    trace_free(&m);

    trace_init(&m);
    host_gap *g = (host_gap *)&m;   /* set to NULL when there are none */
    size_t ng = 1;
    assert_int_equal(host_gaps_find(&m, 2, 5000, &g, &ng), 0);
    assert_null(g);
    assert_int_equal(ng, 0);
    trace_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_held_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
