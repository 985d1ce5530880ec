// vtable.mjs -- a table of any number of rows (issue 15: the kernels table
// stopped at 5,000 rows and took 2 s for 1,312). Only the rows scrolled into
// view exist in the DOM; sorting and filtering work on the row array, so
// 1,312 kernels sort in a few milliseconds. The header is a separate table
// with the same column widths above the scrolling body, so it stays in
// place (sticky) and both reserve the same scrollbar gutter. Columns have
// fixed shares of the width (table-layout: fixed) and long text is cut with
// an ellipsis, so the table fits the page at 1280 px.
//
// columns: [{key, label, cell(row) -> Node|string, sort(row) -> number|string
// (absent: not sortable), csv(row) -> raw value, num, width: '12%', text(row)
// -> string searched by the filter}]; sort: {key, dir} and filter: the
// filter's text to start with (a share link's); onState({rows, rendered,
// sort, dir, filter}) after every change.

import { h, clear } from './dom.mjs';
import { formatCount } from './format.mjs';
import { queryString } from './router.mjs';

const ROW = 30;           // px, fixed row height (app.css .vtable td)
const MAX_VISIBLE = 18;   // rows before the body scrolls

function cmp(a, b) {
  const na = a === null || a === undefined;
  const nb = b === null || b === undefined;
  if (na || nb) return na && nb ? 0 : na ? 1 : -1;   // unknown values last either way
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), 'en', { numeric: true });
}

