// job_done_progress.test.mjs -- a job that ended "done" says it did all of
// its work: docs/api.md (Jobs): "`progress` (0..1) is `done / total`". A
// simulation job's total is its blocks simulated plus stored plus one for
// the commit, which nothing counted, so a finished one read "progress": 1.0
// with "done": 36, "total": 37, and a script waiting for done == total (or
// showing done/total) never saw the end.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ENDLESS_ERROR, endlessScenario, repo } from './server.mjs';
import { JSON_BODY, json, serve, waitJob } from './serve_opts.mjs';

let srv;
// sync=1: every scenario past one event runs as a job (202)
before(async () => { srv = await serve(['--budget', 'sync=1']); });
after(async () => { assert.equal(await srv.stop(), 0); });

function assertEnded(j) {
  assert.equal(j.state, 'done', JSON.stringify(j));
  assert.equal(j.done, j.total, `done ${j.done} of total ${j.total}`);
  assert.equal(j.progress, j.done / j.total);
}

test('a simulation job that ended done has done == total and progress done/total = 1', async () => {
  const body = readFileSync(join(repo, 'scenarios/tx2-fig3-basic-rules.json'), 'utf8');
  const r = await json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: JSON_BODY });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const j = await waitJob(srv.base, r.body.job);
  assertEnded(j);
  assert.equal(j.status, 201);
  // its total (docs/api.md, Jobs: "A simulation counts blocks simulated
  // plus blocks stored"), and one for the commit: 2 x blocks + 1
  const blocks = JSON.parse(body).ops.reduce((n, op) => n + (op.blocks ?? 0), 0);
  assert.ok(blocks > 0);
  assert.equal(j.total, 2 * blocks + 1);
  // an edit and re-run (the versions route) counts the same way
  const v = await json(`${srv.base}/api/experiments/${j.result.slug}/versions`, { method: 'POST', body, headers: JSON_BODY });
  assert.equal(v.status, 202, JSON.stringify(v.body));
  assertEnded(await waitJob(srv.base, v.body.job));
});

// A job's scenario that the simulator refuses ends "failed" with the 400 a
// synchronous answer gives (docs/api.md, Jobs: `"status"`, "what the
// request would have answered: 201, 400, …"), for server.mjs's
// endlessScenario (two kernels: past the one event `sync=1` answers at once).
test('a simulation job the simulator refuses ends failed with status 400 naming the op', async () => {
  const body = endlessScenario(['S1', 'S2']);
  const r = await json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: JSON_BODY });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const j = await waitJob(srv.base, r.body.job);
  assert.equal(j.state, 'failed', JSON.stringify(j));
  assert.equal(j.status, 400);
  assert.match(j.error, ENDLESS_ERROR);
});
