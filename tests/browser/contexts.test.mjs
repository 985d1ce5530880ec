// GPU contexts and real-time tasks in the dashboard (issue 13): the TX2
// appendix A run's timeline draws its blocks with their pauses, and the
// comparison of the GCAPS case study's four runs lists, per task, the
// maximum observed response time next to the analysis bound.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, startBrowser, ready, OUT, shot } from './harness.mjs';

let srv;
let br;
let page;

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

async function experiment(file) {
  const { body } = await srv.api('/api/experiments');
  for (const e of body.experiments) {
    const { body: full } = await srv.api(`/api/experiments/${e.slug}`);
    if (full.scenario_file === file) return full;
  }
  throw new Error(`no experiment from ${file}`);
}

test('appendix A: every block is drawn, paused blocks carry their pauses', async () => {
  const e = await experiment('tx2-appendix-a-processes.json');
  const run = e.runs.find((r) => r.name === 'time-slice').run;
  await page.goto(`${srv.base}/runs/${run}?view=timeline`);
  const st = await ready(page, 'timeline');
  assert.equal(st.drawnBlocks, 8);
  const { body } = await srv.api(`/api/runs/${run}/blocks`);
  assert.equal(body.blocks.filter((b) => b.pauses && b.pauses.length === 3).length, 8);
  await shot(page, path.join(OUT, 'appendix-a-timeline.png'), { fullPage: true });
  assert.deepEqual(br.problems, []);
});

test('case study: the task table puts MORT next to the analysis bound for each run', async () => {
  const e = await experiment('gcaps-case-study.json');
  const runs = e.runs.map((r) => r.run);
  await page.goto(`${srv.base}/compare?runs=${runs.join(',')}`);
  await ready(page, 'compare');
  // columns are numbered by the run key above the table ("experiment · run")
  const keys = await page.locator('section.card', { has: page.locator('#compare-tasks') }).locator('ol.run-key li').allTextContents();
  assert.equal(keys.length, runs.length, keys.join('|'));
  const col = (run, what) => `${keys.findIndex((k) => k.endsWith(`· ${run}`)) + 1}: ${what}`;
  const heads = await page.locator('#compare-tasks thead th').allTextContents();
  assert.ok(heads.includes(col('gcaps-busy', 'MORT')) && heads.includes(col('gcaps-busy', 'bound')), heads.join('|'));
  const hist = page.locator('#compare-tasks tbody tr', { hasText: 'histogram' });
  const cells = await hist.locator('td').allTextContents();
  const at = (h) => cells[heads.indexOf(h)];
  assert.equal(at(col('gcaps-busy', 'MORT')), '13 ms');
  assert.equal(at(col('gcaps-busy', 'bound')), '15 ms');
  assert.equal(at(col('time-slice-suspend', 'MORT')), '54.9 ms');
  assert.equal(await page.locator('#compare-tasks tbody tr').count(), 7);
  await shot(page, path.join(OUT, 'case-study-compare.png'), { fullPage: true });
  assert.deepEqual(br.problems, []);
});
