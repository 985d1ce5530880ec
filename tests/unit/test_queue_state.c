/* test_queue_state.c -- simcore/queue_state.c, the one replay of queue
 * events into queue contents (used by the database's /queues and by the
 * simulator tests' queue_at): hand-built event lists with every case of the
 * semantics, and the TX2 paper's Fig. 3 experiment (Amert et al., RTSS'17,
 * Table 1 / Figs. 3-4) with the exact content of every queue at chosen
 * instants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../simcore/queue_state.h"
#include "test_sim_util.h"

/* Every queue of s as "name=item,item;" in s's order (first event first). */
static const char *state_text(const sim_qstate *s, const trace *t, char *out, size_t outlen) {
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < s->n; i++) {
        const sim_qstate_queue *q = &s->q[i];
        len += (size_t)snprintf(out + len, outlen - len, "%s=", trace_str_get(t, q->name));
        for (size_t j = 0; j < sim_qstate_len(q); j++)
            len += (size_t)snprintf(out + len, outlen - len, "%s%s", j ? "," : "",
                                    trace_str_get(t, sim_qstate_items(q)[j]));
        len += (size_t)snprintf(out + len, outlen - len, ";");
        assert_true(len < outlen);
    }
    return out;
}

/* The state of every queue of trace t at `at`. */
static const char *state_at(const trace *t, int64_t at, char *out, size_t outlen) {
    sim_qstate s;
    sim_qstate_init(&s, false);
    assert_int_equal(sim_qstate_replay(&s, t, at), 0);
    assert_int_equal(s.stray, 0);
    state_text(&s, t, out, outlen);
    sim_qstate_free(&s);
    return out;
}

/* One queue's length series as "name:t=len,t=len;", appended to out. */
static void queue_series(const sim_qstate_queue *q, const trace *t, char *out, size_t outlen) {
    size_t len = strlen(out);
    len += (size_t)snprintf(out + len, outlen - len, "%s:", trace_str_get(t, q->name));
    for (size_t j = 0; j < q->np; j++)
        len += (size_t)snprintf(out + len, outlen - len, "%s%lld=%lld", j ? "," : "",
                                (long long)q->t[j], (long long)q->len[j]);
    len += (size_t)snprintf(out + len, outlen - len, ";");
    assert_true(len < outlen);
}

/* Every queue's series, in s's order. */
static const char *series_text(const sim_qstate *s, const trace *t, char *out, size_t outlen) {
    out[0] = '\0';
    for (size_t i = 0; i < s->n; i++) queue_series(&s->q[i], t, out, outlen);
    return out;
}

/* ---- the semantics, one event at a time ------------------------------------ */

