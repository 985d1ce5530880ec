-- spyramid.sql -- migration: the per-stream pyramid of kernel-level traces
-- (issue 9: "per SM (and per stream for kernel-level traces)"). nvprof and
-- Nsight Systems traces have kernels but no blocks; the run view draws them
-- as bars per stream, and a 1M-kernel import cannot be fetched whole.
--
-- A lane is a (process, stream) pair. Per lane, the number of its kernels
-- running at time t (a kernel runs on [first_block (issue when unknown),
-- end)) and their threads (blocks x threads per block, 0 when unknown) are
-- integer step functions. Level z has bins of 2^z ns from time 0, bin k =
-- [k*2^z, (k+1)*2^z), as pyramid.sql and qpyramid.sql. A bin holds four
-- integers: the integrals of running kernels (kernel-ns) and of busy
-- threads (thread-ns), and the largest number of running kernels and of
-- busy threads it sees. All exact; a coarser bin is its halves' sums and
-- maxima.
--
-- A cell is the kernels of one lane (name -1: every kernel of the lane),
-- or those of one lane and one kernel name (the legend hides by name; a
-- lane whose names are all shown reads its whole-lane cell, so its maxima
-- stay exact). Bins k0 .. k0 + n - 1 of a cell are stored as 4n values,
-- each minus the previous bin's, zigzag-mapped, as LEB128 varints; a bin
-- outside them holds no running kernel of the cell.
--
-- Built on a run's first windowed read (db_spyramid_*), not when the run is
-- stored: a run of blocks never needs it, and building at store time raises
-- the server's peak RSS (qpyramid.h).
CREATE TABLE stream_bins (
    run   INTEGER NOT NULL,   -- runs.id; no foreign key, as the bulk tables
    z     INTEGER NOT NULL,
    cell  INTEGER NOT NULL,   -- the cell's place in stream_cells
    k0    INTEGER NOT NULL,
    bins  BLOB NOT NULL,
    PRIMARY KEY (run, z, cell)
) WITHOUT ROWID;

CREATE TABLE stream_cells (
    run   INTEGER NOT NULL,
    cell  INTEGER NOT NULL,
    lane  INTEGER NOT NULL,   -- stream_lanes.lane
    name  INTEGER NOT NULL,   -- stream_names.idx; -1: every kernel of the lane
    PRIMARY KEY (run, cell)
) WITHOUT ROWID;

-- lanes in order of their first kernel (by id)
CREATE TABLE stream_lanes (
    run     INTEGER NOT NULL,
    lane    INTEGER NOT NULL,
    process TEXT,
    stream  TEXT,
    PRIMARY KEY (run, lane)
) WITHOUT ROWID;

-- the run's distinct kernel names in order of first appearance by kernel
-- id: the order of the legend and of share links' k= (docs/api.md)
CREATE TABLE stream_names (
    run   INTEGER NOT NULL,
    idx   INTEGER NOT NULL,
    name  TEXT NOT NULL,
    PRIMARY KEY (run, idx)
) WITHOUT ROWID;

-- One row per run whose stream pyramid is built. z0 > ztop: no kernel with
-- known times. chunks: per 1,024 kernel ids (id / 1024), the earliest start
-- and the latest end of its kernels with known times and their number,
-- three little-endian int64 each (INT64_MAX, INT64_MIN, 0: none): a
-- window's kernels are read from the id ranges of the chunks it overlaps,
-- with no time index on kernels (which would slow every import's store),
-- and the chunks strictly inside it say when it surely holds more than max.
CREATE TABLE stream_pyramids (
    run      INTEGER PRIMARY KEY,
    z0       INTEGER NOT NULL,
    ztop     INTEGER NOT NULL,
    nlanes   INTEGER NOT NULL,
    nnames   INTEGER NOT NULL,
    ncells   INTEGER NOT NULL,
    nkernels INTEGER NOT NULL,   -- kernels with known times
    t_min    INTEGER,
    t_max    INTEGER,
    chunks   BLOB NOT NULL
);

-- Copies (memcpy / memset rows) of kernel-level traces, by the same grid:
-- a 1M-row nvprof trace is mostly copies, and the run view draws them per
-- copy engine (a copy without an engine on engine 0, as the timeline lays
-- it out), coloured by direction. A copy runs on [start, stop). A cell is
-- one engine's copies (direction -1) or those of one engine and one
-- direction (trace_copy_dir); a bin holds two integers: the integral of
-- running copies (copy-ns) and the largest number running at once, stored
-- as stream_bins' blobs with two values a bin. Built on the run's first
-- windowed read of its copies, as the kernels' tables.
CREATE TABLE copy_bins (
    run   INTEGER NOT NULL,
    z     INTEGER NOT NULL,
    cell  INTEGER NOT NULL,   -- copy_cells.cell
    k0    INTEGER NOT NULL,
    bins  BLOB NOT NULL,
    PRIMARY KEY (run, z, cell)
) WITHOUT ROWID;

CREATE TABLE copy_cells (
    run       INTEGER NOT NULL,
    cell      INTEGER NOT NULL,
    engine    INTEGER NOT NULL,   -- the lane: copies.engine, 0 when it has none
    direction INTEGER NOT NULL,   -- trace_copy_dir; -1: every copy of the engine
    PRIMARY KEY (run, cell)
) WITHOUT ROWID;

-- One row per run whose copy pyramid is built: as stream_pyramids, chunks
-- per 1,024 copy ids.
CREATE TABLE copy_pyramids (
    run      INTEGER PRIMARY KEY,
    z0       INTEGER NOT NULL,
    ztop     INTEGER NOT NULL,
    ncells   INTEGER NOT NULL,
    ncopies  INTEGER NOT NULL,   -- copies with known times
    t_min    INTEGER,
    t_max    INTEGER,
    chunks   BLOB NOT NULL
);
