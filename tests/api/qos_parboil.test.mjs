// qos_parboil.test.mjs -- the ISCA'17 QoSreach sweep on the paper's own
// benchmarks (issue 26, its first point): the 10 Parboil kernels of §4.1 in
// the kernel library (scenarios/kernels/), the kernel set that names them
// (sweeps/isca17-parboil.json), each kernel's class checked against what
// bounds it alone on the paper's Table 1 device, and the reduced spec
// (sweeps/isca17-parboil-reduced.json: 4 pairs, one per class of Fig. 7, x
// goals 0.5 / 0.6 / 0.9 x Naive, Elastic, Rollover, Rollover-Time, Spart
// as the paper runs it (§4.1 after [3]: SMs moved at run time, preempted)
// and spart-offline (the best fixed partition, an upper bound);
// about a minute of CPU) with the relations issue 26 lists, each derived from the paper with
// its tolerance next to it; where the model does not reach one, a todo test
// with the measured gap (docs/qos.md "The Parboil kernel set").
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, tempDir } from './server.mjs';

const SWEEPS = resolve('sweeps');
const LIB = resolve('scenarios/kernels');
// ISCA'17 §4.1: "We use 10 benchmarks from the Parboil benchmark set [36].
// bfs is not used"; Parboil 2.5's eleven less bfs, named as the paper does
// ("histo", §4.2)
const PARBOIL = ['cutcp', 'histo', 'lbm', 'mri-gridding', 'mri-q', 'sad', 'sgemm', 'spmv', 'stencil', 'tpacf'];
// isca17-gpgpusim (simcore/presets.c, ISCA'17 Table 1 and GPGPU-Sim): 16
// SMs whose front end fetches one warp's 2 instructions a cycle (fetch_warps
// 1, ibuffer 2), so at most 32 warp instructions a cycle issue; 4 memory
// controllers at 7 GHz serve 1.44 128-byte requests a cycle
const ISSUE_CAP = 16 * 1 * 2;
const MEM_CAP = 1.44;

let dir;
before(() => { dir = tempDir('qos-parboil'); });
after(() => rmSync(dir, { recursive: true, force: true }));

const lib = (name) => JSON.parse(readFileSync(join(LIB, `${name}.json`), 'utf8'));
// a shipped sweep file (a spec, template or kernel set) by its name
const load = (f) => JSON.parse(readFileSync(join(SWEEPS, f), 'utf8'));
const kset = load('isca17-parboil.json');

