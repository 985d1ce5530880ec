// http_fuzz.test.mjs -- a request-level fuzz of a live server (issue 16):
// random methods, paths, queries, headers and bodies, plus slow clients
// that dribble or stall, against `schedlab serve` on loopback only. Bounded
// in count and time. Throughout, /api/health (asked from a worker thread,
// so this process's own work does not delay the measurement) answers within
// 100 ms; every request gets a 2xx/3xx, or a 4xx/5xx with a JSON error; and
// the idle server's RSS, less its bounded answer caches, returns to within
// 4 MiB of where it started.
// SCHEDLAB_HTTP_FUZZ=N sets the number of requests (default 1200),
// SCHEDLAB_HTTP_FUZZ_SEED the seed (printed).
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { after, before, test } from 'node:test';

import { fixture } from './server.mjs';
import { JSON_BODY, json, rssKiB, scenario, serve } from './serve_opts.mjs';

const COUNT = Number(process.env.SCHEDLAB_HTTP_FUZZ || 1200);
const SEED = Number(process.env.SCHEDLAB_HTTP_FUZZ_SEED || Date.now() % 1000000);
const TIME_LIMIT_MS = 90000;
const CONCURRENCY = 8;
const SLOW_CLIENTS = 24;

// xorshift: the same seed gives the same requests
let state = SEED || 1;
function rnd() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state / 4294967296;
}
const pick = (a) => a[Math.floor(rnd() * a.length)];
const int = (n) => Math.floor(rnd() * n);

let srv;
let runs = [];
let exps = [];
const stats = { requests: 0, byStatus: {}, slow: 0, slowAnswered: 0, healthMax: 0, healthN: 0, rssStart: 0, rssPeak: 0, rssEnd: 0, cachedKiB: [] };

before(async () => {
  srv = await serve(['--budget', 'sync=50000,queue=4,blocks=2000000']);
  const { body } = await json(`${srv.base}/api/experiments`);
  exps = body.experiments.map((e) => e.slug);
  runs = body.experiments.flatMap((e) => e.runs.map((r) => r.run));
});

after(async () => {
  console.log(`# http fuzz: seed ${SEED}, ${stats.requests} requests ${JSON.stringify(stats.byStatus)}, ` +
    `${stats.slow} slow clients (${stats.slowAnswered} answered), health max ${stats.healthMax.toFixed(1)} ms over ${stats.healthN} probes, ` +
    `RSS less caches ${stats.rssStart} KiB -> peak ${stats.rssPeak} KiB (RSS) -> ${stats.rssEnd} KiB ` +
    `(caches ${stats.cachedKiB.join(' KiB, ')} KiB)`);
  if (srv) assert.equal(await srv.stop(), 0);
});

const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'POST', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND', 'BREW'];
const INTS = ['0', '-1', '1', '9223372036854775807', '-9223372036854775808', '4611686018427387904', '1e9', 'abc', '', '%00', '99999999999999999999', '-0', '20000', '200001'];

function junk(n) {
  const c = 'abcXYZ09/._-%~!$&\'()*+,;=:@?#[]{}"<> \\';
  let s = '';
  for (let i = 0; i < n; i++) s += c[int(c.length)];
  return s;
}

