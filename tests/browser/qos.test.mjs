// The QoS tab and the compare page's QoS section (issue 30), on the shipped
// ISCA'17 quota pair. What the page drew (window.schedlab.qos, qosLines,
// qosCompare) is checked against the run's kernels as the API states them
// (the goal line is qos_goal x ipc_isolated, ISCA'17 §3.2), and the schemes'
// order against §4.2: Rollover reaches more of its isolated IPC than
// Elastic, Elastic more than Naive, and only Rollover meets the goal here
// (the scenario's description: 50.7 / 58.6 / 66.3 % against a 60 % goal).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServerAndBrowser, stopServerAndBrowser, ready, docShot, OUT, REPO, shot, chartVisible, clickLegend } from './harness.mjs';

let srv;
let br;
let page;
let exp;

before(async () => {
  let experiments;
  ({ srv, br, page, experiments } = await startServerAndBrowser());
  exp = experiments.find((e) => /^ISCA'17 quota sharing/.test(e.name));
  assert.ok(exp, 'the shipped quota pair is stored');
});

after(() => stopServerAndBrowser(srv, br));

const runOf = (name) => exp.runs.find((r) => r.name === name).run;

test('the QoS tab: Q against its goal line and its isolated IPC, per epoch; C\'s share of its isolated IPC', async () => {
  const run = runOf('quota-naive');
  await page.goto(`${srv.base}/runs/${run}`);
  await ready(page, 'timeline');
  const tabs = await page.$$eval('nav.tabs a.tab', (as) => as.map((a) => a.dataset.tab));
  assert.ok(tabs.includes('qos'), `tabs: ${tabs}`);
  await page.click('nav.tabs a[data-tab=qos]');
  const st = await ready(page, 'qos');
  const ks = (await srv.api(`/api/runs/${run}/kernels`)).body.kernels;
  const q = ks.find((k) => k.name === 'Q');
  const cK = ks.find((k) => k.name === 'C');
  assert.equal(st.qos.kernels.length, 1);
  const drawn = st.qos.kernels[0];
  assert.equal(drawn.name, 'Q');
  assert.ok(Math.abs(drawn.goal_ipc - 0.6 * q.ipc_isolated) < 1e-9);
  assert.equal(drawn.met, false);   // Naive misses (§4.2; the scenario's 50.7 %)
  const line = st.qosLines[0];
  assert.ok(Math.abs(line.goal - 0.6 * q.ipc_isolated) < 1e-9);
  assert.equal(line.isolated, q.ipc_isolated);
  const epochs = (await srv.api(`/api/runs/${run}/warps?max=0`)).body.warp_epochs.filter((e) => e.kernel === q.id);
  assert.equal(line.epochs, epochs.length);
  assert.ok(line.epochs > 10);
  assert.equal(st.qos.nonqos.length, 1);
  assert.ok(Math.abs(st.qos.nonqos[0].share - cK.ipc_shared / cK.ipc_isolated) < 1e-12);
  assert.equal(await page.locator('.qos-kernel h2 .missed').count(), 1);
  await shot(page, path.join(OUT, 'qos-naive.png'), { fullPage: true });
  assert.deepEqual(br.problems, []);
});

test('compare of the four schemes: attained share per scheme against the goal, §4.2\'s order at a glance', async () => {
  const ids = ['quota-naive', 'quota-history', 'quota-elastic', 'quota-rollover'].map(runOf);
  await page.goto(`${srv.base}/compare?runs=${ids.join(',')}`);
  const st = await ready(page, 'compare');
  const rows = st.qosCompare;
  assert.deepEqual(rows.map((r) => r.run), ids);
  const at = rows.map((r) => r.qos[0].attained);
  const [naive, , elastic, rollover] = at;
  assert.ok(rollover > elastic && elastic > naive, `attained: ${at}`);
  assert.deepEqual(rows.map((r) => r.qos[0].met), [false, false, false, true]);
  for (const r of rows) assert.equal(r.qos[0].goal, 0.6);
  // the non-QoS kernel pays for it: C keeps less under Rollover than under Naive
  assert.ok(rows[3].nonqos[0].share < rows[0].nonqos[0].share);
  assert.equal(await page.locator('#qos-compare-table tbody tr').count(), 4);
  await shot(page.locator('#qos-compare'), docShot('img/qos-compare.png'));   // the README's picture
  assert.deepEqual(br.problems, []);
});

// DESIGN §6 (a page's URL holds its whole view) and docs/api.md "Share
// links": the series a QoS chart's legend hides are in the URL, a key a
// chart, as the QoS sweep's charts keep theirs (hide_reach, …): the QoS
// tab's hide_qos1 (its first QoS kernel's chart) and hide_nonqos, the
// compare page's hide_qos. Before, a legend click hid a series in the page
// only: the URL stayed ?view=qos and a link opened with every series drawn.
test('the QoS charts keep the series hidden from their legends in the URL: the QoS tab and the compare page', async () => {
  const run = runOf('quota-naive');
  await page.goto(`${srv.base}/runs/${run}?view=qos`);
  let st = await ready(page, 'qos');
  const labels = st.qosLines[0].labels;
  const goal = labels[1];
  assert.match(goal, /^goal /);
  await clickLegend(page, '#qos-kernel-1', goal);
  await page.waitForFunction(() => new URL(location.href).searchParams.has('hide_qos1'));
  const url = new URL(page.url());
  assert.deepEqual(Object.fromEntries(url.searchParams), { view: 'qos', hide_qos1: goal });
  const hid = labels.map((l) => [l, l !== goal]);
  assert.deepEqual(await chartVisible(page, '#qos-kernel-1'), hid);
  const fresh = await br.context.newPage();
  try {
    await fresh.goto(url.href);
    await ready(fresh, 'qos');
    assert.deepEqual(await chartVisible(fresh, '#qos-kernel-1'), hid);
    assert.deepEqual(await chartVisible(fresh, '#qos-nonqos'), [['C IPC per epoch', true]]);
    assert.equal(fresh.url(), url.href);
  } finally {
    await fresh.close();
  }
  // the other chart's key, and a label the chart has not: said, dropped
  await page.goto(`${srv.base}/runs/${run}?view=qos&hide_nonqos=C%20IPC%20per%20epoch&hide_qos1=bogus`);
  await ready(page, 'qos');
  assert.deepEqual(await chartVisible(page, '#qos-nonqos'), [['C IPC per epoch', false]]);
  assert.deepEqual(await chartVisible(page, '#qos-kernel-1'), labels.map((l) => [l, true]));
  assert.match(await page.locator('#qos-kernel-1-link-note').textContent(), /^The link's hide_qos1= names "bogus", not a series of this chart \(Q IPC per epoch, goal .*\): it is left out\.$/);
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { view: 'qos', hide_nonqos: 'C IPC per epoch' });
  // to the Timeline and back through the tab links (docs/api.md "Share
  // links of a run": a tab link carries its tab's keys as last shown): the
  // Timeline's URL without hide_nonqos, the QoS tab's with it, the series
  // hidden again (before: the QoS tab came back with every series drawn)
  await page.click('.tabs a[data-tab="timeline"]');
  await ready(page, 'timeline');
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { view: 'timeline' });
  await page.click('.tabs a[data-tab="qos"]');
  await ready(page, 'qos');
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { view: 'qos', hide_nonqos: 'C IPC per epoch' });
  assert.deepEqual(await chartVisible(page, '#qos-nonqos'), [['C IPC per epoch', false]]);

  // the compare page's QoS chart: hide_qos, beside the runs
  const ids = ['quota-naive', 'quota-rollover'].map(runOf);
  await page.goto(`${srv.base}/compare?runs=${ids.join(',')}`);
  st = await ready(page, 'compare');
  const all = await chartVisible(page, '#qos-compare');
  assert.deepEqual(all.map(([l]) => l), ['Q (QoS)', 'Q goal', 'C (non-QoS)']);
  await clickLegend(page, '#qos-compare', 'Q goal');
  await page.waitForFunction(() => new URL(location.href).searchParams.has('hide_qos'));
  const curl = new URL(page.url());
  assert.equal(curl.searchParams.get('runs'), ids.join(','));
  assert.equal(curl.searchParams.get('hide_qos'), 'Q goal');
  const other = await br.context.newPage();
  try {
    await other.goto(curl.href);
    await ready(other, 'compare');
    assert.deepEqual(await chartVisible(other, '#qos-compare'), [['Q (QoS)', true], ['Q goal', false], ['C (non-QoS)', true]]);
  } finally {
    await other.close();
  }
  assert.deepEqual(br.problems, []);
});

