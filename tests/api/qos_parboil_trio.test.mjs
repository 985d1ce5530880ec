// qos_parboil_trio.test.mjs -- ISCA'17's trios on the paper's own
// benchmarks (issue 26): one QoS kernel beside two non-QoS kernels (Figs.
// 6b, 8b) and two QoS kernels beside one (Figs. 6c, 8c), 4 trios x 3 goals
// of the Parboil kernels each (sweeps/isca17-parboil-trio1-reduced.json,
// isca17-parboil-trio2-reduced.json), Rollover against Spart as §4.1 runs
// it (SM partitions moved at run time, SMs preempted). §4.2: "Rollover
// reaches QoS goals more often than Spart by 18.8% (6b) and 43.8% (6c)";
// §4.3: "In two-kernel sharing, the average improvement is 15.9%. This
// number increases to 19.9% and 20.5% in three-kernel sharing with one
// (Figure 8b) and two (Figure 8c) QoS kernels". The paper's percentages
// are relative: its pairs' "12.2% improvement over Spart in QoSreach" is
// 88.4 / 78.8. Tolerance, as the pair relations take it: at least half the
// paper's gain; where the model does not reach it, a todo test with the
// measured gap (docs/qos.md "Trios on the Parboil kernels").
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, tempDir } from './server.mjs';

const SWEEPS = resolve('sweeps');

let dir;
before(() => { dir = tempDir('qos-parboil-trio'); });
after(() => rmSync(dir, { recursive: true, force: true }));

