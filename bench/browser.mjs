// browser.mjs -- make bench's browser rows (docs/bench.md): headless Chromium
// (Debian's, through playwright-core, as tests/browser/harness.mjs drives it)
// opening a run's page and zooming it, timed inside the page through the
// dashboard's documented hook: window.schedlab.ready (web/js/state.mjs) is
// false while a view fetches or draws and true once it has drawn.
//
// Each repeat is a fresh browser context (an empty HTTP cache, as when a
// link is opened for the first time), so a navigation pays for every fetch.

import fs from 'node:fs';

// Counts the page's fetches in flight (until each body is read): what a
// page still fetches once it says it is ready (a prefetch) is reported.
const INIT = `(() => {
  let n = 0;
  const f = window.fetch;
  window.__benchInflight = () => n;
  window.fetch = function (...a) {
    n++;
    return f.apply(this, a).then((r) => {
      const c = r.clone();
      c.arrayBuffer().then(() => { n--; }, () => { n--; });
      return r;
    }, (e) => { n--; throw e; });
  };
})();`;

export async function openBrowser() {
  const { chromium } = await import('playwright-core');
  const exe = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(exe)) throw new Error(`${exe} does not exist (CHROMIUM names another)`);
  const browser = await chromium.launch({
    executablePath: exe, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  return browser;
}

// Navigation to `url` until window.schedlab says the run view is ready with
// nothing in flight (ms from the navigation's start, the page's own clock),
// then one zoom step: a click on the toolbar's zoom-in button (what the
// wheel does, halving the window around its middle) until the view is ready
// again. Returns the times and every API request the page made, in order.
export async function timeRunPage(browser, url, { timeoutMs = 60000 } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await context.addInitScript(INIT);
    const page = await context.newPage();
    const requests = [];
    const problems = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/')) requests.push(u.pathname + u.search);
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(url, { waitUntil: 'commit', timeout: timeoutMs });
    // the page shows the run, or an error view (which ends the row);
    // fetches still in flight then are the page's prefetches for the next
    // zoom level, not part of drawing (counted, not waited for)
    const nav = await page.waitForFunction(() => {
      const s = window.schedlab;
      return s && s.ready === true && s.view !== null
        ? { t: performance.now(), view: s.view, inflight: window.__benchInflight() } : null;
    }, null, { polling: 'raf', timeout: timeoutMs });
    const { t: navMs, view, inflight: navInflight } = await nav.jsonValue();
    if (view === 'error' || view === 'notfound') {
      const shown = await page.evaluate(() => [...document.querySelectorAll('.error')].map((e) => e.textContent).join('; '));
      throw new Error(`${url}: the page shows view "${view}"${shown ? `: ${shown}` : ''}${problems.length ? ` (${problems.join('; ')})` : ''}`);
    }
    const navRequests = requests.length;
    const state = await page.evaluate(() => ({ ...window.schedlab }));
    // A zoom step: from the click until the view is ready, and stays so for
    // 300 ms (a view may redraw from what it has first and fetch after a
    // debounce); the time is where that last ready stretch began.
    const zoom = await page.evaluate((limit) => new Promise((resolve) => {
      const btn = document.querySelector('#zoom-in');
      if (!btn) {
        resolve({ ms: null, why: 'no #zoom-in button on the page' });
        return;
      }
      const t0 = performance.now();
      btn.click();
      let sawBusy = false;
      let idleAt = null;
      const tick = () => {
        const s = window.schedlab;
        const now = performance.now();
        const idle = s.ready === true;
        if (!idle) {
          sawBusy = true;
          idleAt = null;
        } else if (idleAt === null) {
          idleAt = now;
        }
        if (idleAt !== null && now - idleAt >= 300) resolve({ ms: idleAt - t0, fetched: sawBusy });
        else if (now - t0 > limit) resolve({ ms: null, why: `not ready ${limit} ms after the click` });
        else requestAnimationFrame(tick);
      };
      // the click's own synchronous work is part of the step
      if (window.schedlab.ready !== true) sawBusy = true;
      requestAnimationFrame(tick);
    }), timeoutMs);
    return {
      nav_ms: navMs, nav_inflight: navInflight, zoom_ms: zoom.ms, zoom_fetched: zoom.fetched ?? null, zoom_why: zoom.why ?? null,
      requests: requests.slice(0, navRequests), zoom_requests: requests.slice(navRequests),
      mode: state.mode ?? null, drawn: state.drawnBlocks ?? null, problems,
    };
  } finally {
    await context.close();
  }
}
