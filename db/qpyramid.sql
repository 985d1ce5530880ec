-- qpyramid.sql -- migration: the queue-length pyramid of every run (issue 9:
-- "The same for queue lengths"; issue 15's Queues view at any zoom).
--
-- A queue's length is a step function of time (db_queue_series). Level z
-- has bins of 2^z ns from time 0, bin k = [k*2^z, (k+1)*2^z), as the
-- occupancy pyramid (pyramid.sql). A bin holds two integers per queue: the
-- integral of the length over the bin (item-ns; the time-weighted mean is it
-- divided by 2^z) and the largest length in the bin. Both are exact, and a
-- coarser bin is its two halves' sum and max, so every level equals the
-- same bins computed from queue_events (db/qpyramid.h).
--
-- One row per (run, queue, level) from the finest stored level z0 up to
-- ztop, the first whose bins of the run's event span are a single one.
-- Bins k0 .. k0 + n - 1 are stored as n pairs (integral, max), each value
-- minus the previous bin's (0 before the first), zigzag-mapped, as unsigned
-- LEB128 varints (an unchanged length costs 2 bytes a bin); a bin before k0 lies before the run's first event (0, 0),
-- one after the last lies past its last event: the length stays last_len.
CREATE TABLE queue_bins (
    run      INTEGER NOT NULL,   -- runs.id; no foreign key, as the bulk tables
    queue    INTEGER NOT NULL,   -- the queue's place in order of first event
    name     TEXT NOT NULL,      -- the queue's name
    z        INTEGER NOT NULL,
    k0       INTEGER NOT NULL,
    last_len INTEGER NOT NULL,   -- the queue's length after its last event
    bins     BLOB NOT NULL,
    PRIMARY KEY (run, queue, z)
) WITHOUT ROWID;

-- One row per run whose queue bins are stored: built on the run's first
-- binned read (db_qpyramid_bins; why not at store: qpyramid.h), old runs
-- alike. z0 > ztop: the run has no queue events.
CREATE TABLE queue_pyramids (
    run     INTEGER PRIMARY KEY,   -- runs.id
    z0      INTEGER NOT NULL,
    ztop    INTEGER NOT NULL,
    nqueues INTEGER NOT NULL
);
