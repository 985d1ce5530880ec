// host_calls.test.mjs -- GET /api/runs/{run}/host_calls and the summary's
// `host_calls` count (docs/api.md), on the shipped run of
// scenarios/tx2-fig3-task-sync.json: tau1 calls cudaStreamSynchronize(S2)
// (the sync op Y) right after launching K4, and the stored run answers
// with the host's calls the export writes (docs/trace-format.md
// "host_calls"), the sync's call and return times among them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { expectError, expectImmutable, getJson, repo, startServer } from './server.mjs';

const SEC = 1000000000;
const scenario = JSON.parse(readFileSync(join(repo, 'scenarios/tx2-fig3-task-sync.json'), 'utf8'));
let srv;
let syncRun;
let plainRun;

before(async () => {
  srv = await startServer();
  const { body } = await getJson(`${srv.base}/api/experiments`);
  for (const e of body.experiments) {
    const full = (await getJson(`${srv.base}/api/experiments/${e.slug}?scenario=0`)).body;
    if (full.scenario_file === 'tx2-fig3-task-sync.json') syncRun = full.runs[0];
    if (full.scenario_file === 'tx2-fig3-basic-rules.json') plainRun = full.runs[0];
  }
  assert.ok(syncRun, 'the shipped tx2-fig3-task-sync is stored');
  assert.ok(plainRun, 'the shipped tx2-fig3-basic-rules is stored');
});

after(async () => { assert.equal(await srv.stop(), 0); });

// "0.2s" -> ns (the scenario's times are all in s)
const secs = (s) => Math.round(Number(/^([\d.]+)s$/.exec(s)[1]) * SEC);
const op = (name) => scenario.ops.find((o) => (o.kernel || o.copy || o.sync) === name);

test('the sync of tx2-fig3-task-sync: called by tau1 at its scripted time, returned when K4 completes', async () => {
  const r = await getJson(`${srv.base}/api/runs/${syncRun.run}/host_calls`);
  assert.equal(r.status, 200);
  const calls = r.body.host_calls;
  // one call per op of the scenario, in the host's order (by `at`)
  assert.equal(calls.length, scenario.ops.length);
  assert.equal(syncRun.summary.host_calls, scenario.ops.length);
  const run = (await getJson(`${srv.base}/api/runs/${syncRun.run}`)).body;
  assert.equal(run.summary.host_calls, scenario.ops.length);
  const syncs = calls.filter((c) => c.sync !== undefined);
  assert.equal(syncs.length, 1);
  const [y] = syncs;
  const Y = op('Y');
  const task = (stream) => scenario.streams.find((s) => s.name === stream).task;
  assert.deepEqual({ sync: y.sync, stream: y.stream, process: y.process, scope: y.scope, task: y.task },
    { sync: 'Y', stream: Y.stream, process: 'P0', scope: 'stream', task: task(Y.stream) });
  // nothing holds tau1 before Y: it calls the sync when the script does
  assert.equal(y.at, secs(Y.at));
  assert.equal(y.issue, secs(Y.at));
  // it returns when K4, the last of S2's work before it, completes (TX2
  // §2.3). K4 cannot start before K1's first wave ends: K1 heads the EE
  // queue with blocks still to place until then (§3.2 G2), its 6 blocks of
  // 768 threads filling the TX2's 2 SMs of 2048 threads 2 a SM (R2). Its
  // first wave ends after one block_time, when the last 2 are placed and K1
  // leaves the queue; K4's 4 blocks (256 threads, 32 KB of the SM's 64 KB,
  // R3) then fit at once, 2 a SM, and run one block_time: the sync
  // returns at 2 x 1 s (the scenario's description: "issued at 2s, when
  // K4's blocks end").
  const K1 = op('K1');
  const K4 = op('K4');
  assert.equal(K1.blocks * K1.threads > 2 * 2048, true, 'K1 runs in two waves');
  assert.equal(y.end, secs(K1.block_time) + secs(K4.block_time));
  assert.equal(y.end, 2 * SEC);
  // ... which is when the run's K4 ended (its own record)
  const kernels = (await getJson(`${srv.base}/api/runs/${syncRun.run}/kernels`)).body.kernels;
  assert.equal(kernels.find((k) => k.name === 'K4').end, y.end);
  // tau1's ops after the sync are its later calls: K5 and C5o scripted at
  // 0.4 s (issued when the sync returned: their records' issue), K6 at 2.8 s
  const k5 = kernels.find((k) => k.name === 'K5');
  const c5 = calls.find((c) => c.kernel === k5.id);
  assert.deepEqual({ at: c5.at, task: c5.task }, { at: secs(op('K5').at), task: 'tau1' });
  assert.equal(k5.issue, y.end);
  // every call names its task (each stream has one); tau0's are S1's ops
  for (const c of calls) assert.ok(c.task === 'tau0' || c.task === 'tau1', JSON.stringify(c));
  assert.equal(calls.filter((c) => c.task === 'tau0').length, scenario.ops.filter((o) => o.stream === 'S1').length);
});

test('the same calls as the run\'s export (one writer), kept by the client, 404 for no run', async () => {
  const url = `${srv.base}/api/runs/${syncRun.run}/host_calls`;
  const calls = (await getJson(url)).body.host_calls;
  const exp = (await getJson(`${srv.base}/api/runs/${syncRun.run}/export?format=trace`)).body;
  assert.deepEqual(calls, exp.host_calls);
  await expectImmutable(url);
  await expectError(srv.base, '/api/runs/nosuchrun/host_calls', 404, 'no run named "nosuchrun"');
});

test('a run without host calls: [] and no summary field', async () => {
  const r = await getJson(`${srv.base}/api/runs/${plainRun.run}/host_calls`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { host_calls: [] });
  assert.equal('host_calls' in plainRun.summary, false);
  const run = (await getJson(`${srv.base}/api/runs/${plainRun.run}`)).body;
  assert.equal('host_calls' in run.summary, false);
});
