// main.mjs -- starts the dashboard: one view at a time in <main>, chosen by
// the URL. Each view renders into a fresh container and may hand back a
// cleanup (charts, timers) that runs before the next view starts; a view
// still loading when the user moves on is aborted.

import { startRouter } from './router.mjs';
import { h, clear, errorBox } from './dom.mjs';
import { beginView, setReady, setDrawn, setExtra } from './state.mjs';
import { watchExports } from './exports.mjs';
import { VIEWS, loadView, preloadView } from './views.mjs';
import { loadChart } from './chartlib.mjs';
import { api, aheadAsked, aheadLeft, dropAhead } from './api.mjs';

const app = document.getElementById('app');
let current = null;   // {abort, cleanup}

let shown = 0;

async function show(route) {
  // answers asked for ahead are the first page's (preload.mjs): a later
  // page asks afresh, never takes a left-over one (it could be stale)
  if (shown++ > 0) dropAhead();
  if (current) {
    current.abort.abort();
    if (current.cleanup) current.cleanup();
    current.unwatch();
  }
  const abort = new AbortController();
  const me = { abort, cleanup: null, unwatch: () => {} };
  current = me;
  beginView(route.name);
  clear(app);
  document.title = 'schedlab';
  for (const a of document.querySelectorAll('.site-nav a')) {
    a.classList.toggle('active', a.getAttribute('href') === route.path);
  }
  const root = h('div', { class: 'view', dataset: { view: route.name } });
  app.append(root);
  // PNG and CSV buttons on every chart and table card (exports.mjs)
  me.unwatch = watchExports(root);
  if (!VIEWS[route.name]) {
    root.append(h('h1', null, 'Page not found'),
      h('p', null, `Nothing lives at ${route.path}. `, h('a', { href: '/' }, 'Back to the experiments.')));
    beginView('notfound');
    setReady();
    return;
  }
  root.append(h('p', { class: 'loading muted' }, 'Loading…'));
  try {
    // the view's modules: preloaded by preload.mjs for the page opened,
    // by idleViews for the others (views.mjs)
    const render = await loadView(route.name);
    if (current !== me) return;
    const res = await render(root, route, { signal: abort.signal });
    if (current !== me) {
      if (res && res.cleanup) res.cleanup();
      return;
    }
    root.querySelector(':scope > .loading')?.remove();
    me.cleanup = res && res.cleanup ? res.cleanup : null;
    beginView(res && res.view ? res.view : route.name);
    setDrawn(res && res.drawnBlocks ? res.drawnBlocks : 0);
    // answers asked for ahead (views.mjs early) that the view drew without
    setExtra('aheadAsked', aheadAsked());
    setExtra('aheadLeft', aheadLeft());
    setReady();
    idleViews();
  } catch (e) {
    if (e && e.name === 'AbortError') return;
    if (current !== me) return;
    root.querySelector(':scope > .loading')?.remove();
    root.append(errorBox(e && e.message ? e.message : String(e)));
    const other = e && e.status === 404 ? await otherKind(route) : null;
    if (current !== me) return;
    if (other) root.append(other);
    beginView('error');
    setReady();
  }
}

// A 404 for a run that is an experiment's id, or the reverse (a link
// pasted into the other kind of page): a pointer to the page it is.
async function otherKind(route) {
  const open = (id, href, what) => h('p', { class: 'other-kind' }, `"${id}" is ${what}: `, h('a', { href }, 'open it'), '.');
  try {
    const id = route.name === 'run' ? route.params.run : route.name === 'experiment' ? route.params.slug : null;
    if (!id) return null;
    if (route.name === 'run') {
      await api.experimentBrief(id);
      return open(id, `/experiments/${encodeURIComponent(id)}`, 'an experiment, not a run');
    }
    await api.run(id);
    return open(id, `/runs/${encodeURIComponent(id)}`, 'a run, not an experiment');
  } catch { /* neither: the 404 says it all */ }
  return null;
}

// Once the first view is drawn, the other views' modules are fetched and
// compiled while the browser is idle: a click to another page then waits
// for no module.
let idled = false;
function idleViews() {
  if (idled) return;
  idled = true;
  dropAhead();   // (answers asked for ahead that the view did not take)
  const later = window.requestIdleCallback || ((f) => setTimeout(f, 200));
  later(() => Object.keys(VIEWS).forEach((name) => preloadView(name)));
}

loadChart().catch(() => {});   // (preload.mjs has started it; this, if it has not run)
startRouter(show);
