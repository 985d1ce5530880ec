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
    destroy() {
      chart.destroy();
      wrap.remove();
    },
  };
}
