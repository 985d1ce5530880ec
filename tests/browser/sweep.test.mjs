// A sweep experiment in the dashboard: `schedlab sweep` stores a small
// sweep, `schedlab serve` serves it, and /experiments/{slug} draws it like
// the GCAPS paper's Fig. 8: one line per approach, one point per x value,
// the percentages of the stored counts.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { downloaded, startBrowser, ready, REPO, OUT, shot } from './harness.mjs';

const BIN = process.env.SCHEDLAB_BIN || path.join(REPO, 'schedlab');
let dir;
let child;
let base;
let br;
let slug;
let result;
let qslug;
let qresult;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-sweep-web-'));
  const spec = path.join(dir, 'spec.json');
  fs.writeFileSync(spec, JSON.stringify({
    schema: 'schedlab-sweep/1', name: 'web sweep', seed: 7, tasksets: 40,
    x: { param: 'tasks', values: [4, 8, 12] },
    approaches: ['tsg_rr_suspend', 'gcaps_suspend', 'gcaps_suspend_gprio'],
  }));
  const db = path.join(dir, 't.db');
  const r = spawnSync(BIN, ['sweep', spec, '--db', db, '-o', path.join(dir, 'r.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  slug = r.stdout.trim();
  result = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
  // a small ISCA'17 QoS sweep (kind "qos") in the same database, on the
  // shipped pair template cut to a 50K-cycle window: what is drawn is the
  // result's own numbers, and the whole window (150K) cost the file 12
  // CPU-s of its 15 (of their 6 points each, Rollover and Spart meet 3
  // and Naive none at 50K; at 150K 6, 5 and none)
  const sweeps = path.join(REPO, 'sweeps');
  const template = path.join(dir, 'pair.json');
  fs.writeFileSync(template, JSON.stringify({
    ...JSON.parse(fs.readFileSync(path.join(sweeps, 'isca17-pair.json'), 'utf8')), window: 50000,
  }));
  const qspec = path.join(dir, 'qos.json');
  fs.writeFileSync(qspec, JSON.stringify({
    schema: 'schedlab-sweep/1', kind: 'qos', name: 'web qos',
    template, kernels: path.join(sweeps, 'isca17-kernels.json'),
    pairs: [['c-sfu', 'm-light'], ['m-light', 'c-sfu'], ['c-sfu', 'c-alu']], goals: [0.6, 0.9],
    schemes: [{ name: 'naive', policy: { warp: 'quota-naive' } },
      { name: 'rollover', policy: { warp: 'quota-rollover' } },
      { name: 'spart', policy: { placement: 'spart' }, partition: 'hill-climb' }],
    other_repeat: 1,
  }));
  const q = spawnSync(BIN, ['sweep', qspec, '--db', db, '-o', path.join(dir, 'q.json')], { encoding: 'utf8' });
  assert.equal(q.status, 0, q.stderr);
  qslug = q.stdout.trim();
  qresult = JSON.parse(fs.readFileSync(path.join(dir, 'q.json'), 'utf8'));
  const port = await freePort();
  child = spawn(BIN, ['serve', '--db', db, '--port', String(port), '--scenarios', dir],
    { cwd: REPO, stdio: ['ignore', 'ignore', 'ignore'] });
  base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(`${base}/api/health`);
      if (r.ok && !(await r.json()).seeding) break;
    } catch { /* not yet */ }
    if (i > 300) throw new Error('schedlab serve did not start');
    await new Promise((res) => setTimeout(res, 100));
  }
  br = await startBrowser();
});

after(async () => {
  if (br) await br.close();
  if (child && child.exitCode === null) child.kill('SIGTERM');
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('a sweep experiment draws one series per approach and one point per x value', async () => {
  const { page, problems } = br;
  await page.goto(`${base}/experiments/${slug}`);
  const st = await ready(page, 'sweep');
  assert.deepEqual(st.sweep, { series: 3, points: 3, reference: 0 });
  const drawn = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('#sweep-chart canvas'));
    return { labels: c.data.labels, sets: c.data.datasets.map((d) => ({ label: d.label, data: d.data })) };
  });
  assert.deepEqual(drawn.labels, ['4', '8', '12']);
  assert.deepEqual(drawn.sets.map((d) => d.label), ['tsg_rr_suspend', 'gcaps_suspend', 'gcaps_suspend_gprio']);
  for (const d of drawn.sets) {
    assert.deepEqual(d.data, result.schedulable[d.label].map((c) => Math.round((c / 40) * 1000) / 10));
  }
  assert.equal(await page.locator('#sweep-table tbody tr').count(), 3);
  assert.deepEqual(problems, []);
});

