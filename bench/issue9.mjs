// issue9.mjs -- make bench's rows for big traces (issue 9; docs/bench.md):
// the HTTP API against nginx serving the same bytes, the dashboard in
// headless Chromium, `schedlab simulate` of 16 M blocks, the simulator
// streamed to SQLite and in memory, and `schedlab import` of a 1 M-row
// nvprof CSV. Every row runs >= 3 times and is judged against the issue's
// goal on its median; the table prints median (min-max) and the ratio.

import { spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { benchScenario } from './scenario.mjs';
import { startSchedlab, startNginx, wrkRepeated, fetchRepeated, waitIdle, have, median, min, max } from './http.mjs';
import { openBrowser, timeRunPage } from './browser.mjs';

const REPEATS = 3;
const WINDOW_BLOCKS = 10000;      // the issue's window: 10 K blocks
const ZOOM_BLOCKS = 80000;        // a zoomed-in window still past the API's max (bins)
const API_MAX = 20000;            // the API's default max, which the dashboard asks for
const COMPARE_BLOCKS = 1000000;   // the compare view's row: two runs of this size
const KERNEL_RUN = 1000000;       // the kernel-level row: an nvprof import of this many kernels
const compareName = (n) => `bench ${label(n)} blocks, two placements`;

const label = (n) => (n % 1e6 === 0 ? `${n / 1e6}M` : `${n / 1e3}k`);
const stats = (xs) => {
  const v = xs.filter((x) => x !== null && x !== undefined && Number.isFinite(x));
  return v.length ? { median: median(v), min: min(v), max: max(v), n: v.length } : { median: null, min: null, max: null, n: 0 };
};
// Runs one row; an exception becomes an entry of out.errors (a failed goal).
async function attempt(out, what, fn) {
  try {
    await fn();
  } catch (e) {
    out.errors.push({ what, error: String(e.message || e).split('\n').slice(0, 3).join(' ') });
  }
}
const rm = (f) => { for (const s of ['', '-wal', '-shm']) fs.rmSync(f + s, { force: true }); };

// /usr/bin/time -f: peak RSS (KB) and wall seconds of one command, stdout
// thrown away (so the row times the writer, not a disk).
export function timedRun(cmd, args) {
  const devnull = fs.openSync('/dev/null', 'w');
  try {
    const r = spawnSync('/usr/bin/time', ['-f', 'BENCHTIME %M %e %U %S', cmd, ...args],
      { stdio: ['ignore', devnull, 'pipe'], encoding: 'utf8', maxBuffer: 1 << 24 });
    const m = /BENCHTIME (\d+) ([\d.]+) ([\d.]+) ([\d.]+)/.exec(r.stderr || '');
    if (r.status !== 0 || !m) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${(r.stderr || '').trim().slice(-600)}`);
    return { rss_mb: +(Number(m[1]) / 1024).toFixed(1), seconds: Number(m[2]), cpu_seconds: Number(m[3]) + Number(m[4]) };
  } finally {
    fs.closeSync(devnull);
  }
}

// The window around the run's middle holding `want` blocks (within 3 %),
// found by asking the API: block density is not uniform over a run.
async function windowOf(srv, run, sum, want) {
  const lo = sum.t_min, hi = sum.t_max, span = hi - lo, mid = lo + span / 2;
  let w = (span * want) / sum.blocks;
  let best = null;
  for (let i = 0; i < 10; i++) {
    const from = Math.max(lo, Math.round(mid - w / 2)), to = Math.min(hi, Math.round(mid + w / 2));
    const p = `/api/runs/${run}/blocks?from=${from}&to=${to}`;
    const r = await srv.json(p);
    const n = r.mode === 'blocks' ? r.blocks.length : Number.isFinite(r.total) && r.total > API_MAX ? r.total : null;
    if (r.mode === 'blocks') best = { path: p, from, to, blocks: n };
    if (n !== null && Math.abs(n - want) <= want * 0.03 && r.mode === 'blocks') return best;
    w = n ? (w * want) / n : w / 2;
  }
  if (best) return best;
  throw new Error(`run ${run}: no window of about ${want} blocks answered in mode "blocks"`);
}

// The dashboard rows of one run: REPEATS navigations, each with its zoom
// step. Returns the first block request the page made (the bins row asks
// exactly that), or null.
// `page`: the page's path (the run's own page unless given: the compare
// view's row asks for /compare?runs=A,B); `what`: how the goals name it.
async function browserRows(out, { srv, browser, run, n, quick, page = `/runs/${run}`, what = `${label(n)} run: dashboard`, zoomGoal = true }) {
  const navs = [];
  let failed = null;
  for (let i = 0; i < REPEATS && !failed; i++) {
    try {
      navs.push(await timeRunPage(browser, `${srv.base}${page}`, { timeoutMs: quick ? 60000 : 120000 }));
    } catch (e) {
      // a page that never draws is a failed row, not a failed bench
      failed = e.message.split('\n')[0];
      navs.push({ nav_ms: null, zoom_ms: null, zoom_fetched: null, zoom_why: failed, requests: [], zoom_requests: [], mode: null, problems: [] });
    }
  }
  const nav = stats(navs.map((r) => r.nav_ms)), zoom = stats(navs.map((r) => r.zoom_ms));
  const r1 = (v) => (v === null ? null : +v.toFixed(1));
  out.browser.push({
    run_blocks: n, run, page, what, repeats: REPEATS, zoom_goal: zoomGoal,
    nav_ms: navs.map((r) => r1(r.nav_ms)), zoom_ms: navs.map((r) => r1(r.zoom_ms)),
    nav_ms_min: nav.min, nav_ms_median: nav.median, zoom_ms_min: zoom.min, zoom_ms_median: zoom.median,
    zoom_fetched: navs.map((r) => r.zoom_fetched), zoom_why: navs.map((r) => r.zoom_why).find((x) => x) || null,
    nav_requests: navs[0].requests, zoom_requests: navs[0].zoom_requests, mode: navs[0].mode,
    problems: [...new Set(navs.flatMap((r) => r.problems))], error: failed,
  });
  return navs[0].requests.find((p) => p.startsWith(`/api/runs/${run}/`) && /blocks|bins|tiles|occupancy/.test(p)) || null;
}

// One HTTP case: ours, then nginx serving the bytes ours answered.
async function httpCase(out, { srv, ng, c, files, n, run, wrkSeconds }) {
  const got = Buffer.from(await (await fetch(ng.url(`${c.key}.json`))).arrayBuffer());
  if (Buffer.compare(got, files[`${c.key}.json`]) !== 0) throw new Error(`nginx does not serve the bytes of ${c.path}`);
  const opts = { threads: c.threads, conns: c.conns, seconds: wrkSeconds };
  // one connection and a request slower than a second: wrk's run would
  // finish few or none, so each repeat times one request
  const slow = c.conns === 1 && c.first_ms > 1000;
  // (a request over 10 s is timed once: it misses its goal by 1000x, and
  // three would take the bench past its time)
  waitIdle(srv.pid);
  const ours = slow ? await fetchRepeated(srv.base + c.path, c.first_ms > 10000 ? 1 : REPEATS, c.first_ms)
    : wrkRepeated(srv.base + c.path, opts, REPEATS, srv.pid);
  // nginx runs on a quiet machine too: not beside our server still
  // computing the answers wrk gave up on
  waitIdle(srv.pid);
  const ceil = wrkRepeated(ng.url(`${c.key}.json`), opts, REPEATS);
  out.http.push({
    case: c.key, what: c.what, run_blocks: n, run, path: c.path, source: c.source ?? null, mode: c.mode,
    bytes: c.bytes, first_ms: +c.first_ms.toFixed(1), conns: c.conns, threads: c.threads, seconds: wrkSeconds, repeats: REPEATS,
    schedlab: ours, nginx: ceil, ratio_rps: +(ours.rps_median / ceil.rps_median).toFixed(3),
  });
}

// Every row of the n-block run the server stored.
async function runRows(out, { srv, browser, exps, n, quick, canHttp, wrkSeconds }) {
  const exp = exps.find((e) => e.name === `bench ${label(n)} blocks`);
  if (!exp || !exp.runs.length) throw new Error(`the server stored no run for bench ${label(n)} blocks`);
  const run = exp.runs[0].run;
  const sum = (await srv.json(`/api/runs/${run}`)).summary;
  if (sum.blocks !== n) throw new Error(`run ${run} has ${sum.blocks} blocks, not ${n}`);
  const firstBlocks = browser ? await browserRows(out, { srv, browser, run, n, quick }) : null;
  // issue 15: the same targets on the compare view, two runs of this size
  // (the same kernels placed by most-room and by round-robin) one above
  // the other
  const cmp = exps.find((e) => e.name === compareName(n));
  if (browser && cmp) {
    if (cmp.runs.length !== 2) throw new Error(`${compareName(n)}: ${cmp.runs.length} runs stored, not 2`);
    const runs = cmp.runs.map((r) => r.run);
    await browserRows(out, { srv, browser, run: runs.join(','), n, quick, page: `/compare?runs=${runs.join(',')}`,
      what: `two ${label(n)} runs: compare view` });
  }
  if (!canHttp) return;

  // the exact responses, fetched once: ours are served from them by nginx
  const win = await windowOf(srv, run, sum, WINDOW_BLOCKS);
  const binsPath = firstBlocks || `/api/runs/${run}/blocks?max=${API_MAX}`;
  const span = sum.t_max - sum.t_min, mid = sum.t_min + span / 2, zw = (span * ZOOM_BLOCKS) / n;
  const zoomPath = `/api/runs/${run}/blocks?from=${Math.round(mid - zw / 2)}&to=${Math.round(mid + zw / 2)}&max=${API_MAX}`;
  const cases = [
    { key: 'window', what: `blocks window (${label(win.blocks)} blocks)`, path: win.path, conns: 64, threads: 2 },
    { key: 'bins', what: 'whole-run bins (the dashboard\'s first)', path: binsPath, conns: 1, threads: 1, source: firstBlocks ? 'dashboard' : 'default' },
    { key: 'zoomed', what: `zoomed bins (~${label(ZOOM_BLOCKS)} blocks in view)`, path: zoomPath, conns: 1, threads: 1 },
  ];
  const files = {};
  for (const c of cases) {
    const t0 = performance.now();
    const buf = await srv.bytes(c.path);
    c.first_ms = performance.now() - t0;
    files[`${c.key}.json`] = buf;
    c.bytes = buf.length;
    try {
      c.mode = JSON.parse(buf.toString('utf8')).mode ?? null;
    } catch {
      c.mode = null;
    }
  }
  const ng = await startNginx(files);
  try {
    for (const c of cases) await attempt(out, `${label(n)} run: ${c.what}`, () => httpCase(out, { srv, ng, c, files, n, run, wrkSeconds }));
  } finally {
    await ng.stop();
  }
}

// The dashboard rows of a kernel-level run (nvprof, no blocks) of
// KERNEL_RUN kernels, imported by `schedlab import` from
// bench/gen_nvprof_kernels.sh's CSV: drawn by window from the per-stream
// pyramid (db/spyramid.h), which the run's first read builds (timed apart:
// once per run, a note).
export async function kernelRows(out, { schedlab, dir, browser, quick, repo }) {
  const csvK = path.join(dir, 'kernels-nvprof.csv');
  const db = path.join(dir, 'kernels.db');
  rm(db);
  execFileSync('sh', [path.join(repo, 'bench/gen_nvprof_kernels.sh'), String(KERNEL_RUN), csvK]);
  const run = execFileSync(schedlab, ['import', csvK, '--format', 'nvprof-csv', '--db', db, '--name', `bench-${label(KERNEL_RUN)}-kernels`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  fs.rmSync(csvK, { force: true });
  const scn = path.join(dir, 'kernels-scenarios');
  fs.mkdirSync(scn, { recursive: true });
  const srv = await startSchedlab(schedlab, { db, scenarios: scn, cwd: repo });
  try {
    const t0 = Date.now();
    const first = await srv.json(`/api/runs/${run}/kernels?max=20000`);
    if (first.mode !== 'bins' || first.kernels_total !== KERNEL_RUN) throw new Error(`run ${run}: ${first.kernels_total} kernels, mode ${first.mode}`);
    out.notes.push(`${label(KERNEL_RUN)}-kernel nvprof run: per-stream pyramid built on its first read in ${((Date.now() - t0) / 1000).toFixed(2)} s`);
    await browserRows(out, { srv, browser, run, n: KERNEL_RUN, quick, what: `${label(KERNEL_RUN)}-kernel nvprof run: dashboard` });
  } finally {
    await srv.stop();
    rm(db);
  }
}

// The same rows for the real case: bench/gen_nvprof_csv.sh's CSV of
// KERNEL_RUN rows, the shape of a real nvprof trace (batchCUBLAS: about
// 81 % memcpy rows), drawn by window from both pyramids: the kernels'
// per-stream bins and the copies' per-engine bins (issue 9's copy lanes).
export async function mixedRows(out, { schedlab, dir, browser, quick, repo }) {
  const csvM = path.join(dir, 'mixed-nvprof.csv');
  const db = path.join(dir, 'mixed.db');
  rm(db);
  execFileSync('sh', [path.join(repo, 'bench/gen_nvprof_csv.sh'), String(KERNEL_RUN), csvM]);
  const run = execFileSync(schedlab, ['import', csvM, '--format', 'nvprof-csv', '--db', db, '--name', `bench-${label(KERNEL_RUN)}-mixed`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  fs.rmSync(csvM, { force: true });
  const scn = path.join(dir, 'mixed-scenarios');
  fs.mkdirSync(scn, { recursive: true });
  const srv = await startSchedlab(schedlab, { db, scenarios: scn, cwd: repo });
  try {
    const t0 = Date.now();
    const [k, c] = [await srv.json(`/api/runs/${run}/kernels?max=20000`), await srv.json(`/api/runs/${run}/copies?max=20000`)];
    if (k.kernels_total + c.copies_total !== KERNEL_RUN) throw new Error(`run ${run}: ${k.kernels_total} kernels and ${c.copies_total} copies, modes ${k.mode}/${c.mode}`);
    out.notes.push(`${label(KERNEL_RUN)}-row nvprof run (${c.copies_total} copies, ${k.kernels_total} kernels): both pyramids built on their first reads in ${((Date.now() - t0) / 1000).toFixed(2)} s`);
    await browserRows(out, { srv, browser, run, n: KERNEL_RUN, quick, what: `${label(KERNEL_RUN)}-row nvprof run (kernels + copies): dashboard` });
  } finally {
    await srv.stop();
    rm(db);
  }
}

export async function issue9({ schedlab, benchBin, work, quick, repo, simRows, csv, csvRows, genCsv }) {
  const out = { http: [], browser: [], simulate: [], sim_repeats: [], import_cli: [], goals: [], notes: [], errors: [] };
  const sizes = quick ? [1000000] : [1000000, 16000000];
  const dir = path.join(work, 'issue9');
  const scn = path.join(dir, 'scenarios');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(scn, { recursive: true });
  const scnFile = {};
  for (const n of sizes) {
    scnFile[n] = path.join(scn, `bench-${label(n)}.json`);
    fs.writeFileSync(scnFile[n], JSON.stringify(benchScenario(n), null, 1));
  }
  // the compare view's row (1 M blocks): the same kernels under most-room
  // and round-robin, one experiment of two runs
  const cmpScn = { ...benchScenario(COMPARE_BLOCKS), name: compareName(COMPARE_BLOCKS),
    variants: [{ name: 'round-robin', policy: { placement: 'round-robin' } }] };
  fs.writeFileSync(path.join(scn, `bench-${label(COMPARE_BLOCKS)}-compare.json`), JSON.stringify(cmpScn, null, 1));
  // issue 30: the GCAPS case study's compare of its four policies, drawn
  // task by task (target: under 1 s), as shipped
  const caseStudy = JSON.parse(fs.readFileSync(path.join(repo, 'scenarios/gcaps-case-study.json'), 'utf8'));
  fs.copyFileSync(path.join(repo, 'scenarios/gcaps-case-study.json'), path.join(scn, 'gcaps-case-study.json'));
  const wrkSeconds = quick ? 3 : 5;
  const canHttp = have('wrk') && have('nginx');
  if (!canHttp) out.notes.push('wrk or nginx is missing (tools/install-deps.sh installs both): no HTTP rows');

  // ---- the server, its runs stored by its own seeding path
  const db = path.join(dir, 'serve.db');
  rm(db);
  const srv = await startSchedlab(schedlab, { db, scenarios: scn, cwd: repo });
  out.seed_seconds = +srv.seedSeconds.toFixed(1);
  let browser = null;
  try {
    try {
      browser = await openBrowser();
    } catch (e) {
      out.notes.push(`no browser rows: ${e.message.split('\n')[0]}`);
    }
    const exps = (await srv.json('/api/experiments')).experiments;
    // a row that breaks is a failed goal, not a failed bench
    for (const n of sizes) await attempt(out, `${label(n)} run`, () => runRows(out, { srv, browser, exps, n, quick, canHttp, wrkSeconds }));
    if (browser) {
      await attempt(out, 'GCAPS case-study compare', async () => {
        const cs = exps.find((e) => e.name === caseStudy.name);
        if (!cs || cs.runs.length < 2) throw new Error(`the server stored no runs of "${caseStudy.name}"`);
        const runs = cs.runs.map((r) => r.run).join(',');
        const blocks = (await srv.json(`/api/runs/${cs.runs[0].run}`)).summary.blocks;
        // compared task by task (tasks_compare.mjs): a table and charts of
        // response times, no time axis to zoom, so issue 30's target is the
        // draw alone
        await browserRows(out, { srv, browser, run: runs, n: blocks, quick, page: `/compare?runs=${runs}`,
          what: `GCAPS case study, its ${cs.runs.length} policies: compare view (target < 1 s)`, zoomGoal: false });
      });
    }
  } finally {
    await srv.stop();
  }
  try {
    if (browser) await attempt(out, `${label(KERNEL_RUN)}-kernel nvprof run`, () => kernelRows(out, { schedlab, dir, browser, quick, repo }));
    if (browser) await attempt(out, `${label(KERNEL_RUN)}-row nvprof run (kernels + copies)`, () => mixedRows(out, { schedlab, dir, browser, quick, repo }));
  } finally {
    if (browser) await browser.close();
  }
  rm(db);

  // ---- schedlab simulate of the biggest run: peak RSS and blocks/s written
  const top = sizes[sizes.length - 1];
  await attempt(out, `schedlab simulate, ${label(top)} blocks`, () => {
    for (let i = 0; i < REPEATS; i++) {
      const r = timedRun(schedlab, ['simulate', scnFile[top]]);
      out.simulate.push({ blocks: top, seconds: r.seconds, cpu_seconds: +r.cpu_seconds.toFixed(2), blocks_per_s: Math.round(top / r.seconds), peak_rss_mb: r.rss_mb });
    }
  });

  // ---- the simulator through the C API (bench_sim): two more runs of the
  // biggest size in each mode beside the one the sim section made
  const simTop = Math.max(...simRows.map((r) => r.blocks));
  const simDb = path.join(dir, 'sim.db');
  await attempt(out, `bench_sim, ${label(simTop)} blocks`, () => {
    for (let i = 0; i < REPEATS - 1; i++) {
      for (const args of [[String(simTop)], ['--db', simDb, String(simTop)]]) {
        // a mode whose run took over a minute is not repeated: the bench
        // stays bounded in time, and the row says n=1
        const mode = args[0] === '--db' ? 'stream' : 'memory';
        const prev = simRows.find((r) => r.blocks === simTop && r.mode === mode);
        if (prev && prev.seconds > 60) continue;
        const o = execFileSync(path.join(benchBin, 'bench_sim'), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
        for (const l of o.split('\n').filter((x) => x.startsWith('{'))) out.sim_repeats.push(JSON.parse(l));
        rm(simDb);
      }
    }
  });
  const simAll = [...simRows.filter((r) => r.blocks === simTop), ...out.sim_repeats];

  // ---- schedlab import of the big nvprof CSV, and of one a fifth its size:
  // the peak RSS must not follow the file size
  const impDb = path.join(dir, 'import.db');
  await attempt(out, `schedlab import, ${label(csvRows)}-row nvprof CSV`, () => {
    for (let i = 0; i < REPEATS; i++) {
      rm(impDb);
      const r = timedRun(schedlab, ['import', csv, '--format', 'nvprof-csv', '--db', impDb]);
      out.import_cli.push({ rows: csvRows, file_mb: +(fs.statSync(csv).size / 2 ** 20).toFixed(1), seconds: r.seconds, rows_per_s: Math.round(csvRows / r.seconds), peak_rss_mb: r.rss_mb });
    }
    const smallRows = Math.round(csvRows / 5), smallCsv = path.join(dir, 'small-nvprof.csv');
    genCsv(smallRows, smallCsv);
    rm(impDb);
    const small = timedRun(schedlab, ['import', smallCsv, '--format', 'nvprof-csv', '--db', impDb]);
    out.import_small = { rows: smallRows, file_mb: +(fs.statSync(smallCsv).size / 2 ** 20).toFixed(1), seconds: small.seconds, peak_rss_mb: small.rss_mb };
    rm(impDb);
    fs.rmSync(smallCsv, { force: true });
  });

  out.goals = goals(out, simAll, simTop);
  return out;
}

// The issue's right column, row by row: value (median of the repeats),
// min-max, goal, ratio (ours/nginx where nginx is the ceiling, else
// value/goal), ok.
function goals(out, simAll, simTop) {
  const g = [];
  const add = (what, unit, s, goal, ok, ratio, extra = {}) => g.push({
    what, unit, median: s.median, min: s.min, max: s.max, n: s.n, goal, ok: s.median !== null && ok,
    ratio: s.median === null || ratio === null || ratio === undefined || !Number.isFinite(ratio) ? null : +ratio.toFixed(3), ...extra,
  });
  for (const h of out.http) {
    const tag = `${label(h.run_blocks)} run`;
    const rps = stats(h.schedlab.runs.map((r) => r.rps));
    const p99 = stats(h.schedlab.runs.map((r) => r.p99_ms));
    const fail = h.schedlab.failed ? ` (${h.schedlab.failed} failed requests)` : '';
    if (h.case === 'window') {
      add(`${tag}: ${h.what}, ${h.conns} conns, rps${fail}`, 'rps', rps, `>= 50 % of nginx (${Math.round(h.nginx.rps_median)})`,
        !h.schedlab.failed && h.ratio_rps >= 0.5, h.ratio_rps, { ceiling: h.nginx.rps_median });
      add(`${tag}: ${h.what}, ${h.conns} conns, p99`, 'ms', p99, '< 50 ms', p99.median < 50, p99.median / 50, { ceiling: h.nginx.p99_ms_median });
    } else {
      add(`${tag}: ${h.what}, 1 conn, p99 per request${fail}`, 'ms', p99, `< 10 ms (nginx ${h.nginx.p99_ms_median} ms)`,
        !h.schedlab.failed && p99.median < 10, p99.median / 10, { ceiling: h.nginx.p99_ms_median, ratio_rps: h.ratio_rps });
    }
  }
  for (const b of out.browser) {
    const tag = b.what || `${label(b.run_blocks)} run: dashboard`;
    add(`${tag} navigation -> drawn${b.error ? ` (${b.error.slice(0, 60)})` : ''}`, 'ms', stats(b.nav_ms), '< 1000 ms',
      !b.error && stats(b.nav_ms).median < 1000, stats(b.nav_ms).median / 1000);
    if (b.zoom_goal !== false)
      add(`${tag}, one zoom step${b.zoom_why ? ` (${b.zoom_why})` : ''}`, 'ms', stats(b.zoom_ms), '< 150 ms', stats(b.zoom_ms).n === b.zoom_ms.length && stats(b.zoom_ms).median < 150, stats(b.zoom_ms).median / 150);
  }
  if (out.simulate.length) {
    const n = label(out.simulate[0].blocks);
    const rss = stats(out.simulate.map((r) => r.peak_rss_mb)), bps = stats(out.simulate.map((r) => r.blocks_per_s));
    add(`schedlab simulate, ${n} blocks: peak RSS`, 'MB', rss, '< 100 MB', rss.max < 100, rss.median / 100);
    add(`schedlab simulate, ${n} blocks: blocks/s written`, 'blocks/s', bps, '>= 5M/s', bps.median >= 5e6, bps.median / 5e6);
  }
  const stream = stats(simAll.filter((r) => r.mode === 'stream').map((r) => r.blocks_per_s));
  const mem = stats(simAll.filter((r) => r.mode === 'memory').map((r) => r.blocks_per_s));
  add(`simulation streamed to SQLite, ${label(simTop)} blocks`, 'blocks/s', stream, '>= 3M/s', stream.median >= 3e6, stream.median / 3e6);
  add(`block placements in memory (h100, 4,096 kernels), ${label(simTop)} blocks`, 'blocks/s', mem, '>= 20M/s', mem.median >= 20e6, mem.median / 20e6);
  if (out.import_cli.length) {
    const r = out.import_cli[0];
    const rps = stats(out.import_cli.map((x) => x.rows_per_s)), rss = stats(out.import_cli.map((x) => x.peak_rss_mb));
    add(`schedlab import, ${label(r.rows)}-row nvprof CSV (${r.file_mb} MB)`, 'rows/s', rps, '>= 1.5M/s', rps.median >= 1.5e6, rps.median / 1.5e6);
    const s = out.import_small;
    if (s) add(`  its peak RSS vs a ${label(s.rows)}-row file (${s.peak_rss_mb} MB)`, 'MB', rss, `<= 1.25x the small file's + 8 MB`,
      rss.median <= 1.25 * s.peak_rss_mb + 8, rss.median / s.peak_rss_mb);
  }
  // a row that could not run at all
  for (const e of out.errors) g.push({ what: `${e.what}: ${e.error}`, unit: '', median: null, min: null, max: null, goal: 'runs', ok: false, ratio: null });
  return g;
}

