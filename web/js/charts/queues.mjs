// queues.mjs -- queue lengths over time as step lines (GET /queues without
// `at`: each point holds its length until the next point). A click picks a
// time; the caller shows the queue contents there (GET /queues?at=).
//
// The chart shows the same window as the timeline (issue 15: the Queues tab
// ignored the zoom): it opens on the URL's from/to, and wheel, drag and the
// keyboard (+ − ← → Home, as on the timeline) move it; the caller writes the
// window back to the URL (onWindow), so switching tabs keeps it.

import { h } from '../dom.mjs';
import { formatTick, unitFor } from '../format.mjs';
import { colorAt, chartTheme } from '../colors.mjs';

const MIN_SPAN = 50;   // ns, as on the timeline

// series: [{queue, series: [[t, len], ...]}]; extent {min, max} (tMax
// extends the last step to the end of the run); window {from, to}.
export function createQueueChart(host, { series, tMin, tMax, window: w0, at, onPick, onWindow }) {
  const Chart = window.Chart;
  const theme = chartTheme();
  const canvas = h('canvas', {
    role: 'img', tabindex: '0', 'aria-label': 'queue lengths over time (keys: + and − zoom, arrows pan, Home shows all)',
  });
  const wrap = h('div', { class: 'chart-wrap queues-wrap', style: { height: '360px' } }, canvas);
  host.append(wrap);
  let picked = at ?? null;
  let maxLen = 1;
  let win = { from: w0 ? w0.from : tMin, to: w0 ? w0.to : tMax };
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
  const atLine = {
    id: 'schedlabAt',
    afterDatasetsDraw(chart) {
      if (picked === null) return;
      const { ctx, chartArea: a, scales } = chart;
      const x = Math.round(scales.x.getPixelForValue(picked)) + 0.5;
      if (x < a.left || x > a.right) return;
      ctx.save();
      ctx.strokeStyle = theme.mark;
      ctx.setLineDash([5, 4]);
      ctx.beginPath();
      ctx.moveTo(x, a.top);
      ctx.lineTo(x, a.bottom);
      ctx.stroke();
      ctx.restore();
    },
  };
  let dragged = false;
  const chart = new Chart(canvas, {
    type: 'scatter',
    data: { datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales: {
        x: {
          type: 'linear', min: win.from, max: win.to,
          title: { display: true, text: 'time since trace start', color: theme.ink },
          grid: { color: theme.grid },
          ticks: {
            maxRotation: 0,
            includeBounds: false,
            color: theme.ink,
            callback: (v, i, ticks) => formatTick(v, unitFor(Math.max(Math.abs(win.from), Math.abs(win.to)) || 1),
              ticks.length > 1 ? ticks[1].value - ticks[0].value : 0),
          },
        },
        y: {
          min: 0, suggestedMax: maxLen + 1,
          title: { display: true, text: 'items in queue', color: theme.ink },
          grid: { color: theme.grid },
          ticks: { precision: 0, stepSize: maxLen > 20 ? undefined : 1, color: theme.ink },
        },
      },
      plugins: {
        legend: { position: 'bottom', labels: { boxWidth: 14, color: theme.ink } },
        tooltip: { enabled: false },
      },
      onClick(ev, _els, c) {
        if (dragged) return;
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

  function clampWindow(from, to) {
    let span = Math.max(MIN_SPAN, to - from);
    span = Math.min(span, tMax - tMin);
    let f = Math.max(tMin, from);
    if (f + span > tMax) f = tMax - span;
    return { from: Math.round(f), to: Math.round(f + span) };
  }
  function apply(nw, tell = true) {
    if (nw.from === win.from && nw.to === win.to) return;
    win = nw;
    chart.options.scales.x.min = win.from;
    chart.options.scales.x.max = win.to;
    chart.update('none');
    if (tell && onWindow) onWindow(win.from, win.to);
  }
  const area = (ev) => {
    const r = canvas.getBoundingClientRect();
    const x = ev.clientX - r.left;
    const y = ev.clientY - r.top;
    const a = chart.chartArea;
    return { x, inside: x >= a.left && x <= a.right && y >= a.top && y <= a.bottom };
  };
  canvas.addEventListener('wheel', (ev) => {
    const p = area(ev);
    if (!p.inside) return;
    ev.preventDefault();
    const anchor = chart.scales.x.getValueForPixel(p.x);
    const factor = Math.exp(Math.max(-1, Math.min(1, ev.deltaY * 0.002)));
    apply(clampWindow(anchor - (anchor - win.from) * factor, anchor + (win.to - anchor) * factor));
  }, { passive: false });
  let drag = null;
  canvas.addEventListener('pointerdown', (ev) => {
    const p = area(ev);
    if (ev.button !== 0 || !p.inside) return;
    drag = { x: p.x, from: win.from, to: win.to };
    dragged = false;
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (!drag) return;
    const dx = area(ev).x - drag.x;
    if (Math.abs(dx) > 3) dragged = true;
    if (!dragged) return;
    const a = chart.chartArea;
    const dt = -(dx / (a.right - a.left)) * (drag.to - drag.from);
    apply(clampWindow(drag.from + dt, drag.to + dt));
  });
  canvas.addEventListener('pointerup', () => {
    drag = null;
    // the click that ends a drag is no pick; the next one is
    setTimeout(() => { dragged = false; }, 0);
  });
  canvas.addEventListener('keydown', (ev) => {
    const span = win.to - win.from;
    const mid = (win.from + win.to) / 2;
    let nw = null;
    if (ev.key === '+' || ev.key === '=') nw = clampWindow(mid - span / 4, mid + span / 4);
    else if (ev.key === '-' || ev.key === '_' || ev.key === '−') nw = clampWindow(mid - span, mid + span);
    else if (ev.key === 'ArrowLeft') nw = clampWindow(win.from - span / 5, win.to - span / 5);
    else if (ev.key === 'ArrowRight') nw = clampWindow(win.from + span / 5, win.to + span / 5);
    else if (ev.key === 'Home') nw = clampWindow(tMin, tMax);
    else return;
    ev.preventDefault();
    apply(nw);
  });

  return {
    canvas,
    window: () => ({ ...win }),
    setWindow(from, to) {
      apply(clampWindow(from, to), false);
    },
    setAt(t) {
      picked = t ?? null;
      chart.update('none');
    },
    png: () => new Promise((resolve) => canvas.toBlob(resolve, 'image/png')),
    destroy() {
      chart.destroy();
      wrap.remove();
    },
  };
}