test('the taskset form shows each task\'s bound per analysis (Example 2 of the paper)', async () => {
  const { page, problems } = br;
  await page.click('#rta-run');
  await page.waitForFunction(() => window.schedlab.rta);
  // ten analyses: the six GCAPS/TSG ones, then fmlp_* and mpcp_* (issue 27)
  assert.deepEqual(await page.evaluate(() => window.schedlab.rta), { tasks: 4, analyses: 10 });
  const row = (t) => page.locator('#rta-table tbody tr', { hasText: t }).first().locator('td');
  // columns: task, tsg_rr_busy, tsg_rr_suspend, gcaps_busy, gcaps_suspend, *_gprio
  assert.equal(await row('tau3').nth(4).textContent(), '153 ms');
  assert.equal(await row('tau4').nth(4).textContent(), '—');
  assert.equal(await row('tau4').nth(6).textContent(), '143 ms');
  assert.equal(await row('schedulable').nth(5).textContent(), 'yes');
  assert.deepEqual(problems, []);
});

test('a QoS sweep draws QoSreach and non-QoS throughput per scheme against the goal (ISCA\'17 Fig. 6a, 8a)', async () => {
  const { page, problems } = br;
  await page.goto(`${base}/experiments/${qslug}`);
  const st = await ready(page, 'sweep');
  const pct = (v) => (v === null ? null : Math.round(v * 1000) / 10);
  assert.deepEqual(st.sweep, {
    reference: 0, kind: 'qos', schemes: 3, goals: 2, points: 18,
    qosreach: { naive: pct(qresult.qosreach.naive), rollover: pct(qresult.qosreach.rollover), spart: pct(qresult.qosreach.spart) },
    trio: 0,
  });
  const drawn = await page.evaluate(() => ['#qos-reach-chart', '#qos-throughput-chart'].map((id) => {
    const c = window.Chart.getChart(document.querySelector(`${id} canvas`));
    return { type: c.config.type, labels: c.data.labels, sets: c.data.datasets.map((d) => ({ label: d.label, data: d.data })) };
  }));
  for (const d of drawn) {
    assert.equal(d.type, 'bar');
    assert.deepEqual(d.labels, ['60%', '90%', 'avg']);
    assert.deepEqual(d.sets.map((x) => x.label), ['naive', 'rollover', 'spart']);
  }
  for (const [i, s] of ['naive', 'rollover', 'spart'].entries()) {
    assert.deepEqual(drawn[0].sets[i].data, [...qresult.qosreach_by_goal[s].map(pct), pct(qresult.qosreach[s])]);
    assert.deepEqual(drawn[1].sets[i].data, [...qresult.throughput_by_goal[s].map(pct), pct(qresult.throughput[s])]);
  }
  // the per-scheme table: QoSreach as the points say, the paper's number beside it
  const met = qresult.points.filter((p) => p.scheme === 'spart' && p.qos_met).length;
  const row = page.locator('#qos-table tbody tr').nth(2).locator('td');
  assert.equal(await row.nth(0).textContent(), 'spart');
  assert.equal(await row.nth(1).textContent(), (Math.round((met / 6) * 1000) / 10).toFixed(1));
  assert.equal(await row.nth(2).textContent(), '78.8');
  assert.equal(await page.locator('#qos-kernels tbody tr').count(), 8);
  // issue 30: the per-scheme table is never cut off; at a phone's width
  // (400 px) it fits by wrapping its headers or scrolls inside its card
  for (const width of [1280, 400]) {
    await page.setViewportSize({ width, height: 900 });
    const fit = await page.evaluate(() => {
      const t = document.querySelector('#qos-table');
      const wrap = t.closest('.table-wrap');
      const card = t.closest('.card').getBoundingClientRect();
      return { table: t.getBoundingClientRect().width, wrap: wrap.clientWidth, scrolls: getComputedStyle(wrap).overflowX, cardRight: card.right, page: document.documentElement.clientWidth };
    });
    assert.ok(fit.table <= fit.wrap + 1 || fit.scrolls === 'auto', JSON.stringify(fit));
    assert.ok(fit.cardRight <= fit.page + 1, `the card runs past the page: ${JSON.stringify(fit)}`);
    if (width === 1280) assert.ok(fit.table <= fit.wrap + 1, `the table is cut at 1280 px: ${JSON.stringify(fit)}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await shot(page.locator('#qos-table'), path.join(OUT, 'qos-sweep-table.png'));
  assert.deepEqual(problems, []);
});

// Issue 26: "Charts in the sweep view for each figure (QoSreach by scheme
// and goal, by pair class, throughput of the non-QoS kernels, overshoot),
// the paper's number drawn beside each bar". Each chart's bars are worked
// out here from the stored points, and the paper's from its text: §4.2
// (C+C: "Spart and Rollover meet QoS goals in all cases"), §4.3 ("the
// average improvement is 15.9%"), §4.4 (overshoot "Spart ... 11.6% ...
// Rollover only ... 2.8%"), §3.4.2 (History's met "overshoot by 1.3%").
test('a QoS sweep draws ISCA\'17 Figs. 7, 8 (the lead over Spart), 9 and 5, the paper\'s numbers outlined beside ours', async () => {
  const { page, problems } = br;
  await page.goto(`${base}/experiments/${qslug}`);
  await ready(page, 'sweep');
  const drawn = await page.evaluate(() => Object.fromEntries(['class', 'gain', 'overshoot', 'misses'].map((f) => {
    const c = window.Chart.getChart(document.querySelector(`#qos-${f}-chart canvas`));
    return [f, { labels: c.data.labels, sets: c.data.datasets.map((d) => ({ label: d.label, data: d.data, paper: d.reference === true })) }];
  })));
  const schemes = ['naive', 'rollover', 'spart'];
  const r1 = (v) => Math.round(v * 10) / 10;
  const pct = (v) => Math.round(v * 1000) / 10;
  // Fig. 7: each QoS kernel's points, then each class's, met under each scheme
  const groups = [['c-sfu', (p) => p.qos === 'c-sfu'], ['m-light', (p) => p.qos === 'm-light'],
    ['C+C', (p) => p.classes === 'C+C'], ['C+M', (p) => p.classes === 'C+M'], ['M+C', (p) => p.classes === 'M+C']];
  assert.deepEqual(drawn.class.labels, groups.map(([g]) => g));
  for (const [i, s] of schemes.entries()) {
    const met = groups.map(([, inG]) => {
      const pts = qresult.points.filter((p) => p.scheme === s && inG(qresult.pairs[p.pair]));
      return pct(pts.filter((p) => p.qos_met).length / pts.length);
    });
    assert.deepEqual(drawn.class.sets[i], { label: s, data: met, paper: false });
  }
  assert.deepEqual(drawn.class.sets.slice(3), [
    { label: 'rollover (paper)', data: [null, null, 100, null, null], paper: true },
    { label: 'spart (paper)', data: [null, null, 100, null, null], paper: true }]);
  // Fig. 8: throughput over Spart's per goal, then pooled and per-goal mean
  assert.deepEqual(drawn.gain.labels, ['60%', '90%', 'avg (pooled)', 'avg (mean of goals)']);
  const sp = qresult.throughput_by_goal.spart;
  for (const [i, s] of ['naive', 'rollover'].entries()) {
    const by = qresult.throughput_by_goal[s];
    const g = (a, b) => (a === null || !(b > 0) ? null : r1((a / b - 1) * 100));
    const both = [0, 1].filter((j) => by[j] !== null && sp[j] !== null);
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.deepEqual(drawn.gain.sets[i], { label: s, paper: false, data: [g(by[0], sp[0]), g(by[1], sp[1]),
      g(qresult.throughput[s], qresult.throughput.spart),
      both.length ? g(mean(both.map((j) => by[j])), mean(both.map((j) => sp[j]))) : null] });
  }
  assert.deepEqual(drawn.gain.sets[2], { label: 'rollover (paper)', data: [null, null, 15.9, 15.9], paper: true });
  // Fig. 9: overshoot per scheme; the paper's for Rollover and Spart
  assert.deepEqual(drawn.overshoot.labels, schemes);
  assert.deepEqual(drawn.overshoot.sets, [
    { label: 'this sweep', data: schemes.map((s) => (qresult.overshoot[s] === null ? null : r1(qresult.overshoot[s] * 100))), paper: false },
    { label: 'paper', data: [null, 2.8, 11.6], paper: true }]);
  // Fig. 5: misses by shortfall, the result's bins
  assert.deepEqual(drawn.misses.labels, ['≤ 5 %', '5–10 %', '10–20 %', '> 20 %']);
  assert.deepEqual(drawn.misses.sets, schemes.map((s) => ({ label: s, data: qresult.misses[s], paper: false })));
  for (const s of schemes) {
    const missed = qresult.points.filter((p) => p.scheme === s && !p.qos_met).length;
    assert.equal(qresult.misses[s].reduce((a, b) => a + b, 0), missed, s);
  }
  await shot(page.locator('#qos-class-chart'), path.join(OUT, 'qos-sweep-fig7.png'));
  assert.deepEqual(problems, []);
});

