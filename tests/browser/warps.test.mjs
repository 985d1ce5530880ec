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

// Folding an SM (the sub-core lanes of one SM drawn as one lane) by the
// keyboard alone, and kept in the URL (docs/api.md: fold=) so a copied link
// shows a teammate the same lanes. The run: QAWS Fig. 4a's 2dc pair on 2 SMs
// of a TITAN V, 4 schedulers (sub-cores) each. What a fold means: the folded
// SM's sub-core lanes are gone, one lane holds every issue of that SM, and
// every other SM keeps one lane per sub-core.
test('an SM folds by the keyboard (Enter, Space), the lanes follow, and a copied link or a reload brings the fold back', async () => {
  const { body: list } = await srv.api('/api/experiments');
  const exp = list.experiments.find((e) => /^QAWS Fig\. 4a: 2dc/.test(e.name));
  assert.ok(exp, 'the shipped QAWS Fig. 4a 2dc scenario is stored');
  const run = exp.runs[0].run;
  const { body: meta } = await srv.api(`/api/runs/${run}`);
  const sms = meta.device.sms;
  const subs = meta.device.schedulers_per_sm;
  assert.ok(sms >= 2 && subs >= 2, `${sms} SMs × ${subs} sub-cores`);
  // the lanes the rule gives for a set of folded SMs: SM s's sub-core
  // lanes, or its one lane when folded (SM s's label, then the lane's)
  const subLane = (s, u) => `SM ${s} sub-core ${u}`;
  const lanesFor = (folded) => {
    const out = [];
    for (let s = 0; s < sms; s++) {
      if (folded.includes(s)) out.push(`SM ${s} all ${subs} sub-cores`);
      else for (let u = 0; u < subs; u++) out.push(subLane(s, u));
    }
    return out;
  };
  const issues = (await srv.api(`/api/runs/${run}/warps`)).body.warp_issues;
  const cellsOf = (st) => Object.values(st.warpCells).reduce((a, b) => a + b, 0);
  const state = () => page.evaluate(() => ({ ...window.schedlab, warpZoom: undefined }));

  // a link to the cycles the run recorded issues in (its scenario's
  // warp_issue_limit: past them the tab draws epoch shares, no lanes)
  const c1 = Math.max(...issues.map((w) => w.cycle)) + 1;
  let st = await open(run, `&c0=0&c1=${c1}`);
  assert.equal(st.warpMode, 'slots');
  assert.deepEqual(st.warpWindow, { c0: 0, c1 });
  assert.deepEqual(st.warpLanes, lanesFor([]));
  assert.equal(cellsOf(st), issues.length);

  // the keyboard: Tab from the chart reaches SM 1's fold control, Enter folds it
  const fold1 = page.getByRole('button', { name: 'fold SM 1\'s sub-core lanes into one' });
  assert.equal(await fold1.getAttribute('aria-pressed'), 'false');
  await page.focus('#warp-canvas');
  const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') || document.activeElement?.id);
  for (let i = 0; i < 12 && (await focusedName()) !== 'fold SM 1\'s sub-core lanes into one'; i++) await page.keyboard.press('Tab');
  assert.equal(await focusedName(), 'fold SM 1\'s sub-core lanes into one', 'Tab reaches the fold control of SM 1');
  await page.keyboard.press('Enter');
  st = await state();
  assert.equal(await fold1.getAttribute('aria-pressed'), 'true');
  // SM 1's sub-core lanes are gone, its issues in one lane; SM 0's lanes stay
  assert.deepEqual(st.warpLanes, lanesFor([1]));
  for (let u = 0; u < subs; u++) assert.ok(!st.warpLanes.includes(subLane(1, u)));
  for (let u = 0; u < subs; u++) assert.ok(st.warpLanes.includes(subLane(0, u)));
  assert.equal(cellsOf(st), issues.length, 'every issue of the folded SM is still drawn');
  assert.ok(issues.some((w) => w.sm === 1 && w.subcore > 0), 'SM 1 issued from more than one sub-core');

  // Space on SM 0's control folds it too (focus stays on the control)
  const fold0 = page.getByRole('button', { name: 'fold SM 0\'s sub-core lanes into one' });
  await fold0.focus();
  await page.keyboard.press(' ');
  st = await state();
  assert.equal(await fold0.getAttribute('aria-pressed'), 'true');
  assert.deepEqual(st.warpLanes, lanesFor([0, 1]));
  // and Space again unfolds it
  await page.keyboard.press(' ');
  st = await state();
  assert.equal(await fold0.getAttribute('aria-pressed'), 'false');
  assert.deepEqual(st.warpLanes, lanesFor([1]));

  // the copied link carries both the window and the fold
  await page.click('#copy-link');
  const link = await page.evaluate(() => window.schedlab.copied);
  assert.equal(link, page.url());
  const fresh = await br.context.newPage();
  try {
    await fresh.goto(link);
    const again = await ready(fresh, 'warps');
    assert.equal(again.warpMode, 'slots');
    assert.deepEqual(again.warpLanes, lanesFor([1]));
    assert.deepEqual(again.warpWindow, { c0: 0, c1 });
    assert.equal(cellsOf(again), issues.length);
    assert.equal(await fresh.getByRole('button', { name: 'fold SM 1\'s sub-core lanes into one' }).getAttribute('aria-pressed'), 'true');
  } finally {
    await fresh.close();
  }
  // a reload too
  await page.reload();
  st = await ready(page, 'warps');
  assert.deepEqual(st.warpLanes, lanesFor([1]));
  // unfolding the last SM leaves the URL without a fold, as it was at first
  await fold1.focus();
  await page.keyboard.press('Enter');
  st = await state();
  assert.deepEqual(st.warpLanes, lanesFor([]));
  await page.reload();
  st = await ready(page, 'warps');
  assert.deepEqual(st.warpLanes, lanesFor([]));
  assert.ok(!/[?&]fold=/.test(page.url()), page.url());
  // a click on SM 0's name on the canvas (its row at the top of the lanes)
  // folds it the same way: the button's state and the URL follow
  const box = await page.$eval('#warp-canvas', (c) => {
    const r = c.getBoundingClientRect();
    return { x: r.x, y: r.y };
  });
  await page.mouse.click(box.x + 20, box.y + 4 + 9);
  st = await state();
  assert.equal(st.warpMode, 'slots');
  assert.deepEqual(st.warpLanes, lanesFor([0]));
  assert.equal(await fold0.getAttribute('aria-pressed'), 'true');
  await shot(page, path.join(OUT, 'warps-folded.png'), { fullPage: true });
  await page.reload();
  st = await ready(page, 'warps');
  assert.deepEqual(st.warpLanes, lanesFor([0]));
  assert.deepEqual(br.problems, []);
});

