// readme.test.mjs -- the README's "Command line" section, run as written.
//
// In a fresh temporary folder holding `./schedlab` (the binary under test),
// `scenarios/` (the shipped ones) and `my-run.csv` (the nvprof CSV fixture of
// tests/fixtures/make_fixtures.sh), with the default database ./schedlab.db:
//
//   - every line of the synopsis block is the binary's own: a line of
//     `schedlab --help`, and `usage: <line>` heads `schedlab COMMAND --help`;
//   - a ```json file=NAME block is written to NAME;
//   - a ```console block runs command by command (`$ ` lines); each must
//     print exactly the lines under it (stdout and stderr together) and
//     nothing else; `echo $?` sees the previous command's exit status;
//   - each line of the ```sh block (the typical session) must exit 0; the id
//     `import` prints replaces the README's example id q7c2m0x9ab in the lines
//     after it.
//
// Also: README and docs/ link only to files in the repository.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

import { bin, cli, fixture, repo, tempDir } from './server.mjs';

const README = readFileSync(join(repo, 'README.md'), 'utf8');
const EXAMPLE_ID = 'q7c2m0x9ab';

// The fenced blocks of one `## ` section, in order: {info, lines}.
function blocks(md, heading) {
  const start = md.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README has no "## ${heading}" section`);
  const next = md.indexOf('\n## ', start + 1);
  const body = md.slice(start, next < 0 ? md.length : next);
  const out = [];
  const re = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (let m; (m = re.exec(body));) out.push({ info: m[1].trim(), lines: m[2].replace(/\n$/, '').split('\n') });
  return out;
}

const section = blocks(README, 'Command line');
let dir;
let env;

before(() => {
  dir = tempDir('readme');
  symlinkSync(bin, join(dir, 'schedlab'));
  symlinkSync(join(repo, 'scenarios'), join(dir, 'scenarios'));
  copyFileSync(fixture('nvprof.csv'), join(dir, 'my-run.csv'));
  env = { ...process.env };
  delete env.SCHEDLAB_DB;
});
after(() => rmSync(dir, { recursive: true, force: true }));

function sh(script) {
  return spawnSync('bash', ['-c', script], { cwd: dir, env, encoding: 'utf8', maxBuffer: 256 << 20 });
}

test('the synopsis is the binary\'s own usage', () => {
  const synopsis = section.find((b) => b.info === '');
  assert.ok(synopsis, 'no synopsis block');
  const main = cli(['--help']).stdout.split('\n');
  const seen = [];
  let usage = null;   // the lines of the last command's own --help
  for (const line of synopsis.lines) {
    if (/^\s/.test(line)) {
      // a continuation: the same options, wrapped as the command's --help wraps them
      assert.ok(usage && usage.includes(line.trim()), `not in ${seen.at(-1)} --help: ${line.trim()}`);
      continue;
    }
    assert.match(line, /^schedlab (\S+)/);
    const cmd = line.split(' ')[1];
    seen.push(cmd);
    if (cmd === '--version') {
      const v = cli(['--version']);
      assert.equal(v.code, 0);
      assert.match(v.stdout, /^schedlab \d+\.\d+\.\d+\n/);
      assert.ok(main.some((l) => l.startsWith('  --version ')), '--version missing from schedlab --help');
      continue;
    }
    assert.ok(main.includes(`  ${line.slice('schedlab '.length)}`), `not in schedlab --help: ${line}`);
    const help = cli([cmd, '--help']);
    assert.equal(help.code, 0, cmd);
    assert.equal(help.stdout.split('\n')[0], `usage: ${line}`);
    usage = help.stdout.split('\n\n')[0].split('\n').map((l) => l.trim());
  }
  // every command the binary lists is in the README
  const listed = main.filter((l) => /^  [a-z-]+ /.test(l) || l.startsWith('  --version')).map((l) => l.trim().split(' ')[0]);
  assert.deepEqual(seen, listed);
});

// A command's usage: its --help's lines up to the first blank one, joined.
const usageOf = (cmd) => cli([cmd, '--help']).stdout.split('\n\n')[0].split('\n').map((l) => l.trim()).join(' ').replace(/^usage: /, '');

test('schedlab --help lists each command as its own --help does, wrapped lines too', () => {
  const main = cli(['--help']).stdout.split('\n\n')[1].split('\n');
  for (let i = 0; i < main.length; i++) {
    const m = /^  ([a-z][a-z-]*) /.exec(main[i]);
    if (!m) continue;
    const lines = [main[i].trim()];
    while (i + 1 < main.length && /^ {4,}\[/.test(main[i + 1])) lines.push(main[++i].trim());
    assert.equal(`schedlab ${lines.join(' ')}`, usageOf(m[1]), `schedlab --help's ${m[1]}`);
  }
});

