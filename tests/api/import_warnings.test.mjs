// import_warnings.test.mjs -- what an import leaves out or guesses is said
// (docs/trace-format.md "Import warnings", cli.md "import", api.md
// "Imports"): `schedlab import` prints one stderr line per warning and
// still exits 0; POST /api/imports answers "warnings" and "warnings_total",
// the same in an import job's result; the run's meta keeps them, so GET
// /api/runs/{run} and an export have them. The archives are written here
// with tar(1) from the synthetic examiner fixture, so the file stands alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, fixture, nvprofCsv, realTrace, tempDir } from './server.mjs';
import { RAW, json, serve, waitJob } from './serve_opts.mjs';

const NOT_JSON = 'not read: only .json members of an archive are result files';

// A .tar.gz of the examiner fixture and `extra` more members (path -> text),
// written in the order given; its path.
function tarGz(dir, name, extra) {
  const src = join(dir, `${name}.src`);
  mkdirSync(src, { recursive: true });
  copyFileSync(fixture('examiner.json'), join(src, 'examiner.json'));
  for (const [p, text] of Object.entries(extra)) {
    mkdirSync(join(src, p, '..'), { recursive: true });
    writeFileSync(join(src, p), text);
  }
  const out = join(dir, name);
  const r = spawnSync('tar', ['--format=ustar', '-czf', out, '-C', src, 'examiner.json', ...Object.keys(extra)],
    { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return out;
}

let dir;
before(() => { dir = tempDir('impwarn'); });

test('schedlab import names each archive member it did not read on stderr, exit 0, and the export keeps them', () => {
  const arc = tarGz(dir, 'results.tar.gz', { 'notes/README.md': '# how I ran it\n', 'stray.csv': 'a,b\n1,2\n' });
  const db = join(dir, 'cli.db');
  const r = cli(['import', arc, '--db', db], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^[a-z0-9]{10}\n$/);
  const lines = [`${arc}(notes/README.md): ${NOT_JSON}`, `${arc}(stray.csv): ${NOT_JSON}`];
  assert.equal(r.stderr, lines.map((l) => `schedlab: warning: ${l}\n`).join(''));
  const ex = cli(['export', r.stdout.trim(), '--db', db]);
  assert.equal(ex.code, 0, ex.stderr);
  const meta = JSON.parse(ex.stdout).meta;
  assert.equal(meta.import_warnings, lines.join('\n'));
  assert.equal(meta.import_warnings_total, '2');

  // the same file without strays: nothing said, no warning keys
  const clean = cli(['import', fixture('examiner.json'), '--db', db]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.equal(clean.stderr, '');
  const cm = JSON.parse(cli(['export', clean.stdout.trim(), '--db', db]).stdout).meta;
  assert.equal(cm.import_warnings, undefined);
  assert.equal(cm.import_warnings_total, undefined);
});

test('schedlab import lists at most 20 warnings, then how many more', () => {
  const extra = {};
  for (let i = 0; i < 23; i++) extra[`more/x${String(i).padStart(2, '0')}.txt`] = 'x\n';
  const arc = tarGz(dir, 'many.tar.gz', extra);
  const r = cli(['import', arc, '--db', join(dir, 'many.db')]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 21);
  assert.equal(lines[0], `schedlab: warning: ${arc}(more/x00.txt): ${NOT_JSON}`);
  assert.equal(lines[19], `schedlab: warning: ${arc}(more/x19.txt): ${NOT_JSON}`);
  assert.match(lines[20], /^schedlab: warning: and 3 more /);
});

test('a schedlab-trace whose meta was edited to 30 warning lines and no count is held to the contract: 20 lines', () => {
  const db = join(dir, 'edited.db');
  const imp = cli(['import', fixture('examiner.json'), '--db', db]);
  assert.equal(imp.code, 0, imp.stderr);
  const trace = JSON.parse(cli(['export', imp.stdout.trim(), '--db', db]).stdout);
  trace.meta.import_warnings = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
  trace.meta.import_warnings_total = 'many';
  const file = join(dir, 'edited.json');
  writeFileSync(file, JSON.stringify(trace));
  const r = cli(['import', file, '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  assert.deepEqual(lines, Array.from({ length: 20 }, (_, i) => `schedlab: warning: line ${i}`));
});

test('a real PyTorch rank file: its kernels launched before the profiling window are said', (t) => {
  const path = realTrace(t, 'kineto_param_v100x8_dlrm_rank1of8.pt.trace.json');
  if (!path) return;
  const r = cli(['import', path, '--db', join(dir, 'pt.db')]);
  assert.equal(r.code, 0, r.stderr);
  // 64: SOURCES.md, "64 of them have no cudaLaunchKernel event, because they
  // were launched before the profiling window opened"
  assert.match(r.stderr, /^schedlab: warning: .*kineto_param_v100x8_dlrm_rank1of8\.pt\.trace\.json: 64 kernels were launched before the profiling window opened .*: kept, with no issue time\n$/);
});

let srv;
after(async () => { if (srv) await srv.stop(); });

test('POST /api/imports answers the warnings, the run\'s meta keeps them, and a job\'s result has them too', async () => {
  const arc = tarGz(dir, 'up.tar.gz', { 'notes/README.md': 'hello\n' });
  const body = readFileSync(arc);
  srv = await serve([]);
  const r = await json(`${srv.base}/api/imports?name=up.tar.gz`, { method: 'POST', body, headers: RAW });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const want = [`up.tar.gz(notes/README.md): ${NOT_JSON}`];
  assert.deepEqual(r.body.warnings, want);
  assert.equal(r.body.warnings_total, 1);
  const run = (await json(`${srv.base}/api/runs/${r.body.run}`)).body;
  assert.equal(run.meta.import_warnings, want[0]);
  assert.equal(run.meta.import_warnings_total, '1');

  // nothing left out: an empty list, not a missing key
  const ok = await json(`${srv.base}/api/imports?format=nvprof-csv&name=ok.csv`, {
    method: 'POST', headers: RAW,
    body: nvprofCsv(['0,10,1,1,1,32,1,1,16,0,0,,,"GeForce GTX 1080 Ti (0)","1","7","k"']),
  });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  assert.deepEqual(ok.body.warnings, []);
  assert.equal(ok.body.warnings_total, 0);
  await srv.stop();
  srv = null;

  // every upload a job (sync_bytes): the job's result is the same object
  srv = await serve(['--budget', 'sync_bytes=100']);
  const q = await json(`${srv.base}/api/imports?name=up.tar.gz`, { method: 'POST', body, headers: RAW });
  assert.equal(q.status, 202, JSON.stringify(q.body));
  const job = await waitJob(srv.base, q.body.job);
  assert.equal(job.state, 'done', JSON.stringify(job));
  assert.deepEqual(job.result.warnings, want);
  assert.equal(job.result.warnings_total, 1);
});

// docs/trace-format.md "Columns an export lacks": an Nsight export edited
// by hand. Without registersPerThread it is imported, the column named in
// a warning with what was taken; without gridX it is refused (no blocks to
// schedule), nothing stored. Before, both imported silently.
test('an Nsight export without a launch column is imported with a warning; one without its grid is refused', () => {
  const edited = (name, col) => {
    const path = join(dir, name);
    copyFileSync(fixture('nsys.sqlite'), path);
    const r = spawnSync('sqlite3', [path, `ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN ${col}`], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return path;
  };
  const db = join(dir, 'cols.db');
  const noRegs = edited('noregs.sqlite', 'registersPerThread');
  const r = cli(['import', noRegs, '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  const line = `${noRegs}: table CUPTI_ACTIVITY_KIND_KERNEL: no column "registersPerThread": registers per thread unknown (no occupancy limit by registers)`;
  assert.equal(r.stderr, `schedlab: warning: ${line}\n`);
  const meta = JSON.parse(cli(['export', r.stdout.trim(), '--db', db]).stdout).meta;
  assert.equal(meta.import_warnings, line);

  const noGrid = edited('nogrid.sqlite', 'gridX');
  const g = cli(['import', noGrid, '--db', join(dir, 'nogrid.db')]);
  assert.equal(g.code, 2);
  assert.equal(g.stderr, `schedlab: ${noGrid}: table CUPTI_ACTIVITY_KIND_KERNEL: column "gridX" missing (a kernel's grid gives its blocks: without it the run has none to schedule)\n`);
  assert.equal(existsSync(join(dir, 'nogrid.db')), false);
});

// The same for a memcpy table (profiler-trace-formats.md §3.3: copyKind is
// the copy's operation, srcKind and dstKind its sides' memory kinds): the
// fixture's one copy, copyKind 2 (Device-to-Host), srcKind 2 (Device),
// dstKind 0 (Pageable). Without copyKind its direction is its memory
// kinds', said in a warning; without copyKind and dstKind it has none and
// the file is refused. Before, both imported silently (the second with
// its copy's direction "other").
test('an Nsight export without copyKind is imported with a warning; one without copyKind and dstKind is refused', () => {
  const edited = (name, cols) => {
    const path = join(dir, name);
    copyFileSync(fixture('nsys.sqlite'), path);
    const sql = cols.map((c) => `ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY DROP COLUMN ${c};`).join(' ');
    const r = spawnSync('sqlite3', [path, sql], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return path;
  };
  const db = join(dir, 'kinds.db');
  const noKind = edited('nokind.sqlite', ['copyKind']);
  const r = cli(['import', noKind, '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  const line = `${noKind}: table CUPTI_ACTIVITY_KIND_MEMCPY: no column "copyKind": each copy's direction taken from srcKind and dstKind, its name "[CUDA memcpy Unknown]" (the unified-memory and peer-to-peer kinds are copyKind's alone)`;
  assert.equal(r.stderr, `schedlab: warning: ${line}\n`);
  const tr = JSON.parse(cli(['export', r.stdout.trim(), '--db', db]).stdout);
  assert.equal(tr.meta.import_warnings, line);
  assert.deepEqual(tr.copies.map((c) => c.direction), ['d2h']);

  const noDir = edited('nodir.sqlite', ['copyKind', 'dstKind']);
  const g = cli(['import', noDir, '--db', join(dir, 'nodir.db')]);
  assert.equal(g.code, 2);
  assert.equal(g.stderr, `schedlab: ${noDir}: table CUPTI_ACTIVITY_KIND_MEMCPY: columns "copyKind" and "dstKind" missing (a copy's direction is its copyKind's, or its srcKind's and dstKind's: without them no copy has one)\n`);
  assert.equal(existsSync(join(dir, 'nodir.db')), false);
});
