// compare.mjs -- grouped bars of per-kernel response times, one colour per
// run (GET /api/compare). Missing kernels (null) leave a gap, not a zero.

import { h } from '../dom.mjs';
import { formatNs, formatTick, unitFor } from '../format.mjs';
import { colorAt } from '../colors.mjs';

// labels: one per kernel row; runs: [{name}]; values[r][i]: ns or null.
export function createCompareChart(host, { labels, runs, values }) {
  const Chart = window.Chart;
  const canvas = h('canvas', { role: 'img', 'aria-label': 'response time per kernel and run' });
  const height = Math.max(320, Math.min(560, 220 + labels.length * 6));
  const wrap = h('div', { class: 'chart-wrap', style: { height: `${height}px` } }, canvas);
  host.append(wrap);
  let max = 0;
  for (const row of values) for (const v of row) if (v !== null && v > max) max = v;
  const unit = unitFor(max || 1);
  const chart = new Chart(canvas, {
    type: 'bar',
    data: {
      labels,
      datasets: runs.map((r, i) => ({
        label: r.name, data: values[i], backgroundColor: colorAt(i), borderColor: colorAt(i),
        borderWidth: 1, categoryPercentage: 0.8, barPercentage: 0.9,
      })),
    },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: {
        x: { ticks: { autoSkip: true, maxRotation: 60 } },
        y: {
          beginAtZero: true,
          title: { display: true, text: 'response time (end − issue)' },
          ticks: { callback: (v, i, ticks) => formatTick(v, unit, ticks.length > 1 ? ticks[1].value - ticks[0].value : 0) },
        },
      },
      plugins: {
        legend: { position: 'top' },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${formatNs(c.parsed.y)}` } },
      },
    },
  });
  return {
    chart,
    destroy() {
      chart.destroy();
      wrap.remove();
    },
  };
}

// Measured and simulated kernels on one time axis, one run above the other
// (a replay's comparison, issue 10): one row per run and stream, each kernel
// a bar from its first block to its end, in its run's colour; the kernels
// the fidelity report finds differing (duration off by more than 10 %, or
// start off by more than 1 % of the span) in red.
// rows: [{run, name, colorIndex, kernels: [{id, stream, name, first_block, end}], differ: Set(id)}]
export const DIFFER = '#d62728';
export function createAlignedTimelines(host, rows) {
  const Chart = window.Chart;
  const labels = [];
  const datasets = [];
  let max = 0;
  let min = Infinity;
  rows.forEach((r) => {
    const streams = [...new Set(r.kernels.map((k) => String(k.stream ?? 'null')))].sort();
    for (const s of streams) labels.push(`${r.name} · ${s}`);
    const pts = [];
    const colors = [];
    for (const k of r.kernels) {
      if (k.first_block === null || k.end === null) continue;
      pts.push({ x: [k.first_block, Math.max(k.end, k.first_block + 1)], y: `${r.name} · ${String(k.stream ?? 'null')}`, k });
      colors.push(r.differ.has(k.id) ? DIFFER : colorAt(r.colorIndex));
      if (k.end > max) max = k.end;
      if (k.first_block < min) min = k.first_block;
    }
    datasets.push({ label: r.name, data: pts, backgroundColor: colors, borderColor: colors, borderWidth: 0,
      borderSkipped: false, barPercentage: 0.8, categoryPercentage: 1, grouped: false, minBarLength: 2 });
  });
  const canvas = h('canvas', { role: 'img', 'aria-label': 'measured and simulated kernels on one time axis' });
  const wrap = h('div', { class: 'chart-wrap', style: { height: `${Math.max(200, 60 + labels.length * 26)}px` } }, canvas);
  host.append(wrap);
  const unit = unitFor(max || 1);
  const chart = new Chart(canvas, {
    type: 'bar',
    data: { labels, datasets },
    options: {
      indexAxis: 'y', animation: false, responsive: true, maintainAspectRatio: false, parsing: { xAxisKey: 'x', yAxisKey: 'y' },
      scales: {
        x: { type: 'linear', min: Number.isFinite(min) && min < 0 ? min : 0, max: max || 1, title: { display: true, text: 'time (one axis for every run)' },
          ticks: { callback: (v, i, ticks) => formatTick(v, unit, ticks.length > 1 ? ticks[1].value - ticks[0].value : 0) } },
        y: { type: 'category', labels },
      },
      plugins: {
        legend: { position: 'top' },
        tooltip: { callbacks: { label: (c) => `${c.raw.k.name}: ${formatNs(c.raw.x[0])} – ${formatNs(c.raw.x[1])}` } },
      },
    },
  });
  return {
    chart,
    destroy() {
      chart.destroy();
      wrap.remove();
    },
  };
}

// Block-duration CDFs, one line per run (as the TX2 paper's Fig. 10 plots
// the distribution of block times per configuration): x the duration, y the
// share of the run's blocks that took at most that long. One point per
// block up to MAX_CDF_POINTS, past that evenly spaced quantiles.
// series: [{label, color, durations: number[] (ns)}]
export const MAX_CDF_POINTS = 2000;
export function cdfPoints(durations) {
  const d = [...durations].sort((a, b) => a - b);
  const n = d.length;
  if (n <= MAX_CDF_POINTS) return d.map((v, i) => ({ x: v, y: (i + 1) / n }));
  const pts = [];
  for (let j = 1; j <= MAX_CDF_POINTS; j++) {
    const i = Math.ceil((j / MAX_CDF_POINTS) * n) - 1;
    pts.push({ x: d[i], y: (i + 1) / n });
  }
  return pts;
}

export function createCdfChart(host, series) {
  const Chart = window.Chart;
  const canvas = h('canvas', { role: 'img', 'aria-label': 'block duration CDF per run' });
  const wrap = h('div', { class: 'chart-wrap', style: { height: '320px' } }, canvas);
  host.append(wrap);
  let max = 0;
  const datasets = series.map((s) => {
    const data = cdfPoints(s.durations);
    for (const p of data) if (p.x > max) max = p.x;
    return { label: s.label, data, borderColor: s.color, backgroundColor: s.color, stepped: 'before',
      pointRadius: 0, borderWidth: 2, fill: false };
  });
  const unit = unitFor(max || 1);
  const chart = new Chart(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false, parsing: false,
      scales: {
        x: { type: 'linear', beginAtZero: true, title: { display: true, text: 'block duration' },
          ticks: { callback: (v, i, ticks) => formatTick(v, unit, ticks.length > 1 ? ticks[1].value - ticks[0].value : 0) } },
        y: { min: 0, max: 1, title: { display: true, text: 'share of blocks (CDF)' } },
      },
      plugins: {
        legend: { position: 'top', labels: { generateLabels: (c) => Chart.defaults.plugins.legend.labels.generateLabels(c)
          .map((l) => ({ ...l, text: l.text.length > 60 ? `${l.text.slice(0, 28)}…${l.text.slice(-28)}` : l.text })) } },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${formatNs(c.parsed.x)} · ${(c.parsed.y * 100).toFixed(1)} %` } },
      },
    },
  });
  return {
    chart,
    points: () => datasets.map((ds) => ds.data.length),
    destroy() {
      chart.destroy();
      wrap.remove();
    },
  };
}
