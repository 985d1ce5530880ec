// recorder_play.test.mjs -- tools/recorder's scenario player, schedlab-play,
// where no GPU is needed: its options and its refusals (exit 2, one line
// naming the scenario and the field), which it gives before touching a GPU,
// and that a bad scenario gets exactly `schedlab simulate`'s message (the
// player links the project's own parser). Skipped where the player is not
// built (`make recorder` needs nvcc). The recordings it made on an H100 are
// checked in tests/unit/test_h100_recordings.c.
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

import { bin, repo, tempDir } from './server.mjs';

const play = join(repo, process.env.SCHEDLAB_BUILD || 'build', 'recorder/schedlab-play');
const skip = !existsSync(play) && `${play} is not built (make recorder needs nvcc)`;

function run(args) {
  const r = spawnSync(play, args, { encoding: 'utf8', cwd: repo });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

test('--help says how to call it and exits 0', { skip }, () => {
  const r = run(['--help']);
  assert.equal(r.status, 0);
  assert.match(r.out, /^usage: schedlab-play SCENARIO\.json \[-o TRACE\.csv\] \[--variant NAME\] \[--repeat N\]\n/);
  assert.match(r.out, /--probe/);
});

test('what a real GPU cannot play is refused with one line naming the field', { skip }, () => {
  const cases = [
    ['scenarios/qaws-fig3.json', 'scenarios/qaws-fig3.json: ops[0].program: warp programs are not played on hardware\n'],
    ['scenarios/gcaps-case-study.json', 'scenarios/gcaps-case-study.json: tasks: real-time tasks are not played on hardware\n'],
    ['scenarios/tx2-appendix-a-processes.json',
      'scenarios/tx2-appendix-a-processes.json: ops[1].process: ops of more than one process are not played on hardware (one player is one CUDA context)\n'],
  ];
  for (const [file, line] of cases) {
    const r = run([file, '-o', '/dev/null']);
    assert.equal(r.status, 2, file);
    assert.equal(r.err, line);
    assert.equal(r.out, '');
  }
});

test('bad options and bad scenarios exit 2 with the parser\'s own message', { skip }, () => {
  assert.deepEqual(run(['--bogus']), { status: 2, out: '', err: 'schedlab-play: unknown option --bogus (see --help)\n' });
  assert.deepEqual(run([]), { status: 2, out: '', err: 'schedlab-play: needs one SCENARIO.json (see --help)\n' });
  assert.deepEqual(run(['scenarios/h100-most-room.json', '--repeat', '0']),
    { status: 2, out: '', err: 'schedlab-play: --repeat: "0" is not a count from 1 to 1000\n' });
  assert.deepEqual(run(['scenarios/h100-most-room.json', '--variant', 'nope']),
    { status: 2, out: '', err: 'scenarios/h100-most-room.json: --variant: no run named "nope"\n' });
  const dir = tempDir('play');
  try {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({
      schema: 'schedlab-scenario/1', name: 'bad', device: 'h100',
      ops: [{ kernel: 'K', blocks: 1, threads: 2048, block_time: '1ms' }],
    }));
    const p = run([file]);
    const s = spawnSync(bin, ['simulate', file], { encoding: 'utf8' });
    assert.equal(p.status, 2);
    assert.equal(s.status, 2);
    assert.match(p.err, /ops\[0\]\.threads: 2048 is more than/);
    assert.equal(p.err, s.stderr.replace(/^schedlab: /, ''));   /* the same line, less the CLI's name */
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
