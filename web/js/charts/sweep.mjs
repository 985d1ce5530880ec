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

export function createSweepChart(host, result) {
  const Chart = window.Chart;
  const series = sweepSeries(result);
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
      })),
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
