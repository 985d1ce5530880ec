// import_memory.test.mjs -- `schedlab import` of an nvprof CSV in bounded
// memory (issue 9): the file is parsed and stored in batches as it is read
// and the pages read are dropped, so the peak RSS of an import eight times
// the size is the small one's (within the bench's allowance, docs/bench.md:
// <= 1.25x + 8 MB), and the run holds every row. Before streaming the
// 400K-row import peaked near 110 MB against 25 MB for 50K rows.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { bin, cli, tempDir } from './server.mjs';

let dir;
before(() => { dir = tempDir('import-memory'); });
after(() => rmSync(dir, { recursive: true, force: true }));

// rows 3j are copies, 3j+1 and 3j+2 kernels, 10 us apart from 1 s
function nvprofCsv(rows) {
  const out = ['==7== Profiling result:',
    '"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per Thread",'
    + '"Static SMem","Dynamic SMem","Size","Throughput","Device","Context","Stream","Name"',
    's,us,,,,,,,,KB,B,KB,MB/s,,,,'];
  for (let i = 0; i < rows; i++) {
    const start = (1 + i * 1e-5).toFixed(6);
    if (i % 3 === 0)
      out.push(`${start},1.408000,,,,,,,,,,64.000000,75.8,"GeForce GTX 1080 Ti (0)","1","7","[CUDA memcpy HtoD]"`);
    else
      out.push(`${start},5.120000,${1 + (i % 40)},1,1,128,1,1,32,0.500000,0,,,"GeForce GTX 1080 Ti (0)","1","13","_Z9vectorAddPKfS0_Pfi"`);
  }
  return out.join('\n') + '\n';
}

// Run the CLI, sampling its peak RSS (VmHWM) until it exits: the highest
// sample is the peak up to the last one, which for an import that grows with
// the file is near its end.
function importPeak(file, db) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['import', file, '--format', 'nvprof-csv', '--db', db]);
    let peak = 0, stdout = '', stderr = '';
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]));
      } catch { /* gone */ }
    };
    const timer = setInterval(sample, 2);
    child.stdout.on('data', (d) => { stdout += d; sample(); });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({ code, peak, stdout: stdout.trim(), stderr });
    });
  });
}

test('import memory does not grow with the file: 400K rows peak within 1.25x + 8 MB of 50K', async () => {
  const small = join(dir, 'small.csv'), big = join(dir, 'big.csv');
  writeFileSync(small, nvprofCsv(50000));
  writeFileSync(big, nvprofCsv(400000));
  const s = await importPeak(small, join(dir, 'small.db'));
  assert.equal(s.code, 0, s.stderr);
  const b = await importPeak(big, join(dir, 'big.db'));
  assert.equal(b.code, 0, b.stderr);
  assert.ok(s.peak > 0 && b.peak > 0, 'VmHWM sampled');
  assert.ok(b.peak <= 1.25 * s.peak + 8 * 1024,
    `peak RSS ${b.peak} KiB at 400K rows against ${s.peak} KiB at 50K`);
  // every row stored: 266,666 kernels and 133,334 copies, from 1 s; the last
  // kernel is row 399,998
  const e = cli(['export', b.stdout, '--db', join(dir, 'big.db')]);
  assert.equal(e.code, 0, e.stderr);
  const t = JSON.parse(e.stdout);
  assert.equal(t.kernels.length, 266666);
  assert.equal(t.copies.length, 133334);
  assert.equal(t.meta.origin_ns, '1000000000');
  assert.equal(t.kernels[266665].first_block, 399998 * 10000);
});
