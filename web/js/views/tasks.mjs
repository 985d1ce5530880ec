// views/tasks.mjs -- "/runs/{run}?view=tasks&from=&to=": a run with
// real-time tasks (GCAPS, ECRTS 2024) drawn per task, not per job.
//
// Lanes: one per task, top down in the scenario's order (meta "tasks"). A
// job is drawn from its release: its CPU time (from when it first ran to
// its GPU segment's launch, and from the segment's end to the job's end)
// as a light bar, its GPU segment (the job's kernel, first block to end)
// in the task's colour, and the wait between the launch and the first
// block (the GPU lock under GCAPS, the runlist and time slices of the
// default driver, §3) shaded with hatching; releases are ticks above the
// lane, deadlines ticks below it, red where the job finished after its
// deadline. One colour and one legend entry per task (the jobs' kernels
// are named "task#job"). Zoom and pan as on the timeline (wheel or +/−,
// drag or ←/→, Home), the window in the URL (from, to, ns).
//
// Response times: per task the maximum observed response time (MORT, as
// the paper's Table 5), the mean, each job's response (the distribution,
// end − release) and each analysis's bound (POST /api/rta on the
// experiment's scenario, §6), a bound the MORT exceeds marked.
//
// window.schedlab hooks: taskLanes (task names top down), taskDrawn {task:
// {jobs, gpu, waits, releases, deadlines, misses}} in the window,
// taskWindow {from, to}, taskStats [{task, jobs, mort, mean, min, misses,
// bounds: {analysis: ns|null}, exceeded: [analyses the MORT is above],
// violated: the run's own analysis among them}], taskZoom(f), taskTip.

import { h, table, linkNote } from '../dom.mjs';
import { api } from '../api.mjs';
import { formatNs, formatCount, timeFormat, formatTick, axisUnit } from '../format.mjs';
import { colorMap, chartTheme } from '../colors.mjs';
import { canvasContext } from '../canvas.mjs';
import { parseQuery, queryString, replaceUrl } from '../router.mjs';
import { setExtra } from '../state.mjs';
import { linkWindow } from '../charts/window.mjs';

const GUTTER = 150;
const AXIS = 30;
const LANE = 40;
const FONT = '600 11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const MISS = '#d92d20';
// the analyses of docs/rta.md, in the paper's order, with a reader's name
export const ANALYSES = [
  ['tsg_rr_busy', 'TSG time slicing, busy-wait'],
  ['tsg_rr_suspend', 'TSG time slicing, suspend'],
  ['gcaps_busy', 'GCAPS, busy-wait'],
  ['gcaps_suspend', 'GCAPS, suspend'],
  ['gcaps_busy_gprio', 'GCAPS + GPU priorities, busy-wait'],
  ['gcaps_suspend_gprio', 'GCAPS + GPU priorities, suspend'],
  ['fmlp_busy', 'FMLP+ GPU lock, busy-wait'],
  ['fmlp_suspend', 'FMLP+ GPU lock, suspend'],
  ['mpcp_busy', 'MPCP GPU lock, busy-wait'],
  ['mpcp_suspend', 'MPCP GPU lock, suspend'],
];
// One colour per analysis, by name (a run's chart shows only the analyses
// with bounds, so a colour must not follow the position): ten, none of them
// the red of a bound exceeded (MISS). A bound is drawn as a short line
// (Chart.js's 'line' point style, which draws no dashes), so its colour is
// all that tells one analysis's bound from another's.
export const BOUND_COLORS = {
  tsg_rr_busy: '#1d4ed8', tsg_rr_suspend: '#047857', gcaps_busy: '#7c3aed', gcaps_suspend: '#b45309',
  gcaps_busy_gprio: '#0e7490', gcaps_suspend_gprio: '#be185d', fmlp_busy: '#65a30d', fmlp_suspend: '#c026d3',
  mpcp_busy: '#ca8a04', mpcp_suspend: '#78716c',
};
export const DASH_NOTE = '— : no bound. Either the analysis cannot bound the task (its response-time iteration passed the deadline, and every task analysed after it then has none either: GCAPS §6), or the task is best-effort (not analysed), or the run has no analysis (the shared driver, an imported trace).';

