// colors.mjs -- one colour per kernel name, stable across views and runs.

// Tableau 10: distinct for the common case of a handful of kernels, and
// readable both as fills and as chart bars.
const PALETTE = [
  '#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2',
  '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac',
];

// Past the palette, walk the hue circle by the golden angle so neighbours
// stay apart however many kernels there are.
export function colorAt(i) {
  if (i < PALETTE.length) return PALETTE[i];
  const hue = (i * 137.508) % 360;
  return `hsl(${hue.toFixed(1)}, 55%, 55%)`;
}

// names in first-appearance order -> Map name -> colour
export function colorMap(names) {
  const m = new Map();
  for (const n of names) if (!m.has(n)) m.set(n, colorAt(m.size));
  return m;
}

// Black or white text, whichever reads better on the fill.
export function textOn(color) {
  let r;
  let g;
  let b;
  if (color.startsWith('#')) {
    r = parseInt(color.slice(1, 3), 16);
    g = parseInt(color.slice(3, 5), 16);
    b = parseInt(color.slice(5, 7), 16);
  } else {
    const m = /hsl\(([\d.]+),\s*([\d.]+)%,\s*([\d.]+)%\)/.exec(color);
    if (!m) return '#111';
    return Number(m[3]) > 50 ? '#111' : '#fff';
  }
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return lum > 140 ? '#111' : '#fff';
}
