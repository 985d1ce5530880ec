// copy_bins.test.mjs -- issue 9 for the copies of kernel-level traces (a
// 1M-row nvprof trace is mostly memcpy / memset rows): GET
// /api/runs/{run}/copies with window arguments answers a window's copies
// or, past max, per-engine copy bins; plain GET /copies is unchanged
// (DESIGN §5). Every bin is checked against the same bin computed here from
// the run's copies, at several levels and window positions; errors name
// the parameter.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { checkWindow, expectError, expectImmutable, getJson, startServer } from './server.mjs';

let srv, run, copies;

const DIRS = ['h2d', 'd2h', 'd2d', 'memset'];

// 400 copies on engines 0, 1, 3 and none (drawn on 0), overlapping ones,
// zero-length ones, copies without an end (never drawn nor binned)
function traceJson() {
  let s = 7;
  const rnd = (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return Math.floor(s / 65536) % n;   // the high bits: the low ones cycle
  };
  const cs = [];
  for (let i = 0; i < 400; i++) {
    const start = 1000 + 37 * i + rnd(50);
    const dur = i % 13 === 0 ? 0 : 1 + rnd(400);
    cs.push({
      id: i, name: `c${rnd(3)}`, stream: '7', process: 'P0', direction: DIRS[rnd(4)],
      bytes: 64 * (1 + rnd(100)), issue: start - rnd(20), start,
      end: i % 29 === 5 ? null : start + dur, engine: [0, 1, 3, null][rnd(4)],
    });
  }
  return JSON.stringify({
    schema: 'schedlab-trace/1', name: 'copies', source: 'import', origin: 0,
    kernels: [], blocks: [], copies: cs, queue_events: [], warp_issues: [], jobs: [],
  });
}

