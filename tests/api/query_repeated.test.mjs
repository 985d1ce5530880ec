// query_repeated.test.mjs -- an API query argument given twice is a 400
// naming it, not the first value read and the second dropped: a script
// that sent /api/compare?runs=a&runs=b got a comparison of run a alone,
// /blocks?max=5&max=200000 the bins of max=5, ?scenario=1&scenario=0 the
// scenario, each answered 200 as if asked for (docs/api.md: errors name
// "the argument"). Pages keep their URLs as they are (the dashboard reads
// them), and each argument given once is answered as before.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { json, serve } from './serve_opts.mjs';

let srv, exp, run, run2;
before(async () => {
  srv = await serve();
  const { body } = await json(`${srv.base}/api/experiments`);
  const withRuns = body.experiments.filter((e) => e.source === 'scenario' && e.runs.length);
  exp = withRuns[0].slug;
  run = withRuns[0].runs[0].run;
  run2 = withRuns[1].runs[0].run;
});
after(async () => { assert.equal(await srv.stop(), 0); });

test('an argument given twice is 400 naming it', async () => {
  for (const [path, key] of [
    [`/api/compare?runs=${run}&runs=${run2}`, 'runs'],
    [`/api/runs/${run}/blocks?max=5&max=200000`, 'max'],
    [`/api/runs/${run}/blocks?from=0&max=5&from=10`, 'from'],
    [`/api/experiments/${exp}?scenario=1&scenario=0`, 'scenario'],
    [`/api/runs/${run}/export?format=trace&format=chrome`, 'format'],
  ]) {
    const r = await json(`${srv.base}${path}`);
    assert.equal(r.status, 400, path);
    assert.equal(r.body.error, `${key}: given more than once; give each query argument once`, path);
  }
  const w = await json(`${srv.base}/api/imports?format=nvprof-csv&format=pytorch`, { method: 'POST', body: 'x', headers: { 'Content-Type': 'application/octet-stream' } });
  assert.equal(w.status, 400);
  assert.match(w.body.error, /^format: given more than once/);
});

test('once each is answered as before; pages keep theirs', async () => {
  const c = await json(`${srv.base}/api/compare?runs=${run},${run2}`);
  assert.equal(c.status, 200);
  assert.equal(c.body.runs.length, 2);
  const b = await json(`${srv.base}/api/runs/${run}/blocks?from=0&to=10&max=5`);
  assert.equal(b.status, 200);
  // empty pieces ("?&&", a URL built by concatenation) are no arguments
  const e = await json(`${srv.base}/api/runs/${run}/blocks?&&max=5&`);
  assert.equal(e.status, 200);
  const page = await fetch(`${srv.base}/runs/${run}?k=1&k=2`, { headers: { Accept: 'text/html' } });
  assert.equal(page.status, 200);
  await page.text();
});
