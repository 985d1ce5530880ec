// views/experiments.mjs -- "/": every experiment, plus the two ways to add
// one: upload a recorded trace (POST /api/imports) or paste/upload a
// scenario (POST /api/experiments). The server's error text is shown as is,
// since it names the file, the place and the problem.

import { api } from '../api.mjs';
import { h, table, errorBox } from '../dom.mjs';
import { formatDate } from '../format.mjs';
import { navigate } from '../router.mjs';

// A progress bar for work the server runs as a job (202 {job}).
function jobProgress(msg, label) {
  const bar = h('progress', { class: 'job-progress', max: '1', value: '0' });
  const text = h('span', { class: 'muted' }, label);
  return (fraction, state) => {
    if (!bar.isConnected) msg.replaceChildren(h('div', { class: 'job' }, bar, ' ', text));
    bar.value = fraction;
    text.textContent = `${label} ${state === 'queued' ? '(queued)' : `${Math.round(fraction * 100)} %`}`;
  };
}

function importForm() {
  const file = h('input', { type: 'file', id: 'import-file', name: 'file', required: true });
  // the formats this server reads (GET /api/capabilities), after "detect"
  const format = h('select', { id: 'import-format', name: 'format' },
    h('option', { value: '' }, 'detect from content'));
  api.capabilities().then((c) => {
    for (const f of c.formats || []) format.append(h('option', { value: f }, f));
  }).catch(() => { /* detection still works; the select offers only it */ });
  const name = h('input', { type: 'text', id: 'import-name', name: 'name', placeholder: 'file name' });
  const msg = h('div', { class: 'form-msg', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Import trace');
  const form = h('form', { class: 'card form', id: 'import-form' },
    h('h2', null, 'Import a trace'),
    h('p', { class: 'hint' }, 'nvprof CSV or .prof, Nsight Systems SQLite export, globaltimer/%smid block CSV, or the examiner JSON.'),
    h('label', { for: 'import-file' }, 'Trace file'), file,
    h('div', { class: 'row' },
      h('div', null, h('label', { for: 'import-format' }, 'Format'), format),
      h('div', null, h('label', { for: 'import-name' }, 'Run name (optional)'), name)),
    h('div', { class: 'actions' }, button), msg);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    msg.replaceChildren();
    const f = file.files && file.files[0];
    if (!f) {
      msg.append(errorBox('Choose a trace file first.'));
      return;
    }
    button.disabled = true;
    msg.append(h('span', { class: 'muted' }, `Uploading ${f.name}…`));
    try {
      const res = await api.importTrace(f, { format: format.value, name: name.value.trim() || f.name },
        undefined, jobProgress(msg, `Importing ${f.name}…`));
      navigate(`/runs/${encodeURIComponent(res.run)}`);
    } catch (e) {
      msg.replaceChildren(errorBox(e.message));
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

function scenarioForm() {
  const text = h('textarea', {
    id: 'scenario-text', name: 'scenario', rows: 10, spellcheck: 'false',
    placeholder: '{\n  "schema": "schedlab-scenario/1",\n  "name": "…",\n  "device": "tx2",\n  "streams": […],\n  "ops": […]\n}',
  });
  const file = h('input', { type: 'file', id: 'scenario-file', accept: '.json,application/json' });
  file.addEventListener('change', async () => {
    const f = file.files && file.files[0];
    if (f) text.value = await f.text();
  });
  const msg = h('div', { class: 'form-msg', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Simulate and store');
  const form = h('form', { class: 'card form', id: 'scenario-form' },
    h('h2', null, 'New experiment from a scenario'),
    h('p', { class: 'hint' }, 'Paste scenario JSON (schedlab-scenario/1) or load a file; every variant becomes one run.'),
    h('label', { for: 'scenario-file' }, 'Scenario file'), file,
    h('label', { for: 'scenario-text' }, 'Scenario JSON'), text,
    h('div', { class: 'actions' }, button), msg);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    msg.replaceChildren();
    if (!text.value.trim()) {
      msg.append(errorBox('Paste a scenario or choose a scenario file first.'));
      return;
    }
    button.disabled = true;
    try {
      const res = await api.createExperiment(text.value, undefined, jobProgress(msg, 'Simulating…'));
      navigate(`/experiments/${encodeURIComponent(res.slug)}`);
    } catch (e) {
      msg.replaceChildren(errorBox(e.message));
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

export async function renderExperiments(root, route, ctx) {
  const data = await api.experiments(ctx.signal);
  const exps = data.experiments || [];
  root.append(h('div', { class: 'page-head' },
    h('h1', null, 'Experiments'),
    h('p', { class: 'lead' }, 'Simulated scenarios from the papers and traces recorded on real GPUs. Open one to see its runs.')));
  if (!exps.length) {
    root.append(h('p', { class: 'empty' }, 'No experiments yet: import a trace or paste a scenario below.'));
  } else {
    root.append(table([
      { label: 'Experiment', cell: (e) => h('a', { href: `/experiments/${encodeURIComponent(e.slug)}`, class: 'strong' }, e.name || e.slug) },
      { label: 'Description', cell: (e) => h('span', { class: 'desc' }, e.description || '') },
      { label: 'Source', cell: (e) => h('span', { class: `tag tag-${e.source}` }, e.source || '—') },
      { label: 'Runs', num: true, cell: (e) => String((e.runs || []).length) },
      { label: 'Created', cell: (e) => h('span', { class: 'muted nowrap' }, formatDate(e.created)) },
    ], exps, { id: 'experiments', class: 'list' }));
  }
  root.append(h('div', { class: 'forms' }, importForm(), scenarioForm()));
  return { view: 'experiments' };
}
