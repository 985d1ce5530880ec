// sweep_jobs.test.mjs -- sweeps started through the API (issue 30): POST
// /api/sweeps runs the CLI's sweep as a job (202 {job}; GET /api/jobs/{id}
// counts tasksets or points; DELETE /api/jobs/{id} cancels), stores the
// result exactly as `schedlab sweep --db` stores it, refuses bad specs with
// the CLI's message (400, the place named) and specs past the budget (422,
// the limit named); and the shipped sweeps are seeded with the paper's
// numbers beside (server/sweep_seed.h).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { startServer, getJson, cli } from './server.mjs';

const SWEEPS = resolve('sweeps');
const SMALL = {
  schema: 'schedlab-sweep/1', name: 'page sweep', seed: 5, tasksets: 30,
  x: { param: 'tasks', values: [4, 8] }, approaches: ['tsg_rr_suspend', 'gcaps_suspend_gprio'],
};
let srv, dir;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schedlab-sweepjobs-'));
  // no shipped scenarios (their seeding is not what this tests, and takes
  // minutes on a loaded machine); the sweeps folder beside, as in a checkout
  mkdirSync(join(dir, 'scenarios'));
  symlinkSync(SWEEPS, join(dir, 'sweeps'));
  srv = await startServer({ fresh: true, args: ['--scenarios', join(dir, 'scenarios')] });
});
after(async () => {
  if (srv) await srv.stop();
  rmSync(dir, { recursive: true, force: true });
});

const post = (q, body) => getJson(`${srv.base}/api/sweeps${q}`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)),
});

async function finish(job, seen = []) {
  for (let i = 0; i < 1200; i++) {
    const j = (await getJson(`${srv.base}/api/jobs/${job}`)).body;
    seen.push(j);
    if (['done', 'failed', 'aborted'].includes(j.state)) return j;
    await new Promise((ok) => setTimeout(ok, 50));
  }
  throw new Error(`job ${job} did not end`);
}

test('a sweep from the page is the CLI\'s sweep, stored the same way', async () => {
  const r = await post('', SMALL);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const seen = [];
  const j = await finish(r.body.job, seen);
  assert.equal(j.state, 'done', JSON.stringify(j));
  // docs/api.md: "it ends 201 with "result": {"slug", "wall_s", "threads"}"
  assert.equal(j.status, 201, JSON.stringify(j));
  assert.deepEqual(Object.keys(j.result).sort(), ['slug', 'threads', 'wall_s']);
  assert.equal(j.kind, 'sweep');
  assert.equal(j.total, 60, 'progress counts tasksets: 2 points x 30');
  assert.equal(j.done, 60);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].done >= seen[i - 1].done, 'progress never goes back');
  const slug = j.result.slug;
  const e = (await getJson(`${srv.base}/api/experiments/${slug}`)).body;
  assert.equal(e.source, 'sweep');
  const served = await fetch(`${srv.base}/api/experiments/${slug}/sweep`).then((x) => x.json());
  // the CLI on the same spec: the same result, to the byte once canonical
  const spec = join(dir, 'small.json');
  writeFileSync(spec, JSON.stringify(SMALL));
  const out = join(dir, 'small.out.json');
  const c = cli(['sweep', spec, '--db', join(dir, 'cli.db'), '-o', out, '--threads', '1']);
  assert.equal(c.code, 0, c.stderr);
  assert.deepEqual(served, JSON.parse(readFileSync(out, 'utf8')));
});

