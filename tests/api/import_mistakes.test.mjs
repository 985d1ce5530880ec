// import_mistakes.test.mjs -- POST /api/imports with the files people get
// wrong (docs/api.md "Imports": 400 {"error"} naming the file and the
// problem; nothing stored). The importers' own tests (test_imp_*.c) cover
// each message; this checks that the upload, named as the dashboard names
// it (?name=FILE), answers it and stores nothing.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';

import { cli, fixture, tempDir } from './server.mjs';
import { RAW, json, serve } from './serve_opts.mjs';

let srv;
before(async () => { srv = await serve(); });
after(async () => { assert.equal(await srv.stop(), 0); });

const post = (q, body) => json(`${srv.base}/api/imports?${q}`, { method: 'POST', body, headers: RAW });
const counts = async () => {
  const r = await json(`${srv.base}/api/experiments`);
  return { exps: r.body.experiments.length, runs: r.body.experiments.reduce((n, e) => n + e.runs.length, 0) };
};

// An empty file sent from the dashboard (it names every file it sends) was
// "import: the request body is empty; send the trace file as the body", as
// if the request had been sent without its body; `schedlab import` says
// "run.csv: the file is empty (0 bytes): nothing to import". Now the named
// upload says so too; an unnamed empty request keeps its words.
test('an empty file named by the upload is named as empty; an unnamed empty body keeps its message', async () => {
  const before = await counts();
  const named = await post('name=run.csv', Buffer.alloc(0));
  assert.equal(named.status, 400);
  assert.deepEqual(named.body, { error: 'run.csv: the file is empty (0 bytes): nothing to import' });
  const typed = await post('name=run.csv&format=nvprof-csv', Buffer.alloc(0));
  assert.deepEqual(typed.body, { error: 'run.csv: the file is empty (0 bytes): nothing to import' });
  const bare = await post('', Buffer.alloc(0));
  assert.equal(bare.status, 400);
  assert.deepEqual(bare.body, { error: 'import: the request body is empty; send the trace file as the body' });
  assert.deepEqual(await counts(), before);
});

// The other mistakes, end to end: each a 400 naming the file, nothing stored.
test('a gzipped CSV, a .nsys-rep and a cut SQLite export: 400 naming the file, nothing stored', async () => {
  const before = await counts();
  const csv = readFileSync(fixture('nvprof.csv'));
  const gz = await post('name=run.csv.gz&format=nvprof-csv', gzipSync(csv));
  assert.equal(gz.status, 400);
  assert.equal(gz.body.error, 'run.csv.gz: a gzip-compressed nvprof-csv file; gunzip it first (only PyTorch traces are read compressed)');
  const rep = await post('name=report1.nsys-rep', Buffer.from('\x01\x02Nsight\'s own bytes, not SQLite'));
  assert.equal(rep.status, 400);
  assert.equal(rep.body.error, 'report1.nsys-rep: an Nsight Systems report, which only Nsight reads; export it (nsys export --type sqlite report1.nsys-rep) and import the .sqlite file');
  const sql = readFileSync(fixture('nsys.sqlite'));
  const cut = await post('name=report.sqlite', sql.subarray(0, sql.length / 2));
  assert.equal(cut.status, 400);
  assert.match(cut.body.error, /^report\.sqlite: the SQLite database is cut short: its header says \d+ pages of \d+ bytes \(\d+ bytes\), the file has \d+ \(a copy or download that did not finish\?\)$/);
  assert.deepEqual(await counts(), before);
  // and the file itself, whole, imports (its two kernels, make_fixtures.sh)
  const ok = await post('name=run.csv', csv);
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  const run = await json(`${srv.base}/api/runs/${ok.body.run}/summary`);
  assert.equal(run.body.kernels.reduce((n, k) => n + k.count, 0), 2);
  // docs/api.md (summary): "`share` is of the sum of all kernel durations";
  // "Shares are `null` where the whole is 0, the launch delay's numbers
  // `null` when no kernel has an issue time": this file has no NCCL kernel
  // and no launch call
  const sum = run.body;
  for (const k of sum.kernels) assert.ok(Math.abs(k.share - k.total_ns / sum.kernel_time_ns) < 1e-9, `${k.name}: share ${k.share}`);
  assert.deepEqual(sum.communication, { total_ns: 0, overlapped_ns: 0, overlap_share: null });
  assert.ok(sum.devices.length > 0 && sum.devices.every((d) => d.communication_ns === 0 && d.communication_overlap_share === null));
  assert.deepEqual(sum.launch_delay, { count: 0, min_ns: null, p50_ns: null, p95_ns: null, p99_ns: null, max_ns: null, mean_ns: null });
  // and no blocks, so no pyramid levels (docs/api.md: "`z0`/`ztop` are null
  // for a run without blocks")
  const tiles = (await json(`${srv.base}/api/runs/${ok.body.run}/tiles`)).body;
  assert.equal(tiles.blocks, 0);
  assert.equal(tiles.z0, null);
  assert.equal(tiles.ztop, null);
});

