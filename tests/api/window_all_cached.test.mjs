// window_all_cached.test.mjs -- the windowed /kernels and /copies forms are
// cached for good in every answer, as docs/api.md says of them ("`ETag` and
// immutable caching"; a stored run never changes): `?max=N` alone on a run
// of at most N rows (every row, the plain list) answered
// `Cache-Control: no-store` and no ETag, while the same route's bins past
// `max` and any window were immutable; now the same.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { expectImmutable } from './server.mjs';
import { json, scenarioRun, serve } from './serve_opts.mjs';

let srv, run;
before(async () => {
  srv = await serve();
  run = await scenarioRun(srv.base, (s) => s.kernels > 0 && s.copies > 0);
  assert.ok(run, 'a shipped run with kernels and copies');
});
after(async () => { assert.equal(await srv.stop(), 0); });

test('?max alone on a run of at most max rows: every row, immutable, 304 to its ETag', async () => {
  for (const kind of ['kernels', 'copies']) {
    const u = `${srv.base}/api/runs/${run}/${kind}?max=200000`;
    const r = await json(u);
    assert.equal(r.body.mode, kind);
    assert.equal(r.body.from, null);
    await expectImmutable(u);
    // the tag is this answer's: the bins of another max are another
    const bins = await fetch(`${srv.base}/api/runs/${run}/${kind}?max=0`);
    assert.notEqual(bins.headers.get('etag'), r.headers.get('etag'));
    await bins.arrayBuffer();
  }
});
