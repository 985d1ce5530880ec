/* api.h -- the handlers of docs/api.md, and the store operations the CLI
 * shares with them (simulate a scenario into an experiment, import a file).
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
#include <stddef.h>

#include "../db/db.h"
#include "../importers/importers.h"
#include "http.h"

#define API_BAD_INPUT (-3)   /* the input is wrong: HTTP 400, CLI exit 2 */

typedef struct api_ctx api_ctx;

typedef struct api_config {
    const char *db_path;
    const char *scenarios_dir;   /* shipped scenarios; may be NULL */
    const char *version;
} api_config;

/* Opens (creating and migrating) the database once to fail early. */
int api_init(const api_config *cfg, api_ctx **out, char *err, size_t errlen);
void api_free(api_ctx *a);
/* The route table for http_config.routes (static storage). */
const http_route *api_routes(size_t *n);

/* Parse scenario text, simulate every run, store them under one new
 * experiment, all in one transaction. `file` names the input in messages;
 * `scenario_file` (may be NULL) marks a shipped scenario. On success the
 * slug is in `slug` and, when runs_out is not NULL, *runs_out is a new array
 * of {"run", "name"}. Returns 0, API_BAD_INPUT or -1. */
int api_store_scenario(db *d, const char *text, size_t len, const char *file,
                       const char *scenario_file, char slug[DB_SLUG_SIZE], json_t **runs_out,
                       char *err, size_t errlen);

/* Import files of one format (`format` NULL: detected; "schedlab-trace"
 * reads schedlab-trace/1 JSON as written by `export`) as one new run, into
 * `experiment` or, when NULL, a new experiment. `name` (may be NULL) names
 * the run. Returns 0, API_BAD_INPUT, DB_NOT_FOUND (no such experiment) or -1. */
int api_import(db *d, const imp_file *files, size_t nfiles, const char *format,
               const char *experiment, const char *name, char run[DB_SLUG_SIZE],
               char exp[DB_SLUG_SIZE], char *err, size_t errlen);

/* Store every scenarios/ *.json not yet stored (matched by file name), in
 * name order. Returns the number of files that failed (their first message
 * in err) or -1 when the folder cannot be read; *added counts new ones. */
int api_seed_scenarios(db *d, const char *dir, int *added, char *err, size_t errlen);

#endif