function path() {
  const run = runs.length ? pick(runs) : 'x';
  const exp = exps.length ? pick(exps) : 'x';
  const p = pick([
    '/api/health', '/api/capabilities', '/api/presets', '/api/scenarios', '/api/experiments',
    `/api/experiments/${exp}`, '/api/imports', `/api/runs/${run}`, `/api/runs/${run}/blocks`,
    `/api/runs/${run}/kernels`, `/api/runs/${run}/copies`, `/api/runs/${run}/jobs`,
    `/api/runs/${run}/queues`, `/api/runs/${run}/export`, `/api/runs/${run}/replay`, '/api/compare',
    '/api/jobs/abc', '/api/rta', '/', '/index.html', '/js/main.mjs', '/css/app.css', `/runs/${run}`,
    '/../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/api/', '/api', `/api/runs/${junk(8)}`, `/${junk(int(40))}`,
    `/api/runs/${run}/${junk(5)}`, '/vendor/chart.umd.min.js', `/api/runs/${'a'.repeat(int(3000))}`,
  ]);
  const q = [];
  for (let i = int(4); i > 0; i--) q.push(`${pick(['from', 'to', 'max', 'at', 'format', 'runs', 'name', 'experiment', 'device', junk(3)])}=${encodeURIComponent(pick([...INTS, junk(6), run, `${run},${run}`, 'chrome', 'trace', 'nvprof-csv', 'tx2']))}`);
  if (rnd() < 0.05) for (let i = 0; i < 300; i++) q.push(`k${i}=${i}`);
  // what an HTTP client can put on the request line: anything else escaped
  const esc = (x) => x.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/g, (c) => encodeURIComponent(c));
  return esc(q.length ? `${p}?${q.join('&')}` : p);
}

const BODIES = [];
function body() {
  if (!BODIES.length) {
    for (const f of ['globaltimer.csv', 'examiner.json', 'nvprof.csv']) {
      try { BODIES.push(readFileSync(fixture(f))); } catch { /* a fixture this build lacks */ }
    }
    BODIES.push(Buffer.from(JSON.stringify(scenario(4))));
    BODIES.push(Buffer.from(JSON.stringify(scenario(100000))));
    BODIES.push(Buffer.from(JSON.stringify(scenario(30000000))));
    BODIES.push(Buffer.from(JSON.stringify(scenario(1, { variants: 200 }))));
  }
  const k = rnd();
  if (k < 0.15) return Buffer.alloc(0);
  if (k < 0.35) return Buffer.from(Array.from({ length: int(4096) }, () => int(256)));
  if (k < 0.45) return Buffer.alloc((1 + int(3)) << 20, pick([0, 0x41, 0x0a]));   /* past the in-memory part */
  const b = Buffer.from(pick(BODIES));
  for (let i = int(6); i > 0 && b.length; i--) b[int(b.length)] = int(256);   /* mutated */
  return b;
}

function headers(len) {
  const h = {};
  if (rnd() < 0.8) h['Content-Type'] = pick(['application/json', 'application/octet-stream', 'text/plain', 'multipart/form-data; boundary=x', 'text/csv', 'application/json; charset=utf-8', junk(10)]);
  if (rnd() < 0.2) h.Origin = pick([srv.base, 'http://evil.example', 'null', junk(12)]);
  if (rnd() < 0.1) h['Sec-Fetch-Site'] = pick(['cross-site', 'same-origin', 'none']);
  if (rnd() < 0.1) h.Authorization = pick(['Bearer x', 'Basic Zm9v', junk(20)]);
  if (rnd() < 0.1) h[`X-${junk(5).replace(/[^A-Za-z0-9]/g, 'q')}`] = 'v'.repeat(int(2000));
  if (rnd() < 0.05) h['If-Modified-Since'] = 'Sun, 22 Nov 2026 00:00:00 GMT';
  if (rnd() < 0.1) h['Transfer-Encoding'] = 'chunked';
  else h['Content-Length'] = String(len);
  return h;
}

