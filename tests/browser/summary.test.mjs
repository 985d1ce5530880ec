// The run view's Summary tab (issue 29): for an imported PyTorch job the
// tables show what GET /api/runs/{run}/summary says -- a row per device and
// per stream, the launch delay, kernels by name -- and the tab is listed
// with the others; no console errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { startServer, startBrowser, ready, REPO } from './harness.mjs';

let srv;
let br;
let run;
let fixtures;
let noScenarios;

before(async () => {
  // no shipped scenarios to simulate first: a fresh server answers sooner
  noScenarios = fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-noscn-'));
  srv = await startServer(['--scenarios', noScenarios]);
  br = await startBrowser();
  fixtures = process.env.SCHEDLAB_FIXTURES || fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-fx-'));
  if (!process.env.SCHEDLAB_FIXTURES) {
    const r = spawnSync(path.join(REPO, 'tests/fixtures/make_fixtures.sh'), [fixtures]);
    assert.equal(r.status, 0);
  }
  const r = await srv.api('/api/imports?name=job', {
    method: 'POST', body: fs.readFileSync(path.join(fixtures, 'pytorch_job.tar.gz')),
    headers: { 'Content-Type': 'application/octet-stream' },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  run = r.body.run;
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
  if (!process.env.SCHEDLAB_FIXTURES) fs.rmSync(fixtures, { recursive: true, force: true });
  fs.rmSync(noScenarios, { recursive: true, force: true });
});

test('the Summary tab shows the summary of the run', async () => {
  const { page } = br;
  await page.goto(`${srv.base}/runs/${run}?view=summary`);
  await ready(page, 'summary');
  const api = (await srv.api(`/api/runs/${run}/summary`)).body;
  const seen = await page.evaluate(() => ({
    tabs: [...document.querySelectorAll('nav.tabs a.tab')].map((a) => a.textContent),
    devices: [...document.querySelectorAll('#summary-devices tbody tr')].map((tr) => tr.cells[0].textContent),
    streams: [...document.querySelectorAll('#summary-streams tbody tr')].map((tr) => `${tr.cells[0].textContent}/${tr.cells[1].textContent}`),
    launch: document.querySelector('#summary-launch tbody tr').cells[0].textContent,
    kernels: [...document.querySelectorAll('#summary-kernels tbody tr')].map((tr) => tr.cells[0].querySelector('span').title),
  }));
  assert.deepEqual(seen.tabs, ['Timeline', 'Kernels', 'Queues', 'Summary']);
  assert.deepEqual(seen.devices, api.devices.map((d) => d.process));
  assert.deepEqual(seen.devices, ['rank0 gpu0', 'rank1 gpu1']);
  // streams in numeric order within a device
  assert.deepEqual(seen.streams, ['rank0 gpu0/7', 'rank0 gpu0/40', 'rank1 gpu1/40']);
  assert.equal(seen.launch, String(api.launch_delay.count));
  assert.deepEqual(seen.kernels, api.kernels.map((k) => k.name));
  assert.deepEqual(br.problems, []);
});
