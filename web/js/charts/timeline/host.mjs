// charts/timeline/host.mjs -- the host's side of a run whose CPU tasks can
// be held (GET /api/runs/{run}/host_calls; docs/trace-format.md
// "host_calls"): where each CPU task was blocked. TX2 paper §2.3: a CPU
// program waits for its GPU work only through the synchronisation calls --
// cudaStreamSynchronize (a sync of scope "stream"), cudaDeviceSynchronize
// ("device") -- or a blocking cudaMemcpy (a copy with "blocking": true);
// each blocks its task from its call until it returns. Pure functions of
// the data: which tasks get a lane (layout.mjs laneModel places them),
// each wait as a bar on its task's lane, and the legend's kinds. Nothing
// here touches the canvas.

const known = (v) => v !== null && v !== undefined;   // (layout.mjs's: it imports this module)

// One colour per kind of wait, none a copy direction's or the block
// palette's first hues (colors.mjs PALETTE starts with Tableau 10), each
// seen on the light and the dark theme's task lane.
export const WAIT_KINDS = {
  stream: { color: '#64748b', legend: 'cudaStreamSynchronize (task blocked)' },
  device: { color: '#e11d48', legend: 'cudaDeviceSynchronize (task blocked)' },
  copy: { color: '#ca8a04', legend: 'blocking cudaMemcpy (task blocked)' },
};

// The task a call names (streams[].task); a stream without one is a task
// of its own (scenario-format.md), named after it.
function taskOf(call, rec) {
  if (call.task) return call.task;
  const s = call.sync !== undefined ? call : rec;
  return s ? `${s.process && s.process !== 'P0' ? `${s.process}/` : ''}${s.stream ?? '?'}` : null;
}

// Each wait of the host: {task, kind ('stream'|'device'|'copy'), start
// (called), end (returned; null when the run stopped first), label, info
// (the call, with its copy for a blocking one)}. calls: the run's host
// calls; copies: the run's copies (a blocking call names one by id).
export function hostWaits(calls, copies) {
  if (!calls || !calls.length) return [];
  const byId = new Map((copies || []).map((c, i) => [c.id ?? i, c]));
  const out = [];
  for (const call of calls) {
    if (call.sync !== undefined) {
      if (!known(call.issue)) continue;
      const kind = call.scope === 'device' ? 'device' : 'stream';
      out.push({
        task: taskOf(call), kind, start: call.issue, end: known(call.end) ? call.end : null,
        label: kind === 'device' ? 'cudaDeviceSynchronize()' : `cudaStreamSynchronize(${call.stream})`,
        info: { call },
      });
    } else if (call.copy !== undefined && call.blocking) {
      const cp = byId.get(call.copy);
      if (!cp || !known(cp.issue)) continue;
      out.push({
        task: taskOf(call, cp), kind: 'copy', start: cp.issue, end: known(cp.end) ? cp.end : null,
        label: `cudaMemcpy ${cp.name || `copy ${call.copy}`}`, info: { call, copy: cp },
      });
    }
  }
  return out;
}

// The CPU tasks that get a lane, in the order the host first calls from
// them: every task a call names, and a stream's own task where it waited.
export function hostTasks(calls, waits) {
  const out = [];
  for (const c of calls || []) if (c.task && !out.includes(c.task)) out.push(c.task);
  for (const w of waits) if (w.task && !out.includes(w.task)) out.push(w.task);
  return out;
}

// The waits as bars on their task's lane (lanes: laneModel's, host.base
// the first task lane, host.tasks their names): the whole lane's height
// but its padding (a task waits in one call at a time).
// bars: {x0, x1, y0, y1 (lane units), lane, kind: 'wait', color, label, info}
export function waitBars(waits, lanes, host, pad) {
  const bars = [];
  for (const w of waits) {
    const j = host.tasks.indexOf(w.task);
    if (j < 0) continue;
    const { pos, size } = lanes[host.base + j];
    bars.push({
      x0: w.start, x1: w.end ?? Number.MAX_SAFE_INTEGER, lane: host.base + j, kind: 'wait',
      y0: pos + size * pad, y1: pos + size * (1 - pad),
      name: null, color: WAIT_KINDS[w.kind].color, label: w.label, info: { ...w.info, wait: w },
    });
  }
  return bars;
}

// The kinds of wait the run has, in WAIT_KINDS' order (the legend's
// entries: none for a run without waits).
export function waitKinds(waits) {
  return Object.keys(WAIT_KINDS).filter((k) => waits.some((w) => w.kind === k));
}