function isJsonError(text) {
  try { const j = JSON.parse(text); return typeof j.error === 'string' && !/[\u0000-\u001f]/.test(j.error); } catch { return false; }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function one() {
  const method = pick(METHODS);
  let p = path();
  const b = ['GET', 'HEAD'].includes(method) && rnd() < 0.9 ? Buffer.alloc(0) : body();
  const hd = headers(b.length);
  if (method === 'POST' && rnd() < 0.6) {
    // often a well-formed write, so the handlers and the job queue get fuzzed too
    p = pick(['/api/experiments', '/api/imports', '/api/imports?format=globaltimer-csv', '/api/rta']);
    hd['Content-Type'] = p.startsWith('/api/imports') ? 'application/octet-stream' : 'application/json';
    delete hd.Origin;
    delete hd['Sec-Fetch-Site'];
  }
  return new Promise((resolve) => {
    let req;
    try {
      req = http.request({ host: '127.0.0.1', port: srv.port, method, path: p, headers: hd, agent }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ method, p, hd, status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (e) => resolve({ method, p, hd, status: 0, text: String(e) }));
    });
    } catch (e) {
      resolve({ method, p, hd, status: -1, text: String(e) });   /* not sendable: not counted */
      return;
    }
    req.setTimeout(40000, () => req.destroy(new Error('no answer in 40 s')));
    req.on('error', (e) => resolve({ method, p, hd, status: 0, text: String(e) }));
    if (b.length) req.write(b);
    req.end();
  });
}

// A slow client: headers byte by byte, a body that stops half-way, or a
// connection that says nothing. The server must not stall for it.
function slowClient() {
  stats.slow++;
  return new Promise((resolve) => {
    const s = net.connect(srv.port, '127.0.0.1');
    const kind = int(3);
    const req = kind === 2 ? ''
      : `POST /api/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${kind ? 1000000 : 10}\r\n\r\n${kind ? 'x'.repeat(1000) : '0123456789'}`;
    let i = 0, got = '';
    s.on('data', (d) => { got += d; });
    const tick = setInterval(() => {
      if (i < req.length && kind === 0) s.write(req[i++]);
      else if (i === 0 && kind === 1) { s.write(req); i = req.length; }
    }, 20);
    setTimeout(() => {
      clearInterval(tick);
      if (got.startsWith('HTTP/1.1 ')) stats.slowAnswered++;
      s.destroy();
      resolve();
    }, 3000 + int(4000));
    s.on('error', () => {});
  });
}

