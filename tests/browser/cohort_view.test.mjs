// The replay of a kernel-level trace big enough to be simulated as cohorts
// (issue 28, "the placement view of a replay draws them"): the generated
// trace of tests/fixtures/cohort_trace.mjs (56 M blocks on a Xavier NX, past
// the 50 M a block-by-block replay keeps) is imported and replayed, and the
// replay's timeline is opened. Zoomed out it draws occupancy (every SM full:
// 8 blocks of 256 threads); at 59 µs (29 K blocks, past the view's 20,000)
// each wave of a cohort on an SM is one bar whose tooltip names its blocks;
// at 1 µs every block is its own bar, as in a block-by-block run. Asserted on
// what the page drew (window.schedlab: mode, drawnBlocks, tip, status) and
// the API's answers; no console errors.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServerAndBrowser, stopServerAndBrowser, ready, OUT, shot } from './harness.mjs';
import { cohortTrace } from '../fixtures/cohort_trace.mjs';

let srv;
let br;
let page;
let run;

before(async () => {
  ({ srv, br, page } = await startServerAndBrowser());
  const imp = await srv.api('/api/imports?name=cohort-kernels.json', {
    method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: JSON.stringify(cohortTrace()),
  });
  assert.equal(imp.status, 201, JSON.stringify(imp.body));
  let r = await srv.api(`/api/runs/${imp.body.run}/replay`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  for (;;) {
    const j = (await srv.api(r.body.url)).body;
    if (j.state === 'done') { run = j.result.runs[0].run; break; }
    assert.ok(['queued', 'running'].includes(j.state), JSON.stringify(j));
    await new Promise((ok) => setTimeout(ok, 100));
  }
});

after(async () => { await stopServerAndBrowser(srv, br); });

// Hover SM `sm`'s lane halfway up at time t; the tooltip's lines.
async function tipAt(t, sm) {
  const pos = await page.evaluate(({ t: x, sm: s }) => {
    const c = window.Chart.getChart(document.querySelector('.timeline-wrap canvas'));
    return { x: c.scales.x.getPixelForValue(x), y: c.scales.y.getPixelForValue(s + 0.5) };
  }, { t, sm });
  const box = await page.locator('.timeline-wrap canvas').boundingBox();
  await page.evaluate(() => { window.schedlab.tip = null; });
  await page.mouse.move(box.x + pos.x, box.y + pos.y);
  await page.waitForFunction(() => window.schedlab.tip);
  return page.evaluate(() => window.schedlab.tip);
}

test('a cohort replay draws its blocks: occupancy, a bar per SM per wave with its count, then each block', async () => {
  const { body: s } = await srv.api(`/api/runs/${run}`);
  assert.equal(s.summary.blocks, 56000000);
  // the whole run: occupancy, every SM busy
  await page.goto(`${srv.base}/runs/${run}?view=timeline`);
  let st = await ready(page, 'timeline');
  assert.equal(st.mode, 'bins');
  assert.ok(st.occupancy.busy > 0 && st.occupancy.total === 56000000, JSON.stringify(st.occupancy));
  // 59 µs of the first kernel: waves of 8 blocks an SM, one bar each
  const [from, to] = [1000, 60000];
  const win = (await srv.api(`/api/runs/${run}/blocks?from=${from}&to=${to}&max=20000`)).body;
  assert.ok(win.total > 20000 && win.blocks.every((b) => b.count === 8), `${win.total} blocks`);
  await page.goto(`${srv.base}/runs/${run}?view=timeline&from=${from}&to=${to}`);
  st = await ready(page, 'timeline');
  assert.equal(st.mode, 'blocks');
  assert.equal(st.drawnBlocks, win.blocks.length);
  assert.match(await page.locator('#timeline-status').textContent(), /one bar per SM/);
  // the legend counts blocks, not bars
  const fill = win.blocks.filter((b) => b.kernel === 0).reduce((n, b) => n + b.count, 0);
  assert.equal(await page.locator('.legend-item', { hasText: 'fill' }).locator('.legend-count').textContent(), fill.toLocaleString('en-US'));
  // the bar of SM 3 in the wave at 30 µs names its 8 blocks
  const t = 30000;
  const wave = win.blocks.find((b) => b.sm === 3 && b.start <= t && b.end > t);
  let lines = await tipAt(t, 3);
  let tip = Object.fromEntries(lines.slice(1));
  assert.equal(lines[0][0], 'fill: 8 blocks');
  assert.equal(tip.blocks, '8');
  assert.equal(tip.SM, '3');
  assert.equal(tip['first block'], String(wave.index));
  assert.equal(tip['index step'], '6');
  await shot(page, path.join(OUT, 'cohort-waves.png'), { fullPage: false });
  // 1 µs: every block its own bar, the block-by-block run's
  await page.goto(`${srv.base}/runs/${run}?view=timeline&from=1000&to=2000`);
  st = await ready(page, 'timeline');
  assert.equal(st.mode, 'blocks');
  const small = (await srv.api(`/api/runs/${run}/blocks?from=1000&to=2000&max=20000`)).body;
  assert.equal(st.drawnBlocks, small.blocks.length);
  assert.equal(small.total, small.blocks.length);
  lines = await tipAt(1050, 2);
  tip = Object.fromEntries(lines.slice(1));
  assert.match(lines[0][0], /^fill:\d+$/);
  assert.equal(tip.SM, '2');
  assert.equal(tip.blocks, undefined);
  assert.deepEqual(br.problems, []);
});
