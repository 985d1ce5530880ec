// editor.mjs -- the scenario editor of the experiment page (issue 15): a
// textarea with line numbers, and the server's validation message shown at
// the line it is about. The scenario parser names a JSON path
// ("scenario: ops[3].threads: …", server/jsonr.c); jansson's syntax errors
// name line and column ("scenario:4:12: JSON: …"). Both become a line.

import { h } from './dom.mjs';

// "ops[3].threads" -> ['ops', 3, 'threads']
export function parsePath(path) {
  const out = [];
  const re = /([^.[\]]+)|\[(\d+)\]/g;
  let m;
  while ((m = re.exec(path))) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

// The 1-based line of every value in JSON text, by path (the key of an
// object member: the line of its key). A small scanner, not JSON.parse,
// because positions are what it is for; invalid text gives what it read.
export function lineMap(text) {
  const lines = new Map();
  let i = 0;
  let line = 1;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) {
      if (text[i] === '\n') line += 1;
      i += 1;
    }
  };
  const str = () => {
    let s = '';
    i += 1;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') { s += text[i + 1]; i += 2; continue; }
      if (text[i] === '\n') line += 1;
      s += text[i];
      i += 1;
    }
    i += 1;
    return s;
  };
  const value = (path, at) => {
    ws();
    lines.set(path.join('\u0000'), at ?? line);
    const c = text[i];
    if (c === '{') {
      i += 1;
      for (;;) {
        ws();
        if (text[i] === '}') { i += 1; return; }
        if (text[i] !== '"') return;
        const keyLine = line;
        const k = str();
        ws();
        if (text[i] !== ':') return;
        i += 1;
        value([...path, k], keyLine);
        ws();
        if (text[i] === ',') { i += 1; continue; }
        if (text[i] === '}') { i += 1; return; }
        return;
      }
    } else if (c === '[') {
      i += 1;
      for (let n = 0; ; n++) {
        ws();
        if (text[i] === ']') { i += 1; return; }
        value([...path, n]);
        ws();
        if (text[i] === ',') { i += 1; continue; }
        if (text[i] === ']') { i += 1; return; }
        return;
      }
    } else if (c === '"') {
      str();
    } else {
      while (i < text.length && !/[\s,\]}]/.test(text[i])) i += 1;
    }
  };
  value([]);
  return lines;
}

// The line a server message is about, or null. The deepest prefix of the
// path that exists in the text counts (a missing key: the line of the
// object that lacks it, the whole scenario's first line for a top-level
// one). A run's own check ('run "gto": policy.tb_adjust: …', server/app/
// store.c) is about the variant of that name where it gives the key, else
// about the scenario's own; a top-level key has no path ('unknown key
// "stream"'): its own line.
export function errorLine(text, message) {
  const m = /^[^:\s]*:(\d+):(\d+): JSON:/.exec(message);
  if (m) return Number(m[1]);
  const head = /^[^:]*: (?:run "((?:[^"\\]|\\.)*)": )?/.exec(message);
  if (!head) return null;
  const rest = message.slice(head[0].length);
  const keyOf = (s) => {
    const k = /^(?:unknown key )?"((?:[^"\\]|\\.)+)"/.exec(s);
    return k ? k[1].replace(/\\(.)/g, '$1') : null;
  };
  const map = lineMap(text);
  const at = (path) => map.get(path.join('\u0000'));
  const p = /^(?:[a-z]+ )?((?:[A-Za-z_][\w-]*|\[\d+\])(?:\.[A-Za-z_][\w-]*|\[\d+\])*): /.exec(rest);
  if (!p) {
    const k = keyOf(rest);
    return k !== null ? at([k]) ?? null : null;
  }
  const path = parsePath(p[1]);
  // where a run's check points into: the variant named so, then the top
  const roots = [[]];
  if (head[1] !== undefined) {
    const name = head[1].replace(/\\(.)/g, '$1');
    let doc = null;
    try { doc = JSON.parse(text); } catch { doc = null; }
    const i = Array.isArray(doc?.variants) ? doc.variants.findIndex((v) => v?.name === name) : -1;
    if (i >= 0) roots.unshift(['variants', i]);
  }
  // a key named after its object's path ('ops[3]: "threads" does not apply
  // to a copy', 'ops[2]: unknown key "kernelx"'): that key's own line
  const k = keyOf(rest.slice(p[0].length));
  for (const root of roots) {
    if (k !== null) {
      const l = at([...root, ...path, k]);
      if (l !== undefined) return l;
    }
    // in a variant only what it gives itself; at the top, down to the root
    for (let n = path.length; n >= (root.length ? 1 : 0); n--) {
      const l = at([...root, ...path.slice(0, n)]);
      if (l !== undefined) return l;
    }
  }
  return null;
}

