// The dashboard's pure modules under node, without a browser or a server:
// time formatting, the block stacking of the timeline, URL state.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatNs, formatTick, axisUnit, formatBytes, timeFormat, shortName, encodeRanges, decodeRanges, encodeBits, decodeBits,
} from '../../web/js/format.mjs';
import { stackBlocks, stackUnits } from '../../web/js/charts/stacking.mjs';
import { parseQuery, queryList, queryInt, queryString, buildQuery, matchRoute } from '../../web/js/router.mjs';
import { colorMap, textOn, PALETTE, hashName } from '../../web/js/colors.mjs';

test('formatNs picks the unit a person would say', () => {
  assert.equal(formatNs(1320000000), '1.32 s');
  assert.equal(formatNs(250000000), '250 ms');
  assert.equal(formatNs(40000), '40 µs');
  assert.equal(formatNs(100), '100 ns');
  assert.equal(formatNs(0), '0 s');
  assert.equal(formatNs(5320000000), '5.32 s');
  assert.equal(formatNs(1500), '1.5 µs');
  assert.equal(formatNs(12345678), '12.3 ms');
  assert.equal(formatNs(-2000000), '-2 ms');
  assert.equal(formatNs(null), '—');
});

test('axis ticks share one unit and just enough decimals', () => {
  const u = axisUnit(5320000000);
  assert.equal(u.name, 's');
  assert.deepEqual([0, 5e8, 1e9, 1.5e9].map((v) => formatTick(v, u, 5e8)), ['0.0 s', '0.5 s', '1.0 s', '1.5 s']);
  assert.deepEqual([0, 1e9, 2e9].map((v) => formatTick(v, u, 1e9)), ['0 s', '1 s', '2 s']);
  const ms = axisUnit(4e6);
  assert.deepEqual([2e6, 2.25e6].map((v) => formatTick(v, ms, 2.5e5)), ['2.00 ms', '2.25 ms']);
});

test('formatBytes uses binary prefixes like the scenario format', () => {
  assert.equal(formatBytes(268435456), '256 MB');
  assert.equal(formatBytes(32768), '32 KB');
  assert.equal(formatBytes(1000), '1000 B');
});

test('stackBlocks stacks the Fig. 3 opening of K1 as the paper draws it', () => {
  const S = 1e9;
  // TX2 §3.2: four 768-thread blocks of K1 fit on 2 SMs of 2048 threads,
  // the two others start when the first ones end; K4 (256 threads) joins.
  const items = [
    { sm: 0, start: 0, end: 2 * S, size: 768 }, { sm: 1, start: 0, end: 2 * S, size: 768 },
    { sm: 0, start: 0, end: 2 * S, size: 768 }, { sm: 1, start: 0, end: 2 * S, size: 768 },
    { sm: 0, start: 2 * S, end: 3 * S, size: 768 }, { sm: 1, start: 2 * S, end: 3 * S, size: 768 },
    { sm: 0, start: 2 * S, end: 3 * S, size: 256 }, { sm: 0, start: 2 * S, end: 3 * S, size: 256 },
  ];
  const { offset, extent } = stackBlocks(items);
  assert.deepEqual([...offset], [0, 0, 768, 768, 0, 0, 768, 1024]);
  assert.equal(extent.get(0), 1536);
  assert.equal(extent.get(1), 1536);
});

test('stackBlocks reuses the gap a finished block leaves', () => {
  const items = [
    { sm: 0, start: 0, end: 10, size: 2 },   // bottom
    { sm: 0, start: 0, end: 20, size: 2 },   // on top of it
    { sm: 0, start: 10, end: 30, size: 1 },  // the bottom one ended at 10: fits under
    { sm: 0, start: 12, end: 15, size: 2 },  // 1 unit left below: goes above
  ];
  const { offset, extent } = stackBlocks(items);
  assert.deepEqual([...offset], [0, 2, 0, 4]);
  assert.equal(extent.get(0), 6);
});

test('stackBlocks never lets time-overlapping blocks of one SM overlap on screen', () => {
  // a deterministic pseudo-random set (LCG) over 3 SMs
  let seed = 12345;
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const items = [];
  for (let i = 0; i < 400; i++) {
    const start = rnd(1000);
    items.push({ sm: rnd(3), start, end: start + 1 + rnd(200), size: [128, 256, 512, 1024][rnd(4)] });
  }
  const { offset } = stackBlocks(items);
  let pairs = 0;
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i];
      const b = items[j];
      if (a.sm !== b.sm || !(a.start < b.end && b.start < a.end)) continue;
      pairs += 1;
      const apart = offset[i] + a.size <= offset[j] || offset[j] + b.size <= offset[i];
      assert.ok(apart, `blocks ${i} and ${j} overlap`);
    }
  }
  assert.ok(pairs > 1000, `the set has overlapping pairs to check (${pairs})`);
});

