-- kpyramid.sql -- migration: the per-kernel occupancy pyramid of every run
-- (issue 9, for issue 15's legend in occupancy mode).
--
-- The per-SM pyramid (pyramid.sql) sums every kernel into one cell per
-- (bin, SM), so hiding a kernel could not be drawn from it. This one keeps
-- the same cells split by kernel: (level, bin, SM, kernel), on the same grid
-- (level z has bins of 2^z ns from time 0) from the run's finest level z0.
-- A kernel lives in a short time range, so it has cells only where its
-- blocks run (a cell exists only where some block of the kernel overlaps
-- the bin), and a kernel is stored only at z0, every third level above and
-- its top level, the first where its cells lie in at most two bins: a level
-- between is read from the stored one below it, a level above the top from
-- the top (a kernel spread over every SM has nearly as many cells at z+1 as
-- at z, so every level would cost several times the per-SM pyramid). The
-- total is about the per-SM pyramid's nonzero cells times the kernels
-- sharing an SM in a bin, never kernels x cells. Sums of cells of any set
-- of kernels are exact integers: a window of some kernels equals the raw
-- computation over their blocks, and the occupancy of all kernels but a few
-- hidden ones is the per-SM cells minus the hidden kernels' cells
-- (db_pyramid_bins_k).
--
-- Tile `tile` of level z, kernel `kernel` holds bins [tile*64, tile*64 + 64)
-- in the per-SM tiles' format: the nonzero (bin, SM) cells of the kernel in
-- order, each as unsigned LEB128 varints (gap to the previous cell's
-- position bin*sms + sm, thread-ns, block-ns, starts, running at the bin's
-- start). The key puts the kernel first: a window reads, kernel by kernel,
-- the stored level at or below its own and that level's tiles in range.
CREATE TABLE kernel_tiles (
    run    INTEGER NOT NULL,   -- runs.id; no foreign key, as the bulk tables
    z      INTEGER NOT NULL,
    tile   INTEGER NOT NULL,
    kernel INTEGER NOT NULL,   -- kernels.id
    cells  BLOB NOT NULL,
    PRIMARY KEY (run, kernel, z, tile)
) WITHOUT ROWID;

-- One row per run whose kernel tiles are stored (built with its `pyramids`
-- row). A run stored before this migration has none until its pyramid is
-- first read: both are built again then, once. sole_kernel: every counted
-- block of the run is of this kernel, so its cells are the per-SM cells and
-- no kernel tile is stored (a run of one big kernel costs nothing more).
CREATE TABLE kernel_pyramids (
    run         INTEGER PRIMARY KEY,   -- runs.id
    sole_kernel INTEGER                -- kernels.id, or NULL
);