// CSV with RFC 4180 quoting; numbers stay raw (ns, bytes).
export function toCsv(columns, rows) {
  const cols = columns.filter((c) => c.csv);
  const q = (v) => {
    if (v === null || v === undefined) return '';
    const s = String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [cols.map((c) => q(c.label)).join(',')];
  for (const r of rows) lines.push(cols.map((c) => q(c.csv(r))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function createVTable(host, { id, columns, rows, sort, filter: initialFilter, filterLabel, onState }) {
  let order = rows.slice();
  let view = order;
  let sortKey = sort ? sort.key : null;
  let sortDir = sort ? sort.dir : 1;
  let query = initialFilter || '';

  const colgroup = () => h('colgroup', null, columns.map((c) => h('col', { style: c.width ? { width: c.width } : null })));
  const ths = columns.map((c) => h('th', {
    scope: 'col', class: `${c.num ? 'num' : ''}${c.sort ? ' sortable' : ''}`, dataset: { key: c.key },
    'aria-sort': 'none',
  }, c.sort ? h('button', { type: 'button', class: 'th-sort', dataset: { key: c.key } }, c.label) : c.label));
  const head = h('div', { class: 'vtable-head' }, h('table', { class: 'vtable' }, colgroup(), h('thead', null, h('tr', null, ths))));
  const tbody = h('tbody', null);
  const bodyTable = h('table', { class: 'vtable', id }, colgroup(), tbody);
  const sizer = h('div', { class: 'vtable-sizer' }, bodyTable);
  const body = h('div', { class: 'vtable-body', tabindex: '0', 'aria-label': `${id} rows` }, sizer);
  const filter = h('input', {
    type: 'search', class: 'vtable-filter', id: `${id}-filter`, placeholder: filterLabel || 'filter',
    'aria-label': filterLabel || 'filter rows', autocomplete: 'off', spellcheck: 'false',
  });
  filter.value = query;
  const count = h('span', { class: 'muted vtable-count', id: `${id}-count` });
  const el = h('div', { class: 'vtable-wrap' }, h('div', { class: 'vtable-bar' }, filter, count), head, body);
  host.append(el);

  function applySort() {
    if (sortKey) {
      const c = columns.find((x) => x.key === sortKey);
      // always from the original order, so equal keys keep it (stable)
      const keyed = rows.map((r, i) => [c.sort(r), i, r]);
      keyed.sort((p, q2) => {
        const byVal = cmp(p[0], q2[0]);
        // unknown values stay last in both directions
        if (p[0] === null || p[0] === undefined || q2[0] === null || q2[0] === undefined) return byVal || p[1] - q2[1];
        return sortDir * byVal || p[1] - q2[1];
      });
      order = keyed.map((x) => x[2]);
    }
    for (const th of ths) {
      th.setAttribute('aria-sort', th.dataset.key === sortKey ? (sortDir > 0 ? 'ascending' : 'descending') : 'none');
    }
  }

  function applyFilter() {
    const q = query.trim().toLowerCase();
    if (!q) view = order;
    else {
      const texts = columns.filter((c) => c.text);
      view = order.filter((r) => texts.some((c) => String(c.text(r) ?? '').toLowerCase().includes(q)));
    }
    count.textContent = q ? `${formatCount(view.length)} of ${formatCount(rows.length)} rows` : `${formatCount(rows.length)} rows`;
    sizer.style.height = `${view.length * ROW}px`;
    body.style.height = `${Math.min(view.length, MAX_VISIBLE) * ROW + 2}px`;
  }

  function render() {
    const top = body.scrollTop;
    const i0 = Math.max(0, Math.floor(top / ROW) - 4);
    const i1 = Math.min(view.length, Math.ceil((top + (body.clientHeight || MAX_VISIBLE * ROW)) / ROW) + 4);
    clear(tbody);
    bodyTable.style.transform = `translateY(${i0 * ROW}px)`;
    for (let i = i0; i < i1; i++) {
      const r = view[i];
      tbody.append(h('tr', null, columns.map((c) => h('td', { class: c.num ? 'num' : null }, c.cell(r)))));
    }
    if (onState) onState({ rows: view.length, rendered: i1 - i0, sort: sortKey, dir: sortDir, filter: query });
  }

  head.addEventListener('click', (ev) => {
    const b = ev.target.closest('.th-sort');
    if (!b) return;
    if (sortKey === b.dataset.key) sortDir = -sortDir;
    else {
      sortKey = b.dataset.key;
      sortDir = columns.find((c) => c.key === sortKey).num ? -1 : 1;   // numbers: largest first
    }
    applySort();
    applyFilter();
    render();
  });
  filter.addEventListener('input', () => {
    query = filter.value;
    body.scrollTop = 0;
    applyFilter();
    render();
  });
  body.addEventListener('scroll', render, { passive: true });

  applySort();
  applyFilter();
  render();

  return {
    el,
    // rows in their shown order (sorted, filtered): what CSV export writes
    rows: () => view.slice(),
    sortBy(key, dir) {
      sortKey = key;
      sortDir = dir;
      applySort();
      applyFilter();
      render();
    },
  };
}

// A table's sort and filter in its page's URL (docs/api.md "Share links"),
// so a link reopens the same rows in the same order: keys names the
// parameters ({sort, order, filter}, e.g. {sort: 'sort', order: 'order',
// filter: 'q'}); `sort` a sortable column's key (absent: the rows' own
// order), `order` asc (left out) or desc, `filter` the filter's text (left
// out when empty). tableFromQuery answers createVTable's {sort, filter} and
// a note saying what of the link could not be used and what is shown
// instead (dom.mjs linkNote), or null; tableQuery the parameters of a
// state (onState's), for router.mjs updateQuery.
export function tableFromQuery(query, columns, keys) {
  const notes = [];
  const key = queryString(query, keys.sort);
  const ord = queryString(query, keys.order);
  let sort = null;
  if (key !== null) {
    const sortable = columns.filter((c) => c.sort).map((c) => c.key);
    if (sortable.includes(key)) sort = { key, dir: ord === 'desc' ? -1 : 1 };
    else notes.push(`The link's ${keys.sort}=${key} is not a column this table sorts by (${sortable.join(', ')}): the rows are in their own order.`);
  }
  if (ord !== null && ord !== 'asc' && ord !== 'desc') notes.push(`The link's ${keys.order}=${ord} is neither asc nor desc: ascending.`);
  const filter = queryString(query, keys.filter) || '';
  return { sort, filter, note: notes.length ? notes.join(' ') : null };
}

export function tableQuery(keys, { sort, dir, filter }) {
  return {
    [keys.sort]: sort || null,
    [keys.order]: sort && dir < 0 ? 'desc' : null,
    [keys.filter]: filter && filter.trim() ? filter : null,
  };
}
