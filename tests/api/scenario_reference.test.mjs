// The shipped scenarios' "reference" blocks carry the papers' numbers, typed
// here again from the papers (and the H200 recording): most-room Table 1
// (§5, execution times and their "(N.NNX)" over serial), Appendix B's
// Tables 3 and 4 (execution times in ms: serial A, B; isolated A, B;
// colocated A, B), §4.1-§5.1's placements, the H200 recording
// (docs/most-room-h100.md), QAWS §V-B's claims for Fig. 4a, GCAPS Table 5's
// MORTs. The experiment page draws
// them beside the runs (tests/browser/reference.test.mjs).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { cli, repo } from './server.mjs';

const scenario = (name) => JSON.parse(readFileSync(join(repo, 'scenarios', `${name}.json`), 'utf8'));
const r2 = (x) => Math.round(x * 100) / 100;

// A most-room block's four rows: {kernel phase: ratio}, in its order.
function mostRoom(name) {
  const out = {};
  for (const row of scenario(name).reference.rows) {
    assert.match(row.ratio[1], /^[AB]-serial$/, name);
    out[row.ratio[0]] = row.reported;
  }
  return out;
}

test('most-room Table 1: the slowdowns the paper prints, each within the issue\'s factor 1.5', () => {
  // Table 1 (RTX 2080 Ti): serial A/B, isolated A/B, colocated A/B in ms, or the paper's ratio
  const t1 = {
    l1: { 'A-isolated': r2(85 / 85), 'A-colocated': 1.24, 'B-isolated': r2(79 / 79), 'B-colocated': 1.33 },
    compute: { 'A-isolated': r2(527 / 523), 'A-colocated': r2(530 / 523), 'B-isolated': 1.45, 'B-colocated': 1.85 },
    memory: { 'A-isolated': r2(951 / 949), 'A-colocated': r2(955 / 949), 'B-isolated': 22.4, 'B-colocated': 96.1 },
    transfer: { 'A-isolated': 1.04, 'A-colocated': 1.05, 'B-isolated': 2.73, 'B-colocated': 3.58 },
  };
  for (const [row, want] of Object.entries(t1)) {
    assert.deepEqual(mostRoom(`most-room-table1-${row}`), want, row);
    for (const r of scenario(`most-room-table1-${row}`).reference.rows) assert.equal(r.within, 1.5);
  }
});

test('most-room Tables 3 and 4: the ratios of Appendix B\'s execution times, no tolerance (direction only)', () => {
  const ms = {
    table3: { l1: [63, 45, 63, 45, 94, 94], compute: [780, 415, 780, 415, 895, 915],
      memory: [1233, 49, 1233, 274, 1270, 1270], transfer: [1588, 239, 1680, 523, 1689, 1686] },
    table4: { l1: [85, 51, 84, 55, 104, 104], compute: [869, 333, 870, 480, 871, 986],
      memory: [2458, 34, 2459, 622, 2492, 710], transfer: [3156, 121, 3194, 1113, 3295, 1325] },
  };
  for (const [table, rows] of Object.entries(ms)) {
    for (const [row, [sa, sb, ia, ib, ca, cb]] of Object.entries(rows)) {
      const name = `most-room-${table}-${row}`;
      assert.deepEqual(mostRoom(name), { 'A-isolated': r2(ia / sa), 'A-colocated': r2(ca / sa),
        'B-isolated': r2(ib / sb), 'B-colocated': r2(cb / sb) }, name);
      for (const r of scenario(name).reference.rows) assert.equal(r.within, undefined, name);
    }
  }
});

test('the H200 recording of most-room\'s experiment', () => {
  const h200 = {
    l1: { 'A-isolated': 1.00, 'A-colocated': 1.05, 'B-isolated': 1.58, 'B-colocated': 1.96 },
    compute: { 'A-isolated': 1.00, 'A-colocated': 1.00, 'B-isolated': 3.53, 'B-colocated': 2.43 },
    memory: { 'A-isolated': 1.01, 'A-colocated': 1.00, 'B-isolated': 71.1, 'B-colocated': 90.5 },
    transfer: { 'A-isolated': 0.91, 'A-colocated': 1.02, 'B-isolated': 8.05, 'B-colocated': 8.09 },
  };
  for (const [row, want] of Object.entries(h200)) {
    assert.deepEqual(mostRoom(`most-room-h100-${row}`), want, row);
    assert.match(scenario(`most-room-h100-${row}`).reference.source, /H200/);
  }
});

