// charts/timeline/layout.mjs -- where things go on the timeline, as pure
// functions of the data: the lanes (SMs, or streams for a run without
// blocks, then one lane per copy engine), each bar's place in lane units
// (TX2 paper §3.1 Fig. 3: a block's height is its share of the SM's
// threads, concurrent blocks stacked), the x mapping of a paint and
// what lies under a point (hit boxes, and the bins
// found from the data). Nothing here touches the canvas or the state.
//
// Lane grouping lives in one place, laneModel (its lane list: SMs or
// streams, then the copy engines, then the CPU tasks of a run whose tasks
// can be held); a new grouping of lanes is a change there and nowhere else.

import { shortName } from '../../format.mjs';
import { stackBlocks, stackUnits } from '../stacking.mjs';
import { hostWaits, hostTasks } from './host.mjs';

export const PAD = 0.08;             // empty share of a lane above and below its bars
export const CE_SIZE = 0.55;         // a copy-engine lane, relative to an SM lane
export const TASK_SIZE = 0.55;       // a CPU task's lane (host.mjs), the same
// unified-memory migrations (issue 28) on their own lane, in their own colours
const COPY_COLORS = { h2d: '#8da9c9', d2h: '#c9a88d', uvm_h2d: '#9fc98d', uvm_d2h: '#c98dba', uvm_d2d: '#a8a0d0' };
const COPY_OTHER = '#b5b5b5';

// The px height of a lane when the run has n lanes.
export function laneHeight(n) {
  if (n <= 3) return 120;
  if (n <= 8) return 80;
  if (n <= 16) return 44;
  if (n <= 40) return 24;
  return Math.max(7, Math.floor(1400 / n));
}

export function copyColor(dir) {
  return COPY_COLORS[dir] || COPY_OTHER;
}

export function known(v) {
  return v !== null && v !== undefined;
}

export function streamKey(k) {
  return `${k.process ?? ''}\u0000${k.stream ?? ''}`;
}

// Stream lanes in numeric order (7, 16, 20, not first-seen order): names
// compare as text with their digit runs compared as numbers.
const NATURAL = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
function laneOrder(p, q) {
  return NATURAL.compare(String(p.process ?? ''), String(q.process ?? ''))
    || NATURAL.compare(String(p.stream ?? ''), String(q.stream ?? ''));
}

export function engineOf(c) {
  if (String(c.direction ?? '').startsWith('uvm_')) return 'uvm';   // no engine: its own lane
  return known(c.engine) && c.engine >= 0 ? c.engine : 0;
}

// The streams of a run without blocks as lanes: seen (stream key -> lane)
// and the lanes' labels ("stream 7", or "process/stream" when several
// processes have streams). items: the kernels, or (a big kernel-level run
// drawn by window, issue 9) every stream of the run, whatever the window holds.
function streamLanes(items) {
  const keys = [];
  const seen = new Map();
  for (const k of items) {
    const key = streamKey(k);
    if (!seen.has(key)) {
      seen.set(key, keys.length);
      keys.push(k);
    }
  }
  keys.sort(laneOrder);
  keys.forEach((k, i) => seen.set(streamKey(k), i));
  const procs = new Set(keys.map((k) => k.process ?? ''));
  const labels = keys.map((k) => (procs.size > 1 ? `${k.process ?? '?'}/${k.stream ?? '?'}` : `stream ${k.stream ?? '?'}`));
  return { seen, labels };
}

