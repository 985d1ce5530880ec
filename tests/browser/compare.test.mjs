// The compare view (issue 15): runs of any experiments picked on the page,
// their timelines on one time axis, the blocks placed differently framed,
// a sortable per-kernel table, the response-time chart and block-duration
// CDFs, every run labelled "experiment · run".

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, startBrowser, ready, docShot, nvprofCsv, OUT, REPO, shot, chartVisible, clickLegend } from './harness.mjs';

let srv;
let br;
let page;
let pascal;   // Most-room placement on Pascal (Gilman et al., §4.1)
let fig3;     // TX2 basic rules (Fig. 3)

before(async () => {
  srv = await startServer();
  br = await startBrowser();
  page = br.page;
  fs.mkdirSync(OUT, { recursive: true });
  const { body } = await srv.api('/api/experiments');
  pascal = body.experiments.find((e) => /^Most-room placement on Pascal/.test(e.name));
  fig3 = body.experiments.find((e) => /^TX2 basic rules/.test(e.name));
  assert.ok(pascal && fig3, 'the shipped scenarios are seeded');
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

const runOf = (e, name) => e.runs.find((r) => r.name === name).run;

test('most-room vs round-robin: two aligned timelines, exactly the 2 blocks of Y that land elsewhere framed', async () => {
  const mr = runOf(pascal, 'most-room');
  const rr = runOf(pascal, 'round-robin');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}`);
  const st = await ready(page, 'compare');
  assert.equal(st.timelines, 2);
  // By hand from the trace (GET /api/runs/{run}/blocks): X's 5 blocks go to
  // SMs 0-4 at t=0 under both policies; Y (3 blocks, t=1.5 s) goes to SMs
  // 0, 0, 1 under most-room (the SMs with the most room) and 0, 1, 2 under
  // round-robin. So Y:1 and Y:2 are on another SM, no block starts at
  // another time, and the response times are equal (the "±0").
  assert.deepEqual(st.placementDiffs, [2, 2]);
  assert.deepEqual(st.placementCompared, [0, 8]);
  assert.match(await page.locator('#placement-summary').textContent(), /2 of 8 blocks placed differently \(2 on another SM, 0 starting at another time\)/);
  // every block of both runs drawn
  assert.equal(st.drawnBlocks, 16);
  // labels "experiment · run", never wider than their card
  assert.deepEqual(st.runLabels, [`${pascal.name} · most-room`, `${pascal.name} · round-robin`]);
  const over = await page.evaluate(() => [...document.querySelectorAll('.run-label')].filter((el) => {
    const card = el.closest('.card');
    if (!card) return false;
    const r = el.getBoundingClientRect();
    const c = card.getBoundingClientRect();
    return r.right > c.right + 0.5 || r.left < c.left - 0.5;
  }).map((el) => el.textContent));
  assert.deepEqual(over, []);
  const titled = await page.locator('#compare-runs .run-label').first().getAttribute('title');
  assert.equal(titled, `${pascal.name} · most-room`);
  // the CDFs: one point per block
  assert.deepEqual(st.cdfPoints, [8, 8]);
  const cdf = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('#compare-cdf canvas'));
    return c.data.datasets.map((d) => [d.data.length, d.data[d.data.length - 1].y]);
  });
  assert.deepEqual(cdf, [[8, 1], [8, 1]]);
  // the response-time chart: one series per run
  const bars = await page.evaluate(() => window.Chart.getChart(document.querySelector('#compare-chart canvas')).data.datasets.length);
  assert.equal(bars, 2);
  await shot(page, path.join(OUT, 'compare-placement.png'), { fullPage: true });
  await shot(page, docShot('img/compare.png'), { fullPage: true });
  assert.deepEqual(br.problems, []);
});

// The kernels a legend hides are the view too (DESIGN §6: "Page URLs carry
// the whole view state"): they were lost on a reload or a link, every
// kernel shown again. In the URL as on a run page (k=, by index among the
// runs' distinct kernel names).
test('kernels hidden in the legend are in the URL: a reload and a link in a fresh page hide them again', async () => {
  const mr = runOf(pascal, 'most-room');
  const rr = runOf(pascal, 'round-robin');
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}`);
  let st = await ready(page, 'compare');
  const all = st.drawnBlocks;
  const pressed = (p) => p.locator('#compare-timelines .legend-item').evaluateAll((xs) => xs.map((x) => `${x.dataset.kernel}:${x.getAttribute('aria-pressed')}`));
  const names = (await pressed(page)).slice(0, 2).map((x) => x.split(':')[0]);
  assert.deepEqual(names, ['X', 'Y']);
  await page.locator('#compare-timelines .legend-item[data-k="0"]').first().click();
  await page.waitForFunction(() => new URL(location.href).searchParams.has('k'));
  assert.equal(new URL(page.url()).searchParams.get('k'), '1');
  st = await page.evaluate(() => ({ ...window.schedlab }));
  assert.ok(st.drawnBlocks < all, `${st.drawnBlocks} of ${all} blocks drawn with X hidden`);
  const hidden = ['X:false', 'Y:true', 'X:false', 'Y:true'];
  assert.deepEqual(await pressed(page), hidden);
  const url = page.url();
  await page.reload();
  let again = await ready(page, 'compare');
  assert.deepEqual(await pressed(page), hidden);
  assert.equal(again.drawnBlocks, st.drawnBlocks);
  assert.equal(page.url(), url);
  const other = await br.context.newPage();
  try {
    await other.goto(url);
    again = await ready(other, 'compare');
    assert.deepEqual(await pressed(other), hidden);
    assert.equal(again.drawnBlocks, st.drawnBlocks);
  } finally {
    await other.close();
  }
  // "none", then "all": k= empty, then no k (each lane's legend has ids
  // of its own: the first lane's "none", the second's "all")
  await page.locator('#compare-lane-1-legend-none').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('k') === '');
  await page.locator('#compare-lane-2-legend-all').click();
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('k'));
  assert.deepEqual(br.problems, []);
});

