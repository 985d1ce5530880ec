// views/replay_form.mjs -- "Replay in simulator" on a measured run's page
// (docs/api.md, POST /api/runs/{run}/replay; issue 30's replay UX).
//
// - Offered on measured runs only (imports: nsys, nvprof, …); a simulated
//   run is its own model already.
// - The device in the page's words: by default the trace's own device (the
//   server's choice: the trace's device when complete, else the preset its
//   name names); the presets are listed as "what if it ran on …".
// - One replay per measured run: when this run has been replayed already
//   (an experiment "Replay of <trace>" whose report names this run as the
//   measured one), the button opens that replay instead of making another
//   identical one; a "what if" device makes a new replay.
// - Errors in page language: the server's messages name the command line's
//   flag (they are shared with `schedlab replay`); the page says what to
//   pick instead.
//
// window.schedlab hook: replayExisting (the slug of this run's replay, or
// null), replayChecked (true once the lookup of it has ended), replayOffered
// (true when the form is shown).

import { api } from '../api.mjs';
import { h, errorBox } from '../dom.mjs';
import { navigate } from '../router.mjs';
import { setExtra } from '../state.mjs';

// A measured run: anything an importer made.
export function isMeasured(run) {
  return !!run.source && run.source !== 'simulation';
}

// The server's replay errors, with the CLI's flag put in the page's words.
export function pageWords(message) {
  return String(message)
    .replace(/--device: no preset named/g, 'No device preset is named')
    .replace(/;?\s*replay it on a device preset \(--device PRESET\)/g, ': pick a device under “what if it ran on…”')
    .replace(/--device PRESET/g, 'a device under “what if it ran on…”')
    .replace(/--device/g, 'the device choice');
}

// This run's replay experiment on its own device, if any: {slug, runs} or
// null. A trace with work on several GPUs replays as "Replay of NAME on N
// simulated GPUs". A "what if" replay (a preset asked for) is no such
// replay: the server's description says "on the preset NAME, as asked"
// (server/app/replay.c device_why; "each the preset NAME, as asked" for
// several GPUs), and opening it for "the trace's own device" showed another
// device's simulation as this one's.
async function existingReplay(c, signal) {
  const want = `Replay of ${c.run.trace_name || c.run.name || ''}`;
  const list = await api.experiments(signal);
  const named = (n) => n === want || (n || '').startsWith(`${want} on `);
  const whatIf = (d) => /\bthe preset [^,:]*, as asked\b/.test(d || '');
  const cands = (list.experiments || []).filter((e) => named(e.name) && !whatIf(e.description) && (e.runs || []).length);
  for (const e of cands.reverse()) {
    const rep = await api.fidelity(e.runs[0].run, signal).catch(() => null);
    if (rep && rep.replay && rep.measured_run === c.id) return { slug: e.slug, runs: e.runs.map((r) => r.run) };
  }
  return null;
}

export function replayForm(c, signal) {
  if (!isMeasured(c.run)) {
    setExtra('replayOffered', false);
    return null;
  }
  setExtra('replayOffered', true);
  const own = c.run.device?.name || c.run.meta?.device || null;
  const select = h('select', { id: 'replay-device', 'aria-label': 'the device to simulate the replay on' });
  const button = h('button', { type: 'submit' }, 'Replay in simulator');
  const open = h('a', { class: 'button', id: 'replay-open', hidden: true }, 'Open its replay');
  const msg = h('div', { class: 'form-msg', 'aria-live': 'polite' });
  const form = h('form', { class: 'replay', id: 'replay-form' },
    h('label', { for: 'replay-device' }, 'simulate on'), select, button, open, msg);
  select.append(h('option', { value: '', selected: true }, own ? `the trace's own device (${own})` : 'the trace\'s own device'));
  const whatIf = h('optgroup', { label: 'what if it ran on…' });
  select.append(whatIf);
  api.presets(signal).then((p) => {
    for (const x of p.presets || []) whatIf.append(h('option', { value: x.name }, x.name));
  }).catch((e) => {
    if (e.name !== 'AbortError') msg.replaceChildren(errorBox(e.message));
  });
  let existing = null;
  setExtra('replayExisting', null);
  setExtra('replayChecked', false);
  const found = existingReplay(c, signal).then((x) => {
    existing = x;
    setExtra('replayExisting', x ? x.slug : null);
    if (x) {
      open.hidden = false;
      open.setAttribute('href', `/compare?runs=${[c.id, ...x.runs].map(encodeURIComponent).join(',')}&replay=${encodeURIComponent(x.slug)}`);
      button.textContent = 'Replay again';
      button.title = 'on the trace\'s own device this opens the replay made already; a "what if" device makes a new one';
    }
    setExtra('replayChecked', true);
  }).catch(() => {});
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await found;
    // the same replay again: open the one there is
    if (existing && !select.value) {
      navigate(open.getAttribute('href'));
      return;
    }
    button.disabled = true;
    msg.replaceChildren(h('span', { class: 'muted' }, 'Simulating…'));
    try {
      const res = await api.replayRun(c.id, select.value, undefined, (f) => {
        msg.replaceChildren(h('span', { class: 'muted' }, `Simulating… ${Math.round(f * 100)} %`));
      });
      navigate(`${res.compare}&replay=${encodeURIComponent(res.slug)}`);
    } catch (e) {
      msg.replaceChildren(errorBox(pageWords(e.message)));
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
