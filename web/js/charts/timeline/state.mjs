// charts/timeline/state.mjs -- everything about a timeline that changes
// after it is made, in one explicit object, and the only functions that
// change it. index.mjs calls these on input (zoom, pan, legend, new data,
// theme); draw.mjs reads the state and hands back what a paint drew
// (painted); nothing else writes to it.
//
// The state: win {from, to} (the window shown), at (the picked time or
// null), hidden (kernel names the legend hides), the data drawn now --
// kernels and copies (a big run's: the window's), bins (SM occupancy),
// sbins (a big kernel-level run's per-stream busy bins), cbins (per-engine
// copy bins) -- and the bars made of it (blockBars, kernelBars, copyBars:
// layout.mjs; waitBars, the CPU tasks' waits: host.mjs), paint (what the last paint drew: hit boxes and counts),
// tipWindow (the window the tooltip was shown in), selected (the
// keyboard's block, kernel or copy), theme (the page's chart colours),
// legendNote (the legend's note shown: 'sm', 'stream' or null) and drag
// (a pointer drag under way, or null).

import { PAD, known, blockBars, kernelBars, copyBars } from './layout.mjs';
import { waitBars } from './host.mjs';

// A paint's record before it starts: draw.mjs fills it (waits: the CPU
// tasks' waits drawn, {task, kind, label, start, end}).
export function emptyPaint() {
  return { hits: [], blocks: 0, kernels: 0, bins: 0, copyBars: 0, copyBins: 0, waits: [] };
}

// d: the caller's data (createTimeline); model: layout.mjs laneModel(d).
export function createState(d, model, theme) {
  return {
    win: { from: d.window.from, to: d.window.to },
    at: known(d.at) ? d.at : null,
    hidden: new Set(d.hidden || []),
    kernels: d.kernels,
    copies: d.copies,
    bins: d.bins || null,
    // a big kernel-level run's per-stream busy bins (issue 9): {t, bin_ns,
    // nbins, lanes: [{process, stream, kernel_ns, thread_ns, max_kernels, …}]}
    sbins: d.sbins || null,
    // a run of many copies zoomed out: per-engine copy bins {t, bin_ns,
    // nbins, lanes: [{engine, copy_ns, max_copies, directions: {dir: […]}}]}
    cbins: d.cbins || null,
    blockBars: d.blocks ? blockBars(d, d.blocks) : [],
    kernelBars: d.mode === 'streams' ? kernelBars(d.colors, d.kernels, model.seen) : [],
    // (one array, pushed one by one: a spread of a run's 800,000 copies
    // overflows the stack)
    copyBars: copyBars(d.copies, model.lanes, model.ce),
    // the run's whole (a run with host calls is a simulation: never by window)
    waitBars: waitBars(model.host.waits, model.lanes, model.host, PAD),
    paint: emptyPaint(),
    tipWindow: { from: null, to: null },
    selected: null,
    theme,
    legendNote: null,
    drag: null,
  };
}

export function setWindow(st, w) {
  st.win = { from: w.from, to: w.to };
}

export function setHidden(st, set) {
  st.hidden = new Set(set);
}

export function setAt(st, t) {
  st.at = known(t) ? t : null;
}

export function setTheme(st, theme) {
  st.theme = theme;
}

// New data for the window (a refetch): {blocks, bins, kernels, sbins,
// copies, cbins}. A run of many copies (d.copyLanes) takes the window's
// copies (none when binned); a big kernel-level run (d.streamLanes) the
// window's kernels (none when binned).
export function setData(st, d, model, { blocks, bins, kernels, sbins, copies, cbins }) {
  st.bins = bins || null;
  st.sbins = sbins || null;
  st.blockBars = blocks ? blockBars(d, blocks) : [];
  if (d.copyLanes) {
    st.cbins = cbins || null;
    st.copies = copies || [];
    st.copyBars = copyBars(st.copies, model.lanes, model.ce);
  }
  if (d.streamLanes) {
    st.kernels = kernels || [];
    st.kernelBars = kernelBars(d.colors, st.kernels, model.seen);
  }
}

// What a paint drew (draw.mjs): it replaces the last paint's record.
export function painted(st, paint) {
  st.paint = paint;
}

// The tooltip was shown for the window shown now.
export function tipShown(st) {
  st.tipWindow = { from: st.win.from, to: st.win.to };
}

export function select(st, hit) {
  st.selected = hit;
}

export function setLegendNote(st, note) {
  st.legendNote = note;
}

// A drag: begun at pointer x on window {from, to}; moved once past 3 px.
export function startDrag(st, x) {
  st.drag = { x, from: st.win.from, to: st.win.to, moved: false };
}

export function dragMoved(st) {
  st.drag.moved = true;
}

export function endDrag(st) {
  st.drag = null;
}