test('docs/cli.md\'s synopsis is the README\'s, and each command\'s section heads with its usage', () => {
  const md = readFileSync(join(repo, 'docs/cli.md'), 'utf8');
  const synopsis = /^```\n([\s\S]*?)^```$/m.exec(md)[1].replace(/\n$/, '').split('\n');
  assert.deepEqual(synopsis, section.find((b) => b.info === '').lines);
  for (const cmd of ['simulate', 'import', 'export', 'replay', 'serve']) {
    const m = new RegExp(`\\n## ${cmd}\\n\\n\`(schedlab ${cmd} [^\`]*)\``).exec(md);
    assert.ok(m, `docs/cli.md: no "## ${cmd}" section opening with its usage`);
    assert.equal(m[1], usageOf(cmd), `docs/cli.md ## ${cmd}`);
  }
});

// Each option a command's usage names has a line of its own in the
// command's --help (two blanks, the option), and --db states its default.
test('every option of each command is explained in its --help, --db with its default', () => {
  for (const cmd of ['simulate', 'import', 'export', 'replay', 'serve', 'sweep', 'merge']) {
    const help = cli([cmd, '--help']).stdout;
    const body = help.split('\n\n').slice(1).join('\n\n').split('\n');
    const options = [...usageOf(cmd).matchAll(/\[(-o|--[a-z-]+)/g)].map((m) => m[1]);
    assert.ok(options.length > 0, cmd);
    for (const opt of options) {
      const line = body.find((l) => l.startsWith(`  ${opt} `));
      assert.ok(line, `schedlab ${cmd} --help does not explain ${opt}`);
      if (opt === '--db') assert.match(line, /default: \$SCHEDLAB_DB, else \.\/schedlab\.db/, `${cmd} --db`);
    }
  }
});

test('the examples and the typical session run as the README says', () => {
  let id = null;
  let ran = 0;
  const session = [];
  for (const b of section) {
    const file = /^json file=(\S+)$/.exec(b.info);
    if (file) {
      writeFileSync(join(dir, file[1]), `${b.lines.join('\n')}\n`);
    } else if (b.info === 'console') {
      const steps = [];
      for (const l of b.lines) {
        if (l.startsWith('$ ')) steps.push({ cmd: l.slice(2), want: [] });
        else steps.at(-1).want.push(l);
      }
      const END = '@@schedlab-readme-end@@';
      const script = ['prev=0', ...steps.map((s) => `(exit $prev); { ${s.cmd}\n} 2>&1; prev=$?; echo ${END}`)].join('\n');
      const r = sh(script);
      const got = r.stdout.split(`${END}\n`);
      for (let i = 0; i < steps.length; i++) {
        const want = steps[i].want.length ? `${steps[i].want.join('\n')}\n` : '';
        assert.equal(got[i], want, `$ ${steps[i].cmd}`);
        ran++;
      }
    } else if (b.info === 'sh') {
      for (const raw of b.lines) {
        const line = id ? raw.replaceAll(EXAMPLE_ID, id) : raw;
        const r = sh(line);
        assert.equal(r.status, 0, `${line}\n${r.stderr}`);
        // replay reports on stderr what it replayed on and how close it came
        // (issue 28: the fidelity report); every other command is silent there
        if (/^\.\/schedlab replay /.test(line))
          assert.match(r.stderr, /^schedlab: replaying on the preset rtx2080ti, as asked\n(.*\n)*fidelity: /, line);
        else assert.equal(r.stderr, '', line);
        if (/^\.\/schedlab import /.test(line)) {
          assert.match(r.stdout, /^[a-z0-9]{10}\n$/, line);
          id = r.stdout.trim();
        }
        session.push({ line, stdout: r.stdout });
        ran++;
      }
    }
  }
  assert.ok(ran >= 8, `only ${ran} commands found in the README's Command line section`);
  // the session did what its comments say
  assert.deepEqual(session.map((s) => s.line.split(' ')[1]), ['simulate', 'import', 'export', 'replay', 'simulate']);
  assert.equal(JSON.parse(readFileSync(join(dir, 'fig3.json'), 'utf8')).schema, 'schedlab-trace/1');
  assert.ok(JSON.parse(readFileSync(join(dir, 'my-run.perfetto.json'), 'utf8')).traceEvents.length > 0);
  const scn = JSON.parse(readFileSync(join(dir, 'my-run.scenario.json'), 'utf8'));
  assert.equal(scn.device, 'rtx2080ti');
  assert.ok(scn.variants.some((v) => v.name === 'round-robin'));
  const last = JSON.parse(session.at(-1).stdout);
  assert.equal(last.name, 'Replay of my-run.csv [round-robin]');
  assert.equal(last.kernels.length, 2);
  // the read commands made no database of the typo
  assert.equal(existsSync(join(dir, 'typo.db')), false);
});

// The README's fidelity sentence quotes docs/replay-fidelity.md's measured
// table (build/tests/test_replay_traces prints its rows): the largest median
// and 90th-percentile duration errors of the full replays.
test('the README\'s replay fidelity is the largest of docs/replay-fidelity.md\'s measured rows', () => {
  const doc = readFileSync(join(repo, 'docs/replay-fidelity.md'), 'utf8');
  const head = doc.split('\n').findIndex((l) => l.startsWith('| trace |') && l.includes('full: dur med / p90'));
  assert.ok(head > 0, 'docs/replay-fidelity.md: no measured table');
  const col = doc.split('\n')[head].split('|').map((c) => c.trim()).indexOf('full: dur med / p90');
  let med = 0, p90 = 0;
  for (const l of doc.split('\n').slice(head + 2)) {
    if (!l.startsWith('|')) break;
    const m = /^([\d.]+) \/ ([\d.]+) %/.exec(l.split('|').map((c) => c.trim())[col]);
    if (!m) continue;
    med = Math.max(med, Number(m[1]));
    p90 = Math.max(p90, Number(m[2]));
  }
  assert.match(README.replace(/\s+/g, ' '), new RegExp(`durations are within ${med} % \\(median\\) and ${p90} % \\(90th percentile\\)`));
});

test('docs/README.md lists every document of docs/', () => {
  const index = readFileSync(join(repo, 'docs/README.md'), 'utf8');
  for (const f of readdirSync(join(repo, 'docs')).filter((x) => x.endsWith('.md') && x !== 'README.md'))
    assert.ok(index.includes(`](${f})`), `docs/README.md does not list ${f}`);
});

test('README and docs/ link only to files in the repository', () => {
  const files = ['README.md', ...readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  for (const f of files) {
    const text = readFileSync(join(repo, f), 'utf8');
    assert.ok(!text.includes('../shared'), `${f} points outside the repository (../shared)`);
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1].split('#')[0];
      if (!target || /^[a-z]+:/.test(target)) continue;   // in-page anchor or URL
      const path = resolve(dirname(join(repo, f)), target);
      assert.ok(path.startsWith(repo), `${f}: ${m[1]} is outside the repository`);
      assert.ok(existsSync(path), `${f}: ${m[1]} does not exist`);
    }
  }
});
