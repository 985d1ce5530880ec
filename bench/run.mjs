// run.mjs -- drive the benchmarks, print one table, write bench/results.json.
// Everything is measured in this one run on this one machine, so the ratios
// (ours against the sqlite3 CLI, 16M against 1M blocks, streamed against in
// memory) are like for like.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, statSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { printQos, printQosPaper, qosPaperSweep, qosSweep } from './qos.mjs';
import { issue9, printIssue9, timedRun } from './issue9.mjs';
import { gpusReplay, traceRows, tracesDir } from './traces.mjs';

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
  sim: [], import: [], rta: [], tasks: [],
};

// ---- simulator: blocks placed per second, in memory and streamed to SQLite
// One process per size and mode, so each peak RSS is that run's own. Mode
// "memory" keeps the whole trace; mode "stream" hands the blocks to SQLite
// in batches while simulating (sim_block_sink -> db_run_add_blocks), so its
// memory should not grow with the block count.
const simSizes = quick ? [1000000] : [1000000, 4000000, 16000000];
const simDb = `${work}/sim-stream.db`;
const rmDb = () => { for (const s of ['', '-wal', '-shm']) try { execFileSync('rm', ['-f', simDb + s]); } catch { /* none */ } };
for (const n of simSizes) {
  for (const args of [[String(n)], ['--db', simDb, String(n)]]) {
    for (const line of jsonLines(run(path.join(bin, 'bench_sim'), args))) results.sim.push(line);
    rmDb();
  }
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

// ---- PyTorch profiler traces (issue 29): our importer's parse of a
// synthetic kineto trace (bench/gen_pytorch_json.py), streamed in batches
// as the store imports it (bench_pytorch.c), against Python's json.load of
// the same file, the parser a user would otherwise script against; target:
// >= 3x as fast, in memory independent of the file's size (100 MB and
// 500 MB; 100 MB quick). Each size BENCH_PYTORCH_REPEAT times (3), ours and
// Python's in turn; the ratios (Python / ours, wall and CPU) as min and median.
{
  const sizes = process.env.BENCH_PYTORCH_MB ? process.env.BENCH_PYTORCH_MB.split(',').map(Number)
    : quick ? [100] : [100, 500];
  const repeat = Number(process.env.BENCH_PYTORCH_REPEAT || 3);
  const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[(s.length - 1) >> 1]; };
  results.pytorch = [];
  for (const mb of sizes) {
    const file = `${work}/big-kineto.json`;
    run('python3', ['bench/gen_pytorch_json.py', String(mb), file]);
    const ours = [], py = [];
    for (let i = 0; i < repeat; i++) {
      ours.push(jsonLines(run(path.join(bin, 'bench_pytorch'), [file]))[0]);
      const tf = `${work}/python-time.json`;
      run('/usr/bin/time', ['-o', tf, '-f', '{"python_s":%e,"python_cpu_s":%U,"python_sys_s":%S,"python_peak_rss_mb":%M}',
        'python3', '-c', 'import json,sys; json.load(open(sys.argv[1]))', file]);
      const p = JSON.parse(readFileSync(tf, 'utf8').trim().split('\n').pop());
      p.python_cpu_s += p.python_sys_s;
      p.python_peak_rss_mb = +(p.python_peak_rss_mb / 1024).toFixed(1);
      py.push(p);
    }
    const wall = ours.map((r, i) => py[i].python_s / r.parse_s);
    const cpu = ours.map((r, i) => py[i].python_cpu_s / r.cpu_s);
    const r = ours[0];
    results.pytorch.push({ file_mb: +(statSync(file).size / 2 ** 20).toFixed(1), kernels: r.kernels, copies: r.copies,
      repeat, parse_s: Math.min(...ours.map((x) => x.parse_s)), cpu_s: Math.min(...ours.map((x) => x.cpu_s)),
      mb_per_s: Math.max(...ours.map((x) => x.mb_per_s)), peak_rss_mb: Math.max(...ours.map((x) => x.peak_rss_mb)),
      python_s: Math.min(...py.map((x) => x.python_s)), python_cpu_s: +Math.min(...py.map((x) => x.python_cpu_s)).toFixed(2),
      python_peak_rss_mb: Math.max(...py.map((x) => x.python_peak_rss_mb)),
      speedup_min: +Math.min(...wall).toFixed(2), speedup_median: +median(wall).toFixed(2),
      cpu_speedup_min: +Math.min(...cpu).toFixed(2), cpu_speedup_median: +median(cpu).toFixed(2) });
    try { execFileSync('rm', ['-f', file]); } catch { /* none */ }
  }
}