// Every point of the sweep as a table (a row each), sortable and filtered
// by kernel, class or scheme: what a reader looks up when a bar surprises
// them. Its rows are the result's points, filtered and sorted here too.
test('a QoS sweep lists its points: filtered by scheme, sorted by what the QoS kernel attained', async () => {
  const { page, problems } = br;
  await page.goto(`${base}/experiments/${qslug}`);
  await ready(page, 'sweep');
  assert.deepEqual(await page.evaluate(() => window.schedlab.sweepPoints), { rows: 18, sort: null });
  assert.equal(qresult.points.length, 18);
  assert.equal(await page.locator('#qos-points h2').textContent(), `Points (${qresult.points.length})`);
  await page.fill('#qos-points-table-filter', 'rollover');
  const rollover = qresult.points.filter((p) => p.scheme === 'rollover');
  await page.waitForFunction((n) => window.schedlab.sweepPoints.rows === n, rollover.length);
  // attained, smallest first: a click sorts numbers largest first, a second smallest first
  await page.click('#qos-points .th-sort[data-key=attained]');
  await page.click('#qos-points .th-sort[data-key=attained]');
  assert.equal((await page.evaluate(() => window.schedlab.sweepPoints)).sort, 'attained asc');
  const first = await page.locator('#qos-points-table tbody tr').first().locator('td').allTextContents();
  const low = rollover.reduce((a, b) => (b.attained < a.attained ? b : a));
  const pr = qresult.pairs[low.pair];
  assert.deepEqual(first, [pr.qos, pr.other, pr.classes, low.goal.toFixed(2), 'rollover', low.attained.toFixed(3),
    low.qos_met ? 'yes' : 'no', low.throughput.toFixed(3)]);
  // the CSV: the rows shown, in their order, the numbers raw
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#qos-points-csv')]);
  assert.equal(dl.suggestedFilename(), 'web_qos-points.csv');
  const lines = (await downloaded(dl)).toString('utf8').trim().split('\r\n');
  assert.equal(lines[0], 'QoS kernel,other kernel,class,goal,scheme,attained,met,non-QoS throughput');
  assert.equal(lines.length, 1 + rollover.length);
  assert.equal(lines[1], [pr.qos, pr.other, pr.classes, low.goal, 'rollover', low.attained, low.qos_met ? 1 : 0, low.throughput].join(','));
  assert.deepEqual(problems, []);
});

