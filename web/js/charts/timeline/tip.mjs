// charts/timeline/tip.mjs -- the tooltip's lines for what lies under the
// pointer: [[title], [key, value], …], a pure function of the hit (layout.mjs
// hitAt or binAt), the state's window and bins, and the lanes.
//
// Times at the precision of the visible window (format.mjs timeFormat):
// at a 278 µs zoom every time reads in µs with 3 decimals.

import { formatBytes, timeFormat, shortName } from '../../format.mjs';
import { known, streamKey } from './layout.mjs';

export function tipLines(hit, st, model) {
  const i = hit.info;
  const f = timeFormat(st.win.to - st.win.from).format;
  if (hit.kind === 'block') {
    const k = i.kernel || {};
    const b = i.block;
    // a cohort's wave on one SM (issue 28): its blocks, indices index,
    // index + stride, …
    if (b.count > 1) {
      return [
        [`${k.name ?? b.kernel}: ${b.count} blocks`],
        ['stream', known(k.stream) ? String(k.stream) : '—'],
        ['blocks', String(b.count)], ['first block', String(b.index)],
        ['index step', String(b.stride ?? 1)], ['SM', String(b.sm)],
        ['start', f(b.start)], ['end', f(b.end)], ['duration', f(b.end - b.start)],
      ];
    }
    return [
      [`${k.name ?? b.kernel}:${b.index}`],
      ['stream', known(k.stream) ? String(k.stream) : '—'],
      ['block', String(b.index)], ['SM', k.device !== undefined ? `${b.sm} of GPU ${k.device}` : String(b.sm)],
      ['start', f(b.start)], ['end', f(b.end)], ['duration', f(b.end - b.start)],
      ...(b.pauses ? [['paused', b.pauses.map(([ps, pe]) => `${f(ps)}–${f(pe)}`).join(', ')],
        ['ran', f(b.end - b.start - b.pauses.reduce((a2, [ps, pe]) => a2 + pe - ps, 0))]] : []),
    ];
  }
  if (hit.kind === 'copy') {
    return [[i.name || 'copy'], ['direction', i.direction ?? '—'], ['bytes', formatBytes(i.bytes)],
      ['stream', i.stream ?? '—'], ['start', f(i.start)], ['end', f(i.end)],
      ['duration', f(i.end - i.start)]];
  }
  if (hit.kind === 'kernel') {
    const start = known(i.first_block) ? i.first_block : i.issue;
    return [[i.name], ['stream', i.stream ?? '—'], ['issue', f(i.issue)], ['start', f(start)],
      ['end', f(i.end)], ['duration', f(i.end - start)]];
  }
  if (hit.kind === 'wait') {
    // a CPU task blocked in a sync or a blocking copy (host.mjs)
    const w = i.wait;
    const c = i.call;
    const stream = (s) => (s.process && s.process !== 'P0' ? `${s.process}/${s.stream}` : String(s.stream ?? '—'));
    return [[w.label], ['task', w.task],
      ...(c.sync !== undefined ? [['sync', c.sync], ['scope', c.scope === 'device' ? `device (every earlier op of ${c.process ?? 'its process'})` : `stream ${stream(c)}`]]
        : [['copy', i.copy.name || String(c.copy)], ['stream', stream(i.copy)]]),
      ['scripted at', f(c.at)], ['called', f(w.start)],
      ['returned', known(w.end) ? f(w.end) : '— (the run ended first)'],
      ['blocked', known(w.end) ? f(w.end - w.start) : '—']];
  }
  if (hit.kind === 'launch') {
    return [['kernel launch'], ...i.map((k) => [shortName(k.name, 40), `${f(k.issue)}${known(k.stream) ? ` · stream ${k.stream}` : ''}`])];
  }
  if (hit.kind === 'cbin') {
    const { cbins } = st;
    const L = i.lane;
    const t0 = cbins.t + i.i * cbins.bin_ns;
    return [[model.lanes[model.ce.base + model.ce.engines.indexOf(L.engine)].label], ['from', f(t0)],
      ['to', f(t0 + cbins.bin_ns)], ['avg copies', (L.copy_ns[i.i] / cbins.bin_ns).toFixed(3)],
      ['max copies', String(L.max_copies[i.i])],
      ...Object.entries(L.directions).filter(([, v]) => v[i.i] > 0)
        .map(([dir, v]) => [`copy ${dir}`, f(v[i.i])])];
  }
  if (hit.kind === 'sbin') {
    const { sbins } = st;
    const L = i.lane;
    const t0 = sbins.t + i.i * sbins.bin_ns;
    return [[model.lanes[model.seen.get(streamKey(L))].label], ['from', f(t0)], ['to', f(t0 + sbins.bin_ns)],
      ['avg kernels', (L.kernel_ns[i.i] / sbins.bin_ns).toFixed(3)],
      ['avg threads', (L.thread_ns[i.i] / sbins.bin_ns).toFixed(1)],
      [sbins.max_exact ? 'max kernels' : 'max kernels (at most)', String(L.max_kernels[i.i])],
      [sbins.max_exact ? 'max threads' : 'max threads (at most)', String(L.max_threads[i.i])]];
  }
  return [[`SM ${i.sm}`], ['from', f(i.t)], ['to', f(i.t + st.bins.bin_ns)],
    ['avg threads', i.threads.toFixed(1)], ['avg blocks', i.blocks.toFixed(2)]];
}