// ---- response-time analysis (issue 14): (taskset, approach) analyses per
// second over the GCAPS Fig. 8(a) sweep, on every core and on one, and the
// share of thread time spent drawing tasksets vs analysing them
for (const line of jsonLines(run(path.join(bin, 'bench_rta'), [quick ? '200' : '1000', quick ? '3' : '5']))) results.rta.push(line);

// ---- real-time tasks (issue 13): simulated seconds of the GCAPS case study
// (Table 4 taskset, 30 s) per wall-clock second, each of its four runs
for (const line of jsonLines(run(path.join(bin, 'bench_tasks'), ['scenarios/gcaps-case-study.json', quick ? '5' : '20']))) results.tasks.push(line);

// ---- the rows of the real traces (bench/traces.mjs): cohorts (issue 28,
// cost by kernels, not blocks: the Rodinia Gaussian replay, 4.29 G blocks,
// with cohorts beside a 1/256 grid block by block) and `schedlab replay`
// end to end; each skipped with one line where its trace is not found;
// then the replay of several GPUs stored, on a generated trace
// (gpusReplay; BENCH_BASE_SCHEDLAB: a before beside it)
const traceResults = traceRows({
  bin, schedlab: process.env.SCHEDLAB_BIN || path.join(path.dirname(bin), 'schedlab'), work,
  traces: tracesDir(), run, timedRun,
});
results.cohort = traceResults.cohort;
results.replay = [...traceResults.replay, ...gpusReplay({
  schedlab: process.env.SCHEDLAB_BIN || path.join(path.dirname(bin), 'schedlab'), work, run, timedRun, quick,
})];
results.skipped = traceResults.skipped;

// ---- warp-level model (issue 11): simulated warp instructions per second on
// one core for a full titanv-gpgpusim GPU (80 SMs x 4 sub-cores) under GTO
// with a mixed compute/memory workload; how that scales with the SMs and
// with the warps per sub-core; and the peak memory of a 1G-instruction run
// with issue recording off. One process per row, so each peak RSS is its own.
results.warp = [];
const warpRun = (what, args) => {
  const r = jsonLines(run(path.join(bin, 'bench_warp'), args))[0];
  results.warp.push({ case: what, ...r });
};
warpRun('headline', []);
for (const sms of [10, 20, 40, 80]) warpRun('sms', ['--sms', String(sms), '--blocks', String(25 * sms)]);
for (const w of [16, 32, 64]) warpRun('warps', ['--warps-per-sm', String(w)]);
warpRun('policy', ['--policy', 'lrr']);
warpRun('policy', ['--policy', 'qaws']);
warpRun('recording', ['--record']);
warpRun('1G', ['--blocks', quick ? '12500' : '125000']);
// the memory system (issue 25: at least 20 M/s with all of it), part by part
for (const m of ['fp32', 'dram', 'l1', 'l2', 'all']) warpRun('mem ' + m, ['--mem', m]);
// the scoreboard (program.dep), without and with the memory system
warpRun('scoreboard', ['--scoreboard']);
warpRun('mem all scoreboard', ['--mem', 'all', '--scoreboard']);

// ---- big traces (issue 9): the HTTP API against nginx serving the same
// bytes, the dashboard in headless Chromium, `schedlab simulate`/`import`
// through the CLI, each judged against the issue's goals (bench/issue9.mjs,
// docs/bench.md). Runs against the schedlab binary of the same build.
results.issue9 = await issue9({
  schedlab: process.env.SCHEDLAB_BIN || path.join(path.dirname(bin), 'schedlab'),
  benchBin: bin, work, quick, repo: process.cwd(), simRows: results.sim, csv, csvRows: rows,
  genCsv: (n, file) => run('sh', ['bench/gen_nvprof_csv.sh', String(n), file]),
});

// ---- the ISCA'17 QoS sweep (issue 12): sweep points per second
// (bench/qos.mjs), with the schedlab binary of the same build
results.qos_sweep = qosSweep({ schedlab: process.env.SCHEDLAB_BIN || path.join(path.dirname(bin), 'schedlab'), work, quick });
results.qos_paper_sweep = qosPaperSweep({ schedlab: process.env.SCHEDLAB_BIN || path.join(path.dirname(bin), 'schedlab'), work, quick });

