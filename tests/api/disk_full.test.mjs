// disk_full.test.mjs -- issue 31, point 8: a database on a full disk says
// so (it read "disk I/O error"), and the failed import leaves the database
// whole with no partial run. The disk is a 2 MiB tmpfs mounted in a private
// mount namespace (unshare -m), so the test needs root; elsewhere it is
// skipped with one line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { bin, tempDir } from './server.mjs';

const probe = spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt'],
                        { encoding: 'utf8' });
const skip = (process.getuid?.() !== 0 || probe.status !== 0) &&
  'needs root and a private mount namespace (unshare -m) to mount a small tmpfs';

let dir;
before(() => { dir = tempDir('diskfull'); });
after(() => rmSync(dir, { recursive: true, force: true }));

test('an import onto a full disk names the full disk and leaves the database whole', { skip }, () => {
  // a globaltimer CSV of 200,000 blocks (~7 MB of text, more rows than 2 MiB holds)
  const rows = ['kernel,block,sm,start_ns,end_ns'];
  for (let i = 0; i < 200000; i++) rows.push(`K${i % 7},${i},${i % 80},${i * 1000},${i * 1000 + 900}`);
  const csv = join(dir, 'big.csv');
  writeFileSync(csv, rows.join('\n') + '\n');
  // the database holds one small run first: the one that fails must leave
  // it whole, that run and nothing more (a refused import into a database
  // it made itself removes that database: cli.test.mjs)
  const small = join(dir, 'small.csv');
  writeFileSync(small, `${rows[0]}\nK0,0,0,0,900\n`);
  const mnt = join(dir, 'mnt');
  const script = `set -e; mkdir -p "${mnt}"; mount -t tmpfs -o size=2m tmpfs "${mnt}"
"${bin}" import "${small}" --db "${mnt}/x.db" >/dev/null
"${bin}" import "${csv}" --db "${mnt}/x.db" >"${dir}/out" 2>"${dir}/err" && echo imported || echo "rc=$?"
cat "${dir}/err"
sqlite3 "${mnt}/x.db" 'PRAGMA integrity_check; SELECT count(*) FROM runs;'`;
  const r = spawnSync('unshare', ['-m', 'sh', '-c', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const [verdict, message, integrity, runs] = r.stdout.trim().split('\n');
  assert.equal(verdict, 'rc=1', r.stdout);
  assert.match(message, /x\.db: .*(database or disk is full|No space left on device: the disk is full)/,
               `the message names the full disk: ${message}`);
  assert.doesNotMatch(message, /disk I\/O error$/);
  assert.equal(integrity, 'ok');
  assert.equal(runs, '1', 'the run before it, and no partial run');
});
