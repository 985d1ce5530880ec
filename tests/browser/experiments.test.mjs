// Experiments (issue 15): search on the home page, the scenario edited in
// place with the server's validation message at its line, re-run as the
// next version of the same experiment, delete behind a confirm dialog and
// the write token, and the app's own page for unknown routes.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, startBrowser, ready, OUT, shot } from './harness.mjs';

const TOKEN = 'w1-secret-token';
let srv;
let br;
let page;
let pascal;
const dialogs = [];       // what to answer the next dialogs: [type, accept, text]
const seen = [];          // the dialogs shown: [type, message]

before(async () => {
  srv = await startServer(['--token', TOKEN]);
  br = await startBrowser();
  page = br.page;
  fs.mkdirSync(OUT, { recursive: true });
  page.on('dialog', async (d) => {
    seen.push([d.type(), d.message()]);
    const next = dialogs.shift();
    if (!next || next[0] !== d.type()) {
      await d.dismiss();
      return;
    }
    if (next[1]) await d.accept(next[2]);
    else await d.dismiss();
  });
  const { body } = await srv.api('/api/experiments');
  pascal = body.experiments.find((e) => /^Most-room placement on Pascal/.test(e.name));
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

// The page's rule: every word in name, description, source or slug.
const rule = (e, q) => q.toLowerCase().split(/\s+/).filter(Boolean)
  .every((w) => `${e.name} ${e.description || ''} ${e.source} ${e.slug}`.toLowerCase().includes(w));

test('search narrows the list as you type, and the query is in the URL', async () => {
  const { body } = await srv.api('/api/experiments');
  await page.goto(`${srv.base}/`);
  let st = await ready(page, 'experiments');
  assert.equal(st.experimentsShown.length, body.experiments.length);
  await page.fill('#experiment-search', 'pascal most-room');
  st = await page.evaluate(() => ({ ...window.schedlab }));
  const want = body.experiments.filter((e) => rule(e, 'pascal most-room'));
  // §4.1, §4.2, §4.2 with 33 threads, and Table 3's four rows (Appendix B)
  assert.equal(want.length, 7);
  assert.deepEqual(st.experimentsShown, want.map((e) => e.slug));
  assert.equal(await page.locator('#experiments tbody tr').count(), 7);
  assert.equal(new URL(page.url()).search, '?q=pascal%20most-room');
  await page.reload();
  st = await ready(page, 'experiments');
  assert.deepEqual(st.experimentsShown, want.map((e) => e.slug));
  await page.fill('#experiment-search', 'no such words anywhere');
  assert.equal(await page.locator('#experiments-host .empty').count(), 1);
  assert.deepEqual(br.problems, []);
});

// DESIGN §6: the page's URL holds its view. The runs selected to compare
// are the URL's `runs` where they differ from the page's own choice (docs/
// api.md "Share links"): a fresh page of the link ticks the same boxes and
// its Compare runs link compares the same runs.
test('the runs selected to compare are in the URL: a fresh page of the link selects the same', async () => {
  const { body } = await srv.api('/api/experiments');
  const exp = body.experiments.find((e) => e.source !== 'sweep' && e.runs.length >= 3 && e.runs.every((r) => (r.version ?? 1) === 1));
  assert.ok(exp, 'an experiment of three runs or more');
  const ids = exp.runs.map((r) => r.run);
  await page.goto(`${srv.base}/experiments/${exp.slug}`);
  let st = await ready(page, 'experiment');
  assert.deepEqual(st.selectedRuns, ids);           // one version: every run
  assert.equal(new URL(page.url()).search, '');
  await page.locator('#runs tbody tr').nth(1).locator('input[type=checkbox]').uncheck();
  const want = ids.filter((_, i) => i !== 1);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('runs'), want.join(','));
  const fresh = await br.context.newPage();
  fresh.on('pageerror', (e) => br.problems.push(`fresh page error: ${e.message}`));
  try {
    await fresh.goto(url.href);
    st = await ready(fresh, 'experiment');
    assert.deepEqual(st.selectedRuns, want);
    assert.deepEqual(await fresh.locator('#runs tbody input[type=checkbox]').evaluateAll((xs) => xs.map((x) => x.checked)),
      ids.map((_, i) => i !== 1));
    assert.equal(await fresh.locator('#compare-link').getAttribute('href'), `/compare?runs=${want.join(',')}`);
    assert.equal(fresh.url(), url.href);
  } finally {
    await fresh.close();
  }
  // ticked again: the page's own choice, left out of the URL
  await page.locator('#runs tbody tr').nth(1).locator('input[type=checkbox]').check();
  assert.equal(new URL(page.url()).search, '');
  // a run the experiment has not: said, the others selected
  await page.goto(`${srv.base}/experiments/${exp.slug}?runs=zzzzzzzzzz,${ids[0]}`);
  st = await ready(page, 'experiment');
  assert.deepEqual(st.selectedRuns, [ids[0]]);
  assert.equal(await page.locator('#selection-note').textContent(), 'The link\'s runs= names zzzzzzzzzz, not a run of this experiment: the others are selected.');
  assert.equal(new URL(page.url()).searchParams.get('runs'), ids[0]);
  assert.deepEqual(br.problems, []);
});

test('a bad edit shows the server\'s message at the line it names; a good one re-runs as version 2', async () => {
  await page.goto(`${srv.base}/experiments/${pascal.slug}`);
  let st = await ready(page, 'experiment');
  assert.equal(st.versions, 1);
  const text = await page.inputValue('#scenario-editor');
  const scn = JSON.parse(text);
  // ops[1].threads made invalid
  scn.ops[1].threads = -5;
  const bad = JSON.stringify(scn, null, 2);
  const line = bad.split('\n').findIndex((l) => l.includes('"threads": -5')) + 1;
  assert.ok(line > 1);
  const direct = await srv.api(`/api/experiments/${pascal.slug}/versions`, { method: 'POST', body: bad,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` } });
  assert.equal(direct.status, 400);
  assert.match(direct.body.error, /^scenario: ops\[1\]\.threads: /);
  await page.fill('#scenario-editor', bad);
  dialogs.push(['prompt', true, TOKEN]);     // the write asks for the token once
  await page.click('#rerun');
  await page.locator('#editor-msg .error').waitFor();
  st = await page.evaluate(() => ({ ...window.schedlab }));
  assert.equal(st.editorErrorLine, line);
  assert.equal(await page.locator('#editor-msg .error').textContent(), `line ${line}: ${direct.body.error}`);
  assert.equal(await page.locator('.code-editor .ln.bad').textContent(), String(line));
  await shot(page, path.join(OUT, 'editor-error.png'), { fullPage: true });

  // a JSON syntax error: jansson's line
  const broken = `${text.split('\n').slice(0, 6).join('\n')}\n  ,,\n`;
  await page.fill('#scenario-editor', broken);
  await page.click('#rerun');
  await page.waitForFunction(() => window.schedlab.editorErrorLine === 7);
  assert.match(await page.locator('#editor-msg .error').textContent(), /^line 7: scenario:7:\d+: JSON: /);

  // a top-level key (a message without a path) and a run's own check
  // ('run "round-robin": policy.tb_adjust: …'): each at its key's line
  for (const [edit, needle, said] of [
    [(s) => { s.devise = 'tx2'; }, '"devise"', /^scenario: unknown key "devise"/],
    [(s) => { s.variants[0].policy.tb_adjust = true; }, '"tb_adjust"', /^scenario: run "round-robin": policy\.tb_adjust: /]]) {
    const e = JSON.parse(text);
    edit(e);
    const t = JSON.stringify(e, null, 2);
    const l = t.split('\n').findIndex((x) => x.includes(needle)) + 1;
    await page.fill('#scenario-editor', t);
    await page.click('#rerun');
    await page.waitForFunction((n) => window.schedlab.editorErrorLine === n, l);
    const shown = await page.locator('#editor-msg .error').textContent();
    assert.ok(shown.startsWith(`line ${l}: `), shown);
    assert.match(shown.slice(`line ${l}: `.length), said);
  }

  // a good edit: X gets 4 blocks instead of 5 -> version 2 of the same experiment
  const good = JSON.parse(text);
  good.ops[0].blocks = 4;
  await page.fill('#scenario-editor', JSON.stringify(good, null, 2));
  await page.click('#rerun');
  await page.waitForFunction(() => window.schedlab.view === 'experiment' && window.schedlab.ready && window.schedlab.versions === 2);
  assert.equal(new URL(page.url()).pathname, `/experiments/${pascal.slug}`);
  const { body: exp } = await srv.api(`/api/experiments/${pascal.slug}`);
  assert.deepEqual(exp.runs.map((r) => [r.name, r.version, r.summary.blocks]),
    [['most-room', 1, 8], ['round-robin', 1, 8], ['most-room', 2, 7], ['round-robin', 2, 7]]);
  assert.deepEqual(exp.versions.map((v) => [v.version, v.runs]), [[1, 2], [2, 2]]);
  assert.equal(exp.scenario.ops[0].blocks, 4);
  assert.equal(await page.locator('#runs tbody tr').count(), 4);
  assert.deepEqual(await page.locator('#runs tbody .version').allTextContents(), ['v1', 'v1', 'v2', 'v2']);
  assert.equal(await page.locator('#rerun').textContent(), 'Re-run as version 3');
  await shot(page, path.join(OUT, 'experiment-v2.png'), { fullPage: true });
  // the 400s of the two bad edits and the 401 before the token are the only console errors
  assert.deepEqual(br.problems.filter((p) => !/status of 40[01]/.test(p)), []);
  br.problems.length = 0;
});

test('delete needs the token and a confirmation, then the experiment is gone', async () => {
  // without the token the server refuses
  const refused = await srv.api(`/api/experiments/${pascal.slug}`, { method: 'DELETE' });
  assert.equal(refused.status, 401);
  const wrong = await srv.api(`/api/experiments/${pascal.slug}`, { method: 'DELETE', headers: { Authorization: 'Bearer nope' } });
  assert.equal(wrong.status, 401);
  const foreign = await srv.api(`/api/experiments/${pascal.slug}`, { method: 'DELETE',
    headers: { Authorization: `Bearer ${TOKEN}`, Origin: 'http://evil.example' } });
  assert.equal(foreign.status, 403);
  assert.equal((await srv.api(`/api/experiments/${pascal.slug}`)).status, 200);

  await page.goto(`${srv.base}/experiments/${pascal.slug}`);
  await ready(page, 'experiment');
  await page.evaluate(() => sessionStorage.clear());
  // cancel at the confirm: nothing happens
  seen.length = 0;
  dialogs.push(['confirm', false]);
  await page.click('#delete-experiment');
  await page.waitForFunction(() => true);
  assert.equal(seen.length, 1);
  assert.match(seen[0][1], /^Delete “Most-room placement on Pascal .*” and its 4 runs\? This cannot be undone\.$/);
  assert.equal((await srv.api(`/api/experiments/${pascal.slug}`)).status, 200);
  // confirm, but no token: the server's 401 text
  dialogs.push(['confirm', true], ['prompt', false]);
  await page.click('#delete-experiment');
  await page.locator('.head-actions .error').waitFor();
  assert.equal(await page.locator('.head-actions .error').textContent(), refused.body.error);
  assert.equal((await srv.api(`/api/experiments/${pascal.slug}`)).status, 200);
  // confirm and the token: gone, and the home page no longer lists it
  dialogs.push(['confirm', true], ['prompt', true, TOKEN]);
  await page.click('#delete-experiment');
  const st = await ready(page, 'experiments');
  assert.equal(new URL(page.url()).pathname, '/');
  assert.ok(!st.experimentsShown.includes(pascal.slug));
  assert.equal((await srv.api(`/api/experiments/${pascal.slug}`)).status, 404);
  assert.equal((await srv.api(`/api/runs/${pascal.runs[0].run}`)).status, 404);
  assert.deepEqual(br.problems.filter((p) => !/status of 401/.test(p)), []);
  br.problems.length = 0;
});

test('an unknown page gets the app\'s own "not found" page; an unknown API route stays JSON', async () => {
  const res = await page.goto(`${srv.base}/no/such/page`);
  assert.equal(res.status(), 404);
  const st = await ready(page, 'notfound');
  assert.equal(st.view, 'notfound');
  assert.equal(await page.locator('h1').textContent(), 'Page not found');
  assert.equal(await page.locator('.site-header .brand').count(), 1);
  const api = await fetch(`${srv.base}/api/no/such/route`);
  assert.equal(api.status, 404);
  assert.match(api.headers.get('content-type'), /application\/json/);
  assert.deepEqual(await api.json(), { error: 'no such API route: GET /api/no/such/route' });
  // a missing file (with an extension) is still a plain 404
  assert.equal((await fetch(`${srv.base}/js/nope.mjs`)).status, 404);
  await shot(page, path.join(OUT, 'notfound.png'));
  assert.deepEqual(br.problems.filter((p) => !/status of 404/.test(p)), []);
});

test('a long scenario: the editor numbers only the lines in view, and follows the text when it scrolls', async () => {
  const problemsBefore = br.problems.length;   // (the test before leaves its 404s)
  const ops = Array.from({ length: 600 }, (_, i) => ({ kernel: `K${i}`, stream: 'S1', at: `${i}us`, blocks: 1, threads: 32, block_time: '1us' }));
  const made = await srv.api('/api/experiments', {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ schema: 'schedlab-scenario/1', name: 'editor: 600 ops', device: 'tx2', streams: [{ name: 'S1' }], ops }),
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  await page.goto(`${srv.base}/experiments/${made.body.slug}`);
  await ready(page, 'experiment');
  // the gutter is drawn when the editor is first laid out: two frames on
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const lines = await page.evaluate(() => document.querySelector('#scenario-editor').value.split('\n').length);
  assert.ok(lines > 4000, `${lines} lines`);
  const gutter = () => page.evaluate(() => {
    const g = document.querySelector('.code-editor .gutter');
    const a = document.querySelector('#scenario-editor');
    const ln = [...g.querySelectorAll('.ln')];
    // the number drawn level with the text's top line
    const top = a.getBoundingClientRect().top + parseFloat(getComputedStyle(a).paddingTop);
    const at = ln.find((el) => Math.abs(el.getBoundingClientRect().top - top) < 2);
    return { count: ln.length, first: ln[0].textContent, atTop: at ? Number(at.textContent) : null,
      topLine: Math.round(a.scrollTop / parseFloat(getComputedStyle(a).lineHeight)) + 1,
      tall: g.scrollHeight, text: a.scrollHeight };
  });
  let g = await gutter();
  // a few screens of numbers, not one element per line
  assert.ok(g.count < 200, `${g.count} line numbers`);
  assert.equal(g.first, '1');
  assert.equal(g.atTop, 1);
  // the gutter as tall as the text, so the numbers stay level with it
  assert.ok(Math.abs(g.tall - g.text) < 30, `${g.tall} vs ${g.text}`);
  // scrolled to the end: the last line's number is there, level with its line
  await page.evaluate(() => {
    const a = document.querySelector('#scenario-editor');
    a.scrollTop = a.scrollHeight;
    a.dispatchEvent(new Event('scroll'));
  });
  g = await gutter();
  assert.equal(g.atTop, g.topLine);
  assert.ok(g.count < 200, `${g.count} line numbers`);
  assert.equal(await page.locator('.code-editor .ln').last().textContent(), String(lines));
  assert.deepEqual(br.problems.slice(problemsBefore), []);
});

test('a scenario past 256 KB of text waits for a click before its editor is built', async () => {
  const problemsBefore = br.problems.length;
  // 2,000 ops: ~330 KB pretty-printed, over EDITOR_DEFER_CHARS (views/experiment.mjs)
  const ops = Array.from({ length: 2000 }, (_, i) => ({ kernel: `K${i}`, stream: 'S1', at: `${i}us`, blocks: 1, threads: 32, block_time: '1us' }));
  const made = await srv.api('/api/experiments', {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ schema: 'schedlab-scenario/1', name: 'editor: 2000 ops', device: 'tx2', streams: [{ name: 'S1' }], ops }),
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const text = JSON.stringify((await srv.api(`/api/experiments/${made.body.slug}`)).body.scenario, null, 2);
  assert.ok(text.length > 256 * 1024, `${text.length} chars`);
  await page.goto(`${srv.base}/experiments/${made.body.slug}`);
  await ready(page, 'experiment');
  // drawn without the editor: no textarea of the text, a card saying its size
  assert.equal(await page.locator('#scenario-editor').count(), 0);
  assert.equal(await page.evaluate(() => window.schedlab.editorDeferred), true);
  const lines = text.split('\n').length;
  assert.equal(await page.locator('#scenario-deferred .hint').textContent(),
    `${lines.toLocaleString('en-US')} lines (${Math.round(text.length / 1024)} KB) of scenario JSON: opened on demand, since an editor this long takes a moment to lay out.`);
  // the click builds the editor with the whole text, focused, ready to re-run
  await page.click('#open-editor');
  await page.locator('#scenario-editor').waitFor();
  assert.equal(await page.inputValue('#scenario-editor'), text);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'scenario-editor');
  assert.equal(await page.evaluate(() => window.schedlab.editorDeferred), false);
  assert.equal(await page.locator('#scenario-deferred').count(), 0);
  assert.equal(await page.locator('#rerun').textContent(), 'Re-run as version 2');
  assert.deepEqual(br.problems.slice(problemsBefore), []);
});
