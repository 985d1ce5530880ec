/* test_jobs.c -- the bounded job queue (server/http/jobs.h, issues 16 and
 * 30) against its header and docs/api.md's job object: the bound on queued
 * and running jobs, the states and their statuses, cancelling a queued and
 * a running job, a finished job's progress, the finished jobs kept, and a
 * stop. Each job here runs a function the test holds at a gate, so every
 * state is looked at while it holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../server/http/jobs.h"

/* ---- a job the test steers ------------------------------------------------------ */

typedef struct plan {
    atomic_bool started, release;
    atomic_int freed;            /* free_arg calls */
    bool wait_cancel;            /* hold until the cancel flag, not the gate */
    long long done;              /* progress it reports */
    const char *phase;
    int status;                  /* what it answers */
    const char *error;           /* NULL: a result {"ok": true} */
} plan;

static void sleep_ms(int ms) {
    struct timespec ts = { 0, (long)ms * 1000000L };
    nanosleep(&ts, NULL);
}

static void run_plan(void *arg, job_ctl *ctl, int *status, json_t **result, char *err,
                     size_t errlen) {
    plan *p = arg;
    atomic_store(&ctl->done, p->done);
    atomic_store(&ctl->phase, p->phase);
    atomic_store(&p->started, true);
    while (!atomic_load(&p->release) && !(p->wait_cancel && atomic_load(&ctl->cancel)))
        sleep_ms(1);
    *status = p->status;
    if (p->error) snprintf(err, errlen, "%s", p->error);
    else if (p->status < 400) *result = json_pack("{s:b}", "ok", 1);
}

static void count_free(void *arg) { atomic_fetch_add(&((plan *)arg)->freed, 1); }

static void wait_started(plan *p) {
    for (int i = 0; i < 10000 && !atomic_load(&p->started); i++) sleep_ms(1);
    assert_true(atomic_load(&p->started));
}

/* The job's status object once it has left "queued" and "running". */
static json_t *wait_finished(job_queue *j, const char *id) {
    for (int i = 0; i < 10000; i++) {
        json_t *o = jobs_status(j, id);
        assert_non_null(o);
        const char *st = json_string_value(json_object_get(o, "state"));
        if (strcmp(st, "queued") != 0 && strcmp(st, "running") != 0) return o;
        json_decref(o);
        sleep_ms(1);
    }
    fail_msg("job %s did not finish", id);
    return NULL;
}

/* An ended job's state, status and error line (NULL: none) */
static void expect_ended(const json_t *o, const char *state, int status, const char *error) {
    assert_string_equal(json_string_value(json_object_get(o, "state")), state);
    assert_int_equal(json_integer_value(json_object_get(o, "status")), status);
    if (error) assert_string_equal(json_string_value(json_object_get(o, "error")), error);
    else assert_true(json_is_null(json_object_get(o, "error")));
}

static const char *state_of(job_queue *j, const char *id) {
    static char buf[16];
    json_t *o = jobs_status(j, id);
    assert_non_null(o);
    snprintf(buf, sizeof buf, "%s", json_string_value(json_object_get(o, "state")));
    json_decref(o);
    return buf;
}

/* ---- the bound, the states, cancelling a queued job ---------------------------- */