// A job's rank file and an nvprof log in one `schedlab import`: the command
// line detects the format before the importer runs (store.c), so the words
// cannot depend on how it was chosen; 8014bcb said "not pytorch as named"
// of a format detected. Nothing is stored, and no database is made.
test('schedlab import of a rank file and a CSV names the CSV and its format, stores nothing', () => {
  const dir = tempDir('mixed');
  const db = `${dir}/runs.db`;
  for (const extra of [[], ['--format', 'pytorch']]) {
    const r = cli(['import', fixture('pytorch_2x.json'), fixture('nvprof.csv'), '--db', db, ...extra]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `schedlab: ${fixture('nvprof.csv')}: format nvprof-csv, not pytorch; the files of one run are of one format: import it on its own\n`);
  }
  assert.equal(cli(['export', 'x', '--db', db]).code, 2, 'no database was made');
});

// An xz or bzip2 file named as pytorch: pytorch reads a trace, plain or
// gzip-compressed, or a zip or tar of a job's rank files (docs/pytorch.md),
// so it takes the stream for a compressed tar; with no tar inside it said
// "not a tar or zip of result files; unxz it first (only PyTorch traces are
// read compressed)", an examiner archive's words, and of an xz'd PyTorch
// trace "import it as format pytorch", the format it was named as. Now
// what pytorch reads, and the unpacking to do; nothing stored.
test('schedlab import of an xz or bzip2 file as pytorch says what pytorch reads and what to unpack', () => {
  const dir = tempDir('ptxz');
  const db = `${dir}/runs.db`;
  const packed = (src, tool, ext) => {
    const r = spawnSync(tool, ['-c', fixture(src)], { maxBuffer: 64 << 20 });
    assert.equal(r.status, 0, String(r.stderr));
    const out = `${dir}/${src}.${ext}`;
    writeFileSync(out, r.stdout);
    return out;
  };
  const cases = [
    [packed('nvprof.csv', 'xz', 'xz'), (f) => `${f}: an xz-compressed nvprof-csv file, not a PyTorch trace or a zip or tar of rank files; unxz it first and import it as format nvprof-csv`],
    [packed('nvprof.csv', 'bzip2', 'bz2'), (f) => `${f}: a bzip2-compressed nvprof-csv file, not a PyTorch trace or a zip or tar of rank files; bunzip2 it first and import it as format nvprof-csv`],
    [packed('pytorch_2x.json', 'xz', 'xz'), (f) => `${f}: an xz-compressed PyTorch profiler trace; pytorch reads a trace plain or gzip-compressed: unxz it first`],
  ];
  for (const [f, want] of cases) {
    const r = cli(['import', f, '--format', 'pytorch', '--db', db]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `schedlab: ${want(f)}\n`);
  }
  assert.equal(cli(['export', 'x', '--db', db]).code, 2, 'no database was made');
});

// A name is a file's name, shown on the dashboard and in every message: a
// control character in ?name=, ?experiment= or ?format= (below 0x20, or
// DEL, 0x7f) is 400 naming the field (docs/api.md, Imports), before the
// body is read for anything.
test('a control character (DEL among them) in name, experiment or format: 400 naming the field, nothing stored', async () => {
  const before = await counts();
  const csv = readFileSync(fixture('nvprof.csv'));
  for (const [q, field] of [['name=run%7F.csv', 'name'], ['name=run%1B.csv', 'name'],
    ['experiment=x%7Fy', 'experiment'], ['format=nvprof-csv%7F', 'format'], ['format=nvprof%09csv', 'format']]) {
    const r = await post(q, csv);
    assert.equal(r.status, 400, `${q}: ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body, { error: `${field}: control characters are not allowed in names` }, q);
  }
  assert.deepEqual(await counts(), before);
});

// The format answered is the one read (docs/api.md: "the format read, as
// named or detected"): an nvprof log whose table comes after 64 KB of the
// application's own output is not recognised from its content (detect.c
// looks at the first 200 lines and 64 KB), so it is imported only as
// named, and the answer names it so.
test('an nvprof log behind 64 KB of application output: unknown unnamed, and as named the answer says nvprof-csv', async () => {
  const log = Buffer.concat([Buffer.from(Array.from({ length: 5000 }, (_, i) => `app output line ${i + 1}\n`).join('')),
    readFileSync(fixture('nvprof.csv'))]);
  assert.ok(log.length > 65536);
  const unnamed = await post('name=app.log', log);
  assert.equal(unnamed.status, 400);
  assert.match(unnamed.body.error, /^app\.log: cannot tell the format from the content; name it \(/);
  const named = await post('name=app.log&format=nvprof-csv', log);
  assert.equal(named.status, 201, JSON.stringify(named.body));
  assert.equal(named.body.format, 'nvprof-csv');
});
