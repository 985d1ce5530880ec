// upload.mjs -- the upload area at the top of the home page (issue 15):
// several trace files at once, dropped or chosen, each with a bar for the
// transfer (XHR upload progress: fetch reports none) and then one for the
// import, which the server runs as a job for big files (202 {job}, polled
// at GET /api/jobs/{id}: parsed, then stored; api.mjs importWithProgress
// does the requests); the detected format and any error per file, and what
// the import left out of it or guessed (its "warnings", listed under the
// row; a file uploaded alone opens its run, whose header lists them); into a
// new experiment per file or an existing import experiment
// (POST /api/imports?experiment=). Several files make a run each, or, with
// "one run of all the files", one run (tarOf).

import { api, importWithProgress } from './api.mjs';
import { h, clear, errorBox, importWarnings, plural } from './dom.mjs';
import { setExtra } from './state.mjs';

function importOne(file, { format, experiment }, row) {
  return importWithProgress(file, { format, experiment, name: file.name },
    (f) => row.send(f), (f, state, phase) => row.imported(f, state, phase), row.signal, () => row.sent());
}

// Several files as one upload: a POSIX ustar archive of them (a Blob of
// their headers, the files themselves and the padding: nothing is read
// here), which the server's importers of several files (examiner-json, one
// file per stream; pytorch, one file per rank) expand and join into one run
// as they do an uploaded .tar (docs/api.md, importers/archive.c); the API
// takes one body per request. Named after the first file. A name of more
// than 100 bytes does not fit a ustar header: an Error saying so.
export function tarOf(files) {
  const enc = new TextEncoder();
  const parts = [];
  for (const f of files) {
    const name = enc.encode(f.name);
    if (name.length > 100) throw new Error(`${f.name}: a name of more than 100 bytes cannot go into one upload of several files; rename it`);
    const hd = new Uint8Array(512);
    const put = (at, text) => hd.set(enc.encode(text), at);
    hd.set(name, 0);
    put(100, '0000644\0');
    put(108, '0000000\0');
    put(116, '0000000\0');
    put(124, `${f.size.toString(8).padStart(11, '0')}\0`);
    put(136, `${Math.floor((f.lastModified || 0) / 1000).toString(8).padStart(11, '0')}\0`);
    put(148, '        ');   // the checksum counts its own field as spaces
    put(156, '0');
    put(257, 'ustar\0');
    put(263, '00');
    const sum = hd.reduce((a, b) => a + b, 0);
    put(148, `${sum.toString(8).padStart(6, '0')}\0 `);
    parts.push(hd, f, new Uint8Array((512 - (f.size % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));   // the end: two empty records
  return new File(parts, `${files[0].name} + ${files.length - 1} more`, { type: 'application/x-tar' });
}

// One row per file: name, two bars, the outcome, and a Cancel button while
// cancelling can still keep the file out of the database: before its turn
// (it is skipped), while its bytes go out (the transfer is dropped: the
// server keeps nothing of a body it did not get whole) and while the server
// imports it as a job (DELETE /api/jobs/{id}; the job's end is the answer:
// docs/api.md's 409 "cancelled; nothing was stored", or the run when the
// import finished first). Not between the last byte sent and the answer: an
// import under sync_bytes is stored by then. Its state goes to
// window.schedlab.uploads for the tests.
function fileRow(list, file, states, i) {
  const sendBar = h('progress', { class: 'send', max: '1', value: '0', 'aria-label': `${file.name}: transfer` });
  const impBar = h('progress', { class: 'import', max: '1', value: '0', 'aria-label': `${file.name}: import` });
  const pct = h('span', { class: 'pct muted' }, '0 %');
  const outcome = h('div', { class: 'outcome' }, h('span', { class: 'muted' }, 'waiting…'));
  const ctl = new AbortController();
  const cancel = h('button', { type: 'button', class: 'cancel', 'aria-label': `Cancel ${file.name}` }, 'Cancel');
  const bars = h('div', { class: 'bars' }, h('span', { class: 'bar-label' }, 'transfer'), sendBar, h('span', { class: 'bar-label' }, 'import'), impBar, pct);
  const li = h('li', { class: 'upload-file', dataset: { file: file.name } },
    h('div', { class: 'upload-name', title: file.name }, file.name, h('span', { class: 'muted' }, ` · ${(file.size / 1024).toFixed(1)} KiB`)),
    bars, h('div', { class: 'outcome-cell' }, outcome, cancel));
  list.append(li);
  // job: the server imported it as a job (202), with progress
  const st = { name: file.name, send: 0, import: 0, phase: null, state: 'waiting', job: false, format: null, run: null, experiment: null, error: null, warnings: [], warnings_total: 0 };
  states[i] = st;
  const publish = () => setExtra('uploads', states.map((s) => ({ ...s })));
  publish();
  // a row that did not import shows no bars: a part-filled bar would read
  // as "part imported", and nothing of it was stored
  const ended = (state, error) => {
    Object.assign(st, { state, error });
    cancel.remove();
    bars.hidden = true;
    outcome.replaceChildren(errorBox(error));
    publish();
  };
  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    cancel.textContent = 'Cancelling…';
    ctl.abort();
    // not started yet: nothing to stop, the batch skips it
    if (st.state === 'waiting') ended('cancelled', 'cancelled before it was sent; nothing was stored');
  });
  return {
    signal: ctl.signal,
    get cancelled() { return ctl.signal.aborted; },
    // the whole body is out: the server may be storing it already
    sent() {
      if (!ctl.signal.aborted) cancel.disabled = true;
    },
    send(f) {
      st.send = Math.max(st.send, f);
      st.state = 'sending';
      sendBar.value = st.send;
      pct.textContent = `${Math.round(st.send * 100)} % sent`;
      outcome.replaceChildren(h('span', { class: 'muted' }, 'uploading…'));
      publish();
    },
    // phase: the server's "parsing" (the first 80 % of the bar) or
    // "storing" (the rest), while the job runs
    imported(f, state, phase) {
      if (!st.job && !ctl.signal.aborted) cancel.disabled = false;   // a job: cancellable again
      st.job = true;
      st.import = Math.max(st.import, f);
      st.state = state === 'queued' ? 'queued' : 'importing';
      if (phase) st.phase = phase;
      impBar.value = st.import;
      pct.textContent = `${Math.round(st.import * 100)} % imported`;
      const doing = state === 'queued' ? 'queued on the server…'
        : st.phase === 'parsing' ? 'parsing the file…' : st.phase === 'storing' ? 'storing the rows…' : 'importing…';
      outcome.replaceChildren(h('span', { class: 'muted' }, doing));
      publish();
    },
    // res: POST /api/imports' answer (or its job's result), with what the
    // import left out of the file or guessed (docs/api.md "warnings"),
    // listed under the row
    done(res) {
      cancel.remove();
      const warnings = Array.isArray(res.warnings) ? res.warnings : [];
      const total = Math.max(Number(res.warnings_total) || 0, warnings.length);
      Object.assign(st, { send: 1, import: 1, state: 'done', format: res.format || null, run: res.run, experiment: res.experiment,
        warnings, warnings_total: total });
      sendBar.value = 1;
      impBar.value = 1;
      pct.textContent = '100 %';
      outcome.replaceChildren(h('span', null, h('span', { class: 'ok' }, 'imported'),
        res.format ? [' as ', h('span', { class: 'tag format' }, res.format)] : null,
        total ? [' · ', h('span', { class: 'warn-count' }, plural('warning')(total))] : null, ' · ',
        h('a', { href: `/runs/${encodeURIComponent(res.run)}` }, 'open the run'), ' · ',
        h('a', { href: `/experiments/${encodeURIComponent(res.experiment)}` }, 'its experiment')),
      // (none without warnings: replaceChildren writes a null as the text "null")
      ...[importWarnings(warnings, total, { summary: () => 'what the import left out of the file or guessed' })].filter(Boolean));
      publish();
    },
    fail(e) {
      if (st.state === 'cancelled') return;
      if (e && e.name === 'AbortError') ended('cancelled', 'cancelled while it was sent; nothing was stored');
      else ended(ctl.signal.aborted && e.status === 409 ? 'cancelled' : 'failed', e.message);
    },
  };
}

// The form; onDone() after a batch: the page refreshes its list, the
// array `experiments` (the choice of an import experiment to add to
// follows it once onDone has settled).
export function uploadArea(experiments, onDone) {
  const input = h('input', { type: 'file', id: 'import-file', name: 'file', multiple: true });
  const format = h('select', { id: 'import-format', name: 'format' }, h('option', { value: '' }, 'detect from content'));
  // the formats and what each file is come from the server's importer table
  // (GET /api/capabilities, "importers"): a new importer shows here unedited
  // several files make a run each, unless joined (tarOf): the formats of
  // several files per recording are the importers marked multi_file
  const several = (multi) => `Several files at once make a run each; with “one run of all the files” they go up as one archive and make one run${multi.length ? ` (${multi.join(', ')}: e.g. the ranks of one job)` : ''}.`;
  const hint = h('p', { class: 'hint' }, `Trace files of any format below. ${several([])}`);
  const join = h('input', { type: 'checkbox', id: 'import-join', name: 'join' });
  api.capabilities().then((c) => {
    for (const f of c.formats || []) format.append(h('option', { value: f }, f));
    const what = (c.importers || []).map((i) => i.hint);
    const multi = (c.importers || []).filter((i) => i.multi_file).map((i) => i.name);
    if (what.length) hint.textContent = `${what.join('; ')}. ${several(multi)}`;
  }).catch(() => { /* detection still works; the select offers only it */ });
  const target = h('select', { id: 'import-experiment', name: 'experiment' });
  // the import experiments as the list has them now (after a batch too),
  // the chosen one kept
  const fillTargets = () => {
    const chosen = target.value;
    target.replaceChildren(h('option', { value: '' }, 'a new experiment per file'),
      ...experiments.filter((e) => e.source === 'import').map((e) => {
        const n = (e.runs || []).length;
        return h('option', { value: e.slug }, `${e.name || e.slug} (${n} run${n === 1 ? '' : 's'})`);
      }));
    target.value = chosen;
    if (target.value !== chosen) target.value = '';
  };
  fillTargets();
  const list = h('ul', { class: 'upload-list', id: 'upload-list' });
  const msg = h('div', { class: 'form-msg', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Upload');
  // (a drop target, not a control: the file input inside it is the one
  // control, labelled by the zone's text; issue 30's axe-core findings)
  const drop = h('div', { class: 'dropzone', id: 'dropzone' },
    h('label', { for: 'import-file' }, h('strong', null, 'Drop trace files here'), h('span', { class: 'muted' }, ' or choose them: ')), input);
  const form = h('form', { class: 'card form upload', id: 'import-form' },
    h('h2', null, 'Upload traces'),
    hint,
    drop,
    h('div', { class: 'row' },
      h('div', null, h('label', { for: 'import-format' }, 'Format'), format),
      h('div', null, h('label', { for: 'import-experiment' }, 'Into'), target),
      h('div', null, h('label', { for: 'import-join' }, join, ' one run of all the files'))),
    h('div', { class: 'actions' }, button), msg, list);
  let busy = false;
  async function run(chosen) {
    if (!chosen.length) {
      msg.replaceChildren(errorBox('Choose or drop trace files first.'));
      return;
    }
    if (busy) return;
    let files = chosen;
    if (join.checked && chosen.length > 1) {
      try {
        files = [tarOf(chosen)];
      } catch (e) {
        msg.replaceChildren(errorBox(e.message));
        return;
      }
    }
    busy = true;
    button.disabled = true;
    msg.replaceChildren();
    clear(list);
    const states = [];
    const rows = files.map((f, i) => fileRow(list, f, states, i));
    // one after another: the server imports one at a time anyway, and the
    // bars then read in order
    for (let i = 0; i < files.length; i++) {
      if (rows[i].cancelled) continue;
      try {
        rows[i].done(await importOne(files[i], { format: format.value, experiment: target.value }, rows[i]));
      } catch (e) {
        rows[i].fail(e);
      }
    }
    busy = false;
    button.disabled = false;
    if (onDone) await onDone(states);
    fillTargets();
  }
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    run([...(input.files || [])]);
  });
  for (const name of ['dragenter', 'dragover']) {
    drop.addEventListener(name, (ev) => {
      ev.preventDefault();
      drop.classList.add('over');
    });
  }
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (ev) => {
    ev.preventDefault();
    drop.classList.remove('over');
    run([...(ev.dataTransfer?.files || [])]);
  });
  return form;
}
