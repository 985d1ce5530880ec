// query_units.test.mjs -- a malformed number in a query names what the
// argument counts: `max` and `bins` are counts (docs/api.md: "max 20000",
// "bins 1-10000"), the Warps tab's `from`/`to` are cycles ("cycles;
// defaults: all"), only the other windows' from/to/at are ns. Every one of
// them read "expected an integer number of ns", so `?max=2k` told a script
// to send nanoseconds; now as the pages' own arguments say it
// (`offset: expected a whole number, got "x"`, docs/api.md).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { json, scenarioRun, serve } from './serve_opts.mjs';

let srv, run;
before(async () => {
  srv = await serve();
  run = await scenarioRun(srv.base);
});
after(async () => { assert.equal(await srv.stop(), 0); });

async function bad(path, error) {
  const r = await json(`${srv.base}/api/runs/${run}/${path}`);
  assert.equal(r.status, 400, path);
  assert.equal(r.body.error, error, path);
}

test('counts are whole numbers, not ns', async () => {
  for (const route of ['blocks', 'occupancy', 'kernels', 'copies', 'streams', 'warps'])
    await bad(`${route}?max=2k`, 'max: expected a whole number, got "2k"');
  await bad('queues?from=0&to=10&bins=x', 'bins: expected a whole number, got "x"');
});

test('times are ns, and the Warps tab\'s window cycles', async () => {
  await bad('blocks?from=1.5', 'from: expected an integer number of ns, got "1.5"');
  await bad('queues?at=x', 'at: expected an integer number of ns, got "x"');
  await bad('warps?from=x', 'from: expected an integer number of cycles, got "x"');
  await bad('warps?to=1e9', 'to: expected an integer number of cycles, got "1e9"');
});
