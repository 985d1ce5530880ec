// views/run.mjs -- "/runs/{run}?view=timeline|kernels|queues&from=&to=&k=&at=".
// Everything the picture depends on is in the URL: the zoom window (from,
// to), the kernels shown and the picked time (at), so a copied link reopens
// the same picture. Zooming rewrites the URL with replaceState; switching
// tabs is a normal navigation and keeps the window (KEEP, below), and each
// tab link carries its own tab's keys as this page last showed them.
//
// Kernels in the URL (issue 15; docs/api.md "Share links"): `k=0-3,7`
// lists the shown kernels by their index among the run's distinct kernel
// names (in order of first appearance by kernel id), as ranges; when that
// would be long, `kb=` carries the same set as a base64url bit field, so
// any link stays well under 2,000 characters. Absent = all shown; `k=`
// empty = none. Links of the older form `kernels=NAME,NAME` (DESIGN §6)
// are still read, and rewritten in the new form.
//
// window.schedlab hooks (state.mjs) set here: mode, window {from, to},
// fetches (GET /blocks requests of this view), legendRows/legendRendered,
// lanes (lane labels top down), tip (the last tooltip's lines), tableRows,
// tableOrder (kernel ids of the table's first 50 rows), queuesWindow,
// queuesDrawn (what the Queues chart drew: steps, or the pyramid's bins),
// waits (the CPU tasks' syncs and blocking copies the timeline drew: [{task,
// kind, label, start, end}]; [] for a run without host calls), and
// zoom(factor) -> Promise: one zoom step about the window's middle
// (factor 0.5 = in), resolved once it is drawn (bench: issue 9's zoom step).
//
// This module is the frame only: the run's data (loadRun), the header and
// the tab bar; each tab is a module of views/run/ listed in run/tabs.mjs.

import { api } from '../api.mjs';
import { h, importWarnings, metaWarnings, plural } from '../dom.mjs';
import { apiFileLink } from '../exports.mjs';
import { formatNs, formatCount } from '../format.mjs';
import { queryString, buildQuery, parseQuery, currentRoute, onRewrite } from '../router.mjs';
import { setExtra } from '../state.mjs';
import { TABS } from './run/tabs.mjs';
import { replayForm } from './replay_form.mjs';

const KEEP = ['from', 'to', 'k', 'kb', 'kernels', 'at'];   // what every tab link carries over

// A tab's own keys are the others (but view): the Timeline's search, the
// Kernels tab's sort, order, q, page, …, the QoS tab's hide_qos1, …, the
// Warps tab's c0, c1, fold (docs/api.md "Share links of a run"). A tab link
// carries those its tab had when this page last showed it (as opened, and
// as changed since: each rewrite of the URL, below), so Timeline -> Kernels
// -> Timeline comes back to the Timeline as it was left, as Back does; one
// tab's keys never go into another tab's link. Kept while the page shows
// this run (a tab switch); another page forgets them (tabKeys.run: the
// run's id).
let tabKeys = null;   // {run, tabs: Map tab name -> [[key, raw value]]}

const ownKeys = (query) => [...query].filter(([k]) => k !== 'view' && !KEEP.includes(k));

// A tab's keys as they are whenever its view rewrites the URL (a search
// typed, a series hidden, a sort: replaceState, router.mjs replaceUrl), not
// only when a tab link leaves it: left through Back or Forward (popstate,
// where location is already the entry landed on, so the URL left cannot be
// read then), its link still carries its keys as left, as the history
// entry does.
onRewrite(() => {
  const now = currentRoute();
  if (!tabKeys || now.name !== 'run' || now.params.run !== tabKeys.run) return;
  tabKeys.tabs.set(queryString(now.query, 'view') || 'timeline', ownKeys(now.query));
});

// The last run's static data, so switching tabs does not refetch it.
let cache = null;

