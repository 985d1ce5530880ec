// Back and Forward between a run page's tabs (DESIGN §6: a page's URL holds
// its whole view; docs/api.md "Share links of a run"): each tab comes back
// with its own keys as it was left, whether it was left through a tab link
// or through Back/Forward, and the tab links then carry each tab's keys as
// the page last showed them. On the shipped ISCA'17 quota pair: the
// Timeline's legend search (`search`) and the QoS tab's hidden series
// (`hide_qos1`).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServerAndBrowser, stopServerAndBrowser, ready, chartVisible, clickLegend } from './harness.mjs';

let srv;
let br;
let page;
let exp;

before(async () => {
  let experiments;
  ({ srv, br, page, experiments } = await startServerAndBrowser());
  exp = experiments.find((e) => /^ISCA'17 quota sharing/.test(e.name));
  assert.ok(exp, 'the shipped quota pair is stored');
});

after(() => stopServerAndBrowser(srv, br));

const params = (u) => Object.fromEntries(new URL(u, srv.base).searchParams);
const tabHref = (name) => page.locator(`.tabs a[data-tab="${name}"]`).getAttribute('href');

test('Back then Forward between two tabs restores each with its own keys, and the tab links follow', async () => {
  const run = exp.runs.find((r) => r.name === 'quota-naive').run;
  await page.goto(`${srv.base}/runs/${run}?view=timeline`);
  await ready(page, 'timeline');
  // the Timeline: its legend searched
  await page.fill('#legend-search', 'q');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('search') === 'q');
  // the QoS tab (a tab link): its goal line hidden from its legend
  await page.click('.tabs a[data-tab="qos"]');
  let st = await ready(page, 'qos');
  const labels = st.qosLines[0].labels;
  const goal = labels[1];
  assert.match(goal, /^goal /);
  await clickLegend(page, '#qos-kernel-1', goal);
  await page.waitForFunction(() => new URL(location.href).searchParams.has('hide_qos1'));
  const qos = { view: 'qos', hide_qos1: goal };
  assert.deepEqual(params(page.url()), qos);

  // Back: the Timeline with its search, in the box and the URL
  await page.goBack();
  await ready(page, 'timeline');
  assert.deepEqual(params(page.url()), { view: 'timeline', search: 'q' });
  assert.equal(await page.locator('#legend-search').inputValue(), 'q');
  // the QoS tab's link: its hidden series as left through Back
  assert.deepEqual(params(await tabHref('qos')), qos);
  // Forward: the QoS tab with its series hidden
  await page.goForward();
  await ready(page, 'qos');
  assert.deepEqual(params(page.url()), qos);
  assert.deepEqual(await chartVisible(page, '#qos-kernel-1'), labels.map((l) => [l, l !== goal]));
  assert.deepEqual(params(await tabHref('timeline')), { view: 'timeline', search: 'q' });

  // keys changed after a Back or a Forward are the entry's too: the goal
  // shown again and the isolated IPC hidden, Back, the search changed,
  // Forward, Back
  await clickLegend(page, '#qos-kernel-1', goal);
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('hide_qos1'));
  await clickLegend(page, '#qos-kernel-1', labels[2]);
  await page.waitForFunction((l) => new URL(location.href).searchParams.get('hide_qos1') === l, labels[2]);
  const qos2 = { view: 'qos', hide_qos1: labels[2] };
  await page.goBack();
  await ready(page, 'timeline');
  assert.deepEqual(params(await tabHref('qos')), qos2);
  await page.fill('#legend-search', 'c');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('search') === 'c');
  await page.goForward();
  await ready(page, 'qos');
  assert.deepEqual(params(page.url()), qos2);
  assert.deepEqual(await chartVisible(page, '#qos-kernel-1'), labels.map((l) => [l, l !== labels[2]]));
  assert.deepEqual(params(await tabHref('timeline')), { view: 'timeline', search: 'c' });
  await page.goBack();
  await ready(page, 'timeline');
  assert.deepEqual(params(page.url()), { view: 'timeline', search: 'c' });
  assert.equal(await page.locator('#legend-search').inputValue(), 'c');
  assert.deepEqual(br.problems, []);
});