// The lanes, top down: {label, pos, size (lane units), ce (a copy engine),
// task (a CPU task)}. mode 'streams': one lane per stream (seen maps a
// stream to its lane); else one per SM. Copy engines: one lane each, under
// the SMs (or streams); a run of many copies (issue 9) names every engine
// (copyLanes), whatever the window holds. ce: {base (the first CE lane),
// engines}. A run with host calls (d.hostCalls) has a lane per CPU task
// under them, where its waits are drawn (host.mjs): host {base (the first
// task lane), tasks, waits}; none without.
export function laneModel(d) {
  const lanes = [];
  let seen = null;
  if (d.mode === 'streams') {
    const s = streamLanes(d.streamLanes || d.kernels);
    seen = s.seen;
    for (const label of s.labels) lanes.push({ label });
  } else if (d.gpus) {
    // a run of several GPUs (DESIGN §5) whose blocks come whole: each GPU's
    // SMs, GPU by GPU (smLane)
    d.gpus.forEach((n, g) => {
      for (let i = 0; i < n; i++) lanes.push({ label: `GPU ${g} · SM ${i}` });
    });
  } else {
    const sms = Math.max(d.sms || 0, 1);
    for (let i = 0; i < sms; i++) lanes.push({ label: `SM ${i}` });
  }
  // with d.gpus each GPU's engines: "GPU:engine" keys, GPU by GPU
  const keyOf = d.gpus ? (c) => `${c.device || 0}:${engineOf(c)}` : engineOf;
  const order = (x) => (d.gpus ? String(x).split(':') : [0, x]);
  const engines = d.copyLanes || [...new Set(d.copies.filter((c) => known(c.start) && known(c.end))
    .map(keyOf))].sort((a, b) => {
    const [ga, ea] = order(a), [gb, eb] = order(b);
    return ga - gb || (ea === 'uvm') - (eb === 'uvm') || ea - eb;
  });
  const ceBase = lanes.length;
  engines.forEach((key, j) => {
    const [g, e] = order(key);
    // "CE" where its GPU has one engine lane, else "CE n"
    const peers = engines.filter((x) => String(order(x)[0]) === String(g)).length;
    const name = e === 'uvm' ? 'UVM' : peers > 1 ? `CE ${e}` : 'CE';
    lanes.push({ label: d.gpus ? `GPU ${g} · ${name}` : name, ce: true, pos: ceBase + j * CE_SIZE, size: CE_SIZE });
  });
  const waits = hostWaits(d.hostCalls, d.copies);
  const tasks = hostTasks(d.hostCalls, waits);
  const hostBase = lanes.length;
  const top = ceBase + engines.length * CE_SIZE;
  tasks.forEach((name, j) => {
    lanes.push({ label: `task ${name}`, task: true, pos: top + j * TASK_SIZE, size: TASK_SIZE });
  });
  lanes.forEach((l, i) => {
    if (l.pos === undefined) {
      l.pos = i;
      l.size = 1;
    }
  });
  const span = lanes.length ? lanes[lanes.length - 1].pos + lanes[lanes.length - 1].size : 1;
  return { lanes, span, seen, ce: { base: ceBase, engines, keyOf }, host: { base: hostBase, tasks, waits } };
}

// Copies as bars on their engine's lane, overlapping ones stacked.
// bars: {x0, x1, y0, y1 (lane units), lane, kind, name, color, label, info}
export function copyBars(all, lanes, ce) {
  const keyOf = ce.keyOf || engineOf;
  const copies = all.filter((c) => known(c.start) && known(c.end) && ce.engines.includes(keyOf(c)));
  if (!copies.length) return [];
  const items = copies.map((c) => ({ lane: ce.base + ce.engines.indexOf(keyOf(c)), start: c.start, end: c.end }));
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
// one stream stacked. seen: stream key -> lane; colors: name -> colour.
export function kernelBars(colors, kernels, seen) {
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
      name: k.name, color: colors.get(k.name), label: k.name, info: k,
    });
  });
  return bars;
}

// The lane of SM `sm` of the GPU kernel k ran on: the SM itself, or with
// d.gpus (SMs per GPU, laneModel) the GPU's SMs after the GPUs before it.
export function smLane(d, k, sm) {
  if (!d.gpus) return sm;
  const g = Math.min(Math.max(k?.device || 0, 0), d.gpus.length - 1);
  let base = 0;
  for (let i = 0; i < g; i++) base += d.gpus[i];
  return base + sm;
}

