// views/compare.mjs -- "/compare?runs=a,b[,…]": any runs of any
// experiments side by side (issue 15), chosen with a picker on the page:
// their block timelines one above the other on one shared time axis (zoom
// and pan move all), the blocks placed differently than in the first run
// framed in red (matched by kernel occurrence and block index: on another
// SM or starting at another time), a sortable per-kernel table (start,
// duration, response, Δ vs the first run), the response-time chart, and
// block-duration CDFs per run (the TX2 paper's Fig. 10). Every run is
// labelled "experiment · run". When the runs are a replay (POST
// /api/runs/{run}/replay: the hardware run first, then its simulated runs,
// each with a fidelity report), the page also shows the replay: the
// measured and simulated kernels on one time axis with the differing ones
// highlighted, the fidelity figures against their targets, the kernels that
// differ most linked to both timelines, and a choice to replay under
// another policy or device, which adds runs to this comparison.

import { api } from '../api.mjs';
import { h, table, errorBox, clear } from '../dom.mjs';
import { formatCount, formatNs } from '../format.mjs';
import { queryIds, queryString, navigate, updateQuery, encodeItem, replaceUrl } from '../router.mjs';
import { linkWindow } from '../charts/window.mjs';
import { colorAt, colorMap } from '../colors.mjs';
import { setExtra, setDrawn, setBusy, setReady } from '../state.mjs';
import { createCompareChart, createAlignedTimelines, createCdfChart } from '../charts/compare.mjs';
import { createTimeline } from '../charts/timeline.mjs';
import { qosCompareSection } from './qos.mjs';
import { tasksCompare } from './tasks_compare.mjs';
import { legendInUrlNoted } from '../charts/hidden.mjs';
import { hiddenFromQuery, kernelsQuery, linkNote } from './run/shared.mjs';

const CHART_KERNELS = 80;     // more bars than this are unreadable
const TABLE_ROWS = 5000;
const TABLE_FIRST = 200;      // rows built before the first paint (sortableTable)
const TABLE_SLICE = 400;      // rows per task after it
// The server's request limits (lim: GET /api/capabilities "limits"):
// whole runs up to window_max_ceiling blocks (the API's ceiling) are loaded
// to match blocks across runs; a bigger run shows occupancy, is not matched
// and is asked for the window shown, window_max_default at a time, as the
// run view asks (past it, occupancy bins). A kernel-level run (nvprof /
// Nsight: no blocks) of more kernels than window_max_default is never
// fetched whole here (a 1M-kernel import): its whole-run per-stream busy
// bins are drawn instead, as the run view draws it zoomed out, and the page
// says so.

// A run's kernels when it has at most the window max ({kernels}), else, for a
// kernel-level run, {kernels: [], big: the whole run's per-stream bins
// (names, lanes)}; a run of blocks still gets every kernel (its blocks
// name them), as in the run view. runP: the run's summary (a promise).
async function kernelsOrBins(id, runP, signal, lim) {
  // a run of real-time tasks is compared by task (tasks_compare.mjs): its
  // thousands of per-job kernels are not needed (issue 30: under 1 s)
  const r0 = await runP;
  if ((r0.summary?.jobs || 0) > 0) return { kernels: [] };
  const r = await api.kernelsWindow(id, { max: lim.window_max_default }, signal);
  if (r.mode !== 'bins') return { kernels: r.kernels || [] };
  const run = await runP;
  if ((run.summary?.blocks || 0) > 0) return { kernels: (await api.kernels(id, signal)).kernels || [] };
  return { kernels: [], big: r };
}

// A big run's window answers (issue 9's targets on this view too, issue
// 15): each window asked for once and kept, a window inside one answered
// block by block needs no request, and a prefetch (the next zoom-in step)
// is shared with the step that wants it.
function windowSource(run, signal, lim) {
  const answers = new Map();     // "from:to" -> response
  const pending = new Map();     // "from:to" -> promise of a response
  const key = (w) => `${w.from}:${w.to}`;
  return {
    cached(w) {
      const hit = answers.get(key(w));
      if (hit) return hit;
      // (an answer with counted waves of a cohort run is not reused for a
      // narrower window: zoomed in, its single blocks are asked for, as in
      // the run view's timeline)
      for (const r of answers.values()) if (r.mode === 'blocks' && !r.counted && r.from <= w.from && r.to >= w.to) return r;
      return null;
    },
    get(w) {
      const hit = this.cached(w);
      if (hit) return Promise.resolve(hit);
      let p = pending.get(key(w));
      if (!p) {
        p = api.blocks(run, { from: w.from, to: w.to, max: lim.window_max_default }, signal).then((r) => {
          r.from = w.from;
          r.to = w.to;
          r.counted = Array.isArray(r.blocks) && r.blocks.some((b) => b.count > 1);
          answers.set(key(w), r);
          if (answers.size > 64) answers.delete(answers.keys().next().value);
          return r;
        }).finally(() => pending.delete(key(w)));
        pending.set(key(w), p);
      }
      return p;
    },
    prefetch(w) {
      if (!this.cached(w)) this.get(w).catch(() => {});
    },
  };
}
const dataOf = (r) => (r.mode === 'blocks' ? { blocks: r.blocks, bins: null } : { blocks: null, bins: r });

function delta(v, base) {
  if (v === null || v === undefined || base === null || base === undefined) return '—';
  const d = v - base;
  const sign = d > 0 ? '+' : d < 0 ? '−' : '±';
  const pct = base ? ` (${sign}${Math.abs((d / base) * 100).toFixed(1)}%)` : '';
  return `${sign}${formatNs(Math.abs(d))}${pct}`;
}

// "K1", and "K1 #2" for the second K1: the API matches kernels by name and
// occurrence, so the label says which occurrence it is.
function labelsFor(kernels) {
  const seen = new Map();
  const total = new Map();
  for (const k of kernels) total.set(k.name, (total.get(k.name) || 0) + 1);
  return kernels.map((k) => {
    const n = (seen.get(k.name) || 0) + 1;
    seen.set(k.name, n);
    return total.get(k.name) > 1 ? `${k.name} #${n}` : k.name;
  });
}

// "a very long experiment name · run" -> "a very long exp…name · run": the
// middle goes, so both the experiment and the run stay recognisable; the
// element's title has the whole label.
export function midEllipsis(s, max = 48) {
  const t = String(s ?? '');
  if (t.length <= max) return t;
  const head = Math.ceil((max - 1) / 2);
  const tail = max - 1 - head;
  return `${t.slice(0, head)}…${t.slice(t.length - tail)}`;
}

function runLabel(r, max) {
  const full = r.label || r.name || r.run;
  return h('span', { class: 'run-label', title: full }, midEllipsis(full, max));
}

const known = (v) => v !== null && v !== undefined;

// Blocks matched across runs by kernel occurrence (the 3rd "K1" of one run
// with the 3rd "K1" of the other, as GET /api/compare matches kernels) and
// block index: "K1\u0000 2/5" -> {sm, start} per run.
function blockKeys(kernels) {
  const occ = new Map();
  const key = new Map();
  for (const k of [...kernels].sort((a, b) => a.id - b.id)) {
    const n = occ.get(k.name) || 0;
    occ.set(k.name, n + 1);
    key.set(k.id, `${k.name}\u0000${n}`);
  }
  return key;
}

