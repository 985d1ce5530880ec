// qos_sequence.test.mjs -- whole benchmarks in the ISCA'17 QoS sweep (issue
// 26): a kernel of the set may be a benchmark's launches in order
// ("sequence"), measured as one kernel, as §4.1 measures its benchmarks ("If
// the benchmark has multiple kernels ... we use the total number of
// instructions and cycles from the benchmark to calculate the IPC"); histo's
// four kernels are in the library, each from its CUDA source.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, tempDir } from './server.mjs';

const SWEEPS = resolve('sweeps');
const LIB = resolve('scenarios/kernels');
const lib = (name) => JSON.parse(readFileSync(join(LIB, `${name}.json`), 'utf8'));
// histo's iteration (Parboil 2.5 benchmarks/histo/src/cuda/main.cu): the
// four kernels in launch order
const HISTO = ['histo-prescan', 'histo-intermediates', 'histo', 'histo-final'];
const HISTO_KERNEL = {
  'histo-prescan': 'histo_prescan.cu, histo_prescan_kernel',
  'histo-intermediates': 'histo_intermediates.cu, histo_intermediates_kernel',
  histo: 'histo_main.cu, histo_main_kernel',
  'histo-final': 'histo_final.cu, histo_final_kernel',
};

let dir;
before(() => { dir = tempDir('qos-sequence'); });
after(() => rmSync(dir, { recursive: true, force: true }));

// The 150K-cycle pair template with no window and one run of each kernel:
// each kernel's IPC is then its launches' instructions over their cycles,
// first block to last end (qos_sweep.c measure)
function template() {
  const t = JSON.parse(readFileSync(join(SWEEPS, 'isca17-pair.json'), 'utf8'));
  delete t.window;
  for (const o of t.ops) o.runs = 1;
  return t;
}

function sweep(name, spec) {
  const p = join(dir, `${name}-spec.json`);
  writeFileSync(p, JSON.stringify({ schema: 'schedlab-sweep/1', kind: 'qos', name, goals: [0.5],
    schemes: [{ name: 'gto', policy: { warp: 'gto' } }], ...spec }));
  const out = join(dir, `${name}.json`);
  const r = cli(['sweep', p, '--db', join(dir, `${name}.db`), '-o', out]);
  return { ...r, res: r.code === 0 ? JSON.parse(readFileSync(out, 'utf8')) : null };
}

// warp instructions of one launch of a library kernel
function instructions(name) {
  const k = lib(name);
  const len = k.program.body.reduce((a, e) => a + (e.count ?? 1), 0);
  return k.blocks * Math.ceil(k.threads / 32) * len * (k.program.repeat ?? 1);
}

test('histo\'s four kernels are in the library, each from its CUDA source', () => {
  for (const name of HISTO) {
    const k = lib(name);
    assert.equal(k.name, name);
    assert.ok(k.source.includes(`benchmarks/histo/src/cuda/${HISTO_KERNEL[name]}`), `${name}: ${k.source}`);
    assert.ok(k.blocks > 0 && k.threads > 0, name);
  }
  const set = JSON.parse(readFileSync(join(SWEEPS, 'isca17-parboil-whole.json'), 'utf8'));
  assert.deepEqual(set.kernels.find((k) => k.name === 'histo-whole').sequence, HISTO);
});

// main.cu's launches (util.h: PRESCAN_BLOCKS_X 64, PRESCAN_THREADS 512,
// BLOCK_X 14, THREADS 768 for KB 24, UNROLL 16) for the files' image, the
// large dataset's 996 x 1040, and histo_main's 3 ranges (ranges_h[1] -
// ranges_h[0] + 1, as the files take it)
test('histo\'s four launches are main.cu\'s for the 996 x 1040 image', () => {
  const [w, h, ranges] = [996, 1040, 3];
  const launch = {
    'histo-prescan': [64, 512],
    'histo-intermediates': [Math.floor((h + 16 - 1) / 16), Math.floor((w + 1) / 2)],
    histo: [14 * ranges, 768],
    'histo-final': [14 * 3, 512],
  };
  for (const name of HISTO) {
    const k = lib(name);
    assert.deepEqual([k.blocks, k.threads], launch[name], name);
  }
});

test('a sequence is measured as one kernel: its launches\' instructions over their cycles', () => {
  const alone = HISTO.map((name, i) => ({ name: `k${i}`, class: 'memory', program: name }));
  const { code, stderr, res } = sweep('whole', {
    template: template(),
    kernels: [...alone, { name: 'whole', class: 'memory', sequence: HISTO }],
    // every kernel once in the QoS role, so that each has its IPC alone
    pairs: [['whole', 'k0'], ['k0', 'k1'], ['k1', 'k2'], ['k2', 'k3'], ['k3', 'k0']],
  });
  assert.equal(code, 0, stderr);
  const ipc = Object.fromEntries(res.kernels.map((k) => [k.name, k.ipc_isolated]));
  // the launches run one after another, each as it runs alone: the whole
  // benchmark's IPC is the sum of their instructions over the sum of their
  // cycles (each launch's instructions over its own IPC); 1 % for the cycles
  // between one launch's end and the next one's first block
  let instr = 0, cycles = 0;
  HISTO.forEach((name, i) => {
    instr += instructions(name);
    cycles += instructions(name) / ipc[`k${i}`];
  });
  const expected = instr / cycles;
  console.log(`whole histo: IPC ${ipc.whole.toFixed(3)}, from its launches alone ${expected.toFixed(3)}`);
  assert.ok(Math.abs(ipc.whole / expected - 1) < 0.01,
    `whole ${ipc.whole.toFixed(3)} against ${expected.toFixed(3)} (launches alone: ${HISTO.map((n, i) => `${n} ${ipc[`k${i}`].toFixed(2)}`).join(', ')})`);
  // the phases differ (the reason to run a benchmark whole): the
  // intermediates and final passes are memory streams, main's atomics are
  // on-chip
  const phases = HISTO.map((_, i) => ipc[`k${i}`]);
  assert.ok(Math.max(...phases) > 1.5 * Math.min(...phases), phases.join(', '));
});