// A shipped result file (sweeps/results/) and its page, opened: the file
// read whole and, per figure f, what #qos-f-chart drew.
async function shippedPage(file, figs) {
  const r = JSON.parse(fs.readFileSync(path.join(REPO, 'sweeps', 'results', file), 'utf8'));
  const list = (await srv.api('/api/experiments')).body.experiments;
  const e = list.find((x) => x.name === r.name);
  assert.ok(e, `${r.name}: not stored`);
  await page.goto(`${srv.base}/experiments/${e.slug}`);
  await ready(page, 'sweep');
  const drawn = await page.evaluate((names) => Object.fromEntries(names.map((f) => {
    const c = window.Chart.getChart(document.querySelector(`#qos-${f}-chart canvas`));
    return [f, { labels: c.data.labels, sets: c.data.datasets.map((d) => ({ label: d.label, data: d.data })) }];
  })), figs);
  return { r, drawn };
}

// The shipped whole pair sweep (sweeps/results/, stored by the default
// database) drawn as ISCA'17's Figs. 7 and 9: each bar what the shipped
// file's points say, the paper's numbers outlined beside them (§4.2: "for
// C+C kernels, Spart and Rollover meet QoS goals in all cases"; §4.4:
// "Spart exceeds the given goal by 11.6% ... Rollover only ... by 2.8%").
test('the shipped 90-pair sweep: Fig. 7 per QoS kernel and class and Fig. 9, ours beside the paper\'s', async () => {
  const { r, drawn } = await shippedPage('isca17-parboil-paper-rollover-spart.json', ['class', 'overshoot']);
  const classes = ['C+C', 'C+M', 'M+C', 'M+M'];
  assert.deepEqual(drawn.class.labels, [...r.kernels.map((k) => k.name), ...classes]);
  const share = (s, inG) => {
    const pts = r.points.filter((p) => p.scheme === s && inG(r.pairs[p.pair]));
    return Math.round((pts.filter((p) => p.qos_met).length / pts.length) * 1000) / 10;
  };
  for (const [i, s] of ['rollover', 'spart'].entries()) {
    assert.equal(drawn.class.sets[i].label, s);
    assert.deepEqual(drawn.class.sets[i].data, [...r.kernels.map((k) => share(s, (p) => p.qos === k.name)),
      ...classes.map((c) => share(s, (p) => p.classes === c))]);
    assert.equal(drawn.class.sets[i + 2].label, `${s} (paper)`);
    assert.equal(drawn.class.sets[i + 2].data[r.kernels.length], 100);
  }
  // 90 pairs: each QoS kernel's bar is over its 9 pairs x 10 goals, as Fig. 7's
  assert.equal(r.points.filter((p) => p.scheme === 'rollover' && r.pairs[p.pair].qos === 'histo').length, 90);
  assert.deepEqual(drawn.overshoot.sets[1], { label: 'paper', data: [2.8, 11.6] });
  assert.deepEqual(drawn.overshoot.sets[0].data, ['rollover', 'spart'].map((s) => Math.round(r.overshoot[s] * 1000) / 10));
  await shot(page.locator('#qos-class-chart'), docShot('img/qos-fig7.png'));   // the README's picture
  assert.deepEqual(br.problems, []);
});