// DESIGN §6: a page's URL holds its whole view, so a link a teammate opens
// shows the same picture. The Points table's filter and sort are the URL's
// (`q`, `sort`, `order`; docs/api.md "Share links"): set them, take the
// URL, open it in a fresh page: the same rows, in the same order.
test('a QoS sweep\'s Points table keeps its filter and sort in the URL: a fresh page of that link shows the same rows', async () => {
  const { page, problems, context } = br;
  await page.goto(`${base}/experiments/${qslug}`);
  await ready(page, 'sweep');
  await page.fill('#qos-points-table-filter', 'm-light');
  const shown = qresult.points.filter((p) => [qresult.pairs[p.pair].qos, qresult.pairs[p.pair].other].includes('m-light'));
  await page.waitForFunction((n) => window.schedlab.sweepPoints.rows === n, shown.length);
  // throughput, largest first (one click on a number column)
  await page.click('#qos-points .th-sort[data-key=throughput]');
  assert.equal((await page.evaluate(() => window.schedlab.sweepPoints)).sort, 'throughput desc');
  const rowsOf = (p) => p.locator('#qos-points-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent).join('|')));
  const want = await rowsOf(page);
  const url = new URL(page.url());
  assert.deepEqual(Object.fromEntries(url.searchParams), { q: 'm-light', sort: 'throughput', order: 'desc' });
  const fresh = await context.newPage();
  fresh.on('pageerror', (e) => problems.push(`fresh page error: ${e.message}`));
  try {
    await fresh.goto(url.href);
    const st = await ready(fresh, 'sweep');
    assert.deepEqual(st.sweepPoints, { rows: shown.length, sort: 'throughput desc' });
    assert.equal(await fresh.locator('#qos-points-table-filter').inputValue(), 'm-light');
    assert.equal(await fresh.locator('#qos-points .th-sort[data-key=throughput]').evaluate((b) => b.closest('th').getAttribute('aria-sort')), 'descending');
    // the rows against the result's points: m-light's, by throughput, largest first
    const thr = (p) => (p.throughput === null ? '—' : p.throughput.toFixed(3));
    const order = [...shown.filter((p) => p.throughput !== null).sort((a, b) => b.throughput - a.throughput),
      ...shown.filter((p) => p.throughput === null)].map(thr);
    const got = await rowsOf(fresh);
    assert.deepEqual(got, want);
    assert.deepEqual(got.map((r) => r.split('|').pop()), order);
    assert.equal(fresh.url(), url.href);
    // a sort back to the stored order (ascending, the default) leaves `order` out
    await fresh.click('#qos-points .th-sort[data-key=throughput]');
    assert.deepEqual(Object.fromEntries(new URL(fresh.url()).searchParams), { q: 'm-light', sort: 'throughput' });
    await fresh.fill('#qos-points-table-filter', '');
    assert.deepEqual(Object.fromEntries(new URL(fresh.url()).searchParams), { sort: 'throughput' });
  } finally {
    await fresh.close();
  }
  assert.deepEqual(problems, []);
});

test('a QoS sweep link with a sort the Points table does not have says so and shows the points in their order', async () => {
  const { page, problems } = br;
  await page.goto(`${base}/experiments/${qslug}?sort=nope&order=sideways&q=rollover`);
  const st = await ready(page, 'sweep');
  const rollover = qresult.points.filter((p) => p.scheme === 'rollover');
  assert.deepEqual(st.sweepPoints, { rows: rollover.length, sort: null });
  const note = await page.locator('#qos-points #link-note').textContent();
  assert.match(note, /sort=nope is not a column this table sorts by \(qos, other, class, goal, scheme, attained, met, throughput\)/);
  assert.match(note, /order=sideways is neither asc nor desc/);
  // the URL says what is shown
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { q: 'rollover' });
  const goals = await page.locator('#qos-points-table tbody tr td:nth-child(4)').allTextContents();
  assert.deepEqual(goals, rollover.map((p) => p.goal.toFixed(2)));
  assert.deepEqual(problems, []);
});

