// qos_shipped_results.test.mjs -- the sweeps shipped computed
// (sweeps/results/, server/app/sweep_seed.c): ISCA'17's 90 Parboil pairs
// under Rollover and Spart and its trios, at §4.1's own parameters, take
// an hour or more of CPU each, so the default database stores their result
// files instead of running them. A file is only worth shipping while the
// simulator still gives its numbers: each is checked whole (every point of
// its spec, once), and a sample of it is simulated again here -- its first
// pair or trio of memory-bound kernels only (they issue the fewest
// instructions: 14 CPU-s for the three samples on the 2-core AMD EPYC,
// where the first group of each file took 29) at one goal under one
// scheme: in the first and third file
// the lowest goal under the spec's first scheme (Rollover), in the second
// the highest under its second (Spart), so that each scheme's code and
// both ends of the goals are run (every scheme of every file's first
// group was 60 s of make test's wall time) -- and must come out to
// the digit, with the spec (kernel programs, template, schemes) the same as
// the shipped spec file gives now. When a change to the model moves them,
// run the spec again (docs/qos.md, "The 90 Parboil pairs, Rollover and
// Spart, whole" and "The trios at the paper's parameters, whole"; a changed
// kernel program: `schedlab sweep SPEC --reuse` the shipped file, which
// simulates only its groups) and ship the new result.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

import { bin, getJson, startServer, tempDir } from './server.mjs';

const SWEEPS = resolve('sweeps');
const RESULTS = join(SWEEPS, 'results');
const shipped = readdirSync(RESULTS).filter((f) => f.endsWith('.json')).sort();

// A spec's pairs as listed, or "all": every ordered pair of different
// kernels of its set, in the set's order (docs/qos.md, "Spec").
function listed(spec) {
  if (spec.pairs !== 'all') return spec.pairs;
  const names = JSON.parse(readFileSync(join(SWEEPS, spec.kernels), 'utf8')).kernels.map((k) => k.name);
  return names.flatMap((q) => names.filter((o) => o !== q).map((o) => [q, o]));
}

// The spec with its reference (the paper's numbers, by scheme) cut to the
// schemes named: a spec refers only to schemes it computes.
function withRef(spec, names) {
  const ref = spec.reference;
  if (!ref) return spec;
  return { ...spec, reference: Object.fromEntries(Object.entries(ref).map(([k, v]) => [k, typeof v === 'object' && v !== null
    ? Object.fromEntries(Object.entries(v).filter(([s]) => names.includes(s))) : v])) };
}

// Each file's sample (below), all simulated at once, one thread each:
// the i-th file's first group of memory-bound kernels, at its lowest goal
// under its first scheme when i is even, its highest under its second
// when odd.
function sample(name, i) {
  const spec = JSON.parse(readFileSync(join(SWEEPS, name), 'utf8'));
  const cls = Object.fromEntries(JSON.parse(readFileSync(join(SWEEPS, spec.kernels), 'utf8')).kernels.map((k) => [k.name, k.class]));
  const group = listed(spec).findIndex((g) => g.every((k) => cls[k] === 'memory'));
  const goals = [i % 2 === 0 ? spec.goals[0] : spec.goals[spec.goals.length - 1]];
  const schemes = [spec.schemes[i % spec.schemes.length]];
  const file = join(dir, name), out = join(dir, `out-${name}`);
  writeFileSync(file, JSON.stringify({ ...withRef(spec, schemes.map((x) => x.name)), pairs: [listed(spec)[group]], goals, schemes,
    template: join(SWEEPS, spec.template), kernels: join(SWEEPS, spec.kernels) }));
  return new Promise((ok) => execFile(bin, ['sweep', file, '--db', join(dir, `${name}.db`), '-o', out, '--threads', '1'],
    (e, stdout, stderr) => ok({ code: e ? e.code ?? 1 : 0, stderr, out, goals, schemes, spec, group })));
}

