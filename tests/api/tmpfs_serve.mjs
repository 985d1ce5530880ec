// tmpfs_serve.mjs -- `schedlab serve` on a database in a small tmpfs mounted
// in a private mount namespace (root only: `skip` says why elsewhere), for
// the tests of a full disk. The test drives the namespace through marker
// files in `dir`: step(name) touches DIR/name and waits for DIR/name.done,
// which the script touches once it ran that step's shell commands.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { bin, freePort } from './server.mjs';

const probe = spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt'], { encoding: 'utf8' });
export const skip = (process.getuid?.() !== 0 || probe.status !== 0) &&
  'needs root and a private mount namespace (unshare -m) to mount a small tmpfs';

// Serve a copy of `seed` as MNT/x.db on a tmpfs of `size` (mount's words,
// "4m") at MNT = DIR/mnt (made by the caller, with DIR/none, an empty
// scenarios folder). steps: {name: shell commands run when asked}; at the
// end the server is stopped (SIGTERM) and `sqlite3 x.db 'final'` runs.
// Resolves with {base, step(name), end()}; end() resolves with the
// namespace's stdout ("serve=STATUS" and what `final` printed) and stderr.
export async function serveOnTmpfs({ dir, seed, size = '4m', steps = {}, final = 'PRAGMA integrity_check;' }) {
  const mnt = join(dir, 'mnt');
  const port = await freePort();
  const stepSh = Object.entries(steps).map(([name, sh]) =>
    `while [ ! -e "${dir}/${name}" ] && [ ! -e "${dir}/stop" ]; do sleep 0.05; done; if [ ! -e "${dir}/stop" ]; then ${sh}; fi; touch "${dir}/${name}.done"`).join('\n');
  const script = `set -e; mount -t tmpfs -o size=${size} tmpfs "${mnt}"; cp "${seed}" "${mnt}/x.db"
"${bin}" serve --db "${mnt}/x.db" --port ${port} --scenarios "${dir}/none" & pid=$!
${stepSh}
while [ ! -e "${dir}/stop" ]; do sleep 0.05; done; kill -TERM $pid; wait $pid; echo "serve=$?"
sqlite3 "${mnt}/x.db" '${final}'`;
  const ns = spawn('unshare', ['-m', 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  ns.stdout.on('data', (d) => { out += d; });
  ns.stderr.on('data', (d) => { err += d; });
  const ended = new Promise((ok) => ns.on('exit', ok));
  const base = `http://127.0.0.1:${port}`;
  const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
  for (const deadline = Date.now() + 30000; ;) {
    try { if ((await fetch(`${base}/api/health`)).ok) break; } catch { /* not yet */ }
    if (Date.now() > deadline || ns.exitCode !== null) {
      writeFileSync(join(dir, 'stop'), '');
      await ended;
      throw new Error(`serve did not answer: ${err}`);
    }
    await sleep(50);
  }
  return {
    base,
    async step(name) {
      writeFileSync(join(dir, name), '');
      while (!existsSync(join(dir, `${name}.done`))) {
        if (ns.exitCode !== null) throw new Error(`the namespace ended: ${out} ${err}`);
        await sleep(50);
      }
    },
    async end() {
      writeFileSync(join(dir, 'stop'), '');
      await ended;
      return { out, err };
    },
  };
}
