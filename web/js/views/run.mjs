// views/run.mjs -- "/runs/{run}?view=timeline|kernels|queues&from=&to=&k=&at=".
// Everything the picture depends on is in the URL: the zoom window (from,
// to), the kernels shown and the picked time (at), so a copied link reopens
// the same picture. Zooming rewrites the URL with replaceState; switching
// tabs is a normal navigation and keeps the window.
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
// queuesDrawn (what the Queues chart drew: steps, or the pyramid's bins), and
// zoom(factor) -> Promise: one zoom step about the window's middle
// (factor 0.5 = in), resolved once it is drawn (bench: issue 9's zoom step).

import { api } from '../api.mjs';
import { h, errorBox, clear } from '../dom.mjs';
import {
  formatNs, formatCount, formatPriority, formatBytes, timeFormat, shortName,
  encodeRanges, decodeRanges, encodeBits, decodeBits,
} from '../format.mjs';
import { queryInt, queryList, queryString, replaceQuery, buildQuery, parseQuery, encodeItem } from '../router.mjs';
import { colorMap } from '../colors.mjs';
import { createTimeline } from '../charts/timeline.mjs';
import { createQueueChart } from '../charts/queues.mjs';
import { createVTable, toCsv } from '../vtable.mjs';
import { createPTable, PAGE_ROWS } from '../ptable.mjs';
import { download, safeName } from '../exports.mjs';
import { setBusy, setReady, setDrawn, setExtra, whenReady } from '../state.mjs';
import { summaryTab } from './summary.mjs';
import { EXTRA_TABS } from './runtabs.mjs';
import { replayForm } from './replay_form.mjs';

const MAX_BLOCKS = 20000;     // the API's default; past it the server bins
// A kernel-level run (no blocks) of more kernels than this is never fetched
// whole (issue 9: a 1M-kernel nvprof import): the timeline asks for each
// window's kernels, or per-stream busy bins past it.
const MAX_KERNELS = 20000;
// The same for copies (a 1M-row nvprof trace is 81 % memcpy rows): past it
// the CE lanes are drawn from the window's copies or per-engine copy bins.
const MAX_COPIES = 20000;
const TABS = [['timeline', 'Timeline'], ['kernels', 'Kernels'], ['queues', 'Queues'], ['summary', 'Summary']];
const RANGES_MAX = 400;       // chars of k= before the bit field (kb=) is shorter
const KEEP = ['from', 'to', 'k', 'kb', 'kernels', 'at'];   // what tab links carry over

// The last run's static data, so switching tabs does not refetch it.
let cache = null;

