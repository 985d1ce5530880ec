// format.mjs -- turns integer nanoseconds and byte counts into short text.
// Pure functions only (no DOM), so node --test can check them directly.

const UNITS = [
  { ns: 1e9, name: 's' },
  { ns: 1e6, name: 'ms' },
  { ns: 1e3, name: 'µs' },
  { ns: 1, name: 'ns' },
];

// Three significant digits keep "1.32 s" and "250 ms" readable while still
// telling apart blocks that differ by one percent.
function sig3(x) {
  const a = Math.abs(x);
  let s;
  if (a >= 100) s = x.toFixed(0);
  else if (a >= 10) s = x.toFixed(1);
  else s = x.toFixed(2);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s === '-0' ? '0' : s;
}

// The largest unit in which |ns| is at least 1 (ns for anything smaller).
export function unitFor(ns) {
  const a = Math.abs(ns);
  for (const u of UNITS) if (a >= u.ns) return u;
  return UNITS[UNITS.length - 1];
}

// A duration or time: 1320000000 -> "1.32 s", 250000000 -> "250 ms",
// 40000 -> "40 µs", 100 -> "100 ns"; null/undefined -> "—".
export function formatNs(ns) {
  if (ns === null || ns === undefined || Number.isNaN(ns)) return '—';
  if (ns === 0) return '0 s';
  const u = unitFor(ns);
  return `${sig3(ns / u.ns)} ${u.name}`;
}

// Axis ticks share one unit chosen from the visible span, so a 0–5 s axis
// reads "0 s, 0.5 s, 1 s" rather than mixing "500 ms" and "1 s".
export function axisUnit(spanNs) {
  return unitFor(spanNs);
}

export function formatTick(ns, unit, stepNs) {
  const v = ns / unit.ns;
  // Enough decimals to tell neighbouring ticks apart, never more than 6.
  const step = stepNs > 0 ? stepNs / unit.ns : 1;
  let decimals = 0;
  while (decimals < 6 && Math.abs(Math.round(step * 10 ** decimals) - step * 10 ** decimals) > 1e-9 * 10 ** decimals) {
    decimals += 1;
  }
  let s = v.toFixed(decimals);
  if (s === '-0' || /^-0\.0*$/.test(s)) s = s.slice(1);
  return `${s} ${unit.name}`;
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

// Binary prefixes, as the scenario format uses ("256MB" = 256 * 2^20).
export function formatBytes(b) {
  if (b === null || b === undefined) return '—';
  let v = b;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < BYTE_UNITS.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${sig3(v)} ${BYTE_UNITS[i]}`;
}

// One formatter for all calls: toLocaleString builds a new one each time,
// which is slow in tables of thousands of rows.
const COUNT = new Intl.NumberFormat('en-US');

export function formatCount(n) {
  if (n === null || n === undefined) return '—';
  return COUNT.format(Number(n));
}

// CUDA priorities: lower is higher; "none" when the stream set none.
export function formatPriority(p) {
  if (p === null || p === undefined) return '—';
  return String(p);
}

export function formatDate(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC');
}
