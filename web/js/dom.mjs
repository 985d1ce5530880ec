// dom.mjs -- builds elements from data. Text always goes in through
// textContent, never innerHTML, so names coming from uploaded traces cannot
// inject markup.

// h('a', {href: '/x', class: 'btn', onclick: fn}, 'text', child, [more])
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
}

// A table from column specs: [{label, cell: (row) => Node|string, num: bool}].
export function table(columns, rows, attrs = {}) {
  // focusable: a table wider than its card scrolls with the arrow keys too
  return h('div', { class: 'table-wrap', tabindex: '0' },
    h('table', attrs,
      h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null }, c.label)))),
      h('tbody', null, rows.map((r) => h('tr', null, columns.map((c) => h('td', { class: c.num ? 'num' : null }, c.cell(r))))))));
}

// The note above a chart that says what became of a share link's state the
// page could not show as asked (charts/window.mjs linkWindow); null: none.
// Its id is the caller's, never a default: two notes on one page must not
// share one (a page of several charts or tables names each note after its
// own card: `${card.id}-link-note`). `link-note` is the one note of a
// page's main view: the run page's tab (one shown at a time), the sweep's
// chart or Points card, the sweeps form, the compare page's window.
export function linkNote(note, id) {
  if (typeof id !== 'string' || !id) throw new TypeError('linkNote: the note needs its own id');
  return note ? h('p', { class: 'link-note', role: 'status', id }, note) : null;
}

// What an import left out of the user's files or guessed (docs/trace-format.md,
// "Import warnings"), one line each: the first lines the server keeps and
// how many there were in all (`total` may exceed lines.length). A
// <details> whose summary is summary(n) (default "2 warnings"), the lines
// under it, then "and N more"; null when there are none.
export function importWarnings(lines, total, { summary = plural('warning'), id = null, open = false } = {}) {
  const list = Array.isArray(lines) ? lines : [];
  const n = Math.max(Number(total) || 0, list.length);
  if (!n) return null;
  const more = n - list.length;
  return h('details', { class: 'import-warnings', id, open },
    h('summary', null, summary(n)),
    h('ul', null, list.map((l) => h('li', null, l)),
      more > 0 ? h('li', { class: 'muted' }, `and ${more} more`) : null));
}

// n => "1 warning" / "2 warnings"
export function plural(noun) {
  return (n) => `${n} ${noun}${n === 1 ? '' : 's'}`;
}

// A run's import warnings from its meta (import_warnings: lines joined by
// "\n"; import_warnings_total: their count in decimal): {lines, total}.
export function metaWarnings(meta) {
  const text = meta && typeof meta.import_warnings === 'string' ? meta.import_warnings : '';
  const lines = text ? text.split('\n') : [];
  const total = meta && /^\d+$/.test(meta.import_warnings_total || '') ? Number(meta.import_warnings_total) : lines.length;
  return { lines, total };
}

export function errorBox(message) {
  return h('div', { class: 'error', role: 'alert' }, message);
}
