// views/compare.mjs -- "/compare?runs=a,b[,…]": per-kernel response times
// of several runs side by side (GET /api/compare), as grouped bars and as a
// table with the difference to the first run. When the runs are a replay
// (POST /api/runs/{run}/replay: the hardware run first, then its simulated
// runs, each with a fidelity report), the page opens on the replay: the
// measured and simulated kernels on one time axis with the differing ones
// highlighted, the fidelity figures against their targets, the kernels that
// differ most linked to both timelines, and a choice to replay under another
// policy or device, which adds runs to this comparison.

import { api } from '../api.mjs';
import { h, table, errorBox } from '../dom.mjs';
import { formatNs } from '../format.mjs';
import { queryList, navigate } from '../router.mjs';
import { colorAt } from '../colors.mjs';
import { createCompareChart, createAlignedTimelines } from '../charts/compare.mjs';

const CHART_KERNELS = 80;     // more bars than this are unreadable
const TABLE_ROWS = 5000;

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

export async function renderCompare(root, route, ctx) {
  const ids = queryList(route.query, 'runs') || [];
  root.append(h('nav', { class: 'crumbs', 'aria-label': 'breadcrumb' }, h('a', { href: '/' }, 'Experiments'), ' / '),
    h('div', { class: 'page-head' }, h('h1', null, 'Compare runs')));
  if (ids.length < 2) {
    root.append(errorBox('Name at least two runs to compare, as in /compare?runs=RUN_A,RUN_B.'));
    return { view: 'compare', cleanup: null };
  }
  const data = await api.compare(ids, ctx.signal);
  const runs = data.runs || [];
  const kernels = data.kernels || [];
  document.title = `Compare ${runs.map((r) => r.name).join(' vs ')} · schedlab`;
  root.querySelector('.page-head').append(h('p', { class: 'lead' },
    runs.map((r, i) => [i ? ' vs ' : null, h('span', { class: 'swatch', style: { background: colorAt(i) } }),
      h('a', { href: `/runs/${encodeURIComponent(r.run)}` }, r.name || r.run), h('span', { class: 'muted' }, ` (${r.source})`)])));

  const replay = await replaySection(root, runs, ids, ctx);

  const tasks = data.tasks || [];
  if (tasks.length) {
    // Real-time tasks first (their kernels, one per job, can be thousands).
    // Per task and run: the maximum observed response time (MORT, as the
    // GCAPS paper's Table 5 reports it), the mean, and the response-time
    // analysis bound of that run's approach when the run has one.
    const cols = [{ label: 'Task', cell: (t) => h('span', { class: 'strong' }, String(t.task ?? t.name ?? '—')) }];
    const at = (a, i) => (Array.isArray(a) ? a[i] ?? null : null);
    const anyBound = tasks.some((t) => Array.isArray(t.bound) && t.bound.some((v) => v !== null));
    const anyMiss = tasks.some((t) => Array.isArray(t.deadline_misses) && t.deadline_misses.some((v) => v > 0));
    runs.forEach((run, i) => {
      cols.push({ label: `${run.name} MORT`, num: true, cell: (t) => formatNs(at(t.max_response, i)) });
      cols.push({ label: `${run.name} mean`, num: true, cell: (t) => formatNs(at(t.mean_response, i) === null ? null : Math.round(at(t.mean_response, i))) });
      if (anyBound) cols.push({ label: `${run.name} bound`, num: true, cell: (t) => formatNs(at(t.bound, i)) });
      if (anyMiss) cols.push({ label: `${run.name} misses`, num: true, cell: (t) => String(at(t.deadline_misses, i) ?? '—') });
    });
    root.append(h('section', { class: 'card' }, h('h2', null, 'Task response times'), table(cols, tasks, { id: 'compare-tasks', class: 'list dense' })));
  }
  let chart = null;
  if (!kernels.length) {
    root.append(h('p', { class: 'empty' }, 'These runs have no kernels to compare.'));
  } else {
    const labels = labelsFor(kernels);
    const shown = kernels.slice(0, CHART_KERNELS);
    const host = h('section', { class: 'card', id: 'compare-chart' });
    root.append(host);
    chart = createCompareChart(host, {
      labels: labels.slice(0, CHART_KERNELS),
      runs,
      values: runs.map((_, i) => shown.map((k) => (k.response ? k.response[i] ?? null : null))),
    });
    if (kernels.length > CHART_KERNELS) {
      host.append(h('p', { class: 'muted' }, `The chart shows the first ${CHART_KERNELS} of ${kernels.length} kernels; the table has them all.`));
    }
    const rows = kernels.slice(0, TABLE_ROWS).map((k, i) => ({ k, label: labels[i] }));
    const cols = [
      { label: 'Kernel', cell: (r) => h('span', { class: 'strong' }, r.label) },
      { label: 'Stream', cell: (r) => r.k.stream ?? '—' },
    ];
    runs.forEach((run, i) => {
      cols.push({ label: `${run.name} response`, num: true, cell: (r) => formatNs(r.k.response ? r.k.response[i] : null) });
      if (i > 0) cols.push({ label: `Δ vs ${runs[0].name}`, num: true, cell: (r) => delta(r.k.response?.[i], r.k.response?.[0]) });
    });
    root.append(h('section', { class: 'card' }, h('h2', null, 'Kernel response times'), table(cols, rows, { id: 'compare-table', class: 'list dense' })));
  }

  const cleanups = [chart, replay].filter(Boolean);
  return { view: 'compare', cleanup: cleanups.length ? () => cleanups.forEach((c) => c.destroy()) : null };
}

