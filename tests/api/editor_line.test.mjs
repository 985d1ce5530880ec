// editor_line.test.mjs -- the scenario editor (web/js/editor.mjs
// errorLine) marks the line a checker's message names (docs/api.md:
// "The 400 names the place ... the dashboard's editor shows it at that
// line"). A key that does not belong where it is written is named after
// its object's path ('ops[3]: "threads" does not apply to a copy',
// 'ops[2]: unknown key "kernelx"'): the line to mark is that key's, not
// the object's opening brace several lines above it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { errorLine } from '../../web/js/editor.mjs';
import { cli, repo, tempDir, writeIn } from './server.mjs';

// the checker's own message for a scenario, as POST .../versions words it
function message(scn, ...args) {
  const f = writeIn(tempDir('editor-line'), 'bad.json', scn);
  const r = cli(['simulate', f, '-o', '/dev/null', ...args]);
  assert.equal(r.code, 2, r.stderr);
  return `scenario: ${r.stderr.trim().replace(/^schedlab: [^:]*\.json: /, '')}`;
}

const fig3 = JSON.parse(readFileSync(join(repo, 'scenarios/tx2-fig3-basic-rules.json'), 'utf8'));
const lineOf = (text, needle) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

test('a key a copy does not take: the key\'s line', () => {
  const s = structuredClone(fig3);
  const i = s.ops.findIndex((o) => o.copy);
  s.ops[i].threads = 64;
  const text = JSON.stringify(s, null, 2);
  const msg = message(s);
  assert.match(msg, new RegExp(`^scenario: ops\\[${i}\\]: "threads" does not apply to a copy`));
  assert.equal(errorLine(text, msg), lineOf(text, '"threads": 64'));
});

test('an unknown key: the key\'s line; a bad value: its own path\'s line, as before', () => {
  const s = structuredClone(fig3);
  s.ops[2].kernelx = 1;
  const text = JSON.stringify(s, null, 2);
  const msg = message(s);
  assert.match(msg, /^scenario: ops\[2\]: unknown key "kernelx"/);
  assert.equal(errorLine(text, msg), lineOf(text, '"kernelx": 1'));
  const t = structuredClone(fig3);
  t.ops[1].stream = 'zz';
  const text2 = JSON.stringify(t, null, 2);
  const msg2 = message(t);
  assert.match(msg2, /^scenario: ops\[1\]\.stream: no stream named "zz"/);
  assert.equal(errorLine(text2, msg2), lineOf(text2, '"stream": "zz"'));
});

// A message with no path (a top-level key: 'scenario: unknown key
// "devise"'), one whose path the text lacks at the top (a missing
// top-level key: the scenario's own line, the object that lacks it) and a
// run's own check, which the server words 'run "NAME": PATH: …'
// (server/app/store.c): before, errorLine found no line for any of them
// and the editor marked none. A run's check is about its variant's key
// where the variant gives it.
test('a top-level key, a missing one and a run\'s own check: their lines', () => {
  const s = structuredClone(fig3);
  s.devise = 'tx2';
  const text = JSON.stringify(s, null, 2);
  const msg = message(s);
  assert.match(msg, /^scenario: unknown key "devise" \(did you mean "device"\?\)/);
  assert.equal(errorLine(text, msg), lineOf(text, '"devise": "tx2"'));

  const t = structuredClone(fig3);
  delete t.schema;
  const text2 = JSON.stringify(t, null, 2);
  const msg2 = message(t);
  assert.match(msg2, /^scenario: schema: missing/);
  assert.equal(errorLine(text2, msg2), 1);

  const u = structuredClone(fig3);
  u.policy = { placement: 'most-room', tb_adjust: true };
  const text3 = JSON.stringify(u, null, 2);
  const msg3 = message(u);
  assert.match(msg3, /^scenario: run "default": policy\.tb_adjust: /);
  assert.equal(errorLine(text3, msg3), lineOf(text3, '"tb_adjust": true'));

  const v = structuredClone(fig3);
  v.variants = [{ name: 'rr', policy: { placement: 'round-robin', tb_adjust: true } }];
  const text4 = JSON.stringify(v, null, 2);
  const msg4 = message(v, '--variant', 'rr');   // the CLI runs the base run alone
  assert.match(msg4, /^scenario: run "rr": policy\.tb_adjust: /);
  assert.equal(errorLine(text4, msg4), lineOf(text4, '"tb_adjust": true'));
  // the same check named at the top when the variant does not give the key
  assert.equal(errorLine(text3, msg4.replace('run "rr"', 'run "zz"')), lineOf(text3, '"tb_adjust": true'));
});