static void test_apply(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    trace_str s1 = trace_intern(&t, "stream:P0/S1"), ee = trace_intern(&t, "ee:P0:none");
    trace_str k1 = trace_intern(&t, "K1"), k2 = trace_intern(&t, "K2"), k3 = trace_intern(&t, "K3");
    sim_qstate s;
    char buf[256];
    sim_qstate_init(&s, true);
    assert_int_equal(s.n, 0);
    assert_null(sim_qstate_find(&s, s1));

    /* enqueues append at the tail; queues appear in order of first event */
    assert_int_equal(sim_qstate_apply(&s, 0, s1, k1, TRACE_ENQUEUE), 0);
    assert_int_equal(sim_qstate_apply(&s, 0, s1, k2, TRACE_ENQUEUE), 0);
    assert_int_equal(sim_qstate_apply(&s, 0, ee, k1, TRACE_ENQUEUE), 0);
    assert_int_equal(sim_qstate_apply(&s, 5, s1, k3, TRACE_ENQUEUE), 0);
    assert_string_equal(state_text(&s, &t, buf, sizeof buf),
                        "stream:P0/S1=K1,K2,K3;ee:P0:none=K1;");

    /* a dequeue takes the matching entry, also from the middle */
    assert_int_equal(sim_qstate_apply(&s, 10, s1, k2, TRACE_DEQUEUE), 0);
    assert_string_equal(state_text(&s, &t, buf, sizeof buf), "stream:P0/S1=K1,K3;ee:P0:none=K1;");
    /* the head */
    assert_int_equal(sim_qstate_apply(&s, 10, s1, k1, TRACE_DEQUEUE), 0);
    const sim_qstate_queue *q = sim_qstate_find(&s, s1);
    assert_non_null(q);
    assert_int_equal(sim_qstate_len(q), 1);
    assert_int_equal(sim_qstate_items(q)[0], k3);

    /* the same item twice: a dequeue takes the one nearest the head */
    assert_int_equal(sim_qstate_apply(&s, 20, ee, k2, TRACE_ENQUEUE), 0);
    assert_int_equal(sim_qstate_apply(&s, 20, ee, k1, TRACE_ENQUEUE), 0);
    assert_int_equal(sim_qstate_apply(&s, 30, ee, k1, TRACE_DEQUEUE), 0);
    assert_string_equal(state_text(&s, &t, buf, sizeof buf), "stream:P0/S1=K3;ee:P0:none=K2,K1;");

    /* a dequeue of what the queue does not hold changes nothing, is counted,
     * and still names the queue (a trace that starts mid-way) */
    trace_str ce = trace_intern(&t, "ce"), c1 = trace_intern(&t, "C1");
    assert_int_equal(sim_qstate_apply(&s, 40, s1, k1, TRACE_DEQUEUE), 0);
    assert_int_equal(sim_qstate_apply(&s, 40, ce, c1, TRACE_DEQUEUE), 0);
    assert_int_equal(s.stray, 2);
    assert_string_equal(state_text(&s, &t, buf, sizeof buf),
                        "stream:P0/S1=K3;ee:P0:none=K2,K1;ce=;");
    assert_false(s.oom);

    /* one series point per distinct time: the length after its last event */
    assert_string_equal(series_text(&s, &t, buf, sizeof buf),
                        "stream:P0/S1:0=2,5=3,10=1,40=1;ee:P0:none:0=1,20=3,30=2;ce:40=0;");

    /* a queue that fills and drains many times over stays exact (the head
     * index slides down instead of the array growing) */
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(sim_qstate_apply(&s, 50 + i, ce, i % 2 ? c1 : k1, TRACE_ENQUEUE), 0);
        if (i % 3 == 2) {
            assert_int_equal(sim_qstate_apply(&s, 50 + i, ce, k1, TRACE_DEQUEUE), 0);
            assert_int_equal(sim_qstate_apply(&s, 50 + i, ce, c1, TRACE_DEQUEUE), 0);
        }
    }
    q = sim_qstate_find(&s, ce);
    assert_int_equal(sim_qstate_len(q), 1000 - 2 * 333);
    assert_int_equal(q->np, 1 + 1000);
    assert_int_equal(q->len[q->np - 1], 1000 - 2 * 333);

    sim_qstate_free(&s);
    assert_int_equal(s.n, 0);
    assert_true(s.series);

    /* distinct items through a queue that slides many times: the contents,
     * head first, against a plain list kept here (enqueue appends, dequeue
     * takes the first equal one); without a series, no points */
    sim_qstate_init(&s, false);
    trace_str ids[600], ref[600];
    size_t nref = 0;
    for (int i = 0; i < 600; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i);
        ids[i] = trace_intern(&t, name);
    }
    for (int i = 0; i < 600; i++) {
        assert_int_equal(sim_qstate_apply(&s, i, ce, ids[i], TRACE_ENQUEUE), 0);
        ref[nref++] = ids[i];
        if (i % 5 == 4) {   /* the oldest two, then one from the middle */
            trace_str out[3] = {ref[0], ref[1], ref[nref / 2]};
            for (int j = 0; j < 3; j++) {
                assert_int_equal(sim_qstate_apply(&s, i, ce, out[j], TRACE_DEQUEUE), 0);
                size_t at = 0;
                while (ref[at] != out[j]) at++;
                memmove(ref + at, ref + at + 1, (nref - at - 1) * sizeof *ref);
                nref--;
            }
        }
    }
    q = sim_qstate_find(&s, ce);
    assert_int_equal(sim_qstate_len(q), nref);
    for (size_t i = 0; i < nref; i++) assert_int_equal(sim_qstate_items(q)[i], ref[i]);
    assert_int_equal(q->np, 0);
    assert_int_equal(s.stray, 0);
    sim_qstate_free(&s);
    trace_free(&t);
}

/* ---- a whole trace ---------------------------------------------------------- */

