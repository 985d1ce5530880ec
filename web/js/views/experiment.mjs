// views/experiment.mjs -- "/experiments/{slug}": what the experiment is,
// its runs with their summaries (and versions), links to each run's
// timeline and to a comparison of the selected runs, the paper's numbers
// beside the runs' where the scenario gives them (views/reference.mjs), the
// scenario JSON in an editor to edit and re-run as the next version (issue
// 15), and delete.

import { api } from '../api.mjs';
import { h, table, errorBox, linkNote } from '../dom.mjs';
import { apiFileLink } from '../exports.mjs';
import { navigate, queryList, updateQuery } from '../router.mjs';
import { setExtra } from '../state.mjs';
import { createEditor, errorLine } from '../editor.mjs';
import { formatNs, formatCount, formatDate } from '../format.mjs';
import { referenceCard } from './reference.mjs';
import { renderSweep } from './sweep.mjs';

function duration(s) {
  if (!s || s.t_max === null || s.t_max === undefined || s.t_min === null || s.t_min === undefined) return null;
  return s.t_max - s.t_min;
}

export async function renderExperiment(root, route, ctx) {
  const e = await api.experiment(route.params.slug, ctx.signal);
  if (e.source === 'sweep') return renderSweep(root, e, route, ctx);   // a sweep has a chart, not runs
  const runs = e.runs || [];
  document.title = `${e.name} · schedlab`;
  root.append(h('nav', { class: 'crumbs', 'aria-label': 'breadcrumb' }, h('a', { href: '/' }, 'Experiments'), ' / '),
    h('div', { class: 'page-head' },
      h('h1', null, e.name || e.slug),
      e.description ? h('p', { class: 'lead' }, e.description) : null,
      h('p', { class: 'meta' }, h('span', { class: `tag tag-${e.source}` }, e.source || '—'), ` created ${formatDate(e.created)}`)));

  const versions = (e.versions || []).length || 1;
  setExtra('versions', versions);
  root.querySelector('.page-head').append(deleteButton(e));
  // of a re-run experiment, the newest version's runs start selected; the
  // runs selected to compare are the URL's `runs` where they differ from
  // that (docs/api.md "Share links"), so a link opens the same selection
  const latest = Math.max(1, ...runs.map((r) => r.version ?? 1));
  const byDefault = runs.filter((r) => (r.version ?? 1) === latest || runs.length <= 2).map((r) => r.run);
  const asked = route.query.has('runs') ? (queryList(route.query, 'runs') || []) : null;
  const unknown = asked ? asked.filter((id) => !runs.some((r) => r.run === id)) : [];
  const selected = new Set(asked ? asked.filter((id) => !unknown.includes(id)) : byDefault);
  const selNote = unknown.length ? linkNote(`The link's runs= names ${unknown.join(', ')}, ${unknown.length === 1 ? 'not a run' : 'not runs'} of this experiment: ${selected.size ? 'the others are selected' : 'none is selected'}.`, 'selection-note') : null;
  const compareLink = h('a', { class: 'button', id: 'compare-link' }, 'Compare runs');
  const syncLink = () => {
    const ids = runs.map((r) => r.run).filter((id) => selected.has(id));
    const same = ids.length === byDefault.length && ids.every((id, i) => id === byDefault[i]);
    updateQuery({ runs: same ? null : ids });
    setExtra('selectedRuns', ids);
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
        type: 'checkbox', checked: selected.has(r.run), 'aria-label': `compare ${r.name}`,
        onchange: (ev) => {
          if (ev.target.checked) selected.add(r.run);
          else selected.delete(r.run);
          syncLink();
        },
      }),
    },
    { label: 'Run', cell: (r) => h('a', { href: `/runs/${encodeURIComponent(r.run)}`, class: 'strong run-link' }, r.name || r.run) },
    ...(versions > 1 ? [{ label: 'Version', num: true, cell: (r) => h('span', { class: 'version' }, `v${r.version ?? 1}`) }] : []),
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
        apiFileLink(api.exportUrl(r.run, 'chrome'), 'Perfetto JSON')),
    },
  ];
  root.append(h('section', { class: 'card' },
    h('div', { class: 'section-head' }, h('h2', null, `Runs (${runs.length})`), runs.length > 1 ? compareLink : null),
    selNote, runs.length ? table(cols, runs, { id: 'runs', class: 'list' }) : h('p', { class: 'empty' }, 'This experiment has no runs.')));
  syncLink();

  // the paper's (or a recording's) numbers beside the runs' (a scenario's "reference")
  setExtra('reference', null);
  if (e.scenario && e.scenario.reference) {
    try {
      root.append(await referenceCard(e, ctx.signal));
    } catch (err) {
      if (err && err.name === 'AbortError') throw err;
      root.append(h('section', { class: 'card', id: 'reference' }, h('h2', null, 'Reported beside simulated'), errorBox(err.message)));
    }
  }
  if (e.scenario) root.append(scenarioCard(e, versions));
  return { view: 'experiment' };
}

