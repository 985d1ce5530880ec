// The dashboard against a real `schedlab serve`: open the Fig. 3 experiment
// from the home page, check that exactly the API's blocks are drawn, zoom
// by URL and by wheel, hide a kernel from the legend, reload, compare runs,
// and see the server's error text after a bad upload.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, startBrowser, ready, inWindow, docShot, OUT, SHOTS, shot, chartVisible, clickLegend } from './harness.mjs';

let srv;
let br;
let page;
const fig3 = {};   // run id, blocks, kernels of the Fig. 3 run

before(async () => {
  srv = await startServer();
  br = await startBrowser();
  page = br.page;
  fs.mkdirSync(OUT, { recursive: true });
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

test('home page lists the shipped experiments and opens Fig. 3 to its timeline', async () => {
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  const { body: list } = await srv.api('/api/experiments');
  const rows = await page.locator('#experiments tbody tr').count();
  assert.equal(rows, list.experiments.length);
  const exp = list.experiments.find((e) => /^TX2 basic rules/.test(e.name));
  assert.ok(exp, 'the shipped scenarios include "TX2 basic rules…" (Fig. 3)');

  await page.getByRole('link', { name: exp.name }).click();
  await ready(page, 'experiment');
  assert.equal(new URL(page.url()).pathname, `/experiments/${exp.slug}`);
  assert.equal(await page.locator('#runs tbody tr').count(), exp.runs.length);

  await page.locator('#runs a.run-link').first().click();
  const st = await ready(page, 'timeline');
  fig3.run = new URL(page.url()).pathname.split('/').pop();
  assert.equal(fig3.run, exp.runs[0].run);
  fig3.exp = exp;
  const { body: blocks } = await srv.api(`/api/runs/${fig3.run}/blocks`);
  const { body: kernels } = await srv.api(`/api/runs/${fig3.run}/kernels`);
  const { body: run } = await srv.api(`/api/runs/${fig3.run}`);
  fig3.blocks = blocks.blocks;
  fig3.kernels = kernels.kernels;
  fig3.run_meta = run;
  assert.equal(blocks.mode, 'blocks');
  assert.equal(fig3.blocks.length, 18);
  assert.equal(st.drawnBlocks, 18);
  // one legend entry per kernel name, all shown
  const names = [...new Set(fig3.kernels.map((k) => k.name))];
  assert.equal(await page.locator('.legend-item[aria-pressed="true"]').count(), names.length);

  const picture = path.join(OUT, 'fig3-timeline.png');
  await shot(page, picture, { fullPage: true });
  if (SHOTS) fs.copyFileSync(picture, docShot('screenshot.png'));
  assert.deepEqual(br.problems, []);
});

test('a zoom window in the URL draws exactly the blocks overlapping it', async () => {
  const tMax = fig3.run_meta.summary.t_max;
  // Pick a window that cuts the run somewhere in the middle.
  let from = Math.round(tMax * 0.4);
  let to = Math.round(tMax * 0.55);
  let expected = inWindow(fig3.blocks, from, to).length;
  for (let f = 0.05; (expected === 0 || expected === fig3.blocks.length) && f < 0.95; f += 0.05) {
    from = Math.round(tMax * f);
    to = Math.round(tMax * (f + 0.1));
    expected = inWindow(fig3.blocks, from, to).length;
  }
  assert.ok(expected > 0 && expected < fig3.blocks.length, `window ${from}..${to} selects a strict subset`);
  await page.goto(`${srv.base}/runs/${fig3.run}?view=timeline&from=${from}&to=${to}`);
  const st = await ready(page, 'timeline');
  assert.equal(st.drawnBlocks, expected);
  const u = new URL(page.url());
  assert.equal(u.searchParams.get('from'), String(from));
  assert.equal(u.searchParams.get('to'), String(to));
});

test('wheel zoom narrows the window, writes it to the URL and redraws', async () => {
  await page.goto(`${srv.base}/runs/${fig3.run}?view=timeline`);
  await ready(page, 'timeline');
  const box = await page.locator('.timeline-wrap canvas').boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.4);
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -300);
  await page.waitForFunction(() => new URL(location.href).searchParams.has('from'));
  // the URL is written after a short pause; wait until it settles
  let prev = '';
  for (let i = 0; i < 20 && prev !== page.url(); i++) {
    prev = page.url();
    await page.waitForTimeout(150);
  }
  const u = new URL(page.url());
  const from = Number(u.searchParams.get('from'));
  const to = Number(u.searchParams.get('to'));
  const tMax = fig3.run_meta.summary.t_max;
  assert.ok(to - from < tMax * 0.5, `zoomed in: ${from}..${to}`);
  const st = await ready(page, 'timeline');
  assert.equal(st.drawnBlocks, inWindow(fig3.blocks, from, to).length);

  await page.click('#reset-zoom');
  const st2 = await ready(page, 'timeline');
  assert.equal(st2.drawnBlocks, 18);
  assert.equal(new URL(page.url()).searchParams.has('from'), false);
});

