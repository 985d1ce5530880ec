// replay_devices_store.test.mjs -- a replay of work on several GPUs
// (replay_devices.h) stores its runs and all their fidelity reports in one
// write transaction, as a one-GPU replay does (store_ctl.with_runs):
// docs/shared-machine.md, "a replay's runs with their fidelity reports (one
// transaction)", and "SIGKILL at any moment leaves ... no partial run".
// It stored each run and each report in a transaction of its own and
// deleted the experiment when a later step failed: in between, readers saw
// (and a SIGKILL, or a full disk that also stops the delete, kept) runs
// without their reports.
//
// The reports' write is made to fail by a trigger on the fidelity table, and
// every row the experiments and runs tables ever commit is recorded by
// triggers of the test into a table of its own, which a rollback takes back
// with the rows and a later delete of the experiment does not: what a
// SIGKILL at that moment would have left.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';

import { fixture, getJson, startServer } from './server.mjs';

const JSON_BODY = { 'Content-Type': 'application/json' };
const RAW = { 'Content-Type': 'application/octet-stream' };

let srv;
let measured;   // the two-rank PyTorch job's run: work on GPUs 0 and 1

const sql = (text) => execFileSync('sqlite3', ['-cmd', '.timeout 10000', srv.db, text], { encoding: 'utf8' });

before(async () => {
  srv = await startServer();
  // pytorch_job.tar.gz (tests/fixtures/make_pytorch_fixtures.sh): rank 0's
  // kernels on device 0, rank 1's on device 1 of the same job
  const r = await getJson(`${srv.base}/api/imports?name=job`, { method: 'POST', headers: RAW, body: readFileSync(fixture('pytorch_job.tar.gz')) });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  measured = r.body.run;
});

after(async () => {
  assert.equal(await srv.stop(), 0);
});

async function replay(run) {
  const r = await getJson(`${srv.base}/api/runs/${run}/replay`, { method: 'POST', headers: JSON_BODY, body: '{}' });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  for (const deadline = Date.now() + 120000; ;) {
    const j = await getJson(`${srv.base}${r.body.url}`);
    if (!['queued', 'running'].includes(j.body.state)) return j.body;
    assert.ok(Date.now() < deadline, 'the replay job did not finish');
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

const slugs = async () => (await getJson(`${srv.base}/api/experiments`)).body.experiments.map((e) => e.slug).sort();

test('a replay of two GPUs stores its experiment with every run and each run\'s report', async () => {
  const job = await replay(measured);
  assert.equal(job.status, 201, job.error);
  // the several-GPU path (replay_devices_store): a simulated GPU per rank
  assert.deepEqual(job.result.devices.map((d) => d.device), ['rank0 gpu0', 'rank1 gpu1']);
  assert.deepEqual(job.result.runs.map((r) => r.name), ['most-room', 'round-robin']);
  const { body: exp } = await getJson(`${srv.base}/api/experiments/${job.result.slug}`);
  assert.deepEqual(exp.runs.map((r) => r.run).sort(), job.result.runs.map((r) => r.run).sort());
  // a replay's experiment, as a one-GPU replay's (docs/api.md "Replay": the
  // runs are simulated into a new experiment): "scenario", not "import"
  const listed = (await getJson(`${srv.base}/api/experiments`)).body.experiments.find((e) => e.slug === job.result.slug);
  assert.equal(listed.source, 'scenario');
  assert.equal(exp.source, 'scenario');
  // so imports may not add to it, refused as into a one-GPU replay's
  // (store.c import_target; shared-machine.md: imports add only to imports')
  const csv = 'kernel,block,sm,start_ns,end_ns,stream,threads\nK1,0,0,1000,2000,s1,256\n';
  const imp = await getJson(`${srv.base}/api/imports?format=globaltimer-csv&experiment=${job.result.slug}`, { method: 'POST', headers: RAW, body: csv });
  assert.equal(imp.status, 409, JSON.stringify(imp.body));
  assert.equal(imp.body.error, `experiment: "${job.result.slug}" holds the runs of a scenario; imports may only add to experiments made by imports`);
  // nor is it edited and re-run (docs/api.md: 409 for an experiment with
  // nothing to re-run): it keeps no scenario, one per GPU being replayed
  const scn = { schema: 'schedlab-scenario/1', name: 'x', device: 'tx2', streams: [{ name: 'S1' }],
    ops: [{ kernel: 'K1', stream: 'S1', blocks: 1, threads: 64, block_time: '1ms' }] };
  const ver = await getJson(`${srv.base}/api/experiments/${job.result.slug}/versions`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify(scn) });
  assert.equal(ver.status, 409, JSON.stringify(ver.body));
  assert.match(ver.body.error, /only scenarios can be edited and re-run/);
  assert.equal(exp.scenario ?? null, null);
  for (const r of job.result.runs) {
    assert.equal(typeof r.fidelity.duration_error_median, 'number');
    const { status, body: rep } = await getJson(`${srv.base}/api/runs/${r.run}/fidelity`);
    assert.equal(status, 200);
    assert.equal(rep.replay, true);
    assert.equal(rep.measured_run, measured);
    assert.equal(rep.simulated_run, r.run);
  }
});

test('a replay of two GPUs whose last report cannot be written stores nothing, never a run without its report', async () => {
  const before = await slugs();
  const reports = () => sql(`SELECT count(*) FROM fidelity WHERE measured = (SELECT id FROM runs WHERE slug = '${measured}');`).trim();
  const reportsBefore = reports();
  sql(`CREATE TABLE test_committed(what TEXT NOT NULL);
CREATE TRIGGER test_committed_experiment AFTER INSERT ON experiments BEGIN INSERT INTO test_committed VALUES ('experiment ' || NEW.slug); END;
CREATE TRIGGER test_committed_run AFTER INSERT ON runs BEGIN INSERT INTO test_committed VALUES ('run ' || NEW.slug || ' ' || NEW.name); END;
CREATE TRIGGER test_no_variant_report BEFORE INSERT ON fidelity
  WHEN (SELECT name FROM runs WHERE id = NEW.run) = 'round-robin'
  BEGIN SELECT RAISE(ABORT, 'test: the report cannot be written'); END;`);
  try {
    const job = await replay(measured);
    assert.equal(job.status, 500, JSON.stringify(job));
    assert.match(job.error, /test: the report cannot be written/);
    // nothing of the experiment, now or at any moment: no experiment, run
    // or report was ever committed
    assert.deepEqual(await slugs(), before);
    assert.equal(sql('SELECT group_concat(what, \'; \') FROM test_committed;').trim(), '');
    assert.equal(reports(), reportsBefore);
  } finally {
    sql(`DROP TRIGGER test_no_variant_report; DROP TRIGGER test_committed_run;
DROP TRIGGER test_committed_experiment; DROP TABLE test_committed;`);
  }
  // and the same replay stores whole again once the reports can be written
  const job = await replay(measured);
  assert.equal(job.status, 201, job.error);
  for (const r of job.result.runs)
    assert.equal((await getJson(`${srv.base}/api/runs/${r.run}/fidelity`)).body.simulated_run, r.run);
});
