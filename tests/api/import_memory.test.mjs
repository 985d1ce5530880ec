// import_memory.test.mjs -- `schedlab import` of an nvprof CSV in bounded
// memory (issue 9): the file is parsed and stored in batches as it is read
// and the pages read are dropped, so the peak RSS of an import eight times
// the size is the small one's (within the bench's allowance, docs/bench.md:
// <= 1.25x + 8 MB), and the run holds every row. Before streaming the
// 400K-row import peaked near 110 MB against 25 MB for 50K rows.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
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
function importPeak(file, db, format = 'nvprof-csv') {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['import', file, '--format', format, '--db', db]);
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

// Imports small.file and big.file (format fmt), each into its own
// database, sampling peak RSS: both succeed and the big one peaks within the
// bench's allowance of the small one (<= 1.25x + 8 MB; the message counts
// `what` at 400K against 50K). Answers the big run's export.
async function bigPeaksLikeSmall(small, big, fmt, what) {
  const s = await importPeak(small.file, small.db, fmt);
  assert.equal(s.code, 0, s.stderr);
  const b = await importPeak(big.file, big.db, fmt);
  assert.equal(b.code, 0, b.stderr);
  assert.ok(s.peak > 0 && b.peak > 0, 'VmHWM sampled');
  assert.ok(b.peak <= 1.25 * s.peak + 8 * 1024,
    `peak RSS ${b.peak} KiB at 400K ${what} against ${s.peak} KiB at 50K`);
  const e = cli(['export', b.stdout, '--db', big.db]);
  assert.equal(e.code, 0, e.stderr);
  return JSON.parse(e.stdout);
}

test('import memory does not grow with the file: 400K rows peak within 1.25x + 8 MB of 50K', async () => {
  const small = join(dir, 'small.csv'), big = join(dir, 'big.csv');
  writeFileSync(small, nvprofCsv(50000));
  writeFileSync(big, nvprofCsv(400000));
  const t = await bigPeaksLikeSmall({ file: small, db: join(dir, 'small.db') },
    { file: big, db: join(dir, 'big.db') }, 'nvprof-csv', 'rows');
  // every row stored: 266,666 kernels and 133,334 copies, from 1 s; the last
  // kernel is row 399,998
  assert.equal(t.kernels.length, 266666);
  assert.equal(t.copies.length, 133334);
  assert.equal(t.meta.origin_ns, '1000000000');
  assert.equal(t.kernels[266665].first_block, 399998 * 10000);
});

// kernels x 1000 blocks in file order; kernel k's block b starts at
// 1700 s + k * 100 us + b * 13 ns
function globaltimerCsv(kernels) {
  const out = ['kernel,block,sm,start_ns,end_ns,stream,threads'];
  for (let k = 0; k < kernels; k++) {
    const base = 1700000000000 + k * 100000;
    for (let b = 0; b < 1000; b++) {
      const s = base + b * 13;
      out.push(`K${k},${b},${(b * 7 + k) % 80},${s},${s + 500 + (b % 9) * 100},s${k % 4},256`);
    }
  }
  return out.join('\n') + '\n';
}

// The globaltimer CSV is read twice (kernel summaries, then blocks straight
// into the block pages): before, 400K blocks peaked near 62 MB against 25 MB
// for 50K, and 3.2M near 330 MB.
test('globaltimer-csv import memory does not grow with the blocks: 400K peak within 1.25x + 8 MB of 50K', async () => {
  const small = join(dir, 'small-gt.csv'), big = join(dir, 'big-gt.csv');
  writeFileSync(small, globaltimerCsv(50));
  writeFileSync(big, globaltimerCsv(400));
  const t = await bigPeaksLikeSmall({ file: small, db: join(dir, 'small-gt.db') },
    { file: big, db: join(dir, 'big-gt.db') }, 'globaltimer-csv', 'blocks');
  assert.equal(t.kernels.length, 400);
  assert.equal(t.blocks.length, 400000);
  assert.equal(t.meta.origin_ns, '1700000000000');
  // kernel 399's block 999: 399 * 100 us + 999 * 13 ns after the origin
  const last = t.blocks[399999];
  assert.deepEqual([last.kernel, last.index, last.start], [399, 999, 39900000 + 12987]);
  assert.equal(t.kernels[399].fully_dispatched, 39900000 + 12987);
  assert.equal(t.kernels[399].blocks, 1000);
});

// An nvprof SQLite export of `n` kernels 1 us apart (launched 1 s before),
// with their RUNTIME launches and n/2 copies, made by the sqlite3 CLI (the
// fixtures need it too).
function nvprofSqlite(path, n) {
  const sql = `CREATE TABLE Version(version INTEGER); INSERT INTO Version VALUES (18);
CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
INSERT INTO StringTable VALUES (0, '-- null --'), (1, 'GeForce RTX 2080 Ti'), (2, '_Z6vecAddPdS_S_i'), (3, 'reduce');
CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE(_id_ INTEGER PRIMARY KEY, numMultiprocessors INT, id INT, name INT);
INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE VALUES (1, 68, 0, 1);
CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY, registersPerThread INT, start INT, end INT, deviceId INT, contextId INT, streamId INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT, correlationId INT, name INT);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${n} - 1) INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL SELECT i + 1, 32, 1700000000000000000 + i * 1000, 1700000000000000000 + i * 1000 + 800, 0, 1, 7 + i % 3, 1 + i % 40, 1, 1, 128, 1, 1, 0, 0, 100 + i, 2 + i % 2 FROM n;
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY, start INT, end INT, correlationId INT);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${n} - 1) INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId) SELECT 1699999999000000000 + i * 1000, 0, 100 + i FROM n;
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY KEY, copyKind INT, srcKind INT, dstKind INT, bytes INT, start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${n} / 2 - 1) INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT i + 1, 1, 1, 3, 4096, 1700000000000000000 + i * 2000 + 300, 1700000000000000000 + i * 2000 + 700, 0, 1, 7, 0 FROM n;`;
  const r = spawnSync('sqlite3', [path], { input: sql, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

// Rows read by start (SQLite sorting in temporary files), launch times from
// a temporary table: before, 400K kernels peaked near 150 MB against 27 MB
// for 50K.
test('nvprof-sqlite import memory does not grow with the kernels: 400K peak within 1.25x + 8 MB of 50K', async () => {
  const small = join(dir, 'small.nvvp'), big = join(dir, 'big.nvvp');
  nvprofSqlite(small, 50000);
  nvprofSqlite(big, 400000);
  const t = await bigPeaksLikeSmall({ file: small, db: join(dir, 'small-sql.db') },
    { file: big, db: join(dir, 'big-sql.db') }, 'nvprof-sqlite', 'kernels');
  assert.equal(t.kernels.length, 400000);
  assert.equal(t.copies.length, 200000);
  // the origin is kernel 0's launch, 1 s before it starts
  assert.equal(t.meta.origin_ns, '1699999999000000000');
  const k = t.kernels[399999];
  assert.deepEqual([k.issue, k.first_block], [399999 * 1000, 1e9 + 399999 * 1000]);
});