export function hasTasks(c) {
  return (c.run.summary?.jobs || 0) > 0;
}

// The task names in the scenario's order, then any other a job names.
export function taskNames(run, jobs) {
  const out = (run.meta?.tasks || '').split(',').filter(Boolean);
  for (const j of jobs) if (!out.includes(j.task)) out.push(j.task);
  return out;
}

// The analysis a run was simulated under (docs/api.md, compare's bound):
// the contexts time-slice -> tsg_rr_*, gcaps -> gcaps_*, the GPU locks
// fmlp+ -> fmlp_*, mpcp -> mpcp_* (GCAPS §7.1's baselines), with its gpu_wait.
export function runAnalysis(run) {
  const m = run.meta || {};
  const wait = m.gpu_wait === 'busy' ? 'busy' : 'suspend';
  if (m.contexts === 'time-slice') return `tsg_rr_${wait}`;
  if (m.contexts === 'gcaps') return `gcaps_${wait}`;
  if (m.contexts === 'fmlp+') return `fmlp_${wait}`;
  if (m.contexts === 'mpcp') return `mpcp_${wait}`;
  return null;
}

// Per task: jobs, misses, min, mean, MORT, each job's response.
export function taskStats(names, jobs) {
  const by = new Map(names.map((n) => [n, { task: n, jobs: 0, misses: 0, min: null, max: null, sum: 0, responses: [] }]));
  for (const j of jobs) {
    const s = by.get(j.task);
    if (!s || j.end === null || j.end === undefined) continue;
    const r = j.end - j.release;
    s.jobs += 1;
    s.sum += r;
    s.responses.push(r);
    if (s.min === null || r < s.min) s.min = r;
    if (s.max === null || r > s.max) s.max = r;
    if (j.deadline !== null && j.deadline !== undefined && j.end > j.deadline) s.misses += 1;
  }
  return names.map((n) => {
    const s = by.get(n);
    return { ...s, mean: s.jobs ? s.sum / s.jobs : null, mort: s.max };
  });
}

// The bounds of every analysis for every task: {bounds: {analysis: {task:
// ns|null}}} (POST /api/rta with the experiment's scenario); bounds {} when
// it has none, with `why` when the server could not give them (its message).
async function boundsOf(c, signal) {
  if (!c.run.experiment || c.run.source !== 'simulation') return { bounds: {} };
  try {
    const e = await api.experiment(c.run.experiment, signal);
    const sc = typeof e.scenario === 'string' ? JSON.parse(e.scenario) : e.scenario;
    if (!sc || !Array.isArray(sc.tasks)) return { bounds: {} };
    // the page asks on its own: a server that wants a token for it shows no bounds, never a prompt
    const j = await api.rta(JSON.stringify(sc), signal, { ask: false });
    const out = {};
    for (const [a, v] of Object.entries(j.analyses || {})) {
      out[a] = {};
      for (const [t, x] of Object.entries(v.tasks || {})) out[a][t] = x.wcrt ?? null;
    }
    return { bounds: out };
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    return { bounds: {}, why: e.message };
  }
}