async function loadRun(id, signal) {
  if (cache && cache.id === id) return cache;
  // the server's request limits (GET /api/capabilities, asked once a page):
  // a kernel-level run of more kernels than the window max is never fetched
  // whole (issue 9: a 1M-kernel nvprof import): the timeline asks for each
  // window's kernels, or per-stream busy bins past it; the same for copies
  // (a 1M-row nvprof trace is 81 % memcpy rows)
  const runP = api.run(id, signal);
  runP.catch(() => {});   // (a failure is reported where it is awaited, below)
  const limits = await api.limits();
  const max = limits.window_max_default;
  // a run whose CPU tasks can be held: where they waited (asked only of those)
  const hostP = runP.then((r) => ((r.summary?.host_calls || 0) > 0 ? api.hostCalls(id, signal) : { host_calls: [] }));
  const [run, listed, copies, host] = await Promise.all([
    runP, api.kernelsWindow(id, { max }, signal), api.copiesWindow(id, { max }, signal), hostP,
  ]);
  // past the max: the whole run's copy bins, and copies by window after
  const bigCopies = copies.mode === 'bins' ? copies : null;
  // past the max the answer is the whole run's per-stream bins, with the
  // run's kernel names and streams: a kernel-level run is then drawn by
  // window; a run of blocks still wants every kernel (its blocks name them)
  let kernels = listed;
  let big = null;
  if (listed.mode === 'bins') {
    if ((run.summary?.blocks || 0) > 0) kernels = await api.kernels(id, signal);
    else {
      big = listed;
      kernels = { kernels: [] };
    }
  }
  // The experiment is wanted only for its name (breadcrumb, title, export
  // file names), and nobody waits for it on the way to the first draw: on a
  // 4,096-kernel run its answer (the whole scenario) took longer than
  // everything else navigation -> drawn waits for (issue 9). It is asked
  // for now, beside the window's blocks, so the server builds it while the
  // page draws (asked beside the kernels, it slowed them on a busy server).
  const expP = (run.experiment ? api.experimentBrief(run.experiment, signal) : Promise.resolve(null))
    .catch(() => null);     // the run still shows; only the breadcrumb loses its name
  const c = { id, run, limits, experiment: null, kernels: kernels.kernels || [], copies: copies.copies || [], blocks: undefined, big, bigCopies, hostCalls: host.host_calls || [] };
  c.experimentP = expP.then((e) => {
    c.experiment = e;
    return e;
  });
  cache = c;
  cache.names = big ? big.names : [];
  const seen = new Set(cache.names);
  for (const k of cache.kernels) {
    if (!seen.has(k.name)) {
      seen.add(k.name);
      cache.names.push(k.name);
    }
  }
  return cache;
}

// "copy link": the page's URL (always short: see the k= form above).
function copyLinkButton() {
  const msg = h('span', { class: 'muted copy-msg', 'aria-live': 'polite' });
  const btn = h('button', {
    type: 'button', id: 'copy-link', title: 'copy a link to this view',
    onclick: async () => {
      const url = location.href;
      setExtra('copied', url);
      try {
        await navigator.clipboard.writeText(url);
        msg.textContent = 'link copied';
      } catch {
        // no clipboard permission (http on another host): show it to copy by hand
        const input = h('input', { type: 'text', value: url, readonly: true, class: 'copy-fallback', 'aria-label': 'link to this view' });
        msg.replaceChildren(input);
        input.select();
      }
    },
  }, 'Copy link');
  return [btn, msg];
}

function header(c, tab, route) {
  const r = c.run;
  const s = r.summary || {};
  const dev = r.device;
  if (!tabKeys || tabKeys.run !== route.params.run) tabKeys = { run: route.params.run, tabs: new Map() };
  const { tabs } = tabKeys;
  tabs.set(tab, ownKeys(route.query));
  // the window (KEEP) of the URL `query`, then the tab's own keys, as
  // their raw (already encoded) values
  const hrefFor = (name, query) => `/runs/${encodeURIComponent(r.run)}?view=${name}${
    [...KEEP.filter((k) => query.get(k) !== undefined).map((k) => [k, query.get(k)]), ...(tabs.get(name) || [])]
      .map(([k, v]) => `&${encodeURIComponent(k)}=${v}`).join('')}`;
  const tabLink = (name, label) => h('a', {
    href: hrefFor(name, route.query),
    class: `tab${name === tab ? ' active' : ''}`, 'aria-current': name === tab ? 'page' : null,
    dataset: { tab: name },
    // the view may have moved the window or changed its own keys since
    // (replaceState): the URL as it is now is this tab as left, and the
    // next tab opens on its window
    onclick: (ev) => {
      const now = parseQuery(location.search);
      tabs.set(tab, ownKeys(now));
      ev.currentTarget.setAttribute('href', hrefFor(name, now));
    },
  }, label);
  const facts = [
    ['source', r.source],
    // a trace that names its device without its limits (an nvprof log's
    // Device column) keeps the name in its meta
    ['device', dev ? `${dev.name}${dev.sms ? ` · ${dev.sms} SMs` : ''}${dev.threads_per_sm ? ` · ${dev.threads_per_sm} threads/SM` : ''}`
      : r.meta && r.meta.device ? r.meta.device : 'unknown'],
    // a trace of several GPUs lists each (DESIGN §5); the same model said once
    ...(r.devices && r.devices.length ? [['GPUs', gpuList(r.devices)]] : []),
    ['kernels', formatCount(s.kernels)], ['blocks', formatCount(s.blocks)], ['copies', formatCount(s.copies)],
    ['duration', formatNs(s.t_max !== null && s.t_max !== undefined && s.t_min !== null && s.t_min !== undefined ? s.t_max - s.t_min : null)],
  ];
  // An import's experiment is usually named after the same file as the run;
  // saying it twice in the title helps nobody.
  // (the experiment's name comes after the first draw: filled in then)
  const crumb = r.experiment ? h('a', { href: `/experiments/${encodeURIComponent(r.experiment)}` }, 'experiment') : null;
  const title = h('h1', null, r.name || r.run);
  const named = () => {
    const expName = c.experiment?.name || '';
    const context = expName && !expName.endsWith(r.name || r.run) ? expName : null;
    if (crumb && expName) crumb.textContent = expName;
    if (context) title.prepend(h('span', { class: 'h1-context' }, `${context} · `));
  };
  if (c.experiment || !c.experimentP) named();
  else c.experimentP.then(named);
  return h('div', null,
    h('nav', { class: 'crumbs', 'aria-label': 'breadcrumb' },
      h('a', { href: '/' }, 'Experiments'), ' / ',
      crumb,
      r.experiment ? ' / ' : null),
    h('div', { class: 'page-head' },
      title,
      h('dl', { class: 'facts' }, facts.map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v ?? '—')))),
      // what the import left out of the files or guessed (the run's meta,
      // docs/trace-format.md "Import warnings"): counted, the lines a click away
      runWarnings(r.meta),
      c.kernels.length || c.big ? replayForm(c) : null),
    // the tabs of run/tabs.mjs, each on the runs that have its data
    h('nav', { class: 'tabs', 'aria-label': 'run views' }, TABS.filter((t) => !t.when || t.when(c)).map((t) => tabLink(t.name, t.label)),
      h('span', { class: 'tab-spacer' }),
      copyLinkButton(),
      apiFileLink(api.exportUrl(r.run, 'trace'), 'trace JSON', { class: 'tab-aux' }),
      apiFileLink(api.exportUrl(r.run, 'chrome'), 'Perfetto JSON', { class: 'tab-aux' })));
}

