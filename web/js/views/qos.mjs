// views/qos.mjs -- "/runs/{run}?view=qos": a run with QoS goals (the quota
// warp policies, ISCA'17) drawn against them. Per QoS kernel: its IPC per
// epoch (its issues in the run's warp_epochs over the epoch's cycles, over
// all SMs), its goal line (qos_goal x ipc_isolated, ISCA'17 §3.2) and its
// isolated IPC, and whether it met the goal (qos_met: its IPC over its
// execution time, trace-format.md); beside it, each non-QoS kernel's IPC
// per epoch and its share of its isolated IPC while it shared the GPU
// (ipc_shared / ipc_isolated, ISCA'17 Fig. 8). The compare page lays the
// schemes side by side with qosCompareSection (views/compare.mjs).
//
// window.schedlab hooks: qos = {kernels: [{name, goal, goal_ipc,
// isolated_ipc, ipc, attained, met, epochs}], nonqos: [{name, ipc_shared,
// ipc_isolated, share}]}, qosLines (per chart: the datasets' labels and
// their constant y where constant: goal and isolated lines).

import { h, table } from '../dom.mjs';
import { api } from '../api.mjs';
import { formatCount } from '../format.mjs';
import { colorMap } from '../colors.mjs';
import { setExtra } from '../state.mjs';
import { legendInUrlNoted } from '../charts/hidden.mjs';

export function hasQos(c) {
  return (c.run.summary?.qos_kernels || 0) > 0;
}

const pct = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : `${(x * 100).toFixed(1)} %`);
const num = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(2));

// The QoS facts of one run's kernels (GET /api/runs/{run}/kernels).
export function qosFacts(kernels) {
  const qos = kernels.filter((k) => k.qos_goal !== undefined && k.qos_goal !== null).map((k) => ({
    name: k.name, id: k.id, goal: k.qos_goal, goal_ipc: k.qos_goal * k.ipc_isolated, isolated_ipc: k.ipc_isolated,
    ipc: k.ipc, attained: k.ipc_isolated ? k.ipc / k.ipc_isolated : null, met: !!k.qos_met,
  }));
  const nonqos = kernels.filter((k) => k.ipc_shared !== undefined && k.ipc_shared !== null).map((k) => ({
    name: k.name, id: k.id, ipc_shared: k.ipc_shared, ipc_isolated: k.ipc_isolated,
    share: k.ipc_isolated ? k.ipc_shared / k.ipc_isolated : null,
  }));
  return { qos, nonqos };
}

// Per kernel id: [{x: epoch start cycle, y: IPC}] from the run's epochs.
function epochIpc(resp) {
  const by = new Map();
  for (const e of resp.warp_epochs || []) {
    if (!by.has(e.kernel)) by.set(e.kernel, []);
    by.get(e.kernel).push({ x: e.cycle, y: e.cycles > 0 ? e.issues / e.cycles : 0 });
  }
  for (const v of by.values()) v.sort((a, b) => a.x - b.x);
  return by;
}

function lineChart(host, { datasets, yTitle, aria, xMax }) {
  const Chart = window.Chart;
  const canvas = h('canvas', { role: 'img', 'aria-label': aria });
  const wrap = h('div', { class: 'chart-wrap', style: { height: '300px' } }, canvas);
  host.append(wrap);
  return new Chart(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true,
      scales: {
        x: { type: 'linear', min: 0, max: xMax, title: { display: true, text: 'cycle (epoch start)' } },
        y: { min: 0, title: { display: true, text: yTitle } },
      },
      plugins: { legend: { position: 'top' } },
      elements: { point: { radius: 0 } },
    },
  });
}