export async function tasksTab(panel, c, route, ctx) {
  const [jr, { bounds, why: noBounds }] = await Promise.all([api.jobs(c.run.run, ctx.signal), boundsOf(c, ctx.signal)]);
  const jobs = jr.jobs || [];
  const names = taskNames(c.run, jobs);
  const colors = colorMap(names);
  const mine = runAnalysis(c.run);
  // each job's kernels (named "task#job", process = task)
  const kernelsOf = new Map();
  for (const k of c.kernels) {
    const m = /^(.*)#(\d+)$/.exec(k.name);
    if (!m) continue;
    const key = `${k.process ?? m[1]}#${m[2]}`;
    if (!kernelsOf.has(key)) kernelsOf.set(key, []);
    kernelsOf.get(key).push(k);
  }
  let end = 0;
  for (const j of jobs) end = Math.max(end, j.end ?? 0, j.deadline ?? 0);
  if (end <= 0) end = 1;
  const stats = taskStats(names, jobs);
  const analyses = ANALYSES.filter(([a]) => bounds[a]);
  for (const s of stats) {
    s.bounds = Object.fromEntries(analyses.map(([a]) => [a, bounds[a][s.task] ?? null]));
    s.exceeded = analyses.filter(([a]) => s.bounds[a] !== null && s.mort !== null && s.mort > s.bounds[a]).map(([a]) => a);
    // the bound of the analysis this run was simulated under, exceeded: the
    // model and the analysis disagree (the others only say the run's policy
    // is not the one they analyse)
    s.violated = mine !== null && s.exceeded.includes(mine);
  }

  // ---- lanes
  const windowText = h('span', { class: 'window-text', id: 'task-window-text' });
  const wrap = h('div', { class: 'chart-wrap' });
  const canvas = h('canvas', { id: 'task-canvas', tabindex: '0', role: 'img', 'aria-label': 'Jobs of each real-time task over time: + and − zoom, arrows pan, . and , select the next or previous job.' });
  const tip = h('div', { class: 'tooltip', role: 'status', hidden: true });
  wrap.append(canvas, tip);
  const legend = h('ul', { class: 'plain-legend', id: 'task-legend', 'aria-label': 'tasks' },
    names.map((n) => h('li', null, h('span', { class: 'swatch', style: { background: colors.get(n) } }), n)),
    h('li', null, h('span', { class: 'swatch hatch' }), 'waiting for the GPU'),
    h('li', null, h('span', { class: 'swatch', style: { background: 'var(--chart-ce)' } }), 'on the CPU'),
    h('li', null, '▾ release · ▴ deadline'));
  let win = null;
  const clampWin = (w) => {
    let span = Math.min(Math.max(w.to - w.from, 1000), end);
    let from = Math.max(0, w.from);
    if (from + span > end) from = Math.max(0, end - span);
    span = Math.min(span, end - from);
    return { from: Math.floor(from), to: Math.ceil(from + span) };
  };
  // a link's window outside the run, or not a window, says what is shown
  const raw = (k) => (route.query.has(k) ? queryString(route.query, k) : undefined);
  const asked = linkWindow({ min: 0, max: end }, raw('from'), raw('to'), formatNs);
  win = clampWin(asked);
  const zoomed = (f, at = (win.from + win.to) / 2) => clampWin({ from: at - (at - win.from) * f, to: at + (win.to - at) * f });
  if (asked.note) panel.append(linkNote(asked.note, 'link-note'));
  panel.append(h('section', { class: 'card', id: 'task-lanes' },
    h('h2', null, 'Jobs per task'),
    h('div', { class: 'toolbar' },
      h('button', { type: 'button', id: 'task-zoom-in', 'aria-label': 'zoom in', onclick: () => setWindow(zoomed(0.5)) }, '+'),
      h('button', { type: 'button', id: 'task-zoom-out', 'aria-label': 'zoom out', onclick: () => setWindow(zoomed(2)) }, '−'),
      h('button', { type: 'button', onclick: () => setWindow({ from: 0, to: end }) }, 'Whole run'), windowText),
    h('p', { class: 'hint' }, 'One lane per task. A job: its CPU time light, its GPU segment in the task\'s colour, the wait for the GPU hatched (GCAPS\' lock, or the runlist and time slices of the default driver); releases above the lane, deadlines below, red where the job missed it.'),
    wrap, legend));
  let model = null;
  let selected = -1;
  function draw() {
    const th = chartTheme();
    const width = Math.max(320, wrap.clientWidth || 900);
    const plotW = width - GUTTER - 12;
    const height = names.length * LANE + 8 + AXIS;
    const g = canvasContext(canvas, width, height, th, FONT);
    const span = win.to - win.from;
    const x = (t) => GUTTER + ((t - win.from) / span) * plotW;
    const clip = (t) => Math.max(GUTTER, Math.min(GUTTER + plotW, x(t)));
    const drawn = {};
    const hits = [];
    const hatch = g.createPattern(hatchTile(th.ink), 'repeat');
    names.forEach((n, i) => {
      const y = 4 + i * LANE;
      g.fillStyle = th.alt;
      g.fillRect(GUTTER, y, plotW, LANE - 4);
      g.fillStyle = th.ink;
      g.textAlign = 'right';
      g.fillText(n.length > 20 ? `${n.slice(0, 19)}…` : n, GUTTER - 8, y + (LANE - 4) / 2);
      drawn[n] = { jobs: 0, gpu: 0, waits: 0, releases: 0, deadlines: 0, misses: 0 };
    });
    const laneOf = new Map(names.map((n, i) => [n, 4 + i * LANE]));
    const ticks = jobs.length <= 4000 || span < end / 4;   // ticks stay readable
    for (const j of jobs) {
      const y = laneOf.get(j.task);
      if (y === undefined) continue;
      const jEnd = j.end ?? win.to;
      const last = Math.max(jEnd, j.deadline ?? 0);
      if (last < win.from || j.release > win.to) continue;
      const d = drawn[j.task];
      const col = colors.get(j.task);
      const barY = y + 9;
      const barH = LANE - 22;
      if (j.end !== null && j.end >= win.from && j.release <= win.to) {
        d.jobs += 1;
        // CPU time: the job from when it first ran to its end, under its GPU parts
        g.fillStyle = th.ce;
        g.fillRect(clip(j.start ?? j.release), barY + barH * 0.25, Math.max(1, clip(jEnd) - clip(j.start ?? j.release)), barH * 0.5);
        for (const k of kernelsOf.get(`${j.task}#${j.job}`) || []) {
          const fb = k.first_block ?? k.issue;
          if (k.issue !== null && fb !== null && fb > k.issue) {
            g.fillStyle = hatch;
            g.fillRect(clip(k.issue), barY, Math.max(1, clip(fb) - clip(k.issue)), barH);
            d.waits += 1;
          }
          if (fb !== null && k.end !== null) {
            g.fillStyle = col;
            g.fillRect(clip(fb), barY, Math.max(1, clip(k.end) - clip(fb)), barH);
            d.gpu += 1;
          }
        }
        hits.push({ j, x0: clip(j.release), x1: Math.max(clip(jEnd), clip(j.release) + 2), y0: y, y1: y + LANE - 4 });
      }
      const missed = j.deadline !== null && j.deadline !== undefined && j.end !== null && j.end > j.deadline;
      if (missed) d.misses += 1;
      if (!ticks) continue;
      if (j.release >= win.from && j.release <= win.to) {
        g.fillStyle = th.mark;
        tri(g, x(j.release), y + 1, 4, true);
        d.releases += 1;
      }
      if (j.deadline !== null && j.deadline >= win.from && j.deadline <= win.to) {
        g.fillStyle = missed ? MISS : th.axis;
        tri(g, x(j.deadline), y + LANE - 5, 4, false);
        d.deadlines += 1;
      }
    }
    // axis
    const unit = axisUnit(span);
    const step = niceStep(span / Math.max(1, plotW / 110));
    g.strokeStyle = th.axis;
    g.beginPath();
    g.moveTo(GUTTER, height - AXIS + 0.5);
    g.lineTo(GUTTER + plotW, height - AXIS + 0.5);
    g.stroke();
    g.fillStyle = th.ink;
    g.textAlign = 'center';
    for (let t = Math.ceil(win.from / step) * step; t <= win.to; t += step) g.fillText(formatTick(t, unit, step), x(t), height - AXIS + 12);
    model = { hits, plotW };
    const f = timeFormat(span).format;
    windowText.textContent = `${f(win.from)} – ${f(win.to)}`;
    setExtra('taskLanes', [...names]);
    setExtra('taskDrawn', drawn);
    setExtra('taskWindow', { ...win });
  }
  function setWindow(w) {
    win = clampWin(w);
    const q = parseQuery(location.search);
    const keep = [];
    for (const [k, v] of q) if (!['from', 'to', 'view'].includes(k)) keep.push(`${k}=${v}`);
    const whole = win.from === 0 && win.to === end;
    const url = `${location.pathname}?${['view=tasks', ...keep, ...(whole ? [] : [`from=${win.from}`, `to=${win.to}`])].join('&')}`;
    replaceUrl(url);
    draw();
    return Promise.resolve();
  }
  setExtra('taskZoom', (f) => setWindow(zoomed(f)));
  const showTip = (hit, px, py) => {
    if (!hit) {
      tip.hidden = true;
      setExtra('taskTip', null);
      return;
    }
    const j = hit.j;
    const lines = [`${j.task} job ${j.job}`, `released ${formatNs(j.release)}`, `response ${formatNs(j.end - j.release)}`,
      `deadline ${formatNs(j.deadline)}${j.end > j.deadline ? ' — missed' : ''}`];
    tip.replaceChildren(...lines.map((t, i) => h(i ? 'div' : 'strong', null, t)));
    tip.hidden = false;
    tip.style.left = `${Math.min(px + 12, (wrap.clientWidth || 900) - 220)}px`;
    tip.style.top = `${py + 12}px`;
    setExtra('taskTip', lines);
  };
  let drag = null;
  canvas.addEventListener('mousemove', (ev) => {
    if (drag) {
      const dt = ((ev.offsetX - drag.x) / model.plotW) * (drag.win.to - drag.win.from);
      setWindow({ from: drag.win.from - dt, to: drag.win.to - dt });
      return;
    }
    const hit = model?.hits.find((d) => ev.offsetX >= d.x0 && ev.offsetX <= d.x1 && ev.offsetY >= d.y0 && ev.offsetY < d.y1);
    showTip(hit, ev.offsetX, ev.offsetY);
  });
  canvas.addEventListener('mouseleave', () => showTip(null));
  canvas.addEventListener('mousedown', (ev) => { drag = { x: ev.offsetX, win: { ...win } }; });
  window.addEventListener('mouseup', function up() {
    if (!canvas.isConnected) window.removeEventListener('mouseup', up);
    drag = null;
  });
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const at = win.from + ((ev.offsetX - GUTTER) / model.plotW) * (win.to - win.from);
    setWindow(zoomed(ev.deltaY < 0 ? 0.8 : 1.25, at));
  }, { passive: false });
  canvas.addEventListener('keydown', (ev) => {
    const span = win.to - win.from;
    if (ev.key === '+' || ev.key === '=') setWindow(zoomed(0.5));
    else if (ev.key === '-') setWindow(zoomed(2));
    else if (ev.key === 'ArrowLeft') setWindow({ from: win.from - span / 5, to: win.to - span / 5 });
    else if (ev.key === 'ArrowRight') setWindow({ from: win.from + span / 5, to: win.to + span / 5 });
    else if (ev.key === 'Home') setWindow({ from: 0, to: end });
    else if ((ev.key === '.' || ev.key === ',') && model?.hits.length) {
      const n = model.hits.length;
      selected = ev.key === '.' ? (selected + 1) % n : (selected - 1 + n) % n;
      const d = model.hits[selected];
      showTip(d, d.x0, d.y0 + 10);
    } else return;
    ev.preventDefault();
  });
  const ro = new ResizeObserver(() => draw());
  ro.observe(wrap);

  // ---- response times against the bounds
  const rcard = h('section', { class: 'card', id: 'task-responses' }, h('h2', null, 'Response times against the analysis bounds'),
    h('p', { class: 'muted' }, `Per task: every job's response time (end − release, dots), the mean, the maximum observed (MORT, GCAPS Table 5), and each analysis's bound (§6)${mine ? `; this run was simulated under ${ANALYSES.find(([a]) => a === mine)?.[1] || mine}, its bound drawn bold` : ''}. A bound of this run's analysis that the MORT exceeds is marked ✕ in red; ↑ marks the other analyses' bounds the MORT is above (they analyse another policy).`));
  panel.append(rcard);
  const chart = responseChart(rcard, stats, analyses, mine, colors);
  const cols = [
    { label: 'Task', cell: (s) => h('span', { class: 'strong' }, s.task) },
    { label: 'Jobs', num: true, cell: (s) => formatCount(s.jobs) },
    { label: 'Misses', num: true, cell: (s) => (s.misses ? h('span', { class: 'missed' }, String(s.misses)) : '0') },
    { label: 'Min', num: true, cell: (s) => formatNs(s.min) },
    { label: 'Mean', num: true, cell: (s) => formatNs(s.mean === null ? null : Math.round(s.mean)) },
    { label: 'MORT', num: true, cell: (s) => h('strong', null, formatNs(s.mort)) },
    ...analyses.map(([a, label]) => ({
      label: h('abbr', { title: label }, a === mine ? `${a} (this run)` : a), num: true,
      cell: (s) => {
        const b = s.bounds[a];
        if (b === null) return h('span', { title: 'no bound: see the note under the table' }, '—');
        if (!s.exceeded.includes(a)) return formatNs(b);
        return a === mine ? h('span', { class: 'missed', title: 'the MORT exceeds the bound of the analysis this run was simulated under' }, `${formatNs(b)} ✕`)
          : h('span', { class: 'muted', title: 'the MORT is above this bound: this run was not simulated under this analysis' }, `${formatNs(b)} ↑`);
      },
    })),
  ];
  rcard.append(tableWithNodes(cols, stats), h('p', { class: 'muted', id: 'bound-note' }, DASH_NOTE));
  // the analyses could not be asked: say why rather than show no column
  if (noBounds) rcard.append(h('p', { class: 'error', id: 'bound-refused' }, `No analysis bounds: ${noBounds}`));
  setExtra('taskBoundsRefused', noBounds ?? null);
  setExtra('taskStats', stats.map((s) => ({ task: s.task, jobs: s.jobs, mort: s.mort, mean: s.mean, min: s.min, misses: s.misses, bounds: s.bounds, exceeded: s.exceeded, violated: s.violated })));
  setWindow(win);
  return { cleanup: () => { ro.disconnect(); chart.destroy(); } };
}

