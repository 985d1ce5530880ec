// timeline.mjs -- the block timeline of a run, drawn as in the TX2 paper's
// Fig. 3 (§3.1): one lane per SM, each block a rectangle from its start to
// its end whose height is its share of the SM's threads, concurrent blocks
// stacked, labelled "Kk:j", arrows under the axis at kernel launch times.
// Copies get a "CE" lane under the SMs. Traces without blocks (nvprof) show
// kernels as bars per stream instead. Past the API's block limit the server
// sends per-SM occupancy bins, drawn as a heat strip per SM.
//
// Chart.js draws the axes; a plugin draws everything else straight on the
// canvas, and wheel zoom / drag pan / hover are handled here so no zoom
// plugin is needed. The caller owns the data and the URL: this module only
// reports window changes (onWindow), picked times (onPick) and legend
// clicks (onToggle).

import { h, clear } from '../dom.mjs';
import { formatNs, formatBytes, formatTick, unitFor } from '../format.mjs';
import { textOn } from '../colors.mjs';
import { stackBlocks, stackUnits } from './stacking.mjs';

const PAD = 0.08;             // empty share of a lane above and below its bars
const CE_SIZE = 0.55;         // a copy-engine lane, relative to an SM lane
const MIN_SPAN = 50;          // ns: below this the axis labels stop making sense
const COPY_COLORS = { h2d: '#8da9c9', d2h: '#c9a88d' };
const COPY_OTHER = '#b5b5b5';
const LABEL_FONT = '600 11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

function laneHeight(n) {
  if (n <= 3) return 120;
  if (n <= 8) return 80;
  if (n <= 16) return 44;
  if (n <= 40) return 24;
  return Math.max(7, Math.floor(1400 / n));
}

function copyColor(dir) {
  return COPY_COLORS[dir] || COPY_OTHER;
}

// Light-to-dark blue for occupancy 0..1 (readable on white, monotone in
// lightness so it prints in grey too).
function heat(f) {
  const x = Math.max(0, Math.min(1, f));
  const l = 96 - x * 62;
  return `hsl(212, 70%, ${l.toFixed(1)}%)`;
}

function known(v) {
  return v !== null && v !== undefined;
}

function streamKey(k) {
  return `${k.process ?? ''}\u0000${k.stream ?? ''}`;
}

// Builds lanes and bar geometry once per data set; drawing then only maps
// values to pixels.
function buildModel(d) {
  const lanes = [];
  const bars = [];      // {x0, x1, y0, y1 (lane units), lane, kind, color, label, info}
  if (d.mode === 'streams') {
    const keys = [];
    const seen = new Map();
    for (const k of d.kernels) {
      const key = streamKey(k);
      if (!seen.has(key)) {
        seen.set(key, keys.length);
        keys.push(k);
      }
    }
    const procs = new Set(d.kernels.map((k) => k.process ?? ''));
    for (const k of keys) {
      const label = procs.size > 1 ? `${k.process ?? '?'}/${k.stream ?? '?'}` : `stream ${k.stream ?? '?'}`;
      lanes.push({ label });
    }
    const items = [];
    const ks = [];
    for (const k of d.kernels) {
      const start = known(k.first_block) ? k.first_block : k.issue;
      if (!known(start) || !known(k.end)) continue;
      items.push({ lane: seen.get(streamKey(k)), start, end: k.end });
      ks.push(k);
    }
    const st = stackUnits(items);
    items.forEach((it, i) => {
      const cap = st.extent.get(it.lane) || 1;
      const u = 1 - 2 * PAD;
      const k = ks[i];
      bars.push({
        x0: it.start, x1: it.end, lane: it.lane, kind: 'kernel',
        y0: it.lane + 1 - PAD - ((st.offset[i] + 1) / cap) * u,
        y1: it.lane + 1 - PAD - (st.offset[i] / cap) * u,
        name: k.name, color: d.colors.get(k.name), label: k.name, info: k,
      });
    });
  } else {
    const sms = Math.max(d.sms || 0, 1);
    for (let i = 0; i < sms; i++) lanes.push({ label: `SM ${i}` });
  }
  // Copy engines: one lane each, under the SMs (or streams).
  const copies = d.copies.filter((c) => known(c.start) && known(c.end));
  const engines = [...new Set(copies.map((c) => (known(c.engine) && c.engine >= 0 ? c.engine : 0)))].sort((a, b) => a - b);
  const ceBase = lanes.length;
  engines.forEach((e, j) => lanes.push({
    label: engines.length > 1 ? `CE ${e}` : 'CE', ce: true, pos: ceBase + j * CE_SIZE, size: CE_SIZE,
  }));
  if (copies.length) {
    const items = copies.map((c) => ({
      lane: ceBase + engines.indexOf(known(c.engine) && c.engine >= 0 ? c.engine : 0), start: c.start, end: c.end,
    }));
    const st = stackUnits(items);
    items.forEach((it, i) => {
      const cap = st.extent.get(it.lane) || 1;
      const { pos, size } = lanes[it.lane];
      const u = size * (1 - 2 * PAD);
      const bottom = pos + size * (1 - PAD);
      const c = copies[i];
      bars.push({
        x0: it.start, x1: it.end, lane: it.lane, kind: 'copy',
        y0: bottom - ((st.offset[i] + 1) / cap) * u,
        y1: bottom - (st.offset[i] / cap) * u,
        name: null, color: copyColor(c.direction), label: c.name || '', info: c,
      });
    });
  }
  lanes.forEach((l, i) => {
    if (l.pos === undefined) {
      l.pos = i;
      l.size = 1;
    }
  });
  const span = lanes.length ? lanes[lanes.length - 1].pos + lanes[lanes.length - 1].size : 1;
  return { lanes, bars, span };
}

