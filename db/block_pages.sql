-- block_pages.sql -- migration: a run's blocks as pages of 256 in one blob
-- each, replacing the row-per-block `blocks` table (issue 9). db.c then runs
-- dbi_bpage_migrate (db/bpage.c): every stored run's blocks are re-encoded
-- into pages and `blocks` is dropped.
--
-- Why: with a row per block, every block was two b-tree inserts of seven
-- columns (the table, clustered on (run, seq) for export, and the covering
-- index blocks_run_start for windows): streaming a simulation into SQLite
-- ran at 1.2 M blocks/s of CPU, 775 ns per block in the store, and 62 bytes
-- per block on disk. A page of 256 blocks is one insert of about 10 bytes
-- per block (bpage.h: varint deltas); a window decodes the pages its bounds
-- select. Measured (bench_sim --db, h100, 4 M blocks, CPU time): see
-- docs/bench.md.
--
-- Page `page` of run `run` holds blocks seq page*256 .. page*256 + n - 1
-- in trace order (export and pauses need seq; streaming needs one page in
-- memory). s_lo/s_hi/e_hi bound the blocks a window can return (both times
-- known): the least and greatest start and the greatest stop; NULL when the
-- page has no such block. A window [from, to) needs the blocks with
-- from - max_block_dur <= start < to and stop > from, in (start, seq) order:
-- the candidate pages are a range of block_pages_start on s_lo (widened by
-- the run's `span`, the widest s_hi - s_lo of its pages, in block_spans),
-- and bpage_window merges their blocks in order. A simulation emits blocks
-- in start order, so its pages are narrow and a window reads only its own
-- pages plus one at each edge.
--
-- A rowid table, not WITHOUT ROWID like the other bulk tables: a row of an
-- index b-tree (which is what WITHOUT ROWID is) keeps at most about 1 KB in
-- its leaf on 4 KB pages and spills the rest to an overflow page of its
-- own, so 2 KB pages took 70 MB for 31 MB of blobs (4 M blocks); a table
-- b-tree keeps up to 4 KB in the leaf.
CREATE TABLE block_pages (
    run   INTEGER NOT NULL,   -- runs.id; no foreign key, as the bulk tables
    page  INTEGER NOT NULL,
    n     INTEGER NOT NULL,   -- blocks in the page, 1..256 (256 but the last)
    s_lo  INTEGER,
    s_hi  INTEGER,
    e_hi  INTEGER,
    cells BLOB NOT NULL       -- bpage_encode of the n blocks
);
CREATE UNIQUE INDEX block_pages_page ON block_pages(run, page);
CREATE INDEX block_pages_start ON block_pages(run, s_lo, page, s_hi, e_hi)
    WHERE s_lo IS NOT NULL;

-- One row per run with pages: the widest page, s_hi - s_lo (0: none).
CREATE TABLE block_spans (
    run  INTEGER PRIMARY KEY,
    span INTEGER NOT NULL
);
