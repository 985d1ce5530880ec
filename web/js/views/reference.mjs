// views/reference.mjs -- the experiment page's "Reported beside simulated"
// card: a scenario's "reference" block (docs/scenario-format.md,
// "Reference"; checked by server/formats/scenario_reference.c) row by row,
// the number the paper or recording reports beside the one the runs give,
// and whether they agree by the row's own rule. A ratio row divides two
// kernels' times (first block to end), a MORT row reads a task's largest
// response time from its run's summary, a start or end row a kernel's first
// block or end (ms), an sms row the SM of each of a kernel's blocks. window.schedlab.reference = [{label,
// runs, reported, model, ok}] (ok: true, false, or null without a rule).

import { api } from '../api.mjs';
import { h, table } from '../dom.mjs';
import { setExtra } from '../state.mjs';

// The runs a row's names refer to: the newest version's, by name; the base
// run is the first of them (the reader names it; docs/scenario-format.md).
function runsByName(e) {
  const runs = e.runs || [];
  const latest = Math.max(1, ...runs.map((r) => r.version ?? 1));
  const mine = runs.filter((r) => (r.version ?? 1) === latest);
  return { byName: new Map(mine.map((r) => [r.name, r.run])), base: mine.length ? mine[0].name : null };
}

// A kernel's time, first block to end (ns), by name in a run's kernels.
function kernelTime(kernels, name) {
  const k = kernels.find((x) => x.name === name);
  if (!k || k.first_block === null || k.first_block === undefined || k.end === null || k.end === undefined) return null;
  return k.end - k.first_block;
}

// A task's MORT (ns) from the run's meta "task:NAME" = "jobs=.. max=NS".
function mortOf(run, task) {
  const m = /(?:^|\s)max=(\d+)/.exec((run.meta || {})[`task:${task}`] || '');
  return m ? Number(m[1]) : null;
}

// The SM of each block of `kernel` (by index) in a run's window answer;
// null where the run answered bins (more blocks than the window holds).
function smsOf(win, kernels, name) {
  const k = kernels.find((x) => x.name === name);
  if (!k || !win || win.mode !== 'blocks') return null;
  const sms = [];
  for (const b of win.blocks) if (b.kernel === k.id) sms[b.index] = b.sm;
  return sms.length === k.blocks && !sms.includes(undefined) ? sms : null;
}

const listSms = (v) => (v.length > 12 ? `${v.slice(0, 12).join(', ')}, … (${v.length})` : v.join(', '));

// What the row's rule says of the model's value: {ok, text}.
function verdict(row, model) {
  if (model === null) return { ok: null, text: 'not in the run' };
  if (row.sms !== undefined) {
    const same = model.length === row.reported.length && model.every((x, i) => x === row.reported[i]);
    const first = model.findIndex((x, i) => x !== row.reported[i]);
    return { ok: same, text: same ? 'the same SMs' : `block ${first < 0 ? row.reported.length : first} differs` };
  }
  if (row.below !== undefined) return { ok: model < row.below, text: `${model < row.below ? 'below' : 'not below'} ${row.below}` };
  if (row.above !== undefined) return { ok: model > row.above, text: `${model > row.above ? 'above' : 'not above'} ${row.above}` };
  if (row.mort !== undefined || row.start !== undefined || row.end !== undefined) {
    const d = model - row.reported;
    const text = `${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(2)} ms`;
    if (row.within_ms === undefined) return { ok: null, text };
    return { ok: Math.abs(d) <= row.within_ms, text: `${text} (allowed ${row.within_ms} ms)` };
  }
  const f = model / row.reported;
  const text = `${f.toFixed(2)}× the reported`;
  if (row.within === undefined) return { ok: null, text };
  return { ok: f <= row.within && f >= 1 / row.within, text: `${text} (allowed a factor ${row.within})` };
}

const fmtRatio = (x) => `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}×`;

