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

// The window a share link asks for (its raw from/to query values, ns;
// undefined when absent) as far as the run's extent {min, max} holds it:
// {from, to, note}. note is null when the link's window is shown as asked
// (or it names none: the whole run), else a sentence saying what is shown
// instead (times written by fmt): a window that is not two whole numbers
// from below to, one past the run's end (a link made on a longer run, or
// a hand-edited one), and one reaching past it, which keeps its part
// inside. A page shows the note: never a blank chart without a word.
// keys: the link's names of the two values and what they count (the Warps
// tab's c0/c1 in cycles; from/to in ns by default).
export function linkWindow(extent, rawFrom, rawTo, fmt, keys = { from: 'from', to: 'to', unit: 'whole ns', what: 'a time range' }) {
  const whole = { from: extent.min, to: extent.max, note: null };
  if (rawFrom === undefined && rawTo === undefined) return whole;
  const int = (s) => (s !== undefined && /^-?\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : null);
  const from = int(rawFrom);
  const to = int(rawTo);
  const span = `${fmt(extent.min)} – ${fmt(extent.max)}`;
  if (from === null || to === null || to <= from) {
    const said = [[keys.from, rawFrom], [keys.to, rawTo]].filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`).join(', ');
    return { ...whole, note: `The link's window (${said}) is not ${keys.what} (${keys.from} and ${keys.to}, ${keys.unit}, ${keys.from} below ${keys.to}): the whole run, ${span}, is shown.` };
  }
  const lo = Math.max(from, extent.min);
  const hi = Math.min(to, extent.max);
  if (hi <= lo) {
    return { ...whole, note: `The link's window ${fmt(from)} – ${fmt(to)} lies outside this run, which spans ${span}: the whole run is shown.` };
  }
  if (lo === from && hi === to) return { from, to, note: null };
  const w = clampWindow(extent, lo, hi);
  return { ...w, note: `The link's window ${fmt(from)} – ${fmt(to)} reaches past this run, which spans ${span}: ${fmt(w.from)} – ${fmt(w.to)} is shown.` };
}