// Per run: which of its blocks sit on another SM or start at another time
// than the same block of the first run. The first run's marks are the
// blocks that differ in any other run.
function placementDiffs(loaded) {
  const base = loaded[0];
  const out = loaded.map(() => ({ marked: new Set(), count: 0, compared: 0, sm: 0, start: 0, known: false }));
  // a run without block records (nvprof, Nsight, PyTorch: kernels only)
  // has no placement: "0 of 0 blocks placed differently" read as "placed
  // the same", so it is not compared, as a run too big to match is not
  if (!base.blocks || !base.blocks.length) return out;
  const bk = blockKeys(base.kernels);
  const baseBy = new Map();
  for (const b of base.blocks) baseBy.set(`${bk.get(b.kernel)}/${b.index}`, b);
  out[0].known = true;
  for (let r = 1; r < loaded.length; r++) {
    const L = loaded[r];
    if (!L.blocks || !L.blocks.length) continue;
    const o = out[r];
    o.known = true;
    const rk = blockKeys(L.kernels);
    for (const b of L.blocks) {
      const m = baseBy.get(`${rk.get(b.kernel)}/${b.index}`);
      if (!m) continue;
      o.compared += 1;
      const sm = b.sm !== m.sm;
      const st = b.start !== m.start;
      if (sm) o.sm += 1;
      if (st) o.start += 1;
      if (sm || st) {
        o.count += 1;
        o.marked.add(`${b.kernel}/${b.index}`);
        out[0].marked.add(`${m.kernel}/${m.index}`);
      }
    }
  }
  out[0].count = out[0].marked.size;
  return out;
}

// The name of each compared run in the charts' hide_* keys (docs/api.md
// "Share links"): its id, the stable thing in runs= (two runs of one label
// are two entries), and ID~N for the Nth time one id is listed (a run
// compared with itself: each lane its own series). Run ids are [a-z0-9]
// (db.c), so "~" and the tasks chart's ".mort" never are part of one.
export function runKeys(ids) {
  const seen = new Map();
  return ids.map((id) => {
    const n = (seen.get(id) || 0) + 1;
    seen.set(id, n);
    return n > 1 ? `${id}~${n}` : id;
  });
}

// The compare charts whose series are runs (hide_qos's are kernels'): an
// entry names a run (runKeys), with the tasks chart's ".mort", ".mean" or
// ".bound" after it.
const RUN_HIDES = ['hide_response', 'hide_cdf', 'hide_replay', 'hide_tasks'];

// An entry of RUN_HIDES for the runs `list` (ids, in order) opened from a
// page of runs `old` (from: each new run's place in old, null if added):
// renamed for its run's place in list (ID~N as it counts there), or null
// where its run left. An entry naming no run of old (a label: the older
// links' form, or none at all) is kept as it is, for the new page to read.
function renameHide(entry, old, list, from) {
  const m = /^([a-z0-9]+)(?:~(\d+))?(\.[a-z]+)?$/.exec(entry);
  if (!m || !old.includes(m[1])) return entry;
  const places = old.map((id, j) => (id === m[1] ? j : -1)).filter((j) => j >= 0);
  const place = places[(m[2] ? Number(m[2]) : 1) - 1];
  if (place === undefined) return entry;
  const at = from.indexOf(place);
  return at < 0 ? null : `${runKeys(list)[at]}${m[3] || ''}`;
}

// A comparison's link for another set of runs (the picker's add and
// remove, "compare the first N", "compare the other N", the replay's "Add
// to the comparison"; docs/api.md "Share links"): runs=list, and every
// other key of this page's URL as it stands (the window, the kernels shown,
// the legend's search, the table's sort, the charts' hidden series), but
// the Kernels table's sort by a run's column (start-N, duration-N,
// response-N, delta-N: N the run's place from 1) renumbered to that run's
// new place; with its `order` dropped when that run leaves, or for a Δ
// column when the first run, the one Δ is against, is not first any more;
// and the hidden series of runs (RUN_HIDES: by run id) renamed for their
// runs' places, those of a run that leaves dropped (a key left empty too).
// from: for each run of the list, its place (0-based) in this page's runs,
// null for one added. The new page drops what does not fit its runs: the
// hidden series whose labels its charts have not, silently (handed below),
// and says what of the window lies past them, as of any link.
export function compareUrl(list, from, search = location.search) {
  if (!list.length) return '/compare';
  const parts = search.replace(/^\?/, '').split('&').filter((p) => p && !/^runs(=|$)/.test(p));
  const value = (key) => {
    const p = parts.find((x) => x.split('=')[0] === key);
    if (p === undefined) return null;
    try {
      return decodeURIComponent(p.slice(key.length + 1));
    } catch {
      return null;
    }
  };
  const sort = value('sort');
  const m = sort === null ? null : /^(start|duration|response|delta)-(\d+)$/.exec(sort);
  const runsPart = search.replace(/^\?/, '').split('&').find((p) => /^runs=/.test(p));
  const old = runsPart ? runsPart.slice(5).split(',').map((x) => {
    try {
      return decodeURIComponent(x);
    } catch {
      return x;
    }
  }).filter((x) => x !== '') : [];
  let out = parts.map((p) => {
    const k = p.split('=')[0];
    if (!RUN_HIDES.includes(k) || p.length === k.length) return p;
    const v = p.slice(k.length + 1);
    if (v === '') return p;
    const kept = v.split(',').map((x) => {
      let e;
      try {
        e = decodeURIComponent(x);
      } catch {
        return x;
      }
      const r = renameHide(e, old, list, from);
      return r === null ? null : r === e ? x : encodeItem(r);
    }).filter((x) => x !== null);
    return kept.length ? `${k}=${kept.join(',')}` : null;
  }).filter((p) => p !== null);
  if (m) {
    const place = from.indexOf(Number(m[2]) - 1);
    const keep = place >= 0 && !(m[1] === 'delta' && from[0] !== 0);
    out = out.filter((p) => !/^(sort|order)(=|$)/.test(p));
    if (keep) out.push(`sort=${m[1]}-${place + 1}`, ...parts.filter((p) => /^order(=|$)/.test(p)));
  }
  return `/compare?${[`runs=${list.map(encodeURIComponent).join(',')}`, ...out].join('&')}`;
}

// What a page of this view hands the comparison it opens with compareUrl
// (set as it navigates, taken by renderCompare for that URL only): the
// kernels its legend hid, by name (the k= indexes change with the runs'
// names: the new page hides those of the names its runs have and writes
// its own k=), and that the URL's hide_* are carried, not a shared link's
// (a label of a run that left is dropped without a note).
let handed = null;
function openCompare(list, from, view) {
  const url = compareUrl(list, from);
  handed = { url, hidden: view && view.hidden ? new Set(view.hidden) : null };
  navigate(url);
}

