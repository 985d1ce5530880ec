// concurrency.test.mjs -- the server's threads at once (jobs.h, store.c's
// streaming import, sweep.c's workers, libmicrohttpd's thread per
// connection): streamed imports on three job workers and on request
// threads, a replay and a sweep, a cancel of each kind mid-way, while
// clients read all the time; then a SIGTERM in the middle of it all.
//
// What is asserted is what the contracts say (docs/api.md, store.h): every
// import that ended "done" stored exactly the rows of its file (the block
// rows of the CSV sent, none lost, none twice); a cancelled job ends
// "aborted" with 409 and stores nothing; every read answers 200; a SIGTERM
// ends the server with 0 and leaves no half-written run (a restart on the
// same file lists only whole runs).
//
// Run it against a -fsanitize=thread build too (SCHEDLAB_BIN; the Makefile's
// tsan target says how): a data race is reported there even where the rows
// come out right; the row checks hold for any build.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { json, JSON_BODY, RAW, serve, waitJob } from './serve_opts.mjs';

// The rows of one globaltimer CSV: kernels x blocks, `tag` making each
// file's values its own (a batch of another import, or an older batch of
// this one, stored in its place shows as a wrong row).
function rows(kernels, blocks, tag) {
  const out = [];
  for (let k = 0; k < kernels; k++) {
    const base = k * 100000;
    for (let b = 0; b < blocks; b++) {
      const s = base + b * 13 + tag;
      out.push({ kernel: k, index: b, sm: (b * 7 + k + tag) % 80, start: s, end: s + 500 + ((b + tag) % 9) * 100 });
    }
  }
  return out;
}

function csv(r) {
  const t0 = 1700000000000;
  const lines = ['kernel,block,sm,start_ns,end_ns,stream,threads'];
  for (const x of r) lines.push(`K${x.kernel},${x.index},${x.sm},${t0 + x.start},${t0 + x.end},s${x.kernel % 4},256`);
  return `${lines.join('\n')}\n`;
}

// The stored run's blocks, as the rows were sent (times from the trace's origin).
async function storedRows(base, run) {
  const r = await fetch(`${base}/api/runs/${run}/export?format=trace`);
  assert.equal(r.status, 200);
  const t = await r.json();
  const off = t.origin - 1700000000000;
  return t.blocks.map((b) => ({ kernel: b.kernel, index: b.index, sm: b.sm, start: b.start + off, end: b.end + off }));
}

const sortRows = (r) => [...r].sort((a, b) => a.kernel - b.kernel || a.index - b.index);

async function startImport(base, body, name) {
  const r = await json(`${base}/api/imports?format=globaltimer-csv&name=${name}`, { method: 'POST', headers: RAW, body });
  return r;
}

// Reads that go on while the writes run: each must answer 200 (stopping:
// a server being stopped may refuse or cut them).
function readers(base, paths, n, { stopping = false } = {}) {
  let stop = false;
  const bad = [];
  let count = 0;
  const loops = [];
  for (let i = 0; i < n; i++) {
    loops.push((async () => {
      for (let k = i; !stop; k++) {
        const p = paths[k % paths.length]();
        try {
          const r = await fetch(`${base}${p}`);
          await r.arrayBuffer();
          count++;
          if (r.status !== 200 && !stopping) bad.push(`${p}: ${r.status}`);
        } catch (e) {
          if (!stopping) bad.push(`${p}: ${e.message}`);
          else await new Promise((ok) => setTimeout(ok, 20));
        }
      }
    })());
  }
  return { async end() { stop = true; await Promise.all(loops); return { bad, count }; } };
}

async function firstRun(base, file) {
  const { body } = await json(`${base}/api/experiments`);
  for (const e of body.experiments) {
    const full = await json(`${base}/api/experiments/${e.slug}`);
    if (full.body.scenario_file === file) return full.body.runs[0].run;
  }
  throw new Error(`no experiment of ${file}`);
}

const SWEEP = {
  schema: 'schedlab-sweep/1', name: 'concurrency sweep', seed: 7, tasksets: 200,
  x: { param: 'tasks', values: [4, 8] }, approaches: ['tsg_rr_suspend', 'gcaps_suspend_gprio'],
};
const LONG_SWEEP = { ...SWEEP, name: 'to cancel', tasksets: 400000, x: { param: 'tasks', values: [12] }, approaches: undefined };

