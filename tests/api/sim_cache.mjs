// sim_cache.mjs -- `schedlab simulate` of a shipped scenario, once per
// binary: golden.test.mjs simulates every run of every shipped scenario and
// readme_scenarios.test.mjs a third of them again (the GCAPS case study's
// 30 s of four processes among them), each run seconds of CPU. A trace is
// kept in $SCHEDLAB_BUILD/sim-cache/BIN/ (BIN: the SHA-256 of the binary),
// named by the SHA-256 of what it is a function of: the scenario file, the
// run asked for and the kernel library (scenarios/kernels/, which a
// scenario's "program": NAME reads); the simulator is deterministic
// (DESIGN §2: simcore pure), so a kept trace is the one the binary writes,
// and golden.test.mjs asserts that of every run. A folder of another
// binary is removed when this one's is made.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { bin, cli, repo } from './server.mjs';

const root = resolve(repo, process.env.SCHEDLAB_BUILD || 'build', 'sim-cache');
const sha = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
};

let dir = null;
function cacheDir() {
  if (dir) return dir;
  const me = sha(readFileSync(bin));
  dir = join(root, me);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    for (const d of readdirSync(root)) if (d !== me) rmSync(join(root, d), { recursive: true, force: true });
  }
  return dir;
}

let library = null;
function kernelLibrary() {
  if (library === null) {
    const k = join(repo, 'scenarios', 'kernels');
    library = sha(...readdirSync(k).sort().flatMap((f) => [f, readFileSync(join(k, f))]));
  }
  return library;
}

// `schedlab simulate FILE` (run null: the base run) or `... --variant RUN`:
// {code, stdout, stderr}, from the cache where this binary wrote it before.
// Only a run that simulated (exit 0) is kept; a trace that cannot be kept
// (the folder removed meanwhile by a run of another binary) is answered all
// the same.
export function simulate(file, run = null) {
  const key = sha(readFileSync(file), run === null ? '' : `variant ${run}`, kernelLibrary());
  const path = join(cacheDir(), `${key}.json`);
  if (existsSync(path)) return { code: 0, stdout: readFileSync(path, 'utf8'), stderr: '' };
  const r = cli(run === null ? ['simulate', file] : ['simulate', file, '--variant', run]);
  if (r.code === 0) {
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, r.stdout);
      renameSync(tmp, path);
    } catch {
      rmSync(tmp, { force: true });
    }
  }
  return r;
}
