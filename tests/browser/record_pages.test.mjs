// The Kernels tab and the compare view of big kernel-level runs (an nvprof
// import of more than the view's 20,000 kernels): the Kernels tab reads its
// table a page at a time from the server (GET /kernels?offset=&limit=
// &sort=&order=&name=), never the whole list; sorting by a column header,
// paging and the name filter show exactly the rows computed here from the
// run's own kernels, and the page state is in the URL (a shared link
// reopens the same page). The compare view of two such runs never asks
// for a whole kernel list either, and says what it shows instead.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { downloaded, startServer, startBrowser, ready, nvprofCsv, recordRequests, OUT, shot } from './harness.mjs';

let srv;
let br;
let page;
let run;
let run2;
let kernels;     // the run's kernels, from the API (not from the page)
const N = 24000;
const NAMES = ['gemm_a', 'axpy_b', 'reduce_c'];

// kernel i: one every 20 us on stream 7, 13 or 14, name i % 3, 1 to 13 us
// long ((7 i) % 13 + 1: many equal durations, so ties by id matter)
function csv(n) {
  const rows = [];
  const streams = ['7', '13', '14'];
  for (let i = 0; i < n; i++) {
    rows.push(`${1000 + 20 * i},${1 + ((7 * i) % 13)},${1 + (i % 4)},1,1,128,1,1,32,0,0,,,"GeForce GTX 1080 Ti (0)","1","${streams[(i >> 1) % 3]}","${NAMES[i % 3]}"`);
  }
  return nvprofCsv(rows);
}

