// queues.mjs -- queue lengths over time as step lines (GET /queues without
// `at`: each point holds its length until the next point). A click picks a
// time; the caller shows the queue contents there (GET /queues?at=).

import { h } from '../dom.mjs';
import { formatTick, unitFor } from '../format.mjs';
import { colorAt } from '../colors.mjs';

// series: [{queue, series: [[t, len], ...]}]; tMax extends the last step to
// the end of the run.
export function createQueueChart(host, { series, tMin, tMax, at, onPick }) {
  const Chart = window.Chart;
  const canvas = h('canvas', { role: 'img', 'aria-label': 'queue lengths over time' });
  const wrap = h('div', { class: 'chart-wrap', style: { height: '360px' } }, canvas);
  host.append(wrap);
  let picked = at ?? null;
  let maxLen = 1;
  const datasets = series.map((q, i) => {
    const pts = q.series.map(([t, n]) => ({ x: t, y: n }));
    for (const p of pts) maxLen = Math.max(maxLen, p.y);
    if (pts.length && tMax > pts[pts.length - 1].x) pts.push({ x: tMax, y: pts[pts.length - 1].y });
    const c = colorAt(i);
    return {
      label: q.queue, data: pts, borderColor: c, backgroundColor: c,
      stepped: 'before', showLine: true, pointRadius: 0, borderWidth: 2,
    };
  });
  const unit = unitFor(Math.max(Math.abs(tMin), Math.abs(tMax)) || 1);
  const atLine = {
    id: 'schedlabAt',
    afterDatasetsDraw(chart) {
      if (picked === null) return;
      const { ctx, chartArea: a, scales } = chart;
      const x = Math.round(scales.x.getPixelForValue(picked)) + 0.5;
      if (x < a.left || x > a.right) return;
      ctx.save();
      ctx.strokeStyle = '#111827';
      ctx.setLineDash([5, 4]);
      ctx.beginPath();
      ctx.moveTo(x, a.top);
      ctx.lineTo(x, a.bottom);
      ctx.stroke();
      ctx.restore();
    },
  };
  const chart = new Chart(canvas, {
    type: 'scatter',
    data: { datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales: {
        x: {
          type: 'linear', min: tMin, max: tMax,
          title: { display: true, text: 'time since trace start' },
          ticks: {
            maxRotation: 0,
            includeBounds: false,
            callback: (v, i, ticks) => formatTick(v, unit, ticks.length > 1 ? ticks[1].value - ticks[0].value : 0),
          },
        },
        y: {
          min: 0, suggestedMax: maxLen + 1,
          title: { display: true, text: 'items in queue' },
          ticks: { precision: 0, stepSize: maxLen > 20 ? undefined : 1 },
        },
      },
      plugins: {
        legend: { position: 'bottom', labels: { boxWidth: 14 } },
        tooltip: { enabled: false },
      },
      onClick(ev, _els, c) {
        const x = ev.x;
        const a = c.chartArea;
        if (x < a.left || x > a.right || ev.y < a.top || ev.y > a.bottom) return;
        picked = Math.round(c.scales.x.getValueForPixel(x));
        c.update('none');
        onPick(picked);
      },
    },
    plugins: [atLine],
  });
  return {
    setAt(t) {
      picked = t ?? null;
      chart.update('none');
    },
    destroy() {
      chart.destroy();
      wrap.remove();
    },
  };
}
