/* server/app/ -- what schedlab does with those formats, for the command line
 * and the HTTP server alike: store runs (store.c, seed_bg.c), replay a trace
 * and report its fidelity (replay*.c, fidelity*.c), sweep schedulability
 * and QoS (sweep.c, qos_sweep.c), the per-task statistics and bounds of a
 * run (task_stats.c, task_bounds.c) and the pause lookup of a window
 * (pause_index.c). Functions here take a db and plain values and return a
 * status and one line of error; none knows of a request or a response. It
 * may include formats/ and db/, importers/, simcore/ headers, never http/ or
 * cli/ (docs/modules.md). */

/* store.h -- the store layer: everything that puts runs into the database,
 * shared by the CLI (server/cli/main.c) and the HTTP handlers (server/http/api.c),
 * which keep only argument and HTTP handling.
 *
 *   store_scenario   parse scenario text, simulate every run, store them
 *                    as one new experiment
 *   store_import     import trace files (any format importers/ detects,
 *                    schedlab-trace JSON among them) as one new run
 *   store_seed       store the shipped scenarios not stored yet
 *
 * Each is one transaction: on any failure nothing of it remains.
 *
 * Write transactions open only to store a finished result (issue 16): a
 * scenario's runs are simulated first, their blocks streamed through the
 * block sink (sim.h) into an unlinked temporary file ($TMPDIR, else /tmp),
 * never held in memory; only then is the transaction begun and the blocks
 * copied into SQLite through the run writer (db.h). Within the process one
 * mutex (the write lock) admits one write transaction at a time, so two
 * requests never meet SQLite's "database is locked"; another process
 * writing the same file is still waited for up to DB_BUSY_TIMEOUT_MS.
 *
 * A store_ctl (may be NULL) lets a job follow and stop the work: *done
 * counts progress units (a scenario: blocks simulated plus blocks stored;
 * an import: STORE_IMPORT_UNITS in all, the parse mapped to the first
 * STORE_IMPORT_PARSE of them and the rows stored to the rest, issue 15),
 * *phase (may be NULL) names the import's phase ("parsing", "storing"),
 * *cancel set makes the work stop
 * at its next batch and roll back (STORE_ABORTED) -- an import's parse
 * too, within 1,024 rows or records (imp_options.cancelled) -- and lock_ms bounds the
 * wait for the write lock (STORE_BUSY when it passes). */
#ifndef SERVER_STORE_H
#define SERVER_STORE_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../../db/db.h"
#include "../../importers/importers.h"

#define STORE_BAD_INPUT (-3)   /* the input is wrong: HTTP 400, CLI exit 2 */
#define STORE_BUSY (-4)        /* the write lock was not had within lock_ms */
#define STORE_ABORTED (-5)     /* *cancel was set: nothing was stored */
#define STORE_FORBIDDEN (-6)   /* the experiment is not one an import may add to */

/* An import's progress units: the parse (what the importer reports,
 * importers.h imp_options) fills the first 800, storing the rows the rest. */
#define STORE_IMPORT_UNITS 1000
#define STORE_IMPORT_PARSE 800

typedef struct store_ctl {
    atomic_bool *cancel;       /* may be NULL */
    atomic_llong *done;        /* may be NULL */
    _Atomic(const char *) *phase;  /* may be NULL; a static string */
    int lock_ms;               /* < 0: wait for the write lock as long as it takes */
    bool drop_blocks;          /* simulate, but store no blocks (a replay of a trace
                                  without block records whose simulation has more
                                  blocks than it keeps: issue 10); the run's meta
                                  "blocks" says so */
    bool files_mapped;         /* an import's files are read-only mmaps the caller
                                  owns: a streaming import drops the pages it has
                                  read (importers.h imp_stream.mapped; issue 9) */
    const struct scn_scenario *parsed; /* store_scenario*: the scenario `text` parsed
                                  already (the HTTP admission did, writes.h), kept
                                  by the caller; NULL: parsed here */
    const char *description;   /* store_import*: the new experiment's description;
                                  NULL: "Imported from FILE (FORMAT)" */
    struct store_warnings *warnings; /* store_import*: may be NULL; filled on success */
    /* store_scenario*: called in the write transaction once every run is
     * stored, before the commit, with the experiment's slug and the runs
     * ({"run", "name"}, borrowed; members may be added): what belongs with
     * the runs (a replay's fidelity reports) is stored with them or, on a
     * non-zero return (its err), nothing is. May be NULL. */
    int (*with_runs)(db *d, const char *slug, json_t *runs, void *user, char *err,
                     size_t errlen);
    void *with_runs_user;
} store_ctl;

/* What an import left out or guessed (importers.h imp_warn), as stored in
 * the run's meta: `lines` the first IMP_WARNINGS_SHOWN warnings joined by
 * "\n" (malloc'd; NULL when none), `total` how many there were. Free with
 * store_warnings_free. */
typedef struct store_warnings {
    char *lines;
    long long total;
} store_warnings;
void store_warnings_free(store_warnings *w);
/* The lines as a new JSON array of strings (an empty one when none). */
json_t *store_warnings_json(const store_warnings *w);

