// quota.test.mjs -- the ISCA'17 quota QoS policies through the API and the
// CLI (issue 12): the shipped pair is seeded with its four schemes, its
// kernels carry qos_goal / ipc_isolated / qos_met (QoS) and ipc_shared
// (non-QoS), the run summary counts goals met and normalises the non-QoS
// throughput, the stored trace exports what `schedlab simulate` writes, and
// a bad goal is a 400 naming ops[i].qos_goal.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, getJson, repo, startServer } from './server.mjs';

let srv;
const runs = {};   // isca17-quota-pair run name -> run slug
let otherRun;      // a run without goals

before(async () => {
  srv = await startServer();
  const { body } = await getJson(`${srv.base}/api/experiments`);
  for (const e of body.experiments) {
    const full = await getJson(`${srv.base}/api/experiments/${e.slug}`);
    if (full.body.scenario_file === 'isca17-quota-pair.json')
      for (const r of full.body.runs) runs[r.name] = r.run;
    else if (full.body.scenario_file === 'qaws-fig3.json') otherRun = full.body.runs[0].run;
  }
});

after(async () => {
  assert.equal(await srv.stop(), 0);
});

test('the quota pair is seeded with its four schemes', () => {
  assert.deepEqual(Object.keys(runs).sort(),
    ['quota-elastic', 'quota-history', 'quota-naive', 'quota-rollover']);
});

test('kernels carry the goal, the isolated IPC and whether the goal was met', async () => {
  const met = {};
  for (const [name, run] of Object.entries(runs)) {
    const { status, body } = await getJson(`${srv.base}/api/runs/${run}/kernels`);
    assert.equal(status, 200);
    const [c, q] = body.kernels;
    assert.equal(q.name, 'Q');
    assert.equal(q.qos_goal, 0.6);
    assert.equal(q.ipc_isolated, 15.617918772877811);
    assert.equal(q.qos_met, q.ipc >= 0.6 * q.ipc_isolated);
    assert.equal('ipc_shared' in q, false);
    assert.equal(c.name, 'C');
    assert.equal('qos_goal' in c, false);
    assert.equal('qos_met' in c, false);
    assert.equal(c.ipc_isolated, 1.7970360137248627);
    assert.ok(c.ipc_shared > 0);
    met[name] = q.qos_met;
  }
  assert.deepEqual(met, { 'quota-naive': false, 'quota-history': false,
    'quota-elastic': false, 'quota-rollover': true });
});

test('the run summary counts goals met and normalises the non-QoS throughput', async () => {
  const naive = (await getJson(`${srv.base}/api/runs/${runs['quota-naive']}`)).body.summary;
  assert.equal(naive.qos_kernels, 1);
  assert.equal(naive.qos_met, 0);
  // C's IPC while Q ran over its IPC alone, as its kernel record has them
  // (the summary's reals carry 9 digits)
  const [c] = (await getJson(`${srv.base}/api/runs/${runs['quota-naive']}/kernels`)).body.kernels;
  assert.equal(c.name, 'C');
  assert.ok(c.ipc_shared > 0 && c.ipc_shared < c.ipc_isolated);
  assert.ok(Math.abs(naive.nonqos_throughput - c.ipc_shared / c.ipc_isolated) < 1e-9);
  const roll = (await getJson(`${srv.base}/api/runs/${runs['quota-rollover']}`)).body.summary;
  assert.equal(roll.qos_kernels, 1);
  assert.equal(roll.qos_met, 1);
  assert.ok(roll.nonqos_throughput > 0 && roll.nonqos_throughput < naive.nonqos_throughput);
  // runs without goals keep their summary as it was
  const other = (await getJson(`${srv.base}/api/runs/${otherRun}`)).body.summary;
  for (const key of ['qos_kernels', 'qos_met', 'nonqos_throughput'])
    assert.equal(key in other, false, key);
});

test('the stored run exports the kernels `schedlab simulate` writes', async () => {
  const r = await fetch(`${srv.base}/api/runs/${runs['quota-rollover']}/export?format=trace`);
  assert.equal(r.status, 200);
  const stored = JSON.parse(await r.text());
  const sim = cli(['simulate', join(repo, 'scenarios', 'isca17-quota-pair.json'), '--variant',
    'quota-rollover']);
  assert.equal(sim.code, 0, sim.stderr);
  const fresh = JSON.parse(sim.stdout);
  for (const key of ['device', 'kernels', 'warp_epochs'])
    assert.deepEqual(stored[key], fresh[key], key);
  assert.equal(stored.meta.warp, 'quota-rollover');
});

test('a goal outside (0, 1] or without a quota policy is a 400 naming ops[i].qos_goal', async () => {
  const post = (spec) => getJson(`${srv.base}/api/experiments`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(spec),
  });
  const op = { kernel: 'K', blocks: 1, threads: 32, program: { body: [{ op: 'alu' }] } };
  const base = { schema: 'schedlab-scenario/1', device: 'isca17-gpgpusim' };
  const high = await post({ ...base, policy: { warp: 'quota-rollover' }, ops: [{ ...op, qos_goal: 1.2 }] });
  assert.equal(high.status, 400);
  assert.equal(high.body.error, 'scenario: ops[0].qos_goal: 1.2 is outside (0, 1] (a fraction of ' +
    'the IPC the kernel reaches alone on the device)');
  const gto = await post({ ...base, ops: [{ ...op, qos_goal: 0.5 }] });
  assert.equal(gto.status, 400);
  assert.equal(gto.body.error, 'scenario: ops[0].qos_goal: needs a quota warp policy (policy.warp ' +
    'quota-naive, quota-history, quota-elastic, quota-rollover or quota-rollover-time), not "gto", ' +
    'or placement spart-climb');
});
