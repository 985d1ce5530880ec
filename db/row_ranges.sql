-- row_ranges.sql -- migration: kernels and copies as rowid tables, each run
-- owning a contiguous range of rowids (issue 9). db.c then runs
-- dbi_row_ranges_migrate (db/db_store.c), which checks that every stored
-- run's rows are numbered 0 .. n - 1, copies them into the new tables and
-- drops the old ones.
--
-- Why: `kernels` and `copies` were WITHOUT ROWID tables keyed (run, id),
-- that is index b-trees, and an append to an index b-tree rebalances three
-- leaves (balance_nonroot) where a rowid table's append at its right edge
-- takes balance_quick. A streamed 1 M-row nvprof import (81 % copies) spent
-- 19.5 % of its store thread's sqlite3_step there; measured numbers are in
-- docs/bench.md.
--
-- Kernel `id` of run R is row kernel_base + id of `kernels`, for
-- 0 <= id < n_kernels (runs.kernel_base, runs.n_kernels); copies the same
-- with copy_base, n_copies. A run's rows are written while it is the only
-- run being stored, its base being one past the table's largest rowid then,
-- so the ranges of two runs never overlap. A run without kernels (copies)
-- keeps base 0 and an empty range. The rows have no `run` and `id`
-- columns: those are the range, and db_delete_experiment deletes the ranges.
ALTER TABLE runs ADD COLUMN kernel_base INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN copy_base INTEGER NOT NULL DEFAULT 0;

-- the columns of schema.sql's kernels (less run and id) and warp.sql's and
-- qos.sql's additions, in that order
CREATE TABLE kernel_rows (
    name             INTEGER,            -- strings.id, as are raw_name, stream, process
    raw_name         INTEGER,
    stream           INTEGER,
    process          INTEGER,
    priority         INTEGER,
    threads          INTEGER NOT NULL,
    issue            INTEGER,
    first_block      INTEGER,
    fully_dispatched INTEGER,
    stop             INTEGER,            -- trace_kernel.end
    blocks           INTEGER NOT NULL,
    smem             INTEGER,
    regs             INTEGER NOT NULL,
    grid_x INTEGER NOT NULL, grid_y INTEGER NOT NULL, grid_z INTEGER NOT NULL,
    block_x INTEGER NOT NULL, block_y INTEGER NOT NULL, block_z INTEGER NOT NULL,
    instructions     INTEGER NOT NULL DEFAULT 0,
    ipc              REAL NOT NULL DEFAULT 0,
    qos_goal         REAL NOT NULL DEFAULT 0,
    ipc_isolated     REAL NOT NULL DEFAULT 0,
    ipc_shared       REAL NOT NULL DEFAULT 0,
    qos_met          INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE copy_rows (
    name      INTEGER,            -- strings.id, as are stream, process
    stream    INTEGER,
    process   INTEGER,
    direction INTEGER NOT NULL,   -- trace_copy_dir
    engine    INTEGER NOT NULL,
    bytes     INTEGER,
    issue     INTEGER,
    start     INTEGER,
    stop      INTEGER
);
