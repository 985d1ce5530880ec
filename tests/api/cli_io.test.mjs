// cli_io.test.mjs -- what the command line writes, and what it leaves behind
// when it fails (docs/cli.md "Exit status and errors": 0 success, 2 bad
// input with one line on stderr, 1 anything else; bad input never leaves
// half a result behind).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, closeSync, existsSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';

import { bin, cli, fixture, repo, tempDir, writeIn } from './server.mjs';

const CASE_STUDY = join(repo, 'scenarios/gcaps-case-study.json');

let dir;
before(() => { dir = tempDir('cli-io'); });

// stdout on a full disk: every command whose answer is its stdout (rta's
// analysis, import's run id, --version, --help) exited 0 with nothing
// written; the answer is the command's result, so losing it is a failure
// named as a failed -o is ("stdout: write failed: ...", exit 1)
test('an answer that cannot be written to stdout exits 1 naming stdout', { skip: !existsSync('/dev/full') && 'no /dev/full' }, () => {
  const full = openSync('/dev/full', 'w');
  try {
    for (const args of [['rta', CASE_STUDY], ['--version'], ['rta', '--help'], ['simulate', '--help'],
      ['import', fixture('nvprof.csv'), '--db', join(dir, 'full.db')]]) {
      const r = cli(args, { stdio: ['ignore', full, 'pipe'] });
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.split('\n').filter(Boolean).pop(),
        'schedlab: stdout: write failed: No space left on device', args.join(' '));
    }
  } finally {
    closeSync(full);
  }
  // a reader that stops early is not a failure of ours: the same answers to a pipe
  const ok = cli(['rta', CASE_STUDY]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).schema, 'schedlab-rta/1');
});

// A scenario whose trace is large (a kernel of `blocks` blocks of 1 us on
// the V100 preset: about 67 bytes of text a block).
function bigScenario(blocks) {
  return writeIn(dir, `big-${blocks}.json`, {
    schema: 'schedlab-scenario/1', name: 'big', device: 'v100', streams: [{ name: 'S1' }],
    ops: [{ kernel: 'K', stream: 'S1', at: 0, blocks, threads: 128, block_time: '1us' }],
  });
}

const unshareProbe = spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt'], { encoding: 'utf8' });
const noTmpfs = (process.getuid?.() !== 0 || unshareProbe.status !== 0) &&
  'needs root and a private mount namespace (unshare -m) to mount a small tmpfs';

// docs/cli.md: "a failed write names it (out.json: write failed: No space
// left on device, exit 1)" -- and it left the first megabyte of the trace
// as out.json, a file that reads as a truncated trace; a file of that name
// already there was truncated too. Now it is written beside it and put in
// place once whole (server/cli/cli_out.h).
test('-o on a full disk: exit 1 naming the file, no part of it left, an older file kept', { skip: noTmpfs }, () => {
  const scn = bigScenario(200000);   // about 13 MB of text onto 1 MiB
  const mnt = join(dir, 'full-mnt');
  mkdirSync(mnt, { recursive: true });
  const script = `set -e; mount -t tmpfs -o size=1m tmpfs "${mnt}"; printf old > "${mnt}/kept.json"
"${bin}" simulate "${scn}" -o "${mnt}/new.json" 2>"${dir}/err1" && echo rc=0 || echo "rc=$?"
"${bin}" simulate "${scn}" -o "${mnt}/kept.json" 2>"${dir}/err2" && echo rc=0 || echo "rc=$?"
cat "${dir}/err1" "${dir}/err2"; ls -A "${mnt}"; cat "${mnt}/kept.json"`;
  const r = spawnSync('unshare', ['-m', 'sh', '-c', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), [
    'rc=1', 'rc=1',
    `schedlab: ${mnt}/new.json: write failed: No space left on device`,
    `schedlab: ${mnt}/kept.json: write failed: No space left on device`,
    'kept.json',   // only the older file: no new.json, no temporary file
    'old',
  ]);
});