export async function qosTab(panel, c, route, ctx) {
  const resp = await api.warps(c.run.run, { max: 0 }, ctx.signal);
  const ipc = epochIpc(resp);
  const { qos, nonqos } = qosFacts(c.kernels);
  const colors = colorMap(c.kernels.map((k) => k.name));
  let x1 = 0;
  for (const v of ipc.values()) for (const p of v) x1 = Math.max(x1, p.x);
  const charts = [];
  const lines = [];
  const s = c.run.summary || {};
  panel.append(h('p', { class: 'lead', id: 'qos-verdict' },
    `${s.qos_met ?? 0} of ${s.qos_kernels} QoS kernel${s.qos_kernels > 1 ? 's' : ''} met ${s.qos_kernels > 1 ? 'their goals' : 'its goal'} under ${c.run.meta?.warp || 'this policy'}. `,
    'A QoS kernel meets its goal when its IPC over its execution time reaches the goal, a share of the IPC it reaches alone on the device (ISCA\'17 §3.2). The IPC per epoch below counts its warp instructions issued in each epoch over all SMs.'));
  // each chart's series hidden from its legend are the URL's, a key a
  // chart: hide_qos1, hide_qos2, … (the QoS kernels in this order) and
  // hide_nonqos (docs/api.md "Share links")
  for (const [i, q] of qos.entries()) {
    const card = h('section', { class: 'card qos-kernel', id: `qos-kernel-${i + 1}`, dataset: { kernel: q.name } });
    card.append(h('h2', null, `${q.name}: `, h('span', { class: q.met ? 'met' : 'missed' }, q.met ? 'met its goal' : 'missed its goal')),
      h('p', { class: 'muted' }, `IPC ${num(q.ipc)} against a goal of ${num(q.goal_ipc)} (${pct(q.goal)} of its isolated IPC ${num(q.isolated_ipc)}): it reached ${pct(q.attained)} of its isolated IPC.`));
    panel.append(card);
    const pts = ipc.get(q.id) || [];
    const end = Math.max(x1, 1);
    const col = colors.get(q.name);
    const ds = [
      { label: `${q.name} IPC per epoch`, data: pts, borderColor: col, backgroundColor: col, borderWidth: 2, stepped: 'before' },
      { label: `goal ${num(q.goal_ipc)} (${pct(q.goal)} of isolated)`, data: [{ x: 0, y: q.goal_ipc }, { x: end, y: q.goal_ipc }], borderColor: '#b42318', backgroundColor: '#b42318', borderDash: [6, 4], borderWidth: 2 },
      { label: `isolated IPC ${num(q.isolated_ipc)}`, data: [{ x: 0, y: q.isolated_ipc }, { x: end, y: q.isolated_ipc }], borderColor: '#6b7280', backgroundColor: '#6b7280', borderDash: [2, 3], borderWidth: 2 },
      { label: `${q.name} IPC over its run ${num(q.ipc)}`, data: [{ x: 0, y: q.ipc }, { x: end, y: q.ipc }], borderColor: col, backgroundColor: col, borderDash: [10, 3], borderWidth: 1 },
    ];
    charts.push(lineChart(card, { datasets: ds, xMax: end, yTitle: 'IPC (warp instructions per cycle)', aria: `IPC of ${q.name} per epoch against its goal and its isolated IPC` }));
    legendInUrlNoted(charts[charts.length - 1], route.query, `hide_qos${i + 1}`, `${card.id}-link-note`);
    lines.push({ kernel: q.name, epochs: pts.length, goal: q.goal_ipc, isolated: q.isolated_ipc, labels: ds.map((d) => d.label) });
    q.epochs = pts.length;
  }
  if (nonqos.length) {
    const card = h('section', { class: 'card', id: 'qos-nonqos' }, h('h2', null, 'Non-QoS kernels'),
      h('p', { class: 'muted' }, 'Their throughput while they shared the GPU with the QoS kernels, over what they reach alone (ISCA\'17 Fig. 8: what the QoS goals cost them).'),
      table([
        { label: 'Kernel', cell: (k) => k.name },
        { label: 'IPC shared', num: true, cell: (k) => num(k.ipc_shared) },
        { label: 'IPC isolated', num: true, cell: (k) => num(k.ipc_isolated) },
        { label: 'Share of isolated', num: true, cell: (k) => h('strong', null, pct(k.share)) },
      ], nonqos, { id: 'qos-nonqos-table' }));
    panel.append(card);
    const ds = nonqos.map((k) => ({ label: `${k.name} IPC per epoch`, data: ipc.get(k.id) || [], borderColor: colors.get(k.name), backgroundColor: colors.get(k.name), borderWidth: 2, stepped: 'before' }));
    charts.push(lineChart(card, { datasets: ds, xMax: Math.max(x1, 1), yTitle: 'IPC (warp instructions per cycle)', aria: 'IPC of the non-QoS kernels per epoch' }));
    legendInUrlNoted(charts[charts.length - 1], route.query, 'hide_nonqos', 'qos-nonqos-link-note');
  }
  if (!resp.warp_epochs?.length) panel.append(h('p', { class: 'muted' }, 'This run recorded no epochs: only the totals above are known.'));
  panel.append(h('p', { class: 'muted' }, `Epochs of ${formatCount(resp.warp_epochs?.[0]?.cycles || 0)} cycles.`));
  setExtra('qos', { kernels: qos, nonqos });
  setExtra('qosLines', lines);
  return { cleanup: () => charts.forEach((ch) => ch.destroy()) };
}

