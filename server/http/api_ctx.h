/* api_ctx.h -- what every handler of server/http/ shares: the context
 * api_init opens (api.h) and its database connections.
 *
 * Layering inside http/: this context at the bottom, the handlers above it
 * (api.c, writes.c, experiments_edit.c, replay_api.c, rta_api.c,
 * summary_api.c, ...), the route table (routes.c) on top; a handler
 * includes this header and the handlers whose helpers it calls, never the
 * route table.
 *
 * Errors are values: api_db_get returns 0 or the HTTP status (503 when the
 * database file was removed or replaced under the running server, 500 when
 * a connection cannot be opened) with one line in err, so a job reports it
 * as it is; api_db_acquire puts the same into a response for a handler. */
#ifndef SERVER_API_CTX_H
#define SERVER_API_CTX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../../db/db.h"
#include "api.h"
#include "budget.h"
#include "http.h"
#include "jobs.h"

#define POOL_MAX 16

struct api_ctx {
    char *db_path, *scenarios_dir, *version;
    const char *db_name;         /* the file name alone: answers never show paths */
    pthread_mutex_t mu;
    db *pool[POOL_MAX];
    size_t npool;
    job_queue *jobs;             /* long work, off the request threads (writes.c) */
    budget budget;
    char health[256];            /* PRAGMA quick_check at start: "" when ok (mu) */
    bool checking;               /* the check still runs (mu) */
    db *check_db;                /* its connection while it runs, to interrupt (mu) */
    pthread_t check_thr;
    bool check_started, stopping;   /* stopping: api_free has begun (mu) */
    dev_t db_dev;                /* the file opened at start (issue 31): a new */
    ino_t db_ino;                /* connection opens only that one, never a second */
};

/* A pooled connection (or a new one) into *out: 0, or 503 / 500 with err
 * filled and *out NULL. Give it back with api_db_release. */
int api_db_get(api_ctx *a, db **out, char *err, size_t errlen);
/* The same for a handler: NULL with the error answer already in res. */
db *api_db_acquire(api_ctx *a, http_response *res);
/* Rolls back what the handler left open and returns d to the pool. */
void api_db_release(api_ctx *a, db *d);
/* false, with a 503 naming the problem in res, when the database file was
 * removed or replaced under the running server (issue 31) */
bool api_db_ok(api_ctx *a, http_response *res);
/* Whether the path still names the file opened at start; false with the
 * reason in why. */
bool api_db_same_file(api_ctx *a, char *why, size_t n);
/* Whether the database check of the start still runs; its verdict so far
 * into msg ("" when ok or not known yet). */
bool api_health(api_ctx *a, char *msg, size_t n);
job_queue *api_jobs(api_ctx *a);
const budget *api_budget(api_ctx *a);

#endif