// a sweep of a spec object, or of a spec file (its own folder resolves its
// template and kernel set)
function sweep(name, spec) {
  let p = spec;
  if (typeof spec !== 'string') {
    p = join(dir, `${name}-spec.json`);
    writeFileSync(p, JSON.stringify(spec));
  }
  const out = join(dir, `${name}.json`);
  const r = cli(['sweep', p, '--db', join(dir, `${name}.db`), '-o', out]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(readFileSync(out, 'utf8'));
}

test('the 10 Parboil kernels are in the library, each from its CUDA source, and the kernel set names them', () => {
  assert.deepEqual(kset.kernels.map((k) => k.name), PARBOIL);
  for (const k of kset.kernels) {
    assert.equal(k.program, k.name, 'the set names the library kernel');
    const f = lib(k.name);
    assert.equal(f.schema, 'schedlab-kernel/1');
    assert.equal(f.name, k.name);
    // which source file and which kernel it follows
    assert.match(f.source, new RegExp(`Parboil.*benchmarks/${k.name}/src/cuda/[\\w.]+\\.cu, \\w+`), k.name);
    assert.ok(f.blocks > 0 && f.threads > 0 && f.program.repeat > 0, k.name);
    // no scoreboard: the shipped ISCA'17 results were made so (NAME-scoreboard is
    // the set's NAME with one, below: docs/qos.md, "A scoreboard under the quota schemes")
    for (const e of f.program.body) assert.equal(e.dep, undefined, k.name);
  }
});

// a program's instruction stream, each entry's count expanded, its dep left out
const stream = (p) => p.body.flatMap((e) => {
  const { count = 1, dep: _dep, ...op } = e;
  return Array.from({ length: count }, () => JSON.stringify(op));
});

test('each Parboil kernel with its scoreboard is the kernel, the same instructions, each with what it reads', () => {
  const sb = load('isca17-parboil-scoreboard.json');
  assert.deepEqual(sb.kernels.map((k) => [k.name, k.class]), kset.kernels.map((k) => [k.name, k.class]));
  for (const k of sb.kernels) {
    assert.equal(k.program, `${k.name}-scoreboard`);
    const f = lib(k.program), base = lib(k.name);
    assert.equal(f.name, k.program);
    for (const key of ['source', 'blocks', 'threads', 'smem', 'registers']) assert.deepEqual(f[key], base[key], `${k.program}: ${key}`);
    assert.equal(f.program.repeat, base.program.repeat, k.program);
    assert.deepEqual(stream(f.program), stream(base.program), `${k.program}: the instructions of ${k.name}`);
    // every entry says what it reads (docs/scenario-format.md: at most 3
    // distances, each 1..31; 0 or [] for nothing pending)
    for (const [i, e] of f.program.body.entries()) {
      assert.ok(e.dep !== undefined, `${k.program}: body[${i}] has no dep`);
      const d = Array.isArray(e.dep) ? e.dep : e.dep === 0 ? [] : [e.dep];
      assert.ok(d.length <= 3 && d.every((x) => Number.isInteger(x) && x >= 1 && x <= 31), `${k.program}: body[${i}].dep`);
    }
  }
});

test('a kernel set naming a kernel the library lacks: one line naming the place', () => {
  const spec = join(dir, 'bad.json');
  writeFileSync(spec, JSON.stringify({
    schema: 'schedlab-sweep/1', kind: 'qos', name: 'bad', template: join(SWEEPS, 'isca17-pair.json'),
    kernels: [{ name: 'a', class: 'compute', program: 'sgem' }, { name: 'b', class: 'memory', program: 'lbm' }],
    pairs: 'all', goals: [0.5], schemes: [{ name: 'naive', policy: { warp: 'quota-naive' } }],
  }));
  const r = cli(['sweep', spec, '--db', join(dir, 'bad.db')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /kernels\[0\]\.program: "sgem" is not in the kernel library \(did you mean "sgemm"\?\)\n$/);
});

// Each kernel alone on isca17-gpgpusim (the sweep's isolated runs over the
// shipped template's 150K-cycle window; the pairs only give each kernel a
// role: the non-QoS roles go to the kernels that are quick to simulate
// whole, since a quota run simulates its non-QoS kernel alone to its end
// for the trace's ipc_isolated): a compute kernel is bound by issue (at least
// 95 % of the front end's 32 warp instructions a cycle) and asks the memory
// at most half its 1.44 requests a cycle; a memory kernel draws at least
// 80 % of them over the window (histo's second wave is 10 blocks on 16
// SMs: 1.22 over the window, 1.44 in its first wave).
test('each Parboil kernel alone is bound by what its class says (issue for compute, DRAM bandwidth for memory)', () => {
  const res = sweep('alone', {
    schema: 'schedlab-sweep/1', kind: 'qos', name: 'alone', template: join(SWEEPS, 'isca17-pair.json'),
    kernels: join(SWEEPS, 'isca17-parboil.json'),
    pairs: [['cutcp', 'histo'], ['mri-gridding', 'lbm'], ['mri-q', 'spmv'], ['sad', 'stencil'], ['tpacf', 'sgemm']],
    goals: [0.5], schemes: [{ name: 'naive', policy: { warp: 'quota-naive' } }],
  });
  const rows = [];
  for (const k of res.kernels) {
    const p = lib(k.name).program;
    const len = p.body.reduce((a, e) => a + e.count, 0);
    const mem = p.body.filter((e) => e.op === 'mem').reduce((a, e) => a + e.count, 0);
    const ipc = k.ipc_isolated || k.ipc_isolated_other;
    const req = (ipc * mem * (p.mem_requests || 1)) / len;
    rows.push(`${k.name} ${k.class}: IPC ${ipc.toFixed(2)}, ${req.toFixed(3)} requests/cycle`);
    if (k.class === 'compute') {
      assert.ok(ipc >= 0.95 * ISSUE_CAP, rows.at(-1));
      assert.ok(req <= 0.5 * MEM_CAP, rows.at(-1));
    } else {
      assert.ok(req >= 0.8 * MEM_CAP && req <= MEM_CAP * 1.001, rows.at(-1));
    }
  }
  console.log(rows.join('\n'));
});

let res;
test('the reduced Parboil sweep runs: 4 pairs, one per class, x 3 goals x 6 schemes', () => {
  res = sweep('reduced', join(SWEEPS, 'isca17-parboil-reduced.json'));
  assert.deepEqual(res.schemes, ['naive', 'elastic', 'rollover', 'rollover-time', 'spart', 'spart-offline']);
  assert.deepEqual(res.pairs.map((p) => p.classes), ['C+C', 'C+M', 'M+C', 'M+M']);
  assert.equal(res.points.length, 4 * 3 * 6);
  // the result's spec holds the library's programs, resolved
  for (const k of res.spec.kernels) assert.deepEqual(k.program, lib(k.name).program, k.name);
  const pct = (x) => (x === null ? '-' : `${(100 * x).toFixed(1)} %`);
  for (const s of res.schemes) {
    console.log(`${s}: QoSreach ${pct(res.qosreach[s])}, non-QoS throughput ${pct(res.throughput[s])}, ` +
      `overshoot ${pct(res.overshoot[s])}`);
  }
});

const reach = (s, cls) => {
  const pts = res.points.filter((p) => p.scheme === s && (!cls || res.pairs[p.pair].classes === cls));
  return pts.filter((p) => p.qos_met).length / pts.length;
};
// a scheme's non-QoS throughput at goal g (its met points only, §4.1)
const tpAt = (s, g) => res.throughput_by_goal[s][res.goals.indexOf(g)];

// §4.2, Fig. 6a: Naive 20.6 %, Spart 78.8 %, Rollover 88.4 % (+9.6 points
// over Spart); tolerances: Naive at most 25 % (+4.4 points), Spart at least
// Elastic (issue 26; the paper's Elastic lies between Naive and Rollover),
// per class of Fig. 7 Rollover at least Spart ("for C+C kernels, Spart and
// Rollover meet QoS goals in all cases ... for M+M kernels, Spart does
// worse than Rollover ... The same principle applies to the C+M kernels").
test('ISCA\'17 §4.2 on the reduced Parboil sweep: Naive <= 25 %, Rollover >= Spart in every class', () => {
  assert.ok(res.qosreach.naive <= 0.25, `Naive ${res.qosreach.naive}`);
  for (const c of ['C+C', 'C+M', 'M+C', 'M+M'])
    assert.ok(reach('rollover', c) >= reach('spart', c), `${c}: Rollover ${reach('rollover', c)}, Spart ${reach('spart', c)}`);
});

// Spart at least Elastic: since the counters carry their debt (quota.h),
// Elastic meets every point of this short sample (2K-cycle epochs over
// 150K cycles; 10 of 12 before), overshooting by 14.7 %: a non-QoS kernel
// that used its quota while the QoS kernel still had some is blocked to
// the epoch's end and now pays what it over-used in the next, so the QoS
// kernel gets more issue slots; docs/qos.md has Elastic at §4.1's own
// parameters.
test('ISCA\'17 §4.2 on the reduced Parboil sweep: Spart >= Elastic',
  { todo: 'measured Elastic 100 % (overshoot 14.8 %) against Spart 91.7 %' }, () => {
    assert.ok(res.qosreach.spart >= res.qosreach.elastic, `Spart ${res.qosreach.spart}, Elastic ${res.qosreach.elastic}`);
  });

// Issue 26: a compute QoS kernel at goal 0.6 beside a memory-bound kernel,
// and the reverse, both met by Rollover (§4.2: "The same principle applies
// to the C+M kernels where Rollover also outperforms Spart"); every
// scheme's attainment printed.
test('ISCA\'17 §4.2: at goal 0.6, sgemm beside lbm and lbm beside sgemm are both met by Rollover', () => {
  for (const cls of ['C+M', 'M+C']) {
    const pts = res.points.filter((p) => p.goal === 0.6 && res.pairs[p.pair].classes === cls);
    console.log(`${cls} at 0.6: ` + pts.map((p) => `${p.scheme} ${p.attained.toFixed(3)}`).join(', '));
    assert.ok(pts.find((p) => p.scheme === 'rollover').qos_met, cls);
  }
});

// ISCA'17 §4.5, Figs. 10-11, on the benchmarks the paper measured them on:
// Rollover-Time (the non-QoS kernels blocked until the QoS kernels have
// used their quotas) has "similar QoSreach with a difference of only 3% on
// average" -- here within one point of the 12 (8.3 %, the reduced sweep's
// step) -- but "degraded performance of non-QoS kernels by 1.47X" (Fig.
// 11) -- here within a quarter of it, 1.10-1.84X, the tolerance
// qos.test.mjs gives the same relation on the synthetic set.
test('ISCA\'17 §4.5, Figs. 10-11 on the reduced Parboil sweep: Rollover-Time as often met as Rollover, its non-QoS kernels 1.47X slower', () => {
  const q = res.qosreach, t = res.throughput;
  assert.ok(Math.abs(q.rollover - q['rollover-time']) <= 1 / 12 + 1e-9,
    `QoSreach rollover ${q.rollover} vs rollover-time ${q['rollover-time']}`);
  const r = t.rollover / t['rollover-time'];
  console.log(`Rollover / Rollover-Time non-QoS throughput: ${r.toFixed(2)}X (paper 1.47X)`);
  assert.ok(r >= 1.47 * 0.75 && r <= 1.47 * 1.25, `Rollover / Rollover-Time throughput ${r.toFixed(2)}X, paper 1.47X`);
});

// §4.2, Fig. 6a: Rollover 88.4 % against Spart's 78.8 %: at least 5 points
// ahead (about half the paper's 9.6). Spart as §4.1 runs it, at run time
// (spart-offline, which knows every fixed partition's result in advance,
// meets every point here).
test('ISCA\'17 §4.2, Fig. 6a: Rollover >= Spart + 5 points in QoSreach', () => {
  assert.ok(res.qosreach.rollover >= res.qosreach.spart + 0.05,
    `Rollover ${res.qosreach.rollover}, Spart ${res.qosreach.spart}`);
});

// §4.3, Fig. 8a: the non-QoS kernels' throughput under Rollover is 15.9 %
// above Spart's on average (tolerance: at least 8 %), and "the improvement
// also increases along the x-axis (higher QoS goals)": larger at 0.9 than
// at 0.5. The average is each scheme's throughput pooled over its met
// points; the paper does not say which average it took, and the per-goal
// readings give other verdicts (docs/qos.md, "How Fig. 8's average is
// read").
// (1.085 x: 43.5 % against 40.1 %, since sgemm's B load is written at its
// compulsory DRAM traffic; before, 1.05 x and a todo)
test('ISCA\'17 §4.3, Fig. 8a: Rollover\'s non-QoS throughput >= 1.08 x Spart\'s', () => {
  assert.ok(res.throughput.rollover >= 1.08 * res.throughput.spart,
    `Rollover ${res.throughput.rollover}, Spart ${res.throughput.spart}`);
});

test('ISCA\'17 §4.3, Fig. 8a: Rollover\'s throughput lead over Spart larger at goal 0.9 than at 0.5', { todo: 'measured 12.4 - 15.4 = -3.1 points at 0.9, 62.3 - 53.9 = +8.3 points at 0.5' }, () => {
  const at = (g) => tpAt('rollover', g) - tpAt('spart', g);
  assert.ok(at(0.9) > at(0.5), `lead at 0.9 ${at(0.9)}, at 0.5 ${at(0.5)}`);
});

// §4.4, Fig. 9: met QoS kernels overshoot by 2.8 % under Rollover and
// 11.6 % under Spart: Rollover's below Spart's. (A met point's IPC is at
// least goal x IPC_isolated by the definition of met; asserted for the
// record in qos.test.mjs.)
test('ISCA\'17 §4.4, Fig. 9: Rollover overshoots its goals less than Spart', () => {
  assert.ok(res.overshoot.rollover < res.overshoot.spart, `Rollover ${res.overshoot.rollover}, Spart ${res.overshoot.spart}`);
});

// ISCA'17 §3.6, run-time adjustment: "QoS goals for some QoS kernels are
// hard to reach due to the lack of TLP and having more TBs will increase
// the kernel's TLP". mri-q alone holds 8 TBs (64 warps) on each SM; §3.6's
// equal share leaves it 4 beside any kernel, and 32 of its latency-bound
// warps issue 1.35 of the SM's 2 instructions a cycle: 0.67 of isolated
// (docs/qos.md, worked out by hand), so Rollover misses goals 0.7 and 0.9.
// With policy.tb_adjust (one more TB per SM and epoch while IPC_history is
// below the goal and at most one TB is idle, swapped in by preempting the
// non-QoS kernel's) it meets all four points.
test('ISCA\'17 §3.6: with the run-time TB adjustment Rollover meets mri-q at 0.7 and 0.9 beside sgemm and lbm', () => {
  const spec = load('isca17-parboil-reduced.json');
  const r = sweep('adjust', {
    ...spec, name: 'tb adjust', template: join(SWEEPS, spec.template), kernels: join(SWEEPS, spec.kernels),
    pairs: [['mri-q', 'sgemm'], ['mri-q', 'lbm']], goals: [0.7, 0.9],
    schemes: [{ name: 'rollover', policy: { warp: 'quota-rollover' } },
      { name: 'rollover-adjust', policy: { warp: 'quota-rollover', tb_adjust: true, sm_preempt: '14080cycles' } }],
  });
  const rows = r.points.map((p) => `${r.pairs[p.pair].qos}+${r.pairs[p.pair].other} ${p.goal} ${p.scheme}: ` +
    `${p.attained.toFixed(3)} of isolated, non-QoS ${p.throughput.toFixed(3)}`);
  console.log(rows.join('\n'));
  for (const p of r.points) {
    if (p.scheme === 'rollover') assert.ok(!p.qos_met && p.attained < 0.68, rows.join('\n'));
    else assert.ok(p.qos_met, rows.join('\n'));
  }
});

// ISCA'17 §4.8's ablation of §3.4.2's history-based adjustment
// (policy.quota_history false): "When disabling history-based quota
// adjustment, QoSreach drops significantly for all categories. Overall,
// enabling it covers 86.4% more cases than disabling it." Read for Rollover,
// the scheme the paper carries through §4.2-4.7: on the reduced sweep's 12
// points it must meet fewer without it (asserted), and with it at least
// 1.432 times as many (half the paper's +86.4 %, the tolerance the trio
// tests take). Measured 100 against 75.0 %, 1.33 x, since sgemm's B load
// is written at its compulsory DRAM traffic (without the adjustment
// Rollover now also meets sgemm + mri-q and lbm + sgemm at 0.9); 1.71 x
// before it, and 1.20 x before the counters carried their debt
// (docs/qos.md "§4.8: the history-based adjustment turned off").
let noHistory;
const noHistoryReach = () => {
  if (!noHistory) {
    const spec = load('isca17-parboil-reduced.json');
    noHistory = sweep('no-history', {
      ...spec, name: 'no history', template: join(SWEEPS, spec.template), kernels: join(SWEEPS, spec.kernels),
      schemes: [{ name: 'rollover-no-history', policy: { warp: 'quota-rollover', quota_history: false } }],
    });
    const pct = (x) => `${(100 * x).toFixed(1)} %`;
    console.log(`Rollover QoSreach with §3.4.2's adjustment ${pct(res.qosreach.rollover)}, ` +
      `without ${pct(noHistory.qosreach['rollover-no-history'])} (paper: +86.4 % more cases with it)`);
  }
  return noHistory.qosreach['rollover-no-history'];
};

test('ISCA\'17 §4.8: without the history-based adjustment Rollover meets fewer goals', () => {
  const without = noHistoryReach();
  assert.ok(without < res.qosreach.rollover, `with ${res.qosreach.rollover}, without ${without}`);
});

test('ISCA\'17 §4.8: with the history-based adjustment Rollover meets >= 1.432 x as many goals (paper 1.864 x)',
  { todo: 'measured 100 % against 75.0 % (1.33 x) on the reduced Parboil sweep' }, () => {
  const without = noHistoryReach();
  assert.ok(res.qosreach.rollover >= 1.432 * without, `with ${res.qosreach.rollover}, without ${without}`);
});

// §4.8's three ablations at the paper's parameters, as one spec
// (docs/qos.md gives its numbers; 1,080 points, about 50 minutes, so not run
// here): Rollover as the paper-parameter spec runs it, and three variants
// that each change exactly one thing of it -- without §3.4.2's history-based
// adjustment, without §3.6's TB adjustment, with its preemption free.
test('ISCA\'17 §4.8: the ablation spec is the paper spec\'s Rollover with one mechanism off in each variant', () => {
  const abl = load('isca17-parboil-paper-ablations.json'), full = load('isca17-parboil-paper.json');
  for (const k of ['kind', 'template', 'kernels', 'pairs', 'other_repeat']) assert.deepEqual(abl[k], full[k], k);
  assert.deepEqual(abl.goals, [0.5, 0.7, 0.9]);
  const base = full.schemes.find((x) => x.name === 'rollover').policy;
  assert.deepEqual(abl.schemes, [
    { name: 'rollover', policy: base },
    { name: 'rollover-no-history', policy: { ...base, quota_history: false } },
    { name: 'rollover-no-tb-adjust', policy: { warp: base.warp } },
    { name: 'rollover-free-preemption', policy: { ...base, sm_preempt: '0cycles' } },
  ]);
});

// §4.6's 56-SM GPU on the Parboil kernels (Figs. 12-13; docs/qos.md, "The
// 56-SM GPU", gives a measured sample; hours whole, so not run here): the
// paper spec's Rollover and Spart on its template with only the device
// changed, "56 SMs, each SM having two warp schedulers. Other simulation
// parameters are the same as the ones in Table 1."
test('ISCA\'17 §4.6: the 56-SM Parboil spec is the paper spec\'s Rollover and Spart on the 56-SM GPU', () => {
  const s56 = load('isca17-parboil-paper-56.json'), full = load('isca17-parboil-paper.json');
  for (const k of ['kind', 'kernels', 'pairs', 'goals', 'other_repeat']) assert.deepEqual(s56[k], full[k], k);
  assert.deepEqual(s56.schemes, full.schemes.filter((x) => x.name === 'rollover' || x.name === 'spart'));
  const t56 = load(s56.template), t = load(full.template);
  assert.equal(t56.device, 'isca17-gpgpusim-56');
  // everything but its name, description and device is the 16-SM template's
  assert.deepEqual({ ...t56, name: t.name, description: t.description, device: t.device }, t);
});

// Spart's floor at the paper's parameters, as one spec (docs/qos.md,
// "Spart's floor", gives its numbers from shards 0 and 1 of 6; hours whole,
// so not run here): the paper spec's Rollover and Spart, and that Spart
// with exactly one thing changed, the other kernel's last SM taken
// (policy.spart_take_last).
test('ISCA\'17 §4.2: the Spart-floor spec is the paper spec\'s Rollover and Spart, and that Spart taking the last SM', () => {
  const floor = load('isca17-parboil-paper-spart-floor.json'), full = load('isca17-parboil-paper.json');
  for (const k of ['kind', 'template', 'kernels', 'pairs', 'goals', 'other_repeat']) assert.deepEqual(floor[k], full[k], k);
  const spart = full.schemes.find((x) => x.name === 'spart');
  assert.equal(spart.policy.placement, 'spart-climb');
  assert.deepEqual(floor.schemes, [
    full.schemes.find((x) => x.name === 'rollover'),
    spart,
    { name: 'spart-take-last', policy: { ...spart.policy, spart_take_last: true } },
  ]);
});

// Spart's give-back at the paper's parameters, as one spec (docs/qos.md,
// "Spart's give-back", gives its numbers, the whole 90 pairs at the ten
// goals; hours, so not run here): the paper spec's Rollover and Spart, and
// that Spart with exactly one thing changed each time: no SM given back
// (policy.spart_take_only), or SMs given back by trial (policy.spart_trial);
// then by trial with the other kernel's last SM taken too
// (policy.spart_take_last, §4.2's C+C reading, "Spart's floor").
test('ISCA\'17 §4.4: the Spart give-back spec is the paper spec\'s Rollover and Spart, that Spart only taking, by trial, and by trial taking the last SM', () => {
  const gb = load('isca17-parboil-paper-spart-give-back.json'), full = load('isca17-parboil-paper.json');
  for (const k of ['kind', 'template', 'kernels', 'pairs', 'goals', 'other_repeat']) assert.deepEqual(gb[k], full[k], k);
  const spart = full.schemes.find((x) => x.name === 'spart');
  assert.deepEqual(gb.schemes, [
    full.schemes.find((x) => x.name === 'rollover'),
    spart,
    { name: 'spart-take-only', policy: { ...spart.policy, spart_take_only: true } },
    { name: 'spart-trial', policy: { ...spart.policy, spart_trial: true } },
    { name: 'spart-trial-take-last', policy: { ...spart.policy, spart_trial: true, spart_take_last: true } },
  ]);
  // the option reaches the simulator's checks, which a sweep makes before
  // it runs anything: on another placement it is refused with exit 2,
  // naming the scheme and the key, and no database is left behind
  const bad = join(dir, 'take-only-bad.json');
  writeFileSync(bad, JSON.stringify({ ...gb, template: join(SWEEPS, gb.template), kernels: join(SWEEPS, gb.kernels),
    pairs: [['sgemm', 'lbm']], goals: [0.5],
    schemes: [{ name: 'x', policy: { placement: 'most-room', warp: 'gto', spart_take_only: true } }] }));
  const r = cli(['sweep', bad, '--db', join(dir, 'take-only-bad.db')]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /take-only-bad\.json: schemes\[0\] "x": policy\.spart_take_only: only placement "spart-climb" moves SMs between partitions \(here "most-room"\)\n$/);
  assert.ok(!existsSync(join(dir, 'take-only-bad.db')));
  // the two options contradict each other: refused the same way
  writeFileSync(bad, JSON.stringify({ ...gb, template: join(SWEEPS, gb.template), kernels: join(SWEEPS, gb.kernels),
    pairs: [['sgemm', 'lbm']], goals: [0.5],
    schemes: [{ name: 'both', policy: { ...spart.policy, spart_take_only: true, spart_trial: true } }] }));
  const r2 = cli(['sweep', bad, '--db', join(dir, 'take-only-bad.db')]);
  assert.equal(r2.code, 2, r2.stderr);
  assert.match(r2.stderr, /take-only-bad\.json: schemes\[0\] "both": policy\.spart_trial: the climb gives SMs back by trial, and spart_take_only says it gives none back; give one of the two\n$/);
  assert.ok(!existsSync(join(dir, 'take-only-bad.db')));
});

// The reduced spec at ISCA'17 §4.1's own parameters (10K-cycle epochs, a
// 2M-cycle window, each program re-executed, and §3.6's run-time TB
// adjustment under every quota scheme: §4.1 "We sample 100 times per epoch
// for the number of idle warps and use the average for TB adjustment"):
// the same pairs, goals and schemes on the paper-parameter template
// (docs/qos.md gives its numbers; minutes of CPU, so not run here); and the
// whole sweep there.
test('ISCA\'17 §4.1: the reduced Parboil spec at the paper\'s parameters is the reduced one on its template', () => {
  const paper = load('isca17-parboil-paper-reduced.json'), reduced = load('isca17-parboil-reduced.json');
  for (const k of ['kind', 'kernels', 'pairs', 'goals', 'other_repeat'])
    assert.deepEqual(paper[k], reduced[k], k);
  // the quota schemes with the TB adjustment (its swaps preempted at the
  // cost Spart pays for a whole SM's context), the others as they are
  const withTba = (schemes) => schemes.map((x) => (x.policy.warp || '').startsWith('quota-')
    ? { ...x, policy: { ...x.policy, tb_adjust: true, sm_preempt: '14080cycles' } } : x);
  assert.deepEqual(paper.schemes, withTba(reduced.schemes));
  assert.ok(paper.schemes.some((x) => x.policy.tb_adjust) && reduced.schemes.every((x) => !x.policy.tb_adjust));
  const t = load(paper.template);
  assert.equal(t.policy.quota_epoch, 10000);
  assert.equal(t.window, 2000000);
  assert.equal(t.device, load(reduced.template).device);
  // the whole sweep at those parameters: the 90 pairs (§4.1 "10x9 = 90
  // pairs"), goals 50 % to 95 % in 5 % steps, the paper's schemes (the
  // 150K-cycle spec's less the offline search, which is ours)
  const full = load('isca17-parboil-paper.json'), short = load('isca17-parboil-qosreach.json');
  assert.equal(full.template, paper.template);
  assert.equal(full.kernels, short.kernels);
  assert.equal(full.pairs, 'all');
  assert.deepEqual(full.goals, Array.from({ length: 10 }, (_, i) => Math.round((0.5 + 0.05 * i) * 100) / 100));
  assert.deepEqual(full.schemes, withTba(short.schemes.filter((x) => x.name !== 'spart-offline')));
  assert.deepEqual(full.schemes.map((x) => x.name), ['naive', 'history', 'elastic', 'rollover', 'rollover-time', 'spart']);
});

// The whole sweep at the paper's parameters stopped at its first tpacf
// pair twice: the warp model's bound counted all 64 launches past the
// window (test_warp.c covers it), and the pair's scenario -- 128 launches
// of Parboil programs, 2.4 MB as JSON text -- was written out and read
// back under a text upload's memory budget, which refused it ("the document
// needs more than 53 MiB of memory to read"). The same pair and template,
// the window cut to 20K cycles so that it takes a moment: it runs.
test('ISCA\'17 §4.1: a tpacf pair at the paper\'s parameters runs (64 launches of each kernel)', () => {
  const full = load('isca17-parboil-paper.json');
  const tpl = load(full.template);
  assert.equal(tpl.ops.length, 2);
  for (const op of tpl.ops) assert.equal(op.runs, 64);
  const template = join(dir, 'paper-short-template.json');
  writeFileSync(template, JSON.stringify({ ...tpl, window: 20000 }));
  const res = sweep('paper-tpacf', { ...full, template, kernels: join(SWEEPS, full.kernels),
    pairs: [['mri-gridding', 'tpacf']], goals: [0.7], schemes: full.schemes.filter((x) => x.name === 'rollover') });
  assert.equal(res.points.length, 1);
  assert.ok(res.points[0].attained > 0 && res.points[0].throughput > 0, JSON.stringify(res.points[0]));
});
