/* jobs.c -- the bounded job queue. See jobs.h. */
#include "jobs.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "http.h"
#include "../../db/db.h"

typedef enum { J_QUEUED, J_RUNNING, J_DONE, J_FAILED, J_ABORTED } job_state;
static const char *const state_names[] = {"queued", "running", "done", "failed", "aborted"};

typedef struct job {
    char id[JOBS_ID_SIZE];
    const char *kind;
    job_state state;
    job_ctl ctl;
    job_fn fn;
    void *arg;
    void (*free_arg)(void *);
    int status;
    json_t *result;
    char *error;
    bool user_cancel;            /* DELETE /api/jobs/{id} while it ran */
    unsigned long long ended;    /* its place in the order jobs ended (1, 2, ...) */
    struct job *next;            /* the queue, or the list of all job_queue */
    struct job *all_next;
} job;

struct job_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv, idle;
    job *head, *tail;            /* queued, in order */
    job *all;                    /* every job known, newest first */
    size_t queued, running, finished, max_queue;
    unsigned long long ends;     /* jobs ended so far */
    bool stopping;
    pthread_t *threads;
    unsigned nthreads;
};

static void job_free(job *jb) {
    if (jb->arg && jb->free_arg) jb->free_arg(jb->arg);
    json_decref(jb->result);
    free(jb->error);
    free(jb);
}

/* Forget the jobs that ended first past JOBS_KEEP ended ones (mu held):
 * docs/api.md keeps "the last 256 ended ones", so a long job submitted
 * before many short ones keeps its answer when it ends. */
static void forget_old(job_queue *j) {
    while (j->finished > JOBS_KEEP) {
        job **pp = &j->all, **oldest = NULL;
        for (; *pp; pp = &(*pp)->all_next)
            if ((*pp)->state >= J_DONE && (!oldest || (*pp)->ended < (*oldest)->ended))
                oldest = pp;
        if (!oldest) return;
        job *o = *oldest;
        *oldest = o->all_next;
        job_free(o);
        j->finished--;
    }
}

static void finish(job_queue *j, job *jb, job_state st) {
    jb->state = st;
    jb->ended = ++j->ends;
    if (jb->arg && jb->free_arg) jb->free_arg(jb->arg);
    jb->arg = NULL;
    j->finished++;
    forget_old(j);
}