// DESIGN §6: a series hidden by a click on the Fig. 8 chart's legend is in
// the URL (`hide`, its label; docs/api.md "Share links"): a fresh page of
// the link draws the chart without it.
test('a sweep chart\'s series hidden from its legend are in the URL: a fresh page of that link hides them too', async () => {
  const { page, problems, context } = br;
  await page.goto(`${base}/experiments/${slug}`);
  await ready(page, 'sweep');
  const visible = (p) => p.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('#sweep-chart canvas'));
    return c.data.datasets.map((d, i) => [d.label, c.isDatasetVisible(i)]);
  });
  // a real click on the legend's second item (gcaps_suspend)
  const box = await page.evaluate(() => {
    const canvas = document.querySelector('#sweep-chart canvas');
    const c = window.Chart.getChart(canvas);
    const hb = c.legend.legendHitBoxes[1];
    const r = canvas.getBoundingClientRect();
    return { x: r.left + hb.left + hb.width / 2, y: r.top + hb.top + hb.height / 2, label: c.legend.legendItems[1].text };
  });
  assert.equal(box.label, 'gcaps_suspend');
  // (Chart.js takes canvas events on the next animation frame)
  await page.mouse.click(box.x, box.y);
  await page.waitForFunction(() => location.search !== '');
  const want = [['tsg_rr_suspend', true], ['gcaps_suspend', false], ['gcaps_suspend_gprio', true]];
  assert.deepEqual(await visible(page), want);
  const url = new URL(page.url());
  assert.deepEqual(Object.fromEntries(url.searchParams), { hide: 'gcaps_suspend' });
  const fresh = await context.newPage();
  fresh.on('pageerror', (e) => problems.push(`fresh page error: ${e.message}`));
  try {
    await fresh.goto(url.href);
    await ready(fresh, 'sweep');
    assert.deepEqual(await visible(fresh), want);
    assert.equal(fresh.url(), url.href);
  } finally {
    await fresh.close();
  }
  // shown again: left out of the URL
  await page.mouse.click(box.x, box.y);
  await page.waitForFunction(() => location.search === '');
  // a label the chart has not: said, dropped from the URL
  await page.goto(`${base}/experiments/${slug}?hide=gcaps_busy,tsg_rr_suspend`);
  await ready(page, 'sweep');
  assert.deepEqual(await visible(page), [['tsg_rr_suspend', false], ['gcaps_suspend', true], ['gcaps_suspend_gprio', true]]);
  assert.equal(await page.locator('#sweep-chart #link-note').textContent(),
    'The link\'s hide= names "gcaps_busy", not a series of this chart (tsg_rr_suspend, gcaps_suspend, gcaps_suspend_gprio): it is left out.');
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { hide: 'tsg_rr_suspend' });
  assert.deepEqual(problems, []);
});

