// compare_versions.test.mjs -- the runs of two versions of one experiment
// compared (docs/api.md: edit and re-run stores the new runs "in the same
// experiment as its next version"; the experiment page's "Compare runs"
// selects them): each run's `label` ("experiment · run") must tell them
// apart, as the compare page titles, legends and columns use it. A re-run
// keeps its runs' names, so both were "TX2 basic rules … · default".
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { getJson, repo, startServer } from './server.mjs';
import { JSON_BODY } from './serve_opts.mjs';

let srv;
before(async () => { srv = await startServer(); });
after(async () => { await srv.stop(); });

test('compare: runs of two versions of one experiment are labelled with their version', async () => {
  const scn = JSON.parse(readFileSync(join(repo, 'scenarios/tx2-fig3-basic-rules.json'), 'utf8'));
  const made = await getJson(`${srv.base}/api/experiments`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify(scn) });
  assert.equal(made.status, 201);
  const single = await getJson(`${srv.base}/api/compare?runs=${made.body.runs[0].run},${made.body.runs[0].run}`);
  assert.equal(single.status, 200);
  assert.equal(single.body.runs[0].label, `${scn.name} · default`);   // one version: as before
  scn.ops[0].blocks = 3;
  const v2 = await getJson(`${srv.base}/api/experiments/${made.body.slug}/versions`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify(scn) });
  assert.equal(v2.status, 201);
  assert.equal(v2.body.version, 2);
  const c = await getJson(`${srv.base}/api/compare?runs=${made.body.runs[0].run},${v2.body.runs[0].run}`);
  assert.equal(c.status, 200);
  assert.deepEqual(c.body.runs.map((r) => r.label), [`${scn.name} · default (v1)`, `${scn.name} · default (v2)`]);
  assert.deepEqual(c.body.runs.map((r) => r.version), [1, 2]);
});
