// charts/timeline/draw.mjs -- painting the timeline on Chart.js's canvas,
// one function per layer, bottom up: the lanes' bands (under the axes'
// grid), then in the chart area the occupancy bins, the stream busy bins,
// the copy bins, the blocks, the kernel and copy bars, the CPU tasks' waits
// (host.mjs) and the picked time's line, then the launch arrows under the axis (TX2 paper §3.1
// Fig. 3). The state (state.mjs) is read, never written: what a paint
// drew (hit boxes for hover, counts for window.schedlab) goes into the
// paint record `out` (state.mjs emptyPaint) the caller stores.

import { shortName } from '../../format.mjs';
import { textOn } from '../../colors.mjs';
import { timeMark } from '../../canvas.mjs';
import { PAD, known, copyColor, streamKey, xMapper } from './layout.mjs';

const LABEL_FONT = '600 11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const MARK_FONT = '600 10px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

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

const heatStep = (f) => Math.min(HEAT_STEPS - 1, Math.floor(Math.min(1, f) * HEAT_STEPS));

function fillHeat(ctx, paths) {
  paths.forEach((path, i) => {
    if (!path) return;
    ctx.fillStyle = HEAT[i];
    ctx.fill(path);
  });
}

// Each lane's band (SM lanes alternate, copy engines their own shade) and
// the line under it.
export function drawLanes(chart, model, theme) {
  const { ctx, chartArea: a, scales } = chart;
  ctx.save();
  for (let i = 0; i < model.lanes.length; i++) {
    const y0 = scales.y.getPixelForValue(model.lanes[i].pos);
    const y1 = scales.y.getPixelForValue(model.lanes[i].pos + model.lanes[i].size);
    ctx.fillStyle = model.lanes[i].ce || model.lanes[i].task ? theme.ce : i % 2 ? theme.alt : theme.bg;
    ctx.fillRect(a.left, y0, a.right - a.left, y1 - y0);
    ctx.strokeStyle = theme.line;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(a.left, Math.round(y1) + 0.5);
    ctx.lineTo(a.right, Math.round(y1) + 0.5);
    ctx.stroke();
  }
  ctx.restore();
}

// SM occupancy bins (past the API's block limit) as a heat strip per SM.
// Neighbouring bins of one SM at one step are one rectangle: a busy SM is
// a single bar however many bins it spans. (Hover finds the bin under the
// pointer from the data: layout.mjs binAt.)
function drawOccupancy(P, bins, threadsPerSm) {
  const { ys, px, win } = P;
  const cap = threadsPerSm > 0 ? threadsPerSm : 0;
  let maxBlocks = 0;
  if (!cap) for (const b of bins.bins) maxBlocks = Math.max(maxBlocks, b.blocks || 0);
  const paths = Array.from({ length: HEAT_STEPS }, () => null);
  const x0w = px(win.from) - 2;
  const x1w = px(win.to) + 2;
  let run = null;   // {sm, step, t0, t1}
  const laneY = [];   // sm -> [y0, y1], asked of the y axis once per paint
  const flush = () => {
    if (!run) return;
    const x0 = px(run.t0);
    const ly = laneY[run.sm] || (laneY[run.sm] = [ys.getPixelForValue(run.sm + PAD / 2), ys.getPixelForValue(run.sm + 1 - PAD / 2)]);
    const path = paths[run.step] || (paths[run.step] = new Path2D());
    path.rect(x0, ly[0], Math.max(1, px(run.t1) - x0), ly[1] - ly[0]);
    run = null;
  };
  for (const b of bins.bins) {
    const t1 = b.t + bins.bin_ns;
    const x0 = px(b.t);
    const x1 = px(t1);
    if (x1 < x0w || x0 > x1w) continue;
    const f = cap ? b.threads / cap : maxBlocks ? b.blocks / maxBlocks : 0;
    if (f <= 0) continue;
    const step = heatStep(f);
    if (run && run.sm === b.sm && run.step === step && run.t1 === b.t) run.t1 = t1;
    else {
      flush();
      run = { sm: b.sm, step, t0: b.t, t1 };
    }
  }
  flush();
  fillHeat(P.ctx, paths);
}

