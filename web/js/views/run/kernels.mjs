// views/run/kernels.mjs -- the run view's Kernels tab: every kernel (and
// copy) in a sortable, filterable table with CSV export; a big kernel-level
// run's a page at a time, sorted by the server (pagedTables).

import { api } from '../../api.mjs';
import { h, linkNote } from '../../dom.mjs';
import { formatCount, formatPriority, formatBytes, timeFormat, shortName } from '../../format.mjs';
import { queryInt, queryString, updateQuery } from '../../router.mjs';
import { createVTable, tableFromQuery, tableQuery, toCsv } from '../../vtable.mjs';
import { createPTable, PAGE_ROWS } from '../../ptable.mjs';
import { download } from '../../exports.mjs';
import { setExtra } from '../../state.mjs';
import { namedBase, extentOf } from './shared.mjs';

function responseOf(k) {
  if (k.end === null || k.end === undefined) return null;
  if (k.issue !== null && k.issue !== undefined) return k.end - k.issue;
  if (k.first_block !== null && k.first_block !== undefined) return k.end - k.first_block;
  return null;
}

// The URL's keys of the whole-list tables' sort and filter (docs/api.md
// "Share links"): the kernels' as the paged table's (sort, order) and q
// for the filter's text; the copies' csort, corder, cq.
const KERNEL_KEYS = { sort: 'sort', order: 'order', filter: 'q' };
const COPY_KEYS = { sort: 'csort', order: 'corder', filter: 'cq' };

// A whole-list table whose sort and filter are the URL's (keys), with a
// note (id noteId) above it where the link's could not be used.
function linkedTable(host, query, keys, noteId, opts) {
  const linked = tableFromQuery(query, opts.columns, keys);
  const note = linkNote(linked.note, noteId);
  if (note) host.append(note);
  return createVTable(host, {
    ...opts, sort: linked.sort, filter: linked.filter,
    onState(st) {
      if (opts.onState) opts.onState(st);
      updateQuery(tableQuery(keys, st));
    },
  });
}

