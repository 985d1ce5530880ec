// write_bodiless.test.mjs -- a write that sends no body needs no
// Content-Type (docs/api.md, "Writes, headers, limits"): POST
// /api/sweeps?spec=FILE "no body and ?spec= naming a shipped one" (docs/api.md,
// "Sweeps started from the page") is what a teammate's script sends as
// `curl -X POST URL`, with no Content-Type; a body with the wrong type, or
// with none, is still 415 (a cross-site form always sends a body's type).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { JSON_BODY, json, serve, waitJob } from './serve_opts.mjs';

let srv;
before(async () => { srv = await serve(); });
after(async () => { assert.equal(await srv.stop(), 0); });

test('POST /api/sweeps?spec=FILE without a body or a Content-Type starts the sweep (202)', async () => {
  const r = await json(`${srv.base}/api/sweeps?spec=gcaps-fig8a-tasks.json`, { method: 'POST' });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.match(r.body.url, /^\/api\/jobs\//);
  const cancel = await json(`${srv.base}${r.body.url}`, { method: 'DELETE' });
  assert.ok([200, 202].includes(cancel.status), JSON.stringify(cancel.body));
  const j = await waitJob(srv.base, r.body.job);
  assert.ok(['aborted', 'done'].includes(j.state), JSON.stringify(j));
});

test('without a body, a Content-Type that is not JSON (an empty form post) is still 415', async () => {
  for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
    const r = await json(`${srv.base}/api/sweeps?spec=gcaps-fig8a-tasks.json`, { method: 'POST', body: '', headers: { 'Content-Type': type } });
    assert.equal(r.status, 415, type);
  }
});

test('a body still needs its type: JSON without a Content-Type is 415', async () => {
  const r = await json(`${srv.base}/api/experiments`, { method: 'POST', body: Buffer.from('{}') });
  assert.equal(r.status, 415);
  assert.match(r.body.error, /application\/json/);
});

test('a bodiless write without a Content-Type gets the route\'s own answer, not 415', async () => {
  const r = await json(`${srv.base}/api/experiments`, { method: 'POST' });
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'scenario: the request body is empty; send scenario JSON');
  const ok = await json(`${srv.base}/api/experiments`, { method: 'POST', headers: JSON_BODY });
  assert.equal(ok.status, 400);
});
