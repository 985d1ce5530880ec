// colors.mjs -- one colour per kernel name, stable across views and runs.
//
// A kernel's colour comes from a hash of its name (issue 15), not from its
// position in the run, so the same kernel has the same colour in every run
// and in a comparison of runs that launch different sets of kernels. The
// palette holds 40 colours chosen to stay apart from each other and to
// carry either black or white labels (textOn), so runs with 30+ kernels
// remain readable.

// Tableau 10 first (what a handful of kernels mostly get), then Tableau 20's
// light tints and 20 further hues at two lightnesses.
export const PALETTE = [
  '#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2',
  '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac',
  '#a0cbe8', '#ffbe7d', '#8cd17d', '#b6992d', '#499894',
  '#86bcb6', '#f1ce63', '#d37295', '#fabfd2', '#d4a6c8',
  '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd',
  '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf',
  '#393b79', '#637939', '#8c6d31', '#843c39', '#7b4173',
  '#5254a3', '#8ca252', '#bd9e39', '#ad494a', '#a55194',
];

// The i-th colour of a series (queues, sweeps, compare bars): the palette
// in order, then the hue circle walked by the golden angle.
export function colorAt(i) {
  if (i < PALETTE.length) return PALETTE[i];
  const hue = (i * 137.508) % 360;
  return `hsl(${hue.toFixed(1)}, 55%, 55%)`;
}

// FNV-1a over the UTF-16 code units: cheap, and spreads names that differ
// only in a template argument's last digit.
export function hashName(s) {
  let x = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    x ^= s.charCodeAt(i);
    x = Math.imul(x, 0x01000193) >>> 0;
  }
  return x;
}

// The colour a name gets when no other name of the same set claims it.
export function colorOf(name) {
  return PALETTE[hashName(String(name)) % PALETTE.length];
}

// names (any order, duplicates allowed) -> Map name -> colour, keyed in
// first-appearance order. Each name takes its hash's slot in the palette's
// first 10 colours (up to 10 names: Tableau 10, the most distinct), first
// 20 (up to 20) or all 40; when two names of the set hash to one slot, the
// one that sorts first keeps it and the other takes the next free slot.
// Deciding collisions in sorted order makes the result depend on the set
// of names only, never on their order, so two runs of one workload (and a
// comparison of them, which colours the union) colour every kernel alike.
// Past 40 names slots are shared (hash only).
export function colorMap(names) {
  const uniq = [];
  const seen = new Set();
  for (const n of names) {
    if (!seen.has(n)) {
      seen.add(n);
      uniq.push(n);
    }
  }
  const pick = new Map();
  if (uniq.length <= PALETTE.length) {
    const used = new Set();
    const size = uniq.length <= 10 ? 10 : uniq.length <= 20 ? 20 : PALETTE.length;
    const sorted = [...uniq].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const n of sorted) {
      let slot = hashName(String(n)) % size;
      while (used.has(slot)) slot = (slot + 1) % size;
      used.add(slot);
      pick.set(n, PALETTE[slot]);
    }
  }
  const m = new Map();
  for (const n of uniq) m.set(n, pick.get(n) || colorOf(n));
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

// The charts' colours, read from the page's CSS variables (app.css sets
// them for the light and the dark theme, prefers-color-scheme), so canvas
// drawing follows the theme as the HTML does.
const THEME_LIGHT = {
  bg: '#ffffff', alt: '#fafbfc', ce: '#f3f4f6', line: '#d0d5dd', grid: '#e5e7eb', ink: '#374151',
  axis: '#9ca3af', stroke: 'rgba(17, 24, 39, 0.55)', mark: '#111827',
};
export function chartTheme() {
  if (typeof document === 'undefined') return THEME_LIGHT;
  const cs = getComputedStyle(document.documentElement);
  const out = {};
  for (const [k, dflt] of Object.entries(THEME_LIGHT)) out[k] = cs.getPropertyValue(`--chart-${k}`).trim() || dflt;
  return out;
}
