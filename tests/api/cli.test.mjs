// cli.test.mjs -- the command line of DESIGN §3: simulate, import, export, replay.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { BIG_SMEM_LINE, bigSmemTraces, cli, fixture, realTrace, repo, tempDir, writeIn } from './server.mjs';

const FIG3 = join(repo, 'scenarios/tx2-fig3-basic-rules.json');
const NVPROF_CSV = 'nvprof_gputrace_magus_concurrentKernels_gtx1080ti.csv';

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

// "schedlab help simulate" (or --help simulate) printed the overview, the
// command it named dropped; it is that command's --help now, and a name
// that is no command is bad input (cli.md: a wrong number of arguments is)
test('help COMMAND prints the command\'s usage', () => {
  for (const c of ['simulate', 'import', 'export', 'replay', 'serve', 'rta', 'sweep', 'merge']) {
    const own = cli([c, '--help']);
    for (const h of ['help', '--help', '-h']) {
      const r = cli([h, c]);
      assert.equal(r.code, 0, `${h} ${c}: ${r.stderr}`);
      assert.equal(r.stdout, own.stdout, `${h} ${c}`);
    }
  }
  const bad = cli(['help', 'simulat']);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'schedlab: help: unknown command "simulat" (commands: simulate, import, export, replay, serve, rta, sweep, merge)\n');
  assert.equal(cli(['help', 'simulate', 'import']).code, 2);
  assert.match(cli(['help']).stdout, /^usage: schedlab COMMAND/);
});

