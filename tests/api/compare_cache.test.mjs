// compare_cache.test.mjs -- GET /api/compare answered from the kernel
// table's cache (server/http/compare_cache.c, issue 15) is byte for byte the
// answer built afresh, per ordered run list; a deleted run is a 404, not a
// cached table; GET /api/experiments/{slug}?scenario=0 is the same answer
// less the scenario.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { getJson, repo, startServer } from './server.mjs';

const JSON_BODY = { 'Content-Type': 'application/json' };
// the paper's Fig. 4.1 case (scenarios/most-room-pascal-4.1.json): kernels
// X and Y placed by most-room and by round-robin end at different times, so
// the order of the runs shows in the rows; a third run repeats round-robin
const scenario = JSON.parse(readFileSync(join(repo, 'scenarios/most-room-pascal-4.1.json'), 'utf8'));
scenario.name = 'compare cache test';
scenario.variants.push({ name: 'round-robin again', policy: { placement: 'round-robin' } });

// another experiment's one kernel, K1: a run of it beside one of the first
// has rows with a null where a run lacks the kernel
const other = {
  schema: 'schedlab-scenario/1', name: 'compare cache test: K1', device: 'tx2', streams: [{ name: 'S1' }],
  ops: [{ kernel: 'K1', stream: 'S1', at: 0, blocks: 4, threads: 1024, block_time: '1ms' }],
};

let srv;
let slug;
let runs;
let k1run;

before(async () => {
  srv = await startServer();
  const r = await getJson(`${srv.base}/api/experiments`, { method: 'POST', body: JSON.stringify(scenario), headers: JSON_BODY });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  slug = r.body.slug;
  runs = r.body.runs.map((x) => x.run);
  assert.equal(runs.length, 3);
  const o = await getJson(`${srv.base}/api/experiments`, { method: 'POST', body: JSON.stringify(other), headers: JSON_BODY });
  assert.equal(o.status, 201, JSON.stringify(o.body));
  k1run = o.body.runs[0].run;
});

after(async () => {
  assert.equal(await srv.stop(), 0);
});

const raw = async (p) => {
  const r = await fetch(`${srv.base}${p}`);
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
};

test('a repeated compare answers the same bytes, and they are the kernels of the runs asked, in that order', async () => {
  const [a, b, c] = runs;
  const first = await raw(`/api/compare?runs=${a},${b}`);
  assert.equal(first.status, 200);
  assert.equal(first.type, 'application/json');
  for (let i = 0; i < 3; i++) assert.equal((await raw(`/api/compare?runs=${a},${b}`)).text, first.text);
  const body = JSON.parse(first.text);
  assert.deepEqual(Object.keys(body), ['runs', 'kernels', 'tasks']);
  assert.deepEqual(body.runs.map((x) => x.run), [a, b]);
  assert.deepEqual(body.kernels.map((k) => [k.name, k.stream]), [['X', 'SX'], ['Y', 'SY']]);
  // each row's numbers are those of the runs' own kernels, run a first
  const ka = (await getJson(`${srv.base}/api/runs/${a}/kernels`)).body.kernels;
  const kb = (await getJson(`${srv.base}/api/runs/${b}/kernels`)).body.kernels;
  for (const [i, name] of ['X', 'Y'].entries()) {
    const x = ka.find((k) => k.name === name);
    const y = kb.find((k) => k.name === name);
    assert.deepEqual(body.kernels[i].end, [x.end, y.end]);
    assert.deepEqual(body.kernels[i].start, [x.first_block, y.first_block]);
    assert.deepEqual(body.kernels[i].response, [x.end - x.issue, y.end - y.issue]);
  }
  assert.deepEqual(body.tasks, []);
  // the other order is another list: its rows in that order, not a's table
  // the other order is another list: a cache keyed without the order would
  // answer the first list's rows
  const k1 = (await getJson(`${srv.base}/api/runs/${k1run}/kernels`)).body.kernels[0];
  const ad = JSON.parse((await raw(`/api/compare?runs=${a},${k1run}`)).text);
  assert.deepEqual(ad.kernels.map((k) => [k.name, k.end]),
    [['X', [ka[0].end, null]], ['Y', [ka[1].end, null]], ['K1', [null, k1.end]]]);
  const da = JSON.parse((await raw(`/api/compare?runs=${k1run},${a}`)).text);
  assert.deepEqual(da.kernels.map((k) => [k.name, k.end]),
    [['K1', [k1.end, null]], ['X', [null, ka[0].end]], ['Y', [null, ka[1].end]]]);
  assert.equal((await raw(`/api/compare?runs=${k1run},${a}`)).text, JSON.stringify(da));
  // three runs, and a run with itself, are lists of their own
  const three = JSON.parse((await raw(`/api/compare?runs=${a},${b},${c}`)).text);
  assert.equal(three.kernels[0].end.length, 3);
  assert.deepEqual(three.kernels[0].end.slice(0, 2), body.kernels[0].end);
  const self = JSON.parse((await raw(`/api/compare?runs=${a},${a}`)).text);
  assert.deepEqual(self.kernels[0].end, [body.kernels[0].end[0], body.kernels[0].end[0]]);
});

test('?scenario=0 is the experiment less its scenario; 1 is the default; another value is a 400', async () => {
  const full = (await getJson(`${srv.base}/api/experiments/${slug}`)).body;
  assert.equal(full.scenario.ops[1].kernel, 'Y');
  const brief = await getJson(`${srv.base}/api/experiments/${slug}?scenario=0`);
  assert.equal(brief.status, 200);
  assert.ok(!('scenario' in brief.body));
  const { scenario: _, ...rest } = full;
  assert.deepEqual(brief.body, rest);
  assert.deepEqual((await getJson(`${srv.base}/api/experiments/${slug}?scenario=1`)).body, full);
  const bad = await getJson(`${srv.base}/api/experiments/${slug}?scenario=no`);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, 'scenario: expected 0 (leave the scenario out) or 1, got "no"');
});

test('a deleted run is a 404 even when its comparison was kept', async () => {
  const [a, b] = runs;
  assert.equal((await raw(`/api/compare?runs=${a},${b}`)).status, 200);
  const del = await getJson(`${srv.base}/api/experiments/${slug}`, { method: 'DELETE' });
  assert.equal(del.status, 200);
  const gone = await getJson(`${srv.base}/api/compare?runs=${a},${b}`);
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error, `no run named "${a}"`);
});
