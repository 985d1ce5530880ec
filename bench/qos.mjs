// qos.mjs -- `make bench`'s QoS sweep rows (issue 12): (pair, goal, scheme)
// points per second of `schedlab sweep` on the ISCA'17 QoSreach spec
// (sweeps/isca17-qosreach.json), reduced to a few pairs so that it takes
// seconds, on every core and on one. Each point is a simulation of the pair
// on isca17-gpgpusim (Spart's hill climbing adds a few per pair, shared by
// its goals), so points/s is the sweep's own speed, isolated runs included.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const LINE = /sweep: (\d+) points \((\d+) simulations\) in ([\d.]+) s on (\d+) threads: ([\d.]+) points\/s \(first the kernels alone, (\d+) simulations in ([\d.]+) s; then ([\d.]+) points\/s\)/;

export function qosSweep({ schedlab, work, quick }) {
  const spec = JSON.parse(readFileSync('sweeps/isca17-qosreach.json', 'utf8'));
  spec.template = path.resolve('sweeps', spec.template);
  spec.kernels = path.resolve('sweeps', spec.kernels);
  spec.pairs = quick ? [['c-sfu', 'm-light'], ['m-stream', 'c-alu']]
    : [['c-sfu', 'c-shared'], ['c-alu', 'm-stream'], ['m-stream', 'c-alu'], ['m-light', 'm-scatter']];
  spec.goals = quick ? [0.6, 0.9] : [0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
  const file = path.join(work, 'qos-spec.json');
  writeFileSync(file, JSON.stringify(spec));
  const rows = [];
  for (const threads of [0, 1]) {
    const args = ['sweep', file, '--db', path.join(work, 'qos.db'), '-o', path.join(work, 'qos-result.json')];
    if (threads) args.push('--threads', String(threads));
    const r = spawnSync(schedlab, args, { encoding: 'utf8' });
    const m = LINE.exec(r.stderr || '');
    if (r.status !== 0 || !m) throw new Error(`schedlab sweep (QoS): ${r.stderr}`);
    rows.push({ threads: +m[4], points: +m[1], simulations: +m[2], seconds: +m[3], points_per_s: +m[5],
      simulations_per_s: +(+m[2] / +m[3]).toFixed(2) });
  }
  return rows;
}

// ISCA'17 §4.1's own parameters (issue 26: "the full paper-parameter
// sweep ... within 30 minutes on the 2-core machine"): a sample of
// sweeps/isca17-parboil-paper.json -- the reduced Parboil spec's four pairs
// (one per class of Fig. 7) at goal 0.6, each point 64 launches of each
// kernel over a 2M-cycle window -- on every core, once under Rollover (for
// the spec's five quota schemes, which share its warp-scheduler path) and
// once under Spart, and the whole spec's time from the two points' rates
// (a projection: pairs differ) plus its kernels alone (every ordered pair:
// each kernel in both of the template's roles) at the sample's time per
// such simulation.
// One scheme of a paper-parameter sample: `spec` with only `scheme`, swept
// on every core; the row schedlab sweep's summary line gives.
function paperRow({ schedlab, work }, spec, scheme, label) {
  const file = path.join(work, 'qos-paper-spec.json');
  writeFileSync(file, JSON.stringify({ ...spec, schemes: [scheme] }));
  const args = ['sweep', file, '--db', path.join(work, 'qos-paper.db'), '-o', path.join(work, 'qos-paper-result.json')];
  const r = spawnSync(schedlab, args, { encoding: 'utf8' });
  const m = LINE.exec(r.stderr || '');
  if (r.status !== 0 || !m) throw new Error(`schedlab sweep (QoS, paper parameters, ${label}): ${r.stderr}`);
  return { scheme: scheme.name, threads: +m[4], points: +m[1], simulations: +m[2], seconds: +m[3],
    points_per_s: +m[5], isolated_simulations: +m[6], isolated_seconds: +m[7], points_phase_per_s: +m[8] };
}

export function qosPaperSweep({ schedlab, work, quick }) {
  const spec = JSON.parse(readFileSync('sweeps/isca17-parboil-paper.json', 'utf8'));
  // "pairs": "all" -- every ordered pair of the kernel set (§4.1: 10 x 9)
  const n = JSON.parse(readFileSync(path.join('sweeps', spec.kernels), 'utf8')).kernels.length;
  const perScheme = spec.goals.length * n * (n - 1);
  const full = spec.schemes.length * perScheme;
  const reduced = JSON.parse(readFileSync('sweeps/isca17-parboil-paper-reduced.json', 'utf8'));
  spec.template = path.resolve('sweeps', spec.template);
  spec.kernels = path.resolve('sweeps', spec.kernels);
  spec.pairs = quick ? reduced.pairs.slice(1, 2) : reduced.pairs;
  spec.goals = [0.6];
  const schemes = spec.schemes;
  const rows = ['rollover', 'spart'].map((name) =>
    paperRow({ schedlab, work }, spec, schemes.find((x) => x.name === name), name));
  const [quota, spart] = rows;
  const nQuota = schemes.filter((x) => x.name !== 'spart').length;
  const seconds = nQuota * perScheme / quota.points_phase_per_s + perScheme / spart.points_phase_per_s +
    quota.isolated_seconds * (2 * n) / quota.isolated_simulations;
  const trios = qosPaperTrios({ schedlab, work, quick, n });
  const trioSeconds = trios.reduce((a, t) => a + t.seconds_projected, 0);
  return { rows, full_points: full, quota_schemes: nQuota, full_hours_projected: +(seconds / 3600).toFixed(2),
    trios, trio_points: trios.reduce((a, t) => a + t.points, 0),
    trio_hours_projected: +(trioSeconds / 3600).toFixed(2),
    all_hours_projected: +((seconds + trioSeconds) / 3600).toFixed(2), target_hours: 0.5 };
}

// The trios at §4.1's parameters (sweeps/isca17-parboil-trio{1,2}-paper.json:
// 60 trios x 10 goals x Rollover and Spart each): one trio of each kind's
// 24-point sample at a middle goal (two in the full run), once per scheme
// on every core; each spec's time from the two rates, plus its kernels
// alone (each kernel in every role of the template) at the sample's time
// per such simulation.
function qosPaperTrios({ schedlab, work, quick, n }) {
  const out = [];
  for (const [kind, goal] of [['trio1', 0.7], ['trio2', 0.5]]) {
    const spec = JSON.parse(readFileSync(`sweeps/isca17-parboil-${kind}-paper.json`, 'utf8'));
    const sample = JSON.parse(readFileSync(`sweeps/isca17-parboil-${kind}-paper-reduced.json`, 'utf8'));
    const perScheme = spec.pairs.length * spec.goals.length;
    const roles = JSON.parse(readFileSync(path.join('sweeps', spec.template), 'utf8')).ops.length;
    spec.template = path.resolve('sweeps', spec.template);
    spec.kernels = path.resolve('sweeps', spec.kernels);
    spec.pairs = sample.pairs.slice(0, quick ? 1 : 2);
    spec.goals = [goal];
    const rows = spec.schemes.map((x) => paperRow({ schedlab, work }, spec, x, `${kind}, ${x.name}`));
    const seconds = rows.reduce((a, r) => a + perScheme / r.points_phase_per_s, 0) +
      rows[0].isolated_seconds * (roles * n) / rows[0].isolated_simulations;
    out.push({ kind, goal, rows, points: perScheme * rows.length, seconds_projected: +seconds.toFixed(0) });
  }
  return out;
}

export function printQosPaper(r) {
  console.log('\nQoS sweep at ISCA\'17 §4.1\'s parameters (10K-cycle epochs, 2M-cycle window; a sample of isca17-parboil-paper.json under Rollover and Spart; target: the whole spec in 30 minutes)');
  console.log('  scheme    threads  points  simulations   seconds   kernels alone (sims, s)   points/s after them');
  for (const x of r.rows)
    console.log(`  ${x.scheme.padEnd(8)}  ${String(x.threads).padEnd(7)}  ${String(x.points).padStart(6)}  ${String(x.simulations).padStart(11)}   ${x.seconds.toFixed(2).padStart(7)}   ${(x.isolated_simulations + ', ' + x.isolated_seconds.toFixed(2)).padStart(23)}   ${x.points_phase_per_s.toFixed(2).padStart(19)}`);
  console.log(`  whole spec: ${r.full_points} points (${r.quota_schemes} quota schemes at Rollover's rate, Spart at its own) and its kernels alone: ${r.full_hours_projected.toFixed(1)} hours projected`);
  for (const t of r.trios) {
    for (const x of t.rows)
      console.log(`  ${t.kind} ${x.scheme.padEnd(8)} ${String(x.threads).padEnd(2)} ${String(x.points).padStart(6)} points at goal ${t.goal}   ${x.seconds.toFixed(2).padStart(7)} s   kernels alone ${x.isolated_simulations}, ${x.isolated_seconds.toFixed(2)} s   ${x.points_phase_per_s.toFixed(2)} points/s after them`);
  }
  console.log(`  the trio specs: ${r.trio_points} points, ${r.trio_hours_projected.toFixed(1)} hours projected; pairs and trios together ${r.all_hours_projected.toFixed(1)} hours (target ${r.target_hours} h)`);
}

export function printQos(rows) {
  console.log('\nQoS sweep (ISCA\'17 QoSreach spec, reduced; schedlab sweep, kind "qos")');
  console.log('  threads  points  simulations   seconds   points/s   simulations/s');
  for (const r of rows)
    console.log(`  ${String(r.threads).padEnd(7)}  ${String(r.points).padStart(6)}  ${String(r.simulations).padStart(11)}   ${r.seconds.toFixed(2).padStart(7)}   ${r.points_per_s.toFixed(2).padStart(8)}   ${r.simulations_per_s.toFixed(2).padStart(13)}`);
}