test('import prints a slug; export gives it back; replay gives a scenario simulate accepts', () => {
  // the nvprof CSV fixture: two kernels on streams 7 and 13, two copies on 7
  const imp = cli(['import', fixture('nvprof.csv'), '--db', db, '--name', 'fx']);
  assert.equal(imp.code, 0, imp.stderr);
  assert.match(imp.stdout, /^[a-z0-9]{10}\n$/);
  const run = imp.stdout.trim();

  const ex = cli(['export', run, '--db', db]);
  assert.equal(ex.code, 0, ex.stderr);
  const t = JSON.parse(ex.stdout);
  assert.equal(t.source, 'nvprof-csv');
  assert.deepEqual(t.kernels.map((k) => [k.stream, k.first_block, k.end, k.blocks, k.threads]),
    [['7', 1000000, 3000000, 4, 256], ['13', 1500000, 2500000, 2, 128]]);
  assert.deepEqual(t.copies.map((c) => [c.direction, c.start, c.end]),
    [['h2d', 0, 500000], ['d2h', 4000000, 4250000]]);
  const ch = cli(['export', run, '--db', db, '--format', 'chrome']);
  assert.equal(ch.code, 0, ch.stderr);
  const events = JSON.parse(ch.stdout).traceEvents.filter((e) => e.ph === 'X');
  assert.equal(events.filter((e) => e.cat === 'kernel').length, 2);
  // streams 7 and 13: two kernel tracks
  assert.equal(new Set(events.filter((e) => e.cat === 'kernel').map((e) => `${e.pid}/${e.tid}`)).size, 2);

  // the fixture names its GPU, a GeForce GTX 1080 Ti, and nothing else of it:
  // replay completes it from the name (28 SMs of compute capability 6.1,
  // simcore/cc.c) and needs no preset (issue 28, point 2; it used to exit 2
  // asking for --device), and prints the fidelity report
  const own = cli(['replay', run, '--db', db]);
  assert.equal(own.code, 0, own.stderr);
  assert.equal(JSON.parse(own.stdout).device.sms, 28);
  assert.match(own.stderr, /replaying on the trace's own device "GeForce GTX 1080 Ti" \(28 SMs/);
  assert.match(own.stderr, /^fidelity: /m);
  const scnFile = join(dir, 'replay.json');
  const rp = cli(['replay', run, '--db', db, '--device', 'pascal-gilman', '-o', scnFile]);
  assert.equal(rp.code, 0, rp.stderr);
  const scn = JSON.parse(readFileSync(scnFile, 'utf8'));
  assert.equal(scn.schema, 'schedlab-scenario/1');
  assert.equal(scn.device, 'pascal-gilman');
  // the report's cause names the trace's own GPU, which the CSV names (it
  // said "(unnamed)": the name is in meta.device, not in a device record)
  assert.match(rp.stderr, /cause: device: replayed on the preset pascal-gilman, as asked, not on the trace's own device "GeForce GTX 1080 Ti"/);
  assert.deepEqual(scn.policy, { placement: 'most-room' });
  // every other placement policy is a variant of the replay
  assert.deepEqual(scn.variants, [{ name: 'round-robin', policy: { placement: 'round-robin' } }]);
  assert.deepEqual(scn.ops.map((o) => [o.kernel || o.copy, o.stream, o.at]), [
    ['[CUDA memcpy HtoD]', '7', 0],
    ['vectorAdd(float const *, float const *, float*, int)', '7', 1000000],
    ['void clover::par_ranged2d_kernel<build_field(global_variables&)::{lambda(int, int)#1}>'
      + '(clover::Range2d, build_field(global_variables&)::{lambda(int, int)#1})', '13', 1500000],
    ['[CUDA memcpy DtoH]', '7', 4000000],
  ]);
  assert.deepEqual(scn.streams.map((x) => x.name), ['7', '13']);
  // the base run is named after its placement, the variant after its own
  for (const variant of [null, 'most-room', 'round-robin']) {
    const sim = cli(['simulate', scnFile, ...(variant ? ['--variant', variant] : [])]);
    assert.equal(sim.code, 0, `${variant}: ${sim.stderr}`);
    const st = JSON.parse(sim.stdout);
    assert.equal(st.kernels.length, 2, variant);
    assert.equal(st.blocks.length, 6, variant);      // 4 + 2
  }
  assert.equal(cli(['replay', run, '--db', db, '--device', 'nope']).code, 2);
});

test('the real concurrentKernels log: 9 kernels on 9 streams, replayed', (t) => {
  const path = realTrace(t, NVPROF_CSV);
  if (!path) return;
  const imp = cli(['import', path, '--db', db, '--name', 'ck']);
  assert.equal(imp.code, 0, imp.stderr);
  const run = imp.stdout.trim();
  const tr = JSON.parse(cli(['export', run, '--db', db]).stdout);
  assert.equal(tr.kernels.length, 9);
  assert.equal(tr.copies.length, 1);
  const ch = JSON.parse(cli(['export', run, '--db', db, '--format', 'chrome']).stdout);
  const kev = ch.traceEvents.filter((e) => e.ph === 'X' && e.cat === 'kernel');
  assert.equal(kev.length, 9);
  assert.equal(new Set(kev.map((e) => `${e.pid}/${e.tid}`)).size, 9);   // streams 13..21
  const scnFile = join(dir, 'ck-replay.json');
  assert.equal(cli(['replay', run, '--db', db, '--device', 'pascal-gilman', '-o', scnFile]).code, 0);
  const scn = JSON.parse(readFileSync(scnFile, 'utf8'));
  assert.equal(scn.ops.filter((o) => o.kernel).length, 9);
  assert.equal(scn.ops.filter((o) => o.copy).length, 1);
  assert.equal(scn.streams.length, 9);
  const sim = cli(['simulate', scnFile, '--variant', 'round-robin']);
  assert.equal(sim.code, 0, sim.stderr);
  assert.equal(JSON.parse(sim.stdout).kernels.length, 9);
});

test('export and replay never create a database: a missing one is named, exit 2', () => {
  const typo = join(dir, 'typo.db');
  for (const args of [['export', 'abcdefghij'], ['replay', 'abcdefghij', '--device', 'tx2']]) {
    const r = cli([...args, '--db', typo]);
    assert.equal(r.code, 2, args[0]);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `schedlab: ${typo}: no such database (--db or SCHEDLAB_DB names the file; `
      + '`schedlab import` or `schedlab serve` creates one)\n');
    assert.equal(existsSync(typo), false, args[0]);
  }
  // the same through SCHEDLAB_DB
  const env = { ...process.env, SCHEDLAB_DB: typo };
  const r = cli(['export', 'abcdefghij'], { env });
  assert.equal(r.code, 2);
  assert.equal(existsSync(typo), false);
});

test('--version names schedlab and the libraries it runs with', () => {
  const r = cli(['--version']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 6, r.stdout);
  assert.match(lines[0], /^schedlab \d+\.\d+\.\d+$/);
  const modversion = (pkg) => spawnSync('pkg-config', ['--modversion', pkg], { encoding: 'utf8' }).stdout.trim();
  assert.equal(lines[1], `SQLite ${modversion('sqlite3')}`);
  assert.equal(lines[2], `jansson ${modversion('jansson')}`);
  assert.equal(lines[3], `libmicrohttpd ${modversion('libmicrohttpd')}`);
  assert.equal(lines[4], `libarchive ${modversion('libarchive')}`);
  assert.match(lines[5], /^libiberty \S+ \(GNU C\+\+ demangler, linked statically\)$/);
  // an argument after it was dropped (exit 0); cli.md: a wrong number of
  // arguments is bad input
  const extra = cli(['--version', 'simulate']);
  assert.equal(extra.code, 2);
  assert.equal(extra.stdout, '');
  assert.equal(extra.stderr, 'schedlab: --version takes no arguments, got "simulate"\n');
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
  // every block measured at 1 s: one block_time for them all
  const k1 = scn.ops.find((o) => o.kernel === 'K1');
  assert.equal(k1.block_time, 1000000000);
  const scnFile = join(dir, 'fig3-replay.json');
  writeFileSync(scnFile, rp.stdout);
  const sim = cli(['simulate', scnFile]);
  assert.equal(sim.code, 0, sim.stderr);
  const again = JSON.parse(sim.stdout);
  assert.deepEqual(kernelCounts(again), { K1: 6, K2: 2, K3: 2, K4: 4, K5: 2, K6: 2 });
  // the same schedule: K3 stays behind C2o and C3i in S1 (3.6 s, not 3.0 s)
  const first = JSON.parse(readFileSync(trace, 'utf8'));
  const starts = (t) => t.kernels.map((k) => [k.name, k.first_block, k.end]);
  assert.deepEqual(starts(again), starts(first));
  assert.equal(again.kernels.find((k) => k.name === 'K3').first_block, 3600000000);
  assert.deepEqual(again.blocks, first.blocks);
  assert.deepEqual(again.copies.map((c) => [c.name, c.start, c.end]), first.copies.map((c) => [c.name, c.start, c.end]));
});

// A run simulated with cohorts (scenario-format.md, "Cohorts") keeps its
// blocks as a few cohort records; the run's block count is the blocks they
// stand for. export loaded the run by reserving that count of blocks one by
// one (8 G here: 256 GB), failed, and said "out of memory" (exit 1): the
// Rodinia Gaussian replay stored by `replay --store` could not be exported.
// cli.md: export writes what `import --format schedlab-trace` reads back
// exactly.
test('a cohort run of billions of blocks exports as it was imported', () => {
  const op = (kernel) => ({ kernel, blocks: 2000000000, threads: 1024, block_time: '1ns' });
  const scn = writeIn(dir, 'cohorts.json', { schema: 'schedlab-scenario/1', name: 'cohorts',
    device: 'tx2', cohorts: true, ops: [op('K0'), op('K1'), op('K2'), op('K3')] });
  const trace = join(dir, 'cohorts.trace.json');
  const sim = cli(['simulate', scn, '-o', trace]);
  assert.equal(sim.code, 0, sim.stderr);
  const simulated = readFileSync(trace, 'utf8');
  const t = JSON.parse(simulated);
  assert.equal(t.blocks.length, 0);
  assert.equal(t.cohorts.reduce((n, c) => n + c.count, 0), 8000000000);
  const imp = cli(['import', trace, '--db', db]);
  assert.equal(imp.code, 0, imp.stderr);
  const ex = cli(['export', imp.stdout.trim(), '--db', db]);
  assert.equal(ex.code, 0, ex.stderr);
  assert.equal(ex.stdout, simulated);
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

// A file that is read but refused (a bad row at its end, an unknown
// --experiment, a format not told from the content) left a database made
// for it, empty, with its -wal and -shm beside it (the database was opened
// first); a file that cannot be read makes none (the test below), and the
// import's transaction leaves nothing in a database there already, so a
// refused import leaves nothing at all: no new database, no -wal or -shm
test('a refused import makes no database and leaves no -wal or -shm beside one', (t) => {
  const csv = realTrace(t, NVPROF_CSV);
  if (!csv) return;
  const late = writeIn(dir, 'late-bad-row.csv', readFileSync(csv, 'utf8') + '1.5,abc,,,,,,,,,,,,,,,,,"x"\n');
  const garbage = writeIn(dir, 'garbage.csv', 'garbage\n');
  const fresh = join(dir, 'refused.db');
  const files = () => ['', '-wal', '-shm'].filter((x) => existsSync(fresh + x));
  for (const args of [[late], [garbage], [csv, '--experiment', 'zzzzzzzzzz']]) {
    const r = cli(['import', ...args, '--db', fresh]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
    assert.deepEqual(files(), [], `${args.join(' ')}: nothing made`);
  }
  assert.match(cli(['import', late, '--db', fresh]).stderr, /late-bad-row\.csv:16: 19 fields, but the header \(line 4\) has 17/);
  const ok = cli(['import', csv, '--db', fresh]);
  assert.equal(ok.code, 0, ok.stderr);
  for (const args of [[late], [garbage], [csv, '--experiment', 'zzzzzzzzzz']]) {
    assert.equal(cli(['import', ...args, '--db', fresh]).code, 2);
    assert.deepEqual(files(), [''], `${args.join(' ')}: the database there, no -wal or -shm`);
  }
  const exp = cli(['export', ok.stdout.trim(), '--db', fresh]);
  assert.equal(exp.code, 0, exp.stderr);
  assert.equal(JSON.parse(exp.stdout).kernels.length, 9);   // the run stored before, whole
});

// --db naming something that is no database (a README, a folder): export
// and replay said "reading PRAGMA user_version: file is not a database" and
// "cannot open the database: disk I/O error", import "file is not a
// database", all exit 1 ("anything else"); a database that does not exist
// is bad input (docs/cli.md "Exit status"), exit 2, and now each says what
// the path is
test('--db naming a folder or a file that is no database exits 2 saying so, the file untouched', () => {
  const readme = join(dir, 'not-a-db.md');
  const text = readFileSync(join(repo, 'README.md'), 'utf8');
  writeFileSync(readme, text);
  const folder = join(dir, 'db-folder');
  mkdirSync(folder, { recursive: true });
  const sweepSpec = writeIn(dir, 'db-typo-spec.json', {
    schema: 'schedlab-sweep/1', name: 'db typo', seed: 1, tasksets: 2, x: { param: 'tasks', values: [4] },
  });
  for (const cmd of [['export', 'zzzzzzzzzz'], ['replay', 'zzzzzzzzzz'], ['import', fixture('nvprof.csv')],
    ['sweep', sweepSpec, '--progress', '0']]) {
    const a = cli([...cmd, '--db', readme]);
    assert.equal(a.code, 2, `${cmd[0]}: ${a.stderr}`);
    assert.equal(a.stderr, `schedlab: ${readme}: not a database: the file does not start with "SQLite format 3" (--db or SCHEDLAB_DB names the database file)\n`);
    const f = cli([...cmd, '--db', folder]);
    assert.equal(f.code, 2, `${cmd[0]}: ${f.stderr}`);
    assert.equal(f.stderr, `schedlab: ${folder}: a folder, not a database file (--db or SCHEDLAB_DB names the database file)\n`);
  }
  assert.equal(readFileSync(readme, 'utf8'), text);
  assert.deepEqual(readdirSync(folder), []);
});

// A folder named as the file: the read fails with EISDIR, which the message
// turned into "Input/output error" (simulate says "Is a directory").
test('import of a folder says it is a folder, exit 2, nothing stored', () => {
  const fresh = join(dir, 'folder.db');
  const r = cli(['import', dir, '--db', fresh]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `schedlab: ${dir}: cannot read: Is a directory\n`);
  assert.equal(existsSync(fresh), false);
});

// "--name ''" named the run nothing (found auditing the CLI); no option
// means anything by an empty value, in either option parser
test('an empty option value is refused, exit 2, nothing made', () => {
  const fresh = join(dir, 'empty-name.db');
  const present = join(dir, 'named.csv');
  writeFileSync(present, 'Start,Duration\nms,ms\n');
  for (const [args, flag] of [[['import', present, '--db', fresh, '--name', ''], '--name'],
    [['import', present, `--db=${fresh}`, '--experiment='], '--experiment'],
    [['sweep', present, '--db', ''], '--db']]) {
    const r = cli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stderr, `schedlab: option ${flag}: the value is empty (leave the option out instead)\n`);
    assert.equal(existsSync(fresh), false);
  }
});

test('import: an unknown --format is named before any file is read, and makes no database', () => {
  const fresh = join(dir, 'format-typo.db');
  const present = join(dir, 'present.csv');
  writeFileSync(present, 'Start,Duration\nms,ms\n');
  // the same answer whether the file exists or not: the option is wrong either way
  for (const file of [present, join(dir, 'absent.csv')]) {
    const r = cli(['import', file, '--db', fresh, '--format', 'nvprof']);
    assert.equal(r.code, 2, file);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^schedlab: --format: unknown format "nvprof" \(formats: [^)]*nvprof-csv[^)]*\)\n$/, file);
    assert.equal(existsSync(fresh), false, file);
  }
});