test('stackUnits gives overlapping kernels of one stream separate rows', () => {
  const { offset, extent } = stackUnits([
    { lane: 0, start: 0, end: 5 }, { lane: 0, start: 3, end: 8 }, { lane: 0, start: 5, end: 9 }, { lane: 1, start: 0, end: 9 },
  ]);
  assert.deepEqual([...offset], [0, 1, 0, 0]);
  assert.equal(extent.get(0), 2);
  assert.equal(extent.get(1), 1);
});

test('URL state: lists survive names with commas, ints are checked', () => {
  const qs = buildQuery({ view: 'timeline', from: 100, to: 2000, kernels: ['K1', 'f<int, float>'], at: null });
  assert.equal(qs, '?view=timeline&from=100&to=2000&kernels=K1,f%3Cint%2C%20float%3E');
  const q = parseQuery(qs);
  assert.deepEqual(queryList(q, 'kernels'), ['K1', 'f<int, float>']);
  assert.equal(queryInt(q, 'from'), 100);
  assert.equal(queryString(q, 'view'), 'timeline');
  assert.equal(queryInt(parseQuery('?from=1e9'), 'from'), null);
  assert.equal(queryList(parseQuery('?kernels='), 'kernels'), null);
});

test('routes: every page URL of docs/api.md maps to its view', () => {
  assert.equal(matchRoute('/', '').name, 'experiments');
  const e = matchRoute('/experiments/k3f9x2m1qa', '');
  assert.deepEqual([e.name, e.params.slug], ['experiment', 'k3f9x2m1qa']);
  const r = matchRoute('/runs/p0x8abcdef', '?view=kernels');
  assert.deepEqual([r.name, r.params.run, queryString(r.query, 'view')], ['run', 'p0x8abcdef', 'kernels']);
  const c = matchRoute('/compare', '?runs=a,b');
  assert.deepEqual([c.name, queryList(c.query, 'runs')], ['compare', ['a', 'b']]);
  assert.equal(matchRoute('/nope', '').name, 'notfound');
});

test('kernel colours come from the name (issue 15): the same set, the same colours, in any order', () => {
  const m = colorMap(['K1', 'K2', 'K1', 'K3']);
  assert.deepEqual([...m.keys()], ['K1', 'K2', 'K3']);
  // FNV-1a of the name into Tableau 10 (up to 10 names)
  assert.deepEqual([...m.values()], [PALETTE[hashName('K1') % 10], PALETTE[hashName('K2') % 10], PALETTE[hashName('K3') % 10]]);
  assert.equal(m.get('K1'), '#edc948');
  const r = colorMap(['K3', 'K2', 'K1']);
  for (const k of ['K1', 'K2', 'K3']) assert.equal(r.get(k), m.get(k));
  // 40 names: 40 different colours
  const many = colorMap(Array.from({ length: 40 }, (_, i) => `kernel_${i}`));
  assert.equal(new Set(many.values()).size, 40);
  assert.equal(textOn('#4e79a7'), '#fff');
  assert.equal(textOn('#edc948'), '#111');
});

test('times at the window\'s precision, short kernel names, compact id lists (issue 15)', () => {
  const w = timeFormat(278_000);
  assert.equal(w.format(235_123_456), '235,123.456 µs');
  assert.equal(w.format(235_401_000), '235,401.000 µs');
  assert.equal(timeFormat(5.32e9).format(1e9), '1.00000 s');
  assert.equal(timeFormat(50).format(17), '17 ns');
  assert.equal(timeFormat(2_405_000).format(20_000), '0.02000 ms');
  assert.equal(w.format(null), '—');
  const clover = 'void clover::par_ranged2d_kernel<update_halo_kernel(int, int, const std::array<int, (unsigned long)4> &)::[lambda(int, int) (instance 7)]>(clover::Range2d, T1)';
  assert.equal(shortName(clover), 'par_ranged2d_kernel<update_halo_kernel::λ7>');
  assert.equal(shortName(clover, 38), 'par_ranged2d_kernel<…halo_kernel::λ7>');
  assert.equal(shortName('K1'), 'K1');
  assert.equal(shortName('void vectorAdd(const float *, const float *, float *, int)'), 'vectorAdd');
  assert.equal(encodeRanges([12, 3, 4, 5, 6, 7, 9, 10]), '3-7,9,10,12');
  assert.deepEqual(decodeRanges('3-7,9,10,12'), [3, 4, 5, 6, 7, 9, 10, 12]);
  assert.deepEqual(decodeRanges('0-5', 3), [0, 1, 2]);
  assert.equal(decodeRanges('K1,K2'), null);
  const ids = Array.from({ length: 4096 }, (_, i) => i).filter((i) => i % 2);
  const bits = encodeBits(ids, 4096);
  assert.equal(bits.length, 683);
  assert.deepEqual(decodeBits(bits, 4096), ids);
});
