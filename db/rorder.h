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
 * kernelsTab), each a number (stored with the order it names,
 * record_orders.variant, so a column keeps its number): the id, the
 * record fields whose `sort` is that number in their list
 * (simcore/trace_fields.h; a text field sorts by ror_strcmp, a copy's
 * direction by its name, a kernel's stream as the table shows it:
 * "process/stream" when the process is not P0), and for kernels the
 * response (end - issue, end - first_block when the issue is unknown). A
 * new sort column takes the next number and moves ROR_K_N / ROR_C_N on. */
enum { ROR_K_ID = 0, ROR_K_RESPONSE = 9, ROR_K_N = 10 };
enum { ROR_C_ID = 0, ROR_C_N = 8 };

/* The column named s of kind's table, -1 when none is. */
int ror_key_parse(ror_kind kind, const char *s);
/* The names of kind's sort columns in their numbers' order, ", "-separated
 * (error messages), into buf (len bytes; the list ends at the last name
 * that fits whole); buf. */
const char *ror_key_list(ror_kind kind, char *buf, size_t len);

typedef struct ror_query {
    ror_kind kind;
    int key;               /* a sort column's number (ror_key_parse) */
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
