// The timeline's pure parts under node, without a browser or a server
// (issue 24: charts/timeline/layout.mjs and charts/window.mjs): lanes and
// their grouping, the TX2 paper's block geometry (§3.1 Fig. 3: a block's
// height is its share of the SM's threads, concurrent blocks stacked), the
// zoom window's arithmetic and hit testing. Expectations are worked out by
// hand from those rules.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { laneModel, blockBars, PAD, CE_SIZE, TASK_SIZE, hitAt, nextHit, pickTime } from '../../web/js/charts/timeline/layout.mjs';
import { waitBars, waitKinds } from '../../web/js/charts/timeline/host.mjs';
import { clampWindow, keyWindow, wheelWindow, dragWindow, MIN_SPAN } from '../../web/js/charts/window.mjs';

const near = (a, b, msg) => assert.ok(Math.abs(a - b) < 1e-9, `${msg}: ${a} != ${b}`);

test('stream lanes in numeric order, then one lane per copy engine under them', () => {
  const kernels = [{ stream: 20 }, { stream: 7 }, { stream: 16 }, { stream: 7 }].map((k, i) => ({ ...k, id: i, name: `K${i}` }));
  const copies = [{ engine: 1, start: 0, end: 5 }, { engine: 0, start: 1, end: 2 }, { engine: 3, start: null, end: 4 }];
  const m = laneModel({ mode: 'streams', kernels, copies });
  // 7 < 16 < 20 as numbers, not as text; a copy without a start names no engine
  assert.deepEqual(m.lanes.map((l) => l.label), ['stream 7', 'stream 16', 'stream 20', 'CE 0', 'CE 1']);
  assert.deepEqual(m.lanes.map((l) => l.pos), [0, 1, 2, 3, 3 + CE_SIZE]);
  near(m.span, 3 + 2 * CE_SIZE, 'span');
  assert.deepEqual([m.ce.base, m.ce.engines], [3, [0, 1]]);
  // two processes: "process/stream"
  const two = laneModel({ mode: 'streams', kernels: [{ process: 'b', stream: 1 }, { process: 'a', stream: 2 }], copies: [] });
  assert.deepEqual(two.lanes.map((l) => l.label), ['a/2', 'b/1']);
  // blocks: one lane per SM, the device's count (at least one), one CE lane named "CE"
  const sm = laneModel({ mode: 'blocks', sms: 3, kernels: [], copies: [{ engine: 2, start: 0, end: 1 }] });
  assert.deepEqual(sm.lanes.map((l) => l.label), ['SM 0', 'SM 1', 'SM 2', 'CE']);
});

// A run of several GPUs (DESIGN §5) whose blocks come whole: each GPU's SMs
// and copy engines on lanes of their own, GPU by GPU, so that SM 0 of GPU 1
// is not SM 0 of GPU 0 (an engine is "CE n" where its GPU has more than one
// copy lane, the UVM lane included, as with one GPU).
test('several GPUs: lanes per GPU\'s SMs and engines, each block on its kernel\'s GPU', () => {
  const kernels = [{ id: 0, name: 'A', threads: 256, device: 0 }, { id: 1, name: 'B', threads: 256, device: 1 }];
  const copies = [{ engine: 0, start: 0, end: 5, device: 1 }, { engine: 0, start: 0, end: 5, device: 0 },
    { direction: 'uvm_h2d', start: 1, end: 2, device: 1 }];
  const d = { mode: 'blocks', gpus: [2, 3], kernels, copies, threadsPerSm: 1024, colors: new Map() };
  const m = laneModel(d);
  assert.deepEqual(m.lanes.map((l) => l.label), ['GPU 0 · SM 0', 'GPU 0 · SM 1', 'GPU 1 · SM 0', 'GPU 1 · SM 1',
    'GPU 1 · SM 2', 'GPU 0 · CE', 'GPU 1 · CE 0', 'GPU 1 · UVM']);
  const bars = blockBars(d, [{ kernel: 0, index: 0, sm: 1, start: 0, end: 9 }, { kernel: 1, index: 0, sm: 1, start: 0, end: 9 }]);
  assert.deepEqual(bars.map((b) => b.lane), [1, 3]);
});

