// http.mjs -- the servers and the load generator of make bench's HTTP rows
// (docs/bench.md): `schedlab serve` on loopback with a database the bench
// fills, nginx from Debian on loopback serving byte-identical copies of its
// responses as the ceiling, and wrk from Debian driving either. Everything
// runs from a temporary folder: nginx gets a generated config, its own pid
// file, logs and temp paths, and never touches the system service.

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// GET on a connection of its own, closed after the answer: schedlab serve
// takes at most 64 connections per client address, so a connection kept
// alive here would push one of wrk's 64 over the limit (it is accepted and
// closed: wrk counts read errors).
export function get(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode, ok: res.statusCode >= 200 && res.statusCode < 300, body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export function have(cmd) {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// The servers this process started, killed if it exits (an exception, or
// Ctrl-C) before it stops them, so no nginx or server is left behind.
const children = new Set();
// (SIGTERM: nginx's master then stops its workers; a SIGKILLed one would not)
process.once('exit', () => { for (const c of children) c.kill('SIGTERM'); });
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));
function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

// Stops a child we started: SIGTERM, then SIGKILL after `graceMs`.
async function stopChild(child, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([done, sleep(graceMs)]);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await done;
  }
}

// `schedlab serve` storing every scenario of `scenarios` on start (that is
// how the bench's big runs get into the database: the server's own seeding
// path, simulated and streamed into SQLite). Resolves once /api/health
// answers; `seedSeconds` is how long the start took, seeding included.
export async function startSchedlab(bin, { db, scenarios, cwd, timeoutMs = 900000 }) {
  const port = await freePort();
  const t0 = Date.now();
  const child = track(spawn(bin, ['serve', '--db', db, '--port', String(port), '--bind', '127.0.0.1', '--scenarios', scenarios],
    { cwd, stdio: ['ignore', 'ignore', 'pipe'] }));
  let log = '';
  child.stderr.on('data', (d) => { log = (log + d).slice(-4000); });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`schedlab serve exited with ${child.exitCode}: ${log}`);
    try {
      // (the shipped scenarios are stored behind the open port: issue 30)
      const r = await get(`${base}/api/health`);
      if (r.ok && !JSON.parse(r.body).seeding) break;
    } catch {
      // not listening yet (still seeding)
    }
    if (Date.now() - t0 > timeoutMs) {
      await stopChild(child);
      throw new Error(`schedlab serve did not answer /api/health within ${timeoutMs / 1000} s: ${log}`);
    }
    await sleep(200);
  }
  return {
    base, port, pid: child.pid, seedSeconds: (Date.now() - t0) / 1000, log: () => log,
    async json(p) {
      const r = await get(base + p);
      if (!r.ok) throw new Error(`GET ${p}: ${r.status} ${r.body.toString('utf8', 0, 200)}`);
      return JSON.parse(r.body.toString('utf8'));
    },
    async bytes(p) {
      const r = await get(base + p);
      if (!r.ok) throw new Error(`GET ${p}: ${r.status} ${r.body.toString('utf8', 0, 200)}`);
      return r.body;
    },
    stop: () => stopChild(child),
  };
}

