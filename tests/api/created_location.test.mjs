// created_location.test.mjs -- a 201 names what it created in Location
// (RFC 9110 15.3.2: "the primary resource created by the request is
// identified by either a Location header field in the response or, if no
// Location header field is received, by the target URI"). Without it, a
// client that follows the RFC took POST /api/experiments' 201 to have
// created /api/experiments itself, and a teammate's script had to know which
// body key to read per route; now the experiment's (or the imported run's)
// URL, which GET answers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ENDLESS_ERROR, endlessScenario, repo } from './server.mjs';
import { JSON_BODY, RAW, json, serve } from './serve_opts.mjs';

let srv;
before(async () => { srv = await serve(); });
after(async () => { assert.equal(await srv.stop(), 0); });

const SCENARIO = readFileSync(join(repo, 'scenarios/tx2-fig3-basic-rules.json'), 'utf8');

async function created(r, want) {
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.headers.get('location'), want);
  const g = await json(`${srv.base}${want}`);
  assert.equal(g.status, 200, want);
  return g.body;
}

test('POST /api/experiments: Location /api/experiments/{slug}', async () => {
  const r = await json(`${srv.base}/api/experiments`, { method: 'POST', body: SCENARIO, headers: JSON_BODY });
  const e = await created(r, `/api/experiments/${r.body.slug}`);
  assert.equal(e.slug, r.body.slug);
  // an edit and re-run adds a version to that experiment
  const v = await json(`${srv.base}/api/experiments/${r.body.slug}/versions`, { method: 'POST', body: SCENARIO, headers: JSON_BODY });
  const e2 = await created(v, `/api/experiments/${r.body.slug}`);
  assert.equal(e2.versions.length, 2);
});

test('POST /api/imports: Location /api/runs/{run}', async () => {
  const csv = 'kernel,block,sm,start_ns,end_ns,stream,threads\nK1,0,0,0,100,S1,32\n';
  const r = await json(`${srv.base}/api/imports`, { method: 'POST', body: csv, headers: RAW });
  const run = await created(r, `/api/runs/${r.body.run}`);
  assert.equal(run.experiment, r.body.experiment);
});

test('answers that create nothing carry no Location', async () => {
  const bad = await json(`${srv.base}/api/experiments`, { method: 'POST', body: '{}', headers: JSON_BODY });
  assert.equal(bad.status, 400);
  assert.equal(bad.headers.get('location'), null);
  const list = await json(`${srv.base}/api/experiments`);
  assert.equal(list.headers.get('location'), null);
});

// A scenario that parses and fits the budget but that the simulator refuses
// is the client's mistake, answered as every other (docs/api.md: "The 400
// names the place": server.mjs, endlessScenario); and a body whose JSON tree
// would pass the reader's memory budget (16 times its size plus 16 MiB; an
// empty object costs some 78 times its 3 bytes) is 413 (docs/api.md).
// Neither creates anything, so neither has a Location.
test('a scenario the simulator refuses is 400 naming the run and the op; a body past the JSON budget 413; no Location', async () => {
  const before = (await json(`${srv.base}/api/experiments`)).body.experiments.length;
  const r = await json(`${srv.base}/api/experiments`, { method: 'POST', body: endlessScenario(), headers: JSON_BODY });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.match(r.body.error, ENDLESS_ERROR);
  assert.equal(r.headers.get('location'), null);
  const huge = `{"schema": "schedlab-scenario/1", "pad": [${'{},'.repeat(200000)}{}]}`;
  const h = await json(`${srv.base}/api/experiments`, { method: 'POST', body: huge, headers: JSON_BODY });
  assert.equal(h.status, 413, JSON.stringify(h.body));
  assert.match(h.body.error, /^scenario: JSON: the document needs more than \d+ MiB of memory to read/);
  assert.equal(h.headers.get('location'), null);
  assert.equal((await json(`${srv.base}/api/experiments`)).body.experiments.length, before);
});
