// pyramid.test.mjs -- issue 9: the blocks window and its occupancy bins
// answered from the stored pyramid, and the pyramid's tiles with ETag /
// immutable caching. Every number is checked against the same number
// computed here from the run's raw blocks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { HALF_E6, getJson, startServer, postScenario } from './server.mjs';

let srv, run, all, kernels, sms;

// 12 kernels on 4 streams of an H100 (132 SMs), ~10 K blocks of mixed length
function scenario() {
  const ops = [];
  for (let k = 0; k < 12; k++) {
    ops.push({ kernel: `K${k}`, stream: `S${k % 4}`, at: `${k * 13}us`, blocks: 500 + 61 * k,
      threads: 64 * (1 + (k % 8)), block_time: ['3us', '17us', '41us', '9us', '120us'] });
  }
  return { schema: 'schedlab-scenario/1', name: 'pyramid', device: 'h100',
    streams: [0, 1, 2, 3].map((i) => ({ name: `S${i}` })), ops };
}

before(async () => {
  srv = await startServer();
  run = (await postScenario(srv.base, scenario())).runs[0].run;
  const b = (await getJson(`${srv.base}/api/runs/${run}/blocks?max=200000`)).body;
  assert.equal(b.mode, 'blocks');
  all = b.blocks;
  kernels = (await getJson(`${srv.base}/api/runs/${run}/kernels`)).body.kernels;
  sms = (await getJson(`${srv.base}/api/runs/${run}`)).body.summary.sms;
  assert.equal(sms, 132);
  assert.ok(all.length > 9000, `${all.length} blocks`);
});

after(async () => { await srv?.stop(); });

// thread-ns and block-ns per SM over [lo, hi), from the raw blocks
function raw(lo, hi) {
  const thr = new Array(sms).fill(0), blk = new Array(sms).fill(0);
  for (const b of all) {
    const ov = Math.min(b.end, hi) - Math.max(b.start, lo);
    if (ov <= 0) continue;
    blk[b.sm] += ov;
    thr[b.sm] += ov * kernels[b.kernel].threads;
  }
  return { thr, blk };
}

function checkBins(r, from, to) {
  assert.equal(r.mode, 'bins');
  assert.equal(r.from, from);
  assert.equal(r.to, to);
  assert.equal(r.sms, sms);
  assert.equal(Math.log2(r.bin_ns) % 1, 0, `bin_ns ${r.bin_ns} is a power of two`);
  const ts = [...new Set(r.bins.map((b) => b.t))].sort((a, b) => a - b);
  assert.equal(r.bins.length, ts.length * sms);
  assert.ok(ts[0] <= from && from < ts[0] + r.bin_ns, 'the first bin holds from');
  assert.ok(ts.at(-1) < to && to <= ts.at(-1) + r.bin_ns, 'the last bin holds to');
  ts.forEach((t, i) => { assert.equal(t % r.bin_ns, 0); if (i) assert.equal(t - ts[i - 1], r.bin_ns); });
  // total: blocks running at the first bin's start plus those starting in the bins
  const A = ts[0], B = ts.at(-1) + r.bin_ns;
  assert.equal(r.total, all.filter((b) => (b.start < A && b.end > A) || (b.start >= A && b.start < B)).length);
  const cut = new Map(ts.map((t) => [t, raw(Math.max(t, from), Math.min(t + r.bin_ns, to))]));
  for (const bin of r.bins) {
    const len = Math.min(bin.t + r.bin_ns, to) - Math.max(bin.t, from);
    const want = cut.get(bin.t);
    assert.ok(Math.abs(bin.blocks - want.blk[bin.sm] / len) <= HALF_E6, `sm ${bin.sm} t ${bin.t}: blocks ${bin.blocks} vs ${want.blk[bin.sm] / len}`);
    assert.ok(Math.abs(bin.threads - want.thr[bin.sm] / len) <= HALF_E6, `sm ${bin.sm} t ${bin.t}: threads ${bin.threads} vs ${want.thr[bin.sm] / len}`);
  }
}

