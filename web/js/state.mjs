// state.mjs -- window.schedlab, the page's state as the browser tests (and
// anyone at the console, and the dashboard bench of issue 9) see it: which
// view is shown, how many block rectangles are on screen, and whether
// drawing has finished. Views add their own keys with setExtra (the run
// view lists its keys at the top of views/run.mjs: window, mode, fetches,
// legendRows, lanes, tip, tableRows, tableOrder, queuesWindow, zoom, …).

const state = { drawnBlocks: 0, view: null, ready: false };
window.schedlab = state;

let waiters = [];

// A new view starts: not ready until it says so. Keys a view set stay
// until it sets them again (tests read them only after ready).
export function beginView(view) {
  state.view = view;
  state.ready = false;
  state.drawnBlocks = 0;
}

export function setBusy() {
  state.ready = false;
}

export function setReady() {
  state.ready = true;
  const w = waiters;
  waiters = [];
  for (const f of w) f();
}

// Resolves when the page has drawn what it was asked (now, if it has).
export function whenReady() {
  if (state.ready) return Promise.resolve();
  return new Promise((resolve) => waiters.push(resolve));
}

export function setDrawn(n) {
  state.drawnBlocks = n;
}

export function setExtra(key, value) {
  state[key] = value;
}
