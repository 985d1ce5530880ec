// PyTorch profiler traces over HTTP (issue 29): a job archive imports as
// one run with a lane per rank; a ROCm trace is refused with 400 and its
// reason, storing nothing; GET /api/runs/{run}/summary equals the numbers
// tests/pytorch/summary_ref.py computes from the raw JSON on its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { startServer, getJson, fixture, realTrace, repo, tempDir } from './server.mjs';

const RAW = { 'Content-Type': 'application/octet-stream' };
let srv;
const noScenarios = tempDir('noscn');   // no shipped scenarios to simulate first
before(async () => { srv = await startServer({ args: ['--scenarios', noScenarios] }); });
after(async () => {
  assert.equal(await srv.stop(), 0);
  rmSync(noScenarios, { recursive: true, force: true });
});

async function runCount() {
  const e = (await getJson(`${srv.base}/api/experiments`)).body;
  return (Array.isArray(e) ? e : e.experiments).reduce((n, x) => n + (x.runs ? x.runs.length : x.n_runs || 0), 0);
}

function reference(paths) {
  const r = spawnSync('python3', [join(repo, 'tests/pytorch/summary_ref.py'), ...paths], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function importBody(body, name) {
  const r = await getJson(`${srv.base}/api/imports?name=${name}`, { method: 'POST', body, headers: RAW });
  if (r.status === 202) {
    for (;;) {
      await new Promise((ok) => setTimeout(ok, 200));
      const j = (await getJson(`${srv.base}${r.body.url}`)).body;
      if (j.state === 'done') return { status: j.status, body: j.result };
      if (j.state === 'failed') return { status: j.status, body: j.result || j };
    }
  }
  return r;
}

// The summary against the reference, field by field, exactly.
function sameSummary(s, ref) {
  assert.deepEqual(Object.fromEntries(s.devices.map((d) => [d.process, {
    window_ns: d.window_ns, busy_ns: d.busy_ns, compute_ns: d.compute_ns,
    communication_ns: d.communication_ns, copy_ns: d.copy_ns, idle_ns: d.idle_ns,
    communication_overlapped_ns: d.communication_overlapped_ns,
  }])), ref.devices);
  assert.deepEqual(Object.fromEntries(s.streams.map((d) => [`${d.process}/${d.stream}`, {
    window_ns: d.window_ns, busy_ns: d.busy_ns, compute_ns: d.compute_ns,
    communication_ns: d.communication_ns, copy_ns: d.copy_ns, idle_ns: d.idle_ns,
  }])), ref.streams);
  const key = (k) => JSON.stringify(k);
  assert.deepEqual(s.kernels.map((k) => [k.name, k.count, k.total_ns, k.p50_ns, k.p95_ns]).map(key).sort(),
    ref.kernels.map(key).sort());
  assert.equal(s.kernel_time_ns, ref.kernel_time_ns);
  // the shares, of their wholes (docs/api.md; printed to 10 digits)
  const share = (part, whole, got, what) => assert.ok(whole > 0 ? Math.abs(got - part / whole) < 1e-9 : got === null, `${what}: ${got}`);
  for (const k of s.kernels) share(k.total_ns, ref.kernel_time_ns, k.share, k.name);
  for (const d of s.devices) share(d.communication_overlapped_ns, d.communication_ns, d.communication_overlap_share, d.process);
  share(ref.communication.overlapped_ns, ref.communication.total_ns, s.communication.overlap_share, 'communication');
  const { mean_ns: _m, ...launch } = s.launch_delay;
  assert.deepEqual(launch, ref.launch_delay);
  assert.equal(s.communication.total_ns, ref.communication.total_ns);
  assert.equal(s.communication.overlapped_ns, ref.communication.overlapped_ns);
}

test('a job archive of two rank files is one run with a lane per rank; its summary is exact', async () => {
  const r = await importBody(readFileSync(fixture('pytorch_job.tar.gz')), 'job');
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.format, 'pytorch');
  const kernels = (await getJson(`${srv.base}/api/runs/${r.body.run}/kernels`)).body.kernels;
  assert.deepEqual([...new Set(kernels.map((k) => k.process))].sort(), ['rank0 gpu0', 'rank1 gpu1']);
  const s = (await getJson(`${srv.base}/api/runs/${r.body.run}/summary`)).body;
  sameSummary(s, reference([fixture('pytorch_2x.json'), fixture('pytorch_rank1.json')]));
  assert.equal((await getJson(`${srv.base}/api/runs/nosuchrun0/summary`)).status, 404);
});

test('a ROCm trace is refused with 400 and the reason, nothing stored', async () => {
  const before = await runCount();
  const r = await importBody(readFileSync(fixture('pytorch_rocm.json')), 'rocm');
  assert.equal(r.status, 400);
  assert.match(r.body.error, /a ROCm trace: hipLaunchKernel calls, no grid or block sizes — schedlab models NVIDIA GPUs/);
  const cpu = await importBody(readFileSync(fixture('pytorch_cpu.json')), 'cpu');
  assert.equal(cpu.status, 400);
  assert.match(cpu.body.error, /a CPU-only trace/);
  assert.equal(await runCount(), before);
});

test('the DLRM job (two real rank files in a tar.gz): one run, two devices, summary exact', async (t) => {
  const a = realTrace(t, 'kineto_param_v100x8_dlrm_rank0of8.pt.trace.json');
  if (!a) return;
  const b = realTrace(t, 'kineto_param_v100x8_dlrm_rank1of8.pt.trace.json');
  const dir = tempDir('pytorch');
  const tgz = join(dir, 'job.tar.gz');
  const tar = spawnSync('tar', ['-czf', tgz, '-C', join(a, '..'), 'kineto_param_v100x8_dlrm_rank0of8.pt.trace.json',
    'kineto_param_v100x8_dlrm_rank1of8.pt.trace.json']);
  assert.equal(tar.status, 0);
  const r = await importBody(readFileSync(tgz), 'dlrm');
  rmSync(dir, { recursive: true, force: true });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const s = (await getJson(`${srv.base}/api/runs/${r.body.run}/summary`)).body;
  assert.deepEqual(s.devices.map((d) => d.process).sort(), ['rank0 gpu0', 'rank1 gpu1']);
  sameSummary(s, reference([a, b]));
});