async function running(base, id) {
  for (let i = 0; i < 2400; i++) {
    const j = (await json(`${base}/api/jobs/${id}`)).body;
    if (j.state !== 'queued' && (j.state !== 'running' || j.done > 0)) return j;
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error(`job ${id} never ran`);
}

test('imports, a replay and sweeps on three workers, cancels, reads all the while', async () => {
  // every upload a job (sync_bytes), three at once
  const srv = await serve(['--budget', 'workers=3,queue=32,sync_bytes=200000,sweep_threads=2']);
  try {
    const fig3 = await firstRun(srv.base, 'tx2-fig3-basic-rules.json');
    const sent = [0, 1, 2, 3].map((tag) => rows(24, 2000 + tag * 111, tag));   // ~6 batches of 8192 rows each
    const small = rows(3, 50, 5);                                              // a sync import, on a request thread
    const rd = readers(srv.base, [
      () => '/api/health', () => '/api/experiments', () => `/api/runs/${fig3}/kernels`,
      () => `/api/runs/${fig3}/blocks?max=300`, () => `/api/runs/${fig3}/queues`,
      () => `/api/compare?runs=${fig3},${fig3}`, () => '/api/sweeps/specs',
    ], 8);

    const imports = [];
    for (let i = 0; i < sent.length; i++) {
      const r = await startImport(srv.base, csv(sent[i]), `conc${i}`);
      assert.equal(r.status, 202, JSON.stringify(r.body));
      imports.push(r.body.job);
    }
    const rp = await json(`${srv.base}/api/runs/${fig3}/replay`, { method: 'POST', headers: JSON_BODY, body: '{}' });
    assert.equal(rp.status, 202, JSON.stringify(rp.body));
    const sw = await json(`${srv.base}/api/sweeps?threads=2`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify(SWEEP) });
    assert.equal(sw.status, 202, JSON.stringify(sw.body));
    const long = await json(`${srv.base}/api/sweeps?threads=2`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify(LONG_SWEEP) });
    assert.equal(long.status, 202, JSON.stringify(long.body));
    const syncImp = await startImport(srv.base, csv(small), 'concsync');
    assert.ok([201, 202].includes(syncImp.status), JSON.stringify(syncImp.body));

    // the last import cancelled while it runs (or before it begins)
    const cancelled = imports.pop();
    const sentCancelled = sent.pop();
    const c = await json(`${srv.base}/api/jobs/${cancelled}`, { method: 'DELETE' });
    assert.ok([200, 202].includes(c.status), JSON.stringify(c.body));
    // the long sweep cancelled once it counts
    await running(srv.base, long.body.job);
    assert.equal((await json(`${srv.base}/api/jobs/${long.body.job}`, { method: 'DELETE' })).status, 202);

    const ends = {};
    for (const id of [...imports, cancelled, rp.body.job, sw.body.job, long.body.job])
      ends[id] = await waitJob(srv.base, id, { timeout: 600000 });
    const reads = await rd.end();
    assert.deepEqual(reads.bad, [], `reads answered otherwise than 200 (of ${reads.count})`);

    for (let i = 0; i < imports.length; i++) {
      const j = ends[imports[i]];
      assert.equal(j.state, 'done', JSON.stringify(j));
      assert.deepEqual(sortRows(await storedRows(srv.base, j.result.run)), sortRows(sent[i]), `import ${i}: the rows sent`);
    }
    const cj = ends[cancelled];
    const names = (await json(`${srv.base}/api/experiments`)).body.experiments.map((e) => e.name);
    if (cj.state === 'done') {
      // it had ended before the cancel came: then whole
      assert.deepEqual(sortRows(await storedRows(srv.base, cj.result.run)), sortRows(sentCancelled));
    } else {
      assert.equal(cj.state, 'aborted', JSON.stringify(cj));
      assert.equal(cj.status, 409);
      assert.ok(!names.includes('conc3'), 'a cancelled import stores nothing');
    }
    if (syncImp.status === 201) {
      assert.deepEqual(sortRows(await storedRows(srv.base, syncImp.body.run)), sortRows(small));
    } else {
      const j = await waitJob(srv.base, syncImp.body.job, { timeout: 600000 });
      assert.equal(j.state, 'done', JSON.stringify(j));
      assert.deepEqual(sortRows(await storedRows(srv.base, j.result.run)), sortRows(small));
    }
    assert.equal(ends[rp.body.job].state, 'done', JSON.stringify(ends[rp.body.job]));
    assert.equal(ends[sw.body.job].state, 'done', JSON.stringify(ends[sw.body.job]));
    const lj = ends[long.body.job];
    assert.equal(lj.state, 'aborted', JSON.stringify(lj));
    assert.equal(lj.status, 409);
    assert.ok(!names.includes('to cancel'), 'a cancelled sweep stores nothing');
  } finally {
    assert.equal(await srv.stop(), 0, srv.stderr());
  }
});

test('SIGTERM while imports, a replay and a sweep run: exit 0, no half-written run', async () => {
  const first = await serve(['--budget', 'workers=3,queue=32,sync_bytes=200000,sweep_threads=2'], { keep: true });
  const { dir, db } = first;
  let again = null;
  try {
    const fig3 = await firstRun(first.base, 'tx2-fig3-basic-rules.json');
    const sent = [0, 1].map((tag) => rows(24, 4000, tag + 10));
    const rd = readers(first.base, [() => '/api/experiments', () => `/api/runs/${fig3}/blocks?max=300`, () => '/api/health'], 4, { stopping: true });
    const jobs = [];
    for (let i = 0; i < sent.length; i++) jobs.push((await startImport(first.base, csv(sent[i]), `term${i}`)).body.job);
    jobs.push((await json(`${first.base}/api/runs/${fig3}/replay`, { method: 'POST', headers: JSON_BODY, body: '{}' })).body.job);
    const sw = await json(`${first.base}/api/sweeps?threads=2`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify(LONG_SWEEP) });
    assert.equal(sw.status, 202, JSON.stringify(sw.body));
    await running(first.base, sw.body.job);
    await running(first.base, jobs[0]);
    const stopped = first.stop('SIGTERM');
    const code = await stopped;
    await rd.end();
    assert.equal(code, 0, first.stderr());

    // the same file again: each import's run is whole or absent, the sweep absent
    again = await serve([], { dir, db });
    const exps = (await json(`${again.base}/api/experiments`)).body.experiments;
    for (let i = 0; i < sent.length; i++) {
      const e = exps.find((x) => x.name === `term${i}`);
      if (!e) continue;
      const full = (await json(`${again.base}/api/experiments/${e.slug}`)).body;
      assert.equal(full.runs.length, 1);
      assert.deepEqual(sortRows(await storedRows(again.base, full.runs[0].run)), sortRows(sent[i]), `term${i}: whole`);
    }
    assert.ok(!exps.some((x) => x.name === 'to cancel'), 'the sweep stopped by SIGTERM stored nothing');
  } finally {
    if (again) assert.equal(await again.stop(), 0, again.stderr());
  }
});