export async function referenceCard(e, signal) {
  const ref = e.scenario && e.scenario.reference;
  if (!ref) return null;
  const { byName, base } = runsByName(e);
  const rows = ref.rows.map((r) => ({ ...r, runName: r.run || base }));
  // every run a row reads, asked once
  const need = new Map();
  const want = (name, what) => {
    const id = byName.get(name);
    if (!id) return;
    const key = `${what}:${id}`;
    if (need.has(key)) return;
    need.set(key, what === 'k' ? api.kernels(id, signal).then((x) => x.kernels)
      : what === 'b' ? api.blocks(id, { max: 200000 }, signal) : api.run(id, signal));
  };
  // a row's kernels: [run, kernel] pairs (a name alone is in the row's run)
  const refs = (r) => [].concat(r.ratio ?? r.start ?? r.end ?? r.sms ?? [])
    .map((k) => (typeof k === 'string' ? [r.runName, k] : [k.run, k.kernel]));
  for (const r of rows) {
    if (r.mort !== undefined) want(r.runName, 'r');
    for (const [run] of refs(r)) want(run, 'k');
    if (r.sms !== undefined) for (const [run] of refs(r)) want(run, 'b');
  }
  const got = new Map(await Promise.all([...need].map(async ([k, p]) => [k, await p])));
  const kernelsOf = (runName) => got.get(`k:${byName.get(runName)}`) || [];
  const time = (runName, kernel) => kernelTime(kernelsOf(runName), kernel);
  // a kernel's first block or end, in ms
  const at = (runName, kernel, field) => {
    const k = kernelsOf(runName).find((x) => x.name === kernel);
    return k && k[field] !== null && k[field] !== undefined ? k[field] / 1e6 : null;
  };
  const out = rows.map((r) => {
    let model = null;
    if (r.mort !== undefined) {
      const run = got.get(`r:${byName.get(r.runName)}`);
      const ns = run ? mortOf(run, r.mort) : null;
      model = ns === null ? null : ns / 1e6;
    } else if (r.ratio !== undefined) {
      const [a, b] = refs(r).map(([run, k]) => time(run, k));
      model = a === null || b === null || b === 0 ? null : a / b;
    } else if (r.sms !== undefined) {
      const [[run, k]] = refs(r);
      model = smsOf(got.get(`b:${byName.get(run)}`), kernelsOf(run), k);
    } else {
      const [[run, k]] = refs(r);
      model = at(run, k, r.start !== undefined ? 'first_block' : 'end');
    }
    const v = verdict(r, model);
    const ms = r.mort !== undefined || r.start !== undefined || r.end !== undefined;
    const fmt = (x) => (r.sms !== undefined ? `SMs ${listSms(x)}` : ms ? `${x.toFixed(2)} ms` : fmtRatio(x));
    const reported = r.below !== undefined ? `< ${r.below}` : r.above !== undefined ? `> ${r.above}` : fmt(r.reported);
    const shown = model === null ? '—' : fmt(model);
    // the runs the row reads: its own, or each kernel's where they name one
    const runs = r.mort !== undefined ? [r.runName] : [...new Set(refs(r).map(([run]) => run))];
    return { label: r.label, runs, reported, model, shown, ok: v.ok, text: v.text, raw: r };
  });
  setExtra('reference', out.map((x) => ({ label: x.label, runs: x.runs, reported: x.raw.reported ?? null, model: x.model, ok: x.ok })));
  const agreed = out.filter((x) => x.ok === true).length, judged = out.filter((x) => x.ok !== null).length;
  // MORT rows: their mean absolute difference (GCAPS Table 5's own measure of fit)
  const morts = out.filter((x) => x.raw.mort !== undefined && x.model !== null);
  const mae = morts.length ? morts.reduce((a, x) => a + Math.abs(x.model - x.raw.reported), 0) / morts.length : null;
  const cols = [
    { label: 'What', cell: (x) => x.label },
    {
      label: 'Run',
      cell: (x) => h('span', null, ...x.runs.flatMap((n, i) => [i ? ' / ' : null,
        byName.has(n) ? h('a', { href: `/runs/${encodeURIComponent(byName.get(n))}` }, n) : n])),
    },
    { label: 'Reported', num: true, cell: (x) => x.reported },
    { label: 'Simulated', num: true, cell: (x) => x.shown },
    {
      label: 'Agreement',
      cell: (x) => h('span', { class: x.ok === true ? 'met' : x.ok === false ? 'missed' : 'muted' },
        `${x.ok === true ? '✓ ' : x.ok === false ? '✗ ' : ''}${x.text}`),
    },
  ];
  return h('section', { class: 'card', id: 'reference' },
    h('h2', null, 'Reported beside simulated'),
    h('p', { class: 'hint' }, `${ref.source}. `,
      judged ? `${agreed} of ${judged} rows with a rule agree.` : 'The source gives no tolerance: both numbers are shown.',
      mae === null ? '' : ` Mean absolute MORT difference: ${mae.toFixed(2)} ms over ${morts.length} rows.`),
    table(cols, out, { id: 'reference-table', class: 'list' }));
}
