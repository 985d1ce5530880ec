// warp.test.mjs -- the warp-level model through the API and the CLI (issue
// 11): the shipped QAWS Fig. 3 scenario is seeded, its runs carry per-kernel
// instructions and IPC, GET /api/runs/{run}/warps serves the warp issues and
// per-epoch counts, and the trace export reads back exactly.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, getJson, postScenario, repo, startServer, tempDir } from './server.mjs';

let srv;
const runs = {};   // qaws-fig3 run name -> run slug

before(async () => {
  srv = await startServer();
  const { body } = await getJson(`${srv.base}/api/experiments`);
  for (const e of body.experiments) {
    const full = await getJson(`${srv.base}/api/experiments/${e.slug}`);
    if (full.body.scenario_file === 'qaws-fig3.json')
      for (const r of full.body.runs) runs[r.name] = r.run;
  }
});

after(async () => {
  assert.equal(await srv.stop(), 0);
});

test('the QAWS Fig. 3 scenario is seeded with its four panels and GPGPU-Sim\'s LRR', () => {
  assert.deepEqual(Object.keys(runs).sort(), ['gto', 'lrr', 'lrr-gpgpusim', 'qaws-k2-budget-4', 'qaws-k2-budget-6']);
});

// GPGPU-Sim's LRR (scheduler_unit::order_lrr) on Fig. 3's warps, as worked
// by hand in test_warp.c: each cycle the first ready warp after the one that
// issued last, so the four take turns; cycle 28 has none ready (the mem ops
// of 24-27 take 5 cycles), where the paper's LRR (Fig. 3b) keeps a warp
// until it stalls
test('GET /api/runs/{run}/warps: GPGPU-Sim\'s LRR on Fig. 3, beside the paper\'s', async () => {
  const line = async (run) => {
    const { status, body } = await getJson(`${srv.base}/api/runs/${runs[run]}/warps`);
    assert.equal(status, 200);
    assert.equal(body.total, 36);
    const l = [];
    for (const w of body.warp_issues) l[w.cycle] = String(w.warp);
    return Array.from(l, (x) => x ?? '.').join('');
  };
  assert.equal(await line('lrr-gpgpusim'), '0123012301230123012301230123.01230123');
  assert.equal(await line('lrr'), '012300112233000011112222333300112233');
  const run = await getJson(`${srv.base}/api/runs/${runs['lrr-gpgpusim']}`);
  assert.equal(run.body.meta.warp, 'lrr-gpgpusim');
});

test('GET /api/runs/{run}/warps: every issue of Fig. 3c and the epoch counts', async () => {
  const { status, body } = await getJson(`${srv.base}/api/runs/${runs['qaws-k2-budget-4']}/warps`);
  assert.equal(status, 200);
  assert.equal(body.total, 36);
  assert.equal(body.truncated, false);
  assert.equal(body.warp_issues.length, 36);
  // cycle by cycle, the warp that issued (w0, w1: K1; w2, w3: K2)
  const line = Array(38).fill('.');
  for (const w of body.warp_issues) {
    assert.equal(w.sm, 0);
    assert.equal(w.subcore, 0);
    assert.equal(w.kernel, w.warp < 2 ? 0 : 1);
    line[w.cycle] = String(w.warp);
  }
  assert.equal(line.join(''), '0123223322220011223333000033111100..11');
  assert.deepEqual(body.warp_epochs, [
    { kernel: 0, cycle: 0, cycles: 1000, issues: 18 },
    { kernel: 1, cycle: 0, cycles: 1000, issues: 18 },
  ]);
  // a window of cycles, and max
  const w = (await getJson(`${srv.base}/api/runs/${runs['qaws-k2-budget-4']}/warps?from=2&to=12&max=4`)).body;
  assert.equal(w.total, 10);
  assert.equal(w.truncated, true);
  assert.deepEqual(w.warp_issues.map((x) => x.warp), [2, 3, 2, 2]);
  const bad = await getJson(`${srv.base}/api/runs/${runs.gto}/warps?max=x`);
  assert.equal(bad.status, 400);
  const none = await getJson(`${srv.base}/api/runs/nosuchrun/warps`);
  assert.equal(none.status, 404);
});