// Fold all / Unfold all (an 80-SM device has 80 fold buttons), and what a
// folded lane draws: the issues of one cycle share its height, a strip per
// issue in sub-core order, so none is drawn over another. The geometry the
// hover below aims at is the tab's: lanes from y = 4, an SM's name row of
// 18 px, lanes of 32 px for 8 sub-core lanes with 2 px between, a cell
// inset 3 px top and bottom; 120 px of labels, 12 px right margin.
test('Fold all and Unfold all fold every SM at once (URL fold=0,1); a folded lane stacks a cycle\'s issues, one strip per sub-core, none hidden', async () => {
  const { body: list } = await srv.api('/api/experiments');
  const run = list.experiments.find((e) => /^QAWS Fig\. 4a: 2dc/.test(e.name)).runs[0].run;
  const { body: meta } = await srv.api(`/api/runs/${run}`);
  const { sms, schedulers_per_sm: subs } = meta.device;
  assert.deepEqual([sms, subs], [2, 4]);
  const issues = (await srv.api(`/api/runs/${run}/warps`)).body.warp_issues;
  // a cycle in which SM 1 issued from more than two sub-cores
  const at = new Map();
  for (const w of issues) if (w.sm === 1) at.set(w.cycle, [...(at.get(w.cycle) || []), w]);
  const [cycle, busy] = [...at].find(([, ws]) => ws.length > 2) || [];
  assert.ok(busy, 'SM 1 issues from three or more sub-cores in some cycle');
  const c0 = Math.max(0, cycle - 5);
  await open(run, `&c0=${c0}&c1=${c0 + 10}`);
  assert.equal(await page.locator('#warp-unfold-all').isDisabled(), true);
  await page.click('#warp-fold-all');
  let st = await page.evaluate(() => ({ ...window.schedlab, warpZoom: undefined }));
  assert.deepEqual(st.warpLanes, [`SM 0 all ${subs} sub-cores`, `SM 1 all ${subs} sub-cores`]);
  assert.match(page.url(), /[?&]fold=0,1(&|$)/);
  assert.equal(await page.locator('#warp-fold-all').isDisabled(), true);
  for (let s = 0; s < sms; s++)
    assert.equal(await page.locator(`#warp-folds button[data-sm="${s}"]`).getAttribute('aria-pressed'), 'true');
  // hover the middle of each strip of SM 1's lane in that cycle: each names
  // its own issue, in sub-core order
  const box = await page.$eval('#warp-canvas', (c) => {
    const r = c.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width };
  });
  const plotW = box.w - 120 - 12;
  const cx = box.x + 120 + ((cycle - c0 + 0.5) / 10) * plotW;
  const laneY = 4 + (18 + 32 + 2) + 18;
  const k = busy.length;
  const want = [...busy].sort((a, b) => a.subcore - b.subcore);
  for (let i = 0; i < k; i++) {
    await page.mouse.move(cx, box.y + laneY + 3 + (i + 0.5) * (26 / k));
    const tip = await page.evaluate(() => window.schedlab.warpTip);
    assert.deepEqual(tip && [tip[1], tip[2]], [`cycle ${cycle}`, `SM 1 · sub-core ${want[i].subcore}`], `strip ${i} of ${k}`);
    assert.match(tip[0], new RegExp(`^warp ${want[i].warp} `));
  }
  await shot(page, path.join(OUT, 'warps-fold-all.png'), { fullPage: true });
  // Unfold all: every sub-core lane back, the URL without a fold
  await page.click('#warp-unfold-all');
  st = await page.evaluate(() => ({ ...window.schedlab, warpZoom: undefined }));
  assert.equal(st.warpLanes.length, sms * subs);
  assert.ok(!/[?&]fold=/.test(page.url()), page.url());
  assert.deepEqual(br.problems, []);
});

