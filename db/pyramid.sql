-- pyramid.sql -- migration: the occupancy pyramid of every run, and a
-- covering index for block windows (issue 9).
--
-- A stored run never changes, so what its timeline shows at any zoom can be
-- computed once, when the run is stored (db/pyramid.c), and read back as a
-- few blobs: the MBTiles design of map servers. Level z has bins of 2^z ns on
-- a grid fixed at time 0 (bin k is [k*2^z, (k+1)*2^z)), so a bin of level z+1
-- is exactly two bins of level z and a window at any zoom is a short range of
-- one level. Each bin holds, per SM, the integrals over the bin of busy
-- threads and of resident blocks (thread-ns, block-ns: integers, exact), the
-- blocks that start in it and those already running at its start.
--
-- `pyramids` has one row per run whose pyramid exists: z0 is the finest level
-- (chosen so that level holds about as many bins as the run has blocks, at
-- most 2^20 bin x SM cells), ztop the coarsest level stored (one bin holds the
-- whole run). A run stored before this migration has no row until its pyramid
-- is first asked for (built then, once). z0 > ztop: the run has no blocks.
CREATE TABLE pyramids (
    run  INTEGER PRIMARY KEY,   -- runs.id; no foreign key, as the bulk tables
    z0   INTEGER NOT NULL,
    ztop INTEGER NOT NULL,
    sms  INTEGER NOT NULL,      -- cells per bin: blocks on SMs 0..sms-1
    t_lo INTEGER,               -- the blocks' first start and last end (NULL: none):
    t_hi INTEGER                -- outside [t_lo, t_hi) every cell is zero
);

-- Tile `tile` of level z holds bins [tile*64, tile*64 + 64) of that level:
-- the nonzero (bin, SM) cells in order, each as unsigned LEB128 varints
-- (gap to the previous cell's position bin*sms + sm, thread-ns, block-ns,
-- starts, running at the bin's start). Levels above ztop are not stored: one
-- bin holds everything there.
CREATE TABLE pyramid_tiles (
    run   INTEGER NOT NULL,
    z     INTEGER NOT NULL,
    tile  INTEGER NOT NULL,
    cells BLOB NOT NULL,
    PRIMARY KEY (run, z, tile)
) WITHOUT ROWID;

-- The window scan reads kernel, idx, sm, start, stop of the blocks whose
-- start is in a range; with only (run, start) in the index every row cost a
-- second search of the primary key. `seq` follows `start` so the index order
-- is the answer's order (ORDER BY start, seq) and needs no sort.
DROP INDEX blocks_run_start;
CREATE INDEX blocks_run_start ON blocks(run, start, seq, stop, kernel, idx, sm);