test('a shipped spec by name; the specs listed with their size and the limits', async () => {
  const list = (await getJson(`${srv.base}/api/sweeps/specs`)).body;
  const files = list.specs.map((s) => s.file);
  for (const f of ['gcaps-fig8a-tasks.json', 'isca17-qosreach-reduced.json']) assert.ok(files.includes(f), f);
  assert.ok(!files.includes('isca17-kernels.json') && !files.includes('isca17-pair.json'), 'templates and kernel sets are no specs');
  // this server has no kernel library beside its (empty) scenarios folder:
  // a spec naming library kernels does not read, and says why
  const parboil = list.specs.find((s) => s.file === 'isca17-parboil-histo-whole.json');
  assert.ok(parboil, 'a spec that does not read is still listed');
  assert.equal(parboil.fits, false);
  assert.match(parboil.error, /^isca17-parboil-histo-whole\.json: kernels\[0\]\.program: "cutcp" is not in the kernel library/);
  assert.equal(list.specs.find((s) => s.file === 'gcaps-fig8a-tasks.json').error, undefined);
  const a = list.specs.find((s) => s.file === 'gcaps-fig8a-tasks.json');
  assert.equal(a.units, 10 * 1000);
  assert.equal(a.fits, true);
  assert.equal(list.specs.find((s) => s.file === 'isca17-qosreach.json').fits, false, 'the full QoS sweep is the CLI\'s');
  for (const k of ['sweep_analyses', 'sweep_cycles', 'sweep_threads']) assert.ok(list.limits[k] > 0, k);
  const text = (await getJson(`${srv.base}/api/sweeps/specs/gcaps-fig8a-tasks.json`)).body;
  assert.equal(text.schema, 'schedlab-sweep/1');
  assert.equal((await getJson(`${srv.base}/api/sweeps/specs/..%2Fscenarios%2Ftx2-fig3-basic-rules.json`)).status, 404);
  const r = await post('?spec=gcaps-fig8a-tasks.json&threads=1');
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const j = await finish(r.body.job);
  assert.equal(j.state, 'done', JSON.stringify(j));
  const s = (await getJson(`${srv.base}/api/experiments/${j.result.slug}/sweep`)).body;
  assert.equal(s.tasksets, 1000);
  assert.equal(s.spec.reference.schedulable.gcaps_suspend_gprio.length, 10, 'the released code\'s numbers ride along');
});

test('cancel stops a running sweep within a second and stores nothing', async () => {
  const before = (await getJson(`${srv.base}/api/experiments`)).body.experiments.length;
  const big = { ...SMALL, name: 'to cancel', tasksets: 400000, x: { param: 'tasks', values: [12] }, approaches: undefined };
  const r = await post('', big);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const id = r.body.job;
  for (let i = 0; i < 400; i++) {
    const j = (await getJson(`${srv.base}/api/jobs/${id}`)).body;
    if (j.state === 'running' && j.done > 0) break;
    await new Promise((ok) => setTimeout(ok, 25));
  }
  const t0 = Date.now();
  const c = await getJson(`${srv.base}/api/jobs/${id}`, { method: 'DELETE' });
  assert.equal(c.status, 202, JSON.stringify(c.body));
  assert.equal(c.body.cancelled, true);
  const j = await finish(id);
  const took = Date.now() - t0;
  assert.equal(j.state, 'aborted', JSON.stringify(j));
  assert.equal(j.status, 409);
  assert.match(j.error, /cancelled; nothing was stored/);
  assert.ok(j.done < j.total, 'stopped before the end');
  assert.ok(took < 1000, `cancel took ${took} ms`);
  assert.equal((await getJson(`${srv.base}/api/experiments`)).body.experiments.length, before);
  const ended = await getJson(`${srv.base}/api/jobs/${id}`, { method: 'DELETE' });
  assert.equal(ended.status, 200, 'a finished job: nothing to cancel');
  assert.deepEqual([ended.body.job, ended.body.state, ended.body.cancelled], [id, 'aborted', false]);
  assert.equal((await getJson(`${srv.base}/api/jobs/nosuchjob`, { method: 'DELETE' })).status, 404);
  const gone = await getJson(`${srv.base}/api/jobs/nosuchjob`);
  assert.equal(gone.status, 404);
  assert.match(gone.body.error, /^no job named "nosuchjob"/);
});

