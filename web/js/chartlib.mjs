// chartlib.mjs -- Chart.js (web/vendor/, copied from node_modules by `make
// web-vendor`), loaded beside the page's first requests instead of before
// them, and the one look of every chart.
//
// It used to be a parser-blocking <script> in <head>: no module ran, so no
// request went out, until its 210 KB had arrived and run (100-300 ms of
// the GCAPS case-study compare's first paint on the 2-core machine, issue
// 30). Now index.html only preloads it, preload.mjs runs it at once
// (loadChart), and api.mjs hands an answer to a view once it is in, so a
// view that draws what it fetched still finds window.Chart, as before.
//
// The look: the page's font, and text and grid colours that follow the
// theme (app.css --chart-ink and --chart-grid, light and dark, both >= 4.5:1
// on their background; issue 30: a fixed dark grey read 1.64:1 on the dark
// theme); every chart on the page is repainted when the theme changes.

const SRC = '/vendor/chart.umd.min.js';
let loading = null;

function chartColors(Chart) {
  const cs = getComputedStyle(document.documentElement);
  Chart.defaults.color = cs.getPropertyValue('--chart-ink').trim() || '#374151';
  Chart.defaults.borderColor = cs.getPropertyValue('--chart-grid').trim() || '#e5e7eb';
}

function chartLook(Chart) {
  // Chart.js writes its ticks with Intl.NumberFormat, whose first use loads
  // the browser's number data (40-70 ms in Chromium here): done now, while
  // the page's first answers are on their way, not at the first draw
  new Intl.NumberFormat('en-US').format(1);
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  chartColors(Chart);
  window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener('change', () => {
    chartColors(Chart);
    for (const c of Object.values(Chart.instances)) {
      // options resolved at creation keep the old colours: reset the scales'
      for (const sc of Object.values(c.options.scales || {})) {
        if (sc.ticks) sc.ticks.color = Chart.defaults.color;
        if (sc.title) sc.title.color = Chart.defaults.color;
        if (sc.grid) sc.grid.color = Chart.defaults.borderColor;
      }
      if (c.options.plugins?.legend?.labels) c.options.plugins.legend.labels.color = Chart.defaults.color;
      c.update('none');
    }
  });
  return Chart;
}

// The page's stylesheet, loaded: the look reads its theme variables. Chart.js
// may now run before it has arrived (a parser-blocking script used to wait
// for it); read then, a dark page got the light theme's ink (1.64:1, the
// a11y test's dark-theme check).
function styled() {
  const link = document.querySelector('link[rel="stylesheet"]');
  if (!link || link.sheet) return Promise.resolve();
  return new Promise((ok) => {
    link.addEventListener('load', ok, { once: true });
    link.addEventListener('error', ok, { once: true });
  });
}

// Resolves to window.Chart once the library has run (with the look set);
// the first call adds its <script>. A failed load rejects, and the next
// call tries again.
export function loadChart() {
  if (!loading) {
    loading = new Promise((ok, no) => {
      if (window.Chart) {
        ok(window.Chart);
        return;
      }
      const s = document.createElement('script');
      s.src = SRC;
      s.addEventListener('load', () => (window.Chart ? ok(window.Chart) : no(new Error(`${SRC} did not define Chart`))));
      s.addEventListener('error', () => {
        loading = null;
        s.remove();
        no(new Error(`Cannot load the chart library (${SRC})`));
      });
      document.head.append(s);
    }).then((Chart) => styled().then(() => chartLook(Chart)));
  }
  return loading;
}
