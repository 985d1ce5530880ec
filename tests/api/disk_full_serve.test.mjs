// disk_full_serve.test.mjs -- `serve` on a database whose disk fills during
// an import job (a 4 MiB tmpfs in a private mount namespace, so root only;
// elsewhere skipped with one line): the job fails naming the full disk,
// nothing of it is left in the database, reads and /api/health go on, and
// once there is room again (the tmpfs grown) the same import is stored.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { bin, freePort, tempDir } from './server.mjs';
import { json, waitJob } from './serve_opts.mjs';

const probe = spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt'], { encoding: 'utf8' });
const skip = (process.getuid?.() !== 0 || probe.status !== 0) &&
  'needs root and a private mount namespace (unshare -m) to mount a small tmpfs';

test('an import job onto a full disk fails naming it, leaves nothing, and works once there is room', { skip }, async () => {
  const dir = tempDir('diskfull-serve');
  const csv = (n) => {
    const rows = ['kernel,block,sm,start_ns,end_ns'];
    for (let i = 0; i < n; i++) rows.push(`K${i % 7},${i},${i % 80},${i * 1000},${i * 1000 + 900}`);
    return rows.join('\n') + '\n';
  };
  writeFileSync(join(dir, 'small.csv'), csv(100));
  const made = spawnSync(bin, ['import', join(dir, 'small.csv'), '--db', join(dir, 'seed.db')], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const mnt = join(dir, 'mnt');
  mkdirSync(mnt);
  mkdirSync(join(dir, 'none'));
  const port = await freePort();
  // serve in the namespace; "grow" gives the tmpfs room, "stop" ends it
  const script = `set -e; mount -t tmpfs -o size=4m tmpfs "${mnt}"; cp "${dir}/seed.db" "${mnt}/x.db"
"${bin}" serve --db "${mnt}/x.db" --port ${port} --scenarios "${dir}/none" & pid=$!
while [ ! -e "${dir}/grow" ]; do sleep 0.05; done; mount -o remount,size=64m "${mnt}"; touch "${dir}/grown"
while [ ! -e "${dir}/stop" ]; do sleep 0.05; done; kill -TERM $pid; wait $pid; echo "serve=$?"
sqlite3 "${mnt}/x.db" 'PRAGMA integrity_check; SELECT count(*) FROM runs;'`;
  const ns = spawn('unshare', ['-m', 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  ns.stdout.on('data', (d) => { out += d; });
  ns.stderr.on('data', (d) => { err += d; });
  const ended = new Promise((ok) => ns.on('exit', ok));
  const base = `http://127.0.0.1:${port}`;
  try {
    for (const deadline = Date.now() + 30000; ;) {
      try { if ((await fetch(`${base}/api/health`)).ok) break; } catch { /* not yet */ }
      assert.ok(Date.now() < deadline, `serve did not answer: ${err}`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
    const big = csv(300000);   // ~11 MB: a job, and more rows than 4 MiB holds
    const post = async () => {
      const r = await json(`${base}/api/imports?format=globaltimer-csv`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: big });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      return waitJob(base, r.body.job);
    };
    const failed = await post();
    assert.equal(failed.state, 'failed', JSON.stringify(failed));
    assert.match(failed.error, /x\.db: .*(database or disk is full|No space left on device)/);
    const list = await json(`${base}/api/experiments`);
    assert.equal(list.status, 200);
    assert.equal(list.body.experiments.length, 1, 'nothing of the failed import is listed');
    assert.equal((await json(`${base}/api/health`)).body.status, 'ok');
    // room again
    writeFileSync(join(dir, 'grow'), '');
    while (!existsSync(join(dir, 'grown'))) await new Promise((ok) => setTimeout(ok, 50));
    const done = await post();
    assert.equal(done.state, 'done', JSON.stringify(done));
    assert.equal((await json(`${base}/api/experiments`)).body.experiments.length, 2);
  } finally {
    writeFileSync(join(dir, 'grow'), '');
    writeFileSync(join(dir, 'stop'), '');
    await ended;
  }
  assert.match(out, /^serve=0$/m, `${out} ${err}`);
  assert.match(out, /^ok\n2$/m, `the database is whole and holds the first run and the second import: ${out}`);
});
