// page_routes.test.mjs -- facts the dashboard and the server share, each
// kept in one place (issue 24): the page routes live in web/js/router.mjs
// (ROUTES), and the server must answer each with the app shell (a reload
// or a shared link of any page works); the request limits live in the
// server (GET /api/capabilities "limits") and the dashboard reads them
// there, so the numbers served must be the ones the routes enforce.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ROUTES, matchRoute } from '../../web/js/router.mjs';
import { VIEWS } from '../../web/js/views.mjs';
import { getJson, repo, startServer } from './server.mjs';

let srv;
before(async () => { srv = await startServer(); });
after(async () => { assert.equal(await srv.stop(), 0); });

test('every page of router.mjs is answered with the app shell, and main.mjs has a view for it', async () => {
  const shell = readFileSync(join(repo, 'web/index.html'), 'utf8');
  assert.ok(ROUTES.length >= 4, 'the router lists its pages');
  for (const r of ROUTES) {
    // the example is one of the route's own URLs
    assert.equal(matchRoute(r.example, '').name, r.name, `${r.name}: ${r.example}`);
    // (no "Accept: text/html": a path that is no page would get a 404)
    const res = await fetch(srv.base + r.example, { headers: { Accept: 'application/json' } });
    assert.equal(res.status, 200, `${r.example} (route ${r.name}) is not a page of server/http.c`);
    assert.match(res.headers.get('content-type'), /^text\/html/);
    assert.equal(await res.text(), shell, r.example);
  }
  // main.mjs renders a route by its name: views.mjs's VIEWS has one entry
  // per route, whose first module exports the render function it names
  assert.deepEqual(Object.keys(VIEWS).sort(), ROUTES.map((r) => r.name).sort());
  for (const [name, v] of Object.entries(VIEWS)) {
    const text = readFileSync(join(repo, 'web/js', v.modules[0]), 'utf8');
    assert.match(text, new RegExp(`^export (async )?function ${v.render}\\(`, 'm'), `${name}: ${v.modules[0]} exports no ${v.render}`);
  }
  // and a path that is no page stays a 404 for a client that is no browser
  assert.equal(matchRoute('/nowhere', '').name, 'notfound');
  assert.equal((await fetch(`${srv.base}/nowhere`, { headers: { Accept: 'application/json' } })).status, 404);
});

// The server's pages are the router's, near misses included: a path the
// dashboard shows as "not found" was answered 200 with the app shell where
// it began like a page (/experiments/x/y, /runs/a/b, /compare/x, and
// /experiments, which no route matches), against docs/api.md "Pages": any
// other path answers the shell with status 404 to a browser, JSON 404 to
// other clients.
test('the server answers as a page exactly the paths the router shows as one', async () => {
  const paths = ['/', '/experiments', '/experiments/', '/experiments/abc', '/experiments/abc/',
    '/experiments/abc/def', '/experiments//abc', '/runs', '/runs/', '/runs/abc', '/runs/abc/', '/runs/abc/timeline',
    '/compare', '/compare/', '/compare/abc', '/compares', '/sweeps', '/sweeps/', '/sweeps/abc', '/sweepsx'];
  for (const p of paths) {
    const page = matchRoute(p, '').name !== 'notfound';
    const json = await fetch(srv.base + p, { headers: { Accept: 'application/json' } });
    assert.equal(json.status, page ? 200 : 404, `${p}: the router says ${page ? 'a page' : 'not found'}`);
    const html = await fetch(srv.base + p, { headers: { Accept: 'text/html' } });
    assert.equal(html.status, page ? 200 : 404, `${p} from a browser`);
    assert.match(html.headers.get('content-type'), /^text\/html/, p);
  }
});

test('GET /api/capabilities serves the limits the routes enforce', async () => {
  const { status, body } = await getJson(`${srv.base}/api/capabilities`);
  assert.equal(status, 200);
  const L = body.limits;
  for (const k of ['window_max_default', 'window_max_ceiling', 'warps_max_default', 'warps_max_ceiling', 'compare_max_runs']) {
    assert.ok(Number.isSafeInteger(L[k]) && L[k] > 0, `limits.${k}: ${L[k]}`);
  }
  assert.ok(L.window_max_default <= L.window_max_ceiling);
  assert.ok(L.warps_max_default <= L.warps_max_ceiling);
  const exps = (await getJson(`${srv.base}/api/experiments`)).body.experiments;
  const run = exps.find((e) => e.runs && e.runs.length).runs[0].run;
  // each window route takes max up to the ceiling and refuses one more
  for (const route of ['blocks', 'kernels', 'copies']) {
    const ok = await getJson(`${srv.base}/api/runs/${run}/${route}?max=${L.window_max_ceiling}`);
    assert.equal(ok.status, 200, `${route}?max=${L.window_max_ceiling}: ${JSON.stringify(ok.body).slice(0, 200)}`);
    const no = await getJson(`${srv.base}/api/runs/${run}/${route}?max=${L.window_max_ceiling + 1}`);
    assert.equal(no.status, 400, route);
    assert.match(no.body.error, new RegExp(`\\.\\.${L.window_max_ceiling}\\)`));
  }
  const w = await getJson(`${srv.base}/api/runs/${run}/warps?max=${L.warps_max_ceiling + 1}`);
  assert.equal(w.status, 400);
  assert.match(w.body.error, new RegExp(String(L.warps_max_ceiling)));
  assert.equal((await getJson(`${srv.base}/api/runs/${run}/warps?max=${L.warps_max_ceiling}`)).status, 200);
  const runs = (n) => Array.from({ length: n }, () => run).join(',');
  assert.notEqual((await getJson(`${srv.base}/api/compare?runs=${runs(L.compare_max_runs)}`)).status, 400);
  const c = await getJson(`${srv.base}/api/compare?runs=${runs(L.compare_max_runs + 1)}`);
  assert.equal(c.status, 400);
  assert.match(c.body.error, new RegExp(`^runs: ${L.compare_max_runs + 1} run ids, at most ${L.compare_max_runs} may be compared`));
});