// schedlab's other documents are JSON objects too, and detection handed them
// to the examiner importer ("no \"times\" array") or, for the Chrome export
// that names schedlab-trace/1 in its otherData, to the trace importer
// ("unknown top-level key \"displayTimeUnit\" (known: schema, …)"): neither
// said what the file is (cli.md: an error names the problem). Found auditing
// the CLI with the shipped scenarios and a run's own exports.
test('import of a scenario, a sweep spec, a fidelity report or a Chrome export says what the file is, exit 2', () => {
  const fresh = join(dir, 'wrong-kind.db');
  const sim = cli(['simulate', FIG3]);
  assert.equal(sim.code, 0, sim.stderr);
  const trace = writeIn(dir, 'fig3.trace.json', sim.stdout);
  const imp = cli(['import', trace, '--db', fresh]);
  assert.equal(imp.code, 0, imp.stderr);
  const chrome = join(dir, 'fig3.chrome.json');
  const ex = cli(['export', imp.stdout.trim(), '--db', fresh, '--format', 'chrome', '-o', chrome]);
  assert.equal(ex.code, 0, ex.stderr);
  const report = join(dir, 'fig3.fidelity.json');
  const rep = cli(['replay', imp.stdout.trim(), '--db', fresh, '-o', join(dir, 'fig3.replay.json'), '--report', report]);
  assert.equal(rep.code, 0, rep.stderr);
  const cases = [
    [FIG3, /: schema: "schedlab-scenario\/1" is a scenario, not a trace: `schedlab simulate` runs it/],
    [join(repo, 'sweeps/gcaps-fig8a-tasks.json'), /: schema: "schedlab-sweep\/1" is a sweep spec, not a trace: `schedlab sweep` runs it/],
    [report, /: schema: "schedlab-fidelity\/1" is not a trace/],
    [chrome, /: a Chrome\/Perfetto trace \("displayTimeUnit"\) as `schedlab export --format chrome` writes it for viewing, not a trace to import/],
  ];
  for (const [file, re] of cases) {
    const r = cli(['import', file, '--db', fresh]);
    assert.equal(r.code, 2, file);
    assert.equal(r.stdout, '', file);
    assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
    assert.ok(r.stderr.startsWith(`schedlab: ${file}: `), r.stderr);
    assert.match(r.stderr, re);
  }
});

