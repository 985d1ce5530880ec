// cohort_budget.test.mjs -- a scenario with "cohorts" (issue 28) under the
// server's work budget (issue 16, server/http/budget.h): it costs the
// records its runs keep, not its blocks, so a replay of the Rodinia
// Gaussian's 4.29 G blocks can be edited and re-run from the page; where
// cohorts cannot apply its blocks are counted; and where the estimate is
// wrong, each run is held to the budget as it goes and fails with the reason.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { JSON_BODY, json, serve, waitJob } from './serve_opts.mjs';
import { tempDir } from './server.mjs';

let srv;
before(async () => {
  // a small budget: 100,000 blocks (or records) a request
  srv = await serve(['--scenarios', tempDir('cohort-budget-noscn'), '--budget', 'blocks=100000']);
});
after(async () => { await srv?.stop(); });

// One kernel of `blocks` blocks of 512 threads on the TX2 (2 SMs of 2048
// threads: waves of 8 blocks), alone on the GPU.
const oneKernel = (blocks, extra = {}) => ({
  schema: 'schedlab-scenario/1', name: `cohorts ${blocks}`, device: 'tx2', ...extra,
  streams: [{ name: 'S1' }],
  ops: [{ kernel: 'K1', stream: 'S1', at: 0, blocks, threads: 512, block_time: '1us' }],
  variants: [{ name: 'round-robin', policy: { placement: 'round-robin' } }],
});

async function post(s, path = '/api/experiments') {
  const r = await json(`${srv.base}${path}`, { method: 'POST', body: JSON.stringify(s), headers: JSON_BODY });
  if (r.status !== 202) return r;
  const j = await waitJob(srv.base, r.body.job, { timeout: 120000 });
  return { status: j.status ?? (j.state === 'done' ? 201 : 500), body: j.result ?? { error: j.error }, queued: true };
}

test('a cohort scenario is budgeted by its records: 40 M blocks of one kernel pass a 100,000 budget and run whole, and again as an edit', async () => {
  const s = oneKernel(40000000, { cohorts: true });
  const r = await post(s);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  // its cost is an estimate: on the job queue, never on the request's thread
  assert.equal(r.queued, true);
  assert.equal(r.body.runs.length, 2);   // most-room and round-robin, both as cohorts (cohort.c)
  const blocksOf = async (run) => {
    const { body } = await json(`${srv.base}/api/runs/${run}`);
    return body.summary.blocks;
  };
  for (const { run } of r.body.runs) assert.equal(await blocksOf(run), 40000000);
  // "Edit and re-run" (issue 15) goes through the same budget
  s.ops[0].block_time = '2us';
  const v = await post(s, `/api/experiments/${r.body.slug}/versions`);
  assert.equal(v.status, 201, JSON.stringify(v.body));
  assert.equal(v.body.version, 2);
  for (const { run } of v.body.runs) assert.equal(await blocksOf(run), 40000000);
});

test('the same blocks without cohorts are refused up front, in the budget\'s words', async () => {
  const r = await post(oneKernel(150000));
  assert.equal(r.status, 422);
  assert.match(r.body.error, /^scenario: too much work for one request: blocks \(all kernels' blocks times the runs\): 300000 is over the limit of 100000/);
});

test('where cohorts cannot apply (a time-sliced driver places block by block) the blocks are counted, and refused up front', async () => {
  // the time-slice driver leaves the fused scheduler (sim_cohorts_apply):
  // every block is a record (cohort.c)
  const s = oneKernel(150000, { cohorts: true, policy: { contexts: 'time-slice' } });
  delete s.variants;
  const r = await post(s);
  assert.equal(r.status, 422);
  assert.match(r.body.error, /^scenario: too much work for one request: blocks \(all kernels' blocks times the runs\): 150000 is over the limit of 100000/);
});

test('where the estimate misses (a kernel that never finds the GPU idle) the run is held to the budget as it goes', async () => {
  // K1's one block holds an SM for a second, so K2's waves never start on an
  // idle GPU and each of its 150,000 blocks is a record (cohort.c), where
  // the estimate counted about two records a kernel and SM
  const s = {
    schema: 'schedlab-scenario/1', name: 'cohorts beside a long block', device: 'tx2', cohorts: true,
    streams: [{ name: 'S1' }, { name: 'S2' }],
    ops: [
      { kernel: 'K1', stream: 'S1', at: 0, blocks: 1, threads: 512, block_time: '1s' },
      { kernel: 'K2', stream: 'S2', at: 0, blocks: 150000, threads: 512, block_time: '1us' },
    ],
  };
  const r = await post(s);
  assert.notEqual(r.status, 201);
  assert.match(r.body.error, /the run records more than 100000 blocks and cohorts in all/);
  // and nothing of it was stored
  const { body } = await json(`${srv.base}/api/experiments`);
  assert.ok(!body.experiments.some((e) => e.name === s.name), JSON.stringify(body.experiments.map((e) => e.name)));
});