test('a link naming SMs that are not there, or not a list, folds nothing it should not', async () => {
  const { body: list } = await srv.api('/api/experiments');
  const run = list.experiments.find((e) => /^QAWS Fig\. 4a: 2dc/.test(e.name)).runs[0].run;
  const { body: meta } = await srv.api(`/api/runs/${run}`);
  const subs = meta.device.schedulers_per_sm;
  assert.equal(meta.device.sms, 2);
  // the cycles with recorded issues, where the lanes are drawn
  const c1 = Math.max(...(await srv.api(`/api/runs/${run}/warps`)).body.warp_issues.map((w) => w.cycle)) + 1;
  // SM 1 and SMs past the device's last: SM 1 folded, SM 0 not, and the
  // URL names SM 1 alone from then on
  let st = await open(run, `&fold=1-9&c0=0&c1=${c1}`);
  assert.ok(st.warpLanes.includes(`SM 1 all ${subs} sub-cores`));
  assert.ok(st.warpLanes.includes('SM 0 sub-core 0'));
  assert.match(page.url(), /[?&]fold=1(&|$)/);
  st = await open(run, `&fold=x&c0=0&c1=${c1}`);
  assert.ok(st.warpLanes.includes('SM 1 sub-core 0'));
  assert.ok(!st.warpLanes.some((l) => /all \d+ sub-cores/.test(l)));
  assert.ok(!/[?&]fold=/.test(page.url()), page.url());
  // a run of one sub-core per SM has nothing to fold, and no control for it
  await open(runs.first, '&fold=0');
  assert.equal(await page.locator('#warp-folds button').count(), 0);
  st = await page.evaluate(() => ({ ...window.schedlab }));
  assert.deepEqual(st.warpLanes, ['SM 0 SM 0 · sub-core 0']);
  assert.deepEqual(br.problems, []);
});
