// views/sweep.mjs -- a sweep experiment ("/experiments/{slug}" whose source
// is "sweep"): the Fig. 8-style chart of schedulable tasksets per approach,
// the counts as a table, the spec it was drawn from, and a form that
// analyses one taskset (views/rta.mjs). window.schedlab
// .sweep = {series, points} says what the chart holds (browser tests).
// A sweep of kind "qos" (the ISCA'17 QoSreach sweep, docs/qos.md) gets
// renderQos instead: QoSreach and non-QoS throughput per scheme against the
// goal (Fig. 6a, 8a), a table per scheme and pair class (Fig. 7), and
// window.schedlab.sweep = {kind, schemes, goals, points, qosreach}.

import { getJSON } from '../api.mjs';
import { h, table } from '../dom.mjs';
import { formatDate } from '../format.mjs';
import { setExtra } from '../state.mjs';
import { createQosCharts, createSweepChart, qosSeries, sweepSeries } from '../charts/sweep.mjs';
import { rtaCard } from './rta.mjs';

export async function renderSweep(root, e, ctx) {
  const r = await getJSON(`/api/experiments/${encodeURIComponent(e.slug)}/sweep`, ctx.signal);
  document.title = `${e.name} · schedlab`;
  if (r.kind === 'qos') return renderQos(root, e, r);
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
  const series = sweepSeries(r);
  setExtra('sweep', { series: series.length, points: r.x.values.length });

  const cols = [{ label: r.x.label, cell: (row) => String(row.x) },
    ...series.map((s) => ({ label: s.approach, num: true, cell: (row) => `${s.pct[row.i]}` }))];
  const rows = r.x.values.map((x, i) => ({ x, i }));
  root.append(h('section', { class: 'card' }, h('h2', null, 'Schedulable (%)'), table(cols, rows, { id: 'sweep-table', class: 'list' })));
  root.append(h('details', { class: 'card scenario' }, h('summary', null, 'Sweep spec'),
    h('pre', null, JSON.stringify(spec, null, 2))));
  root.append(rtaCard());
  return { view: 'sweep', cleanup: () => chart.destroy() };
}

const PAPER_PAIRS = { naive: 20.6, spart: 78.8, rollover: 88.4 };   // ISCA'17 §4.2, Fig. 6(a)
const percent = (v) => (v === null || v === undefined ? '—' : `${(Math.round(v * 1000) / 10).toFixed(1)}`);

function renderQos(root, e, r) {
  const spec = r.spec || {};
  root.append(h('nav', { class: 'crumbs', 'aria-label': 'breadcrumb' }, h('a', { href: '/' }, 'Experiments'), ' / '),
    h('div', { class: 'page-head' },
      h('h1', null, e.name || e.slug),
      e.description ? h('p', { class: 'lead' }, e.description) : null,
      h('p', { class: 'meta' }, h('span', { class: `tag tag-${e.source}` }, e.source),
        ` created ${formatDate(e.created)} · ${r.pairs.length} kernel pairs × ${r.goals.length} QoS goals × ${r.schemes.length} schemes`
        + ` · ${r.points.length} points`)));
  const reachHost = h('section', { class: 'card', id: 'qos-reach-chart' }, h('h2', null, 'QoSreach against the QoS goal'));
  const thrHost = h('section', { class: 'card', id: 'qos-throughput-chart' }, h('h2', null, 'Throughput of the non-QoS kernels, normalised to isolated (goal met)'));
  root.append(reachHost, thrHost);
  const charts = createQosCharts(reachHost, thrHost, r);
  const series = qosSeries(r);
  setExtra('sweep', {
    kind: 'qos', schemes: r.schemes.length, goals: r.goals.length, points: r.points.length,
    qosreach: Object.fromEntries(series.reach.map((s) => [s.scheme, s.data[s.data.length - 1]])),
  });

  // Fig. 7's classes: C+C, C+M, M+C, M+M (QoS kernel first)
  const classes = [...new Set(r.pairs.map((p) => p.classes))].sort();
  const byClass = (scheme, cls) => {
    const pts = r.points.filter((p) => p.scheme === scheme && r.pairs[p.pair].classes === cls);
    return pts.length ? pts.filter((p) => p.qos_met).length / pts.length : null;
  };
  const cols = [{ label: 'scheme', cell: (row) => row.scheme },
    { label: 'QoSreach (%)', num: true, cell: (row) => percent(r.qosreach[row.scheme]) },
    { label: 'paper, pairs (%)', num: true, cell: (row) => (PAPER_PAIRS[row.scheme] ?? '—').toString() },
    { label: 'non-QoS throughput (%)', num: true, cell: (row) => percent(r.throughput[row.scheme]) },
    ...classes.map((c) => ({ label: `QoSreach ${c} (%)`, num: true, cell: (row) => percent(byClass(row.scheme, c)) }))];
  root.append(h('section', { class: 'card' }, h('h2', null, 'Per scheme'),
    table(cols, r.schemes.map((scheme) => ({ scheme })), { id: 'qos-table', class: 'list' })));
  const kcols = [{ label: 'kernel', cell: (k) => k.name }, { label: 'class', cell: (k) => k.class },
    { label: 'isolated IPC as QoS kernel', num: true, cell: (k) => k.ipc_isolated.toFixed(2) },
    { label: 'isolated IPC as non-QoS kernel', num: true, cell: (k) => k.ipc_isolated_other.toFixed(2) }];
  root.append(h('section', { class: 'card' }, h('h2', null, 'Kernels'), table(kcols, r.kernels, { id: 'qos-kernels', class: 'list' })));
  root.append(h('details', { class: 'card scenario' }, h('summary', null, 'Sweep spec'),
    h('pre', null, JSON.stringify(spec, null, 2))));
  return { view: 'sweep', cleanup: () => charts.destroy() };
}
