// The Warps tab (issue 30): a warp-level run's issue slots as QAWS Fig. 3
// draws them. Asserted on what the page drew (window.schedlab: warpCells,
// warpLanes, warpTip, warpWindow) against the paper's text (QAWS §IV,
// "Example"), not against the model's output copied here: under QAWS with
// budgets K1 = 1, K2 = 4 (Fig. 3c) w0 of K1 issues first, w1 follows at
// its stall, and K2 issues from cycle 2 until cycle 12, each of the four
// warps issuing its nine instructions; under GTO (Fig. 3a) K1's older warps
// issue first.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServerAndBrowser, stopServerAndBrowser, ready, docShot, OUT, shot } from './harness.mjs';

let srv;
let br;
let page;
const runs = {};   // variant name -> run id

before(async () => {
  let experiments;
  ({ srv, br, page, experiments } = await startServerAndBrowser());
  const exp = experiments.find((e) => /^QAWS Fig\. 3/.test(e.name));
  assert.ok(exp, 'the shipped QAWS Fig. 3 scenario is stored');
  for (const r of exp.runs) runs[r.name] = r.run;
  runs.first = exp.runs[0].run;   // the scenario's own policy: QAWS, budgets K1 = 1, K2 = 4
});

after(() => stopServerAndBrowser(srv, br));

async function open(run, extra = '') {
  await page.goto(`${srv.base}/runs/${run}?view=warps${extra}`);
  return ready(page, 'warps');
}

test('QAWS Fig. 3c: one sub-core lane, 18 cells of each kernel, warp ids on the cells, K2 from cycle 2 to 12', async () => {
  const run = runs.first;
  assert.ok(run, `runs: ${Object.keys(runs)}`);
  const tabs = await (async () => {
    await page.goto(`${srv.base}/runs/${run}`);
    await ready(page, 'timeline');
    return page.$$eval('nav.tabs a.tab', (as) => as.map((a) => a.dataset.tab));
  })();
  assert.ok(tabs.includes('warps'), `tabs: ${tabs}`);
  await page.click('nav.tabs a[data-tab=warps]');
  const st = await ready(page, 'warps');
  assert.equal(st.warpMode, 'slots');
  // the whole run: 38 cycles (the scenario's description; 1 GHz, 38 ns)
  const last = Math.max(...(await srv.api(`/api/runs/${run}/warps`)).body.warp_issues.map((w) => w.cycle));
  assert.deepEqual(st.warpWindow, { c0: 0, c1: last + 1 });
  assert.deepEqual(st.warpLanes, ['SM 0 SM 0 · sub-core 0']);
  // two warps of nine instructions per kernel (QAWS §IV: "nine instructions")
  assert.deepEqual(st.warpCells, { K1: 18, K2: 18 });
  const issues = (await srv.api(`/api/runs/${run}/warps`)).body.warp_issues;
  const k2 = issues.filter((w) => w.kernel === 1).map((w) => w.cycle);
  // "the scheduler begins to issue warps of K2 and continues to do so until cycle 12"
  assert.equal(Math.min(...k2), 2);
  const k1After = issues.filter((w) => w.kernel === 0 && w.cycle > 2).map((w) => w.cycle);
  assert.ok(Math.min(...k1After) >= 12, `K1 issues again at ${Math.min(...k1After)}, the paper says 12`);
  // hover the cell of cycle 0: warp 0 of K1 (w0 issues first)
  const box = await page.$eval('#warp-canvas', (c) => {
    const r = c.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height };
  });
  const plotW = box.w - 120 - 12;
  const span = st.warpWindow.c1 - st.warpWindow.c0;
  await page.mouse.move(box.x + 120 + (0.5 / span) * plotW, box.y + 4 + 23);
  const tip = await page.evaluate(() => window.schedlab.warpTip);
  assert.deepEqual(tip, ['warp 0 · K1', 'cycle 0', 'SM 0 · sub-core 0']);
  await shot(page, path.join(OUT, 'warps-qaws-fig3c.png'), { fullPage: true });
  // the README's picture: the page without the tooltip, down to the count
  await page.mouse.move(0, 0);
  await shot(page, docShot('img/warps-qaws-fig3.png'), { clip: { x: 0, y: 0, width: 1280, height: 530 } });
  assert.deepEqual(br.problems, []);
});

test('the keyboard selects issues in order with their tooltip; zoom goes into the URL and a copied link reopens it', async () => {
  await open(runs.gto);
  await page.focus('#warp-canvas');
  await page.keyboard.press('.');
  let tip = await page.evaluate(() => window.schedlab.warpTip);
  // GTO (Fig. 3a): the oldest warp, w0 of K1, issues first
  assert.deepEqual(tip.slice(0, 2), ['warp 0 · K1', 'cycle 0']);
  await page.keyboard.press('.');
  tip = await page.evaluate(() => window.schedlab.warpTip);
  assert.equal(tip[1], 'cycle 1');
  await page.evaluate(() => window.schedlab.warpZoom(0.5));
  const st = await page.evaluate(() => ({ ...window.schedlab, warpZoom: undefined }));
  const url = page.url();
  assert.match(url, /c0=\d+&c1=\d+/);
  const cells = Object.values(st.warpCells).reduce((a, b) => a + b, 0);
  const inWin = (await srv.api(`/api/runs/${runs.gto}/warps?from=${st.warpWindow.c0}&to=${st.warpWindow.c1}`)).body.total;
  assert.equal(cells, inWin);
  assert.ok(cells < 36);
  await page.goto('about:blank');
  await page.goto(url);
  const again = await ready(page, 'warps');
  assert.deepEqual(again.warpWindow, st.warpWindow);
  assert.deepEqual(again.warpCells, st.warpCells);
  await shot(page, path.join(OUT, 'warps-gto-zoomed.png'));
  assert.deepEqual(br.problems, []);
});

test('a run recorded without issues (the ISCA\'17 quota pair, warp_issue_limit 0) shows issue-slot shares per epoch', async () => {
  const { body: list } = await srv.api('/api/experiments');
  const exp = list.experiments.find((e) => /^ISCA'17 quota sharing/.test(e.name));
  assert.ok(exp);
  const st = await open(exp.runs[0].run);
  assert.equal(st.warpMode, 'epochs');
  const { body } = await srv.api(`/api/runs/${exp.runs[0].run}/warps?max=0`);
  const epochs = new Set(body.warp_epochs.map((e) => e.cycle));
  assert.equal(st.warpEpochs, epochs.size);
  await shot(page, path.join(OUT, 'warps-quota-epochs.png'));
  assert.deepEqual(br.problems, []);
});
