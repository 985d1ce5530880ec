-- versions.sql -- migration step (issue 15): edit and re-run. A scenario
-- experiment edited in the dashboard is simulated again and its new runs
-- are stored under the same experiment as its next version; the scenario
-- text of every version is kept here (experiments.scenario_json holds the
-- newest), and each run names the version it was simulated from. Runs
-- stored before this step, and imports, are version 1.
ALTER TABLE runs ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

CREATE TABLE experiment_versions (
    experiment    INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
    version       INTEGER NOT NULL,
    scenario_json TEXT NOT NULL,
    created       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (experiment, version)
) WITHOUT ROWID;
