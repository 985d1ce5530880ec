// compare_runs_arg.test.mjs -- /api/compare's `runs` errors name the
// problem: one id too long to be a run's ("a run id of 70 characters") was
// answered "runs: at most 8 run ids of [a-z0-9]" (there was one id), so a
// script that pasted a URL instead of an id was told to send fewer; it is a
// run there is none of (404, as any unknown id: docs/api.md), and nine ids
// say how many were given against the limit (capabilities'
// compare_max_runs).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { json, scenarioRun, serve } from './serve_opts.mjs';

let srv, run;
before(async () => {
  srv = await serve();
  run = await scenarioRun(srv.base);
});
after(async () => { assert.equal(await srv.stop(), 0); });

test('an id too long to be a run is a run there is none of', async () => {
  const long = `http://example/runs/${run}/x`.replace(/[^a-z0-9]/g, 'z').padEnd(70, 'z');
  const r = await json(`${srv.base}/api/compare?runs=${run},${long}`);
  assert.equal(r.status, 404);
  assert.match(r.body.error, /^no run named "httpzzzexample/);
});

test('more ids than the limit says how many were given', async () => {
  const { body: caps } = await json(`${srv.base}/api/capabilities`);
  const max = caps.limits.compare_max_runs;
  const ids = Array.from({ length: max + 1 }, () => run);
  const r = await json(`${srv.base}/api/compare?runs=${ids.join(',')}`);
  assert.equal(r.status, 400);
  assert.equal(r.body.error, `runs: ${max + 1} run ids, at most ${max} may be compared at once`);
  const ok = await json(`${srv.base}/api/compare?runs=${ids.slice(1).join(',')}`);
  assert.equal(ok.status, 200);
});

// "a,,b" compared a and b, "a,b," a and b, each column then in another
// place than the link's (docs/api.md: a bad entry of `runs` is a 400
// naming it): the empty id is named by its place in the list
test('an empty id in the list is 400 naming its place, not skipped', async () => {
  for (const [list, n, at] of [[`${run},,${run}`, 2, run.length + 2], [`${run},${run},`, 3, 2 * run.length + 3],
    [`,${run},${run}`, 1, 1]]) {
    const r = await json(`${srv.base}/api/compare?runs=${list}`);
    assert.deepEqual([r.status, r.body], [400, { error: `runs: run id ${n} (at character ${at}) is empty; separate the ids with one comma` }], list);
  }
  assert.equal((await json(`${srv.base}/api/compare?runs=${run},${run}`)).status, 200);
});

// docs/api.md ("…; `runs: empty value; it has no default: give one`"):
// `runs` has no default, so an empty one is not told to leave it out --
// left out it is 400 too
test('runs= empty: no default to fall back on, and the message says so', async () => {
  const r = await json(`${srv.base}/api/compare?runs=`);
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'runs: empty value; it has no default: give one');
  const none = await json(`${srv.base}/api/compare`);
  assert.equal(none.status, 400);
  assert.equal(none.body.error, 'runs: give run ids, e.g. ?runs=a,b');
});