// Ctrl-C while the trace is being written left the part written so far as
// TRACE.json (65 MB of a 2 GB trace, cut mid-line); now nothing is left,
// and the process still ends by the signal, as the shell expects of Ctrl-C
test('SIGINT or SIGTERM during simulate -o leaves no file behind', async () => {
  const scn = bigScenario(6000000);   // about 400 MB of text: long enough to be stopped mid-write
  for (const sig of ['SIGINT', 'SIGTERM']) {
    const out = join(dir, `stopped-${sig}`);
    mkdirSync(out);
    const child = spawn(bin, ['simulate', scn, '-o', join(out, 'trace.json')], { stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = once(child, 'exit');
    // the file (or its temporary) appears once the simulation is done and writing starts
    for (const deadline = Date.now() + 60000; readdirSync(out).length === 0;) {
      assert.ok(Date.now() < deadline, 'the output never appeared');
      await new Promise((ok) => setTimeout(ok, 2));
    }
    child.kill(sig);
    const [code, signal] = await exited;
    assert.equal(signal, sig, `ended by ${sig} while writing (code ${code})`);
    assert.deepEqual(readdirSync(out), [], `${sig}: nothing left in the folder`);
  }
});

// "-" is the standard stream on both sides: an input "-" is stdin, named
// "stdin" in its errors as `import -` names it (simulate, rta and sweep
// said "-:2:1"), and "-o -" is stdout (it made a file named "-").
test('stdin is named "stdin" in every command\'s errors, and -o - writes to stdout', () => {
  const dir = tempDir('cli-dash');
  for (const [cmd, want] of [['simulate', "schedlab: stdin:2:1: JSON: '}' expected near end of file"],
    ['rta', "schedlab: stdin:2:1: JSON: '}' expected near end of file"],
    ['sweep', "schedlab: stdin:2:1: JSON: '}' expected near end of file"]]) {
    const r = cli([cmd, '-'], { input: '{"schema": 1\n', cwd: dir });
    assert.equal(r.code, 2, `${cmd}: ${r.stderr}`);
    assert.equal(r.stderr.trim(), want, cmd);
  }
  const scn = join(repo, 'scenarios/tx2-fig3-basic-rules.json');
  const plain = cli(['simulate', scn], { cwd: dir });
  const dash = cli(['simulate', scn, '-o', '-'], { cwd: dir });
  assert.equal(dash.code, 0, dash.stderr);
  assert.equal(dash.stdout, plain.stdout);
  assert.equal(JSON.parse(dash.stdout).schema, 'schedlab-trace/1');
  assert.deepEqual(readdirSync(dir), [], 'no file named "-"');
});

// "--report -" made a file named "-" (3b864fa made "-o -" stdout, not
// --report); it is stdout now, as "-o -" is, and where stdout already
// carries the command's answer (replay's scenario without -o FILE; the
// slug sweep and merge print, against "-o -", whose result was dropped
// without a word) the second use is refused, exit 2, nothing written
test('--report - writes the report to stdout; a second answer for stdout is refused', () => {
  const dir = tempDir('cli-report-dash');
  const db = join(dir, 'r.db');
  const trace = join(dir, 'fig3.trace.json');
  assert.equal(cli(['simulate', join(repo, 'scenarios/tx2-fig3-basic-rules.json'), '-o', trace]).code, 0);
  const imp = cli(['import', trace, '--db', db]);
  assert.equal(imp.code, 0, imp.stderr);
  const run = imp.stdout.trim();
  const file = join(dir, 'report.json');
  const toFile = cli(['replay', run, '--db', db, '-o', join(dir, 'a.json'), '--report', file], { cwd: dir });
  assert.equal(toFile.code, 0, toFile.stderr);
  const dash = cli(['replay', run, '--db', db, '-o', join(dir, 'b.json'), '--report', '-'], { cwd: dir });
  assert.equal(dash.code, 0, dash.stderr);
  assert.equal(dash.stdout, readFileSync(file, 'utf8'));
  assert.equal(JSON.parse(dash.stdout).schema, 'schedlab-fidelity/1');
  for (const args of [['--report', '-'], ['--report', '-', '-o', '-'], ['--report=-']]) {
    const r = cli(['replay', run, '--db', db, ...args], { cwd: dir });
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'schedlab: --report -: the report and the scenario would both go to stdout '
      + '(give -o SCENARIO.json, or --report REPORT.json)\n');
  }
  const spec = writeIn(dir, 'spec.json', {
    schema: 'schedlab-sweep/1', name: 'dash', seed: 1, tasksets: 2, x: { param: 'tasks', values: [4] },
  });
  const shard = cli(['sweep', spec, '--shard', '0/1', '--progress', '0', '-o', '-'], { cwd: dir });
  assert.equal(shard.code, 0, shard.stderr);
  assert.equal(JSON.parse(shard.stdout).schema, 'schedlab-sweep-result/1');
  const shardFile = writeIn(dir, 'shard.json', shard.stdout);
  for (const args of [['sweep', spec, '--progress', '0', '-o', '-'], ['merge', shardFile, '-o', '-']]) {
    const r = cli([...args, '--db', join(dir, 'no.db')], { cwd: dir });
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'schedlab: -o -: the result and the stored experiment\'s slug would both go to '
      + 'stdout (give -o RESULT.json)\n');
    assert.equal(existsSync(join(dir, 'no.db')), false);
  }
  assert.equal(existsSync(join(dir, '-')), false, 'no file named "-"');
});