// Block rectangles: TX2 §3.1 Fig. 3, height = threads / threads_per_sm.
function buildBlocks(d, blocks) {
  const byId = new Map(d.kernels.map((k) => [k.id, k]));
  const allKnown = blocks.every((b) => (byId.get(b.kernel)?.threads || 0) > 0);
  const items = blocks.map((b) => ({
    sm: b.sm, start: b.start, end: b.end,
    size: allKnown ? byId.get(b.kernel).threads : 1,
  }));
  const st = stackBlocks(items);
  let cap = allKnown && d.threadsPerSm > 0 ? d.threadsPerSm : 0;
  for (const v of st.extent.values()) cap = Math.max(cap, v);
  cap = cap || 1;
  const u = 1 - 2 * PAD;
  return blocks.map((b, i) => {
    const k = byId.get(b.kernel);
    const name = k ? k.name : `kernel ${b.kernel}`;
    const lane = b.sm;
    return {
      x0: b.start, x1: b.end, lane, kind: 'block',
      y0: lane + 1 - PAD - ((st.offset[i] + items[i].size) / cap) * u,
      y1: lane + 1 - PAD - (st.offset[i] / cap) * u,
      name, color: d.colors.get(name) || '#888', label: `${name}:${b.index}`, info: { block: b, kernel: k },
      pauses: b.pauses,
    };
  });
}