let dir;
const samples = {};
before(() => {
  dir = tempDir('qos-shipped');
  shipped.forEach((name, i) => { samples[name] = sample(name, i); });
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('the shipped results are the paper-parameter pair sweep under Rollover and Spart and the two trio sweeps', () => {
  assert.deepEqual(shipped, ['isca17-parboil-paper-rollover-spart.json', 'isca17-parboil-trio1-paper.json',
    'isca17-parboil-trio2-paper.json']);
});

// what makes two runs of a spec the same sweep: all of the normalized spec
// but the points swept (pairs, goals)
const fixed = (spec) => {
  const { pairs, goals, ...rest } = spec;
  void pairs; void goals;
  return rest;
};

for (const name of shipped) {
  test(`${name}: the whole spec's result, every point once`, () => {
    const r = JSON.parse(readFileSync(join(RESULTS, name), 'utf8'));
    const spec = JSON.parse(readFileSync(join(SWEEPS, name), 'utf8'));
    assert.equal(r.schema, 'schedlab-sweep-result/1');
    assert.equal(r.kind, 'qos');
    assert.equal(r.shard, undefined, 'a shard, not the merged result');
    assert.equal(r.name, spec.name);
    const pairs = listed(spec);
    assert.deepEqual(r.spec.pairs, pairs);
    assert.deepEqual(r.spec.goals, spec.goals);
    assert.deepEqual(r.schemes, spec.schemes.map((s) => s.name));
    const seen = new Set();
    for (const p of r.points) {
      const key = `${p.pair} ${p.goal} ${p.scheme}`;
      assert.ok(!seen.has(key), `point ${key} twice`);
      seen.add(key);
      assert.ok(p.pair >= 0 && p.pair < pairs.length && spec.goals.includes(p.goal) && r.schemes.includes(p.scheme), key);
    }
    assert.equal(seen.size, pairs.length * spec.goals.length * spec.schemes.length);
  });

  test(`${name}: a sample simulated again gives the shipped numbers`, async () => {
    const r = JSON.parse(readFileSync(join(RESULTS, name), 'utf8'));
    const { code, stderr, out, goals, schemes, spec, group } = await samples[name];
    assert.ok(group >= 0, 'a group of memory-bound kernels only');
    assert.equal(code, 0, stderr);
    const now = JSON.parse(readFileSync(out, 'utf8'));
    const ran = r.spec.schemes.filter((x) => schemes.some((y) => y.name === x.name));
    assert.deepEqual(fixed(now.spec), fixed(withRef({ ...r.spec, schemes: ran }, schemes.map((x) => x.name))), 'the spec as it runs now (kernels, template, the scheme) is not the one the shipped result ran');
    assert.deepEqual(r.spec.schemes.map((x) => x.name), spec.schemes.map((x) => x.name), 'the shipped result ran the spec file\'s schemes');
    assert.equal(now.points.length, goals.length * schemes.length);
    for (const p of now.points) {
      assert.equal(p.pair, 0, 'the sample\'s one group');
      const q = r.points.find((x) => x.pair === group && x.goal === p.goal && x.scheme === p.scheme);
      assert.ok(q, `${p.scheme} at ${p.goal}: not in the shipped result`);
      assert.deepEqual({ ...p, pair: group }, q, `${p.scheme} at goal ${p.goal}: simulated now against shipped`);
    }
  });
}

// The shipped results, read whole by the relations below
const whole = (f) => JSON.parse(readFileSync(join(RESULTS, f), 'utf8'));
const gain = (r, what) => r[what].rollover / r[what].spart - 1;
const pct = (x) => `${(100 * x).toFixed(1)} %`;

// The paper's pair relations over the whole pair spec under Rollover and
// Spart (docs/qos.md, "The 90 Parboil pairs, Rollover and Spart, whole"),
// with the tolerances qos_parboil.test.mjs gives them on its 12 points;
// where the model does not reach one, a todo with the measured gap. The
// numbers are the shipped file's, which the tests above hold to the
// simulator.
const pairsFile = 'isca17-parboil-paper-rollover-spart.json';
const byPoint = (r, s, f) => r.points.filter((p) => p.scheme === s && f(p));
const metShare = (r, s, f) => byPoint(r, s, (p) => p.qos_met && f(p)).length / byPoint(r, s, f).length;
const meanTp = (pts) => pts.reduce((a, p) => a + p.throughput, 0) / pts.length;

// Fig. 6a: Rollover 88.4 % against Spart's 78.8 %: at least 5 points ahead
test('whole pair spec, ISCA\'17 §4.2, Fig. 6a: Rollover >= Spart + 5 points in QoSreach', () => {
  const r = whole(pairsFile);
  // every number beside the paper's, printed
  const classes = [...new Set(r.pairs.map((p) => p.classes))].sort();
  for (const s of ['rollover', 'spart']) {
    const byClass = classes.map((c) => `${c} ${pct(metShare(r, s, (p) => r.pairs[p.pair].classes === c))}`).join(', ');
    console.log(`# ${s}: QoSreach ${pct(r.qosreach[s])} (paper ${s === 'rollover' ? 88.4 : 78.8} %), by class ${byClass}; ` +
      `non-QoS throughput ${pct(r.throughput[s])}, overshoot ${pct(r.overshoot[s])} (paper ${s === 'rollover' ? 2.8 : 11.6} %)`);
  }
  assert.ok(r.qosreach.rollover >= r.qosreach.spart + 0.05, `Rollover ${pct(r.qosreach.rollover)}, Spart ${pct(r.qosreach.spart)}`);
});

// Fig. 7: Rollover ahead of Spart in every class of pair
test('whole pair spec, ISCA\'17 §4.2, Fig. 7: Rollover >= Spart in QoSreach in every pair class', () => {
  const r = whole(pairsFile);
  for (const c of new Set(r.pairs.map((p) => p.classes))) {
    const f = (p) => r.pairs[p.pair].classes === c;
    assert.ok(metShare(r, 'rollover', f) >= metShare(r, 'spart', f),
      `${c}: Rollover ${pct(metShare(r, 'rollover', f))}, Spart ${pct(metShare(r, 'spart', f))}`);
  }
});

// Fig. 8a: 15.9 % above Spart on average (tolerance: at least 8 %; each
// scheme's throughput pooled over its met points, as qos_parboil.test.mjs
// takes it: docs/qos.md, "How Fig. 8's average is read"; read per goal,
// 0.97 x and 0.94 x, short too)
test('whole pair spec, ISCA\'17 §4.3, Fig. 8a: Rollover\'s non-QoS throughput >= 1.08 x Spart\'s',
  { todo: 'measured 40.1 % against 43.7 % (0.92 x) over each scheme\'s met points of the 1,800; 1.02 x on the 702 points both meet' }, () => {
  const r = whole(pairsFile);
  assert.ok(r.throughput.rollover >= 1.08 * r.throughput.spart, `Rollover ${pct(r.throughput.rollover)}, Spart ${pct(r.throughput.spart)}`);
});

// Fig. 8a: "The improvement also increases along the x-axis": larger at
// 0.9 than at 0.5 (held by 0.4 points until sgemm's B load was written at
// its compulsory DRAM traffic, 2026-12-04: docs/qos.md)
test('whole pair spec, ISCA\'17 §4.3, Fig. 8a: Rollover\'s throughput lead over Spart larger at goal 0.9 than at 0.5',
  { todo: 'measured -0.9 points at 0.9 (16.6 against 17.4 %) against -0.5 at 0.5 (63.5 against 64.0 %)' }, () => {
  const r = whole(pairsFile);
  const lead = (g) => meanTp(byPoint(r, 'rollover', (p) => p.qos_met && p.goal === g)) -
    meanTp(byPoint(r, 'spart', (p) => p.qos_met && p.goal === g));
  assert.ok(lead(0.9) > lead(0.5), `lead at 0.9 ${pct(lead(0.9))}, at 0.5 ${pct(lead(0.5))}`);
});

// Fig. 9: met QoS kernels overshoot by 2.8 % under Rollover, 11.6 % under Spart
test('whole pair spec, ISCA\'17 §4.4, Fig. 9: Rollover overshoots its goals less than Spart', () => {
  const r = whole(pairsFile);
  assert.ok(r.overshoot.rollover < r.overshoot.spart, `Rollover ${pct(r.overshoot.rollover)}, Spart ${pct(r.overshoot.spart)}`);
});

// The paper's trio relations over the whole specs (docs/qos.md, "The trios
// at the paper's parameters, whole"), as qos_parboil_trio.test.mjs takes
// them on its 24 points: the gains are relative (§4.2's pairs' "12.2%
// improvement over Spart" is 88.4 / 78.8), the tolerance half of each;
// where the model does not reach one, a todo with the measured gap. The
// numbers are the shipped files', which the tests above hold to the
// simulator.
const trio1 = 'isca17-parboil-trio1-paper.json', trio2 = 'isca17-parboil-trio2-paper.json';

// Fig. 6b: "Rollover reaches QoS goals more often than Spart by 18.8%"
test('whole trio spec, ISCA\'17 §4.2, Fig. 6b: one QoS kernel, Rollover meets goals at least 9.4 % more often than Spart', () => {
  const r = whole(trio1);
  assert.ok(gain(r, 'qosreach') >= 0.094, `Rollover ${pct(r.qosreach.rollover)}, Spart ${pct(r.qosreach.spart)}`);
});

// Fig. 8b: +19.9 % ("Rollover has higher throughput than Spart in all cases")
test('whole trio spec, ISCA\'17 §4.3, Fig. 8b: one QoS kernel, Rollover\'s non-QoS throughput at least Spart\'s',
  { todo: 'measured 20.0 % against 24.8 % over the met points (-19.4 %); -1.9 % on the 361 points both meet' }, () => {
    const r = whole(trio1);
    assert.ok(gain(r, 'throughput') >= 0, `Rollover ${pct(r.throughput.rollover)}, Spart ${pct(r.throughput.spart)}`);
  });

// Fig. 6c: +43.8 %
test('whole trio spec, ISCA\'17 §4.2, Fig. 6c: two QoS kernels, Rollover meets goals at least 21.9 % more often than Spart',
  { todo: 'measured 65.2 % against 55.8 % (+16.7 %); the 150K-cycle reduced sweep has +50.0 %' }, () => {
    const r = whole(trio2);
    assert.ok(gain(r, 'qosreach') >= 0.219, `Rollover ${pct(r.qosreach.rollover)}, Spart ${pct(r.qosreach.spart)}`);
  });

// §4.2: Spart "failed to reach any QoS goal in the (70%, 70%) cases"
test('whole trio spec, ISCA\'17 §4.2: two QoS kernels, Spart meets none of the (70 %, 70 %) points; Rollover some', () => {
  const r = whole(trio2);
  const at = (s) => r.points.filter((p) => p.scheme === s && p.goal === 0.7);
  assert.equal(at('spart').length, 60);
  assert.equal(at('spart').filter((p) => p.qos_met).length, 0);
  assert.ok(at('rollover').some((p) => p.qos_met));
});

// Fig. 8c: +20.5 %
test('whole trio spec, ISCA\'17 §4.3, Fig. 8c: two QoS kernels, Rollover\'s non-QoS throughput at least Spart\'s',
  { todo: 'measured 31.9 % against 39.7 % over the met points (-19.5 %); -7.7 % on the 326 points both meet' }, () => {
    const r = whole(trio2);
    assert.ok(gain(r, 'throughput') >= 0, `Rollover ${pct(r.throughput.rollover)}, Spart ${pct(r.throughput.spart)}`);
  });

// Bad shipped results: a shard's file and a cut one are refused at first
// start, each with its path and what is wrong, and nothing of either is
// stored (the computed sweeps' specs are absent here: their warnings too).
test('a shipped result that is one shard\'s, or cut short, is refused with its path; nothing stored', async () => {
  const root = join(dir, 'bad');
  mkdirSync(join(root, 'scenarios'), { recursive: true });
  mkdirSync(join(root, 'sweeps', 'results'), { recursive: true });
  const whole = readFileSync(join(RESULTS, shipped[0]), 'utf8');
  const shard = { ...JSON.parse(whole), shard: { index: 0, count: 4, points: 300 } };
  writeFileSync(join(root, 'sweeps', 'results', shipped[0]), JSON.stringify(shard));
  writeFileSync(join(root, 'sweeps', 'results', shipped[1]), '{"schema": "schedlab-sweep-result/1", "points": [');
  const srv = await startServer({ fresh: true, args: ['--scenarios', join(root, 'scenarios')] });
  try {
    const err = srv.stderr();
    const at = (f) => join(root, 'sweeps', 'results', f);
    assert.ok(err.includes(`warning: the shipped sweep ${shipped[0]} not stored: ${at(shipped[0])}: shard: one shard's result, not the whole sweep's`), err);
    assert.match(err, new RegExp(`warning: the shipped sweep ${shipped[1]} not stored: ${at(shipped[1]).replace(/[.]/g, '\\.')}:1:\\d+: `));
    const { experiments } = (await getJson(`${srv.base}/api/experiments`)).body;
    assert.deepEqual(experiments.filter((e) => e.source === 'sweep'), []);
  } finally { await srv.stop(); }
});
