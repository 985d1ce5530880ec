// qos_trio.test.mjs -- ISCA'17's trios (issue 26; §4.1: "To co-run three
// kernels, 60 trios ... Either one or two kernels of the trio are QoS and
// the remaining one(s) are non-QoS kernels"; Figs. 6b-c and 8b-c): the
// reduced trio sweeps (sweeps/isca17-trio1-reduced.json,
// isca17-trio2-reduced.json: 4 trios x 3 goals, Rollover and Spart, as the
// paper compares them). What a point means for a trio -- met only when
// every QoS kernel meets the goal, the non-QoS throughput the mean of the
// two -- is checked against each point's own numbers; the paper's
// direction (Rollover ahead of Spart, §4.2-4.3) is asserted where the model
// has it and carried as a todo with the measured gap where it has not.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, tempDir, writeIn } from './server.mjs';

const SWEEPS = resolve('sweeps');
let dir;
const res = {};
before(() => { dir = tempDir('qos-trio'); });
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name, obj) { return writeIn(dir, name, obj); }
// a shipped spec with its file names made absolute (the test's copy lives elsewhere)
function spec(f) {
  const s = JSON.parse(readFileSync(join(SWEEPS, f), 'utf8'));
  return { ...s, template: join(SWEEPS, s.template), kernels: join(SWEEPS, s.kernels) };
}
const mean = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;

for (const [kind, f] of [[1, 'isca17-trio1-reduced.json'], [2, 'isca17-trio2-reduced.json']]) {
  test(`trios with ${kind} QoS kernel${kind > 1 ? 's' : ''}: the points, their verdicts and the summaries`, () => {
    const out = join(dir, `trio${kind}.json`);
    // (--progress 0: the summary line first, however long a loaded machine takes)
    const r = cli(['sweep', file(`trio${kind}-spec.json`, spec(f)), '--db', join(dir, `trio${kind}.db`), '-o', out, '--progress', '0']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^schedlab: sweep: 24 points \(\d+ simulations\) in /);
    const x = JSON.parse(readFileSync(out, 'utf8'));
    res[kind] = x;
    assert.deepEqual(x.schemes, ['rollover', 'spart']);
    // each trio's kernels by role, the QoS kernels' classes first
    const roles = kind === 1 ? ['qos', 'other', 'other2'] : ['qos', 'qos2', 'other'];
    for (const p of x.pairs) {
      assert.deepEqual(Object.keys(p).sort(), [...roles, 'classes'].sort());
      const cls = Object.fromEntries(x.kernels.map((k) => [k.name, k.class === 'compute' ? 'C' : 'M']));
      assert.equal(p.classes, roles.map((k) => cls[p[k]]).join('+'));
    }
    // every kernel's isolated IPC measured in each role it has in some trio
    const key = { qos: 'ipc_isolated', other: 'ipc_isolated_other', qos2: 'ipc_isolated_qos2', other2: 'ipc_isolated_other2' };
    for (const k of x.kernels) {
      for (const role of roles) assert.equal(k[key[role]] > 0, x.pairs.some((p) => p[role] === k.name), `${k.name} as ${role}`);
    }
    assert.equal(x.points.length, 4 * 3 * 2);
    for (const p of x.points) {
      // met = every QoS kernel at or above the goal (the paper's (x %, x %))
      const att = kind === 2 ? [p.attained, p.attained2] : [p.attained];
      assert.equal(kind === 2, 'attained2' in p);
      if (att.every((a) => Math.abs(a - p.goal) > 1e-9)) assert.equal(p.qos_met, att.every((a) => a > p.goal), JSON.stringify(p));
      assert.ok(p.throughput >= 0 && p.throughput < 1.5);
      // Spart: every kernel its own SMs, at least one each, all 16 used
      if (p.scheme === 'spart') {
        assert.equal(p.sms.length, 3);
        assert.ok(p.sms.every((m) => m >= 1));
        assert.equal(p.sms.reduce((a, m) => a + m, 0), 16);
      } else {
        assert.equal(p.sms, undefined);
      }
    }
    for (const s of x.schemes) {
      const pts = x.points.filter((p) => p.scheme === s);
      const met = pts.filter((p) => p.qos_met);
      assert.ok(Math.abs(x.qosreach[s] - met.length / pts.length) < 1e-9, s);
      if (met.length) assert.ok(Math.abs(x.throughput[s] - mean(met.map((p) => p.throughput))) < 1e-9, s);
      // Fig. 9 over both QoS kernels; Fig. 5's shortfall: the one further below
      const ratio = (p) => (kind === 2 ? [p.attained / p.goal, p.attained2 / p.goal] : [p.attained / p.goal]);
      if (met.length) assert.ok(Math.abs(x.overshoot[s] - mean(met.map((p) => mean(ratio(p)) - 1))) < 1e-9, s);
      const short = pts.filter((p) => !p.qos_met).map((p) => 1 - Math.min(...ratio(p)));
      const bin = (v) => (v <= 0.05 ? 0 : v <= 0.1 ? 1 : v <= 0.2 ? 2 : 3);
      assert.deepEqual(x.misses[s], [0, 1, 2, 3].map((b) => short.filter((v) => bin(v) === b).length), s);
    }
    console.log(`# trios with ${kind} QoS: QoSreach rollover ${(100 * x.qosreach.rollover).toFixed(1)} %, spart ${(100 * x.qosreach.spart).toFixed(1)} %;`
      + ` non-QoS throughput rollover ${(100 * x.throughput.rollover).toFixed(1)} %, spart ${(100 * (x.throughput.spart ?? 0)).toFixed(1)} %`);
  });
}

