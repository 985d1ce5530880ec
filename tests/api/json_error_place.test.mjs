// json_error_place.test.mjs -- a JSON syntax error names its place as
// "NAME:LINE:COLUMN:" with 1-based columns (docs/api.md: "for a syntax
// error, line and column (`scenario:3:3: JSON: …`); the dashboard's editor
// shows it at that line"). jansson counts the column of the last character
// read and resets it to 0 on a newline, so a body cut short after a newline
// -- what an editor saves, '{"a": 1' and "\n" -- read "scenario:2:0:", a
// column no editor has; it is column 1 of line 2, where the missing '}'
// goes (the schedlab-trace importer's own count says the same).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { JSON_BODY, json, serve } from './serve_opts.mjs';

let srv;
before(async () => { srv = await serve(); });
after(async () => { assert.equal(await srv.stop(), 0); });

const post = (path, body) => json(`${srv.base}${path}`, { method: 'POST', body, headers: JSON_BODY });

test('an error at the end of a body that ends in a newline is at column 1 of the last line', async () => {
  const { body: list } = await json(`${srv.base}/api/experiments`);
  const slug = list.experiments.find((e) => e.source === 'scenario').slug;
  for (const [path, name] of [['/api/experiments', 'scenario'], [`/api/experiments/${slug}/versions`, 'scenario'],
    ['/api/sweeps', 'sweep'], ['/api/rta', 'taskset']]) {
    const r = await post(path, '{\n  "schema": 1\n');
    assert.equal(r.status, 400, path);
    assert.equal(r.body.error, `${name}:3:1: JSON: '}' expected near end of file`, path);
    const blank = await post(path, '\n');
    assert.equal(blank.status, 400, path);
    assert.match(blank.body.error, new RegExp(`^${name}:2:1: JSON: `), path);
  }
});

test('other places are as jansson counts them: the last character read, from 1', async () => {
  let r = await post('/api/experiments', '{"a": 1');
  assert.equal(r.body.error, "scenario:1:7: JSON: '}' expected near end of file");
  r = await post('/api/experiments', '{\n  "schema": "schedlab-scenario/1",\n  ,\n}');
  assert.equal(r.body.error, "scenario:3:3: JSON: string or '}' expected near ','");
});

// Every route that reads a JSON body reads it under one memory budget (16
// times its size plus 16 MiB; an empty object costs some 78 times its 3
// bytes), and a body whose tree would pass it is 413 there, named as the
// parse errors above are (docs/api.md, POST /api/experiments' 413): 600 KB
// of [{},{},...] is past it.
test('a body past the JSON reader\'s budget is 413 on every route that reads JSON, named as its parse errors', async () => {
  const { body: list } = await json(`${srv.base}/api/experiments`);
  const slug = list.experiments.find((e) => e.source === 'scenario').slug;
  const huge = `{"schema": "x", "pad": [${'{},'.repeat(200000)}{}]}`;
  for (const [path, name] of [['/api/experiments', 'scenario'], [`/api/experiments/${slug}/versions`, 'scenario'],
    ['/api/sweeps', 'sweep'], ['/api/rta', 'taskset']]) {
    const r = await post(path, huge);
    assert.equal(r.status, 413, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, new RegExp(`^${name}: JSON: the document needs more than \\d+ MiB of memory to read`), path);
  }
});