// DESIGN §6 and docs/api.md "Share links": each lane's legend lists every
// compared run's kernel names under one hidden set (k=), and its search box
// is one too: typed in any lane, every lane's box and list follow, and the
// text is the URL's `search` (as on a run page), kept by a zoom, a hidden
// kernel and the table's sort. Before, the search was the lane's only: the
// URL never had it, a link listed every name.
test('the lanes\' legend search is the URL\'s search, in step in every lane: a link reopens it, zooms and hiding keep it', async () => {
  const mr = runOf(pascal, 'most-room');
  const rr = runOf(pascal, 'round-robin');
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}`);
  const st = await ready(page, 'compare');
  const boxes = (p) => p.locator('#compare-timelines .legend-search').evaluateAll((xs) => xs.map((x) => x.value));
  const listed = (p) => p.locator('#compare-timelines .compare-lane').evaluateAll((ls) => ls.map((l) => [...l.querySelectorAll('.legend-item')].map((x) => x.dataset.kernel)));
  const params = () => Object.fromEntries(new URL(page.url()).searchParams);
  assert.deepEqual(await listed(page), [['X', 'Y'], ['X', 'Y']]);
  // typed in the second lane's box (lower case: the search ignores case)
  await page.locator('#compare-timelines .legend-search').nth(1).fill('y');
  await page.waitForFunction(() => new URL(location.href).searchParams.has('search'));
  assert.deepEqual(params(), { runs: `${mr},${rr}`, search: 'y' });
  assert.deepEqual(await boxes(page), ['y', 'y']);
  assert.deepEqual(await listed(page), [['Y'], ['Y']]);
  assert.equal((await page.evaluate(() => window.schedlab.drawnBlocks)), st.drawnBlocks, 'a search hides nothing');
  const url = page.url();
  const other = await br.context.newPage();
  try {
    await other.goto(url);
    const again = await ready(other, 'compare');
    assert.deepEqual(await boxes(other), ['y', 'y']);
    assert.deepEqual(await listed(other), [['Y'], ['Y']]);
    assert.equal(again.drawnBlocks, st.drawnBlocks);
    assert.equal(other.url(), url);
  } finally {
    await other.close();
  }
  // a zoom, a kernel hidden (Y, in the first lane) and the table's sort
  // rewrite the URL with the search kept
  await page.click('#zoom-in');
  await page.waitForFunction(() => new URL(location.href).searchParams.has('from'));
  assert.equal(params().search, 'y');
  await page.locator('#compare-timelines .legend-item[data-kernel="Y"]').first().click();
  await page.waitForFunction(() => new URL(location.href).searchParams.has('k'));
  assert.equal(params().search, 'y');
  assert.deepEqual(await boxes(page), ['y', 'y']);
  await page.locator('#compare-kernels th .sort').first().click();
  await page.waitForFunction(() => new URL(location.href).searchParams.has('sort'));
  assert.equal(params().search, 'y');
  // cleared in the first lane: no key, every name in both lanes again
  await page.locator('#compare-timelines .legend-search').first().fill('');
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('search'));
  assert.deepEqual(await boxes(page), ['', '']);
  assert.deepEqual(await listed(page), [['X', 'Y'], ['X', 'Y']]);
  assert.ok(new URL(page.url()).searchParams.has('k'));
  assert.deepEqual(br.problems, []);
});

// DESIGN §6 and docs/api.md "Share links": the runs the response-time
// chart's and the CDF chart's legends hide are in the URL (hide_response,
// hide_cdf: the runs' ids), as the sweeps' charts keep theirs, beside
// the window and k=. Before, a legend click hid a run in the page only and
// the link drew every run.
test('the runs hidden from the response-time and CDF charts\' legends are in the URL', async () => {
  const mr = runOf(pascal, 'most-room');
  const rr = runOf(pascal, 'round-robin');
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}`);
  await ready(page, 'compare');
  const resp = await chartVisible(page, '#compare-chart');
  const cdf = await chartVisible(page, '#compare-cdf');
  assert.equal(resp.length, 2);
  assert.equal(cdf.length, 2);
  const second = resp[1][0];
  assert.match(second, /round-robin$/);
  await clickLegend(page, '#compare-chart', second);
  await page.waitForFunction(() => new URL(location.href).searchParams.has('hide_response'));
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('runs'), `${mr},${rr}`);
  assert.equal(url.searchParams.get('hide_response'), rr);
  assert.deepEqual(await chartVisible(page, '#compare-chart'), [[resp[0][0], true], [second, false]]);
  // a zoom keeps it (the window's rewrite keeps the other keys)
  await page.click('#zoom-in');
  await page.waitForFunction(() => new URL(location.href).searchParams.has('from'));
  assert.equal(new URL(page.url()).searchParams.get('hide_response'), rr);
  const other = await br.context.newPage();
  try {
    await other.goto(page.url());
    await ready(other, 'compare');
    assert.deepEqual(await chartVisible(other, '#compare-chart'), [[resp[0][0], true], [second, false]]);
    assert.deepEqual(await chartVisible(other, '#compare-cdf'), cdf);
  } finally {
    await other.close();
  }
  // the CDF's key: a link hides its run; an entry it has not is said and dropped
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}&hide_cdf=${mr},nobody`);
  await ready(page, 'compare');
  assert.deepEqual(await chartVisible(page, '#compare-cdf'), [[cdf[0][0], false], [cdf[1][0], true]]);
  assert.deepEqual(await chartVisible(page, '#compare-chart'), resp);
  assert.match(await page.locator('#compare-cdf-link-note').textContent(), /^The link's hide_cdf= names "nobody", not a series of this chart .*: it is left out\.$/);
  assert.equal(new URL(page.url()).searchParams.get('hide_cdf'), mr);
  await clickLegend(page, '#compare-cdf', cdf[0][0]);
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('hide_cdf'));
  assert.deepEqual(br.problems, []);
});

test('zoom on one timeline moves every timeline and the URL', async () => {
  const mr = runOf(pascal, 'most-room');
  const rr = runOf(pascal, 'round-robin');
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}`);
  await ready(page, 'compare');
  const canvas = page.locator('#compare-timelines .compare-lane').nth(1).locator('canvas').first();
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 3);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction(() => /from=/.test(location.search));
  const wins = await page.evaluate(() => [...document.querySelectorAll('#compare-timelines canvas')].map((c) => {
    const ch = window.Chart.getChart(c);
    return ch ? [ch.scales.x.min, ch.scales.x.max] : null;
  }).filter(Boolean));
  assert.equal(wins.length, 2);
  assert.deepEqual(wins[0], wins[1]);
  const url = new URL(page.url());
  assert.deepEqual([Number(url.searchParams.get('from')), Number(url.searchParams.get('to'))], wins[0]);
  const st = await page.evaluate(() => ({ ...window.schedlab }));
  assert.deepEqual([st.compareWindow.from, st.compareWindow.to], wins[0]);
  assert.ok(wins[0][1] - wins[0][0] < 3000000000, `zoomed in: ${wins[0]}`);
  // the shared link reopens the same window on both
  await page.reload();
  await ready(page, 'compare');
  const again = await page.evaluate(() => [...document.querySelectorAll('#compare-timelines canvas')].map((c) => {
    const ch = window.Chart.getChart(c);
    return ch ? [ch.scales.x.min, ch.scales.x.max] : null;
  }).filter(Boolean));
  assert.deepEqual(again, [wins[0], wins[0]]);
  assert.deepEqual(br.problems, []);
});

