// query_empty.test.mjs -- an /api/ query argument given with an empty value
// (?max=) or without '=' (?max) is a 400 naming it, on every route, for
// every argument it reads (docs/api.md "Writes, headers, limits"): the
// routes each read it their own way, ?max=, ?format=, ?device= and ?from=
// as the default, ?limit=, ?bins= and ?scenario= as a bad value (400), ?max
// (no '=') as left out. The exceptions are the arguments whose empty value
// docs/api.md gives a meaning of its own: /occupancy's `kernels=` (no
// kernel) and /streams' `names=` (no name), the empty list. Every route
// and argument comes from server/http/routes.c, so one added later is
// covered.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { json, scenarioRun, serve } from './serve_opts.mjs';
import { repo } from './server.mjs';

// docs/api.md: `kernels=` (empty) is no kernel; `names` ... empty: no name
const EMPTY_IS_A_VALUE = { '/api/runs/*/occupancy': ['kernels'], '/api/runs/*/streams': ['names'] };

// [method, pattern, [args]] of each route that reads arguments
function routeArgs() {
  const src = readFileSync(join(repo, 'server/http/routes.c'), 'utf8');
  const out = [];
  for (const m of src.matchAll(/\{"(GET|POST|DELETE)", "([^"]+)", \w+,([^}]*)\}/g)) {
    const a = /ARGS\(([^)]*)\)/.exec(m[3]);
    if (!a) continue;
    const args = a[1].replace('WINDOW', '"from", "to", "max"').match(/"[^"]+"/g).map((s) => s.slice(1, -1));
    out.push([m[1], m[2], args]);
  }
  return out;
}

let srv, run, exp;
before(async () => {
  srv = await serve();
  run = await scenarioRun(srv.base);
  exp = (await json(`${srv.base}/api/runs/${run}`)).body.experiment;
});
after(async () => { assert.equal(await srv.stop(), 0); });

const path = (pattern) => pattern.replace('/api/experiments/*', `/api/experiments/${exp}`).replace('/api/runs/*', `/api/runs/${run}`);
const ask = (method, url) => json(`${srv.base}${url}`, { method });

test('routes.c lists the routes docs/api.md gives arguments', () => {
  const r = routeArgs();
  assert.ok(r.length >= 15, `${r.length} routes with arguments`);
  for (const [pattern, args] of Object.entries(EMPTY_IS_A_VALUE))
    assert.ok(r.some(([m, p, a]) => m === 'GET' && p === pattern && a.includes(args[0])), pattern);
});

test('an empty value, or none, is 400 naming the argument, on every route', async () => {
  for (const [method, pattern, args] of routeArgs()) {
    for (const arg of args) {
      if ((EMPTY_IS_A_VALUE[pattern] || []).includes(arg)) continue;
      const want = arg === 'runs' ? 'runs: empty value; it has no default: give one'
        : `${arg}: empty value; leave the argument out for the default`;
      for (const q of [`${arg}=`, arg]) {
        const url = `${path(pattern)}?${q}`;
        const r = await ask(method, url);
        assert.deepEqual([r.status, r.body], [400, { error: want }], `${method} ${url}`);
      }
    }
  }
  // beside a good argument, and a HEAD as its GET
  const r = await ask('GET', `/api/runs/${run}/blocks?from=0&max=`);
  assert.deepEqual([r.status, r.body.error], [400, 'max: empty value; leave the argument out for the default']);
  assert.equal((await fetch(`${srv.base}/api/runs/${run}/export?format=`, { method: 'HEAD' })).status, 400);
});

test('kernels= and names= are the empty list; without "=" they are 400', async () => {
  const w = `from=0&to=1000000000&max=1`;
  const occ = await ask('GET', `/api/runs/${run}/occupancy?${w}&kernels=`);
  assert.equal(occ.status, 200, JSON.stringify(occ.body));
  assert.equal(occ.body.total, 0);   // no kernel: no block
  const st = await ask('GET', `/api/runs/${run}/streams?${w}&names=`);
  assert.equal(st.status, 200, JSON.stringify(st.body));
  for (const lane of st.body.lanes) assert.ok(lane.kernel_ns.every((x) => x === 0), 'no name: no busy time');
  for (const [route, arg] of [['occupancy', 'kernels'], ['streams', 'names']]) {
    const r = await ask('GET', `/api/runs/${run}/${route}?${w}&${arg}`);
    assert.deepEqual([r.status, r.body.error],
      [400, `${arg}: no value (no '='): "${arg}=" is the empty list; leave the argument out for the default`]);
  }
});

test('each argument left out is still its default', async () => {
  for (const url of [`/api/runs/${run}/blocks`, `/api/runs/${run}/tasks`, `/api/runs/${run}/export`,
    `/api/experiments/${exp}`, `/api/runs/${run}/kernels`]) {
    const r = await fetch(`${srv.base}${url}`);
    assert.equal(r.status, 200, url);
    await r.arrayBuffer();
  }
});