test('drag pans the window and the count follows', async () => {
  const tMax = fig3.run_meta.summary.t_max;
  const from = Math.round(tMax * 0.5);
  const to = Math.round(tMax * 0.7);
  await page.goto(`${srv.base}/runs/${fig3.run}?view=timeline&from=${from}&to=${to}`);
  await ready(page, 'timeline');
  const box = await page.locator('.timeline-wrap canvas').boundingBox();
  const y = box.y + box.height * 0.4;
  await page.mouse.move(box.x + box.width * 0.5, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.6, y, { steps: 5 });
  await page.mouse.move(box.x + box.width * 0.7, y, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction((f) => Number(new URL(location.href).searchParams.get('from')) < f, from);
  const u = new URL(page.url());
  const nf = Number(u.searchParams.get('from'));
  const nt = Number(u.searchParams.get('to'));
  // dragging right shows earlier times; the span stays the same
  assert.ok(nf < from, `${nf} < ${from}`);
  assert.ok(Math.abs((nt - nf) - (to - from)) <= 1);
  const st = await ready(page, 'timeline');
  assert.equal(st.drawnBlocks, inWindow(fig3.blocks, nf, nt).length);
  const text = await page.locator('#window-text').textContent();
  assert.match(text, / – /);
});

test('a legend click hides a kernel, and a reload keeps the view', async () => {
  await page.goto(`${srv.base}/runs/${fig3.run}?view=timeline`);
  await ready(page, 'timeline');
  const name = fig3.kernels[0].name;
  const ids = new Set(fig3.kernels.filter((k) => k.name === name).map((k) => k.id));
  const own = fig3.blocks.filter((b) => ids.has(b.kernel)).length;
  assert.ok(own > 0);
  await page.locator(`.legend-item[data-kernel="${name}"]`).click();
  const st = await ready(page, 'timeline');
  assert.equal(st.drawnBlocks, 18 - own);
  // issue 15: kernels are named by their index among the distinct names,
  // as ranges (k=), never by name; the first name is index 0
  const names = [...new Set(fig3.kernels.map((k) => k.name))];
  const k = new URL(page.url()).searchParams.get('k');
  assert.equal(k, `1-${names.length - 1}`);
  assert.equal(new URL(page.url()).searchParams.has('kernels'), false);
  assert.equal(await page.locator(`.legend-item[data-kernel="${name}"]`).getAttribute('aria-pressed'), 'false');

  const before = page.url();
  await page.reload();
  const st2 = await ready(page, 'timeline');
  assert.equal(page.url(), before);
  assert.equal(st2.drawnBlocks, 18 - own);
  assert.equal(await page.locator(`.legend-item[data-kernel="${name}"]`).getAttribute('aria-pressed'), 'false');

  // showing it again brings every block back and clears the filter
  await page.locator(`.legend-item[data-kernel="${name}"]`).click();
  const st3 = await ready(page, 'timeline');
  assert.equal(st3.drawnBlocks, 18);
  assert.equal(new URL(page.url()).searchParams.has('k'), false);
});

test('kernels and queues views show the run', async () => {
  await page.goto(`${srv.base}/runs/${fig3.run}?view=kernels`);
  await ready(page, 'kernels');
  assert.equal(await page.locator('#kernels tbody tr').count(), fig3.kernels.length);
  const first = fig3.kernels[0];
  await assert.doesNotReject(page.locator('#kernels tbody tr').first().getByText(first.name, { exact: true }).waitFor());

  await page.locator('a.tab[data-tab="queues"]').click();
  await ready(page, 'queues');
  if (fig3.run_meta.summary.queue_events > 0) {
    const canvas = page.locator('#panel-queues canvas');
    const box = await canvas.boundingBox();
    assert.ok(box.width > 100 && box.height > 100);
    await canvas.click({ position: { x: box.width * 0.3, y: box.height * 0.4 } });
    await page.waitForFunction(() => new URL(location.href).searchParams.has('at'));
    const at = Number(new URL(page.url()).searchParams.get('at'));
    const { body } = await srv.api(`/api/runs/${fig3.run}/queues?at=${at}`);
    const full = body.queues.filter((q) => q.items.length);
    await page.locator('#queue-panel h3').waitFor();
    assert.equal(await page.locator('#queue-panel li').count(), full.length);
  }
});

test('the compare page draws one bar series per run and a table', async () => {
  let runs = fig3.exp.runs.map((r) => r.run);
  if (runs.length < 2) runs = [fig3.run, fig3.run];
  await page.goto(`${srv.base}/compare?runs=${runs.slice(0, 2).join(',')}`);
  await ready(page, 'compare');
  const { body } = await srv.api(`/api/compare?runs=${runs.slice(0, 2).join(',')}`);
  const chart = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('#compare-chart canvas'));
    return c ? { type: c.config.type, datasets: c.data.datasets.length, labels: c.data.labels.length } : null;
  });
  assert.deepEqual(chart, { type: 'bar', datasets: 2, labels: Math.min(body.kernels.length, 80) });
  assert.equal(await page.locator('#compare-table tbody tr').count(), body.kernels.length);
  await shot(page, path.join(OUT, 'compare.png'), { fullPage: true });
});

