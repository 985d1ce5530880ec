// query_unknown.test.mjs -- an /api/ query argument the route does not read
// is 400 naming it (docs/api.md "Writes, headers, limits"; DESIGN §4's rule
// for scenario keys, "unknown keys are an error (with a did you mean hint),
// never ignored", for the API's arguments): every route read the
// arguments it knows and dropped the others without a word, so
// /blocks?limit=5 answered every block and /compare?run=a,b "runs:
// missing", each as if asked something else.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { scenarioRun } from './serve_opts.mjs';
import { getJson, startServer } from './server.mjs';

let srv, run;
before(async () => {
  srv = await startServer();
  run = await scenarioRun(srv.base);
});
after(async () => { assert.equal(await srv.stop(), 0); });

test('an argument a route does not read is 400 naming it, what the route takes, or the near miss', async () => {
  const cases = [
    [`/api/runs/${run}/blocks?limit=5`, `limit: not an argument of GET /api/runs/${run}/blocks (it takes from, to, max)`],
    [`/api/runs/${run}/blocks?frm=0`, `frm: not an argument of GET /api/runs/${run}/blocks (did you mean "from"?)`],
    ['/api/health?verbose=1', 'verbose: not an argument of GET /api/health (it takes none)'],
    ['/api/compare?run=a', 'run: not an argument of GET /api/compare (did you mean "runs"?)'],
    [`/api/runs/${run}/kernels?offset=0&limt=5`, `limt: not an argument of GET /api/runs/${run}/kernels (did you mean "limit"?)`],
    [`/api/runs/${run}/export?format=trace&gzip=1`, `gzip: not an argument of GET /api/runs/${run}/export (it takes format)`],
  ];
  for (const [path, error] of cases) {
    const r = await getJson(srv.base + path);
    assert.deepEqual([r.status, r.body], [400, { error }], path);
  }
  // a HEAD is answered as its GET, the same status
  assert.equal((await fetch(`${srv.base}/api/runs/${run}/blocks?limit=5`, { method: 'HEAD' })).status, 400);
  // a write too, before its body is read or anything stored
  const imp = await getJson(`${srv.base}/api/imports?fromat=nvprof-csv`, {
    method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: 'x',
  });
  assert.deepEqual([imp.status, imp.body], [400, { error: 'fromat: not an argument of POST /api/imports (did you mean "format"?)' }]);
});

test('every argument docs/api.md gives a route is still read, and pages keep any', async () => {
  for (const path of [`/api/runs/${run}/blocks?from=0&to=1000000&max=10`, `/api/runs/${run}/occupancy?from=0&to=1000000&max=10&kernels=0`,
    `/api/runs/${run}/streams?from=0&to=1000000&max=10&names=0`, `/api/runs/${run}/kernels?offset=0&limit=5&sort=start&order=desc`,
    `/api/runs/${run}/kernels?from=0&to=1000000&max=10`, `/api/runs/${run}/copies?offset=0&limit=5`, `/api/runs/${run}/queues?at=0`,
    `/api/runs/${run}/queues?from=0&to=1000000&bins=4`, `/api/runs/${run}/tasks?bins=4`, `/api/runs/${run}/export?format=chrome`,
    `/api/runs/${run}/replay?device=h100`, `/api/compare?runs=${run}`, `/api/experiments/${run}?scenario=0`]) {
    const r = await fetch(srv.base + path);
    assert.ok(!(r.status === 400 && /not an argument/.test(await r.text())), `${path}: ${r.status}`);
  }
  // the unknown route is still a 404, not a 400 for its arguments
  assert.equal((await getJson(`${srv.base}/api/nope?x=1`)).status, 404);
  const page = await fetch(`${srv.base}/runs/${run}?view=kernels&zzz=1`);
  assert.equal(page.status, 200);
});
