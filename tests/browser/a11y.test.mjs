// Accessibility (issue 30): axe-core (npm axe-core, the rules of WCAG 2.x
// A/AA) on every page of the dashboard, in the light and the dark theme,
// with no critical or serious violation; a skip link as the first Tab stop;
// chart text contrast in the dark theme at least 4.5:1; the kernels table
// at 400 px scrolls instead of squeezing its columns; and the timeline's
// keyboard selection of a block with its tooltip and queue lookup.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServerAndBrowser, stopServerAndBrowser, ready, OUT, REPO, shot } from './harness.mjs';

const AXE = path.join(REPO, 'node_modules/axe-core/axe.min.js');
const AXE_SRC = fs.readFileSync(AXE, 'utf8');
let srv;
let br;
let page;
const pages = [];   // [name, path, view]

before(async () => {
  let experiments;
  ({ srv, br, page, experiments } = await startServerAndBrowser());
  const find = (re) => experiments.find((e) => re.test(e.name));
  const fig3 = find(/^TX2 basic rules/);
  const qaws = find(/^QAWS Fig\. 3/);
  const qaws4 = find(/^QAWS Fig\. 4a: 2dc/);   // 2 SMs of 4 sub-cores: the fold buttons, one pressed
  const quota = find(/^ISCA'17 quota sharing/);
  const gcaps = find(/^GCAPS case study/);
  const table1 = find(/^most-room Table 1: memory-intensive/);   // its "Reported beside simulated" card
  const run = fig3.runs[0].run;
  pages.push(['home', '/', 'experiments'], ['experiment', `/experiments/${fig3.slug}`, 'experiment'],
    ['timeline', `/runs/${run}?view=timeline`, 'timeline'], ['kernels', `/runs/${run}?view=kernels`, 'kernels'],
    ['queues', `/runs/${run}?view=queues`, 'queues'],
    ['warps', `/runs/${qaws.runs[0].run}?view=warps`, 'warps'],
    ['warps-folded', `/runs/${qaws4.runs[0].run}?view=warps&fold=1`, 'warps'], ['qos', `/runs/${quota.runs[0].run}?view=qos`, 'qos'],
    ['tasks', `/runs/${gcaps.runs[0].run}?view=tasks`, 'tasks'],
    ['compare', `/compare?runs=${quota.runs.map((r) => r.run).join(',')}`, 'compare'],
    ['compare-tasks', `/compare?runs=${gcaps.runs.map((r) => r.run).join(',')}`, 'compare'],
    ['experiment-reference', `/experiments/${table1.slug}`, 'experiment'],
    // a link naming a tab the run has not: the message and the run's own tabs as links
    ['tab-unavailable', `/runs/${run}?view=qos`, 'error'],
    ['notfound', '/nowhere', 'notfound']);
});

after(() => stopServerAndBrowser(srv, br));

async function axe() {
  // (evaluated through the debugging protocol: the page's CSP allows no
  // script but schedlab's own, and the test must not weaken it)
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(AXE_SRC);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
}

// Each page is opened once and checked in the light theme, then in the dark
// one it switches to as it stands (the page follows prefers-color-scheme
// live, as when the system's theme changes under an open tab).
test('axe-core: no critical or serious violation on any page, light and dark', async () => {
  const bad = [];
  try {
    for (const [name, p, view] of pages) {
      await page.goto(srv.base + p);
      await ready(page, view);
      for (const scheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: scheme });
        assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), scheme === 'dark');
        const v = await axe();
        for (const x of v.filter((y) => y.impact === 'critical' || y.impact === 'serious')) bad.push({ page: name, scheme, ...x });
      }
      await page.emulateMedia({ colorScheme: 'light' });
    }
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
  assert.deepEqual(bad, [], JSON.stringify(bad, null, 1));
  // (the unknown page is answered 404, which Chromium logs)
  assert.deepEqual(br.problems.filter((x) => !/status of 404/.test(x)), []);
  br.problems.length = 0;
});

