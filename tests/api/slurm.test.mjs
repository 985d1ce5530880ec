// slurm.test.mjs -- a sweep through a real Slurm job array (issue 14): start
// a throw-away single-node cluster (Debian slurm-wlm + munge, configured in
// a temporary folder as ../shared/docs/slurm-single-node.md describes), run
// a small sweep as `sbatch --array=0-3 tools/slurm/sweep.sbatch`, merge the
// shards and compare with the one-process sweep byte for byte. When this
// machine cannot host the cluster (no packages, not root, a daemon that does
// not come up) the test is skipped with one line saying why; every wait is
// bounded, so it never hangs `make test`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { bin, cli, freePort, repo, tempDir } from './server.mjs';

const DAEMONS = ['munged', 'slurmctld', 'slurmd', 'sbatch', 'sinfo'];

function which(cmd) {
  for (const d of (process.env.PATH || '').split(':').concat(['/usr/sbin', '/sbin'])) {
    if (d && existsSync(join(d, cmd))) return join(d, cmd);
  }
  return null;
}

function sh(cmd, args, env, timeout = 20000) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, timeout });
  return { code: r.status, out: `${r.stdout || ''}${r.stderr || ''}`.trim(), error: r.error };
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

function killPidFile(file) {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (pid > 1) process.kill(pid, 'SIGTERM');
  } catch { /* not running */ }
}

test('a sweep run as a Slurm job array merges into the one-process sweep', { timeout: 240000 }, async (t) => {
  const missing = DAEMONS.filter((d) => !which(d));
  if (missing.length) return t.skip(`Slurm test not run: ${missing.join(', ')} not installed (tools/install-deps.sh installs slurm-wlm and munge)`);
  if (process.getuid && process.getuid() !== 0) return t.skip('Slurm test not run: slurmd and munged --force need root here');
  if (!existsSync('/etc/munge/munge.key')) return t.skip('Slurm test not run: /etc/munge/munge.key is missing (reinstall munge)');

  const D = tempDir('slurm');
  mkdirSync(join(D, 'state'));
  mkdirSync(join(D, 'spool'));
  const [ctlPort, dPort] = [await freePort(), await freePort()];
  const conf = `ClusterName=local
SlurmctldHost=localhost
AuthType=auth/munge
AuthInfo=socket=${D}/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=${D}/state
SlurmdSpoolDir=${D}/spool
SlurmctldPidFile=${D}/slurmctld.pid
SlurmdPidFile=${D}/slurmd.pid
SlurmctldLogFile=${D}/slurmctld.log
SlurmdLogFile=${D}/slurmd.log
SlurmctldPort=${ctlPort}
SlurmdPort=${dPort}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=localhost CPUs=2 RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
`;
  writeFileSync(join(D, 'slurm.conf'), conf);
  const env = { ...process.env, SLURM_CONF: join(D, 'slurm.conf') };
  const why = (what, r) => `Slurm test not run: ${what}${r && r.out ? `: ${r.out.split('\n').pop()}` : ''}`;
  try {
    let r = sh(which('munged'), ['--force', `--socket=${D}/munge.sock`, `--pid-file=${D}/munged.pid`,
      `--log-file=${D}/munged.log`, `--seed-file=${D}/munge.seed`], env);
    if (r.code !== 0) return t.skip(why('munged did not start', r));
    r = sh(which('slurmctld'), ['-c'], env);
    if (r.code !== 0) return t.skip(why('slurmctld did not start', r));
    r = sh(which('slurmd'), ['-c', '-N', 'localhost'], env);
    if (r.code !== 0) return t.skip(why('slurmd did not start', r));
    let idle = false;
    for (let i = 0; i < 60 && !idle; i++) {
      const s = sh('sinfo', ['-h', '-o', '%t'], env, 5000);
      idle = s.code === 0 && /^idle/m.test(s.out);
      if (!idle) await sleep(500);
    }
    if (!idle) {
      const log = existsSync(join(D, 'slurmctld.log')) ? readFileSync(join(D, 'slurmctld.log'), 'utf8').trim().split('\n').pop() : '';
      return t.skip(`Slurm test not run: the node did not become idle within 30 s (${log})`);
    }

    // the cluster is up: from here on a difference is a failure
    const spec = join(D, 'spec.json');
    writeFileSync(spec, JSON.stringify({ schema: 'schedlab-sweep/1', name: 'slurm sweep', seed: 5,
      tasksets: 50, x: { param: 'tasks', values: [4, 8, 12, 16] } }));
    const local = join(D, 'local.json');
    const one = cli(['sweep', spec, '--db', join(D, 'local.db'), '-o', local]);
    assert.equal(one.code, 0, one.stderr);
    const outDir = join(D, 'shards');
    const script = join(repo, 'tools/slurm/sweep.sbatch');
    chmodSync(script, 0o755);
    const sb = sh('sbatch', ['--array=0-3', '--wait', `--output=${D}/%A_%a.out`, '--chdir', D,
      script, spec, outDir, bin], env, 150000);
    assert.equal(sb.code, 0, `sbatch: ${sb.out}\n${readdirSync(D).filter((f) => f.endsWith('.out'))
      .map((f) => readFileSync(join(D, f), 'utf8')).join('\n')}`);
    const shards = readdirSync(outDir).filter((f) => /^shard-\d-of-4\.json$/.test(f)).map((f) => join(outDir, f));
    assert.equal(shards.length, 4);
    const merged = join(D, 'merged.json');
    const m = cli(['merge', ...shards, '--db', join(D, 'local.db'), '-o', merged]);
    assert.equal(m.code, 0, m.stderr);
    assert.equal(readFileSync(merged, 'utf8'), readFileSync(local, 'utf8'));
  } finally {
    for (const p of ['slurmd.pid', 'slurmctld.pid', 'munged.pid']) killPidFile(join(D, p));
    await sleep(300);
    rmSync(D, { recursive: true, force: true });
  }
});
