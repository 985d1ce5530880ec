// server.mjs -- helpers for the API and CLI tests: start `schedlab serve` on
// a free port with a fresh database, wait for /api/health, stop it after.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const bin = process.env.SCHEDLAB_BIN || join(repo, 'schedlab');

// The real traces (recorded on hardware, never in the repository): a test
// that needs one calls realTrace(t, name), which skips it with one line
// saying which file is missing -- or fails it when SCHEDLAB_REQUIRE_TRACES=1.
export const traces = process.env.SCHEDLAB_TRACES || resolve(repo, '../shared/traces');

export function realTrace(t, name) {
  const path = join(traces, name);
  if (existsSync(path)) return path;
  if (process.env.SCHEDLAB_REQUIRE_TRACES === '1') {
    throw new Error(`real trace ${path} not found (SCHEDLAB_REQUIRE_TRACES=1)`);
  }
  t.skip(`needs the real trace ${path}, not found (set SCHEDLAB_TRACES to the folder of the real traces)`);
  return null;
}

// The synthetic fixtures of tests/fixtures/make_fixtures.sh: $SCHEDLAB_FIXTURES
// (make sets it), else written once into a temporary folder.
let fixtureDir = process.env.SCHEDLAB_FIXTURES || null;
export function fixture(name) {
  if (!fixtureDir) {
    fixtureDir = mkdtempSync(join(tmpdir(), 'schedlab-fixtures-'));
    const r = spawnSync(join(repo, 'tests/fixtures/make_fixtures.sh'), [fixtureDir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`make_fixtures.sh: ${r.stderr}`);
    process.on('exit', () => rmSync(fixtureDir, { recursive: true, force: true }));
  }
  const path = join(fixtureDir, name);
  if (!existsSync(path)) throw new Error(`fixture ${path} missing (tests/fixtures/make_fixtures.sh writes it)`);
  return path;
}

// A fresh folder under TMPDIR, removed when the test file's process exits
// (make test puts TMPDIR on /dev/shm: a folder left there is memory kept
// until the machine restarts).
const madeDirs = new Set();
export function tempDir(tag) {
  const dir = mkdtempSync(join(tmpdir(), `schedlab-${tag}-`));
  if (madeDirs.size === 0) {
    process.on('exit', () => { for (const d of madeDirs) rmSync(d, { recursive: true, force: true }); });
  }
  madeDirs.add(dir);
  return dir;
}

// dir/name holding obj (as JSON; a string as it is); its path
export function writeIn(dir, name, obj) {
  const p = join(dir, name);
  writeFileSync(p, typeof obj === 'string' ? obj : JSON.stringify(obj));
  return p;
}

// A few of the shipped scenarios as a scenarios folder of their own (give it
// to `serve --scenarios`), the shipped sweeps beside it (serve seeds
// DIR/../sweeps): for the tests of a first start, which need a seeding to
// watch, not all of it -- the seed database (seed.mjs) is the one first
// start with every shipped scenario, and the tests start on copies of it.
// Returns { dir, names } (dir: the scenarios folder; names: its files).
// sweeps: false leaves the sweeps out (nothing is seeded after the
// scenarios); a list of file names, only those shipped sweeps.
export const FIRST_START_SCENARIOS = [
  'tx2-fig3-basic-rules.json', 'tx2-fig5-null-stream.json', 'h100-basic-rules.json',
  'most-room-turing-5.1.json', 'gcaps-counterexample-a.json', 'gcaps-counterexample-b.json',
  'qaws-v-homogeneous-latency.json',
];
export function shippedSubset(names = FIRST_START_SCENARIOS, { sweeps = true } = {}) {
  const root = tempDir('shipped');
  const dir = join(root, 'scenarios');
  mkdirSync(dir);
  for (const n of names) copyFileSync(join(repo, 'scenarios', n), join(dir, n));
  if (Array.isArray(sweeps)) {
    mkdirSync(join(root, 'sweeps'));
    for (const n of sweeps) symlinkSync(join(repo, 'sweeps', n), join(root, 'sweeps', n));
  } else if (sweeps) {
    symlinkSync(join(repo, 'sweeps'), join(root, 'sweeps'));
  }
  process.on('exit', () => rmSync(root, { recursive: true, force: true }));
  return { dir, names };
}

export async function freePort() {
  const srv = net.createServer();
  await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
  const { port } = srv.address();
  await new Promise((ok) => srv.close(ok));
  return port;
}

// A database as the first start of `schedlab serve` leaves it (migrated,
// every shipped scenario stored): SCHEDLAB_SEED_DB, written once per
// `make test` by the binary under test (tests/api/seed.mjs). Storing the
// shipped scenarios costs a start about 10 CPU-seconds; a server started on
// a copy finds them stored and starts at once, with the same rows.
export const seedDb = process.env.SCHEDLAB_SEED_DB || null;

// Start a server on a fresh database; resolves once /api/health answers.
// `exe` is the binary to serve with (default: the one under test). The
// database is a copy of the seed (above) when there is one and `exe` is the
// binary under test; `fresh: true` (or another binary) starts on an empty
// file, which the server seeds itself. `args`: more options for `serve`
// (e.g. ['--scenarios', EMPTY_DIR] to skip the shipped scenarios).
// A copy of the seed is served with --no-check: the seed passed PRAGMA
// quick_check when seed.mjs made it, and the same check of each copy (0.32-
// 0.39 CPU-s a server here, when it runs to its end) told nothing more. The
// tests of the check make databases of their own.
// waitMs: how long to wait for /api/health with the shipped scenarios stored
// (seeding: ~10 s alone, ~50 s on a loaded shared machine; a seed copy: at once).
// from: a database file to start on a copy of (whatever `exe` is).
// env: more environment; the shipped sweeps are seeded with 20 tasksets per
// point (and the QoS sweep with one pair and goal) unless it says otherwise
// (SCHEDLAB_SEED_SWEEP_TASKSETS, server/sweep_seed.h: "" for the real ones).
export async function startServer({ exe = bin, fresh = false, from = null, waitMs = 180000, args = [], env = {} } = {}) {
  const dir = tempDir('api');
  const db = join(dir, 'test.db');
  // a copy of the seed is not checked again (--no-check): seed.mjs checked it
  const seeded = !from && seedDb && !fresh && exe === bin;
  if (from) copyFileSync(from, db);
  else if (seeded) copyFileSync(seedDb, db);
  const port = await freePort();
  const child = spawn(exe, ['serve', '--db', db, '--port', String(port), '--bind', '127.0.0.1',
    ...(seeded ? ['--no-check'] : []), ...args], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, SCHEDLAB_SEED_SWEEP_TASKSETS: process.env.SCHEDLAB_SEED_SWEEP_TASKSETS ?? '20', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`schedlab serve exited ${child.exitCode}: ${stderr}`);
    try {
      // (the shipped scenarios are stored behind the open port: wait for them)
      const r = await fetch(`${base}/api/health`);
      if (r.ok && !(await r.json()).seeding) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`schedlab serve did not answer: ${stderr}`);
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
  return {
    base,
    db,
    dir,
    pid: child.pid,
    stderr: () => stderr,
    // keepDb: a path to copy the database to before the folder goes
    async stop({ keepDb } = {}) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      if (keepDb) copyFileSync(db, keepDb);
      rmSync(dir, { recursive: true, force: true });
      return child.exitCode;
    },
  };
}