test('a scenario pasted on the home page becomes an experiment; past max the timeline shows occupancy bins', async () => {
  // 25000 blocks of 1024 threads on the TX2 (2 SMs, 2 such blocks per SM):
  // more than the API's 20000-block default, so the whole run comes as bins.
  const scenario = {
    schema: 'schedlab-scenario/1', name: 'browser test: many blocks', description: 'bins mode',
    device: 'tx2', streams: [{ name: 'S1' }],
    ops: [{ kernel: 'big', stream: 'S1', at: '0s', blocks: 25000, threads: 1024, block_time: '10us' }],
  };
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  await page.fill('#scenario-text', JSON.stringify(scenario, null, 2));
  await page.click('#scenario-form button[type=submit]');
  await ready(page, 'experiment');
  assert.match(await page.locator('h1').textContent(), /browser test: many blocks/);
  await page.locator('#runs a.run-link').first().click();
  const st = await ready(page, 'timeline');
  const run = new URL(page.url()).pathname.split('/').pop();
  const { body: whole } = await srv.api(`/api/runs/${run}/blocks`);
  assert.equal(whole.mode, 'bins');
  assert.equal(whole.total, 25000);
  assert.equal(st.mode, 'bins');
  assert.equal(st.drawnBlocks, 0);

  // a narrow window holds few blocks: they are drawn one by one again
  const { body: meta } = await srv.api(`/api/runs/${run}`);
  const from = Math.round(meta.summary.t_max / 2);
  const to = from + 45000;
  const { body: part } = await srv.api(`/api/runs/${run}/blocks?from=${from}&to=${to}`);
  assert.equal(part.mode, 'blocks');
  assert.ok(part.blocks.length > 0);
  await page.goto(`${srv.base}/runs/${run}?view=timeline&from=${from}&to=${to}`);
  const st2 = await ready(page, 'timeline');
  assert.equal(st2.mode, 'blocks');
  assert.equal(st2.drawnBlocks, part.blocks.length);
  await shot(page, path.join(OUT, 'bins-zoomed.png'), { fullPage: true });
});