// `serve --web DIR` with a DIR that is not there (a typo) started and
// served every page as a JSON 404 ("no web folder: /"), nothing said at
// the start; --web is an option whose value is bad input then (cli.md),
// refused before the database is made. Found auditing `serve`'s options.
test('serve --web naming no dashboard folder exits 2 with one line, no database made', () => {
  const fresh = join(dir, 'web-typo.db');
  const notDir = writeIn(dir, 'web-typo.html', '<!doctype html>');
  const empty = join(dir, 'web-empty');
  mkdirSync(empty);
  for (const [web, msg] of [[join(dir, 'no-such-web'), 'No such file or directory'], [notDir, 'not a folder'],
    [empty, 'no index.html in it (the dashboard\'s folder: web/ of a checkout, PREFIX/share/schedlab/web installed)']]) {
    const r = cli(['serve', '--db', fresh, '--port', '0', '--web', web], { timeout: 10000 });
    assert.equal(r.code, 2, `${web}: ${r.stderr}`);
    assert.equal(r.stderr, `schedlab: --web: ${web}: ${msg}\n`);
    assert.equal(existsSync(fresh), false, web);
  }
});

// `serve --scenarios DIR` with a DIR that is not there (a typo) warned
// and served without the scenarios it was given; a named folder that is
// missing or no folder is bad input, as --web's is, refused before the
// database is made (cli.md; the CLI audit's list). An empty folder is how
// to serve no scenarios.
test('serve --scenarios naming no folder exits 2 with one line, no database made', () => {
  const fresh = join(dir, 'scenarios-typo.db');
  const notDir = writeIn(dir, 'scenarios-typo.json', '{}');
  for (const [scn, msg] of [[join(dir, 'no-such-scenarios'), 'No such file or directory'], [notDir, 'not a folder']]) {
    const r = cli(['serve', '--db', fresh, '--port', '0', '--scenarios', scn], { timeout: 10000 });
    assert.equal(r.code, 2, `${scn}: ${r.stderr}`);
    assert.equal(r.stderr, `schedlab: --scenarios: ${scn}: ${msg}\n`);
    assert.equal(existsSync(fresh), false, scn);
  }
});

// --bind of no address (a typo, or a host name: http_start takes only IPv4
// and IPv6 addresses) was refused only once the database was made and a
// warning printed that the server was "serving on nosuchhost without
// --token", exit 1; a bad option value is bad input, exit 2, one line,
// refused before anything is made (cli.md)
test('serve --bind naming no address exits 2 with one line, no database made', () => {
  const fresh = join(dir, 'bind-typo.db');
  for (const bind of ['1.2.3.4.5', 'localhost', 'nosuchhost', '[::1]']) {
    const r = cli(['serve', '--db', fresh, '--port', '0', '--bind', bind], { timeout: 10000 });
    assert.equal(r.code, 2, `${bind}: ${r.stderr}`);
    assert.equal(r.stderr, `schedlab: --bind: "${bind}" is not an IPv4 or IPv6 address (127.0.0.1 for this machine alone, 0.0.0.0 or :: for every interface)\n`);
    assert.equal(existsSync(fresh), false, bind);
  }
});