export async function getJson(url, init) {
  const r = await fetch(url, init);
  const text = await r.text();
  let body;
  try { body = JSON.parse(text); } catch { body = text; }
  return { status: r.status, headers: r.headers, body };
}

// POST a scenario to /api/experiments and wait for it: the 201 answer, or
// the job's result when the server queued it (202). Returns {slug, runs}.
export async function postScenario(base, scenario) {
  let r = await getJson(`${base}/api/experiments`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(scenario),
  });
  if (r.status === 202) {
    const url = r.body.url;
    for (;;) {
      await new Promise((ok) => setTimeout(ok, 200));
      const j = (await getJson(`${base}${url}`)).body;
      if (j.state === 'done') { r = { status: j.status, body: j.result }; break; }
      if (j.state === 'failed') throw new Error(`scenario job failed: ${JSON.stringify(j)}`);
    }
  }
  if (r.status !== 201) throw new Error(`POST /api/experiments: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

// POST a file's bytes to /api/imports as `name` and wait for it: the
// 201's run, or the job's when the server queued the import (202).
export async function importFile(base, path, name) {
  const r = await getJson(`${base}/api/imports?name=${encodeURIComponent(name)}`, {
    method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: readFileSync(path),
  });
  assert.ok(r.status === 201 || r.status === 202, JSON.stringify(r.body));
  if (r.status === 201) return r.body.run;
  for (;;) {
    const j = await getJson(`${base}${r.body.url}`);
    if (j.body.state === 'done') return j.body.result.run;
    assert.ok(['queued', 'running'].includes(j.body.state), JSON.stringify(j.body));
    await new Promise((res) => setTimeout(res, 100));
  }
}

// Run the CLI synchronously.
export function cli(args, opts = {}) {
  const r = spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 256 << 20, ...opts });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Two kernels of 64 KB of shared memory per block (more than the TX2
// preset's 48 KB a block, simcore/presets.c) on two streams, simulated on
// the H100 preset: written into dir as the trace of one GPU (`one`) and of
// the same kernels on two GPUs (`two`: their processes' "gpuN" words, as
// docs/api.md "Replay" names a run's GPUs). {one, two}: the files' paths.
// BIG_SMEM_LINE: why a replay of either on tx2 does not simulate, its op
// named (server/app/replay.c replay_name_op).
export function bigSmemTraces(dir) {
  const scn = writeIn(dir, 'big-smem-2.json', {
    schema: 'schedlab-scenario/1', name: 'big smem', device: 'h100', streams: [{ name: 'S1' }, { name: 'S2' }],
    ops: [{ kernel: 'K1', stream: 'S1', blocks: 4, threads: 256, smem: 65536, block_time: '1ms' },
      { kernel: 'K2', stream: 'S2', blocks: 4, threads: 256, smem: 65536, block_time: '1ms' }],
  });
  const sim = cli(['simulate', scn]);
  if (sim.code !== 0) throw new Error(`simulate ${scn}: ${sim.stderr}`);
  const t = JSON.parse(sim.stdout);
  t.kernels[0].process = 'gpu0';
  t.kernels[1].process = 'gpu1';
  return { one: writeIn(dir, 'big-smem-one.trace.json', sim.stdout), two: writeIn(dir, 'big-smem-two.trace.json', t) };
}
export const BIG_SMEM_LINE = 'replay: ops[0].smem: a block needs 64KB but the device allows 48KB per block (max_smem_per_block) (ops[0]: kernel "K1" on stream "S1")';

// An nvprof --print-gpu-trace --csv log of the given data lines, times in
// us: the lines nvprof writes before them, then one per line.
export function nvprofCsv(lines) {
  return `${[
    '==1== NVPROF is profiling process 1, command: ./app',
    '==1== Profiling application: ./app',
    '==1== Profiling result:',
    '"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per Thread","Static SMem","Dynamic SMem","Size","Throughput","Device","Context","Stream","Name"',
    'us,us,,,,,,,,B,B,KB,GB/s,,,,',
    ...lines,
  ].join('\n')}\n`;
}

// GET base + path answers `status` with {error: msg}.
export async function expectError(base, path, status, msg) {
  const x = await getJson(`${base}${path}`);
  assert.equal(x.status, status, JSON.stringify(x.body));
  assert.equal(x.body.error, msg);
}

// url answers 200, cacheable for good, and 304 to its own ETag.
export async function expectImmutable(url) {
  const r = await fetch(url);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('cache-control'), /immutable/);
  const again = await fetch(url, { headers: { 'If-None-Match': r.headers.get('etag') } });
  assert.equal(again.status, 304);
}

// GET /api/runs/{run}/{kind}?from=a&to=a+w (kind: kernels, copies) with
// max=1000 answers exactly `want`, the rows overlapping the window by id;
// with max one less than their number, bins that checkBins(answer, a, a + w)
// accepts.
export async function checkWindow(base, run, kind, a, w, want, checkBins) {
  const u = `${base}/api/runs/${run}/${kind}?from=${a}&to=${a + w}`;
  const r = (await getJson(`${u}&max=1000`)).body;
  assert.equal(r.mode, kind);
  assert.deepEqual([r.from, r.to, r.total], [a, a + w, want.length]);
  assert.deepEqual(r[kind], want);
  if (want.length > 1) checkBins((await getJson(`${u}&max=${want.length - 1}`)).body, a, a + w);
  // max is how many rows may come as rows: exactly max still do
  if (want.length > 0) assert.deepEqual((await getJson(`${u}&max=${want.length}`)).body[kind], want);
}

// docs/api.md: a window's bin means are "exact to 6 decimals", rounded
// there: within half a unit of the sixth of the exact ratio (and a hair for
// the double the ratio is computed in by a test)
export const HALF_E6 = 5.0001e-7;

// A scenario that parses and fits the budget but that the simulator refuses:
// each of its `streams` runs one kernel of a program repeated 10^12 times,
// past the warp model's bound on a run's times (simcore/exec_warp.c,
// warp_check). The 400 names run "default" and ops[0].
export function endlessScenario(streams = ['S1']) {
  return JSON.stringify({
    schema: 'schedlab-scenario/1', name: 'endless', device: { preset: 'titanv-gpgpusim' }, policy: { warp: 'gto' },
    streams: streams.map((name) => ({ name })),
    ops: streams.map((s) => ({ kernel: `K${s}`, stream: s, at: 0, blocks: 1, threads: 32,
      program: { body: [{ op: 'alu', count: 1 }], repeat: 1e12 } })),
  });
}
export const ENDLESS_ERROR = /^scenario: run "default": ops\[0\]\.program: the run could take [\d.e+]+ cycles, more than the model's 1e\+13 /;
