// disk_full_delete.test.mjs -- `serve` on a disk that other files have
// filled (a 4 MiB tmpfs in a private mount namespace, tmpfs_serve.mjs; root
// only, elsewhere skipped with one line). A write the disk has no room for
// answers 507 Insufficient Storage (RFC 4918 §11.5; docs/api.md), not 500,
// which says the server is at fault. A deletion is a write too: SQLite
// records it in x.db-wal before the database, and with a full disk and no
// room in that file nothing can be deleted safely, so DELETE answers 507
// naming the disk and what to do (it answered 500 "x.db: database or disk
// is full", which left the user no way forward), changes nothing, and
// deletes once there is room.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { bin, tempDir } from './server.mjs';
import { json } from './serve_opts.mjs';
import { serveOnTmpfs, skip } from './tmpfs_serve.mjs';

const csv = (n) => {
  const rows = ['kernel,block,sm,start_ns,end_ns'];
  for (let i = 0; i < n; i++) rows.push(`K${i % 7},${i},${i % 80},${i * 1000},${i * 1000 + 900 + ((i * 7919) % 3000)}`);
  return rows.join('\n') + '\n';
};

test('on a disk full of other files: writes are 507, a deletion is 507 naming the disk and changes nothing, and deletes once there is room', { skip }, async () => {
  const dir = tempDir('diskfull-delete');
  writeFileSync(join(dir, 'mid.csv'), csv(20000));
  for (let i = 0; i < 2; i++) {
    const made = spawnSync(bin, ['import', join(dir, 'mid.csv'), '--db', join(dir, 'seed.db')], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
  }
  mkdirSync(join(dir, 'mnt'));
  mkdirSync(join(dir, 'none'));
  const mnt = join(dir, 'mnt');
  const s = await serveOnTmpfs({
    dir, seed: join(dir, 'seed.db'), size: '4m',
    steps: {
      // another program fills the disk to its last block
      fill: `dd if=/dev/zero of="${mnt}/filler" bs=4k 2>/dev/null || true`,
      unfill: `rm "${mnt}/filler"`,
    },
    final: 'PRAGMA integrity_check; SELECT count(*) FROM experiments;',
  });
  let end;
  try {
    const list = await json(`${s.base}/api/experiments`);
    assert.equal(list.body.experiments.length, 2);
    const slug = list.body.experiments[0].slug;
    await s.step('fill');

    // a small import (stored in the request): 507 with SQLite's reason
    const imp = await json(`${s.base}/api/imports?format=globaltimer-csv`, {
      method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: csv(50),
    });
    assert.equal(imp.status, 507, JSON.stringify(imp.body));
    assert.match(imp.body.error, /x\.db: .*database or disk is full/);

    const del = await json(`${s.base}/api/experiments/${slug}`, { method: 'DELETE' });
    assert.equal(del.status, 507, JSON.stringify(del.body));
    assert.match(del.body.error, new RegExp(`^x\\.db: experiment "${slug}" not deleted: the disk holding the database \\(its folder mnt\\) is full \\(database or disk is full\\)`));
    assert.match(del.body.error, /free space on that disk .*then delete again \(nothing was changed\)$/);
    // nothing changed; reads and health go on
    assert.equal((await json(`${s.base}/api/experiments`)).body.experiments.length, 2);
    assert.equal((await json(`${s.base}/api/experiments/${slug}`)).status, 200);
    assert.equal((await json(`${s.base}/api/health`)).body.status, 'ok');

    await s.step('unfill');
    const again = await json(`${s.base}/api/experiments/${slug}`, { method: 'DELETE' });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body, { deleted: slug, runs: 1 });
    assert.equal((await json(`${s.base}/api/experiments`)).body.experiments.length, 1);
  } finally { end = await s.end(); }
  assert.match(end.out, /^serve=0$/m, `${end.out} ${end.err}`);
  assert.match(end.out, /^ok\n1$/m, `the database is whole and holds the one experiment left: ${end.out}`);
});
