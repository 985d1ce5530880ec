/* api.h -- the HTTP API of docs/api.md as the command line starts it: the
 * context (api_init, api_ctx.c) and the route table (api_routes,
 * routes.c). Inside http/ the context is at the bottom (api_ctx.h), the
 * handlers above it (api.c and one file per group of routes), the route
 * table on top; what they store goes through the store layer (app/store.h),
 * which the CLI shares.
 *
 * Threads: the handlers run on the HTTP worker threads. api_ctx keeps a
 * small pool of database connections (one in use per request at a time),
 * guarded by a mutex; everything else in it is read-only after api_init.
 *
 * Memory: api_init's strings are copied. JSON built here uses jansson's
 * *_new / "o" pack calls, which steal the reference they are given. */
#ifndef SERVER_API_H
#define SERVER_API_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../db/db.h"
#include "../../importers/importers.h"
#include "http.h"

typedef struct api_ctx api_ctx;

typedef struct api_config {
    const char *db_path;
    const char *scenarios_dir;   /* shipped scenarios; may be NULL */
    const char *version;
    const struct budget *budget; /* work limits (budget.h); NULL: the defaults */
    bool no_check;               /* no PRAGMA quick_check at start (serve --no-check) */
} api_config;

/* Opens (creating and migrating) the database once to fail early. */
int api_init(const api_config *cfg, api_ctx **out, char *err, size_t errlen);
void api_free(api_ctx *a);
/* SIGTERM: queued jobs are dropped, running ones get grace_ms to finish and
 * are then cancelled (rolled back); returns once every job has ended. */
void api_stop_jobs(api_ctx *a, int grace_ms);
/* http_config.on_idle: the pooled connections give back their page caches
 * (the server has no request in flight; the next one reads its pages from
 * the OS's cache of the file). */
void api_idle(void *app);
/* The route table for http_config.routes (static storage). */
const http_route *api_routes(size_t *n);

#endif