export function createTimeline(host, d) {
  // d: {mode: 'blocks'|'streams', kernels, copies, blocks|null, bins|null,
  //     sms, threadsPerSm, colors, extent:{min,max}, window:{from,to},
  //     hidden:Set, at, onWindow(from,to), onPick(t), onToggle(name|null)}
  const Chart = window.Chart;
  const model = buildModel(d);
  let blockBars = d.blocks ? buildBlocks(d, d.blocks) : [];
  let bins = d.bins || null;
  let hidden = new Set(d.hidden || []);
  let win = { from: d.window.from, to: d.window.to };
  let at = known(d.at) ? d.at : null;
  let drawn = 0;
  let hits = [];
  const nLanes = model.lanes.length;

  const legend = h('div', { class: 'legend', role: 'group', 'aria-label': 'kernels' });
  const canvas = h('canvas', { role: 'img', 'aria-label': 'block timeline' });
  const tip = h('div', { class: 'tooltip', hidden: true });
  const wrap = h('div', { class: 'chart-wrap timeline-wrap', style: { height: `${Math.round(model.span * laneHeight(nLanes)) + 110}px` } }, canvas, tip);
  host.append(legend, wrap);

  function isShown(name) {
    return !hidden.has(name);
  }

  function renderLegend() {
    clear(legend);
    const names = [...d.colors.keys()];
    const counts = new Map();
    if (d.mode === 'blocks' && !bins) for (const b of blockBars) counts.set(b.name, (counts.get(b.name) || 0) + 1);
    if (bins) {
      legend.append(h('span', { class: 'legend-note' },
        h('span', { class: 'heat-scale', 'aria-hidden': 'true' }),
        ' SM occupancy (time-averaged threads / threads per SM); zoom in to see blocks'));
    } else {
      for (const name of names) {
        const shown = isShown(name);
        const n = counts.get(name);
        legend.append(h('button', {
          type: 'button', class: `legend-item${shown ? '' : ' off'}`, 'aria-pressed': shown ? 'true' : 'false',
          title: `${shown ? 'hide' : 'show'} ${name}`, dataset: { kernel: name },
          onclick: () => d.onToggle(name),
        }, h('span', { class: 'swatch', style: { background: d.colors.get(name) } }), h('span', { class: 'legend-name' }, name),
        n !== undefined ? h('span', { class: 'legend-count' }, ` ${n}`) : null));
      }
      if (hidden.size) {
        legend.append(h('button', { type: 'button', class: 'legend-all', onclick: () => d.onToggle(null) }, 'show all'));
      }
    }
    const dirs = [...new Set(d.copies.filter((c) => known(c.start)).map((c) => c.direction))];
    for (const dir of dirs) {
      legend.append(h('span', { class: 'legend-static' },
        h('span', { class: 'swatch', style: { background: copyColor(dir) } }), `copy ${dir ?? ''}`));
    }
  }

  function xTicks(value, index, ticks) {
    const unit = unitFor(Math.max(Math.abs(win.from), Math.abs(win.to)) || 1);
    const step = ticks.length > 1 ? ticks[1].value - ticks[0].value : 0;
    return formatTick(value, unit, step);
  }

  const drawPlugin = {
    id: 'schedlabTimeline',
    beforeDatasetsDraw(chart) {
      const { ctx, chartArea: a, scales } = chart;
      ctx.save();
      for (let i = 0; i < nLanes; i++) {
        const y0 = scales.y.getPixelForValue(model.lanes[i].pos);
        const y1 = scales.y.getPixelForValue(model.lanes[i].pos + model.lanes[i].size);
        ctx.fillStyle = model.lanes[i].ce ? '#f3f4f6' : i % 2 ? '#fafbfc' : '#ffffff';
        ctx.fillRect(a.left, y0, a.right - a.left, y1 - y0);
        ctx.strokeStyle = '#d0d5dd';
        ctx.lineWidth = 1;
        ctx.beginPath();
        ctx.moveTo(a.left, Math.round(y1) + 0.5);
        ctx.lineTo(a.right, Math.round(y1) + 0.5);
        ctx.stroke();
      }
      ctx.restore();
    },
    afterDatasetsDraw(chart) {
      drawBars(chart);
    },
    afterDraw(chart) {
      drawMarkers(chart);
    },
  };

  function drawBars(chart) {
    const { ctx, chartArea: a, scales } = chart;
    const xs = scales.x;
    const ys = scales.y;
    hits = [];
    drawn = 0;
    ctx.save();
    ctx.beginPath();
    ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
    ctx.clip();
    ctx.font = LABEL_FONT;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'center';
    const px = (v) => xs.getPixelForValue(v);
    const visible = (b) => b.x0 < win.to && b.x1 > win.from;

    if (bins) {
      const cap = d.threadsPerSm > 0 ? d.threadsPerSm : 0;
      let maxBlocks = 0;
      if (!cap) for (const b of bins.bins) maxBlocks = Math.max(maxBlocks, b.blocks || 0);
      for (const b of bins.bins) {
        const x0 = px(b.t);
        const x1 = px(b.t + bins.bin_ns);
        const y0 = ys.getPixelForValue(b.sm + PAD / 2);
        const y1 = ys.getPixelForValue(b.sm + 1 - PAD / 2);
        const f = cap ? b.threads / cap : maxBlocks ? b.blocks / maxBlocks : 0;
        if (f <= 0) continue;
        ctx.fillStyle = heat(f);
        ctx.fillRect(x0, y0, Math.max(1, x1 - x0), y1 - y0);
        hits.push({ x0, x1: Math.max(x0 + 1, x1), y0, y1, kind: 'bin', info: b });
      }
    }

    const drawOne = (b) => {
      const x0 = Math.max(px(b.x0), a.left - 2);
      const x1 = Math.min(px(b.x1), a.right + 2);
      const y0 = ys.getPixelForValue(b.y0);
      const y1 = ys.getPixelForValue(b.y1);
      const w = Math.max(1, x1 - x0);
      ctx.fillStyle = b.color;
      ctx.fillRect(x0, y0, w, y1 - y0);
      if (w > 3 && y1 - y0 > 3) {
        ctx.strokeStyle = 'rgba(17, 24, 39, 0.55)';
        ctx.lineWidth = 1;
        ctx.strokeRect(Math.round(x0) + 0.5, Math.round(y0) + 0.5, Math.max(0, Math.round(w) - 1), Math.max(0, Math.round(y1 - y0) - 1));
      }
      // A preempted block (its context switched out: TX2 paper appendix A,
      // GCAPS §2) keeps its first start and final end; the intervals it did
      // not run are hatched.
      if (b.pauses) {
        for (const [ps, pe] of b.pauses) {
          const p0 = Math.max(px(ps), x0);
          const p1 = Math.min(px(pe), x0 + w);
          if (p1 <= p0) continue;
          ctx.save();
          ctx.beginPath();
          ctx.rect(p0, y0, p1 - p0, y1 - y0);
          ctx.clip();
          ctx.fillStyle = 'rgba(255, 255, 255, 0.7)';
          ctx.fillRect(p0, y0, p1 - p0, y1 - y0);
          ctx.strokeStyle = b.color;
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          for (let x = p0 - (y1 - y0); x < p1; x += 6) {
            ctx.moveTo(x, y1);
            ctx.lineTo(x + (y1 - y0), y0);
          }
          ctx.stroke();
          ctx.restore();
        }
      }
      if (b.label && y1 - y0 >= 11 && w > 20) {
        const tw = ctx.measureText(b.label).width;
        if (tw + 6 <= w) {
          ctx.fillStyle = textOn(b.color);
          ctx.fillText(b.label, x0 + w / 2, (y0 + y1) / 2);
        }
      }
      hits.push({ x0, x1: x0 + w, y0, y1, kind: b.kind, info: b.info });
    };

    if (!bins) {
      for (const b of blockBars) {
        if (!visible(b) || !isShown(b.name)) continue;
        drawOne(b);
        drawn += 1;
      }
    }
    for (const b of model.bars) {
      if (!visible(b)) continue;
      if (b.kind === 'kernel' && !isShown(b.name)) continue;
      drawOne(b);
    }
    if (at !== null && at >= win.from && at <= win.to) {
      const x = Math.round(px(at)) + 0.5;
      ctx.strokeStyle = '#111827';
      ctx.setLineDash([5, 4]);
      ctx.beginPath();
      ctx.moveTo(x, a.top);
      ctx.lineTo(x, a.bottom);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    ctx.restore();
  }

  // TX2 §3.1, Fig. 3: "Arrows below the x-axis indicate kernel launch
  // times." Launches closer than a few pixels share one arrow (grey when
  // they are several kernels) and one label, so none hides another.
  function drawMarkers(chart) {
    const { ctx, chartArea: a, scales } = chart;
    const marks = [];
    for (const k of d.kernels) {
      if (!known(k.issue) || !isShown(k.name)) continue;
      if (k.issue < win.from || k.issue > win.to) continue;
      marks.push({ x: scales.x.getPixelForValue(k.issue), k });
    }
    marks.sort((p, q) => p.x - q.x);
    const groups = [];
    for (const m of marks) {
      const g = groups[groups.length - 1];
      if (g && m.x - g.x < 6) {
        if (!g.names.includes(m.k.name)) g.names.push(m.k.name);
        g.ks.push(m.k);
      } else groups.push({ x: m.x, names: [m.k.name], ks: [m.k] });
    }
    ctx.save();
    ctx.font = '600 10px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    const top = a.bottom + 3;
    const rowEnd = [-Infinity, -Infinity];   // right end of the last label per row
    groups.forEach((g, gi) => {
      const x = Math.round(g.x) + 0.5;
      // demangled C++ names run to hundreds of characters: the tooltip has
      // them whole
      let label = g.names.map((n) => (n.length > 28 ? `${n.slice(0, 27)}…` : n)).join(' ');
      if (label.length > 40) label = `${label.slice(0, 39)}…`;
      const w = ctx.measureText(label).width;
      // a label goes in the first row where it does not run into the
      // previous one; the arrow's shaft reaches down to it
      // in the top row a label must also end before the next arrow, which
      // would otherwise be drawn across it
      const next = gi + 1 < groups.length ? groups[gi + 1].x - 4 : a.right + 30;
      let row = -1;
      if (x + 5 > rowEnd[0] + 6 && x + 5 + w < next) row = 0;
      else if (x + 5 > rowEnd[1] + 6 && x + 5 + w < a.right + 30) row = 1;
      const color = g.names.length === 1 ? d.colors.get(g.names[0]) || '#555' : '#4b5563';
      ctx.strokeStyle = color;
      ctx.fillStyle = color;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(x, top + (row === 1 ? 25 : 14));
      ctx.lineTo(x, top + 5);
      ctx.stroke();
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x - 4, top + 7);
      ctx.lineTo(x + 4, top + 7);
      ctx.closePath();
      ctx.fill();
      if (row >= 0) {
        ctx.fillStyle = '#374151';
        ctx.fillText(label, x + 5, top + 9 + row * 11);
        rowEnd[row] = x + 5 + w;
      }
      hits.push({ x0: x - 5, x1: x + 5, y0: top, y1: top + 25, kind: 'launch', info: g.ks });
    });
    ctx.restore();
  }

  const chart = new Chart(canvas, {
    type: 'scatter',
    data: { datasets: [] },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      events: [],
      layout: { padding: { top: 6, right: 18 } },
      scales: {
        x: {
          type: 'linear', min: win.from, max: win.to,
          title: { display: true, text: 'time since trace start', color: '#374151' },
          ticks: { padding: 32, callback: xTicks, color: '#374151', maxRotation: 0, includeBounds: false },
          grid: { color: '#e5e7eb', drawTicks: false },
          border: { color: '#9ca3af' },
        },
        y: {
          type: 'linear', min: 0, max: model.span, reverse: true,
          afterBuildTicks: (scale) => {
            scale.ticks = model.lanes.map((l) => ({ value: l.pos + l.size / 2 }));
          },
          ticks: {
            autoSkip: nLanes > 40,
            color: '#374151',
            font: { weight: '600' },
            callback: (v) => model.lanes.find((l) => v >= l.pos && v < l.pos + l.size)?.label ?? '',
          },
          grid: { display: false },
          border: { color: '#9ca3af' },
        },
      },
      plugins: { legend: { display: false }, tooltip: { enabled: false } },
    },
    plugins: [drawPlugin],
  });

  function redraw() {
    chart.options.scales.x.min = win.from;
    chart.options.scales.x.max = win.to;
    chart.update('none');
  }

  function clampWindow(from, to) {
    const lo = d.extent.min;
    const hi = d.extent.max;
    let span = Math.max(MIN_SPAN, to - from);
    span = Math.min(span, hi - lo);
    let f = from;
    if (f < lo) f = lo;
    if (f + span > hi) f = hi - span;
    return { from: Math.round(f), to: Math.round(f + span) };
  }

  // ---- interaction --------------------------------------------------------
  function inArea(ev) {
    const r = canvas.getBoundingClientRect();
    const x = ev.clientX - r.left;
    const y = ev.clientY - r.top;
    const a = chart.chartArea;
    return { x, y, inside: x >= a.left && x <= a.right && y >= a.top && y <= a.bottom };
  }

  function onWheel(ev) {
    const p = inArea(ev);
    if (!p.inside) return;
    ev.preventDefault();
    const anchor = chart.scales.x.getValueForPixel(p.x);
    const factor = Math.exp(Math.max(-1, Math.min(1, ev.deltaY * 0.002)));
    const nw = clampWindow(anchor - (anchor - win.from) * factor, anchor + (win.to - anchor) * factor);
    if (nw.from === win.from && nw.to === win.to) return;
    win = nw;
    redraw();
    d.onWindow(win.from, win.to);
  }

  let drag = null;
  function onDown(ev) {
    if (ev.button !== 0) return;
    const p = inArea(ev);
    if (!p.inside) return;
    drag = { x: p.x, from: win.from, to: win.to, moved: false };
    canvas.setPointerCapture(ev.pointerId);
  }
  function onMove(ev) {
    const p = inArea(ev);
    if (drag) {
      const dx = p.x - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved) {
        const a = chart.chartArea;
        const span = drag.to - drag.from;
        const dt = -(dx / (a.right - a.left)) * span;
        const nw = clampWindow(drag.from + dt, drag.to + dt);
        if (nw.from !== win.from || nw.to !== win.to) {
          win = nw;
          redraw();
          d.onWindow(win.from, win.to);
        }
        tip.hidden = true;
        canvas.style.cursor = 'grabbing';
        return;
      }
    }
    hover(p);
  }
  function onUp(ev) {
    if (!drag) return;
    const p = inArea(ev);
    const wasClick = !drag.moved;
    drag = null;
    canvas.style.cursor = '';
    if (wasClick && p.inside && d.onPick) d.onPick(Math.round(chart.scales.x.getValueForPixel(p.x)));
  }
  function onLeave() {
    tip.hidden = true;
  }

  function tipLines(hit) {
    const i = hit.info;
    if (hit.kind === 'block') {
      const k = i.kernel || {};
      const b = i.block;
      return [
        [`${k.name ?? b.kernel}:${b.index}`],
        ['kernel', `${k.name ?? b.kernel}${known(k.stream) ? ` (stream ${k.stream})` : ''}`],
        ['block', String(b.index)], ['SM', String(b.sm)],
        ['start', formatNs(b.start)], ['end', formatNs(b.end)], ['duration', formatNs(b.end - b.start)],
        ...(b.pauses ? [['paused', b.pauses.map(([ps, pe]) => `${formatNs(ps)}–${formatNs(pe)}`).join(', ')],
          ['ran', formatNs(b.end - b.start - b.pauses.reduce((a2, [ps, pe]) => a2 + pe - ps, 0))]] : []),
      ];
    }
    if (hit.kind === 'copy') {
      return [[i.name || 'copy'], ['direction', i.direction ?? '—'], ['bytes', formatBytes(i.bytes)],
        ['stream', i.stream ?? '—'], ['start', formatNs(i.start)], ['end', formatNs(i.end)],
        ['duration', formatNs(i.end - i.start)]];
    }
    if (hit.kind === 'kernel') {
      const start = known(i.first_block) ? i.first_block : i.issue;
      return [[i.name], ['stream', i.stream ?? '—'], ['issue', formatNs(i.issue)], ['start', formatNs(start)],
        ['end', formatNs(i.end)], ['duration', formatNs(i.end - start)]];
    }
    if (hit.kind === 'launch') {
      return [['kernel launch'], ...i.map((k) => [k.name, `${formatNs(k.issue)}${known(k.stream) ? ` · stream ${k.stream}` : ''}`])];
    }
    return [[`SM ${i.sm}`], ['from', formatNs(i.t)], ['to', formatNs(i.t + bins.bin_ns)],
      ['avg threads', i.threads.toFixed(1)], ['avg blocks', i.blocks.toFixed(2)]];
  }

  function hover(p) {
    let hit = null;
    for (let j = hits.length - 1; j >= 0; j--) {
      const r = hits[j];
      if (p.x >= r.x0 && p.x <= r.x1 && p.y >= r.y0 && p.y <= r.y1) {
        hit = r;
        break;
      }
    }
    if (!hit) {
      tip.hidden = true;
      canvas.style.cursor = '';
      return;
    }
    canvas.style.cursor = 'crosshair';
    clear(tip);
    const lines = tipLines(hit);
    tip.append(h('div', { class: 'tip-title' }, lines[0][0]));
    const dl = h('dl', null);
    for (const [k, v] of lines.slice(1)) dl.append(h('dt', null, k), h('dd', null, v));
    tip.append(dl);
    tip.hidden = false;
    const w = wrap.clientWidth;
    const left = p.x + 14 + tip.offsetWidth > w ? p.x - 14 - tip.offsetWidth : p.x + 14;
    tip.style.left = `${Math.max(0, left)}px`;
    tip.style.top = `${Math.max(0, p.y - 10)}px`;
  }

  canvas.addEventListener('wheel', onWheel, { passive: false });
  canvas.addEventListener('pointerdown', onDown);
  canvas.addEventListener('pointermove', onMove);
  canvas.addEventListener('pointerup', onUp);
  canvas.addEventListener('pointerleave', onLeave);

  renderLegend();

  return {
    // the number of block rectangles drawn by the last paint
    drawnBlocks: () => drawn,
    window: () => ({ ...win }),
    setWindow(from, to) {
      win = clampWindow(from, to);
      redraw();
    },
    setHidden(set) {
      hidden = new Set(set);
      renderLegend();
      redraw();
    },
    setAt(t) {
      at = known(t) ? t : null;
      redraw();
    },
    // Data for the current window after a refetch: blocks or bins.
    setData({ blocks, bins: newBins }) {
      bins = newBins || null;
      blockBars = blocks ? buildBlocks(d, blocks) : [];
      renderLegend();
      redraw();
    },
    destroy() {
      chart.destroy();
      wrap.remove();
      legend.remove();
    },
  };
}