// a size under one byte is no size: "--max-upload 0.5" came out 0 bytes,
// which the server takes for "the default" (512MiB), and it served, where
// --answer-memory and --min-body-rate of 0.5 are refused (cli.md: a bad
// option value is bad input)
test('serve: a size option under one byte exits 2 naming it, no database made', () => {
  const fresh = join(dir, 'size-typo.db');
  for (const [flag, what] of [['--max-upload', 'a size such as 512MiB, 2GB or 1000000'],
    ['--answer-memory', 'a size such as 256MiB or 1GiB'], ['--min-body-rate', 'bytes a second such as 1024 or 4KiB']]) {
    for (const v of ['0.5', '0.0001KiB']) {
      const r = cli(['serve', '--db', fresh, '--port', '0', flag, v], { timeout: 10000 });
      assert.equal(r.code, 2, `${flag} ${v}: ${r.stderr}`);
      assert.equal(r.stderr, `schedlab: ${flag}: expected ${what}, got "${v}"\n`);
      assert.equal(existsSync(fresh), false, `${flag} ${v}`);
    }
  }
});

// the numeric options took what strtol/strtod take besides digits: a
// blank, a sign, an exponent or hex ("--port ' 80'", "--threads +2",
// "--max-upload 0x10" = 16 bytes, "--progress 1e1"); an option's value is
// its digits (and a size's unit), else bad input (cli.md)
test('numeric options take digits only: a blank, sign, exponent or hex is bad input', () => {
  const fresh = join(dir, 'numeric-junk.db');
  for (const [flag, v, what] of [['--port', ' 80', 'expected 0..65535'], ['--port', '+80', 'expected 0..65535'],
    ['--port', '80 ', 'expected 0..65535'], ['--header-timeout', ' 5', 'expected 1..3600 seconds'],
    ['--max-per-address', '+5', 'expected 1..448 connections'],
    ['--max-upload', '0x10', 'expected a size such as 512MiB, 2GB or 1000000'],
    ['--max-upload', '1e6', 'expected a size such as 512MiB, 2GB or 1000000'],
    ['--max-upload', ' 5MB', 'expected a size such as 512MiB, 2GB or 1000000'],
    ['--answer-memory', '+1GiB', 'expected a size such as 256MiB or 1GiB']]) {
    // --port 0 but where --port is the option tried (given twice is refused)
    const port = flag === '--port' ? [] : ['--port', '0'];
    const r = cli(['serve', '--db', fresh, ...port, flag, v], { timeout: 10000 });
    assert.equal(r.code, 2, `${flag} '${v}': ${r.stderr}`);
    assert.equal(r.stderr, `schedlab: ${flag}: ${what}, got "${v}"\n`);
    assert.equal(existsSync(fresh), false);
  }
  const spec = writeIn(dir, 'numeric-spec.json', {
    schema: 'schedlab-sweep/1', name: 'numeric', seed: 1, tasksets: 2, x: { param: 'tasks', values: [4] },
  });
  for (const [flag, v, what] of [['--threads', '+2', 'expected 1..256'], ['--threads', ' 2', 'expected 1..256'],
    ['--progress', '1e1', 'expected the seconds between reports, 0..86400 (0: none)'],
    ['--progress', '0x10', 'expected the seconds between reports, 0..86400 (0: none)'],
    ['--progress', ' 5', 'expected the seconds between reports, 0..86400 (0: none)']]) {
    const r = cli(['sweep', spec, '--shard', '0/1', flag, v]);
    assert.equal(r.code, 2, `${flag} '${v}': ${r.stderr}`);
    assert.equal(r.stderr, `schedlab: ${flag}: ${what}, got "${v}"\n`);
  }
  // what the options documented take still goes
  const ok = cli(['sweep', spec, '--shard', '0/1', '--threads', '2', '--progress', '0.5']);
  assert.equal(ok.code, 0, ok.stderr);
  // a line every 0.0001 s flooded stderr: the interval has a floor, 0.05 s
  // (docs/cli.md), and 0 still means none
  for (const v of ['0.0001', '0.04', '0.049']) {
    const r = cli(['sweep', spec, '--shard', '0/1', '--progress', v]);
    assert.equal(r.code, 2, `--progress ${v}: ${r.stderr}`);
    assert.equal(r.stderr, `schedlab: --progress: must be at least 0.05 seconds (0: none), got "${v}"\n`);
  }
  for (const v of ['0.05', '0']) {
    const r = cli(['sweep', spec, '--shard', '0/1', '--progress', v]);
    assert.equal(r.code, 0, `--progress ${v}: ${r.stderr}`);
  }
});

