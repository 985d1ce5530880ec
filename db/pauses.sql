-- pauses.sql -- migration step 4: preempted blocks (issue 13).
--
-- A block whose GPU context the driver switched out (time slicing, a GCAPS
-- preemption) keeps its first start and final end in `blocks`; each interval
-- in which it was resident but did not run is one row here (simcore/trace.h,
-- trace_pause). `block` is the block's `seq` in its run. Like the other bulk
-- tables it carries no foreign key (see schema.sql).
CREATE TABLE pauses (
    run   INTEGER NOT NULL,
    seq   INTEGER NOT NULL,
    block INTEGER NOT NULL,
    start INTEGER NOT NULL,
    stop  INTEGER NOT NULL,
    CHECK (stop >= start),
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
CREATE INDEX pauses_run_block ON pauses(run, block);