async function loadRun(id, signal) {
  if (cache && cache.id === id) return cache;
  const [run, listed, copies] = await Promise.all([
    api.run(id, signal), api.kernelsWindow(id, { max: MAX_KERNELS }, signal),
    api.copiesWindow(id, { max: MAX_COPIES }, signal),
  ]);
  // past MAX_COPIES: the whole run's copy bins, and copies by window after
  const bigCopies = copies.mode === 'bins' ? copies : null;
  // past MAX_KERNELS the answer is the whole run's per-stream bins, with the
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
  const c = { id, run, experiment: null, kernels: kernels.kernels || [], copies: copies.copies || [], blocks: undefined, big, bigCopies };
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

// ---- kernels in the URL ----------------------------------------------------

// The hidden kernel names the URL asks for: k= (index ranges), kb= (bits),
// or an older link's kernels= (names shown).
export function hiddenFromQuery(query, names) {
  let shown = null;
  if (query.get('k') !== undefined) {
    const raw = queryString(query, 'k');
    shown = raw === '' ? [] : decodeRanges(raw, names.length);
  } else if (query.get('kb') !== undefined) {
    shown = decodeBits(queryString(query, 'kb'), names.length);
  }
  if (shown) {
    const keep = new Set(shown);
    return new Set(names.filter((_, i) => !keep.has(i)));
  }
  const byName = queryList(query, 'kernels');
  return new Set(byName ? names.filter((n) => !byName.includes(n)) : []);
}

// URL parameters for a hidden set: {k: [...parts]} or {kb: '...'}, or
// nothing when every kernel is shown.
export function kernelsQuery(hidden, names) {
  if (!hidden.size) return {};
  const ids = [];
  names.forEach((n, i) => {
    if (!hidden.has(n)) ids.push(i);
  });
  const ranges = encodeRanges(ids);
  if (ranges.length > RANGES_MAX) return { kb: encodeBits(ids, names.length) };
  // an array, so the router joins the parts with bare commas
  return { k: ranges === '' ? '' : ranges.split(',') };
}

// ---- exports ---------------------------------------------------------------

// "experiment-run" made safe as a file name (exports.mjs safeName); once
// the experiment's name is here (loadRun), see namedBase.
export function fileBase(c) {
  const exp = c.experiment?.name || '';
  const run = c.run.name || '';
  const parts = [exp && !exp.endsWith(run) ? safeName(exp) : '', safeName(run)].filter(Boolean);
  return parts.join('-') || c.run.run;
}

// fileBase after the experiment's answer (an export is named after it).
async function namedBase(c) {
  if (c.experimentP) await c.experimentP;
  return fileBase(c);
}

function pngButton(c, what, chartOf) {
  return h('button', {
    type: 'button', class: 'export-png', id: `${what}-png`, title: `save the ${what} chart as PNG`,
    onclick: async () => {
      const blob = await chartOf().png();
      if (blob) download(blob, `${await namedBase(c)}-${what}.png`);
    },
  }, 'PNG');
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

function responseOf(k) {
  if (k.end === null || k.end === undefined) return null;
  if (k.issue !== null && k.issue !== undefined) return k.end - k.issue;
  if (k.first_block !== null && k.first_block !== undefined) return k.end - k.first_block;
  return null;
}

// The time range every drawn thing fits in: the summary's range widened
// by what the kernels, copies and blocks themselves say.
function extentOf(c) {
  const s = c.run.summary || {};
  let lo = Infinity;
  let hi = -Infinity;
  const see = (v) => {
    if (v === null || v === undefined) return;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  };
  see(s.t_min);
  see(s.t_max);
  for (const k of c.kernels) [k.issue, k.first_block, k.end].forEach(see);
  if (c.big) [c.big.from, c.big.to].forEach(see);
  if (c.bigCopies) [c.bigCopies.from, c.bigCopies.to].forEach(see);
  for (const cp of c.copies) [cp.issue, cp.start, cp.end].forEach(see);
  if (c.blocks) {
    for (const b of c.blocks) {
      see(b.start);
      see(b.end);
    }
  }
  if (!Number.isFinite(lo)) {
    lo = 0;
    hi = 1;
  }
  // The paper's figures start at the trace's origin, so do we when the
  // trace starts near it.
  if (lo > 0 && lo < (hi - lo) * 0.05) lo = 0;
  if (hi <= lo) hi = lo + 1000;
  return { min: lo, max: hi };
}

function header(c, tab, route) {
  const r = c.run;
  const s = r.summary || {};
  const dev = r.device;
  const keep = {};
  for (const k of KEEP) {
    const v = route.query.get(k);
    if (v !== undefined) keep[k] = v;
  }
  // keep the raw (already encoded) values of the other parameters
  const hrefFor = (name, kept) => `/runs/${encodeURIComponent(r.run)}?view=${name}${
    Object.entries(kept).map(([k, v]) => `&${k}=${v}`).join('')}`;
  const tabLink = (name, label) => h('a', {
    href: hrefFor(name, keep),
    class: `tab${name === tab ? ' active' : ''}`, 'aria-current': name === tab ? 'page' : null,
    dataset: { tab: name },
    // the view may have moved the window since (replaceState): carry the
    // URL as it is now, so the next tab opens on the same window
    onclick: (ev) => {
      const now = parseQuery(location.search);
      const kept = {};
      for (const k of KEEP) if (now.get(k) !== undefined) kept[k] = now.get(k);
      ev.currentTarget.setAttribute('href', hrefFor(name, kept));
    },
  }, label);
  const facts = [
    ['source', r.source],
    // a trace that names its device without its limits (an nvprof log's
    // Device column) keeps the name in its meta
    ['device', dev ? `${dev.name}${dev.sms ? ` · ${dev.sms} SMs` : ''}${dev.threads_per_sm ? ` · ${dev.threads_per_sm} threads/SM` : ''}`
      : r.meta && r.meta.device ? r.meta.device : 'unknown'],
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
      c.kernels.length || c.big ? replayForm(c) : null),
    h('nav', { class: 'tabs', 'aria-label': 'run views' }, TABS.map(([n, l]) => tabLink(n, l)),
      // the paper-specific tabs (runtabs.mjs), on the runs that have their data
      EXTRA_TABS.filter((t) => t.when(c)).map((t) => tabLink(t.name, t.label)),
      h('span', { class: 'tab-spacer' }),
      copyLinkButton(),
      h('a', { class: 'tab-aux', href: api.exportUrl(r.run, 'trace'), download: true }, 'trace JSON'),
      h('a', { class: 'tab-aux', href: api.exportUrl(r.run, 'chrome'), download: true }, 'Perfetto JSON')));
}

// "Replay in simulator": views/replay_form.mjs (measured runs only).

function queueList(resp, f = formatNs) {
  const queues = resp.queues || [];
  const full = queues.filter((q) => q.items && q.items.length);
  const empty = queues.length - full.length;
  return h('div', { class: 'queue-list' },
    h('h3', null, `Queues at ${f(resp.at)}`),
    full.length ? h('ul', { class: 'queues' }, full.map((q) => h('li', null,
      h('span', { class: 'queue-name' }, q.queue),
      h('span', { class: 'queue-items' }, q.items.map((it, i) => h('span', { class: `chip${i === 0 ? ' head' : ''}` }, it))))))
      : h('p', { class: 'muted' }, 'Every queue is empty at this time.'),
    empty && full.length ? h('p', { class: 'muted' }, `${empty} other queue${empty > 1 ? 's' : ''} empty.`) : null);
}

// The panel under a chart that shows GET /queues?at=.
function queuePanel(c, ctx, fmt = () => formatNs) {
  const el = h('div', { class: 'card queue-panel', id: 'queue-panel' });
  let seq = 0;
  return {
    el,
    async show(t) {
      const mine = ++seq;
      if (t === null) {
        clear(el);
        el.append(h('p', { class: 'muted' }, 'Click the chart to see what every queue holds at that time.'));
        return;
      }
      try {
        const resp = await api.queuesAt(c.id, t, ctx.signal);
        if (mine !== seq) return;
        clear(el);
        el.append(queueList(resp, fmt()));
      } catch (e) {
        if (e.name === 'AbortError') return;
        clear(el);
        el.append(errorBox(e.message));
      }
    },
  };
}

// Lanes for every SM the device has and every SM a block names (an
// importer may know blocks but not the device).
function smCount(c, first) {
  let n = Math.max(c.run.device?.sms || 0, c.run.summary?.sms || 0, first?.sms || 0);
  for (const b of c.blocks || first?.blocks || []) if (b.sm + 1 > n) n = b.sm + 1;
  return n;
}

// The URL's zoom window, or the whole extent.
function urlWindow(route, extent) {
  const from = queryInt(route.query, 'from');
  const to = queryInt(route.query, 'to');
  if (from === null || to === null || to <= from) return { from: extent.min, to: extent.max };
  return { from, to };
}

// The URL a view writes: the tab, the window when zoomed, the kernels, at.
function writeState(view, w, extent, hidden, names, at) {
  const zoomed = w.from !== extent.min || w.to !== extent.max;
  replaceQuery({
    view,
    from: zoomed ? w.from : null,
    to: zoomed ? w.to : null,
    ...kernelsQuery(hidden, names),
    at,
  });
  setExtra('window', { from: w.from, to: w.to });
}

// Issue 9: each window is fetched once. A run with at most MAX_BLOCKS
// blocks comes whole in one request and zooms locally. A bigger one is
// asked for the URL's window first (never the whole run and then the
// window); a window inside one already answered with every block (mode
// "blocks") needs no request at all; answers are kept per window, so
// going back costs nothing; and while a request is out the chart redraws
// at once from what it has (bins stretch, blocks are clipped).
// With kernels hidden (shownSpec() gives the shown kernel ids as "3-7,12",
// null when none is hidden), a window answered with bins is asked again of
// /occupancy for the shown kernels' bins: occupancy follows the legend.
// Blocks answers hold every kernel (the chart hides blocks itself), so they
// serve any legend; bins answers are kept per set of shown kernels.
// A big kernel-level run (kind 'kernels', issue 9) is read the same way:
// /kernels?from&to&max answers a window's kernels (mode "kernels", they
// serve any window inside) or per-stream busy bins, and /streams the bins
// of the shown kernel names (shownSpec: name indices) when some are hidden.
function blockSource(c, ctx, shownSpec, kind = 'blocks') {
  const answers = new Map();     // "from:to:spec" -> response ("*": every kernel)
  const pending = new Map();     // the same keys -> promise of a response
  let have = null;               // the response drawn now
  let fetches = 0;
  const count = () => setExtra('fetches', fetches);
  count();
  const keep = (key, r) => {
    answers.set(key, r);
    if (answers.size > 64) answers.delete(answers.keys().next().value);
    return r;
  };
  // a big kernel-level run's whole-run answer came with the run: the
  // first window (the whole run) is drawn without asking again
  if (kind === 'kernels' && c.big) keep(`${c.big.from}:${c.big.to}:*`, c.bigCopies ? { ...c.big, copyWin: c.bigCopies } : c.big);
  // an answer serves windows inside its own when nothing in it is binned
  const whole = (r) => r.mode !== 'bins' && !(r.copyWin && r.copyWin.mode === 'bins');
  const load = (w) => {
    const spec = shownSpec();
    const all = `${w.from}:${w.to}:*`;
    const key = `${w.from}:${w.to}:${spec ?? '*'}`;
    let p = pending.get(key);
    if (!p) {
      fetches += 1;
      count();
      const base = answers.get(all);
      // not tied to one view's abort: a prefetch may serve the next step
      // a run of many copies (c.bigCopies): the window's copies beside,
      // kept in the same answer (copyWin); kind 'copies' asks for those only
      const main = kind === 'blocks' ? api.blocks(c.id, { from: w.from, to: w.to, max: MAX_BLOCKS }, ctx.signal)
        : kind === 'kernels' ? api.kernelsWindow(c.id, { from: w.from, to: w.to, max: MAX_KERNELS }, ctx.signal)
          : Promise.resolve({ mode: 'copies' });
      const cw = c.bigCopies ? api.copiesWindow(c.id, { from: w.from, to: w.to, max: MAX_COPIES }, ctx.signal) : null;
      const first = base ? Promise.resolve(base)
        : Promise.all([main, cw]).then(([r, cr]) => {
          r.from = w.from;
          r.to = w.to;
          if (cr) r.copyWin = cr;
          return keep(all, r);
        });
      p = first.then((r) => {
        if (r.mode !== 'bins' || spec === null) return r;
        return (kind === 'blocks' ? api.occupancy(c.id, { from: w.from, to: w.to, max: MAX_BLOCKS, kernels: spec }, ctx.signal)
          : api.streams(c.id, { from: w.from, to: w.to, max: MAX_KERNELS, names: spec }, ctx.signal))
          .then((o) => {
            o.from = w.from;
            o.to = w.to;
            o.shown = spec;
            if (r.copyWin) o.copyWin = r.copyWin;
            return keep(key, o);
          });
      }).finally(() => pending.delete(key));
      pending.set(key, p);
    }
    return p;
  };
  return {
    get have() { return have; },
    // A response that answers window w without a request, or null.
    cached(w) {
      const spec = shownSpec();
      const hit = answers.get(`${w.from}:${w.to}:${spec ?? '*'}`);
      if (hit) return hit;
      const any = answers.get(`${w.from}:${w.to}:*`);
      if (any && whole(any)) return any;
      for (const r of answers.values()) if (whole(r) && r.from <= w.from && r.to >= w.to) return r;
      return null;
    },
    // The answer for w: kept, already asked for (a prefetch), or asked now.
    // A caller that gives up (signal) stops waiting; the request goes on
    // and its answer is kept.
    get(w, signal) {
      const hit = this.cached(w);
      if (hit) return Promise.resolve(hit);
      const p = load(w);
      if (!signal) return p;
      return new Promise((resolve, reject) => {
        const stop = () => reject(new DOMException('aborted', 'AbortError'));
        if (signal.aborted) stop();
        signal.addEventListener('abort', stop, { once: true });
        p.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
      });
    },
    // The next zoom-in step (the window a "+" gives) asked for ahead, the
    // way map viewers fetch the next zoom level's tiles: when occupancy is
    // shown, the step then draws from memory. Errors are left to the step.
    prefetch(w) {
      if (this.cached(w) || pending.has(`${w.from}:${w.to}:${shownSpec() ?? '*'}`)) return;
      load(w).catch(() => {});
    },
    use(r) {
      have = r;
    },
  };
}

async function timelineTab(panel, c, route, ctx) {
  const s = c.run.summary || {};
  const hasBlocks = (s.blocks || 0) > 0;
  if (!hasBlocks && !c.kernels.length && !c.big && !c.copies.length && !c.bigCopies) {
    panel.append(h('p', { class: 'empty' }, 'This run has no kernels, blocks or copies to draw.'));
    return { drawn: 0 };
  }
  const mode = hasBlocks ? 'blocks' : 'streams';
  // a kernel-level run of more than MAX_KERNELS kernels: drawn by window
  const big = !hasBlocks && c.big ? c.big : null;
  // A run that fits under the limit comes whole, once per page (the
  // summary says how many blocks it has, so no request is spent finding out).
  const local = hasBlocks && s.blocks <= MAX_BLOCKS;
  if (local && c.blocks === undefined) {
    const all = await api.blocks(c.id, { max: MAX_BLOCKS }, ctx.signal);
    c.blocks = all.mode === 'blocks' ? all.blocks : [];
    setExtra('fetches', 1);
  } else if (!hasBlocks || local) setExtra('fetches', 0);
  const extent = extentOf(c);
  let { from, to } = urlWindow(route, extent);
  let at = queryInt(route.query, 'at');
  const names = c.names;
  const colors = colorMap(names);
  const hidden = hiddenFromQuery(route.query, names);
  // the shown kernels' ids for /occupancy, null when every kernel is shown
  // (a big kernel-level run's: the shown names' indices, for /streams)
  const shownSpec = () => (!hidden.size ? null : big
    ? encodeRanges(names.map((n, i) => [n, i]).filter(([n]) => !hidden.has(n)).map(([, i]) => i))
    : encodeRanges(c.kernels.map((k, i) => [k, i]).filter(([k]) => !hidden.has(k.name)).map(([k, i]) => k.id ?? i)));
  const src = hasBlocks && !local ? blockSource(c, ctx, shownSpec)
    : big ? blockSource(c, ctx, shownSpec, 'kernels')
      : c.bigCopies ? blockSource(c, ctx, shownSpec, 'copies') : null;
  // an answer as the chart's data (with its window's copies or copy bins
  // when the run has many copies)
  const copyData = (r) => (!r.copyWin ? {} : r.copyWin.mode === 'bins' ? { copies: [], cbins: r.copyWin }
    : { copies: r.copyWin.copies, cbins: null });
  const dataOf = (r) => ({
    ...(r.mode === 'blocks' ? { blocks: r.blocks } : r.mode === 'kernels' ? { kernels: r.kernels }
      : r.mode === 'copies' ? { blocks: local ? c.blocks : null } : big ? { sbins: r } : { bins: r }),
    ...copyData(r),
  });
  const drawnNow = () => {
    setDrawn(tl.drawnBlocks());
    if (big) setExtra('streams', tl.drawnStreams());
    if (c.bigCopies) setExtra('copies', tl.drawnCopies());
  };
  let first = null;
  if (src) {
    first = await src.get({ from, to }, ctx.signal);
    src.use(first);
  }

  const windowText = h('span', { class: 'window-text', id: 'window-text' });
  const reset = h('button', { type: 'button', id: 'reset-zoom' }, 'Reset zoom');
  const zoomIn = h('button', { type: 'button', id: 'zoom-in', 'aria-label': 'zoom in', title: 'zoom in (+)' }, '+');
  const zoomOut = h('button', { type: 'button', id: 'zoom-out', 'aria-label': 'zoom out', title: 'zoom out (−)' }, '−');
  const status = h('span', { class: 'muted', id: 'timeline-status' });
  const hasQueues = (s.queue_events || 0) > 0;
  // "click: queues at that time" only where the run recorded queues
  const hint = `wheel or +/−: zoom · drag or ←/→: pan${hasQueues ? ' · click: queues at that time' : ''}`;
  let tl = null;
  panel.append(h('div', { class: 'toolbar' }, h('span', { class: 'btn-group' }, zoomOut, zoomIn), reset, windowText,
    h('span', { class: 'hint', id: 'timeline-hint' }, hint), status, h('span', { class: 'tab-spacer' }),
    pngButton(c, 'timeline', () => tl)));
  const chartHost = h('div', { class: 'card timeline-card' });
  panel.append(chartHost);
  const fmt = () => timeFormat(tl ? tl.window().to - tl.window().from : to - from).format;
  const queues = hasQueues ? queuePanel(c, ctx, fmt) : null;
  if (queues) panel.append(queues.el);

  const writeUrl = () => writeState('timeline', tl.window(), extent, hidden, names, at);
  const showWindow = () => {
    const w = tl.window();
    const f = timeFormat(w.to - w.from).format;
    windowText.textContent = `${f(w.from)} – ${f(w.to)}`;
    setExtra('window', w);
  };
  const modeText = (r) => {
    if (c.bigCopies) {
      const cw = r.copyWin;
      setExtra('copyMode', cw ? cw.mode : null);
      if (r.mode === 'copies') {
        // a run of few kernels and many copies: only the copies come by window
        status.textContent = cw && cw.mode === 'bins' ? `more than ${formatCount(MAX_COPIES)} copies in view: copy-engine busy shown` : '';
        return;
      }
    }
    if (big) {
      // a kernel-level run: the window's kernels, or per-stream busy bins
      status.textContent = r.mode === 'bins'
        ? `more than ${formatCount(MAX_KERNELS)} kernels${r.shown !== undefined ? ' of the shown names' : ''} in view: stream busy shown` : '';
      setExtra('mode', r.mode);
      setExtra('occupancy', null);
      setExtra('streamBins', r.mode === 'bins' ? {
        names: r.shown ?? '*',
        bins: r.nbins,
        busy: r.lanes.reduce((a, l) => a + l.kernel_ns.reduce((x, v) => x + (v > 0), 0), 0),
      } : null);
      return;
    }
    status.textContent = r.mode === 'bins'
      ? `${formatCount(r.total)} blocks${r.shown !== undefined ? ' of the shown kernels' : ''} in view: occupancy shown` : '';
    setExtra('mode', r.mode);
    // what the occupancy drawn counts (for tests, through window.schedlab):
    // the shown kernels ("*": all), its blocks, its bins with any block
    setExtra('occupancy', r.mode === 'bins' ? {
      kernels: r.shown ?? '*',
      total: r.total,
      busy: r.bins.reduce((a, b) => a + (b.blocks > 0), 0),
    } : null);
  };

  let fetchTimer = null;
  let fetchSeq = 0;
  let inflight = null;
  // After occupancy is drawn, and the page has been idle a moment (a wheel
  // burst or a drag has moved on by then): ask for the "+" step's window.
  let aheadTimer = null;
  const ahead = (r, delay = 120) => {
    clearTimeout(aheadTimer);
    if (!src || (r.mode !== 'bins' && !(r.copyWin && r.copyWin.mode === 'bins'))) return;
    aheadTimer = setTimeout(() => {
      if (!tl || ctx.signal.aborted || src.have !== r) return;
      const w = tl.window();
      const mid = (w.from + w.to) / 2;
      const half = (w.to - w.from) / 4;
      src.prefetch(tl.clamp(mid - half, mid + half));
    }, delay);
  };
  // After a window change: draw from what is there, then fetch what is not.
  const follow = (delay) => {
    // a look-ahead still waiting was for the window before this one
    clearTimeout(aheadTimer);
    if (!src) {
      drawnNow();
      return;
    }
    clearTimeout(fetchTimer);
    const w = tl.window();
    const hit = src.cached(w);
    if (hit) {
      if (hit !== src.have) {
        src.use(hit);
        tl.setData(dataOf(hit));
        modeText(hit);
      }
      fetchSeq += 1;       // a slower request for an older window is stale now
      if (inflight) inflight.abort();
      drawnNow();
      setReady();
      ahead(hit);
      return;
    }
    setBusy();
    fetchTimer = setTimeout(async () => {
      const mine = ++fetchSeq;
      if (inflight) inflight.abort();
      const ac = new AbortController();
      inflight = ac;
      const onAbort = () => ac.abort();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      status.textContent = 'loading…';
      try {
        const resp = await src.get(tl.window(), ac.signal);
        if (mine !== fetchSeq) return;
        src.use(resp);
        tl.setData(dataOf(resp));
        modeText(resp);
        drawnNow();
        setReady();
        ahead(resp);
      } catch (e) {
        if (e.name === 'AbortError') return;
        status.textContent = e.message;
        setReady();
      } finally {
        ctx.signal.removeEventListener('abort', onAbort);
      }
    }, delay);
  };

  let urlTimer = null;
  tl = createTimeline(chartHost, {
    mode, kernels: big ? (first.mode === 'kernels' ? first.kernels : []) : c.kernels,
    copies: first && first.copyWin ? copyData(first).copies : c.copies,
    // a run of many copies: every engine's lane whatever the window holds,
    // the window's copies or per-engine copy bins (cbins)
    copyLanes: c.bigCopies ? c.bigCopies.lanes.map((l) => l.engine) : null,
    copyDirs: c.bigCopies ? [...new Set(c.bigCopies.lanes.flatMap((l) => Object.keys(l.directions)))] : null,
    cbins: first && first.copyWin ? copyData(first).cbins : null,
    blocks: local ? c.blocks : first && first.mode === 'blocks' ? first.blocks : null,
    bins: !big && first && first.mode === 'bins' ? first : null,
    // a big kernel-level run: every stream's lane, whatever the window holds
    streamLanes: big ? big.lanes : null,
    sbins: big && first.mode === 'bins' ? first : null,
    sms: smCount(c, first),
    threadsPerSm: c.run.device?.threads_per_sm || 0,
    colors, extent, window: { from, to }, hidden, at,
    onWindow() {
      showWindow();
      clearTimeout(urlTimer);
      urlTimer = setTimeout(writeUrl, 80);
      // wheel and drag send bursts: wait for a pause before fetching
      follow(40);
    },
    onHidden(set) {
      hidden.clear();
      for (const n of set) hidden.add(n);
      drawnNow();
      writeUrl();
      // occupancy counts every kernel per SM: the shown kernels' bins are
      // another answer (blocks are hidden by the chart itself)
      if (src && src.have && src.have.mode === 'bins') follow(0);
    },
    onTip(lines) {
      setExtra('tip', lines);
    },
    onLegend({ rows, rendered }) {
      setExtra('legendRows', rows);
      setExtra('legendRendered', rendered);
    },
    onPick(t) {
      if (!queues) return;
      at = t;
      tl.setAt(t);
      writeUrl();
      queues.show(t);
    },
  });
  setExtra('lanes', tl.lanes());
  setExtra('tip', null);
  // Buttons do what the wheel does, for keyboards and touch pads.
  const applyWindow = (f, t) => {
    // The new window's answer when it is here already (the look-ahead's):
    // drawn with the window in one redraw, not after the old data
    // stretched to it (that first redraw was half of issue 9's zoom step).
    const w = tl.clamp(f, t);
    const hit = src && src.cached(w);
    if (hit && hit !== src.have) {
      src.use(hit);
      tl.setWindow(w.from, w.to, dataOf(hit));
      modeText(hit);
    } else {
      // not here: asked for before the interim redraw, so the server works
      // on it while the page draws (follow then waits on this request)
      if (src && !hit) src.prefetch(w);
      tl.setWindow(f, t);
    }
    showWindow();
    writeUrl();
    follow(0);
  };
  const zoomBy = (factor) => {
    const w = tl.window();
    const mid = (w.from + w.to) / 2;
    const half = ((w.to - w.from) * factor) / 2;
    applyWindow(mid - half, mid + half);
  };
  reset.addEventListener('click', () => applyWindow(extent.min, extent.max));
  zoomIn.addEventListener('click', () => zoomBy(0.5));
  zoomOut.addEventListener('click', () => zoomBy(2));
  setExtra('zoom', (factor) => {
    zoomBy(factor);
    return whenReady();
  });
  showWindow();
  setExtra('mode', first && first.mode !== 'copies' ? first.mode : mode === 'blocks' ? 'blocks' : 'streams');
  if (big) setExtra('streams', tl.drawnStreams());
  if (c.bigCopies) setExtra('copies', tl.drawnCopies());
  if (first) modeText(first);
  // (a page just opened has no burst to wait out: the next level is asked
  // for at once, as the first step is the likeliest)
  if (first) ahead(first, 0);
  if (queues) await queues.show(at);
  return {
    drawn: tl.drawnBlocks(),
    cleanup() {
      clearTimeout(fetchTimer);
      clearTimeout(urlTimer);
      clearTimeout(aheadTimer);
      if (inflight) inflight.abort();
      tl.destroy();
    },
  };
}

// The kernels table: every kernel, virtualised, sortable by any column,
// filtered by name or stream, with CSV export. Times carry the decimals
// that tell the run's shortest kernel's issue, first block and end apart.
function kernelsTab(panel, c, route, ks = c.kernels) {
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
  t = createVTable(host, {
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
    ct = createVTable(chost, { id: 'copies', columns: copyCols, rows: copies, filterLabel: 'filter by copy name or stream' });
  }
  return {};
}

// The Kernels tab of a big kernel-level run (a 1M-kernel nvprof import):
// its kernels (and copies, past MAX_COPIES) a page of PAGE_ROWS at a time,
// sorted and filtered by the server (GET /kernels?offset=&limit=&sort=
// &order=&name=), never the whole list. A run of at most MAX_KERNELS
// kernels keeps the whole-list table above. The page, sort and name are in
// the URL: page, sort, order, name for kernels; cpage, csort, corder for
// copies (defaults: page 1 by id ascending, left out).
const PAGED_KEYS = ['page', 'sort', 'order', 'name', 'cpage', 'csort', 'corder'];

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
  const writeUrl = () => {
    // the other keys (window, hidden kernels) as they are
    const rest = location.search.slice(1).split('&').filter((p) => p && !PAGED_KEYS.includes(decodeURIComponent(p.split('=')[0])));
    const mine = Object.entries(url).filter(([, v]) => v !== null).map(([k, v]) => `${k}=${encodeItem(v)}`);
    const search = [...rest, ...mine].join('&');
    history.replaceState(null, '', `${location.pathname}${search ? `?${search}` : ''}`);
  };
  const stateOf = (p, sortKey, orderKey, keys) => {
    const page = queryInt(q, p);
    const sort = queryString(q, sortKey);
    return {
      page: page && page > 0 ? page : 1,
      sort: sort && keys.includes(sort) ? sort : 'id',
      order: queryString(q, orderKey) === 'desc' ? 'desc' : 'asc',
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
    const host = h('div', { class: 'card table-card' });
    let t = null;
    const csv = h('button', {
      type: 'button', id: 'kernels-csv', class: 'export-csv', title: 'the kernels of this page, in this order, as CSV (times in ns)',
      onclick: async () => download(new Blob([toCsv(columns.map((x) => ({ ...x, csv: (k) => (x.key === 'stream' ? stream(k) : k[x.key] ?? (x.key === 'response' ? responseOf(k) : null)) })), t.rows())], { type: 'text/csv' }), `${await namedBase(c)}-kernels-page.csv`),
    }, 'CSV (this page)');
    panel.append(h('div', { class: 'section-head' }, h('h2', null, `Kernels (${formatCount(c.big.kernels_total)})`), csv),
      h('p', { class: 'muted', id: 'kernels-paged-note' }, `More than ${formatCount(MAX_KERNELS)} kernels: shown ${PAGE_ROWS} at a time, sorted by the server (click a column to sort).`), host);
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
        writeUrl();
        setExtra('tablePage', { page: s.page, sort: s.sort, order: s.order, name: s.name, total: s.total, ids: s.rows.map((k) => k.id) });
      },
    });
    waits.push(t.loaded());
  }
  // a run of many copies but few kernels: its kernels' whole-list table
  if (!c.big && c.kernels.length) {
    const only = { ...c, bigCopies: null, copies: [] };
    kernelsTab(panel, only, route);
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
    const chost = h('div', { class: 'card table-card' });
    let ct = null;
    const ccsv = h('button', {
      type: 'button', id: 'copies-csv', class: 'export-csv', title: 'the copies of this page, in this order, as CSV (times in ns)',
      onclick: async () => download(new Blob([toCsv(columns.map((x) => ({ ...x, csv: (r) => r[x.key] ?? null })), ct.rows())], { type: 'text/csv' }), `${await namedBase(c)}-copies-page.csv`),
    }, 'CSV (this page)');
    panel.append(h('div', { class: 'section-head' }, h('h2', null, `Copies (${formatCount(c.bigCopies.copies_total)})`), ccsv),
      h('p', { class: 'muted', id: 'copies-paged-note' }, `More than ${formatCount(MAX_COPIES)} copies: shown ${PAGE_ROWS} at a time, sorted by the server.`), chost);
    ct = createPTable(chost, {
      id: 'copies', columns, names: null, state: stateOf('cpage', 'csort', 'corder', columns.map((x) => x.key)),
      async fetchPage(a) {
        const r = await api.recordsPage(c.id, 'copies', a, c.pageSignal);
        formatFor(r.copies, (x) => [[x.start, x.end]]);
        return { total: r.total, rows: r.copies };
      },
      onState(s) {
        remember('cpage', 'csort', 'corder', s);
        writeUrl();
        setExtra('copiesPage', { page: s.page, sort: s.sort, order: s.order, total: s.total, ids: s.rows.map((x) => x.id) });
      },
    });
    waits.push(ct.loaded());
  }
  c.pagesLoaded = Promise.all(waits);
}

