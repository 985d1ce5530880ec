// serve_opts.mjs -- `schedlab serve` with options of our choosing (issue 16
// tests: tokens, budgets, upload caps, kills), on a free loopback port.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';

import { bin, freePort, seedDb, tempDir } from './server.mjs';

export const JSON_BODY = { 'Content-Type': 'application/json' };
export const RAW = { 'Content-Type': 'application/octet-stream' };

// Start a server; resolves once /api/health answers (any status: a corrupt
// database answers 503). `dir`/`db` reuse a database across restarts; a new
// database starts as a copy of the seed (server.mjs), like startServer's.
export async function serve(args = [], { env = {}, dir = null, db = null, keep = false } = {}) {
  dir = dir || tempDir('h16');
  // a copy of the seed is not checked again (--no-check, as startServer's)
  const seeded = !db && !!seedDb;
  if (seeded) copyFileSync(seedDb, join(dir, 'test.db'));
  db = db || join(dir, 'test.db');
  const port = await freePort();
  const child = spawn(bin, ['serve', '--db', db, '--port', String(port), '--bind', '127.0.0.1',
    ...(seeded ? ['--no-check'] : []), ...args], {
    cwd: dir,
    // (a new database seeds the shipped sweeps at the tests' reduced size,
    // as startServer's: server.mjs)
    env: { ...process.env, SCHEDLAB_SEED_SWEEP_TASKSETS: process.env.SCHEDLAB_SEED_SWEEP_TASKSETS ?? '20', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`schedlab serve exited ${child.exitCode}: ${stderr}`);
    try {
      const r = await fetch(`${base}/api/health`);
      // a healthy server has stored the shipped scenarios (issue 30: behind the open port)
      if (!r.ok || !(await r.json()).seeding) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');   // else the orphan keeps this test file's process alive
      throw new Error(`schedlab serve did not answer: ${stderr}`);
    }
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return {
    base, port, db, dir, child, pid: child.pid,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        await once(child, 'exit');
      }
      if (!keep) rmSync(dir, { recursive: true, force: true });
      return child.exitCode;
    },
  };
}

export async function json(url, init) {
  const r = await fetch(url, init);
  const text = await r.text();
  let body;
  try { body = JSON.parse(text); } catch { body = text; }
  return { status: r.status, headers: r.headers, body };
}

// Poll a job until it has ended; returns its last state object.
// The first run of a shipped scenario experiment in the server's database
// (the seed database's), for tests that need any simulated run; with
// `want`, the first whose summary (GET /api/runs/{run}) it accepts; null
// when none does.
export async function scenarioRun(base, want = null) {
  const { body } = await json(`${base}/api/experiments`);
  for (const e of body.experiments.filter((x) => x.source === 'scenario')) {
    for (const r of e.runs) {
      if (!want || want((await json(`${base}/api/runs/${r.run}`)).body.summary)) return r.run;
    }
  }
  return null;
}

export async function waitJob(base, id, { timeout = 120000 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const r = await json(`${base}/api/jobs/${id}`);
    if (r.status !== 200) throw new Error(`GET /api/jobs/${id}: ${r.status} ${JSON.stringify(r.body)}`);
    if (!['queued', 'running'].includes(r.body.state)) return r.body;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${r.body.state}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

// Bytes on a raw socket, for requests no HTTP client would send; resolves
// with what came back before the server closed or `ms` passed.
export function raw(port, data, ms = 3000) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let out = Buffer.alloc(0);
    const done = () => { s.destroy(); resolve(out.toString('latin1')); };
    const t = setTimeout(done, ms);
    s.on('data', (d) => { out = Buffer.concat([out, d]); });
    s.on('close', () => { clearTimeout(t); done(); });
    s.on('error', () => { clearTimeout(t); done(); });
    s.write(data);
  });
}

// RSS of a process in KiB (Linux).
import { readFileSync } from 'node:fs';
export function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

// A scenario of one kernel of `blocks` blocks, with `variants` variants.
export function scenario(blocks, { variants = 0, name = 'h16 test' } = {}) {
  const s = {
    schema: 'schedlab-scenario/1',
    name,
    device: 'tx2',
    streams: [{ name: 'S1' }],
    ops: [{ kernel: 'K1', stream: 'S1', at: 0, blocks, threads: 256, block_time: '10us' }],
  };
  if (variants) {
    s.variants = [];
    for (let i = 0; i < variants; i++) s.variants.push({ name: `v${i}`, policy: { placement: i % 2 ? 'most-room' : 'round-robin' } });
  }
  return s;
}
