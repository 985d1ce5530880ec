// queue_bins.test.mjs -- issue 9 ("the same for queue lengths"): GET
// /api/runs/{run}/queues?from=&to=&bins= answers each queue's length over a
// window as power-of-two bins from the stored queue pyramid. Every bin is
// checked against the same bin computed here from the run's step series
// (GET /queues without `at`), at several levels and window positions.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { getJson, startServer, postScenario } from './server.mjs';

let srv, run, series, tMax;

// 40 kernels on 4 streams of an H100: the driver queues fill and drain
function scenario() {
  const ops = [];
  for (let k = 0; k < 40; k++) {
    ops.push({ kernel: `K${k}`, stream: `S${k % 4}`, at: `${(k % 10) * 3}us`, blocks: 300 + 37 * k,
      threads: 128, block_time: ['5us', '11us', '23us'] });
  }
  return { schema: 'schedlab-scenario/1', name: 'qbins', device: 'h100',
    streams: [0, 1, 2, 3].map((i) => ({ name: `S${i}` })), ops };
}

before(async () => {
  srv = await startServer();
  run = (await postScenario(srv.base, scenario())).runs[0].run;
  series = (await getJson(`${srv.base}/api/runs/${run}/queues`)).body.queues;
  tMax = (await getJson(`${srv.base}/api/runs/${run}`)).body.summary.t_max;
  assert.ok(series.length >= 2, `${series.length} queues`);
  assert.ok(series.reduce((n, q) => n + q.series.length, 0) > 60);
});

after(async () => { await srv?.stop(); });

// integral and max of a step series over [a, b) (length 0 before its first
// point, the last length after its last)
function rawBin(pts, a, b) {
  let cur = 0, i = 0;
  while (i < pts.length && pts[i][0] <= a) cur = pts[i++][1];
  let mx = cur, pos = a, integ = 0;
  while (i < pts.length && pts[i][0] < b) {
    integ += cur * (pts[i][0] - pos);
    pos = pts[i][0];
    cur = pts[i++][1];
    mx = Math.max(mx, cur);
  }
  return [integ + cur * (b - pos), mx];
}

async function check(from, to, bins) {
  const r = await getJson(`${srv.base}/api/runs/${run}/queues?from=${from}&to=${to}&bins=${bins}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const b = r.body;
  assert.equal(b.bin_ns, 2 ** b.z);
  assert.ok(b.bin_ns * bins >= to - from, 'bins cover the window');
  assert.ok(b.k0 * b.bin_ns <= from && (b.k0 + 1) * b.bin_ns > from);
  assert.deepEqual(b.queues.map((q) => q.queue), series.map((q) => q.queue));
  for (const [qi, q] of b.queues.entries()) {
    const n = q.integral.length;
    assert.equal(q.max.length, n);
    assert.ok((b.k0 + n) * b.bin_ns >= to && (b.k0 + n - 1) * b.bin_ns < to);
    for (let i = 0; i < n; i++) {
      const a = (b.k0 + i) * b.bin_ns;
      assert.deepEqual([q.integral[i], q.max[i]], rawBin(series[qi].series, a, a + b.bin_ns),
        `${q.queue} z=${b.z} bin ${b.k0 + i}`);
    }
  }
  return b;
}

test('bins equal the raw step series at every zoom', async () => {
  const zs = new Set();
  for (const bins of [1, 3, 50, 700]) {
    for (const [f, t] of [[0, tMax], [tMax / 7, tMax / 3], [tMax / 2, tMax / 2 + 1000], [0, 2 * tMax]]) {
      const b = await check(Math.floor(f), Math.ceil(t), bins);
      zs.add(b.z);
    }
  }
  assert.ok(zs.size >= 6, `levels read: ${[...zs]}`);
});

test('events counts the window\'s queue events', async () => {
  const all = (await check(0, tMax + 1, 10)).events;
  const r = await getJson(`${srv.base}/api/runs/${run}`);
  assert.equal(all, r.body.summary.queue_events);
  assert.equal((await check(tMax + 1, tMax + 100, 10)).events, 0);
});

test('bad parameters are one-line 400s, an unknown run a 404', async () => {
  const q = (s) => getJson(`${srv.base}/api/runs/${run}/queues?${s}`);
  let r = await q('bins=10&from=0');
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'bins: needs from and to, and no at');
  r = await q('bins=0&from=0&to=10');
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'bins: expected 1 to 10000 bins, got 0');
  // 1 to 10000 bins (docs/api.md): the last allowed is answered
  r = await q('bins=10001&from=0&to=10');
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'bins: expected 1 to 10000 bins, got 10001');
  r = await q(`bins=10000&from=0&to=${tMax}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(r.body.queues[0].integral.length <= 10001);
  r = await q('bins=5&from=10&to=10');
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'from/to: the window [10, 10) is empty');
  r = await q('bins=x&from=0&to=10');
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'bins: expected a whole number, got "x"');
  r = await getJson(`${srv.base}/api/runs/nosuchrun/queues?from=0&to=10&bins=4`);
  assert.equal(r.status, 404);
});
