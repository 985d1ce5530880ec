-- cohorts.sql -- migration step 17: cohorts of identical blocks (issue 28,
-- "cost by kernels, not blocks").
--
-- A run simulated with cohorts (simcore/cohort.c; a scenario's "cohorts":
-- true) keeps `count` identical blocks of one kernel on one SM as one row
-- (simcore/trace.h, trace_cohort): block j (0 <= j < count) has index
-- first + j * stride and starts at start + (j / per_wave) * period, running
-- stop - start. Blocks that are not in a cohort stay in `block_pages`. Like
-- the other bulk tables it carries no foreign key (see schema.sql); `kernel`
-- is the kernel's index in its run, as a block's is.
CREATE TABLE cohorts (
    run      INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    kernel   INTEGER NOT NULL,
    sm       INTEGER NOT NULL,
    first    INTEGER NOT NULL,
    stride   INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    per_wave INTEGER NOT NULL,
    start    INTEGER NOT NULL,
    stop     INTEGER NOT NULL,
    period   INTEGER NOT NULL,
    CHECK (count >= 1 AND per_wave >= 1 AND per_wave <= count AND stop >= start AND period >= 0),
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