// an option given twice took its last value, saying nothing ("--db a.db
// --db b.db" used b.db); every option takes one value (docs/cli.md), so
// the second is bad input naming the option, for every command's every
// option, before anything is read or made (the CLI audit's list)
test('an option given twice is bad input naming it, for every option of every command', () => {
  const fresh = join(dir, 'twice.db');
  const spec = writeIn(dir, 'twice-spec.json', {
    schema: 'schedlab-sweep/1', name: 'twice', seed: 1, tasksets: 2, x: { param: 'tasks', values: [4] },
  });
  const commands = {
    simulate: [[FIG3], ['-o', '--variant']],
    import: [[spec], ['--format', '--db', '--name', '--experiment']],
    export: [['run'], ['--db', '--format', '-o']],
    replay: [['run'], ['--db', '-o', '--device', '--report']],
    serve: [[], ['--db', '--port', '--bind', '--web', '--scenarios', '--token', '--max-upload', '--allow-host',
      '--budget', '--token-file', '--read-token', '--answer-memory', '--header-timeout', '--min-body-rate',
      '--max-per-address']],
    sweep: [[spec], ['--shard', '--db', '-o', '--threads', '--progress']],
    merge: [[spec], ['--db', '-o']],
  };
  for (const [cmd, [pos, flags]] of Object.entries(commands)) {
    for (const flag of flags) {
      const hint = flag === '--allow-host' ? '; give the names comma-separated: --allow-host NAME,NAME'
        : flag === '--budget' ? '; give the keys comma-separated: --budget KEY=N,KEY=N' : '';
      for (const args of [[flag, 'x1', flag, 'x2'], [`${flag}=x1`, flag, 'x2']]) {
        const db1 = cmd === 'simulate' || flag === '--db' ? [] : ['--db', fresh];
        const r = cli([cmd, ...pos, ...db1, ...args], { timeout: 10000 });
        assert.equal(r.code, 2, `${cmd} ${args.join(' ')}: ${r.stderr}`);
        assert.equal(r.stderr, `schedlab: option ${flag} given twice (it takes one value)${hint}\n`, `${cmd} ${args.join(' ')}`);
      }
    }
    assert.equal(existsSync(fresh), false, cmd);
  }
  // -o and --output are one option
  const r = cli(['export', 'run', '--db', fresh, '-o', join(dir, 'a.json'), '--output', join(dir, 'b.json')]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, 'schedlab: option --output given twice (as -o, then --output; it takes one value)\n');
  const m = cli(['merge', spec, '--output=-', '-o', '-']);
  assert.equal(m.code, 2, m.stderr);
  assert.equal(m.stderr, 'schedlab: option -o given twice (as --output, then -o; it takes one value)\n');
});

// --token-file naming a folder said "the first line is empty; put the
// token on it", after a warning that other users can read it: two lines,
// the second wrong; a file refused is one line saying why (cli.md), the
// warning is for a token read from a file others can read
test('serve --token-file of a folder or an empty file: one line saying why, exit 2', () => {
  const fresh = join(dir, 'token-file.db');
  const folder = join(dir, 'token-folder');
  mkdirSync(folder, { recursive: true });
  const empty = writeIn(dir, 'empty-token', '');
  for (const [file, why] of [[folder, 'a folder, not a file'], [empty, 'the first line is empty; put the token on it']]) {
    const r = cli(['serve', '--db', fresh, '--port', '0', '--token-file', file], { timeout: 10000 });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `schedlab: --token-file: ${file}: ${why}\n`);
    assert.equal(existsSync(fresh), false);
  }
});

// --allow-host is compared with the Host header's name without its port
// (http.c host_allowed), so "gpu-lab:8080" or "http://gpu-lab" never
// matched: the server started and answered every request by that name 421;
// and "," or "a,,b" were taken with their empty names dropped
test('serve --allow-host of no host name (a port, a scheme, an empty name) exits 2 naming it', () => {
  const fresh = join(dir, 'allow-host.db');
  const notName = (h) => `"${h}" is not a host name (the name alone, as gpu-lab.example.org: no scheme, port or path)`;
  for (const [hosts, why] of [['gpu-lab:8080', notName('gpu-lab:8080')], ['http://gpu-lab.example.org', notName('http://gpu-lab.example.org')],
    ['lab.example,gpu lab', notName('gpu lab')], [',', 'an empty name in ","'], ['a,,b', 'an empty name in "a,,b"']]) {
    const r = cli(['serve', '--db', fresh, '--port', '0', '--allow-host', hosts], { timeout: 10000 });
    assert.equal(r.code, 2, `${hosts}: ${r.stderr}`);
    assert.equal(r.stderr, `schedlab: --allow-host: ${why}\n`);
    assert.equal(existsSync(fresh), false);
  }
});

// --store is a flag (cli.md: `replay RUN … [--store]`); "--store=yes" was
// refused as "unknown option --store", an option replay --help lists
test('replay --store=VALUE says the flag takes no value, exit 2', () => {
  const r = cli(['replay', 'zzzzzzzzzz', '--db', join(dir, 'absent.db'), '--store=yes']);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, 'schedlab: option --store takes no value, got "yes"\n');
  assert.equal(cli(['simulate', FIG3, '--store']).stderr, 'schedlab: unknown option --store (see --help)\n');
});

// `replay --report FILE` that cannot be written said "FILE: cannot write
// the report", not why, where -o says "cannot write: No such file or
// directory" (cli.md: the error names the problem; exit 1, not bad input).
test('replay --report into a missing folder names the reason, exit 1', () => {
  const fresh = join(dir, 'report.db');
  const sim = cli(['simulate', FIG3]);
  assert.equal(sim.code, 0, sim.stderr);
  const imp = cli(['import', writeIn(dir, 'report.trace.json', sim.stdout), '--db', fresh]);
  assert.equal(imp.code, 0, imp.stderr);
  const report = join(dir, 'no-such-folder', 'r.json');
  const r = cli(['replay', imp.stdout.trim(), '--db', fresh, '-o', join(dir, 'report.replay.json'), '--report', report]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.trim().split('\n').pop(), `schedlab: ${report}: cannot write: No such file or directory`);
});

