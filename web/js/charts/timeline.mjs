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
// reports window changes (onWindow), picked times (onPick) and the set of
// hidden kernels (onHidden, from the legend of legend.mjs).
//
// Keyboard (issue 15): the canvas is focusable; + and − zoom around the
// middle, ← and → pan by a fifth of the window, Home shows the whole run.
// Colours of lanes, grid and text come from the page's CSS variables, so
// the dark theme (prefers-color-scheme) applies to the canvas too.

import { h, clear } from '../dom.mjs';
import { formatBytes, formatTick, unitFor, timeFormat, shortName } from '../format.mjs';
import { textOn, chartTheme } from '../colors.mjs';
import { stackBlocks, stackUnits } from './stacking.mjs';
import { createLegend } from './legend.mjs';

const PAD = 0.08;             // empty share of a lane above and below its bars
const CE_SIZE = 0.55;         // a copy-engine lane, relative to an SM lane
const MIN_SPAN = 50;          // ns: below this the axis labels stop making sense
// unified-memory migrations (issue 28) on their own lane, in their own colours
const COPY_COLORS = { h2d: '#8da9c9', d2h: '#c9a88d', uvm_h2d: '#9fc98d', uvm_d2h: '#c98dba', uvm_d2d: '#a8a0d0' };
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

// 64 steps of it: bins are drawn one path per step, so a window of tens of
// thousands of bins sets the fill style 64 times, not once per bin (issue 9:
// a zoom step redraws in a few ms).
const HEAT_STEPS = 64;
const HEAT = Array.from({ length: HEAT_STEPS }, (_, i) => heat((i + 0.5) / HEAT_STEPS));

function known(v) {
  return v !== null && v !== undefined;
}

function streamKey(k) {
  return `${k.process ?? ''}\u0000${k.stream ?? ''}`;
}

// Stream lanes in numeric order (7, 16, 20, not first-seen order): names
// compare as text with their digit runs compared as numbers.
const NATURAL = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
function laneOrder(p, q) {
  return NATURAL.compare(String(p.process ?? ''), String(q.process ?? ''))
    || NATURAL.compare(String(p.stream ?? ''), String(q.stream ?? ''));
}

// Builds lanes and bar geometry once per data set; drawing then only maps
// values to pixels.
function buildModel(d) {
  const lanes = [];
  const bars = [];      // {x0, x1, y0, y1 (lane units), lane, kind, color, label, info}
  let seen = null;
  if (d.mode === 'streams') {
    // lanes: the streams of the kernels, or (a big kernel-level run drawn
    // by window, issue 9) every stream of the run, whatever the window holds
    const keys = [];
    seen = new Map();
    for (const k of d.streamLanes || d.kernels) {
      const key = streamKey(k);
      if (!seen.has(key)) {
        seen.set(key, keys.length);
        keys.push(k);
      }
    }
    keys.sort(laneOrder);
    keys.forEach((k, i) => seen.set(streamKey(k), i));
    const procs = new Set(keys.map((k) => k.process ?? ''));
    for (const k of keys) {
      const label = procs.size > 1 ? `${k.process ?? '?'}/${k.stream ?? '?'}` : `stream ${k.stream ?? '?'}`;
      lanes.push({ label });
    }
    bars.push(...kernelBars(d, d.kernels, seen));
  } else {
    const sms = Math.max(d.sms || 0, 1);
    for (let i = 0; i < sms; i++) lanes.push({ label: `SM ${i}` });
  }
  // Copy engines: one lane each, under the SMs (or streams); a run of many
  // copies (issue 9) names every engine (copyLanes), whatever the window holds.
  const engines = d.copyLanes || [...new Set(d.copies.filter((c) => known(c.start) && known(c.end))
    .map(engineOf))].sort((a, b) => (a === 'uvm') - (b === 'uvm') || a - b);
  const ceBase = lanes.length;
  engines.forEach((e, j) => lanes.push({
    label: e === 'uvm' ? 'UVM' : engines.length > 1 ? `CE ${e}` : 'CE', ce: true, pos: ceBase + j * CE_SIZE, size: CE_SIZE,
  }));
  lanes.forEach((l, i) => {
    if (l.pos === undefined) {
      l.pos = i;
      l.size = 1;
    }
  });
  const ce = { base: ceBase, engines };
  // (one by one: a spread of a run's 800,000 copies overflows the stack)
  for (const b of copyBars(d.copies, lanes, ce)) bars.push(b);
  const span = lanes.length ? lanes[lanes.length - 1].pos + lanes[lanes.length - 1].size : 1;
  return { lanes, bars, span, seen, ce };
}

