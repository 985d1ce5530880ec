// A server started with --read-token (docs/shared-machine.md, docs/api.md
// "Writes, headers, limits"): its API's reads need the token, its pages stay
// open, and a shared link needs the token too. The dashboard asks for it
// once, at the first refused read, as it does for writes, and then shows
// the page. Found by auditing the dashboard: every page of such a server
// showed only the 401's text, with no way to give the token.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, startBrowser, ready, downloaded } from './harness.mjs';

const TOKEN = 'r3ad-only-token';
let srv;
const browsers = [];

before(async () => {
  srv = await startServer(['--read-token', TOKEN]);
});

after(async () => {
  for (const b of browsers) await b.close();
  if (srv) await srv.stop();
});

// a fresh browser context (a teammate opening a link) answering its
// prompts with `answer` (null: dismiss); the prompts it saw
async function teammate(answer) {
  const br = await startBrowser();
  browsers.push(br);
  const prompts = [];
  br.page.on('dialog', async (d) => {
    prompts.push([d.type(), d.message()]);
    if (answer === null) await d.dismiss();
    else await d.accept(answer);
  });
  return { page: br.page, prompts };
}

async function api(p) {
  const r = await fetch(srv.base + p, { headers: { Authorization: `Bearer ${TOKEN}` } });
  return r.json();
}

test('the API refuses reads without the token, the pages stay open', async () => {
  assert.equal((await fetch(`${srv.base}/api/experiments`)).status, 401);
  assert.equal((await fetch(`${srv.base}/`)).status, 200);
});

test('the experiments page asks for the token once and then lists the experiments', async () => {
  const { experiments } = await api('/api/experiments');
  const { page, prompts } = await teammate(TOKEN);
  await page.goto(`${srv.base}/`);
  const st = await ready(page, 'experiments');
  assert.equal(prompts.length, 1);
  assert.equal(prompts[0][0], 'prompt');
  assert.match(prompts[0][1], /token/);
  assert.deepEqual(st.experimentsShown, experiments.map((e) => e.slug));
});

test('a shared link to a run opens in a fresh browser once the token is given', async () => {
  const { experiments } = await api('/api/experiments');
  const exp = experiments.find((e) => /^TX2 basic rules/.test(e.name));
  const run = exp.runs[0].run;
  const { page, prompts } = await teammate(TOKEN);
  await page.goto(`${srv.base}/runs/${run}?view=timeline&from=500000000&to=3000000000`);
  await ready(page, 'timeline');
  assert.equal(prompts.length, 1);
  assert.equal(await page.locator('.error').count(), 0);
  assert.match(await page.locator('h1').textContent(), /TX2 basic rules/);
});

// A link cannot send the token, so the run page's export links fetch the
// file with the kept one: the download is the trace, not the 401's text.
test('the run page\'s trace JSON link downloads the trace with the token', async () => {
  const { experiments } = await api('/api/experiments');
  const run = experiments.find((e) => /^TX2 basic rules/.test(e.name)).runs[0].run;
  const { page } = await teammate(TOKEN);
  await page.goto(`${srv.base}/runs/${run}?view=timeline`);
  await ready(page, 'timeline');
  const dl = page.waitForEvent('download');
  await page.getByRole('link', { name: 'trace JSON' }).click();
  const file = await dl;
  const head = await fetch(`${srv.base}/api/runs/${run}/export?format=trace`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(file.suggestedFilename(), /filename="([^"]+)"/.exec(head.headers.get('content-disposition'))[1]);
  const trace = JSON.parse((await downloaded(file)).toString('utf8'));
  assert.equal(trace.schema, 'schedlab-trace/1');
  assert.deepEqual(trace.kernels.map((k) => k.name), (await head.json()).kernels.map((k) => k.name));
});

test('declining the prompt shows the server\'s refusal, asked once only', async () => {
  const { page, prompts } = await teammate(null);
  await page.goto(`${srv.base}/`);
  await page.locator('.error').first().waitFor();
  assert.match(await page.locator('.error').first().textContent(), /needs a token for reads/);
  assert.equal(prompts.length, 1);
});
