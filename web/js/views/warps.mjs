// views/warps.mjs -- "/runs/{run}?view=warps&c0=&c1=&fold=": a warp-level
// run's issue slots, drawn as QAWS Fig. 3 draws them: cycles on the x axis,
// one lane per scheduler (sub-core), lanes grouped by SM (an SM of more than
// one sub-core folds into one lane: its name on the canvas, or its button in
// the "Fold" row under the chart), each issued instruction a cell of its
// cycle coloured by its kernel and labelled with its warp ("w2") when the
// cell is wide enough; a cycle in which the scheduler issued nothing (a
// stall) is a gap. Data: GET /api/runs/{run}/warps (docs/api.md).
//
// Zoom and pan as on the timeline (wheel or +/−, drag or ←/→, Home); the
// window, in cycles, goes into the URL (c0, c1) so a copied link reopens the
// same picture; so do the folded SMs (fold=, index ranges as k= writes them:
// "fold=1,3-5"). A window holding more issues than one answer carries (the
// API's max), or lying past the run's recorded issues (a scenario's
// policy.warp_issue_limit, docs/trace-format.md), is drawn from the run's
// warp_epochs instead: per epoch, each kernel's share of the device's issue
// slots.
//
// Keyboard: the canvas is focusable; besides the zoom keys, "." and ","
// select the next / previous issue in the window and show its tooltip. The
// canvas's SM names are no controls a keyboard reaches, so each foldable SM
// has a toggle button (aria-pressed: folded) after the chart.
//
// window.schedlab hooks: warpWindow {c0, c1}, warpCells (cells drawn per
// kernel name), warpLanes (lane labels drawn, top down), warpMode ("slots" |
// "epochs"), warpEpochs (epochs drawn), warpTip (the tooltip's lines),
// warpZoom(factor) -> Promise (one zoom step about the middle).

import { h, linkNote } from '../dom.mjs';
import { api } from '../api.mjs';
import { formatCount, encodeRanges, decodeRanges } from '../format.mjs';
import { colorMap, textOn, chartTheme } from '../colors.mjs';
import { canvasContext } from '../canvas.mjs';
import { parseQuery, queryString, replaceUrl } from '../router.mjs';
import { setBusy, setReady, setExtra } from '../state.mjs';
import { linkWindow } from '../charts/window.mjs';

const GUTTER = 120;            // px of lane labels
const AXIS = 30;               // px under the lanes
const GROUP_HEAD = 18;         // px of an SM's name row
const EPOCH_BAND = 180;        // px of the epoch-share chart
// the URL keys this tab writes (writeUrl); the others are kept as they are
const OWN_KEYS = ['view', 'c0', 'c1', 'fold'];
const FONT = '600 11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

// A run has a Warps tab when it was simulated warp by warp: its kernels
// carry instruction counts (trace-format.md) or it recorded issues.
export function hasWarps(c) {
  return (c.run.summary?.warp_issues || 0) > 0 || c.kernels.some((k) => k.instructions !== undefined);
}

function laneHeight(n) {
  if (n <= 2) return 46;
  if (n <= 8) return 32;
  if (n <= 32) return 18;
  return 10;
}

// Ticks at 1, 2 or 5 times a power of ten, about every 90 px.
function ticks(c0, c1, width) {
  const span = c1 - c0;
  const raw = span / Math.max(1, width / 90);
  const p = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || p * 10;
  const out = [];
  for (let t = Math.ceil(c0 / step) * step; t <= c1; t += step) out.push(t);
  return out;
}

// The SMs a link folds (fold=0,2-3), those of 0 .. sms-1; none when the
// value is not such a list (a hand-edited link draws every lane), or names
// none of the run's SMs, and a note then says so ({set, note}).
function foldedFromQuery(query, sms) {
  if (!query.has('fold')) return { set: new Set(), note: null };
  const raw = queryString(query, 'fold');
  const ids = decodeRanges(raw, sms);
  if (ids === null) return { set: new Set(), note: `The link's fold=${raw} is not a list of SM numbers: no SM is folded.` };
  if (!ids.length) return { set: new Set(), note: `The link's fold=${raw} names none of this run's ${sms} SMs (0 to ${sms - 1}): no SM is folded.` };
  return { set: new Set(ids), note: null };
}

