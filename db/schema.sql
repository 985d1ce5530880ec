-- schema.sql -- schedlab's SQLite store, migration step 1 (db.c runs it on a
-- database whose PRAGMA user_version is 0, then sets user_version = 1).
--
-- One run is one trace (simcore/trace.h). The strings of a run's rows
-- (kernel and copy names, streams, processes, queues, items, tasks) are stored
-- once per run in `strings`, under the id the trace interned them with, and
-- rows carry that id: a 1M-row nvprof import repeats a few dozen names, and
-- text in every row made its database 2.5x larger and db_store_run 1.4x
-- slower (measured: 0.94 s -> 0.65 s). Readers load a run's strings once and
-- map ids, which costs fewer instructions than interning text per row.
-- Unknown values (TRACE_NONE, TRACE_PRIO_NONE, absent strings) are NULL.
-- Child rows carry `run` (runs.id) first so every per-run read is a range scan
-- of a primary key or index. The small child tables (devices, run_meta)
-- reference runs(id) with ON DELETE CASCADE; the bulk ones (strings, kernels,
-- blocks, copies, queue_events, warp_issues, jobs) do not: the per-row
-- foreign-key lookup made storing a million blocks 1.8x slower (0.30 -> 0.53 M
-- blocks/s measured) and costs a 200k-row nvprof import 9% of its store
-- instructions, and db_store_run writes them only for the run it has just
-- inserted, in the same transaction. Deleting a run must delete its rows of
-- those seven tables explicitly.

CREATE TABLE experiments (
    id            INTEGER PRIMARY KEY,
    slug          TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    description   TEXT,
    source        TEXT NOT NULL CHECK (source IN ('scenario', 'import')),
    scenario_file TEXT,       -- shipped scenario's file name; `serve` seeds each file once
    scenario_json TEXT,       -- the scenario text the runs were simulated from
    created       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX experiments_scenario_file ON experiments(scenario_file)
    WHERE scenario_file IS NOT NULL;

CREATE TABLE runs (
    id             INTEGER PRIMARY KEY,
    slug           TEXT NOT NULL UNIQUE,
    experiment     INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
    name           TEXT NOT NULL,   -- the run's name in its experiment ("default", a variant)
    trace_name     TEXT,            -- trace.name
    source         TEXT NOT NULL,   -- "simulation", "nvprof-csv", ...
    origin         INTEGER NOT NULL DEFAULT 0,
    created        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    -- summary, computed once at store time so listing runs reads no child rows
    n_kernels      INTEGER NOT NULL,
    n_blocks       INTEGER NOT NULL,
    n_copies       INTEGER NOT NULL,
    n_queue_events INTEGER NOT NULL,
    n_warp_issues  INTEGER NOT NULL,
    n_jobs         INTEGER NOT NULL,
    t_min          INTEGER,
    t_max          INTEGER,
    sms            INTEGER NOT NULL,
    -- longest block: bounds the window scan `start >= from - max_block_dur`
    max_block_dur  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_experiment ON runs(experiment, id);

-- The device of a run (absent row: the source named no device).
CREATE TABLE devices (
    run                   INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    name                  TEXT NOT NULL,
    sms                   INTEGER NOT NULL,
    threads_per_sm        INTEGER NOT NULL,
    max_threads_per_block INTEGER NOT NULL,
    blocks_per_sm         INTEGER NOT NULL,
    warps_per_sm          INTEGER NOT NULL,
    regs_per_sm           INTEGER NOT NULL,
    max_regs_per_block    INTEGER NOT NULL,
    smem_per_sm           INTEGER NOT NULL,
    max_smem_per_block    INTEGER NOT NULL,
    warp_size             INTEGER NOT NULL,
    schedulers_per_sm     INTEGER NOT NULL,
    copy_engines          INTEGER NOT NULL,
    copy_bandwidth        REAL NOT NULL,
    clock_hz              INTEGER NOT NULL,
    sm_order_kind         INTEGER NOT NULL,  -- sim_sm_order_kind
    sm_order              TEXT NOT NULL      -- "0,2,1,3": the tie-break order
);

CREATE TABLE run_meta (
    run   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq   INTEGER NOT NULL,
    key   TEXT NOT NULL,
    value TEXT,
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;

-- A run's strings; the columns marked "strings.id" below name one of them.
CREATE TABLE strings (
    run  INTEGER NOT NULL,
    id   INTEGER NOT NULL,   -- the trace_str id the trace interned it with
    text TEXT NOT NULL,
    PRIMARY KEY (run, id)
) WITHOUT ROWID;

-- (Since db/row_ranges.sql kernels and copies are rowid tables without run
-- and id, each run's rows a contiguous range of rowids; see there.)
CREATE TABLE kernels (
    run              INTEGER NOT NULL,
    id               INTEGER NOT NULL,   -- index in trace.kernels
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
    PRIMARY KEY (run, id)
) WITHOUT ROWID;

-- Blocks are the bulk of a run (millions). (Since db/block_pages.sql they are
-- stored as pages of 256 in `block_pages` and this table is dropped.) The primary key keeps the trace's
-- order for export; blocks_run_start makes "blocks of run R overlapping
-- [from, to)" the range `start >= from - max_block_dur AND start < to`.
CREATE TABLE blocks (
    run    INTEGER NOT NULL,
    seq    INTEGER NOT NULL,
    kernel INTEGER NOT NULL,
    idx    INTEGER NOT NULL,
    sm     INTEGER NOT NULL,
    start  INTEGER,
    stop   INTEGER,
    CHECK (start IS NULL OR stop IS NULL OR stop >= start),
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
CREATE INDEX blocks_run_start ON blocks(run, start);

CREATE TABLE copies (
    run       INTEGER NOT NULL,
    id        INTEGER NOT NULL,
    name      INTEGER,            -- strings.id, as are stream, process
    stream    INTEGER,
    process   INTEGER,
    direction INTEGER NOT NULL,   -- trace_copy_dir
    engine    INTEGER NOT NULL,
    bytes     INTEGER,
    issue     INTEGER,
    start     INTEGER,
    stop      INTEGER,
    PRIMARY KEY (run, id)
) WITHOUT ROWID;

CREATE TABLE queue_events (
    run   INTEGER NOT NULL,
    seq   INTEGER NOT NULL,
    t     INTEGER NOT NULL,
    queue INTEGER NOT NULL,   -- strings.id
    item  INTEGER,            -- strings.id
    event INTEGER NOT NULL CHECK (event IN (0, 1)),   -- trace_queue_op
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
CREATE INDEX queue_events_run_t ON queue_events(run, t);

CREATE TABLE warp_issues (
    run   INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    sm      INTEGER NOT NULL,
    subcore INTEGER NOT NULL,
    warp    INTEGER NOT NULL,
    kernel  INTEGER NOT NULL,
    cycle   INTEGER NOT NULL,
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;

CREATE TABLE jobs (
    run      INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    task     INTEGER,            -- strings.id
    job      INTEGER NOT NULL,
    release  INTEGER,
    start    INTEGER,
    stop     INTEGER,
    deadline INTEGER,
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
