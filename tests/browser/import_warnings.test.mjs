// What an import left out of the user's files or guessed (docs/trace-format.md
// "Import warnings", docs/api.md "warnings") is shown: under the file's row
// of the upload area ("imported · 2 warnings", the lines a click away) and
// in the run page's header, from the run's meta (at most 20 lines, then
// "and N more"); a run with none shows nothing; axe-core finds no serious
// violation in what is shown, light or dark. The files are made here: a
// tar.gz of the synthetic examiner fixture with stray members (tar(1)) and
// an nvprof CSV with a CPU page-fault row (no Duration).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, startBrowser, ready, nvprofCsv, axeSerious } from './harness.mjs';
import { fixture, tempDir } from '../api/server.mjs';

const NOT_JSON = 'not read: only .json members of an archive are result files';

let srv;
let br;
let page;
let dir;

// A .tar.gz of the examiner fixture and `extra` (path -> text): its bytes.
function tarGz(name, extra) {
  const src = path.join(dir, `${name}.src`);
  fs.mkdirSync(src, { recursive: true });
  fs.copyFileSync(fixture('examiner.json'), path.join(src, 'examiner.json'));
  for (const [p, text] of Object.entries(extra)) {
    fs.mkdirSync(path.dirname(path.join(src, p)), { recursive: true });
    fs.writeFileSync(path.join(src, p), text);
  }
  const out = path.join(dir, name);
  const r = spawnSync('tar', ['--format=ustar', '-czf', out, '-C', src, 'examiner.json', ...Object.keys(extra)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return fs.readFileSync(out);
}

// one kernel, then a CPU page fault: a row with no GPU interval, left out
const CSV = nvprofCsv([
  '0,10,1,1,1,32,1,1,16,0,0,,,"GeForce GTX 1080 Ti (0)","1","7","k"',
  '20,,,,,,,,,,,,,,,,"[Unified Memory CPU page faults]"',
]);
const CSV_WARNING = 'pf.csv: 1 row left out: an empty "Duration" (no GPU interval, e.g. a CPU page fault)';

before(async () => {
  dir = tempDir('web-impwarn');
  srv = await startServer();
  br = await startBrowser();
  page = br.page;
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});


test('the upload row says how many warnings and lists them; a file without any says none', async () => {
  const arc = tarGz('results.tar.gz', { 'notes/README.md': '# how I ran it\n', 'stray.csv': 'a,b\n' });
  const clean = nvprofCsv(['0,10,1,1,1,32,1,1,16,0,0,,,"GeForce GTX 1080 Ti (0)","1","7","k"']);
  await page.goto(`${srv.base}/`);
  await ready(page, 'experiments');
  await page.setInputFiles('#import-file', [
    { name: 'results.tar.gz', mimeType: 'application/gzip', buffer: arc },
    { name: 'pf.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) },
    { name: 'clean.csv', mimeType: 'text/csv', buffer: Buffer.from(clean) },
  ]);
  await page.click('#import-form button[type=submit]');
  await page.waitForFunction(() => (window.schedlab.uploads || []).length === 3
    && window.schedlab.uploads.every((u) => u.state === 'done' || u.state === 'failed'), null, { timeout: 30000 });
  const ups = await page.evaluate(() => window.schedlab.uploads);
  const want = [
    [`results.tar.gz(notes/README.md): ${NOT_JSON}`, `results.tar.gz(stray.csv): ${NOT_JSON}`],
    [CSV_WARNING],
    [],
  ];
  assert.deepEqual(ups.map((u) => [u.state, u.warnings, u.warnings_total]), want.map((w) => ['done', w, w.length]));
  const rows = page.locator('#upload-list li.upload-file');
  assert.equal(await rows.nth(0).locator('.warn-count').textContent(), '2 warnings');
  assert.equal(await rows.nth(1).locator('.warn-count').textContent(), '1 warning');
  assert.equal(await rows.nth(2).locator('.warn-count').count(), 0);
  assert.equal(await rows.nth(2).locator('details.import-warnings').count(), 0);
  // and nothing after its links: DOM replaceChildren wrote the absent
  // warnings list (null) as the text "null" ("… · its experimentnull")
  assert.equal(await rows.nth(2).locator('.outcome').textContent(), 'imported as nvprof-csv · open the run · its experiment');
  assert.equal(await rows.nth(1).locator('.outcome > span').textContent(), 'imported as nvprof-csv · 1 warning · open the run · its experiment');
  // listed a click away, each line as the server said it
  const details = rows.nth(0).locator('details.import-warnings');
  assert.equal(await details.evaluate((d) => d.open), false);
  await details.locator('summary').click();
  assert.equal(await details.evaluate((d) => d.open), true);
  assert.deepEqual(await details.locator('li').allTextContents(), want[0]);
  assert.ok(await details.locator('li').first().isVisible());
  assert.deepEqual(await axeSerious(page), []);
  assert.deepEqual(br.problems, []);
});

test('the run page shows its import warnings from the meta, capped, and nothing for a run without', async () => {
  const pf = await srv.importNvprof('pf.csv', CSV);
  await page.goto(`${srv.base}/runs/${pf}`);
  await ready(page, 'timeline');
  const box = page.locator('.page-head #import-warnings');
  assert.match(await box.locator('summary').textContent(), /^Import: 1 warning /);
  await box.locator('summary').click();
  assert.deepEqual(await box.locator('li').allTextContents(), [CSV_WARNING]);
  assert.deepEqual(await axeSerious(page), []);

  // 23 stray members: the meta keeps 20 lines and the count
  const extra = {};
  for (let i = 0; i < 23; i++) extra[`more/x${String(i).padStart(2, '0')}.txt`] = 'x\n';
  const up = await srv.api('/api/imports?name=many.tar.gz', {
    method: 'POST', body: tarGz('many.tar.gz', extra), headers: { 'Content-Type': 'application/octet-stream' },
  });
  assert.equal(up.status, 201, JSON.stringify(up.body));
  await page.goto(`${srv.base}/runs/${up.body.run}`);
  await ready(page, 'timeline');
  assert.match(await box.locator('summary').textContent(), /^Import: 23 warnings /);
  await box.locator('summary').click();
  const items = await box.locator('li').allTextContents();
  assert.equal(items.length, 21);
  assert.equal(items[0], `many.tar.gz(more/x00.txt): ${NOT_JSON}`);
  assert.equal(items[19], `many.tar.gz(more/x19.txt): ${NOT_JSON}`);
  assert.equal(items[20], 'and 3 more');

  // a run with nothing left out: no box
  const clean = await srv.importNvprof('clean.csv', nvprofCsv(['0,10,1,1,1,32,1,1,16,0,0,,,"GeForce GTX 1080 Ti (0)","1","7","k"']));
  await page.goto(`${srv.base}/runs/${clean}`);
  await ready(page, 'timeline');
  assert.equal(await page.locator('#import-warnings').count(), 0);
  assert.deepEqual(br.problems, []);
});
