// replay_body.test.mjs -- POST /api/runs/{run}/replay's body (`{}` or
// `{"device": "PRESET"}`, docs/api.md "Replay") is read as every other
// JSON body is: a syntax error names its line and column ("body: the
// place named", DESIGN.md §6 errors; as `scenario:3:3: JSON: …`), and a
// key given twice is refused as the scenario reader refuses it, where the
// replay read both as "the body is a JSON object {"device": PRESET} or
// empty", no place, and took the last of two devices.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';

import { json, JSON_BODY, scenarioRun, serve, waitJob } from './serve_opts.mjs';

let srv, run;
before(async () => {
  srv = await serve();
  run = await scenarioRun(srv.base);
});
after(async () => { assert.equal(await srv.stop(), 0); });

const post = (body, id = run) => json(`${srv.base}/api/runs/${id}/replay`, { method: 'POST', body, headers: JSON_BODY });

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

test('?device=PRESET names the preset as the body does (the GET\'s argument); the body\'s device wins over it', async () => {
  // docs/api.md "Replay": `POST /api/runs/{run}/replay?device=PRESET`, the
  // argument GET /api/runs/{run}/replay takes, or the body's "device"
  const q = await json(`${srv.base}/api/runs/${run}/replay?device=v100`, { method: 'POST', body: '', headers: JSON_BODY });
  assert.equal(q.status, 202, JSON.stringify(q.body));
  const jq = await waitJob(srv.base, q.body.job);
  assert.equal(jq.status, 201, JSON.stringify(jq));
  assert.equal(jq.result.device, 'v100');
  const both = await json(`${srv.base}/api/runs/${run}/replay?device=v100`, { method: 'POST', body: '{"device": "tx2"}', headers: JSON_BODY });
  assert.equal(both.status, 202, JSON.stringify(both.body));
  const jb = await waitJob(srv.base, both.body.job);
  assert.equal(jb.status, 201, JSON.stringify(jb));
  assert.equal(jb.result.device, 'tx2');
});

test('a device that is not a string is refused by name; null is the trace\'s own; a body past the JSON budget is 413', async () => {
  // docs/api.md "Replay": the body is {} or {"device": "PRESET"}
  const n = await post('{"device": 5}');
  assert.equal(n.status, 400);
  assert.equal(n.body.error, 'replay: device: expected a preset name');
  for (const none of ['null', '""']) {
    const own = await post(`{"device": ${none}}`);
    assert.equal(own.status, 202, JSON.stringify(own.body));
    const j = await waitJob(srv.base, own.body.job);
    assert.equal(j.status, 201, JSON.stringify(j));
    assert.match(j.result.device_why, /the trace's own device/, none);
  }
  // as every JSON body (docs/api.md: 16 times its size plus 16 MiB; an
  // empty object costs some 78 times its 3 bytes): 413, not 400
  const huge = `{"device": [${'{},'.repeat(200000)}{}]}`;
  const h = await post(huge);
  assert.equal(h.status, 413, JSON.stringify(h.body));
  assert.match(h.body.error, /^replay: JSON: the document needs more than \d+ MiB of memory to read/);
});

test('a run id one character longer than any is no run, not the run it starts with', async () => {
  // run ids are 10 characters (db/db.h DB_SLUG_LEN): "<id>x" names no run
  // (404 at once, docs/api.md "Replay"), and never a replay of <id>
  const r = await post('{}', `${run}x`);
  assert.equal(r.status, 404, JSON.stringify(r.body));
  assert.equal(r.body.error, `no run named "${run}x"`);
});

test('a stored report that is not JSON (a database edited by hand) is 500 naming it, not an answer', async () => {
  const ok = await post('{}');
  assert.equal(ok.status, 202, JSON.stringify(ok.body));
  const j = await waitJob(srv.base, ok.body.job);
  assert.equal(j.status, 201, JSON.stringify(j));
  const sim = j.result.runs[0].run;
  assert.equal((await json(`${srv.base}/api/runs/${sim}/fidelity`)).status, 200);
  execFileSync('sqlite3', ['-cmd', '.timeout 10000', srv.db,
    `UPDATE fidelity SET report = 'not json' WHERE run = (SELECT id FROM runs WHERE slug = '${sim}');`]);
  const bad = await json(`${srv.base}/api/runs/${sim}/fidelity`);
  assert.equal(bad.status, 500);
  assert.equal(bad.body.error, 'the stored fidelity report is not JSON');
});
