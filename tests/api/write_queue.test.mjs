// write_queue.test.mjs -- results finished behind a long import are stored
// once the import is done, and reads that build something on first use
// answer at once beside it. Within `serve` every write takes the store's
// write lock (server/app/store.h) and waits for it as long as it takes;
// a sweep job's result and a replay's fidelity reports went to SQLite
// straight, waited SQLite's busy handler (DB_BUSY_TIMEOUT_MS, 30 s) for the
// import's write transaction and failed "database is locked", the sweep's
// computed result lost, the replay's runs left without their reports; a
// read that builds and stores a sort order or a pyramid on first use did the
// same and answered 500 "database is locked" (docs/shared-machine.md: now
// it builds for itself alone while the lock is held, and a later read
// stores the same rows).
//
// The import holds the lock for a second or two here, not for the minutes
// of a several-hundred-MB upload: SCHEDLAB_TEST_BUSY_MS (tests only, db/db.h)
// makes SQLite's wait 100 ms, so the lock is held far past the busy limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { JSON_BODY, json, serve, waitJob } from './serve_opts.mjs';

const BUSY_MS = 100;
const env = { SCHEDLAB_TEST_BUSY_MS: String(BUSY_MS) };

// A globaltimer CSV of n blocks: a streaming format, so the import holds
// the write lock from its first row to its commit.
function csv(n, kernels = 50) {
  const rows = ['kernel,block,sm,start_ns,end_ns'];
  let x = 12345;
  const r = () => { x = (x * 1103515245 + 12345) & 0x7fffffff; return x; };
  for (let i = 0; i < n; i++) {
    const s = i * 1000 + (r() % 500);
    rows.push(`K${i % kernels},${Math.floor(i / kernels)},${r() % 80},${s},${s + 300 + (r() % 5000)}`);
  }
  return rows.join('\n') + '\n';
}

// the replay's measured run: 200,000 blocks, so its runs take a while to
// store (the moment the second test waits for); the import behind it: a
// million rows, its lock held for about a second, ten busy limits
const REPLAY_BLOCKS = 200000;
const IMPORT_BODY = csv(1000000);
// the imports that hold the lock for many busy limits. Made once, here: made
// between two requests, under load (seconds), it left the client's
// keep-alive connection idle past the server's 10 s header deadline (30 s now: conn_guard.h), which
// closes it (408), and the client wrote the POST into the closed socket
// (EPIPE, "fetch failed": a CI run with two suites at once, load 20)
const LONG_BODY = csv(3_000_000);
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

async function postImport(base, body, name) {
  const r = await json(`${base}/api/imports?format=globaltimer-csv&name=${name}`, {
    method: 'POST', headers: { 'Content-Type': 'text/csv' }, body,
  });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body.job;
}

const job = async (base, id) => (await json(`${base}/api/jobs/${id}`)).body;

// Poll until the import job holds the write lock (running, its rows being
// read: a streaming import takes the lock before its first row).
async function untilImporting(base, id) {
  for (const deadline = Date.now() + 60000; ;) {
    const j = await job(base, id);
    assert.ok(['queued', 'running'].includes(j.state), `the import ended first: ${JSON.stringify(j)}`);
    if (j.state === 'running' && j.phase) return;
    assert.ok(Date.now() < deadline, 'the import never started');
    await sleep(10);
  }
}

test('a sweep finished behind an import holding the write lock past the busy limit is stored once the import is done', async () => {
  const s = await serve(['--budget', 'workers=2'], { env });
  try {
    const imp = await postImport(s.base, LONG_BODY, 'long');
    await untilImporting(s.base, imp);
    const spec = {
      schema: 'schedlab-sweep/1', name: 'behind the import', seed: 5, tasksets: 20,
      x: { param: 'tasks', values: [4, 8] }, approaches: ['tsg_rr_suspend', 'gcaps_suspend_gprio'],
    };
    const r = await json(`${s.base}/api/sweeps`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify(spec) });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    // the sweep reaches its store while the import still holds the lock,
    // and waits there past the busy limit
    let met = null;
    for (;;) {
      const sj = await job(s.base, r.body.job);
      const ij = await job(s.base, imp);
      const storing = sj.state === 'running' && sj.phase === 'storing' && ij.state === 'running';
      if (storing && met === null) met = Date.now();
      if (!['queued', 'running'].includes(sj.state)) break;
      if (storing && Date.now() - met > 3 * BUSY_MS) met = -1;   /* waited past it */
      await sleep(5);
    }
    const end = await job(s.base, r.body.job);
    assert.equal(end.status, 201, `the sweep's result was lost: ${JSON.stringify(end)}`);
    assert.equal(met, -1, 'the sweep never waited on the import\'s lock past the busy limit (the import was too short to test this)');
    const stored = await json(`${s.base}/api/experiments/${end.result.slug}/sweep`);
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    assert.equal(stored.body.name, 'behind the import');
    assert.deepEqual(stored.body.spec.x.values, [4, 8]);
    assert.equal((await job(s.base, imp)).status, 201);
  } finally { assert.equal(await s.stop(), 0); }
});