describe('GET /api/runs/{run}/blocks from the pyramid', () => {
  test('the whole run past max: bins equal the raw blocks, cut at the run end', async () => {
    const run0 = (await getJson(`${srv.base}/api/runs/${run}`)).body.summary;
    const r = (await getJson(`${srv.base}/api/runs/${run}/blocks?max=2000`)).body;
    checkBins(r, run0.t_min, run0.t_max);
    // about max cells: 2000 / 132 SMs -> 15 bins wanted, a power of two at least span/15
    const span = run0.t_max - run0.t_min;
    assert.ok(r.bin_ns >= span / 15 && r.bin_ns / 2 < span / 15, `bin_ns ${r.bin_ns} for span ${span}`);
  });

  // fewer cells than SMs asked for: still one bin an SM (docs/api.md: "at
  // least 1 ... bins per SM"), so bin_ns is the smallest power of two
  // holding the whole window
  test('max under the SMs\' count: one bin an SM, the smallest power of two holding the window', async () => {
    const run0 = (await getJson(`${srv.base}/api/runs/${run}`)).body.summary;
    const from = run0.t_min + 1000, to = run0.t_max - 1000;
    const r = (await getJson(`${srv.base}/api/runs/${run}/blocks?from=${from}&to=${to}&max=${sms - 1}`)).body;
    checkBins(r, from, to);
    assert.ok(r.bin_ns >= to - from && r.bin_ns / 2 < to - from, `bin_ns ${r.bin_ns} for the window ${to - from}`);
  });

  // A mean just under a whole number rounds up to it, the carry into the
  // integer part (docs/api.md: "exact to 6 decimals"): two blocks of
  // 2^21 - 1 ns from 0 on a tx2's two SMs, in the window [0, 2^21), are
  // resident 0.99999952 of it, which is 1 to six decimals
  test('a mean within half a millionth under 1 is answered 1; max blocks that all start in the window are blocks', async () => {
    const tx2 = (await postScenario(srv.base, { schema: 'schedlab-scenario/1', name: 'carry', device: 'tx2',
      streams: [{ name: 'S1' }], ops: [{ kernel: 'K', stream: 'S1', at: 0, blocks: 2, threads: 1024, block_time: '2097151ns' }] })).runs[0].run;
    const text = await (await fetch(`${srv.base}/api/runs/${tx2}/blocks?from=0&to=2097152&max=1`)).text();
    const r = JSON.parse(text);
    assert.equal(r.mode, 'bins');
    const mine = r.bins.filter((b) => b.t === 0);
    assert.equal(mine.length, 2);
    for (const b of mine) {
      assert.equal(b.blocks, 1, text.slice(0, 300));
      assert.equal(b.threads, 1023.999512);   // 1024 x (2^21 - 1) / 2^21 = 1023.99951171875
    }
    // and a window of exactly max blocks, every one starting inside it (in
    // a whole bin of the finest level, not the one holding `from`), is its
    // blocks ("Past `max` blocks": bins; not at max)
    const exact = (await getJson(`${srv.base}/api/runs/${tx2}/blocks?from=${-(2 ** 30)}&to=${2 ** 30}&max=2`)).body;
    assert.equal(exact.mode, 'blocks');
    assert.equal(exact.total, 2);
  });

  test('zoomed windows at odd edges, at several zoom levels', async () => {
    const run0 = (await getJson(`${srv.base}/api/runs/${run}`)).body.summary;
    const span = run0.t_max - run0.t_min;
    for (const [f, w, max] of [[0.1, 0.5, 300], [0.37, 0.05, 400], [0.5, 0.21, 140], [0.013, 0.9, 5000]]) {
      const from = run0.t_min + Math.round(span * f) + 7, to = from + Math.round(span * w) + 3;
      const r = (await getJson(`${srv.base}/api/runs/${run}/blocks?from=${from}&to=${to}&max=${max}`)).body;
      const n = all.filter((b) => b.start < to && b.end > from).length;
      assert.ok(n > max, `window holds ${n} blocks, more than ${max}`);
      checkBins(r, from, to);
    }
  });

  test('a window within max: exactly its blocks, in start order, total = their count', async () => {
    const from = all[4000].start + 5, to = from + 3000;
    const want = all.filter((b) => b.start < to && b.end > from);
    assert.ok(want.length > 10 && want.length < 20000);
    const r = (await getJson(`${srv.base}/api/runs/${run}/blocks?from=${from}&to=${to}`)).body;
    assert.equal(r.mode, 'blocks');
    assert.equal(r.total, want.length);
    const key = (b) => `${b.kernel}/${b.index}`;
    assert.deepEqual(r.blocks.map(key).sort(), want.map(key).sort());
    for (let i = 1; i < r.blocks.length; i++) assert.ok(r.blocks[i - 1].start <= r.blocks[i].start);
    // one block more than max turns it into bins
    const over = (await getJson(`${srv.base}/api/runs/${run}/blocks?from=${from}&to=${to}&max=${want.length - 1}`)).body;
    assert.equal(over.mode, 'bins');
    const exact = (await getJson(`${srv.base}/api/runs/${run}/blocks?from=${from}&to=${to}&max=${want.length}`)).body;
    assert.equal(exact.mode, 'blocks');
    assert.equal(exact.total, want.length);
  });
});

