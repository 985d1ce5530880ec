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
// which is slow in tables of thousands of rows. Made at the first call, not
// when the module is loaded: the browser's first Intl.NumberFormat loads its
// number data (40-70 ms in Chromium on the 2-core machine), which
// chartlib.mjs has done while the page's first requests were out.
let COUNT = null;

export function formatCount(n) {
  if (n === null || n === undefined) return '—';
  if (!COUNT) COUNT = new Intl.NumberFormat('en-US');
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

// ---- times at the precision of the visible window (issue 15) -------------
//
// A time is shown in the unit of the window's span (a 278 µs window shows
// µs) with as many decimals as it takes to resolve a hundred-thousandth of
// the span, never finer than 1 ns: a 278 µs window resolves 1 ns, so its
// times read "235,123.456 µs"; a 5.32 s run resolves 10 µs ("1.00000 s").
// Decimals are kept (not trimmed) so a column of them lines up and says how
// precise it is. Start and end of a window, and a short kernel's issue,
// first block and end, then differ whenever they differ by more than the
// shown resolution.
const FIXED = new Map();
function fixedFormat(decimals) {
  let f = FIXED.get(decimals);
  if (!f) {
    f = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    FIXED.set(decimals, f);
  }
  return f;
}

// spanNs -> {unit, decimals, format(ns) -> "1,234.567 µs"}
export function timeFormat(spanNs) {
  const span = Math.max(1, Math.abs(Number(spanNs) || 1));
  const unit = unitFor(span);
  const step = Math.max(1, 10 ** Math.floor(Math.log10(span / 1e5)));
  const decimals = Math.max(0, Math.round(Math.log10(unit.ns / step)));
  const nf = fixedFormat(decimals);
  return {
    unit,
    decimals,
    format(ns) {
      if (ns === null || ns === undefined || Number.isNaN(ns)) return '—';
      let s = nf.format(ns / unit.ns);
      if (/^-0(\.0*)?$/.test(s)) s = s.slice(1);
      return `${s} ${unit.name}`;
    },
  };
}

// ---- long kernel names (issue 15) ----------------------------------------
//
// Demangled C++ kernel names run to hundreds of characters and share long
// prefixes ("void clover::par_ranged2d_kernel<update_halo_kernel(int, …)::
// [lambda(int) (instance 3)]>(clover::Range2d, T1)"). The short form drops
// what every such name has (the return type, namespaces, parameter lists),
// writes EDG's "[lambda(…) (instance N)]" as λN, and when still too long
// cuts the middle, keeping the kernel template's name and the end, where
// names of one template differ: "par_ranged1d_kernel<update_halo_kernel::λ3>".
function dropParens(s) {
  let out = '';
  let depth = 0;
  let start = -1;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '(') {
      if (depth === 0) start = i;
      depth += 1;
    } else if (ch === ')' && depth > 0) {
      depth -= 1;
      if (depth === 0) {
        const inner = s.slice(start + 1, i);
        // "(instance 3)" tells lambdas apart: keep it
        if (/^instance \d+$/.test(inner)) out += `(${inner})`;
      }
    } else if (depth === 0) out += ch;
  }
  return depth === 0 ? out : s;
}

export function simplifyName(name) {
  let s = String(name ?? '');
  if (s.length <= 24 && !/[<(:]/.test(s)) return s;
  s = dropParens(s);
  s = s.replace(/\[lambda ?\(instance (\d+)\)\]/g, 'λ$1');
  // a return type: words before the first template or the name itself
  s = s.replace(/^(?:(?:static|inline|const|unsigned|signed|struct|class)\s+)*[A-Za-z_][\w:]*[\s*&]+(?=[A-Za-z_])/, '');
  // namespace qualifiers (not "::λ3", which follows a function name)
  s = s.replace(/\b[A-Za-z_]\w*::(?=[A-Za-z_~])/g, '');
  s = s.replace(/\s+/g, ' ').trim();
  return s || String(name);
}

export function shortName(name, max = 44) {
  const s = simplifyName(name);
  if (s.length <= max) return s;
  const lt = s.indexOf('<');
  // keep "template<" whole when it is not most of the budget
  const head = lt > 0 && lt <= max * 0.6 ? s.slice(0, lt + 1) : s.slice(0, Math.floor(max * 0.4));
  let tail = s.slice(s.length - (max - head.length - 1));
  // start the tail at a word when one begins close by ("…halo_kernel::λ7>",
  // not "…alo_kernel::λ7>")
  const m = /^[A-Za-z0-9]{0,4}[_:<,. ]+/.exec(tail);
  if (m && m[0].length < tail.length - 3) tail = tail.slice(m[0].length);
  return `${head}…${tail}`;
}

// ---- compact id lists for URLs: [0,1,2,3,7,9,10] <-> "0-3,7,9-10" --------
export function encodeRanges(ids) {
  const xs = [...new Set(ids)].sort((a, b) => a - b);
  const parts = [];
  for (let i = 0; i < xs.length;) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j] + 1) j += 1;
    parts.push(j === i ? String(xs[i]) : j === i + 1 ? `${xs[i]},${xs[j]}` : `${xs[i]}-${xs[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

// null when the text is not such a list (a name list of an older link)
export function decodeRanges(text, limit = Infinity) {
  if (typeof text !== 'string' || !/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(text)) return null;
  const out = [];
  for (const part of text.split(',')) {
    const [a, b] = part.split('-').map(Number);
    const hi = Math.min(b === undefined ? a : b, limit - 1);
    for (let x = a; x <= hi; x++) out.push(x);
  }
  return out;
}

// A set of ids as a bit field in base64url ("kb=" links): 6 ids a character,
// so even 10,000 kernels fit in a 1,700-character link however the shown
// ones are scattered.
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
export function encodeBits(ids, n) {
  const bits = new Uint8Array(Math.ceil(n / 6));
  for (const i of ids) if (i >= 0 && i < n) bits[Math.floor(i / 6)] |= 1 << (i % 6);
  let s = '';
  for (const b of bits) s += B64[b];
  return s.replace(/A+$/, '');
}

export function decodeBits(text, n) {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const out = [];
  for (let c = 0; c < text.length; c++) {
    const v = B64.indexOf(text[c]);
    for (let b = 0; b < 6; b++) if (v & (1 << b) && c * 6 + b < n) out.push(c * 6 + b);
  }
  return out;
}