// The picker: the runs compared (each removable) and a search over every
// experiment's runs to add more. Changing the set opens the new URL, with
// the page's other keys (compareUrl). view: {hidden} (the live set of the
// kernels the lanes' legend hides, once there are lanes).
// max: the runs one comparison takes, the server's (GET /api/capabilities
// limits.compare_max_runs, docs/api.md), or null where the page has not
// waited for them (fewer than two runs): asked for here then; until they
// come the label says no number and no add button is held back.
function picker(ids, runs, signal, max = null, view = null) {
  const label = h('label', { for: 'compare-search' }, 'Add a run');
  const limited = () => {
    if (max) label.textContent = `Add a run (up to ${max})`;
  };
  limited();
  const places = ids.map((_, j) => j);
  const go = (list, from) => openCompare(list, from, view);
  const chips = h('ul', { class: 'run-chips', id: 'compare-runs' });
  ids.forEach((id, i) => {
    const r = runs.find((x) => x.run === id) || { run: id };
    chips.append(h('li', { class: 'run-chip' },
      h('span', { class: 'swatch', style: { background: colorAt(i) } }),
      h('a', { href: `/runs/${encodeURIComponent(id)}` }, runLabel(r, 40)),
      h('button', { type: 'button', class: 'chip-remove', 'aria-label': `remove ${r.label || id} from the comparison`, title: 'remove',
        onclick: () => go(ids.filter((x, j) => j !== i), places.filter((j) => j !== i)) }, '×')));
  });
  const search = h('input', { type: 'search', id: 'compare-search', placeholder: 'search experiments and runs to add…',
    'aria-label': 'search experiments and runs', autocomplete: 'off' });
  const results = h('ul', { class: 'compare-results', id: 'compare-results' });
  let all = null;
  const show = () => {
    clear(results);
    if (!all) return;
    const q = search.value.trim().toLowerCase();
    const hits = [];
    for (const e of all) {
      // an edited scenario's runs repeat its variants' names: each says its version
      const versioned = (e.runs || []).some((r) => (r.version || 1) > 1);
      for (const r of e.runs || []) {
        const label = `${e.name || e.slug} · ${r.name || r.run}${versioned ? ` · v${r.version || 1}` : ''}`;
        const hay = `${label} ${e.description || ''} ${e.source || ''} ${r.run}`.toLowerCase();
        if (q && !q.split(/\s+/).every((w) => hay.includes(w))) continue;
        hits.push({ e, r, label });
      }
    }
    for (const x of hits.slice(0, 40)) {
      const added = ids.includes(x.r.run);
      results.append(h('li', null,
        h('button', { type: 'button', class: 'add-run', disabled: added || (max > 0 && ids.length >= max), dataset: { run: x.r.run },
          onclick: () => go([...ids, x.r.run], [...places, null]) }, added ? 'added' : 'add'), ' ',
        h('span', { class: 'run-label', title: x.label }, midEllipsis(x.label, 70))));
    }
    if (hits.length > 40) results.append(h('li', { class: 'muted' }, `${hits.length - 40} more: type to narrow the search`));
    if (!hits.length) results.append(h('li', { class: 'muted' }, 'No run matches.'));
  };
  search.addEventListener('input', show);
  api.experiments(signal).then((d) => {
    all = (d.experiments || []).filter((e) => (e.runs || []).length);
    show();
  }).catch((e) => {
    if (e.name !== 'AbortError') results.replaceChildren(h('li', null, errorBox(e.message)));
  });
  // (a failed request leaves no limit here: the comparison's own 400 names it)
  if (!max) {
    api.limits().then((lim) => {
      max = lim.compare_max_runs;
      limited();
      show();
    }, () => {});
  }
  return h('section', { class: 'card', id: 'compare-picker' },
    h('h2', null, `Runs compared (${ids.length})`), chips, label, search, results);
}

// A table whose headers sort it (click again: the other direction). cols:
// [{key, label, num, value(row) (sort key), cell(row)}]; head: an extra header
// row above; sort: {col, dir} to start with (a share link's). onSort(order
// of rows, {col, dir}) after every sort.
function sortableTable(cols, rows, { id, head, sort: sort0, onSort }) {
  const tbody = h('tbody');
  let sort = { col: -1, dir: 1 };
  const ths = cols.map((c, i) => h('th', { scope: 'col', class: `${c.num ? 'num ' : ''}sortable`, 'aria-sort': 'none' },
    h('button', { type: 'button', class: 'sort', onclick: () => apply(i) }, c.label)));
  const row = (r) => h('tr', null, cols.map((c) => h('td', { class: c.num ? 'num' : null }, c.cell(r))));
  // A table of thousands of kernels (a 4,096-kernel run took 150 ms to
  // build, before any layout): its first rows at once, the rest after the
  // first paint (a frame, then a task: a task queued at once ran before the
  // paint and held it ~200 ms), TABLE_SLICE rows a task so a zoom step is
  // not held either (issue 15: the big-traces first-paint and redraw
  // targets apply to every view).
  let rest = null;
  let restFrame = 0;
  const fill = (list) => {
    clearTimeout(rest);
    cancelAnimationFrame(restFrame);
    clear(tbody);
    const now = list.length > TABLE_FIRST * 2 ? TABLE_FIRST : list.length;
    for (let i = 0; i < now; i++) tbody.append(row(list[i]));
    if (now < list.length) {
      let i = now;
      const more = () => {
        const frag = document.createDocumentFragment();
        const end = Math.min(list.length, i + TABLE_SLICE);
        for (; i < end; i++) frag.append(row(list[i]));
        tbody.append(frag);
        if (i < list.length) rest = setTimeout(more, 0);
      };
      restFrame = requestAnimationFrame(() => { rest = setTimeout(more, 0); });
    }
    if (onSort) onSort(list, sort);
  };
  function apply(i, dir = sort.col === i ? -sort.dir : 1) {
    sort = { col: i, dir };
    const c = cols[i];
    const list = rows.map((r, j) => [r, j]).sort(([a, ja], [b, jb]) => {
      const va = c.value(a);
      const vb = c.value(b);
      // unknown values last in either direction
      if (!known(va) && !known(vb)) return ja - jb;
      if (!known(va)) return 1;
      if (!known(vb)) return -1;
      const d = typeof va === 'number' ? va - vb : String(va).localeCompare(String(vb));
      return d ? d * sort.dir : ja - jb;
    }).map(([r]) => r);
    ths.forEach((th, j) => th.setAttribute('aria-sort', j === i ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none'));
    fill(list);
  }
  if (sort0 && sort0.col >= 0) apply(sort0.col, sort0.dir);
  else fill(rows);
  // (off screen, as a long table below the charts is, it is not laid out)
  return h('div', { class: 'table-wrap', style: rows.length > TABLE_FIRST ? { contentVisibility: 'auto', containIntrinsicSize: `auto ${rows.length * 36}px` } : null },
    h('table', { id, class: 'list dense' },
    h('thead', null, head || null, h('tr', null, ths)), tbody));
}

// The time axis the runs share (their summaries' and kernels' times, from
// 0 when they start later) and the window shown first (the URL's).
function axisOf(list, route) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const L of list) {
    const s = L.run.summary || {};
    if (known(s.t_min)) lo = Math.min(lo, s.t_min);
    if (known(s.t_max)) hi = Math.max(hi, s.t_max);
    for (const k of L.kernels) {
      if (known(k.issue)) lo = Math.min(lo, k.issue);
      if (known(k.end)) hi = Math.max(hi, k.end);
    }
    // a big kernel-level run: its kernels' extent, from its bins' answer
    if (L.big && known(L.big.from)) lo = Math.min(lo, L.big.from);
    if (L.big && known(L.big.to)) hi = Math.max(hi, L.big.to);
  }
  if (!Number.isFinite(lo)) lo = 0;
  if (!Number.isFinite(hi) || hi <= lo) hi = lo + 1000;
  const extent = { min: Math.min(0, lo), max: hi };
  // (a link's window past the runs' end, or not a time range: the whole
  // axis, and a note that says so)
  const raw = (k) => (route.query.has(k) ? queryString(route.query, k) : undefined);
  const w = linkWindow(extent, raw('from'), raw('to'), formatNs);
  return { extent, win0: { from: w.from, to: w.to }, note: w.note };
}

// A link to compare `list` (compareUrl's) that, clicked, opens it as the
// picker does (openCompare): the link's hide_* of the runs it leaves out
// dropped without a note, an older link's labels among them too.
function carriedLink(id, list, from, text) {
  return h('a', { id, href: compareUrl(list, from), onclick: (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    openCompare(list, from, null);
  } }, text);
}

