// api.test.mjs -- every route of docs/api.md against a real `schedlab serve`.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { fixture, getJson, realTrace, repo, startServer } from './server.mjs';

const NVPROF_CSV = 'nvprof_gputrace_magus_concurrentKernels_gtx1080ti.csv';
// an upload is the raw file
const RAW = { 'Content-Type': 'application/octet-stream' };
const JSON_BODY = { 'Content-Type': 'application/json' };

const smallScenario = {
  schema: 'schedlab-scenario/1',
  name: 'api test: four blocks',
  description: 'two runs of one kernel',
  device: 'tx2',
  streams: [{ name: 'S1' }],
  ops: [{ kernel: 'K1', stream: 'S1', at: 0, blocks: 4, threads: 1024, block_time: '1ms' }],
  variants: [{ name: 'rr', policy: { placement: 'round-robin' } }],
};

let srv;
let fig3Run;

before(async () => {
  // a copy of the seed database, which is what a fresh start with every
  // shipped scenario left (seed.mjs): "a fresh start" below
  srv = await startServer();
  const { body } = await getJson(`${srv.base}/api/experiments`);
  for (const e of body.experiments) {
    const full = await getJson(`${srv.base}/api/experiments/${e.slug}`);
    if (full.body.scenario_file === 'tx2-fig3-basic-rules.json') fig3Run = full.body.runs[0].run;
  }
});

after(async () => {
  assert.equal(await srv.stop(), 0, 'serve exits 0 on SIGTERM');
});

async function runCount() {
  const { body } = await getJson(`${srv.base}/api/experiments`);
  return body.experiments.reduce((n, e) => n + e.runs.length, 0);
}

test('health', async () => {
  const r = await getJson(`${srv.base}/api/health`);
  assert.equal(r.status, 200);
  assert.equal(r.body.status, 'ok');
  assert.match(r.body.db, /test\.db$/);
  assert.equal(typeof r.body.version, 'string');
  // cache_bytes: the /blocks answers kept for their next asker; a window
  // not asked before adds its answer's bytes (docs/api.md)
  assert.equal(typeof r.body.cache_bytes, 'number');
  const w = await fetch(`${srv.base}/api/runs/${fig3Run}/blocks?from=0&to=987654321`);
  assert.equal(w.status, 200);
  const len = Buffer.byteLength(await w.text());
  const after = await getJson(`${srv.base}/api/health`);
  assert.equal(after.body.cache_bytes, r.body.cache_bytes + len);
});

test('a fresh start lists every shipped scenario as an experiment', async () => {
  const files = readdirSync(join(repo, 'scenarios')).filter((f) => f.endsWith('.json'));
  const { status, body } = await getJson(`${srv.base}/api/experiments`);
  assert.equal(status, 200);
  const names = files.map((f) => JSON.parse(readFileSync(join(repo, 'scenarios', f), 'utf8')).name).sort();
  const got = body.experiments.filter((e) => e.source === 'scenario').map((e) => e.name).sort();
  assert.deepEqual(got, names);
  for (const e of body.experiments) {
    assert.match(e.slug, /^[a-z0-9]{10}$/);
    // a sweep is an experiment without runs (docs/api.md); the shipped
    // sweeps are seeded beside the scenarios
    if (e.source === 'sweep') assert.equal(e.runs.length, 0);
    else assert.ok(e.runs.length >= 1);
    for (const r of e.runs) assert.match(r.run, /^[a-z0-9]{10}$/);
  }
  const sc = await getJson(`${srv.base}/api/scenarios`);
  assert.deepEqual(sc.body.scenarios.map((s) => s.file), [...files].sort());
});

test('presets', async () => {
  const { body } = await getJson(`${srv.base}/api/presets`);
  const tx2 = body.presets.find((p) => p.name === 'tx2');
  assert.ok(tx2, 'tx2 preset');
  assert.equal(tx2.device.sms, 2);
  assert.equal(typeof tx2.source, 'string');
});

