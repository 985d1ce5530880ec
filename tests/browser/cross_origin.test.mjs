// cross_origin.test.mjs -- issue 16, item 1, in a real browser: a page on
// another origin (another port of 127.0.0.1, and a rebinding host name
// mapped to 127.0.0.1) tries every way a page can write to schedlab
// without asking -- no-cors fetches with CORS-safelisted content types, a
// cross-origin JSON fetch (preflighted), an auto-submitted form -- and
// nothing is stored; the dashboard itself still writes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

import { ready, startServer } from './harness.mjs';

let srv, evil, evilPort, browser, context, page;

const scenario = JSON.stringify({
  schema: 'schedlab-scenario/1', name: 'written from another origin', device: 'tx2',
  streams: [{ name: 'S1' }], ops: [{ kernel: 'K1', stream: 'S1', blocks: 2, threads: 64, block_time: '1ms' }],
});

function evilPage(target) {
  return `<!doctype html><html><body><h1>cat pictures</h1>
<form id="f" method="POST" action="${target}/api/experiments" enctype="text/plain" target="sink">
<input name='{"x":"' value='"}'></form><iframe name="sink"></iframe>
<script>
window.results = [];
const T = ${JSON.stringify(target)};
const body = ${JSON.stringify(scenario)};
async function attempt(name, fn) {
  try { const r = await fn(); window.results.push(name + ':' + (r && r.type) + ':' + (r && r.status)); }
  catch (e) { window.results.push(name + ':blocked'); }
}
(async () => {
  await attempt('no-cors text/plain scenario', () => fetch(T + '/api/experiments', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body }));
  await attempt('no-cors upload', () => fetch(T + '/api/imports?format=globaltimer-csv', { method: 'POST', mode: 'no-cors', body: new Blob(['kernel,block,sm,start_ns,end_ns\\nK,0,0,1,2\\n']) }));
  await attempt('no-cors form-urlencoded', () => fetch(T + '/api/imports', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=b' }));
  await attempt('cors json', () => fetch(T + '/api/experiments', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body }));
  await attempt('cors read', () => fetch(T + '/api/experiments').then((r) => r.json()));
  document.getElementById('f').submit();
  window.done = true;
})();
</script></body></html>`;
}

before(async () => {
  srv = await startServer();
  evil = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(evilPage(srv.base));
  });
  await new Promise((ok) => evil.listen(0, '127.0.0.1', ok));
  evilPort = evil.address().port;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-chromium-xo-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // evil.test resolves to loopback: DNS rebinding without a DNS server
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-quic',
      '--host-resolver-rules=MAP evil.test 127.0.0.1'],
  });
  context.profile = profile;
  page = context.pages()[0] || await context.newPage();
});

after(async () => {
  await context?.close();
  if (context?.profile) fs.rmSync(context.profile, { recursive: true, force: true });
  await new Promise((ok) => evil?.close(ok));
  await srv?.stop();
});

async function experiments() {
  return (await srv.api('/api/experiments')).body.experiments;
}

test('a page on another port tries to write: every attempt is refused, nothing stored', async () => {
  const n = (await experiments()).length;
  await page.goto(`http://127.0.0.1:${evilPort}/`);
  await page.waitForFunction(() => window.done === true, null, { timeout: 20000 });
  await page.waitForTimeout(500);   // the form's navigation in the iframe
  const results = await page.evaluate(() => window.results);
  assert.ok(results.includes('cors json:blocked'), results.join(', '));
  assert.ok(results.includes('cors read:blocked'), results.join(', '));
  const after = await experiments();
  assert.equal(after.length, n, `stored from another origin: ${after.map((e) => e.name).join(', ')}`);
  assert.ok(!after.some((e) => e.name === 'written from another origin'));
});

test('a rebinding host name (evil.test -> 127.0.0.1) gets no dashboard and no data', async () => {
  const url = new URL(srv.base);
  const res = await page.goto(`http://evil.test:${url.port}/`);
  assert.equal(res.status(), 421);
  const api = await page.goto(`http://evil.test:${url.port}/api/experiments`);
  assert.equal(api.status(), 421);
  assert.doesNotMatch(await page.content(), /"experiments"/);
});

test('the dashboard on its own origin still writes, and cannot be framed', async () => {
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  await page.fill('#scenario-text', scenario.replace('written from another origin', 'written by the dashboard'));
  await page.click('#scenario-form button[type=submit]');
  await ready(page, 'experiment');
  assert.ok((await experiments()).some((e) => e.name === 'written by the dashboard'));
  const r = await fetch(`${srv.base}/`);
  assert.equal(r.headers.get('x-frame-options'), 'DENY');
  assert.match(r.headers.get('content-security-policy'), /frame-ancestors 'none'/);
});
