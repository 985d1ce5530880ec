// with_browser.mjs COMMAND [ARG...] -- run COMMAND (make's node --test of the
// suites) beside one headless Chromium that every browser test file of the
// run connects to (SCHEDLAB_BROWSER_WS), each in a context of its own,
// instead of starting a browser of its own: a Chromium start with a fresh
// profile costs about 3 s of CPU, 29 times in a run on a 2-core machine.
// A file run alone (node --test FILE) still starts its own (harness.mjs,
// startBrowser). Exits with COMMAND's status; the browser goes with it.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { chromium } from 'playwright-core';

import { CHROMIUM_ARGS, CHROMIUM_PATH } from './harness.mjs';

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  console.error('usage: node tests/browser/with_browser.mjs COMMAND [ARG...]');
  process.exit(2);
}
const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, SCHEDLAB_BROWSER_WS: server.wsEndpoint() } });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
const code = await new Promise((ok) => child.on('exit', (c, s) => ok(c ?? (s ? 1 : 0))));
await server.close();
process.exit(code);