test('a sequence of one launch is that kernel', () => {
  const { code, stderr, res } = sweep('one', {
    template: template(),
    kernels: [{ name: 'a', class: 'memory', program: 'histo' }, { name: 'b', class: 'memory', sequence: ['histo'] },
      { name: 'c', class: 'memory', program: 'histo-final' }],
    pairs: [['a', 'c'], ['b', 'c']],
  });
  assert.equal(code, 0, stderr);
  const [a, b] = res.kernels;
  assert.equal(a.ipc_isolated, b.ipc_isolated);
  const [pa, pb] = res.points;
  assert.equal(pa.attained, pb.attained);
  assert.equal(pa.throughput, pb.throughput);
  // the result's spec holds what ran: the launch resolved from the library
  assert.deepEqual(res.spec.kernels[1].sequence[0].program, lib('histo').program);
});

// The kernel library's programs are written for any device (docs/scenario-format.md):
// a QoS sweep takes them on its template's device whatever keys they carry
// for a memory system the device may not have (vectorAdd's mem ops give an
// "access", which a scenario's own program may not give on a device without
// it, docs/scenario-format.md Program), as a scenario naming them does.
test('a library kernel whose program reads a memory system the template\'s device has not: swept', () => {
  assert.ok(lib('vectorAdd').program.body.some((e) => e.access), 'vectorAdd gives an access');
  const { code, stderr, res } = sweep('library-keys', {
    template: template(),
    kernels: [{ name: 'va', class: 'memory', program: 'vectorAdd' }, { name: 'sg', class: 'compute', program: 'sgemm' }],
    pairs: [['va', 'sg']],
  });
  assert.equal(code, 0, stderr);
  assert.equal(res.points.length, 1);
  assert.ok(res.kernels[0].ipc_isolated > 0);
});

test('a bad sequence: one line naming the place and the problem', () => {
  const cases = [
    [{ name: 'w', class: 'memory', sequence: ['histo-prescan', 'histo-fina'] },
      /kernels\[1\]\.sequence\[1\]\.program: "histo-fina" is not in the kernel library \(did you mean "histo-final"\?\)\n$/],
    [{ name: 'w', class: 'memory', sequence: ['histo'], blocks: 4 },
      /kernels\[1\]\.blocks: a kernel with a "sequence" gives its launches' keys in each launch\n$/],
    [{ name: 'w', class: 'memory', sequence: [] }, /kernels\[1\]\.sequence: must be an array of 1\.\.16 launches/],
    [{ name: 'w', class: 'memory', sequence: [{ program: 'histo', name: 'x' }] },
      /kernels\[1\]\.sequence\[0\]: a launch takes the benchmark's name and class \(no "name" of its own\)\n$/],
    [{ name: 'w', class: 'memory', sequence: [{ blocks: 2 }] },
      /kernels\[1\]\.sequence\[0\]\.program: missing/],
    [{ name: 'w', class: 'memory', sequence: [7] }, /kernels\[1\]\.sequence\[0\]: expected a kernel of the library by name/],
  ];
  for (const [k, re] of cases) {
    const { code, stderr } = sweep('bad', { template: template(), kernels: [{ name: 'a', class: 'compute', program: 'sgemm' }, k], pairs: 'all' });
    assert.equal(code, 2, JSON.stringify(k));
    assert.match(stderr, re);
  }
});

test('the shipped whole-histo spec: histo both ways beside the other nine, the paper-parameter schemes', () => {
  const spec = JSON.parse(readFileSync(join(SWEEPS, 'isca17-parboil-histo-whole.json'), 'utf8'));
  const paper = JSON.parse(readFileSync(join(SWEEPS, 'isca17-parboil-paper.json'), 'utf8'));
  assert.equal(spec.template, paper.template);
  assert.deepEqual(spec.schemes, paper.schemes.filter((s) => ['naive', 'rollover', 'spart'].includes(s.name)));
  const others = JSON.parse(readFileSync(join(SWEEPS, 'isca17-parboil.json'), 'utf8')).kernels.map((k) => k.name).filter((n) => n !== 'histo');
  assert.deepEqual(spec.pairs, ['histo', 'histo-whole'].flatMap((q) => others.map((o) => [q, o])));
  // its kernel set reads, and histo-whole runs in it (a short window: the
  // whole spec takes minutes)
  const t = template();
  t.window = 20000;
  const { code, stderr, res } = sweep('shipped-set', { template: t, kernels: join(SWEEPS, spec.kernels), pairs: [['histo-whole', 'sgemm']] });
  assert.equal(code, 0, stderr);
  assert.ok(res.kernels.find((k) => k.name === 'histo-whole').ipc_isolated > 0);
});