// More runs than one comparison takes: every run named offered as a chip
// (each removable, labelled "experiment · run" as the comparison labels
// them), the first `max` to compare at once and the ones that leaves out.
async function tooMany(root, ids, max, ctx) {
  const exps = await api.experiments(ctx.signal).catch((e) => { if (e.name === 'AbortError') throw e; return null; });
  const runs = [];
  for (const e of (exps && exps.experiments) || [])
    for (const r of e.runs || []) runs.push({ run: r.run, label: `${e.name || e.slug} · ${r.name || r.run}` });
  const kept = ids.slice(0, max);
  const dropped = ids.slice(max);
  setExtra('compareDropped', dropped);
  root.append(picker(ids, runs, ctx.signal, max),
    h('p', { class: 'empty', id: 'compare-too-many' },
      `At most ${max} runs are compared at once, and this link names ${ids.length}: remove ${dropped.length} above, or `,
      carriedLink('compare-first', kept, kept.map((_, j) => j), `compare the first ${max}`),
      ` (leaving out ${dropped.map((id, i) => `run ${max + i + 1}, ${(runs.find((r) => r.run === id) || { label: id }).label}`).join('; ')}).`));
  return { view: 'compare', cleanup: null };
}

// Runs named by the link that the server does not have (404: deleted since
// the link was made, or a mistyped id): the server's message, every run
// named offered as a chip (each removable), and a link to compare the others.
async function gone(root, ids, missing, lim, message, ctx) {
  const exps = await api.experiments(ctx.signal).catch((e) => { if (e.name === 'AbortError') throw e; return null; });
  const runs = [];
  for (const e of (exps && exps.experiments) || [])
    for (const r of e.runs || []) runs.push({ run: r.run, label: `${e.name || e.slug} · ${r.name || r.run}` });
  const left = ids.filter((id) => !missing.includes(id));
  setExtra('compareMissing', missing);
  const them = missing.length === 1 ? 'it' : 'them';
  root.append(errorBox(message), picker(ids, runs, ctx.signal, lim ? lim.compare_max_runs : null),
    h('p', { class: 'empty', id: 'compare-missing' },
      `This link names ${missing.length === 1 ? 'a run' : `${missing.length} runs`} the server does not have (${missing.map((id) => `"${id}"`).join(', ')}: deleted since, or mistyped): remove ${them} above`,
      ...(left.length >= 2 ? [', or ', carriedLink('compare-others', left, ids.map((id, j) => (missing.includes(id) ? -1 : j)).filter((j) => j >= 0), `compare the other ${left.length}`), '.']
        : ['.'])));
  return { view: 'compare', cleanup: null };
}

