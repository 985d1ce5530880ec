// views/run/timeline.mjs -- the run view's Timeline tab: blocks (or a
// kernel-level run's kernels) per SM lane, copies per copy engine, and the
// syncs and blocking copies of a run's CPU tasks per task
// (charts/timeline.mjs), zoomed and panned with the window in the URL, the
// legend's kernels shown or hidden, and the queue panel under it. A big run
// is read window by window (blockSource); the limits are the server's
// (c.limits: GET /api/capabilities).

import { api } from '../../api.mjs';
import { h } from '../../dom.mjs';
import { formatCount, timeFormat, encodeRanges } from '../../format.mjs';
import { colorMap } from '../../colors.mjs';
import { createTimeline } from '../../charts/timeline.mjs';
import { setBusy, setReady, setDrawn, setExtra, whenReady } from '../../state.mjs';
import { hiddenFromQuery, pngButton, extentOf, queuePanel, urlAt, urlWindow, linkNote, writeState } from './shared.mjs';
import { queryString } from '../../router.mjs';

// Lanes for every SM the device has and every SM a block names (an
// importer may know blocks but not the device).
function smCount(c, first) {
  let n = Math.max(c.run.device?.sms || 0, c.run.summary?.sms || 0, first?.sms || 0);
  for (const b of c.blocks || first?.blocks || []) if (b.sm + 1 > n) n = b.sm + 1;
  return n;
}

// SM lanes per GPU of a run of several (DESIGN §5: the run's devices, each
// kernel's device): each GPU's SM count, at least one past the highest SM
// its blocks name; null for one GPU.
function gpuLanes(c) {
  const devs = c.run.devices;
  if (!devs || devs.length < 2) return null;
  const n = devs.map((d) => d.sms || 0);
  const dev = new Map((c.kernels || []).map((k) => [k.id, k.device || 0]));
  for (const b of c.blocks || []) {
    const g = dev.get(b.kernel) || 0;
    if (g < n.length && b.sm + 1 > n[g]) n[g] = b.sm + 1;
  }
  return n.map((x) => Math.max(x, 1));
}

