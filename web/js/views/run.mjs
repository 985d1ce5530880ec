// views/run.mjs -- "/runs/{run}?view=timeline|kernels|queues&from=&to=&kernels=&at=".
// Everything the picture depends on is in the URL: the zoom window (from,
// to), the kernels shown (kernels=, absent = all) and the picked time (at),
// so a copied link reopens the same picture. Zooming rewrites the URL with
// replaceState; switching tabs is a normal navigation.

import { api } from '../api.mjs';
import { h, table, errorBox, clear } from '../dom.mjs';
import { formatNs, formatCount, formatPriority, formatBytes } from '../format.mjs';
import { queryInt, queryList, queryString, replaceQuery, buildQuery, navigate } from '../router.mjs';
import { colorMap } from '../colors.mjs';
import { createTimeline } from '../charts/timeline.mjs';
import { createQueueChart } from '../charts/queues.mjs';
import { setBusy, setReady, setDrawn, setExtra } from '../state.mjs';

const MAX_BLOCKS = 20000;     // the API's default; past it the server bins
const TABLE_ROWS = 5000;      // a longer table freezes the page for nothing
const TABS = [['timeline', 'Timeline'], ['kernels', 'Kernels'], ['queues', 'Queues']];

// The last run's static data, so switching tabs does not refetch it.
let cache = null;

async function loadRun(id, signal) {
  if (cache && cache.id === id) return cache;
  const [run, kernels, copies] = await Promise.all([
    api.run(id, signal), api.kernels(id, signal), api.copies(id, signal),
  ]);
  let experiment = null;
  if (run.experiment) {
    try {
      experiment = await api.experiment(run.experiment, signal);
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      experiment = null;     // the run still shows; only the breadcrumb loses its name
    }
  }
  cache = { id, run, experiment, kernels: kernels.kernels || [], copies: copies.copies || [], blocks: undefined };
  return cache;
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
  for (const k of ['from', 'to', 'kernels', 'at']) {
    const v = route.query.get(k);
    if (v !== undefined) keep[k] = v;
  }
  const tabLink = (name, label) => {
    // keep the raw (already encoded) values of the other parameters
    const extra = Object.entries(keep).map(([k, v]) => `&${k}=${v}`).join('');
    return h('a', {
      href: `/runs/${encodeURIComponent(r.run)}?view=${name}${extra}`,
      class: `tab${name === tab ? ' active' : ''}`, 'aria-current': name === tab ? 'page' : null,
      dataset: { tab: name },
    }, label);
  };
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
  const expName = c.experiment?.name || '';
  const context = expName && !expName.endsWith(r.name || r.run) ? expName : null;
  return h('div', null,
    h('nav', { class: 'crumbs', 'aria-label': 'breadcrumb' },
      h('a', { href: '/' }, 'Experiments'), ' / ',
      r.experiment ? h('a', { href: `/experiments/${encodeURIComponent(r.experiment)}` }, c.experiment?.name || 'experiment') : null,
      r.experiment ? ' / ' : null),
    h('div', { class: 'page-head' },
      h('h1', null, context ? h('span', { class: 'h1-context' }, `${context} · `) : null, r.name || r.run),
      h('dl', { class: 'facts' }, facts.map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v ?? '—')))),
      c.kernels.length ? replayForm(c) : null),
    h('nav', { class: 'tabs', 'aria-label': 'run views' }, TABS.map(([n, l]) => tabLink(n, l)),
      h('span', { class: 'tab-spacer' }),
      h('a', { class: 'tab-aux', href: api.exportUrl(r.run, 'trace'), download: true }, 'trace JSON'),
      h('a', { class: 'tab-aux', href: api.exportUrl(r.run, 'chrome'), download: true }, 'Perfetto JSON')));
}

