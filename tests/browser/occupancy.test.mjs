// Occupancy mode follows the legend (issue 15, "legend ... shown in every
// mode", on issue 9's per-kernel pyramid): a run past the API's 20,000
// blocks is drawn as per-SM occupancy bins; hiding a kernel in the legend
// redraws the bins of the shown kernels only (GET /api/runs/{run}/occupancy),
// showing it again draws every kernel's bins from memory, and a link with
// k= opens on the shown kernels' bins. Asserted on what the page drew,
// through window.schedlab (views/run.mjs: mode, occupancy), against the
// API's own answers; no console errors.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, startBrowser, ready, OUT, shot } from './harness.mjs';

let srv;
let br;
let page;
const big = {};

before(async () => {
  srv = await startServer();
  br = await startBrowser();
  page = br.page;
  fs.mkdirSync(OUT, { recursive: true });
  // two kernels of 13,000 blocks each on two streams of a TX2: they share
  // the two SMs for a while, then the longer one runs alone
  const r = await fetch(`${srv.base}/api/experiments`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      schema: 'schedlab-scenario/1', name: 'occupancy legend', device: 'tx2',
      streams: [{ name: 'S1' }, { name: 'S2' }],
      ops: [
        { kernel: 'wide', stream: 'S1', at: '0s', blocks: 13000, threads: 512, block_time: '10us' },
        { kernel: 'narrow', stream: 'S2', at: '0s', blocks: 13000, threads: 128, block_time: '4us' },
      ],
    }),
  });
  const j = await r.json();
  assert.equal(r.status, 201, JSON.stringify(j));
  big.run = j.runs[0].run;
  big.kernels = (await srv.api(`/api/runs/${big.run}/kernels`)).body.kernels;
  assert.deepEqual(big.kernels.map((k) => k.name), ['wide', 'narrow']);
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

const state = () => page.evaluate(() => ({ ...window.schedlab, zoom: undefined }));

test('hiding a kernel in occupancy mode draws the shown kernels\' bins', async () => {
  const occ = [];
  const onReq = (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('/occupancy')) occ.push(u.searchParams.get('kernels'));
  };
  page.on('request', onReq);
  try {
    await page.goto(`${srv.base}/runs/${big.run}`);
    let st = await ready(page, 'timeline');
    assert.equal(st.mode, 'bins');
    const { from, to } = st.window;
    const every = (await srv.api(`/api/runs/${big.run}/blocks?from=${from}&to=${to}&max=20000`)).body;
    assert.equal(every.mode, 'bins');
    assert.equal(st.occupancy.kernels, '*');
    assert.equal(st.occupancy.total, 26000);
    assert.equal(st.occupancy.total, every.total);
    assert.equal(st.occupancy.busy, every.bins.filter((b) => b.blocks > 0).length);
    assert.deepEqual(occ, []);

    // hide "narrow" (kernel 1): the bins of "wide" alone
    await page.locator('.legend-item[data-k="1"]').click();
    await page.waitForFunction(() => window.schedlab.occupancy?.kernels === '0');
    st = await state();
    const wide = (await srv.api(`/api/runs/${big.run}/occupancy?from=${from}&to=${to}&max=20000&kernels=0`)).body;
    assert.equal(st.occupancy.total, 13000);
    assert.equal(st.occupancy.total, wide.total);
    assert.equal(st.occupancy.busy, wide.bins.filter((b) => b.blocks > 0).length);
    assert.ok(st.occupancy.busy < every.bins.filter((b) => b.blocks > 0).length,
      'the bins only "narrow" made busy are empty now');
    assert.deepEqual(occ, ['0']);
    assert.match(await page.locator('#timeline-status').textContent(), /13,000 blocks of the shown kernels/);
    await shot(page, path.join(OUT, 'occupancy-hidden.png'), { fullPage: true });

    // show it again: every kernel's bins, kept from the first answer
    await page.locator('.legend-item[data-k="1"]').click();
    await page.waitForFunction(() => window.schedlab.occupancy?.kernels === '*');
    st = await state();
    assert.equal(st.occupancy.total, 26000);
    assert.deepEqual(occ, ['0']);

    // a link hiding "wide" opens on the bins of "narrow"
    await page.goto(`${srv.base}/runs/${big.run}?view=timeline&k=1`);
    st = await ready(page, 'timeline');
    assert.equal(st.occupancy.kernels, '1');
    assert.equal(st.occupancy.total, 13000);
    const narrow = (await srv.api(`/api/runs/${big.run}/occupancy?from=${from}&to=${to}&max=20000&kernels=1`)).body;
    assert.equal(st.occupancy.busy, narrow.bins.filter((b) => b.blocks > 0).length);
  } finally {
    page.off('request', onReq);
  }
  assert.deepEqual(br.problems, []);
});
