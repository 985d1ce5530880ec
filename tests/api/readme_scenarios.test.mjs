// readme_scenarios.test.mjs -- the README's table of shipped scenarios
// ("## Scenarios": scenario | reproduces | what comes out) and docs/memory.md's
// most-room tables, against the program as it is now.
//
// Each scenario's runs are simulated (`schedlab simulate --variant RUN`, through
// sim_cache.mjs, which golden.test.mjs shares; the
// runs as its "--variant: no run named" error lists them, the base run
// first), the numbers its row quotes are worked out from them, and the row
// must hold each sentence with the number as it comes out: a number left
// behind by a change of the model, or rounded twice (87.149 written 87.2),
// fails here naming the sentence it looked for. The numbers are worked out
// as the dashboard and the unit tests work them out:
//   - a slowdown: the kernel's time from its first block to its end over
//     the serial kernel's (views/reference.mjs, the "ratio" rows), written
//     with one decimal from 10× on and two below (its fmtRatio);
//   - a response time: end − issue (the compare view's, test_qaws_fig4.c's),
//     QAWS's run the K2 budget of 2, 4, 8 best for K2 (test_qaws_fig4.c);
//   - a MORT: the run's meta "task:NAME" max (views/reference.mjs, mortOf);
//   - a bound: `schedlab rta`'s by_semantics (docs/rta.md).
// What the papers say is asserted elsewhere (scenario_reference.test.mjs,
// the unit tests); this file asserts only that the text quotes the program.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { cli, repo } from './server.mjs';
import { simulate } from './sim_cache.mjs';

const README = readFileSync(join(repo, 'README.md'), 'utf8');
const MEMORY = readFileSync(join(repo, 'docs/memory.md'), 'utf8');
const scenario = (name) => join(repo, 'scenarios', `${name}.json`);

// The runs of a scenario, the base run first: its --variant error lists them.
const runsCache = new Map();
function runsOf(name) {
  if (!runsCache.has(name)) {
    const r = cli(['simulate', scenario(name), '--variant', '@none']);
    const m = /\(runs: (.*)\)$/m.exec(r.stderr);
    assert.ok(m, `${name}: no run list in ${r.stderr}`);
    runsCache.set(name, m[1].split(', '));
  }
  return runsCache.get(name);
}

// One run's trace (schedlab-trace/1), its kernels by name; `run` defaults to
// the base run.
const simCache = new Map();
function sim(name, run = runsOf(name)[0]) {
  const key = `${name}/${run}`;
  if (!simCache.has(key)) {
    assert.ok(runsOf(name).includes(run), `${name} has no run ${run} (${runsOf(name).join(', ')})`);
    // (the base run asked as golden.test.mjs asks it, so that one simulation serves both)
    const r = simulate(scenario(name), run === runsOf(name)[0] ? null : run);
    assert.equal(r.code, 0, `${key}: ${r.stderr}`);
    const t = JSON.parse(r.stdout);
    t.k = Object.fromEntries(t.kernels.map((k) => [k.name, k]));
    simCache.set(key, t);
  }
  return simCache.get(key);
}

// The row of `name` in the README's scenario table: its third cell.
function row(name) {
  const line = README.split('\n').find((l) => l.startsWith(`| \`${name}\``));
  assert.ok(line, `README: no row of the scenario table starts with \`${name}\``);
  return line.split(' | ')[2];
}

function quotes(name, sentences) {
  const text = row(name);
  for (const s of sentences) assert.ok(text.includes(s), `README, ${name}: "${s}" not found in\n  ${text}`);
}

