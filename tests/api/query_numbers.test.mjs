// query_numbers.test.mjs -- a number in a query or a path is digits, maybe
// after a '-', and nothing else: strtoll, which every route's parser was,
// skips leading blanks and takes a '+', so ?max=%205, ?limit=+5,
// /tiles/30/+1 and ?bins=%20%207 were read as 5, 5, 1 and 7 while "5 "
// (a trailing blank) was refused: a junk value answered as if it were
// another (docs/api.md: "offset: expected a whole number, got \"x\"").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { json, scenarioRun, serve } from './serve_opts.mjs';

let srv, run;
before(async () => {
  srv = await serve();
  run = await scenarioRun(srv.base);
});
after(async () => { assert.equal(await srv.stop(), 0); });

const get = (path) => json(`${srv.base}/api/runs/${run}/${path}`);

test('a blank or a plus before the digits is refused, as one after them', async () => {
  // (an empty value is refused before any route reads it: query_empty.test.mjs)
  for (const junk of ['%205', '+5', '%2B5', '5%20', '%09' + '5']) {
    for (const [path, key] of [[`blocks?max=${junk}`, 'max'], [`kernels?limit=${junk}`, 'limit'],
      [`kernels?offset=${junk}`, 'offset'], [`queues?at=${junk}`, 'at'], [`warps?from=${junk}`, 'from']]) {
      const r = await get(path);
      assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, new RegExp(`^${key}: expected `), path);
    }
    const t = await get(`tasks?bins=${junk}`);
    assert.equal(t.status, 400, `bins=${junk}`);
    assert.equal(t.body.error, 'bins: expected a whole number 1..1000');
  }
  const tile = await get('tiles/30/+1');
  assert.equal(tile.status, 400);
  assert.match(tile.body.error, /^tile: "\+1" is not a tile index/);
  const sw = await json(`${srv.base}/api/sweeps?spec=gcaps-fig8a-tasks.json&threads=+1`, { method: 'POST' });
  assert.equal(sw.status, 400);
  assert.match(sw.body.error, /^threads: expected a whole number/);
});

test('digits, a minus, leading zeros and 64-bit bounds read as before', async () => {
  assert.equal((await get('blocks?max=05')).status, 200);
  assert.equal((await get('kernels?limit=007')).status, 200);
  assert.equal((await get('queues?at=-1')).status, 200);
  assert.equal((await get('tiles/30/-1')).status, 200);
  assert.equal((await get('tasks?bins=20')).status, 200);
  const big = await get('kernels?offset=99999999999999999999');
  assert.equal(big.status, 400);
  assert.match(big.body.error, /^offset: /);
});
