// db_readonly.test.mjs -- a database `serve` or `import` cannot write is
// refused when it is opened, with the file and the reason: SQLite opened a
// file it may not write read-only without a word (serve started, answered
// "ok" on /api/health and every write 500 "attempt to write a readonly
// database"), and said "unable to open database file (No such file or
// directory)" for a database on a read-only mount, where the file is there.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

import { bin, freePort, tempDir } from './server.mjs';

// a small valid database: one globaltimer CSV imported
function makeDb(dir) {
  const csv = join(dir, 'gt.csv');
  writeFileSync(csv, 'kernel,block,sm,start_ns,end_ns\nK,0,0,0,1000\nK,1,1,0,1000\n');
  const db = join(dir, 'w.db');
  const r = spawnSync(bin, ['import', csv, '--db', db], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { db, csv };
}

// `serve` as `prefix` (another user, or a private mount namespace) on db;
// it must exit at once, so a server that starts is killed after 15 s
function serveFails(prefix, db) {
  return freePort().then((port) => {
    const [exe, ...pre] = prefix.length ? prefix : [bin];
    // an empty scenarios folder beside the database: none to store
    const none = join(dirname(db), 'none');
    mkdirSync(none, { recursive: true, mode: 0o755 });
    const args = [...pre, ...(prefix.length ? [bin] : []), 'serve', '--db', db, '--port', String(port),
                  '--scenarios', none];
    return spawnSync(exe, args, { encoding: 'utf8', timeout: 15000, killSignal: 'SIGTERM' });
  });
}

// another user when root (root may write any file), else ourselves
function asOther(t) {
  if (process.getuid() !== 0) return [];
  if (!existsSync('/usr/bin/setpriv')) { t.skip('as root, needs setpriv to run as a user who cannot write the file'); return null; }
  return ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
}

test('serve on a database file it may not write: refused at start, naming the file and why', async (t) => {
  const pre = asOther(t);
  if (!pre) return;
  const dir = tempDir('dbro');
  chmodSync(dir, 0o777);   // the folder is writable: only the file is not
  const { db } = makeDb(dir);
  chmodSync(db, 0o444);
  const r = await serveFails(pre, db);
  assert.equal(r.status, 1, `serve exits 1 (status ${r.status}, signal ${r.signal}): ${r.stderr}`);
  assert.match(r.stderr, /w\.db: the database cannot be written here: the file cannot be written \(Permission denied\)/);
  assert.doesNotMatch(r.stderr, /serving http/);
});

test('import into a folder it may not write: refused, naming the folder', (t) => {
  const pre = asOther(t);
  if (!pre) return;
  const dir = tempDir('dbro-dir');
  const { db, csv } = makeDb(dir);
  chmodSync(dir, 0o555);
  chmodSync(db, 0o666);
  chmodSync(csv, 0o644);
  // the database's -wal cannot be made beside it
  const [exe, ...rest] = pre.length ? pre : [bin];
  const r = spawnSync(exe, [...rest, ...(pre.length ? [bin] : []), 'import', csv, '--db', db], { encoding: 'utf8' });
  chmodSync(dir, 0o755);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /w\.db: the database cannot be written here: its folder .* cannot be written \(Permission denied\)/);
});

test('import into a folder that does not exist says so', () => {
  const dir = tempDir('dbro-none');
  const csv = join(dir, 'gt.csv');
  writeFileSync(csv, 'kernel,block,sm,start_ns,end_ns\nK,0,0,0,1000\n');
  const r = spawnSync(bin, ['import', csv, '--db', join(dir, 'no/such/x.db')], { encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /no\/such\/x\.db: the database cannot be written here: its folder .*no\/such does not exist/);
});

const probe = spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt'], { encoding: 'utf8' });
const noMount = (process.getuid?.() !== 0 || probe.status !== 0) &&
  'needs root and a private mount namespace (unshare -m) to mount a read-only tmpfs';

test('serve on a database on a read-only mount: refused at start, "Read-only file system"', { skip: noMount }, async () => {
  const dir = tempDir('dbro-mnt');
  const { db } = makeDb(dir);
  const mnt = join(dir, 'mnt');
  mkdirSync(mnt);
  mkdirSync(join(dir, 'none'));   // an empty scenarios folder: none to store
  const port = await freePort();
  const script = `set -e; mount -t tmpfs -o size=16m tmpfs "${mnt}"; cp "${db}" "${mnt}/ro.db"
mount -o remount,ro "${mnt}"
timeout -s TERM 15 "${bin}" serve --db "${mnt}/ro.db" --port ${port} --scenarios "${dir}/none" && echo "rc=0" || echo "rc=$?"`;
  const r = spawnSync('unshare', ['-m', 'sh', '-c', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^rc=1$/m, `serve exits 1: ${r.stdout} ${r.stderr}`);
  assert.match(r.stderr, /ro\.db: the database cannot be written here: the file cannot be written \(Read-only file system\)/);
  assert.doesNotMatch(r.stderr, /No such file or directory/);
});
