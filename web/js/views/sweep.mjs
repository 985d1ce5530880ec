// views/sweep.mjs -- a sweep experiment ("/experiments/{slug}" whose source
// is "sweep"): the Fig. 8-style chart of schedulable tasksets per approach,
// the counts as a table, the spec it was drawn from, and a form that
// analyses one taskset (views/rta.mjs). window.schedlab
// .sweep = {series, points} says what the chart holds (browser tests).
// A sweep of kind "qos" (the ISCA'17 QoSreach sweep, docs/qos.md) gets
// renderQos instead: QoSreach and non-QoS throughput per scheme against the
// goal (Fig. 6a, 8a), QoSreach per QoS kernel and pair class (Fig. 7), the
// lead in throughput over Spart (Fig. 8), the overshoot (Fig. 9) and the
// misses by shortfall (Fig. 5), the paper's numbers beside ours; a table
// per scheme and pair class, and window.schedlab.sweep = {kind, schemes,
// goals, points, qosreach}.

import { api } from '../api.mjs';
import { h, table, linkNote } from '../dom.mjs';
import { createEditor, errorLine } from '../editor.mjs';
import { download, safeName } from '../exports.mjs';
import { formatDate } from '../format.mjs';
import { navigate, queryString, updateQuery } from '../router.mjs';
import { setExtra } from '../state.mjs';
import { PAPER_FIGS, createQosCharts, createQosFigures, createReachReference, createSweepChart, qosSeries, referenceSeries, sweepSeries } from '../charts/sweep.mjs';
import { legendInUrl } from '../charts/hidden.mjs';
import { rtaCard } from './rta.mjs';
import { createVTable, tableFromQuery, tableQuery, toCsv } from '../vtable.mjs';

export async function renderSweep(root, e, route, ctx) {
  const r = await api.sweepResult(e.slug, ctx.signal);
  document.title = `${e.name} · schedlab`;
  if (r.kind === 'qos') return renderQos(root, e, r, route);
  const spec = r.spec || {};
  root.append(h('nav', { class: 'crumbs', 'aria-label': 'breadcrumb' }, h('a', { href: '/' }, 'Experiments'), ' / '),
    h('div', { class: 'page-head' },
      h('h1', null, e.name || e.slug),
      e.description ? h('p', { class: 'lead' }, e.description) : null,
      h('p', { class: 'meta' }, h('span', { class: `tag tag-${e.source}` }, e.source),
        ` created ${formatDate(e.created)} · ${r.tasksets} tasksets per point · analysis ${spec.semantics || '?'}`
        + ` · generator ${spec.generator || '?'} · seed ${spec.seed ?? '?'}`)));
  const host = h('section', { class: 'card', id: 'sweep-chart' }, h('h2', null, `Schedulable tasksets against ${r.x.label}`));
  root.append(host);
  const chart = createSweepChart(host, r);
  // the series hidden from the legend are the URL's `hide` (docs/api.md "Share links")
  const hideNote = linkNote(legendInUrl(chart.chart, route.query, 'hide'), 'link-note');
  if (hideNote) host.insertBefore(hideNote, host.querySelector('.chart-wrap'));
  const series = sweepSeries(r);
  const ref = referenceSeries(r);
  if (ref.length) host.append(h('p', { class: 'hint', id: 'sweep-reference' }, `Dashed: ${r.spec.reference.source}.`));
  setExtra('sweep', { series: series.length, points: r.x.values.length, reference: ref.length });

  const refOf = Object.fromEntries(ref.map((s) => [s.approach, s.pct]));
  const cols = [{ label: r.x.label, cell: (row) => String(row.x) },
    ...series.flatMap((s) => [{ label: s.approach, num: true, cell: (row) => `${s.pct[row.i]}` },
      ...(refOf[s.approach] ? [{ label: `${s.approach}, reference`, num: true, cell: (row) => (refOf[s.approach][row.i] ?? '—').toString() }] : [])])];
  const rows = r.x.values.map((x, i) => ({ x, i }));
  root.append(h('section', { class: 'card' }, h('h2', null, 'Schedulable (%)'), table(cols, rows, { id: 'sweep-table', class: 'list' })));
  root.append(h('details', { class: 'card scenario' }, h('summary', null, 'Sweep spec'),
    h('pre', null, JSON.stringify(spec, null, 2))));
  root.append(rtaCard());
  return { view: 'sweep', cleanup: () => chart.destroy() };
}

