// sweep.mjs -- a schedulability sweep drawn like the GCAPS paper's Fig. 8:
// percentage of schedulable tasksets (y) against the swept parameter (x),
// one line with markers per analysis approach.

import { h } from '../dom.mjs';
import { colorAt } from '../colors.mjs';

const POINT_STYLES = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot', 'star'];

// result: schedlab-sweep-result/1 (GET /api/experiments/{slug}/sweep)
export function sweepSeries(result) {
  const n = result.tasksets;
  return result.approaches.map((a) => ({
    approach: a,
    pct: (result.schedulable[a] || []).map((c) => Math.round((c / n) * 1000) / 10),
  }));
}

// The spec's "reference" (issue 30: the paper's or the authors' code's
// numbers per point, docs/rta.md), drawn dashed beside ours in the same
// colour: [{approach, pct}] for the approaches the sweep has.
export function referenceSeries(result) {
  const ref = result.spec && result.spec.reference && result.spec.reference.schedulable;
  if (!ref) return [];
  return result.approaches.filter((a) => Array.isArray(ref[a])).map((a) => ({ approach: a, pct: ref[a] }));
}

export function createSweepChart(host, result) {
  const Chart = window.Chart;
  const series = sweepSeries(result);
  const index = Object.fromEntries(series.map((s, i) => [s.approach, i]));
  const refs = referenceSeries(result).map((s) => ({
    label: `${s.approach} (reference)`, data: s.pct, borderColor: colorAt(index[s.approach]),
    backgroundColor: colorAt(index[s.approach]), borderDash: [6, 4], pointRadius: 2, borderWidth: 1.5,
    tension: 0, spanGaps: true, reference: true,
  }));
  const canvas = h('canvas', { role: 'img', 'aria-label': `schedulable tasksets (%) against ${result.x.label}` });
  const wrap = h('div', { class: 'chart-wrap', style: { height: '420px' } }, canvas);
  host.append(wrap);
  const chart = new Chart(canvas, {
    type: 'line',
    data: {
      labels: result.x.values.map(String),
      datasets: series.map((s, i) => ({
        label: s.approach, data: s.pct, borderColor: colorAt(i), backgroundColor: colorAt(i),
        pointStyle: POINT_STYLES[i % POINT_STYLES.length], pointRadius: 4, borderWidth: 2, tension: 0,
      })).concat(refs),
    },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: {
        x: { title: { display: true, text: result.x.label } },
        y: { min: 0, max: 100, title: { display: true, text: 'schedulable tasksets (%)' } },
      },
      plugins: {
        legend: { position: 'top' },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${c.parsed.y}%` } },
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

// ---- the ISCA'17 QoS sweep (kind "qos"), drawn like the paper's Fig. 6(a)
// and 8(a): per QoS goal, one bar per scheme; the last group is the average
// over all goals. QoSreach is the share of (pair, goal) points whose goal
// is met; throughput is the non-QoS kernel's, normalised to its isolated
// IPC, over the points that meet the goal (null: none does, no bar).

const pct = (v) => (v === null || v === undefined ? null : Math.round(v * 1000) / 10);

// result: schedlab-sweep-result/1 with kind "qos"
export function qosSeries(result) {
  const labels = [...result.goals.map((g) => `${Math.round(g * 100)}%`), 'avg'];
  return {
    labels,
    reach: result.schemes.map((s) => ({ scheme: s, data: [...result.qosreach_by_goal[s].map(pct), pct(result.qosreach[s])] })),
    throughput: result.schemes.map((s) => ({ scheme: s, data: [...result.throughput_by_goal[s].map(pct), pct(result.throughput[s])] })),
  };
}

function bars(host, labels, series, yTitle, aria, max) {
  const Chart = window.Chart;
  const canvas = h('canvas', { role: 'img', 'aria-label': aria });
  const wrap = h('div', { class: 'chart-wrap', style: { height: '360px' } }, canvas);
  host.append(wrap);
  const chart = new Chart(canvas, {
    type: 'bar',
    data: {
      labels,
      datasets: series.map((s, i) => ({ label: s.scheme, data: s.data, backgroundColor: colorAt(i), borderColor: colorAt(i) })),
    },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: {
        x: { title: { display: true, text: 'QoS goal (share of the isolated IPC)' } },
        y: { min: 0, max, title: { display: true, text: yTitle } },
      },
      plugins: {
        legend: { position: 'top' },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${c.parsed.y}%` } },
      },
    },
  });
  return { chart, wrap };
}

// Ours (QoSreach over every point) beside the paper's per scheme, the
// paper's as dashed outlines (issue 30; the spec's reference.qosreach).
export function createReachReference(host, result) {
  const Chart = window.Chart;
  const ref = result.spec.reference.qosreach;
  const canvas = h('canvas', { role: 'img', 'aria-label': 'QoSreach (%) per scheme: this sweep beside the paper' });
  const wrap = h('div', { class: 'chart-wrap', style: { height: '300px' } }, canvas);
  host.append(wrap);
  const chart = new Chart(canvas, {
    type: 'bar',
    data: {
      labels: result.schemes,
      datasets: [
        { label: 'this sweep', data: result.schemes.map((s) => pct(result.qosreach[s])), backgroundColor: colorAt(0), borderColor: colorAt(0) },
        { label: 'paper', data: result.schemes.map((s) => (typeof ref[s] === 'number' ? ref[s] : null)), backgroundColor: 'transparent', borderColor: colorAt(1), borderWidth: 2, borderDash: [6, 4], reference: true },
      ],
    },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: { y: { min: 0, max: 100, title: { display: true, text: 'QoSreach (%)' } } },
      plugins: { legend: { position: 'top' }, tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${c.parsed.y}%` } } },
    },
  });
  return { chart, destroy() { chart.destroy(); wrap.remove(); } };
}

export function createQosCharts(reachHost, thrHost, result) {
  const s = qosSeries(result);
  const a = bars(reachHost, s.labels, s.reach, 'QoSreach (%)', 'QoSreach (%) per scheme against the QoS goal', 100);
  const b = bars(thrHost, s.labels, s.throughput, 'non-QoS throughput (% of isolated)', 'normalised throughput of the non-QoS kernels per scheme against the QoS goal', undefined);
  return {
    charts: [a.chart, b.chart],
    destroy() {
      a.chart.destroy();
      b.chart.destroy();
      a.wrap.remove();
      b.wrap.remove();
    },
  };
}