test('the kernels table sorts by a column, both ways', async () => {
  const mr = runOf(pascal, 'most-room');
  const rr = runOf(pascal, 'round-robin');
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}`);
  let st = await ready(page, 'compare');
  assert.deepEqual(st.compareOrder, ['X', 'Y']);
  // the first run's "start" column: X starts at 0, Y at 1.5 s
  const startHead = page.locator('#compare-table thead tr').nth(1).locator('th').nth(2).locator('button');
  assert.equal(await startHead.textContent(), 'start');
  await startHead.click();
  st = await page.evaluate(() => ({ ...window.schedlab }));
  assert.deepEqual(st.compareOrder, ['X', 'Y']);
  assert.deepEqual(st.compareSort, { column: 'start', index: 2, dir: 'asc' });
  await startHead.click();
  st = await page.evaluate(() => ({ ...window.schedlab }));
  assert.deepEqual(st.compareOrder, ['Y', 'X']);
  assert.equal(st.compareSort.dir, 'desc');
  const first = await page.locator('#compare-table tbody tr').first().locator('td').first().textContent();
  assert.equal(first, 'Y');
  assert.deepEqual(br.problems, []);
});

// DESIGN §6: the page's URL holds its whole view. The kernels table's sort
// is the URL's (`sort` a column's key, `order`; docs/api.md "Share
// links"): a fresh page of the link shows the rows in the same order, and a
// zoom after keeps it in the URL.
test('the kernels table\'s sort is in the URL: a fresh page of that link shows the same order', async () => {
  const mr = runOf(pascal, 'most-room');
  const rr = runOf(pascal, 'round-robin');
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}`);
  await ready(page, 'compare');
  const startHead = page.locator('#compare-table thead tr').nth(1).locator('th').nth(2).locator('button');
  await startHead.click();
  await startHead.click();
  const url = new URL(page.url());
  assert.deepEqual(Object.fromEntries(url.searchParams), { runs: `${mr},${rr}`, sort: 'start-1', order: 'desc' });
  // the order the API's first-run starts give, latest first
  const { body } = await srv.api(`/api/compare?runs=${mr},${rr}`);
  const want = [...body.kernels].sort((a, b) => b.start[0] - a.start[0]).map((k) => k.name);
  assert.deepEqual(want, ['Y', 'X']);
  const fresh = await br.context.newPage();
  fresh.on('pageerror', (e) => br.problems.push(`fresh page error: ${e.message}`));
  try {
    await fresh.goto(url.href);
    const st = await ready(fresh, 'compare');
    assert.deepEqual(st.compareOrder, want);
    assert.deepEqual(st.compareSort, { column: 'start', index: 2, dir: 'desc' });
    assert.equal(await fresh.locator('#compare-table thead tr').nth(1).locator('th').nth(2).getAttribute('aria-sort'), 'descending');
    assert.equal(fresh.url(), url.href);
    // a zoom writes its window beside the sort
    await fresh.click('#zoom-in');
    await fresh.waitForFunction(() => new URL(location.href).searchParams.has('from'));
    const after = new URL(fresh.url()).searchParams;
    assert.equal(after.get('sort'), 'start-1');
    assert.equal(after.get('order'), 'desc');
  } finally {
    await fresh.close();
  }
  // a column the table does not have: said, the comparison's order, the URL without it
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}&sort=delta-1&order=up`);
  const st = await ready(page, 'compare');
  assert.deepEqual(st.compareOrder, ['X', 'Y']);
  assert.equal(st.compareSort, null);
  assert.equal(await page.locator('#compare-sort-note').textContent(),
    'The link\'s sort=delta-1 is not a column of this table (kernel, stream, start-1, duration-1, response-1, start-2, duration-2, response-2, delta-2): the kernels are in the comparison\'s order. The link\'s order=up is neither asc nor desc: ascending.');
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { runs: `${mr},${rr}` });
  assert.deepEqual(br.problems, []);
});

test('the picker adds a run of another experiment and removes one', async () => {
  const mr = runOf(pascal, 'most-room');
  const f3 = fig3.runs[0].run;
  await page.goto(`${srv.base}/compare?runs=${mr}`);
  let st = await ready(page, 'compare');
  assert.equal(st.timelines, 0);
  await page.locator('#compare-empty').waitFor();
  await page.fill('#compare-search', 'basic rules Amert');
  const add = page.locator(`#compare-results button[data-run="${f3}"]`);
  await add.waitFor();
  // every run of Fig. 3's experiment is offered once (another experiment
  // the words find, tx2-fig3-task-sync's, may be listed beside it)
  for (const r of fig3.runs) assert.equal(await page.locator(`#compare-results button.add-run[data-run="${r.run}"]`).count(), 1);
  await add.click();
  st = await ready(page, 'compare');
  assert.equal(new URL(page.url()).searchParams.get('runs'), `${mr},${f3}`);
  assert.equal(st.timelines, 2);
  assert.deepEqual(st.runLabels, [`${pascal.name} · most-room`, `${fig3.name} · ${fig3.runs[0].name}`]);
  // different workloads: kernels X, Y and Fig. 3's K1..K6 share no name, so
  // no block is matched
  assert.deepEqual(st.placementCompared, [0, 0]);
  await shot(page, path.join(OUT, 'compare-two-experiments.png'), { fullPage: true });
  await page.locator('#compare-runs .chip-remove').first().click();
  st = await ready(page, 'compare');
  assert.equal(new URL(page.url()).searchParams.get('runs'), f3);
  assert.equal(st.timelines, 0);
  assert.deepEqual(br.problems, []);
});