// Queue lengths in the window the timeline shows (from/to of the URL),
// zoomed and panned like it; the window goes back into the URL.
async function queuesTab(panel, c, route, ctx) {
  const s = c.run.summary || {};
  if (!(s.queue_events > 0)) {
    panel.append(h('p', { class: 'empty' }, `This run has no queue events (a ${c.run.source} trace does not record queues).`));
    return {};
  }
  const resp = await api.queueSeries(c.id, ctx.signal);
  const extent = extentOf(c);
  const w0 = urlWindow(route, extent);
  const hidden = hiddenFromQuery(route.query, c.names);
  let at = queryInt(route.query, 'at');
  const host = h('div', { class: 'card' });
  const windowText = h('span', { class: 'window-text', id: 'window-text' });
  let chart = null;
  const reset = h('button', { type: 'button', id: 'reset-zoom', onclick: () => { chart.setWindow(extent.min, extent.max); moved(); } }, 'Reset zoom');
  panel.append(h('div', { class: 'toolbar' }, reset, windowText,
    h('span', { class: 'hint' }, 'Queue lengths over time (TX2 paper §3.2: stream, EE and CE queues). Wheel or +/−: zoom · drag or ←/→: pan · click: what each queue holds.'),
    h('span', { class: 'tab-spacer' }), pngButton(c, 'queues', () => chart)), host);
  const fmt = () => timeFormat(chart ? chart.window().to - chart.window().from : w0.to - w0.from).format;
  const qp = queuePanel(c, ctx, fmt);
  panel.append(qp.el);
  const show = () => {
    const w = chart.window();
    const f = timeFormat(w.to - w.from).format;
    windowText.textContent = `${f(w.from)} – ${f(w.to)}`;
    setExtra('queuesWindow', w);
  };
  function moved() {
    show();
    writeState('queues', chart.window(), extent, hidden, c.names, at);
  }
  chart = createQueueChart(host, {
    series: resp.queues || [], tMin: extent.min, tMax: extent.max, window: w0, at,
    onWindow: moved,
    fetchBins: (from, to, n) => api.queueBins(c.id, from, to, n, ctx.signal),
    onDrawn: (d) => setExtra('queuesDrawn', d),
    onPick(t) {
      at = t;
      writeState('queues', chart.window(), extent, hidden, c.names, at);
      qp.show(t);
    },
  });
  show();
  setExtra('window', chart.window());
  await chart.drawn();
  await qp.show(at);
  return { cleanup: () => chart.destroy() };
}

