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
export function linkNote(note) {
  return note ? h('p', { class: 'link-note', role: 'status', id: 'link-note' }, note) : null;
}

export function errorBox(message) {
  return h('div', { class: 'error', role: 'alert' }, message);
}