function sweep(kind) {
  const out = join(dir, `${kind}.json`);
  const r = cli(['sweep', join(SWEEPS, `isca17-parboil-${kind}-reduced.json`), '--db', join(dir, `${kind}.db`), '-o', out]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(readFileSync(out, 'utf8'));
}

const res = {};
test('the reduced Parboil trio sweeps run: 4 trios x 3 goals x Rollover and Spart, each kind', () => {
  for (const kind of ['trio1', 'trio2']) {
    const r = sweep(kind);
    assert.deepEqual(r.schemes, ['rollover', 'spart']);
    assert.equal(r.points.length, 4 * 3 * 2);
    // every trio has its QoS kernel(s) first: one in trio1, two in trio2
    for (const p of r.points) assert.equal(p.attained2 !== undefined, kind === 'trio2');
    const pct = (x) => (x === null ? '-' : `${(100 * x).toFixed(1)} %`);
    for (const s of r.schemes) {
      console.log(`${kind} ${s}: QoSreach ${pct(r.qosreach[s])}, non-QoS throughput ${pct(r.throughput[s])}, ` +
        `overshoot ${pct(r.overshoot[s])}`);
    }
    res[kind] = r;
  }
});

const gain = (r, what) => r[what].rollover / r[what].spart - 1;

// Fig. 6b: +18.8 % (relative); at least half of it
test('ISCA\'17 §4.2, Fig. 6b: one QoS kernel, Rollover meets goals at least 9.4 % more often than Spart', () => {
  const g = gain(res.trio1, 'qosreach');
  assert.ok(g >= 0.094, `Rollover ${res.trio1.qosreach.rollover}, Spart ${res.trio1.qosreach.spart}: ${(100 * g).toFixed(1)} %`);
});

// Fig. 6c: +43.8 % (relative); at least half of it
test('ISCA\'17 §4.2, Fig. 6c: two QoS kernels, Rollover meets goals at least 21.9 % more often than Spart', () => {
  const g = gain(res.trio2, 'qosreach');
  assert.ok(g >= 0.219, `Rollover ${res.trio2.qosreach.rollover}, Spart ${res.trio2.qosreach.spart}: ${(100 * g).toFixed(1)} %`);
});

// Fig. 8b: +19.9 %; the direction ("Rollover has higher throughput than
// Spart in all cases"), then at least half of it
test('ISCA\'17 §4.3, Fig. 8b: one QoS kernel, Rollover\'s non-QoS throughput at least Spart\'s', () => {
  assert.ok(gain(res.trio1, 'throughput') >= 0, `Rollover ${res.trio1.throughput.rollover}, Spart ${res.trio1.throughput.spart}`);
});

test('ISCA\'17 §4.3, Fig. 8b: one QoS kernel, Rollover\'s non-QoS throughput at least 9.95 % above Spart\'s', { todo: 'measured 23.2 % against 22.3 %: +3.9 %' }, () => {
  assert.ok(gain(res.trio1, 'throughput') >= 0.0995, `Rollover ${res.trio1.throughput.rollover}, Spart ${res.trio1.throughput.spart}`);
});

// Fig. 8c: +20.5 %
test('ISCA\'17 §4.3, Fig. 8c: two QoS kernels, Rollover\'s non-QoS throughput at least Spart\'s', { todo: 'measured 27.5 % against 42.0 %: Spart meets only the (30 %, 30 %) points, where a non-QoS kernel keeps most' }, () => {
  assert.ok(gain(res.trio2, 'throughput') >= 0, `Rollover ${res.trio2.throughput.rollover}, Spart ${res.trio2.throughput.spart}`);
});

// The trios at ISCA'17 §4.1's own parameters (issue 26: "the full
// paper-parameter sweep (90 pairs, trios, 10 goals, all schemes)"): the
// trio templates with the pair template's 10K-cycle epochs, 2M-cycle window
// and re-execution; 60 trios of each kind (§4.1: "60 trios of all possible
// combinations were tested"; the paper does not list them, so a rule fixed
// before any was run, docs/qos.md), 10 goals each (§4.1: 50 % to 95 % with
// one QoS kernel, (25 %, 25 %) to (70 %, 70 %) with two), Rollover with
// §3.6's run-time TB adjustment as the pair spec runs it, and Spart; each
// with its 24-point sample, the reduced trios on the paper's template.
// Hours of CPU, so only their shape is checked here.
test('ISCA\'17 §4.1: the trio specs at the paper\'s parameters are the reduced trios\' on the paper\'s templates, 60 trios x 10 goals', () => {
  const load = (f) => JSON.parse(readFileSync(join(SWEEPS, f), 'utf8'));
  const pairPaper = load('isca17-parboil-paper.json'), pairTemplate = load('isca17-pair-paper.json');
  const kset = load('isca17-parboil.json').kernels.map((k) => k.name);
  const goals = {
    trio1: [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95],
    trio2: [0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7],
  };
  const templates = { trio1: ['isca17-trio.json', 'isca17-trio-paper.json'], trio2: ['isca17-trio-2qos.json', 'isca17-trio-2qos-paper.json'] };
  const schemes = pairPaper.schemes.filter((x) => x.name === 'rollover' || x.name === 'spart');
  for (const kind of ['trio1', 'trio2']) {
    const [shortT, paperT] = templates[kind].map(load);
    // the template: the short one at the pair template's epoch, window and runs
    assert.equal(paperT.policy.quota_epoch, pairTemplate.policy.quota_epoch);
    assert.equal(paperT.window, pairTemplate.window);
    assert.deepEqual(paperT.streams, shortT.streams);
    assert.deepEqual(paperT.ops.map(({ runs, ...o }) => o), shortT.ops.map(({ runs, ...o }) => o));
    assert.ok(paperT.ops.every((o) => o.runs === pairTemplate.ops[0].runs), kind);
    const reduced = load(`isca17-parboil-${kind}-reduced.json`);
    const sample = load(`isca17-parboil-${kind}-paper-reduced.json`);
    const full = load(`isca17-parboil-${kind}-paper.json`);
    for (const s of [sample, full]) {
      assert.equal(s.template, templates[kind][1], kind);
      assert.equal(s.kernels, reduced.kernels, kind);
      assert.deepEqual(s.schemes, schemes, kind);
    }
    assert.deepEqual(sample.pairs, reduced.pairs);
    assert.deepEqual(sample.goals, reduced.goals);
    assert.deepEqual(full.goals, goals[kind]);
    // 60 distinct trios of the set's kernels, the QoS kernel(s) first
    assert.equal(full.pairs.length, 60);
    const nq = kind === 'trio1' ? 1 : 2;
    const key = (t) => [t.slice(0, nq).sort().join('+'), t.slice(nq).sort().join('+')].join('|');
    assert.equal(new Set(full.pairs.map(key)).size, 60, kind);
    const asQos = new Map(), asOther = new Map();
    for (const t of full.pairs) {
      assert.equal(new Set(t).size, 3, t.join(','));
      for (const k of t) assert.ok(kset.includes(k), k);
      t.slice(0, nq).forEach((k) => asQos.set(k, (asQos.get(k) || 0) + 1));
      t.slice(nq).forEach((k) => asOther.set(k, (asOther.get(k) || 0) + 1));
    }
    // every kernel in each role equally often (the rule's balance)
    for (const k of kset) {
      assert.equal(asQos.get(k), nq === 1 ? 6 : 12, `${kind} ${k} as QoS kernel`);
      assert.equal(asOther.get(k), nq === 1 ? 12 : 6, `${kind} ${k} as non-QoS kernel`);
    }
  }
});