export async function renderRun(root, route, ctx) {
  const tab = queryString(route.query, 'view') || 'timeline';
  const c = await loadRun(route.params.run, ctx.signal);
  document.title = `${c.run.name || c.run.run} · schedlab`;
  root.append(header(c, tab, route));
  const panel = h('section', { class: 'panel', id: `panel-${tab}` });
  root.append(panel);
  if (tab === 'timeline') {
    const r = await timelineTab(panel, c, route, ctx);
    return { view: 'timeline', drawnBlocks: r.drawn, cleanup: r.cleanup };
  }
  if (tab === 'kernels') {
    // a big kernel-level run's tables (more than MAX_KERNELS kernels, or
    // MAX_COPIES copies) are read a page at a time (pagedTables): never whole
    c.pageSignal = ctx.signal;   // the pages' requests end with the view
    kernelsTab(panel, c, route);
    if (c.big || c.bigCopies) await c.pagesLoaded;
    return { view: 'kernels' };
  }
  if (tab === 'queues') {
    const r = await queuesTab(panel, c, route, ctx);
    return { view: 'queues', cleanup: r.cleanup };
  }
  if (tab === 'summary') {
    await summaryTab(panel, c, ctx);
    return { view: 'summary' };
  }
  const extra = EXTRA_TABS.find((t) => t.name === tab);
  if (extra) {
    const r = await extra.render(panel, c, route, ctx);
    return { view: tab, cleanup: r?.cleanup };
  }
  panel.append(errorBox(`Unknown view "${tab}" in the URL: use ${[...TABS.map(([n]) => n), ...EXTRA_TABS.map((t) => t.name)].join(', ')}.`));
  return { view: 'error' };
}

// Used by the compare page's links: the run page URL for a state.
export function runUrl(run, state = {}) {
  return `/runs/${encodeURIComponent(run)}${buildQuery(state)}`;
}
