// A big kernel-level run drawn by window (issue 9: nvprof / Nsight runs of
// a million kernels): an nvprof import of 24,000 kernels on 3 streams, more
// than the view's 20,000, is never fetched whole for the timeline. Zoomed
// out it is drawn as per-stream busy bins (GET /kernels?from&to&max past
// max), zoomed in as the window's kernel bars; hiding a name in the legend
// draws the shown names' bins (GET /streams?names=). Asserted on what the
// page drew (window.schedlab.streams: kernel bars and bins painted) against
// the API's own answers; no console errors.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, startBrowser, ready, OUT, nvprofCsv, recordRequests, zoomInFromMemory, shot } from './harness.mjs';

let srv;
let br;
let page;
let run;
const N = 24000;

// kernel i: stream 7, 13 or 14 (i % 3), name gemm_a / axpy_b / reduce_c
// (i % 3 as well, so each stream runs one name), 3 us long, one every 4 us
function csv() {
  const rows = [];
  const names = ['gemm_a', 'axpy_b', 'reduce_c'];
  const streams = ['7', '13', '14'];
  for (let i = 0; i < N; i++) {
    rows.push(`${1000 + 4 * i},3,${1 + (i % 3)},1,1,128,1,1,32,0,0,,,"GeForce GTX 1080 Ti (0)","1","${streams[i % 3]}","${names[i % 3]}"`);
  }
  return nvprofCsv(rows);
}

before(async () => {
  srv = await startServer();
  br = await startBrowser();
  page = br.page;
  run = await srv.importNvprof('big.csv', csv());
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

const state = () => page.evaluate(() => ({ ...window.schedlab, zoom: undefined }));
const busyBins = (b) => b.lanes.reduce((n, l) => n + l.kernel_ns.filter((v) => v > 0).length, 0);

test('a big kernel-level run: stream bins zoomed out, kernel bars zoomed in, bins follow the legend', async () => {
  const { asked, stop } = recordRequests(page, /\/kernels$|\/streams$/);
  try {
    await page.goto(`${srv.base}/runs/${run}`);
    let st = await ready(page, 'timeline');
    // never the whole list: the whole run's bins, then the window's
    assert.ok(asked.every((q) => q.includes('max=20000')), asked.join(' '));
    assert.equal(st.mode, 'bins');
    assert.deepEqual(st.lanes, ['stream 7', 'stream 13', 'stream 14']);
    const { from, to } = st.window;
    const all = (await srv.api(`/api/runs/${run}/kernels?from=${from}&to=${to}&max=20000`)).body;
    assert.equal(all.mode, 'bins');
    assert.equal(all.kernels_total, N);
    assert.deepEqual(all.names, ['gemm_a', 'axpy_b', 'reduce_c']);
    // every stream busy a quarter of the time: 3 us in each 12 us
    const kns = all.lanes.reduce((a, l) => a + l.kernel_ns.reduce((x, v) => x + v, 0), 0);
    assert.equal(kns, N * 3000);
    assert.equal(st.streams.kernels, 0);
    assert.equal(st.streams.bins, busyBins(all));
    assert.equal(st.streamBins.busy, busyBins(all));
    assert.equal(st.streamBins.names, '*');
    assert.match(await page.locator('#timeline-status').textContent(), /more than 20,000 kernels in view: stream busy shown/);
    fs.mkdirSync(OUT, { recursive: true });
    await shot(page, path.join(OUT, 'stream-bins.png'), { fullPage: true });

    // hide axpy_b (name 1): the bins of the other two names, from /streams
    await page.locator('.legend-item[data-k="1"]').click();
    await page.waitForFunction(() => window.schedlab.streamBins?.names === '0,2');
    st = await state();
    const shown = (await srv.api(`/api/runs/${run}/streams?from=${from}&to=${to}&max=20000&names=0,2`)).body;
    assert.equal(shown.lanes.find((l) => l.stream === '13').kernel_ns.some((v) => v > 0), false);
    assert.equal(st.streams.bins, busyBins(shown));
    assert.ok(st.streams.bins < busyBins(all));
    assert.ok(asked.some((q) => q.startsWith('streams?') && q.includes('names=0%2C2')), asked.join(' '));
    await page.locator('.legend-item[data-k="1"]').click();
    await page.waitForFunction(() => window.schedlab.streamBins?.names === '*');

    // a window of 400 us holds 100 kernels: drawn as kernel bars
    const t0 = from + 40000;
    await page.goto(`${srv.base}/runs/${run}?view=timeline&from=${t0}&to=${t0 + 400000}`);
    st = await ready(page, 'timeline');
    assert.equal(st.mode, 'kernels');
    const win = (await srv.api(`/api/runs/${run}/kernels?from=${t0}&to=${t0 + 400000}&max=20000`)).body;
    assert.equal(win.mode, 'kernels');
    assert.equal(win.total, 100);
    assert.equal(st.streams.kernels, win.total);
    assert.equal(st.streams.bins, 0);
    await shot(page, path.join(OUT, 'stream-kernels.png'), { fullPage: true });
    // one zoom step in: the kernels of the smaller window, from memory
    await zoomInFromMemory(page, srv, run, 'kernels', (x) => x.streams.kernels, asked);

    // the kernels table reads pages (record_pages.test.mjs): never the whole list
    await page.goto(`${srv.base}/runs/${run}?view=kernels`);
    st = await ready(page, 'kernels');
    assert.equal(st.tablePage.total, N);
    assert.ok(!asked.includes('kernels?'), asked.join(' '));
    assert.ok(asked.includes('kernels?offset=0&limit=100&sort=id&order=asc'), asked.join(' '));
  } finally {
    stop();
  }
  assert.deepEqual(br.problems, []);
});
