// traces.mjs -- make bench's rows that need the real traces (docs/bench.md:
// "cohorts" and "replay"), and where it finds them: $SCHEDLAB_TRACES, else
// shared/traces in the folder above the checkout, as the tests find them
// (README, "The tests and the real traces"). A row whose trace is not there
// is skipped with one line naming the file, printed with the tables.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { gpusTrace } from '../tests/fixtures/gpus_trace.mjs';
import { median } from './http.mjs';

export const REPLAY_CASES = [
  ['Rodinia Gaussian, RTX 3090', 'nsys2022.4_export_rodinia_gaussian_rtx3090_8k_kernels_report2.sqlite', [['--store']]],
  ['CloverLeaf, A100', 'nsys2024.5_export_pipit_cloverleaf_a100.sqlite', [['-o', 'replay.json'], ['--store']]],
];

export function tracesDir(env = process.env, repo = process.cwd()) {
  return env.SCHEDLAB_TRACES || path.resolve(repo, '../shared/traces');
}

// The cohort rows (bench_cohort, which says itself when it skips) and the
// replay rows. run(cmd, args) -> stdout; timedRun(cmd, args) -> {seconds,
// cpu_seconds, rss_mb}. Returns {cohort, replay, skipped}.
export function traceRows({ bin, schedlab, work, traces, run, timedRun }) {
  const skipped = [];
  const out = run(path.join(bin, 'bench_cohort'), [traces]);
  const cohort = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  if (!cohort.length) skipped.push(out.trim() || `bench_cohort: no rows from ${traces}`);

  // `schedlab replay` end to end, peak RSS by /usr/bin/time: the Gaussian
  // (cohorts) stored with both placements; CloverLeaf (38 M blocks over
  // 1,312 kernels, no block records: every simulation of the derivation, the
  // fidelity and the held-out prediction keeps no blocks) to a file and
  // stored. Target < 300 MB each, the derivation's bound (issue 28).
  const replay = [];
  for (const [trace, file, cases] of REPLAY_CASES) {
    const src = path.join(traces, file);
    if (!existsSync(src)) {
      skipped.push(`replay ${trace}: skipped: ${src} not found (SCHEDLAB_TRACES names the real traces' folder)`);
      continue;
    }
    const db = path.join(work, 'replay.db');
    for (const s of ['', '-wal', '-shm']) rmSync(db + s, { force: true });
    const id = run(schedlab, ['import', src, '--db', db]).trim();
    for (const args of cases) {
      const a = args.map((x) => (x.endsWith('.json') ? path.join(work, x) : x));
      const r = timedRun(schedlab, ['replay', id, '--db', db, ...a]);
      replay.push({ bench: 'replay', trace, case: `replay ${args[0]}`, seconds: r.seconds, cpu_seconds: r.cpu_seconds, peak_rss_mb: r.rss_mb });
    }
  }
  return { cohort, replay, skipped };
}

// make bench's replay row of several GPUs, beside the real traces' (it
// needs none): `schedlab replay --store` of tests/fixtures/gpus_trace.mjs's
// 4 GPUs x 10 kernels x 50,000 blocks (0.5 M blocks a GPU, 2 M a run),
// each GPU simulated on its own, the runs merged and stored with their
// reports (replay_devices_store.c: the replay and its round-robin
// variant). BENCH_REPLAY_REPEAT times (5; BENCH_QUICK 3), each on a fresh
// database (the import not timed): min and median of each measure, and
// every repeat in `runs`. With BENCH_BASE_SCHEDLAB naming another build
// of schedlab (a before), that one runs beside it, repeat by repeat, as a
// row of its own ("... (base)"). Target: < 300 MB peak RSS, as the rows
// above.
export function gpusReplay({ schedlab, work, run, timedRun, quick = false, env = process.env }) {
  const file = path.join(work, 'gpus4.json');
  writeFileSync(file, JSON.stringify(gpusTrace({ gpus: 4, kernels: 10, blocks: 50000 })));
  const repeat = Number(env.BENCH_REPLAY_REPEAT) || (quick ? 3 : 5);
  const bins = [['', schedlab]];
  if (env.BENCH_BASE_SCHEDLAB) bins.push([' (base)', env.BENCH_BASE_SCHEDLAB]);
  const runs = bins.map(() => []);
  for (let i = 0; i < repeat; i++) {
    bins.forEach(([, bin], b) => {
      const db = path.join(work, 'gpus4.db');
      for (const s of ['', '-wal', '-shm']) rmSync(db + s, { force: true });
      const id = run(bin, ['import', file, '--db', db]).trim();
      runs[b].push(timedRun(bin, ['replay', id, '--db', db, '--store', '-o', '/dev/null']));
    });
  }
  rmSync(file, { force: true });
  return bins.map(([tag], b) => {
    const r = runs[b];
    const pick = (k, f) => +f(r.map((x) => x[k])).toFixed(2);
    return { bench: 'replay', trace: `4 GPUs x 0.5 M blocks${tag}`, case: 'replay --store', repeat,
      seconds: pick('seconds', (v) => Math.min(...v)), seconds_median: pick('seconds', median),
      cpu_seconds: pick('cpu_seconds', (v) => Math.min(...v)), cpu_seconds_median: pick('cpu_seconds', median),
      peak_rss_mb: pick('rss_mb', (v) => Math.min(...v)), peak_rss_mb_median: pick('rss_mb', median), runs: r };
  });
}