const PAPER_PAIRS = { naive: 20.6, spart: 78.8, rollover: 88.4 };   // ISCA'17 §4.2, Fig. 6(a)
// ISCA'17 §4.2 on the trios, Rollover over Spart (relative, as §4.2's
// "12.2% improvement over Spart" is 88.4 over 78.8): QoSreach "by 18.8%
// (6b) and 43.8% (6c)"; the non-QoS throughput's lead is Fig. 8's
// (PAPER_FIGS.gain, charts/sweep.mjs)
const PAPER_TRIOS = { 1: { reach: 18.8, figs: '6(b), 8(b)' }, 2: { reach: 43.8, figs: '6(c), 8(c)' } };
const gain = (a, b) => (a == null || b == null || !(b > 0) ? null : (a / b - 1) * 100);
const signed = (v) => (v == null ? '—' : `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(1)} %`);
const percent = (v) => (v === null || v === undefined ? '—' : `${(Math.round(v * 1000) / 10).toFixed(1)}`);

// The URL key of each QoS chart's hidden series, by its card's id
const QOS_LEGEND_KEYS = {
  'qos-reach-chart': 'hide_reach', 'qos-throughput-chart': 'hide_throughput', 'qos-reference-chart': 'hide_reference',
  'qos-class-chart': 'hide_class', 'qos-gain-chart': 'hide_gain', 'qos-overshoot-chart': 'hide_overshoot',
  'qos-misses-chart': 'hide_misses',
};

