// keep_warm.test.mjs -- tools/keep-warm.sh, which `make test` runs its
// phases under: it exits with its command's status, refuses a call without
// a command, and holds the files it is given locked in memory (a vmtouch
// whose locked size covers them) exactly while the command runs: the lock
// goes when the command ends, and when the script itself is killed; and it
// locks nothing that would take over an eighth of the memory available.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { tempDir } from './server.mjs';

const SCRIPT = resolve('tools/keep-warm.sh');
const run = (args) => spawnSync(SCRIPT, args, { encoding: 'utf8' });
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

test('keep-warm.sh exits with its command\'s status', () => {
  assert.equal(run(['sh', '-c', 'exit 7']).status, 7);
  assert.equal(run(['true']).status, 0);
  const dir = tempDir('keep-warm');
  const f = join(dir, 'a');
  writeFileSync(f, 'x');
  const r = run([f, '--', 'sh', '-c', 'echo ran; exit 3']);
  assert.equal(r.status, 3);
  assert.equal(r.stdout, 'ran\n');
});

test('keep-warm.sh without a command: status 2 and its usage', () => {
  for (const args of [[], ['--'], ['some/file', '--']]) {
    const r = run(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stderr, 'usage: tools/keep-warm.sh [PATH... --] COMMAND [ARG...]\n');
  }
});

// the vmtouch that holds FILE (make test's own run beside this one, on
// other files), its pid or 0
function locker(file) {
  const r = spawnSync('pgrep', ['-f', `^vmtouch -q -l ${file}$`], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim().split('\n')[0]) : 0;
}
const haveVmtouch = spawnSync('sh', ['-c', 'command -v vmtouch'], { encoding: 'utf8' }).status === 0;
const root = process.getuid && process.getuid() === 0;
const lockSkip = !haveVmtouch ? 'vmtouch is not installed (tools/install-deps.sh installs it)'
  : !root && 'locking memory needs root (CAP_IPC_LOCK) here';

// starts keep-warm.sh on a fresh 4-MiB file (1024 pages) with a command
// that sleeps, and waits until the file is locked whole: VmLck of its
// vmtouch at least 4096 kB (the lock is taken page by page)
async function startLocked() {
  const dir = tempDir('keep-warm');
  const f = join(dir, 'data.bin');
  writeFileSync(f, Buffer.alloc(4 << 20, 1));
  const child = spawn(SCRIPT, [f, '--', 'sleep', '120'], { stdio: 'ignore' });
  const exited = new Promise((ok) => child.on('exit', (code, sig) => ok(code ?? sig)));
  let pid = 0;
  for (let i = 0; i < 200 && !pid; i++) { pid = locker(f); if (!pid) await sleep(50); }
  assert.ok(pid, 'a vmtouch holds the file while the command runs');
  let lck = 0;
  for (let i = 0; i < 200 && lck < 4096; i++) {
    lck = Number(/VmLck:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    if (lck < 4096) await sleep(50);
  }
  assert.ok(lck >= 4096, `VmLck ${lck} kB`);
  return { f, child, exited };
}
async function goneWithin(f, ms) {
  for (let t = 0; t < ms; t += 50) {
    if (locker(f) === 0) return true;
    await sleep(50);
  }
  return false;
}

test('keep-warm.sh locks the files it is given while its command runs, and not after', { skip: lockSkip }, async () => {
  const { f, child, exited } = await startLocked();
  try {
    // the command ends (its sleep killed): the script exits with its
    // status, and the lock goes with it
    execFileSync('pkill', ['-TERM', '-P', String(child.pid), '-x', 'sleep']);
    assert.equal(await exited, 143);
    assert.ok(await goneWithin(f, 5000), 'nothing holds the file once the command has ended');
  } finally {
    child.kill('SIGKILL');
  }
});

test('keep-warm.sh killed outright (SIGKILL): its lock goes with it', { skip: lockSkip }, async () => {
  const { f, child, exited } = await startLocked();
  // its command, which outlives it
  const orphan = spawnSync('pgrep', ['-P', String(child.pid), '-x', 'sleep'], { encoding: 'utf8' }).stdout.trim();
  try {
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    assert.ok(await goneWithin(f, 5000), 'nothing holds the file once the script is gone');
  } finally {
    if (orphan) spawnSync('kill', [orphan]);
  }
});

test('keep-warm.sh locks nothing over an eighth of the memory available, and still runs the command', { skip: lockSkip }, async () => {
  const dir = tempDir('keep-warm');
  const f = join(dir, 'big.bin');
  // a sparse file of a quarter of MemAvailable: twice what it may lock
  const avail = Number(/^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))[1]);
  const fd = openSync(f, 'w');
  ftruncateSync(fd, Math.floor(avail / 4) * 1024);
  closeSync(fd);
  // the command looks for a vmtouch on its file for a second, then says
  // what it saw and exits 0
  const look = (file) => ['sh', '-c', `for i in $(seq 20); do pgrep -f '^vmtouch -q -l ${file}$' > /dev/null && ` +
    `{ echo locked; exit 0; }; sleep 0.05; done; echo ran`];
  const r = spawnSync(SCRIPT, [f, '--', ...look(f)], { encoding: 'utf8' });
  assert.equal(r.status, 0);
  assert.equal(r.stdout, 'ran\n');
  // the same command on a small file does see it locked (the look above
  // is not one that never finds a vmtouch)
  const g = join(dir, 'small.bin');
  writeFileSync(g, Buffer.alloc(1 << 20, 1));
  assert.equal(spawnSync(SCRIPT, [g, '--', ...look(g)], { encoding: 'utf8' }).stdout, 'locked\n');
});