// dom.mjs's table takes text labels; these carry an <abbr>.
function tableWithNodes(columns, rows) {
  return h('div', { class: 'table-wrap', tabindex: '0' }, h('table', { id: 'task-table', class: 'list dense' },
    h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null }, c.label)))),
    h('tbody', null, rows.map((r) => h('tr', null, columns.map((c) => h('td', { class: c.num ? 'num' : null }, c.cell(r))))))));
}

function tri(g, x, y, r, down) {
  g.beginPath();
  if (down) {
    g.moveTo(x - r, y);
    g.lineTo(x + r, y);
    g.lineTo(x, y + r * 1.6);
  } else {
    g.moveTo(x - r, y);
    g.lineTo(x + r, y);
    g.lineTo(x, y - r * 1.6);
  }
  g.fill();
}

function hatchTile(ink) {
  const t = document.createElement('canvas');
  t.width = 6;
  t.height = 6;
  const g = t.getContext('2d');
  g.strokeStyle = ink;
  g.globalAlpha = 0.55;
  g.beginPath();
  g.moveTo(0, 6);
  g.lineTo(6, 0);
  g.stroke();
  return t;
}

// The response charts' scales (this tab's and the compare page's,
// tasks_compare.mjs): one slot per task on x, labelled with its name,
// response time in ms from 0 on y.
export function taskScales(names) {
  return {
    x: { type: 'linear', min: -0.5, max: names.length - 0.5, afterBuildTicks: (ax) => { ax.ticks = names.map((_, i) => ({ value: i })); },
      ticks: { autoSkip: false, callback: (v) => names[Math.round(v)] ?? '' }, grid: { display: false } },
    y: { min: 0, title: { display: true, text: 'response time (ms)' } },
  };
}