static void test_queue(void **state) {
    (void)state;
    job_queue *j;
    char err[128], a[JOBS_ID_SIZE], b[JOBS_ID_SIZE], c[JOBS_ID_SIZE];
    assert_int_equal(jobs_start(1, 2, &j, err, sizeof err), 0);
    plan pa = { .done = 3, .phase = "parsing", .status = 201 }, pb = { .status = 201 },
         pc = { .status = 201 };
    assert_int_equal(jobs_submit(j, "simulation", run_plan, &pa, count_free, 10, a), 0);
    assert_int_equal(strlen(a), JOBS_ID_SIZE - 1);
    wait_started(&pa);
    assert_int_equal(jobs_submit(j, "import", run_plan, &pb, count_free, 0, b), 0);
    assert_string_not_equal(a, b);
    /* queued and running together at most max_queue: a third is refused,
     * and its argument stays the caller's */
    assert_int_equal(jobs_submit(j, "import", run_plan, &pc, count_free, 1, c), -1);
    assert_int_equal(atomic_load(&pc.freed), 0);
    assert_int_equal(jobs_pending(j), 2);

    /* a running job: its progress, and its phase while it runs */
    json_t *o = jobs_status(j, a);
    assert_string_equal(json_string_value(json_object_get(o, "kind")), "simulation");
    assert_string_equal(json_string_value(json_object_get(o, "state")), "running");
    assert_int_equal(json_integer_value(json_object_get(o, "done")), 3);
    assert_int_equal(json_integer_value(json_object_get(o, "total")), 10);
    assert_true(json_real_value(json_object_get(o, "progress")) == 0.3);
    assert_string_equal(json_string_value(json_object_get(o, "phase")), "parsing");
    assert_null(json_object_get(o, "status"));
    json_decref(o);
    /* a queued one: a total of 0 counts as 1, nothing done */
    o = jobs_status(j, b);
    assert_string_equal(json_string_value(json_object_get(o, "state")), "queued");
    assert_int_equal(json_integer_value(json_object_get(o, "total")), 1);
    assert_true(json_real_value(json_object_get(o, "progress")) == 0.0);
    json_decref(o);

    /* cancelled while queued: it never starts (409) */
    assert_int_equal(jobs_cancel(j, b), 0);
    o = jobs_status(j, b);
    expect_ended(o, "aborted", 409, "cancelled before it began; nothing was stored");
    assert_true(json_is_null(json_object_get(o, "result")));
    json_decref(o);
    assert_int_equal(atomic_load(&pb.freed), 1);
    assert_false(atomic_load(&pb.started));
    assert_int_equal(jobs_pending(j), 1);
    assert_int_equal(jobs_cancel(j, b), 1);          /* finished already */
    assert_int_equal(jobs_cancel(j, "nosuchjob0000000"), -1);
    assert_null(jobs_status(j, "nosuchjob0000000"));
    /* room again: the queue takes one more */
    assert_int_equal(jobs_submit(j, "import", run_plan, &pc, count_free, 1, c), 0);

    /* a job that did its work did all of it: progress 1, done = total,
     * its result kept, no phase */
    atomic_store(&pa.release, true);
    o = wait_finished(j, a);
    expect_ended(o, "done", 201, NULL);
    assert_int_equal(json_integer_value(json_object_get(o, "done")), 10);
    assert_true(json_real_value(json_object_get(o, "progress")) == 1.0);
    assert_true(json_is_true(json_object_get(json_object_get(o, "result"), "ok")));
    assert_null(json_object_get(o, "phase"));
    json_decref(o);
    assert_int_equal(atomic_load(&pa.freed), 1);
    atomic_store(&pc.release, true);
    json_decref(wait_finished(j, c));
    jobs_free(j);
    assert_int_equal(atomic_load(&pa.freed), 1);     /* each argument freed once */
    assert_int_equal(atomic_load(&pb.freed), 1);
    assert_int_equal(atomic_load(&pc.freed), 1);
}

/* ---- how a job ends -------------------------------------------------------------- */

static json_t *run_to_end(job_queue *j, plan *p, long long total) {
    char id[JOBS_ID_SIZE];
    atomic_store(&p->release, true);
    assert_int_equal(jobs_submit(j, "simulation", run_plan, p, NULL, total, id), 0);
    return wait_finished(j, id);
}

static void test_endings(void **state) {
    (void)state;
    job_queue *j;
    char err[128];
    assert_int_equal(jobs_start(0, 0, &j, err, sizeof err), 0);   /* 1 worker, 1 job */
    /* counts past an estimated total: the total grows to them */
    plan p = { .done = 15, .status = 200 };
    json_t *o = run_to_end(j, &p, 10);
    assert_int_equal(json_integer_value(json_object_get(o, "total")), 15);
    assert_int_equal(json_integer_value(json_object_get(o, "done")), 15);
    json_decref(o);
    /* a refusal: failed, with its status and line, its counts as it left them */
    p = (plan){ .done = 2, .status = 400, .error = "ops[0]: bad" };
    o = run_to_end(j, &p, 10);
    expect_ended(o, "failed", 400, "ops[0]: bad");
    assert_int_equal(json_integer_value(json_object_get(o, "done")), 2);
    assert_true(json_real_value(json_object_get(o, "progress")) == 0.2);
    json_decref(o);
    /* neither result nor message */
    p = (plan){ .status = 500, .error = "" };
    o = run_to_end(j, &p, 1);
    assert_string_equal(json_string_value(json_object_get(o, "error")),
                        "the job ended without a result");
    assert_int_equal(json_integer_value(json_object_get(o, "status")), 500);
    json_decref(o);
    /* a full disk answers 507, as a request would (http_set_error) */
    p = (plan){ .status = 500, .error = "storing: database or disk is full" };
    o = run_to_end(j, &p, 1);
    assert_int_equal(json_integer_value(json_object_get(o, "status")), 507);
    json_decref(o);
    /* no absolute path in an answer (http_scrub_paths) */
    p = (plan){ .status = 500, .error = "/var/lib/schedlab/run.db: locked" };
    o = run_to_end(j, &p, 1);
    assert_string_equal(json_string_value(json_object_get(o, "error")), "run.db: locked");
    json_decref(o);
    jobs_free(j);
}

/* Cancelled while it runs: its cancel flag is set, and it ends "aborted"
 * with docs/api.md's 409 whatever its work said of the stop. */
