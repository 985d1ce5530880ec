// sighup.test.mjs -- SIGHUP (the terminal or ssh session that started
// `serve` closed) stops the server as SIGTERM does: it said nothing and died
// on the spot, its -wal and -shm left beside the database and a running job
// cut off. Under nohup (SIGHUP ignored when it starts) it goes on serving.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { bin, freePort, tempDir } from './server.mjs';

async function start(dir, prefix = []) {
  const port = await freePort();
  const db = join(dir, 'x.db');
  const none = join(dir, 'none');   // an empty scenarios folder: none to store
  mkdirSync(none, { recursive: true });
  const argv = [...prefix, bin, 'serve', '--db', db, '--port', String(port), '--scenarios', none];
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30000; ;) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${stderr}`);
    try { if ((await fetch(`${base}/api/health`)).ok) break; } catch { /* not yet */ }
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`serve did not answer: ${stderr}`); }
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return { child, base, db, stderr: () => stderr };
}

async function importOne(base) {
  const r = await fetch(`${base}/api/imports?format=globaltimer-csv`, {
    method: 'POST', headers: { 'Content-Type': 'text/csv' },
    body: 'kernel,block,sm,start_ns,end_ns\nK,0,0,0,1000\nK,1,1,0,1000\n',
  });
  assert.equal(r.status, 201, await r.text());
}

test('SIGHUP stops serve cleanly: exit 0, the -wal checkpointed and removed', async () => {
  const dir = tempDir('hup');
  const s = await start(dir);
  await importOne(s.base);
  assert.ok(existsSync(`${s.db}-wal`), 'a write leaves a -wal while serving');
  s.child.kill('SIGHUP');
  const [code, signal] = await once(s.child, 'exit');
  assert.equal(signal, null, `killed by ${signal}: ${s.stderr()}`);
  assert.equal(code, 0, s.stderr());
  assert.match(s.stderr(), /schedlab: SIGHUP, stopping/);
  assert.equal(existsSync(`${s.db}-wal`), false, 'the -wal is checkpointed and removed');
});

test('under nohup SIGHUP is ignored: serve goes on, SIGTERM stops it', async (t) => {
  if (!existsSync('/usr/bin/nohup')) { t.skip('needs /usr/bin/nohup'); return; }
  const dir = tempDir('nohup');
  writeFileSync(join(dir, 'nohup.out'), '');
  const s = await start(dir, ['/usr/bin/nohup']);
  s.child.kill('SIGHUP');
  await new Promise((ok) => setTimeout(ok, 500));
  assert.equal(s.child.exitCode, null, 'still running');
  assert.equal((await fetch(`${s.base}/api/health`)).status, 200);
  s.child.kill('SIGTERM');
  const [code] = await once(s.child, 'exit');
  assert.equal(code, 0, s.stderr());
});
