/* store.h -- the store layer: everything that puts runs into the database,
 * shared by the CLI (server/main.c) and the HTTP handlers (server/api.c),
 * which keep only argument and HTTP handling.
 *
 *   store_scenario   parse scenario text, simulate every run, store them
 *                    as one new experiment; simulated blocks stream into
 *                    SQLite through the block sink (sim.h) and the run
 *                    writer (db.h), so a 16M-block run never holds its
 *                    blocks in memory
 *   store_import     import trace files (any format importers/ detects,
 *                    or schedlab-trace JSON) as one new run
 *   store_seed       store the shipped scenarios not stored yet
 *
 * Each is one transaction: on any failure nothing of it remains. */
#ifndef SERVER_STORE_H
#define SERVER_STORE_H

#include <jansson.h>
#include <stddef.h>

#include "../db/db.h"
#include "../importers/importers.h"

#define STORE_BAD_INPUT (-3)   /* the input is wrong: HTTP 400, CLI exit 2 */

/* `file` names the input in messages; `scenario_file` (may be NULL) marks a
 * shipped scenario. On success the slug is in `slug` and, when runs_out is
 * not NULL, *runs_out is a new array of {"run", "name"}. Returns 0,
 * STORE_BAD_INPUT or -1. */
int store_scenario(db *d, const char *text, size_t len, const char *file,
                   const char *scenario_file, char slug[DB_SLUG_SIZE], json_t **runs_out,
                   char *err, size_t errlen);

/* Import files of one format (`format` NULL: detected by imp_detect, which
 * also knows schedlab-trace/1 JSON as written by `export`) as one new run,
 * into `experiment` or, when NULL, a new experiment. `name` (may be NULL)
 * names the run. Returns 0, STORE_BAD_INPUT, DB_NOT_FOUND (no such
 * experiment) or -1. */
int store_import(db *d, const imp_file *files, size_t nfiles, const char *format,
                 const char *experiment, const char *name, char run[DB_SLUG_SIZE],
                 char exp[DB_SLUG_SIZE], char *err, size_t errlen);

/* Store every DIR/ *.json not yet stored (matched by file name), in name
 * order. Returns the number of files that failed (their first message in
 * err) or -1 when the folder cannot be read; *added counts new ones. */
int store_seed(db *d, const char *dir, int *added, char *err, size_t errlen);

#endif