// "Replay in simulator" (docs/api.md, POST /replay): the run's workload as a
// scenario calibrated from the trace, simulated under every placement policy
// the server has, with a fidelity report per simulated run; it opens the
// comparison of the hardware run with the simulations. The device is the
// server's choice unless one is picked (the CLI chooses the same way: the
// trace's own device when complete, else the preset its name names by whole
// words), and the page says which it chose.
function replayForm(c) {
  const select = h('select', { id: 'replay-device', 'aria-label': 'device preset for the replay' });
  const button = h('button', { type: 'submit' }, 'Replay in simulator');
  const msg = h('div', { class: 'form-msg', 'aria-live': 'polite' });
  const form = h('form', { class: 'replay', id: 'replay-form' },
    h('label', { for: 'replay-device' }, 'device'), select, button, msg);
  select.append(h('option', { value: '', selected: true }, 'automatic (the trace\'s device)'));
  api.presets().then((p) => {
    for (const x of p.presets || []) select.append(h('option', { value: x.name }, x.name));
  }).catch((e) => {
    if (e.name !== 'AbortError') msg.replaceChildren(errorBox(e.message));
  });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    button.disabled = true;
    msg.replaceChildren(h('span', { class: 'muted' }, 'Simulating…'));
    try {
      const res = await api.replayRun(c.id, select.value, undefined, (f) => {
        msg.replaceChildren(h('span', { class: 'muted' }, `Simulating… ${Math.round(f * 100)} %`));
      });
      navigate(`${res.compare}&replay=${encodeURIComponent(res.slug)}`);
    } catch (e) {
      msg.replaceChildren(errorBox(e.message));
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

function queueList(resp) {
  const queues = resp.queues || [];
  const full = queues.filter((q) => q.items && q.items.length);
  const empty = queues.length - full.length;
  return h('div', { class: 'queue-list' },
    h('h3', null, `Queues at ${formatNs(resp.at)}`),
    full.length ? h('ul', { class: 'queues' }, full.map((q) => h('li', null,
      h('span', { class: 'queue-name' }, q.queue),
      h('span', { class: 'queue-items' }, q.items.map((it, i) => h('span', { class: `chip${i === 0 ? ' head' : ''}` }, it))))))
      : h('p', { class: 'muted' }, 'Every queue is empty at this time.'),
    empty && full.length ? h('p', { class: 'muted' }, `${empty} other queue${empty > 1 ? 's' : ''} empty.`) : null);
}

// The panel under a chart that shows GET /queues?at=.
function queuePanel(c, ctx) {
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
        el.append(queueList(resp));
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

async function timelineTab(panel, c, route, ctx) {
  const s = c.run.summary || {};
  const hasBlocks = (s.blocks || 0) > 0;
  if (!hasBlocks && !c.kernels.length && !c.copies.length) {
    panel.append(h('p', { class: 'empty' }, 'This run has no kernels, blocks or copies to draw.'));
    return { drawn: 0 };
  }
  const mode = hasBlocks ? 'blocks' : 'streams';
  // Blocks: the whole run once when it fits under the limit (zoom is then
  // local); otherwise per window, which may come back as occupancy bins.
  if (hasBlocks && c.blocks === undefined) {
    const all = await api.blocks(c.id, { max: MAX_BLOCKS }, ctx.signal);
    c.blocks = all.mode === 'blocks' ? all.blocks : null;
    c.wholeBins = all.mode === 'blocks' ? null : all;
  }
  const local = hasBlocks && c.blocks !== null;
  const extent = extentOf(c);
  let from = queryInt(route.query, 'from');
  let to = queryInt(route.query, 'to');
  if (from === null || to === null || to <= from) {
    from = extent.min;
    to = extent.max;
  }
  let at = queryInt(route.query, 'at');
  const names = [];
  for (const k of c.kernels) if (!names.includes(k.name)) names.push(k.name);
  const colors = colorMap(names);
  const shownList = queryList(route.query, 'kernels');
  const hidden = new Set(shownList ? names.filter((n) => !shownList.includes(n)) : []);
  let first = null;
  if (hasBlocks && !local) {
    const w = c.wholeBins;
    first = w && w.from === from && w.to === to ? w : await api.blocks(c.id, { from, to, max: MAX_BLOCKS }, ctx.signal);
  }

  const windowText = h('span', { class: 'window-text', id: 'window-text' });
  const reset = h('button', { type: 'button', id: 'reset-zoom' }, 'Reset zoom');
  const zoomIn = h('button', { type: 'button', id: 'zoom-in', 'aria-label': 'zoom in', title: 'zoom in' }, '+');
  const zoomOut = h('button', { type: 'button', id: 'zoom-out', 'aria-label': 'zoom out', title: 'zoom out' }, '−');
  const status = h('span', { class: 'muted', id: 'timeline-status' });
  panel.append(h('div', { class: 'toolbar' }, h('span', { class: 'btn-group' }, zoomOut, zoomIn), reset, windowText,
    h('span', { class: 'hint' }, 'wheel: zoom · drag: pan · click: queues at that time'), status));
  const chartHost = h('div', { class: 'card timeline-card' });
  panel.append(chartHost);
  const queues = (s.queue_events || 0) > 0 ? queuePanel(c, ctx) : null;
  if (queues) panel.append(queues.el);

  const writeUrl = () => {
    const w = tl.window();
    const zoomed = w.from !== extent.min || w.to !== extent.max;
    replaceQuery({
      view: 'timeline',
      from: zoomed ? w.from : null,
      to: zoomed ? w.to : null,
      kernels: hidden.size ? names.filter((n) => !hidden.has(n)) : null,
      at,
    });
  };
  const showWindow = () => {
    const w = tl.window();
    windowText.textContent = `${formatNs(w.from)} – ${formatNs(w.to)}`;
  };

  let fetchTimer = null;
  let fetchSeq = 0;
  const refetch = () => {
    clearTimeout(fetchTimer);
    setBusy();
    fetchTimer = setTimeout(async () => {
      const mine = ++fetchSeq;
      const w = tl.window();
      status.textContent = 'loading…';
      try {
        const resp = await api.blocks(c.id, { from: w.from, to: w.to, max: MAX_BLOCKS }, ctx.signal);
        if (mine !== fetchSeq) return;
        tl.setData(resp.mode === 'blocks' ? { blocks: resp.blocks } : { bins: resp });
        status.textContent = resp.mode === 'bins' ? `${formatCount(resp.total)} blocks in view: occupancy shown` : '';
        setExtra('mode', resp.mode);
        setDrawn(tl.drawnBlocks());
        setReady();
      } catch (e) {
        if (e.name === 'AbortError') return;
        status.textContent = e.message;
        setReady();
      }
    }, 200);
  };

  let urlTimer = null;
  const tl = createTimeline(chartHost, {
    mode, kernels: c.kernels, copies: c.copies,
    blocks: local ? c.blocks : first && first.mode === 'blocks' ? first.blocks : null,
    bins: first && first.mode === 'bins' ? first : null,
    sms: smCount(c, first),
    threadsPerSm: c.run.device?.threads_per_sm || 0,
    colors, extent, window: { from, to }, hidden, at,
    onWindow() {
      showWindow();
      clearTimeout(urlTimer);
      urlTimer = setTimeout(writeUrl, 80);
      if (local || mode !== 'blocks') setDrawn(tl.drawnBlocks());
      else refetch();
    },
    onToggle(name) {
      if (name === null) hidden.clear();
      else if (hidden.has(name)) hidden.delete(name);
      else hidden.add(name);
      tl.setHidden(hidden);
      setDrawn(tl.drawnBlocks());
      writeUrl();
    },
    onPick(t) {
      if (!queues) return;
      at = t;
      tl.setAt(t);
      writeUrl();
      queues.show(t);
    },
  });
  // Buttons do what the wheel does, for keyboards and touch pads.
  const applyWindow = (f, t) => {
    tl.setWindow(f, t);
    showWindow();
    writeUrl();
    if (local || mode !== 'blocks') setDrawn(tl.drawnBlocks());
    else refetch();
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
  showWindow();
  setExtra('mode', first ? first.mode : mode === 'blocks' ? 'blocks' : 'streams');
  if (first && first.mode === 'bins') status.textContent = `${formatCount(first.total)} blocks in view: occupancy shown`;
  if (queues) await queues.show(at);
  return {
    drawn: tl.drawnBlocks(),
    cleanup() {
      clearTimeout(fetchTimer);
      clearTimeout(urlTimer);
      tl.destroy();
    },
  };
}

function kernelsTab(panel, c) {
  const ks = c.kernels;
  if (!ks.length) {
    panel.append(h('p', { class: 'empty' }, 'This run has no kernels.'));
    return {};
  }
  const rows = ks.slice(0, TABLE_ROWS);
  panel.append(table([
    { label: '#', num: true, cell: (k) => String(k.id) },
    { label: 'Kernel', cell: (k) => h('span', { class: 'strong', title: k.raw_name || k.name }, k.name) },
    { label: 'Stream', cell: (k) => (k.process && k.process !== 'P0' ? `${k.process}/${k.stream ?? '—'}` : k.stream ?? '—') },
    { label: 'Priority', cell: (k) => formatPriority(k.priority) },
    { label: 'Blocks × threads', num: true, cell: (k) => `${formatCount(k.blocks)} × ${formatCount(k.threads)}` },
    { label: 'Issue', num: true, cell: (k) => formatNs(k.issue) },
    { label: 'First block', num: true, cell: (k) => formatNs(k.first_block) },
    { label: 'Fully dispatched', num: true, cell: (k) => formatNs(k.fully_dispatched) },
    { label: 'End', num: true, cell: (k) => formatNs(k.end) },
    { label: 'Response', num: true, cell: (k) => h('span', { class: 'strong' }, formatNs(responseOf(k))) },
  ], rows, { id: 'kernels', class: 'list dense' }));
  if (ks.length > rows.length) {
    panel.append(h('p', { class: 'muted' }, `Showing the first ${formatCount(rows.length)} of ${formatCount(ks.length)} kernels; export the trace for all of them.`));
  }
  if (c.copies.length) {
    panel.append(h('h2', null, 'Copies'), table([
      { label: 'Copy', cell: (x) => x.name || '—' },
      { label: 'Stream', cell: (x) => x.stream ?? '—' },
      { label: 'Direction', cell: (x) => x.direction ?? '—' },
      { label: 'Bytes', num: true, cell: (x) => formatBytes(x.bytes) },
      { label: 'Issue', num: true, cell: (x) => formatNs(x.issue) },
      { label: 'Start', num: true, cell: (x) => formatNs(x.start) },
      { label: 'End', num: true, cell: (x) => formatNs(x.end) },
    ], c.copies.slice(0, TABLE_ROWS), { id: 'copies', class: 'list dense' }));
  }
  return {};
}

async function queuesTab(panel, c, route, ctx) {
  const s = c.run.summary || {};
  if (!(s.queue_events > 0)) {
    panel.append(h('p', { class: 'empty' }, `This run has no queue events (a ${c.run.source} trace does not record queues).`));
    return {};
  }
  const resp = await api.queueSeries(c.id, ctx.signal);
  const extent = extentOf(c);
  let at = queryInt(route.query, 'at');
  const host = h('div', { class: 'card' });
  panel.append(h('p', { class: 'hint' }, 'Queue lengths over time (TX2 paper §3.2: stream, EE and CE queues). Click to see what each queue holds.'), host);
  const qp = queuePanel(c, ctx);
  panel.append(qp.el);
  const chart = createQueueChart(host, {
    series: resp.queues || [], tMin: extent.min, tMax: extent.max, at,
    onPick(t) {
      at = t;
      replaceQuery({ view: 'queues', from: queryString(route.query, 'from'), to: queryString(route.query, 'to'),
        kernels: queryList(route.query, 'kernels'), at });
      qp.show(t);
    },
  });
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
    kernelsTab(panel, c);
    return { view: 'kernels' };
  }
  if (tab === 'queues') {
    const r = await queuesTab(panel, c, route, ctx);
    return { view: 'queues', cleanup: r.cleanup };
  }
  panel.append(errorBox(`Unknown view "${tab}" in the URL: use ${TABS.map(([n]) => n).join(', ')}.`));
  return { view: 'error' };
}

// Used by the compare page's links: the run page URL for a state.
export function runUrl(run, state = {}) {
  return `/runs/${encodeURIComponent(run)}${buildQuery(state)}`;
}
