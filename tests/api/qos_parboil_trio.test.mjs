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

test('ISCA\'17 §4.3, Fig. 8b: one QoS kernel, Rollover\'s non-QoS throughput at least 9.95 % above Spart\'s', { todo: 'measured 22.8 % against 21.1 %: +8.0 %' }, () => {
  assert.ok(gain(res.trio1, 'throughput') >= 0.0995, `Rollover ${res.trio1.throughput.rollover}, Spart ${res.trio1.throughput.spart}`);
});

// Fig. 8c: +20.5 %
test('ISCA\'17 §4.3, Fig. 8c: two QoS kernels, Rollover\'s non-QoS throughput at least Spart\'s', { todo: 'measured 27.0 % against 44.0 %: Spart meets only the (30 %, 30 %) points, where a non-QoS kernel keeps most; at those Rollover\'s is 35.8 %' }, () => {
  assert.ok(gain(res.trio2, 'throughput') >= 0, `Rollover ${res.trio2.throughput.rollover}, Spart ${res.trio2.throughput.spart}`);
});