// The kernels table: every kernel, virtualised, sortable by any column,
// filtered by name or stream, with CSV export. Times carry the decimals
// that tell the run's shortest kernel's issue, first block and end apart.
function kernelsTable(panel, c, route, ks = c.kernels) {
  if (c.big || c.bigCopies) {
    pagedTables(panel, c, route);
    return {};
  }
  if (!ks.length) {
    panel.append(h('p', { class: 'empty' }, 'This run has no kernels.'));
    return {};
  }
  const extent = extentOf(c);
  let shortest = Infinity;
  for (const k of ks) {
    for (const [p, q] of [[k.issue, k.first_block], [k.first_block, k.end], [k.issue, k.end]]) {
      if (p !== null && p !== undefined && q !== null && q !== undefined && q > p) shortest = Math.min(shortest, q - p);
    }
  }
  const f = timeFormat(Math.min(extent.max - extent.min, Number.isFinite(shortest) ? shortest * 1000 : Infinity)).format;
  const stream = (k) => (k.process && k.process !== 'P0' ? `${k.process}/${k.stream ?? '—'}` : k.stream ?? '—');
  // names are cut in the middle to what their column (a quarter of the
  // width) holds, so no ellipsis hides the end where instances differ
  const nameChars = Math.max(16, Math.floor(((panel.clientWidth || 1200) * 0.25 - 20) / 7.8));
  const columns = [
    { key: 'id', label: '#', num: true, width: '4%', cell: (k) => String(k.id), sort: (k) => k.id, csv: (k) => k.id },
    {
      key: 'name', label: 'Kernel', width: '25%', text: (k) => k.name, sort: (k) => k.name, csv: (k) => k.name,
      cell: (k) => h('span', { class: 'strong cell-name', title: k.name }, shortName(k.name, nameChars)),
    },
    { key: 'stream', label: 'Stream', width: '8%', cell: stream, text: stream, sort: (k) => String(stream(k)), csv: stream },
    { key: 'priority', label: 'Prio', num: true, width: '5%', cell: (k) => formatPriority(k.priority), sort: (k) => k.priority, csv: (k) => k.priority },
    {
      key: 'blocks', label: 'Blocks × thr', num: true, width: '10%', cell: (k) => `${formatCount(k.blocks)} × ${formatCount(k.threads)}`,
      sort: (k) => k.blocks, csv: (k) => k.blocks,
    },
    { key: 'threads', label: 'threads', csv: (k) => k.threads, hidden: true },
    { key: 'issue', label: 'Issue', num: true, width: '10%', cell: (k) => f(k.issue), sort: (k) => k.issue, csv: (k) => k.issue },
    { key: 'first_block', label: 'First block', num: true, width: '10%', cell: (k) => f(k.first_block), sort: (k) => k.first_block, csv: (k) => k.first_block },
    { key: 'fully_dispatched', label: 'Dispatched', num: true, width: '10%', cell: (k) => f(k.fully_dispatched), sort: (k) => k.fully_dispatched, csv: (k) => k.fully_dispatched },
    { key: 'end', label: 'End', num: true, width: '9%', cell: (k) => f(k.end), sort: (k) => k.end, csv: (k) => k.end },
    {
      key: 'response', label: 'Response', num: true, width: '9%', cell: (k) => h('span', { class: 'strong' }, f(responseOf(k))),
      sort: responseOf, csv: responseOf,
    },
  ];
  const shownCols = columns.filter((x) => !x.hidden);
  const csvCols = columns.map((x) => ({ ...x, label: x.key === 'blocks' ? 'blocks' : x.key }));
  const host = h('div', { class: 'card table-card' });
  let t = null;
  const csv = h('button', {
    type: 'button', id: 'kernels-csv', class: 'export-csv', title: 'the kernels shown, in this order, as CSV (times in ns)',
    onclick: async () => download(new Blob([toCsv(csvCols, t.rows())], { type: 'text/csv' }), `${await namedBase(c)}-kernels.csv`),
  }, 'CSV');
  panel.append(h('div', { class: 'section-head' }, h('h2', null, `Kernels (${formatCount(ks.length)})`), csv), host);
  const t0 = performance.now();
  t = linkedTable(host, route.query, KERNEL_KEYS, 'kernels-link-note', {
    id: 'kernels', columns: shownCols, rows: ks, filterLabel: 'filter by kernel name or stream',
    onState({ rows, sort, dir }) {
      setExtra('tableRows', rows);
      setExtra('tableSort', sort ? `${sort} ${dir > 0 ? 'asc' : 'desc'}` : null);
      setExtra('tableOrder', t ? t.rows().slice(0, 50).map((k) => k.id) : ks.slice(0, 50).map((k) => k.id));
    },
  });
  setExtra('tableOrder', t.rows().slice(0, 50).map((k) => k.id));
  setExtra('tableMs', Math.round(performance.now() - t0));
  const copies = c.copies;
  if (copies.length) {
    const copyCols = [
      { key: 'name', label: 'Copy', width: '22%', cell: (x) => x.name || '—', text: (x) => x.name, sort: (x) => x.name, csv: (x) => x.name },
      { key: 'stream', label: 'Stream', width: '10%', cell: (x) => x.stream ?? '—', text: (x) => x.stream, sort: (x) => x.stream, csv: (x) => x.stream },
      { key: 'direction', label: 'Direction', width: '10%', cell: (x) => x.direction ?? '—', sort: (x) => x.direction, csv: (x) => x.direction },
      { key: 'bytes', label: 'Bytes', num: true, width: '12%', cell: (x) => formatBytes(x.bytes), sort: (x) => x.bytes, csv: (x) => x.bytes },
      { key: 'issue', label: 'Issue', num: true, width: '15%', cell: (x) => f(x.issue), sort: (x) => x.issue, csv: (x) => x.issue },
      { key: 'start', label: 'Start', num: true, width: '15%', cell: (x) => f(x.start), sort: (x) => x.start, csv: (x) => x.start },
      { key: 'end', label: 'End', num: true, width: '16%', cell: (x) => f(x.end), sort: (x) => x.end, csv: (x) => x.end },
    ];
    const chost = h('div', { class: 'card table-card' });
    let ct = null;
    const ccsv = h('button', {
      type: 'button', id: 'copies-csv', class: 'export-csv',
      onclick: async () => download(new Blob([toCsv(copyCols, ct.rows())], { type: 'text/csv' }), `${await namedBase(c)}-copies.csv`),
    }, 'CSV');
    panel.append(h('div', { class: 'section-head' }, h('h2', null, `Copies (${formatCount(copies.length)})`), ccsv), chost);
    ct = linkedTable(chost, route.query, COPY_KEYS, 'copies-link-note', { id: 'copies', columns: copyCols, rows: copies, filterLabel: 'filter by copy name or stream' });
  }
  return {};
}

// The Kernels tab of a big kernel-level run (a 1M-kernel nvprof import):
// its kernels (and copies, past the API's window max) a page of PAGE_ROWS at a time,
// sorted and filtered by the server (GET /kernels?offset=&limit=&sort=
// &order=&name=), never the whole list. A run of at most the API's window max
// kernels keeps the whole-list table above. The page, sort and name are in
// the URL: page, sort, order, name for kernels; cpage, csort, corder for
// copies (defaults: page 1 by id ascending, left out).

