/* jobs.h -- the bounded job queue (issue 16): long work (a big simulation,
 * a big import) runs on worker threads outside the HTTP request threads;
 * the client gets 202 {job} and polls GET /api/jobs/{id}.
 *
 * A job is a function with an argument; it reports progress through its
 * job_ctl (done of total units) and stops early when ctl->cancel is set.
 * What it returns (an HTTP status, a JSON result or an error line) is kept
 * with the job for GET /api/jobs/{id}: the last JOBS_KEEP jobs that ended,
 * the one that ended first forgotten first (docs/api.md).
 *
 * Threads: every function is safe to call from any thread. The job
 * function runs on a worker; the argument is the queue's once submitted and
 * freed with free_arg after the job ran (or was dropped).
 *
 * Stopping (SIGTERM): jobs_stop refuses new jobs, drops the queued ones
 * (state "aborted"), lets running ones finish for up to grace_ms and then
 * sets their cancel flag, so they roll back and end "aborted". */
#ifndef SERVER_JOBS_H
#define SERVER_JOBS_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

#define JOBS_ID_SIZE 17
#define JOBS_KEEP 256

typedef struct job_ctl {
    atomic_llong done, total;
    atomic_bool cancel;
    /* what the job is doing now, for jobs with phases (an import: "parsing",
     * then "storing"); a static string, NULL when the job has none */
    _Atomic(const char *) phase;
} job_ctl;

/* Fill *status (an HTTP status: 201, 400, ...) and either *result (a new
 * reference) or err (one line). */
typedef void (*job_fn)(void *arg, job_ctl *ctl, int *status, json_t **result, char *err,
                       size_t errlen);

typedef struct job_queue job_queue;

int jobs_start(unsigned workers, size_t max_queue, job_queue **out, char *err, size_t errlen);
/* Queue a job of `kind` ("simulation", "import") with `total` progress
 * units; its id goes to id. Returns 0; -1 when the queue is full, -2 when
 * stopping (the caller still owns arg then). */
int jobs_submit(job_queue *j, const char *kind, job_fn fn, void *arg, void (*free_arg)(void *),
                long long total, char id[JOBS_ID_SIZE]);
/* {"job", "kind", "state": queued|running|done|failed|aborted, "progress"
 * (0..1), "done", "total", "phase" (while running, when the job has
 * phases), "status", "result", "error"}; NULL if no such
 * job. A new reference. */
json_t *jobs_status(job_queue *j, const char *id);
/* Cancel job `id` (DELETE /api/jobs/{id}, issue 30): a queued one never
 * starts (state "aborted", status 409); a running one has its cancel flag
 * set and ends "aborted" once its function returns (the sweep's workers
 * look at it per taskset or simulation; stores roll back). 0 when found
 * queued or running, 1 when it had already finished, -1 when no job has
 * that id. */
int jobs_cancel(job_queue *j, const char *id);
/* Jobs queued or running. */
size_t jobs_pending(job_queue *j);
void jobs_stop(job_queue *j, int grace_ms);
void jobs_free(job_queue *j);            /* stops first when needed; NULL is fine */

#endif
