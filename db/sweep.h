/* sweep.h -- schedulability sweeps stored as experiments (issue 14).
 *
 * A sweep is an experiment with source "sweep" and no runs; its result
 * (schedlab-sweep-result/1 JSON text, see server/app/sweep.h) is kept as one
 * row of the `sweeps` table (db/sweep.sql, migration step 2). db/ does not
 * read JSON: the text is stored and handed back as it is.
 *
 * Errors as in db.h: 0, DB_NOT_FOUND, or -1 with one line in err. */
#ifndef DB_SWEEP_H
#define DB_SWEEP_H

#include <stddef.h>

#include "db.h"

/* db/sweep.sql, embedded by the Makefile: migration step 2. */
extern const char db_sweep_sql[];

/* A new experiment (source "sweep") holding `result`, in one transaction
 * (or a savepoint inside the caller's db_begin). The slug goes to `slug`. */
int db_sweep_store(db *d, const char *name, const char *description, const char *result,
                   char slug[DB_SLUG_SIZE], char *err, size_t errlen);

/* The same for a shipped sweep seeded at first start (issue 30): its
 * experiment's scenario_file is `file` ("sweeps/NAME.json"), so that
 * db_has_scenario_file says it is stored. */
int db_sweep_store_file(db *d, const char *name, const char *description, const char *result,
                        const char *file, char slug[DB_SLUG_SIZE], char *err, size_t errlen);

/* The stored result of sweep experiment `slug`, malloc'ed into *result
 * (the caller frees it). DB_NOT_FOUND when no sweep has that slug. */
int db_sweep_result(db *d, const char *slug, char **result, char *err, size_t errlen);

#endif
