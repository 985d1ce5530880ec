// charts/window.mjs -- the time window of a zoomable chart (the timeline,
// the queue chart): kept inside the run's extent and at least MIN_SPAN
// wide, moved by the wheel, a drag or the keys (issue 15: + and − zoom
// around the middle, ← and → pan by a fifth, Home shows the whole run).
// Pure functions: the charts hold the window and apply what these answer.

export const MIN_SPAN = 50;          // ns: below this the axis labels stop making sense

// The window [from, from + span] nearest to the one asked for that lies in
// the extent {min, max} and is at least MIN_SPAN wide, in whole ns.
export function clampWindow(extent, from, to) {
  const lo = extent.min;
  const hi = extent.max;
  let span = Math.max(MIN_SPAN, to - from);
  span = Math.min(span, hi - lo);
  let f = from;
  if (f < lo) f = lo;
  if (f + span > hi) f = hi - span;
  return { from: Math.round(f), to: Math.round(f + span) };
}

// The window a wheel step of deltaY asks for, zoomed about the time anchor.
export function wheelWindow(extent, win, anchor, deltaY) {
  const factor = Math.exp(Math.max(-1, Math.min(1, deltaY * 0.002)));
  return clampWindow(extent, anchor - (anchor - win.from) * factor, anchor + (win.to - anchor) * factor);
}

// The window a drag of dx px over an area w px wide asks for, from the
// window the drag began on ({from, to}).
export function dragWindow(extent, start, dx, w) {
  const dt = -(dx / w) * (start.to - start.from);
  return clampWindow(extent, start.from + dt, start.to + dt);
}

// The window a zoom or pan key asks for, or null for any other key.
export function keyWindow(extent, win, key) {
  const span = win.to - win.from;
  const mid = (win.from + win.to) / 2;
  if (key === '+' || key === '=') return clampWindow(extent, mid - span / 4, mid + span / 4);
  if (key === '-' || key === '_' || key === '−') return clampWindow(extent, mid - span, mid + span);
  if (key === 'ArrowLeft') return clampWindow(extent, win.from - span / 5, win.to - span / 5);
  if (key === 'ArrowRight') return clampWindow(extent, win.from + span / 5, win.to + span / 5);
  if (key === 'Home') return clampWindow(extent, extent.min, extent.max);
  return null;
}