function renderQos(root, e, r, route) {
  const spec = r.spec || {};
  // a trio sweep: one QoS kernel beside two others, or two beside one
  const trio = r.pairs.some((p) => p.qos2) ? 2 : r.pairs.some((p) => p.other2) ? 1 : 0;
  root.append(h('nav', { class: 'crumbs', 'aria-label': 'breadcrumb' }, h('a', { href: '/' }, 'Experiments'), ' / '),
    h('div', { class: 'page-head' },
      h('h1', null, e.name || e.slug),
      e.description ? h('p', { class: 'lead' }, e.description) : null,
      h('p', { class: 'meta' }, h('span', { class: `tag tag-${e.source}` }, e.source),
        ` created ${formatDate(e.created)} · ${r.pairs.length} kernel ${trio ? 'trios' : 'pairs'} × ${r.goals.length} QoS goals × ${r.schemes.length} schemes`
        + ` · ${r.points.length} points`)));
  const reachHost = h('section', { class: 'card', id: 'qos-reach-chart' }, h('h2', null, 'QoSreach against the QoS goal'));
  const thrHost = h('section', { class: 'card', id: 'qos-throughput-chart' }, h('h2', null, 'Throughput of the non-QoS kernels, normalised to isolated (goal met)'));
  root.append(reachHost, thrHost);
  const charts = createQosCharts(reachHost, thrHost, r);
  const series = qosSeries(r);
  const ref = r.spec && r.spec.reference && r.spec.reference.qosreach ? r.spec.reference : null;
  let refChart = null;
  if (ref) {
    const refHost = h('section', { class: 'card', id: 'qos-reference-chart' }, h('h2', null, 'QoSreach per scheme, ours beside the paper\'s'));
    root.insertBefore(refHost, thrHost);
    refChart = createReachReference(refHost, r);
    refHost.append(h('p', { class: 'hint', id: 'sweep-reference' }, `Outlined: ${ref.source}.`));
  }
  // Figs. 7, 8 (the lead over Spart), 9 and 5, the paper's numbers outlined beside ours
  const fig = (id, title, hint) => h('section', { class: 'card', id }, h('h2', null, title), h('p', { class: 'hint' }, hint));
  const whole = trio ? '60 trios × 10 goals' : '900 points';
  const hosts = {
    byClass: fig('qos-class-chart', 'QoSreach per QoS kernel and pair class (Fig. 7)',
      `Each QoS kernel's points, then each pair class's (C: compute-, M: memory-bound, QoS kernel first). Outlined: the paper's, where its text gives a number (§4.2: "for C+C kernels, Spart and Rollover meet QoS goals in all cases").`),
    gain: r.schemes.includes('spart') && r.schemes.length > 1
      ? fig('qos-gain-chart', `Non-QoS throughput over Spart's (Fig. ${trio ? (trio === 1 ? '8b' : '8c') : '8a'})`,
        `Each scheme's non-QoS throughput over Spart's per goal, each over the points it meets, then averaged pooled over all met points and as the mean of the per-goal bars: the paper does not say which its average is (docs/qos.md). Outlined: Rollover's average lead in the paper (§4.3, over its ${whole})${trio === 1 ? ', and its 75.5 % at 95 %' : trio === 2 ? '; §4.3 also has it "> 10×" in the last three goals' : ''}.`)
      : null,
    // (a result stored before Figs. 5 and 9 were reported has neither)
    overshoot: r.overshoot && fig('qos-overshoot-chart', 'Overshoot of the met goals (Fig. 9)',
      `The met points' mean attained / goal − 1. Outlined: the paper's${trio ? ' for pairs; none is given for trios' : ` (§4.4: Rollover 2.8 %, Spart 11.6 %; §3.4.2: History's met cases 1.3 %), over its ${whole}`}.`),
    misses: r.misses && r.shortfall_bins && fig('qos-misses-chart', 'Missed goals by how far (Fig. 5)',
      'Each scheme\'s missed points by their shortfall, 1 − attained / goal. The paper (§3.4.2) counts History\'s: "over 700" of 900 missed, "most of them are only within 5% of the QoS goals".'),
  };
  root.append(...Object.values(hosts).filter(Boolean));
  const figures = createQosFigures(hosts, r, trio);
  // each chart's series hidden from its legend are the URL's, a key a chart
  // (QOS_LEGEND_KEYS; docs/api.md "Share links")
  for (const c of [...charts.charts, ...(refChart ? [refChart.chart] : []), ...figures.charts]) {
    const host = c.canvas.closest('section');
    const key = QOS_LEGEND_KEYS[host.id];
    const note = linkNote(legendInUrl(c, route.query, key), `${host.id}-link-note`);
    if (note) host.insertBefore(note, c.canvas.closest('.chart-wrap'));
  }
  setExtra('sweep', {
    reference: ref ? Object.keys(ref.qosreach).length : 0,
    kind: 'qos', schemes: r.schemes.length, goals: r.goals.length, points: r.points.length,
    qosreach: Object.fromEntries(series.reach.map((s) => [s.scheme, s.data[s.data.length - 1]])),
    trio,
  });

  // Fig. 7's classes: C+C, C+M, M+C, M+M (QoS kernel first)
  const classes = [...new Set(r.pairs.map((p) => p.classes))].sort();
  const byClass = (scheme, cls) => {
    const pts = r.points.filter((p) => p.scheme === scheme && r.pairs[p.pair].classes === cls);
    return pts.length ? pts.filter((p) => p.qos_met).length / pts.length : null;
  };
  const cols = [{ label: 'scheme', cell: (row) => row.scheme },
    { label: 'QoSreach (%)', num: true, cell: (row) => percent(r.qosreach[row.scheme]) },
    { label: 'paper (%)', num: true, cell: (row) => ((ref ? ref.qosreach : trio ? {} : PAPER_PAIRS)[row.scheme] ?? '—').toString() },
    { label: 'non-QoS throughput (%)', num: true, cell: (row) => percent(r.throughput[row.scheme]) },
    ...classes.map((c) => ({ label: `QoSreach ${c} (%)`, num: true, cell: (row) => percent(byClass(row.scheme, c)) }))];
  root.append(h('section', { class: 'card' }, h('h2', null, 'Per scheme'),
    table(cols, r.schemes.map((scheme) => ({ scheme })), { id: 'qos-table', class: 'list' })));
  if (trio && r.schemes.includes('rollover') && r.schemes.includes('spart')) {
    const p = PAPER_TRIOS[trio];
    const rows = [
      { what: 'QoSreach', ours: gain(r.qosreach.rollover, r.qosreach.spart), paper: p.reach },
      { what: 'non-QoS throughput (goal met)', ours: gain(r.throughput.rollover, r.throughput.spart), paper: PAPER_FIGS.gain[trio].avg },
    ];
    root.append(h('section', { class: 'card', id: 'qos-trio' },
      h('h2', null, `Rollover over Spart, trios with ${trio === 1 ? 'one QoS kernel' : 'two QoS kernels'}`),
      table([{ label: 'measure', cell: (x) => x.what }, { label: 'this sweep', num: true, cell: (x) => signed(x.ours) },
        { label: 'paper', num: true, cell: (x) => signed(x.paper) }], rows, { id: 'qos-trio-table', class: 'list' }),
      h('p', { class: 'hint' }, `ISCA'17 §4.2-4.3, Figs. ${p.figs}, over its 60 trios of Parboil kernels: relative gains, as its "12.2 % improvement over Spart" for pairs is 88.4 % over 78.8 %.`)));
  }
  root.append(pointsCard(e, r, trio, route.query));
  const kcols = [{ label: 'kernel', cell: (k) => k.name }, { label: 'class', cell: (k) => k.class },
    { label: 'isolated IPC as QoS kernel', num: true, cell: (k) => k.ipc_isolated.toFixed(2) },
    { label: 'isolated IPC as non-QoS kernel', num: true, cell: (k) => k.ipc_isolated_other.toFixed(2) },
    ...(trio === 2 ? [{ label: 'isolated IPC as second QoS kernel', num: true, cell: (k) => k.ipc_isolated_qos2.toFixed(2) }] : []),
    ...(trio === 1 ? [{ label: 'isolated IPC as second non-QoS kernel', num: true, cell: (k) => k.ipc_isolated_other2.toFixed(2) }] : [])];
  root.append(h('section', { class: 'card' }, h('h2', null, 'Kernels'), table(kcols, r.kernels, { id: 'qos-kernels', class: 'list' })));
  root.append(h('details', { class: 'card scenario' }, h('summary', null, 'Sweep spec'),
    h('pre', null, JSON.stringify(spec, null, 2))));
  return { view: 'sweep', cleanup: () => { charts.destroy(); figures.destroy(); if (refChart) refChart.destroy(); } };
}

// Every point of a QoS sweep, a row each: its kernels, their class, the
// goal, the scheme, what the QoS kernel(s) attained of the isolated IPC,
// whether the goal was met, and what the non-QoS kernel(s) kept: sortable,
// filtered by kernel, class or scheme, and as CSV (the shown rows, in
// their order). The sort and the filter are the page's URL's (POINTS_KEYS:
// `sort`, `order`, `q`; docs/api.md "Share links"), so a link reopens the
// same rows. window.schedlab.sweepPoints = {rows, sort} as shown.
const POINTS_KEYS = { sort: 'sort', order: 'order', filter: 'q' };

function pointsCard(e, r, trio, query) {
  const pair = (p) => r.pairs[p.pair];
  const qosOf = (p) => [pair(p).qos, pair(p).qos2].filter(Boolean).join(' + ');
  const otherOf = (p) => [pair(p).other, pair(p).other2].filter(Boolean).join(' + ');
  const three = (x) => (x === null || x === undefined ? '—' : x.toFixed(3));
  // two QoS kernels: what each attained, in their order, a column each
  const attainedCols = trio === 2
    ? [{ key: 'attained', label: 'attained, 1st', num: true, width: '12%', cell: (p) => three(p.attained), sort: (p) => p.attained, csv: (p) => p.attained },
      { key: 'attained2', label: 'attained, 2nd', num: true, width: '12%', cell: (p) => three(p.attained2), sort: (p) => p.attained2, csv: (p) => p.attained2 }]
    : [{ key: 'attained', label: 'attained', num: true, width: '15%', cell: (p) => three(p.attained), sort: (p) => p.attained, csv: (p) => p.attained }];
  const columns = [
    { key: 'qos', label: trio === 2 ? 'QoS kernels' : 'QoS kernel', width: trio === 2 ? '14%' : '17%', cell: qosOf, text: qosOf, sort: qosOf, csv: qosOf },
    { key: 'other', label: trio === 1 ? 'other kernels' : 'other kernel', width: trio === 2 ? '11%' : '17%', cell: otherOf, text: otherOf, sort: otherOf, csv: otherOf },
    { key: 'class', label: 'class', width: '9%', cell: (p) => pair(p).classes, text: (p) => pair(p).classes, sort: (p) => pair(p).classes, csv: (p) => pair(p).classes },
    { key: 'goal', label: 'goal', num: true, width: '7%', cell: (p) => p.goal.toFixed(2), sort: (p) => p.goal, csv: (p) => p.goal },
    { key: 'scheme', label: 'scheme', width: trio === 2 ? '10%' : '12%', cell: (p) => p.scheme, text: (p) => p.scheme, sort: (p) => p.scheme, csv: (p) => p.scheme },
    ...attainedCols,
    { key: 'met', label: 'met', width: '7%', cell: (p) => (p.qos_met ? 'yes' : h('span', { class: 'missed' }, 'no')), sort: (p) => (p.qos_met ? 1 : 0), csv: (p) => (p.qos_met ? 1 : 0) },
    { key: 'throughput', label: 'non-QoS throughput', num: true, width: '16%', cell: (p) => three(p.throughput), sort: (p) => p.throughput, csv: (p) => p.throughput },
  ];
  const host = h('div', { class: 'card table-card' }, h('p', { class: 'hint' },
    `Attained: the QoS kernel's IPC over its IPC alone${trio === 2 ? ' (each of the two, in their order)' : ''}, against the goal; `
    + `non-QoS throughput: the same for the other kernel${trio === 1 ? 's, their mean' : ''}, as the charts above average it. `
    + 'Click a column to sort; the CSV has the rows shown, in their order.'));
  let t = null;
  const csv = h('button', {
    type: 'button', id: 'qos-points-csv', class: 'export-csv', title: 'the points shown, in this order, as CSV',
    onclick: () => download(new Blob([toCsv(columns, t.rows())], { type: 'text/csv' }), `${safeName(e.name || e.slug) || 'sweep'}-points.csv`),
  }, 'CSV');
  const wrap = h('section', { id: 'qos-points' }, h('div', { class: 'section-head' }, h('h2', null, `Points (${r.points.length.toLocaleString('en')})`), csv), host);
  const linked = tableFromQuery(query, columns, POINTS_KEYS);
  const note = linkNote(linked.note, 'link-note');
  if (note) host.prepend(note);
  t = createVTable(host, {
    id: 'qos-points-table', columns, rows: r.points, filterLabel: 'filter by kernel, class or scheme',
    sort: linked.sort, filter: linked.filter,
    onState(st) {
      setExtra('sweepPoints', { rows: st.rows, sort: st.sort ? `${st.sort} ${st.dir > 0 ? 'asc' : 'desc'}` : null });
      updateQuery(tableQuery(POINTS_KEYS, st));
    },
  });
  return wrap;
}

// ---- /sweeps: a sweep started from the page (issue 30) ---------------------
// A shipped spec (GET /api/sweeps/specs) as it is, or edited in the JSON
// editor, started as a job (POST /api/sweeps): a progress bar in tasksets
// or points, a cancel button (DELETE /api/jobs/{id}), and once stored the
// page moves to the sweep's chart. The spec chosen is the URL's `spec`
// (its file name, as the list names it; absent = the first that fits one
// job; written whenever a spec is shown, so a link names it even once the
// list has changed; docs/api.md "Share links"), and a link opens the same
// spec.
// window.schedlab.sweepJob = {id, state, progress, done, total} while it
// runs; sweepSpecs = the specs listed; sweepSpecShown = the spec in the
// editor.

export async function renderSweeps(root, route, ctx) {
  document.title = 'Sweeps · schedlab';
  const [list, { experiments }] = await Promise.all([api.sweepSpecs(ctx.signal), api.experiments(ctx.signal)]);
  setExtra('sweepSpecs', list.specs.length);
  const stored = experiments.filter((e) => e.source === 'sweep');
  setExtra('sweepsStored', stored.map((e) => e.slug));
  setExtra('sweepJob', null);
  setExtra('sweepSpecShown', null);
  root.append(h('div', { class: 'page-head' }, h('h1', null, 'Sweeps'),
    h('p', { class: 'lead' }, 'Schedulability sweeps (GCAPS Fig. 8) and QoSreach sweeps (ISCA\'17) computed by the server, as `schedlab sweep` computes them, and stored as experiments. '
      + `One sweep job may hold ${list.limits.sweep_analyses.toLocaleString('en')} analyses or ${list.limits.sweep_cycles.toLocaleString('en')} simulated cycles; bigger ones are for the command line (shards).`)));
  // the sweeps stored so far (shipped, started here or by `schedlab sweep --db`), newest first
  root.append(h('section', { class: 'card', id: 'sweeps-stored' }, h('h2', null, `Stored sweeps (${stored.length})`),
    stored.length
      ? table([
        { label: 'Sweep', cell: (e) => h('a', { href: `/experiments/${encodeURIComponent(e.slug)}` }, e.name || e.slug) },
        { label: 'Created', cell: (e) => h('span', { class: 'muted nowrap' }, formatDate(e.created)) },
      ], stored, { id: 'sweeps-list', class: 'list' })
      : h('p', { class: 'empty' }, 'No sweep is stored yet: start one below, or run `schedlab sweep SPEC.json --db DB`.')));
  const select = h('select', { id: 'sweep-spec', name: 'spec' },
    ...list.specs.map((s) => h('option', { value: s.file, disabled: !s.fits },
      `${s.file}: ${s.name}${s.error ? ` (does not read: ${s.error})` : s.fits ? '' : ' (too big for one job)'}`)));
  const editor = createEditor({ id: 'sweep-editor', value: '', label: 'sweep spec JSON' });
  // the editor shows the spec chosen last: an answer to an earlier choice
  // that arrives later is dropped (sweepSpecShown = {file, n}, n counting
  // the choices)
  let chosen = 0;
  const load = async () => {
    const file = select.value;
    const n = ++chosen;
    // (no spec to show, every one too big for a job: no spec= at all,
    // never an empty one)
    updateQuery({ spec: file || null });
    if (!file) return;
    const spec = await api.sweepSpec(file, ctx.signal);
    if (n !== chosen) return;
    const area = editor.el.querySelector('textarea');
    area.value = JSON.stringify(spec, null, 2);
    area.dispatchEvent(new Event('input'));
    setExtra('sweepSpecShown', { file, n });
  };
  select.addEventListener('change', () => { load().catch(() => {}); });
  const first = list.specs.find((s) => s.fits);
  // the link's spec: one listed that fits one job, else the first that
  // does, with a note saying why (a spec renamed or removed since, one
  // that does not read or has grown past a job's limits); spec= empty is
  // read as absent (docs/api.md "Share links")
  const asked = queryString(route.query, 'spec') || null;
  const linked = asked === null ? null : list.specs.find((s) => s.file === asked);
  let note = null;
  if (linked && linked.fits) select.value = linked.file;
  else {
    if (first) select.value = first.file;
    if (asked !== null) {
      const instead = first ? `showing ${first.file}` : 'no spec fits one job';
      note = linkNote(!linked ? `The link's spec=${asked} is not one of the shipped specs: ${instead}.`
        : linked.error ? `The link's spec ${asked} does not read (${linked.error}): ${instead}.`
          : `The link's spec ${asked} is too big for one job (schedlab sweep runs it in shards): ${instead}.`, 'link-note');
    }
  }
  if (list.specs.length) await load();
  else updateQuery({ spec: null });
  const msg = h('div', { class: 'form-msg', 'aria-live': 'polite' });
  const start = h('button', { type: 'submit', class: 'primary', id: 'sweep-start' }, 'Start sweep');
  const cancel = h('button', { type: 'button', id: 'sweep-cancel', disabled: true }, 'Cancel');
  const bar = h('progress', { class: 'job-progress', id: 'sweep-progress', max: '1', value: '0', 'aria-label': 'sweep progress' });
  const status = h('span', { class: 'muted', id: 'sweep-status' }, '');
  // the bar and its status line appear with the first job
  const jobRow = h('div', { class: 'job', hidden: true }, bar, ' ', status);
  let job = null;
  let stop = false;
  cancel.addEventListener('click', async () => {
    if (!job) return;
    cancel.disabled = true;
    try { await api.cancelJob(job); } catch (err) { msg.replaceChildren(h('div', { class: 'error', role: 'alert' }, err.message)); }
  });
  const form = h('form', { class: 'card form', id: 'sweep-form' },
    h('h2', null, 'Start a sweep'),
    h('p', { class: 'hint' }, 'Pick a shipped spec; edit it below if you like (tasksets per point, x values, approaches, …). The server checks it with the same messages as `schedlab sweep`.'),
    note, h('label', { for: 'sweep-spec' }, 'Shipped spec'), select,
    editor.el, h('div', { class: 'actions' }, start, ' ', cancel), jobRow, msg);
  root.append(form);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    msg.replaceChildren();
    editor.markLine(null);
    start.disabled = true;
    try {
      const text = editor.value();
      const r = await api.startSweep({ text }, ctx.signal);
      job = r.job;
      cancel.disabled = false;
      jobRow.hidden = false;
      for (;;) {
        const j = await api.job(job, ctx.signal);
        bar.value = j.progress || 0;
        status.textContent = `${j.state}${j.phase ? ` (${j.phase})` : ''}: ${j.done} of ${j.total} ${/"kind"\s*:\s*"qos"/.test(text) ? 'points' : 'tasksets'}`;
        setExtra('sweepJob', { id: job, state: j.state, progress: j.progress, done: j.done, total: j.total });
        if (j.state === 'done') { navigate(`/experiments/${encodeURIComponent(j.result.slug)}`); return; }
        if (j.state === 'failed' || j.state === 'aborted') {
          msg.replaceChildren(h('div', { class: j.state === 'aborted' ? 'muted' : 'error', role: 'alert' }, j.error || j.state));
          break;
        }
        if (stop) return;
        await new Promise((ok) => setTimeout(ok, 250));
      }
    } catch (err) {
      if (err && err.name === 'AbortError') return;
      const line = errorLine(editor.value(), err.message);
      editor.markLine(line);
      msg.replaceChildren(h('div', { class: 'error', role: 'alert' },
        line ? h('span', { class: 'error-line' }, `line ${line}: `) : null, err.message));
    } finally {
      start.disabled = false;
      cancel.disabled = true;
      job = null;
    }
  });
  return { view: 'sweeps', cleanup: () => { stop = true; } };
}