// Adding or removing a run in the picker opened a bare /compare?runs=…,
// dropping the rest of the view (DESIGN §6: the URL is the whole view).
// docs/api.md "Share links": the new comparison keeps the window, the
// search, the kernels hidden (by name: k= is written anew for the new runs'
// names, the legend's order), the table's sort by a run's column
// renumbered to that run's new place (dropped with its run, and a Δ
// column's when the first run changes) and the charts' hidden series whose
// runs are still compared, the others dropped without a note.
test('the picker keeps the view: window, search, hidden kernels by name, sort renumbered, hidden series of the runs left', async () => {
  const mr = runOf(pascal, 'most-room');
  const rr = runOf(pascal, 'round-robin');
  const f3 = fig3.runs[0].run;
  // the legend's names: the runs' distinct kernel names in order of first
  // appearance, run by run (X, Y for Pascal's runs), from the API
  const { body: k3 } = await srv.api(`/api/runs/${f3}/kernels`);
  const f3Names = [...new Set(k3.kernels.map((k) => k.name))];
  assert.ok(f3Names.length >= 2 && !f3Names.includes('X') && !f3Names.includes('Y'));
  const n3 = 2 + f3Names.length;
  const pressed = () => page.locator('#compare-timelines .legend-item').evaluateAll((xs) => xs.map((x) => `${x.dataset.kernel}:${x.getAttribute('aria-pressed')}`));
  const params = () => Object.fromEntries(new URL(page.url()).searchParams);
  const notes = () => page.locator('.link-note').allTextContents().then((x) => x.join(' | '));
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}`);
  await ready(page, 'compare');
  // (the response chart shortens its labels, the CDFs' are whole)
  const [lmr, lrr] = (await chartVisible(page, '#compare-chart')).map(([l]) => l);
  const cmr = (await chartVisible(page, '#compare-cdf'))[0][0];
  // a window inside both runs (their summaries' span, the API's)
  const spans = await Promise.all([mr, rr].map(async (id) => (await srv.api(`/api/runs/${id}`)).body.summary));
  const end = Math.min(...spans.map((x) => x.t_max));
  const win = { from: String(Math.round(end / 4)), to: String(Math.round(end / 2)) };
  // Y hidden (k=0: X shown), the search x, sorted by round-robin's response
  // latest first, round-robin hidden from the response chart, most-room
  // from the CDFs
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}&from=${win.from}&to=${win.to}&k=0&search=x&sort=response-2&order=desc&hide_response=${rr}&hide_cdf=${mr}`);
  await ready(page, 'compare');
  assert.equal(await notes(), '');
  // add Fig. 3's run: its names come after X, Y, all shown
  await page.fill('#compare-search', 'basic rules Amert');
  await page.locator(`#compare-results button[data-run="${f3}"]`).click();
  let st = await ready(page, 'compare');
  assert.equal(st.timelines, 3);
  await page.waitForFunction(() => new URL(location.href).searchParams.get('k') !== '0');
  assert.deepEqual(params(), {
    runs: `${mr},${rr},${f3}`, ...win, k: `0,2-${n3 - 1}`, search: 'x', sort: 'response-2', order: 'desc',
    hide_response: rr, hide_cdf: mr,
  });
  // (the search lists X alone in each lane's legend, shown)
  assert.deepEqual(await pressed(), ['X:true', 'X:true', 'X:true']);
  assert.deepEqual(await page.locator('#compare-timelines .legend-search').evaluateAll((xs) => xs.map((x) => x.value)), ['x', 'x', 'x']);
  assert.deepEqual(st.compareSort, { column: 'response', index: 7, dir: 'desc' });
  const resp3 = await chartVisible(page, '#compare-chart');
  assert.deepEqual(resp3.slice(0, 2), [[lmr, true], [lrr, false]]);
  assert.equal(resp3.length, 3);
  assert.equal(resp3[2][1], true);
  assert.deepEqual((await chartVisible(page, '#compare-cdf'))[0], [cmr, false]);
  assert.equal(await notes(), '');
  // remove most-room (the first): round-robin's response is column 1 now;
  // most-room's hidden CDF is gone with it, without a note; Y still hidden
  await page.locator('#compare-runs .chip-remove').first().click();
  st = await ready(page, 'compare');
  assert.deepEqual(params(), {
    runs: `${rr},${f3}`, ...win, k: `0,2-${n3 - 1}`, search: 'x', sort: 'response-1', order: 'desc', hide_response: rr,
  });
  assert.equal(await notes(), '');
  assert.deepEqual(st.compareSort, { column: 'response', index: 4, dir: 'desc' });
  assert.deepEqual((await chartVisible(page, '#compare-chart'))[0], [lrr, false]);
  assert.ok((await chartVisible(page, '#compare-cdf')).every(([, on]) => on));
  // Fig. 3's run first, Y hidden (index n3 - 1), sorted by round-robin's Δ
  // against it: removing it leaves X, Y numbered 0, 1 (k=0, not the old
  // 0-…), and a Δ against another first run is no sort of the link's
  await page.goto(`${srv.base}/compare?runs=${f3},${mr},${rr}&k=0-${n3 - 2}&sort=delta-3`);
  await ready(page, 'compare');
  assert.deepEqual((await pressed()).slice(-2), ['X:true', 'Y:false']);
  await page.locator('#compare-runs .chip-remove').first().click();
  st = await ready(page, 'compare');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('k') === '0');
  assert.deepEqual(params(), { runs: `${mr},${rr}`, k: '0' });
  assert.deepEqual(await pressed(), ['X:true', 'Y:false', 'X:true', 'Y:false']);
  assert.equal(st.compareSort, null);
  assert.equal(await notes(), '');
  assert.deepEqual(br.problems, []);
});

