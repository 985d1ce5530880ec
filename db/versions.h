/* versions.h -- versions of an experiment and deleting one (issue 15).
 *
 * Edit and re-run: a scenario experiment's edited text is simulated again
 * and its runs stored under the same experiment as version n + 1
 * (db/versions.sql: runs.version, experiment_versions). Version 1 is the
 * experiment as first stored; its text is not in experiment_versions
 * until a second version is added (db_version_add copies it then).
 *
 * Deleting an experiment deletes its runs and every row of theirs: the
 * bulk tables carry no foreign key (db/schema.sql), so every table with a
 * `run` column is found in the schema and cleared explicitly -- tables a
 * later migration adds are covered without an edit here.
 *
 * All of these write inside the caller's db_begin transaction. Errors as in
 * db.h: 0, DB_NOT_FOUND, or -1 with one line in err. */
#ifndef DB_VERSIONS_H
#define DB_VERSIONS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* db/versions.sql, embedded by the Makefile. */
extern const char db_versions_sql[];

/* The experiment's newest version (1 when it has only its first runs). */
int db_version_latest(db *d, const char *experiment, int64_t *version, char *err, size_t errlen);

/* Record version `version` of `experiment` with its scenario text (also
 * made the experiment's current scenario_json); the previous text becomes
 * version 1's row when it had none. */
int db_version_add(db *d, const char *experiment, int64_t version, const char *scenario_json,
                   char *err, size_t errlen);

/* Mark a run as simulated from `version`. */
int db_run_set_version(db *d, const char *run, int64_t version, char *err, size_t errlen);

/* Every version of the experiment, oldest first: its number, when it was
 * stored (NULL for a version 1 never edited: the experiment's own date
 * applies) and how many runs it has. */
typedef int (*db_version_cb)(void *ctx, int64_t version, const char *created, int64_t runs);
int db_list_versions(db *d, const char *experiment, db_version_cb cb, void *ctx, char *err,
                     size_t errlen);

/* The version of each run of the experiment, in run order. */
typedef int (*db_run_version_cb)(void *ctx, const char *run, int64_t version);
int db_list_run_versions(db *d, const char *experiment, db_run_version_cb cb, void *ctx,
                         char *err, size_t errlen);

/* Delete the experiment, its runs and all their rows. *runs receives the
 * number of runs deleted (may be NULL). */
int db_delete_experiment(db *d, const char *experiment, int64_t *runs, char *err,
                         size_t errlen);

#endif