test('blocks: height = threads / threads per SM, concurrent blocks stacked from the lane bottom (TX2 Fig. 3)', () => {
  const d = { kernels: [{ id: 0, name: 'K1', threads: 512 }], threadsPerSm: 2048, colors: new Map([['K1', '#123456']]) };
  const blocks = [
    { kernel: 0, index: 0, sm: 1, start: 0, end: 100 },
    { kernel: 0, index: 1, sm: 1, start: 50, end: 150 },   // overlaps block 0: stacked above it
    { kernel: 0, index: 2, sm: 1, start: 100, end: 200 },  // starts as block 0 ends: back at the bottom
  ];
  const bars = blockBars(d, blocks);
  const h = (512 / 2048) * (1 - 2 * PAD);
  const bottom = 1 + 1 - PAD;   // SM 1's lane, less its pad
  near(bars[0].y1, bottom, 'block 0 bottom');
  near(bars[0].y0, bottom - h, 'block 0 top');
  near(bars[1].y1, bottom - h, 'block 1 sits on block 0');
  near(bars[1].y0, bottom - 2 * h, 'block 1 top');
  near(bars[2].y1, bottom, 'block 2 bottom');
  assert.deepEqual(bars.map((b) => b.label), ['K1:0', 'K1:1', 'K1:2']);
  assert.deepEqual(bars.map((b) => b.color), ['#123456', '#123456', '#123456']);
});

test('the window stays in the run, at least MIN_SPAN wide, and moves as the keys, wheel and drag say', () => {
  const ext = { min: 0, max: 1000 };
  assert.deepEqual(clampWindow(ext, -100, 20), { from: 0, to: 120 });
  assert.deepEqual(clampWindow(ext, 990, 995), { from: 1000 - MIN_SPAN, to: 1000 });
  assert.deepEqual(clampWindow(ext, -5, 5000), { from: 0, to: 1000 });
  const all = { from: 0, to: 1000 };
  assert.deepEqual(keyWindow(ext, all, '+'), { from: 250, to: 750 });          // half the span, about the middle
  assert.deepEqual(keyWindow(ext, { from: 250, to: 750 }, '−'), { from: 0, to: 1000 });
  assert.deepEqual(keyWindow(ext, { from: 0, to: 500 }, 'ArrowRight'), { from: 100, to: 600 });   // a fifth
  assert.deepEqual(keyWindow(ext, { from: 0, to: 500 }, 'ArrowLeft'), { from: 0, to: 500 });     // at the start already
  assert.deepEqual(keyWindow(ext, { from: 100, to: 200 }, 'Home'), all);
  assert.equal(keyWindow(ext, all, 'x'), null);
  // no wheel movement: the same window; about an anchor at 0 a zoom keeps 0 in place
  assert.deepEqual(wheelWindow(ext, { from: 200, to: 400 }, 300, 0), { from: 200, to: 400 });
  const z = wheelWindow(ext, { from: 0, to: 1000 }, 0, -100);
  assert.equal(z.from, 0);
  assert.equal(z.to, Math.round(1000 * Math.exp(-0.2)));
  // dragging right by a tenth of the width shows a tenth of the span earlier
  assert.deepEqual(dragWindow(ext, { from: 500, to: 700 }, 80, 800), { from: 480, to: 680 });
});

test('hit testing: the last drawn box wins; the keyboard walks left to right, top down', () => {
  const a = { kind: 'block', x0: 0, x1: 10, y0: 0, y1: 10, info: { block: { start: 7 } } };
  const b = { kind: 'copy', x0: 5, x1: 15, y0: 0, y1: 10, info: { start: 9 } };
  const c = { kind: 'kernel', x0: 5, x1: 15, y0: 20, y1: 30, info: { issue: 3, first_block: null } };
  const launch = { kind: 'launch', x0: 0, x1: 100, y0: 0, y1: 100, info: [] };
  const hits = [a, b, c];
  assert.equal(hitAt(hits, { x: 7, y: 5 }), b);
  assert.equal(hitAt(hits, { x: 2, y: 5 }), a);
  assert.equal(hitAt(hits, { x: 50, y: 50 }), null);
  const area = { left: 0, right: 100 };
  assert.equal(nextHit([...hits, launch], area, null, 1), a);   // launches are not walked
  assert.equal(nextHit(hits, area, a, 1), b);
  assert.equal(nextHit(hits, area, b, 1), c);
  assert.equal(nextHit(hits, area, c, 1), a);
  assert.equal(nextHit(hits, area, null, -1), c);
  assert.equal(nextHit([], area, null, 1), null);
  assert.deepEqual([a, b, c].map((r) => pickTime(r.info)), [7, 9, 3]);
});

