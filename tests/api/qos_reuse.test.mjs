// qos_reuse.test.mjs -- `schedlab sweep SPEC --reuse OLD.json` (docs/cli.md,
// docs/qos.md "Running a sweep again after a change"): after one kernel's
// program changes, only the groups that hold it are simulated again and
// every other point is taken from the earlier result, which must give the
// text a whole run gives, to the byte; what cannot be reused is refused
// with the file and the key, before any work.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, tempDir } from './server.mjs';

const SWEEPS = resolve('sweeps');

let dir;
before(() => { dir = tempDir('qos-reuse'); });
after(() => rmSync(dir, { recursive: true, force: true }));

// Three kernels of the library under names of their own, so that one of
// them can change its program; the pair template over a 20K-cycle window
// (its 150K would only make the test slower), one goal, a quota scheme and
// Spart at run time (whose partition search the reused points carry too):
// 6 groups x 2 schemes = 12 points, a second or two of CPU.
const template = { ...JSON.parse(readFileSync(join(SWEEPS, 'isca17-pair.json'), 'utf8')), window: 20000 };
const spec = (c) => ({
  schema: 'schedlab-sweep/1', kind: 'qos', name: 'reuse',
  template,
  kernels: [{ name: 'a', class: 'compute', program: 'sgemm' }, { name: 'b', class: 'memory', program: 'lbm' },
    { name: 'c', class: 'memory', program: c }],
  pairs: 'all', goals: [0.6],
  schemes: [{ name: 'rollover', policy: { warp: 'quota-rollover' } },
    { name: 'spart', policy: { placement: 'spart-climb', warp: 'gto', sm_preempt: '14080cycles' } }],
});

function write(name, obj) {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(obj));
  return p;
}

function run(name, specFile, extra = []) {
  const out = join(dir, `${name}.out.json`);
  const r = cli(['sweep', specFile, '--db', join(dir, `${name}.db`), '-o', out, '--progress', '0', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return { text: readFileSync(out, 'utf8'), stderr: r.stderr, out };
}

let before1, whole2;
test('a kernel changed: its groups simulated again, the others taken; the text a whole run writes', () => {
  before1 = run('old', write('old.json', spec('stencil')));
  const changed = write('new.json', spec('spmv'));
  whole2 = run('whole', changed);
  const again = run('again', changed, ['--reuse', before1.out]);
  // 4 of the 6 ordered pairs hold c: 8 points simulated, 4 taken
  assert.match(again.stderr, /sweep: 8 points \(/);
  assert.match(again.stderr, /sweep: 4 points taken from .*old\.out\.json/);
  assert.equal(again.text, whole2.text);
  // the points kept are the earlier run's, to the digit, under the new spec
  const o = JSON.parse(before1.text), n = JSON.parse(again.text);
  const ab = (r) => r.spec.pairs.findIndex((p) => p.join() === 'a,b');
  assert.deepEqual(n.points.filter((p) => p.pair === ab(n)).map((p) => ({ ...p, pair: 0 })),
    o.points.filter((p) => p.pair === ab(o)).map((p) => ({ ...p, pair: 0 })));
  assert.notDeepEqual(n.spec.kernels[2], o.spec.kernels[2]);
});

// (each kernel alone is simulated again all the same: 3 kernels in the
// pair template's 2 roles)
test('nothing changed: every point taken, only the kernels alone simulated', () => {
  const r = run('same', write('new.json', spec('spmv')), ['--reuse', whole2.out]);
  assert.match(r.stderr, /sweep: 0 points \(6 simulations\)/);
  assert.match(r.stderr, /sweep: 12 points taken from/);
  assert.equal(r.text, whole2.text);
});

test('what cannot be reused is refused with the file and the key, before any work', () => {
  const bad = (name, obj, args, re) => {
    const r = cli(['sweep', write(`${name}.json`, obj), '--db', join(dir, `${name}.db`), ...args]);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, re, name);
  };
  const old = before1.out;
  bad('goals', { ...spec('spmv'), goals: [0.7] }, ['--reuse', old],
    /^schedlab: .*old\.out\.json: spec: its goals is not this sweep's \(nothing of it can be reused\)\n$/);
  bad('schemes', { ...spec('spmv'), schemes: spec('spmv').schemes.slice(0, 1) }, ['--reuse', old],
    /old\.out\.json: spec: its schemes is not this sweep's/);
  bad('shard', spec('spmv'), ['--reuse', old, '--shard', '0/2'], /--reuse and --shard: one or the other/);
  const sh = write('a-shard.json', { ...JSON.parse(before1.text), shard: { index: 0, count: 2, points: 6 } });
  bad('of-shard', spec('spmv'), ['--reuse', sh], /a-shard\.json: shard: one shard's result, not the whole sweep's/);
  const cut = JSON.parse(before1.text);
  cut.points.pop();
  bad('cut', spec('spmv'), ['--reuse', write('cut.out.json', cut)], /cut\.out\.json: points: 11, where its 6 groups x 2 schemes x 1 goals are 12/);
  bad('missing', spec('spmv'), ['--reuse', join(dir, 'nope.json')], /nope\.json/);
  bad('gcaps', JSON.parse(readFileSync(join(SWEEPS, 'gcaps-fig8a-tasks.json'), 'utf8')), ['--reuse', old],
    /--reuse: only a QoS sweep's points are reused/);
});

// Each point of OLD.json goes into the result as it is, so each is checked
// first: a point of no group, scheme or goal of the sweep, or one given
// twice, is refused with its index.
test('a point that is not the sweep\'s, or given twice, is refused with its index', () => {
  const o = JSON.parse(before1.text);
  const cases = [
    ['goal', (r) => { r.points[3].goal = 0.65; }, /points\[3\]: not a point of this sweep/],
    ['scheme', (r) => { r.points[5].scheme = 'naive'; }, /points\[5\]: not a point of this sweep/],
    ['met', (r) => { delete r.points[0].qos_met; }, /points\[0\]: not a point of this sweep/],
    ['twice', (r) => { r.points[1] = { ...r.points[0] }; }, /points\[1\]: its group, scheme and goal a second time/],
  ];
  for (const [name, edit, re] of cases) {
    const r = structuredClone(o);
    edit(r);
    const c = cli(['sweep', write('p-new.json', spec('spmv')), '--db', join(dir, `p-${name}.db`),
      '--reuse', write(`p-${name}.out.json`, r)]);
    assert.equal(c.code, 2, `${name}: ${c.stderr}`);
    assert.match(c.stderr, re, name);
  }
});