test('a replay\'s fidelity reports are stored with its runs, though an import takes the write lock as soon as the runs are stored', async () => {
  const s = await serve(['--budget', 'workers=2'], { env });
  try {
    // the measured run: enough blocks that the replay stores its runs for a while
    const m = await postImport(s.base, csv(REPLAY_BLOCKS, 20), 'measured');
    const mj = await waitJob(s.base, m);
    assert.equal(mj.status, 201, JSON.stringify(mj));
    const run = mj.result.run;
    const rp = await json(`${s.base}/api/runs/${run}/replay`, { method: 'POST', headers: JSON_BODY, body: '{"device": "v100"}' });
    assert.equal(rp.status, 202, JSON.stringify(rp.body));
    // once its runs are simulated (the first half of its progress) the
    // replay holds the write lock to store them: the import queued now
    // waits for the lock and takes it the moment the runs are stored
    let imp = null;
    for (const deadline = Date.now() + 120000; ;) {
      const j = await job(s.base, rp.body.job);
      assert.ok(['queued', 'running'].includes(j.state), `the replay ended before its runs were being stored: ${JSON.stringify(j)}`);
      if (j.state === 'running' && j.total > 1 && j.done * 2 > j.total) break;
      assert.ok(Date.now() < deadline, 'the replay never got to storing its runs');
      await sleep(5);
    }
    imp = await postImport(s.base, IMPORT_BODY, 'behind');
    const end = await waitJob(s.base, rp.body.job);
    assert.equal(end.status, 201, `the replay failed: ${JSON.stringify(end)}`);
    assert.ok(end.result.runs.length >= 1);
    for (const r of end.result.runs) {
      assert.equal(typeof r.fidelity, 'object', JSON.stringify(r));
      const f = await json(`${s.base}/api/runs/${r.run}/fidelity`);
      assert.equal(f.status, 200, JSON.stringify(f.body));
      assert.equal(f.body.replay, true);
      assert.equal(f.body.measured_run, run);
    }
    const ij = await waitJob(s.base, imp);
    assert.equal(ij.status, 201, JSON.stringify(ij));
  } finally { assert.equal(await s.stop(), 0); }
});

// A kernel-level trace whose table orders and pyramids are built on first
// read: kernels in four streams, copies on two engines, a queue's events.
function lazyTrace() {
  let x = 99;
  const r = (n) => { x = (x * 1103515245 + 12345) & 0x7fffffff; return (x >> 8) % n; };
  const kernels = [], copies = [], queue_events = [];
  for (let i = 0; i < 3000; i++) {
    const s = 1000 * i + r(700), d = 1 + r(4000);
    kernels.push({ id: i, name: `K${r(5)}`, stream: `${7 + r(4)}`, process: 'P0', priority: 'none',
      issue: i % 7 ? s - r(300) : null, first_block: s, fully_dispatched: s + 1, end: s + d,
      blocks: 1 + r(8), threads: 256, smem: 0, regs: 32 });
    const queue = `stream:P0/${7 + (i % 4)}`;
    queue_events.push({ t: s - 300, queue, event: 'enqueue', item: `K${i}` });
    queue_events.push({ t: s, queue, event: 'dequeue', item: `K${i}` });
  }
  for (let i = 0; i < 1200; i++) {
    const s = 2500 * i + r(900);
    copies.push({ id: i, name: `C${r(3)}`, stream: '7', process: 'P0', direction: ['h2d', 'd2h'][r(2)],
      bytes: 4096 * (1 + r(64)), issue: s - r(50), start: s, end: s + 1 + r(2000), engine: r(2) });
  }
  return JSON.stringify({ schema: 'schedlab-trace/1', name: 'lazy', source: 'import', origin: 0,
    kernels, blocks: [], copies, queue_events, warp_issues: [], jobs: [] });
}

test('reads that build a sort order or a pyramid on first use answer at once, the same rows, while an import holds the write lock past the busy limit', async () => {
  const s = await serve(['--budget', 'workers=2'], { env });
  try {
    const r = await json(`${s.base}/api/imports?format=schedlab-trace&name=lazy.json`, {
      method: 'POST', headers: JSON_BODY, body: lazyTrace(),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const run = r.body.run;
    // every read here builds something the first time: a kernel and a copy
    // order (db/rorder.h), the stream pyramid (bins and a window's
    // kernels), the copy pyramid, the queue pyramid (db/spyramid.h,
    // db/qpyramid.h)
    const reads = [
      `kernels?offset=0&limit=100&sort=response&order=desc`,
      `kernels?offset=100&limit=200&sort=name&order=asc&name=K3`,
      `copies?offset=100&limit=100&sort=bytes&order=desc`,
      `streams?max=400`,
      `kernels?max=50`,
      `kernels?from=1000000&to=1100000&max=1000`,
      `copies?max=20`,
      `queues?from=0&to=3000000&bins=60`,
    ];
    const imp = await postImport(s.base, LONG_BODY, 'long');
    await untilImporting(s.base, imp);
    const during = [];
    for (const q of reads) {
      const t0 = Date.now();
      const a = await json(`${s.base}/api/runs/${run}/${q}`);
      assert.equal(a.status, 200, `${q} during the import: ${JSON.stringify(a.body)}`);
      assert.ok(Date.now() - t0 < 3000, `${q} took ${Date.now() - t0} ms`);
      during.push(a.body);
    }
    const ij = await job(s.base, imp);
    assert.equal(ij.state, 'running', 'the import ended before the reads (too short to test this)');
    assert.equal((await waitJob(s.base, imp)).status, 201);
    // after the import the orders and pyramids are stored by the first read
    // (then read back by the second): both give what the reads during the
    // import gave
    for (const [i, q] of reads.entries()) {
      for (let k = 0; k < 2; k++) {
        const b = await json(`${s.base}/api/runs/${run}/${q}`);
        assert.equal(b.status, 200, `${q} after the import: ${JSON.stringify(b.body)}`);
        assert.deepEqual(during[i], b.body, `${q}: during the import and after differ`);
      }
    }
    assert.ok(during[0].kernels.length === 100 && during[1].kernels.length === 200 && during[2].copies.length === 100);
    assert.equal(during[3].mode, 'bins');
    assert.equal(during[4].mode, 'bins');
    assert.ok(during[5].kernels.length > 0);
    assert.equal(during[6].mode, 'bins');
  } finally { assert.equal(await s.stop(), 0); }
});
