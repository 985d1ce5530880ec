// rta_token.test.mjs -- POST /api/rta stores nothing, so on a team server
// (README, "Running it for your team": "reads (every page, every shared
// link) are open, writes (uploads, scenarios, replays) need the token") it
// is answered as a read: the Tasks tab of a teammate without the write
// token draws the analysis bounds (views/tasks.mjs asks /api/rta for them),
// while --read-token still guards it and other pages still may not post.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { repo } from './server.mjs';
import { JSON_BODY, json, serve } from './serve_opts.mjs';

// GCAPS Example 2 (ECRTS 2024, Table 2), as shipped
const body = readFileSync(join(repo, 'scenarios/gcaps-example2-fig5a.json'), 'utf8');

test('--token: POST /api/rta without the token is analysed (a read); other pages and other types still refused', async () => {
  const s = await serve([], { env: { SCHEDLAB_TOKEN: 's3cret', SCHEDLAB_READ_TOKEN: '' } });
  try {
    const r = await json(`${s.base}/api/rta`, { method: 'POST', body, headers: JSON_BODY });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.schema, 'schedlab-rta/1');
    assert.equal(r.body.analyses.gcaps_suspend_gprio.schedulable, true);
    const foreign = await json(`${s.base}/api/rta`, { method: 'POST', body, headers: { ...JSON_BODY, Origin: 'http://evil.example' } });
    assert.equal(foreign.status, 403);
    const plain = await json(`${s.base}/api/rta`, { method: 'POST', body, headers: { 'Content-Type': 'text/plain' } });
    assert.equal(plain.status, 415);
    // the writes next to it still need the token
    const w = await json(`${s.base}/api/experiments`, { method: 'POST', body, headers: JSON_BODY });
    assert.equal(w.status, 401);
  } finally { await s.stop(); }
});

test('--read-token: POST /api/rta needs the read (or write) token, as a read does', async () => {
  const s = await serve([], { env: { SCHEDLAB_TOKEN: 's3cret', SCHEDLAB_READ_TOKEN: 'reader' } });
  try {
    const no = await json(`${s.base}/api/rta`, { method: 'POST', body, headers: JSON_BODY });
    assert.equal(no.status, 401);
    assert.match(no.body.error, /needs a token for reads/);
    for (const t of ['reader', 's3cret']) {
      const r = await json(`${s.base}/api/rta`, { method: 'POST', body, headers: { ...JSON_BODY, Authorization: `Bearer ${t}` } });
      assert.equal(r.status, 200, t);
    }
  } finally { await s.stop(); }
});
