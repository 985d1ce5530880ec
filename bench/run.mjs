// run.mjs -- drive the benchmarks, print one table, write bench/results.json.
// Everything is measured in this one run on this one machine, so the ratios
// (ours against the sqlite3 CLI, 4M against 1M blocks) are like for like.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const bin = process.env.BENCH_BIN || 'build/bench';
const work = 'bench/work';
mkdirSync(work, { recursive: true });
const quick = process.env.BENCH_QUICK === '1';

function jsonLines(out) {
  return out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}
function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'], ...opts });
}
function timed(fn) {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

const results = {
  machine: {
    cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length,
    memory_gb: Math.round(os.totalmem() / 2 ** 30), node: process.version, date: new Date().toISOString(),
  },
  sim: [], import: [],
};

// ---- simulator: blocks placed per second, in memory and streamed to SQLite
// One process per size, so each peak RSS is that size's own. Storing 16M
// blocks takes minutes on this class of machine, so SQLite runs stop at 4M.
const simSizes = quick ? [1000000] : [1000000, 4000000, 16000000];
for (const n of simSizes) {
  const args = n <= 4000000 ? ['--db', `${work}/sim.db`, String(n)] : [String(n)];
  for (const line of jsonLines(run(path.join(bin, 'bench_sim'), args))) results.sim.push(line);
}

// ---- importers: ours end to end against the sqlite3 CLI's .import
const rows = quick ? 200000 : 1000000;
const csv = `${work}/big-nvprof.csv`, prof = `${work}/big-nvprof.prof`;
run('sh', ['bench/gen_nvprof_csv.sh', String(rows), csv]);
run('sh', ['bench/gen_nvprof_sqlite.sh', String(rows), prof]);

for (const [format, file] of [['nvprof-csv', csv], ['nvprof-sqlite', prof]]) {
  const r = jsonLines(run(path.join(bin, 'bench_import'), [format, file, `${work}/import.db`]))[0];
  r.file_mb = +(statSync(file).size / 2 ** 20).toFixed(1);
  if (format === 'nvprof-csv') {
    const cliDb = `${work}/cli-import.db`;
    try { execFileSync('rm', ['-f', cliDb]); } catch { /* none */ }
    const s = timed(() => run('sqlite3', [cliDb, '.import --csv --skip 3 ' + file + ' gputrace']));
    r.sqlite3_cli_s = +s.toFixed(4);
    r.sqlite3_cli_rows_per_s = Math.round(rows / s);
    r.ratio_vs_sqlite3_cli = +(r.total_s / s).toFixed(2);
  }
  results.import.push(r);
}

// ---- table
const fmt = (n) => (n >= 1e6 ? (n / 1e6).toFixed(2) + 'M' : n >= 1e3 ? (n / 1e3).toFixed(1) + 'k' : String(n));
console.log(`\nmachine: ${results.machine.cpu}, ${results.machine.cores} cores, ${results.machine.memory_gb} GiB\n`);
console.log('simulator (h100 preset, synthetic workload)');
console.log('  blocks      mode       seconds   blocks/s   peak RSS MB');
for (const r of results.sim)
  console.log(`  ${fmt(r.blocks).padEnd(10)}  ${String(r.mode).padEnd(9)}  ${r.seconds.toFixed(3).padStart(7)}   ${fmt(r.blocks_per_s).padStart(8)}   ${r.peak_rss_mb.toFixed(0).padStart(6)}`);
const mem = results.sim.filter((r) => r.mode === 'memory');
if (mem.length > 1) {
  const a = mem[0], b = mem[mem.length - 1];
  console.log(`  linearity: ${fmt(b.blocks)}/${fmt(a.blocks)} blocks took ${(b.seconds / a.seconds).toFixed(2)}x the time (ideal ${(b.blocks / a.blocks).toFixed(0)}x)`);
}
console.log('\nimporters (parse + store as one run)');
console.log('  format          rows      total s   rows/s     parse rows/s   sqlite3 .import s   ours/CLI');
for (const r of results.import)
  console.log(`  ${r.format.padEnd(14)}  ${fmt(r.rows).padEnd(8)}  ${r.total_s.toFixed(3).padStart(7)}   ${fmt(r.rows_per_s).padStart(7)}    ${fmt(r.parse_rows_per_s).padStart(7)}        ${r.sqlite3_cli_s !== undefined ? r.sqlite3_cli_s.toFixed(3).padStart(7) : '      -'}             ${r.ratio_vs_sqlite3_cli ?? '-'}`);

writeFileSync('bench/results.json', JSON.stringify(results, null, 2) + '\n');
console.log('\nwrote bench/results.json');
