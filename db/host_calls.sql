-- host_calls.sql -- migration step 25: the host's calls of a run whose CPU
-- tasks can be held (a sync, a blocking copy: TX2 paper §2.3;
-- simcore/trace.h, trace_host_call; docs/trace-format.md "host_calls").
--
-- One row per call, in the order the host made them (seq). `kind` is
-- trace_call_kind (0 kernel, 1 copy, 2 stream sync, 3 device sync);
-- `record` the kernel's or copy's index in its run (-1 for a sync); `task`,
-- `name`, `stream`, `process` are strings.id (NULL: none). A replay of the
-- stored run makes the same calls (server/app/replay.c). Like the other
-- bulk tables it carries no foreign key (see schema.sql); deleting an
-- experiment clears it by its `run` column (versions.c).
CREATE TABLE host_calls (
    run      INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    kind     INTEGER NOT NULL CHECK (kind BETWEEN 0 AND 3),
    record   INTEGER NOT NULL,
    task     INTEGER,
    name     INTEGER,
    stream   INTEGER,
    process  INTEGER,
    at       INTEGER,
    issue    INTEGER,
    stop     INTEGER,
    blocking INTEGER NOT NULL CHECK (blocking IN (0, 1)),
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