// The server's RSS once idle, less the answers it caches for their next
// asker (bounded: /api/health's cache_bytes): the jobs queued have
// finished, and a request made over a second after the last one left none
// in flight, so the server has let go of what it keeps between requests
// (its pooled connections' page caches) and trimmed the allocator's arenas
// (http.c on_completed).
async function idleRss() {
  for (let i = 0; i < 600; i++) {
    const h = await json(`${srv.base}/api/health`);
    if (h.body.jobs === 0) break;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  await new Promise((ok) => setTimeout(ok, 1100));
  await json(`${srv.base}/api/health`);
  await new Promise((ok) => setTimeout(ok, 100));
  const rss = rssKiB(srv.pid);
  const { body } = await json(`${srv.base}/api/health`);
  assert.equal(typeof body.cache_bytes, 'number', JSON.stringify(body));
  stats.cachedKiB.push(Math.round(body.cache_bytes / 1024));
  return rss - Math.round(body.cache_bytes / 1024);
}

test('request-level fuzz of a live server', async () => {
  // warm up with ordinary requests, as many at once as the fuzz makes, so
  // the start RSS includes what any use has (pooled connections, threads)
  for (let round = 0; round < 6; round++) {
    await Promise.all(Array.from({ length: CONCURRENCY * 2 }, (_, i) => json(`${srv.base}/api/runs/${runs[(round * 16 + i) % runs.length]}/${pick(['blocks', 'kernels', 'queues', 'export'])}`)));
  }
  await json(`${srv.base}/api/experiments`, { method: 'POST', body: JSON.stringify(scenario(4)), headers: JSON_BODY });
  stats.rssStart = await idleRss();

  const probe = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let max = 0, n = 0, bad = [], stop = false;
    parentPort.on('message', () => { stop = true; });
    (async function loop() {
      while (!stop) {
        const t0 = performance.now();
        const status = await new Promise((ok) => {
          const r = http.get({ host: '127.0.0.1', port: workerData.port, path: '/api/health', agent }, (res) => { res.resume(); res.on('end', () => ok(res.statusCode)); });
          r.on('error', () => ok(0));
        });
        const dt = performance.now() - t0;
        n++;
        if (dt > max) max = dt;
        if (status !== 200 || dt > 100) bad.push({ status, ms: Math.round(dt) });
        await new Promise((ok) => setTimeout(ok, 25));
      }
      parentPort.postMessage({ max, n, bad });
    })();
  `, { eval: true, workerData: { port: srv.port } });
  const probeDone = new Promise((ok) => probe.once('message', ok));

  const t0 = Date.now();
  const failures = [];
  try {
  let next = 0;
  const slow = [];
  for (let i = 0; i < SLOW_CLIENTS; i++) slow.push(new Promise((ok) => setTimeout(ok, int(20000))).then(slowClient));
  async function lane() {
    while (next < COUNT && Date.now() - t0 < TIME_LIMIT_MS) {
      next++;
      const r = await one();
      if (r.status === -1) continue;
      stats.requests++;
      stats.byStatus[r.status] = (stats.byStatus[r.status] || 0) + 1;
      const ok = (r.status >= 200 && r.status < 400) || (r.status >= 400 && r.status < 600 && (r.method === 'HEAD' || isJsonError(r.text)));
      if (!ok) failures.push(`${r.method} ${r.p.slice(0, 120)} ${JSON.stringify(r.hd).slice(0, 200)} -> ${r.status} ${r.text.slice(0, 200)}`);
      stats.rssPeak = Math.max(stats.rssPeak, rssKiB(srv.pid));
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  await Promise.all(slow);
  } finally {
    probe.postMessage('stop');
  }
  const health = await probeDone;
  await probe.terminate();
  stats.healthMax = health.max;
  stats.healthN = health.n;

  // then the memory has to be back
  for (let i = 0; i < 20; i++) await json(`${srv.base}/api/runs/${pick(runs)}/blocks`);
  stats.rssEnd = await idleRss();

  assert.deepEqual(failures.slice(0, 10), [], `${failures.length} requests without a proper answer`);
  assert.ok(stats.requests >= Math.min(COUNT, 200), `only ${stats.requests} requests in ${TIME_LIMIT_MS} ms`);
  assert.equal(health.bad.filter((b) => b.status !== 200).length, 0, `health failed: ${JSON.stringify(health.bad.slice(0, 5))}`);
  // never starved (a health check queued behind the fuzz would wait for
  // seconds), and quick but for the odd probe a loaded machine delays
  assert.ok(health.max < 1000, `/api/health took up to ${health.max.toFixed(1)} ms (${JSON.stringify(health.bad.slice(0, 5))})`);
  assert.ok(health.bad.length <= Math.ceil(health.n * 0.05),
    `/api/health over 100 ms in ${health.bad.length} of ${health.n} probes (${JSON.stringify(health.bad.slice(0, 5))})`);
  // Measured idle and less the bounded answer caches (idleRss), the
  // server's memory ends where it started, give or take the allocator: on
  // the 2-core AMD EPYC, six seeds ended 1.7-4.2 MiB *below* their start
  // (the start holds the warm-up's 36 connection threads' stacks, the end
  // 10-15). Leaking an answer buffer (5 KB and up) on each of the 1,200
  // requests would add more than 5.8 MiB; 4 MiB is allowed. (Before the
  // idle server dropped its pooled connections' page caches and the test
  // took the caches' bytes out, the same check needed 6 MiB and a fifth of
  // the peak's rise, and still failed now and then: a run's last /blocks
  // answers, up to 7 MiB of them, were in its end.) Small leaks are the
  // ASan unit runs' to find.
  assert.ok(stats.rssEnd <= stats.rssStart + 4096,
    `RSS less caches ${stats.rssStart} KiB at the start, ${stats.rssEnd} KiB after (${stats.requests} requests)`);
  agent.destroy();
});
