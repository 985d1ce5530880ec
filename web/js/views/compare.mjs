// views/compare.mjs -- "/compare?runs=a,b[,…]": per-kernel response times
// of several runs side by side (GET /api/compare), as grouped bars and as a
// table with the difference to the first run.

import { api } from '../api.mjs';
import { h, table, errorBox } from '../dom.mjs';
import { formatNs } from '../format.mjs';
import { queryList } from '../router.mjs';
import { colorAt } from '../colors.mjs';
import { createCompareChart } from '../charts/compare.mjs';

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

  const tasks = data.tasks || [];
  if (tasks.length) {
    const cols = [{ label: 'Task', cell: (t) => h('span', { class: 'strong' }, String(t.task ?? t.name ?? '—')) }];
    runs.forEach((run, i) => {
      cols.push({ label: `${run.name} response`, num: true, cell: (t) => formatNs(Array.isArray(t.response) ? t.response[i] : null) });
    });
    root.append(h('section', { class: 'card' }, h('h2', null, 'Task response times'), table(cols, tasks, { id: 'compare-tasks', class: 'list dense' })));
  }
  return { view: 'compare', cleanup: chart ? () => chart.destroy() : null };
}
