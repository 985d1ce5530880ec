// compare_versions.test.mjs -- two versions of one experiment compared
// (the experiment page's "Compare runs" after an edit and re-run,
// docs/api.md): a version's runs keep their names, so the page must tell
// them apart by version -- in the run labels (the API's, "… · default
// (v2)") and in the page's title, which said "Compare default vs default".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServerAndBrowser, stopServerAndBrowser, ready, REPO } from './harness.mjs';

let srv, br, page;
before(async () => { ({ srv, br, page } = await startServerAndBrowser()); });
after(async () => { await stopServerAndBrowser(srv, br); });

test('compare v1 with v2 of one experiment: labels and title name the versions', async () => {
  const scn = JSON.parse(fs.readFileSync(path.join(REPO, 'scenarios/tx2-fig3-basic-rules.json'), 'utf8'));
  const json = { 'Content-Type': 'application/json' };
  const a = (await srv.api('/api/experiments', { method: 'POST', headers: json, body: JSON.stringify(scn) })).body;
  scn.ops[0].blocks = 3;
  const b = (await srv.api(`/api/experiments/${a.slug}/versions`, { method: 'POST', headers: json, body: JSON.stringify(scn) })).body;
  assert.equal(b.version, 2);
  await page.goto(`${srv.base}/compare?runs=${a.runs[0].run},${b.runs[0].run}`);
  await ready(page, 'compare');
  assert.equal(await page.title(), 'Compare default (v1) vs default (v2) · schedlab');
  const labels = await page.locator('#compare-runs .run-label').evaluateAll((els) => els.map((e) => e.getAttribute('title')));
  assert.deepEqual(labels, [`${scn.name} · default (v1)`, `${scn.name} · default (v2)`]);
});
