// write_queue.test.mjs -- results finished behind a long import are stored
// once the import is done. Within `serve` every write takes the store's
// write lock (server/app/store.h) and waits for it as long as it takes;
// a sweep job's result and a replay's fidelity reports went to SQLite
// straight, waited SQLite's busy handler (DB_BUSY_TIMEOUT_MS, 30 s) for the
// import's write transaction and failed "database is locked", the sweep's
// computed result lost, the replay's runs left without their reports.
//
// The import holds the lock for a second or two here, not for the minutes
// of a several-hundred-MB upload: SCHEDLAB_TEST_BUSY_MS (tests only, db/db.h)
// makes SQLite's wait 100 ms, so the lock is held far past the busy limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { JSON_BODY, json, serve, waitJob } from './serve_opts.mjs';

const BUSY_MS = 100;
const env = { SCHEDLAB_TEST_BUSY_MS: String(BUSY_MS) };

// A globaltimer CSV of n blocks: a streaming format, so the import holds
// the write lock from its first row to its commit.
function csv(n, kernels = 50) {
  const rows = ['kernel,block,sm,start_ns,end_ns'];
  let x = 12345;
  const r = () => { x = (x * 1103515245 + 12345) & 0x7fffffff; return x; };
  for (let i = 0; i < n; i++) {
    const s = i * 1000 + (r() % 500);
    rows.push(`K${i % kernels},${Math.floor(i / kernels)},${r() % 80},${s},${s + 300 + (r() % 5000)}`);
  }
  return rows.join('\n') + '\n';
}

// the replay's measured run: 200,000 blocks, so its runs take a while to
// store (the moment the second test waits for); the import behind it: a
// million rows, its lock held for about a second, ten busy limits
const REPLAY_BLOCKS = 200000;
const IMPORT_BODY = csv(1000000);
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

async function postImport(base, body, name) {
  const r = await json(`${base}/api/imports?format=globaltimer-csv&name=${name}`, {
    method: 'POST', headers: { 'Content-Type': 'text/csv' }, body,
  });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body.job;
}

const job = async (base, id) => (await json(`${base}/api/jobs/${id}`)).body;

// Poll until the import job holds the write lock (running, its rows being
// read: a streaming import takes the lock before its first row).
async function untilImporting(base, id) {
  for (const deadline = Date.now() + 60000; ;) {
    const j = await job(base, id);
    assert.ok(['queued', 'running'].includes(j.state), `the import ended first: ${JSON.stringify(j)}`);
    if (j.state === 'running' && j.phase) return;
    assert.ok(Date.now() < deadline, 'the import never started');
    await sleep(10);
  }
}

test('a sweep finished behind an import holding the write lock past the busy limit is stored once the import is done', async () => {
  const s = await serve(['--budget', 'workers=2'], { env });
  try {
    const imp = await postImport(s.base, csv(3_000_000), 'long');
    await untilImporting(s.base, imp);
    const spec = {
      schema: 'schedlab-sweep/1', name: 'behind the import', seed: 5, tasksets: 20,
      x: { param: 'tasks', values: [4, 8] }, approaches: ['tsg_rr_suspend', 'gcaps_suspend_gprio'],
    };
    const r = await json(`${s.base}/api/sweeps`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify(spec) });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    // the sweep reaches its store while the import still holds the lock,
    // and waits there past the busy limit
    let met = null;
    for (;;) {
      const sj = await job(s.base, r.body.job);
      const ij = await job(s.base, imp);
      const storing = sj.state === 'running' && sj.phase === 'storing' && ij.state === 'running';
      if (storing && met === null) met = Date.now();
      if (!['queued', 'running'].includes(sj.state)) break;
      if (storing && Date.now() - met > 3 * BUSY_MS) met = -1;   /* waited past it */
      await sleep(5);
    }
    const end = await job(s.base, r.body.job);
    assert.equal(end.status, 201, `the sweep's result was lost: ${JSON.stringify(end)}`);
    assert.equal(met, -1, 'the sweep never waited on the import\'s lock past the busy limit (the import was too short to test this)');
    const stored = await json(`${s.base}/api/experiments/${end.result.slug}/sweep`);
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    assert.equal(stored.body.name, 'behind the import');
    assert.deepEqual(stored.body.spec.x.values, [4, 8]);
    assert.equal((await job(s.base, imp)).status, 201);
  } finally { assert.equal(await s.stop(), 0); }
});

test('a replay\'s fidelity reports are stored with its runs, though an import takes the write lock as soon as the runs are stored', async () => {
  const s = await serve(['--budget', 'workers=2'], { env });
  try {
    // the measured run: enough blocks that the replay stores its runs for a while
    const m = await postImport(s.base, csv(REPLAY_BLOCKS, 20), 'measured');
    const mj = await waitJob(s.base, m);
    assert.equal(mj.status, 201, JSON.stringify(mj));
    const run = mj.result.run;
    const rp = await json(`${s.base}/api/runs/${run}/replay`, { method: 'POST', headers: JSON_BODY, body: '{"device": "v100"}' });
    assert.equal(rp.status, 202, JSON.stringify(rp.body));
    // once its runs are simulated (the first half of its progress) the
    // replay holds the write lock to store them: the import queued now
    // waits for the lock and takes it the moment the runs are stored
    let imp = null;
    for (const deadline = Date.now() + 120000; ;) {
      const j = await job(s.base, rp.body.job);
      assert.ok(['queued', 'running'].includes(j.state), `the replay ended before its runs were being stored: ${JSON.stringify(j)}`);
      if (j.state === 'running' && j.total > 1 && j.done * 2 > j.total) break;
      assert.ok(Date.now() < deadline, 'the replay never got to storing its runs');
      await sleep(5);
    }
    imp = await postImport(s.base, IMPORT_BODY, 'behind');
    const end = await waitJob(s.base, rp.body.job);
    assert.equal(end.status, 201, `the replay failed: ${JSON.stringify(end)}`);
    assert.ok(end.result.runs.length >= 1);
    for (const r of end.result.runs) {
      assert.equal(typeof r.fidelity, 'object', JSON.stringify(r));
      const f = await json(`${s.base}/api/runs/${r.run}/fidelity`);
      assert.equal(f.status, 200, JSON.stringify(f.body));
      assert.equal(f.body.replay, true);
      assert.equal(f.body.measured_run, run);
    }
    const ij = await waitJob(s.base, imp);
    assert.equal(ij.status, 201, JSON.stringify(ij));
  } finally { assert.equal(await s.stop(), 0); }
});