export async function renderCompare(root, route, ctx) {
  const ids = queryIds(route.query, 'runs') || [];   // a run may be compared with itself
  // opened by a page of this view for this URL (openCompare): its hidden
  // kernels by name, its hide_* carried
  const hand = handed && handed.url === location.pathname + location.search ? handed : null;
  handed = null;
  const carried = !!hand;
  const view = { hidden: null };   // the lanes' hidden kernels, once there are lanes
  root.append(h('nav', { class: 'crumbs', 'aria-label': 'breadcrumb' }, h('a', { href: '/' }, 'Experiments'), ' / '),
    h('div', { class: 'page-head' }, h('h1', null, 'Compare runs')));
  setExtra('timelines', 0);
  setExtra('placementDiffs', []);
  setExtra('cdfPoints', []);
  setExtra('compareOrder', []);
  setExtra('compareDropped', []);
  setExtra('compareMissing', []);
  if (ids.length < 2) {
    root.append(picker(ids, [], ctx.signal),
      h('p', { class: 'empty', id: 'compare-empty' }, 'Pick at least two runs, from any experiments, to compare them.'));
    return { view: 'compare', cleanup: null };
  }
  // The server's limits (asked once per page load) are needed only where a
  // block or kernel window is asked for: not waited for before the other
  // requests (issue 30: a round trip of the case study's first paint).
  const limP = api.limits();
  limP.catch(() => {});
  // A link naming more runs than GET /api/compare takes (the limits'
  // compare_max_runs) showed only the API's "runs: at most 8 run ids…",
  // with nothing to remove one by: the runs are offered, each removable,
  // with the first ones to compare at once and the rest named.
  // (the comparison itself is asked for once they have come, as views.mjs
  // asks it ahead: the limits arrive long before the view's modules do)
  const maxRuns = (await limP.catch(() => null))?.compare_max_runs;
  if (maxRuns && ids.length > maxRuns) return tooMany(root, ids, maxRuns, ctx);
  // Each run's summary, kernels and (for a run small enough to match block
  // by block) its blocks are asked for at once, beside the comparison: one
  // round of requests before the first paint, not three (issue 15: the
  // big-traces issue's first-paint target applies to every view).
  const perRun = new Map();
  const early = (id) => {
    if (!perRun.has(id)) {
      const runP = api.run(id, ctx.signal);
      const info = Promise.all([runP, limP.then((lim) => kernelsOrBins(id, runP, ctx.signal, lim))]);
      // a run of real-time tasks is compared task by task (tasksCompare):
      // its blocks are not fetched (15,276 of the GCAPS case study: 16 MB)
      const full = Promise.all([info, limP]).then(([[run], lim]) => ((run.summary?.jobs || 0) === 0 && (run.summary?.blocks || 0) <= lim.window_max_ceiling
        ? api.blocks(id, { max: lim.window_max_ceiling }, ctx.signal) : null));
      // (a failure is reported where it is awaited; none goes unhandled)
      info.catch(() => {});
      full.catch(() => {});
      perRun.set(id, { info, full });
    }
    return perRun.get(id);
  };
  ids.forEach(early);
  // The shared time axis comes from the runs' own summaries and kernels, so
  // a big run's window is asked for beside the comparison, not after it.
  const axisP = Promise.all([limP, ...ids.map((id) => early(id).info)]).then(([lim, ...infos]) => {
    const ax = axisOf(infos.map(([run, ks]) => ({ run, kernels: ks.kernels || [], big: ks.big })), route);
    ax.allTasks = infos.every(([run]) => (run.summary?.jobs || 0) > 0);
    for (const id of ids) {
      if (ax.allTasks) break;
      const e = early(id);
      if (!e.first) {
        e.first = e.full.then((f) => {
          if (f && f.mode === 'blocks') return null;
          e.src = windowSource(id, ctx.signal, lim);
          return e.src.get(ax.win0);
        });
        e.first.catch(() => {});
      }
    }
    return ax;
  });
  axisP.catch(() => {});
  // the replay reports beside the comparison, not after it
  const reportsP = ids.map((id) => api.fidelity(id, ctx.signal).then((x) => (x && x.replay ? x : null), () => null));
  let data;
  try {
    data = await api.compare(ids, ctx.signal);
  } catch (e) {
    // a link naming a run that is gone (deleted since the link was made,
    // or mistyped): the runs offered, that one to remove (gone below)
    if (e.status !== 404) throw e;
    const missing = (await Promise.all(ids.map((id) => early(id).info.then(() => null, (err) => (err.status === 404 ? id : null)))))
      .filter((id) => id !== null);
    if (!missing.length) throw e;
    return gone(root, ids, missing, await limP.catch(() => null), e.message, ctx);
  }
  const lim = await limP;
  const runs = data.runs || [];
  const kernels = data.kernels || [];
  const labels = runs.map((r) => r.label || r.name || r.run);
  setExtra('runLabels', labels);
  // (the API answers the runs in the order asked: runs[i] is ids[i])
  const keys = runKeys(runs.map((r) => r.run));
  // a version's runs keep their names: "(vN)" where the experiment was re-run (the API's label, docs/api.md)
  const versioned = (r) => / \(v\d+\)$/.test(r.label || '');
  document.title = `Compare ${runs.map((r) => (versioned(r) ? `${r.name} (v${r.version})` : r.name)).join(' vs ')} · schedlab`;
  root.append(picker(ids, runs, ctx.signal, lim.compare_max_runs, view));

  const replay = await replaySection(root, runs, ids, ctx, reportsP, lim, route.query, view, carried);
  const cleanups = [replay].filter(Boolean);
  // runs of real-time tasks (issue 30): tasks compared, not blocks
  if ((await axisP).allTasks && data.tasks && data.tasks.length) {
    const t = await tasksCompare(root, data, runs, labels, route.query, carried);
    cleanups.push(t);
    return { view: 'compare', drawnBlocks: 0, cleanup: () => cleanups.forEach((c) => c.destroy()) };
  }

  // ---- the runs' timelines on one time axis ---------------------------------
  const loaded = await Promise.all(runs.map(async (r) => {
    const e = early(r.run);
    const [[run, ks], whole] = await Promise.all([e.info, e.full]);
    const full = whole && whole.mode === 'blocks';
    // a big run: its window is asked for below, once the shared axis is known
    await axisP;
    await e.first;
    return { r, run, kernels: ks.kernels || [], big: ks.big || null, blocks: full ? whole.blocks : null, bins: null,
      src: full ? null : e.src };
  }));
  const diffs = placementDiffs(loaded);
  setExtra('placementDiffs', diffs.map((d) => (d.known ? d.count : null)));
  setExtra('placementCompared', diffs.map((d) => d.compared));
  const colors = colorMap(loaded.flatMap((L) => (L.big ? L.big.names : L.kernels.map((k) => k.name))));
  // The kernels the legend hides are part of the view (DESIGN §6), in the
  // URL as on a run page (k=, kb=; docs/api.md "Share links of a run"), by
  // index among the runs' distinct kernel names, the legend's order.
  const names = [...colors.keys()];
  // (opened from a comparison of other runs: the kernels it hid that these
  // runs have, k= written anew for these runs' names)
  const hidden = hand && hand.hidden ? new Set(names.filter((n) => hand.hidden.has(n))) : hiddenFromQuery(route.query, names);
  if (hand && hand.hidden) {
    const kq = kernelsQuery(hidden, names);
    updateQuery({ k: kq.k !== undefined ? kq.k : null, kb: kq.kb !== undefined ? kq.kb : null, kernels: null });
  }
  view.hidden = hidden;
  // Each lane's legend lists these names with one hidden set: its search
  // box is one too, in step in every lane, in the URL as the run page's
  // (`search`, as typed; absent = empty; docs/api.md "Share links")
  let search = queryString(route.query, 'search') || '';
  const { extent, win0, note: windowNote } = await axisP;
  // the big runs' first answers: the window shown (asked for already)
  const firsts = await Promise.all(loaded.map((L) => (L.src ? early(L.r.run).first : null)));

  // runs with QoS goals (issue 30): the schemes side by side against the goal
  if (loaded.some((L) => (L.run.summary?.qos_kernels || 0) > 0)) {
    const q = qosCompareSection(loaded.map((L, i) => ({ run: L.r.run, label: labels[i], name: L.r.name || L.r.run, experiment: L.r.experiment, kernels: L.kernels })), route.query, carried);
    root.append(q.el);
    cleanups.push(q);
  }

  const section = h('section', { class: 'card', id: 'compare-timelines' }, h('h2', null, 'Blocks on one time axis'));
  const base = diffs[0];
  const note = [];
  for (let r = 1; r < runs.length; r++) {
    if (!diffs[r].known || !base.known) continue;
    note.push(h('li', { dataset: { run: runs[r].run } }, runLabel(runs[r], 50),
      `: ${diffs[r].count} of ${diffs[r].compared} blocks placed differently (${diffs[r].sm} on another SM, ${diffs[r].start} starting at another time)`));
  }
  section.append(h('p', { class: 'muted' }, 'Zoom (wheel) and pan (drag) move every run. Blocks framed in red are on another SM or start at another time than the same block (same kernel occurrence and block index) of the first run.'),
    note.length ? h('ul', { class: 'diff-summary', id: 'placement-summary' }, note)
      : h('p', { class: 'muted', id: 'placement-summary' }, base.known ? 'No run has blocks to match against the first.' : 'The first run has no block records (or more than can be matched here): placement is not compared.'));
  const toolbar = h('div', { class: 'toolbar' });
  section.append(toolbar);
  const linkSaid = [windowNote, hidden.note].filter(Boolean).join(' ');
  if (linkSaid) section.append(linkNote(linkSaid, 'link-note'));
  root.append(section);
  const timelines = [];
  let urlTimer = null;
  const sources = [];     // the big runs' lanes (windowSource)
  let waiting = 0;        // their window requests still out
  let aheadTimer = null;
  let followTimer = null;
  let followPending = false;   // a follow waiting out its pause
  // Occupancy shown: the next zoom-in step's window asked for ahead (as
  // map viewers fetch the next level's tiles), at once on a page just
  // opened, else once the page has been idle a moment.
  const ahead = (delay) => {
    clearTimeout(aheadTimer);
    if (!sources.some((x) => x.showing()?.mode === 'bins')) return;
    aheadTimer = setTimeout(() => {
      if (ctx.signal.aborted || !timelines.length) return;
      const w = timelines[0].window();
      const mid = (w.from + w.to) / 2;
      const half = (w.to - w.from) / 4;
      const next = timelines[0].clamp(mid - half, mid + half);
      for (const x of sources) if (x.showing()?.mode === 'bins') x.prefetch(next);
    }, delay);
  };
  // After a window change: the big runs' lanes get the window's answers
  // (from memory when they are here), after a pause for wheel bursts.
  const follow = (delay) => {
    clearTimeout(aheadTimer);
    clearTimeout(followTimer);
    if (!sources.length) return;
    const w = timelines[0].window();
    if (sources.some((x) => !x.has(w))) setBusy();
    followPending = true;
    followTimer = setTimeout(async () => {
      followPending = false;
      await Promise.all(sources.map((x) => x.follow(w)));
      if (!waiting && !followPending) setReady();
      ahead(120);
    }, delay);
  };
  // The toolbar's steps: every lane gets the new window with its answer
  // when that is here (one redraw each); a missing one is asked for before
  // the lanes redraw from what they have.
  const applyAll = (from, to) => {
    const w = timelines[0].clamp(from, to);
    for (const t of timelines) {
      const x = sources.find((y) => y.tl === t);
      const got = x ? x.take(w) : null;
      if (x && !got) x.prefetch(w);
      t.setWindow(w.from, w.to, got ? got.data : undefined);
    }
    moved(w.from, w.to, 0);
  };
  const writeWindow = (from, to) => {
    // runs first, as written; other keys (a replay's) kept
    const rest = location.search.slice(1).split('&').filter((p) => p && !/^(runs|from|to|k|kb|kernels)(=|$)/.test(p));
    const kq = kernelsQuery(hidden, names);
    const kernels = kq.k !== undefined ? [`k=${[].concat(kq.k).join(',')}`] : kq.kb !== undefined ? [`kb=${kq.kb}`] : [];
    replaceUrl(`${location.pathname}?${[`runs=${ids.map(encodeURIComponent).join(',')}`, ...rest, `from=${from}`, `to=${to}`, ...kernels].join('&')}`);
  };
  const sync = (src, from, to) => {
    for (const t of timelines) if (t !== src) t.setWindow(from, to);
    moved(from, to, 40);
  };
  const moved = (from, to, delay) => {
    setExtra('compareWindow', { from, to });
    setDrawn(timelines.reduce((a, t) => a + t.drawnBlocks(), 0));
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => writeWindow(from, to), 80);
    follow(delay);
  };
  loaded.forEach((L, r) => {
    const lane = h('div', { class: 'compare-lane', dataset: { run: L.r.run } },
      h('h3', { class: 'lane-title' }, h('span', { class: 'swatch', style: { background: colorAt(r) } }), runLabel(L.r, 70),
        r === 0 ? h('span', { class: 'muted' }, ' (first: the others are compared with it)')
          : diffs[r].known && base.known ? (diffs[r].count ? h('span', { class: 'diff-count' }, ` ${diffs[r].count} blocks differ`)
            : h('span', { class: 'diff-none muted' }, ` every block placed as in the first`)) : null));
    section.append(lane);
    const first = firsts[r];
    const hasBlocks = L.blocks || first;
    const mode = hasBlocks && (L.run.summary?.blocks || 0) > 0 ? 'blocks' : 'streams';
    const marked = diffs[r].marked;
    // a big kernel-level run: the whole run's stream busy, not its kernels
    const big = mode === 'streams' && L.big ? L.big : null;
    if (big) {
      lane.append(h('p', { class: 'muted big-run-note', dataset: { run: L.r.run } },
        `${formatCount(big.kernels_total)} kernels, more than ${formatCount(lim.window_max_default)}: each stream's busy share over the whole run is shown, not the kernels. `,
        h('a', { href: `/runs/${encodeURIComponent(L.r.run)}?view=timeline` }, 'Open the run'), ' to zoom into its kernels.'));
    }
    const tl = createTimeline(lane, {
      mode, kernels: L.kernels, copies: [],
      streamLanes: big ? big.lanes : undefined, sbins: big || undefined,
      blocks: mode !== 'blocks' ? null : first ? dataOf(first).blocks : L.blocks,
      bins: mode === 'blocks' && first ? dataOf(first).bins : null,
      sms: L.run.summary?.sms || L.run.device?.sms || 1, threadsPerSm: L.run.device?.threads_per_sm || 0,
      colors, extent, window: win0, hidden, at: null, search,
      // each lane's legend its own ids (#compare-lane-2-legend-search, …)
      legendIds: `compare-lane-${r + 1}-`,
      // the first run is the reference: never framed (issue 30)
      isMarked: r === 0 ? undefined : (b) => marked.has(`${b.kernel}/${b.index}`),
      onWindow(from, to) { sync(tl, from, to); },
      onHidden(set) {
        hidden.clear();
        for (const n of set) hidden.add(n);
        for (const t of timelines) if (t !== tl) t.setHidden(set);
        setDrawn(timelines.reduce((a, t) => a + t.drawnBlocks(), 0));
        const w = timelines[0].window();
        writeWindow(w.from, w.to);
      },
      onSearch(text) {
        search = text;
        for (const t of timelines) if (t !== tl) t.setSearch(text);
        // (writeWindow keeps it, as the other keys it does not write)
        updateQuery({ search: text || null });
      },
      onToggle() {},
    });
    timelines.push(tl);
    if (L.src && mode === 'blocks') {
      // too many blocks for the whole run: the window's blocks (or bins) are
      // fetched as the window moves, as in the run view; the page is busy
      // (window.schedlab.ready false) until every lane has its window drawn
      let seq = 0;
      let have = first;
      const show = (resp) => {
        if (resp === have) return;
        have = resp;
        tl.setData(dataOf(resp));
      };
      sources.push({
        tl,
        // the window's answer if it is here: drawn with the window, in one redraw
        // ({} when it is what the lane shows already)
        take(w) {
          const hit = L.src.cached(w);
          if (!hit) return null;
          seq += 1;     // an answer still coming for an older window is stale
          if (hit === have) return {};
          have = hit;
          return { data: dataOf(hit) };
        },
        prefetch: (w) => L.src.prefetch(w),
        has: (w) => L.src.cached(w) !== null,
        showing: () => have,
        async follow(w) {
          const hit = L.src.cached(w);
          if (hit) {
            seq += 1;
            show(hit);
            return;
          }
          const mine = ++seq;
          waiting += 1;
          setBusy();
          try {
            const resp = await L.src.get(w);
            if (mine === seq) show(resp);
          } catch (e) {
            if (e.name !== 'AbortError') lane.append(errorBox(e.message));
          } finally {
            waiting -= 1;
            if (!waiting && !followPending) {
              setDrawn(timelines.reduce((a, t) => a + t.drawnBlocks(), 0));
              setReady();
            }
          }
        },
      });
    }
  });
  setExtra('timelines', timelines.length);
  setExtra('compareWindow', { ...win0 });
  // a link's window that could not be shown as asked: the URL says what is
  if (windowNote || hidden.note) writeWindow(win0.from, win0.to);
  setDrawn(timelines.reduce((a, t) => a + t.drawnBlocks(), 0));
  // Buttons do what the wheel does, on every lane at once.
  if (timelines.length) {
    const zoomBy = (factor) => {
      const w = timelines[0].window();
      const mid = (w.from + w.to) / 2;
      const half = ((w.to - w.from) * factor) / 2;
      applyAll(mid - half, mid + half);
    };
    toolbar.append(h('span', { class: 'btn-group' },
      h('button', { type: 'button', id: 'zoom-out', 'aria-label': 'zoom out', title: 'zoom out (−)', onclick: () => zoomBy(2) }, '−'),
      h('button', { type: 'button', id: 'zoom-in', 'aria-label': 'zoom in', title: 'zoom in (+)', onclick: () => zoomBy(0.5) }, '+')),
    h('button', { type: 'button', id: 'reset-zoom', onclick: () => applyAll(extent.min, extent.max) }, 'Reset zoom'));
  }
  ahead(0);
  cleanups.push({ destroy: () => {
    clearTimeout(urlTimer);
    clearTimeout(aheadTimer);
    clearTimeout(followTimer);
    timelines.forEach((t) => t.destroy());
  } });

  // ---- per-kernel table and response-time chart -----------------------------
  if (data.tasks && data.tasks.length) root.append(tasksCard(data.tasks, runs));
  if (!kernels.length) {
    root.append(h('p', { class: 'empty' }, 'These runs have no kernels to compare.'));
  } else {
    const klabels = labelsFor(kernels);
    const short = runs.map((r, i) => ({ name: midEllipsis(labels[i], 40) }));
    const shown = kernels.slice(0, CHART_KERNELS);
    const host = h('section', { class: 'card', id: 'compare-chart' }, h('h2', null, 'Response time per kernel'));
    root.append(host);
    const response = createCompareChart(host, {
      labels: klabels.slice(0, CHART_KERNELS).map((l) => midEllipsis(l, 40)),
      runs: short,
      values: runs.map((_, i) => shown.map((k) => (k.response ? k.response[i] ?? null : null))),
    });
    cleanups.push(response);
    legendInUrlNoted(response.chart, route.query, 'hide_response', 'compare-chart-link-note', carried, keys);
    if (kernels.length > CHART_KERNELS) {
      host.append(h('p', { class: 'muted' }, `The chart shows the first ${CHART_KERNELS} of ${kernels.length} kernels; the table has them all.`));
    }
    const rows = kernels.slice(0, TABLE_ROWS).map((k, i) => ({ k, label: klabels[i] }));
    const at = (r, f, i) => (r.k[f] ? r.k[f][i] ?? null : null);
    const dur = (r, i) => (known(at(r, 'start', i)) && known(at(r, 'end', i)) ? at(r, 'end', i) - at(r, 'start', i) : null);
    // each column's key names it in the URL's sort (docs/api.md "Share
    // links"): kernel, stream, and start-N, duration-N, response-N,
    // delta-N of the Nth run compared (1-based, the picker's order)
    const cols = [
      { key: 'kernel', label: 'Kernel', value: (r) => r.label, cell: (r) => h('span', { class: 'strong kname', title: r.label }, midEllipsis(r.label, 48)) },
      { key: 'stream', label: 'Stream', value: (r) => r.k.stream ?? null, cell: (r) => r.k.stream ?? '—' },
    ];
    const group = [h('th', { colspan: 2 })];
    runs.forEach((run, i) => {
      const n = i > 0 ? 4 : 3;
      group.push(h('th', { colspan: n, class: 'run-group', scope: 'colgroup' }, runLabel(run, 36)));
      const num = `-${i + 1}`;
      cols.push({ key: `start${num}`, label: 'start', num: true, value: (r) => at(r, 'start', i), cell: (r) => formatNs(at(r, 'start', i)) });
      cols.push({ key: `duration${num}`, label: 'duration', num: true, value: (r) => dur(r, i), cell: (r) => formatNs(dur(r, i)) });
      cols.push({ key: `response${num}`, label: 'response', num: true, value: (r) => at(r, 'response', i), cell: (r) => formatNs(at(r, 'response', i)) });
      if (i > 0) {
        cols.push({ key: `delta${num}`, label: 'Δ vs first', num: true,
          value: (r) => (known(at(r, 'response', i)) && known(at(r, 'response', 0)) ? at(r, 'response', i) - at(r, 'response', 0) : null),
          cell: (r) => delta(at(r, 'response', i), at(r, 'response', 0)) });
      }
    });
    // the sort is the URL's (sort, order), as a run page's table keeps it
    const asked = queryString(route.query, 'sort');
    const order = queryString(route.query, 'order');
    const col = asked === null ? -1 : cols.findIndex((c) => c.key === asked);
    const said = [];
    if (asked !== null && col < 0) said.push(`The link's sort=${asked} is not a column of this table (${cols.map((c) => c.key).join(', ')}): the kernels are in the comparison's order.`);
    if (order !== null && order !== 'asc' && order !== 'desc') said.push(`The link's order=${order} is neither asc nor desc: ascending.`);
    const card = h('section', { class: 'card', id: 'compare-kernels' }, h('h2', null, 'Kernels'),
      h('p', { class: 'muted' }, 'Start is the first block’s start, duration first block to end, response issue to end (first block to end in every run for a kernel a run has no issue time for: docs/api.md). Click a heading to sort.'),
      said.length ? linkNote(said.join(' '), 'compare-sort-note') : null,
      sortableTable(cols, rows, {
        id: 'compare-table', head: h('tr', null, group), sort: { col, dir: order === 'desc' ? -1 : 1 },
        onSort: (list, sort) => {
          setExtra('compareOrder', list.map((r) => r.label));
          setExtra('compareSort', sort.col < 0 ? null : { column: cols[sort.col].label, index: sort.col, dir: sort.dir > 0 ? 'asc' : 'desc' });
          updateQuery({ sort: sort.col < 0 ? null : cols[sort.col].key, order: sort.col >= 0 && sort.dir < 0 ? 'desc' : null });
        },
      }));
    if (kernels.length > TABLE_ROWS) card.append(h('p', { class: 'muted' }, `The first ${TABLE_ROWS} of ${kernels.length} kernels.`));
    root.append(card);
  }

  // ---- block-duration CDFs (TX2 Fig. 10) -----------------------------------
  const withBlocks = loaded.map((L, i) => ({ L, i })).filter((x) => x.L.blocks && x.L.blocks.length);
  const cdfHost = h('section', { class: 'card', id: 'compare-cdf' }, h('h2', null, 'Block durations (CDF)'),
    h('p', { class: 'muted' }, 'The share of each run’s blocks that took at most a given time, as the TX2 paper’s Fig. 10 plots block times.'));
  root.append(cdfHost);
  if (withBlocks.length) {
    const cdf = createCdfChart(cdfHost, withBlocks.map(({ L, i }) => ({
      label: labels[i], color: colorAt(i), durations: L.blocks.map((b) => b.end - b.start),
    })));
    legendInUrlNoted(cdf.chart, route.query, 'hide_cdf', 'compare-cdf-link-note', carried, withBlocks.map(({ i }) => keys[i]));
    setExtra('cdfPoints', loaded.map((L, i) => {
      const j = withBlocks.findIndex((x) => x.i === i);
      return j < 0 ? 0 : cdf.points()[j];
    }));
    cleanups.push(cdf);
  } else {
    cdfHost.append(h('p', { class: 'empty' }, 'None of these runs has block records to plot.'));
  }

  return { view: 'compare', drawnBlocks: timelines.reduce((a, t) => a + t.drawnBlocks(), 0),
    cleanup: () => cleanups.forEach((c) => c.destroy()) };
}