// A trace (an object) uploaded as a measured run: the run's id.
async function importMeasured(trace, name) {
  const imp = await fetch(`${srv.base}/api/imports?name=${name}`, { method: 'POST', body: JSON.stringify(trace), headers: { 'Content-Type': 'application/octet-stream' } });
  const body = await imp.json();
  assert.equal(imp.status, 201, JSON.stringify(body));
  return body.run;
}

// On a measured run's page with no replay yet, "Replay in simulator": the
// compare page's runs (the hardware run stays first) and the new replay
// experiment.
async function replayFromPage(measured) {
  assert.equal(await page.evaluate(() => window.schedlab.replayExisting), null);
  await page.click('#replay-form button[type=submit]');
  await ready(page, 'compare');
  const url = new URL(page.url());
  const ids = url.searchParams.get('runs').split(',');
  assert.equal(ids[0], measured);
  const { body: exp } = await srv.api(`/api/experiments/${url.searchParams.get('replay')}`);
  return { ids, exp };
}

// One replay per measured run: back on its page, the button opens the
// replay experiment `exp` on the compare page of `ids`, storing nothing new.
async function reopensReplay(measured, exp, ids) {
  const before = (await srv.api('/api/experiments')).body.experiments.length;
  await page.goto(`${srv.base}/runs/${measured}?view=timeline`);
  await ready(page, 'timeline');
  await page.waitForFunction(() => window.schedlab.replayExisting !== null);
  assert.equal(await page.evaluate(() => window.schedlab.replayExisting), exp.slug);
  await page.click('#replay-form button[type=submit]');
  await ready(page, 'compare');
  assert.deepEqual(new URL(page.url()).searchParams.get('runs').split(','), ids);
  assert.equal((await srv.api('/api/experiments')).body.experiments.length, before);
}

test('"Replay in simulator" opens the hardware run beside its simulations on one time axis, with the fidelity report', async () => {
  // a simulated run is offered no replay (issue 30): it is its own model
  await page.goto(`${srv.base}/runs/${fig3.run}?view=timeline`);
  await ready(page, 'timeline');
  assert.equal(await page.locator('#replay-form').count(), 0);
  // Fig. 3's trace as a profiler would have recorded it: a measured run
  const trace = (await srv.api(`/api/runs/${fig3.run}/export?format=trace`)).body;
  trace.source = 'nsys-sqlite';
  const measured = await importMeasured(trace, 'fig3-measured.json');
  await page.goto(`${srv.base}/runs/${measured}?view=timeline`);
  await ready(page, 'timeline');
  await page.locator('#replay-device option[value="tx2"]').waitFor({ state: 'attached' });
  // by default the run's own (complete) device, said in the page's words;
  // the presets are "what if"
  assert.equal(await page.locator('#replay-device').inputValue(), '');
  assert.equal(await page.locator('#replay-device option').first().textContent(), 'the trace\'s own device (tx2)');
  assert.equal(await page.locator('#replay-device optgroup').getAttribute('label'), 'what if it ran on…');
  const { ids, exp } = await replayFromPage(measured);
  assert.equal(ids.length, 3);
  assert.notEqual(exp.slug, fig3.exp.slug);
  // the replayed workload under the default placement, and round-robin
  assert.deepEqual(exp.runs.map((r) => r.run), ids.slice(1));
  assert.ok(exp.runs.some((r) => r.name === 'round-robin'), exp.runs.map((r) => r.name).join(', '));
  // the same workload on the same device: the same 18 blocks
  for (const r of exp.runs) assert.equal(r.summary.blocks, 18);
  // a simulated run replayed reproduces itself: every target met
  const { body: rep } = await srv.api(`/api/runs/${ids[1]}/fidelity`);
  assert.equal(rep.measured_run, measured);
  assert.equal(rep.ok, true);
  assert.equal(rep.duration_error_median, 0);
  assert.equal(await page.locator('#fidelity tbody tr').count(), 2);
  assert.equal(await page.locator('#fidelity tbody tr', { hasText: 'all met' }).count(), 2);
  // one time axis: the measured run on top, then each simulated run
  const sets = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('#replay-timelines canvas'));
    return c.data.datasets.map((d) => [d.label, d.data.length]);
  });
  assert.equal(sets.length, 3);
  assert.match(sets[0][0], /measured/);
  for (const [, n] of sets) assert.equal(n, fig3.kernels.length);
  // every policy of the replay is already shown
  assert.equal(await page.locator('#replay-more-run option').first().getAttribute('value'), '');
  await shot(page, path.join(OUT, 'replay-compare.png'), { fullPage: true });
  // the reference (the measured run) is never drawn red
  const reds = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('#replay-timelines canvas'));
    return c.data.datasets[0].backgroundColor;
  });
  assert.ok(!JSON.stringify(reds).includes('#d62728'), JSON.stringify(reds).slice(0, 200));   // charts/compare.mjs DIFFER
  // a run hidden from the chart's legend is the URL's hide_replay, by its
  // run id (DESIGN §6, docs/api.md "Share links"), kept by a reload
  await clickLegend(page, '#replay-timelines', sets[2][0]);
  await page.waitForFunction(() => new URL(location.href).searchParams.has('hide_replay'));
  assert.equal(new URL(page.url()).searchParams.get('hide_replay'), ids[2]);
  await page.reload();
  await ready(page, 'compare');
  assert.deepEqual(await chartVisible(page, '#replay-timelines'), sets.map(([l], i) => [l, i !== 2]));
  // one replay per measured run: back on its page, the button opens it
  await reopensReplay(measured, exp, ids);
  // a run that is no replay has no report
  const { status, body: none } = await srv.api(`/api/runs/${fig3.run}/fidelity`);
  assert.equal(status, 200);
  assert.equal(none.replay, false);
});