test('QAWS Fig. 4a: K1 and K2 below LRR under QAWS, but atax and his within 5 % under every policy', () => {
  for (const k of ['pc', 'pf', '2dc', 'dxtc', 'bin', 'vec', 'mm', 'his', 'atax']) {
    const rows = scenario(`qaws-fig4a-${k}`).reference.rows;
    const flat = ['his', 'atax'].includes(k);
    for (const r of rows) {
      assert.equal(r.ratio[1].run, 'lrr', k);
      assert.equal(r.ratio[0].kernel, r.ratio[1].kernel, k);
      if (flat) assert.deepEqual([r.reported, r.within], [1, 1.05], k);
      else assert.deepEqual([r.below, r.reported], [1, undefined], k);
    }
    // QAWS for both kernels; GTO too where the claim is "every policy"
    const pols = rows.map((r) => `${r.ratio[0].run.replace(/-\d+$/, '')} ${r.ratio[0].kernel}`);
    assert.deepEqual(pols, flat ? ['qaws-k2-budget K1', 'qaws-k2-budget K2', 'gto K1', 'gto K2'] : ['qaws-k2-budget K1', 'qaws-k2-budget K2'], k);
  }
});

test('GCAPS Table 5: the 20 MORT cells, each in its policy\'s run, in both case-study scenarios', () => {
  const t5 = {
    'time-slice-suspend': [45.33, 66.97, 71.84, 86.50, 86.62],
    'time-slice-busy': [26.13, 44.47, 109.14, 75.64, 117.68],
    'gcaps-suspend': [10.15, 22.36, 67.39, 43.17, 49.24],
    'gcaps-busy': [9.68, 23.28, 85.01, 44.91, 57.93],
  };
  const tasks = ['histogram', 'mmul_gpu_1', 'mmul_cpu', 'projection', 'dxtc'];
  for (const name of ['gcaps-case-study', 'gcaps-case-study-variation']) {
    const got = {};
    for (const r of scenario(name).reference.rows) (got[r.run] ??= []).push([r.mort, r.reported]);
    assert.deepEqual(got, Object.fromEntries(Object.entries(t5).map(([run, v]) => [run, tasks.map((t, i) => [t, v[i]])])), name);
  }
});

test('most-room §4.1, §4.2 and §5.1: the placements the text states, block by block (and the H100 recording\'s)', () => {
  const want = {
    'most-room-pascal-4.1': [['Y', undefined, [0, 0, 1]], ['Y', 'round-robin', [0, 1, 2]]],
    'most-room-pascal-4.2': [['Y', undefined, [0, 0, 1]]],
    'most-room-pascal-4.2-33-threads': [['Y', undefined, [0, 0, 0]]],
    'most-room-turing-5.1': [['B', undefined, [67, 67, 67, 67, 67, 67, 67, 67]]],
    'most-room-turing-5.1-colocated': [['B', undefined, [67, 0, 2, 4, 6, 8, 10, 12]]],
    // recorded on an H100 (tests/fixtures/h100/h100-most-room-r1.csv, test_h100_recordings.c)
    'h100-most-room': [['B', undefined, [123, 123, 123, 123]]],
  };
  for (const [name, rows] of Object.entries(want))
    assert.deepEqual(scenario(name).reference.rows.map((r) => [r.sms, r.run, r.reported]), rows, name);
});

test('every shipped reference block reads (its names are the scenario\'s)', () => {
  const dir = join(repo, 'scenarios');
  const withRef = readdirSync(dir).filter((f) => f.endsWith('.json') && JSON.parse(readFileSync(join(dir, f), 'utf8')).reference);
  assert.equal(withRef.length, 4 + 4 + 4 + 4 + 9 + 2 + 5 + 1);
  // simulate reads the scenario whole; the smallest run of each is enough
  for (const f of withRef.filter((x) => /table3-l1|h100-l1|fig4a-vec|variation/.test(x))) {
    const r = cli(['simulate', join(dir, f), '-o', '/dev/null']);
    assert.equal(r.code, 0, `${f}: ${r.stderr}`);
  }
});