// `export RUN --db x.db -o x.db` replaced the database it read by its own
// export, through a symlink too; an output onto the input database is bad
// input, refused before anything is read or written (exit 2, the database
// byte for byte as it was). An -o file with other hard links is refused
// too (the atomic rename would part its names: cli_out.h), and a file
// replaced keeps its permission bits.
test('-o onto the database read, or onto a hard-linked file, is refused; a replaced file keeps its mode', () => {
  const dir = tempDir('cli-o-db');
  const db = join(dir, 'x.db');
  const trace = join(dir, 'fig3.trace.json');
  assert.equal(cli(['simulate', join(repo, 'scenarios/tx2-fig3-basic-rules.json'), '-o', trace]).code, 0);
  const imp = cli(['import', trace, '--db', db]);
  assert.equal(imp.code, 0, imp.stderr);
  const run = imp.stdout.trim();
  symlinkSync('x.db', join(dir, 'link.db'));
  const before = readFileSync(db);
  const listed = readdirSync(dir).sort();
  for (const [args, flag, out] of [
    [['export', run, '--db', db, '-o', db], '-o', db],
    [['export', run, '--db', db, '-o', join(dir, 'link.db')], '-o', join(dir, 'link.db')],
    [['export', run, '--db', join(dir, 'link.db'), '--output', db], '-o', db],
    [['replay', run, '--db', db, '-o', join(dir, 's.json'), '--report', join(dir, 'link.db')], '--report', join(dir, 'link.db')],
    [['sweep', writeIn(dir, 'spec.json', { schema: 'schedlab-sweep/1', name: 'o', seed: 1, tasksets: 2, x: { param: 'tasks', values: [4] } }),
      '--db', db, '--progress', '0', '-o', join(dir, 'link.db')], '-o', join(dir, 'link.db')]]) {
    const r = cli(args, { cwd: dir });
    const dbName = args[args.indexOf('--db') + 1];
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, `schedlab: ${flag} ${out}: the database ${dbName} itself: writing it would replace the database (give ${flag} another name)\n`);
    assert.ok(readFileSync(db).equals(before), args.join(' '));
  }
  assert.deepEqual(readdirSync(dir).filter((f) => f !== 'spec.json').sort(), listed);
  // a hard-linked -o file: refused, both names as they were
  const out = writeIn(dir, 'out.json', 'old\n');
  linkSync(out, join(dir, 'other.json'));
  const r = cli(['export', run, '--db', db, '-o', out]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, `schedlab: ${out}: has 2 hard links: it would be replaced under this name alone, the other names keeping the old text (write to another name, or remove the other links)\n`);
  assert.equal(readFileSync(out, 'utf8'), 'old\n');
  // one name: replaced, its mode kept
  rmSync(join(dir, 'other.json'));
  chmodSync(out, 0o640);
  const ok = cli(['export', run, '--db', db, '-o', out]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).schema, 'schedlab-trace/1');
  assert.equal(statSync(out).mode & 0o7777, 0o640);
});
