// record_pages.test.mjs -- GET /api/runs/{run}/kernels and /copies a page
// at a time (?offset=&limit=&sort=&order=&name=: the Kernels tab of a
// kernel-level import of a million kernels): exact pages (which ids, in
// which order, how many match) for every sort column, both directions,
// name filters and pages past the end; the unpaged answers unchanged; bad
// arguments a 400 naming the argument.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { expectError, getJson, nvprofCsv, startServer } from './server.mjs';

let srv, run, plain, plainCopies;

// 8 kernels (start us, duration us, grid x, stream, name) and 4 copies, in
// start order, so kernel i is id i and copy j is id j:
//   id  start dur blocks stream name
//   0   100   5   4      7      k10
//   1   101   2   1      13     k2
//   2   103   9   2      7      axpy
//   3   104   2   3      13     k2
//   4   110   1   2      7      k10
//   5   111   7   1      13     axpy
//   6   120   2   4      7      k2
//   7   121   5   2      13     k10
const KERNELS = [
  [100, 5, 4, '7', 'k10'], [101, 2, 1, '13', 'k2'], [103, 9, 2, '7', 'axpy'], [104, 2, 3, '13', 'k2'],
  [110, 1, 2, '7', 'k10'], [111, 7, 1, '13', 'axpy'], [120, 2, 4, '7', 'k2'], [121, 5, 2, '13', 'k10'],
];
//   id  start dur KB   stream name
//   0   99    3   256  7      HtoD
//   1   102   1   64   13     DtoH
//   2   105   4   1024 7      HtoD
//   3   130   2   64   13     DtoH
const COPIES = [[99, 3, 256, '7', 'HtoD'], [102, 1, 64, '13', 'DtoH'], [105, 4, 1024, '7', 'HtoD'], [130, 2, 64, '13', 'DtoH']];

function csv() {
  const rows = [];
  const all = [...KERNELS.map((k) => ['k', ...k]), ...COPIES.map((c) => ['c', ...c])].sort((a, b) => a[1] - b[1]);
  for (const r of all) {
    if (r[0] === 'k') rows.push(`${r[1]}.000000,${r[2]}.000000,${r[3]},1,1,64,1,1,32,0,0,,,"GeForce GTX 1080 Ti (0)","1","${r[4]}","${r[5]}"`);
    else rows.push(`${r[1]}.000000,${r[2]}.000000,,,,,,,,,,${r[3]}.000000,1.0,"GeForce GTX 1080 Ti (0)","1","${r[4]}","[CUDA memcpy ${r[5]}]"`);
  }
  return nvprofCsv(rows);
}

