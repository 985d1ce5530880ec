// The upload area (issue 15): at the top of the home page, several files
// at once (chosen or dropped), per file a transfer bar and an import bar
// (the server runs imports over sync_bytes as jobs with progress), the
// detected format or the server's error, into a new or an existing import
// experiment.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, startBrowser, ready, nvprofCsv, OUT, REPO, shot, axeSerious } from './harness.mjs';


const TRACES = process.env.SCHEDLAB_TRACES || path.join(REPO, '../shared/traces');
const CK = 'nvprof_gputrace_magus_concurrentKernels_gtx1080ti.csv';
const CUBLAS = 'nvprof_gputrace_magus_batchCUBLAS_gtx1080ti.csv';

let srv;
let br;
let page;

before(async () => {
  // every body over 1000 bytes is imported as a job: both CSVs are
  srv = await startServer(['--budget', 'sync_bytes=1000']);
  br = await startBrowser();
  page = br.page;
  fs.mkdirSync(OUT, { recursive: true });
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

const haveTraces = () => fs.existsSync(path.join(TRACES, CK)) && fs.existsSync(path.join(TRACES, CUBLAS));

test('the upload area is the first card of the home page', async () => {
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  const first = await page.evaluate(() => document.querySelector('#app .view .card')?.id);
  assert.equal(first, 'import-form');
  const top = await page.locator('#import-form').boundingBox();
  assert.ok(top.y < 300, `upload area at y=${top.y}`);
  assert.equal(await page.locator('#import-file').getAttribute('multiple'), '');
  assert.deepEqual(br.problems, []);
});

test('three files at once: two real nvprof traces imported as jobs to 100 %, the junk one with the server\'s error', async (t) => {
  if (!haveTraces()) return t.skip(`needs ${CK} and ${CUBLAS} in ${TRACES}`);
  const junk = Buffer.from('this is not a GPU trace\n1,2,3\n');
  const direct = await srv.api('/api/imports?name=junk.txt', { method: 'POST', body: junk, headers: { 'Content-Type': 'application/octet-stream' } });
  assert.equal(direct.status, 400);
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  await page.setInputFiles('#import-file', [
    { name: CK, mimeType: 'text/csv', buffer: fs.readFileSync(path.join(TRACES, CK)) },
    { name: CUBLAS, mimeType: 'text/csv', buffer: fs.readFileSync(path.join(TRACES, CUBLAS)) },
    { name: 'junk.txt', mimeType: 'text/plain', buffer: junk },
  ]);
  await page.click('#import-form button[type=submit]');
  await page.waitForFunction(() => (window.schedlab.uploads || []).length === 3
    && window.schedlab.uploads.every((u) => u.state === 'done' || u.state === 'failed'), null, { timeout: 30000 });
  const ups = await page.evaluate(() => window.schedlab.uploads);
  assert.deepEqual(ups.map((u) => [u.name, u.state, u.send, u.format]), [
    [CK, 'done', 1, 'nvprof-csv'], [CUBLAS, 'done', 1, 'nvprof-csv'], ['junk.txt', 'failed', 1, null]]);
  assert.deepEqual(ups.slice(0, 2).map((u) => u.import), [1, 1]);
  assert.equal(ups[2].error, direct.body.error);
  // the bars and what the rows say
  const rows = page.locator('#upload-list li');
  assert.equal(await rows.count(), 3);
  assert.equal(await rows.nth(0).locator('progress.send').evaluate((p) => p.value), 1);
  assert.equal(await rows.nth(0).locator('progress.import').evaluate((p) => p.value), 1);
  assert.equal(await rows.nth(0).locator('.tag.format').textContent(), 'nvprof-csv');
  assert.equal(await rows.nth(2).locator('.error').textContent(), direct.body.error);
  // both went through the job queue (sync_bytes=1000), the junk did not
  assert.deepEqual(ups.map((u) => u.job), [true, true, false]);
  const run = await srv.api(`/api/runs/${ups[0].run}`);
  assert.equal(run.status, 200);
  assert.equal(run.body.source, 'nvprof-csv');
  await shot(page, path.join(OUT, 'upload-three.png'), { fullPage: true });
  // one new experiment per file
  assert.notEqual(ups[0].experiment, ups[1].experiment);
  // the junk file's console error (its 400) is the only one
  assert.deepEqual(br.problems.filter((p) => !/status of 400/.test(p)), []);
  br.problems.length = 0;
});

test('dropped files go into an existing import experiment', async (t) => {
  if (!haveTraces()) return t.skip(`needs ${CK} in ${TRACES}`);
  const { body } = await srv.api('/api/experiments');
  const target = body.experiments.find((e) => e.source === 'import');
  assert.ok(target, 'the previous test made import experiments');
  const before = target.runs.length;
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  await page.selectOption('#import-experiment', target.slug);
  const text = fs.readFileSync(path.join(TRACES, CK), 'utf8');
  const dt = await page.evaluateHandle((csv) => {
    const d = new DataTransfer();
    d.items.add(new File([csv], 'first.csv', { type: 'text/csv' }));
    d.items.add(new File([csv], 'second.csv', { type: 'text/csv' }));
    return d;
  }, text);
  await page.dispatchEvent('#dropzone', 'drop', { dataTransfer: dt });
  await page.waitForFunction(() => (window.schedlab.uploads || []).length === 2
    && window.schedlab.uploads.every((u) => u.state === 'done' || u.state === 'failed'), null, { timeout: 30000 });
  const ups = await page.evaluate(() => window.schedlab.uploads);
  assert.deepEqual(ups.map((u) => [u.name, u.state, u.import, u.format, u.experiment]),
    [['first.csv', 'done', 1, 'nvprof-csv', target.slug], ['second.csv', 'done', 1, 'nvprof-csv', target.slug]]);
  const { body: exp } = await srv.api(`/api/experiments/${target.slug}`);
  assert.equal(exp.runs.length, before + 2);
  assert.deepEqual(exp.runs.slice(-2).map((r) => r.name), ['first.csv', 'second.csv']);
  await shot(page, path.join(OUT, 'upload-drop.png'), { fullPage: true });
  assert.deepEqual(br.problems, []);
});

// The ranks of one PyTorch job chosen together (traces/SOURCES.md: the
// DLRM rank-0 and rank-1 files of one 8-rank job) with "one run of all the
// files": one upload (a .tar of them, upload.mjs tarOf) and one run of two
// GPUs, as the .tar.gz of them makes (pytorch.test.mjs); without it, a run
// each. The hint says which.
test('several PyTorch rank files with "one run of all the files": one upload, one run of both GPUs', async (t) => {
  const R0 = 'kineto_param_v100x8_dlrm_rank0of8.pt.trace.json';
  const R1 = 'kineto_param_v100x8_dlrm_rank1of8.pt.trace.json';
  if (!fs.existsSync(path.join(TRACES, R0)) || !fs.existsSync(path.join(TRACES, R1))) return t.skip(`needs ${R0} and ${R1} in ${TRACES}`);
  const { body: before } = await srv.api('/api/experiments');
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  await page.waitForFunction(() => /pytorch/.test(document.querySelector('#import-form .hint')?.textContent || ''));
  const hint = await page.locator('#import-form .hint').textContent();
  assert.match(hint, /Several files at once make a run each; with “one run of all the files” they go up as one archive and make one run \(examiner-json, pytorch: e\.g\. the ranks of one job\)\.$/);
  await page.setInputFiles('#import-file', [R0, R1].map((n) => ({ name: n, mimeType: 'application/json', buffer: fs.readFileSync(path.join(TRACES, n)) })));
  await page.check('#import-join');
  await page.click('#import-form button[type=submit]');
  await page.waitForFunction(() => (window.schedlab.uploads || []).length === 1
    && ['done', 'failed'].includes(window.schedlab.uploads[0].state), null, { timeout: 60000 });
  const [up] = await page.evaluate(() => window.schedlab.uploads);
  assert.deepEqual([up.name, up.state, up.format, up.error], [`${R0} + 1 more`, 'done', 'pytorch', null]);
  const s = (await srv.api(`/api/runs/${up.run}/summary`)).body;
  assert.deepEqual(s.devices.map((d) => d.process).sort(), ['rank0 gpu0', 'rank1 gpu1']);
  const { body: after } = await srv.api('/api/experiments');
  assert.equal(after.experiments.length, before.experiments.length + 1);
  const { body: run } = await srv.api(`/api/runs/${up.run}`);
  assert.equal(run.name, `${R0} + 1 more`);
  assert.deepEqual(br.problems, []);
});

// A small nvprof log of `n` kernels on stream 7, 3 us each (every body is
// over sync_bytes=1000: imported as a job).
function smallCsv(n) {
  const rows = [];
  for (let i = 0; i < n; i++) rows.push(`${1000 + 4 * i},3,2,1,1,128,1,1,32,0,0,,,"GeForce GTX 1080 Ti (0)","1","7","k${i}"`);
  return Buffer.from(nvprofCsv(rows));
}

test('one file uploaded opens its run, whose "Open its replay" shows only once the run has a replay', async () => {
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  await page.setInputFiles('#import-file', [{ name: 'one.csv', mimeType: 'text/csv', buffer: smallCsv(40) }]);
  await page.click('#import-form button[type=submit]');
  await ready(page, 'timeline');
  await page.waitForFunction(() => window.schedlab.replayOffered === true && window.schedlab.replayExisting === null);
  // no replay yet: the form offers "Replay in simulator" and nothing to open
  assert.equal(await page.locator('#replay-form button[type=submit]').textContent(), 'Replay in simulator');
  assert.equal(await page.locator('#replay-open').isVisible(), false);
  await shot(page, path.join(OUT, 'upload-run-no-replay.png'));
  assert.deepEqual(br.problems, []);
});

test('after a batch the home page lists what it stored: the new experiments and the run counts', async () => {
  const { body: before } = await srv.api('/api/experiments');
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  await page.setInputFiles('#import-file', [
    { name: 'batch-a.csv', mimeType: 'text/csv', buffer: smallCsv(30) },
    { name: 'batch-b.csv', mimeType: 'text/csv', buffer: smallCsv(31) },
  ]);
  await page.click('#import-form button[type=submit]');
  await page.waitForFunction(() => (window.schedlab.uploads || []).length === 2
    && window.schedlab.uploads.every((u) => u.state === 'done' || u.state === 'failed'), null, { timeout: 30000 });
  const ups = await page.evaluate(() => window.schedlab.uploads);
  assert.deepEqual(ups.map((u) => u.state), ['done', 'done']);
  const { body: after } = await srv.api('/api/experiments');
  assert.equal(after.experiments.length, before.experiments.length + 2);
  // the list shows both new experiments and the new count, the "Into"
  // choice offers them; the rows of the batch stay
  await page.waitForFunction((n) => document.querySelector('#experiment-count')?.textContent === String(n), after.experiments.length);
  for (const u of ups) {
    assert.equal(await page.locator(`#experiments-host a[href="/experiments/${u.experiment}"]`).count(), 1);
    assert.equal(await page.locator(`#import-experiment option[value="${u.experiment}"]`).count(), 1);
  }
  assert.equal(await page.locator('#upload-list li').count(), 2);
  // a second batch into the first one's experiment: its run count says 2
  await page.selectOption('#import-experiment', ups[0].experiment);
  await page.setInputFiles('#import-file', [{ name: 'batch-c.csv', mimeType: 'text/csv', buffer: smallCsv(32) },
    { name: 'batch-d.csv', mimeType: 'text/csv', buffer: Buffer.from('not a trace\n') }]);
  await page.click('#import-form button[type=submit]');
  await page.waitForFunction(() => window.schedlab.uploads.length === 2
    && window.schedlab.uploads.every((u) => u.state === 'done' || u.state === 'failed'), null, { timeout: 30000 });
  const { body: exp } = await srv.api(`/api/experiments/${ups[0].experiment}?scenario=0`);
  assert.equal(exp.runs.length, 2);
  await page.waitForFunction((slug) => /\(2 runs\)$/.test(document.querySelector(`#import-experiment option[value="${slug}"]`)?.textContent || ''), ups[0].experiment);
  assert.equal(await page.locator('#import-experiment').inputValue(), ups[0].experiment);
  await shot(page, path.join(OUT, 'upload-batch-list.png'), { fullPage: true });
  assert.deepEqual(br.problems.filter((p) => !/status of 400/.test(p)), []);
  br.problems.length = 0;
});

test('a big upload cancelled while the server imports it: the row says so in the server\'s words, nothing is stored', async (t) => {
  // 800,000 kernels (about 70 MB): the import runs for seconds, the page
  // polls its job from the start
  const file = bigCsvFile(t, 800000);
  const listedBefore = await srv.api('/api/experiments');
  assert.equal(listedBefore.status, 200, `${JSON.stringify(listedBefore.body)}\n${srv.log().slice(-3000)}`);
  const before = listedBefore.body;
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  // DELETE /api/jobs/{id} once the page has seen its job running
  let cancel = null;
  page.on('response', (r) => {
    const m = /\/api\/jobs\/([^/?]+)$/.exec(new URL(r.url()).pathname);
    if (!m || cancel) return;
    cancel = r.json().then((j) => (j.state === 'running'
      ? srv.api(`/api/jobs/${m[1]}`, { method: 'DELETE' }).then((d) => ({ id: m[1], ...d })) : (cancel = null)));
  });
  await page.setInputFiles('#import-file', file);
  await page.click('#import-form button[type=submit]');
  await page.waitForFunction(() => (window.schedlab.uploads || []).length === 1
    && ['done', 'failed'].includes(window.schedlab.uploads[0].state), null, { timeout: 120000 });
  const del = await cancel;
  assert.ok(del, 'the page polled its job while it ran');
  assert.equal(del.status, 202);
  // docs/api.md: a cancelled job ends "aborted", 409, "cancelled; nothing was stored"
  const { body: job } = await srv.api(`/api/jobs/${del.id}`);
  assert.deepEqual([job.state, job.status, job.error], ['aborted', 409, 'cancelled; nothing was stored']);
  const [u] = await page.evaluate(() => window.schedlab.uploads);
  assert.deepEqual([u.state, u.error, u.run], ['failed', 'cancelled; nothing was stored', null]);
  assert.equal(await page.locator('#upload-list li .error').textContent(), 'cancelled; nothing was stored');
  const listed = await srv.api('/api/experiments');
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  assert.equal(listed.body.experiments.length, before.experiments.length);
  await shot(page, path.join(OUT, 'upload-cancelled.png'));
  assert.deepEqual(br.problems.filter((p) => !/status of 409/.test(p)), []);
  br.problems.length = 0;
});

// A CSV of n kernels written to a temporary folder under OUT, removed when
// test t ends, passed or not (a failed run left 58 MB behind); its path.
function bigCsvFile(t, n) {
  const file = path.join(fs.mkdtempSync(path.join(OUT, 'big-')), 'big.csv');
  t.after(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));
  const rows = [];
  for (let i = 0; i < n; i++) rows.push(`${1000 + 4 * i},3,2,1,1,128,1,1,32,0,0,,,"GeForce GTX 1080 Ti (0)","1","7","k${i % 50}"`);
  fs.writeFileSync(file, nvprofCsv(rows));
  return file;
}

test('the row\'s Cancel button: a file waiting its turn is skipped, a file the server imports is stopped (DELETE /api/jobs/{id}); nothing of either is stored', async (t) => {
  const file = bigCsvFile(t, 800000);
  const { body: before } = await srv.api('/api/experiments');
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  const deletes = [];
  page.on('request', (r) => { if (r.method() === 'DELETE') deletes.push(new URL(r.url()).pathname); });
  const second = path.join(path.dirname(file), 'second.csv');
  fs.writeFileSync(second, smallCsv(20));
  await page.setInputFiles('#import-file', [file, second]);
  await page.click('#import-form button[type=submit]');
  // the second waits while the first is imported as a job
  await page.waitForFunction(() => window.schedlab.uploads?.[0]?.state === 'importing', null, { timeout: 60000 });
  assert.equal((await page.evaluate(() => window.schedlab.uploads))[1].state, 'waiting');
  await page.click('#upload-list li:nth-child(2) button.cancel');
  await page.click('#upload-list li:nth-child(1) button.cancel');
  await page.waitForFunction(() => window.schedlab.uploads.every((u) => !['waiting', 'sending', 'queued', 'importing'].includes(u.state)), null, { timeout: 120000 });
  const ups = await page.evaluate(() => window.schedlab.uploads);
  // docs/api.md: a cancelled job ends 409 "cancelled; nothing was stored"
  assert.deepEqual(ups.map((u) => [u.state, u.error, u.run]), [
    ['cancelled', 'cancelled; nothing was stored', null],
    ['cancelled', 'cancelled before it was sent; nothing was stored', null]]);
  assert.equal(deletes.length, 1);
  assert.match(deletes[0], /^\/api\/jobs\/[^/]+$/);
  // the rows say so, without the bars of an import that did not happen and
  // without a Cancel button left to press
  const rows = page.locator('#upload-list li');
  for (let i = 0; i < 2; i++) {
    assert.equal(await rows.nth(i).locator('.error').textContent(), ups[i].error);
    assert.equal(await rows.nth(i).locator('.bars').isVisible(), false);
    assert.equal(await rows.nth(i).locator('button.cancel').count(), 0);
  }
  const { body: after } = await srv.api('/api/experiments');
  assert.equal(after.experiments.length, before.experiments.length);
  await shot(page, path.join(OUT, 'upload-cancel-button.png'));
  assert.deepEqual(br.problems.filter((p) => !/status of 409/.test(p)), []);
  br.problems.length = 0;
});

test('Cancel while the file is on its way drops the transfer: the server stores nothing and goes on serving', async () => {
  const { body: before } = await srv.api('/api/experiments');
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  // a slow link (Chromium's network emulation, 256 KiB/s up) so that the
  // 4 MB body is still going out when Cancel is pressed
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
  try {
    await page.setInputFiles('#import-file', [{ name: 'slow.csv', mimeType: 'text/csv', buffer: smallCsv(45000) }]);
    await page.click('#import-form button[type=submit]');
    await page.waitForFunction(() => window.schedlab.uploads?.[0]?.state === 'sending' && window.schedlab.uploads[0].send > 0.05, null, { timeout: 30000 });
    await page.click('#upload-list li button.cancel');
    await page.waitForFunction(() => window.schedlab.uploads[0].state !== 'sending', null, { timeout: 30000 });
  } finally {
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  }
  const [u] = await page.evaluate(() => window.schedlab.uploads);
  assert.ok(u.send < 1, `cancelled at ${u.send} of the transfer`);
  assert.deepEqual([u.state, u.error, u.run, u.job], ['cancelled', 'cancelled while it was sent; nothing was stored', null, false]);
  const { body: after } = await srv.api('/api/experiments');
  assert.equal(after.experiments.length, before.experiments.length);
  assert.equal((await srv.api('/api/health')).status, 200);
  assert.deepEqual(br.problems, []);
});

// issue 30's rule (a11y.test.mjs) on the rows an upload leaves: a11y.test
// sees the home page before any upload, so its rows were never checked
test('a done upload row has no serious axe-core violation, light or dark', async () => {
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  const csv = nvprofCsv(['0,10,1,1,1,32,1,1,16,0,0,,,"GeForce GTX 1080 Ti (0)","1","7","k"']);
  // two files: one alone opens its run, and the rows are gone
  await page.setInputFiles('#import-file', [{ name: 'ok.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) },
    { name: 'ok2.csv', mimeType: 'text/csv', buffer: Buffer.from(csv.replace('"k"', '"k2"')) }]);
  await page.click('#import-form button[type=submit]');
  await page.waitForFunction(() => window.schedlab.uploads?.length === 2 && window.schedlab.uploads.every((u) => u.state === 'done'), null, { timeout: 30000 });
  assert.equal(await page.locator('#upload-list li .ok').count(), 2);
  const bad = await axeSerious(page);
  assert.deepEqual(bad, [], JSON.stringify(bad, null, 1));
  assert.deepEqual(br.problems, []);
});
