// views/sweep.mjs -- a sweep experiment ("/experiments/{slug}" whose source
// is "sweep"): the Fig. 8-style chart of schedulable tasksets per approach,
// the counts as a table, the spec it was drawn from, and a form that
// analyses one taskset (views/rta.mjs). window.schedlab
// .sweep = {series, points} says what the chart holds (browser tests).

import { getJSON } from '../api.mjs';
import { h, table } from '../dom.mjs';
import { formatDate } from '../format.mjs';
import { setExtra } from '../state.mjs';
import { createSweepChart, sweepSeries } from '../charts/sweep.mjs';
import { rtaCard } from './rta.mjs';

export async function renderSweep(root, e, ctx) {
  const r = await getJSON(`/api/experiments/${encodeURIComponent(e.slug)}/sweep`, ctx.signal);
  document.title = `${e.name} · schedlab`;
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
