-- sweep.sql -- migration step 2 (db.c runs it on a database at user_version
-- 1, then sets user_version = 2): schedulability sweeps as experiments.
--
-- A sweep (schedlab sweep / merge, server/sweep.h) is an experiment with
-- source 'sweep' and no runs; its result, the schedlab-sweep-result/1 JSON
-- (a few KB: counts per point and approach), is one row of `sweeps`.
--
-- experiments.source has CHECK (source IN ('scenario', 'import')). SQLite
-- cannot ALTER a CHECK, and rebuilding `experiments` inside the migration's
-- transaction would cascade-delete every run (foreign_keys is ON and cannot
-- be turned off inside a transaction). Widening a CHECK changes no stored
-- row, so this uses SQLite's documented procedure for loosening
-- constraints (https://www.sqlite.org/lang_altertable.html, "making other
-- kinds of table schema changes"): rewrite the table's SQL in sqlite_schema
-- and reset the schema, all in the migration's transaction.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (source IN (''scenario'', ''import''))',
                          'CHECK (source IN (''scenario'', ''import'', ''sweep''))')
 WHERE type = 'table' AND name = 'experiments';
PRAGMA writable_schema = RESET;
PRAGMA writable_schema = OFF;

CREATE TABLE sweeps (
    experiment INTEGER PRIMARY KEY REFERENCES experiments(id) ON DELETE CASCADE,
    result     TEXT NOT NULL     -- schedlab-sweep-result/1
);
