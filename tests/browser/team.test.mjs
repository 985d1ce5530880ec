// The README's "Running it for your team" (issue 30), run as written:
// - its nginx server block, taken from README.md as it is (only the
//   listen address, the certificate paths and the upstream port replaced),
//   started on loopback with a self-signed certificate in front of
//   `schedlab serve --token`; the dashboard opens through it over TLS, a
//   write without the token is refused (401), the page asks for the token
//   once, keeps it for the tab and writes with it; skipped (one line) when
//   nginx is not installed (tools/install-deps.sh installs nginx-light);
// - `serve --bind 0.0.0.0` prints the addresses it answers on, never
//   "0.0.0.0";
// - a first start opens its port at once and the home page shows the
//   shipped scenarios arriving.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServer, startBrowser, ready, OUT, REPO, shot } from './harness.mjs';
import { shippedSubset } from '../api/server.mjs';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
const BIN = process.env.SCHEDLAB_BIN || path.join(REPO, 'schedlab');
const cleanups = [];
after(async () => {
  for (const f of cleanups.reverse()) await f();
});

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
    setTimeout(() => { if (child.exitCode === null) child.kill('SIGKILL'); }, 3000);
  });
}

// The README's nginx block, as written.
function readmeNginx() {
  const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const m = /<!-- team-nginx[^\n]*-->\n```nginx\n([\s\S]*?)```/.exec(readme);
  assert.ok(m, 'README.md has the team-nginx block');
  return m[1];
}

