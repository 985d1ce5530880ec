// recorder_mostroom.test.mjs -- tools/recorder's most-room experiment
// driver, schedlab-mostroom, and the H100 placement probes, where no GPU is
// needed: the driver's options, its plan (the shapes that force the most-
// room paper's §5.1 placement; their effect under the h100 preset is
// tests/unit/test_mostroom_check.c's), and that every probe scenario in
// tests/fixtures/h100/probes/ passes schedlab-play's checks (exit 2 would
// name a field a GPU cannot play). Skipped where the binaries are not built
// (`make recorder` needs nvcc).
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

import { repo } from './server.mjs';

const dir = join(repo, process.env.SCHEDLAB_BUILD || 'build', 'recorder');
const driver = join(dir, 'schedlab-mostroom');
const play = join(dir, 'schedlab-play');
const skip = !existsSync(driver) && `${driver} is not built (make recorder needs nvcc)`;

function run(exe, args) {
  const r = spawnSync(exe, args, { encoding: 'utf8', cwd: repo });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

test('--help and --plan exit 0; the plan names the shapes and the paper', { skip }, () => {
  const h = run(driver, ['--help']);
  assert.equal(h.status, 0);
  assert.match(h.out, /^usage: schedlab-mostroom \[-o DIR\] \[--runs N\] \[--pairs l1,fp,mem,uvm\] \[--plan\]\n/);
  const p = run(driver, ['--plan']);
  assert.equal(p.status, 0);
  assert.match(p.out, /A: (\d+) blocks x (\d+) threads, 16 KB dynamic shared memory/);
  assert.match(p.out, /isolated: B \(33 threads\) all on the SM A left empty/);
  assert.match(p.out, /mem {2}Memory-Intensive .* isolated 951 \/ 224, colocated 955 \/ 961/);
});

test('bad options exit 2 with one line', { skip }, () => {
  assert.deepEqual(run(driver, ['--runs', '0']),
    { status: 2, out: '', err: 'schedlab-mostroom: --runs: "0" is not a count from 1 to 1000\n' });
  assert.deepEqual(run(driver, ['--pairs', 'l1,tex']),
    { status: 2, out: '', err: 'schedlab-mostroom: --pairs: no pair "tex" (l1, fp, mem, uvm)\n' });
  assert.deepEqual(run(driver, ['--bogus']),
    { status: 2, out: '', err: 'schedlab-mostroom: bad option --bogus (see --help)\n' });
});

test('every H100 placement probe is playable', { skip: skip || (!existsSync(play) && `${play} is not built`) }, () => {
  const probes = readdirSync(join(repo, 'tests/fixtures/h100/probes')).filter((f) => f.endsWith('.json'));
  assert.ok(probes.length >= 10);
  for (const f of probes) {
    const r = run(play, [join('tests/fixtures/h100/probes', f), '-o', '/dev/null']);
    assert.notEqual(r.status, 2, `${f}: ${r.err}`);
    if (r.status !== 0) assert.match(r.err, /no CUDA device found|CUDA driver version is insufficient/, f);
  }
});