// The compare page's section for runs with QoS goals: one row per run
// (scheme), per QoS kernel its attained share against its goal, met or
// missed, and the non-QoS kernels' share, with a bar chart of both.
// runsKernels: [{label, name, experiment, run, kernels}] in the page's order.
// query: the page's URL query (the chart's hidden series: hide_qos);
// carried: hide_qos came from a comparison of other runs (legendInUrl's quiet).
export function qosCompareSection(runsKernels, query, carried = false) {
  const rows = runsKernels.map((r) => ({ ...r, ...qosFacts(r.kernels) }));
  const oneExp = rows.every((r) => r.experiment && r.experiment === rows[0].experiment);
  const names = [...new Set(rows.flatMap((r) => r.qos.map((q) => q.name)))];
  const others = [...new Set(rows.flatMap((r) => r.nonqos.map((q) => q.name)))];
  const cols = [{ label: 'Run', cell: (r) => h('a', { href: `/runs/${encodeURIComponent(r.run)}?view=qos`, class: 'run-label', title: r.label }, oneExp ? r.name : r.label) }];
  for (const n of names) {
    cols.push({ label: `${n} of isolated (goal)`, num: true, cell: (r) => {
      const q = r.qos.find((x) => x.name === n);
      if (!q) return '—';
      return h('span', null, `${pct(q.attained)} (${pct(q.goal)}) `, h('span', { class: q.met ? 'met' : 'missed' }, q.met ? 'met' : 'missed'));
    } });
  }
  for (const n of others) {
    cols.push({ label: `${n} share of isolated`, num: true, cell: (r) => pct(r.nonqos.find((x) => x.name === n)?.share) });
  }
  const card = h('section', { class: 'card', id: 'qos-compare' }, h('h2', null, 'QoS against the goal, scheme by scheme'),
    h('p', { class: 'muted' }, 'Each QoS kernel\'s IPC as a share of its isolated IPC against its goal (ISCA\'17 §3.2), and what the non-QoS kernels kept of theirs while sharing (Fig. 8). §4.2 orders the schemes Rollover > Elastic > Naive in QoSreach.'),
    table(cols, rows, { id: 'qos-compare-table' }));
  const Chart = window.Chart;
  const canvas = h('canvas', { role: 'img', 'aria-label': 'share of isolated IPC per run: QoS kernels against their goals, non-QoS kernels' });
  card.append(h('div', { class: 'chart-wrap', style: { height: '280px' } }, canvas));
  const datasets = [];
  const cmap = colorMap([...names, ...others]);
  for (const n of names) {
    datasets.push({ label: `${n} (QoS)`, data: rows.map((r) => 100 * (r.qos.find((x) => x.name === n)?.attained ?? NaN)), backgroundColor: cmap.get(n) });
    const goal = rows.map((r) => 100 * (r.qos.find((x) => x.name === n)?.goal ?? NaN));
    datasets.push({ type: 'line', label: `${n} goal`, data: goal, borderColor: '#b42318', backgroundColor: '#b42318', borderDash: [6, 4], pointStyle: 'line', pointRadius: 10 });
  }
  for (const n of others) datasets.push({ label: `${n} (non-QoS)`, data: rows.map((r) => 100 * (r.nonqos.find((x) => x.name === n)?.share ?? NaN)), backgroundColor: cmap.get(n) });
  const chart = new Chart(canvas, {
    type: 'bar',
    // one experiment's runs are told apart by their names (the schemes)
    data: { labels: rows.map((r) => (oneExp ? r.name : r.label.length > 40 ? `…${r.label.slice(-38)}` : r.label)), datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: { y: { min: 0, title: { display: true, text: '% of isolated IPC' } } },
      plugins: { legend: { position: 'top' } },
    },
  });
  legendInUrlNoted(chart, query, 'hide_qos', 'qos-compare-link-note', carried);
  setExtra('qosCompare', rows.map((r) => ({ run: r.run, qos: r.qos.map((q) => ({ name: q.name, attained: q.attained, goal: q.goal, met: q.met })), nonqos: r.nonqos.map((q) => ({ name: q.name, share: q.share })) })));
  return { el: card, destroy: () => chart.destroy() };
}
