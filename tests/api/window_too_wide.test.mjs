// window_too_wide.test.mjs -- a window too wide for a pyramid's coarsest
// bins is the client's error, 400 naming from/to, not the server's: the
// binned reads of /streams, /kernels and /copies (bins of at most 2^50 ns:
// db/spyramid.h) and /queues?bins (db/qpyramid.h) answered 500 "stream
// bins: bins of 2^63 ns are wider than the largest, 2^50 ns" for a window
// of about ±2^62 ns, which /blocks takes (docs/api.md: from/to within
// ±2^62, else 400; "Errors, 400, one line naming the parameter").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { json, scenarioRun, serve } from './serve_opts.mjs';

let srv, run;
before(async () => {
  srv = await serve();
  run = await scenarioRun(srv.base, (s) => s.kernels > 0 && s.copies > 0 && s.queue_events > 0);
  assert.ok(run);
});
after(async () => { assert.equal(await srv.stop(), 0); });

const W = 'from=-4611686018427387903&to=4611686018427387903';

test('a window past the coarsest bins is 400 naming from/to', async () => {
  for (const path of [`streams?${W}&max=1`, `kernels?${W}&max=0`, `copies?${W}&max=0`,
    'queues?from=0&to=1125899906842625000&bins=1000']) {
    const r = await json(`${srv.base}/api/runs/${run}/${path}`);
    assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, /^from\/to: the window \[-?\d+, \d+\) is too wide: (stream|copy|queue) bins: bins of 2\^\d+ ns are wider than the largest, 2\^50 ns$/, path);
  }
});

test('the widest window its bins hold is answered', async () => {
  const q = await json(`${srv.base}/api/runs/${run}/queues?from=0&to=1125899906842624000&bins=1000`);
  assert.equal(q.status, 200);
  assert.equal(q.body.bin_ns, 2 ** 50);
  const b = await json(`${srv.base}/api/runs/${run}/blocks?${W}&max=0`);
  assert.equal(b.status, 200);
});