// A "what if it ran on…" replay (a preset asked for) is not the replay on
// the trace's own device: found as "this run's replay", the button then
// read "Replay again" and, on the trace's own device, opened the preset's
// simulation as the trace's own (replay_form.mjs: "a what if device makes a
// new replay"). Found auditing the replay of the real traces on presets.
test('a replay on a "what if" preset is not offered as the run\'s own replay', async () => {
  const trace = (await srv.api(`/api/runs/${fig3.run}/export?format=trace`)).body;
  trace.source = 'nsys-sqlite';
  const measured = await importMeasured(trace, 'fig3-what-if.json');
  const r = await srv.api(`/api/runs/${measured}/replay`, { method: 'POST', body: JSON.stringify({ device: 'v100' }), headers: { 'Content-Type': 'application/json' } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  let job;
  for (;;) {
    job = (await srv.api(r.body.url)).body;
    if (!['queued', 'running'].includes(job.state)) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.equal(job.status, 201, job.error);
  await page.goto(`${srv.base}/runs/${measured}?view=timeline`);
  await ready(page, 'timeline');
  await page.waitForFunction(() => window.schedlab.replayChecked === true);
  assert.equal(await page.evaluate(() => window.schedlab.replayExisting), null);
  assert.equal(await page.locator('#replay-open').isVisible(), false);
  assert.equal(await page.locator('#replay-form button[type=submit]').textContent(), 'Replay in simulator');
  // and the replay on its own device, made from the page, is found again
  const { ids, exp } = await replayFromPage(measured);
  assert.notEqual(exp.slug, job.result.slug);
  await reopensReplay(measured, exp, ids);
});

test('a trace with work on two GPUs replays from its page as two simulated GPUs, under each placement, and is found again', async () => {
  // Fig. 3's trace with its kernels split between two GPUs, as the
  // importers write them: each GPU in `devices`, each record's index, the
  // lanes named "gpu0 ctx1" (DESIGN §5; replay_devices.h)
  const trace = (await srv.api(`/api/runs/${fig3.run}/export?format=trace`)).body;
  trace.source = 'nsys-sqlite';
  trace.name = 'fig3-two-gpus';
  trace.devices = [trace.device, trace.device];
  trace.kernels.forEach((k, i) => { k.process = `gpu${i % 2} ctx1`; k.device = i % 2; });
  (trace.copies || []).forEach((c) => { c.process = 'gpu0 ctx1'; c.device = 0; });
  trace.blocks.forEach((b) => { b.device = b.kernel % 2; });
  const measured = await importMeasured(trace, 'fig3-two-gpus.json');
  await page.goto(`${srv.base}/runs/${measured}?view=timeline`);
  await ready(page, 'timeline');
  // the run's facts say which GPUs it ran on
  const gpus = page.locator('.facts div').filter({ has: page.locator('dt', { hasText: /^GPUs$/ }) });
  assert.equal(await gpus.locator('dd').textContent(), `2 × ${trace.device.name} (${trace.device.sms} SMs)`);
  await page.locator('#replay-device option[value="tx2"]').waitFor({ state: 'attached' });
  const { ids, exp } = await replayFromPage(measured);
  assert.equal(exp.name, 'Replay of fig3-two-gpus on 2 simulated GPUs');
  assert.match(exp.description, /^Derived by `schedlab replay` from run /);
  // the replay, then its round-robin variant; each has every kernel
  assert.deepEqual(exp.runs.map((r) => r.run), ids.slice(1));
  assert.deepEqual(exp.runs.map((r) => r.name), ['most-room', 'round-robin']);
  for (const r of exp.runs) {
    assert.equal(r.summary.kernels, trace.kernels.length);
    // each simulated run lists its two simulated GPUs, and its kernels say theirs
    const { body: run } = await srv.api(`/api/runs/${r.run}`);
    assert.deepEqual(run.devices.map((d) => d.name), [trace.device.name, trace.device.name]);
    const { body: ks } = await srv.api(`/api/runs/${r.run}/kernels`);
    assert.deepEqual(ks.kernels.map((k) => [k.process, k.device]).sort(),
      trace.kernels.map((k) => [k.process, k.device]).sort());
  }
  // a fidelity row for each simulated run, as for a one-GPU replay
  assert.equal(await page.locator('#fidelity tbody tr').count(), 2);
  // the replay's timeline: each GPU's SMs on lanes of their own, every block drawn
  await page.goto(`${srv.base}/runs/${exp.runs[0].run}?view=timeline`);
  const tl = await ready(page, 'timeline');
  const sms = trace.device.sms;
  assert.deepEqual(tl.lanes.slice(0, 2 * sms),
    [0, 1].flatMap((g) => Array.from({ length: sms }, (_, i) => `GPU ${g} · SM ${i}`)));
  assert.equal(tl.drawnBlocks, exp.runs[0].summary.blocks);
  // back on the measured run's page, the button opens that replay
  await reopensReplay(measured, exp, ids);
});

test('a bad upload shows the server\'s error message verbatim', async () => {
  const junk = Buffer.from('this is not a GPU trace\n1,2,3\n');
  // the form sends the file's name, which the server uses in its message
  const direct = await srv.api('/api/imports?name=junk.txt', { method: 'POST', body: junk, headers: { 'Content-Type': 'application/octet-stream' } });
  assert.equal(direct.status, 400);
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  await page.setInputFiles('#import-file', { name: 'junk.txt', mimeType: 'text/plain', buffer: junk });
  await page.click('#import-form button[type=submit]');
  const err = page.locator('#import-form .error');
  await err.waitFor();
  assert.equal(await err.textContent(), direct.body.error);

  const bad = '{"schema": "schedlab-scenario/1", "name": "x", "device": "tx2", "ops": [';
  const direct2 = await srv.api('/api/experiments', { method: 'POST', body: bad, headers: { 'Content-Type': 'application/json' } });
  assert.equal(direct2.status, 400);
  await page.fill('#scenario-text', bad);
  await page.click('#scenario-form button[type=submit]');
  const err2 = page.locator('#scenario-form .error');
  await err2.waitFor();
  assert.equal(await err2.textContent(), direct2.body.error);
  assert.equal(new URL(page.url()).pathname, '/');
});

test('an unknown page and an unknown run say so', async () => {
  await page.goto(`${srv.base}/runs/zzzzzzzzzz`);
  const st = await ready(page);
  assert.equal(st.view, 'error');
  const { body } = await srv.api('/api/runs/zzzzzzzzzz');
  assert.equal(await page.locator('.error').textContent(), body.error);
});
