// Issue 15's routes: edit and re-run as a new version (POST
// /api/experiments/{slug}/versions), versions, delete (DELETE
// /api/experiments/{slug}, behind the write token), the compare labels,
// the detected format of an import, and the app shell for unknown pages.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { getJson, repo, startServer } from './server.mjs';
import { serve, JSON_BODY, RAW } from './serve_opts.mjs';

const PASCAL = readFileSync(join(repo, 'scenarios/most-room-pascal-4.1.json'), 'utf8');
const CSV = [
  '"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Device","Context","Stream","Name"',
  'ms,ms,,,,,,,,,,',
  '0.0,1.0,2,1,1,128,1,1,"GTX 1080 (0)",1,7,"kA"',
  '0.5,1.0,2,1,1,128,1,1,"GTX 1080 (0)",1,8,"kB"',
].join('\n');

let srv;
before(async () => { srv = await startServer(); });
after(async () => { await srv.stop(); });

const post = (p, body, headers = JSON_BODY) => getJson(`${srv.base}${p}`, { method: 'POST', headers, body });

function sql(db, q) {
  const r = spawnSync('sqlite3', [db, q], { encoding: 'utf8' });
  if (r.error) return null;
  return r.stdout.trim();
}

test('a scenario edited and re-run becomes version 2 of the same experiment', async () => {
  const made = await post('/api/experiments', PASCAL);
  assert.equal(made.status, 201);
  const slug = made.body.slug;
  let exp = (await getJson(`${srv.base}/api/experiments/${slug}`)).body;
  assert.deepEqual(exp.runs.map((r) => [r.name, r.version]), [['most-room', 1], ['round-robin', 1]]);
  assert.deepEqual(exp.versions, [{ version: 1, created: null, runs: 2 }]);

  const edited = JSON.parse(PASCAL);
  edited.ops[0].blocks = 4;
  const v2 = await post(`/api/experiments/${slug}/versions`, JSON.stringify(edited));
  assert.equal(v2.status, 201);
  assert.equal(v2.body.slug, slug);
  assert.equal(v2.body.version, 2);
  assert.deepEqual(v2.body.runs.map((r) => r.name), ['most-room', 'round-robin']);
  exp = (await getJson(`${srv.base}/api/experiments/${slug}`)).body;
  assert.deepEqual(exp.runs.map((r) => [r.name, r.version, r.summary.blocks]),
    [['most-room', 1, 8], ['round-robin', 1, 8], ['most-room', 2, 7], ['round-robin', 2, 7]]);
  assert.deepEqual(exp.runs.slice(2).map((r) => r.run), v2.body.runs.map((r) => r.run));
  // the experiment shows the newest text; both texts are kept
  assert.equal(exp.scenario.ops[0].blocks, 4);
  assert.deepEqual(exp.versions.map((v) => [v.version, v.runs, typeof v.created]), [[1, 2, 'string'], [2, 2, 'string']]);
  const list = await getJson(`${srv.base}/api/experiments/${slug}/versions`);
  assert.deepEqual(list.body, { versions: exp.versions });
  const texts = sql(srv.db, `SELECT version || ':' || json_extract(scenario_json, '$.ops[0].blocks') FROM experiment_versions ORDER BY version`);
  if (texts !== null) assert.equal(texts, '1:5\n2:4');

  const v3 = await post(`/api/experiments/${slug}/versions`, PASCAL);
  assert.equal(v3.body.version, 3);
  // the whole list still comes in one answer, one experiment
  const all = (await getJson(`${srv.base}/api/experiments`)).body.experiments.filter((e) => e.slug === slug);
  assert.equal(all.length, 1);
  assert.equal(all[0].runs.length, 6);
  // the list says each run's version too (the compare page's picker tells
  // the versions' runs of one name apart by it)
  assert.deepEqual(all[0].runs.map((r) => [r.name, r.version]),
    [['most-room', 1], ['round-robin', 1], ['most-room', 2], ['round-robin', 2], ['most-room', 3], ['round-robin', 3]]);
});