describe('GET /api/runs/{run}/tiles/{z}/{index}', () => {
  test('levels, cells equal to the raw blocks, every level summing to the same', async () => {
    const info = await getJson(`${srv.base}/api/runs/${run}/tiles`);
    assert.equal(info.status, 200);
    const { z0, ztop, tile_bins: tb } = info.body;
    assert.equal(tb, 64);
    assert.ok(z0 < ztop, `levels ${z0}..${ztop}`);
    const sumThr = all.reduce((s, b) => s + (b.end - b.start) * kernels[b.kernel].threads, 0);
    for (const z of [z0, z0 + 1, ztop, ztop + 1]) {
      const w = 2 ** z, k0 = Math.floor(info.body.t_min / w), k1 = Math.floor(info.body.t_max / w);
      let thr = 0, starts = 0;
      for (let tile = Math.floor(k0 / tb); tile <= Math.floor(k1 / tb); tile++) {
        const r = await getJson(`${srv.base}/api/runs/${run}/tiles/${z}/${tile}`);
        assert.equal(r.status, 200);
        assert.equal(r.body.bin_ns, w);
        assert.equal(r.body.t, tile * tb * w);
        for (const [sm, i, t, b, s, live] of r.body.cells) {
          thr += t;
          starts += s;
          if (z !== z0 || i % 7) continue;   // spot-check cells of the finest level exactly
          const lo = (tile * tb + i) * w, hi = lo + w, x = raw(lo, hi);
          assert.equal(t, x.thr[sm]);
          assert.equal(b, x.blk[sm]);
          assert.equal(s, all.filter((bl) => bl.sm === sm && bl.start >= lo && bl.start < hi).length);
          assert.equal(live, all.filter((bl) => bl.sm === sm && bl.start < lo && bl.end > lo).length);
        }
      }
      assert.equal(thr, sumThr, `level ${z}: thread-ns`);
      assert.equal(starts, all.length, `level ${z}: starts`);
    }
  });

  test('ETag, immutable caching and If-None-Match -> 304', async () => {
    const { z0 } = (await getJson(`${srv.base}/api/runs/${run}/tiles`)).body;
    const url = `${srv.base}/api/runs/${run}/tiles/${z0 + 1}/0`;
    const a = await fetch(url);
    assert.equal(a.status, 200);
    const etag = a.headers.get('etag');
    assert.match(etag, /^".+"$/);
    assert.equal(a.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const body = await a.text();
    const b = await fetch(url, { headers: { 'if-none-match': etag } });
    assert.equal(b.status, 304);
    assert.equal(b.headers.get('etag'), etag);
    assert.equal(await b.text(), '');
    const c = await fetch(url, { headers: { 'if-none-match': `"other", W/${etag}` } });
    assert.equal(c.status, 304);
    const d = await fetch(url, { headers: { 'if-none-match': '"other"' } });
    assert.equal(d.status, 200);
    assert.equal(await d.text(), body);
    // another tile, another tag
    const e = await fetch(`${srv.base}/api/runs/${run}/tiles/${z0 + 1}/1`, { headers: { 'if-none-match': etag } });
    assert.equal(e.status, 200);
    assert.notEqual(e.headers.get('etag'), etag);
    await e.text();
  });

  test('bad levels and indexes are 400, finer than stored and unknown runs 404', async () => {
    const { z0 } = (await getJson(`${srv.base}/api/runs/${run}/tiles`)).body;
    const bad = await getJson(`${srv.base}/api/runs/${run}/tiles/abc/0`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /^level: "abc"/);
    assert.equal((await getJson(`${srv.base}/api/runs/${run}/tiles/57/0`)).status, 400);
    const far = await getJson(`${srv.base}/api/runs/${run}/tiles/56/1`);
    assert.equal(far.status, 400);
    assert.match(far.body.error, /^tile: "1"/);
    // docs/api.md: "index such that the tile lies within ±2^62 ns": at level
    // 56 a tile is 2^62 ns, so -1 ([-2^62, 0)) and 0 are the two there are
    assert.equal((await getJson(`${srv.base}/api/runs/${run}/tiles/56/-1`)).status, 200);
    const below = await getJson(`${srv.base}/api/runs/${run}/tiles/56/-2`);
    assert.equal(below.status, 400);
    assert.equal(below.body.error, 'tile: "-2" is not a tile index of level 56 (-1..0)');
    const fine = await getJson(`${srv.base}/api/runs/${run}/tiles/${z0 - 1}/0`);
    assert.equal(fine.status, 404);
    assert.match(fine.body.error, new RegExp(`finest level .* is ${z0}`));
    assert.equal((await getJson(`${srv.base}/api/runs/nosuchrun0/tiles/20/0`)).status, 404);
    assert.equal((await getJson(`${srv.base}/api/runs/nosuchrun0/tiles`)).status, 404);
  });
});

describe('the answers\' cache hands out shared bytes', () => {
  // window.c keeps each answer once and every hit sends those bytes
  // (http_set_shared, no copy): concurrent hits, hits while other windows
  // evict it, and HEAD must all see the whole, same answer
  test('32 hits at once get the same bytes; HEAD the same length; hits during evictions stay whole', async () => {
    const url = `${srv.base}/api/runs/${run}/blocks?max=1400`;
    const first = await fetch(url);
    assert.equal(first.status, 200);
    const body = Buffer.from(await first.arrayBuffer());
    const hits = await Promise.all(Array.from({ length: 32 }, () => fetch(url).then(async (r) => [r.status, Buffer.from(await r.arrayBuffer())])));
    for (const [status, b] of hits) {
      assert.equal(status, 200);
      assert.equal(Buffer.compare(b, body), 0);
    }
    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(body.length));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    // 80 other windows (past the cache's 64 entries: this one is evicted
    // while hits of it may still be sending) asked by 4 clients while 2
    // others keep asking for it (a few connections: the server takes at
    // most 64 per client address)
    let done = false;
    const seen = [];
    const hitter = async () => {
      while (!done) seen.push(Buffer.from(await (await fetch(url)).arrayBuffer()));
    };
    const evicter = async (k) => {
      for (let i = k; i < 80; i += 4) {
        const r = await fetch(`${srv.base}/api/runs/${run}/blocks?max=${1500 + i}`);
        assert.equal(r.status, 200);
        await r.arrayBuffer();
      }
    };
    const hitters = [hitter(), hitter()];
    await Promise.all([0, 1, 2, 3].map(evicter));
    done = true;
    await Promise.all(hitters);
    assert.ok(seen.length >= 2, `${seen.length} hits`);
    for (const b of seen) assert.equal(Buffer.compare(b, body), 0);
    // evicted and asked again: computed anew, the same bytes
    assert.equal(Buffer.compare(Buffer.from(await (await fetch(url)).arrayBuffer()), body), 0);
  });
});