// `replay --device PRESET --report FILE` of a run the preset cannot run (a
// 64 KB block on the TX2's 48 KB) said "no fidelity report: …" and exited 0
// with no FILE, where the same replay of a several-GPU run, and with
// --store, exit 2 (cli.md: a scenario that does not validate is bad input).
test('replay --report of a replay that does not simulate on the device exits 2, writing nothing', () => {
  const fresh = join(dir, 'nosim.db');
  const scn = writeIn(dir, 'big-smem.json', {
    schema: 'schedlab-scenario/1', name: 'big smem', device: 'h100', streams: [{ name: 'S1' }],
    ops: [{ kernel: 'K1', stream: 'S1', blocks: 4, threads: 256, smem: 65536, block_time: '1ms' }],
  });
  const sim = cli(['simulate', scn]);
  assert.equal(sim.code, 0, sim.stderr);
  const imp = cli(['import', writeIn(dir, 'big-smem.trace.json', sim.stdout), '--db', fresh]);
  assert.equal(imp.code, 0, imp.stderr);
  const report = join(dir, 'nosim-report.json');
  const out = join(dir, 'nosim-replay.json');
  const r = cli(['replay', imp.stdout.trim(), '--db', fresh, '--device', 'tx2', '--report', report, '-o', out]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trim().split('\n').pop(), `schedlab: ${report}: no fidelity report: the replay does not simulate: `
    + 'replay: ops[0].smem: a block needs 64KB but the device allows 48KB per block (max_smem_per_block)'
    + ' (ops[0]: kernel "K1" on stream "S1")');
  assert.equal(existsSync(report), false);
  assert.equal(existsSync(out), false);
});

// cuda_scheduling_examiner results of March 2017 have no block_smids
// (../shared/docs/examiner-json-format.md §1.4; the importer reads "every
// version", docs/trace-format.md), and their blocks came out of the parse
// with SM -1, which the check before storing refuses ("blocks[0].sm: -1 is
// out of range"): no such file imported. Now the kernel keeps its times and
// block count, the blocks are left out and the warning says so.
test('import of an early examiner result without block_smids stores the kernel and warns', () => {
  const fresh = join(dir, 'early.db');
  const early = writeIn(dir, 'early-examiner.json', '{"benchmark_name": "Timer Spin", "thread_count": 256, '
    + '"block_count": 2, "data_size": 0, "PID": 77, "TID": 78, "times": [{}, {"kernel times": [10.000100, 10.000900], '
    + '"block times": [10.000100, 10.000500, 10.000200, 10.000900]}]}');
  const r = cli(['import', early, '--db', fresh]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, `schedlab: warning: ${early}: times[1]: no "block_smids" (the result format before 2017-03-23), `
    + 'so the blocks\' SMs are unknown: 1 kernel kept with its start, end and block count, without block records\n');
  const t = JSON.parse(cli(['export', r.stdout.trim(), '--db', fresh]).stdout);
  assert.deepEqual(t.kernels.map((k) => [k.name, k.blocks, k.threads, k.first_block, k.end]), [['Timer Spin', 2, 256, 0, 800000]]);
  assert.deepEqual(t.blocks, []);
});

// A kernel that ends before it starts was stored: an examiner result's
// kernel_times [1.2, 1.1] (exit 0, the kernel's end 100 ms before its start;
// the run's summary left it out, a replay missed it by 100 %), and a
// schedlab-trace/1 kernel whose end is before its first_block, where a
// block's is refused (docs/trace-format.md). Now both are bad input naming
// the place.
test('import refuses a kernel that ends before it starts, naming the place, exit 2', () => {
  const fresh = join(dir, 'backwards.db');
  const ex = writeIn(dir, 'backwards-examiner.json', '{"times": [{}, {"kernel_times": [1.2, 1.1]}]}');
  const r = cli(['import', ex, '--db', fresh]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, `schedlab: ${ex}: times[1].kernel_times: the kernel ends before it starts\n`);
  const t = JSON.parse(cli(['simulate', FIG3]).stdout);
  t.blocks = t.blocks.filter((b) => b.kernel !== 0);
  t.kernels[0].end = t.kernels[0].first_block - 5;
  const tr = writeIn(dir, 'backwards.trace.json', t);
  const r2 = cli(['import', tr, '--db', fresh]);
  assert.equal(r2.code, 2, r2.stderr);
  assert.equal(r2.stderr, `schedlab: ${tr}: kernels[0].end: ${t.kernels[0].end} ns is before its first_block (${t.kernels[0].first_block} ns)\n`);
  const c = JSON.parse(cli(['simulate', FIG3]).stdout);
  c.copies[0].end = c.copies[0].start - 7;
  const trc = writeIn(dir, 'backwards-copy.trace.json', c);
  const r3 = cli(['import', trc, '--db', fresh]);
  assert.equal(r3.code, 2, r3.stderr);
  assert.equal(r3.stderr, `schedlab: ${trc}: copies[0].end: ${c.copies[0].end} ns is before its start (${c.copies[0].start} ns)\n`);
});

// `import --experiment SLUG` naming a simulated experiment (a stored replay)
// or a sweep's exited 1, "anything else" (cli.md), for what is a wrong slug
// as an unknown one is (exit 2; the API answers 409), and called a sweep's
// experiment "the runs of a scenario".
test('import --experiment of a replay or a sweep experiment is bad input naming the flag, exit 2', () => {
  const fresh = join(dir, 'target.db');
  const sim = cli(['simulate', FIG3]);
  const trace = writeIn(dir, 'target.trace.json', sim.stdout);
  const imp = cli(['import', trace, '--db', fresh]);
  assert.equal(imp.code, 0, imp.stderr);
  const rep = cli(['replay', imp.stdout.trim(), '--db', fresh, '--store', '-o', join(dir, 'target.replay.json')]);
  assert.equal(rep.code, 0, rep.stderr);
  const replayed = /stored the replay as experiment ([a-z0-9]{10})/.exec(rep.stderr)[1];
  const spec = writeIn(dir, 'target-sweep.json', { schema: 'schedlab-sweep/1', name: 'tiny', seed: 1, tasksets: 4, x: { param: 'tasks', values: [4] } });
  const sw = cli(['sweep', spec, '--db', fresh]);
  assert.equal(sw.code, 0, sw.stderr);
  const swept = sw.stdout.trim();
  for (const [slug, holds] of [[replayed, 'the runs of a scenario'], [swept, 'a sweep\'s results']]) {
    const r = cli(['import', trace, '--db', fresh, '--experiment', slug]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `schedlab: --experiment: "${slug}" holds ${holds}; imports may only add to experiments made by imports\n`);
  }
});