describe('Fig. 3 scenario', () => {
  test('experiment -> run -> kernels and blocks with exact counts', async () => {
    assert.ok(fig3Run, 'the fig3 experiment was seeded');
    const run = await getJson(`${srv.base}/api/runs/${fig3Run}`);
    assert.equal(run.status, 200);
    assert.equal(run.body.source, 'simulation');
    assert.equal(run.body.summary.kernels, 6);
    assert.equal(run.body.summary.blocks, 18);
    assert.equal(run.body.summary.sms, 2);
    assert.equal(run.body.device.name, 'tx2');
    // docs/api.md's example of GET /api/runs/{run} is this run: its summary
    // as the doc prints it, and no field of the answer the doc leaves out
    const doc = /`GET \/api\/runs\/\{run\}` →\n```json\n([\s\S]*?)```/.exec(readFileSync(join(repo, 'docs/api.md'), 'utf8'))[1];
    assert.deepEqual(run.body.summary, JSON.parse(/"summary": (\{[^}]*\})/.exec(doc)[1]));
    const named = new Set([...doc.matchAll(/"([a-z_]+)":/g)].map((m) => m[1]));
    for (const k of Object.keys(run.body)) assert.ok(named.has(k), `docs/api.md's run answer has no "${k}"`);
    assert.equal(run.body.trace_name, 'TX2 basic rules (Amert et al. 2017, Fig. 3)');
    const kernels = (await getJson(`${srv.base}/api/runs/${fig3Run}/kernels`)).body.kernels;
    assert.deepEqual(kernels.map((k) => k.name), ['K1', 'K2', 'K3', 'K4', 'K5', 'K6']);
    const blocks = (await getJson(`${srv.base}/api/runs/${fig3Run}/blocks`)).body;
    assert.equal(blocks.mode, 'blocks');
    assert.equal(blocks.total, 18);
    assert.equal(blocks.blocks.length, 18);
    const per = {};
    for (const b of blocks.blocks) per[kernels[b.kernel].name] = (per[kernels[b.kernel].name] || 0) + 1;
    assert.deepEqual(per, { K1: 6, K2: 2, K3: 2, K4: 4, K5: 2, K6: 2 });
    const copies = (await getJson(`${srv.base}/api/runs/${fig3Run}/copies`)).body.copies;
    assert.equal(copies.length, 5);
    const jobs = (await getJson(`${srv.base}/api/runs/${fig3Run}/jobs`)).body.jobs;
    assert.deepEqual(jobs, []);
  });

  test('blocks window returns exactly the overlapping blocks', async () => {
    const all = (await getJson(`${srv.base}/api/runs/${fig3Run}/blocks`)).body.blocks;
    const from = 1000000000, to = 2000000000;
    const r = (await getJson(`${srv.base}/api/runs/${fig3Run}/blocks?from=${from}&to=${to}`)).body;
    assert.equal(r.from, from);
    assert.equal(r.to, to);
    assert.equal(r.mode, 'blocks');
    // K1 blocks 4 and 5 and the four K4 blocks run in [1 s, 2 s); K1 0-3 end at 1 s.
    assert.equal(r.total, 6);
    const key = (b) => `${b.kernel}/${b.index}`;
    const expect = all.filter((b) => b.start < to && b.end > from).map(key).sort();
    assert.deepEqual(r.blocks.map(key).sort(), expect);
    assert.deepEqual(r.blocks.map(key).sort(), ['0/4', '0/5', '3/0', '3/1', '3/2', '3/3']);
    const bad = await getJson(`${srv.base}/api/runs/${fig3Run}/blocks?from=abc`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /from/);
  });

  test('past max the answer is per-SM occupancy bins', async () => {
    const all = (await getJson(`${srv.base}/api/runs/${fig3Run}/blocks`)).body;
    const kernels = (await getJson(`${srv.base}/api/runs/${fig3Run}/kernels`)).body.kernels;
    const r = (await getJson(`${srv.base}/api/runs/${fig3Run}/blocks?max=5`)).body;
    assert.equal(r.mode, 'bins');
    assert.equal(r.total, 18);
    assert.equal(r.sms, 2);
    // (4.8 s, by hand from Table 1 and the rules with the scenario's 0.2 s
    // copies, which Fig. 4's insets (a)-(e) bound: K2 and K5 end at 3.0 s,
    // C5o 3.0-3.2, C2o 3.2-3.4, C3i 3.4-3.6, K3 3.6-4.6, C3o 4.6-4.8 s;
    // test_scenarios_shipped/test_tx2_fig4_insets checks the insets)
    // about max cells: 5 / 2 SMs -> 2 bins per SM over [0, 4.8 s); bins are
    // the occupancy pyramid's (issue 9): a power-of-two width >= 2.4 s on a
    // grid fixed at 0, the last one cut at `to`
    assert.equal(r.to - r.from, 4800000000);
    assert.equal(r.bin_ns, 2 ** 32);
    assert.equal(r.bins.length, 4);
    assert.deepEqual(r.bins.map((b) => `${b.sm}@${b.t}`), ['0@0', `0@${2 ** 32}`, '1@0', `1@${2 ** 32}`]);
    for (const bin of r.bins) {
      const lo = Math.max(bin.t, r.from), hi = Math.min(bin.t + r.bin_ns, r.to);
      let blocks = 0, threads = 0;
      for (const b of all.blocks) {
        if (b.sm !== bin.sm) continue;
        const ov = Math.min(b.end, hi) - Math.max(b.start, lo);
        if (ov > 0) { blocks += ov / (hi - lo); threads += (ov / (hi - lo)) * kernels[b.kernel].threads; }
      }
      assert.ok(Math.abs(bin.blocks - blocks) < 1e-6, `sm ${bin.sm} t ${bin.t}: ${bin.blocks} vs ${blocks}`);
      assert.ok(Math.abs(bin.threads - threads) < 1e-3, `sm ${bin.sm} t ${bin.t}: ${bin.threads} vs ${threads}`);
    }
  });

  test('queues at t and lengths over time', async () => {
    // TX2 paper Fig. 3 at 0.5 s: K1 runs, K4 and K5 wait in the EE queue behind it.
    const r = (await getJson(`${srv.base}/api/runs/${fig3Run}/queues?at=500000000`)).body;
    assert.equal(r.at, 500000000);
    const q = Object.fromEntries(r.queues.map((x) => [x.queue, x.items]));
    assert.deepEqual(q['ee:P0:low'], ['K1', 'K4', 'K5']);
    assert.deepEqual(q['stream:P0/S1'], ['K1', 'K2', 'C2o', 'C3i', 'K3', 'C3o']);
    assert.deepEqual(q['stream:P0/S3'], ['K5', 'C5o']);
    const s = (await getJson(`${srv.base}/api/runs/${fig3Run}/queues`)).body;
    const ee = s.queues.find((x) => x.queue === 'ee:P0:low');
    assert.deepEqual(ee.series.slice(0, 4), [[0, 1], [200000000, 2], [400000000, 3], [1000000000, 1]]);
    assert.deepEqual(ee.series.at(-1), [3600000000, 0]);
  });

  test('export as trace and as chrome', async () => {
    const r = await fetch(`${srv.base}/api/runs/${fig3Run}/export?format=trace`);
    assert.equal(r.status, 200);
    // named after experiment and run, only [A-Za-z0-9._-] (issue 15, docs/api.md)
    assert.equal(r.headers.get('content-disposition'),
      'attachment; filename="TX2_basic_rules_Amert_et_al._2017_Fig._3-default.trace.json"');
    const t = await r.json();
    assert.equal(t.schema, 'schedlab-trace/1');
    assert.equal(t.kernels.length, 6);
    assert.equal(t.blocks.length, 18);
    assert.equal(t.copies.length, 5);
    const c = await fetch(`${srv.base}/api/runs/${fig3Run}/export?format=chrome`);
    assert.equal(c.headers.get('content-disposition'),
      'attachment; filename="TX2_basic_rules_Amert_et_al._2017_Fig._3-default.chrome.json"');
    const ch = await c.json();
    const spans = ch.traceEvents.filter((e) => e.ph === 'X');
    assert.equal(spans.filter((e) => e.cat === 'block').length, 18);
    assert.equal(spans.filter((e) => e.cat === 'kernel').length, 6);
    assert.equal(spans.filter((e) => e.cat === 'copy').length, 5);
    const k3 = spans.find((e) => e.cat === 'kernel' && e.name === 'K3');
    assert.equal(k3.ts, 3600000);        // µs
    assert.equal(k3.dur, 1000000);
    const bad = await getJson(`${srv.base}/api/runs/${fig3Run}/export?format=svg`);
    assert.equal(bad.status, 400);
  });
});