static void *worker(void *p) {
    job_queue *j = p;
    pthread_mutex_lock(&j->mu);
    for (;;) {
        while (!j->head && !j->stopping) pthread_cond_wait(&j->cv, &j->mu);
        if (!j->head) break;
        job *jb = j->head;
        j->head = jb->next;
        if (!j->head) j->tail = NULL;
        j->queued--;
        jb->state = J_RUNNING;
        j->running++;
        pthread_mutex_unlock(&j->mu);

        int status = 500;
        json_t *result = NULL;
        char err[1024] = "";
        jb->fn(jb->arg, &jb->ctl, &status, &result, err, sizeof err);
        if (!result && !err[0]) snprintf(err, sizeof err, "the job ended without a result");
        http_scrub_paths(err);
        /* as a request would answer it (http_set_error): 507, the disk full */
        if (status == 500 && db_error_full(err)) status = 507;
#ifdef __GLIBC__
        malloc_trim(0);   /* a job's memory goes back to the system, not to the next one */
#endif

        pthread_mutex_lock(&j->mu);
        /* a running job cancelled from the API ends as docs/api.md says
         * (409, "cancelled; nothing was stored"), not with the message its
         * work gave for a stop, which speaks of the server stopping */
        if (jb->user_cancel && status >= 400) {
            status = 409;
            snprintf(err, sizeof err, "cancelled; nothing was stored");
        }
        /* a job that did its work did all of it: its counts may fall
         * short of an estimated total (a simulation's total counts its
         * commit, which no step adds; cohorts' blocks are estimated) or
         * pass it, and docs/api.md's progress is done / total */
        if (status < 400 && !atomic_load(&jb->ctl.cancel)) {
            long long d = atomic_load(&jb->ctl.done), t = atomic_load(&jb->ctl.total);
            if (d < t) atomic_store(&jb->ctl.done, t);
            else if (d > t) atomic_store(&jb->ctl.total, d);
        }
        jb->status = status;
        jb->result = result;
        if (err[0]) jb->error = strdup(err);
        j->running--;
        finish(j, jb, atomic_load(&jb->ctl.cancel) && status >= 400 ? J_ABORTED
                      : status < 400 ? J_DONE : J_FAILED);
        pthread_cond_broadcast(&j->idle);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

int jobs_start(unsigned workers, size_t max_queue, job_queue **out, char *err, size_t errlen) {
    *out = NULL;
    job_queue *j = calloc(1, sizeof *j);
    if (!workers) workers = 1;
    if (!j || !(j->threads = calloc(workers, sizeof *j->threads))) {
        free(j);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    pthread_cond_init(&j->idle, NULL);
    j->max_queue = max_queue ? max_queue : 1;
    for (unsigned i = 0; i < workers; i++) {
        if (pthread_create(&j->threads[i], NULL, worker, j) != 0) {
            snprintf(err, errlen, "cannot start a job worker thread");
            jobs_free(j);
            return -1;
        }
        j->nthreads++;
    }
    *out = j;
    return 0;
}

static void new_id(char id[JOBS_ID_SIZE]) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char buf[JOBS_ID_SIZE - 1];
    size_t got = 0;
    while (got < sizeof buf) {
        ssize_t r = getrandom(buf + got, sizeof buf - got, 0);
        if (r < 0 && errno != EINTR) break;
        if (r > 0) got += (size_t)r;
    }
    for (size_t i = 0; i < sizeof buf; i++) id[i] = alphabet[buf[i] % 36];
    id[JOBS_ID_SIZE - 1] = '\0';
}

int jobs_submit(job_queue *j, const char *kind, job_fn fn, void *arg, void (*free_arg)(void *),
                long long total, char id[JOBS_ID_SIZE]) {
    job *jb = calloc(1, sizeof *jb);
    if (!jb) return -1;
    new_id(jb->id);
    jb->kind = kind;
    jb->fn = fn;
    jb->state = J_QUEUED;
    atomic_init(&jb->ctl.done, 0);
    atomic_init(&jb->ctl.total, total > 0 ? total : 1);
    atomic_init(&jb->ctl.cancel, false);
    atomic_init(&jb->ctl.phase, NULL);
    pthread_mutex_lock(&j->mu);
    int rc = j->stopping ? -2 : j->queued + j->running >= j->max_queue ? -1 : 0;
    if (rc) {
        pthread_mutex_unlock(&j->mu);
        free(jb);
        return rc;
    }
    jb->arg = arg;
    jb->free_arg = free_arg;
    if (j->tail) j->tail->next = jb;
    else j->head = jb;
    j->tail = jb;
    j->queued++;
    jb->all_next = j->all;
    j->all = jb;
    memcpy(id, jb->id, JOBS_ID_SIZE);
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
    return 0;
}

json_t *jobs_status(job_queue *j, const char *id) {
    json_t *o = NULL;
    pthread_mutex_lock(&j->mu);
    for (job *jb = j->all; jb; jb = jb->all_next) {
        if (strcmp(jb->id, id) != 0) continue;
        long long done = atomic_load(&jb->ctl.done), total = atomic_load(&jb->ctl.total);
        double p = jb->state == J_DONE ? 1.0 : total > 0 ? (double)done / (double)total : 0.0;
        if (p > 1.0) p = 1.0;
        o = json_pack("{s:s, s:s, s:s, s:f, s:I, s:I}", "job", jb->id, "kind", jb->kind, "state",
                      state_names[jb->state], "progress", p, "done", (json_int_t)done, "total",
                      (json_int_t)total);
        const char *phase = atomic_load(&jb->ctl.phase);
        if (o && phase && jb->state == J_RUNNING)
            json_object_set_new(o, "phase", json_string(phase));
        if (o && jb->state >= J_DONE) {
            json_object_set_new(o, "status", json_integer(jb->status));
            json_object_set(o, "result", jb->result ? jb->result : json_null());
            json_object_set_new(o, "error", jb->error ? json_string(jb->error) : json_null());
        }
        break;
    }
    pthread_mutex_unlock(&j->mu);
    return o;
}

int jobs_cancel(job_queue *j, const char *id) {
    int rc = -1;
    pthread_mutex_lock(&j->mu);
    job *prev = NULL;
    for (job *jb = j->head; jb; prev = jb, jb = jb->next) {   /* queued: unlink it */
        if (strcmp(jb->id, id) != 0) continue;
        if (prev) prev->next = jb->next;
        else j->head = jb->next;
        if (j->tail == jb) j->tail = prev;
        j->queued--;
        atomic_store(&jb->ctl.cancel, true);
        jb->status = 409;
        jb->error = strdup("cancelled before it began; nothing was stored");
        finish(j, jb, J_ABORTED);
        pthread_cond_broadcast(&j->idle);
        pthread_mutex_unlock(&j->mu);
        return 0;
    }
    for (job *jb = j->all; jb; jb = jb->all_next) {
        if (strcmp(jb->id, id) != 0) continue;
        if (jb->state == J_RUNNING) {
            atomic_store(&jb->ctl.cancel, true);
            jb->user_cancel = true;
            rc = 0;
        } else {
            rc = 1;
        }
        break;
    }
    pthread_mutex_unlock(&j->mu);
    return rc;
}

size_t jobs_pending(job_queue *j) {
    pthread_mutex_lock(&j->mu);
    size_t n = j->queued + j->running;
    pthread_mutex_unlock(&j->mu);
    return n;
}

void jobs_stop(job_queue *j, int grace_ms) {
    if (!j) return;
    pthread_mutex_lock(&j->mu);
    j->stopping = true;
    while (j->head) {                      /* queued jobs never start */
        job *jb = j->head;
        j->head = jb->next;
        j->queued--;
        jb->status = 503;
        jb->error = strdup("aborted: the server stopped before the job began; nothing was stored");
        finish(j, jb, J_ABORTED);
    }
    j->tail = NULL;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += grace_ms / 1000;
    until.tv_nsec += (long)(grace_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    while (j->running && pthread_cond_timedwait(&j->idle, &j->mu, &until) == 0) {}
    for (job *jb = j->all; jb; jb = jb->all_next)
        if (jb->state == J_RUNNING) atomic_store(&jb->ctl.cancel, true);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    for (unsigned i = 0; i < j->nthreads; i++) pthread_join(j->threads[i], NULL);
    j->nthreads = 0;
}

void jobs_free(job_queue *j) {
    if (!j) return;
    if (j->nthreads) jobs_stop(j, 0);
    for (job *jb = j->all; jb;) {
        job *n = jb->all_next;
        job_free(jb);
        jb = n;
    }
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    pthread_cond_destroy(&j->idle);
    free(j->threads);
    free(j);
}
