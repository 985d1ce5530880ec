// replay_body.test.mjs -- POST /api/runs/{run}/replay's body (`{}` or
// `{"device": "PRESET"}`, docs/api.md "Replay") is read as every other
// JSON body is: a syntax error names its line and column ("body: the
// place named", DESIGN.md §6 errors; as `scenario:3:3: JSON: …`), and a
// key given twice is refused as the scenario reader refuses it, where the
// replay read both as "the body is a JSON object {"device": PRESET} or
// empty", no place, and took the last of two devices.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { json, JSON_BODY, scenarioRun, serve, waitJob } from './serve_opts.mjs';

let srv, run;
before(async () => {
  srv = await serve();
  run = await scenarioRun(srv.base);
});
after(async () => { assert.equal(await srv.stop(), 0); });

const post = (body) => json(`${srv.base}/api/runs/${run}/replay`, { method: 'POST', body, headers: JSON_BODY });

test('a syntax error in the replay body names its line and column', async () => {
  let r = await post('{"device":');
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'replay:1:10: JSON: unexpected token near end of file');
  r = await post('{\n  "device": "tx2",\n}');
  assert.equal(r.status, 400);
  assert.match(r.body.error, /^replay:3:1: JSON: /);
});

test('a key given twice is refused, not the last one taken', async () => {
  const r = await post('{"device": "tx2", "device": "v100"}');
  assert.equal(r.status, 400);
  assert.match(r.body.error, /^replay:1:\d+: JSON: duplicate object key/);
});

test('the shapes it takes still start the job; a body not an object is refused as before', async () => {
  const ok = await post('{"device": "tx2"}');
  assert.equal(ok.status, 202, JSON.stringify(ok.body));
  const j = await waitJob(srv.base, ok.body.job);
  assert.equal(j.status, 201, JSON.stringify(j));
  const arr = await post('[]');
  assert.equal(arr.status, 400);
  assert.equal(arr.body.error, 'replay: the body is a JSON object {"device": PRESET} or empty');
});
