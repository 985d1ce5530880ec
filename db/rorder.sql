-- rorder.sql -- migration: the sort orders of a run's kernels and copies,
-- for the paged tables of the run view (GET /api/runs/{run}/kernels?offset=
-- &limit=&sort=&order=&name=, docs/api.md).
--
-- Why: a kernel-level import holds a million kernels, and the Kernels tab
-- shows them a page at a time, sorted by any column. `kernels` and `copies`
-- have no run column (each run is a rowid range, row_ranges.sql), so an
-- index on (run, column) cannot exist, and an ORDER BY over the range sorts
-- a million rows per request. Instead each order a request asks for is
-- computed once (db/rorder.c), on its first request, and stored as the
-- permutation of the run's ids: page p holds positions p*1024 .. p*1024 +
-- 1023 as 4-byte little-endian ids. A page of the table is then at most two
-- permutation rows and its rows read by rowid.
--
-- `variant` names the order: the column (rorder.h's ROR_K_* / ROR_C_*),
-- plus 16 when descending, plus 32 when grouped by name first (the name
-- filter: one name's rows are then a contiguous range of positions, found
-- by binary search). Deleted with the run (db_delete_experiment deletes the
-- rows of every table with a `run` column).
CREATE TABLE record_orders (
    run     INTEGER NOT NULL,   -- runs.id; no foreign key, as the bulk tables
    kind    INTEGER NOT NULL,   -- 0: kernels, 1: copies
    variant INTEGER NOT NULL,
    page    INTEGER NOT NULL,
    ids     BLOB NOT NULL,
    PRIMARY KEY (run, kind, variant, page)
) WITHOUT ROWID;
