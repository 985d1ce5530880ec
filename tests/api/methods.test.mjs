// methods.test.mjs -- a method a path does not take is 405 with an Allow
// header naming those it does (RFC 9110 15.5.6: an origin server MUST send
// it; schedlab's 405s had none), for the API's routes, the pages and files,
// and HEAD answers as GET without a body.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { serve } from './serve_opts.mjs';

let srv;
before(async () => { srv = await serve(); });
after(async () => { assert.equal(await srv.stop(), 0); });

async function answer(path, method) {
  const r = await fetch(`${srv.base}${path}`, { method });
  return { status: r.status, allow: r.headers.get('allow'), body: await r.text() };
}

test('405 names the methods of an API route in Allow', async () => {
  for (const [path, allow] of [
    ['/api/health', 'GET, HEAD'],
    ['/api/experiments', 'GET, HEAD, POST'],
    ['/api/experiments/nosuchslug', 'GET, HEAD, DELETE'],
    ['/api/runs/nosuchrun/replay', 'GET, HEAD, POST'],
    ['/api/imports', 'POST'],
    ['/api/jobs/nosuchjob', 'GET, HEAD, DELETE'],
  ]) {
    for (const method of ['PUT', 'PATCH', 'OPTIONS', 'FOO']) {
      const r = await answer(path, method);
      assert.equal(r.status, 405, `${method} ${path}: ${r.status} ${r.body}`);
      assert.equal(r.allow, allow, `${method} ${path}: Allow`);
      assert.match(r.body, new RegExp(`"${method} is not allowed on ${path}"`));
    }
  }
  // a GET of a write-only route
  const g = await answer('/api/imports', 'GET');
  assert.equal(g.status, 405);
  assert.equal(g.allow, 'POST');
});

test('405 on a page or file says GET, HEAD', async () => {
  for (const path of ['/', '/runs/abc', '/js/app.mjs']) {
    for (const method of ['POST', 'DELETE', 'OPTIONS']) {
      const r = await answer(path, method);
      assert.equal(r.status, 405, `${method} ${path}: ${r.status} ${r.body}`);
      assert.equal(r.allow, 'GET, HEAD', `${method} ${path}`);
    }
  }
});

test('HEAD answers the GET\'s status and headers without a body', async () => {
  for (const path of ['/api/health', '/api/experiments', '/']) {
    const h = await fetch(`${srv.base}${path}`, { method: 'HEAD' });
    const g = await fetch(`${srv.base}${path}`);
    assert.equal(h.status, g.status);
    assert.equal(h.headers.get('content-type'), g.headers.get('content-type'));
    assert.equal(await h.text(), '');
    await g.arrayBuffer();
  }
});

// RFC 9110 9.3.2 and docs/api.md ("HEAD is GET without the body, its
// Content-Length the GET's"): an error's text named the method, so HEAD of
// an unknown API route or of a write-only one said "HEAD" where the GET
// said "GET", one byte more than the GET it stands for
test('HEAD of an error answers the GET\'s Content-Length', async () => {
  for (const [path, status] of [['/api/nope', 404], ['/api/runs/nosuchrun/nope', 404],
    ['/api/imports', 405], ['/api/sweeps', 405], ['/api/runs/nosuchrun', 404]]) {
    const h = await fetch(`${srv.base}${path}`, { method: 'HEAD' });
    const g = await fetch(`${srv.base}${path}`);
    const body = await g.text();
    assert.equal(h.status, status, path);
    assert.equal(g.status, status, path);
    assert.equal(h.headers.get('content-length'), String(Buffer.byteLength(body)), `HEAD ${path}`);
    assert.equal(g.headers.get('content-length'), String(Buffer.byteLength(body)), `GET ${path}`);
    assert.equal(await h.text(), '');
  }
});