// DESIGN §6, and docs/api.md "Share links": each QoS chart's series hidden
// from its legend are in the URL, a key a chart (hide_reach,
// hide_throughput, hide_class, …): a click hid a scheme in the page only,
// so a link opened with every series drawn.
test('a QoS sweep\'s charts keep the series hidden from their legends in the URL, each chart its own', async () => {
  const { page, problems, context } = br;
  await page.goto(`${base}/experiments/${qslug}`);
  await ready(page, 'sweep');
  const visible = (p, id) => p.evaluate((sel) => {
    const c = window.Chart.getChart(document.querySelector(`${sel} canvas`));
    return c.data.datasets.map((d, i) => [d.label, c.isDatasetVisible(i)]);
  }, id);
  // a real click on the QoSreach chart's legend item "naive"
  const box = await page.evaluate(() => {
    const canvas = document.querySelector('#qos-reach-chart canvas');
    const c = window.Chart.getChart(canvas);
    const i = c.legend.legendItems.findIndex((x) => x.text === 'naive');
    const hb = c.legend.legendHitBoxes[i];
    const r = canvas.getBoundingClientRect();
    return { x: r.left + hb.left + hb.width / 2, y: r.top + hb.top + hb.height / 2 };
  });
  await page.mouse.click(box.x, box.y);
  await page.waitForFunction(() => location.search !== '');
  const url = new URL(page.url());
  assert.deepEqual(Object.fromEntries(url.searchParams), { hide_reach: 'naive' });
  const reach = [['naive', false], ['rollover', true], ['spart', true]];
  const all = [['naive', true], ['rollover', true], ['spart', true]];
  assert.deepEqual(await visible(page, '#qos-reach-chart'), reach);
  const fresh = await context.newPage();
  fresh.on('pageerror', (e) => problems.push(`fresh page error: ${e.message}`));
  try {
    await fresh.goto(url.href);
    await ready(fresh, 'sweep');
    assert.deepEqual(await visible(fresh, '#qos-reach-chart'), reach);
    // the other charts as they were
    assert.deepEqual(await visible(fresh, '#qos-throughput-chart'), all);
    assert.equal(fresh.url(), url.href);
  } finally {
    await fresh.close();
  }
  // another chart's key, and a label that chart has not: said, dropped
  await page.goto(`${base}/experiments/${qslug}?hide_throughput=spart&hide_class=elastic`);
  await ready(page, 'sweep');
  assert.deepEqual(await visible(page, '#qos-throughput-chart'), [['naive', true], ['rollover', true], ['spart', false]]);
  assert.deepEqual(await visible(page, '#qos-reach-chart'), all);
  assert.match(await page.locator('#qos-class-chart-link-note').textContent(),
    /^The link's hide_class= names "elastic", not a series of this chart \(naive, rollover, spart.*\): it is left out\.$/);
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { hide_throughput: 'spart' });
  assert.deepEqual(problems, []);
});