test('the README\'s nginx block serves the dashboard over TLS; writes need the token, asked once per tab', { skip: NGINX ? false : 'nginx is not installed (tools/install-deps.sh installs nginx-light)' }, async () => {
  const token = 'team-token-30';
  const srv = await startServer(['--token', token]);
  cleanups.push(() => srv.stop());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-nginx-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const crt = path.join(dir, 'lab.pem');
  const key = path.join(dir, 'lab.key');
  const ssl = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', crt], { encoding: 'utf8' });
  assert.equal(ssl.status, 0, ssl.stderr);
  const port = await freePort();
  const upstream = new URL(srv.base).port;
  const block = readmeNginx()
    .replace('listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`)
    .replace('/etc/ssl/certs/gpu-lab.pem', crt)
    .replace('/etc/ssl/private/gpu-lab.key', key)
    .replace('proxy_pass http://127.0.0.1:8080;', `proxy_pass http://127.0.0.1:${upstream};`);
  assert.ok(block.includes(`127.0.0.1:${port} ssl`) && block.includes(crt) && block.includes(`:${upstream};`), 'the README block has the lines this test replaces');
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) fs.mkdirSync(path.join(dir, d));
  fs.writeFileSync(path.join(dir, 'nginx.conf'), `pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  types { text/html html; }
${block}
}
`);
  const nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let nlog = '';
  nginx.stderr.on('data', (d) => { nlog += d; });
  cleanups.push(() => stopChild(nginx));
  const base = `https://127.0.0.1:${port}`;
  const br = await startBrowser();
  cleanups.push(() => br.close());
  // nginx up: the page answers over TLS (the certificate is self-signed)
  const deadline = Date.now() + 15000;
  for (;;) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited: ${nlog}`);
    try {
      const r = await br.context.request.get(`${base}/api/health`, { ignoreHTTPSErrors: true });
      if (r.ok()) break;
    } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`nginx did not answer: ${nlog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const tls = await (await import('node:https')).default;
  await new Promise((resolve, reject) => {
    tls.get(`${base}/`, { rejectUnauthorized: false }, (res) => {
      assert.equal(res.statusCode, 200);
      assert.ok(res.socket.getProtocol(), 'a TLS connection');
      res.resume();
      res.on('end', resolve);
    }).on('error', reject);
  });
  // a write without the token: 401 through the proxy
  const bare = await br.context.request.post(`${base}/api/experiments`, { data: '{}', headers: { 'Content-Type': 'application/json' }, ignoreHTTPSErrors: true });
  assert.equal(bare.status(), 401);
  // in the page: the first write asks for the token, the second does not
  // the page, in a browser that accepts the self-signed certificate
  const { chromium } = await import('playwright-core');
  const b2 = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  cleanups.push(() => b2.close());
  const ctx = await b2.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
  const p = await ctx.newPage();
  const problems = [];
  p.on('pageerror', (e) => problems.push(e.message));
  const prompts = [];
  p.on('dialog', (d) => {
    prompts.push(d.message());
    d.accept(token);
  });
  await p.goto(`${base}/`);
  await ready(p, 'experiments');
  const scenario = (name) => JSON.stringify({ schema: 'schedlab-scenario/1', name, device: 'tx2', streams: [{ name: 'S1' }],
    ops: [{ kernel: 'K', stream: 'S1', at: '0s', blocks: 1, threads: 64, block_time: '1us' }] });
  const made = await p.evaluate(async ([a, b]) => {
    const { api } = await import('/js/api.mjs');
    const r1 = await api.createExperiment(a);
    const r2 = await api.createExperiment(b);
    return [r1.slug, r2.slug];
  }, [scenario('team one'), scenario('team two')]);
  assert.equal(made.length, 2);
  assert.equal(prompts.length, 1, prompts.join(' | '));
  assert.doesNotMatch(prompts[0], /--token|serve /, 'the page never quotes a command-line flag');
  const list = (await srv.api('/api/experiments')).body.experiments.map((e) => e.name);
  assert.ok(list.includes('team one') && list.includes('team two'));
  await shot(p, path.join(OUT, 'team-tls.png'));
  assert.deepEqual(problems, []);
});

test('serve --bind 0.0.0.0 prints the addresses it answers on, never 0.0.0.0', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-bind-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const child = spawn(BIN, ['serve', '--db', path.join(dir, 't.db'), '--port', '0', '--bind', '0.0.0.0', '--token', 't', '--scenarios', dir],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  cleanups.push(() => stopChild(child));
  let log = '';
  child.stderr.on('data', (d) => { log += d; });
  const deadline = Date.now() + 20000;
  while (!/serving http/.test(log)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 200));
  const lines = log.split('\n').filter((l) => l.includes('serving http'));
  assert.ok(!log.includes('0.0.0.0:'), log);
  assert.match(lines[0], /^schedlab: serving http:\/\/127\.0\.0\.1:\d+\//, 'loopback first');
  // every line an address of this machine's interfaces
  const mine = Object.values(os.networkInterfaces()).flat().filter((a) => a.family === 'IPv4').map((a) => a.address);
  for (const l of lines) {
    const host = /http:\/\/([^:/]+):/.exec(l)[1];
    assert.ok(mine.includes(host), `${host} is not an address of this machine (${mine})`);
  }
  assert.equal(lines.length, new Set(mine).size);
});

test('a first start opens its port at once and the home page shows the shipped scenarios arriving', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-seed-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  // seven of the shipped scenarios (the seed database's first start stores
  // all of them: tests/api/seed.mjs), then the shipped sweeps at the tests'
  // reduced size
  const some = shippedSubset();
  const t0 = Date.now();
  const child = spawn(BIN, ['serve', '--db', path.join(dir, 't.db'), '--port', String(port), '--bind', '127.0.0.1',
    '--scenarios', some.dir],
    { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SCHEDLAB_SEED_SWEEP_TASKSETS: '20' } });
  cleanups.push(() => stopChild(child));
  const base = `http://127.0.0.1:${port}`;
  let first = null;
  for (;;) {
    try {
      const r = await fetch(`${base}/api/health`);
      if (r.ok) {
        first = await r.json();
        break;
      }
    } catch { /* not yet */ }
    if (Date.now() - t0 > 20000) throw new Error('serve did not open its port');
    await new Promise((r) => setTimeout(r, 20));
  }
  const openMs = Date.now() - t0;
  // the port opens before the scenarios are stored (they take seconds)
  assert.equal(first.seeding, true, `health: ${JSON.stringify(first)}`);
  assert.ok(openMs < 5000, `port open after ${openMs} ms`);
  const shipped = some.names.length;
  const br = await startBrowser();
  cleanups.push(() => br.close());
  await br.page.goto(`${base}/`);
  await ready(br.page, 'experiments');
  const seen = [];
  for (;;) {
    const st = await br.page.evaluate(() => ({ seeding: window.schedlab.seeding, n: document.querySelectorAll('#experiments tbody tr').length,
      note: document.querySelector('#seeding')?.textContent || '' }));
    seen.push(st);
    if (st.seeding === false) break;
    if (Date.now() - t0 > 120000) throw new Error(`still seeding: ${JSON.stringify(seen.slice(-3))}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  // the list grew while the note said so, and ends with every shipped scenario
  assert.ok(seen.some((s) => s.seeding && /Storing the shipped scenarios/.test(s.note)), JSON.stringify(seen.slice(0, 3)));
  // every shipped scenario, and the shipped sweeps stored after them
  const listed = (await (await fetch(`${base}/api/experiments`)).json()).experiments;
  assert.equal(listed.filter((e) => e.source === 'scenario').length, shipped);
  await br.page.waitForFunction((n) => document.querySelectorAll('#experiments tbody tr').length === n, listed.length);
  assert.ok(new Set(seen.map((s) => s.n)).size > 1, `the list grew: ${seen.map((s) => s.n)}`);
  assert.equal(await br.page.locator('#seeding').isHidden(), true);
  assert.deepEqual(br.problems, []);
});

test('a browser leaving mid-download leaves nothing in the server\'s log', async () => {
  const srv = await startServer();
  cleanups.push(() => srv.stop());
  const { body: list } = await srv.api('/api/experiments');
  const run = list.experiments.find((e) => /^GCAPS case study/.test(e.name)).runs[0].run;
  const http = (await import('node:http')).default;
  // three downloads of the run's trace (megabytes), each dropped after its first bytes
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => {
      const req = http.get(`${srv.base}/api/runs/${run}/export?format=trace`, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', resolve);
    });
  }
  // the server goes on answering, and says nothing about the dropped ones
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await srv.api('/api/health')).status, 200);
  assert.doesNotMatch(srv.log(), /Failed to send/);
});