test('a bad edit answers the scenario parser\'s message and stores nothing', async () => {
  const slug = (await post('/api/experiments', PASCAL)).body.slug;
  const bad = JSON.parse(PASCAL);
  bad.ops[1].threads = -5;
  let r = await post(`/api/experiments/${slug}/versions`, JSON.stringify(bad, null, 2));
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'scenario: ops[1].threads: -5 must be at least 1');
  r = await post(`/api/experiments/${slug}/versions`, '{\n  "schema": "schedlab-scenario/1",\n  ,\n}');
  assert.equal(r.status, 400);
  assert.match(r.body.error, /^scenario:3:3: JSON: /);
  r = await post(`/api/experiments/${slug}/versions`, '');
  assert.equal(r.status, 400);
  r = await post(`/api/experiments/${slug}/versions`, PASCAL, { 'Content-Type': 'text/plain' });
  assert.equal(r.status, 415);
  r = await post('/api/experiments/zzzzzzzzzz/versions', PASCAL);
  assert.equal(r.status, 404);
  assert.equal(r.body.error, 'no experiment named "zzzzzzzzzz"');
  const exp = (await getJson(`${srv.base}/api/experiments/${slug}`)).body;
  assert.equal(exp.runs.length, 2);
  assert.deepEqual(exp.versions, [{ version: 1, created: null, runs: 2 }]);

  // an import has nothing to re-run
  const imp = await post('/api/imports?name=two.csv', CSV, RAW);
  assert.equal(imp.status, 201);
  r = await post(`/api/experiments/${imp.body.experiment}/versions`, PASCAL);
  assert.equal(r.status, 409);
  assert.match(r.body.error, /is not a scenario experiment \(import\); only scenarios can be edited and re-run/);
});

test('an import answers the format it read; ?experiment= adds to an import experiment', async () => {
  const a = await post('/api/imports?name=one.csv', CSV, RAW);
  assert.equal(a.status, 201);
  assert.equal(a.body.format, 'nvprof-csv');
  const b = await post(`/api/imports?name=again.csv&experiment=${a.body.experiment}&format=nvprof-csv`, CSV, RAW);
  assert.equal(b.status, 201);
  assert.deepEqual([b.body.experiment, b.body.format], [a.body.experiment, 'nvprof-csv']);
  const exp = (await getJson(`${srv.base}/api/experiments/${a.body.experiment}`)).body;
  assert.deepEqual(exp.runs.map((r) => [r.name, r.version]), [['one.csv', 1], ['again.csv', 1]]);
});

// docs/api.md: a run's `version` is "1 for imports", and `versions` lists
// "version 1 ... `created` null for a version 1 never edited": every
// experiment has its version 1. A sweep (no runs, never edited) answered
// [] where an import answered its version 1, and its page still read "version 1".
test('a sweep, an import and a scenario never edited each list version 1', async () => {
  const { body } = await getJson(`${srv.base}/api/experiments`);
  const sweep = body.experiments.find((e) => e.source === 'sweep');
  assert.ok(sweep, 'the seed database holds a sweep');
  assert.deepEqual(sweep.runs, []);
  const v = await getJson(`${srv.base}/api/experiments/${sweep.slug}/versions`);
  assert.deepEqual([v.status, v.body], [200, { versions: [{ version: 1, created: null, runs: 0 }] }]);
  assert.deepEqual((await getJson(`${srv.base}/api/experiments/${sweep.slug}`)).body.versions,
    [{ version: 1, created: null, runs: 0 }]);
  const imp = await post('/api/imports?name=v1.csv', CSV, RAW);
  assert.equal(imp.status, 201);
  assert.deepEqual((await getJson(`${srv.base}/api/experiments/${imp.body.experiment}/versions`)).body,
    { versions: [{ version: 1, created: null, runs: 1 }] });
  const scn = await post('/api/experiments', PASCAL);
  assert.equal(scn.status, 201);
  assert.deepEqual((await getJson(`${srv.base}/api/experiments/${scn.body.slug}/versions`)).body,
    { versions: [{ version: 1, created: null, runs: scn.body.runs.length }] });
});

