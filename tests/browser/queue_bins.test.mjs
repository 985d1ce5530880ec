// The Queues view from the queue pyramid (issues 9 and 15): a window with
// more queue steps than the plot has pixels is drawn from GET
// /queues?from&to&bins (each queue's time-weighted mean per bin, and its
// largest length per bin, dashed); a window with few steps is drawn as the
// exact steps. Asserted on what the chart holds (Chart.getChart) and on
// window.schedlab.queuesDrawn against the API's own answer; no console errors.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, startBrowser, ready } from './harness.mjs';

let srv;
let br;
let page;
let run;
let series;
let tMax;

before(async () => {
  srv = await startServer();
  br = await startBrowser();
  page = br.page;
  // 900 short kernels on 3 streams of a TX2, launched faster than they run:
  // thousands of queue events
  const ops = [];
  for (let k = 0; k < 900; k++) {
    ops.push({ kernel: `K${k % 7}`, stream: `S${k % 3}`, at: `${k}us`, blocks: 2, threads: 256, block_time: '2us' });
  }
  const r = await fetch(`${srv.base}/api/experiments`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ schema: 'schedlab-scenario/1', name: 'queue bins', device: 'tx2',
      streams: [{ name: 'S0' }, { name: 'S1' }, { name: 'S2' }], ops }),
  });
  const j = await r.json();
  assert.equal(r.status, 201, JSON.stringify(j));
  run = j.runs[0].run;
  series = (await srv.api(`/api/runs/${run}/queues`)).body.queues;
  tMax = (await srv.api(`/api/runs/${run}`)).body.summary.t_max;
  assert.ok(series.reduce((n, q) => n + q.series.length, 0) > 2000);
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

const drawn = () => page.evaluate(() => {
  const c = window.Chart.getChart(document.querySelector('#panel-queues canvas'));
  return { st: window.schedlab.queuesDrawn, sets: c.data.datasets.map((d) => ({ label: d.label, data: d.data, hidden: !c.isDatasetVisible(c.data.datasets.indexOf(d)) })) };
});

test('a dense window is drawn from the pyramid\'s bins, a sparse one as steps', async () => {
  await page.goto(`${srv.base}/runs/${run}?view=queues&from=0&to=${tMax}`);
  await ready(page, 'queues');
  let { st, sets } = await drawn();
  assert.equal(st.mode, 'bins');
  assert.deepEqual([st.from, st.to], [0, tMax]);
  assert.ok(st.points > st.asked, `${st.points} steps, ${st.asked} px`);
  const api = (await srv.api(`/api/runs/${run}/queues?from=0&to=${tMax}&bins=${st.asked}`)).body;
  assert.equal(st.z, api.z);
  assert.equal(st.k0, api.k0);
  assert.equal(st.bin_ns, 2 ** api.z);
  const n = series.length;
  assert.equal(sets.length, 2 * n);
  for (let i = 0; i < n; i++) {
    const q = api.queues[i];
    assert.equal(sets[i].label, q.queue);
    assert.equal(sets[n + i].label, `${q.queue} (max)`);
    assert.equal(sets[n + i].hidden, false);
    // point j starts bin j and holds its mean (its max on the max line)
    // until point j + 1; one more point ends the last bin
    const mean = q.integral.map((v) => v / api.bin_ns);
    assert.deepEqual(st.mean[i], mean);
    assert.deepEqual(sets[i].data.map((p) => p.y), [...mean, mean[mean.length - 1]]);
    assert.deepEqual(sets[i].data.map((p) => p.x), [...mean, 0].map((_, j) => (api.k0 + j) * api.bin_ns));
    assert.deepEqual(sets[n + i].data.map((p) => p.y), [...q.max, q.max[q.max.length - 1]]);
  }
  // a mean is not a step: some bin holds a fractional mean
  assert.ok(st.mean.some((m) => m.some((v) => !Number.isInteger(v))));

  // a narrow window holds few steps: drawn as the steps themselves
  const t0 = series[0].series[Math.floor(series[0].series.length / 2)][0];
  await page.goto(`${srv.base}/runs/${run}?view=queues&from=${t0}&to=${t0 + 3000}`);
  await ready(page, 'queues');
  ({ st, sets } = await drawn());
  assert.equal(st.mode, 'steps');
  assert.ok(st.points <= 200, `${st.points} steps`);
  for (let i = 0; i < n; i++) {
    const pts = series[i].series;
    assert.deepEqual(sets[i].data.slice(0, pts.length).map((p) => [p.x, p.y]), pts);
    assert.equal(sets[n + i].hidden, true);
  }

  // zooming out with the keyboard goes back to bins once the steps outgrow the plot
  await page.locator('#panel-queues canvas').focus();
  for (let k = 0; k < 12; k++) await page.keyboard.press('-');
  // the drawing of the last window, not of one the keys passed through
  await page.waitForFunction(() => {
    const d = window.schedlab.queuesDrawn;
    const w = window.schedlab.queuesWindow;
    return d && d.mode === 'bins' && d.from === w.from && d.to === w.to;
  });
  ({ st } = await drawn());
  const w = { from: st.from, to: st.to };
  const again = (await srv.api(`/api/runs/${run}/queues?from=${w.from}&to=${w.to}&bins=${st.asked}`)).body;
  assert.deepEqual(st.max, again.queues.map((q) => q.max));
  assert.deepEqual(br.problems, []);
});