describe('the blocks answer is immutable', () => {
  // last: it deletes the run
  test('ETag and If-None-Match -> 304; a cached answer is the same bytes; a deleted run is a 404', async () => {
    const url = `${srv.base}/api/runs/${run}/blocks?max=1500`;
    const a = await fetch(url);
    assert.equal(a.status, 200);
    const etag = a.headers.get('etag'), body = await a.text();
    assert.match(etag, new RegExp(`^"${run}\\.`));
    assert.equal(a.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const b = await fetch(url);   // from the server's cache of recent answers
    assert.equal(await b.text(), body);
    assert.equal(b.headers.get('etag'), etag);
    const c = await fetch(url, { headers: { 'if-none-match': etag } });
    assert.equal(c.status, 304);
    assert.equal(await c.text(), '');
    // other windows, other tags
    const d = await fetch(`${srv.base}/api/runs/${run}/blocks?max=1501`);
    assert.notEqual(d.headers.get('etag'), etag);
    await d.text();
    // and other answers: windows that differ only in from (or only in to)
    // are each their own, the second not the first's kept bytes
    const tMax = all.reduce((m, x) => Math.max(m, x.end), 0);
    for (const [f1, t1, f2, t2] of [[1000, tMax, 2000, tMax], [1000, tMax - 1000, 1000, tMax - 2000]]) {
      const one = (await getJson(`${srv.base}/api/runs/${run}/blocks?from=${f1}&to=${t1}&max=1500`)).body;
      const two = (await getJson(`${srv.base}/api/runs/${run}/blocks?from=${f2}&to=${t2}&max=1500`)).body;
      assert.deepEqual([one.from, one.to, two.from, two.to], [f1, t1, f2, t2]);
    }
    // errors are not cached or tagged
    const e = await fetch(`${srv.base}/api/runs/${run}/blocks?from=10&to=5`);
    assert.equal(e.status, 400);
    assert.equal(e.headers.get('etag'), null);
    assert.equal(e.headers.get('cache-control'), 'no-store');
    await e.text();
    // a run deleted with its experiment: 404, never the cached answer
    const runs = (await getJson(`${srv.base}/api/experiments`)).body.experiments;
    const exp = runs.find((x) => x.runs.some((r) => r.run === run));
    const ok = await fetch(`${srv.base}/api/experiments/${exp.slug}`, { method: 'DELETE' });
    assert.ok(ok.status < 300, `DELETE: ${ok.status}`);
    assert.equal((await fetch(url)).status, 404);
    assert.equal((await fetch(url, { headers: { 'if-none-match': etag } })).status, 404);
  });
});
