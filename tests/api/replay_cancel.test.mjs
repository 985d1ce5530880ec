// replay_cancel.test.mjs -- a replay stops when its job is cancelled, its
// calibration and held-out prediction too: docs/api.md, "DELETE
// /api/jobs/{id} cancels ... the job ends `aborted` with status `409` and
// "cancelled; nothing was stored"", a replay "within a batch of 65,536
// simulated blocks".
//
// Only the simulations it stores asked the cancel (server/app/store.c);
// before them, the calibration's passes (server/app/replay.c refine: up to
// REPLAY_PASSES simulations of the whole trace) and the held-out
// prediction (replay_heldout.c: each half calibrated the same way, then
// the second simulated) ran to their end: on this trace the cancelled job
// ended 7 s after the cancel on the 2 vCPUs of the build machine.
//
// The trace is generated, not recorded (what is checked is when the job
// stops and that nothing of it is stored): a kernel-level trace of one
// Xavier NX (tests/fixtures/cohort_trace.mjs's device record: 6 SMs, 8
// blocks of 256 threads an SM, 48 at once), 15 kernels of 1.5 M blocks on
// one stream, each beside a kernel of 24 blocks on another stream that
// lasts as long and holds half the GPU meanwhile: calibrated alone, the big
// kernels run twice as long as measured, so the calibration refines all
// its REPLAY_PASSES passes (22.5 M blocks each).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { COHORT_DEVICE } from '../fixtures/cohort_trace.mjs';
import { json, JSON_BODY, RAW, serve, waitJob } from './serve_opts.mjs';
import { realTrace } from './server.mjs';

const PAIRS = 15;
const BLOCKS = 1500000;
// docs/api.md: the 5 s a running job is given
const PROMISED_MS = 5000;

function trace() {
  const kernels = [];
  const common = { process: 'P0', priority: 'none', fully_dispatched: null, threads: 256, smem: 0, regs: 32, block: [256, 1, 1] };
  let t = 1000;
  for (let p = 0; p < PAIRS; p++) {
    // about 400 ns a block, half the GPU's 48 slots for the big kernel
    const dur = Math.round(BLOCKS / 48) * 400 * 1.5;
    kernels.push({ ...common, id: kernels.length, name: `hold${p}`, stream: '1', issue: t - 500, first_block: t,
      end: t + dur, blocks: 24, grid: [24, 1, 1] });
    kernels.push({ ...common, id: kernels.length, name: `big${p}`, stream: '2', issue: t - 500, first_block: t,
      end: t + dur, blocks: BLOCKS, grid: [BLOCKS, 1, 1] });
    t += dur + 3000;
  }
  return { schema: 'schedlab-trace/1', name: 'shared-gpu', source: 'nsys-sqlite', device: COHORT_DEVICE, kernels };
}

// DELETE the job (202, it was running) and wait for its end: {end, took ms}
async function cancel(base, id) {
  const t0 = Date.now();
  const c = await json(`${base}/api/jobs/${id}`, { method: 'DELETE' });
  assert.equal(c.status, 202, JSON.stringify(c.body));
  const end = await waitJob(base, id, { timeout: 120000 });
  return { end, took: Date.now() - t0 };
}

const sql = (db, text) => execFileSync('sqlite3', ['-cmd', '.timeout 10000', db, text], { encoding: 'utf8' }).trim();