// Runs without block records (an nvprof log: kernels only) have no
// placement to compare: the summary said "…: 0 of 0 blocks placed
// differently (0 on another SM, 0 starting at another time)", which reads as
// "placed the same". Found comparing two imports of the real traces.
test('runs without block records are not compared block by block', async () => {
  const csv = nvprofCsv(['0,10,1,1,1,32,1,1,16,0,0,,,"GeForce GTX 1080 Ti (0)","1","7","k"']);
  const a = await srv.importNvprof('a.csv', csv);
  const b = await srv.importNvprof('b.csv', csv);
  await page.goto(`${srv.base}/compare?runs=${a},${b}`);
  let st = await ready(page, 'compare');
  assert.deepEqual(st.placementDiffs, [null, null]);
  assert.equal(await page.locator('#placement-summary').textContent(),
    'The first run has no block records (or more than can be matched here): placement is not compared.');
  await page.goto(`${srv.base}/compare?runs=${fig3.runs[0].run},${a}`);
  st = await ready(page, 'compare');
  assert.equal(st.placementDiffs[1], null);
  assert.equal(await page.locator('#placement-summary').textContent(), 'No run has blocks to match against the first.');
  assert.deepEqual(br.problems, []);
});

// An edited scenario's runs repeat its variants' names, so the picker says
// which version each is (GET /api/experiments lists each run's version).
test('the picker tells an edited experiment\'s versions apart', async () => {
  const scn = (blocks) => JSON.stringify({
    schema: 'schedlab-scenario/1', name: 'compare: versions', device: 'tx2', streams: [{ name: 'S1' }],
    ops: [{ kernel: 'k', stream: 'S1', at: '0s', blocks, threads: 256, block_time: '1ms' }],
  });
  const post = (url, body) => srv.api(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const made = await post('/api/experiments', scn(2));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const v2 = await post(`/api/experiments/${made.body.slug}/versions`, scn(3));
  assert.equal(v2.status, 201, JSON.stringify(v2.body));
  await page.goto(`${srv.base}/compare?runs=${runOf(pascal, 'most-room')}`);
  await ready(page, 'compare');
  await page.fill('#compare-search', 'compare: versions');
  await page.locator(`#compare-results button[data-run="${v2.body.runs[0].run}"]`).waitFor();
  assert.deepEqual(await page.locator('#compare-results .run-label').allTextContents(),
    ['compare: versions · default · v1', 'compare: versions · default · v2']);
});

test('two runs past the whole-run limit: each asks for the window shown, the toolbar\'s + draws both from the look-ahead', async () => {
  // 250,000 blocks: past the 200,000 the page matches block by block, so
  // each lane asks for its window (occupancy bins past 20,000 blocks)
  const made = await srv.api('/api/experiments', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      schema: 'schedlab-scenario/1', name: 'compare: two big runs', device: 'tx2', streams: [{ name: 'S1' }],
      ops: [{ kernel: 'big', stream: 'S1', at: '0s', blocks: 250000, threads: 1024, block_time: '10us' }],
      variants: [{ name: 'round-robin', policy: { placement: 'round-robin' } }],
    }),
  });
  // (as big as this, the server simulates it as a job: 202, then polled)
  assert.ok(made.status === 201 || made.status === 202, JSON.stringify(made.body));
  for (let job = made.body; made.status === 202 && job.state !== 'done';) {
    assert.ok(job.state === 'queued' || job.state === 'running', JSON.stringify(job));
    await new Promise((ok) => setTimeout(ok, 100));
    job = (await srv.api(`/api/jobs/${made.body.job}`)).body;
  }
  const exp = (await srv.api('/api/experiments')).body.experiments.find((e) => e.name === 'compare: two big runs');
  const [a, b] = exp.runs.map((r) => r.run);
  const requests = [];
  const onReq = (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('/blocks')) requests.push(`${u.pathname.split('/')[3]}${u.search}`);
  };
  page.on('request', onReq);
  try {
    await page.goto(`${srv.base}/compare?runs=${a},${b}`);
    let st = await ready(page, 'compare');
    assert.equal(st.timelines, 2);
    const w = st.compareWindow;
    const q = (x) => `?from=${x.from}&to=${x.to}&max=20000`;
    // the window shown, once per run (no whole-run request first) ...
    assert.deepEqual(requests.slice(0, 2).sort(), [`${a}${q(w)}`, `${b}${q(w)}`].sort());
    // ... then the "+" step's window of both, asked for ahead
    const step = { from: Math.round((w.from + w.to) / 2 - (w.to - w.from) / 4) };
    step.to = step.from + (w.to - w.from) / 2;
    await page.waitForFunction(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/blocks?')).length === 4);
    assert.deepEqual(requests.slice(2).sort(), [`${a}${q(step)}`, `${b}${q(step)}`].sort());
    // the step draws both lanes from memory: no request for it
    await page.click('#zoom-in');
    st = await ready(page, 'compare');
    assert.deepEqual(st.compareWindow, step);
    // (what follows it, once idle, is the next step's look-ahead)
    assert.equal(requests.filter((r) => r.endsWith(q(step))).length, 2, requests.join(' '));
    assert.ok(requests.slice(4).every((r) => !r.endsWith(q(step)) && !r.endsWith(q(w))), requests.join(' '));
    const wins = await page.evaluate(() => [...document.querySelectorAll('#compare-timelines canvas')].map((c) => {
      const ch = window.Chart.getChart(c);
      return ch ? [ch.scales.x.min, ch.scales.x.max] : null;
    }).filter(Boolean));
    assert.deepEqual(wins, [[step.from, step.to], [step.from, step.to]]);
    // "Reset zoom": the first window again, kept: no request either
    await page.click('#reset-zoom');
    st = await ready(page, 'compare');
    assert.deepEqual(st.compareWindow, w);
    assert.ok(requests.slice(4).every((r) => !r.endsWith(q(w))), requests.join(' '));
  } finally {
    page.off('request', onReq);
  }
  assert.deepEqual(br.problems, []);
});

