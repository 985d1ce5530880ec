// state.mjs -- window.schedlab, the page's state as the browser tests (and
// anyone at the console) see it: which view is shown, how many block
// rectangles are on screen, and whether drawing has finished.

const state = { drawnBlocks: 0, view: null, ready: false };
window.schedlab = state;

// A new view starts: not ready until it says so.
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
}

export function setDrawn(n) {
  state.drawnBlocks = n;
}

export function setExtra(key, value) {
  state[key] = value;
}
