/* row_ranges.h -- a run's kernels and copies as a contiguous range of
 * rowids (db/row_ranges.sql, issue 9). Kernel `id` of run R is row
 * runs.kernel_base + id of `kernels`, 0 <= id < runs.n_kernels; copies the
 * same with copy_base and n_copies. Only db/ includes this.
 *
 * The query fragments name the run as parameter ?1 (its runs.id), as every
 * per-run query of db/ does; their subqueries do not depend on the row, so
 * SQLite evaluates each once per statement run and the WHERE is a rowid
 * range seek. */
#ifndef DB_ROW_RANGES_H
#define DB_ROW_RANGES_H

#include "db_int.h"

/* WHERE conditions: the rows of run ?1 */
#define DBI_KERNELS_OF_RUN                                                             \
    "rowid BETWEEN (SELECT kernel_base FROM runs WHERE id = ?1) AND "                  \
    "(SELECT kernel_base + n_kernels - 1 FROM runs WHERE id = ?1)"
#define DBI_COPIES_OF_RUN                                                              \
    "rowid BETWEEN (SELECT copy_base FROM runs WHERE id = ?1) AND "                    \
    "(SELECT copy_base + n_copies - 1 FROM runs WHERE id = ?1)"
/* a row's kernel id (index in trace.kernels) in run ?1 */
#define DBI_KERNEL_ID "rowid - (SELECT kernel_base FROM runs WHERE id = ?1)"
/* kernels lo <= id < hi of run ?1 (lo, hi: parameters or numbers as SQL
 * text; the caller keeps 0 <= lo <= hi <= n_kernels, or the range runs into
 * the next run's rows) */
#define DBI_KERNEL_IDS(lo, hi)                                                         \
    "rowid >= (SELECT kernel_base FROM runs WHERE id = ?1) + " lo " AND "              \
    "rowid < (SELECT kernel_base FROM runs WHERE id = ?1) + " hi

/* a row's copy id (index in trace.copies) in run ?1, and copies lo <= id <
 * hi of run ?1, as for kernels */
#define DBI_COPY_ID "rowid - (SELECT copy_base FROM runs WHERE id = ?1)"
#define DBI_COPY_IDS(lo, hi)                                                           \
    "rowid >= (SELECT copy_base FROM runs WHERE id = ?1) + " lo " AND "                \
    "rowid < (SELECT copy_base FROM runs WHERE id = ?1) + " hi

/* The base of the next run's rows in `table` ("kernels" or "copies"): one
 * past its largest rowid. */
int dbi_rows_next_base(db *d, const char *table, int64_t *base, char *err, size_t errlen);

/* Migration step db_row_ranges_sql's data part (db.c runs it after the
 * SQL): checks that every run's kernels and copies are numbered 0 .. n - 1
 * with n its runs.n_kernels / n_copies, gives each run its range, copies
 * the rows and replaces the old tables. Rows of no run are dropped (no
 * answer could reach them). */
int dbi_row_ranges_migrate(db *d, char *err, size_t errlen);

/* Deletes the kernels and copies of every run of experiment `exp`
 * (db_delete_experiment). */
int dbi_row_ranges_delete(db *d, int64_t exp, char *err, size_t errlen);

#endif