static void test_replay_order(void **state) {
    (void)state;
    trace t, u;
    trace_init(&t);
    trace_init(&u);
    /* the same events, t in time order, u shuffled (ties keep their order) */
    static const struct { int64_t t; const char *q, *item; int op; } ev[] = {
        {0, "S1", "K1", TRACE_ENQUEUE},  {0, "S1", "K2", TRACE_ENQUEUE},
        {0, "S1", "K1", TRACE_DEQUEUE},  {0, "EE", "K1", TRACE_ENQUEUE},
        {10, "S1", "C1", TRACE_ENQUEUE}, {20, "EE", "K1", TRACE_DEQUEUE},
        {30, "S1", "K2", TRACE_DEQUEUE}, {30, "S1", "K2", TRACE_ENQUEUE},
    };
    static const size_t shuffled[] = {4, 6, 0, 5, 1, 7, 2, 3};
    size_t n = sizeof ev / sizeof ev[0];
    for (size_t i = 0; i < n; i++) {
        trace_add_queue_event(&t, ev[i].t, trace_intern(&t, ev[i].q), trace_intern(&t, ev[i].item),
                              (trace_queue_op)ev[i].op);
        size_t j = shuffled[i];
        trace_add_queue_event(&u, ev[j].t, trace_intern(&u, ev[j].q), trace_intern(&u, ev[j].item),
                              (trace_queue_op)ev[j].op);
    }
    assert_false(t.oom || u.oom);
    char a[256], b[256];
    static const struct { int64_t at; const char *want; } cases[] = {
        {-1, ""},                                /* before every event: no queue yet */
        {0, "S1=K2;EE=K1;"},                     /* events at `at` count */
        {9, "S1=K2;EE=K1;"},
        {10, "S1=K2,C1;EE=K1;"},
        {25, "S1=K2,C1;EE=;"},                   /* an emptied queue stays, empty */
        {30, "S1=C1,K2;EE=;"},                   /* ties in recorded order: out, then in */
        {INT64_MAX, "S1=C1,K2;EE=;"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_string_equal(state_at(&t, cases[i].at, a, sizeof a), cases[i].want);
        assert_string_equal(state_at(&u, cases[i].at, b, sizeof b), cases[i].want);
    }
    /* the series too, in both orders */
    sim_qstate s;
    sim_qstate_init(&s, true);
    assert_int_equal(sim_qstate_replay(&s, &u, INT64_MAX), 0);
    assert_string_equal(series_text(&s, &u, a, sizeof a), "S1:0=1,10=2,30=2;EE:0=1,20=0;");
    sim_qstate_free(&s);
    /* replay adds to what the state holds: two halves make the whole */
    sim_qstate_init(&s, false);
    assert_int_equal(sim_qstate_replay(&s, &t, 10), 0);
    for (size_t i = 0; i < t.queue_events.n; i++) {
        const trace_queue_event *e = &t.queue_events.v[i];
        if (e->t > 10) sim_qstate_apply(&s, e->t, e->queue, e->item, e->event);
    }
    assert_string_equal(state_text(&s, &t, a, sizeof a), "S1=C1,K2;EE=;");
    sim_qstate_free(&s);
    trace_free(&t);
    trace_free(&u);
}

/* ---- TX2 Table 1 / Fig. 3 ---------------------------------------------------
 *
 * The experiment of test_sim_rules.c's test_tx2_fig3 (same streams, ops and
 * derivation; see there): one address space, streams S1, S2, S3, blocks of
 * 1 s, 256MB copies of 0.2 s, most-room on the TX2's 2 SMs. Here the
 * content of EVERY queue at Fig. 4's instants (a)-(e), 1.1, 2.1, 3.0, 3.32
 * and 4.0 s on Fig. 3's axis, TX2_FIG3_D = 0.3 s later than Table 1's times
 * (test_sim_util.h), as the paper's text describes each inset:
 *
 *  (a) 0.8 s  S1 holds all six of its ops (G1: K1 heads it and runs). The EE
 *         queue holds K1 (not yet fully dispatched, G3), K4 (X1 keeps it
 *         off the SMs) and K5. S2: K4; S3: K5 then C5o. No copy has reached
 *         the CE queue, so it does not exist yet.
 *  (b) 1.8 s  K1's last blocks and all of K4's were placed at 1 s: both left
 *         the EE queue (G3); K5 waits on shared memory (R3). K1 and K4 still
 *         run, so they still head S1 and S2 (G4).
 *  (c) 2.7 s  K1 and K4 ended at 2 s (G4): K2 heads S1, went to the EE queue
 *         and was placed at once, as K5 was; S2 is empty; K5 still runs.
 *  (d) 3.02 s  K5 and K2 ended at 3 s: C5o went to the CE queue and started
 *         (C1-C3: the copy engine serves one copy at a time), C2o waits
 *         behind it. K6 (issued at 2.8 s) runs, C6o behind it.
 *  (e) 3.7 s  C5o, C2o and C3i are done (3.2, 3.4, 3.6 s): K3 heads S1 and
 *         was placed at 3.6 s. K6 still runs, C6o behind it in S2: the CE
 *         queue is empty.
 *  6 s    everything is done: every queue is empty. */
static void test_tx2_fig3_queues(void **state) {
    (void)state;
    tb b;
    trace t;
    tb_fig3(&b);
    tb_run(&b, &t);
    char buf[512];
    assert_string_equal(state_at(&t, 1100 * MS - TX2_FIG3_D, buf, sizeof buf),
                        "stream:P0/S1=K1,K2,C2o,C3i,K3,C3o;ee:P0:low=K1,K4,K5;"
                        "stream:P0/S2=K4;stream:P0/S3=K5,C5o;");
    assert_string_equal(state_at(&t, 2100 * MS - TX2_FIG3_D, buf, sizeof buf),
                        "stream:P0/S1=K1,K2,C2o,C3i,K3,C3o;ee:P0:low=K5;"
                        "stream:P0/S2=K4;stream:P0/S3=K5,C5o;");
    assert_string_equal(state_at(&t, 3000 * MS - TX2_FIG3_D, buf, sizeof buf),
                        "stream:P0/S1=K2,C2o,C3i,K3,C3o;ee:P0:low=;"
                        "stream:P0/S2=;stream:P0/S3=K5,C5o;");
    assert_string_equal(state_at(&t, 3320 * MS - TX2_FIG3_D, buf, sizeof buf),
                        "stream:P0/S1=C2o,C3i,K3,C3o;ee:P0:low=;"
                        "stream:P0/S2=K6,C6o;stream:P0/S3=C5o;ce=C2o;");
    assert_string_equal(state_at(&t, 4000 * MS - TX2_FIG3_D, buf, sizeof buf),
                        "stream:P0/S1=K3,C3o;ee:P0:low=;"
                        "stream:P0/S2=K6,C6o;stream:P0/S3=;ce=;");
    assert_string_equal(state_at(&t, 6 * SEC, buf, sizeof buf),
                        "stream:P0/S1=;ee:P0:low=;stream:P0/S2=;stream:P0/S3=;ce=;");

    /* the lengths over time of the EE and CE queues (ns): the EE queue
     * fills to 3 by 0.4 s, K1 and K4 leave at 1 s, K2 passes through at 2 s
     * (in behind K5, out right after it), K6 at 2.8 s and K3 at 3.6 s
     * without waiting; the CE queue holds C2o from 3 s to 3.2 s, every
     * other copy starting as it arrives. */
    sim_qstate s;
    sim_qstate_init(&s, true);
    assert_int_equal(sim_qstate_replay(&s, &t, INT64_MAX), 0);
    assert_int_equal(s.stray, 0);
    assert_int_equal(s.n, 5);
    buf[0] = '\0';
    queue_series(sim_qstate_find(&s, trace_intern(&t, "ee:P0:low")), &t, buf, sizeof buf);
    assert_string_equal(buf, "ee:P0:low:0=1,200000000=2,400000000=3,1000000000=1,"
                             "2000000000=0,2800000000=0,3600000000=0;");
    buf[0] = '\0';
    queue_series(sim_qstate_find(&s, trace_intern(&t, "ce")), &t, buf, sizeof buf);
    assert_string_equal(buf, "ce:3000000000=1,3200000000=0,3400000000=0,3800000000=0,"
                             "4600000000=0;");
    sim_qstate_free(&s);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_replay_order),
        cmocka_unit_test(test_tx2_fig3_queues),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