function niceStep(raw) {
  const p = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || p * 10;
}

// A scatter per task (x = task index): the jobs' responses (dots, spread
// across the slot by a fixed pattern), mean and MORT markers, and a short
// horizontal mark per analysis's bound.
export function responseChart(host, stats, analyses, mine, colors) {
  const Chart = window.Chart;
  const canvas = h('canvas', { role: 'img', 'aria-label': 'response times per task against the analysis bounds' });
  host.append(h('div', { class: 'chart-wrap', style: { height: '380px' } }, canvas));
  const ms = (ns) => ns / 1e6;
  const datasets = [];
  const jitter = (k) => (((k * 2654435761) >>> 0) % 1000) / 1000 * 0.5 - 0.25;
  datasets.push({
    label: 'job response', data: stats.flatMap((s, i) => s.responses.map((r, k) => ({ x: i + jitter(k), y: ms(r) }))),
    backgroundColor: stats.flatMap((s) => s.responses.map(() => `${colors.get(s.task)}80`)), pointRadius: 1.5, showLine: false,
  });
  // the mean and the MORT in the theme's ink and mark colours (app.css),
  // resolved at each draw: fixed near-blacks vanished on the dark theme
  datasets.push({ label: 'mean', data: stats.map((s, i) => ({ x: i, y: s.mean === null ? null : ms(s.mean) })), pointStyle: 'rectRot', pointRadius: 6, backgroundColor: () => chartTheme().ink, showLine: false });
  datasets.push({ label: 'MORT', data: stats.map((s, i) => ({ x: i, y: s.mort === null ? null : ms(s.mort) })), pointStyle: 'triangle', pointRadius: 7, backgroundColor: () => chartTheme().mark, showLine: false });
  analyses.forEach(([a, label], ai) => {
    const col = BOUND_COLORS[a] || '#6b7280';
    datasets.push({
      label: `bound: ${label}`, bound: a, showLine: false, pointStyle: 'line', pointRadius: 16, pointBorderWidth: a === mine ? 4 : 2,
      borderColor: stats.map((s) => (a === mine && s.violated ? MISS : col)), backgroundColor: col,
      data: stats.map((s, i) => ({ x: i + (ai - (analyses.length - 1) / 2) * 0.06, y: s.bounds[a] === null ? null : ms(s.bounds[a]) })),
    });
  });
  datasets.push({ label: 'bound exceeded', showLine: false, pointStyle: 'crossRot', pointRadius: 8, borderColor: MISS, backgroundColor: MISS, borderWidth: 3,
    data: stats.flatMap((s, i) => (s.violated ? [{ x: i + 0.3, y: ms(s.mort) }] : [])) });
  const chart = new Chart(canvas, {
    type: 'scatter',
    data: { datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: taskScales(stats.map((s) => s.task)),
      plugins: {
        legend: {
          position: 'top',
          labels: {
            usePointStyle: true,
            // Chart.js draws a key in its dataset's first point's colour: a
            // bound's key is its analysis's colour even where the first
            // task's bound is exceeded (drawn red, as "bound exceeded" is)
            generateLabels: (ch) => Chart.defaults.plugins.legend.labels.generateLabels(ch).map((it) => {
              const ds = ch.data.datasets[it.datasetIndex];
              return ds && ds.bound ? { ...it, strokeStyle: BOUND_COLORS[ds.bound] || ds.backgroundColor, fillStyle: BOUND_COLORS[ds.bound] || ds.backgroundColor } : it;
            }),
          },
        },
      },
    },
  });
  return chart;
}