before(async () => {
  srv = await startServer();
  const r = await getJson(`${srv.base}/api/imports?format=schedlab-trace&name=c.json`, {
    method: 'POST', body: traceJson(), headers: { 'Content-Type': 'application/json' },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  run = r.body.run;
  copies = (await getJson(`${srv.base}/api/runs/${run}/copies`)).body.copies;
  assert.equal(copies.length, 400);
});

after(async () => { await srv?.stop(); });

const timed = (c) => c.start !== null && c.end !== null && c.end >= c.start;
const engineOf = (c) => c.engine ?? 0;

// copy-ns and the most copies at once of engine e (dir: one direction's
// copy-ns only) over [a, b)
function rawBin(e, a, b, dir) {
  const cs = copies.filter((c) => timed(c) && engineOf(c) === e && (!dir || c.direction === dir));
  let ns = 0, mx = 0;
  for (const c of cs) {
    const lo = Math.max(c.start, a), hi = Math.min(c.end, b);
    if (hi > lo) ns += hi - lo;
  }
  for (const T of [a, ...cs.map((c) => c.start)]) {
    if (T < a || T >= b) continue;
    mx = Math.max(mx, cs.filter((c) => c.start <= T && T < c.end).length);
  }
  return [ns, mx];
}

function checkBins(b, from, to) {
  assert.equal(b.mode, 'bins');
  assert.equal(b.copies_total, 400);
  assert.equal(b.bin_ns, 2 ** b.z);
  assert.ok(b.t <= from && b.t + b.bin_ns > from, 'the first bin holds from');
  assert.ok(b.t + b.nbins * b.bin_ns >= to, 'bins cover the window');
  assert.deepEqual(b.lanes.map((l) => l.engine), [0, 1, 3]);
  for (const l of b.lanes) {
    assert.equal(l.copy_ns.length, b.nbins);
    for (let i = 0; i < b.nbins; i++) {
      const a = b.t + i * b.bin_ns;
      const [ns, mx] = rawBin(l.engine, a, a + b.bin_ns);
      assert.equal(l.copy_ns[i], ns, `engine ${l.engine} bin ${i} copy_ns`);
      assert.equal(l.max_copies[i], mx, `engine ${l.engine} bin ${i} max_copies`);
      for (const dir of DIRS) {
        const want = rawBin(l.engine, a, a + b.bin_ns, dir)[0];
        // a direction with no copy-ns in the window is left out
        assert.equal(l.directions[dir]?.[i] ?? 0, want, `engine ${l.engine} ${dir} bin ${i}`);
      }
    }
    for (const v of Object.values(l.directions)) assert.ok(v.some((x) => x > 0));
  }
}

test('plain GET /copies is the whole list; max alone answers it whole or as bins', async () => {
  const plain = await getJson(`${srv.base}/api/runs/${run}/copies`);
  assert.deepEqual(Object.keys(plain.body), ['copies']);
  assert.deepEqual(plain.body.copies.map((c) => c.id), [...Array(400).keys()]);
  const whole = (await getJson(`${srv.base}/api/runs/${run}/copies?max=400`)).body;
  assert.equal(whole.mode, 'copies');
  assert.deepEqual([whole.from, whole.to, whole.total], [null, null, 400]);
  assert.deepEqual(whole.copies, plain.body.copies);
  const binned = (await getJson(`${srv.base}/api/runs/${run}/copies?max=399`)).body;
  const t0 = Math.min(...copies.filter(timed).map((c) => c.start));
  const t1 = Math.max(...copies.filter(timed).map((c) => c.end));
  assert.deepEqual([binned.from, binned.to], [t0, t1]);
  checkBins(binned, t0, t1);
});

test('a window\'s copies: those overlapping it, by id; past max its bins', async () => {
  for (const [a, w] of [[0, 30000], [5000, 2000], [9000, 300], [copies[40].start, 1]]) {
    const want = copies.filter((c) => timed(c) && c.start < a + w && c.end > a);
    await checkWindow(srv.base, run, 'copies', a, w, want, checkBins);
  }
});

test('every level\'s bins equal the copies\'', async () => {
  for (const [from, to, max] of [[0, 16000, 30], [0, 16000, 3000], [4096, 8192, 300], [8192, 8192 + 64, 12],
    [-5000, 10, 4], [0, 2 ** 40, 4]]) {
    const r = await getJson(`${srv.base}/api/runs/${run}/copies?from=${from}&to=${to}&max=${max}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    if (r.body.mode === 'copies') {
      assert.deepEqual(r.body.copies, copies.filter((c) => timed(c) && c.start < to && c.end > from));
      continue;
    }
    checkBins(r.body, from, to);
    // about max values in all: 3 lanes of at most max / 3 bins (a window off
    // the bin grid takes one more)
    assert.ok(r.body.nbins <= Math.max(1, Math.floor(max / 3)) + 1, `${r.body.nbins} bins for max ${max}`);
  }
});

test('immutable answers with an ETag; errors name the parameter', async () => {
  await expectImmutable(`${srv.base}/api/runs/${run}/copies?from=0&to=100000&max=40`);
  const bad = (path, status, msg) => expectError(srv.base, path, status, msg);
  await bad(`/api/runs/${run}/copies?from=10&to=5`, 400, 'to: 5 is not after from (10)');
  await bad(`/api/runs/${run}/copies?max=x`, 400, 'max: expected a whole number, got "x"');
  // max=0, as /kernels': every window is bins
  assert.equal((await getJson(`${srv.base}/api/runs/${run}/copies?from=0&to=30000&max=0`)).body.mode, 'bins');
  await bad(`/api/runs/${run}/copies?max=-1`, 400, 'max: -1 is out of range (0..200000)');
  await bad(`/api/runs/${run}/copies?from=${2 ** 62}`, 400, `from: ${2 ** 62} ns is out of range (times are within +-2^62 ns)`);
  const nf = await getJson(`${srv.base}/api/runs/nosuchrun0/copies?max=5`);
  assert.equal(nf.status, 404);
  assert.equal(nf.body.error, 'no run named "nosuchrun0"');   // as plain /copies says it
  assert.equal((await getJson(`${srv.base}/api/runs/nosuchrun0/copies`)).body.error, nf.body.error);
  const nw = await getJson(`${srv.base}/api/runs/nosuchrun0/copies?from=0&to=5`);
  assert.equal(nw.status, 404);
});