// A link naming more runs than one comparison takes (GET /api/capabilities
// limits.compare_max_runs, 8; GET /api/compare refuses 9 with "runs: at
// most 8 run ids…") showed only that error, with no run to remove: the page
// now offers every run as a removable chip, the first 8 to compare at
// once, and names the one that leaves out.
test('a link of 9 runs offers the 9 to remove one, and the first 8 to compare', async () => {
  const { body: caps } = await srv.api('/api/capabilities');
  const max = caps.limits.compare_max_runs;
  assert.equal(max, 8);
  const f3 = fig3.runs[0].run;
  const mr = runOf(pascal, 'most-room');
  // a run may be compared with itself (the view's own rule): 8 of Pascal's
  // most-room, then Fig. 3's run, the one left out
  const ids = [...Array(max).fill(mr), f3];
  await page.goto(`${srv.base}/compare?runs=${ids.join(',')}`);
  let st = await ready(page, 'compare');
  assert.equal(await page.locator('#compare-runs .run-chip').count(), 9);
  assert.deepEqual(st.compareDropped, [f3]);
  assert.equal(await page.locator('.error').count(), 0);
  const note = await page.locator('#compare-too-many').textContent();
  assert.equal(note, `At most 8 runs are compared at once, and this link names 9: remove 1 above, or compare the first 8 (leaving out run 9, ${fig3.name} · ${fig3.runs[0].name}).`);
  assert.equal(await page.locator('#compare-runs .run-label').last().getAttribute('title'), `${fig3.name} · ${fig3.runs[0].name}`);
  // removing one (the first) compares the other 8, Fig. 3's run among them
  await page.locator('#compare-runs .chip-remove').first().click();
  st = await ready(page, 'compare');
  assert.equal(new URL(page.url()).searchParams.get('runs'), ids.slice(1).join(','));
  assert.equal(st.timelines, 8);
  assert.deepEqual(st.compareDropped, []);
  // and "compare the first 8" leaves Fig. 3's run out, the link's other
  // keys kept (docs/api.md "Share links"): a sort by its column goes with it
  await page.goto(`${srv.base}/compare?runs=${ids.join(',')}&search=y&sort=response-9&order=desc`);
  await ready(page, 'compare');
  await page.locator('#compare-first').click();
  st = await ready(page, 'compare');
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { runs: ids.slice(0, 8).join(','), search: 'y' });
  assert.equal(st.timelines, 8);
  assert.deepEqual(br.problems, []);
});