// The shipped trio sweeps drawn the same way: Fig. 8b's and 8c's lead of
// Rollover's non-QoS throughput over Spart's per goal, from each file's
// throughput per goal, with §4.3's numbers outlined ("19.9% and 20.5% in
// three-kernel sharing with one (Figure 8b) and two (Figure 8c) QoS
// kernels"; "the largest improvement of 75.5% in Figure 8b occurs in the
// 95% category"); Fig. 7's bars count a trio for each of its QoS kernels.
test('the shipped trio sweeps: Fig. 8b/8c\'s lead over Spart per goal beside §4.3\'s numbers', async () => {
  for (const [file, avg, at95] of [['isca17-parboil-trio1-paper.json', 19.9, 75.5], ['isca17-parboil-trio2-paper.json', 20.5, null]]) {
    const { r, drawn } = await shippedPage(file, ['gain', 'class']);
    const goals = r.goals.map((g) => `${Math.round(g * 100)}%`);
    assert.deepEqual(drawn.gain.labels, [...goals, 'avg (pooled)', 'avg (mean of goals)'], file);
    const ro = r.throughput_by_goal.rollover, sp = r.throughput_by_goal.spart;
    const g = (a, b) => (a === null || !(b > 0) ? null : Math.round((a / b - 1) * 1000) / 10);
    const both = ro.map((_, i) => i).filter((i) => ro[i] !== null && sp[i] !== null);
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.deepEqual(drawn.gain.sets[0], { label: 'rollover', data: [...ro.map((x, i) => g(x, sp[i])),
      g(r.throughput.rollover, r.throughput.spart), g(mean(both.map((i) => ro[i])), mean(both.map((i) => sp[i])))] }, file);
    assert.deepEqual(drawn.gain.sets[1], { label: 'rollover (paper)',
      data: [...r.goals.map((x) => (x === 0.95 ? at95 : null)), avg, avg] }, file);
    // Fig. 7's per-kernel bars: a trio counts for each of its QoS kernels
    const k = r.kernels[0].name;
    const pts = r.points.filter((p) => p.scheme === 'rollover' && [r.pairs[p.pair].qos, r.pairs[p.pair].qos2].includes(k));
    assert.equal(drawn.class.labels[0], k);
    assert.equal(drawn.class.sets[0].data[0], Math.round((pts.filter((p) => p.qos_met).length / pts.length) * 1000) / 10, file);
  }
  assert.deepEqual(br.problems, []);
});
