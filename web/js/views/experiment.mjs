// views/experiment.mjs -- "/experiments/{slug}": what the experiment is,
// its runs with their summaries, and links to each run's timeline and to a
// comparison of the selected runs.

import { api } from '../api.mjs';
import { h, table } from '../dom.mjs';
import { formatNs, formatCount, formatDate } from '../format.mjs';
import { renderSweep } from './sweep.mjs';

function duration(s) {
  if (!s || s.t_max === null || s.t_max === undefined || s.t_min === null || s.t_min === undefined) return null;
  return s.t_max - s.t_min;
}

export async function renderExperiment(root, route, ctx) {
  const e = await api.experiment(route.params.slug, ctx.signal);
  if (e.source === 'sweep') return renderSweep(root, e, ctx);   // a sweep has a chart, not runs
  const runs = e.runs || [];
  document.title = `${e.name} · schedlab`;
  root.append(h('nav', { class: 'crumbs', 'aria-label': 'breadcrumb' }, h('a', { href: '/' }, 'Experiments'), ' / '),
    h('div', { class: 'page-head' },
      h('h1', null, e.name || e.slug),
      e.description ? h('p', { class: 'lead' }, e.description) : null,
      h('p', { class: 'meta' }, h('span', { class: `tag tag-${e.source}` }, e.source || '—'), ` created ${formatDate(e.created)}`)));

  const selected = new Set(runs.map((r) => r.run));
  const compareLink = h('a', { class: 'button', id: 'compare-link' }, 'Compare runs');
  const syncLink = () => {
    const ids = runs.map((r) => r.run).filter((id) => selected.has(id));
    compareLink.href = `/compare?runs=${ids.map(encodeURIComponent).join(',')}`;
    compareLink.classList.toggle('disabled', ids.length < 2);
    compareLink.setAttribute('aria-disabled', ids.length < 2 ? 'true' : 'false');
  };
  compareLink.addEventListener('click', (ev) => {
    if (compareLink.classList.contains('disabled')) ev.preventDefault();
  });

  const cols = [
    {
      label: '', cell: (r) => h('input', {
        type: 'checkbox', checked: true, 'aria-label': `compare ${r.name}`,
        onchange: (ev) => {
          if (ev.target.checked) selected.add(r.run);
          else selected.delete(r.run);
          syncLink();
        },
      }),
    },
    { label: 'Run', cell: (r) => h('a', { href: `/runs/${encodeURIComponent(r.run)}`, class: 'strong run-link' }, r.name || r.run) },
    { label: 'Source', cell: (r) => r.source || '—' },
    { label: 'Kernels', num: true, cell: (r) => formatCount(r.summary?.kernels) },
    { label: 'Blocks', num: true, cell: (r) => formatCount(r.summary?.blocks) },
    { label: 'Copies', num: true, cell: (r) => formatCount(r.summary?.copies) },
    { label: 'Queue events', num: true, cell: (r) => formatCount(r.summary?.queue_events) },
    { label: 'Duration', num: true, cell: (r) => formatNs(duration(r.summary)) },
    {
      label: 'Views', cell: (r) => h('span', { class: 'links' },
        h('a', { href: `/runs/${encodeURIComponent(r.run)}?view=timeline` }, 'timeline'), ' · ',
        h('a', { href: `/runs/${encodeURIComponent(r.run)}?view=kernels` }, 'kernels'), ' · ',
        h('a', { href: `/runs/${encodeURIComponent(r.run)}?view=queues` }, 'queues'), ' · ',
        h('a', { href: api.exportUrl(r.run, 'chrome'), download: true }, 'Perfetto JSON')),
    },
  ];
  root.append(h('section', { class: 'card' },
    h('div', { class: 'section-head' }, h('h2', null, `Runs (${runs.length})`), runs.length > 1 ? compareLink : null),
    runs.length ? table(cols, runs, { id: 'runs', class: 'list' }) : h('p', { class: 'empty' }, 'This experiment has no runs.')));
  syncLink();

  if (e.scenario) {
    root.append(h('details', { class: 'card scenario' },
      h('summary', null, 'Scenario JSON'),
      h('pre', null, JSON.stringify(e.scenario, null, 2))));
  }
  return { view: 'experiment' };
}