// GET /api/compare refuses an empty id ("a,,b": 400 naming its place,
// docs/api.md), which it skipped before: a link with a doubled or trailing
// comma names the runs it lists, and the page compares those (it sends no
// empty id), tidying the URL.
test('a link with a doubled or trailing comma compares the runs it names', async () => {
  const mr = runOf(pascal, 'most-room');
  const rr = runOf(pascal, 'round-robin');
  for (const list of [`${mr},,${rr}`, `${mr},${rr},`]) {
    await page.goto(`${srv.base}/compare?runs=${list}`);
    const st = await ready(page, 'compare');
    assert.equal(st.timelines, 2, list);
    assert.equal(await page.locator('.error').count(), 0, list);
    assert.equal(await page.locator('#compare-runs .run-chip').count(), 2, list);
  }
  assert.deepEqual(br.problems, []);
});

// The picker said "Add a run (up to 8)" and disabled its add buttons at 8
// runs, numbers typed in the page, where the runs one comparison takes are
// the server's (GET /api/capabilities limits.compare_max_runs, docs/api.md;
// the 9-run note above already reads them). The server's limit is a
// constant (COMPARE_MAX_RUNS), so the page is given another one: its
// capabilities answer with compare_max_runs 3.
test('the picker\'s limit is the server\'s: its label and its add buttons follow the capabilities', async () => {
  const caps = async (route) => {
    const r = await route.fetch();
    const body = await r.json();
    body.limits.compare_max_runs = 3;
    await route.fulfill({ response: r, json: body });
  };
  await page.route('**/api/capabilities', caps);
  try {
    const mr = runOf(pascal, 'most-room');
    const rr = runOf(pascal, 'round-robin');
    const f3 = fig3.runs[0].run;
    // one run: the empty comparison's picker
    await page.goto(`${srv.base}/compare?runs=${mr}`);
    await ready(page, 'compare');
    await page.locator('#compare-empty').waitFor();
    const label = page.locator('label[for="compare-search"]');
    await page.waitForFunction(() => /\(up to \d+\)/.test(document.querySelector('label[for="compare-search"]').textContent));
    assert.equal(await label.textContent(), 'Add a run (up to 3)');
    await page.fill('#compare-search', 'basic rules Amert');
    await page.locator(`#compare-results button[data-run="${f3}"]`).waitFor();
    assert.equal(await page.locator(`#compare-results button[data-run="${f3}"]`).isDisabled(), false);
    // two runs: one more may be added; three: none
    await page.goto(`${srv.base}/compare?runs=${mr},${rr}`);
    await ready(page, 'compare');
    assert.equal(await label.textContent(), 'Add a run (up to 3)');
    await page.fill('#compare-search', 'basic rules Amert');
    await page.locator(`#compare-results button[data-run="${f3}"]`).waitFor();
    assert.equal(await page.locator(`#compare-results button[data-run="${f3}"]`).isDisabled(), false);
    await page.goto(`${srv.base}/compare?runs=${mr},${rr},${mr}`);
    const st = await ready(page, 'compare');
    assert.equal(st.timelines, 3);
    assert.equal(await label.textContent(), 'Add a run (up to 3)');
    await page.fill('#compare-search', 'basic rules Amert');
    await page.locator(`#compare-results button[data-run="${f3}"]`).waitFor();
    assert.equal(await page.locator(`#compare-results button[data-run="${f3}"]`).isDisabled(), true);
    // four: past it, the runs to remove one by (the note's limit, the same)
    await page.goto(`${srv.base}/compare?runs=${mr},${rr},${mr},${f3}`);
    await ready(page, 'compare');
    assert.match(await page.locator('#compare-too-many').textContent(), /^At most 3 runs are compared at once, and this link names 4: /);
    assert.equal(await label.textContent(), 'Add a run (up to 3)');
  } finally {
    await page.unroute('**/api/capabilities', caps);
  }
  assert.deepEqual(br.problems, []);
});