test('a bad spec: 400 with the CLI\'s message and its place', async () => {
  const r = await post('', { ...SMALL, x: { param: 'tasks', values: [4, 'eight'] } });
  assert.equal(r.status, 400);
  const spec = join(dir, 'bad.json');
  writeFileSync(spec, JSON.stringify({ ...SMALL, x: { param: 'tasks', values: [4, 'eight'] } }));
  const c = cli(['sweep', spec, '--db', join(dir, 'bad.db')]);
  assert.equal(r.body.error, `sweep: ${c.stderr.replace(/^schedlab: /, '').replace(`${spec}: `, '').trim()}`);
  assert.match(r.body.error, /^sweep: x\.values\[1\]: /);
  const j = await post('', '{"schema": "schedlab-sweep/1",\n "name": }');
  assert.equal(j.status, 400);
  assert.match(j.body.error, /^sweep:2:\d+: JSON: /);
  // a spec sent to the server reads no file but the shipped sweeps folder's
  const q = JSON.parse(readFileSync(join(SWEEPS, 'isca17-qosreach-reduced.json'), 'utf8'));
  const t = await post('', { ...q, template: '/etc/passwd' });
  assert.equal(t.status, 400);
  assert.match(t.body.error, /^sweep: template: "\/etc\/passwd" is not a file of the shipped sweeps folder/);
  const k = await post('', { ...q, kernels: '../scenarios/kernels/lbm.json' });
  assert.equal(k.status, 400);
  assert.match(k.body.error, /^sweep: kernels: "\.\.\/scenarios\/kernels\/lbm\.json" is not a file of the shipped sweeps folder/);
  assert.equal((await post('?spec=nosuch.json')).status, 404);
  // a body whose tree would need more memory than the JSON reader's budget
  // (16 times its size plus 16 MiB: an empty object costs some 80 times its
  // 3 bytes) is 413 (docs/api.md), as a scenario's is
  const huge = `{"schema": "schedlab-sweep/1", "pad": [${'{},'.repeat(200000)}{}]}`;
  const h = await post('', huge);
  assert.equal(h.status, 413, JSON.stringify(h.body));
  assert.match(h.body.error, /^sweep: JSON: the document needs more than \d+ MiB of memory to read/);
  const both = await post('?spec=gcaps-fig8a-tasks.json', SMALL);
  assert.equal(both.status, 400);
  assert.equal(both.body.error, 'sweep: give a spec in the body or ?spec=FILE, not both');
  assert.equal((await post('', '')).status, 400);
});