const ms = (ns) => String(Number((ns / 1e6).toFixed(2)));       // 44862961 -> "44.86", 10000000 -> "10"
const sec = (ns) => String(Number((ns / 1e9).toFixed(2)));
const fmtRatio = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));  // web/js/views/reference.mjs
const pct = (x, d = 1) => `${x < 0 ? '−' : '+'}${Math.abs(x * 100).toFixed(d)}`;
const words = ['none', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const kernelTime = (k) => k.end - k.first_block;
const response = (k) => k.end - k.issue;
const mort = (t, task) => Number(/(?:^|\s)max=(\d+)/.exec(t.meta[`task:${task}`])[1]);
const smsOf = (t, kernel) => t.blocks.filter((b) => b.kernel === t.k[kernel].id).sort((a, b) => a.index - b.index).map((b) => b.sm);
const startsOf = (t, kernel) => t.blocks.filter((b) => b.kernel === t.k[kernel].id).map((b) => b.start);
const count = (xs, x) => xs.filter((y) => y === x).length;

// A most-room slowdown: kernel PHASE ("B-isolated") over its serial run.
const slow = (name, kp, run) => {
  const t = sim(name, run);
  return fmtRatio(kernelTime(t.k[kp]) / kernelTime(t.k[`${kp[0]}-serial`]));
};

test('the tx2 rows: start times and block counts', () => {
  const f3 = sim('tx2-fig3-basic-rules');
  const k1 = startsOf(f3, 'K1');
  const later = Math.max(...k1);
  quotes('tx2-fig3-basic-rules', [`${words[count(k1, 0)]} K1 blocks at 0 and ${words[count(k1, later)]} at ${sec(later)} s`]);
  assert.equal(f3.k.K4.first_block, f3.k.K1.fully_dispatched, 'X1: K4 once K1 is fully dispatched');

  const fs = sim('tx2-fig3-task-sync');
  assert.equal(fs.k.K5.issue, fs.k.K4.end, 'tau1 launches K5 once its sync on S2 returns');
  quotes('tx2-fig3-task-sync', [`issued when K4 completes at ${sec(fs.k.K4.end)} s, not at ${sec(f3.k.K5.issue)} s`]);

  const f5 = sim('tx2-fig5-null-stream');
  quotes('tx2-fig5-null-stream', [`kernels start at ${f5.kernels.map((k) => sec(k.first_block)).join(', ')} s`]);

  const f6 = sim('tx2-fig6-starvation');
  quotes('tx2-fig6-starvation', [`resumes at ${sec(Math.max(...startsOf(f6, 'K1')))} s`]);

  const f8 = sim('tx2-fig8-priority-blocking');
  assert.equal(f8.k.K8.first_block, f8.k.K2.end);
  assert.equal(f8.k.K9.first_block, f8.k.K2.end);
  quotes('tx2-fig8-priority-blocking', [`both start when K2 completes at ${sec(f8.k.K2.end)} s`]);

  const ts = sim('tx2-appendix-a-processes', 'time-slice');
  // (the shared variant: the same blocks from tasks, K1's alone from 0)
  const shared = sim('tx2-appendix-a-processes', 'shared');
  const ratio = (ts.k.K1.end - ts.k.K1.first_block) / (shared.k.K1.end - shared.k.K1.first_block);
  quotes('tx2-appendix-a-processes', [`(${ms(ts.k.K1.first_block)}–${ms(ts.k.K1.end)} ms and ${ms(ts.k.K2.first_block)}–${ms(ts.k.K2.end)} ms: ${ratio}× the ${ms(shared.k.K1.end - shared.k.K1.first_block)} ms they take as tasks`]);
});

test('the most-room placement rows: the SM of each block', () => {
  for (const name of ['most-room-pascal-4.1', 'most-room-pascal-4.2', 'most-room-pascal-4.2-33-threads']) {
    const mr = smsOf(sim(name, 'most-room'), 'Y').join(', ');
    const rr = smsOf(sim(name, 'round-robin'), 'Y').join(', ');
    quotes(name, [name.endsWith('4.1') ? `Y's blocks on SMs ${mr} (round-robin: ${rr})` : `SMs ${mr}`]);
  }
  const iso = smsOf(sim('most-room-turing-5.1'), 'B');
  assert.equal(new Set(iso).size, 1);
  quotes('most-room-turing-5.1', [`all ${iso.length} blocks of B on SM ${iso[0]}`]);
  const col = smsOf(sim('most-room-turing-5.1-colocated'), 'B');
  quotes('most-room-turing-5.1-colocated', [`B on SM ${col[0]}, then ${col.slice(1).join(', ')}`]);
  const nine = smsOf(sim('most-room-turing-5.1-9-blocks'), 'B');
  const off = nine.filter((s) => s !== nine[0]);
  quotes('most-room-turing-5.1-9-blocks', [`exactly ${words[off.length]} block off SM ${nine[0]}, on SM ${off.join(', ')}`]);
});

// Each most-room slowdown row: the sentences with the kernels' slowdowns;
// `A X×` alone only where A's isolated and colocated slowdowns agree.
test('the most-room slowdown rows (Tables 1, 3, 4 and their H100 runs)', () => {
  const a = (name) => {
    const [i, c] = [slow(name, 'A-isolated'), slow(name, 'A-colocated')];
    assert.equal(i, c, `${name}: A ${i}× isolated, ${c}× colocated: the row must give both`);
    return `A ${i}×`;
  };
  const std = (name) => [`B isolated ${slow(name, 'B-isolated')}×`, `colocated ${slow(name, 'B-colocated')}×`];
  const both = (name) => `A ${slow(name, 'A-isolated')}×, ${slow(name, 'A-colocated')}×`;
  const rows = {
    'most-room-table1-compute': (n) => [...std(n), a(n)],
    'most-room-table1-l1': (n) => [`colocated A ${slow(n, 'A-colocated')}× (`, `), B ${slow(n, 'B-colocated')}× (`,
      `isolated ${slow(n, 'A-isolated')}× / ${slow(n, 'B-isolated')}×`],
    'most-room-table1-memory': (n) => [`colocated B ${slow(n, 'B-colocated')}×`, `isolated ${slow(n, 'B-isolated')}×`, both(n)],
    'most-room-table1-transfer': (n) => [...std(n), a(n)],
    'most-room-table3-l1': (n) => [...std(n), `A colocated ${slow(n, 'A-colocated')}×`],
    'most-room-table3-compute': (n) => [...std(n), a(n)],
    'most-room-table3-memory': (n) => [...std(n), a(n)],
    'most-room-table3-transfer': (n) => [...std(n), a(n)],
    'most-room-table4-l1': (n) => [...std(n), `A colocated ${slow(n, 'A-colocated')}×`],
    'most-room-table4-compute': (n) => [...std(n), a(n)],
    'most-room-table4-memory': (n) => [...std(n), both(n)],
    'most-room-table4-transfer': (n) => [...std(n), both(n)],
    'most-room-h100-memory': (n) => [...std(n), a(n),
      `the \`scheduler-admission\` variant (the queue takes GTO's greedy warp first) ${slow(n, 'B-colocated', 'scheduler-admission')}× colocated`],
    'most-room-h100-compute': (n) => [...std(n), a(n)],
    'most-room-h100-l1': (n) => [...std(n), a(n), `the \`no-l1-rate\` variant gives colocated B ${slow(n, 'B-colocated', 'no-l1-rate')}×`],
    'most-room-h100-transfer': (n) => [...std(n), a(n),
      `puts isolated B at ${slow(n, 'B-isolated', 'sm-fault-slot')}×`],
  };
  for (const [name, sentences] of Object.entries(rows)) quotes(name, sentences(name));
});

// docs/memory.md's three tables: row | kernel | paper isolated | model
// isolated | paper colocated | model colocated, B's line after A's.
test('docs/memory.md\'s most-room tables quote the model as it is', () => {
  const tables = [['## most-room Table 1 (Turing', 'most-room-table1'], ['**Table 3, Pascal', 'most-room-table3'],
    ['**Table 4, Volta', 'most-room-table4']];
  const kinds = { 'L1-cache-dependent': 'l1', 'compute-intensive': 'compute', 'memory-intensive': 'memory', 'transfer-bound': 'transfer' };
  for (const [heading, prefix] of tables) {
    const at = MEMORY.indexOf(heading);
    assert.ok(at >= 0, `docs/memory.md: no "${heading}"`);
    const lines = MEMORY.slice(at).split('\n');
    const first = lines.findIndex((l) => l.startsWith('| row | kernel |'));
    let kind = null;
    let seen = 0;
    for (const l of lines.slice(first + 2)) {
      if (!l.startsWith('|')) break;
      const cells = l.split('|').slice(1, -1).map((c) => c.trim());
      if (cells[0]) kind = kinds[cells[0]];
      assert.ok(kind, `docs/memory.md ${heading}: unknown row "${cells[0]}"`);
      const name = `${prefix}-${kind}`;
      const model = (c) => /([\d.]+)×/.exec(c)[1];
      assert.equal(model(cells[3]), slow(name, `${cells[1]}-isolated`), `docs/memory.md ${heading}, ${kind} ${cells[1]} isolated`);
      assert.equal(model(cells[5]), slow(name, `${cells[1]}-colocated`), `docs/memory.md ${heading}, ${kind} ${cells[1]} colocated`);
      seen++;
    }
    assert.equal(seen, 8, `docs/memory.md ${heading}: 8 rows`);
  }
});

// QAWS's run of a pair: the K2 budget of 2, 4, 8 best for K2, the base run
// (budget 4) kept on a tie, as test_qaws_fig4.c picks it.
function qawsBest(name) {
  let best = sim(name, 'qaws-k2-budget-2');
  for (const run of ['qaws-k2-budget-4', 'qaws-k2-budget-8']) {
    const t = sim(name, run);
    if (response(t.k.K2) < response(best.k.K2)) best = t;
  }
  return best;
}

test('the QAWS rows: response times against LRR and GTO', () => {
  const hc = 'qaws-v-homogeneous-compute';
  const [q, g, l] = [sim(hc, 'qaws-k2-budget-4'), sim(hc, 'gto'), sim(hc, 'lrr')];
  const mean = (t) => (response(t.k.K1) + response(t.k.K2)) / 2;
  quotes(hc, [`K2's response time ${pct(response(q.k.K2) / response(g.k.K2) - 1)}% against GTO, ${pct(response(q.k.K2) / response(l.k.K2) - 1)}% against LRR`,
    `average of the two ${pct(mean(q) / mean(g) - 1)}% against GTO`]);
  const hl = 'qaws-v-homogeneous-latency';
  const spread = Math.max(...runsOf(hl).map((r) => Math.abs(response(sim(hl, r).k.K2) / response(sim(hl, 'gto').k.K2) - 1)));
  assert.ok(spread < 0.001, `${hl}: K2 ${pct(spread, 2)} % from GTO's`);
  quotes(hl, ['within 0.1% under every policy']);

  const fig3 = 'qaws-fig3';
  const avg = (t) => (t.k.K1.end + t.k.K2.end) / 2;
  quotes(fig3, [`average ${avg(sim(fig3, 'gto'))} cycles under GTO, ${avg(sim(fig3, 'qaws-k2-budget-6'))} under QAWS/6`]);

  // Fig. 4a: each pair's K2 and K1 under QAWS over LRR's (GPGPU-Sim's, the run "lrr")
  const a4 = ['pc', '2dc', 'dxtc', 'bin', 'vec', 'mm', 'pf', 'atax', 'his'];
  const gain = {}, k1 = {}, vsGto = [], vsLrr = [];
  for (const b of a4) {
    const n = `qaws-fig4a-${b}`;
    const [qb, lb, gb] = [qawsBest(n), sim(n, 'lrr'), sim(n, 'gto')];
    gain[b] = response(qb.k.K2) / response(lb.k.K2) - 1;
    k1[b] = response(qb.k.K1) / response(lb.k.K1) - 1;
    vsGto.push(mean(qb) / mean(gb) - 1);
    vsLrr.push(mean(qb) / mean(lb) - 1);
  }
  const avgOf = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const seven = a4.slice(0, 7);
  const below = seven.filter((b) => k1[b] < 0);
  const others = seven.filter((b) => k1[b] >= 0).map((b) => k1[b]);
  quotes('qaws-fig4a-pc', [
    `(${['pc', '2dc', 'dxtc', 'bin', 'vec', 'mm'].map((b) => `${b} ${pct(gain[b])} %`).join(', ')}; DRAM-bound pf ${pct(gain.pf)} %)`,
    `mean K2 gain **${(-avgOf(Object.values(gain)) * 100).toFixed(1)} %**`,
    `QAWS's mean execution time ${pct(avgOf(vsGto))} % against GTO's, ${pct(avgOf(vsLrr))} % against LRR's`,
    `K1 below LRR's in ${below.length} of 7 (${below.map((b) => `${b} ${pct(k1[b])} %`).join(', ')}; the others ${pct(Math.min(...others))} … ${pct(Math.max(...others))} %`,
  ]);
  for (const b of ['atax', 'his']) assert.equal(pct(gain[b]), '+0.0', `${b}: K2 "unchanged"`);

  // Fig. 4b: K2 over LRR's on average, and the two pairs that make most of it
  const b4 = ['2dc-his', 'bin-his', 'dxtc-mm', 'pf-bin', 'pf-mm'];
  const g4b = Object.fromEntries(b4.map((p) => {
    const n = `qaws-fig4b-${p}`;
    return [p, response(qawsBest(n).k.K2) / response(sim(n, 'lrr').k.K2) - 1];
  }));
  quotes('qaws-fig4b-2dc-his', [`K2 **${pct(avgOf(Object.values(g4b)))} %** against LRR on average`,
    `here dxtc + mm ${pct(g4b['dxtc-mm'])} % and pf + mm ${pct(g4b['pf-mm'])} %`]);
});

test('the ISCA\'17 quota pair: the QoS kernel\'s share of its isolated IPC, the other\'s', () => {
  const n = 'isca17-quota-pair';
  const schemes = ['quota-naive', 'quota-history', 'quota-elastic', 'quota-rollover'];
  const q = schemes.map((s) => sim(n, s).k.Q);
  const c = schemes.map((s) => sim(n, s).k.C);
  const share = (k, d) => ((k.ipc ?? 0) / k.ipc_isolated * 100).toFixed(d);
  assert.deepEqual(q.map((k) => k.qos_met), [false, false, false, true]);
  quotes(n, [`${q.slice(0, 3).map((k) => `${share(k, 1)}%`).join(' / ')} of its isolated IPC under naive / history / elastic: goal missed; ${share(q[3], 1)}% under rollover: goal met`,
    `keeps ${c.map((k) => `${(k.ipc_shared / k.ipc_isolated * 100).toFixed(0)}%`).join(' / ')} of its isolated throughput`]);
});

test('the GCAPS rows: MORTs and the bounds they break', () => {
  const n = 'gcaps-case-study';
  const g = ['gcaps-suspend', 'gcaps-busy'].map((r) => sim(n, r));
  const ts = ['time-slice-suspend', 'time-slice-busy'].map((r) => sim(n, r));
  const tasks = ['histogram', 'mmul_gpu_1'];
  const [gs, gb] = g.map((r) => tasks.map((t) => ms(mort(r, t))));
  const tsm = ts.flatMap((r) => tasks.map((t) => mort(r, t) / 1e6));
  quotes(n, [`tasks 1 and 2 respond in ${gb.join(' and ')} ms under GCAPS (${gs.join(' and ')} self-suspending), ${Math.round(Math.min(...tsm))}–${Math.round(Math.max(...tsm))} ms under time slicing`]);

  // a counterexample's MORT beside its printed and corrected bounds
  const bound = (name, analysis, semantics, task) => {
    const r = cli(['rta', scenario(name)]);
    assert.equal(r.code, 0, r.stderr);
    return ms(JSON.parse(r.stdout).by_semantics[semantics][analysis].wcrt[task]);
  };
  const c = 'gcaps-counterexample-c', h = 'gcaps-counterexample-h';
  quotes('gcaps-counterexample-a', [`\`-c\`: ${ms(mort(sim(c), 'v'))} ms against ${bound(c, 'gcaps_suspend', 'printed', 'v')} (printed) and ${bound(c, 'gcaps_suspend', 'corrected', 'v')} (corrected)`,
    `\`-h\` (FMLP+ suspend): ${ms(mort(sim(h), 'l'))} against ${bound(h, 'fmlp_suspend', 'printed', 'l')} and ${bound(h, 'fmlp_suspend', 'corrected', 'l')}`]);
});

test('the GCAPS Example 2 rows: where tau4 loses the GPU, when its kernel and its job end', () => {
  const a = sim('gcaps-example2-fig5a'), b = sim('gcaps-example2-fig5b');
  const end = (t, task) => t.jobs.find((j) => j.task === task && j.job === 0).end;
  const k4 = a.k['tau4#0'];
  const b0 = a.blocks.findIndex((x) => x.kernel === k4.id && x.index === 0);
  const lost = Math.min(...a.pauses.filter((p) => p.block === b0).map((p) => p.start));
  const miss = end(a, 'tau4') > 200e6;
  assert.ok(miss && end(b, 'tau4') <= 200e6, 'tau4 misses under (a), meets under (b)');
  const verdict = (name) => JSON.parse(cli(['rta', scenario(name)]).stdout).analyses.gcaps_suspend.schedulable;
  assert.deepEqual([verdict('gcaps-example2-fig5a'), verdict('gcaps-example2-fig5b')], [false, true]);
  quotes('gcaps-example2-fig5a', [`τ3 takes the GPU from τ4 at ${ms(lost)} ms, τ4's kernel ends at ${ms(k4.end)} ms`,
    `τ4 ends at ${ms(end(a, 'tau4'))} ms, past its 200 ms deadline`, `τ4 ends at ${ms(end(b, 'tau4'))} ms;`]);
});

test('the h100 rows: waves, start times and SMs', () => {
  // SMs in order, a run of three or more consecutive ones written a–b
  const compact = (sms) => {
    const out = [];
    for (let i = 0; i < sms.length;) {
      let j = i;
      while (j + 1 < sms.length && sms[j + 1] === sms[j] + 1) j++;
      if (j - i >= 2) out.push(`${sms[i]}–${sms[j]}`);
      else for (let x = i; x <= j; x++) out.push(String(sms[x]));
      i = j + 1;
    }
    return out.join(', ');
  };
  const so = sim('h100-sm-order');
  quotes('h100-sm-order', [`K1 (one block per SM) on SMs ${compact(smsOf(so, 'K1').slice(0, 14))}, …`]);
  assert.equal(new Set(startsOf(so, 'K2')).size, 1, 'K2 in one wave');

  const br = sim('h100-basic-rules');
  const k1 = startsOf(br, 'K1');
  quotes('h100-basic-rules', [`${count(k1, 0)} of K1's ${k1.length} blocks at 0 (R2)`,
    `K4 stays off SMs running K1 (carveout rule H100-C1) until ${ms(br.k.K4.first_block)} ms; K2 at ${ms(br.k.K2.first_block)} ms, K3 at ${(br.k.K3.first_block / 1e6).toFixed(1)} ms`]);

  const pr = sim('h100-priority');
  quotes('h100-priority', [`the later high-priority K3 starts at ${ms(pr.k.K3.first_block)} ms ahead of K2 (${ms(pr.k.K2.first_block)} ms)`]);

  const mr = sim('h100-most-room', 'most-room');
  const b = smsOf(mr, 'B');
  assert.equal(new Set(b).size, 1);
  assert.ok(!smsOf(mr, 'A').includes(b[0]), 'A leaves B\'s SM empty');
  quotes('h100-most-room', [`A leaves SM ${b[0]} empty; all ${b.length} blocks of B on SM ${b[0]}`]);

  const sc = sim('h100-smem-carveout');
  quotes('h100-smem-carveout', [`K2 at ${ms(sc.k.K2.first_block)} ms, K3 at ${ms(sc.k.K3.first_block)}`]);
});
