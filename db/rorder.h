/* rorder.h -- a run's kernels or copies a page at a time, sorted by a
 * column of the run view's tables, optionally only those of one name
 * (GET /api/runs/{run}/kernels?offset=&limit=&sort=&order=&name=).
 *
 * Why: a kernel-level import holds a million kernels; its table is read a
 * page at a time. Each order is the run's permutation of ids, computed on
 * its first request and stored (db/rorder.sql), so a page costs two blob
 * reads and `limit` rowid reads whatever the order or the offset.
 *
 * The order: the column's values ascending (descending with desc), rows
 * without a value last in both directions, ties by id ascending (the
 * order the run view's client-side table sorts in: stable on the id
 * order). Text columns compare runs of digits by their value and other
 * bytes as bytes ("K2" < "K10"), then bytewise, so the order is total. */
#ifndef DB_RORDER_H
#define DB_RORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../simcore/trace.h"
#include "db.h"

#define ROR_PAGE_IDS 1024      /* ids per stored permutation row */
#define ROR_LIMIT_MAX 1000     /* rows of one page at most */

typedef enum ror_kind { ROR_KERNELS = 0, ROR_COPIES = 1 } ror_kind;

/* The sort columns: the run view's table columns (web/js/views/run.mjs
 * kernelsTab). Kernels: stream is "process/stream" when the process is
 * not P0 (as the table shows it), response is end - issue (end -
 * first_block when the issue is unknown). Copies: direction by its name. */
enum {
    ROR_K_ID, ROR_K_NAME, ROR_K_STREAM, ROR_K_PRIORITY, ROR_K_BLOCKS, ROR_K_ISSUE,
    ROR_K_FIRST_BLOCK, ROR_K_FULLY_DISPATCHED, ROR_K_END, ROR_K_RESPONSE, ROR_K_N
};
enum { ROR_C_ID, ROR_C_NAME, ROR_C_STREAM, ROR_C_DIRECTION, ROR_C_BYTES, ROR_C_ISSUE,
       ROR_C_START, ROR_C_END, ROR_C_N };

/* The column named s of kind's table, -1 when none is. */
int ror_key_parse(ror_kind kind, const char *s);
/* The names of kind's sort columns, ", "-separated (error messages). */
const char *ror_key_list(ror_kind kind);

typedef struct ror_query {
    ror_kind kind;
    int key;               /* ROR_K_* or ROR_C_* */
    bool desc;
    const char *name;      /* only rows of this name (NULL: every row) */
    int64_t offset;        /* >= 0 */
    int64_t limit;         /* 1 .. ROR_LIMIT_MAX */
} ror_query;

/* The page of run `run`: its rows appended to out (kernels or copies),
 * their ids in the run into *ids (malloc'd, *n of them), *total the rows
 * that match (every row, or those of q->name). DB_NOT_FOUND: no run of
 * that slug. Builds the order first when it is not stored yet. */
int db_rorder_page(db *d, const char *run, const ror_query *q, trace *out, int64_t **ids,
                   size_t *n, int64_t *total, char *err, size_t errlen);

/* Natural text order: runs of digits by value, other bytes as bytes; equal
 * so far, bytewise (a total order). */
int ror_strcmp(const char *a, const char *b);

#endif
