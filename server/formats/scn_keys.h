/* scn_keys.h -- an object's keys as a table (issue 24 point 4), private to
 * the scenario readers (scenario.c, scenario_tasks.c), in the style of
 * Redis's static_configs[]: each key of an object is declared once, in one
 * row that gives the key, the reader of its value and, for a key the
 * object must give, what its "missing" message adds. The rows' order is
 * the order the unknown-key check lists them in ("known: ..."; with the
 * "did you mean"); `step` is when the row is read: an object's reader
 * checks its keys (scn_keys_check), then reads step 0, runs what must come
 * between (a stream is added before its "sms"), reads step 1, and so on,
 * each step in the rows' order (scn_keys_read). A key whose reader is NULL
 * is read with another one (the note at its row says by which). So a new
 * key is one row and its reader.
 *
 * A reader gets the caller's context (`ctx`: scenario.c's pctx, the tasks'
 * jr_ctx) and object (`obj`: what the object is read into) untouched; the
 * table code itself only needs a jr_ctx, for the messages of the checks.
 * Messages are jsonr.h's ("PATH: ..."). */
#ifndef SERVER_SCN_KEYS_H
#define SERVER_SCN_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "../../importers/jsonr.h"

/* Reads v (the key's value; NULL when absent, for a row read always) at
 * `path` into obj. 0, or -1 with the message in the caller's jr_ctx. */
typedef int (*scn_reader)(void *ctx, json_t *v, const char *path, void *obj);

typedef struct scn_key {
    const char *key;
    scn_reader read;       /* NULL: read with another key */
    const char *missing;   /* NULL: optional; else "missing \"KEY\"" and this */
    int step;              /* when it is read (scn_keys_read) */
    bool always;           /* read even when absent (v NULL): the reader's default */
    unsigned kinds;        /* an object of several kinds (an op, OPK_*): those taking it */
} scn_key;
#define SCN_NKEYS(t) (sizeof t / sizeof *t)
#define SCN_MAX_KEYS 24    /* the most rows of one table (each table asserts it) */

/* `o` is an object (at `path`) whose keys are all in the table ("unknown
 * key", with the did-you-mean), checked in the rows' order. */
int scn_keys_known(jr_ctx *c, json_t *o, const char *path, const scn_key *t, size_t n);

/* o gives every key the table says it must (`missing`), checked in the
 * rows' order: else "PATH: missing \"KEY\"MISSING" or, with a kind (an op
 * read in steps), "PATH: KIND \"NAME\" is missing \"KEY\"MISSING". A JSON
 * null counts as given. */
int scn_keys_need(jr_ctx *c, json_t *o, const char *path, const scn_key *t, size_t n,
                  const char *kind, const char *name);

/* scn_keys_known, then scn_keys_need without a kind. */
int scn_keys_check(jr_ctx *c, json_t *o, const char *path, const scn_key *t, size_t n);

/* Reads the rows of `step` that o gives (or that are read always), in the
 * rows' order, each at its path under `path`, with ctx into obj. A key
 * given as JSON null is given: its reader says what null is (most: "must
 * be ..., not null"). */
int scn_keys_read(void *ctx, json_t *o, const char *path, const scn_key *t, size_t n, int step,
                  void *obj);

/* scn_keys_read where a key given as JSON null is absent (as jr_opt reads
 * it): the tasks' objects, whose null has always meant "leave it out". */
int scn_keys_read_opt(void *ctx, json_t *o, const char *path, const scn_key *t, size_t n,
                      int step, void *obj);

#endif
