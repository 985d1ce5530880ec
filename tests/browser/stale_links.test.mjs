// Stale and malformed share links (DESIGN §6: "opening a link a teammate
// sent shows the same picture"; docs/api.md "Share links of a run"): a link
// that cannot show its picture any more -- a view the run has not, a window
// past the run's end, a query value that is not what the page writes --
// says so in words on the page, never draws an empty chart or a script
// error in its place.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServerAndBrowser, stopServerAndBrowser, ready } from './harness.mjs';

let srv;
let br;
let page;
let fig3;     // TX2 Fig. 3: blocks, queues; no warps, QoS kernels or tasks
let fig3Run;

before(async () => {
  let experiments;
  ({ srv, br, page, experiments } = await startServerAndBrowser());
  fig3 = experiments.find((e) => /^TX2 basic rules/.test(e.name));
  fig3Run = (await srv.api(`/api/runs/${fig3.runs[0].run}`)).body;
});

after(() => stopServerAndBrowser(srv, br));

const alertText = () => page.evaluate(() => [...document.querySelectorAll('[role=alert]')].map((e) => e.textContent).join(' | '));

test('a paper tab named in a link on a run without its data says so and lists the run\'s views', async () => {
  for (const [view, label, needs] of [['qos', 'QoS', /QoS goals/], ['warps', 'Warps', /warp issue slots/], ['tasks', 'Tasks', /real-time tasks/]]) {
    await page.goto(`${srv.base}/runs/${fig3Run.run}?view=${view}`);
    const st = await ready(page);
    assert.equal(st.view, 'error', view);
    const text = await alertText();
    assert.match(text, new RegExp(`This run has no ${label} view`), view);
    assert.match(text, needs, view);
    assert.doesNotMatch(text + await page.locator('main').innerText(), /undefined|NaN/, view);
    // the run's own views, each a link that opens
    const links = await page.locator('#view-unavailable a').evaluateAll((as) => as.map((a) => a.textContent));
    assert.deepEqual(links, await page.locator('nav.tabs a[data-tab]').evaluateAll((as) => as.map((a) => a.textContent)));
    assert.ok(!links.includes(label), view);
  }
  await page.locator('#view-unavailable a', { hasText: 'Timeline' }).click();
  const st = await ready(page, 'timeline');
  assert.equal(st.drawnBlocks, fig3Run.summary.blocks);
  // an unknown view lists this run's views, not every tab there is
  await page.goto(`${srv.base}/runs/${fig3Run.run}?view=bogus`);
  await ready(page, 'error');
  const text = await alertText();
  assert.match(text, /Unknown view "bogus"/);
  assert.doesNotMatch(text, /Warps|QoS|Tasks/);
  assert.deepEqual(br.problems, []);
});