test('delete removes the experiment, its runs and every row of theirs', async () => {
  const keep = (await post('/api/experiments', PASCAL)).body.slug;
  const slug = (await post('/api/experiments', PASCAL)).body.slug;
  await post(`/api/experiments/${slug}/versions`, PASCAL);
  const exp = (await getJson(`${srv.base}/api/experiments/${slug}`)).body;
  const ids = sql(srv.db, `SELECT group_concat(r.id) FROM runs r JOIN experiments e ON e.id = r.experiment WHERE e.slug = '${slug}'`);
  const r = await getJson(`${srv.base}/api/experiments/${slug}`, { method: 'DELETE' });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { deleted: slug, runs: 4 });
  assert.equal((await getJson(`${srv.base}/api/experiments/${slug}`)).status, 404);
  for (const run of exp.runs) assert.equal((await getJson(`${srv.base}/api/runs/${run.run}`)).status, 404);
  const again = await getJson(`${srv.base}/api/experiments/${slug}`, { method: 'DELETE' });
  assert.equal(again.status, 404);
  assert.equal(again.body.error, `no experiment named "${slug}"`);
  // the other experiment is whole
  const other = (await getJson(`${srv.base}/api/experiments/${keep}`)).body;
  assert.deepEqual(other.runs.map((x) => x.summary.blocks), [8, 8]);
  assert.equal((await getJson(`${srv.base}/api/runs/${other.runs[0].run}/blocks`)).body.blocks.length, 8);
  if (ids !== null) {
    // no row of any table names a deleted run
    const tables = sql(srv.db, "SELECT m.name FROM sqlite_schema m, pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name = 'run'").split('\n');
    assert.ok(tables.includes('block_pages') && tables.includes('strings'), tables.join(','));
    for (const t of tables) assert.equal(sql(srv.db, `SELECT count(*) FROM ${t} WHERE run IN (${ids})`), '0', t);
    assert.equal(sql(srv.db, `SELECT count(*) FROM experiment_versions v WHERE NOT EXISTS (SELECT 1 FROM experiments e WHERE e.id = v.experiment)`), '0');
  }
});

test('with --token, delete needs it (401), and a foreign Origin is refused (403)', async () => {
  const s = await serve(['--token', 'tok']);
  try {
    const auth = { Authorization: 'Bearer tok' };
    const made = await getJson(`${s.base}/api/experiments`, { method: 'POST', headers: { ...JSON_BODY, ...auth }, body: PASCAL });
    assert.equal(made.status, 201);
    const url = `${s.base}/api/experiments/${made.body.slug}`;
    let r = await getJson(url, { method: 'DELETE' });
    assert.equal(r.status, 401);
    assert.match(r.body.error, /needs a token/);
    r = await getJson(url, { method: 'DELETE', headers: { Authorization: 'Bearer wrong' } });
    assert.equal(r.status, 401);
    r = await getJson(url, { method: 'DELETE', headers: { ...auth, Origin: 'http://evil.example' } });
    assert.equal(r.status, 403);
    r = await getJson(`${url}/versions`, { method: 'POST', headers: JSON_BODY, body: PASCAL });
    assert.equal(r.status, 401);
    assert.equal((await getJson(url)).status, 200);
    r = await getJson(url, { method: 'DELETE', headers: auth });
    assert.equal(r.status, 200);
    assert.equal((await getJson(url)).status, 404);
  } finally {
    await s.stop();
  }
});

test('compare labels every run "experiment · run", across experiments', async () => {
  const a = (await post('/api/experiments', PASCAL)).body;
  const imp = (await post('/api/imports?name=trace.csv', CSV, RAW)).body;
  const r = await getJson(`${srv.base}/api/compare?runs=${a.runs[1].run},${imp.run}`);
  assert.equal(r.status, 200);
  const name = JSON.parse(PASCAL).name;
  const impName = (await getJson(`${srv.base}/api/experiments/${imp.experiment}`)).body.name;
  assert.deepEqual(r.body.runs.map((x) => [x.experiment, x.experiment_name, x.label]), [
    [a.slug, name, `${name} · round-robin`], [imp.experiment, impName, `${impName} · trace.csv`]]);
});

test('an unknown page answers a browser the app shell with 404; other clients and API routes get JSON', async () => {
  const HTML = { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
  let r = await fetch(`${srv.base}/no/such/page`, { headers: HTML });
  assert.equal(r.status, 404);
  assert.match(r.headers.get('content-type'), /text\/html/);
  assert.match(await r.text(), /<main id="app"/);
  r = await fetch(`${srv.base}/no/such/page`);
  assert.equal(r.status, 404);
  assert.deepEqual(await r.json(), { error: 'no such page or file: /no/such/page' });
  r = await fetch(`${srv.base}/api/no/such`, { headers: HTML });
  assert.equal(r.status, 404);
  assert.deepEqual(await r.json(), { error: 'no such API route: GET /api/no/such' });
  r = await fetch(`${srv.base}/js/missing.mjs`, { headers: HTML });
  assert.equal(r.status, 404);
  assert.match(r.headers.get('content-type'), /application\/json/);
  r = await fetch(`${srv.base}/api/experiments/zzzzzzzzzz`, { method: 'PUT', headers: JSON_BODY, body: '{}' });
  assert.equal(r.status, 405);
});
