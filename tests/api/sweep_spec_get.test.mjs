// sweep_spec_get.test.mjs -- GET /api/sweeps/specs/{file} answers the
// shipped specs and nothing else of the sweeps folder: docs/api.md, "that
// spec's JSON (the page's editor starts from it); 404 for a name that is
// not a shipped spec", and GET /api/sweeps/specs lists no templates or
// kernel sets. The templates (isca17-pair.json: a scenario) and kernel
// sets (isca17-kernels.json, isca17-parboil.json) beside them were served
// 200 as if they were specs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { json, serve } from './serve_opts.mjs';

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
