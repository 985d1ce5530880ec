// stream_bins.test.mjs -- issue 9 for kernel-level traces: GET
// /api/runs/{run}/kernels with window arguments answers a window's kernels
// (or per-stream bins past max), GET /api/runs/{run}/streams the busy bins
// of some kernel names; plain GET /kernels is unchanged (DESIGN §5). Every
// bin is checked against the same bin computed here from the run's kernels,
// at several levels and window positions, with names hidden; errors name
// the parameter.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { checkWindow, expectError, expectImmutable, getJson, nvprofCsv, startServer } from './server.mjs';

let srv, run, kernels;

// 300 kernels of 3 names on 4 streams: overlapping kernels in stream 7,
// zero-length ones, kernels starting on the same ns (nvprof CSV, us)
function csv() {
  const rows = [];
  const names = ['gemm', 'axpy', 'scan'];
  const streams = ['7', '13', '14', '15'];
  let s = 1;
  const rnd = (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
  for (let i = 0; i < 300; i++) {
    const start = 100 + 3 * i + rnd(5);
    const dur = i % 17 === 0 ? 0 : 1 + rnd(9);
    rows.push(`${start}.${rnd(1000)},${dur}.${rnd(10)},${1 + rnd(4)},1,1,${32 * (1 + rnd(4))},1,1,32,0,0,,,"GeForce GTX 1080 Ti (0)","1","${streams[i % 7 === 0 ? 0 : rnd(4)]}","${names[rnd(3)]}"`);
  }
  return nvprofCsv(rows);
}

before(async () => {
  srv = await startServer();
  const r = await getJson(`${srv.base}/api/imports?format=nvprof-csv&name=k.csv`, {
    method: 'POST', body: csv(), headers: { 'Content-Type': 'text/csv' },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  run = r.body.run;
  kernels = (await getJson(`${srv.base}/api/runs/${run}/kernels`)).body.kernels;
  assert.equal(kernels.length, 300);
  // some overlap in one stream (the generator's spacing is 3 us, durations up to 10)
  assert.ok(kernels.some((a, i) => kernels.some((b, j) => i < j && a.stream === b.stream
    && a.first_block < b.end && b.first_block < a.end && a.end > a.first_block && b.end > b.first_block)));
});

after(async () => { await srv?.stop(); });

const start = (k) => k.first_block ?? k.issue;
const lanesOf = () => {
  const seen = [];
  for (const k of kernels) if (!seen.some((l) => l.process === k.process && l.stream === k.stream)) seen.push({ process: k.process, stream: k.stream });
  return seen;
};
const namesOf = () => [...new Set(kernels.map((k) => k.name))];

// kernel-ns and thread-ns of a lane over [a, b), and the most kernels and
// threads running at any instant of it (the count rises only at starts)
function rawBin(lane, a, b, shown) {
  const ks = kernels.filter((k) => k.process === lane.process && k.stream === lane.stream && shown(k.name));
  let kn = 0, tn = 0, mk = 0, mt = 0;
  for (const k of ks) {
    const lo = Math.max(start(k), a), hi = Math.min(k.end, b);
    if (hi > lo) kn += hi - lo, tn += (hi - lo) * k.threads * k.blocks;
  }
  for (const T of [a, ...ks.map(start)]) {
    if (T < a || T >= b) continue;
    const on = ks.filter((k) => start(k) <= T && T < k.end);
    mk = Math.max(mk, on.length);
    mt = Math.max(mt, on.reduce((x, k) => x + k.threads * k.blocks, 0));
  }
  return [kn, tn, mk, mt];
}

function checkBins(b, from, to, shown = () => true) {
  assert.equal(b.mode, 'bins');
  assert.equal(b.bin_ns, 2 ** b.z);
  assert.ok(b.t <= from && b.t + b.bin_ns > from, 'the first bin holds from');
  assert.ok(b.t + b.nbins * b.bin_ns >= to, 'bins cover the window');
  assert.deepEqual(b.names, namesOf());
  assert.deepEqual(b.lanes.map((l) => ({ process: l.process, stream: l.stream })), lanesOf());
  for (const l of b.lanes) {
    for (let i = 0; i < b.nbins; i++) {
      const a = b.t + i * b.bin_ns;
      const [kn, tn, mk, mt] = rawBin(l, a, a + b.bin_ns, shown);
      assert.equal(l.kernel_ns[i], kn, `stream ${l.stream} bin ${i} kernel_ns`);
      assert.equal(l.thread_ns[i], tn, `stream ${l.stream} bin ${i} thread_ns`);
      if (b.max_exact) {
        assert.equal(l.max_kernels[i], mk, `stream ${l.stream} bin ${i} max_kernels`);
        assert.equal(l.max_threads[i], mt, `stream ${l.stream} bin ${i} max_threads`);
      } else assert.ok(l.max_kernels[i] >= mk);
    }
  }
}

test('plain GET /kernels is the whole list; max alone answers it whole or as bins', async () => {
  const plain = await getJson(`${srv.base}/api/runs/${run}/kernels`);
  assert.deepEqual(Object.keys(plain.body), ['kernels']);
  assert.deepEqual(plain.body.kernels.map((k) => k.id), [...Array(300).keys()]);
  const whole = (await getJson(`${srv.base}/api/runs/${run}/kernels?max=300`)).body;
  assert.equal(whole.mode, 'kernels');
  assert.equal(whole.total, 300);
  assert.deepEqual(whole.kernels, plain.body.kernels);
  const binned = (await getJson(`${srv.base}/api/runs/${run}/kernels?max=299`)).body;
  const t0 = Math.min(...kernels.map(start)), t1 = Math.max(...kernels.map((k) => k.end));
  assert.deepEqual([binned.from, binned.to], [t0, t1]);
  checkBins(binned, t0, t1);
});

test('a window\'s kernels: those overlapping it, by id; past max its bins', async () => {
  const t1 = Math.max(...kernels.map((k) => k.end));
  for (const [a, w] of [[0, t1 + 1], [200000, 50000], [400000, 3000], [start(kernels[34]), 1]]) {
    const want = kernels.filter((k) => start(k) < a + w && k.end > a);
    await checkWindow(srv.base, run, 'kernels', a, w, want, checkBins);
  }
});

test('/streams: every level\'s bins equal the kernels\', with names hidden too', async () => {
  const t1 = Math.max(...kernels.map((k) => k.end));
  const names = namesOf();
  for (const [from, to, max] of [[0, t1, 40], [0, t1, 4000], [150000, 170000, 400], [262144, 262144 * 2, 8],
    [-5000, 10, 4], [0, 2 ** 40, 4]]) {
    const all = await getJson(`${srv.base}/api/runs/${run}/streams?from=${from}&to=${to}&max=${max}`);
    assert.equal(all.status, 200, JSON.stringify(all.body));
    checkBins(all.body, from, to);
    assert.equal(all.body.max_exact, true);
    for (const spec of ['0', '1-2', '0,2', '']) {
      const on = new Set(spec === '' ? [] : spec.split(',').flatMap((p) => {
        const [x, y] = p.split('-').map(Number);
        return Array.from({ length: (y ?? x) - x + 1 }, (_, i) => names[x + i]);
      }));
      const r = await getJson(`${srv.base}/api/runs/${run}/streams?from=${from}&to=${to}&max=${max}&names=${spec}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      checkBins(r.body, from, to, (n) => on.has(n));
    }
  }
  // however large max, at most 2000 bins a lane (docs/api.md), of the finest
  // power of two that keeps to that: more than 1000, and one more than 2000
  // where the window straddles a bin's edge (max alone asks 200000 / lanes)
  const wide = await getJson(`${srv.base}/api/runs/${run}/streams?from=0&to=${2 ** 40}&max=200000`);
  assert.equal(wide.status, 200, JSON.stringify(wide.body));
  assert.equal(wide.body.lanes.length, lanesOf().length);
  assert.ok(wide.body.nbins > 1000 && wide.body.nbins <= 2001, `nbins ${wide.body.nbins}`);
});

test('immutable answers with an ETag; errors name the parameter', async () => {
  await expectImmutable(`${srv.base}/api/runs/${run}/streams?from=0&to=100000&max=40&names=1`);
  // each name set has its own ETag: one set's does not validate another's answer
  const one = `${srv.base}/api/runs/${run}/streams?from=0&to=100000&max=40&names=`;
  const tag0 = (await fetch(`${one}0`)).headers.get('etag');
  assert.notEqual(tag0, (await fetch(`${one}1`)).headers.get('etag'));
  assert.equal((await fetch(`${one}1`, { headers: { 'if-none-match': tag0 } })).status, 200);
  assert.equal((await fetch(`${one}0`, { headers: { 'if-none-match': tag0 } })).status, 304);
  const bad = (path, status, msg) => expectError(srv.base, path, status, msg);
  await bad(`/api/runs/${run}/streams?names=0-x`, 400, 'names: "0-x" at character 1: expected a name index after \'-\'');
  await bad(`/api/runs/${run}/streams?names=2-1`, 400, 'names: range 2-1 at character 1 runs backwards');
  await bad(`/api/runs/${run}/streams?names=3`, 400, 'names: 3 is not a kernel name of the run (indices 0..2)');
  await bad(`/api/runs/${run}/streams?names=0;1`, 400, 'names: ";1" at character 2: expected \',\' between indices');
  await bad(`/api/runs/${run}/streams?max=0`, 400, 'max: 0 is out of range (1..200000)');
  await bad(`/api/runs/${run}/streams?from=10&to=5`, 400, 'to: 5 is not after from (10)');
  await bad(`/api/runs/${run}/kernels?from=10&to=5`, 400, 'to: 5 is not after from (10)');
  // (an empty window: to must be after from, not at it)
  await bad(`/api/runs/${run}/streams?from=10&to=10`, 400, 'to: 10 is not after from (10)');
  await bad(`/api/runs/${run}/kernels?from=10&to=10`, 400, 'to: 10 is not after from (10)');
  await bad(`/api/runs/${run}/kernels?max=x`, 400, (await getJson(`${srv.base}/api/runs/${run}/blocks?max=x`)).body.error);
  await bad(`/api/runs/${run}/kernels?from=${2 ** 62}`, 400, `from: ${2 ** 62} ns is out of range (times are within +-2^62 ns)`);
  const nf = await getJson(`${srv.base}/api/runs/nosuchrun0/streams`);
  assert.equal(nf.status, 404);
  const nk = await getJson(`${srv.base}/api/runs/nosuchrun0/kernels?max=5`);
  assert.equal(nk.status, 404);
});

// The run's extent ends with a zero-length kernel, which no window [from,
// to) holds: /kernels?max=1 (two kernels: bins) and the same extent as a
// window (one kernel: the list) are different answers, so their ETags
// differ and one does not validate the other.
test('a window at the run\'s extent is its own answer, with its own ETag', async () => {
  const row = (start, dur) => `${start}.0,${dur}.0,1,1,1,32,1,1,32,0,0,,,"GeForce GTX 1080 Ti (0)","1","7","gemm"`;
  const r = await getJson(`${srv.base}/api/imports?format=nvprof-csv&name=edge.csv`, {
    method: 'POST', body: nvprofCsv([row(100, 5), row(200, 0)]), headers: { 'Content-Type': 'text/csv' },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const u = `${srv.base}/api/runs/${r.body.run}/kernels`;
  const whole = await fetch(`${u}?max=1`);
  const wb = await whole.json();
  assert.equal(wb.mode, 'bins');
  const at = `${u}?from=${wb.from}&to=${wb.to}&max=1`;
  const win = await fetch(at);
  const vb = await win.json();
  assert.deepEqual([vb.mode, vb.total], ['kernels', 1]);
  assert.deepEqual([wb.from, wb.to], [vb.from, vb.to]);
  assert.notEqual(whole.headers.get('etag'), win.headers.get('etag'));
  const again = await fetch(at, { headers: { 'if-none-match': whole.headers.get('etag') } });
  assert.equal(again.status, 200);
});