test('POST /api/experiments simulates every run; a bad scenario is a 400 naming the place', async () => {
  const r = await getJson(`${srv.base}/api/experiments`, { method: 'POST', body: JSON.stringify(smallScenario), headers: JSON_BODY });
  assert.equal(r.status, 201);
  assert.match(r.body.slug, /^[a-z0-9]{10}$/);
  // run 0 is named after its placement policy when variants differ in it (scn_run_name)
  assert.deepEqual(r.body.runs.map((x) => x.name), ['most-room', 'rr']);
  const e = (await getJson(`${srv.base}/api/experiments/${r.body.slug}`)).body;
  assert.equal(e.name, 'api test: four blocks');
  assert.equal(e.scenario.ops[0].kernel, 'K1');
  assert.deepEqual(e.runs.map((x) => x.summary.blocks), [4, 4]);

  // compare the two runs of it
  const [a, b] = r.body.runs.map((x) => x.run);
  const cmp = (await getJson(`${srv.base}/api/compare?runs=${a},${b}`)).body;
  assert.deepEqual(cmp.runs.map((x) => x.name), ['most-room', 'rr']);
  assert.equal(cmp.kernels.length, 1);
  const ka = (await getJson(`${srv.base}/api/runs/${a}/kernels`)).body.kernels[0];
  const kb = (await getJson(`${srv.base}/api/runs/${b}/kernels`)).body.kernels[0];
  assert.deepEqual(cmp.kernels[0].response, [ka.end - ka.issue, kb.end - kb.issue]);
  assert.deepEqual(cmp.kernels[0].end, [ka.end, kb.end]);
  assert.deepEqual(cmp.tasks, []);

  const before = await runCount();
  const bad = structuredClone(smallScenario);
  bad.ops[0].threads = 2048;
  const br = await getJson(`${srv.base}/api/experiments`, { method: 'POST', body: JSON.stringify(bad), headers: JSON_BODY });
  assert.equal(br.status, 400);
  assert.match(br.body.error, /^scenario: ops\[0\]\.threads: /);
  const broken = await getJson(`${srv.base}/api/experiments`, { method: 'POST', body: '{"schema": ', headers: JSON_BODY });
  assert.equal(broken.status, 400);
  assert.match(broken.body.error, /^scenario:1:/);
  assert.equal(await runCount(), before);
});