test('too big for one job: 422 naming the limit', async () => {
  const r = await post('', { ...SMALL, tasksets: 10000000 });
  assert.equal(r.status, 422);
  assert.match(r.body.error, /^sweep: 40000000 analyses .* over the budget's sweep_analyses \d+/);
  assert.equal(r.body.work.sweep_analyses, 40000000);
  const q = await post('?spec=isca17-qosreach.json');
  assert.equal(q.status, 422);
  assert.match(q.body.error, /over the budget's sweep_cycles/);
  // the full trio sweeps: "pairs": "all" over the 8 synthetic kernels is 8
  // x C(7, 2) = 168 trios with one QoS kernel, C(8, 2) x 6 = 168 with two;
  // x 10 goals x 2 schemes x the 150K-cycle window
  for (const f of ['isca17-trio1-qosreach.json', 'isca17-trio2-qosreach.json']) {
    const w = await post(`?spec=${f}`);
    assert.equal(w.status, 422, f);
    assert.equal(w.body.work.sweep_cycles, 168 * 10 * 2 * 150000, f);
  }
  const t = await post('?threads=999', SMALL);
  assert.equal(t.status, 422);
  assert.match(t.body.error, /^threads: 999 is over the budget's sweep_threads \d+/);
  // the default sweep_threads is 2 (docs/cli.md): 3 is past it; 0 is no count of threads
  const t3 = await post('?threads=3', SMALL);
  assert.equal(t3.status, 422);
  assert.match(t3.body.error, /^threads: 3 is over the budget's sweep_threads 2 /);
  const t0 = await post('?threads=0', SMALL);
  assert.equal(t0.status, 400);
  assert.equal(t0.body.error, 'threads: expected a whole number from 1, got "0"');
});

test('the shipped sweeps are in the default database, the paper\'s numbers beside', async () => {
  const { experiments } = (await getJson(`${srv.base}/api/experiments`)).body;
  const sweeps = [];
  for (const e of experiments.filter((x) => x.source === 'sweep')) {
    const one = (await getJson(`${srv.base}/api/experiments/${e.slug}?scenario=0`)).body;
    if (one.scenario_file) sweeps.push(one);
  }
  const files = sweeps.map((e) => e.scenario_file).sort();
  assert.deepEqual(files, ['a-tasks', 'b-util', 'c-cpus', 'd-gpu-ratio', 'e-g-to-c', 'f-best-effort']
    .map((p) => `sweeps/gcaps-fig8${p}.json`).concat(['sweeps/isca17-qosreach-reduced.json',
      'sweeps/isca17-trio1-reduced.json', 'sweeps/isca17-trio2-reduced.json',
      // stored from their shipped results (sweeps/results/)
      'sweeps/isca17-parboil-paper-rollover-spart.json',
      'sweeps/isca17-parboil-trio1-paper.json', 'sweeps/isca17-parboil-trio2-paper.json']).sort());
  for (const e of sweeps) {
    const s = (await getJson(`${srv.base}/api/experiments/${e.slug}/sweep`)).body;
    if (/trio/.test(e.scenario_file)) {
      // the paper gives the trios' numbers only as Rollover's gain over
      // Spart, which the page draws (PAPER_TRIOS, web/js/views/sweep.mjs)
      assert.equal(s.kind, 'qos');
      assert.ok(s.pairs.every((p) => Object.keys(p).length === 4), e.scenario_file);
      continue;
    }
    assert.ok(s.spec.reference && s.spec.reference.source, e.scenario_file);
    // Fig. 6a's QoSreach, for the schemes the sweep runs
    const fig6a = { naive: 20.6, rollover: 88.4, spart: 78.8 };
    if (s.kind === 'qos') {
      assert.deepEqual(s.spec.reference.qosreach,
        Object.fromEntries(s.spec.schemes.map((x) => x.name).filter((n) => n in fig6a).map((n) => [n, fig6a[n]])));
    }
    else assert.equal(s.spec.reference.schedulable.gcaps_suspend_gprio.length, s.x.values.length);
  }
});

// The listing is kept between requests (sweep_api.c: a QoS spec's check
// reads its template under each scheme, a second of CPU for the shipped
// folder) and made again when a file of the folder is edited, added or
// removed: never an answer of files that are no longer there.
test('the specs listing follows the folder: a spec edited, added, broken, removed', async () => {
  const d = mkdtempSync(join(tmpdir(), 'schedlab-speclist-'));
  mkdirSync(join(d, 'scenarios'));
  mkdirSync(join(d, 'sweeps'));
  const a = JSON.parse(readFileSync(join(SWEEPS, 'gcaps-fig8a-tasks.json'), 'utf8'));
  const put = (name, obj) => writeFileSync(join(d, 'sweeps', name), typeof obj === 'string' ? obj : JSON.stringify(obj));
  put('a.json', a);
  const s = await startServer({ fresh: true, args: ['--scenarios', join(d, 'scenarios')] });
  const list = async () => {
    const r = await getJson(`${s.base}/api/sweeps/specs`);
    assert.equal(r.status, 200);
    return r.body;
  };
  const brief = (l) => l.specs.map((x) => [x.file, x.name, x.units ?? x.error]);
  try {
    const first = await list();
    assert.deepEqual(brief(first), [['a.json', a.name, a.x.values.length * a.tasksets]]);
    assert.deepEqual(await list(), first, 'asked again: the same answer');
    put('a.json', { ...a, name: 'edited', tasksets: 7 });
    assert.deepEqual(brief(await list()), [['a.json', 'edited', a.x.values.length * 7]]);
    put('b.json', { ...a, name: 'added' });
    put('c.json', '{"schema": "schedlab-sweep/1", "name": "broken", "tasksets": -1}');
    const three = brief(await list());
    assert.deepEqual(three.map((x) => x.slice(0, 2)), [['a.json', 'edited'], ['b.json', 'added'], ['c.json', 'broken']]);
    assert.match(three[2][2], /^c\.json: /, 'a spec that does not read: listed with the reason');
    rmSync(join(d, 'sweeps', 'b.json'));
    rmSync(join(d, 'sweeps', 'c.json'));
    assert.deepEqual(brief(await list()), [['a.json', 'edited', a.x.values.length * 7]]);
  } finally {
    await s.stop();
    rmSync(d, { recursive: true, force: true });
  }
});
