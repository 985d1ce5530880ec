// token_blanks.test.mjs -- a token written with blanks around it (an editor's
// trailing space in the --token-file, `SCHEDLAB_TOKEN="s3cret "`) is the token
// without them: an HTTP header value loses its surrounding blanks on the way,
// so a server keeping them refused every client with 401 and said nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';

import { JSON_BODY, json, serve } from './serve_opts.mjs';
import { bin, tempDir } from './server.mjs';

const post = (s, auth) => json(`${s.base}/api/experiments`, {
  method: 'POST', body: '{}', headers: { ...JSON_BODY, ...(auth ? { Authorization: `Bearer ${auth}` } : {}) },
});

test('--token-file "  from-file \\t": the token is "from-file"', async () => {
  const dir = tempDir('tok-blank');
  const f = `${dir}/token`;
  writeFileSync(f, '  from-file \t\r\nsecond line\n');
  chmodSync(f, 0o600);
  const s = await serve(['--token-file', f]);
  try {
    assert.equal((await post(s)).status, 401);
    assert.equal((await post(s, 'from-file')).status, 400);   // past the token: the scenario is wrong
  } finally { await s.stop(); }
});

test('SCHEDLAB_TOKEN / SCHEDLAB_READ_TOKEN with blanks around them', async () => {
  const s = await serve([], { env: { SCHEDLAB_TOKEN: 'writer ', SCHEDLAB_READ_TOKEN: '\treader' } });
  try {
    assert.equal((await post(s, 'writer')).status, 400);
    assert.equal((await fetch(`${s.base}/api/experiments`)).status, 401);
    assert.equal((await fetch(`${s.base}/api/experiments`, { headers: { Authorization: 'Bearer reader' } })).status, 200);
  } finally { await s.stop(); }
});

test('--token-file whose first line is blank: refused, saying the first line is empty', () => {
  const dir = tempDir('tok-blank1');
  const f = `${dir}/token`;
  writeFileSync(f, ' \n\nlater\n');
  chmodSync(f, 0o600);
  const r = spawnSync(bin, ['serve', '--db', `${dir}/x.db`, '--port', '0', '--token-file', f], { encoding: 'utf8', timeout: 10000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--token-file: .*token: the first line is empty/);
});

test('a wrong token is told so, not asked to send one; the read token sent to write says it only reads', async () => {
  const s = await serve([], { env: { SCHEDLAB_TOKEN: 'writer', SCHEDLAB_READ_TOKEN: 'reader' } });
  try {
    assert.match((await post(s)).body.error, /send "Authorization: Bearer TOKEN"/);
    const wrong = await post(s, 'nope');
    assert.equal(wrong.status, 401);
    assert.match(wrong.body.error, /needs a token for writes: the token sent is not its write token/);
    const rd = await post(s, 'reader');
    assert.equal(rd.status, 401);
    assert.match(rd.body.error, /the token sent is its read token, which only reads/);
    const r = await fetch(`${s.base}/api/experiments`, { headers: { Authorization: 'Bearer nope' } });
    assert.equal(r.status, 401);
    assert.match((await r.json()).error, /needs a token for reads: the token sent is not its read token nor its write token/);
  } finally { await s.stop(); }
});

// A token of blanks only would be cut to nothing, and nothing is no token:
// the server would open to writes where its owner asked for a token.
test('a token of blanks only is refused, naming where it came from', () => {
  const dir = tempDir('tok-blanks-only');
  for (const [args, env, where] of [[['--token', '  '], {}, '--token'], [[], { SCHEDLAB_TOKEN: ' \t' }, 'SCHEDLAB_TOKEN'],
    [[], { SCHEDLAB_READ_TOKEN: ' ' }, 'SCHEDLAB_READ_TOKEN']]) {
    const r = spawnSync(bin, ['serve', '--db', `${dir}/x.db`, '--port', '0', ...args],
      { encoding: 'utf8', timeout: 10000, env: { ...process.env, ...env } });
    assert.equal(r.status, 2, where);
    assert.match(r.stderr, new RegExp(`schedlab: ${where}: only blanks; give the token, or leave it out to serve without one\\n$`));
  }
});