const pct = (v, digits = 2) => (typeof v === 'number' ? `${(v * 100).toFixed(digits)} %` : '—');
const signedPct = (v) => (typeof v === 'number' ? `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v * 100).toFixed(3)} %` : '—');

// A kernel differs when its duration is off by more than 10 % or its start
// by more than 1 % of the trace's span (the 90th-percentile and
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

async function replaySection(root, runs, ids, ctx) {
  const reports = await Promise.all(runs.map((r) => api.fidelity(r.run, ctx.signal).then((x) => (x && x.replay ? x : null), () => null)));
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
  const kernelLists = await Promise.all(order.map((x) => api.kernels(x.r.run, ctx.signal)));
  const measuredDiff = new Set();
  const rows = order.map((x, j) => {
    const d = x.rep ? differing(x.rep) : null;
    if (d) d.m.forEach((id) => measuredDiff.add(id));
    return { run: x.r.run, name: x.rep ? x.r.name || x.r.run : `${x.r.name || x.r.run} (measured)`, colorIndex: x.i,
      kernels: kernelLists[j].kernels || [], differ: d ? d.s : measuredDiff };
  });
  const host = h('div', { id: 'replay-timelines' });
  section.append(h('h3', null, 'Kernels on one time axis'),
    h('p', { class: 'muted' }, `Differing kernels (duration off by more than 10 %, or start by more than 1 % of the span) are red: ${measuredDiff.size} of ${rows[0].kernels.length}.`),
    host);
  const chart = createAlignedTimelines(host, rows);

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
  const go = (extra) => navigate(`/compare?runs=${[...ids, ...extra.filter((x) => !ids.includes(x))].map(encodeURIComponent).join(',')}`);
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
  Promise.all([api.run(first.r.run, ctx.signal).then((r) => api.experiment(r.experiment, ctx.signal)), api.presets(ctx.signal)]).then(([exp, p]) => {
    const others = (exp.runs || []).filter((r) => !ids.includes(r.run));
    pick.append(...(others.length ? others.map((r) => h('option', { value: r.run }, r.name)) : [h('option', { value: '' }, 'every policy is shown')]));
    dev.append(h('option', { value: '' }, 'automatic'), ...(p.presets || []).map((x) => h('option', { value: x.name }, x.name)));
  }).catch((e) => {
    if (e.name !== 'AbortError') msg.replaceChildren(errorBox(e.message));
  });
  return chart;
}