test('POST /api/imports of an nvprof CSV; a malformed import stores nothing', async () => {
  // the fixture: vectorAdd and a mangled lambda on streams 7 and 13, a copy
  // each way (tests/fixtures/make_fixtures.sh)
  const csv = readFileSync(fixture('nvprof.csv'));
  const r = await getJson(`${srv.base}/api/imports?format=nvprof-csv&name=fixture`, { method: 'POST', body: csv, headers: RAW });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.match(r.body.run, /^[a-z0-9]{10}$/);
  const run = (await getJson(`${srv.base}/api/runs/${r.body.run}`)).body;
  assert.equal(run.name, 'fixture');
  assert.equal(run.source, 'nvprof-csv');
  assert.equal(run.experiment, r.body.experiment);
  const kernels = (await getJson(`${srv.base}/api/runs/${r.body.run}/kernels`)).body.kernels;
  assert.deepEqual(kernels.map((k) => [k.name, k.stream, k.first_block, k.end]), [
    ['vectorAdd(float const *, float const *, float*, int)', '7', 1000000, 3000000],
    ['void clover::par_ranged2d_kernel<build_field(global_variables&)::{lambda(int, int)#1}>'
      + '(clover::Range2d, build_field(global_variables&)::{lambda(int, int)#1})', '13', 1500000, 2500000],
  ]);
  const copies = (await getJson(`${srv.base}/api/runs/${r.body.run}/copies`)).body.copies;
  assert.deepEqual(copies.map((c) => [c.direction, c.bytes, c.start, c.end]),
    [['h2d', 262144, 0, 500000], ['d2h', 262144, 4000000, 4250000]]);
  // detection without ?format= and into the same experiment
  const again = await getJson(`${srv.base}/api/imports?experiment=${r.body.experiment}`, { method: 'POST', body: csv, headers: RAW });
  assert.equal(again.status, 201);
  assert.equal(again.body.experiment, r.body.experiment);
  const e = (await getJson(`${srv.base}/api/experiments/${r.body.experiment}`)).body;
  assert.equal(e.runs.length, 2);
  assert.equal(e.source, 'import');
  assert.equal(e.scenario, null);

  const before = await runCount();
  const bad = await getJson(`${srv.base}/api/imports?format=nvprof-csv`, { method: 'POST', body: 'Start,Duration\nms,ms\nabc,1\n', headers: RAW });
  assert.equal(bad.status, 400);
  assert.equal(typeof bad.body.error, 'string');
  assert.ok(bad.body.error.length > 10);
  const unknown = await getJson(`${srv.base}/api/imports?format=nope`, { method: 'POST', body: 'x', headers: RAW });
  assert.equal(unknown.status, 400);
  assert.match(unknown.body.error, /^format: unknown format "nope"/);
  const noexp = await getJson(`${srv.base}/api/imports?experiment=zzzzzzzzzz`, { method: 'POST', body: csv, headers: RAW });
  assert.equal(noexp.status, 404);
  // the experiment named, as docs/api.md's Imports says of a 404
  assert.deepEqual(noexp.body, { error: 'experiment: no experiment named "zzzzzzzzzz"' });
  assert.equal(await runCount(), before);
});