test('a replay cancelled while it calibrates ends aborted within 5 s and stores nothing', async () => {
  const srv = await serve();
  try {
    const imp = await json(`${srv.base}/api/imports?name=shared-gpu.json`, { method: 'POST', headers: RAW, body: JSON.stringify(trace()) });
    assert.equal(imp.status, 201, JSON.stringify(imp.body));
    const run = imp.body.run;
    const stored = () => [sql(srv.db, 'SELECT count(*) FROM experiments;'), sql(srv.db, 'SELECT count(*) FROM runs;'),
      sql(srv.db, `SELECT count(*) FROM fidelity WHERE measured = (SELECT id FROM runs WHERE slug = '${run}');`)];
    const before = stored();
    const r = await json(`${srv.base}/api/runs/${run}/replay`, { method: 'POST', headers: JSON_BODY, body: '{}' });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    for (let i = 0; ; i++) {
      const j = (await json(`${srv.base}/api/jobs/${r.body.job}`)).body;
      if (j.state === 'running') break;
      assert.equal(j.state, 'queued', JSON.stringify(j));
      assert.ok(i < 400, 'the replay never ran');
      await new Promise((ok) => setTimeout(ok, 25));
    }
    await new Promise((ok) => setTimeout(ok, 300));
    // still calibrating: nothing simulated for the store yet
    assert.equal((await json(`${srv.base}/api/jobs/${r.body.job}`)).body.done, 0);
    const { end, took } = await cancel(srv.base, r.body.job);
    assert.equal(end.state, 'aborted', JSON.stringify(end));
    assert.equal(end.status, 409);
    assert.equal(end.error, 'cancelled; nothing was stored');
    assert.ok(took < PROMISED_MS, `the cancelled replay ended ${took} ms after the cancel`);
    assert.deepEqual(stored(), before);
  } finally {
    assert.equal(await srv.stop(), 0, srv.stderr());
  }
});

// A replay of cohorts (docs/api.md: past 50 M blocks a replay keeps
// identical blocks of a kernel as one record) hands its sink few of the
// blocks it places: the Rodinia Gaussian's (traces/SOURCES.md: 4.29 G
// blocks over 8,190 kernels) emits a handful per run. Its store's two
// simulations (the replay and its round-robin variant) asked the cancel
// and counted the progress only there: the job's `done` stayed 0 until
// both had ended (3.5 s on the build machine), and a cancel meanwhile
// waited for them. sim.h's placed() asks and counts as blocks are placed.
test('a replay of cohorts shows its progress while it simulates, and a cancel then stops it at once', async (t) => {
  const path = realTrace(t, 'nsys2022.4_export_rodinia_gaussian_rtx3090_8k_kernels_report2.sqlite');
  if (!path) return;
  const srv = await serve();
  try {
    const imp = await json(`${srv.base}/api/imports?name=gaussian.sqlite`, { method: 'POST', headers: RAW, body: readFileSync(path) });
    assert.equal(imp.status, 201, JSON.stringify(imp.body));
    const run = imp.body.run;
    const stored = () => [sql(srv.db, 'SELECT count(*) FROM experiments;'), sql(srv.db, 'SELECT count(*) FROM runs;')];
    const before = stored();
    const r = await json(`${srv.base}/api/runs/${run}/replay`, { method: 'POST', headers: JSON_BODY, body: '{}' });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    // the store's simulations have begun once 1 % of the blocks are counted
    // (its calibration before them counts nothing)
    let j;
    for (;;) {
      j = (await json(`${srv.base}/api/jobs/${r.body.job}`)).body;
      assert.ok(['queued', 'running'].includes(j.state), `the job ended before any progress was seen: ${JSON.stringify(j)}`);
      if (j.done >= j.total / 100) break;
      await new Promise((ok) => setTimeout(ok, 20));
    }
    assert.ok(j.done < j.total / 2, `already past its first simulation: ${JSON.stringify(j)}`);
    const { end, took } = await cancel(srv.base, r.body.job);
    assert.equal(end.state, 'aborted', JSON.stringify(end));
    assert.equal(end.error, 'cancelled; nothing was stored');
    // a simulation stops within a kernel's blocks: well under a second
    assert.ok(took < 1000, `the cancelled replay ended ${took} ms after the cancel`);
    assert.deepEqual(stored(), before);
  } finally {
    assert.equal(await srv.stop(), 0, srv.stderr());
  }
});