/* `file` names the input in messages; `scenario_file` (may be NULL) marks a
 * shipped scenario. On success the slug is in `slug` and, when runs_out is
 * not NULL, *runs_out is a new array of {"run", "name"}. Returns 0,
 * STORE_BAD_INPUT or -1. */
int store_scenario(db *d, const char *text, size_t len, const char *file,
                   const char *scenario_file, char slug[DB_SLUG_SIZE], json_t **runs_out,
                   char *err, size_t errlen);
/* The same with a control; also STORE_BUSY and STORE_ABORTED. */
int store_scenario_ctl(db *d, const char *text, size_t len, const char *file,
                       const char *scenario_file, const store_ctl *ctl, char slug[DB_SLUG_SIZE],
                       json_t **runs_out, char *err, size_t errlen);

/* Edit and re-run (issue 15): simulate `text` and store its runs in the
 * scenario experiment `experiment` as its next version (db/versions.h);
 * the number goes to *version. DB_NOT_FOUND, STORE_FORBIDDEN (not a
 * scenario experiment), STORE_BAD_INPUT, STORE_BUSY, STORE_ABORTED or -1. */
int store_scenario_version(db *d, const char *experiment, const char *text, size_t len,
                           const store_ctl *ctl, json_t **runs_out, int64_t *version, char *err,
                           size_t errlen);

/* Delete an experiment with its runs and all their rows, in one
 * transaction under the write lock; *runs = runs deleted (may be NULL).
 * DB_NOT_FOUND, STORE_BUSY or -1. */
int store_delete_experiment(db *d, const char *experiment, const store_ctl *ctl, int64_t *runs,
                            char *err, size_t errlen);

/* Import files of one format (`format` NULL: detected by imp_detect, which
 * also knows schedlab-trace/1 JSON as written by `export`) as one new run,
 * into `experiment` or, when NULL, a new experiment. `name` (may be NULL)
 * names the run. Every number of the imported trace is range-checked first
 * (imp_check_trace). Returns 0, STORE_BAD_INPUT, DB_NOT_FOUND (no such
 * experiment), STORE_FORBIDDEN (an experiment not made by an import) or -1. */
int store_import(db *d, const imp_file *files, size_t nfiles, const char *format,
                 const char *experiment, const char *name, char run[DB_SLUG_SIZE],
                 char exp[DB_SLUG_SIZE], char *err, size_t errlen);
int store_import_ctl(db *d, const imp_file *files, size_t nfiles, const char *format,
                     const char *experiment, const char *name, const store_ctl *ctl,
                     char run[DB_SLUG_SIZE], char exp[DB_SLUG_SIZE], char *err, size_t errlen);

/* Store every DIR/ *.json not yet stored (matched by file name), in name
 * order. Returns the number of files that failed (their first message in
 * err) or -1 when the folder cannot be read; *added counts new ones. */
int store_seed(db *d, const char *dir, int *added, char *err, size_t errlen);

/* Run fn(d, arg) in one write transaction under the write lock, as every
 * store above does: the lock waited for as ctl says (lock_ms, cancel; NULL:
 * as long as it takes), so a result finished behind a long import is
 * stored once the import is done instead of failing on SQLite's "database
 * is locked" after DB_BUSY_TIMEOUT_MS (a sweep, a seeded sweep, a replay's
 * reports). Committed when fn returns 0, else rolled back. Returns 0,
 * fn's code, STORE_BUSY, STORE_ABORTED (cancelled while waiting or before
 * the commit: nothing stored) or -1. */
typedef int (*store_write_fn)(db *d, void *arg, char *err, size_t errlen);
int store_write(db *d, const store_ctl *ctl, store_write_fn fn, void *arg, char *err,
                size_t errlen);

/* A run whose blocks wait in an unlinked temporary file ($TMPDIR, else
 * /tmp), as a scenario's simulated runs wait for their transaction
 * (store_scenario), so that no run's blocks are held in memory while the
 * next is made: store_spill moves trace *t (left empty) into s->t and its
 * blocks into the file; store_spilled_run stores it inside an open write
 * transaction (store_write's fn) as db_store_run(t with those blocks)
 * would, its blocks read back a batch (SIM_SINK_BATCH) at a time, the
 * ctl's cancel asked at each (STORE_ABORTED); store_spilled_free releases
 * it (also after a failure; a zeroed one is fine). 0 or -1 with err. */
typedef struct store_spilled {
    trace t;                   /* without its blocks */
    FILE *blocks;
    size_t nblocks;
} store_spilled;
int store_spill(trace *t, store_spilled *s, char *err, size_t errlen);
int store_spilled_run(db *d, store_spilled *s, const char *experiment, const char *name,
                      const store_ctl *ctl, char run[DB_SLUG_SIZE], char *err, size_t errlen);
void store_spilled_free(store_spilled *s);

/* Whether a write transaction of this process is under way now. */
bool store_writing(void);

/* Take the write lock only when no other write holds it, never waiting
 * (true: taken; give it back with store_write_unlock): the gate of the
 * database's lazy builds (db.h db_set_build_gate), so that a read that
 * builds a sort order or a pyramid behind an import neither waits for it
 * nor meets SQLite's "database is locked". */
bool store_write_trylock(void);
void store_write_unlock(void);

#endif