test('kernels of a warp-level run carry instructions and ipc', async () => {
  const { body } = await getJson(`${srv.base}/api/runs/${runs.gto}/kernels`);
  assert.deepEqual(body.kernels.map((k) => [k.name, k.end, k.instructions]),
    [['K1', 20, 18], ['K2', 38, 18]]);
  assert.equal(body.kernels[0].ipc, 0.9);
  const run = await getJson(`${srv.base}/api/runs/${runs.gto}`);
  assert.equal(run.body.meta.warp, 'gto');
  assert.equal(run.body.device.latency_mem, 260);
  assert.equal(run.body.device.mem_bandwidth, 1);
});

test('the stored run exports the records `schedlab simulate` writes', async () => {
  const r = await fetch(`${srv.base}/api/runs/${runs['qaws-k2-budget-6']}/export?format=trace`);
  assert.equal(r.status, 200);
  const stored = JSON.parse(await r.text());
  const sim = cli(['simulate', join(repo, 'scenarios', 'qaws-fig3.json'), '--variant', 'qaws-k2-budget-6']);
  assert.equal(sim.code, 0, sim.stderr);
  const fresh = JSON.parse(sim.stdout);
  for (const key of ['device', 'kernels', 'blocks', 'warp_issues', 'warp_epochs'])
    assert.deepEqual(stored[key], fresh[key], key);
});

test('a scenario with a program and block_time both, or neither, is a 400 naming the op', async () => {
  const base = { schema: 'schedlab-scenario/1', device: 'titanv-gpgpusim' };
  const both = await getJson(`${srv.base}/api/experiments`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...base, ops: [{ kernel: 'K9', blocks: 1, threads: 32, block_time: '1us',
      program: { body: [{ op: 'alu' }] } }] }),
  });
  assert.equal(both.status, 400);
  assert.equal(both.body.error, 'scenario: ops[0]: kernel "K9" gives both "block_time" and "program"; ' +
    'its blocks take one or the other');
  const neither = await getJson(`${srv.base}/api/experiments`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...base, ops: [{ kernel: 'K9', blocks: 1, threads: 32 }] }),
  });
  assert.equal(neither.status, 400);
  assert.match(neither.body.error, /^scenario: ops\[0\]: kernel "K9" needs "block_time" .* or "program"/);
});

// The kernel library (scenarios/kernels, issue 25): a scenario sent to the
// server and one simulated by the CLI name its kernels alike.
const LIBRARY_PAIR = (k2) => ({
  schema: 'schedlab-scenario/1', name: 'library pair',
  device: { preset: 'titanv-gpgpusim', sms: 1 }, policy: { warp: 'qaws' },
  streams: [{ name: 'S1' }, { name: 'S2' }],
  ops: [{ kernel: 'K1', stream: 'S1', program: 'pc', blocks: 1, threads: 128 },
    { kernel: 'K2', stream: 'S2', at: '8cycles', program: k2, blocks: 1, threads: 128, budget: 4 }],
});

test('POST /api/experiments: a scenario names kernels of the library', async () => {
  const made = await postScenario(srv.base, LIBRARY_PAIR('dxtc'));
  assert.equal(made.runs.length, 1);
  const bad = await getJson(`${srv.base}/api/experiments`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(LIBRARY_PAIR('dxct')),
  });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /ops\[1\]\.program: "dxct" is not in the kernel library \(did you mean "dxtc"\?\)/);
});

test('schedlab simulate: the same library', () => {
  const dir = tempDir('library');
  try {
    const f = join(dir, 'pair.json');
    writeFileSync(f, JSON.stringify(LIBRARY_PAIR('vectorAdd')));
    const r = cli(['simulate', f], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const t = JSON.parse(r.stdout);
    assert.deepEqual(t.kernels.map((k) => k.name), ['K1', 'K2']);
    assert.ok(t.kernels.every((k) => k.instructions > 0));
    writeFileSync(f, JSON.stringify(LIBRARY_PAIR('vecadd')));
    const e = cli(['simulate', f], { cwd: dir });
    assert.notEqual(e.code, 0);
    assert.match(e.stderr, /ops\[1\]\.program: "vecadd" is not in the kernel library \(did you mean "vectorAdd"\?\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
