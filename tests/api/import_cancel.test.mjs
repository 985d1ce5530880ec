// import_cancel.test.mjs -- an import job cancelled while its file is still
// being parsed (DELETE /api/jobs/{id}; SIGTERM cancels the same way after
// its 5 s of grace) stops within a moment, mid-parse: only the store's
// batches looked before, so the parse went on to its end (35 s for a 630 MB
// schedlab-trace upload) before the job, or a stopping server, ended.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { json, serve } from './serve_opts.mjs';

// a schedlab-trace of n blocks (~70 bytes each): over sync_bytes, so a job
function traceText(n) {
  const parts = ['{"schema":"schedlab-trace/1","name":"big","origin":0,',
    `"kernels":[{"id":0,"name":"K","blocks":${n}}],\n"blocks":[`];
  const rows = new Array(n);
  for (let i = 0; i < n; i++) rows[i] = `{"kernel":0,"index":${i},"sm":${i % 80},"start":${i * 1000},"end":${i * 1000 + 900}}`;
  parts.push(rows.join(',\n'), ']}\n');
  return parts.join('');
}

test('DELETE of an import job mid-parse ends it at once, aborted, nothing stored', async () => {
  // the body first: made between two requests, under load (seconds), it
  // left the client's keep-alive connection idle past the server's 10 s
  // header deadline, which closed it (408; now 30 s idle, conn_guard.h), and the POST was written into
  // the closed socket (EPIPE, "fetch failed": a CI run at load 20)
  const body = traceText(1_500_000);
  const s = await serve();
  try {
    const before = (await json(`${s.base}/api/experiments`)).body.experiments.length;
    const post = await json(`${s.base}/api/imports?format=schedlab-trace`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body,
    });
    assert.equal(post.status, 202, JSON.stringify(post.body));
    const url = `${s.base}${post.body.url}`;
    // cancel once the parse has begun (its progress moves: the bytes read)
    for (const deadline = Date.now() + 60000; ;) {
      const j = (await json(url)).body;
      assert.ok(['queued', 'running'].includes(j.state), `the parse ended before the cancel: ${JSON.stringify(j)}`);
      if (j.state === 'running' && j.phase === 'parsing' && j.done > 0) break;
      assert.ok(Date.now() < deadline, 'the job never started parsing');
      await new Promise((ok) => setTimeout(ok, 20));
    }
    const t0 = Date.now();
    const del = await json(url, { method: 'DELETE' });
    assert.equal(del.status, 202, JSON.stringify(del.body));
    let end;
    for (;;) {
      end = (await json(url)).body;
      if (!['queued', 'running'].includes(end.state)) break;
      await new Promise((ok) => setTimeout(ok, 20));
    }
    const took = Date.now() - t0;
    assert.equal(end.state, 'aborted', JSON.stringify(end));
    assert.equal(end.status, 409);
    assert.equal(end.error, 'cancelled; nothing was stored');
    // stopped in the parse (its first 800 of 1000 units), not after it
    assert.ok(end.done < 800, `the parse ran to its end before the cancel was seen: ${JSON.stringify(end)} after ${took} ms`);
    assert.ok(took < 5000, `cancelled within a moment, not ${took} ms`);
    assert.equal((await json(`${s.base}/api/experiments`)).body.experiments.length, before);
  } finally { assert.equal(await s.stop(), 0); }
});
