// stop_locked.test.mjs -- SIGTERM while a request waits for another
// process's lock on the database (a `sqlite3 db 'BEGIN EXCLUSIVE; …'` held
// open): the wait gives up with the 5 s of grace, the request is answered
// and the server exits. SQLite's busy timeout held the request, and the
// stop, for its whole 30 s: the client was cut off unanswered after 12 s
// and the process went on to 30.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';

import { serve } from './serve_opts.mjs';

test('SIGTERM while an import waits on another process\'s lock: answered, exit within the grace', async () => {
  const s = await serve([], { keep: true });
  // another process takes the write lock and keeps it
  const holder = spawn('sqlite3', [s.db], { stdio: ['pipe', 'ignore', 'pipe'] });
  let herr = '';
  holder.stderr.on('data', (d) => { herr += d; });
  holder.stdin.write('BEGIN EXCLUSIVE;\nINSERT INTO strings(id) SELECT 1 WHERE 0;\nSELECT 1;\n');
  try {
    await new Promise((ok) => setTimeout(ok, 500));
    assert.equal(herr, '', herr);
    const t0 = Date.now();
    const post = fetch(`${s.base}/api/imports?format=globaltimer-csv`, {
      method: 'POST', headers: { 'Content-Type': 'text/csv' },
      body: 'kernel,block,sm,start_ns,end_ns\nK,0,0,0,1000\n',
    }).then(async (r) => ({ status: r.status, body: await r.json() }), (e) => ({ error: String(e.cause || e) }));
    await new Promise((ok) => setTimeout(ok, 1000));
    s.child.kill('SIGTERM');
    const [code] = await once(s.child, 'exit');
    const took = (Date.now() - t0) / 1000;
    const r = await post;
    assert.equal(code, 0, s.stderr());
    assert.ok(took < 15, `serve exited ${took.toFixed(1)} s after the request (the lock's 30 s wait held it)`);
    assert.ok(!r.error, `the request was cut off unanswered: ${r.error}`);
    assert.equal(r.status, 500, JSON.stringify(r));
    assert.match(r.body.error, /test\.db: database is locked/);
  } finally {
    holder.stdin.end();
    holder.kill();
    await s.stop();
  }
});
