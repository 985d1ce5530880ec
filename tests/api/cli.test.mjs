// cli.test.mjs -- the command line of DESIGN §3: simulate, import, export, replay.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, repo, shared, tempDir } from './server.mjs';

const FIG3 = join(repo, 'scenarios/tx2-fig3-basic-rules.json');
const NVPROF_CSV = join(shared, 'traces/nvprof_gputrace_magus_concurrentKernels_gtx1080ti.csv');

let dir, db;
before(() => {
  dir = tempDir('cli');
  db = join(dir, 'cli.db');
});
after(() => rmSync(dir, { recursive: true, force: true }));

function kernelCounts(trace) {
  const per = {};
  for (const b of trace.blocks) {
    const n = trace.kernels[b.kernel].name;
    per[n] = (per[n] || 0) + 1;
  }
  return per;
}

test('simulate writes the trace to stdout and, identically, to -o', () => {
  const r = cli(['simulate', FIG3]);
  assert.equal(r.code, 0, r.stderr);
  const t = JSON.parse(r.stdout);
  assert.equal(t.schema, 'schedlab-trace/1');
  assert.equal(t.source, 'simulation');
  assert.deepEqual(kernelCounts(t), { K1: 6, K2: 2, K3: 2, K4: 4, K5: 2, K6: 2 });
  const out = join(dir, 'fig3.trace.json');
  const o = cli(['simulate', FIG3, '-o', out]);
  assert.equal(o.code, 0, o.stderr);
  assert.equal(o.stdout, '');
  assert.equal(readFileSync(out, 'utf8'), r.stdout);   // deterministic, byte for byte
});

test('simulate: a bad scenario exits 2 with one line naming file and place', () => {
  const scn = JSON.parse(readFileSync(FIG3, 'utf8'));
  scn.ops[0].threads = 4096;
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify(scn));
  const r = cli(['simulate', bad]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  const lines = r.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /bad\.json: ops\[0\]\.threads: /);
  const v = cli(['simulate', FIG3, '--variant', 'nope']);
  assert.equal(v.code, 2);
  assert.match(v.stderr, /--variant: no run named "nope"/);
  const missing = cli(['simulate', join(dir, 'absent.json')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /absent\.json/);
  const opt = cli(['simulate', FIG3, '--bogus', 'x']);
  assert.equal(opt.code, 2);
  assert.match(opt.stderr, /unknown option --bogus/);
});

test('every command has --help', () => {
  for (const c of ['simulate', 'import', 'export', 'replay', 'serve']) {
    const r = cli([c, '--help']);
    assert.equal(r.code, 0, c);
    assert.match(r.stdout, new RegExp(`^usage: schedlab ${c}`), c);
  }
  assert.equal(cli(['rta']).code, 2);
});

test('import prints a slug; export gives it back; replay gives a scenario simulate accepts', () => {
  const imp = cli(['import', NVPROF_CSV, '--db', db, '--name', 'ck']);
  assert.equal(imp.code, 0, imp.stderr);
  assert.match(imp.stdout, /^[a-z0-9]{10}\n$/);
  const run = imp.stdout.trim();

  const ex = cli(['export', run, '--db', db]);
  assert.equal(ex.code, 0, ex.stderr);
  const t = JSON.parse(ex.stdout);
  assert.equal(t.source, 'nvprof-csv');
  assert.equal(t.kernels.length, 9);
  assert.equal(t.copies.length, 1);
  const ch = cli(['export', run, '--db', db, '--format', 'chrome']);
  assert.equal(ch.code, 0, ch.stderr);
  const events = JSON.parse(ch.stdout).traceEvents.filter((e) => e.ph === 'X');
  assert.equal(events.filter((e) => e.cat === 'kernel').length, 9);
  // nine streams 13..21: nine tracks
  assert.equal(new Set(events.filter((e) => e.cat === 'kernel').map((e) => `${e.pid}/${e.tid}`)).size, 9);

  // nvprof names no complete device: replay needs a preset
  const nodev = cli(['replay', run, '--db', db]);
  assert.equal(nodev.code, 2);
  assert.match(nodev.stderr, /--device/);
  const scnFile = join(dir, 'replay.json');
  const rp = cli(['replay', run, '--db', db, '--device', 'pascal-gilman', '-o', scnFile]);
  assert.equal(rp.code, 0, rp.stderr);
  const scn = JSON.parse(readFileSync(scnFile, 'utf8'));
  assert.equal(scn.schema, 'schedlab-scenario/1');
  assert.equal(scn.device, 'pascal-gilman');
  assert.equal(scn.ops.filter((o) => o.kernel).length, 9);
  assert.equal(scn.ops.filter((o) => o.copy).length, 1);
  assert.equal(scn.streams.length, 9);
  const sim = cli(['simulate', scnFile]);
  assert.equal(sim.code, 0, sim.stderr);
  assert.equal(JSON.parse(sim.stdout).kernels.length, 9);
  assert.equal(cli(['replay', run, '--db', db, '--device', 'nope']).code, 2);
});

test('a simulated trace round-trips through import, and replays with its own device', () => {
  const trace = join(dir, 'fig3.json');
  assert.equal(cli(['simulate', FIG3, '-o', trace]).code, 0);
  const imp = cli(['import', trace, '--db', db]);
  assert.equal(imp.code, 0, imp.stderr);
  const run = imp.stdout.trim();
  const ex = cli(['export', run, '--db', db]);
  assert.equal(ex.stdout, readFileSync(trace, 'utf8'));   // stored and loaded exactly
  const rp = cli(['replay', run, '--db', db]);
  assert.equal(rp.code, 0, rp.stderr);
  const scn = JSON.parse(rp.stdout);
  assert.equal(scn.device.name, 'tx2');
  const k1 = scn.ops.find((o) => o.kernel === 'K1');
  assert.deepEqual(k1.block_time, Array(6).fill(1000000000));
  const scnFile = join(dir, 'fig3-replay.json');
  writeFileSync(scnFile, rp.stdout);
  const sim = cli(['simulate', scnFile]);
  assert.equal(sim.code, 0, sim.stderr);
  assert.deepEqual(kernelCounts(JSON.parse(sim.stdout)), { K1: 6, K2: 2, K3: 2, K4: 4, K5: 2, K6: 2 });
});

test('import of a malformed file exits 2 and stores nothing', () => {
  const bad = join(dir, 'bad.csv');
  writeFileSync(bad, 'Start,Duration\nms,ms\nabc,1\n');
  const r = cli(['import', bad, '--db', db, '--format', 'nvprof-csv']);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.split('\n').filter(Boolean).length, 1);
  assert.match(r.stderr, /bad\.csv/);
  const ex = cli(['export', 'zzzzzzzzzz', '--db', db]);
  assert.equal(ex.code, 2);
  assert.match(ex.stderr, /no run named "zzzzzzzzzz"/);
});
