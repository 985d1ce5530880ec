-- fidelity.sql -- migration step 3 (db.c runs it on a database at
-- user_version 2, then sets user_version = 3): the fidelity report of a
-- replay (issue 10).
--
-- A replay (POST /api/runs/{run}/replay) stores the simulated runs of the
-- scenario `schedlab replay` derives from a measured run as a new
-- experiment; each simulated run gets one row here naming the measured run
-- it replays, so the comparison view keeps the hardware run beside the
-- simulations, and the report (schedlab-fidelity/1 JSON, server/fidelity.h:
-- per-kernel start and duration errors, their median and 90th percentile,
-- the makespan difference, the worst kernels).
CREATE TABLE fidelity (
    run      INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,  -- simulated
    measured INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,     -- the hardware run
    report   TEXT NOT NULL                                               -- schedlab-fidelity/1
);
CREATE INDEX fidelity_measured ON fidelity(measured);
