// install.test.mjs -- `make install PREFIX=…` into a temporary prefix: the
// binary, the dashboard, the shipped scenarios and the man page land there,
// and the installed `schedlab serve`, started far from the checkout, finds
// its web/ and scenarios/ (PREFIX/share/schedlab), also after the whole
// prefix is moved elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, getJson, repo, seedDb, startServer, tempDir } from './server.mjs';

const build = process.env.SCHEDLAB_BUILD || 'build';
const scenarioFiles = readdirSync(join(repo, 'scenarios')).filter((f) => f.endsWith('.json')).sort();
let root, prefix;

before(() => {
  root = tempDir('install');
  prefix = join(root, 'prefix');
  const r = spawnSync('make', ['--no-print-directory', '-C', repo, `BUILD=${build}`, 'install', `PREFIX=${prefix}`],
    { encoding: 'utf8' });
  assert.equal(r.status, 0, `make install: ${r.stdout}${r.stderr}`);
});
after(() => rmSync(root, { recursive: true, force: true }));

test('make install puts binary, dashboard, scenarios and man page under PREFIX', () => {
  assert.ok(existsSync(join(prefix, 'bin/schedlab')));
  const share = join(prefix, 'share/schedlab');
  assert.deepEqual(readdirSync(join(share, 'scenarios')).filter((f) => f.endsWith('.json')).sort(), scenarioFiles);
  // the kernel library the qaws-fig4* scenarios name, beside them
  assert.deepEqual(readdirSync(join(share, 'scenarios/kernels')).sort(),
    readdirSync(join(repo, 'scenarios/kernels')).sort());
  assert.equal(readFileSync(join(share, 'web/index.html'), 'utf8'), readFileSync(join(repo, 'web/index.html'), 'utf8'));
  assert.ok(existsSync(join(share, 'web/vendor/chart.umd.min.js')), 'Chart.js is installed with the dashboard');
  const v = cli(['--version'], { cwd: root });
  const iv = spawnSync(join(prefix, 'bin/schedlab'), ['--version'], { encoding: 'utf8' });
  assert.equal(iv.status, 0);
  assert.equal(iv.stdout, v.stdout);
});