// Issue 9: each window is fetched once. A run with at most the API's window max
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
    // a cohort run's waves counted (issue 28): zooming in asks again for
    // the blocks themselves
    r.counted = Array.isArray(r.blocks) && r.blocks.some((b) => b.count > 1);
    answers.set(key, r);
    if (answers.size > 64) answers.delete(answers.keys().next().value);
    return r;
  };
  // a big kernel-level run's whole-run answer came with the run: the
  // first window (the whole run) is drawn without asking again
  if (kind === 'kernels' && c.big) keep(`${c.big.from}:${c.big.to}:*`, c.bigCopies ? { ...c.big, copyWin: c.bigCopies } : c.big);
  // an answer serves windows inside its own when nothing in it is binned
  const whole = (r) => r.mode !== 'bins' && !r.counted && !(r.copyWin && r.copyWin.mode === 'bins');
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
      const main = kind === 'blocks' ? api.blocks(c.id, { from: w.from, to: w.to, max: c.limits.window_max_default }, ctx.signal)
        : kind === 'kernels' ? api.kernelsWindow(c.id, { from: w.from, to: w.to, max: c.limits.window_max_default }, ctx.signal)
          : Promise.resolve({ mode: 'copies' });
      const cw = c.bigCopies ? api.copiesWindow(c.id, { from: w.from, to: w.to, max: c.limits.window_max_default }, ctx.signal) : null;
      const first = base ? Promise.resolve(base)
        : Promise.all([main, cw]).then(([r, cr]) => {
          r.from = w.from;
          r.to = w.to;
          if (cr) r.copyWin = cr;
          return keep(all, r);
        });
      p = first.then((r) => {
        if (r.mode !== 'bins' || spec === null) return r;
        return (kind === 'blocks' ? api.occupancy(c.id, { from: w.from, to: w.to, max: c.limits.window_max_default, kernels: spec }, ctx.signal)
          : api.streams(c.id, { from: w.from, to: w.to, max: c.limits.window_max_default, names: spec }, ctx.signal))
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

export async function timelineTab(panel, c, route, ctx) {
  const s = c.run.summary || {};
  const hasBlocks = (s.blocks || 0) > 0;
  if (!hasBlocks && !c.kernels.length && !c.big && !c.copies.length && !c.bigCopies) {
    panel.append(h('p', { class: 'empty' }, 'This run has no kernels, blocks or copies to draw.'));
    return { drawn: 0 };
  }
  const mode = hasBlocks ? 'blocks' : 'streams';
  // a kernel-level run of more than the API's window max kernels: drawn by window
  const big = !hasBlocks && c.big ? c.big : null;
  // A run that fits under the limit comes whole, once per page (the
  // summary says how many blocks it has, so no request is spent finding out).
  const local = hasBlocks && s.blocks <= c.limits.window_max_default;
  if (local && c.blocks === undefined) {
    const all = await api.blocks(c.id, { max: c.limits.window_max_default }, ctx.signal);
    c.blocks = all.mode === 'blocks' ? all.blocks : [];
    setExtra('fetches', 1);
  } else if (!hasBlocks || local) setExtra('fetches', 0);
  const extent = extentOf(c);
  const w0 = urlWindow(route, extent);
  const { from, to } = w0;
  const linkAt = urlAt(route, extent);
  let { at } = linkAt;
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
    setExtra('waits', tl.drawnWaits());
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
  panel.append(...[linkNote([w0.note, hidden.note, linkAt.note].filter(Boolean).join(' '), 'link-note'), chartHost].filter(Boolean));
  const fmt = () => timeFormat(tl ? tl.window().to - tl.window().from : to - from).format;
  const queues = hasQueues ? queuePanel(c, ctx, fmt) : null;
  if (queues) panel.append(queues.el);

  // the legend's search box text, as typed (`search`; docs/api.md "Share links of a run")
  let search = queryString(route.query, 'search') || '';
  const writeUrl = () => writeState('timeline', tl.window(), extent, hidden, names, at, { search: search || null });
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
        status.textContent = cw && cw.mode === 'bins' ? `more than ${formatCount(c.limits.window_max_default)} copies in view: copy-engine busy shown` : '';
        return;
      }
    }
    if (big) {
      // a kernel-level run: the window's kernels, or per-stream busy bins
      status.textContent = r.mode === 'bins'
        ? `more than ${formatCount(c.limits.window_max_default)} kernels${r.shown !== undefined ? ' of the shown names' : ''} in view: stream busy shown` : '';
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
      ? `${formatCount(r.total)} blocks${r.shown !== undefined ? ' of the shown kernels' : ''} in view: occupancy shown`
      : r.counted ? `${formatCount(r.total)} blocks in view: a wave of identical blocks is one bar per SM` : '';
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
    // a run whose CPU tasks can be held: a lane per task, its waits on it
    hostCalls: c.hostCalls,
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
    // a run of several GPUs whose blocks come whole: lanes per GPU's SMs
    // (bins, past that, count every GPU's SM n together)
    gpus: local && !c.bigCopies ? gpuLanes(c) : null,
    threadsPerSm: c.run.device?.threads_per_sm || 0,
    colors, extent, window: { from, to }, hidden, at, search,
    onSearch(text) {
      search = text;
      writeUrl();
    },
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
  // a link's window that could not be shown as asked: the URL says what is
  // shown (the note above the chart says what became of the link's)
  if (w0.note || hidden.note || linkAt.note) writeUrl();
  setExtra('mode', first && first.mode !== 'copies' ? first.mode : mode === 'blocks' ? 'blocks' : 'streams');
  if (big) setExtra('streams', tl.drawnStreams());
  if (c.bigCopies) setExtra('copies', tl.drawnCopies());
  setExtra('waits', tl.drawnWaits());
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
