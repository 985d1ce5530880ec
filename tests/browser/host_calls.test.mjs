// The run view's CPU tasks (GET /api/runs/{run}/host_calls, docs/api.md):
// on the shipped tx2-fig3-task-sync run the timeline has a lane per CPU
// task under the copy engine, and tau1's cudaStreamSynchronize(S2) (the
// scenario's sync op Y) is drawn on tau1's lane from its call to its
// return, with a legend entry and a tooltip; tx2-fig3-basic-rules, the same
// experiment without syncs, draws no task lane, no wait and no legend
// entry, and does not ask for host calls. The times are the scenario's own
// (TX2 paper §2.3, §3.2; tests/api/host_calls.test.mjs works them out).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServerAndBrowser, stopServerAndBrowser, ready, recordRequests, REPO } from './harness.mjs';

const SEC = 1000000000;
const scenario = JSON.parse(fs.readFileSync(path.join(REPO, 'scenarios/tx2-fig3-task-sync.json'), 'utf8'));
const secs = (s) => Math.round(Number(/^([\d.]+)s$/.exec(s)[1]) * SEC);
const op = (name) => scenario.ops.find((o) => (o.kernel || o.copy || o.sync) === name);

let srv;
let br;
let page;
let syncRun;
let plainRun;

before(async () => {
  ({ srv, br, page } = await startServerAndBrowser());
  const { body } = await srv.api('/api/experiments');
  for (const e of body.experiments) {
    const full = (await srv.api(`/api/experiments/${e.slug}?scenario=0`)).body;
    if (full.scenario_file === 'tx2-fig3-task-sync.json') syncRun = full.runs[0].run;
    if (full.scenario_file === 'tx2-fig3-basic-rules.json') plainRun = full.runs[0].run;
  }
  assert.ok(syncRun && plainRun, 'the shipped tx2-fig3-task-sync and tx2-fig3-basic-rules are stored');
});

after(() => stopServerAndBrowser(srv, br));

test('tx2-fig3-task-sync: tau1\'s cudaStreamSynchronize(S2) drawn on its lane from 0.2 s to 2 s, in the legend, with a tooltip', async () => {
  await page.goto(`${srv.base}/runs/${syncRun}`);
  const st = await ready(page, 'timeline');
  // the CPU tasks' lanes under the SMs and the copy engine, in the order
  // the host first calls from them (tau0 launches K1 at 0 s)
  assert.deepEqual(st.lanes, ['SM 0', 'SM 1', 'CE', 'task tau0', 'task tau1']);
  // Y: called by tau1 at its scripted 0.2 s (nothing holds it before),
  // returned when K4 completes: K1's first wave (one block_time), then
  // K4's block_time
  const Y = op('Y');
  assert.deepEqual(st.waits, [{
    task: scenario.streams.find((s) => s.name === Y.stream).task, kind: 'stream', label: `cudaStreamSynchronize(${Y.stream})`,
    start: secs(Y.at), end: secs(op('K1').block_time) + secs(op('K4').block_time),
  }]);
  assert.equal(st.waits[0].end, 2 * SEC);
  // one legend entry, for the one kind of wait the run has
  const entries = await page.locator('.legend-waits .legend-static').allTextContents();
  assert.deepEqual(entries, ['cudaStreamSynchronize (task blocked)']);
  // the keyboard walks the bars left to right (issue 30): the sync's tooltip
  await page.focus('canvas');
  let tip = null;
  for (let i = 0; i < 40 && !(tip && tip[0][0].startsWith('cudaStreamSynchronize')); i++) {
    await page.keyboard.press('.');
    tip = await page.evaluate(() => window.schedlab.tip);
  }
  assert.equal(tip[0][0], 'cudaStreamSynchronize(S2)');
  const row = (k) => tip.find(([key]) => key === k)?.[1];
  assert.equal(row('task'), 'tau1');
  assert.equal(row('sync'), 'Y');
  assert.equal(row('scope'), 'stream S2');
  assert.match(row('called'), /^0\.2\d* s$/);
  assert.match(row('returned'), /^2(\.0*)? s$/);
  assert.match(row('blocked'), /^1\.80* s$/);
  // a window after the sync returned: the lanes stay, no wait is drawn
  await page.goto(`${srv.base}/runs/${syncRun}?view=timeline&from=${2.5 * SEC}&to=${3 * SEC}`);
  const later = await ready(page, 'timeline');
  assert.deepEqual(later.lanes.slice(-2), ['task tau0', 'task tau1']);
  assert.deepEqual(later.waits, []);
});

test('tx2-fig3-basic-rules (no host calls): no task lane, no wait, no legend entry, no request', async () => {
  const rec = recordRequests(page, /host_calls$/);
  await page.goto(`${srv.base}/runs/${plainRun}`);
  const st = await ready(page, 'timeline');
  rec.stop();
  assert.deepEqual(st.lanes, ['SM 0', 'SM 1', 'CE']);
  assert.deepEqual(st.waits, []);
  assert.equal(await page.locator('.legend-waits').count(), 0);
  assert.deepEqual(rec.asked, []);
});