before(async () => {
  srv = await startServer();
  br = await startBrowser();
  page = br.page;
  run = await srv.importNvprof('big.csv', csv(N));
  run2 = await srv.importNvprof('big2.csv', csv(21000));
  kernels = (await srv.api(`/api/runs/${run}/kernels`)).body.kernels;
  assert.equal(kernels.length, N);
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

const resp = (k) => k.end - k.first_block;     // nvprof: no issue time
const tablePage = () => page.evaluate(() => window.schedlab.tablePage);
const shownIds = () => page.$$eval('#kernels tbody tr', (trs) => trs.map((tr) => Number(tr.cells[0].textContent)));
async function waitPage(want) {
  await page.waitForFunction((w) => {
    const p = window.schedlab.tablePage;
    return p && Object.entries(w).every(([k, v]) => p[k] === v);
  }, want);
  return tablePage();
}

test('the Kernels tab of a big run: pages only, sorted by the server, the page in the URL', async () => {
  const { asked, stop } = recordRequests(page, /\/kernels$/);
  try {
    await page.goto(`${srv.base}/runs/${run}?view=kernels`);
    await ready(page, 'kernels');
    let p = await waitPage({ page: 1, sort: 'id', order: 'asc' });
    assert.equal(p.total, N);
    assert.deepEqual(p.ids, [...Array(100).keys()]);
    assert.deepEqual(await shownIds(), p.ids);
    assert.equal(await page.locator('#kernels-count').textContent(), '1–100 of 24,000');
    assert.equal(await page.locator('#kernels-page').textContent(), 'page 1 of 240');

    // Response, largest first: ties by id, as the whole-list table sorts
    const byResp = [...kernels].sort((a, b) => resp(b) - resp(a) || a.id - b.id).map((k) => k.id);
    await page.locator('th[data-key="response"] .th-sort').click();
    p = await waitPage({ sort: 'response', order: 'desc', page: 1 });
    assert.deepEqual(p.ids, byResp.slice(0, 100));
    assert.deepEqual(await shownIds(), byResp.slice(0, 100));
    // the next page, and the last
    await page.locator('.page-btn[data-to="next"]').first().click();
    p = await waitPage({ sort: 'response', page: 2 });
    assert.deepEqual(p.ids, byResp.slice(100, 200));
    assert.match(page.url(), /[?&]page=2(&|$)/);
    assert.match(page.url(), /[?&]sort=response&order=desc/);
    await page.locator('.page-btn[data-to="last"]').first().click();
    p = await waitPage({ page: 240 });
    assert.deepEqual(p.ids, byResp.slice(23900));

    // clicking the header again: smallest first
    await page.locator('th[data-key="response"] .th-sort').click();
    p = await waitPage({ sort: 'response', order: 'asc', page: 1 });
    assert.deepEqual(p.ids, [...kernels].sort((a, b) => resp(a) - resp(b) || a.id - b.id).slice(0, 100).map((k) => k.id));

    // one name only, by end, latest first
    await page.locator('th[data-key="end"] .th-sort').click();
    await waitPage({ sort: 'end', order: 'desc' });
    await page.selectOption('#kernels-name', 'axpy_b');
    p = await waitPage({ name: 'axpy_b', sort: 'end', order: 'desc', page: 1 });
    const axpy = kernels.filter((k) => k.name === 'axpy_b').sort((a, b) => b.end - a.end || a.id - b.id).map((k) => k.id);
    assert.equal(p.total, axpy.length);
    assert.equal(p.total, 8000);
    assert.deepEqual(p.ids, axpy.slice(0, 100));
    assert.equal(await page.locator('#kernels-count').textContent(), '1–100 of 8,000 named axpy_b');
    fs.mkdirSync(OUT, { recursive: true });
    await shot(page, path.join(OUT, 'kernels-paged.png'), { fullPage: true });

    // never the whole list: the run's bins (max=20000), then pages
    assert.ok(!asked.includes('kernels?'), asked.join(' '));
    assert.ok(asked.every((q) => /max=20000|offset=\d+&limit=100/.test(q)), asked.join(' '));
    assert.ok(asked.includes('kernels?offset=0&limit=100&sort=response&order=desc'), asked.join(' '));
  } finally {
    stop();
  }
  assert.deepEqual(br.problems, []);
});

test('a shared link reopens the same page', async () => {
  const byStream = [...kernels].sort((a, b) => Number(b.stream) - Number(a.stream) || a.id - b.id).map((k) => k.id);
  await page.goto(`${srv.base}/runs/${run}?view=kernels&page=3&sort=stream&order=desc`);
  await ready(page, 'kernels');
  const p = await waitPage({ page: 3, sort: 'stream', order: 'desc' });
  assert.deepEqual(p.ids, byStream.slice(200, 300));
  assert.equal(await page.locator('th[data-key="stream"]').getAttribute('aria-sort'), 'descending');
  // CSV (this page): the 100 rows shown, in their order
  const dl = page.waitForEvent('download');
  await page.click('#kernels-csv');
  const file = await dl;
  assert.equal(file.suggestedFilename(), 'big.csv-kernels-page.csv');
  const lines = (await downloaded(file)).toString('utf8').trim().split('\r\n');
  assert.equal(lines.length, 101);
  assert.deepEqual(lines.slice(1).map((l) => Number(l.split(',')[0])), byStream.slice(200, 300));
  // a page past the end of an old link: the last page
  await page.goto(`${srv.base}/runs/${run}?view=kernels&page=999&name=gemm_a`);
  await ready(page, 'kernels');
  const q = await waitPage({ page: 80, name: 'gemm_a' });
  assert.deepEqual(q.ids, kernels.filter((k) => k.name === 'gemm_a').slice(7900).map((k) => k.id));
  assert.match(page.url(), /[?&]page=80&name=gemm_a$/);
  assert.equal(await page.locator('#link-note').count(), 0);
  assert.deepEqual(br.problems, []);
});

// docs/api.md "Share links": a link that cannot be shown as it is says so
// on the page. The paged table read a sort, order, page or name it could
// not use as the default without a word, where the whole-list table (and
// every other page) names it.
test('a link the paged table cannot use as it is says so, and shows the defaults', async () => {
  await page.goto(`${srv.base}/runs/${run}?view=kernels&page=two&sort=colour&order=up&name=nope_kernel`);
  await ready(page, 'kernels');
  const p = await waitPage({ page: 1, sort: 'id', order: 'asc', name: null });
  assert.deepEqual(p.ids, [...Array(100).keys()]);
  assert.equal(await page.locator('#link-note').textContent(),
    "The link's page=two is not a page number: page 1. "
    + "The link's sort=colour is not a column this table sorts by (id, name, stream, priority, blocks, issue, first_block, fully_dispatched, end, response): by id. "
    + "The link's order=up is neither asc nor desc: ascending. "
    + "The link's name=nope_kernel is no kernel of this run: every kernel.");
  // the URL keeps what is shown: the defaults, left out
  assert.deepEqual([...new URL(page.url()).searchParams.keys()], ['view']);
  assert.deepEqual(br.problems, []);
});

test('the compare view of two big kernel-level runs never asks for a whole kernel list', async () => {
  const { asked, stop } = recordRequests(page, /\/kernels$/);
  try {
    await page.goto(`${srv.base}/compare?runs=${run},${run2}`);
    const st = await ready(page, 'compare');
    assert.equal(st.timelines, 2);
    assert.ok(asked.length >= 2, asked.join(' '));
    assert.ok(asked.every((q) => q === 'kernels?max=20000'), asked.join(' '));
    // each lane says what it shows instead
    const notes = await page.$$eval('#compare-timelines .big-run-note', (els) => els.map((e) => [e.dataset.run, e.textContent]));
    assert.deepEqual(notes.map((n) => n[0]), [run, run2]);
    assert.match(notes[0][1], /^24,000 kernels, more than 20,000: each stream's busy share over the whole run is shown/);
    assert.match(notes[1][1], /^21,000 kernels, more than 20,000/);
    await shot(page, path.join(OUT, 'compare-big-kernels.png'), { fullPage: true });
  } finally {
    stop();
  }
  assert.deepEqual(br.problems, []);
});
