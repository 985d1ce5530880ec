// seed.mjs OUT.db -- the seed database of the API and browser tests
// (server.mjs, SCHEDLAB_SEED_DB): `schedlab serve` ($SCHEDLAB_BIN) started
// once on an empty file, which it migrates and fills with every shipped
// scenario, then stopped (a clean stop checkpoints the WAL into the file)
// and the file, checked whole (PRAGMA quick_check), moved to OUT.db. `make`
// writes it again when the binary or a scenario changes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync } from 'node:fs';

import { startServer } from './server.mjs';

const out = process.argv[2];
if (!out) {
  console.error('usage: node tests/api/seed.mjs OUT.db');
  process.exit(2);
}
// storing every scenario takes a while on a busy machine
const srv = await startServer({ fresh: true, waitMs: 600000 });
assert.equal(await srv.stop({ keepDb: `${out}.tmp` }), 0, 'serve exits 0 on SIGTERM');
// checked once, whole: the servers started on copies of it skip the check
// of their start (server.mjs, serve --no-check)
const check = execFileSync('sqlite3', [`${out}.tmp`, 'PRAGMA quick_check'], { encoding: 'utf8' }).trim();
assert.equal(check, 'ok', `${out}.tmp: PRAGMA quick_check`);
renameSync(`${out}.tmp`, out);
