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