// ISCA'17 §4.2: "Rollover reaches QoS goals more often than Spart by 18.8%
// (6b) and 43.8% (6c)"; §4.3: "Rollover has higher throughput than Spart
// in all cases ... 19.9% and 20.5% in three-kernel sharing with one
// (Figure 8b) and two (Figure 8c) QoS kernels". Asserted: the direction.
test('ISCA\'17 Figs. 6b and 8b: one QoS kernel, Rollover >= Spart in QoSreach and in non-QoS throughput', () => {
  const x = res[1];
  assert.ok(x.qosreach.rollover >= x.qosreach.spart, JSON.stringify(x.qosreach));
  assert.ok(x.throughput.rollover >= x.throughput.spart, JSON.stringify(x.throughput));
});

test('ISCA\'17 Fig. 6c: two QoS kernels, Rollover ahead of Spart in QoSreach', {
  todo: 'measured 41.7 % for both (4 trios x 3 goals); paper +43.8 %. Before the counters carried their debt, Rollover missed (50 %, 50 %) in 3 of 4 trios with one QoS kernel at 0.34-0.52 of its isolated IPC while the other overshot; with three kernels on every SM, §3.6\'s equal share leaves each QoS kernel 2 of its 4 blocks per SM (docs/qos.md)',
}, () => {
  const x = res[2];
  assert.ok(x.qosreach.rollover > x.qosreach.spart, JSON.stringify(x.qosreach));
});

// (49.8 against 49.2 %, since the counters carry their debt: 48.3 before)
test('ISCA\'17 Fig. 8c: two QoS kernels, Rollover\'s non-QoS throughput at least Spart\'s', () => {
  const x = res[2];
  assert.ok(x.throughput.rollover >= x.throughput.spart, JSON.stringify(x.throughput));
});

test('a trio spec: shards merge into the one-process result; a trio of the wrong size is refused naming it', () => {
  // on a short window (the machinery, no paper number)
  const t = JSON.parse(readFileSync(join(SWEEPS, 'isca17-trio.json'), 'utf8'));
  const short = { ...spec('isca17-trio1-reduced.json'), goals: [0.6], pairs: [['c-sfu', 'c-shared', 'm-light'], ['m-light', 'c-alu', 'm-stream']],
    template: file('short-trio.json', { ...t, window: 20000, ops: t.ops.map((o) => ({ ...o, runs: 1 })) }) };
  const sp = file('short.json', short);
  const whole = join(dir, 'whole.json');
  assert.equal(cli(['sweep', sp, '--db', join(dir, 's.db'), '-o', whole]).code, 0);
  const shards = [0, 1].map((i) => {
    const o = join(dir, `shard${i}.json`);
    const r = cli(['sweep', sp, '--shard', `${i}/2`, '-o', o]);
    assert.equal(r.code, 0, r.stderr);
    return o;
  });
  const merged = join(dir, 'merged.json');
  const m = cli(['merge', ...shards, '-o', merged, '--db', join(dir, 'm.db')]);
  assert.equal(m.code, 0, m.stderr);
  assert.equal(readFileSync(merged, 'utf8'), readFileSync(whole, 'utf8'));
  const bad = cli(['sweep', file('bad.json', { ...short, pairs: [['c-sfu', 'c-shared']] }), '-o', join(dir, 'bad-out.json')]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /bad\.json: pairs\[0\]: expected \[QOS, OTHER, OTHER2\], 3 different names of the kernel set \(the template's roles, QoS kernels first\)\n$/);
  const same = cli(['sweep', file('same.json', { ...short, pairs: [['c-sfu', 'c-sfu', 'm-light']] }), '-o', join(dir, 'same-out.json')]);
  assert.equal(same.code, 2);
  assert.match(same.stderr, /pairs\[0\]: expected \[QOS, OTHER, OTHER2\]/);
});
