// corrupt_writes.test.mjs -- once PRAGMA quick_check finds the database
// corrupt, serve refuses writes (naming the file and why) and goes on
// answering reads: /api/health said "unhealthy" but imports and deletes
// went on writing into the damaged b-trees, where a write can spread the
// damage to pages still whole.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { bin, seedDb, tempDir } from './server.mjs';
import { json, serve } from './serve_opts.mjs';

function sql(db, q) {
  const r = spawnSync('sqlite3', [db, q], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

// A copy of the seed database in a folder of its own, one interior page of
// the occupancy tiles -- away from the experiments and runs the listing
// reads -- with its cell pointers scribbled over: {dir, db}.
function corruptCopy(name) {
  const dir = tempDir(name);
  const db = join(dir, 'test.db');
  copyFileSync(seedDb, db);
  const page = Number(sql(db, "SELECT pageno FROM dbstat WHERE name = 'kernel_tiles' AND pagetype = 'internal' ORDER BY pageno LIMIT 1 OFFSET 5"));
  const size = Number(sql(db, 'PRAGMA page_size'));
  assert.ok(page > 1 && size > 0);
  const fd = openSync(db, 'r+');
  writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, (page - 1) * size + 12);
  closeSync(fd);
  return { dir, db };
}

test('a database quick_check finds corrupt: writes refused with the reason, reads go on', async (t) => {
  if (!seedDb) { t.skip('needs the seed database (SCHEDLAB_SEED_DB; make api-test makes it)'); return; }
  const { dir, db } = corruptCopy('corrupt');
  const experiment = sql(db, "SELECT slug FROM experiments WHERE source = 'scenario' LIMIT 1");
  const s = await serve([], { dir, db });
  try {
    let h;
    for (const deadline = Date.now() + 60000; ;) {
      h = await json(`${s.base}/api/health`);
      if (h.body.checking === false || h.status === 503) break;
      assert.ok(Date.now() < deadline, 'quick_check never ended');
      await new Promise((ok) => setTimeout(ok, 100));
    }
    assert.equal(h.status, 503, JSON.stringify(h.body));
    assert.match(h.body.error, /^database corrupt: /);
    const before = (await json(`${s.base}/api/experiments`)).body.experiments.length;
    const imp = await json(`${s.base}/api/imports?format=globaltimer-csv`, {
      method: 'POST', headers: { 'Content-Type': 'text/csv' },
      body: 'kernel,block,sm,start_ns,end_ns\nK,0,0,0,1000\n',
    });
    assert.notEqual(imp.status, 201, 'an import into a corrupt database');
    assert.match(imp.body.error, /test\.db: the database is corrupt \(PRAGMA quick_check: .*\); writes are refused/);
    const del = await json(`${s.base}/api/experiments/${experiment}`, { method: 'DELETE' });
    assert.notEqual(del.status, 200, 'a delete in a corrupt database');
    assert.match(del.body.error, /the database is corrupt/);
    // reads go on: what is whole can still be looked at and exported
    const after = await json(`${s.base}/api/experiments`);
    assert.equal(after.status, 200);
    assert.equal(after.body.experiments.length, before);
  } finally { await s.stop(); }
});

// serve --no-check skips the check of the start (for a copy of a file that
// passed it: the tests' servers on copies of the seed, server.mjs): the same
// damaged file is served as healthy, "checking" false from the first answer
// on, and the check's 503 never comes.
test('serve --no-check: no quick_check at start, the damaged file answered as healthy', async (t) => {
  if (!seedDb) { t.skip('needs the seed database (SCHEDLAB_SEED_DB; make api-test makes it)'); return; }
  const { dir, db } = corruptCopy('corrupt-no-check');
  const s = await serve(['--no-check'], { dir, db });
  try {
    const first = await json(`${s.base}/api/health`);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.checking, false);
    // the check of the test above ends on this file within a second or two
    await new Promise((ok) => setTimeout(ok, 3000));
    const later = await json(`${s.base}/api/health`);
    assert.equal(later.status, 200, JSON.stringify(later.body));
    assert.equal(later.body.status, 'ok');
  } finally { await s.stop(); }
});

test('serve --no-check takes no value; the other commands do not know it', () => {
  const a = spawnSync(bin, ['serve', '--no-check=yes'], { encoding: 'utf8' });
  assert.equal(a.status, 2);
  assert.match(a.stderr, /option --no-check takes no value, got "yes"/);
  const b = spawnSync(bin, ['simulate', '--no-check', 'x.json'], { encoding: 'utf8' });
  assert.equal(b.status, 2);
  assert.match(b.stderr, /unknown option --no-check/);
});