// Past this many characters of text the editor waits for a click: laying out
// a textarea of a 4,096-kernel scenario (1 MB, 62,000 lines) took ~1 s of
// the first frame, after the page said it was drawn (issue 15: the
// big-traces first-paint target applies to every view).
export const EDITOR_DEFER_CHARS = 256 * 1024;

function scenarioCard(e, versions) {
  const text = JSON.stringify(e.scenario, null, 2);
  if (text.length <= EDITOR_DEFER_CHARS) return scenarioEditor(e, versions, text);
  let lines = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  const open = h('button', { type: 'button', id: 'open-editor' }, 'Open the scenario to edit it');
  const card = h('section', { class: 'card scenario', id: 'scenario-deferred' },
    h('div', { class: 'section-head' }, h('h2', null, 'Scenario')),
    h('p', { class: 'hint' }, `${formatCount(lines)} lines (${formatCount(Math.round(text.length / 1024))} KB) of scenario JSON: opened on demand, since an editor this long takes a moment to lay out.`),
    h('div', { class: 'actions' }, open));
  setExtra('editorDeferred', true);
  open.addEventListener('click', () => {
    setExtra('editorDeferred', false);
    const ed = scenarioEditor(e, versions, text);
    card.replaceWith(ed);
    ed.querySelector('textarea').focus();
  });
  return card;
}

// Delete, after a confirm dialog; a server with --token asks for it (api.mjs).
function deleteButton(e) {
  const msg = h('div', { class: 'form-msg', 'aria-live': 'polite' });
  const b = h('button', { type: 'button', class: 'danger', id: 'delete-experiment' }, 'Delete experiment');
  b.addEventListener('click', async () => {
    const n = (e.runs || []).length;
    if (!window.confirm(`Delete “${e.name || e.slug}” and its ${n} run${n === 1 ? '' : 's'}? This cannot be undone.`)) return;
    b.disabled = true;
    msg.replaceChildren();
    try {
      await api.deleteExperiment(e.slug);
      navigate('/');
    } catch (err) {
      msg.replaceChildren(errorBox(err.message));
      b.disabled = false;
    }
  });
  return h('div', { class: 'head-actions' }, b, msg);
}

// The scenario in an editor with line numbers; "re-run" stores the edited
// text as the next version of this experiment, and a validation error is
// shown at the line it names.
function scenarioEditor(e, versions, text) {
  const editor = createEditor({ id: 'scenario-editor', value: text, label: 'scenario JSON' });
  const msg = h('div', { class: 'form-msg', id: 'editor-msg', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit', class: 'primary', id: 'rerun' }, `Re-run as version ${versions + 1}`);
  const form = h('form', { class: 'card form scenario', id: 'scenario-edit' },
    h('div', { class: 'section-head' }, h('h2', null, 'Scenario'),
      h('span', { class: 'muted' }, versions > 1 ? `version ${versions} of ${versions}` : 'version 1')),
    h('p', { class: 'hint' }, 'Edit the scenario and re-run it: the new runs join this experiment as its next version, beside the old ones.'),
    editor.el, h('div', { class: 'actions' }, button), msg);
  setExtra('editorErrorLine', null);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    msg.replaceChildren();
    editor.markLine(null);
    setExtra('editorErrorLine', null);
    button.disabled = true;
    const bar = h('progress', { class: 'job-progress', max: '1', value: '0' });
    try {
      await api.newVersion(e.slug, editor.value(), undefined, (f) => {
        if (!bar.isConnected) msg.replaceChildren(h('div', { class: 'job' }, bar, ' ', h('span', { class: 'muted' }, 'Simulating…')));
        bar.value = f;
      });
      navigate(`/experiments/${encodeURIComponent(e.slug)}`);
    } catch (err) {
      const line = errorLine(editor.value(), err.message);
      setExtra('editorErrorLine', line);
      editor.markLine(line);
      msg.replaceChildren(h('div', { class: 'error', role: 'alert' },
        line ? h('span', { class: 'error-line' }, `line ${line}: `) : null, err.message));
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
