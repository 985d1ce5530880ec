/* row_ranges.c -- kernels and copies as per-run rowid ranges (row_ranges.h):
 * the next base, the migration from the (run, id) tables, deletion. */
#include "row_ranges.h"

int dbi_rows_next_base(db *d, const char *table, int64_t *base, char *err, size_t errlen) {
    /* max(rowid) of a rowid table is one descent to its rightmost leaf */
    sqlite3_stmt *st;
    int rc = prepare(d,
                     table[0] == 'k' ? "SELECT coalesce(max(rowid), 0) + 1 FROM kernels"
                                     : "SELECT coalesce(max(rowid), 0) + 1 FROM copies",
                     &st, err, errlen);
    if (rc) return -1;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *base = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : sqlfail(d, table, err, errlen);
}

/* One old table (`what`: "kernels" or "copies"): the first run whose rows
 * are not numbered 0 .. count - 1 with count = runs.`ncol`, named in err. */
static int check_numbering(db *d, const char *what, const char *ncol, char *err,
                           size_t errlen) {
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT r.slug, r.%s, coalesce(x.n, 0), x.lo, x.hi FROM runs r LEFT JOIN "
             "(SELECT run, count(*) AS n, min(id) AS lo, max(id) AS hi FROM %s GROUP BY run) x "
             "ON x.run = r.id WHERE coalesce(x.n, 0) <> r.%s OR x.lo <> 0 OR x.hi <> x.n - 1 "
             "ORDER BY r.id LIMIT 1",
             ncol, what, ncol);
    sqlite3_stmt *st;
    if (prepare(d, sql, &st, err, errlen)) return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        /* the range is base .. base + runs.n - 1: anything else would move
         * or lose rows */
        if (sqlite3_column_int64(st, 2) == 0)
            seterr(err, errlen, "%s: run %s: no %s where runs.%s says %lld; the %s table is "
                   "not as schedlab wrote it", d->path, col_s(st, 0), what, ncol,
                   (long long)sqlite3_column_int64(st, 1), what);
        else
            seterr(err, errlen, "%s: run %s: %lld %s numbered %lld..%lld where runs.%s says "
                   "%lld, numbered from 0; the %s table is not as schedlab wrote it", d->path,
                   col_s(st, 0), (long long)sqlite3_column_int64(st, 2), what,
                   (long long)sqlite3_column_int64(st, 3), (long long)sqlite3_column_int64(st, 4),
                   ncol, (long long)sqlite3_column_int64(st, 1), what);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sqlfail(d, what, err, errlen);
}

int dbi_row_ranges_migrate(db *d, char *err, size_t errlen) {
    if (check_numbering(d, "kernels", "n_kernels", err, errlen) ||
        check_numbering(d, "copies", "n_copies", err, errlen))
        return -1;
    /* runs in id order take consecutive ranges from rowid 1 */
    return exec(d,
                "UPDATE runs SET kernel_base = b.base FROM (SELECT id, 1 + coalesce(sum(n_kernels) "
                "OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS base "
                "FROM runs) b WHERE b.id = runs.id AND runs.n_kernels > 0;"
                "UPDATE runs SET copy_base = b.base FROM (SELECT id, 1 + coalesce(sum(n_copies) "
                "OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS base "
                "FROM runs) b WHERE b.id = runs.id AND runs.n_copies > 0;"
                "INSERT INTO kernel_rows(rowid, name, raw_name, stream, process, priority, "
                "threads, issue, first_block, fully_dispatched, stop, blocks, smem, regs, grid_x, "
                "grid_y, grid_z, block_x, block_y, block_z, instructions, ipc, qos_goal, "
                "ipc_isolated, ipc_shared, qos_met) "
                "SELECT r.kernel_base + k.id, k.name, k.raw_name, k.stream, k.process, "
                "k.priority, k.threads, k.issue, k.first_block, k.fully_dispatched, k.stop, "
                "k.blocks, k.smem, k.regs, k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, "
                "k.block_z, k.instructions, k.ipc, k.qos_goal, k.ipc_isolated, k.ipc_shared, "
                "k.qos_met FROM kernels k JOIN runs r ON r.id = k.run ORDER BY k.run, k.id;"
                "INSERT INTO copy_rows(rowid, name, stream, process, direction, engine, bytes, "
                "issue, start, stop) "
                "SELECT r.copy_base + c.id, c.name, c.stream, c.process, c.direction, c.engine, "
                "c.bytes, c.issue, c.start, c.stop FROM copies c JOIN runs r ON r.id = c.run "
                "ORDER BY c.run, c.id;"
                "DROP TABLE kernels; ALTER TABLE kernel_rows RENAME TO kernels;"
                "DROP TABLE copies; ALTER TABLE copy_rows RENAME TO copies;",
                err, errlen);
}

int dbi_row_ranges_delete(db *d, int64_t exp, char *err, size_t errlen) {
    static const char *const sql[] = {
        "DELETE FROM kernels WHERE rowid BETWEEN ?2 AND ?3",
        "DELETE FROM copies WHERE rowid BETWEEN ?2 AND ?3",
    };
    sqlite3_stmt *runs, *del[2] = {NULL, NULL};
    if (prepare(d, "SELECT kernel_base, n_kernels, copy_base, n_copies FROM runs "
                   "WHERE experiment = ?1", &runs, err, errlen))
        return -1;
    sqlite3_bind_int64(runs, 1, exp);
    int rc = 0, s = SQLITE_DONE;
    for (int i = 0; i < 2 && !rc; i++) rc = prepare(d, sql[i], &del[i], err, errlen);
    while (!rc && (s = sqlite3_step(runs)) == SQLITE_ROW) {
        for (int i = 0; i < 2 && !rc; i++) {
            int64_t base = sqlite3_column_int64(runs, 2 * i), n = sqlite3_column_int64(runs, 2 * i + 1);
            if (n <= 0) continue;
            sqlite3_bind_int64(del[i], 2, base);
            sqlite3_bind_int64(del[i], 3, base + n - 1);
            if (sqlite3_step(del[i]) != SQLITE_DONE) rc = sqlfail(d, i ? "copies" : "kernels", err, errlen);
            sqlite3_reset(del[i]);
        }
    }
    if (!rc && s != SQLITE_DONE) rc = sqlfail(d, "runs", err, errlen);
    sqlite3_finalize(runs);
    for (int i = 0; i < 2; i++) sqlite3_finalize(del[i]);
    return rc;
}
