// replay_devices_cancel.test.mjs -- a replay of work on several GPUs
// (replay_devices.h) stops when its job is cancelled, as a one-GPU replay
// does (server/app/store.c: the simulation's block sink asks the job's
// cancel at every batch, and the store at every batch it writes):
// docs/api.md, "DELETE /api/jobs/{id} cancels ... the job ends `aborted`
// with status `409` and "cancelled; nothing was stored"", and "On SIGTERM
// ... running ones [end] within 5 s"; docs/cli.md, "running jobs get 5 s to
// finish and are then rolled back".
//
// It simulated every GPU to its end, wrote the merged run out as
// schedlab-trace JSON and read it back whole before it looked at the
// cancel once, between the placement variants: on this trace (4 GPUs, 6 M
// simulated blocks a run) the cancelled job ended 15 s after the cancel on
// the 2 vCPUs of the build machine, and a SIGTERM's exit 15 s after the
// signal (now about 1 s, and the 5 s of grace).
//
// The trace is generated, not recorded (what is checked is when the job
// stops and that nothing of it is stored, not a GPU's timing): a
// kernel-level trace of 4 GPUs, each rank's 30 kernels of 150,000 blocks one
// after another on its own Xavier NX (tests/fixtures/gpus_trace.mjs), under
// the 50 M blocks past which a replay takes cohorts. 18 M simulated blocks a
// run, so that the job is still running when SIGTERM's 5 s of grace are
// past: since the merged runs are no longer written out and read back
// (replay_devices_store.c, as_stored), the whole job on 6 M blocks a run
// (the 50,000 blocks a kernel this test had) takes 4.4 s on the 2 vCPUs of
// the build machine, and finished within the grace, stored whole as the
// contract has it ("running jobs get 5 s to finish").
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

import { gpusTrace } from '../fixtures/gpus_trace.mjs';
import { json, JSON_BODY, RAW, serve, waitJob } from './serve_opts.mjs';

const GPUS = 4;
const KERNELS = 30;
const BLOCKS = 150000;
// the contract's 5 s (docs/api.md, docs/cli.md)
const PROMISED_MS = 5000;

function trace() {
  return { ...gpusTrace({ gpus: GPUS, kernels: KERNELS, blocks: BLOCKS }), name: 'four-gpus' };
}

const sql = (db, text) => execFileSync('sqlite3', ['-cmd', '.timeout 10000', db, text], { encoding: 'utf8' }).trim();

// What a replay of run `run` could have left: experiments, runs, reports.
function stored(db, run) {
  return {
    experiments: sql(db, 'SELECT count(*) FROM experiments;'),
    runs: sql(db, 'SELECT count(*) FROM runs;'),
    reports: sql(db, `SELECT count(*) FROM fidelity WHERE measured = (SELECT id FROM runs WHERE slug = '${run}');`),
  };
}

async function importTrace(base) {
  const r = await json(`${base}/api/imports?name=four-gpus.json`, { method: 'POST', headers: RAW, body: JSON.stringify(trace()) });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.run;
}

async function startReplay(base, run) {
  const r = await json(`${base}/api/runs/${run}/replay`, { method: 'POST', headers: JSON_BODY, body: '{}' });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  // running: its GPUs being simulated
  for (let i = 0; i < 400; i++) {
    const j = (await json(`${base}/api/jobs/${r.body.job}`)).body;
    if (j.state === 'running') return r.body.job;
    assert.equal(j.state, 'queued', JSON.stringify(j));
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error('the replay never ran');
}

test('a cancelled replay of four GPUs ends aborted within 5 s and stores nothing', async () => {
  const srv = await serve();
  try {
    const run = await importTrace(srv.base);
    const before = stored(srv.db, run);
    const job = await startReplay(srv.base, run);
    await new Promise((ok) => setTimeout(ok, 300));
    const t0 = Date.now();
    const c = await json(`${srv.base}/api/jobs/${job}`, { method: 'DELETE' });
    assert.equal(c.status, 202, `the replay had ended before the cancel: ${JSON.stringify(c.body)}`);
    const end = await waitJob(srv.base, job, { timeout: 120000 });
    const took = Date.now() - t0;
    assert.equal(end.state, 'aborted', JSON.stringify(end));
    assert.equal(end.status, 409);
    assert.equal(end.error, 'cancelled; nothing was stored');
    assert.ok(took < PROMISED_MS, `the cancelled replay ended ${took} ms after the cancel`);
    assert.deepEqual(stored(srv.db, run), before);
  } finally {
    assert.equal(await srv.stop(), 0, srv.stderr());
  }
});

test('SIGTERM during a replay of four GPUs: exit 0 within 5 s and the grace, nothing of it stored', async () => {
  const first = await serve([], { keep: true });
  const { dir, db } = first;
  let again = null;
  try {
    const run = await importTrace(first.base);
    const before = stored(db, run);
    const names = async (base) => (await json(`${base}/api/experiments`)).body.experiments.map((e) => e.name).sort();
    const namesBefore = await names(first.base);
    await startReplay(first.base, run);
    const t0 = Date.now();
    const code = await first.stop('SIGTERM');
    const took = Date.now() - t0;
    assert.equal(code, 0, first.stderr());
    // 5 s for the job to finish, then cancelled; 3 s more for the cancel to
    // be seen and the server to close, on a loaded machine (it took 15 s)
    assert.ok(took < PROMISED_MS + 3000, `the server exited ${took} ms after SIGTERM`);
    assert.deepEqual(stored(db, run), before);
    // the same file again: the experiments it had
    again = await serve([], { dir, db });
    assert.deepEqual(await names(again.base), namesBefore);
  } finally {
    if (again) assert.equal(await again.stop(), 0, again.stderr());
  }
});