export function tasksCard(tasks, runs) {
  // Real-time tasks first (their kernels, one per job, can be thousands).
  // Per task and run: the maximum observed response time (MORT, as the
  // GCAPS paper's Table 5 reports it), the mean, and the response-time
  // analysis bound of that run's approach when the run has one.
  const cols = [{ label: 'Task', cell: (t) => h('span', { class: 'strong' }, String(t.task ?? t.name ?? '—')) }];
  const at = (a, i) => (Array.isArray(a) ? a[i] ?? null : null);
  const anyBound = tasks.some((t) => Array.isArray(t.bound) && t.bound.some((v) => v !== null));
  const anyMiss = tasks.some((t) => Array.isArray(t.deadline_misses) && t.deadline_misses.some((v) => v > 0));
  runs.forEach((run, i) => {
    const n = `${i + 1}`;
    cols.push({ label: `${n}: MORT`, num: true, cell: (t) => formatNs(at(t.max_response, i)) });
    cols.push({ label: `${n}: mean`, num: true, cell: (t) => formatNs(at(t.mean_response, i) === null ? null : Math.round(at(t.mean_response, i))) });
    if (anyBound) cols.push({ label: `${n}: bound`, num: true, cell: (t) => formatNs(at(t.bound, i)) });
    if (anyMiss) cols.push({ label: `${n}: misses`, num: true, cell: (t) => String(at(t.deadline_misses, i) ?? '—') });
  });
  return h('section', { class: 'card' }, h('h2', null, 'Task response times'),
    h('ol', { class: 'run-key' }, runs.map((r) => h('li', null, runLabel(r, 60)))),
    table(cols, tasks, { id: 'compare-tasks', class: 'list dense' }));
}


