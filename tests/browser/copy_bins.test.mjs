// The copies of a big kernel-level run drawn by window (issue 9: a 1M-row
// nvprof trace is 81 % memcpy rows): an nvprof import of 24,000 copies,
// more than the view's 20,000, is never fetched whole for the timeline.
// Zoomed out its CE lane is drawn as copy bins (GET /copies?from&to&max
// past max), zoomed in as the window's copy bars; with few kernels (only
// the copies come by window) and with many (kernels and copies both by
// window). Asserted on what the page drew (window.schedlab.copies: copy
// bars and copy bins painted) against the API's own answers; no console
// errors.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, startBrowser, ready, OUT, nvprofCsv, recordRequests, zoomInFromMemory, shot } from './harness.mjs';

let srv;
let br;
let page;
const NC = 24000;

// copy i: HtoD or DtoH (i % 2) on stream 7, 2 us long, one every 5 us;
// kernel j: 3 us on stream 13, one every `every` us
function csv(nk, every) {
  const lines = [];
  for (let i = 0; i < NC; i++) {
    lines.push([1000 + 5 * i, `${1000 + 5 * i},2,,,,,,,,,,64,1.0,"GeForce GTX 1080 Ti (0)","1","7","[CUDA memcpy ${i % 2 ? 'DtoH' : 'HtoD'}]"`]);
  }
  for (let j = 0; j < nk; j++) {
    lines.push([1001 + every * j, `${1001 + every * j},3,2,1,1,128,1,1,32,0,0,,,"GeForce GTX 1080 Ti (0)","1","13","gemm_a"`]);
  }
  lines.sort((a, b) => a[0] - b[0]);
  return nvprofCsv(lines.map((l) => l[1]));
}

before(async () => {
  srv = await startServer();
  br = await startBrowser();
  page = br.page;
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

const busyBins = (b) => b.lanes.reduce((n, l) => n + l.copy_ns.filter((v) => v > 0).length, 0);

async function check(run, kernelMode) {
  const { asked, stop } = recordRequests(page, /\/copies$/);
  try {
    await page.goto(`${srv.base}/runs/${run}`);
    let st = await ready(page, 'timeline');
    // never the whole list: the whole run's copy bins, then windows
    assert.ok(asked.length > 0 && asked.every((q) => q.includes('max=20000')), asked.join(' '));
    assert.equal(st.mode, kernelMode);
    assert.equal(st.copyMode, 'bins');
    assert.deepEqual(st.lanes.slice(-1), ['CE']);
    const { from, to } = st.window;
    const all = (await srv.api(`/api/runs/${run}/copies?from=${from}&to=${to}&max=20000`)).body;
    assert.equal(all.mode, 'bins');
    assert.equal(all.copies_total, NC);
    assert.deepEqual(all.lanes.map((l) => l.engine), [0]);
    // 2 us of copies in each 5 us: every copy's ns, half each way
    const L = all.lanes[0];
    assert.equal(L.copy_ns.reduce((x, v) => x + v, 0), NC * 2000);
    assert.equal(L.directions.h2d.reduce((x, v) => x + v, 0), (NC / 2) * 2000);
    assert.equal(L.directions.d2h.reduce((x, v) => x + v, 0), (NC / 2) * 2000);
    assert.equal(st.copies.copies, 0);
    assert.equal(st.copies.bins, busyBins(all));
    assert.match(await page.locator('.legend-copies').textContent(), /copy h2d.*copy d2h|copy d2h.*copy h2d/);
    fs.mkdirSync(OUT, { recursive: true });
    await shot(page, path.join(OUT, `copy-bins-${kernelMode}.png`), { fullPage: true });

    // a window of 500 us holds 100 copies: drawn as copy bars
    const t0 = from + 50000;
    await page.goto(`${srv.base}/runs/${run}?view=timeline&from=${t0}&to=${t0 + 500000}`);
    st = await ready(page, 'timeline');
    assert.equal(st.copyMode, 'copies');
    const win = (await srv.api(`/api/runs/${run}/copies?from=${t0}&to=${t0 + 500000}&max=20000`)).body;
    assert.equal(win.mode, 'copies');
    assert.equal(win.total, 100);
    assert.equal(st.copies.copies, win.total);
    assert.equal(st.copies.bins, 0);
    // one zoom step in: the copies of the smaller window, from memory
    await zoomInFromMemory(page, srv, run, 'copies', (x) => x.copies.copies, asked);

    // the copies table reads pages: never the whole list
    await page.goto(`${srv.base}/runs/${run}?view=kernels`);
    st = await ready(page, 'kernels');
    assert.equal(await page.locator('.section-head h2', { hasText: 'Copies' }).textContent(), 'Copies (24,000)');
    assert.equal(st.copiesPage.total, 24000);
    assert.deepEqual(st.copiesPage.ids, [...Array(100).keys()]);
    assert.ok(!asked.includes('copies?'), asked.join(' '));
    assert.ok(asked.includes('copies?offset=0&limit=100&sort=id&order=asc'), asked.join(' '));
  } finally {
    stop();
  }
  assert.deepEqual(br.problems, []);
}

test('many copies, few kernels: copy bins zoomed out, copy bars zoomed in', async () => {
  await check(await srv.importNvprof('copies.csv', csv(3000, 40)), 'streams');
});

test('many copies and many kernels: both by window', async () => {
  await check(await srv.importNvprof('mixed.csv', csv(21000, 5)), 'bins');
});
