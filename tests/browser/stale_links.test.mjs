// Stale and malformed share links (DESIGN §6: "opening a link a teammate
// sent shows the same picture"; docs/api.md "Share links of a run"): a link
// that cannot show its picture any more -- a view the run has not, a window
// past the run's end, a query value that is not what the page writes --
// says so in words on the page, never draws an empty chart or a script
// error in its place.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServerAndBrowser, stopServerAndBrowser, ready, REPO } from './harness.mjs';

let srv;
let br;
let page;
let fig3;     // TX2 Fig. 3: blocks, queues; no warps, QoS kernels or tasks
let fig3Run;
let experiments;

before(async () => {
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

const noteText = () => page.evaluate(() => document.getElementById('link-note')?.textContent ?? null);

test('a link\'s window past the run\'s end shows the run and says so; one reaching past it keeps its part inside', async () => {
  const tMax = fig3Run.summary.t_max;    // 4.8 s (TX2 Fig. 3 at 0.2 s copies); the run starts at 0 (its extent: 0 to t_max)
  const url = (q) => `${srv.base}/runs/${fig3Run.run}?${q}`;
  // a link made on a longer run (or edited by hand): nothing of it is in this one
  await page.goto(url(`view=timeline&from=${tMax * 200}&to=${tMax * 400}`));
  let st = await ready(page, 'timeline');
  assert.deepEqual(st.window, { from: 0, to: tMax });
  assert.equal(st.drawnBlocks, fig3Run.summary.blocks);
  assert.match(await noteText(), /The link's window 960 s – 1920 s lies outside this run, which spans 0 s – 4.8 s: the whole run is shown/);
  // the URL says what is shown: a reload or Copy link gives this picture
  assert.equal(new URL(page.url()).searchParams.has('from'), false);
  // reaching past the end: the part inside
  const half = tMax / 2;
  await page.goto(url(`view=timeline&from=${half}&to=${tMax * 3}`));
  st = await ready(page, 'timeline');
  assert.deepEqual(st.window, { from: half, to: tMax });
  assert.match(await noteText(), /reaches past this run, which spans 0 s – 4.8 s: 2.4 s – 4.8 s is shown/);
  assert.equal(new URL(page.url()).searchParams.get('from'), String(half));
  assert.equal(new URL(page.url()).searchParams.get('to'), String(tMax));
  // not a window at all
  await page.goto(url('view=timeline&from=abc&to=xyz'));
  st = await ready(page, 'timeline');
  assert.deepEqual(st.window, { from: 0, to: tMax });
  assert.match(await noteText(), /The link's window \(from=abc, to=xyz\) is not a time range/);
  // a window inside the run: shown as asked, nothing to say
  await page.goto(url(`view=timeline&from=${tMax / 4}&to=${half}`));
  st = await ready(page, 'timeline');
  assert.deepEqual(st.window, { from: tMax / 4, to: half });
  assert.equal(await noteText(), null);
  // the Queues tab shares the window (docs/api.md), and the rule
  await page.goto(url(`view=queues&from=${tMax * 200}&to=${tMax * 400}`));
  st = await ready(page, 'queues');
  assert.deepEqual(st.queuesWindow, { from: 0, to: tMax });
  assert.match(await noteText(), /lies outside this run/);
  // the compare page's window (its axis: every run's extent)
  const other = fig3.runs[0].run;
  await page.goto(`${srv.base}/compare?runs=${fig3Run.run},${other}&from=${tMax * 200}&to=${tMax * 400}`);
  st = await ready(page, 'compare');
  assert.deepEqual(st.compareWindow, { from: 0, to: tMax });
  assert.match(await noteText(), /lies outside this run, which spans 0 s – 4.8 s/);
  assert.equal(new URL(page.url()).searchParams.get('to'), String(tMax));
  assert.deepEqual(br.problems, []);
});

test('a search link with a malformed escape (?q=50%) opens the list, searched for what it says', async () => {
  await page.goto(`${srv.base}/?q=50%25`);
  let st = await ready(page, 'experiments');
  assert.equal(await page.inputValue('#experiment-search'), '50%');
  await page.goto(`${srv.base}/?q=%zz`);
  st = await ready(page, 'experiments');
  assert.equal(await page.inputValue('#experiment-search'), '%zz');
  assert.equal(await page.locator('.error').count(), 0);
  assert.match(await page.locator('#experiments-host').innerText(), /No experiment matches “%zz”/);
  // and a plain word still searches
  await page.goto(`${srv.base}/?q=${encodeURIComponent('TX2 basic')}`);
  st = await ready(page, 'experiments');
  assert.ok(st.experimentsShown.includes(fig3.slug));
  assert.ok(st.experimentsShown.length < 5, st.experimentsShown.join(' '));
  assert.deepEqual(br.problems, []);
});

test('an experiment\'s id opened as a run, or a run\'s as an experiment, says which it is and links its page', async () => {
  const exp = fig3.slug;
  const run = fig3Run.run;
  await page.goto(`${srv.base}/runs/${exp}`);
  let st = await ready(page);
  assert.equal(st.view, 'error');
  assert.equal(await alertText(), (await srv.api(`/api/runs/${exp}`)).body.error);
  await page.waitForSelector('.other-kind a');
  assert.equal(await page.locator('.other-kind').textContent(), `"${exp}" is an experiment, not a run: open it.`);
  await page.click('.other-kind a');
  st = await ready(page, 'experiment');
  assert.equal(new URL(page.url()).pathname, `/experiments/${exp}`);
  // the reverse
  await page.goto(`${srv.base}/experiments/${run}`);
  st = await ready(page);
  assert.equal(st.view, 'error');
  await page.waitForSelector('.other-kind a');
  assert.equal(await page.locator('.other-kind a').getAttribute('href'), `/runs/${run}`);
  assert.match(await page.locator('.other-kind').textContent(), /is a run, not an experiment/);
  // an id of neither gets the 404 alone
  await page.goto(`${srv.base}/runs/zzzzzzzzzz`);
  await ready(page);
  assert.equal(await page.locator('.other-kind').count(), 0);
  assert.deepEqual(br.problems.filter((p) => !/status of 404/.test(p)), []);
  br.problems.length = 0;
});

// A comparison shared before one of its runs was deleted: the server's 404
// for that run, and the runs named offered (as a link of too many runs
// is), the gone one to remove, with a link to compare the others; never
// the error alone with no way on.
test('a compare link naming a run that was deleted says which and offers the others', async () => {
  const made = await srv.api('/api/experiments', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: fs.readFileSync(path.join(REPO, 'scenarios/tx2-fig3-basic-rules.json'), 'utf8') });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const doomed = made.body.runs[0].run;
  // two runs of blocks (Most-room placement on Pascal: most-room, round-robin)
  const [a, b] = experiments.find((e) => /^Most-room placement on Pascal/.test(e.name)).runs.map((r) => r.run);
  const del = await fetch(`${srv.base}/api/experiments/${made.body.slug}`, { method: 'DELETE' });
  assert.equal(del.status, 200);
  const gone = await srv.api(`/api/compare?runs=${a},${doomed},${b}`);
  assert.equal(gone.status, 404);
  await page.goto(`${srv.base}/compare?runs=${a},${doomed},${b}`);
  const st = await ready(page, 'compare');
  assert.deepEqual(st.compareMissing, [doomed]);
  assert.equal(await alertText(), gone.body.error);
  // every run named is a chip; the gone one removable
  assert.equal(await page.locator('#compare-runs li').count(), 3);
  assert.equal(await page.locator('#compare-missing').textContent(),
    `This link names a run the server does not have ("${doomed}": deleted since, or mistyped): remove it above, or compare the other 2.`);
  await page.click('#compare-others');
  const st2 = await ready(page, 'compare');
  assert.equal(new URL(page.url()).search, `?runs=${a},${b}`);
  assert.deepEqual(st2.compareMissing, []);
  assert.deepEqual(st2.runLabels.length, 2);
  assert.deepEqual(br.problems.filter((p) => !/status of 404/.test(p)), []);
  br.problems.length = 0;
});

test('the Warps and Tasks tabs say what became of a link\'s window past the run\'s end, as the Timeline does', async () => {
  const { body } = await srv.api('/api/experiments');
  // QAWS Fig. 3: a warp-level run of 38 cycles (its description)
  const warpRun = body.experiments.find((e) => /^QAWS Fig\. 3/.test(e.name)).runs[0].run;
  const last = Math.max(...(await srv.api(`/api/runs/${warpRun}/warps`)).body.warp_issues.map((w) => w.cycle));
  await page.goto(`${srv.base}/runs/${warpRun}?view=warps&c0=100000&c1=200000`);
  let st = await ready(page, 'warps');
  assert.deepEqual(st.warpWindow, { c0: 0, c1: last + 1 });
  assert.match(await noteText(), new RegExp(`The link's window cycle 100,000 – cycle 200,000 lies outside this run, which spans cycle 0 – cycle ${last + 1}: the whole run is shown`));
  assert.equal(new URL(page.url()).searchParams.has('c0'), false);
  await page.goto(`${srv.base}/runs/${warpRun}?view=warps&c0=x&c1=9`);
  st = await ready(page, 'warps');
  assert.match(await noteText(), /The link's window \(c0=x, c1=9\) is not a cycle range \(c0 and c1, whole cycles, c0 below c1\)/);
  await page.goto(`${srv.base}/runs/${warpRun}?view=warps&c0=10&c1=20`);
  st = await ready(page, 'warps');
  assert.deepEqual(st.warpWindow, { c0: 10, c1: 20 });
  assert.equal(await noteText(), null);
  // the GCAPS case study: real-time tasks
  const taskRun = body.experiments.find((e) => /^GCAPS case study/.test(e.name)).runs[0].run;
  const tMax = (await srv.api(`/api/runs/${taskRun}`)).body.summary.t_max;
  await page.goto(`${srv.base}/runs/${taskRun}?view=tasks&from=${tMax * 100}&to=${tMax * 200}`);
  st = await ready(page, 'tasks');
  assert.equal(st.taskWindow.from, 0);
  assert.match(await noteText(), /lies outside this run, which spans 0 s – .*: the whole run is shown/);
  assert.equal(new URL(page.url()).searchParams.has('from'), false);
  assert.deepEqual(br.problems, []);
});

test('a link\'s kernels (k=) that name none of the run\'s kernels, or are not a list, show every kernel and say so', async () => {
  const n = fig3Run.summary.kernels;   // TX2 Fig. 3: six kernels (Table 1)
  assert.equal(n, 6);
  await page.goto(`${srv.base}/runs/${fig3Run.run}?view=timeline&k=999-1005`);
  let st = await ready(page, 'timeline');
  assert.equal(st.drawnBlocks, fig3Run.summary.blocks);
  assert.equal(await noteText(), 'The link\'s kernels (k=999-1005) are none of this run\'s 6 kernels (numbered 0 to 5): every kernel is shown.');
  assert.equal(new URL(page.url()).searchParams.has('k'), false);
  await page.goto(`${srv.base}/runs/${fig3Run.run}?view=queues&k=a-b`);
  await ready(page, 'queues');
  assert.match(await noteText(), /The link's kernels \(k=a-b\) are not a list of kernel numbers: every kernel is shown/);
  // a k= naming some of them: shown as asked, nothing to say; k= empty (every kernel hidden): as asked
  await page.goto(`${srv.base}/runs/${fig3Run.run}?view=timeline&k=0,9`);
  st = await ready(page, 'timeline');
  assert.equal(await noteText(), null);
  assert.equal(st.drawnBlocks, 6);   // K1's six blocks (Table 1)
  await page.goto(`${srv.base}/runs/${fig3Run.run}?view=timeline&k=`);
  st = await ready(page, 'timeline');
  assert.equal(await noteText(), null);
  assert.equal(st.drawnBlocks, 0);
  // the compare page reads k= the same way
  await page.goto(`${srv.base}/compare?runs=${fig3Run.run},${fig3.runs[0].run}&k=40-50`);
  await ready(page, 'compare');
  assert.match(await noteText(), /The link's kernels \(k=40-50\) are none of this run's/);
  assert.deepEqual(br.problems, []);
});

// A link's picked time (at=) that is not a whole number of ns (an edited
// link, a time pasted with its unit) picks none and says so, the URL
// rewritten to what is shown, on the Timeline and the Queues tab alike; a
// whole number is shown as asked with nothing to say.
test('a link\'s time (at=) that is not a whole number of ns says so and picks none', async () => {
  for (const view of ['timeline', 'queues']) {
    await page.goto(`${srv.base}/runs/${fig3Run.run}?view=${view}&at=1.5ms`);
    await ready(page, view);
    assert.equal(await noteText(), 'The link\'s time (at=1.5ms) is not a whole number of ns: no time is picked.', view);
    assert.equal(new URL(page.url()).searchParams.has('at'), false, view);
    assert.match(await page.locator('#queue-panel').textContent(), /Click the chart to see what every queue holds/);
  }
  await page.goto(`${srv.base}/runs/${fig3Run.run}?view=timeline&at=1500000`);
  await ready(page, 'timeline');
  assert.equal(await noteText(), null);
  assert.equal(new URL(page.url()).searchParams.get('at'), '1500000');
  await page.waitForFunction(() => /Queues at/.test(document.querySelector('#queue-panel').textContent));
  assert.deepEqual(br.problems, []);
});

// A link's picked time (at=) outside the run (a link made on a longer run,
// or edited) picks the run's end, or its start, says so as a window past
// the end does, and the URL is rewritten to the time picked (docs/api.md
// "Share links of a run"), on the Timeline and the Queues tab alike.
// Before, at= far past the end was taken silently: no note, the URL kept
// it, and the queue panel answered for a time the run never reached.
test('a link\'s time (at=) outside the run picks its end or start, says so and rewrites the URL', async () => {
  const tMax = fig3Run.summary.t_max;    // 4.8 s; the run's extent is 0 to t_max (above)
  for (const view of ['timeline', 'queues']) {
    await page.goto(`${srv.base}/runs/${fig3Run.run}?view=${view}&at=${tMax * 200}`);
    await ready(page, view);
    assert.equal(await noteText(), `The link's time 960 s (at=${tMax * 200}) lies outside this run, which spans 0 s – 4.8 s: its end, 4.8 s, is picked.`, view);
    assert.equal(new URL(page.url()).searchParams.get('at'), String(tMax), view);
    await page.waitForFunction(() => /Queues at/.test(document.querySelector('#queue-panel').textContent));
    await page.goto(`${srv.base}/runs/${fig3Run.run}?view=${view}&at=-5`);
    await ready(page, view);
    assert.equal(await noteText(), 'The link\'s time -5 ns (at=-5) lies outside this run, which spans 0 s – 4.8 s: its start, 0 s, is picked.', view);
    assert.equal(new URL(page.url()).searchParams.get('at'), '0', view);
  }
  // the end itself is inside: nothing to say
  await page.goto(`${srv.base}/runs/${fig3Run.run}?view=timeline&at=${tMax}`);
  await ready(page, 'timeline');
  assert.equal(await noteText(), null);
  assert.equal(new URL(page.url()).searchParams.get('at'), String(tMax));
  assert.deepEqual(br.problems, []);
});

// The Warps tab's folded SMs (fold=): a value that is not a list of SM
// numbers, or names none of the run's SMs, folds nothing and says so, as a
// k= of the same kind does; one naming some of them folds those, silently.
test('a Warps link\'s fold= that is not a list of the run\'s SMs says so and folds nothing', async () => {
  const { body } = await srv.api('/api/experiments');
  const run = body.experiments.find((e) => /^QAWS Fig\. 4a: 2dc/.test(e.name)).runs[0].run;
  const { body: meta } = await srv.api(`/api/runs/${run}`);
  assert.equal(meta.device.sms, 2);
  for (const [fold, said] of [['x', 'The link\'s fold=x is not a list of SM numbers: no SM is folded.'],
    ['5-9', 'The link\'s fold=5-9 names none of this run\'s 2 SMs (0 to 1): no SM is folded.']]) {
    await page.goto(`${srv.base}/runs/${run}?view=warps&fold=${fold}`);
    const st = await ready(page, 'warps');
    assert.equal(await noteText(), said);
    assert.ok(!st.warpLanes.some((l) => /all \d+ sub-cores/.test(l)), JSON.stringify(st.warpLanes));
    assert.equal(new URL(page.url()).searchParams.has('fold'), false);
  }
  await page.goto(`${srv.base}/runs/${run}?view=warps&fold=1-9`);
  await ready(page, 'warps');
  assert.equal(await noteText(), null);
  assert.deepEqual(br.problems, []);
});
