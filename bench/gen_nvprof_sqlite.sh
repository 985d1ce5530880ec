#!/bin/sh
# gen_nvprof_sqlite.sh ROWS OUT -- a large nvprof SQLite export: the real
# RTX 2080 Ti export (../shared/traces, schema Version 18) with its 72
# concurrent-kernel rows repeated, shifted in time, until there are ROWS.
set -eu
rows=$1 out=$2
src=${SCHEDLAB_SHARED:-../shared}/traces/nvprof_export_v18_ksched_rtx2080ti_timeline.prof
rm -f "$out"
cp "$src" "$out"
chmod u+w "$out"
cols=$(sqlite3 "$out" "SELECT group_concat(name, ',') FROM pragma_table_info('CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL') WHERE name NOT IN ('_id_','start','end','completed','correlationId')")
sqlite3 "$out" <<SQL
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
CREATE TEMP TABLE seed AS SELECT * FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
WITH span(s) AS (SELECT max("end") - min(start) + 1000 FROM seed),
     rep(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM rep WHERE i * (SELECT count(*) FROM seed) < $rows)
INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL($cols, start, "end", completed, correlationId)
SELECT $cols, start + i * s, "end" + i * s, completed + i * s, correlationId + i * 100000
FROM rep, span, seed
LIMIT $rows - (SELECT count(*) FROM seed);
SQL
