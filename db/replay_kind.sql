-- replay_kind.sql -- migration step 26: the experiment of a several-GPU
-- replay is a replay's, as a one-GPU replay's is ("scenario": its runs are
-- simulated, not recorded; imports may not add to it, store.c
-- import_target). server/http/replay_devices_store.c stored it as
-- "import" before this step, so the dashboard tagged it "import", the
-- upload form offered it under "Into" and imports into it were accepted.
--
-- Such an experiment is recognised by its runs' fidelity reports: only a
-- replay writes a fidelity row (replay_api.c for one GPU, into a
-- "scenario" experiment; replay_devices_store.c for several), never an
-- import, so an "import" experiment holding a run with a report is a
-- several-GPU replay's (runs imported into it meanwhile stay in it).
UPDATE experiments SET source = 'scenario'
 WHERE source = 'import'
   AND EXISTS (SELECT 1 FROM runs JOIN fidelity ON fidelity.run = runs.id
                WHERE runs.experiment = experiments.id);