// The whole run's epochs, each kernel's issues in it.
function epochsOf(resp) {
  const by = new Map();   // cycle -> {cycle, cycles, issues: Map(kernel -> n)}
  for (const e of resp.warp_epochs || []) {
    let x = by.get(e.cycle);
    if (!x) {
      x = { cycle: e.cycle, cycles: e.cycles, issues: new Map() };
      by.set(e.cycle, x);
    }
    x.cycles = Math.max(x.cycles, e.cycles);
    x.issues.set(e.kernel, (x.issues.get(e.kernel) || 0) + e.issues);
  }
  return [...by.values()].sort((a, b) => a.cycle - b.cycle);
}

export async function warpsTab(panel, c, route, ctx) {
  // issues asked for per window: the API's default max (c.limits: GET /api/capabilities)
  const MAX_ISSUES = c.limits.warps_max_default;
  const first = await api.warps(c.run.run, { max: MAX_ISSUES }, ctx.signal);
  const epochs = epochsOf(first);
  const issues0 = first.warp_issues || [];
  const recorded = c.run.summary?.warp_issues || 0;
  const epochTotal = epochs.reduce((s, e) => s + [...e.issues.values()].reduce((a, b) => a + b, 0), 0);
  // issues past this cycle were not recorded (the scenario's issue limit)
  let recordedEnd = Infinity;
  if (recorded === 0) recordedEnd = 0;
  else if (!first.truncated && recorded < epochTotal) recordedEnd = issues0.length ? issues0[issues0.length - 1].cycle + 1 : 0;
  // the run's length in cycles: its last issue when every issue is here
  // (an epoch is longer than a 38-cycle run), else its epochs
  let end = 0;
  for (const w of issues0) end = Math.max(end, w.cycle + 1);
  if (first.truncated || recordedEnd !== Infinity) for (const e of epochs) end = Math.max(end, e.cycle + e.cycles);
  if (end <= 0) end = 1;
  // kernels by id, coloured by name as every other view colours them
  const kernelById = new Map(c.kernels.map((k) => [k.id, k]));
  const colors = colorMap(c.kernels.map((k) => k.name));
  const nameOf = (id) => kernelById.get(id)?.name ?? `kernel ${id}`;
  const colorOfId = (id) => colors.get(nameOf(id)) || '#888';
  // lanes: every SM of the device, every sub-core an issue names
  let subs = Math.max(1, c.run.device?.schedulers_per_sm || 1);
  let sms = Math.max(c.run.device?.sms || 0, c.run.summary?.sms || 0, 1);
  for (const w of issues0) {
    if (w.subcore + 1 > subs) subs = w.subcore + 1;
    if (w.sm + 1 > sms) sms = w.sm + 1;
  }
  // folding an SM of one sub-core would change nothing drawn but its label
  const foldable = subs > 1;
  const linkFold = foldable ? foldedFromQuery(route.query, sms) : { set: new Set(), note: null };
  const collapsed = linkFold.set;

  // answers kept per window; a complete answer serves any window inside it
  const answers = [];
  answers.push({ from: 0, to: end, resp: first });
  const complete = (a) => !a.resp.truncated;
  const cached = (w) => answers.find((a) => complete(a) && a.from <= w.c0 && a.to >= w.c1)
    || answers.find((a) => a.from === w.c0 && a.to === w.c1) || null;

  // ---- DOM
  const windowText = h('span', { class: 'window-text', id: 'warp-window-text' });
  const note = h('p', { class: 'muted', id: 'warp-note', 'aria-live': 'polite' });
  const wrap = h('div', { class: 'chart-wrap warp-wrap' });
  const canvas = h('canvas', {
    id: 'warp-canvas', tabindex: '0', role: 'img',
    'aria-label': 'Warp issue slots: cycles left to right, one lane per sub-core. + and − zoom, arrows pan, . and , select the next or previous issue.',
  });
  const tip = h('div', { class: 'tooltip warp-tip', role: 'status', hidden: true });
  wrap.append(canvas, tip);
  const legend = h('ul', { class: 'warp-legend', 'aria-label': 'kernels' });
  const folds = foldControls();
  const host = h('div', { class: 'card' }, wrap, folds.el, legend);
  let win = null;
  const zoomBy = (f, at) => setWindow(zoomed(win, f, at));
  const reset = h('button', { type: 'button', id: 'warp-reset', onclick: () => setWindow({ c0: 0, c1: end }) }, 'Whole run');
  panel.append(h('div', { class: 'toolbar' },
    h('button', { type: 'button', id: 'warp-zoom-in', 'aria-label': 'zoom in', onclick: () => zoomBy(0.5) }, '+'),
    h('button', { type: 'button', id: 'warp-zoom-out', 'aria-label': 'zoom out', onclick: () => zoomBy(2) }, '−'),
    reset, windowText,
    h('span', { class: 'hint' }, 'Issue slots per scheduler, as QAWS Fig. 3 draws them: a cell per issued instruction coloured by kernel, its warp inside; a gap is a cycle with nothing issued (a stall). Click an SM name, or its button under the chart, to fold its sub-cores into one lane.')),
  host, note);

  // ---- window and URL
  function clampWin(w) {
    let { c0, c1 } = w;
    const span = Math.min(Math.max(c1 - c0, 4), Math.max(end, 4));
    if (c0 < 0) c0 = 0;
    c1 = c0 + span;
    if (c1 > Math.max(end, 4)) {
      c1 = Math.max(end, 4);
      c0 = Math.max(0, c1 - span);
    }
    return { c0: Math.floor(c0), c1: Math.ceil(c1) };
  }
  function zoomed(w, f, at = (w.c0 + w.c1) / 2) {
    return clampWin({ c0: at - (at - w.c0) * f, c1: at + (w.c1 - at) * f });
  }
  function writeUrl() {
    const q = parseQuery(location.search);
    const keep = [];
    for (const [k, v] of q) if (!OWN_KEYS.includes(k)) keep.push(`${k}=${v}`);
    const whole = win.c0 === 0 && win.c1 === Math.max(end, 4);
    // (a range list holds only digits, "-" and ",": nothing to encode)
    const fold = collapsed.size ? [`fold=${encodeRanges([...collapsed])}`] : [];
    const parts = ['view=warps', ...keep, ...fold, ...(whole ? [] : [`c0=${win.c0}`, `c1=${win.c1}`])];
    const url = `${location.pathname}?${parts.join('&')}`;
    replaceUrl(url);
    setExtra('warpWindow', { ...win });
  }
  // a link's window outside the run, or not a window, says what is shown
  const raw = (k) => (route.query.has(k) ? queryString(route.query, k) : undefined);
  const asked = linkWindow({ min: 0, max: Math.max(end, 4) }, raw('c0'), raw('c1'), (cy) => `cycle ${formatCount(cy)}`,
    { from: 'c0', to: 'c1', unit: 'whole cycles', what: 'a cycle range' });
  win = clampWin({ c0: asked.from, c1: asked.to });
  const said = [asked.note, linkFold.note].filter(Boolean).join(' ');
  if (said) host.before(linkNote(said, 'link-note'));

  // ---- folding: one toggle button per SM, which a keyboard reaches
  function foldControls() {
    if (!foldable) return { el: null, sync() {} };
    const buttons = [];
    for (let s = 0; s < sms; s++) {
      // the name says what pressing does, aria-pressed whether it is folded
      // (as the legend's kernel toggles); "SM s", the visible text, in it
      buttons.push(h('button', {
        type: 'button', class: 'warp-fold', dataset: { sm: String(s) },
        'aria-label': `fold SM ${s}'s sub-core lanes into one`, onclick: () => toggleFold(s),
      }, h('span', { 'aria-hidden': 'true', class: 'fold-mark' }), `SM ${s}`));
    }
    // the whole device at once: an 80-SM GPU is 80 buttons
    const all = h('button', { type: 'button', class: 'warp-fold-all', id: 'warp-fold-all', onclick: () => foldAll(true) }, 'Fold all');
    const none = h('button', { type: 'button', class: 'warp-fold-all', id: 'warp-unfold-all', onclick: () => foldAll(false) }, 'Unfold all');
    const el = h('div', { class: 'warp-folds', id: 'warp-folds', role: 'group', 'aria-label': `fold an SM's ${subs} sub-core lanes` },
      h('span', { class: 'muted', 'aria-hidden': 'true' }, 'Fold'), all, none, buttons);
    function sync() {
      buttons.forEach((b, s) => {
        const on = collapsed.has(s);
        b.setAttribute('aria-pressed', on ? 'true' : 'false');
        b.title = on ? `SM ${s}: one lane; press to show its ${subs} sub-cores` : `SM ${s}: ${subs} sub-core lanes; press to fold them into one`;
        b.firstChild.textContent = on ? '▸ ' : '▾ ';
      });
      all.disabled = collapsed.size === sms;
      none.disabled = collapsed.size === 0;
    }
    return { el, sync };
  }
  // the one way a fold changes (buttons, canvas click): the set, the
  // buttons' state, the URL, the lanes
  function toggleFold(s) {
    if (!foldable) return;
    if (collapsed.has(s)) collapsed.delete(s);
    else collapsed.add(s);
    refold();
  }
  function foldAll(on) {
    for (let s = 0; s < sms; s++) {
      if (on) collapsed.add(s);
      else collapsed.delete(s);
    }
    refold();
  }
  function refold() {
    folds.sync();
    writeUrl();
    draw(cached(win)?.resp || null);
  }
  folds.sync();

  // ---- drawing
  let model = null;   // what the last draw put where (hover, keyboard)
  let selected = -1;
  function lanesNow() {
    const lanes = [];   // {label, sm, sub (null: folded), y, hgt, head}
    const n = sms * subs;
    const lh = laneHeight(n);
    let y = 4;
    for (let s = 0; s < sms; s++) {
      if (sms > 1 || subs > 1) {
        const mark = !foldable ? '' : collapsed.has(s) ? '▸ ' : '▾ ';
        lanes.push({ head: true, sm: s, label: `${mark}SM ${s}`, y, hgt: GROUP_HEAD });
        y += GROUP_HEAD;
      }
      if (collapsed.has(s)) {
        lanes.push({ sm: s, sub: null, label: `all ${subs} sub-cores`, y, hgt: lh });
        y += lh + 2;
      } else {
        for (let u = 0; u < subs; u++) {
          lanes.push({ sm: s, sub: u, label: subs > 1 || sms > 1 ? `sub-core ${u}` : 'SM 0 · sub-core 0', y, hgt: lh });
          y += lh + 2;
        }
      }
    }
    return { lanes, height: y + 2 };
  }

  function draw(resp) {
    const th = chartTheme();
    const width = Math.max(320, wrap.clientWidth || panel.clientWidth || 900);
    const plotW = width - GUTTER - 12;
    const span = win.c1 - win.c0;
    const x = (cy) => GUTTER + ((cy - win.c0) / span) * plotW;
    const inWin = (resp?.warp_issues || []).filter((w) => w.cycle >= win.c0 && w.cycle < win.c1);
    const epochMode = !resp || resp.truncated || win.c0 >= recordedEnd;
    const { lanes, height: lanesH } = lanesNow();
    const partEpochs = !epochMode && recordedEnd < win.c1;   // the window runs past the recorded issues
    const bodyH = epochMode ? EPOCH_BAND + 8 : lanesH + (partEpochs ? EPOCH_BAND : 0);
    const height = bodyH + AXIS;
    const g = canvasContext(canvas, width, height, th, FONT);
    const cells = {};
    const drawnCells = [];   // {x0, x1, y0, y1, w}
    // grid: one line per tick
    const tk = ticks(win.c0, win.c1, plotW);
    g.strokeStyle = th.grid;
    g.lineWidth = 1;
    for (const t of tk) {
      const px = Math.round(x(t)) + 0.5;
      g.beginPath();
      g.moveTo(px, 0);
      g.lineTo(px, bodyH);
      g.stroke();
    }
    let epochsDrawn = 0;
    if (!epochMode) {
      // lanes
      const laneOf = new Map();
      for (const l of lanes) {
        if (l.head) {
          g.fillStyle = th.ink;
          g.textAlign = 'left';
          g.fillText(l.label, 6, l.y + l.hgt / 2);
          continue;
        }
        g.fillStyle = th.alt;
        g.fillRect(GUTTER, l.y, plotW, l.hgt);
        g.strokeStyle = th.line;
        g.strokeRect(GUTTER + 0.5, l.y + 0.5, plotW - 1, l.hgt - 1);
        g.fillStyle = th.ink;
        g.textAlign = 'right';
        g.fillText(l.label, GUTTER - 8, l.y + l.hgt / 2);
        laneOf.set(l.sub === null ? `${l.sm}:*` : `${l.sm}:${l.sub}`, l);
      }
      const cw = plotW / span;
      // A folded lane holds its SM's sub-cores: the issues of one cycle
      // share its height, a strip each in sub-core order, so that a cycle
      // every sub-core issued in is a full cell and none hides another.
      // part: [strip, strips]
      const inCycle = new Map();
      for (const w of inWin) {
        if (!collapsed.has(w.sm)) continue;
        const k = `${w.sm}:${w.cycle}`;
        const list = inCycle.get(k);
        if (list) list.push(w);
        else inCycle.set(k, [w]);
      }
      const part = new Map();
      for (const list of inCycle.values()) {
        list.sort((a, b) => a.subcore - b.subcore);
        list.forEach((w, i) => part.set(w, [i, list.length]));
      }
      // one path per kernel colour; labels after
      const byKernel = new Map();
      for (const w of inWin) {
        let l = laneOf.get(`${w.sm}:${w.subcore}`) || laneOf.get(`${w.sm}:*`);
        if (!l) continue;
        const p = part.get(w);
        if (p) {
          const hh = (l.hgt - 6) / p[1];
          l = { ...l, y: l.y + p[0] * hh, hgt: hh + 6, strip: true };
        }
        let list = byKernel.get(w.kernel);
        if (!list) byKernel.set(w.kernel, (list = []));
        list.push([w, l]);
      }
      for (const [kid, list] of byKernel) {
        const col = colorOfId(kid);
        g.fillStyle = col;
        g.beginPath();
        for (const [w, l] of list) {
          const x0 = x(w.cycle);
          const wpx = Math.max(1, cw - (cw >= 6 ? 1 : 0));
          // (a strip leaves a pixel to the next: one per issue, visibly)
          g.rect(x0, l.y + 3, wpx, Math.max(1, l.hgt - 6 - (l.strip ? 1 : 0)));
          // (a strip's own height: strips of one cycle touch)
          drawnCells.push({ x0, x1: x0 + Math.max(cw, 1), y0: l.strip ? l.y + 3 : l.y, y1: l.strip ? l.y + l.hgt - 3 : l.y + l.hgt, w });
        }
        g.fill();
        cells[nameOf(kid)] = (cells[nameOf(kid)] || 0) + list.length;
        if (cw >= 18) {
          g.fillStyle = textOn(col);
          g.textAlign = 'center';
          // (a strip of a folded lane too thin for the text goes without)
          for (const [w, l] of list) if (l.hgt - 6 >= 11) g.fillText(`w${w.warp}`, x(w.cycle) + cw / 2, l.y + l.hgt / 2);
        }
      }
      if (partEpochs) epochsDrawn = drawEpochs(g, th, x, lanesH, EPOCH_BAND - 8, Math.max(win.c0, recordedEnd), win.c1);
    } else {
      epochsDrawn = drawEpochs(g, th, x, 4, EPOCH_BAND, win.c0, win.c1);
    }
    // axis
    g.fillStyle = th.ink;
    g.textAlign = 'center';
    g.strokeStyle = th.axis;
    g.beginPath();
    g.moveTo(GUTTER, bodyH + 0.5);
    g.lineTo(GUTTER + plotW, bodyH + 0.5);
    g.stroke();
    for (const t of tk) g.fillText(formatCount(t), x(t), bodyH + 10);
    g.textAlign = 'right';
    g.fillText('cycle', GUTTER - 8, bodyH + 10);
    if (epochMode) {
      g.textAlign = 'right';
      g.fillText('share of', GUTTER - 8, 4 + EPOCH_BAND / 2 - 7);
      g.fillText('issue slots', GUTTER - 8, 4 + EPOCH_BAND / 2 + 7);
    }
    drawnCells.sort((a, b) => a.w.cycle - b.w.cycle || a.y0 - b.y0);
    model = { drawnCells, lanes, x, plotW, span, epochMode };
    setExtra('warpCells', cells);
    // the lanes drawn: none when the window shows epoch shares alone
    setExtra('warpLanes', epochMode ? [] : lanes.filter((l) => !l.head).map((l) => `SM ${l.sm} ${l.label}`));
    setExtra('warpMode', epochMode ? 'epochs' : 'slots');
    setExtra('warpEpochs', epochsDrawn);
    const f = formatCount;
    windowText.textContent = `cycles ${f(win.c0)} – ${f(win.c1)}`;
    if (epochMode && resp?.truncated) note.textContent = `${f(resp.total)} issues in this window, more than ${f(MAX_ISSUES)}: each kernel's share of the issue slots per epoch is shown; zoom in to see the slots.`;
    else if (epochMode || partEpochs) note.textContent = `Issues were recorded up to cycle ${f(recordedEnd)} (the scenario's policy.warp_issue_limit); past it each kernel's share of the issue slots per epoch is shown.`;
    else note.textContent = `${f(inWin.length)} issues in this window.`;
    legend.replaceChildren(...[...colors].map(([name, col]) => h('li', null,
      h('span', { class: 'swatch', style: { background: col } }), name,
      h('span', { class: 'muted' }, ` ${f(cells[name] || 0)}`))));
  }

  // Per epoch, each kernel's issues over the device's issue slots
  // (cycles × sub-cores of every SM), stacked, between cycles lo and hi.
  function drawEpochs(g, th, x, top, hgt, lo, hi) {
    const slots = sms * subs;
    let n = 0;
    g.strokeStyle = th.line;
    g.strokeRect(GUTTER + 0.5, top + 0.5, x(hi) - GUTTER - 1, hgt - 1);
    // the axis runs to the largest share drawn, rounded up to 10 %
    let top1 = 0;
    for (const e of epochs) {
      if (e.cycle + e.cycles <= lo || e.cycle >= hi) continue;
      top1 = Math.max(top1, [...e.issues.values()].reduce((p, q) => p + q, 0) / (e.cycles * slots));
    }
    const full = Math.min(1, Math.max(0.1, Math.ceil(top1 * 10) / 10));
    for (const e of epochs) {
      const a = Math.max(lo, e.cycle);
      const b = Math.min(hi, e.cycle + e.cycles);
      if (b <= a) continue;
      n += 1;
      let y = top + hgt;
      for (const [kid, k] of [...e.issues].sort((p, q) => p[0] - q[0])) {
        const share = Math.min(1, k / (e.cycles * slots)) / full;
        const hh = share * hgt;
        g.fillStyle = colorOfId(kid);
        g.fillRect(x(a), y - hh, Math.max(1, x(b) - x(a)), hh);
        y -= hh;
      }
    }
    g.fillStyle = th.ink;
    g.textAlign = 'left';
    g.fillText(`${Math.round(full * 100)} %`, GUTTER + 4, top + 8);
    return n;
  }

  // ---- data for a window, then draw
  let seq = 0;
  async function setWindow(w) {
    win = clampWin(w);
    writeUrl();
    const mine = ++seq;
    const hit = cached(win);
    if (hit) {
      draw(hit.resp);
      return;
    }
    setBusy();
    draw(null);   // epochs at once while the window's issues come
    try {
      const resp = await api.warps(c.run.run, { from: win.c0, to: win.c1, max: MAX_ISSUES }, ctx.signal);
      answers.push({ from: win.c0, to: win.c1, resp });
      if (answers.length > 32) answers.splice(1, 1);
      if (mine === seq) draw(resp);
    } finally {
      if (mine === seq) setReady();
    }
  }
  setExtra('warpZoom', (f) => setWindow(zoomed(win, f)));

  // ---- interaction
  const showTip = (cell, px, py) => {
    if (!cell) {
      tip.hidden = true;
      setExtra('warpTip', null);
      return;
    }
    const w = cell.w;
    const lines = [`warp ${w.warp} · ${nameOf(w.kernel)}`, `cycle ${formatCount(w.cycle)}`, `SM ${w.sm} · sub-core ${w.subcore}`];
    tip.replaceChildren(...lines.map((t, i) => h(i ? 'div' : 'strong', null, t)));
    tip.hidden = false;
    tip.style.left = `${Math.min(px + 12, (wrap.clientWidth || 900) - 200)}px`;
    tip.style.top = `${py + 12}px`;
    setExtra('warpTip', lines);
  };
  const cellAt = (px, py) => model && model.drawnCells.find((d) => px >= d.x0 && px < d.x1 && py >= d.y0 && py < d.y1);
  canvas.addEventListener('mousemove', (ev) => {
    if (drag) {
      const dc = ((ev.offsetX - drag.x) / model.plotW) * (drag.win.c1 - drag.win.c0);
      win = clampWin({ c0: drag.win.c0 - dc, c1: drag.win.c1 - dc });
      drag.moved = true;
      draw(cached(win)?.resp || null);
      return;
    }
    showTip(cellAt(ev.offsetX, ev.offsetY), ev.offsetX, ev.offsetY);
  });
  canvas.addEventListener('mouseleave', () => showTip(null));
  let drag = null;
  canvas.addEventListener('mousedown', (ev) => {
    drag = { x: ev.offsetX, win: { ...win }, moved: false };
  });
  window.addEventListener('mouseup', function up(ev) {
    if (!canvas.isConnected) {
      window.removeEventListener('mouseup', up);
      return;
    }
    if (!drag) return;
    const d = drag;
    drag = null;
    if (d.moved) setWindow(win);
    else if (ev.target === canvas) {
      // a click on an SM's name folds or unfolds its sub-cores (drawn
      // only with the lanes: the epoch chart has none)
      const l = model && !model.epochMode && model.lanes.find((x) => x.head && ev.offsetX < GUTTER && ev.offsetY >= x.y && ev.offsetY < x.y + x.hgt);
      if (l) toggleFold(l.sm);
    }
  });
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const at = model ? win.c0 + ((ev.offsetX - GUTTER) / model.plotW) * (win.c1 - win.c0) : undefined;
    setWindow(zoomed(win, ev.deltaY < 0 ? 0.8 : 1.25, at));
  }, { passive: false });
  canvas.addEventListener('keydown', (ev) => {
    const span = win.c1 - win.c0;
    if (ev.key === '+' || ev.key === '=') zoomBy(0.5);
    else if (ev.key === '-' || ev.key === '−') zoomBy(2);
    else if (ev.key === 'ArrowLeft') setWindow({ c0: win.c0 - span / 5, c1: win.c1 - span / 5 });
    else if (ev.key === 'ArrowRight') setWindow({ c0: win.c0 + span / 5, c1: win.c1 + span / 5 });
    else if (ev.key === 'Home') setWindow({ c0: 0, c1: end });
    else if ((ev.key === '.' || ev.key === ',') && model && model.drawnCells.length) {
      const n = model.drawnCells.length;
      selected = ev.key === '.' ? (selected + 1) % n : (selected - 1 + n) % n;
      const d = model.drawnCells[selected];
      showTip(d, d.x0, d.y0 + 8);
    } else return;
    ev.preventDefault();
  });
  const ro = new ResizeObserver(() => draw(cached(win)?.resp || null));
  ro.observe(wrap);

  const hit = cached(win);
  if (hit) {
    writeUrl();
    draw(hit.resp);
  } else {
    await setWindow(win);
  }
  return { cleanup: () => ro.disconnect() };
}