// WCAG 2.x relative luminance and contrast
function lum(rgb) {
  const [r, g, b] = rgb.map((c) => {
    const x = c / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a, b) {
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
const rgbOf = (s) => {
  if (s.startsWith('#')) return [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16));
  return s.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
};

test('dark theme: the charts\' text is at least 4.5:1 on their background', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  const [, p, view] = pages.find((x) => x[0] === 'qos');
  await page.goto(srv.base + p);
  await ready(page, view);
  const got = await page.evaluate(() => {
    const cs = getComputedStyle(document.documentElement);
    const c = Object.values(window.Chart.instances)[0];
    return { ink: window.Chart.defaults.color, tick: c.options.scales.y.ticks.color, bg: cs.getPropertyValue('--chart-bg').trim() || cs.getPropertyValue('--card').trim() };
  });
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(got.tick, got.ink);
  const ratio = contrast(rgbOf(got.ink), rgbOf(got.bg));
  assert.ok(ratio >= 4.5, `${got.ink} on ${got.bg}: ${ratio.toFixed(2)}:1`);
});

// The Tasks tab's response chart marks each task's mean and MORT (GCAPS
// Table 5's measure): graphics a reader needs, so at least 3:1 on the
// chart's background (WCAG 2.1, 1.4.11 non-text contrast), in the dark
// theme opened as such and after a switch from the light one. They were
// near-blacks on both (#374151, #111827): 1.6:1 and 1.1:1 on the dark card.
test('dark theme: the Tasks chart\'s mean and MORT marks are at least 3:1 on their background', async () => {
  const [, p, view] = pages.find((x) => x[0] === 'tasks');
  const marks = () => page.evaluate(() => {
    const cs = getComputedStyle(document.documentElement);
    const ch = window.Chart.getChart(document.querySelector('#task-responses canvas'));
    const of = (label) => {
      const i = ch.data.datasets.findIndex((d) => d.label === label);
      return ch.getDatasetMeta(i).data.map((el) => el.options.backgroundColor);
    };
    return { bg: cs.getPropertyValue('--chart-bg').trim(), mean: of('mean'), mort: of('MORT') };
  });
  const check = (got, when) => {
    assert.ok(got.mean.length > 0 && got.mort.length > 0, when);
    for (const c of [...got.mean, ...got.mort]) {
      const ratio = contrast(rgbOf(c), rgbOf(got.bg));
      assert.ok(ratio >= 3, `${when}: ${c} on ${got.bg}: ${ratio.toFixed(2)}:1`);
    }
  };
  try {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(srv.base + p);
    await ready(page, view);
    check(await marks(), 'opened dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(srv.base + p);
    await ready(page, view);
    check(await marks(), 'light');
    await page.emulateMedia({ colorScheme: 'dark' });
    // chartlib.mjs repaints every chart in the same task as it sets the new ink
    await page.waitForFunction(() => window.Chart.defaults.color === getComputedStyle(document.documentElement).getPropertyValue('--chart-ink').trim()
      && getComputedStyle(document.documentElement).getPropertyValue('--chart-bg').trim() !== '#ffffff');
    check(await marks(), 'switched to dark');
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
});

test('a skip link is the first Tab stop and moves focus to the content', async () => {
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  await page.keyboard.press('Tab');
  const first = await page.evaluate(() => ({ cls: document.activeElement.className, text: document.activeElement.textContent }));
  assert.equal(first.cls, 'skip-link');
  await page.keyboard.press('Enter');
  const now = await page.evaluate(() => ({ id: document.activeElement.id, url: location.pathname }));
  assert.equal(now.id, 'app');
  assert.equal(now.url, '/');
});

test('at 400 px the kernels table scrolls sideways, its columns keep their width', async () => {
  const [, p] = pages.find((x) => x[0] === 'kernels');
  await page.setViewportSize({ width: 400, height: 800 });
  try {
    await page.goto(srv.base + p);
    await ready(page, 'kernels');
    const w = await page.evaluate(() => {
      const th = [...document.querySelectorAll('table.vtable th')].find((x) => /kernel/i.test(x.textContent));
      const card = th.closest('.table-card');
      return { th: th.getBoundingClientRect().width, scroll: card.scrollWidth, client: card.clientWidth, table: th.closest('table').getBoundingClientRect().width };
    });
    assert.ok(w.th >= 100, `the Kernel column is ${w.th} px wide`);
    // as wide as on a desktop window (1280 px: the table is ~1,200 px)
    assert.ok(w.table >= 1000, `the table is ${w.table} px wide`);
    assert.ok(w.scroll > w.client, 'the card scrolls');
    await shot(page, path.join(OUT, 'kernels-400px.png'));
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

test('the keyboard selects a block on the timeline, shows its tooltip and looks up the queues', async () => {
  br.problems.length = 0;
  const [, p] = pages.find((x) => x[0] === 'timeline');
  await page.goto(srv.base + p);
  await ready(page, 'timeline');
  await page.focus('.timeline-wrap canvas');
  await page.keyboard.press('.');
  const tip = await page.evaluate(() => window.schedlab.tip);
  assert.ok(Array.isArray(tip) && /:\d+$/.test(tip[0][0]), JSON.stringify(tip));
  const start = tip.find((l) => l[0] === 'start');
  assert.ok(start);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /[?&]at=\d+/.test(location.search));
  await page.locator('#queue-panel h3').waitFor();
  assert.match(await page.locator('#queue-panel h3').textContent(), /^Queues at /);
  assert.deepEqual(br.problems, []);
});

// The legend's "only" (README: 'shows one alone with "only"') floated in on
// hover alone: hidden (visibility) from everyone else, so no Tab stop
// reached it. It shows while its row holds the focus.
test('the keyboard reaches a legend row\'s "only", sees it, and shows that kernel alone', async () => {
  br.problems.length = 0;
  const [, p] = pages.find((x) => x[0] === 'timeline');
  await page.goto(srv.base + p);
  await ready(page, 'timeline');
  const item = page.locator('.legend-item[data-k="1"]');
  const name = await item.getAttribute('data-kernel');
  await item.focus();
  await page.keyboard.press('Tab');
  const f = await page.evaluate(() => {
    const e = document.activeElement;
    const cs = getComputedStyle(e);
    return { cls: e.className, label: e.getAttribute('aria-label'), shown: cs.visibility === 'visible' && cs.opacity === '1', ring: cs.outlineStyle };
  });
  assert.deepEqual(f, { cls: 'legend-only', label: `only ${name}`, shown: true, ring: f.ring === 'none' ? 'a focus ring' : f.ring });
  await page.keyboard.press('Enter');
  await ready(page, 'timeline');
  assert.equal(new URL(page.url()).searchParams.get('k'), '1');
  assert.deepEqual(await page.locator('.legend-item').evaluateAll((xs) => xs.map((x) => x.getAttribute('aria-pressed'))),
    ['false', 'true', 'false', 'false', 'false', 'false']);
  assert.deepEqual(br.problems, []);
});

// A kernel's button toggled from the keyboard keeps the focus: the legend
// rebuilds its rows, and the focus fell to the page's start (the next Tab
// began again at the legend's first row, a screen reader said nothing).
test('a legend button pressed from the keyboard keeps the focus', async () => {
  br.problems.length = 0;
  const [, p] = pages.find((x) => x[0] === 'timeline');
  await page.goto(srv.base + p);
  await ready(page, 'timeline');
  const focused = () => page.evaluate(() => {
    const e = document.activeElement;
    return `${e.className} ${e.dataset.k ?? e.dataset.only ?? ''} ${e.getAttribute('aria-pressed') ?? ''}`.trim();
  });
  await page.locator('.legend-item[data-k="2"]').focus();
  await page.keyboard.press('Enter');
  await ready(page, 'timeline');
  assert.equal(await focused(), 'legend-item off 2 false');
  await page.keyboard.press('Space');
  await ready(page, 'timeline');
  assert.equal(await focused(), 'legend-item 2 true');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await ready(page, 'timeline');
  assert.equal(await focused(), 'legend-only 2');
  assert.equal(new URL(page.url()).searchParams.get('k'), '2');
  assert.deepEqual(br.problems, []);
});
