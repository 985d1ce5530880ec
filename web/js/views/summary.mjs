// views/summary.mjs -- the run view's Summary tab (issue 29): what GET
// /api/runs/{run}/summary reports (docs/api.md), for any kernel-level run:
// per device and stream the time busy with compute kernels, communication
// (NCCL) kernels and copies, and idle; the share of communication time that
// compute overlaps; the launch delay distribution (launch call -> kernel
// start); kernels by name. Tables only, numbers as the server computed them.
import { api } from '../api.mjs';
import { h, table } from '../dom.mjs';
import { formatNs, formatCount, shortName } from '../format.mjs';
import { setExtra } from '../state.mjs';

const TOP = 50;   // kernel names listed (by total time)

const pct = (x) => (x === null || x === undefined ? '–' : `${(100 * x).toFixed(1)} %`);
const ns = (x) => (x === null || x === undefined ? '–' : formatNs(x));
const of = (part, whole) => (whole > 0 ? part / whole : null);

function laneColumns(withStream) {
  return [
    { label: 'Device', cell: (r) => r.process || '–' },
    ...(withStream ? [{ label: 'Stream', cell: (r) => r.stream || '–' }] : []),
    { label: 'Kernels', num: true, cell: (r) => formatCount(r.kernels) },
    { label: 'Copies', num: true, cell: (r) => formatCount(r.copies) },
    { label: 'Compute', num: true, cell: (r) => `${ns(r.compute_ns)} (${pct(of(r.compute_ns, r.window_ns))})` },
    { label: 'Communication', num: true, cell: (r) => `${ns(r.communication_ns)} (${pct(of(r.communication_ns, r.window_ns))})` },
    { label: 'Copies', num: true, cell: (r) => `${ns(r.copy_ns)} (${pct(of(r.copy_ns, r.window_ns))})` },
    { label: 'Idle', num: true, cell: (r) => `${ns(r.idle_ns)} (${pct(of(r.idle_ns, r.window_ns))})` },
    ...(withStream ? [] : [{ label: 'Comm. overlapped by compute', num: true, cell: (r) => pct(r.communication_overlap_share) }]),
  ];
}

// Streams in numeric order where they are numbers ("7" before "40").
function byLane(a, b) {
  if (a.process !== b.process) return a.process < b.process ? -1 : 1;
  const x = Number(a.stream), y = Number(b.stream);
  if (Number.isFinite(x) && Number.isFinite(y) && x !== y) return x - y;
  return a.stream < b.stream ? -1 : a.stream > b.stream;
}

export async function summaryTab(panel, c, ctx) {
  const s = await api.summary(c.run.run, ctx.signal);
  const L = s.launch_delay;
  const cm = s.communication;
  panel.append(
    h('div', { class: 'section-head' }, h('h2', null, 'Devices')),
    h('p', { class: 'hint' }, 'Time within each device\'s window (its first start to its last end) covered by compute kernels, '
      + 'communication (NCCL) kernels and copies; two records at once count once. '
      + `Communication overlapped by compute over the run: ${pct(cm.overlap_share)} of ${ns(cm.total_ns)}.`),
    table(laneColumns(false), s.devices, { id: 'summary-devices', class: 'list dense' }),
    h('div', { class: 'section-head' }, h('h2', null, 'Streams')),
    table(laneColumns(true), [...s.streams].sort(byLane), { id: 'summary-streams', class: 'list dense' }),
    h('div', { class: 'section-head' }, h('h2', null, 'Launch delay')),
    h('p', { class: 'hint' }, 'From the host\'s launch call to the kernel\'s start, for the kernels whose launch call the trace has.'),
    table([
      { label: 'Kernels', num: true, cell: () => formatCount(L.count) },
      { label: 'Min', num: true, cell: () => ns(L.min_ns) },
      { label: 'p50', num: true, cell: () => ns(L.p50_ns) },
      { label: 'p95', num: true, cell: () => ns(L.p95_ns) },
      { label: 'p99', num: true, cell: () => ns(L.p99_ns) },
      { label: 'Max', num: true, cell: () => ns(L.max_ns) },
      { label: 'Mean', num: true, cell: () => ns(L.mean_ns === null ? null : Math.round(L.mean_ns)) },
    ], [L], { id: 'summary-launch', class: 'list dense' }),
    h('div', { class: 'section-head' }, h('h2', null, `Kernels by name (${formatCount(s.kernels.length)}${s.kernels.length > TOP ? `, top ${TOP}` : ''})`)),
    table([
      { label: 'Kernel', cell: (k) => h('span', { title: k.name }, shortName(k.name, 70)) },
      { label: 'Count', num: true, cell: (k) => formatCount(k.count) },
      { label: 'Total', num: true, cell: (k) => ns(k.total_ns) },
      { label: 'Mean', num: true, cell: (k) => ns(Math.round(k.mean_ns)) },
      { label: 'p50', num: true, cell: (k) => ns(k.p50_ns) },
      { label: 'p95', num: true, cell: (k) => ns(k.p95_ns) },
      { label: 'Share of GPU time', num: true, cell: (k) => pct(k.share) },
    ], s.kernels.slice(0, TOP), { id: 'summary-kernels', class: 'list dense' }));
  setExtra('summaryDevices', s.devices.length);
  return {};
}
