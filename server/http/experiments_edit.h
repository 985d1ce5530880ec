/* experiments_edit.h -- changing a stored experiment (issue 15):
 *   POST   /api/experiments/{slug}/versions  scenario JSON: simulated and
 *          stored as the experiment's next version (201 {slug, version,
 *          runs}, or 202 {job} for long work, as POST /api/experiments)
 *   GET    /api/experiments/{slug}/versions  {"versions": [...]}
 *   DELETE /api/experiments/{slug}            the experiment, its runs and
 *          all their rows (200 {deleted, runs}); writes need the token
 *          like every write (server/http/http.c)
 * and what the read handlers of api.c add from the same tables: each run's
 * version in GET /api/experiments/{slug}, and an experiment's name for the
 * labels of GET /api/compare. The handlers are listed in api.c's route
 * table. */
#ifndef SERVER_EXPERIMENTS_EDIT_H
#define SERVER_EXPERIMENTS_EDIT_H

#include <jansson.h>

#include "../../db/db.h"
#include "http.h"

void expedit_post_version(void *app, const http_request *req, http_response *res);
void expedit_get_versions(void *app, const http_request *req, http_response *res);
void expedit_delete(void *app, const http_request *req, http_response *res);

/* Adds "version" to each run of `exp` (an experiment object of
 * GET /api/experiments/{slug}) and "versions"; 0 or -1 with err. */
int expedit_annotate(db *d, json_t *exp, char *err, size_t errlen);

/* The name of experiment `slug` into buf ("" when it has none). */
void expedit_experiment_name(db *d, const char *slug, char *buf, size_t size);

/* The version run `run` of experiment `slug` was simulated from, 0 when
 * the experiment has one version only (nothing to tell apart) or on error. */
int64_t expedit_run_version(db *d, const char *slug, const char *run);

#endif