const pct = (v, digits = 2) => (typeof v === 'number' ? `${(v * 100).toFixed(digits)} %` : '—');
const signedPct = (v) => (typeof v === 'number' ? `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v * 100).toFixed(3)} %` : '—');

// A kernel differs when its duration is off by more than 10 % or its start
// by more than 1 % of the trace's span (the issue's 90th-percentile and
// start targets, per kernel).
function differing(rep) {
  const m = new Set();
  const s = new Set();
  for (const [mid, sid, startErr, md, sd] of rep.kernels || []) {
    const dur = md > 0 ? Math.abs(sd - md) / md : sd !== md ? 1 : 0;
    if (dur > 0.10 || Math.abs(startErr) > 0.01 * (rep.span_ns || 0)) {
      m.add(mid);
      s.add(sid);
    }
  }
  return { m, s };
}

function timelineLink(run, start, end, label) {
  const pad = Math.max(1, Math.round((end - start) / 2));
  return h('a', { href: `/runs/${encodeURIComponent(run)}?view=timeline&from=${Math.max(0, start - pad)}&to=${end + pad}` }, label);
}

// view, carried: renderCompare's (the replay's "Add to the comparison"
// opens the runs with the page's keys, as the picker)
async function replaySection(root, runs, ids, ctx, reportsP, lim, query, view, carried) {
  // (the API answers the runs in the order asked: reportsP[i] is runs[i]'s)
  const reports = await Promise.all(reportsP || runs.map((r) => api.fidelity(r.run, ctx.signal).then((x) => (x && x.replay ? x : null), () => null)));
  const measured = reports.find(Boolean)?.measured_run;
  const mi = runs.findIndex((r) => r.run === measured);
  if (!measured || mi < 0) return null;
  const sims = runs.map((r, i) => ({ r, i, rep: reports[i] })).filter((x) => x.rep);
  const section = h('section', { class: 'card', id: 'replay' }, h('h2', null, 'Replay: hardware and simulation'));
  root.append(section);

  // the figures against the targets (issue 10)
  const cols = [
    { label: 'Simulated run', cell: (x) => h('a', { href: `/runs/${encodeURIComponent(x.r.run)}` }, x.r.name || x.r.run) },
    { label: 'duration error, median', num: true, cell: (x) => pct(x.rep.duration_error_median) },
    { label: '90th percentile', num: true, cell: (x) => pct(x.rep.duration_error_p90) },
    { label: 'start error, median (of the span)', num: true, cell: (x) => pct(x.rep.start_error_median_share, 4) },
    { label: 'makespan', num: true, cell: (x) => signedPct(x.rep.makespan_difference) },
    { label: 'targets', cell: (x) => (x.rep.ok ? h('span', { class: 'ok' }, 'all met')
      : h('ul', { class: 'why' }, Object.values(x.rep.targets || {}).filter((t) => !t.ok).map((t) => h('li', null, t.why || 'not met')))) },
  ];
  section.append(h('p', { class: 'muted' }, 'Targets: median duration error ≤ 2 %, 90th percentile ≤ 10 %, median start error ≤ 1 % of the span, makespan within 2 %.'),
    table(cols, sims, { id: 'fidelity', class: 'list dense' }));

  // one time axis, the hardware run on top
  const order = [{ r: runs[mi], i: mi, rep: null }, ...sims];
  // (a kernel-level run past the window max: not fetched, not drawn; said below)
  const kernelLists = await Promise.all(order.map((x) => kernelsOrBins(x.r.run, api.run(x.r.run, ctx.signal), ctx.signal, lim)));
  const measuredDiff = new Set();
  const rows = order.map((x, j) => {
    const d = x.rep ? differing(x.rep) : null;
    if (d) d.m.forEach((id) => measuredDiff.add(id));
    return { run: x.r.run, name: x.rep ? x.r.name || x.r.run : `${x.r.name || x.r.run} (measured)`, colorIndex: x.i,
      // the measured run is the reference: its kernels are never red
      kernels: kernelLists[j].kernels || [], differ: d ? d.s : new Set() };
  });
  const host = h('div', { id: 'replay-timelines' });
  section.append(h('h3', null, 'Kernels on one time axis'),
    h('p', { class: 'muted' }, `Differing kernels (duration off by more than 10 %, or start by more than 1 % of the span) are red: ${measuredDiff.size} of ${rows[0].kernels.length}.`),
    ...order.filter((x, j) => kernelLists[j].big).map((x, j) => h('p', { class: 'muted big-run-note', dataset: { run: x.r.run } },
      `${x.r.name || x.r.run}: more than ${formatCount(lim.window_max_default)} kernels, not drawn here (`,
      h('a', { href: `/runs/${encodeURIComponent(x.r.run)}?view=timeline` }, 'its timeline'), ' draws them by window).')),
    host);
  const chart = createAlignedTimelines(host, rows);
  const keys = runKeys(runs.map((r) => r.run));
  legendInUrlNoted(chart.chart, query, 'hide_replay', 'replay-timelines-link-note', carried, order.map((x) => keys[x.i]));

  // the kernels that differ most, linked to both timelines
  const first = sims[0];
  const worst = first.rep.worst || [];
  if (worst.length) {
    section.append(h('h3', null, `The kernels that differ most (${first.r.name})`), table([
      { label: 'Kernel', cell: (w) => h('span', { class: 'strong' }, w.name ?? '—') },
      { label: 'Stream', cell: (w) => w.stream ?? '—' },
      { label: 'start, measured', num: true, cell: (w) => formatNs(w.measured_start) },
      { label: 'start, simulated', num: true, cell: (w) => formatNs(w.simulated_start) },
      { label: 'duration, measured', num: true, cell: (w) => formatNs(w.measured_duration) },
      { label: 'duration, simulated', num: true, cell: (w) => formatNs(w.simulated_duration) },
      { label: 'duration error', num: true, cell: (w) => pct(w.duration_error) },
      { label: 'timelines', cell: (w) => [timelineLink(measured, w.measured_start, w.measured_start + w.measured_duration, 'measured'), ' · ',
        timelineLink(first.r.run, w.simulated_start, w.simulated_start + w.simulated_duration, 'simulated')] },
    ], worst, { id: 'fidelity-worst', class: 'list dense' }));
  }

  // replay under another policy (the replay's other runs) or device
  const more = h('form', { class: 'replay', id: 'replay-more' });
  const pick = h('select', { id: 'replay-more-run', 'aria-label': 'another simulated run of this replay' });
  const dev = h('select', { id: 'replay-more-device', 'aria-label': 'replay on another device' });
  const msg = h('div', { class: 'form-msg', 'aria-live': 'polite' });
  const add = h('button', { type: 'button', id: 'replay-more-add' }, 'Add to the comparison');
  const again = h('button', { type: 'button', id: 'replay-more-replay' }, 'Replay on this device');
  more.append(h('label', { for: 'replay-more-run' }, 'replay under another policy'), pick, add,
    h('label', { for: 'replay-more-device' }, 'or on device'), dev, again, msg);
  section.append(more);
  const go = (extra) => {
    const add = extra.filter((x, i) => !ids.includes(x) && extra.indexOf(x) === i);
    openCompare([...ids, ...add], [...ids.map((_, j) => j), ...add.map(() => null)], view);
  };
  add.addEventListener('click', () => { if (pick.value) go([pick.value]); });
  again.addEventListener('click', async () => {
    again.disabled = true;
    msg.replaceChildren(h('span', { class: 'muted' }, 'Simulating…'));
    try {
      const res = await api.replayRun(measured, dev.value, undefined, (f) => msg.replaceChildren(h('span', { class: 'muted' }, `Simulating… ${Math.round(f * 100)} %`)));
      go(res.runs.map((r) => r.run));
    } catch (e) {
      msg.replaceChildren(errorBox(e.message));
    } finally {
      again.disabled = false;
    }
  });
  Promise.all([api.run(first.r.run, ctx.signal).then((r) => api.experimentBrief(r.experiment, ctx.signal)), api.presets(ctx.signal)]).then(([exp, p]) => {
    const others = (exp.runs || []).filter((r) => !ids.includes(r.run));
    pick.append(...(others.length ? others.map((r) => h('option', { value: r.run }, r.name)) : [h('option', { value: '' }, 'every policy is shown')]));
    dev.append(h('option', { value: '' }, 'automatic'), ...(p.presets || []).map((x) => h('option', { value: x.name }, x.name)));
  }).catch((e) => {
    if (e.name !== 'AbortError') msg.replaceChildren(errorBox(e.message));
  });
  return chart;
}
