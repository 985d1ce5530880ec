-- cohort_view.sql -- migration step 19: a cohort run's blocks in the views
-- (issue 28, "the placement view of a replay draws them").
--
-- A run simulated with cohorts (cohorts.sql) keeps most of its blocks as
-- cohort rows; its block windows (GET /api/runs/{run}/blocks), occupancy
-- pyramids (pyramid.sql, kpyramid.sql) and exports count them as the
-- blocks they stand for (db/cohort_window.c, db/pyramid.c).
--
-- A window [from, to) reads the cohorts whose first wave starts in
-- [from - span, to), span being the run's widest cohort: from its start to
-- its last wave's end, (count - 1) / per_wave * period + stop - start. The
-- index puts them in start order, the order a window answers in.
CREATE INDEX cohorts_run_start ON cohorts(run, start, seq);

CREATE TABLE cohort_spans (
    run  INTEGER PRIMARY KEY,   -- runs.id; no foreign key, as the bulk tables
    span INTEGER NOT NULL
);
INSERT INTO cohort_spans(run, span)
    SELECT run, max((count - 1) / per_wave * period + stop - start) FROM cohorts GROUP BY run;

-- Runs stored with cohorts before this step counted only their other blocks
-- (n_blocks, max_block_dur) and left the cohorts out of their pyramids:
-- counted again here, and their pyramids built again on first read.
UPDATE runs SET
    n_blocks = n_blocks + (SELECT sum(count) FROM cohorts WHERE cohorts.run = runs.id),
    max_block_dur = max(coalesce(max_block_dur, 0),
                        (SELECT max(stop - start) FROM cohorts WHERE cohorts.run = runs.id))
    WHERE id IN (SELECT run FROM cohort_spans);
DELETE FROM pyramid_tiles WHERE run IN (SELECT run FROM cohort_spans);
DELETE FROM pyramids WHERE run IN (SELECT run FROM cohort_spans);
DELETE FROM kernel_tiles WHERE run IN (SELECT run FROM cohort_spans);
DELETE FROM kernel_pyramids WHERE run IN (SELECT run FROM cohort_spans);
