// views/run/shared.mjs -- what more than one of the run view's tabs uses:
// the kernels a URL hides (k=, kb=, kernels=) and the query that says so,
// export file names and the PNG button, the time extent of a run, the URL's
// zoom window and the state a tab writes back into it, and the queue panel
// under a chart (GET /queues?at=). c is the run view's cache (run.mjs loadRun).

import { api } from '../../api.mjs';
import { h, errorBox, clear } from '../../dom.mjs';
import { formatNs, encodeRanges, decodeRanges, encodeBits, decodeBits } from '../../format.mjs';
import { queryInt, queryList, queryString, replaceQuery } from '../../router.mjs';
import { linkWindow } from '../../charts/window.mjs';
import { download, safeName } from '../../exports.mjs';
import { setExtra } from '../../state.mjs';

const RANGES_MAX = 400;       // chars of k= before the bit field (kb=) is shorter

// ---- kernels in the URL ----------------------------------------------------

// The hidden kernel names the URL asks for: k= (index ranges), kb= (bits),
// or an older link's kernels= (names shown). A k= that names no kernel of
// this run (a link made on a run of more kernels, or edited) or is not a
// list of indices shows every kernel, and the set carries a `note` saying
// so (linkNote): never an empty chart without a word. (k= empty is the
// link of a view that hid every kernel: shown as asked.)
export function hiddenFromQuery(query, names) {
  let shown = null;
  let note = null;
  if (query.get('k') !== undefined) {
    const raw = queryString(query, 'k');
    shown = raw === '' ? [] : decodeRanges(raw, names.length);
    const n = `${names.length} kernel${names.length === 1 ? '' : 's'}`;
    if (shown === null) note = `The link's kernels (k=${raw}) are not a list of kernel numbers: every kernel is shown.`;
    else if (raw !== '' && !shown.length) {
      note = `The link's kernels (k=${raw}) are none of this run's ${n} (numbered 0 to ${names.length - 1}): every kernel is shown.`;
      shown = null;
    }
  } else if (query.get('kb') !== undefined) {
    shown = decodeBits(queryString(query, 'kb'), names.length);
  }
  if (shown) {
    const keep = new Set(shown);
    return new Set(names.filter((_, i) => !keep.has(i)));
  }
  const byName = note ? null : queryList(query, 'kernels');
  const hidden = new Set(byName ? names.filter((n) => !byName.includes(n)) : []);
  if (note) hidden.note = note;
  return hidden;
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
export async function namedBase(c) {
  if (c.experimentP) await c.experimentP;
  return fileBase(c);
}

export function pngButton(c, what, chartOf) {
  return h('button', {
    type: 'button', class: 'export-png', id: `${what}-png`, title: `save the ${what} chart as PNG`,
    onclick: async () => {
      const blob = await chartOf().png();
      if (blob) download(blob, `${await namedBase(c)}-${what}.png`);
    },
  }, 'PNG');
}

// The time range every drawn thing fits in: the summary's range widened
// by what the kernels, copies and blocks themselves say.
export function extentOf(c) {
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

export function queueList(resp, f = formatNs) {
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
export function queuePanel(c, ctx, fmt = () => formatNs) {
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

// The URL's zoom window, or the whole extent, as far as the run holds it:
// {from, to, note} (charts/window.mjs linkWindow; note: what a link's
// window that could not be shown as asked became, for linkNote).
export function urlWindow(route, extent) {
  const raw = (k) => (route.query.has(k) ? queryString(route.query, k) : undefined);
  return linkWindow(extent, raw('from'), raw('to'), formatNs);
}

// The URL's picked time `at` (ns): {at, note}; a value that is not a whole
// number of ns picks none and says so (note, for linkNote), never silently;
// one outside the run's extent (a link made on a longer run, or edited)
// picks the run's end (or start) and says so, as a window past the end is
// (charts/window.mjs linkWindow). The caller writes the URL again when
// there is a note.
export function urlAt(route, extent) {
  if (!route.query.has('at')) return { at: null, note: null };
  const at = queryInt(route.query, 'at');
  if (at === null) return { at: null, note: `The link's time (at=${queryString(route.query, 'at')}) is not a whole number of ns: no time is picked.` };
  if (at >= extent.min && at <= extent.max) return { at, note: null };
  const past = at > extent.max;
  const t = past ? extent.max : extent.min;
  return { at: t, note: `The link's time ${formatNs(at)} (at=${at}) lies outside this run, which spans ${formatNs(extent.min)} – ${formatNs(extent.max)}: its ${past ? 'end' : 'start'}, ${formatNs(t)}, is picked.` };
}

// (the note above a chart that says what became of the link's window)
export { linkNote } from '../../dom.mjs';

// The URL a view writes: the tab, the window when zoomed, the kernels, at,
// and the tab's own keys (extra: key -> value, null left out).
export function writeState(view, w, extent, hidden, names, at, extra = {}) {
  const zoomed = w.from !== extent.min || w.to !== extent.max;
  replaceQuery({
    view,
    from: zoomed ? w.from : null,
    to: zoomed ? w.to : null,
    ...kernelsQuery(hidden, names),
    at,
    ...extra,
  });
  setExtra('window', { from: w.from, to: w.to });
}
