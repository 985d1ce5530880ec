// views.mjs -- which module draws each page of router.mjs's ROUTES, and
// every module that module imports, directly or not.
//
// A page opened from a link loads only its own view's modules (issue 30:
// the GCAPS case-study compare drew in 1.0-1.4 s, a third of it Chromium
// fetching and compiling the 45 modules of every view; its own are 21).
// preload.mjs, the page's first script, asks for the current route's list
// at once (<link rel="modulepreload">, no import-by-import waterfall);
// main.mjs imports the view when it shows it, and once the first view is
// drawn preloads the others while the browser is idle, so moving between
// pages inside the dashboard costs no fetch.
//
// `modules[0]` exports the route's render function `render`; the rest is
// its import graph, in any order. tests/browser/preload.test.mjs walks the
// real imports and fails when a list and the graph part, and
// tests/api/page_routes.test.mjs checks every route has an entry.
//
// `early(route, api)`: the first requests the view makes, made through
// api.mjs's own functions (so the paths are the view's to the byte), which
// preload.mjs sends beside the modules (api.mjs askAhead); the view takes
// their answers in flight. A request listed here that the view does not
// make is wasted, never wrong (tests/browser/compare.test.mjs checks the
// case study's are all taken).
import { queryIds } from './router.mjs';

export const VIEWS = {
  experiments: {
    render: 'renderExperiments',
    early: (route, api) => api.experiments(),
    modules: ['views/experiments.mjs', 'api.mjs', 'chartlib.mjs', 'dom.mjs', 'format.mjs', 'router.mjs', 'state.mjs', 'upload.mjs'],
  },
  experiment: {
    render: 'renderExperiment',
    early: (route, api) => api.experiment(route.params.slug),
    modules: ['views/experiment.mjs', 'api.mjs', 'chartlib.mjs', 'dom.mjs', 'router.mjs', 'state.mjs', 'editor.mjs', 'format.mjs',
      'views/reference.mjs', 'views/sweep.mjs', 'charts/sweep.mjs', 'charts/hidden.mjs', 'views/rta.mjs', 'colors.mjs', 'exports.mjs', 'vtable.mjs'],
  },
  run: {
    render: 'renderRun',
    early: (route, api) => {
      api.run(route.params.run);
      api.capabilities();
    },
    modules: ['views/run.mjs', 'api.mjs', 'chartlib.mjs', 'dom.mjs', 'format.mjs', 'router.mjs', 'state.mjs', 'views/run/tabs.mjs',
      'views/replay_form.mjs', 'views/run/timeline.mjs', 'views/run/kernels.mjs', 'views/run/queues.mjs',
      'views/summary.mjs', 'views/warps.mjs', 'views/qos.mjs', 'charts/hidden.mjs', 'views/tasks.mjs', 'views/placement.mjs', 'colors.mjs',
      'charts/timeline.mjs', 'views/run/shared.mjs', 'vtable.mjs', 'ptable.mjs', 'exports.mjs', 'charts/queues.mjs',
      'canvas.mjs', 'charts/timeline/index.mjs', 'charts/window.mjs', 'charts/legend.mjs', 'charts/timeline/layout.mjs',
      'charts/timeline/state.mjs', 'charts/timeline/draw.mjs', 'charts/timeline/tip.mjs', 'charts/timeline/host.mjs', 'charts/stacking.mjs'],
  },
  compare: {
    render: 'renderCompare',
    // (views/compare.mjs: the limits, each run and its replay report, the
    // comparison; none with fewer than two runs, the picker's page). The
    // comparison once the limits have come: a link of more runs than one
    // comparison takes (compare_max_runs) is refused with a 400, and the
    // view offers its runs to remove instead (compare.mjs tooMany).
    early: (route, api, ahead) => {
      const ids = queryIds(route.query, 'runs') || [];
      if (ids.length < 2) return;
      const caps = api.capabilities();
      for (const id of ids) api.run(id);
      for (const id of ids) api.fidelity(id);
      caps.then((c) => {
        if (ids.length <= c.limits.compare_max_runs) ahead(() => api.compare(ids));
      }, () => {});
    },
    modules: ['views/compare.mjs', 'api.mjs', 'chartlib.mjs', 'dom.mjs', 'format.mjs', 'router.mjs', 'colors.mjs', 'state.mjs',
      'charts/compare.mjs', 'charts/timeline.mjs', 'views/qos.mjs', 'charts/hidden.mjs', 'views/tasks_compare.mjs',
      'charts/timeline/index.mjs', 'views/tasks.mjs', 'charts/legend.mjs', 'charts/window.mjs',
      'charts/timeline/layout.mjs', 'charts/timeline/state.mjs', 'charts/timeline/draw.mjs', 'charts/timeline/tip.mjs',
      'charts/timeline/host.mjs',
      'canvas.mjs', 'charts/stacking.mjs', 'views/run/shared.mjs', 'exports.mjs'],
  },
  sweeps: {
    render: 'renderSweeps',
    modules: ['views/sweep.mjs', 'api.mjs', 'chartlib.mjs', 'dom.mjs', 'editor.mjs', 'format.mjs', 'router.mjs', 'state.mjs',
      'charts/sweep.mjs', 'charts/hidden.mjs', 'views/rta.mjs', 'colors.mjs', 'exports.mjs', 'vtable.mjs'],
  },
};

const url = (m) => `/js/${m}`;

// <link rel="modulepreload"> for each module of the view `name` not asked
// for yet (those of index.html and of earlier calls are skipped): fetched
// and compiled, not run. Unknown names (the not-found page) preload nothing.
export function preloadView(name, doc = document) {
  const v = VIEWS[name];
  if (!v) return;
  const have = new Set([...doc.querySelectorAll('link[rel="modulepreload"]')].map((l) => l.getAttribute('href')));
  for (const m of v.modules) {
    if (have.has(url(m))) continue;
    const link = doc.createElement('link');
    link.rel = 'modulepreload';
    link.href = url(m);
    doc.head.append(link);
  }
}

// The render function of the view `name` (its module imported on first
// use), or null for a name no view draws.
export async function loadView(name) {
  const v = VIEWS[name];
  if (!v) return null;
  const mod = await import(url(v.modules[0]));
  return mod[v.render];
}
