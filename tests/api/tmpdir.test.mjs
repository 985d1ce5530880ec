// tmpdir.test.mjs -- a body past 1 MiB is kept in a file of the temporary
// folder (TMPDIR); when that folder cannot take it, the upload is 503 with
// the reason, the server's log names the folder, and a folder unusable
// from the start is said at the start. All three said nothing of it: the
// client read "temporary folder full or unwritable", the log was silent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';

import { tempDir } from './server.mjs';
import { serve } from './serve_opts.mjs';

test('TMPDIR missing: warned at start; an upload is 503 with the reason, the log names the folder', async () => {
  const missing = join(tempDir('tmpdir'), 'no-such-folder');
  const s = await serve([], { env: { TMPDIR: missing } });
  try {
    assert.match(s.stderr(), new RegExp(`warning: the temporary folder ${missing} \\(TMPDIR\\) cannot be written \\(No such file or directory\\)`));
    // a small upload is kept in memory and goes through
    const small = 'kernel,block,sm,start_ns,end_ns\nK,0,0,0,1000\n';
    const ok = await fetch(`${s.base}/api/imports?format=globaltimer-csv`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: small });
    assert.equal(ok.status, 201, await ok.text());
    // 2 MiB is not
    const rows = ['kernel,block,sm,start_ns,end_ns'];
    for (let i = 0; i < 80000; i++) rows.push(`K,${i},${i % 8},${i * 1000},${i * 1000 + 900}`);
    const big = rows.join('\n') + '\n';
    assert.ok(big.length > 2e6);
    const r = await fetch(`${s.base}/api/imports?format=globaltimer-csv`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: big });
    const body = await r.json();
    assert.equal(r.status, 503);
    assert.equal(r.headers.get('retry-after'), '10');
    assert.equal(body.error, "cannot keep the request body in the server's temporary folder: No such file or directory");
    await new Promise((ok2) => setTimeout(ok2, 100));
    assert.match(s.stderr(), new RegExp(`POST /api/imports -> 503: cannot keep the request body in ${missing} \\(TMPDIR\\): No such file or directory`));
  } finally { assert.equal(await s.stop(), 0); }
});