// A run whose CPU tasks can be held (host.mjs; docs/trace-format.md
// "host_calls", scenario-format.md "What blocks the host"): a lane per CPU
// task under the copy engines, each wait a bar on its task's lane from the
// call to its return -- a stream sync and a device sync from their issue to
// their end, a blocking copy (cudaMemcpy returns when the copy has
// completed) from the copy's issue to its end; a sync the run stopped
// before returning runs on to the right; a stream without a task is a task
// of its own, named after it.
test('host calls: a lane per CPU task under the copy engines, each wait from its call to its return', () => {
  const copies = [{ id: 0, name: 'Cb', stream: 'S1', process: 'P0', issue: 30, start: 40, end: 70, engine: 0 }];
  const hostCalls = [
    { kernel: 0, at: 0, task: 'tau0' },
    { sync: 'Y', stream: 'S1', process: 'P0', scope: 'stream', at: 0, issue: 5, end: 20, task: 'tau1' },
    { copy: 0, at: 10, task: 'tau1', blocking: true },
    { sync: 'D', stream: 'S2', process: 'P0', scope: 'device', at: 80, issue: 80, end: null },
  ];
  const m = laneModel({ mode: 'blocks', sms: 1, kernels: [], copies, hostCalls });
  assert.deepEqual(m.lanes.map((l) => l.label), ['SM 0', 'CE', 'task tau0', 'task tau1', 'task S2']);
  assert.deepEqual(m.lanes.slice(2).map((l) => l.pos), [1 + CE_SIZE, 1 + CE_SIZE + TASK_SIZE, 1 + CE_SIZE + 2 * TASK_SIZE]);
  near(m.span, 1 + CE_SIZE + 3 * TASK_SIZE, 'span');
  assert.deepEqual(m.host.waits.map(({ task, kind, start, end, label }) => ({ task, kind, start, end, label })), [
    { task: 'tau1', kind: 'stream', start: 5, end: 20, label: 'cudaStreamSynchronize(S1)' },
    { task: 'tau1', kind: 'copy', start: 30, end: 70, label: 'cudaMemcpy Cb' },
    { task: 'S2', kind: 'device', start: 80, end: null, label: 'cudaDeviceSynchronize()' },
  ]);
  const bars = waitBars(m.host.waits, m.lanes, m.host, PAD);
  assert.deepEqual(bars.map((b) => [b.lane, b.x0]), [[3, 5], [3, 30], [4, 80]]);
  assert.ok(bars[2].x1 > Number.MAX_SAFE_INTEGER / 2, 'a sync that never returned runs on to the right');
  near(bars[0].y0, 1 + CE_SIZE + TASK_SIZE + TASK_SIZE * PAD, 'top');
  near(bars[0].y1, 1 + CE_SIZE + 2 * TASK_SIZE - TASK_SIZE * PAD, 'bottom');
  assert.deepEqual(waitKinds(m.host.waits), ['stream', 'device', 'copy']);
  // the picked time of a wait is its call
  assert.equal(pickTime(bars[1].info), 30);
  // an asynchronous copy and kernel launches block nothing; no calls, no lanes
  const none = laneModel({ mode: 'blocks', sms: 1, kernels: [], copies, hostCalls: [{ copy: 0, at: 10 }] });
  assert.deepEqual(none.host.waits, []);
  assert.deepEqual(laneModel({ mode: 'blocks', sms: 1, kernels: [], copies }).lanes.map((l) => l.label), ['SM 0', 'CE']);
  assert.deepEqual(waitKinds([]), []);
});
