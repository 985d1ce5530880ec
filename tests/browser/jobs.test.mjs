// jobs.test.mjs -- issue 16: work the server runs as a job (202 {job}) shows
// a progress bar in the dashboard, which then opens the result as before;
// a server with --token asks for the token once and then writes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { serve } from '../api/serve_opts.mjs';
import { ready, startBrowser } from './harness.mjs';

let browser;
before(async () => { browser = await startBrowser(); });
after(async () => { await browser?.close(); });

const scenario = (blocks, name) => JSON.stringify({
  schema: 'schedlab-scenario/1', name, device: 'tx2',
  streams: [{ name: 'S1' }], ops: [{ kernel: 'K1', stream: 'S1', blocks, threads: 64, block_time: '10us' }],
});

test('a scenario past the synchronous budget shows a progress bar, then its experiment', async () => {
  const srv = await serve(['--budget', 'sync=1000']);
  try {
    const { page } = browser;
    await page.goto(`${srv.base}/`);
    await ready(page, 'experiments');
    await page.fill('#scenario-text', scenario(600000, 'a job from the dashboard'));
    await page.click('#scenario-form button[type=submit]');
    await page.locator('#scenario-form progress.job-progress').waitFor({ timeout: 20000 });
    await ready(page, 'experiment');
    assert.match(await page.locator('h1').first().textContent(), /a job from the dashboard/);
    assert.deepEqual(browser.problems, []);
  } finally { await srv.stop(); }
});

test('with --token the dashboard asks for the token once, then writes', async () => {
  const srv = await serve(['--token', 'lab-s3cret']);
  try {
    const { page } = browser;
    let asked = 0;
    const onDialog = (d) => { asked++; d.accept('lab-s3cret'); };
    page.on('dialog', onDialog);
    await page.goto(`${srv.base}/`);
    await ready(page, 'experiments');
    await page.fill('#scenario-text', scenario(4, 'written with the token'));
    await page.click('#scenario-form button[type=submit]');
    await ready(page, 'experiment');
    await page.goto(`${srv.base}/`);
    await ready(page, 'experiments');
    await page.fill('#scenario-text', scenario(4, 'written again'));
    await page.click('#scenario-form button[type=submit]');
    await ready(page, 'experiment');
    page.off('dialog', onDialog);
    assert.equal(asked, 1);
  } finally { await srv.stop(); }
});