test('the man page is the --help texts, every command a section', () => {
  const man = readFileSync(join(prefix, 'share/man/man1/schedlab.1'), 'utf8');
  const version = cli(['--version']).stdout.split('\n')[0].replace('schedlab ', '');
  assert.equal(man.split('\n')[0], `.TH SCHEDLAB 1 "" "schedlab ${version}" "User Commands"`);
  // every command `schedlab --help` lists, in its order
  const commands = cli(['--help']).stdout.split('\n').map((l) => /^  ([a-z][a-z-]*) /.exec(l)).filter(Boolean).map((m) => m[1]);
  for (const c of ['simulate', 'import', 'export', 'replay', 'serve']) assert.ok(commands.includes(c), c);
  const sections = man.split('\n').filter((l) => l.startsWith('.SS ')).map((l) => l.slice(4));
  assert.deepEqual(sections, commands);
  for (const c of [...commands, null]) {
    const help = cli(c ? [c, '--help'] : ['--help']).stdout;
    for (const line of help.split('\n').filter(Boolean)) {
      const roff = line.replace(/\\/g, '\\e').replace(/^([.'])/, '\\&$1');
      assert.ok(man.includes(`${roff}\n`), `${c || 'schedlab'} --help line missing from the man page: ${line}`);
    }
  }
});

// What the installed server must find is its own web/, scenarios/ (with
// the kernel library beside them) and sweeps/ under PREFIX/share/schedlab.
// It starts on a copy of the tests' seed database (server.mjs, seedDb),
// like every other test server, rather than storing all 57 shipped
// scenarios again (about 25 CPU-s, which tests/api/seed.mjs has spent
// once already for the whole run). What the moved tree's server must
// store from its own folders is what the first one deleted before it
// stopped (`gone`): the qaws-fig4a* scenarios, whose programs come from
// the installed kernel library, and one shipped sweep. Without a seed
// database (the file run alone) the first starts on an empty one and
// stores everything.
// from: a database to start on a copy of; gone: the scenario files and
// sweep names it must store again itself
async function servesFromPrefix(exe, { from = null, keepDb = null, gone = null } = {}) {
  // (a first start on an empty database stores all 57 shipped scenarios
  // and the sweeps: on a loaded 2-core machine past startServer's 180 s
  // once, as seed.mjs's does)
  const srv = await startServer({ exe, from, waitMs: 600000 });   // cwd: a fresh temporary folder
  try {
    const scn = await getJson(`${srv.base}/api/scenarios`);
    assert.equal(scn.status, 200);
    assert.equal(scn.body.scenarios.length, scenarioFiles.length);
    const exps = await getJson(`${srv.base}/api/experiments`);
    const stored = exps.body.experiments.filter((e) => e.source === 'scenario');
    assert.equal(stored.length, scenarioFiles.length);
    // those include the qaws-fig4* scenarios, whose programs come from the
    // installed kernel library (share/schedlab/scenarios/kernels)
    assert.ok(scenarioFiles.some((f) => f.startsWith('qaws-fig4a-')));
    // and the shipped sweeps, from share/schedlab/sweeps (issue 30; seeded small in tests):
    // nine computed at first start, three stored from their shipped results (sweeps/results)
    const sweeps = exps.body.experiments.filter((e) => e.source === 'sweep');
    assert.equal(sweeps.length, 12);
    const share = realpathSync(join(exe, '../../share/schedlab'));
    if (gone) {
      // this start stored what was deleted, from its own folders, and only that
      assert.ok(srv.stderr().includes(`stored ${gone.files.length} shipped scenario(s) from ${share}/scenarios\n`), srv.stderr());
      for (const f of gone.files) {
        const e = stored.find((x) => x.name === gone.names[f]);
        assert.ok(e && e.runs.length >= 1, `${f} stored again with its runs`);
      }
      for (const name of gone.sweeps) assert.ok(sweeps.some((e) => e.name === name), `the sweep ${name} stored again`);
    }
    const page = await fetch(`${srv.base}/`);
    assert.equal(page.status, 200);
    assert.equal(await page.text(), readFileSync(join(repo, 'web/index.html'), 'utf8'));
    assert.equal((await fetch(`${srv.base}/vendor/chart.umd.min.js`)).status, 200);
    assert.ok(srv.stderr().includes(`, web ${share}/web)\n`), srv.stderr());
    if (!keepDb) return null;
    // what the next start must store again: delete it here
    const names = {}, files = scenarioFiles.filter((f) => f.startsWith('qaws-fig4a-'));
    for (const f of files) {
      names[f] = JSON.parse(readFileSync(join(repo, 'scenarios', f), 'utf8')).name;
      const e = stored.find((x) => x.name === names[f]);
      assert.ok(e, `${f} is stored (${names[f]})`);
      assert.equal((await getJson(`${srv.base}/api/experiments/${e.slug}`, { method: 'DELETE' })).status, 200);
    }
    // a computed sweep and one stored from share/schedlab/sweeps/results
    const gSweeps = [/^GCAPS Fig\. 8\(a\)/, /^ISCA'17 Figs\. 6b and 8b on the Parboil kernels at the paper's parameters/]
      .map((re) => sweeps.find((e) => re.test(e.name)));
    for (const sweep of gSweeps) {
      assert.ok(sweep, sweeps.map((e) => e.name).join(', '));
      assert.equal((await getJson(`${srv.base}/api/experiments/${sweep.slug}`, { method: 'DELETE' })).status, 200);
    }
    return { files, names, sweeps: gSweeps.map((e) => e.name) };
  } finally {
    await srv.stop({ keepDb });
  }
}

let gone = null;
test('the installed schedlab serve works outside the checkout', async () => {
  gone = await servesFromPrefix(join(prefix, 'bin/schedlab'), { from: seedDb, keepDb: join(root, 'first.db') });
});

test('the installed tree can be moved whole', async () => {
  const moved = join(root, 'moved');
  renameSync(prefix, moved);
  try {
    await servesFromPrefix(join(moved, 'bin/schedlab'), { from: join(root, 'first.db'), gone });
  } finally {
    renameSync(moved, prefix);
  }
});
