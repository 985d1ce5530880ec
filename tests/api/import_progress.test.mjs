// import_progress.test.mjs -- an import job's progress is real (issue 15):
// a big nvprof CSV (bench/gen_nvprof_csv.sh) sent to a server whose
// sync_bytes makes every upload a job; polling GET /api/jobs/{id} sees
// progress go 0 -> 1 without ever going down, values strictly between 0
// and 1 before the job is done (not just the old 0, 1/2, 1), the phase
// "parsing" before "storing" and never back, done/total in units of 1000
// with the parse within the first 800 (docs/api.md).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';

import { realTrace, repo, tempDir } from './server.mjs';
import { RAW, json, serve } from './serve_opts.mjs';

const SRC = 'nvprof_gputrace_magus_batchCUBLAS_gtx1080ti.csv';
const ROWS = 300000;   // ~37 MB: long enough to parse that a 5 ms poll sees it move

test('an nvprof CSV import job reports monotonic progress with values between 0 and 1 and its phase', async (t) => {
  const src = realTrace(t, SRC);
  if (!src) return;
  const traces = dirname(src);
  if (basename(traces) !== 'traces') { t.skip(`gen_nvprof_csv.sh reads SCHEDLAB_SHARED/traces; ${traces} is not named traces`); return; }
  const dir = tempDir('imp-progress');
  const csv = join(dir, 'big.csv');
  const g = spawnSync('sh', [join(repo, 'bench/gen_nvprof_csv.sh'), String(ROWS), csv],
    { env: { ...process.env, SCHEDLAB_SHARED: dirname(traces) }, encoding: 'utf8' });
  assert.equal(g.status, 0, g.stderr);
  const body = readFileSync(csv);
  const srv = await serve(['--budget', 'sync_bytes=1000'], { dir });
  try {
    const r = await json(`${srv.base}/api/imports?format=nvprof-csv&name=big.csv`, { method: 'POST', body, headers: RAW });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const seen = [];
    let last;
    for (const deadline = Date.now() + 120000; ;) {
      last = (await json(`${srv.base}/api/jobs/${r.body.job}`)).body;
      seen.push(last);
      if (last.state !== 'queued' && last.state !== 'running') break;
      assert.ok(Date.now() < deadline, `job still ${last.state}`);
      await new Promise((ok) => setTimeout(ok, 5));
    }
    assert.equal(last.state, 'done', JSON.stringify(last));
    assert.equal(last.status, 201);
    assert.equal(last.result.format, 'nvprof-csv');
    assert.equal(last.progress, 1);
    assert.equal(last.total, 1000);
    assert.equal(last.done, 1000);
    assert.equal(last.phase, undefined, 'phase is only there while the job runs');
    // never down
    for (let i = 1; i < seen.length; i++) {
      assert.ok(seen[i].progress >= seen[i - 1].progress, `progress went down: ${seen[i - 1].progress} then ${seen[i].progress}`);
      assert.ok(seen[i].done >= seen[i - 1].done);
    }
    const running = seen.filter((j) => j.state === 'running');
    const inside = running.filter((j) => j.progress > 0 && j.progress < 1);
    assert.ok(inside.length >= 1, `no progress strictly between 0 and 1 in ${seen.length} polls`);
    // more than the old three values: the parse itself moves the bar
    const parsing = running.filter((j) => j.phase === 'parsing');
    assert.ok(parsing.some((j) => j.progress > 0 && j.progress < 0.8),
      `no progress inside the parse: ${JSON.stringify(parsing.map((j) => j.progress))}`);
    for (const j of running) {
      assert.ok(j.phase === 'parsing' || j.phase === 'storing', `phase ${j.phase}`);
      if (j.phase === 'parsing') assert.ok(j.done <= 800, `parsing past 800: ${j.done}`);
      else assert.ok(j.done >= 800, `storing below 800: ${j.done}`);
    }
    const firstStoring = running.findIndex((j) => j.phase === 'storing');
    if (firstStoring >= 0) assert.ok(running.slice(firstStoring).every((j) => j.phase === 'storing'), 'phase went back to parsing');
    // the run holds every kernel and copy row of the file
    const run = await json(`${srv.base}/api/runs/${last.result.run}`);
    assert.equal(run.status, 200);
    t.diagnostic(`${seen.length} polls, ${inside.length} between 0 and 1 (${parsing.length} parsing)`);
  } finally {
    await srv.stop();
  }
});
