// sweep_spec_get.test.mjs -- GET /api/sweeps/specs/{file} answers the
// shipped specs and nothing else of the sweeps folder: docs/api.md, "that
// spec's JSON (the page's editor starts from it); 404 for a name that is
// not a shipped spec", and GET /api/sweeps/specs lists no templates or
// kernel sets. The templates (isca17-pair.json: a scenario) and kernel
// sets (isca17-kernels.json, isca17-parboil.json) beside them were served
// 200 as if they were specs.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

import { json, serve } from './serve_opts.mjs';
import { shippedSubset } from './server.mjs';

let srv;
before(async () => { srv = await serve(); });
after(async () => { assert.equal(await srv.stop(), 0); });

test('a template or kernel set of the folder is no spec: 404', async () => {
  const listed = (await json(`${srv.base}/api/sweeps/specs`)).body.specs.map((s) => s.file);
  for (const file of ['isca17-pair.json', 'isca17-kernels.json', 'isca17-parboil.json', 'isca17-trio.json']) {
    assert.ok(!listed.includes(file), `${file} is not listed`);
    const r = await json(`${srv.base}/api/sweeps/specs/${file}`);
    assert.equal(r.status, 404, file);
    assert.match(r.body.error, new RegExp(`^no shipped sweep named "${file}"`));
  }
});

test('every listed spec is answered, its schema a sweep\'s', async () => {
  const listed = (await json(`${srv.base}/api/sweeps/specs`)).body.specs.map((s) => s.file);
  assert.ok(listed.length > 5);
  for (const file of listed) {
    const r = await json(`${srv.base}/api/sweeps/specs/${file}`);
    assert.equal(r.status, 200, file);
    assert.equal(r.body.schema, 'schedlab-sweep/1', file);
  }
});

// The folder is read only by plain names (sweep_api.c, "letters, digits,
// '.', '-', '_', ending in .json, not starting with '.'"): a path that
// climbs out of it and a hidden file in it are no shipped sweeps, whether
// asked for by GET or started by POST ?spec=, and the list names neither.
test('only plain names of the sweeps folder: no path out of it, no hidden file', async () => {
  const { dir } = shippedSubset(['tx2-fig3-basic-rules.json'], { sweeps: ['gcaps-fig8a-tasks.json'] });
  const sweeps = join(dir, '..', 'sweeps');
  symlinkSync(resolve('sweeps', 'gcaps-fig8a-tasks.json'), join(sweeps, '.hidden.json'));
  mkdirSync(join(sweeps, 'sub'));
  symlinkSync(resolve('sweeps', 'gcaps-fig8a-tasks.json'), join(sweeps, 'sub', 'gcaps-fig8a-tasks.json'));
  const own = await serve(['--scenarios', dir]);
  try {
    const listed = (await json(`${own.base}/api/sweeps/specs`)).body.specs.map((s) => s.file);
    assert.deepEqual(listed, ['gcaps-fig8a-tasks.json']);
    for (const name of ['.hidden.json', 'sub%2Fgcaps-fig8a-tasks.json', '..%2Fsweeps%2Fgcaps-fig8a-tasks.json']) {
      const r = await json(`${own.base}/api/sweeps/specs/${name}`);
      assert.equal(r.status, 404, name);
    }
    for (const name of ['.hidden.json', '../sweeps/gcaps-fig8a-tasks.json', 'sub/gcaps-fig8a-tasks.json']) {
      const r = await json(`${own.base}/api/sweeps?spec=${encodeURIComponent(name)}&threads=1`, { method: 'POST' });
      assert.equal(r.status, 404, `${name}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, /^no shipped sweep named "/);
    }
  } finally {
    assert.equal(await own.stop(), 0);
  }
});

// docs/api.md: a schedulability spec is held to `sweep_analyses`, a QoS one
// to `sweep_cycles`, and a sweep of just the budget's work fits ("past"
// the limit is refused): the list's "fits" with each limit at a spec's own
// work, and one under it.
test('the list\'s fits: each kind against its own limit, a spec of just the limit\'s work fits', async () => {
  const specs = (await json(`${srv.base}/api/sweeps/specs`)).body.specs;
  const s = specs.find((x) => x.file === 'gcaps-fig8a-tasks.json');
  const q = specs.find((x) => x.file === 'isca17-qosreach-reduced.json');
  assert.equal(s.kind, 'schedulability');
  assert.equal(q.kind, 'qos');
  for (const [analyses, cycles, fitS, fitQ] of [[s.work, q.work, true, true], [s.work - 1, q.work, false, true],
    [s.work, q.work - 1, true, false]]) {
    const own = await serve(['--budget', `sweep_analyses=${analyses},sweep_cycles=${cycles}`]);
    try {
      const got = (await json(`${own.base}/api/sweeps/specs`)).body.specs;
      const budget = `sweep_analyses=${analyses},sweep_cycles=${cycles}`;
      assert.equal(got.find((x) => x.file === s.file).fits, fitS, budget);
      assert.equal(got.find((x) => x.file === q.file).fits, fitQ, budget);
    } finally {
      assert.equal(await own.stop(), 0);
    }
  }
});
