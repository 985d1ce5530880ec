// legend.mjs -- the kernel legend of a timeline, built for thousands of
// kernels (issue 15; issue 9 measured 66 ms per zoom rebuilding a 4,096-kernel
// legend). It is built once per page: a search box, "all", and a grid of
// rows of which only those scrolled into view exist in the DOM. A zoom only
// changes the per-kernel counts, and only the rows on screen are rewritten.
// Each row toggles its kernel; "only" shows that kernel alone. Names are
// shortened in the middle (format.mjs shortName); the whole name is in a
// tooltip that wraps inside the legend, never across the chart.

import { h, clear } from '../dom.mjs';
import { shortName, formatCount } from '../format.mjs';

const ROW = 28;          // px per grid row (CSS .legend-row has the same height)
const MAX_ROWS = 6;      // the list scrolls past this many rows
const COL_MIN = 340;     // px: the narrowest column
const ROW_CHROME = 76;   // px of a row that are not the name: swatch, count, padding

// The average width of a name's character in the legend's font.
function measureChar(el) {
  const probe = 'par_ranged2d_kernel<update_halo_kernel::λ7>';
  const c = document.createElement('canvas').getContext('2d');
  const cs = getComputedStyle(el);
  c.font = `600 ${parseFloat(cs.fontSize) * 0.82 || 12}px ${cs.fontFamily}`;
  return Math.max(5, c.measureText(probe).width / probe.length);
}