function runWarnings(meta) {
  const { lines, total } = metaWarnings(meta);
  return importWarnings(lines, total, { id: 'import-warnings',
    summary: (n) => `Import: ${plural('warning')(n)} (what the import left out of the files or guessed)` });
}

// "4 × Tesla V100-SXM2-32GB (80 SMs)", or each GPU in turn where they differ
function gpuList(devices) {
  const one = (d) => `${d.name || 'unnamed'}${d.sms ? ` (${d.sms} SMs)` : ''}`;
  const names = devices.map(one);
  return names.every((n) => n === names[0]) ? `${names.length} × ${names[0]}` : names.map((n, i) => `${i}: ${n}`).join(', ');
}

export async function renderRun(root, route, ctx) {
  const tab = queryString(route.query, 'view') || 'timeline';
  const c = await loadRun(route.params.run, ctx.signal);
  document.title = `${c.run.name || c.run.run} · schedlab`;
  root.append(header(c, tab, route));
  const panel = h('section', { class: 'panel', id: `panel-${tab}` });
  root.append(panel);
  // (run before the next page draws, the URL already its): another page
  // than this run's forgets the tabs' keys
  const forget = () => {
    const next = currentRoute();
    if (next.name !== 'run' || next.params.run !== route.params.run) tabKeys = null;
  };
  // A link may name a view this run has not (a typo, or a teammate's link
  // with another run's id pasted in): said so, with this run's views, never
  // a tab drawn empty ("0 of undefined QoS kernels").
  const t = TABS.find((x) => x.name === tab);
  const own = TABS.filter((x) => !x.when || x.when(c));
  const views = () => [' This run\'s views: ', ...own.flatMap((x, i) => [i ? ', ' : '',
    h('a', { href: `/runs/${encodeURIComponent(c.run.run)}?view=${x.name}` }, x.label)]), '.'];
  if (!t) {
    panel.append(h('div', { class: 'error', role: 'alert', id: 'view-unavailable' }, `Unknown view "${tab}" in the URL.`, ...views()));
    return { view: 'error', cleanup: forget };
  }
  if (t.when && !t.when(c)) {
    panel.append(h('div', { class: 'error', role: 'alert', id: 'view-unavailable' },
      `This run has no ${t.label} view: it shows ${t.needs(c)}.`, ...views()));
    return { view: 'error', cleanup: forget };
  }
  const r = await t.render(panel, c, route, ctx);
  return {
    view: tab, drawnBlocks: r?.drawn,
    cleanup: () => {
      if (r?.cleanup) r.cleanup();
      forget();
    },
  };
}

// Used by the compare page's links: the run page URL for a state.
export function runUrl(run, state = {}) {
  return `/runs/${encodeURIComponent(run)}${buildQuery(state)}`;
}
