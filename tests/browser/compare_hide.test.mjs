// The compare page's charts name the runs their legends hide by run id
// (docs/api.md "Share links": hide_response, hide_cdf, hide_replay,
// hide_tasks), the stable thing in runs=. Before, they named a run by its
// label, so two runs of one label (the same scenario posted twice, or a run
// compared with itself) hid together from a link: the one hidden and the
// one shown alike. A link of the older label form still reads.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, startBrowser, ready, chartVisible } from './harness.mjs';

let srv;
let br;
let page;
let pascal;   // Most-room placement on Pascal (Gilman et al., §4.1)
let fig3;     // TX2 basic rules (Fig. 3)
let twin;     // [run of experiment 1, run of experiment 2]: one label

before(async () => {
  srv = await startServer();
  br = await startBrowser();
  page = br.page;
  const { body } = await srv.api('/api/experiments');
  pascal = body.experiments.find((e) => /^Most-room placement on Pascal/.test(e.name));
  fig3 = body.experiments.find((e) => /^TX2 basic rules/.test(e.name));
  assert.ok(pascal && fig3, 'the shipped scenarios are seeded');
  // one scenario posted twice: two experiments of one name, each run
  // "default", so both runs are labelled "compare: twins · default"
  const scn = JSON.stringify({
    schema: 'schedlab-scenario/1', name: 'compare: twins', device: 'tx2', streams: [{ name: 'S1' }],
    ops: [{ kernel: 'k', stream: 'S1', at: '0s', blocks: 2, threads: 256, block_time: '1ms' }],
  });
  twin = [];
  for (let i = 0; i < 2; i++) {
    const made = await srv.api('/api/experiments', { method: 'POST', headers: { 'content-type': 'application/json' }, body: scn });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    twin.push(made.body.runs[0].run);
  }
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

const runOf = (e, name) => e.runs.find((r) => r.name === name).run;
const params = () => Object.fromEntries(new URL(page.url()).searchParams);
const notes = () => page.locator('.link-note').allTextContents().then((x) => x.join(' | '));

// A real mouse click on the legend item of the chart's series i (clickLegend
// finds a series by its label, and these share theirs).
async function clickSeries(p, sel, ds) {
  const box = await p.evaluate(([s, i]) => {
    const canvas = document.querySelector(`${s} canvas`);
    canvas.scrollIntoView();
    const c = window.Chart.getChart(canvas);
    const j = c.legend.legendItems.findIndex((x) => x.datasetIndex === i);
    const hb = c.legend.legendHitBoxes[j];
    const r = canvas.getBoundingClientRect();
    return { x: r.left + hb.left + hb.width / 2, y: r.top + hb.top + hb.height / 2 };
  }, [sel, ds]);
  await p.mouse.click(box.x, box.y);
}

async function inFreshPage(url, fn) {
  const other = await br.context.newPage();
  try {
    await other.goto(url);
    await ready(other, 'compare');
    return await fn(other);
  } finally {
    await other.close();
  }
}

test('two runs of one label: the one hidden is named by its id, and a link hides it alone', async () => {
  const [a, b] = twin;
  await page.goto(`${srv.base}/compare?runs=${a},${b}`);
  const st = await ready(page, 'compare');
  const label = 'compare: twins · default';
  assert.deepEqual(st.runLabels, [label, label]);
  // the response chart: the second run hidden, its id in the URL
  await clickSeries(page, '#compare-chart', 1);
  await page.waitForFunction(() => new URL(location.href).searchParams.has('hide_response'));
  assert.equal(params().hide_response, b);
  const resp = await chartVisible(page, '#compare-chart');
  assert.deepEqual(resp.map(([, on]) => on), [true, false]);
  // the CDFs: the first run hidden, its id
  await clickSeries(page, '#compare-cdf', 0);
  await page.waitForFunction(() => new URL(location.href).searchParams.has('hide_cdf'));
  assert.equal(params().hide_cdf, a);
  // the link in a fresh page: the same runs hidden, and only those
  // (before: hide_response and hide_cdf were the label, both runs hidden)
  await inFreshPage(page.url(), async (p) => {
    assert.deepEqual((await chartVisible(p, '#compare-chart')).map(([, on]) => on), [true, false]);
    assert.deepEqual((await chartVisible(p, '#compare-cdf')).map(([, on]) => on), [false, true]);
    assert.equal(await p.locator('.link-note').count(), 0);
  });
  assert.deepEqual(br.problems, []);
});

test('a run compared with itself: its second series is ID~2, hidden alone', async () => {
  const mr = runOf(pascal, 'most-room');
  await page.goto(`${srv.base}/compare?runs=${mr},${mr}`);
  await ready(page, 'compare');
  await clickSeries(page, '#compare-chart', 1);
  await page.waitForFunction(() => new URL(location.href).searchParams.has('hide_response'));
  assert.equal(params().hide_response, `${mr}~2`);
  await inFreshPage(page.url(), async (p) => {
    assert.deepEqual((await chartVisible(p, '#compare-chart')).map(([, on]) => on), [true, false]);
  });
  // removing the first lists the run once: the series hidden, the second
  // lane's, is the run's id now; removing the second drops it
  await page.locator('#compare-runs .chip-remove').first().click();
  await ready(page, 'compare');
  assert.deepEqual(params(), { runs: mr, hide_response: mr });
  await page.goBack();
  await ready(page, 'compare');
  await page.locator('#compare-runs .chip-remove').last().click();
  await ready(page, 'compare');
  assert.deepEqual(params(), { runs: mr });
  await page.goto(`${srv.base}/compare?runs=${mr},${mr},${runOf(pascal, 'round-robin')}&hide_response=${mr}~2`);
  await ready(page, 'compare');
  await page.locator('#compare-runs .chip-remove').first().click();
  await ready(page, 'compare');
  assert.deepEqual(params(), { runs: `${mr},${runOf(pascal, 'round-robin')}`, hide_response: mr });
  assert.deepEqual((await chartVisible(page, '#compare-chart')).map(([, on]) => on), [false, true]);
  assert.equal(await notes(), '');
  assert.deepEqual(br.problems, []);
});

test('a link of the older label form still reads: a unique label hides its run, a shared one every run of it', async () => {
  const mr = runOf(pascal, 'most-room');
  const rr = runOf(pascal, 'round-robin');
  // (the response chart's labels are shortened, the CDFs' whole: the link
  // names what the chart named)
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}`);
  await ready(page, 'compare');
  const [, lrr] = (await chartVisible(page, '#compare-chart')).map(([l]) => l);
  const [cmr] = (await chartVisible(page, '#compare-cdf')).map(([l]) => l);
  const enc = encodeURIComponent;
  await page.goto(`${srv.base}/compare?runs=${mr},${rr}&hide_response=${enc(lrr)}&hide_cdf=${enc(cmr)}`);
  await ready(page, 'compare');
  assert.deepEqual((await chartVisible(page, '#compare-chart')).map(([, on]) => on), [true, false]);
  assert.deepEqual((await chartVisible(page, '#compare-cdf')).map(([, on]) => on), [false, true]);
  assert.equal(await notes(), '');
  // rewritten to the ids at once
  assert.deepEqual(params(), { runs: `${mr},${rr}`, hide_response: rr, hide_cdf: mr });
  // a label two runs share: both hidden, as such a link always hid them
  const [a, b] = twin;
  await page.goto(`${srv.base}/compare?runs=${a},${b}&hide_response=${enc('compare: twins · default')}`);
  await ready(page, 'compare');
  assert.deepEqual((await chartVisible(page, '#compare-chart')).map(([, on]) => on), [false, false]);
  assert.deepEqual(params(), { runs: `${a},${b}`, hide_response: `${a},${b}` });
  // an entry that is neither a run's id nor a label: said, dropped
  await page.goto(`${srv.base}/compare?runs=${a},${b}&hide_response=${a},nobody`);
  await ready(page, 'compare');
  assert.equal(await page.locator('#compare-chart-link-note').textContent(),
    `The link's hide_response= names "nobody", not a series of this chart (${a}: compare: twins · default, ${b}: compare: twins · default): it is left out.`);
  assert.deepEqual(params(), { runs: `${a},${b}`, hide_response: a });
  assert.deepEqual(br.problems, []);
});

// "compare the first 8" of a link of 9 runs carried the hide_* entries of
// the run it leaves out, which the next page noted as not its series.
test('"compare the first 8" drops the hidden series of the run it leaves out, without a note', async () => {
  const mr = runOf(pascal, 'most-room');
  const f3 = fig3.runs[0].run;
  const ids = [...Array(8).fill(mr), f3];
  await page.goto(`${srv.base}/compare?runs=${ids.join(',')}&hide_response=${mr}~2,${f3}&hide_cdf=${f3}&search=y`);
  await ready(page, 'compare');
  assert.equal(await page.locator('#compare-first').getAttribute('href'),
    `/compare?runs=${ids.slice(0, 8).join(',')}&hide_response=${mr}~2&search=y`);
  await page.locator('#compare-first').click();
  const st = await ready(page, 'compare');
  assert.equal(st.timelines, 8);
  assert.deepEqual(params(), { runs: ids.slice(0, 8).join(','), hide_response: `${mr}~2`, search: 'y' });
  assert.equal(await notes(), '');
  assert.deepEqual((await chartVisible(page, '#compare-chart')).map(([, on]) => on), [true, false, true, true, true, true, true, true]);
  // the link opened in a fresh page (not the click): no note either
  await inFreshPage(`${srv.base}${await page.evaluate(() => location.pathname + location.search)}`, async (p) => {
    assert.equal(await p.locator('.link-note').count(), 0);
  });
  assert.deepEqual(br.problems, []);
});