test('POST /api/imports detects every fixture format', async () => {
  const want = {
    'nvprof.csv': ['nvprof-csv', 2, 2, 0],
    'nvprof.nvvp': ['nvprof-sqlite', 2, 1, 0],
    'nsys.sqlite': ['nsys-sqlite', 2, 1, 0],
    'examiner.json': ['examiner-json', 1, 0, 2],
    'globaltimer.csv': ['globaltimer-csv', 2, 0, 3],
  };
  for (const [name, [source, nk, nc, nb]] of Object.entries(want)) {
    const r = await getJson(`${srv.base}/api/imports`, { method: 'POST', body: readFileSync(fixture(name)), headers: RAW });
    assert.equal(r.status, 201, `${name}: ${JSON.stringify(r.body)}`);
    const run = (await getJson(`${srv.base}/api/runs/${r.body.run}`)).body;
    assert.equal(run.source, source, name);
    assert.equal((await getJson(`${srv.base}/api/runs/${r.body.run}/kernels`)).body.kernels.length, nk, name);
    assert.equal((await getJson(`${srv.base}/api/runs/${r.body.run}/copies`)).body.copies.length, nc, name);
    const blocks = (await getJson(`${srv.base}/api/runs/${r.body.run}/blocks`)).body.blocks || [];
    assert.equal(blocks.length, nb, name);
  }
});

test('POST /api/imports of the real concurrentKernels nvprof log', async (t) => {
  const path = realTrace(t, NVPROF_CSV);
  if (!path) return;
  const r = await getJson(`${srv.base}/api/imports?format=nvprof-csv&name=concurrentKernels`, { method: 'POST', body: readFileSync(path), headers: RAW });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const kernels = (await getJson(`${srv.base}/api/runs/${r.body.run}/kernels`)).body.kernels;
  assert.equal(kernels.length, 9);           // 8 clock_block + sum
  assert.equal(kernels.filter((k) => k.name.startsWith('clock_block')).length, 8);
});

test('page URLs answer the app shell; static files carry their MIME type', async () => {
  const shell = readFileSync(join(repo, 'web/index.html'), 'utf8');
  for (const path of ['/', '/experiments/abcdefghij', '/runs/abcdefghij?view=timeline&from=0&to=10', '/compare?runs=a,b']) {
    const r = await fetch(srv.base + path);
    assert.equal(r.status, 200, path);
    assert.match(r.headers.get('content-type'), /^text\/html/);
    assert.equal(await r.text(), shell, path);
  }
  const js = readdirSync(join(repo, 'web/js')).find((f) => f.endsWith('.mjs') || f.endsWith('.js'));
  const r = await fetch(`${srv.base}/js/${js}`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(await r.text(), readFileSync(join(repo, 'web/js', js), 'utf8'));
  const css = readdirSync(join(repo, 'web/css')).find((f) => f.endsWith('.css'));
  if (css) {
    const c = await fetch(`${srv.base}/css/${css}`);
    assert.match(c.headers.get('content-type'), /^text\/css/);
  }
});

test('path traversal is refused', async () => {
  const { request } = await import('node:http');
  const { port } = new URL(srv.base);
  // fetch() normalises "..", so send the raw request line
  const raw = (path) => new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => ok({ status: res.statusCode, body }));
    });
    req.on('error', fail);
    req.end();
  });
  for (const path of ['/../Makefile', '/js/../../Makefile', '/%2e%2e/Makefile', '/..%2fMakefile', '/js/..%2f..%2fMakefile']) {
    const r = await raw(path);
    assert.ok(r.status === 403 || r.status === 404, `${path}: ${r.status}`);
    assert.doesNotMatch(r.body, /ASAN_BUILD/, path);
  }
});

test('unknown routes are JSON 404s', async () => {
  const r = await getJson(`${srv.base}/api/nope`);
  assert.equal(r.status, 404);
  assert.match(r.headers.get('content-type'), /^application\/json/);
  assert.match(r.body.error, /no such API route/);
  const run = await getJson(`${srv.base}/api/runs/zzzzzzzzzz`);
  assert.equal(run.status, 404);
  assert.match(run.body.error, /zzzzzzzzzz/);
  const file = await getJson(`${srv.base}/no-such-file.js`);
  assert.equal(file.status, 404);
  assert.equal(typeof file.body.error, 'string');
  const method = await getJson(`${srv.base}/api/health`, { method: 'DELETE' });
  assert.equal(method.status, 405);
});
