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
// (one per class of Fig. 7) at goal 0.6 under Rollover and Spart, each point
// 64 launches of each kernel over a 2M-cycle window -- on every core, and
// the whole spec's time at the sample's rate (a projection: pairs differ).
export function qosPaperSweep({ schedlab, work, quick }) {
  const spec = JSON.parse(readFileSync('sweeps/isca17-parboil-paper.json', 'utf8'));
  // "pairs": "all" -- every ordered pair of the kernel set (§4.1: 10 x 9)
  const n = JSON.parse(readFileSync(path.join('sweeps', spec.kernels), 'utf8')).kernels.length;
  const full = spec.schemes.length * spec.goals.length * n * (n - 1);
  const reduced = JSON.parse(readFileSync('sweeps/isca17-parboil-paper-reduced.json', 'utf8'));
  spec.template = path.resolve('sweeps', spec.template);
  spec.kernels = path.resolve('sweeps', spec.kernels);
  spec.pairs = quick ? reduced.pairs.slice(1, 2) : reduced.pairs;
  spec.goals = [0.6];
  spec.schemes = spec.schemes.filter((x) => x.name === 'rollover' || x.name === 'spart');
  const file = path.join(work, 'qos-paper-spec.json');
  writeFileSync(file, JSON.stringify(spec));
  const args = ['sweep', file, '--db', path.join(work, 'qos-paper.db'), '-o', path.join(work, 'qos-paper-result.json')];
  const r = spawnSync(schedlab, args, { encoding: 'utf8' });
  const m = LINE.exec(r.stderr || '');
  if (r.status !== 0 || !m) throw new Error(`schedlab sweep (QoS, paper parameters): ${r.stderr}`);
  // the whole spec: its points at the sample's points-phase rate, and its
  // kernels alone (every ordered pair: each kernel in both of the
  // template's roles) at the sample's time per such simulation (that phase
  // runs on every core too)
  const pointsRate = +m[8], isoSims = +m[6], isoSeconds = +m[7];
  const fullIso = n * 2;
  const hours = (full / pointsRate + isoSeconds * fullIso / isoSims) / 3600;
  return { threads: +m[4], points: +m[1], simulations: +m[2], seconds: +m[3], points_per_s: +m[5],
    isolated_simulations: isoSims, isolated_seconds: isoSeconds, points_phase_per_s: pointsRate,
    full_points: full, full_hours_projected: +hours.toFixed(2), target_hours: 0.5 };
}

export function printQosPaper(r) {
  console.log('\nQoS sweep at ISCA\'17 §4.1\'s parameters (10K-cycle epochs, 2M-cycle window; a sample of isca17-parboil-paper.json; target: the whole spec in 30 minutes)');
  console.log('  threads  points  simulations   seconds   points/s   kernels alone (sims, s)   points/s after   whole spec (points)   projected hours');
  console.log(`  ${String(r.threads).padEnd(7)}  ${String(r.points).padStart(6)}  ${String(r.simulations).padStart(11)}   ${r.seconds.toFixed(2).padStart(7)}   ${r.points_per_s.toFixed(2).padStart(8)}   ${(r.isolated_simulations + ', ' + r.isolated_seconds.toFixed(2)).padStart(23)}   ${r.points_phase_per_s.toFixed(2).padStart(14)}   ${String(r.full_points).padStart(19)}   ${r.full_hours_projected.toFixed(1).padStart(15)}`);
}

export function printQos(rows) {
  console.log('\nQoS sweep (ISCA\'17 QoSreach spec, reduced; schedlab sweep, kind "qos")');
  console.log('  threads  points  simulations   seconds   points/s   simulations/s');
  for (const r of rows)
    console.log(`  ${String(r.threads).padEnd(7)}  ${String(r.points).padStart(6)}  ${String(r.simulations).padStart(11)}   ${r.seconds.toFixed(2).padStart(7)}   ${r.points_per_s.toFixed(2).padStart(8)}   ${r.simulations_per_s.toFixed(2).padStart(13)}`);
}