// `replay --device PRESET` of a run the preset cannot run, without
// --report: one GPU said "no fidelity report: …", wrote the scenario (which
// `schedlab simulate` then refuses, exit 2) and exited 0, while a run of
// several GPUs exited 2 with nothing written. docs/cli.md "Exit status": a
// scenario that does not validate is bad input, exit 2 with one line naming
// the place; both paths now refuse it so, writing nothing.
function bigSmemRuns() {
  const db = join(dir, 'nosim-noreport.db');
  rmSync(db, { force: true });
  const files = bigSmemTraces(dir);
  const one = cli(['import', files.one, '--db', db]);
  assert.equal(one.code, 0, one.stderr);
  const two = cli(['import', files.two, '--db', db]);
  assert.equal(two.code, 0, two.stderr);
  return { db, one: one.stdout.trim(), two: two.stdout.trim() };
}

const smemLine = BIG_SMEM_LINE;

test('replay --device of a one-GPU run the preset cannot run exits 2, writing nothing', () => {
  const { db, one } = bigSmemRuns();
  const out = join(dir, 'nosim-one.json');
  rmSync(out, { force: true });
  const r = cli(['replay', one, '--db', db, '--device', 'tx2', '-o', out]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trim().split('\n').pop(), `schedlab: run ${one}: does not simulate: ${smemLine}`);
  assert.equal(existsSync(out), false);
  const piped = cli(['replay', one, '--db', db, '--device', 'tx2']);
  assert.equal(piped.code, 2);
  assert.equal(piped.stdout, '');
});

test('replay --device of a several-GPU run the preset cannot run exits 2, writing nothing', () => {
  const { db, two } = bigSmemRuns();
  const out = join(dir, 'nosim-two.json');
  rmSync(out, { force: true });
  const r = cli(['replay', two, '--db', db, '--device', 'tx2', '-o', out]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trim().split('\n').pop(), `schedlab: run ${two}, gpu0: does not simulate: ${smemLine}`);
  assert.equal(existsSync(out), false);
});

// the real traces of the audit: the nvFuser H100 run on the V100 preset (a
// 213,180-byte block, 96 KB an SM) and the blinkplus 8xV100 NCCL run on the
// TX2 preset (a 544 x 96-register block, 32,768 per block)
test('replay --device of the real H100 and 8xV100 traces on presets they do not fit exits 2, writing nothing', (t) => {
  const fuser = realTrace(t, 'nsys2024.6_export_fuser_h100_report2.sqlite');
  const blink = fuser && realTrace(t, 'nvprof_export_v16_blinkplus_8xv100_nccl_output.nvvp');
  if (!blink) return;
  const db = join(dir, 'nosim-real.db');
  rmSync(db, { force: true });
  for (const [path, device, what] of [[fuser, 'v100', /^schedlab: run [a-z0-9]{10}: does not simulate: replay: ops\[\d+\]\.smem: /],
    [blink, 'tx2', /^schedlab: run [a-z0-9]{10}, gpu0: does not simulate: replay: ops\[\d+\]\.regs: /]]) {
    const imp = cli(['import', path, '--db', db]);
    assert.equal(imp.code, 0, imp.stderr);
    const out = join(dir, `nosim-real-${device}.json`);
    const r = cli(['replay', imp.stdout.trim(), '--db', db, '--device', device, '-o', out]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr.trim().split('\n').pop(), what);
    assert.equal(existsSync(out), false);
  }
});

// `cat x.csv | schedlab import -` named the run, its experiment and its
// trace "-" ("Imported from - (globaltimer-csv)"); docs/cli.md: --name
// defaults to the file name, and stdin's is "stdin", as an upload without
// a name is "upload" (docs/api.md, writes.c).
test('import - names the run, its experiment and an error\'s place "stdin"; --name still wins', () => {
  const fresh = join(dir, 'stdin.db');
  rmSync(fresh, { force: true });
  const csv = 'kernel,block,sm,start_ns,end_ns,stream,threads\nK1,0,0,1000,2000,s1,256\n';
  const r = cli(['import', '-', '--db', fresh], { input: csv });
  assert.equal(r.code, 0, r.stderr);
  const run = r.stdout.trim();
  const sql = (q) => spawnSync('sqlite3', [fresh, q], { encoding: 'utf8' }).stdout.trim();
  assert.equal(sql(`SELECT runs.name || '|' || experiments.name || '|' || experiments.description FROM runs JOIN experiments ON experiments.id = runs.experiment WHERE runs.slug = '${run}'`),
    'stdin|stdin|Imported from stdin (globaltimer-csv)');
  const t = JSON.parse(cli(['export', run, '--db', fresh]).stdout);
  assert.equal(t.name, 'stdin');
  const named = cli(['import', '-', '--db', fresh, '--name', 'mine'], { input: csv });
  assert.equal(named.code, 0, named.stderr);
  assert.equal(sql(`SELECT name FROM runs WHERE slug = '${named.stdout.trim()}'`), 'mine');
  const bad = cli(['import', '-', '--db', fresh], { input: csv.replace('K1,0,0,', 'K1,0,x,') });
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'schedlab: stdin:2: column "sm": expected an integer in [0, 1023], got "x"\n');
});
