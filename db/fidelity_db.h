/* fidelity_db.h -- the fidelity reports of replays (issue 10), one per
 * simulated run, with the measured run it replays (db/fidelity.sql).
 *
 * Errors as in db.h: 0, DB_NOT_FOUND (the slug names nothing, or the run
 * has no report), or -1 with one line in err. */
#ifndef DB_FIDELITY_DB_H
#define DB_FIDELITY_DB_H

#include <stddef.h>

#include "db.h"

extern const char db_fidelity_sql[];

/* Store (or replace) the report of simulated run `run`, which replays the
 * measured run `measured`; `report` is JSON text. */
int db_fidelity_store(db *d, const char *run, const char *measured, const char *report,
                      char *err, size_t errlen);

/* The report of `run` and the slug of the measured run (both new strings
 * the caller frees). */
int db_fidelity_get(db *d, const char *run, char **report, char **measured, char *err,
                    size_t errlen);

#endif
