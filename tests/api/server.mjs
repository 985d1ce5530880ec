// server.mjs -- helpers for the API and CLI tests: start `schedlab serve` on
// a free port with a fresh database, wait for /api/health, stop it after.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const bin = process.env.SCHEDLAB_BIN || join(repo, 'schedlab');
export const shared = process.env.SCHEDLAB_SHARED || resolve(repo, '../shared');

export function tempDir(tag) {
  return mkdtempSync(join(tmpdir(), `schedlab-${tag}-`));
}

export async function freePort() {
  const srv = net.createServer();
  await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
  const { port } = srv.address();
  await new Promise((ok) => srv.close(ok));
  return port;
}

// Start a server on a fresh database; resolves once /api/health answers.
export async function startServer() {
  const dir = tempDir('api');
  const db = join(dir, 'test.db');
  const port = await freePort();
  const child = spawn(bin, ['serve', '--db', db, '--port', String(port), '--bind', '127.0.0.1'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`schedlab serve exited ${child.exitCode}: ${stderr}`);
    try {
      const r = await fetch(`${base}/api/health`);
      if (r.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`schedlab serve did not answer: ${stderr}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  return {
    base,
    db,
    dir,
    pid: child.pid,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
      return child.exitCode;
    },
  };
}

export async function getJson(url, init) {
  const r = await fetch(url, init);
  const text = await r.text();
  let body;
  try { body = JSON.parse(text); } catch { body = text; }
  return { status: r.status, headers: r.headers, body };
}

// Run the CLI synchronously.
export function cli(args, opts = {}) {
  const r = spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 256 << 20, ...opts });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
