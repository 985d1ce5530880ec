// views/experiments.mjs -- "/": the upload area first (several trace files
// at once, with progress: upload.mjs), then every experiment, searchable by
// name, description and source, and a scenario to paste or upload (POST
// /api/experiments). The server's error text is shown as is, since it names
// the file, the place and the problem.

import { api } from '../api.mjs';
import { h, table, errorBox, clear } from '../dom.mjs';
import { formatDate } from '../format.mjs';
import { navigate, queryString, replaceUrl } from '../router.mjs';
import { setExtra } from '../state.mjs';
import { uploadArea } from '../upload.mjs';

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

// Every word of the query must occur in the experiment's name,
// description, source or slug (case-insensitive).
export function matches(e, q) {
  const hay = `${e.name || ''} ${e.description || ''} ${e.source || ''} ${e.slug}`.toLowerCase();
  return q.trim().toLowerCase().split(/\s+/).filter(Boolean).every((w) => hay.includes(w));
}

export async function renderExperiments(root, route, ctx) {
  const data = await api.experiments(ctx.signal);
  const exps = data.experiments || [];
  root.append(h('div', { class: 'page-head' },
    h('h1', null, 'Experiments'),
    h('p', { class: 'lead' }, 'Simulated scenarios from the papers and traces recorded on real GPUs. Open one to see its runs.')));
  root.append(uploadArea(exps, async (states) => {
    // one file imported: open it, as the single-file form did; several:
    // stay, each row links to its run, and the list shows what was stored
    const ok = states.filter((x) => x.state === 'done');
    if (states.length === 1 && ok.length === 1) {
      navigate(`/runs/${encodeURIComponent(ok[0].run)}`);
      return;
    }
    if (!ok.length) return;
    try {
      const now = await api.experiments(ctx.signal);
      exps.splice(0, exps.length, ...(now.experiments || []));
      draw();
    } catch { /* the list stays as it was; a reload shows it */ }
  }));
  // (a malformed escape, "?q=50%", is read as written, as router.mjs reads
  // every value: it threw "URI malformed" in place of the whole list)
  const q = queryString(route.query, 'q') || '';
  const search = h('input', { type: 'search', id: 'experiment-search', value: q, placeholder: 'search name, description, source…',
    'aria-label': 'search experiments', autocomplete: 'off' });
  const count = h('span', { class: 'muted', id: 'experiment-count' });
  const host = h('div', { id: 'experiments-host' });
  const draw = () => {
    const shown = exps.filter((e) => matches(e, search.value));
    setExtra('experimentsShown', shown.map((e) => e.slug));
    count.textContent = search.value.trim() ? `${shown.length} of ${exps.length}` : `${exps.length}`;
    clear(host);
    if (!exps.length) {
      host.append(h('p', { class: 'empty' }, 'No experiments yet: upload a trace above or paste a scenario below.'));
      return;
    }
    if (!shown.length) {
      host.append(h('p', { class: 'empty' }, `No experiment matches “${search.value.trim()}”.`));
      return;
    }
    host.append(table([
      { label: 'Experiment', cell: (e) => h('a', { href: `/experiments/${encodeURIComponent(e.slug)}`, class: 'strong' }, e.name || e.slug) },
      { label: 'Description', cell: (e) => h('span', { class: 'desc' }, e.description || '') },
      { label: 'Source', cell: (e) => h('span', { class: `tag tag-${e.source}` }, e.source || '—') },
      { label: 'Runs', num: true, cell: (e) => String((e.runs || []).length) },
      { label: 'Created', cell: (e) => h('span', { class: 'muted nowrap' }, formatDate(e.created)) },
    ], shown, { id: 'experiments', class: 'list' }));
  };
  search.addEventListener('input', () => {
    draw();
    // the search is part of the URL, so a link to it opens the same list
    const v = search.value.trim();
    replaceUrl(v ? `/?q=${encodeURIComponent(v)}` : '/');
  });
  root.append(h('div', { class: 'section-head search-head' }, h('h2', null, 'All experiments ', count),
    h('label', { class: 'search' }, h('span', { class: 'visually-hidden' }, 'search experiments'), search)), host);
  draw();
  root.append(h('div', { class: 'forms' }, scenarioForm()));
  // A new server stores the shipped scenarios behind its open port (issue
  // 30; GET /api/health "seeding"): the list grows as they arrive.
  const arriving = h('p', { class: 'muted', id: 'seeding', 'aria-live': 'polite', hidden: true });
  host.before(arriving);
  let timer = null;
  const poll = async () => {
    try {
      const hl = await api.health(ctx.signal);
      const now = await api.experiments(ctx.signal);
      exps.splice(0, exps.length, ...(now.experiments || []));
      draw();
      arriving.hidden = !hl.seeding;
      arriving.textContent = hl.seeding ? `Storing the shipped scenarios: ${exps.length} so far…` : '';
      setExtra('seeding', !!hl.seeding);
      if (hl.seeding) timer = setTimeout(poll, 700);
    } catch (e) {
      if (e.name !== 'AbortError') arriving.hidden = true;
    }
  };
  api.health(ctx.signal).then((hl) => {
    setExtra('seeding', !!hl.seeding);
    if (hl.seeding) poll();
  }).catch(() => {});
  return { view: 'experiments', cleanup: () => clearTimeout(timer) };
}
