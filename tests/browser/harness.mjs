// harness.mjs -- shared by the browser tests: starts `schedlab serve` on a
// free port with a fresh database, and a page of Debian's chromium through
// playwright-core (the run's shared browser, or one of its own).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

// the API tests' nvprof CSV writer: the big imports of the windowed views
export { nvprofCsv } from '../api/server.mjs';

// axe-core's (npm axe-core: WCAG 2.x A/AA) critical and serious violations
// of `page` as it stands, in the light and then the dark theme ({scheme,
// id, impact, nodes}); the page is left in the light theme. Evaluated
// through the debugging protocol: the page's CSP allows no script but
// schedlab's own, and a test must not weaken it.
let axeSrc = null;
export async function axeSerious(page) {
  axeSrc ??= fs.readFileSync(path.join(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(axeSrc);
  const bad = [];
  try {
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] }))
        .violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.slice(0, 3).map((n) => n.target.join(' ')) })));
      bad.push(...v.filter((x) => x.impact === 'serious' || x.impact === 'critical').map((x) => ({ scheme, ...x })));
    }
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
  return bad;
}

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const OUT = path.join(REPO, 'tests/browser/out');

// Where a test's picture of a page goes: the README's pictures (docs/NAME)
// when `make screenshots` asks for them (SCHEDLAB_DOC_SHOTS=1), else
// tests/browser/out/docs/NAME -- a test run leaves the checkout as it was.
export function docShot(name) {
  const p = path.join(process.env.SCHEDLAB_DOC_SHOTS === '1' ? path.join(REPO, 'docs') : path.join(OUT, 'docs'), name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  return p;
}

// The pictures are taken when asked for: SCHEDLAB_SHOTS=1 (`make test
// SHOTS=1`, or a file run alone), or `make screenshots`. No test asserts
// on one, and they are not cheap: Chromium's full-page picture of the
// compare view of two runs of 24,000 kernels (record_pages.test.mjs) took
// 16 s on an idle 2-core machine, more than the rest of that file.
export const SHOTS = process.env.SCHEDLAB_SHOTS === '1' || process.env.SCHEDLAB_DOC_SHOTS === '1';

// A picture of a page or of one element (a Playwright Page or Locator)
// into `file` (OUT/NAME, or docShot(NAME)), when SHOTS; `opts` as
// Playwright's screenshot() takes them (fullPage).
export async function shot(target, file, opts = {}) {
  if (SHOTS) await target.screenshot({ ...opts, path: file });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// extra: more `serve` arguments (a --token, a --budget).
export async function startServer(extra = []) {
  const bin = process.env.SCHEDLAB_BIN || path.join(REPO, 'schedlab');
  if (!fs.existsSync(bin)) throw new Error(`${bin} does not exist: build it (make build) or set SCHEDLAB_BIN`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-web-'));
  // the API tests' seed database, when make made one (tests/api/server.mjs)
  // (a copy of the seed, which seed.mjs checked, is not checked again: --no-check)
  const seeded = !!process.env.SCHEDLAB_SEED_DB;
  if (seeded) fs.copyFileSync(process.env.SCHEDLAB_SEED_DB, path.join(dir, 't.db'));
  const port = await freePort();
  const child = spawn(bin, ['serve', '--db', path.join(dir, 't.db'), '--port', String(port), '--bind', '127.0.0.1',
    ...(seeded ? ['--no-check'] : []), ...extra],
    // the shipped sweeps seeded small (tests/api/server.mjs, server/sweep_seed.h)
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SCHEDLAB_SEED_SWEEP_TASKSETS: process.env.SCHEDLAB_SEED_SWEEP_TASKSETS ?? '20' } });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`schedlab serve exited with ${child.exitCode}: ${log}`);
    try {
      // the port opens at once; the shipped scenarios are stored behind it
      // (issue 30): the tests want them all, so wait for "seeding": false
      const r = await fetch(`${base}/api/health`);
      if (r.ok && !(await r.json()).seeding) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`schedlab serve did not answer /api/health (seeding done) within 180 s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    log: () => log,
    async api(p, init) {
      const r = await fetch(base + p, init);
      const body = await r.json();
      return { status: r.status, body };
    },
    // an nvprof CSV uploaded as a new experiment: its run's id
    async importNvprof(name, body) {
      const r = await this.api(`/api/imports?format=nvprof-csv&name=${name}`, {
        method: 'POST', body, headers: { 'Content-Type': 'text/csv' },
      });
      if (r.status !== 201) throw new Error(`import ${name}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.run;
    },
    async stop() {
      if (child.exitCode === null) {
        const done = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([done, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Debian's chromium-headless-shell: Chromium's old headless shell, the
// same Blink and V8 without the browser around them, which Playwright itself
// runs for headless pages. The browser tests took a third less CPU there
// than in /usr/bin/chromium's new headless mode (all 28 files, two at a
// time on this project's 2-core machine: 241 against 369 CPU-s, every test
// passing in both). CHROMIUM names another; /usr/bin/chromium where the
// shell is not installed.
const SHELL = '/usr/bin/chromium-headless-shell';
export const CHROMIUM_PATH = process.env.CHROMIUM || (fs.existsSync(SHELL) ? SHELL : '/usr/bin/chromium');
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

// A browser page of this test file's own: a fresh context of the run's
// shared Chromium where make started one (SCHEDLAB_BROWSER_WS,
// with_browser.mjs), else a Chromium of its own with a fresh profile.
export async function startBrowser() {
  const viewport = { width: 1280, height: 900 };
  let context, done;
  if (process.env.SCHEDLAB_BROWSER_WS) {
    const browser = await chromium.connect(process.env.SCHEDLAB_BROWSER_WS);
    context = await browser.newContext({ viewport });
    done = async () => { await context.close(); await browser.close(); };
  } else {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, viewport,
    });
    done = async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    };
  }
  // make test runs JOBS test files at once on a 2-core machine: there a
  // full-page screenshot of a big page once took longer than Playwright's
  // 30 s default, which decided nothing the test asserts
  context.setDefaultTimeout(90000);
  const page = context.pages()[0] || await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  return { context, page, problems, close: done };
}

// A download's bytes (a Download's path() is not there when the browser is
// the run's shared one: its files are on the browser's side).
export async function downloaded(download) {
  const chunks = [];
  for await (const c of await download.createReadStream()) chunks.push(c);
  return Buffer.concat(chunks);
}

// The usual set-up of a browser test file: a server (its shipped
// experiments stored), a browser page, OUT made; with the experiments as
// /api/experiments lists them. A failure half-way stops what had started.
// Undo with stopServerAndBrowser in the file's after().
export async function startServerAndBrowser(extra = []) {
  const srv = await startServer(extra);
  let br;
  try {
    br = await startBrowser();
    fs.mkdirSync(OUT, { recursive: true });
    const { body } = await srv.api('/api/experiments');
    return { srv, br, page: br.page, experiments: body.experiments };
  } catch (e) {
    await stopServerAndBrowser(srv, br);
    throw e;
  }
}

export async function stopServerAndBrowser(srv, br) {
  if (br) await br.close();
  if (srv) await srv.stop();
}

// Resolves once the view named `view` has finished drawing; on a timeout
// the message says which view is shown and what error it displays.
// (Playwright's default timeout, the context's 90 s above: a view that is
// slow on a busy 2-core machine is not what any test asserts)
export async function ready(page, view) {
  try {
    await page.waitForFunction((v) => window.schedlab && window.schedlab.ready === true
      && (!v || window.schedlab.view === v), view);
  } catch (e) {
    const seen = await page.evaluate(() => ({
      url: location.href,
      state: window.schedlab ? { ...window.schedlab } : null,
      errors: [...document.querySelectorAll('.error')].map((el) => el.textContent),
    })).catch(() => null);
    throw new Error(`waiting for view ${view || '(any)'}: ${e.message}; page: ${JSON.stringify(seen)}`);
  }
  return page.evaluate(() => ({ ...window.schedlab }));
}

// The API's own rule for "in the window" (docs/api.md).
export function inWindow(blocks, from, to) {
  return blocks.filter((b) => b.start < to && b.end > from);
}

// Records the page's requests whose path matches re, as
// 'last-path-segment?query' in `asked`, until stop().
export function recordRequests(page, re) {
  const asked = [];
  const onReq = (r) => {
    const u = new URL(r.url());
    if (re.test(u.pathname)) asked.push(`${u.pathname.split('/').pop()}?${u.searchParams}`);
  };
  page.on('request', onReq);
  return { asked, stop: () => page.off('request', onReq) };
}

// With a window of run drawn as bars of `kind` (kernels, copies): one zoom
// step in draws the smaller window's rows -- drawn(state) of them, as many
// as GET /api/runs/{run}/{kind} answers for it -- from memory: no request
// is added to `asked` (recordRequests). Answers the page's state.
export async function zoomInFromMemory(page, srv, run, kind, drawn, asked) {
  const before = asked.length;
  await page.evaluate(() => window.schedlab.zoom(0.5));
  const st = await page.evaluate(() => ({ ...window.schedlab, zoom: undefined }));
  const w2 = st.window;
  const inner = (await srv.api(`/api/runs/${run}/${kind}?from=${w2.from}&to=${w2.to}&max=20000`)).body;
  assert.equal(drawn(st), inner.total);
  assert.equal(asked.length, before);
  return st;
}

// A Chart.js chart's series, [label, visible] each, in the element `sel`
// (the chart's card) of page `p`.
export function chartVisible(p, sel) {
  return p.evaluate((s) => {
    const c = window.Chart.getChart(document.querySelector(`${s} canvas`));
    return c.data.datasets.map((d, i) => [d.label, c.isDatasetVisible(i)]);
  }, sel);
}

// A real mouse click on the legend item of the series labelled `text` of
// the chart in `sel`.
export async function clickLegend(p, sel, text) {
  const box = await p.evaluate(([s, t]) => {
    const canvas = document.querySelector(`${s} canvas`);
    canvas.scrollIntoView();
    const c = window.Chart.getChart(canvas);
    // (by its series' label: a legend may shorten its text)
    const ds = c.data.datasets.findIndex((d) => d.label === t);
    const i = c.legend.legendItems.findIndex((x) => x.datasetIndex === ds);
    if (i < 0) return null;
    const hb = c.legend.legendHitBoxes[i];
    const r = canvas.getBoundingClientRect();
    return { x: r.left + hb.left + hb.width / 2, y: r.top + hb.top + hb.height / 2 };
  }, [sel, text]);
  if (!box) throw new Error(`${sel}: no legend item "${text}"`);
  await p.mouse.click(box.x, box.y);
}