before(async () => {
  srv = await startServer();
  const r = await getJson(`${srv.base}/api/imports?format=nvprof-csv&name=pages.csv`, {
    method: 'POST', body: csv(), headers: { 'Content-Type': 'text/csv' },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  run = r.body.run;
  plain = (await getJson(`${srv.base}/api/runs/${run}/kernels`)).body.kernels;
  plainCopies = (await getJson(`${srv.base}/api/runs/${run}/copies`)).body.copies;
  // the import kept the table's order: kernel i is row i above
  assert.deepEqual(plain.map((k) => [k.id, k.name, k.stream, k.blocks, k.end - k.first_block]),
    KERNELS.map((k, i) => [i, k[4], k[3], k[2], k[1] * 1000]));
  assert.deepEqual(plainCopies.map((c) => [c.id, c.direction, c.stream]),
    [[0, 'h2d', '7'], [1, 'd2h', '13'], [2, 'h2d', '7'], [3, 'd2h', '13']]);
});

after(async () => { await srv?.stop(); });

const page = async (kind, q) => (await getJson(`${srv.base}/api/runs/${run}/${kind}?${q}`));
const ids = async (kind, q) => {
  const r = await page(kind, q);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return [r.body.total, r.body[kind].map((x) => x.id)];
};

test('a page without arguments past offset: the first 100 by id, with the answer\'s shape', async () => {
  const r = await page('kernels', 'offset=0');
  assert.equal(r.status, 200);
  // the same kernel objects as the whole list, and the arguments echoed
  assert.deepEqual(r.body, { offset: 0, limit: 100, sort: 'id', order: 'asc', total: 8, kernels: plain });
  const c = await page('copies', 'limit=2');
  assert.deepEqual(c.body, { offset: 0, limit: 2, sort: 'id', order: 'asc', total: 4, copies: plainCopies.slice(0, 2) });
});

test('kernels sorted by each column, both ways: ties by id, exact order', async () => {
  const want = {
    // durations 5 2 9 2 1 7 2 5 (nvprof has no issue time: response = end - first block)
    'sort=response&order=desc': [2, 5, 0, 7, 1, 3, 6, 4],
    'sort=response': [4, 1, 3, 6, 0, 7, 5, 2],
    // names in natural order: axpy < k2 < k10
    'sort=name': [2, 5, 1, 3, 6, 0, 4, 7],
    'sort=name&order=desc': [0, 4, 7, 1, 3, 6, 2, 5],
    // streams 7 < 13 by value, not "13" < "7"
    'sort=stream': [0, 2, 4, 6, 1, 3, 5, 7],
    'sort=stream&order=desc': [1, 3, 5, 7, 0, 2, 4, 6],
    'sort=blocks&order=desc': [0, 6, 3, 2, 4, 7, 1, 5],
    'sort=first_block&order=desc': [7, 6, 5, 4, 3, 2, 1, 0],
    'sort=end': [1, 0, 3, 4, 2, 5, 6, 7],
    'sort=id&order=desc': [7, 6, 5, 4, 3, 2, 1, 0],
    // no issue time at all: every row "unknown", so by id either way
    'sort=issue&order=desc': [0, 1, 2, 3, 4, 5, 6, 7],
  };
  for (const [q, order] of Object.entries(want)) assert.deepEqual(await ids('kernels', q), [8, order], q);
});

test('pages: offset and limit cut the sorted list; past the end is empty', async () => {
  assert.deepEqual(await ids('kernels', 'sort=response&order=desc&offset=2&limit=3'), [8, [0, 7, 1]]);
  assert.deepEqual(await ids('kernels', 'sort=response&order=desc&offset=6&limit=3'), [8, [6, 4]]);
  assert.deepEqual(await ids('kernels', 'offset=8'), [8, []]);
  assert.deepEqual(await ids('kernels', 'offset=1000000&sort=name'), [8, []]);
});

test('name= keeps one name\'s kernels, sorted and paged within them', async () => {
  assert.deepEqual(await ids('kernels', 'name=k2&sort=first_block&order=desc'), [3, [6, 3, 1]]);
  assert.deepEqual(await ids('kernels', 'name=k10&offset=1&limit=1'), [3, [4]]);
  assert.deepEqual(await ids('kernels', 'name=axpy&sort=response'), [2, [5, 2]]);
  const r = await page('kernels', 'name=k2&limit=2&sort=end');
  assert.deepEqual(r.body, { offset: 0, limit: 2, sort: 'end', order: 'asc', name: 'k2', total: 3, kernels: [plain[1], plain[3]] });
  // exact names only: no prefix, no other case
  assert.deepEqual(await ids('kernels', 'name=k'), [0, []]);
  assert.deepEqual(await ids('kernels', 'name=K2'), [0, []]);
});

test('copies sorted by their table\'s columns and filtered by name', async () => {
  assert.deepEqual(await ids('copies', 'sort=bytes&order=desc'), [4, [2, 0, 1, 3]]);
  assert.deepEqual(await ids('copies', 'sort=direction'), [4, [1, 3, 0, 2]]);
  assert.deepEqual(await ids('copies', 'sort=end&order=desc&limit=2'), [4, [3, 2]]);
  const h2d = plainCopies[0].name;
  assert.deepEqual(await ids('copies', `name=${encodeURIComponent(h2d)}&sort=start&order=desc`), [2, [2, 0]]);
});

test('the unpaged lists and windows are unchanged', async () => {
  assert.deepEqual(Object.keys((await page('kernels', '')).body), ['kernels']);
  const w = (await page('kernels', 'max=100')).body;
  assert.equal(w.mode, 'kernels');
  assert.deepEqual(w.kernels.map((k) => k.id), [0, 1, 2, 3, 4, 5, 6, 7]);
});

test('bad paging arguments: 400 naming the argument; unknown run: 404', async () => {
  const k = `/api/runs/${run}/kernels`;
  await expectError(srv.base, `${k}?limit=0`, 400, 'limit: 0 is out of range (1..1000)');
  await expectError(srv.base, `${k}?limit=1001`, 400, 'limit: 1001 is out of range (1..1000)');
  await expectError(srv.base, `${k}?offset=-1`, 400, 'offset: -1 is out of range (0..4611686018427387904)');
  await expectError(srv.base, `${k}?offset=x`, 400, 'offset: expected a whole number, got "x"');
  // an empty value is refused as on every route (docs/api.md; query_empty.test.mjs)
  await expectError(srv.base, `${k}?limit=`, 400, 'limit: empty value; leave the argument out for the default');
  await expectError(srv.base, `${k}?sort=duration`, 400,
    'sort: "duration" is not a column of the kernels table (id, name, stream, priority, blocks, issue, first_block, fully_dispatched, end, response)');
  await expectError(srv.base, `/api/runs/${run}/copies?sort=blocks`, 400,
    'sort: "blocks" is not a column of the copies table (id, name, stream, direction, bytes, issue, start, end)');
  await expectError(srv.base, `${k}?order=up`, 400, 'order: "up" is neither asc nor desc');
  await expectError(srv.base, `${k}?name=`, 400, 'name: empty value; leave the argument out for the default');
  await expectError(srv.base, `${k}?offset=0&from=5`, 400,
    'from: a window (from, to, max) and a page (offset, limit, sort, order, name) cannot be asked for at once');
  await expectError(srv.base, '/api/runs/nosuchrun0/kernels?offset=0', 404, 'no run named "nosuchrun0"');
});