// names: distinct kernel names in legend order; colors: Map name -> colour;
// hidden: Set of hidden names; onChange(hiddenSet) when the user changes it;
// onStats({rows, rendered}) after each render (window.schedlab hooks).
// kernels: how many kernels the names stand for (the search box says
// "search 9 kernels (2 names)"; issue 30), names.length when not given.
// search: the search box's text to start with (a link's); onSearch(text)
// when the user changes it (setSearch(text) changes it from outside, and
// calls no onSearch). ids: the prefix of its elements' ids ('' gives
// #legend, #legend-search, #legend-all, #legend-none, #legend-status): a
// page of several legends (the compare view's lanes) gives each its own, as
// an id is unique in a document (HTML §3.2.6.1).
export function createLegend(host, { names, colors, hidden, onChange, onStats, extras, kernels, search: searched, onSearch, ids = '' }) {
  let hid = new Set(hidden || []);
  let counts = null;
  let query = searched || '';
  const list = names.map((name, i) => ({ name, i, short: null, lower: name.toLowerCase() }));
  let shown = list;
  let cols = 1;
  let maxChars = 0;        // the short names' length for the column width
  let charPx = 0;

  const search = h('input', {
    type: 'search', class: 'legend-search', id: `${ids}legend-search`, placeholder: searchText(names.length, kernels),
    'aria-label': 'search kernels', autocomplete: 'off', spellcheck: 'false', value: query,
  });
  const all = h('button', { type: 'button', class: 'legend-all', id: `${ids}legend-all` }, 'all');
  const none = h('button', { type: 'button', class: 'legend-all', id: `${ids}legend-none` }, 'none');
  const status = h('span', { class: 'legend-status muted', id: `${ids}legend-status`, 'aria-live': 'polite' });
  const note = h('span', { class: 'legend-note' });
  const sizer = h('div', { class: 'legend-sizer' });
  const grid = h('div', { class: 'legend-grid' });
  const scroller = h('div', { class: 'legend-list', role: 'group', 'aria-label': 'kernels' }, sizer, grid);
  const tip = h('div', { class: 'legend-tip', hidden: true, role: 'tooltip' });
  const el = h('div', { class: 'legend', id: `${ids}legend` },
    h('div', { class: 'legend-bar' }, search, all, none, status, note, extras || null), scroller, tip);
  host.append(el);

  function filter() {
    const q = query.trim().toLowerCase();
    shown = q ? list.filter((x) => x.lower.includes(q)) : list;
  }

  function layout() {
    const w = scroller.clientWidth || host.clientWidth || 1200;
    cols = Math.max(1, Math.floor(w / COL_MIN));
    // Names are cut in the middle to what the column holds, so the end
    // (where template instances differ) is never hidden by an ellipsis.
    if (!charPx) charPx = measureChar(scroller);
    const fit = Math.max(14, Math.floor((w / cols - ROW_CHROME) / charPx));
    if (fit !== maxChars) {
      maxChars = fit;
      for (const x of list) x.short = null;
    }
    const rows = Math.ceil(shown.length / cols);
    sizer.style.height = `${rows * ROW}px`;
    scroller.style.height = `${Math.min(rows, MAX_ROWS) * ROW + 2}px`;
    grid.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
  }

  function item(x) {
    const on = !hid.has(x.name);
    const n = counts ? counts.get(x.name) : undefined;
    return h('div', { class: 'legend-row' },
      h('button', {
        type: 'button', class: `legend-item${on ? '' : ' off'}`, 'aria-pressed': on ? 'true' : 'false',
        // the name is the button's text (aria-pressed says shown or not);
        // the whole name, when shortened, in the title
        title: `${on ? 'hide' : 'show'} ${x.name}`, dataset: { kernel: x.name, k: String(x.i) },
      }, h('span', { class: 'swatch', style: { background: colors.get(x.name) } }),
      h('span', { class: 'legend-name' }, x.short ?? (x.short = shortName(x.name, maxChars))),
      n !== undefined ? h('span', { class: 'legend-count' }, formatCount(n)) : null),
      h('button', { type: 'button', class: 'legend-only', dataset: { only: String(x.i) }, 'aria-label': `only ${x.name}` }, 'only'));
  }

  function render() {
    const top = scroller.scrollTop;
    const r0 = Math.max(0, Math.floor(top / ROW) - 2);
    const r1 = Math.ceil((top + scroller.clientHeight) / ROW) + 2;
    const i0 = r0 * cols;
    const i1 = Math.min(shown.length, r1 * cols);
    // The rows are built anew: a button of theirs that held the focus (a
    // kernel toggled or shown alone from the keyboard) gets it back, or the
    // focus fell to the page's start.
    const had = grid.contains(document.activeElement) ? document.activeElement : null;
    const again = had ? (had.classList.contains('legend-only') ? `.legend-only[data-only="${had.dataset.only}"]` : `.legend-item[data-k="${had.dataset.k}"]`) : null;
    clear(grid);
    grid.style.transform = `translateY(${r0 * ROW}px)`;
    for (let i = i0; i < i1; i++) grid.append(item(shown[i]));
    if (again) grid.querySelector(again)?.focus({ preventScroll: true });
    const on = names.length - hid.size;
    status.textContent = query.trim()
      ? `${formatCount(shown.length)} match · ${formatCount(on)} of ${formatCount(names.length)} shown`
      : `${formatCount(on)} of ${formatCount(names.length)} shown`;
    if (onStats) onStats({ rows: shown.length, rendered: i1 - i0 });
  }

  function refresh() {
    filter();
    layout();
    render();
  }

  search.addEventListener('input', () => {
    query = search.value;
    scroller.scrollTop = 0;
    refresh();
    if (onSearch) onSearch(query);
  });
  all.addEventListener('click', () => {
    hid = new Set();
    render();
    onChange(hid);
  });
  none.addEventListener('click', () => {
    hid = new Set(names);
    render();
    onChange(hid);
  });
  scroller.addEventListener('scroll', render, { passive: true });
  scroller.addEventListener('click', (ev) => {
    const only = ev.target.closest('.legend-only');
    const btn = ev.target.closest('.legend-item');
    if (only) {
      const name = names[Number(only.dataset.only)];
      hid = new Set(names);
      hid.delete(name);
    } else if (btn) {
      const name = names[Number(btn.dataset.k)];
      if (hid.has(name)) hid.delete(name);
      else hid.add(name);
    } else return;
    render();
    onChange(hid);
  });
  // The whole name, wrapped, under the row it belongs to.
  scroller.addEventListener('pointerover', (ev) => {
    const btn = ev.target.closest('.legend-item');
    if (!btn) return;
    const name = names[Number(btn.dataset.k)];
    tip.textContent = name;
    tip.hidden = false;
    const r = btn.getBoundingClientRect();
    const base = el.getBoundingClientRect();
    tip.style.left = `${Math.max(0, Math.min(r.left - base.left, base.width - tip.offsetWidth))}px`;
    tip.style.top = `${r.bottom - base.top + 4}px`;
  });
  scroller.addEventListener('pointerleave', () => { tip.hidden = true; });
  scroller.addEventListener('scroll', () => { tip.hidden = true; }, { passive: true });

  let ro = null;
  if (window.ResizeObserver) {
    let lastW = 0;
    ro = new ResizeObserver(() => {
      if (scroller.clientWidth === lastW) return;
      lastW = scroller.clientWidth;
      layout();
      render();
    });
    ro.observe(scroller);
  }
  refresh();

  return {
    el,
    // Counts per name (blocks loaded); only the rows on screen change.
    setCounts(m) {
      if (m === null && counts === null) return;   /* occupancy to occupancy: nothing changes */
      counts = m;
      render();
    },
    setHidden(set) {
      hid = new Set(set);
      render();
    },
    // Another legend's search text (the compare page's lanes keep theirs in
    // step): the box shows it and the list is narrowed to it.
    setSearch(text) {
      if (text === query) return;
      query = text;
      search.value = text;
      scroller.scrollTop = 0;
      refresh();
    },
    // A line beside the search box (occupancy mode's colour scale).
    setNote(node) {
      clear(note);
      if (node) note.append(node);
    },
    destroy() {
      if (ro) ro.disconnect();
      el.remove();
    },
  };
}

// The search box's placeholder: the kernels, and the names when fewer.
export function searchText(nNames, nKernels = nNames) {
  const k = Math.max(nKernels || 0, nNames);
  const kernels = `search ${formatCount(k)} kernel${k === 1 ? '' : 's'}`;
  return k > nNames ? `${kernels} (${formatCount(nNames)} name${nNames === 1 ? '' : 's'})` : kernels;
}