// nginx serving `files` ({name: Buffer}) from a fresh folder on a loopback
// port: two workers (one per core of the bench machine, as nginx's `auto`
// would pick), sendfile, no access log, unlimited keep-alive requests (wrk
// keeps its connections, and so does libmicrohttpd).
export async function startNginx(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-bench-nginx-'));
  const www = path.join(dir, 'www');
  fs.mkdirSync(www);
  // nginx's workers drop root for nobody: they must be able to read these
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(www, 0o755);
  for (const [name, buf] of Object.entries(files)) {
    fs.writeFileSync(path.join(www, name), buf);
    fs.chmodSync(path.join(www, name), 0o644);
  }
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  const t = (n) => path.join(dir, n);
  fs.writeFileSync(conf, `# generated by bench/http.mjs
daemon off;
worker_processes ${Math.max(1, os.cpus().length)};
pid ${t('nginx.pid')};
error_log ${t('error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  default_type application/json;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000000;
  keepalive_timeout 75s;
  client_body_temp_path ${t('body')};
  proxy_temp_path ${t('proxy')};
  fastcgi_temp_path ${t('fastcgi')};
  uwsgi_temp_path ${t('uwsgi')};
  scgi_temp_path ${t('scgi')};
  server {
    listen 127.0.0.1:${port};
    root ${www};
    location / { }
  }
}
`);
  const child = track(spawn('nginx', ['-p', dir, '-c', conf, '-e', t('error.log')], { stdio: ['ignore', 'ignore', 'pipe'] }));
  let log = '';
  child.stderr.on('data', (d) => { log = (log + d).slice(-4000); });
  const base = `http://127.0.0.1:${port}`;
  const name0 = Object.keys(files)[0];
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) {
      let elog = '';
      try { elog = fs.readFileSync(t('error.log'), 'utf8'); } catch { /* none */ }
      throw new Error(`nginx exited with ${child.exitCode}: ${log}${elog}`);
    }
    try {
      const r = await fetch(`${base}/${name0}`);
      await r.arrayBuffer();
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - t0 > 20000) {
      await stopChild(child);
      throw new Error(`nginx did not answer within 20 s: ${log}`);
    }
    await sleep(50);
  }
  return {
    base,
    url: (name) => `${base}/${name}`,
    async stop() {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// wrk's durations ("850.00us", "1.18s", "2.00m") in ms.
function ms(s) {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(s.trim());
  if (!m) return null;
  const v = Number(m[1]);
  return { us: v / 1000, ms: v, s: v * 1000, m: v * 60000, h: v * 3600000 }[m[2]];
}

// One wrk run: requests/s, latency percentiles (ms) and the errors, which a
// row must not have (a non-2xx answer or a timeout is a failed request, and
// wrk leaves timeouts out of its latencies).
export function wrk(url, { threads = 2, conns = 64, seconds = 5, timeout = '10s' } = {}) {
  const out = execFileSync('wrk', [`-t${threads}`, `-c${conns}`, `-d${seconds}s`, '--latency', '--timeout', timeout, url],
    { encoding: 'utf8', maxBuffer: 1 << 22 });
  return parseWrk(out, url);
}

// wrk's `--latency` report as numbers (ms for latencies).
export function parseWrk(out, url = '') {
  const num = (re) => {
    const m = re.exec(out);
    return m ? Number(m[1]) : null;
  };
  const pct = (p) => {
    const m = new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out);
    return m ? ms(m[1]) : null;
  };
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const r = {
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    requests: num(/(\d+) requests in/),
    p50_ms: pct(50), p75_ms: pct(75), p90_ms: pct(90), p99_ms: pct(99),
    non2xx: num(/Non-2xx or 3xx responses: (\d+)/) ?? 0,
    errors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    socket_errors: sock ? { connect: +sock[1], read: +sock[2], write: +sock[3], timeout: +sock[4] } : null,
  };
  if (r.rps === null || r.p99_ms === null || r.requests === null) throw new Error(`wrk ${url}: cannot read its output:\n${out}`);
  // no request finished within the run: wrk prints 0.00us, which is no latency
  if (r.requests === 0) r.p50_ms = r.p75_ms = r.p90_ms = r.p99_ms = null;
  return r;
}

// For a row whose single request takes longer than wrk's run would give
// samples for (the 1-connection rows of a slow server): each repeat is one
// request timed end to end, body read, its latency standing for p50 and p99.
export async function fetchRepeated(url, repeats, firstMs = null) {
  const runs = [];
  for (let i = 0; i < repeats; i++) {
    let t = firstMs;
    let ok = true;
    let error = null;
    if (i > 0 || t === null) {
      try {
        const t0 = performance.now();
        ok = (await get(url)).ok;
        t = performance.now() - t0;
      } catch (e) {
        error = e.message;
      }
    }
    if (error) runs.push({ rps: null, requests: 0, p50_ms: null, p75_ms: null, p90_ms: null, p99_ms: null, non2xx: 0, errors: 1, error });
    else runs.push({ rps: 1000 / t, requests: 1, p50_ms: t, p75_ms: t, p90_ms: t, p99_ms: t, non2xx: ok ? 0 : 1, errors: 0 });
  }
  return summarise(runs, 'one request per repeat (too slow for wrk)');
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : null;
};
export const min = (xs) => (xs.length ? Math.min(...xs) : null);
export const max = (xs) => (xs.length ? Math.max(...xs) : null);

// `repeats` wrk runs against `url`, summarised: rps min/median/max, p50 and
// p99 min/median, failed requests in all.
const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

// CPU seconds a process has used (/proc/PID/stat utime + stime).
function cpuOf(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const v = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(v[11]) + Number(v[12])) / 100;   // fields 14 and 15, clock ticks
  } catch {
    return null;
  }
}

// Waits until process `pid` has been idle (under 5 % of a core) for 250 ms,
// at most `limitMs`; returns the ms waited. A server that answers each
// request in a thread keeps computing the answers wrk gave up on when its
// run ended, and the next run must not pay for them.
export function waitIdle(pid, limitMs = 60000) {
  const t0 = Date.now();
  let last = cpuOf(pid);
  if (last === null) return 0;
  for (;;) {
    sleepSync(250);
    const now = cpuOf(pid);
    if (now === null || now - last < 0.0125 || Date.now() - t0 > limitMs) return Date.now() - t0;
    last = now;
  }
}

// `idlePid`: the server's process, to wait for between runs (waitIdle).
export function wrkRepeated(url, opts, repeats, idlePid = null) {
  const runs = [];
  for (let i = 0; i < repeats; i++) {
    // let the last run's connections close first: schedlab serve allows 64
    // per client address, and wrk's 64 would otherwise find some still open
    if (i) sleepSync(500);
    const drained = idlePid ? waitIdle(idlePid) : 0;
    runs.push({ ...wrk(url, opts), waited_idle_ms: drained });
  }
  return summarise(runs, 'wrk');
}

function summarise(runs, how) {
  const col = (k) => runs.map((r) => r[k]).filter((v) => v !== null);
  const r3 = (v, d) => (v === null ? null : +v.toFixed(d));
  return {
    how, runs,
    rps_min: r3(min(col('rps')), 1), rps_median: r3(median(col('rps')), 1), rps_max: r3(max(col('rps')), 1),
    p50_ms_min: r3(min(col('p50_ms')), 3), p50_ms_median: r3(median(col('p50_ms')), 3),
    p99_ms_min: r3(min(col('p99_ms')), 3), p99_ms_median: r3(median(col('p99_ms')), 3),
    // a run with no finished request, a non-2xx answer or a socket error
    failed: runs.reduce((a, r) => a + r.non2xx + r.errors + (r.requests === 0 ? 1 : 0), 0),
  };
}
