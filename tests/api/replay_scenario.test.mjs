// replay_scenario.test.mjs -- GET /api/runs/{run}/replay?device=PRESET
// answers what `schedlab replay RUN --device PRESET` prints (docs/api.md
// "Runs"): a run whose kernels do not fit the preset is bad input, 400 with
// the CLI's line, where it answered 200 with a scenario `schedlab simulate`
// refuses; a run of several GPUs is the CLI's schedlab-replay-devices/1
// document, where it answered one scenario of all their work. The runs:
// bigSmemTraces (server.mjs), kernels of 64 KB a block, which the TX2
// preset's 48 KB cannot hold.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { waitJob } from './serve_opts.mjs';
import { BIG_SMEM_LINE, bigSmemTraces, cli, getJson, importFile, realTrace, startServer, tempDir } from './server.mjs';

let srv, one, two;

before(async () => {
  srv = await startServer();
  const files = bigSmemTraces(tempDir('replay-scenario'));
  one = await importFile(srv.base, files.one, 'big-smem');
  two = await importFile(srv.base, files.two, 'big-smem');
});

after(async () => {
  assert.equal(await srv.stop(), 0);
});

// `schedlab replay` of the same run in the server's database
function cliReplay(run, device) {
  return cli(['replay', run, '--db', srv.db, ...(device ? ['--device', device] : [])]);
}

test('a replay on a preset the kernels do not fit is a 400 with the CLI\'s line, for one GPU and for two', async () => {
  for (const [run, what] of [[one, `run ${one}`], [two, `run ${two}, gpu0`]]) {
    const want = `${what}: does not simulate: ${BIG_SMEM_LINE}`;
    const c = cliReplay(run, 'tx2');
    assert.equal(c.code, 2, c.stderr);
    assert.equal(c.stderr.trim().split('\n').pop(), `schedlab: ${want}`);
    const r = await getJson(`${srv.base}/api/runs/${run}/replay?device=tx2`);
    assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 300));
    assert.deepEqual(r.body, { error: want });
  }
});

// docs/api.md "Runs": the replay job's 400 is the same line; for one GPU
// it was the simulator's words alone, without "run X: does not simulate:"
test('the replay job refuses such a run with the CLI\'s line, for one GPU and for two', async () => {
  for (const [run, what] of [[one, `run ${one}`], [two, `run ${two}, gpu0`]]) {
    const r = await getJson(`${srv.base}/api/runs/${run}/replay`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"device": "tx2"}',
    });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const j = await waitJob(srv.base, r.body.job);
    assert.deepEqual([j.state, j.status, j.error], ['failed', 400, `${what}: does not simulate: ${BIG_SMEM_LINE}`]);
  }
});

test('the replay of a run is the CLI\'s output byte for byte: one scenario for one GPU, one per GPU for two', async () => {
  for (const [run, device] of [[one, null], [two, null], [two, 'h100']]) {
    const c = cliReplay(run, device);
    assert.equal(c.code, 0, c.stderr);
    const r = await fetch(`${srv.base}/api/runs/${run}/replay${device ? `?device=${device}` : ''}`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /^application\/json/);
    assert.equal(await r.text(), c.stdout);
  }
  // docs/scenario-format.md "Several GPUs": the CLI's document of a run of
  // two GPUs, each GPU's scenario on its own
  const { body } = await getJson(`${srv.base}/api/runs/${two}/replay`);
  assert.equal(body.schema, 'schedlab-replay-devices/1');
  assert.deepEqual(body.devices.map((d) => [d.device, d.scenario.schema, d.scenario.ops.map((o) => o.kernel)]),
    [['gpu0', 'schedlab-scenario/1', ['K1']], ['gpu1', 'schedlab-scenario/1', ['K2']]]);
  const { body: single } = await getJson(`${srv.base}/api/runs/${one}/replay`);
  assert.equal(single.schema, 'schedlab-scenario/1');
  assert.deepEqual(single.ops.map((o) => o.kernel), ['K1', 'K2']);
});

// the real 4-GPU NCCL run (traces/SOURCES.md): fitted copy bandwidths and
// launch latencies, numbers the compact answer wrote to 10 digits; both on
// its own V100s and on the TX2 preset, whose 32,768 registers a block its
// NCCL kernels do not fit (cli.test.mjs asserts the CLI's refusal)
test('the real 4-GPU NCCL run: the CLI\'s document byte for byte, and the CLI\'s refusal on tx2', async (t) => {
  const path = realTrace(t, 'nvprof_export_v16_blinkplus_8xv100_nccl_output.nvvp');
  if (!path) return;
  const run = await importFile(srv.base, path, 'big-smem');
  const c = cliReplay(run);
  assert.equal(c.code, 0, c.stderr);
  const r = await fetch(`${srv.base}/api/runs/${run}/replay`);
  assert.equal(r.status, 200);
  const text = await r.text();
  assert.equal(text, c.stdout);
  assert.deepEqual(JSON.parse(text).devices.map((d) => d.device), ['gpu0', 'gpu1', 'gpu2', 'gpu3']);
  const bad = cliReplay(run, 'tx2');
  assert.equal(bad.code, 2, bad.stderr);
  const line = bad.stderr.trim().split('\n').pop();
  assert.match(line, /^schedlab: run [a-z0-9]{10}, gpu0: does not simulate: replay: ops\[\d+\]\.regs: .* \(ops\[\d+\]: kernel ".+" on stream ".+"\)$/);
  const rb = await getJson(`${srv.base}/api/runs/${run}/replay?device=tx2`);
  assert.equal(rb.status, 400);
  assert.deepEqual(rb.body, { error: line.slice('schedlab: '.length) });
});
