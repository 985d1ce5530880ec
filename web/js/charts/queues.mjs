// queues.mjs -- queue lengths over time as step lines (GET /queues without
// `at`: each point holds its length until the next point). A click picks a
// time; the caller shows the queue contents there (GET /queues?at=).
//
// The chart shows the same window as the timeline (issue 15: the Queues tab
// ignored the zoom): it opens on the URL's from/to, and wheel, drag and the
// keyboard (+ − ← → Home, as on the timeline) move it; the caller writes the
// window back to the URL (onWindow), so switching tabs keeps it.
//
// A window holding more steps than the plot has pixels (issue 9: queue
// lengths from the pyramid) is drawn from bins instead: fetchBins(from, to,
// n) answers GET /queues?from&to&bins (power-of-two bins of the stored
// queue pyramid); each queue is drawn as its time-weighted mean per bin
// (integral / bin width) and, thin and dashed, its largest length per bin.
// onDrawn({mode: 'steps'|'bins', from, to, points, asked, z, bin_ns, k0, mean,
// max}) tells
// the caller what was drawn (window.schedlab.queuesDrawn).

import { h } from '../dom.mjs';
import { formatTick, unitFor } from '../format.mjs';
import { colorAt, chartTheme } from '../colors.mjs';
import { timeMark } from '../canvas.mjs';
import { clampWindow, wheelWindow, dragWindow, keyWindow } from './window.mjs';


// series: [{queue, series: [[t, len], ...]}]; extent {min, max} (tMax
// extends the last step to the end of the run); window {from, to}.
export function createQueueChart(host, { series, tMin, tMax, window: w0, at, onPick, onWindow, fetchBins, onDrawn }) {
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
  const stepData = series.map((q) => {
    const pts = q.series.map(([t, n]) => ({ x: t, y: n }));
    for (const p of pts) maxLen = Math.max(maxLen, p.y);
    if (pts.length && tMax > pts[pts.length - 1].x) pts.push({ x: tMax, y: pts[pts.length - 1].y });
    return pts;
  });
  const datasets = series.map((q, i) => {
    const c = colorAt(i);
    return {
      label: q.queue, data: stepData[i], borderColor: c, backgroundColor: c,
      stepped: 'before', showLine: true, pointRadius: 0, borderWidth: 2,
    };
  });
  // the per-bin maxima, drawn only in bins mode and left out of the legend
  const maxSets = series.map((q, i) => {
    const c = colorAt(i);
    return {
      label: `${q.queue} (max)`, data: [], borderColor: c, backgroundColor: c, isMax: true,
      stepped: 'before', showLine: true, pointRadius: 0, borderWidth: 1, borderDash: [3, 3], hidden: true,
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
      timeMark(ctx, x, a, theme.mark);
      ctx.restore();
    },
  };
  let dragged = false;
  const chart = new Chart(canvas, {
    type: 'scatter',
    data: { datasets: [...datasets, ...maxSets] },
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
        legend: {
          position: 'bottom',
          labels: { boxWidth: 14, color: theme.ink, filter: (item, data) => !data.datasets[item.datasetIndex].isMax },
          // a queue's max line follows its mean line
          onClick(e, item, legend) {
            const c = legend.chart;
            const i = item.datasetIndex;
            const shown = !c.isDatasetVisible(i);
            c.setDatasetVisibility(i, shown);
            if (mode === 'bins') c.setDatasetVisibility(i + datasets.length, shown);
            c.update('none');
          },
        },
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

  const extent = { min: tMin, max: tMax };   // the window stays in it (window.mjs)
  // steps of series i with from <= t < to (t ascending)
  const lowerBound = (pts, t) => {
    let lo = 0, hi = pts.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (pts[m][0] < t) lo = m + 1; else hi = m; }
    return lo;
  };
  const stepsIn = (from, to) => series.reduce((n, q) => n + lowerBound(q.series, to) - lowerBound(q.series, from), 0);
  let mode = 'steps';
  let seq = 0;
  function showSteps(points) {
    mode = 'steps';
    datasets.forEach((d, i) => { d.data = stepData[i]; });
    maxSets.forEach((d, i) => { d.hidden = true; chart.setDatasetVisibility(i + datasets.length, false); });
    chart.options.scales.y.suggestedMax = maxLen + 1;
    chart.update('none');
    if (onDrawn) onDrawn({ mode, points, from: win.from, to: win.to });
  }
  function showBins(b) {
    mode = 'bins';
    let top = 1;
    const w = b.bin_ns;
    const mean = b.queues.map((q) => q.integral.map((v) => v / w));
    b.queues.forEach((q, i) => {
      if (!datasets[i]) return;
      const at = (j) => (b.k0 + j) * w;
      // a point per bin start; 'before' steps hold each point's value until
      // the next point, so bin k's value covers [k*w, (k+1)*w), and one more
      // point ends the last bin
      const m = mean[i].map((y, j) => ({ x: at(j), y }));
      const x = q.max.map((y, j) => ({ x: at(j), y }));
      if (m.length) m.push({ x: at(m.length), y: m[m.length - 1].y });
      if (x.length) x.push({ x: at(x.length), y: x[x.length - 1].y });
      datasets[i].data = m;
      maxSets[i].data = x;
      const vis = chart.isDatasetVisible(i);
      maxSets[i].hidden = !vis;
      chart.setDatasetVisibility(i + datasets.length, vis);
      for (const v of q.max) top = Math.max(top, v);
    });
    chart.options.scales.y.suggestedMax = top + 1;
    chart.update('none');
    if (onDrawn) onDrawn({ mode, from: win.from, to: win.to, points: stepsIn(win.from, win.to), asked: b.asked, z: b.z, bin_ns: w, k0: b.k0, mean, max: b.queues.map((q) => q.max) });
  }
  // steps when the window's steps fit the plot's pixels, else bins
  async function redraw() {
    const my = ++seq;
    const points = stepsIn(win.from, win.to);
    const px = Math.max(200, Math.round(chart.chartArea ? chart.chartArea.right - chart.chartArea.left : canvas.clientWidth));
    if (!fetchBins || points <= px) { showSteps(points); return; }
    let b;
    try {
      b = await fetchBins(win.from, win.to, px);
      if (b) b.asked = px;
    } catch (e) {
      if (my !== seq || e.name === 'AbortError') return;
      // the steps are still right, only dense: draw them, and say why
      console.error(`queue bins: ${e.message}`);
      showSteps(points);
      return;
    }
    if (my !== seq || !b) return;
    showBins(b);
  }
  let drawing = redraw();
  function apply(nw, tell = true) {
    if (nw.from === win.from && nw.to === win.to) return;
    win = nw;
    chart.options.scales.x.min = win.from;
    chart.options.scales.x.max = win.to;
    chart.update('none');
    drawing = redraw();
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
    apply(wheelWindow(extent, win, chart.scales.x.getValueForPixel(p.x), ev.deltaY));
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
    apply(dragWindow(extent, drag, dx, a.right - a.left));
  });
  canvas.addEventListener('pointerup', () => {
    drag = null;
    // the click that ends a drag is no pick; the next one is
    setTimeout(() => { dragged = false; }, 0);
  });
  canvas.addEventListener('keydown', (ev) => {
    const nw = keyWindow(extent, win, ev.key);
    if (!nw) return;
    ev.preventDefault();
    apply(nw);
  });

  return {
    canvas,
    window: () => ({ ...win }),
    // resolves once the current window is drawn (steps or bins)
    drawn: () => drawing,
    setWindow(from, to) {
      apply(clampWindow(extent, from, to), false);
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