// A textarea with a gutter of line numbers; markLine(n) highlights line n.
export function createEditor({ id, value, label }) {
  const gutter = h('div', { class: 'gutter', 'aria-hidden': 'true' });
  const area = h('textarea', { id, spellcheck: 'false', 'aria-label': label, wrap: 'off', rows: 24 });
  area.value = value;
  const wrap = h('div', { class: 'code-editor' }, gutter, area);
  let bad = null;
  // Only the numbers of the lines in view (and a margin) exist, between two
  // spacers that keep the gutter as tall as the text: a 4,096-kernel
  // scenario is tens of thousands of lines, and an element per line took
  // seconds of layout before the page showed (issue 15: the big-traces
  // first-paint target applies to every view).
  const before = h('div');
  const lines = h('div');
  const after = h('div');
  gutter.append(before, lines, after);
  let n = 0;
  let lh = 0;
  let shown = '';
  const draw = () => {
    // (the text's own line height: the gutter's smaller font would drift
    // half a pixel a line from it, lines apart by the thousandth)
    if (!lh && area.isConnected) {
      lh = parseFloat(getComputedStyle(area).lineHeight) || 0;
      if (lh) lines.style.lineHeight = `${lh}px`;
    }
    const step = lh || 18;
    const first = Math.max(0, Math.floor(area.scrollTop / step) - 40);
    const last = Math.min(n, first + Math.ceil((area.clientHeight || 600) / step) + 80);
    const key = `${first}:${last}:${bad}:${step}`;
    if (key !== shown) {
      shown = key;
      const els = [];
      for (let i = first; i < last; i++) {
        els.push(h('div', { class: i + 1 === bad ? 'ln bad' : 'ln', dataset: { line: String(i + 1) } }, String(i + 1)));
      }
      lines.replaceChildren(...els);
      before.style.height = `${first * step}px`;
      after.style.height = `${(n - last) * step}px`;
    }
    gutter.scrollTop = area.scrollTop;
  };
  const numbers = () => {
    let c = 1;
    for (let i = area.value.indexOf('\n'); i >= 0; i = area.value.indexOf('\n', i + 1)) c++;
    if (c !== n) shown = '';
    n = c;
    draw();
  };
  area.addEventListener('input', () => { numbers(); });
  area.addEventListener('scroll', draw);
  numbers();
  // Once laid out on the page the real line height is known, and whenever
  // the textarea changes size more or fewer lines are in view: drawn again.
  // (A single requestAnimationFrame raced the page's attaching the editor:
  // a frame that ran before it measured nothing, and the gutter kept the
  // 18 px guess, thousands of pixels off the text by its end.)
  if (typeof ResizeObserver === 'function') new ResizeObserver(() => draw()).observe(area);
  else requestAnimationFrame(draw);
  return {
    el: wrap,
    area,
    value: () => area.value,
    markLine(n) {
      bad = n;
      numbers();
      if (n) {
        // bring the line into view and put the caret on it
        const lines = area.value.split('\n');
        const pos = lines.slice(0, n - 1).reduce((a, l) => a + l.length + 1, 0);
        const lh = parseFloat(getComputedStyle(area).lineHeight) || 18;
        area.scrollTop = Math.max(0, (n - 4) * lh);
        draw();
        area.setSelectionRange(pos, pos + lines[n - 1].length);
      }
    },
  };
}