// Per-stream busy bins (a big kernel-level run zoomed out, issue 9): each
// lane's bins as a heat strip of its time-averaged running kernels,
// neighbouring bins of one step merged into one rectangle.
function drawStreamBins(P, sbins, model) {
  const { ys, px, win, out } = P;
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
      out.bins += 1;
      const step = heatStep(f);
      if (run && run.step === step && run.t1 === t) run.t1 = t1;
      else {
        flush();
        run = { step, t0: t, t1 };
      }
    }
    flush();
  }
  fillHeat(P.ctx, paths);
}

// Copy bins (a run of many copies zoomed out, issue 9): per engine and bin
// a bar from the lane's bottom whose height is the engine's busy share
// (copy-ns / bin width, at most 1), split by direction in the copies'
// colours; one path per colour.
function drawCopyBins(P, cbins, model) {
  const { ctx, ys, px, win, out } = P;
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
      out.copyBins += 1;
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

// A preempted block (its context switched out: TX2 paper appendix A, GCAPS
// §2) keeps its first start and final end; the intervals it did not run
// are hatched (those under a pixel wide would not show).
function drawPauses(P, b, x0, w, y0, y1) {
  const { ctx, px } = P;
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

// One bar (block, kernel or copy): filled, outlined when big enough,
// framed red when marked (the compare view: placed differently than in
// the first run), its pauses hatched, labelled when the label fits.
// Rectangles too small for an outline or a label are collected per colour
// in small and filled as one path each (flushSmall): a dense window of
// tens of thousands of blocks is then a handful of fills, not one per block.
function drawBar(P, small, b) {
  const { ctx, a, ys, px, theme, out } = P;
  const x0 = Math.max(px(b.x0), a.left - 2);
  const x1 = Math.min(px(b.x1), a.right + 2);
  const y0 = ys.getPixelForValue(b.y0);
  const y1 = ys.getPixelForValue(b.y1);
  const w = Math.max(1, x1 - x0);
  if (w <= 3 && !b.marked) {
    let path = small.get(b.color);
    if (!path) small.set(b.color, (path = new Path2D()));
    path.rect(x0, y0, w, y1 - y0);   // (pauses of a 3 px block would not show)
    out.hits.push({ x0, x1: x0 + w, y0, y1, kind: b.kind, info: b.info });
    return;
  }
  ctx.fillStyle = b.color;
  ctx.fillRect(x0, y0, w, y1 - y0);
  if (w > 3 && y1 - y0 > 3) {
    ctx.strokeStyle = theme.stroke;
    ctx.lineWidth = 1;
    ctx.strokeRect(Math.round(x0) + 0.5, Math.round(y0) + 0.5, Math.max(0, Math.round(w) - 1), Math.max(0, Math.round(y1 - y0) - 1));
  }
  if (b.marked) {
    ctx.strokeStyle = '#d62728';
    ctx.lineWidth = 3;
    ctx.strokeRect(x0 + 1.5, y0 + 1.5, Math.max(1, w - 3), Math.max(1, y1 - y0 - 3));
  }
  if (b.pauses) drawPauses(P, b, x0, w, y0, y1);
  if (b.label && y1 - y0 >= 11 && w > 20) {
    const tw = ctx.measureText(b.label).width;
    if (tw + 6 <= w) {
      ctx.fillStyle = textOn(b.color);
      ctx.fillText(b.label, x0 + w / 2, (y0 + y1) / 2);
    }
  }
  out.hits.push({ x0, x1: x0 + w, y0, y1, kind: b.kind, info: b.info });
}

function flushSmall(ctx, small) {
  for (const [color, path] of small) {
    ctx.fillStyle = color;
    ctx.fill(path);
  }
  small.clear();
}

// The blocks of the window (not when binned) and the legend's shown kernels.
function drawBlocks(P, small, st) {
  const { win } = P;
  for (const b of st.blockBars) {
    if (!(b.x0 < win.to && b.x1 > win.from) || st.hidden.has(b.name)) continue;
    drawBar(P, small, b);
    P.out.blocks += 1;
  }
  flushSmall(P.ctx, small);
}

// Kernel bars (a run without blocks; the shown kernels), then copy bars.
function drawKernelsAndCopies(P, small, st) {
  const { win, out } = P;
  for (const b of st.kernelBars) {
    if (!(b.x0 < win.to && b.x1 > win.from) || st.hidden.has(b.name)) continue;
    out.kernels += 1;
    drawBar(P, small, b);
  }
  for (const b of st.copyBars) {
    if (!(b.x0 < win.to && b.x1 > win.from)) continue;
    out.copyBars += 1;
    drawBar(P, small, b);
  }
  flushSmall(P.ctx, small);
}

// The CPU tasks' waits (a run with host calls: host.mjs), each a bar on
// its task's lane from the call to its return, labelled with the call.
function drawWaits(P, small, st) {
  const { win, out } = P;
  for (const b of st.waitBars) {
    if (!(b.x0 < win.to && b.x1 > win.from)) continue;
    const w = b.info.wait;
    out.waits.push({ task: w.task, kind: w.kind, label: w.label, start: w.start, end: w.end });
    drawBar(P, small, b);
  }
  flushSmall(P.ctx, small);
}

// The picked time (at) as a dashed line across the lanes.
function drawAt(P, at) {
  const { ctx, a, px, win, theme } = P;
  if (at === null || at < win.from || at > win.to) return;
  timeMark(ctx, Math.round(px(at)) + 0.5, a, theme.mark);
}

// Everything in the chart area, clipped to it: the layers in order.
// threadsPerSm: the device's (occupancy's scale); out: the paint record.
export function drawData(chart, st, model, threadsPerSm, out) {
  const { ctx, chartArea: a, scales } = chart;
  ctx.save();
  ctx.beginPath();
  ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
  ctx.clip();
  ctx.font = LABEL_FONT;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'center';
  const P = { ctx, a, ys: scales.y, px: xMapper(scales.x), win: st.win, theme: st.theme, out };
  if (st.bins) drawOccupancy(P, st.bins, threadsPerSm);
  if (st.sbins) drawStreamBins(P, st.sbins, model);
  if (st.cbins) drawCopyBins(P, st.cbins, model);
  const small = new Map();   // colour -> Path2D
  if (!st.bins) drawBlocks(P, small, st);
  drawKernelsAndCopies(P, small, st);
  drawWaits(P, small, st);
  drawAt(P, st.at);
  ctx.restore();
}

// TX2 §3.1, Fig. 3: "Arrows below the x-axis indicate kernel launch
// times." Launches closer than a few pixels share one arrow (grey when
// they are several kernels) and one label, so none hides another.
// markWidth: label -> its width in the markers' font, kept between paints
// (a zoom step draws the same labels again; measureText was a tenth of a
// 4,096-kernel run's paint). colors: name -> colour; out: the paint record.
export function drawMarkers(chart, st, colors, markWidth, out) {
  const { ctx, chartArea: a, scales } = chart;
  const { win } = st;
  const marks = [];
  for (const k of st.kernels) {
    if (!known(k.issue) || st.hidden.has(k.name)) continue;
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
  ctx.font = MARK_FONT;
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
    const color = g.names.length === 1 ? colors.get(g.names[0]) || '#555' : '#4b5563';
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
      ctx.fillStyle = st.theme.ink;
      ctx.fillText(label, x + 5, top + 9 + row * 11);
      rowEnd[row] = x + 5 + w;
    }
    out.hits.push({ x0: x - 5, x1: x + 5, y0: top, y1: top + 25, kind: 'launch', info: g.ks });
  });
  ctx.restore();
}
