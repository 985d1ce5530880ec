// ptable.mjs -- a table read from the server a page at a time (a
// kernel-level import of a million kernels: the run view's Kernels tab
// never fetches the whole list). The server sorts (GET /kernels?offset=
// &limit=&sort=&order=&name=, docs/api.md), so a page in any column's order
// costs one request; the page, sort and name live in the URL (the caller's
// onState writes them), so a shared link reopens the same page.
//
// columns: [{key, label, cell(row) -> Node|string, num, width, sortable}];
// fetchPage({offset, limit, sort, order, name}) -> {total, rows};
// names: the names the filter offers (null: no filter); state: {page
// (1-based), sort, order, name}.

import { h, clear } from './dom.mjs';
import { formatCount } from './format.mjs';

export const PAGE_ROWS = 100;

export function createPTable(host, { id, columns, fetchPage, names, state, onState }) {
  let { page = 1, sort = 'id', order = 'asc', name = null } = state || {};
  let total = 0;
  let rows = [];
  let seq = 0;
  const colgroup = () => h('colgroup', null, columns.map((c) => h('col', { style: c.width ? { width: c.width } : null })));
  const ths = columns.map((c) => h('th', {
    scope: 'col', class: `${c.num ? 'num' : ''}${c.sortable ? ' sortable' : ''}`, dataset: { key: c.key }, 'aria-sort': 'none',
  }, c.sortable ? h('button', { type: 'button', class: 'th-sort', dataset: { key: c.key } }, c.label) : c.label));
  const tbody = h('tbody', null);
  const count = h('span', { class: 'muted vtable-count', id: `${id}-count` });
  const btn = (label, title, to) => h('button', { type: 'button', class: 'page-btn', title, dataset: { to }, onclick: () => go(to) }, label);
  const first = btn('«', 'first page', 'first');
  const prev = btn('‹', 'previous page', 'prev');
  const next = btn('›', 'next page', 'next');
  const last = btn('»', 'last page', 'last');
  const pageText = h('span', { class: 'page-text', id: `${id}-page` });
  const filter = names ? h('select', { id: `${id}-name`, class: 'vtable-filter', 'aria-label': 'only the kernels of one name' },
    h('option', { value: '' }, 'every name'), names.map((n) => h('option', { value: n, selected: n === name }, n))) : null;
  if (filter) {
    filter.addEventListener('change', () => {
      name = filter.value || null;
      page = 1;
      load();
    });
  }
  const bar = h('div', { class: 'vtable-bar ptable-bar' }, filter, count,
    h('span', { class: 'pager', role: 'navigation', 'aria-label': `${id} pages` }, first, prev, pageText, next, last));
  const el = h('div', { class: 'vtable-wrap ptable' }, bar,
    h('div', { class: 'vtable-head' }, h('table', { class: 'vtable' }, colgroup(), h('thead', null, h('tr', null, ths)))),
    h('div', { class: 'vtable-body ptable-body', tabindex: '0', 'aria-label': `${id} rows` },
      h('table', { class: 'vtable', id }, colgroup(), tbody)));
  host.append(el);

  const pages = () => Math.max(1, Math.ceil(total / PAGE_ROWS));
  function go(to) {
    const n = pages();
    page = to === 'first' ? 1 : to === 'prev' ? Math.max(1, page - 1) : to === 'next' ? Math.min(n, page + 1) : n;
    load();
  }

  function render() {
    clear(tbody);
    for (const r of rows) tbody.append(h('tr', null, columns.map((c) => h('td', { class: c.num ? 'num' : null }, c.cell(r)))));
    const lo = total ? (page - 1) * PAGE_ROWS + 1 : 0;
    const hi = (page - 1) * PAGE_ROWS + rows.length;
    count.textContent = `${formatCount(lo)}–${formatCount(hi)} of ${formatCount(total)}${name ? ` named ${name}` : ''}`;
    pageText.textContent = `page ${formatCount(page)} of ${formatCount(pages())}`;
    first.disabled = prev.disabled = page <= 1;
    next.disabled = last.disabled = page >= pages();
    for (const th of ths) th.setAttribute('aria-sort', th.dataset.key === sort ? (order === 'asc' ? 'ascending' : 'descending') : 'none');
  }

  // one page asked for; an answer for an older state is dropped
  async function load() {
    const mine = ++seq;
    el.setAttribute('aria-busy', 'true');
    let r;
    try {
      r = await fetchPage({ offset: (page - 1) * PAGE_ROWS, limit: PAGE_ROWS, sort, order, name });
    } catch (e) {
      if (mine === seq && e.name !== 'AbortError') count.textContent = `could not read the page: ${e.message}`;
      return;
    }
    if (mine !== seq) return;
    total = r.total;
    rows = r.rows;
    // a page past the end (an old link, a narrower filter): the last one
    if (!rows.length && total && page > pages()) {
      page = pages();
      load();
      return;
    }
    el.removeAttribute('aria-busy');
    render();
    if (onState) onState({ page, sort, order, name, total, rows });
  }

  el.querySelector('.vtable-head').addEventListener('click', (ev) => {
    const b = ev.target.closest('.th-sort');
    if (!b) return;
    if (sort === b.dataset.key) order = order === 'asc' ? 'desc' : 'asc';
    else {
      sort = b.dataset.key;
      order = columns.find((c) => c.key === sort).num && sort !== 'id' ? 'desc' : 'asc';   // numbers: largest first
    }
    page = 1;
    load();
  });

  const done = load();
  return { el, loaded: () => done, rows: () => rows.slice(), state: () => ({ page, sort, order, name, total }) };
}