// ---- table
const fmt = (n) => (n >= 1e6 ? (n / 1e6).toFixed(2) + 'M' : n >= 1e3 ? (n / 1e3).toFixed(1) + 'k' : String(n));
console.log(`\nmachine: ${results.machine.cpu}, ${results.machine.cores} cores, ${results.machine.memory_gb} GiB\n`);
console.log('simulator (h100 preset, synthetic workload)');
console.log('  blocks      mode      seconds   blocks/s   cpu s    store s   peak RSS MB');
for (const r of results.sim)
  console.log(`  ${fmt(r.blocks).padEnd(10)}  ${String(r.mode).padEnd(8)}  ${r.seconds.toFixed(3).padStart(7)}   ${fmt(r.blocks_per_s).padStart(8)}   ${r.cpu_seconds.toFixed(2).padStart(6)}   ${r.store_seconds !== undefined ? r.store_seconds.toFixed(2).padStart(7) : '      -'}   ${r.peak_rss_mb.toFixed(0).padStart(11)}`);
for (const mode of ['memory', 'stream']) {
  const rs = results.sim.filter((r) => r.mode === mode);
  if (rs.length > 1) {
    const a = rs[0], b = rs[rs.length - 1];
    console.log(`  ${mode} linearity: ${fmt(b.blocks)}/${fmt(a.blocks)} blocks took ${(b.seconds / a.seconds).toFixed(2)}x the time (ideal ${(b.blocks / a.blocks).toFixed(0)}x)`);
  }
}
const top = Math.max(...results.sim.map((r) => r.blocks));
const memTop = results.sim.find((r) => r.mode === 'memory' && r.blocks === top);
const strTop = results.sim.find((r) => r.mode === 'stream' && r.blocks === top);
if (memTop && strTop) {
  results.sim_stream_vs_memory = { blocks: top, stream_peak_rss_mb: strTop.peak_rss_mb, memory_peak_rss_mb: memTop.peak_rss_mb };
  console.log(`  streamed peak RSS at ${fmt(top)} blocks: ${strTop.peak_rss_mb.toFixed(0)} MB vs ${memTop.peak_rss_mb.toFixed(0)} MB with the trace in memory (${(memTop.peak_rss_mb / strTop.peak_rss_mb).toFixed(1)}x less)`);
}
console.log('\nimporters (parse + store as one run)');
console.log('  format          rows      total s   rows/s     parse rows/s   sqlite3 .import s   ours/CLI');
for (const r of results.import)
  console.log(`  ${r.format.padEnd(14)}  ${fmt(r.rows).padEnd(8)}  ${r.total_s.toFixed(3).padStart(7)}   ${fmt(r.rows_per_s).padStart(7)}    ${fmt(r.parse_rows_per_s).padStart(7)}        ${r.sqlite3_cli_s !== undefined ? r.sqlite3_cli_s.toFixed(3).padStart(7) : '      -'}             ${r.ratio_vs_sqlite3_cli ?? '-'}`);

if (results.pytorch) {
  console.log('\nPyTorch profiler trace (synthetic kineto JSON, streamed as the store imports it; target: >= 3x Python json.load, memory independent of size)');
  console.log('  MB     kernels   ours s (CPU s)   MB/s    peak RSS MB   json.load s (CPU s)   its RSS MB   x wall min/median   x CPU min/median');
  for (const r of results.pytorch)
    console.log(`  ${String(r.file_mb).padEnd(5)}  ${fmt(r.kernels).padEnd(8)}  ${r.parse_s.toFixed(2).padStart(6)} (${r.cpu_s.toFixed(2)})   ${String(r.mb_per_s).padStart(6)}   ${String(r.peak_rss_mb).padStart(8)}     ${r.python_s.toFixed(2).padStart(8)} (${r.python_cpu_s.toFixed(2)})   ${String(r.python_peak_rss_mb).padStart(9)}    ${r.speedup_min}/${r.speedup_median}            ${r.cpu_speedup_min}/${r.cpu_speedup_median}`);
}
// issue 27: 10 analyses per taskset (FMLP+ and MPCP added); the authors' Python with its
// 8 (fmlp.py, mpcp.py included) measured 3,450 analyses per CPU-second on the 2-core EPYC
// (experiments.py -g 1 -e 2 -n 100: 8,000 analyses, 2.32 s user)
console.log('\nresponse-time analysis (GCAPS Fig. 8(a) sweep, 10 analyses per taskset; authors\' Python: ~2.8k/s, 3.45k/s per CPU-s with FMLP+/MPCP)');
console.log('  threads  analyses   best/s    median/s   x Python   draw share   us/taskset drawn   us/analysis   per CPU-second');
for (const r of results.rta)
  console.log(`  ${String(r.threads).padEnd(7)}  ${fmt(r.analyses).padEnd(8)}  ${fmt(r.best_analyses_per_s).padStart(7)}   ${fmt(r.median_analyses_per_s).padStart(7)}    ${(r.best_analyses_per_s / 2800).toFixed(0).padStart(5)}x     ${(100 * r.draw_share).toFixed(1).padStart(5)}%       ${r.draw_us_per_taskset.toFixed(2).padStart(8)}          ${r.analyse_us_per_analysis.toFixed(2).padStart(6)}      ${fmt(r.analyses_per_cpu_s).padStart(7)}`);