const fmtN = (v, unit) => {
  if (v === null || v === undefined) return '-';
  if (unit === 'ms') return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  if (unit === 'MB') return v.toFixed(0);
  return v >= 1e6 ? (v / 1e6).toFixed(2) + 'M' : v >= 1e3 ? (v / 1e3).toFixed(1) + 'k' : v.toFixed(0);
};

export function printIssue9(r) {
  if (!r) return;
  console.log('\nbig traces (issue 9): HTTP against nginx serving the same bytes (wrk), the dashboard (headless Chromium)');
  console.log(`  runs stored by \`schedlab serve\` from bench scenarios in ${r.seed_seconds} s; every row ${REPEATS} times, median (min-max)`);
  console.log('  run   case                                   KB     conns   schedlab rps            p50 ms    p99 ms     nginx rps              p99 ms   ours/nginx');
  for (const h of r.http) {
    const o = h.schedlab, n = h.nginx;
    console.log(`  ${label(h.run_blocks).padEnd(4)}  ${h.what.padEnd(37)}  ${String(Math.round(h.bytes / 1024)).padStart(6)}  ${String(h.conns).padStart(5)}   ${`${fmtN(o.rps_median)} (${fmtN(o.rps_min)}-${fmtN(o.rps_max)})${o.how === 'wrk' ? '' : '*'}`.padEnd(22)}  ${fmtN(o.p50_ms_median, 'ms').padStart(7)}  ${fmtN(o.p99_ms_median, 'ms').padStart(8)}     ${`${fmtN(n.rps_median)} (${fmtN(n.rps_min)}-${fmtN(n.rps_max)})`.padEnd(22)}  ${fmtN(n.p99_ms_median, 'ms').padStart(6)}   ${h.ratio_rps.toFixed(3)}`);
  }
  for (const b of r.browser)
    console.log(`  ${label(b.run_blocks).padEnd(4)}  ${b.what && b.what.startsWith('GCAPS') ? b.what : b.page && b.page.startsWith('/compare') ? 'compare view (two runs)' : b.what && b.what.includes('-kernel') ? 'kernel-level nvprof run' : b.what && b.what.includes('-row nvprof') ? 'nvprof run, kernels + copies' : 'dashboard'}: navigation -> drawn ${fmtN(b.nav_ms_median, 'ms')} ms (min ${fmtN(b.nav_ms_min, 'ms')}), one zoom step ${fmtN(b.zoom_ms_median, 'ms')} ms (min ${fmtN(b.zoom_ms_min, 'ms')}); ${b.nav_requests.length} API requests to draw, ${b.zoom_requests.length} to zoom`);
  for (const s of r.simulate)
    console.log(`  schedlab simulate ${label(s.blocks)} blocks: ${s.seconds.toFixed(2)} s, ${fmtN(s.blocks_per_s)} blocks/s, peak RSS ${s.peak_rss_mb.toFixed(0)} MB`);
  for (const s of r.import_cli)
    console.log(`  schedlab import ${label(s.rows)}-row nvprof CSV (${s.file_mb} MB): ${s.seconds.toFixed(2)} s, ${fmtN(s.rows_per_s)} rows/s, peak RSS ${s.peak_rss_mb.toFixed(0)} MB`);
  if (r.import_small) console.log(`  schedlab import ${label(r.import_small.rows)}-row nvprof CSV (${r.import_small.file_mb} MB): peak RSS ${r.import_small.peak_rss_mb.toFixed(0)} MB`);
  if (r.http.some((h) => h.schedlab.how !== 'wrk')) console.log('  * one request per repeat: a single request took over a second, too slow for a wrk run');
  for (const b of r.browser) if (b.error) console.log(`  note: ${label(b.run_blocks)} run, dashboard: ${b.error}`);
  for (const n of r.notes) console.log(`  note: ${n}`);
  console.log('\nissue 9 goals (median of the repeats; ratio: ours/nginx where nginx is the ceiling, else value/goal)');
  for (const g of r.goals)
    console.log(`  ${g.ok ? '✓' : '✗'} ${g.what.padEnd(74)} ${`${fmtN(g.median, g.unit)} (${fmtN(g.min, g.unit)}-${fmtN(g.max, g.unit)}) ${g.unit}${g.n && g.n < REPEATS ? ` n=${g.n}` : ''}`.padEnd(30)} goal ${g.goal.padEnd(28)} ratio ${g.ratio ?? '-'}`);
}