static void test_cancel_running(void **state) {
    (void)state;
    job_queue *j;
    char err[128], id[JOBS_ID_SIZE];
    assert_int_equal(jobs_start(1, 4, &j, err, sizeof err), 0);
    plan p = { .wait_cancel = true, .status = 503, .error = "aborted: the server is stopping" };
    assert_int_equal(jobs_submit(j, "import", run_plan, &p, count_free, 5, id), 0);
    wait_started(&p);
    assert_int_equal(jobs_cancel(j, id), 0);
    json_t *o = wait_finished(j, id);
    expect_ended(o, "aborted", 409, "cancelled; nothing was stored");
    json_decref(o);
    assert_int_equal(atomic_load(&p.freed), 1);
    /* one cancelled that still did its work (the flag came after its last
     * look) ends as it answered: done, with its result, progress 1 though
     * it counted 2 of 5 */
    plan q = { .wait_cancel = true, .done = 2, .status = 201 };
    assert_int_equal(jobs_submit(j, "import", run_plan, &q, NULL, 5, id), 0);
    wait_started(&q);
    assert_int_equal(jobs_cancel(j, id), 0);
    o = wait_finished(j, id);
    expect_ended(o, "done", 201, NULL);
    assert_true(json_real_value(json_object_get(o, "progress")) == 1.0);
    json_decref(o);
    jobs_free(j);
}

/* The last JOBS_KEEP jobs that ended are kept (docs/api.md: "the last
 * 256 ended ones"), a running one always: a long job submitted before the
 * others keeps its answer when it ends. */
static void test_keep(void **state) {
    (void)state;
    job_queue *j;
    char err[128], first[JOBS_ID_SIZE], second[JOBS_ID_SIZE], last[JOBS_ID_SIZE],
        held[JOBS_ID_SIZE];
    assert_int_equal(jobs_start(2, JOBS_KEEP + 8, &j, err, sizeof err), 0);
    plan hold = { .done = 3, .status = 200 };
    assert_int_equal(jobs_submit(j, "simulation", run_plan, &hold, NULL, 2, held), 0);
    wait_started(&hold);
    /* counts past the estimate while it runs: progress stays at 1 */
    json_t *o = jobs_status(j, held);
    assert_int_equal(json_integer_value(json_object_get(o, "done")), 3);
    assert_true(json_real_value(json_object_get(o, "progress")) == 1.0);
    json_decref(o);
    static plan quick[JOBS_KEEP + 1];
    for (int i = 0; i <= JOBS_KEEP; i++) {
        quick[i] = (plan){ .status = 200 };
        atomic_store(&quick[i].release, true);
        char id[JOBS_ID_SIZE];
        assert_int_equal(jobs_submit(j, "simulation", run_plan, &quick[i], NULL, 1, id), 0);
        json_decref(wait_finished(j, id));
        if (i == 0) memcpy(first, id, sizeof id);
        if (i == 1) memcpy(second, id, sizeof id);
        memcpy(last, id, sizeof id);
    }
    /* JOBS_KEEP + 1 finished: the first is gone, the second and last kept */
    assert_null(jobs_status(j, first));
    o = jobs_status(j, second);
    assert_non_null(o);
    json_decref(o);
    o = jobs_status(j, last);
    assert_non_null(o);
    json_decref(o);
    assert_string_equal(state_of(j, held), "running");
    atomic_store(&hold.release, true);
    json_decref(wait_finished(j, held));            /* ended last: kept */
    assert_null(jobs_status(j, second));            /* ended first of those left */
    o = jobs_status(j, last);
    assert_non_null(o);
    json_decref(o);
    jobs_free(j);
}

/* A stop: new jobs refused, queued ones dropped (503), running ones given
 * the grace and then their cancel flag. */
static void test_stop(void **state) {
    (void)state;
    job_queue *j;
    char err[128], run_id[JOBS_ID_SIZE], queued_id[JOBS_ID_SIZE], id[JOBS_ID_SIZE];
    assert_int_equal(jobs_start(1, 4, &j, err, sizeof err), 0);
    plan running = { .wait_cancel = true, .status = 503, .error = "aborted: stopping" },
         queued = { .status = 200 }, late = { .status = 200 };
    assert_int_equal(jobs_submit(j, "import", run_plan, &running, count_free, 1, run_id), 0);
    wait_started(&running);
    assert_int_equal(jobs_submit(j, "import", run_plan, &queued, count_free, 1, queued_id), 0);
    jobs_stop(j, 20);
    assert_int_equal(jobs_submit(j, "import", run_plan, &late, count_free, 1, id), -2);
    assert_int_equal(atomic_load(&late.freed), 0);
    json_t *o = jobs_status(j, queued_id);
    expect_ended(o, "aborted", 503,
                 "aborted: the server stopped before the job began; nothing was stored");
    json_decref(o);
    assert_false(atomic_load(&queued.started));
    assert_int_equal(atomic_load(&queued.freed), 1);
    /* the running one saw its cancel flag after the grace: aborted with
     * what it said */
    o = jobs_status(j, run_id);
    assert_string_equal(json_string_value(json_object_get(o, "state")), "aborted");
    assert_int_equal(json_integer_value(json_object_get(o, "status")), 503);
    json_decref(o);
    assert_int_equal(jobs_pending(j), 0);
    jobs_free(j);
    assert_int_equal(atomic_load(&running.freed), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue),
        cmocka_unit_test(test_endings),
        cmocka_unit_test(test_cancel_running),
        cmocka_unit_test(test_keep),
        cmocka_unit_test(test_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
