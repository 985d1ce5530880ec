// window_runs.test.mjs -- a window of /kernels or /copies (docs/api.md,
// issue 9) holds the run's own rows only. Each run's kernels and copies are
// a range of rowids (db/row_ranges.sql) and a window is read a chunk of
// 1,024 ids at a time; a run of fewer rows than a chunk must not read on
// into the rows of the run stored after it. Found by auditing the API: a
// 9-kernel nvprof import answered a window of 97 kernels, with ids past its
// last and the names of the next import's kernels.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { getJson, startServer } from './server.mjs';

let srv;
const runs = [];

// n kernels and n copies, one after another from t0 (ns), named after tag
function traceJson(tag, n, t0) {
  const kernels = [], copies = [];
  for (let i = 0; i < n; i++) {
    const s = t0 + 1000 * i;
    kernels.push({
      id: i, name: `${tag}_k${i}`, stream: '7', process: 'P0', priority: 'none',
      issue: s, first_block: s, fully_dispatched: s + 100, end: s + 500,
      blocks: 1, threads: 32, smem: 0, regs: 0,
    });
    copies.push({
      id: i, name: `${tag}_c${i}`, stream: '7', process: 'P0', direction: 'h2d',
      bytes: 64, issue: s, start: s + 500, end: s + 900, engine: 0,
    });
  }
  return JSON.stringify({
    schema: 'schedlab-trace/1', name: tag, source: 'import', origin: 0,
    kernels, blocks: [], copies, queue_events: [], warp_issues: [], jobs: [],
  });
}

before(async () => {
  srv = await startServer();
  // the first run is short; the second, stored right after it, overlaps
  // its time span and has more rows than a whole chunk
  for (const [tag, n] of [['first', 9], ['second', 1500]]) {
    const r = await getJson(`${srv.base}/api/imports?format=schedlab-trace&name=${tag}.json`, {
      method: 'POST', body: traceJson(tag, n, 0), headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    runs.push(r.body.run);
  }
});

after(async () => { await srv?.stop(); });

for (const kind of ['kernels', 'copies']) {
  test(`a window of /${kind} holds the run's own ${kind} only`, async () => {
    const [first, second] = runs;
    const all = (await getJson(`${srv.base}/api/runs/${first}/${kind}`)).body[kind];
    assert.equal(all.length, 9);
    // a window over the whole run, and one past its last row's end: what
    // the docs say is in it, start < to && end > from, of this run's rows
    const start = (x) => (kind === 'kernels' ? x.first_block ?? x.issue : x.start);
    for (const [from, to] of [[0, 100000], [4000, 2000000]]) {
      const want = all.filter((x) => start(x) < to && x.end > from).map((x) => [x.id, x.name]);
      const r = await getJson(`${srv.base}/api/runs/${first}/${kind}?from=${from}&to=${to}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.mode, kind);
      assert.deepEqual(r.body[kind].map((x) => [x.id, x.name]), want);
      assert.equal(r.body.total, want.length);
    }
    // the longer run's window still reaches its own rows past the first chunk
    const w = (await getJson(`${srv.base}/api/runs/${second}/${kind}?from=1200000&to=1300000`)).body;
    assert.deepEqual(w[kind].map((x) => x.id), Array.from({ length: 100 }, (_, i) => 1200 + i));
    assert.ok(w[kind].every((x) => x.name.startsWith('second_')));
  });
}
