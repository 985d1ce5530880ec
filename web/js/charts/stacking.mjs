// stacking.mjs -- where each block sits vertically inside its SM lane.
//
// TX2 paper §3.1, Fig. 3: a block's rectangle is as tall as its thread count
// and blocks running together on one SM are stacked. We place blocks in
// start order at the lowest offset that does not collide with a block still
// running on the same SM (first fit), so rectangles that overlap in time
// never overlap on screen. Pure function: no DOM, testable under node.

// items: [{sm, start, end, size}] (size = threads; any positive number).
// Returns {offset: Float64Array (same order as items), extent: Map sm -> the
// highest offset + size used on that SM}.
export function stackBlocks(items) {
  const n = items.length;
  const offset = new Float64Array(n);
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => {
    const x = items[a];
    const y = items[b];
    return x.sm - y.sm || x.start - y.start || x.end - y.end || a - b;
  });
  const extent = new Map();
  let active = [];      // indices still running on the current SM, any order
  let curSm = null;
  for (const i of order) {
    const it = items[i];
    if (it.sm !== curSm) {
      curSm = it.sm;
      active = [];
    }
    // A block that ended at or before this start frees its space
    // (end is exclusive: the API's window rule is start < to && end > from).
    active = active.filter((j) => items[j].end > it.start);
    const taken = active
      .map((j) => [offset[j], offset[j] + items[j].size])
      .sort((p, q) => p[0] - q[0]);
    let y = 0;
    for (const [lo, hi] of taken) {
      if (y + it.size <= lo) break;
      if (hi > y) y = hi;
    }
    offset[i] = y;
    active.push(i);
    const top = y + it.size;
    if (!(extent.get(it.sm) >= top)) extent.set(it.sm, top);
  }
  return { offset, extent };
}

// Generic lanes for bars that have no thread count (kernels per stream,
// copies per engine): each bar is one unit high, stacked the same way.
export function stackUnits(items) {
  return stackBlocks(items.map((it) => ({ sm: it.lane, start: it.start, end: it.end, size: 1 })));
}
