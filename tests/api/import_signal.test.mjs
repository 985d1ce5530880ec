// import_signal.test.mjs -- a stop signal during `schedlab import` (docs/cli.md
// "import": the import is one transaction; a database it made and a stopped
// import leave nothing behind).
//
// Before: the default action of SIGINT/SIGTERM/SIGHUP killed the process
// mid-transaction. SQLite kept the run out, but a database the import had
// made was left behind, empty, with an 18 MB -wal and its -shm beside it
// (an existing database kept the -wal likewise until its next use). Now the
// import is cancelled and rolled back, the database closed (its -wal and
// -shm go) and removed when the import made it, one line says so, and the
// process still ends by the signal, as a shell expects of Ctrl-C.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';

import { bin, cli, fixture, tempDir } from './server.mjs';

let dir, big;

// An nvprof GPU trace of 2,000,000 kernel rows (about 100 MB): seconds to
// import, long enough to be stopped while its transaction is being written.
before(async () => {
  dir = tempDir('import-signal');
  big = join(dir, 'big.csv');
  const out = createWriteStream(big);
  out.write('==1== Profiling result:\n"Start","Duration","Grid X","Grid Y","Grid Z","Block X",' +
    '"Block Y","Block Z","Size","Stream","Name"\nms,ms,,,,,,,B,,\n');
  for (let i = 0; i < 2000000; i += 10000) {
    let chunk = '';
    for (let k = i; k < i + 10000; k++) chunk += `${k + 1}.0,0.5,2,1,1,32,1,1,,"7","k${k % 7}"\n`;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
});

// Start the import, wait until its transaction writes (the -wal grows),
// then send `sig`; resolves to the exit's [code, signal] and stderr.
async function stopImport(db, sig) {
  const child = spawn(bin, ['import', big, '--db', db], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b) => { stderr += b; });
  const exited = once(child, 'exit');
  for (const deadline = Date.now() + 60000; !existsSync(`${db}-wal`);) {
    assert.ok(Date.now() < deadline, 'the import never started writing');
    await new Promise((ok) => setTimeout(ok, 2));
  }
  await new Promise((ok) => setTimeout(ok, 200));
  child.kill(sig);
  const [code, signal] = await exited;
  return { code, signal, stderr };
}

test('SIGINT, SIGTERM or SIGHUP during an import into a new database leaves no file', async () => {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    const sub = join(dir, `new-${sig}`);
    mkdirSync(sub);
    const r = await stopImport(join(sub, 'runs.db'), sig);
    assert.equal(r.signal, sig, `ended by ${sig} (code ${r.code}; ${r.stderr})`);
    assert.equal(r.stderr, `schedlab: ${sig}: the import was stopped; nothing was stored\n`);
    assert.deepEqual(readdirSync(sub), [], `${sig}: no database, -wal or -shm left`);
  }
});

test('SIGTERM during an import into a database with runs keeps them, adds nothing, leaves no -wal', async () => {
  const sub = join(dir, 'old');
  mkdirSync(sub);
  const db = join(sub, 'runs.db');
  const first = cli(['import', fixture('nvprof.csv'), '--db', db]);
  assert.equal(first.code, 0, first.stderr);
  const r = await stopImport(db, 'SIGTERM');
  assert.equal(r.signal, 'SIGTERM', `ended by SIGTERM (code ${r.code}; ${r.stderr})`);
  assert.deepEqual(readdirSync(sub), ['runs.db'], 'the -wal and -shm went with the connection');
  // the database has exactly the first import: one run, its 2 kernels
  // (make_fixtures.sh's nvprof.csv), and a new import beside it works
  const count = spawnSync('sqlite3', [db, 'SELECT count(*) FROM runs; SELECT count(*) FROM experiments'],
    { encoding: 'utf8' });
  assert.equal(count.stdout, '1\n1\n', count.stderr);
  const exp = cli(['export', first.stdout.trim(), '--db', db]);
  assert.equal(exp.code, 0, exp.stderr);
  assert.equal(JSON.parse(exp.stdout).kernels.length, 2);
  const again = cli(['import', fixture('nvprof.csv'), '--db', db, '--name', 'again']);
  assert.equal(again.code, 0, again.stderr);
});