console.log('\nreal-time tasks: the GCAPS case study (Table 4 taskset, 30 s simulated; target: < 50 ms a run)');
console.log('  run                    ms/run   fastest ms   simulated s per s   jobs   blocks   pauses');
for (const r of results.tasks)
  console.log(`  ${r.run.padEnd(21)}  ${r.ms_per_run.toFixed(1).padStart(6)}   ${r.min_ms.toFixed(1).padStart(9)}   ${fmt(r.sim_s_per_wall_s).padStart(16)}   ${String(r.jobs).padStart(5)}   ${fmt(r.blocks).padStart(6)}   ${fmt(r.pauses).padStart(6)}`);

if (results.cohort.length) {
  console.log('\ncohorts (issue 28): Rodinia Gaussian replay, RTX 3090; target: replay < 5 s, < 300 MB');
  console.log('  case                  blocks          records    wall s   cpu s   blocks/CPU-s (per block-equivalent)   peak RSS MB');
  for (const r of results.cohort)
    console.log(`  ${r.case.padEnd(20)}  ${fmt(r.blocks ?? 0).padStart(13)}  ${fmt(r.records ?? 0).padStart(10)}  ${r.seconds.toFixed(2).padStart(7)}  ${r.cpu_seconds.toFixed(2).padStart(6)}   ${fmt(r.blocks_per_s ?? 0).padStart(16)}                     ${r.peak_rss_mb.toFixed(0).padStart(6)}`);
}
if (results.replay.length) {
  console.log('\nschedlab replay end to end (target: < 300 MB peak RSS each)');
  console.log('  trace                        case              wall s   cpu s   peak RSS MB   (min; median of repeats where there are)');
  for (const r of results.replay) {
    const med = r.repeat ? `   median ${r.seconds_median.toFixed(2)} s, ${r.cpu_seconds_median.toFixed(2)} cpu s, ${r.peak_rss_mb_median.toFixed(0)} MB (${r.repeat} repeats)` : '';
    console.log(`  ${r.trace.padEnd(27)}  ${r.case.padEnd(16)}  ${r.seconds.toFixed(2).padStart(6)}  ${r.cpu_seconds.toFixed(2).padStart(6)}   ${r.peak_rss_mb.toFixed(0).padStart(11)}${med}`);
  }
}
for (const line of results.skipped) console.log(`\n${line}`);

console.log('\nwarp-level model (titanv-gpgpusim, GTO unless said, compute + memory kernels; M warp instructions/s)');
console.log('  case        SMs  warps/sub-core  instructions   wall s   M/s wall   M/s CPU   peak RSS MB');
for (const r of results.warp)
  console.log(`  ${(r.case + (r.policy !== 'gto' ? ' ' + r.policy : '')).padEnd(10)}  ${String(r.sms).padStart(3)}  ${String(r.warps_per_subcore).padStart(14)}  ${fmt(r.instructions).padStart(12)}   ${r.seconds.toFixed(2).padStart(6)}   ${(r.instr_per_s / 1e6).toFixed(1).padStart(8)}   ${(r.instr_per_cpu_s / 1e6).toFixed(1).padStart(7)}   ${r.peak_rss_mb.toFixed(0).padStart(11)}`);

printIssue9(results.issue9);

printQos(results.qos_sweep);
printQosPaper(results.qos_paper_sweep);

writeFileSync('bench/results.json', JSON.stringify(results, null, 2) + '\n');
console.log('\nwrote bench/results.json');