function engineOf(c) {
  if (String(c.direction ?? '').startsWith('uvm_')) return 'uvm';   // no engine: its own lane
  return known(c.engine) && c.engine >= 0 ? c.engine : 0;
}

// Copies as bars on their engine's lane, overlapping ones stacked.
function copyBars(all, lanes, ce) {
  const copies = all.filter((c) => known(c.start) && known(c.end) && ce.engines.includes(engineOf(c)));
  if (!copies.length) return [];
  const items = copies.map((c) => ({ lane: ce.base + ce.engines.indexOf(engineOf(c)), start: c.start, end: c.end }));
  const st = stackUnits(items);
  return items.map((it, i) => {
    const cap = st.extent.get(it.lane) || 1;
    const { pos, size } = lanes[it.lane];
    const u = size * (1 - 2 * PAD);
    const bottom = pos + size * (1 - PAD);
    const c = copies[i];
    return {
      x0: it.start, x1: it.end, lane: it.lane, kind: 'copy',
      y0: bottom - ((st.offset[i] + 1) / cap) * u,
      y1: bottom - (st.offset[i] / cap) * u,
      name: null, color: copyColor(c.direction), label: c.name || '', info: c,
    };
  });
}

// Kernel bars per stream (traces without blocks): overlapping kernels of
// one stream stacked. seen: stream key -> lane.
function kernelBars(d, kernels, seen) {
  const bars = [];
  const items = [];
  const ks = [];
  for (const k of kernels) {
    const start = known(k.first_block) ? k.first_block : k.issue;
    const lane = seen.get(streamKey(k));
    if (!known(start) || !known(k.end) || lane === undefined) continue;
    items.push({ lane, start, end: k.end });
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
  return bars;
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
  const shorts = new Map();   // name -> short label, once per kernel name
  return blocks.map((b, i) => {
    const k = byId.get(b.kernel);
    const name = k ? k.name : `kernel ${b.kernel}`;
    let short = shorts.get(name);
    if (short === undefined) {
      short = shortName(name, 24);
      shorts.set(name, short);
    }
    const lane = b.sm;
    return {
      x0: b.start, x1: b.end, lane, kind: 'block',
      y0: lane + 1 - PAD - ((st.offset[i] + items[i].size) / cap) * u,
      y1: lane + 1 - PAD - (st.offset[i] / cap) * u,
      name, color: d.colors.get(name) || '#888', label: `${short}:${b.index}`, info: { block: b, kernel: k },
      pauses: b.pauses,
      // compare view (issue 15): a block placed differently than in the
      // first run gets a red frame; d.isMarked(block) decides
      marked: d.isMarked ? d.isMarked(b) : false,
    };
  });
}

export function createTimeline(host, d) {
  // d: {mode: 'blocks'|'streams', kernels, copies, blocks|null, bins|null,
  //     sms, threadsPerSm, colors, extent:{min,max}, window:{from,to},
  //     hidden:Set, at, onWindow(from,to), onPick(t), onHidden(Set),
  //     onLegend({rows, rendered}), onTip(lines of the tooltip shown)}
  const Chart = window.Chart;
  const model = buildModel(d);
  let blockBars = d.blocks ? buildBlocks(d, d.blocks) : [];
  let bins = d.bins || null;
  // a big kernel-level run's per-stream busy bins (issue 9): {t, bin_ns,
  // nbins, lanes: [{process, stream, kernel_ns, thread_ns, max_kernels, …}]}
  let sbins = d.sbins || null;
  // a run of many copies zoomed out: per-engine copy bins {t, bin_ns,
  // nbins, lanes: [{engine, copy_ns, max_copies, directions: {dir: […]}}]}
  let cbins = d.cbins || null;
  let cBars = model.bars.filter((b) => b.kind === 'copy');
  let drawnKernels = 0;
  let drawnBins = 0;
  let drawnCopyBars = 0;
  let drawnCopyBins = 0;
  let hidden = new Set(d.hidden || []);
  let win = { from: d.window.from, to: d.window.to };
  let at = known(d.at) ? d.at : null;
  let drawn = 0;
  let hits = [];
  let shownFor = { from: null, to: null };   // the window the tooltip was shown in
  let selected = null;                       // the keyboard's block / kernel / copy
  let theme = chartTheme();
  const nLanes = model.lanes.length;

  const legendHost = h('div', { class: 'legend-host' });
  const canvas = h('canvas', {
    role: 'img', tabindex: '0', 'aria-label': 'block timeline (keys: + and − zoom, arrows pan, Home shows all)',
  });
  const tip = h('div', { class: 'tooltip', hidden: true });
  const wrap = h('div', { class: 'chart-wrap timeline-wrap', style: { height: `${Math.round(model.span * laneHeight(nLanes)) + 110}px` } }, canvas, tip);
  host.append(legendHost, wrap);

  function isShown(name) {
    return !hidden.has(name);
  }

  // Copy directions have fixed colours; they sit beside the search box.
  const copyDirs = d.copyDirs || [...new Set(d.copies.filter((c) => known(c.start)).map((c) => c.direction))];
  const legend = createLegend(legendHost, {
    names: [...d.colors.keys()], colors: d.colors, hidden,
    kernels: d.kernelTotal ?? (d.kernels || []).length,
    onChange(set) {
      hidden = new Set(set);
      redraw();
      if (d.onHidden) d.onHidden(hidden);
    },
    onStats: d.onLegend,
    extras: copyDirs.length ? h('span', { class: 'legend-copies' }, copyDirs.map((dir) => h('span', { class: 'legend-static' },
      h('span', { class: 'swatch', style: { background: copyColor(dir) } }), `copy ${dir ?? ''}`))) : null,
  });

  // Per-kernel block counts of the loaded data, and the occupancy note.
  // (occupancy to occupancy, the usual zoom step on a big run, changes
  // neither: nothing in the legend is rebuilt)
  let noteBins = null;
  function renderLegend() {
    const note = bins ? 'sm' : sbins ? 'stream' : null;
    if (noteBins !== note) {
      noteBins = note;
      legend.setNote(bins ? h('span', null, h('span', { class: 'heat-scale', 'aria-hidden': 'true' }),
        ' SM occupancy (time-averaged threads / threads per SM); zoom in to see blocks')
        : sbins ? h('span', null, h('span', { class: 'heat-scale', 'aria-hidden': 'true' }),
          ' stream busy (time-averaged running kernels of the shown names, 1 and more darkest); zoom in to see kernels')
          : null);
    }
    if (bins || sbins) {
      legend.setCounts(null);
      return;
    }
    if (d.mode !== 'blocks') return;
    const counts = new Map();
    for (const b of blockBars) counts.set(b.name, (counts.get(b.name) || 0) + 1);
    legend.setCounts(counts);
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
        ctx.fillStyle = model.lanes[i].ce ? theme.ce : i % 2 ? theme.alt : theme.bg;
        ctx.fillRect(a.left, y0, a.right - a.left, y1 - y0);
        ctx.strokeStyle = theme.line;
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
    drawnKernels = 0;
    drawnBins = 0;
    drawnCopyBars = 0;
    drawnCopyBins = 0;
    ctx.save();
    ctx.beginPath();
    ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
    ctx.clip();
    ctx.font = LABEL_FONT;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'center';
    // The x axis is linear: its pixel for a value is one multiply-add, as
    // getPixelForValue computes it (clamped to the int16 range as Chart.js
    // does) without its per-call overhead -- a paint maps tens of
    // thousands of bins and blocks (issue 9's zoom step).
    const xp0 = xs.getPixelForValue(xs.min);
    const xk = xs.max > xs.min ? (xs.getPixelForValue(xs.max) - xp0) / (xs.max - xs.min) : 0;
    const xm = xs.min;
    const px = (v) => {
      const p = xp0 + (v - xm) * xk;
      return p < -32768 ? -32768 : p > 32767 ? 32767 : p;
    };
    const visible = (b) => b.x0 < win.to && b.x1 > win.from;

    if (bins) {
      const cap = d.threadsPerSm > 0 ? d.threadsPerSm : 0;
      let maxBlocks = 0;
      if (!cap) for (const b of bins.bins) maxBlocks = Math.max(maxBlocks, b.blocks || 0);
      const paths = Array.from({ length: HEAT_STEPS }, () => null);
      const x0w = px(win.from) - 2;
      const x1w = px(win.to) + 2;
      // Neighbouring bins of one SM at one step are one rectangle: a busy
      // SM is a single bar however many bins it spans. (Hover finds the
      // bin under the pointer from the data, see binAt.)
      let run = null;   // {sm, step, t0, t1}
      const laneY = [];   // sm -> [y0, y1], asked of the y axis once per paint
      const flush = () => {
        if (!run) return;
        const x0 = px(run.t0);
        const ly = laneY[run.sm] || (laneY[run.sm] = [ys.getPixelForValue(run.sm + PAD / 2), ys.getPixelForValue(run.sm + 1 - PAD / 2)]);
        const y0 = ly[0];
        const y1 = ly[1];
        const path = paths[run.step] || (paths[run.step] = new Path2D());
        path.rect(x0, y0, Math.max(1, px(run.t1) - x0), y1 - y0);
        run = null;
      };
      for (const b of bins.bins) {
        const t1 = b.t + bins.bin_ns;
        const x0 = px(b.t);
        const x1 = px(t1);
        if (x1 < x0w || x0 > x1w) continue;
        const f = cap ? b.threads / cap : maxBlocks ? b.blocks / maxBlocks : 0;
        if (f <= 0) continue;
        const step = Math.min(HEAT_STEPS - 1, Math.floor(Math.min(1, f) * HEAT_STEPS));
        if (run && run.sm === b.sm && run.step === step && run.t1 === b.t) run.t1 = t1;
        else {
          flush();
          run = { sm: b.sm, step, t0: b.t, t1 };
        }
      }
      flush();
      paths.forEach((path, i) => {
        if (!path) return;
        ctx.fillStyle = HEAT[i];
        ctx.fill(path);
      });
    }

    // Per-stream busy bins (a big kernel-level run zoomed out, issue 9):
    // each lane's bins as a heat strip of its time-averaged running
    // kernels, neighbouring bins of one step merged into one rectangle.
    if (sbins) {
      const paths = Array.from({ length: HEAT_STEPS }, () => null);
      const x0w = px(win.from) - 2;
      const x1w = px(win.to) + 2;
      for (const L of sbins.lanes) {
        const lane = model.seen.get(streamKey(L));
        if (lane === undefined) continue;
        const y0 = ys.getPixelForValue(lane + PAD / 2);
        const y1 = ys.getPixelForValue(lane + 1 - PAD / 2);
        let run = null;
        const flush = () => {
          if (!run) return;
          const x0 = px(run.t0);
          const path = paths[run.step] || (paths[run.step] = new Path2D());
          path.rect(x0, y0, Math.max(1, px(run.t1) - x0), y1 - y0);
          run = null;
        };
        for (let i = 0; i < sbins.nbins; i++) {
          const t = sbins.t + i * sbins.bin_ns;
          const t1 = t + sbins.bin_ns;
          const f = L.kernel_ns[i] / sbins.bin_ns;
          if (f <= 0 || px(t1) < x0w || px(t) > x1w) {
            flush();
            continue;
          }
          drawnBins += 1;
          const step = Math.min(HEAT_STEPS - 1, Math.floor(Math.min(1, f) * HEAT_STEPS));
          if (run && run.step === step && run.t1 === t) run.t1 = t1;
          else {
            flush();
            run = { step, t0: t, t1 };
          }
        }
        flush();
      }
      paths.forEach((path, i) => {
        if (!path) return;
        ctx.fillStyle = HEAT[i];
        ctx.fill(path);
      });
    }

    // Copy bins (a run of many copies zoomed out, issue 9): per engine and
    // bin a bar from the lane's bottom whose height is the engine's busy
    // share (copy-ns / bin width, at most 1), split by direction in the
    // copies' colours; one path per colour.
    if (cbins) {
      const paths = new Map();   // colour -> Path2D
      const x0w = px(win.from) - 2;
      const x1w = px(win.to) + 2;
      for (const L of cbins.lanes) {
        const j = model.ce.engines.indexOf(L.engine);
        if (j < 0) continue;
        const { pos, size } = model.lanes[model.ce.base + j];
        const u = size * (1 - 2 * PAD);
        const bottom = pos + size * (1 - PAD);
        const dirs = Object.entries(L.directions);
        for (let i = 0; i < cbins.nbins; i++) {
          if (!(L.copy_ns[i] > 0)) continue;
          const t = cbins.t + i * cbins.bin_ns;
          const x0 = px(t);
          const x1 = px(t + cbins.bin_ns);
          if (x1 < x0w || x0 > x1w) continue;
          drawnCopyBins += 1;
          const f = Math.min(1, L.copy_ns[i] / cbins.bin_ns);
          let y = bottom;
          for (const [dir, v] of dirs) {
            if (!(v[i] > 0)) continue;
            const hgt = (f * u * v[i]) / L.copy_ns[i];
            const color = copyColor(dir);
            let path = paths.get(color);
            if (!path) paths.set(color, (path = new Path2D()));
            const yt = ys.getPixelForValue(y - hgt);
            const yb = ys.getPixelForValue(y);
            path.rect(x0, yt, Math.max(1, x1 - x0), Math.max(1, yb - yt));
            y -= hgt;
          }
        }
      }
      for (const [color, path] of paths) {
        ctx.fillStyle = color;
        ctx.fill(path);
      }
    }

    // Rectangles too small for an outline or a label are collected per
    // colour and filled as one path each (a dense window of tens of
    // thousands of blocks is then a handful of fills, not one per block).
    const small = new Map();   // colour -> Path2D
    const drawOne = (b) => {
      const x0 = Math.max(px(b.x0), a.left - 2);
      const x1 = Math.min(px(b.x1), a.right + 2);
      const y0 = ys.getPixelForValue(b.y0);
      const y1 = ys.getPixelForValue(b.y1);
      const w = Math.max(1, x1 - x0);
      if (w <= 3 && !b.marked) {
        let path = small.get(b.color);
        if (!path) small.set(b.color, (path = new Path2D()));
        path.rect(x0, y0, w, y1 - y0);   // (pauses of a 3 px block would not show)
        hits.push({ x0, x1: x0 + w, y0, y1, kind: b.kind, info: b.info });
        return;
      }
      ctx.fillStyle = b.color;
      ctx.fillRect(x0, y0, w, y1 - y0);
      if (w > 3 && y1 - y0 > 3) {
        ctx.strokeStyle = theme.stroke;
        ctx.lineWidth = 1;
        ctx.strokeRect(Math.round(x0) + 0.5, Math.round(y0) + 0.5, Math.max(0, Math.round(w) - 1), Math.max(0, Math.round(y1 - y0) - 1));
      }
      if (b.marked) {   // compare view: placement differs from the first run
        ctx.strokeStyle = '#d62728';
        ctx.lineWidth = 3;
        ctx.strokeRect(x0 + 1.5, y0 + 1.5, Math.max(1, w - 3), Math.max(1, y1 - y0 - 3));
      }
      if (b.pauses) drawPauses(b, x0, w, y0, y1);
      if (b.label && y1 - y0 >= 11 && w > 20) {
        const tw = ctx.measureText(b.label).width;
        if (tw + 6 <= w) {
          ctx.fillStyle = textOn(b.color);
          ctx.fillText(b.label, x0 + w / 2, (y0 + y1) / 2);
        }
      }
      hits.push({ x0, x1: x0 + w, y0, y1, kind: b.kind, info: b.info });
    };
    // A preempted block (its context switched out: TX2 paper appendix A,
    // GCAPS §2) keeps its first start and final end; the intervals it did
    // not run are hatched (those under a pixel wide would not show).
    function drawPauses(b, x0, w, y0, y1) {
      {
        for (const [ps, pe] of b.pauses) {
          const p0 = Math.max(px(ps), x0);
          const p1 = Math.min(px(pe), x0 + w);
          if (p1 - p0 < 1) continue;
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
    }
    const flushSmall = () => {
      for (const [color, path] of small) {
        ctx.fillStyle = color;
        ctx.fill(path);
      }
      small.clear();
    };

    if (!bins) {
      for (const b of blockBars) {
        if (!visible(b) || !isShown(b.name)) continue;
        drawOne(b);
        drawn += 1;
      }
      flushSmall();
    }
    for (const b of model.bars) {
      if (!visible(b)) continue;
      if (b.kind === 'kernel' && !isShown(b.name)) continue;
      if (b.kind === 'kernel') drawnKernels += 1;
      else if (b.kind === 'copy') drawnCopyBars += 1;
      drawOne(b);
    }
    flushSmall();
    if (at !== null && at >= win.from && at <= win.to) {
      const x = Math.round(px(at)) + 0.5;
      ctx.strokeStyle = theme.mark;
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
  // label -> its width in the markers' font: a zoom step draws the same
  // labels again (measureText was a tenth of a 4,096-kernel run's paint)
  const markWidth = new Map();
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
      // a label goes in the first row where it does not run into the
      // previous one; the arrow's shaft reaches down to it
      // in the top row a label must also end before the next arrow, which
      // would otherwise be drawn across it
      // (an arrow with both rows still taken beside it gets no label
      // whatever its width: nothing to name or measure)
      const free0 = x + 5 > rowEnd[0] + 6;
      const free1 = x + 5 > rowEnd[1] + 6;
      let label = '';
      let w = 0;
      if (free0 || free1) {
        // (names past the 40th character would be cut anyway: a group of
        // hundreds of launches shortens only the few that show)
        for (let i = 0; i < g.names.length && label.length <= 40; i++) label += (i ? ' ' : '') + shortName(g.names[i], 28);
        if (label.length > 40) label = `${label.slice(0, 39)}…`;
        w = markWidth.get(label);
        if (w === undefined) {
          if (markWidth.size > 20000) markWidth.clear();
          markWidth.set(label, (w = ctx.measureText(label).width));
        }
      }
      const next = gi + 1 < groups.length ? groups[gi + 1].x - 4 : a.right + 30;
      let row = -1;
      if (free0 && x + 5 + w < next) row = 0;
      else if (free1 && x + 5 + w < a.right + 30) row = 1;
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
        ctx.fillStyle = theme.ink;
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
          title: { display: true, text: 'time since trace start', color: theme.ink },
          ticks: { padding: 32, callback: xTicks, color: theme.ink, maxRotation: 0, includeBounds: false },
          grid: { color: theme.grid, drawTicks: false },
          border: { color: theme.axis },
        },
        y: {
          type: 'linear', min: 0, max: model.span, reverse: true,
          afterBuildTicks: (scale) => {
            scale.ticks = model.lanes.map((l) => ({ value: l.pos + l.size / 2 }));
          },
          ticks: {
            autoSkip: nLanes > 40,
            color: theme.ink,
            font: { weight: '600' },
            callback: (v) => model.lanes.find((l) => v >= l.pos && v < l.pos + l.size)?.label ?? '',
          },
          grid: { display: false },
          border: { color: theme.axis },
        },
      },
      plugins: { legend: { display: false }, tooltip: { enabled: false } },
    },
    plugins: [drawPlugin],
  });

  function setData({ blocks, bins: newBins, kernels, sbins: newSbins, copies, cbins: newCbins }) {
    bins = newBins || null;
    sbins = newSbins || null;
    blockBars = blocks ? buildBlocks(d, blocks) : [];
    if (d.copyLanes) {
      // a run of many copies: this window's copies (none when binned)
      cbins = newCbins || null;
      d.copies = copies || [];
      cBars = copyBars(d.copies, model.lanes, model.ce);
      model.bars = model.bars.filter((b) => b.kind !== 'copy').concat(cBars);
    }
    if (d.streamLanes) {
      // a big kernel-level run: this window's kernels (none when binned)
      d.kernels = kernels || [];
      model.bars = kernelBars(d, d.kernels, model.seen).concat(cBars);
    }
    renderLegend();
  }

  function redraw() {
    // what the tooltip described may have moved or gone (a bin of another
    // size after a zoom): it is shown again by the next hover or key
    if (win.from !== shownFor.from || win.to !== shownFor.to) tip.hidden = true;
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

  // Times at the precision of the visible window (format.mjs timeFormat):
  // at a 278 µs zoom every time reads in µs with 3 decimals.
  function tipLines(hit) {
    const i = hit.info;
    const f = timeFormat(win.to - win.from).format;
    if (hit.kind === 'block') {
      const k = i.kernel || {};
      const b = i.block;
      return [
        [`${k.name ?? b.kernel}:${b.index}`],
        ['stream', known(k.stream) ? String(k.stream) : '—'],
        ['block', String(b.index)], ['SM', String(b.sm)],
        ['start', f(b.start)], ['end', f(b.end)], ['duration', f(b.end - b.start)],
        ...(b.pauses ? [['paused', b.pauses.map(([ps, pe]) => `${f(ps)}–${f(pe)}`).join(', ')],
          ['ran', f(b.end - b.start - b.pauses.reduce((a2, [ps, pe]) => a2 + pe - ps, 0))]] : []),
      ];
    }
    if (hit.kind === 'copy') {
      return [[i.name || 'copy'], ['direction', i.direction ?? '—'], ['bytes', formatBytes(i.bytes)],
        ['stream', i.stream ?? '—'], ['start', f(i.start)], ['end', f(i.end)],
        ['duration', f(i.end - i.start)]];
    }
    if (hit.kind === 'kernel') {
      const start = known(i.first_block) ? i.first_block : i.issue;
      return [[i.name], ['stream', i.stream ?? '—'], ['issue', f(i.issue)], ['start', f(start)],
        ['end', f(i.end)], ['duration', f(i.end - start)]];
    }
    if (hit.kind === 'launch') {
      return [['kernel launch'], ...i.map((k) => [shortName(k.name, 40), `${f(k.issue)}${known(k.stream) ? ` · stream ${k.stream}` : ''}`])];
    }
    if (hit.kind === 'cbin') {
      const L = i.lane;
      const t0 = cbins.t + i.i * cbins.bin_ns;
      return [[model.lanes[model.ce.base + model.ce.engines.indexOf(L.engine)].label], ['from', f(t0)],
        ['to', f(t0 + cbins.bin_ns)], ['avg copies', (L.copy_ns[i.i] / cbins.bin_ns).toFixed(3)],
        ['max copies', String(L.max_copies[i.i])],
        ...Object.entries(L.directions).filter(([, v]) => v[i.i] > 0)
          .map(([dir, v]) => [`copy ${dir}`, f(v[i.i])])];
    }
    if (hit.kind === 'sbin') {
      const L = i.lane;
      const t0 = sbins.t + i.i * sbins.bin_ns;
      return [[model.lanes[model.seen.get(streamKey(L))].label], ['from', f(t0)], ['to', f(t0 + sbins.bin_ns)],
        ['avg kernels', (L.kernel_ns[i.i] / sbins.bin_ns).toFixed(3)],
        ['avg threads', (L.thread_ns[i.i] / sbins.bin_ns).toFixed(1)],
        [sbins.max_exact ? 'max kernels' : 'max kernels (at most)', String(L.max_kernels[i.i])],
        [sbins.max_exact ? 'max threads' : 'max threads (at most)', String(L.max_threads[i.i])]];
    }
    return [[`SM ${i.sm}`], ['from', f(i.t)], ['to', f(i.t + bins.bin_ns)],
      ['avg threads', i.threads.toFixed(1)], ['avg blocks', i.blocks.toFixed(2)]];
  }

  // The occupancy bin under a point, from the data (bins are not hit boxes).
  function binAt(p) {
    const cb = cbins && copyBinAt(p);
    if (cb) return cb;
    if (sbins) return streamBinAt(p);
    if (!bins) return null;
    const t = chart.scales.x.getValueForPixel(p.x);
    const v = chart.scales.y.getValueForPixel(p.y);
    const sm = Math.floor(v);
    if (v - sm < PAD / 2 || v - sm > 1 - PAD / 2) return null;
    for (const b of bins.bins) {
      if (b.sm === sm && b.t <= t && t < b.t + bins.bin_ns && (b.threads > 0 || b.blocks > 0)) return { kind: 'bin', info: b };
    }
    return null;
  }

  // A copy bin under a point (its engine's lane, any height).
  function copyBinAt(p) {
    const t = chart.scales.x.getValueForPixel(p.x);
    const v = chart.scales.y.getValueForPixel(p.y);
    const j = model.ce.engines.findIndex((e, k) => {
      const l = model.lanes[model.ce.base + k];
      return v >= l.pos && v < l.pos + l.size;
    });
    if (j < 0) return null;
    const i = Math.floor((t - cbins.t) / cbins.bin_ns);
    const L = cbins.lanes.find((l) => l.engine === model.ce.engines[j]);
    if (!L || i < 0 || i >= cbins.nbins || !(L.copy_ns[i] > 0)) return null;
    return { kind: 'cbin', info: { lane: L, i } };
  }

  // A big kernel-level run's stream bin under a point.
  function streamBinAt(p) {
    const t = chart.scales.x.getValueForPixel(p.x);
    const v = chart.scales.y.getValueForPixel(p.y);
    const lane = Math.floor(v);
    if (v - lane < PAD / 2 || v - lane > 1 - PAD / 2) return null;
    const i = Math.floor((t - sbins.t) / sbins.bin_ns);
    if (i < 0 || i >= sbins.nbins) return null;
    const L = sbins.lanes.find((l) => model.seen.get(streamKey(l)) === lane);
    if (!L || !(L.kernel_ns[i] > 0)) return null;
    return { kind: 'sbin', info: { lane: L, i } };
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
    if (!hit && p.inside) hit = binAt(p);
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
    shownFor = { from: win.from, to: win.to };
    // the tooltip's width is capped in CSS (names wrap), so it fits beside
    // the pointer on one side or the other
    const w = wrap.clientWidth;
    const left = p.x + 14 + tip.offsetWidth > w ? p.x - 14 - tip.offsetWidth : p.x + 14;
    tip.style.left = `${Math.max(0, left)}px`;
    tip.style.top = `${Math.max(0, Math.min(p.y - 10, wrap.clientHeight - tip.offsetHeight))}px`;
    if (d.onTip) d.onTip(lines);
  }

  function onKey(ev) {
    const span = win.to - win.from;
    const mid = (win.from + win.to) / 2;
    let nw = null;
    if (ev.key === '+' || ev.key === '=') nw = clampWindow(mid - span / 4, mid + span / 4);
    else if (ev.key === '-' || ev.key === '_' || ev.key === '−') nw = clampWindow(mid - span, mid + span);
    else if (ev.key === 'ArrowLeft') nw = clampWindow(win.from - span / 5, win.to - span / 5);
    else if (ev.key === 'ArrowRight') nw = clampWindow(win.from + span / 5, win.to + span / 5);
    else if (ev.key === 'Home') nw = clampWindow(d.extent.min, d.extent.max);
    else if (ev.key === '.' || ev.key === ',') {
      // issue 30: the keyboard selects the next / previous block, kernel or
      // copy drawn (left to right, top down) and shows its tooltip
      ev.preventDefault();
      const list = hits.filter((r) => r.kind !== 'launch' && r.x1 >= chart.chartArea.left && r.x0 <= chart.chartArea.right)
        .sort((a, b) => a.x0 - b.x0 || a.y0 - b.y0);
      if (!list.length) return;
      let i = selected ? list.findIndex((r) => r.info === selected.info) : -1;
      i = ev.key === '.' ? (i + 1) % list.length : (i <= 0 ? list.length : i) - 1;
      selected = list[i];
      const r = selected;
      hover({ x: Math.max(chart.chartArea.left, Math.min(chart.chartArea.right, (r.x0 + r.x1) / 2)), y: (r.y0 + r.y1) / 2, inside: true });
      if (d.onSelect) d.onSelect(r);
      return;
    } else if (ev.key === 'Enter' && selected && d.onPick) {
      // ... and Enter asks what every queue held when it started
      ev.preventDefault();
      const i = selected.info;
      const t = i.block ? i.block.start : known(i.start) ? i.start : known(i.first_block) ? i.first_block : known(i.issue) ? i.issue : null;
      if (t !== null) d.onPick(t);
      return;
    } else return;
    ev.preventDefault();
    if (nw.from === win.from && nw.to === win.to) return;
    win = nw;
    redraw();
    d.onWindow(win.from, win.to);
  }

  canvas.addEventListener('wheel', onWheel, { passive: false });
  canvas.addEventListener('pointerdown', onDown);
  canvas.addEventListener('pointermove', onMove);
  canvas.addEventListener('pointerup', onUp);
  canvas.addEventListener('pointerleave', onLeave);
  canvas.addEventListener('keydown', onKey);

  renderLegend();
  // A theme switch (prefers-color-scheme) repaints with the new colours.
  const dark = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  const onScheme = () => {
    theme = chartTheme();
    const o = chart.options.scales;
    o.x.title.color = theme.ink;
    o.x.ticks.color = theme.ink;
    o.x.grid.color = theme.grid;
    o.x.border.color = theme.axis;
    o.y.ticks.color = theme.ink;
    o.y.border.color = theme.axis;
    chart.update('none');
  };
  if (dark) dark.addEventListener('change', onScheme);

  return {
    // the number of block rectangles drawn by the last paint
    drawnBlocks: () => drawn,
    // a kernel-level run's last paint: kernel bars and busy bins drawn
    drawnStreams: () => ({ kernels: drawnKernels, bins: drawnBins }),
    // the copies' last paint: copy bars and copy bins (bins with copy-ns) drawn
    drawnCopies: () => ({ copies: drawnCopyBars, bins: drawnCopyBins }),
    window: () => ({ ...win }),
    // data (optional, as setData's): the new window's own answer, when the
    // caller already has it (a prefetch), so the step is one redraw with
    // it instead of the old data stretched first (issue 9's zoom step)
    setWindow(from, to, data) {
      win = clampWindow(from, to);
      if (data) setData(data);
      redraw();
    },
    setHidden(set) {
      hidden = new Set(set);
      legend.setHidden(hidden);
      redraw();
    },
    // lane labels, top down
    lanes: () => model.lanes.map((l) => l.label),
    // the window setWindow(from, to) would show (clamped to the run, whole ns)
    clamp: (from, to) => clampWindow(from, to),
    canvas,
    // the chart as a PNG (canvas.toBlob), for the export button
    png: () => new Promise((resolve) => canvas.toBlob(resolve, 'image/png')),
    setAt(t) {
      at = known(t) ? t : null;
      redraw();
    },
    // Data for the current window after a refetch: blocks or bins.
    setData(data) {
      setData(data);
      redraw();
    },
    destroy() {
      if (dark) dark.removeEventListener('change', onScheme);
      chart.destroy();
      wrap.remove();
      legend.destroy();
      legendHost.remove();
    },
  };
}
