// disk_full_serve.test.mjs -- `serve` on a database whose disk fills during
// an import job (a 4 MiB tmpfs in a private mount namespace, so root only;
// elsewhere skipped with one line; tmpfs_serve.mjs): the job fails naming
// the full disk with status 507 Insufficient Storage,
// nothing of it is left in the database, reads and /api/health go on, and
// once there is room again (the tmpfs grown) the same import is stored.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { bin, tempDir } from './server.mjs';
import { json, waitJob } from './serve_opts.mjs';
import { serveOnTmpfs, skip } from './tmpfs_serve.mjs';

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
  // serve in the namespace; "grow" gives the tmpfs room
  const s = await serveOnTmpfs({
    dir, seed: join(dir, 'seed.db'), size: '4m',
    steps: { grow: `mount -o remount,size=64m "${mnt}"` },
    final: 'PRAGMA integrity_check; SELECT count(*) FROM runs;',
  });
  const base = s.base;
  let end;
  try {
    const big = csv(300000);   // ~11 MB: a job, and more rows than 4 MiB holds
    const post = async () => {
      const r = await json(`${base}/api/imports?format=globaltimer-csv`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: big });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      return waitJob(base, r.body.job);
    };
    const failed = await post();
    assert.equal(failed.state, 'failed', JSON.stringify(failed));
    // the disk's doing, not the server's: RFC 4918 §11.5 (docs/api.md)
    assert.equal(failed.status, 507, JSON.stringify(failed));
    assert.match(failed.error, /x\.db: .*(database or disk is full|No space left on device)/);
    const list = await json(`${base}/api/experiments`);
    assert.equal(list.status, 200);
    assert.equal(list.body.experiments.length, 1, 'nothing of the failed import is listed');
    assert.equal((await json(`${base}/api/health`)).body.status, 'ok');
    // room again
    await s.step('grow');
    const done = await post();
    assert.equal(done.state, 'done', JSON.stringify(done));
    assert.equal((await json(`${base}/api/experiments`)).body.experiments.length, 2);
  } finally { end = await s.end(); }
  assert.match(end.out, /^serve=0$/m, `${end.out} ${end.err}`);
  assert.match(end.out, /^ok\n2$/m, `the database is whole and holds the first run and the second import: ${end.out}`);
});
