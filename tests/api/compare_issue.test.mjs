// compare_issue.test.mjs -- a measured kernel without an issue time (launched
// before the profiler's window opened: no launch call in the trace, as 64
// kernels of the DLRM rank-1 PyTorch trace, SOURCES.md) against its replay,
// which always has one. docs/api.md: /api/compare compares one quantity per
// kernel in every run (`response_from`); docs/replay-fidelity.md: the replay
// starts such a kernel at its measured start, not a launch latency late.
//
// The trace is written by hand: on one stream, K0 (no issue) from 0 to 3 µs,
// then K1 and K2 each issued 7 µs before their start (so the launch latency
// the replay fits is 7 µs, replay-fidelity.md "Launch times") and lasting
// 7 µs, each stream idle at its issue.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { COHORT_DEVICE } from '../fixtures/cohort_trace.mjs';
import { getJson, startServer } from './server.mjs';

const JSON_BODY = { 'Content-Type': 'application/json' };
const RAW = { 'Content-Type': 'application/octet-stream' };

const kernel = (id, name, issue, first, end) => ({ id, name, stream: '7', process: 'gpu0', priority: 'none', issue,
  first_block: first, fully_dispatched: null, end, blocks: 1, threads: 256, smem: 0, regs: 32,
  grid: [1, 1, 1], block: [256, 1, 1] });

const TRACE = {
  schema: 'schedlab-trace/1', name: 'no-issue', source: 'pytorch', device: COHORT_DEVICE,
  kernels: [kernel(0, 'K0', null, 0, 3000), kernel(1, 'K1', 4000, 11000, 18000), kernel(2, 'K2', 19000, 26000, 33000)],
};

let srv;
before(async () => {
  srv = await startServer();
});
after(async () => {
  assert.equal(await srv.stop(), 0);
});

async function replay(run) {
  const r = await getJson(`${srv.base}/api/runs/${run}/replay`, { method: 'POST', headers: JSON_BODY, body: '{}' });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  for (let i = 0; i < 600; i++) {
    const j = await getJson(`${srv.base}${r.body.url}`);
    if (!['queued', 'running'].includes(j.body.state)) return j.body;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('the replay job did not finish');
}

test('a kernel without issue: its replay starts at its measured start, and compare counts its response from the first block on both sides', async () => {
  const imp = await getJson(`${srv.base}/api/imports?name=no-issue.json`, { method: 'POST', headers: RAW, body: JSON.stringify(TRACE) });
  assert.equal(imp.status, 201, JSON.stringify(imp.body));
  const measured = imp.body.run;
  const job = await replay(measured);
  assert.equal(job.state, 'done', job.error);
  const sim = job.result.runs[0].run;
  const byName = async (run) => Object.fromEntries((await getJson(`${srv.base}/api/runs/${run}/kernels`)).body.kernels.map((k) => [k.name, k]));
  const m = await byName(measured);
  const s = await byName(sim);
  assert.equal(m.K0.issue, null);
  // the replay: every kernel at its measured start (before: K0 at 7000,
  // issued at 0 - 7 µs clamped to 0, then the 7 µs latency added)
  assert.deepEqual(['K0', 'K1', 'K2'].map((n) => s[n].first_block), [0, 11000, 26000]);
  // K1 and K2 keep their issue -> start latency
  assert.deepEqual(['K0', 'K1', 'K2'].map((n) => s[n].issue), [0, 4000, 19000]);

  const cmp = (await getJson(`${srv.base}/api/compare?runs=${measured},${sim}`)).body;
  const row = Object.fromEntries(cmp.kernels.map((k) => [k.name, k]));
  // one definition per kernel on both sides: K0 lacks its issue in the
  // measured run, so both sides count end - first_block (before: [3000, 10000],
  // the replay's from its issue)
  assert.equal(row.K0.response_from, 'first_block');
  assert.deepEqual(row.K0.response, [3000, 3000]);
  assert.deepEqual(row.K0.start, [0, 0]);
  assert.equal(row.K1.response_from, 'issue');
  assert.deepEqual(row.K1.response, [14000, 14000]);
  assert.equal(row.K2.response_from, 'issue');
  for (const k of cmp.kernels) {
    const sides = [m[k.name], s[k.name]];
    const from = (x) => (k.response_from === 'issue' ? x.issue : x.first_block);
    assert.deepEqual(k.response, sides.map((x) => x.end - from(x)), k.name);
  }
  // K0 is issued at the trace's start with no latency left (its own
  // launch_latency, docs/scenario-format.md), the others with the fitted 7 µs
  const { body: exp } = await getJson(`${srv.base}/api/experiments/${job.result.slug}`);
  assert.equal(exp.scenario.policy.launch_latency, 7000);
  assert.deepEqual(exp.scenario.ops.map((o) => [o.kernel, o.at, o.launch_latency]),
    [['K0', 0, 0], ['K1', 4000, undefined], ['K2', 19000, undefined]]);
  assert.match(exp.description, /1 ops whose issue falls before the trace's start/);
  // the key is a kernel's or copy's: a sync takes none
  const scn = { schema: 'schedlab-scenario/1', name: 'sync latency', device: 'tx2', streams: [{ name: 'S1' }],
    ops: [{ kernel: 'K', stream: 'S1', blocks: 1, threads: 32, block_time: '1us', launch_latency: '2us' },
      { sync: 'Y', stream: 'S1', launch_latency: 0 }] };
  const bad = await getJson(`${srv.base}/api/experiments`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify(scn) });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /ops\[1\]: "launch_latency" does not apply to a sync/);
  scn.ops.pop();
  const ok = await getJson(`${srv.base}/api/experiments`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify(scn) });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  const { body: kk } = await getJson(`${srv.base}/api/runs/${ok.body.runs[0].run}/kernels`);
  assert.deepEqual([kk.kernels[0].issue, kk.kernels[0].first_block], [0, 2000]);
});