// Block rectangles: TX2 §3.1 Fig. 3, height = threads / threads_per_sm.
// d: the timeline's data (kernels, colors, threadsPerSm, isMarked, gpus).
export function blockBars(d, blocks) {
  const byId = new Map(d.kernels.map((k) => [k.id, k]));
  const allKnown = blocks.every((b) => (byId.get(b.kernel)?.threads || 0) > 0);
  // a cohort's wave (issue 28: a run simulated with cohorts, past the
  // window's limit) is one entry of `count` blocks: one bar as tall as they
  const items = blocks.map((b) => ({
    sm: smLane(d, byId.get(b.kernel), b.sm), start: b.start, end: b.end,
    size: (allKnown ? byId.get(b.kernel).threads : 1) * (b.count || 1),
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
    const lane = items[i].sm;
    return {
      x0: b.start, x1: b.end, lane, kind: 'block',
      y0: lane + 1 - PAD - ((st.offset[i] + items[i].size) / cap) * u,
      y1: lane + 1 - PAD - (st.offset[i] / cap) * u,
      name, color: d.colors.get(name) || '#888', label: b.count > 1 ? `${short} ×${b.count}` : `${short}:${b.index}`, info: { block: b, kernel: k },
      pauses: b.pauses,
      // compare view (issue 15): a block placed differently than in the
      // first run gets a red frame; d.isMarked(block) decides
      marked: d.isMarked ? d.isMarked(b) : false,
    };
  });
}

// The x axis is linear: its pixel for a value is one multiply-add, as
// getPixelForValue computes it (clamped to the int16 range as Chart.js
// does) without its per-call overhead -- a paint maps tens of thousands
// of bins and blocks (issue 9's zoom step). xs: Chart.js's x scale.
export function xMapper(xs) {
  const xp0 = xs.getPixelForValue(xs.min);
  const xk = xs.max > xs.min ? (xs.getPixelForValue(xs.max) - xp0) / (xs.max - xs.min) : 0;
  const xm = xs.min;
  return (v) => {
    const p = xp0 + (v - xm) * xk;
    return p < -32768 ? -32768 : p > 32767 ? 32767 : p;
  };
}

// The hit box under a point, the last drawn first (it lies on top).
export function hitAt(hits, p) {
  for (let j = hits.length - 1; j >= 0; j--) {
    const r = hits[j];
    if (p.x >= r.x0 && p.x <= r.x1 && p.y >= r.y0 && p.y <= r.y1) return r;
  }
  return null;
}

// The bin under a point of time t and lane value v, from the data (bins
// are not hit boxes): a copy bin on a copy engine's lane (any height), a
// big kernel-level run's stream bin, or an SM's occupancy bin.
// data: {bins, sbins, cbins} as the state holds them; model: laneModel's.
export function binAt(model, data, t, v) {
  const cb = data.cbins && copyBinAt(model, data.cbins, t, v);
  if (cb) return cb;
  if (data.sbins) return streamBinAt(model, data.sbins, t, v);
  const bins = data.bins;
  if (!bins) return null;
  const sm = Math.floor(v);
  if (v - sm < PAD / 2 || v - sm > 1 - PAD / 2) return null;
  for (const b of bins.bins) {
    if (b.sm === sm && b.t <= t && t < b.t + bins.bin_ns && (b.threads > 0 || b.blocks > 0)) return { kind: 'bin', info: b };
  }
  return null;
}

function copyBinAt(model, cbins, t, v) {
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

function streamBinAt(model, sbins, t, v) {
  const lane = Math.floor(v);
  if (v - lane < PAD / 2 || v - lane > 1 - PAD / 2) return null;
  const i = Math.floor((t - sbins.t) / sbins.bin_ns);
  if (i < 0 || i >= sbins.nbins) return null;
  const L = sbins.lanes.find((l) => model.seen.get(streamKey(l)) === lane);
  if (!L || !(L.kernel_ns[i] > 0)) return null;
  return { kind: 'sbin', info: { lane: L, i } };
}

// The keyboard's next (dir 1) or previous (dir -1) hit after selected,
// among the blocks, kernels and copies drawn in the chart area (left to
// right, top down; issue 30); null when none is drawn.
export function nextHit(hits, area, selected, dir) {
  const list = hits.filter((r) => r.kind !== 'launch' && r.x1 >= area.left && r.x0 <= area.right)
    .sort((a, b) => a.x0 - b.x0 || a.y0 - b.y0);
  if (!list.length) return null;
  let i = selected ? list.findIndex((r) => r.info === selected.info) : -1;
  i = dir > 0 ? (i + 1) % list.length : (i <= 0 ? list.length : i) - 1;
  return list[i];
}

// The time a picked hit stands for: a block's start, a copy's start, a
// kernel's first block or issue, a task's wait's call; null when it has none.
export function pickTime(info) {
  return info.block ? info.block.start : info.wait ? info.wait.start : known(info.start) ? info.start : known(info.first_block) ? info.first_block : known(info.issue) ? info.issue : null;
}