function pagedTables(panel, c, route) {
  const extent = extentOf(c);
  // the time format of the page shown: the digits that tell its shortest
  // kernel's times apart, as the whole-list table does for the run
  let f = timeFormat(extent.max - extent.min).format;
  const formatFor = (rows, spans) => {
    let shortest = Infinity;
    for (const k of rows) {
      for (const [p, q] of spans(k)) if (p !== null && p !== undefined && q !== null && q !== undefined && q > p) shortest = Math.min(shortest, q - p);
    }
    f = timeFormat(Math.min(extent.max - extent.min, Number.isFinite(shortest) ? shortest * 1000 : Infinity)).format;
  };
  const q = route.query;
  const url = { page: null, sort: null, order: null, name: null, cpage: null, csort: null, corder: null };
  // a table's own keys; the other keys (window, hidden kernels, the
  // whole-list kernels table's sort and filter beside paged copies) as they are
  const writeUrl = (keys) => updateQuery(Object.fromEntries(keys.map((k) => [k, url[k]])));
  // a table's state from the link, and a note naming what of it could not
  // be used and what is shown instead (docs/api.md "Share links": a link
  // that cannot be shown as it is says so on the page)
  const stateOf = (p, sortKey, orderKey, keys) => {
    const rawPage = queryString(q, p);
    const page = queryInt(q, p);
    const sort = queryString(q, sortKey);
    const order = queryString(q, orderKey);
    const notes = [];
    if (rawPage !== null && !(page && page > 0)) notes.push(`The link's ${p}=${rawPage} is not a page number: page 1.`);
    if (sort !== null && !keys.includes(sort)) notes.push(`The link's ${sortKey}=${sort} is not a column this table sorts by (${keys.join(', ')}): by id.`);
    if (order !== null && order !== 'asc' && order !== 'desc') notes.push(`The link's ${orderKey}=${order} is neither asc nor desc: ascending.`);
    return {
      page: page && page > 0 ? page : 1,
      sort: sort && keys.includes(sort) ? sort : 'id',
      order: order === 'desc' ? 'desc' : 'asc',
      notes,
    };
  };
  const remember = (p, sortKey, orderKey, st) => {
    url[p] = st.page > 1 ? st.page : null;
    url[sortKey] = st.sort !== 'id' ? st.sort : null;
    url[orderKey] = st.order !== 'asc' ? st.order : null;
  };
  const stream = (k) => (k.process && k.process !== 'P0' ? `${k.process}/${k.stream ?? '—'}` : k.stream ?? '—');
  const nameChars = Math.max(16, Math.floor(((panel.clientWidth || 1200) * 0.25 - 20) / 7.8));
  const waits = [];
  if (c.big) {
    const columns = [
      { key: 'id', label: '#', num: true, width: '6%', sortable: true, cell: (k) => String(k.id) },
      { key: 'name', label: 'Kernel', width: '20%', sortable: true, cell: (k) => h('span', { class: 'strong cell-name', title: k.name }, shortName(k.name, nameChars)) },
      { key: 'stream', label: 'Stream', width: '10%', sortable: true, cell: stream },
      { key: 'priority', label: 'Prio', num: true, width: '5%', sortable: true, cell: (k) => formatPriority(k.priority) },
      { key: 'blocks', label: 'Blocks × thr', num: true, width: '10%', sortable: true, cell: (k) => `${formatCount(k.blocks)} × ${formatCount(k.threads)}` },
      { key: 'issue', label: 'Issue', num: true, width: '9%', sortable: true, cell: (k) => f(k.issue) },
      { key: 'first_block', label: 'First block', num: true, width: '10%', sortable: true, cell: (k) => f(k.first_block) },
      { key: 'fully_dispatched', label: 'Dispatched', num: true, width: '9%', sortable: true, cell: (k) => f(k.fully_dispatched) },
      { key: 'end', label: 'End', num: true, width: '11%', sortable: true, cell: (k) => f(k.end) },
      { key: 'response', label: 'Response', num: true, width: '10%', sortable: true, cell: (k) => h('span', { class: 'strong' }, f(responseOf(k))) },
    ];
    const st = stateOf('page', 'sort', 'order', columns.map((x) => x.key));
    const name = queryString(q, 'name');
    st.name = name && c.names.includes(name) ? name : null;
    if (name !== null && !st.name) st.notes.push(`The link's name=${name} is no kernel of this run: every kernel.`);
    const host = h('div', { class: 'card table-card' }, linkNote(st.notes.join(' '), 'link-note'));
    let t = null;
    const csv = h('button', {
      type: 'button', id: 'kernels-csv', class: 'export-csv', title: 'the kernels of this page, in this order, as CSV (times in ns)',
      onclick: async () => download(new Blob([toCsv(columns.map((x) => ({ ...x, csv: (k) => (x.key === 'stream' ? stream(k) : k[x.key] ?? (x.key === 'response' ? responseOf(k) : null)) })), t.rows())], { type: 'text/csv' }), `${await namedBase(c)}-kernels-page.csv`),
    }, 'CSV (this page)');
    panel.append(h('div', { class: 'section-head' }, h('h2', null, `Kernels (${formatCount(c.big.kernels_total)})`), csv),
      h('p', { class: 'muted', id: 'kernels-paged-note' }, `More than ${formatCount(c.limits.window_max_default)} kernels: shown ${PAGE_ROWS} at a time, sorted by the server (click a column to sort).`), host);
    t = createPTable(host, {
      id: 'kernels', columns, names: c.names, state: st,
      async fetchPage(a) {
        const r = await api.recordsPage(c.id, 'kernels', a, c.pageSignal);
        formatFor(r.kernels, (k) => [[k.issue, k.first_block], [k.first_block, k.end], [k.issue, k.end]]);
        return { total: r.total, rows: r.kernels };
      },
      onState(s) {
        remember('page', 'sort', 'order', s);
        url.name = s.name;
        writeUrl(['page', 'sort', 'order', 'name']);
        setExtra('tablePage', { page: s.page, sort: s.sort, order: s.order, name: s.name, total: s.total, ids: s.rows.map((k) => k.id) });
      },
    });
    waits.push(t.loaded());
  }
  // a run of many copies but few kernels: its kernels' whole-list table
  if (!c.big && c.kernels.length) {
    const only = { ...c, bigCopies: null, copies: [] };
    kernelsTable(panel, only, route);
  }
  if (c.bigCopies) {
    const columns = [
      { key: 'id', label: '#', num: true, width: '6%', sortable: true, cell: (x) => String(x.id) },
      { key: 'name', label: 'Copy', width: '20%', sortable: true, cell: (x) => x.name || '—' },
      { key: 'stream', label: 'Stream', width: '10%', sortable: true, cell: (x) => x.stream ?? '—' },
      { key: 'direction', label: 'Direction', width: '10%', sortable: true, cell: (x) => x.direction ?? '—' },
      { key: 'bytes', label: 'Bytes', num: true, width: '12%', sortable: true, cell: (x) => formatBytes(x.bytes) },
      { key: 'issue', label: 'Issue', num: true, width: '14%', sortable: true, cell: (x) => f(x.issue) },
      { key: 'start', label: 'Start', num: true, width: '14%', sortable: true, cell: (x) => f(x.start) },
      { key: 'end', label: 'End', num: true, width: '14%', sortable: true, cell: (x) => f(x.end) },
    ];
    const cst = stateOf('cpage', 'csort', 'corder', columns.map((x) => x.key));
    const chost = h('div', { class: 'card table-card' },
      cst.notes.length ? h('p', { class: 'link-note', role: 'status', id: 'copies-link-note' }, cst.notes.join(' ')) : null);
    let ct = null;
    const ccsv = h('button', {
      type: 'button', id: 'copies-csv', class: 'export-csv', title: 'the copies of this page, in this order, as CSV (times in ns)',
      onclick: async () => download(new Blob([toCsv(columns.map((x) => ({ ...x, csv: (r) => r[x.key] ?? null })), ct.rows())], { type: 'text/csv' }), `${await namedBase(c)}-copies-page.csv`),
    }, 'CSV (this page)');
    panel.append(h('div', { class: 'section-head' }, h('h2', null, `Copies (${formatCount(c.bigCopies.copies_total)})`), ccsv),
      h('p', { class: 'muted', id: 'copies-paged-note' }, `More than ${formatCount(c.limits.window_max_default)} copies: shown ${PAGE_ROWS} at a time, sorted by the server.`), chost);
    ct = createPTable(chost, {
      id: 'copies', columns, names: null, state: cst,
      async fetchPage(a) {
        const r = await api.recordsPage(c.id, 'copies', a, c.pageSignal);
        formatFor(r.copies, (x) => [[x.start, x.end]]);
        return { total: r.total, rows: r.copies };
      },
      onState(s) {
        remember('cpage', 'csort', 'corder', s);
        writeUrl(['cpage', 'csort', 'corder']);
        setExtra('copiesPage', { page: s.page, sort: s.sort, order: s.order, total: s.total, ids: s.rows.map((x) => x.id) });
      },
    });
    waits.push(ct.loaded());
  }
  c.pagesLoaded = Promise.all(waits);
}

// The tab: a big kernel-level run's tables (more than the API's window max
// of kernels, or of copies) are read a page at a time (pagedTables): never whole.
export async function kernelsTab(panel, c, route, ctx) {
  c.pageSignal = ctx.signal;   // the pages' requests end with the view
  kernelsTable(panel, c, route);
  if (c.big || c.bigCopies) await c.pagesLoaded;
  return {};
}
